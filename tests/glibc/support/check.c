/* check.c - failure recording and reporting behind check.h.  The failure
 * counter lives in a MAP_SHARED page mapped before main, so failures that
 * a test's forked children record are seen by the test and by the driver
 * that forked it, as with glibc's harness. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <support/check.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static unsigned int *failures;      /* shared with forked children */
static unsigned int private_failures; /* if the shared page was refused */

__attribute__((constructor)) static void map_failure_counter(void)
{
	void *p = mmap(NULL, sizeof(*failures), PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	failures = p == MAP_FAILED ? &private_failures : p;
}

void support_record_failure(void)
{
	if (failures == NULL)
		map_failure_counter();
	__atomic_add_fetch(failures, 1, __ATOMIC_RELAXED);
}

bool support_record_failure_is_failed(void)
{
	return failures != NULL && __atomic_load_n(failures, __ATOMIC_RELAXED) != 0;
}

void support_record_failure_reset(void)
{
	if (failures != NULL)
		__atomic_store_n(failures, 0, __ATOMIC_RELAXED);
}

int support_report_failure(int status)
{
	if (!support_record_failure_is_failed())
		return status;
	printf("error: %u test failures\n", __atomic_load_n(failures, __ATOMIC_RELAXED));
	return status == 0 || status == 77 ? 1 : status;
}

void support_test_verify_impl(const char *file, int line, const char *expr)
{
	int saved = errno;
	support_record_failure();
	printf("error: %s:%d: not true: %s\n", file, line, expr);
	errno = saved;
}

void support_test_verify_exit_impl(int status, const char *file, int line,
	const char *expr)
{
	support_test_verify_impl(file, line, expr);
	exit(status);
}

static void vprint_failure(const char *kind, const char *file, int line,
	const char *fmt, va_list ap)
{
	int saved = errno;
	printf("%s: %s:%d: ", kind, file, line);
	errno = saved;              /* for %m */
	vprintf(fmt, ap);
	putchar('\n');
}

void support_print_failure_impl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	support_record_failure();
	va_start(ap, fmt);
	vprint_failure("error", file, line, fmt, ap);
	va_end(ap);
}

void support_exit_failure_impl(int status, const char *file, int line,
	const char *fmt, ...)
{
	va_list ap;
	/* 77 (unsupported) is not a failure */
	if (status != 77)
		support_record_failure();
	va_start(ap, fmt);
	vprint_failure(status == 77 ? "warning" : "error", file, line, fmt, ap);
	va_end(ap);
	exit(status);
}

/* an integer as sign + magnitude */
static unsigned long long magnitude(int is_signed, long long s, unsigned long long u, int *neg)
{
	*neg = is_signed && s < 0;
	return *neg ? -(unsigned long long)s : u;
}

void support_test_compare_impl(const char *file, int line,
	const char *lexpr, int lsigned, long long ls, unsigned long long lu,
	const char *rexpr, int rsigned, long long rs, unsigned long long ru)
{
	int lneg, rneg;
	unsigned long long lmag = magnitude(lsigned, ls, lu, &lneg);
	unsigned long long rmag = magnitude(rsigned, rs, ru, &rneg);
	if (lneg == rneg && lmag == rmag)
		return;
	support_record_failure();
	printf("error: %s:%d: numeric comparison failure\n"
		"   left: %s%llu (0x%llx); from: %s\n"
		"  right: %s%llu (0x%llx); from: %s\n",
		file, line, lneg ? "-" : "", lmag, lu, lexpr,
		rneg ? "-" : "", rmag, ru, rexpr);
}
