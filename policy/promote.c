/*
 * promote.c - when `auto` turns on whole-heap THP: the rule, as a table.
 *
 * `auto` advises blocks >= threshold (numpy's 4 MiB rule), which leaves the
 * faults of mid-size and small blocks on large heaps (Embree's BVH nodes,
 * Blender's meshes) to base pages; whole-heap THP (`thp`) takes them, but
 * bloats small and sparse heaps (POV-Ray 25 -> 52 MiB peak RSS under
 * jemalloc opt.thp=always; 100 idle threads 12 -> 45 MiB).  So the
 * allocator's heap is promoted - its new memory advised MADV_HUGEPAGE, as
 * its own whole-heap switch would - once it is large and dense:
 *
 *   verdict  when (first row that holds)                why
 *   NEVER    promote_min = 0                            HUGEPOLICY_PROMOTE=off, not auto, system
 *   SMALL    resident - big < promote_min               a small heap keeps base pages
 *   SPARSE   resident < 50 % of what it mapped          THP would fault in what it never touches
 *   NOW      otherwise                                  large and dense: new memory on THP
 *
 * resident is what the kernel finds resident (mincore) in the allocator's
 * own mappings, mapped what the allocator has mapped through hugepolicy's
 * hooks: memory other code maps counts in neither.  big is what is
 * resident in the live blocks of at least the threshold: those have the
 * threshold's advice already, so a heap is large only by what lies
 * outside them (a heap of big blocks alone gains nothing from promotion
 * but its small blocks' and freed memory's pages made huge); they count
 * for density, as what the allocator touches of what it maps.  Once NOW,
 * it stays (a heap that shrinks again keeps its advice: the allocator's
 * purging splits what it gives back).  Pure: pages/heap_promote.c samples
 * and acts.
 */
#include "hp_policy.h"

#include <stdio.h>

struct row {
	int verdict;
	int (*holds)(uint64_t min, const struct hp_heap_sample *h);
	const char *fmt;        /* outside MiB, big MiB, min MiB | resident MiB, mapped MiB, percent */
};

static uint64_t outside(const struct hp_heap_sample *h)
{
	return h->resident > h->big ? h->resident - h->big : 0;
}

static int never(uint64_t min, const struct hp_heap_sample *h) { (void)h; return min == 0; }
static int small(uint64_t min, const struct hp_heap_sample *h) { return outside(h) < min; }
static int sparse(uint64_t min, const struct hp_heap_sample *h)
{
	(void)min;
	return h->resident * 100 < h->mapped * HP_PROMOTE_DENSE_PCT;
}
static int always(uint64_t min, const struct hp_heap_sample *h) { (void)min; (void)h; return 1; }

static const struct row rules[] = {
	{ HP_PROMOTE_NEVER, never, "not promoted: off" },
	{ HP_PROMOTE_SMALL, small, "heap small: %llu MiB resident outside big blocks (%llu MiB in them), below %llu MiB" },
	{ HP_PROMOTE_SPARSE, sparse, "heap sparse: %llu MiB resident of %llu MiB mapped (%u %%, below 50 %%)" },
	{ HP_PROMOTE_NOW, always, "promoted at %llu MiB resident of %llu MiB mapped (%u %%), %llu MiB outside big "
	  "blocks: the allocator's new memory advised MADV_HUGEPAGE" },
};

int hp_promote_decide(uint64_t min, const struct hp_heap_sample *h, char *why, size_t cap)
{
	unsigned pct = h->mapped ? (unsigned)(h->resident * 100 / h->mapped) : 100;
	unsigned long long r = h->resident >> 20, m = h->mapped >> 20, lo = min >> 20, out = outside(h) >> 20,
			   big = h->big >> 20;
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		if (!rules[i].holds(min, h))
			continue;
		if (why && cap) {
			switch (rules[i].verdict) {
			case HP_PROMOTE_SMALL: snprintf(why, cap, rules[i].fmt, out, big, lo); break;
			case HP_PROMOTE_NEVER: snprintf(why, cap, "%s", rules[i].fmt); break;
			case HP_PROMOTE_SPARSE: snprintf(why, cap, rules[i].fmt, r, m, pct); break;
			default: snprintf(why, cap, rules[i].fmt, r, m, pct, out); break;
			}
		}
		return rules[i].verdict;
	}
	return HP_PROMOTE_NEVER;        /* not reached: the last row always holds */
}

/* plan time: is this plan's heap ever promoted, and why (not) */
void hp_plan_promote(const struct hp_options *o, struct hp_plan *pl)
{
	pl->promote_min = 0;
	if (pl->pages_requested != HP_PAGES_AUTO || pl->pages != HP_PAGES_THP || pl->thp_scope != HP_THP_LARGE) {
		snprintf(pl->promote_reason, sizeof pl->promote_reason, "not promoted: only pages=auto on THP "
			 "promotes (pages=%s)", hp_pages_name(pl->pages));
	} else if (pl->backend == HP_BACKEND_SYSTEM) {
		snprintf(pl->promote_reason, sizeof pl->promote_reason, "not promoted: glibc maps its heap "
			 "(brk, arenas) where hugepolicy cannot see it");
	} else if (o->promote == 0) {
		snprintf(pl->promote_reason, sizeof pl->promote_reason, "not promoted: HUGEPOLICY_PROMOTE=off");
	} else {
		pl->promote_min = o->promote;
		snprintf(pl->promote_reason, sizeof pl->promote_reason, "whole-heap THP once %llu MiB are "
			 "resident outside big blocks and at least %d %% of what the allocator mapped",
			 (unsigned long long)(o->promote >> 20), HP_PROMOTE_DENSE_PCT);
	}
}

static const char *const state_names[] = {
	[HP_PROMOTE_STATE_OFF] = "off", [HP_PROMOTE_STATE_UNSAMPLED] = "unsampled",
	[HP_PROMOTE_STATE_WAITING] = "waiting", [HP_PROMOTE_STATE_HELD] = "held",
	[HP_PROMOTE_STATE_PROMOTED] = "promoted", [HP_PROMOTE_STATE_PAUSED] = "paused",
};

const char *hp_promote_state_name(int state)
{
	return state >= 0 && state <= HP_PROMOTE_STATE_PAUSED ? state_names[state] : "?";
}
