/*
 * hp_report.h - the report's keys (report_keys.c): one snapshot of what the
 * library knows, and one table of keys over it that gives the text and the
 * JSON report alike.
 *
 * Invariants: every key the report prints is a row of that table, in the
 * table's order, in both forms; a value has one type (number, signed
 * number, string, boolean), and a number the library cannot know is null
 * (text: unknown), never 0; hugepolicy(7) documents every key.
 */
#ifndef HP_REPORT_H
#define HP_REPORT_H

#include "hp_init.h"

/* hugetlb page sizes the report lists (hugetlb.pool.<size>.*) */
#define HP_REPORT_POOLS 8

/* snapshot groups: a row with `need` bits is printed only where all of
 * them are set (HP_BS_* of the backend's settings, and these) */
enum { HP_SNAP_FAULT = 1u << 16, HP_SNAP_MTHP = 1u << 17 };

/* Plain data, no pointers (opt's and plan's are NULL in it): the live
 * block (hp_live.h) carries it whole to another process. */
struct hp_report_snap {
	unsigned have;                  /* HP_BS_* | HP_SNAP_* */
	int pid;
	char program[64];
	char version[80];               /* hugepolicy_version() */
	char backend[16];               /* in force: "system", ...; "none" before start-up */
	char backend_source[32];        /* "HUGEPOLICY_BACKEND", "default", "fallback", "" */
	char log[HP_LOG_PATH_MAX];      /* opt.log */
	struct hp_options opt;          /* as they took effect */
	struct hp_plan plan;
	struct hugepolicy_stats st;
	struct hp_backend_settings bs;
	int npools;
	struct hp_tlb_size pools[HP_REPORT_POOLS];
	struct hp_promote_report promote;
	struct hp_fork_report fork;
	struct hp_fault_cost_report fault;
	struct hp_mthp_report mthp;     /* HP_SNAP_MTHP: sizes below the PMD size reported */
};

/* What this process knows now (api.c; the caller's st: hugepolicy_stats'). */
void hp_report_snap_self(struct hp_report_snap *s);
/* ... only what its counters say (the page layer's, the regions', the
 * promotion's, fork's, the fault costs'): atomics and the page layer's
 * own lock, no allocation, no mincore(2), no file read */
void hp_report_snap_counters(struct hp_report_snap *s);
/* hugepolicy_report in two steps (api.c): the figures - the backend's
 * walk, smaps_rollup, the counters; published to the live block - then
 * the text, written whole to fd (0, or an errno) */
void hp_report_gather(struct hp_report_snap *s);
int hp_report_emit(int fd, unsigned flags, const struct hp_report_snap *s);
/* Every key of s, in the table's order: "  name value\n" lines (values
 * escaped: one line each), or JSON members "\"name\":value" joined by
 * commas, without braces.  report_keys.c: linked by the library and the
 * CLI (`hugepolicy inspect`), which composes another process's. */
void hp_report_keys(const struct hp_report_snap *s, int json, struct hp_buf *b);

#endif
