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
 * Where the pool has room for a copy of every page at the fork (below,
 * room_for_every_cow), the kernel's copy-on-write is left to do its work:
 * nothing is copied.  Otherwise, before fork() returns in the child, the
 * child makes every hugetlb mapping hugepolicy made its own: MADV_POPULATE_WRITE copies the pages now
 * from the pool (an error, not a signal, when the pool or a cgroup limit says
 * no); where that fails the mapping is re-homed: copied into anonymous memory
 * (THP-advised where THP is on) that mremap(2) puts at the same address.
 * Until the child is done, the thread that forked waits in the parent (a
 * pipe the child closes), so the parent's own writes cannot take the pages
 * away from the child meanwhile.  Mappings of pages above 2 MiB (1 GiB), and
 * every mapping of a multi-threaded parent, are staged in the parent before
 * fork instead (below): the kernel may take a shared page of that size from
 * the child right after fork, before it could copy it, and another parent
 * thread may write meanwhile.
 *
 * A mapping the program mprotect'ed in part (hugetlb_vmas.c reads which
 * at prepare) keeps each part's protection in the child: a staged copy
 * gets it back once in place; a mapping with a PROT_NONE part (which the
 * parent may not read) is not staged, and the child makes it its own VMA
 * by VMA, each opened for the copy.
 *
 * HUGEPOLICY_FORK=inherit skips the copy (fork then costs what the
 * kernel's does) and says once in each child that it shares hugetlb pages.
 *
 * Only fork() runs these handlers: vfork and posix_spawn children share or
 * replace the address space, and need nothing.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* per nesting level (fork() from a signal handler inside fork()): the pipe
 * the parent waits on, and whether the copies were staged in the parent */
#define LEVELS 4
static int wait_fds[LEVELS] = { -1, -1, -1, -1 }, done_fds[LEVELS] = { -1, -1, -1, -1 };
static int thp_ok, verbose, copy = 1;
static unsigned depth;
static int staged;                       /* level 1 only */
static int lazy;                         /* level 1: left to the kernel's copy-on-write */
static int pipe_err[LEVELS];             /* why the parent could not wait, 0 */
static sigset_t old_mask[LEVELS];        /* signals are blocked from prepare to parent/child */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Multi-threaded parents: a copy of each mapping is staged in the parent
 * before fork (anonymous memory the child inherits copy-on-write), and the
 * child still inherits the mappings: glibc's fork writes to every open FILE
 * before any atfork child handler runs, and under jemalloc hugetlb a FILE
 * sits in a hugetlb slab (MADV_DONTFORK was a SIGSEGV there).  The child's
 * handler makes each mapping its own with MADV_POPULATE_WRITE, and puts the
 * staged copy there only where that is refused: no pool page, or another
 * parent thread's write took a shared page from the child.  A child's fault on such a page
 * before its handler runs is caught (hugetlb_fork_sigbus.c).  The copy is
 * as consistent as the data other threads were writing at fork time; where
 * it replaces the mapping, the child's earlier writes are undone.  Every
 * mapping is staged, however many there are, but one with a PROT_NONE part
 * (below); what cannot be (no memory for
 * a copy or for the table) the child copies while the parent's forking
 * thread waits, exposed to the other threads' writes, and the parent says
 * so at that fork - as it does when it has no pipe to wait on. */
static struct stage { void *base, *copy; size_t len; } *stage;
static size_t nstaged, cap, mapped;     /* entries in stage; room for cap; bytes */
static size_t unstaged;                 /* bytes that could not be staged (level 1) */

/* room for n entries: no malloc inside fork's prepare handler, so the
 * table is its own mapping, sized from the count of mappings and grown by
 * mremap; kept from fork to fork (a child inherits it) */
static int reserve(size_t n)
{
	if (n <= cap)
		return 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t want = (n * sizeof *stage + page - 1) / page * page;
	void *p = stage ? mremap(stage, mapped, want, MREMAP_MAYMOVE)
			: mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	stage = p;
	mapped = want;
	cap = want / sizeof *stage;
	return 0;
}

struct rehome { size_t copied, moved, lost; };

/* child: its own copy of a mapping from the pool (1), unless that would
 * take pool pages an earlier fork's copy-on-write is owed (0: copy it
 * elsewhere) */
static int populate_own(void *base, size_t len)
{
	/* while the parent shares pages with an earlier child that copied
	 * nothing, every pool page may be owed to that child's copies (its
	 * shared pages are not this child's to count): never from the pool */
	if (hp_fork_cow_keeping())
		return 0;
	return madvise(base, len, MADV_POPULATE_WRITE) == 0;
}

/* child: no pool page for the child's copy of [base, base+len): anonymous
 * memory at the same address, 2 MiB-aligned so THP can back it; 1 if it
 * is there */
static int move_off_pool(void *base, size_t len)
{
	unsigned char *tmp = hp_pages_map_anon_aligned(len, thp_ok);
	if (!tmp)
		return 0;
	memcpy(tmp, base, len);
	if (mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, base) == MAP_FAILED) {
		munmap(tmp, len);
		return 0;
	}
	return 1;
}

/* The protections a program gave parts of hugepolicy's hugetlb mappings
 * with mprotect (read-only, PROT_NONE guards), read at prepare.  A staged
 * copy comes back read+write: each part gets its protection back once it
 * is in place (give_back_prot).  A mapping with a part the parent may not
 * read (PROT_NONE), or beyond what the list holds, is not staged: the
 * child makes it its own VMA by VMA, each opened for the copy and given
 * its protection back (own_pieces). */
static struct hp_odd_vmas odd;
static size_t odd_unstaged;             /* level 1: bytes of such mappings not staged */

static void set_prot(uintptr_t lo, uintptr_t hi, int prot, void *arg)
{
	(void)arg;
	if (prot != (PROT_READ | PROT_WRITE))
		mprotect((void *)lo, hi - lo, prot);
}

/* child: the parts of a mapping the child has as read+write memory now get
 * the protection they had */
static void give_back_prot(void *base, size_t len)
{
	if (hp_odd_vmas_meet(&odd, base, len))
		hp_odd_vmas_each(&odd, base, len, set_prot, NULL);
}

struct pieces { struct rehome *r; int move, refused; size_t seen, moved; };

static void own_piece(uintptr_t lo, uintptr_t hi, int prot, void *arg)
{
	struct pieces *pc = arg;
	void *p = (void *)lo;
	size_t len = hi - lo;
	int open_it = prot != (PROT_READ | PROT_WRITE);
	pc->seen += len;
	if (open_it && mprotect(p, len, PROT_READ | PROT_WRITE) != 0) {
		pc->refused = 1;
		if (pc->move)
			pc->r->lost += len;
		return;
	}
	if (!pc->move) {
		pc->refused |= !populate_own(p, len);
	} else if (move_off_pool(p, len)) {
		pc->r->moved += len;
		pc->moved += len;
	} else {
		pc->r->lost += len;
	}
	if (open_it)
		mprotect(p, len, prot);
}

/* child: a mapping with a part of another protection, VMA by VMA (from
 * the list prepare read, where it is complete): all from the pool, or (one
 * refused) all moved off it.  A mapping partly moved leaves the pool: no
 * later fork reads it whole again (its moved parts are no hugetlb VMAs,
 * which the list would not hold). */
static void own_pieces(void *base, size_t len, unsigned char *on_pool, struct rehome *r)
{
	struct pieces pc = { r, 0, 0, 0, 0 };
	if (hp_odd_vmas_each(&odd, base, len, own_piece, &pc) == 0 && !pc.refused) {
		r->copied += pc.seen;
		return;
	}
	pc = (struct pieces){ r, 1, 0, 0, 0 };
	if (hp_odd_vmas_each(&odd, base, len, own_piece, &pc) != 0)
		r->lost += len - pc.seen;       /* the child could not read its maps */
	if (pc.moved)
		*on_pool = 0;
}

/* child: make each mapping the child's own */
static void own(void *base, size_t len, int owner, unsigned char *on_pool, void *arg)
{
	struct rehome *r = arg;
	(void)owner;
	if (!*on_pool)
		return;
	if (hp_odd_vmas_meet(&odd, base, len)) {
		own_pieces(base, len, on_pool, r);
		return;
	}
	if (populate_own(base, len)) {
		r->copied += len;
		return;
	}
	if (!move_off_pool(base, len)) {
		r->lost += len;
		return;
	}
	*on_pool = 0;
	r->moved += len;
}

/* parent: stage a copy of each mapping (multi-threaded) or of each mapping
 * of pages above 2 MiB (see the top); what cannot be staged (no memory for
 * the copy or the table) is counted in unstaged, and the child copies it */
struct stage_arg { int all; };

static void stage_one(void *base, size_t len, int owner, unsigned char *on_pool, void *arg)
{
	struct stage_arg *a = arg;
	(void)owner;
	if (!*on_pool || (!a->all && hp_tlb_page_of(base) <= HP_HUGE_2M))
		return;
	if (hp_odd_vmas_meet(&odd, base, len) & HP_ODD_UNREADABLE) {
		odd_unstaged += len;    /* the child makes it its own, VMA by VMA */
		return;
	}
	void *c = unstaged == 0 && (nstaged < cap || reserve(2 * cap + 1) == 0)
		  ? hp_pages_map_anon_aligned(len, thp_ok) : NULL;
	if (!c) {
		unstaged += len;        /* and every later one: the first failure ends staging */
		return;
	}
	memcpy(c, base, len);
	stage[nstaged++] = (struct stage){ base, c, len };
}

static void unstage(void)
{
	for (size_t i = 0; i < nstaged; i++)
		munmap(stage[i].copy, stage[i].len);
	nstaged = 0;
}

/* child, in the SIGBUS handler (hugetlb_fork_sigbus.c): the staged copy of
 * the mapping holding addr put there; 1 if it was.  It reads no thread-
 * local storage (the fault may be the thread descriptor's page, gone from
 * the child): mremap through syscall(2), not glibc's variadic wrapper, whose
 * stack protector reads the canary there. */
HP_NO_TLS int hp_fork_place_staged(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	for (size_t i = 0; i < nstaged; i++) {
		uintptr_t b = (uintptr_t)stage[i].base;
		if (a < b || a - b >= stage[i].len)
			continue;
		if (!stage[i].copy ||
		    (void *)syscall(SYS_mremap, stage[i].copy, stage[i].len, stage[i].len, MREMAP_MAYMOVE | MREMAP_FIXED,
				    stage[i].base) != stage[i].base)
			return 0;
		stage[i].copy = NULL;
		return 1;
	}
	return 0;
}

/* child: the staged copies are where the hugetlb mappings were.  The table
 * is walked in the order prepare staged them (its lock was held since), so
 * the next staged entry is the only candidate. */
static size_t placed;

static void place(void *base, size_t len, int owner, unsigned char *on_pool, void *arg)
{
	struct rehome *r = arg;
	(void)owner;
	if (placed >= nstaged || stage[placed].base != base)
		return;
	struct stage *st = &stage[placed++];
	if (!st->copy) {                        /* placed already, by the SIGBUS handler */
		give_back_prot(base, len);
		*on_pool = 0;
		r->moved += len;
		return;
	}
	/* the child's own pages, or the staged copy (see above) */
	if (*on_pool && populate_own(base, len)) {
		munmap(st->copy, len);
		st->copy = NULL;
		r->copied += len;
		return;
	}
	if (mremap(st->copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, base) == MAP_FAILED) {
		r->lost += len;
		return;
	}
	st->copy = NULL;
	give_back_prot(base, len);
	*on_pool = 0;
	r->moved += len;
}

/* child: one walk of the table puts each staged copy in place and, where
 * the parent waits, makes every other mapping the child's own (a mapping
 * placed is not looked at twice) */
struct child_walk { struct rehome *r; int place, own; };

static void child_one(void *base, size_t len, int owner, unsigned char *on_pool, void *arg)
{
	struct child_walk *w = arg;
	if (w->place && placed < nstaged && stage[placed].base == base)
		place(base, len, owner, on_pool, w->r);
	else if (w->own)
		own(base, len, owner, on_pool, w->r);
}

/* Where the pool (and every cgroup hugetlb limit up the tree) has room now
 * for a copy of every hugetlb page hugepolicy mapped, nothing is copied at
 * the fork: the kernel's copy-on-write finds a page for whichever side
 * writes first (the other keeps the original), so fork costs what it
 * costs without hugepolicy and memory grows with the pages written.  The
 * room is the pool's free pages less those reserved (surplus pages are not
 * counted: the buddy allocator may not have them when the copy is due);
 * a hugetlb limit up the cgroup tree, hugetlb memory hugepolicy does not
 * track, a mapping being made, or pages shared already take the copy path.
 * What stays open: another process that takes the pool's free pages before
 * the writes (hugepolicy's own new hugetlb blocks and regions keep them:
 * hp_fork_cow_keep), a NUMA policy that confines the copies to some nodes. */
struct cow_need { size_t page[4]; uint64_t pages[4]; unsigned n, unknown; };

static void need_one(void *base, size_t len, int owner, unsigned char *on_pool, void *arg)
{
	struct cow_need *nd = arg;
	size_t ps = hp_tlb_page_of(base);
	(void)owner;
	if (!*on_pool)
		return;
	unsigned i = 0;
	while (i < nd->n && nd->page[i] != ps)
		i++;
	if (ps == 0 || (i == nd->n && nd->n == 4)) {
		nd->unknown = 1;                /* rules the fork lazy out */
		return;
	}
	if (i == nd->n)
		nd->page[nd->n++] = ps;
	nd->pages[i] += (len + ps - 1) / ps;   /* a copy takes whole pages, whatever the length */
}

static int cg_limited;          /* a hugetlb cgroup limit (or an unreadable one) at start-up */

static int room_for_every_cow(void)
{
	/* a hugetlb limit up the cgroup tree, pages this process shares
	 * already (an earlier child that still lives, shared memory), hugetlb
	 * memory hugepolicy does not track (the program's own, a mapping being
	 * made): the copy path, as before */
	uint64_t all, shared;
	if (cg_limited || hp_pages_hugetlb_inflight() || hp_pages_smaps_hugetlb(&all, &shared) != 0 || shared != 0 ||
	    all > hp_tlb_pool_bytes())
		return 0;
	struct cow_need nd;
	memset(&nd, 0, sizeof nd);
	hp_tlb_each(need_one, &nd);
	if (nd.unknown)
		return 0;
	for (unsigned i = 0; i < nd.n; i++)
		if (hp_pages_pool_free(nd.page[i]) < nd.pages[i])
			return 0;
	return nd.n > 0;
}

static void prepare(void)
{
	int saved = errno;
	/* no signal handler may fork in the middle of this fork's bookkeeping:
	 * a signal that arrives is delivered when parent() or child() is done */
	sigset_t all, was;
	sigfillset(&all);
	sigdelset(&all, SIGBUS);        /* a blocked SIGBUS from a fault kills */
	pthread_sigmask(SIG_BLOCK, &all, &was);
	hp_tlb_lock();
	unsigned lv = depth++;
	if (lv >= LEVELS) {
		errno = saved;
		return;
	}
	old_mask[lv] = was;
	wait_fds[lv] = done_fds[lv] = -1;
	if (lv == 0)
		staged = 0;
	if (lv == 0)
		lazy = copy && hp_tlb_pool_bytes() > 0 && room_for_every_cow();
	if (copy && hp_tlb_pool_bytes() > 0 && !(lv == 0 && lazy)) {
		hp_odd_vmas_load(&odd);
		if (lv == 0) {
			struct stage_arg a = { !__libc_single_threaded };
			unstaged = odd_unstaged = placed = 0;
			reserve(hp_tlb_pool_maps());    /* stage_one grows it if that fails */
			hp_tlb_each(stage_one, &a);
			/* all of them: no pipe, no wait */
			staged = a.all && !unstaged && !odd_unstaged;
			if (nstaged)
				hp_fork_sigbus_arm();
		}
		int fds[2];
		if (!(lv == 0 && staged)) {
			if (pipe2(fds, O_CLOEXEC) == 0) {
				wait_fds[lv] = fds[0];
				done_fds[lv] = fds[1];
			} else {
				pipe_err[lv] = errno;
			}
		}
	}
	errno = saved;
}

/* parent: what this fork left exposed to the kernel taking a shared page
 * from the child, said once per fork it happens in */
static void say_exposed(unsigned lv)
{
	if (lv == 0 && unstaged)
		hp_say("fork: no memory to stage a copy of %zu bytes of hugetlb memory for the child: it copies "
		       "them itself while this thread waits, and %s can take a page from it before it has "
		       "copied it (a pool page it then cannot get kills it)",
		       unstaged, __libc_single_threaded ? "the kernel (pages above 2 MiB)" : "a write there by another thread");
	static atomic_int said_odd;
	if (lv == 0 && odd_unstaged && !atomic_exchange(&said_odd, 1))
		hp_say("fork: %zu bytes of hugetlb memory in mappings with a PROT_NONE part are not staged: the "
		       "child copies them itself while this thread waits, and %s can take a page from it before "
		       "it has copied it (said once)", odd_unstaged,
		       __libc_single_threaded ? "the kernel (pages above 2 MiB)" : "a write there by another thread");
	if (pipe_err[lv])
		hp_say("fork: no pipe to wait for the child (%s): this thread's writes to its hugetlb memory "
		       "can take pages from the child before it has copied them", strerror(pipe_err[lv]));
	pipe_err[lv] = 0;
}

/* what forks did (the fork.* keys): as a parent, per fork() with hugetlb
 * memory on the pool; as a child, what its fork made its own.  Written
 * under the table's lock, read without it. */
static _Atomic uint64_t children, children_shared, children_staged, children_waited, unstaged_bytes;
static _Atomic uint64_t own_copied, own_moved, own_lost, own_shared;

static void count_fork(void)
{
	if (hp_tlb_pool_bytes() == 0)
		return;
	atomic_fetch_add_explicit(&children, 1, memory_order_relaxed);
	if (!copy || lazy)
		atomic_fetch_add_explicit(&children_shared, 1, memory_order_relaxed);
	else if (staged)
		atomic_fetch_add_explicit(&children_staged, 1, memory_order_relaxed);
	else if (wait_fds[0] >= 0)
		atomic_fetch_add_explicit(&children_waited, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&unstaged_bytes, unstaged + odd_unstaged, memory_order_relaxed);
}

static void count_child(const struct rehome *r, uint64_t shared)
{
	atomic_store_explicit(&children, 0, memory_order_relaxed);
	atomic_store_explicit(&children_shared, 0, memory_order_relaxed);
	atomic_store_explicit(&children_staged, 0, memory_order_relaxed);
	atomic_store_explicit(&children_waited, 0, memory_order_relaxed);
	atomic_store_explicit(&unstaged_bytes, 0, memory_order_relaxed);
	atomic_store_explicit(&own_copied, r->copied, memory_order_relaxed);
	atomic_store_explicit(&own_moved, r->moved, memory_order_relaxed);
	atomic_store_explicit(&own_lost, r->lost, memory_order_relaxed);
	atomic_store_explicit(&own_shared, shared, memory_order_relaxed);
}

void hp_fork_read(struct hp_fork_report *f)
{
	f->children = atomic_load(&children);
	f->children_shared = atomic_load(&children_shared);
	f->children_staged = atomic_load(&children_staged);
	f->children_waited = atomic_load(&children_waited);
	f->unstaged_bytes = atomic_load(&unstaged_bytes);
	f->copied_bytes = atomic_load(&own_copied);
	f->moved_bytes = atomic_load(&own_moved);
	f->lost_bytes = atomic_load(&own_lost);
	f->shared_bytes = atomic_load(&own_shared);
	f->pool_kept = hp_fork_cow_keeping();
	f->cgroup_limited = cg_limited;
}

static void parent(void)
{
	int saved = errno;
	unsigned lv = --depth;
	if (lv < LEVELS) {
		if (lv == 0)
			hp_fork_sigbus_disarm();
		if (lv == 0 && nstaged)
			unstage();
		say_exposed(lv);
		if (wait_fds[lv] >= 0) {
			char c;
			close(done_fds[lv]);
			while (read(wait_fds[lv], &c, 1) < 0 && errno == EINTR)
				;
			close(wait_fds[lv]);
		}
		if (lv == 0)
			count_fork();
		wait_fds[lv] = done_fds[lv] = -1;
		if (lv == 0)
			staged = 0;
		if (lv == 0 && lazy)
			hp_fork_cow_keep(1);
	}
	hp_tlb_unlock();
	if (lv < LEVELS)
		pthread_sigmask(SIG_SETMASK, &old_mask[lv], NULL);
	errno = saved;
}

static void child(void)
{
	int saved = errno;
	unsigned lv = --depth;
	hp_tlb_lock_child();
	if (lv < LEVELS) {
		uint64_t shared = copy ? 0 : hp_tlb_pool_bytes();
		if (shared)
			hp_say("fork: this child shares %llu bytes of hugetlb memory with its parent copy-on-write "
			       "(HUGEPOLICY_FORK=inherit): a write there that the pool or a cgroup hugetlb limit "
			       "cannot give a page kills it",
			       (unsigned long long)shared);
		if (lv == 0 && lazy) {
			hp_fork_cow_keep(1);
			if (verbose)
				hp_say("fork: this child shares %llu bytes of hugetlb memory with its parent copy-on-write: "
				       "the pool had room for a copy of every page at the fork",
				       (unsigned long long)hp_tlb_pool_bytes());
		}
		pipe_err[lv] = 0;
		struct rehome r = { 0, 0, 0 };
		struct child_walk w = { &r, lv == 0 && nstaged, wait_fds[lv] >= 0 };
		if (w.own)
			close(wait_fds[lv]);    /* the parent's end: a descriptor free for the walk */
		if (w.place || w.own)
			hp_tlb_each(child_one, &w);
		if (lv == 0) {
			nstaged = 0;            /* the copies are the child's memory now */
			hp_fork_sigbus_disarm();
		}
		if (w.own)
			close(done_fds[lv]);
		/* the outer levels' pipes are the parent's, not this child's */
		for (unsigned i = 0; i < LEVELS; i++) {
			if (i != lv && wait_fds[i] >= 0) {
				close(wait_fds[i]);
				close(done_fds[i]);
			}
			wait_fds[i] = done_fds[i] = -1;
		}
		staged = 0;
		if (lv == 0)
			count_child(&r, shared ? shared : lazy ? hp_tlb_pool_bytes() : 0);
		if (r.lost)
			hp_say("fork: %zu bytes of hugetlb memory could not be made the child's own "
			       "(no pool page and no memory to copy into): writing there may kill this process", r.lost);
		else if (r.moved && verbose)
			hp_say("fork: %zu bytes of hugetlb memory copied into %s for this child", r.moved,
			       thp_ok ? "THP" : "base pages");
		else if (r.copied && verbose)
			hp_say("fork: %zu bytes of hugetlb memory copied from the pool for this child", r.copied);
	} else if (copy && hp_tlb_pool_bytes() > 0)
		hp_say("fork: nested %u deep in fork handlers (more than %d): this child shares its hugetlb "
		       "memory with its parent copy-on-write, and a write there that the pool cannot give a "
		       "page kills it", lv + 1, LEVELS);
	hp_tlb_unlock();
	if (lv < LEVELS)
		pthread_sigmask(SIG_SETMASK, &old_mask[lv], NULL);
	errno = saved;
}

static void install(void)
{
	pthread_atfork(prepare, parent, child);
}

void hp_fork_init(int thp_available, int say, int copy_at_fork, const struct hp_pool *pools, int npools)
{
	/* the probe's reading at start-up: a process moved into a limited
	 * cgroup later is not seen */
	for (int i = 0; i < npools; i++)
		if (pools[i].cg_error || pools[i].cg_max >= 0)
			cg_limited = 1;
	thp_ok = thp_available;
	verbose = say;
	copy = copy_at_fork;
	hp_fork_stack_init();
	pthread_once(&once, install);
}
