/*
 * jemalloc.c - the jemalloc 5.3 backend, embedded.
 *
 * Debian's libjemalloc_pic.a is linked into libhugepolicy.so with its public
 * names renamed to hpje_* at build time (objcopy --redefine-syms, see
 * jemalloc_embed.sh), its C++ member dropped and its eager
 * constructor removed: jemalloc initialises lazily on first use, so when it
 * is not selected it never runs.  Because nothing of it has run yet, the
 * configuration can still be set here through its malloc_conf symbol; the
 * user's MALLOC_CONF is read by jemalloc after malloc_conf and wins
 * (jemalloc(3), "TUNING").  Everything reported is read back via mallctl.
 *
 * Invariants: jemalloc is configured from the plan and never decides:
 * what took effect (opt.thp read back once it started) is reported as a
 * fact for the next plan call, and the rest is set up from that plan.
 * The ops are fixed once init returns; every block is at least 16-aligned.
 */
#include "hp_jemalloc.h"
#include "hugepolicy.h"

#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* glibc's alignment for the 8-byte class (hp_backend.h: hp_glibc_size) */
static void *malloc16(size_t n)
{
	return hpje_malloc(hp_glibc_size(n));
}

static void *calloc16(size_t n, size_t size)
{
	return hp_glibc_tiny(n, size) ? hpje_calloc(1, HP_GLIBC_MIN_BLOCK) : hpje_calloc(n, size);
}

static void *realloc16(void *p, size_t n)
{
	return hpje_realloc(p, hp_glibc_size(n));
}

/* jemalloc's public API, renamed (jemalloc(3)), is declared in hp_backend.h. */
const struct hp_alloc_ops hp_jemalloc_ops = {
	.malloc = malloc16,
	.malloc_small = hpje_malloc,
	.malloc_large = hpje_malloc,
	.free = hpje_free,
	.calloc = calloc16,
	.realloc = realloc16,
	.memalign = hpje_memalign,
	.usable_size = hpje_malloc_usable_size,
};

static const char *user_conf;
static struct hp_alloc_ops large_ops, tlb_ops;
static size_t tlb_min;                   /* pages=hugetlb: blocks from the pool from this size */
static size_t tlb_page, tlb_big;         /* ... from pools of these page sizes (0: none) */
static int large_scope;                  /* THP on blocks >= threshold only */
static size_t large_threshold;

/* jemalloc's oversize_threshold for a threshold: at most jemalloc's own 8 MiB,
 * so that freed blocks from there go back at once as in native jemalloc
 * whatever the threshold (at 64M or 1T the blocks between went to the
 * ordinary arenas, kept 10 s: 160-400 MiB resident after 10 x 40 MiB were
 * freed, 3 MiB native); at least its smallest large class, below which it
 * turns the oversize arena off (and every block went to those arenas). */
static size_t oversize_for(uint64_t threshold)
{
	const size_t least = 16u << 10, most = 8u * HP_MIB;
	return threshold < least ? least : threshold > most ? most : (size_t)threshold;
}
static char conf[128];

/* jemalloc(3) xallocx: resize in place, returning the real size. */
static int grow_in_place(void *p, size_t n)
{
	return hpje_xallocx(p, n, 0, 0) >= n;
}

/* trust_madvise: skip jemalloc's start-up probe of MADV_DONTNEED, which
 * writes to MAP_FAILED when its mmap fails (SIGSEGV; native jemalloc 5.3
 * too): with it, a failing mmap at start-up is an init error, and hugepolicy
 * falls back to the system backend */
#define TRUST ",trust_madvise:true"

/* jemalloc configured as the plan first says and started; what took
 * effect (a user's MALLOC_CONF applies after hugepolicy's) into facts */
static int jemalloc_start(const struct hp_plan *plan, struct hp_plan_facts *facts)
{
	/* jemalloc(3): thp "always" madvises all its memory MADV_HUGEPAGE,
	 * "never" MADV_NOHUGEPAGE, "default" neither (the blocks hugepolicy
	 * advises keep their advice); metadata_thp "auto" uses THP for
	 * metadata once it is large enough, "disabled" never. */
	int thp = plan->pages == HP_PAGES_THP;
	int all = thp && plan->thp_scope == HP_THP_ALL;
	int tlb = plan->pages == HP_PAGES_HUGETLB;
	/* the kernel's default for jemalloc's own memory, or "never" where the
	 * plan keeps small blocks off THP on an `always` host (thp_small_nohuge) */
	const char *small = plan->thp_small_nohuge ? "never" : "default";
	if (tlb) {
		/* blocks >= hugetlb_min from the pool, in front of jemalloc
		 * (hugetlb_large.c); jemalloc keeps the rest */
		snprintf(conf, sizeof conf, "thp:%s,metadata_thp:auto" TRUST, small);
		hpje_malloc_conf = conf;
	} else if (thp && !all) {
		/* THP on blocks >= threshold only: they go to jemalloc's oversize
		 * arena (oversize_threshold), whose memory is never reused for
		 * small blocks, so the advice stays on big blocks */
		snprintf(conf, sizeof conf, "thp:%s,metadata_thp:auto,oversize_threshold:%zu" TRUST,
			 small, oversize_for(plan->threshold));
		hpje_malloc_conf = conf;
	} else {
		hpje_malloc_conf = all ? "thp:always,metadata_thp:auto" TRUST : "thp:never,metadata_thp:disabled" TRUST;
	}
	user_conf = plan->user_malloc_conf;
	hp_promote_init(plan);          /* jemalloc's mappings come through jemalloc_os.c */
	const char *v = NULL;
	size_t len = sizeof v;
	int rc = hpje_mallctl("opt.thp", &v, &len, NULL, 0);   /* runs malloc_init */
	if (rc != 0)
		return rc;
	hp_jemalloc_arenas_prepare();
	/* what took effect: opt.thp=always is whole-heap THP, whatever the
	 * plan; under a THP plan any other value than the one set is none */
	if (strcmp(v, "always") == 0)
		facts->heap = HP_HEAP_USER_THP_ALL;
	else if (all || (thp && strcmp(v, small) != 0))
		facts->heap = HP_HEAP_NO_THP;
	hp_strlcpy(facts->heap_value, v, sizeof facts->heap_value);
	return 0;
}

static int jemalloc_init(const struct hp_plan *plan, const struct hp_alloc_ops **ops)
{
	*ops = &hp_jemalloc_ops;
	static const struct hp_thp_large_traits je_traits = { .grow_in_place = grow_in_place,
							       .after_big = hp_jemalloc_huge_arena_tick };
	static const struct hp_thp_large_traits je_auto_traits = { .grow_in_place = grow_in_place,
								    .after_big = hp_jemalloc_huge_arena_tick,
								    .freed_big = hp_jemalloc_huge_arena_freed };
	if (plan->pages == HP_PAGES_THP && plan->thp_scope == HP_THP_LARGE) {
		large_scope = 1;
		large_threshold = (size_t)plan->threshold;
		hp_thp_large_init(&hp_jemalloc_ops, &je_auto_traits, large_threshold, plan->verbose, &large_ops);
		/* kept runs are counted by the frees thp_large.c sees: only if
		 * every block of that arena is a big one */
		if (oversize_for(plan->threshold) == large_threshold)
			hp_jemalloc_huge_arena_keep(large_threshold);
		*ops = &large_ops;
	} else {
		hp_promote_init(plan);  /* the effective mode has no promotion */
	}
	if (plan->pages == HP_PAGES_HUGETLB) {
		/* the pool's fallback is THP on those blocks, advised as in auto */
		hp_thp_large_init(&hp_jemalloc_ops, &je_traits, (size_t)plan->hugetlb_min, plan->verbose, &large_ops);
		hp_tlb_large_init(&hp_jemalloc_ops, plan, (size_t)plan->hugetlb_min, plan->thp_available, &tlb_ops);
		tlb_min = (size_t)plan->hugetlb_min;
		*ops = &tlb_ops;
		tlb_page = (size_t)plan->hugetlb_page;
		tlb_big = (size_t)plan->hugetlb_big_page;
		if (!tlb_page)
			tlb_min = (size_t)plan->hugetlb_big_min;     /* only the big pool serves */
		/* jemalloc's own extents (every smaller block, its slabs and
		 * metadata) from the 2 MiB pool too, through its extent hooks -
		 * where the plan gives smaller blocks that pool at all */
		if (tlb_page == HP_HUGE_2M && hp_jemalloc_hugetlb_install(plan->verbose) != 0 && plan->verbose)
			hp_say("jemalloc: no arena took the extent hooks: its own heap stays on base pages");
	}
	return 0;
}

static const char *read_str(const char *name)
{
	const char *v = NULL;
	size_t len = sizeof v;
	return hpje_mallctl(name, &v, &len, NULL, 0) == 0 && v ? v : "?";
}

static void jemalloc_settings(struct hp_backend_settings *s)
{
	size_t v = 0, len = sizeof v;
	s->have |= HP_BS_JEMALLOC;
	hp_strlcpy(s->version, read_str("version"), sizeof s->version);
	hp_strlcpy(s->opt_thp, read_str("opt.thp"), sizeof s->opt_thp);
	hp_strlcpy(s->opt_metadata_thp, read_str("opt.metadata_thp"), sizeof s->opt_metadata_thp);
	hpje_mallctl("opt.oversize_threshold", &v, &len, NULL, 0);
	s->opt_oversize_threshold = v;
	if (large_scope)
		hp_jemalloc_huge_arena_settings(s);
	hp_jemalloc_hugetlb_settings(s);
	hp_jemalloc_arenas_settings(s);
	if (user_conf) {
		s->have |= HP_BS_USER;
		hp_buf_escaped(&(struct hp_buf){ s->user, sizeof s->user, 0 }, user_conf, 64);
		s->user_wins = strstr(user_conf, "thp") != NULL;
	}
}

static void jemalloc_describe(char *buf, size_t cap)
{
	struct hp_buf b = { buf, cap, 0 };
	struct hp_backend_settings s;
	memset(&s, 0, sizeof s);
	jemalloc_settings(&s);
	hp_buf_printf(&b, "jemalloc %s opt.thp=%s opt.metadata_thp=%s", s.version, s.opt_thp, s.opt_metadata_thp);
	if (large_scope) {
		hp_buf_printf(&b, " opt.oversize_threshold=%llu, MADV_HUGEPAGE on blocks >= %zu B",
			      (unsigned long long)s.opt_oversize_threshold, large_threshold);
		if (s.have & HP_BS_HUGE_ARENA)
			hp_buf_printf(&b, ", oversize arena %llu keeps freed runs < %llu B for reuse, %llu B in all: "
				      "dirty_decay_ms=%lld muzzy_decay_ms=%lld (jemalloc's: %lld)",
				      (unsigned long long)s.huge_arena, (unsigned long long)s.huge_keep_below,
				      (unsigned long long)s.huge_keep_max, (long long)s.huge_dirty_decay_ms,
				      (long long)s.huge_muzzy_decay_ms, (long long)s.huge_default_dirty_decay_ms);
		hp_promote_describe(&b);
	}
	if (tlb_min) {
		char sp[24], bp[24];
		hp_size_name(tlb_page, sp, sizeof sp);
		hp_size_name(tlb_big, bp, sizeof bp);
		hp_buf_printf(&b, ", blocks >= %zu B from the hugetlb pool%s%s%s%s", tlb_min, tlb_page ? " of " : "",
			      tlb_page ? sp : "", tlb_big ? (tlb_page ? " and of " : " of ") : "", tlb_big ? bp : "");
		if (tlb_page != HP_HUGE_2M)
			hp_buf_printf(&b, "; jemalloc's own heap off the pool (no 2 MiB pool for smaller blocks)");
	}
	if (s.have & HP_BS_ARENA_POOL) {
		hp_buf_printf(&b,
			      ", arena extents on the 2 MiB pool: %llu B in %llu mappings, fell back %llu B in %llu requests; "
			      "hugetlb extents kept, never purged (%llu/%llu arenas hooked, retain_grow_limit %llu",
			      (unsigned long long)s.pool_bytes, (unsigned long long)s.pool_blocks,
			      (unsigned long long)s.pool_fallback_bytes, (unsigned long long)s.pool_fallbacks,
			      (unsigned long long)s.pool_hooked, (unsigned long long)s.pool_arenas,
			      (unsigned long long)s.pool_retain_grow_limit);
		if (s.pool_rounded_bytes)
			hp_buf_printf(&b, ", %llu B rounded up to 2 MiB", (unsigned long long)s.pool_rounded_bytes);
		if (s.pool_set_aside_bytes)
			hp_buf_printf(&b, ", %llu B of arena 0's start-up memory set aside",
				      (unsigned long long)s.pool_set_aside_bytes);
		if (s.pool_small_extents)
			hp_buf_printf(&b, ", %llu extents below 2 MiB on base pages%s", (unsigned long long)s.pool_small_extents,
				      s.pool_retain ? "" : ": opt.retain=false");
		hp_buf_printf(&b, ")");
	}
	if (s.have & HP_BS_ARENAS)
		hp_buf_printf(&b, ", %llu arenas created at start-up (%s)", (unsigned long long)s.arenas_created,
			      s.arenas_reason);
	/* the value cut and escaped, the sentence whole */
	if (s.have & HP_BS_USER)
		hp_buf_printf(&b, " (MALLOC_CONF='%s' applied after hugepolicy's%s)", s.user, s.user_wins ? " and wins" : "");
}

static void read_size(const char *name, uint64_t *out)
{
	size_t v, len = sizeof v;
	if (hpje_mallctl(name, &v, &len, NULL, 0) == 0)
		*out = v;
}

static void jemalloc_stats(struct hugepolicy_stats *st)
{
	uint64_t epoch = 1;
	size_t len = sizeof epoch;
	hpje_mallctl("epoch", &epoch, &len, &epoch, len);   /* refresh stats.* */
	read_size("stats.allocated", &st->allocated);
	read_size("stats.active", &st->active);
	read_size("stats.metadata", &st->metadata);
	read_size("stats.resident", &st->resident);
	read_size("stats.mapped", &st->mapped);
	read_size("stats.retained", &st->retained);
}

/* MALLCTL_ARENAS_ALL (jemalloc(3)): every arena at once */
#define ARENAS_ALL "4096"

static uint64_t resident_now(void)
{
	uint64_t epoch = 1, r = 0;
	size_t len = sizeof epoch;
	hpje_mallctl("epoch", &epoch, &len, &epoch, len);
	read_size("stats.resident", &r);
	return r;
}

/* every arena's dirty and muzzy pages purged now (jemalloc(3)
 * "arena.<i>.purge"), the calling thread's cache first; pad has no
 * meaning (jemalloc has no heap top).  1 when stats.resident fell. */
static int jemalloc_trim(size_t pad)
{
	(void)pad;
	hpje_mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
	uint64_t before = resident_now();
	hpje_mallctl("arena." ARENAS_ALL ".purge", NULL, NULL, NULL, 0);
	return resident_now() < before;
}

/* arena: stats.mapped, uordblks: stats.allocated, fordblks: the rest of
 * what it mapped, keepcost: its dirty and muzzy pages (what malloc_trim
 * gives back) */
static void jemalloc_info(struct mallinfo2 *mi)
{
	struct hugepolicy_stats st;
	st.mapped = st.allocated = 0;
	jemalloc_stats(&st);
	uint64_t dirty = 0, muzzy = 0, page = 0;
	read_size("stats.arenas." ARENAS_ALL ".pdirty", &dirty);
	read_size("stats.arenas." ARENAS_ALL ".pmuzzy", &muzzy);
	read_size("arenas.page", &page);
	mi->arena = st.mapped;
	mi->uordblks = st.allocated;
	mi->fordblks = st.mapped > st.allocated ? st.mapped - st.allocated : 0;
	mi->keepcost = (dirty + muzzy) * page;
}

static void write_to(void *fp, const char *s)
{
	fputs(s, fp);
}

/* glibc's totals, then jemalloc's summary: its malloc_stats_print without
 * the general, per-arena, bin, large, mutex, extent and HPA tables */
static void jemalloc_print(FILE *fp)
{
	hp_malloc_stats_totals(fp);
	hpje_malloc_stats_print(write_to, fp, "gmdablxeh");
}

const struct hp_backend hp_backend_jemalloc = {
	.name = "jemalloc",
	.start = jemalloc_start,
	.init = jemalloc_init,
	.describe = jemalloc_describe,
	.settings = jemalloc_settings,
	.stats = jemalloc_stats,
	.trim = jemalloc_trim,
	.info = jemalloc_info,
	.print = jemalloc_print,
};
