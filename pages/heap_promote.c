/*
 * heap_promote.c - auto's whole-heap THP, at run time: the allocator's
 * mappings counted, the heap sampled, the rule (policy/promote.c) asked,
 * and once it says NOW every new mapping of the allocator advised
 * MADV_HUGEPAGE, as the allocator's own whole-heap switch would.
 *
 * The hooks that see the allocator map memory call hp_promote_mapped, and
 * thp_large.c's big-block path hp_promote_poll (a heap that fills what it
 * mapped earlier maps nothing new):
 * mimalloc's mmap (mimalloc_os.c), jemalloc's (jemalloc_os.c).  A
 * MAP_FIXED mapping over the allocator's own range (mimalloc decommits that
 * way: PROT_NONE, then mprotect to commit again) is not counted again, but
 * is advised once promoted, or the range would lose its advice.  The heap
 * is sampled when what it mapped has grown by an eighth (at least 8 MiB)
 * since the last sample, so a heap of any size is sampled a few dozen
 * times at most: resident is what mincore() finds resident in the
 * allocator's own mappings of at least 2 MiB (the ones remembered below),
 * so memory other code mapped - a JIT, pymalloc's arenas, Embree's blocks,
 * the program's own mmap - makes the heap neither large nor dense; what is
 * resident in the live big blocks thp_large.c tracks (advised_set.c) is
 * counted beside, so that it makes the heap dense but not large
 * (policy/promote.c); promote.big_blocks reports their usable bytes
 * (hp_promote_big_blocks).  Memory mapped
 * before the promotion keeps its pages (khugepaged may collapse it later
 * only where advised).  Lock-free; a sample races no one but the other
 * samplers, and one CAS picks who samples.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t min_resident;           /* 0: never */
static atomic_size_t mapped, next_sample, advised, samples, big;
static atomic_int promoted;
static _Atomic uint64_t last_resident, last_mapped, last_big, at_resident, at_mapped, at_big;

/* the allocator's mappings of at least 2 MiB: the heap that is sampled,
 * and at the promotion advised (the heap the allocator reuses most); a
 * munmap that touches one drops it.  Beyond RANGES they are neither. */
#define RANGES 512
#define CLAIMED ((uintptr_t)1)          /* a slot being filled: its length not written yet */
static _Atomic uintptr_t range_at[RANGES];      /* 0: free */
static _Atomic size_t range_len[RANGES];
static atomic_uint n_ranges;                    /* slots ever used */

/* in the first free slot; a new slot only while there are fewer than
 * RANGES (so that n_ranges stays about RANGES and a scan costs at most
 * RANGES loads, however many mappings came) */
static void remember(void *p, size_t len)
{
	unsigned n = atomic_load(&n_ranges), i = 0;
	if (n > RANGES)
		n = RANGES;
	for (;; i++) {
		if (i >= n) {           /* no free slot among the used ones: a new one */
			if (atomic_load(&n_ranges) >= RANGES)
				return;
			i = atomic_fetch_add(&n_ranges, 1);
			if (i >= RANGES)
				return;
		}
		uintptr_t none = 0;
		if (atomic_load_explicit(&range_at[i], memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_strong(&range_at[i], &none, CLAIMED))
			break;
	}
	atomic_store(&range_len[i], len);
	atomic_store(&range_at[i], (uintptr_t)p);
}

/* the remembered mapping in slot i, 0 if none */
static uintptr_t range(unsigned i, size_t *len)
{
	uintptr_t r = atomic_load(&range_at[i]);
	*len = atomic_load(&range_len[i]);
	/* the same slot still (not forgotten and filled again meanwhile) */
	return r > CLAIMED && atomic_load(&range_at[i]) == r ? r : 0;
}

static void forget(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;
	unsigned n = atomic_load(&n_ranges);
	for (unsigned i = 0; i < n && i < RANGES; i++) {
		size_t rlen;
		uintptr_t r = range(i, &rlen);
		if (r && a < r + rlen && r < a + len)
			atomic_compare_exchange_strong(&range_at[i], &r, 0);    /* not a slot filled again since */
	}
}

/* at the promotion: the earlier heap advised too */
static void advise_earlier(void)
{
	unsigned n = atomic_load(&n_ranges);
	for (unsigned i = 0; i < n && i < RANGES; i++) {
		size_t len;
		uintptr_t r = range(i, &len);
		if (r && madvise((void *)r, len, MADV_HUGEPAGE) == 0)
			atomic_fetch_add_explicit(&advised, len, memory_order_relaxed);
	}
}

static _Atomic long long sample_us;     /* what the last sample cost */

static long long now_us(int coarse)
{
	struct timespec ts;
	clock_gettime(coarse ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static char plan_reason[224];
static int verbose;

void hp_promote_init(const struct hp_plan *plan)
{
	verbose = plan->verbose;
	min_resident = plan->pages == HP_PAGES_THP && plan->thp_scope == HP_THP_LARGE ? plan->promote_min : 0;
	snprintf(plan_reason, sizeof plan_reason, "%s", plan->promote_reason);
}

int hp_promote_active(void)
{
	return atomic_load_explicit(&promoted, memory_order_relaxed);
}

/* resident bytes of the remembered mappings (a range that is gone
 * meanwhile counts nothing) */
static uint64_t heap_resident(void)
{
	unsigned n = atomic_load(&n_ranges);
	uint64_t bytes = 0;
	for (unsigned i = 0; i < n && i < RANGES; i++) {
		size_t len;
		uintptr_t r = range(i, &len);
		if (r)
			bytes += hp_pages_resident((void *)r, len);
	}
	return bytes;
}

/* the fault-cost gate (policy/thp_pays.c), for the heap at density pct:
 * a heap whose rule says NOW waits while THP faults cost more here than
 * the base faults they replace; a promoted one pauses (its new memory not
 * advised) while that holds, and goes on when it no longer does */
static atomic_int paused, costly;
static atomic_size_t pauses;
static char cost_why[160];      /* written by the sampler that won the CAS, or the pause check */

static int costs_allow(uint64_t resident, uint64_t mapped)
{
	unsigned pct = mapped ? (unsigned)(resident * 100 / mapped) : 100;
	char why[sizeof cost_why];
	int go = hp_thp_pays_go(hp_fault_cost_verdict(pct, why, sizeof why));
	if (!go)
		hp_strlcpy(cost_why, why, sizeof cost_why);
	return go;
}

static void check_pause(void)
{
	int stop = !costs_allow(atomic_load(&at_resident), atomic_load(&at_mapped));
	if (atomic_exchange(&paused, stop) != stop) {
		if (stop)
			atomic_fetch_add(&pauses, 1);
		if (verbose)
			hp_say("heap promotion %s: %s", stop ? "paused" : "goes on",
			       stop ? cost_why : "THP faults cost less than base faults again");
	}
}

static void sample(size_t now, int force)
{
	size_t due = atomic_load(&next_sample);
	size_t step = now / 8 > ((size_t)8 << 20) ? now / 8 : (size_t)8 << 20;
	if ((now < due && !force) || !atomic_compare_exchange_strong(&next_sample, &due, now + step))
		return;
	int saved = errno;
	long long t0 = now_us(0);
	uint64_t r = heap_resident(), in_big = hp_advised_set_resident();
	atomic_store(&sample_us, now_us(0) - t0);
	errno = saved;
	if (r > now)
		r = now;
	struct hp_heap_sample h = { r, now, in_big < r ? in_big : r };
	atomic_fetch_add(&samples, 1);
	atomic_store(&last_resident, r);
	atomic_store(&last_mapped, now);
	atomic_store(&last_big, h.big);
	hp_live_changed();      /* the sampler's tick: the live report's counters too */
	if (hp_promote_decide(min_resident, &h, NULL, 0) != HP_PROMOTE_NOW)
		return;
	if (!costs_allow(r, now)) {
		if (!atomic_exchange(&costly, 1) && verbose)
			hp_say("heap not promoted yet at %llu MiB resident of %llu MiB mapped: %s",
			       (unsigned long long)(r >> 20), (unsigned long long)(now >> 20), cost_why);
		return;
	}
	if (!atomic_exchange(&promoted, 1)) {
		atomic_store(&at_resident, r);
		atomic_store(&at_mapped, now);
		atomic_store(&at_big, h.big);
		advise_earlier();
		/* the config line was printed at start-up, before any sample:
		 * say the promotion when it happens (once: promoted is one-way) */
		if (verbose) {
			char why[224];
			hp_promote_decide(min_resident, &h, why, sizeof why);
			hp_say("heap %s", why);
		}
	}
}

int hp_promote_mapped(void *p, size_t len, int fixed)
{
	if (!min_resident)
		return 0;
	size_t now = fixed ? atomic_load_explicit(&mapped, memory_order_relaxed)
			   : atomic_fetch_add_explicit(&mapped, len, memory_order_relaxed) + len;
	if (!fixed && len >= HP_HUGE_2M)
		remember(p, len);
	if (!fixed && !atomic_load_explicit(&promoted, memory_order_relaxed))
		sample(now, 0);
	if (!atomic_load_explicit(&promoted, memory_order_relaxed))
		return 0;
	if (!fixed && hp_fault_cost_adapts())
		check_pause();
	if (atomic_load_explicit(&paused, memory_order_relaxed))
		return 0;
	if (len >= HP_HUGE_2M) {
		int saved = errno;
		if (madvise(p, len, MADV_HUGEPAGE) == 0)
			atomic_fetch_add_explicit(&advised, len, memory_order_relaxed);
		errno = saved;
	}
	return 1;
}

/* a big block was allocated: the heap fills what it mapped earlier, which
 * no mapping would show - sampled at most every 20 ms, and at most every
 * 100 times what the last sample cost, so that sampling a heap that stays sparse takes at most 1 % of the time */
void hp_promote_poll(void)
{
	static _Atomic long long last_us;
	if (!min_resident)
		return;
	if (atomic_load_explicit(&promoted, memory_order_relaxed)) {
		if (hp_fault_cost_adapts())
			check_pause();
		return;
	}
	long long us = now_us(1), was = atomic_load(&last_us), gap = 100 * atomic_load(&sample_us);
	if (gap < 20000)
		gap = 20000;
	if (us - was < gap || !atomic_compare_exchange_strong(&last_us, &was, us))
		return;
	sample(atomic_load(&mapped), 1);
}

/* *a -= n, not below 0 */
static void take(atomic_size_t *a, size_t n)
{
	size_t cur = atomic_load_explicit(a, memory_order_relaxed);
	while (!atomic_compare_exchange_weak(a, &cur, cur > n ? cur - n : 0))
		;
}

void hp_promote_big_blocks(size_t bytes, int freed)
{
	if (freed)
		take(&big, bytes);
	else
		atomic_fetch_add_explicit(&big, bytes, memory_order_relaxed);
}

void hp_promote_unmapped(void *p, size_t len)
{
	if (!min_resident)
		return;
	forget(p, len);
	take(&mapped, len);
}

void hp_promote_counters(struct hp_promote_report *r)
{
	r->min = min_resident;
	r->samples = atomic_load(&samples);
	r->sample_resident = atomic_load(&last_resident);
	r->sample_mapped = atomic_load(&last_mapped);
	r->at_resident = atomic_load(&at_resident);
	r->at_mapped = atomic_load(&at_mapped);
	r->advised = atomic_load(&advised);
	r->pauses = atomic_load(&pauses);
	r->mapped = atomic_load(&mapped);
	r->big_blocks = atomic_load(&big);
	r->reason[0] = '\0';
	hp_strlcpy(r->cost_reason, cost_why, sizeof r->cost_reason);
	if (!min_resident) {
		r->state = HP_PROMOTE_STATE_OFF;
		hp_strlcpy(r->reason, plan_reason, sizeof r->reason);
		return;
	}
	if (atomic_load(&promoted)) {
		r->state = atomic_load(&paused) ? HP_PROMOTE_STATE_PAUSED : HP_PROMOTE_STATE_PROMOTED;
		struct hp_heap_sample at = { r->at_resident, r->at_mapped, atomic_load(&at_big) };
		hp_promote_decide(min_resident, &at, r->reason, sizeof r->reason);
	} else if (r->samples) {
		r->state = HP_PROMOTE_STATE_WAITING;
		struct hp_heap_sample last = { r->sample_resident, r->sample_mapped, atomic_load(&last_big) };
		if (hp_promote_decide(min_resident, &last, r->reason, sizeof r->reason) ==
		    HP_PROMOTE_NOW) {
			/* the rule said NOW, the fault costs said not here */
			r->state = HP_PROMOTE_STATE_HELD;
			snprintf(r->reason, sizeof r->reason, "large and dense at %llu MiB resident of %llu MiB mapped, but %s",
				 (unsigned long long)(r->sample_resident >> 20), (unsigned long long)(r->sample_mapped >> 20),
				 cost_why);
		}
	} else {
		r->state = HP_PROMOTE_STATE_UNSAMPLED;
		hp_strlcpy(r->reason, "not sampled: nothing mapped", sizeof r->reason);
	}
}

void hp_promote_read(struct hp_promote_report *r)
{
	r->resident = 0;
	hp_promote_counters(r);
	if (!min_resident)
		return;
	/* what the heap holds now, so that a heap filled later is not
	 * described by its sparse past (the verdict is the last sample's: the
	 * heap is sampled as it grows) */
	int saved = errno;
	r->resident = heap_resident();
	errno = saved;
}

void hp_promote_describe(struct hp_buf *b)
{
	struct hp_promote_report r;
	hp_promote_read(&r);
	switch (r.state) {
	case HP_PROMOTE_STATE_OFF:
		if (r.reason[0])
			hp_buf_printf(b, "; heap %s", r.reason);
		break;
	case HP_PROMOTE_STATE_PROMOTED:
	case HP_PROMOTE_STATE_PAUSED:
		hp_buf_printf(b, "; heap %s, %llu B since", r.reason, (unsigned long long)r.advised);
		if (r.pauses)
			hp_buf_printf(b, "; paused %llu times (%s), %s now", (unsigned long long)r.pauses, r.cost_reason,
				      r.state == HP_PROMOTE_STATE_PAUSED ? "paused" : "going on");
		break;
	case HP_PROMOTE_STATE_UNSAMPLED:
		hp_buf_printf(b, "; heap not promoted (%s)", r.reason);
		break;
	default:
		hp_buf_printf(b, "; heap not promoted (last of %llu samples: %s; now %llu MiB resident of %llu MiB mapped)",
			      (unsigned long long)r.samples, r.reason, (unsigned long long)(r.resident >> 20),
			      (unsigned long long)(r.mapped >> 20));
	}
}
