/*
 * fill64 - malloc a 64 MiB buffer, fill it, free it, eight times: the
 * page-fault-bound case `hugepolicy tune` is tried on.  Standard output
 * (the same in every configuration): what was filled and a checksum;
 * standard error: the time the eight fills took, "fill64: N ms".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIZE (64u << 20)
#define TIMES 8

int main(void)
{
	struct timespec t0, t1;
	unsigned long sum = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < TIMES; i++) {
		unsigned char *p = malloc(SIZE);
		if (!p) {
			perror("fill64: malloc");
			return 1;
		}
		memset(p, i + 1, SIZE);
		for (size_t k = 0; k < SIZE; k += 4096)
			sum += p[k];
		free(p);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("fill64: %d x %u MiB, checksum %lu\n", TIMES, SIZE >> 20, sum);
	fprintf(stderr, "fill64: %.1f ms\n", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	return 0;
}
