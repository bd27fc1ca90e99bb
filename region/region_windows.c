/*
 * region_windows.c - the region chain on Windows (mingw-w64), the shape of
 * Stockfish's aligned_large_pages_alloc: large pages -> plain pages.
 *
 * Large pages need SeLockMemoryPrivilege (the "Lock pages in memory" user
 * right, granted by policy, held by no account by default): the token's
 * privilege is enabled with AdjustTokenPrivileges - which returns success
 * while refusing, so GetLastError() == ERROR_NOT_ALL_ASSIGNED is what says
 * no - then VirtualAlloc(MEM_RESERVE|MEM_COMMIT|MEM_LARGE_PAGES) with the
 * length rounded up to GetLargePageMinimum(), and the privilege is put back
 * as it was.  Large pages are locked and resident from the start.  Anything
 * refused steps down to plain VirtualAlloc, and the reason line names the
 * call and its error.  Windows has no THP (a THP request steps down with
 * that reason), no fork (the fork advice has nothing to do), and only a
 * preferred node for NUMA (VirtualAllocExNuma).  Byte counts come from
 * QueryWorkingSetEx, page by page.
 */
#define WIN32_LEAN_AND_MEAN
#include "hp_region.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <psapi.h>

#ifndef EOPNOTSUPP
#define EOPNOTSUPP 130
#endif

void *hp_region_os_pages(size_t bytes)
{
	return VirtualAlloc(NULL, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void hp_region_os_yield(void)
{
	SwitchToThread();
}

/* no live report on Windows: `hugepolicy inspect` is Linux's */
void hp_region_os_counted(void)
{
}

int hp_region_os_verbose(void)
{
	const char *v = getenv("HUGEPOLICY_VERBOSE");
	return v && (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on"));
}

void hp_region_os_say(const char *line)
{
	char buf[560];
	int n = snprintf(buf, sizeof buf, "hugepolicy[%lu]: %s\n", (unsigned long)GetCurrentProcessId(), line);
	DWORD done;
	if (n > 0)
		WriteFile(GetStdHandle(STD_ERROR_HANDLE), buf, (DWORD)(n < (int)sizeof buf ? n : (int)sizeof buf - 1),
			  &done, NULL);
}

int hp_region_os_auto(struct hp_region *r)
{
	const char *pages = getenv("HUGEPOLICY_PAGES");
	if (pages && !strcmp(pages, "off")) {
		hp_region_why(r, "auto: HUGEPOLICY_PAGES=off: plain pages");
		return HUGEPOLICY_REGION_BASE;
	}
	hp_region_why(r, "auto: large pages where this process may lock pages, else plain pages");
	return HUGEPOLICY_REGION_HUGETLB;
}

static size_t round_up(size_t n, size_t unit)
{
	return (n + unit - 1) / unit * unit;
}

/* Enable (on) or restore SeLockMemoryPrivilege; 0, or the failing step in
 * *why with its error. */
static int lock_privilege(HANDLE *token, TOKEN_PRIVILEGES *old, const char **why, DWORD *err)
{
	TOKEN_PRIVILEGES tp;
	DWORD len = sizeof *old;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, token)) {
		*why = "OpenProcessToken failed", *err = GetLastError();
		return -1;
	}
	if (!LookupPrivilegeValueA(NULL, "SeLockMemoryPrivilege", &tp.Privileges[0].Luid)) {
		*why = "LookupPrivilegeValue(SeLockMemoryPrivilege) failed", *err = GetLastError();
		CloseHandle(*token);
		return -1;
	}
	tp.PrivilegeCount = 1;
	tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
	BOOL ok = AdjustTokenPrivileges(*token, FALSE, &tp, sizeof *old, old, &len);
	*err = GetLastError();          /* set on success too: ERROR_NOT_ALL_ASSIGNED */
	if (!ok || *err != ERROR_SUCCESS) {
		*why = ok ? "SeLockMemoryPrivilege not held: AdjustTokenPrivileges reports ERROR_NOT_ALL_ASSIGNED"
			  : "AdjustTokenPrivileges failed";
		CloseHandle(*token);
		return -1;
	}
	return 0;
}

static DWORD WINAPI touch(LPVOID arg)
{
	size_t *s = arg;                /* {start, len, page} */
	for (size_t off = 0; off < s[1]; off += s[2])
		((volatile unsigned char *)s[0])[off] = 0;
	return 0;
}

/* Touch fresh pages with `threads` threads: 0, *used = threads run. */
static void populate(unsigned char *p, size_t len, size_t page, unsigned threads, unsigned *used)
{
	size_t slice[64][3];
	HANDLE h[64];
	if (threads < 1)
		threads = 1;
	size_t pages = len / page, per = pages / threads, off = 0;
	*used = 0;
	for (unsigned i = 0; i < threads; i++) {
		size_t n = i == threads - 1 ? len - off : per * page;
		slice[i][0] = (size_t)(p + off), slice[i][1] = n, slice[i][2] = page;
		off += n;
		h[i] = i ? CreateThread(NULL, 64 * 1024, touch, slice[i], 0, NULL) : NULL;
	}
	touch(slice[0]);
	for (unsigned i = 0; i < threads; i++) {
		if (i && h[i]) {
			WaitForSingleObject(h[i], INFINITE);
			CloseHandle(h[i]);
		} else if (i) {
			touch(slice[i]);
		}
		*used += i == 0 || h[i] != NULL;
	}
}

static int numa_node(struct hp_region *r, DWORD *node)
{
	ULONG highest = 0;
	GetNumaHighestNodeNumber(&highest);
	int strict = (r->opt.flags & HUGEPOLICY_REGION_STRICT) != 0;
	*node = (DWORD)-1;
	r->numa_noop = highest == 0;
	if (r->opt.numa == HUGEPOLICY_REGION_NUMA_NODE) {
		if ((ULONG)r->opt.node > highest) {
			hp_region_why(r, "numa: node %d is not there (highest %lu)", r->opt.node, (unsigned long)highest);
			return EINVAL;
		}
		*node = (DWORD)r->opt.node;
		r->numa = HUGEPOLICY_REGION_NUMA_NODE;
		hp_region_why(r, "numa: preferred node %d (VirtualAllocExNuma)%s", r->opt.node,
			      highest == 0 ? ": a no-op, the only node" : "");
	} else if (r->opt.numa == HUGEPOLICY_REGION_NUMA_LOCAL) {
		r->numa = HUGEPOLICY_REGION_NUMA_LOCAL;
		hp_region_why(r, "numa: local is Windows' own policy (the faulting thread's node)%s",
			      highest == 0 ? ": a no-op on this one-node machine" : "");
	} else if (r->opt.numa == HUGEPOLICY_REGION_NUMA_INTERLEAVE) {
		hp_region_why(r, "numa: interleave not applied: Windows has no interleave policy%s",
			      highest == 0 ? " (a no-op here anyway: one node)" : "");
		return strict && highest > 0 ? EOPNOTSUPP : 0;
	}
	return 0;
}

static void *alloc(size_t len, DWORD type, DWORD node)
{
	if (node == (DWORD)-1)
		return VirtualAlloc(NULL, len, type, PAGE_READWRITE);
	return VirtualAllocExNuma(GetCurrentProcess(), NULL, len, type, PAGE_READWRITE, node);
}

static int step_large(struct hp_region *r, DWORD node)
{
	size_t min = GetLargePageMinimum();
	if (min == 0) {
		hp_region_why(r, "hugetlb: large pages not used: GetLargePageMinimum() is 0 (no large-page support)");
		return EOPNOTSUPP;
	}
	HANDLE token;
	TOKEN_PRIVILEGES old;
	const char *why;
	DWORD err;
	if (lock_privilege(&token, &old, &why, &err) != 0) {
		hp_region_why(r, "hugetlb: large pages not used: %s (error %lu)", why, (unsigned long)err);
		return EOPNOTSUPP;
	}
	size_t len = round_up(r->req, min);
	void *p = alloc(len, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, node);
	err = GetLastError();
	AdjustTokenPrivileges(token, FALSE, &old, 0, NULL, NULL);       /* as it was */
	CloseHandle(token);
	if (!p) {
		hp_region_why(r, "hugetlb: large pages not used: VirtualAlloc(MEM_LARGE_PAGES) of %zu bytes failed "
			      "with error %lu", len, (unsigned long)err);
		return ENOMEM;
	}
	r->base = (uintptr_t)p, r->len = len, r->page = min;
	r->kind = HUGEPOLICY_REGION_HUGETLB;
	r->prefaulted = 1;
	hp_region_why(r, "hugetlb: large pages used: %zu pages of %zu kB (GetLargePageMinimum), locked",
		      len / min, min >> 10);
	return 0;
}

int hp_region_os_map(struct hp_region *r)
{
	DWORD node;
	int strict = (r->opt.flags & HUGEPOLICY_REGION_STRICT) != 0, err = numa_node(r, &node);
	if (err)
		return err;
	if (r->opt.fork != HUGEPOLICY_REGION_FORK_INHERIT)
		hp_region_why(r, "fork: Windows has no fork(): nothing to do");
	int kind = r->asked;
	if (kind == HUGEPOLICY_REGION_HUGETLB) {
		err = step_large(r, node);
		if (!err || strict)
			return err;
		kind = HUGEPOLICY_REGION_THP;
	}
	if (kind == HUGEPOLICY_REGION_THP) {
		hp_region_why(r, "thp: not used: Windows has no transparent huge pages");
		if (strict)
			return EOPNOTSUPP;
	}
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	size_t len = round_up(r->req, si.dwPageSize);
	void *p = alloc(len, MEM_RESERVE | MEM_COMMIT, node);
	if (!p) {
		hp_region_why(r, "base: VirtualAlloc of %zu bytes failed with error %lu", len, (unsigned long)GetLastError());
		return ENOMEM;
	}
	unsigned used = 0;
	if (r->opt.flags & HUGEPOLICY_REGION_POPULATE) {
		populate(p, len, si.dwPageSize, r->opt.threads > 64 ? 64 : r->opt.threads, &used);
		r->prefaulted = 1;
	}
	r->base = (uintptr_t)p, r->len = len, r->page = 0;
	r->kind = HUGEPOLICY_REGION_BASE;
	if (used)
		hp_region_why(r, "base: used: %zu bytes (VirtualAlloc), populated by %u thread%s", len, used,
			      used == 1 ? "" : "s");
	else
		hp_region_why(r, "base: used: %zu bytes (VirtualAlloc), not populated", len);
	return 0;
}

void hp_region_os_unmap(struct hp_region *r)
{
	VirtualFree((void *)r->base, 0, MEM_RELEASE);
}

/* VirtualAlloc'ed memory cannot grow in place and large pages cannot be
 * partly given back: every resize is a new region and a copy (region.c). */
int hp_region_os_resize(struct hp_region *r, size_t bytes)
{
	(void)r, (void)bytes;
	return EXDEV;
}

int hp_region_os_measure(const struct hp_region *r, struct hugepolicy_region_info *info)
{
	PSAPI_WORKING_SET_EX_INFORMATION ws[256];
	size_t page = r->kind == HUGEPOLICY_REGION_HUGETLB ? r->page : 4096, n = r->len / page;
	uint64_t large = 0, small = 0;
	for (size_t i = 0; i < n;) {
		size_t k = n - i < 256 ? n - i : 256;
		for (size_t j = 0; j < k; j++)
			ws[j].VirtualAddress = (void *)(r->base + (i + j) * page);
		if (!QueryWorkingSetEx(GetCurrentProcess(), ws, (DWORD)(k * sizeof ws[0])))
			return EIO;
		for (size_t j = 0; j < k; j++)
			if (ws[j].VirtualAttributes.Valid)
				*(ws[j].VirtualAttributes.LargePage ? &large : &small) += page;
		i += k;
	}
	info->hugetlb_bytes = large;
	info->thp_bytes = 0;
	info->base_bytes = small;
	info->rss = large + small;
	info->vmas = 1;
	return 0;
}
