/*
 * jemalloc_arenas.c - every automatic jemalloc arena created at start-up
 * when mmap may fail later.
 *
 * jemalloc 5.3 gives a thread its own arena on its first allocation, up to
 * opt.narenas (4 per CPU), creating it then.  When that creation cannot map
 * memory - address space exhausted under RLIMIT_AS or RLIMIT_DATA, or the
 * commit limit of vm.overcommit_memory=2 - jemalloc dereferences the NULL
 * arena (tcache_arena_associate: SIGSEGV, native jemalloc too;
 * tests/test_thread_after_exhaustion.c).  With every arena created while
 * memory is there, a new thread picks an existing one and a failed
 * allocation is NULL with ENOMEM.  Each arena costs resident memory and
 * address space, so this is done only where mmap can fail.
 * Creation is jemalloc's own: writing "thread.arena" initialises the arena
 * named (jemalloc(3)); the thread is moved back afterwards.  Under
 * HUGEPOLICY_PAGES=hugetlb they are all created too, to get hugepolicy's
 * extent hooks (jemalloc_hugetlb.c).
 */
#include "hp_jemalloc.h"

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

unsigned hp_jemalloc_arenas_create(const char *reason)
{
	unsigned n = 0, home = 0;
	size_t len = sizeof n;
	if (hpje_mallctl("opt.narenas", &n, &len, NULL, 0) != 0)
		return 0;
	len = sizeof home;
	if (hpje_mallctl("thread.arena", &home, &len, NULL, 0) != 0)
		return 0;
	unsigned made = 0;
	for (unsigned i = 0; i < n; i++)
		if (hpje_mallctl("thread.arena", NULL, NULL, &i, sizeof i) == 0)
			made++;
	hpje_mallctl("thread.arena", NULL, NULL, &home, sizeof home);
	if (!why && reason) {
		why = reason;
		created = made;
	}
	return n;
}

void hp_jemalloc_arenas_prepare(void)
{
	const char *r = mmap_may_fail();
	if (r)
		hp_jemalloc_arenas_create(r);
}

/* jemalloc maps arena 0's first 2 MiB during its own start-up, before any
 * extent hook can be set, and would serve the first blocks from it: under
 * hugetlb that memory is taken now by 16 KiB blocks (jemalloc's smallest
 * large size) that are never freed nor touched - address space only,
 * MAP_NORESERVE, no page faulted in - until one comes from memory the
 * hooks mapped (past_start), which is given back.  Pieces below 16 KiB
 * stay in use.  Returns the bytes set aside. */
size_t hp_jemalloc_arena0_set_aside(int (*past_start)(const void *p))
{
	const int flags = (1 << 20) | (1 << 8);   /* MALLOCX_ARENA(0) | MALLOCX_TCACHE_NONE */
	size_t aside = 0;
	for (int i = 0; i < 1024; i++) {          /* 16 MiB at most */
		void *p = hpje_mallocx(16 << 10, flags);
		if (!p)
			break;
		if (past_start(p)) {
			hpje_dallocx(p, flags);
			break;
		}
		aside += 16 << 10;
	}
	return aside;
}

void hp_jemalloc_arenas_settings(struct hp_backend_settings *s)
{
	if (!why)
		return;
	s->have |= HP_BS_ARENAS;
	s->arenas_created = created;
	hp_strlcpy(s->arenas_reason, why, sizeof s->arenas_reason);
}
