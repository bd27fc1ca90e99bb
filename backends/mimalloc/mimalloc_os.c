/*
 * mimalloc_os.c - hugepolicy's page layer as mimalloc's OS layer: hugetlb,
 * heap promotion, mTHP.
 *
 * mimalloc 2.0's large_os_pages maps MAP_HUGETLB itself (mmap, then
 * MADV_HUGEPAGE on an ordinary mapping when that fails) and touches the
 * pages later: under a cgroup hugetlb limit or a pool another process
 * drained, that first touch is a SIGBUS.  Here, the dlopen'ed mimalloc's
 * mmap, munmap and madvise are hugepolicy's (got_hook.c), so:
 * - a MAP_HUGETLB mmap is mapped and populated by hugetlb_pages.c and
 *   recorded in hugetlb_map.c, or refused with ENOMEM (mimalloc then maps
 *   ordinary memory and advises it MADV_HUGEPAGE: THP) - in `thp` mode it
 *   is refused at once, so `thp` means THP and never takes the pool;
 * - MADV_DONTNEED/MADV_FREE/MADV_REMOVE on populated hugetlb memory are
 *   not passed on: they would give the pages back to the pool, and the next
 *   touch would need the pool again;
 * - munmap and MAP_FIXED over a recorded range update the record;
 * - every mapping it holds is recorded in mimalloc_maps.c (its resident
 *   bytes for stats);
 * - an ordinary mapping gets auto's mTHP advice where the plan gives it
 *   (thp_mid.c: once per mapping, so blocks mimalloc reuses cost no
 *   syscall), unless its small blocks are kept off huge pages (nohuge).
 * What mimalloc got is then read back from the record, never guessed.
 */
#define _GNU_SOURCE
#include "hp_mimalloc.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_FREE
#define MADV_FREE 8
#endif

static atomic_int allow_pool;          /* 1: hugetlb mmaps go to the pool; 0: refused */
static atomic_int nohuge;              /* 1: ordinary mmaps advised MADV_NOHUGEPAGE */
static atomic_int said;
static int verbose;

static void *os_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!(flags & MAP_HUGETLB)) {
		void *p = mmap(addr, len, prot, flags, fd, off);
		if (p != MAP_FAILED && (flags & MAP_FIXED))
			hp_tlb_forget(p, len);
		else if (p != MAP_FAILED && (flags & MAP_ANONYMOUS))
			hp_mimalloc_maps_add(p, len);
		/* auto's heap promotion counts and, once promoted, advises
		 * MADV_HUGEPAGE itself (heap_promote.c) */
		int promoted = p != MAP_FAILED && (flags & MAP_ANONYMOUS) &&
			       hp_promote_mapped(p, len, (flags & MAP_FIXED) != 0);
		if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && !promoted &&
		    atomic_load_explicit(&nohuge, memory_order_relaxed)) {
			int saved = errno;
			madvise(p, len, MADV_NOHUGEPAGE);       /* advice only: a refusal changes nothing */
			errno = saved;
		} else if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && !promoted) {
			hp_thp_mid_advise(p, len);      /* auto's mTHP: once per mapping */
		}
		return p;
	}
	/* a refused hugetlb mmap leaves errno as it was: mimalloc only tests
	 * for MAP_FAILED and then maps ordinary memory, and a malloc that
	 * succeeds must not show our refusal in errno */
	int saved = errno;
	if (!atomic_load_explicit(&allow_pool, memory_order_relaxed))
		return MAP_FAILED;      /* thp: not a fallback, the mode's rule */
	struct hp_tlb_fail why = { 0, 0 };
	size_t mapped = 0;
	int shift = (flags >> MAP_HUGE_SHIFT) & 0x3f;      /* mimalloc asks 1 GiB for whole GiB */
	size_t ps = shift ? (size_t)1 << shift : HP_HUGE_2M;
	/* no hint: a huge segment (a block > 16 MiB), which mimalloc 2.0.9
	 * unmaps again unless it is 32 MiB-aligned (MI_SEGMENT_ALIGN) - a
	 * populated 1 GiB thrown away, the block then on base pages */
	void *p = addr ? hp_pages_map_hugetlb_at(addr, len, flags & ~(MAP_PRIVATE | MAP_SHARED | MAP_ANONYMOUS),
						 &mapped, &why)
		       : hp_pages_map_hugetlb_size(len, (size_t)32 << 20, ps, &mapped, &why);
	if (p && hp_tlb_add_page(p, mapped, HP_TLB_BACKEND, ps) != 0) {
		munmap(p, mapped);
		p = NULL;
		why.stage = HP_TLB_FAIL_TABLE;
		why.err = ENOSPC;
	}
	if (!p) {
		hp_tlb_fallback(HP_TLB_BACKEND, len);
		if (!atomic_exchange(&said, 1))
			hp_say("hugetlb: mimalloc asked for %zu bytes of hugetlb pages: %s (%s); "
			       "it uses THP or base pages instead (said once)", len, hp_tlb_stage_name(why.stage),
			       strerror(why.err));
		errno = saved;
		return MAP_FAILED;
	}
	errno = saved;
	if (!(flags & MAP_FIXED))       /* MAP_FIXED: over a range it holds already */
		hp_mimalloc_maps_add(p, mapped);
	if (verbose && !atomic_exchange(&said, 1))
		hp_say("hugetlb: first mimalloc segment of %zu bytes mapped and populated from the pool", mapped);
	return p;
}

static int os_munmap(void *p, size_t len)
{
	int rc = munmap(p, len);
	if (rc == 0)
		hp_mimalloc_maps_remove(p, len);
	if (rc == 0 && hp_tlb_overlaps(p, len))
		hp_tlb_forget(p, len);
	else if (rc == 0)
		hp_promote_unmapped(p, len);
	return rc;
}

static int os_madvise(void *p, size_t len, int advice)
{
	if ((advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE) && hp_tlb_overlaps(p, len))
		return 0;               /* keep populated hugetlb pages populated */
	return madvise(p, len, advice);
}

void hp_mimalloc_os_nohuge(int on)
{
	atomic_store(&nohuge, on);
}

int hp_mimalloc_os_install(void *handle, int pool, int say)
{
	static const struct { const char *name; void *fn; } hooks[] = {
		{ "mmap", (void *)os_mmap },
		{ "munmap", (void *)os_munmap },
		{ "madvise", (void *)os_madvise },
	};
	atomic_store(&allow_pool, pool);
	verbose = say;
	hp_mimalloc_maps_init();
	/* mmap first: without it mimalloc's hugetlb cannot be governed (the
	 * caller must keep large_os_pages off: ENOENT); without munmap/madvise
	 * the pool is not safe, but mmap refuses it (EAGAIN) */
	for (unsigned i = 0; i < sizeof hooks / sizeof hooks[0]; i++) {
		int rc = hp_got_hook(handle, hooks[i].name, hooks[i].fn, NULL);
		if (rc != 0) {
			atomic_store(&allow_pool, 0);   /* a hooked mmap still refuses the pool */
			return i == 0 ? rc : EAGAIN;
		}
	}
	return 0;
}
