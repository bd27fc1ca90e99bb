/*
 * mimalloc_reserve.c - a user's MIMALLOC_RESERVE_OS_MEMORY and
 * MIMALLOC_RESERVE_HUGE_OS_PAGES[_AT], made after hugepolicy governs
 * mimalloc's mmap.
 *
 * mimalloc 2.0 makes these reservations in its own constructor, which runs
 * inside dlopen - before mimalloc_os.c can redirect its mmap.  With large OS
 * pages they are MAP_HUGETLB mappings that nobody populates: under a cgroup
 * hugetlb limit, the first touch of such a page is a SIGBUS.  So while
 * dlopen runs, the variables'
 * entries in environ point at "NAME=0" (mimalloc reads environ directly or
 * through getenv, and either sees that); afterwards the entries are put
 * back and the same reservations are made through mimalloc's own API
 * (mi_reserve_os_memory, mi_reserve_huge_os_pages_at / _interleave), whose
 * mmaps now go through hugepolicy: hugetlb pages populated and recorded, or
 * refused and mapped as ordinary memory.  Values are parsed by mimalloc's
 * rules (options.c: a number of bytes, or K/M/G with an optional B or IB;
 * huge pages: a count); a value mimalloc would refuse is left to mimalloc,
 * which warns and ignores it.
 * No malloc: environ is edited by swapping pointers, never by setenv.
 */
#define _GNU_SOURCE
#include "hp_mimalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

enum { RES_OS_MEMORY, RES_HUGE_PAGES, RES_HUGE_AT, RES_COUNT };

static const struct {
	const char *name;
	char *neutral;                  /* what mimalloc's constructor reads instead */
} vars[RES_COUNT] = {
	[RES_OS_MEMORY] = { "MIMALLOC_RESERVE_OS_MEMORY", (char *)"MIMALLOC_RESERVE_OS_MEMORY=0" },
	[RES_HUGE_PAGES] = { "MIMALLOC_RESERVE_HUGE_OS_PAGES", (char *)"MIMALLOC_RESERVE_HUGE_OS_PAGES=0" },
	[RES_HUGE_AT] = { "MIMALLOC_RESERVE_HUGE_OS_PAGES_AT", (char *)"MIMALLOC_RESERVE_HUGE_OS_PAGES_AT=-1" },
};

static struct {
	char **slot;                    /* the environ entry swapped, NULL if none */
	char *orig;
	long long value;                /* parsed: bytes, a page count, a node */
	int valid;
} held[RES_COUNT];

/* mimalloc 2.0 options.c: an upper-cased value, strtol, then for
 * reserve_os_memory a K/M/G unit and an optional IB or B; anything left
 * over is invalid.  The result here is in bytes (mimalloc keeps KiB). */
static int parse_value(int which, const char *s, long long *out)
{
	char *end = NULL;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || errno != 0)
		return -1;
	if (which == RES_OS_MEMORY) {
		long long unit = 1;
		char c = *end;
		if (c == 'k' || c == 'K')
			unit = 1024;
		else if (c == 'm' || c == 'M')
			unit = 1024 * 1024;
		else if (c == 'g' || c == 'G')
			unit = 1024LL * 1024 * 1024;
		if (unit != 1)
			end++;
		if ((end[0] == 'i' || end[0] == 'I') && (end[1] == 'b' || end[1] == 'B'))
			end += 2;
		else if (end[0] == 'b' || end[0] == 'B')
			end++;
		if (v < 0 || v > (1LL << 50) / unit)
			return -1;
		v *= unit;
	}
	if (*end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* Entries whose name matches (case-insensitively, as mimalloc compares). */
static char **find(const char *name)
{
	size_t n = strlen(name);
	for (char **e = environ; e && *e; e++)
		if (strncasecmp(*e, name, n) == 0 && (*e)[n] == '=')
			return e;
	return NULL;
}

int hp_mimalloc_reserve_hide(void)
{
	int hidden = 0;
	for (int i = 0; i < RES_COUNT; i++) {
		held[i].slot = NULL;
		held[i].valid = 0;
		char **e = find(vars[i].name);
		if (!e)
			continue;
		const char *value = *e + strlen(vars[i].name) + 1;
		if (parse_value(i, value, &held[i].value) != 0)
			continue;               /* mimalloc's own warning, and ignored */
		held[i].valid = 1;
		held[i].slot = e;
		held[i].orig = *e;
		*e = vars[i].neutral;
		hidden++;
	}
	return hidden;
}

void hp_mimalloc_reserve_restore(void)
{
	for (int i = 0; i < RES_COUNT; i++)
		if (held[i].slot && *held[i].slot == vars[i].neutral)
			*held[i].slot = held[i].orig;
}

/* what a reservation got: the page layer's record says how much of it is
 * hugetlb (populated), never the request */
static void outcome(struct hp_buf *note, const char *what, int rc, uint64_t before)
{
	struct hp_tlb_counts c;
	hp_tlb_counts(HP_TLB_BACKEND, &c);
	uint64_t tlb = c.pool_bytes > before ? c.pool_bytes - before : 0;
	hp_buf_printf(note, "%s%s via hugepolicy's mmap: ", note->len ? "; " : "", what);
	if (rc != 0)
		hp_buf_printf(note, "not reserved (%s); mimalloc maps ordinary memory on demand", strerror(rc));
	else if (tlb)
		hp_buf_printf(note, "reserved, %llu B of it on hugetlb pages (populated)", (unsigned long long)tlb);
	else
		hp_buf_printf(note, "reserved on ordinary memory (no hugetlb pages: refused or not asked)");
}

void hp_mimalloc_reserve_replay(void *handle, struct hp_buf *note)
{
	int (*os_memory)(size_t, bool, bool) = (int (*)(size_t, bool, bool))dlsym(handle, "mi_reserve_os_memory");
	int (*huge_at)(size_t, int, size_t) = (int (*)(size_t, int, size_t))dlsym(handle, "mi_reserve_huge_os_pages_at");
	int (*huge_il)(size_t, size_t, size_t) =
		(int (*)(size_t, size_t, size_t))dlsym(handle, "mi_reserve_huge_os_pages_interleave");
	char what[96];
	struct hp_tlb_counts c;
	if (held[RES_HUGE_PAGES].valid && held[RES_HUGE_PAGES].value > 0) {
		size_t pages = (size_t)held[RES_HUGE_PAGES].value;
		int rc = ENOENT;
		hp_tlb_counts(HP_TLB_BACKEND, &c);
		/* mimalloc's own timeout: 500 ms a page */
		if (held[RES_HUGE_AT].valid && held[RES_HUGE_AT].value >= 0 && huge_at)
			rc = huge_at(pages, (int)held[RES_HUGE_AT].value, pages * 500);
		else if (huge_il)
			rc = huge_il(pages, 0, pages * 500);
		snprintf(what, sizeof what, "MIMALLOC_RESERVE_HUGE_OS_PAGES=%zu (1 GiB pages)", pages);
		outcome(note, what, rc, c.pool_bytes);
	}
	if (held[RES_OS_MEMORY].valid && held[RES_OS_MEMORY].value > 0) {
		size_t bytes = (size_t)held[RES_OS_MEMORY].value;
		hp_tlb_counts(HP_TLB_BACKEND, &c);
		int rc = os_memory ? os_memory(bytes, true, true) : ENOENT;
		snprintf(what, sizeof what, "MIMALLOC_RESERVE_OS_MEMORY=%zu B", bytes);
		outcome(note, what, rc, c.pool_bytes);
	}
}
