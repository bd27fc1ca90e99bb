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

#pragma GCC visibility pop
#endif
