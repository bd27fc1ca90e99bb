/*
 * fault_measure.c - what a page fault costs on this host now.
 *
 * A measurement maps memory of its own (never an allocator's), times the
 * first touch of base pages (MADV_NOHUGEPAGE) and of huge pages
 * (MADV_HUGEPAGE, 2 MiB-aligned), and unmaps them.  Whether a THP fault
 * got a huge page is read back from this thread's minor-fault count: one
 * fault for the whole huge page, not one per base page.  A huge page is
 * taken as the kernel hands it out now - if the host took that memory
 * back, its fault pays the host's fault too - and given back free, so the
 * next THP fault finds it: faulting it in again is the warm cost.
 * Needs nothing but the kernel: it runs inside malloc and in the CLI.
 */
#define _GNU_SOURCE
#include "hp_pages.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BASE_PAGES 128          /* base-page faults per measurement */

/* this thread's CPU time: a fault is the thread's own time (a host's fault
 * under it too: the vCPU stalls), and time it spends preempted is not */
uint64_t hp_fault_thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long hp_fault_thread_faults(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : -1;
}

/* the first touch of `pages` base pages; ns per fault, 0 if refused */
static uint64_t base_fault_ns(size_t page, unsigned pages)
{
	size_t len = page * pages;
	volatile unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	madvise((void *)p, len, MADV_NOHUGEPAGE);   /* advice: a refusal leaves `never`/`madvise` hosts as they are */
	uint64_t t0 = hp_fault_thread_ns();
	for (size_t off = 0; off < len; off += page)
		p[off] = 1;
	uint64_t ns = (hp_fault_thread_ns() - t0) / pages;
	munmap((void *)p, len);
	return ns ? ns : 1;
}

/* one 2 MiB-aligned huge page's worth of fresh memory, MADV_HUGEPAGE */
static unsigned char *map_huge_aligned(void)
{
	unsigned char *raw = mmap(NULL, 2 * (size_t)HP_HUGE_2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	unsigned char *p = (unsigned char *)(((uintptr_t)raw + HP_HUGE_2M - 1) & ~(uintptr_t)(HP_HUGE_2M - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	munmap(p + HP_HUGE_2M, (size_t)(raw + 2 * (size_t)HP_HUGE_2M - (p + HP_HUGE_2M)));
	if (madvise(p, HP_HUGE_2M, MADV_HUGEPAGE) != 0) {
		munmap(p, HP_HUGE_2M);
		return NULL;
	}
	return p;
}

/* the first touch of one advised huge page: its ns, *got 1 if it was one
 * fault (a huge page), 0 if the kernel gave base pages; 0 if refused */
static uint64_t thp_fault_ns(size_t page, int *got)
{
	volatile unsigned char *p = map_huge_aligned();
	if (!p)
		return 0;
	long f0 = hp_fault_thread_faults();
	uint64_t t0 = hp_fault_thread_ns();
	p[0] = 1;
	uint64_t ns = hp_fault_thread_ns() - t0;
	for (size_t off = page; off < HP_HUGE_2M; off += page)
		p[off] = 1;
	long f1 = hp_fault_thread_faults();
	/* a huge page: 1 fault (2 if an interrupt's page fault landed between) */
	*got = f0 >= 0 && f1 >= 0 && f1 - f0 <= 2;
	munmap((void *)p, HP_HUGE_2M);
	return ns ? ns : 1;
}

int hp_fault_cost_measure(struct hp_fault_costs *c, unsigned thp_pages, int warm)
{
	int saved = errno;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	*c = (struct hp_fault_costs){ .per_huge = (unsigned)(HP_HUGE_2M / page) };
	c->base_ns = base_fault_ns(page, BASE_PAGES);
	uint64_t sum = 0, warm_sum = 0;
	unsigned got_all = 1, n = 0;
	for (unsigned i = 0; i < (thp_pages ? thp_pages : 1); i++) {
		int got = 0;
		uint64_t ns = thp_fault_ns(page, &got);
		if (!ns)
			break;
		got_all &= (unsigned)got;
		sum += ns;
		n++;
		/* the page just freed, faulted in again: warm memory */
		if (warm && (ns = thp_fault_ns(page, &got)) != 0)
			warm_sum += ns;
	}
	errno = saved;
	if (!c->base_ns || !n)
		return ENOMEM;
	c->got_thp = (int)got_all;
	c->thp_ns = sum / n;
	c->thp_warm_ns = warm ? warm_sum / n : 0;
	return 0;
}

