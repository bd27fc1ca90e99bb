/* test_fork_hugetlb.c - forked children never die because of hugetlb
 * memory.  The parent fills hugetlb blocks until the pool (raised by a
 * delta by hugetlb_pool.sh) says no, so no free page is left for the
 * children's copy-on-write; then it forks children that allocate, free,
 * write every inherited block and read it back, while the parent writes to
 * the same blocks at once (the kernel favours the parent's copy-on-write and
 * would take the page from the child).  Every child must exit 0 and every
 * byte on both sides must be what its owner wrote; each child's report
 * (fork.*) says it owns or shares what it inherited and lost none, and
 * the parent's counts every fork.
 * usage: test_fork_hugetlb BACKEND [inherit | writer N]
 *   inherit: HUGEPOLICY_FORK=inherit, children only read what they share,
 *   and each says once (in HUGEPOLICY_LOG) that it shares hugetlb pages
 *   writer N: the parent holds N blocks of 2 MiB, all on the pool (the
 *   pool or a cgroup limit then has no page left), and a second thread
 *   writes into every block all the time; each child writes every block
 *   and reads it back, and nothing may be said to be left exposed
 *   nomem: a two-thread parent whose address-space limit leaves no room to
 *   stage the copies says, at the fork, how much it left exposed */
#define _GNU_SOURCE
#include "check.h"
#include "fill_pool.h"
#include "report_keys.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <hugepolicy.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAXBLOCKS = 64, BLOCK = 4 << 20, CHILDREN = 4 };

static unsigned char *blk[MAXBLOCKS];
static int nblk;

static int fill_and_check(unsigned char v, int check_only)
{
	int ok = 1;
	for (int i = 0; i < nblk; i++) {
		if (!check_only)
			memset(blk[i], v + i, BLOCK);
		for (size_t off = 0; off < BLOCK; off += 4096)
			ok &= blk[i][off] == (unsigned char)(v + i);
	}
	return ok;
}

/* 1 if child c exited 0, else 0 and what happened to it on stderr */
static int reap(pid_t pid, int c)
{
	int status = 0;
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	fprintf(stderr, "child %d: %s %d\n", c, WIFSIGNALED(status) ? "killed by signal" : "exit",
		WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	return 0;
}

/* a child: its report says the hugetlb memory it inherited is its own
 * (copied, moved) or shared, none lost; 0, or 4 */
static int own_keys(void)
{
	static char rep[16384];
	report_text(rep, sizeof rep);
	long long own = report_num(rep, "fork.copied_bytes") + report_num(rep, "fork.moved_bytes") +
			report_num(rep, "fork.shared_bytes");
	if (own > 0 && report_num(rep, "fork.lost_bytes") == 0 && report_num(rep, "fork.children") == 0)
		return 0;
	fprintf(stderr, "child: fork.copied_bytes + moved_bytes + shared_bytes %lld, lost_bytes %lld, children %lld\n",
		own, report_num(rep, "fork.lost_bytes"), report_num(rep, "fork.children"));
	return 4;
}

/* what this process and its children said (HUGEPOLICY_LOG) */
static const char *read_log(void)
{
	static char log[1 << 16];
	int fd = open(getenv("HUGEPOLICY_LOG") ? getenv("HUGEPOLICY_LOG") : "/nonexistent", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, log, sizeof log - 1) : -1;
	if (fd >= 0)
		close(fd);
	log[n > 0 ? n : 0] = '\0';
	return log;
}

static unsigned char **wblk;
static int nw;
static atomic_int stop;

static void *writer(void *arg)
{
	(void)arg;
	for (unsigned v = 0; !atomic_load(&stop); v++)
		for (int i = 0; i < nw; i++)
			wblk[i][(v * 4096u) % (2u << 20)] = (unsigned char)v;
	return NULL;
}

static int writer_mode(int n)
{
	struct hugepolicy_stats st = { .size = sizeof st };
	wblk = calloc((size_t)n, sizeof *wblk);
	CHECK(wblk != NULL);
	for (nw = 0; nw < n; nw++) {
		if (!(wblk[nw] = malloc(2 << 20)))
			break;
		memset(wblk[nw], nw, 2 << 20);
	}
	hugepolicy_stats(&st);
	printf("parent: %d blocks of 2 MiB, %llu B on the pool, %llu refused\n", nw,
	       (unsigned long long)st.hugetlb_bytes, (unsigned long long)st.hugetlb_fallbacks);
	if (st.hugetlb_bytes < (unsigned long long)n << 21)
		SKIP("the pool gave %llu of %d pages (another process holds them?)",
		     (unsigned long long)st.hugetlb_bytes >> 21, n);
	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	int ok = 0;
	for (int c = 0; c < CHILDREN - 1; c++) {
		pid_t pid = fork();
		if (pid == 0) {
			int good = 1;
			for (int i = 0; i < nw; i++) {
				memset(wblk[i], 0x40 + c, 2 << 20);
				for (size_t off = 0; off < (2u << 20); off += 4096)
					good &= wblk[i][off] == 0x40 + c;
			}
			_exit(good ? 0 : 3);
		}
		ok += reap(pid, c);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	CHECK_MSG(ok == CHILDREN - 1, "%d of %d children wrote every block and exited 0", ok, CHILDREN - 1);
	const char *log = read_log();
	CHECK_MSG(strstr(log, "fork:") == NULL, "a fork said it left memory exposed:\n%s", log);
	return check_result("test_fork_hugetlb writer");
}

static void *idle(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		usleep(1000);
	return NULL;
}

static int nomem_mode(void)
{
	enum { N = 4 };
	struct hugepolicy_stats st = { .size = sizeof st };
	unsigned char *b[N];
	for (int i = 0; i < N; i++) {
		b[i] = malloc(2 << 20);
		CHECK(b[i] != NULL);
		memset(b[i], i, 2 << 20);
	}
	hugepolicy_stats(&st);
	printf("parent: %llu B on the pool\n", (unsigned long long)st.hugetlb_bytes);
	fflush(stdout);
	if (st.hugetlb_bytes < (unsigned long long)N << 21)
		SKIP("the pool gave %llu of %d pages (another process holds them?)",
		     (unsigned long long)st.hugetlb_bytes >> 21, N);
	/* the pool left without a free page, so the fork cannot leave the copies
	 * to the kernel (hugetlb_fork.c) and must stage them */
	unsigned char *more[64];
	int nmore = fill_pool(more, 64, 2 << 20, &st);
	uint64_t staged = st.hugetlb_bytes;
	pthread_t t;
	pthread_create(&t, NULL, idle, NULL);
	/* room for 1 MiB more: not for one 2 MiB copy */
	char status[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = read(fd, status, sizeof status - 1);
	close(fd);
	status[n > 0 ? n : 0] = '\0';
	char *vm = strstr(status, "VmSize:");
	CHECK(vm != NULL);
	struct rlimit lim = { (rlim_t)(atoll(vm + 7) + 1024) << 10, RLIM_INFINITY };
	CHECK(setrlimit(RLIMIT_AS, &lim) == 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(reap(pid, 0));
	lim.rlim_cur = RLIM_INFINITY;
	setrlimit(RLIMIT_AS, &lim);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	const char *log = read_log();
	char want[128];
	snprintf(want, sizeof want, "fork: no memory to stage a copy of %llu bytes", (unsigned long long)staged);
	while (nmore > 0)
		free(more[--nmore]);
	CHECK_MSG(strstr(log, want) != NULL && strstr(log, "another thread") != NULL,
		  "the parent did not say what it left exposed:\n%s", log);
	return check_result("test_fork_hugetlb nomem");
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(strcmp(hugepolicy_backend(), want) == 0);
	if (argc > 3 && strcmp(argv[2], "writer") == 0)
		return writer_mode(atoi(argv[3]));
	if (argc > 2 && strcmp(argv[2], "nomem") == 0)
		return nomem_mode();
	nblk = fill_pool(blk, MAXBLOCKS, BLOCK, &st);
	if (st.hugetlb_bytes == 0)
		SKIP("the pool gave the parent no page (another process holds them?)");
	int ok = 0;
	if (argc > 2 && strcmp(argv[2], "inherit") == 0) {
		for (int c = 0; c < CHILDREN; c++) {
			pid_t pid = fork();
			if (pid == 0)
				_exit(fill_and_check(1, 1) ? 0 : 3);
			int status = 0;
			waitpid(pid, &status, 0);
			ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
		}
		CHECK_MSG(ok == CHILDREN, "%d of %d children ok", ok, CHILDREN);
		const char *log = read_log();
		int said = 0;
		for (const char *q = log; (q = strstr(q, "(HUGEPOLICY_FORK=inherit)")) != NULL; q++)
			said++;
		CHECK_MSG(said == CHILDREN, "%d of %d children said they share hugetlb pages:\n%s", said, CHILDREN, log);
		CHECK(strstr(log, "moved to") == NULL && strstr(log, "copied from the pool") == NULL);
		return check_result("test_fork_hugetlb");
	}
	for (int c = 0; c < CHILDREN; c++) {
		pid_t pid = fork();
		if (pid == 0) {
			void *small = malloc(16);       /* mimalloc's metadata is in its segments */
			free(small);
			int good = fill_and_check(1, 1);        /* inherited contents */
			good &= fill_and_check((unsigned char)(0x80 + c), 0);
			char *more = malloc(1 << 20);
			if (more)
				memset(more, 7, 1 << 20);
			free(more);
			_exit(good ? own_keys() : 3);
		}
		/* the parent writes at once: its copy-on-write comes first */
		CHECK(fill_and_check((unsigned char)(0x20 + c), 0));
		ok += reap(pid, c);
		CHECK(fill_and_check(1, 0));
	}
	CHECK_MSG(ok == CHILDREN, "%d of %d children ok", ok, CHILDREN);
	static char rep[16384];
	report_text(rep, sizeof rep);
	long long forks = report_num(rep, "fork.children");
	long long how = report_num(rep, "fork.children_shared") + report_num(rep, "fork.children_staged") +
			report_num(rep, "fork.children_waited");
	printf("parent: fork.children %lld, shared + staged + waited %lld\n", forks, how);
	CHECK_MSG(forks == CHILDREN && how == CHILDREN, "the report counts %lld forks (%lld by how), want %d",
		  forks, how, CHILDREN);
	for (int i = 0; i < nblk; i++)
		free(blk[i]);
	return check_result("test_fork_hugetlb");
}
