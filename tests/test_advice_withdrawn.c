/* test_advice_withdrawn.c - huge-page advice does not outlive its block
 * (issue 8 item 4): under auto, a freed 8 MiB block's pages are reused by
 * the backend for small blocks (mimalloc 2.0 does), and while its
 * MADV_HUGEPAGE stayed on them khugepaged could collapse those sparse pages
 * back into huge pages.  After free, no mapping that holds the later small
 * blocks may carry the advice (smaps VmFlags "hg").
 * usage: test_advice_withdrawn BACKEND [many|realloc-fail]
 *   many: 5000 live advised blocks (the set's old 4096 slots overflowed and
 *         every later free scanned them all), all freed: no mapping left
 *         advised;
 *   realloc-fail: a realloc that fails keeps the advice of the block the
 *         caller still owns. */
#define _GNU_SOURCE
#include "check.h"
#include "smaps_vma.h"

#include <hugepolicy.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

enum { BIG = 8 << 20, NSMALL = 1024, SMALL = 48 << 10 };

/* 1 if the mapping holding p has VmFlags "hg", 0 if not, -1 if not found */
static int advised(const void *p)
{
	char line[512];
	return smaps_vma_field(p, "VmFlags:", line, sizeof line) ? strstr(line, " hg") != NULL : -1;
}

/* mappings in the process with VmFlags "hg" */
static int advised_mappings(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int n = 0;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "VmFlags:", 8) == 0 && strstr(line, " hg"))
			n++;
	if (f)
		fclose(f);
	return n;
}

static int many(void)
{
	enum { N = 5000, SZ = 4 << 20 };
	static char *b[N];
	int before = advised_mappings(), got = 0;
	for (int i = 0; i < N; i++)
		if ((b[i] = malloc(SZ)) != NULL) {
			b[i][0] = 1;
			got++;
		}
	int live = advised(b[N / 2]);
	for (int i = 0; i < N; i++)
		free(b[i]);
	int after = advised_mappings();
	printf("%d of %d blocks of 4 MiB, one of them advised %d; advised mappings before %d, after all freed %d\n",
	       got, N, live, before, after);
	CHECK(got == N && live == 1 && after <= before);
	return check_result("test_advice_withdrawn");
}

static int realloc_fail(void)
{
	char *p = malloc(16 << 20);
	CHECK(p != NULL);
	if (!p)
		return check_result("test_advice_withdrawn");
	memset(p, 3, 16 << 20);
	int was = advised(p + (8 << 20));
	errno = 0;
	char *volatile keep = p;        /* the compiler must not see p "used after realloc" */
	char *volatile huge = realloc(keep, SIZE_MAX / 2);
	int err = errno, now = advised(p + (8 << 20));
	printf("16 MiB block advised %d; realloc to SIZE_MAX/2: %p errno %d; kept block advised %d\n",
	       was, (void *)huge, err, now);
	CHECK(was == 1 && huge == NULL && err == ENOMEM && now == 1 && p[12345] == 3);
	free(p);
	return check_result("test_advice_withdrawn");
}

int main(int argc, char **argv)
{
	CHECK(argc > 1 && strcmp(hugepolicy_backend(), argv[1]) == 0);
	if (argc > 2 && strcmp(argv[2], "many") == 0)
		return many();
	if (argc > 2 && strcmp(argv[2], "realloc-fail") == 0)
		return realloc_fail();
	char *big = malloc(BIG);
	CHECK(big != NULL);
	if (!big)
		return check_result("test_advice_withdrawn");
	memset(big, 1, BIG);
	int was = advised(big + BIG / 2);
	printf("8 MiB block %p: advised %d\n", (void *)big, was);
	CHECK(was == 1);                /* auto advised it */
	uintptr_t lo = (uintptr_t)big, hi = lo + BIG;
	free(big);
	static char *small[NSMALL];
	int inside = 0, still = 0;
	for (int i = 0; i < NSMALL; i++) {
		small[i] = malloc(SMALL);
		CHECK(small[i] != NULL);
		if (!small[i])
			break;
		memset(small[i], 2, SMALL);
		if ((uintptr_t)small[i] >= lo && (uintptr_t)small[i] < hi) {
			inside++;
			still += advised(small[i]) == 1;
		}
	}
	printf("%s: %d of %d small blocks in the freed block's range, %d of them still advised\n",
	       argv[1], inside, NSMALL, still);
	CHECK(still == 0);
	for (int i = 0; i < NSMALL; i++)
		free(small[i]);
	return check_result("test_advice_withdrawn");
}
