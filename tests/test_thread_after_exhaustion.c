/* test_thread_after_exhaustion.c - a thread whose first allocation comes
 * after the address space is exhausted (run under `ulimit -v`, see
 * tests/cstd.cmake): its malloc returns a block or NULL with ENOMEM, and the
 * process lives (jemalloc 5.3 dereferenced a NULL arena: SIGSEGV 6/6 at
 * ec80aa6).  The thread's stack is mapped before the exhaustion. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *worker(void *arg)
{
	int *res = arg;
	void *p = malloc(16);
	res[0] = p != NULL;
	res[1] = p ? 0 : errno;
	if (p) { memset(p, 1, 16); free(p); }
	void *q = malloc(100000);
	res[2] = q != NULL;
	free(q);
	return NULL;
}

int main(void)
{
	size_t stack_size = 1 << 20;
	void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED) { perror("mmap"); return 1; }
	static void *keep[1 << 16];
	size_t n = 0;
	while (n < sizeof keep / sizeof keep[0] && (keep[n] = malloc(1 << 20)) != NULL)
		n++;
	size_t small = 0;
	while (malloc(4096)) small++;
	printf("exhausted after %zu MiB + %zu pages\n", n, small);
	for (size_t i = 0; i < 4 && i < n; i++) free(keep[--n]);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, stack, stack_size);
	int res[3] = { -1, -1, -1 };
	pthread_t t;
	int rc = pthread_create(&t, &a, worker, res);
	if (rc) { printf("pthread_create: %s\n", strerror(rc)); return 1; }
	pthread_join(t, NULL);
	printf("thread: malloc(16) %s (errno %d), malloc(100000) %s\n", res[0] ? "ok" : "NULL", res[1], res[2] ? "ok" : "NULL");
	if (!res[0] && res[1] != ENOMEM) {
		printf("FAIL: a failed malloc must leave ENOMEM\n");
		return 1;
	}
	printf("test_thread_after_exhaustion: ok\n");
	return 0;
}
