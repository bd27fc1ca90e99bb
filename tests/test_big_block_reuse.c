/* test_big_block_reuse.c - under jemalloc auto a freed big block is kept
 * for the next one (jemalloc_huge_arena.c), a freed run of 32 MiB or
 * more still goes back to the kernel at once, and at most 32 MiB is kept.
 * usage: test_big_block_reuse [giveback]   (HUGEPOLICY_BACKEND=jemalloc, PAGES=auto)
 *
 * giveback (any HUGEPOLICY_THRESHOLD): 10 blocks of 40 MiB filled by one
 * thread and freed by another leave Rss at most 40 MiB above where it was
 * (32 MiB kept at most; at a threshold of 64M, 1T or 4096 the blocks went to
 * arenas that kept them all: 160-400 MiB);
 *
 * - reuse: malloc+memset+free of 16 MiB, then the same again: the second
 *   round takes no page fault of its own (jemalloc's default purged the block at free,
 *   so every round faulted it in again: 8 or more faults);
 * - give back: allocating a 128 MiB block (32 MiB or more: no kept run
 *   could serve it) gives the kept 16 MiB back before it is touched
 *   (fresh-buffer's peak RSS was the kept blocks plus its 256 MiB one);
 *   the 128 MiB block, filled and freed, leaves the process's Rss (as
 *   /proc/self/smaps_rollup says) at least 120 MiB lower;
 * - budget: of 20 freed 8 MiB blocks between live ones (runs that do not
 *   coalesce) at most 32 MiB stays resident right after (160 MiB kept
 *   pushed render's peak RSS 10 % over jemalloc off's);
 * - decay: those kept are gone from Rss within jemalloc's dirty_decay_ms
 *   (10 s) of further big-block activity, but for the 4 MiB block that
 *   activity frees each time (jemalloc itself checked that clock only every
 *   1000 operations of that arena, so they stayed for good);
 * - the report's backend.huge_arena.* keys say what took effect, read back
 *   by mallctl. */
#define _GNU_SOURCE
#include "check.h"
#include "report_keys.h"
#include "smaps_rollup.h"

#include <hugepolicy.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MIB (1024u * 1024u)

static long minflt(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

static long long rss_kb(void)
{
	return smaps_rollup_kb("Rss");
}

static long round_faults(size_t n)
{
	long before = minflt();
	unsigned char *p = malloc(n);
	CHECK(p != NULL);
	if (!p)
		return -1;
	memset(p, 0x5a, n);
	__asm__ volatile("" : : "r"(p) : "memory");      /* the stores happen */
	CHECK(p[0] == 0x5a && p[n - 1] == 0x5a);
	free(p);
	return minflt() - before;
}

static void *forty[10];

static void *fill_forty(void *arg)
{
	for (int i = 0; i < 10; i++) {
		forty[i] = malloc(40 * MIB);
		CHECK(forty[i] != NULL);
		if (forty[i])
			memset(forty[i], i + 1, 40 * MIB);
		__asm__ volatile("" : : "r"(forty[i]) : "memory");
	}
	return arg;
}

static int giveback(void)
{
	long long before = rss_kb();
	pthread_t t;
	CHECK(pthread_create(&t, NULL, fill_forty, NULL) == 0 && pthread_join(t, NULL) == 0);
	long long full = rss_kb();
	for (int i = 0; i < 10; i++)
		free(forty[i]);
	long long after = rss_kb();
	const char *th = getenv("HUGEPOLICY_THRESHOLD");
	printf("threshold %s: Rss %lld kB, %lld kB with 10 x 40 MiB, %lld kB after another thread freed them\n",
	       th ? th : "(default)", before, full, after);
	CHECK(full >= before + 390 * 1024);
	CHECK_MSG(after <= before + 40 * 1024, "%lld kB of the freed blocks stayed resident", after - before);
	return check_result("test_big_block_reuse giveback");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "giveback") == 0)
		return giveback();
	long first = round_faults(16 * MIB);
	long second = round_faults(16 * MIB);
	long third = round_faults(16 * MIB);
	printf("16 MiB rounds: %ld, %ld, %ld minor faults\n", first, second, third);
	CHECK(first > 0);
	/* one stray fault (jemalloc's metadata, the stack) is not the block: faulting
	 * it in again takes 8 (THP) to 4096 (base pages) */
	CHECK_MSG(second <= 2 && third <= 2, "a freed 16 MiB block was faulted in again (%ld, %ld)", second, third);

	/* the freed 16 MiB block is kept (above); a 128 MiB one, which no kept
	 * run could serve, sends it back before its caller touches it */
	long long with_kept = rss_kb();
	unsigned char *big = malloc(128 * MIB);
	CHECK(big != NULL);
	long long fresh = rss_kb();
	printf("a kept 16 MiB block: Rss %lld kB, %lld kB once a 128 MiB block is allocated\n", with_kept, fresh);
	CHECK_MSG(with_kept - fresh >= 12 * 1024, "the kept block stayed resident beside a 128 MiB one");
	if (big) {
		memset(big, 0x33, 128 * MIB);
		__asm__ volatile("" : : "r"(big) : "memory");
		long long held = rss_kb();
		free(big);
		long long after = rss_kb();
		printf("128 MiB block: Rss %lld kB filled, %lld kB after free\n", held, after);
		CHECK_MSG(held - after >= 120 * 1024, "a freed 128 MiB block stayed resident");
	}

	/* decay */
	enum { NB = 40 };
	unsigned char *b[NB];
	for (int i = 0; i < NB; i++) {
		b[i] = malloc(8 * MIB);
		CHECK(b[i] != NULL);
		if (b[i])
			memset(b[i], i, 8 * MIB);
		__asm__ volatile("" : : "r"(b[i]) : "memory");
	}
	long long live = rss_kb();
	for (int i = 0; i < NB; i += 2)
		free(b[i]);
	long long kept = rss_kb();
	CHECK_MSG(kept <= live - 120 * 1024, "more than 32 MiB of 160 freed stayed resident (%lld -> %lld kB)", live,
		  kept);
	long long later = kept;
	for (int s = 0; s < 30 && later > live - 148 * 1024; s++) {     /* at most 15 s */
		for (int k = 0; k < 3; k++)
			round_faults(4 * MIB);
		struct timespec half = { 0, 500 * 1000 * 1000 };
		nanosleep(&half, NULL);
		later = rss_kb();
	}
	printf("20 of 40 8 MiB blocks freed: Rss %lld kB live, %lld kB right after, %lld kB later\n", live, kept, later);
	CHECK_MSG(later <= live - 148 * 1024, "kept big blocks stayed resident through 15 s of big-block activity");
	for (int i = 1; i < NB; i += 2)
		free(b[i]);

	char report[16384];
	report_text(report, sizeof report);
	CHECK_MSG(report_num(report, "backend.huge_arena.keep_below") == 32 << 20 &&
		  report_num(report, "backend.huge_arena.keep_max") == 32 << 20 &&
		  report_num(report, "backend.huge_arena.dirty_decay_ms") == 10000, "%s", report);
	return check_result("test_big_block_reuse");
}
