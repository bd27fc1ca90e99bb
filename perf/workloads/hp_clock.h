/* hp_clock.h - monotonic seconds and process CPU times for the perf workloads. */
#ifndef HP_CLOCK_H
#define HP_CLOCK_H

#include <sys/resource.h>
#include <time.h>

/* Monotonic time in seconds. */
static inline double hp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* User and system CPU seconds of the whole process so far. */
static inline void hp_cpu(double *user, double *sys)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* xorshift64*: a fast per-thread random stream. */
static inline unsigned long long hp_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

#endif
