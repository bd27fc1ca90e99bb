/* test_dispatch.c - white box, hugepolicy linked statically: malloc and free
 * are a check and one jump to the backend's own functions, no table of ops
 * loaded (integration/hp_dispatch.h).
 * usage: test_dispatch BACKEND direct|low|impossible
 *   direct      malloc and free jump to the backend's own functions (the
 *               published ops', malloc_small for small sizes), not the
 *               bootstrap ops' any more; every block 16-aligned
 *   low         free of NULL or a bootstrap block below HP_LOW_END stops
 *               there; any other pointer there reaches the backend
 *   impossible  malloc of more than PTRDIFF_MAX bytes is NULL with ENOMEM
 *               (run per page mode: the wrappers in front see it too) */
#define _GNU_SOURCE
#include "../integration/hp_dispatch.h"
#include "../integration/hp_init.h"
#include "check.h"

#include <errno.h>
#include <hugepolicy.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

static void start(const char *want)
{
	sink = malloc(10);              /* start-up has run (constructor), or runs now */
	free(sink);
	CHECK_MSG(strcmp(hugepolicy_backend(), want) == 0, "backend %s, want %s", hugepolicy_backend(), want);
	CHECK(hp_ops() != &hp_boot_ops);
}

static void direct(void)
{
	const struct hp_alloc_ops *o = hp_ops();
	/* the arena below HP_LOW_END: free jumps to the backend's free; else
	 * (the range taken here) to the arena's test in front of it */
	int low_arena = hp_boot_arena_now() != hp_boot_arena;
	CHECK_MSG((hp_hot(hp_free_fn) == o->free) == low_arena, "free jumps to %p, the backend's is %p",
		  (void *)hp_hot(hp_free_fn), (void *)o->free);
	CHECK_MSG(hp_hot(hp_malloc_fn) == o->malloc_large, "malloc jumps to %p, not the backend's %p",
		  (void *)hp_hot(hp_malloc_fn), (void *)o->malloc_large);
	/* small sizes: the backend's malloc_small, sizes 0-8 by way of the 16-byte request */
	for (size_t n = 0; n <= HP_SMALL_MAX; n++) {
		hp_malloc_fn_t want = n < HP_SMALL_MIN ? hp_malloc_tiny : o->malloc_small;
		CHECK_MSG(hp_hot(hp_malloc_by_size[n]) == want, "malloc(%zu) jumps to %p, not %p", n,
			  (void *)hp_hot(hp_malloc_by_size[n]), (void *)want);
	}
	for (size_t n = 0; n <= 2 * HP_SMALL_MAX; n++) {
		void *p = malloc(n);
		CHECK_MSG(p && ((uintptr_t)p & 15) == 0, "malloc(%zu) = %p: not 16-aligned", n, p);
		free(p);
	}
	/* the other ways to a new block of a tiny size, through the page
	 * layer's wrappers in thp/auto: glibc's alignment too */
	for (size_t n = 0; n <= 16; n++) {
		void *a[4] = { realloc(NULL, n), reallocarray(NULL, 1, n), calloc(1, n), NULL };
		posix_memalign(&a[3], 8, n);
		for (int k = 0; k < 4; k++) {
			CHECK_MSG(a[k] && ((uintptr_t)a[k] & 15) == 0, "way %d, size %zu: %p not 16-aligned", k,
				  n, a[k]);
			free(a[k]);
		}
	}
}

static void *forwarded;
static void record_free(void *p)
{
	forwarded = p;
}

/* free of a pointer below HP_LOW_END that is neither NULL nor the
 * bootstrap arena's still reaches the backend (a recording one here) */
static void low(void)
{
	if (hp_boot_arena_now() == hp_boot_arena) {
		printf("the range below %#lx is taken here: the arena stays in .bss\n", (unsigned long)HP_LOW_END);
		exit(77);
	}
	hp_free_fn_t was = hp_hot(hp_free_fn);
	atomic_store(&hp_free_fn, record_free);
	static volatile uintptr_t below = HP_LOW_END - 4096;     /* not a constant gcc sees */
	void *fake = (void *)below;
	free(NULL);
	CHECK_MSG(forwarded == NULL, "free(NULL) reached the backend");
	free(fake);
	CHECK_MSG(forwarded == (void *)below, "free(%#lx) reached the backend with %p", (unsigned long)below,
		  forwarded);
	forwarded = NULL;
	free(hp_boot_alloc(32, 16));
	CHECK_MSG(forwarded == NULL, "free of a bootstrap block reached the backend with %p", forwarded);
	atomic_store(&hp_free_fn, was);
}

static volatile size_t vol;

static void impossible(void)
{
	static const size_t sizes[] = { (size_t)PTRDIFF_MAX + 1, (size_t)PTRDIFF_MAX + 4096,
					SIZE_MAX - 4095, SIZE_MAX };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		vol = sizes[i];
		errno = 0;
		void *p = malloc(vol);
		CHECK_MSG(p == NULL && errno == ENOMEM, "malloc(%#zx) = %p, errno %d (%s); want NULL, ENOMEM",
			  (size_t)vol, p, errno, strerror(errno));
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_dispatch BACKEND direct|low|impossible\n");
		return 2;
	}
	start(argv[1]);
	if (strcmp(argv[2], "direct") == 0)
		direct();
	else if (strcmp(argv[2], "low") == 0)
		low();
	else if (strcmp(argv[2], "impossible") == 0)
		impossible();
	else
		return fprintf(stderr, "test_dispatch: unknown case %s\n", argv[2]), 2;
	return check_result("test_dispatch");
}
