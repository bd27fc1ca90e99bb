/* slow_thp_fault.c - an LD_PRELOAD shim under which the first touches of
 * a big block's huge pages look slow: after a madvise(MADV_HUGEPAGE) of at
 * least 4 MiB (a big block's advice, never the 2 MiB of a fault-cost
 * measurement), of the next PAIRS pairs of CLOCK_THREAD_CPUTIME_ID
 * readings the second of each is SLOW_THP_MS (default 50) milliseconds
 * later than the clock: what THP faults of memory the host took back look
 * like to pages/fault_cost.c's probe, which reads the clock before and
 * after each touch.  Every other call passes through.  It never calls
 * malloc.
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
		const char *e = getenv("SLOW_THP_MS");
		long ms = e ? atol(e) : 50;
		ts->tv_sec += ms / 1000;
		ts->tv_nsec += (ms % 1000) * 1000000L;
		if (ts->tv_nsec >= 1000000000L) {
			ts->tv_sec++;
			ts->tv_nsec -= 1000000000L;
		}
	}
	return rc;
}
