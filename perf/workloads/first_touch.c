/*
 * first_touch.c - one large array, first touched by several threads in
 * interleaved chunks (chunk i by thread i mod T): the shape of the kernel
 * report where THP made a many-threaded first-touch run 1.7x slower, since
 * a huge-page fault zeroes 2 MiB that other threads' chunks share.
 * usage: first_touch [--mib 1024] [--chunk-kib 64] [--threads 0=all] [--sequential]
 *   --sequential: the threads run one after another instead of together
 * prints: first-touch mib=M chunk_kib=K threads=T wall_s=W user_s=U sys_s=S
 */
#define _GNU_SOURCE
#include "hp_clock.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char *array;
static size_t bytes, chunk;
static int threads;

static void *touch(void *arg)
{
	size_t t = (size_t)(uintptr_t)arg;
	for (size_t off = t * chunk; off < bytes; off += (size_t)threads * chunk) {
		size_t end = off + chunk < bytes ? off + chunk : bytes;
		for (size_t p = off; p < end; p += 4096)
			array[p] = (unsigned char)t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mib = 1024, chunk_kib = 64;
	int sequential = 0;
	threads = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--sequential") == 0)
			sequential = 1;
		else if (i + 1 < argc && strcmp(argv[i], "--mib") == 0)
			mib = strtoull(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--chunk-kib") == 0)
			chunk_kib = strtoull(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
			threads = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: first_touch [--mib M] [--chunk-kib K] [--threads T] [--sequential]\n");
			return 2;
		}
	}
	if (threads <= 0)
		threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (mib == 0 || chunk_kib == 0)
		return fprintf(stderr, "first_touch: sizes must be > 0\n"), 2;
	bytes = mib << 20;
	chunk = chunk_kib << 10;
	double u0, s0, u1, s1;
	hp_cpu(&u0, &s0);
	double t0 = hp_now();
	array = malloc(bytes);
	if (!array)
		return perror("malloc"), 1;
	pthread_t *t = calloc((size_t)threads, sizeof *t);
	for (int i = 0; i < threads; i++) {
		pthread_create(&t[i], NULL, touch, (void *)(uintptr_t)i);
		if (sequential)
			pthread_join(t[i], NULL);
	}
	if (!sequential)
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
	double wall = hp_now() - t0;
	hp_cpu(&u1, &s1);
	unsigned sum = 0;
	for (size_t p = 0; p < bytes; p += chunk)
		sum += array[p];
	printf("first-touch mib=%zu chunk_kib=%zu threads=%d%s wall_s=%.6f user_s=%.6f sys_s=%.6f check=%u\n",
	       mib, chunk_kib, threads, sequential ? " sequential=1" : "", wall, u1 - u0, s1 - s0, sum);
	free(t);
	free(array);
	return 0;
}
