/* faultinject.c - an LD_PRELOAD shim that makes chosen libc calls fail.
 *
 * Preload it before libhugepolicy.so (LD_PRELOAD="libfaultinject.so
 * libhugepolicy.so", or just it for a program linked with hugepolicy): its
 * mmap/munmap/madvise/open/openat/read wrap libc's, reached through
 * dlsym(RTLD_NEXT) (or the raw syscall while that lookup runs).  It never
 * calls malloc: it may run inside the first malloc of the process.
 *
 *   FI_CALL   which calls count: mmap (every mmap), hugetlb (mmap with
 *             MAP_HUGETLB), madvise (every madvise), populate (madvise with
 *             MADV_POPULATE_WRITE, 23), hugepage (madvise with
 *             MADV_HUGEPAGE), open (open/openat and their 64
 *             names), read; and munmap (the mapping stays: a leak made on
 *             purpose, to show that a leak check can fail)
 *   FI_NTH    the Nth counted call fails (1 = the first; default 1)
 *   FI_MODE   once (default: the Nth call only) or from (every call from the Nth on)
 *   FI_ERRNO  the errno it fails with: a name (ENOMEM, EINVAL, EAGAIN, EPERM,
 *             EACCES, EFAULT, ENFILE, EMFILE, ENOENT, EIO, ENODEV, EINTR) or
 *             a number (default ENOMEM).  EINTR with FI_MODE=from makes
 *             every retry fail too: hugepolicy's read loops (and any
 *             correct EINTR loop) then spin forever, as expected
 *
 * At exit (not _exit) it writes one line to stderr:
 *   faultinject: call=mmap nth=5 mode=once errno=12 calls=37 injected=1
 * and faultinject_calls() gives a program the calls counted so far (with
 * a large FI_NTH: a counter that injects nothing).
 * Without FI_CALL it only passes calls through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum { K_NONE, K_MMAP, K_HUGETLB, K_MADVISE, K_POPULATE, K_HUGEPAGE, K_OPEN, K_READ, K_MUNMAP };
static const char *const kind_names[] = { "none", "mmap", "hugetlb", "madvise", "populate", "hugepage", "open", "read",
					  "munmap" };

static atomic_int configured;          /* 0 no, 1 in progress, 2 done */
static int kind = K_NONE, from_mode, fail_errno = ENOMEM;
static long nth = 1;
static atomic_long calls, injected;

static void configure(void)
{
	int expected = 0;
	if (atomic_load_explicit(&configured, memory_order_acquire) == 2)
		return;
	if (!atomic_compare_exchange_strong(&configured, &expected, 1)) {
		while (atomic_load(&configured) != 2)
			;                       /* another thread parses: a few getenv calls */
		return;
	}
	const char *c = getenv("FI_CALL"), *n = getenv("FI_NTH"), *m = getenv("FI_MODE"), *e = getenv("FI_ERRNO");
	for (int i = 1; c && i < (int)(sizeof kind_names / sizeof kind_names[0]); i++)
		if (strcmp(c, kind_names[i]) == 0)
			kind = i;
	if (n && atol(n) > 0)
		nth = atol(n);
	from_mode = m && strcmp(m, "from") == 0;
	if (e) {
		static const struct { const char *name; int v; } names[] = {
			{ "ENOMEM", ENOMEM }, { "EINVAL", EINVAL }, { "EAGAIN", EAGAIN }, { "EPERM", EPERM },
			{ "EACCES", EACCES }, { "EFAULT", EFAULT }, { "ENFILE", ENFILE }, { "EMFILE", EMFILE },
			{ "ENOENT", ENOENT }, { "EIO", EIO }, { "ENODEV", ENODEV }, { "EINTR", EINTR },
		};
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (strcmp(e, names[i].name) == 0)
				fail_errno = names[i].v;
		if (atoi(e) > 0)
			fail_errno = atoi(e);
	}
	atomic_store_explicit(&configured, 2, memory_order_release);
}

/* 1: this call of kind k fails now */
static int should_fail(int k)
{
	configure();
	if (k != kind)
		return 0;
	long i = atomic_fetch_add(&calls, 1) + 1;
	if (i == nth || (from_mode && i > nth)) {
		atomic_fetch_add(&injected, 1);
		return 1;
	}
	return 0;
}

EXPORT long faultinject_calls(void)
{
	configure();
	return atomic_load(&calls);
}

/* ---- the real functions ---- */
static __thread int resolving __attribute__((tls_model("initial-exec")));

static void *real(const char *name, void *_Atomic *slot)
{
	void *f = atomic_load_explicit(slot, memory_order_acquire);
	if (f || resolving)
		return f;                       /* NULL: the caller uses the raw syscall */
	resolving = 1;
	f = dlsym(RTLD_NEXT, name);
	resolving = 0;
	atomic_store_explicit(slot, f, memory_order_release);
	return f;
}
static void *_Atomic real_mmap, *_Atomic real_munmap, *_Atomic real_madvise, *_Atomic real_openat, *_Atomic real_read;
#define REAL(type, name) ((type)real(#name, &real_##name))

typedef void *(*mmap_t)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_t)(void *, size_t);
typedef int (*madvise_t)(void *, size_t, int);
typedef int (*openat_t)(int, const char *, int, ...);
typedef int (*open_t)(const char *, int, ...);
typedef ssize_t (*read_t)(int, void *, size_t);

static void *do_mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	if (should_fail((flags & MAP_HUGETLB) && kind == K_HUGETLB ? K_HUGETLB : K_MMAP)) {
		errno = fail_errno;
		return MAP_FAILED;
	}
	mmap_t f = REAL(mmap_t, mmap);
	return f ? f(a, n, prot, flags, fd, off) : (void *)syscall(SYS_mmap, a, n, prot, flags, fd, off);
}

EXPORT void *mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	return do_mmap(a, n, prot, flags, fd, off);
}

EXPORT void *mmap64(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	return do_mmap(a, n, prot, flags, fd, off);
}

EXPORT int munmap(void *a, size_t n)
{
	if (should_fail(K_MUNMAP)) {
		errno = fail_errno;
		return -1;
	}
	munmap_t f = REAL(munmap_t, munmap);
	return f ? f(a, n) : (int)syscall(SYS_munmap, a, n);
}

EXPORT int madvise(void *a, size_t n, int advice)
{
	int k = advice == 23 && kind == K_POPULATE ? K_POPULATE : advice == MADV_HUGEPAGE && kind == K_HUGEPAGE
		? K_HUGEPAGE : K_MADVISE;
	if (should_fail(k)) {
		errno = fail_errno;
		return -1;
	}
	madvise_t f = REAL(madvise_t, madvise);
	return f ? f(a, n, advice) : (int)syscall(SYS_madvise, a, n, advice);
}

static int do_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	if (should_fail(K_OPEN)) {
		errno = fail_errno;
		return -1;
	}
	openat_t f = REAL(openat_t, openat);
	return f ? f(dirfd, path, flags, mode) : (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags, mode);
}

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	if (should_fail(K_READ)) {
		errno = fail_errno;
		return -1;
	}
	read_t f = REAL(read_t, read);
	return f ? f(fd, buf, n) : syscall(SYS_read, fd, buf, n);
}

/* ---- the exit line (write(2), a fixed buffer) ---- */
static char *put(char *o, char *end, const char *s)
{
	while (*s && o < end)
		*o++ = *s++;
	return o;
}

static char *put_long(char *o, char *end, long v)
{
	char tmp[24];
	int i = 0;
	do
		tmp[i++] = (char)('0' + v % 10);
	while ((v /= 10) > 0 && i < (int)sizeof tmp);
	while (i > 0 && o < end)
		*o++ = tmp[--i];
	return o;
}

__attribute__((destructor)) static void fi_report(void)
{
	configure();
	if (kind == K_NONE)
		return;
	char buf[160], *o = buf, *end = buf + sizeof buf - 1;
	o = put(o, end, "faultinject: call=");
	o = put(o, end, kind_names[kind]);
	o = put(o, end, " nth=");
	o = put_long(o, end, nth);
	o = put(o, end, from_mode ? " mode=from errno=" : " mode=once errno=");
	o = put_long(o, end, fail_errno);
	o = put(o, end, " calls=");
	o = put_long(o, end, atomic_load(&calls));
	o = put(o, end, " injected=");
	o = put_long(o, end, atomic_load(&injected));
	*o++ = '\n';
	ssize_t rc = syscall(SYS_write, 2, buf, (size_t)(o - buf));
	(void)rc;
}
