/*
 * probe_thp.c - THP as the kernel offers it (admin-guide/mm/transhuge.rst):
 * enabled, defrag, shmem_enabled, hpage_pmd_size, the per-size
 * hugepages-<size>kB/enabled of kernels >= 6.8, khugepaged's settings; and
 * what this process got: the inherited prctl(PR_SET_THP_DISABLE) switch and
 * the base page size.  Under a root other than this machine's, the process's
 * part comes from files (tests/fixtures/README): proc/self/status's
 * `THP_enabled:` line, fixture/thp_disable_except_advised and
 * fixture/base_page_size.
 */
#define _GNU_SOURCE
#include "hp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)  /* linux/prctl.h of 6.18 */
#endif

#define THP "sys/kernel/mm/transparent_hugepage/"

const char *hp_thp_name(int thp)
{
	switch (thp) {
	case HP_THP_ALWAYS: return "always";
	case HP_THP_MADVISE: return "madvise";
	case HP_THP_NEVER: return "never";
	case HP_THP_INHERIT: return "inherit";
	default: return "missing";
	}
}

const char *hp_thp_off_name(int off)
{
	return off == HP_THP_OFF_ALL ? "all" : off == HP_THP_OFF_EXCEPT_ADVISED ? "except-advised" : "none";
}

/* The bracketed word of a sysfs choice file, "always [madvise] never\n":
 * one line of words, exactly one of them in brackets, made of [a-z_+].
 * 0 and the word in out; ENOENT; EINVAL (refused, said in p->problems). */
static int bracketed(struct hp_probe *p, const char *root, const char *rel, char *out, size_t cap)
{
	char buf[256];
	out[0] = '\0';
	int rc = hp_probe_line(p, root, rel, buf, sizeof buf);
	if (rc)
		return rc;
	char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;
	size_t w = r ? (size_t)(r - l - 1) : 0;
	if (!l || !r || strchr(r, '[') || strchr(buf, ']') != r)
		return hp_probe_problem(p, rel, "not one [selected] word"), EINVAL;
	if (w == 0 || w >= cap || strspn(l + 1, "abcdefghijklmnopqrstuvwxyz_+") != w ||
	    (l > buf && l[-1] != ' ') || (r[1] && r[1] != ' '))
		return hp_probe_problem(p, rel, "selected word malformed"), EINVAL;
	memcpy(out, l + 1, w);
	out[w] = '\0';
	return 0;
}

/* enabled (per_size: inherit too); MISSING if absent or refused */
static int thp_mode(struct hp_probe *p, const char *root, const char *rel, int per_size)
{
	char word[24];
	if (bracketed(p, root, rel, word, sizeof word))
		return HP_THP_MISSING;
	if (strcmp(word, "always") == 0) return HP_THP_ALWAYS;
	if (strcmp(word, "madvise") == 0) return HP_THP_MADVISE;
	if (strcmp(word, "never") == 0) return HP_THP_NEVER;
	if (per_size && strcmp(word, "inherit") == 0) return HP_THP_INHERIT;
	hp_probe_problem(p, rel, "unknown mode");
	return HP_THP_MISSING;
}

static int64_t counter(struct hp_probe *p, const char *root, const char *rel, uint64_t max)
{
	uint64_t v;
	if (hp_probe_u64(p, root, rel, &v))
		return -1;
	if (v > max)
		return hp_probe_problem(p, rel, "out of range"), -1;
	return (int64_t)v;
}

struct size_ctx { struct hp_probe *p; const char *root; };

/* one hugepages-<size>kB directory: its enabled word, in size order */
static void one_size(void *ctx, const char *name)
{
	struct hp_probe *p = ((struct size_ctx *)ctx)->p;
	const char *root = ((struct size_ctx *)ctx)->root;
	char rel[96];
	uint64_t size = hp_pool_dirname_size(name);
	if (strncmp(name, "hugepages-", 10) != 0)
		return;
	struct hp_buf b = { rel, sizeof rel, 0 };
	rel[0] = '\0';
	hp_buf_printf(&b, THP "%.40s/enabled", name);
	if (!size) {
		hp_probe_problem(p, rel, "directory name is not hugepages-<power of two>kB");
		return;
	}
	if (p->nthp_sizes >= HP_MAX_THP_SIZES)
		return;
	int before = p->nproblems, mode = thp_mode(p, root, rel, 1);
	if (mode == HP_THP_MISSING && p->nproblems == before)
		return;         /* no enabled file: a shmem-only size (8 kB) */
	int i = p->nthp_sizes++;
	for (; i > 0 && p->thp_sizes[i - 1].size > size; i--)
		p->thp_sizes[i] = p->thp_sizes[i - 1];
	p->thp_sizes[i] = (struct hp_thp_size){ size, mode };
}

/* transparent_hugepage/hugepages-<size>kB/enabled, smallest first */
static void per_size(struct hp_probe *p, const char *root)
{
	char path[512];
	struct size_ctx ctx = { p, root };
	p->nthp_sizes = 0;
	if (hp_probe_path(path, sizeof path, root, THP) == 0)
		hp_read_dir(path, one_size, &ctx);
}

void hp_probe_thp(struct hp_probe *p, const char *root, int full)
{
	p->thp_enabled = thp_mode(p, root, THP "enabled", 0);
	if (!full)
		return;
	bracketed(p, root, THP "defrag", p->thp_defrag, sizeof p->thp_defrag);
	bracketed(p, root, THP "shmem_enabled", p->thp_shmem, sizeof p->thp_shmem);
	p->max_ptes_none = (int)counter(p, root, THP "khugepaged/max_ptes_none", 1u << 20);
	p->khugepaged_defrag = (int)counter(p, root, THP "khugepaged/defrag", 1);
	p->pages_to_scan = counter(p, root, THP "khugepaged/pages_to_scan", 1u << 31);
	p->scan_sleep_ms = counter(p, root, THP "khugepaged/scan_sleep_millisecs", 1u << 31);
	hp_probe_thp_sizes(p, root);
}

void hp_probe_thp_sizes(struct hp_probe *p, const char *root)
{
	int64_t pmd = counter(p, root, THP "hpage_pmd_size", 1ull << 40);
	if (pmd > 0 && (pmd & (pmd - 1)) == 0)
		p->pmd_size = (uint64_t)pmd;
	else if (pmd >= 0)
		hp_probe_problem(p, THP "hpage_pmd_size", "not a power of two");
	per_size(p, root);
}

/* proc/self/status: "THP_enabled:\t1" (kernel >= 5.0); 0 when the process
 * has PR_SET_THP_DISABLE's complete form (6.18 shows 1 for except-advised) */
static int status_line(void *ctx, char *line, size_t len, int whole)
{
	int *out = ctx;
	(void)len;
	if (!whole || strncmp(line, "THP_enabled:", 12) != 0)
		return 0;
	const char *v = line + 12 + strspn(line + 12, " \t");
	*out = strcmp(v, "0") == 0 ? 0 : strcmp(v, "1") == 0 ? 1 : -2;
	return 0;
}

int hp_status_thp_enabled(const char *path, int *enabled)
{
	char line[256];
	*enabled = -1;
	return hp_read_lines(path, line, sizeof line, status_line, enabled);
}

void hp_probe_process(struct hp_probe *p, const char *root)
{
	if (!root[0]) {
		int r = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);     /* prctl(2) */
		p->thp_process_off = r <= 0 ? HP_THP_OFF_NONE
			: r & PR_THP_DISABLE_EXCEPT_ADVISED ? HP_THP_OFF_EXCEPT_ADVISED : HP_THP_OFF_ALL;
		long ps = sysconf(_SC_PAGESIZE);
		p->base_page_size = ps > 0 ? (uint64_t)ps : 0;
		return;
	}
	char path[512];
	int enabled = -1;           /* -1: no such line */
	if (hp_probe_path(path, sizeof path, root, "proc/self/status") == 0) {
		int rc = hp_status_thp_enabled(path, &enabled);
		if (rc && rc != ENOENT)
			hp_probe_problem(p, "proc/self/status", rc == EINVAL ? "truncated (no newline)"
					 : rc == ESPIPE ? "not a regular file" : "cannot be read");
	}
	if (enabled == -2)
		hp_probe_problem(p, "proc/self/status", "THP_enabled is not 0 or 1");
	uint64_t ea = 0, ps = 0;
	if (hp_probe_u64(p, root, "fixture/thp_disable_except_advised", &ea) == 0 && ea > 1) {
		hp_probe_problem(p, "fixture/thp_disable_except_advised", "not 0 or 1");
		ea = 0;
	}
	p->thp_process_off = enabled == 0 ? HP_THP_OFF_ALL : ea ? HP_THP_OFF_EXCEPT_ADVISED : HP_THP_OFF_NONE;
	if (hp_probe_u64(p, root, "fixture/base_page_size", &ps) == 0) {
		if (ps >= 4096 && ps <= (1u << 20) && (ps & (ps - 1)) == 0)
			p->base_page_size = ps;
		else
			hp_probe_problem(p, "fixture/base_page_size", "not a power of two from 4096 to 1 MiB");
	}
}
