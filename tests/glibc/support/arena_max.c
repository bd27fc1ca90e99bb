/* arena_max.c - the M_ARENA_MAX precondition of glibc's
 * tst-malloc-thread-exit, tst-malloc-thread-fail and
 * tst-malloc-fork-deadlock, which end with "error: mallopt (M_ARENA_MAX)
 * failed" when mallopt answers 0.  The parameter limits glibc's arenas;
 * jemalloc and mimalloc have none to limit, and hugepolicy answers 0 there
 * (hugepolicy(3), "The glibc API").  Those tests are compiled with mallopt
 * named hp_glibc_mallopt (tests/glibc.cmake): the call goes to the real
 * mallopt, its answer is printed, and a 0 for M_ARENA_MAX is taken as 1, so
 * that what they test - threads that exit, fail to allocate and fork while
 * others allocate - runs unchanged on every backend.  Any other parameter's
 * answer is returned as it is. */
#include <malloc.h>
#include <stdio.h>

int hp_glibc_mallopt(int param, int value);

int hp_glibc_mallopt(int param, int value)
{
	int rc = mallopt(param, value);
	if (param == M_ARENA_MAX && rc == 0) {
		printf("harness: mallopt(M_ARENA_MAX, %d) = 0 (no glibc arenas to limit here); the test goes on\n",
		       value);
		return 1;
	}
	return rc;
}
