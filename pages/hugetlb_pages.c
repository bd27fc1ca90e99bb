/*
 * hugetlb_pages.c - mappings from a hugetlb pool that cannot SIGBUS later:
 * mapped without MAP_NORESERVE (the pool reserves the pages at mmap time, or
 * mmap fails with ENOMEM) and populated at once with MADV_POPULATE_WRITE, so
 * that a cgroup hugetlb limit or a pool another process drained is an error
 * now, returned to the caller, instead of a SIGBUS at first touch (kernel
 * admin-guide/mm/hugetlbpage.rst; madvise(2), Linux 5.14).  A kernel without
 * MADV_POPULATE_WRITE gets no hugetlb memory from hugepolicy (EINVAL), never
 * an unpopulated mapping.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23          /* Linux 5.14 */
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000    /* Linux 4.17 */
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

/* The page size a MAP_HUGETLB flag word asks for; 2 MiB when it names none. */
static size_t flag_page_size(int flags)
{
	int shift = (flags >> MAP_HUGE_SHIFT) & 0x3f;
	return shift ? (size_t)1 << shift : HP_HUGE_2M;
}

const char *hp_tlb_stage_name(int stage)
{
	switch (stage) {
	case HP_TLB_FAIL_MMAP: return "the pool has no room (Free-Rsvd)";
	case HP_TLB_FAIL_POPULATE: return "populating was refused (a cgroup hugetlb limit, or the pool was drained meanwhile)";
	case HP_TLB_FAIL_ALIGN: return "no address space for the alignment";
	case HP_TLB_FAIL_TABLE: return "hugepolicy's table of hugetlb mappings is full";
	case HP_TLB_FAIL_KEPT: return "the pool's room is kept for copies of hugetlb pages a fork shares";
	default: return "refused";
	}
}

static void fail(struct hp_tlb_fail *why, int stage, int err)
{
	if (why) {
		why->stage = stage;
		why->err = err;
	}
	errno = err;
}

void *hp_pages_reserve_hugetlb(void *hint, size_t n, int flags)
{
	flags = (flags & ~MAP_NORESERVE) | MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB;
	if (((flags >> MAP_HUGE_SHIFT) & 0x3f) == 0)
		flags |= MAP_HUGE_2MB;
	void *p = mmap(hint, n, PROT_READ | PROT_WRITE, flags, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static atomic_int cow_keep;

void hp_fork_cow_keep(int on)
{
	atomic_store_explicit(&cow_keep, on, memory_order_relaxed);
}

int hp_fork_cow_keeping(void)
{
	return atomic_load_explicit(&cow_keep, memory_order_relaxed);
}

static atomic_int inflight;              /* hugetlb mappings being made now */

int hp_pages_hugetlb_inflight(void)
{
	return atomic_load(&inflight);
}

void hp_pages_hugetlb_making(int delta)
{
	atomic_fetch_add(&inflight, delta);
}

uint64_t hp_pages_pool_free(size_t page_size)
{
	char path[96], buf[32];
	unsigned long long v[2];
	static const char *const names[2] = { "free_hugepages", "resv_hugepages" };
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "/sys/kernel/mm/hugepages/hugepages-%zukB/%s", page_size >> 10, names[i]);
		if (hp_read_small(path, buf, sizeof buf) <= 0)
			return 0;
		v[i] = strtoull(buf, NULL, 10);
	}
	return v[0] > v[1] ? v[0] - v[1] : 0;
}

int hp_pages_smaps_hugetlb(uint64_t *all, uint64_t *shared)
{
	static char buf[4096];          /* under the hp_tlb lock: no 4 KiB on a handler's stack */
	hp_tlb_lock();
	int n = hp_read_small("/proc/self/smaps_rollup", buf, sizeof buf), rc = -1;
	const char *p = n > 0 ? strstr(buf, "\nPrivate_Hugetlb:") : NULL, *q = n > 0 ? strstr(buf, "\nShared_Hugetlb:") : NULL;
	if (p && q) {
		*shared = strtoull(q + 16, NULL, 10) << 10;
		*all = (strtoull(p + 17, NULL, 10) << 10) + *shared;
		rc = 0;
	}
	hp_tlb_unlock();
	return rc;
}

/* hp_fork_cow_keep's rule for n more bytes of flags' page size: 0 if the
 * pool's free pages (less reserved ones) hold them and a copy of every
 * page still shared */
int hp_fork_cow_kept(size_t n, int flags)
{
	if (!atomic_load_explicit(&cow_keep, memory_order_relaxed))
		return 0;
	uint64_t all, shared;
	if (hp_pages_smaps_hugetlb(&all, &shared) != 0)
		return 1;                       /* unknown: keep the room */
	if (shared == 0) {
		hp_fork_cow_keep(0);            /* every shared page copied, or the other side gone */
		return 0;
	}
	size_t ps = flag_page_size(flags);
	return (n + shared + ps - 1) / ps > hp_pages_pool_free(ps);
}

void *hp_pages_map_hugetlb_at(void *hint, size_t len, int flags, size_t *mapped_len, struct hp_tlb_fail *why)
{
	size_t ps = flag_page_size(flags);
	if (len == 0 || len > SIZE_MAX - ps) {
		fail(why, HP_TLB_FAIL_MMAP, ENOMEM);
		return NULL;
	}
	size_t n = (len + ps - 1) & ~(ps - 1);
	if (hp_fork_cow_kept(n, flags)) {
		fail(why, HP_TLB_FAIL_KEPT, ENOMEM);
		return NULL;
	}
	hp_pages_hugetlb_making(1);     /* until populated: a fork now takes the copy path */
	void *p = hp_pages_reserve_hugetlb(hint, n, flags);
	if (!p) {
		hp_pages_hugetlb_making(-1);
		fail(why, HP_TLB_FAIL_MMAP, errno);    /* ENOMEM: the pool cannot reserve n */
		return NULL;
	}
	if (madvise(p, n, MADV_POPULATE_WRITE) != 0) {
		/* EFAULT is madvise(2)'s "a touch would have raised SIGBUS": a
		 * cgroup refused the charge or the pool was drained - no memory
		 * of this kind, said as ENOMEM (not "Bad address"); EINVAL:
		 * kernel < 5.14 */
		int e = errno == EFAULT ? ENOMEM : errno;
		munmap(p, n);
		hp_pages_hugetlb_making(-1);
		fail(why, HP_TLB_FAIL_POPULATE, e);
		return NULL;
	}
	/* populated: from here until the caller records it, a fork sees it in
	 * smaps but not on the table, and copies (hugetlb_fork.c) */
	hp_pages_hugetlb_making(-1);
	*mapped_len = n;
	return p;
}

void *hp_pages_map_hugetlb_size(size_t len, size_t align, size_t page_size, size_t *mapped_len,
				 struct hp_tlb_fail *why)
{
	if (page_size < 4096 || (page_size & (page_size - 1)) != 0 || page_size > ((size_t)1 << 40)) {
		fail(why, HP_TLB_FAIL_MMAP, EINVAL);
		return NULL;
	}
	int size_flag = __builtin_ctzll(page_size) << MAP_HUGE_SHIFT;
	if (align <= page_size)         /* the kernel places hugetlb mappings on their page size */
		return hp_pages_map_hugetlb_at(NULL, len, size_flag, mapped_len, why);
	if (len == 0 || len > SIZE_MAX / 2 || (align & (align - 1)) != 0 || align > SIZE_MAX / 4) {
		fail(why, HP_TLB_FAIL_ALIGN, EINVAL);
		return NULL;
	}
	if (len > SIZE_MAX / 2 - page_size) {
		fail(why, HP_TLB_FAIL_MMAP, ENOMEM);
		return NULL;
	}
	size_t n = (len + page_size - 1) & ~(page_size - 1);
	/* find an aligned hole: address space only (no pool pages, no commit
	 * charge), trimmed to the aligned part and given back; then the
	 * hugetlb mapping goes there with MAP_FIXED_NOREPLACE.  Never MAP_FIXED
	 * over a placeholder: a refused MAP_FIXED mapping leaves a hole that
	 * another thread may map at once, and unmapping the "placeholder"
	 * afterwards would unmap that thread's memory. */
	unsigned char *r = mmap(NULL, n + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED) {
		fail(why, HP_TLB_FAIL_ALIGN, errno);
		return NULL;
	}
	unsigned char *a = (unsigned char *)(((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1));
	munmap(r, n + align);
	void *p = hp_pages_map_hugetlb_at(a, n, MAP_FIXED_NOREPLACE | size_flag, mapped_len, why);
	if (p && p != a) {              /* a kernel < 4.17 took the flag as a hint */
		munmap(p, *mapped_len);
		fail(why, HP_TLB_FAIL_ALIGN, EEXIST);
		return NULL;
	}
	if (!p && why && why->stage == HP_TLB_FAIL_MMAP && why->err == EEXIST)
		why->stage = HP_TLB_FAIL_ALIGN;         /* another thread took the hole */
	return p;
}

void *hp_pages_map_hugetlb(size_t len, size_t align, size_t *mapped_len, struct hp_tlb_fail *why)
{
	return hp_pages_map_hugetlb_size(len, align, HP_HUGE_2M, mapped_len, why);
}
