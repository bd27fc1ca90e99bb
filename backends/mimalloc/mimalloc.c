/*
 * mimalloc.c - the mimalloc 2.0 backend, Debian's libmimalloc.so.2.
 *
 * Loaded only when selected, with dlopen(RTLD_LOCAL): its exported malloc
 * and __libc_* names stay out of the global scope (its TLS is 8 bytes, so a
 * late dlopen works).  Options are set through mi_option_set before the first
 * allocation routed to it; a user's MIMALLOC_* variable is left alone and
 * wins.  Option names are mimalloc's: large_os_pages ("use large (2MiB) OS
 * pages"); reservation from the 2 MiB pool through mi_manage_os_memory
 * (mimalloc.h).
 *
 * Invariants: mimalloc is configured from the plan and never decides: a
 * user's MIMALLOC_LARGE_OS_PAGES and whether hugepolicy reaches its mmap
 * are reported as facts for the next plan call, and large_os_pages, the
 * big-block layers and the reservation follow that plan.  Its segments
 * take hugetlb pages only under the user's large_os_pages; a block it
 * returns is always aligned as asked, and at least 16-aligned as glibc's.
 */
#define _GNU_SOURCE
#include "hp_mimalloc.h"
#include "hugepolicy.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <mimalloc.h>           /* option ids and types only: nothing is linked */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	MI_LARGE_OS_PAGES = mi_option_large_os_pages,
	MI_RESERVE_HUGE_OS_PAGES = mi_option_reserve_huge_os_pages,
	MI_EAGER_COMMIT = mi_option_eager_commit,
};

static struct {
	void (*option_set)(int, long);
	long (*option_get)(int);
	int (*version)(void);
	bool (*manage_os_memory)(void *start, size_t size, bool committed, bool large, bool zero, int node);
	void (*process_info)(size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *);
	void (*collect)(bool force);
	mi_heap_t *(*heap_get_default)(void);
	bool (*visit_blocks)(const mi_heap_t *heap, bool all, mi_block_visit_fun *visitor, void *arg);
	void (*stats_print_out)(mi_output_fun *out, void *arg);
} mi;

static void *(*mi_memalign_fn)(size_t, size_t);
static void (*mi_free_fn)(void *);
static void *(*mi_zalloc_aligned_fn)(size_t, size_t);

static int misaligned(const void *p, size_t align)
{
	return ((uintptr_t)p & (align - 1)) != 0;
}

/* glibc's alignment for the 8-byte class (hp_backend.h: hp_glibc_size) */
static void *(*mi_malloc_fn)(size_t), *(*mi_calloc_fn)(size_t, size_t), *(*mi_realloc_fn)(void *, size_t);

static void *malloc16(size_t n)
{
	return mi_malloc_fn(hp_glibc_size(n));
}

/* mi_malloc_small's contract: sizes up to MI_SMALL_SIZE_MAX */
_Static_assert(HP_SMALL_MAX <= MI_SMALL_SIZE_MAX, "malloc_small's sizes are mimalloc's small ones");

static void *calloc16(size_t n, size_t size)
{
	return hp_glibc_tiny(n, size) ? mi_calloc_fn(1, HP_GLIBC_MIN_BLOCK) : mi_calloc_fn(n, size);
}

static void *realloc16(void *p, size_t n)
{
	return mi_realloc_fn(p, hp_glibc_size(n));
}

/* mimalloc 2.0.9 returns misaligned blocks for some sizes that are an exact
 * multiple of an alignment of 256 B and up (rarely: e.g. mi_memalign(256,
 * 512), which is what `new` of an alignas(256) type asks for).  One byte more avoids its faulty fast path;
 * mi_zalloc_aligned is the last resort; never return a misaligned block. */
static void *memalign_checked(size_t align, size_t size)
{
	void *p = mi_memalign_fn(align, size);
	if (!p || !misaligned(p, align))
		return p;
	mi_free_fn(p);
	if (size < SIZE_MAX) {
		p = mi_memalign_fn(align, size + 1);
		if (!p || !misaligned(p, align))
			return p;
		mi_free_fn(p);
	}
	p = mi_zalloc_aligned_fn ? mi_zalloc_aligned_fn(size, align) : NULL;
	if (p && misaligned(p, align)) {
		mi_free_fn(p);
		p = NULL;
	}
	if (!p)
		errno = ENOMEM;
	return p;
}

static char reserve_note[200], user_reserve_note[240];
static const char *user_large;

/* HUGEPOLICY_RESERVE: take `bytes` from the 2 MiB hugetlb pool now, mapped
 * and populated by hugepolicy's page layer (so a short pool is ENOMEM here,
 * never a SIGBUS later), and give it to mimalloc as an arena of large pages
 * (mi_manage_os_memory).  mimalloc 2.0's own mi_reserve_huge_os_pages_* take
 * 1 GiB pages only, and mi_reserve_os_memory gets no hugetlb pages once its
 * OS layer started without large_os_pages. */
static int reserve(uint64_t bytes)
{
	struct hp_buf b = { reserve_note, sizeof reserve_note, 0 };
	size_t len = 0;
	if (!mi.manage_os_memory) {
		hp_buf_printf(&b, "reservation of %llu B: mi_manage_os_memory missing", (unsigned long long)bytes);
		return -1;
	}
	/* arenas hold whole segments and mimalloc finds a segment by masking a
	 * pointer: 32 MiB-aligned, whole 32 MiB blocks (MI_SEGMENT_SIZE, 2.0.x) */
	const size_t seg = (size_t)32 << 20;
	if (bytes < seg) {
		hp_buf_printf(&b, "reservation of %llu B is below mimalloc's 32 MiB segment: not made",
			      (unsigned long long)bytes);
		return -1;
	}
	struct hp_tlb_fail why = { 0, 0 };
	size_t whole = (size_t)(bytes & ~(uint64_t)(seg - 1));
	const char *rounded = whole != bytes ? " (HUGEPOLICY_RESERVE rounded down to whole 32 MiB segments)" : "";
	void *p = hp_pages_map_hugetlb(whole, seg, &len, &why);
	if (!p) {
		hp_tlb_fallback(HP_TLB_ARENA, whole);
		hp_buf_printf(&b, "reservation of %zu B%s from the 2 MiB pool failed: %s (%s)", whole, rounded,
			      hp_tlb_stage_name(why.stage), strerror(why.err));
		return -1;
	}
	if (!mi.manage_os_memory(p, len, true, true, true, -1)) {
		hp_pages_unmap(p, len);
		hp_buf_printf(&b, "mimalloc refused a %zu-byte arena", len);
		return -1;
	}
	hp_mimalloc_maps_add(p, len);
	if (hp_tlb_add(p, len, HP_TLB_ARENA) != 0)     /* fork must see it: table full is unlikely here */
		hp_say("hugetlb: the reservation arena is not recorded (table full); fork children may not copy it");
	hp_buf_printf(&b, "reserved %zu B from the 2 MiB pool as a mimalloc arena%s", len, rounded);
	return 0;
}
static struct hp_alloc_ops mi_ops, large_ops, tlb_ops;
static size_t tlb_min;            /* pages=hugetlb: blocks from the pool from this size */
static size_t large_threshold;    /* non-zero: THP on blocks >= it only */

#define SYM(h, name) dlsym(h, name)

static int pool_allowed;          /* mimalloc's MAP_HUGETLB mmaps go to the pool */
static int os_hooked = -1;        /* hp_mimalloc_os_install's result */
static void *mi_handle;           /* dlopen's */

static int hidden_reserve;         /* hp_mimalloc_reserve_hide's count */
static long large_in_force;       /* large_os_pages as mimalloc read it at start */

/* mimalloc's errors: a request above PTRDIFF_MAX (EOVERFLOW, which it
 * refuses without setting errno) and an exhausted heap are the C library's
 * ENOMEM - malloc() has no check of its own on the hot path (malloc.c).
 * The others (EFAULT, EINVAL: a bad free) keep mimalloc's release
 * behaviour: nothing. */
static void mi_error(int err, void *arg)
{
	(void)arg;
	if (err == EOVERFLOW || err == ENOMEM)
		errno = ENOMEM;
}

/* mimalloc loaded, its OS calls routed through the page layer; a user's
 * MIMALLOC_LARGE_OS_PAGES and what hugepolicy reaches of its mmap into
 * facts.  hugepolicy's hugetlb pages for mimalloc's segments only under
 * the user's large_os_pages (its meaning: hugetlb first): with them, a
 * forked child's malloc would need a pool page for mimalloc's metadata. */
static int mimalloc_start(const struct hp_plan *plan, struct hp_plan_facts *facts)
{
	struct hp_alloc_ops *ops = &mi_ops;
	hidden_reserve = hp_mimalloc_reserve_hide();    /* until mimalloc's mmap is ours */
	void *h = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
	hp_mimalloc_reserve_restore();
	if (!h)
		return ENOENT;
	mi_malloc_fn = (void *(*)(size_t))SYM(h, "mi_malloc");
	ops->free = (void (*)(void *))SYM(h, "mi_free");
	mi_calloc_fn = (void *(*)(size_t, size_t))SYM(h, "mi_calloc");
	mi_realloc_fn = (void *(*)(void *, size_t))SYM(h, "mi_realloc");
	ops->malloc = mi_malloc_fn ? malloc16 : NULL;
	ops->malloc_small = (void *(*)(size_t))SYM(h, "mi_malloc_small");
	ops->malloc_large = mi_malloc_fn;
	ops->calloc = mi_calloc_fn ? calloc16 : NULL;
	ops->realloc = mi_realloc_fn ? realloc16 : NULL;
	mi_memalign_fn = (void *(*)(size_t, size_t))SYM(h, "mi_memalign");
	mi_zalloc_aligned_fn = (void *(*)(size_t, size_t))SYM(h, "mi_zalloc_aligned");
	mi_free_fn = ops->free;
	ops->memalign = memalign_checked;
	ops->usable_size = (size_t (*)(void *))SYM(h, "mi_usable_size");
	mi.option_set = (void (*)(int, long))SYM(h, "mi_option_set");
	mi.option_get = (long (*)(int))SYM(h, "mi_option_get");
	mi.version = (int (*)(void))SYM(h, "mi_version");
	mi.manage_os_memory = (bool (*)(void *, size_t, bool, bool, bool, int))SYM(h, "mi_manage_os_memory");
	mi.process_info = (void (*)(size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *))
		SYM(h, "mi_process_info");
	mi.collect = (void (*)(bool))SYM(h, "mi_collect");
	mi.heap_get_default = (mi_heap_t * (*)(void)) SYM(h, "mi_heap_get_default");
	mi.visit_blocks = (bool (*)(const mi_heap_t *, bool, mi_block_visit_fun *, void *))SYM(h, "mi_heap_visit_blocks");
	mi.stats_print_out = (void (*)(mi_output_fun *, void *))SYM(h, "mi_stats_print_out");
	void (*register_error)(void (*)(int, void *), void *) =
		(void (*)(void (*)(int, void *), void *))SYM(h, "mi_register_error");
	if (!ops->malloc || !ops->malloc_small || !ops->free || !ops->calloc || !ops->realloc || !mi_memalign_fn ||
	    !ops->usable_size || !mi.option_set || !mi.option_get || !mi.version || !register_error)
		return ENOENT;                  /* the handle stays: its code may already be in use */
	register_error(mi_error, NULL);
	mi_handle = h;

	user_large = plan->user_mi_large;
	int ignored;
	char *end = NULL;
	if (user_large && hp_parse_bool(user_large, &ignored) != 0 &&
	    (strtol(user_large, &end, 10), end == user_large || *end != '\0')) {
		char shown[64 + 8] = "";        /* the value cut and escaped, the sentence whole */
		hp_buf_escaped(&(struct hp_buf){ shown, sizeof shown, 0 }, user_large, 64);
		hp_say("MIMALLOC_LARGE_OS_PAGES='%s' is not a value mimalloc knows (a number, on/off, "
		       "yes/no, true/false); mimalloc reads it as large_os_pages=%ld", shown,
		       mi.option_get(MI_LARGE_OS_PAGES));
	}
	large_in_force = mi.option_get(MI_LARGE_OS_PAGES);
	if (user_large) {
		facts->heap = large_in_force ? HP_HEAP_USER_POOL : HP_HEAP_USER_OFF;
		snprintf(facts->heap_value, sizeof facts->heap_value, "%ld", large_in_force);
	}
	pool_allowed = user_large && large_in_force;
	os_hooked = hp_mimalloc_os_install(h, pool_allowed, plan->verbose);
	facts->mmap_hook = os_hooked;
	return 0;
}

static int mimalloc_init(const struct hp_plan *plan, const struct hp_alloc_ops **out)
{
	*out = &mi_ops;
	hp_mimalloc_os_nohuge(plan->thp_small_nohuge);
	int large_scope = plan->pages == HP_PAGES_THP && plan->thp_scope == HP_THP_LARGE;
	if (os_hooked != 0 && os_hooked != EAGAIN && pool_allowed) {
		pool_allowed = 0;
		hp_say("MIMALLOC_LARGE_OS_PAGES: hugepolicy cannot reach mimalloc's mmap (%s): its "
		       "hugetlb pages are not populated and may SIGBUS under a cgroup limit", strerror(os_hooked));
	}
	/* large_os_pages for whole-heap THP only: hugepolicy refuses its
	 * hugetlb mmaps (mimalloc_os.c), so that it means THP */
	if (!user_large)
		mi.option_set(MI_LARGE_OS_PAGES, plan->pages == HP_PAGES_THP && plan->thp_scope == HP_THP_ALL);
	if (hidden_reserve)
		hp_mimalloc_reserve_replay(mi_handle, &(struct hp_buf){ user_reserve_note, sizeof user_reserve_note, 0 });
	/* mi_calloc zeroes every block, fresh from the kernel or not: advised
	 * first; freed big blocks' pages go to small ones: advice withdrawn */
	static const struct hp_thp_large_traits mi_traits = { .calloc_touches = 1, .withdraw_on_free = 1,
							       .align_big = 1 };
	if (plan->pages == HP_PAGES_HUGETLB && !pool_allowed) {
		const struct hp_alloc_ops *under = &mi_ops;
		if (plan->thp_available) {
			hp_thp_large_init(&mi_ops, &mi_traits, (size_t)plan->hugetlb_min, plan->verbose, &large_ops);
			under = hp_thp_large_with_free();       /* the pool layer copies it */
		}
		tlb_min = (size_t)plan->hugetlb_min;
		hp_tlb_large_init(under, plan, tlb_min, under != &mi_ops ? HP_TLB_FALLBACK_BELOW : HP_TLB_FALLBACK_BASE,
				  &tlb_ops);
		*out = &tlb_ops;
	} else if (large_scope) {
		large_threshold = (size_t)plan->threshold;
		hp_thp_large_init(&mi_ops, &mi_traits, large_threshold, plan->verbose, &large_ops);
		*out = &large_ops;
	}

	reserve_note[0] = '\0';
	if (plan->reserve > 0 && !plan->user_mi_reserve) {
		int rc = -1;
		if (plan->pages == HP_PAGES_HUGETLB)
			rc = reserve(plan->reserve);
		else
			hp_buf_printf(&(struct hp_buf){ reserve_note, sizeof reserve_note, 0 },
				      "HUGEPOLICY_RESERVE ignored: it needs pages=hugetlb, and pages=%s",
				      hp_pages_name(plan->pages));
		if (rc != 0 || plan->verbose)
			hp_say("%s", reserve_note);     /* a refusal is said without VERBOSE too */
	}
	return 0;
}

static void mimalloc_settings(struct hp_backend_settings *s)
{
	int v = mi.version ? mi.version() : 0;
	s->have |= HP_BS_MIMALLOC;
	snprintf(s->version, sizeof s->version, "%d.%d.%d", v / 100, (v / 10) % 10, v % 10);
	s->mi_large_os_pages = mi.option_get ? mi.option_get(MI_LARGE_OS_PAGES) : -1L;
	s->mi_reserve_huge_os_pages = mi.option_get ? mi.option_get(MI_RESERVE_HUGE_OS_PAGES) : -1L;
	s->mi_eager_commit = mi.option_get ? mi.option_get(MI_EAGER_COMMIT) : -1L;
	if (user_large) {
		s->have |= HP_BS_USER;
		hp_buf_escaped(&(struct hp_buf){ s->user, sizeof s->user, 0 }, user_large, 64);
		s->user_wins = 1;
	}
	if (reserve_note[0]) {
		s->have |= HP_BS_RESERVE;
		hp_strlcpy(s->reserve, reserve_note, sizeof s->reserve);
	}
	if (user_reserve_note[0]) {
		s->have |= HP_BS_USER_RESERVE;
		hp_strlcpy(s->user_reserve, user_reserve_note, sizeof s->user_reserve);
	}
}

static void mimalloc_describe(char *buf, size_t cap)
{
	struct hp_buf b = { buf, cap, 0 };
	struct hp_backend_settings s;
	memset(&s, 0, sizeof s);
	mimalloc_settings(&s);
	hp_buf_printf(&b, "mimalloc %s large_os_pages=%lld reserve_huge_os_pages=%lld eager_commit=%lld", s.version,
		      (long long)s.mi_large_os_pages, (long long)s.mi_reserve_huge_os_pages, (long long)s.mi_eager_commit);
	if (s.have & HP_BS_USER)
		hp_buf_printf(&b, " (MIMALLOC_LARGE_OS_PAGES='%s' wins)", s.user);
	if (large_threshold) {
		hp_buf_printf(&b, ", MADV_HUGEPAGE on blocks >= %zu B", large_threshold);
		hp_promote_describe(&b);
	}
	if (tlb_min)
		hp_buf_printf(&b, ", blocks >= %zu B from the 2 MiB hugetlb pool", tlb_min);
	if (s.have & HP_BS_RESERVE)
		hp_buf_printf(&b, "; %s", s.reserve);
	if (s.have & HP_BS_USER_RESERVE)
		hp_buf_printf(&b, "; %s", s.user_reserve);
}

/* mimalloc's committed bytes (mi_process_info; 0 if it is missing) */
static size_t committed(void)
{
	size_t elapsed, user, sys, rss, peak_rss, commit = 0, peak_commit, faults;
	if (mi.process_info)
		mi.process_info(&elapsed, &user, &sys, &rss, &peak_rss, &commit, &peak_commit, &faults);
	return commit;
}

/* mapped: mimalloc's committed bytes; resident: mincore over the ranges
 * it holds (mimalloc_maps.c: its mi_process_info "rss" is the committed
 * count again on Linux); retained: those ranges' bytes it has not
 * committed (decommitted, kept as address space).  allocated, active and
 * metadata stay unknown: Debian's build (MI_STAT 0) counts no block bytes,
 * no pages in use and no metadata bytes, and its per-page counts
 * (mi_heap_visit_blocks) reach the calling thread's heap only - mimalloc
 * 2.0 keeps one heap per thread and no list of them (hugepolicy(3)). */
static void mimalloc_stats(struct hugepolicy_stats *st)
{
	if (!mi.process_info)
		return;
	size_t commit = committed();
	st->mapped = commit;
	uint64_t resident, held;
	if (os_hooked != 0 || hp_mimalloc_maps_read(&resident, &held) != 0)
		return;                 /* its mappings are not all known */
	st->resident = resident;
	st->retained = held > commit ? held - commit : 0;
}

/* mi_collect(true): its free pages and segments go back, those freed by
 * other threads still running too; pad has no meaning.  1 when mimalloc's committed bytes fell. */
static int mimalloc_trim(size_t pad)
{
	(void)pad;
	if (!mi.collect)
		return 0;
	size_t before = committed();
	mi.collect(true);
	return committed() < before;
}

static bool count_area(const mi_heap_t *heap, const mi_heap_area_t *area, void *block, size_t size, void *arg)
{
	(void)heap, (void)block, (void)size;
	*(size_t *)arg += area->used * area->block_size;
	return true;
}

/* uordblks: the blocks in use in the calling thread's heap - mimalloc 2.0
 * keeps one heap per thread and no list of them, and Debian's build
 * (MI_STAT 0) counts no block bytes; its pages are visited, not its
 * blocks (mi_heap_visit_blocks without them: ~30 us for 100 MiB in 1 KiB
 * blocks).  arena: its committed bytes, which hold every thread's heap. */
static void mimalloc_info(struct mallinfo2 *mi_out)
{
	size_t used = 0;
	if (mi.heap_get_default && mi.visit_blocks)
		mi.visit_blocks(mi.heap_get_default(), false, count_area, &used);
	mi_out->uordblks = used;
	mi_out->arena = committed();
	mi_out->fordblks = mi_out->arena > used ? mi_out->arena - used : 0;
}

static void write_to(const char *s, void *fp)
{
	fputs(s, fp);
}

/* glibc's totals, then mimalloc's own table (mi_stats_print_out) */
static void mimalloc_print(FILE *fp)
{
	hp_malloc_stats_totals(fp);
	if (mi.stats_print_out)
		mi.stats_print_out(write_to, fp);
}

const struct hp_backend hp_backend_mimalloc = {
	.name = "mimalloc",
	.start = mimalloc_start,
	.init = mimalloc_init,
	.describe = mimalloc_describe,
	.settings = mimalloc_settings,
	.stats = mimalloc_stats,
	.trim = mimalloc_trim,
	.info = mimalloc_info,
	.print = mimalloc_print,
};
