/* test_report_host.c - a small host linked with hugepolicy, for the report
 * tests (test_report.sh).
 *   test_report_host reuse-fd2 FILE   close fd 2, open FILE (lands on fd 2),
 *                                     write "host-data\n" to it, exit without
 *                                     closing it (as python's os.open would)
 *   test_report_host system FILE CMD  close fds 0-2 (if open), open FILE three
 *                                     times (it lands on fds 0, 1, 2), run
 *                                     CMD with system(), then write "DATA\n"
 *                                     on the first fd: CMD inherits FILE as
 *                                     its stderr
 *   test_report_host fds              print "pid N fds M backend B": M = open
 *                                     fds >= 3 (hugepolicy must keep none)
 *   test_report_host end HOW          end by HOW: _exit (status 5), _Exit (6), quick_exit (7,
 *                                     its handler prints "quick-exit-handler"),
 *                                     fork (a child that _exits 0, then
 *                                     _exit(8)), vfork (the same by vfork,
 *                                     then return 9), altstack (a SIGSEGV
 *                                     handler on an 8 KiB sigaltstack, a
 *                                     crash handler's, calls _exit(10)),
 *                                     seccomp (_exit(11) under a seccomp
 *                                     filter that kills the process at any
 *                                     system call but exit_group and exit),
 *                                     quick_exit_2.10 (quick_exit@GLIBC_2.10,
 *                                     a pre-2.24 binary's, which runs
 *                                     thread_local destructors: one prints
 *                                     "thread-local-dtor", then status 12)
 *   test_report_host                  allocate a little and exit
 * Each mode allocates (8 MiB touched, and small blocks) so there is something
 * to report.  Exit status 0, or 3 when the set-up itself failed. */
#define _GNU_SOURCE
#include "hugepolicy.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <unistd.h>

static void allocate(void)
{
	char *big = malloc(8u << 20);
	if (big)
		memset(big, 1, 8u << 20);
	for (int i = 0; i < 100; i++)
		free(malloc((size_t)i * 16 + 1));
	free(big);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd >= 3 && fd != dirfd(d))
			n++;
	}
	closedir(d);
	return n;
}

static void quick_exit_handler(void)
{
	printf("quick-exit-handler\n");
	fflush(stdout);
}

static void crash_handler(int sig)
{
	(void)sig;
	_exit(10);
}

/* from here on, any system call but exit_group and exit kills the process */
static int only_exit_syscalls(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof f / sizeof f[0], .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

#if defined(__x86_64__)
extern void *__dso_handle;
int __cxa_thread_atexit_impl(void (*dtor)(void *), void *obj, void *dso);
__asm__(".symver quick_exit_2_10, quick_exit@GLIBC_2.10");
void quick_exit_2_10(int status);

static void thread_local_dtor(void *obj)
{
	(void)obj;
	printf("thread-local-dtor\n");
	fflush(stdout);
}
#endif

static int end(const char *how)
{
	pid_t child;
	if (strcmp(how, "_exit") == 0)
		_exit(5);
	if (strcmp(how, "_Exit") == 0)
		_Exit(6);
	if (strcmp(how, "quick_exit") == 0) {
		if (at_quick_exit(quick_exit_handler) != 0)
			return 3;
		quick_exit(7);
	}
	if (strcmp(how, "fork") == 0) {
		if ((child = fork()) == 0)
			_exit(0);
		if (child < 0 || waitpid(child, NULL, 0) != child)
			return 3;
		_exit(8);
	}
	if (strcmp(how, "vfork") == 0) {
		if ((child = vfork()) == 0)
			_exit(0);
		if (child < 0 || waitpid(child, NULL, 0) != child)
			return 3;
		return 9;
	}
	if (strcmp(how, "altstack") == 0) {
		static char alt[8192];
		stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt };
		struct sigaction sa = { .sa_handler = crash_handler, .sa_flags = SA_ONSTACK };
		if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGSEGV, &sa, NULL) != 0)
			return 3;
		raise(SIGSEGV);
	}
	if (strcmp(how, "seccomp") == 0) {
		if (only_exit_syscalls() != 0)
			return 3;
		_exit(11);
	}
#if defined(__x86_64__)
	if (strcmp(how, "quick_exit_2.10") == 0) {
		if (__cxa_thread_atexit_impl(thread_local_dtor, NULL, &__dso_handle) != 0)
			return 3;
		quick_exit_2_10(12);
	}
#endif
	return 3;
}

int main(int argc, char **argv)
{
	allocate();
	if (argc == 3 && strcmp(argv[1], "reuse-fd2") == 0) {
		close(2);
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd != 2) {
			printf("set-up failed: open gave fd %d, not 2\n", fd);
			return 3;
		}
		allocate();
		static const char data[] = "host-data\n";
		if (write(fd, data, sizeof data - 1) != (ssize_t)(sizeof data - 1))
			return 3;
		return 0;           /* fd 2 stays open: the exit report runs now */
	}
	if (argc == 4 && strcmp(argv[1], "system") == 0) {
		close(0);
		close(1);
		close(2);
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd != 0 || open(argv[2], O_WRONLY | O_APPEND) != 1 || open(argv[2], O_WRONLY | O_APPEND) != 2)
			return 3;
		if (system(argv[3]) == -1)
			return 3;
		return write(fd, "DATA\n", 5) == 5 ? 0 : 3;
	}
	if (argc == 3 && strcmp(argv[1], "end") == 0)
		return end(argv[2]);
	if (argc == 2 && strcmp(argv[1], "fds") == 0) {
		printf("pid %d fds %d backend %s\n", (int)getpid(), open_fds(), hugepolicy_backend());
		return 0;
	}
	return 0;
}
