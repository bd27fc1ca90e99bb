/*
 * hugetlb_blocks.c - large blocks that the system backend serves straight
 * from the 2 MiB hugetlb pool, and the table that lets free() recognise them.
 *
 * Each block is its own mapping; its base is 2 MiB-aligned (so it satisfies
 * any alignment up to 2 MiB) and carries no in-band header.  The table is an
 * open-addressing hash of base -> length under a mutex; free() consults it
 * only for 2 MiB-aligned pointers while blocks exist, so glibc's own frees
 * (never 2 MiB-aligned unless memalign asked for it) stay on the fast path.
 */
#define _GNU_SOURCE
#include "hp_backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define TABLE_SLOTS 4096u               /* power of two; >= 16 GiB of 4 MiB blocks */
#define TOMBSTONE ((uintptr_t)1)

struct slot { uintptr_t base; size_t len; };

static struct slot table[TABLE_SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_size_t live_blocks;
static atomic_size_t live_bytes;
static atomic_size_t fallbacks;

/* fork() while another thread holds the table would leave the child's copy
 * locked forever: hold it across fork, as glibc does with its arenas. */
static void fork_prepare(void) { pthread_mutex_lock(&table_lock); }
static void fork_release(void) { pthread_mutex_unlock(&table_lock); }

void hp_blocks_init(void)
{
	pthread_atfork(fork_prepare, fork_release, fork_release);
}

static unsigned hash(uintptr_t base)
{
	return (unsigned)((base >> 21) * 0x9E3779B1u) & (TABLE_SLOTS - 1);
}

/* Caller holds table_lock. */
static struct slot *find(uintptr_t base)
{
	unsigned h = hash(base);
	for (unsigned i = 0; i < TABLE_SLOTS; i++) {
		struct slot *s = &table[(h + i) & (TABLE_SLOTS - 1)];
		if (s->base == base)
			return s;
		if (s->base == 0)
			return NULL;
	}
	return NULL;
}

static int insert(uintptr_t base, size_t len)
{
	unsigned h = hash(base);
	for (unsigned i = 0; i < TABLE_SLOTS; i++) {
		struct slot *s = &table[(h + i) & (TABLE_SLOTS - 1)];
		if (s->base == 0 || s->base == TOMBSTONE) {
			s->base = base;
			s->len = len;
			return 0;
		}
	}
	return -1;
}

void *hp_blocks_alloc(size_t size, size_t align)
{
	size_t len;
	if (align > HP_HUGE_2M || atomic_load(&live_blocks) >= TABLE_SLOTS / 2) {
		errno = ENOSPC;
		atomic_fetch_add(&fallbacks, 1);
		return NULL;
	}
	void *p = hp_pages_map_hugetlb(size, &len);
	if (!p) {
		atomic_fetch_add(&fallbacks, 1);
		return NULL;
	}
	pthread_mutex_lock(&table_lock);
	int rc = insert((uintptr_t)p, len);
	pthread_mutex_unlock(&table_lock);
	if (rc != 0) {
		hp_pages_unmap(p, len);
		atomic_fetch_add(&fallbacks, 1);
		errno = ENOSPC;
		return NULL;
	}
	atomic_fetch_add(&live_blocks, 1);
	atomic_fetch_add(&live_bytes, len);
	return p;
}

int hp_blocks_owns(const void *p)
{
	return hp_blocks_size(p) != 0;
}

size_t hp_blocks_size(const void *p)
{
	uintptr_t base = (uintptr_t)p;
	if ((base & (HP_HUGE_2M - 1)) != 0 || base == 0 || atomic_load_explicit(&live_blocks, memory_order_relaxed) == 0)
		return 0;
	pthread_mutex_lock(&table_lock);
	struct slot *s = find(base);
	size_t len = s ? s->len : 0;
	pthread_mutex_unlock(&table_lock);
	return len;
}

void hp_blocks_free(void *p)
{
	pthread_mutex_lock(&table_lock);
	struct slot *s = find((uintptr_t)p);
	size_t len = 0;
	if (s) {
		len = s->len;
		unsigned next = ((unsigned)(s - table) + 1) & (TABLE_SLOTS - 1);
		s->base = table[next].base == 0 ? 0 : TOMBSTONE;   /* end of a probe run: plain empty */
		s->len = 0;
		atomic_fetch_sub(&live_blocks, 1);
		atomic_fetch_sub(&live_bytes, len);
		if (atomic_load(&live_blocks) == 0)
			memset(table, 0, sizeof table);            /* drop all tombstones */
	}
	pthread_mutex_unlock(&table_lock);
	if (len)
		hp_pages_unmap(p, len);
}

void hp_blocks_counts(uint64_t *blocks, uint64_t *bytes, uint64_t *fb)
{
	*blocks = atomic_load(&live_blocks);
	*bytes = atomic_load(&live_bytes);
	*fb = atomic_load(&fallbacks);
}
