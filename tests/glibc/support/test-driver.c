/* test-driver.c - stand-in for glibc's <support/test-driver.c>, included
 * at the end of a test.  It defines main(), which hands the test's
 * description to support_test_main (test_main.c).  The test defines
 * do_test (void), or names another function with TEST_FUNCTION (or
 * TEST_FUNCTION_ARGV, taking argc/argv), and may define PREPARE,
 * CLEANUP_HANDLER, EXPECTED_STATUS, EXPECTED_SIGNAL, TIMEOUT (seconds),
 * TEST_NO_MALLOPT and TEST_NO_SETVBUF, as with glibc's driver. */
#include <support/test-driver.h>

#if defined(TEST_FUNCTION) && defined(TEST_FUNCTION_ARGV)
#error TEST_FUNCTION and TEST_FUNCTION_ARGV cannot both be defined
#endif
#ifdef CMDLINE_OPTIONS
#error this stand-in driver has no custom command line options
#endif

int main(int argc, char **argv)
{
	struct test_config config = { 0 };
#ifdef PREPARE
	config.prepare_function = (PREPARE);
#endif
#if defined(TEST_FUNCTION)
	config.test_function = TEST_FUNCTION;
#elif defined(TEST_FUNCTION_ARGV)
	config.test_function_argv = TEST_FUNCTION_ARGV;
#else
	config.test_function = do_test;
#endif
#ifdef CLEANUP_HANDLER
	config.cleanup_function = CLEANUP_HANDLER;
#endif
#ifdef EXPECTED_STATUS
	config.expected_status = (EXPECTED_STATUS);
#endif
#ifdef EXPECTED_SIGNAL
	config.expected_signal = (EXPECTED_SIGNAL);
#endif
#ifdef TIMEOUT
	config.timeout = (TIMEOUT);
#endif
#ifdef TEST_NO_MALLOPT
	config.no_mallopt = 1;
#endif
#ifdef TEST_NO_SETVBUF
	config.no_setvbuf = 1;
#endif
	return support_test_main(argc, argv, &config);
}
