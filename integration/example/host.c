/*
 * host.c - a tiny host that links -lhugepolicy and does nothing else special:
 * it allocates a large table, fills it, and prints what the process got.
 *   HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_PAGES=thp ./example_host 256
 */
#include <hugepolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 64;
	unsigned char *table = malloc(mib << 20);
	if (!table) {
		perror("malloc");
		return 1;
	}
	memset(table, 1, mib << 20);
	struct hugepolicy_stats st = { .size = sizeof st };
	if (hugepolicy_stats(&st) != 0)
		return 1;
	printf("backend %s, pages %s (asked %s)\n%s\n", st.backend, st.pages_effective,
	       st.pages_requested, st.config);
	printf("table %zu MiB: AnonHugePages %llu MiB, Hugetlb %llu MiB, Rss %llu MiB\n", mib,
	       (unsigned long long)(st.anon_huge >> 20), (unsigned long long)(st.hugetlb >> 20),
	       (unsigned long long)(st.rss >> 20));
	free(table);
	return 0;
}
