/*
 * boot.c - the bootstrap arena and the bootstrap ops.
 *
 * The first allocation of the process starts hugepolicy; while start-up runs
 * (dlopen of mimalloc, jemalloc's malloc_init, the loader's own bookkeeping)
 * the same thread allocates again.  Those re-entrant calls are served from a
 * 1 MiB static arena (.bss: costs nothing until touched).  Its blocks carry a
 * 16-byte size header, are never reused, and stay valid forever, so memory
 * handed out before the backend was chosen can be used, realloc'ed and freed
 * at any later time.
 */
#include "hp_dispatch.h"

#include <errno.h>
#include <string.h>

#define ARENA_BYTES HP_BOOT_ARENA_BYTES

_Alignas(4096) unsigned char hp_boot_arena[ARENA_BYTES];
static atomic_size_t used;

void *hp_boot_alloc(size_t size, size_t align)
{
	if (align < 16)
		align = 16;
	size_t off = atomic_load(&used), start, end;
	do {
		start = (off + 16 + align - 1) & ~(align - 1);
		if (start > ARENA_BYTES || size > ARENA_BYTES - start) {
			errno = ENOMEM;
			return NULL;
		}
		end = start + size;
	} while (!atomic_compare_exchange_weak(&used, &off, end));
	memcpy(hp_boot_arena + start - 16, &size, sizeof size);
	return hp_boot_arena + start;
}

size_t hp_boot_size(const void *p)
{
	size_t n;
	memcpy(&n, (const unsigned char *)p - 16, sizeof n);
	return n;
}

size_t hp_boot_used(void)
{
	return atomic_load(&used);
}

/* free()'s bootstrap check: the arena's address from a variable, not a
 * constant, so that `p - base` is one subtraction from memory (with the
 * constant: lea and sub). */
const unsigned char *hp_boot_base = hp_boot_arena;

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
	return hp_boot_alloc(total ? total : 1, 16);   /* .bss, never reused: zero */
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
	.free = hp_boot_free,
	.calloc = boot_calloc,
	.realloc = boot_realloc,
	.memalign = boot_memalign,
	.usable_size = boot_usable_size,
};
