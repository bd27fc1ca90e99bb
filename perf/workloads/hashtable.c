/*
 * hashtable.c - a chess engine's transposition table: one table (default
 * 1 GiB) of 16-byte entries in 64-byte buckets, cleared once, then random
 * probe-and-store traffic from every thread (the Stockfish shape).
 * usage: hashtable [--mib 1024] [--probes-per-thread 20000000] [--threads 0=all]
 *                  [--region auto|hugetlb|thp|base [--populate THREADS]]
 * prints: hashtable mib=M threads=T clear_s=C probe_s=P mprobes_per_s=R hits=H
 * With --region the table is a hugepolicy region of that kind, as Stockfish
 * gets its table from aligned_large_pages_alloc: the program must run under
 * libhugepolicy (LD_PRELOAD; it is not linked, so the malloc baselines stay
 * native), the API is found with dlsym, and the line adds region=KIND
 * (obtained) hugetlb_kb= thp_kb= read back from smaps, after Stockfish's
 * "info string Hash table allocation: ... large pages used/not used".
 * --populate N: the region is pre-faulted by N threads in the call
 * (HUGEPOLICY_REGION_POPULATE); alloc_s= is that call alone.
 */
#define _GNU_SOURCE
#include "hp_clock.h"

#include <dlfcn.h>
#include <hugepolicy.h>
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

static void *(*region_alloc)(size_t, const struct hugepolicy_region_options *);
static int (*region_info)(const void *, struct hugepolicy_region_info *);
static int (*region_free)(void *);
static const char *(*region_kind_name)(int);

/* The table from a region of the kind asked (see the header), or NULL. */
static int populate_threads;            /* --populate: 0 = touched by clear_table only */

static void *table_region(const char *kind, size_t bytes, struct hugepolicy_region_info *in)
{
	static const struct { const char *name; int pages; } kinds[] = {
		{ "auto", HUGEPOLICY_REGION_AUTO }, { "hugetlb", HUGEPOLICY_REGION_HUGETLB },
		{ "thp", HUGEPOLICY_REGION_THP }, { "base", HUGEPOLICY_REGION_BASE },
	};
	struct hugepolicy_region_options o = { .size = sizeof o };
	size_t k = 0;
	while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].name, kind) != 0)
		k++;
	region_alloc = (void *(*)(size_t, const struct hugepolicy_region_options *))dlsym(RTLD_DEFAULT,
											     "hugepolicy_region_alloc");
	region_info = (int (*)(const void *, struct hugepolicy_region_info *))dlsym(RTLD_DEFAULT,
										    "hugepolicy_region_info");
	region_free = (int (*)(void *))dlsym(RTLD_DEFAULT, "hugepolicy_region_free");
	region_kind_name = (const char *(*)(int))dlsym(RTLD_DEFAULT, "hugepolicy_region_kind_name");
	if (k == sizeof kinds / sizeof kinds[0] || !region_alloc || !region_info || !region_free ||
	    !region_kind_name) {
		fprintf(stderr, "hashtable: --region %s needs one of auto|hugetlb|thp|base and libhugepolicy "
			"preloaded\n", kind);
		return NULL;
	}
	o.pages = kinds[k].pages;
	if (populate_threads > 0) {
		o.flags = HUGEPOLICY_REGION_POPULATE;
		o.threads = (uint32_t)populate_threads;
	}
	void *t = region_alloc(bytes, &o);
	in->size = sizeof *in;
	if (t)
		region_info(t, in);
	return t;
}

int main(int argc, char **argv)
{
	size_t mib = 1024;
	int threads = 0;
	const char *region = NULL;
	struct hugepolicy_region_info in = { .size = sizeof in };
	probes = 20000000;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--mib") == 0)
			mib = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--probes-per-thread") == 0)
			probes = atol(argv[i + 1]);
		else if (strcmp(argv[i], "--threads") == 0)
			threads = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--region") == 0)
			region = argv[i + 1];
		else if (strcmp(argv[i], "--populate") == 0)
			populate_threads = atoi(argv[i + 1]);
		else {
			fprintf(stderr, "usage: hashtable [--mib M] [--probes-per-thread N] [--threads T] "
				"[--region auto|hugetlb|thp|base [--populate THREADS]]\n");
			return 2;
		}
	}
	if (threads <= 0)
		threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	nbuckets = (mib << 20) / sizeof(struct bucket);
	key_space = (uint64_t)nbuckets * 4 * 4;
	double t0 = hp_now();
	table = region ? table_region(region, nbuckets * sizeof(struct bucket), &in)
		       : malloc(nbuckets * sizeof(struct bucket));
	double alloc = hp_now() - t0;
	if (!table || nbuckets == 0) {
		if (!region || region_alloc)    /* else table_region said why */
			perror(region ? "hugepolicy_region_alloc" : "malloc");
		return 1;
	}
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
	if (region) {
		region_info(table, &in);        /* what the kernel backs it with now */
		printf("info string Hash table allocation: Linux large pages %s.\n",
		       in.hugetlb_bytes ? "used" : "not used");   /* as region/examples/tt.c: hugetlb */
	}
	printf("hashtable mib=%zu threads=%d clear_s=%.6f probe_s=%.6f mprobes_per_s=%.3f hits=%ld",
	       mib, threads, clear, probe, (double)probes * threads / probe / 1e6, hits);
	if (region)
		printf(" region=%s alloc_s=%.6f hugetlb_kb=%llu thp_kb=%llu", region_kind_name(in.kind), alloc,
		       (unsigned long long)(in.hugetlb_bytes >> 10), (unsigned long long)(in.thp_bytes >> 10));
	printf("\n");
	free(w);
	if (region)
		region_free(table);
	else
		free(table);
	return 0;
}
