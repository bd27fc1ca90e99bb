/* test_fault_probe.c - auto times a big block's own first THP fault and
 * takes the advice back where that fault cost more than the base faults
 * it replaces (pages/fault_cost.c, hp_fault_cost_probe), read back from
 * the report and /proc/self/smaps.
 * usage: test_fault_probe slow|pinned|readonly|untouched   (HUGEPOLICY_PAGES=auto; THP
 *   enabled madvise or always, else exit 77)
 *
 * - slow (HUGEPOLICY_FAULT_COST=measure under slow_thp_fault.so, which
 *   makes that fault look 50 ms long): a 16 MiB block, filled (again,
 *   up to 5 times, while the probe found no fresh huge page): the report
 *   counts one probe that did not pay and the block on base pages; the
 *   block's mapping is MADV_NOHUGEPAGE ("nh") and holds no huge page
 *   (the probe gave back the one it faulted in); a second block, 110 ms
 *   later, is tried again (a retry against "base pages cheaper" is due
 *   every 100 ms: advised, then "nh") and is on base pages too (no "hg",
 *   counted as base); the same where the shim makes two faults of its own
 *   in the first timing (SLOW_THP_EXTRA_FAULTS=2): that touch is not
 *   timed, the next one is, and the huge page it made is given back too;
 * - pinned (HUGEPOLICY_FAULT_COST=2,200): no probe; the block advised
 *   ("hg") and at least 8 MiB of it huge;
 * - readonly (HUGEPOLICY_FAULT_COST=measure): a filled 16 MiB block whose
 *   first whole huge page the program made read-only, shrunk by realloc
 *   in place when a probe (and a retry) is due: realloc returns the same
 *   block, its content intact (the probe wrote to that page: SIGSEGV). */
#define _GNU_SOURCE
#include "check.h"
#include "report_keys.h"
#include "smaps_vma.h"
#include "thp_enabled.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static int vm_flag(const void *p, const char *flag)
{
	char flags[512] = "";
	CHECK(smaps_vma_field(p, "VmFlags:", flags, sizeof flags));
	return strstr(flags, flag) != NULL;
}

static long huge_kb(const void *p)
{
	char line[512] = "";
	long kb = -1;
	if (smaps_vma_field(p, "AnonHugePages:", line, sizeof line))
		sscanf(line, "AnonHugePages: %ld", &kb);
	return kb;
}

static unsigned char *filled(size_t n, int c)
{
	unsigned char *p = malloc(n);
	CHECK(p != NULL);
	if (p)
		memset(p, c, n);
	return p;
}

/* realloc in place re-advises the block it keeps: its content is there,
 * and a page of it may be read-only */
static int realloc_read_only(void)
{
	unsigned char *a = filled(16 * MIB, 0x33);
	if (!a)
		return check_result("test_fault_probe");
	unsigned char *lo = (unsigned char *)(((uintptr_t)a + 2 * MIB - 1) & ~(uintptr_t)(2 * MIB - 1));
	CHECK(mprotect(lo, 2 * MIB, PROT_READ) == 0);
	usleep(150 * 1000);     /* a probe due, and a retry where base faults looked cheaper */
	char rep[16384];
	report_text(rep, sizeof rep);
	if (report_is(rep, "fault.verdict", "no-thp")) {
		printf("SKIP: no huge page for a THP fault now: no block advised, none probed\n");
		return 77;
	}
	long long blocks = report_num(rep, "fault.blocks_thp") + report_num(rep, "fault.blocks_base");
	unsigned char *q = realloc(a, 12 * MIB);
	report_text(rep, sizeof rep);
	printf("readonly: realloc %s; fault.blocks_thp %lld, fault.blocks_base %lld, fault.probes %lld\n",
	       q == a ? "in place" : q ? "moved" : "failed", report_num(rep, "fault.blocks_thp"),
	       report_num(rep, "fault.blocks_base"), report_num(rep, "fault.probes"));
	CHECK_MSG(q == a, "realloc did not shrink the block in place");
	CHECK_MSG(report_num(rep, "fault.blocks_thp") + report_num(rep, "fault.blocks_base") == blocks + 1,
		  "the block kept by realloc was not looked at again");
	if (q) {
		CHECK(q[0] == 0x33 && lo[0] == 0x33 && q[12 * MIB - 1] == 0x33);
		CHECK(q != a || mprotect(lo, 2 * MIB, PROT_READ | PROT_WRITE) == 0);
		free(q);
	}
	return check_result("test_fault_probe");
}

static size_t resident_bytes(const void *p, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(page - 1), hi = ((uintptr_t)p + n + page - 1) & ~(uintptr_t)(page - 1);
	static unsigned char vec[(16 * MIB + 2 * 4096) / 4096 + 1];
	size_t pages = (hi - lo) / page, in = 0;
	CHECK(pages <= sizeof vec && mincore((void *)lo, hi - lo, vec) == 0);
	for (size_t i = 0; i < pages && i < sizeof vec; i++)
		in += vec[i] & 1;
	return in * page;
}

/* a probed block the program never touches keeps none of the probe's huge pages */
static int untouched(void)
{
	char rep[16384];
	unsigned char *kept[5] = { 0 };
	long long probes0 = (report_text(rep, sizeof rep), report_num(rep, "fault.probes")), probes = probes0;
	for (int i = 0; i < 5 && probes == probes0; i++) {
		usleep(110 * 1000);     /* a probe due, and a retry where base faults looked cheaper */
		kept[i] = malloc(16 * MIB);
		CHECK(kept[i] != NULL);
		report_text(rep, sizeof rep);
		probes = report_num(rep, "fault.probes");
		if (probes != probes0 && kept[i]) {
			size_t in = resident_bytes(kept[i], 16 * MIB);
			printf("untouched: block %d probed (fault.probes %lld, fault.probes_base %lld): %zu kB resident\n",
			       i, probes, report_num(rep, "fault.probes_base"), in >> 10);
			CHECK_MSG(in < 2 * MIB, "%zu kB of a block never touched resident after the probe", in >> 10);
		}
	}
	for (int i = 0; i < 5; i++)
		free(kept[i]);
	if (probes == probes0) {
		printf("SKIP: no fresh huge page for the probe in 5 blocks\n");
		return 77;
	}
	return check_result("test_fault_probe");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "slow";
	if (!thp_enabled_now()) {
		printf("SKIP: THP is not enabled (madvise or always)\n");
		return 77;
	}
	if (strcmp(mode, "readonly") == 0)
		return realloc_read_only();
	if (strcmp(mode, "untouched") == 0)
		return untouched();
	unsigned char *a = filled(16 * MIB, 0x11);
	char rep[16384];
	report_text(rep, sizeof rep);
	long long probes = report_num(rep, "fault.probes"), probes_base = report_num(rep, "fault.probes_base");
	/* slow: a probe counts only a fresh huge page's fault; where the
	 * kernel had none at hand for it, a new block, a probe later */
	for (int i = 0; strcmp(mode, "slow") == 0 && probes == 0 && i < 5; i++) {
		printf("block a: no probe (AnonHugePages %ld kB): again\n", huge_kb(a + 8 * MIB));
		free(a);
		usleep(2000);
		a = filled(16 * MIB, 0x11);
		report_text(rep, sizeof rep);
		probes = report_num(rep, "fault.probes");
		probes_base = report_num(rep, "fault.probes_base");
	}
	long a_huge = huge_kb(a + 8 * MIB);
	int a_hg = vm_flag(a + 8 * MIB, " hg"), a_nh = vm_flag(a + 8 * MIB, " nh");
	printf("%s: block a: AnonHugePages %ld kB, %s; fault.probes %lld, fault.probes_base %lld, fault.blocks_thp "
	       "%lld, fault.blocks_base %lld\n", mode, a_huge, a_hg ? "hg" : a_nh ? "nh" : "no advice", probes,
	       probes_base, report_num(rep, "fault.blocks_thp"), report_num(rep, "fault.blocks_base"));
	if (strcmp(mode, "pinned") == 0) {
		CHECK_MSG(probes == 0, "a probe at pinned costs");
		CHECK_MSG(a_hg, "the block is not advised");
		CHECK_MSG(a_huge >= 8 * 1024, "only %ld kB of the block huge", a_huge);
	} else {
		long long thp0 = report_num(rep, "fault.blocks_thp"), base0 = report_num(rep, "fault.blocks_base");
		CHECK_MSG(probes == 1 && probes_base == 1, "the block's slow first THP fault was not counted");
		CHECK_MSG(a_nh && !a_hg, "the block's advice was not taken back");
		CHECK_MSG(a_huge == 0, "%ld kB of the block huge: the probe kept its huge page", a_huge);
		usleep(110 * 1000);     /* the next retry is due (the first block may have been one) */
		unsigned char *b = filled(16 * MIB, 0x22);
		report_text(rep, sizeof rep);
		printf("block b: AnonHugePages %ld kB, %s; fault.blocks_thp %lld, fault.blocks_base %lld, fault.verdict "
		       "%s\n", huge_kb(b + 8 * MIB), vm_flag(b + 8 * MIB, " hg") ? "hg" : "not hg",
		       report_num(rep, "fault.blocks_thp"), report_num(rep, "fault.blocks_base"),
		       report_is(rep, "fault.verdict", "yes") ? "yes" : "not yes");
		CHECK_MSG(!vm_flag(b + 8 * MIB, " hg"), "the second block is advised");
		CHECK_MSG(report_num(rep, "fault.blocks_thp") == thp0 && report_num(rep, "fault.blocks_base") == base0 + 1,
			  "the second block is not counted on base pages");
		/* tried again though base faults were cheaper (the first retry is
		 * due at once): advised, then its advice taken back, whether its
		 * own fault was timed (and slow) or got no huge page */
		CHECK_MSG(vm_flag(b + 8 * MIB, " nh"), "the second block was not tried again (no nh): fault.probes %lld",
			  report_num(rep, "fault.probes"));
		CHECK(b && b[0] == 0x22 && b[16 * MIB - 1] == 0x22);
		free(b);
	}
	CHECK(a && a[0] == 0x11 && a[16 * MIB - 1] == 0x11);
	free(a);
	return check_result("test_fault_probe");
}
