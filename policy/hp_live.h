/*
 * hp_live.h - the report as data, and the block through which another
 * process reads it.
 *
 * struct hp_report_src is everything the report prints, gathered by the
 * library (integration/api.c, integration/live.c); hp_report_compose
 * (report_keys.c) is the one place that turns it into the report's keys,
 * for hugepolicy_report() in the process and for `hugepolicy inspect` in
 * another.  Plain data, no pointers, fixed sizes: it is copied whole into
 * the live block.
 *
 * struct hp_live is that block (live.c): the library exports one
 * (`hugepolicy_live`) and rewrites it where its numbers change; a reader
 * in another process finds it by the symbol and reads it with
 * process_vm_readv or /proc/PID/mem.  Seqlock: the one writer makes seq
 * odd, writes, makes it even again; a reader takes a copy only if seq was
 * even and the same before and after.  The layout is versioned: a reader
 * trusts nothing of a block whose magic, version or size differ from its
 * own.
 */
#ifndef HP_LIVE_H
#define HP_LIVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hugepolicy.h"
#include "hp_policy.h"

/* ---- the report as data ---- */
#define HP_REPORT_TLB 8
struct hp_report_tlb { uint64_t page_size, maps, bytes, refused, refused_bytes; };
struct hp_report_src {
	struct hugepolicy_stats st;     /* the numbers (hugepolicy_stats) */
	int32_t pid;
	int32_t started;                /* 1: start-up ran and a backend is in force */
	int32_t ntlb;                   /* tlb[]: hugetlb mappings per page size */
	int32_t fault;                  /* 1: the fault.* keys (auto weighs fault costs) */
	int32_t fault_pinned;           /* the costs were given (HUGEPOLICY_FAULT_COST), not measured */
	int32_t reserved;
	uint64_t fault_base_ns, fault_thp_ns;   /* 0: unknown */
	uint64_t fault_measurements, fault_blocks_thp, fault_blocks_base;
	struct hp_report_tlb tlb[HP_REPORT_TLB];
	char fault_why[160];
	char program[64];
	char reason[512];               /* the plan's pages_reason */
	char config[1024];              /* the backend's config, read back */
	char thp[480];                  /* the THP switch the plan enforced, "" none */
};

/* The report's keys for r, into b: text ("  key value" lines, under the
 * caller's "hugepolicy[NAME PID]: report" line) or the members of one
 * JSON object, without its braces (the caller opens and closes it). */
void hp_report_compose(const struct hp_report_src *r, int json, struct hp_buf *b);

/* ---- the live block ---- */
#define HP_LIVE_SYMBOL "hugepolicy_live"
#define HP_LIVE_MAGIC "hpLive\0\1"      /* 8 bytes */
#define HP_LIVE_VERSION 1u
struct hp_live {
	char magic[8];
	uint32_t version;               /* HP_LIVE_VERSION of the writer */
	uint32_t size;                  /* sizeof(struct hp_live) of the writer */
	_Atomic uint64_t seq;           /* odd while being written; 0: nothing published yet */
	int64_t counters_ns;            /* CLOCK_MONOTONIC of the last write (counters refreshed) */
	int64_t stats_ns;               /* ... of the last write with stats.*, config and process.*
					 * (hugepolicy_stats or the report); 0: never */
	struct hp_report_src src;
};

/* Write src (and the times) into l: the caller is its only writer. */
void hp_live_write(struct hp_live *l, const struct hp_report_src *src, int64_t counters_ns, int64_t stats_ns);

/* Read n bytes at addr of the other process into buf: 0, or an errno. */
typedef int (*hp_live_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);
/* A consistent copy of the block at addr, by a seqlock read (retried while
 * a write is under way, at most `tries` times).  0; EPROTO magic, version
 * or size differ (out->version, out->size say the writer's); EAGAIN every
 * try met a write; ENODATA nothing published yet; or the read's errno. */
int hp_live_read(hp_live_read_fn read, void *ctx, uint64_t addr, int tries, struct hp_live *out);

#endif
