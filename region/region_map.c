/*
 * region_map.c - the anonymous mapping of a THP or base-page region: its
 * own VMA, kept from merging with a neighbour (whose pages smaps would then
 * count with the region's) by a PROT_NONE guard page on each side.
 *
 * The address space is reserved PROT_NONE first (no commit charge, no
 * MAP_NORESERVE), aligned inside the reservation, and made read-write with
 * mprotect - which charges the commit and fails with ENOMEM cleanly, the
 * reservation intact (a MAP_FIXED mmap over it could leave a hole that
 * another thread maps at once).  The slack outside the guards goes back.
 */
#define _GNU_SOURCE
#include "hp_region.h"

#include <errno.h>
#include <sys/mman.h>

#define G ((size_t)HP_REGION_GUARD)

/* PROT_NONE [a-G, a+len+G) with a aligned; NULL with errno. */
static unsigned char *reserve(size_t len, size_t align)
{
	if (align < G)
		align = G;
	size_t total = len + align + 2 * G;
	unsigned char *r = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	unsigned char *a = (unsigned char *)(((uintptr_t)r + G + align - 1) & ~(uintptr_t)(align - 1));
	if (a - G > r)
		munmap(r, (size_t)(a - G - r));
	if (r + total > a + len + G)
		munmap(a + len + G, (size_t)(r + total - (a + len + G)));
	return a;
}

void *hp_region_map_guarded(size_t len, size_t align)
{
	unsigned char *a = reserve(len, align);
	if (!a)
		return NULL;
	if (mprotect(a, len, PROT_READ | PROT_WRITE) != 0) {
		int e = errno;
		munmap(a - G, len + 2 * G);
		errno = e;
		return NULL;
	}
	return a;
}

void hp_region_unmap_guarded(void *p, size_t len)
{
	munmap((unsigned char *)p - G, len + 2 * G);
}

/* Shrink [p, p+old) to len in place: the page after the new end becomes
 * its guard, the rest (old guard included) is unmapped.  0 or errno. */
int hp_region_shrink_guarded(void *p, size_t old, size_t len)
{
	unsigned char *guard = (unsigned char *)p + len;
	if (mprotect(guard, G, PROT_NONE) != 0)
		return errno;
	madvise(guard, G, MADV_DONTNEED);
	munmap(guard + G, old - len);
	return 0;
}

/* Move [p, p+old) into a fresh guarded reservation of len > old bytes
 * (mremap: page tables move, nothing is copied; the VMA's advice, fork
 * flags and NUMA policy go with it).  The new address, or NULL with errno
 * and the region where it was. */
void *hp_region_grow_guarded(void *p, size_t old, size_t len, size_t align)
{
	unsigned char *n = reserve(len, align);
	if (!n)
		return NULL;
	void *q = mremap(p, old, len, MREMAP_MAYMOVE | MREMAP_FIXED, n);
	if (q == MAP_FAILED) {
		int e = errno;
		/* the kernel may have unmapped [n, n+len) already: give back
		 * only the guards, never a range someone else may map now */
		munmap(n - G, G);
		munmap(n + len, G);
		errno = e;
		return NULL;
	}
	munmap((unsigned char *)p - G, G);
	munmap((unsigned char *)p + old, G);
	return q;
}
