/* test_pool_rules.c - which blocks the system backend takes from the hugetlb
 * pool (the pool raised by a delta by hugetlb_pool.sh):
 * - an alignment above 2 MiB is served from the pool, aligned, and is not
 *   a "fallback" (issue 11 item 6: it was counted as pool exhaustion);
 * - with HUGEPOLICY_THRESHOLD below 2 MiB, blocks below one huge page stay
 *   with glibc (item 7: each took its own 2 MiB mapping, 570 us a malloc).
 * usage: test_pool_rules */
#include "check.h"

#include <hugepolicy.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>

static struct hugepolicy_stats stats(void)
{
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	return st;
}

int main(void)
{
	struct hugepolicy_stats st = stats();
	CHECK(strcmp(st.backend, "system") == 0 && strcmp(st.pages_effective, "hugetlb") == 0);
	if (strcmp(st.pages_effective, "hugetlb") != 0)
		return check_result("test_pool_rules");
	/* small blocks, below one huge page but above a 64 KiB threshold */
	void *small[64];
	for (int i = 0; i < 64; i++) {
		small[i] = malloc(5000 + (size_t)i * 20000);
		CHECK(small[i] != NULL);
	}
	st = stats();
	printf("64 blocks of 5 kB..1.3 MB: %llu pool mappings\n", (unsigned long long)st.hugetlb_blocks);
	CHECK(st.hugetlb_blocks == 0 && st.hugetlb_fallbacks == 0);
	for (int i = 0; i < 64; i++)
		free(small[i]);
	/* a 4 MiB-aligned 8 MiB block: from the pool, aligned, no fallback */
	unsigned char *a = aligned_alloc(4u << 20, 8u << 20);
	CHECK(a != NULL && ((uintptr_t)a & ((4u << 20) - 1)) == 0);
	if (a)
		memset(a, 3, 8u << 20);
	st = stats();
	printf("aligned_alloc(4 MiB, 8 MiB): %llu B on the pool, %llu fallbacks, smaps Hugetlb %llu kB\n",
	       (unsigned long long)st.hugetlb_bytes, (unsigned long long)st.hugetlb_fallbacks,
	       (unsigned long long)(st.hugetlb >> 10));
	CHECK(st.hugetlb_bytes == 8u << 20 && st.hugetlb_fallbacks == 0 && st.hugetlb == st.hugetlb_bytes);
	CHECK(malloc_usable_size(a) >= 8u << 20);
	free(a);
	st = stats();
	CHECK(st.hugetlb_bytes == 0 && st.hugetlb == 0);
	return check_result("test_pool_rules");
}
