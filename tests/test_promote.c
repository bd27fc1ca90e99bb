/* test_promote.c - auto's whole-heap THP once the heap is large and dense
 * (policy/promote.c, pages/heap_promote.c), read back from the kernel.
 * usage: test_promote dense|off|small|sparse|ownmap|costly|big|bigdense|bigsparse
 *   (HUGEPOLICY_BACKEND=jemalloc|mimalloc, HUGEPOLICY_PAGES=auto; THP
 *   enabled madvise or always, else exit 77)
 *
 * - dense: 256 MiB of filled 64 KiB blocks (each below the 4 MiB threshold,
 *   so none is advised on its own): the report's promote.state is promoted,
 *   the mapping of a block allocated last has VmFlags "hg" (MADV_HUGEPAGE)
 *   and the process has at least 64 MiB AnonHugePages (smaps_rollup);
 * - off: the same under HUGEPOLICY_PROMOTE=off: not promoted, no "hg",
 *   under 16 MiB AnonHugePages;
 * - costly: the dense heap at fault costs under which THP does not pay
 *   (HUGEPOLICY_FAULT_COST): promote.state held ("large and dense at ...",
 *   promote.cost_reason "base pages cheaper"), no "hg", under 16 MiB
 *   AnonHugePages;
 * - small: 48 MiB of them: promote.state waiting ("heap small"), no "hg";
 * - sparse: 1 GiB of 64 KiB blocks with one 16 KiB of each written
 *   (256 MiB resident, 25 %): waiting ("heap sparse"), no "hg", and
 *   Rss stays below 400 MiB (THP would fault in the whole GiB);
 * - ownmap: the program first maps and fills 512 MiB itself (mmap, not
 *   malloc: a JIT's or an interpreter's arenas), then the sparse heap: the
 *   heap is still sparse ("heap sparse", no "hg"), since the program's own
 *   memory is not the allocator's (counted as the process's anonymous
 *   resident memory, the heap looked 75 % dense and was promoted), and the
 *   report's promote.resident says at most 400 MiB of the heap is resident;
 * - big: 24 filled blocks of 16 MiB (each over the threshold: advised on
 *   its own), then the small heap: waiting ("heap small"), no "hg" on the
 *   last small block, promote.big_blocks at least 384 MiB (the big blocks
 *   counted in, the heap looked large and dense and was promoted);
 * - bigsparse: a 512 MiB block, only its first 320 MiB written, then the
 *   dense heap: promoted (a heap is large by what is resident outside its
 *   big blocks: taking their usable size off made it look small);
 * - bigdense: the big blocks, then the dense heap: promoted, at the latest
 *   by a sample that a later big block brings (a heap that fills what the
 *   allocator mapped earlier maps nothing new: jemalloc's extents). */
#define _GNU_SOURCE
#include "check.h"
#include "report_keys.h"
#include "smaps_vma.h"
#include "thp_enabled.h"

#include <hugepolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define KIB 1024u
#define MIB (1024u * 1024u)

static long long rollup_kb(const char *field)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long long kb = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && sscanf(line + n, " %lld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static int advised(const void *p)
{
	char flags[512] = "";
	CHECK(smaps_vma_field(p, "VmFlags:", flags, sizeof flags));
	return strstr(flags, " hg") != NULL;
}

static int promoted_now(void)
{
	static char rep[16384];
	report_text(rep, sizeof rep);
	return report_is(rep, "promote.state", "promoted");
}

/* n blocks of 64 KiB, `touch` bytes of each written; the last one */
static unsigned char *fill(unsigned char **keep, size_t n, size_t touch)
{
	unsigned char *last = NULL;
	for (size_t i = 0; i < n; i++) {
		last = keep[i] = malloc(64 * KIB);
		CHECK(last != NULL);
		if (!last)
			return NULL;
		memset(last, (int)(i & 0xff), touch);
	}
	return last;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "dense";
	if (!thp_enabled_now()) {
		printf("SKIP: THP is not enabled (madvise or always)\n");
		return 77;
	}
	int own = strcmp(mode, "ownmap") == 0, sparse = own || strcmp(mode, "sparse") == 0;
	int big = strcmp(mode, "big") == 0 || strcmp(mode, "bigdense") == 0;
	int dense = strcmp(mode, "dense") == 0 || strcmp(mode, "bigdense") == 0 || strcmp(mode, "bigsparse") == 0;
	unsigned char *untouched = strcmp(mode, "bigsparse") == 0 ? malloc(512 * (size_t)MIB) : NULL;
	CHECK(untouched != NULL || strcmp(mode, "bigsparse") != 0);
	if (untouched)
		memset(untouched, 7, 320 * (size_t)MIB);        /* the last 192 MiB never touched */
	enum { BIG_BLOCKS = 24 };
	unsigned char *bigs[BIG_BLOCKS] = { 0 };
	for (int i = 0; big && i < BIG_BLOCKS; i++) {
		bigs[i] = malloc(16 * (size_t)MIB);
		CHECK(bigs[i] != NULL);
		if (bigs[i])
			memset(bigs[i], i + 1, 16 * (size_t)MIB);
	}
	if (own) {
		size_t len = 512 * (size_t)MIB;
		unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(m != MAP_FAILED);
		if (m != MAP_FAILED)
			memset(m, 1, len);      /* kept to the end: the process's, not the heap's */
	}
	int small = strcmp(mode, "small") == 0 || strcmp(mode, "big") == 0;
	size_t n = small ? 48 * 16 : sparse ? 1024 * 16 : 256 * 16;
	size_t touch = sparse ? 16 * KIB : 64 * KIB;
	unsigned char **keep = calloc(n, sizeof *keep);
	CHECK(keep != NULL);
	if (!keep)
		return check_result("test_promote");
	unsigned char *last = fill(keep, n, touch);
	/* bigdense: big blocks keep coming, up to 2 s, a sample at most every
	 * 20 ms (or 100 times what one cost) among them */
	for (int i = 0; strcmp(mode, "bigdense") == 0 && i < 100 && !promoted_now(); i++) {
		free(malloc(16 * (size_t)MIB));
		usleep(20 * 1000);
	}
	long long huge = rollup_kb("AnonHugePages:"), rss = rollup_kb("Rss:");
	int hg = last && advised(last);
	char rep[16384], state[32] = "", reason[400] = "";
	report_text(rep, sizeof rep);
	report_value(rep, "promote.state", state, sizeof state);
	report_value(rep, "promote.reason", reason, sizeof reason);
	long long now_resident = report_num(rep, "promote.resident");
	printf("%s: %zu blocks of 64 KiB, %zu B of each written: Rss %lld kB, AnonHugePages %lld kB, last block's "
	       "mapping %s\n", mode, n, touch, rss, huge, hg ? "advised (hg)" : "not advised");
	printf("report: promote.state %s, promote.reason %s, promote.resident %lld\n", state, reason, now_resident);
	long long big_blocks = report_num(rep, "promote.big_blocks");
	if (big) {
		printf("report: promote.big_blocks %lld\n", big_blocks);
		CHECK_MSG(big_blocks >= BIG_BLOCKS * 16 * (long long)MIB, "promote.big_blocks %lld for %d live blocks of "
			  "16 MiB", big_blocks, BIG_BLOCKS);
	}
	if (dense) {
		CHECK_MSG(strcmp(state, "promoted") == 0, "not promoted");
		CHECK_MSG(report_num(rep, "promote.at_resident") >= 128 * (long long)MIB, "promote.at_resident");
		CHECK_MSG(now_resident >= 128 * (long long)MIB, "the report's heap now: %lld B resident after the "
			  "promotion", now_resident);
		CHECK_MSG(hg, "a block allocated after the promotion is in a mapping without MADV_HUGEPAGE");
		CHECK_MSG(huge >= 64 * 1024, "only %lld kB AnonHugePages", huge);
	} else {
		CHECK_MSG(strcmp(state, "promoted") != 0 && strcmp(state, "paused") != 0, "promoted");
		CHECK_MSG(report_num(rep, "promote.at_resident") == -1, "promote.at_resident is known unpromoted");
		CHECK_MSG(!hg, "the last block's mapping is advised MADV_HUGEPAGE");
		if (strcmp(mode, "costly") == 0) {
			CHECK_MSG(strcmp(state, "held") == 0 && strstr(reason, "large and dense at") &&
				  report_has(rep, "promote.cost_reason", "base pages cheaper"),
				  "the report does not say the fault costs kept it");
			CHECK_MSG(huge < 16 * 1024, "%lld kB AnonHugePages where THP does not pay", huge);
		} else if (strcmp(mode, "off") == 0) {
			CHECK_MSG(strcmp(state, "off") == 0 && report_num(rep, "plan.promote") == 0,
				  "promotion not off in the report");
			CHECK_MSG(strstr(reason, "not promoted") != NULL, "the report does not say why");
			CHECK_MSG(huge < 16 * 1024, "%lld kB AnonHugePages with promotion off", huge);
		} else if (small) {
			CHECK_MSG(strcmp(state, "waiting") == 0 && strstr(reason, "heap small") != NULL,
				  "the report does not say the heap is small");
		} else if (!own) {
			CHECK_MSG(strcmp(state, "waiting") == 0 && strstr(reason, "heap sparse") != NULL,
				  "the report does not say the heap is sparse");
			CHECK_MSG(rss < 400 * 1024, "Rss %lld kB for 256 MiB written", rss);
		} else {
			CHECK_MSG(strcmp(state, "waiting") == 0 && strstr(reason, "heap sparse") != NULL,
				  "the report does not say the heap is sparse");
			CHECK_MSG(now_resident >= 0 && now_resident < 400 * (long long)MIB, "the report's heap now: %lld B",
				  now_resident);
			CHECK_MSG(rss < (512 + 400) * 1024, "Rss %lld kB for 512 + 256 MiB written", rss);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(keep[i]);
	free(keep);
	for (int i = 0; i < BIG_BLOCKS; i++)
		free(bigs[i]);
	free(untouched);
	return check_result("test_promote");
}
