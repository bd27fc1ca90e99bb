/*
 * test_live_units.c CASE - the live block's seqlock (policy/live.c) and the
 * line `hugepolicy inspect` prints when it may not read it
 * (integration/inspect_live.c), one behaviour per case:
 *   torn        a read that meets a write under way (seq odd, or changed
 *               between before and after) is retried; the copy returned
 *               is the whole of one write
 *   racing      a writer thread rewriting the block without pause: every
 *               copy the reader accepts is one write, never a mix of two
 *   busy        a write under way at every try: EAGAIN, not a torn copy
 *   layout      another magic, version or size: EPROTO, nothing trusted
 *   unpublished seq 0 (start-up has not run): ENODATA
 *   refused     both ways refused: one line naming both, the errnos, Yama
 */
#define _GNU_SOURCE
#include "../integration/hp_inspect.h"
#include "check.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static struct hp_live block = { .magic = HP_LIVE_MAGIC, .version = HP_LIVE_VERSION, .size = sizeof(struct hp_live) };

/* the other process's memory: `block`, with a scripted writer that acts
 * between the reader's reads */
struct script {
	int reads;              /* reads so far */
	int tear_until;         /* the writer acts while reads < this */
};

static void fill(struct hp_report_snap *s, int k)
{
	memset(s, k, sizeof *s);
}

/* 1: every byte of the copy's report is k's */
static int one_write(const struct hp_live *l, int *k)
{
	const unsigned char *p = (const unsigned char *)&l->snap;
	*k = p[0];
	for (size_t i = 1; i < sizeof l->snap; i++)
		if (p[i] != p[0])
			return 0;
	return 1;
}

/* a write that is half done when the reader copies, finished before its
 * "after" read: seq odd in the copy, or changed */
static int scripted(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct script *s = ctx;
	int r = s->reads++;
	if (r < s->tear_until && n == sizeof block) {
		/* the writer starts: seq odd, half of the new report in */
		uint64_t seq = atomic_load(&block.seq);
		atomic_store(&block.seq, seq + 1);
		memset(&block.snap, r + 2, sizeof block.snap / 2);
		memcpy(buf, (void *)(uintptr_t)addr, n);
		/* ... and ends before the reader's second look at seq */
		memset(&block.snap, r + 2, sizeof block.snap);
		atomic_store(&block.seq, seq + 2);
		return 0;
	}
	memcpy(buf, (void *)(uintptr_t)addr, n);
	return 0;
}

static void torn(void)
{
	static struct hp_live out;
	struct hp_report_snap s;
	fill(&s, 1);
	hp_live_write(&block, &s, 1, 0);
	struct script sc = { 0, 3 * 3 };        /* three tries torn (three reads each) */
	int rc = hp_live_read(scripted, &sc, (uint64_t)(uintptr_t)&block, 10, &out);
	int k = -1;
	CHECK_MSG(rc == 0, "read: %d", rc);
	CHECK_MSG(sc.reads > 9, "the torn tries were not retried: %d reads", sc.reads);
	CHECK_MSG(one_write(&out, &k), "the copy mixes two writes");
	CHECK_MSG(k == 7 + 2 && out.seq == atomic_load(&block.seq) && !(out.seq & 1),
		  "the copy is write %d at seq %llu, the block's last is at %llu", k, (unsigned long long)out.seq,
		  (unsigned long long)atomic_load(&block.seq));
}

static int local(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	memcpy(buf, (void *)(uintptr_t)addr, n);
	return 0;
}

static atomic_int stop;

static void *writer(void *arg)
{
	static struct hp_report_snap s;
	(void)arg;
	for (int k = 1; !atomic_load(&stop); k = (k + 1) & 0xff) {
		fill(&s, k);
		hp_live_write(&block, &s, k, k);
		for (volatile int i = 0; i < 100; i++)   /* reads overlap writes ... */
			;
		if (k % 64 == 0)
			usleep(100);    /* ... and get through now and then, however the CPUs are shared */
	}
	return NULL;
}

static void racing(void)
{
	static struct hp_live out;
	static struct hp_report_snap first;
	pthread_t t;
	hp_live_write(&block, &first, 0, 0);
	CHECK(pthread_create(&t, NULL, writer, NULL) == 0);
	int accepted = 0, refused = 0, mixed = 0;
	for (int i = 0; i < 20000; i++) {
		int rc = hp_live_read(local, NULL, (uint64_t)(uintptr_t)&block, 4, &out), k;
		if (rc == EAGAIN) {
			refused++;
			continue;
		}
		CHECK_MSG(rc == 0, "read: %d", rc);
		accepted++;
		if (!one_write(&out, &k) || out.counters_ns != k)
			mixed++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("racing: %d copies accepted, %d reads gave up (EAGAIN), %d mixed\n", accepted, refused, mixed);
	CHECK_MSG(mixed == 0, "%d accepted copies mix two writes", mixed);
	CHECK_MSG(accepted > 0, "no read got through");
}

static int always_odd(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	memcpy(buf, (void *)(uintptr_t)addr, n);
	if (n == sizeof(uint64_t))
		*(uint64_t *)buf |= 1;
	else
		((struct hp_live *)buf)->seq |= 1;
	return 0;
}

static void busy(void)
{
	static struct hp_live out;
	struct hp_report_snap s;
	fill(&s, 7);
	hp_live_write(&block, &s, 1, 0);
	int rc = hp_live_read(always_odd, NULL, (uint64_t)(uintptr_t)&block, 5, &out);
	CHECK_MSG(rc == EAGAIN, "a write under way at every try: %d, not EAGAIN", rc);
}

static void layout(void)
{
	static struct hp_live other, out;
	struct hp_report_snap s;
	fill(&s, 3);
	static const struct { const char *what; int field; } cases[] = {
		{ "magic", 0 }, { "version", 1 }, { "size", 2 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memcpy(&other, &block, sizeof other);
		hp_live_write(&other, &s, 1, 0);
		if (cases[i].field == 0)
			other.magic[0] ^= 1;
		else if (cases[i].field == 1)
			other.version++;
		else
			other.size -= 8;
		int rc = hp_live_read(local, NULL, (uint64_t)(uintptr_t)&other, 3, &out);
		CHECK_MSG(rc == EPROTO, "another %s: %d, not EPROTO", cases[i].what, rc);
	}
}

static void unpublished(void)
{
	static struct hp_live fresh = { .magic = HP_LIVE_MAGIC, .version = HP_LIVE_VERSION,
					.size = sizeof(struct hp_live) }, out;
	int rc = hp_live_read(local, NULL, (uint64_t)(uintptr_t)&fresh, 3, &out);
	CHECK_MSG(rc == ENODATA, "nothing written yet: %d, not ENODATA", rc);
}

static void refused_line(void)
{
	char line[512];
	hp_inspect_live_refused(line, sizeof line, 1234, EPERM, EACCES, "1");
	printf("%s\n", line);
	CHECK(strchr(line, '\n') == NULL);
	CHECK(strstr(line, "process_vm_readv refused (Operation not permitted)") != NULL);
	CHECK(strstr(line, "/proc/1234/mem refused (Permission denied)") != NULL);
	CHECK(strstr(line, "Yama ptrace_scope 1 being its ancestor") != NULL);
	hp_inspect_live_refused(line, sizeof line, 1234, EPERM, EPERM, NULL);
	CHECK_MSG(strstr(line, "Yama") == NULL, "no Yama here, yet: %s", line);
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	if (strcmp(c, "torn") == 0)
		torn();
	else if (strcmp(c, "racing") == 0)
		racing();
	else if (strcmp(c, "busy") == 0)
		busy();
	else if (strcmp(c, "layout") == 0)
		layout();
	else if (strcmp(c, "unpublished") == 0)
		unpublished();
	else if (strcmp(c, "refused") == 0)
		refused_line();
	else
		return 2;
	return check_failures ? 1 : 0;
}
