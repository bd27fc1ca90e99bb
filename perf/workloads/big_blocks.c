/*
 * big_blocks.c - big blocks allocated and filled one at a time, each
 * malloc + first fill timed on its own: the throughput and the latency a
 * page policy gives blocks of several MiB.
 *
 *   --mode churn   the malloc-large pattern: --live blocks (20) of random
 *                  sizes in [--min-mib, --max-mib] (5-25 MiB); each op frees
 *                  a random live block and puts a fresh one in its place,
 *                  filled whole (--ops ops)
 *   --mode fill    --blocks blocks (24) of --mib MiB (64) allocated and
 *                  filled one after another, all kept live, then freed
 *
 * A block's time is its malloc plus its fill (plus, in churn, the free of
 * the block it replaces): what a caller waits for before the memory is of
 * use.  Sizes come from a fixed seed, so every configuration sees the same
 * sequence.
 * prints: big-blocks mode=M blocks=N seconds=S p50_s=A p99_s=B max_s=C user_s=U sys_s=Y
 * (p99 is the nearest-rank 99th percentile of the per-block times)
 */
#define _GNU_SOURCE
#include "hp_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024 * 1024UL)

struct opts { int churn; long ops, live, min_mib, max_mib, blocks, mib; };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int parse(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--mode") == 0 && i + 1 < argc) {
			const char *m = argv[++i];
			if (strcmp(m, "churn") != 0 && strcmp(m, "fill") != 0)
				return -1;
			o->churn = strcmp(m, "churn") == 0;
			continue;
		}
		long *dst = strcmp(a, "--ops") == 0 ? &o->ops : strcmp(a, "--live") == 0 ? &o->live
			  : strcmp(a, "--min-mib") == 0 ? &o->min_mib : strcmp(a, "--max-mib") == 0 ? &o->max_mib
			  : strcmp(a, "--blocks") == 0 ? &o->blocks : strcmp(a, "--mib") == 0 ? &o->mib : NULL;
		char *end;
		if (!dst || i + 1 >= argc)
			return -1;
		*dst = strtol(argv[++i], &end, 10);
		if (*end || *dst <= 0 || *dst > 1000000)
			return -1;
	}
	return o->min_mib <= o->max_mib ? 0 : -1;
}

/* one block: malloc + fill with byte c (not 0: a compiler turns malloc +
 * memset 0 into calloc, which skips fresh pages), timed; NULL (and a
 * message) on failure */
static unsigned char *fill(size_t size, int c, double *seconds)
{
	double t0 = hp_now();
	unsigned char *p = malloc(size);
	if (p)
		memset(p, c, size);
	*seconds += hp_now() - t0;
	if (!p)
		fprintf(stderr, "big_blocks: malloc(%zu) failed\n", size);
	return p;
}

int main(int argc, char **argv)
{
	struct opts o = { 1, 400, 20, 5, 25, 24, 64 };
	if (parse(argc, argv, &o) != 0) {
		fprintf(stderr, "usage: big_blocks [--mode churn|fill] [--ops 400] [--live 20] [--min-mib 5] "
				"[--max-mib 25] [--blocks 24] [--mib 64]\n");
		return 2;
	}
	long n = o.churn ? o.ops : o.blocks, slots = o.churn ? o.live : o.blocks;
	double *t = calloc((size_t)n, sizeof *t);
	unsigned char **live = calloc((size_t)slots, sizeof *live);
	if (!t || !live)
		return 1;
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	unsigned long check = 0;
	double start = hp_now();
	for (long i = 0; i < n; i++) {
		long slot = o.churn ? (long)(hp_rand(&seed) % (unsigned long long)slots) : i;
		size_t size = o.churn ? (size_t)(o.min_mib * MIB + hp_rand(&seed) % ((o.max_mib - o.min_mib) * MIB + 1))
				      : (size_t)o.mib * MIB;
		double t0 = hp_now();
		free(live[slot]);
		t[i] = hp_now() - t0;
		if (!(live[slot] = fill(size, 1 + (int)(i & 0x7f), &t[i])))
			return 1;
		check += live[slot][size / 2];
	}
	for (long s = 0; s < slots; s++)
		free(live[s]);
	double seconds = hp_now() - start, user, sys;
	hp_cpu(&user, &sys);
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	long r99 = (99 * n + 99) / 100 - 1;       /* nearest rank: ceil(0.99 n) - 1 */
	printf("big-blocks mode=%s blocks=%ld seconds=%.6f p50_s=%.6f p99_s=%.6f max_s=%.6f user_s=%.3f sys_s=%.3f check=%lu\n",
	       o.churn ? "churn" : "fill", n, seconds, t[n / 2], t[r99], t[n - 1], user, sys, check);
	free(t);
	free(live);
	return 0;
}
