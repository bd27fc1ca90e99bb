/*
 * tt.c - a chess engine's transposition table on a huge-page region, the
 * way Stockfish allocates its hash (aligned_large_pages_alloc) and says in
 * one line what it got:
 *
 *   info string Hash table allocation: Linux large pages used.
 *   info string Hash table allocation: Windows large pages not used.
 *
 * followed by what the kernel says the table has and why.  Usage:
 *   tt [MiB [NEW_MiB [THREADS]]]    (default 16 MiB, no resize, 1 thread)
 * With NEW_MiB the table is resized as when a user changes the Hash option
 * (the entries already stored are kept), then probed again.  Exit status 0
 * when every stored entry reads back, 1 otherwise, 2 on a usage error.
 */
#include "hugepolicy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define SYSTEM "Windows"
#else
#define SYSTEM "Linux"
#endif

struct entry {                  /* 16 bytes: key, move, value, depth, bound */
	uint64_t key;
	uint16_t move;
	int16_t value;
	uint8_t depth, bound;
	uint8_t pad[2];
};

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)      /* xorshift64*: the positions' Zobrist keys */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}

static void say(const struct entry *tt)
{
	struct hugepolicy_region_info in;
	memset(&in, 0, sizeof in);
	in.size = sizeof in;
	if (hugepolicy_region_info(tt, &in) != 0)
		return;
	printf("info string Hash table allocation: " SYSTEM " large pages %s.\n",
	       in.kind == HUGEPOLICY_REGION_HUGETLB ? "used" : "not used");
	printf("info string Hash table pages: %s, %llu MiB mapped; kernel says hugetlb %llu MiB, THP %llu MiB, "
	       "base %llu MiB resident\n", hugepolicy_region_kind_name(in.kind), (unsigned long long)(in.length >> 20),
	       (unsigned long long)(in.hugetlb_bytes >> 20), (unsigned long long)(in.thp_bytes >> 20),
	       (unsigned long long)(in.base_bytes >> 20));
	for (char *line = in.reason; *line;) {
		char *end = strchr(line, '\n');
		int n = end ? (int)(end - line) : (int)strlen(line);
		printf("info string   %.*s\n", n, line);
		line += n + (end != NULL);
	}
}

/* Store `count` positions, then probe them again: how many read back. */
static size_t store_and_probe(struct entry *tt, size_t entries, size_t count, uint64_t seed)
{
	rng = seed;
	for (size_t i = 0; i < count; i++) {
		uint64_t k = next();
		struct entry *e = &tt[k % entries];
		*e = (struct entry){ .key = k, .move = (uint16_t)k, .value = (int16_t)(k >> 16), .depth = 9, .bound = 1 };
	}
	size_t found = 0;
	rng = seed;
	for (size_t i = 0; i < count; i++) {
		uint64_t k = next();
		found += tt[k % entries].key == k;
	}
	return found;
}

int main(int argc, char **argv)
{
	unsigned long mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
	unsigned long new_mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	unsigned long threads = argc > 3 ? strtoul(argv[3], NULL, 10) : 1;
	if (mib == 0 || mib > (1ul << 20) || threads > 64) {
		fprintf(stderr, "usage: tt [MiB [NEW_MiB [THREADS]]]\n");
		return 2;
	}
	/* as Stockfish: the best pages there are, silently falling back, and
	 * cleared (here: populated) by the search threads */
	struct hugepolicy_region_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.pages = HUGEPOLICY_REGION_HUGETLB;
	o.flags = HUGEPOLICY_REGION_POPULATE;
	o.threads = (uint32_t)threads;
	size_t bytes = (size_t)mib << 20, entries = bytes / sizeof(struct entry);
	struct entry *tt = hugepolicy_region_alloc(bytes, &o);
	if (!tt) {
		printf("info string Hash table allocation failed: %s\n", strerror(errno));
		return 1;
	}
	say(tt);
	size_t count = entries / 64, found = store_and_probe(tt, entries, count, 1);
	printf("info string %zu of %zu positions found again\n", found, count);
	int ok = found > count * 9 / 10;
	if (new_mib) {
		/* entries stay where they are: the prefix is kept, only the
		 * index range changes (an engine would rehash or clear) */
		struct entry *bigger = hugepolicy_region_resize(tt, (size_t)new_mib << 20);
		if (!bigger) {
			printf("info string Hash table resize failed: %s\n", strerror(errno));
			hugepolicy_region_free(tt);
			return 1;
		}
		tt = bigger;
		size_t kept = 0;
		rng = 1;
		for (size_t i = 0; i < count; i++) {
			uint64_t k = next();
			kept += k % entries < ((size_t)new_mib << 20) / sizeof(struct entry) && tt[k % entries].key == k;
		}
		printf("info string Hash table resized to %lu MiB: %zu stored positions kept in place\n", new_mib, kept);
		entries = ((size_t)new_mib << 20) / sizeof(struct entry);
		say(tt);
		count = entries / 64;
		found = store_and_probe(tt, entries, count, 2);
		printf("info string %zu of %zu positions found again\n", found, count);
		ok = ok && found > count * 9 / 10;
	}
	hugepolicy_region_free(tt);
	return ok ? 0 : 1;
}
