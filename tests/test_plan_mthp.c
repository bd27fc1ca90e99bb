/* test_plan_mthp.c - which sub-PMD THP sizes (mTHP) auto uses, and how
 * (policy/plan_mthp.c), from fake probes: no sysfs.  One behaviour per
 * argv[1]; the decision, its fields and the reason the plan gives. */
#include "../policy/hp_policy.h"
#include "check.h"

#include <string.h>

#define K64 (64u << 10)

/* THP `top`, the PMD size `pmd2m`, 16 KiB to 1 MiB `never` but 64 KiB `m64` */
static struct hp_probe probe(int top, int pmd2m, int m64)
{
	struct hp_probe p;
	memset(&p, 0, sizeof p);
	p.thp_enabled = top;
	p.pmd_size = HP_HUGE_2M;
	p.base_page_size = 4096;
	for (uint64_t s = 16u << 10; s <= HP_HUGE_2M; s <<= 1)
		p.thp_sizes[p.nthp_sizes++] = (struct hp_thp_size){ s, s == K64 ? m64 : s == HP_HUGE_2M ? pmd2m
								    : HP_THP_NEVER };
	p.npools = 1;
	p.pools[0].page_size = HP_HUGE_2M;
	p.pools[0].cg_max = p.pools[0].cg_current = -1;
	return p;
}

static struct hp_plan plan(int backend, int pages, const struct hp_probe *p, uint64_t threshold)
{
	struct hp_options o;
	struct hp_plan pl;
	hp_options_defaults(&o);
	o.backend = backend;
	o.pages = pages;
	if (threshold)
		o.threshold = threshold;
	hp_plan_make(&o, p, &pl);
	return pl;
}

static int has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* 64 KiB madvise under auto on THP, every backend: mappings from 128 KiB
 * on advised (glibc's mmapped blocks below the threshold), the size named */
static void advise(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_INHERIT, HP_THP_MADVISE);
	for (int be = 0; be < HP_BACKEND_COUNT; be++) {
		struct hp_plan pl = plan(be, HP_PAGES_AUTO, &p, 0);
		CHECK_MSG(pl.mthp == HP_MTHP_ADVISE, "%s: %s", hp_backend_name(be), pl.mthp_reason);
		CHECK(pl.mthp_advised == K64 && pl.mthp_kernel == 0);
		CHECK(pl.mthp_min == 2 * K64);
		CHECK_MSG(has(pl.mthp_reason, "64 KiB madvise") && has(pl.mthp_reason, "from 128 KiB on (glibc: its mmapped blocks below 4 MiB)"),
			  "%s", pl.mthp_reason);
	}
}

/* the PMD size comes with the advice (inherit of madvise, or madvise):
 * the guard is on and the reason says why */
static void guard(void)
{
	for (int pmd = 0; pmd < 2; pmd++) {
		struct hp_probe p = probe(HP_THP_MADVISE, pmd ? HP_THP_MADVISE : HP_THP_INHERIT, HP_THP_MADVISE);
		struct hp_plan pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, 0);
		CHECK(pl.mthp == HP_MTHP_ADVISE && pl.mthp_guard == 1 && pl.mthp_pmd == HP_HUGE_2M);
		CHECK_MSG(has(pl.mthp_reason, "first page of each 2 MiB-aligned 2 MiB left unadvised"), "%s", pl.mthp_reason);
	}
}

/* the PMD size never by its own word (the top level madvise): advice
 * brings no PMD THP, so the whole block is advised, no guard */
static void no_guard(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_NEVER, HP_THP_MADVISE);
	struct hp_plan pl = plan(HP_BACKEND_JEMALLOC, HP_PAGES_AUTO, &p, 0);
	CHECK(pl.mthp == HP_MTHP_ADVISE && pl.mthp_guard == 0);
	CHECK_MSG(has(pl.mthp_reason, "does not come with the advice"), "%s", pl.mthp_reason);
}

/* 64 KiB inherit follows the top level: madvise there, advised */
static void inherit(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_INHERIT, HP_THP_INHERIT);
	struct hp_plan pl = plan(HP_BACKEND_MIMALLOC, HP_PAGES_AUTO, &p, 0);
	CHECK(pl.mthp == HP_MTHP_ADVISE && pl.mthp_advised == K64);
	CHECK(hp_thp_size_mode(&p, K64, HP_THP_OFF_NONE) == HP_THP_MADVISE);
}

/* every sub-PMD size never: nothing, as before mTHP */
static void never(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_INHERIT, HP_THP_NEVER);
	for (int be = 0; be < HP_BACKEND_COUNT; be++) {
		struct hp_plan pl = plan(be, HP_PAGES_AUTO, &p, 0);
		CHECK(pl.mthp == HP_MTHP_NONE && pl.mthp_min == 0 && pl.mthp_advised == 0);
		CHECK_MSG(has(pl.mthp_reason, "no size below the PMD size is enabled"), "%s", pl.mthp_reason);
	}
	/* no per-size files (kernel < 6.8) */
	p.nthp_sizes = 0;
	struct hp_plan pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, 0);
	CHECK(pl.mthp == HP_MTHP_NONE && has(pl.mthp_reason, "kernel < 6.8"));
}

/* 64 KiB always: the kernel uses it, nothing to advise */
static void always(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_INHERIT, HP_THP_ALWAYS);
	struct hp_plan pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, 0);
	CHECK(pl.mthp == HP_MTHP_KERNEL && pl.mthp_kernel == K64 && pl.mthp_min == 0);
	CHECK_MSG(has(pl.mthp_reason, "64 KiB always: the kernel uses it for every anonymous fault"), "%s",
		  pl.mthp_reason);
}

/* on a THP always host auto sets the except-advised switch: 64 KiB always
 * then acts as madvise for the process, and auto advises it */
static void except_advised(void)
{
	struct hp_probe p = probe(HP_THP_ALWAYS, HP_THP_INHERIT, HP_THP_ALWAYS);
	p.kernel_major = 6, p.kernel_minor = 18, p.thp_except_advised_ok = 1;
	strcpy(p.kernel, "6.18.0");
	struct hp_plan pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, 0);
	CHECK(pl.thp_process == HP_THP_PROC_EXCEPT_ADVISED);
	CHECK_MSG(pl.mthp == HP_MTHP_ADVISE && pl.mthp_advised == K64 && pl.mthp_guard == 1, "%s", pl.mthp_reason);
}

/* on a THP always host without the except-advised switch (6.10) auto
 * keeps jemalloc's and mimalloc's mappings MADV_NOHUGEPAGE, which takes
 * any mTHP advice off: unused there, glibc's mmapped blocks advised */
static void small_nohuge(void)
{
	struct hp_probe p = probe(HP_THP_ALWAYS, HP_THP_INHERIT, HP_THP_MADVISE);
	p.kernel_major = 6, p.kernel_minor = 10;
	strcpy(p.kernel, "6.10.0");
	for (int be = 0; be < HP_BACKEND_COUNT; be++) {
		struct hp_plan pl = plan(be, HP_PAGES_AUTO, &p, 0);
		int want = pl.thp_small_nohuge ? HP_MTHP_UNUSED : HP_MTHP_ADVISE;
		CHECK_MSG(pl.mthp == want && (be == HP_BACKEND_SYSTEM) == !pl.thp_small_nohuge, "%s: %s",
			  hp_backend_name(be), pl.mthp_reason);
		if (pl.thp_small_nohuge)
			CHECK_MSG(pl.mthp_min == 0 && has(pl.mthp_reason, "MADV_NOHUGEPAGE"), "%s", pl.mthp_reason);
	}
}

/* PR_SET_THP_DISABLE inherited (complete form): no THP of any size */
static void disabled(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_INHERIT, HP_THP_MADVISE);
	p.thp_process_off = HP_THP_OFF_ALL;
	struct hp_plan pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, 0);
	CHECK(pl.mthp == HP_MTHP_NONE);
	CHECK_MSG(has(pl.mthp_reason, "PR_SET_THP_DISABLE"), "%s", pl.mthp_reason);
}

/* madvise sizes but no mid-size advice: off, thp, whole-heap THP */
static void unused(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_INHERIT, HP_THP_MADVISE);
	struct hp_plan pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_OFF, &p, 0);
	CHECK(pl.mthp == HP_MTHP_UNUSED && pl.mthp_min == 0 && has(pl.mthp_reason, "only pages=auto"));
	pl = plan(HP_BACKEND_JEMALLOC, HP_PAGES_THP, &p, 0);
	CHECK(pl.mthp == HP_MTHP_UNUSED && pl.mthp_min == 0);
	/* THP never at the top level: auto is off (the 2 MiB pool is empty) */
	p = probe(HP_THP_NEVER, HP_THP_INHERIT, HP_THP_MADVISE);
	pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, 0);
	CHECK(pl.pages == HP_PAGES_OFF);
	CHECK_MSG(pl.mthp == HP_MTHP_UNUSED && has(pl.mthp_reason, "auto is not on THP"), "%s", pl.mthp_reason);
}

/* a threshold at or below twice the folio size leaves no mid-size block */
static void threshold(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_INHERIT, HP_THP_MADVISE);
	struct hp_plan pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, 2 * K64);
	CHECK(pl.mthp == HP_MTHP_UNUSED && pl.mthp_min == 0 && has(pl.mthp_reason, "below the threshold"));
	pl = plan(HP_BACKEND_SYSTEM, HP_PAGES_AUTO, &p, 2 * K64 + 4096);
	CHECK(pl.mthp == HP_MTHP_ADVISE && pl.mthp_min == 2 * K64);
}

/* the guarded advice: never a whole 2 MiB window, the rest advised */
static void segments(void)
{
	uint64_t seg[8][2], M2 = HP_HUGE_2M, pg = 4096;
	/* inside one window: one segment, the block itself */
	CHECK(hp_mthp_segments(M2 + pg, M2 + 9 * pg, pg, M2, 1, seg, 8) == 1 && seg[0][0] == M2 + pg &&
	      seg[0][1] == M2 + 9 * pg);
	/* across a boundary: that page left out */
	CHECK(hp_mthp_segments(M2 - 8 * pg, M2 + 8 * pg, pg, M2, 1, seg, 8) == 2);
	CHECK(seg[0][0] == M2 - 8 * pg && seg[0][1] == M2 && seg[1][0] == M2 + pg && seg[1][1] == M2 + 8 * pg);
	/* starting on a boundary: its first page left out */
	CHECK(hp_mthp_segments(M2, M2 + 16 * pg, pg, M2, 1, seg, 8) == 1 && seg[0][0] == M2 + pg);
	/* 3.5 MiB over two boundaries: three segments, no window whole */
	int n = hp_mthp_segments(M2 - M2 / 4, 2 * M2 + M2 / 2, pg, M2, 1, seg, 8);
	CHECK(n == 3 && seg[1][0] == M2 + pg && seg[1][1] == 2 * M2 && seg[2][0] == 2 * M2 + pg);
	/* without the guard: the whole block */
	CHECK(hp_mthp_segments(M2 - 8 * pg, M2 + 8 * pg, pg, M2, 0, seg, 8) == 1 && seg[0][1] - seg[0][0] == 16 * pg);
	/* out of room: the rest stays unadvised, never a segment over a boundary */
	n = hp_mthp_segments(0, 5 * M2, pg, M2, 1, seg, 2);
	CHECK(n == 2 && seg[1][1] <= 2 * M2);
}

/* `hugepolicy probe` says each size, its mode, and what auto does */
static void probe_text(void)
{
	struct hp_probe p = probe(HP_THP_MADVISE, HP_THP_INHERIT, HP_THP_MADVISE);
	char out[16384];
	struct hp_buf b = { out, sizeof out, 0 };
	out[0] = '\0';
	hp_probe_format(&p, 0, &b);
	CHECK_MSG(has(out, "mTHP              64 KiB madvise: MADV_HUGEPAGE brings it"), "%s", out);
	CHECK(has(out, "auto (system  )   mthp advise: auto: 64 KiB madvise"));
	b.len = 0;
	hp_probe_format(&p, 1, &b);
	CHECK_MSG(has(out, "\"per_size_effective\":[{\"size\":16384,\"mode\":\"never\"},{\"size\":32768,\"mode\":"
		       "\"never\"},{\"size\":65536,\"mode\":\"madvise\"}"), "%s", out);
	CHECK(has(out, "\"mthp\":\"advise\",\"mthp_sizes\":[65536],\"mthp_min\":131072,\"mthp_guard\":true"));
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } cases[] = {
		{ "advise", advise }, { "guard", guard }, { "no_guard", no_guard }, { "inherit", inherit },
		{ "never", never }, { "always", always }, { "except_advised", except_advised },
		{ "small_nohuge", small_nohuge },
		{ "disabled", disabled }, { "unused", unused }, { "threshold", threshold },
		{ "segments", segments }, { "probe", probe_text },
	};
	if (argc < 2)
		return 2;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (strcmp(argv[1], cases[i].name) == 0) {
			cases[i].fn();
			return check_result(argv[1]);
		}
	fprintf(stderr, "unknown case %s\n", argv[1]);
	return 2;
}
