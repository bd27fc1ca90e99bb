/* libc-diag.h - stand-in for glibc's internal <libc-diag.h>: push, pop and
 * ignore a GCC warning around code that triggers it on purpose (a
 * too-large malloc, an ignored result).  The version argument glibc uses to
 * say since when the warning exists is accepted and not used. */
#ifndef HP_GLIBC_LIBC_DIAG_H
#define HP_GLIBC_LIBC_DIAG_H

#define HP_DIAG_PRAGMA(x) _Pragma(#x)
#define DIAG_PUSH_NEEDS_COMMENT HP_DIAG_PRAGMA(GCC diagnostic push)
#define DIAG_POP_NEEDS_COMMENT HP_DIAG_PRAGMA(GCC diagnostic pop)
#define DIAG_IGNORE_NEEDS_COMMENT(version, option) \
	HP_DIAG_PRAGMA(GCC diagnostic ignored option)
#define DIAG_IGNORE_Os_NEEDS_COMMENT(version, option) /* not -Os */

#endif
