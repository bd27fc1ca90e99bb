/*
 * mimalloc_maps.c - the address ranges mimalloc holds: every mapping its
 * mmap made (mimalloc_os.c) and the arena hugepolicy reserved for it, less
 * what its munmap gave back.  From them, stats.resident (mincore over the
 * ranges) and the bytes it has mapped (reserved, committed or not), which
 * mimalloc 2.0 itself counts only in a text table.
 *
 * A MAP_FIXED mmap over a held range (mimalloc decommits that way) keeps
 * it; a munmap trims or splits a range.  The table is fixed (no malloc
 * inside mimalloc's mmap); when it is full the ranges are no longer all
 * known and both numbers are unknown from then on.  A spinlock guards it:
 * mimalloc maps and unmaps a 32 MiB segment at a time, never on its
 * allocation fast path.  A fork child starts with it free (a fork from a
 * signal handler may interrupt its holder: glibc's tst-mallocfork2); a
 * range being written at that moment may be off in the child, nothing more.
 */
#define _GNU_SOURCE
#include "hp_mimalloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#define MAPS 4096

static struct range { uintptr_t at; size_t len; } maps[MAPS];
static unsigned used;                  /* maps[0 .. used) may hold ranges (len 0: free) */
static int lost;                       /* a range was not recorded: numbers unknown */
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void take(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

static void give(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

static void child_unlock(void)
{
	atomic_flag_clear(&lock);
}

void hp_mimalloc_maps_init(void)
{
	pthread_atfork(NULL, NULL, child_unlock);
}

/* under the lock: a free slot, or NULL (and the table is lost) */
static struct range *slot(void)
{
	for (unsigned i = 0; i < used; i++)
		if (maps[i].len == 0)
			return &maps[i];
	if (used < MAPS)
		return &maps[used++];
	lost = 1;
	return NULL;
}

void hp_mimalloc_maps_add(void *p, size_t len)
{
	take();
	struct range *r = slot();
	if (r) {
		r->at = (uintptr_t)p;
		r->len = len;
	}
	give();
}

void hp_mimalloc_maps_remove(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, e = a + len;
	take();
	for (unsigned i = 0; i < used; i++) {
		struct range *r = &maps[i];
		uintptr_t ra = r->at, re = ra + r->len;
		if (r->len == 0 || e <= ra || re <= a)
			continue;
		if (a <= ra && re <= e) {
			r->len = 0;                     /* all of it */
		} else if (a <= ra) {
			r->at = e;                      /* its head */
			r->len = re - e;
		} else if (re <= e) {
			r->len = a - ra;                /* its tail */
		} else {
			r->len = a - ra;                /* its middle: the rest is a new range */
			struct range *rest = slot();
			if (rest) {
				rest->at = e;
				rest->len = re - e;
			}
		}
	}
	give();
}

int hp_mimalloc_maps_read(uint64_t *resident, uint64_t *mapped)
{
	uint64_t r = 0, bytes = 0;
	int saved = errno;
	take();
	for (unsigned i = 0; i < used && !lost; i++) {
		bytes += maps[i].len;
		r += hp_pages_resident((void *)maps[i].at, maps[i].len);
	}
	int ok = !lost;
	give();
	errno = saved;
	*resident = r;
	*mapped = bytes;
	return ok ? 0 : ENOSPC;
}
