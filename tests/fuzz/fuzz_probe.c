/* fuzz_probe.c - every /proc and /sys file the probe reads (policy/probe.c,
 * cgroup.c, readfile.c), from the fuzz input (vfs.h's format): THP enabled,
 * defrag, max_ptes_none, the hugetlb pools' directory and counters, the
 * process's cgroup, mountinfo and cgroupfs limits, NUMA nodes online.  Then
 * the plan for every backend and mode, the probe's text and JSON output, and
 * smaps_rollup (pages/pages.c).
 * Properties: the probe's fields stay in range and NUL-terminated, its JSON
 * output is valid JSON, and the plan keeps its rules (its reason is printed
 * through hp_say's escaping, which fuzz_escape covers). */
#include "fuzz.h"
#include "vfs.h"
#include "../../pages/hp_pages.h"
#include "../sanitize/textcheck.h"

#include <string.h>

static char out[1 << 16];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fz_quiet_say();
	return 0;
}

static void check_probe(const struct hp_probe *p)
{
	FZ_CHECK(p->thp_enabled >= HP_THP_ALWAYS && p->thp_enabled <= HP_THP_MISSING);
	FZ_CHECK(memchr(p->thp_defrag, 0, sizeof p->thp_defrag) && memchr(p->cgroup, 0, sizeof p->cgroup));
	FZ_CHECK(memchr(p->kernel, 0, sizeof p->kernel));
	FZ_CHECK(p->npools >= 0 && p->npools <= HP_MAX_POOLS && p->numa_nodes >= 1);
	for (int i = 0; i < p->npools; i++) {
		const struct hp_pool *q = &p->pools[i];
		FZ_CHECK(memchr(q->cg_where, 0, sizeof q->cg_where));
		FZ_CHECK(i == 0 || q->page_size >= p->pools[i - 1].page_size);
		FZ_CHECK(q->cg_error >= 0 && (q->cg_error || q->cg_max >= -1));
	}
}

static void check_plans(const struct hp_probe *p)
{
	for (int be = 0; be < HP_BACKEND_COUNT; be++)
		for (int pg = 0; pg < HP_PAGES_COUNT; pg++) {
			/* an explicit thp clears an inherited switch (plan_thp.c) */
			int thp_ok = (p->thp_enabled == HP_THP_ALWAYS || p->thp_enabled == HP_THP_MADVISE) &&
				     !(p->thp_process_off == HP_THP_OFF_ALL && pg != HP_PAGES_THP);
			struct hp_options o;
			struct hp_plan pl;
			hp_options_defaults(&o);
			o.backend = be, o.pages = pg;
			hp_plan_make(&o, p, &pl);
			FZ_CHECK(pl.pages == HP_PAGES_OFF || pl.pages == HP_PAGES_THP || pl.pages == HP_PAGES_HUGETLB);
			FZ_CHECK(pl.pages != HP_PAGES_THP || thp_ok);
			FZ_CHECK(pl.pages != HP_PAGES_HUGETLB || pl.pool_available > 0);
			FZ_CHECK(pl.pages_reason[0] && memchr(pl.pages_reason, 0, sizeof pl.pages_reason));
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	vfs_load(data, size);
	struct hp_probe p;
	hp_probe_read(&p);
	check_probe(&p);
	check_plans(&p);
	/* start-up's probe: only what the plan for (pages, backend) needs */
	int pg = data[size ? size - 1 : 0] % HP_PAGES_COUNT, be = size % HP_BACKEND_COUNT;
	struct hp_probe q;
	hp_probe_for_plan(&q, pg, be);
	check_probe(&q);
	FZ_CHECK(q.npools <= 1 || pg == HP_PAGES_HUGETLB);   /* hugetlb: every pool size */
	FZ_CHECK(pg != HP_PAGES_OFF || q.npools == 0);    /* off: THP enabled and the switch only */
	struct hp_options o;
	struct hp_plan pl;
	hp_options_defaults(&o);
	o.backend = be, o.pages = pg;
	hp_plan_make(&o, &q, &pl);
	FZ_CHECK(pl.pages != HP_PAGES_HUGETLB || pl.pool_available > 0);
	struct hp_buf b = { out, sizeof out, 0 };
	out[0] = '\0';
	hp_probe_format(&p, size & 1, &b);     /* text or JSON */
	FZ_CHECK(b.len + 1 < sizeof out && strlen(out) == b.len);
	FZ_CHECK(!(size & 1) || tc_json_document(out, b.len));
	struct hp_rollup sm;
	FZ_CHECK(hp_pages_smaps(&sm) == 0 || vfs_count() >= 0);
	return 0;
}
