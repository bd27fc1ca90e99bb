/*
 * thp_mid.c - mTHP on memory fresh from the OS: the advice the plan's mthp
 * fields ask for (policy/plan_mthp.c), and the kernel's per-size counters
 * the report shows beside it.
 *
 * A backend calls hp_thp_mid_advise once for each piece of memory it gets
 * from the kernel, before its first touch: jemalloc and mimalloc at their
 * mmap (jemalloc_os.c, mimalloc_os.c: the whole mapping, small-block
 * memory included), glibc for a block it mmapped for itself (the chunk's
 * IS_MMAPPED bit, system.c through thp_large.c).  Memory the allocator
 * reuses keeps the advice its mapping got and costs no syscall: a
 * malloc/free loop makes no madvise.  Pieces from plan->mthp_min up are
 * advised MADV_HUGEPAGE, so their faults take the largest advised folio
 * that fits.  With mthp_guard the advice leaves out the first base page
 * of each PMD-aligned window: a VMA this advice made never holds a whole
 * window, so neither a PMD fault nor khugepaged makes a PMD THP of it (a
 * big block's own advice, thp_large.c, can still complete its windows).
 * The guard page keeps whatever advice it had, except after a move:
 * a block the allocator grew or moved with its advice (glibc's mremap
 * keeps a VMA's flags over the whole new range, guard pages none)
 * is advised again by hp_thp_mid_readvise, its guard pages then
 * MADV_NOHUGEPAGE, the one advice that takes VM_HUGEPAGE off.
 *
 * The counters (hugepages-<size>kB/stats/anon_fault_alloc) are
 * system-wide; their values at start-up are kept so the report can give
 * the change over the process's life, labelled as system-wide.  State is
 * set once at start-up, read-only after; counts are atomics.
 */
#define _GNU_SOURCE
#include "hp_pages.h"
#include "hugepolicy.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t mid_min, pmd = HP_HUGE_2M;
static int guard, verbose;
static uint32_t sizes;                  /* the plan's advised | kernel sizes: the counters kept */
static uint64_t start_count[32];
static uint32_t start_ok;               /* bit k: start_count[k] was read */
static atomic_size_t maps, bytes_advised;
static atomic_int said;

/* hugepages-<size>kB/stats/anon_fault_alloc (system-wide): 0 or errno */
static int counter(uint64_t size, uint64_t *out)
{
	char path[128], buf[32];
	snprintf(path, sizeof path, "/sys/kernel/mm/transparent_hugepage/hugepages-%llukB/stats/anon_fault_alloc",
		 (unsigned long long)(size >> 10));
	const char *why;
	int saved = errno, n = hp_read_line(path, buf, sizeof buf, &why);
	errno = saved;
	return n < 0 ? -n : hp_parse_u64_strict(buf, out);
}

void hp_thp_mid_init(const struct hp_plan *plan)
{
	mid_min = plan->mthp == HP_MTHP_ADVISE ? plan->mthp_min : 0;
	guard = plan->mthp_guard;
	pmd = plan->mthp_pmd ? plan->mthp_pmd : HP_HUGE_2M;
	verbose = plan->verbose;
	sizes = plan->mthp_advised | plan->mthp_kernel;
	start_ok = 0;
	for (int k = 0; k < 32; k++)
		if ((sizes & (1u << k)) && counter((uint64_t)1 << k, &start_count[k]) == 0)
			start_ok |= 1u << k;
}

size_t hp_thp_mid_min(void)
{
	return (size_t)mid_min;
}

void hp_thp_mid_counts(struct hp_mthp_report *r)
{
	r->sizes = sizes;
	r->maps_advised = atomic_load(&maps);
	r->bytes_advised = atomic_load(&bytes_advised);
}

void hp_thp_mid_scan(struct hp_mthp_report *r, int read)
{
	uint64_t folio[64];
	int scan = read && sizes ? hp_pages_folio_bytes(folio) : ENOENT;
	for (int k = 0; k < 32; k++) {
		uint64_t now;
		r->folio_bytes[k] = scan ? HUGEPOLICY_UNKNOWN : folio[k];
		r->fault_alloc[k] = HUGEPOLICY_UNKNOWN;
		if (read && (start_ok & (1u << k)) && counter((uint64_t)1 << k, &now) == 0)
			r->fault_alloc[k] = now > start_count[k] ? now - start_count[k] : 0;
	}
}

static void advise(void *p, size_t n, int reguard);

void hp_thp_mid_advise(void *p, size_t n)
{
	advise(p, n, 0);
}

void hp_thp_mid_readvise(void *p, size_t n)
{
	advise(p, n, 1);
}

static void advise(void *p, size_t n, int reguard)
{
	if (!mid_min || !p || n < mid_min)
		return;
	uint64_t seg[8][2], page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t at = (uintptr_t)p & ~(page - 1), last = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	int saved = errno, ns, calls = 0;
	size_t done = 0;
	/* a mapping spans many windows: the segments eight at a time, each
	 * batch going on from the window boundary the last one ended at */
	do {
		ns = hp_mthp_segments(at, last, page, pmd, guard, seg, 8);
		for (int i = 0; i < ns; i++, calls++) {
			if (madvise((void *)(uintptr_t)seg[i][0], seg[i][1] - seg[i][0], MADV_HUGEPAGE) == 0)
				done += seg[i][1] - seg[i][0];
			/* the guard page after this segment, where one is inside */
			if (reguard && guard && seg[i][1] < last && (seg[i][1] & (pmd - 1)) == 0)
				madvise((void *)(uintptr_t)seg[i][1], page, MADV_NOHUGEPAGE);
		}
		/* a block starting on a boundary: its first page is a guard too */
		if (reguard && guard && at == ((uintptr_t)p & ~(page - 1)) && (at & (pmd - 1)) == 0 && at < last)
			madvise((void *)(uintptr_t)at, page, MADV_NOHUGEPAGE);
		at = ns ? seg[ns - 1][1] : last;
	} while (ns == 8 && at < last);
	errno = saved;
	if (!done)
		return;
	atomic_fetch_add_explicit(&maps, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&bytes_advised, done, memory_order_relaxed);
	if (verbose && !atomic_exchange(&said, 1))
		hp_say("mTHP: first piece of %zu bytes fresh from the OS: %zu bytes advised MADV_HUGEPAGE in %d "
		       "range%s", n, done, calls, calls == 1 ? "" : "s (the first page of each PMD-aligned window left out)");
}
