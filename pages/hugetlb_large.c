/*
 * hugetlb_large.c - blocks of at least `pool_min` bytes from the hugetlb
 * pool, in front of any backend (the system backend's and jemalloc's
 * pages=hugetlb).
 *
 * A block that big is its own populated mapping (hugetlb_blocks.c); when the
 * pool or a cgroup limit says no, the backend serves it, advised
 * MADV_HUGEPAGE before first touch where THP is on (thp_large.c, which the
 * caller has set up for the same backend), said once.  Smaller blocks, the
 * hot path, are a tail call to the backend.  free, usable_size and realloc
 * recognise pool blocks by their 2 MiB-aligned base (hugetlb_map.c).
 * One wrapper set per process, set up once at start-up.
 *
 * Page sizes (plan_pagesize.c): a block >= big_min comes from the larger
 * pool (1 GiB) first; refused there, from the small pool (2 MiB), then the
 * fallback.  A block the plan gives no pool (small_page 0: only the 1 GiB
 * pool was asked for, or the 2 MiB pool had no room) takes the fallback at
 * once, without counting as refused.  realloc never mremaps a pool block
 * (a hugetlb mapping cannot change its page size): it grows by a new block
 * and a copy, shrinks in place - except a big-page block shrunk below
 * big_min, which moves to a smaller block so that it stops holding a whole
 * 1 GiB page (kept in place when that fails).
 */
#include "hp_pages.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static struct hp_alloc_ops inner;
static size_t pool_min = 4u * HP_MIB;
static size_t ram = SIZE_MAX;                  /* the machine's memory: no pool has more */
static size_t small_page = HP_HUGE_2M, big_page, big_min;
static int fallback_thp, verbose;
static atomic_int said_fallback, said_first_block, said_big_refused, said_first_big;

static void *fallback(size_t n, void *p)
{
	return p && fallback_thp == HP_TLB_FALLBACK_THP ? hp_thp_large_advise(p, n) : p;
}

/* One line, once per page size and kind: a block from the pool of `page`,
 * or refused there (then: `next` pages, or the fallback if 0). */
static void say(atomic_int *once, size_t n, size_t page, const struct hp_tlb_fail *why, size_t next)
{
	char pn[24], nn[24];
	if (atomic_exchange(once, 1))
		return;
	hp_size_name(page, pn, sizeof pn);
	hp_size_name(next, nn, sizeof nn);
	if (!why)
		hp_say("hugetlb: first block of %zu bytes mapped and populated from the %s pool", n, pn);
	else
		hp_say("hugetlb: a %zu-byte block could not be taken from the %s pool: %s (%s); such blocks use "
		       "%s%s while the pool says no (said once)", n, pn, hp_tlb_stage_name(why->stage), strerror(why->err),
		       next ? nn : fallback_thp != HP_TLB_FALLBACK_BASE ? "THP" : "base pages", next ? " pages" : "");
}

static void *from_pool(size_t n, size_t align)
{
	/* more than the machine's memory: no pool can serve it, so it is not
	 * the pool's refusal (nor counted as one); the backend answers */
	if (n < pool_min || n > ram)
		return NULL;
	int saved = errno, big = big_page && n >= big_min;
	struct hp_tlb_fail why = { 0, 0 };
	void *p = NULL;
	if (big) {
		p = hp_blocks_alloc_page(n, align, big_page, &why);
		if (p && verbose && !atomic_load_explicit(&said_first_big, memory_order_relaxed))
			say(&said_first_big, n, big_page, NULL, 0);
		if (!p) {
			hp_tlb_refused(big_page, n);
			say(&said_big_refused, n, big_page, &why, small_page);
		}
	}
	if (!p && small_page) {
		p = hp_blocks_alloc_page(n, align, small_page, &why);
		if (p && verbose && !atomic_load_explicit(&said_first_block, memory_order_relaxed))
			say(&said_first_block, n, small_page, NULL, 0);
		if (!p) {
			hp_tlb_refused(small_page, n);
			if (!atomic_load_explicit(&said_fallback, memory_order_relaxed))
				say(&said_fallback, n, small_page, &why, 0);
		}
	}
	if (!p && (small_page || big))
		hp_tlb_fallback(HP_TLB_BLOCK, n);      /* a request no pool served */
	errno = saved;
	return p;
}

static void *tlb_malloc(size_t n)
{
	if (n < pool_min)
		return inner.malloc(n);
	void *p = from_pool(n, 0);
	return p ? p : fallback(n, inner.malloc(n));
}

/* the dispatch's entry for sizes above HP_SMALL_MAX: the same, to the
 * backend's own entry for them */
static void *tlb_malloc_large(size_t n)
{
	if (n < pool_min)
		return inner.malloc_large(n);
	void *p = from_pool(n, 0);
	return p ? p : fallback(n, inner.malloc_large(n));
}

static void *tlb_calloc(size_t c, size_t n)
{
	if (n && c > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = from_pool(c * n, 0);          /* hugetlb pages arrive zeroed */
	return p ? p : fallback(c * n, inner.calloc(c, n));
}

static void *tlb_memalign(size_t a, size_t n)
{
	if (n < pool_min)
		return inner.memalign(a, n);
	void *p = from_pool(n, a);
	return p ? p : fallback(n, inner.memalign(a, n));
}

static void tlb_free(void *p)
{
	if (hp_blocks_owns(p))
		hp_blocks_free(p);
	else
		inner.free(p);
}

static size_t tlb_usable(void *p)
{
	size_t n = hp_blocks_size(p);
	return n ? n : inner.usable_size(p);
}

static void *tlb_realloc(void *p, size_t n)
{
	size_t old = hp_blocks_size(p);
	if (p == NULL)
		return tlb_malloc(n);
	if (old == 0 && n < pool_min)
		return inner.realloc(p, n);
	/* shrinking inside the block, but not a big page below big_min */
	int big = old != 0 && big_page && n < big_min && hp_tlb_page_of(p) == big_page;
	if (old != 0 && n <= old && n >= pool_min && !big)
		return p;
	void *q = tlb_malloc(n);
	if (!q && big && n <= old)
		return p;                       /* no smaller block: it stays */
	if (!q)
		return NULL;                    /* p untouched, errno set */
	size_t keep = old ? old : inner.usable_size(p);
	memcpy(q, p, keep < n ? keep : n);
	tlb_free(p);
	return q;
}

void hp_tlb_large_init(const struct hp_alloc_ops *backend, const struct hp_plan *plan, size_t min_bytes,
		       int thp_fallback, struct hp_alloc_ops *out)
{
	inner = *backend;
	pool_min = min_bytes;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	ram = pages > 0 && psz > 0 && (unsigned long)pages <= SIZE_MAX / (unsigned long)psz ? (size_t)pages * (size_t)psz
										    : SIZE_MAX;
	fallback_thp = thp_fallback;
	verbose = plan->verbose;
	/* the plan's page sizes */
	if (plan->pages == HP_PAGES_HUGETLB) {
		small_page = (size_t)plan->hugetlb_page;
		big_page = (size_t)plan->hugetlb_big_page;
		big_min = (size_t)plan->hugetlb_big_min;
	}
	out->malloc = tlb_malloc;
	/* blocks that small never come from the pool: the backend's own entry */
	out->malloc_small = pool_min > HP_SMALL_MAX ? inner.malloc_small : tlb_malloc;
	out->malloc_large = tlb_malloc_large;
	out->free = tlb_free;
	out->calloc = tlb_calloc;
	out->realloc = tlb_realloc;
	out->memalign = tlb_memalign;
	out->usable_size = tlb_usable;
}
