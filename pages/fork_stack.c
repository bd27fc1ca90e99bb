/*
 * fork_stack.c - fork() runs on a stack hugepolicy owns when the forking
 * thread's stack or signal stack is hugetlb memory hugepolicy mapped.
 *
 * A forked child writes to the stack it forked on (glibc's fork returning,
 * a signal frame) before any atfork child handler runs.  A thread stack or a
 * sigaltstack a program took from malloc is, under a hugetlb heap (jemalloc's
 * and mimalloc's small blocks, any backend's big ones), a page the child
 * shares copy-on-write with its parent; with no free pool page the kernel
 * answers the child's write with SIGBUS, which it cannot deliver on that
 * same stack: the child dies of SIGSEGV before hugepolicy's handler could
 * make the page its own (hugetlb_fork.c).
 *
 * So hp_fork (behind the exported fork, integration/fork.c) calls glibc's
 * fork on a fresh anonymous stack whenever the stack pointer or an enabled
 * sigaltstack lies in a mapping hugepolicy recorded, with that sigaltstack
 * disabled for the call (a signal meanwhile - hugepolicy's SIGBUS handler
 * for a thread descriptor at the top of a malloc'ed thread stack - runs on
 * the fresh stack).  Invariants: the child writes nothing on the old stack
 * until glibc's fork has returned, i.e. until hugetlb_fork.c's child handler
 * has made every mapping the child's own; the program's sigaltstack is put
 * back, on both sides, before the old stack is used again, unless one of
 * the program's atfork handlers set a sigaltstack of its own meanwhile
 * (that one stays); the fresh stack is as large as RLIMIT_STACK's soft
 * limit (1 to 64 MiB: the program's atfork handlers run on it); errno is
 * glibc's fork's, untouched by hugepolicy on success; everywhere else
 * fork is glibc's, called directly.  Where no stack can be mapped the fork
 * runs where it was called, and says so.  fork's callers inside glibc
 * (daemon, forkpty) and _Fork do not come here.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#endif
#include <unistd.h>

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)      /* linux/signal.h */
#endif

/* room for the program's own atfork handlers: what RLIMIT_STACK gives a
 * thread, within these bounds (address space only: untouched pages cost
 * nothing); the least is also the fallback where that much cannot be mapped */
enum { OWN_STACK_MIN = 1 << 20, OWN_STACK_MAX = 64 << 20 };

struct run {
	pid_t (*fork_fn)(void);
	pid_t pid;
	int err;
	ucontext_t back, here;
};

static int in_hugetlb(const void *p, size_t len)
{
	return hp_tlb_overlaps(p, len);
}

/* The thread's rseq area (glibc >= 2.35 registers one in the thread
 * descriptor, which for a thread made on a stack of the program's sits at
 * that stack's top), when it is hugetlb memory: the kernel writes it at the
 * child's first return to user space, and a write it cannot make there is
 * a SIGSEGV.  Unregistered for the fork, registered again on both sides. */
static void *rseq_in_hugetlb(void)
{
#if defined(RSEQ_SIG) && defined(SYS_rseq)
	if (__rseq_size == 0)
		return NULL;
	void *area = (char *)__builtin_thread_pointer() + __rseq_offset;
	return in_hugetlb(area, __rseq_size) ? area : NULL;
#else
	return NULL;
#endif
}

static int rseq_set(void *area, int on)
{
#if defined(RSEQ_SIG) && defined(SYS_rseq)
	/* registered with the length of the original struct rseq (32) or
	 * more: __rseq_size counts only the fields in use (20) */
	unsigned len = __rseq_size < 32 ? 32 : __rseq_size;
	return area ? (int)syscall(SYS_rseq, area, len, on ? 0 : RSEQ_FLAG_UNREGISTER, RSEQ_SIG) : 0;
#else
	(void)area, (void)on;
	return 0;
#endif
}

/* glibc's description of struct pthread's tid field, for libthread_db
 * ({bits, count, offset}; GLIBC_PRIVATE, read once at start-up): the
 * kernel's CLONE_CHILD_SETTID write of the child's tid into its thread
 * descriptor fails without a word on a hugetlb page the child has no copy
 * of yet, so the child writes it once its handler made the page its own.
 * NULL where glibc has no such symbol or it does not describe this thread. */
static const uint32_t *tid_field;

void hp_fork_stack_init(void)
{
	const uint32_t *d = dlsym(RTLD_DEFAULT, "_thread_db_pthread_tid");
	if (d && d[0] == 32 && d[1] == 1 && d[2] < 4096 &&
	    *(pid_t *)((char *)pthread_self() + d[2]) == (pid_t)syscall(SYS_gettid))
		tid_field = d;
}

static void own_tid(void)
{
	if (!tid_field)
		return;
	pid_t *t = (pid_t *)((char *)pthread_self() + tid_field[2]), real = (pid_t)syscall(SYS_gettid);
	if (*t != real)
		*t = real;
}

/* on the fresh stack: the program's sigaltstack off and the thread's rseq
 * area unregistered for the call, then both back */
static void on_own_stack(unsigned hi, unsigned lo)
{
	struct run *r = (struct run *)(((uintptr_t)hi << 32) | lo);
	stack_t alt, off = { .ss_flags = SS_DISABLE };
	int had = sigaltstack(NULL, &alt) == 0 && !(alt.ss_flags & SS_DISABLE);
	if (had)
		sigaltstack(&off, NULL);
	void *rs = rseq_in_hugetlb();
	if (rseq_set(rs, 0) != 0)
		rs = NULL;
	r->pid = r->fork_fn();
	r->err = errno;
	if (r->pid == 0)
		own_tid();
	rseq_set(rs, 1);
	stack_t now;
	/* put back unless an atfork handler of the program set one meanwhile */
	if (had && sigaltstack(NULL, &now) == 0 && (now.ss_flags & SS_DISABLE)) {
		alt.ss_flags &= SS_AUTODISARM;  /* SS_ONSTACK is a report, not a flag to set */
		sigaltstack(&alt, NULL);
	}
}                                       /* uc_link: back to the old stack */

static int needs_own_stack(void)
{
	char here;
	uintptr_t sp = (uintptr_t)&here & ~(uintptr_t)4095;
	if (in_hugetlb((void *)sp, 4096) || rseq_in_hugetlb())
		return 1;
	stack_t alt;
	return sigaltstack(NULL, &alt) == 0 && !(alt.ss_flags & SS_DISABLE) && alt.ss_size > 0 &&
	       in_hugetlb(alt.ss_sp, alt.ss_size);
}

static size_t own_stack_size(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > OWN_STACK_MAX)
		return OWN_STACK_MAX;
	return rl.rlim_cur < OWN_STACK_MIN ? OWN_STACK_MIN : (size_t)rl.rlim_cur & ~(size_t)4095;
}

static void *map_stack(size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
}

/* glibc's fork where it was called, with the errno the caller had (what
 * hugepolicy's own calls set before is not the caller's) */
static pid_t direct(pid_t (*fork_fn)(void), int saved)
{
	errno = saved;
	return fork_fn();
}

pid_t hp_fork(pid_t (*fork_fn)(void))
{
	if (hp_tlb_pool_maps() == 0)
		return fork_fn();
	int saved = errno;
	if (!needs_own_stack())
		return direct(fork_fn, saved);
	long ps = sysconf(_SC_PAGESIZE);
	size_t page = ps > 0 ? (size_t)ps : 4096, len = own_stack_size() + page;
	unsigned char *m = map_stack(len);
	if (m == MAP_FAILED && len > OWN_STACK_MIN + page)
		m = map_stack(len = OWN_STACK_MIN + page);
	if (m == MAP_FAILED) {
		static atomic_int said;
		if (atomic_fetch_add(&said, 1) == 0)
			hp_say("fork: no memory for a stack of its own (%s): this thread's stack is hugetlb memory, "
			       "and a child that cannot get a pool page for its copy of it dies (said once)",
			       strerror(errno));
		return direct(fork_fn, saved);
	}
	mprotect(m, page, PROT_NONE);           /* guard below the stack */
	madvise(m, len, MADV_NOHUGEPAGE);       /* THP always: no 2 MiB zeroed for a few frames
						 * (kernels before 6.7 do not infer it from MAP_STACK) */
	/* the bookkeeping at the top, the stack below it */
	struct run *r = (struct run *)(((uintptr_t)(m + len) - sizeof *r) & ~(uintptr_t)63);
	r->fork_fn = fork_fn;
	r->pid = -1;
	r->err = 0;
	if (getcontext(&r->here) != 0) {
		munmap(m, len);
		return direct(fork_fn, saved);
	}
	r->here.uc_stack.ss_sp = m + page;
	r->here.uc_stack.ss_size = (size_t)((unsigned char *)r - (m + page));
	r->here.uc_link = &r->back;
	uintptr_t a = (uintptr_t)r;
	makecontext(&r->here, (void (*)(void))on_own_stack, 2, (unsigned)(a >> 32), (unsigned)a);
	if (swapcontext(&r->back, &r->here) != 0) {
		munmap(m, len);
		return direct(fork_fn, saved);
	}
	pid_t pid = r->pid;
	int err = r->err;
	munmap(m, len);
	errno = pid < 0 ? err : saved;
	return pid;
}
