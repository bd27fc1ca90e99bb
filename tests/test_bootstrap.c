/* test_bootstrap.c - white box, hugepolicy linked statically: blocks that
 * the bootstrap arena hands out while the backend is being chosen stay
 * valid after start-up and can be read, realloc'ed, sized and freed through
 * the public entry points of whichever backend then runs.
 * usage: test_bootstrap BACKEND [low|taken]
 *   low    the arena lies below HP_LOW_END, free jumps to the backend's own
 *          free (its one compare sends the arena's blocks aside)
 *   taken  built with the range the arena wants already mapped (a section
 *          of this program there): the arena stays in .bss and free's jump
 *          goes through its test first */
#include "../integration/hp_dispatch.h"
#include "check.h"

#include <hugepolicy.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LOW_RANGE_TAKEN
/* a page of this program in the arena's range: the loader maps it first */
__attribute__((section(".lowrange"), used)) static char taken[4096] = { 1 };
#endif

/* the size of a mapping of /proc/self/maps over [lo, hi) that does not
 * start at `except`, or 0 */
static size_t mapping_over(uintptr_t lo, uintptr_t hi, uintptr_t except)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long from, to;
	size_t size = 0;
	char line[512];
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "%lx-%lx", &from, &to) == 2 && from < hi && to > lo && from != except)
			size = to - from;
	if (f)
		fclose(f);
	return size;
}

static size_t mapping_size(const void *p)
{
	return mapping_over((uintptr_t)p, (uintptr_t)p + 1, 0);
}

/* the range the arena asks for holds a mapping that is not the arena */
static int low_range_taken(const void *arena)
{
	return mapping_over(HP_BOOT_LOW_HINT, HP_LOW_END, (uintptr_t)arena) != 0;
}

static void placement(const char *where)
{
	const struct hp_alloc_ops *o = hp_ops();
	const unsigned char *base = hp_boot_arena_now();
	if (strcmp(where, "low") == 0) {
		if (base == hp_boot_arena && low_range_taken(base)) {
			printf("the range below %#lx is taken here: the arena stays in .bss\n",
			       (unsigned long)HP_LOW_END);
			exit(77);
		}
		CHECK_MSG((uintptr_t)base < HP_LOW_END && (uintptr_t)base + HP_BOOT_ARENA_BYTES <= HP_LOW_END,
			  "arena at %p, not below %#lx", (const void *)base, (unsigned long)HP_LOW_END);
		CHECK_MSG(mapping_size(base) == HP_BOOT_ARENA_BYTES, "arena's mapping %zu B",
			  mapping_size(base));
		CHECK_MSG(hp_hot(hp_free_fn) == o->free, "free jumps to %p, not the backend's %p",
			  (void *)hp_hot(hp_free_fn), (void *)o->free);
	} else {
		CHECK_MSG(base == hp_boot_arena, "arena at %p, not the static one %p", (const void *)base,
			  (void *)hp_boot_arena);
		CHECK_MSG(low_range_taken(base), "the range below %#lx is free", (unsigned long)HP_LOW_END);
		CHECK_MSG(hp_hot(hp_free_fn) != o->free, "free jumps to the backend's free untested");
	}
	/* placed once: with blocks out, a second try moves nothing */
	hp_boot_place();
	CHECK(hp_boot_arena_now() == base);
	/* only the bytes handed out are the arena's */
	CHECK(!hp_boot_owns(base + HP_BOOT_ARENA_BYTES - 16));
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	const char *where = argc > 2 ? argv[2] : NULL;
	/* what a re-entrant call during start-up gets */
	char *early = hp_boot_alloc(100, 16);
	char *early_aligned = hp_boot_alloc(300, 4096);
	char *early_zero = hp_boot_alloc(64, 16);
	CHECK(early && early_aligned && early_zero);
	CHECK(((uintptr_t)early_aligned & 4095) == 0);
	CHECK(hp_boot_owns(early) && !hp_boot_owns(&want));
	memset(early, 'e', 100);
	memset(early_aligned, 'a', 300);
	CHECK(early_zero[63] == 0);

	/* start-up has run by now (libc allocated before main, or this does) */
	void *p = malloc(10);
	free(p);
	CHECK_MSG(strcmp(hugepolicy_backend(), want) == 0, "backend %s", hugepolicy_backend());
	CHECK(hp_ops() != &hp_boot_ops);
	if (where)
		placement(where);
	CHECK_MSG(hp_boot_owns(early), "a block out before start-up is the arena's");

	CHECK(malloc_usable_size(early) == 100);
	char *moved = realloc(early, 1u << 20);     /* leaves the arena */
	CHECK(moved && !hp_boot_owns(moved));
	CHECK(moved && moved[0] == 'e' && moved[99] == 'e');
	free(moved);
	char *shrunk = realloc(early_aligned, 10);
	CHECK(shrunk && memcmp(shrunk, "aaaaaaaaaa", 10) == 0);
	free(shrunk);
	free(early_zero);
	free(NULL);
	for (int i = 0; i < 1000; i++) {      /* the backend's blocks are freed (reused), not set aside */
		void *a = malloc(48), *b = malloc(5000);
		CHECK(a && b && !hp_boot_owns(a) && !hp_boot_owns(b));
		free(a);
		free(b);
	}
	CHECK(hp_boot_alloc(2u << 20, 16) == NULL); /* larger than the arena: NULL, not a crash */
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0 && st.bootstrap_bytes >= 464);
	return check_result("test_bootstrap");
}
