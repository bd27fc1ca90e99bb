/* test_tlb_lock.c - the hugetlb mapping table's lock (white box: the lock's
 * source is compiled into the test, so its owner word can be read).
 * usage: test_tlb_lock handler|sleep
 *   handler: one thread takes and gives back the lock in a loop while
 *     another sends it signals whose handler takes and gives back the lock
 *     too (as a handler that forks or frees does), and a third thread
 *     contends: the looping thread must own the lock all through each hold
 *     and no two threads may be inside at once.
 *   sleep: a thread that waits while another holds the lock for 300 ms
 *     must sleep, not spend the wait on the CPU. */
#define _GNU_SOURCE
#include "../pages/hugetlb_map_lock.c"
#include "check.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static atomic_int stop;
static atomic_long broken, overlaps, handled, contended;
static volatile int inside;             /* who is inside, 0 nobody */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void on_usr1(int sig)
{
	(void)sig;
	uintptr_t self = (uintptr_t)pthread_self();
	hp_tlb_lock();
	if (atomic_load(&owner) != self)
		atomic_fetch_add(&broken, 1);
	hp_tlb_unlock();
	atomic_fetch_add(&handled, 1);
}

/* a critical section: nobody else may be inside meanwhile */
static void critical(int who)
{
	if (inside != 0)
		atomic_fetch_add(&overlaps, 1);
	inside = who;
	for (volatile int i = 0; i < 20; i++)
		;
	if (inside != who)
		atomic_fetch_add(&overlaps, 1);
	inside = 0;
}

static void *contender(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		hp_tlb_lock();
		critical(2);
		hp_tlb_unlock();
		atomic_fetch_add(&contended, 1);
	}
	return NULL;
}

static void *sender(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	while (!atomic_load(&stop))
		pthread_kill(target, SIGUSR1);
	return NULL;
}

static int handler_mode(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t self = pthread_self(), snd, cnt;
	pthread_create(&cnt, NULL, contender, NULL);
	pthread_create(&snd, NULL, sender, &self);
	long holds = 0;
	for (double end = now() + 3; now() < end; holds++) {
		hp_tlb_lock();
		if (atomic_load(&owner) != (uintptr_t)self)
			atomic_fetch_add(&broken, 1);
		critical(1);
		if (atomic_load(&owner) != (uintptr_t)self)
			atomic_fetch_add(&broken, 1);
		hp_tlb_unlock();
	}
	atomic_store(&stop, 1);
	pthread_join(snd, NULL);
	pthread_join(cnt, NULL);
	printf("%ld holds, %ld handlers, %ld contender holds, %ld lost ownerships, %ld overlaps\n", holds,
	       atomic_load(&handled), atomic_load(&contended), atomic_load(&broken), atomic_load(&overlaps));
	CHECK(atomic_load(&handled) > 1000 && atomic_load(&contended) > 0);
	CHECK_MSG(atomic_load(&broken) == 0, "a handler released the lock its thread held");
	CHECK_MSG(atomic_load(&overlaps) == 0, "two threads inside at once");
	return check_result("test_tlb_lock handler");
}

static atomic_int waiter_done;
static double waiter_cpu;

static void *waiter(void *arg)
{
	(void)arg;
	hp_tlb_lock();
	hp_tlb_unlock();
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	waiter_cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	atomic_store(&waiter_done, 1);
	return NULL;
}

static int sleep_mode(void)
{
	pthread_t w;
	hp_tlb_lock();
	pthread_create(&w, NULL, waiter, NULL);
	struct timespec hold = { 0, 300 * 1000 * 1000 };
	nanosleep(&hold, NULL);
	CHECK_MSG(!atomic_load(&waiter_done), "the waiter got in while the lock was held");
	hp_tlb_unlock();
	pthread_join(w, NULL);
	printf("the waiter spent %.1f ms on the CPU during a 300 ms hold\n", waiter_cpu * 1e3);
	CHECK_MSG(waiter_cpu < 0.03, "the waiter spun: %.1f ms of CPU", waiter_cpu * 1e3);
	return check_result("test_tlb_lock sleep");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "sleep") == 0)
		return sleep_mode();
	return handler_mode();
}
