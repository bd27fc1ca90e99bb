/*
 * cgroup.c - the hugetlb room the cgroups of this process leave, per huge
 * page size: the smallest limit - usage from the process's cgroup up to the
 * root of the mount it is seen through.  hugetlb is in one hierarchy: v1 if
 * /proc/self/cgroup has "N:hugetlb:/path" (hugetlb.<size>.limit_in_bytes,
 * usage_in_bytes), else v2 "0::/path" (.max, .current) if cgroup.controllers
 * offers it; rsvd pairs count too.  The mount: the mountinfo entry whose root
 * (escapes like \040 decoded) contains the path - both relative to our cgroup
 * namespace.  "max" and values >= 2^62 (v1 and this kernel print
 * 9223372036854771712) are no limit; size names follow the kernel's mem_fmt().
 * Another process's room (`hugepolicy inspect`) reads /proc/PID/ instead.
 * Fixed stack buffers, open/read only (it runs inside the first malloc);
 * anything malformed is refused with an errno and a reason, never guessed.
 */
#define _GNU_SOURCE
#include "hp_policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CG_PATH 512             /* a cgroup path, mount point or mount root */
#define CG_LINE 4096            /* one line of /proc/self/cgroup or mountinfo */
#define CG_NOLIMIT INT64_MAX
#define NONE ((size_t)-1)

struct cg_hier {                /* one hierarchy: where this process is, where it is mounted */
	char path[CG_PATH];     /* from /proc/self/cgroup, "" if no such line */
	char mnt[CG_PATH];      /* mount point, "" if no mount contains path */
	char root[CG_PATH];     /* that mount's root in the hierarchy */
};

struct cg_ctx {
	struct cg_hier v1, v2;
	int v2_mounts;          /* cgroup2 mounts seen */
	unsigned lineno;
	const char *file;       /* for messages */
	char *why; size_t why_cap;      /* the caller's `where` */
};

struct cg_best { int64_t room, limit, usage; };

static int __attribute__((format(printf, 3, 4))) say(struct cg_ctx *c, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (c->why_cap && vsnprintf(c->why, c->why_cap, fmt, ap) < 0)
		c->why[0] = '\0';
	va_end(ap);
	return err;
}

#define TOO_LONG(c, no) say(c, E2BIG, "%s line %u longer than %d bytes", (c)->file, no, CG_LINE - 1)

/* w is one of the sep-separated words of list */
static int has_word(const char *list, char sep, const char *w)
{
	size_t n = strlen(w);
	for (const char *s = list; s; s = (s = strchr(s, sep)) ? s + 1 : NULL)
		if (strncmp(s, w, n) == 0 && (s[n] == sep || !s[n]))
			return 1;
	return 0;
}

static int copy(char *dst, const char *src)
{
	return strlen(src) >= CG_PATH ? ENAMETOOLONG : (memcpy(dst, src, strlen(src) + 1), 0);
}

/* "7:hugetlb:/a/b" (v1), "0::/a/b" (v2) */
static int cgroup_line(void *arg, char *line, size_t len, int whole)
{
	struct cg_ctx *c = arg;
	unsigned no = ++c->lineno;
	char *a = memchr(line, ':', len), *b = a ? strchr(a + 1, ':') : NULL;
	if (!b)
		return whole ? say(c, EINVAL, "%s line %u: not ID:controllers:path", c->file, no)
			     : TOO_LONG(c, no);
	*a = *b = '\0';
	if (!line[0] || strspn(line, "0123456789") != strlen(line))
		return say(c, EINVAL, "%s line %u: hierarchy ID '%.16s' is not a number", c->file, no, line);
	int v2 = strcmp(line, "0") == 0 && !a[1], v1 = has_word(a + 1, ',', "hugetlb");
	if (!v1 && !v2)
		return 0;
	if (!whole)
		return TOO_LONG(c, no);
	if (b[1] != '/')
		return say(c, EINVAL, "%s line %u: cgroup path '%.64s' is not absolute", c->file, no, b + 1);
	if (copy(v1 ? c->v1.path : c->v2.path, b + 1))
		return say(c, ENAMETOOLONG, "%s line %u: cgroup path longer than %d bytes", c->file, no, CG_PATH - 1);
	return 0;
}

/* mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134 backslash), in place */
static int unescape(char *s)
{
	char *d = s;
	for (; *s; s++, d++) {
		*d = *s;
		if (*s != '\\')
			continue;
		if (s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' || s[3] < '0' || s[3] > '7' ||
		    !(*d = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'))))
			return EINVAL;
		s += 3;
	}
	*d = '\0';
	return 0;
}

/* The length of root if the mount's root contains path, else NONE; a path
 * with a "." or ".." component is contained by nothing (a process moved out
 * of its cgroup namespace sees "/../x"). */
static size_t contains(const char *root, const char *path)
{
	size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (strncmp(path, root, rl) != 0 || (path[rl] && path[rl] != '/'))
		return NONE;
	for (const char *s = path; (s = strchr(s, '/')) != NULL; s++) {
		size_t dots = strspn(s + 1, ".");
		if ((dots == 1 || dots == 2) && (s[1 + dots] == '/' || !s[1 + dots]))
			return NONE;
	}
	return rl;
}

/* "36 35 0:38 / /sys/fs/cgroup/unified rw,relatime shared:9 - cgroup2 cgroup2 rw" */
static int mount_line(void *arg, char *line, size_t len, int whole)
{
	struct cg_ctx *c = arg;
	unsigned no = ++c->lineno;
	char *f[40], *s = line;
	int n = 0, dash = -1;
	(void)len;
	while (n < 40 && (f[n] = strsep(&s, " ")) != NULL) {
		if (dash < 0 && n >= 6 && strcmp(f[n], "-") == 0)
			dash = n;
		n++;
	}
	int v2 = dash >= 0 && n > dash + 1 && strcmp(f[dash + 1], "cgroup2") == 0;
	int v1 = dash >= 0 && n > dash + 1 && strcmp(f[dash + 1], "cgroup") == 0;
	/* an overlong line (an overlay mount's lowerdir=...) whose prefix shows
	 * a complete file system type that is no cgroup is skipped */
	if (!whole)
		return !v1 && !v2 && dash >= 0 && n > dash + 2 ? 0 : TOO_LONG(c, no);
	if (dash < 0 || n < dash + 4)
		return say(c, EINVAL, "%s line %u: missing fields", c->file, no);
	if (!v2 && !(v1 && has_word(f[dash + 3], ',', "hugetlb")))
		return 0;
	struct cg_hier *h = v2 ? &c->v2 : &c->v1;
	c->v2_mounts += v2;
	if (unescape(f[3]) || unescape(f[4]))
		return say(c, EINVAL, "%s line %u: bad escape in root or mount point", c->file, no);
	if (f[3][0] != '/' || f[4][0] != '/')
		return say(c, EINVAL, "%s line %u: root or mount point not absolute", c->file, no);
	size_t rl = h->path[0] ? contains(f[3], h->path) : NONE;
	/* the same hierarchy mounted twice: take the mount that shows more ancestors */
	if (rl == NONE || (h->mnt[0] && rl >= contains(h->root, h->path)))
		return 0;
	if (copy(h->root, f[3]) || copy(h->mnt, f[4]))
		return say(c, ENAMETOOLONG, "%s line %u: mount point longer than %d bytes", c->file, no, CG_PATH - 1);
	/* no mount can show more than the hierarchy's root: stop reading */
	return rl == 0 && (v1 || !c->v1.path[0]) ? -1 : 0;
}

/* "123\n", or "max\n" (v2 limits): CG_NOLIMIT for no limit. */
static int read_value(const char *path, int64_t *out, const char **why)
{
	char buf[32];
	int n = hp_read_line(path, buf, sizeof buf, why);
	if (n < 0)
		return -n;
	if (strcmp(buf, "max") == 0)
		return *out = CG_NOLIMIT, 0;
	if (n == 0 || n > 19 || strspn(buf, "0123456789") != (size_t)n)
		return *why = "not a number", EINVAL;
	uint64_t v = 0;
	for (char *s = buf; *s; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	*out = v >= (1ull << 62) ? CG_NOLIMIT : (int64_t)v;
	return 0;
}

/* One cgroup directory: the fault pair and the rsvd pair, each if present. */
static int level(struct cg_ctx *c, const char *dir, const char *cgname, int v2, const char *size,
		 struct cg_best *best)
{
	static const char *const names[2][2][2] = {
		{ { "limit_in_bytes", "usage_in_bytes" }, { "rsvd.limit_in_bytes", "rsvd.usage_in_bytes" } },
		{ { "max", "current" }, { "rsvd.max", "rsvd.current" } },
	};
	for (int r = 0; r < 2; r++) {
		int64_t val[2];
		for (int k = 0; k < 2; k++) {
			char path[CG_PATH * 3 + 64];
			const char *why = "", *name = names[v2][r][k];
			snprintf(path, sizeof path, "%s/hugetlb.%s.%s", dir, size, name);
			int rc = read_value(path, &val[k], &why);
			if (rc == ENOENT && k == 0)
				break;  /* no such pair here (controller not enabled, or no rsvd) */
			if (rc == 0 && k == 1 && val[1] == CG_NOLIMIT)
				rc = EINVAL, why = "not a usage";
			if (rc)
				return say(c, rc, "cgroup %s hugetlb.%s.%s %s", cgname, size, name, why);
			if (k == 0 && val[0] == CG_NOLIMIT)
				break;  /* no limit: its usage does not matter */
			int64_t room = k == 1 && val[0] > val[1] ? val[0] - val[1] : 0;
			if (k == 1 && (best->limit < 0 || room < best->room)) {
				*best = (struct cg_best){ room, val[0], val[1] };
				say(c, 0, "cgroup %s hugetlb.%s.%s", cgname, size, names[v2][r][0]);
			}
		}
	}
	return 0;
}

/* The levels from the process's cgroup up to the mount's root. */
static int walk(struct cg_ctx *c, const char *prefix, const struct cg_hier *h, int v2, const char *size,
		struct cg_best *best)
{
	char dir[CG_PATH * 3], cgname[CG_PATH];
	const char *rel = h->path + contains(h->root, h->path);
	size_t ml = (size_t)snprintf(dir, sizeof dir, "%s%s", prefix, h->mnt);
	memcpy(dir + ml, rel, strlen(rel) + 1);         /* fits: 255 + 511 + 511 */
	memcpy(cgname, h->path, strlen(h->path) + 1);
	for (;;) {
		int rc = level(c, dir, cgname, v2, size, best);
		if (rc || strlen(dir) <= ml)
			return rc;
		*strrchr(dir, '/') = '\0';
		char *s = strrchr(cgname, '/');
		s[s == cgname] = '\0';  /* "/a/b" -> "/a" -> "/" */
	}
}

/* /proc/self/cgroup, then /proc/self/mountinfo (or PROC's): which hierarchy,
 * mounted where.  -1: no line of a hierarchy that can have hugetlb. */
static int locate(struct cg_ctx *c, const char *prefix, const char *proc)
{
	static const char *const files[2] = { "cgroup", "mountinfo" };
	char path[256 + 64], line[CG_LINE], file[48];
	for (int i = 0; i < 2; i++) {
		snprintf(file, sizeof file, "/proc/%s/%s", proc, files[i]);
		c->file = file, c->lineno = 0;
		snprintf(path, sizeof path, "%s%s", prefix, c->file);
		int rc = hp_read_lines(path, line, sizeof line, i ? mount_line : cgroup_line, c);
		if (rc > 0)
			return c->why_cap && c->why[0] ? rc : say(c, rc, "%s %s", c->file, rc == EINVAL ?
				"truncated (no newline at the end)" : strerrorname_np(rc) ? strerrorname_np(rc) : "error");
		if (i == 0 && !c->v1.path[0] && !c->v2.path[0])
			return -1;
	}
	return 0;
}

/* PROC's cgroup files under root (prefix), its cgroupfs under fsroot */
static int room(const char *root, const char *proc, const char *fsroot, uint64_t page_size, int64_t *limit,
		int64_t *usage, char *where, size_t where_cap)
{
	struct cg_ctx c;
	char prefix[256], path[CG_PATH + 300], size[24];
	memset(&c, 0, sizeof c);
	c.why = where, c.why_cap = where_cap;
	*limit = *usage = -1;
	say(&c, 0, "%s", "");
	if (page_size < 1024 || (page_size & (page_size - 1)))
		return say(&c, EINVAL, "page size %llu is not a huge page size", (unsigned long long)page_size);
	int u = page_size >= (1ull << 30) ? 2 : page_size >= (1ull << 20) ? 1 : 0;     /* KB, MB, GB */
	snprintf(size, sizeof size, "%llu%cB", (unsigned long long)(page_size >> (10 * (u + 1))), "KMG"[u]);
	size_t rl = root ? strlen(root) : 0;
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	if (rl >= sizeof prefix)
		return say(&c, ENAMETOOLONG, "root directory longer than %zu bytes", sizeof prefix - 1);
	snprintf(prefix, sizeof prefix, "%.*s", (int)rl, root ? root : "");
	int rc = locate(&c, prefix, proc);
	if (rc)
		return rc < 0 ? say(&c, 0, "no hugetlb cgroup: /proc/%s/cgroup has no hugetlb or v2 line", proc) : rc;
	if (fsroot)
		snprintf(prefix, sizeof prefix, "%s", fsroot);
	int v2 = !c.v1.path[0];
	const struct cg_hier *h = v2 ? &c.v2 : &c.v1;
	if (!h->mnt[0])
		return say(&c, ENOENT, "no %s mount%s shows cgroup %s", v2 ? "cgroup2" : "hugetlb cgroup",
			   v2 && c.v2_mounts == 0 ? " at all" : "", h->path);
	if (v2) {
		char list[512];
		const char *why = "";
		snprintf(path, sizeof path, "%s%s/cgroup.controllers", prefix, h->mnt);
		int n = hp_read_line(path, list, sizeof list, &why);
		if (n < 0)
			return say(&c, -n, "%s/cgroup.controllers %s", h->mnt, why);
		if (!has_word(list, ' ', "hugetlb"))
			return say(&c, 0, "no hugetlb controller in cgroup v2 (%s/cgroup.controllers)", h->mnt);
	}
	struct cg_best best = { -1, -1, -1 };
	rc = walk(&c, prefix, h, v2, size, &best);
	if (rc)
		return rc;
	if (best.limit < 0)
		return say(&c, 0, "cgroup %s: no hugetlb.%s limit", h->path, size);
	*limit = best.limit, *usage = best.usage;
	return 0;
}

int hp_cgroup_hugetlb_room(const char *root, uint64_t page_size, int64_t *limit, int64_t *usage,
			   char *where, size_t where_cap)
{
	return room(root, "self", NULL, page_size, limit, usage, where, where_cap);
}

int hp_cgroup_hugetlb_room_pid(int pid, uint64_t page_size, int64_t *limit, int64_t *usage,
			       char *where, size_t where_cap)
{
	char proc[24], fsroot[48], ns[48], self[64] = "", other[64] = "";
	snprintf(proc, sizeof proc, "%d", pid);
	snprintf(fsroot, sizeof fsroot, "/proc/%d/root", pid);
	snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", pid);
	/* the cgroupfs as the process sees it: through its root when its mount
	 * namespace is not ours (a container), else ours (a chroot keeps it) */
	ssize_t a = readlink("/proc/self/ns/mnt", self, sizeof self - 1), b = readlink(ns, other, sizeof other - 1);
	int same = a > 0 && b == a && memcmp(self, other, (size_t)a) == 0;
	return room("", proc, same ? "" : fsroot, page_size, limit, usage, where, where_cap);
}
