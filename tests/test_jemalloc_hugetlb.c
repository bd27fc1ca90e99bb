/* test_jemalloc_hugetlb.c - jemalloc's own heap on the hugetlb pool
 * (backends/jemalloc/jemalloc_hugetlb.c), asked of the kernel.
 * usage: test_jemalloc_hugetlb tiny|small|threads|cgroup|fork|fork_files[_drained]|reuse|report
 * Run under HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_PAGES=hugetlb with pages
 * in the pool (tests/hugetlb_pool.sh).  Every block is below the 4 MiB
 * threshold, so none of them is a block of the front layer
 * (hugetlb_large.c): what lands on hugetlb pages is jemalloc's own heap. */
#define _GNU_SOURCE
#include "check.h"
#include "report_keys.h"
#include "smaps_vma.h"

#include <hugepolicy.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { N = 2000, SMALL = 16 << 10, MID = 64 << 10, THREADS = 8, PER_THREAD = 250 };

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 31 + i * 7);
}

static int intact(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed * 31 + i * 7))
			return 0;
	return 1;
}

/* 1 if the VMAs holding the first and the last byte have 2 MiB pages */
static int on_hugetlb(const void *p, size_t n)
{
	char a[512], b[512];
	if (!smaps_vma_field(p, "KernelPageSize:", a, sizeof a) ||
	    !smaps_vma_field((const unsigned char *)p + n - 1, "KernelPageSize:", b, sizeof b))
		return 0;
	return strstr(a, " 2048 kB") && strstr(b, " 2048 kB");
}

/* n blocks of `size` written with their index; how many are not on hugetlb */
static int alloc_many(unsigned char **v, int n, size_t size, unsigned seed)
{
	int off = 0;
	for (int i = 0; i < n; i++) {
		v[i] = malloc(size);
		CHECK(v[i] != NULL);
		if (!v[i])
			return n;
		fill(v[i], size, seed + (unsigned)i);
	}
	for (int i = 0; i < n; i++)
		off += !on_hugetlb(v[i], size);
	return off;
}

static int all_intact(unsigned char **v, int n, size_t size, unsigned seed)
{
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += !intact(v[i], size, seed + (unsigned)i);
	return bad;
}

static struct hugepolicy_stats stats(void)
{
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	return st;
}

/* The pool is the machine's: another process may take its pages while a
 * test runs.  A refusal counted where none was expected is that, a skip. */
static void skip_if_pool_taken(void)
{
	struct hugepolicy_stats st = stats();
	if (st.hugetlb_fallbacks > 0)
		SKIP("the pool refused %llu requests (%llu B): another process took its pages",
		     (unsigned long long)st.hugetlb_fallbacks, (unsigned long long)st.hugetlb_fallback_bytes);
}

/* the report's backend.pool_arenas.* keys: the arenas' extents on the 2 MiB
 * pool, B bytes in M mappings, FB bytes in F requests fallen back */
static int report_numbers(unsigned long long *b, unsigned long long *m, unsigned long long *fb,
			  unsigned long long *f)
{
	static char text[16384];
	report_text(text, sizeof text);
	long long v[6] = { report_num(text, "backend.pool_arenas.bytes"), report_num(text, "backend.pool_arenas.blocks"),
			   report_num(text, "backend.pool_arenas.fallback_bytes"),
			   report_num(text, "backend.pool_arenas.fallbacks"), report_num(text, "backend.pool_arenas.hooked"),
			   report_num(text, "backend.pool_arenas.arenas") };
	printf("report: backend.pool_arenas bytes %lld blocks %lld fallback_bytes %lld fallbacks %lld hooked %lld "
	       "arenas %lld\n", v[0], v[1], v[2], v[3], v[4], v[5]);
	for (int i = 0; i < 6; i++)
		if (v[i] < 0) {
			printf("report has no arena extents:\n%s", text);
			return 0;
		}
	*b = (unsigned long long)v[0];
	*m = (unsigned long long)v[1];
	*fb = (unsigned long long)v[2];
	*f = (unsigned long long)v[3];
	CHECK_MSG(v[4] > 0 && v[4] == v[5], "%lld of %lld arenas on the hooks", v[4], v[5]);
	return 1;
}

static unsigned char *v[N + PER_THREAD * THREADS];

/* Arena 0's start-up memory and its first whole-page step are ordinary
 * memory: a process whose heap stays inside takes no pool page.  The blocks
 * of 16 KiB it took until one landed on the pool, kept; at most that step. */
enum { FIRST_STEP = 2 << 20, OUTGROW = FIRST_STEP / SMALL + 64 };
static unsigned char *first_step[OUTGROW];
static int outgrow_first_step(void)
{
	int n = 0;
	while (n < OUTGROW) {
		first_step[n] = malloc(SMALL);
		CHECK(first_step[n] != NULL);
		if (!first_step[n] || on_hugetlb(first_step[n++], SMALL))
			break;
	}
	CHECK_MSG((size_t)(n - 1) * SMALL <= FIRST_STEP, "%d blocks of 16 KiB before the first on the pool", n - 1);
	return n;
}

/* a heap that stays inside the first step: no pool page, smaps agrees */
static int tiny(void)
{
	int off = alloc_many(v, 64, SMALL, 2);
	struct hugepolicy_stats st = stats();
	printf("64 blocks of 16 KiB, %d not on 2 MiB pages; Hugetlb %llu kB in %llu mappings\n", off,
	       (unsigned long long)(st.hugetlb >> 10), (unsigned long long)st.hugetlb_blocks);
	CHECK(off == 64);
	CHECK(st.hugetlb == 0);
	CHECK(st.hugetlb_blocks == 0);
	return check_result("jemalloc_hugetlb tiny");
}

static int small(void)
{
	int off = alloc_many(v, N, SMALL, 1);
	unsigned char *mid = malloc(MID);
	CHECK(mid != NULL);
	fill(mid, MID, 7);
	skip_if_pool_taken();
	struct hugepolicy_stats st = stats();
	printf("config '%s'\n%d of %d 16 KiB blocks not on 2 MiB pages; 64 KiB block %s; Hugetlb %llu kB\n", st.config,
	       off, N, on_hugetlb(mid, MID) ? "on 2 MiB pages" : "NOT on 2 MiB pages",
	       (unsigned long long)(st.hugetlb >> 10));
	CHECK(off == 0);
	CHECK(on_hugetlb(mid, MID));
	CHECK(st.hugetlb >= (uint64_t)N * SMALL);
	CHECK(all_intact(v, N, SMALL, 1) == 0 && intact(mid, MID, 7));
	return check_result("jemalloc_hugetlb small");
}

static pthread_barrier_t start;

static void *thread_main(void *arg)
{
	long t = (long)arg;
	unsigned char **mine = v + t * PER_THREAD;
	pthread_barrier_wait(&start);   /* all live at once: each takes its own arena */
	long off = alloc_many(mine, PER_THREAD, SMALL, 1000u * (unsigned)t);
	pthread_barrier_wait(&start);
	if (all_intact(mine, PER_THREAD, SMALL, 1000u * (unsigned)t) != 0)
		off += 1000000;
	return (void *)off;
}

static int threads(void)
{
	pthread_t th[THREADS];
	pthread_barrier_init(&start, NULL, THREADS);
	for (long t = 0; t < THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, thread_main, (void *)t) == 0);
	void *res[THREADS];
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], &res[t]);
	skip_if_pool_taken();
	for (int t = 0; t < THREADS; t++) {
		void *r = res[t];
		printf("thread %d: %ld of %d blocks not on 2 MiB pages%s\n", t, (long)r % 1000000, PER_THREAD,
		       (long)r >= 1000000 ? ", data changed" : "");
		CHECK(r == NULL);
	}
	unsigned long long b, m, fb, f;
	CHECK(report_numbers(&b, &m, &fb, &f));
	return check_result("jemalloc_hugetlb threads");
}

static int cgroup(void)
{
	/* 32 MiB in 16 KiB blocks where the cgroup allows 2-3 pages: no SIGBUS,
	 * every byte written (alloc_many) and read back */
	int off = alloc_many(v, N, SMALL, 3);
	CHECK(all_intact(v, N, SMALL, 3) == 0);
	struct hugepolicy_stats st = stats();
	unsigned long long b = 0, m = 0, fb = 0, f = 0;
	CHECK(report_numbers(&b, &m, &fb, &f));
	printf("%d of %d blocks on ordinary pages; Hugetlb %llu kB; fallbacks %llu (%llu B)\n", off, N,
	       (unsigned long long)(st.hugetlb >> 10), (unsigned long long)st.hugetlb_fallbacks,
	       (unsigned long long)st.hugetlb_fallback_bytes);
	CHECK(f > 0 && fb > 0);
	CHECK(st.hugetlb_fallbacks >= f);
	CHECK(off > 0);
	CHECK(st.hugetlb <= 6u << 20);
	return check_result("jemalloc_hugetlb cgroup");
}

static int fork_child(void)
{
	int off = alloc_many(v, N, SMALL, 5);
	skip_if_pool_taken();
	CHECK(off == 0);
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		check_failures = 0;
		/* the child writes into the arena memory it shares with the
		 * parent, and allocates more from the same arenas */
		int bad = 0;
		for (int i = 0; i < N; i++) {
			bad += !intact(v[i], SMALL, 5u + (unsigned)i);
			fill(v[i], SMALL, 99u + (unsigned)i);
		}
		for (int i = 0; i < N; i += 2)
			free(v[i]);
		alloc_many(v + N, PER_THREAD, SMALL, 77);   /* on the pool or not: the child's copy */
		bad += all_intact(v + N, PER_THREAD, SMALL, 77);
		for (int i = 1; i < N; i += 2)
			bad += !intact(v[i], SMALL, 99u + (unsigned)i);
		_exit(bad || check_failures ? 1 : 0);
	}
	int status = -1;
	CHECK(waitpid(pid, &status, 0) == pid);
	printf("child: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(all_intact(v, N, SMALL, 5) == 0);   /* the parent's data is its own */
	return check_result("jemalloc_hugetlb fork");
}

/* glibc's fork writes to every FILE (fresetlockfiles) in the child before
 * any atfork child handler runs; under jemalloc hugetlb a FILE is in a
 * hugetlb slab.  Threads read files and flush while others fork. */
static atomic_int stop;
static char line_file[] = "/tmp/hp-jemalloc-hugetlb-XXXXXX";

static void *reader(void *arg)
{
	FILE *f = fopen(line_file, "r");
	while (f && !atomic_load(&stop)) {
		rewind(f);
		char *line = NULL;
		size_t cap = 0;
		if (getline(&line, &cap, f) < 0)
			atomic_store(&stop, 2);
		free(line);
		fflush(NULL);
	}
	if (f)
		fclose(f);
	return arg;
}

/* Every free page of the 2 MiB pool taken by this process's own populated
 * mappings (not hugepolicy's: the child never touches them), so a child's
 * copy-on-write of a hugetlb page finds none; the number taken. */
static void *drained[8192];
static int drain_pool(void)
{
	int n = 0;
	while (n < 8192) {
		void *p = mmap(NULL, 2u << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			break;
		drained[n++] = p;
	}
	return n;
}

static int fork_files_run(int drain)
{
	int fd = mkstemp(line_file);
	CHECK(fd >= 0);
	/* FILEs of the start-up slab are ordinary memory: more FILEs (open
	 * till the end) until one is on the pool */
	static FILE *more[64];
	int nmore = 0;
	FILE *w = fd >= 0 ? fdopen(fd, "w") : NULL;
	while (w && !on_hugetlb(w, 256) && nmore < 64) {
		more[nmore++] = w;
		w = fdopen(dup(fd), "w");
	}
	CHECK(w != NULL);
	if (!w)
		return check_result("jemalloc_hugetlb fork_files");
	for (int i = 0; i < 50000; i++)
		fputc('x', w);
	fputc('\n', w);
	fflush(w);
	skip_if_pool_taken();
	printf("a FILE is %s\n", on_hugetlb(w, 256) ? "on 2 MiB pages" : "NOT on 2 MiB pages");
	CHECK(on_hugetlb(w, 256));
	pthread_t th[4];
	for (long t = 0; t < 4; t++)
		CHECK(pthread_create(&th[t], NULL, reader, (void *)t) == 0);
	int taken = drain ? drain_pool() : 0;
	if (drain)
		printf("pool drained: %d pages taken\n", taken);
	int bad = 0, n = 0;
	for (; n < 300 && !bad; n++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(17);
		int status = 0;
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 17) {
			printf("fork %d: child %s %d\n", n, WIFEXITED(status) ? "exit" : "signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			bad = 1;
		}
	}
	atomic_store(&stop, 1);
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	for (int i = 0; i < taken; i++)
		munmap(drained[i], 2u << 20);
	fclose(w);
	while (nmore > 0)
		fclose(more[--nmore]);
	unlink(line_file);
	printf("%d forks, %s\n", n, bad ? "a child died" : "every child exited 17");
	CHECK(!bad);
	return check_result("jemalloc_hugetlb fork_files");
}

static int fork_files(void)
{
	return fork_files_run(0);
}

static int reuse(void)
{
	/* run with MALLOC_CONF=dirty_decay_ms:0: jemalloc purges every freed
	 * extent at once; hugetlb ones stay, and are used again.  64 KiB
	 * blocks: above tcache_max (32 KiB), so free reaches the arena */
	enum { NMID = N * SMALL / MID };
	int off = alloc_many(v, NMID, MID, 11);
	/* and 3 MiB blocks (below the threshold): an extent that starts on a
	 * huge page and covers one, which MADV_DONTNEED would discard */
	unsigned char *big[2];
	off += alloc_many(big, 2, 3 << 20, 41);
	skip_if_pool_taken();
	struct hugepolicy_stats used = stats();
	for (int i = 0; i < NMID; i++)
		free(v[i]);
	free(big[0]);
	free(big[1]);
	struct hugepolicy_stats freed = stats();
	off += alloc_many(v, NMID, MID, 12);
	struct hugepolicy_stats again = stats();
	printf("in use: Hugetlb %llu kB in %llu mappings; freed: %llu kB in %llu; again: %llu kB in %llu; "
	       "%d blocks off 2 MiB pages\n", (unsigned long long)(used.hugetlb >> 10),
	       (unsigned long long)used.hugetlb_blocks, (unsigned long long)(freed.hugetlb >> 10),
	       (unsigned long long)freed.hugetlb_blocks, (unsigned long long)(again.hugetlb >> 10),
	       (unsigned long long)again.hugetlb_blocks, off);
	CHECK(off == 0);
	CHECK(used.hugetlb >= (uint64_t)NMID * MID);
	CHECK(freed.hugetlb == used.hugetlb);                  /* nothing purged */
	CHECK(again.hugetlb_blocks == freed.hugetlb_blocks);   /* reused, not mapped anew */
	/* realloc keeps data: 16 KiB -> 64 KiB -> 1 MiB -> 3 MiB (an extent
	 * above 2 MiB) and back down */
	static const size_t sizes[] = { SMALL, MID, 1 << 20, 3 << 20, MID };
	unsigned char *p = malloc(sizes[0]);
	CHECK(p != NULL);
	fill(p, sizes[0], 21);
	for (int i = 1; p && i < 5; i++) {
		size_t keep = sizes[i] < sizes[i - 1] ? sizes[i] : sizes[i - 1];
		p = realloc(p, sizes[i]);
		CHECK(p != NULL);
		if (!p)
			break;
		CHECK_MSG(intact(p, keep, 21), "realloc to %zu", sizes[i]);
		CHECK_MSG(on_hugetlb(p, sizes[i]), "realloc to %zu", sizes[i]);
		fill(p, sizes[i], 21);
	}
	CHECK(all_intact(v, NMID, MID, 12) == 0);
	return check_result("jemalloc_hugetlb reuse");
}

static int report(void)
{
	int off = alloc_many(v, N, SMALL, 13);
	skip_if_pool_taken();
	CHECK(off == 0);
	struct hugepolicy_stats st = stats();
	unsigned long long b = 0, m = 0, fb = 0, f = 0;
	CHECK(report_numbers(&b, &m, &fb, &f));
	printf("smaps Hugetlb %llu B, hugepolicy_stats hugetlb_bytes %llu B in %llu mappings, report %llu B in %llu\n",
	       (unsigned long long)st.hugetlb, (unsigned long long)st.hugetlb_bytes,
	       (unsigned long long)st.hugetlb_blocks, b, m);
	CHECK(st.hugetlb > 0);
	CHECK(st.hugetlb_bytes == st.hugetlb);
	CHECK(b == st.hugetlb);                 /* no other hugetlb memory here */
	CHECK(m == st.hugetlb_blocks);
	return check_result("jemalloc_hugetlb report");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	free(malloc(1));                        /* start-up */
	if (strcmp(hugepolicy_backend(), "jemalloc") != 0) {
		printf("backend %s: expected jemalloc\n", hugepolicy_backend());
		return 1;
	}
	if (strcmp(hugepolicy_pages(), "hugetlb") != 0)
		SKIP("pages %s: the pool had no room at start-up (another process took it?)", hugepolicy_pages());
	if (strcmp(mode, "tiny") == 0)
		return tiny();
	if (strcmp(mode, "cgroup") != 0)       /* the rest describe the heap past the first step */
		outgrow_first_step();
	if (strcmp(mode, "small") == 0)
		return small();
	if (strcmp(mode, "threads") == 0)
		return threads();
	if (strcmp(mode, "cgroup") == 0)
		return cgroup();
	if (strcmp(mode, "fork") == 0)
		return fork_child();
	if (strcmp(mode, "reuse") == 0)
		return reuse();
	if (strcmp(mode, "fork_files") == 0)
		return fork_files();
	if (strcmp(mode, "fork_files_drained") == 0)
		return fork_files_run(1);
	if (strcmp(mode, "report") == 0)
		return report();
	fprintf(stderr, "usage: test_jemalloc_hugetlb tiny|small|threads|cgroup|fork|fork_files[_drained]|reuse|report\n");
	return 2;
}
