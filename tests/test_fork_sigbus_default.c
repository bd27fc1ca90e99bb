/* test_fork_sigbus_default.c - a program whose SIGBUS disposition is SIG_DFL
 * dies of SIGBUS as the kernel would have killed it, whatever happened while
 * a fork had hugepolicy's fork-window handler in its place
 * (pages/hugetlb_fork_sigbus.c).  A runner process holds hugetlb blocks that
 * leave the pool no page (hugetlb_pool.sh adds exactly what it takes) and a
 * second thread that acts once it sees the window open (a sigaction query
 * finds a handler where the program has SIG_DFL); the runner forks until it
 * has.  The test's own process only waits for the runner and reads how it
 * ended (SIGBUS; not a hang, not another signal, not a normal exit).
 * usage: test_fork_sigbus_default restored|restored_fork|mceerr_ao
 *   restored: the thread saves the handler it finds (sigaction(SIGBUS,
 *     &probe, &saved)) and puts it back after the fork, as probing code
 *     does; the runner then reads past the end of a mapped file (a fault,
 *     BUS_ADRERR) with hugepolicy's handler in place and no window open
 *   restored_fork: the same, with one more fork before the fault (a window
 *     opened over the handler the program put back)
 *   mceerr_ao: the thread queues itself a SIGBUS with si_code
 *     BUS_MCEERR_AO (the kernel's "memory error, action optional", which no
 *     instruction repeats) where it saw the window open; a build that drops
 *     it fails only when the signal lands before the window closes (most
 *     runs), a right one never */
#define _GNU_SOURCE
#include "check.h"
#include "fill_pool.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAXBLOCKS = 64, BLOCK = 2 << 20, MOST_FORKS = 64 };

static unsigned char *blk[MAXBLOCKS];
static int nblk, mode;                  /* 0 restored, 1 mceerr_ao, 2 restored_fork */
static atomic_int acted, forks_done, stop;

static int window_open(void)
{
	struct sigaction now;
	sigaction(SIGBUS, NULL, &now);
	return now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN;
}

static void *catcher(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		if (!window_open())
			continue;
		if (mode == 1) {
			siginfo_t si;
			memset(&si, 0, sizeof si);
			si.si_signo = SIGBUS;
			si.si_code = BUS_MCEERR_AO;
			si.si_pid = getpid();
			atomic_store(&acted, 1);
			syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGBUS, &si);
			return NULL;    /* reached only where the SIGBUS was dropped */
		}
		struct sigaction probe, saved;
		memset(&probe, 0, sizeof probe);
		probe.sa_handler = SIG_IGN;
		int at = atomic_load(&forks_done);
		sigaction(SIGBUS, &probe, &saved);
		if (saved.sa_handler == SIG_DFL || saved.sa_handler == SIG_IGN) {
			sigaction(SIGBUS, &saved, NULL);        /* the window closed meanwhile */
			continue;
		}
		atomic_store(&acted, 1);
		while (atomic_load(&forks_done) == at && !atomic_load(&stop))
			;               /* the fork that had the window returned */
		sigaction(SIGBUS, &saved, NULL);
		return NULL;
	}
	return NULL;
}

static int fork_once(void)
{
	int ok = fork_writer(blk, nblk, BLOCK);
	atomic_fetch_add(&forks_done, 1);
	return ok;
}

static int runner(void)
{
	struct hugepolicy_stats st = { .size = sizeof st };
	nblk = fill_pool(blk, MAXBLOCKS, BLOCK, &st);
	if (st.hugetlb_bytes == 0 || st.hugetlb_fallbacks == 0)
		SKIP("the pool was not left without a page (another process holds or adds pages?)");
	char path[] = "/tmp/test_fork_sigbus_default_XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0);
	volatile unsigned char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	unlink(path);

	pthread_t t;
	pthread_create(&t, NULL, catcher, NULL);
	int forks = 0, ok = 0;
	while (!atomic_load(&acted) && forks < MOST_FORKS) {
		ok += fork_once();
		forks++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("runner: %d forks, %d children ok; the thread %s in a fork window\n", forks, ok,
	       atomic_load(&acted) ? "acted" : "never found itself");
	fflush(stdout);
	if (!atomic_load(&acted))
		return 77;
	if (mode != 1) {
		if (mode == 2)
			ok += fork_once();      /* a window opened over the handler put back */
		printf("runner: %d of %d children ok; now a fault with SIGBUS at SIG_DFL\n", ok, forks + (mode == 2));
		fflush(stdout);
		(void)m[4096];
	}
	printf("runner: still alive\n");
	return 0;
}

int main(int argc, char **argv)
{
	mode = argc < 2 ? 0 : strcmp(argv[1], "mceerr_ao") == 0 ? 1 : strcmp(argv[1], "restored_fork") == 0 ? 2 : 0;
	pid_t pid = fork();     /* no hugetlb memory yet: no window */
	if (pid == 0)
		_exit(runner());
	int status = 0, waited = 0;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited++ == 600) {  /* 60 s: it hangs */
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			CHECK_MSG(0, "the runner hung (killed after 60 s)");
			return check_result(argv[1] ? argv[1] : "restored");
		}
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		SKIP("the runner skipped (see above)");
	printf("runner ended: %s %d\n", WIFSIGNALED(status) ? "signal" : "exit",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS, "the runner did not die of SIGBUS");
	return check_result(argv[1] ? argv[1] : "restored");
}
