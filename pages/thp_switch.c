/*
 * thp_switch.c - the per-process THP switch the plan chose (plan_thp.c),
 * applied with prctl(2) before the backend starts, and hugepolicy's own
 * static memory kept off THP.
 *
 * PR_SET_THP_DISABLE (Linux 3.15) turns THP off for the whole process;
 * with PR_THP_DISABLE_EXCEPT_ADVISED (Linux 6.18) the process behaves as
 * THP `madvise` on an `always` host: hugepolicy's MADV_HUGEPAGE on big
 * blocks still works, the backends' small blocks stay on base pages.  Both
 * are inherited across fork and execve (prctl(2)): a child that loads
 * hugepolicy decides again from its own environment (an explicit `thp`
 * clears the switch); a child that does not keeps it.
 *
 * Invariants: the switch is what the plan says, or - where the kernel
 * refuses it - what it was; this file only applies it and returns the
 * errno, which start-up gives to the next plan call (plan_facts.c decides
 * what a refusal means).  hugepolicy's own .bss is advised
 * MADV_NOHUGEPAGE, in every mode, before the library first reads or writes
 * it (hp_thp_own_memory_nohuge, called once from init.c).
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#endif
#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

static const struct {
	unsigned long arg2, arg3;
} calls[] = {
	[HP_THP_PROC_DISABLE] = { 1, 0 },
	[HP_THP_PROC_EXCEPT_ADVISED] = { 1, PR_THP_DISABLE_EXCEPT_ADVISED },
	[HP_THP_PROC_CLEAR] = { 0, 0 },
};

int hp_thp_switch_apply(const struct hp_plan *pl)
{
	int how = pl->thp_process;
	if (how <= HP_THP_PROC_KEEP || how >= (int)(sizeof calls / sizeof calls[0]))
		return 0;
	return prctl(PR_SET_THP_DISABLE, calls[how].arg2, calls[how].arg3, 0, 0) == 0 ? 0 : errno;
}

/* The linker's bounds of this object's zero-initialised data (GNU ld and
 * lld define them in every output; hidden: ours, not the executable's). */
extern char __bss_start[] __attribute__((visibility("hidden")));
extern char _end[] __attribute__((visibility("hidden")));

void hp_thp_own_memory_nohuge(void)
{
	/* hugepolicy's static memory (the bootstrap arena, its tables, the
	 * embedded jemalloc's radix root: about 4 MiB of .bss) is written
	 * sparsely, and on a THP `always` host its first touch, before any
	 * plan exists, would fault a whole 2 MiB page (a read: the huge zero
	 * page, which the first write replaces with a 2 MiB page even after
	 * this advice) */
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)__bss_start + pg - 1) & ~(pg - 1), hi = (uintptr_t)_end & ~(pg - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
}
