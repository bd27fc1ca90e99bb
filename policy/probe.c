/*
 * probe.c - what the machine offers: THP enabled/defrag/max_ptes_none,
 * hugetlb pools per page size (nr_hugepages, free, resv, surplus), the cgroup
 * hugetlb limits on them (cgroup.c), NUMA nodes, kernel version.  File
 * names and their meaning follow the kernel's admin-guide/mm/transhuge.rst
 * and hugetlbpage.rst.
 * Reads with open/read/getdents64 into fixed buffers: no malloc, so it may
 * run inside the first malloc call.
 */
#define _GNU_SOURCE
#include "hp_policy.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

static int64_t read_i64(const char *path)
{
	char buf[64];
	if (hp_read_small(path, buf, sizeof buf) <= 0)
		return -1;
	if (strncmp(buf, "max", 3) == 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* The bracketed word of a sysfs choice file: "always [madvise] never". */
static int bracketed(const char *path, char *out, size_t cap)
{
	char buf[256];
	out[0] = '\0';
	if (hp_read_small(path, buf, sizeof buf) <= 0)
		return -1;
	char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;
	if (!l || !r)
		return -1;
	size_t n = (size_t)(r - l - 1);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, l + 1, n);
	out[n] = '\0';
	return 0;
}

const char *hp_thp_name(int thp)
{
	switch (thp) {
	case HP_THP_ALWAYS: return "always";
	case HP_THP_MADVISE: return "madvise";
	case HP_THP_NEVER: return "never";
	default: return "missing";
	}
}

static void probe_thp(struct hp_probe *p)
{
	char word[24];
	p->thp_enabled = HP_THP_MISSING;
	if (bracketed("/sys/kernel/mm/transparent_hugepage/enabled", word, sizeof word) == 0) {
		if (strcmp(word, "always") == 0) p->thp_enabled = HP_THP_ALWAYS;
		else if (strcmp(word, "madvise") == 0) p->thp_enabled = HP_THP_MADVISE;
		else p->thp_enabled = HP_THP_NEVER;
	}
	bracketed("/sys/kernel/mm/transparent_hugepage/defrag", p->thp_defrag, sizeof p->thp_defrag);
	p->thp_process_off = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1;   /* prctl(2) */
	p->max_ptes_none = (int)read_i64("/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none");
}

/* For the report: the process's cgroup in the hierarchy that has hugetlb,
 * "7:hugetlb:/a" (v1), else "0::/a" (v2).  The limits come from cgroup.c. */
static void probe_cgroup(struct hp_probe *p)
{
	char buf[2048];
	p->cgroup[0] = '\0';
	if (hp_read_small("/proc/self/cgroup", buf, sizeof buf) <= 0)
		return;
	for (char *line = buf, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = '\0';
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			break;
		*b = '\0';
		int v1 = strstr(a + 1, "hugetlb") != NULL;
		if (v1 || strcmp(line, "0:") == 0)
			hp_strlcpy(p->cgroup, b + 1, sizeof p->cgroup);
		if (v1)
			break;
	}
}

/* full: also nr_hugepages, which the plan does not need */
static void probe_pool(struct hp_probe *p, const char *dname, int full)
{
	if (p->npools >= HP_MAX_POOLS || strncmp(dname, "hugepages-", 10) != 0)
		return;
	struct hp_pool *pool = &p->pools[p->npools];
	char path[160];
	uint64_t kb = strtoull(dname + 10, NULL, 10);
	if (kb == 0)
		return;
	pool->page_size = kb * 1024;
	static const char *const f[5] = { "nr_hugepages", "free_hugepages", "resv_hugepages",
					   "surplus_hugepages", "nr_overcommit_hugepages" };
	uint64_t *dst[5] = { &pool->total, &pool->free, &pool->resv, &pool->surp, &pool->overcommit };
	for (int i = 0; i < 5; i++) {
		if (!full && i == 0)
			continue;
		struct hp_buf b = { path, sizeof path, 0 };
		hp_buf_printf(&b, "/sys/kernel/mm/hugepages/%s/%s", dname, f[i]);
		int64_t v = read_i64(path);
		*dst[i] = v < 0 ? 0 : (uint64_t)v;
	}
	/* the cgroup walk costs ~90 us here (mountinfo alone ~50): the plan
	 * skips it when the pool has no page to give anyway */
	if (full || hp_pool_headroom(pool) > 0) {
		pool->cg_error = hp_cgroup_hugetlb_room("", pool->page_size, &pool->cg_max, &pool->cg_current,
							pool->cg_where, sizeof pool->cg_where);
	} else {
		pool->cg_max = pool->cg_current = -1;
		hp_strlcpy(pool->cg_where, "not read: no free pages", sizeof pool->cg_where);
	}
	p->npools++;
}

/* Only the 2 MiB pool, by its known name: what the plan needs. */
static void probe_pool_2m(struct hp_probe *p)
{
	p->npools = 0;
	probe_pool(p, "hugepages-2048kB", 0);
}

static void probe_pools(struct hp_probe *p)
{
	char buf[2048];
	p->npools = 0;
	int fd = open("/sys/kernel/mm/hugepages", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			probe_pool(p, d->d_name, 1);
			off += d->d_reclen;
		}
	}
	close(fd);
	/* smallest page size first, for stable output */
	for (int i = 1; i < p->npools; i++)
		for (int j = i; j > 0 && p->pools[j].page_size < p->pools[j - 1].page_size; j--) {
			struct hp_pool t = p->pools[j];
			p->pools[j] = p->pools[j - 1];
			p->pools[j - 1] = t;
		}
}

static void probe_numa(struct hp_probe *p)
{
	char buf[128];
	p->numa_nodes = 1;
	if (hp_read_small("/sys/devices/system/node/online", buf, sizeof buf) <= 0)
		return;
	/* "0", "0-3", "0,2-3"; node numbers below the kernel's MAX_NUMNODES
	 * (1 << 10): anything else is a malformed file, and one node is assumed */
	enum { MAX_NODES = 1 << 10 };
	long count = 0;
	for (char *s = buf; *s && *s != '\n';) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0 || a >= MAX_NODES)
			return;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= MAX_NODES)
				return;
			s = end;
		}
		count += b - a + 1;
		if (count > MAX_NODES)
			return;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return;
		else
			break;
	}
	if (count > 0)
		p->numa_nodes = (int)count;
}

void hp_probe_for_plan(struct hp_probe *p, int pages, int backend)
{
	memset(p, 0, sizeof *p);
	p->max_ptes_none = -1;
	p->numa_nodes = 1;
	p->thp_enabled = HP_THP_MISSING;
	if (pages == HP_PAGES_OFF)
		return;
	probe_thp(p);
	if (pages == HP_PAGES_THP && backend != HP_BACKEND_MIMALLOC)
		return;                 /* mimalloc's THP mode depends on the pool too */
	probe_pool_2m(p);
}

void hp_probe_read(struct hp_probe *p)
{
	struct utsname u;
	memset(p, 0, sizeof *p);
	probe_thp(p);
	probe_cgroup(p);
	probe_pools(p);
	probe_numa(p);
	if (uname(&u) == 0) {
		hp_strlcpy(p->kernel, u.release, sizeof p->kernel);
		char *s = u.release;
		p->kernel_major = (int)strtol(s, &s, 10);
		if (*s == '.')
			p->kernel_minor = (int)strtol(s + 1, NULL, 10);
	}
}

const struct hp_pool *hp_probe_pool(const struct hp_probe *p, uint64_t page_size)
{
	for (int i = 0; i < p->npools; i++)
		if (p->pools[i].page_size == page_size)
			return &p->pools[i];
	return NULL;
}

uint64_t hp_pool_surplus_room(const struct hp_pool *pool)
{
	return pool && pool->overcommit > pool->surp ? pool->overcommit - pool->surp : 0;
}

/* Free - Rsvd, plus the surplus pages the kernel may still add on demand
 * (nr_overcommit_hugepages - surplus_hugepages; hugetlbpage.rst). */
uint64_t hp_pool_headroom(const struct hp_pool *pool)
{
	if (!pool)
		return 0;
	return (pool->free > pool->resv ? pool->free - pool->resv : 0) + hp_pool_surplus_room(pool);
}

uint64_t hp_pool_available(const struct hp_pool *pool)
{
	if (!pool || pool->cg_error)
		return 0;               /* a limit that cannot be read may be a SIGBUS later */
	uint64_t avail = hp_pool_headroom(pool);
	if (pool->cg_max >= 0) {
		int64_t room = pool->cg_max - (pool->cg_current > 0 ? pool->cg_current : 0);
		uint64_t cg_pages = room > 0 ? (uint64_t)room / pool->page_size : 0;
		if (cg_pages < avail)
			avail = cg_pages;
	}
	return avail;
}
