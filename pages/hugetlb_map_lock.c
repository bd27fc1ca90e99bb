/*
 * hugetlb_map_lock.c - the lock of the hugetlb mapping table (hugetlb_map.c):
 * a lock its owner thread may take again, also from a signal handler that
 * interrupts it at any instruction.
 *
 * fork() takes it in its prepare handler (hugetlb_fork.c), and POSIX lets a
 * signal handler call fork() or free() while the same thread is inside
 * fork() or inside the table (glibc's tst-mallocfork); a plain mutex would
 * deadlock there.
 *
 * owner holds the owning thread's pthread_self() (the same value in a
 * forked child), 0 when the lock is free.  depth counts the holds beyond the
 * first: it is 0 whenever the lock is free or held once, and only the owner
 * thread - or a handler running on it - changes it.  So the first hold
 * writes nothing but owner (one compare-and-swap), the last release nothing
 * but owner (one store), and a handler that interrupts its thread anywhere
 * in lock or unlock sees either a lock it does not hold or a lock it holds
 * at a depth its thread's code does not rely on: whatever the handler takes
 * it gives back before it returns (a handler that never returns - longjmp
 * out of a held lock - leaves it held, as with any lock).
 *
 * A waiter spins a little, then sleeps on a futex (seq): waiting counts the
 * sleepers, and a release that sees one bumps seq and wakes one.  A waiter
 * counts itself before it tries the lock, and the release clears owner
 * before it reads waiting (both sequentially consistent), so either the
 * waiter's try sees the lock free or the release sees the waiter.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SPINS 200

static atomic_uintptr_t owner;
static atomic_uint depth;       /* holds beyond the first; relaxed: one thread */
static atomic_uint waiting, seq;

static int try_take(uintptr_t self)
{
	uintptr_t none = 0;
	return atomic_compare_exchange_strong(&owner, &none, self);
}

void hp_tlb_lock(void)
{
	uintptr_t self = (uintptr_t)pthread_self();
	if (atomic_load_explicit(&owner, memory_order_relaxed) == self) {
		atomic_fetch_add_explicit(&depth, 1, memory_order_relaxed);
		return;
	}
	for (int i = 0; i < SPINS; i++) {
		if (atomic_load_explicit(&owner, memory_order_relaxed) == 0 && try_take(self))
			return;
		hp_cpu_relax();
	}
	atomic_fetch_add(&waiting, 1);
	for (;;) {
		unsigned s = atomic_load(&seq);
		if (try_take(self))
			break;
		syscall(SYS_futex, &seq, FUTEX_WAIT_PRIVATE, s, NULL, NULL, 0);
	}
	atomic_fetch_sub(&waiting, 1);
}

void hp_tlb_unlock(void)
{
	if (atomic_load_explicit(&depth, memory_order_relaxed) > 0) {
		atomic_fetch_sub_explicit(&depth, 1, memory_order_relaxed);
		return;
	}
	atomic_store(&owner, 0);
	if (atomic_load(&waiting) > 0) {
		atomic_fetch_add(&seq, 1);
		syscall(SYS_futex, &seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

/* a forked child has one thread: the parent's sleepers are not its own */
void hp_tlb_lock_child(void)
{
	atomic_store(&waiting, 0);
}
