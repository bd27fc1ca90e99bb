/* test_promote_rule.c - the heap-promotion rule (policy/promote.c): each
 * row of its table wins where it should, says why with the numbers, and
 * the plan enables it for jemalloc and mimalloc under pages=auto on THP
 * only. */
#include "check.h"
#include "../policy/hp_policy.h"

#include <stdio.h>
#include <string.h>

#define MIB ((uint64_t)1 << 20)

static void row(uint64_t min, uint64_t res, uint64_t mapped, uint64_t big, int want, const char *says)
{
	char why[224] = "";
	struct hp_heap_sample h = { res, mapped, big };
	int got = hp_promote_decide(min, &h, why, sizeof why);
	printf("min %llu MiB, resident %llu MiB, mapped %llu MiB, big %llu MiB -> %d: %s\n",
	       (unsigned long long)(min / MIB), (unsigned long long)(res / MIB), (unsigned long long)(mapped / MIB),
	       (unsigned long long)(big / MIB), got, why);
	CHECK_MSG(got == want, "verdict %d, want %d", got, want);
	CHECK_MSG(strstr(why, says) != NULL, "'%s' does not say '%s'", why, says);
}

static void plan(int backend, int pages, uint64_t promote, int thp_enabled, uint64_t want)
{
	struct hp_options o;
	struct hp_probe p;
	struct hp_plan pl;
	hp_options_defaults(&o);
	memset(&p, 0, sizeof p);
	p.thp_enabled = thp_enabled;
	o.backend = backend;
	o.pages = pages;
	o.promote = promote;
	hp_plan_make(&o, &p, &pl);
	printf("%s/%s promote=%llu THP %s: promote_min %llu (%s)\n", hp_backend_name(backend), hp_pages_name(pages),
	       (unsigned long long)promote, hp_thp_name(thp_enabled), (unsigned long long)pl.promote_min,
	       pl.promote_reason);
	CHECK(pl.promote_min == want);
	CHECK(pl.promote_reason[0] != 0);
}

int main(void)
{
	row(0, 512 * MIB, 512 * MIB, 0, HP_PROMOTE_NEVER, "off");
	row(128 * MIB, 100 * MIB, 120 * MIB, 0, HP_PROMOTE_SMALL, "100 MiB resident outside big blocks (0 MiB in them), below 128 MiB");
	row(128 * MIB, 128 * MIB - 1, 128 * MIB, 0, HP_PROMOTE_SMALL, "heap small");
	row(128 * MIB, 200 * MIB, 401 * MIB, 0, HP_PROMOTE_SPARSE, "200 MiB resident of 401 MiB mapped");
	row(128 * MIB, 200 * MIB, 400 * MIB, 0, HP_PROMOTE_NOW, "promoted at 200 MiB resident of 400 MiB mapped (50 %)");
	row(128 * MIB, 128 * MIB, 128 * MIB, 0, HP_PROMOTE_NOW, "(100 %)");
	row(128 * MIB, 0, 0, 0, HP_PROMOTE_SMALL, "heap small");
	/* big blocks: large only by what lies outside them, dense with them */
	row(128 * MIB, 400 * MIB, 420 * MIB, 370 * MIB, HP_PROMOTE_SMALL,
	    "30 MiB resident outside big blocks (370 MiB in them), below 128 MiB");
	row(128 * MIB, 500 * MIB, 900 * MIB, 300 * MIB, HP_PROMOTE_NOW, "(55 %), 200 MiB outside big blocks");
	row(128 * MIB, 500 * MIB, 1100 * MIB, 300 * MIB, HP_PROMOTE_SPARSE, "500 MiB resident of 1100 MiB mapped");
	row(128 * MIB, 100 * MIB, 100 * MIB, 200 * MIB, HP_PROMOTE_SMALL, "0 MiB resident outside");

	struct hp_options d;
	hp_options_defaults(&d);
	CHECK_MSG(d.promote == 128 * MIB, "default %llu", (unsigned long long)d.promote);
	plan(HP_BACKEND_JEMALLOC, HP_PAGES_AUTO, 128 * MIB, HP_THP_MADVISE, 128 * MIB);
	plan(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, 64 * MIB, HP_THP_ALWAYS, 64 * MIB);
	plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, 128 * MIB, HP_THP_MADVISE, 0);
	plan(HP_BACKEND_JEMALLOC, HP_PAGES_THP, 128 * MIB, HP_THP_MADVISE, 0);
	plan(HP_BACKEND_MIMALLOC, HP_PAGES_OFF, 128 * MIB, HP_THP_MADVISE, 0);
	plan(HP_BACKEND_JEMALLOC, HP_PAGES_AUTO, 0, HP_THP_MADVISE, 0);
	plan(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, 128 * MIB, HP_THP_NEVER, 0);
	return check_result("test_promote_rule");
}
