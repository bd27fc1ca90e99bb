/* test_exit_guard.c - white box, hugepolicy linked statically: _exit called
 * where the report's figures cannot be had (the gathering hook of exit.c
 * blocks, as a lock held by the interrupted allocator would) still ends the
 * process, with its status, after one line instead of the report.
 *   test_exit_guard blocked   the hook never returns: the line, status 7
 *   test_exit_guard free      the hook returns: the whole report, status 7
 *   test_exit_guard no-timer  RLIMIT_SIGPENDING 0 (no timer can be had),
 *                             the hook never returns: the line, status 7
 *   test_exit_guard signalled the hook raises SIGUSR1, whose handler calls
 *                             _exit(9): the signal waits, the whole report,
 *                             status 7 (the status _exit was given first)
 *   test_exit_guard threads   the hook lets another thread call _exit(9)
 *                             and gives it 300 ms: the whole report,
 *                             status 7 (the first _exit's)
 *   test_exit_guard threads-exit  the same with exit(9)
 * Run with HUGEPOLICY_STATS=json; the test's driver (a shell line in
 * report.cmake) checks stderr and the time it took. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int block, signalled, threads, by_exit;
static atomic_int second_go;

static void *second_exit(void *arg)
{
	(void)arg;
	while (!atomic_load(&second_go))
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
	if (by_exit)
		exit(9);
	_exit(9);
}

static void usr1(int sig)
{
	(void)sig;
	_exit(9);
}

void hp_test_exit_gather(void)
{
	while (block)
		nanosleep(&(struct timespec){ 1, 0 }, NULL);
	if (signalled)
		raise(SIGUSR1);
	if (threads && !atomic_exchange(&second_go, 1))
		nanosleep(&(struct timespec){ 0, 300 * 1000 * 1000 }, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	block = strcmp(argv[1], "blocked") == 0 || strcmp(argv[1], "no-timer") == 0;
	if (strcmp(argv[1], "no-timer") == 0 && setrlimit(RLIMIT_SIGPENDING, &(struct rlimit){ 0, 0 }) != 0)
		return 2;
	signalled = strcmp(argv[1], "signalled") == 0;
	if (signal(SIGUSR1, usr1) == SIG_ERR)
		return 2;
	by_exit = strcmp(argv[1], "threads-exit") == 0;
	threads = strcmp(argv[1], "threads") == 0 || by_exit;
	pthread_t t;
	if (threads && pthread_create(&t, NULL, second_exit, NULL) != 0)
		return 2;
	char *p = malloc(1 << 20);
	if (p)
		memset(p, 1, 1 << 20);
	_exit(7);
}
