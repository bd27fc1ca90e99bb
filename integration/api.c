/*
 * api.c - the public introspection API of hugepolicy.h and the report that
 * HUGEPOLICY_STATS prints at exit: its snapshot taken here (struct
 * hp_report_snap), its keys composed by report_keys.c, the same snapshot
 * left in the live block (live.c).  Numbers are read back from the backend
 * and the kernel at the moment of the call, never echoed from the request
 * (jemalloc's mallctl habit: opt.* is what took effect).
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"
#include "hp_init.h"
#include "hp_live.h"
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

/* the page layer's and the regions' counters: atomics, nothing else */
static void counters(struct hugepolicy_stats *st)
{
	st->hugetlb_blocks = st->hugetlb_bytes = st->hugetlb_fallbacks = st->hugetlb_fallback_bytes = 0;
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

/* numbers 0: the allocator's and the process's numbers left unknown (they
 * cost a read of smaps_rollup, and the backend's own walk) */
static void fill(struct hugepolicy_stats *st, int numbers)
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
	st->minor_faults = st->major_faults = st->peak_rss = HUGEPOLICY_UNKNOWN;
	if (hp_rt.backend)
		hp_rt.backend->describe(st->config, sizeof st->config);
	if (hp_rt.backend && numbers)
		hp_rt.backend->stats(st);
	struct hp_rollup sm;
	if (numbers && hp_pages_smaps(&sm) == 0) {
		st->rss = sm.rss;
		st->anon_huge = sm.anon_huge;
		st->hugetlb = sm.hugetlb;
	}
	struct rusage ru;
	if (numbers && getrusage(RUSAGE_SELF, &ru) == 0) {
		st->minor_faults = (uint64_t)ru.ru_minflt;
		st->major_faults = (uint64_t)ru.ru_majflt;
		st->peak_rss = (uint64_t)ru.ru_maxrss * 1024;
		/* ru_maxrss is the high-water mark as of the kernel's last update
		 * of it, which can lag behind the Rss just read */
		if (st->peak_rss < st->rss)
			st->peak_rss = st->rss;
	}
	counters(st);
}

HP_EXPORT int hugepolicy_stats(struct hugepolicy_stats *st)
{
	if (!st || st->size < offsetof(struct hugepolicy_stats, allocated))
		return EINVAL;
	hp_init();
	struct hugepolicy_stats full;
	full.size = sizeof full;
	fill(&full, 1);
	hp_live_stats(&full);
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

/* ---- the report ---- */

void hp_report_snap_self(struct hp_report_snap *s)
{
	s->pid = (int)getpid();
	hp_strlcpy(s->program, hp_program(), sizeof s->program);
	hp_strlcpy(s->version, hugepolicy_version(), sizeof s->version);
	hp_strlcpy(s->backend, hp_rt.backend ? hp_rt.backend->name : "none", sizeof s->backend);
	hp_strlcpy(s->backend_source, hp_rt.backend_source ? hp_rt.backend_source : "", sizeof s->backend_source);
	hp_strlcpy(s->log, hp_rt.opt.log ? hp_rt.opt.log : "", sizeof s->log);
	/* no pointers: the snapshot goes to another process whole */
	s->opt = hp_rt.opt;
	s->opt.log = s->opt.user_malloc_conf = s->opt.user_mi_large = s->opt.user_mi_reserve = NULL;
	s->plan = hp_rt.plan;
	s->plan.user_malloc_conf = s->plan.user_mi_large = s->plan.user_mi_reserve = NULL;
	memset(&s->bs, 0, sizeof s->bs);
	if (hp_rt.backend)
		hp_rt.backend->settings(&s->bs);
	s->have = s->bs.have;
	hp_report_snap_counters(s);
	hp_promote_read(&s->promote);   /* resident too (mincore) */
}

void hp_report_snap_counters(struct hp_report_snap *s)
{
	counters(&s->st);
	s->npools = hp_tlb_sizes(s->pools, HP_REPORT_POOLS);
	hp_promote_counters(&s->promote);
	hp_fork_read(&s->fork);
	memset(&s->fault, 0, sizeof s->fault);
	s->have &= ~HP_SNAP_FAULT;
	if (hp_rt.backend && hp_rt.plan.adapt != HP_ADAPT_OFF) {
		hp_fault_cost_read(&s->fault);
		s->have |= HP_SNAP_FAULT;
	}
	hp_thp_mid_counts(&s->mthp);
	s->have &= ~HP_SNAP_MTHP;
	if (s->mthp.sizes)
		s->have |= HP_SNAP_MTHP;
}

void hp_report_snap_start(struct hp_report_snap *s)
{
	memset(s, 0, sizeof *s);
	s->st.size = sizeof s->st;
	fill(&s->st, 0);
	hp_report_snap_self(s);
	hp_thp_mid_scan(&s->mthp, 0);   /* like process.*: unknown until a report reads them */
}


void hp_report_gather(struct hp_report_snap *s)
{
	s->st.size = sizeof s->st;
	hugepolicy_stats(&s->st);
	hp_report_snap_self(s);
	hp_thp_mid_scan(&s->mthp, 1);   /* pagemap, kpageflags, sysfs counters */
	hp_live_publish(s);
}

int hp_report_emit(int fd, unsigned flags, const struct hp_report_snap *s)
{
	char text[16384];
	struct hp_buf b = { text, sizeof text, 0 };
	int json = (flags & HUGEPOLICY_REPORT_JSON) != 0;
	if (json) {
		hp_buf_printf(&b, "hugepolicy-stats: {");
	} else {
		/* every line of the report stays one line: the values escaped */
		hp_buf_prefix(&b);
		hp_buf_printf(&b, "report\n");
	}
	hp_report_keys(s, json, &b);
	if (json)
		hp_buf_printf(&b, "}\n");
	return hp_write_all(fd, text, b.len);
}

HP_EXPORT int hugepolicy_report(int fd, unsigned flags)
{
	struct hp_report_snap s;
	hp_report_gather(&s);
	return hp_report_emit(fd, flags, &s);
}

void hp_say_obtained(void)
{
	struct hp_rollup sm;
	if (hp_pages_smaps(&sm) != 0)
		return;
	hp_say("at exit: AnonHugePages %llu kB, Hugetlb %llu kB, Rss %llu kB",
	       (unsigned long long)(sm.anon_huge >> 10), (unsigned long long)(sm.hugetlb >> 10),
	       (unsigned long long)(sm.rss >> 10));
}
