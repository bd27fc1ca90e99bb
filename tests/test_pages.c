/* test_pages.c - what the kernel says the process got.
 * usage: test_pages BACKEND EXPECT [MiB]
 *   EXPECT: thp (AnonHugePages >= half the buffer), hugetlb (Hugetlb >= half),
 *           none (both 0), thp-fallback (thp, and the page layer counted a
 *           hugetlb fallback), large (AnonHugePages + Hugetlb >= half: mimalloc's
 *           large_os_pages takes hugetlb pages first when the pool has any),
 *           thp-large (thp for the buffer, but 32 MiB more in 64 KiB blocks,
 *           below the threshold, stay on base pages: pages=auto, system thp),
 *           thp-all (thp, and those 64 KiB blocks get huge pages too: the
 *           backend's whole-heap switch, jemalloc opt.thp=always),
 *           costly (auto at fault costs under which THP does not pay: the
 *           buffer on base pages, and the report says why),
 *           measured (auto measuring the costs: the buffer on THP where the
 *           report's verdict says THP is cheaper, else on base pages).
 * Allocates the buffer with malloc, touches it, and reads
 * /proc/self/smaps_rollup through hugepolicy_stats() while it lives. */
#define _GNU_SOURCE
#include "check.h"
#include "report_keys.h"

#include <hugepolicy.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_pages BACKEND thp|thp-large|thp-all|hugetlb|none|thp-fallback|large|costly|"
			"measured [MiB]\n");
		return 2;
	}
	const char *backend = argv[1], *expect = argv[2];
	size_t mib = argc > 3 ? strtoull(argv[3], NULL, 10) : 64;
	size_t bytes = mib << 20;
	unsigned char *buf = malloc(bytes);
	CHECK(buf != NULL);
	if (!buf)
		return check_result("test_pages");
	memset(buf, 0x5a, bytes);
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	printf("backend %s pages %s (asked %s) config '%s'\n", st.backend, st.pages_effective,
	       st.pages_requested, st.config);
	printf("buffer %zu MiB: AnonHugePages %llu kB, Hugetlb %llu kB, Rss %llu kB, fallbacks %llu\n",
	       mib, (unsigned long long)(st.anon_huge >> 10), (unsigned long long)(st.hugetlb >> 10),
	       (unsigned long long)(st.rss >> 10), (unsigned long long)st.hugetlb_fallbacks);
	CHECK(strcmp(st.backend, backend) == 0);
	if (strncmp(expect, "thp", 3) == 0 && strcmp(expect, "thp-fallback") != 0) {
		CHECK(strcmp(st.pages_effective, "thp") == 0);
		CHECK(st.anon_huge >= bytes / 2);
		if (strcmp(expect, "thp") != 0) {
			enum { NSMALL = 512, SMALL = 64 << 10 };   /* 32 MiB below the 4 MiB threshold */
			static void *small[NSMALL];
			for (int i = 0; i < NSMALL; i++) {
				small[i] = malloc(SMALL);
				CHECK(small[i] != NULL);
				if (small[i])
					memset(small[i], 0x33, SMALL);
			}
			struct hugepolicy_stats st2 = { .size = sizeof st2 };
			CHECK(hugepolicy_stats(&st2) == 0);
			long long delta = (long long)st2.anon_huge - (long long)st.anon_huge;
			printf("32 MiB in 64 KiB blocks: AnonHugePages %+lld kB\n", delta / 1024);
			if (strcmp(expect, "thp-large") == 0)
				CHECK(delta <= 4 << 20);         /* slack: a neighbour's partial page */
			else
				CHECK(delta >= (long long)(NSMALL * SMALL) / 2);
			for (int i = 0; i < NSMALL; i++)
				free(small[i]);
		}
	} else if (strcmp(expect, "thp-fallback") == 0) {
		/* the plan stays hugetlb; this block fell back to THP */
		CHECK(strcmp(st.pages_effective, "hugetlb") == 0);
		CHECK(st.anon_huge >= bytes / 2);
		CHECK(st.hugetlb_fallbacks >= 1);
	} else if (strcmp(expect, "large") == 0) {
		CHECK(strcmp(st.pages_effective, "off") != 0);
		CHECK(st.anon_huge + st.hugetlb >= bytes / 2);
	} else if (strcmp(expect, "costly") == 0 || strcmp(expect, "measured") == 0) {
		char rep[8192];
		report_text(rep, sizeof rep);
		/* where the block went: the verdict, or its own first huge page's
		 * fault timed (fault.probes_base) */
		int thp = report_num(rep, "fault.blocks_thp") == 1, costly = strcmp(expect, "costly") == 0;
		printf("%s", rep);
		CHECK(strcmp(st.pages_effective, "thp") == 0);
		CHECK_MSG(report_num(rep, "fault.measurements") == (costly ? 0 : 1), "fault.measurements");
		CHECK_MSG(report_num(rep, "fault.blocks_thp") + report_num(rep, "fault.blocks_base") == 1,
			  "the block is counted once");
		CHECK_MSG(thp || costly || !report_is(rep, "fault.verdict", "yes") ||
			  report_num(rep, "fault.probes_base") == 1, "on base pages where THP pays, not said why");
		CHECK(report_num(rep, "fault.base_ns") > 0 && report_num(rep, "fault.thp_ns") > 0);
		if (costly)
			CHECK_MSG(!thp && report_has(rep, "fault.reason", "base pages cheaper"),
				  "the report does not say why");
		if (thp)
			CHECK(st.anon_huge >= bytes / 2);
		else
			CHECK(st.anon_huge < bytes / 8);
	} else if (strcmp(expect, "hugetlb") == 0) {
		CHECK(strcmp(st.pages_effective, "hugetlb") == 0);
		CHECK(st.hugetlb >= bytes / 2);
		if (getenv("HUGEPOLICY_RESERVE"))
			CHECK(strstr(st.config, "from the 2 MiB pool as a mimalloc arena") != NULL);
	} else {
		CHECK(strcmp(st.pages_effective, "off") == 0);
		CHECK(st.anon_huge == 0);
		CHECK(st.hugetlb == 0);
	}
	CHECK(buf[bytes - 1] == 0x5a && buf[0] == 0x5a);
	free(buf);
	return check_result("test_pages");
}
