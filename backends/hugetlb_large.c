/*
 * hugetlb_large.c - blocks of at least `pool_min` bytes from the hugetlb
 * pool, in front of any backend (the system backend's and jemalloc's
 * pages=hugetlb).
 *
 * A block that big is its own populated mapping (hugetlb_blocks.c); when the
 * pool or a cgroup limit says no, the backend serves it, advised
 * MADV_HUGEPAGE before first touch where THP is on (thp_large.c, which the
 * caller has set up for the same backend), said once.  Smaller blocks, the
 * hot path, are a tail call to the backend.  free, usable_size and realloc
 * recognise pool blocks by their 2 MiB-aligned base (hugetlb_map.c).
 * One wrapper set per process, set up once at start-up.
 */
#include "hp_backend.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

static struct hp_alloc_ops inner;
static size_t pool_min = 4u * HP_MIB;
static int fallback_thp, verbose;
static atomic_int said_fallback, said_first_block;

static void *fallback(size_t n, void *p)
{
	return p && fallback_thp == HP_TLB_FALLBACK_THP ? hp_thp_large_advise(p, n) : p;
}

static void *from_pool(size_t n, size_t align)
{
	if (n < pool_min)
		return NULL;
	int saved = errno;
	struct hp_tlb_fail why = { 0, 0 };
	void *p = hp_blocks_alloc(n, align, &why);
	if (p) {
		if (verbose && !atomic_exchange(&said_first_block, 1))
			hp_say("hugetlb: first block of %zu bytes mapped and populated from the 2 MiB pool", n);
	} else if (!atomic_exchange(&said_fallback, 1)) {
		hp_say("hugetlb: a %zu-byte block could not be taken from the 2 MiB pool: %s (%s); "
		       "such blocks use %s while the pool says no (said once)", n, hp_tlb_stage_name(why.stage),
		       strerror(why.err), fallback_thp != HP_TLB_FALLBACK_BASE ? "THP" : "base pages");
	}
	errno = saved;
	return p;
}

static void *tlb_malloc(size_t n)
{
	if (n < pool_min)
		return inner.malloc(n);
	void *p = from_pool(n, 0);
	return p ? p : fallback(n, inner.malloc(n));
}

static void *tlb_calloc(size_t c, size_t n)
{
	if (n && c > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = from_pool(c * n, 0);          /* hugetlb pages arrive zeroed */
	return p ? p : fallback(c * n, inner.calloc(c, n));
}

static void *tlb_memalign(size_t a, size_t n)
{
	if (n < pool_min)
		return inner.memalign(a, n);
	void *p = from_pool(n, a);
	return p ? p : fallback(n, inner.memalign(a, n));
}

static void tlb_free(void *p)
{
	if (hp_blocks_owns(p))
		hp_blocks_free(p);
	else
		inner.free(p);
}

static size_t tlb_usable(void *p)
{
	size_t n = hp_blocks_size(p);
	return n ? n : inner.usable_size(p);
}

static void *tlb_realloc(void *p, size_t n)
{
	size_t old = hp_blocks_size(p);
	if (p == NULL)
		return tlb_malloc(n);
	if (old == 0 && n < pool_min)
		return inner.realloc(p, n);
	if (old != 0 && n <= old && n >= pool_min)
		return p;                       /* shrinking inside the block */
	void *q = tlb_malloc(n);
	if (!q)
		return NULL;                    /* p untouched, errno set */
	size_t keep = old ? old : inner.usable_size(p);
	memcpy(q, p, keep < n ? keep : n);
	tlb_free(p);
	return q;
}

void hp_tlb_large_init(const struct hp_alloc_ops *backend, size_t min_bytes, int thp_fallback, int say,
		       struct hp_alloc_ops *out)
{
	inner = *backend;
	pool_min = min_bytes;
	fallback_thp = thp_fallback;
	verbose = say;
	out->malloc = tlb_malloc;
	out->free = tlb_free;
	out->calloc = tlb_calloc;
	out->realloc = tlb_realloc;
	out->memalign = tlb_memalign;
	out->usable_size = tlb_usable;
}
