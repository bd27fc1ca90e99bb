/* xthread.h - stand-in for glibc's <support/xthread.h>: pthread calls
 * that print one line and exit 1 on error. */
#ifndef HP_GLIBC_SUPPORT_XTHREAD_H
#define HP_GLIBC_SUPPORT_XTHREAD_H

#include <pthread.h>
#include <stdbool.h>

pthread_t xpthread_create(pthread_attr_t *attr, void *(*fn)(void *), void *arg);
void *xpthread_join(pthread_t thr);
void xpthread_barrier_init(pthread_barrier_t *b, pthread_barrierattr_t *attr,
	unsigned int count);
/* Returns 1 in the one thread that gets PTHREAD_BARRIER_SERIAL_THREAD, else 0. */
int xpthread_barrier_wait(pthread_barrier_t *b);
void xpthread_barrier_destroy(pthread_barrier_t *b);
void xpthread_barrierattr_init(pthread_barrierattr_t *attr);
void xpthread_barrierattr_destroy(pthread_barrierattr_t *attr);
void xpthread_barrierattr_setpshared(pthread_barrierattr_t *attr, int pshared);
void xpthread_mutex_lock(pthread_mutex_t *m);
void xpthread_mutex_unlock(pthread_mutex_t *m);
void xpthread_kill(pthread_t thr, int sig);

#endif
