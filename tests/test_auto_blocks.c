/* test_auto_blocks.c - big blocks under THP-on-large-blocks (pages=auto, or
 * system thp): what the kernel says after realloc, calloc and reuse.
 * usage: test_auto_blocks BACKEND   (HUGEPOLICY_BACKEND/PAGES set by CTest)
 *
 * - one VMA: an advised glibc block stays one mapping, so glibc's realloc
 *   can still mremap it (three VMAs made every mremap fail with EFAULT);
 * - realloc: a filled 8 MiB block grown to 64 MiB has its copy on huge
 *   pages too (jemalloc, mimalloc: the wrapper advises before the copy);
 * - calloc: a 64 MiB calloc gets huge pages (mimalloc's calloc zeroes, so
 *   the wrapper advises first);
 * - alignment (mimalloc): a 4 MiB malloc, and a 6 MiB memalign(64), start
 *   on a 2 MiB boundary and, filled, are huge pages whole (unaligned, a
 *   4 MiB block had one whole 2 MiB page inside it; jemalloc's and glibc's
 *   blocks are not aligned: thp_large.c says why);
 * - reuse: after big blocks are freed, 32 MiB of 64 KiB blocks stay on base
 *   pages (jemalloc: oversize arena; glibc: unmapped).  Not for mimalloc 2.0,
 *   whose segments reuse freed big-block space for small pages. */
#define _GNU_SOURCE
#include "check.h"

#include <hugepolicy.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>

#define MIB (1024u * 1024u)

static uint64_t anon_huge(void)
{
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	return st.anon_huge;
}

/* 1 if [p, p+n) lies inside one line of /proc/self/maps */
static int one_vma(const void *p, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= (uintptr_t)p && (uintptr_t)p < hi) {
			found = (uintptr_t)p + n <= hi;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	const char *backend = argc > 1 ? argv[1] : "system";
	int is_system = strcmp(backend, "system") == 0, is_mimalloc = strcmp(backend, "mimalloc") == 0;

	/* alignment */
	/* first, on fresh memory (mimalloc reuses a freed block's huge pages) */
	uint64_t before = anon_huge();
	unsigned char *four = malloc(4 * MIB), *six = memalign(64, 6 * MIB);
	CHECK(four != NULL && six != NULL);
	if (four && six && is_mimalloc) {
		memset(four, 0x66, 4 * MIB);
		memset(six, 0x77, 6 * MIB);
		uint64_t after = anon_huge();
		printf("4 MiB malloc at %p, 6 MiB memalign(64) at %p: AnonHugePages %+lld kB\n", (void *)four,
		       (void *)six, ((long long)after - (long long)before) / 1024);
		CHECK_MSG(((uintptr_t)four & (2 * MIB - 1)) == 0 && ((uintptr_t)six & (2 * MIB - 1)) == 0,
			  "a big block does not start on a 2 MiB boundary");
		CHECK_MSG(after >= before + 10ull * MIB, "the two blocks are not huge pages whole");
	}
	free(four);
	free(six);

	/* one VMA, and realloc keeps the data */
	unsigned char *p = malloc(8 * MIB);
	CHECK(p != NULL);
	memset(p, 0x11, 8 * MIB);
	if (is_system)
		CHECK(one_vma(p, 8 * MIB));
	before = anon_huge();
	p = realloc(p, 64 * MIB);
	CHECK(p != NULL);
	if (!p)
		return check_result("test_auto_blocks");
	CHECK(p[0] == 0x11 && p[8 * MIB - 1] == 0x11);
	memset(p + 8 * MIB, 0x22, 56 * MIB);
	uint64_t grown = anon_huge();
	printf("realloc 8 -> 64 MiB: AnonHugePages %llu -> %llu kB\n", (unsigned long long)before >> 10,
	       (unsigned long long)grown >> 10);
	if (is_system)
		CHECK(one_vma(p, 64 * MIB));
	else
		CHECK(grown >= 56ull * MIB);    /* the copied 8 MiB too, not only the new 56 */
	free(p);

	/* calloc */
	before = anon_huge();
	unsigned char *c = calloc(16, 4 * MIB);
	CHECK(c != NULL);
	if (c) {
		CHECK(c[0] == 0 && c[64 * MIB - 1] == 0);
		memset(c, 0x33, 64 * MIB);
		uint64_t after = anon_huge();
		printf("calloc 64 MiB: AnonHugePages %+lld kB\n", ((long long)after - (long long)before) / 1024);
		CHECK(after >= before + 32ull * MIB);
		free(c);
	}

	/* reuse of freed big blocks by small ones */
	enum { NBIG = 8, NSMALL = 512, SMALL = 64 << 10 };
	static void *big[NBIG], *small[NSMALL];
	for (int i = 0; i < NBIG; i++) {
		big[i] = malloc(6 * MIB);
		CHECK(big[i] != NULL);
		if (big[i])
			memset(big[i], 0x44, 6 * MIB);
	}
	for (int i = 0; i < NBIG; i++)
		free(big[i]);
	before = anon_huge();
	for (int i = 0; i < NSMALL; i++) {
		small[i] = malloc(SMALL);
		CHECK(small[i] != NULL);
		if (small[i])
			memset(small[i], 0x55, SMALL);
	}
	long long delta = (long long)anon_huge() - (long long)before;
	printf("32 MiB of 64 KiB blocks after 48 MiB of big blocks were freed: AnonHugePages %+lld kB%s\n",
	       delta / 1024, is_mimalloc ? " (not checked: mimalloc reuses the space)" : "");
	if (!is_mimalloc)
		CHECK(delta <= 4 << 20);
	for (int i = 0; i < NSMALL; i++)
		free(small[i]);
	return check_result("test_auto_blocks");
}
