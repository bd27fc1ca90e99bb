/* test_promote_ranges.c - white box, hugepolicy linked statically: the
 * heap promotion's table of the allocator's mappings (pages/heap_promote.c)
 * costs a bounded time per new mapping once all its slots are in use,
 * however many mappings came since.
 * usage: test_promote_ranges   (HUGEPOLICY_PAGES=off: start-up leaves the
 *   promotion off; the test turns it on with a plan of its own)
 *
 * 512 mappings of 2 MiB fill the table, 200000 more (addresses nothing is
 * mapped at: the samples' mincore finds nothing resident, so the heap
 * stays small and nothing is advised) are each told to it; their thread
 * CPU time is at most 2 s (each scanned every slot ever used, used or
 * not, and added one: quadratic, 10 s and more). */
#define _GNU_SOURCE
#include "../pages/hp_pages.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MIB ((uintptr_t)1 << 20)

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	free(malloc(10));       /* start-up has run */
	struct hp_plan plan = { .pages = HP_PAGES_THP, .thp_scope = HP_THP_LARGE, .promote_min = 128 * MIB };
	hp_promote_init(&plan);
	uintptr_t at = (uintptr_t)0x200000000000ull;    /* 32 TiB: no mapping there */
	for (int i = 0; i < 512; i++, at += 4 * MIB)
		hp_promote_mapped((void *)at, 2 * MIB, 0);
	double t0 = cpu_s();
	for (int i = 0; i < 200000; i++, at += 4 * MIB)
		hp_promote_mapped((void *)at, 2 * MIB, 0);
	double s = cpu_s() - t0;
	struct hp_promote_report r;
	hp_promote_counters(&r);
	printf("200000 mappings after the table filled: %.3f s CPU; promote.state %s, promote.samples %llu\n", s,
	       hp_promote_state_name(r.state), (unsigned long long)r.samples);
	CHECK_MSG(s < 2.0, "%.3f s CPU for 200000 mappings", s);
	CHECK_MSG(r.state == HP_PROMOTE_STATE_WAITING, "the heap of unmapped addresses is not waiting");
	return check_result("test_promote_ranges");
}
