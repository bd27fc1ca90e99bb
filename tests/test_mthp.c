/* test_mthp.c - auto's mid-size blocks on sub-PMD THP folios (mTHP), read
 * back from the kernel.  mthp_enabled.sh sets hugepages-64kB/enabled for
 * the test and restores it.
 * usage: test_mthp advised|never|reuse
 *   advised (64 KiB in madvise): 64 blocks of 512 KiB, filled: each block's
 *     mapping is MADV_HUGEPAGE (smaps VmFlags hg), the kernel's 64 KiB
 *     fault counter rose by at least half the folios they hold, no PMD THP
 *     came of the advice (AnonHugePages 0: the guard pages), and the report
 *     names the size: plan.mthp advise, process.mthp.64kB at least half the
 *     bytes (root: pagemap + kpageflags);
 *   never (64 KiB and every other sub-PMD size never): the blocks' mappings
 *     are not advised and the report's plan.mthp is none (behaviour as
 *     before mTHP);
 *   user_off (64 KiB in madvise, the backend's own setting turning THP off:
 *     jemalloc's MALLOC_CONF=thp:never): as never, but plan.mthp unused and
 *     stats.mthp.maps_advised does not rise over the blocks' allocation (the
 *     backend's start-up mappings came before its setting was known);
 *   realloc (64 KiB in madvise, the PMD size with the advice): 16 blocks of
 *     512 KiB, filled, each grown by realloc to 3.5 MiB (glibc: mremap, which
 *     takes the mapping's advice along) and filled: no 2 MiB-aligned page
 *     inside a block is MADV_HUGEPAGE (the guard holds), the block's middle is;
 *   reuse (64 KiB in madvise, under faultinject.c counting MADV_HUGEPAGE
 *     calls): 10000 rounds of malloc(256 KiB), a write, free make fewer
 *     than 100 such calls - the advice is per mapping, not per malloc. */
#define _GNU_SOURCE
#include "check.h"
#include "smaps_rollup.h"
#include "smaps_vma.h"

#include <dlfcn.h>
#include <hugepolicy.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { NBLK = 64, BLK = 512 << 10, FOLIO = 64 << 10 };

static long long counter64(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/anon_fault_alloc", "r");
	long long v = -1;
	if (f && fscanf(f, "%lld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* a page of the block that is not the first of a 2 MiB window (a guard) */
static int hg(uintptr_t q)
{
	char line[512];
	return smaps_vma_field((void *)q, "VmFlags:", line, sizeof line) && strstr(line, " hg") != NULL;
}

static int advised(const char *p)
{
	uintptr_t q = ((uintptr_t)p + BLK / 2) & ~(uintptr_t)4095;
	if ((q & ((2u << 20) - 1)) == 0)
		q += 4096;
	char line[512];
	return smaps_vma_field((void *)q, "VmFlags:", line, sizeof line) && strstr(line, " hg") != NULL;
}

/* the JSON report into buf */
static void report(char *buf, size_t cap)
{
	FILE *f = tmpfile();
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(hugepolicy_report(fileno(f), HUGEPOLICY_REPORT_JSON) == 0);
	rewind(f);
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static long long key(const char *json, const char *name)
{
	char pat[96];
	snprintf(pat, sizeof pat, "\"%s\":", name);
	const char *s = strstr(json, pat);
	return s && s[strlen(pat)] != 'n' ? atoll(s + strlen(pat)) : -1;
}

/* mid-size blocks grown by realloc keep the guard */
static int grown(void)
{
	enum { N = 16, BIG = (3 << 20) + (512 << 10) };
	static char *blk[N];
	int guards = 0, middles = 0;
	for (int i = 0; i < N; i++) {
		char *p = malloc(BLK);
		CHECK(p != NULL);
		if (!p)
			return check_result("grown blocks keep the guard");
		memset(p, 1, BLK);
		blk[i] = realloc(p, BIG);
		CHECK(blk[i] != NULL);
		if (!blk[i])
			return check_result("grown blocks keep the guard");
		memset(blk[i], 2, BIG);
		uintptr_t lo = (uintptr_t)blk[i] & ~(uintptr_t)4095, hi = (uintptr_t)blk[i] + BIG, w = 2u << 20;
		for (uintptr_t b = (lo + w - 1) & ~(w - 1); b < hi; b += w) {
			CHECK_MSG(!hg(b), "block %d: the 2 MiB-aligned page %#lx is MADV_HUGEPAGE", i, (unsigned long)b);
			guards++;
		}
		middles += hg(((lo + (w - 1)) & ~(w - 1)) + 4096);
	}
	printf("realloc: %d blocks grown to %d B, %d guard pages looked at, %d blocks advised after them, "
	       "AnonHugePages %lld kB\n", N, BIG, guards, middles, smaps_rollup_kb("AnonHugePages"));
	CHECK_MSG(middles == N, "%d of %d grown blocks advised", middles, N);
	for (int i = 0; i < N; i++)
		free(blk[i]);
	return check_result("grown blocks keep the guard");
}

/* MADV_HUGEPAGE calls made by a malloc/free loop of one reused block */
static int reuse(void)
{
	enum { ROUNDS = 10000, MID = 256 << 10 };
	long (*calls)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "faultinject_calls");
	CHECK_MSG(calls != NULL, "faultinject.c is not preloaded (FI_CALL=hugepage)");
	if (!calls)
		return check_result("no madvise per malloc of a reused block");
	for (int i = 0; i < 100; i++) {         /* the allocator settles: its mappings made */
		char *p = malloc(MID);
		CHECK(p != NULL);
		if (p)
			p[i] = 1;
		free(p);
	}
	long before = calls();
	for (int i = 0; i < ROUNDS; i++) {
		char *p = malloc(MID);
		if (!p)
			break;
		p[i % MID] = 1;
		free(p);
	}
	long made = calls() - before;
	static char json[8192];
	report(json, sizeof json);
	printf("reuse: %d rounds of malloc(%d)/free: %ld MADV_HUGEPAGE calls (%ld before the loop); "
	       "stats.mthp.maps_advised %lld\n", ROUNDS, MID, made, before, key(json, "stats.mthp.maps_advised"));
	CHECK(strstr(json, "\"plan.mthp\":\"advise\"") != NULL);
	CHECK_MSG(made < ROUNDS / 100, "%ld MADV_HUGEPAGE calls in %d rounds", made, ROUNDS);
	return check_result("no madvise per malloc of a reused block");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "reuse") == 0)
		return reuse();
	if (strcmp(argv[1], "realloc") == 0)
		return grown();
	int want = strcmp(argv[1], "advised") == 0, user_off = strcmp(argv[1], "user_off") == 0;
	static char *blk[NBLK];
	static char json[8192];
	long long before = counter64();
	report(json, sizeof json);
	long long maps_before = key(json, "stats.mthp.maps_advised");
	/* all allocated, then all filled: a 2 MiB window whose blocks are all
	 * advised before its first touch is where a PMD THP could come */
	for (int i = 0; i < NBLK; i++) {
		blk[i] = malloc(BLK);
		CHECK(blk[i] != NULL);
	}
	for (int i = 0; i < NBLK; i++)
		memset(blk[i], i + 1, BLK);
	long long rose = counter64() - before;
	int n_adv = 0;
	for (int i = 0; i < NBLK; i++)
		n_adv += advised(blk[i]);
	report(json, sizeof json);
	const char *plan = strstr(json, "\"plan.mthp\":\"");
	printf("%s: %d of %d blocks advised, 64 KiB faults +%lld (system-wide), AnonHugePages %lld kB, "
	       "process.mthp.64kB %lld\n%s", argv[1], n_adv, NBLK, rose, smaps_rollup_kb("AnonHugePages"),
	       key(json, "process.mthp.64kB"), json);
	if (want) {
		CHECK_MSG(n_adv == NBLK, "%d of %d blocks advised", n_adv, NBLK);
		CHECK_MSG(rose >= NBLK * (BLK / FOLIO) / 2, "the 64 KiB counter rose by %lld", rose);
		CHECK_MSG(smaps_rollup_kb("AnonHugePages") == 0, "a PMD THP came of mid-size advice: %lld kB", smaps_rollup_kb("AnonHugePages"));
		CHECK(plan && strncmp(plan + 13, "advise\"", 7) == 0);
		CHECK(key(json, "process.mthp.64kB") >= (long long)NBLK * BLK / 2);
		CHECK(key(json, "system.mthp.64kB.fault_alloc") >= NBLK * (BLK / FOLIO) / 2);
		CHECK(key(json, "stats.mthp.maps_advised") >= 1);
		CHECK(key(json, "stats.mthp.bytes_advised") >= (long long)NBLK * BLK / 2);
	} else {
		CHECK_MSG(n_adv == 0, "%d of %d blocks advised", n_adv, NBLK);
		CHECK(plan && strncmp(plan + 13, user_off ? "unused\"" : "none\"", user_off ? 7 : 5) == 0);
		if (user_off)
			CHECK_MSG(key(json, "stats.mthp.maps_advised") == maps_before, "%lld mappings advised, "
				  "%lld before the blocks", key(json, "stats.mthp.maps_advised"), maps_before);
		else
			CHECK(key(json, "process.mthp.64kB") == -1);
	}
	for (int i = 0; i < NBLK; i++)
		free(blk[i]);
	return check_result(want ? "mid-size blocks on 64 KiB folios" : "mid-size blocks not advised");
}
