/* thp_no_except_advised.c - LD_PRELOAD shim: prctl(PR_SET_THP_DISABLE, 1,
 * PR_THP_DISABLE_EXCEPT_ADVISED) fails with EINVAL, as on kernels older than
 * 6.18, whatever this kernel says; every other prctl goes to the kernel. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_THP_DISABLE && (a3 & (1ul << 1))) {
		errno = EINVAL;
		return -1;
	}
	return (int)syscall(SYS_prctl, option, a2, a3, a4, a5);
}
