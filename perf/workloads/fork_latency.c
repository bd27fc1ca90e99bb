/*
 * fork_latency.c - how long fork() takes in a process with a big heap.
 * The process allocates --mib MiB in blocks of --block-mib (4) MiB, writes
 * every byte, starts --threads - 1 (1) more threads that sleep, then forks
 * --forks (10) times; each child exits at once, and the parent times the
 * fork() call (its return in the parent) and reaps the child before the
 * next.  Whatever the allocator and page policy of the process (hugepolicy's
 * when preloaded) decide the cost.
 * prints: fork-latency mib=M forks=F median_s=A max_s=B min_s=C
 */
#define _GNU_SOURCE
#include "hp_clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_int stop;

static void *sleeper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		usleep(1000);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long mib = 1024, block = 4, forks = 10, threads = 2;
	for (int i = 1; i + 1 < argc; i += 2) {
		long v = strtol(argv[i + 1], NULL, 10);
		if (v <= 0)
			goto usage;
		if (strcmp(argv[i], "--mib") == 0) mib = v;
		else if (strcmp(argv[i], "--block-mib") == 0) block = v;
		else if (strcmp(argv[i], "--forks") == 0 && v <= 1000) forks = v;
		else if (strcmp(argv[i], "--threads") == 0 && v <= 64) threads = v;
		else goto usage;
	}
	if (argc % 2 == 0)
		goto usage;
	long n = (mib + block - 1) / block;
	for (long i = 0; i < n; i++) {
		unsigned char *p = malloc((size_t)block << 20);
		if (!p) {
			fprintf(stderr, "fork_latency: malloc of block %ld failed\n", i);
			return 1;
		}
		memset(p, (int)(1 + i % 255), (size_t)block << 20);
	}
	pthread_t t[64];
	for (long i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, sleeper, NULL);
	double *d = calloc((size_t)forks, sizeof *d);
	for (long f = 0; f < forks; f++) {
		fflush(stdout);
		double t0 = hp_now();
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		d[f] = hp_now() - t0;
		if (pid < 0) {
			perror("fork_latency: fork");
			return 1;
		}
		waitpid(pid, NULL, 0);
	}
	atomic_store(&stop, 1);
	for (long i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	qsort(d, (size_t)forks, sizeof *d, cmp_double);
	printf("fork-latency mib=%ld forks=%ld median_s=%.6f max_s=%.6f min_s=%.6f\n", mib, forks, d[forks / 2],
	       d[forks - 1], d[0]);
	free(d);
	return 0;
usage:
	fprintf(stderr, "usage: fork_latency [--mib 1024] [--block-mib 4] [--forks 10] [--threads 2]\n");
	return 2;
}
