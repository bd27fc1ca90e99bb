/*
 * api.c - the public introspection API of hugepolicy.h and the report that
 * HUGEPOLICY_STATS prints at exit: its data gathered here (struct
 * hp_report_src), its keys composed by policy/report_keys.c, the same data
 * left in the live block (live.c).  Numbers are read back from the backend
 * and the kernel at the moment of the call, never echoed from the request
 * (jemalloc's mallctl habit: opt.* is what took effect).
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"
#include "hp_init.h"
#include "../policy/hp_live.h"
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
	struct hp_smaps sm;
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

/* The THP switch and small-block advice the plan enforced (thp_switch.c),
 * "except-advised: <why>; small blocks ...: <why>"; "" where THP is not
 * `always` and no switch was inherited or set (nothing to enforce) */
static void thp_note(char *buf, size_t cap)
{
	const struct hp_plan *pl = &hp_rt.plan;
	struct hp_buf b = { buf, cap, 0 };
	buf[0] = '\0';
	if (hp_rt.probe.thp_enabled != HP_THP_ALWAYS && hp_rt.probe.thp_process_off == HP_THP_OFF_NONE &&
	    pl->thp_process == HP_THP_PROC_KEEP)
		return;
	if (pl->thp_process != HP_THP_PROC_KEEP || pl->thp_process_reason[0])
		hp_buf_printf(&b, "%s: %s", hp_thp_process_name(pl->thp_process), pl->thp_process_reason);
	if (pl->thp_small_nohuge || pl->thp_small_reason[0])
		hp_buf_printf(&b, "%ssmall blocks %s: %s", b.len ? "; " : "",
			      pl->thp_small_nohuge ? "MADV_NOHUGEPAGE" : "as the kernel decides", pl->thp_small_reason);
}

void hp_report_counters(struct hp_report_src *r)
{
	counters(&r->st);
	struct hp_tlb_size z[HP_REPORT_TLB];
	r->ntlb = hp_tlb_sizes(z, HP_REPORT_TLB);
	for (int i = 0; i < r->ntlb; i++)
		r->tlb[i] = (struct hp_report_tlb){ z[i].page_size, z[i].maps, z[i].bytes, z[i].refused,
						    z[i].refused_bytes };
	/* auto's fault costs (pages/fault_cost.c), where they decide */
	r->fault = hp_rt.backend && hp_rt.plan.adapt != HP_ADAPT_OFF;
	if (!r->fault)
		return;
	struct hp_fault_cost_report f;
	hp_fault_cost_read(&f);
	r->fault_pinned = f.adapt == HP_ADAPT_PINNED;
	r->fault_base_ns = f.costs.base_ns;
	r->fault_thp_ns = f.costs.thp_ns;
	r->fault_measurements = f.measurements;
	r->fault_blocks_thp = f.blocks_thp;
	r->fault_blocks_base = f.blocks_base;
	hp_strlcpy(r->fault_why, f.why, sizeof r->fault_why);
}

void hp_report_gather(struct hp_report_src *r, int numbers)
{
	memset(r, 0, sizeof *r);
	r->st.size = sizeof r->st;
	if (numbers)
		hugepolicy_stats(&r->st);
	else
		fill(&r->st, 0);
	r->pid = (int32_t)getpid();
	r->started = hp_rt.backend != NULL;
	hp_strlcpy(r->program, hp_program(), sizeof r->program);
	hp_strlcpy(r->reason, hp_rt.plan.pages_reason, sizeof r->reason);
	/* whole: the struct's config[] is cut at 191 bytes */
	hp_strlcpy(r->config, r->st.config, sizeof r->config);
	if (hp_rt.backend)
		hp_rt.backend->describe(r->config, sizeof r->config);
	thp_note(r->thp, sizeof r->thp);
	hp_report_counters(r);
}

HP_EXPORT int hugepolicy_report(int fd, unsigned flags)
{
	char text[4096];
	struct hp_buf b = { text, sizeof text, 0 };
	struct hp_report_src r;
	int json = (flags & HUGEPOLICY_REPORT_JSON) != 0;
	hp_report_gather(&r, 1);
	hp_live_publish(&r);
	if (json) {
		hp_buf_printf(&b, "hugepolicy-stats: {");
	} else {
		hp_buf_prefix(&b);
		hp_buf_printf(&b, "report\n");
	}
	hp_report_compose(&r, json, &b);
	if (json)
		hp_buf_printf(&b, "}\n");
	return hp_write_all(fd, text, b.len);
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
