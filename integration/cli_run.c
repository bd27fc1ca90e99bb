/*
 * cli_run.c - `hugepolicy run [options] -- CMD…`: CMD with libhugepolicy.so
 * preloaded and the options turned into HUGEPOLICY_* variables.
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

#ifndef HP_INSTALL_LIBDIR
#define HP_INSTALL_LIBDIR "/usr/local/lib"
#endif

const char hp_usage_run[] =
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

int hp_cli_run(int argc, char **argv)
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
					fprintf(stderr, "hugepolicy run: %s needs a value\n%s", a, hp_usage_run);
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
			fprintf(stderr, "hugepolicy run: unknown option '%s'\n%s", a, hp_usage_run);
			return 2;
		} else {
			break;          /* CMD without "--" */
		}
	}
	if (i >= argc) {
		fprintf(stderr, "hugepolicy run: no command given\n%s", hp_usage_run);
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

