/*
 * boot.c - the bootstrap arena and the bootstrap ops.
 *
 * The first allocation of the process starts hugepolicy; while start-up runs
 * (dlopen of mimalloc, jemalloc's malloc_init, the loader's own bookkeeping)
 * the same thread allocates again.  Those re-entrant calls are served from a
 * 512 KiB bump arena.  Its blocks carry a 16-byte size header, are never
 * reused, and stay valid forever, so memory handed out before the backend
 * was chosen can be used, realloc'ed and freed at any later time.
 *
 * Invariants: the arena is the static array in .bss (costs nothing
 * untouched) until start-up moves it, once and only while no block is out,
 * to a mapping of its own below HP_LOW_END (at a hint, never over another
 * mapping), where free()'s one compare sends its blocks to the cold path.
 * Which arena is in use and how much of it is out are one atomic word, so
 * an allocation nested anywhere in the move (a signal handler's, an
 * interposed mmap's) lands in the arena that word names, and
 * hp_boot_owns, which reads the same word, claims exactly the bytes handed
 * out.
 */
#include "hp_dispatch.h"

#include <errno.h>
#include <string.h>

#define ARENA_BYTES HP_BOOT_ARENA_BYTES
_Static_assert(ARENA_BYTES < HP_BOOT_LOW, "the byte count never reaches the flag");
_Static_assert(HP_BOOT_LOW_HINT == 0 || HP_BOOT_LOW_HINT >= (64u << 10),
	       "the low arena starts above the usual vm.mmap_min_addr");

_Alignas(4096) unsigned char hp_boot_arena[ARENA_BYTES];
atomic_size_t hp_boot_state;            /* bytes handed out | HP_BOOT_LOW */
unsigned char *_Atomic hp_boot_low;     /* the mapping, once placed */

void hp_boot_place(void)
{
	if (HP_BOOT_LOW_HINT == 0 || atomic_load(&hp_boot_state) != 0)
		return;                 /* blocks are out already: they stay where they are */
	unsigned char *low = hp_pages_map_anon_below(HP_BOOT_LOW_HINT, ARENA_BYTES, HP_LOW_END);
	if (!low)
		return;
	atomic_store_explicit(&hp_boot_low, low, memory_order_relaxed);
	size_t none = 0;
	if (!atomic_compare_exchange_strong(&hp_boot_state, &none, HP_BOOT_LOW))
		hp_pages_unmap(low, ARENA_BYTES);       /* a nested allocation came first */
}

const unsigned char *hp_boot_arena_now(void)
{
	return hp_boot_arena_of(atomic_load(&hp_boot_state));
}

static hp_free_fn_t _Atomic free_after_test;

/* hp_free_fn where the arena is in .bss: its blocks, then the backend */
static void free_tested(void *p)
{
	if (hp_boot_owns(p))
		return;
	hp_hot(free_after_test)(p);
}

hp_free_fn_t hp_boot_free_entry(hp_free_fn_t free)
{
	if (atomic_load(&hp_boot_state) & HP_BOOT_LOW)
		return free;
	atomic_store_explicit(&free_after_test, free, memory_order_release);
	return free_tested;
}

void *hp_boot_alloc(size_t size, size_t align)
{
	if (align < 16)
		align = 16;
	size_t state = atomic_load(&hp_boot_state), start, end;
	do {
		size_t off = state & ~HP_BOOT_LOW;
		start = (off + 16 + align - 1) & ~(align - 1);
		if (start > ARENA_BYTES || size > ARENA_BYTES - start) {
			errno = ENOMEM;
			return NULL;
		}
		end = start + size;
	} while (!atomic_compare_exchange_weak(&hp_boot_state, &state, end | (state & HP_BOOT_LOW)));
	unsigned char *arena = hp_boot_arena_of(state);
	memcpy(arena + start - 16, &size, sizeof size);
	return arena + start;
}

size_t hp_boot_size(const void *p)
{
	size_t n;
	memcpy(&n, (const unsigned char *)p - 16, sizeof n);
	return n;
}

size_t hp_boot_used(void)
{
	return atomic_load(&hp_boot_state) & ~HP_BOOT_LOW;
}

/* ---- bootstrap ops: start up, then forward (or serve from the arena) ---- */

void *hp_boot_malloc(size_t n)
{
	const struct hp_alloc_ops *o = hp_init();
	return o ? o->malloc(n) : hp_boot_alloc(n ? n : 1, 16);
}

static void *boot_calloc(size_t c, size_t n)
{
	const struct hp_alloc_ops *o = hp_init();
	if (o)
		return o->calloc(c, n);
	if (n && c > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	size_t total = c * n;
	return hp_boot_alloc(total ? total : 1, 16);   /* fresh, never reused: zero */
}

static void *boot_memalign(size_t a, size_t n)
{
	const struct hp_alloc_ops *o = hp_init();
	return o ? o->memalign(a, n) : hp_boot_alloc(n ? n : 1, a);
}

static void *boot_realloc(void *p, size_t n)
{
	const struct hp_alloc_ops *o = hp_init();
	if (o)
		return o->realloc(p, n);
	void *q = hp_boot_alloc(n ? n : 1, 16);
	(void)p;                /* p is NULL here: arena blocks are handled by realloc() */
	return q;
}

void hp_boot_free(void *p)
{
	if (hp_boot_owns(p))
		return;                 /* bootstrap blocks live forever */
	const struct hp_alloc_ops *o = hp_init();
	if (o && p)
		o->free(p);
}

static size_t boot_usable_size(void *p)
{
	const struct hp_alloc_ops *o = hp_init();
	return o && p ? o->usable_size(p) : 0;
}

const struct hp_alloc_ops hp_boot_ops = {
	.malloc = hp_boot_malloc,
	.malloc_small = hp_boot_malloc,
	.malloc_large = hp_boot_malloc,
	.free = hp_boot_free,
	.calloc = boot_calloc,
	.realloc = boot_realloc,
	.memalign = boot_memalign,
	.usable_size = boot_usable_size,
};
