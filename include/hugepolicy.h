/*
 * hugepolicy.h - the one public header of hugepolicy.
 *
 * hugepolicy puts a huge-page policy in front of a real allocator (glibc
 * malloc, jemalloc 5.3, mimalloc 2.0).  Linking -lhugepolicy or preloading
 * libhugepolicy.so replaces the malloc family and C++ new/delete of the
 * process; HUGEPOLICY_BACKEND and HUGEPOLICY_PAGES (read once, at the first
 * allocation) choose the backend and how it uses huge pages.  This header
 * only adds introspection: what was decided, and what the process got.
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
 * Allocator fields carry jemalloc's mallctl names (stats.allocated, ...) and
 * mean the same thing; for glibc and mimalloc they are the closest quantity
 * the backend reports, or HUGEPOLICY_UNKNOWN.  Process fields come from the
 * kernel: /proc/self/smaps_rollup and getrusage(2).
 */
struct hugepolicy_stats {
	uint32_t size;              /* in: sizeof(struct hugepolicy_stats)     */
	uint32_t flags;             /* reserved, 0                              */
	char backend[16];           /* "system", "jemalloc", "mimalloc"         */
	char pages_requested[16];   /* HUGEPOLICY_PAGES as parsed: off|thp|hugetlb|auto */
	char pages_effective[16];   /* after the plan: off|thp|hugetlb          */
	char config[192];           /* backend configuration read back from the
	                               backend, e.g. "opt.thp=always opt.metadata_thp=auto" */
	/* allocator, bytes (jemalloc stats.*) */
	uint64_t allocated;         /* stats.allocated: bytes in live allocations */
	uint64_t active;            /* stats.active: bytes in active pages        */
	uint64_t metadata;          /* stats.metadata: allocator metadata bytes   */
	uint64_t resident;          /* stats.resident: allocator pages resident   */
	uint64_t mapped;            /* stats.mapped: bytes in mapped extents      */
	uint64_t retained;          /* stats.retained: unmapped-but-kept bytes    */
	/* process, bytes, from /proc/self/smaps_rollup */
	uint64_t rss;               /* Rss                                        */
	uint64_t anon_huge;         /* AnonHugePages: THP-backed bytes            */
	uint64_t hugetlb;           /* Private_Hugetlb + Shared_Hugetlb           */
	/* process, counts, from getrusage(RUSAGE_SELF) */
	uint64_t minor_faults;
	uint64_t major_faults;
	uint64_t peak_rss;          /* ru_maxrss, bytes                            */
	/* hugepolicy's own page layer: hugetlb mappings it made and populated
	 * for any backend (system blocks, mimalloc segments and arenas) */
	uint64_t hugetlb_blocks;    /* mappings on the pool now                    */
	uint64_t hugetlb_bytes;     /* their bytes (multiples of the page size)    */
	uint64_t hugetlb_fallbacks; /* requests the pool or a cgroup limit refused */
	/* start-up */
	uint64_t bootstrap_bytes;   /* bytes served from the bootstrap arena while
	                               the backend was being chosen */
	/* since 0.2: appended (the struct grows at its end) */
	uint64_t hugetlb_fallback_bytes;  /* bytes of those refused requests, which
	                                     the backend then put on THP or base pages */
};

/*
 * Fill *st.  st->size must be set by the caller (bytes; at least the offset
 * of `allocated`).  Returns 0, or EINVAL if st is NULL or st->size too small.
 * Initialises the library if no allocation has yet done so.
 * Thread-safe.  Cost: one read of /proc/self/smaps_rollup (tens of µs) and,
 * for jemalloc, an epoch refresh (the mallctl "epoch" idiom).
 */
int hugepolicy_stats(struct hugepolicy_stats *st);

/*
 * Name of the backend in force ("system", "jemalloc", "mimalloc") and the
 * effective page mode ("off", "thp", "hugetlb").  Static strings; never NULL.
 * A host that drives another allocator (Embree's hugepages=1 device option,
 * say) asks hugepolicy_pages() so one policy governs both.  Thread-safe.
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
 * fd: text, or one JSON object with flags HUGEPOLICY_REPORT_JSON.
 * Returns 0, or an errno value from write(2) (EBADF, EPIPE, ...).
 * Thread-safe; uses a fixed buffer and write(2), no stdio.
 */
int hugepolicy_report(int fd, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* HUGEPOLICY_H */
