/*
 * test_inspect_units.c CASE FIXTURES - `hugepolicy inspect`'s smaps reader
 * (integration/inspect_smaps.c) on the files of tests/fixtures/inspect/,
 * one behaviour per case:
 *   kinds          each mapping of kinds.smaps lands in its kind, totals add up
 *   nohugepage     VmFlags nh is the reason, under THP always too
 *   thp_off        status THP_enabled 0 is read, and is the reason for everything
 *   unaligned      no aligned 2 MiB in the mapping, or its unaligned ends; too small
 *   sparse         an advised 64 MiB mapping 4 MiB resident on base pages
 *   not_advised    THP madvise and no hg; under always the same mapping faulted on base pages
 */
#define _GNU_SOURCE
#include "../integration/hp_inspect.h"
#include "check.h"

#include <string.h>

#define MIB (1024ull * 1024)
#define KIB 1024ull

static const char *dir;

static int line(void *ctx, char *l, size_t len, int whole)
{
	(void)len;
	hp_smaps_line(ctx, l, whole);
	return 0;
}

static void read_smaps(struct hp_smaps *s, const char *name, int thp_enabled, int thp_off)
{
	char path[512], buf[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	hp_smaps_init(s, thp_enabled, thp_off, 0);
	int rc = hp_read_lines(path, buf, sizeof buf, line, s);
	CHECK_MSG(rc == 0, "%s: %d", path, rc);
	hp_smaps_end(s);
	CHECK_MSG(s->bad_lines == 0, "%s: %d lines not understood", name, s->bad_lines);
}

static void kinds(void)
{
	static struct hp_smaps s;
	static const struct { int kind; uint64_t mappings, size, rss; } want[] = {
		{ HP_KIND_HEAP, 1, 132 * KIB, 132 * KIB },
		{ HP_KIND_STACK, 2, 8 * MIB + 132 * KIB, 28 * KIB },    /* [stack] and the thread's */
		{ HP_KIND_ANON_BIG, 1, 8 * MIB, 8 * MIB },
		{ HP_KIND_ANON_SMALL, 2, 76 * KIB + 64 * KIB, 88 * KIB }, /* [anon:arena] too */
		{ HP_KIND_RESERVED, 2, 4 * KIB + 64 * MIB, 0 },         /* guard, arena reserve */
		{ HP_KIND_FILE, 1, 12 * KIB, 12 * KIB },
		{ HP_KIND_HUGETLB, 1, 4 * MIB, 0 },
		{ HP_KIND_SHMEM, 1, 2 * MIB, 2 * MIB },
		{ HP_KIND_OTHER, 1, 8 * KIB, 4 * KIB },
	};
	read_smaps(&s, "kinds.smaps", HP_THP_MADVISE, HP_THP_OFF_NONE);
	uint64_t n = 0, size = 0;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct hp_kind_sum *k = &s.kinds[want[i].kind];
		CHECK_MSG(k->mappings == want[i].mappings && k->size == want[i].size && k->rss == want[i].rss,
			  "%s: %llu mappings, size %llu, rss %llu", hp_kind_name(want[i].kind),
			  (unsigned long long)k->mappings, (unsigned long long)k->size, (unsigned long long)k->rss);
		n += k->mappings, size += k->size;
	}
	CHECK(s.total.mappings == n && s.total.size == size && s.total.mappings == 12);
	CHECK(s.kinds[HP_KIND_HUGETLB].hugetlb == 4 * MIB);
	CHECK(s.kinds[HP_KIND_ANON_BIG].anon_huge == 8 * MIB && s.kinds[HP_KIND_ANON_BIG].hg == 8 * MIB);
	CHECK(s.kinds[HP_KIND_ANON_BIG].thp_eligible == 8 * MIB);
	CHECK(s.ntop > 0 && s.top[0].kind == HP_KIND_ANON_BIG && s.top[0].start == 0x7f0000000000ull);
	CHECK(s.ntop > 1 && s.top[1].kind == HP_KIND_HUGETLB && strcmp(s.top[1].name, "/anon_hugepage (deleted)") == 0);
}

/* the one reason of the one mapping of name */
static int reason(const char *name, int thp_enabled, int thp_off)
{
	static struct hp_smaps s;
	read_smaps(&s, name, thp_enabled, thp_off);
	CHECK_MSG(s.total.mappings == 1 && s.ntop == 1, "%s: %llu mappings", name,
		  (unsigned long long)s.total.mappings);
	CHECK(s.why_bytes[s.top[0].why] == s.top[0].not_huge && s.why_mappings[s.top[0].why] == 1);
	return s.top[0].why;
}

static void nohugepage(void)
{
	CHECK(reason("nohugepage.smaps", HP_THP_MADVISE, HP_THP_OFF_NONE) == HP_WHY_NOHUGEPAGE);
	CHECK(reason("nohugepage.smaps", HP_THP_ALWAYS, HP_THP_OFF_NONE) == HP_WHY_NOHUGEPAGE);
}

static void thp_off(void)
{
	char path[512];
	int on = -9, off = -9;
	snprintf(path, sizeof path, "%s/status_thp_on", dir);
	CHECK(hp_status_thp_enabled(path, &on) == 0 && on == 1);
	snprintf(path, sizeof path, "%s/status_thp_off", dir);
	CHECK(hp_status_thp_enabled(path, &off) == 0 && off == 0);
	CHECK(reason("advised_base.smaps", HP_THP_ALWAYS, HP_THP_OFF_ALL) == HP_WHY_PROCESS_OFF);
	CHECK(reason("nohugepage.smaps", HP_THP_ALWAYS, HP_THP_OFF_ALL) == HP_WHY_PROCESS_OFF);
}

static void unaligned(void)
{
	static struct hp_smaps s;
	read_smaps(&s, "unaligned.smaps", HP_THP_ALWAYS, HP_THP_OFF_NONE);
	CHECK(s.ntop == 3);
	for (int i = 0; i < s.ntop; i++) {
		const struct hp_vma *v = &s.top[i];
		int want = v->end - v->start == 1 * MIB ? HP_WHY_TOO_SMALL : HP_WHY_UNALIGNED;
		CHECK_MSG(v->why == want, "%llx: %s", (unsigned long long)v->start, hp_why_name(v->why));
	}
	CHECK(s.why_bytes[HP_WHY_UNALIGNED] == 5 * MIB / 2 + 2 * MIB && s.why_mappings[HP_WHY_UNALIGNED] == 2);
	CHECK(s.why_bytes[HP_WHY_TOO_SMALL] == 1 * MIB);
}

static void sparse(void)
{
	CHECK(reason("sparse.smaps", HP_THP_MADVISE, HP_THP_OFF_NONE) == HP_WHY_SPARSE);
}

static void not_advised(void)
{
	CHECK(reason("not_advised.smaps", HP_THP_MADVISE, HP_THP_OFF_NONE) == HP_WHY_NOT_ADVISED);
	CHECK(reason("not_advised.smaps", HP_THP_MADVISE, HP_THP_OFF_EXCEPT_ADVISED) == HP_WHY_NOT_ADVISED);
	CHECK(reason("advised_base.smaps", HP_THP_MADVISE, HP_THP_OFF_NONE) == HP_WHY_BASE_FAULTED);
	CHECK(reason("not_advised.smaps", HP_THP_NEVER, HP_THP_OFF_NONE) == HP_WHY_THP_NEVER);
}

int main(int argc, char **argv)
{
	const char *c = argc > 2 ? argv[1] : "";
	dir = argc > 2 ? argv[2] : "";
	if (strcmp(c, "kinds") == 0)
		kinds();
	else if (strcmp(c, "nohugepage") == 0)
		nohugepage();
	else if (strcmp(c, "thp_off") == 0)
		thp_off();
	else if (strcmp(c, "unaligned") == 0)
		unaligned();
	else if (strcmp(c, "sparse") == 0)
		sparse();
	else if (strcmp(c, "not_advised") == 0)
		not_advised();
	else
		return 2;
	return check_result(c);
}
