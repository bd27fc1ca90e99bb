/* thp_enabled.h - whether THP is enabled now (madvise or always), for the
 * tests that skip (exit 77) without it. */
#ifndef THP_ENABLED_H
#define THP_ENABLED_H

#include <stdio.h>
#include <string.h>

static inline int thp_enabled_now(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof buf, f))
		buf[0] = 0;
	fclose(f);
	return strstr(buf, "[always]") || strstr(buf, "[madvise]");
}

#endif
