/*
 * folio_scan.c - how much of this process's anonymous memory sits in
 * large folios of each size, read from the kernel: /proc/self/maps for the
 * private writable mappings without a file, /proc/self/pagemap for the
 * page frame of each present page, /proc/kpageflags for its flags
 * (admin-guide/mm/pagemap.rst).  smaps counts only PMD-mapped THP
 * (AnonHugePages); a folio of a size below the PMD size shows there as
 * base pages, so this walk is the per-process truth for mTHP.
 *
 * A folio is a page with KPF_COMPOUND_HEAD and KPF_THP and the tail pages
 * that follow it in both address and frame order; its mapped pages are
 * counted under the size of that run rounded up to a power of two (a
 * folio mapped only in part counts what is mapped).  Needs CAP_SYS_ADMIN:
 * without it pagemap shows no frame numbers (EPERM).  Reads through fixed
 * buffers, no malloc; the walk stops with E2BIG past SCAN_MAX reads of
 * kpageflags (a large heap of scattered base pages), so its cost stays
 * bounded; it runs only when the report asks for it.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_THP 22
#define BATCH 512
#define SCAN_MAX (1u << 18)

struct scan {
	int pagemap, kflags;
	uint64_t page;
	uint64_t *bytes;        /* [64]: by log2 of the folio size */
	uint64_t run_pages, next_pfn;   /* the folio being counted: pages so far, its next frame */
	unsigned reads;
	int err;
};

static int log2_up(uint64_t v)
{
	int k = 0;
	while (((uint64_t)1 << k) < v)
		k++;
	return k;
}

static void flush(struct scan *s)
{
	if (s->run_pages)
		s->bytes[log2_up(s->run_pages * s->page)] += s->run_pages * s->page;
	s->run_pages = 0;
}

/* the flags of frames [pfn, pfn + n) into f */
static int kflags(struct scan *s, uint64_t pfn, size_t n, uint64_t *f)
{
	if (++s->reads > SCAN_MAX)
		return E2BIG;
	ssize_t got = pread(s->kflags, f, n * 8, (off_t)(pfn * 8));
	return got == (ssize_t)(n * 8) ? 0 : got < 0 ? errno : EIO;
}

/* one batch of pagemap entries: runs of consecutive frames read at once */
static int batch(struct scan *s, const uint64_t *pm, size_t n)
{
	uint64_t f[BATCH];
	for (size_t i = 0; i < n;) {
		if (!(pm[i] & PM_PRESENT)) {
			flush(s);
			i++;
			continue;
		}
		uint64_t pfn = pm[i] & PM_PFN_MASK;
		if (!pfn)
			return EPERM;   /* frame numbers hidden: not CAP_SYS_ADMIN */
		size_t j = i + 1;
		while (j < n && (pm[j] & PM_PRESENT) && (pm[j] & PM_PFN_MASK) == pfn + (j - i))
			j++;
		int rc = kflags(s, pfn, j - i, f);
		if (rc)
			return rc;
		for (size_t k = 0; k < j - i; k++) {
			uint64_t fl = f[k];
			if (!(fl & (1ull << KPF_THP))) {
				flush(s);
			} else if (fl & (1ull << KPF_COMPOUND_HEAD)) {
				flush(s);
				s->run_pages = 1;
				s->next_pfn = pfn + k + 1;
			} else if ((fl & (1ull << KPF_COMPOUND_TAIL)) && s->run_pages && s->next_pfn == pfn + k) {
				s->run_pages++;
				s->next_pfn++;
			} else {
				flush(s);       /* a tail whose head is not mapped before it here */
				s->run_pages = 1;
				s->next_pfn = pfn + k + 1;
			}
		}
		i = j;
	}
	return 0;
}

static int range(struct scan *s, uint64_t lo, uint64_t hi)
{
	uint64_t pm[BATCH];
	for (uint64_t v = lo; v < hi;) {
		size_t n = (size_t)((hi - v) / s->page < BATCH ? (hi - v) / s->page : BATCH);
		ssize_t got = pread(s->pagemap, pm, n * 8, (off_t)(v / s->page * 8));
		if (got <= 0)
			return got < 0 ? errno : 0;     /* unmapped meanwhile */
		int rc = batch(s, pm, (size_t)got / 8);
		if (rc)
			return rc;
		v += (uint64_t)got / 8 * s->page;
	}
	flush(s);
	return 0;
}

/* "start-end rw-p offset dev inode [path]": private writable mappings of no
 * file ([heap], [stack] and nameless ones) */
static int maps_line(void *ctx, char *line, size_t len, int whole)
{
	struct scan *s = ctx;
	(void)len;
	if (!whole)
		return 0;
	char *end;
	uint64_t lo = strtoull(line, &end, 16), hi;
	if (*end != '-')
		return 0;
	hi = strtoull(end + 1, &end, 16);
	if (strncmp(end, " rw-p ", 6) != 0)
		return 0;
	/* offset, dev, inode, then the path: anonymous when the inode is 0 */
	char *f = end + 6;
	for (int i = 0; i < 2 && f; i++) {
		f = strchr(f, ' ');
		f = f ? f + 1 : NULL;
	}
	if (!f || strtoull(f, &end, 10) != 0)
		return 0;
	end += strspn(end, " ");
	if (*end && *end != '[')
		return 0;
	if (*end && strcmp(end, "[heap]") != 0 && strcmp(end, "[stack]") != 0)
		return 0;
	int rc = range(s, lo, hi);
	return rc ? rc : 0;
}

int hp_pages_folio_bytes(uint64_t bytes[64])
{
	char buf[512];
	int saved = errno;
	struct scan s = { .page = (uint64_t)sysconf(_SC_PAGESIZE), .bytes = bytes };
	memset(bytes, 0, 64 * sizeof bytes[0]);
	s.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	s.kflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	int rc = s.pagemap < 0 || s.kflags < 0 ? errno : 0;
	if (!rc)
		rc = hp_read_lines("/proc/self/maps", buf, sizeof buf, maps_line, &s);
	if (s.pagemap >= 0)
		close(s.pagemap);
	if (s.kflags >= 0)
		close(s.kflags);
	errno = saved;
	return rc;
}
