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
 * would have called it; SIG_DFL and SIG_IGN are put back, and what the
 * kernel would have done happens - a fault repeats (BUS_ADRALN, ADRERR,
 * OBJERR, MCEERR_AR), anything else (sent, BUS_MCEERR_AO) is raised again
 * under SIG_DFL and dropped under SIG_IGN.  Within the window a sigaction
 * query of SIGBUS sees hugepolicy's handler; a handler the program installs
 * meanwhile is kept (not overwritten when the window closes), and one that
 * saved hugepolicy's and puts it back later gets the program's disposition
 * emulated on (never hugepolicy's handler calling itself).
 *
 * "As the kernel would have called it": hugepolicy's handler is installed
 * with the program handler's SA_ONSTACK and SA_RESTART (both when the
 * program has none), so it - and the program's handler it calls - runs on
 * the stack the kernel would have picked (the thread's sigaltstack, if it
 * has one, for an SA_ONSTACK handler) and an interrupted call restarts as
 * the program asked.  The program's handler runs with the mask the kernel
 * would have set: the interrupted mask, plus its sa_mask, plus SIGBUS unless
 * SA_NODEFER, and errno as it was interrupted; its SA_RESETHAND makes
 * SIGBUS's disposition SIG_DFL from that call on (within the window
 * hugepolicy's handler stays in place and treats a further SIGBUS as
 * SIG_DFL; the window's end puts SIG_DFL back).  A handler that returns gets
 * hugepolicy's mask back; one that siglongjmps leaves the mask as the
 * kernel's call would have.
 *
 * Invariant: arming, disarming, putting a disposition back and a handler's
 * reading of the program's disposition (with its SA_RESETHAND reset) happen
 * one at a time under the window's lock, each holder with every signal
 * blocked that can be (glibc keeps its cancellation and setxid signals:
 * asynchronous cancellation of a thread inside hugepolicy's SIGBUS handler
 * leaves the lock held).  A waiter spins briefly, then sleeps on the lock's
 * futex.  So a handler sees the disposition the window saved, and a call the
 * kernel delivered inside the window leaves SIG_DFL even when it runs after
 * the window's end: disarm restores the reset disposition, or the call
 * resets the restored one itself.  The lock and the "this process armed"
 * mark live in a page advised MADV_WIPEONFORK: a forked child (fork, _Fork,
 * clone without CLONE_VM) finds both zero, so it knows itself a child and
 * the lock free, whatever a parent's thread held at the fork and whatever
 * its pid; a vfork child shares the page and counts as its parent.  Where
 * the page cannot be had (a kernel before 4.14 without MADV_WIPEONFORK, or
 * the first arm's mmap refused) a static page and the pid stand in: a child
 * frees the lock once, a child of a pid namespace's pid 1 may be taken for
 * its parent, and a vfork child for a child.
 *
 * Not emulated exactly (the kernel's choice happens at delivery, ours after):
 * a SIGBUS that reaches the restored handler between disarm and a late
 * SA_RESETHAND call's reset runs that handler once more; a handler the
 * program installs between disarm's check and its restore, or between a
 * late call's check and its reset, is replaced, and so is one installed
 * between arm's query and its install (the window then runs with the query's
 * SA_ONSTACK/SA_RESTART); under SIG_IGN a sent SIGBUS in the window
 * interrupts calls SA_RESTART does not restart (EINTR), and a SIGBUS the
 * kernel forces (a fault with SIGBUS blocked) kills where it would anyway;
 * a failed mremap on the child's path leaves its errno to the program's
 * handler; a thread that puts SIG_DFL back mid-window (a SIGBUS it was
 * killed by) leaves a child forked after that unprotected.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define SPINS 100

/* zeroed in a forked child (MADV_WIPEONFORK) */
struct window {
	atomic_int lock;        /* 0 free, 1 held, 2 held with sleepers */
	volatile sig_atomic_t mine;     /* this process armed */
};

static struct window fallback, *win = &fallback;
static struct sigaction before;         /* the program's disposition */
static volatile sig_atomic_t parent_pid, armed, reset, cleared_pid;

static void on_sigbus(int sig, siginfo_t *si, void *uc);

static int is_ours(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == on_sigbus;
}

/* a handler to call: the kernel reads SIG_DFL and SIG_IGN whatever the flags
 * (its SA_RESETHAND reset leaves SA_SIGINFO set beside SIG_DFL) */
static int is_handler(const struct sigaction *a)
{
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

/* the disposition as the kernel's SA_RESETHAND reset leaves it */
static struct sigaction reset_form(const struct sigaction *a)
{
	struct sigaction d = *a;
	d.sa_handler = SIG_DFL;
	return d;
}

/* the program's disposition as the window saved it, reset if a call reset it */
static struct sigaction saved(void)
{
	return reset ? reset_form(&before) : before;
}

HP_NO_TLS static int is_child(void)
{
	return win == &fallback ? getpid() != parent_pid : !win->mine;
}

static void take(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	pid_t self = win == &fallback ? getpid() : 0;
	if (self && self != parent_pid && self != cleared_pid) {
		atomic_store(&win->lock, 0);    /* a child, once: a parent's thread may have held it */
		cleared_pid = self;
	}
	for (int i = 0; i < SPINS; i++) {
		int free_ = 0;
		if (atomic_compare_exchange_weak(&win->lock, &free_, 1))
			return;
		hp_cpu_relax();
	}
	while (atomic_exchange(&win->lock, 2) != 0)
		syscall(SYS_futex, &win->lock, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

static void give(const sigset_t *old)
{
	if (atomic_exchange(&win->lock, 0) == 2)
		syscall(SYS_futex, &win->lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The window's page, once: a page that a fork wipes, else the static one. */
static void window_page(void)
{
	static int tried;
	if (tried)
		return;
	tried = 1;
	struct window *w = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED)
		return;
	if (madvise(w, (size_t)sysconf(_SC_PAGESIZE), MADV_WIPEONFORK) != 0) {
		munmap(w, (size_t)sysconf(_SC_PAGESIZE));
		return;
	}
	win = w;
}

/* With the lock held: the window closed, disposition d in place of
 * hugepolicy's handler if that is still there (one installed meanwhile
 * stays). */
static void put_back_locked(const struct sigaction *d)
{
	struct sigaction now;
	armed = 0;
	if (sigaction(SIGBUS, NULL, &now) == 0 && is_ours(&now))
		sigaction(SIGBUS, d, NULL);
}

static void put_back(const struct sigaction *d)
{
	sigset_t old;
	take(&old);
	put_back_locked(d);
	give(&old);
}

static void disarm(void)
{
	sigset_t old;
	take(&old);
	struct sigaction d = saved();
	put_back_locked(&d);
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
	struct sigaction h = saved();
	if (is_handler(&h) && (h.sa_flags & SA_RESETHAND)) {
		struct sigaction now, d = reset_form(&h);
		if (armed)
			reset = 1;
		else if (sigaction(SIGBUS, NULL, &now) != 0)
			;
		else if (is_ours(&now))
			reset = 1;      /* ours put back by the program: it emulates the reset one */
		else if (now.sa_handler == h.sa_handler)
			sigaction(SIGBUS, &d, NULL);
	}
	give(&old);
	return h;
}

/* The program's handler h, with the mask and errno the kernel would have
 * left (see the top). */
static void call(const struct sigaction *h, int sig, siginfo_t *si, void *uc, int err)
{
	sigset_t mask = ((ucontext_t *)uc)->uc_sigmask, ours;
	sigorset(&mask, &mask, &h->sa_mask);
	if (!(h->sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, &ours);
	errno = err;
	if (h->sa_flags & SA_SIGINFO)
		h->sa_sigaction(sig, si, uc);
	else
		h->sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &ours, NULL);
}

/* a SIGBUS the kernel sends again when the handler returns: the faulting
 * instruction runs again */
static int repeats(const siginfo_t *si)
{
	return si->si_code == BUS_ADRALN || si->si_code == BUS_ADRERR || si->si_code == BUS_OBJERR ||
	       si->si_code == BUS_MCEERR_AR;
}

/* The program's own disposition, as if hugepolicy's handler were not there.
 * Returns whether the program's handler ran (errno is then its).  Never
 * inlined into on_sigbus, whose child path touches no TLS. */
__attribute__((noinline)) static int chain(int sig, siginfo_t *si, void *uc, int err)
{
	struct sigaction h = program();
	if (is_handler(&h)) {
		call(&h, sig, si, uc, err);
		return 1;
	}
	if (h.sa_handler == SIG_IGN && !repeats(si))
		return 0;               /* dropped, as the kernel would */
	/* the process ends as it would have: a fault repeats on return (the
	 * kernel forces the default on an ignored one), anything else is
	 * raised again and delivered once this handler returns */
	put_back(&h);
	if (!repeats(si))
		raise(SIGBUS);
	return 0;
}

/* The child's path touches no thread-local storage (errno included): the
 * thread's descriptor may sit in a hugetlb block not yet placed, where a
 * read or write with SIGBUS blocked would kill the child. */
HP_NO_TLS static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	/* si_code > 0: raised by the kernel for a fault (not kill/tgkill/sigqueue) */
	if (armed && si->si_code > 0 && is_child() && hp_fork_place_staged(si->si_addr))
		return;                 /* the faulting write runs again, on the copy */
	int err = errno;
	if (!chain(sig, si, uc, err))
		errno = err;
}

void hp_fork_sigbus_arm(void)
{
	struct sigaction sa, now, was;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	window_page();
	sigset_t old;
	parent_pid = getpid();          /* first: take() is then no child's */
	take(&old);
	if (sigaction(SIGBUS, NULL, &now) == 0 && is_ours(&now))
		now = saved();
	if (is_handler(&now))
		sa.sa_flags = SA_SIGINFO | (now.sa_flags & (SA_ONSTACK | SA_RESTART));
	win->mine = 1;          /* before the handler is in place: its child path reads it */
	if (sigaction(SIGBUS, &sa, &was) == 0) {
		/* ours put back by the program: the program's is the saved one */
		before = is_ours(&was) ? now : was;
		reset = 0;
		armed = 1;
	}
	give(&old);
}

void hp_fork_sigbus_disarm(void)
{
	disarm();
}
