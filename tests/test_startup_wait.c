/* test_startup_wait.c - white box, hugepolicy linked statically: a thread
 * that allocates while another thread is inside start-up waits for it and
 * then gets a block from the selected backend (not the bootstrap arena).
 * glibc's pthread_create callocs the new thread's DTV, so an ordinary race
 * always finishes start-up in the creating thread; here the start-up hook
 * (init.c) starts the second thread from inside start-up and holds start-up
 * until that thread is seen waiting in malloc. */
#define _GNU_SOURCE
#include "../integration/hp_dispatch.h"
#include "check.h"

#include <hugepolicy.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

static atomic_int entered, returned, held_while_waiting;
static void *early_block;
static pthread_t waiter;

static void *allocate(void *arg)
{
	(void)arg;
	atomic_store(&entered, 1);
	early_block = malloc(1000);     /* start-up is running in the other thread */
	atomic_store(&returned, 1);
	return NULL;
}

void hp_test_during_start_up(void)
{
	if (pthread_create(&waiter, NULL, allocate, NULL) != 0)
		return;
	/* hold start-up until the thread is in malloc, then 50 ms more: it
	 * must still be waiting there (not served from the bootstrap arena) */
	for (int i = 0; i < 2000 && !atomic_load(&entered); i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	atomic_store(&held_while_waiting, atomic_load(&entered) && !atomic_load(&returned));
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	pthread_join(waiter, NULL);
	CHECK_MSG(atomic_load(&held_while_waiting), "the second thread did not wait for start-up");
	CHECK(early_block != NULL && !hp_boot_owns(early_block));
	CHECK_MSG(strcmp(hugepolicy_backend(), want) == 0, "backend %s", hugepolicy_backend());
	if (early_block) {
		memset(early_block, 1, 1000);
		CHECK(malloc_usable_size(early_block) >= 1000);
		free(early_block);
	}
	return check_result("test_startup_wait");
}
