/*
 * cli_run.c - `hugepolicy run [options] [--] CMD…`: CMD with libhugepolicy
 * preloaded and the options turned into HUGEPOLICY_* variables.
 *
 * Options end at the first word that is not one (POSIX getopt's `+`), so
 * CMD's own options are never read here.  CMD is exec'ed in this process:
 * it keeps run's pid, which HUGEPOLICY_REPORT_PID names, so that the reports
 * come from CMD and not from every child it spawns.
 */
#define _GNU_SOURCE
#include "../policy/hp_policy.h"
#include "hp_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HP_SONAME
#define HP_SONAME "libhugepolicy.so.0"
#endif

const char hp_usage_run[] =
	"usage: hugepolicy run [options] [--] CMD [ARGS...]\n"
	"Runs CMD with libhugepolicy preloaded (LD_PRELOAD) and the options below\n"
	"set as HUGEPOLICY_* variables; exits with CMD's status (127 if CMD cannot be\n"
	"executed, 2 on a usage error, 1 if libhugepolicy is not found or not valid).\n"
	"Options end at the first word that is not an option, or at \"--\": the rest\n"
	"is CMD and its own arguments (`hugepolicy run ls --help` runs ls --help).\n"
	"  --backend B        system | jemalloc | mimalloc      (HUGEPOLICY_BACKEND)\n"
	"  --pages P          off | thp | hugetlb | auto        (HUGEPOLICY_PAGES)\n"
	"  --threshold N      bytes, K/M/G/T suffix, e.g. 4M    (HUGEPOLICY_THRESHOLD)\n"
	"  --reserve N        bytes to reserve, mimalloc+hugetlb (HUGEPOLICY_RESERVE)\n"
	"  --verbose          one line per decision on stderr   (HUGEPOLICY_VERBOSE=1)\n"
	"  --stats [text|json]  report at exit on stderr        (HUGEPOLICY_STATS)\n"
	"                     the next word is the value only if it is text or json\n"
	"                     (`--stats CMD` runs CMD, text report); --stats=VALUE\n"
	"                     takes any HUGEPOLICY_STATS value (0/off, 1/text/on, json)\n"
	"  --inherit          every descendant of CMD reports, not only CMD\n"
	"  --dry-run          print what run would do, exit 0, run nothing: each\n"
	"                     variable it sets as NAME=value, one per line (LD_PRELOAD\n"
	"                     included), then the command line, shell-quoted; a\n"
	"                     replay reports from every process, as --inherit\n"
	"                     (HUGEPOLICY_REPORT_PID= : its pid is not known yet)\n"
	"  -h, --help         this text (only before CMD)\n"
	"Valued options take --opt VALUE or --opt=VALUE.  Options not given keep the\n"
	"values already in the environment.\n"
	"\n"
	"Reports come from the command: run execs CMD in its own process and sets\n"
	"HUGEPOLICY_REPORT_PID to that pid, so only CMD prints the verbose lines and\n"
	"the exit report.  Programs CMD execs in turn keep the pid and report too (a\n"
	"pyenv shim's bash, then python3; each line names its program).  CMD's\n"
	"children, forked or exec'ed, keep the backend and page policy but print\n"
	"neither; warnings (bad values, fallbacks) still show.  --inherit sets\n"
	"HUGEPOLICY_REPORT_PID= (empty): every process reports.\n"
	"\n"
	"Library: HUGEPOLICY_LIBRARY if set (made absolute; it must be an ELF shared\n"
	"object that exports hugepolicy_version, else exit 1), otherwise the\n"
	"versioned " HP_SONAME " beside this program, in ../lib, ../lib64,\n"
	"../lib/<multiarch>, then in the install libdir.\n";

struct run_args {
	const char *val[HP_OPT_COUNT];  /* the HUGEPOLICY_* values to set, NULL: keep */
	int dry_run, inherit, cmd;      /* cmd: index of CMD in argv */
};

/* VALUE for option OPT, checked with the option table's own parser */
static int take(struct run_args *r, int opt, const char *value)
{
	struct hp_options o;
	hp_options_defaults(&o);
	if (hp_option_table[opt].parse(value, &o) != 0) {
		char shown[64 + 8];     /* escaped like the library's warnings: one line */
		struct hp_buf b = { shown, sizeof shown, 0 };
		shown[0] = '\0';
		hp_buf_escaped(&b, value, 64);
		fprintf(stderr, "hugepolicy run: --%s '%s' is not valid (expected %s)\n",
			hp_option_table[opt].name, shown, hp_option_table[opt].accepted);
		return 2;
	}
	r->val[opt] = value;
	return 0;
}

int hp_cli_option_word(char **argv, int *i, const char *usage)
{
	const char *a = argv[*i];
	if (strcmp(a, "--") == 0) {
		++*i;
		return HP_OPTS_END;
	}
	if (a[0] != '-' || a[1] == '\0')
		return HP_OPTS_END;     /* the first non-option ("-" too): CMD */
	if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
		fputs(usage, stdout);
		return HP_OPTS_HELP;
	}
	return 0;
}

/* -1: parsed (r->cmd set), else the exit status (0 after --help) */
static int parse(int argc, char **argv, struct run_args *r)
{
	static const int valued[] = { HP_OPT_BACKEND, HP_OPT_PAGES, HP_OPT_THRESHOLD,
				      HP_OPT_RESERVE, HP_OPT_VERBOSE, HP_OPT_STATS };
	int i = 0;
	for (; i < argc; i++) {
		int w = hp_cli_option_word(argv, &i, hp_usage_run);
		if (w == HP_OPTS_HELP)
			return 0;
		if (w)
			break;
		const char *a = argv[i];
		if (strcmp(a, "--dry-run") == 0) {
			r->dry_run = 1;
			continue;
		}
		if (strcmp(a, "--inherit") == 0) {
			r->inherit = 1;
			continue;
		}
		int opt = -1;
		const char *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		for (size_t k = 0; a[1] == '-' && k < sizeof valued / sizeof valued[0]; k++) {
			const char *name = hp_option_table[valued[k]].name;
			if (len == 2 + strlen(name) && strncmp(a + 2, name, len - 2) == 0)
				opt = valued[k];
		}
		if (opt < 0) {
			fprintf(stderr, "hugepolicy run: unknown option '%s' (see hugepolicy run --help)\n", a);
			return 2;
		}
		const char *value = eq ? eq + 1 : NULL;
		if (!value && opt == HP_OPT_VERBOSE)
			value = "1";
		if (!value && opt == HP_OPT_STATS) {
			value = "text";
			if (i + 1 < argc && (strcmp(argv[i + 1], "text") == 0 || strcmp(argv[i + 1], "json") == 0))
				value = argv[++i];
		}
		if (!value) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hugepolicy run: %s needs a value (see hugepolicy run --help)\n", a);
				return 2;
			}
			value = argv[++i];
		}
		if (take(r, opt, value) != 0)
			return 2;
	}
	if (i >= argc) {
		fprintf(stderr, "hugepolicy run: no command given (see hugepolicy run --help)\n");
		return 2;
	}
	r->cmd = i;
	return -1;
}

/* LD_PRELOAD with LIB first and any other mention of it dropped (glibc
 * separates entries by ':' or ' ') */
static int preload_list(const char *lib, char *out, size_t cap)
{
	const char *old = getenv("LD_PRELOAD");
	size_t len = (size_t)snprintf(out, cap, "%s", lib), n = strlen(lib);
	if (len >= cap)
		return -1;
	for (const char *p = old ? old : ""; *p;) {
		size_t w = strcspn(p, ": ");
		if (w && !(w == n && strncmp(p, lib, n) == 0)) {
			if (len + 1 + w >= cap)
				return -1;
			out[len++] = ':';
			memcpy(out + len, p, w);
			out[len += w] = '\0';
		}
		p += w;
		p += *p != '\0';
	}
	return 0;
}

/* S for a POSIX shell: as is when it is only safe characters, else in
 * single quotes with each ' written '\'' */
void hp_cli_quote(struct hp_buf *b, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			 "@%+=:,./_-") == strlen(s)) {
		hp_buf_printf(b, "%s", s);
		return;
	}
	hp_buf_printf(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			hp_buf_printf(b, "'\\''");
		else
			hp_buf_printf(b, "%c", *s);
	}
	hp_buf_printf(b, "'");
}

static void put_quoted(const char *s)
{
	size_t cap = 4 * strlen(s) + 3;
	char *text = malloc(cap);
	if (!text) {
		fputs(s, stdout);
		return;
	}
	struct hp_buf b = { text, cap, 0 };
	text[0] = '\0';
	hp_cli_quote(&b, s);
	fputs(text, stdout);
	free(text);
}

static void put_var(const char *name, const char *value)
{
	printf("%s=", name);
	if (*value)
		put_quoted(value);
	putchar('\n');
}

int hp_cli_run(int argc, char **argv)
{
	struct run_args r = { 0 };
	int rc = parse(argc, argv, &r);
	if (rc >= 0)
		return rc;
	char lib[PATH_MAX], preload[8192], pid[24];
	if (hp_cli_library("run", lib, sizeof lib) != 0)
		return 1;
	if (strpbrk(lib, ": ")) {
		fprintf(stderr, "hugepolicy run: %s cannot be preloaded: LD_PRELOAD splits paths at ':' "
			"and ' '\n", lib);
		return 1;
	}
	if (preload_list(lib, preload, sizeof preload) != 0) {
		fprintf(stderr, "hugepolicy run: LD_PRELOAD would be longer than %zu bytes\n", sizeof preload);
		return 1;
	}
	/* a dry run's replay gets a pid no one knows yet: it reports from
	 * every process, as --inherit */
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	r.val[HP_OPT_REPORT_PID] = r.inherit || r.dry_run ? "" : pid;
	for (int k = 0; k < HP_OPT_COUNT; k++) {
		if (!r.val[k])
			continue;
		if (r.dry_run)
			put_var(hp_option_table[k].env, r.val[k]);
		else
			setenv(hp_option_table[k].env, r.val[k], 1);
	}
	if (r.dry_run) {
		put_var("LD_PRELOAD", preload);
		for (int k = r.cmd; k < argc; k++) {
			if (k > r.cmd)
				putchar(' ');
			put_quoted(argv[k]);
		}
		putchar('\n');
		return fflush(stdout) == 0 ? 0 : 1;
	}
	setenv("LD_PRELOAD", preload, 1);
	execvp(argv[r.cmd], argv + r.cmd);
	fprintf(stderr, "hugepolicy run: cannot execute '%s': %s\n", argv[r.cmd], strerror(errno));
	return 127;
}
