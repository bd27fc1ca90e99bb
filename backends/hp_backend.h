/*
 * hp_backend.h - the one vtable every backend implements (system.c,
 * jemalloc/, mimalloc/), over the page layer (pages/hp_pages.h).
 *
 * Invariants: a backend is chosen and started once, at start-up, from the
 * plan; its ops (struct hp_alloc_ops) are static and never change after
 * init returns, except by the dispatcher's swap to ops of the same backend;
 * the cold-path calls are made only after init succeeded.
 */
#ifndef HP_BACKEND_H
#define HP_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../pages/hp_pages.h"

struct hugepolicy_stats;
struct mallinfo2;

/* glibc's promise: every block is 16-aligned (MALLOC_ALIGNMENT), whatever
 * its size.  jemalloc's and mimalloc's 8-byte class (sizes 0 to 8) is only
 * 8-aligned; their other classes are multiples of 16.  So their malloc
 * (and malloc() itself, by its size table: integration/hp_dispatch.h),
 * calloc and realloc ask 16 bytes for those sizes, the size glibc's own
 * smallest chunk has. */
enum { HP_GLIBC_TINY_MAX = 8, HP_GLIBC_MIN_BLOCK = 16 };
_Static_assert((size_t)HP_SMALL_MIN == (size_t)HP_GLIBC_TINY_MAX + 1, "malloc_small starts past the 8-byte class");
_Static_assert((size_t)HP_GLIBC_MIN_BLOCK >= HP_SMALL_MIN && (size_t)HP_GLIBC_MIN_BLOCK <= HP_SMALL_MAX,
	       "the 8-byte class's 16-byte request is a malloc_small size");

static inline size_t hp_glibc_size(size_t n)
{
	return __builtin_expect(n <= HP_GLIBC_TINY_MAX, 0) ? HP_GLIBC_MIN_BLOCK : n;
}

/* calloc(n, size) of a block in that class (an overflow is the backend's
 * to refuse) */
static inline int hp_glibc_tiny(size_t n, size_t size)
{
	size_t t;
	return !__builtin_mul_overflow(n, size, &t) && t <= HP_GLIBC_TINY_MAX;
}

/* The backend's own settings in force, read back from it: the backend.*
 * keys of the report (integration/report_keys.c).  The caller zeroes it;
 * `have` says which groups the backend filled. */
enum {
	HP_BS_USER = 1,         /* user: a user's own setting that wins over hugepolicy's */
	HP_BS_JEMALLOC = 2,     /* opt_* */
	HP_BS_HUGE_ARENA = 4,   /* huge_*: jemalloc's oversize arena kept for reuse */
	HP_BS_ARENA_POOL = 8,   /* pool_*: jemalloc's arenas' extents on the 2 MiB pool */
	HP_BS_ARENAS = 16,      /* arenas_*: jemalloc's arenas created at start-up */
	HP_BS_MIMALLOC = 32,    /* mi_* */
	HP_BS_RESERVE = 64,     /* reserve: mimalloc's reservation from the pool, and why */
	HP_BS_USER_RESERVE = 128, /* user_reserve: MIMALLOC_RESERVE_HUGE_OS_PAGES replayed, and how */
};
struct hp_backend_settings {
	unsigned have;
	char version[72];               /* "2.36", "5.3.0-0-g54eaed1d...", "2.0.9" */
	char user[96];                  /* MALLOC_CONF / MIMALLOC_LARGE_OS_PAGES as given, escaped,
					 * cut at 64 bytes */
	int user_wins;                  /* ... and it overrides hugepolicy's THP setting */
	char opt_thp[16], opt_metadata_thp[16];         /* jemalloc opt.thp, opt.metadata_thp */
	uint64_t opt_oversize_threshold;                /* jemalloc opt.oversize_threshold */
	uint64_t huge_arena, huge_keep_below, huge_keep_max;
	int64_t huge_dirty_decay_ms, huge_muzzy_decay_ms, huge_default_dirty_decay_ms;
	uint64_t pool_arenas, pool_hooked, pool_retain_grow_limit;
	uint64_t pool_blocks, pool_bytes, pool_fallbacks, pool_fallback_bytes;   /* hp_tlb_counts(HP_TLB_ARENA) */
	uint64_t pool_rounded_bytes, pool_set_aside_bytes, pool_small_extents;
	int pool_retain;                /* opt.retain (without it no extent is a whole huge page) */
	uint64_t arenas_created;
	char arenas_reason[160];
	int64_t mi_large_os_pages, mi_reserve_huge_os_pages, mi_eager_commit;   /* mi_option_get, -1 unknown */
	char reserve[200], user_reserve[240];
};

/* Cold path: one per backend. */
struct hp_backend {
	const char *name;
	/* Start the backend as the plan first says, before its first
	 * allocation, and report in *facts what took effect that the plan
	 * did not know: a user's own setting that wins, what hugepolicy can
	 * reach of it (NULL: nothing to report).  Start-up gives the facts to
	 * one more plan call; the backend never changes the plan itself.
	 * May allocate (re-entrant calls go to the bootstrap arena).  Returns
	 * 0, or an errno value when the backend cannot run here (the caller
	 * then plans again with the failure as a fact: the system backend). */
	int (*start)(const struct hp_plan *plan, struct hp_plan_facts *facts);
	/* Configure the rest from the final plan and point *ops at its entry
	 * points (static storage, never changed after).  0, or an errno value
	 * as start's. */
	int (*init)(const struct hp_plan *plan, const struct hp_alloc_ops **ops);
	/* Configuration in force, read back from the backend: "opt.thp=always ...";
	 * the same as settings, as one line of prose. */
	void (*describe)(char *buf, size_t cap);
	void (*settings)(struct hp_backend_settings *s);
	/* Allocator numbers (stats.* names); unknown ones left HUGEPOLICY_UNKNOWN. */
	void (*stats)(struct hugepolicy_stats *st);
	/* glibc's API beyond malloc, given this backend's meaning
	 * (integration/glibc_api.c calls them, cold paths all):
	 * trim: give every free page the backend holds back to the system
	 *   (pad: glibc's, bytes kept at the top of its heap); 1 when memory
	 *   went back, else 0;
	 * info: mallinfo2's fields from the backend's own numbers (*mi is 0
	 *   on entry: a field the backend cannot give stays 0; the pool blocks
	 *   in front of it are added by the caller);
	 * opt: mallopt; NULL: no parameter has a meaning here (0, as glibc
	 *   answers an unknown one);
	 * print: malloc_stats' text on fp (jemalloc, mimalloc: glibc's
	 *   totals, hp_malloc_stats_totals, then the backend's own);
	 * xml: malloc_info's whole answer; NULL: glibc_api.c's XML of the
	 *   numbers above. */
	int (*trim)(size_t pad);
	void (*info)(struct mallinfo2 *mi);
	int (*opt)(int param, int value);
	void (*print)(FILE *fp);
	int (*xml)(int options, FILE *fp);
};

#pragma GCC visibility push(hidden)
extern const struct hp_backend hp_backend_system;
void hp_malloc_stats_totals(FILE *fp);          /* integration/glibc_api.c */
extern const struct hp_backend hp_backend_jemalloc;
extern const struct hp_backend hp_backend_mimalloc;
#pragma GCC visibility pop

#endif
