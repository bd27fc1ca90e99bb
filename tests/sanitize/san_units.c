/* san_units.c - hugepolicy's internals under ASan+UBSan (-fno-sanitize-recover):
 * the policy/ files and the hugetlb layer (pages/hugetlb_map.c, hugetlb_pages.c,
 * pages.c) linked straight into this binary, without the malloc entry points,
 * so the sanitizer's own malloc stays in charge.  One behaviour per command:
 *   options   hp_options_read / hp_parse_* on a grid of good and bad values
 *   plan      hp_plan_make over a grid of probes; hp_probe_format at any cap
 *   probe     hp_probe_read, hp_cgroup_hugetlb_room, readfile.c, smaps here
 *   report    escaping, JSON strings, hp_say into a pipe (san_report.c)
 *   tlb       the hugetlb mapping table from threads (san_tlb.c)
 *   canary-asan / canary-ubsan   a planted bug: the sanitizer must say so */
#define _GNU_SOURCE
#include "../../policy/hp_policy.h"
#include "../check.h"
#include "san.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const *env_now;
static char tmpdir[64];

static const char *get(const char *name)
{
	for (const char *const *e = env_now; e && e[0]; e += 2)
		if (strcmp(e[0], name) == 0)
			return e[1];
	return NULL;
}

/* HUGEPOLICY_LOG values that may be used: files in our temp dir only */
static int safe_log(const char *v)
{
	return !*v || strlen(v) >= HP_LOG_PATH_MAX || strcmp(v, "/dev/null") == 0 ||
	       strncmp(v, tmpdir, strlen(tmpdir)) == 0;
}

static void read_checked(const char *const *env, struct hp_options *o)
{
	env_now = env;
	int bad = hp_options_read(o, get);
	CHECK(bad == __builtin_popcount(o->bad_mask));
	CHECK((o->set_mask & o->bad_mask) == 0);
	CHECK(o->backend >= 0 && o->backend < HP_BACKEND_COUNT);
	CHECK(o->pages >= 0 && o->pages < HP_PAGES_COUNT);
	CHECK(o->threshold >= 4096 && o->threshold <= (1ull << 40));
	CHECK(o->reserve <= (1ull << 44));
	CHECK(o->log != NULL && strlen(o->log) < HP_LOG_PATH_MAX);
}

static void options(void)
{
	static char longv[700], path511[HP_LOG_PATH_MAX], logp[128];
	memset(longv, 'A', sizeof longv - 1);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/san_units.XXXXXX");
	CHECK(mkdtemp(tmpdir) != NULL);
	snprintf(logp, sizeof logp, "%s/log.%%p.%%%%", tmpdir);
	memset(path511, 'p', sizeof path511 - 1);
	memcpy(path511, tmpdir, strlen(tmpdir));
	path511[strlen(tmpdir)] = '/';
	const char *vals[] = {
		"", "0", "1", "on", "OFF", "yes", "No", "true", "FALSE", "2", "system", "JEMALLOC",
		"mimalloc", "jemalloc ", "off", "thp", "hugetlb", "auto", "Auto", "4096", "4095", "4K",
		"4k", "4KiB", "4kb", "4KB", "4Kb", "4Ki", "4KiBB", "4B", "1T", "1TiB", "1025G", "16T",
		"17T", "4M", "0x10", "1e6", "-1", "+1", " 1", "1 ", "007", "18446744073709551615",
		"18446744073709551616", "99999999999999999999999", "17592186044416", "17592186044417",
		"16777216M", "16777217M", "json", "JSON", "text", "inherit", "copy", "\xff\xfe",
		"a\nb", "\x1b[2J", "caf\xc3\xa9", longv, path511, logp, "/dev/null", "/", NULL };
	struct hp_options o;
	read_checked(NULL, &o);
	CHECK(o.set_mask == 0 && o.bad_mask == 0);
	for (int i = 0; i < HP_OPT_COUNT; i++) {
		const struct hp_option_row *r = &hp_option_table[i];
		CHECK(r->name && r->env && r->def && r->accepted && r->parse && r->doc);
		for (int k = 0; vals[k]; k++) {
			if (i == HP_OPT_LOG && !safe_log(vals[k]))
				continue;
			const char *env[] = { r->env, vals[k], NULL };
			read_checked(env, &o);
			CHECK(((o.set_mask | o.bad_mask) >> i & 1) == 1);
			CHECK(((o.set_mask | o.bad_mask) & ~(1u << i)) == 0);
		}
	}
	/* every row at once, the same value; with a log file, the warnings go there */
	for (int k = 0; vals[k]; k++) {
		const char *env[2 * HP_OPT_COUNT + 1];
		int n = 0;
		for (int i = 0; i < HP_OPT_COUNT; i++) {
			if (i == HP_OPT_LOG && !safe_log(vals[k]))
				continue;
			env[n++] = hp_option_table[i].env;
			env[n++] = vals[k];
		}
		env[n] = NULL;
		read_checked(env, &o);
	}
	/* random words from a small alphabet, every row but the log */
	static const char alpha[] = "0123456789kKmMgGtTiIbB \t-+xeonfyustrjmalcphugd\xc3\xa9\xff\n";
	unsigned seed = 12345;
	for (int round = 0; round < 20000; round++) {
		char w[HP_OPT_COUNT][24];
		const char *env[2 * HP_OPT_COUNT + 1];
		int n = 0;
		for (int i = 0; i < HP_OPT_COUNT; i++) {
			seed = seed * 1103515245u + 12345u;
			size_t len = (seed >> 16) % sizeof w[i];
			for (size_t j = 0; j < len; j++) {
				seed = seed * 1103515245u + 12345u;
				w[i][j] = alpha[(seed >> 16) % (sizeof alpha - 1)];
			}
			w[i][len] = '\0';
			if (i == HP_OPT_LOG || (seed >> 8) % 5 == 0)
				continue;               /* unset */
			env[n++] = hp_option_table[i].env;
			env[n++] = w[i];
		}
		env[n] = NULL;
		read_checked(env, &o);
	}
	/* known outcomes at the edges */
	uint64_t v;
	int b;
	CHECK(hp_parse_size("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	CHECK(hp_parse_size("18446744073709551616", &v) != 0);
	CHECK(hp_parse_size("16777215T", &v) == 0 && v == (16777215ull << 40));
	CHECK(hp_parse_size("16777216T", &v) != 0);
	CHECK(hp_parse_size("17179869183G", &v) == 0 && hp_parse_size("17179869184G", &v) != 0);
	CHECK(hp_parse_bool("", &b) != 0 && hp_parse_bool("yess", &b) != 0);
	const char *e1[] = { "HUGEPOLICY_RESERVE", "16T", NULL }, *e2[] = { "HUGEPOLICY_RESERVE", "17T", NULL };
	read_checked(e1, &o);
	CHECK(o.bad_mask == 0 && o.reserve == (1ull << 44));
	read_checked(e2, &o);
	CHECK(o.bad_mask == 1u << HP_OPT_RESERVE && o.reserve == 0);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	CHECK(system(cmd) == 0);
}

int san_failed;

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "canary-asan") == 0) {
		static char *volatile block;    /* volatile: the compiler cannot follow it */
		block = malloc(8);
		free(block);
		return block[argc];     /* heap-use-after-free */
	}
	if (strcmp(what, "canary-ubsan") == 0) {
		volatile int big = INT_MAX;
		return big + argc > 0 ? 0 : 1; /* signed-integer-overflow */
	}
	if (strcmp(what, "report") != 0)
		san_quiet_say();
	if (strcmp(what, "options") == 0) options();
	else if (strcmp(what, "plan") == 0) san_plan();
	else if (strcmp(what, "probe") == 0) san_probe();
	else if (strcmp(what, "report") == 0) san_report();
	else if (strcmp(what, "tlb") == 0) san_tlb();
	else {
		fprintf(stderr, "usage: %s options|plan|probe|report|tlb|canary-asan|canary-ubsan\n", argv[0]);
		return 2;
	}
	check_failures += san_failed;
	return check_result(what);
}
