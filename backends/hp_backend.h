/*
 * hp_backend.h - the one vtable every backend implements, and the OS page
 * layer that backends (and later huge-page regions) share.
 */
#ifndef HP_BACKEND_H
#define HP_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../policy/hp_policy.h"

struct hugepolicy_stats;

/* Hot path: the backend's fastest plain entry points, called directly by
 * the malloc-family dispatch (no wrapper when the backend needs none). */
struct hp_alloc_ops {
	void *(*malloc)(size_t size);
	void (*free)(void *p);
	void *(*calloc)(size_t n, size_t size);
	void *(*realloc)(void *p, size_t size);
	void *(*memalign)(size_t align, size_t size);   /* align: power of two */
	size_t (*usable_size)(void *p);
};

/* Cold path: one per backend. */
struct hp_backend {
	const char *name;
	/* Configure the backend from the plan before its first allocation and
	 * point *ops at its entry points (static storage, never changed after).
	 * May allocate (re-entrant calls go to the bootstrap arena).  May update
	 * plan->pages/pages_reason from what the backend reports in force.
	 * Returns 0, or an errno value when the backend cannot run here (the
	 * caller then falls back to the system backend and says why). */
	int (*init)(struct hp_plan *plan, const struct hp_alloc_ops **ops);
	/* Configuration in force, read back from the backend: "opt.thp=always ...". */
	void (*describe)(char *buf, size_t cap);
	/* Allocator numbers (stats.* names); unknown ones left HUGEPOLICY_UNKNOWN. */
	void (*stats)(struct hugepolicy_stats *st);
};

#pragma GCC visibility push(hidden)
extern const struct hp_backend hp_backend_system;
extern const struct hp_backend hp_backend_jemalloc;
extern const struct hp_backend hp_backend_mimalloc;

/* ---- OS page layer (pages.c) ---- */

/* madvise(MADV_HUGEPAGE) on the base pages of [p, p+len) (the whole range,
 * so a block that is its own mapping stays one VMA and mremap-able).
 * Returns the bytes that can become huge pages: its 2 MiB-aligned interior
 * (0 if no whole huge page fits, or madvise failed). */
size_t hp_pages_advise_thp(void *p, size_t len);

/* Map len bytes (rounded up to 2 MiB) from the 2 MiB hugetlb pool and
 * populate them with MADV_POPULATE_WRITE so an empty pool or a cgroup limit
 * is an error now, not a SIGBUS later; never MAP_NORESERVE.  Returns the
 * 2 MiB-aligned base or NULL with errno (ENOMEM: pool/limit; EINVAL...). */
void *hp_pages_map_hugetlb(size_t len, size_t *mapped_len);
/* The same, aligned to `align` bytes (a power of two; e.g. mimalloc's
 * 32 MiB segment alignment), using PROT_NONE address space to place it. */
void *hp_pages_map_hugetlb_aligned(size_t len, size_t align, size_t *mapped_len);
void hp_pages_unmap(void *p, size_t len);

/* Process numbers from /proc/self/smaps_rollup: Rss, AnonHugePages,
 * Private_Hugetlb + Shared_Hugetlb (bytes).  0 on success, errno else. */
struct hp_smaps { uint64_t rss, anon_huge, hugetlb; };
int hp_pages_smaps(struct hp_smaps *out);

/* ---- THP for blocks >= threshold, in front of any backend (thp_large.c) ---- */
/* What the wrapper must know about the backend to advise before first touch. */
struct hp_thp_large_traits {
	int calloc_touches;          /* calloc writes every block (mimalloc 2.0) */
	int realloc_keeps_advice;    /* growing a block >= threshold keeps its advised
				      * pages (glibc: mremap of an mmapped chunk) */
	int (*grow_in_place)(void *p, size_t n);   /* 1: p now holds n bytes; NULL: none */
};
/* Fill *out with `backend`'s ops wrapped so that malloc, calloc, realloc and
 * memalign results of at least min_bytes get MADV_HUGEPAGE before their first
 * touch; free and usable_size stay the backend's.  Call once at start-up. */
void hp_thp_large_init(const struct hp_alloc_ops *backend, const struct hp_thp_large_traits *t,
		       size_t min_bytes, int verbose, struct hp_alloc_ops *out);
/* Advise [p, p+n) when n >= min_bytes; returns p (NULL stays NULL). */
void *hp_thp_large_advise(void *p, size_t n);

/* ---- hugetlb blocks of the system backend (hugetlb_blocks.c) ---- */
void hp_blocks_init(void);                           /* once, before the first block */
void *hp_blocks_alloc(size_t size, size_t align);   /* NULL: use another path */
int hp_blocks_owns(const void *p);                   /* fast; thread-safe */
size_t hp_blocks_size(const void *p);                /* usable bytes, 0 if not ours */
void hp_blocks_free(void *p);
void hp_blocks_counts(uint64_t *blocks, uint64_t *bytes, uint64_t *fallbacks);

/* The embedded jemalloc: its ops and its public API, renamed hpje_*
 * (jemalloc(3)); see jemalloc_embed.sh.  (A direct call instead of the ops
 * pointer was tried for malloc/free: no gain measured.) */
extern const struct hp_alloc_ops hp_jemalloc_ops;
void *hpje_malloc(size_t size);
void hpje_free(void *p);
void *hpje_calloc(size_t n, size_t size);
void *hpje_realloc(void *p, size_t size);
void *hpje_memalign(size_t align, size_t size);
size_t hpje_malloc_usable_size(void *p);
size_t hpje_xallocx(void *p, size_t size, size_t extra, int flags);
int hpje_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
extern const char *hpje_malloc_conf;
#pragma GCC visibility pop

#endif
