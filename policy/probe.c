/*
 * probe.c - what the machine offers, read under a root directory ("" = this
 * machine): the kernel version and what it implies, NUMA nodes, the
 * process's cgroup, and the pool arithmetic the plan uses.  THP is
 * probe_thp.c's, the hugetlb pools probe_pools.c's, the cgroup limits
 * cgroup.c's.  File names and their meaning follow the kernel's
 * admin-guide/mm/transhuge.rst and hugetlbpage.rst.
 * Reads with open/read/getdents64 into fixed buffers: no malloc, so it may
 * run inside the first malloc call.
 */
#define _GNU_SOURCE
#include "hp_policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

int hp_probe_path(char *buf, size_t cap, const char *root, const char *rel)
{
	size_t rl = strlen(root), l = strlen(rel);
	if (rl + 1 + l + 1 > cap)
		return buf[0] = '\0', ENAMETOOLONG;
	memcpy(buf, root, rl);
	buf[rl] = '/';
	memcpy(buf + rl + 1, rel, l + 1);
	return 0;
}

void hp_probe_problem(struct hp_probe *p, const char *rel, const char *why)
{
	if (p->nproblems < HP_PROBE_PROBLEMS) {
		struct hp_buf b = { p->problems[p->nproblems], sizeof p->problems[0], 0 };
		b.p[0] = '\0';
		hp_buf_printf(&b, "%s: %s", rel, why);
	}
	p->nproblems++;
}

int hp_parse_u64_strict(const char *s, uint64_t *out)
{
	size_t n = strlen(s);
	if (n == 0 || n > 19 || strspn(s, "0123456789") != n)
		return EINVAL;
	uint64_t v = 0;
	for (; *s; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	*out = v;
	return 0;
}

int hp_probe_line(struct hp_probe *p, const char *root, const char *rel, char *buf, size_t cap)
{
	char path[512];
	const char *why = "";
	if (hp_probe_path(path, sizeof path, root, rel))
		return hp_probe_problem(p, rel, "path too long"), EINVAL;
	int n = hp_read_line(path, buf, cap, &why);
	if (n == -ENOENT)
		return ENOENT;
	if (n < 0)
		return hp_probe_problem(p, rel, why), EINVAL;
	return 0;
}

int hp_probe_u64(struct hp_probe *p, const char *root, const char *rel, uint64_t *out)
{
	char buf[32];
	int rc = hp_probe_line(p, root, rel, buf, sizeof buf);
	if (rc)
		return rc;
	if (hp_parse_u64_strict(buf, out))
		return hp_probe_problem(p, rel, "not a number"), EINVAL;
	return 0;
}

/* "6.18.44-fc-v1045" -> 6, 18; anything without MAJOR.MINOR is refused */
static void kernel_version(struct hp_probe *p, const char *rel, const char *release)
{
	char *s;
	long major = strtol(release, &s, 10), minor = -1;
	if (s != release && *s == '.' && s[1] >= '0' && s[1] <= '9')
		minor = strtol(s + 1, &s, 10);
	if (release[0] < '0' || release[0] > '9' || major <= 0 || major > 99 || minor < 0 || minor > 999) {
		hp_probe_problem(p, rel, "not a kernel release (MAJOR.MINOR...)");
		p->kernel[0] = '\0';
		return;
	}
	hp_strlcpy(p->kernel, release, sizeof p->kernel);
	p->kernel_major = (int)major, p->kernel_minor = (int)minor;
	int v = p->kernel_major * 1000 + p->kernel_minor;
	p->populate_write_ok = v >= 5014;
	p->collapse_ok = v >= 6001;
	p->thp_except_advised_ok = v >= 6018;
}

static void probe_kernel(struct hp_probe *p, const char *root)
{
	static const char rel[] = "proc/sys/kernel/osrelease";
	if (!root[0]) {
		struct utsname u;
		if (uname(&u) == 0)
			kernel_version(p, "uname", u.release);
		return;
	}
	char path[512], buf[64];
	const char *why = "";
	if (hp_probe_path(path, sizeof path, root, rel) == 0) {
		int n = hp_read_line(path, buf, sizeof buf, &why);
		if (n >= 0)
			kernel_version(p, rel, buf);
		else if (n != -ENOENT)
			hp_probe_problem(p, rel, why);
	}
}

/* For the report: the process's cgroup in the hierarchy that has hugetlb,
 * "7:hugetlb:/a" (v1), else "0::/a" (v2).  The limits come from cgroup.c. */
static void probe_cgroup(struct hp_probe *p, const char *root)
{
	char buf[2048], path[512];
	p->cgroup[0] = '\0';
	if (hp_probe_path(path, sizeof path, root, "proc/self/cgroup") ||
	    hp_read_small(path, buf, sizeof buf) <= 0)
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

static void probe_numa(struct hp_probe *p, const char *root)
{
	char buf[128], path[512];
	p->numa_nodes = 1;
	if (hp_probe_path(path, sizeof path, root, "sys/devices/system/node/online") ||
	    hp_read_small(path, buf, sizeof buf) <= 0)
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

static void probe_clear(struct hp_probe *p)
{
	memset(p, 0, sizeof *p);
	p->max_ptes_none = p->khugepaged_defrag = -1;
	p->pages_to_scan = p->scan_sleep_ms = -1;
	p->numa_nodes = 1;
	p->thp_enabled = HP_THP_MISSING;
}

/* "" for this machine: "/" and trailing slashes are dropped */
static size_t root_len(const char *root)
{
	size_t rl = root ? strlen(root) : 0;
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	return rl;
}

void hp_probe_for_plan(struct hp_probe *p, int pages, int backend)
{
	probe_clear(p);
	/* off: only the THP word and the process switch, which an `always`
	 * host's off needs (plan.c: thp_process); the kernel version (uname,
	 * no file) tells what the plan may use */
	probe_kernel(p, "");
	hp_probe_thp(p, "", 0);
	hp_probe_process(p, "");
	if (pages == HP_PAGES_AUTO)
		hp_probe_thp_sizes(p, "");     /* mTHP (plan_mthp.c) */
	if (pages == HP_PAGES_OFF || (pages == HP_PAGES_THP && backend != HP_BACKEND_MIMALLOC))
		return;                 /* mimalloc's THP mode depends on the pool too */
	/* hugetlb: every pool, whose larger pages serve blocks of their size
	 * (plan_pagesize.c); else only the 2 MiB pool */
	hp_probe_pools(p, "", pages != HP_PAGES_HUGETLB);
}

void hp_probe_read_root(struct hp_probe *p, const char *root)
{
	char r[256];
	size_t rl = root_len(root);
	probe_clear(p);
	if (rl >= sizeof r) {
		hp_probe_problem(p, "root", "directory name too long");
		return;
	}
	memcpy(r, root ? root : "", rl);
	r[rl] = '\0';
	probe_kernel(p, r);
	hp_probe_thp(p, r, 1);
	hp_probe_process(p, r);
	probe_cgroup(p, r);
	hp_probe_pools(p, r, 0);
	probe_numa(p, r);
}

void hp_probe_read(struct hp_probe *p)
{
	hp_probe_read_root(p, "");
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

static uint64_t cgroup_pages(const struct hp_pool *pool)
{
	int64_t room = pool->cg_max - (pool->cg_current > 0 ? pool->cg_current : 0);
	return room > 0 ? (uint64_t)room / pool->page_size : 0;
}

int hp_pool_cgroup_bound(const struct hp_pool *pool)
{
	return pool && !pool->cg_error && pool->cg_max >= 0 && pool->page_size &&
	       cgroup_pages(pool) < hp_pool_headroom(pool);
}

uint64_t hp_pool_available(const struct hp_pool *pool)
{
	if (!pool || pool->cg_error)
		return 0;               /* a limit that cannot be read may be a SIGBUS later */
	uint64_t avail = hp_pool_headroom(pool);
	if (pool->cg_max >= 0 && pool->page_size) {
		uint64_t cg_pages = cgroup_pages(pool);
		if (cg_pages < avail)
			avail = cg_pages;
	}
	return avail;
}
