/*
 * probe_format.c - the probe as `hugepolicy probe` prints it, text or JSON:
 * kernel and page sizes, THP (enabled, defrag, shmem, per size, khugepaged),
 * the process's switch, the pools like `hugeadm --pool-list` (Minimum,
 * Current, Maximum = Minimum + overcommit, Free, Rsvd, Surp, the default size
 * marked), what auto picks per backend, one line of advice per problem
 * (probe_advice.c) and the files refused.  Names from the machine (cgroup
 * paths) are escaped as every echoed value; fixed buffers only.
 */
#include "hp_policy.h"

#include <string.h>

static void auto_plan(const struct hp_probe *p, int backend, struct hp_plan *pl)
{
	struct hp_options o;
	hp_options_defaults(&o);
	o.backend = backend;
	o.pages = HP_PAGES_AUTO;
	hp_plan_make(&o, p, pl);
}

static const char *yes(int v)
{
	return v ? "yes" : "no";
}

static void text_thp(const struct hp_probe *p, struct hp_buf *b)
{
	char s[24];
	hp_buf_printf(b, "THP enabled       %s%s\n", hp_thp_name(p->thp_enabled),
		      p->thp_process_off == HP_THP_OFF_ALL ? " (but disabled for this process: PR_SET_THP_DISABLE)"
		      : p->thp_process_off == HP_THP_OFF_EXCEPT_ADVISED ? " (madvise-only for this process: "
		      "PR_THP_DISABLE_EXCEPT_ADVISED)" : "");
	hp_buf_printf(b, "THP defrag        %s\n", p->thp_defrag[0] ? p->thp_defrag : "missing");
	hp_buf_printf(b, "THP shmem         %s\n", p->thp_shmem[0] ? p->thp_shmem : "missing");
	hp_buf_printf(b, "THP per size      %s", p->nthp_sizes ? "" : "missing");
	for (int i = 0; i < p->nthp_sizes; i++) {
		hp_size_name(p->thp_sizes[i].size, s, sizeof s);
		hp_buf_printf(b, "%s%s %s", i ? ", " : "", s, hp_thp_name(p->thp_sizes[i].enabled));
	}
	int shown = 0;
	for (int i = 0; i < p->nthp_sizes; i++) {
		const struct hp_thp_size *t = &p->thp_sizes[i];
		if (t->size >= (p->pmd_size ? p->pmd_size : HP_HUGE_2M))
			continue;
		int m = hp_thp_size_mode(p, t->size, p->thp_process_off);
		if (m == HP_THP_NEVER)
			continue;
		shown++;
		char z[24];
		hp_size_name(t->size, z, sizeof z);
		hp_buf_printf(b, "\nmTHP              %s %s: %s", z, hp_thp_name(m), m == HP_THP_ALWAYS ?
			      "every anonymous fault may take it (nothing to advise)" :
			      "MADV_HUGEPAGE brings it (what auto does with it: the mthp lines below)");
	}
	if (!shown && p->nthp_sizes)
		hp_buf_printf(b, "\nmTHP              no size below the PMD size enabled");
	hp_buf_printf(b, "\nmax_ptes_none     %d\n", p->max_ptes_none);
	hp_buf_printf(b, "khugepaged        defrag %d, pages_to_scan %lld, scan_sleep_millisecs %lld, max_ptes_none %d\n",
		      p->khugepaged_defrag, (long long)p->pages_to_scan, (long long)p->scan_sleep_ms, p->max_ptes_none);
	hp_buf_printf(b, "process THP       %s\n", p->thp_process_off == HP_THP_OFF_ALL ? "all (PR_SET_THP_DISABLE)"
		      : p->thp_process_off == HP_THP_OFF_EXCEPT_ADVISED ? "except-advised (PR_SET_THP_DISABLE, "
		      "PR_THP_DISABLE_EXCEPT_ADVISED)" : "none");
	hp_buf_printf(b, "kernel features   MADV_POPULATE_WRITE %s, MADV_COLLAPSE %s, PR_THP_DISABLE_EXCEPT_ADVISED %s\n",
		      yes(p->populate_write_ok), yes(p->collapse_ok), yes(p->thp_except_advised_ok));
}

static void text_pools(const struct hp_probe *p, struct hp_buf *b)
{
	hp_buf_printf(b, "hugetlb pools     page size   total    free    rsvd    surp  overcommit  available  cgroup max\n");
	for (int i = 0; i < p->npools; i++) {
		const struct hp_pool *q = &p->pools[i];
		char cg[200], where[160];
		struct hp_buf cb = { cg, sizeof cg, 0 }, wb = { where, sizeof where, 0 };
		where[0] = cg[0] = '\0';
		hp_buf_escaped(&wb, q->cg_where, sizeof q->cg_where);
		if (q->cg_error) hp_buf_printf(&cb, "unknown, so 0 available (%s)", where);
		else if (q->cg_max >= 0) hp_buf_printf(&cb, "%lld B, %lld B used (%s)", (long long)q->cg_max,
							(long long)q->cg_current, where);
		else hp_buf_printf(&cb, "none (%s)", where);
		hp_buf_printf(b, "                  %6llu kB %7llu %7llu %7llu %7llu %11llu %10llu  %s\n",
			      (unsigned long long)(q->page_size >> 10), (unsigned long long)q->total,
			      (unsigned long long)q->free, (unsigned long long)q->resv,
			      (unsigned long long)q->surp, (unsigned long long)q->overcommit,
			      (unsigned long long)hp_pool_available(q), cg);
	}
	/* hugeadm --pool-list: Minimum = persistent pages, Maximum = with surplus */
	hp_buf_printf(b, "pool list               Size  Minimum  Current  Maximum     Free     Rsvd     Surp  Default\n");
	for (int i = 0; i < p->npools; i++) {
		const struct hp_pool *q = &p->pools[i];
		uint64_t min = q->total > q->surp ? q->total - q->surp : 0;
		hp_buf_printf(b, "                  %10llu %8llu %8llu %8llu %8llu %8llu %8llu  %s\n",
			      (unsigned long long)q->page_size, (unsigned long long)min, (unsigned long long)q->total,
			      (unsigned long long)(min + q->overcommit), (unsigned long long)q->free,
			      (unsigned long long)q->resv, (unsigned long long)q->surp,
			      q->page_size == p->default_huge ? "*" : "");
	}
}

static void text(const struct hp_probe *p, struct hp_buf *b)
{
	char s[24], advice[HP_ADVICE_MAX][HP_ADVICE_LEN];
	hp_buf_printf(b, "kernel            %s\n", p->kernel);
	hp_size_name(p->base_page_size, s, sizeof s);
	hp_buf_printf(b, "base page size    %s\n", p->base_page_size ? s : "unknown");
	hp_size_name(p->pmd_size, s, sizeof s);
	hp_buf_printf(b, "PMD size          %s\n", p->pmd_size ? s : "unknown");
	text_thp(p, b);
	hp_buf_printf(b, "NUMA nodes        %d\n", p->numa_nodes);
	/* cgroup names are anybody's bytes: escaped, as every echoed value */
	hp_buf_printf(b, "cgroup            ");
	hp_buf_escaped(b, p->cgroup[0] ? p->cgroup : "(unknown)", sizeof p->cgroup);
	hp_size_name(p->default_huge, s, sizeof s);
	hp_buf_printf(b, "\ndefault hugepage  %s\n", p->default_huge ? s : "unknown");
	text_pools(p, b);
	for (int be = 0; be < HP_BACKEND_COUNT; be++) {
		struct hp_plan pl;
		auto_plan(p, be, &pl);
		hp_buf_printf(b, "auto (%-8s)   %s: %s\n", hp_backend_name(be), hp_pages_name(pl.pages), pl.pages_reason);
		if (pl.thp_process != HP_THP_PROC_KEEP || pl.thp_small_nohuge || p->thp_enabled == HP_THP_ALWAYS ||
		    p->thp_process_off != HP_THP_OFF_NONE)
			hp_buf_printf(b, "auto (%-8s)   thp_process %s, small_nohuge %d: %s; %s\n", hp_backend_name(be),
				      hp_thp_process_name(pl.thp_process), pl.thp_small_nohuge, pl.thp_process_reason,
				      pl.thp_small_reason);
		if (pl.mthp != HP_MTHP_NONE)
			hp_buf_printf(b, "auto (%-8s)   mthp %s: %s\n", hp_backend_name(be), hp_mthp_name(pl.mthp),
				      pl.mthp_reason);
	}
	int n = hp_probe_advice(p, advice, HP_ADVICE_MAX);
	for (int i = 0; i < n; i++) {
		hp_buf_printf(b, "advice            ");
		hp_buf_escaped(b, advice[i], HP_ADVICE_LEN);
		hp_buf_printf(b, "\n");
	}
	for (int i = 0; i < p->nproblems && i < HP_PROBE_PROBLEMS; i++) {
		hp_buf_printf(b, "refused           ");
		hp_buf_escaped(b, p->problems[i], sizeof p->problems[i]);
		hp_buf_printf(b, "\n");
	}
}

static void json_thp(const struct hp_probe *p, struct hp_buf *b)
{
	hp_buf_printf(b, ",\"thp\":{\"enabled\":\"%s\",\"defrag\":", hp_thp_name(p->thp_enabled));
	hp_json_str(b, p->thp_defrag[0] ? p->thp_defrag : "missing");
	hp_buf_printf(b, ",\"shmem_enabled\":");
	hp_json_str(b, p->thp_shmem[0] ? p->thp_shmem : "missing");
	hp_buf_printf(b, ",\"max_ptes_none\":%d,\"process_disabled\":%s,\"process\":\"%s\",\"per_size\":[",
		      p->max_ptes_none, p->thp_process_off == HP_THP_OFF_ALL ? "true" : "false",
		      hp_thp_off_name(p->thp_process_off));
	for (int i = 0; i < p->nthp_sizes; i++)
		hp_buf_printf(b, "%s{\"size\":%llu,\"enabled\":\"%s\"}", i ? "," : "",
			      (unsigned long long)p->thp_sizes[i].size, hp_thp_name(p->thp_sizes[i].enabled));
	/* the mode the kernel applies to this process (inherit resolved, the
	 * process switch applied) */
	hp_buf_printf(b, "],\"per_size_effective\":[");
	for (int i = 0; i < p->nthp_sizes; i++)
		hp_buf_printf(b, "%s{\"size\":%llu,\"mode\":\"%s\"}", i ? "," : "",
			      (unsigned long long)p->thp_sizes[i].size,
			      hp_thp_name(hp_thp_size_mode(p, p->thp_sizes[i].size, p->thp_process_off)));
	hp_buf_printf(b, "],\"khugepaged\":{\"defrag\":%d,\"pages_to_scan\":%lld,\"scan_sleep_millisecs\":%lld,"
		      "\"max_ptes_none\":%d}}", p->khugepaged_defrag, (long long)p->pages_to_scan,
		      (long long)p->scan_sleep_ms, p->max_ptes_none);
	hp_buf_printf(b, ",\"features\":{\"populate_write\":%s,\"collapse\":%s,\"thp_disable_except_advised\":%s}",
		      p->populate_write_ok ? "true" : "false", p->collapse_ok ? "true" : "false",
		      p->thp_except_advised_ok ? "true" : "false");
}

static void json(const struct hp_probe *p, struct hp_buf *b)
{
	char advice[HP_ADVICE_MAX][HP_ADVICE_LEN];
	hp_buf_printf(b, "{\"kernel\":");
	hp_json_str(b, p->kernel);
	hp_buf_printf(b, ",\"base_page_size\":%llu,\"pmd_size\":%llu,\"default_hugepage_size\":%llu",
		      (unsigned long long)p->base_page_size, (unsigned long long)p->pmd_size,
		      (unsigned long long)p->default_huge);
	json_thp(p, b);
	hp_buf_printf(b, ",\"numa_nodes\":%d,\"cgroup\":", p->numa_nodes);
	hp_json_str(b, p->cgroup);
	hp_buf_printf(b, ",\"hugetlb_pools\":[");
	for (int i = 0; i < p->npools; i++) {
		const struct hp_pool *q = &p->pools[i];
		uint64_t min = q->total > q->surp ? q->total - q->surp : 0;
		/* flat objects, page_size first (tests and perf/ grep them) */
		hp_buf_printf(b, "%s{\"page_size\":%llu,\"total\":%llu,\"free\":%llu,\"reserved\":%llu,"
			      "\"surplus\":%llu,\"overcommit\":%llu,\"available\":%llu,\"cgroup_max\":%lld,\"cgroup_current\":%lld,"
			      "\"cgroup_error\":%d,\"minimum\":%llu,\"maximum\":%llu,\"default\":%s,\"cgroup_where\":",
			      i ? "," : "", (unsigned long long)q->page_size, (unsigned long long)q->total,
			      (unsigned long long)q->free, (unsigned long long)q->resv,
			      (unsigned long long)q->surp, (unsigned long long)q->overcommit,
			      (unsigned long long)hp_pool_available(q), (long long)q->cg_max, (long long)q->cg_current,
			      q->cg_error, (unsigned long long)min, (unsigned long long)(min + q->overcommit),
			      q->page_size == p->default_huge ? "true" : "false");
		hp_json_str(b, q->cg_where);
		hp_buf_printf(b, "}");
	}
	hp_buf_printf(b, "],\"auto\":{");
	for (int be = 0; be < HP_BACKEND_COUNT; be++) {
		struct hp_plan pl;
		auto_plan(p, be, &pl);
		hp_buf_printf(b, "%s\"%s\":{\"pages\":\"%s\",\"reason\":", be ? "," : "", hp_backend_name(be),
			      hp_pages_name(pl.pages));
		hp_json_str(b, pl.pages_reason);
		hp_buf_printf(b, ",\"thp_process\":\"%s\",\"thp_process_reason\":", hp_thp_process_name(pl.thp_process));
		hp_json_str(b, pl.thp_process_reason);
		hp_buf_printf(b, ",\"thp_small_nohuge\":%d,\"thp_small_reason\":", pl.thp_small_nohuge);
		hp_json_str(b, pl.thp_small_reason);
		hp_buf_printf(b, ",\"mthp\":\"%s\",\"mthp_sizes\":[", hp_mthp_name(pl.mthp));
		for (int k = 0, n = 0; k < 32; k++)
			if (pl.mthp_advised & (1u << k))
				hp_buf_printf(b, "%s%llu", n++ ? "," : "", 1ull << k);
		hp_buf_printf(b, "],\"mthp_min\":%llu,\"mthp_guard\":%s,\"mthp_reason\":",
			      (unsigned long long)pl.mthp_min, pl.mthp_guard ? "true" : "false");
		hp_json_str(b, pl.mthp_reason);
		hp_buf_printf(b, "}");
	}
	hp_buf_printf(b, "},\"advice\":[");
	int n = hp_probe_advice(p, advice, HP_ADVICE_MAX);
	for (int i = 0; i < n; i++) {
		hp_buf_printf(b, "%s", i ? "," : "");
		hp_json_str(b, advice[i]);
	}
	hp_buf_printf(b, "],\"refused\":[");
	for (int i = 0; i < p->nproblems && i < HP_PROBE_PROBLEMS; i++) {
		hp_buf_printf(b, "%s", i ? "," : "");
		hp_json_str(b, p->problems[i]);
	}
	hp_buf_printf(b, "]}\n");
}

void hp_probe_format(const struct hp_probe *p, int json_out, struct hp_buf *b)
{
	if (json_out)
		json(p, b);
	else
		text(p, b);
}
