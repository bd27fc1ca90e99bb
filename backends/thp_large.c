/*
 * thp_large.c - THP for large blocks only, in front of any backend.
 *
 * A block of at least `threshold` bytes gets madvise(MADV_HUGEPAGE) on its
 * 2 MiB-aligned interior right after the backend returns it, before the
 * caller's first touch, so its faults are 2 MiB faults (numpy's 4 MiB rule;
 * kernel Documentation/admin-guide/mm/transhuge.rst, "madvise" mode).  Smaller
 * blocks and the backend's own metadata stay on base pages, so RSS grows by
 * at most the partial huge pages at the ends of the big blocks.
 *
 * Used by the system backend for pages=thp and by every backend for
 * pages=auto.  One wrapper set per process: the inner ops are copied once at
 * start-up (hp_thp_large_init) and read-only after, so every function here is
 * thread-safe.
 */
#include "hp_backend.h"

#include <stdatomic.h>

static struct hp_alloc_ops inner;
static size_t threshold = 4u * HP_MIB;
static int verbose;
static atomic_int said_first_advice;

void *hp_thp_large_advise(void *p, size_t n)
{
	if (p && n >= threshold) {
		size_t advised = hp_pages_advise_thp(p, n);
		if (verbose && !atomic_exchange(&said_first_advice, 1))
			hp_say("THP: first block of %zu bytes: %zu bytes advised MADV_HUGEPAGE%s", n, advised,
			       advised ? "" : " (madvise refused or no aligned 2 MiB inside)");
	}
	return p;
}

/* Small requests, the hot path, are a tail call to the backend. */
static void *large_malloc(size_t n)
{
	if (n < threshold)
		return inner.malloc(n);
	return hp_thp_large_advise(inner.malloc(n), n);
}

static void *large_memalign(size_t a, size_t n)
{
	if (n < threshold)
		return inner.memalign(a, n);
	return hp_thp_large_advise(inner.memalign(a, n), n);
}

static void *large_realloc(void *p, size_t n)
{
	if (n < threshold)
		return inner.realloc(p, n);
	return hp_thp_large_advise(inner.realloc(p, n), n);
}

static void *large_calloc(size_t c, size_t n)
{
	/* Advised after the call: glibc, jemalloc and mimalloc do not touch
	 * memory fresh from the kernel (it is zero already), and memory they
	 * reuse is resident anyway.  c * n cannot wrap once p is non-NULL. */
	void *p = inner.calloc(c, n);
	return p ? hp_thp_large_advise(p, c * n) : p;
}

void hp_thp_large_init(const struct hp_alloc_ops *backend, size_t min_bytes, int say,
		       struct hp_alloc_ops *out)
{
	inner = *backend;
	threshold = min_bytes;
	verbose = say;
	*out = inner;
	out->malloc = large_malloc;
	out->calloc = large_calloc;
	out->realloc = large_realloc;
	out->memalign = large_memalign;
}
