/*
 * jemalloc_hugetlb.c - jemalloc's own heap (slabs, small and large extents,
 * metadata) on the 2 MiB hugetlb pool, through its extent hooks.
 *
 * Every automatic arena is created at start-up and given these hooks
 * (jemalloc(3) arena.<i>.extent_hooks).  An extent of 2 MiB or more is
 * mapped from the pool and populated (a refused charge is an error now,
 * never a SIGBUS later) and recorded for fork (HP_TLB_ARENA); where the pool
 * or a cgroup says no it is ordinary memory (hp_tlb_fallback).  Arena 0's
 * start-up memory and its first whole-page step are ordinary memory (set
 * aside at install): a process takes a pool page only once its heap
 * outgrows them.  With
 * opt.retain jemalloc grows in geometric steps (2, 2.5, 3, 3.5, 4, 5 MiB...)
 * that are mostly not whole huge pages, each populated at once here:
 * arena.<i>.retain_grow_limit = 2 MiB makes every step one page.
 * Hugetlb extents are never purged, decommitted or unmapped (the hooks
 * refuse; jemalloc keeps them, populated, as retained memory).  Ordinary
 * extents get what jemalloc's pages.c does on Linux.  Merge never joins
 * the two kinds.  Hugetlb mappings fill whole 2 MiB frames and an extent is
 * of one kind, so a bitmap of frames answers from its first byte, lock-free.
 */
#define _GNU_SOURCE
#include "hp_jemalloc.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* the hooks have jemalloc's signatures; most use few of the arguments */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* jemalloc 5.3's extent_hooks_t (jemalloc(3); /usr/include/jemalloc/jemalloc.h),
 * declared here: that header would declare the unrenamed malloc family */
struct je_hooks {
	void *(*alloc)(struct je_hooks *, void *, size_t, size_t, bool *, bool *, unsigned);
	bool (*dalloc)(struct je_hooks *, void *, size_t, bool, unsigned);
	void (*destroy)(struct je_hooks *, void *, size_t, bool, unsigned);
	bool (*commit)(struct je_hooks *, void *, size_t, size_t, size_t, unsigned);
	bool (*decommit)(struct je_hooks *, void *, size_t, size_t, size_t, unsigned);
	bool (*purge_lazy)(struct je_hooks *, void *, size_t, size_t, size_t, unsigned);
	bool (*purge_forced)(struct je_hooks *, void *, size_t, size_t, size_t, unsigned);
	bool (*split)(struct je_hooks *, void *, size_t, size_t, size_t, bool, unsigned);
	bool (*merge)(struct je_hooks *, void *, size_t, void *, size_t, bool, unsigned);
};

#define FRAME_SHIFT 21                  /* 2 MiB */
#define LEAF_SHIFT 36                   /* 64 GiB per 4 KiB leaf of bits */
#define LEAVES (1u << (47 - LEAF_SHIFT))
#define LEAF_WORDS ((1u << (LEAF_SHIFT - FRAME_SHIFT)) / 64)

static _Atomic(atomic_uint_least64_t *) leaves[LEAVES];
static int overcommits = 1, retain = 1, thp_never, verbose;
static size_t page = 4096;
static unsigned narenas;
static atomic_size_t rounding, small_count, said;
static atomic_int setting_aside, whole_steps;   /* set-aside running; whole-page steps in it */
static size_t set_aside;

static int is_tlb(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	atomic_uint_least64_t *leaf =
		(a >> LEAF_SHIFT) < LEAVES ? atomic_load_explicit(&leaves[a >> LEAF_SHIFT], memory_order_acquire) : NULL;
	size_t bit = (a >> FRAME_SHIFT) & (LEAF_WORDS * 64 - 1);
	return leaf && ((atomic_load_explicit(&leaf[bit / 64], memory_order_acquire) >> (bit % 64)) & 1);
}

/* The frames of [p, p+len) are hugetlb from now on; -1 if not recordable. */
static int mark(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, end = a + len;
	if ((end - 1) >> LEAF_SHIFT >= LEAVES)
		return -1;
	for (uintptr_t i = a >> LEAF_SHIFT; i <= (end - 1) >> LEAF_SHIFT; i++) {
		if (atomic_load(&leaves[i]))
			continue;
		void *m = mmap(NULL, LEAF_WORDS * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -1;
		atomic_uint_least64_t *none = NULL;
		if (!atomic_compare_exchange_strong(&leaves[i], &none, m))
			munmap(m, LEAF_WORDS * 8);      /* another thread's leaf won */
	}
	for (uintptr_t f = a >> FRAME_SHIFT; f < end >> FRAME_SHIFT; f++) {
		atomic_uint_least64_t *leaf = atomic_load(&leaves[(f << FRAME_SHIFT) >> LEAF_SHIFT]);
		size_t bit = f & (LEAF_WORDS * 64 - 1);
		atomic_fetch_or_explicit(&leaf[bit / 64], (uint64_t)1 << (bit % 64), memory_order_release);
	}
	return 0;
}

/* pages.c's pages_map: anonymous memory, aligned by trimming a larger map */
static void *os_map(void *addr, size_t size, size_t align, bool *commit)
{
	*commit = *commit || overcommits;
	int prot = *commit ? PROT_READ | PROT_WRITE : PROT_NONE;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (overcommits ? MAP_NORESERVE : 0);
	unsigned char *p = mmap(addr, size, prot, flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if ((addr && (void *)p != addr) || ((uintptr_t)p & (align - 1)) != 0) {
		munmap(p, size);
		if (addr || size > SIZE_MAX - align)
			return NULL;
		size_t n = size + align - page;
		unsigned char *r = mmap(NULL, n, prot, flags, -1, 0);
		if (r == MAP_FAILED)
			return NULL;
		p = (unsigned char *)(((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1));
		if (p > r)
			munmap(r, (size_t)(p - r));
		if (r + n > p + size)
			munmap(p + size, (size_t)(r + n - (p + size)));
	}
	if (thp_never)
		madvise(p, size, MADV_NOHUGEPAGE);      /* pages_set_thp_state, opt.thp=never */
	return p;
}

static void *tlb_map(size_t size, size_t align)
{
	size_t mapped = 0;
	struct hp_tlb_fail why = { 0, 0 };
	void *p = hp_pages_map_hugetlb(size, align, &mapped, &why);
	/* recorded for fork, then marked (no leaf, or an address above 47 bits) */
	int rec = p ? hp_tlb_add(p, mapped, HP_TLB_ARENA) : -1;
	if (p && (rec != 0 || mark(p, mapped) != 0)) {
		if (rec == 0)
			hp_tlb_remove(p);
		hp_pages_unmap(p, mapped);
		why = (struct hp_tlb_fail){ HP_TLB_FAIL_TABLE, ENOMEM };
		p = NULL;
	}
	if (p) {
		atomic_fetch_add(&rounding, mapped - size);     /* 0 for whole pages */
		return p;
	}
	hp_tlb_fallback(HP_TLB_ARENA, size);
	hp_tlb_refused(HP_HUGE_2M, size);
	if (verbose && atomic_fetch_add(&said, 1) == 0)
		hp_say("jemalloc arena extent of %zu B not from the 2 MiB pool: %s (%s); ordinary pages "
		       "(said once)", size, hp_tlb_stage_name(why.stage), strerror(why.err));
	return NULL;
}

static void *h_alloc(struct je_hooks *h, void *addr, size_t size, size_t align, bool *zero, bool *commit,
		     unsigned ind)
{
	align = align < page ? page : align;
	void *p = NULL;
	int aside = atomic_load(&setting_aside);
	if (aside && (size & (HP_HUGE_2M - 1)) == 0)
		atomic_fetch_add(&whole_steps, 1);
	if (!addr && size >= HP_HUGE_2M && !aside && (p = tlb_map(size, align)) != NULL) {
		*commit = true;                 /* populated */
	} else {
		if (!addr && size < HP_HUGE_2M && !atomic_load(&setting_aside))
			atomic_fetch_add(&small_count, 1);
		p = os_map(addr, size, align, commit);
	}
	if (p && *commit)
		*zero = true;                   /* fresh anonymous memory */
	return p;
}

static bool h_dalloc(struct je_hooks *h, void *addr, size_t size, bool committed, unsigned ind)
{
	if (retain || is_tlb(addr))
		return true;                    /* kept as retained memory */
	return munmap(addr, size) != 0;
}

static void h_destroy(struct je_hooks *h, void *addr, size_t size, bool committed, unsigned ind)
{
	if (!is_tlb(addr))                      /* automatic arenas are never destroyed */
		munmap(addr, size);
}

/* pages.c's pages_commit_impl: refused when the kernel overcommits */
static bool remap(void *addr, size_t off, size_t len, int prot)
{
	void *p = (unsigned char *)addr + off;
	return overcommits || mmap(p, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != p;
}

/* a hugetlb extent is never decommitted, so it is committed */
static bool h_commit(struct je_hooks *h, void *addr, size_t size, size_t off, size_t len, unsigned ind)
{
	return !is_tlb(addr) && remap(addr, off, len, PROT_READ | PROT_WRITE);
}

static bool h_decommit(struct je_hooks *h, void *addr, size_t size, size_t off, size_t len, unsigned ind)
{
	return is_tlb(addr) || remap(addr, off, len, PROT_NONE);
}

/* the pool pages of a hugetlb extent stay */
static bool h_purge_lazy(struct je_hooks *h, void *addr, size_t size, size_t off, size_t len, unsigned ind)
{
	return is_tlb(addr) || madvise((unsigned char *)addr + off, len, MADV_FREE) != 0;
}

static bool h_purge_forced(struct je_hooks *h, void *addr, size_t size, size_t off, size_t len, unsigned ind)
{
	return is_tlb(addr) || madvise((unsigned char *)addr + off, len, MADV_DONTNEED) != 0;
}

static bool h_split(struct je_hooks *h, void *addr, size_t size, size_t a, size_t b, bool committed, unsigned ind)
{
	return false;
}

static bool h_merge(struct je_hooks *h, void *a, size_t sa, void *b, size_t sb, bool committed, unsigned ind)
{
	return is_tlb(a) != is_tlb(b);
}

static struct je_hooks hooks = {
	h_alloc, h_dalloc, h_destroy, h_commit, h_decommit, h_purge_lazy, h_purge_forced, h_split, h_merge,
};

/* the set-aside ends at a block from memory the hooks mapped */
static int past_start(const void *p)
{
	return is_tlb(p) || atomic_load(&whole_steps) > 0;
}

int hp_jemalloc_hugetlb_install(int verbose_)
{
	verbose = verbose_;
	long ps = sysconf(_SC_PAGESIZE);
	page = ps > 0 ? (size_t)ps : page;
	char buf[8];
	/* pages.c's os_overcommits_proc: modes 0 and 1 overcommit */
	if (hp_read_small("/proc/sys/vm/overcommit_memory", buf, sizeof buf) > 0)
		overcommits = buf[0] == '0' || buf[0] == '1';
	bool rb = true;
	size_t len = sizeof rb;
	retain = hpje_mallctl("opt.retain", &rb, &len, NULL, 0) != 0 || rb;
	const char *thp = NULL;
	len = sizeof thp;
	thp_never = hpje_mallctl("opt.thp", &thp, &len, NULL, 0) == 0 && thp && strcmp(thp, "never") == 0;
	narenas = hp_jemalloc_arenas_create(NULL);   /* described here */
	struct je_hooks *hp = &hooks;
	size_t limit = HP_HUGE_2M;
	unsigned hooked = 0;
	for (unsigned i = 0; i < narenas; i++) {
		char name[48];
		snprintf(name, sizeof name, "arena.%u.extent_hooks", i);
		if (hpje_mallctl(name, NULL, NULL, &hp, sizeof hp) != 0)
			continue;
		hooked++;
		snprintf(name, sizeof name, "arena.%u.retain_grow_limit", i);
		hpje_mallctl(name, NULL, NULL, &limit, sizeof limit);
	}
	if (!hooked)
		return ENOSYS;
	/* arena 0's start-up memory set aside up to its first whole-page step,
	 * all of it ordinary memory: a pool page is taken only when the heap
	 * outgrows that step (a wrapper such as timeout or a shell takes none),
	 * and no pool page is half used by the start-up series (2.5 MiB: it
	 * had gone past 2 MiB before the limit) */
	atomic_store(&setting_aside, 1);
	if (retain)             /* without opt.retain nothing is a whole page */
		set_aside = hp_jemalloc_arena0_set_aside(past_start);
	atomic_store(&setting_aside, 0);
	return 0;
}

void hp_jemalloc_hugetlb_settings(struct hp_backend_settings *s)
{
	if (!narenas)
		return;
	unsigned back = 0;
	size_t limit = 0;
	for (unsigned i = 0; i < narenas; i++) {
		char name[48];
		struct je_hooks *h = NULL;
		size_t len = sizeof h;
		snprintf(name, sizeof name, "arena.%u.extent_hooks", i);
		back += hpje_mallctl(name, &h, &len, NULL, 0) == 0 && h == &hooks;
	}
	size_t len = sizeof limit;
	hpje_mallctl("arena.0.retain_grow_limit", &limit, &len, NULL, 0);
	struct hp_tlb_counts c;
	hp_tlb_counts(HP_TLB_ARENA, &c);
	s->have |= HP_BS_ARENA_POOL;
	s->pool_blocks = c.pool_maps;
	s->pool_bytes = c.pool_bytes;
	s->pool_fallbacks = c.fallbacks;
	s->pool_fallback_bytes = c.fallback_bytes;
	s->pool_arenas = narenas;
	s->pool_hooked = back;
	s->pool_retain_grow_limit = limit;
	s->pool_rounded_bytes = atomic_load(&rounding);
	s->pool_set_aside_bytes = set_aside;
	s->pool_small_extents = atomic_load(&small_count);
	s->pool_retain = retain;
}
