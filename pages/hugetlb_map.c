/*
 * hugetlb_map.c - every hugetlb mapping hugepolicy made and populated, for
 * whichever user: the pool blocks in front of a backend, jemalloc's
 * extents, mimalloc's segments (its mmap goes through mimalloc_os.c) and
 * reservation arenas, regions that children inherit.  free()
 * finds a block by its base; fork (hugetlb_fork.c) walks all of them; the
 * report counts them, per page size too.
 *
 * An open-addressing hash of base -> (length, owner, on-pool, page size)
 * under a lock that its owner thread may take again, also from a signal
 * handler (hugetlb_map_lock.c).
 *
 * Invariants: one record per base, from hp_tlb_add until its owner
 * removes or forgets it at unmap; a record is only read or changed under
 * the lock (a lookup skips the lock only when no record can match: a
 * pointer not 2 MiB-aligned, or no record of that kind).
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <stdatomic.h>
#include <string.h>

#define SLOTS 8192u                     /* power of two; half may be live */
#define TOMBSTONE ((uintptr_t)1)
/* shift: log2 of the page size, 0 not recorded */
struct slot { uintptr_t base; size_t len; unsigned char owner, on_pool, shift; };

static struct slot table[SLOTS];
static atomic_size_t live, live_blocks;
static atomic_size_t pool_bytes[HP_TLB_OWNERS], pool_maps[HP_TLB_OWNERS];
static atomic_size_t fb_count[HP_TLB_OWNERS], fb_bytes[HP_TLB_OWNERS];
/* per page size (index: log2, 0 not recorded): on the pool now, and refused */
static atomic_size_t sz_maps[64], sz_bytes[64], sz_refused[64], sz_refused_bytes[64];
static uintptr_t lo_addr = UINTPTR_MAX, hi_addr;    /* bounds of non-block entries */

static unsigned hash(uintptr_t base)
{
	return (unsigned)((base >> 21) * 0x9E3779B1u) & (SLOTS - 1);
}

static struct slot *find(uintptr_t base)
{
	unsigned h = hash(base);
	for (unsigned i = 0; i < SLOTS; i++) {
		struct slot *s = &table[(h + i) & (SLOTS - 1)];
		if (s->base == base)
			return s;
		if (s->base == 0)
			return NULL;
	}
	return NULL;
}

struct piece { uintptr_t base; size_t len; int owner; unsigned char on_pool, shift; };

static void count(unsigned shift, size_t len, int sign)
{
	atomic_fetch_add(&sz_maps[shift], (size_t)sign);
	atomic_fetch_add(&sz_bytes[shift], sign > 0 ? len : -len);
	hp_live_changed();
}

static int add(uintptr_t base, size_t len, int owner, unsigned char on_pool, unsigned char shift)
{
	int rc = -1;
	hp_tlb_lock();
	unsigned h = hash(base);
	for (unsigned i = 0; atomic_load(&live) < SLOTS / 2 && i < SLOTS; i++) {
		struct slot *s = &table[(h + i) & (SLOTS - 1)];
		if (s->base == 0 || s->base == TOMBSTONE) {
			s->len = len;
			s->owner = (unsigned char)owner;
			s->on_pool = on_pool;
			s->shift = shift;
			s->base = base;
			rc = 0;
			break;
		}
	}
	if (rc == 0) {
		atomic_fetch_add(&live, 1);
		if (on_pool) {
			atomic_fetch_add(&pool_bytes[owner], len);
			atomic_fetch_add(&pool_maps[owner], 1);
			count(shift, len, 1);
		}
		if (owner == HP_TLB_BLOCK) {
			atomic_fetch_add(&live_blocks, 1);
		} else {
			if (base < lo_addr) lo_addr = base;
			if (base + len > hi_addr) hi_addr = base + len;
		}
	}
	hp_tlb_unlock();
	return rc;
}

int hp_tlb_add_page(void *base, size_t len, int owner, size_t page_size)
{
	unsigned shift = page_size && !(page_size & (page_size - 1)) ? (unsigned)__builtin_ctzll(page_size) : 0;
	return add((uintptr_t)base, len, owner, 1, (unsigned char)(shift < 64 ? shift : 0));
}

/* the page layer's own callers map 2 MiB pages (hp_pages_map_hugetlb);
 * regions map the size they chose, not said here */
int hp_tlb_add(void *base, size_t len, int owner)
{
	return hp_tlb_add_page(base, len, owner, owner == HP_TLB_REGION ? 0 : HP_HUGE_2M);
}

/* Caller holds the lock. */
static void drop(struct slot *s)
{
	if (s->on_pool) {
		atomic_fetch_sub(&pool_bytes[s->owner], s->len);
		atomic_fetch_sub(&pool_maps[s->owner], 1);
		count(s->shift, s->len, -1);
	}
	if (s->owner == HP_TLB_BLOCK)
		atomic_fetch_sub(&live_blocks, 1);
	unsigned next = ((unsigned)(s - table) + 1) & (SLOTS - 1);
	s->base = table[next].base == 0 ? 0 : TOMBSTONE;   /* end of a probe run: plain empty */
	s->len = 0;
	if (atomic_fetch_sub(&live, 1) == 1) {
		memset(table, 0, sizeof table);              /* drop all tombstones */
		lo_addr = UINTPTR_MAX;
		hi_addr = 0;
	}
}

/* length and page size of the mapping at p (0, 0: none; !any: blocks only) */
static size_t lookup(const void *p, size_t *page, int any)
{
	uintptr_t base = (uintptr_t)p;
	*page = 0;
	if ((base & (HP_HUGE_2M - 1)) != 0 || base == 0 ||
	    atomic_load_explicit(any ? &live : &live_blocks, memory_order_relaxed) == 0)
		return 0;
	hp_tlb_lock();
	struct slot *s = find(base);
	size_t len = s && (any || s->owner == HP_TLB_BLOCK) ? s->len : 0;
	if (len && s->shift)
		*page = (size_t)1 << s->shift;
	hp_tlb_unlock();
	return len;
}

size_t hp_tlb_block_size(const void *p)
{
	return lookup(p, &(size_t){ 0 }, 0);
}

size_t hp_tlb_page_of(const void *base)
{
	size_t page;
	return lookup(base, &page, 1) ? page : 0;
}

size_t hp_tlb_remove(void *base)
{
	hp_tlb_lock();
	struct slot *s = find((uintptr_t)base);
	size_t len = 0;
	if (s) {
		len = s->len;
		drop(s);
	}
	hp_tlb_unlock();
	return len;
}

/* [p, p+len) is being unmapped or mapped over by someone (mimalloc's own
 * munmap, an aligned mapping trimmed at both ends, or MAP_FIXED): forget
 * what lies inside it; the parts of a record outside it stay recorded. */
void hp_tlb_forget(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = a + len;
	struct piece keep[2];
	int nkeep = 0;
	if (atomic_load_explicit(&live, memory_order_relaxed) == 0)
		return;
	hp_tlb_lock();
	if (b > lo_addr && a < hi_addr) {
		struct slot *s = find(a);
		if (s && s->len <= len && s->owner != HP_TLB_BLOCK) {
			drop(s);        /* the usual case: one whole mapping */
		} else {
			for (unsigned i = 0; i < SLOTS && atomic_load(&live) > 0; i++) {
				s = &table[i];
				uintptr_t end = s->base + s->len;
				if (s->base <= TOMBSTONE || s->owner == HP_TLB_BLOCK || s->base >= b || end <= a)
					continue;
				/* only the first and the last record can stick out */
				if (s->base < a && nkeep < 2)
					keep[nkeep++] = (struct piece){ s->base, a - s->base, s->owner, s->on_pool, s->shift };
				if (end > b && nkeep < 2)
					keep[nkeep++] = (struct piece){ b, end - b, s->owner, s->on_pool, s->shift };
				drop(s);
			}
		}
	}
	for (int i = 0; i < nkeep; i++)
		add(keep[i].base, keep[i].len, keep[i].owner, keep[i].on_pool, keep[i].shift);
	hp_tlb_unlock();
}

int hp_tlb_overlaps(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = a + len;
	int hit = 0;
	if (atomic_load_explicit(&live, memory_order_relaxed) == 0)
		return 0;
	hp_tlb_lock();
	for (unsigned i = 0; i < SLOTS && !hit; i++)
		hit = table[i].base > TOMBSTONE && table[i].base < b && table[i].base + table[i].len > a;
	hp_tlb_unlock();
	return hit;
}

void hp_tlb_each(void (*fn)(void *base, size_t len, int owner, unsigned char *on_pool, void *arg), void *arg)
{
	hp_tlb_lock();
	for (unsigned i = 0; i < SLOTS; i++) {
		struct slot *s = &table[i];
		if (s->base <= TOMBSTONE || s->len == 0)
			continue;
		unsigned char was = s->on_pool;
		fn((void *)s->base, s->len, s->owner, &s->on_pool, arg);
		if (was && !s->on_pool) {
			atomic_fetch_sub(&pool_bytes[s->owner], s->len);
			atomic_fetch_sub(&pool_maps[s->owner], 1);
			count(s->shift, s->len, -1);
		}
	}
	hp_tlb_unlock();
}

void hp_tlb_fallback(int owner, size_t bytes)
{
	atomic_fetch_add(&fb_count[owner], 1);
	atomic_fetch_add(&fb_bytes[owner], bytes);
	hp_live_changed();
}

void hp_tlb_counts(int owner, struct hp_tlb_counts *c)
{
	c->pool_maps = atomic_load(&pool_maps[owner]);
	c->pool_bytes = atomic_load(&pool_bytes[owner]);
	c->fallbacks = atomic_load(&fb_count[owner]);
	c->fallback_bytes = atomic_load(&fb_bytes[owner]);
}

size_t hp_tlb_pool_maps(void)
{
	size_t n = 0;
	for (int i = 0; i < HP_TLB_OWNERS; i++)
		n += atomic_load(&pool_maps[i]);
	return n;
}

uint64_t hp_tlb_pool_bytes(void)
{
	uint64_t n = 0;
	for (int i = 0; i < HP_TLB_OWNERS; i++)
		n += atomic_load(&pool_bytes[i]);
	return n;
}

void hp_tlb_refused(size_t page_size, size_t bytes)
{
	atomic_fetch_add(&sz_refused[page_size ? __builtin_ctzll(page_size) & 63 : 0], 1);
	atomic_fetch_add(&sz_refused_bytes[page_size ? __builtin_ctzll(page_size) & 63 : 0], bytes);
	hp_live_changed();
}

int hp_tlb_sizes(struct hp_tlb_size *out, int max)
{
	int n = 0;
	for (unsigned i = 0; i < 64 && n < max; i++) {
		struct hp_tlb_size z = { i ? (uint64_t)1 << i : 0, atomic_load(&sz_maps[i]), atomic_load(&sz_bytes[i]),
					 atomic_load(&sz_refused[i]), atomic_load(&sz_refused_bytes[i]) };
		if (z.maps || z.refused)
			out[n++] = z;
	}
	return n;
}

