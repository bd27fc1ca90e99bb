/* vfs.c - see vfs.h. */
#define _GNU_SOURCE
#include "vfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int __real_open(const char *path, int flags, ...);
long __real_syscall(long nr, ...);
ssize_t __real_read(int fd, void *buf, size_t n);
int __real_close(int fd);
int __real_fstat(int fd, struct stat *st);

struct vfile { const char *path; const uint8_t *data; size_t len; };

static uint8_t store[1 << 17];
static struct vfile files[VFS_MAX_FILES];
static int nfiles;

/* open files and directories: fds from FD_BASE up, which no real file gets
 * (the kernel's limit on fds is far below); no system call per file */
#define FD_BASE 0x40000000
#define MAX_OPEN 16
static struct ofile {
	int used, dir, done;
	const uint8_t *data;
	size_t len, pos;
	char path[256];
} open_files[MAX_OPEN];
static size_t chunk;            /* bytes per read(2), like a pipe or seq_file */

int vfs_count(void)
{
	return nfiles;
}

const uint8_t *vfs_find(const char *path, size_t *len)
{
	for (int i = 0; i < nfiles; i++)
		if (strcmp(files[i].path, path) == 0) {
			*len = files[i].len;
			return files[i].data;
		}
	return NULL;
}

static void reset_dirs(size_t size)
{
	memset(open_files, 0, sizeof open_files);
	/* most inputs are read whole; some in odd-sized pieces */
	chunk = size % 3 == 0 ? 1 + size % 61 : 1 << 16;
}

void vfs_load(const uint8_t *data, size_t size)
{
	nfiles = 0;
	reset_dirs(size);
	if (size >= sizeof store)
		size = sizeof store - 1;
	memcpy(store, data, size);
	store[size] = '\0';
	for (size_t at = 0; at < size && nfiles < VFS_MAX_FILES;) {
		uint8_t *piece = store + at;
		size_t n = strlen((char *)piece);         /* up to the next NUL */
		uint8_t *nl = memchr(piece, '\n', n);
		at += n + 1;
		if (!nl || piece[0] != '/')
			continue;
		*nl = '\0';
		size_t len = n - (size_t)(nl + 1 - piece);
		files[nfiles++] = (struct vfile){ (char *)piece, nl + 1, len > VFS_MAX_BYTES ? VFS_MAX_BYTES : len };
	}
}

void vfs_load_one(const char *path, const uint8_t *data, size_t size)
{
	size_t pl = strlen(path);
	if (size > VFS_MAX_BYTES)
		size = VFS_MAX_BYTES;
	memcpy(store, path, pl + 1);
	memcpy(store + pl + 1, data, size);
	files[0] = (struct vfile){ (char *)store, store + pl + 1, size };
	nfiles = 1;
	reset_dirs(size);
}

static int root_mode;

void vfs_under_root(int on)
{
	root_mode = on;
}

/* The loaded file a read-only open names: under VFS_ROOT in root mode, else
 * the path itself; NULL: no such file (never the machine's). */
static const char *virtual_path(const char *path)
{
	size_t rl = strlen(VFS_ROOT);
	if (!root_mode)
		return path;
	if (strncmp(path, VFS_ROOT, rl) == 0 && (path[rl] == '/' || path[rl] == '\0'))
		return path + rl;
	return NULL;
}

static int open_fake(const uint8_t *data, size_t len, int dir, const char *path)
{
	for (int i = 0; i < MAX_OPEN; i++) {
		struct ofile *f = &open_files[i];
		if (f->used)
			continue;
		memset(f, 0, sizeof *f);
		f->used = 1, f->dir = dir, f->data = data, f->len = len;
		if (dir)
			memcpy(f->path, path, strlen(path) + 1);
		return FD_BASE + i;
	}
	errno = EMFILE;
	return -1;
}

static struct ofile *fake(int fd)
{
	unsigned i = (unsigned)fd - FD_BASE;
	return i < MAX_OPEN && open_files[i].used ? &open_files[i] : NULL;
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	struct ofile *f = fake(fd);
	if (!f)
		return __real_read(fd, buf, n);
	if (f->dir) {
		errno = EISDIR;
		return -1;
	}
	size_t k = f->len - f->pos;
	if (k > n)
		k = n;
	if (k > chunk)
		k = chunk;
	memcpy(buf, f->data + f->pos, k);
	f->pos += k;
	return (ssize_t)k;
}

int __wrap_close(int fd)
{
	struct ofile *f = fake(fd);
	if (!f)
		return __real_close(fd);
	f->used = 0;
	return 0;
}

/* a fake file is a regular file (readfile.c refuses anything else), a
 * fake directory a directory */
int __wrap_fstat(int fd, struct stat *st)
{
	struct ofile *f = fake(fd);
	if (!f)
		return __real_fstat(fd, st);
	memset(st, 0, sizeof *st);
	st->st_mode = f->dir ? S_IFDIR | 0555 : S_IFREG | 0444;
	st->st_size = (off_t)f->len;
	return 0;
}

static int is_dir(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	for (int i = 0; i < nfiles; i++)
		if (strncmp(files[i].path, path, n) == 0 && files[i].path[n] == '/')
			return 1;
	return n == 1 && path[0] == '/';
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	int mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0;
	va_end(ap);
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT))
		return __real_open("/dev/null", O_WRONLY | (flags & O_CLOEXEC), mode);
	if (path[0] != '/')
		return __real_open(path, flags, mode);
	const char *v = virtual_path(path);
	if (!v) {
		errno = ENOENT;
		return -1;
	}
	if (!(flags & O_DIRECTORY))
		for (int i = 0; i < nfiles; i++)
			if (strcmp(files[i].path, v) == 0)
				return open_fake(files[i].data, files[i].len, 0, NULL);
	if (is_dir(v) && strlen(v) < sizeof open_files[0].path)
		return open_fake(NULL, 0, 1, v);
	errno = ENOENT;
	return -1;
}

/* getdents64 on a fake directory: its children, once, then 0 */
static long list_dir(struct ofile *d, char *buf, size_t cap)
{
	size_t n = strlen(d->path), used = 0;
	while (n > 1 && d->path[n - 1] == '/')
		n--;
	if (d->done)
		return 0;
	d->done = 1;
	for (int i = 0; i < nfiles; i++) {
		const char *p = files[i].path;
		if (strncmp(p, d->path, n) != 0 || (n > 1 && p[n] != '/'))
			continue;
		const char *name = p + n + (n > 1);
		size_t len = strcspn(name, "/");
		int dup = 0;            /* listed already by an earlier file */
		for (int j = 0; j < i && !dup; j++) {
			const char *q = files[j].path;
			dup = strncmp(q, p, (size_t)(name - p) + len) == 0 &&
			      (q[(name - p) + len] == '/' || q[(name - p) + len] == '\0');
		}
		if (dup || len == 0 || len > 255)
			continue;
		size_t reclen = (offsetof(struct dirent64, d_name) + len + 1 + 7) & ~(size_t)7;
		if (used + reclen > cap)
			break;
		struct dirent64 *e = (struct dirent64 *)(buf + used);
		memset(e, 0, reclen);
		e->d_ino = (ino64_t)(i + 1);
		e->d_off = (off64_t)(used + reclen);
		e->d_reclen = (unsigned short)reclen;
		e->d_type = name[len] == '/' ? DT_DIR : DT_REG;
		memcpy(e->d_name, name, len);
		used += reclen;
	}
	return (long)used;
}

/* Forwarding takes six arguments whatever the caller passed (the x86-64
 * convention makes that harmless); ASan would call it an underflow. */
__attribute__((no_sanitize("address")))
long __wrap_syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	struct ofile *f = nr == SYS_getdents64 ? fake((int)a[0]) : NULL;
	if (f && f->dir)
		return list_dir(f, (char *)a[1], (size_t)a[2]);
	if (f) {
		errno = ENOTDIR;
		return -1;
	}
	return __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
