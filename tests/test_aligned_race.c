/* test_aligned_race.c - a refused aligned hugetlb block never unmaps
 * another thread's memory.  One thread asks for 4 MiB-aligned 8 MiB blocks
 * that a cgroup limit (hugetlb_cgroup.sh, 1 page) refuses at populate time;
 * another maps, fills, checks and unmaps 8 MiB regions of its own.  The
 * page layer used to unmap its "placeholder" again after a refusal, by then
 * possibly the other thread's new mapping (SIGSEGV, 3 of 3 runs).
 * usage: test_aligned_race SECONDS */
#define _GNU_SOURCE
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static atomic_int stop;
static atomic_long rounds, victim_rounds;

static void *aligner(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		void *p = NULL;
		if (posix_memalign(&p, 4u << 20, 8u << 20) == 0) {
			memset(p, 1, 8u << 20);
			free(p);
		}
		atomic_fetch_add(&rounds, 1);
	}
	return NULL;
}

static void *victim(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		unsigned char *m = mmap(NULL, 8u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			continue;
		for (size_t i = 0; i < (8u << 20); i += 4096)
			m[i] = (unsigned char)i;        /* SIGSEGV if someone unmapped it */
		munmap(m, 8u << 20);
		atomic_fetch_add(&victim_rounds, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t a, v;
	pthread_create(&a, NULL, aligner, NULL);
	pthread_create(&v, NULL, victim, NULL);
	nanosleep(&(struct timespec){ secs, 0 }, NULL);
	atomic_store(&stop, 1);
	pthread_join(a, NULL);
	pthread_join(v, NULL);
	printf("%ld aligned rounds, %ld victim rounds, no SIGSEGV\n", atomic_load(&rounds), atomic_load(&victim_rounds));
	CHECK(atomic_load(&rounds) > 0 && atomic_load(&victim_rounds) > 0);
	return check_result("test_aligned_race");
}
