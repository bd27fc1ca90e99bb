/*
 * jemalloc_huge_arena.c - under jemalloc auto, a freed big block is kept
 * for the next one instead of being given back at once.
 *
 * auto sends blocks >= threshold to jemalloc's oversize arena
 * (opt.oversize_threshold, jemalloc.c), so that the MADV_HUGEPAGE they get
 * stays on big blocks.  jemalloc 5.3 creates that arena with dirty and muzzy
 * decay 0 ("purge eagerly for huge allocations", arena.c): every free of a
 * big block gives its pages back to the kernel and the next block of that
 * size faults them in again.  Here the arena is made at start-up
 * by one oversize malloc+free, found with arenas.lookup, and given the decay
 * of the ordinary arenas (opt.dirty_decay_ms, opt.muzzy_decay_ms: 10 s and 0
 * by default) and an arena.<i>.oversize_threshold of KEEP_MAX, so a freed
 * big block stays resident, advised and huge-page backed until jemalloc's
 * decay purges it, as it does for small blocks; a freed run of KEEP_MAX or
 * more is still given back at once, and at most KEEP_MAX is kept in all
 * (below).
 * What took effect is read back for the report.
 */
#include "hp_jemalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>

/* The most freed big-block memory kept, one run or all together: glibc's
 * largest mmap threshold (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit), the size
 * from which glibc unmaps every freed block; a freed run at least this long
 * is given back at once, as jemalloc does.  64 MiB (glibc's largest trim
 * threshold) kept render's peak RSS 1.10x jemalloc off's: the freed runs
 * sat resident while its small-block heap grew. */
#define KEEP_MAX ((size_t)32 << 20)

static void kept_child(void);
static unsigned huge_ind;               /* the oversize arena's index; 0: not changed */
static size_t decay_mib[3], decay_miblen;   /* "arena.<huge_ind>.decay" */
static size_t purge_mib[3], purge_miblen;   /* "arena.<huge_ind>.purge" */
static ssize_t was_dirty = -2;          /* its dirty decay before (jemalloc's: 0) */

static int read_ssize(const char *name, ssize_t *v)
{
	size_t len = sizeof *v;
	return hpje_mallctl(name, v, &len, NULL, 0);
}

void hp_jemalloc_huge_arena_keep(size_t threshold)
{
	unsigned narenas = 0, ind = 0;
	size_t len = sizeof narenas;
	ssize_t dirty, muzzy;
	if (hpje_mallctl("opt.narenas", &narenas, &len, NULL, 0) != 0 || read_ssize("opt.dirty_decay_ms", &dirty) != 0 ||
	    read_ssize("opt.muzzy_decay_ms", &muzzy) != 0)
		return;
	void *p = hpje_malloc(threshold);       /* creates the arena: address space only */
	if (!p)
		return;
	len = sizeof ind;
	int rc = hpje_mallctl("arenas.lookup", &ind, &len, &p, sizeof p);
	hpje_free(p);
	/* automatic arenas are 0..narenas-1: anything else is the oversize one
	 * (a threshold below jemalloc's large classes has none) */
	if (rc != 0 || ind < narenas || threshold >= KEEP_MAX)
		return;
	char name[48];
	snprintf(name, sizeof name, "arena.%u.dirty_decay_ms", ind);
	ssize_t old = -2;
	len = sizeof old;
	if (hpje_mallctl(name, &old, &len, &dirty, sizeof dirty) != 0)
		return;
	snprintf(name, sizeof name, "arena.%u.muzzy_decay_ms", ind);
	hpje_mallctl(name, NULL, NULL, &muzzy, sizeof muzzy);
	/* extent_record purges a freed extent at once, whatever the decay,
	 * when it is (coalesced with its free neighbours) at least the arena's
	 * own oversize_threshold: raised to KEEP_MAX, so runs of freed memory
	 * below it are kept and bigger ones still go back at once */
	size_t keep = KEEP_MAX;
	snprintf(name, sizeof name, "arena.%u.oversize_threshold", ind);
	if (hpje_mallctl(name, NULL, NULL, &keep, sizeof keep) != 0)
		return;                 /* decay alone would change nothing */
	snprintf(name, sizeof name, "arena.%u.decay", ind);
	decay_miblen = 3;
	if (hpje_mallctlnametomib(name, decay_mib, &decay_miblen) != 0)
		decay_miblen = 0;
	snprintf(name, sizeof name, "arena.%u.purge", ind);
	purge_miblen = 3;
	if (hpje_mallctlnametomib(name, purge_mib, &purge_miblen) != 0)
		purge_miblen = 0;
	huge_ind = ind;
	was_dirty = old;
	pthread_atfork(NULL, NULL, kept_child);
}

/* The freed big blocks the arena may still keep, by size (their runs may
 * have coalesced into longer ones, or decayed: an estimate), KEEP_MAX in
 * all: a free that would keep more gives the others back first.  A big
 * block that none of them can hold came from fresh memory: the kept runs
 * are purged then, before its caller touches it, so they never sit
 * resident beside it (fresh-buffer's peak RSS was 325 MB against 264 MB,
 * a 256 MiB block on top of the kept ones).  One that fits is taken as
 * served by the smallest that does (jemalloc's extents are best fit by
 * size class). */
#define KEPT_MAX 32
static size_t kept[KEPT_MAX], kept_sum;
static unsigned n_kept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

/* under kept_lock: the kept runs go back to the kernel now */
static void give_back_locked(void)
{
	if (purge_miblen)
		hpje_mallctlbymib(purge_mib, purge_miblen, NULL, NULL, NULL, 0);
	n_kept = 0;
	kept_sum = 0;
}

/* a fork while another thread held the lock: the child's copy is free */
static void kept_child(void)
{
	pthread_mutex_init(&kept_lock, NULL);
}

/* called before the block goes back to jemalloc */
void hp_jemalloc_huge_arena_freed(size_t n)
{
	if (!huge_ind || n >= KEEP_MAX)
		return;                 /* not kept: given back at once */
	pthread_mutex_lock(&kept_lock);
	if (kept_sum + n > KEEP_MAX || n_kept == KEPT_MAX)
		give_back_locked();     /* the ones kept so far */
	kept[n_kept++] = n;
	kept_sum += n;
	pthread_mutex_unlock(&kept_lock);
}

/* 1 if a kept block can hold n (now taken), 0 if none: the kept runs are purged */
static int served_from_kept(size_t n)
{
	pthread_mutex_lock(&kept_lock);
	unsigned best = KEPT_MAX;
	for (unsigned i = 0; i < n_kept; i++)
		if (kept[i] >= n && (best == KEPT_MAX || kept[i] < kept[best]))
			best = i;
	int fit = best < KEPT_MAX;
	if (fit) {
		kept_sum -= kept[best];
		kept[best] = kept[--n_kept];
	} else {
		give_back_locked();
	}
	pthread_mutex_unlock(&kept_lock);
	return fit;
}

/* jemalloc checks an arena's decay clock only every 1000 of its own
 * allocations and frees, which the oversize arena may never reach: each
 * big block allocated runs it now (about a microsecond, against the
 * hundreds a fresh 4 MiB block costs), so freed big blocks leave within
 * dirty_decay_ms of the program's big-block activity. */
void hp_jemalloc_huge_arena_tick(size_t n)
{
	if (!huge_ind)
		return;
	if (served_from_kept(n) && decay_miblen)
		hpje_mallctlbymib(decay_mib, decay_miblen, NULL, NULL, NULL, 0);
}

void hp_jemalloc_huge_arena_settings(struct hp_backend_settings *s)
{
	if (!huge_ind)
		return;
	char name[48];
	ssize_t dirty = -2, muzzy = -2;
	snprintf(name, sizeof name, "arena.%u.dirty_decay_ms", huge_ind);
	read_ssize(name, &dirty);
	snprintf(name, sizeof name, "arena.%u.muzzy_decay_ms", huge_ind);
	read_ssize(name, &muzzy);
	size_t keep = 0, len = sizeof keep;
	snprintf(name, sizeof name, "arena.%u.oversize_threshold", huge_ind);
	hpje_mallctl(name, &keep, &len, NULL, 0);
	s->have |= HP_BS_HUGE_ARENA;
	s->huge_arena = huge_ind;
	s->huge_keep_below = keep;
	s->huge_keep_max = KEEP_MAX;
	s->huge_dirty_decay_ms = dirty;
	s->huge_muzzy_decay_ms = muzzy;
	s->huge_default_dirty_decay_ms = was_dirty;
}
