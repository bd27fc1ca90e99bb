/*
 * hugetlb_fork.c - a forked child never dies because of hugetlb memory.
 *
 * After fork(), parent and child share the private hugetlb pages copy-on-
 * write.  The first write on either side needs a free pool page at that
 * moment; the kernel gives the parent priority (it owns the reservation) and
 * takes the page away from the child when the pool is empty, which then dies
 * of SIGBUS ("killed due to inadequate hugepage pool", kernel
 * hugetlbpage.rst).  mimalloc's metadata lives in its segments, so with
 * hugetlb segments even a child's malloc(16) writes to one.
 *
 * So, before fork() returns in the child, the child makes every hugetlb
 * mapping hugepolicy made its own: MADV_POPULATE_WRITE copies the pages now
 * from the pool (an error, not a signal, when the pool or a cgroup limit says
 * no); where that fails the mapping is re-homed: copied into anonymous memory
 * (THP-advised where THP is on) that mremap(2) puts at the same address.
 * Until the child is done, the thread that forked waits in the parent (a
 * pipe the child closes), so the parent's own writes cannot take the pages
 * away from the child meanwhile.  What remains: other parent threads that
 * write to a hugetlb mapping during that copy while the pool is empty (the
 * kernel may still take such a page from the child; said at fork time).
 *
 * HUGEPOLICY_FORK=inherit skips the copy (fork stays as fast as the
 * kernel's; measured here: 0.3 ms against ~370 ms for 1 GiB of hugetlb
 * blocks) and says once in each child that it shares hugetlb pages.
 *
 * Only fork() runs these handlers: vfork and posix_spawn children share or
 * replace the address space, and need nothing.
 */
#define _GNU_SOURCE
#include "hp_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static int wait_fd = -1, done_fd = -1;   /* the pipe, while a fork is under way */
static int thp_ok, verbose, copy = 1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

struct rehome { size_t copied, moved, lost; };

static void own(void *base, size_t len, int owner, unsigned char *on_pool, void *arg)
{
	struct rehome *r = arg;
	(void)owner;
	if (!*on_pool)
		return;
	if (madvise(base, len, MADV_POPULATE_WRITE) == 0) {
		r->copied += len;
		return;
	}
	/* no pool page for the child's copy: anonymous memory at the same
	 * address, 2 MiB-aligned so THP can back it */
	unsigned char *raw = mmap(NULL, len + HP_HUGE_2M, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		r->lost += len;
		return;
	}
	unsigned char *tmp = (unsigned char *)(((uintptr_t)raw + HP_HUGE_2M - 1) & ~(uintptr_t)(HP_HUGE_2M - 1));
	if (tmp > raw)
		munmap(raw, (size_t)(tmp - raw));
	if (tmp + len < raw + len + HP_HUGE_2M)
		munmap(tmp + len, (size_t)(raw + len + HP_HUGE_2M - (tmp + len)));
	if (thp_ok)
		madvise(tmp, len, MADV_HUGEPAGE);
	memcpy(tmp, base, len);
	if (mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, base) == MAP_FAILED) {
		munmap(tmp, len);
		r->lost += len;
		return;
	}
	*on_pool = 0;
	r->moved += len;
}

static void prepare(void)
{
	int saved = errno;
	hp_tlb_lock();
	wait_fd = done_fd = -1;
	int fds[2];
	if (copy && hp_tlb_pool_bytes() > 0 && pipe2(fds, O_CLOEXEC) == 0) {
		wait_fd = fds[0];
		done_fd = fds[1];
	}
	errno = saved;
}

static void parent(void)
{
	int saved = errno;
	if (wait_fd >= 0) {
		char c;
		close(done_fd);
		while (read(wait_fd, &c, 1) < 0 && errno == EINTR)
			;
		close(wait_fd);
		wait_fd = done_fd = -1;
	}
	hp_tlb_unlock();
	errno = saved;
}

static void child(void)
{
	int saved = errno;
	uint64_t shared = copy ? 0 : hp_tlb_pool_bytes();
	if (shared)
		hp_say("fork: this child shares %llu bytes of hugetlb memory with its parent copy-on-write "
		       "(HUGEPOLICY_FORK=inherit): a write there when the pool has no free page kills it",
		       (unsigned long long)shared);
	if (wait_fd >= 0) {
		close(wait_fd);
		struct rehome r = { 0, 0, 0 };
		hp_tlb_each(own, &r);
		close(done_fd);
		wait_fd = done_fd = -1;
		if (r.lost)
			hp_say("fork: %zu bytes of hugetlb memory could not be made the child's own "
			       "(no pool page and no memory to copy into): writing there may kill this process", r.lost);
		else if (r.moved)
			hp_say("fork: the 2 MiB pool had no room for this child's copy of %zu bytes of hugetlb "
			       "memory; moved to %s", r.moved, thp_ok ? "THP" : "base pages");
		else if (verbose)
			hp_say("fork: %zu bytes of hugetlb memory copied from the pool for this child", r.copied);
	}
	hp_tlb_unlock();
	errno = saved;
}

static void install(void)
{
	pthread_atfork(prepare, parent, child);
}

void hp_fork_init(int thp_available, int say, int copy_at_fork)
{
	thp_ok = thp_available;
	verbose = say;
	copy = copy_at_fork;
	pthread_once(&once, install);
}
