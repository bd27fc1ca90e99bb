/*
 * region_say.c - HUGEPOLICY_VERBOSE for regions: one line per region
 * decision, bounded so that a host making thousands of small regions does
 * not flood its log: the first SAY_FIRST decisions are printed, after that
 * only a decision whose reason lines (digits ignored: sizes and counts)
 * differ from every one printed before, and at most SAY_MAX lines in all;
 * one line says so the first time a repeat is hidden, one when the limit is
 * reached.  hugepolicy_region_info() still gives every region's reasons,
 * and the stats count every region.
 */
#include "hp_region.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define SAY_FIRST 8u
#define SAY_MAX 32u

static atomic_flag said_lock = ATOMIC_FLAG_INIT;
static uint32_t said, sigs[SAY_MAX], nsigs, hushed;     /* under said_lock */

static void lock(void)
{
	while (atomic_flag_test_and_set_explicit(&said_lock, memory_order_acquire))
		hp_region_os_yield();
}

static void unlock(void)
{
	atomic_flag_clear_explicit(&said_lock, memory_order_release);
}

/* The verbose line for a decision (what = "region", "resize"), bounded. */
void hp_region_say(const struct hp_region *r, const char *what)
{
	if ((r->opt.flags & HUGEPOLICY_REGION_QUIET) || !hp_region_os_verbose())
		return;
	uint32_t sig = 2166136261u;
	for (const char *s = r->why; *s; s++)
		if (*s < '0' || *s > '9')
			sig = (sig ^ (unsigned char)*s) * 16777619u;
	int print = 0, last = 0, hush = 0;
	lock();
	if (said < SAY_MAX) {
		int seen = 0;
		for (uint32_t i = 0; i < nsigs; i++)
			seen |= sigs[i] == sig;
		if (said < SAY_FIRST || !seen) {
			print = 1;
			last = ++said == SAY_MAX;
			if (!seen && nsigs < SAY_MAX)
				sigs[nsigs++] = sig;
		} else if (!hushed) {
			hush = hushed = 1;      /* said once: repeats are not printed */
		}
	}
	unlock();
	if (hush)
		hp_region_os_say("region: further decisions like those above are not printed "
				 "(hugepolicy_region_info() gives each region's reasons)");
	if (!print)
		return;
	char line[480];
	int n = snprintf(line, sizeof line, "%s %p %llu bytes: %s (asked %s): ", what, (void *)r->base,
			 (unsigned long long)r->req, hugepolicy_region_kind_name(r->kind),
			 hugepolicy_region_kind_name(r->opt.pages));
	size_t len = n > 0 && (size_t)n < sizeof line ? (size_t)n : 0;
	for (const char *s = r->why; *s && len + 3 < sizeof line; s++) {
		if (*s != '\n')
			line[len++] = *s;
		else if (s[1]) {
			line[len++] = ';';
			line[len++] = ' ';
		}
	}
	line[len] = '\0';
	hp_region_os_say(line);
	if (last)
		hp_region_os_say("region: further region decisions are not printed (at most 32 lines; "
				 "hugepolicy_region_info() gives each region's reasons)");
}
