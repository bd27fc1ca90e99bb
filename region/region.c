/*
 * region.c - the huge-page region API (hugepolicy.h): options checked,
 * alloc, free, resize, info, the reason lines, stats.  The same file on
 * Linux and Windows; the chain itself is the OS layer's (region_linux.c,
 * region_windows.c).  No malloc anywhere: the records are in
 * region_table.c's table, copied in and out; no lock is held while the OS
 * layer maps or populates.
 */
#include "hp_region.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Atomic uint64_t bytes_kind[4], live, stepped;

static void count(const struct hp_region *r, int sign)
{
	if (sign > 0)
		atomic_fetch_add(&bytes_kind[r->kind & 3], r->len);
	else
		atomic_fetch_sub(&bytes_kind[r->kind & 3], r->len);
}

void hp_region_why(struct hp_region *r, const char *fmt, ...)
{
	size_t used = strlen(r->why), room = sizeof r->why - used;
	if (room < 2)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(r->why + used, room - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	used += (size_t)n < room - 2 ? (size_t)n : room - 2;
	r->why[used++] = '\n';
	r->why[used] = '\0';
}

HP_REGION_API const char *hugepolicy_region_kind_name(int kind)
{
	static const char *const names[4] = { "auto", "hugetlb", "thp", "base" };
	return kind >= 0 && kind < 4 ? names[kind] : "unknown";
}

static int normalise(struct hp_region *r, size_t bytes, const struct hugepolicy_region_options *opt)
{
	memset(r, 0, sizeof *r);
	if (opt) {
		if (opt->size < offsetof(struct hugepolicy_region_options, threads))
			return EINVAL;
		memcpy(&r->opt, opt, opt->size < sizeof r->opt ? opt->size : sizeof r->opt);
	}
	r->opt.size = sizeof r->opt;
	const struct hugepolicy_region_options *o = &r->opt;
	uint64_t ps = o->hugetlb_page_size;
	if (bytes == 0 || (o->flags & ~15u) || o->pages < 0 || o->pages > 3 ||
	    o->numa < 0 || o->numa > 3 || o->fork < 0 || o->fork > 2 || o->threads > 64 ||
	    (ps && (ps < 4096 || (ps & (ps - 1)))) || (o->numa == HUGEPOLICY_REGION_NUMA_NODE && o->node < 0))
		return EINVAL;
	if (bytes > SIZE_MAX / 4)
		return ENOMEM;          /* a size no address space holds (C11 malloc's errno) */
	r->req = bytes;
	r->asked = o->pages;
	return 0;
}

HP_REGION_API void *hugepolicy_region_alloc(size_t bytes, const struct hugepolicy_region_options *opt)
{
	struct hp_region r;
	int saved = errno;      /* a region that is made leaves errno as it was */
	int err = normalise(&r, bytes, opt);
	if (!err && r.asked == HUGEPOLICY_REGION_AUTO)
		r.asked = hp_region_os_auto(&r);
	if (!err)
		err = hp_region_os_map(&r);
	if (!err) {
		err = hp_region_table_put(&r);
		if (err)
			hp_region_os_unmap(&r);
	}
	if (err) {
		errno = err;
		return NULL;
	}
	count(&r, 1);
	atomic_fetch_add(&live, 1);
	if (r.kind != r.asked)
		atomic_fetch_add(&stepped, 1);
	hp_region_os_counted();
	hp_region_say(&r, "region");
	errno = saved;
	return (void *)r.base;
}

HP_REGION_API int hugepolicy_region_free(void *region)
{
	struct hp_region r;
	if (!region)
		return 0;
	if (hp_region_table_take((uintptr_t)region, &r) != 0)
		return EINVAL;
	hp_region_os_unmap(&r);
	count(&r, -1);
	atomic_fetch_sub(&live, 1);
	hp_region_os_counted();
	return 0;
}

HP_REGION_API void *hugepolicy_region_resize(void *region, size_t bytes)
{
	struct hp_region r, old;
	/* out of the table while it changes: once mremap has moved it, its old
	 * address is free for another thread's region, whose record must not
	 * meet this one's there */
	if (bytes == 0 || hp_region_table_take((uintptr_t)region, &r) != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (bytes > SIZE_MAX / 4) {
		hp_region_table_put(&r);        /* as it was */
		errno = ENOMEM;
		return NULL;
	}
	old = r;
	int err = hp_region_os_resize(&r, bytes);
	if (err) {
		hp_region_table_put(&old);      /* as it was (its slot was just freed) */
		if (err != EXDEV) {
			errno = err;
			return NULL;
		}
		void *p = hugepolicy_region_alloc(bytes, &old.opt);     /* a new region, the prefix copied */
		if (!p)
			return NULL;
		size_t keep = old.len < bytes ? old.len : bytes;
		memcpy(p, region, keep);
		hugepolicy_region_free(region);
		if (hp_region_table_get((uintptr_t)p, &r) == 0) {
			hp_region_why(&r, "resize: a %s region cannot grow in place: a new region, %zu bytes copied",
				      hugepolicy_region_kind_name(old.kind), keep);
			hp_region_table_replace((uintptr_t)p, &r);
		}
		return p;
	}
	count(&old, -1);
	count(&r, 1);
	hp_region_os_counted();
	hp_region_table_put(&r);
	hp_region_say(&r, "resize");
	return (void *)r.base;
}

HP_REGION_API int hugepolicy_region_info(const void *region, struct hugepolicy_region_info *info)
{
	struct hp_region r;
	if (!info || info->size < offsetof(struct hugepolicy_region_info, reason) ||
	    hp_region_table_get((uintptr_t)region, &r) != 0)
		return EINVAL;
	struct hugepolicy_region_info full;
	memset(&full, 0, sizeof full);
	full.kind = r.kind;
	full.requested = r.req;
	full.length = r.len;
	full.hugetlb_page_size = r.kind == HUGEPOLICY_REGION_HUGETLB ? r.page : 0;
	full.prefaulted = r.prefaulted;
	full.numa = r.numa;
	full.numa_noop = r.numa_noop;
	full.fork = r.opt.fork;
	full.hugetlb_bytes = full.thp_bytes = full.base_bytes = full.rss = HUGEPOLICY_UNKNOWN;
	hp_region_os_measure(&r, &full);
	memcpy(full.reason, r.why, sizeof full.reason);
	size_t n = info->size < sizeof full ? info->size : sizeof full;
	full.size = info->size;
	memcpy(info, &full, n);
	return 0;
}

void hp_region_stats(struct hp_region_stats *s)
{
	s->regions = atomic_load(&live);
	s->hugetlb_bytes = atomic_load(&bytes_kind[HUGEPOLICY_REGION_HUGETLB]);
	s->thp_bytes = atomic_load(&bytes_kind[HUGEPOLICY_REGION_THP]);
	s->base_bytes = atomic_load(&bytes_kind[HUGEPOLICY_REGION_BASE]);
	s->stepped_down = atomic_load(&stepped);
}
