/* fill_pool.h - a test takes every page the hugetlb pool has room for:
 * blocks of size bytes, each written (block i with byte 1 + i), until the
 * pool refuses one (that block falls back and is kept) or max are taken.
 * Returns how many blocks; *st holds the stats after the last, printed.
 * fork_writer: a child that writes every such block. */
#ifndef FILL_POOL_H
#define FILL_POOL_H

#include <hugepolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static inline int fill_pool(unsigned char **blk, int max, size_t size, struct hugepolicy_stats *st)
{
	int n = 0;
	st->size = sizeof *st;
	hugepolicy_stats(st);
	while (n < max && st->hugetlb_fallbacks == 0 && (blk[n] = malloc(size)) != NULL) {
		memset(blk[n], 1 + n, size);
		n++;
		hugepolicy_stats(st);
	}
	printf("parent: %d blocks, %llu B on the pool, %llu refused\n", n, (unsigned long long)st->hugetlb_bytes,
	       (unsigned long long)st->hugetlb_fallbacks);
	fflush(stdout);
	return n;
}

/* One fork whose child writes every block (0x40) and exits 0: whether it
 * did. */
static inline int fork_writer(unsigned char **blk, int n, size_t size)
{
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < n; i++)
			memset(blk[i], 0x40, size);
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif
