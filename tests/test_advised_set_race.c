/* test_advised_set_race.c - white box, hugepolicy linked statically: the
 * set of big blocks (pages/advised_set.c) never loses a block to its own
 * rebuild.  Its lookups take no lock, and a rebuild (after every 2048
 * deletes) empties and refills the table and its filter: a free that
 * looked meanwhile missed its block, which then kept its advice and stayed
 * in the set.
 * usage: test_advised_set_race
 *
 * A reader thread keeps 1000 blocks in the set and looks each up again
 * and again (hp_advised_set_maybe, and now and then hp_advised_set_forget
 * and a put back), while a writer puts and takes out 2 000 000 blocks of
 * its own, one at a time (a rebuild every 2048 of them): the reader must
 * find every one of its blocks every time, and at the end none of the
 * writer's is left in the set. */
#define _GNU_SOURCE
#include "../pages/hp_pages.h"
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 2000000u
#define KEPT 1000u
#define BLOCK ((uintptr_t)4 << 20)

static atomic_long missed_filter, missed_forget;
static atomic_int writing = 1;

static uintptr_t addr(uintptr_t thread, unsigned i)
{
	/* apart by a block, per thread its own range: no address is shared */
	return ((uintptr_t)0x100000000000 + thread * ((uintptr_t)1 << 40)) + (uintptr_t)(i % 4096) * BLOCK;
}

static void *writer(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < ROUNDS; i++) {
		void *p = (void *)addr(1, i);
		if (hp_advised_set_put(p, BLOCK))
			hp_advised_set_forget(p);
	}
	atomic_store(&writing, 0);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < KEPT; i++)
		hp_advised_set_put((void *)addr(0, i), BLOCK);
	for (unsigned long k = 0; atomic_load(&writing); k++) {
		void *p = (void *)addr(0, (unsigned)(k % KEPT));
		if (!hp_advised_set_maybe(p))
			atomic_fetch_add(&missed_filter, 1);
		if (k % 16 == 0) {
			if (!hp_advised_set_forget(p))
				atomic_fetch_add(&missed_forget, 1);
			hp_advised_set_put(p, BLOCK);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t r, w;
	CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
	CHECK(pthread_create(&w, NULL, writer, NULL) == 0);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	long left = 0, kept = 0;
	for (unsigned i = 0; i < 4096; i++)
		left += hp_advised_set_forget((void *)addr(1, i));
	for (unsigned i = 0; i < KEPT; i++)
		kept += hp_advised_set_forget((void *)addr(0, i));
	printf("the reader's lookups that missed its block: filter %ld, forget %ld; the writer's blocks left in the "
	       "set %ld; the reader's %ld of %u\n", atomic_load(&missed_filter), atomic_load(&missed_forget), left,
	       kept, KEPT);
	CHECK(atomic_load(&missed_filter) == 0);
	CHECK(atomic_load(&missed_forget) == 0);
	CHECK(left == 0);
	CHECK(kept == KEPT);
	return check_result("test_advised_set_race");
}
