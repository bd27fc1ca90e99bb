/* hp_tune.h - `hugepolicy tune` (cli_tune.c and tune_*.c): the
 * configurations, one measured run of each per round, the paired ratios to
 * the baseline with bootstrap intervals, and the outputs.
 * Invariants: configs[0] is the baseline (system/off); runs[r] of every
 * configuration is round r; a ratio pairs values of the same round only. */
#ifndef HP_TUNE_H
#define HP_TUNE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../policy/hp_policy.h"

#define TUNE_MAX_CONFIGS 24
#define TUNE_MAX_ROUNDS 64
#define TUNE_MAX_ENV 4
#define TUNE_BOOTSTRAP 2000     /* resamples per interval */
#define TUNE_SEED 1             /* the bootstrap's and the shuffle's: a report is reproducible */

/* what a run measures; the ratio of each to the baseline is in the table */
enum tune_metric { TM_WALL, TM_CPU, TM_MEM, TM_FAULTS, TM_VALUE, TM_COUNT };
extern const char *const tune_metric_name[TM_COUNT];   /* "wall", "cpu", "rss", "faults", "metric" */

struct tune_run {
	int done;               /* measured (ok or not) */
	int ok;                 /* exit 0 and, with --metric, the number found */
	int exit_code;          /* the command's status; 128+N for a signal, 127 not executed */
	char error[160];        /* why not ok */
	double v[TM_COUNT];     /* wall s, user+sys s, peak RSS+hugetlb MiB, minor faults, the number */
	double user_s, sys_s, maxrss_mib, peak_huge_mib;
	double others_cpus;     /* other processes' CPUs during the run; <0 unknown */
	int order;              /* 1-based place in its round */
	uint64_t out_hash;      /* FNV-1a of the command's standard output */
	uint64_t out_len;
};

struct tune_ci { int n; double med, lo, hi; };   /* n paired rounds; n = 0: none */

struct tune_config {
	char name[40];          /* "jemalloc/thp", "native-glibc/thp" */
	int hugepolicy;         /* 1: libhugepolicy preloaded with backend/pages */
	const char *backend, *pages;
	int nenv;
	char env[TUNE_MAX_ENV][2][512];         /* NAME, value */
	struct tune_run runs[TUNE_MAX_ROUNDS];
	struct tune_ci ci[TM_COUNT];
	int failed;             /* runs not ok */
	int out_differs;        /* --check-output: some run's output was not the reference's */
};

struct tune_opts {
	int rounds;             /* 0: until precise (at least 3, at most max_rounds) */
	int max_rounds;
	double ci_width;        /* the stop rule's largest half-width (0.02) */
	int by;                 /* enum tune_metric: what the recommendation rests on */
	int higher_better;      /* the --metric number is better when higher */
	const char *metric_re;  /* --metric REGEX or NULL */
	int check_output, json, settle, require_quiet;
	const char *csv, *svg;  /* files, or NULL */
	const char *backends, *modes;   /* comma lists or NULL (all) */
	int cmd;                /* index of CMD in argv */
};

struct tune_state {
	struct tune_opts o;
	char **cmd;
	int nconf;
	struct tune_config conf[TUNE_MAX_CONFIGS];
	int nskip;
	char skipped[TUNE_MAX_CONFIGS][2][256];   /* configuration, why */
	int rounds;             /* complete rounds */
	int interrupted;
	int settled;            /* memory settled before each run */
	char settle_why[128];   /* why not */
	char quiet_start[128];  /* "" quiet before the first run, else why not */
	char lib[4096];         /* the libhugepolicy preloaded */
};

/* tune_configs.c: 0, or 2 after a line on stderr naming a word of
 * --backends or --modes that is not a backend or mode */
int tune_lists_check(const struct tune_opts *o);
/* the configurations this machine supports (the probe's plans, the peers
 * that are installed), baseline first, s->lib preloaded; skipped ones with
 * the reason */
void tune_configs(struct tune_state *s);
/* the `hugepolicy run` line of a hugepolicy configuration, shell-quoted */
void tune_run_line(const struct tune_state *s, const struct tune_config *c, struct hp_buf *b);
/* the environment line of c: NAME=value ..., shell-quoted */
void tune_env_line(const struct tune_config *c, struct hp_buf *b);

/* tune_measure.c: one run of CMD under configuration c into *out; the
 * command's output checked against *ref (NULL: none kept), the number of
 * --metric searched with re (NULL: none). */
struct tune_measure_ctx {
	const void *re;         /* a compiled regex_t, or NULL */
	int settle;
	volatile sig_atomic_t *stop;    /* set (by a signal handler): the command gets SIGTERM */
};
void tune_measure(const struct tune_measure_ctx *m, char **cmd, const struct tune_config *c,
		  struct tune_run *out);
/* settle memory (root): sync, drop_caches=1, compact_memory; 0 or an errno */
int tune_settle(void);
/* "" when memory can be settled here, else why not, into why */
void tune_can_settle(char *why, size_t cap);
/* other processes' CPUs over `seconds` and the load average: "" quiet, else why not */
void tune_quiet_check(double seconds, char *why, size_t cap);
#define TUNE_QUIET_CPUS 0.10
#define TUNE_QUIET_LOAD 0.5

/* tune_stats.c: pure */
double tune_median(const double *v, int n);
/* the median of the per-round ratios x[r]/base[r] (rounds where both are
 * finite and base > 0) and a bootstrap 95 % interval of that median: rounds
 * resampled with replacement, nboot times, from a fixed seed */
void tune_paired_ci(const double *x, const double *base, int rounds, int nboot, uint64_t seed,
		    struct tune_ci *out);
/* half the interval's width relative to its median (0: every round agrees);
 * -1 without an interval (fewer than 2 rounds) */
double tune_half_width(const struct tune_ci *ci);
/* 1 when every configuration but the baseline has an interval no wider than
 * +-width on metric `by` */
int tune_precise(const struct tune_state *s, int by, double width);
/* the configuration to recommend: not the baseline, every run ok, output
 * not differing, at least 2 paired rounds, its whole interval on `by`
 * below 1 (above with higher_better), the best median of those; -1 if none */
int tune_pick(const struct tune_state *s, int by, int higher_better);
/* the intervals of every configuration and metric from the rounds done */
void tune_compute(struct tune_state *s);
/* a permutation of 0..n-1 for round r (1-based), the same for the same r */
void tune_shuffle(int *order, int n, int round);

/* tune_output.c */
void tune_print_table(const struct tune_state *s, FILE *f);
void tune_print_json(const struct tune_state *s, FILE *f);
int tune_write_csv(const struct tune_state *s, const char *path);
int tune_write_svg(const struct tune_state *s, const char *path);

#endif
