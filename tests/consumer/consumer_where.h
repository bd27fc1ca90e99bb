/* consumer_where.h - the path of the libhugepolicy this process mapped, from
 * /proc/self/maps (so a test can tell which copy the loader found). */
#ifndef CONSUMER_WHERE_H
#define CONSUMER_WHERE_H
#include <stdio.h>
#include <string.h>

static inline const char *consumer_where(char *out, size_t cap)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	snprintf(out, cap, "none");
	if (!f)
		return out;
	while (fgets(line, sizeof line, f)) {
		char *path = strchr(line, '/');
		if (path && strstr(path, "/libhugepolicy.so")) {
			path[strcspn(path, "\n")] = '\0';
			snprintf(out, cap, "%s", path);
			break;
		}
	}
	fclose(f);
	return out;
}
#endif
