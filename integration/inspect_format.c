/*
 * inspect_format.c - an inspection (hp_inspect.h) as `hugepolicy inspect`
 * prints it: text with dotted keys (process.*, hugepolicy.*, kind.*,
 * mapping.N, not_huge.*, pool.*, advice) or one JSON object with the same
 * names; the live report of a process under hugepolicy composed by the
 * report's own keys (hp_report_compose), as the process would print it
 * now; then the advice: one line per reason memory is not on
 * huge pages, in the probe's manner (what it means, what changes it),
 * followed by the probe's own advice for the machine as the process sees
 * it.  Names from the process (paths, its environment) are escaped.
 */
#include "hp_inspect.h"

#include <stdio.h>
#include <string.h>

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))

/* bytes for people: "0", "132 KiB", "64.0 MiB", "1.50 GiB" */
static const char *human(uint64_t v, char *buf, size_t cap)
{
	if (v == 0)
		snprintf(buf, cap, "0");
	else if (v < 1024u * 1024u)
		snprintf(buf, cap, "%llu KiB", (unsigned long long)(v >> 10));
	else if (v < 1024ull * 1024u * 1024u)
		snprintf(buf, cap, "%.1f MiB", MIB(v));
	else
		snprintf(buf, cap, "%.2f GiB", MIB(v) / 1024.0);
	return buf;
}

static const char *why_text(int why)
{
	switch (why) {
	case HP_WHY_PROCESS_OFF: return "THP disabled for the process (THP_enabled 0: PR_SET_THP_DISABLE)";
	case HP_WHY_THP_NEVER: return "THP enabled is never (or the kernel has no THP)";
	case HP_WHY_NOHUGEPAGE: return "MADV_NOHUGEPAGE (VmFlags nh)";
	case HP_WHY_TOO_SMALL: return "mappings smaller than a huge page";
	case HP_WHY_UNALIGNED: return "not 2 MiB aligned: no aligned huge page fits, or the unaligned ends";
	case HP_WHY_NOT_ADVISED: return "THP madvise and no MADV_HUGEPAGE (no VmFlags hg)";
	case HP_WHY_NOT_ELIGIBLE: return "the kernel says THPeligible 0";
	case HP_WHY_SPARSE: return "sparse: Rss under a quarter of the size";
	default: return "eligible, advised and dense, but faulted on base pages (before the advice, or no "
		"free huge page then); khugepaged may collapse it";
	}
}

static const char environ_blank[] = "its /proc/PID/environ is blank: the program wrote over its start-up "
	"environment (a process title, as redis does), so its HUGEPOLICY_* variables are gone";

/* ---- advice ---- */
#define ADVICE_MAX (HP_ADVICE_MAX + 8)
struct advice {
	char lines[ADVICE_MAX + 1][HP_ADVICE_LEN];      /* the last: a line that did not fit, dropped */
	int n;
	struct hp_buf line;
};

/* the next line of advice, to print into */
static struct hp_buf *next(struct advice *a)
{
	int i = a->n < ADVICE_MAX ? a->n++ : ADVICE_MAX;
	a->lines[i][0] = '\0';
	a->line = (struct hp_buf){ a->lines[i], HP_ADVICE_LEN, 0 };
	return &a->line;
}

/* reasons worth a line: at least one huge page's worth of memory; then the
 * probe's advice on the machine as the process sees it */
static void advise(const struct hp_inspection *in, struct advice *a)
{
	const struct hp_smaps *s = &in->smaps;
	const uint64_t *w = s->why_bytes;
	const uint64_t min = s->pmd_size;
	char h[32];
	if (w[HP_WHY_NOT_ADVISED] >= min)
		hp_buf_printf(next(a), "%s of anonymous memory has no MADV_HUGEPAGE under THP madvise: "
			      "hugepolicy run --pages auto -- CMD advises big blocks (or the program calls "
			      "madvise(MADV_HUGEPAGE))", human(w[HP_WHY_NOT_ADVISED], h, sizeof h));
	if (w[HP_WHY_NOHUGEPAGE] >= min)
		hp_buf_printf(next(a), "%s is MADV_NOHUGEPAGE (nh): the program or its allocator kept it off THP "
			      "(jemalloc opt.thp=never, hugepolicy auto's small blocks)",
			      human(w[HP_WHY_NOHUGEPAGE], h, sizeof h));
	if (w[HP_WHY_UNALIGNED] + w[HP_WHY_TOO_SMALL] >= min)
		hp_buf_printf(next(a), "%s lies outside 2 MiB-aligned ranges (small or unaligned mappings): an "
			      "allocator that maps big blocks 2 MiB-aligned gets them THP",
			      human(w[HP_WHY_UNALIGNED] + w[HP_WHY_TOO_SMALL], h, sizeof h));
	if (w[HP_WHY_SPARSE] >= min)
		hp_buf_printf(next(a), "%s is in sparse mappings: THP would make them resident whole; base pages "
			      "are right there", human(w[HP_WHY_SPARSE], h, sizeof h));
	if (w[HP_WHY_BASE_FAULTED] >= min)
		hp_buf_printf(next(a), "%s is advised and eligible but on base pages: it faulted before "
			      "MADV_HUGEPAGE or without a free huge page (defrag %s); khugepaged collapses it over "
			      "time, MADV_COLLAPSE at once", human(w[HP_WHY_BASE_FAULTED], h, sizeof h),
			      in->probe.thp_defrag[0] ? in->probe.thp_defrag : "missing");
	int hugetlb = in->live_state == HP_LIVE_READ ? in->live.snap.plan.pages == HP_PAGES_HUGETLB
		: in->have_plan && in->plan.pages == HP_PAGES_HUGETLB;
	if (s->kinds[HP_KIND_HUGETLB].mappings == 0 && hugetlb)
		hp_buf_printf(next(a), "hugepolicy plans hugetlb but the process has no hugetlb mapping: its "
			      "blocks are below HUGEPOLICY_THRESHOLD or the pool had no room "
			      "(HUGEPOLICY_VERBOSE=1 says which)");
	char probe[HP_ADVICE_MAX][HP_ADVICE_LEN];
	int n = hp_probe_advice(&in->probe, probe, HP_ADVICE_MAX);
	for (int i = 0; i < n; i++)
		hp_buf_printf(next(a), "%s", probe[i]);
}

/* ---- the live report ---- */
static void seconds_ago(struct hp_buf *b, int64_t now, int64_t then)
{
	hp_buf_printf(b, "%.2f s ago", (double)(now - then) / 1e9);
}

/* the live line: how it was read and how old each part is, or why not */
static void live_line(const struct hp_inspection *in, struct hp_buf *b)
{
	if (in->live_state != HP_LIVE_READ) {
		hp_buf_printf(b, "not read: ");
		hp_buf_escaped(b, in->live_why, sizeof in->live_why);
		return;
	}
	const struct hp_live *l = &in->live;
	hp_buf_printf(b, "read with %s at 0x%llx: write %llu, ", in->live_how, (unsigned long long)in->live_addr,
		      (unsigned long long)(l->seq / 2));
	seconds_ago(b, in->live_now_ns, l->counters_ns);
	if (l->stats_ns) {
		hp_buf_printf(b, "; stats.* as the process read them ");
		seconds_ago(b, in->live_now_ns, l->stats_ns);
	} else {
		hp_buf_printf(b, "; stats.* unknown: the process has not read them since start-up "
			      "(hugepolicy_stats, the report)");
	}
	hp_buf_printf(b, "; process.* from the kernel now");
}

/* ---- text ---- */
static void text_kind(struct hp_buf *b, const char *name, const struct hp_kind_sum *k)
{
	char v[8][32];
	hp_buf_printf(b, "kind.%-15s %8llu %11s %11s %11s %11s %12s %11s %11s\n", name,
		      (unsigned long long)k->mappings, human(k->size, v[0], 32), human(k->rss, v[1], 32),
		      human(k->anon_huge, v[2], 32), human(k->hugetlb, v[3], 32), human(k->thp_eligible, v[4], 32),
		      human(k->hg, v[5], 32), human(k->nh, v[6], 32));
}

static void text(const struct hp_inspection *in, const struct advice *a, struct hp_buf *b)
{
	const struct hp_smaps *s = &in->smaps;
	char h[4][32];
	hp_buf_printf(b, "process.pid          %d (", in->pid);
	hp_buf_escaped(b, in->name, 64);
	hp_buf_printf(b, ")\nprocess.thp          THP enabled %s, defrag %s; THP_enabled %s\n",
		      hp_thp_name(in->probe.thp_enabled), in->probe.thp_defrag[0] ? in->probe.thp_defrag : "missing",
		      in->thp_status == 0 ? "0 (PR_SET_THP_DISABLE: no THP in this process)"
		      : in->thp_status == 1 ? "1" : "unknown");
	hp_buf_printf(b, "hugepolicy.loaded    %s", s->hugepolicy[0] ? "yes, " : "no");
	hp_buf_escaped(b, s->hugepolicy, sizeof s->hugepolicy);
	const struct hp_report_snap *r = &in->live.snap;
	if (in->live_state == HP_LIVE_READ) {
		hp_buf_printf(b, "\nhugepolicy.backend   %s\nhugepolicy.pages     %s (asked %s): ", r->backend,
			      hp_pages_name(r->plan.pages), hp_pages_name(r->opt.pages));
		hp_buf_escaped(b, in->live.snap.plan.pages_reason, sizeof in->live.snap.plan.pages_reason);
	} else if (in->have_plan) {
		hp_buf_printf(b, "\nhugepolicy.backend   %s\nhugepolicy.pages     %s (asked %s): %s",
			      hp_backend_name(in->plan.backend), hp_pages_name(in->plan.pages),
			      hp_pages_name(in->plan.pages_requested), in->plan.pages_reason);
	} else if (s->hugepolicy[0]) {
		hp_buf_printf(b, "\nhugepolicy.backend   unknown: %s", environ_blank);
	}
	if (in->live_state != HP_LIVE_NONE) {
		hp_buf_printf(b, "\nhugepolicy.live      ");
		live_line(in, b);
	}
	hp_buf_printf(b, "\n");
	if (in->live_state == HP_LIVE_READ) {
		hp_buf_prefix_of(b, in->live.snap.program, in->live.snap.pid);
		hp_buf_printf(b, "report\n");
		hp_report_keys(&in->live.snap, 0, b);
	}
	if (s->allocators[0])
		hp_buf_printf(b, "allocators           %s\n", s->allocators);
	for (int i = 0; i < in->nenv; i++) {
		hp_buf_printf(b, "environ              ");
		hp_buf_escaped(b, in->env[i], 200);
		hp_buf_printf(b, "\n");
	}
	hp_buf_printf(b, "%-20s %8s %11s %11s %11s %11s %12s %11s %11s\n", "kind", "mappings", "size", "rss",
		      "anon_huge", "hugetlb", "thp_eligible", "hg", "nh");
	for (int k = 0; k < HP_KIND_COUNT; k++)
		text_kind(b, hp_kind_name(k), &s->kinds[k]);
	text_kind(b, "total", &s->total);
	for (int i = 0; i < s->ntop; i++) {
		const struct hp_vma *v = &s->top[i];
		hp_buf_printf(b, "mapping.%-12d %llx-%llx %s %-10s size %s rss %s anon_huge %s hugetlb %s%s%s%s%s%s%s", i,
			      (unsigned long long)v->start, (unsigned long long)v->end, v->perms, hp_kind_name(v->kind),
			      human(v->end - v->start, h[0], 32), human(v->rss, h[1], 32), human(v->anon_huge, h[2], 32),
			      human(v->hugetlb, h[3], 32), v->thp_eligible == 1 ? " eligible" : "", v->hg ? " hg" : "",
			      v->nh ? " nh" : "", v->why >= 0 ? " not_huge." : "", v->why >= 0 ? hp_why_name(v->why) : "",
			      v->name[0] ? " " : "");
		hp_buf_escaped(b, v->name, sizeof v->name);
		hp_buf_printf(b, "\n");
	}
	for (int w = 0; w < HP_WHY_COUNT; w++)
		if (s->why_bytes[w])
			hp_buf_printf(b, "not_huge.%-11s %s in %llu mappings: %s\n", hp_why_name(w),
				      human(s->why_bytes[w], h[0], 32), (unsigned long long)s->why_mappings[w], why_text(w));
	for (int i = 0; i < in->probe.npools; i++) {
		const struct hp_pool *q = &in->probe.pools[i];
		char kb[24];
		snprintf(kb, sizeof kb, "%llukB", (unsigned long long)(q->page_size >> 10));
		hp_buf_printf(b, "pool.%-15s available %llu of %llu pages; ", kb,
			      (unsigned long long)hp_pool_available(q), (unsigned long long)q->total);
		hp_buf_escaped(b, q->cg_where, sizeof q->cg_where);
		hp_buf_printf(b, "\n");
	}
	for (int i = 0; i < a->n; i++)
		hp_buf_printf(b, "advice               %s\n", a->lines[i]);
}

/* ---- JSON ---- */
static void json_kind(struct hp_buf *b, const struct hp_kind_sum *k)
{
	hp_buf_printf(b, "{\"mappings\":%llu,\"size\":%llu,\"rss\":%llu,\"anon_huge_pages\":%llu,\"pmd_mapped\":%llu,"
		      "\"hugetlb\":%llu,\"swap\":%llu,\"thp_eligible\":%llu,\"hg\":%llu,\"nh\":%llu}",
		      (unsigned long long)k->mappings, (unsigned long long)k->size, (unsigned long long)k->rss,
		      (unsigned long long)k->anon_huge, (unsigned long long)k->pmd_mapped,
		      (unsigned long long)k->hugetlb, (unsigned long long)k->swap,
		      (unsigned long long)k->thp_eligible, (unsigned long long)k->hg, (unsigned long long)k->nh);
}

static const char *tf(int v)
{
	return v ? "true" : "false";
}

/* -1: unknown */
static void json_int(struct hp_buf *b, int v)
{
	if (v >= 0)
		hp_buf_printf(b, "%d", v);
	else
		hp_buf_printf(b, "null");
}

/* "live": how it was read, or why not (null: not loaded); "report": the
 * report's keys (null: not read) */
static void json_live(const struct hp_inspection *in, struct hp_buf *b)
{
	const struct hp_live *l = &in->live;
	if (in->live_state == HP_LIVE_NONE) {
		hp_buf_printf(b, ",\"live\":null,\"report\":null");
	} else if (in->live_state == HP_LIVE_UNREAD) {
		hp_buf_printf(b, ",\"live\":{\"read\":false,\"why\":");
		hp_json_str(b, in->live_why);
		hp_buf_printf(b, "},\"report\":null");
	} else {
		hp_buf_printf(b, ",\"live\":{\"read\":true,\"how\":\"%s\",\"address\":\"0x%llx\",\"writes\":%llu,"
			      "\"written_ns_ago\":%lld,\"stats_ns_ago\":", in->live_how, (unsigned long long)in->live_addr,
			      (unsigned long long)(l->seq / 2), (long long)(in->live_now_ns - l->counters_ns));
		if (l->stats_ns)
			hp_buf_printf(b, "%lld", (long long)(in->live_now_ns - l->stats_ns));
		else
			hp_buf_printf(b, "null");
		hp_buf_printf(b, "},\"report\":{");
		hp_report_keys(&l->snap, 1, b);
		hp_buf_printf(b, "}");
	}
}

static void json_process(const struct hp_inspection *in, struct hp_buf *b)
{
	const struct hp_smaps *s = &in->smaps;
	hp_buf_printf(b, "{\"pid\":%d,\"name\":", in->pid);
	hp_json_str(b, in->name);
	hp_buf_printf(b, ",\"thp\":{\"enabled\":\"%s\",\"defrag\":", hp_thp_name(in->probe.thp_enabled));
	hp_json_str(b, in->probe.thp_defrag);
	hp_buf_printf(b, ",\"process_thp_enabled\":");
	json_int(b, in->thp_status);
	hp_buf_printf(b, "},\"hugepolicy\":{\"loaded\":%s,\"library\":", tf(s->hugepolicy[0]));
	if (s->hugepolicy[0])
		hp_json_str(b, s->hugepolicy);
	else
		hp_buf_printf(b, "null");
	/* the report's names (hugepolicy(7)) for what it and the environment share */
	const struct hp_report_snap *r = &in->live.snap;
	if (in->live_state == HP_LIVE_READ) {
		hp_buf_printf(b, ",\"source\":\"live\",\"plan.backend\":");
		hp_json_str(b, r->backend);
		hp_buf_printf(b, ",\"plan.pages\":\"%s\",\"opt.pages\":\"%s\",\"plan.pages_reason\":",
			      hp_pages_name(r->plan.pages), hp_pages_name(r->opt.pages));
		hp_json_str(b, r->plan.pages_reason);
	} else if (in->have_plan) {
		hp_buf_printf(b, ",\"source\":\"environ\",\"plan.backend\":\"%s\",\"plan.pages\":\"%s\","
			      "\"opt.pages\":\"%s\",\"plan.pages_reason\":", hp_backend_name(in->plan.backend),
			      hp_pages_name(in->plan.pages), hp_pages_name(in->plan.pages_requested));
		hp_json_str(b, in->plan.pages_reason);
	} else if (s->hugepolicy[0]) {
		hp_buf_printf(b, ",\"source\":null,\"plan.backend\":null,\"plan.pages\":null,\"opt.pages\":null,"
			      "\"plan.pages_reason\":");
		hp_json_str(b, environ_blank);
	}
	json_live(in, b);
	hp_buf_printf(b, "},\"allocators\":");
	hp_json_str(b, s->allocators);
	hp_buf_printf(b, ",\"environ\":[");
	for (int i = 0; i < in->nenv; i++) {
		hp_buf_printf(b, i ? "," : "");
		hp_json_str(b, in->env[i]);
	}
	hp_buf_printf(b, "]");
}

static void json(const struct hp_inspection *in, const struct advice *a, struct hp_buf *b)
{
	const struct hp_smaps *s = &in->smaps;
	json_process(in, b);
	hp_buf_printf(b, ",\"kinds\":{");
	for (int k = 0; k < HP_KIND_COUNT; k++) {
		hp_buf_printf(b, "%s\"%s\":", k ? "," : "", hp_kind_name(k));
		json_kind(b, &s->kinds[k]);
	}
	hp_buf_printf(b, "},\"total\":");
	json_kind(b, &s->total);
	hp_buf_printf(b, ",\"mappings\":[");
	for (int i = 0; i < s->ntop; i++) {
		const struct hp_vma *v = &s->top[i];
		hp_buf_printf(b, "%s{\"start\":\"0x%llx\",\"end\":\"0x%llx\",\"perms\":\"%s\",\"kind\":\"%s\",\"name\":",
			      i ? "," : "", (unsigned long long)v->start, (unsigned long long)v->end, v->perms,
			      hp_kind_name(v->kind));
		hp_json_str(b, v->name);
		hp_buf_printf(b, ",\"size\":%llu,\"rss\":%llu,\"anon_huge_pages\":%llu,\"hugetlb\":%llu,\"thp_eligible\":",
			      (unsigned long long)(v->end - v->start), (unsigned long long)v->rss,
			      (unsigned long long)v->anon_huge, (unsigned long long)v->hugetlb);
		json_int(b, v->thp_eligible);
		hp_buf_printf(b, ",\"hg\":%s,\"nh\":%s,\"not_huge\":%llu,\"why\":", tf(v->hg), tf(v->nh),
			      (unsigned long long)v->not_huge);
		hp_buf_printf(b, "%s%s%s}", v->why >= 0 ? "\"" : "", v->why >= 0 ? hp_why_name(v->why) : "null",
			      v->why >= 0 ? "\"" : "");
	}
	hp_buf_printf(b, "],\"not_huge\":{");
	for (int w = 0; w < HP_WHY_COUNT; w++)
		hp_buf_printf(b, "%s\"%s\":{\"bytes\":%llu,\"mappings\":%llu}", w ? "," : "", hp_why_name(w),
			      (unsigned long long)s->why_bytes[w], (unsigned long long)s->why_mappings[w]);
	hp_buf_printf(b, "},\"pools\":[");
	for (int i = 0; i < in->probe.npools; i++) {
		const struct hp_pool *q = &in->probe.pools[i];
		hp_buf_printf(b, "%s{\"page_size\":%llu,\"total\":%llu,\"free\":%llu,\"reserved\":%llu,"
			      "\"available\":%llu,\"cgroup_max\":%lld,\"cgroup_where\":", i ? "," : "",
			      (unsigned long long)q->page_size, (unsigned long long)q->total,
			      (unsigned long long)q->free, (unsigned long long)q->resv,
			      (unsigned long long)hp_pool_available(q), (long long)q->cg_max);
		hp_json_str(b, q->cg_where);
		hp_buf_printf(b, "}");
	}
	hp_buf_printf(b, "],\"advice\":[");
	for (int i = 0; i < a->n; i++) {
		hp_buf_printf(b, i ? "," : "");
		hp_json_str(b, a->lines[i]);
	}
	hp_buf_printf(b, "]}\n");
}

void hp_inspect_format(const struct hp_inspection *in, int as_json, struct hp_buf *b)
{
	static struct advice a;
	a.n = 0;
	advise(in, &a);
	if (as_json)
		json(in, &a, b);
	else
		text(in, &a, b);
}
