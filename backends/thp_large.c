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
 * Used by the system backend for pages=thp and by every backend for
 * pages=auto.  The inner ops and traits are copied once at start-up
 * (hp_thp_large_init), read-only after: every function is thread-safe.
 */
#include "hp_backend.h"

#include <pthread.h>

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

static struct hp_alloc_ops inner;
static struct hp_thp_large_traits traits;
static size_t threshold = 4u * HP_MIB;
static int verbose;
static atomic_int said_first_advice;

/* withdraw_on_free: the advised blocks now live, an open-addressing set of
 * addresses (0 empty, 1 deleted).  A free looks only while it is not empty;
 * inserts and deletes take the lock, lookups do not (a lookup that races a
 * rebuild may miss: that block then keeps its advice, nothing worse).  The
 * set is kept at most half full, live and deleted slots together, so that a
 * lookup of a block that is not there ends at an empty slot in a few steps;
 * beyond ADVISED_CAP / 2 live advised blocks (8192: 32 GiB of 4 MiB blocks)
 * a new block is not tracked and keeps its advice after free (README). */
#define ADVISED_CAP 16384u             /* 1 << 14 */
#define DELETED ((uintptr_t)1)
static _Atomic uintptr_t advised[ADVISED_CAP];
static atomic_int n_advised;
static unsigned n_deleted;              /* under the lock */
static pthread_mutex_t advised_lock = PTHREAD_MUTEX_INITIALIZER;

/* 2 MiB granules holding an advised block's start: most frees are one bit
 * test (set on insert, rebuilt with the set; a stale bit costs a lookup) */
#define FILTER_BITS 4096u
static _Atomic uint64_t filter[FILTER_BITS / 64];

static unsigned granule(uintptr_t a)
{
	return (unsigned)(a >> 21) & (FILTER_BITS - 1);
}

static int maybe_advised(const void *p)
{
	unsigned g = granule((uintptr_t)p);
	return (atomic_load_explicit(&filter[g / 64], memory_order_relaxed) >> (g % 64)) & 1;
}

static void filter_add(uintptr_t a)
{
	unsigned g = granule(a);
	atomic_fetch_or_explicit(&filter[g / 64], (uint64_t)1 << (g % 64), memory_order_relaxed);
}

static unsigned slot_of(uintptr_t a)
{
	/* Fibonacci hashing: the top log2(ADVISED_CAP) = 14 bits of the product */
	return (unsigned)((a >> 12) * 0x9E3779B97F4A7C15ull >> (64 - 14)) & (ADVISED_CAP - 1);
}

static void tidy_locked(int force);

static void put_locked(uintptr_t a)
{
	if ((unsigned)atomic_load(&n_advised) + n_deleted >= ADVISED_CAP / 2)
		tidy_locked(1);                 /* drop the deleted marks */
	if ((unsigned)atomic_load(&n_advised) >= ADVISED_CAP / 2)
		return;                         /* half full: this block keeps its advice */
	unsigned s = slot_of(a), free_slot = ADVISED_CAP;
	for (unsigned i = 0; i < ADVISED_CAP; i++, s = (s + 1) & (ADVISED_CAP - 1)) {
		uintptr_t v = atomic_load_explicit(&advised[s], memory_order_relaxed);
		if (v == a)
			return;                 /* advised again (realloc in place) */
		if (v == DELETED && free_slot == ADVISED_CAP)
			free_slot = s;
		if (v == 0) {
			if (free_slot == ADVISED_CAP)
				free_slot = s;
			break;
		}
	}
	if (free_slot == ADVISED_CAP)
		return;                         /* full: this block keeps its advice */
	if (atomic_load_explicit(&advised[free_slot], memory_order_relaxed) == DELETED)
		n_deleted--;
	atomic_store_explicit(&advised[free_slot], a, memory_order_release);
	filter_add(a);
	atomic_fetch_add(&n_advised, 1);
}

/* The ops the dispatcher calls: `published` (free is the backend's own, the
 * hot path untouched) until the first block is advised, then `with_free`,
 * whose free looks the block up (hp_dispatch_swap: one atomic store). */
static const struct hp_alloc_ops *published;
static struct hp_alloc_ops with_free;
static atomic_int swapped;

static void remember(void *p)
{
	pthread_mutex_lock(&advised_lock);
	put_locked((uintptr_t)p);
	pthread_mutex_unlock(&advised_lock);
	if (!atomic_load_explicit(&swapped, memory_order_relaxed) && !atomic_exchange(&swapped, 1))
		hp_dispatch_swap(published, &with_free);
}

/* Under the lock: rebuild without deleted marks when they are many, when
 * the set is empty, or when forced. */
static void tidy_locked(int force)
{
	static uintptr_t live[ADVISED_CAP / 2];
	if (!force && n_deleted < ADVISED_CAP / 8 && atomic_load(&n_advised) > 0)
		return;
	unsigned n = 0;
	for (unsigned i = 0; i < ADVISED_CAP; i++) {
		uintptr_t v = atomic_load_explicit(&advised[i], memory_order_relaxed);
		if (v > DELETED && n < ADVISED_CAP / 2)
			live[n++] = v;
		atomic_store_explicit(&advised[i], 0, memory_order_relaxed);
	}
	atomic_store(&n_advised, 0);
	n_deleted = 0;
	for (unsigned i = 0; i < FILTER_BITS / 64; i++)
		atomic_store_explicit(&filter[i], 0, memory_order_relaxed);
	for (unsigned i = 0; i < n; i++)
		put_locked(live[i]);    /* n < ADVISED_CAP / 2: no recursion */
}

/* 1 if p was an advised block (now forgotten) */
static int forget(void *p)
{
	uintptr_t a = (uintptr_t)p;
	if (atomic_load_explicit(&n_advised, memory_order_acquire) == 0)
		return 0;
	for (unsigned i = 0, s = slot_of(a); i < ADVISED_CAP; i++, s = (s + 1) & (ADVISED_CAP - 1)) {
		uintptr_t v = atomic_load_explicit(&advised[s], memory_order_acquire);
		if (v == 0)
			return 0;
		if (v != a)
			continue;
		pthread_mutex_lock(&advised_lock);
		int mine = atomic_load_explicit(&advised[s], memory_order_relaxed) == a;
		if (mine) {
			atomic_store_explicit(&advised[s], DELETED, memory_order_relaxed);
			atomic_fetch_sub(&n_advised, 1);
			n_deleted++;
			tidy_locked(0);
		}
		pthread_mutex_unlock(&advised_lock);
		return mine;
	}
	return 0;
}

void *hp_thp_large_advise(void *p, size_t n)
{
	if (p && n >= threshold) {
		size_t advised = hp_pages_advise_thp(p, n);
		if (traits.withdraw_on_free && advised)
			remember(p);
		if (traits.after_big)
			traits.after_big(n);
		hp_promote_poll();
		if (verbose && !atomic_exchange(&said_first_advice, 1))
			hp_say("THP: first block of %zu bytes: %zu bytes can be huge pages (MADV_HUGEPAGE)%s", n,
			       advised, advised ? "" : " (madvise refused or no aligned 2 MiB inside)");
	}
	return p;
}

__attribute__((noinline)) static void *big_malloc(size_t n)   /* out of the hot path */
{
	return hp_thp_large_advise(inner.malloc(n), n);
}

static void *large_malloc(size_t n)
{
	if (__builtin_expect(n >= threshold, 0))
		return big_malloc(n);
	return inner.malloc(n);
}

__attribute__((noinline)) static void *big_memalign(size_t a, size_t n)
{
	return hp_thp_large_advise(inner.memalign(a, n), n);
}

static void *large_memalign(size_t a, size_t n)
{
	if (__builtin_expect(n >= threshold, 0))
		return big_memalign(a, n);
	return inner.memalign(a, n);
}

static void *large_calloc(size_t c, size_t n)
{
	if (n && c <= SIZE_MAX / n && c * n >= threshold && traits.calloc_touches) {
		void *p = large_malloc(c * n);   /* advised before the zeroing touches it */
		return p ? memset(p, 0, c * n) : p;
	}
	/* glibc and jemalloc do not touch memory fresh from the kernel (it is
	 * zero already), and memory they reuse is resident anyway: advise after. */
	void *p = inner.calloc(c, n);
	return p && c * n >= threshold ? hp_thp_large_advise(p, c * n) : p;
}

static void large_free(void *p)
{
	if (p && maybe_advised(p) && forget(p))
		hp_pages_unadvise_thp(p, inner.usable_size(p));
	inner.free(p);
}

static void *realloc_advised(void *p, size_t n);

static void *large_realloc(void *p, size_t n)
{
	if (p == NULL)
		return large_malloc(n);
	if (traits.withdraw_on_free && forget(p)) {
		size_t had = inner.usable_size(p);
		hp_pages_unadvise_thp(p, had);  /* advised again below if it stays big */
		void *q = realloc_advised(p, n);
		if (!q)
			hp_thp_large_advise(p, had);    /* failed: the block the caller keeps is as it was */
		return q;
	}
	return realloc_advised(p, n);
}

static void *realloc_advised(void *p, size_t n)
{
	if (n < threshold)
		return inner.realloc(p, n);
	size_t old = inner.usable_size(p);
	if (n <= old || (old >= threshold && traits.realloc_keeps_advice))
		return hp_thp_large_advise(inner.realloc(p, n), n);
	if (traits.grow_in_place && traits.grow_in_place(p, n))
		return hp_thp_large_advise(p, n);
	void *q = large_malloc(n);
	if (!q)
		return NULL;                    /* p untouched, errno from the backend */
	memcpy(q, p, old);
	inner.free(p);          /* its advice is taken back above */
	return q;
}

/* A fork while another thread held the set's lock: the child's copy of the
 * lock is free again (no prepare handler: a signal handler that forks must
 * not wait for it; the set may miss an entry, which only keeps an advice). */
static void child_unlock(void)
{
	pthread_mutex_init(&advised_lock, NULL);
}

void hp_thp_large_init(const struct hp_alloc_ops *backend, const struct hp_thp_large_traits *t,
		       size_t min_bytes, int say, struct hp_alloc_ops *out)
{
	inner = *backend;
	traits = *t;
	threshold = min_bytes;
	verbose = say;
	*out = inner;
	out->malloc = large_malloc;
	out->calloc = large_calloc;
	out->realloc = large_realloc;
	out->memalign = large_memalign;
	published = out;
	with_free = *out;
	with_free.free = large_free;
	if (traits.withdraw_on_free)
		pthread_atfork(NULL, NULL, child_unlock);
}

const struct hp_alloc_ops *hp_thp_large_with_free(void)
{
	return &with_free;
}
