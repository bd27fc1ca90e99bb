/* test_glibc_api.c CASE - glibc's API beyond malloc answered by the backend
 * in force (HUGEPOLICY_BACKEND), with 100 MiB live in 1 KiB blocks:
 *   mallinfo2_counts_the_live_heap    mallinfo2 and mallinfo count it
 *   trim_gives_the_freed_heap_back    after freeing it malloc_trim(0) is 1
 *                                     and smaps Rss falls below 50 MiB
 *   trim_gives_back_what_a_live_thread_freed   the same for a heap another
 *                                     thread filled and freed, still running
 *   mallopt_answers_per_backend       M_ARENA_MAX: glibc 1, others 0
 *   malloc_stats_counts_the_live_heap "in use bytes" of the totals >= it
 *   malloc_info_counts_the_live_heap  the last <system type="current"> >= it
 *   stats_fields_are_numbers          hugepolicy_stats: every allocator
 *                                     field a number but the ones
 *                                     hugepolicy(3) says are unknown there */
#define _GNU_SOURCE
#include "check.h"
#include "hugepolicy.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)
#define LIVE (100 * MiB)
#define BLOCK 1024
#define N (LIVE / BLOCK)

static void *blocks[N];

static void fill_heap(void)
{
	for (size_t i = 0; i < N; i++) {
		blocks[i] = malloc(BLOCK);
		if (!blocks[i])
			SKIP("malloc(%d) failed after %zu blocks", BLOCK, i);
		memset(blocks[i], (int)i, BLOCK);
	}
}

static void free_heap(void)
{
	for (size_t i = 0; i < N; i++)
		free(blocks[i]);
}

static const char *backend(void)
{
	return hugepolicy_backend();
}

static uint64_t rss(void)
{
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	return st.rss;
}

static void mallinfo2_counts(void)
{
	fill_heap();
	struct mallinfo2 m2 = mallinfo2();
	printf("%s: mallinfo2 arena %zu uordblks %zu fordblks %zu hblkhd %zu keepcost %zu\n", backend(), m2.arena,
	       m2.uordblks, m2.fordblks, m2.hblkhd, m2.keepcost);
	CHECK(m2.uordblks + m2.hblkhd >= LIVE);
	CHECK(m2.arena >= m2.uordblks);
	CHECK(m2.fordblks == m2.arena - m2.uordblks);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	struct mallinfo m = mallinfo();
#pragma GCC diagnostic pop
	printf("%s: mallinfo uordblks %d\n", backend(), m.uordblks);
	CHECK((size_t)m.uordblks + (size_t)m.hblkhd >= LIVE);
	free_heap();
}

static void trim_gives_back(void)
{
	fill_heap();
	uint64_t full = rss();
	free_heap();
	uint64_t freed = rss();
	int rc = malloc_trim(0);
	uint64_t trimmed = rss();
	printf("%s: Rss %llu MiB live, %llu MiB freed, malloc_trim(0) = %d, %llu MiB after\n", backend(),
	       (unsigned long long)(full / MiB), (unsigned long long)(freed / MiB), rc,
	       (unsigned long long)(trimmed / MiB));
	CHECK(full >= LIVE);
	CHECK(rc == 1);
	CHECK(trimmed < 50 * MiB);
}

static pthread_barrier_t gate;

static void *fill_free_and_wait(void *arg)
{
	(void)arg;
	fill_heap();
	free_heap();
	pthread_barrier_wait(&gate);    /* main trims */
	pthread_barrier_wait(&gate);
	return NULL;
}

static void trim_after_thread(void)
{
	pthread_t t;
	pthread_barrier_init(&gate, NULL, 2);
	CHECK(pthread_create(&t, NULL, fill_free_and_wait, NULL) == 0);
	pthread_barrier_wait(&gate);
	uint64_t freed = rss();
	int rc = malloc_trim(0);
	uint64_t trimmed = rss();
	pthread_barrier_wait(&gate);
	pthread_join(t, NULL);
	printf("%s: another thread freed 100 MiB: Rss %llu MiB, malloc_trim(0) = %d, %llu MiB after\n", backend(),
	       (unsigned long long)(freed / MiB), rc, (unsigned long long)(trimmed / MiB));
	CHECK(rc == 1);
	CHECK(trimmed < 50 * MiB);
}

static void mallopt_answers(void)
{
	int rc = mallopt(M_ARENA_MAX, 1);
	int want = strcmp(backend(), "system") == 0;
	printf("%s: mallopt(M_ARENA_MAX, 1) = %d, want %d\n", backend(), rc, want);
	CHECK(rc == want);
}

/* the number after `key` in fd's file from offset 0, or 0 */
static size_t number_after(FILE *f, const char *key, int last)
{
	char line[512];
	size_t v = 0;
	rewind(f);
	while (fgets(line, sizeof line, f)) {
		char *at = strstr(line, key);
		if (at) {
			v = strtoull(at + strlen(key), NULL, 10);
			if (!last)
				break;
		}
	}
	return v;
}

static void malloc_stats_counts(void)
{
	fill_heap();
	FILE *f = tmpfile();
	CHECK(f != NULL);
	if (!f)
		return;
	fflush(stderr);
	int saved = dup(2);
	dup2(fileno(f), 2);
	malloc_stats();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size_t in_use = number_after(f, "in use bytes     =", 1);
	printf("%s: malloc_stats: total in use bytes %zu\n", backend(), in_use);
	CHECK(in_use >= LIVE);
	fclose(f);
	free_heap();
}

static void malloc_info_counts(void)
{
	fill_heap();
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(malloc_info(0, f) == 0);
	fclose(f);
	FILE *r = fmemopen(text, len, "r");
	size_t current = number_after(r, "<system type=\"current\" size=\"", 1);
	printf("%s: malloc_info: %.300s...\nlast system current %zu\n", backend(), text, current);
	CHECK(strncmp(text, "<malloc version=\"1\"", 19) == 0);
	CHECK(strstr(text, "</malloc>\n") != NULL);
	CHECK(current >= LIVE);
	fclose(r);
	free(text);
	CHECK(malloc_info(1, stdout) == EINVAL);        /* glibc's answer to options != 0 */
	free_heap();
}

/* man hugepolicy(3), "Numbers per backend": the fields a backend cannot give */
static int unknown_there(const char *field)
{
	static const char *const unknown[][2] = {
		{ "system", "metadata" }, { "system", "resident" }, { "system", "retained" },
		{ "mimalloc", "allocated" }, { "mimalloc", "active" }, { "mimalloc", "metadata" },
	};
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
		if (strcmp(unknown[i][0], backend()) == 0 && strcmp(unknown[i][1], field) == 0)
			return 1;
	return 0;
}

static void stats_fields(void)
{
	fill_heap();
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	const struct { const char *name; uint64_t v; } f[] = {
		{ "allocated", st.allocated }, { "active", st.active }, { "metadata", st.metadata },
		{ "resident", st.resident }, { "mapped", st.mapped }, { "retained", st.retained },
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		int known = f[i].v != HUGEPOLICY_UNKNOWN;
		printf("%s: stats.%s %s %llu\n", backend(), f[i].name, known ? "=" : "unknown",
		       known ? (unsigned long long)f[i].v : 0ull);
		CHECK_MSG(known != unknown_there(f[i].name), "stats.%s", f[i].name);
	}
	if (st.allocated != HUGEPOLICY_UNKNOWN)
		CHECK(st.allocated >= LIVE);
	if (st.active != HUGEPOLICY_UNKNOWN)
		CHECK(st.active >= LIVE);
	if (st.resident != HUGEPOLICY_UNKNOWN)
		CHECK(st.resident >= LIVE);
	/* mincore's count (jemalloc's is a maximum: pages it never touched count) */
	if (strcmp(backend(), "mimalloc") == 0)
		CHECK(st.resident <= st.rss);
	CHECK(st.mapped >= LIVE);
	free_heap();
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } cases[] = {
		{ "mallinfo2_counts_the_live_heap", mallinfo2_counts },
		{ "trim_gives_the_freed_heap_back", trim_gives_back },
		{ "trim_gives_back_what_a_live_thread_freed", trim_after_thread },
		{ "mallopt_answers_per_backend", mallopt_answers },
		{ "malloc_stats_counts_the_live_heap", malloc_stats_counts },
		{ "malloc_info_counts_the_live_heap", malloc_info_counts },
		{ "stats_fields_are_numbers", stats_fields },
	};
	for (size_t i = 0; argc > 1 && i < sizeof cases / sizeof cases[0]; i++)
		if (strcmp(argv[1], cases[i].name) == 0) {
			cases[i].fn();
			return check_result(argv[1]);
		}
	fprintf(stderr, "usage: %s CASE\n", argv[0]);
	return 2;
}
