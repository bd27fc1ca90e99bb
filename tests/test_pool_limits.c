/* test_pool_limits.c - eight 4 MiB malloc+memset blocks where a cgroup
 * hugetlb limit (set by hugetlb_cgroup.sh) allows only a few 2 MiB pages:
 * the process lives (no SIGBUS), every byte reads back, and the report says
 * how many bytes came from the pool and how many fell back - matching what
 * /proc/self/smaps_rollup says.
 * usage: test_pool_limits BACKEND MAX_POOL_BYTES EXPECT
 *   EXPECT: fallback (some bytes must have fallen back), nopool (the mode
 *   never takes the pool: 0 pool bytes, 0 fallbacks), pool (at least one
 *   block's worth came from the pool, populated and counted) */
#include "check.h"

#include <hugepolicy.h>
#include <string.h>
#include <unistd.h>

enum { NBLOCKS = 8, BLOCK = 4 << 20 };

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: test_pool_limits BACKEND MAX_POOL_BYTES fallback|nopool|pool\n");
		return 2;
	}
	unsigned long long max_pool = strtoull(argv[2], NULL, 10);
	unsigned char *b[NBLOCKS];
	for (int i = 0; i < NBLOCKS; i++) {
		b[i] = malloc(BLOCK);
		CHECK(b[i] != NULL);
		if (b[i])
			memset(b[i], 0x40 + i, BLOCK);
	}
	int intact = 1;
	for (int i = 0; i < NBLOCKS; i++)
		for (size_t off = 0; b[i] && off < BLOCK; off += 4093)
			intact &= b[i][off] == 0x40 + i;
	CHECK(intact);
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	printf("backend %s pages %s: pool %llu B in %llu mappings, fell back %llu B in %llu requests; "
	       "smaps Hugetlb %llu kB AnonHugePages %llu kB\n", st.backend, st.pages_effective,
	       (unsigned long long)st.hugetlb_bytes, (unsigned long long)st.hugetlb_blocks,
	       (unsigned long long)st.hugetlb_fallback_bytes, (unsigned long long)st.hugetlb_fallbacks,
	       (unsigned long long)(st.hugetlb >> 10), (unsigned long long)(st.anon_huge >> 10));
	fflush(stdout);
	hugepolicy_report(1, 0);
	CHECK(strcmp(st.backend, argv[1]) == 0);
	/* what the report says is what the kernel says */
	CHECK(st.hugetlb == st.hugetlb_bytes);
	CHECK(st.hugetlb_bytes <= max_pool);
	if (strcmp(argv[3], "fallback") == 0 && strcmp(st.pages_effective, "hugetlb") != 0) {
		/* the pool is shared: another process took the pages added for us */
		printf("SKIP: the plan saw no pool page free at start-up (pages=%s)\n", st.pages_effective);
		return 77;
	}
	if (strcmp(argv[3], "fallback") == 0) {
		CHECK(st.hugetlb_fallbacks >= 1);
		CHECK(st.hugetlb_fallback_bytes >= BLOCK);
	} else if (strcmp(argv[3], "pool") == 0) {
		CHECK(st.hugetlb_bytes >= BLOCK);
	} else {
		CHECK(st.hugetlb_bytes == 0 && st.hugetlb_fallbacks == 0);
	}
	for (int i = 0; i < NBLOCKS; i++)
		free(b[i]);
	return check_result("test_pool_limits");
}
