/*
 * region_process.c - what regions take from the process on Linux: the
 * process policy that `auto` stands for (the plan made at start-up from
 * HUGEPOLICY_PAGES and the probe; start-up runs first if no allocation has
 * run it yet), its HUGEPOLICY_VERBOSE switch and log, and mmap'ed pages for
 * region.c's table.
 */
#define _GNU_SOURCE
#include "hp_region.h"
#include "../policy/hp_policy.h"

#include <sched.h>
#include <sys/mman.h>

#define PMD ((size_t)HP_HUGE_2M)

void *hp_region_os_pages(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void hp_region_os_yield(void)
{
	sched_yield();
}

int hp_region_os_verbose(void)
{
	return hp_region_process_plan()->verbose;
}

void hp_region_os_say(const char *line)
{
	hp_say("%s", line);
}

void hp_region_os_counted(void)
{
	hp_live_changed();
}

int hp_region_os_auto(struct hp_region *r)
{
	const struct hp_plan *pl = hp_region_process_plan();
	int kind = pl->pages == HP_PAGES_HUGETLB ? HUGEPOLICY_REGION_HUGETLB
		 : pl->pages == HP_PAGES_THP ? HUGEPOLICY_REGION_THP : HUGEPOLICY_REGION_BASE;
	size_t least = kind == HUGEPOLICY_REGION_HUGETLB ? (size_t)pl->hugetlb_min : PMD;
	hp_region_why(r, "auto: the process policy is %s (HUGEPOLICY_PAGES %s)", hp_pages_name(pl->pages),
		      hp_pages_name(pl->pages_requested));
	if (kind != HUGEPOLICY_REGION_BASE && r->req < least) {
		hp_region_why(r, "%s: not used: %zu bytes is less than the %zu that auto gives huge pages",
			      hugepolicy_region_kind_name(kind), r->req, least);
		kind = HUGEPOLICY_REGION_BASE;
	}
	return kind;
}
