/* test_fork.c - fork() while other threads allocate and free, small and
 * huge-page-sized blocks: every child can still allocate and free (no lock
 * left held across fork) and exits 0, under the backend named in argv[1]. */
#define _GNU_SOURCE
#include "check.h"

#include <hugepolicy.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_int stop;

static void *churn(void *arg)
{
	size_t big = (size_t)(uintptr_t)arg;
	while (!atomic_load(&stop)) {
		char *a = malloc(big), *b = malloc(100);
		if (a)
			a[0] = a[big - 1] = 1;
		free(b);
		free(a);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	CHECK(strcmp(hugepolicy_backend(), want) == 0);
	pthread_t t[2];
	pthread_create(&t[0], NULL, churn, (void *)(uintptr_t)(6u << 20));
	pthread_create(&t[1], NULL, churn, (void *)(uintptr_t)4096);
	int ok = 0;
	for (int i = 0; i < 30; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			char *p = malloc(8u << 20), *q = calloc(1000, 10);
			if (!p || !q)
				_exit(1);
			memset(p, 1, 8u << 20);
			free(p);
			free(q);
			_exit(0);
		}
		int status = 0;
		waitpid(pid, &status, 0);
		ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	atomic_store(&stop, 1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	CHECK_MSG(ok == 30, "%d of 30 children ok", ok);
	return check_result("test_fork");
}
