/*
 * jemalloc_fork.c - the embedded jemalloc's fork handlers, in glibc's order.
 *
 * jemalloc registers jemalloc_prefork/_postfork_* with pthread_atfork; in
 * the embedded copy that call is renamed to hpje_pthread_atfork
 * (jemalloc_embed.sh), so the handlers come here and hugepolicy registers
 * wrappers that do two things glibc does for its own malloc and jemalloc
 * does not:
 * - a process that never started a thread skips jemalloc's locks (glibc's
 *   fork tests SINGLE_THREAD_P): POSIX lets a signal handler call fork()
 *   while the interrupted code holds a jemalloc lock, and taking it again
 *   would deadlock (glibc's tst-mallocfork);
 * - stdio's list lock is taken before jemalloc's, not after: a thread in
 *   fflush(NULL) holds it and calls malloc, so the other order deadlocks
 *   (glibc bug 19431, tst-malloc-fork-deadlock).  _IO_list_lock is the
 *   recursive lock glibc's fork takes itself; the child resets it.
 */
#define _GNU_SOURCE
#include "hp_jemalloc.h"

#include <pthread.h>
#include <sys/single_threaded.h>

void _IO_list_lock(void);               /* glibc, GLIBC_2.2.5 */
void _IO_list_unlock(void);
void _IO_list_resetlock(void);

static void (*je_prepare)(void), (*je_parent)(void), (*je_child)(void);
static int skipped;                     /* this fork took no jemalloc lock */

static void prepare(void)
{
	skipped = __libc_single_threaded;
	if (skipped)
		return;
	_IO_list_lock();
	if (je_prepare)
		je_prepare();
}

static void parent(void)
{
	if (skipped)
		return;
	if (je_parent)
		je_parent();
	_IO_list_unlock();
}

static void child(void)
{
	if (skipped)
		return;
	if (je_child)
		je_child();
	_IO_list_resetlock();
}

int hpje_pthread_atfork(void (*p)(void), void (*pa)(void), void (*c)(void));
int hpje_pthread_atfork(void (*p)(void), void (*pa)(void), void (*c)(void))
{
	je_prepare = p;
	je_parent = pa;
	je_child = c;
	return pthread_atfork(prepare, parent, child);
}
