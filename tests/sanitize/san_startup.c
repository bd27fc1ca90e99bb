/* san_startup.c - hugepolicy's start-up race under TSan: integration/init.c
 * and boot.c (the state machine, the plan published to every thread, the
 * bootstrap arena) with stub backends in place of the real ones, so no
 * malloc entry point is linked and TSan's malloc stays in charge.
 *
 * Before init.c's own constructor runs (priority 101 < default), 4 threads
 * make their first allocation through the bootstrap ops at once.  One runs
 * start-up; hp_test_during_start_up holds it there 100 ms and allocates
 * re-entrantly (served by the bootstrap arena); the others must wait and
 * then get the backend's ops and the same plan.  With HUGEPOLICY_BACKEND=
 * mimalloc the stub mimalloc refuses (ENOENT) and start-up falls back to
 * the system stub: argv[1] names the backend expected. */
#define _GNU_SOURCE
#include "../../integration/hp_dispatch.h"
#include "../../integration/hp_init.h"
#include "../check.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int stub_calls, hook_runs, reentrant_in_arena;

static void *stub_malloc(size_t n) { atomic_fetch_add(&stub_calls, 1); return malloc(n); }
static void stub_free(void *p) { free(p); }
static void *stub_calloc(size_t c, size_t n) { atomic_fetch_add(&stub_calls, 1); return calloc(c, n); }
static void *stub_realloc(void *p, size_t n) { return realloc(p, n); }
static void *stub_memalign(size_t a, size_t n) { return aligned_alloc(a, (n + a - 1) & ~(a - 1)); }
static size_t stub_usable(void *p) { (void)p; return 0; }

static const struct hp_alloc_ops stub_ops = {
	.malloc = stub_malloc, .malloc_small = stub_malloc, .malloc_large = stub_malloc, .free = stub_free, .calloc = stub_calloc,
	.realloc = stub_realloc, .memalign = stub_memalign, .usable_size = stub_usable,
};

static int stub_init(const struct hp_plan *plan, const struct hp_alloc_ops **ops)
{
	(void)plan;
	*ops = &stub_ops;
	return 0;
}
static int stub_refuse(const struct hp_plan *plan, struct hp_plan_facts *facts)
{
	(void)plan, (void)facts;
	return ENOENT;
}
static void stub_describe(char *buf, size_t cap) { hp_strlcpy(buf, "stub", cap); }
static void stub_stats(struct hugepolicy_stats *st) { (void)st; }

const struct hp_backend hp_backend_system = { .name = "system", .init = stub_init, .describe = stub_describe,
					       .stats = stub_stats };
const struct hp_backend hp_backend_jemalloc = { .name = "jemalloc", .init = stub_init, .describe = stub_describe,
						 .stats = stub_stats };
const struct hp_backend hp_backend_mimalloc = { .name = "mimalloc", .start = stub_refuse, .init = stub_init,
						 .describe = stub_describe, .stats = stub_stats };

/* api.c's, live.c's and exit.c's, which init.c calls */
int hugepolicy_report(int fd, unsigned flags) { (void)fd, (void)flags; return 0; }
void hp_say_obtained(void) {}
void hp_live_start(void) {}
void hp_exit_init(void) {}

void hp_test_during_start_up(void)
{
	atomic_fetch_add(&hook_runs, 1);
	void *p = hp_boot_ops.malloc(100);      /* re-entrant: the bootstrap arena */
	atomic_store(&reentrant_in_arena, p != NULL && hp_boot_owns(p));
	hp_boot_ops.free(p);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

#define THREADS 4
static const struct hp_alloc_ops *seen[THREADS];
static int plan_pages[THREADS];
static void *got[THREADS];
static pthread_barrier_t go;

static void *first_allocation(void *arg)
{
	int t = (int)(intptr_t)arg;
	pthread_barrier_wait(&go);
	got[t] = hp_boot_ops.malloc(32);
	seen[t] = hp_ops();
	plan_pages[t] = hp_rt.plan.pages;       /* read after start-up: published by the release store */
	return NULL;
}

/* hp_boot_alloc itself from threads: disjoint blocks, sizes kept */
static void *arena_user(void *arg)
{
	size_t n = 64 + (size_t)(intptr_t)arg * 16;
	for (int i = 0; i < 200; i++) {
		unsigned char *p = hp_boot_alloc(n, 64);
		if (!p || hp_boot_size(p) != n || ((uintptr_t)p & 63))
			return (void *)1;
		memset(p, (int)n, n);
	}
	return NULL;
}

static pthread_t th[THREADS + 2];

__attribute__((constructor(101))) static void race_before_init(void)
{
	pthread_barrier_init(&go, NULL, THREADS);
	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, first_allocation, (void *)(intptr_t)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	CHECK(atomic_load(&hook_runs) == 1);
	CHECK(atomic_load(&reentrant_in_arena) == 1);
	CHECK(hp_ready());
	CHECK(hp_rt.backend != NULL && strcmp(hp_rt.backend->name, want) == 0);
	for (int t = 0; t < THREADS; t++) {
		CHECK_MSG(seen[t] == &stub_ops, "thread %d: ops %p", t, (void *)seen[t]);
		CHECK(got[t] != NULL && !hp_boot_owns(got[t]));
		CHECK(plan_pages[t] == hp_rt.plan.pages);
		hp_ops()->free(got[t]);
	}
	CHECK(atomic_load(&stub_calls) >= THREADS);
	for (int t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, arena_user, (void *)(intptr_t)t);
	for (int t = 0; t < 2; t++) {
		void *bad;
		pthread_join(th[t], &bad);
		CHECK(bad == NULL);
	}
	return check_result("startup");
}
