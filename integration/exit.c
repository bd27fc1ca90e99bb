/*
 * exit.c - the exit report: printed once, by the process that reports
 * (HUGEPOLICY_REPORT_PID's; with none set, any process), however it ends.
 * exit() and a return from main reach it through the library destructor;
 * _exit, _Exit and quick_exit skip destructors (dash ends every script with
 * _exit).  _exit and _Exit (one function in glibc, one version) are exported
 * here and report before they end the process; quick_exit is glibc's (its
 * two versions differ: 2.10's runs thread_local destructors, 2.24's does
 * not), with an at_quick_exit handler registered at start-up that reports
 * after the program's handlers, as the destructor does after atexit's.
 * Only a process that ran start-up reports there: a forked or vforked
 * child that calls _exit stays as quiet as it always was.
 *
 * Invariants: at most one report per process (an atomic flag); a process
 * that asked for no report (HUGEPOLICY_STATS and HUGEPOLICY_VERBOSE off, or
 * not the reporting process) gets glibc's _exit, system call for system
 * call, and no at_quick_exit handler; the status passed to _exit, _Exit or
 * quick_exit is the process's exit status - from the moment the report
 * starts, the calling thread blocks every signal the program catches, so
 * none of its handlers runs there (and ends the process another way)
 * after _exit was called, and another thread that calls _exit or exit
 * meanwhile waits for the report (GUARD_SECONDS + 1 at most) instead of ending the
 * process first with its own status.  _exit may be called from a signal
 * handler that interrupted the allocator or the page layer while it held
 * a lock the report's figures need: there the figures are gathered under
 * a timer on the calling thread (2 s, a realtime signal whose handler
 * jumps back only for this timer), and when it fires - or when no timer
 * can be had (RLIMIT_SIGPENDING) - the report is one line saying so:
 * never a process that hangs instead of ending.  The signal handler may
 * also run on a small sigaltstack (a crash handler's SIGSTKSZ), too small
 * for the report: it is made on a stack of its own (EXIT_STACK_BYTES,
 * mapped for it).
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"
#include "hp_init.h"
#include "hp_live.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

enum { GUARD_SECONDS = 2, EXIT_STACK_BYTES = 256 * 1024 };

static atomic_int reported;     /* a report was started (by exit or by _exit) */
static atomic_int report_done;  /* ... and made, or given up */
static atomic_int ending;       /* a thread of this process is in _exit's report */

/* the white-box test's hook: runs while the figures are gathered */
extern void hp_test_exit_gather(void) __attribute__((weak, visibility("hidden")));

static sigjmp_buf guard_jump;
static volatile sig_atomic_t guard_armed;
static int guard_tag;           /* its address tells the guard's timer from any other */

static void guard_fired(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (guard_armed && si->si_code == SI_TIMER && si->si_value.sival_ptr == &guard_tag)
		siglongjmp(guard_jump, 1);
}

static void gather(struct hp_report_snap *s)
{
	if (hp_test_exit_gather)
		hp_test_exit_gather();
	hp_report_gather(s);
}

/* 0: s holds the figures; ETIMEDOUT: they did not come within
 * GUARD_SECONDS; another errno: no timer to guard them (RLIMIT_SIGPENDING
 * reached), so they are not gathered - gathering where a lock they need
 * is held would hang for ever */
static int gather_guarded(struct hp_report_snap *s)
{
	int signo = SIGRTMAX;
	struct sigaction sa = { .sa_sigaction = guard_fired, .sa_flags = SA_SIGINFO };
	sigfillset(&sa.sa_mask);
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = signo };
	ev.sigev_value.sival_ptr = &guard_tag;
	ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	timer_t timer;
	if (sigaction(signo, &sa, NULL) != 0 || timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
		return errno;
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, signo);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	static volatile sig_atomic_t gathered;
	gathered = 0;
	if (sigsetjmp(guard_jump, 1) == 0) {
		guard_armed = 1;
		timer_settime(timer, 0, &(struct itimerspec){ .it_value = { GUARD_SECONDS, 0 } }, NULL);
		gather(s);
		gathered = 1;
	}
	guard_armed = 0;
	timer_delete(timer);
	return gathered ? 0 : ETIMEDOUT;
}

/* guarded: called by _exit and its kin (above) rather than by exit() */
static void make_report(int guarded)
{
	if (hp_rt.report_pid && hp_rt.report_pid != getpid())
		return;                 /* a fork()ed child of the reporting process */
	if (hp_rt.plan.stats == HP_STATS_NONE) {
		if (hp_rt.plan.verbose)
			hp_say_obtained();      /* hp_say goes through the same sink */
		return;
	}
	struct hp_report_snap s;
	int rc = guarded ? gather_guarded(&s) : 0;
	if (rc == ETIMEDOUT) {
		hp_say("no exit report: its figures did not come within %d s (_exit was called where a lock "
		       "they need is held - in a signal handler that interrupted the allocator?)", GUARD_SECONDS);
		return;
	}
	if (rc != 0) {
		hp_say("no exit report: no timer to guard the gathering of its figures in _exit (%s)",
		       strerrorname_np(rc) ? strerrorname_np(rc) : "?");
		return;
	}
	if (!guarded)
		gather(&s);
	/* HUGEPOLICY_LOG, or fd 2 only while it is still our stderr: a host
	 * that closed it may have a data file there now (log.c) */
	unsigned flags = hp_rt.plan.stats == HP_STATS_JSON ? HUGEPOLICY_REPORT_JSON : 0;
	int opened, fd = hp_log_open(&opened);
	if (fd < 0)
		return;
	rc = hp_report_emit(fd, flags, &s);
	hp_log_close(fd, opened);
	if (rc != 0 && opened && (fd = hp_log_write_failed(rc)) >= 0)
		hp_report_emit(fd, flags, &s);  /* the log refused it */
}

static void report(int guarded)
{
	if (!hp_ready() || atomic_exchange(&reported, 1))
		return;
	make_report(guarded);
	atomic_store(&report_done, 1);
}

static ucontext_t ending_ctx, report_ctx;

static void report_guarded(void)
{
	report(1);
}

/* No handler of the program runs on this thread once _exit was called
 * (one may end the process with another status); a signal whose default
 * is to end the process still does, as it would a report that hangs. */
static void block_caught_signals(void)
{
	sigset_t caught;
	sigemptyset(&caught);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		/* SIG_DFL and SIG_IGN whatever the flags: the kernel's
		 * SA_RESETHAND reset leaves SA_SIGINFO beside SIG_DFL */
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)
			sigaddset(&caught, sig);
	}
	pthread_sigmask(SIG_BLOCK, &caught, NULL);
}

/* Another thread is making the report, in _exit or exit: it ends the
 * process when done, as glibc's first _exit would have at once (its guard
 * sees that it is done within GUARD_SECONDS; exit's has none, so a little
 * longer at most, then this thread ends the process itself). */
static void wait_for_the_report(void)
{
	for (int i = 0; i < (GUARD_SECONDS + 1) * 10 && !atomic_load(&report_done); i++)
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
}

__attribute__((destructor)) static void hp_destructor(void)
{
	if (atomic_load(&ending) && hp_rt.start_pid == getpid()) {
		wait_for_the_report();  /* exit() in one thread while _exit reports in another */
		return;
	}
	report(0);
}

/* what start-up decided: memory reads only, no system call */
static int report_wanted(void)
{
	return hp_ready() && (hp_rt.plan.stats != HP_STATS_NONE || hp_rt.plan.verbose);
}

/* _exit and its kin report only in the process that started up: a child
 * forked (or vforked: memory shared with the parent) has another pid.
 * Caught signals stay blocked on this thread until the process ends. */
static void report_before_ending(void)
{
	if (!report_wanted() || hp_rt.start_pid != getpid())
		return;
	block_caught_signals();
	if (atomic_exchange(&ending, 1) || (atomic_load(&reported) && !atomic_load(&report_done))) {
		wait_for_the_report();
		return;
	}
	void *stack = mmap(NULL, EXIT_STACK_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED || getcontext(&report_ctx) != 0) {
		report(1);      /* no room for a stack: on the caller's */
		return;
	}
	report_ctx.uc_stack.ss_sp = stack;
	report_ctx.uc_stack.ss_size = EXIT_STACK_BYTES;
	report_ctx.uc_link = &ending_ctx;
	makecontext(&report_ctx, report_guarded, 0);
	swapcontext(&ending_ctx, &report_ctx);
}

static _Noreturn void end(int status)
{
	for (;;) {
		syscall(SYS_exit_group, status);
		syscall(SYS_exit, status);
	}
}

HP_EXPORT void _exit(int status)
{
	report_before_ending();
	end(status);
}

HP_EXPORT void _Exit(int status)
{
	report_before_ending();
	end(status);
}

void hp_exit_init(void)
{
	if (report_wanted())
		at_quick_exit(report_before_ending);
}
