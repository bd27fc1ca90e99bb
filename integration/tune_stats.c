/*
 * tune_stats.c - `hugepolicy tune`'s statistics: paired per-round ratios
 * to the baseline, their median and a bootstrap 95 % interval of that
 * median, the stop rule, the recommendation, the per-round shuffle.
 *
 * The method is perf/hpperf/report.py's: both configurations of a pair ran
 * in the same round, one shortly after the other, so drift on a shared
 * machine cancels; the rounds are resampled with replacement TUNE_BOOTSTRAP
 * times and the interval is the 2.5th and 97.5th percentile of the
 * resampled medians.  Every random draw comes from a fixed seed
 * (splitmix64), so the same runs give the same report.  Pure: no I/O.
 */
#include "hp_tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const tune_metric_name[TM_COUNT] = { "wall", "cpu", "rss", "faults", "metric" };

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, n) */
static int draw(uint64_t *x, int n)
{
	return (int)(((splitmix64(x) >> 32) * (uint64_t)n) >> 32);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* the median of sorted v[n] */
static double sorted_median(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double tune_median(const double *v, int n)
{
	if (n <= 0)
		return NAN;
	double tmp[TUNE_MAX_ROUNDS * TUNE_MAX_CONFIGS];
	if (n > (int)(sizeof tmp / sizeof tmp[0]))
		n = (int)(sizeof tmp / sizeof tmp[0]);
	memcpy(tmp, v, (size_t)n * sizeof *v);
	qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
	return sorted_median(tmp, n);
}

void tune_paired_ci(const double *x, const double *base, int rounds, int nboot, uint64_t seed,
		    struct tune_ci *out)
{
	double ratios[TUNE_MAX_ROUNDS], chunk[TUNE_MAX_ROUNDS];
	int k = 0;
	for (int r = 0; r < rounds && r < TUNE_MAX_ROUNDS; r++)
		if (isfinite(x[r]) && isfinite(base[r]) && base[r] > 0)
			ratios[k++] = x[r] / base[r];
	memset(out, 0, sizeof *out);
	out->n = k;
	if (k == 0)
		return;
	out->med = out->lo = out->hi = tune_median(ratios, k);
	if (k == 1 || nboot < 2)
		return;
	double *meds = malloc((size_t)nboot * sizeof *meds);
	if (!meds) {            /* no resampling: the widest interval, min to max */
		for (int i = 0; i < k; i++)
			out->lo = fmin(out->lo, ratios[i]), out->hi = fmax(out->hi, ratios[i]);
		return;
	}
	uint64_t state = seed;
	for (int b = 0; b < nboot; b++) {
		for (int i = 0; i < k; i++)
			chunk[i] = ratios[draw(&state, k)];
		qsort(chunk, (size_t)k, sizeof *chunk, cmp_double);
		meds[b] = sorted_median(chunk, k);
	}
	qsort(meds, (size_t)nboot, sizeof *meds, cmp_double);
	out->lo = meds[(int)(0.025 * nboot)];
	out->hi = meds[(int)(0.975 * nboot) - 1];
	free(meds);
}

double tune_half_width(const struct tune_ci *ci)
{
	if (ci->n < 2 || !(ci->med > 0))
		return -1;
	return (ci->hi - ci->lo) / 2 / ci->med;
}

int tune_precise(const struct tune_state *s, int by, double width)
{
	for (int c = 1; c < s->nconf; c++) {
		double hw = tune_half_width(&s->conf[c].ci[by]);
		if (hw < 0 || hw > width)
			return 0;
	}
	return 1;
}

int tune_pick(const struct tune_state *s, int by, int higher_better)
{
	int best = -1;
	for (int c = 1; c < s->nconf; c++) {
		const struct tune_config *k = &s->conf[c];
		const struct tune_ci *ci = &k->ci[by];
		if (k->failed || k->out_differs || ci->n < 2)
			continue;
		if (higher_better ? !(ci->lo > 1) : !(ci->hi < 1))
			continue;
		if (best < 0 || (higher_better ? ci->med > s->conf[best].ci[by].med
					       : ci->med < s->conf[best].ci[by].med))
			best = c;
	}
	return best;
}

void tune_compute(struct tune_state *s)
{
	double base[TUNE_MAX_ROUNDS], x[TUNE_MAX_ROUNDS];
	for (int m = 0; m < TM_COUNT; m++) {
		for (int r = 0; r < s->rounds; r++) {
			const struct tune_run *b = &s->conf[0].runs[r];
			base[r] = b->ok ? b->v[m] : NAN;
		}
		for (int c = 0; c < s->nconf; c++) {
			for (int r = 0; r < s->rounds; r++) {
				const struct tune_run *run = &s->conf[c].runs[r];
				x[r] = run->ok ? run->v[m] : NAN;
			}
			tune_paired_ci(x, base, s->rounds, TUNE_BOOTSTRAP, TUNE_SEED, &s->conf[c].ci[m]);
		}
	}
}

void tune_shuffle(int *order, int n, int round)
{
	uint64_t state = TUNE_SEED + (uint64_t)round * 0x100000001ull;
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) {       /* Fisher-Yates */
		int j = draw(&state, i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}
