/*
 * pages.c - THP advice on a range, anonymous mappings, residency, and what
 * the kernel says the process has (smaps_rollup); hugetlb mappings are in
 * hugetlb_pages.c.  Terms and flags follow the kernel's
 * admin-guide/mm/transhuge.rst and hugetlbpage.rst.
 *
 * Invariants: advice covers exactly the range given (a block that is its
 * own mapping stays one VMA) and reports only the bytes that can become
 * huge pages; numbers are read from the kernel at the call, never kept.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>


size_t hp_pages_advise_thp(void *p, size_t len)
{
	/* Only whole 2 MiB-aligned pages inside the range can become huge
	 * pages; that is what is returned.  But the advice covers the block's
	 * whole base-page range: advising only the aligned middle would split a
	 * block that is its own mapping (glibc's mmapped chunks) into three
	 * VMAs, and mremap(2) refuses ranges that span several VMAs (EFAULT),
	 * so every later realloc of it would copy instead of remap. */
	uintptr_t lo = ((uintptr_t)p + HP_HUGE_2M - 1) & ~(uintptr_t)(HP_HUGE_2M - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)(HP_HUGE_2M - 1);
	if (hi <= lo)
		return 0;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t first = (uintptr_t)p & ~(page - 1);
	uintptr_t last = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	int saved = errno;
	int rc = hp_pages_advise_thp_range((void *)first, last - first);
	errno = saved;
	return rc == 0 ? (size_t)(hi - lo) : 0;
}

int hp_pages_advise_thp_range(void *p, size_t len)
{
	return madvise(p, len, MADV_HUGEPAGE) == 0 ? 0 : errno;
}

void hp_pages_unadvise_thp(void *p, size_t len)
{
	/* the range hp_pages_advise_thp advised: the block's base pages.  A
	 * partial page at an end shared with a neighbour is outside that
	 * neighbour's 2 MiB-aligned interior, so its huge pages are not touched */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t first = (uintptr_t)p & ~(page - 1);
	uintptr_t last = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	if (last <= first)
		return;
	int saved = errno;
	madvise((void *)first, last - first, MADV_NOHUGEPAGE);
	errno = saved;
}

void *hp_pages_map_anon_aligned(size_t len, int thp)
{
	unsigned char *raw = mmap(NULL, len + HP_HUGE_2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	unsigned char *tmp = (unsigned char *)(((uintptr_t)raw + HP_HUGE_2M - 1) & ~(uintptr_t)(HP_HUGE_2M - 1));
	if (tmp > raw)
		munmap(raw, (size_t)(tmp - raw));
	if (tmp + len < raw + len + HP_HUGE_2M)
		munmap(tmp + len, (size_t)(raw + len + HP_HUGE_2M - (tmp + len)));
	if (thp)
		madvise(tmp, len, MADV_HUGEPAGE);
	return tmp;
}

void *hp_pages_map_anon_below(uintptr_t hint, size_t len, uintptr_t end)
{
	int saved = errno;
	unsigned char *p = mmap((void *)hint, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED && ((uintptr_t)p > end || end - (uintptr_t)p < len)) {
		munmap(p, len);         /* the kernel put it elsewhere: the hint was taken */
		p = MAP_FAILED;
	}
	if (p != MAP_FAILED)
		madvise(p, len, MADV_NOHUGEPAGE);      /* small data: never one (m)THP folio */
	errno = saved;
	return p == MAP_FAILED ? NULL : p;
}

uint64_t hp_pages_resident(const void *p, size_t len)
{
	unsigned char vec[4096];        /* on the stack: callers may run at once */
	size_t page = (size_t)sysconf(_SC_PAGESIZE), step = sizeof vec * page;
	uintptr_t r = (uintptr_t)p & ~(uintptr_t)(page - 1);    /* mincore wants a page-aligned start */
	len += (uintptr_t)p - r;
	uint64_t pages = 0;
	for (size_t off = 0; off < len; off += step) {
		size_t chunk = len - off < step ? len - off : step, n = (chunk + page - 1) / page;
		if (mincore((void *)(r + off), chunk, vec) != 0)
			continue;
		for (size_t k = 0; k < n; k++)
			pages += vec[k] & 1;
	}
	return pages * page;
}

void hp_pages_unmap(void *p, size_t len)
{
	int saved = errno;
	munmap(p, len);
	errno = saved;
}

static uint64_t kb_field(const char *buf, const char *name)
{
	const char *s = strstr(buf, name);
	if (!s)
		return 0;
	s += strlen(name);
	while (*s == ' ' || *s == ':' || *s == '\t')
		s++;
	return strtoull(s, NULL, 10) * 1024;
}

int hp_pages_smaps(struct hp_rollup *out)
{
	char buf[2048];
	int saved = errno;
	int fd = open("/proc/self/smaps_rollup", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		errno = saved;
		return e;
	}
	size_t len = 0;
	ssize_t n;
	while (len + 1 < sizeof buf && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	out->rss = kb_field(buf, "\nRss:");
	out->anon_huge = kb_field(buf, "\nAnonHugePages:");
	out->shared_hugetlb = kb_field(buf, "\nShared_Hugetlb:");
	out->hugetlb = kb_field(buf, "\nPrivate_Hugetlb:") + out->shared_hugetlb;
	errno = saved;
	return 0;
}
