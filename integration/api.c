/*
 * api.c - the public introspection API of hugepolicy.h and the report that
 * HUGEPOLICY_STATS prints at exit.  Numbers are read back from the backend
 * and the kernel at the moment of the call, never echoed from the request
 * (jemalloc's mallctl habit: opt.* is what took effect).
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"
#include "hp_init.h"
#include "../region/hp_region.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* the text report's name column: its longest name, hugepolicy.hugetlb_fallback_bytes */
#define NAME_W 33

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

/* ---- the report ---- */

static void num(struct hp_buf *b, const char *name, uint64_t v, int json, int *first)
{
	if (json) {
		if (v == HUGEPOLICY_UNKNOWN)
			hp_buf_printf(b, "%s\"%s\":null", *first ? "" : ",", name);
		else
			hp_buf_printf(b, "%s\"%s\":%llu", *first ? "" : ",", name, (unsigned long long)v);
		*first = 0;
	} else if (v == HUGEPOLICY_UNKNOWN) {
		hp_buf_printf(b, "  %-*s unknown\n", NAME_W, name);
	} else {
		hp_buf_printf(b, "  %-*s %llu\n", NAME_W, name, (unsigned long long)v);
	}
}

/* hugetlb mappings per page size, read back from the table (hugetlb_map.c) */
static void pools(struct hp_buf *b, int json, int *first)
{
	struct hp_tlb_size z[8];
	int n = hp_tlb_sizes(z, 8);
	if (json)
		hp_buf_printf(b, "%s\"hugepolicy.hugetlb_pools\":[", *first ? "" : ",");
	else
		hp_buf_printf(b, "  %-*s ", NAME_W, "hugepolicy.hugetlb_pools");
	for (int i = 0; i < n; i++) {
		char name[24] = "size not recorded";
		if (z[i].page_size)
			hp_size_name(z[i].page_size, name, sizeof name);
		if (json)
			hp_buf_printf(b, "%s{\"page_size\":%llu,\"mappings\":%llu,\"bytes\":%llu,\"refused\":%llu,"
				      "\"refused_bytes\":%llu}", i ? "," : "", (unsigned long long)z[i].page_size,
				      (unsigned long long)z[i].maps, (unsigned long long)z[i].bytes,
				      (unsigned long long)z[i].refused, (unsigned long long)z[i].refused_bytes);
		else
			hp_buf_printf(b, "%s%s: %llu mapping%s, %llu B, %llu refused (%llu B)", i ? "; " : "", name,
				      (unsigned long long)z[i].maps, z[i].maps == 1 ? "" : "s",
				      (unsigned long long)z[i].bytes, (unsigned long long)z[i].refused,
				      (unsigned long long)z[i].refused_bytes);
	}
	hp_buf_printf(b, json ? "]" : n ? "\n" : "none\n");
	*first = 0;
}

static void json_text(struct hp_buf *b, const char *name, const char *s)
{
	hp_buf_printf(b, ",\"%s\":", name);
	hp_json_str(b, s);
}

/* auto's fault costs (pages/fault_cost.c), where they decide */
static void fault_costs(struct hp_buf *b, int json, int *first)
{
	struct hp_fault_cost_report r;
	if (!hp_rt.backend || hp_rt.plan.adapt == HP_ADAPT_OFF)
		return;
	hp_fault_cost_read(&r);
	if (json) {
		json_text(b, "fault.verdict", r.why);
	} else {
		hp_buf_printf(b, "  %-*s %s: ", NAME_W, "fault.verdict", r.adapt == HP_ADAPT_PINNED ? "pinned" : "measured");
		hp_buf_escaped(b, r.why, sizeof r.why);
		hp_buf_printf(b, "\n");
	}
	num(b, "fault.base_ns", r.costs.base_ns ? r.costs.base_ns : HUGEPOLICY_UNKNOWN, json, first);
	num(b, "fault.thp_ns", r.costs.thp_ns ? r.costs.thp_ns : HUGEPOLICY_UNKNOWN, json, first);
	num(b, "fault.measurements", r.measurements, json, first);
	num(b, "fault.blocks_thp", r.blocks_thp, json, first);
	num(b, "fault.blocks_base", r.blocks_base, json, first);
}

/* plan.mthp: the mTHP decision and its reason (plan_mthp.c) */
static void mthp_plan(char *text, size_t cap)
{
	snprintf(text, cap, "%s: %s", hp_mthp_name(hp_rt.plan.mthp), hp_rt.plan.mthp_reason);
}

/* mTHP (plan_mthp.c, thp_mid.c): what the process holds in
 * folios of each size the plan names (pagemap + kpageflags: unknown
 * without CAP_SYS_ADMIN), and the kernel's system-wide fault counter of
 * that size, its rise since start-up */
static void mthp(struct hp_buf *b, int json, int *first)
{
	const struct hp_plan *pl = &hp_rt.plan;
	uint32_t sizes = pl->mthp_advised | pl->mthp_kernel;
	if (!sizes)
		return;
	uint64_t folio[64], nb, nbytes;
	int scan = hp_pages_folio_bytes(folio);
	hp_thp_mid_counts(&nb, &nbytes);
	num(b, "stats.mthp.blocks_advised", nb, json, first);
	num(b, "stats.mthp.bytes_advised", nbytes, json, first);
	for (int k = 0; k < 32; k++) {
		if (!(sizes & (1u << k)))
			continue;
		char name[64];
		uint64_t d;
		snprintf(name, sizeof name, "process.mthp.%llukB", (unsigned long long)(1ull << k) >> 10);
		num(b, name, scan ? HUGEPOLICY_UNKNOWN : folio[k], json, first);
		snprintf(name, sizeof name, "system.mthp.%llukB.fault_alloc", (unsigned long long)(1ull << k) >> 10);
		num(b, name, hp_mthp_counter_delta(k, &d) ? HUGEPOLICY_UNKNOWN : d, json, first);
	}
}

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

HP_EXPORT int hugepolicy_report(int fd, unsigned flags)
{
	char text[6144];
	struct hp_buf b = { text, sizeof text, 0 };
	struct hugepolicy_stats st;
	int json = (flags & HUGEPOLICY_REPORT_JSON) != 0, first = 0;
	st.size = sizeof st;
	hugepolicy_stats(&st);
	char thp[480], config[1024], mthp_text[400];
	thp_note(thp, sizeof thp);
	mthp_plan(mthp_text, sizeof mthp_text);
	/* whole: the struct's config[] is cut at 191 bytes */
	hp_strlcpy(config, st.config, sizeof config);
	if (hp_rt.backend)
		hp_rt.backend->describe(config, sizeof config);
	if (json) {
		hp_buf_printf(&b, "hugepolicy-stats: {\"backend\":\"%s\",\"pid\":%d", st.backend, (int)getpid());
		json_text(&b, "program", hp_program());
		json_text(&b, "pages_requested", st.pages_requested);
		json_text(&b, "pages", st.pages_effective);
		json_text(&b, "reason", hp_rt.plan.pages_reason);
		json_text(&b, "config", config);
		json_text(&b, "thp_switch", thp);
		json_text(&b, "plan.mthp", mthp_text);
		hp_buf_printf(&b, ",");
		first = 1;
	} else {
		/* the program name and config (a user's MALLOC_CONF) escaped: every
		 * line of the report stays one line */
		hp_buf_prefix(&b);
		hp_buf_printf(&b, "report\n");
		hp_buf_printf(&b, "  %-*s %s\n", NAME_W, "backend", st.backend);
		hp_buf_printf(&b, "  %-*s %s (asked %s): ", NAME_W, "pages", st.pages_effective, st.pages_requested);
		hp_buf_escaped(&b, hp_rt.plan.pages_reason, sizeof text);
		hp_buf_printf(&b, "\n  %-*s ", NAME_W, "config");
		hp_buf_escaped(&b, config, sizeof text);
		if (thp[0]) {
			hp_buf_printf(&b, "\n  %-*s ", NAME_W, "thp_switch");
			hp_buf_escaped(&b, thp, sizeof text);
		}
		hp_buf_printf(&b, "\n  %-*s ", NAME_W, "plan.mthp");
		hp_buf_escaped(&b, mthp_text, sizeof text);
		hp_buf_printf(&b, "\n");
	}
	num(&b, "stats.allocated", st.allocated, json, &first);
	num(&b, "stats.active", st.active, json, &first);
	num(&b, "stats.metadata", st.metadata, json, &first);
	num(&b, "stats.resident", st.resident, json, &first);
	num(&b, "stats.mapped", st.mapped, json, &first);
	num(&b, "stats.retained", st.retained, json, &first);
	num(&b, "process.rss", st.rss, json, &first);
	num(&b, "process.anon_huge_pages", st.anon_huge, json, &first);
	num(&b, "process.hugetlb", st.hugetlb, json, &first);
	num(&b, "process.peak_rss", st.peak_rss, json, &first);
	num(&b, "process.minor_faults", st.minor_faults, json, &first);
	num(&b, "process.major_faults", st.major_faults, json, &first);
	num(&b, "hugepolicy.hugetlb_blocks", st.hugetlb_blocks, json, &first);
	num(&b, "hugepolicy.hugetlb_bytes", st.hugetlb_bytes, json, &first);
	num(&b, "hugepolicy.hugetlb_fallbacks", st.hugetlb_fallbacks, json, &first);
	num(&b, "hugepolicy.hugetlb_fallback_bytes", st.hugetlb_fallback_bytes, json, &first);
	pools(&b, json, &first);
	num(&b, "hugepolicy.bootstrap_bytes", st.bootstrap_bytes, json, &first);
	fault_costs(&b, json, &first);
	mthp(&b, json, &first);
	if (json || st.region_count || st.region_stepped_down) {    /* text: once regions were used */
		num(&b, "region.count", st.region_count, json, &first);
		num(&b, "region.hugetlb_bytes", st.region_hugetlb_bytes, json, &first);
		num(&b, "region.thp_bytes", st.region_thp_bytes, json, &first);
		num(&b, "region.base_bytes", st.region_base_bytes, json, &first);
		num(&b, "region.stepped_down", st.region_stepped_down, json, &first);
	}
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
