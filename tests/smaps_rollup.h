/* smaps_rollup.h - one field of /proc/self/smaps_rollup, in kB ("Rss",
 * "Shared_Hugetlb" ...), or -1 when it cannot be read. */
#ifndef SMAPS_ROLLUP_H
#define SMAPS_ROLLUP_H

#include <stdio.h>
#include <string.h>

static inline long long smaps_rollup_kb(const char *field)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	size_t n = strlen(field);
	long long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && line[n] == ':' && sscanf(line + n + 1, "%lld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

#endif
