/*
 * hp_pages.h - the page layer: everything that maps, advises, populates,
 * tracks or forks memory for the backends (backends/) and the region API
 * (region/).
 *
 * Invariants:
 * - hugetlb memory is mapped without MAP_NORESERVE and populated with
 *   MADV_POPULATE_WRITE before anything touches it (by hugetlb_pages.c,
 *   or by the caller of hp_pages_reserve_hugetlb), so an empty pool or a
 *   cgroup limit is an errno now, never a SIGBUS later;
 * - the hugetlb mappings children inherit are recorded in one table
 *   (hugetlb_map.c), which fork (hugetlb_fork.c) walks so that a forked
 *   child owns its copy before fork returns;
 * - THP advice goes on before first touch, and only on the ranges the
 *   caller gives (big blocks, a promoted heap); nothing here changes the
 *   plan's decisions (const struct hp_plan), it carries them out;
 * - nothing here allocates through malloc for its own use (the wrappers in
 *   front of a backend call the backend's ops): it runs inside malloc and
 *   before the backend exists.
 * Layering: uses policy/ only; backends/ and region/ use it; the layers
 * above hand down what it needs from them (hp_thp_large_set_swap).
 */
#ifndef HP_PAGES_H
#define HP_PAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../policy/hp_policy.h"

#pragma GCC visibility push(hidden)

/* The dispatch's size ranges (integration/hp_dispatch.h): malloc_small
 * serves sizes HP_SMALL_MIN..HP_SMALL_MAX (from the end of the 8-byte class,
 * hp_backend.h, up to mimalloc's MI_SMALL_SIZE_MAX), malloc_large the
 * sizes above. */
enum { HP_SMALL_MIN = 9, HP_SMALL_MAX = 128 * sizeof(void *) };

/* An allocator's plain entry points: a backend's, or a wrapper in front of
 * one (thp_large.c, hugetlb_large.c); the malloc-family dispatch calls
 * them directly.  malloc takes any size and keeps glibc's alignment (every
 * block 16-aligned, hp_backend.h) itself: what the wrappers and the bootstrap
 * ops call.  malloc_small and malloc_large are malloc for their ranges only,
 * the backend's fastest entries there, for the dispatch's two jumps
 * (mimalloc's malloc_small is mi_malloc_small, which skips mi_malloc's
 * size test); a wrapper passes its inner ones through where it never acts
 * on blocks of that range. */
struct hp_alloc_ops {
	void *(*malloc)(size_t size);
	void *(*malloc_small)(size_t size);     /* HP_SMALL_MIN <= size <= HP_SMALL_MAX */
	void *(*malloc_large)(size_t size);     /* size > HP_SMALL_MAX */
	void (*free)(void *p);
	void *(*calloc)(size_t n, size_t size);
	void *(*realloc)(void *p, size_t size);
	void *(*memalign)(size_t align, size_t size);   /* align: power of two */
	size_t (*usable_size)(void *p);
};


/* ---- OS page layer (pages.c) ---- */

/* madvise(MADV_HUGEPAGE) on the base pages of [p, p+len) (the whole range,
 * so a block that is its own mapping stays one VMA and mremap-able).
 * Returns the bytes that can become huge pages: its 2 MiB-aligned interior
 * (0 if no whole huge page fits, or madvise failed). */
size_t hp_pages_advise_thp(void *p, size_t len);
/* madvise(MADV_HUGEPAGE) on exactly [p, p+len) (page-aligned): 0 or errno */
int hp_pages_advise_thp_range(void *p, size_t len);
/* MADV_NOHUGEPAGE on the range hp_pages_advise_thp advised: a freed
 * block's advice taken back. */
void hp_pages_unadvise_thp(void *p, size_t len);

/* ---- hugetlb mappings that cannot SIGBUS later (hugetlb_pages.c) ---- */
/* Why a hugetlb mapping was not made: the stage that refused, and errno. */
enum { HP_TLB_FAIL_MMAP = 1, HP_TLB_FAIL_POPULATE, HP_TLB_FAIL_ALIGN, HP_TLB_FAIL_TABLE, HP_TLB_FAIL_KEPT };
struct hp_tlb_fail { int stage, err; };
const char *hp_tlb_stage_name(int stage);          /* "the pool has no room (Free-Rsvd)" ... */
/* Map len bytes (rounded up to the page size that `flags`' MAP_HUGE_* bits
 * name, 2 MiB by default) from the hugetlb pool at `hint` (MAP_FIXED in
 * flags: exactly there) and populate them with MADV_POPULATE_WRITE, so an
 * empty pool or a cgroup limit is an error now, not a SIGBUS later; never
 * MAP_NORESERVE.  NULL with errno and *why filled when refused. */
void *hp_pages_map_hugetlb_at(void *hint, size_t len, int flags, size_t *mapped_len, struct hp_tlb_fail *why);
/* Its first step alone, for a caller that populates the mapping itself
 * before anything touches it (region/: its NUMA policy and a parallel
 * MADV_POPULATE_WRITE come between): n bytes (whole pages of the size
 * `flags`' MAP_HUGE_* bits name, 2 MiB by default) from the pool, reserved
 * at mmap (never MAP_NORESERVE), unpopulated.  NULL with errno. */
void *hp_pages_reserve_hugetlb(void *hint, size_t n, int flags);
/* The same from the 2 MiB pool anywhere, aligned to `align` (a power of
 * two; above 2 MiB placed inside PROT_NONE address space). */
void *hp_pages_map_hugetlb(size_t len, size_t align, size_t *mapped_len, struct hp_tlb_fail *why);
/* The same from the pool of page_size (a power of two: 2 MiB, 1 GiB ...):
 * len rounded up to whole pages, aligned to max(align, page_size). */
void *hp_pages_map_hugetlb_size(size_t len, size_t align, size_t page_size, size_t *mapped_len,
				struct hp_tlb_fail *why);
void hp_pages_unmap(void *p, size_t len);
/* After a fork that left hugetlb pages shared copy-on-write (on = 1, in
 * parent and child: hugetlb_fork.c), a new hugetlb mapping takes pool pages
 * only where the pool keeps room for a copy of every page this process
 * still shares (smaps Shared_Hugetlb), else it is refused with
 * HP_TLB_FAIL_KEPT; the rule ends by itself once nothing is shared. */
void hp_fork_cow_keep(int on);
int hp_fork_cow_keeping(void);                  /* the rule is on (it may be stale: conservative) */
int hp_fork_cow_kept(size_t n, int flags);      /* 1: refuse n more bytes (flags: MAP_HUGE_*) */
/* The pool's free pages of page_size less the reserved ones (surplus pages
 * not counted), read from sysfs; 0 when unreadable. */
uint64_t hp_pages_pool_free(size_t page_size);
/* smaps_rollup's Private_Hugetlb + Shared_Hugetlb and Shared_Hugetlb,
 * bytes (0, or -1 unreadable); takes the hp_tlb lock, no big stack frame. */
int hp_pages_smaps_hugetlb(uint64_t *all, uint64_t *shared);
/* hugetlb mappings being made now (reserved, not yet populated): a fork
 * that sees any copies; region_linux.c counts its own in and out. */
int hp_pages_hugetlb_inflight(void);
void hp_pages_hugetlb_making(int delta);
/* bytes of the pages of [p, p+len) resident now, by mincore() in steps of 16 MiB (a
 * range that is gone counts nothing); errno may change */
uint64_t hp_pages_resident(const void *p, size_t len);
/* len bytes of anonymous read+write memory at hint if that range is free
 * (never over another mapping: a hint, not MAP_FIXED), accepted only if it
 * lies wholly below end; else NULL.  MADV_NOHUGEPAGE: for small data, never
 * faulted as one (m)THP folio.  errno unchanged. */
void *hp_pages_map_anon_below(uintptr_t hint, size_t len, uintptr_t end);
/* len bytes of anonymous memory, 2 MiB-aligned, MADV_HUGEPAGE if thp; NULL
 * if refused (a fork child's copy of a hugetlb mapping). */
void *hp_pages_map_anon_aligned(size_t len, int thp);

/* Process numbers from /proc/self/smaps_rollup: Rss, AnonHugePages,
 * Private_Hugetlb + Shared_Hugetlb (bytes).  0 on success, errno else. */
struct hp_rollup { uint64_t rss, anon_huge, hugetlb, shared_hugetlb; };
int hp_pages_smaps(struct hp_rollup *out);

/* ---- THP for blocks >= threshold, in front of any backend (thp_large.c) ---- */
/* What the wrapper must know about the backend to advise before first touch. */
struct hp_thp_large_traits {
	int calloc_touches;          /* calloc writes every block (mimalloc 2.0) */
	int withdraw_on_free;        /* the backend reuses a freed big block's pages for
				      * small blocks (mimalloc 2.0): free takes the advice
				      * back (MADV_NOHUGEPAGE), or khugepaged would make
				      * those sparse pages huge again */
	int realloc_keeps_advice;    /* growing a block >= threshold keeps its advised
				      * pages (glibc: mremap of an mmapped chunk) */
	int (*grow_in_place)(void *p, size_t n);   /* 1: p now holds n bytes; NULL: none */
	void (*after_big)(size_t n); /* after each advised big block of n bytes, before the caller
				      * touches it (jemalloc: its decay runs) */
	int align_big;               /* big blocks start on a 2 MiB boundary (mimalloc; not
				      * jemalloc, whose arena then keeps freed runs it cannot
				      * reuse aligned, nor glibc, whose chunk layout programs
				      * rely on: glibc's tst-free-errno) */
	void (*freed_big)(size_t n); /* a big block of n usable bytes was freed, or moved by
				      * realloc (jemalloc: counts the runs it keeps); NULL: none */
	int (*mid_fresh)(const void *p); /* 1: the block below the threshold is fresh from the OS
				      * (glibc: a chunk it mmapped): mTHP advice (thp_mid.c) on
				      * it; NULL: the backend gives that advice at its mmap */
};
/* Fill *out with `backend`'s ops wrapped so that malloc, calloc, realloc and
 * memalign results of at least min_bytes get MADV_HUGEPAGE before their first
 * touch; free and usable_size stay the backend's.  Call once at start-up. */
void hp_thp_large_init(const struct hp_alloc_ops *backend, const struct hp_thp_large_traits *t,
		       size_t min_bytes, int verbose, struct hp_alloc_ops *out);
/* advised_set.c: the big blocks whose free thp_large.c watches */
int hp_advised_set_put(void *p, size_t len);    /* 1: tracked now, not before */
/* bytes resident (mincore) in the tracked blocks now; errno may change */
uint64_t hp_advised_set_resident(void);
int hp_advised_set_maybe(const void *p);    /* 0: surely not in the set */
int hp_advised_set_forget(void *p);         /* 1: it was (now forgotten) */
void hp_advised_set_child_unlock(void);     /* pthread_atfork child */
/* withdraw_on_free: the same ops with a free that takes a big block's
 * advice back, for a layer that copies them (hugetlb_large.c in front);
 * the dispatcher gets them by its swap at the first advice. */
const struct hp_alloc_ops *hp_thp_large_with_free(void);
/* The dispatcher's swap, given once at start-up before any backend starts
 * (integration/init.c): from then on it calls `to` instead of `from`
 * (nothing if it does not call `from`: another layer is in front).
 * Without one, the first advice swaps nothing and free stays the
 * backend's. */
typedef void (*hp_ops_swap_fn)(const struct hp_alloc_ops *from, const struct hp_alloc_ops *to);
void hp_thp_large_set_swap(hp_ops_swap_fn swap);
/* Advise [p, p+n), a block new to the caller, when n >= min_bytes;
 * returns p (NULL stays NULL). */
void *hp_thp_large_advise(void *p, size_t n);

/* ---- mTHP for memory fresh from the OS (thp_mid.c), the rule in policy/plan_mthp.c ---- */
/* From the plan's mthp fields, once at start-up before any backend: the
 * least size advised, the guard, and the per-size counters at start. */
void hp_thp_mid_init(const struct hp_plan *plan);
size_t hp_thp_mid_min(void);            /* memory from this size on is advised; 0: none */
/* MADV_HUGEPAGE on [p, p+n) (guarded: plan_mthp.c) where n >= the least
 * size: once per piece the backend got from the OS - at its mmap (jemalloc,
 * mimalloc), or a block glibc mmapped for itself - never for reused memory */
void hp_thp_mid_advise(void *p, size_t n);
/* The same for a block the backend moved or grew with its mapping's
 * advice (glibc's mremap): its guard pages MADV_NOHUGEPAGE */
void hp_thp_mid_readvise(void *p, size_t n);
/* What the report shows: the sizes (bit k: 2^k B, the plan's advised and
 * kernel sizes), the advice so far, and (hp_thp_mid_scan: file reads) the
 * process's bytes in folios of each size and the rise of each size's
 * system-wide fault counter; HUGEPOLICY_UNKNOWN where not readable */
struct hp_mthp_report {
	uint32_t sizes;
	uint64_t maps_advised, bytes_advised;
	uint64_t folio_bytes[32];
	uint64_t fault_alloc[32];
};
void hp_thp_mid_counts(struct hp_mthp_report *r);      /* sizes and advice: atomics */
void hp_thp_mid_scan(struct hp_mthp_report *r, int read);      /* folios, counters; 0: unknown */
/* folio_scan.c: bytes of the process's anonymous memory in large folios,
 * by log2 of the folio size (pagemap + kpageflags): 0, or an errno (EPERM
 * without CAP_SYS_ADMIN, E2BIG when the walk was cut short) */
int hp_pages_folio_bytes(uint64_t bytes[64]);

/* ---- every hugetlb mapping hugepolicy made (hugetlb_map.c) ---- */
enum { HP_TLB_BLOCK, HP_TLB_BACKEND, HP_TLB_ARENA, HP_TLB_REGION, HP_TLB_OWNERS };   /* who asked */
int hp_tlb_add(void *base, size_t len, int owner);   /* 0, or -1: table full */
/* ... with its page size (hp_tlb_add: 2 MiB, or 0 for HP_TLB_REGION: regions
 * record theirs with this) */
int hp_tlb_add_page(void *base, size_t len, int owner, size_t page_size);
size_t hp_tlb_page_of(const void *base);             /* any mapping's page size, 0 if none/unknown */
size_t hp_tlb_block_size(const void *p);             /* an HP_TLB_BLOCK's length, 0 if none; fast */
size_t hp_tlb_remove(void *base);                    /* its length, 0 if not recorded */
void hp_tlb_forget(void *p, size_t len);             /* [p, p+len) unmapped by its owner */
int hp_tlb_overlaps(const void *p, size_t len);      /* any recorded byte inside */
void hp_tlb_fallback(int owner, size_t bytes);       /* a request the pool did not serve */
struct hp_tlb_counts { uint64_t pool_maps, pool_bytes, fallbacks, fallback_bytes; };
void hp_tlb_counts(int owner, struct hp_tlb_counts *c);
uint64_t hp_tlb_pool_bytes(void);                    /* all owners, on the pool now */
size_t hp_tlb_pool_maps(void);                       /* ... and how many mappings */
/* Per page size, read back from the table: mappings and bytes on the pool
 * now, and requests that page size's pool refused (a block that then came
 * from a smaller pool counts here, not in hugetlb_fallbacks).  page_size 0:
 * mappings whose page size was not recorded (regions).  The number filled. */
struct hp_tlb_size { uint64_t page_size, maps, bytes, refused, refused_bytes; };
int hp_tlb_sizes(struct hp_tlb_size *out, int max);
void hp_tlb_refused(size_t page_size, size_t bytes);
/* The table's lock (hugetlb_map_lock.c): re-entrant for its owner thread,
 * also from a signal handler on it (fork from a handler); the forked child
 * calls hp_tlb_lock_child once.  fn may clear *on_pool (the mapping left
 * the pool). */
void hp_tlb_lock(void);
void hp_tlb_unlock(void);
void hp_tlb_lock_child(void);
void hp_tlb_each(void (*fn)(void *base, size_t len, int owner, unsigned char *on_pool, void *arg), void *arg);

/* The process's hugetlb VMAs now, from /proc/self/maps (hugetlb_vmas.c):
 * async-signal-safe, no allocation; the caller holds hp_tlb_lock.  fn for
 * each one meeting [lo, hi), clipped to it, in address order, with its
 * PROT_* bits: 0, or -1 if the file could not be read. */
typedef void hp_vma_fn(uintptr_t lo, uintptr_t hi, int prot, void *arg);
int hp_hugetlb_vmas(uintptr_t lo, uintptr_t hi, hp_vma_fn *fn, void *arg);
/* ... those whose protection is not read+write (a program's mprotect), as
 * many as fit; above complete_below there may be more */
#define HP_ODD_VMAS 64
struct hp_tlb_vma { uintptr_t lo, hi; int prot; };
struct hp_odd_vmas { struct hp_tlb_vma v[HP_ODD_VMAS]; unsigned n; uintptr_t complete_below; int unread; };
void hp_odd_vmas_load(struct hp_odd_vmas *o);
/* What [p, p+len) holds of them: HP_ODD_SOME one at least (listed, or
 * maybe: above complete_below, with UNREADABLE too),
 * HP_ODD_UNREADABLE one without PROT_READ; 0: none, or the file was
 * unreadable (every mapping taken as read+write) */
enum { HP_ODD_SOME = 1, HP_ODD_UNREADABLE = 2 };
int hp_odd_vmas_meet(const struct hp_odd_vmas *o, const void *p, size_t len);
/* hp_hugetlb_vmas for [p, p+len) from the list where it is complete there
 * (the parts between listed ones read+write), else from the file */
int hp_odd_vmas_each(const struct hp_odd_vmas *o, const void *p, size_t len, hp_vma_fn *fn, void *arg);

/* fork() children make hugepolicy's hugetlb mappings their own before fork
 * returns (hugetlb_fork.c), unless copy is 0 (HUGEPOLICY_FORK=inherit).
 * Once, at start-up; pools: the start-up probe's (a cgroup hugetlb limit
 * on any of them, or one unreadable, keeps every fork on the copy path). */
void hp_fork_init(int thp_available, int verbose, int copy, const struct hp_pool *pools, int npools);
/* fork_stack.c: fork_fn (glibc's fork) called on a stack hugepolicy owns
 * when the calling thread's stack or sigaltstack is hugetlb memory it
 * mapped, else called directly; its result and errno. */
pid_t hp_fork(pid_t (*fork_fn)(void));
void hp_fork_stack_init(void);                  /* once, at start-up (hp_fork_init) */
/* What forks did so far (the fork.* keys of the report): as a parent, per
 * fork() made while hugepolicy had hugetlb memory on the pool; as a forked
 * child, what its fork made its own (a child starts with no children). */
struct hp_fork_report {
	uint64_t children;              /* such forks */
	uint64_t children_shared;       /* ... whose child shares the pages copy-on-write (the pool had
					 * room for every copy, or HUGEPOLICY_FORK=inherit) */
	uint64_t children_staged;       /* ... whose copies were staged in the parent before fork */
	uint64_t children_waited;       /* ... whose child copied them while the parent waited */
	uint64_t unstaged_bytes;        /* bytes no copy could be staged for (the child copied them) */
	uint64_t copied_bytes;          /* as a child: bytes copied from the pool */
	uint64_t moved_bytes;           /* ... copied into THP or base pages (no pool page) */
	uint64_t lost_bytes;            /* ... that could be made its own neither way */
	uint64_t shared_bytes;          /* ... shared with the parent copy-on-write */
	int pool_kept;                  /* new hugetlb mappings keep pool room for shared pages now */
	int cgroup_limited;             /* a cgroup hugetlb limit at start-up: every fork copies */
};
void hp_fork_read(struct hp_fork_report *f);
/* a spinning waiter's pause between two tries of a lock */
static inline void hp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* hugetlb_fork_sigbus.c: from prepare to the end of the child handler, a
 * child's SIGBUS inside a staged mapping puts the staged copy there
 * (hp_fork_place_staged, hugetlb_fork.c: 1 if it did) and retries.  That
 * path touches no thread-local storage, the stack canary included
 * (HP_NO_TLS): the thread's descriptor may be in a block not yet placed. */
#if defined(__has_attribute)
#if __has_attribute(no_stack_protector)
#define HP_NO_TLS __attribute__((no_stack_protector))
#endif
#endif
#ifndef HP_NO_TLS
#define HP_NO_TLS
#endif
void hp_fork_sigbus_arm(void);
void hp_fork_sigbus_disarm(void);
int hp_fork_place_staged(const void *addr);

/* ---- blocks >= min_bytes from the hugetlb pool, in front of any backend
 * (hugetlb_large.c); the THP fallback uses thp_large.c, which the caller
 * set up for the same backend first.  thp_fallback: HP_TLB_FALLBACK_* ---- */
enum {
	HP_TLB_FALLBACK_BASE,   /* refused blocks go to the backend as they are */
	HP_TLB_FALLBACK_THP,    /* ... advised MADV_HUGEPAGE here */
	HP_TLB_FALLBACK_BELOW,  /* ... to a backend layer that advises them itself */
};
/* The page sizes come from the plan (hugetlb_page, hugetlb_big_page,
 * hugetlb_big_min with pages HUGETLB), verbose too. */
void hp_tlb_large_init(const struct hp_alloc_ops *backend, const struct hp_plan *plan, size_t min_bytes,
		       int thp_fallback, struct hp_alloc_ops *out);

/* ---- hugetlb blocks: one populated mapping each (hugetlb_blocks.c) ---- */
void *hp_blocks_alloc(size_t size, size_t align, struct hp_tlb_fail *why);  /* NULL: use another path */
/* ... from the pool of page_size; a refusal is not counted (the caller
 * counts it: hp_tlb_refused or hp_tlb_fallback) */
void *hp_blocks_alloc_page(size_t size, size_t align, size_t page_size, struct hp_tlb_fail *why);
int hp_blocks_owns(const void *p);                   /* fast; thread-safe */
size_t hp_blocks_size(const void *p);                /* usable bytes, 0 if not ours */
void hp_blocks_free(void *p);

/* thp_switch.c: prctl(PR_SET_THP_DISABLE) as plan->thp_process says (keep:
 * nothing); 0, or the errno of a refused call, which start-up gives to the
 * next plan call (struct hp_plan_facts). */
int hp_thp_switch_apply(const struct hp_plan *plan);
/* MADV_NOHUGEPAGE on libhugepolicy's own .bss: first thing at start-up. */
void hp_thp_own_memory_nohuge(void);

/* ---- fault costs (fault_cost.c), the rule in policy/thp_pays.c ---- */
/* Measure now: base-page faults and thp_pages THP faults (each faulted
 * again once freed when warm: thp_warm_ns); 0, or ENOMEM if refused. */
int hp_fault_cost_measure(struct hp_fault_costs *c, unsigned thp_pages, int warm);
uint64_t hp_fault_thread_ns(void);      /* this thread's CPU time, ns */
long hp_fault_thread_faults(void);      /* this thread's minor faults so far, -1 if unknown */
void hp_fault_cost_init(const struct hp_plan *plan);   /* adapt and pinned costs */
int hp_fault_cost_adapts(void);                        /* 0: HP_ADAPT_OFF */
/* The verdict (enum hp_pays_verdict) for memory density_pct % touched,
 * the costs measured first when stale; why: the costs it rests on. */
int hp_fault_cost_verdict(unsigned density_pct, char *why, size_t cap);
/* A block of n bytes >= threshold: 1 if it gets THP (counted, said on a
 * change under VERBOSE) */
int hp_fault_cost_block(size_t n);     /* 2: a retry against a NO (hp_fault_cost_probe) */
/* [p, p+n) was just advised MADV_HUGEPAGE as a big block: under
 * HUGEPOLICY_FAULT_COST=measure, at most every HP_FAULT_PROBE_MS (retry:
 * hp_fault_cost_block said 2, always), and only in a block new to the
 * caller (fresh: never one realloc kept, which holds the caller's
 * content, maybe mprotect'ed), the first touches of some of its whole
 * huge pages (3, 1 in 4 of a bigger block's, at most 8; those resident
 * already, which a backend reused, passed over after one mincore) are made
 * here and timed (a write of what is there) and given back after
 * (MADV_DONTNEED, each one touched, timed or not): the
 * THP faults the caller's fill would take; their mean joins the running
 * mean.  0: one cost more than the base faults it replaces, or a retry
 * got no sample (the caller takes the advice back); 1 otherwise (no
 * probe, or they paid). */
int hp_fault_cost_probe(void *p, size_t n, int retry, int fresh);
/* what the report says of them (fault.* keys) */
struct hp_fault_cost_report {
	int adapt, verdict;             /* enum hp_adapt, enum hp_pays_verdict for a filled block */
	struct hp_fault_costs costs;    /* in force now: the running means, or pinned */
	uint64_t measurements, blocks_thp, blocks_base;
	uint64_t probes, probes_base;   /* big blocks whose own THP fault was timed; those it did not pay in */
	char why[160];
};
void hp_fault_cost_read(struct hp_fault_cost_report *r);

/* ---- heap promotion (heap_promote.c), the rule in policy/promote.c ---- */
/* From plan->promote_min (0: never).  A backend whose scope ends up not
 * LARGE never promotes. */
void hp_promote_init(const struct hp_plan *plan);
/* The allocator mapped [p, p+len) of ordinary anonymous memory: counted
 * (fixed: MAP_FIXED over its own range, not counted again), the heap
 * sampled now and then; 1 when it is promoted (the range then advised
 * MADV_HUGEPAGE here), else 0. */
int hp_promote_mapped(void *p, size_t len, int fixed);
void hp_promote_unmapped(void *p, size_t len);
int hp_promote_active(void);
void hp_promote_poll(void);                    /* a big block came: sample now and then */
/* a big block of `bytes` usable bytes that thp_large.c tracks was made
 * (freed 0) or freed (1): the rule weighs the heap outside such blocks */
void hp_promote_big_blocks(size_t bytes, int freed);
void hp_promote_describe(struct hp_buf *b);     /* "; heap promotion: ..." */
/* What the promotion did so far (the promote.* keys of the report;
 * state: enum hp_promote_state, policy/hp_policy.h). */
struct hp_promote_report {
	int state;                      /* enum hp_promote_state */
	uint64_t min;                   /* bytes resident that promote (0: never) */
	uint64_t samples;               /* heap samples taken */
	uint64_t resident, mapped;      /* the heap now: resident (mincore) of what the allocator mapped */
	uint64_t big_blocks;            /* bytes of the live big blocks thp_large.c tracks, now */
	uint64_t sample_resident, sample_mapped;   /* ... at the last sample */
	uint64_t at_resident, at_mapped;           /* ... at the promotion (0 before) */
	uint64_t advised;               /* bytes advised MADV_HUGEPAGE by the promotion */
	uint64_t pauses;                /* times the advice paused */
	char reason[400];               /* the state's: the plan's, the last sample's verdict, the promotion's */
	char cost_reason[160];          /* the fault costs that held or paused it, "" if none did */
};
void hp_promote_read(struct hp_promote_report *r);
/* ... all but resident (left as it is): atomics, no mincore(2), no lock */
void hp_promote_counters(struct hp_promote_report *r);
#pragma GCC visibility pop

#endif
