/*
 * jemalloc_arenas.c - every automatic jemalloc arena created at start-up
 * when mmap may fail later.
 *
 * jemalloc 5.3 gives a thread its own arena on its first allocation, up to
 * opt.narenas (4 per CPU), creating it then.  When that creation cannot map
 * memory - address space exhausted under RLIMIT_AS or RLIMIT_DATA, or the
 * commit limit of vm.overcommit_memory=2 - jemalloc dereferences the NULL
 * arena (tcache_arena_associate: SIGSEGV, native jemalloc too; seen 6 of 6
 * runs of tests/test_thread_after_exhaustion.c).  With every arena created
 * while memory is there, a new thread picks an existing one and a failed
 * allocation is NULL with ENOMEM.  Cost: about 84 KiB resident and 2 MiB of
 * address space per arena, so it is done only where mmap can fail.
 * Creation is jemalloc's own: writing "thread.arena" initialises the arena
 * named (jemalloc(3)); the thread is moved back afterwards.
 */
#include "hp_backend.h"

#include <stdbool.h>
#include <sys/resource.h>

static unsigned created;
static const char *why;

static const char *mmap_may_fail(void)
{
	struct rlimit r;
	if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
		return "RLIMIT_AS";
	if (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
		return "RLIMIT_DATA";
	char buf[8];
	if (hp_read_small("/proc/sys/vm/overcommit_memory", buf, sizeof buf) > 0 && buf[0] == '2')
		return "vm.overcommit_memory=2";
	return NULL;
}

void hp_jemalloc_arenas_prepare(void)
{
	why = mmap_may_fail();
	if (!why)
		return;
	unsigned n = 0, home = 0;
	size_t len = sizeof n;
	if (hpje_mallctl("opt.narenas", &n, &len, NULL, 0) != 0)
		return;
	len = sizeof home;
	if (hpje_mallctl("thread.arena", &home, &len, NULL, 0) != 0)
		return;
	for (unsigned i = 0; i < n; i++)
		if (hpje_mallctl("thread.arena", NULL, NULL, &i, sizeof i) == 0)
			created++;
	hpje_mallctl("thread.arena", NULL, NULL, &home, sizeof home);
}

void hp_jemalloc_arenas_describe(struct hp_buf *b)
{
	if (why)
		hp_buf_printf(b, ", %u arenas created at start-up (%s)", created, why);
}
