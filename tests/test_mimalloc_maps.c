/* test_mimalloc_maps.c CASE - the record of mimalloc's ranges
 * (backends/mimalloc/mimalloc_maps.c), which stats.resident and stats.retained
 * under mimalloc come from, on real mappings:
 *   trims_and_splits_with_munmap  an 8 MiB mapping, its first 2 MiB
 *                                 written; munmap of its head, tail and a
 *                                 middle MiB: 5 MiB held, the written MiB
 *                                 left resident (mincore), 0 once all is gone
 *   is_unknown_when_full          4097 live ranges: ENOSPC from then on */
#define _GNU_SOURCE
#include "check.h"
#include "../backends/mimalloc/hp_mimalloc.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define MiB ((size_t)1 << 20)

static void unmap(char *p, size_t off, size_t len)
{
	CHECK(munmap(p + off, len) == 0);
	hp_mimalloc_maps_remove(p + off, len);
}

static void expect(uint64_t want_resident, uint64_t want_held, const char *when)
{
	uint64_t resident = 0, held = 0;
	CHECK(hp_mimalloc_maps_read(&resident, &held) == 0);
	printf("%s: resident %llu KiB, held %llu KiB\n", when, (unsigned long long)(resident >> 10),
	       (unsigned long long)(held >> 10));
	CHECK_MSG(resident == want_resident, "%s: resident %llu, want %llu", when, (unsigned long long)resident,
		  (unsigned long long)want_resident);
	CHECK_MSG(held == want_held, "%s: held %llu, want %llu", when, (unsigned long long)held,
		  (unsigned long long)want_held);
}

static void trims_and_splits(void)
{
	char *p = mmap(NULL, 8 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	madvise(p, 8 * MiB, MADV_NOHUGEPAGE);   /* base pages: resident counts exactly what was written */
	hp_mimalloc_maps_add(p, 8 * MiB);
	memset(p, 1, 2 * MiB);
	expect(2 * MiB, 8 * MiB, "mapped");
	unmap(p, 0, MiB);                       /* head: [1, 8) */
	expect(MiB, 7 * MiB, "head unmapped");
	unmap(p, 7 * MiB, MiB);                 /* tail: [1, 7) */
	expect(MiB, 6 * MiB, "tail unmapped");
	unmap(p, 3 * MiB, MiB);                 /* middle: [1, 3) and [4, 7) */
	expect(MiB, 5 * MiB, "middle unmapped");
	unmap(p, MiB, 2 * MiB);
	unmap(p, 4 * MiB, 3 * MiB);
	expect(0, 0, "all unmapped");
}

static void unknown_when_full(void)
{
	static char bytes[4097];
	for (size_t i = 0; i < sizeof bytes; i++)
		hp_mimalloc_maps_add(&bytes[i], 1);
	uint64_t resident, held;
	int rc = hp_mimalloc_maps_read(&resident, &held);
	printf("4097 ranges: read %d (%s)\n", rc, strerror(rc));
	CHECK(rc == ENOSPC);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "trims_and_splits_with_munmap") == 0)
		trims_and_splits();
	else if (argc > 1 && strcmp(argv[1], "is_unknown_when_full") == 0)
		unknown_when_full();
	else
		return fprintf(stderr, "usage: %s trims_and_splits_with_munmap|is_unknown_when_full\n", argv[0]), 2;
	return check_result(argv[1]);
}
