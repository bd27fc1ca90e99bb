/*
 * hashtable.c - a chess engine's transposition table: one table (default
 * 1 GiB) of 16-byte entries in 64-byte buckets, cleared once, then random
 * probe-and-store traffic from every thread (the Stockfish shape).
 * usage: hashtable [--mib 1024] [--probes-per-thread 20000000] [--threads 0=all]
 * prints: hashtable mib=M threads=T clear_s=C probe_s=P mprobes_per_s=R hits=H
 */
#define _GNU_SOURCE
#include "hp_clock.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct entry { uint64_t key; uint32_t move; int16_t score; uint8_t depth, gen; };
struct bucket { struct entry e[4]; };          /* 64 bytes, one cache line */

static struct bucket *table;
static size_t nbuckets;
static long probes;

struct worker { pthread_t t; unsigned long long seed; long hits; };

/* Positions repeat (transpositions): keys come from a space 4x the entries. */
static uint64_t key_space;

/* The engine's "clear hash", kept out of line so that the compiler cannot
 * fold malloc + memset into a calloc that never touches the table. */
__attribute__((noinline)) static void clear_table(void)
{
	memset(table, 0, nbuckets * sizeof(struct bucket));
}

static void *run(void *arg)
{
	struct worker *w = arg;
	long hits = 0;
	for (long i = 0; i < probes; i++) {
		uint64_t key = 1 + hp_rand(&w->seed) % key_space;
		struct bucket *b = &table[(key * 0x9E3779B97F4A7C15ull >> 7) % nbuckets];
		int slot = -1;
		for (int k = 0; k < 4; k++)
			if (b->e[k].key == key) {
				slot = k;
				hits++;
				break;
			}
		if (slot < 0)
			slot = (int)(key & 3);          /* replace: a cheap always-replace scheme */
		b->e[slot].key = key;
		b->e[slot].depth = (uint8_t)i;
		b->e[slot].score = (int16_t)(key >> 40);
	}
	w->hits = hits;
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mib = 1024;
	int threads = 0;
	probes = 20000000;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--mib") == 0)
			mib = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--probes-per-thread") == 0)
			probes = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--threads") == 0)
			threads = atoi(argv[i + 1]);
		else {
			fprintf(stderr, "usage: hashtable [--mib M] [--probes-per-thread N] [--threads T]\n");
			return 2;
		}
	}
	if (threads <= 0)
		threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	nbuckets = (mib << 20) / sizeof(struct bucket);
	key_space = (uint64_t)nbuckets * 4 * 4;
	double t0 = hp_now();
	table = malloc(nbuckets * sizeof(struct bucket));
	if (!table || nbuckets == 0)
		return perror("malloc"), 1;
	clear_table();
	double clear = hp_now() - t0;
	struct worker *w = calloc((size_t)threads, sizeof *w);
	t0 = hp_now();
	for (int i = 0; i < threads; i++) {
		w[i].seed = 0x9E3779B97F4A7C15ull * (unsigned long long)(i + 1);
		pthread_create(&w[i].t, NULL, run, &w[i]);
	}
	long hits = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].t, NULL);
		hits += w[i].hits;
	}
	double probe = hp_now() - t0;
	printf("hashtable mib=%zu threads=%d clear_s=%.6f probe_s=%.6f mprobes_per_s=%.3f hits=%ld\n",
	       mib, threads, clear, probe, (double)probes * threads / probe / 1e6, hits);
	free(w);
	free(table);
	return 0;
}
