/* slow_thp_fault.c - an LD_PRELOAD shim under which the first touch of a
 * big block's huge page looks slow: after a madvise(MADV_HUGEPAGE) of at
 * least 4 MiB (a big block's advice, never the 2 MiB of a fault-cost
 * measurement), the second CLOCK_THREAD_CPUTIME_ID reading that follows
 * is SLOW_THP_MS (default 50) milliseconds later than the clock: what a
 * THP fault of memory the host took back looks like to
 * pages/fault_cost.c's probe, which reads the clock before and after that
 * touch.  Every other call passes through.  It never calls malloc.
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

static atomic_int armed;        /* 0; 1 advised, no reading yet; 2 one reading since */

EXPORT int madvise(void *p, size_t len, int advice)
{
	if (advice == MADV_HUGEPAGE && len >= BIG)
		atomic_store(&armed, 1);
	return (int)syscall(SYS_madvise, p, len, advice);
}

EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
	int rc = (int)syscall(SYS_clock_gettime, id, ts);
	if (rc != 0 || id != CLOCK_THREAD_CPUTIME_ID)
		return rc;
	int one = 1, two = 2;
	if (atomic_compare_exchange_strong(&armed, &one, 2))
		return rc;
	if (atomic_compare_exchange_strong(&armed, &two, 0)) {
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
