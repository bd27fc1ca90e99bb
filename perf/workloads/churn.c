/*
 * churn.c - allocation-heavy: every thread keeps a working set of live
 * objects and replaces a random one per operation, sizes from a mix of
 * 16 B - 64 KiB (mostly small), a few slots long-lived.  Where the cost of
 * hugepolicy's own dispatch shows against a native allocator.
 * usage: churn [--ops-per-thread 5000000] [--threads 0=all] [--slots 4096]
 * prints: churn threads=T ops=N seconds=S mops_per_s=R
 */
#define _GNU_SOURCE
#include "hp_clock.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long ops;
static size_t slots;

/* 70 % 16-128 B, 20 % 128 B-4 KiB, 9 % 4-32 KiB, 1 % 32-64 KiB. */
static size_t pick_size(unsigned long long r)
{
	unsigned p = (unsigned)(r % 100);
	unsigned long long v = r >> 8;
	if (p < 70) return 16 + v % 113;
	if (p < 90) return 128 + v % (4096 - 128);
	if (p < 99) return 4096 + v % (32768 - 4096);
	return 32768 + v % 32769;
}

struct worker { pthread_t t; unsigned long long seed; unsigned long check; };

static void *run(void *arg)
{
	struct worker *w = arg;
	unsigned char **live = calloc(slots, sizeof *live);
	size_t *len = calloc(slots, sizeof *len);
	unsigned long check = 0;
	for (long i = 0; i < ops; i++) {
		unsigned long long r = hp_rand(&w->seed);
		size_t s = (size_t)(r >> 20) % slots;
		/* the first 1/32 of the slots are long-lived: replaced 1 time in 64 */
		if (s < slots / 32 && (r & 63) != 0)
			s += slots / 32;
		if (live[s]) {
			check += live[s][0] + live[s][len[s] - 1];
			free(live[s]);
		}
		len[s] = pick_size(r);
		live[s] = malloc(len[s]);
		live[s][0] = (unsigned char)i;
		live[s][len[s] - 1] = (unsigned char)s;
	}
	for (size_t s = 0; s < slots; s++)
		free(live[s]);
	free(live);
	free(len);
	w->check = check;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 0;
	ops = 5000000;
	slots = 4096;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--ops-per-thread") == 0)
			ops = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--threads") == 0)
			threads = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--slots") == 0)
			slots = strtoull(argv[i + 1], NULL, 10);
		else {
			fprintf(stderr, "usage: churn [--ops-per-thread N] [--threads T] [--slots S]\n");
			return 2;
		}
	}
	if (threads <= 0)
		threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (slots < 64 || ops <= 0)
		return fprintf(stderr, "churn: need --slots >= 64 and --ops-per-thread > 0\n"), 2;
	struct worker *w = calloc((size_t)threads, sizeof *w);
	double t0 = hp_now();
	for (int i = 0; i < threads; i++) {
		w[i].seed = 0x2545F4914F6CDD1Dull * (unsigned long long)(i + 7);
		pthread_create(&w[i].t, NULL, run, &w[i]);
	}
	unsigned long check = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].t, NULL);
		check += w[i].check;
	}
	double s = hp_now() - t0;
	printf("churn threads=%d ops=%ld seconds=%.6f mops_per_s=%.3f check=%lu\n",
	       threads, ops * threads, s, (double)ops * threads / s / 1e6, check);
	free(w);
	return 0;
}
