/* xfuncs.c - the checked wrappers of support.h, xthread.h, xunistd.h,
 * xsignal.h and temp_file.h: each does the call, and on error prints one
 * line naming it and exits 1 (a recorded failure). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <support/check.h>
#include <support/support.h>
#include <support/temp_file.h>
#include <support/xsignal.h>
#include <support/xthread.h>
#include <support/xunistd.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

void write_message(const char *msg)
{
	int saved = errno;
	for (size_t off = 0, len = strlen(msg); off < len;) {
		ssize_t n = write(STDOUT_FILENO, msg + off, len - off);
		if (n <= 0 && errno != EINTR)
			break;
		if (n > 0)
			off += (size_t)n;
	}
	errno = saved;
}

/* for the calls that return an error number rather than set errno */
static void check_ret(int ret, const char *what)
{
	if (ret != 0) {
		errno = ret;
		FAIL_EXIT1("%s: %m", what);
	}
}

void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL && n != 0)
		FAIL_EXIT1("malloc(%zu): %m", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (p == NULL && n != 0 && size != 0)
		FAIL_EXIT1("calloc(%zu, %zu): %m", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (q == NULL && n != 0)
		FAIL_EXIT1("realloc(%p, %zu): %m", p, n);
	return q;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (d == NULL)
		FAIL_EXIT1("strdup: %m");
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		FAIL_EXIT1("asprintf(\"%s\"): %m", fmt);
	return s;
}

/* a header before the block keeps its length for munmap */
void *support_shared_allocate(size_t size)
{
	size_t len = size + 16;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		FAIL_EXIT1("mmap(MAP_SHARED, %zu): %m", len);
	memcpy(p, &len, sizeof(len));
	return p + 16;
}

void support_shared_free(void *p)
{
	size_t len;
	char *base = (char *)p - 16;
	memcpy(&len, base, sizeof(len));
	if (munmap(base, len) != 0)
		FAIL_EXIT1("munmap(%p, %zu): %m", (void *)base, len);
}

pthread_t xpthread_create(pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	pthread_t t;
	check_ret(pthread_create(&t, attr, fn, arg), "pthread_create");
	return t;
}

void *xpthread_join(pthread_t thr)
{
	void *r;
	check_ret(pthread_join(thr, &r), "pthread_join");
	return r;
}

void xpthread_barrier_init(pthread_barrier_t *b, pthread_barrierattr_t *attr,
	unsigned int count)
{
	check_ret(pthread_barrier_init(b, attr, count), "pthread_barrier_init");
}

int xpthread_barrier_wait(pthread_barrier_t *b)
{
	int ret = pthread_barrier_wait(b);
	if (ret == PTHREAD_BARRIER_SERIAL_THREAD)
		return 1;
	check_ret(ret, "pthread_barrier_wait");
	return 0;
}

void xpthread_barrier_destroy(pthread_barrier_t *b)
{
	check_ret(pthread_barrier_destroy(b), "pthread_barrier_destroy");
}

void xpthread_barrierattr_init(pthread_barrierattr_t *attr)
{
	check_ret(pthread_barrierattr_init(attr), "pthread_barrierattr_init");
}

void xpthread_barrierattr_destroy(pthread_barrierattr_t *attr)
{
	check_ret(pthread_barrierattr_destroy(attr), "pthread_barrierattr_destroy");
}

void xpthread_barrierattr_setpshared(pthread_barrierattr_t *attr, int pshared)
{
	check_ret(pthread_barrierattr_setpshared(attr, pshared),
		"pthread_barrierattr_setpshared");
}

void xpthread_mutex_lock(pthread_mutex_t *m)
{
	check_ret(pthread_mutex_lock(m), "pthread_mutex_lock");
}

void xpthread_mutex_unlock(pthread_mutex_t *m)
{
	check_ret(pthread_mutex_unlock(m), "pthread_mutex_unlock");
}

void xpthread_kill(pthread_t thr, int sig)
{
	check_ret(pthread_kill(thr, sig), "pthread_kill");
}

pid_t xfork(void)
{
	pid_t pid = fork();
	if (pid < 0)
		FAIL_EXIT1("fork: %m");
	return pid;
}

pid_t xwaitpid(pid_t pid, int *status, int flags)
{
	pid_t r;
	while ((r = waitpid(pid, status, flags)) < 0 && errno == EINTR)
		;
	if (r < 0)
		FAIL_EXIT1("waitpid(%d): %m", (int)pid);
	return r;
}

int xopen(const char *path, int flags, int mode)
{
	int fd = open(path, flags, mode);
	if (fd < 0)
		FAIL_EXIT1("open(\"%s\", 0x%x, 0%o): %m", path, (unsigned)flags, (unsigned)mode);
	return fd;
}

void xclose(int fd)
{
	if (close(fd) != 0 && errno != EINTR)
		FAIL_EXIT1("close(%d): %m", fd);
}

void xpipe(int fds[2])
{
	if (pipe(fds) != 0)
		FAIL_EXIT1("pipe: %m");
}

long xsysconf(int name)
{
	errno = 0;
	long r = sysconf(name);
	if (r < 0)
		FAIL_EXIT1("sysconf(%d): %m", name);
	return r;
}

void *xmmap(void *addr, size_t len, int prot, int flags, int fd)
{
	void *p = mmap(addr, len, prot, flags, fd, 0);
	if (p == MAP_FAILED)
		FAIL_EXIT1("mmap(%p, %zu, 0x%x, 0x%x, %d): %m", addr, len,
			(unsigned)prot, (unsigned)flags, fd);
	return p;
}

void xmunmap(void *addr, size_t len)
{
	if (munmap(addr, len) != 0)
		FAIL_EXIT1("munmap(%p, %zu): %m", addr, len);
}

sighandler_t xsignal(int sig, sighandler_t handler)
{
	sighandler_t old = signal(sig, handler);
	if (old == SIG_ERR)
		FAIL_EXIT1("signal(%d): %m", sig);
	return old;
}

void xraise(int sig)
{
	if (raise(sig) != 0)
		FAIL_EXIT1("raise(%d): %m", sig);
}

int create_temp_file(const char *base, char **filename)
{
	const char *dir = getenv("TMPDIR");
	char *name;
	if (asprintf(&name, "%s/%sXXXXXX", dir && *dir ? dir : "/tmp", base) < 0)
		return -1;
	int fd = mkstemp(name);
	if (fd < 0) {
		printf("error: mkstemp(\"%s\"): %m\n", name);
		free(name);
		return -1;
	}
	if (filename != NULL)
		*filename = name;
	else
		free(name);
	return fd;
}
