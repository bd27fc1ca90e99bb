/* test_options.c - the option table and the plan, with fake environments
 * and fake probes: defaults, valid and invalid values, and what auto picks. */
#include "../policy/hp_policy.h"
#include "check.h"

#include <string.h>

static const char *const *fake_env;

static const char *fake_get(const char *name)
{
	for (const char *const *e = fake_env; e && *e; e += 2)
		if (strcmp(e[0], name) == 0)
			return e[1];
	return NULL;
}

static struct hp_options read_env(const char *const *env, int *bad)
{
	struct hp_options o;
	fake_env = env;
	*bad = hp_options_read(&o, fake_get);
	return o;
}

static void defaults_when_nothing_is_set(void)
{
	int bad;
	struct hp_options o = read_env(NULL, &bad);
	CHECK(bad == 0);
	CHECK(o.backend == HP_BACKEND_SYSTEM);
	CHECK(o.pages == HP_PAGES_AUTO);
	CHECK(o.threshold == 4u << 20);
	CHECK(o.reserve == 0);
	CHECK(o.verbose == 0 && o.stats == HP_STATS_NONE);
	CHECK(o.set_mask == 0 && o.bad_mask == 0);
}

static void valid_values_are_taken(void)
{
	const char *env[] = { "HUGEPOLICY_BACKEND", "JeMalloc", "HUGEPOLICY_PAGES", "hugetlb",
			      "HUGEPOLICY_THRESHOLD", "8MiB", "HUGEPOLICY_VERBOSE", "yes",
			      "HUGEPOLICY_STATS", "json", "HUGEPOLICY_RESERVE", "1G",
			      "HUGEPOLICY_LOG", "", "HUGEPOLICY_FORK", "Inherit", "HUGEPOLICY_REPORT_PID", "4242",
			      "HUGEPOLICY_HUGETLB_SIZE", "1G", "HUGEPOLICY_PROMOTE", "off",
			      "HUGEPOLICY_FAULT_COST", "off",
			      "HUGEPOLICY_REPORT_STDERR", "2049:18446744073709551615",
			      "MALLOC_CONF", "thp:never", NULL };
	int bad;
	struct hp_options o = read_env(env, &bad);
	CHECK(bad == 0);
	CHECK(o.backend == HP_BACKEND_JEMALLOC);
	CHECK(o.pages == HP_PAGES_HUGETLB);
	CHECK(o.threshold == 8u << 20);
	CHECK(o.verbose == 1);
	CHECK(o.stats == HP_STATS_JSON);
	CHECK(o.reserve == 1u << 30);
	CHECK(o.log && o.log[0] == '\0');
	CHECK(o.fork_copy == 0);
	CHECK(o.report_pid == 4242);
	CHECK(o.hugetlb_size == 1u << 30);
	CHECK(o.promote == 0);
	CHECK(o.fault_cost == HP_ADAPT_OFF);
	CHECK(o.report_stderr == HP_STDERR_FILE && o.report_stderr_dev == 2049 &&
	      o.report_stderr_ino == 18446744073709551615ull);
	CHECK(o.user_malloc_conf && strcmp(o.user_malloc_conf, "thp:never") == 0);
	CHECK(o.set_mask == (1u << HP_OPT_COUNT) - 1);
}

static void bad_values_keep_defaults_and_are_counted(void)
{
	const char *env[] = { "HUGEPOLICY_BACKEND", "bogus", "HUGEPOLICY_PAGES", "2",
			      "HUGEPOLICY_THRESHOLD", "-5", "HUGEPOLICY_VERBOSE", "",
			      "HUGEPOLICY_STATS", "loud", NULL };
	int bad;
	struct hp_options o = read_env(env, &bad);
	CHECK(bad == 5);
	CHECK(o.backend == HP_BACKEND_SYSTEM);
	CHECK(o.pages == HP_PAGES_AUTO);
	CHECK(o.threshold == 4u << 20);
	CHECK(o.verbose == 0 && o.stats == HP_STATS_NONE);
	CHECK(o.bad_mask == ((1u << HP_OPT_BACKEND) | (1u << HP_OPT_PAGES) | (1u << HP_OPT_THRESHOLD) |
			     (1u << HP_OPT_VERBOSE) | (1u << HP_OPT_STATS)));
}

/* "DEV:INO" both decimal, "none", or "" (unset); nothing else */
static void report_stderr_takes_dev_ino_or_none(void)
{
	const struct hp_option_row *r = &hp_option_table[HP_OPT_REPORT_STDERR];
	struct hp_options o;
	hp_options_defaults(&o);
	CHECK(o.report_stderr == HP_STDERR_UNSET);
	CHECK(r->parse("none", &o) == 0 && o.report_stderr == HP_STDERR_NONE);
	CHECK(r->parse("", &o) == 0 && o.report_stderr == HP_STDERR_UNSET);
	CHECK(r->parse("0:1", &o) == 0 && o.report_stderr == HP_STDERR_FILE && o.report_stderr_ino == 1);
	const char *bad[] = { "1", "1:", ":1", "-1:2", "1:-2", "+1:2", " 1:2", "1:2 ", "1:2:3", "1:2x", "0x1:2",
			      "None", "18446744073709551616:1", NULL };
	for (int i = 0; bad[i]; i++)
		CHECK(r->parse(bad[i], &o) != 0);
}

static void size_parser_accepts_units_and_rejects_junk(void)
{
	uint64_t v;
	CHECK(hp_parse_size("4096", &v) == 0 && v == 4096);
	CHECK(hp_parse_size("4K", &v) == 0 && v == 4096);
	CHECK(hp_parse_size("4M", &v) == 0 && v == 4u << 20);
	CHECK(hp_parse_size("4MiB", &v) == 0 && v == 4u << 20);
	CHECK(hp_parse_size("2g", &v) == 0 && v == 2ull << 30);
	CHECK(hp_parse_size("1T", &v) == 0 && v == 1ull << 40);
	CHECK(hp_parse_size("", &v) != 0);
	CHECK(hp_parse_size("-5", &v) != 0);
	CHECK(hp_parse_size("+5", &v) != 0);
	CHECK(hp_parse_size(" 5", &v) != 0);
	CHECK(hp_parse_size("5X", &v) != 0);
	CHECK(hp_parse_size("5MiBs", &v) != 0);
	CHECK(hp_parse_size("99999999999999999999", &v) != 0);
	CHECK(hp_parse_size("99999999999G", &v) != 0);
	int b;
	CHECK(hp_parse_bool("ON", &b) == 0 && b == 1);
	CHECK(hp_parse_bool("off", &b) == 0 && b == 0);
	CHECK(hp_parse_bool("2", &b) != 0);
}

static void threshold_below_a_base_page_is_rejected(void)
{
	const char *env[] = { "HUGEPOLICY_THRESHOLD", "100", NULL };
	int bad;
	struct hp_options o = read_env(env, &bad);
	CHECK(bad == 1 && o.threshold == 4u << 20);
}

static struct hp_probe probe(int thp, uint64_t free2m, uint64_t resv2m)
{
	struct hp_probe p;
	memset(&p, 0, sizeof p);
	p.thp_enabled = thp;
	p.npools = 1;
	p.pools[0].page_size = HP_HUGE_2M;
	p.pools[0].total = free2m;
	p.pools[0].free = free2m;
	p.pools[0].resv = resv2m;
	p.pools[0].cg_max = -1;
	p.pools[0].cg_current = -1;
	return p;
}

static int plan_scope;   /* thp_scope of the last plan_pages() */

static int plan_pages(int backend, int pages, struct hp_probe p)
{
	struct hp_options o;
	struct hp_plan pl;
	hp_options_defaults(&o);
	o.backend = backend;
	o.pages = pages;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.pages_reason[0] != '\0');
	plan_scope = pl.thp_scope;
	return pl.pages;
}

static void auto_follows_what_the_machine_offers(void)
{
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, probe(HP_THP_MADVISE, 0, 0)) == HP_PAGES_THP);
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, probe(HP_THP_NEVER, 0, 0)) == HP_PAGES_OFF);
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, probe(HP_THP_MISSING, 0, 0)) == HP_PAGES_OFF);
	/* THP first; the pool only where THP is not on offer */
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, probe(HP_THP_MADVISE, 64, 0)) == HP_PAGES_THP);
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, probe(HP_THP_NEVER, 64, 0)) == HP_PAGES_HUGETLB);
	CHECK(plan_pages(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, probe(HP_THP_MISSING, 64, 0)) == HP_PAGES_HUGETLB);
	/* Free-Rsvd, not Free, is what a new mapping can take */
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, probe(HP_THP_NEVER, 64, 64)) == HP_PAGES_OFF);
	/* a pool too small for one threshold-sized block (4 MiB = 2 pages) */
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, probe(HP_THP_NEVER, 1, 0)) == HP_PAGES_OFF);
	/* jemalloc takes the pool like system where THP is not on offer */
	CHECK(plan_pages(HP_BACKEND_JEMALLOC, HP_PAGES_AUTO, probe(HP_THP_NEVER, 64, 0)) == HP_PAGES_HUGETLB);
	CHECK(plan_pages(HP_BACKEND_JEMALLOC, HP_PAGES_AUTO, probe(HP_THP_ALWAYS, 64, 0)) == HP_PAGES_THP);
	/* THP disabled for the process (prctl PR_SET_THP_DISABLE): no THP */
	struct hp_probe off = probe(HP_THP_MADVISE, 0, 0);
	off.thp_process_off = 1;
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, off) == HP_PAGES_OFF);
	/* an explicit thp clears the inherited switch (plan_thp.c: HP_THP_PROC_CLEAR) */
	CHECK(plan_pages(HP_BACKEND_JEMALLOC, HP_PAGES_THP, off) == HP_PAGES_THP);
	off = probe(HP_THP_MADVISE, 64, 0);
	off.thp_process_off = 1;
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, off) == HP_PAGES_HUGETLB);
	/* auto's THP is for blocks >= threshold on every backend; an explicit
	 * thp is the backend's own whole-heap switch */
	for (int b = 0; b < HP_BACKEND_COUNT; b++) {
		CHECK(plan_pages(b, HP_PAGES_AUTO, probe(HP_THP_MADVISE, 0, 0)) == HP_PAGES_THP);
		CHECK(plan_scope == HP_THP_LARGE);
		CHECK(plan_pages(b, HP_PAGES_THP, probe(HP_THP_MADVISE, 0, 0)) == HP_PAGES_THP);
		CHECK(plan_scope == (b == HP_BACKEND_SYSTEM ? HP_THP_LARGE : HP_THP_ALL));
	}
}

static void requests_fall_back_gracefully(void)
{
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_THP, probe(HP_THP_NEVER, 0, 0)) == HP_PAGES_OFF);
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_HUGETLB, probe(HP_THP_MADVISE, 0, 0)) == HP_PAGES_THP);
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_HUGETLB, probe(HP_THP_NEVER, 0, 0)) == HP_PAGES_OFF);
	/* jemalloc: blocks >= threshold from the pool, as system (hugetlb_large.c) */
	CHECK(plan_pages(HP_BACKEND_JEMALLOC, HP_PAGES_HUGETLB, probe(HP_THP_MADVISE, 64, 0)) == HP_PAGES_HUGETLB);
	CHECK(plan_scope == HP_THP_LARGE);
	CHECK(plan_pages(HP_BACKEND_JEMALLOC, HP_PAGES_HUGETLB, probe(HP_THP_MADVISE, 0, 0)) == HP_PAGES_THP);
	CHECK(plan_scope == HP_THP_LARGE);
	CHECK(plan_pages(HP_BACKEND_MIMALLOC, HP_PAGES_OFF, probe(HP_THP_ALWAYS, 64, 0)) == HP_PAGES_OFF);
}

static void mimalloc_thp_leaves_the_pool_alone(void)
{
	/* large_os_pages' MAP_HUGETLB mmaps are refused by hugepolicy under
	 * thp (mimalloc_os.c): thp is THP with or without a pool; auto does not
	 * turn large_os_pages on, so the pool stays untouched */
	CHECK(plan_pages(HP_BACKEND_MIMALLOC, HP_PAGES_THP, probe(HP_THP_MADVISE, 64, 0)) == HP_PAGES_THP);
	CHECK(plan_scope == HP_THP_ALL);
	CHECK(plan_pages(HP_BACKEND_MIMALLOC, HP_PAGES_THP, probe(HP_THP_MADVISE, 0, 0)) == HP_PAGES_THP);
	CHECK(plan_pages(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, probe(HP_THP_MADVISE, 64, 0)) == HP_PAGES_THP);
	CHECK(plan_scope == HP_THP_LARGE);
	CHECK(plan_pages(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, probe(HP_THP_MADVISE, 0, 0)) == HP_PAGES_THP);
}

static void cgroup_limit_bounds_the_pool(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, 64, 0);
	p.pools[0].cg_max = 2 * HP_HUGE_2M;
	p.pools[0].cg_current = 2 * HP_HUGE_2M;
	CHECK(hp_pool_available(&p.pools[0]) == 0);
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_HUGETLB, p) == HP_PAGES_THP);
	p.thp_enabled = HP_THP_NEVER;
	CHECK(plan_pages(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, p) == HP_PAGES_OFF);
}

/* the plan's reasons name what decided (items 7 and 14 of issue 11) */
static void reasons_name_the_real_cause(void)
{
	struct hp_options o;
	struct hp_plan pl;
	struct hp_probe p = probe(HP_THP_MADVISE, 64, 0);
	hp_options_defaults(&o);
	o.backend = HP_BACKEND_SYSTEM;
	o.pages = HP_PAGES_HUGETLB;
	o.threshold = 64 << 10;         /* below one huge page */
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.pages == HP_PAGES_HUGETLB && pl.hugetlb_min == HP_HUGE_2M && pl.threshold == 64 << 10);
	CHECK_MSG(strstr(pl.pages_reason, "blocks >= 2 MiB from the pool") != NULL, "%s", pl.pages_reason);
	o.threshold = 8u << 20;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.hugetlb_min == 8u << 20);
	/* hugetlb with no room in a process with THP switched off: the cause
	 * named is the process switch, not THP `never` */
	p = probe(HP_THP_MADVISE, 0, 0);
	p.thp_process_off = 1;
	o.backend = HP_BACKEND_JEMALLOC;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.pages == HP_PAGES_OFF);
	CHECK_MSG(strstr(pl.pages_reason, "PR_SET_THP_DISABLE") != NULL && strstr(pl.pages_reason, "never") == NULL,
		  "%s", pl.pages_reason);
}

/* surplus pages (nr_overcommit_hugepages - surplus_hugepages) are room too */
static void surplus_headroom_counts_as_room(void)
{
	struct hp_options o;
	struct hp_plan pl;
	struct hp_probe p = probe(HP_THP_MADVISE, 0, 0);
	p.pools[0].overcommit = 64;
	p.pools[0].surp = 10;
	CHECK(hp_pool_available(&p.pools[0]) == 54);
	hp_options_defaults(&o);
	o.pages = HP_PAGES_HUGETLB;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.pages == HP_PAGES_HUGETLB);
	CHECK_MSG(strstr(pl.pages_reason, "surplus headroom 54 (nr_overcommit_hugepages)") != NULL, "%s", pl.pages_reason);
	p.thp_enabled = HP_THP_NEVER;   /* auto takes the pool only without THP */
	o.pages = HP_PAGES_AUTO;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.pages == HP_PAGES_HUGETLB && strstr(pl.pages_reason, "surplus headroom") != NULL);
	p.thp_enabled = HP_THP_MADVISE;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.pages == HP_PAGES_THP);
	p.pools[0].surp = 64;           /* all allowed surplus pages in use */
	CHECK(hp_pool_available(&p.pools[0]) == 0);
}

static void promote_takes_off_or_a_heap_size(void)
{
	const char *good[] = { "HUGEPOLICY_PROMOTE", "256M", NULL };
	const char *off[] = { "HUGEPOLICY_PROMOTE", "OFF", NULL };
	const char *small[] = { "HUGEPOLICY_PROMOTE", "1M", NULL };
	const char *junk[] = { "HUGEPOLICY_PROMOTE", "lots", NULL };
	int bad;
	struct hp_options o = read_env(good, &bad);
	CHECK(bad == 0 && o.promote == 256u << 20);
	o = read_env(off, &bad);
	CHECK(bad == 0 && o.promote == 0);
	o = read_env(small, &bad);      /* below one huge page: the default */
	CHECK(bad == 1 && o.promote == 128u << 20);
	o = read_env(junk, &bad);
	CHECK(bad == 1 && o.promote == 128u << 20);
}

static void fault_cost_takes_measure_off_or_two_costs(void)
{
	const char *none[] = { NULL };
	const char *pin[] = { "HUGEPOLICY_FAULT_COST", "1.7,2500", NULL };
	const char *off[] = { "HUGEPOLICY_FAULT_COST", "OFF", NULL };
	const char *bad[][3] = { { "HUGEPOLICY_FAULT_COST", "2", NULL }, { "HUGEPOLICY_FAULT_COST", "0,300", NULL },
				 { "HUGEPOLICY_FAULT_COST", "2,300x", NULL }, { "HUGEPOLICY_FAULT_COST", "2.,300", NULL },
				 { "HUGEPOLICY_FAULT_COST", "-2,300", NULL },
				 { "HUGEPOLICY_FAULT_COST", "99999999,300", NULL } };
	int n;
	struct hp_options o = read_env(none, &n);
	CHECK(n == 0 && o.fault_cost == HP_ADAPT_MEASURE);
	o = read_env(pin, &n);
	CHECK(n == 0 && o.fault_cost == HP_ADAPT_PINNED && o.fault_base_ns == 1700 && o.fault_thp_ns == 2500000);
	o = read_env(off, &n);
	CHECK(n == 0 && o.fault_cost == HP_ADAPT_OFF);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		o = read_env(bad[i], &n);
		CHECK_MSG(n == 1 && o.fault_cost == HP_ADAPT_MEASURE, "'%s' refused", bad[i][1]);
	}
}

/* the rule: THP goes ahead where one THP fault costs less than the base
 * faults it replaces (density % of per_huge); else base pages */
static void thp_pays_where_a_thp_fault_is_cheaper(void)
{
	struct hp_fault_costs warm = { .base_ns = 2000, .thp_ns = 200000, .per_huge = 512, .got_thp = 1 };
	struct hp_fault_costs cold = { .base_ns = 1700, .thp_ns = 2500000, .per_huge = 512, .got_thp = 1 };
	struct hp_fault_costs none = { .base_ns = 2000, .thp_ns = 3000, .per_huge = 512, .got_thp = 0 };
	struct hp_fault_costs unmeasured = { 0 };
	char why[160];
	CHECK(hp_thp_pays(HP_ADAPT_MEASURE, &warm, 100, why, sizeof why) == HP_PAYS_YES);
	CHECK_MSG(strstr(why, "THP cheaper") != NULL, "%s", why);
	CHECK(hp_thp_pays(HP_ADAPT_MEASURE, &cold, 100, why, sizeof why) == HP_PAYS_NO);
	CHECK_MSG(strstr(why, "2500 us") != NULL && strstr(why, "base pages cheaper") != NULL, "%s", why);
	/* 200 us against 512 x 2 us x density: pays at 50 %, not at 15 % */
	CHECK(hp_thp_pays(HP_ADAPT_MEASURE, &warm, 50, NULL, 0) == HP_PAYS_YES);
	CHECK(hp_thp_pays(HP_ADAPT_MEASURE, &warm, 15, NULL, 0) == HP_PAYS_NO);
	CHECK(hp_thp_pays(HP_ADAPT_MEASURE, &none, 100, NULL, 0) == HP_PAYS_NO_THP);
	CHECK(hp_thp_pays(HP_ADAPT_MEASURE, &unmeasured, 100, NULL, 0) == HP_PAYS_UNKNOWN);
	CHECK(hp_thp_pays(HP_ADAPT_OFF, &cold, 100, NULL, 0) == HP_PAYS_FIXED);
	CHECK(hp_thp_pays_go(HP_PAYS_FIXED) && hp_thp_pays_go(HP_PAYS_UNKNOWN) && hp_thp_pays_go(HP_PAYS_YES));
	CHECK(!hp_thp_pays_go(HP_PAYS_NO) && !hp_thp_pays_go(HP_PAYS_NO_THP));
}

/* only auto on THP adapts; thp, hugetlb and off keep their fixed meaning */
static void only_auto_on_thp_adapts(void)
{
	struct hp_options o;
	struct hp_probe p;
	struct hp_plan pl;
	hp_options_defaults(&o);
	memset(&p, 0, sizeof p);
	p.thp_enabled = HP_THP_MADVISE;
	p.numa_nodes = 1;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.pages == HP_PAGES_THP && pl.adapt == HP_ADAPT_MEASURE);
	o.pages = HP_PAGES_THP;
	hp_plan_make(&o, &p, &pl);
	CHECK_MSG(pl.adapt == HP_ADAPT_OFF && strstr(pl.adapt_reason, "only pages=auto") != NULL, "%s", pl.adapt_reason);
	o.pages = HP_PAGES_AUTO;
	o.fault_cost = HP_ADAPT_PINNED, o.fault_base_ns = 2000, o.fault_thp_ns = 300000;
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.adapt == HP_ADAPT_PINNED && pl.adapt_pinned.thp_ns == 300000 && pl.adapt_pinned.per_huge == 512);
	p.thp_enabled = HP_THP_NEVER;   /* auto without THP: nothing to adapt */
	hp_plan_make(&o, &p, &pl);
	CHECK(pl.adapt == HP_ADAPT_OFF);
}

int main(void)
{
	fault_cost_takes_measure_off_or_two_costs();
	thp_pays_where_a_thp_fault_is_cheaper();
	only_auto_on_thp_adapts();
	promote_takes_off_or_a_heap_size();
	surplus_headroom_counts_as_room();
	reasons_name_the_real_cause();
	defaults_when_nothing_is_set();
	valid_values_are_taken();
	bad_values_keep_defaults_and_are_counted();
	report_stderr_takes_dev_ino_or_none();
	size_parser_accepts_units_and_rejects_junk();
	threshold_below_a_base_page_is_rejected();
	auto_follows_what_the_machine_offers();
	requests_fall_back_gracefully();
	mimalloc_thp_leaves_the_pool_alone();
	cgroup_limit_bounds_the_pool();
	return check_result("test_options");
}
