/*
 * region_linux.c - the chain of a region on Linux: hugetlb -> THP -> base
 * pages, each step saying in one line why it was or was not used.
 *
 * hugetlb: the page size from the pools the kernel offers (the largest
 * whose room - Free-Rsvd + surplus headroom, bounded by the cgroup hugetlb
 * limit: policy/'s probe - holds the whole region, else 2 MiB), mapped
 * without MAP_NORESERVE (the pool reserves at mmap or says ENOMEM), then
 * the fork advice and NUMA policy, then populated with MADV_POPULATE_WRITE
 * by .threads threads: a cgroup limit or a drained pool is an errno now,
 * never a SIGBUS later.  This is the page layer's hp_pages_map_hugetlb_at
 * (pages/hugetlb_pages.c) with mbind and a parallel populate between
 * its mmap (hp_pages_reserve_hugetlb) and its populate; its failure
 * stages name the reasons.  A kernel
 * without MADV_POPULATE_WRITE (< 5.14) gets no hugetlb region: a safe
 * pre-fault of hugetlb memory cannot be had there (a touch under a cgroup
 * limit is the SIGBUS itself), so hugetlb is refused with that reason.
 * Regions that children inherit are registered in the page layer's table
 * (owner HP_TLB_REGION), so a fork()ed child makes them its own as it does
 * every hugetlb mapping (HUGEPOLICY_FORK); DONTFORK regions are not
 * registered: the child has no such mapping to copy.
 */
#define _GNU_SOURCE
#include "hp_region.h"
#include "../pages/hp_pages.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define PMD ((size_t)HP_HUGE_2M)

static const char *ename(int e)
{
	const char *s = strerrorname_np(e);
	return s ? s : "an unknown errno";
}

static size_t round_up(size_t n, size_t unit)
{
	return (n + unit - 1) & ~(unit - 1);
}

static int strict(const struct hp_region *r)
{
	return (r->opt.flags & HUGEPOLICY_REGION_STRICT) != 0;
}

/* The fork advice on a new mapping: 0, or (strict) an errno. */
static int fork_advice(struct hp_region *r, void *p, size_t len, const char *step)
{
	if (r->opt.fork == HUGEPOLICY_REGION_FORK_INHERIT)
		return 0;
	int dont = r->opt.fork == HUGEPOLICY_REGION_FORK_DONTFORK;
	if (madvise(p, len, dont ? MADV_DONTFORK : MADV_WIPEONFORK) == 0)
		return 0;
	int e = errno;
	hp_region_why(r, "%s: fork: madvise(%s) refused (%s): children inherit it", step,
		      dont ? "MADV_DONTFORK" : "MADV_WIPEONFORK", ename(e));
	r->opt.fork = HUGEPOLICY_REGION_FORK_INHERIT;
	return strict(r) ? EOPNOTSUPP : 0;
}

/* Fork advice, NUMA, populate: what every step does to its new mapping. */
static int prepare(struct hp_region *r, void *p, size_t len, size_t unit, int may_touch, const char *step,
		   unsigned *threads)
{
	*threads = 0;
	int err = fork_advice(r, p, len, step);
	if (!err)
		err = hp_region_numa(r, p, len);
	if (!err && ((r->opt.flags & HUGEPOLICY_REGION_POPULATE) || !may_touch)) {
		err = hp_region_populate(p, len, unit, r->opt.threads, may_touch, threads);
		if (err == EINVAL && !may_touch) {
			hp_region_why(r, "%s: not used: the kernel has no MADV_POPULATE_WRITE (5.14): "
				      "unpopulated hugetlb memory could SIGBUS later", step);
			return EOPNOTSUPP;
		}
		if (err)
			hp_region_why(r, "%s: not used: populating was refused (%s)%s", step, ename(err),
				      may_touch ? "" : ": a cgroup hugetlb limit, or the pool was drained meanwhile");
		else
			r->prefaulted = 1;
	}
	return err;
}

static const struct hp_pool *choose_pool(const struct hp_region *r, const struct hp_probe *pr)
{
	if (r->opt.hugetlb_page_size)
		return hp_probe_pool(pr, r->opt.hugetlb_page_size);
	for (int i = pr->npools - 1; i >= 0; i--) {     /* largest page first */
		const struct hp_pool *pool = &pr->pools[i];
		if (pool->page_size <= r->req &&
		    hp_pool_available(pool) >= round_up(r->req, pool->page_size) / pool->page_size)
			return pool;
	}
	return hp_probe_pool(pr, HP_HUGE_2M);
}

static int step_hugetlb(struct hp_region *r, const struct hp_probe *pr)
{
	if (r->opt.fork == HUGEPOLICY_REGION_FORK_WIPEONFORK) {
		hp_region_why(r, "hugetlb: not used: MADV_WIPEONFORK is for private anonymous memory only");
		return EOPNOTSUPP;
	}
	if (pr->kernel_major && pr->kernel_major * 1000 + pr->kernel_minor < 5014) {
		hp_region_why(r, "hugetlb: not used: kernel %s has no MADV_POPULATE_WRITE (5.14): "
			      "unpopulated hugetlb memory could SIGBUS later", pr->kernel);
		return EOPNOTSUPP;
	}
	const struct hp_pool *pool = choose_pool(r, pr);
	if (!pool) {
		hp_region_why(r, "hugetlb: not used: the kernel offers no %llu kB hugetlb pages",
			      (unsigned long long)(r->opt.hugetlb_page_size ? r->opt.hugetlb_page_size >> 10 : 2048));
		return EOPNOTSUPP;
	}
	size_t ps = (size_t)pool->page_size, len = round_up(r->req, ps);
	uint64_t need = len / ps, avail = hp_pool_available(pool);
	if (avail < need) {
		char cg[64] = "";
		if (!pool->cg_error && pool->cg_max >= 0)
			snprintf(cg, sizeof cg, " = %lld, usage %lld", (long long)pool->cg_max,
				 (long long)(pool->cg_current > 0 ? pool->cg_current : 0));
		hp_region_why(r, "hugetlb: not used: the %zu kB pool has room for %llu of %llu pages "
			      "(Free-Rsvd %llu, surplus room %llu; %s%s%s)", ps >> 10, (unsigned long long)avail,
			      (unsigned long long)need,
			      (unsigned long long)(pool->free > pool->resv ? pool->free - pool->resv : 0),
			      (unsigned long long)hp_pool_surplus_room(pool),
			      pool->cg_error ? "cgroup limit unreadable: " : "", pool->cg_where, cg);
		hp_tlb_fallback(HP_TLB_REGION, len);
		return ENOMEM;
	}
	int shift = __builtin_ctzll(pool->page_size);
	if (hp_fork_cow_kept(len, shift << MAP_HUGE_SHIFT)) {
		hp_region_why(r, "hugetlb: not used: %s", hp_tlb_stage_name(HP_TLB_FAIL_KEPT));
		hp_tlb_fallback(HP_TLB_REGION, len);
		return ENOMEM;
	}
	hp_pages_hugetlb_making(1);     /* until it is on the table: a fork copies */
	void *p = hp_pages_reserve_hugetlb(NULL, len, shift << MAP_HUGE_SHIFT);
	if (!p) {
		hp_pages_hugetlb_making(-1);
		int e = errno;
		hp_region_why(r, "hugetlb: not used: mmap of %zu bytes (%s): %s", len, ename(e),
			      hp_tlb_stage_name(HP_TLB_FAIL_MMAP));
		hp_tlb_fallback(HP_TLB_REGION, len);
		return ENOMEM;
	}
	unsigned threads;
	int err = prepare(r, p, len, ps, 0, "hugetlb", &threads);
	if (err) {
		munmap(p, len);
		hp_pages_hugetlb_making(-1);
		hp_tlb_fallback(HP_TLB_REGION, len);
		return err == EOPNOTSUPP || err == EINVAL ? err : ENOMEM;
	}
	r->base = (uintptr_t)p;
	r->len = len;
	r->page = ps;
	r->kind = HUGEPOLICY_REGION_HUGETLB;
	r->on_table = r->opt.fork == HUGEPOLICY_REGION_FORK_INHERIT && hp_tlb_add_page(p, len, HP_TLB_REGION, ps) == 0;
	hp_pages_hugetlb_making(-1);
	hp_region_why(r, "hugetlb: used: %llu pages of %zu kB (room for %llu), no MAP_NORESERVE, "
		      "populated by %u thread%s%s", (unsigned long long)need, ps >> 10, (unsigned long long)avail,
		      threads, threads == 1 ? "" : "s",
		      r->opt.fork != HUGEPOLICY_REGION_FORK_INHERIT ? ", MADV_DONTFORK"
		      : r->on_table ? "" : "; not in the fork table (full): children share it copy-on-write");
	return 0;
}

static int step_thp(struct hp_region *r, const struct hp_probe *pr)
{
	const char *no = pr->thp_process_off == HP_THP_OFF_ALL ? "THP is disabled for this process (prctl PR_SET_THP_DISABLE)"
		       : pr->thp_enabled == HP_THP_NEVER ? "THP enabled=never"
		       : pr->thp_enabled == HP_THP_MISSING ? "the kernel has no THP" : NULL;
	if (no) {
		hp_region_why(r, "thp: not used: %s", no);
		return EOPNOTSUPP;
	}
	size_t len = round_up(r->req, PMD);
	void *p = hp_region_map_guarded(len, PMD);
	if (!p) {
		hp_region_why(r, "thp: not used: mmap of %zu bytes (%s)", len, ename(errno));
		return ENOMEM;
	}
	unsigned threads;
	int err = hp_pages_advise_thp_range(p, len);
	if (err) {
		hp_region_why(r, "thp: not used: madvise(MADV_HUGEPAGE) refused (%s)", ename(err));
		err = EOPNOTSUPP;
	} else {
		err = prepare(r, p, len, PMD, 1, "thp", &threads);
	}
	char collapse[48] = "";
	if (!err && r->prefaulted && (r->opt.flags & HUGEPOLICY_REGION_COLLAPSE))
		snprintf(collapse, sizeof collapse, ", MADV_COLLAPSE %s",
			 madvise(p, len, MADV_COLLAPSE) == 0 ? "done" : ename(errno));
	if (!err && r->prefaulted && strict(r)) {
		struct hp_range_smaps sm;
		if (hp_region_smaps((uintptr_t)p, len, &sm) == 0 && sm.anon_huge == 0) {
			hp_region_why(r, "thp: not used: populated, but AnonHugePages is 0 (defrag %s)", pr->thp_defrag);
			err = EAGAIN;
		}
	}
	if (err) {
		hp_region_unmap_guarded(p, len);
		r->prefaulted = 0;
		return err == EINVAL || err == EOPNOTSUPP || err == EAGAIN ? err : ENOMEM;
	}
	r->base = (uintptr_t)p;
	r->len = len;
	r->kind = HUGEPOLICY_REGION_THP;
	if (r->prefaulted)
		hp_region_why(r, "thp: used: 2 MiB-aligned, MADV_HUGEPAGE (enabled=%s), populated by %u thread%s%s",
			      hp_thp_name(pr->thp_enabled), threads, threads == 1 ? "" : "s", collapse);
	else
		hp_region_why(r, "thp: used: 2 MiB-aligned, MADV_HUGEPAGE (enabled=%s), huge pages at first touch",
			      hp_thp_name(pr->thp_enabled));
	return 0;
}

static int step_base(struct hp_region *r, const struct hp_probe *pr)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = round_up(r->req, page);
	void *p = hp_region_map_guarded(len, page);
	if (!p) {
		hp_region_why(r, "base: not used: mmap of %zu bytes (%s)", len, ename(errno));
		return ENOMEM;
	}
	int nohuge = r->asked == HUGEPOLICY_REGION_BASE && pr->thp_enabled == HP_THP_ALWAYS;
	if (nohuge)
		madvise(p, len, MADV_NOHUGEPAGE);
	unsigned threads;
	int err = prepare(r, p, len, page, 1, "base", &threads);
	if (err) {
		hp_region_unmap_guarded(p, len);
		return err == EINVAL || err == EOPNOTSUPP ? err : ENOMEM;
	}
	r->base = (uintptr_t)p;
	r->len = len;
	r->kind = HUGEPOLICY_REGION_BASE;
	if (r->prefaulted)
		hp_region_why(r, "base: used: %zu bytes%s, populated by %u thread%s", len,
			      nohuge ? ", MADV_NOHUGEPAGE" : "", threads, threads == 1 ? "" : "s");
	else
		hp_region_why(r, "base: used: %zu bytes%s, not populated", len, nohuge ? ", MADV_NOHUGEPAGE" : "");
	return 0;
}

int hp_region_os_map(struct hp_region *r)
{
	struct hp_probe pr;
	if (r->asked == HUGEPOLICY_REGION_HUGETLB || r->opt.numa != HUGEPOLICY_REGION_NUMA_DEFAULT)
		hp_probe_read(&pr);
	else
		hp_probe_for_plan(&pr, HP_PAGES_THP, HP_BACKEND_SYSTEM);
	int err = 0, kind = r->asked;
	if (kind == HUGEPOLICY_REGION_HUGETLB) {
		err = step_hugetlb(r, &pr);
		if (!err || strict(r) || err == EINVAL)
			return err;
		kind = HUGEPOLICY_REGION_THP;
	}
	if (kind == HUGEPOLICY_REGION_THP) {
		err = step_thp(r, &pr);
		if (!err || strict(r) || err == EINVAL)
			return err;
	}
	return step_base(r, &pr);
}

void hp_region_os_unmap(struct hp_region *r)
{
	if (r->kind != HUGEPOLICY_REGION_HUGETLB) {
		hp_region_unmap_guarded((void *)r->base, r->len);
		return;
	}
	hp_tlb_lock();          /* a fork meanwhile must not copy what is gone */
	if (r->on_table)
		hp_tlb_remove((void *)r->base);
	munmap((void *)r->base, r->len);
	hp_tlb_unlock();
}
