/*
 * hugetlb_vmas.c - the process's hugetlb mappings as the kernel has them
 * now (/proc/self/maps): each VMA with its protection, which a program may
 * have changed with mprotect(2) after hugepolicy mapped it, so that fork
 * (hugetlb_fork.c) copies only what it may read and gives the child back
 * the protection it found.
 *
 * Invariants: nothing here allocates or takes a lock; the file is read
 * with open/read/close into a static buffer that the caller's hold of the
 * mapping table's lock (hp_tlb_lock) keeps to itself - no 4 KiB on a fork
 * handler's stack - so every function is async-signal-safe and may run in
 * an atfork handler and in a forked child.
 * A hugetlb VMA is a private anonymous one of the kernel's "anon_hugepage"
 * file (MAP_HUGETLB | MAP_ANONYMOUS, how hugetlb_pages.c maps).  Where the
 * file cannot be read, the callers' fallback is to take every mapping as
 * read+write (what hugepolicy mapped).
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LINE_KEEP 160   /* the fields and the start of the path: enough to know a hugetlb VMA */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "lo-hi perms offset dev inode path": 1 and its range (0: no range);
 * *prot its PROT_* bits, *tlb whether it is a private hugetlb VMA */
static int parse(const char *s, size_t n, uintptr_t *lo, uintptr_t *hi, int *prot, int *tlb)
{
	size_t i = 0;
	uintptr_t v[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		int d, any = 0;
		while (i < n && (d = hexval(s[i])) >= 0) {
			v[k] = v[k] << 4 | (uintptr_t)d;
			i++;
			any = 1;
		}
		if (!any || i >= n || s[i] != (k == 0 ? '-' : ' '))
			return 0;
		i++;
	}
	*lo = v[0];
	*hi = v[1];
	*tlb = 0;
	if (i + 4 > n)
		return 1;
	*prot = (s[i] == 'r' ? PROT_READ : 0) | (s[i + 1] == 'w' ? PROT_WRITE : 0) |
		(s[i + 2] == 'x' ? PROT_EXEC : 0);
	int private = s[i + 3] == 'p';  /* hugepolicy maps no shared hugetlb memory */
	/* the path: after perms, offset, dev and inode, and the spaces after them */
	for (int field = 0; field < 4; field++) {
		while (i < n && s[i] != ' ')
			i++;
		while (i < n && s[i] == ' ')
			i++;
	}
	static const char name[] = "/anon_hugepage";
	*tlb = private && n - i >= sizeof name - 1 && memcmp(s + i, name, sizeof name - 1) == 0 &&
	       (n - i == sizeof name - 1 || s[i + sizeof name - 1] == ' ');
	return 1;
}

int hp_hugetlb_vmas(uintptr_t lo, uintptr_t hi, hp_vma_fn *fn, void *arg)
{
	int saved = errno;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errno = saved;
		return -1;
	}
	static char buf[4096], line[LINE_KEEP];
	size_t kept = 0;        /* bytes of the current line in line[] (the rest passed over) */
	int rc = 0, done = 0;
	while (!done) {
		ssize_t got = read(fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			rc = -1;
		if (got <= 0)
			break;
		for (ssize_t k = 0; k < got && !done; k++) {
			if (buf[k] != '\n') {
				if (kept < sizeof line)
					line[kept++] = buf[k];
				continue;
			}
			uintptr_t a, b;
			int prot, tlb;
			if (parse(line, kept, &a, &b, &prot, &tlb)) {
				if (a >= hi)
					done = 1;       /* the file is in address order */
				else if (tlb && b > lo)
					fn(a < lo ? lo : a, b > hi ? hi : b, prot, arg);
			}
			kept = 0;
		}
	}
	close(fd);
	errno = saved;
	return rc;
}

static void note_odd(uintptr_t lo, uintptr_t hi, int prot, void *arg)
{
	struct hp_odd_vmas *o = arg;
	if (prot == (PROT_READ | PROT_WRITE) || o->complete_below != UINTPTR_MAX)
		return;
	if (o->n == HP_ODD_VMAS) {
		o->complete_below = lo;         /* no room: from here on, unknown */
		return;
	}
	o->v[o->n++] = (struct hp_tlb_vma){ lo, hi, prot };
}

void hp_odd_vmas_load(struct hp_odd_vmas *o)
{
	o->n = 0;
	o->complete_below = UINTPTR_MAX;
	o->unread = hp_hugetlb_vmas(0, UINTPTR_MAX, note_odd, o) != 0;
}

int hp_odd_vmas_meet(const struct hp_odd_vmas *o, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = a + len;
	int meet = 0;
	if (o->unread)
		return 0;
	if (b > o->complete_below)
		return HP_ODD_SOME | HP_ODD_UNREADABLE;
	for (unsigned i = 0; i < o->n; i++)
		if (o->v[i].lo < b && o->v[i].hi > a)
			meet |= HP_ODD_SOME | (o->v[i].prot & PROT_READ ? 0 : HP_ODD_UNREADABLE);
	return meet;
}

int hp_odd_vmas_each(const struct hp_odd_vmas *o, const void *p, size_t len, hp_vma_fn *fn, void *arg)
{
	uintptr_t a = (uintptr_t)p, end = a + len, at = a;
	if (o->unread || end > o->complete_below)
		return hp_hugetlb_vmas(a, end, fn, arg);
	for (unsigned i = 0; i < o->n && at < end; i++) {
		const struct hp_tlb_vma *v = &o->v[i];
		if (v->hi <= at || v->lo >= end)
			continue;
		if (v->lo > at)
			fn(at, v->lo, PROT_READ | PROT_WRITE, arg);
		at = v->lo > at ? v->lo : at;
		uintptr_t to = v->hi < end ? v->hi : end;
		fn(at, to, v->prot, arg);
		at = to;
	}
	if (at < end)
		fn(at, end, PROT_READ | PROT_WRITE, arg);
	return 0;
}
