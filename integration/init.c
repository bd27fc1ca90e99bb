/*
 * init.c - start-up: environment -> options -> probe -> plan -> backend.
 *
 * Runs once, at the first allocation of the process or in the library
 * constructor, whichever comes first.  A thread that allocates while another
 * thread runs start-up waits for it (sched_yield loop); the thread running it
 * is served by the bootstrap arena when it re-enters malloc.  The plan is
 * read-only afterwards.  A backend that cannot run here (libmimalloc.so.2
 * missing, say) falls back to the system backend, said in one line.
 *
 * Reports come from one process: with HUGEPOLICY_REPORT_PID set (`hugepolicy
 * run` sets the pid of the command it execs), every other process - the
 * command's children, forked or exec'ed - keeps the policy but prints no
 * verbose line and no exit report (exit.c).  And a second copy of libhugepolicy in
 * the same process (two paths in LD_PRELOAD) stays inert: the dynamic linker
 * binds malloc to the first copy, so the second one's constructor sees that
 * the malloc in force belongs to another hugepolicy and does not start up.
 * Preloaded into the hugepolicy CLI (a nested `hugepolicy run`), the library
 * serves glibc's malloc with no policy and prints nothing: the CLI's
 * executable exports hugepolicy_cli_process, which the library looks for.
 *
 * Where lines go is log.c's: the first process of a tree (or of a subtree
 * whose parent gave it a new stderr) exports HUGEPOLICY_REPORT_STDERR,
 * naming its stderr, when LD_PRELOAD carries the library to its children,
 * from the library constructor (not inside malloc: past 254 variables it
 * is setenv, which takes the environment lock), and a process that
 * reports at exit keeps a copy of its stderr for the report.
 *
 * Publication (the end of start-up): the hot path's malloc and free
 * pointers, then hp_current, each a release store; a thread that reads a
 * backend pointer sees the backend started.
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"
#include "hp_init.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct hp_alloc_ops *_Atomic hp_current = &hp_boot_ops;

enum { STATE_NONE, STATE_RUNNING, STATE_READY };
static atomic_int state = STATE_NONE;
static atomic_ulong owner;

/* hugepolicy's .bss (state above included) goes MADV_NOHUGEPAGE before the
 * library first reads it: on a THP `always` host a read of untouched .bss
 * maps the huge zero page, and the first write after it takes a whole 2 MiB
 * page whatever the advice says by then.  The flag is in .data (non-zero
 * initialiser): reading it touches no .bss.  A thread that finds the advice
 * taken by another goes on without waiting (never a wait that a signal
 * handler's malloc on the advising thread could turn into a deadlock): at
 * worst that race, before main, costs the one 2 MiB page it always did. */
static atomic_int own_memory_unadvised = 1;

static void advise_own_memory(void)
{
	if (atomic_load_explicit(&own_memory_unadvised, memory_order_relaxed) &&
	    atomic_exchange(&own_memory_unadvised, 0))
		hp_thp_own_memory_nohuge();
}

struct hp_runtime hp_rt;     /* written during start-up only */

static const struct hp_backend *const backends[HP_BACKEND_COUNT] = {
	[HP_BACKEND_SYSTEM] = &hp_backend_system,
	[HP_BACKEND_JEMALLOC] = &hp_backend_jemalloc,
	[HP_BACKEND_MIMALLOC] = &hp_backend_mimalloc,
};

/* The hot path's jumps (hp_dispatch.h): the bootstrap ops' until start-up is done. */
hp_malloc_fn_t _Atomic hp_malloc_fn = hp_boot_malloc;
hp_free_fn_t _Atomic hp_free_fn = hp_boot_free;
/* hp_malloc_by_size's entries for sizes 0 to 8: asked as glibc's smallest
 * block, 16-aligned (hp_backend.h) */
void *hp_malloc_tiny(size_t size)
{
	(void)size;
	return hp_hot(hp_malloc_by_size[HP_GLIBC_MIN_BLOCK])(HP_GLIBC_MIN_BLOCK);
}

/* (a range designator, GNU C) */
__extension__ hp_malloc_fn_t _Atomic hp_malloc_by_size[HP_SMALL_MAX + 1] = {
	[0 ... HP_SMALL_MIN - 1] = hp_malloc_tiny,
	[HP_SMALL_MIN ... HP_SMALL_MAX] = hp_boot_malloc,
};

static void publish_malloc_small(hp_malloc_fn_t fn)
{
	if (atomic_load_explicit(&hp_malloc_by_size[HP_SMALL_MIN], memory_order_relaxed) == fn)
		return;
	for (size_t n = HP_SMALL_MIN; n <= HP_SMALL_MAX; n++)
		atomic_store_explicit(&hp_malloc_by_size[n], fn, memory_order_release);
}

static void publish(const struct hp_alloc_ops *ops)
{
	atomic_store_explicit(&hp_malloc_fn, ops->malloc_large, memory_order_release);
	publish_malloc_small(ops->malloc_small);
	atomic_store_explicit(&hp_free_fn, hp_boot_free_entry(ops->free), memory_order_release);
	atomic_store_explicit(&hp_current, ops, memory_order_release);
}

/* Swaps are between ops of the same backend (thp_large.c: a free that also
 * withdraws advice), so a call racing with one may still reach `from`'s. */
static void dispatch_swap(const struct hp_alloc_ops *from, const struct hp_alloc_ops *to)
{
	const struct hp_alloc_ops *expected = from;
	if (!atomic_compare_exchange_strong_explicit(&hp_current, &expected, to, memory_order_acq_rel,
						     memory_order_acquire))
		return;
	atomic_store_explicit(&hp_free_fn, hp_boot_free_entry(to->free), memory_order_release);
	atomic_store_explicit(&hp_malloc_fn, to->malloc_large, memory_order_release);
	publish_malloc_small(to->malloc_small);
}

static const char *env_get(const char *name)
{
	return getenv(name);    /* glibc getenv does not allocate */
}

/* Tests that must see another thread wait for start-up define this (only a
 * binary that links hugepolicy's objects statically can: the reference is
 * hidden, so libhugepolicy.so resolves it to nothing at link time). */
extern void hp_test_during_start_up(void) __attribute__((weak, visibility("hidden")));

/* Defined (and exported) by the hugepolicy CLI's executable only. */
extern const char hugepolicy_cli_process __attribute__((weak, visibility("default")));

static int in_the_cli(void)
{
	return &hugepolicy_cli_process != NULL;
}

/* One plan call with what start-up has learned so far: policy/ decides. */
static void plan(const struct hp_options *o, const struct hp_plan_facts *f)
{
	hp_plan_make_with(o, &hp_rt.probe, f, &hp_rt.plan);
}

/* The plan, and its THP switch applied before the backend maps anything;
 * the kernel's answer is one more fact for one more plan call. */
static void plan_and_switch(const struct hp_options *o, struct hp_plan_facts *f)
{
	f->switch_applied = f->switch_err = f->switch2_applied = f->switch2_err = 0;
	plan(o, f);
	if (hp_rt.plan.thp_process == HP_THP_PROC_KEEP)
		return;
	f->switch_err = hp_thp_switch_apply(&hp_rt.plan);
	f->switch_applied = 1;
	plan(o, f);
	if (f->switch_err && hp_rt.plan.thp_process != HP_THP_PROC_KEEP) {
		/* the plan's second choice (off: the switch without its except-advised form) */
		f->switch2_err = hp_thp_switch_apply(&hp_rt.plan);
		f->switch2_applied = 1;
		plan(o, f);
	}
}

/* Start be: what it reports re-plans (a switch the new plan clears is
 * cleared now), then it is configured from that plan.  0 or an errno. */
static int start_backend(const struct hp_backend *be, const struct hp_options *o, struct hp_plan_facts *f,
			 const struct hp_alloc_ops **ops)
{
	int rc = be->start ? be->start(&hp_rt.plan, f) : 0;
	if (rc != 0)
		return rc;
	int applied = hp_rt.plan.thp_process;
	plan(o, f);
	if (hp_rt.plan.thp_process == HP_THP_PROC_CLEAR && applied != HP_THP_PROC_CLEAR) {
		f->unswitch_err = hp_thp_switch_apply(&hp_rt.plan);
		f->unswitch_applied = 1;
		plan(o, f);
	}
	/* mTHP advice as the plan stands with the backend's facts (MALLOC_CONF's
	 * opt.thp=never turns auto off); the backend's start above mapped with
	 * the plan made before them */
	hp_thp_mid_init(&hp_rt.plan);
	hp_promote_init(&hp_rt.plan);   /* the plan's promotion, or why not, whatever the backend */
	return be->init(&hp_rt.plan, ops);
}

static void start_up(void)
{
	if (hp_test_during_start_up)
		hp_test_during_start_up();
	struct hp_options o;
	struct hp_plan_facts f = { .in_cli = in_the_cli() };
	if (f.in_cli) {
		hp_options_defaults(&o);        /* no environment: no warning, no line */
		o.pages = HP_PAGES_OFF;
	} else {
		hp_options_read(&o, env_get);
	}
	hp_rt.report_pid = o.report_pid;
	hp_rt.start_pid = getpid();
	if (o.report_pid && o.report_pid != getpid()) {
		o.verbose = 0;          /* not the process that reports: policy only */
		o.stats = HP_STATS_NONE;
	}
	hp_rt.opt = o;
	hp_strlcpy(hp_rt.log, o.log ? o.log : "", sizeof hp_rt.log);
	hp_rt.opt.log = hp_rt.log;
	if ((o.verbose || o.stats != HP_STATS_NONE) && (o.log == NULL || *o.log == '\0'))
		hp_log_keep_stderr(o.report_pid == 0);  /* for the report at exit */
	/* a user's MIMALLOC_LARGE_OS_PAGES overrides the mode: probe as for auto */
	hp_probe_for_plan(&hp_rt.probe, o.user_mi_large && o.backend == HP_BACKEND_MIMALLOC ?
			  HP_PAGES_AUTO : o.pages, o.backend);
	plan_and_switch(&o, &f);
	hp_rt.backend_source = (o.set_mask & (1u << HP_OPT_BACKEND)) ? "HUGEPOLICY_BACKEND" : "default";

	const struct hp_backend *be = backends[hp_rt.plan.backend];
	const struct hp_alloc_ops *ops = NULL;
	/* before the backend: its own fork handlers (jemalloc's) then run
	 * inside ours, and our child handler runs before anyone else's */
	hp_fork_init(hp_rt.plan.thp_available, hp_rt.plan.verbose, hp_rt.plan.fork_copy, hp_rt.probe.pools,
		     hp_rt.probe.npools);
	hp_thp_large_set_swap(dispatch_swap);
	hp_fault_cost_init(&hp_rt.plan);
	hp_thp_mid_init(&hp_rt.plan);
	int rc = start_backend(be, &o, &f, &ops);
	if (rc != 0 && be != &hp_backend_system) {
		hp_say("backend %s cannot run here (%s); using system", be->name, strerror(rc));
		f = (struct hp_plan_facts){ .in_cli = f.in_cli, .backend_failed = rc };
		plan_and_switch(&o, &f);
		hp_rt.backend_source = "fallback";
		be = &hp_backend_system;
		hp_fault_cost_init(&hp_rt.plan);
		hp_thp_mid_init(&hp_rt.plan);
		rc = start_backend(be, &o, &f, &ops);
	}
	if (rc != 0) {
		hp_say("glibc's allocator cannot be found (%s); allocations fail", strerror(rc));
		return;                 /* stay on the bootstrap ops */
	}
	hp_rt.backend = be;
	if (hp_rt.plan.reserve && be != &hp_backend_mimalloc)
		hp_say("HUGEPOLICY_RESERVE is for the mimalloc backend; ignored under %s", be->name);
	/* which pool serves a block matters only where blocks may come from one */
	if ((o.set_mask & (1u << HP_OPT_HUGETLB_SIZE)) &&
	    (hp_rt.plan.pages_requested == HP_PAGES_OFF || hp_rt.plan.pages_requested == HP_PAGES_THP))
		hp_say("HUGEPOLICY_HUGETLB_SIZE is for pages=hugetlb; ignored under pages=%s",
		       hp_pages_name(hp_rt.plan.pages_requested));
	publish(ops);
}

static void say_decisions(void)
{
	char cfg[1024];
	const struct hp_plan *pl = &hp_rt.plan;
	if (!pl->verbose || !hp_rt.backend)
		return;
	hp_say("backend %s (%s)", hp_rt.backend->name, hp_rt.backend_source);
	hp_say("pages %s (asked %s): %s", hp_pages_name(pl->pages), hp_pages_name(pl->pages_requested),
	       pl->pages_reason);
	hp_rt.backend->describe(cfg, sizeof cfg);
	hp_say("config %s", cfg);
	if (pl->thp_process != HP_THP_PROC_KEEP)
		hp_say("thp switch %s: %s", hp_thp_process_name(pl->thp_process), pl->thp_process_reason);
	if (pl->thp_small_nohuge)
		hp_say("thp small blocks MADV_NOHUGEPAGE: %s", pl->thp_small_reason);
	if (pl->mthp != HP_MTHP_NONE)
		hp_say("mthp %s: %s", hp_mthp_name(pl->mthp), pl->mthp_reason);
}

const struct hp_alloc_ops *hp_init(void)
{
	advise_own_memory();
	if (atomic_load_explicit(&state, memory_order_acquire) == STATE_READY)
		return hp_ops();
	/* The thread that takes `owner` starts up.  One CAS decides, so a call
	 * nested in that thread at any later point (start-up's own allocations,
	 * a signal handler's) finds itself the owner and takes the bootstrap
	 * arena, never waits for itself. */
	unsigned long self = (unsigned long)pthread_self(), first = 0;
	if (atomic_compare_exchange_strong(&owner, &first, self)) {
		atomic_store(&state, STATE_RUNNING);
		int caller_errno = errno;   /* start-up's probing and dlopen must not show */
		hp_boot_place();        /* before start-up's first re-entrant allocation */
		start_up();
		atomic_store_explicit(&state, STATE_READY, memory_order_release);
		say_decisions();
		hp_live_start();
		/* and the backend's own lazy start at its first allocation (mimalloc
		 * probes /sys for NUMA nodes): now, inside the saved errno */
		const struct hp_alloc_ops *o = hp_ops();
		if (o != &hp_boot_ops)
			o->free(o->malloc(1));
		errno = caller_errno;
		return hp_ops() == &hp_boot_ops ? NULL : hp_ops();
	}
	if (first == self)
		return NULL;            /* re-entrant: bootstrap arena */
	while (atomic_load_explicit(&state, memory_order_acquire) != STATE_READY)
		sched_yield();
	return hp_ops() == &hp_boot_ops ? NULL : hp_ops();
}

int hp_ready(void)
{
	return atomic_load_explicit(&state, memory_order_acquire) == STATE_READY;
}

/* HUGEPOLICY_REPORT_STDERR=value into environ without allocating (a block
 * taken here would shift the backend's layout in every host): a static copy
 * of the array with the entry added (an inherited empty one replaced);
 * setenv only past 254 variables.  A later setenv by the host copies the
 * array into its own, as it does with the one the kernel gave. */
extern char **environ;
static void export_tree_stderr(const char *value)
{
	static char entry[96];
	static char *env[256];
	const char *name = hp_option_table[HP_OPT_REPORT_STDERR].env;
	size_t n = strlen(name), k = 0;
	struct hp_buf b = { entry, sizeof entry, 0 };
	hp_buf_printf(&b, "%s=%s", name, value);
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			continue;
		if (k + 2 >= sizeof env / sizeof env[0]) {
			setenv(name, value, 1);
			return;
		}
		env[k++] = *e;
	}
	env[k++] = entry;
	env[k] = NULL;
	environ = env;
}

/* The malloc and hugepolicy_version in force are both another object's: an
 * earlier copy of libhugepolicy owns this process.  (Another allocator in
 * front of us - a sanitizer, a libjemalloc linked first - is not a copy:
 * hugepolicy still starts for its API, as it always did.) */
static int another_copy_in_force(void)
{
	void *m = dlsym(RTLD_DEFAULT, "malloc");
	void *v = dlsym(RTLD_DEFAULT, "hugepolicy_version");
	Dl_info dm, dv, self;
	if (!m || !v || !dladdr(m, &dm) || !dladdr(v, &dv) || !dladdr((void *)&hp_rt, &self))
		return 0;
	return dm.dli_fbase == dv.dli_fbase && dm.dli_fbase != self.dli_fbase;
}

__attribute__((constructor)) static void hp_constructor(void)
{
	advise_own_memory();
	if (!hp_ready() && another_copy_in_force())
		return;                 /* inert: no start-up, no report */
	hp_init();
	hp_exit_init();
	/* only where children load the library too (LD_PRELOAD: `hugepolicy
	 * run`, or set by hand): a host that links it, for regions say, keeps
	 * its environment as it was */
	char value[48];
	const char *preload = getenv("LD_PRELOAD");
	if (preload && *preload && hp_log_tree_export(value, sizeof value))     /* a (sub)tree starts here */
		export_tree_stderr(value);
}
