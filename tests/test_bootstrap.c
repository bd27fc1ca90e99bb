/* test_bootstrap.c - white box, hugepolicy linked statically: blocks that
 * the bootstrap arena hands out while the backend is being chosen stay
 * valid after start-up and can be read, realloc'ed, sized and freed through
 * the public entry points of whichever backend then runs. */
#include "../integration/hp_dispatch.h"
#include "check.h"

#include <hugepolicy.h>
#include <malloc.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
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

	CHECK(malloc_usable_size(early) == 100);
	char *moved = realloc(early, 1u << 20);     /* leaves the arena */
	CHECK(moved && !hp_boot_owns(moved));
	CHECK(moved && moved[0] == 'e' && moved[99] == 'e');
	free(moved);
	char *shrunk = realloc(early_aligned, 10);
	CHECK(shrunk && memcmp(shrunk, "aaaaaaaaaa", 10) == 0);
	free(shrunk);
	free(early_zero);
	CHECK(hp_boot_alloc(2u << 20, 16) == NULL); /* larger than the arena: NULL, not a crash */
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0 && st.bootstrap_bytes >= 464);
	return check_result("test_bootstrap");
}
