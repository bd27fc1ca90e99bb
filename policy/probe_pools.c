/*
 * probe_pools.c - the hugetlb pools (admin-guide/mm/hugetlbpage.rst): one
 * directory per page size under /sys/kernel/mm/hugepages, named
 * hugepages-<size>kB, with nr_hugepages, free_, resv_, surplus_ and
 * nr_overcommit_hugepages; the default size from /proc/meminfo's
 * Hugepagesize; each pool's cgroup limit (cgroup.c).  A directory with
 * another name, or a pool with a malformed counter, is refused (not counted,
 * the reason in p->problems): a pool the probe cannot read gives no pages.
 */
#define _GNU_SOURCE
#include "hp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define POOLS "sys/kernel/mm/hugepages"

/* "hugepages-2048kB": digits without a leading zero, then exactly "kB"; the
 * size a power of two from 4 kB to 2^40 kB */
uint64_t hp_pool_dirname_size(const char *name)
{
	if (strncmp(name, "hugepages-", 10) != 0)
		return 0;
	const char *d = name + 10;
	size_t n = strspn(d, "0123456789");
	char digits[24];
	uint64_t kb;
	if (n == 0 || n > 13 || d[0] == '0' || strcmp(d + n, "kB") != 0)
		return 0;
	memcpy(digits, d, n);
	digits[n] = '\0';
	if (hp_parse_u64_strict(digits, &kb) || kb < 4 || kb > (1ull << 40) || (kb & (kb - 1)))
		return 0;
	return kb << 10;
}

/* full: also nr_hugepages, which the plan does not need */
static void probe_pool(struct hp_probe *p, const char *root, const char *dname, int full)
{
	struct hp_pool *pool = &p->pools[p->npools];
	char rel[128];
	uint64_t size = hp_pool_dirname_size(dname);
	if (!size) {
		struct hp_buf b = { rel, sizeof rel, 0 };
		rel[0] = '\0';
		hp_buf_printf(&b, POOLS "/%.48s", dname);
		hp_probe_problem(p, rel, "directory name is not hugepages-<power of two>kB: pool ignored");
		return;
	}
	if (p->npools >= HP_MAX_POOLS)
		return;
	memset(pool, 0, sizeof *pool);
	pool->page_size = size;
	static const char *const f[5] = { "nr_hugepages", "free_hugepages", "resv_hugepages",
					   "surplus_hugepages", "nr_overcommit_hugepages" };
	uint64_t *dst[5] = { &pool->total, &pool->free, &pool->resv, &pool->surp, &pool->overcommit };
	for (int i = full ? 0 : 1; i < 5; i++) {
		struct hp_buf b = { rel, sizeof rel, 0 };
		rel[0] = '\0';
		hp_buf_printf(&b, POOLS "/%s/%s", dname, f[i]);
		int rc = hp_probe_u64(p, root, rel, dst[i]);
		if (rc == ENOENT && root[0])
			hp_probe_problem(p, rel, "missing: pool ignored");
		if (rc)
			return;         /* refused (live: a counter that cannot be read) */
	}
	/* the cgroup walk costs ~90 us here (mountinfo alone ~50): the plan
	 * skips it when the pool has no page to give anyway */
	if (full || hp_pool_headroom(pool) > 0) {
		pool->cg_error = hp_cgroup_hugetlb_room(root, pool->page_size, &pool->cg_max, &pool->cg_current,
							pool->cg_where, sizeof pool->cg_where);
	} else {
		pool->cg_max = pool->cg_current = -1;
		hp_strlcpy(pool->cg_where, "not read: no free pages", sizeof pool->cg_where);
	}
	p->npools++;
}

/* "Hugepagesize:       2048 kB" */
static int meminfo_line(void *ctx, char *line, size_t len, int whole)
{
	uint64_t *out = ctx;
	(void)len;
	if (!whole || strncmp(line, "Hugepagesize:", 13) != 0)
		return 0;
	char *s = line + 13 + strspn(line + 13, " \t"), digits[24];
	size_t n = strspn(s, "0123456789");
	uint64_t kb;
	*out = 1;                   /* seen, malformed */
	if (n == 0 || n >= sizeof digits || strcmp(s + n, " kB") != 0)
		return 0;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (hp_parse_u64_strict(digits, &kb) == 0 && kb >= 4 && kb <= (1ull << 40) && !(kb & (kb - 1)))
		*out = kb << 10;
	return 0;
}

static void default_size(struct hp_probe *p, const char *root)
{
	char path[512], line[256];
	uint64_t size = 0;
	if (hp_probe_path(path, sizeof path, root, "proc/meminfo"))
		return;
	int rc = hp_read_lines(path, line, sizeof line, meminfo_line, &size);
	if (rc && rc != ENOENT)
		hp_probe_problem(p, "proc/meminfo", rc == EINVAL ? "truncated (no newline)"
				 : rc == ESPIPE ? "not a regular file" : "cannot be read");
	if (size == 1)
		hp_probe_problem(p, "proc/meminfo", "Hugepagesize is not '<power of two> kB'");
	p->default_huge = size > 1 ? size : 0;
}

struct pool_ctx { struct hp_probe *p; const char *root; };

static void one_pool(void *ctx, const char *name)
{
	if (name[0] != '.')
		probe_pool(((struct pool_ctx *)ctx)->p, ((struct pool_ctx *)ctx)->root, name, 1);
}

void hp_probe_pools(struct hp_probe *p, const char *root, int only_2m)
{
	char path[512];
	p->npools = 0;
	if (only_2m) {          /* the plan's pool, by its known name */
		probe_pool(p, root, "hugepages-2048kB", 0);
		return;
	}
	default_size(p, root);
	if (hp_probe_path(path, sizeof path, root, POOLS))
		return;
	struct pool_ctx ctx = { p, root };
	hp_read_dir(path, one_pool, &ctx);
	/* smallest page size first, for stable output */
	for (int i = 1; i < p->npools; i++)
		for (int j = i; j > 0 && p->pools[j].page_size < p->pools[j - 1].page_size; j--) {
			struct hp_pool t = p->pools[j];
			p->pools[j] = p->pools[j - 1];
			p->pools[j - 1] = t;
		}
}
