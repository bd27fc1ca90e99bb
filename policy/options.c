/*
 * options.c - the option table: name, env var, default, parser, doc.
 * Borrowed idea: mimalloc's src/options.c (one row per option, env var
 * derived from the name, 1/true/yes/on and 0/false/no/off, one warning for
 * an invalid value, then the default).  Adding an option is adding a row.
 */
#include "hp_policy.h"

#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

static const char *const backend_names[HP_BACKEND_COUNT] = { "system", "jemalloc", "mimalloc" };
static const char *const pages_names[HP_PAGES_COUNT] = { "off", "thp", "hugetlb", "auto" };

const char *hp_backend_name(int id)
{
	return (id >= 0 && id < HP_BACKEND_COUNT) ? backend_names[id] : "?";
}

const char *hp_pages_name(int pages)
{
	return (pages >= 0 && pages < HP_PAGES_COUNT) ? pages_names[pages] : "?";
}

static int match_word(const char *s, const char *const *words, int n)
{
	for (int i = 0; i < n; i++)
		if (strcasecmp(s, words[i]) == 0)
			return i;
	return -1;
}

int hp_parse_bool(const char *s, int *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	if (match_word(s, yes, 4) >= 0) { *out = 1; return 0; }
	if (match_word(s, no, 4) >= 0) { *out = 0; return 0; }
	return -1;
}

int hp_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *q = s;
	if (*q < '0' || *q > '9')
		return -1;                       /* rejects "", "-5", "+5", " 5" */
	while (*q >= '0' && *q <= '9') {
		unsigned d = (unsigned)(*q++ - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	unsigned shift = 0;
	switch (*q) {
	case 'k': case 'K': shift = 10; q++; break;
	case 'm': case 'M': shift = 20; q++; break;
	case 'g': case 'G': shift = 30; q++; break;
	case 't': case 'T': shift = 40; q++; break;
	case '\0': break;
	default: return -1;
	}
	if (shift && (strcmp(q, "iB") == 0 || strcmp(q, "ib") == 0 || strcmp(q, "B") == 0 || strcmp(q, "b") == 0))
		q += strlen(q);
	if (*q != '\0')
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

static int parse_backend(const char *s, struct hp_options *o)
{
	int i = match_word(s, backend_names, HP_BACKEND_COUNT);
	if (i < 0)
		return -1;
	o->backend = i;
	return 0;
}

static int parse_pages(const char *s, struct hp_options *o)
{
	int i = match_word(s, pages_names, HP_PAGES_COUNT);
	if (i < 0)
		return -1;
	o->pages = i;
	return 0;
}

static int parse_threshold(const char *s, struct hp_options *o)
{
	uint64_t v;
	/* a threshold below one base page makes no sense; above 1 TiB neither */
	if (hp_parse_size(s, &v) != 0 || v < 4096 || v > ((uint64_t)1 << 40))
		return -1;
	o->threshold = v;
	return 0;
}

static int parse_reserve(const char *s, struct hp_options *o)
{
	uint64_t v;
	if (hp_parse_size(s, &v) != 0 || v > ((uint64_t)1 << 44))
		return -1;
	o->reserve = v;
	return 0;
}

static int parse_verbose(const char *s, struct hp_options *o)
{
	return hp_parse_bool(s, &o->verbose);
}

static int parse_stats(const char *s, struct hp_options *o)
{
	int b;
	if (strcasecmp(s, "json") == 0) { o->stats = HP_STATS_JSON; return 0; }
	if (strcasecmp(s, "text") == 0) { o->stats = HP_STATS_TEXT; return 0; }
	if (hp_parse_bool(s, &b) != 0)
		return -1;
	o->stats = b ? HP_STATS_TEXT : HP_STATS_NONE;
	return 0;
}

static int parse_log(const char *s, struct hp_options *o)
{
	/* a set-user-ID program must not create or append to files a user names
	 * (glibc drops MALLOC_TRACE there for the same reason) */
	if (strlen(s) >= HP_LOG_PATH_MAX || (*s && getauxval(AT_SECURE)))
		return -1;
	o->log = s;
	return 0;
}

static int parse_fork(const char *s, struct hp_options *o)
{
	static const char *const words[] = { "inherit", "copy" };
	int i = match_word(s, words, 2);
	if (i < 0)
		return -1;
	o->fork_copy = i;
	return 0;
}

/* a decimal number at *s, at least one digit, no sign; *s moves past it */
static int take_decimal(const char **s, unsigned long long *v)
{
	const char *p = *s;
	*v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (*v > (~0ull - (unsigned)(*p - '0')) / 10)
			return -1;
		*v = *v * 10 + (unsigned)(*p - '0');
	}
	if (p == *s)
		return -1;
	*s = p;
	return 0;
}

/* "" (every process) or a process id 1..INT_MAX, decimal */
static int parse_report_pid(const char *s, struct hp_options *o)
{
	unsigned long long v = 0;
	if (*s && (take_decimal(&s, &v) != 0 || *s != '\0' || v == 0 || v > INT_MAX))
		return -1;
	o->report_pid = (int)v;
	return 0;
}

/* "off"/"0", or a heap size: 2 MiB (one huge page) .. 1 TiB */
static int parse_promote(const char *s, struct hp_options *o)
{
	uint64_t v;
	if (strcasecmp(s, "off") == 0 || strcmp(s, "0") == 0) {
		o->promote = 0;
		return 0;
	}
	if (hp_parse_size(s, &v) != 0 || v < (2u << 20) || v > ((uint64_t)1 << 40))
		return -1;
	o->promote = v;
	return 0;
}

/* "auto", or a hugetlb page size: a power of two from 64 KiB (arm64's
 * cont-PTE pool) to 16 GiB (arm64 64K's PUD pool), "2M", "1G", "2MiB" */
static int parse_hugetlb_size(const char *s, struct hp_options *o)
{
	uint64_t v;
	if (strcasecmp(s, "auto") == 0) {
		o->hugetlb_size = 0;
		return 0;
	}
	if (hp_parse_size(s, &v) != 0 || v < (64u << 10) || v > ((uint64_t)16 << 30) || (v & (v - 1)) != 0)
		return -1;
	o->hugetlb_size = v;
	return 0;
}

/* microseconds, with up to three decimals: "1.7" -> 1700 ns; 0 .. 10 s */
static int parse_us(const char *s, const char **end, uint64_t *ns)
{
	uint64_t v = 0, scale = 1000;
	const char *q = s;
	if (*q < '0' || *q > '9')
		return -1;
	for (; *q >= '0' && *q <= '9'; q++)
		if ((v = v * 10 + (uint64_t)(*q - '0')) > 10000000)
			return -1;
	v *= 1000;
	if (*q == '.') {
		if (q[1] < '0' || q[1] > '9')
			return -1;
		for (q++; *q >= '0' && *q <= '9'; q++)
			if (scale > 1)
				v += (uint64_t)(*q - '0') * (scale /= 10);
	}
	*end = q;
	*ns = v;
	return 0;
}

/* "measure", "off", or "BASE_US,THP_US": one 4 KiB and one 2 MiB THP fault,
 * in microseconds, each above 0 */
static int parse_fault_cost(const char *s, struct hp_options *o)
{
	const char *q;
	uint64_t base, thp;
	if (strcasecmp(s, "measure") == 0) { o->fault_cost = HP_ADAPT_MEASURE; return 0; }
	if (strcasecmp(s, "off") == 0) { o->fault_cost = HP_ADAPT_OFF; return 0; }
	if (parse_us(s, &q, &base) != 0 || *q != ',' || parse_us(q + 1, &q, &thp) != 0 || *q || !base || !thp)
		return -1;
	o->fault_cost = HP_ADAPT_PINNED;
	o->fault_base_ns = base;
	o->fault_thp_ns = thp;
	return 0;
}

/* "" (unset), "none", or "DEV:INO" (decimal st_dev and st_ino), as log.c
 * writes it */
static int parse_report_stderr(const char *s, struct hp_options *o)
{
	unsigned long long dev, ino;
	if (*s == '\0' || strcmp(s, "none") == 0) {
		o->report_stderr = *s ? HP_STDERR_NONE : HP_STDERR_UNSET;
		return 0;
	}
	if (take_decimal(&s, &dev) != 0 || *s++ != ':' || take_decimal(&s, &ino) != 0 || *s != '\0')
		return -1;
	o->report_stderr = HP_STDERR_FILE;
	o->report_stderr_dev = dev;
	o->report_stderr_ino = ino;
	return 0;
}

const struct hp_option_row hp_option_table[HP_OPT_COUNT] = {
	[HP_OPT_BACKEND] = { "backend", "HUGEPOLICY_BACKEND", "system",
		"system|jemalloc|mimalloc", parse_backend,
		"allocator behind malloc/new: glibc malloc, embedded jemalloc 5.3, or Debian's mimalloc 2.0" },
	[HP_OPT_PAGES] = { "pages", "HUGEPOLICY_PAGES", "auto",
		"off|thp|hugetlb|auto", parse_pages,
		"huge-page mode: base pages only, THP, the hugetlb pool, or what the machine offers" },
	[HP_OPT_THRESHOLD] = { "threshold", "HUGEPOLICY_THRESHOLD", "4M",
		"a size in bytes, 4096..1T, with optional K/M/G/T suffix", parse_threshold,
		"blocks of at least this many bytes get huge pages (system thp/hugetlb, every backend's auto; "
		"numpy's 4 MiB rule)" },
	[HP_OPT_RESERVE] = { "reserve", "HUGEPOLICY_RESERVE", "0",
		"a size in bytes with optional K/M/G/T suffix", parse_reserve,
		"mimalloc, pages=hugetlb: bytes to reserve from the hugetlb pool at start-up (mi_reserve_*)" },
	[HP_OPT_VERBOSE] = { "verbose", "HUGEPOLICY_VERBOSE", "0",
		"1/true/yes/on or 0/false/no/off", parse_verbose,
		"one line per decision (backend, page mode, what was obtained) on stderr or HUGEPOLICY_LOG" },
	[HP_OPT_STATS] = { "stats", "HUGEPOLICY_STATS", "0",
		"0/off, 1/text/on, json", parse_stats,
		"print the stats report at exit on stderr or HUGEPOLICY_LOG, as text or one JSON line" },
	[HP_OPT_LOG] = { "log", "HUGEPOLICY_LOG", "",
		"a file path of at most 511 bytes (%p: the pid), not in set-user-ID programs", parse_log,
		"append every line and the exit report to this file instead of stderr (\"\": stderr)" },
	[HP_OPT_FORK] = { "fork", "HUGEPOLICY_FORK", "copy",
		"copy|inherit", parse_fork,
		"a fork()ed child never dies for want of a pool page: nothing is copied where the pool has "
		"room for a copy of every hugetlb page, else the child makes them its own before fork returns "
		"(from the pool, else into THP/base pages); inherit: the kernel's copy-on-write always (a "
		"child that writes there when the pool is empty dies)" },
	[HP_OPT_REPORT_PID] = { "report_pid", "HUGEPOLICY_REPORT_PID", "",
		"a process id, or \"\" for every process", parse_report_pid,
		"only the process with this pid prints the verbose lines and the exit report; others keep "
		"the policy and stay quiet (`hugepolicy run` sets the pid of the command it execs; \"\": "
		"every process reports)" },
	[HP_OPT_HUGETLB_SIZE] = { "hugetlb_size", "HUGEPOLICY_HUGETLB_SIZE", "auto",
		"auto, or a hugetlb page size (a power of two, 64K..16G, e.g. 2M or 1G)", parse_hugetlb_size,
		"pages=hugetlb: auto takes blocks at least as big as a larger pool's page (1 GiB) from that "
		"pool where it has room, the rest from the 2 MiB pool; a size: only that pool (a kernel "
		"without it, or no room: auto, and the reason says so)" },
	[HP_OPT_PROMOTE] = { "promote", "HUGEPOLICY_PROMOTE", "128M",
		"off (or 0), or a size in bytes, 2M..1T, with optional K/M/G/T (or KiB/MiB/GiB/TiB) suffix",
		parse_promote,
		"jemalloc and mimalloc, pages=auto: once this much of the allocator's own mappings is resident "
		"(mincore) and that is at least half of what it mapped, the allocator's new memory gets "
		"MADV_HUGEPAGE too (whole-heap THP from then on; off: blocks >= threshold only)" },
	[HP_OPT_FAULT_COST] = { "fault_cost", "HUGEPOLICY_FAULT_COST", "measure",
		"measure, off, or BASE_US,THP_US (microseconds per 4 KiB fault and per 2 MiB THP fault, "
		"e.g. 2,300)", parse_fault_cost,
		"pages=auto: blocks >= threshold and the heap's promotion get THP only where a THP fault costs "
		"less than the base faults it replaces, measured in the process at the first big block and again "
		"each second of big-block activity (off: the fixed rules; two numbers: those costs, unmeasured)" },
	[HP_OPT_REPORT_STDERR] = { "report_stderr", "HUGEPOLICY_REPORT_STDERR", "",
		"DEV:INO (decimal), none, or \"\"", parse_report_stderr,
		"the stderr of the process tree, set by its first process: a process writes to its fd 2 "
		"only if that is this file or a new stderr its parent set up for it (not the parent's own "
		"fd 2), so no line lands in a file a program opened on fd 2 (\"\": this process starts "
		"the tree)" },
};

void hp_options_defaults(struct hp_options *o)
{
	memset(o, 0, sizeof *o);
	for (int i = 0; i < HP_OPT_COUNT; i++)
		(void)hp_option_table[i].parse(hp_option_table[i].def, o);
}

int hp_options_read(struct hp_options *o, const char *(*getter)(const char *name))
{
	const char *bad_value[HP_OPT_COUNT];
	int bad = 0;
	hp_log_start();         /* before anything here opens a file that could take fd 2 */
	hp_options_defaults(o);
	for (int i = 0; i < HP_OPT_COUNT; i++) {
		const struct hp_option_row *r = &hp_option_table[i];
		const char *v = getter(r->env);
		if (v == NULL)
			continue;
		if (r->parse(v, o) == 0) {
			o->set_mask |= 1u << i;
			continue;
		}
		o->bad_mask |= 1u << i;
		bad_value[i] = v;
		bad++;
	}
	/* the warnings go where HUGEPOLICY_LOG says; each is one line with its
	 * ending, whatever the value holds */
	(void)hp_log_set(o->log);
	hp_log_tree(o->report_stderr, o->report_stderr_dev, o->report_stderr_ino);
	for (int i = 0; i < HP_OPT_COUNT; i++) {
		const struct hp_option_row *r = &hp_option_table[i];
		char shown[64 + 8];        /* 64 bytes, "...", NUL */
		struct hp_buf b = { shown, sizeof shown, 0 };
		if (!(o->bad_mask & (1u << i)))
			continue;
		shown[0] = '\0';
		hp_buf_escaped(&b, bad_value[i], 64);
		hp_say("%s='%s' is not valid (expected %s); using the default '%s'",
		       r->env, shown, r->accepted, r->def);
	}
	o->user_malloc_conf = getter("MALLOC_CONF");
	o->user_mi_large = getter("MIMALLOC_LARGE_OS_PAGES");
	o->user_mi_reserve = getter("MIMALLOC_RESERVE_HUGE_OS_PAGES");
	return bad;
}
