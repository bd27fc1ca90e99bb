/* test_region_windows.c - the region API on Windows, run under wine by
 * test_region_wine.sh.  wine, like a Windows machine whose policy grants no
 * one "Lock pages in memory", refuses SeLockMemoryPrivilege: the region
 * falls back to plain pages and says why, strict mode fails with an errno,
 * and the data written reads back (also across a resize). */
#include "check.h"
#include "region_info_of.h"
#include "hugepolicy.h"

#include <errno.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

int main(void)
{
	struct hugepolicy_region_options o;
	memset(&o, 0, sizeof o);
	o.size = sizeof o;
	o.pages = HUGEPOLICY_REGION_HUGETLB;
	o.flags = HUGEPOLICY_REGION_POPULATE;
	o.threads = 2;
	unsigned char *p = hugepolicy_region_alloc(16 * MiB, &o);
	CHECK(p != NULL);
	if (!p)
		return check_result("region_windows");
	struct hugepolicy_region_info in = info_of(p);
	printf("kind %s, %llu bytes, large %llu, base resident %llu\n%s", hugepolicy_region_kind_name(in.kind),
	       (unsigned long long)in.length, (unsigned long long)in.hugetlb_bytes,
	       (unsigned long long)in.base_bytes, in.reason);
	int large = in.kind == HUGEPOLICY_REGION_HUGETLB;
	if (large) {
		printf("large pages were granted: this runs on a machine with the Lock pages in memory right\n");
		CHECK(in.hugetlb_bytes == in.length);
	} else {
		CHECK(in.kind == HUGEPOLICY_REGION_BASE);
		CHECK(strstr(in.reason, "hugetlb: large pages not used: SeLockMemoryPrivilege not held") != NULL);
		CHECK(strstr(in.reason, "base: used: 16777216 bytes (VirtualAlloc), populated by 2 threads") != NULL);
		CHECK(in.prefaulted == 1 && in.length == 16 * MiB);
		CHECK(in.base_bytes == 16 * MiB);       /* QueryWorkingSetEx: every page resident */
	}
	for (size_t i = 0; i < 16 * MiB; i += 64)
		p[i] = (unsigned char)(i / 64 * 13 + 1);
	unsigned char *q = hugepolicy_region_resize(p, 24 * MiB);
	CHECK(q != NULL);
	if (q) {
		int bad = 0;
		for (size_t i = 0; i < 16 * MiB; i += 64)
			bad += q[i] != (unsigned char)(i / 64 * 13 + 1);
		for (size_t i = 16 * MiB; i < 24 * MiB; i += 4096)
			bad += q[i] != 0;
		CHECK_MSG(bad == 0, "%d bytes differ after the resize", bad);
		in = info_of(q);
		CHECK(in.length == 24 * MiB && strstr(in.reason, "resize: a ") != NULL);
		printf("resized: %s", in.reason);
		CHECK(hugepolicy_region_free(q) == 0);
	}
	o.flags = HUGEPOLICY_REGION_STRICT;
	errno = 0;
	void *s = hugepolicy_region_alloc(4 * MiB, &o);
	if (!large)
		CHECK_MSG(s == NULL && errno == EOPNOTSUPP, "strict large pages: %p errno %d", s, errno);
	hugepolicy_region_free(s);
	o.pages = HUGEPOLICY_REGION_THP;
	errno = 0;
	CHECK(hugepolicy_region_alloc(4 * MiB, &o) == NULL && errno == EOPNOTSUPP);
	void *keep = hugepolicy_region_alloc(2 * MiB, NULL);      /* live while the report is written */
	CHECK(keep != NULL);
	fflush(stdout);
	CHECK(hugepolicy_report(1, 0) == 0);
	CHECK(hugepolicy_report(1, HUGEPOLICY_REPORT_JSON) == 0);
	printf("version %s\n", hugepolicy_version());
	hugepolicy_region_free(keep);
	return check_result("region_windows");
}
