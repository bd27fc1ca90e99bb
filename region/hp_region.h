/*
 * hp_region.h - internal interface of region/: the API and its table
 * (region.c, every OS), and the OS layer under it (region_linux.c with
 * region_map.c, region_numa.c, region_populate.c, region_resize.c,
 * region_smaps.c on Linux; region_windows.c on Windows).
 */
#ifndef HP_REGION_H
#define HP_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "hugepolicy.h"

#ifdef _WIN32
#define HP_REGION_API __declspec(dllexport)     /* hugepolicy.dll exports the API only */
#else
#define HP_REGION_API __attribute__((visibility("default")))
#pragma GCC visibility push(hidden)
#endif

/* One region: what the host got and why.  Lives in region.c's table
 * (mmap'ed chunks; never malloc). */
struct hp_region {
	uintptr_t base;         /* 0: a free slot */
	size_t len;             /* bytes mapped (rounded) */
	size_t req;             /* bytes asked (the last resize) */
	size_t page;            /* hugetlb page size with kind HUGETLB, else 0 */
	struct hugepolicy_region_options opt;   /* normalised: size = sizeof */
	int kind;               /* enum hugepolicy_region_kind obtained */
	int asked;              /* the preference after auto was resolved */
	int prefaulted, numa, numa_noop, on_table;
	char why[HUGEPOLICY_REGION_REASON];     /* reason lines, each ending '\n' */
};

/* Append one reason line ("hugetlb: not used: ...") to r->why (bounded). */
void hp_region_why(struct hp_region *r, const char *fmt, ...)
#ifndef _WIN32
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* region_say.c: the HUGEPOLICY_VERBOSE line for a decision (what:
 * "region", "resize"), bounded. */
void hp_region_say(const struct hp_region *r, const char *what);

/* region_table.c: the live regions by base; records are copied in and
 * out.  put: 0 or ENOMEM (65536 live regions at most); get, take (remove):
 * 0 or EINVAL (not a region); replace: the record at base `old` becomes r
 * (never while another record may have that base: a region is taken out
 * of the table while its mapping moves). */
int hp_region_table_put(const struct hp_region *r);
int hp_region_table_get(uintptr_t base, struct hp_region *out);
int hp_region_table_take(uintptr_t base, struct hp_region *out);
void hp_region_table_replace(uintptr_t old, const struct hp_region *r);

/* ---- the OS layer ---- */
/* The preference `auto` stands for (the process policy): a kind, and the
 * line that says why into *r. */
int hp_region_os_auto(struct hp_region *r);
/* Run the chain from r->asked down: fill base, len, page, kind, prefaulted,
 * numa, numa_noop and the reason lines.  0, or an errno (the contract of
 * hugepolicy_region_alloc in hugepolicy.h). */
int hp_region_os_map(struct hp_region *r);
void hp_region_os_unmap(struct hp_region *r);
/* Resize r in place or by moving it (no copy): 0, EXDEV when the kind
 * cannot (a hugetlb region growing: the caller makes a new region and
 * copies), or an errno with r unchanged. */
int hp_region_os_resize(struct hp_region *r, size_t bytes);
/* The kernel's numbers for r into *info (byte counts, vmas): 0 or errno. */
int hp_region_os_measure(const struct hp_region *r, struct hugepolicy_region_info *info);
/* Zeroed pages for metadata (mmap / VirtualAlloc), NULL when refused. */
void *hp_region_os_pages(size_t bytes);
void hp_region_os_yield(void);
int hp_region_os_verbose(void);         /* HUGEPOLICY_VERBOSE in force */
void hp_region_os_say(const char *line);
/* The region counts (hp_region_stats) changed: Linux rewrites the live
 * report (policy/hp_live.h); Windows has none. */
void hp_region_os_counted(void);

/* ---- Linux helpers ---- */
/* The process plan that `auto` stands for, start-up run first if no
 * allocation has run it yet.  Given by the layer that owns start-up
 * (integration/api.c): region/ includes nothing from above it. */
struct hp_plan;
const struct hp_plan *hp_region_process_plan(void);
/* region_map.c: an anonymous private read-write mapping of len bytes
 * aligned to `align` with a PROT_NONE guard page on each side (so it never
 * merges with a neighbour's VMA: smaps then describes the region alone).
 * NULL with errno. */
void *hp_region_map_guarded(size_t len, size_t align);
void hp_region_unmap_guarded(void *p, size_t len);
/* Shrink in place (the page after the new end becomes the guard), or grow
 * by moving into a fresh guarded reservation with mremap (no copy): 0 /
 * the new address, else errno / NULL with the region unchanged. */
int hp_region_shrink_guarded(void *p, size_t old, size_t len);
void *hp_region_grow_guarded(void *p, size_t old, size_t len, size_t align);
#define HP_REGION_GUARD 4096u

/* region_populate.c: pre-fault [p, p+len) with `threads` threads in
 * parallel (slices of whole `unit`s), MADV_POPULATE_WRITE each; where the
 * kernel lacks it (EINVAL) and `may_touch`, one write per base page (only
 * safe on anonymous memory).  0 or the first errno; *used = threads run. */
int hp_region_populate(void *p, size_t len, size_t unit, unsigned threads, int may_touch, unsigned *used);

/* region_numa.c: apply r->opt.numa to [p, p+len) with mbind(2): 0, or an
 * errno with a reason line; sets r->numa, r->numa_noop. */
int hp_region_numa(struct hp_region *r, void *p, size_t len);

/* region_smaps.c: the VMAs of /proc/self/smaps inside [base, base+len). */
struct hp_range_smaps {
	uint64_t rss, anon_huge, hugetlb;       /* bytes */
	int vmas;
	char vmflags[96];                        /* of the first VMA */
};
int hp_region_smaps(uintptr_t base, size_t len, struct hp_range_smaps *out);

/* ---- stats (region.c): live regions and their mapped bytes per kind
 * obtained; for hugepolicy_stats() and the report ---- */
struct hp_region_stats {
	uint64_t regions;               /* live now */
	uint64_t hugetlb_bytes, thp_bytes, base_bytes;   /* mapped, by kind obtained */
	uint64_t stepped_down;          /* regions (ever) that got less than asked */
};
void hp_region_stats(struct hp_region_stats *s);

#ifndef _WIN32
#pragma GCC visibility pop
#endif

#endif
