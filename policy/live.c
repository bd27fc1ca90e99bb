/*
 * live.c - the hook through which the page layer and the regions say that
 * a number of the report changed (hp_live_changed): the library registers
 * the writer of its live block there at start-up (integration/live.c);
 * before that, and in the CLI, nothing happens.
 */
#include "hp_policy.h"

#include <stdatomic.h>

static void (*_Atomic writer)(void);

void hp_live_set_writer(void (*fn)(void))
{
	atomic_store(&writer, fn);
}

void hp_live_changed(void)
{
	void (*fn)(void) = atomic_load_explicit(&writer, memory_order_acquire);
	if (fn)
		fn();
}
