/*
 * hp_mimalloc.h - internal interface of the mimalloc backend (mimalloc.c):
 * its OS calls routed through the page layer (mimalloc_os.c, by a GOT hook:
 * got_hook.c), the ranges it holds (mimalloc_maps.c), and a user's
 * MIMALLOC_RESERVE_* made through its API (mimalloc_reserve.c).
 */
#ifndef HP_MIMALLOC_H
#define HP_MIMALLOC_H

#include "../hp_backend.h"

#pragma GCC visibility push(hidden)
/* Redirect the GOT slot(s) of `name` in the dlopen'ed `handle` to fn
 * (got_hook.c); *old gets the previous target.  0, ENOENT (no such import),
 * ENOSYS (target not supported), or mprotect's errno. */
int hp_got_hook(void *handle, const char *name, void *fn, void **old);
/* Install mimalloc_os.c's mmap/munmap/madvise into mimalloc; pool: its
 * MAP_HUGETLB requests go to the pool (1) or are refused (0). */
int hp_mimalloc_os_install(void *handle, int pool, int verbose);
/* 1: mimalloc's ordinary mmaps are advised MADV_NOHUGEPAGE (plan
 * thp_small_nohuge: an `always` host where the process switch is not
 * available); hugepolicy's own advice on big blocks comes after and wins. */
void hp_mimalloc_os_nohuge(int on);
/* mimalloc_maps.c: the ranges mimalloc holds (its mmaps, less its munmaps,
 * and hugepolicy's reservation arena); read: their resident bytes and
 * their length, or ENOSPC when one could not be recorded */
void hp_mimalloc_maps_init(void);              /* once, before the first add */
void hp_mimalloc_maps_add(void *p, size_t len);
void hp_mimalloc_maps_remove(void *p, size_t len);
int hp_mimalloc_maps_read(uint64_t *resident, uint64_t *mapped);

/* mimalloc_reserve.c: a user's MIMALLOC_RESERVE_* hidden from mimalloc's
 * constructor around dlopen (hide: how many; restore always), then made
 * through mimalloc's API once its mmap is hugepolicy's; the outcome in note. */
int hp_mimalloc_reserve_hide(void);
void hp_mimalloc_reserve_restore(void);
void hp_mimalloc_reserve_replay(void *handle, struct hp_buf *note);

#pragma GCC visibility pop

#endif
