/*
 * test_pagesize.c MODE [ARG] - 1 GiB blocks and the 1 GiB hugetlb pool, under
 * whatever HUGEPOLICY_BACKEND / _PAGES / _HUGETLB_SIZE the test sets (the
 * program links libhugepolicy).  Asks the kernel (smaps KernelPageSize of the
 * block's mapping, the pool's free_hugepages) what each block got.
 *   block KB [TEXT]  a 1 GiB malloc+memset lands on pages of KB kB, data
 *                    intact; free gives a 1 GiB page back (KB 1048576); the
 *                    report's plan.hugetlb_size_reason holds TEXT; KB 2048 needs the 1 GiB pool to have
 *                    no page free (else skip), but with HUGETLB_SIZE=2M
 *   two              the 1 GiB pool has one page: the first 1 GiB block gets
 *                    it, the second falls back to 2 MiB pages; the report
 *                    counts one 1 GiB refusal
 *   fork [KB]        a child writes the whole 1 GiB block (on a 1 GiB page)
 *                    and exits normally, no SIGBUS; both keep their data;
 *                    the child's copy is on KB kB pages (0: any); "fork KB
 *                    thread": from a parent with a second thread
 *   realloc          a 1 GiB-page block realloc'ed to 64 MiB moves and gives
 *                    the 1 GiB page back, its first 64 MiB intact
 */
#define _GNU_SOURCE
#include "check.h"
#include "report_keys.h"
#include "smaps_vma.h"
#include "hugepolicy.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define GIB ((size_t)1 << 30)
#define POOL "/sys/kernel/mm/hugepages/hugepages-1048576kB/"

static long pool_of(const char *dir, const char *name)
{
	char path[128], buf[32];
	snprintf(path, sizeof path, "%s%s", dir, name);
	FILE *f = fopen(path, "r");
	long v = -1;
	if (f && fgets(buf, sizeof buf, f))
		v = strtol(buf, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static long pool_u(const char *name)
{
	return pool_of(POOL, name);
}

#define POOL_2M "/sys/kernel/mm/hugepages/hugepages-2048kB/"

/* the 2 MiB pool as the kernel counts it, for a failure's message */
static void say_2m_pool(const char *when)
{
	printf("2 MiB pool %s: nr %ld free %ld resv %ld surplus %ld\n", when, pool_of(POOL_2M, "nr_hugepages"),
	       pool_of(POOL_2M, "free_hugepages"), pool_of(POOL_2M, "resv_hugepages"),
	       pool_of(POOL_2M, "surplus_hugepages"));
}

static long page_kb(const void *p)
{
	return smaps_vma_page_kb(p);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = (unsigned char)(seed + i / 4096);
	p[n - 1] = (unsigned char)seed;
}

static int intact(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i += 4096)
		if (p[i] != (unsigned char)(seed + i / 4096))
			return 0;
	return p[n - 1] == (unsigned char)seed;
}

/* the exit report's text, as the process would print it */
static void report(char *out, size_t cap)
{
	report_text(out, cap);
	fputs(out, stdout);
}

static int block(long want_kb, const char *text)
{
	long free0 = pool_u("free_hugepages") - pool_u("resv_hugepages");
	const char *asked = getenv("HUGEPOLICY_HUGETLB_SIZE");
	if (want_kb != 1048576 && free0 > 0 && !(asked && strcmp(asked, "2M") == 0))
		SKIP("the 1 GiB pool has %ld pages free (someone else's): this case needs none", free0);
	unsigned char *p = malloc(GIB);
	CHECK(p != NULL);
	if (!p)
		return check_result("pagesize block");
	memset(p, 0x5a, GIB);
	fill(p, GIB, 7);
	long kb = page_kb(p), held = pool_u("free_hugepages");
	printf("1 GiB block at %p: KernelPageSize %ld kB (want %ld), 1 GiB pool free %ld\n", (void *)p, kb, want_kb, held);
	CHECK_MSG(kb == want_kb, "KernelPageSize %ld kB, want %ld", kb, want_kb);
	CHECK(intact(p, GIB, 7));
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	printf("hugetlb_bytes %llu, hugetlb_blocks %llu, process.hugetlb %llu\n", (unsigned long long)st.hugetlb_bytes,
	       (unsigned long long)st.hugetlb_blocks, (unsigned long long)st.hugetlb);
	if (want_kb == 1048576 || want_kb == 2048) {
		CHECK(st.hugetlb_bytes >= GIB && st.hugetlb >= GIB);
		CHECK(malloc_usable_size(p) >= GIB && malloc_usable_size(p) % (want_kb * 1024) == 0);
	}
	char rep[8192];
	report(rep, sizeof rep);
	if (want_kb == 1048576)
		CHECK_MSG(report_num(rep, "hugetlb.pool.1048576kB.blocks") == 1 &&
			  report_num(rep, "hugetlb.pool.1048576kB.bytes") == (long long)GIB, "report: no 1 GiB mapping");
	if (text)
		CHECK_MSG(report_has(rep, "plan.hugetlb_size_reason", text), "plan.hugetlb_size_reason lacks '%s'", text);
	uint64_t with = st.hugetlb_bytes;
	free(p);
	long after = pool_u("free_hugepages");
	printf("after free: 1 GiB pool free %ld\n", after);
	if (want_kb == 1048576)
		CHECK_MSG(after == held + 1, "free gave back %ld 1 GiB pages, want 1", after - held);
	st.size = sizeof st;
	hugepolicy_stats(&st);
	CHECK_MSG(want_kb != 1048576 || st.hugetlb_bytes == with - GIB, "hugetlb_bytes %llu after free, %llu before",
		  (unsigned long long)st.hugetlb_bytes, (unsigned long long)with);
	return check_result("pagesize block");
}

static int two(void)
{
	say_2m_pool("before");
	unsigned char *a = malloc(GIB);
	say_2m_pool("after the first block");
	/* the pool is the machine's: a page another process held a moment ago
	 * comes back from the kernel's workqueue a little later (5 s at most) */
	for (int i = 0; i < 50 && pool_of(POOL_2M, "free_hugepages") - pool_of(POOL_2M, "resv_hugepages") < 512; i++)
		usleep(100000);
	unsigned char *b = malloc(GIB);
	CHECK(a && b);
	if (!a || !b)
		return check_result("pagesize two");
	memset(a, 1, GIB);
	memset(b, 2, GIB);
	long ka = page_kb(a), kbb = page_kb(b);
	printf("first block %ld kB pages, second %ld kB pages\n", ka, kbb);
	CHECK(ka == 1048576);
	CHECK_MSG(kbb == 2048, "second block on %ld kB pages, want 2048 (the 2 MiB pool)", kbb);
	say_2m_pool("after the second block");
	CHECK(a[GIB - 1] == 1 && b[GIB - 1] == 2);
	char rep[8192];
	report(rep, sizeof rep);
	CHECK_MSG(report_num(rep, "hugetlb.pool.1048576kB.blocks") == 1 &&
		  report_num(rep, "hugetlb.pool.1048576kB.bytes") == (long long)GIB &&
		  report_num(rep, "hugetlb.pool.1048576kB.refused") == 1 &&
		  report_num(rep, "hugetlb.pool.1048576kB.refused_bytes") == (long long)GIB, "report: the 1 GiB pool's keys");
	/* the backend may hold 2 MiB extents of its own (jemalloc's arenas) */
	CHECK_MSG(report_num(rep, "hugetlb.pool.2048kB.bytes") >= (long long)GIB, "report: the 2 MiB pool's keys");
	free(a);
	free(b);
	return check_result("pagesize two");
}

/* child_kb: the page size the child's copy must be on (1048576: copied from
 * the pool, which has a second page; else anonymous memory), 0 any */
static void *idle(void *arg)
{
	pause();
	return arg;
}

static int forked(long child_kb, int threaded)
{
	pthread_t t;
	if (threaded)          /* a multi-threaded parent stages the copy before fork */
		CHECK(pthread_create(&t, NULL, idle, NULL) == 0);
	unsigned char *p = malloc(GIB);
	CHECK(p != NULL);
	if (!p)
		return check_result("pagesize fork");
	fill(p, GIB, 3);
	long kb = page_kb(p);
	CHECK_MSG(kb == 1048576, "parent's block on %ld kB pages", kb);
	fflush(stdout);
	/* several forks: a 1 GiB page taken away from a child was seen on
	 * some forks only */
	for (int round = 0; round < 4; round++) {
		pid_t c = fork();
		if (c == 0) {
			int ok = p[0] == 3 && intact(p, GIB, 3);   /* the child reads first */
			long ckb = page_kb(p);
			memset(p, 0x77, GIB);                   /* every page of the block */
			fill(p, GIB, 9);
			printf("child %d: its copy is on %ld kB pages\n", round, ckb);
			_exit(!ok || !intact(p, GIB, 9) ? 3 : child_kb && ckb != child_kb ? 4 : 0);
		}
		CHECK(c > 0);
		int status = 0;
		waitpid(c, &status, 0);
		printf("child %d: %s %d\n", round, WIFSIGNALED(status) ? "killed by signal" : "exit",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x (SIGBUS is %d)", status,
			  SIGBUS);
	}
	CHECK(intact(p, GIB, 3));
	fill(p, GIB, 5);                                /* the parent writes after the fork too */
	CHECK(intact(p, GIB, 5) && page_kb(p) == 1048576);
	free(p);
	return check_result("pagesize fork");
}

static int reallocated(void)
{
	long free0 = pool_u("free_hugepages");
	unsigned char *p = malloc(GIB);
	CHECK(p != NULL && page_kb(p) == 1048576);
	if (!p)
		return check_result("pagesize realloc");
	fill(p, 64u << 20, 11);
	volatile uintptr_t old = (uintptr_t)p;  /* not a pointer use after realloc */
	unsigned char *q = realloc(p, 64u << 20);
	long kb = q ? page_kb(q) : -1, after = pool_u("free_hugepages");
	printf("realloc to 64 MiB: %#lx -> %p, %ld kB pages, 1 GiB pool free %ld (before the block %ld)\n", (unsigned long)old,
	       (void *)q, kb, after, free0);
	CHECK(q != NULL && (uintptr_t)q != old && kb != 1048576);
	CHECK(q && intact(q, 64u << 20, 11));
	CHECK_MSG(after == free0, "the 1 GiB page was not given back");
	free(q);
	return check_result("pagesize realloc");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && strcmp(argv[1], "block") == 0)
		return block(strtol(argv[2], NULL, 10), argc > 3 ? argv[3] : NULL);
	if (argc >= 2 && strcmp(argv[1], "two") == 0)
		return two();
	if (argc >= 2 && strcmp(argv[1], "fork") == 0)
		return forked(argc > 2 ? strtol(argv[2], NULL, 10) : 0, argc > 3 && strcmp(argv[3], "thread") == 0);
	if (argc >= 2 && strcmp(argv[1], "realloc") == 0)
		return reallocated();
	fprintf(stderr, "usage: %s block KB [TEXT] | two | fork [KB [thread]] | realloc\n", argv[0]);
	return 2;
}
