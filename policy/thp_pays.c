/*
 * thp_pays.c - does a THP fault pay on this host now: the rule, as a table.
 *
 * What auto's huge pages promise is a fault saving (no TLB gain is
 * promised: docs/design.md).  One THP fault maps and zeroes a whole huge page
 * where base pages would fault one page at a time, so THP pays where it
 * costs less than the base-page faults it replaces: per_huge of them for
 * memory the caller fills (a big block), density % of them for a heap
 * whose mappings are density % resident.  Both costs differ from host to
 * host and on one host from hour to hour (a huge page the host took back
 * faults in at many times the cost of one just freed), so they are
 * measured in the process (pages/fault_cost.c) or pinned by
 * HUGEPOLICY_FAULT_COST:
 *
 *   verdict   when (first row that holds)                   THP goes ahead
 *   FIXED     adapt off                                     yes (the fixed rules)
 *   UNKNOWN   nothing measured (the measurement failed)     yes (the fixed rules)
 *   NO_THP    the measured fault got no huge page           no: THP not given now
 *   YES       thp_ns x 100 < per_huge x density x base_ns   yes: cheaper in huge pages
 *   NO        otherwise                                     no: base faults cheaper
 *
 * Pure: no I/O, no state.
 */
#include "hp_policy.h"

#include <stdio.h>

struct row {
	int verdict;
	int (*holds)(int adapt, const struct hp_fault_costs *c, unsigned density);
};

static int fixed(int adapt, const struct hp_fault_costs *c, unsigned d)
{
	(void)c, (void)d;
	return adapt == HP_ADAPT_OFF;
}

static int unknown(int adapt, const struct hp_fault_costs *c, unsigned d)
{
	(void)adapt, (void)d;
	return !c || c->base_ns == 0 || c->per_huge == 0 || (c->got_thp && c->thp_ns == 0);
}

static int no_thp(int adapt, const struct hp_fault_costs *c, unsigned d)
{
	(void)adapt, (void)d;
	return !c->got_thp;
}

static int cheaper(int adapt, const struct hp_fault_costs *c, unsigned d)
{
	(void)adapt;
	/* in 128-bit: ns x 100 x 512 fits 64 bits, but pinned values are a user's */
	return (unsigned __int128)c->thp_ns * 100 < (unsigned __int128)c->per_huge * d * c->base_ns;
}

static int otherwise(int adapt, const struct hp_fault_costs *c, unsigned d)
{
	(void)adapt, (void)c, (void)d;
	return 1;
}

static const struct row rules[] = {
	{ HP_PAYS_FIXED, fixed },
	{ HP_PAYS_UNKNOWN, unknown },
	{ HP_PAYS_NO_THP, no_thp },
	{ HP_PAYS_YES, cheaper },
	{ HP_PAYS_NO, otherwise },
};

int hp_thp_pays_go(int verdict)
{
	return verdict == HP_PAYS_FIXED || verdict == HP_PAYS_UNKNOWN || verdict == HP_PAYS_YES;
}

int hp_thp_pays(int adapt, const struct hp_fault_costs *c, unsigned density_pct, char *why, size_t cap)
{
	int v = HP_PAYS_NO;
	if (density_pct > 100)
		density_pct = 100;
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (rules[i].holds(adapt, c, density_pct)) {
			v = rules[i].verdict;
			break;
		}
	if (!why || !cap)
		return v;
	double base = c ? (double)c->base_ns / 1e3 : 0, thp = c ? (double)c->thp_ns / 1e3 : 0;
	double equiv = c ? base * c->per_huge * density_pct / 100 : 0;
	switch (v) {
	case HP_PAYS_FIXED:
		snprintf(why, cap, "fault costs not used (HUGEPOLICY_FAULT_COST=off)");
		break;
	case HP_PAYS_UNKNOWN:
		snprintf(why, cap, "fault costs unknown (not measured); the fixed rules");
		break;
	case HP_PAYS_NO_THP:
		snprintf(why, cap, "no huge page for a THP fault now (the kernel gave base pages)");
		break;
	default:
		snprintf(why, cap, "a THP fault costs %.0f us, %u %% of %u base faults %.0f us (%.2f us each): %s",
			 thp, density_pct, c->per_huge, equiv, base,
			 v == HP_PAYS_YES ? "THP cheaper" : "base pages cheaper");
		break;
	}
	return v;
}

void hp_plan_adapt(const struct hp_options *o, struct hp_plan *pl)
{
	pl->adapt = HP_ADAPT_OFF;
	if (pl->pages_requested != HP_PAGES_AUTO || pl->pages != HP_PAGES_THP || pl->thp_scope != HP_THP_LARGE) {
		snprintf(pl->adapt_reason, sizeof pl->adapt_reason, "fixed: only pages=auto on THP adapts to "
			 "fault costs (pages=%s)", hp_pages_name(pl->pages));
		return;
	}
	pl->adapt = o->fault_cost;
	switch (o->fault_cost) {
	case HP_ADAPT_OFF:
		snprintf(pl->adapt_reason, sizeof pl->adapt_reason, "fixed: HUGEPOLICY_FAULT_COST=off");
		break;
	case HP_ADAPT_PINNED:
		pl->adapt_pinned = (struct hp_fault_costs){ .base_ns = o->fault_base_ns, .thp_ns = o->fault_thp_ns,
							    .per_huge = 512, .got_thp = 1 };
		snprintf(pl->adapt_reason, sizeof pl->adapt_reason, "THP where it pays, at the fault costs "
			 "HUGEPOLICY_FAULT_COST gives (4 KiB %.2f us, 2 MiB %.0f us)",
			 (double)o->fault_base_ns / 1e3, (double)o->fault_thp_ns / 1e3);
		break;
	default:
		snprintf(pl->adapt_reason, sizeof pl->adapt_reason, "THP where it pays, at fault costs measured "
			 "in the process (again after %d ms of big-block activity)", HP_FAULT_COST_STALE_MS);
		break;
	}
}
