/*
 * hp_live.h - the block through which another process reads the report:
 * the library exports one (`hugepolicy_live`, live.c) and rewrites it where
 * its numbers change; `hugepolicy inspect` (inspect_live.c) finds it by the
 * symbol, reads it with process_vm_readv or /proc/PID/mem and composes its
 * keys with the report's own table (report_keys.c).  It carries the
 * report's snapshot (struct hp_report_snap, hp_report.h), plain data.
 *
 * Seqlock (live_block.c): the one writer makes seq odd, writes, makes it
 * even again; a reader takes a copy only if seq was even and the same
 * before and after.  The layout is versioned: a reader trusts nothing of a
 * block whose magic, version or size differ from its own.
 */
#ifndef HP_LIVE_H
#define HP_LIVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hp_report.h"

/* ---- the live block ---- */
#define HP_LIVE_SYMBOL "hugepolicy_live"
#define HP_LIVE_MAGIC "hpLive\0\1"      /* 8 bytes */
#define HP_LIVE_VERSION 2u     /* 2: the keys' snapshot */
struct hp_live {
	char magic[8];
	uint32_t version;               /* HP_LIVE_VERSION of the writer */
	uint32_t size;                  /* sizeof(struct hp_live) of the writer */
	_Atomic uint64_t seq;           /* odd while being written; 0: nothing published yet */
	int64_t counters_ns;            /* CLOCK_MONOTONIC of the last write (counters refreshed) */
	int64_t stats_ns;               /* ... of the last write with stats.*, config and process.*
					 * (hugepolicy_stats or the report); 0: never */
	struct hp_report_snap snap;
};

/* Write snap (and the times) into l: the caller is its only writer. */
void hp_live_write(struct hp_live *l, const struct hp_report_snap *snap, int64_t counters_ns, int64_t stats_ns);

/* Read n bytes at addr of the other process into buf: 0, or an errno. */
typedef int (*hp_live_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);
/* A consistent copy of the block at addr, by a seqlock read (retried while
 * a write is under way, at most `tries` times).  0; EPROTO magic, version
 * or size differ (out->version, out->size say the writer's); EAGAIN every
 * try met a write; ENODATA nothing published yet; or the read's errno. */
int hp_live_read(hp_live_read_fn read, void *ctx, uint64_t addr, int tries, struct hp_live *out);

#endif
