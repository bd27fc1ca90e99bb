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
 * parent, outside those mappings, or with no copy - gets the disposition it
 * had before (restored, and the instruction faults again).
 */
#define _GNU_SOURCE
#include "hp_backend.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static struct sigaction before;
static pid_t parent_pid;
static volatile sig_atomic_t armed;

static void disarm(void)
{
	if (armed) {
		armed = 0;
		sigaction(SIGBUS, &before, NULL);
	}
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (armed && getpid() != parent_pid && hp_fork_place_staged(si->si_addr))
		return;                 /* the faulting write runs again, on the copy */
	disarm();                       /* the fault repeats under the old disposition */
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
