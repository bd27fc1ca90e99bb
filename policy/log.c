/*
 * log.c - where hugepolicy's output goes: the HUGEPOLICY_LOG file, else the
 * stderr of the process tree while fd 2 (or the copy kept for the report)
 * is still that file, else nowhere.
 *
 * A host that closed fd 2 gets its next open() there, and a line written to
 * "stderr" then lands in the host's file - and in the files of every child
 * that inherits that fd 2 (system() after the host opened a data file with
 * fds 0-2 closed).  So:
 *  - start-up records whether fd 2 is open and which file it is
 *    (st_dev/st_ino);
 *  - HUGEPOLICY_REPORT_STDERR names the stderr of the tree: "DEV:INO", or
 *    "none" when its first process started without fd 2.  The first process
 *    (the variable unset) exports its own record.  A process whose start-up
 *    fd 2 is not that file looks at its parent's fd 2 now
 *    (/proc/PPID/fd/2): the same file (or it cannot be told) means the
 *    parent passed on a file it opened for itself - fd 2 is then never
 *    written to; another file means the parent set up a new stderr for this
 *    process (a pipe to capture it, 2>file), which becomes the stderr of
 *    its subtree (exported again).  The variable only ever takes a sink
 *    away, never gives one: a process whose own fd 2 was closed at start-up
 *    never writes there;
 *  - a message goes to fd 2 only while fstat(2) still names the recorded
 *    file; otherwise it is dropped.
 *
 * A process that reports at exit (HUGEPOLICY_STATS, or the verbose "at
 * exit" line) keeps a copy of its stderr (F_DUPFD_CLOEXEC, placed high), so
 * that a program that closes fd 2 before exit (coreutils' close_stdout)
 * still gets the report it asked for.  That copy is written to only while
 * fstat still names the recorded file, so a host's close-all loop that
 * frees the number for another file cannot redirect the report there.  A
 * forked child that does not report closes it (a daemon must not hold a
 * pipe open for a report it never writes); exec closes it.
 *
 * The log file is opened for each message (O_APPEND, the whole message in
 * one write, so lines of processes sharing a file never interleave) and
 * closed at once: a kept-open log would be a file the host does not know
 * of, which the fstat check cannot tell from one the host opened there.
 * Messages are a handful per process, so the open/close pair costs nothing
 * that matters.
 *
 * No allocation, no stdio: this runs inside the first malloc.
 */
#define _GNU_SOURCE
#include "hp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* FD2_NONE: no stderr to write to (fd 2 closed at start-up, or not the
 * tree's stderr) */
enum { FD2_UNKNOWN, FD2_NONE, FD2_OPEN };
static atomic_int fd2_state;
static _Atomic unsigned long long fd2_dev, fd2_ino;
static atomic_int kept_fd = -1;             /* the copy of stderr kept for the exit report */
static int kept_in_children;                /* forked children report too: they keep it */
static atomic_int starts_tree;              /* export HUGEPOLICY_REPORT_STDERR for the subtree */

static char log_path[HP_LOG_PATH_MAX];      /* template, absolute when it could be made so */
static atomic_int log_on;                   /* log_path is set */
static atomic_int log_warned;               /* the "cannot be opened" line was printed */
static atomic_int log_write_warned;         /* the "cannot be written" line was printed */

void hp_log_start(void)
{
	if (atomic_load_explicit(&fd2_state, memory_order_acquire) != FD2_UNKNOWN)
		return;
	struct stat st;
	int s = FD2_NONE;
	if (fstat(2, &st) == 0) {
		atomic_store(&fd2_dev, (unsigned long long)st.st_dev);
		atomic_store(&fd2_ino, (unsigned long long)st.st_ino);
		s = FD2_OPEN;
	}
	int expected = FD2_UNKNOWN;
	atomic_compare_exchange_strong(&fd2_state, &expected, s);
}

/* The parent's fd 2 now is the file dev/ino, or it cannot be told
 * (/proc/PPID/fd/2 unreadable: another user's process, no /proc, the
 * parent's fd 2 closed). */
static int parent_fd2_may_be(unsigned long long dev, unsigned long long ino)
{
	char path[48];
	struct stat st;
	struct hp_buf b = { path, sizeof path, 0 };
	hp_buf_printf(&b, "/proc/%d/fd/2", (int)getppid());
	int saved = errno;
	int r = stat(path, &st);
	errno = saved;
	return r != 0 || ((unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino);
}

void hp_log_tree(int state, unsigned long long dev, unsigned long long ino)
{
	hp_log_start();
	if (state == HP_STDERR_UNSET) {
		atomic_store(&starts_tree, 1);  /* the first process: its fd 2, or none */
		return;
	}
	if (atomic_load_explicit(&fd2_state, memory_order_acquire) != FD2_OPEN)
		return;                 /* no stderr of its own: never one */
	unsigned long long d = atomic_load(&fd2_dev), i = atomic_load(&fd2_ino);
	if (state == HP_STDERR_FILE && dev == d && ino == i)
		return;                 /* the tree's stderr */
	if (parent_fd2_may_be(d, i)) {
		/* the parent passed on its own fd 2, which is not the tree's
		 * stderr: a file it opened for itself */
		atomic_store_explicit(&fd2_state, FD2_NONE, memory_order_release);
		return;
	}
	/* the parent set up a new stderr for this process (a pipe, 2>file):
	 * the stderr of its subtree */
	atomic_store(&starts_tree, 1);
}

int hp_log_tree_export(char *out, size_t cap)
{
	struct hp_buf b = { out, cap, 0 };
	if (!atomic_load(&starts_tree))
		return 0;
	if (atomic_load_explicit(&fd2_state, memory_order_acquire) == FD2_OPEN)
		hp_buf_printf(&b, "%llu:%llu", atomic_load(&fd2_dev), atomic_load(&fd2_ino));
	else
		hp_buf_printf(&b, "none");
	return b.len + 1 < cap;
}

/* fd is the file fd 2 was at start-up, and that is the tree's stderr */
static int is_our_stderr(int fd)
{
	struct stat st;
	hp_log_start();
	if (fd < 0 || atomic_load_explicit(&fd2_state, memory_order_acquire) != FD2_OPEN || fstat(fd, &st) != 0)
		return 0;
	return (unsigned long long)st.st_dev == atomic_load(&fd2_dev) &&
	       (unsigned long long)st.st_ino == atomic_load(&fd2_ino);
}

static int stderr_is_ours(void)
{
	return is_our_stderr(2);
}

/* where a line for stderr goes now: fd 2, else the kept copy, else -1 */
static int stderr_fd(void)
{
	if (stderr_is_ours())
		return 2;
	int kept = atomic_load(&kept_fd);
	return is_our_stderr(kept) ? kept : -1;
}

static void forked_child(void)
{
	int fd = atomic_load(&kept_fd);
	if (fd >= 0 && !kept_in_children) {
		close(fd);
		atomic_store(&kept_fd, -1);
	}
}

void hp_log_keep_stderr(int children_report)
{
	if (atomic_load(&kept_fd) >= 0 || !stderr_is_ours())
		return;
	/* high, out of the way of the host's own numbers: 32 below the fd
	 * limit, capped at 1024 (a larger limit would grow the fd table) */
	struct rlimit rl;
	long top = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)top)
		top = (long)rl.rlim_cur;
	int fd = fcntl(2, F_DUPFD_CLOEXEC, (int)(top > 64 ? top - 32 : 3));
	if (fd < 0)
		return;
	kept_in_children = children_report;
	if (pthread_atfork(NULL, NULL, forked_child) != 0) {
		close(fd);
		return;
	}
	atomic_store(&kept_fd, fd);
}

/* The log file is what fd 2 is now, and fd 2 is no longer the stderr the
 * process started with (HUGEPOLICY_LOG=/dev/stderr in a host that closed
 * fd 2 and opened a data file there). */
static int is_host_fd2(int fd)
{
	struct stat a, b;
	if (fstat(fd, &a) != 0 || fstat(2, &b) != 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino && !stderr_is_ours();
}

int hp_log_set(const char *path)
{
	atomic_store(&log_on, 0);
	if (path == NULL || *path == '\0')
		return 0;
	size_t n = strlen(path);
	if (n >= sizeof log_path)
		return ENAMETOOLONG;
	/* a relative path is taken from the directory current at start-up, not
	 * wherever the host has gone by the time it exits */
	size_t pre = 0;
	int saved = errno;
	if (path[0] != '/' && getcwd(log_path, sizeof log_path) != NULL) {
		pre = strlen(log_path);
		if (pre > 0 && log_path[pre - 1] != '/')
			log_path[pre++] = '/';
		if (pre + n >= sizeof log_path)
			pre = 0;                /* too long: keep it relative */
	}
	errno = saved;
	memcpy(log_path + pre, path, n + 1);
	atomic_store_explicit(&log_on, 1, memory_order_release);
	return 0;
}

/* log_path with %p = the pid (now, so a forked child gets its own file) and
 * %% = %; 0, or ENAMETOOLONG */
static int expand(char *out, size_t cap)
{
	struct hp_buf b = { out, cap, 0 };
	for (const char *s = log_path; *s; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			hp_buf_printf(&b, "%d", (int)getpid());
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			hp_buf_printf(&b, "%%");
			s++;
		} else {
			hp_buf_printf(&b, "%c", *s);
		}
	}
	return b.len + 1 < cap ? 0 : ENAMETOOLONG;
}

/* "HUGEPOLICY_LOG 'path' cannot be <what> (ENAME); writing to stderr" */
static void say_log_problem(const char *path, const char *what, int err)
{
	char line[HP_LOG_PATH_MAX + 256];
	struct hp_buf b = { line, sizeof line - 1, 0 };
	const char *name = strerrorname_np(err);
	hp_buf_prefix(&b);
	hp_buf_printf(&b, "HUGEPOLICY_LOG '");
	hp_buf_escaped(&b, path, 256);
	hp_buf_printf(&b, "' cannot be %s (%s); writing to stderr", what, name ? name : "?");
	line[b.len++] = '\n';
	int fd = stderr_fd();
	if (fd >= 0)
		hp_write_all(fd, line, b.len);
}

int hp_log_open(int *opened)
{
	*opened = 0;
	if (atomic_load_explicit(&log_on, memory_order_acquire)) {
		char path[HP_LOG_PATH_MAX + 256];
		int rc = expand(path, sizeof path);
		if (rc == 0) {
			/* O_NONBLOCK: a FIFO without a reader is ENXIO, not a hang
			 * before main; cleared again for the write */
			int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
			if (fd >= 0 && fd <= 2) {
				/* fd 2 (or 0, 1) was free: the host closed it.  The log
				 * must not sit there (is_host_fd2 would take it for the
				 * host's stderr, and the host may open a file there next) */
				int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
				close(fd);
				fd = moved;
			}
			if (fd >= 0 && is_host_fd2(fd)) {
				close(fd);      /* /dev/stderr, /proc/self/fd/2: fd 2 is the host's now */
				return -1;
			}
			if (fd >= 0) {
				fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
				*opened = 1;
				return fd;
			}
			rc = errno;
		}
		if (!atomic_exchange(&log_warned, 1))
			say_log_problem(path, "opened", rc);
	}
	return stderr_fd();
}

void hp_log_close(int fd, int opened)
{
	if (opened)
		close(fd);
}

/* The log file opened but refused the write (/dev/full: ENOSPC; a full
 * disk, EFBIG, EIO): said once on stderr; the fd to write the text to
 * instead, or -1 without a stderr of the tree. */
int hp_log_write_failed(int err)
{
	int fd = stderr_fd();
	if (fd < 0)
		return -1;
	if (!atomic_exchange(&log_write_warned, 1))
		say_log_problem(log_path, "written", err);
	return fd;
}

void hp_log_write(const char *s, size_t n)
{
	int opened;
	int fd = hp_log_open(&opened);
	if (fd < 0)
		return;
	int rc = hp_write_all(fd, s, n);
	hp_log_close(fd, opened);
	if (rc != 0 && opened && (fd = hp_log_write_failed(rc)) >= 0)
		(void)hp_write_all(fd, s, n);
}
