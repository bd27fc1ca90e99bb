/* smaps_vma.h - one field of the /proc/self/smaps entry of the mapping that
 * holds an address, for the tests that ask the kernel what a block got. */
#ifndef SMAPS_VMA_H
#define SMAPS_VMA_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The line "FIELD ..." (field with its colon, e.g. "VmFlags:") of the
 * mapping holding p into out: 1, or 0 if p is in no mapping or it has no
 * such field. */
static inline int smaps_vma_field(const void *p, const char *field, char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, found = 0;
	size_t n = strlen(field);
	uintptr_t a = (uintptr_t)p;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = a >= lo && a < hi;
		} else if (in && strncmp(line, field, n) == 0) {
			snprintf(out, cap, "%s", line);
			found = 1;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* KernelPageSize of the mapping holding p, in kB; -1 if none */
static inline long smaps_vma_page_kb(const void *p)
{
	char line[512];
	long kb = -1;
	if (smaps_vma_field(p, "KernelPageSize:", line, sizeof line))
		sscanf(line, "KernelPageSize: %ld", &kb);
	return kb;
}

#endif
