/*
 * glibc_api.c - glibc's malloc API beyond the malloc family: mallinfo2,
 * mallinfo, malloc_trim, mallopt, malloc_stats and malloc_info, each
 * answered by the backend in force (hp_backend.h: trim, info, opt, print,
 * xml).  Without these a host would bind to glibc's own, which under
 * jemalloc or mimalloc describe glibc's empty heap and release nothing.
 *
 * What each means per backend is in hugepolicy(3), "The glibc API":
 * - mallinfo2: the backend's own numbers in glibc's fields (uordblks: bytes
 *   in use, arena: its heap, fordblks = arena - uordblks, hblkhd: blocks
 *   mapped one by one); mallinfo: the same, truncated to int as glibc does;
 * - malloc_trim: every free page the backend holds goes back; 1 when memory
 *   went back;
 * - mallopt: what the parameter means to the backend; 0 when it means
 *   nothing there, as glibc answers a parameter it does not know;
 * - malloc_stats: glibc's totals from mallinfo2, then the backend's text,
 *   on stderr (glibc's own under the system backend), whole: a pending
 *   cancellation waits for the next cancellation point, as in glibc;
 * - malloc_info: XML of the backend's numbers (glibc's own under system);
 *   options other than 0 return EINVAL, as in glibc.
 * Before start-up finished (a call from inside it) there is no backend:
 * zeros, 0, nothing printed.
 *
 * All functions are thread-safe as the backends' are; none is on a hot path.
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"
#include "hp_init.h"
#include "hugepolicy.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const struct hp_backend *backend(void)
{
	hp_init();
	return hp_rt.backend;
}

HP_EXPORT struct mallinfo2 mallinfo2(void)
{
	struct mallinfo2 mi;
	memset(&mi, 0, sizeof mi);
	const struct hp_backend *b = backend();
	if (b)
		b->info(&mi);
	/* the blocks hugepolicy mapped from the pool in front of the backend
	 * are mmapped chunks, as glibc maps its own big ones */
	struct hp_tlb_counts c;
	hp_tlb_counts(HP_TLB_BLOCK, &c);
	mi.hblks += c.pool_maps;
	mi.hblkhd += c.pool_bytes;
	return mi;
}

/* glibc 2.33+ truncates each field to int the same way */
HP_EXPORT struct mallinfo mallinfo(void)
{
	struct mallinfo2 m2 = mallinfo2();
	struct mallinfo m = {
		.arena = (int)m2.arena, .ordblks = (int)m2.ordblks, .smblks = (int)m2.smblks,
		.hblks = (int)m2.hblks, .hblkhd = (int)m2.hblkhd, .usmblks = (int)m2.usmblks,
		.fsmblks = (int)m2.fsmblks, .uordblks = (int)m2.uordblks, .fordblks = (int)m2.fordblks,
		.keepcost = (int)m2.keepcost,
	};
	return m;
}

HP_EXPORT int malloc_trim(size_t pad)
{
	const struct hp_backend *b = backend();
	return b ? b->trim(pad) : 0;
}

HP_EXPORT int mallopt(int param, int value)
{
	const struct hp_backend *b = backend();
	return b && b->opt ? b->opt(param, value) : 0;
}

/* glibc's malloc_stats totals ("Total (incl. mmap):", after its arenas),
 * from the backend's mallinfo2: the head of a non-glibc backend's text */
void hp_malloc_stats_totals(FILE *fp)
{
	struct mallinfo2 mi = mallinfo2();
	fprintf(fp, "Total (incl. mmap):\nsystem bytes     = %10zu\nin use bytes     = %10zu\n"
		"max mmap regions = %10zu\nmax mmap bytes   = %10zu\n",
		mi.arena + mi.hblkhd, mi.uordblks + mi.hblkhd, mi.hblks, mi.hblkhd);
}

HP_EXPORT void malloc_stats(void)
{
	const struct hp_backend *b = backend();
	if (!b)
		return;
	/* glibc's malloc_stats is no cancellation point: its text is
	 * written whole (glibc's tst-malloc-stats-cancellation) */
	int state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	flockfile(stderr);
	b->print(stderr);
	funlockfile(stderr);
	pthread_setcancelstate(state, NULL);
}

static void xml_size(FILE *fp, const char *tag, const char *type, uint64_t v)
{
	if (v != HUGEPOLICY_UNKNOWN)
		fprintf(fp, "<%s type=\"%s\" size=\"%llu\"/>\n", tag, type, (unsigned long long)v);
}

HP_EXPORT int malloc_info(int options, FILE *fp)
{
	if (options != 0)
		return EINVAL;          /* glibc's answer: the value, errno untouched */
	const struct hp_backend *b = backend();
	if (!b)
		return 0;
	if (b->xml)
		return b->xml(options, fp);
	struct mallinfo2 mi = mallinfo2();     /* the pool's blocks: mmapped chunks */
	struct hugepolicy_stats st = { .size = sizeof st };
	hugepolicy_stats(&st);
	/* glibc's elements where they mean the same, the stats.* names as
	 * "total" types; a number the backend cannot give is left out */
	fprintf(fp, "<malloc version=\"1\" backend=\"%s\">\n", b->name);
	fprintf(fp, "<total type=\"mmap\" count=\"%zu\" size=\"%zu\"/>\n", mi.hblks, mi.hblkhd);
	xml_size(fp, "total", "allocated", st.allocated);
	xml_size(fp, "total", "active", st.active);
	xml_size(fp, "total", "metadata", st.metadata);
	xml_size(fp, "total", "resident", st.resident);
	xml_size(fp, "total", "retained", st.retained);
	xml_size(fp, "system", "current", st.mapped);
	xml_size(fp, "aspace", "total", st.mapped);
	fprintf(fp, "</malloc>\n");
	return 0;
}
