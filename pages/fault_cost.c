/*
 * fault_cost.c - auto's fault costs in the process (measured by
 * fault_measure.c, or pinned by the plan) and its verdicts on them (the
 * rule: policy/thp_pays.c), counted for the report.
 *
 * Under HP_ADAPT_MEASURE the first verdict asked for measures, and a
 * measurement older than HP_FAULT_COST_STALE_MS is taken again by the one
 * thread that wins a compare-and-swap; the others meanwhile use the last
 * one.  Between measurements, an advised big block's own THP faults are
 * made, timed and given back (hp_fault_cost_probe, at most every
 * HP_FAULT_PROBE_MS; against a NO verdict, one block every
 * HP_FAULT_RETRY_MS): what the
 * blocks really pay, where a measurement on memory of its own may find a
 * huge page warm that the blocks find cold, or the other way round; a
 * block whose faults did not pay is counted on base pages.  The costs are
 * running means (each new measurement or probe weighs half),
 * kept as separate atomics: a reader racing a new measurement may mix its
 * base and THP figures for that one verdict.
 * Nothing here allocates; it runs inside malloc.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int adapt;               /* enum hp_adapt, from the plan */
static struct hp_fault_costs pinned;
static _Atomic uint64_t base_ns, thp_ns, measured_at_ns;
static atomic_int got_thp, measuring;
static atomic_uint per_huge;
static atomic_size_t measurements, thp_blocks, base_blocks, probes, probes_base;
static _Atomic uint64_t probed_at_ns, retried_at_ns;
static atomic_int said;                 /* verbose lines on blocks so far */
static atomic_int last_block_verdict = -1;
static int verbose;

void hp_fault_cost_init(const struct hp_plan *plan)
{
	adapt = plan->adapt;
	pinned = plan->adapt_pinned;
	verbose = plan->verbose;
}

int hp_fault_cost_adapts(void)
{
	return adapt != HP_ADAPT_OFF;
}

static void current(struct hp_fault_costs *c)
{
	if (adapt == HP_ADAPT_PINNED) {
		*c = pinned;
		return;
	}
	*c = (struct hp_fault_costs){ .base_ns = atomic_load(&base_ns), .thp_ns = atomic_load(&thp_ns),
				      .per_huge = atomic_load(&per_huge), .got_thp = atomic_load(&got_thp) };
}

/* measure when none is there or the last is stale; one thread at a time */
static void refresh(void)
{
	uint64_t t = now_ns(), at = atomic_load_explicit(&measured_at_ns, memory_order_relaxed);
	if (at && t - at < (uint64_t)HP_FAULT_COST_STALE_MS * 1000000u)
		return;
	int idle = 0;
	if (!atomic_compare_exchange_strong(&measuring, &idle, 1))
		return;
	struct hp_fault_costs c;
	if (hp_fault_cost_measure(&c, 1, 0) == 0) {
		/* THP faults are bimodal on a host that takes free memory back
		 * (a huge page just freed, or one the host must fault in): the
		 * verdict rests on the running mean, each measurement half */
		int first = atomic_load(&measurements) == 0;
		atomic_store(&base_ns, first ? c.base_ns : (atomic_load(&base_ns) + c.base_ns) / 2);
		atomic_store(&thp_ns, first ? c.thp_ns : (atomic_load(&thp_ns) + c.thp_ns) / 2);
		atomic_store(&per_huge, c.per_huge);
		atomic_store(&got_thp, c.got_thp);
		atomic_fetch_add(&measurements, 1);
		hp_live_changed();
	}
	atomic_store(&measured_at_ns, now_ns());    /* a failed one is not retried at once either */
	atomic_store(&measuring, 0);
}

int hp_fault_cost_verdict(unsigned density_pct, char *why, size_t cap)
{
	struct hp_fault_costs c;
	if (adapt == HP_ADAPT_MEASURE)
		refresh();
	current(&c);
	return hp_thp_pays(adapt, &c, density_pct, why, cap);
}

int hp_fault_cost_block(size_t n)
{
	if (adapt == HP_ADAPT_OFF)
		return 1;
	char why[160];
	int v = hp_fault_cost_verdict(100, verbose ? why : NULL, sizeof why);
	int go = hp_thp_pays_go(v);
	/* base faults cheaper, by a mean the blocks' own cold faults may have
	 * raised: now and then a block is tried again, its own fault timed */
	if (!go && v == HP_PAYS_NO && adapt == HP_ADAPT_MEASURE) {
		uint64_t t = now_ns(), at = atomic_load_explicit(&retried_at_ns, memory_order_relaxed);
		if (t - at >= (uint64_t)HP_FAULT_RETRY_MS * 1000000u &&
		    atomic_compare_exchange_strong(&retried_at_ns, &at, t))
			go = 2;
	}
	atomic_fetch_add_explicit(go ? &thp_blocks : &base_blocks, 1, memory_order_relaxed);
	hp_live_changed();
	/* said when the verdict changes, at most 16 times (with the probes' withdrawals) */
	if (verbose && go == 2 && atomic_fetch_add(&said, 1) < 16)
		hp_say("THP: a block of %zu bytes tried on THP again, its own faults timed: %s", n, why);
	else if (verbose && atomic_exchange(&last_block_verdict, v) != v && atomic_fetch_add(&said, 1) < 16)
		hp_say("THP: from a block of %zu bytes on, blocks >= threshold go on %s: %s", n,
		       go ? "THP" : "base pages", why);
	return go;
}

/* a block counted on THP by hp_fault_cost_block goes to base pages after all */
static int back_to_base(void)
{
	atomic_fetch_sub(&thp_blocks, 1);
	atomic_fetch_add(&base_blocks, 1);
	hp_live_changed();
	return 0;
}

/* The first touch of the huge page at w, timed: its ns, 0 if it was no
 * fresh huge page's fault (resident already, or base pages).  An atomic
 * add of 0 is a write that leaves what is there, as the caller's own
 * content (realloc) and other threads may need. */
static uint64_t touch_ns(uintptr_t w, size_t page)
{
	_Atomic unsigned char *first = (_Atomic unsigned char *)w, *next = (_Atomic unsigned char *)(w + page);
	long f0 = hp_fault_thread_faults();
	uint64_t t0 = hp_fault_thread_ns();
	atomic_fetch_add_explicit(first, 0, memory_order_relaxed);
	uint64_t ns = hp_fault_thread_ns() - t0;
	long f1 = hp_fault_thread_faults();
	atomic_fetch_add_explicit(next, 0, memory_order_relaxed);
	long f2 = hp_fault_thread_faults();
	/* one fault (two if an interrupt's landed between), none for the
	 * next base page: a huge page, faulted in just now */
	if (f0 < 0 || f1 - f0 < 1 || f1 - f0 > 2 || f2 != f1)
		return 0;
	return ns ? ns : 1;
}

/* A measurement on the process's own mapping can find a huge page the
 * kernel has warm while the blocks get memory the host took back (or the
 * other way round); the block's own huge pages are what its fill pays.
 * Some of them are timed - the first, the last, then evenly between: 3,
 * one in four of a bigger block's, at most PROBE_WINDOWS - until one does
 * not pay: the kernel hands out warm and cold ones mixed, and one warm
 * first page let blocks fault the rest in cold.  One that is resident
 * already (the backend reused it) is passed over after one mincore: the
 * five syscalls of a timing would time nothing there. */
#define PROBE_WINDOWS 8

/* how many of a block's `whole` huge pages are timed: all of 1 or 2, else
 * one in four, at least 3, at most PROBE_WINDOWS */
static unsigned to_time(size_t whole)
{
	size_t k = whole < 3 ? whole : whole / 4 < 3 ? 3 : whole / 4;
	return (unsigned)(k < PROBE_WINDOWS ? k : PROBE_WINDOWS);
}

/* the k-th huge page to time of a block of `whole` huge pages, of `of` */
static size_t probe_index(unsigned k, size_t whole, unsigned of)
{
	if (k == 0)
		return 0;
	if (k == 1)
		return whole - 1;
	return (size_t)(k - 1) * (whole - 1) / (of - 1);       /* of <= whole: apart from the ends, distinct */
}
int hp_fault_cost_probe(void *p, size_t n, int retry, int fresh)
{
	if (adapt != HP_ADAPT_MEASURE)
		return 1;
	if (!fresh)
		return retry ? back_to_base() : 1;      /* a retry keeps THP only on a sample that pays */
	uint64_t t = now_ns(), at = atomic_load_explicit(&probed_at_ns, memory_order_relaxed);
	if (!retry && (t - at < (uint64_t)HP_FAULT_PROBE_MS * 1000000u ||
		       !atomic_compare_exchange_strong(&probed_at_ns, &at, t)))
		return 1;
	uintptr_t lo = ((uintptr_t)p + HP_HUGE_2M - 1) & ~(uintptr_t)(HP_HUGE_2M - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(HP_HUGE_2M - 1);     /* whole huge pages: [lo, hi) */
	if (hi <= lo)
		return retry ? back_to_base() : 1;      /* a retry keeps THP only on a sample that pays */
	size_t whole = (hi - lo) / HP_HUGE_2M;
	unsigned of = to_time(whole);
	int saved = errno;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct hp_fault_costs c;
	current(&c);
	c.got_thp = 1;
	uint64_t sum = 0;
	uintptr_t touched[PROBE_WINDOWS];
	unsigned n_touched = 0, sampled = 0;
	int go = 1;
	char why[160] = "";
	for (unsigned k = 0; k < of && go; k++) {
		uintptr_t w = lo + probe_index(k, whole, of) * HP_HUGE_2M;
		unsigned char in = 0;
		if (mincore((void *)w, page, &in) == 0 && (in & 1))
			continue;       /* resident: the backend reused it, no fault to time (one syscall, not five) */
		touched[n_touched++] = w;
		uint64_t ns = touch_ns(w, page);
		if (!ns)
			continue;
		sampled++;
		sum += ns;
		c.thp_ns = ns;
		go = hp_thp_pays_go(hp_thp_pays(adapt, &c, 100, why, sizeof why));
	}
	/* touched: given back, as they were (the block is new to the caller,
	 * its content malloc's indeterminate or calloc's zeros, which is what
	 * a page given back reads), timed or not - a touch whose fault count
	 * was off (a signal handler's faults in between) may still have made
	 * a huge page: the caller's first touch faults them in again, a page
	 * never touched costs no memory (nor a cgroup's limit).  Only now:
	 * one given back between two timings is the huge page the next fault
	 * finds, warm, whatever the block's others will be */
	for (unsigned k = 0; k < n_touched; k++)
		madvise((void *)touched[k], HP_HUGE_2M, MADV_DONTNEED);
	errno = saved;
	if (!sampled)
		return retry ? back_to_base() : 1;
	atomic_fetch_add(&probes, 1);
	uint64_t mean = atomic_load(&thp_ns), ns = sum / sampled;
	atomic_store(&thp_ns, mean ? (mean + ns) / 2 : ns);
	if (!go) {
		atomic_fetch_add(&probes_base, 1);
		if (verbose && atomic_fetch_add(&said, 1) < 16)
			hp_say("THP: a block of %zu bytes back on base pages, one of its own huge pages: %s", n, why);
		return back_to_base();
	}
	hp_live_changed();
	return 1;
}

void hp_fault_cost_read(struct hp_fault_cost_report *r)
{
	current(&r->costs);
	r->adapt = adapt;
	r->measurements = atomic_load(&measurements);
	r->blocks_thp = atomic_load(&thp_blocks);
	r->blocks_base = atomic_load(&base_blocks);
	r->probes = atomic_load(&probes);
	r->probes_base = atomic_load(&probes_base);
	r->verdict = hp_thp_pays(adapt, &r->costs, 100, r->why, sizeof r->why);
	if (adapt == HP_ADAPT_MEASURE && !r->measurements)
		hp_strlcpy(r->why, "not measured yet (no block >= threshold)", sizeof r->why);
}
