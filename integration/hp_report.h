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
enum { HP_SNAP_FAULT = 1u << 16 };

struct hp_report_snap {
	unsigned have;                  /* HP_BS_* | HP_SNAP_* */
	int pid;
	const char *program;
	const char *backend;            /* in force: "system", ...; "none" before start-up */
	const char *backend_source;     /* "HUGEPOLICY_BACKEND", "default", "fallback", "" */
	struct hp_options opt;          /* as they took effect (opt.log points into the runtime) */
	struct hp_plan plan;
	struct hugepolicy_stats st;
	struct hp_backend_settings bs;
	int npools;
	struct hp_tlb_size pools[HP_REPORT_POOLS];
	struct hp_promote_report promote;
	struct hp_fork_report fork;
	struct hp_fault_cost_report fault;
};

/* What this process knows now (the caller's st: hugepolicy_stats'). */
void hp_report_snap_self(struct hp_report_snap *s);
/* Every key of s, in the table's order: "  name value\n" lines (values
 * escaped: one line each), or JSON members "\"name\":value" joined by
 * commas, without braces. */
void hp_report_keys(const struct hp_report_snap *s, int json, struct hp_buf *b);

#endif
