/* test_fork_sigbus_handler.c - a program's own SIGBUS handler is called as
 * the kernel would call it while a fork has hugepolicy's fork-window
 * handler in its place (pages/hugetlb_fork_sigbus.c).  The parent holds
 * hugetlb blocks that leave the pool no page (hugetlb_pool.sh adds exactly
 * what it takes) and a second thread that reads past the end of a mapped
 * file (SIGBUS, as readers of mmap'd files get) whenever a sigaction query
 * shows the window open; its handler siglongjmps back.  Every child writes
 * every block and exits 0.
 * usage: test_fork_sigbus_handler altstack|nodefer|resethand
 *   altstack: SA_ONSTACK, sa_mask {SIGUSR1}: each call runs on the thread's
 *     sigaltstack, with SIGBUS and SIGUSR1 blocked and SIGUSR2 not
 *   nodefer: SA_NODEFER: each call runs with SIGBUS not blocked
 *   resethand: SA_RESETHAND: after one call in the window, SIGBUS's
 *     disposition is SIG_DFL once the fork is done */
#define _GNU_SOURCE
#include "check.h"
#include "fill_pool.h"

#include <fcntl.h>
#include <hugepolicy.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAXBLOCKS = 64, BLOCK = 2 << 20, FORKS = 8 };    /* FORKS: at least */

static unsigned char *blk[MAXBLOCKS];
static int nblk, mode;                  /* 0 altstack, 1 nodefer, 2 resethand */
static volatile unsigned char *beyond;  /* a page past the end of a file */
static char altstack[1 << 16];
static __thread sigjmp_buf env;
static atomic_int stop, in_window, bad_stack, bad_mask, outside;

static void on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	char here;
	sigset_t now;
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	if (mode == 0 && (&here < altstack || &here >= altstack + sizeof altstack))
		atomic_fetch_add(&bad_stack, 1);
	if (mode == 0 && (!sigismember(&now, SIGBUS) || !sigismember(&now, SIGUSR1) || sigismember(&now, SIGUSR2)))
		atomic_fetch_add(&bad_mask, 1);
	if (mode == 1 && sigismember(&now, SIGBUS))
		atomic_fetch_add(&bad_mask, 1);
	if (si->si_addr == (void *)beyond)
		siglongjmp(env, 1);
	_exit(99);
}

/* hugepolicy's handler is in place: the fork window is open */
static int window_open(void)
{
	struct sigaction now;
	sigaction(SIGBUS, NULL, &now);
	return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction != on_bus;
}

static void fault(atomic_int *count)
{
	if (sigsetjmp(env, 1) == 0)
		(void)*beyond;
	atomic_fetch_add(count, 1);
}

static void *reader(void *arg)
{
	(void)arg;
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	CHECK(sigaltstack(&ss, NULL) == 0);
	sigset_t usr2;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &usr2, NULL);
	if (mode != 2)
		fault(&outside);        /* the program's handler works outside a fork too */
	while (!atomic_load(&stop)) {
		if (!window_open())
			continue;
		fault(&in_window);
		if (mode == 2)
			break;          /* SIGBUS is SIG_DFL now */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	mode = argc > 1 && strcmp(argv[1], "nodefer") == 0 ? 1 : argc > 1 && strcmp(argv[1], "resethand") == 0 ? 2 : 0;
	struct hugepolicy_stats st = { .size = sizeof st };
	nblk = fill_pool(blk, MAXBLOCKS, BLOCK, &st);
	if (st.hugetlb_bytes == 0 || st.hugetlb_fallbacks == 0)
		SKIP("the pool was not left without a page (another process holds or adds pages?)");

	char path[] = "/tmp/test_fork_sigbus_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0);
	unsigned char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	unlink(path);
	beyond = m + 4096;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO | (mode == 0 ? SA_ONSTACK : mode == 1 ? SA_NODEFER : SA_RESETHAND);
	sigemptyset(&sa.sa_mask);
	if (mode == 0)
		sigaddset(&sa.sa_mask, SIGUSR1);
	sigaction(SIGBUS, &sa, NULL);

	pthread_t t;
	pthread_create(&t, NULL, reader, NULL);
	int ok = 0, forks = 0;
	/* on a loaded machine the reader may sleep through a whole window:
	 * fork on until it has faulted in one */
	for (; forks < FORKS || (forks < 8 * FORKS && !atomic_load(&in_window)); forks++) {
		ok += fork_writer(blk, nblk, BLOCK);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("%d forks, %d children ok; the handler ran %d times in fork windows, %d outside; "
	       "%d on the wrong stack, %d with the wrong mask\n", forks, ok, atomic_load(&in_window),
	       atomic_load(&outside), atomic_load(&bad_stack), atomic_load(&bad_mask));
	CHECK_MSG(ok == forks, "%d of %d children wrote every block and exited 0", ok, forks);
	CHECK_MSG(atomic_load(&in_window) > 0, "the reader never faulted while a fork had its handler in place");
	CHECK(atomic_load(&bad_stack) == 0);
	CHECK(atomic_load(&bad_mask) == 0);
	if (mode == 2) {
		struct sigaction now;
		sigaction(SIGBUS, NULL, &now);
		CHECK_MSG(now.sa_handler == SIG_DFL, "SA_RESETHAND: SIGBUS is not SIG_DFL after the call "
			  "(flags %#x, the program's handler: %d)", (unsigned)now.sa_flags, now.sa_sigaction == on_bus);
	} else {
		CHECK(atomic_load(&outside) == 1);
	}
	return check_result(argv[1] ? argv[1] : "altstack");
}
