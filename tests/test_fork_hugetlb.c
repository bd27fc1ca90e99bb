/* test_fork_hugetlb.c - forked children never die because of hugetlb
 * memory.  The parent fills hugetlb blocks until the pool (raised by a
 * delta by hugetlb_pool.sh) says no, so no free page is left for the
 * children's copy-on-write; then it forks children that allocate, free,
 * write every inherited block and read it back, while the parent writes to
 * the same blocks at once (the kernel favours the parent's copy-on-write and
 * would take the page from the child).  Every child must exit 0 and every
 * byte on both sides must be what its owner wrote.
 * usage: test_fork_hugetlb BACKEND [inherit]
 *   inherit: HUGEPOLICY_FORK=inherit, children only read what they share,
 *   and each says once (in HUGEPOLICY_LOG) that it shares hugetlb pages */
#define _GNU_SOURCE
#include "check.h"

#include <fcntl.h>
#include <hugepolicy.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(strcmp(hugepolicy_backend(), want) == 0);
	while (nblk < MAXBLOCKS) {
		blk[nblk] = malloc(BLOCK);
		if (!blk[nblk])
			break;
		memset(blk[nblk], 1 + nblk, BLOCK);
		nblk++;
		hugepolicy_stats(&st);
		if (st.hugetlb_fallbacks > 0)
			break;
	}
	hugepolicy_stats(&st);
	printf("parent: %d blocks, %llu B on the pool, %llu refused\n", nblk,
	       (unsigned long long)st.hugetlb_bytes, (unsigned long long)st.hugetlb_fallbacks);
	fflush(stdout);
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
		static char log[1 << 16];
		int fd = open(getenv("HUGEPOLICY_LOG") ? getenv("HUGEPOLICY_LOG") : "/nonexistent", O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, log, sizeof log - 1) : -1;
		log[n > 0 ? n : 0] = '\0';
		int said = 0;
		for (char *q = log; (q = strstr(q, "(HUGEPOLICY_FORK=inherit)")) != NULL; q++)
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
			_exit(good ? 0 : 3);
		}
		/* the parent writes at once: its copy-on-write comes first */
		CHECK(fill_and_check((unsigned char)(0x20 + c), 0));
		int status = 0;
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
		else
			fprintf(stderr, "child %d: %s %d\n", c, WIFSIGNALED(status) ? "killed by signal" : "exit",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		CHECK(fill_and_check(1, 0));
	}
	CHECK_MSG(ok == CHILDREN, "%d of %d children ok", ok, CHILDREN);
	for (int i = 0; i < nblk; i++)
		free(blk[i]);
	return check_result("test_fork_hugetlb");
}
