/*
 * live.c - the library's live report: the block `hugepolicy inspect` reads
 * from another process (`hugepolicy_live`, layout and seqlock in
 * hp_live.h).  What is in it and when it is rewritten:
 * - at the end of start-up: the report's snapshot (hp_report.h): opt.*,
 *   plan.*, backend.* and the counters; stats.* and process.* unknown;
 * - where a counter changes (hp_live_changed: a hugetlb mapping made,
 *   unmapped or refused, a region, a fault-cost measurement or decision,
 *   the heap-promotion sampler's tick): the counters
 *   (hp_report_snap_counters), which are atomics - a rewrite reads nothing
 *   else, allocates nothing and costs about a microsecond, against the
 *   mmap it follows;
 * - in hugepolicy_stats() and the report: stats.* and process.* as they
 *   were read then (stats_ns says when), the whole snapshot in the report
 *   (process.mthp.* and system.mthp.* only there).
 * Nothing runs for it otherwise: no thread, no signal, nothing on the
 * malloc path of small blocks.  One writer at a time: a rewrite that meets
 * another leaves a flag the writer takes in before it lets go.
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"
#include "hp_init.h"
#include "hp_live.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

HP_EXPORT struct hp_live hugepolicy_live = {
	.magic = HP_LIVE_MAGIC, .version = HP_LIVE_VERSION, .size = sizeof(struct hp_live),
};

static atomic_int busy, pending;
static _Atomic unsigned long owner;
static int64_t stats_ns;                /* under busy */
static struct hp_report_snap next;       /* under busy */

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* 1: this thread is the writer.  wait: until the other writer is done -
 * never when it is this thread (a fork or signal handler inside a write) */
static int take(int wait)
{
	unsigned long self = (unsigned long)pthread_self();
	for (;;) {
		int free_ = 0;
		if (atomic_compare_exchange_strong(&busy, &free_, 1)) {
			atomic_store(&owner, self);
			return 1;
		}
		if (!wait || atomic_load(&owner) == self)
			return 0;
		sched_yield();
	}
}

/* the counters that changed while this thread wrote, then let go; again
 * if another thread flagged a change as it let go */
static void give(void)
{
	do {
		while (atomic_exchange(&pending, 0)) {
			memcpy(&next, &hugepolicy_live.snap, sizeof next);
			hp_report_snap_counters(&next);
			hp_live_write(&hugepolicy_live, &next, now_ns(), stats_ns);
		}
		atomic_store(&owner, 0);
		atomic_store(&busy, 0);
	} while (atomic_load(&pending) && take(0));
}

static void changed(void)
{
	atomic_store(&pending, 1);
	if (take(0))
		give();
}

void hp_live_stats(const struct hugepolicy_stats *st)
{
	if (!atomic_load(&hugepolicy_live.seq) || !take(1))
		return;
	memcpy(&next, &hugepolicy_live.snap, sizeof next);
	memcpy(&next.st, st, sizeof next.st);
	next.st.size = sizeof next.st;
	stats_ns = now_ns();
	hp_live_write(&hugepolicy_live, &next, stats_ns, stats_ns);
	atomic_store(&pending, 1);      /* what changed since st was read */
	give();
}

void hp_live_publish(const struct hp_report_snap *s)
{
	if (!atomic_load(&hugepolicy_live.seq) || !take(1))
		return;
	stats_ns = now_ns();
	hp_live_write(&hugepolicy_live, s, stats_ns, stats_ns);
	atomic_store(&pending, 1);
	give();
}

/* a forked child: its own pid; stats.* and process.* were its parent's */
static void child(void)
{
	uint64_t s = atomic_load(&hugepolicy_live.seq);
	if (s & 1)              /* a thread of the parent was writing: even again */
		atomic_store(&hugepolicy_live.seq, s + 1);
	atomic_store(&owner, 0);
	atomic_store(&busy, 0);
	if (!take(0))
		return;
	memcpy(&next, &hugepolicy_live.snap, sizeof next);
	next.pid = (int32_t)getpid();
	hp_strlcpy(next.program, hp_program(), sizeof next.program);
	struct hugepolicy_stats *st = &next.st;
	st->allocated = st->active = st->metadata = st->resident = st->mapped = st->retained = HUGEPOLICY_UNKNOWN;
	st->rss = st->anon_huge = st->hugetlb = HUGEPOLICY_UNKNOWN;
	st->minor_faults = st->major_faults = st->peak_rss = HUGEPOLICY_UNKNOWN;
	hp_thp_mid_scan(&next.mthp, 0);
	stats_ns = 0;
	hp_report_snap_counters(&next);
	hp_live_write(&hugepolicy_live, &next, now_ns(), 0);
	give();
}

void hp_live_start(void)
{
	static struct hp_report_snap r;  /* once, by the thread that ran start-up */
	hp_live_set_writer(changed);
	hp_report_snap_start(&r);
	if (!take(1))
		return;
	hp_live_write(&hugepolicy_live, &r, now_ns(), 0);
	atomic_store(&pending, 1);      /* what changed while r was gathered */
	give();
	pthread_atfork(NULL, NULL, child);
}
