/* test_advice_withdrawn.c - huge-page advice does not outlive its block
 * (issue 8 item 4): under auto, a freed 8 MiB block's pages are reused by
 * the backend for small blocks (mimalloc 2.0 does), and while its
 * MADV_HUGEPAGE stayed on them khugepaged could collapse those sparse pages
 * back into huge pages.  After free, no mapping that holds the later small
 * blocks may carry the advice (smaps VmFlags "hg").
 * usage: test_advice_withdrawn BACKEND */
#define _GNU_SOURCE
#include "check.h"

#include <hugepolicy.h>
#include <stdint.h>
#include <string.h>

enum { BIG = 8 << 20, NSMALL = 1024, SMALL = 48 << 10 };

/* 1 if the mapping holding p has VmFlags "hg", 0 if not, -1 if not found */
static int advised(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, hg = -1;
	uintptr_t a = (uintptr_t)p;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = a >= lo && a < hi;
		} else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			hg = strstr(line, " hg") != NULL;
			break;
		}
	}
	if (f)
		fclose(f);
	return hg;
}

int main(int argc, char **argv)
{
	CHECK(argc > 1 && strcmp(hugepolicy_backend(), argv[1]) == 0);
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
