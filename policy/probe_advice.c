/*
 * probe_advice.c - one line of advice per problem the probe shows, in the
 * manner of `hugeadm --explain`: what the setting does to a program and the
 * command that changes it.  Pure: probe in, lines out.
 */
#include "hp_policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void hp_size_name(uint64_t bytes, char *buf, size_t cap)
{
	static const char *const unit[4] = { "KiB", "MiB", "GiB", "TiB" };
	int u = -1;
	uint64_t v = bytes;
	while (u < 3 && v >= 1024 && (v & 1023) == 0)
		v >>= 10, u++;
	if (u < 0)
		snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, cap, "%llu %s", (unsigned long long)v, unit[u]);
}

struct advice { char (*lines)[HP_ADVICE_LEN]; int n, max; };

static void add(struct advice *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct advice *a, const char *fmt, ...)
{
	if (a->n >= a->max)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->lines[a->n++], HP_ADVICE_LEN, fmt, ap);
	va_end(ap);
}

/* per-size THP (kernel >= 6.8) below the PMD size set to always (or
 * inherit on an always host): small anonymous memory faults in those folios */
static void mthp_advice(const struct hp_probe *p, struct advice *a)
{
	char list[96] = "", s[24];
	size_t n = 0;
	uint64_t pmd = p->pmd_size ? p->pmd_size : HP_HUGE_2M;
	for (int i = 0; i < p->nthp_sizes; i++) {
		const struct hp_thp_size *t = &p->thp_sizes[i];
		if (t->size >= pmd || !(t->enabled == HP_THP_ALWAYS ||
					(t->enabled == HP_THP_INHERIT && p->thp_enabled == HP_THP_ALWAYS)))
			continue;
		hp_size_name(t->size, s, sizeof s);
		int w = snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", s);
		if (w < 0 || (size_t)w >= sizeof list - n)
			break;
		n += (size_t)w;
	}
	if (n)
		add(a, "per-size THP always for %s: any anonymous memory may fault in such folios, sparse heaps "
		    "grow; echo never > /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/enabled", list);
}

static void thp_advice(const struct hp_probe *p, struct advice *a)
{
	if (p->thp_enabled == HP_THP_ALWAYS)
		add(a, "THP always: sparse heaps will bloat (idle threads, jemalloc/mimalloc arenas); "
		    "HUGEPOLICY_PAGES=auto keeps small blocks off %s", p->thp_except_advised_ok ?
		    "(PR_THP_DISABLE_EXCEPT_ADVISED)" : "for jemalloc and mimalloc (glibc's heap stays on THP "
		    "before kernel 6.18)");
	else if (p->thp_enabled == HP_THP_NEVER || p->thp_enabled == HP_THP_MISSING)
		add(a, "THP %s: no transparent huge pages; auto uses the hugetlb pool if it has room "
		    "(echo madvise > /sys/kernel/mm/transparent_hugepage/enabled to offer THP)",
		    hp_thp_name(p->thp_enabled));
	if (strcmp(p->thp_defrag, "always") == 0)
		add(a, "THP defrag always: page faults stall in direct compaction; "
		    "echo defer+madvise > /sys/kernel/mm/transparent_hugepage/defrag");
	/* the default is HPAGE_PMD_NR - 1: every base page of a huge one may be filled in */
	int64_t full = p->pmd_size && p->base_page_size ? (int64_t)(p->pmd_size / p->base_page_size) - 1 : 511;
	if (p->thp_enabled == HP_THP_ALWAYS && p->max_ptes_none >= 0 && p->max_ptes_none >= full) {
		char s[24];
		hp_size_name(p->pmd_size ? p->pmd_size : HP_HUGE_2M, s, sizeof s);
		add(a, "khugepaged max_ptes_none %d: khugepaged fills partly used %s ranges with zero "
		    "pages (RSS grows); lower it, e.g. echo 0 > "
		    "/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none", p->max_ptes_none, s);
	}
	mthp_advice(p, a);
	if (p->thp_process_off == HP_THP_OFF_ALL)
		add(a, "THP disabled for this process (PR_SET_THP_DISABLE, inherited from its parent): "
		    "auto gets no THP; HUGEPOLICY_PAGES=thp clears the switch");
	else if (p->thp_process_off == HP_THP_OFF_EXCEPT_ADVISED)
		add(a, "this process has PR_THP_DISABLE_EXCEPT_ADVISED (inherited): it behaves as THP madvise, "
		    "so auto's large blocks still get THP");
	if (p->pmd_size && p->pmd_size != HP_HUGE_2M) {
		char s[24];
		hp_size_name(p->pmd_size, s, sizeof s);
		add(a, "PMD size %s: a THP page is %s, so blocks smaller than that never get THP "
		    "(HUGEPOLICY_THRESHOLD); hugetlb still uses the 2 MiB pool", s, s);
	}
}

static void pool_advice(const struct hp_probe *p, struct advice *a)
{
	for (int i = 0; i < p->npools; i++) {
		const struct hp_pool *q = &p->pools[i];
		char s[24];
		hp_size_name(q->page_size, s, sizeof s);
		int dflt = q->page_size == p->default_huge || (!p->default_huge && q->page_size == HP_HUGE_2M);
		char cmd[96];
		if (dflt)
			snprintf(cmd, sizeof cmd, "sysctl vm.nr_hugepages=N");
		else
			snprintf(cmd, sizeof cmd, "echo N > /sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages",
				 (unsigned long long)(q->page_size >> 10));
		/* the 2 MiB pool is hugepolicy's; others are advised on when default */
		if (q->total == 0 && q->overcommit == 0 && (dflt || q->page_size == HP_HUGE_2M))
			add(a, "%s pool empty: %s (or nr_overcommit_hugepages=N for surplus pages on demand) "
			    "gives hugetlb pages", s, cmd);
		else if (q->free <= q->resv && hp_pool_surplus_room(q) > 0)
			add(a, "%s pool: no free page, up to %llu surplus pages on demand (nr_overcommit_hugepages); "
			    "hugetlb counts them as room", s, (unsigned long long)hp_pool_surplus_room(q));
		if (q->cg_error)
			add(a, "%s pool: the cgroup hugetlb limit cannot be read (%s): hugepolicy takes no page", s,
			    q->cg_where);
		else if (hp_pool_cgroup_bound(q))
			add(a, "%s pool: %s leaves room for %llu of its %llu pages", s, q->cg_where,
			    (unsigned long long)hp_pool_available(q), (unsigned long long)hp_pool_headroom(q));
	}
	if (!hp_probe_pool(p, HP_HUGE_2M))
		add(a, "no 2 MiB hugetlb pool: HUGEPOLICY_PAGES=hugetlb falls back to THP");
}

static void kernel_advice(const struct hp_probe *p, struct advice *a)
{
	if (!p->kernel[0]) {
		add(a, "kernel version unknown: PR_THP_DISABLE_EXCEPT_ADVISED taken as missing; "
		    "MADV_POPULATE_WRITE is tried when hugetlb memory is mapped");
		return;
	}
	if (!p->populate_write_ok)
		add(a, "kernel %s has no MADV_POPULATE_WRITE (5.14): hugepolicy takes no hugetlb pages (they "
		    "could not be populated safely; an exhausted pool would be a SIGBUS at first touch)", p->kernel);
	if (!p->collapse_ok)
		add(a, "kernel %s has no MADV_COLLAPSE (6.1): memory faulted on base pages waits for khugepaged",
		    p->kernel);
}

int hp_probe_advice(const struct hp_probe *p, char lines[][HP_ADVICE_LEN], int max)
{
	struct advice a = { lines, 0, max };
	thp_advice(p, &a);
	pool_advice(p, &a);
	kernel_advice(p, &a);
	if (p->nproblems > HP_PROBE_PROBLEMS)
		add(&a, "%d more files refused than listed", p->nproblems - HP_PROBE_PROBLEMS);
	return a.n;
}
