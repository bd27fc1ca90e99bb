/* test_region.c MODE - one behaviour of the huge-page region API per mode
 * (tests/region.cmake runs each, under hugetlb_pool.sh / hugetlb_cgroup.sh
 * where the mode needs the pool or a cgroup limit).  Every region a mode
 * makes is also checked against /proc/self/smaps, read here by a parser of
 * the test's own: the info struct must say what the kernel says. */
#define _GNU_SOURCE
#include "check.h"
#include "region_info_of.h"
#include "hugepolicy.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

struct sm { uint64_t rss, thp, tlb; int vmas; char flags[128]; };

static struct sm smaps_of(const void *p, size_t len)
{
	struct sm s = { 0, 0, 0, 0, "" };
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[1024];
	int in = 0;
	uintptr_t a = (uintptr_t)p, b = a + len;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi, kb;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = lo < b && hi > a;
			s.vmas += in;
		} else if (in && sscanf(line, "Rss: %lu kB", &kb) == 1) {
			s.rss += kb << 10;
		} else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			s.thp += kb << 10;
		} else if (in && (sscanf(line, "Private_Hugetlb: %lu kB", &kb) == 1 ||
				  sscanf(line, "Shared_Hugetlb: %lu kB", &kb) == 1)) {
			s.tlb += kb << 10;
		} else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(s.flags, sizeof s.flags, "%.120s", line + 8);
		}
	}
	if (f)
		fclose(f);
	return s;
}

/* The info struct equals what smaps says for the range (region_info_matches_smaps). */
static struct hugepolicy_region_info matches(const void *p, const char *what)
{
	struct hugepolicy_region_info in = info_of(p);
	struct sm s = smaps_of(p, in.length);
	printf("%s: %s, %llu bytes mapped; smaps: hugetlb %llu thp %llu rss %llu (vmas %d); info: "
	       "hugetlb %llu thp %llu base %llu\n%s", what, hugepolicy_region_kind_name(in.kind),
	       (unsigned long long)in.length, (unsigned long long)s.tlb, (unsigned long long)s.thp,
	       (unsigned long long)s.rss, s.vmas, (unsigned long long)in.hugetlb_bytes,
	       (unsigned long long)in.thp_bytes, (unsigned long long)in.base_bytes, in.reason);
	CHECK_MSG(in.hugetlb_bytes == s.tlb, "%s: hugetlb %llu != smaps %llu", what,
		  (unsigned long long)in.hugetlb_bytes, (unsigned long long)s.tlb);
	CHECK_MSG(in.thp_bytes == s.thp, "%s: thp %llu != smaps %llu", what,
		  (unsigned long long)in.thp_bytes, (unsigned long long)s.thp);
	CHECK_MSG(in.base_bytes == s.rss - s.thp, "%s: base %llu != smaps %llu", what,
		  (unsigned long long)in.base_bytes, (unsigned long long)(s.rss - s.thp));
	CHECK(in.rss == s.rss + s.tlb);
	CHECK_MSG(s.vmas == 1 && in.vmas == 1, "%s: the region is %d VMAs (info %d)", what, s.vmas, in.vmas);
	CHECK(in.kind != HUGEPOLICY_REGION_HUGETLB || in.hugetlb_page_size == 2 * MiB);
	CHECK(in.kind == HUGEPOLICY_REGION_HUGETLB || s.tlb == 0);
	return in;
}

static void *region(size_t n, int kind, unsigned flags, unsigned threads)
{
	struct hugepolicy_region_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.pages = kind;
	o.flags = flags;
	o.threads = threads;
	return hugepolicy_region_alloc(n, &o);
}

static uint64_t sysfs(const char *name)
{
	char path[128];
	unsigned long long v = 0;
	snprintf(path, sizeof path, "/sys/kernel/mm/hugepages/hugepages-2048kB/%s", name);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* 2 MiB pages a mapping could take now, ignoring cgroups: Free-Rsvd + surplus room */
static uint64_t headroom(void)
{
	uint64_t fr = sysfs("free_hugepages"), rs = sysfs("resv_hugepages");
	uint64_t oc = sysfs("nr_overcommit_hugepages"), su = sysfs("surplus_hugepages");
	return (fr > rs ? fr - rs : 0) + (oc > su ? oc - su : 0);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i += 512)
		p[i] = (unsigned char)(i / 512 * 7 + seed);
}

static int intact(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i += 512)
		if (p[i] != (unsigned char)(i / 512 * 7 + seed))
			return 0;
	return 1;
}

static int zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 256)
		if (p[i])
			return 0;
	return 1;
}

static int has(const char *text, const char *word)
{
	return strstr(text, word) != NULL;
}


/* ---- the modes: one behaviour each ---- */

/* region_hugetlb_with_a_pool_gets_hugetlb_pages_by_smaps (pool +8 pages) */
static void hugetlb_pool(void)
{
	if (headroom() < 4)
		SKIP("the pool has %llu pages of room, 4 needed (drained meanwhile)", (unsigned long long)headroom());
	unsigned char *p = region(8 * MiB, HUGEPOLICY_REGION_HUGETLB, 0, 1);
	CHECK(p != NULL);
	if (!p)
		return;
	struct hugepolicy_region_info in = matches(p, "hugetlb 8 MiB");
	CHECK(in.kind == HUGEPOLICY_REGION_HUGETLB);
	CHECK_MSG(in.hugetlb_bytes == 8 * MiB, "smaps Private_Hugetlb %llu", (unsigned long long)in.hugetlb_bytes);
	CHECK(in.prefaulted == 1);
	CHECK(has(in.reason, "hugetlb: used: 4 pages of 2048 kB"));
	fill(p, 8 * MiB, 3);
	CHECK(intact(p, 8 * MiB, 3));
	CHECK(hugepolicy_region_free(p) == 0);
	CHECK(hugepolicy_region_free(p) == EINVAL);
}

/* region_hugetlb_with_an_empty_pool_falls_back_to_thp: a region one page
 * larger than the pool's room now (Free-Rsvd + surplus), whatever it is */
static void empty_pool(void)
{
	uint64_t room = headroom();
	size_t n = (size_t)(room + 1) * 2 * MiB;
	int populate = n <= 256 * MiB;
	unsigned char *p = region(n, HUGEPOLICY_REGION_HUGETLB, populate ? HUGEPOLICY_REGION_POPULATE : 0, 1);
	CHECK(p != NULL);
	if (!p)
		return;
	printf("pool room %llu pages; asked %zu MiB\n", (unsigned long long)room, n >> 20);
	struct hugepolicy_region_info in = matches(p, "hugetlb beyond the pool's room");
	CHECK(in.kind == HUGEPOLICY_REGION_THP);
	CHECK(has(in.reason, "hugetlb: not used: the 2048 kB pool has room for"));
	CHECK(has(in.reason, "thp: used: 2 MiB-aligned, MADV_HUGEPAGE"));
	CHECK(in.hugetlb_bytes == 0);
	CHECK(!populate || in.rss == n);
	CHECK_MSG(!populate || in.thp_bytes > 0, "no AnonHugePages after populate (fragmented memory?)");
	CHECK(hugepolicy_region_free(p) == 0);
}

/* region_strict_fails_with_errno */
static void strict(void)
{
	/* a region that is made leaves errno as it was (review: ENOENT left
	 * behind by the probe's reads), even when it stepped down */
	size_t n = (size_t)(headroom() + 1) * 2 * MiB;
	static const int kinds[] = { HUGEPOLICY_REGION_AUTO, HUGEPOLICY_REGION_HUGETLB, HUGEPOLICY_REGION_THP };
	for (int k = 0; k < 3; k++) {
		errno = 4242;
		void *ok = region(n, kinds[k], 0, 1);
		CHECK_MSG(ok != NULL && errno == 4242, "a made %s region changed errno to %d",
			  hugepolicy_region_kind_name(kinds[k]), errno);
		hugepolicy_region_free(ok);
	}
	errno = 0;
	void *p = region(n, HUGEPOLICY_REGION_HUGETLB, HUGEPOLICY_REGION_STRICT, 1);
	CHECK_MSG(p == NULL && errno == ENOMEM, "strict hugetlb beyond the pool's room: %p errno %d", p, errno);
	struct hugepolicy_region_options o = { .size = sizeof o, .pages = HUGEPOLICY_REGION_HUGETLB,
					       .flags = HUGEPOLICY_REGION_STRICT, .hugetlb_page_size = 1u << 30 };
	if (access("/sys/kernel/mm/hugepages/hugepages-1048576kB", F_OK) != 0) {
		errno = 0;
		p = hugepolicy_region_alloc(4 * MiB, &o);
		CHECK_MSG(p == NULL && errno == EOPNOTSUPP, "strict 1 GiB pages the kernel does not offer: errno %d", errno);
		o.flags = 0;    /* the same without strict steps down */
		p = hugepolicy_region_alloc(4 * MiB, &o);
		CHECK(p != NULL);
		if (p) {
			struct hugepolicy_region_info in = matches(p, "1 GiB pages asked, not strict");
			CHECK(in.kind == HUGEPOLICY_REGION_THP);
			CHECK(has(in.reason, "the kernel offers no 1048576 kB hugetlb pages"));
			hugepolicy_region_free(p);
		}
	}
	errno = 0;
	CHECK(region(0, HUGEPOLICY_REGION_BASE, 0, 1) == NULL && errno == EINVAL);
	for (int k = 0; k < 4; k++)     /* a size no address space holds: C11 malloc's ENOMEM */
		CHECK_MSG(region(SIZE_MAX - 5, k, 0, 1) == NULL && errno == ENOMEM, "%s, SIZE_MAX - 5: errno %d",
			  hugepolicy_region_kind_name(k), errno);
	CHECK(region(MiB, 7, 0, 1) == NULL && errno == EINVAL);
	CHECK(region(MiB, HUGEPOLICY_REGION_BASE, 1u << 9, 1) == NULL && errno == EINVAL);
	p = region(n, HUGEPOLICY_REGION_HUGETLB, 0, 1);    /* not strict: falls back */
	CHECK(p != NULL);
	if (p) {
		CHECK(matches(p, "not strict").kind == HUGEPOLICY_REGION_THP);
		hugepolicy_region_free(p);
	}
}

/* region_under_a_cgroup_limit_of_zero_falls_back_without_sigbus: the pool
 * has room (+4 pages), the parent cgroup's hugetlb.2MB.max is 0; the work
 * runs in a child, which must exit normally */
static void cgroup_zero(void)
{
	if (headroom() < 2)
		SKIP("the pool has no room: the cgroup limit would not be what refuses");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		unsigned char *p = region(4 * MiB, HUGEPOLICY_REGION_HUGETLB, HUGEPOLICY_REGION_POPULATE, 2);
		CHECK(p != NULL);
		if (p) {
			fill(p, 4 * MiB, 9);
			CHECK(intact(p, 4 * MiB, 9));
			struct hugepolicy_region_info in = matches(p, "hugetlb under a cgroup limit of 0");
			CHECK(in.kind == HUGEPOLICY_REGION_THP && in.hugetlb_bytes == 0);
			CHECK(has(in.reason, "hugetlb: not used: "));
			CHECK(has(in.reason, "hugetlb.2MB.max"));
		}
		errno = 0;
		CHECK(region(4 * MiB, HUGEPOLICY_REGION_HUGETLB, HUGEPOLICY_REGION_STRICT, 1) == NULL && errno == ENOMEM);
		fflush(stdout);
		_exit(check_failures ? 1 : 0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK_MSG(WIFEXITED(st), "the child died of signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* region_populate_with_1_and_n_threads_is_resident */
static void populate(void)
{
	static const int kinds[3] = { HUGEPOLICY_REGION_THP, HUGEPOLICY_REGION_BASE, HUGEPOLICY_REGION_HUGETLB };
	for (int k = 0; k < 3; k++)
		for (unsigned t = 1; t <= 4; t += 3) {
			if (kinds[k] == HUGEPOLICY_REGION_HUGETLB && headroom() < 32)
				continue;       /* needs the pool: the wrapper gave it 32 pages */
			struct timespec a, b;
			clock_gettime(CLOCK_MONOTONIC, &a);
			void *p = region(64 * MiB, kinds[k], HUGEPOLICY_REGION_POPULATE, t);
			clock_gettime(CLOCK_MONOTONIC, &b);
			CHECK(p != NULL);
			if (!p)
				continue;
			char what[64];
			snprintf(what, sizeof what, "%s 64 MiB populated by %u (%.1f ms)", hugepolicy_region_kind_name(kinds[k]),
				 t, (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
			struct hugepolicy_region_info in = matches(p, what);
			CHECK(in.prefaulted == 1);
			CHECK_MSG(in.rss == in.length, "%s: resident %llu of %llu", what, (unsigned long long)in.rss,
				  (unsigned long long)in.length);
			char word[32];
			snprintf(word, sizeof word, "populated by %u thread%s", t, t == 1 ? "" : "s");
			CHECK_MSG(has(in.reason, word), "%s: no '%s'", what, word);
			CHECK(kinds[k] != HUGEPOLICY_REGION_BASE || in.thp_bytes == 0);
			hugepolicy_region_free(p);
		}
	void *p = region(8 * MiB, HUGEPOLICY_REGION_THP, 0, 1);        /* and without populate: nothing */
	CHECK(p && matches(p, "thp not populated").rss == 0);
	hugepolicy_region_free(p);
}

/* region_resize_keeps_the_prefix (pool +16 pages: hugetlb too) */
static void resize(void)
{
	static const int kinds[3] = { HUGEPOLICY_REGION_THP, HUGEPOLICY_REGION_BASE, HUGEPOLICY_REGION_HUGETLB };
	for (int k = 0; k < 3; k++) {
		unsigned char *p = region(6 * MiB, kinds[k], HUGEPOLICY_REGION_POPULATE, 1);
		CHECK(p != NULL);
		if (!p)
			continue;
		int got = info_of(p).kind;
		printf("--- %s (asked %s)\n", hugepolicy_region_kind_name(got), hugepolicy_region_kind_name(kinds[k]));
		fill(p, 6 * MiB, (unsigned)k);
		unsigned char *q = hugepolicy_region_resize(p, 20 * MiB);
		CHECK(q != NULL);
		if (!q)
			continue;
		struct hugepolicy_region_info in = matches(q, "grown to 20 MiB");
		CHECK(intact(q, 6 * MiB, (unsigned)k));
		CHECK(zero(q + 6 * MiB, 14 * MiB));
		CHECK(in.requested == 20 * MiB && in.length == 20 * MiB);
		CHECK(in.rss == 20 * MiB);      /* the grown part populated too */
		CHECK(has(in.reason, got == HUGEPOLICY_REGION_HUGETLB ? "cannot grow in place: a new region"
			  : "moved by mremap, nothing copied"));
		if (got == HUGEPOLICY_REGION_BASE)      /* the used line states the size it has now */
			CHECK(has(in.reason, "base: used: 20971520 bytes") && !has(in.reason, "6291456 bytes,"));
		errno = 0;
		CHECK(hugepolicy_region_resize(q, SIZE_MAX - 5) == NULL && errno == ENOMEM);
		CHECK(info_of(q).length == 20 * MiB);   /* a size that cannot be had leaves it as it was */
		CHECK(hugepolicy_region_info(p, &in) == EINVAL || p == q);
		fill(q, 20 * MiB, 40);
		unsigned char *s = hugepolicy_region_resize(q, 3 * MiB);
		CHECK(s == q);
		if (s) {
			in = matches(s, "shrunk to 3 MiB");
			CHECK(intact(s, 3 * MiB, 40));
			CHECK(in.length == (got == HUGEPOLICY_REGION_BASE ? 3 * MiB : 4 * MiB));
			CHECK(has(in.reason, "in place"));
			CHECK(got != HUGEPOLICY_REGION_BASE || has(in.reason, "base: used: 3145728 bytes"));
			CHECK(got != HUGEPOLICY_REGION_HUGETLB || has(in.reason, "hugetlb: used: 2 pages of 2048 kB"));
			/* shrunk to an odd size and grown back: every new byte is zero,
			 * the old tail that stayed mapped included (review: 1048571
			 * stale bytes for thp and hugetlb, 4091 for base) */
			unsigned char *t = hugepolicy_region_resize(s, 3 * MiB + 5);
			t = t ? hugepolicy_region_resize(t, 3 * MiB + 105) : NULL;
			t = t ? hugepolicy_region_resize(t, 8 * MiB) : NULL;
			CHECK(t != NULL);
			if (t) {
				CHECK(intact(t, 3 * MiB, 40));
				CHECK_MSG(zero(t + 3 * MiB + 512, 5 * MiB - 512), "%s: stale bytes after a shrink and a grow",
					  hugepolicy_region_kind_name(got));   /* fill's bytes: every 512th */
				CHECK(t[3 * MiB + 5] == 0 && t[3 * MiB + 104] == 0);
				s = t;
			}
		}
		CHECK(hugepolicy_region_free(s ? s : q) == 0);
	}
}

/* region_dontfork_and_wipeonfork_seen_from_a_child */
static void forks(void)
{
	struct hugepolicy_region_options o = { .size = sizeof o, .pages = HUGEPOLICY_REGION_THP,
					       .flags = HUGEPOLICY_REGION_POPULATE, .fork = HUGEPOLICY_REGION_FORK_DONTFORK };
	unsigned char *dont = hugepolicy_region_alloc(4 * MiB, &o);
	o.fork = HUGEPOLICY_REGION_FORK_WIPEONFORK;
	o.pages = HUGEPOLICY_REGION_BASE;
	unsigned char *wipe = hugepolicy_region_alloc(4 * MiB, &o);
	o.fork = HUGEPOLICY_REGION_FORK_INHERIT;
	unsigned char *keep = hugepolicy_region_alloc(4 * MiB, &o);
	o.fork = HUGEPOLICY_REGION_FORK_WIPEONFORK;
	o.pages = HUGEPOLICY_REGION_HUGETLB;
	unsigned char *tlb = hugepolicy_region_alloc(4 * MiB, &o);     /* hugetlb cannot: steps down */
	/* hugetlb ones if the pool has room (the wrapper gave it 8 pages) */
	o.fork = HUGEPOLICY_REGION_FORK_DONTFORK;
	o.flags = HUGEPOLICY_REGION_STRICT;
	unsigned char *tlb_dont = headroom() >= 4 ? hugepolicy_region_alloc(4 * MiB, &o) : NULL;
	o.fork = HUGEPOLICY_REGION_FORK_INHERIT;
	unsigned char *tlb_keep = headroom() >= 2 ? hugepolicy_region_alloc(4 * MiB, &o) : NULL;
	o.flags = 0;
	printf("hugetlb regions: dontfork %s, inherit %s\n", tlb_dont ? "made" : "no room", tlb_keep ? "made" : "no room");
	CHECK(dont && wipe && keep && tlb);
	if (!dont || !wipe || !keep || !tlb)
		return;
	if (tlb_dont) {
		fill(tlb_dont, 4 * MiB, 5);
		CHECK(matches(tlb_dont, "hugetlb dontfork").kind == HUGEPOLICY_REGION_HUGETLB);
		CHECK(has(smaps_of(tlb_dont, 4 * MiB).flags, " dc"));
	}
	if (tlb_keep)
		fill(tlb_keep, 4 * MiB, 6);
	fill(dont, 4 * MiB, 1);
	fill(wipe, 4 * MiB, 2);
	fill(keep, 4 * MiB, 3);
	fill(tlb, 4 * MiB, 4);
	struct hugepolicy_region_info in = matches(dont, "dontfork");
	CHECK(in.fork == HUGEPOLICY_REGION_FORK_DONTFORK && has(smaps_of(dont, in.length).flags, " dc"));
	in = matches(wipe, "wipeonfork");
	CHECK(in.fork == HUGEPOLICY_REGION_FORK_WIPEONFORK && has(smaps_of(wipe, in.length).flags, " wf"));
	in = matches(tlb, "wipeonfork asked with hugetlb");
	CHECK(in.kind == HUGEPOLICY_REGION_THP && has(in.reason, "MADV_WIPEONFORK is for private anonymous memory"));
	CHECK(in.fork == HUGEPOLICY_REGION_FORK_WIPEONFORK && has(smaps_of(tlb, in.length).flags, " wf"));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		unsigned char vec[4];
		int rc = 0;
		if (mincore(dont, 4096, vec) != -1 || errno != ENOMEM)
			rc |= 1;        /* the dontfork region must not be mapped */
		if (!zero(wipe, 4 * MiB))
			rc |= 2;        /* the wipeonfork region reads zeros */
		if (!intact(keep, 4 * MiB, 3))
			rc |= 4;        /* inherited ones keep their data */
		if (!zero(tlb, 4 * MiB))
			rc |= 8;        /* hugetlb+wipeonfork stepped down to THP, wiped */
		if (tlb_dont && (mincore(tlb_dont, 4096, vec) != -1 || errno != ENOMEM))
			rc |= 16;
		if (tlb_keep && !intact(tlb_keep, 4 * MiB, 6))
			rc |= 32;
		_exit(rc);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status %#x (1: dontfork region mapped, "
		  "2: wipeonfork region not zero, 4: inherited data lost, 8: the THP step of hugetlb+wipeonfork not zero, 16: hugetlb dontfork mapped, 32: hugetlb inherited lost)", st);
	CHECK(intact(dont, 4 * MiB, 1) && intact(wipe, 4 * MiB, 2));   /* the parent keeps its own */
	o.flags |= HUGEPOLICY_REGION_STRICT;
	o.fork = HUGEPOLICY_REGION_FORK_WIPEONFORK;
	errno = 0;
	CHECK(hugepolicy_region_alloc(4 * MiB, &o) == NULL && errno == EOPNOTSUPP);
	hugepolicy_region_free(dont);
	hugepolicy_region_free(wipe);
	hugepolicy_region_free(keep);
	hugepolicy_region_free(tlb);
	hugepolicy_region_free(tlb_dont);
	hugepolicy_region_free(tlb_keep);
}

/* region_interleave_on_one_node_is_reported_as_a_noop */
static void interleave(void)
{
	FILE *f = fopen("/sys/devices/system/node/online", "r");
	char nodes[64] = "";
	if (f) {
		if (!fgets(nodes, sizeof nodes, f))
			nodes[0] = '\0';
		fclose(f);
	}
	if (strcmp(nodes, "0\n") != 0)
		SKIP("this machine has more than one NUMA node (online: %s)", nodes);
	struct hugepolicy_region_options o = { .size = sizeof o, .pages = HUGEPOLICY_REGION_THP,
					       .flags = HUGEPOLICY_REGION_POPULATE, .numa = HUGEPOLICY_REGION_NUMA_INTERLEAVE };
	void *p = hugepolicy_region_alloc(8 * MiB, &o);
	CHECK(p != NULL);
	if (!p)
		return;
	struct hugepolicy_region_info in = matches(p, "interleave");
	CHECK(in.numa == HUGEPOLICY_REGION_NUMA_INTERLEAVE && in.numa_noop == 1);
	CHECK(has(in.reason, "numa: interleave over 1 online node (mbind MPOL_INTERLEAVE): a no-op"));
	/* the kernel's word: numa_maps shows the policy on the region's VMA */
	char line[512], want[32];
	int seen = 0;
	snprintf(want, sizeof want, "%lx interleave", (unsigned long)p);
	f = fopen("/proc/self/numa_maps", "r");
	while (f && fgets(line, sizeof line, f))
		seen |= strncmp(line, want, strlen(want)) == 0;
	if (f)
		fclose(f);
	CHECK_MSG(seen, "numa_maps has no '%s'", want);
	o.numa = HUGEPOLICY_REGION_NUMA_NODE;
	o.node = 5;
	errno = 0;
	CHECK(hugepolicy_region_alloc(MiB, &o) == NULL && errno == EINVAL);
	hugepolicy_region_free(p);
}

/* region_info_matches_smaps: every kind, populated or not, resized */
static void info_smaps(void)
{
	static const int kinds[4] = { HUGEPOLICY_REGION_AUTO, HUGEPOLICY_REGION_THP, HUGEPOLICY_REGION_BASE,
				      HUGEPOLICY_REGION_HUGETLB };
	for (int k = 0; k < 4; k++)
		for (unsigned pop = 0; pop < 2; pop++) {
			unsigned char *p = region(10 * MiB + 4096, kinds[k], pop ? HUGEPOLICY_REGION_POPULATE : 0, 2);
			CHECK(p != NULL);
			if (!p)
				continue;
			char what[64];
			snprintf(what, sizeof what, "asked %s, %s", hugepolicy_region_kind_name(kinds[k]),
				 pop ? "populated" : "not populated");
			matches(p, what);
			memset(p, 1, 3 * MiB);
			matches(p, "3 MiB written");
			p = hugepolicy_region_resize(p, 30 * MiB);
			CHECK(p != NULL);
			if (p)
				matches(p, "grown to 30 MiB");
			hugepolicy_region_free(p);
		}
}

/* region_without_the_malloc_backend (no HUGEPOLICY_* set), and under
 * LD_PRELOAD with jemalloc: no region call allocates through the backend */
extern char **environ;
static void no_backend(void)
{
	const char *want = getenv("REGION_BACKEND");
	for (char **e = environ; !want && *e; e++)
		CHECK_MSG(strncmp(*e, "HUGEPOLICY_", 11) != 0, "set: %s", *e);
	CHECK(strcmp(hugepolicy_backend(), want ? want : "system") == 0);
	struct hugepolicy_stats a = { .size = sizeof a }, b = { .size = sizeof b };
	char reasons[4][HUGEPOLICY_REGION_REASON + 16];
	printf("before: backend %s\n", hugepolicy_backend());     /* stdout's buffer is malloc'ed now */
	struct mallinfo2 ma = mallinfo2(), mb;
	hugepolicy_stats(&a);
	for (int k = 0; k < 4; k++) {
		unsigned char *p = region(16 * MiB, k, HUGEPOLICY_REGION_POPULATE, 1);
		CHECK(p != NULL);
		if (!p)
			continue;
		fill(p, 16 * MiB, 5);
		struct hugepolicy_region_info in = info_of(p);
		p = hugepolicy_region_resize(p, 24 * MiB);
		CHECK(p && intact(p, 16 * MiB, 5));
		snprintf(reasons[k], sizeof reasons[k], "%s region: %s", hugepolicy_region_kind_name(in.kind), in.reason);
		hugepolicy_region_free(p);
	}
	mb = mallinfo2();
	hugepolicy_stats(&b);
	for (int k = 0; k < 4; k++)
		printf("%s", reasons[k]);
	printf("backend %s: stats.allocated %llu -> %llu, glibc uordblks %zu -> %zu hblkhd %zu -> %zu\n", b.backend,
	       (unsigned long long)a.allocated, (unsigned long long)b.allocated, ma.uordblks, mb.uordblks,
	       ma.hblkhd, mb.hblkhd);
	CHECK(a.allocated == b.allocated);
	CHECK(strcmp(b.backend, "system") != 0 || (ma.uordblks == mb.uordblks && ma.hblkhd == mb.hblkhd));
}

/* region_verbose_lines_are_bounded: 2000 small regions, HUGEPOLICY_VERBOSE=1 */
static void verbose(void)
{
	for (int i = 0; i < 2000; i++) {
		void *p = region((size_t)(i % 7 + 1) * 4096, i % 3 ? HUGEPOLICY_REGION_BASE : HUGEPOLICY_REGION_AUTO, 0, 1);
		CHECK(p != NULL);
		hugepolicy_region_free(p);
	}
}

/* region_without_madvise_populate_write_refuses_hugetlb (faultinject makes
 * every MADV_POPULATE_WRITE fail with EINVAL, as a kernel < 5.14 does; the
 * pool has room): hugetlb is refused with the reason, THP and base pages are
 * pre-faulted by touching */
static void old_kernel(void)
{
	if (headroom() < 4)
		SKIP("the pool has no room: hugetlb would be refused for another reason");
	void *p = region(8 * MiB, HUGEPOLICY_REGION_HUGETLB, HUGEPOLICY_REGION_POPULATE, 2);
	CHECK(p != NULL);
	if (p) {
		struct hugepolicy_region_info in = matches(p, "hugetlb without MADV_POPULATE_WRITE");
		CHECK(in.kind == HUGEPOLICY_REGION_THP && in.hugetlb_bytes == 0);
		CHECK(has(in.reason, "hugetlb: not used: the kernel has no MADV_POPULATE_WRITE (5.14)"));
		CHECK(in.prefaulted && in.rss == in.length);     /* touched instead */
		hugepolicy_region_free(p);
	}
	errno = 0;
	CHECK(region(8 * MiB, HUGEPOLICY_REGION_HUGETLB, HUGEPOLICY_REGION_STRICT, 1) == NULL && errno == EOPNOTSUPP);
	p = region(8 * MiB, HUGEPOLICY_REGION_BASE, HUGEPOLICY_REGION_POPULATE, 1);
	CHECK(p && matches(p, "base, touched").rss == 8 * MiB);
	hugepolicy_region_free(p);
}

/* A hugetlb region of `pages` pages, written by a forked child: without the
 * fork copy (HUGEPOLICY_FORK=inherit) the child's copy-on-write needs a page
 * that the pool or a cgroup limit does not give, and it dies of SIGBUS */
static void fork_copy_of(uint64_t pages)
{
	size_t n = (size_t)pages * 2 * MiB;
	unsigned char *p = region(n, HUGEPOLICY_REGION_HUGETLB, HUGEPOLICY_REGION_STRICT, 1);
	if (!p)
		SKIP("the pool's room went away meanwhile (errno %d)", errno);
	fill(p, n, 8);
	CHECK(matches(p, "hugetlb, all the room there is").hugetlb_bytes == n);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int ok = intact(p, n, 8);
		fill(p, n, 9);          /* every page written: copy-on-write */
		_exit(ok && intact(p, n, 9) ? 0 : 1);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %s %d", WIFSIGNALED(st) ? "signal" : "exit",
		  WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	CHECK(intact(p, n, 8));         /* the parent's data is its own */
	hugepolicy_region_free(p);
}

/* region_inherited_hugetlb_is_the_childs_own_after_fork: the region takes
 * every page the pool has room for (a pool of at most 64 free pages) */
static void fork_copy(void)
{
	uint64_t room = headroom();
	if (room == 0 || room > 64)
		SKIP("the pool has %llu pages of room: cannot fill it exactly here", (unsigned long long)room);
	fork_copy_of(room);
}

/* region_inherited_hugetlb_under_a_cgroup_limit_is_the_childs_own_after_fork:
 * the cgroup's parent allows 4 pages (hugetlb_cgroup.sh 8 MiB), the region
 * takes all 4 whatever the pool holds; the child's copy is refused by the
 * cgroup, not by the pool */
static void fork_copy_cgroup(void)
{
	if (headroom() < 4)
		SKIP("the pool has %llu pages of room, 4 needed (drained meanwhile)", (unsigned long long)headroom());
	fork_copy_of(4);
}

/* region_calls_from_many_threads_are_safe: 4 threads allocate, write,
 * resize, read back, ask info and free regions of every kind at once */
#include <pthread.h>
static void *churn(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg, bad = 0;
	for (int i = 0; i < 60; i++) {
		size_t n = ((size_t)(seed + i) % 5 + 1) * MiB;
		unsigned char *p = region(n, (int)((seed + i) % 4), (i & 1) ? HUGEPOLICY_REGION_POPULATE : 0, 1 + i % 2);
		if (!p) {
			bad++;
			continue;
		}
		fill(p, n, seed);
		int kind = info_of(p).kind;
		unsigned char *q = hugepolicy_region_resize(p, n * 2);
		int e = errno;
		struct hugepolicy_region_info in = { .size = sizeof in };
		const char *what = !q ? "resize" : !intact(q, n, seed) ? "prefix" : !zero(q + n, n) ? "zero tail"
				 : hugepolicy_region_info(q, &in) != 0 || in.length < n * 2 ? "info"
				 : hugepolicy_region_free(q) != 0 ? "free" : NULL;
		if (what) {
			size_t at = 0;
			while (q && at < n && q[at] == (unsigned char)(at / 512 * 7 + seed))
				at += 512;
			printf("thread %u, region %d (%zu MiB, %s): %s failed (errno %d), %p -> %p, first bad byte %zu; "
			       "info of the new address:\n%s", seed, i, n >> 20, hugepolicy_region_kind_name(kind), what, e,
			       (void *)p, (void *)q, at, q ? info_of(q).reason : "");
			bad++;
		}
	}
	return (void *)(uintptr_t)bad;
}

static void threads(void)
{
	pthread_t t[4];
	int nt = 4;
	for (uintptr_t i = 0; i < (uintptr_t)nt; i++)
		pthread_create(&t[i], NULL, churn, (void *)(i * 11 + 1));
	for (int i = 0; i < nt; i++) {
		void *bad;
		pthread_join(t[i], &bad);
		CHECK_MSG(bad == NULL, "thread %d: %lu failures", i, (unsigned long)(uintptr_t)bad);
	}
}

/* region_with_thp_disabled_for_the_process_falls_back_to_base_pages: THP
 * "never" for this process alone (prctl PR_SET_THP_DISABLE, what a parent
 * or a container runtime can set), not the machine-wide `enabled` file */
#include <sys/prctl.h>
static void thp_off(void)
{
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
		SKIP("prctl(PR_SET_THP_DISABLE) refused: %s", strerror(errno));
	void *p = region(8 * MiB, HUGEPOLICY_REGION_THP, HUGEPOLICY_REGION_POPULATE, 1);
	CHECK(p != NULL);
	if (p) {
		struct hugepolicy_region_info in = matches(p, "thp with THP disabled for the process");
		CHECK(in.kind == HUGEPOLICY_REGION_BASE && in.thp_bytes == 0 && in.rss == 8 * MiB);
		CHECK(has(in.reason, "thp: not used: THP is disabled for this process"));
		hugepolicy_region_free(p);
	}
	errno = 0;
	CHECK(region(8 * MiB, HUGEPOLICY_REGION_THP, HUGEPOLICY_REGION_STRICT, 1) == NULL && errno == EOPNOTSUPP);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(void); } modes[] = {
		{ "hugetlb_pool", hugetlb_pool }, { "empty_pool", empty_pool }, { "strict", strict },
		{ "cgroup_zero", cgroup_zero }, { "populate", populate }, { "resize", resize },
		{ "fork", forks }, { "interleave", interleave }, { "info_smaps", info_smaps },
		{ "no_backend", no_backend }, { "verbose", verbose }, { "old_kernel", old_kernel },
		{ "fork_copy", fork_copy }, { "fork_copy_cgroup", fork_copy_cgroup },
		{ "threads", threads }, { "thp_off", thp_off },
	};
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; argc > 1 && i < sizeof modes / sizeof modes[0]; i++)
		if (strcmp(argv[1], modes[i].name) == 0) {
			modes[i].fn();
			return check_result(argv[1]);
		}
	fprintf(stderr, "usage: test_region MODE\n");
	return 2;
}
