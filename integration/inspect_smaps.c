/*
 * inspect_smaps.c - /proc/PID/smaps (proc(5), admin-guide/mm/transhuge.rst)
 * read line by line into kinds of mapping and the reason anonymous memory
 * is on base pages.  A header line starts a mapping ("START-END PERMS
 * OFFSET DEV INODE [PATHNAME]"); "Key: N kB" lines and "VmFlags: ..." fill
 * it; the next header or the end counts it.  A mapping's kind comes from
 * its flags and name (hp_inspect.h); a thread stack is told by the guard
 * below it, so the previous mapping is kept.  Invariant: every mapping is
 * counted once, in one kind, and total is the sum of the kinds.
 */
#include "hp_inspect.h"
#include "../policy/hp_policy.h"

#include <stdlib.h>
#include <string.h>

#define GUARD_MAX (64u * 1024u)

const char *hp_kind_name(int kind)
{
	static const char *const names[HP_KIND_COUNT] = {
		"heap", "stack", "anon_big", "anon_small", "reserved", "file", "hugetlb", "shmem", "other",
	};
	return kind >= 0 && kind < HP_KIND_COUNT ? names[kind] : "?";
}

const char *hp_why_name(int why)
{
	static const char *const names[HP_WHY_COUNT] = {
		"thp_disabled_process", "thp_never", "nohugepage", "too_small", "unaligned",
		"not_advised", "not_eligible", "sparse", "base_faulted",
	};
	return why >= 0 && why < HP_WHY_COUNT ? names[why] : "?";
}

void hp_smaps_init(struct hp_smaps *s, int thp_enabled, int thp_off, uint64_t pmd_size)
{
	memset(s, 0, sizeof *s);
	s->thp_enabled = thp_enabled;
	s->thp_off = thp_off;
	s->pmd_size = pmd_size ? pmd_size : HP_HUGE_2M;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int kind_of(const struct hp_smaps *s, const struct hp_vma *v)
{
	const char *n = v->name;
	if (v->ht)
		return HP_KIND_HUGETLB;
	if (v->sh && (!n[0] || starts(n, "/dev/shm/") || starts(n, "/SYSV") || starts(n, "/memfd:") ||
		      starts(n, "/dev/zero")))
		return HP_KIND_SHMEM;
	if (n[0] == '/')
		return HP_KIND_FILE;
	if (strcmp(n, "[heap]") == 0)
		return HP_KIND_HEAP;
	if (strcmp(n, "[stack]") == 0)
		return HP_KIND_STACK;
	if (n[0] == '[' && !starts(n, "[anon:"))
		return HP_KIND_OTHER;
	if (strncmp(v->perms, "---", 3) == 0)
		return HP_KIND_RESERVED;
	const struct hp_vma *g = &s->prev;
	if (s->prev.end == v->start && strncmp(g->perms, "---p", 4) == 0 && !g->name[0] &&
	    g->end - g->start <= GUARD_MAX && strncmp(v->perms, "rw", 2) == 0)
		return HP_KIND_STACK;   /* pthread's guard page below the stack */
	return v->end - v->start >= s->pmd_size ? HP_KIND_ANON_BIG : HP_KIND_ANON_SMALL;
}

/* the first reason in enum hp_why's order that explains the not-huge bytes */
static int why_of(const struct hp_smaps *s, const struct hp_vma *v)
{
	uint64_t pmd = s->pmd_size, size = v->end - v->start;
	uint64_t lo = (v->start + pmd - 1) & ~(pmd - 1), hi = v->end & ~(pmd - 1);
	uint64_t body = hi > lo ? hi - lo : 0;
	if (s->thp_off == HP_THP_OFF_ALL)
		return HP_WHY_PROCESS_OFF;
	if (s->thp_enabled == HP_THP_NEVER || s->thp_enabled == HP_THP_MISSING)
		return HP_WHY_THP_NEVER;
	if (v->nh)
		return HP_WHY_NOHUGEPAGE;
	if (body == 0)
		return size < pmd ? HP_WHY_TOO_SMALL : HP_WHY_UNALIGNED;
	if ((s->thp_enabled == HP_THP_MADVISE || s->thp_off == HP_THP_OFF_EXCEPT_ADVISED) && !v->hg)
		return HP_WHY_NOT_ADVISED;
	if (v->anon_huge > 0 && v->not_huge <= size - body)
		return HP_WHY_UNALIGNED;
	if (v->thp_eligible == 0)
		return HP_WHY_NOT_ELIGIBLE;
	if (v->rss < size / 4)
		return HP_WHY_SPARSE;
	return HP_WHY_BASE_FAULTED;
}

static void note_library(struct hp_smaps *s, const char *name)
{
	static const char *const allocators[] = { "libjemalloc.so", "libmimalloc.so", "libtcmalloc",
						  "libhoard.so", "libsnmalloc" };
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (starts(base, "libhugepolicy.so")) {
		if (!s->hugepolicy[0])
			hp_strlcpy(s->hugepolicy, name, sizeof s->hugepolicy);
		return;
	}
	for (size_t i = 0; i < sizeof allocators / sizeof allocators[0]; i++) {
		size_t len = strlen(s->allocators), n = strcspn(base, " ");
		if (!starts(base, allocators[i]) || n == 0)
			continue;
		for (const char *f = strstr(s->allocators, base); f; f = strstr(f + 1, base))
			if ((f == s->allocators || f[-1] == ' ') && (f[n] == ' ' || !f[n]))
				return;         /* listed already */
		if (len + n + 2 <= sizeof s->allocators) {
			if (len)
				s->allocators[len++] = ' ';
			memcpy(s->allocators + len, base, n);
			s->allocators[len + n] = '\0';
		}
		return;
	}
}

static void add(struct hp_kind_sum *k, const struct hp_vma *v)
{
	uint64_t size = v->end - v->start;
	k->mappings++;
	k->size += size;
	k->rss += v->rss;
	k->anon_huge += v->anon_huge;
	k->pmd_mapped += v->pmd_mapped;
	k->hugetlb += v->hugetlb;
	k->swap += v->swap;
	k->thp_eligible += v->thp_eligible == 1 ? size : 0;
	k->hg += v->hg ? size : 0;
	k->nh += v->nh ? size : 0;
}

static void keep_top(struct hp_smaps *s, const struct hp_vma *v)
{
	uint64_t key = v->rss + v->hugetlb;
	int i = s->ntop < HP_INSPECT_TOP ? s->ntop++ : HP_INSPECT_TOP;
	for (; i > 0; i--) {
		const struct hp_vma *t = &s->top[i - 1];
		uint64_t tk = t->rss + t->hugetlb;
		if (tk > key || (tk == key && t->end - t->start >= v->end - v->start))
			break;
		if (i < HP_INSPECT_TOP)
			s->top[i] = *t;
	}
	if (i < HP_INSPECT_TOP)
		s->top[i] = *v;
}

static void finish(struct hp_smaps *s)
{
	if (!s->have)
		return;
	struct hp_vma *v = &s->cur;
	v->kind = kind_of(s, v);
	v->why = -1;
	if (v->kind <= HP_KIND_ANON_SMALL) {
		v->not_huge = v->rss > v->anon_huge ? v->rss - v->anon_huge : 0;
		if (v->not_huge) {
			v->why = why_of(s, v);
			s->why_bytes[v->why] += v->not_huge;
			s->why_mappings[v->why]++;
		}
	}
	if (v->kind == HP_KIND_FILE)
		note_library(s, v->name);
	add(&s->kinds[v->kind], v);
	add(&s->total, v);
	if (v->rss + v->hugetlb > 0)
		keep_top(s, v);
	s->prev = *v;
	s->have = 0;
}

/* "START-END PERMS OFFSET DEV INODE [PATHNAME]": 1 if it is one */
static int header(struct hp_smaps *s, const char *line)
{
	char *e;
	uint64_t start = strtoull(line, &e, 16);
	if (e == line || *e != '-')
		return 0;
	const char *p = e + 1;
	uint64_t end = strtoull(p, &e, 16);
	if (e == p || *e != ' ' || end < start || strlen(e + 1) < 4 || e[5] != ' ')
		return 0;
	finish(s);
	struct hp_vma *v = &s->cur;
	memset(v, 0, sizeof *v);
	v->start = start, v->end = end, v->thp_eligible = -1;
	memcpy(v->perms, e + 1, 4);
	p = e + 6;
	for (int field = 0; field < 3 && *p; field++) {         /* offset, dev, inode */
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	hp_strlcpy(v->name, p, sizeof v->name);
	s->have = 1;
	return 1;
}

static void flags(struct hp_vma *v, const char *p)
{
	for (; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");
		if (n == 2) {
			v->hg |= strncmp(p, "hg", 2) == 0;
			v->nh |= strncmp(p, "nh", 2) == 0;
			v->ht |= strncmp(p, "ht", 2) == 0;
			v->sh |= strncmp(p, "sh", 2) == 0;
		}
		p += n;
	}
}

void hp_smaps_line(struct hp_smaps *s, const char *line, int whole)
{
	if (header(s, line))
		return;
	const char *colon = strchr(line, ':');
	if (!whole || !colon || !s->have) {
		s->bad_lines++;
		return;
	}
	struct hp_vma *v = &s->cur;
	size_t klen = (size_t)(colon - line);
	const char *val = colon + 1 + strspn(colon + 1, " \t");
	if (klen == 7 && strncmp(line, "VmFlags", 7) == 0) {
		flags(v, val);
		return;
	}
	char *e;
	uint64_t n = strtoull(val, &e, 10);
	if (e == val) {
		s->bad_lines++;
		return;
	}
	if (klen == 11 && strncmp(line, "THPeligible", 11) == 0) {
		v->thp_eligible = n != 0;
		return;
	}
	if (strcmp(e, " kB") != 0)
		return;                 /* a field this reader does not use */
	n *= 1024;
#define KEY(name) (klen == sizeof name - 1 && strncmp(line, name, klen) == 0)
	if (KEY("Rss"))
		v->rss = n;
	else if (KEY("AnonHugePages"))
		v->anon_huge = n;
	else if (KEY("ShmemPmdMapped") || KEY("FilePmdMapped"))
		v->pmd_mapped += n;
	else if (KEY("Shared_Hugetlb") || KEY("Private_Hugetlb"))
		v->hugetlb += n;
	else if (KEY("Swap"))
		v->swap = n;
#undef KEY
}

void hp_smaps_end(struct hp_smaps *s)
{
	finish(s);
}
