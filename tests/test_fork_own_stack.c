/* test_fork_own_stack.c - a fork from a stack that is hugetlb memory (a
 * malloc'ed sigaltstack or thread stack, a block on the pool) with the pool
 * left without a page: the child lives (pages/fork_stack.c).  Without a
 * stack of hugepolicy's own, the child's first write to that stack needs a
 * pool page for its copy, the kernel answers SIGBUS, and SIGBUS cannot be
 * delivered on that stack: the child dies of SIGSEGV.
 * usage: test_fork_own_stack altstack|altstack_threads|thread|MODE
 *   altstack          fork from a SIGUSR1 handler on a malloc'ed sigaltstack
 *   altstack_threads  the same while another thread writes the pool's blocks
 *   thread            fork from a thread whose stack is a malloc'ed block
 *   thread_pidns      the same from pid 1 of a pid namespace (run under
 *                     `unshare --pid --fork`), the child made pid 1 of a
 *                     namespace of its own: a child whose pid is its
 *                     parent's is still known for the child it is
 * These take every page left in the pool.  The MODEs below fork from main
 * with that malloc'ed sigaltstack in place (fork then runs on hugepolicy's
 * stack) and check what the program's atfork handlers and caller see, as
 * without hugepolicy:
 *   atfork_sigaltstack  a sigaltstack an atfork parent/child handler sets
 *                       is the one in force after fork, on each side
 *   atfork_deep         a prepare handler using 2 MiB of stack runs
 *   errno               with no room for a new mapping (RLIMIT_AS), a fork
 *                       that succeeds leaves errno as it was, on each side
 * Run under HUGEPOLICY_PAGES=hugetlb HUGEPOLICY_THRESHOLD=2M with pages in
 * the pool (hugetlb_pool.sh). */
#define _GNU_SOURCE
#include "check.h"
#include "fill_pool.h"
#include "smaps_vma.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { STACK = 4 << 20, BLOCK = 2 << 20, MAXBLOCKS = 256 };

static unsigned char *blk[MAXBLOCKS];
static int nblk;
static int child_status = -1;
static atomic_int stop;

static int on_hugetlb(const void *p)
{
	char line[512];
	return smaps_vma_field(p, "KernelPageSize:", line, sizeof line) && strstr(line, " 2048 kB");
}

/* glibc's description of struct pthread's tid field for libthread_db
 * ({bits, count, offset}; GLIBC_PRIVATE): NULL where it is not there */
static const uint32_t *tid_field;

/* the tid the child's thread descriptor holds is its own (the kernel's
 * CLONE_CHILD_SETTID write fails on a page the child has no copy of) */
static int descriptor_tid_is_own(void)
{
	if (!tid_field || tid_field[0] != 32)
		return 1;
	return *(pid_t *)((char *)pthread_self() + tid_field[2]) == (pid_t)syscall(SYS_gettid);
}

/* the child: a deep write on the stack it forked on, then every block */
static int child_work(void)
{
	volatile unsigned char deep[64 << 10];
	memset((void *)deep, 0x5a, sizeof deep);
	for (int i = 0; i < nblk; i++)
		memset(blk[i], 0x77, BLOCK);
	if (!descriptor_tid_is_own())
		return 4;
	return deep[100] == 0x5a ? 0 : 3;
}

static void fork_and_wait(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_work());
	int st = 0;
	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		child_status = st;
}

static void on_usr1(int sig)
{
	(void)sig;
	fork_and_wait();
}

static void *writer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		for (int i = 0; i < nblk; i++)
			blk[i][(unsigned)i * 4096u % BLOCK]++;
	return NULL;
}

static void *forker(void *arg)
{
	if (arg && unshare(CLONE_NEWPID) != 0) {
		if (errno == EPERM)
			SKIP("unshare(CLONE_NEWPID): %s (no CAP_SYS_ADMIN)", strerror(errno));
		CHECK_MSG(0, "unshare(CLONE_NEWPID): %s", strerror(errno));
		return NULL;
	}
	fork_and_wait();
	return NULL;
}

static char other_alt[64 << 10];
static volatile unsigned sink;

static void set_other_alt(void)
{
	stack_t ss = { .ss_sp = other_alt, .ss_size = sizeof other_alt };
	sigaltstack(&ss, NULL);
}

static void deep_prepare(void)
{
	volatile unsigned char b[2 << 20];
	for (size_t i = 0; i < sizeof b; i += 1024)
		b[i] = (unsigned char)i;
	sink = b[1024];
}

/* 1 where the thread's sigaltstack is other_alt */
static int on_other_alt(void)
{
	stack_t now;
	return sigaltstack(NULL, &now) == 0 && now.ss_sp == (void *)other_alt && !(now.ss_flags & SS_DISABLE);
}

static void no_room_for_a_mapping(void)
{
	long pages = 0, ps = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/self/statm", "r");
	CHECK(f != NULL && fscanf(f, "%ld", &pages) == 1);
	fclose(f);
	struct rlimit rl = { (rlim_t)(pages * ps) + (256 << 10), RLIM_INFINITY };
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
	void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p == MAP_FAILED);                 /* the limit holds */
}

/* fork from main with the malloc'ed sigaltstack in place */
static int main_fork(const char *mode, unsigned char *stack)
{
	stack_t ss = { .ss_sp = stack, .ss_size = STACK };
	CHECK(sigaltstack(&ss, NULL) == 0);
	int alt_set = strcmp(mode, "atfork_sigaltstack") == 0, err = strcmp(mode, "errno") == 0;
	if (alt_set)
		CHECK(pthread_atfork(NULL, set_other_alt, set_other_alt) == 0);
	if (strcmp(mode, "atfork_deep") == 0)
		CHECK(pthread_atfork(deep_prepare, NULL, NULL) == 0);
	if (err)
		no_room_for_a_mapping();
	errno = 0;
	pid_t pid = fork();
	int e = errno;
	if (pid == 0)
		_exit(alt_set ? !on_other_alt() : err ? e != 0 : 0);
	CHECK(pid > 0);
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	printf("%s: child %s %d, errno after fork %d\n", mode, WIFSIGNALED(st) ? "killed by signal" : "exit",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), e);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (alt_set)
		CHECK(on_other_alt());
	if (err)
		CHECK(e == 0);
	return check_result("fork_own_stack");
}

int main(int argc, char **argv)
{
	tid_field = dlsym(RTLD_DEFAULT, "_thread_db_pthread_tid");
	const char *mode = argc > 1 ? argv[1] : "";
	int alt = strncmp(mode, "altstack", 8) == 0, threads = strcmp(mode, "altstack_threads") == 0;
	int from_main = !strcmp(mode, "atfork_sigaltstack") || !strcmp(mode, "atfork_deep") || !strcmp(mode, "errno");
	int pidns = strcmp(mode, "thread_pidns") == 0;
	if (!alt && !from_main && !pidns && strcmp(mode, "thread") != 0) {
		fprintf(stderr, "usage: test_fork_own_stack altstack|altstack_threads|thread|thread_pidns|"
			"atfork_sigaltstack|atfork_deep|errno\n");
		return 2;
	}
	if (pidns && getpid() != 1)
		SKIP("thread_pidns: not pid 1 of a pid namespace (run it under unshare --pid --fork)");
	unsigned char *stack = malloc(STACK);
	CHECK(stack != NULL);
	memset(stack, 1, STACK);
	if (!on_hugetlb(stack) || !on_hugetlb(stack + STACK - 1))
		SKIP("the %d MiB stack block is not on 2 MiB pages (backend %s, pages %s): no pool room", STACK >> 20,
		     hugepolicy_backend(), hugepolicy_pages());
	if (from_main)
		return main_fork(mode, stack);
	struct hugepolicy_stats st;
	nblk = fill_pool(blk, MAXBLOCKS, BLOCK, &st);
	if (st.hugetlb_fallbacks == 0)
		SKIP("the pool still has room after %d blocks", nblk);
	pthread_t w;
	if (threads)
		CHECK(pthread_create(&w, NULL, writer, NULL) == 0);
	if (alt) {
		stack_t ss = { .ss_sp = stack, .ss_size = STACK };
		CHECK(sigaltstack(&ss, NULL) == 0);
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_ONSTACK;
		CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
		raise(SIGUSR1);
		stack_t now;
		CHECK(sigaltstack(NULL, &now) == 0 && now.ss_sp == stack && now.ss_size == STACK &&
		      !(now.ss_flags & SS_DISABLE));     /* the program's sigaltstack is put back */
	} else {
		pthread_attr_t at;
		pthread_t t;
		pthread_attr_init(&at);
		CHECK(pthread_attr_setstack(&at, stack, STACK) == 0);
		CHECK(pthread_create(&t, &at, forker, pidns ? "pidns" : NULL) == 0);
		pthread_join(t, NULL);
	}
	if (threads) {
		atomic_store(&stop, 1);
		pthread_join(w, NULL);
	}
	printf("%s: child %s %d\n", mode, WIFSIGNALED(child_status) ? "killed by signal" : "exit",
	       WIFSIGNALED(child_status) ? WTERMSIG(child_status) : WEXITSTATUS(child_status));
	CHECK(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
	CHECK(on_hugetlb(stack));               /* the parent keeps its pages */
	return check_result("fork_own_stack");
}
