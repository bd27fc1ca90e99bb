/* test_unselected.c - white box, hugepolicy linked statically: a backend
 * that is not selected never runs.  The embedded jemalloc stays
 * uninitialised (its malloc_init_state is still "uninitialized"),
 * libmimalloc.so.2 is not even mapped, and no backend started a thread. */
#include "check.h"

#include <hugepolicy.h>
#include <string.h>

/* jemalloc 5.3 src/jemalloc.c: malloc_init_uninitialized = 3 */
extern int je_malloc_init_state;
#define JE_UNINITIALIZED 3

static int file_has(const char *path, const char *needle)
{
	char buf[1 << 16];
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	void *p = malloc(100);
	free(p);
	CHECK(strcmp(hugepolicy_backend(), want) == 0);
	int je_ran = je_malloc_init_state != JE_UNINITIALIZED;
	int mi_mapped = file_has("/proc/self/maps", "libmimalloc");
	CHECK_MSG(je_ran == (strcmp(want, "jemalloc") == 0), "jemalloc init state %d", je_malloc_init_state);
	CHECK_MSG(mi_mapped == (strcmp(want, "mimalloc") == 0), "libmimalloc mapped: %d", mi_mapped);
	CHECK_MSG(file_has("/proc/self/status", "\nThreads:\t1\n") == 1, "a backend started a thread");
	return check_result("test_unselected");
}
