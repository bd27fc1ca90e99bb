/*
 * thp_switch.c - the per-process THP switch the plan chose (plan_thp.c),
 * applied with prctl(2) before the backend starts.
 *
 * PR_SET_THP_DISABLE (Linux 3.15) turns THP off for the whole process;
 * with PR_THP_DISABLE_EXCEPT_ADVISED (Linux 6.18) the process behaves as
 * THP `madvise` on an `always` host: hugepolicy's MADV_HUGEPAGE on big
 * blocks still works, the backends' small blocks stay on base pages.  Both
 * are inherited across fork and execve (prctl(2)): a child that loads
 * hugepolicy decides again from its own environment (an explicit `thp`
 * clears the switch); a child that does not keeps it.
 * hugepolicy's own .bss is advised MADV_NOHUGEPAGE before start-up writes to
 * it, in every mode (hp_thp_own_memory_nohuge).
 * Where the kernel refuses EXCEPT_ADVISED (EINVAL: older than 6.18), the
 * plan is downgraded here: no switch, and the backend advises its own
 * small-block memory MADV_NOHUGEPAGE where hugepolicy reaches it.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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
	const char *call;
} calls[] = {
	[HP_THP_PROC_DISABLE] = { 1, 0, "prctl(PR_SET_THP_DISABLE, 1)" },
	[HP_THP_PROC_EXCEPT_ADVISED] = { 1, PR_THP_DISABLE_EXCEPT_ADVISED,
					 "prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED)" },
	[HP_THP_PROC_CLEAR] = { 0, 0, "prctl(PR_SET_THP_DISABLE, 0)" },
};

int hp_thp_switch_apply(struct hp_plan *pl)
{
	int how = pl->thp_process;
	if (how <= HP_THP_PROC_KEEP || how >= (int)(sizeof calls / sizeof calls[0]))
		return 0;
	if (prctl(PR_SET_THP_DISABLE, calls[how].arg2, calls[how].arg3, 0, 0) == 0) {
		size_t n = strlen(pl->thp_process_reason);
		snprintf(pl->thp_process_reason + n, sizeof pl->thp_process_reason - n, " [%s done]",
			 calls[how].call);
		return 0;
	}
	int err = errno;
	pl->thp_process = HP_THP_PROC_KEEP;
	if (how == HP_THP_PROC_EXCEPT_ADVISED) {
		/* an older kernel: the backends keep their small blocks off THP */
		pl->thp_small_nohuge = pl->backend != HP_BACKEND_SYSTEM;
		snprintf(pl->thp_small_reason, sizeof pl->thp_small_reason, "%s",
			 pl->backend == HP_BACKEND_SYSTEM
				 ? "the kernel still backs glibc's heap with THP (`always`): hugepolicy "
				   "cannot advise memory glibc maps itself"
				 : "MADV_NOHUGEPAGE on the backend's own memory instead");
	}
	snprintf(pl->thp_process_reason, sizeof pl->thp_process_reason, "%s refused (%s): %s", calls[how].call,
		 strerror(err), how == HP_THP_PROC_EXCEPT_ADVISED ? "kernel older than 6.18" : "switch left as it was");
	return err;
}

/* The linker's bounds of this object's zero-initialised data (GNU ld and
 * lld define them in every output; hidden: ours, not the executable's). */
extern char __bss_start[] __attribute__((visibility("hidden")));
extern char _end[] __attribute__((visibility("hidden")));

void hp_thp_own_memory_nohuge(void)
{
	/* hugepolicy's static memory (the bootstrap arena, its tables, the
	 * embedded jemalloc's radix root: about 4 MiB of .bss) is written
	 * sparsely, and on a THP `always` host its first write, before any
	 * plan exists, would fault a whole 2 MiB page */
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)__bss_start + pg - 1) & ~(pg - 1), hi = (uintptr_t)_end & ~(pg - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
}

/* After the backend started: a user's whole-heap setting that won over the
 * plan (MALLOC_CONF opt.thp=always, MIMALLOC_LARGE_OS_PAGES=1: the backend
 * set thp_scope ALL) must not be starved by hugepolicy's own switch - under
 * PR_THP_DISABLE_EXCEPT_ADVISED jemalloc's thp:always on an `always` host
 * advises nothing and got no THP at all, while the report said thp. */
void hp_thp_switch_after_backend(struct hp_plan *pl)
{
	int how = pl->thp_process;
	if ((how != HP_THP_PROC_DISABLE && how != HP_THP_PROC_EXCEPT_ADVISED) || pl->thp_scope != HP_THP_ALL ||
	    (pl->pages != HP_PAGES_THP && pl->pages != HP_PAGES_HUGETLB))
		return;
	if (prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0) != 0)
		return;
	pl->thp_process = HP_THP_PROC_CLEAR;
	pl->thp_small_nohuge = 0;
	snprintf(pl->thp_small_reason, sizeof pl->thp_small_reason, "whole-heap THP, the backend's own setting");
	snprintf(pl->thp_process_reason, sizeof pl->thp_process_reason,
		 "the backend's own whole-heap setting wins (%.60s): %s undone [prctl(PR_SET_THP_DISABLE, 0) done]",
		 pl->pages_reason, how == HP_THP_PROC_DISABLE ? "PR_SET_THP_DISABLE" : "PR_THP_DISABLE_EXCEPT_ADVISED");
}
