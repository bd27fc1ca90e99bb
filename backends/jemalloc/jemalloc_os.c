/*
 * jemalloc_os.c - the embedded jemalloc's mmap, munmap and madvise.
 *
 * jemalloc_embed.sh renames the embedded jemalloc's calls of these three
 * (all in its pages.c: every mapping of its heap, metadata included) to
 * hpje_*, so they come here: each anonymous mapping gets auto's mTHP
 * advice where the plan gives it (thp_mid.c: once per mapping, so blocks
 * jemalloc reuses cost no syscall), and is counted for auto's heap
 * promotion (heap_promote.c), which advises it MADV_HUGEPAGE once the
 * heap is large and dense; after that, jemalloc's own MADV_NOHUGEPAGE
 * (opt.thp=never, auto on a THP `always` host) is not passed on, so the
 * promoted heap keeps the advice.  Everything else goes to the kernel as
 * jemalloc asked.  A MAP_FIXED mapping replaces memory jemalloc already
 * counted (its decommit without overcommit): not counted again, advised
 * again (mTHP at once, THP once promoted).
 */
#define _GNU_SOURCE
#include "hp_jemalloc.h"

#include <sys/mman.h>

void *hpje_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS)) {
		hp_thp_mid_advise(p, len);
		hp_promote_mapped(p, len, (flags & MAP_FIXED) != 0);
	}
	return p;
}

int hpje_munmap(void *p, size_t len)
{
	int rc = munmap(p, len);
	if (rc == 0)
		hp_promote_unmapped(p, len);
	return rc;
}

int hpje_madvise(void *p, size_t len, int advice)
{
	if (advice == MADV_NOHUGEPAGE && hp_promote_active())
		return 0;
	return madvise(p, len, advice);
}
