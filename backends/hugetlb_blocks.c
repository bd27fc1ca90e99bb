/*
 * hugetlb_blocks.c - large blocks that the system backend serves straight
 * from the 2 MiB hugetlb pool.
 *
 * Each block is its own populated mapping (hugetlb_pages.c), recorded in the
 * table of hugetlb mappings (hugetlb_map.c) so that free() recognises it.
 * Its base is 2 MiB-aligned (so it satisfies any alignment up to 2 MiB;
 * larger alignments get an aligned mapping) and carries no in-band header.
 * free() consults the table only for 2 MiB-aligned pointers while blocks
 * exist, so glibc's own frees stay on the fast path.
 */
#define _GNU_SOURCE
#include "hp_backend.h"

#include <errno.h>

void *hp_blocks_alloc(size_t size, size_t align, struct hp_tlb_fail *why)
{
	size_t len;
	void *p = hp_pages_map_hugetlb(size, align, &len, why);
	if (!p) {
		hp_tlb_fallback(HP_TLB_BLOCK, size);
		return NULL;
	}
	if (hp_tlb_add(p, len, HP_TLB_BLOCK) != 0) {
		hp_pages_unmap(p, len);
		hp_tlb_fallback(HP_TLB_BLOCK, size);
		if (why) {
			why->stage = HP_TLB_FAIL_TABLE;
			why->err = ENOSPC;
		}
		errno = ENOSPC;
		return NULL;
	}
	return p;
}

int hp_blocks_owns(const void *p)
{
	return hp_tlb_block_size(p) != 0;
}

size_t hp_blocks_size(const void *p)
{
	return hp_tlb_block_size(p);
}

void hp_blocks_free(void *p)
{
	size_t len = hp_tlb_remove(p);
	if (len)
		hp_pages_unmap(p, len);
}
