/*
 * system.c - the glibc malloc backend.
 *
 * glibc's allocator is reached through a handle to libc itself
 * (dlopen("libc.so.6", RTLD_NOLOAD)) and its __libc_* names: in the global
 * scope `malloc` is hugepolicy's, and a library loaded before libc may even
 * own `__libc_malloc` (docs/design.md, mimalloc as DT_NEEDED).
 *
 * pages=thp: blocks >= threshold get madvise(MADV_HUGEPAGE) on their 2 MiB-
 *   aligned interior before first touch (numpy's 4 MiB rule; kernel
 *   transhuge.rst, "madvise" mode).
 * pages=hugetlb: blocks >= threshold are mapped from the 2 MiB pool
 *   (hugetlb_large.c); when the pool or a cgroup limit says no, the block
 *   falls back to the THP path (or base pages if THP is never), said once.
 *
 * Invariants: glibc has no setting of its own that overrules the plan, so
 * start reports no fact and the plan stands as made; only blocks of at
 * least the threshold are advised or taken from the pool, glibc's own
 * small-block memory is left as the kernel's THP setting makes it.
 */
#define _GNU_SOURCE
#include "hp_backend.h"
#include "hugepolicy.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdatomic.h>
#include <string.h>

static struct hp_alloc_ops libc;                 /* glibc's own entry points */
static struct {                                 /* glibc's API beyond malloc */
	struct mallinfo2 (*mallinfo2)(void);
	int (*trim)(size_t pad);
	int (*mallopt)(int param, int value);
	void (*stats)(void);
	int (*info)(int options, FILE *fp);
} libc_api;
static size_t threshold = 4u * HP_MIB;
static size_t pool_min = 4u * HP_MIB;            /* hugetlb blocks from this size on */
static int mode = HP_PAGES_OFF;                  /* effective mode */
static int fallback_thp;                         /* hugetlb fallback may use THP */
static int verbose;

static void *(*libc_malloc)(size_t);

/* glibc refuses sizes above PTRDIFF_MAX with ENOMEM itself, but a malloc
 * that stands in for it (valgrind's) reports the size as an error of the
 * program's: refused here, before any of it */
static void *checked_malloc(size_t n)
{
	if (__builtin_expect(n > (size_t)PTRDIFF_MAX, 0)) {
		errno = ENOMEM;
		return NULL;
	}
	return libc_malloc(n);
}

static int resolve(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return ENOENT;
	libc.malloc = (void *(*)(size_t))dlsym(h, "__libc_malloc");
	libc.free = (void (*)(void *))dlsym(h, "__libc_free");
	libc.calloc = (void *(*)(size_t, size_t))dlsym(h, "__libc_calloc");
	libc.realloc = (void *(*)(void *, size_t))dlsym(h, "__libc_realloc");
	libc.memalign = (void *(*)(size_t, size_t))dlsym(h, "__libc_memalign");
	libc.usable_size = (size_t (*)(void *))dlsym(h, "malloc_usable_size");
	libc_api.mallinfo2 = (struct mallinfo2 (*)(void))dlsym(h, "mallinfo2");
	libc_api.trim = (int (*)(size_t))dlsym(h, "malloc_trim");
	libc_api.mallopt = (int (*)(int, int))dlsym(h, "mallopt");
	libc_api.stats = (void (*)(void))dlsym(h, "malloc_stats");
	libc_api.info = (int (*)(int, FILE *))dlsym(h, "malloc_info");
	dlclose(h);                             /* NOLOAD handle: drops the extra reference */
	if (!libc.malloc || !libc.free || !libc.calloc || !libc.realloc || !libc.memalign || !libc.usable_size)
		return ENOENT;
	libc_malloc = libc.malloc;
	libc.malloc = checked_malloc;
	libc.malloc_small = libc_malloc;        /* a small size is never above PTRDIFF_MAX */
	libc.malloc_large = checked_malloc;
	return 0;
}

static struct hp_alloc_ops sys_ops, thp_ops;

/* A chunk glibc mmapped for this block alone: IS_MMAPPED (0x2) in the size
 * word before it (malloc/malloc.c).  Fresh from the kernel, so mTHP's
 * advice is once per mapping (thp_mid.c); a chunk from glibc's heaps is
 * reused memory and gets none. */
static int glibc_mmapped(const void *p)
{
	return (((const size_t *)p)[-1] & 2) != 0;
}

/* glibc's allocator is found or not; nothing of it can overrule the plan */
static int system_start(const struct hp_plan *plan, struct hp_plan_facts *facts)
{
	(void)plan, (void)facts;
	return resolve();
}

static int system_init(const struct hp_plan *plan, const struct hp_alloc_ops **out)
{
	struct hp_alloc_ops *ops = &sys_ops;
	threshold = (size_t)plan->threshold;
	pool_min = (size_t)plan->hugetlb_min;
	mode = plan->pages;
	verbose = plan->verbose;
	fallback_thp = plan->thp_available;
	*ops = libc;
	/* pages=thp's wrappers; their advise is also hugetlb's THP fallback */
	static const struct hp_thp_large_traits glibc_traits = { .realloc_keeps_advice = 1,
								  .mid_fresh = glibc_mmapped };
	hp_thp_large_init(&libc, &glibc_traits, threshold, verbose, &thp_ops);
	if (mode == HP_PAGES_THP) {
		*ops = thp_ops;
	} else if (mode == HP_PAGES_HUGETLB) {
		hp_tlb_large_init(&libc, plan, pool_min, fallback_thp, ops);
	}
	*out = ops;
	return 0;
}

static void system_settings(struct hp_backend_settings *s)
{
	hp_strlcpy(s->version, gnu_get_libc_version(), sizeof s->version);
}

static void system_describe(char *buf, size_t cap)
{
	struct hp_buf b = { buf, cap, 0 };
	hp_buf_printf(&b, "glibc %s", gnu_get_libc_version());
	if (mode == HP_PAGES_THP)
		hp_buf_printf(&b, ", MADV_HUGEPAGE on blocks >= %zu B", threshold);
	else if (mode == HP_PAGES_HUGETLB)
		hp_buf_printf(&b, ", blocks >= %zu B from the 2 MiB hugetlb pool, fallback %s",
			      pool_min, fallback_thp ? "THP" : "base pages");
	else
		hp_buf_printf(&b, ", base pages");
}

static void system_info(struct mallinfo2 *mi)
{
	if (libc_api.mallinfo2)         /* glibc >= 2.33 */
		*mi = libc_api.mallinfo2();
}

/* allocated: glibc's chunks in use (uordblks + hblkhd), headers and
 * rounding included - glibc counts no smaller unit.  active is the same:
 * glibc carves chunks end to end from its heaps, with no page-sized runs
 * or size-class slabs whose unused room active would add.  mapped: its
 * heaps' bytes (arena) and mmapped chunks.  metadata, resident and
 * retained stay unknown: glibc's metadata is each chunk's header, inside
 * allocated, and it counts no chunk in use; it maps its heaps and big
 * chunks by internal calls (__mmap, sbrk) that nobody outside libc sees,
 * so no one can mincore() them, and mallinfo2 has no count of resident
 * pages or of the address space its heaps keep PROT_NONE (man
 * hugepolicy(3), "Numbers per backend"). */
static void system_stats(struct hugepolicy_stats *st)
{
	struct hp_tlb_counts c;
	hp_tlb_counts(HP_TLB_BLOCK, &c);
	struct mallinfo2 mi;
	memset(&mi, 0, sizeof mi);
	system_info(&mi);
	st->allocated = st->active = mi.uordblks + mi.hblkhd + c.pool_bytes;
	st->mapped = mi.arena + mi.hblkhd + c.pool_bytes;
}

static int system_trim(size_t pad)
{
	return libc_api.trim ? libc_api.trim(pad) : 0;
}

static int system_opt(int param, int value)
{
	return libc_api.mallopt ? libc_api.mallopt(param, value) : 0;
}

/* glibc's text, glibc's numbers: the pool's blocks are in hugepolicy's
 * own report (hugepolicy.hugetlb_bytes) */
static void system_print(FILE *fp)
{
	(void)fp;               /* glibc's malloc_stats writes to stderr */
	if (libc_api.stats)
		libc_api.stats();
}

static int system_xml(int options, FILE *fp)
{
	return libc_api.info ? libc_api.info(options, fp) : ENOSYS;
}

const struct hp_backend hp_backend_system = {
	.name = "system",
	.start = system_start,
	.init = system_init,
	.describe = system_describe,
	.settings = system_settings,
	.stats = system_stats,
	.trim = system_trim,
	.info = system_info,
	.opt = system_opt,
	.print = system_print,
	.xml = system_xml,
};
