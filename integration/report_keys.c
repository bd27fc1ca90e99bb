/*
 * report_keys.c - the report's keys: one table, name -> value, in the
 * habit of jemalloc's mallctl namespace and mimalloc's option table.
 *
 *   pid, program, version   which process
 *   opt.*        every option of policy/options.c's table, as it took effect
 *   plan.*       the plan's decisions, each with its reason (X, X_reason)
 *   backend.*    the backend's own settings read back from it
 *   stats.*      the allocator's numbers (jemalloc's stats.* names)
 *   process.*    the kernel's numbers of the process (smaps_rollup, getrusage,
 *                pagemap for mTHP folios)
 *   system.*     the kernel's system-wide counters, their rise since start-up
 *   hugetlb.*    hugetlb mappings hugepolicy made, in all and per pool
 *   promote.*    auto's whole-heap THP (pages/heap_promote.c)
 *   fork.*       what fork() did with hugetlb memory (pages/hugetlb_fork.c)
 *   fault.*      auto's fault costs (pages/fault_cost.c), where they decide
 *   region.*     huge-page regions
 *
 * Invariants: the text and the JSON report are this table in its order,
 * the same keys in both; adding a key is adding a row (and its line in
 * hugepolicy(7), which tests/test_report_keys.py checks); a row whose
 * name holds <size> gives one key per instance.  Uses fixed buffers and no
 * malloc: the report may run inside the host's last free.  Reads only the
 * snapshot (hp_report.h), never the process: `hugepolicy inspect` composes
 * another process's live report with this same table.
 */
#define _GNU_SOURCE
#include "hp_report.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum { NUM, INT, STR, BOOL };

struct value {
	int type;
	uint64_t num;           /* NUM: HUGEPOLICY_UNKNOWN prints null / unknown */
	int64_t i;              /* INT */
	int yes;                /* BOOL */
	const char *str;        /* STR */
};

struct key {
	const char *name;
	int type;
	size_t off;             /* the field in the snapshot, when get is NULL */
	void (*get)(const struct hp_report_snap *s, int i, struct value *v, char *tmp, size_t cap);
	unsigned need;          /* snapshot groups the key needs (0: always there) */
	/* instances of a <size> row: 1 and the i-th's name, 0 past the last */
	int (*each)(const struct hp_report_snap *s, int i, char *name, size_t cap);
};

#define FIELD(t, n, f, need) { n, t, offsetof(struct hp_report_snap, f), NULL, need, NULL }
#define GET(t, n, fn, need) { n, t, 0, fn, need, NULL }
#define EACH(t, n, fn, each) { n, t, 0, fn, 0, each }

/* ---- getters of values that are not a field as they are ---- */
#define GETTER(fn) static void fn(const struct hp_report_snap *s, int i, struct value *v, char *tmp, size_t cap)
#define UNUSED (void)s; (void)i; (void)tmp; (void)cap

GETTER(g_pid) { UNUSED; v->num = (uint64_t)s->pid; }
GETTER(g_opt_backend) { UNUSED; v->str = hp_backend_name(s->opt.backend); }
GETTER(g_opt_pages) { UNUSED; v->str = hp_pages_name(s->opt.pages); }
GETTER(g_opt_verbose) { UNUSED; v->yes = s->opt.verbose; }
GETTER(g_opt_stats)
{
	UNUSED;
	v->str = s->opt.stats == HP_STATS_JSON ? "json" : s->opt.stats == HP_STATS_TEXT ? "text" : "off";
}
GETTER(g_opt_fork) { UNUSED; v->str = s->opt.fork_copy ? "copy" : "inherit"; }
GETTER(g_opt_report_pid) { UNUSED; v->num = (uint64_t)s->opt.report_pid; }
GETTER(g_opt_fault_cost)
{
	UNUSED;
	if (s->opt.fault_cost != HP_ADAPT_PINNED) {
		v->str = s->opt.fault_cost == HP_ADAPT_OFF ? "off" : "measure";
		return;
	}
	snprintf(tmp, cap, "%llu.%03llu,%llu.%03llu", (unsigned long long)(s->opt.fault_base_ns / 1000),
		 (unsigned long long)(s->opt.fault_base_ns % 1000), (unsigned long long)(s->opt.fault_thp_ns / 1000),
		 (unsigned long long)(s->opt.fault_thp_ns % 1000));
	v->str = tmp;
}
GETTER(g_opt_report_stderr)
{
	UNUSED;
	if (s->opt.report_stderr == HP_STDERR_FILE)
		snprintf(tmp, cap, "%llu:%llu", s->opt.report_stderr_dev, s->opt.report_stderr_ino);
	else
		hp_strlcpy(tmp, s->opt.report_stderr == HP_STDERR_NONE ? "none" : "", cap);
	v->str = tmp;
}
GETTER(g_pages) { UNUSED; v->str = hp_pages_name(s->plan.pages); }
GETTER(g_thp_scope) { UNUSED; v->str = s->plan.thp_scope == HP_THP_ALL ? "all" : "large"; }
GETTER(g_thp_available) { UNUSED; v->yes = s->plan.thp_available; }
GETTER(g_thp_switch) { UNUSED; v->str = hp_thp_process_name(s->plan.thp_process); }
GETTER(g_small_nohuge) { UNUSED; v->yes = s->plan.thp_small_nohuge; }
static const char *adapt_name(int adapt)
{
	return adapt == HP_ADAPT_MEASURE ? "measure" : adapt == HP_ADAPT_PINNED ? "pinned" : "off";
}
GETTER(g_plan_fault_cost) { UNUSED; v->str = adapt_name(s->plan.adapt); }
GETTER(g_plan_fork) { UNUSED; v->str = s->plan.fork_copy ? "copy" : "inherit"; }
GETTER(g_user_wins) { UNUSED; v->yes = s->bs.user_wins; }
GETTER(g_pool_retain) { UNUSED; v->yes = s->bs.pool_retain; }

/* hugetlb.pool.<size>.*: "2048kB", the kernel's hugepages-<size> words */
static int each_pool(const struct hp_report_snap *s, int i, char *name, size_t cap)
{
	if (i >= s->npools)
		return 0;
	if (s->pools[i].page_size)
		snprintf(name, cap, "%llukB", (unsigned long long)(s->pools[i].page_size >> 10));
	else
		hp_strlcpy(name, "unknown", cap);     /* regions made before their size was recorded */
	return 1;
}
GETTER(g_pool_maps) { UNUSED; v->num = s->pools[i].maps; }
GETTER(g_pool_bytes) { UNUSED; v->num = s->pools[i].bytes; }
GETTER(g_pool_refused) { UNUSED; v->num = s->pools[i].refused; }
GETTER(g_pool_refused_bytes) { UNUSED; v->num = s->pools[i].refused_bytes; }

GETTER(g_promote_state) { UNUSED; v->str = hp_promote_state_name(s->promote.state); }
/* the heap is not watched where the plan never promotes it */
static uint64_t watched(const struct hp_report_snap *s, uint64_t n)
{
	return s->promote.state == HP_PROMOTE_STATE_OFF ? HUGEPOLICY_UNKNOWN : n;
}
GETTER(g_promote_resident) { UNUSED; v->num = watched(s, s->promote.resident); }
GETTER(g_promote_mapped) { UNUSED; v->num = watched(s, s->promote.mapped); }
GETTER(g_promote_big_blocks) { UNUSED; v->num = watched(s, s->promote.big_blocks); }
GETTER(g_promote_sample_resident)
{
	UNUSED;
	v->num = s->promote.samples ? s->promote.sample_resident : HUGEPOLICY_UNKNOWN;
}
GETTER(g_promote_sample_mapped) { UNUSED; v->num = s->promote.samples ? s->promote.sample_mapped : HUGEPOLICY_UNKNOWN; }
static int promoted(const struct hp_report_snap *s)
{
	return s->promote.state == HP_PROMOTE_STATE_PROMOTED || s->promote.state == HP_PROMOTE_STATE_PAUSED;
}
GETTER(g_promote_at_resident) { UNUSED; v->num = promoted(s) ? s->promote.at_resident : HUGEPOLICY_UNKNOWN; }
GETTER(g_promote_at_mapped) { UNUSED; v->num = promoted(s) ? s->promote.at_mapped : HUGEPOLICY_UNKNOWN; }
GETTER(g_plan_mthp) { UNUSED; v->str = hp_mthp_name(s->plan.mthp); }
/* process.mthp.<size>, system.mthp.<size>.fault_alloc: per size below the
 * PMD size the plan names (advised or the kernel's); the i-th one's log2,
 * 32 past the last */
static int mthp_k(const struct hp_report_snap *s, int i)
{
	int k = 0;
	for (int n = 0; k < 32; k++)
		if ((s->mthp.sizes & (1u << k)) && n++ == i)
			break;
	return k;
}
static int each_mthp(const struct hp_report_snap *s, int i, char *name, size_t cap)
{
	int k = mthp_k(s, i);
	if (k == 32)
		return 0;
	snprintf(name, cap, "%llukB", (unsigned long long)(1ull << k) >> 10);        /* "64kB" */
	return 1;
}
GETTER(g_mthp_folio_bytes) { UNUSED; v->num = s->mthp.folio_bytes[mthp_k(s, i)]; }
GETTER(g_mthp_fault_alloc) { UNUSED; v->num = s->mthp.fault_alloc[mthp_k(s, i)]; }

GETTER(g_fork_pool_kept) { UNUSED; v->yes = s->fork.pool_kept; }
GETTER(g_fork_cgroup_limited) { UNUSED; v->yes = s->fork.cgroup_limited; }

GETTER(g_fault_verdict)
{
	UNUSED;
	static const char *const names[] = { [HP_PAYS_FIXED] = "fixed", [HP_PAYS_UNKNOWN] = "unknown",
		[HP_PAYS_NO_THP] = "no-thp", [HP_PAYS_YES] = "yes", [HP_PAYS_NO] = "no" };
	int w = s->fault.verdict;
	v->str = w >= 0 && w <= HP_PAYS_NO ? names[w] : "?";
	if (s->fault.adapt == HP_ADAPT_MEASURE && !s->fault.measurements)
		v->str = "unknown";
}
GETTER(g_fault_base_ns) { UNUSED; v->num = s->fault.costs.base_ns ? s->fault.costs.base_ns : HUGEPOLICY_UNKNOWN; }
GETTER(g_fault_thp_ns) { UNUSED; v->num = s->fault.costs.thp_ns ? s->fault.costs.thp_ns : HUGEPOLICY_UNKNOWN; }

#define JE HP_BS_JEMALLOC
#define ARENA HP_BS_HUGE_ARENA
#define POOL HP_BS_ARENA_POOL
#define MI HP_BS_MIMALLOC
#define FAULT HP_SNAP_FAULT
#define MTHP HP_SNAP_MTHP

static const struct key keys[] = {
	GET(NUM, "pid", g_pid, 0),
	FIELD(STR, "program", program, 0),
	FIELD(STR, "version", version, 0),

	GET(STR, "opt.backend", g_opt_backend, 0),
	GET(STR, "opt.pages", g_opt_pages, 0),
	FIELD(NUM, "opt.threshold", opt.threshold, 0),
	FIELD(NUM, "opt.reserve", opt.reserve, 0),
	GET(BOOL, "opt.verbose", g_opt_verbose, 0),
	GET(STR, "opt.stats", g_opt_stats, 0),
	FIELD(STR, "opt.log", log, 0),
	GET(STR, "opt.fork", g_opt_fork, 0),
	GET(NUM, "opt.report_pid", g_opt_report_pid, 0),
	FIELD(NUM, "opt.hugetlb_size", opt.hugetlb_size, 0),
	FIELD(NUM, "opt.promote", opt.promote, 0),
	GET(STR, "opt.fault_cost", g_opt_fault_cost, 0),
	GET(STR, "opt.report_stderr", g_opt_report_stderr, 0),

	FIELD(STR, "plan.backend", backend, 0),
	FIELD(STR, "plan.backend_reason", backend_source, 0),
	GET(STR, "plan.pages", g_pages, 0),
	FIELD(STR, "plan.pages_reason", plan.pages_reason, 0),
	GET(STR, "plan.thp_scope", g_thp_scope, 0),
	GET(BOOL, "plan.thp_available", g_thp_available, 0),
	FIELD(NUM, "plan.threshold", plan.threshold, 0),
	FIELD(NUM, "plan.hugetlb_min", plan.hugetlb_min, 0),
	FIELD(NUM, "plan.hugetlb_page", plan.hugetlb_page, 0),
	FIELD(NUM, "plan.hugetlb_big_page", plan.hugetlb_big_page, 0),
	FIELD(NUM, "plan.hugetlb_big_min", plan.hugetlb_big_min, 0),
	FIELD(STR, "plan.hugetlb_size_reason", plan.hugetlb_size_reason, 0),
	FIELD(NUM, "plan.pool_available", plan.pool_available, 0),
	FIELD(NUM, "plan.reserve", plan.reserve, 0),
	GET(STR, "plan.thp_switch", g_thp_switch, 0),
	FIELD(STR, "plan.thp_switch_reason", plan.thp_process_reason, 0),
	GET(BOOL, "plan.small_nohuge", g_small_nohuge, 0),
	FIELD(STR, "plan.small_nohuge_reason", plan.thp_small_reason, 0),
	GET(STR, "plan.mthp", g_plan_mthp, 0),
	FIELD(NUM, "plan.mthp_min", plan.mthp_min, 0),
	FIELD(STR, "plan.mthp_reason", plan.mthp_reason, 0),
	FIELD(NUM, "plan.promote", plan.promote_min, 0),
	FIELD(STR, "plan.promote_reason", plan.promote_reason, 0),
	GET(STR, "plan.fault_cost", g_plan_fault_cost, 0),
	FIELD(STR, "plan.fault_cost_reason", plan.adapt_reason, 0),
	GET(STR, "plan.fork", g_plan_fork, 0),

	FIELD(STR, "backend.version", bs.version, 0),
	FIELD(STR, "backend.user_setting", bs.user, HP_BS_USER),
	GET(BOOL, "backend.user_setting_wins", g_user_wins, HP_BS_USER),
	FIELD(STR, "backend.opt.thp", bs.opt_thp, JE),
	FIELD(STR, "backend.opt.metadata_thp", bs.opt_metadata_thp, JE),
	FIELD(NUM, "backend.opt.oversize_threshold", bs.opt_oversize_threshold, JE),
	FIELD(NUM, "backend.huge_arena.index", bs.huge_arena, ARENA),
	FIELD(NUM, "backend.huge_arena.keep_below", bs.huge_keep_below, ARENA),
	FIELD(NUM, "backend.huge_arena.keep_max", bs.huge_keep_max, ARENA),
	FIELD(INT, "backend.huge_arena.dirty_decay_ms", bs.huge_dirty_decay_ms, ARENA),
	FIELD(INT, "backend.huge_arena.muzzy_decay_ms", bs.huge_muzzy_decay_ms, ARENA),
	FIELD(INT, "backend.huge_arena.default_dirty_decay_ms", bs.huge_default_dirty_decay_ms, ARENA),
	FIELD(NUM, "backend.pool_arenas.blocks", bs.pool_blocks, POOL),
	FIELD(NUM, "backend.pool_arenas.bytes", bs.pool_bytes, POOL),
	FIELD(NUM, "backend.pool_arenas.fallbacks", bs.pool_fallbacks, POOL),
	FIELD(NUM, "backend.pool_arenas.fallback_bytes", bs.pool_fallback_bytes, POOL),
	FIELD(NUM, "backend.pool_arenas.arenas", bs.pool_arenas, POOL),
	FIELD(NUM, "backend.pool_arenas.hooked", bs.pool_hooked, POOL),
	FIELD(NUM, "backend.pool_arenas.retain_grow_limit", bs.pool_retain_grow_limit, POOL),
	GET(BOOL, "backend.pool_arenas.retain", g_pool_retain, POOL),
	FIELD(NUM, "backend.pool_arenas.rounded_bytes", bs.pool_rounded_bytes, POOL),
	FIELD(NUM, "backend.pool_arenas.set_aside_bytes", bs.pool_set_aside_bytes, POOL),
	FIELD(NUM, "backend.pool_arenas.small_extents", bs.pool_small_extents, POOL),
	FIELD(NUM, "backend.arenas_created", bs.arenas_created, HP_BS_ARENAS),
	FIELD(STR, "backend.arenas_created_reason", bs.arenas_reason, HP_BS_ARENAS),
	FIELD(INT, "backend.option.large_os_pages", bs.mi_large_os_pages, MI),
	FIELD(INT, "backend.option.reserve_huge_os_pages", bs.mi_reserve_huge_os_pages, MI),
	FIELD(INT, "backend.option.eager_commit", bs.mi_eager_commit, MI),
	FIELD(STR, "backend.reserve_reason", bs.reserve, HP_BS_RESERVE),
	FIELD(STR, "backend.user_reserve_reason", bs.user_reserve, HP_BS_USER_RESERVE),

	FIELD(NUM, "stats.allocated", st.allocated, 0),
	FIELD(NUM, "stats.active", st.active, 0),
	FIELD(NUM, "stats.metadata", st.metadata, 0),
	FIELD(NUM, "stats.resident", st.resident, 0),
	FIELD(NUM, "stats.mapped", st.mapped, 0),
	FIELD(NUM, "stats.retained", st.retained, 0),
	FIELD(NUM, "stats.bootstrap_bytes", st.bootstrap_bytes, 0),
	FIELD(NUM, "stats.mthp.maps_advised", mthp.maps_advised, MTHP),
	FIELD(NUM, "stats.mthp.bytes_advised", mthp.bytes_advised, MTHP),

	FIELD(NUM, "process.rss", st.rss, 0),
	FIELD(NUM, "process.anon_huge_pages", st.anon_huge, 0),
	FIELD(NUM, "process.hugetlb", st.hugetlb, 0),
	FIELD(NUM, "process.peak_rss", st.peak_rss, 0),
	FIELD(NUM, "process.minor_faults", st.minor_faults, 0),
	FIELD(NUM, "process.major_faults", st.major_faults, 0),
	EACH(NUM, "process.mthp.<size>", g_mthp_folio_bytes, each_mthp),
	EACH(NUM, "system.mthp.<size>.fault_alloc", g_mthp_fault_alloc, each_mthp),

	FIELD(NUM, "hugetlb.blocks", st.hugetlb_blocks, 0),
	FIELD(NUM, "hugetlb.bytes", st.hugetlb_bytes, 0),
	FIELD(NUM, "hugetlb.fallbacks", st.hugetlb_fallbacks, 0),
	FIELD(NUM, "hugetlb.fallback_bytes", st.hugetlb_fallback_bytes, 0),
	EACH(NUM, "hugetlb.pool.<size>.blocks", g_pool_maps, each_pool),
	EACH(NUM, "hugetlb.pool.<size>.bytes", g_pool_bytes, each_pool),
	EACH(NUM, "hugetlb.pool.<size>.refused", g_pool_refused, each_pool),
	EACH(NUM, "hugetlb.pool.<size>.refused_bytes", g_pool_refused_bytes, each_pool),

	GET(STR, "promote.state", g_promote_state, 0),
	FIELD(STR, "promote.reason", promote.reason, 0),
	FIELD(NUM, "promote.samples", promote.samples, 0),
	GET(NUM, "promote.resident", g_promote_resident, 0),
	GET(NUM, "promote.mapped", g_promote_mapped, 0),
	GET(NUM, "promote.big_blocks", g_promote_big_blocks, 0),
	GET(NUM, "promote.sample_resident", g_promote_sample_resident, 0),
	GET(NUM, "promote.sample_mapped", g_promote_sample_mapped, 0),
	GET(NUM, "promote.at_resident", g_promote_at_resident, 0),
	GET(NUM, "promote.at_mapped", g_promote_at_mapped, 0),
	FIELD(NUM, "promote.advised", promote.advised, 0),
	FIELD(NUM, "promote.pauses", promote.pauses, 0),
	FIELD(STR, "promote.cost_reason", promote.cost_reason, 0),

	FIELD(NUM, "fork.children", fork.children, 0),
	FIELD(NUM, "fork.children_shared", fork.children_shared, 0),
	FIELD(NUM, "fork.children_staged", fork.children_staged, 0),
	FIELD(NUM, "fork.children_waited", fork.children_waited, 0),
	FIELD(NUM, "fork.unstaged_bytes", fork.unstaged_bytes, 0),
	FIELD(NUM, "fork.copied_bytes", fork.copied_bytes, 0),
	FIELD(NUM, "fork.moved_bytes", fork.moved_bytes, 0),
	FIELD(NUM, "fork.lost_bytes", fork.lost_bytes, 0),
	FIELD(NUM, "fork.shared_bytes", fork.shared_bytes, 0),
	GET(BOOL, "fork.pool_kept", g_fork_pool_kept, 0),
	GET(BOOL, "fork.cgroup_limited", g_fork_cgroup_limited, 0),

	GET(STR, "fault.verdict", g_fault_verdict, FAULT),
	FIELD(STR, "fault.reason", fault.why, FAULT),
	GET(NUM, "fault.base_ns", g_fault_base_ns, FAULT),
	GET(NUM, "fault.thp_ns", g_fault_thp_ns, FAULT),
	FIELD(NUM, "fault.measurements", fault.measurements, FAULT),
	FIELD(NUM, "fault.blocks_thp", fault.blocks_thp, FAULT),
	FIELD(NUM, "fault.blocks_base", fault.blocks_base, FAULT),
	FIELD(NUM, "fault.probes", fault.probes, FAULT),
	FIELD(NUM, "fault.probes_base", fault.probes_base, FAULT),

	FIELD(NUM, "region.count", st.region_count, 0),
	FIELD(NUM, "region.hugetlb_bytes", st.region_hugetlb_bytes, 0),
	FIELD(NUM, "region.thp_bytes", st.region_thp_bytes, 0),
	FIELD(NUM, "region.base_bytes", st.region_base_bytes, 0),
	FIELD(NUM, "region.stepped_down", st.region_stepped_down, 0),
};

/* the text report's name column */
#define NAME_W 41

static void value_of(const struct key *k, const struct hp_report_snap *s, int i, struct value *v, char *tmp,
		     size_t cap)
{
	const char *field = (const char *)s + k->off;
	memset(v, 0, sizeof *v);
	v->type = k->type;
	if (k->get) {
		k->get(s, i, v, tmp, cap);
		return;
	}
	switch (k->type) {
	case NUM: memcpy(&v->num, field, sizeof v->num); break;
	case INT: memcpy(&v->i, field, sizeof v->i); break;
	case BOOL: memcpy(&v->yes, field, sizeof v->yes); break;
	default: v->str = field; break;
	}
}

static void put(struct hp_buf *b, const char *name, const struct value *v, int json, int *first)
{
	if (json) {
		hp_buf_printf(b, "%s\"%s\":", *first ? "" : ",", name);
		*first = 0;
	} else {
		/* an empty string: the name alone, no trailing blank */
		if (v->type == STR && !v->str[0])
			hp_buf_printf(b, "  %s", name);
		else
			hp_buf_printf(b, "  %-*s ", NAME_W, name);
	}
	switch (v->type) {
	case NUM:
		if (v->num == HUGEPOLICY_UNKNOWN)
			hp_buf_printf(b, "%s", json ? "null" : "unknown");
		else
			hp_buf_printf(b, "%llu", (unsigned long long)v->num);
		break;
	case INT: hp_buf_printf(b, "%lld", (long long)v->i); break;
	case BOOL: hp_buf_printf(b, "%s", v->yes ? "true" : "false"); break;
	default:
		if (json)
			hp_json_str(b, v->str);
		else
			hp_buf_escaped(b, v->str, b->cap);
	}
	if (!json)
		hp_buf_printf(b, "\n");
}

void hp_report_keys(const struct hp_report_snap *s, int json, struct hp_buf *b)
{
	int first = 1;
	for (size_t r = 0; r < sizeof keys / sizeof keys[0]; r++) {
		const struct key *k = &keys[r];
		char name[96], inst[32], tmp[64];
		struct value v;
		if ((s->have & k->need) != k->need)
			continue;
		for (int i = 0; k->each ? k->each(s, i, inst, sizeof inst) : i == 0; i++) {
			if (k->each) {
				const char *at = strstr(k->name, "<size>");
				snprintf(name, sizeof name, "%.*s%s%s", (int)(at - k->name), k->name, inst, at + 6);
			} else {
				hp_strlcpy(name, k->name, sizeof name);
			}
			value_of(k, s, i, &v, tmp, sizeof tmp);
			put(b, name, &v, json, &first);
		}
	}
}
