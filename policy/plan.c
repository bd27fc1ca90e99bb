/*
 * plan.c - options + probe (+ what start-up learned: plan_facts.c) ->
 * decisions, each with its reason.  A pure function: no I/O, no
 * environment, no global state.  Start-up calls it again each time it
 * learns a fact (the THP switch as the kernel took it, the backend's own
 * settings in force, a backend that cannot run); once the backend is
 * configured the plan is read-only.  Nothing outside policy/ sets a
 * decision of the plan.
 *
 * Rules (docs/design.md): decide automatically and fall back
 * gracefully; hugetlb only where Free-Rsvd (and the cgroup limit) leave room,
 * since a hugetlb fault that cannot be served is a SIGBUS; THP only where the
 * kernel's `enabled` is not `never`.
 */
#include "hp_policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void reason(struct hp_plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(struct hp_plan *pl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pl->pages_reason, sizeof pl->pages_reason, fmt, ap);
	va_end(ap);
}

/* THP for what hugepolicy advises, once the plan's own switch is applied
 * (plan_thp.c; off's DISABLE is not counted: off advises nothing) */
static int thp_off_after(const struct hp_probe *p, const struct hp_plan *pl)
{
	return pl->thp_process == HP_THP_PROC_DISABLE ? p->thp_process_off : hp_plan_thp_off(p, pl->thp_process);
}

static int thp_usable_for(const struct hp_probe *p, const struct hp_plan *pl)
{
	return (p->thp_enabled == HP_THP_ALWAYS || p->thp_enabled == HP_THP_MADVISE) &&
	       thp_off_after(p, pl) != HP_THP_OFF_ALL;
}

/* THP, or off when the kernel has it `never` or has no THP at all. */
static int thp_or_off(const struct hp_probe *p, const struct hp_plan *pl)
{
	return thp_usable_for(p, pl) ? HP_PAGES_THP : HP_PAGES_OFF;
}

/* What bounds the pages available: the pool (Free-Rsvd, surplus headroom)
 * or, where it is tighter, the cgroup limit - named as the cause. */
static void avail_note(const struct hp_pool *pool, char *buf, size_t cap)
{
	unsigned long long surplus = (unsigned long long)hp_pool_surplus_room(pool);
	char sn[80] = "";
	if (surplus)
		snprintf(sn, sizeof sn, " + surplus headroom %llu (nr_overcommit_hugepages)", surplus);
	if (hp_pool_cgroup_bound(pool))
		snprintf(buf, cap, "limited by the cgroup limit %s: %lld B, %lld B used; the pool's Free-Rsvd%s has %llu",
			 pool->cg_where, (long long)pool->cg_max, (long long)(pool->cg_current > 0 ? pool->cg_current : 0),
			 sn, (unsigned long long)hp_pool_headroom(pool));
	else
		snprintf(buf, cap, "Free-Rsvd%s%s%s", sn, pool && pool->cg_max >= 0 ? ", " : "",
			 pool && pool->cg_max >= 0 ? pool->cg_where : "");
}

static const char *hugetlb_min_note(uint64_t threshold)
{
	return threshold < HP_HUGE_2M ? "blocks >= 2 MiB from the pool (HUGEPOLICY_THRESHOLD is below "
					"one huge page; smaller blocks stay with the allocator)"
				      : "blocks >= threshold from the pool";
}

/* "; <which pools serve which blocks>" after the reason (plan_pagesize.c) */
static void size_note(struct hp_plan *pl)
{
	size_t len = strlen(pl->pages_reason);
	/* pages=auto with one pool size in use says nothing new */
	if (pl->hugetlb_size_reason[0] && (pl->hugetlb_big_page || pl->hugetlb_size_asked ||
					   pl->pages_requested == HP_PAGES_HUGETLB))
		snprintf(pl->pages_reason + len, sizeof pl->pages_reason - len, "; %s", pl->hugetlb_size_reason);
}

void hp_plan_make(const struct hp_options *o, const struct hp_probe *p, struct hp_plan *pl)
{
	hp_plan_make_with(o, p, NULL, pl);
}

void hp_plan_make_with(const struct hp_options *opt, const struct hp_probe *p, const struct hp_plan_facts *f,
		       struct hp_plan *pl)
{
	struct hp_options failed;
	const struct hp_options *o = opt;
	if (f && f->backend_failed) {
		failed = *opt;
		failed.backend = HP_BACKEND_SYSTEM;     /* the one backend that is always there */
		o = &failed;
	}
	memset(pl, 0, sizeof *pl);
	pl->backend = o->backend;
	pl->pages_requested = o->pages;
	pl->threshold = o->threshold;
	/* a block below one huge page would take a whole 2 MiB page of the pool
	 * and cost a mapping per malloc: the pool starts at 2 MiB (or at the
	 * page size of the pool that serves such blocks, plan_pagesize.c) */
	pl->hugetlb_min = o->threshold < HP_HUGE_2M ? HP_HUGE_2M : o->threshold;
	uint64_t small_av, big_av;
	hp_plan_pagesize(o, p, pl, &small_av, &big_av);
	pl->reserve = o->reserve;
	pl->verbose = o->verbose;
	pl->stats = o->stats;
	pl->fork_copy = o->fork_copy;
	hp_plan_thp(o, p, pl);
	pl->thp_available = thp_usable_for(p, pl);
	pl->user_malloc_conf = o->user_malloc_conf;
	pl->user_mi_large = o->user_mi_large;
	pl->user_mi_reserve = o->user_mi_reserve;

	/* the pool of blocks below the big pool's size: 2 MiB, or the default */
	const struct hp_pool *pool = pl->hugetlb_page ? hp_probe_pool(p, pl->hugetlb_page) : hp_plan_small_pool(p);
	uint64_t ps = pool ? pool->page_size : HP_HUGE_2M;
	uint64_t avail = hp_pool_available(pool);
	uint64_t want = (o->threshold + ps - 1) / ps;   /* pages for one block */
	int off = thp_off_after(p, pl);
	/* hugetlb_pages.c maps nothing it cannot populate; an unknown kernel is
	 * left to that check */
	int no_populate = p->kernel[0] && !p->populate_write_ok;
	char thp[128], thp_note[144], note[224], pn[24], bn[24];
	hp_size_name(ps, pn, sizeof pn);
	hp_size_name(pl->hugetlb_big_page, bn, sizeof bn);
	snprintf(thp, sizeof thp, "%s%s", off == HP_THP_OFF_ALL ? "off for this process (PR_SET_THP_DISABLE)"
		 : hp_thp_name(p->thp_enabled), off == HP_THP_OFF_EXCEPT_ADVISED ? ", madvise-only for this "
		 "process (PR_THP_DISABLE_EXCEPT_ADVISED)" : pl->thp_process == HP_THP_PROC_CLEAR ?
		 " (inherited PR_SET_THP_DISABLE cleared)" : "");
	snprintf(thp_note, sizeof thp_note, " (THP %s)", thp);
	avail_note(pool, note, sizeof note);
	pl->pool_available = pl->hugetlb_page || !pl->hugetlb_big_page ? avail : big_av;
	/* an explicit thp (or a fallback to it) is the backend's own kind */
	pl->thp_scope = o->backend == HP_BACKEND_SYSTEM ? HP_THP_LARGE : HP_THP_ALL;

	switch (o->pages) {
	case HP_PAGES_OFF:
		pl->pages = HP_PAGES_OFF;
		reason(pl, "requested");
		break;
	case HP_PAGES_THP:
		/* mimalloc: large_os_pages with its hugetlb mmaps refused by
		 * hugepolicy (mimalloc_os.c), so thp is THP and leaves the pool */
		pl->pages = thp_or_off(p, pl);
		if (pl->pages == HP_PAGES_THP)
			reason(pl, "requested; THP enabled=%s", thp);
		else
			reason(pl, "THP requested but the kernel has THP enabled=%s; using base pages", thp);
		break;
	case HP_PAGES_HUGETLB:
		/* the pool's fallback is THP on large blocks, every backend */
		pl->thp_scope = HP_THP_LARGE;
		if (no_populate) {
			pl->pages = thp_or_off(p, pl);
			reason(pl, "hugetlb requested but kernel %s has no MADV_POPULATE_WRITE (5.14), and hugepolicy "
			       "maps no hugetlb memory it cannot populate (a SIGBUS later); using %s%s", p->kernel,
			       pl->pages == HP_PAGES_THP ? "THP" : "base pages", pl->pages == HP_PAGES_THP ? "" : thp_note);
		} else if (!pl->hugetlb_page && !pl->hugetlb_big_page && pool && pool->cg_error) {
			pl->pages = thp_or_off(p, pl);
			reason(pl, "hugetlb requested but the cgroup hugetlb limit is unknown (%s), so no pool "
			       "page is taken; using %s%s", pool->cg_where, pl->pages == HP_PAGES_THP ? "THP" : "base pages",
			       pl->pages == HP_PAGES_THP ? "" : thp_note);
			size_note(pl);
		} else if (!pl->hugetlb_page && !pl->hugetlb_big_page) {
			pl->pages = thp_or_off(p, pl);
			reason(pl, "hugetlb requested but the %s pool has 0 pages available (%s; raise %s); "
			       "using %s%s", pn, note, hp_pool_cgroup_bound(pool) ? "that limit" : "/proc/sys/vm/nr_hugepages",
			       pl->pages == HP_PAGES_THP ? "THP" : "base pages", pl->pages == HP_PAGES_THP ? "" : thp_note);
			size_note(pl);
		} else if (!pl->hugetlb_page) {
			/* only the larger pool has room (or was asked for) */
			pl->pages = HP_PAGES_HUGETLB;
			reason(pl, "requested; the %s pool has room, populated when mapped, else %s", bn,
			       thp_usable_for(p, pl) ? "THP" : "base pages");
			size_note(pl);
		} else {
			pl->pages = HP_PAGES_HUGETLB;
			reason(pl, "requested; %s pool has %llu pages available (%s); %s, "
			       "populated when mapped, else %s", pn, (unsigned long long)avail, note,
			       hugetlb_min_note(o->threshold), thp_usable_for(p, pl) ? "THP" : "base pages");
			size_note(pl);
		}
		break;
	default: /* AUTO */
		/* THP first: it cannot fail later, and only on blocks >= threshold
		 * (docs/design.md: huge pages pay on large, dense memory; whole-heap THP
		 * bloats small and sparse heaps), for every backend - so mimalloc
		 * does not turn on large_os_pages, which would take hugetlb pages
		 * first.  hugetlb only where THP is not there: a forked child's
		 * copy-on-write of a hugetlb page needs a free pool page and is
		 * killed when there is none, so the pool is used by default only
		 * when it is the one huge-page kind on offer (libhugetlbfs, too, is
		 * opt-in).  Whether to take the pool is the small pool's room; a
		 * larger pool then serves blocks of its size (plan_pagesize.c). */
		if (thp_usable_for(p, pl)) {
			pl->pages = HP_PAGES_THP;
			pl->thp_scope = HP_THP_LARGE;
			reason(pl, "auto: THP enabled=%s; MADV_HUGEPAGE on blocks >= %llu B%s", thp,
			       (unsigned long long)o->threshold,
			       o->backend == HP_BACKEND_SYSTEM ? "" : o->promote ? "; smaller blocks on base pages "
			       "until the heap is large and dense (HUGEPOLICY_PROMOTE)" : "; smaller blocks on base "
			       "pages (pages=thp would turn on the allocator's whole-heap THP)");
		} else if (avail >= want && avail > 0 && no_populate) {
			pl->pages = HP_PAGES_OFF;
			reason(pl, "auto: THP enabled=%s and kernel %s has no MADV_POPULATE_WRITE (5.14) to take the "
			       "hugetlb pool safely; base pages only", thp, p->kernel);
		} else if (avail >= want && avail > 0 && (pl->hugetlb_page || pl->hugetlb_big_page)) {
			pl->pages = HP_PAGES_HUGETLB;
			reason(pl, "auto: THP enabled=%s; %s hugetlb pool has %llu pages available "
			       "(%s), enough for a %llu-byte block", thp, pn, (unsigned long long)avail, note,
			       (unsigned long long)o->threshold);
			size_note(pl);
		} else {
			pl->pages = HP_PAGES_OFF;
			reason(pl, "auto: THP enabled=%s and no room in the hugetlb pool; base pages only", thp);
		}
		break;
	}
	if (pl->pages != HP_PAGES_HUGETLB)
		pl->hugetlb_page = pl->hugetlb_big_page = pl->hugetlb_big_min = 0;
	hp_plan_promote(o, pl);
	hp_plan_adapt(o, pl);
	if (f)
		hp_plan_facts(f, pl);
	hp_plan_mthp(p, pl);    /* on the pages and scope the facts left */
}
