/*
 * cli_probe.c - `hugepolicy probe [--json] [--root DIR] [--plans]
 * [--measure]`: what the machine (or a fixture tree under DIR) offers and
 * what auto would pick, read by the policy's own probe; --plans adds the
 * plan of every backend x mode, one line each (the fixture tests compare
 * them); --measure what a base-page and a THP fault cost here now
 * (pages/fault_measure.c, as auto measures them) and auto's verdict.
 */
#define _GNU_SOURCE
#include "../pages/hp_pages.h"
#include "hp_cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char hp_usage_probe[] =
	"usage: hugepolicy probe [--json] [--root DIR] [--plans] [--measure]\n"
	"  --json       one JSON object instead of text\n"
	"  --root DIR   read /sys and /proc under DIR (a fixture tree) instead of this machine's\n"
	"  --plans      also print the plan of every backend x mode (text only), one line each:\n"
	"               plan BACKEND MODE: pages=P scope=S thp_process=T small_nohuge=N | reasons\n"
	"  --measure    also measure what a fault costs here now: a 4 KiB base-page fault, a 2 MiB THP\n"
	"               fault on memory as the kernel hands it out (cold where the host took it back)\n"
	"               and on a huge page just freed (warm), and auto's verdict (this machine only)\n";

#define MEASURE_THP_PAGES 4

/* the measured costs as text lines, or as the JSON object's last member */
static int measure(int json, struct hp_buf *b)
{
	struct hp_fault_costs c;
	int rc = hp_fault_cost_measure(&c, MEASURE_THP_PAGES, 1);
	char why[160] = "";
	int v = rc == 0 ? hp_thp_pays(HP_ADAPT_MEASURE, &c, 100, why, sizeof why) : HP_PAYS_UNKNOWN;
	double base = (double)c.base_ns / 1e3, thp = (double)c.thp_ns / 1e3, warm = (double)c.thp_warm_ns / 1e3;
	double per_mib = c.per_huge ? (double)c.per_huge / 2 : 256;      /* base pages per MiB */
	if (json) {
		hp_buf_printf(b, ",\"fault_costs\":");
		if (rc != 0) {
			hp_buf_printf(b, "null");
			return rc;
		}
		hp_buf_printf(b, "{\"base_ns\":%llu,\"thp_ns\":%llu,\"thp_warm_ns\":%llu,\"base_pages_per_huge\":%u,"
			      "\"got_thp\":%s,\"thp_pays\":%s,\"verdict\":", (unsigned long long)c.base_ns,
			      (unsigned long long)c.thp_ns, (unsigned long long)c.thp_warm_ns, c.per_huge,
			      c.got_thp ? "true" : "false", hp_thp_pays_go(v) ? "true" : "false");
		hp_json_str(b, why);
		hp_buf_printf(b, "}");
		return 0;
	}
	if (rc != 0) {
		hp_buf_printf(b, "fault costs      not measured: %s\n", strerror(rc));
		return rc;
	}
	hp_buf_printf(b, "fault costs      base page %.2f us (%.0f us per MiB)\n", base, base * per_mib);
	hp_buf_printf(b, "                 THP fault as handed out now %.0f us per 2 MiB (%.0f us per MiB), mean of %d%s\n",
		      thp, thp / 2, MEASURE_THP_PAGES, c.got_thp ? "" : " - the kernel gave base pages, not huge pages");
	hp_buf_printf(b, "                 THP fault of a huge page just freed (warm) %.0f us per 2 MiB (%.0f us per MiB)\n",
		      warm, warm / 2);
	hp_buf_printf(b, "                 auto now: %s\n", why);
	return 0;
}

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
	int json = 0, with_plans = 0, with_measure = 0;
	const char *root = "";
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (strcmp(argv[i], "--plans") == 0) {
			with_plans = 1;
		} else if (strcmp(argv[i], "--measure") == 0) {
			with_measure = 1;
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
	if (with_measure && root[0] && strcmp(root, "/") != 0) {
		fprintf(stderr, "hugepolicy probe: --measure measures this machine; not with --root\n%s",
			hp_usage_probe);
		return 2;
	}
	struct hp_probe p;
	static char text[32768];
	struct hp_buf b = { text, sizeof text, 0 };
	hp_probe_read_root(&p, root);
	hp_probe_format(&p, json, &b);
	int rc = 0;
	if (with_measure) {
		if (json && b.len >= 2 && strcmp(text + b.len - 2, "}\n") == 0)
			text[b.len -= 2] = '\0';       /* the object's last member, then closed again */
		rc = measure(json, &b);
		if (json)
			hp_buf_printf(&b, "}\n");
	}
	fputs(text, stdout);
	if (with_plans)
		plans(&p);
	return fflush(stdout) == 0 && rc == 0 ? 0 : 1;
}
