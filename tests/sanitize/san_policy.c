/* san_policy.c - the plan over a grid of probes, and the probe on this
 * machine, under the sanitizers (see san_units.c). */
#define _GNU_SOURCE
#include "../../policy/hp_policy.h"
#include "../../pages/hp_pages.h"
#include "../check.h"
#include "san.h"
#include "textcheck.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/* hp_probe_format into exactly-sized heap buffers of every small cap: the
 * text stays NUL-terminated inside, ASan sees any byte beyond */
static void format_at_caps(const struct hp_probe *p, int json)
{
	for (size_t cap = 1; cap <= 160; cap += (cap < 40 ? 1 : 29)) {
		char *buf = malloc(cap);
		struct hp_buf b = { buf, cap, 0 };
		buf[0] = '\0';
		hp_probe_format(p, json, &b);
		CHECK(b.len < cap && buf[b.len] == '\0' && strlen(buf) == b.len);
		free(buf);
	}
	static char big[1 << 16];
	struct hp_buf b = { big, sizeof big, 0 };
	big[0] = '\0';
	hp_probe_format(p, json, &b);
	CHECK(b.len > 0 && b.len + 1 < sizeof big);
	if (json) {
		CHECK(big[0] == '{' && strchr(big, '\n') == strrchr(big, '\n'));
		CHECK(tc_printable(big, strcspn(big, "\n")));
		CHECK_MSG(tc_json_document(big, b.len), "not JSON: %s", big);
	} else {
		for (char *l = big, *nl; (nl = strchr(l, '\n')) != NULL; l = nl + 1)
			CHECK_MSG(tc_printable(l, (size_t)(nl - l)), "line '%.*s'", (int)(nl - l), l);
	}
}

static void check_plan(const struct hp_options *o, const struct hp_probe *p)
{
	struct hp_plan pl;
	hp_plan_make(o, p, &pl);
	/* THP as the plan leaves the process switch: an explicit thp clears an
	 * inherited PR_SET_THP_DISABLE, except-advised is madvise (plan_thp.c) */
	int thp_ok = (p->thp_enabled == HP_THP_ALWAYS || p->thp_enabled == HP_THP_MADVISE) &&
		     !(p->thp_process_off == HP_THP_OFF_ALL && o->pages != HP_PAGES_THP);
	const struct hp_pool *pool = hp_probe_pool(p, HP_HUGE_2M);
	CHECK(pl.pages == HP_PAGES_OFF || pl.pages == HP_PAGES_THP || pl.pages == HP_PAGES_HUGETLB);
	CHECK(pl.pages_reason[0] && strlen(pl.pages_reason) < sizeof pl.pages_reason);
	CHECK_MSG(tc_printable(pl.pages_reason, strlen(pl.pages_reason)), "reason '%s'", pl.pages_reason);
	CHECK(pl.pages != HP_PAGES_THP || thp_ok);
	CHECK(pl.pages != HP_PAGES_HUGETLB || pl.pool_available > 0);
	CHECK(o->pages != HP_PAGES_OFF || pl.pages == HP_PAGES_OFF);
	CHECK(o->pages != HP_PAGES_AUTO || !thp_ok || (pl.pages == HP_PAGES_THP && pl.thp_scope == HP_THP_LARGE));
	CHECK(pl.hugetlb_min >= HP_HUGE_2M && pl.hugetlb_min >= o->threshold);
	CHECK(pl.pool_available == hp_pool_available(pool));
	CHECK(pl.thp_available == thp_ok);
}

void san_plan(void)
{
	static const uint64_t thresholds[] = { 4096, HP_HUGE_2M - 1, HP_HUGE_2M, 4u << 20, 1ull << 40 };
	static const uint64_t fr[][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 2, 5 }, { 4096, 0 }, { UINT64_MAX, 0 } };
	static const int64_t cg[][2] = { { -1, -1 }, { 0, 0 }, { 4 << 20, 2 << 20 }, { 4 << 20, 8 << 20 },
					 { INT64_MAX, 0 }, { -2, EINVAL } };     /* -2: cg_error */
	struct hp_options o;
	unsigned probes = 0, plans = 0;
	for (int thp = 0; thp <= HP_THP_MISSING; thp++)
		for (int off = 0; off < 2; off++)
			for (int pv = -1; pv < (int)(sizeof fr / sizeof fr[0] * (sizeof cg / sizeof cg[0])); pv++) {
				struct hp_probe p;
				memset(&p, 0, sizeof p);
				p.thp_enabled = thp;
				p.thp_process_off = off;
				p.max_ptes_none = 511;
				p.numa_nodes = 1;
				snprintf(p.kernel, sizeof p.kernel, "6.18.0-san");
				snprintf(p.cgroup, sizeof p.cgroup, "0::/caf\xc3\xa9 \"q\" \\b");
				if (pv >= 0) {
					struct hp_pool *q = &p.pools[0];
					const int64_t *c = cg[pv % (sizeof cg / sizeof cg[0])];
					const uint64_t *f = fr[pv / (sizeof cg / sizeof cg[0])];
					p.npools = 2;
					q->page_size = HP_HUGE_2M;
					q->total = q->free = f[0];
					q->resv = f[1];
					q->cg_max = c[0] == -2 ? -1 : c[0];
					q->cg_current = c[0] == -2 ? -1 : c[1];
					q->cg_error = c[0] == -2 ? (int)c[1] : 0;
					snprintf(q->cg_where, sizeof q->cg_where, "cgroup /a \"b\" \\ \xc3\xa9 hugetlb.2MB.max");
					p.pools[1] = *q;
					p.pools[1].page_size = 1u << 30;
				}
				for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++)
					for (int be = 0; be < HP_BACKEND_COUNT; be++)
						for (int pg = 0; pg < HP_PAGES_COUNT; pg++) {
							hp_options_defaults(&o);
							o.backend = be, o.pages = pg, o.threshold = thresholds[t];
							check_plan(&o, &p);
							plans++;
						}
				if (pv % 5 == 0 || pv < 0) {
					format_at_caps(&p, 0);
					format_at_caps(&p, 1);
				}
				probes++;
			}
	printf("plan: %u plans over %u probes\n", plans, probes);
	san_failed += check_failures;
}

static int count_line(void *ctx, char *line, size_t len, int whole)
{
	size_t *n = ctx;
	CHECK(strlen(line) == len && memchr(line, '\n', len) == NULL);
	n[0]++;
	n[1] += whole;
	n[2] = len > n[2] ? len : n[2];
	return 0;
}

static size_t fgets_lines(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192];
	size_t n = 0;
	while (f && fgets(line, sizeof line, f))
		n++;
	if (f)
		fclose(f);
	return n;
}

static void read_helpers(void)
{
	/* mountinfo through buffers of every small size: lines are cut, never
	 * overrun (a mount made meanwhile by someone else: counted again) */
	for (size_t cap = 2; cap <= 4096; cap = cap < 20 ? cap + 1 : cap * 2) {
		char *buf = malloc(cap);
		size_t n[3] = { 0, 0, 0 }, want = 0;
		for (int tries = 0; tries < 3 && (tries == 0 || n[0] != want); tries++) {
			want = fgets_lines();
			n[0] = n[1] = n[2] = 0;
			CHECK(hp_read_lines("/proc/self/mountinfo", buf, cap, count_line, n) == 0);
		}
		CHECK(n[2] <= cap - 1);
		CHECK_MSG(n[0] == want, "cap %zu: %zu lines, fgets saw %zu", cap, n[0], want);
		free(buf);
	}
	for (size_t cap = 1; cap <= 64; cap++) {
		char *buf = malloc(cap);
		int n = hp_read_small("/proc/self/cgroup", buf, cap);
		CHECK(n >= 0 && (size_t)n < cap && buf[n] == '\0');
		const char *why = "";
		n = hp_read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, cap, &why);
		CHECK(n == -EINVAL || n == -ENOENT || (n > 0 && (size_t)n < cap && !strchr(buf, '\n')));
		free(buf);
	}
	char one[4];
	CHECK(hp_read_small("/nonexistent/san", one, sizeof one) == -ENOENT);
	CHECK(hp_read_small("/proc/self/cgroup", one, 0) == -EINVAL);
}

void san_probe(void)
{
	struct hp_probe p;
	hp_probe_read(&p);
	struct utsname u;
	CHECK(uname(&u) == 0 && strcmp(p.kernel, u.release) == 0);
	CHECK(p.numa_nodes >= 1 && p.npools >= 0 && p.npools <= HP_MAX_POOLS);
	char want[64] = "", buf[256];
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f && fgets(buf, sizeof buf, f) && strchr(buf, '['))
		sscanf(strchr(buf, '[') + 1, "%63[^]]", want);
	if (f)
		fclose(f);
	CHECK_MSG(strcmp(hp_thp_name(p.thp_enabled), want[0] ? want : "missing") == 0,
		  "probe says %s, the file says %s", hp_thp_name(p.thp_enabled), want);
	f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "r");
	CHECK(!f == !hp_probe_pool(&p, HP_HUGE_2M));
	if (f)
		fclose(f);
	for (int i = 0; i < p.npools; i++) {
		CHECK(p.pools[i].page_size >= 4096 && strlen(p.pools[i].cg_where) < sizeof p.pools[i].cg_where);
		CHECK(i == 0 || p.pools[i].page_size > p.pools[i - 1].page_size);
	}
	format_at_caps(&p, 0);
	format_at_caps(&p, 1);
	for (int pg = 0; pg < HP_PAGES_COUNT; pg++)
		for (int be = 0; be < HP_BACKEND_COUNT; be++) {
			struct hp_probe q;
			hp_probe_for_plan(&q, pg, be);
			/* off reads THP enabled and the process switch (an always host's off
			 * sets PR_SET_THP_DISABLE), never the pool */
			CHECK(pg != HP_PAGES_OFF || q.npools == 0);
			CHECK(q.thp_enabled == p.thp_enabled && q.thp_process_off == p.thp_process_off);
			CHECK(q.npools <= 1 || pg == HP_PAGES_HUGETLB);   /* hugetlb: every pool size */
		}
	/* the cgroup walk with any room for its reason, and page sizes it refuses */
	static const uint64_t sizes[] = { HP_HUGE_2M, 1u << 30, 64 << 10, 0, 3, 3 << 12, 1ull << 63 };
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (size_t cap = 0; cap <= 130; cap += cap < 3 ? 1 : 31) {
			int64_t lim, use;
			char *where = malloc(cap ? cap : 1);
			int rc = hp_cgroup_hugetlb_room("", sizes[s], &lim, &use, cap ? where : NULL, cap);
			CHECK(cap == 0 || strlen(where) < cap);
			CHECK(rc >= 0 && (rc != 0 || lim >= -1));
			CHECK((sizes[s] >= 1024 && !(sizes[s] & (sizes[s] - 1))) || rc == EINVAL);
			free(where);
		}
	struct hp_rollup sm;
	CHECK(hp_pages_smaps(&sm) == 0 && sm.rss > 0);
	read_helpers();
	printf("probe: thp %s, %d pools, %d NUMA nodes, rss %llu kB\n", hp_thp_name(p.thp_enabled),
	       p.npools, p.numa_nodes, (unsigned long long)(sm.rss >> 10));
	san_failed += check_failures;
}
