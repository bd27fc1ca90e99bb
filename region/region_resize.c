/*
 * region_resize.c - a region grows or shrinks and keeps its contents'
 * prefix (a transposition table resized when the user changes the hash
 * size).  THP and base regions: shrink in place, grow by mremap into a fresh
 * guarded reservation - page tables move, nothing is copied, and the VMA's
 * MADV_HUGEPAGE, fork flags and NUMA policy go with it; the grown part is
 * populated if the region was.  hugetlb regions shrink in place with mremap
 * (the pages past the end go back to the pool); the kernel refuses to grow
 * a hugetlb mapping (its reservation cannot be split), so growing one is
 * EXDEV: region.c makes a new region with the same options and copies.
 */
#define _GNU_SOURCE
#include "hp_region.h"
#include "../pages/hp_pages.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Drop an earlier "resize:" line: only the last resize is told. */
static void forget_resize(struct hp_region *r)
{
	char *s = r->why;
	while (s && *s) {
		if (strncmp(s, "resize: ", 8) == 0) {
			*s = '\0';
			return;
		}
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
}

/* The "<kind>: used: N bytes|pages ..." line states the size the region has
 * now: N is rewritten in place (the digits of the old count give way to
 * the new one, the rest of the reason moves along). */
static void restate_used(struct hp_region *r)
{
	const char *head = r->kind == HUGEPOLICY_REGION_HUGETLB ? "hugetlb: used: "
			 : r->kind == HUGEPOLICY_REGION_BASE ? "base: used: " : NULL;
	char *s = head ? strstr(r->why, head) : NULL;
	if (!s || (s != r->why && s[-1] != '\n'))
		return;
	char *digits = s + strlen(head), *end = digits;
	while (*end >= '0' && *end <= '9')
		end++;
	if (end == digits)
		return;
	char num[24], rest[sizeof r->why];
	int n = snprintf(num, sizeof num, "%zu", r->kind == HUGEPOLICY_REGION_HUGETLB ? r->len / r->page : r->len);
	size_t keep = (size_t)(digits - r->why), tail = strlen(end);
	if (n <= 0 || keep + (size_t)n + tail >= sizeof r->why)
		return;
	memcpy(rest, end, tail + 1);
	memcpy(digits, num, (size_t)n);
	memcpy(digits + n, rest, tail + 1);
}

static int resize_hugetlb(struct hp_region *r, size_t len)
{
	if (len > r->len)
		return EXDEV;
	hp_tlb_lock();          /* no fork may copy the old length meanwhile */
	void *q = mremap((void *)r->base, r->len, len, 0);
	int err = q == MAP_FAILED ? errno : 0;
	if (!err && r->on_table) {
		hp_tlb_remove((void *)r->base);
		r->on_table = hp_tlb_add_page((void *)r->base, len, HP_TLB_REGION, r->page) == 0;
	}
	hp_tlb_unlock();
	return err;
}

int hp_region_os_resize(struct hp_region *r, size_t bytes)
{
	size_t unit = r->kind == HUGEPOLICY_REGION_HUGETLB ? r->page
		    : r->kind == HUGEPOLICY_REGION_THP ? (size_t)HP_HUGE_2M : (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (bytes + unit - 1) & ~(unit - 1), old = r->len;
	int err = 0;
	unsigned threads = 0;
	if (len == old) {
		;
	} else if (r->kind == HUGEPOLICY_REGION_HUGETLB) {
		err = resize_hugetlb(r, len);
	} else if (len < old) {
		err = hp_region_shrink_guarded((void *)r->base, old, len);
	} else {
		void *q = hp_region_grow_guarded((void *)r->base, old, len, unit);
		if (!q)
			return errno;
		r->base = (uintptr_t)q;
		if (r->prefaulted &&
		    hp_region_populate((unsigned char *)q + old, len - old, unit, r->opt.threads, 1, &threads) != 0)
			r->prefaulted = 0;      /* first touch will fault the rest */
	}
	if (err)
		return err;
	/* what stays mapped past the new size is zero again, so that a later
	 * grow hands out zero bytes (the header's promise), not the old tail */
	if (bytes < r->req)
		memset((unsigned char *)r->base + bytes, 0, (r->req < len ? r->req : len) - bytes);
	r->len = len;
	r->req = bytes;
	forget_resize(r);
	restate_used(r);
	if (len > old)
		hp_region_why(r, "resize: %zu -> %zu bytes: moved by mremap, nothing copied%s", old, len,
			      !r->prefaulted ? "" : threads ? ", the new part populated" : ", not populated");
	else
		hp_region_why(r, "resize: %zu -> %zu bytes in place", old, len);
	return 0;
}
