/* test-driver.h - stand-in for glibc's <support/test-driver.h>: how a
 * test describes itself to the driver (support_test_main). */
#ifndef HP_GLIBC_SUPPORT_TEST_DRIVER_H
#define HP_GLIBC_SUPPORT_TEST_DRIVER_H

enum {
	DEFAULT_TIMEOUT = 20,   /* seconds, scaled by $TIMEOUTFACTOR */
	EXIT_UNSUPPORTED = 77,
};

struct test_config {
	void (*prepare_function)(int, char **);   /* in the supervisor, first */
	int (*test_function)(void);
	int (*test_function_argv)(int, char **);
	void (*cleanup_function)(void);           /* on timeout */
	int expected_status;
	int expected_signal;
	int timeout;                              /* seconds, 0: default */
	char no_mallopt;                          /* no mallopt(M_PERTURB) */
	char no_setvbuf;                          /* keep stdout buffered */
};

/* Fork, run the test in the child (its own process group) under a
 * timeout, and map its end to 0 pass, 1 fail, 77 unsupported.  With
 * --direct as the first argument the test runs in this process. */
int support_test_main(int argc, char **argv, const struct test_config *config);

#endif
