/*
 * fork.c - the exported fork(): glibc's, called on a stack hugepolicy owns
 * when the forking thread's stack or sigaltstack is hugetlb memory
 * hugepolicy mapped (pages/fork_stack.c).  Its result and errno are
 * glibc's fork's; the atfork handlers run as they always do.
 */
#define _GNU_SOURCE
#include "../pages/hp_pages.h"
#include "hp_dispatch.h"

#include <unistd.h>

extern pid_t __fork(void);      /* glibc's fork, exported as __fork@GLIBC_2.2.5 */

HP_EXPORT pid_t fork(void)
{
	return hp_fork(__fork);
}
