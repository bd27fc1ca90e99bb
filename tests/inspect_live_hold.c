/*
 * inspect_live_hold.c REPORT - a process under hugepolicy (linked, so the
 * backend and mode come from HUGEPOLICY_BACKEND / HUGEPOLICY_PAGES) for
 * `hugepolicy inspect` to read the live report of: allocates and fills
 * one 8 MiB block (a hugetlb block where the plan and the pool allow, else
 * THP or base pages), writes its own report as JSON to the file REPORT
 * ("-": none), prints its pid on stdout, then per line on stdin: "region"
 * makes an 8 MiB region (hugetlb preferred, populated) and prints "done";
 * exits 0 when stdin ends.  Exit 1 if the block, the report or the region
 * fails.  After the report it allocates nothing through malloc.
 */
#define _GNU_SOURCE
#include "hugepolicy.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (8u << 20)

static int say(const char *s)
{
	return write(1, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : 1;
}

int main(int argc, char **argv)
{
	char *p = malloc(BLOCK);
	if (!p || argc < 2)
		return 1;
	memset(p, 1, BLOCK);
	if (strcmp(argv[1], "-") != 0) {
		int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || hugepolicy_report(fd, HUGEPOLICY_REPORT_JSON) != 0 || close(fd) != 0)
			return 1;
	}
	char line[64];
	snprintf(line, sizeof line, "%d\n", (int)getpid());
	if (say(line))
		return 1;
	size_t n = 0;
	char c;
	while (read(0, &c, 1) == 1) {
		if (c != '\n') {
			if (n < sizeof line - 1)
				line[n++] = c;
			continue;
		}
		line[n] = '\0';
		n = 0;
		if (strcmp(line, "region") == 0) {
			struct hugepolicy_region_options o = { .size = sizeof o, .pages = HUGEPOLICY_REGION_HUGETLB,
							       .flags = HUGEPOLICY_REGION_POPULATE };
			char *r = hugepolicy_region_alloc(BLOCK, &o);
			if (!r)
				return 1;
			memset(r, 2, BLOCK);
			if (say("done\n"))
				return 1;
		}
	}
	free(p);
	return 0;
}
