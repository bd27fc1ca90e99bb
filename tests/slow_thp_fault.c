/* slow_thp_fault.c - an LD_PRELOAD shim under which the first touches of
 * a big block's huge pages look slow: after a madvise(MADV_HUGEPAGE) of at
 * least 4 MiB (a big block's advice, never the 2 MiB of a fault-cost
 * measurement), of the next PAIRS pairs of CLOCK_THREAD_CPUTIME_ID
 * readings the second of each is SLOW_THP_MS (default 50) milliseconds
 * later than the clock: what THP faults of memory the host took back look
 * like to pages/fault_cost.c's probe, which reads the clock before and
 * after each touch.  Every other call passes through.  It never calls
 * malloc, and a shifted reading calls nothing the probe's own call did
 * not (SLOW_THP_MS is read at load): the probe counts the faults around
 * its touch, and a first call of getenv (lazy binding, its code paged
 * in) added one or two of them.  SLOW_THP_EXTRA_FAULTS=N makes N base
 * page faults of its own in the first shifted reading (what a signal
 * handler's faults between the probe's readings look like to it: a
 * touch it cannot time, though it may have faulted a huge page in).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define BIG (4u << 20)

#define PAIRS 3                 /* as many as the probe times in a block */

static atomic_int readings;     /* readings left to shift or pass (0: none) */
static long slow_ms = 50;
static volatile unsigned char *extra;  /* fresh base pages, one per extra fault */
static atomic_int extra_faults;

__attribute__((constructor)) static void read_env(void)
{
	const char *e = getenv("SLOW_THP_MS");
	if (e)
		slow_ms = atol(e);
	e = getenv("SLOW_THP_EXTRA_FAULTS");
	int n = e ? atoi(e) : 0;
	if (n > 0 && n <= 64) {
		void *m = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			syscall(SYS_madvise, m, (size_t)n * 4096, MADV_NOHUGEPAGE);
			extra = m;
			atomic_store(&extra_faults, n);
		}
	}
}

EXPORT int madvise(void *p, size_t len, int advice)
{
	if (advice == MADV_HUGEPAGE && len >= BIG)
		atomic_store(&readings, 2 * PAIRS);
	return (int)syscall(SYS_madvise, p, len, advice);
}

EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
	int rc = (int)syscall(SYS_clock_gettime, id, ts);
	if (rc != 0 || id != CLOCK_THREAD_CPUTIME_ID)
		return rc;
	int left = atomic_load(&readings);
	while (left > 0 && !atomic_compare_exchange_weak(&readings, &left, left - 1))
		;
	if (left > 0 && left % 2 == 1) {        /* the second of a pair */
		for (int n = atomic_exchange(&extra_faults, 0); n > 0; n--)
			extra[(size_t)(n - 1) * 4096] = 1;
		long ms = slow_ms;
		ts->tv_sec += ms / 1000;
		ts->tv_nsec += (ms % 1000) * 1000000L;
		if (ts->tv_nsec >= 1000000000L) {
			ts->tv_sec++;
			ts->tv_nsec -= 1000000000L;
		}
	}
	return rc;
}
