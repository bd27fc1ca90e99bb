/* test_main.c - support_test_main, the supervisor behind test-driver.c:
 * fork, run the test in the child (its own process group, a private
 * $TMPDIR), wait at most TIMEOUT x $TIMEOUTFACTOR seconds, and turn the
 * child's end into 0 (pass), 1 (fail) or 77 (unsupported), honouring
 * EXPECTED_STATUS and EXPECTED_SIGNAL.  On a timeout it prints a gdb
 * backtrace of every process left in the test's group (when gdb is
 * installed and $HP_GLIBC_NO_GDB is unset), then kills the group. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <support/check.h>
#include <support/test-driver.h>

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[4096];

static void make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/hpglibc-XXXXXX", base && *base ? base : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		printf("warning: mkdtemp(%s): %m; temporary files go to $TMPDIR\n", tmpdir);
		tmpdir[0] = '\0';
		return;
	}
	setenv("TMPDIR", tmpdir, 1);
}

static void remove_tmpdir(void)
{
	DIR *d = tmpdir[0] ? opendir(tmpdir) : NULL;
	if (d == NULL)
		return;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(tmpdir);
}

static unsigned int timeout_seconds(const struct test_config *c)
{
	unsigned int t = c->timeout > 0 ? (unsigned int)c->timeout : DEFAULT_TIMEOUT;
	const char *f = getenv("TIMEOUTFACTOR");
	long factor = f ? strtol(f, NULL, 10) : 1;
	return factor > 0 ? t * (unsigned int)factor : t;
}

static int run_test(const struct test_config *c, int argc, char **argv)
{
	int r = c->test_function_argv ? c->test_function_argv(argc, argv)
		: c->test_function();
	return support_report_failure(r);
}

/* What a hang looks like: gdb's `thread apply all bt` for each process. */
static void backtrace_group(pid_t pgid)
{
	const char *gdb = "/usr/bin/gdb";
	if (getenv("HP_GLIBC_NO_GDB") != NULL || access(gdb, X_OK) != 0) {
		puts("info: no backtrace (gdb not installed or HP_GLIBC_NO_GDB set)");
		return;
	}
	DIR *d = opendir("/proc");
	int shown = 0;
	for (struct dirent *e; d != NULL && shown < 8 && (e = readdir(d)) != NULL;) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 0 || getpgid(pid) != pgid)
			continue;
		char arg[16];
		snprintf(arg, sizeof(arg), "%d", (int)pid);
		printf("info: backtrace of process %d of the test\n", (int)pid);
		pid_t g = fork();
		if (g == 0) {
			dup2(STDOUT_FILENO, STDERR_FILENO);
			execl(gdb, "gdb", "-batch", "-nx", "-p", arg,
				"-ex", "thread apply all bt", (char *)NULL);
			_exit(127);
		}
		if (g > 0)
			waitpid(g, NULL, 0);
		shown++;
	}
	if (d != NULL)
		closedir(d);
}

/* Wait for PID at most SECONDS with SIGCHLD blocked: 1 if it ended. */
static int wait_child(pid_t pid, unsigned int seconds, const sigset_t *chld, int *status)
{
	struct timespec now, end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR) {
			printf("error: waitpid(%d): %m\n", (int)pid);
			*status = 1 << 8;
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return 0;
		struct timespec left = { end.tv_sec - now.tv_sec, end.tv_nsec - now.tv_nsec };
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		sigtimedwait(chld, NULL, &left);
	}
}

static int end_status(const struct test_config *c, int status)
{
	if (WIFEXITED(status)) {
		int code = WEXITSTATUS(status);
		if (c->expected_signal != 0) {
			printf("error: expected signal %d (%s), got exit status %d\n",
				c->expected_signal, strsignal(c->expected_signal), code);
			return 1;
		}
		if (c->expected_status != 0) {
			if (code == c->expected_status)
				return support_report_failure(0);
			printf("error: expected exit status %d, got %d\n", c->expected_status, code);
			return 1;
		}
		return code == 0 || code == 77 ? support_report_failure(code) : code;
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		if (c->expected_signal != 0 && sig == c->expected_signal)
			return support_report_failure(0);
		printf("error: the test was killed by signal %d (%s)\n", sig, strsignal(sig));
		return 1;
	}
	printf("error: unexpected wait status 0x%x\n", (unsigned int)status);
	return 1;
}

int support_test_main(int argc, char **argv, const struct test_config *c)
{
	int direct = argc > 1 && strcmp(argv[1], "--direct") == 0;
	if (direct) {
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (!c->no_mallopt)
		mallopt(M_PERTURB, 42);
	if (!c->no_setvbuf)
		setvbuf(stdout, NULL, _IONBF, 0);
	if (c->prepare_function != NULL)
		c->prepare_function(argc, argv);
	if (direct)
		return run_test(c, argc, argv);

	make_tmpdir();
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		printf("error: fork: %m\n");
		return 1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &old, NULL);
		exit(run_test(c, argc, argv));
	}
	setpgid(pid, pid);      /* either of the two calls wins the race */

	unsigned int seconds = timeout_seconds(c);
	int status = 0;
	if (!wait_child(pid, seconds, &chld, &status)) {
		printf("Timed out: the test ran more than %u s\n", seconds);
		backtrace_group(pid);
		if (c->cleanup_function != NULL)
			c->cleanup_function();
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		remove_tmpdir();
		return 1;
	}
	remove_tmpdir();
	return end_status(c, status);
}
