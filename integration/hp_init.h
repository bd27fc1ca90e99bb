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
	int start_pid;                      /* the process that ran start-up (a fork()ed child has another) */
	struct hp_options opt;              /* the options as they took effect (the opt.* keys) */
	char log[HP_LOG_PATH_MAX];          /* opt.log's copy: the environment may change */
};

extern struct hp_runtime hp_rt;

int hp_ready(void);
void hp_say_obtained(void);     /* one line: what the kernel says the process has */
/* exit.c: after start-up, the at_quick_exit handler that reports (only
 * where a report was asked for) */
void hp_exit_init(void);

/* api.c: the report's snapshot at the end of start-up: stats.* and
 * process.* unknown (they cost a read of smaps_rollup and the backend's
 * walk), the rest as hp_report_snap_self has it */
struct hp_report_snap;
void hp_report_snap_start(struct hp_report_snap *s);
/* live.c: the block `hugepolicy inspect` reads (hp_live.h): published at
 * the end of start-up, then rewritten where counters change
 * (hp_live_changed), with stats by hugepolicy_stats, whole by the report */
void hp_live_start(void);
void hp_live_stats(const struct hugepolicy_stats *st);
void hp_live_publish(const struct hp_report_snap *s);

#endif
