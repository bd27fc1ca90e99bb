/*
 * region_report_windows.c - what hugepolicy.h offers besides regions, on
 * Windows, where hugepolicy replaces no malloc: the version, and the report
 * (hugepolicy_report) with the regions' numbers - how many, and their bytes
 * by the kind each got.  hugepolicy_stats, _backend and _pages are Linux's
 * (there is no backend here); HUGEPOLICY_STATS at exit is not read.
 */
#include "hp_region.h"

#include <errno.h>
#include <io.h>
#include <stdio.h>
#include <windows.h>

#ifndef HP_VERSION
#define HP_VERSION "0.0.0"
#endif

HP_REGION_API const char *hugepolicy_version(void)
{
	return HP_VERSION;
}

HP_REGION_API int hugepolicy_report(int fd, unsigned flags)
{
	char text[640];
	struct hp_region_stats s;
	hp_region_stats(&s);
	unsigned long pid = (unsigned long)GetCurrentProcessId();
	int n;
	/* the keys of the Linux report that mean something here, in its order */
	if (flags & HUGEPOLICY_REPORT_JSON)
		n = snprintf(text, sizeof text, "hugepolicy-stats: {\"pid\":%lu,\"version\":\"%s\",\"plan.backend\":\"none\","
			     "\"region.count\":%llu,\"region.hugetlb_bytes\":%llu,\"region.thp_bytes\":%llu,"
			     "\"region.base_bytes\":%llu,\"region.stepped_down\":%llu}\n", pid, HP_VERSION,
			     (unsigned long long)s.regions, (unsigned long long)s.hugetlb_bytes,
			     (unsigned long long)s.thp_bytes, (unsigned long long)s.base_bytes,
			     (unsigned long long)s.stepped_down);
	else
		n = snprintf(text, sizeof text, "hugepolicy[%lu]: report\n  %-22s %lu\n  %-22s %s\n  %-22s none\n"
			     "  %-22s %llu\n  %-22s %llu\n  %-22s %llu\n  %-22s %llu\n  %-22s %llu\n", pid, "pid", pid,
			     "version", HP_VERSION, "plan.backend",
			     "region.count", (unsigned long long)s.regions, "region.hugetlb_bytes",
			     (unsigned long long)s.hugetlb_bytes, "region.thp_bytes", (unsigned long long)s.thp_bytes,
			     "region.base_bytes", (unsigned long long)s.base_bytes, "region.stepped_down",
			     (unsigned long long)s.stepped_down);
	if (n < 0)
		return EINVAL;
	for (int done = 0; done < n && done < (int)sizeof text;) {
		int w = _write(fd, text + done, (unsigned)(n - done));
		if (w <= 0)
			return errno ? errno : EIO;
		done += w;
	}
	return 0;
}
