/*
 * malloc_loop.c - the allocator fast path: N times malloc(size) + free, one
 * thread.  Prints `malloc-loop size=S iters=N ns_per_pair=X`.  Whatever
 * allocator the process has serves it: hugepolicy's dispatch when preloaded,
 * or a backend's own library preloaded directly (the native baseline).
 * usage: malloc_loop [--size S] [--iters N]
 */
#define _POSIX_C_SOURCE 199309L
#include "hp_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t size = 32;
	long iters = 20000000;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--size") == 0)
			size = strtoull(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--iters") == 0)
			iters = strtol(argv[i + 1], NULL, 10);
		else {
			fprintf(stderr, "usage: malloc_loop [--size S] [--iters N]\n");
			return 2;
		}
	}
	void *volatile sink;
	double t0 = hp_now();
	for (long i = 0; i < iters; i++) {
		void *p = malloc(size);
		sink = p;
		free(p);
	}
	double t = hp_now() - t0;
	(void)sink;
	printf("malloc-loop size=%zu iters=%ld ns_per_pair=%.2f\n", size, iters, t * 1e9 / (double)iters);
	return 0;
}
