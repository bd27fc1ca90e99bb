/* xunistd.h - stand-in for glibc's <support/xunistd.h>: POSIX calls that
 * print one line and exit 1 on error. */
#ifndef HP_GLIBC_SUPPORT_XUNISTD_H
#define HP_GLIBC_SUPPORT_XUNISTD_H

#include <sys/types.h>
#include <unistd.h>

pid_t xfork(void);
pid_t xwaitpid(pid_t pid, int *status, int flags);
int xopen(const char *path, int flags, int mode);
void xclose(int fd);
void xpipe(int fds[2]);
long xsysconf(int name);
void *xmmap(void *addr, size_t len, int prot, int flags, int fd);
void xmunmap(void *addr, size_t len);

#endif
