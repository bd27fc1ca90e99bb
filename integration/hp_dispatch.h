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

/* The hot path (malloc.c), no table of ops loaded on the way:
 * - malloc of a size up to HP_SMALL_MAX is one jump through
 *   hp_malloc_by_size[size]: sizes 0..8 to hp_malloc_tiny (which asks 16,
 *   glibc's alignment: a second jump), the others to the ops' malloc_small
 *   (mimalloc's mi_malloc_small, which skips mi_malloc's own size test); a
 *   larger size one jump through hp_malloc_fn (the ops' malloc_large).
 *   (The size test guards an indexed load and an indirect jump to what it
 *   loads: a mispredicted test may load past the table and jump to that
 *   value speculatively (Spectre v1).  glibc's tcache and jemalloc's
 *   size-class lookup guard indexed loads the same way, not jumps.  Not
 *   clamped: an AND or CMOV on the index is one more instruction per
 *   malloc.)
 * - free is a test never taken for a heap pointer (below HP_LOW_END: NULL
 *   and the bootstrap arena, when start-up could map it there: a cold
 *   call) and one jump through hp_free_fn: the ops' free, or, where the
 *   arena stayed in .bss, hp_boot_free_entry's test in front of it (a
 *   second jump).
 * Before start-up: the bootstrap ops'.  Written by start-up (init.c
 * publish: these, then hp_current) and its swap (init.c dispatch_swap)
 * only.  Instructions per pair against the native allocators:
 * perf/callgrind_pairs.sh. */
typedef void *(*hp_malloc_fn_t)(size_t size);
typedef void (*hp_free_fn_t)(void *p);
#define HP_BOOT_ARENA_BYTES (512u << 10)        /* start-up takes 4 KiB at most */
extern hp_malloc_fn_t _Atomic hp_malloc_fn;
extern hp_malloc_fn_t _Atomic hp_malloc_by_size[HP_SMALL_MAX + 1];
extern hp_free_fn_t _Atomic hp_free_fn;
void *hp_malloc_tiny(size_t size);              /* init.c: sizes 0..8 */

/* Below this address a 64-bit process has nothing mapped by default on
 * x86-64 and aarch64: the kernel maps top-down from far above, a non-PIE
 * program starts at 4 MiB, valgrind loads one at 1 MiB + 32 KiB and maps
 * from 64 MiB.  The bootstrap arena goes there when the range is free
 * (512 KiB up, above the usual vm.mmap_min_addr of 64 KiB), so that free's
 * test of it is one compare.  A block some backend has there after all (a
 * riscv64 non-PIE program's brk heap) takes the cold test and still
 * reaches the backend. */
#if UINTPTR_MAX > 0xffffffffu
#define HP_LOW_END ((uintptr_t)1 << 20)
#define HP_BOOT_LOW_HINT (HP_LOW_END - HP_BOOT_ARENA_BYTES)
#else
#define HP_LOW_END ((uintptr_t)4096)    /* NULL's page only: the arena stays in .bss */
#define HP_BOOT_LOW_HINT ((uintptr_t)0)
#endif

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

/* Bootstrap arena (boot.c): a bump arena for allocations made while
 * the backend is being chosen: the static one in .bss, or, moved there by
 * hp_boot_place (start-up's first step) where the range is free, a
 * mapping below HP_LOW_END.  Its blocks stay valid for the life of the
 * process; free() of them is a no-op, realloc() copies out. */
#define HP_BOOT_LOW ((size_t)1 << (sizeof(size_t) * 8 - 1))
extern unsigned char hp_boot_arena[HP_BOOT_ARENA_BYTES];
extern atomic_size_t hp_boot_state;             /* bytes handed out | HP_BOOT_LOW */
extern unsigned char *_Atomic hp_boot_low;      /* the mapping, in use with HP_BOOT_LOW */

/* the arena a value of hp_boot_state names (read with acquire, or by the
 * CAS that wrote it) */
static inline unsigned char *hp_boot_arena_of(size_t state)
{
	return state & HP_BOOT_LOW ? atomic_load_explicit(&hp_boot_low, memory_order_relaxed) : hp_boot_arena;
}

/* p is a block the arena handed out (its bytes, not the unused rest) */
static inline int hp_boot_owns(const void *p)
{
	size_t s = atomic_load_explicit(&hp_boot_state, memory_order_acquire);
	return (uintptr_t)p - (uintptr_t)hp_boot_arena_of(s) < (s & ~HP_BOOT_LOW);
}

void hp_boot_place(void);
const unsigned char *hp_boot_arena_now(void);   /* the arena in use */
/* What hp_free_fn is for a backend whose free is `free`: itself where the
 * arena is below HP_LOW_END (free()'s own test covers it), else a test of
 * the arena in front of it. */
hp_free_fn_t hp_boot_free_entry(hp_free_fn_t free);
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
