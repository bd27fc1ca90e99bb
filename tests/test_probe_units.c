/*
 * test_probe_units.c CASE [FIXTURES] - the probe's parsers one behaviour at a
 * time (policy/probe*.c, plan_thp.c):
 *   dirnames       hugepages-<N>kB is parsed strictly (review finding)
 *   root_slash     --root "/" (and "") is this machine: prctl, uname, sysconf
 *   plan_rules     the THP switch table of plan_thp.c on hand-made probes
 *   plan_populate  no hugetlb plan on a kernel without MADV_POPULATE_WRITE
 */
#define _GNU_SOURCE
#include "../policy/hp_policy.h"
#include "check.h"

#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void dirnames(void)
{
	static const struct { const char *name; uint64_t size; } cases[] = {
		{ "hugepages-2048kB", 2u << 20 }, { "hugepages-1048576kB", 1u << 30 },
		{ "hugepages-64kB", 64u << 10 }, { "hugepages-16777216kB", 16ull << 30 },
		{ "hugepages-2048kBx", 0 }, { "hugepages-kB", 0 }, { "hugepages-2048", 0 },
		{ "hugepages-2048KB", 0 }, { "hugepages-02048kB", 0 }, { "hugepages-3072kB", 0 },
		{ "hugepages--2048kB", 0 }, { "hugepages- 2048kB", 0 }, { "hugepages-0kB", 0 },
		{ "hugepages-99999999999999999999kB", 0 }, { "hugepages-18446744073709551616kB", 0 },
		{ "hugepages-2kB", 0 }, { "hugepages-2251799813685248kB", 0 }, { "hugepage-2048kB", 0 },
		{ "", 0 }, { "hugepages-", 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t got = hp_pool_dirname_size(cases[i].name);
		CHECK_MSG(got == cases[i].size, "'%s' -> %llu, want %llu", cases[i].name,
			  (unsigned long long)got, (unsigned long long)cases[i].size);
	}
}

static void root_slash(void)
{
	static struct hp_probe a, b, c;
	struct utsname u;
	hp_probe_read(&a);
	hp_probe_read_root(&b, "/");
	hp_probe_read_root(&c, "//");
	CHECK(uname(&u) == 0 && strcmp(a.kernel, u.release) == 0);
	CHECK(strcmp(b.kernel, a.kernel) == 0 && strcmp(c.kernel, a.kernel) == 0);
	CHECK(a.base_page_size == (uint64_t)sysconf(_SC_PAGESIZE) && b.base_page_size == a.base_page_size);
	CHECK(b.thp_enabled == a.thp_enabled && b.thp_process_off == a.thp_process_off && b.pmd_size == a.pmd_size);
	CHECK(a.nproblems == 0);
}

static struct hp_plan plan(int backend, int pages, int thp, int off, int ea_ok)
{
	struct hp_options o;
	struct hp_probe p;
	struct hp_plan pl;
	memset(&p, 0, sizeof p);
	p.thp_enabled = thp, p.thp_process_off = off, p.thp_except_advised_ok = ea_ok;
	strcpy(p.kernel, ea_ok ? "6.18.0" : "6.8.0");
	hp_options_defaults(&o);
	o.backend = backend, o.pages = pages;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.thp_process_reason[0] && pl.thp_small_reason[0]);
	return pl;
}

static void plan_rules(void)
{
	for (int be = 0; be < HP_BACKEND_COUNT; be++) {
		/* always + off: the switch, every backend */
		CHECK(plan(be, HP_PAGES_OFF, HP_THP_ALWAYS, 0, 0).thp_process == HP_THP_PROC_DISABLE);
		CHECK(plan(be, HP_PAGES_OFF, HP_THP_ALWAYS, HP_THP_OFF_ALL, 0).thp_process == HP_THP_PROC_KEEP);
		/* always + auto: except-advised where the kernel has it */
		CHECK(plan(be, HP_PAGES_AUTO, HP_THP_ALWAYS, 0, 1).thp_process == HP_THP_PROC_EXCEPT_ADVISED);
		CHECK(plan(be, HP_PAGES_HUGETLB, HP_THP_ALWAYS, 0, 1).thp_process == HP_THP_PROC_EXCEPT_ADVISED);
		struct hp_plan pl = plan(be, HP_PAGES_AUTO, HP_THP_ALWAYS, 0, 0);
		CHECK(pl.thp_process == HP_THP_PROC_KEEP && pl.thp_small_nohuge == (be != HP_BACKEND_SYSTEM));
		CHECK(be != HP_BACKEND_SYSTEM || strstr(pl.thp_small_reason, "glibc's heap") != NULL);
		/* madvise / never / missing: no switch */
		for (int thp = HP_THP_MADVISE; thp <= HP_THP_MISSING; thp++)
			for (int pg = 0; pg < HP_PAGES_COUNT; pg++) {
				pl = plan(be, pg, thp, 0, 1);
				CHECK(pl.thp_process == HP_THP_PROC_KEEP && pl.thp_small_nohuge == 0);
			}
		/* inherited + thp: cleared (THP on); + auto: kept */
		pl = plan(be, HP_PAGES_THP, HP_THP_MADVISE, HP_THP_OFF_ALL, 0);
		CHECK(pl.thp_process == HP_THP_PROC_CLEAR && pl.pages == HP_PAGES_THP && pl.thp_available);
		CHECK(strstr(pl.thp_process_reason, "inherited PR_SET_THP_DISABLE") != NULL);
		pl = plan(be, HP_PAGES_AUTO, HP_THP_MADVISE, HP_THP_OFF_ALL, 0);
		CHECK(pl.thp_process == HP_THP_PROC_KEEP && pl.pages == HP_PAGES_OFF && !pl.thp_available);
		/* except-advised is madvise: auto still gets THP */
		pl = plan(be, HP_PAGES_AUTO, HP_THP_ALWAYS, HP_THP_OFF_EXCEPT_ADVISED, 1);
		CHECK(pl.thp_process == HP_THP_PROC_KEEP && pl.pages == HP_PAGES_THP && pl.thp_available);
		/* no THP in the kernel: a cleared switch would change nothing */
		CHECK(plan(be, HP_PAGES_THP, HP_THP_NEVER, HP_THP_OFF_ALL, 0).thp_process == HP_THP_PROC_KEEP);
	}
}

/* a kernel known to lack MADV_POPULATE_WRITE (< 5.14) gets no hugetlb plan:
 * hugetlb_pages.c would refuse every mapping; an unknown kernel is tried */
static void plan_populate(void)
{
	struct hp_options o;
	struct hp_probe p;
	struct hp_plan pl;
	memset(&p, 0, sizeof p);
	p.thp_enabled = HP_THP_NEVER;
	p.npools = 1;
	p.pools[0] = (struct hp_pool){ .page_size = HP_HUGE_2M, .total = 64, .free = 64, .cg_max = -1, .cg_current = -1 };
	hp_options_defaults(&o);
	for (int pg = HP_PAGES_HUGETLB; pg <= HP_PAGES_AUTO; pg++) {
		o.pages = pg;
		strcpy(p.kernel, "5.10.0"), p.populate_write_ok = 0;
		hp_plan_make(&o, &p, &pl);
		CHECK_MSG(pl.pages == HP_PAGES_OFF && strstr(pl.pages_reason, "no MADV_POPULATE_WRITE (5.14)"),
			  "%s", pl.pages_reason);
		strcpy(p.kernel, "5.14.0"), p.populate_write_ok = 1;
		hp_plan_make(&o, &p, &pl);
		CHECK(pl.pages == HP_PAGES_HUGETLB);
		p.kernel[0] = '\0', p.populate_write_ok = 0;
		hp_plan_make(&o, &p, &pl);
		CHECK(pl.pages == HP_PAGES_HUGETLB);
	}
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	if (strcmp(c, "dirnames") == 0)
		dirnames();
	else if (strcmp(c, "root_slash") == 0)
		root_slash();
	else if (strcmp(c, "plan_rules") == 0)
		plan_rules();
	else if (strcmp(c, "plan_populate") == 0)
		plan_populate();
	else
		return 2;
	return check_result(c);
}
