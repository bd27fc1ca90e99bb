/*
 * hugetlb_blocks.c - large blocks served straight from a hugetlb pool: the
 * 2 MiB pool, or a larger one (1 GiB) for the blocks the plan gives it.
 *
 * Each block is its own populated mapping (hugetlb_pages.c), recorded in the
 * table of hugetlb mappings (hugetlb_map.c) so that free() recognises it.
 * Its base is aligned to its page size (so it satisfies any alignment up to
 * that; larger alignments get an aligned mapping), its length a multiple of
 * it (munmap of a 1 GiB-page mapping takes whole GiB), no in-band header.
 * free() consults the table only for 2 MiB-aligned pointers while blocks
 * exist, so glibc's own frees stay on the fast path.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>

void *hp_blocks_alloc_page(size_t size, size_t align, size_t page_size, struct hp_tlb_fail *why)
{
	size_t len;
	void *p = hp_pages_map_hugetlb_size(size, align, page_size, &len, why);
	if (!p)
		return NULL;
	if (hp_tlb_add_page(p, len, HP_TLB_BLOCK, page_size) != 0) {
		hp_pages_unmap(p, len);
		if (why) {
			why->stage = HP_TLB_FAIL_TABLE;
			why->err = ENOSPC;
		}
		errno = ENOSPC;
		return NULL;
	}
	return p;
}

void *hp_blocks_alloc(size_t size, size_t align, struct hp_tlb_fail *why)
{
	void *p = hp_blocks_alloc_page(size, align, HP_HUGE_2M, why);
	if (!p)
		hp_tlb_fallback(HP_TLB_BLOCK, size);
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
