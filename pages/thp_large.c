/*
 * thp_large.c - THP for large blocks only, in front of any backend.
 *
 * A block of at least `threshold` bytes gets madvise(MADV_HUGEPAGE) right
 * after the backend returns it, before the caller's first touch, so its
 * faults are 2 MiB faults (numpy's 4 MiB rule; kernel
 * Documentation/admin-guide/mm/transhuge.rst, "madvise" mode).  Smaller
 * blocks and the backend's own metadata stay on base pages.
 *
 * Where the backend itself would touch the block before the advice can be
 * given, the wrapper does that step itself, advised first:
 * - calloc, for a backend whose calloc zeroes every block (mimalloc 2.0):
 *   malloc, advise, then zero;
 * - realloc that grows a block to >= threshold and cannot grow it in place:
 *   malloc, advise, copy, free (what the backends do, but with the copy
 *   landing on advised memory) - except glibc growing a block that is
 *   already >= threshold: its mremap(2) moves the pages without a copy,
 *   which is worth more than their huge mappings (a move to another offset
 *   within 2 MiB splits them into base-page mappings, until khugepaged
 *   collapses them again); a block glibc keeps in its heap is copied by
 *   glibc, onto pages advised only afterwards.
 *
 * Under pages=auto with a sub-PMD THP size in `madvise`, a backend with
 * traits.mid_fresh (glibc) has its blocks from the plan's mthp_min up to
 * the threshold looked at: those fresh from the OS get thp_mid.c's advice
 * (mTHP folios, no PMD THP), reused ones nothing; realloc of those stays
 * the backend's.  The other backends advise at their mmap instead.
 *
 * Under auto a big block is advised only where THP pays (fault_cost.c),
 * and a block new to the caller may have some of its huge pages faulted
 * and timed first (hp_fault_cost_probe), its advice taken back where they
 * did not pay; realloc's kept blocks are never touched.  Every big block
 * is tracked (advised_set.c) where the backend's traits ask, so that the
 * heap promotion can weigh the heap outside them.
 *
 * Used by the system backend for pages=thp and by every backend for
 * pages=auto.  The inner ops and traits are copied once at start-up
 * (hp_thp_large_init), read-only after: every function is thread-safe.
 */
#include "hp_pages.h"

#include <errno.h>
#include <pthread.h>

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

static struct hp_alloc_ops inner;
static struct hp_thp_large_traits traits;
static size_t threshold = 4u * HP_MIB;
static size_t entry = 4u * HP_MIB;     /* the smallest block the wrapper looks at: the threshold,
					* or, with traits.mid_fresh, mTHP's least size (thp_mid.c) */
static int verbose;
static atomic_int said_first_advice;

/* The ops the dispatcher calls: `published` (free is the backend's own, the
 * hot path untouched) until the first block is advised, then `with_free`,
 * whose free looks the block up (the dispatcher's swap, hp_thp_large_set_swap: one atomic store). */
static const struct hp_alloc_ops *published;
static struct hp_alloc_ops with_free;
static atomic_int swapped;

static hp_ops_swap_fn swap_ops;        /* the dispatcher's, set before any backend starts */

void hp_thp_large_set_swap(hp_ops_swap_fn swap)
{
	swap_ops = swap;
}

/* a big block tracked: its bytes are left out of the heap promotion's
 * figures (the threshold's rule covers them), until forget_big */
static void remember(void *p)
{
	size_t n = inner.usable_size(p);
	if (hp_advised_set_put(p, n))
		hp_promote_big_blocks(n, 0);
	if (!atomic_load_explicit(&swapped, memory_order_relaxed) && !atomic_exchange(&swapped, 1) && swap_ops)
		swap_ops(published, &with_free);
}

/* 1: p was a tracked big block (now forgotten); *had its usable bytes */
static int forget_big(void *p, size_t *had)
{
	if (!hp_advised_set_forget(p))
		return 0;
	*had = inner.usable_size(p);
	hp_promote_big_blocks(*had, 1);
	return 1;
}

/* fresh: a block new to the caller (malloc, memalign, calloc), whose
 * huge pages the fault probe may touch; realloc's kept or given-back
 * blocks hold the caller's content, maybe mprotect'ed: never touched */
static void *advise(void *p, size_t n, int fresh)
{
	if (p && n < threshold && n >= entry) {
		if (traits.mid_fresh(p))
			hp_thp_mid_advise(p, n);
		return p;
	}
	if (p && n >= threshold) {
		/* auto: only where a THP fault costs less than the base faults it replaces */
		int go = hp_fault_cost_block(n);
		size_t advised = go ? hp_pages_advise_thp(p, n) : 0;
		if (advised && !hp_fault_cost_probe(p, n, go == 2, fresh)) {
			hp_pages_unadvise_thp(p, n);    /* on base pages (the probe gave its huge pages back) */
			advised = 0;
		}
		/* every big block, advised or not: the heap promotion weighs the
		 * heap outside them (a free takes back advice it may not have had:
		 * one madvise) */
		if (traits.withdraw_on_free || traits.freed_big)
			remember(p);
		if (traits.after_big)
			traits.after_big(n);
		hp_promote_poll();
		if (verbose && advised && !atomic_exchange(&said_first_advice, 1))
			hp_say("THP: first block of %zu bytes: %zu bytes can be huge pages (MADV_HUGEPAGE)%s", n,
			       advised, advised ? "" : " (madvise refused or no aligned 2 MiB inside)");
	}
	return p;
}

void *hp_thp_large_advise(void *p, size_t n)
{
	return advise(p, n, 1);
}

/* A big block of at least one huge page starts on a 2 MiB boundary, so
 * that every whole 2 MiB of it can be a huge page: at any other start the
 * partial pages at both ends stay on base pages (a 4 MiB block got one huge
 * page, not two; deform's 50 MB frames took 560 base-page faults each under
 * mimalloc auto, 40 with the alignment).  The cost is address space only:
 * the backend's padding before the block is not touched.  mimalloc only
 * (traits.align_big): jemalloc's oversize arena could not reuse the freed
 * runs for aligned blocks, and kept them (Rss +8 MiB per fault-injection
 * cycle); glibc's aligned mmapped chunk has its header in the page before
 * the block, and glibc's own tst-free-errno, which remaps the block's
 * pages by its layout, then aborts in free. */
static size_t big_align(size_t a, size_t n)
{
	return traits.align_big && n >= HP_HUGE_2M && a < HP_HUGE_2M ? HP_HUGE_2M : a;
}

__attribute__((noinline)) static void *big_malloc(size_t n)   /* out of the hot path */
{
	if (n > (size_t)PTRDIFF_MAX) {  /* no object is that big: C's ENOMEM, nothing asked of the backend */
		errno = ENOMEM;
		return NULL;
	}
	size_t a = n >= threshold ? big_align(0, n) : 0;
	void *p = a ? inner.memalign(a, n) : NULL;
	/* refused (too large for the padding, or a backend that cannot):
	 * malloc's own answer, and the errno malloc owes its caller */
	return hp_thp_large_advise(p ? p : inner.malloc(n), n);
}

static void *large_malloc(size_t n)
{
	if (__builtin_expect(n >= entry, 0))
		return big_malloc(n);
	return inner.malloc(n);
}

/* the dispatch's entry for sizes above HP_SMALL_MAX: the same, to the
 * backend's own entry for them */
static void *large_malloc_large(size_t n)
{
	if (__builtin_expect(n >= entry, 0))
		return big_malloc(n);
	return inner.malloc_large(n);
}

__attribute__((noinline)) static void *big_memalign(size_t a, size_t n)
{
	size_t b = n >= threshold ? big_align(a, n) : a;
	void *p = b != a ? inner.memalign(b, n) : NULL;
	return hp_thp_large_advise(p ? p : inner.memalign(a, n), n);   /* as big_malloc */
}

static void *large_memalign(size_t a, size_t n)
{
	if (__builtin_expect(n >= entry, 0))
		return big_memalign(a, n);
	return inner.memalign(a, n);
}

static void *large_calloc(size_t c, size_t n)
{
	if (n && c <= SIZE_MAX / n && c * n >= entry && traits.calloc_touches) {
		void *p = large_malloc(c * n);   /* advised before the zeroing touches it */
		return p ? memset(p, 0, c * n) : p;
	}
	/* glibc and jemalloc do not touch memory fresh from the kernel (it is
	 * zero already), and memory they reuse is resident anyway: advise after. */
	void *p = inner.calloc(c, n);
	return p && c * n >= entry ? hp_thp_large_advise(p, c * n) : p;
}

static void large_free(void *p)
{
	size_t n;
	if (p && hp_advised_set_maybe(p) && forget_big(p, &n)) {
		if (traits.withdraw_on_free)
			hp_pages_unadvise_thp(p, n);
		if (traits.freed_big)
			traits.freed_big(n);
	}
	inner.free(p);
}

static void *realloc_advised(void *p, size_t n);

static void *large_realloc(void *p, size_t n)
{
	if (p == NULL)
		return large_malloc(n);
	size_t had;
	if (traits.withdraw_on_free && forget_big(p, &had)) {
		hp_pages_unadvise_thp(p, had);  /* advised again below if it stays big */
		void *q = realloc_advised(p, n);
		if (!q)
			advise(p, had, 0);      /* failed: the block the caller keeps is as it was */
		return q;
	}
	if (traits.freed_big && hp_advised_set_maybe(p) && forget_big(p, &had)) {
		void *q = realloc_advised(p, n);        /* tracks q again if it is big */
		if (!q)
			remember(p);            /* failed: p stays, tracked as before */
		else if (q != p)
			traits.freed_big(had);  /* moved: the old block was freed */
		return q;
	}
	return realloc_advised(p, n);
}

static void *realloc_advised(void *p, size_t n)
{
	if (n < entry)
		return inner.realloc(p, n);
	size_t old = inner.usable_size(p);
	if (n < threshold) {
		/* mid-size (mTHP): the backend's own realloc (in place where it
		 * can); the result advised if fresh.  A block that was (glibc's
		 * mremap keeps the mapping's advice, over a range that may now
		 * hold whole 2 MiB windows) is advised again with its guard */
		int had = old >= entry && traits.mid_fresh(p);
		void *q = inner.realloc(p, n);
		if (q && had && n >= entry && traits.mid_fresh(q))
			hp_thp_mid_readvise(q, n);
		return q && !had ? advise(q, n, 0) : q;
	}
	if (n <= old || (old >= threshold && traits.realloc_keeps_advice))
		return advise(inner.realloc(p, n), n, 0);
	if (traits.grow_in_place && traits.grow_in_place(p, n))
		return advise(p, n, 0);
	void *q = large_malloc(n);
	if (!q)
		return NULL;                    /* p untouched, errno from the backend */
	memcpy(q, p, old);
	inner.free(p);          /* its advice is taken back above */
	return q;
}

void hp_thp_large_init(const struct hp_alloc_ops *backend, const struct hp_thp_large_traits *t,
		       size_t min_bytes, int say, struct hp_alloc_ops *out)
{
	inner = *backend;
	traits = *t;
	threshold = min_bytes;
	entry = t->mid_fresh && hp_thp_mid_min() && hp_thp_mid_min() < min_bytes ? hp_thp_mid_min() : min_bytes;
	verbose = say;
	*out = inner;
	out->malloc = large_malloc;
	/* blocks that small are never advised: the backend's own entry */
	out->malloc_small = entry > HP_SMALL_MAX ? inner.malloc_small : large_malloc;
	out->malloc_large = large_malloc_large;
	out->calloc = large_calloc;
	out->realloc = large_realloc;
	out->memalign = large_memalign;
	published = out;
	with_free = *out;
	with_free.free = large_free;
	if (traits.withdraw_on_free || traits.freed_big)
		pthread_atfork(NULL, NULL, hp_advised_set_child_unlock);
}

const struct hp_alloc_ops *hp_thp_large_with_free(void)
{
	return &with_free;
}
