/*
 * cli_probe.c - `hugepolicy probe [--json]`: what the machine offers and what
 * auto would pick, read by the policy's own probe.
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

const char hp_usage_probe[] =
	"usage: hugepolicy probe [--json]\n"
	"  --json   one JSON object instead of text\n";

int hp_cli_probe(int argc, char **argv)
{
	int json = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else {
			fprintf(stderr, "hugepolicy probe: unknown option '%s'\n%s", argv[i], hp_usage_probe);
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

