/*
 * cli.c - the `hugepolicy` command.
 *   hugepolicy probe [--json]          what the machine offers, what auto picks
 *   hugepolicy run [options] [--] CMD…  CMD with libhugepolicy preloaded
 *   hugepolicy inspect PID|--self       what a process's memory is on, and why
 *   hugepolicy tune [options] [--] CMD…  which backend x mode suits CMD here
 *   hugepolicy version | --version      hugepolicy, jemalloc, mimalloc, glibc
 * Exit status: 0 ok, 1 failure of the thing asked, 2 usage error; `run`
 * exits with CMD's status (127 if CMD cannot be executed).
 * The CLI itself does not load libhugepolicy: its own allocations stay
 * glibc's, and decisions are printed once, by the program it runs.  When
 * an outer `hugepolicy run` preloads the library into the CLI, the library
 * finds hugepolicy_cli_process (exported from this executable) and stays
 * quiet: glibc's malloc, no policy, no line.
 */
#include "hp_cli.h"

#include <stdio.h>
#include <string.h>

const char hugepolicy_cli_process = 1;

static const char usage_main[] =
	"usage: hugepolicy <command> [options]\n"
	"\n"
	"commands:\n"
	"  probe   show THP settings, hugetlb pools, cgroup limits, NUMA nodes, kernel,\n"
	"          and what HUGEPOLICY_PAGES=auto would choose per backend\n"
	"  run     run a command with libhugepolicy preloaded\n"
	"  inspect what a running process's memory is on (THP, hugetlb, base pages), why,\n"
	"          and whether hugepolicy is loaded in it\n"
	"  tune    run a command under every backend x page mode and the native peers,\n"
	"          in interleaved rounds, and say which is resolvably best for it\n"
	"  version the versions of hugepolicy, its jemalloc, the mimalloc it would\n"
	"          load, and glibc (also: hugepolicy --version)\n"
	"\n"
	"'hugepolicy <command> --help' describes a command.\n";

static int want_help(int argc, char **argv)
{
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
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
			fputs(hp_usage_probe, stdout);
			return 0;
		}
		return hp_cli_probe(argc - 2, argv + 2);
	}
	if (strcmp(cmd, "inspect") == 0) {
		if (want_help(argc - 2, argv + 2)) {
			fputs(hp_usage_inspect, stdout);
			return 0;
		}
		return hp_cli_inspect(argc - 2, argv + 2);
	}
	if (strcmp(cmd, "tune") == 0)       /* --help only before CMD, as run */
		return hp_cli_tune(argc - 2, argv + 2);
	if (strcmp(cmd, "run") == 0)        /* --help only before CMD: run's own scan */
		return hp_cli_run(argc - 2, argv + 2);
	if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0)
		return hp_cli_version(argc - 2, argv + 2);
	fprintf(stderr, "hugepolicy: unknown command '%s'\n%s", cmd, usage_main);
	return 2;
}
