/* test-skeleton.c - the old-style entry glibc's older tests include as
 * "../test-skeleton.c" (the CMake part writes a one-line file of that name
 * that includes this one).  There TEST_FUNCTION is an expression, e.g.
 * `do_test ()`; without it do_test takes (argc, argv).  Wrap it in a
 * function and hand over to the new-style driver. */
static int hp_legacy_test_function(int argc, char **argv)
{
	(void)argc;
	(void)argv;
#ifdef TEST_FUNCTION
	return TEST_FUNCTION;
#undef TEST_FUNCTION
#else
	return do_test(argc, argv);
#endif
}
#define TEST_FUNCTION_ARGV hp_legacy_test_function

#if defined(PREPARE) || defined(CLEANUP_HANDLER) || defined(CMDLINE_PROCESS)
#error old-style PREPARE/CLEANUP_HANDLER/CMDLINE_PROCESS are not supported here
#endif

#include <support/test-driver.c>

/* Old-style tests that include <pthread.h> got the x* thread wrappers. */
#ifdef _PTHREAD_H
#include <support/xthread.h>
#endif
