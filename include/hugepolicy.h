/*
 * hugepolicy.h - the one public header of hugepolicy.
 *
 * hugepolicy puts a huge-page policy in front of a real allocator (glibc
 * malloc, jemalloc 5.3, mimalloc 2.0).  Linking -lhugepolicy or preloading
 * libhugepolicy.so replaces the malloc family and C++ new/delete of the
 * process; HUGEPOLICY_BACKEND and HUGEPOLICY_PAGES (read once, at start-up:
 * the library constructor or the first allocation) choose the backend and
 * how it uses huge pages.  This header adds introspection - what was
 * decided, and what the process got - and huge-page regions.
 *
 * All functions here are thread-safe and async-signal-unsafe.  None of them
 * allocates through the selected backend.
 */
#ifndef HUGEPOLICY_H
#define HUGEPOLICY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HUGEPOLICY_VERSION_MAJOR 0
#define HUGEPOLICY_VERSION_MINOR 1

/* A byte count the backend cannot provide is set to this value, not 0. */
#define HUGEPOLICY_UNKNOWN UINT64_MAX

/*
 * Numbers of the process, filled by hugepolicy_stats().  The struct may grow
 * at its end: the caller sets .size = sizeof(struct hugepolicy_stats) and the
 * library fills no more than that many bytes (the perf_event_attr habit).
 *
 * Each field holds the value of one key of the report (hugepolicy_report,
 * hugepolicy(7) THE REPORT), named in its comment; config has no key (the
 * report splits it into backend.* and promote.* keys).  Allocator fields
 * carry jemalloc's mallctl names (stats.allocated, ...) and mean the same thing; for glibc and mimalloc they are the closest quantity
 * the backend reports, or HUGEPOLICY_UNKNOWN where none is (glibc: metadata,
 * resident, retained; mimalloc 2.0: allocated, active, metadata - the
 * reasons in hugepolicy(3), "Numbers per backend").  Process fields come
 * from the kernel: /proc/self/smaps_rollup and getrusage(2).
 */
struct hugepolicy_stats {
	uint32_t size;              /* in: sizeof(struct hugepolicy_stats)     */
	uint32_t flags;             /* reserved, 0                              */
	char backend[16];           /* plan.backend: "system", "jemalloc", "mimalloc" */
	char pages_requested[16];   /* opt.pages: HUGEPOLICY_PAGES as parsed: off|thp|hugetlb|auto */
	char pages_effective[16];   /* plan.pages: after the plan: off|thp|hugetlb */
	char config[192];           /* backend configuration read back from the
	                               backend as one line of prose, e.g.
	                               "jemalloc 5.3.0 opt.thp=always opt.metadata_thp=auto";
	                               cut at 191 bytes (the report: backend.* keys) */
	/* allocator, bytes (jemalloc stats.*) */
	uint64_t allocated;         /* stats.allocated: bytes in live allocations */
	uint64_t active;            /* stats.active: bytes in active pages        */
	uint64_t metadata;          /* stats.metadata: allocator metadata bytes   */
	uint64_t resident;          /* stats.resident: allocator pages resident   */
	uint64_t mapped;            /* stats.mapped: bytes in mapped extents      */
	uint64_t retained;          /* stats.retained: unmapped-but-kept bytes    */
	/* process, bytes, from /proc/self/smaps_rollup */
	uint64_t rss;               /* process.rss: Rss                           */
	uint64_t anon_huge;         /* process.anon_huge_pages: AnonHugePages     */
	uint64_t hugetlb;           /* process.hugetlb: Private_ + Shared_Hugetlb */
	/* process, counts, from getrusage(RUSAGE_SELF) */
	uint64_t minor_faults;      /* process.minor_faults                        */
	uint64_t major_faults;      /* process.major_faults                        */
	uint64_t peak_rss;          /* process.peak_rss: ru_maxrss, bytes          */
	/* hugepolicy's own page layer: hugetlb mappings it made and populated
	 * for any backend (system blocks, mimalloc segments and arenas) */
	uint64_t hugetlb_blocks;    /* hugetlb.blocks: mappings on the pool now    */
	uint64_t hugetlb_bytes;     /* hugetlb.bytes: their bytes (whole pages)    */
	uint64_t hugetlb_fallbacks; /* hugetlb.fallbacks: requests the pool or a
	                               cgroup limit refused */
	/* start-up */
	uint64_t bootstrap_bytes;   /* stats.bootstrap_bytes: bytes served from the
	                               bootstrap arena while the backend was being chosen */
	/* fields are only ever appended: the struct grows at its end */
	uint64_t hugetlb_fallback_bytes;  /* hugetlb.fallback_bytes: bytes of those refused
	                                     requests, which the backend then put on THP
	                                     or base pages */
	/* regions (hugepolicy_region_alloc), by the kind each got; an
	   inherited hugetlb region also counts in hugetlb_blocks/_bytes */
	uint64_t region_count;            /* region.count: live regions          */
	uint64_t region_hugetlb_bytes;    /* region.hugetlb_bytes: their mapped bytes on
	                                     hugetlb pages */
	uint64_t region_thp_bytes;        /* region.thp_bytes: ... THP-advised (smaps says
	                                     how much is huge) */
	uint64_t region_base_bytes;       /* region.base_bytes: ... base pages   */
	uint64_t region_stepped_down;     /* region.stepped_down: regions (ever) that got
	                                     less than asked */
};

/*
 * Fill *st.  st->size must be set by the caller (bytes; at least the offset
 * of `allocated`).  Returns 0, or EINVAL if st is NULL or st->size too small.
 * Initialises the library if no allocation has yet done so.
 * Thread-safe.  Cost: one read of /proc/self/smaps_rollup (tens of µs) and,
 * for jemalloc, an epoch refresh (the mallctl "epoch" idiom); for mimalloc,
 * mincore(2) over its heap (about 1 ms per GiB mapped).  The numbers are
 * also left in the live report `hugepolicy inspect PID` reads.
 */
int hugepolicy_stats(struct hugepolicy_stats *st);

/*
 * Name of the backend in force ("system", "jemalloc", "mimalloc") and the
 * effective page mode ("off", "thp", "hugetlb").  Static strings; never NULL.
 * A host that drives another allocator (Embree's hugepages=1 device option,
 * say) asks hugepolicy_pages() so one policy governs both; under auto
 * (pages_requested "auto") the plan advises blocks by its own rules, so such
 * a host turns huge pages on wholesale only where thp or hugetlb was asked.
 * Thread-safe.
 */
const char *hugepolicy_backend(void);
const char *hugepolicy_pages(void);

/*
 * The library's version, "MAJOR.MINOR.PATCH" (the CMake project version; the
 * soname is libhugepolicy.so.MAJOR).  A static string; never NULL.  Safe to
 * call before or without start-up, from any thread.
 */
const char *hugepolicy_version(void);

#define HUGEPOLICY_REPORT_JSON 1u

/*
 * Write the report that HUGEPOLICY_STATS prints at exit to file descriptor
 * fd: text ("  key value" lines), or one JSON object with flags
 * HUGEPOLICY_REPORT_JSON; the same keys in both (opt.*, plan.*, backend.*,
 * stats.*, process.*, hugetlb.*, promote.*, fork.*, fault.*, region.*:
 * every one in hugepolicy(7), THE REPORT).
 * Returns 0, or an errno value from write(2) (EBADF, EPIPE, ...).
 * Thread-safe; uses a fixed buffer and write(2), no stdio.
 */
int hugepolicy_report(int fd, unsigned flags);

/*
 * ---- Huge-page regions ----
 *
 * One big block (a transposition table, an array, a BVH, a framebuffer) that
 * gets the best pages the machine can give, straight from the kernel: never
 * through the malloc backend, whether or not hugepolicy owns malloc in the
 * process (a host may link it for regions only).  The chain on Linux:
 *   hugetlb  - a page size the kernel offers (.hugetlb_page_size if set,
 *              else the largest no bigger than the region whose pool has
 *              room for all of it, else 2 MiB), length rounded up to it;
 *              Free-Rsvd + surplus headroom and the cgroup hugetlb limit
 *              checked; mapped without MAP_NORESERVE and populated with
 *              MADV_POPULATE_WRITE, so an empty pool or a cgroup limit is a
 *              fallback (or an errno) now, never a SIGBUS later.  Kernels
 *              without MADV_POPULATE_WRITE (< 5.14) get no hugetlb region.
 *   THP      - a mapping aligned to the PMD size (2 MiB), length rounded up
 *              to it, MADV_HUGEPAGE; MADV_COLLAPSE after populate if asked.
 *   base     - plain pages (MADV_NOHUGEPAGE where THP `enabled` is always).
 * On Windows: VirtualAlloc(MEM_LARGE_PAGES) with SeLockMemoryPrivilege, then
 * plain VirtualAlloc.  The info struct says what was obtained and why.
 * Every region is its own mapping with a PROT_NONE guard page on each side
 * (THP and base), so /proc/self/smaps describes exactly its pages.
 */
enum hugepolicy_region_kind {
	HUGEPOLICY_REGION_AUTO = 0,     /* preference: the process policy (HUGEPOLICY_PAGES as planned) */
	HUGEPOLICY_REGION_HUGETLB = 1,  /* the hugetlb pool (Windows: large pages) */
	HUGEPOLICY_REGION_THP = 2,      /* transparent huge pages */
	HUGEPOLICY_REGION_BASE = 3      /* base pages only */
};
enum hugepolicy_region_numa {
	HUGEPOLICY_REGION_NUMA_DEFAULT = 0,     /* the thread's policy, nothing applied */
	HUGEPOLICY_REGION_NUMA_INTERLEAVE = 1,  /* mbind(MPOL_INTERLEAVE) over every online node */
	HUGEPOLICY_REGION_NUMA_LOCAL = 2,       /* mbind(MPOL_LOCAL): the faulting CPU's node */
	HUGEPOLICY_REGION_NUMA_NODE = 3         /* .node: MPOL_PREFERRED, or MPOL_BIND when strict */
};
enum hugepolicy_region_fork {
	HUGEPOLICY_REGION_FORK_INHERIT = 0,     /* children get a copy (hugetlb: made the child's own
	                                           at fork, as HUGEPOLICY_FORK says) */
	HUGEPOLICY_REGION_FORK_DONTFORK = 1,    /* MADV_DONTFORK: not mapped in children */
	HUGEPOLICY_REGION_FORK_WIPEONFORK = 2   /* MADV_WIPEONFORK: children see zeros (not
	                                           possible on hugetlb: that step is skipped) */
};
#define HUGEPOLICY_REGION_POPULATE 1u   /* pre-fault now (.threads threads in parallel) */
#define HUGEPOLICY_REGION_STRICT   2u   /* the kind asked for, or fail with an errno */
#define HUGEPOLICY_REGION_COLLAPSE 4u   /* THP: MADV_COLLAPSE after populate (Linux 6.1) */
#define HUGEPOLICY_REGION_QUIET    8u   /* no HUGEPOLICY_VERBOSE line for this region */

/* How to allocate.  NULL options = all zero: auto, no populate, fallback. */
struct hugepolicy_region_options {
	uint32_t size;          /* in: sizeof(struct hugepolicy_region_options) */
	uint32_t flags;         /* HUGEPOLICY_REGION_POPULATE | _STRICT | _COLLAPSE | _QUIET */
	int32_t pages;          /* enum hugepolicy_region_kind: the preference */
	int32_t numa;           /* enum hugepolicy_region_numa */
	int32_t node;           /* with HUGEPOLICY_REGION_NUMA_NODE */
	int32_t fork;           /* enum hugepolicy_region_fork */
	uint32_t threads;       /* populate with this many threads (0, 1: the calling one; at most 64) */
	uint32_t reserved;      /* 0 */
	uint64_t hugetlb_page_size;     /* bytes; 0: chosen from what the kernel offers */
};

#define HUGEPOLICY_REGION_REASON 640
/* What a region got, read back at the call: the byte counts come from the
 * kernel (Linux: /proc/self/smaps for the region's VMAs; Windows:
 * QueryWorkingSetEx), never from the request. */
struct hugepolicy_region_info {
	uint32_t size;          /* in: sizeof(struct hugepolicy_region_info) */
	int32_t kind;           /* enum hugepolicy_region_kind obtained: the step the chain stopped at */
	uint64_t requested;     /* bytes asked for (the last resize) */
	uint64_t length;        /* bytes mapped: requested rounded up to the page size (THP: 2 MiB) */
	uint64_t hugetlb_page_size;     /* bytes, with kind HUGETLB; else 0 */
	uint64_t hugetlb_bytes; /* smaps Private_Hugetlb + Shared_Hugetlb (Windows: large-page bytes) */
	uint64_t thp_bytes;     /* smaps AnonHugePages */
	uint64_t base_bytes;    /* smaps Rss - AnonHugePages: resident base pages */
	uint64_t rss;           /* smaps Rss + the hugetlb bytes: everything resident */
	int32_t prefaulted;     /* 1: populated when allocated (and resized) */
	int32_t numa;           /* enum hugepolicy_region_numa applied (mbind succeeded) */
	int32_t numa_noop;      /* 1: that policy changes nothing here (one online node) */
	int32_t fork;           /* enum hugepolicy_region_fork in force */
	int32_t vmas;           /* VMAs read back for the range (1 unless the kernel split it) */
	int32_t reserved;
	/* One line per step down the chain, then one for NUMA and one for the
	 * last resize, each ending in '\n':
	 *   "hugetlb: not used: the pool has no room: 0 of 1 pages of 2048 kB (Free-Rsvd+surplus, cgroup ...)\n"
	 *   "thp: used: 2 MiB-aligned, MADV_HUGEPAGE, populated by 2 threads\n"  */
	char reason[HUGEPOLICY_REGION_REASON];
};

/*
 * Allocate a region of `bytes` (> 0), zero-filled, aligned to its page size
 * (THP: 2 MiB).  Returns NULL with errno set:
 *   EINVAL     bytes 0 or above SIZE_MAX / 4, an unknown kind/numa/fork value
 *              or flag, .threads > 64, a node not online, a hugetlb_page_size
 *              that is not a power of two >= 4096, opt->size too small;
 * and, with HUGEPOLICY_REGION_STRICT only (else the chain falls back):
 *   ENOMEM     the hugetlb pool or a cgroup hugetlb limit has no room for it,
 *              or memory is short (mmap, mbind, populate refused);
 *   EAGAIN     THP asked and populated, but the kernel backed none of it with
 *              huge pages now (fragmented memory; may work later);
 *   EOPNOTSUPP the kind is not on offer here: THP `enabled` never or disabled
 *              for the process (prctl), no MADV_POPULATE_WRITE (kernel < 5.14)
 *              for hugetlb, no pool of the hugetlb_page_size asked, hugetlb
 *              with WIPEONFORK, fork advice or a NUMA policy the kernel
 *              refuses; Windows: large pages not available or
 *              SeLockMemoryPrivilege not held.
 * Without STRICT, only EINVAL and ENOMEM (no memory at all) are returned.
 * Thread-safe.  Never calls malloc (metadata lives in mmap'ed tables); with
 * .threads > 1 glibc's pthread_create allocates each thread's own DTV.
 */
void *hugepolicy_region_alloc(size_t bytes, const struct hugepolicy_region_options *opt);

/* Unmap a region.  0, or EINVAL if `region` is not one (NULL: 0). */
int hugepolicy_region_free(void *region);

/*
 * Grow or shrink a region to `bytes`, keeping min(old, new) bytes of its
 * contents; new bytes are zero (populated if the region was).  THP and base
 * regions are moved by mremap (no copy); a hugetlb region shrinks in place,
 * and grows into a new region made with the same options (the chain runs
 * again: it may step down) into which the prefix is copied.  Returns the
 * (possibly new) address, or NULL with errno (as hugepolicy_region_alloc)
 * and the old region left as it was.
 */
void *hugepolicy_region_resize(void *region, size_t bytes);

/* Fill *info for `region` (info->size set by the caller).  0, or EINVAL if
 * it is not a region or info->size is too small; an error reading smaps
 * leaves the byte counts HUGEPOLICY_UNKNOWN.  Costs one read of
 * /proc/self/smaps (proportional to the process's mappings). */
int hugepolicy_region_info(const void *region, struct hugepolicy_region_info *info);

/* "hugetlb", "thp", "base", "auto". Static; never NULL. */
const char *hugepolicy_region_kind_name(int kind);

#ifdef __cplusplus
}
#endif
#endif /* HUGEPOLICY_H */
