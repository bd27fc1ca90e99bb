/*
 * log.c - where hugepolicy's output goes: the HUGEPOLICY_LOG file, else fd 2
 * while it is still the stderr the process started with, else nowhere.
 *
 * A host that closed fd 2 gets its next open() there, and a line written to
 * "stderr" then lands in the host's file.  So start-up records whether fd 2
 * is open and which file it is (st_dev/st_ino), and a message goes to fd 2
 * only while fstat(2) still names that file; otherwise it is dropped.
 *
 * The log file is opened for each message (O_APPEND, the whole message in
 * one write, so lines of processes sharing a file never interleave) and
 * closed at once.  A kept-open fd, even one moved high with F_DUPFD_CLOEXEC,
 * is an fd the host does not know of: a daemon's close-all loop closes it,
 * the number is reused for the host's next file, and the report lands
 * there - the very bug this file exists to avoid.  Messages are a handful
 * per process, so the open/close pair costs nothing that matters.
 *
 * No allocation, no stdio: this runs inside the first malloc.
 */
#define _GNU_SOURCE
#include "hp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { FD2_UNKNOWN, FD2_CLOSED, FD2_OPEN };
static atomic_int fd2_state;
static _Atomic unsigned long long fd2_dev, fd2_ino;

static char log_path[HP_LOG_PATH_MAX];      /* template, absolute when it could be made so */
static atomic_int log_on;                   /* log_path is set */
static atomic_int log_warned;               /* the "cannot be opened" line was printed */
static atomic_int log_write_warned;         /* the "cannot be written" line was printed */

void hp_log_start(void)
{
	if (atomic_load_explicit(&fd2_state, memory_order_acquire) != FD2_UNKNOWN)
		return;
	struct stat st;
	int s = FD2_CLOSED;
	if (fstat(2, &st) == 0) {
		atomic_store(&fd2_dev, (unsigned long long)st.st_dev);
		atomic_store(&fd2_ino, (unsigned long long)st.st_ino);
		s = FD2_OPEN;
	}
	int expected = FD2_UNKNOWN;
	atomic_compare_exchange_strong(&fd2_state, &expected, s);
}

/* fd 2 is the file it was at start-up */
static int stderr_is_ours(void)
{
	struct stat st;
	hp_log_start();
	if (atomic_load_explicit(&fd2_state, memory_order_acquire) != FD2_OPEN || fstat(2, &st) != 0)
		return 0;
	return (unsigned long long)st.st_dev == atomic_load(&fd2_dev) &&
	       (unsigned long long)st.st_ino == atomic_load(&fd2_ino);
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
	hp_write_all(2, line, b.len);
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
		if (!atomic_exchange(&log_warned, 1) && stderr_is_ours())
			say_log_problem(path, "opened", rc);
	}
	return stderr_is_ours() ? 2 : -1;
}

void hp_log_close(int fd, int opened)
{
	if (opened)
		close(fd);
}

/* The log file opened but refused the write (/dev/full: ENOSPC; a full
 * disk, EFBIG, EIO): said once on stderr; 2 to write the text there
 * instead, or -1 when fd 2 is no longer the process's stderr. */
int hp_log_write_failed(int err)
{
	if (!stderr_is_ours())
		return -1;
	if (!atomic_exchange(&log_write_warned, 1))
		say_log_problem(log_path, "written", err);
	return 2;
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
