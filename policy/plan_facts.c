/*
 * plan_facts.c - what start-up learned after a plan, made part of the
 * next one: the CLI's own process, the THP switch as the kernel took it,
 * a backend's own settings as they took effect, and what hugepolicy can
 * reach of the backend.  Pure: facts + plan -> plan fields with a reason.
 *
 * Invariants:
 * - decisions are set only in policy/ (here, plan.c, plan_thp.c,
 *   plan_pagesize.c, promote.c, thp_pays.c); backends and start-up report
 *   facts and read the plan;
 * - a fact changes only the decisions it is about, and what was derived
 *   before it (thp_available, promotion, adapt, the pools) stays as the
 *   options and the probe made it;
 * - facts are applied in the order start-up learns them: the CLI, the
 *   switch, the backend's heap, its mmap, then the switch a whole-heap
 *   setting of the user's undoes.
 */
#include "hp_policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void switch_taken(const struct hp_plan_facts *f, struct hp_plan *pl)
{
	int how = pl->thp_process;
	if (!f->switch_applied || how == HP_THP_PROC_KEEP)
		return;
	if (!f->switch_err) {
		size_t n = strlen(pl->thp_process_reason);
		snprintf(pl->thp_process_reason + n, sizeof pl->thp_process_reason - n, " [%s done]",
			 hp_thp_process_call(how));
		return;
	}
	if (how == HP_THP_PROC_EXCEPT_ADVISED && pl->pages_requested == HP_PAGES_OFF &&
	    !(f->switch2_applied && f->switch2_err)) {
		/* off keeps THP out whatever it costs the program's own advice:
		 * the whole-process switch instead */
		pl->thp_process = HP_THP_PROC_DISABLE;
		snprintf(pl->thp_process_reason, sizeof pl->thp_process_reason, "%s refused (%s): "
			 "prctl(PR_SET_THP_DISABLE, 1, 0) instead, so the program's own MADV_HUGEPAGE gets no "
			 "THP either%s", hp_thp_process_call(how), strerror(f->switch_err),
			 f->switch2_applied ? " [done]" : "");
		return;
	}
	pl->thp_process = HP_THP_PROC_KEEP;
	if (how == HP_THP_PROC_EXCEPT_ADVISED) {
		/* an older kernel: the backends keep their small blocks off THP */
		pl->thp_small_nohuge = pl->backend != HP_BACKEND_SYSTEM;
		snprintf(pl->thp_small_reason, sizeof pl->thp_small_reason, "%s",
			 pl->backend == HP_BACKEND_SYSTEM
				 ? "the kernel still backs glibc's heap with THP (`always`): hugepolicy "
				   "cannot advise memory glibc maps itself"
				 : "MADV_NOHUGEPAGE on the backend's own memory instead");
	}
	snprintf(pl->thp_process_reason, sizeof pl->thp_process_reason, "%s refused (%s): %s",
		 hp_thp_process_call(how), strerror(f->switch_err),
		 how == HP_THP_PROC_EXCEPT_ADVISED ? "kernel older than 6.18" : "switch left as it was");
}

static void pages_because(struct hp_plan *pl, int pages, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pages_because(struct hp_plan *pl, int pages, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pl->pages = pages;
	vsnprintf(pl->pages_reason, sizeof pl->pages_reason, fmt, ap);
	va_end(ap);
}

/* The backend's own setting in force over the plan's heap decision. */
static void heap_taken(const struct hp_plan_facts *f, struct hp_plan *pl)
{
	int all = pl->pages == HP_PAGES_THP && pl->thp_scope == HP_THP_ALL;
	int large = pl->pages == HP_PAGES_THP && pl->thp_scope == HP_THP_LARGE;
	const char *user = pl->user_mi_large ? pl->user_mi_large : "";
	switch (f->heap) {
	case HP_HEAP_USER_THP_ALL:
		if (!all) {
			pl->thp_scope = HP_THP_ALL;
			pages_because(pl, HP_PAGES_THP, "MALLOC_CONF sets opt.thp=%s", f->heap_value);
		}
		break;
	case HP_HEAP_NO_THP:
		pages_because(pl, HP_PAGES_OFF, "opt.thp=%s (MALLOC_CONF, or the kernel has no THP)",
			      f->heap_value);
		break;
	case HP_HEAP_USER_POOL:
		pl->thp_scope = HP_THP_ALL;
		pages_because(pl, HP_PAGES_HUGETLB, "MIMALLOC_LARGE_OS_PAGES=%s (large_os_pages=%s) is the user's "
			      "and wins: hugetlb segments mapped and populated by hugepolicy, else THP", user,
			      f->heap_value);
		break;
	case HP_HEAP_USER_OFF:
		if (!large && pl->pages != HP_PAGES_OFF)
			pages_because(pl, HP_PAGES_OFF, "MIMALLOC_LARGE_OS_PAGES=%s (large_os_pages=%s) is the "
				      "user's and wins", user, f->heap_value);
		break;
	default:
		break;
	}
}

/* What hugepolicy reaches of the backend's own mappings. */
static void mmap_taken(const struct hp_plan_facts *f, struct hp_plan *pl)
{
	int reached = f->mmap_hook == 0 || f->mmap_hook == EAGAIN;
	pl->thp_small_nohuge &= reached;        /* advised through its mmap */
	/* whole-heap THP by the backend's own large pages would map hugetlb
	 * pages unpopulated where hugepolicy cannot refuse them: never */
	if (!reached && f->heap == HP_HEAP_AS_ASKED && pl->pages == HP_PAGES_THP && pl->thp_scope == HP_THP_ALL) {
		pl->thp_scope = HP_THP_LARGE;
		pages_because(pl, pl->thp_available ? HP_PAGES_THP : HP_PAGES_OFF, "hugepolicy cannot reach "
			      "mimalloc's mmap, and its large_os_pages would map hugetlb pages unpopulated; THP on "
			      "blocks >= threshold instead");
	}
}

/* A user's whole-heap setting that won over the plan must not be starved
 * by the switch hugepolicy set: the switch is cleared. */
static void whole_heap_unswitch(const struct hp_plan_facts *f, struct hp_plan *pl)
{
	int how = pl->thp_process;
	if ((how != HP_THP_PROC_DISABLE && how != HP_THP_PROC_EXCEPT_ADVISED) || pl->thp_scope != HP_THP_ALL ||
	    (pl->pages != HP_PAGES_THP && pl->pages != HP_PAGES_HUGETLB))
		return;
	if (f->unswitch_applied && f->unswitch_err)
		return;                 /* the kernel kept it: so does the plan */
	pl->thp_process = HP_THP_PROC_CLEAR;
	pl->thp_small_nohuge = 0;
	snprintf(pl->thp_small_reason, sizeof pl->thp_small_reason, "whole-heap THP, the backend's own setting");
	snprintf(pl->thp_process_reason, sizeof pl->thp_process_reason,
		 "the backend's own whole-heap setting wins (%.60s): %s undone%s", pl->pages_reason,
		 how == HP_THP_PROC_DISABLE ? "PR_SET_THP_DISABLE" : "PR_THP_DISABLE_EXCEPT_ADVISED",
		 f->unswitch_applied ? " [prctl(PR_SET_THP_DISABLE, 0) done]" : "");
}

void hp_plan_facts(const struct hp_plan_facts *f, struct hp_plan *pl)
{
	if (f->in_cli) {
		pl->thp_process = HP_THP_PROC_KEEP;     /* CMD would inherit a switch */
		pl->thp_small_nohuge = 0;
	}
	switch_taken(f, pl);
	heap_taken(f, pl);
	mmap_taken(f, pl);
	whole_heap_unswitch(f, pl);
}
