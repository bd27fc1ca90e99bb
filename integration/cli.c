/*
 * cli.c - the `hugepolicy` command.
 *   hugepolicy probe [--json]          what the machine offers, what auto picks
 *   hugepolicy run [options] -- CMD…   CMD with libhugepolicy.so preloaded
 * Exit status: 0 ok, 1 failure of the thing asked, 2 usage error; `run`
 * exits with CMD's status (127 if CMD cannot be executed).
 * The CLI itself does not load libhugepolicy.so: its own allocations stay
 * glibc's, and decisions are printed once, by the program it runs.
 */
#define _GNU_SOURCE
#include "../policy/hp_policy.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef HP_INSTALL_LIBDIR
#define HP_INSTALL_LIBDIR "/usr/local/lib"
#endif

static const char usage_main[] =
	"usage: hugepolicy <command> [options]\n"
	"\n"
	"commands:\n"
	"  probe   show THP settings, hugetlb pools, cgroup limits, NUMA nodes, kernel,\n"
	"          and what HUGEPOLICY_PAGES=auto would choose per backend\n"
	"  run     run a command with libhugepolicy.so preloaded\n"
	"\n"
	"'hugepolicy <command> --help' describes a command.\n";

static const char usage_probe[] =
	"usage: hugepolicy probe [--json]\n"
	"  --json   one JSON object instead of text\n";

static const char usage_run[] =
	"usage: hugepolicy run [options] -- CMD [ARGS...]\n"
	"  (--opt VALUE and --opt=VALUE both work)\n"
	"  --backend B      system | jemalloc | mimalloc      (HUGEPOLICY_BACKEND)\n"
	"  --pages P        off | thp | hugetlb | auto        (HUGEPOLICY_PAGES)\n"
	"  --threshold N    bytes, K/M/G/T suffix, e.g. 4M    (HUGEPOLICY_THRESHOLD)\n"
	"  --reserve N      bytes to reserve, mimalloc+hugetlb (HUGEPOLICY_RESERVE)\n"
	"  --verbose        one line per decision on stderr   (HUGEPOLICY_VERBOSE=1)\n"
	"  --stats[=json]   report at exit on stderr          (HUGEPOLICY_STATS)\n"
	"Options not given keep the values already in the environment.\n"
	"Runs CMD with LD_PRELOAD=libhugepolicy.so and exits with CMD's status.\n";

static int want_help(int argc, char **argv)
{
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

static int cmd_probe(int argc, char **argv)
{
	int json = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else {
			fprintf(stderr, "hugepolicy probe: unknown option '%s'\n%s", argv[i], usage_probe);
			return 2;
		}
	}
	struct hp_probe p;
	static char text[16384];
	struct hp_buf b = { text, sizeof text, 0 };
	hp_probe_read(&p);
	hp_probe_format(&p, json, &b);
	fputs(text, stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int exists(const char *path)
{
	return access(path, R_OK) == 0;
}

/* libhugepolicy.so next to this executable (build tree), in ../lib*, or in
 * the install libdir; HUGEPOLICY_LIBRARY overrides. */
static int find_library(char *out, size_t cap)
{
	const char *env = getenv("HUGEPOLICY_LIBRARY");
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return exists(out) ? 0 : -1;
	}
	char exe[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			static const char *const rel[] = { "", "/../lib", "/../lib64", "/../lib/x86_64-linux-gnu" };
			for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
				snprintf(out, cap, "%s%s/libhugepolicy.so", exe, rel[i]);
				if (exists(out))
					return 0;
			}
		}
	}
	snprintf(out, cap, "%s/libhugepolicy.so", HP_INSTALL_LIBDIR);
	return exists(out) ? 0 : -1;
}

/* Validate VALUE with the option table's own parser; exit 2 if bad. */
static void check_value(int opt, const char *value)
{
	struct hp_options o;
	hp_options_defaults(&o);
	if (hp_option_table[opt].parse(value, &o) != 0) {
		fprintf(stderr, "hugepolicy run: --%s '%s' is not valid (expected %s)\n",
			hp_option_table[opt].name, value, hp_option_table[opt].accepted);
		exit(2);
	}
}

static int cmd_run(int argc, char **argv)
{
	int i = 0;
	static const int valued[] = { HP_OPT_BACKEND, HP_OPT_PAGES, HP_OPT_THRESHOLD, HP_OPT_RESERVE };
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		int opt = -1;
		const char *value = NULL;
		for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
			const char *name = hp_option_table[valued[k]].name;
			size_t n = strlen(name);
			if (strncmp(a, "--", 2) == 0 && strncmp(a + 2, name, n) == 0 &&
			    (a[2 + n] == '\0' || a[2 + n] == '=')) {
				opt = valued[k];
				value = a[2 + n] == '=' ? a + 3 + n : NULL;   /* --opt=value or --opt value */
			}
		}
		if (opt >= 0) {
			if (!value) {
				if (i + 1 >= argc) {
					fprintf(stderr, "hugepolicy run: %s needs a value\n%s", a, usage_run);
					return 2;
				}
				value = argv[++i];
			}
			check_value(opt, value);
			setenv(hp_option_table[opt].env, value, 1);
		} else if (strcmp(a, "--verbose") == 0) {
			setenv("HUGEPOLICY_VERBOSE", "1", 1);
		} else if (strcmp(a, "--stats") == 0) {
			setenv("HUGEPOLICY_STATS", "text", 1);
		} else if (strncmp(a, "--stats=", 8) == 0) {
			check_value(HP_OPT_STATS, a + 8);
			setenv("HUGEPOLICY_STATS", a + 8, 1);
		} else if (a[0] == '-') {
			fprintf(stderr, "hugepolicy run: unknown option '%s'\n%s", a, usage_run);
			return 2;
		} else {
			break;          /* CMD without "--" */
		}
	}
	if (i >= argc) {
		fprintf(stderr, "hugepolicy run: no command given\n%s", usage_run);
		return 2;
	}
	char lib[PATH_MAX + 64];
	if (find_library(lib, sizeof lib) != 0) {
		const char *env = getenv("HUGEPOLICY_LIBRARY");
		if (env && *env)
			fprintf(stderr, "hugepolicy run: HUGEPOLICY_LIBRARY=%s: no such file\n", env);
		else
			fprintf(stderr, "hugepolicy run: libhugepolicy.so not found (looked beside this program "
				"and in %s; set HUGEPOLICY_LIBRARY)\n", HP_INSTALL_LIBDIR);
		return 1;
	}
	const char *old = getenv("LD_PRELOAD");
	char preload[3 * PATH_MAX];
	if (old && strstr(old, lib))
		snprintf(preload, sizeof preload, "%s", old);    /* nested run: already there */
	else if (old && *old)
		snprintf(preload, sizeof preload, "%s:%s", lib, old);
	else
		snprintf(preload, sizeof preload, "%s", lib);
	setenv("LD_PRELOAD", preload, 1);
	execvp(argv[i], argv + i);
	fprintf(stderr, "hugepolicy run: cannot execute '%s': %s\n", argv[i], strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (strcmp(cmd, "probe") == 0) {
		if (want_help(argc - 2, argv + 2)) {
			fputs(usage_probe, stdout);
			return 0;
		}
		return cmd_probe(argc - 2, argv + 2);
	}
	if (strcmp(cmd, "run") == 0) {
		if (want_help(argc - 2, argv + 2)) {
			fputs(usage_run, stdout);
			return 0;
		}
		return cmd_run(argc - 2, argv + 2);
	}
	fprintf(stderr, "hugepolicy: unknown command '%s'\n%s", cmd, usage_main);
	return 2;
}
