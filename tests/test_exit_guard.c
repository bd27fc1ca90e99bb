/* test_exit_guard.c - white box, hugepolicy linked statically: _exit called
 * where the report's figures cannot be had (the gathering hook of exit.c
 * blocks, as a lock held by the interrupted allocator would) still ends the
 * process, with its status, after one line instead of the report.
 *   test_exit_guard blocked   the hook never returns: the line, status 7
 *   test_exit_guard free      the hook returns: the whole report, status 7
 * Run with HUGEPOLICY_STATS=json; the test's driver (a shell line in
 * report.cmake) checks stderr and the time it took. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int block;

void hp_test_exit_gather(void)
{
	while (block)
		nanosleep(&(struct timespec){ 1, 0 }, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	block = strcmp(argv[1], "blocked") == 0;
	char *p = malloc(1 << 20);
	if (p)
		memset(p, 1, 1 << 20);
	_exit(7);
}
