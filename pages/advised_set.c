/*
 * advised_set.c - the big blocks whose free thp_large.c must see: a set of
 * their addresses, for a backend that reuses a freed big block's pages for
 * small blocks (the advice is taken back) or keeps freed big runs for
 * reuse (jemalloc auto counts what it keeps); with each its length, so
 * that the heap promotion can tell what of the heap they hold.
 *
 * Thread-safe: inserts and deletes take one lock, lookups do not.
 */
#include "hp_pages.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* The tracked blocks now live, an open-addressing set of
 * addresses (0 empty, 1 deleted).  A free looks only while it is not empty;
 * inserts and deletes take the lock, lookups do not: a rebuild (which
 * empties the table and its filter, then puts the live blocks back) makes
 * gen odd while it runs, and a lookup that found nothing while gen was odd
 * or changed looks again under the lock.  The
 * set is kept at most half full, live and deleted slots together, so that a
 * lookup of a block that is not there ends at an empty slot in a few steps;
 * beyond ADVISED_CAP / 2 live advised blocks (8192: 32 GiB of 4 MiB blocks)
 * a new block is not tracked and keeps its advice after free (docs/design.md, Known limits). */
#define ADVISED_CAP 16384u             /* 1 << 14 */
#define DELETED ((uintptr_t)1)
static _Atomic uintptr_t advised[ADVISED_CAP];
static _Atomic size_t advised_len[ADVISED_CAP]; /* written before the address */
static atomic_int n_advised;
static unsigned n_deleted;              /* under the lock */
static pthread_mutex_t advised_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint gen;                 /* rebuilds begun and ended: odd while one runs */

/* a lookup that began at generation g0 and found nothing (its loads
 * acquire: this one cannot come before them) may have raced a rebuild */
static int raced(unsigned g0)
{
	return (g0 & 1) || atomic_load_explicit(&gen, memory_order_acquire) != g0;
}

/* 2 MiB granules holding an advised block's start: most frees are one bit
 * test (set on insert, rebuilt with the set; a stale bit costs a lookup) */
#define FILTER_BITS 4096u
static _Atomic uint64_t filter[FILTER_BITS / 64];

static unsigned granule(uintptr_t a)
{
	return (unsigned)(a >> 21) & (FILTER_BITS - 1);
}

int hp_advised_set_maybe(const void *p)
{
	unsigned g = granule((uintptr_t)p), g0 = atomic_load_explicit(&gen, memory_order_acquire);
	if ((atomic_load_explicit(&filter[g / 64], memory_order_acquire) >> (g % 64)) & 1)
		return 1;
	return raced(g0);       /* the filter was being rebuilt: maybe */
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

/* 1: a is in the set now and was not before */
static int put_locked(uintptr_t a, size_t len)
{
	if ((unsigned)atomic_load(&n_advised) + n_deleted >= ADVISED_CAP / 2)
		tidy_locked(1);                 /* drop the deleted marks */
	if ((unsigned)atomic_load(&n_advised) >= ADVISED_CAP / 2)
		return 0;                       /* half full: this block keeps its advice */
	unsigned s = slot_of(a), free_slot = ADVISED_CAP;
	for (unsigned i = 0; i < ADVISED_CAP; i++, s = (s + 1) & (ADVISED_CAP - 1)) {
		uintptr_t v = atomic_load_explicit(&advised[s], memory_order_relaxed);
		if (v == a)
			return 0;               /* advised again (realloc in place) */
		if (v == DELETED && free_slot == ADVISED_CAP)
			free_slot = s;
		if (v == 0) {
			if (free_slot == ADVISED_CAP)
				free_slot = s;
			break;
		}
	}
	if (free_slot == ADVISED_CAP)
		return 0;                       /* full: this block keeps its advice */
	if (atomic_load_explicit(&advised[free_slot], memory_order_relaxed) == DELETED)
		n_deleted--;
	atomic_store_explicit(&advised_len[free_slot], len, memory_order_relaxed);
	atomic_store_explicit(&advised[free_slot], a, memory_order_release);
	filter_add(a);
	atomic_fetch_add(&n_advised, 1);
	return 1;
}

/* Under the lock: rebuild without deleted marks when they are many
 * (ADVISED_CAP / 8: a scan of the table per 2048 deletes), or when forced.
 * Not each time the set empties: a program that reuses one big block
 * empties it at every free, and would scan the table each time. */
static void tidy_locked(int force)
{
	static uintptr_t live[ADVISED_CAP / 2];
	static size_t live_len[ADVISED_CAP / 2];
	if (!force && n_deleted < ADVISED_CAP / 8)
		return;
	unsigned n = 0;
	atomic_fetch_add(&gen, 1);      /* odd: lock-free lookups that find nothing look again */
	for (unsigned i = 0; i < ADVISED_CAP; i++) {
		uintptr_t v = atomic_load_explicit(&advised[i], memory_order_relaxed);
		if (v > DELETED && n < ADVISED_CAP / 2) {
			live_len[n] = atomic_load_explicit(&advised_len[i], memory_order_relaxed);
			live[n++] = v;
		}
		atomic_store_explicit(&advised[i], 0, memory_order_relaxed);
	}
	atomic_store(&n_advised, 0);
	n_deleted = 0;
	for (unsigned i = 0; i < FILTER_BITS / 64; i++)
		atomic_store_explicit(&filter[i], 0, memory_order_relaxed);
	for (unsigned i = 0; i < n; i++)
		put_locked(live[i], live_len[i]);       /* n < ADVISED_CAP / 2: no recursion */
	atomic_fetch_add_explicit(&gen, 1, memory_order_release);
}

/* Under the lock: a out of the set; 1 if it was there */
static int take_locked(uintptr_t a)
{
	for (unsigned i = 0, s = slot_of(a); i < ADVISED_CAP; i++, s = (s + 1) & (ADVISED_CAP - 1)) {
		uintptr_t v = atomic_load_explicit(&advised[s], memory_order_relaxed);
		if (v == 0)
			return 0;
		if (v != a)
			continue;
		atomic_store_explicit(&advised[s], DELETED, memory_order_relaxed);
		atomic_fetch_sub(&n_advised, 1);
		n_deleted++;
		tidy_locked(0);
		return 1;
	}
	return 0;
}

/* 1 if p was a tracked block (now forgotten) */
int hp_advised_set_forget(void *p)
{
	uintptr_t a = (uintptr_t)p;
	unsigned g0 = atomic_load_explicit(&gen, memory_order_acquire);
	if (atomic_load_explicit(&n_advised, memory_order_acquire) == 0 && !raced(g0))
		return 0;
	int found = 0;
	for (unsigned i = 0, s = slot_of(a); i < ADVISED_CAP && !found; i++, s = (s + 1) & (ADVISED_CAP - 1)) {
		uintptr_t v = atomic_load_explicit(&advised[s], memory_order_acquire);
		if (v == 0)
			break;
		found = v == a;
	}
	/* not seen: not there, unless a rebuild ran meanwhile; seen: taken
	 * under the lock, wherever a rebuild has put it since */
	if (!found && !raced(g0))
		return 0;
	pthread_mutex_lock(&advised_lock);
	int mine = take_locked(a);
	pthread_mutex_unlock(&advised_lock);
	return mine;
}

int hp_advised_set_put(void *p, size_t len)
{
	pthread_mutex_lock(&advised_lock);
	int added = put_locked((uintptr_t)p, len);
	pthread_mutex_unlock(&advised_lock);
	return added;
}

/* Lock-free: a block freed or put meanwhile may count or not (mincore of
 * a range unmapped since counts nothing). */
uint64_t hp_advised_set_resident(void)
{
	uint64_t bytes = 0;
	if (atomic_load_explicit(&n_advised, memory_order_acquire) == 0)
		return 0;
	for (unsigned i = 0; i < ADVISED_CAP; i++) {
		uintptr_t v = atomic_load_explicit(&advised[i], memory_order_acquire);
		if (v > DELETED)
			bytes += hp_pages_resident((void *)v, atomic_load_explicit(&advised_len[i], memory_order_relaxed));
	}
	return bytes;
}

/* A fork while another thread held the set's lock: the child's copy of the
 * lock is free again (no prepare handler: a signal handler that forks must
 * not wait for it; the set may miss an entry, which only keeps an advice). */
void hp_advised_set_child_unlock(void)
{
	pthread_mutex_init(&advised_lock, NULL);
	if (atomic_load(&gen) & 1)
		atomic_fetch_add(&gen, 1);      /* a rebuild the fork cut short ends here: lookups stay lock-free */
}
