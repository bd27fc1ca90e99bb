/* san_tlb.c - the table of hugetlb mappings (pages/hugetlb_map.c) from
 * several threads, and the hugetlb mapping calls (hugetlb_pages.c), under a
 * sanitizer.  The table only stores addresses: records of address ranges no
 * one maps are enough to drive it (hp_tlb_each's callback never touches
 * them).  Shared by san_units (ASan+UBSan) and san_tsan (TSan). */
#define _GNU_SOURCE
#include "../../pages/hp_pages.h"
#include "../check.h"
#include "san.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define THREADS 4
#define ROUNDS 30
#define NBLOCKS 150
#define NARENAS 40
#define M2 ((uintptr_t)HP_HUGE_2M)

struct span { uintptr_t lo, hi; size_t n, bytes; };

static void in_span(void *base, size_t len, int owner, unsigned char *on_pool, void *arg)
{
	struct span *s = arg;
	(void)owner;
	CHECK(*on_pool == 1 && len > 0);
	if ((uintptr_t)base >= s->lo && (uintptr_t)base < s->hi) {
		s->n++;
		s->bytes += len;
	}
}

static struct span count(uintptr_t lo, uintptr_t hi)
{
	struct span s = { lo, hi, 0, 0 };
	hp_tlb_each(in_span, &s);
	return s;
}

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg;     /* a failed CHECK counts racily: it fails anyway */
	uintptr_t blocks = ((uintptr_t)t + 1) << 40, arenas = blocks + ((uintptr_t)1 << 39);
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < NBLOCKS; i++)
			CHECK(hp_tlb_add((void *)(blocks + i * 2 * M2), M2, HP_TLB_BLOCK) == 0);
		for (int i = 0; i < NARENAS; i++)
			CHECK(hp_tlb_add((void *)(arenas + i * 4 * M2), 3 * M2, i & 1 ? HP_TLB_ARENA : HP_TLB_BACKEND) == 0);
		for (int i = 0; i < NBLOCKS; i++) {
			CHECK(hp_tlb_block_size((void *)(blocks + i * 2 * M2)) == M2);
			CHECK(hp_tlb_block_size((void *)(blocks + i * 2 * M2 + M2)) == 0);
		}
		struct span s = count(blocks, arenas);
		CHECK_MSG(s.n == NBLOCKS && s.bytes == NBLOCKS * M2, "thread %d: %zu blocks", t, s.n);
		/* cut the middle 2 MiB out of each arena record: two pieces stay */
		for (int i = 0; i < NARENAS; i++) {
			uintptr_t a = arenas + i * 4 * M2;
			hp_tlb_forget((void *)(a + M2 / 2), 2 * M2);
			CHECK(hp_tlb_overlaps((void *)a, 1) && hp_tlb_overlaps((void *)(a + 3 * M2 - 1), 1));
			CHECK(!hp_tlb_overlaps((void *)(a + M2 / 2), 2 * M2));
		}
		s = count(arenas, arenas + NARENAS * 4 * M2);
		CHECK_MSG(s.n == 2 * NARENAS && s.bytes == NARENAS * M2, "thread %d: %zu pieces", t, s.n);
		for (int i = 0; i < NARENAS; i++) {
			uintptr_t a = arenas + i * 4 * M2;
			CHECK(hp_tlb_remove((void *)a) == M2 / 2);
			hp_tlb_forget((void *)(a + 2 * M2), 2 * M2);   /* the tail piece, whole */
			CHECK(!hp_tlb_overlaps((void *)a, 4 * M2));
		}
		for (int i = 0; i < NBLOCKS; i++)
			CHECK(hp_tlb_remove((void *)(blocks + i * 2 * M2)) == M2);
		CHECK(hp_tlb_remove((void *)blocks) == 0);
		hp_tlb_fallback(HP_TLB_BLOCK, 4096);
	}
	return NULL;
}

/* Bases that hash to one slot: probe runs with tombstones in between. */
static void collisions(void)
{
	uintptr_t base = (uintptr_t)1 << 45, step = (uintptr_t)8192 * M2;
	for (int i = 0; i < 40; i++)
		CHECK(hp_tlb_add((void *)(base + i * step), M2, HP_TLB_BLOCK) == 0);
	for (int i = 0; i < 40; i += 3)
		CHECK(hp_tlb_remove((void *)(base + i * step)) == M2);
	for (int i = 0; i < 40; i++)
		CHECK(hp_tlb_block_size((void *)(base + i * step)) == (i % 3 ? M2 : 0));
	for (int i = 0; i < 40; i++)
		if (i % 3)
			CHECK(hp_tlb_remove((void *)(base + i * step)) == M2);
	/* the table refuses more than half its slots, and says so */
	int added = 0;
	while (added < 10000 && hp_tlb_add((void *)(base + (uintptr_t)added * M2), M2, HP_TLB_BLOCK) == 0)
		added++;
	CHECK(added == 4096);
	for (int i = 0; i < added; i++)
		CHECK(hp_tlb_remove((void *)(base + (uintptr_t)i * M2)) == M2);
}

/* The mapping calls, whatever the pool holds now (never changed here). */
static void mapping(void)
{
	struct hp_tlb_fail why = { 0, 0 };
	size_t got = 0;
	static const size_t aligns[] = { 0, M2, 8 * M2 };
	for (int i = 0; i < 3; i++) {
		unsigned char *p = hp_pages_map_hugetlb(3 * M2 + 1, aligns[i], &got, &why);
		if (p) {
			CHECK(got == 4 * M2 && ((uintptr_t)p & (M2 - 1)) == 0);
			CHECK(aligns[i] <= M2 || ((uintptr_t)p & (aligns[i] - 1)) == 0);
			memset(p, 0x5a, got);
			CHECK(hp_tlb_add(p, got, HP_TLB_BLOCK) == 0 && hp_tlb_block_size(p) == got);
			CHECK(hp_tlb_remove(p) == got);
			munmap(p, got);
		} else {
			CHECK(why.stage >= HP_TLB_FAIL_MMAP && why.stage <= HP_TLB_FAIL_TABLE && why.err != 0);
			CHECK(hp_tlb_stage_name(why.stage)[0] != '\0');
		}
	}
	CHECK(hp_pages_map_hugetlb(0, 0, &got, &why) == NULL && errno == ENOMEM);
	CHECK(hp_pages_map_hugetlb(SIZE_MAX - 10, 0, &got, &why) == NULL);
	CHECK(hp_pages_map_hugetlb(M2, 3 * M2, &got, &why) == NULL && why.stage == HP_TLB_FAIL_ALIGN);
	CHECK(hp_pages_map_hugetlb(SIZE_MAX / 2 + 1, 4 * M2, &got, &why) == NULL && why.err == EINVAL);
	CHECK(strcmp(hp_tlb_stage_name(99), "refused") == 0);
}

void san_tlb(void)
{
	pthread_t th[THREADS];
	collisions();
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	struct hp_tlb_counts c;
	hp_tlb_counts(HP_TLB_BLOCK, &c);
	CHECK(c.pool_maps == 0 && c.pool_bytes == 0);
	CHECK(c.fallbacks == THREADS * ROUNDS && c.fallback_bytes == THREADS * ROUNDS * 4096);
	CHECK(hp_tlb_pool_bytes() == 0);
	CHECK(count(0, UINTPTR_MAX).n == 0);
	mapping();
	printf("tlb: %d threads x %d rounds of %d blocks and %d arenas\n", THREADS, ROUNDS, NBLOCKS, NARENAS);
	san_failed += check_failures;
}
