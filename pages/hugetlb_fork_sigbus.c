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
 *
 * "As the kernel would have called it": hugepolicy's handler is installed
 * with the program handler's SA_ONSTACK and SA_RESTART (both when the
 * program has none), so it - and the program's handler it calls - runs on
 * the stack the kernel would have picked (the thread's sigaltstack, if it
 * has one, for an SA_ONSTACK handler) and an interrupted call restarts as
 * the program asked.  The program's handler runs with the mask the kernel
 * would have set: the interrupted mask, plus its sa_mask, plus SIGBUS unless
 * SA_NODEFER; its SA_RESETHAND makes SIGBUS's disposition SIG_DFL from that
 * call on (within the window hugepolicy's handler stays in place and treats
 * a further SIGBUS as SIG_DFL; the window's end puts SIG_DFL back).  A
 * handler that returns gets hugepolicy's mask back; one that siglongjmps
 * leaves the mask as the kernel's call would have.
 *
 * Invariant: arming, disarming and a handler's reading of the program's
 * disposition (with its SA_RESETHAND reset) happen one at a time under
 * `lock`, each holder with every signal blocked (a handler on another thread
 * spins only while arm or disarm runs).  So a handler sees the disposition
 * the window saved, never the previous window's, and a call the kernel
 * delivered inside the window leaves SIG_DFL however late it runs: disarm
 * restores the reset disposition, or the call resets the restored one
 * itself.  A process other than the armed one is a child before its atfork
 * handler (single-threaded) or one with no window of its own open (no
 * handler of ours runs there): it frees the lock before taking it, as a
 * parent's thread may have held it at the fork.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static struct sigaction before;        /* the program's disposition */
static pid_t parent_pid;
static volatile sig_atomic_t armed;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc);

/* a handler to call: the kernel reads SIG_DFL and SIG_IGN whatever the flags
 * (its SA_RESETHAND reset leaves SA_SIGINFO set beside SIG_DFL) */
static int is_handler(const struct sigaction *a)
{
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

static void take(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	if (getpid() != parent_pid)
		atomic_flag_clear(&lock);       /* a child: a parent's thread may have held it at the fork */
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

static void give(const sigset_t *old)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void disarm(void)
{
	sigset_t old;
	take(&old);
	if (armed) {
		armed = 0;
		struct sigaction now;
		/* only if ours is still there: a handler installed meanwhile stays */
		if (sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_sigbus)
			sigaction(SIGBUS, &before, NULL);
	}
	give(&old);
}

/* The program's disposition for a SIGBUS the kernel gave hugepolicy's
 * handler, with SA_RESETHAND applied as the kernel would at delivery: while
 * the window is open the disposition to restore becomes SIG_DFL; once it has
 * closed, the program's handler it restored is reset (a handler the program
 * installed since stays). */
static struct sigaction program(void)
{
	sigset_t old;
	take(&old);
	struct sigaction h = before;
	if (is_handler(&h) && (h.sa_flags & SA_RESETHAND)) {
		struct sigaction dfl, now;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		if (armed)
			before = dfl;
		else if (sigaction(SIGBUS, NULL, &now) == 0 && now.sa_handler == h.sa_handler)
			sigaction(SIGBUS, &dfl, NULL);
	}
	give(&old);
	return h;
}

/* The program's handler h, with the mask the kernel would have set (see the
 * top). */
static void call(const struct sigaction *h, int sig, siginfo_t *si, void *uc)
{
	sigset_t mask = ((ucontext_t *)uc)->uc_sigmask, ours;
	sigorset(&mask, &mask, &h->sa_mask);
	if (!(h->sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, &ours);
	if (h->sa_flags & SA_SIGINFO)
		h->sa_sigaction(sig, si, uc);
	else
		h->sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &ours, NULL);
}

/* The program's own disposition, as if hugepolicy's handler were not there. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction h = program();
	if (h.sa_handler == SIG_IGN && si->si_code <= 0)
		return;                 /* a sent SIGBUS the program ignores */
	if (!is_handler(&h)) {
		/* the process ends as it would have: a fault repeats on return
		 * (the kernel forces the default on an ignored one), a sent
		 * SIGBUS is sent again and delivered once this handler returns */
		disarm();
		if (si->si_code <= 0)
			raise(SIGBUS);
		return;
	}
	call(&h, sig, si, uc);
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
	struct sigaction sa, now;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigset_t old;
	parent_pid = getpid();          /* first: take() is then no child's */
	take(&old);
	if (sigaction(SIGBUS, NULL, &now) == 0 && is_handler(&now))
		sa.sa_flags = SA_SIGINFO | (now.sa_flags & (SA_ONSTACK | SA_RESTART));
	if (sigaction(SIGBUS, &sa, &before) == 0)
		armed = 1;
	give(&old);
}

void hp_fork_sigbus_disarm(void)
{
	disarm();
}
