/*
 * hp_inspect.h - `hugepolicy inspect`'s view of another process's memory
 * (inspect_smaps.c): /proc/PID/smaps read one line at a time into kinds of
 * mapping, totals, the largest mappings and, for anonymous memory not on
 * huge pages, the first reason that explains it.  Pure: lines and the
 * machine's THP state in, numbers out; fixed arrays, no I/O.
 */
#ifndef HP_INSPECT_H
#define HP_INSPECT_H

#include <stddef.h>
#include <stdint.h>

enum hp_kind {
	HP_KIND_HEAP,           /* [heap]: the brk heap */
	HP_KIND_STACK,          /* [stack], and thread stacks: read-write anonymous memory
				 * just above a PROT_NONE guard of at most 64 KiB */
	HP_KIND_ANON_BIG,       /* other private anonymous memory, mappings >= the PMD size */
	HP_KIND_ANON_SMALL,     /* ... smaller ones */
	HP_KIND_RESERVED,       /* PROT_NONE: address space only (guards, arena reserves) */
	HP_KIND_FILE,           /* file mappings (libraries, data files) */
	HP_KIND_HUGETLB,        /* hugetlb memory (VmFlags ht) */
	HP_KIND_SHMEM,          /* shared anonymous, /dev/shm, SysV, memfd */
	HP_KIND_OTHER,          /* [vdso], [vvar], [vsyscall] ... */
	HP_KIND_COUNT
};

/* why anonymous memory is on base pages: the first that applies, in this order */
enum hp_why {
	HP_WHY_PROCESS_OFF,     /* THP_enabled 0: PR_SET_THP_DISABLE */
	HP_WHY_THP_NEVER,       /* THP enabled never (or no THP in the kernel) */
	HP_WHY_NOHUGEPAGE,      /* VmFlags nh: MADV_NOHUGEPAGE */
	HP_WHY_TOO_SMALL,       /* the mapping is smaller than the PMD size */
	HP_WHY_UNALIGNED,       /* no PMD-aligned range of PMD size in it, or the not-huge
				 * part is its unaligned head and tail */
	HP_WHY_NOT_ADVISED,     /* THP madvise (or except-advised) and no VmFlags hg */
	HP_WHY_NOT_ELIGIBLE,    /* THPeligible 0 for another reason the kernel knows */
	HP_WHY_SPARSE,          /* Rss under a quarter of the size */
	HP_WHY_BASE_FAULTED,    /* eligible, advised, dense: faulted before the advice or
				 * when no huge page was free; khugepaged may collapse it */
	HP_WHY_COUNT
};

const char *hp_kind_name(int kind);     /* "heap", "anon_big", ... */
const char *hp_why_name(int why);       /* "thp_disabled_process", "nohugepage", ... */

struct hp_vma {
	uint64_t start, end;
	char perms[5];          /* "rw-p" */
	char name[160];         /* the pathname column, cut; "" anonymous */
	uint64_t rss, anon_huge, pmd_mapped, hugetlb, swap;     /* bytes */
	int thp_eligible;       /* THPeligible: 0, 1; -1 no such line */
	int hg, nh, ht, sh;     /* VmFlags */
	int kind;               /* enum hp_kind */
	int why;                /* enum hp_why for its not-huge bytes, -1 none */
	uint64_t not_huge;      /* anonymous kinds: rss - anon_huge */
};

struct hp_kind_sum {
	uint64_t mappings, size, rss, anon_huge, pmd_mapped, hugetlb, swap;
	uint64_t thp_eligible;  /* bytes of mappings with THPeligible 1 */
	uint64_t hg, nh;        /* bytes of mappings with that VmFlag */
};

#define HP_INSPECT_TOP 12
struct hp_smaps {
	/* in: the machine and the process, as the kernel rules THP for it */
	int thp_enabled;        /* enum hp_thp_mode of THP `enabled` */
	int thp_off;            /* enum hp_thp_off of the process (THP_enabled, prctl) */
	uint64_t pmd_size;      /* the THP size; 0 = 2 MiB */
	/* out */
	struct hp_kind_sum kinds[HP_KIND_COUNT], total;
	uint64_t why_bytes[HP_WHY_COUNT], why_mappings[HP_WHY_COUNT];
	int ntop;
	struct hp_vma top[HP_INSPECT_TOP];      /* the largest by rss + hugetlb, largest first */
	char hugepolicy[160];   /* the libhugepolicy mapped in, "" none */
	char allocators[160];   /* other allocator libraries mapped in: "libjemalloc.so.2 ..." */
	int bad_lines;          /* lines that are not smaps lines */
	/* parser state */
	int have;               /* cur holds a mapping */
	struct hp_vma cur, prev;
};

/* Start with the machine's THP state; everything else zero. */
void hp_smaps_init(struct hp_smaps *s, int thp_enabled, int thp_off, uint64_t pmd_size);
/* One line of smaps, without its newline (whole = 0: the first part of a
 * longer line; only a header line can be that long, its name is cut). */
void hp_smaps_line(struct hp_smaps *s, const char *line, int whole);
/* After the last line: the last mapping counted. */
void hp_smaps_end(struct hp_smaps *s);

/* ---- one inspection of a process (cli_inspect.c reads it, inspect_format.c prints it) ---- */
#include "hp_live.h"

enum hp_live_state {
	HP_LIVE_NONE,           /* no libhugepolicy mapped in */
	HP_LIVE_UNREAD,         /* mapped, its live report not read: live_why says why */
	HP_LIVE_READ,           /* read: live */
};

#define HP_INSPECT_ENV 24
struct hp_inspection {
	int pid;
	char name[64];                  /* /proc/PID/comm */
	struct hp_probe probe;          /* the machine, with the process's THP switch (status
					 * THP_enabled) and its cgroup's hugetlb limits */
	int thp_status;                 /* THP_enabled: 1, 0; -1 no such line */
	struct hp_smaps smaps;
	int env_words;                  /* non-empty words in /proc/PID/environ: 0 when the
					 * program wrote over that area (redis's process title) */
	int nenv;                       /* the variables of its start-up environment that steer */
	const char *env[HP_INSPECT_ENV];        /* huge pages: "NAME=value", into envbuf */
	char envbuf[4096];
	int have_plan;                  /* hugepolicy is loaded, its live report unread and its */
	struct hp_plan plan;            /* environment readable: the plan that gives here now */
	int live_state;                 /* enum hp_live_state (inspect_live.c) */
	const char *live_how;           /* read by "process_vm_readv" or "/proc/PID/mem" */
	uint64_t live_addr;             /* where the block is in the process */
	int64_t live_now_ns;            /* CLOCK_MONOTONIC when it was read */
	char live_why[512];             /* HP_LIVE_UNREAD: why, one line */
	struct hp_live live;            /* HP_LIVE_READ: the block, process.* then replaced by the
					 * kernel's numbers now (smaps, stat, status) */
};

/* Find and read the live report of libhugepolicy in in->pid, whose maps
 * name it: in->live_* filled. */
void hp_inspect_live(struct hp_inspection *in);
/* The line that says both reads were refused (errnos; yama: ptrace_scope,
 * NULL without Yama), into buf. */
void hp_inspect_live_refused(char *buf, size_t cap, int pid, int vm_err, int mem_err, const char *yama);

/* The inspection as text or one JSON object (a line), advice included. */
void hp_inspect_format(const struct hp_inspection *in, int json, struct hp_buf *b);

#endif
