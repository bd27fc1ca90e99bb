/*
 * region_table.c - the live regions, by base address, for free, resize and
 * info: records in chunks that the OS layer maps (mmap / VirtualAlloc; never
 * malloc), found through a fixed open-addressing index.  One spin lock
 * guards both, held only while a record is copied in or out.
 */
#include "hp_region.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#define CHUNK 64u                       /* records per mapped chunk */
#define MAX_CHUNKS 1024u
#define MAX_REGIONS (CHUNK * MAX_CHUNKS)        /* 65536 live regions */
#define INDEX (2u * MAX_REGIONS)                /* power of two, half full at most */
#define TOMB UINT32_MAX

static struct hp_region *chunks[MAX_CHUNKS];
static uint32_t index_of[INDEX];        /* slot + 1; 0 empty; TOMB deleted */
static uint32_t free_stack[MAX_REGIONS], free_top, slots_made, tombs;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void lock_table(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		hp_region_os_yield();
}

static void unlock_table(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

static struct hp_region *slot_rec(uint32_t s)
{
	return &chunks[s / CHUNK][s % CHUNK];
}

static uint32_t hash(uintptr_t base)
{
	uint64_t h = (uint64_t)(base >> 12) * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 40) & (INDEX - 1);
}

/* Caller holds the lock.  The index position of base, or UINT32_MAX. */
static uint32_t find(uintptr_t base)
{
	if (base == 0)
		return UINT32_MAX;
	for (uint32_t i = 0, h = hash(base); i < INDEX; i++) {
		uint32_t pos = (h + i) & (INDEX - 1), v = index_of[pos];
		if (v == 0)
			return UINT32_MAX;
		if (v != TOMB && slot_rec(v - 1)->base == base)
			return pos;
	}
	return UINT32_MAX;
}

static void index_add(uintptr_t base, uint32_t s);

/* Caller holds the lock: a copy of r in the table.  0 or ENOMEM. */
static int insert(const struct hp_region *r)
{
	uint32_t s;
	if (free_top > 0) {
		s = free_stack[--free_top];
	} else if (slots_made < MAX_REGIONS) {
		if (!chunks[slots_made / CHUNK] &&
		    !(chunks[slots_made / CHUNK] = hp_region_os_pages(CHUNK * sizeof(struct hp_region))))
			return ENOMEM;
		s = slots_made++;
	} else {
		return ENOMEM;
	}
	*slot_rec(s) = *r;
	index_add(r->base, s);
	return 0;
}

static void index_add(uintptr_t base, uint32_t s)
{
	for (uint32_t h = hash(base);; h = (h + 1) & (INDEX - 1))
		if (index_of[h] == 0 || index_of[h] == TOMB) {
			tombs -= index_of[h] == TOMB;
			index_of[h] = s + 1;
			return;
		}
}

/* Caller holds the lock.  When deleted entries pile up (a host that makes
 * and frees regions all day), the index is rebuilt from the live records,
 * so that lookups stay short. */
static void erase(uint32_t pos)
{
	uint32_t s = index_of[pos] - 1;
	slot_rec(s)->base = 0;
	free_stack[free_top++] = s;
	if (index_of[(pos + 1) & (INDEX - 1)] == 0) {
		index_of[pos] = 0;
	} else {
		index_of[pos] = TOMB;
		tombs++;
	}
	if (tombs > INDEX / 4) {
		memset(index_of, 0, sizeof index_of);
		tombs = 0;
		for (uint32_t i = 0; i < slots_made; i++)
			if (slot_rec(i)->base)
				index_add(slot_rec(i)->base, i);
	}
}

int hp_region_table_put(const struct hp_region *r)
{
	lock_table();
	int err = insert(r);
	unlock_table();
	return err;
}

int hp_region_table_get(uintptr_t base, struct hp_region *out)
{
	lock_table();
	uint32_t pos = find(base);
	if (pos != UINT32_MAX)
		*out = *slot_rec(index_of[pos] - 1);
	unlock_table();
	return pos == UINT32_MAX ? EINVAL : 0;
}

int hp_region_table_take(uintptr_t base, struct hp_region *out)
{
	lock_table();
	uint32_t pos = find(base);
	if (pos != UINT32_MAX) {
		*out = *slot_rec(index_of[pos] - 1);
		erase(pos);
	}
	unlock_table();
	return pos == UINT32_MAX ? EINVAL : 0;
}

void hp_region_table_replace(uintptr_t old, const struct hp_region *r)
{
	lock_table();
	uint32_t pos = find(old);
	if (pos != UINT32_MAX) {
		if (old == r->base) {
			*slot_rec(index_of[pos] - 1) = *r;
		} else {
			erase(pos);
			insert(r);      /* a slot was just freed: cannot fail */
		}
	}
	unlock_table();
}
