/* san_tsan.c - data races in hugepolicy's shared state, under TSan:
 *   tlb      the hugetlb mapping table from 4 threads (san_tlb.c)
 *   fork     a recorded mapping shorter than its page needs a whole free
 *            pool page for the child's copy: with none free the fork copies
 *            (the child re-homes it, and says so in its report).  Then fork()
 *            while threads add and remove real mappings in the table, on the
 *            copy path (a cgroup hugetlb limit, as hp_fork_init is told):
 *            hugetlb_fork.c's handlers hold the table, the child makes every
 *            recorded mapping its own (a read-only one is re-homed by copy +
 *            mremap) and finds the contents intact
 *   policy   options, probe, plan, format, cgroup walk and hp_say from threads
 *   canary   a planted race: TSan must say so
 * Built from the policy/ files and pages/hugetlb_{map,pages,fork}.c with
 * -fsanitize=thread, without hugepolicy's malloc entry points (TSan's own
 * malloc stays in charge; see tests/sanitize.cmake). */
#define _GNU_SOURCE
#include "../../pages/hp_pages.h"
#include "../check.h"
#include "../smaps_vma.h"
#include "san.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int san_failed;
static atomic_int stop;

#define MAPS 6
#define MAP_BYTES (256u << 10)

static void *churn(void *arg)
{
	unsigned char *maps[MAPS];
	int t = (int)(intptr_t)arg, bad = 0;
	for (int i = 0; i < MAPS; i++) {
		maps[i] = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		memset(maps[i], t + 1, MAP_BYTES);
	}
	while (!atomic_load(&stop)) {
		for (int i = 0; i < MAPS; i++)
			bad += hp_tlb_add(maps[i], MAP_BYTES, HP_TLB_ARENA) != 0;
		for (int i = 0; i < MAPS; i++)
			bad += !hp_tlb_overlaps(maps[i] + 100, 1);
		for (int i = 0; i < MAPS; i += 2)
			hp_tlb_forget(maps[i], MAP_BYTES);
		for (int i = 1; i < MAPS; i += 2)
			bad += hp_tlb_remove(maps[i]) != MAP_BYTES;
	}
	for (int i = 0; i < MAPS; i++)
		munmap(maps[i], MAP_BYTES);
	return (void *)(intptr_t)bad;
}

/* whether the mapping holding p is writable (VmFlags "wr", smaps) */
static int writable(const void *p)
{
	char flags[512] = "";
	return smaps_vma_field(p, "VmFlags:", flags, sizeof flags) && strstr(flags, " wr") != NULL;
}

/* A 64 KiB read-only mapping recorded as pages of 4 MiB, a size this
 * kernel has no pool of (so none is free, whatever the host's pools hold),
 * on a 2 MiB boundary (where the table knows a page size): the child's
 * copy would take one whole page, which no pool has, so the fork copies
 * and the child makes the mapping its own (rounded down to no page, the
 * fork was left to copy-on-write). */
static void fork_counts_whole_pages(void)
{
	enum { RO_BYTES = 64u << 10 };
	const size_t no_pool = (size_t)4 << 20;
	unsigned char *m = mmap(NULL, 2 * HP_HUGE_2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	unsigned char *ro = (unsigned char *)(((uintptr_t)m + HP_HUGE_2M - 1) & ~(uintptr_t)(HP_HUGE_2M - 1));
	memset(ro, 0xa5, RO_BYTES);
	CHECK(mprotect(ro, RO_BYTES, PROT_READ) == 0);  /* MADV_POPULATE_WRITE fails: the child re-homes it */
	CHECK(hp_pages_pool_free(no_pool) == 0);
	CHECK(hp_tlb_add_page(ro, RO_BYTES, HP_TLB_BACKEND, no_pool) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct hp_fork_report c;
		hp_fork_read(&c);
		_exit(c.moved_bytes + c.copied_bytes == RO_BYTES && c.shared_bytes == 0 && ro[0] == 0xa5 &&
		      ro[RO_BYTES - 1] == 0xa5 ? 0 : 4);
	}
	int st = -1;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	int own = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	CHECK_MSG(own, "whole pages: child status %#x (it did not make its copy of %p its own)", st, (void *)ro);
	struct hp_fork_report r;
	hp_fork_read(&r);
	CHECK_MSG(r.children == 1 && r.children_shared == 0, "whole pages: %llu forks, %llu left to copy-on-write",
		  (unsigned long long)r.children, (unsigned long long)r.children_shared);
	CHECK(hp_tlb_remove(ro) == RO_BYTES);
	munmap(m, 2 * HP_HUGE_2M);
	if (own && r.children_shared == 0)
		printf("fork: whole pages: the child of a fork with no free pool page made its copy\n");
}

static void fork_under_threads(void)
{
	enum { RO_BYTES = 64u << 10, FORKS = 20 };
	san_quiet_say();
	hp_fork_init(1, 1, 1, NULL, 0);
	fork_counts_whole_pages();
	/* the copy path, whatever the pool holds: a process under a cgroup
	 * hugetlb limit copies at every fork */
	struct hp_pool limited = { .page_size = HP_HUGE_2M, .cg_max = 0, .cg_current = 0 };
	hp_fork_init(1, 1, 1, &limited, 1);
	unsigned char *ro = mmap(NULL, RO_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(ro, 0xa5, RO_BYTES);
	mprotect(ro, RO_BYTES, PROT_READ);     /* MADV_POPULATE_WRITE fails: the child re-homes it */
	CHECK(hp_tlb_add(ro, RO_BYTES, HP_TLB_BACKEND) == 0);
	pthread_t th[3];
	for (int t = 0; t < 3; t++)
		pthread_create(&th[t], NULL, churn, (void *)(intptr_t)t);
	int ok = 0;
	for (int f = 0; f < FORKS; f++) {
		pid_t pid = fork();
		if (pid == 0) {
			int good = 1;
			for (unsigned i = 0; i < RO_BYTES; i += 4096)
				good &= ro[i] == 0xa5;
			if (!writable(ro)) {
				struct hp_fork_report r;
				hp_fork_read(&r);
				printf("fork %d: the child's copy of %p is still read-only: copied %llu, moved %llu, "
				       "lost %llu, shared %llu bytes\n", f, (void *)ro, (unsigned long long)r.copied_bytes,
				       (unsigned long long)r.moved_bytes, (unsigned long long)r.lost_bytes,
				       (unsigned long long)r.shared_bytes);
				fflush(stdout);
				_exit(4);
			}
			ro[0] = 1;              /* writable now: the child's own anonymous copy */
			good &= ro[0] == 1 && ro[RO_BYTES - 1] == 0xa5;
			_exit(good ? 0 : 3);
		}
		int st = -1;
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
		CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork %d: child status %#x", f, st);
		ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
		usleep(2000);
	}
	atomic_store(&stop, 1);
	for (int t = 0; t < 3; t++) {
		void *bad;
		pthread_join(th[t], &bad);
		CHECK_MSG(bad == NULL, "thread %d: %ld table errors", t, (long)(intptr_t)bad);
	}
	CHECK(ro[0] == 0xa5);                  /* the parent's page is untouched */
	CHECK(hp_tlb_remove(ro) == RO_BYTES);
	CHECK(hp_tlb_pool_bytes() == 0);
	printf("fork: %d of %d children found their mappings intact\n", ok, FORKS);
}

static const char *env_get(const char *name)
{
	static const char *const env[] = { "HUGEPOLICY_BACKEND", "mimalloc", "HUGEPOLICY_PAGES", "hugetlb",
					   "HUGEPOLICY_THRESHOLD", "8M", "HUGEPOLICY_VERBOSE", "1", NULL };
	for (int i = 0; env[i]; i += 2)
		if (strcmp(env[i], name) == 0)
			return env[i + 1];
	return NULL;
}

static void *policy_thread(void *arg)
{
	int t = (int)(intptr_t)arg, bad = 0;
	static char text[4][1 << 14];
	for (int i = 0; i < 200; i++) {
		struct hp_options o;
		struct hp_probe p;
		struct hp_plan pl;
		bad += hp_options_read(&o, env_get) != 0;
		hp_probe_for_plan(&p, (i + t) % HP_PAGES_COUNT, (i + t) % HP_BACKEND_COUNT);
		if (i % 25 == 0)
			hp_probe_read(&p);
		hp_plan_make(&o, &p, &pl);
		bad += pl.pages_reason[0] == '\0';
		struct hp_buf b = { text[t], sizeof text[t], 0 };
		hp_probe_format(&p, i & 1, &b);
		int64_t lim, use;
		char where[128];
		bad += hp_cgroup_hugetlb_room("", HP_HUGE_2M, &lim, &use, where, sizeof where) < 0;
		if (i % 50 == 0)
			hp_say("thread %d: plan %s (%s)", t, hp_pages_name(pl.pages), pl.pages_reason);
	}
	return (void *)(intptr_t)bad;
}

static void policy_from_threads(void)
{
	pthread_t th[4];
	for (int t = 0; t < 4; t++)
		pthread_create(&th[t], NULL, policy_thread, (void *)(intptr_t)t);
	for (int t = 0; t < 4; t++) {
		void *bad;
		pthread_join(th[t], &bad);
		CHECK_MSG(bad == NULL, "thread %d: %ld errors", t, (long)(intptr_t)bad);
	}
}

static int racy;
static void *race(void *arg)
{
	racy += (int)(intptr_t)arg;     /* unsynchronised on purpose */
	return NULL;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "canary") == 0) {
		pthread_t a, b;
		pthread_create(&a, NULL, race, (void *)1);
		pthread_create(&b, NULL, race, (void *)2);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		return racy == 3 ? 0 : 1;
	}
	if (strcmp(what, "tlb") == 0) {
		san_quiet_say();
		san_tlb();
	} else if (strcmp(what, "fork") == 0) {
		fork_under_threads();
	} else if (strcmp(what, "policy") == 0) {
		policy_from_threads();
	} else {
		fprintf(stderr, "usage: %s tlb|fork|policy|canary\n", argv[0]);
		return 2;
	}
	check_failures += san_failed;
	return check_result(what);
}
