/*
 * cli_tune.c - `hugepolicy tune [options] [--] CMD [ARGS...]`: which
 * backend and page mode (or native peer) is best for CMD on this machine.
 *
 * The options, then the rounds: every configuration (tune_configs.c) runs
 * CMD once per round, in an order shuffled per round with a fixed seed,
 * so that drift on a shared machine and what one run leaves behind for
 * the next (fragmented or freshly freed huge pages) turn into noise, not
 * a bias for one column (perf/README.md, Method).  After each round the
 * paired intervals are computed; without --rounds the rounds go on until
 * every interval on the --by metric is within +-ci_width (at least 3
 * rounds) or max_rounds.  Ctrl-C or SIGTERM ends the rounds (the running
 * command gets SIGTERM): the complete ones are
 * reported.  Exit status: 0, 1 (a run failed, outputs differ with
 * --check-output, interrupted, not quiet with --require-quiet, no
 * library), 2 (usage).
 */
#define _GNU_SOURCE
#include "hp_cli.h"
#include "hp_tune.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char hp_usage_tune[] =
	"usage: hugepolicy tune [options] [--] CMD [ARGS...]\n"
	"Runs CMD under every backend x page mode this machine supports (the probe's\n"
	"plans: thp where THP is available, hugetlb where a pool has free pages) and\n"
	"the native peers that are installed (Debian's libjemalloc with thp:always,\n"
	"libmimalloc with large OS pages, glibc's glibc.malloc.hugetlb=1 tunable), once\n"
	"per round in a shuffled order, and prints the ratios to system/off (the\n"
	"median of per-round ratios, with a bootstrap 95 % interval) and one\n"
	"recommendation: the configuration whose whole interval is better than 1,\n"
	"the best of those, as an environment line and a `hugepolicy run` line; or\n"
	"that no configuration is resolvably better.  CMD's output is captured, not\n"
	"shown; its standard input is /dev/null.\n"
	"  --rounds N         rounds to run (default: until every interval on the --by\n"
	"                     metric is within +-ci-width, at least 3, at most --max-rounds)\n"
	"  --max-rounds N     the most rounds without --rounds (10)\n"
	"  --ci-width F       the stop rule's half-width, a fraction (0.02: +-2 %)\n"
	"  --by M             wall | cpu | rss | faults | metric: what the recommendation\n"
	"                     rests on (wall; metric when --metric is given); rss is the\n"
	"                     peak of RSS + hugetlb\n"
	"  --metric REGEX     also a number CMD prints: the first match of the POSIX\n"
	"                     extended REGEX in its standard output, else its standard\n"
	"                     error (its first group if it has one); lower is better\n"
	"  --higher-better    the --metric number is better when higher (a rate)\n"
	"  --check-output     check that every run's standard output is the same bytes\n"
	"                     (a configuration whose output differs is never recommended)\n"
	"  --backends LIST    comma list of system, jemalloc, mimalloc, native-jemalloc,\n"
	"                     native-mimalloc, native-glibc (default: all)\n"
	"  --modes LIST       comma list of off, thp, hugetlb, auto (default: all); system/off,\n"
	"                     the baseline, always runs; the peers run with thp\n"
	"  --no-settle        do not settle memory before each run (as root, the default is\n"
	"                     sync, drop_caches=1, compact_memory)\n"
	"  --require-quiet    refuse to run (exit 1) when other processes use 0.10 CPUs\n"
	"                     or more, or the load average is 0.5 or more, before the first run\n"
	"  --json             one JSON object on standard output instead of the table\n"
	"  --csv FILE         every run as a CSV row into FILE\n"
	"  --svg FILE         the ratios on the --by metric as an SVG chart into FILE\n"
	"  -h, --help         this text (only before CMD)\n"
	"Valued options take --opt VALUE or --opt=VALUE; options end at the first word\n"
	"that is not one, or at \"--\".  Each run gets the caller's environment without\n"
	"HUGEPOLICY_*, MIMALLOC_*, MALLOC_CONF, LD_PRELOAD and GLIBC_TUNABLES, then its\n"
	"configuration's.  Exit status: 0; 1 if a run failed, outputs differ\n"
	"(--check-output), the rounds were interrupted, or libhugepolicy is not found;\n"
	"2 on a usage error.\n";

static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static int usage(const char *fmt, const char *a)
{
	fprintf(stderr, "hugepolicy tune: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, " (see hugepolicy tune --help)\n");
	return 2;
}

static int number(const char *opt, const char *v, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < lo || n > hi) {
		fprintf(stderr, "hugepolicy tune: %s '%s' is not a number from %d to %d\n", opt, v, lo, hi);
		return 2;
	}
	*out = (int)n;
	return 0;
}

static int take(struct tune_opts *o, const char *name, const char *v)
{
	if (strcmp(name, "--rounds") == 0)
		return number(name, v, 1, TUNE_MAX_ROUNDS, &o->rounds);
	if (strcmp(name, "--max-rounds") == 0)
		return number(name, v, 3, TUNE_MAX_ROUNDS, &o->max_rounds);
	if (strcmp(name, "--ci-width") == 0) {
		char *end;
		double w = strtod(v, &end);
		if (end == v || *end || !(w > 0 && w < 1)) {
			fprintf(stderr, "hugepolicy tune: --ci-width '%s' is not a fraction between 0 and 1\n", v);
			return 2;
		}
		o->ci_width = w;
		return 0;
	}
	if (strcmp(name, "--by") == 0) {
		for (int m = 0; m < TM_COUNT; m++)
			if (strcmp(v, tune_metric_name[m]) == 0) {
				o->by = m;
				return 0;
			}
		return usage("--by '%s' is not one of wall, cpu, rss, faults, metric", v);
	}
	if (strcmp(name, "--metric") == 0)
		o->metric_re = v;
	else if (strcmp(name, "--backends") == 0)
		o->backends = v;
	else if (strcmp(name, "--modes") == 0)
		o->modes = v;
	else if (strcmp(name, "--csv") == 0)
		o->csv = v;
	else if (strcmp(name, "--svg") == 0)
		o->svg = v;
	else
		return usage("unknown option '%s'", name);
	return *v ? 0 : usage("%s needs a value that is not empty", name);
}

/* -1: parsed (o->cmd set), else the exit status (0 after --help) */
static int parse(int argc, char **argv, struct tune_opts *o)
{
	static const char *const flags[] = { "--higher-better", "--check-output", "--no-settle",
					     "--require-quiet", "--json" };
	static const char *const valued[] = { "--rounds", "--max-rounds", "--ci-width", "--by", "--metric",
					      "--backends", "--modes", "--csv", "--svg" };
	memset(o, 0, sizeof *o);
	o->max_rounds = 10, o->ci_width = 0.02, o->settle = 1, o->by = -1;
	int i = 0;
	for (; i < argc; i++) {
		int w = hp_cli_option_word(argv, &i, hp_usage_tune);
		if (w == HP_OPTS_HELP)
			return 0;
		if (w)
			break;
		const char *a = argv[i];
		int *flag_at[] = { &o->higher_better, &o->check_output, &o->settle, &o->require_quiet, &o->json };
		int known = 0;
		for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
			if (strcmp(a, flags[k]) == 0) {
				*flag_at[k] = k != 2;   /* --no-settle clears */
				known = 1;
			}
		if (known)
			continue;
		char name[32];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(a, "="), a);
		const char *v = strchr(a, '=') ? strchr(a, '=') + 1 : NULL;
		for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
			known |= strcmp(name, valued[k]) == 0;
		if (!known)
			return usage("unknown option '%s'", a);
		if (!v) {
			if (i + 1 >= argc)
				return usage("%s needs a value", a);
			v = argv[++i];
		}
		int rc = take(o, name, v);
		if (rc)
			return rc;
	}
	if (i >= argc)
		return usage("%s", "no command given");
	if (o->by == TM_VALUE && !o->metric_re)
		return usage("%s", "--by metric needs --metric REGEX");
	if (o->higher_better && !o->metric_re)
		return usage("%s", "--higher-better is about the --metric number: give --metric REGEX");
	if (o->by < 0)
		o->by = o->metric_re ? TM_VALUE : TM_WALL;
	o->cmd = i;
	return -1;
}

static void progress(const struct tune_state *s, int round, int most, int i, const char *name)
{
	if (!isatty(2))
		return;
	fprintf(stderr, "\r\033[Khugepolicy tune: round %d/%s%d, run %d/%d: %s", round + 1, s->o.rounds ? "" : "<=",
		most, i + 1, s->nconf, name);
	fflush(stderr);
}

/* the rounds; 0, or 1 when the baseline's first run failed (nothing to compare) */
static int rounds(struct tune_state *s, const regex_t *re)
{
	struct tune_measure_ctx ctx = { .re = re, .settle = s->settled, .stop = &stop_asked };
	int most = s->o.rounds ? s->o.rounds : s->o.max_rounds, order[TUNE_MAX_CONFIGS], have_ref = 0;
	uint64_t ref_hash = 0, ref_len = 0;
	for (int r = 0; r < most && !stop_asked; r++) {
		tune_shuffle(order, s->nconf, r + 1);
		for (int i = 0; i < s->nconf && !stop_asked; i++) {
			struct tune_config *c = &s->conf[order[i]];
			struct tune_run *run = &c->runs[r];
			progress(s, r, most, i, c->name);
			tune_measure(&ctx, s->cmd, c, run);
			run->order = i + 1;
			if (stop_asked) {       /* a run cut short by Ctrl-C measures nothing */
				run->done = 0;
				break;
			}
			if (!run->ok) {
				c->failed++;
				if (r == 0 && order[i] == 0) {
					if (isatty(2))
						fprintf(stderr, "\r\033[K");
					fprintf(stderr, "hugepolicy tune: the baseline %s failed (%s): nothing to compare\n",
						c->name, run->error);
					return 1;
				}
				continue;
			}
			if (!have_ref)
				ref_hash = run->out_hash, ref_len = run->out_len, have_ref = 1;
			else if (s->o.check_output && (run->out_hash != ref_hash || run->out_len != ref_len))
				c->out_differs = 1;
		}
		if (stop_asked)
			break;
		s->rounds = r + 1;
		tune_compute(s);
		if (!s->o.rounds && s->rounds >= 3 && tune_precise(s, s->o.by, s->o.ci_width))
			break;
	}
	s->interrupted = stop_asked != 0;
	for (int c = 0; c < s->nconf && s->interrupted && s->rounds < TUNE_MAX_ROUNDS; c++) {
		/* the cut round is not reported */
		struct tune_run *run = &s->conf[c].runs[s->rounds];
		if (run->done && !run->ok)
			s->conf[c].failed--;
		memset(run, 0, sizeof *run);
	}
	tune_compute(s);
	if (isatty(2))
		fprintf(stderr, "\r\033[K");
	return 0;
}

static int outputs(const struct tune_state *s)
{
	int rc = 0;
	if (s->o.json)
		tune_print_json(s, stdout);
	else
		tune_print_table(s, stdout);
	if (s->o.csv && tune_write_csv(s, s->o.csv) != 0) {
		fprintf(stderr, "hugepolicy tune: --csv %s: %s\n", s->o.csv, strerror(errno));
		rc = 1;
	}
	if (s->o.svg && tune_write_svg(s, s->o.svg) != 0) {
		fprintf(stderr, "hugepolicy tune: --svg %s: %s\n", s->o.svg, strerror(errno));
		rc = 1;
	}
	return fflush(stdout) == 0 ? rc : 1;
}

int hp_cli_tune(int argc, char **argv)
{
	static struct tune_state s;
	memset(&s, 0, sizeof s);
	int rc = parse(argc, argv, &s.o);
	if (rc >= 0)
		return rc;
	s.cmd = argv + s.o.cmd;
	regex_t re;
	if (s.o.metric_re) {
		int e = regcomp(&re, s.o.metric_re, REG_EXTENDED | REG_NEWLINE);
		if (e) {
			char why[256];
			regerror(e, &re, why, sizeof why);
			fprintf(stderr, "hugepolicy tune: --metric '%s': %s\n", s.o.metric_re, why);
			return 2;
		}
	}
	if ((rc = tune_lists_check(&s.o)) != 0 || (rc = hp_cli_library("tune", s.lib, sizeof s.lib)) != 0)
		goto out;
	tune_configs(&s);
	for (int k = 0; k < s.nskip; k++) {     /* one line per reason */
		int first = 1;
		for (int j = 0; j < k && first; j++)
			first = strcmp(s.skipped[j][1], s.skipped[k][1]) != 0;
		if (!first)
			continue;
		fprintf(stderr, "hugepolicy tune: skipping %s", s.skipped[k][0]);
		for (int j = k + 1; j < s.nskip; j++)
			if (strcmp(s.skipped[j][1], s.skipped[k][1]) == 0)
				fprintf(stderr, ", %s", s.skipped[j][0]);
		fprintf(stderr, ": %s\n", s.skipped[k][1]);
	}
	if (s.o.settle) {
		tune_can_settle(s.settle_why, sizeof s.settle_why);
		s.settled = !s.settle_why[0];
	} else {
		hp_strlcpy(s.settle_why, "--no-settle", sizeof s.settle_why);
	}
	tune_quiet_check(1.0, s.quiet_start, sizeof s.quiet_start);
	if (s.quiet_start[0] && s.o.require_quiet) {
		fprintf(stderr, "hugepolicy tune: the machine is not quiet (%s): --require-quiet, so nothing runs\n",
			s.quiet_start);
		rc = 1;
		goto out;
	}
	if (s.quiet_start[0])
		fprintf(stderr, "hugepolicy tune: the machine is not quiet (%s); each run records others' CPU\n",
			s.quiet_start);
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = rounds(&s, s.o.metric_re ? &re : NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc == 0) {
		rc = outputs(&s);
		for (int c = 0; c < s.nconf; c++)
			rc |= s.conf[c].failed || s.conf[c].out_differs;
		rc |= s.interrupted;
	}
out:
	if (s.o.metric_re)
		regfree(&re);
	return rc;
}
