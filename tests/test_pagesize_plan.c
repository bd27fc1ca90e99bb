/*
 * test_pagesize_plan.c FIXTURE_DIR [EXPECTED]
 * The plan's page sizes (plan_pagesize.c) on a fixture machine for every
 * HUGEPOLICY_HUGETLB_SIZE value x backend x pages=hugetlb|auto.  Without
 * EXPECTED it prints one line per case:
 *   SIZE BACKEND MODE pages=P page=N big_page=N big_min=N available=N | reason
 * With EXPECTED (FIXTURE_DIR/pagesize.txt, written by hand from the rules of
 * plan_pagesize.c) each of its lines
 *   SIZE BACKEND MODE pages=P page=N big_page=N big_min=N available=N ~fragment ~fragment
 * must have exactly those fields, and each ~fragment in the reason.
 */
#define _GNU_SOURCE
#include "../policy/hp_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sizes[] = { "auto", "2M", "1G", "512M", "16G", "4M" };

static int line_of(const struct hp_probe *p, const char *size, int be, int pg, char *fields, size_t fcap,
		   char *why, size_t wcap)
{
	struct hp_options o;
	struct hp_plan pl;
	hp_options_defaults(&o);
	o.backend = be, o.pages = pg;
	if (hp_option_table[HP_OPT_HUGETLB_SIZE].parse(size, &o) != 0)
		return -1;
	hp_plan_make(&o, p, &pl);
	snprintf(fields, fcap, "%s %s %s pages=%s page=%llu big_page=%llu big_min=%llu available=%llu", size,
		 hp_backend_name(be), hp_pages_name(pg), hp_pages_name(pl.pages), (unsigned long long)pl.hugetlb_page,
		 (unsigned long long)pl.hugetlb_big_page, (unsigned long long)pl.hugetlb_big_min,
		 (unsigned long long)pl.pool_available);
	snprintf(why, wcap, "%s", pl.pages_reason);
	return 0;
}

static int find(const struct hp_probe *p, const char *size, const char *be, const char *pg, char *fields,
		size_t fcap, char *why, size_t wcap)
{
	for (int b = 0; b < HP_BACKEND_COUNT; b++)
		for (int m = 0; m < HP_PAGES_COUNT; m++)
			if (strcmp(hp_backend_name(b), be) == 0 && strcmp(hp_pages_name(m), pg) == 0)
				return line_of(p, size, b, m, fields, fcap, why, wcap);
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURE_DIR [EXPECTED]\n", argv[0]);
		return 2;
	}
	struct hp_probe p;
	char fields[256], why[1024];
	hp_probe_read_root(&p, argv[1]);
	if (argc == 2) {
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
			for (int be = 0; be < HP_BACKEND_COUNT; be++)
				for (int pg = HP_PAGES_HUGETLB; pg <= HP_PAGES_AUTO; pg++)
					if (line_of(&p, sizes[s], be, pg, fields, sizeof fields, why, sizeof why) == 0)
						printf("%s | %s\n", fields, why);
		return 0;
	}
	FILE *f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	char want[2048];
	int fail = 0, n = 0;
	while (fgets(want, sizeof want, f)) {
		want[strcspn(want, "\n")] = '\0';
		if (!want[0] || want[0] == '#')
			continue;
		char size[16], be[16], pg[16];
		if (sscanf(want, "%15s %15s %15s", size, be, pg) != 3 ||
		    find(&p, size, be, pg, fields, sizeof fields, why, sizeof why) != 0) {
			printf("FAIL: cannot read or plan '%s'\n", want);
			fail = 1;
			continue;
		}
		n++;
		char *tilde = strstr(want, " ~");
		size_t flen = tilde ? (size_t)(tilde - want) : strlen(want);
		if (strlen(fields) != flen || strncmp(fields, want, flen) != 0) {
			printf("FAIL: fields '%s', want '%.*s'\n", fields, (int)flen, want);
			fail = 1;
		}
		while (tilde) {
			char *frag = tilde + 2, *next = strstr(frag, " ~");
			size_t len = next ? (size_t)(next - frag) : strlen(frag);
			char buf[1024];
			snprintf(buf, sizeof buf, "%.*s", (int)len, frag);
			if (!strstr(why, buf)) {
				printf("FAIL: %s %s %s: reason lacks '%s'\n  reason: %s\n", size, be, pg, buf, why);
				fail = 1;
			}
			tilde = next;
		}
	}
	fclose(f);
	if (n == 0) {
		printf("FAIL: no expectations in %s\n", argv[2]);
		return 1;
	}
	printf("%s: %d plans %s\n", argv[1], n, fail ? "FAILED" : "ok");
	return fail;
}
