/* fill_pool.h - a test takes every page the hugetlb pool has room for:
 * blocks of size bytes, each written (block i with byte 1 + i), until the
 * pool refuses one (that block falls back and is kept) or max are taken.
 * Returns how many blocks; *st holds the stats after the last, printed. */
#ifndef FILL_POOL_H
#define FILL_POOL_H

#include <hugepolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#endif
