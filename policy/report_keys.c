/*
 * report_keys.c - the report's keys: the one place that names them and
 * says what each prints, for the process's own report (hugepolicy_report)
 * and for `hugepolicy inspect` reading another process's live block.  In:
 * the report as data (struct hp_report_src, hp_live.h); out: text lines
 * "  key value" or the members of one JSON object.  A number the process
 * could not give is `unknown` (JSON null), never 0.  Values from the
 * process (program name, a user's MALLOC_CONF in config) are escaped: a
 * line stays one line.
 */
#include "hp_live.h"

#include <stdio.h>

/* the text report's name column: its longest name, hugepolicy.hugetlb_fallback_bytes */
#define NAME_W 33

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

/* hugetlb mappings per page size, as the table (hugetlb_map.c) had them */
static void pools(struct hp_buf *b, const struct hp_report_src *r, int json, int *first)
{
	if (json)
		hp_buf_printf(b, "%s\"hugepolicy.hugetlb_pools\":[", *first ? "" : ",");
	else
		hp_buf_printf(b, "  %-*s ", NAME_W, "hugepolicy.hugetlb_pools");
	for (int i = 0; i < r->ntlb && i < HP_REPORT_TLB; i++) {
		const struct hp_report_tlb *z = &r->tlb[i];
		char name[24] = "size not recorded";
		if (z->page_size)
			hp_size_name(z->page_size, name, sizeof name);
		if (json)
			hp_buf_printf(b, "%s{\"page_size\":%llu,\"mappings\":%llu,\"bytes\":%llu,\"refused\":%llu,"
				      "\"refused_bytes\":%llu}", i ? "," : "", (unsigned long long)z->page_size,
				      (unsigned long long)z->maps, (unsigned long long)z->bytes,
				      (unsigned long long)z->refused, (unsigned long long)z->refused_bytes);
		else
			hp_buf_printf(b, "%s%s: %llu mapping%s, %llu B, %llu refused (%llu B)", i ? "; " : "", name,
				      (unsigned long long)z->maps, z->maps == 1 ? "" : "s",
				      (unsigned long long)z->bytes, (unsigned long long)z->refused,
				      (unsigned long long)z->refused_bytes);
	}
	hp_buf_printf(b, json ? "]" : r->ntlb ? "\n" : "none\n");
	*first = 0;
}

static void json_text(struct hp_buf *b, const char *name, const char *s)
{
	hp_buf_printf(b, ",\"%s\":", name);
	hp_json_str(b, s);
}

/* auto's fault costs (pages/fault_cost.c), where they decide */
static void fault_costs(struct hp_buf *b, const struct hp_report_src *r, int json, int *first)
{
	if (!r->fault)
		return;
	if (json) {
		json_text(b, "fault.verdict", r->fault_why);
	} else {
		hp_buf_printf(b, "  %-*s %s: ", NAME_W, "fault.verdict", r->fault_pinned ? "pinned" : "measured");
		hp_buf_escaped(b, r->fault_why, sizeof r->fault_why);
		hp_buf_printf(b, "\n");
	}
	num(b, "fault.base_ns", r->fault_base_ns ? r->fault_base_ns : HUGEPOLICY_UNKNOWN, json, first);
	num(b, "fault.thp_ns", r->fault_thp_ns ? r->fault_thp_ns : HUGEPOLICY_UNKNOWN, json, first);
	num(b, "fault.measurements", r->fault_measurements, json, first);
	num(b, "fault.blocks_thp", r->fault_blocks_thp, json, first);
	num(b, "fault.blocks_base", r->fault_blocks_base, json, first);
}

void hp_report_compose(const struct hp_report_src *r, int json, struct hp_buf *b)
{
	const struct hugepolicy_stats *st = &r->st;
	int first = 0;
	if (json) {
		hp_buf_printf(b, "\"backend\":");
		hp_json_str(b, st->backend);
		hp_buf_printf(b, ",\"pid\":%d", (int)r->pid);
		json_text(b, "program", r->program);
		json_text(b, "pages_requested", st->pages_requested);
		json_text(b, "pages", st->pages_effective);
		json_text(b, "reason", r->reason);
		json_text(b, "config", r->config);
		json_text(b, "thp_switch", r->thp);
		hp_buf_printf(b, ",");
		first = 1;
	} else {
		hp_buf_printf(b, "  %-*s %s\n", NAME_W, "backend", st->backend);
		hp_buf_printf(b, "  %-*s %s (asked %s): ", NAME_W, "pages", st->pages_effective, st->pages_requested);
		hp_buf_escaped(b, r->reason, b->cap);
		hp_buf_printf(b, "\n  %-*s ", NAME_W, "config");
		hp_buf_escaped(b, r->config, b->cap);
		if (r->thp[0]) {
			hp_buf_printf(b, "\n  %-*s ", NAME_W, "thp_switch");
			hp_buf_escaped(b, r->thp, b->cap);
		}
		hp_buf_printf(b, "\n");
	}
	num(b, "stats.allocated", st->allocated, json, &first);
	num(b, "stats.active", st->active, json, &first);
	num(b, "stats.metadata", st->metadata, json, &first);
	num(b, "stats.resident", st->resident, json, &first);
	num(b, "stats.mapped", st->mapped, json, &first);
	num(b, "stats.retained", st->retained, json, &first);
	num(b, "process.rss", st->rss, json, &first);
	num(b, "process.anon_huge_pages", st->anon_huge, json, &first);
	num(b, "process.hugetlb", st->hugetlb, json, &first);
	num(b, "process.peak_rss", st->peak_rss, json, &first);
	num(b, "process.minor_faults", st->minor_faults, json, &first);
	num(b, "process.major_faults", st->major_faults, json, &first);
	num(b, "hugepolicy.hugetlb_blocks", st->hugetlb_blocks, json, &first);
	num(b, "hugepolicy.hugetlb_bytes", st->hugetlb_bytes, json, &first);
	num(b, "hugepolicy.hugetlb_fallbacks", st->hugetlb_fallbacks, json, &first);
	num(b, "hugepolicy.hugetlb_fallback_bytes", st->hugetlb_fallback_bytes, json, &first);
	pools(b, r, json, &first);
	num(b, "hugepolicy.bootstrap_bytes", st->bootstrap_bytes, json, &first);
	fault_costs(b, r, json, &first);
	if (json || st->region_count || st->region_stepped_down) {    /* text: once regions were used */
		num(b, "region.count", st->region_count, json, &first);
		num(b, "region.hugetlb_bytes", st->region_hugetlb_bytes, json, &first);
		num(b, "region.thp_bytes", st->region_thp_bytes, json, &first);
		num(b, "region.base_bytes", st->region_base_bytes, json, &first);
		num(b, "region.stepped_down", st->region_stepped_down, json, &first);
	}
}
