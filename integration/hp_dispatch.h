/*
 * hp_dispatch.h - internal interface between the malloc-family entry points,
 * the bootstrap arena and start-up.
 */
#ifndef HP_DISPATCH_H
#define HP_DISPATCH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../backends/hp_backend.h"

#define HP_EXPORT __attribute__((visibility("default")))

#pragma GCC visibility push(hidden)

/* The ops every entry point calls through: the bootstrap ops until start-up
 * is done, then the selected backend's (published with a release store). */
extern const struct hp_alloc_ops *_Atomic hp_current;

static inline const struct hp_alloc_ops *hp_ops(void)
{
	return atomic_load_explicit(&hp_current, memory_order_acquire);
}

/* The hot path (malloc.c): malloc is the PTRDIFF_MAX check and one jump
 * through hp_malloc_fn, free the bootstrap-block check and one jump through
 * hp_free_fn - the ops' own functions, no table load on the way.  Before
 * start-up: the bootstrap ops'.  Written by start-up (init.c publish:
 * these, then hp_current) and its swap (init.c dispatch_swap) only.  (Tried: a jump
 * straight to the backend for jemalloc, whose start-up hands out no
 * bootstrap block and whose malloc refuses sizes above PTRDIFF_MAX itself,
 * and to a checking wrapper for the others - 2 instructions per pair for
 * jemalloc, but no faster in time, and one more taken jump for mimalloc,
 * 4 % slower: the inline checks are branches never taken, free in time.) */
typedef void *(*hp_malloc_fn_t)(size_t size);
typedef void (*hp_free_fn_t)(void *p);
extern hp_malloc_fn_t _Atomic hp_malloc_fn;
extern hp_free_fn_t _Atomic hp_free_fn;
extern const unsigned char *hp_boot_base;       /* hp_boot_arena, read from memory */

/* x86 is TSO: every load is an acquire load, and a relaxed one lets gcc
 * fold it into the jump (`jmp *hp_free_fn(%rip)`); elsewhere acquire. */
#if defined(__x86_64__) || defined(__i386__)
#define HP_HOT_ORDER memory_order_relaxed
#else
#define HP_HOT_ORDER memory_order_acquire
#endif
#define hp_hot(fn) atomic_load_explicit(&(fn), HP_HOT_ORDER)

/* Start-up (init.c).  Returns the backend's ops once they are ready, or
 * NULL when called re-entrantly from inside start-up by the thread doing it
 * (that call is then served by the bootstrap arena).  Other threads wait. */
const struct hp_alloc_ops *hp_init(void);

/* Bootstrap arena (boot.c): a static bump arena for allocations made while
 * the backend is being chosen.  Its blocks stay valid for the life of the
 * process; free() of them is a no-op, realloc() copies out. */
#define HP_BOOT_ARENA_BYTES (1u << 20)
extern unsigned char hp_boot_arena[HP_BOOT_ARENA_BYTES];

static inline int hp_boot_owns(const void *p)
{
	return (uintptr_t)p - (uintptr_t)hp_boot_arena < HP_BOOT_ARENA_BYTES;
}


void *hp_boot_alloc(size_t size, size_t align);     /* NULL+ENOMEM when full */
size_t hp_boot_size(const void *p);
size_t hp_boot_used(void);                          /* bytes of the arena used */
extern const struct hp_alloc_ops hp_boot_ops;
void *hp_boot_malloc(size_t n);                     /* hp_boot_ops' malloc and free */
void hp_boot_free(void *p);

/* The C++ runtime behind a failed operator new (cxx_runtime.c), found from
 * the calling code's object, the global scope or any loaded libstdc++ /
 * libc++; every pointer from one scope.  bad_alloc is thrown by
 * std::__throw_bad_alloc, or where a runtime lacks it (libstdc++ linked in
 * statically) by the C++ ABI pieces.  With own_sym, `own` is the runtime's
 * own definition of that symbol (never libhugepolicy's), or NULL.
 * 0, or ENOENT: no C++ runtime. */
typedef void (*hp_new_handler)(void);
struct hp_cxx_runtime {
	hp_new_handler (*get_new_handler)(void);
	void (*throw_bad_alloc)(void);          /* or NULL, and then all of: */
	void *(*allocate_exception)(size_t size);
	void (*cxa_throw)(void *obj, void *type, void (*dtor)(void *));
	void *bad_alloc_type, *bad_alloc_vtable;
	void (*bad_alloc_dtor)(void *obj);
	void *own;
};
int hp_cxx_runtime_find(const void *caller, const char *own_sym, struct hp_cxx_runtime *rt);

#pragma GCC visibility pop
#endif
