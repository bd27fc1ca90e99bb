/*
 * hp_policy.h - internal interface of policy/: options, probe, plan, report.
 * Internal names carry the hp_ prefix; nothing here is exported from the
 * shared library.  Nothing in policy/ allocates through malloc: it may run
 * inside the first malloc call of the process.
 */
#ifndef HP_POLICY_H
#define HP_POLICY_H

#include <stddef.h>
#include <stdint.h>

#define HP_MIB (1024u * 1024u)
#define HP_HUGE_2M (2u * HP_MIB)

enum hp_backend_id { HP_BACKEND_SYSTEM, HP_BACKEND_JEMALLOC, HP_BACKEND_MIMALLOC, HP_BACKEND_COUNT };
enum hp_pages { HP_PAGES_OFF, HP_PAGES_THP, HP_PAGES_HUGETLB, HP_PAGES_AUTO, HP_PAGES_COUNT };
enum hp_stats_mode { HP_STATS_NONE, HP_STATS_TEXT, HP_STATS_JSON };

const char *hp_backend_name(int id);
const char *hp_pages_name(int pages);

/* ---- options (options.c): one table, like mimalloc's options.c ---- */
enum hp_option_id {
	HP_OPT_BACKEND, HP_OPT_PAGES, HP_OPT_THRESHOLD, HP_OPT_RESERVE,
	HP_OPT_VERBOSE, HP_OPT_STATS, HP_OPT_LOG, HP_OPT_FORK, HP_OPT_REPORT_PID, HP_OPT_HUGETLB_SIZE,
	HP_OPT_PROMOTE, HP_OPT_FAULT_COST, HP_OPT_REPORT_STDERR, HP_OPT_COUNT
};

/* HUGEPOLICY_REPORT_STDERR: the stderr of the process tree (log.c) */
enum hp_stderr_tree { HP_STDERR_UNSET, HP_STDERR_NONE, HP_STDERR_FILE };

/* HUGEPOLICY_LOG: longest path template taken, with its NUL */
#define HP_LOG_PATH_MAX 512

struct hp_options {
	int backend;            /* enum hp_backend_id */
	int pages;              /* enum hp_pages */
	uint64_t threshold;     /* bytes: blocks at least this big get huge pages (system backend) */
	uint64_t reserve;       /* bytes to reserve from the hugetlb pool up front (mimalloc) */
	int verbose;            /* 0/1 */
	int stats;              /* enum hp_stats_mode */
	const char *log;        /* HUGEPOLICY_LOG path template ("" = stderr), %p = pid */
	int fork_copy;          /* HUGEPOLICY_FORK: 1 copy (default), 0 inherit */
	int report_pid;         /* HUGEPOLICY_REPORT_PID: only this process prints the verbose
				 * lines and the exit report (`hugepolicy run` sets the
				 * command's pid); 0 = every process */
	uint64_t hugetlb_size;  /* HUGEPOLICY_HUGETLB_SIZE: the only hugetlb page size to use
				 * (bytes, a power of two); 0 = auto (plan_pagesize.c) */
	uint64_t promote;       /* HUGEPOLICY_PROMOTE: auto's whole-heap THP from this heap
				 * resident size on (bytes, promote.c); 0 = off */
	int fault_cost;         /* HUGEPOLICY_FAULT_COST: enum hp_adapt */
	uint64_t fault_base_ns, fault_thp_ns;   /* HP_ADAPT_PINNED: the costs given */
	int report_stderr;      /* HUGEPOLICY_REPORT_STDERR: enum hp_stderr_tree */
	unsigned long long report_stderr_dev, report_stderr_ino;  /* its file, for HP_STDERR_FILE */
	unsigned set_mask;      /* bit i: option i was given (and valid) */
	unsigned bad_mask;      /* bit i: option i was given and invalid */
	/* the backends' own variables, which win over hugepolicy's settings */
	const char *user_malloc_conf;   /* MALLOC_CONF (jemalloc), NULL if unset */
	const char *user_mi_large;      /* MIMALLOC_LARGE_OS_PAGES, NULL if unset */
	const char *user_mi_reserve;    /* MIMALLOC_RESERVE_HUGE_OS_PAGES, NULL if unset */
};

struct hp_option_row {
	const char *name;       /* "backend" */
	const char *env;        /* "HUGEPOLICY_BACKEND" */
	const char *def;        /* default, as text */
	const char *accepted;   /* what the parser accepts, for messages */
	int (*parse)(const char *text, struct hp_options *o); /* 0 ok, -1 bad */
	const char *doc;        /* one line */
};

extern const struct hp_option_row hp_option_table[HP_OPT_COUNT];

/* Fill *o with defaults, then apply getter(env name) for every row (getter is
 * getenv in the library; tests pass their own).  It first records fd 2
 * (hp_log_start) and, once every row is read, points the log at o->log
 * (hp_log_set), so that its own warnings already go there.  An invalid value
 * prints one line naming variable, value (escaped, at most 64 bytes) and the
 * fallback, keeps the default, and sets the bit in bad_mask.  Returns the
 * number of invalid values. */
int hp_options_read(struct hp_options *o, const char *(*getter)(const char *name));
void hp_options_defaults(struct hp_options *o);

/* Parsers, exposed for tests: 0 ok, -1 invalid. */
int hp_parse_size(const char *s, uint64_t *out);   /* "4M", "4MiB", "4194304", "1G" */
int hp_parse_bool(const char *s, int *out);        /* 1/true/yes/on, 0/false/no/off */

/* ---- probe (probe*.c): what the machine offers, read from /sys and /proc ---- */
/* Every file is read under a root directory: "" is this machine; a test or
 * `hugepolicy probe --root DIR` points it at a fixture tree (tests/fixtures/,
 * whose README gives the conventions).  A file that is there but malformed is
 * refused - its value taken as missing - and the reason kept in problems[]. */
enum hp_thp_mode { HP_THP_ALWAYS, HP_THP_MADVISE, HP_THP_NEVER, HP_THP_MISSING,
		   HP_THP_INHERIT /* per-size files only: follow the top-level `enabled` */ };
/* The per-process switch, prctl(PR_GET_THP_DISABLE) (inherited by children
 * across fork and execve): kernels >= 6.18 return 1 | PR_THP_DISABLE_EXCEPT_ADVISED
 * (= 3) for the except-advised form, 1 for the complete one. */
enum hp_thp_off { HP_THP_OFF_NONE, HP_THP_OFF_ALL, HP_THP_OFF_EXCEPT_ADVISED };

struct hp_pool {
	uint64_t page_size;     /* bytes */
	uint64_t total, free, resv, surp;   /* pages: nr_hugepages, free_, resv_, surplus_ */
	uint64_t overcommit;    /* pages: nr_overcommit_hugepages, the most surplus pages allowed */
	int64_t cg_max;         /* bytes: the tightest cgroup hugetlb limit on the way to the root
				 * (v2 hugetlb.<size>.max or .rsvd.max, v1 .limit_in_bytes); -1 = none */
	int64_t cg_current;     /* bytes: the usage at that limit; -1 unknown */
	int cg_error;           /* 0, or an errno: the limit could not be read (no pages available) */
	char cg_where[128];     /* "cgroup /a hugetlb.2MB.max", or why there is no limit or none known */
};

struct hp_thp_size {            /* transparent_hugepage/hugepages-<size>kB (kernel >= 6.8) */
	uint64_t size;          /* bytes */
	int enabled;            /* enum hp_thp_mode, HP_THP_INHERIT included */
};

#define HP_MAX_POOLS 4
#define HP_MAX_THP_SIZES 16
#define HP_PROBE_PROBLEMS 10
struct hp_probe {
	int thp_enabled;        /* enum hp_thp_mode */
	char thp_defrag[24];    /* the bracketed word of .../defrag, "" if missing */
	char thp_shmem[24];     /* the bracketed word of .../shmem_enabled, "" if missing */
	int max_ptes_none;      /* khugepaged/max_ptes_none, -1 if missing */
	int khugepaged_defrag;  /* khugepaged/defrag (0/1), -1 if missing */
	int64_t pages_to_scan;  /* khugepaged/pages_to_scan, -1 if missing */
	int64_t scan_sleep_ms;  /* khugepaged/scan_sleep_millisecs, -1 if missing */
	int thp_process_off;    /* enum hp_thp_off: this process's inherited switch; NONE:
				 * `enabled` rules, ALL: no THP at all, EXCEPT_ADVISED: THP
				 * only where madvise(MADV_HUGEPAGE) asked (madvise semantics) */
	int nthp_sizes;
	struct hp_thp_size thp_sizes[HP_MAX_THP_SIZES];    /* smallest first */
	uint64_t pmd_size;      /* transparent_hugepage/hpage_pmd_size: the THP size; 0 unknown */
	uint64_t base_page_size;/* bytes: sysconf(_SC_PAGESIZE) live, a fixture file; 0 unknown */
	uint64_t default_huge;  /* /proc/meminfo Hugepagesize: the default pool's page size; 0 unknown */
	int npools;
	struct hp_pool pools[HP_MAX_POOLS];
	int numa_nodes;         /* from /sys/devices/system/node/online, >= 1 */
	char kernel[64];        /* uname release (a root: proc/sys/kernel/osrelease) */
	int kernel_major, kernel_minor;
	/* from the kernel version (0 when it is unknown) */
	int populate_write_ok;  /* MADV_POPULATE_WRITE, >= 5.14 */
	int collapse_ok;        /* MADV_COLLAPSE, >= 6.1 */
	int thp_except_advised_ok; /* PR_SET_THP_DISABLE's PR_THP_DISABLE_EXCEPT_ADVISED, >= 6.18 */
	char cgroup[128];       /* hp_probe_read: the process's cgroup in the v1 hierarchy with
				 * hugetlb, else in v2; "" if unknown (the limits: cg_where) */
	int nproblems;          /* files refused as malformed (the first HP_PROBE_PROBLEMS kept) */
	char problems[HP_PROBE_PROBLEMS][160];     /* "sys/.../enabled: no [selected] word" */
};

/* Everything (the CLI's probe), of this machine. */
void hp_probe_read(struct hp_probe *p);
/* The same under root ("" or "/" = this machine: prctl and uname then; else
 * the process switch and base page size from the tree, tests/fixtures/README). */
void hp_probe_read_root(struct hp_probe *p, const char *root);
/* Only what hp_plan_make needs for a request of `pages` (enum hp_pages) to
 * `backend`: nothing for off, THP enabled for thp, plus the 2 MiB pool and
 * its cgroup limit for hugetlb, auto, and mimalloc's thp.  Each file costs
 * tens of us of start-up here.  Off still reads the THP `enabled` word and
 * the process switch (one file, one prctl): an `always` host's off needs them.
 * auto also reads hpage_pmd_size and the per-size words (plan_mthp.c). */
void hp_probe_for_plan(struct hp_probe *p, int pages, int backend);
/* The pool of that page size, or NULL. */
const struct hp_pool *hp_probe_pool(const struct hp_probe *p, uint64_t page_size);
/* Pages of that pool a new mapping may take now: Free - Rsvd plus surplus
 * headroom (nr_overcommit - surplus), bounded by the cgroup limit. */
uint64_t hp_pool_headroom(const struct hp_pool *pool);      /* without the cgroup */
uint64_t hp_pool_surplus_room(const struct hp_pool *pool);  /* the surplus part */
uint64_t hp_pool_available(const struct hp_pool *pool);
/* 1: the cgroup limit, not the pool, is what bounds hp_pool_available */
int hp_pool_cgroup_bound(const struct hp_pool *pool);
const char *hp_thp_name(int thp);
const char *hp_thp_off_name(int off);      /* "none", "all", "except-advised" */
/* probe_*.c internals: path = root + rel ("sys/kernel/..."), 0 or ENAMETOOLONG;
 * a refused file's reason into p->problems. */
int hp_probe_path(char *buf, size_t cap, const char *root, const char *rel);
void hp_probe_problem(struct hp_probe *p, const char *rel, const char *why);
/* A sysfs counter "123\n" under root: 0 and *out, ENOENT, or EINVAL (refused,
 * p->problems says why). */
/* One line of root/rel into buf (no newline): 0, ENOENT, or EINVAL with the
 * reason in p's refused list. */
int hp_probe_line(struct hp_probe *p, const char *root, const char *rel, char *buf, size_t cap);
int hp_probe_u64(struct hp_probe *p, const char *root, const char *rel, uint64_t *out);
void hp_probe_thp(struct hp_probe *p, const char *root, int full);     /* probe_thp.c */
/* hpage_pmd_size and the per-size enabled words (full includes them) */
void hp_probe_thp_sizes(struct hp_probe *p, const char *root);
void hp_probe_process(struct hp_probe *p, const char *root);           /* probe_thp.c */
/* probe_thp.c: the "THP_enabled:" line of a /proc/PID/status file: 0 and
 * *enabled 1 or 0 (PR_SET_THP_DISABLE's complete form), -1 no such line
 * (kernel < 5.0), -2 neither; else an errno (EINVAL truncated, ESPIPE not
 * a regular file, open/read's). */
int hp_status_thp_enabled(const char *path, int *enabled);
void hp_probe_pools(struct hp_probe *p, const char *root, int only_2m);  /* probe_pools.c */
/* "hugepages-2048kB" -> 2097152; 0 for anything else ("hugepages-2048kBx",
 * "hugepages-kB", "hugepages-02048kB", overflow, not a power of two). */
uint64_t hp_pool_dirname_size(const char *name);
/* probe_advice.c: one line of advice per problem found, like hugeadm
 * --explain, into lines[max]; the number of lines. */
#define HP_ADVICE_MAX 12
#define HP_ADVICE_LEN 256
int hp_probe_advice(const struct hp_probe *p, char lines[][HP_ADVICE_LEN], int max);
/* "2 MiB", "64 KiB", "1 GiB", else "N B" */
void hp_size_name(uint64_t bytes, char *buf, size_t cap);
/* cgroup.c: the hugetlb room the cgroups of this process leave for pages of
 * page_size, read under root ("" = this machine) from proc/self/cgroup,
 * proc/self/mountinfo and cgroupfs (v2 or v1): the smallest limit - usage from
 * the process's cgroup up to its mount's root.  0: *limit (-1 = no limit) and
 * *usage of that level, where = "cgroup /a hugetlb.2MB.max" or why none.  Else
 * an errno (EINVAL malformed, E2BIG overlong line, ENOENT hierarchy not
 * visible, ENAMETOOLONG, open/read's): the limit is unknown, where says why. */
int hp_cgroup_hugetlb_room(const char *root, uint64_t page_size, int64_t *limit, int64_t *usage,
			   char *where, size_t where_cap);
/* The same for another process of this machine: /proc/PID/cgroup and
 * /proc/PID/mountinfo, its cgroupfs seen through /proc/PID/root when its
 * mount namespace is not this process's. */
int hp_cgroup_hugetlb_room_pid(int pid, uint64_t page_size, int64_t *limit, int64_t *usage,
			       char *where, size_t where_cap);
/* readfile.c: a small file into buf (NUL-terminated): its length, or -errno. */
int hp_read_small(const char *path, char *buf, size_t cap);
/* A file of one line into buf without its newline: the length, or -errno
 * (-EINVAL: empty, no newline at the end, or too long); *why says which. */
int hp_read_line(const char *path, char *buf, size_t cap, const char **why);
/* fn(ctx, line, len, whole) per line (NUL-terminated, no newline), through buf;
 * whole = 0: the first cap-1 bytes of a longer line.  0, fn's nonzero return,
 * EINVAL if the last line has no newline, or open/read's errno. */
int hp_read_lines(const char *path, char *buf, size_t cap,
		  int (*fn)(void *ctx, char *line, size_t len, int whole), void *ctx);
/* fn(ctx, name) for every entry of directory path but . and ..: 0 or open's errno. */
int hp_read_dir(const char *path, void (*fn)(void *ctx, const char *name), void *ctx);
/* "123" (digits only, at most 19): 0 and *out, else EINVAL. */
int hp_parse_u64_strict(const char *s, uint64_t *out);

/* ---- does a THP fault pay here now (thp_pays.c); pure ---- */
/* auto's huge pages save faults: one 2 MiB THP fault against the base-page
 * faults it replaces.  The costs are measured at run time
 * (pages/fault_cost.c) or pinned by HUGEPOLICY_FAULT_COST. */
#define HP_FAULT_COST_STALE_MS 1000     /* measured costs are measured again after this */
#define HP_FAULT_PROBE_MS 1             /* a big block's own THP fault is timed at most this often */
#define HP_FAULT_RETRY_MS 100           /* ... and where base faults are cheaper, tried again this often */
enum hp_adapt {
	HP_ADAPT_OFF,           /* fixed rules: every block >= threshold advised, promotion by size */
	HP_ADAPT_MEASURE,       /* the costs measured in the process, again once stale */
	HP_ADAPT_PINNED,        /* the costs HUGEPOLICY_FAULT_COST gives */
};
struct hp_fault_costs {
	uint64_t base_ns;       /* one base-page fault (first touch), ns; 0: unknown */
	uint64_t thp_ns;        /* one THP fault on memory the kernel hands out now, ns */
	uint64_t thp_warm_ns;   /* one THP fault on a huge page just freed, ns; 0: not measured */
	unsigned per_huge;      /* base pages per THP (512 with 4 KiB pages and 2 MiB THP) */
	int got_thp;            /* 1: the THP fault got a huge page (0: the kernel gave base pages) */
};
enum hp_pays_verdict {
	HP_PAYS_FIXED,          /* adapt off: the fixed rules decide */
	HP_PAYS_UNKNOWN,        /* not measured (the measurement failed): the fixed rules decide */
	HP_PAYS_NO_THP,         /* the kernel gave no huge page to the measured fault */
	HP_PAYS_YES,            /* thp_ns < per_huge x density x base_ns */
	HP_PAYS_NO,             /* the base faults are cheaper */
};
/* The verdict for memory that will be density_pct % touched (a block the
 * caller fills: 100), and in why the costs it was taken on. */
int hp_thp_pays(int adapt, const struct hp_fault_costs *c, unsigned density_pct, char *why, size_t cap);
/* 1: the verdict lets THP go ahead (FIXED, UNKNOWN, YES) */
int hp_thp_pays_go(int verdict);

/* ---- plan (plan.c, plan_facts.c): options + probe + facts -> decisions with
 * reasons; pure, and the only place that decides ---- */
/* Which memory THP covers.  LARGE: blocks >= threshold, advised by
 * hugepolicy's dispatch (numpy's 4 MiB rule; RSS grows by at most one
 * partial huge page per such block).  ALL: the backend's own whole-heap
 * switch, jemalloc opt.thp=always or mimalloc large_os_pages (faster where
 * many mid-size blocks fault, but small and sparse heaps get 2 MiB pages:
 * the RSS bloat of jemalloc's THP bug reports). */
enum hp_thp_scope { HP_THP_LARGE, HP_THP_ALL };

struct hp_plan {
	int backend;            /* enum hp_backend_id */
	int pages_requested;    /* enum hp_pages, may be AUTO */
	int pages;              /* effective: OFF, THP or HUGETLB */
	int thp_scope;          /* with pages THP: enum hp_thp_scope */
	uint64_t threshold;     /* bytes */
	uint64_t hugetlb_min;   /* bytes: blocks from the hugetlb pool from this size on
				 * (the threshold, but at least one 2 MiB page) */
	uint64_t reserve;       /* bytes */
	int verbose;
	int stats;
	int fork_copy;          /* children copy inherited hugetlb memory at fork */
	int thp_available;      /* THP can back memory hugepolicy advises: kernel THP enabled is
				 * always or madvise and the process switch, as thp_process leaves
				 * it, is not PR_SET_THP_DISABLE's complete form (off's own
				 * DISABLE is not counted: nothing is advised under off) */
	uint64_t pool_available;/* pages a mapping may take (Free-Rsvd, cgroup) from the pool of
				 * hugetlb_page, or where that has none, of hugetlb_big_page */
	/* which pool serves which blocks (plan_pagesize.c), with pages HUGETLB:
	 * blocks >= hugetlb_big_min (0: none) from the hugetlb_big_page pool,
	 * other blocks >= hugetlb_min from the hugetlb_page pool (0: none -
	 * they take the pool's fallback, THP or base pages); a refused big
	 * block tries the hugetlb_page pool, then the fallback */
	uint64_t hugetlb_page;       /* bytes: 2 MiB, or the kernel's default size without a 2 MiB pool */
	uint64_t hugetlb_big_page;   /* bytes: a larger pool (1 GiB), 0 none */
	uint64_t hugetlb_big_min;    /* bytes: max(hugetlb_big_page, hugetlb_min) */
	uint64_t hugetlb_size_asked; /* HUGEPOLICY_HUGETLB_SIZE, 0 = auto */
	char hugetlb_size_reason[256];  /* which pool serves which blocks, and why */
	const char *user_malloc_conf, *user_mi_large, *user_mi_reserve;  /* from hp_options */
	char pages_reason[512]; /* why `pages` was chosen (with hugetlb: which pools, and why) */
	/* the per-process THP switch and the backend's small blocks (plan_thp.c,
	 * plan_facts.c); pages/ and backends/ carry them out, the reasons say why */
	int thp_process;        /* enum hp_thp_process */
	int thp_small_nohuge;   /* 1: MADV_NOHUGEPAGE on the backend's own small-block memory
				 * where hugepolicy reaches it (jemalloc opt.thp=never, mimalloc's
				 * segments through the mmap hook; glibc's heap cannot be reached) */
	char thp_process_reason[224];
	char thp_small_reason[224];
	/* pages=auto with THP on blocks >= threshold, jemalloc and mimalloc:
	 * the allocator's new heap memory gets MADV_HUGEPAGE once its heap is
	 * large and dense (promote.c decides at run time); 0 = never */
	uint64_t promote_min;   /* bytes resident */
	char promote_reason[224];
	/* pages=auto on THP: blocks >= threshold and the heap's promotion get
	 * THP only where a THP fault costs less than the base faults it
	 * replaces (thp_pays.c); HP_ADAPT_OFF: the fixed rules */
	int adapt;              /* enum hp_adapt */
	struct hp_fault_costs adapt_pinned;     /* HP_ADAPT_PINNED's costs */
	char adapt_reason[160];
	/* THP sizes below the PMD size (mTHP, kernel >= 6.8; plan_mthp.c):
	 * masks of sizes, bit k = 2^k bytes */
	int mthp;               /* enum hp_mthp */
	uint32_t mthp_advised;  /* sizes MADV_HUGEPAGE brings (madvise, or always under the
				 * except-advised switch): the ones auto's advice uses */
	uint32_t mthp_kernel;   /* sizes the kernel gives every anonymous fault (always) */
	uint64_t mthp_min;      /* HP_MTHP_ADVISE: memory fresh from the kernel in pieces of this
				 * size on gets MADV_HUGEPAGE once (twice the smallest advised
				 * size; pages/thp_mid.c) */
	int mthp_guard;         /* HP_MTHP_ADVISE: the PMD size comes with the advice too, so the
				 * advice leaves out the first base page of every PMD-aligned
				 * window: no whole window is advised, no PMD THP comes of it */
	uint64_t mthp_pmd;      /* the PMD size those windows have (bytes) */
	char mthp_reason[384];
};

/* ---- mTHP (plan_mthp.c): which sub-PMD THP sizes auto uses; pure ---- */
enum hp_mthp {
	HP_MTHP_NONE,           /* no sub-PMD size can back this process's memory */
	HP_MTHP_KERNEL,         /* only sizes in `always`: the kernel uses them, nothing to advise */
	HP_MTHP_ADVISE,         /* fresh mappings from mthp_min on get MADV_HUGEPAGE */
	HP_MTHP_UNUSED,         /* sizes in madvise, but this plan advises no mid-size blocks */
};
const char *hp_mthp_name(int mthp);    /* "none", "kernel", "advise", "unused" */
/* A THP size's mode as the kernel applies it to this process once the
 * plan's switch (thp_off: enum hp_thp_off) is in force: its per-size word,
 * `inherit` resolved to the top-level `enabled`, the PMD size's without a
 * per-size file read from the top level; HP_THP_NEVER under the complete
 * switch, `always` as madvise under the except-advised one.  0-sized
 * per-size table: the top level for the PMD size, never for the others. */
int hp_thp_size_mode(const struct hp_probe *p, uint64_t size, int thp_off);
void hp_plan_mthp(const struct hp_probe *p, struct hp_plan *pl);
/* The advice of a mid-size block [first, last) (page-aligned) when guard
 * is set: the block less the first page of each pmd-aligned window; the
 * ranges into seg[max][2] (start, end), their number. */
int hp_mthp_segments(uint64_t first, uint64_t last, uint64_t page, uint64_t pmd, int guard,
		     uint64_t seg[][2], int max);

/* ---- heap promotion (promote.c): one heap sample -> a verdict; pure ---- */
enum hp_promote_verdict {
	HP_PROMOTE_NEVER,       /* not for this plan (promote_min 0) */
	HP_PROMOTE_SMALL,       /* wait: resident outside big blocks below promote_min */
	HP_PROMOTE_SPARSE,      /* wait: resident below half of what the allocator mapped */
	HP_PROMOTE_NOW          /* advise the allocator's new memory MADV_HUGEPAGE from now on */
};
#define HP_PROMOTE_DENSE_PCT 50
/* One sample of the heap (pages/heap_promote.c): resident, the resident
 * bytes of the allocator's own mappings (mincore); mapped, the bytes the
 * allocator has mapped and not unmapped; big, the resident bytes of the
 * live blocks of at least the threshold among them. */
struct hp_heap_sample { uint64_t resident, mapped, big; };
/* The verdict, and in why (cap bytes) the numbers it was taken on. */
int hp_promote_decide(uint64_t promote_min, const struct hp_heap_sample *h, char *why, size_t cap);
/* What the promotion did so far (pages/heap_promote.c, the promote.* keys). */
enum hp_promote_state {
	HP_PROMOTE_STATE_OFF,           /* not for this plan: reason = the plan's */
	HP_PROMOTE_STATE_UNSAMPLED,     /* the allocator mapped nothing yet */
	HP_PROMOTE_STATE_WAITING,       /* the last sample found the heap small or sparse */
	HP_PROMOTE_STATE_HELD,          /* large and dense, but THP faults cost more here */
	HP_PROMOTE_STATE_PROMOTED,      /* new memory advised MADV_HUGEPAGE */
	HP_PROMOTE_STATE_PAUSED,        /* promoted, advice paused while THP faults cost more */
};
const char *hp_promote_state_name(int state);  /* "off", "unsampled", "waiting", ... */
void hp_plan_promote(const struct hp_options *o, struct hp_plan *pl);
/* plan time: adapt and its reason (auto on THP only; thp_pays.c) */
void hp_plan_adapt(const struct hp_options *o, struct hp_plan *pl);

enum hp_thp_process {
	HP_THP_PROC_KEEP,       /* no prctl: the switch stays as inherited */
	HP_THP_PROC_DISABLE,    /* prctl(PR_SET_THP_DISABLE, 1, 0): no THP in the process */
	HP_THP_PROC_EXCEPT_ADVISED, /* prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED):
				 * the process behaves as THP madvise (kernel >= 6.18) */
	HP_THP_PROC_CLEAR,      /* prctl(PR_SET_THP_DISABLE, 0): undo an inherited switch */
};

/* What start-up learns after a plan, given to the next plan call
 * (plan_facts.c): the plan stays the only place that decides, and every
 * fact changes the decisions it touches and their reasons there.
 * Zeroed: nothing learned yet. */
enum hp_heap_fact {
	HP_HEAP_AS_ASKED,       /* the backend took hugepolicy's settings */
	HP_HEAP_USER_THP_ALL,   /* a user's setting turns the backend's whole-heap THP on
				 * (jemalloc: MALLOC_CONF opt.thp=always) */
	HP_HEAP_NO_THP,         /* the backend's THP setting in force is not the one the plan's
				 * THP needs (jemalloc: opt.thp read back; MALLOC_CONF, or no THP) */
	HP_HEAP_USER_POOL,      /* a user's setting maps the whole heap on the pool, else THP
				 * (mimalloc: MIMALLOC_LARGE_OS_PAGES on) */
	HP_HEAP_USER_OFF,       /* a user's setting keeps the whole heap off huge pages
				 * (mimalloc: MIMALLOC_LARGE_OS_PAGES off) */
};
struct hp_plan_facts {
	int in_cli;             /* the hugepolicy CLI itself: no THP switch (CMD would inherit it) */
	int switch_applied;     /* the plan's thp_process was given to the kernel ... */
	int switch_err;         /* ... and refused with this errno (0: done) */
	int switch2_applied;    /* off: the except-advised form refused, PR_SET_THP_DISABLE
				 * alone given to the kernel ... */
	int switch2_err;        /* ... and refused with this errno (0: done) */
	int backend_failed;     /* errno: the planned backend cannot run here; the plan takes system */
	int heap;               /* enum hp_heap_fact, read back from the backend once it started */
	char heap_value[32];    /* the backend's own setting in force, as the reason names it:
				 * jemalloc's opt.thp ("never"), mimalloc's large_os_pages ("1") */
	int mmap_hook;          /* 0: hugepolicy reaches the backend's mmap (or it needs none);
				 * EAGAIN: its mmap but not its munmap/madvise; else an errno: not */
	int unswitch_applied;   /* the clear of the switch for a whole-heap setting was given
				 * to the kernel ... */
	int unswitch_err;       /* ... and refused with this errno (0: done) */
};
void hp_plan_make(const struct hp_options *o, const struct hp_probe *p, struct hp_plan *out);
/* The same with what start-up learned (f NULL: nothing) */
void hp_plan_make_with(const struct hp_options *o, const struct hp_probe *p, const struct hp_plan_facts *f,
		       struct hp_plan *out);
/* plan_facts.c: the facts applied to a plan made from options and probe
 * (hp_plan_make_with's last step) */
void hp_plan_facts(const struct hp_plan_facts *f, struct hp_plan *pl);
/* plan_pagesize.c: hugetlb_page, hugetlb_big_page/_min, hugetlb_size_reason
 * from HUGEPOLICY_HUGETLB_SIZE and the pools (out->hugetlb_min set); the
 * pages the plan's pools have available: *small (hugetlb_page's pool) and
 * *big (hugetlb_big_page's) */
void hp_plan_pagesize(const struct hp_options *o, const struct hp_probe *p, struct hp_plan *out,
		      uint64_t *small, uint64_t *big);
/* The pool plan_pagesize takes for blocks below the big pool's size: 2 MiB,
 * else the kernel's default size (arm64 64K: 512 MiB); NULL if neither. */
const struct hp_pool *hp_plan_small_pool(const struct hp_probe *p);
const char *hp_thp_process_name(int thp_process);  /* "keep", "disable", "except-advised", "clear" */
/* the prctl(2) call that applies it: "prctl(PR_SET_THP_DISABLE, 1)"; "" for keep */
const char *hp_thp_process_call(int thp_process);
/* plan_thp.c: thp_process, thp_small_nohuge and their reasons from the
 * request and the probe (out->backend and pages_requested set) */
void hp_plan_thp(const struct hp_options *o, const struct hp_probe *p, struct hp_plan *out);
/* The switch this process has once thp_process is applied: enum hp_thp_off */
int hp_plan_thp_off(const struct hp_probe *p, int thp_process);

/* ---- report (report.c): output that is safe inside malloc ---- */
/* The process's short name, for "hugepolicy[NAME PID]: " prefixes. */
const char *hp_program(void);
/* One line "hugepolicy[NAME PID]: <text>\n" to the log (log.c); fixed
 * buffer, write(2).  Control bytes and invalid UTF-8 in the text are shown
 * as \xNN, \n, \r, \t: a line is always one line. */
void hp_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Append to a bounded buffer; never overflows, always NUL-terminated. */
struct hp_buf { char *p; size_t cap, len; };
void hp_buf_printf(struct hp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s as printable text: \n \r \t \\, \xNN for other control bytes
 * (C0, DEL, C1) and bytes that are not valid UTF-8; valid UTF-8 as is.  At
 * most max bytes of that, then "..." if s had more (values from the
 * environment: 64). */
void hp_buf_escaped(struct hp_buf *b, const char *s, size_t max);
/* The longest line hp_say writes, its newline included: a backend's whole
 * config line (a user's MALLOC_CONF cut at 64 bytes) fits. */
#define HP_SAY_MAX (1024 + 128)
/* Append "hugepolicy[NAME PID]: ", the name escaped and capped at 64 bytes. */
void hp_buf_prefix(struct hp_buf *b);
/* ... of another process: its name and pid */
void hp_buf_prefix_of(struct hp_buf *b, const char *name, int pid);
/* Copy src into dst[cap], truncating; always NUL-terminated. */
void hp_strlcpy(char *dst, const char *src, size_t cap);
/* Write all of buf to fd; 0 or errno. */
int hp_write_all(int fd, const char *s, size_t n);
/* s as a JSON string literal: quotes, backslashes, control characters
 * escaped, bytes that are not valid UTF-8 replaced by U+FFFD. */
void hp_json_str(struct hp_buf *b, const char *s);
/* The probe and what auto would choose, as text or JSON, into b. */
void hp_probe_format(const struct hp_probe *p, int json, struct hp_buf *b);

/* ---- the live report (live.c, hp_live.h) ---- */
/* Something the report counts changed: the library rewrites the block that
 * `hugepolicy inspect` reads (integration/live.c registers that writer at
 * start-up; before, and outside the library, nothing happens).  Safe under
 * any lock of the page layer and in a fork handler; never allocates. */
void hp_live_changed(void);
void hp_live_set_writer(void (*fn)(void));

/* ---- log (log.c): where output goes ---- */
/* Record whether fd 2 is open and which file it is (st_dev/st_ino); once,
 * at start-up (hp_options_read) or the first message, whichever is first. */
void hp_log_start(void);
/* The stderr of the process tree, from HUGEPOLICY_REPORT_STDERR (enum
 * hp_stderr_tree): fd 2 is written to only if at start-up it is that
 * file, or a file the parent does not have on its own fd 2 (one it set up
 * for this process: the subtree's stderr).  It only takes the sink away,
 * never gives one. */
void hp_log_tree(int state, unsigned long long dev, unsigned long long ino);
/* 1 and the value of HUGEPOLICY_REPORT_STDERR to export in out ("DEV:INO",
 * or "none") when this process starts a tree or a subtree; else 0. */
int hp_log_tree_export(char *out, size_t cap);
/* Keep a copy of stderr (high, close-on-exec) for a report at exit, so that
 * it still reaches the tree's stderr when the host closed fd 2 first;
 * children_report: forked children report too and keep it (else they
 * close it).  Nothing when fd 2 is not the tree's stderr. */
void hp_log_keep_stderr(int children_report);
/* Send every later message to PATH ("" or NULL: stderr), %p = the pid,
 * %% = %; relative to the directory current now.  0 or ENAMETOOLONG. */
int hp_log_set(const char *path);
/* An fd to write one message to now, or -1 to drop it: the log file, opened
 * O_APPEND|O_CLOEXEC for this message (*opened = 1; unopenable: said once,
 * then stderr), or 2 while fstat(2) still names the file fd 2 was at
 * start-up (and the tree's stderr), else the kept copy while it does.  Give it back with hp_log_close.  Write each message in one
 * write(2). */
int hp_log_open(int *opened);
void hp_log_close(int fd, int opened);
/* A write to the opened HUGEPOLICY_LOG failed with err: says so once on
 * stderr; 2 to write the text there instead, -1 without a usable stderr. */
int hp_log_write_failed(int err);
/* hp_log_open + one write + hp_log_close; dropped silently without a sink. */
void hp_log_write(const char *s, size_t n);

#endif
