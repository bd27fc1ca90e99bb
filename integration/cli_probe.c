/*
 * cli_probe.c - `hugepolicy probe [--json] [--root DIR] [--plans]`: what the
 * machine (or a fixture tree under DIR) offers and what auto would pick,
 * read by the policy's own probe; --plans adds the plan of every backend x
 * mode, one line each (the fixture tests compare them).
 */
#define _GNU_SOURCE
#include "../policy/hp_policy.h"
#include "hp_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char hp_usage_probe[] =
	"usage: hugepolicy probe [--json] [--root DIR] [--plans]\n"
	"  --json       one JSON object instead of text\n"
	"  --root DIR   read /sys and /proc under DIR (a fixture tree) instead of this machine's\n"
	"  --plans      also print the plan of every backend x mode (text only), one line each:\n"
	"               plan BACKEND MODE: pages=P scope=S thp_process=T small_nohuge=N | reasons\n";

static const char *scope_name(const struct hp_plan *pl)
{
	return pl->pages != HP_PAGES_THP ? "-" : pl->thp_scope == HP_THP_ALL ? "all" : "large";
}

static void plans(const struct hp_probe *p)
{
	for (int be = 0; be < HP_BACKEND_COUNT; be++)
		for (int pg = 0; pg < HP_PAGES_COUNT; pg++) {
			struct hp_options o;
			struct hp_plan pl;
			hp_options_defaults(&o);
			o.backend = be, o.pages = pg;
			hp_plan_make(&o, p, &pl);
			printf("plan %s %s: pages=%s scope=%s thp_process=%s small_nohuge=%d available=%d"
			       " | pages: %s | thp_process: %s | small: %s\n",
			       hp_backend_name(be), hp_pages_name(pg), hp_pages_name(pl.pages), scope_name(&pl),
			       hp_thp_process_name(pl.thp_process), pl.thp_small_nohuge, pl.thp_available,
			       pl.pages_reason, pl.thp_process_reason, pl.thp_small_reason);
		}
}

int hp_cli_probe(int argc, char **argv)
{
	int json = 0, with_plans = 0;
	const char *root = "";
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (strcmp(argv[i], "--plans") == 0) {
			with_plans = 1;
		} else if (strcmp(argv[i], "--root") == 0 || strncmp(argv[i], "--root=", 7) == 0) {
			root = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : NULL;
			struct stat st;
			if (!root || !root[0]) {
				fprintf(stderr, "hugepolicy probe: --root needs a directory\n%s", hp_usage_probe);
				return 2;
			}
			int err = stat(root, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
			if (err) {
				fprintf(stderr, "hugepolicy probe: --root %s: %s\n", root, strerror(err));
				return 1;
			}
		} else {
			fprintf(stderr, "hugepolicy probe: unknown option '%s'\n%s", argv[i], hp_usage_probe);
			return 2;
		}
	}
	if (json && with_plans) {
		fprintf(stderr, "hugepolicy probe: --plans is text only\n%s", hp_usage_probe);
		return 2;
	}
	struct hp_probe p;
	static char text[32768];
	struct hp_buf b = { text, sizeof text, 0 };
	hp_probe_read_root(&p, root);
	hp_probe_format(&p, json, &b);
	fputs(text, stdout);
	if (with_plans)
		plans(&p);
	return fflush(stdout) == 0 ? 0 : 1;
}
