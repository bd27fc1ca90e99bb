/*
 * hp_jemalloc.h - internal interface of the jemalloc backend (jemalloc.c):
 * the embedded jemalloc's renamed API (jemalloc_embed.sh), its OS calls
 * (jemalloc_os.c), its arenas (jemalloc_arenas.c), their extents from the
 * hugetlb pool (jemalloc_hugetlb.c) and the oversize arena kept for reuse
 * (jemalloc_huge_arena.c).
 */
#ifndef HP_JEMALLOC_H
#define HP_JEMALLOC_H

#include <sys/types.h>

#include "../hp_backend.h"

#pragma GCC visibility push(hidden)
/* The embedded jemalloc: its ops and its public API, renamed hpje_*
 * (jemalloc(3)); see jemalloc_embed.sh. */
extern const struct hp_alloc_ops hp_jemalloc_ops;
void *hpje_malloc(size_t size);
void hpje_free(void *p);
void *hpje_calloc(size_t n, size_t size);
void *hpje_realloc(void *p, size_t size);
void *hpje_memalign(size_t align, size_t size);
size_t hpje_malloc_usable_size(void *p);
size_t hpje_xallocx(void *p, size_t size, size_t extra, int flags);
void *hpje_mallocx(size_t size, int flags);
void hpje_dallocx(void *p, int flags);
void hpje_malloc_stats_print(void (*write_cb)(void *, const char *), void *arg, const char *opts);
int hpje_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
int hpje_mallctlnametomib(const char *name, size_t *mibp, size_t *miblenp);
int hpje_mallctlbymib(const size_t *mib, size_t miblen, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
/* jemalloc_os.c: the embedded jemalloc's own calls of mmap, munmap and
 * madvise, renamed (jemalloc_embed.sh) */
void *hpje_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int hpje_munmap(void *p, size_t len);
int hpje_madvise(void *p, size_t len, int advice);
/* jemalloc_arenas.c: every automatic arena created now where mmap may fail
 * later (RLIMIT_AS/RLIMIT_DATA, strict overcommit); its settings (HP_BS_ARENAS). */
void hp_jemalloc_arenas_prepare(void);
void hp_jemalloc_arenas_settings(struct hp_backend_settings *s);
/* ... all of them now, whatever mmap may do; the first reason given is the
 * one described (NULL: the caller describes it).  Returns opt.narenas (0:
 * unknown): the automatic arenas are 0 .. that - 1. */
unsigned hp_jemalloc_arenas_create(const char *reason);
/* ... arena 0's memory from before the extent hooks taken by blocks never
 * used, until one is past_start; the bytes taken */
size_t hp_jemalloc_arena0_set_aside(int (*past_start)(const void *p));
/* jemalloc_hugetlb.c: every automatic arena's extents from the 2 MiB pool
 * (extent hooks), ordinary pages where the pool or a cgroup refuses; 0, or
 * ENOSYS if no arena took the hooks.  Its settings (HP_BS_ARENA_POOL). */
int hp_jemalloc_hugetlb_install(int verbose);
void hp_jemalloc_hugetlb_settings(struct hp_backend_settings *s);
/* jemalloc_huge_arena.c: the oversize arena (blocks >= threshold under
 * auto) made now and given the ordinary arenas' decay, so freed big blocks
 * are reused instead of faulted in again; its settings (HP_BS_HUGE_ARENA). */
void hp_jemalloc_huge_arena_keep(size_t threshold);
void hp_jemalloc_huge_arena_tick(size_t n);  /* its decay now; kept runs out before a block none can serve */
void hp_jemalloc_huge_arena_freed(size_t n); /* a big block of n bytes went back to it */
void hp_jemalloc_huge_arena_settings(struct hp_backend_settings *s);
extern const char *hpje_malloc_conf;

#pragma GCC visibility pop

#endif
