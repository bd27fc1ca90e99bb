/*
 * region_populate.c - pre-fault a region now, in parallel where asked: one
 * thread populating a multi-GiB table is the kernel's slow case (zeroing is
 * per-CPU work), so .threads threads each populate a slice of whole units
 * (huge pages) with MADV_POPULATE_WRITE, which reports a refusal (a cgroup
 * hugetlb limit, no memory) as an errno instead of a SIGBUS.
 *
 * Kernels without MADV_POPULATE_WRITE (< 5.14, EINVAL): anonymous memory is
 * touched instead, one atomic add of 0 per base page (a write fault that
 * changes no byte); hugetlb memory is never touched (the caller refuses).
 * The threads are plain pthreads with small stacks; glibc's pthread_create
 * callocs each one's DTV (the one allocation on a region's path).
 */
#define _GNU_SOURCE
#include "hp_region.h"

#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define MAX_THREADS 64

struct slice {
	unsigned char *p;
	size_t len;
	int may_touch, err;
};

static void one(struct slice *s)
{
	s->err = 0;
	if (s->len == 0 || madvise(s->p, s->len, MADV_POPULATE_WRITE) == 0)
		return;
	s->err = errno;
	if (s->err != EINVAL || !s->may_touch)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t off = 0; off < s->len; off += page)
		__atomic_fetch_add(s->p + off, 0, __ATOMIC_RELAXED);
	s->err = 0;
}

static void *worker(void *arg)
{
	one(arg);
	return NULL;
}

int hp_region_populate(void *p, size_t len, size_t unit, unsigned threads, int may_touch, unsigned *used)
{
	struct slice s[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	int started[MAX_THREADS] = { 0 };
	size_t units = len / unit;
	if (threads < 1)
		threads = 1;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (threads > units)
		threads = units ? (unsigned)units : 1;
	size_t per = units / threads, extra = units % threads, off = 0;
	for (unsigned i = 0; i < threads; i++) {
		size_t n = (per + (i < extra)) * unit;
		if (i == threads - 1)
			n = len - off;          /* a tail that is not a whole unit */
		s[i] = (struct slice){ (unsigned char *)p + off, n, may_touch, 0 };
		off += n;
	}
	pthread_attr_t attr;
	int attr_ok = pthread_attr_init(&attr) == 0;
	if (attr_ok)
		pthread_attr_setstacksize(&attr, 64 * 1024);
	*used = 1;
	for (unsigned i = 1; i < threads; i++) {
		started[i] = pthread_create(&tid[i], attr_ok ? &attr : NULL, worker, &s[i]) == 0;
		*used += started[i];
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
	one(&s[0]);
	int err = s[0].err;
	for (unsigned i = 1; i < threads; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			one(&s[i]);     /* no thread for it: this one does it */
		if (!err)
			err = s[i].err;
	}
	return err;
}
