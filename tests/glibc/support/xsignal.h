/* xsignal.h - stand-in for glibc's <support/xsignal.h>. */
#ifndef HP_GLIBC_SUPPORT_XSIGNAL_H
#define HP_GLIBC_SUPPORT_XSIGNAL_H

#include <signal.h>

/* signal(2) that exits 1 on error; returns the previous handler. */
sighandler_t xsignal(int sig, sighandler_t handler);
void xraise(int sig);

#endif
