/*
 * tune_measure.c - one measured run of `hugepolicy tune`'s command, and
 * the machine around it: memory settled before it, other processes' CPU
 * during it (perf/hpperf/settle.py and quiet.py, in C).
 *
 * A run: fork, the child takes its configuration's environment (first
 * without HUGEPOLICY_*, MIMALLOC_*, MALLOC_CONF, LD_PRELOAD and
 * GLIBC_TUNABLES, which the configurations set) and execs CMD, its
 * standard input /dev/null, its output in memfds.  The parent waits on a
 * pidfd and every SAMPLE_MS reads smaps_rollup of the command's process
 * tree.  Measured: wall time from fork to reaping; user and system time,
 * minor faults and ru_maxrss from wait4 (the command and the descendants
 * it waited for); peak memory = the larger of ru_maxrss and the largest
 * sampled sum of Rss + Shared_Hugetlb + Private_Hugetlb over the tree
 * (ru_maxrss counts no hugetlb page; sampling misses peaks shorter than
 * SAMPLE_MS, wait4 does not); peak AnonHugePages + Hugetlb likewise
 * sampled.  Others' CPU = the busy time of /proc/stat during the run
 * minus the command's and this process's own CPU time, per wall second.
 */
#define _GNU_SOURCE
#include "hp_tune.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_MS 100
#define MAX_TREE 256
#define METRIC_TEXT_MAX (16u << 20)     /* bytes of output searched for --metric */

extern char **environ;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* all CPUs' busy time from /proc/stat's first line, in seconds; <0 unknown */
static double busy_s(void)
{
	char buf[512];
	unsigned long long v[8] = { 0 };
	if (hp_read_small("/proc/stat", buf, sizeof buf) <= 0 ||
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &v[6], &v[7]) < 7)
		return -1;
	/* user nice system idle iowait irq softirq steal: guest is inside user */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static double tv_s(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

struct peak { uint64_t mem_kb, huge_kb; };

/* the tree's Rss + hugetlb and AnonHugePages + hugetlb now (kB), peaks kept */
static void sample_tree(pid_t root, struct peak *pk)
{
	pid_t todo[MAX_TREE];
	int n = 0, seen = 0;
	uint64_t mem = 0, huge = 0;
	todo[n++] = root;
	while (n > 0 && seen < MAX_TREE) {
		pid_t p = todo[--n];
		char path[64], buf[4096];
		seen++;
		snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)p);
		if (hp_read_small(path, buf, sizeof buf) > 0) {
			static const char *const keys[] = { "\nRss:", "\nAnonHugePages:", "\nShared_Hugetlb:",
							    "\nPrivate_Hugetlb:" };
			unsigned long long kb[4] = { 0 };
			for (int k = 0; k < 4; k++) {
				const char *at = strstr(buf, keys[k]);
				if (at)
					kb[k] = strtoull(at + strlen(keys[k]), NULL, 10);
			}
			mem += kb[0] + kb[2] + kb[3];
			huge += kb[1] + kb[2] + kb[3];
		}
		/* its children, through the main thread's list (enough for a
		 * compiler driver or a shell; threads rarely fork) */
		snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)p, (int)p);
		if (hp_read_small(path, buf, sizeof buf) > 0)
			for (char *s = buf, *end; n < MAX_TREE; s = end) {
				long c = strtol(s, &end, 10);
				if (end == s)
					break;
				todo[n++] = (pid_t)c;
			}
	}
	if (mem > pk->mem_kb)
		pk->mem_kb = mem;
	if (huge > pk->huge_kb)
		pk->huge_kb = huge;
}

static int stripped(const char *e)
{
	static const char *const exact[] = { "MALLOC_CONF=", "LD_PRELOAD=", "GLIBC_TUNABLES=" };
	if (strncmp(e, "HUGEPOLICY_", 11) == 0 || strncmp(e, "MIMALLOC_", 9) == 0)
		return 1;
	for (size_t k = 0; k < sizeof exact / sizeof exact[0]; k++)
		if (strncmp(e, exact[k], strlen(exact[k])) == 0)
			return 1;
	return 0;
}

static void child(char **cmd, const struct tune_config *c, int out, int err)
{
	int null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	for (int again = 1; again;) {
		again = 0;
		for (char **e = environ; e && *e; e++)
			if (stripped(*e)) {
				char name[256];
				snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
				unsetenv(name);
				again = 1;
				break;
			}
	}
	for (int k = 0; k < c->nenv; k++)
		setenv(c->env[k][0], c->env[k][1], 1);
	if (c->hugepolicy) {    /* as `hugepolicy run`: only the command reports */
		char pid[24];
		snprintf(pid, sizeof pid, "%ld", (long)getpid());
		setenv("HUGEPOLICY_REPORT_PID", pid, 1);
	}
	execvp(cmd[0], cmd);
	dprintf(2, "hugepolicy tune: cannot execute '%s': %s\n", cmd[0], strerror(errno));
	_exit(127);
}

/* FNV-1a of the whole file and its length */
static void hash_fd(int fd, uint64_t *hash, uint64_t *len)
{
	uint64_t h = 0xcbf29ce484222325ull, n = 0;
	unsigned char buf[65536];
	ssize_t got;
	lseek(fd, 0, SEEK_SET);
	while ((got = read(fd, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
		for (ssize_t i = 0; i < got; i++, n++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
	*hash = h, *len = n;
}

/* the first METRIC_TEXT_MAX bytes of fd, NUL-terminated (malloc'd), or NULL */
static char *read_text(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);
	size_t cap = size > 0 && (uint64_t)size < METRIC_TEXT_MAX ? (size_t)size : METRIC_TEXT_MAX;
	char *text = malloc(cap + 1);
	size_t len = 0;
	ssize_t got;
	if (!text)
		return NULL;
	lseek(fd, 0, SEEK_SET);
	while (len < cap && ((got = read(fd, text + len, cap - len)) > 0 || (got < 0 && errno == EINTR)))
		len += got > 0 ? (size_t)got : 0;
	text[len] = '\0';
	return text;
}

/* the number of --metric in fd's text: 0 and *v, or -1 */
static int find_number(const regex_t *re, int fd, double *v)
{
	char *text = read_text(fd);
	regmatch_t pm[2];
	int rc = -1;
	if (text && regexec(re, text, 2, pm, 0) == 0) {
		int g = re->re_nsub >= 1 && pm[1].rm_so >= 0;
		char *s = text + pm[g].rm_so, *end = text + pm[g].rm_eo;
		for (; s < end; s++) {
			char *stop;
			*end = '\0';
			if (!strchr("0123456789.+-", *s))
				continue;
			double d = strtod(s, &stop);
			if (stop != s && isfinite(d)) {
				*v = d, rc = 0;
				break;
			}
		}
	}
	free(text);
	return rc;
}

/* the last line of fd's text, for a failed run's reason */
static void last_line(int fd, char *buf, size_t cap)
{
	char tail[512];
	off_t size = lseek(fd, 0, SEEK_END);
	off_t from = size > (off_t)sizeof tail - 1 ? size - (off_t)sizeof tail + 1 : 0;
	ssize_t got = pread(fd, tail, sizeof tail - 1, from);
	buf[0] = '\0';
	if (got <= 0)
		return;
	tail[got] = '\0';
	while (got > 0 && tail[got - 1] == '\n')
		tail[--got] = '\0';
	const char *nl = strrchr(tail, '\n');
	hp_strlcpy(buf, nl ? nl + 1 : tail, cap);
}

/* wait for pid, sampling its tree, SIGTERM to it once *stop is set; 0
 * with *status and *ru, or an errno */
static int wait_sampling(pid_t pid, volatile sig_atomic_t *stop, struct peak *pk, int *status, struct rusage *ru)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0), killed = 0;
	double next = now_s() + SAMPLE_MS / 1e3;
	for (;;) {
		if (stop && *stop && !killed)
			killed = kill(pid, SIGTERM) == 0;
		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };
			int r = poll(&p, 1, SAMPLE_MS);
			if (r == 0)
				sample_tree(pid, pk);
			if (r <= 0)
				continue;       /* a sample, or EINTR (Ctrl-C: the command ends too) */
		} else {
			struct timespec ms = { 0, 1000000 };
			nanosleep(&ms, NULL);
			if (now_s() >= next) {
				sample_tree(pid, pk);
				next += SAMPLE_MS / 1e3;
			}
		}
		pid_t w = wait4(pid, status, pfd >= 0 ? 0 : WNOHANG, ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			int e = errno;
			if (pfd >= 0)
				close(pfd);
			return e;
		}
	}
	if (pfd >= 0)
		close(pfd);
	return 0;
}

void tune_measure(const struct tune_measure_ctx *m, char **cmd, const struct tune_config *c,
		  struct tune_run *out)
{
	memset(out, 0, sizeof *out);
	out->done = 1, out->others_cpus = -1, out->exit_code = -1;
	int fo = memfd_create("tune-stdout", MFD_CLOEXEC), fe = memfd_create("tune-stderr", MFD_CLOEXEC);
	if (fo < 0 || fe < 0) {
		snprintf(out->error, sizeof out->error, "memfd_create: %s", strerror(errno));
		goto done;
	}
	if (m->settle)
		tune_settle();
	double busy0 = busy_s(), self0 = self_cpu_s(), t0 = now_s();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		child(cmd, c, fo, fe);
	if (pid < 0) {
		snprintf(out->error, sizeof out->error, "fork: %s", strerror(errno));
		goto done;
	}
	struct peak pk = { 0, 0 };
	struct rusage ru;
	int status = 0, err = wait_sampling(pid, m->stop, &pk, &status, &ru);
	double wall = now_s() - t0;
	if (err) {
		snprintf(out->error, sizeof out->error, "wait4: %s", strerror(err));
		goto done;
	}
	out->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	out->user_s = tv_s(ru.ru_utime), out->sys_s = tv_s(ru.ru_stime);
	out->maxrss_mib = (double)ru.ru_maxrss / 1024;
	out->peak_huge_mib = (double)pk.huge_kb / 1024;
	out->v[TM_WALL] = wall;
	out->v[TM_CPU] = out->user_s + out->sys_s;
	out->v[TM_MEM] = (double)((uint64_t)ru.ru_maxrss > pk.mem_kb ? (uint64_t)ru.ru_maxrss : pk.mem_kb) / 1024;
	out->v[TM_FAULTS] = (double)ru.ru_minflt;
	out->v[TM_VALUE] = NAN;
	double busy1 = busy_s();
	if (busy0 >= 0 && busy1 >= 0 && wall > 0) {
		double others = (busy1 - busy0 - out->v[TM_CPU] - (self_cpu_s() - self0)) / wall;
		out->others_cpus = others > 0 ? others : 0;
	}
	hash_fd(fo, &out->out_hash, &out->out_len);
	if (out->exit_code != 0) {
		char line[128];
		last_line(fe, line, sizeof line);
		snprintf(out->error, sizeof out->error, "%s %d%s%s", WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? out->exit_code : WTERMSIG(status), line[0] ? ": " : "", line);
		goto done;
	}
	if (m->re && find_number(m->re, fo, &out->v[TM_VALUE]) != 0 &&
	    find_number(m->re, fe, &out->v[TM_VALUE]) != 0) {
		snprintf(out->error, sizeof out->error, "no number matching --metric in the output");
		goto done;
	}
	out->ok = 1;
done:
	if (fo >= 0)
		close(fo);
	if (fe >= 0)
		close(fe);
}

static int write_proc(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int rc = hp_write_all(fd, value, strlen(value));
	close(fd);
	return rc;
}

int tune_settle(void)
{
	sync();
	int a = write_proc("/proc/sys/vm/drop_caches", "1\n");
	int b = write_proc("/proc/sys/vm/compact_memory", "1\n");
	return a ? a : b;
}

void tune_can_settle(char *why, size_t cap)
{
	why[0] = '\0';
	if (geteuid() != 0)
		snprintf(why, cap, "not root: /proc/sys/vm/drop_caches and compact_memory are root's");
	else if (access("/proc/sys/vm/drop_caches", W_OK) != 0 || access("/proc/sys/vm/compact_memory", W_OK) != 0)
		snprintf(why, cap, "/proc/sys/vm/drop_caches or compact_memory cannot be written: %s",
			 strerror(errno));
}

void tune_quiet_check(double seconds, char *why, size_t cap)
{
	double busy0 = busy_s(), self0 = self_cpu_s(), t0 = now_s();
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	double busy1 = busy_s(), wall = now_s() - t0, load = -1;
	char buf[128];
	why[0] = '\0';
	if (hp_read_small("/proc/loadavg", buf, sizeof buf) > 0)
		load = strtod(buf, NULL);
	struct hp_buf b = { why, cap, 0 };
	if (busy0 >= 0 && busy1 >= 0 && wall > 0) {
		double others = (busy1 - busy0 - (self_cpu_s() - self0)) / wall;
		if (others >= TUNE_QUIET_CPUS)
			hp_buf_printf(&b, "other processes used %.2f CPUs", others);
	}
	if (load >= TUNE_QUIET_LOAD)
		hp_buf_printf(&b, "%sload average %.2f", b.len ? ", " : "", load);
}
