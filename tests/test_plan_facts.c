/* test_plan_facts.c - what start-up learns after a plan is one more input
 * to the plan (policy/plan_facts.c): a backend's own settings as they took
 * effect, what hugepolicy reaches of it, a backend that cannot run, the THP
 * switch as the kernel took it.  Fake probes, one behaviour per argv[1]:
 * the decision (pages, thp_scope, thp_process, thp_small_nohuge) and the
 * reason the plan gives for it. */
#include "../policy/hp_policy.h"
#include "check.h"

#include <errno.h>
#include <string.h>

static struct hp_probe probe(int thp, uint64_t free2m)
{
	struct hp_probe p;
	memset(&p, 0, sizeof p);
	p.thp_enabled = thp;
	p.npools = 1;
	p.pools[0].page_size = HP_HUGE_2M;
	p.pools[0].total = p.pools[0].free = free2m;
	p.pools[0].cg_max = p.pools[0].cg_current = -1;
	return p;
}

/* The plan for backend/pages on p, with facts f (NULL: none). */
static struct hp_plan plan(int backend, int pages, const struct hp_probe *p, const char *mi_large,
			   const struct hp_plan_facts *f)
{
	struct hp_options o;
	struct hp_plan pl;
	hp_options_defaults(&o);
	o.backend = backend;
	o.pages = pages;
	o.user_mi_large = mi_large;
	hp_plan_make_with(&o, p, f, &pl);
	return pl;
}

static int has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* MALLOC_CONF=thp:always read back from jemalloc: whole-heap THP whatever
 * was asked, and the reason names the user's setting */
static void user_thp_always_gives_whole_heap_thp(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, 0);
	struct hp_plan_facts f = { .heap = HP_HEAP_USER_THP_ALL };
	strcpy(f.heap_value, "always");
	for (int pages = HP_PAGES_OFF; pages <= HP_PAGES_AUTO; pages += HP_PAGES_AUTO - HP_PAGES_OFF) {
		struct hp_plan pl = plan(HP_BACKEND_JEMALLOC, pages, &p, NULL, &f);
		CHECK(pl.pages == HP_PAGES_THP && pl.thp_scope == HP_THP_ALL);
		CHECK_MSG(strcmp(pl.pages_reason, "MALLOC_CONF sets opt.thp=always") == 0, "%s", pl.pages_reason);
	}
	/* the same as planned: the plan's own reason stays */
	struct hp_plan pl = plan(HP_BACKEND_JEMALLOC, HP_PAGES_THP, &p, NULL, &f);
	CHECK(pl.pages == HP_PAGES_THP && pl.thp_scope == HP_THP_ALL);
	CHECK_MSG(has(pl.pages_reason, "requested"), "%s", pl.pages_reason);
}

/* jemalloc's opt.thp read back is not the one the THP plan set: no THP */
static void backend_thp_setting_not_taken_gives_base_pages(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, 0);
	struct hp_plan_facts f = { .heap = HP_HEAP_NO_THP };
	strcpy(f.heap_value, "never");
	struct hp_plan pl = plan(HP_BACKEND_JEMALLOC, HP_PAGES_THP, &p, NULL, &f);
	CHECK(pl.pages == HP_PAGES_OFF);
	CHECK_MSG(strcmp(pl.pages_reason, "opt.thp=never (MALLOC_CONF, or the kernel has no THP)") == 0, "%s",
		  pl.pages_reason);
}

/* MIMALLOC_LARGE_OS_PAGES=1 under off on a THP always host: the heap on
 * the pool, else THP; the plan's PR_SET_THP_DISABLE is cleared, and the
 * reason says when the kernel took the clear */
static void user_large_pages_win_and_clear_the_switch(void)
{
	struct hp_probe p = probe(HP_THP_ALWAYS, 64);
	struct hp_plan pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_OFF, &p, "1", NULL);
	CHECK(pl.thp_process == HP_THP_PROC_DISABLE);
	struct hp_plan_facts f = { .switch_applied = 1, .heap = HP_HEAP_USER_POOL };
	strcpy(f.heap_value, "1");
	pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_OFF, &p, "1", &f);
	CHECK(pl.pages == HP_PAGES_HUGETLB && pl.thp_scope == HP_THP_ALL);
	CHECK_MSG(has(pl.pages_reason, "MIMALLOC_LARGE_OS_PAGES=1 (large_os_pages=1) is the user's and wins"), "%s",
		  pl.pages_reason);
	CHECK(pl.thp_process == HP_THP_PROC_CLEAR && pl.thp_small_nohuge == 0);
	CHECK_MSG(has(pl.thp_process_reason, "PR_SET_THP_DISABLE undone") &&
		  !has(pl.thp_process_reason, "done]"), "%s", pl.thp_process_reason);
	f.unswitch_applied = 1;
	pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_OFF, &p, "1", &f);
	CHECK(pl.thp_process == HP_THP_PROC_CLEAR);
	CHECK_MSG(has(pl.thp_process_reason, "undone [prctl(PR_SET_THP_DISABLE, 0) done]"), "%s",
		  pl.thp_process_reason);
	/* the kernel kept the switch: so does the plan */
	f.unswitch_err = EPERM;
	pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_OFF, &p, "1", &f);
	CHECK(pl.thp_process == HP_THP_PROC_DISABLE);
}

/* MIMALLOC_LARGE_OS_PAGES=0: no whole-heap THP; auto's THP on big blocks,
 * which is hugepolicy's advice, stays */
static void user_large_pages_off_keeps_the_heap_off(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, 0);
	struct hp_plan_facts f = { .heap = HP_HEAP_USER_OFF };
	strcpy(f.heap_value, "0");
	struct hp_plan pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_THP, &p, "off", &f);
	CHECK(pl.pages == HP_PAGES_OFF);
	CHECK_MSG(strcmp(pl.pages_reason, "MIMALLOC_LARGE_OS_PAGES=off (large_os_pages=0) is the user's and wins") == 0,
		  "%s", pl.pages_reason);
	pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, &p, "off", &f);
	CHECK(pl.pages == HP_PAGES_THP && pl.thp_scope == HP_THP_LARGE);
	CHECK_MSG(has(pl.pages_reason, "auto: "), "%s", pl.pages_reason);
}

/* mimalloc's mmap out of hugepolicy's reach: its large_os_pages would map
 * hugetlb pages unpopulated, so whole-heap THP becomes THP on big blocks,
 * and small blocks cannot be advised off THP through it */
static void unreachable_mmap_turns_whole_heap_thp_into_big_blocks(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, 0);
	struct hp_plan_facts f = { .mmap_hook = ENOSYS };
	struct hp_plan pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_THP, &p, NULL, &f);
	CHECK(pl.pages == HP_PAGES_THP && pl.thp_scope == HP_THP_LARGE);
	CHECK_MSG(has(pl.pages_reason, "hugepolicy cannot reach mimalloc's mmap"), "%s", pl.pages_reason);
	/* a kernel < 6.18 on an always host: small blocks advised through the hook, if any */
	p = probe(HP_THP_ALWAYS, 0);
	pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, &p, NULL, NULL);
	CHECK(pl.thp_small_nohuge == 1);
	pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, &p, NULL, &f);
	CHECK(pl.thp_small_nohuge == 0);
	f.mmap_hook = EAGAIN;           /* its mmap is reached, munmap/madvise are not */
	pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, &p, NULL, &f);
	CHECK(pl.thp_small_nohuge == 1);
}

/* a backend that cannot run here: the next plan is the system backend's */
static void failed_backend_is_planned_as_system(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, 0);
	struct hp_plan_facts f = { .backend_failed = ENOENT };
	struct hp_plan pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_THP, &p, NULL, NULL);
	CHECK(pl.backend == HP_BACKEND_MIMALLOC && pl.thp_scope == HP_THP_ALL);
	pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_THP, &p, NULL, &f);
	CHECK(pl.backend == HP_BACKEND_SYSTEM && pl.pages == HP_PAGES_THP && pl.thp_scope == HP_THP_LARGE);
}

/* the except-advised switch refused (kernel < 6.18): no switch, and the
 * backend keeps its small blocks off THP itself; taken: the reason says so */
static void refused_switch_falls_back_to_advice_on_small_blocks(void)
{
	struct hp_probe p = probe(HP_THP_ALWAYS, 0);
	p.thp_except_advised_ok = 1;
	struct hp_plan_facts f = { .switch_applied = 1, .switch_err = EINVAL };
	struct hp_plan pl = plan(HP_BACKEND_JEMALLOC, HP_PAGES_AUTO, &p, NULL, &f);
	CHECK(pl.thp_process == HP_THP_PROC_KEEP && pl.thp_small_nohuge == 1);
	CHECK_MSG(has(pl.thp_process_reason, "PR_THP_DISABLE_EXCEPT_ADVISED) refused (") &&
		  has(pl.thp_process_reason, "kernel older than 6.18"), "%s", pl.thp_process_reason);
	pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, NULL, &f);
	CHECK(pl.thp_process == HP_THP_PROC_KEEP && pl.thp_small_nohuge == 0);
	f.switch_err = 0;
	pl = plan(HP_BACKEND_JEMALLOC, HP_PAGES_AUTO, &p, NULL, &f);
	CHECK(pl.thp_process == HP_THP_PROC_EXCEPT_ADVISED && pl.thp_small_nohuge == 0);
	CHECK_MSG(has(pl.thp_process_reason, " [prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED) done]"),
		  "%s", pl.thp_process_reason);
}

/* the CLI's own process sets no switch its command would inherit */
static void cli_process_sets_no_switch(void)
{
	struct hp_probe p = probe(HP_THP_ALWAYS, 0);
	struct hp_plan_facts f = { .in_cli = 1 };
	CHECK(plan(HP_BACKEND_SYSTEM, HP_PAGES_OFF, &p, NULL, NULL).thp_process == HP_THP_PROC_DISABLE);
	CHECK(plan(HP_BACKEND_SYSTEM, HP_PAGES_OFF, &p, NULL, &f).thp_process == HP_THP_PROC_KEEP);
}

/* no facts: the plan of hp_plan_make, field for field */
static void no_facts_is_the_plain_plan(void)
{
	struct hp_probe p = probe(HP_THP_ALWAYS, 64);
	struct hp_plan_facts none;
	memset(&none, 0, sizeof none);
	for (int b = 0; b < HP_BACKEND_COUNT; b++)
		for (int pages = 0; pages < HP_PAGES_COUNT; pages++) {
			struct hp_options o;
			struct hp_plan a, c;
			hp_options_defaults(&o);
			o.backend = b;
			o.pages = pages;
			hp_plan_make(&o, &p, &a);
			hp_plan_make_with(&o, &p, &none, &c);
			CHECK(memcmp(&a, &c, sizeof a) == 0);
		}
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
		{ "user_thp_always", user_thp_always_gives_whole_heap_thp },
		{ "thp_not_taken", backend_thp_setting_not_taken_gives_base_pages },
		{ "user_large_pages", user_large_pages_win_and_clear_the_switch },
		{ "user_large_pages_off", user_large_pages_off_keeps_the_heap_off },
		{ "mmap_unreachable", unreachable_mmap_turns_whole_heap_thp_into_big_blocks },
		{ "backend_failed", failed_backend_is_planned_as_system },
		{ "switch_refused", refused_switch_falls_back_to_advice_on_small_blocks },
		{ "cli", cli_process_sets_no_switch },
		{ "no_facts", no_facts_is_the_plain_plan },
	};
	for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
		if (strcmp(argv[1], cases[i].name) == 0) {
			cases[i].fn();
			return check_result(argv[1]);
		}
	fprintf(stderr, "usage: test_plan_facts CASE (user_thp_always, thp_not_taken, ...)\n");
	return 2;
}
