/* test_fork_unhandled.c - what a child made without fork(2)'s handlers gets.
 * _Fork() (glibc >= 2.34) and clone() without CLONE_VM run no pthread_atfork
 * handler, so hugepolicy's fork copy does not run: the child shares the
 * parent's hugetlb pages copy-on-write, as under HUGEPOLICY_FORK=inherit
 * (hugepolicy(7), HUGEPOLICY_FORK).  The parent fills hugetlb blocks until
 * the pool says no (raised by a delta by hugetlb_pool.sh), then:
 *   - a child that only reads the blocks exits 0 and sees the parent's data;
 *   - a child that writes one dies of SIGBUS (the kernel has no page for its
 *     copy) - the documented limit;
 *   - a fork() child, for contrast, writes every block and exits 0.
 * usage: test_fork_unhandled _Fork|clone */
#define _GNU_SOURCE
#include "check.h"
#include "fill_pool.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAXBLOCKS = 64, BLOCK = 2 << 20 };

static unsigned char *blk[MAXBLOCKS];
static int nblk;

static pid_t raw_fork(int use_clone)
{
	if (use_clone)       /* no CLONE_VM: a copy of the address space, no atfork handler */
		return (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	return _Fork();
}

/* the child's work: read every block, or write one and then read */
static int child(int write)
{
	if (write)
		blk[0][0] = 0xee;       /* copy-on-write of a hugetlb page */
	for (int i = 0; i < nblk; i++)
		for (size_t off = write && i == 0 ? 4096 : 0; off < BLOCK; off += 4096)
			if (blk[i][off] != (unsigned char)(1 + i))
				return 1;
	return 0;
}

/* how child `pid` ended: "exit N" or "signal N" in buf; returns the status */
static int reap(pid_t pid, char *buf, size_t n)
{
	int status = 0;
	waitpid(pid, &status, 0);
	snprintf(buf, n, "%s %d", WIFSIGNALED(status) ? "signal" : "exit",
		 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	return status;
}

int main(int argc, char **argv)
{
	int use_clone = argc > 1 && strcmp(argv[1], "clone") == 0;
	const char *how = use_clone ? "clone(SIGCHLD)" : "_Fork()";
	struct hugepolicy_stats st;
	nblk = fill_pool(blk, MAXBLOCKS, BLOCK, &st);
	if (st.hugetlb_bytes == 0 || st.hugetlb_fallbacks == 0)
		SKIP("the pool gave %llu B and refused %llu blocks: not left without a page",
		     (unsigned long long)st.hugetlb_bytes, (unsigned long long)st.hugetlb_fallbacks);
	nblk--;                 /* the last block fell back: not on the pool */
	char what[32];
	fflush(stdout);

	pid_t pid = raw_fork(use_clone);
	if (pid == 0)
		_exit(child(0));
	int status = reap(pid, what, sizeof what);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s child that reads: %s", how, what);

	pid = raw_fork(use_clone);
	if (pid == 0)
		_exit(child(1));
	status = reap(pid, what, sizeof what);
	printf("%s child that writes with the pool empty: %s\n", how, what);
	CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS, "%s child that writes: %s (SIGBUS documented)",
		  how, what);

	pid = fork();
	if (pid == 0)
		_exit(child(1));
	status = reap(pid, what, sizeof what);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork() child that writes: %s", what);
	for (int i = 0; i < nblk; i++)  /* the parent's data stayed its own */
		CHECK(blk[i][0] == (unsigned char)(1 + i) && blk[i][BLOCK - 1] == (unsigned char)(1 + i));
	return check_result(argv[0]);
}
