/*
 * readfile.c - reading the kernel's small text files (/proc, /sys, cgroupfs)
 * with open/read into the caller's fixed buffer: no malloc, no stdio, so it
 * may run inside the first malloc call.  Whole small files (one value) or a
 * file of lines streamed through one buffer (mountinfo may be long), or the
 * names in a directory (getdents64, no opendir: it mallocs).
 */
#define _GNU_SOURCE
#include "hp_policy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's files are regular (procfs, sysfs, cgroupfs): a FIFO would
 * block the open, a device (a fixture's link to /dev/urandom) never end. */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ESPIPE;         /* not EINVAL: that says "truncated" to callers */
	}
	return fd;
}

int hp_read_small(const char *path, char *buf, size_t cap)
{
	if (cap == 0)
		return -EINVAL;
	int fd = open_regular(path);
	if (fd < 0)
		return fd;
	size_t len = 0;
	int rc = 0;
	while (len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return rc ? rc : (int)len;
}

int hp_read_line(const char *path, char *buf, size_t cap, const char **why)
{
	int n = hp_read_small(path, buf, cap);
	if (n == -ESPIPE)
		*why = "not a regular file";    /* open_regular: a FIFO, a device, a directory */
	else if (n < 0)
		*why = strerrorname_np(-n) ? strerrorname_np(-n) : "cannot be read";
	else if ((size_t)n + 1 >= cap)
		*why = "too long", n = -EINVAL;
	else if (n == 0 || buf[n - 1] != '\n')
		*why = "truncated (no newline)", n = -EINVAL;
	else
		buf[--n] = '\0';
	return n;
}

int hp_read_lines(const char *path, char *buf, size_t cap,
		  int (*fn)(void *ctx, char *line, size_t len, int whole), void *ctx)
{
	if (cap < 2)
		return EINVAL;
	int fd = open_regular(path);
	if (fd < 0)
		return -fd;
	size_t len = 0;         /* bytes of the current, unfinished line in buf */
	int skipping = 0;       /* discarding the rest of an overlong line */
	int rc = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno;
			break;
		}
		if (n == 0) {
			if (len || skipping)
				rc = EINVAL;    /* last line has no newline: truncated */
			break;
		}
		len += (size_t)n;
		size_t start = 0;
		char *nl;
		while ((nl = memchr(buf + start, '\n', len - start)) != NULL) {
			size_t l = (size_t)(nl - (buf + start));
			*nl = '\0';
			if (!skipping)
				rc = fn(ctx, buf + start, l, 1);
			skipping = 0;
			start += l + 1;
			if (rc)
				goto out;
		}
		memmove(buf, buf + start, len - start);
		len -= start;
		if (len == cap - 1) {   /* a full buffer and no newline */
			if (!skipping) {
				buf[len] = '\0';
				rc = fn(ctx, buf, len, 0);
				if (rc)
					goto out;
			}
			skipping = 1;
			len = 0;
		}
	}
out:
	close(fd);
	return rc;
}

int hp_read_dir(const char *path, void (*fn)(void *ctx, const char *name), void *ctx)
{
	char buf[2048];
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	for (long n; (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0;)
		for (long off = 0; off < n; off += ((struct dirent64 *)(buf + off))->d_reclen) {
			const char *name = ((struct dirent64 *)(buf + off))->d_name;
			if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
				fn(ctx, name);
		}
	close(fd);
	return 0;
}
