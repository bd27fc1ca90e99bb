/*
 * plan_thp.c - the per-process THP switch (prctl PR_SET_THP_DISABLE, which
 * children inherit) and MADV_NOHUGEPAGE on the backend's small blocks: what
 * `off` and `auto` need on a THP `always` host, and what an inherited switch
 * means for a request.  Pure: options + probe -> plan fields with a reason.
 *
 *   rule                                       thp_process      small_nohuge
 *   thp requested, switch inherited, THP on    CLEAR            0
 *   always, off: kernel >= 6.18                EXCEPT_ADVISED (KEEP if inherited)
 *     older                                    DISABLE (KEEP if ALL inherited)
 *   always, auto/hugetlb, nothing inherited:
 *     kernel >= 6.18                           EXCEPT_ADVISED   0
 *     older: jemalloc, mimalloc                KEEP             1
 *     older: system                            KEEP             0 (glibc's heap: THP)
 *   always, auto/hugetlb, switch inherited     KEEP (ALL: no THP; EXCEPT_ADVISED: madvise)
 *   madvise / never / missing                  KEEP             0
 */
#include "hp_policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *hp_thp_process_name(int t)
{
	switch (t) {
	case HP_THP_PROC_DISABLE: return "disable";
	case HP_THP_PROC_EXCEPT_ADVISED: return "except-advised";
	case HP_THP_PROC_CLEAR: return "clear";
	default: return "keep";
	}
}

const char *hp_thp_process_call(int t)
{
	switch (t) {
	case HP_THP_PROC_DISABLE: return "prctl(PR_SET_THP_DISABLE, 1)";
	case HP_THP_PROC_EXCEPT_ADVISED: return "prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED)";
	case HP_THP_PROC_CLEAR: return "prctl(PR_SET_THP_DISABLE, 0)";
	default: return "";
	}
}

int hp_plan_thp_off(const struct hp_probe *p, int t)
{
	switch (t) {
	case HP_THP_PROC_DISABLE: return HP_THP_OFF_ALL;
	case HP_THP_PROC_EXCEPT_ADVISED: return HP_THP_OFF_EXCEPT_ADVISED;
	case HP_THP_PROC_CLEAR: return HP_THP_OFF_NONE;
	default: return p->thp_process_off;
	}
}

static void say(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
}

#define PROC(pl, t, ...) ((pl)->thp_process = (t), say((pl)->thp_process_reason, sizeof (pl)->thp_process_reason, __VA_ARGS__))
#define SMALL(pl, on, ...) ((pl)->thp_small_nohuge = (on), say((pl)->thp_small_reason, sizeof (pl)->thp_small_reason, __VA_ARGS__))

static const char *inherited(int off)
{
	return off == HP_THP_OFF_ALL ? "PR_SET_THP_DISABLE" : "PR_SET_THP_DISABLE with PR_THP_DISABLE_EXCEPT_ADVISED";
}

/* THP `always`, pages auto or hugetlb (whose fallbacks are auto's THP):
 * blocks >= threshold on THP, smaller ones not */
static void always_large_only(const struct hp_probe *p, struct hp_plan *pl)
{
	int be = pl->backend;
	if (p->thp_process_off == HP_THP_OFF_ALL) {
		PROC(pl, HP_THP_PROC_KEEP, "inherited PR_SET_THP_DISABLE kept: no THP in this process "
		     "(%s does not undo a parent's switch; pages=thp does)", hp_pages_name(pl->pages_requested));
		SMALL(pl, 0, "not needed: the inherited switch keeps every block off THP");
	} else if (p->thp_process_off == HP_THP_OFF_EXCEPT_ADVISED) {
		PROC(pl, HP_THP_PROC_KEEP, "inherited PR_THP_DISABLE_EXCEPT_ADVISED kept: the process already "
		     "behaves as THP madvise, so only the blocks hugepolicy advises get THP");
		SMALL(pl, 0, "not needed: unadvised memory is on base pages (except-advised switch)");
	} else if (p->thp_except_advised_ok) {
		PROC(pl, HP_THP_PROC_EXCEPT_ADVISED, "THP always: prctl(PR_SET_THP_DISABLE, 1, "
		     "PR_THP_DISABLE_EXCEPT_ADVISED) makes the process behave as madvise, so only the "
		     "blocks hugepolicy advises get THP");
		SMALL(pl, 0, "not needed: unadvised memory is on base pages (except-advised switch)");
	} else if (be == HP_BACKEND_SYSTEM) {
		PROC(pl, HP_THP_PROC_KEEP, "THP always on kernel %s without PR_THP_DISABLE_EXCEPT_ADVISED "
		     "(6.18): no switch", p->kernel[0] ? p->kernel : "(unknown)");
		SMALL(pl, 0, "glibc's heap (brk and its arenas) cannot be reached: the kernel still backs it "
		      "with THP on kernels < 6.18 (THP always)");
	} else {
		PROC(pl, HP_THP_PROC_KEEP, "THP always on kernel %s without PR_THP_DISABLE_EXCEPT_ADVISED "
		     "(6.18): no switch", p->kernel[0] ? p->kernel : "(unknown)");
		SMALL(pl, 1, "THP always, kernel < 6.18: %s", be == HP_BACKEND_JEMALLOC
		      ? "jemalloc's own memory advised MADV_NOHUGEPAGE (opt.thp=never) keeps small blocks on base pages"
		      : "mimalloc's segments advised MADV_NOHUGEPAGE through hugepolicy's mmap hook keep small "
			"blocks on base pages");
	}
}

void hp_plan_thp(const struct hp_options *o, const struct hp_probe *p, struct hp_plan *pl)
{
	int on = p->thp_enabled == HP_THP_ALWAYS || p->thp_enabled == HP_THP_MADVISE;
	const char *host = hp_thp_name(p->thp_enabled);
	(void)o;
	if (pl->pages_requested == HP_PAGES_THP && p->thp_process_off != HP_THP_OFF_NONE) {
		if (on)
			PROC(pl, HP_THP_PROC_CLEAR, "pages=thp asks for THP but this process inherited %s from its "
			     "parent: prctl(PR_SET_THP_DISABLE, 0) undoes it", inherited(p->thp_process_off));
		else
			PROC(pl, HP_THP_PROC_KEEP, "inherited %s kept: the kernel has THP enabled=%s anyway",
			     inherited(p->thp_process_off), host);
		SMALL(pl, 0, "not needed: pages=thp");
		return;
	}
	if (p->thp_enabled == HP_THP_ALWAYS) {
		switch (pl->pages_requested) {
		case HP_PAGES_OFF: {
			/* off is the same on every host: no huge page from hugepolicy
			 * nor from the kernel's default, a program's own MADV_HUGEPAGE
			 * kept wherever the kernel can tell it apart */
			const char *je = pl->backend == HP_BACKEND_JEMALLOC ? " (and jemalloc's opt.thp=never)" : "";
			if (p->thp_process_off == HP_THP_OFF_ALL)
				PROC(pl, HP_THP_PROC_KEEP, "off: THP already disabled for this process (inherited "
				     "PR_SET_THP_DISABLE)");
			else if (p->thp_process_off == HP_THP_OFF_EXCEPT_ADVISED)
				PROC(pl, HP_THP_PROC_KEEP, "off: the inherited PR_THP_DISABLE_EXCEPT_ADVISED already keeps "
				     "THP to memory the program advises itself, as off on a madvise host%s", je);
			else if (p->thp_except_advised_ok)
				PROC(pl, HP_THP_PROC_EXCEPT_ADVISED, "off on a THP always host: prctl(PR_SET_THP_DISABLE, 1, "
				     "PR_THP_DISABLE_EXCEPT_ADVISED): THP only where the program advises it itself, "
				     "as off on a madvise host%s", je);
			else
				PROC(pl, HP_THP_PROC_DISABLE, "off on a THP always host: prctl(PR_SET_THP_DISABLE, 1, 0) "
				     "keeps THP out of the whole process%s; kernel %s has no "
				     "PR_THP_DISABLE_EXCEPT_ADVISED (6.18), so the program's own MADV_HUGEPAGE gets no THP "
				     "either", je, p->kernel[0] ? p->kernel : "(unknown)");
			SMALL(pl, 0, "not needed: off");
			return;
		}
		case HP_PAGES_THP:
			PROC(pl, HP_THP_PROC_KEEP, "no switch: THP always, pages=thp");
			SMALL(pl, 0, "not needed: pages=thp");
			return;
		default:
			always_large_only(p, pl);
			return;
		}
	}
	if (p->thp_process_off != HP_THP_OFF_NONE)
		PROC(pl, HP_THP_PROC_KEEP, "inherited %s kept (THP enabled=%s)", inherited(p->thp_process_off), host);
	else
		PROC(pl, HP_THP_PROC_KEEP, "no switch: THP enabled=%s", host);
	SMALL(pl, 0, "not needed: THP enabled=%s", host);
}
