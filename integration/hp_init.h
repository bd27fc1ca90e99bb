/* hp_init.h - the start-up result shared by init.c and api.c. */
#ifndef HP_INIT_H
#define HP_INIT_H

#include "../backends/hp_backend.h"
#include "hugepolicy.h"

struct hp_runtime {
	struct hp_probe probe;
	struct hp_plan plan;
	const struct hp_backend *backend;   /* NULL until start-up succeeded */
	const char *backend_source;         /* "HUGEPOLICY_BACKEND", "default", "fallback" */
	int report_pid;                     /* HUGEPOLICY_REPORT_PID: the process that reports, 0 any */
};

extern struct hp_runtime hp_rt;

int hp_ready(void);
void hp_say_obtained(void);     /* one line: what the kernel says the process has */

/* api.c: the report as data (policy/hp_live.h).  gather: everything,
 * stats.* and process.* read now if numbers (hugepolicy_stats), else
 * unknown; counters: only what the page layer and the regions count
 * (atomics: cheap, lock-free) */
struct hp_report_src;
void hp_report_gather(struct hp_report_src *r, int numbers);
void hp_report_counters(struct hp_report_src *r);
/* live.c: the block `hugepolicy inspect` reads: published at the end of
 * start-up, then rewritten where counters change (hp_live_changed), with
 * stats by hugepolicy_stats, whole by the report */
void hp_live_start(void);
void hp_live_stats(const struct hugepolicy_stats *st);
void hp_live_publish(const struct hp_report_src *r);

#endif
