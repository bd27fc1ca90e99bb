/*
 * test_tune_units.c CASE - `hugepolicy tune`'s statistics on fixed inputs
 * (integration/tune_stats.c): the median, the paired ratios and their
 * bootstrap interval, the stop rule, the recommendation, the shuffle.
 */
#include "../integration/hp_tune.h"
#include "check.h"

#include <math.h>
#include <string.h>

static struct tune_state st;

/* configuration c with an interval on wall */
static void set_ci(int c, double med, double lo, double hi, int n)
{
	st.conf[c].ci[TM_WALL] = (struct tune_ci){ n, med, lo, hi };
}

static int median_case(void)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	CHECK(tune_median(odd, 3) == 2);
	CHECK(tune_median(even, 4) == 2.5);
	CHECK(tune_median(one, 1) == 7);
	CHECK(isnan(tune_median(odd, 0)));
	CHECK(odd[0] == 3 && odd[1] == 1);      /* the input is not sorted in place */
	return check_result("median_of_fixed_inputs");
}

static int paired_case(void)
{
	/* per-round ratios 0.9 0.8 1.0 0.85 0.95 of values that drift 5x */
	double base[] = { 10, 20, 30, 40, 50 }, x[] = { 9, 16, 30, 34, 47.5 };
	struct tune_ci a, b;
	tune_paired_ci(x, base, 5, TUNE_BOOTSTRAP, TUNE_SEED, &a);
	tune_paired_ci(x, base, 5, TUNE_BOOTSTRAP, TUNE_SEED, &b);
	printf("ratios 0.9 0.8 1.0 0.85 0.95: median %.4f [%.4f, %.4f]\n", a.med, a.lo, a.hi);
	CHECK(a.n == 5);
	CHECK(fabs(a.med - 0.9) < 1e-12);
	CHECK(a.lo >= 0.8 && a.hi <= 1.0 && a.lo < a.med && a.med < a.hi);
	CHECK(memcmp(&a, &b, sizeof a) == 0);   /* fixed seed: the same interval again */
	/* the median of 5 resampled values is one of them: the bounds are ratios */
	double r[] = { 0.8, 0.85, 0.9, 0.95, 1.0 };
	int lo_is = 0, hi_is = 0;
	for (int i = 0; i < 5; i++)
		lo_is |= fabs(a.lo - r[i]) < 1e-12, hi_is |= fabs(a.hi - r[i]) < 1e-12;
	CHECK(lo_is && hi_is);
	/* a round missing on either side is no pair */
	double xm[] = { 9, NAN, 30, 34, 47.5 }, bm[] = { 10, 20, 30, 0, 50 };
	tune_paired_ci(xm, bm, 5, TUNE_BOOTSTRAP, TUNE_SEED, &a);
	CHECK(a.n == 3);
	CHECK(fabs(a.med - 0.95) < 1e-12);
	/* one round: a value, no interval */
	tune_paired_ci(x, base, 1, TUNE_BOOTSTRAP, TUNE_SEED, &a);
	CHECK(a.n == 1 && a.lo == a.hi && a.med == 0.9);
	CHECK(tune_half_width(&a) < 0);
	/* equal ratios: a zero-width interval */
	double same[] = { 5, 10, 15 };
	tune_paired_ci(same, base, 3, TUNE_BOOTSTRAP, TUNE_SEED, &a);
	CHECK(a.med == 0.5 && a.lo == 0.5 && a.hi == 0.5);
	return check_result("paired_ratios_and_bootstrap_interval_on_fixed_inputs");
}

static int precise_case(void)
{
	st.nconf = 3;
	set_ci(1, 1.0, 0.99, 1.01, 5);          /* +-1 % */
	set_ci(2, 0.5, 0.494, 0.506, 5);        /* +-1.2 % */
	CHECK(tune_precise(&st, TM_WALL, 0.02));
	CHECK(!tune_precise(&st, TM_WALL, 0.011));
	set_ci(2, 0.5, 0.5, 0.5, 1);            /* one round: no interval yet */
	CHECK(!tune_precise(&st, TM_WALL, 0.02));
	set_ci(2, 0.5, 0.5, 0.5, 3);            /* three equal rounds: nothing moves */
	CHECK(tune_precise(&st, TM_WALL, 0.02));
	return check_result("stop_rule_wants_every_interval_within_the_width");
}

static int pick_case(void)
{
	memset(&st, 0, sizeof st);
	st.nconf = 5;
	set_ci(0, 1, 1, 1, 3);
	set_ci(1, 0.85, 0.80, 0.90, 3);         /* wholly below 1 */
	set_ci(2, 0.75, 0.60, 1.05, 3);         /* better median, but reaches 1 */
	set_ci(3, 0.70, 0.65, 0.75, 3);         /* the best, but one run failed */
	st.conf[3].failed = 1;
	set_ci(4, 0.80, 0.78, 0.82, 3);         /* below 1, output differs */
	st.conf[4].out_differs = 1;
	CHECK(tune_pick(&st, TM_WALL, 0) == 1);
	st.conf[4].out_differs = 0;
	CHECK(tune_pick(&st, TM_WALL, 0) == 4);
	set_ci(1, 0.95, 0.90, 1.00, 3);         /* touching 1 is not below it */
	set_ci(4, 0.98, 0.95, 1.01, 3);
	CHECK(tune_pick(&st, TM_WALL, 0) == -1);
	set_ci(2, 1.30, 1.20, 1.40, 3);         /* a rate: above 1 is better */
	CHECK(tune_pick(&st, TM_WALL, 1) == 2);
	set_ci(2, 0.5, 0.5, 0.5, 1);            /* one round is never resolvable */
	CHECK(tune_pick(&st, TM_WALL, 0) == -1);
	set_ci(2, 0.5, 0.5, 0.5, 2);            /* two rounds that agree exactly are */
	CHECK(tune_pick(&st, TM_WALL, 0) == 2);
	return check_result("recommendation_is_the_best_whole_interval_below_1");
}

static int shuffle_case(void)
{
	int a[12], b[12], c[12], seen[12] = { 0 };
	tune_shuffle(a, 12, 1);
	tune_shuffle(b, 12, 1);
	tune_shuffle(c, 12, 2);
	for (int i = 0; i < 12; i++)
		seen[a[i]]++;
	int perm = 1;
	for (int i = 0; i < 12; i++)
		perm &= seen[i] == 1;
	CHECK(perm);
	CHECK(memcmp(a, b, sizeof a) == 0);
	CHECK(memcmp(a, c, sizeof a) != 0);
	return check_result("shuffle_is_a_permutation_fixed_per_round");
}

int main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";
	if (strcmp(w, "median") == 0)
		return median_case();
	if (strcmp(w, "paired") == 0)
		return paired_case();
	if (strcmp(w, "precise") == 0)
		return precise_case();
	if (strcmp(w, "pick") == 0)
		return pick_case();
	if (strcmp(w, "shuffle") == 0)
		return shuffle_case();
	fprintf(stderr, "usage: test_tune_units median|paired|precise|pick|shuffle\n");
	return 2;
}
