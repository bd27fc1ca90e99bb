/*
 * pages.c - the OS page layer: THP advice, hugetlb mappings, and what the
 * kernel says the process has (smaps_rollup).  Terms and flags follow the
 * kernel's admin-guide/mm/transhuge.rst and hugetlbpage.rst.
 */
#define _GNU_SOURCE
#include "hp_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23          /* Linux 5.14 */
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

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
	int rc = madvise((void *)first, last - first, MADV_HUGEPAGE);
	errno = saved;
	return rc == 0 ? (size_t)(hi - lo) : 0;
}

void *hp_pages_map_hugetlb(size_t len, size_t *mapped_len)
{
	if (len == 0 || len > SIZE_MAX - HP_HUGE_2M) {
		errno = ENOMEM;
		return NULL;
	}
	size_t n = (len + HP_HUGE_2M - 1) & ~(size_t)(HP_HUGE_2M - 1);
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
	if (p == MAP_FAILED)
		return NULL;                    /* ENOMEM: pool cannot reserve n */
	if (madvise(p, n, MADV_POPULATE_WRITE) != 0) {
		int e = errno;                  /* cgroup limit, or kernel < 5.14 (EINVAL) */
		munmap(p, n);
		errno = e;
		return NULL;
	}
	*mapped_len = n;
	return p;
}

void *hp_pages_map_hugetlb_aligned(size_t len, size_t align, size_t *mapped_len)
{
	if (align <= HP_HUGE_2M)
		return hp_pages_map_hugetlb(len, mapped_len);
	if (len == 0 || len > SIZE_MAX / 2 || (align & (align - 1)) != 0 || align > SIZE_MAX / 4) {
		errno = EINVAL;
		return NULL;
	}
	size_t n = (len + HP_HUGE_2M - 1) & ~(size_t)(HP_HUGE_2M - 1);
	/* address space only (no pool pages, no commit charge), then the
	 * hugetlb mapping placed over its aligned part */
	unsigned char *r = mmap(NULL, n + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	unsigned char *a = (unsigned char *)(((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1));
	void *p = mmap(a, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		munmap(r, n + align);
		errno = e;
		return NULL;
	}
	if (a > r)
		munmap(r, (size_t)(a - r));
	if (a + n < r + n + align)
		munmap(a + n, (size_t)(r + n + align - (a + n)));
	if (madvise(p, n, MADV_POPULATE_WRITE) != 0) {
		int e = errno;
		munmap(p, n);
		errno = e;
		return NULL;
	}
	*mapped_len = n;
	return p;
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

int hp_pages_smaps(struct hp_smaps *out)
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
	out->hugetlb = kb_field(buf, "\nPrivate_Hugetlb:") + kb_field(buf, "\nShared_Hugetlb:");
	errno = saved;
	return 0;
}
