/*
 * cli_inspect.c - `hugepolicy inspect PID|--self [--json] [--watch SECONDS]`:
 * what another process's memory is on, read from /proc/PID (smaps, status,
 * comm, environ, cgroup) with the caller's rights; the target runs nothing
 * for it.  The machine is the probe's (probe*.c), with the target's THP
 * switch and cgroup hugetlb limits in place of the caller's.  Whether
 * hugepolicy is in it comes from its mappings; its report from the live
 * block its library keeps (inspect_live.c), with the process.* numbers the
 * kernel gives now.  Where that block cannot be read, its backend and mode
 * come from the HUGEPOLICY_* variables it started with (environ), planned
 * on this machine now as its library planned them at start-up - unknown
 * when the program wrote over that area (a process title: redis).  Exit
 * status: 0 ok, 1 the process does not exist or cannot be read (one
 * line), 2 usage.
 */
#define _GNU_SOURCE
#include "hp_cli.h"
#include "hp_inspect.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char hp_usage_inspect[] =
	"usage: hugepolicy inspect PID|--self [--json] [--watch SECONDS]\n"
	"  what a process's memory is on, by kind of mapping (heap, stack, anon_big, anon_small,\n"
	"  reserved, file, hugetlb, shmem, other): size, Rss, AnonHugePages, Hugetlb, THPeligible,\n"
	"  VmFlags hg/nh; its largest mappings; why anonymous memory is not on huge pages; whether\n"
	"  libhugepolicy is loaded and, if so, its live report (read from its memory: the caller\n"
	"  needs the right to ptrace it); advice\n"
	"  --self           this command's own process\n"
	"  --json           one JSON object instead of text\n"
	"  --watch SECONDS  again every SECONDS (redrawn on a terminal; --json: one object per line)\n"
	"                   until the process ends\n"
	"exit status: 0 ok, 1 no such process or it cannot be read, 2 usage error\n";

/* the start-up environment's variables that steer huge pages */
static int steers(const char *var)
{
	static const char *const names[] = { "HUGEPOLICY_", "LD_PRELOAD=", "MALLOC_CONF=", "MIMALLOC_",
					     "GLIBC_TUNABLES=", "JE_MALLOC_CONF=" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strncmp(var, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

static void read_environ(struct hp_inspection *in, const char *path)
{
	static char raw[1 << 16];
	int n = hp_read_small(path, raw, sizeof raw);
	size_t used = 0;
	for (int i = 0; n > 0 && i < n; i += (int)strlen(raw + i) + 1) {
		size_t len = strlen(raw + i) + 1;
		in->env_words += len > 1;
		if (!steers(raw + i) || in->nenv >= HP_INSPECT_ENV || used + len > sizeof in->envbuf)
			continue;
		memcpy(in->envbuf + used, raw + i, len);
		in->env[in->nenv++] = in->envbuf + used;
		used += len;
	}
}

static const char *env_get(const struct hp_inspection *in, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < in->nenv; i++)
		if (strncmp(in->env[i], name, n) == 0 && in->env[i][n] == '=')
			return in->env[i] + n + 1;
	return NULL;
}

/* what the library planned at start-up: the option table's parsers on the
 * variables it started with, the plan on this machine as it is now */
static void plan(struct hp_inspection *in)
{
	struct hp_options o;
	hp_options_defaults(&o);
	for (int i = 0; i < HP_OPT_COUNT; i++) {
		const char *v = env_get(in, hp_option_table[i].env);
		if (v && hp_option_table[i].parse(v, &o) == 0)
			o.set_mask |= 1u << i;
	}
	o.user_malloc_conf = env_get(in, "MALLOC_CONF");
	o.user_mi_large = env_get(in, "MIMALLOC_LARGE_OS_PAGES");
	o.user_mi_reserve = env_get(in, "MIMALLOC_RESERVE_HUGE_OS_PAGES");
	hp_plan_make(&o, &in->probe, &in->plan);
	in->have_plan = 1;
}

static int smaps_line(void *ctx, char *line, size_t len, int whole)
{
	(void)len;
	hp_smaps_line(ctx, line, whole);
	return 0;
}

/* 1: the process has exited and waits for its parent (State Z or X in
 * /proc/PID/stat, after the name in parentheses) */
static int ended(int pid)
{
	char path[64], stat[512];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int n = hp_read_small(path, stat, sizeof stat);
	const char *r = n > 0 ? strrchr(stat, ')') : NULL;
	return r && r[1] == ' ' && (r[2] == 'Z' || r[2] == 'X');
}

/* process.* of the live report as the kernel gives them now: Rss,
 * AnonHugePages and Hugetlb summed over smaps, the faults from stat,
 * VmHWM from status (getrusage's ru_maxrss in the process) */
static void process_now(struct hp_inspection *in)
{
	struct hugepolicy_stats *st = &in->live.snap.st;
	char path[64], buf[4096];
	st->rss = in->smaps.total.rss;
	st->anon_huge = in->smaps.total.anon_huge;
	st->hugetlb = in->smaps.total.hugetlb;
	st->minor_faults = st->major_faults = st->peak_rss = HUGEPOLICY_UNKNOWN;
	snprintf(path, sizeof path, "/proc/%d/stat", in->pid);
	const char *r = hp_read_small(path, buf, sizeof buf) > 0 ? strrchr(buf, ')') : NULL;
	unsigned long long minflt, majflt;
	if (r && sscanf(r + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu", &minflt, &majflt) == 2) {
		st->minor_faults = minflt;
		st->major_faults = majflt;
	}
	snprintf(path, sizeof path, "/proc/%d/status", in->pid);
	const char *hwm = hp_read_small(path, buf, sizeof buf) > 0 ? strstr(buf, "\nVmHWM:") : NULL;
	unsigned long long kb;
	if (hwm && sscanf(hwm + 7, "%llu", &kb) == 1)
		st->peak_rss = kb << 10 > st->rss ? kb << 10 : st->rss;
}

/* 0, or an errno with one line on stderr */
static int inspect(struct hp_inspection *in, int pid)
{
	char path[64], line[4096];
	memset(in, 0, sizeof *in);
	in->pid = pid;
	snprintf(path, sizeof path, "/proc/%d/comm", pid);
	int n = hp_read_small(path, in->name, sizeof in->name);
	int err = n < 0 ? -n : 0;
	if (n > 0 && in->name[n - 1] == '\n')
		in->name[n - 1] = '\0';
	hp_probe_read(&in->probe);
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	if (!err && ended(pid))
		err = ESRCH;
	if (!err)
		err = hp_status_thp_enabled(path, &in->thp_status);
	in->probe.thp_process_off = in->thp_status == 0 ? HP_THP_OFF_ALL : HP_THP_OFF_NONE;
	hp_smaps_init(&in->smaps, in->probe.thp_enabled, in->probe.thp_process_off, in->probe.pmd_size);
	snprintf(path, sizeof path, "/proc/%d/smaps", pid);
	if (!err)
		err = hp_read_lines(path, line, sizeof line, smaps_line, &in->smaps);
	if (err) {
		if (err == ENOENT || err == ESRCH)
			fprintf(stderr, "hugepolicy inspect: no such process: %d%s\n", pid,
				err == ESRCH ? " has exited (a zombie)" : "");
		else
			fprintf(stderr, "hugepolicy inspect: %s: %s%s\n", path, strerror(err),
				err == EACCES || err == EPERM ? ": another user's process (that user or root may read it)"
				: "");
		return err;
	}
	hp_smaps_end(&in->smaps);
	for (int i = 0; i < in->probe.npools; i++) {
		struct hp_pool *q = &in->probe.pools[i];
		q->cg_error = hp_cgroup_hugetlb_room_pid(pid, q->page_size, &q->cg_max, &q->cg_current,
							 q->cg_where, sizeof q->cg_where);
	}
	snprintf(path, sizeof path, "/proc/%d/environ", pid);
	read_environ(in, path);
	if (in->smaps.hugepolicy[0])
		hp_inspect_live(in);
	if (in->live_state == HP_LIVE_READ) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		in->live_now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
		process_now(in);
	} else if (in->smaps.hugepolicy[0] && in->env_words) {
		plan(in);
	}
	return 0;
}

/* "123" within 1..INT_MAX, else 0 */
static long number(const char *s, long max)
{
	uint64_t v;
	return s && hp_parse_u64_strict(s, &v) == 0 && v > 0 && v <= (uint64_t)max ? (long)v : 0;
}

static int usage(const char *fmt, const char *arg)
{
	fputs("hugepolicy inspect: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", hp_usage_inspect);
	return 2;
}

int hp_cli_inspect(int argc, char **argv)
{
	int json = 0, pid = 0;
	long watch = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (strcmp(a, "--self") == 0 && !pid) {
			pid = (int)getpid();
		} else if (strcmp(a, "--watch") == 0 || strncmp(a, "--watch=", 8) == 0) {
			const char *v = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : NULL;
			if (!(watch = number(v, 86400)))
				return usage("--watch needs whole seconds from 1 to 86400, not '%s'", v ? v : "");
		} else if (a[0] != '-' && !pid) {
			if (!(pid = (int)number(a, INT_MAX)))
				return usage("'%s' is not a process id", a);
		} else {
			return usage(pid && (a[0] != '-' || strcmp(a, "--self") == 0) ? "one process only: '%s'"
				     : "unknown option '%s'", a);
		}
	}
	if (!pid)
		return usage("%sneeds a PID or --self", "");
	static struct hp_inspection in;
	static char text[1 << 16];
	int tty = watch && !json && isatty(1);
	for (long round = 0;; round++) {
		struct hp_buf b = { text, sizeof text, 0 };
		text[0] = '\0';
		if (inspect(&in, pid))
			return round ? 0 : 1;   /* --watch: the process ended */
		if (tty)
			hp_buf_printf(&b, "\033[H\033[2J");
		hp_inspect_format(&in, json, &b);
		if (watch && !json)
			hp_buf_printf(&b, "%s", tty ? "" : "\n");
		if (fputs(text, stdout) == EOF || fflush(stdout) != 0)
			return 1;
		if (!watch)
			return 0;
		struct timespec t = { watch, 0 };
		while (nanosleep(&t, &t) != 0 && errno == EINTR)
			;
	}
}
