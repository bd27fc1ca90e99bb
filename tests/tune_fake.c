/*
 * tune_fake - a command for `hugepolicy tune`'s tests whose cost depends
 * on the configuration it runs under, so the right recommendation is known.
 * Its configuration is read from the environment tune sets:
 * HUGEPOLICY_BACKEND/HUGEPOLICY_PAGES ("jemalloc/thp"), else the peers'
 * MALLOC_CONF, MIMALLOC_LARGE_OS_PAGES, GLIBC_TUNABLES.
 *   tune_fake sleep CONFIG   sleeps 5 ms under CONFIG, 60 ms under any other
 *   tune_fake print CONFIG   prints "cost: 40" under CONFIG, "cost: 100" otherwise
 *   tune_fake printerr CONFIG  the same on standard error
 *   tune_fake same           prints the same line under every configuration
 *   tune_fake name           prints its configuration's name
 *   tune_fake fail CONFIG    exits 3 under CONFIG, 0 otherwise
 *   tune_fake hold           64 MiB, 2 MiB-aligned, MADV_HUGEPAGE, filled, held 400 ms
 *   tune_fake mhold          64 MiB from malloc, filled, held 400 ms
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static void config(char *buf, size_t cap)
{
	const char *b = getenv("HUGEPOLICY_BACKEND"), *p = getenv("HUGEPOLICY_PAGES");
	const char *tun = getenv("GLIBC_TUNABLES");
	if (b && p)
		snprintf(buf, cap, "%s/%s", b, p);
	else if (getenv("MALLOC_CONF"))
		snprintf(buf, cap, "native-jemalloc/thp");
	else if (getenv("MIMALLOC_LARGE_OS_PAGES"))
		snprintf(buf, cap, "native-mimalloc/thp");
	else if (tun && strstr(tun, "glibc.malloc.hugetlb"))
		snprintf(buf, cap, "native-glibc/thp");
	else
		snprintf(buf, cap, "none");
}

int main(int argc, char **argv)
{
	char me[96];
	config(me, sizeof me);
	const char *what = argc > 1 ? argv[1] : "";
	int chosen = argc > 2 && strcmp(me, argv[2]) == 0;
	if (strcmp(what, "sleep") == 0 && argc > 2) {
		struct timespec t = { 0, chosen ? 5000000 : 60000000 };
		while (nanosleep(&t, &t) != 0)
			;
		return 0;
	}
	if ((strcmp(what, "print") == 0 || strcmp(what, "printerr") == 0) && argc > 2) {
		fprintf(what[5] ? stderr : stdout, "cost: %d\n", chosen ? 40 : 100);
		return 0;
	}
	if (strcmp(what, "same") == 0) {
		printf("the same output\n");
		return 0;
	}
	if (strcmp(what, "name") == 0) {
		printf("%s\n", me);
		return 0;
	}
	if (strcmp(what, "hold") == 0) {
		size_t len = 64u << 20, huge = 2u << 20;
		char *p = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		char *a = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
		madvise(a, len, MADV_HUGEPAGE);
		memset(a, 1, len);
		struct timespec t = { 0, 400000000 };
		while (nanosleep(&t, &t) != 0)
			;
		return a[len / 2] != 1;
	}
	if (strcmp(what, "mhold") == 0) {
		size_t len = 64u << 20;
		char *p = malloc(len);
		if (!p)
			return 1;
		memset(p, 1, len);
		struct timespec t = { 0, 400000000 };
		while (nanosleep(&t, &t) != 0)
			;
		int bad = p[len / 2] != 1;
		free(p);
		return bad;
	}
	if (strcmp(what, "fail") == 0 && argc > 2)
		return chosen ? 3 : 0;
	fprintf(stderr, "usage: tune_fake sleep|print|printerr|fail CONFIG | same | name\n");
	return 2;
}
