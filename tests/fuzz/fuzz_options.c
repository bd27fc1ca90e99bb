/* fuzz_options.c - the option table (policy/options.c) on fuzzed values for
 * every environment name it reads, then the plan (policy/plan.c).
 * Input: two bytes of "unset" bits (bit i: row i's variable is unset), then
 * the values, NUL-separated, in table order, then MALLOC_CONF,
 * MIMALLOC_LARGE_OS_PAGES, MIMALLOC_RESERVE_HUGE_OS_PAGES; missing = unset.
 * Properties: every row is either taken or refused and counted, a refused
 * value keeps the default, a taken one is what the row's parser says, sizes
 * follow the documented grammar (checked against a 128-bit reference), and
 * the plan keeps its rules whatever the options and the machine say. */
#include "fuzz.h"
#include "../sanitize/textcheck.h"

#include <string.h>
#include <strings.h>

#define NV (HP_OPT_COUNT + 3)
static const char *const extra[3] = { "MALLOC_CONF", "MIMALLOC_LARGE_OS_PAGES", "MIMALLOC_RESERVE_HUGE_OS_PAGES" };
static const char *vals[NV];
static char text[8192];

static const char *get(const char *name)
{
	for (int i = 0; i < HP_OPT_COUNT; i++)
		if (strcmp(hp_option_table[i].env, name) == 0)
			return vals[i];
	for (int k = 0; k < 3; k++)
		if (strcmp(extra[k], name) == 0)
			return vals[HP_OPT_COUNT + k];
	return NULL;
}

/* hugepolicy(7)'s grammar: digits, then K/M/G/T (optionally iB, ib, B or b) */
static int ref_size(const char *s, uint64_t *out)
{
	unsigned __int128 v = 0;
	const char *q = s;
	if (*q < '0' || *q > '9')
		return -1;
	for (; *q >= '0' && *q <= '9'; q++)
		if ((v = v * 10 + (unsigned)(*q - '0')) > UINT64_MAX)
			return -1;
	const char *units = "kmgt", *u = *q ? strchr(units, *q | 0x20) : NULL;
	int shift = u && *u ? 10 * (int)(u - units + 1) : 0;
	if (shift) {
		q++;
		if (!strcmp(q, "iB") || !strcmp(q, "ib") || !strcmp(q, "B") || !strcmp(q, "b"))
			q += strlen(q);
	}
	if (*q || (v << shift) > UINT64_MAX)
		return -1;
	*out = (uint64_t)(v << shift);
	return 0;
}

static int ref_bool(const char *s)
{
	static const char *const w[] = { "1", "true", "yes", "on", "0", "false", "no", "off" };
	for (int i = 0; i < 8; i++)
		if (strcasecmp(s, w[i]) == 0)
			return i < 4;
	return -1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fz_quiet_say();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	unsigned unset = data[0] | (unsigned)data[1] << 8;
	size -= 2;
	if (size >= sizeof text)
		size = sizeof text - 1;
	memcpy(text, data + 2, size);
	text[size] = '\0';
	char *s = text, *end = text + size;
	for (int i = 0; i < NV; i++) {
		vals[i] = s <= end && !(unset >> i & 1) ? s : NULL;
		if (s <= end)
			s += strlen(s) + 1;
	}
	struct hp_options o;
	int bad = hp_options_read(&o, get);
	FZ_CHECK(bad == __builtin_popcount(o.bad_mask));
	FZ_CHECK((o.set_mask & o.bad_mask) == 0);
	struct hp_options def;
	hp_options_defaults(&def);
	for (int i = 0; i < HP_OPT_COUNT; i++) {
		unsigned bit = 1u << i;
		if (!vals[i]) {
			FZ_CHECK(!((o.set_mask | o.bad_mask) & bit));
			continue;
		}
		struct hp_options d = def;
		int ok = hp_option_table[i].parse(vals[i], &d) == 0;
		FZ_CHECK(ok == !!(o.set_mask & bit) && ok == !(o.bad_mask & bit));
	}
	for (int i = 0; i < NV; i++) {
		if (!vals[i])
			continue;
		uint64_t a = 0, b = 0;
		int ra = hp_parse_size(vals[i], &a), rb = ref_size(vals[i], &b);
		FZ_CHECK(ra == rb && (ra != 0 || a == b));
		int x = -1, rx = hp_parse_bool(vals[i], &x);
		FZ_CHECK(rx == 0 ? x == ref_bool(vals[i]) : ref_bool(vals[i]) < 0);
	}
	uint64_t v;
	const char *th = vals[HP_OPT_THRESHOLD];
	if (th && ref_size(th, &v) == 0 && v >= 4096 && v <= (1ull << 40))
		FZ_CHECK(o.threshold == v);
	else
		FZ_CHECK(o.threshold == def.threshold);
	FZ_CHECK(o.backend >= 0 && o.backend < HP_BACKEND_COUNT && o.pages >= 0 && o.pages < HP_PAGES_COUNT);
	FZ_CHECK(o.reserve <= (1ull << 44) && o.log && strlen(o.log) < HP_LOG_PATH_MAX);
	FZ_CHECK(o.user_malloc_conf == vals[HP_OPT_COUNT] && o.user_mi_large == vals[HP_OPT_COUNT + 1]);

	/* the plan on a machine picked from the input */
	struct hp_probe p;
	memset(&p, 0, sizeof p);
	p.thp_enabled = data[0] & 3;
	p.thp_process_off = data[0] >> 2 & 1;
	p.numa_nodes = 1;
	if (data[1] & 1) {
		p.npools = 1;
		p.pools[0].page_size = HP_HUGE_2M;
		p.pools[0].free = (uint64_t)1 << (data[1] >> 1 & 63);
		p.pools[0].resv = data[1] >> 4;
		p.pools[0].cg_max = data[0] & 8 ? (int64_t)(data[0] >> 4) << 21 : -1;
		p.pools[0].cg_current = p.pools[0].cg_max >= 0 ? (int64_t)(data[1] & 7) << 21 : -1;
		p.pools[0].cg_error = data[0] >> 7 ? 22 : 0;
		strcpy(p.pools[0].cg_where, "cgroup /fuzz hugetlb.2MB.max");
	}
	struct hp_plan pl;
	hp_plan_make(&o, &p, &pl);
	int thp_ok = (p.thp_enabled == HP_THP_ALWAYS || p.thp_enabled == HP_THP_MADVISE) &&
		     !(p.thp_process_off == HP_THP_OFF_ALL && o.pages != HP_PAGES_THP);
	FZ_CHECK(pl.pages == HP_PAGES_OFF || pl.pages == HP_PAGES_THP || pl.pages == HP_PAGES_HUGETLB);
	FZ_CHECK(pl.pages != HP_PAGES_THP || thp_ok);
	FZ_CHECK(pl.pages != HP_PAGES_HUGETLB || pl.pool_available > 0);
	FZ_CHECK(o.pages != HP_PAGES_OFF || pl.pages == HP_PAGES_OFF);
	FZ_CHECK(pl.hugetlb_min >= HP_HUGE_2M && pl.hugetlb_min >= o.threshold);
	FZ_CHECK(pl.pages_reason[0] && tc_printable(pl.pages_reason, strlen(pl.pages_reason)));
	return 0;
}
