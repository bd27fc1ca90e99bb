/* selftest.c - the stand-in harness must be able to fail: one small test
 * per behaviour the glibc tests rely on, chosen by HP_SELFTEST at build
 * time (tests/glibc.cmake registers each with the outcome it must give). */
#include <support/check.h>
#include <support/xunistd.h>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#if HP_SELFTEST == 1            /* failed checks, one in a forked child: exit 1 */
static int do_test(void)
{
	TEST_COMPARE(-1, (unsigned int)-1);     /* differ: -1 vs 4294967295 */
	TEST_COMPARE((size_t)7, 7);
	TEST_COMPARE((unsigned char)200, 200);
	pid_t p = xfork();
	if (p == 0) {
		TEST_VERIFY(getpid() == 0);
		_exit(0);
	}
	xwaitpid(p, NULL, 0);
	return 0;                       /* the driver must still say 1 */
}
#elif HP_SELFTEST == 2          /* the expected signal: exit 0 */
static int do_test(void)
{
	abort();
}
#define EXPECTED_SIGNAL SIGABRT
#elif HP_SELFTEST == 3          /* the expected status: exit 0 */
static int do_test(void)
{
	exit(3);
}
#define EXPECTED_STATUS 3
#elif HP_SELFTEST == 4          /* unsupported: exit 77 */
static int do_test(void)
{
	FAIL_UNSUPPORTED("selftest: unsupported on purpose");
}
#elif HP_SELFTEST == 5          /* a hang: "Timed out", exit 1 */
static int do_test(void)
{
	pause();
	return 0;
}
#define TIMEOUT 1
#elif HP_SELFTEST == 6          /* an unexpected signal: exit 1 */
static int do_test(void)
{
	raise(SIGSEGV);
	return 0;
}
#endif

#include <support/test-driver.c>
