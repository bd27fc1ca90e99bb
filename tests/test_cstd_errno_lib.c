/* test_cstd_errno_lib.c - a library whose constructor makes the process's
 * first allocation (it is initialised before libhugepolicy.so: later in
 * DT_NEEDED, no dependency between the two), with errno set, so that
 * hugepolicy's start-up runs inside that malloc(0). */
#include <errno.h>
#include <stdlib.h>

void *cstd_first_block;
int cstd_errno_before = -1, cstd_errno_after = -1;

__attribute__((constructor)) static void first_allocation(void)
{
	errno = 4242;
	cstd_errno_before = errno;
	cstd_first_block = malloc(0);
	cstd_errno_after = errno;
}
