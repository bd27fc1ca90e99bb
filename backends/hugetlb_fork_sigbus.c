/*
 * hugetlb_fork_sigbus.c - the one write a forked child makes before
 * hugepolicy's atfork handler can run cannot kill it.
 *
 * glibc's fork, in a multi-threaded parent, writes to every open FILE in the
 * child (fresetlockfiles) before any atfork child handler runs.  Under
 * jemalloc hugetlb a FILE sits in a hugetlb slab the child shares
 * copy-on-write with its parent; when the pool has no free page at that
 * moment, the kernel cannot give the child its copy and sends SIGBUS
 * (hugetlb_wp: no page for a process that does not own the reservation).
 * Such a parent has a copy of every mapping staged before fork
 * (hugetlb_fork.c), so from prepare until the child's handler is done a
 * SIGBUS handler is armed: in the child, a fault inside a staged mapping
 * puts the staged copy at its address (mremap, async-signal-safe) and the
 * write is made again, on the child's own memory.  Any other SIGBUS - in the
 * parent, outside those mappings, sent by kill/tgkill, or with no copy - goes
 * to the disposition the program had: its handler is called as the kernel
 * would have called it, SIG_DFL and SIG_IGN are put back (a sent SIGBUS is
 * then raised again, a fault repeats).  Within the window a sigaction query
 * of SIGBUS sees hugepolicy's handler; a handler the program installs
 * meanwhile is kept (not overwritten when the window closes).
 */
#define _GNU_SOURCE
#include "hp_backend.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static struct sigaction before;
static pid_t parent_pid;
static volatile sig_atomic_t armed;

static void on_sigbus(int sig, siginfo_t *si, void *uc);

static void disarm(void)
{
	if (armed) {
		armed = 0;
		struct sigaction now;
		/* only if ours is still there: a handler installed meanwhile stays */
		if (sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_sigbus)
			sigaction(SIGBUS, &before, NULL);
	}
}

/* The program's own disposition, as if hugepolicy's handler were not there. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	if (before.sa_flags & SA_SIGINFO) {
		if (before.sa_sigaction)
			before.sa_sigaction(sig, si, uc);
		return;
	}
	if (before.sa_handler == SIG_IGN && si->si_code <= 0)
		return;                 /* a sent SIGBUS the program ignores */
	if (before.sa_handler == SIG_DFL || before.sa_handler == SIG_IGN) {
		/* the process ends as it would have: a fault repeats on return
		 * (the kernel forces the default on an ignored one), a sent
		 * SIGBUS is sent again and delivered once this handler returns */
		disarm();
		if (si->si_code <= 0)
			raise(SIGBUS);
		return;
	}
	before.sa_handler(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	/* si_code > 0: raised by the kernel for a fault (not kill/tgkill/sigqueue) */
	if (armed && si->si_code > 0 && getpid() != parent_pid && hp_fork_place_staged(si->si_addr))
		return;                 /* the faulting write runs again, on the copy */
	chain(sig, si, uc);
}

void hp_fork_sigbus_arm(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	parent_pid = getpid();
	if (sigaction(SIGBUS, &sa, &before) == 0)
		armed = 1;
}

void hp_fork_sigbus_disarm(void)
{
	disarm();
}
