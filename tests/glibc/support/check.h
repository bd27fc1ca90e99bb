/* check.h - hugepolicy's stand-in for glibc's <support/check.h>: the
 * TEST_* and FAIL_* macros glibc's malloc tests use.  Written for
 * hugepolicy (not glibc's code); only the names and meanings match. */
#ifndef HP_GLIBC_SUPPORT_CHECK_H
#define HP_GLIBC_SUPPORT_CHECK_H

#include <stdbool.h>

/* Report a failure and carry on. */
#define FAIL(...) support_print_failure_impl(__FILE__, __LINE__, __VA_ARGS__)
/* Report a failure and return 1 from the calling function. */
#define FAIL_RET(...) \
	return support_print_failure_impl(__FILE__, __LINE__, __VA_ARGS__), 1
/* Report a failure and exit with STATUS (77: unsupported). */
#define FAIL_EXIT(status, ...) \
	support_exit_failure_impl(status, __FILE__, __LINE__, __VA_ARGS__)
#define FAIL_EXIT1(...) FAIL_EXIT(1, __VA_ARGS__)
#define FAIL_UNSUPPORTED(...) FAIL_EXIT(77, __VA_ARGS__)

/* Record a failure (and print EXPR) when EXPR is false. */
#define TEST_VERIFY(expr) \
	((expr) ? (void)0 : support_test_verify_impl(__FILE__, __LINE__, #expr))
/* ... and exit with status 1. */
#define TEST_VERIFY_EXIT(expr) \
	((expr) ? (void)0 : support_test_verify_exit_impl(1, __FILE__, __LINE__, #expr))

/* Compare two integers of any type by value (a negative value never equals
 * an unsigned one); record a failure naming both when they differ.  The
 * sign test is done in support_test_compare_impl, not here, so that an
 * unsigned operand draws no -Wtype-limits warning. */
#define HP_SIGNED_TYPE_OF(v) (!((__typeof__(v))-1 > 0))
#define TEST_COMPARE(left, right)                                           \
	do {                                                                \
		__typeof__(left) hp_cmp_l = (left);                         \
		__typeof__(right) hp_cmp_r = (right);                       \
		support_test_compare_impl(__FILE__, __LINE__,               \
			#left, HP_SIGNED_TYPE_OF(hp_cmp_l),                 \
			(long long)hp_cmp_l, (unsigned long long)hp_cmp_l,  \
			#right, HP_SIGNED_TYPE_OF(hp_cmp_r),                \
			(long long)hp_cmp_r, (unsigned long long)hp_cmp_r); \
	} while (0)

/* Mark the test as failed; safe in forked children (shared counter). */
void support_record_failure(void);
/* True once a failure was recorded. */
bool support_record_failure_is_failed(void);
/* Exit status to use: 1 if a failure was recorded and STATUS says pass or
 * unsupported, else STATUS. */
int support_report_failure(int status);
void support_record_failure_reset(void);

void support_test_verify_impl(const char *file, int line, const char *expr);
_Noreturn void support_test_verify_exit_impl(int status, const char *file,
	int line, const char *expr);
void support_print_failure_impl(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
_Noreturn void support_exit_failure_impl(int status, const char *file, int line,
	const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void support_test_compare_impl(const char *file, int line,
	const char *lexpr, int lsigned, long long ls, unsigned long long lu,
	const char *rexpr, int rsigned, long long rs, unsigned long long ru);

#endif
