/*
 * plan_pagesize.c - which hugetlb pool serves which blocks under
 * pages=hugetlb (HUGEPOLICY_HUGETLB_SIZE), from the pools the probe found.
 * Pure, as plan.c: no I/O, the reason says why.
 *
 * auto: a block at least as big as a larger pool's page (x86: 1 GiB) comes
 * from that pool where it has room - one page-table entry per GiB, and the
 * pool that suits it - everything else from the 2 MiB pool, or from the
 * kernel's default size where there is no 2 MiB pool (arm64 64K: 512 MiB).
 * Of several larger pools (arm64 64K: 512 MiB and 16 GiB over 2 MiB) the
 * smallest with room is taken: it serves the most blocks and wastes the
 * least at the end of one.  A size: that pool only (a smaller block does not
 * take a whole larger page: it takes the pool's fallback); a kernel without
 * that pool, or a pool without room, gets what auto would, and the reason
 * says so.  Pools are system-wide: what they have at start-up decides, and
 * a mapping that finds no room later falls back (hugetlb_large.c).
 */
#include "hp_policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void note(struct hp_plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct hp_plan *pl, const char *fmt, ...)
{
	size_t len = strlen(pl->hugetlb_size_reason);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pl->hugetlb_size_reason + len, sizeof pl->hugetlb_size_reason - len, fmt, ap);
	va_end(ap);
}

const struct hp_pool *hp_plan_small_pool(const struct hp_probe *p)
{
	const struct hp_pool *q = hp_probe_pool(p, HP_HUGE_2M);
	if (!q && p->default_huge)
		q = hp_probe_pool(p, p->default_huge);
	return q;
}

/* The smallest pool above `above` with room for one page; *empty: the
 * smallest such pool without room (for the reason), else NULL. */
static const struct hp_pool *larger_pool(const struct hp_probe *p, uint64_t above, const struct hp_pool **empty)
{
	const struct hp_pool *best = NULL;
	*empty = NULL;
	for (int i = 0; i < p->npools; i++) {
		const struct hp_pool *q = &p->pools[i];
		if (q->page_size <= above)
			continue;
		if (hp_pool_available(q) > 0) {
			if (!best || q->page_size < best->page_size)
				best = q;
		} else if (!*empty || q->page_size < (*empty)->page_size) {
			*empty = q;
		}
	}
	return best;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;
	return m > c ? m : c;
}

/* auto's choice, its note appended */
static void choose_auto(const struct hp_probe *p, struct hp_plan *pl, uint64_t *small, uint64_t *big,
			const char *prefix)
{
	const struct hp_pool *sp = hp_plan_small_pool(p), *empty;
	uint64_t sps = sp ? sp->page_size : HP_HUGE_2M;
	char sn[24], bn[24];
	hp_size_name(sps, sn, sizeof sn);
	*small = hp_pool_available(sp);
	pl->hugetlb_page = *small ? sps : 0;
	pl->hugetlb_min = max3(pl->threshold, HP_HUGE_2M, sps);
	const struct hp_pool *bp = larger_pool(p, sps, &empty);
	if (!bp) {
		if (empty) {
			hp_size_name(empty->page_size, bn, sizeof bn);
			note(pl, "%sthe %s pool has 0 pages available, so no block comes from it", prefix, bn);
		}
		return;         /* one page size: nothing to say */
	}
	hp_size_name(bp->page_size, bn, sizeof bn);
	*big = hp_pool_available(bp);
	pl->hugetlb_big_page = bp->page_size;
	pl->hugetlb_big_min = pl->hugetlb_min > bp->page_size ? pl->hugetlb_min : bp->page_size;
	note(pl, "%sblocks >= %s from the %s pool (%llu pages available; a block takes whole %s pages), ", prefix,
	     bn, bn, (unsigned long long)*big, bn);
	if (*small)
		note(pl, "smaller ones from the %s pool", sn);
	else if (sp)
		note(pl, "smaller ones take the fallback: the %s pool has 0 pages available", sn);
	else
		note(pl, "smaller ones take the fallback: the kernel has no 2 MiB pool");
	if (sp && sps != HP_HUGE_2M)
		note(pl, " (the default size: no 2 MiB pool)");
}

void hp_plan_pagesize(const struct hp_options *o, const struct hp_probe *p, struct hp_plan *pl,
		      uint64_t *small, uint64_t *big)
{
	pl->hugetlb_page = pl->hugetlb_big_page = pl->hugetlb_big_min = 0;
	pl->hugetlb_size_asked = o->hugetlb_size;
	pl->hugetlb_size_reason[0] = '\0';
	*small = *big = 0;
	if (o->hugetlb_size == 0) {
		choose_auto(p, pl, small, big, "HUGEPOLICY_HUGETLB_SIZE auto: ");
		return;
	}
	char an[24];
	hp_size_name(o->hugetlb_size, an, sizeof an);
	const struct hp_pool *q = hp_probe_pool(p, o->hugetlb_size);
	uint64_t av = hp_pool_available(q);
	if (!q || av == 0) {
		if (!q)
			note(pl, "HUGEPOLICY_HUGETLB_SIZE %s, but the kernel has no %s hugetlb pool; as auto: ", an, an);
		else
			note(pl, "HUGEPOLICY_HUGETLB_SIZE %s, but the %s pool has 0 pages available%s%s; as auto: ", an,
			     an, q->cg_error || hp_pool_cgroup_bound(q) ? " under " : "",
			     q->cg_error || hp_pool_cgroup_bound(q) ? q->cg_where : "");
		size_t said = strlen(pl->hugetlb_size_reason);
		choose_auto(p, pl, small, big, "");
		if (strlen(pl->hugetlb_size_reason) == said) {        /* auto had one size only */
			char sn[24];
			hp_size_name(pl->hugetlb_page ? pl->hugetlb_page : HP_HUGE_2M, sn, sizeof sn);
			note(pl, "the %s pool (%llu pages available)", sn, (unsigned long long)*small);
		}
		return;
	}
	const struct hp_pool *sp = hp_plan_small_pool(p);
	uint64_t sps = sp ? sp->page_size : HP_HUGE_2M;
	if (o->hugetlb_size <= sps) {
		/* that pool for every block >= hugetlb_min */
		pl->hugetlb_page = o->hugetlb_size;
		pl->hugetlb_min = max3(pl->threshold, HP_HUGE_2M, o->hugetlb_size);
		*small = av;
		note(pl, "HUGEPOLICY_HUGETLB_SIZE %s: the %s pool only (%llu pages available)", an, an,
		     (unsigned long long)av);
		const struct hp_pool *empty, *bp = larger_pool(p, o->hugetlb_size, &empty);
		if (bp || empty) {
			char bn[24];
			hp_size_name((bp ? bp : empty)->page_size, bn, sizeof bn);
			note(pl, ", not the %s pool", bn);
		}
		return;
	}
	/* a larger page only: smaller blocks do not take a whole one */
	pl->hugetlb_min = max3(pl->threshold, HP_HUGE_2M, sps);
	pl->hugetlb_big_page = o->hugetlb_size;
	pl->hugetlb_big_min = pl->hugetlb_min > o->hugetlb_size ? pl->hugetlb_min : o->hugetlb_size;
	*big = av;
	char sn[24];
	hp_size_name(sps, sn, sizeof sn);
	note(pl, "HUGEPOLICY_HUGETLB_SIZE %s: blocks >= %s from the %s pool only (%llu pages available), "
	     "smaller ones take the fallback, not the %s pool", an, an, an, (unsigned long long)av, sn);
}
