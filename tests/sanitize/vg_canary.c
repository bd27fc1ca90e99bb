/* vg_canary.c - a planted double free through hugepolicy's free(): under
 * the system backend memcheck must report it (valgrind.sh's claim that the
 * system backend's blocks are memcheck's blocks). */
#include <stdlib.h>

static void *volatile block;    /* volatile: the compiler cannot follow it */

int main(void)
{
	block = malloc(64);
	free(block);
	free(block);
	return 0;
}
