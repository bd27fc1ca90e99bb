/* racer.c - libracer.so: its constructor runs before hugepolicy's (it comes
 * after libhugepolicy in the host's DT_NEEDED list, and the loader
 * initialises later entries first), starts 8 threads that wait at a
 * barrier and then all make their first allocation at once.  The host
 * checks racer_ok afterwards. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define ROUNDS 2000

int racer_ok;
int racer_threads = THREADS;
static pthread_barrier_t start;
static int results[THREADS];

static void *run(void *arg)
{
	int id = (int)(intptr_t)arg, ok = 1;
	pthread_barrier_wait(&start);
	for (int r = 0; r < ROUNDS && ok; r++) {
		size_t n = 16 + (size_t)((r * 7919 + id * 104729) % 70000);
		unsigned char *a = malloc(n), *b = calloc(1, n), *c = NULL;
		ok = a && b && posix_memalign((void **)&c, 64, n) == 0 && c;
		if (!ok)
			break;
		memset(a, id, n);
		memset(c, id + 1, n);
		ok = b[n - 1] == 0 && a[n - 1] == (unsigned char)id;
		a = realloc(a, n * 2);
		ok = ok && a && a[n - 1] == (unsigned char)id && c[0] == (unsigned char)(id + 1);
		free(a);
		free(b);
		free(c);
	}
	results[id] = ok;
	return NULL;
}

__attribute__((constructor)) static void race_first_allocation(void)
{
	pthread_t t[THREADS];
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, run, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	racer_ok = 0;
	for (int i = 0; i < THREADS; i++)
		racer_ok += results[i];
}
