/*
 * api.c - the public introspection API of hugepolicy.h (the report that
 * HUGEPOLICY_STATS prints at exit is report_keys.c's).  Numbers are read
 * back from the backend and the kernel at the moment of the call, never
 * echoed from the request (jemalloc's mallctl habit: opt.* is what took
 * effect).
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"
#include "hp_init.h"
#include "../region/hp_region.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void copy_name(char *dst, size_t cap, const char *src)
{
	hp_strlcpy(dst, src, cap);
}

static void fill(struct hugepolicy_stats *st)
{
	uint32_t size = st->size;
	memset(st, 0, sizeof *st);
	st->size = size;
	st->allocated = st->active = st->metadata = HUGEPOLICY_UNKNOWN;
	st->resident = st->mapped = st->retained = HUGEPOLICY_UNKNOWN;
	st->rss = st->anon_huge = st->hugetlb = HUGEPOLICY_UNKNOWN;
	copy_name(st->backend, sizeof st->backend, hugepolicy_backend());
	copy_name(st->pages_requested, sizeof st->pages_requested, hp_pages_name(hp_rt.plan.pages_requested));
	copy_name(st->pages_effective, sizeof st->pages_effective, hugepolicy_pages());
	if (hp_rt.backend) {
		hp_rt.backend->describe(st->config, sizeof st->config);
		hp_rt.backend->stats(st);
	}
	struct hp_smaps sm;
	if (hp_pages_smaps(&sm) == 0) {
		st->rss = sm.rss;
		st->anon_huge = sm.anon_huge;
		st->hugetlb = sm.hugetlb;
	}
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		st->minor_faults = (uint64_t)ru.ru_minflt;
		st->major_faults = (uint64_t)ru.ru_majflt;
		st->peak_rss = (uint64_t)ru.ru_maxrss * 1024;
		/* ru_maxrss is the high-water mark as of the kernel's last update
		 * of it, which can lag behind the Rss just read */
		if (st->peak_rss < st->rss)
			st->peak_rss = st->rss;
	}
	for (int owner = 0; owner < HP_TLB_OWNERS; owner++) {
		struct hp_tlb_counts c;
		hp_tlb_counts(owner, &c);
		st->hugetlb_blocks += c.pool_maps;
		st->hugetlb_bytes += c.pool_bytes;
		st->hugetlb_fallbacks += c.fallbacks;
		st->hugetlb_fallback_bytes += c.fallback_bytes;
	}
	st->bootstrap_bytes = hp_boot_used();
	struct hp_region_stats rs;
	hp_region_stats(&rs);
	st->region_count = rs.regions;
	st->region_hugetlb_bytes = rs.hugetlb_bytes;
	st->region_thp_bytes = rs.thp_bytes;
	st->region_base_bytes = rs.base_bytes;
	st->region_stepped_down = rs.stepped_down;
}

HP_EXPORT int hugepolicy_stats(struct hugepolicy_stats *st)
{
	if (!st || st->size < offsetof(struct hugepolicy_stats, allocated))
		return EINVAL;
	hp_init();
	struct hugepolicy_stats full;
	full.size = sizeof full;
	fill(&full);
	size_t n = st->size < sizeof full ? st->size : sizeof full;
	full.size = st->size;
	memcpy(st, &full, n);
	return 0;
}

HP_EXPORT const char *hugepolicy_backend(void)
{
	hp_init();
	return hp_rt.backend ? hp_rt.backend->name : "none";
}

const struct hp_plan *hp_region_process_plan(void)
{
	hp_init();
	return &hp_rt.plan;
}

HP_EXPORT const char *hugepolicy_pages(void)
{
	hp_init();
	return hp_pages_name(hp_rt.plan.pages);
}

void hp_say_obtained(void)
{
	struct hp_smaps sm;
	if (hp_pages_smaps(&sm) != 0)
		return;
	hp_say("at exit: AnonHugePages %llu kB, Hugetlb %llu kB, Rss %llu kB",
	       (unsigned long long)(sm.anon_huge >> 10), (unsigned long long)(sm.hugetlb >> 10),
	       (unsigned long long)(sm.rss >> 10));
}
