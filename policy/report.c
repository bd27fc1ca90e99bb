/*
 * report.c - everything hugepolicy prints: one-line messages, the probe
 * (text/JSON) and the stats report (text/JSON).  Output may happen before
 * main or inside malloc, so it uses fixed buffers, vsnprintf with integer
 * and string conversions only, and write(2) - never stdio streams (the habit
 * of mimalloc's _mi_fputs / jemalloc's malloc_write).  Where the bytes go
 * is log.c's job; what a line may hold is this file's: every line is one
 * line, whatever the environment or the program name holds.
 */
#define _GNU_SOURCE
#include "hp_policy.h"
#include "hugepolicy.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A broken pipe on stderr must not kill the host with SIGPIPE (`prog 2>&1 |
 * head`): SIGPIPE is blocked in this thread for the write, and one that the
 * write raised is taken off again before the mask is restored. */
int hp_write_all(int fd, const char *s, size_t n)
{
	sigset_t pipe_only, old, pending;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	sigpending(&pending);
	int was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	int rc = 0;
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = errno;
			break;
		}
		s += w;
		n -= (size_t)w;
	}
	if (rc == EPIPE && !was_pending)
		sigtimedwait(&pipe_only, NULL, &(struct timespec){ 0, 0 });
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void hp_strlcpy(char *dst, const char *src, size_t cap)
{
	size_t n = strlen(src);
	if (cap == 0)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void hp_buf_printf(struct hp_buf *b, const char *fmt, ...)
{
	if (b->len + 1 >= b->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->len += (size_t)n;
	if (b->len >= b->cap)
		b->len = b->cap - 1;
}

const char *hp_program(void)
{
	return program_invocation_short_name ? program_invocation_short_name : "?";
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0: overlong forms,
 * surrogates and code points above U+10FFFF are invalid (RFC 3629). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c < 0x80) return 1;
	if (c < 0xc2) return 0;
	if (c < 0xe0) n = 2;
	else if (c < 0xf0) { n = 3; if (c == 0xe0) lo = 0xa0; if (c == 0xed) hi = 0x9f; }
	else if (c < 0xf5) { n = 4; if (c == 0xf0) lo = 0x90; if (c == 0xf4) hi = 0x8f; }
	else return 0;
	if (s[1] < lo || s[1] > hi) return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf) return 0;
	return n;
}

/* Append n bytes of s, or nothing if they do not fit (no vsnprintf per
 * character: hp_say runs this over every byte of a line). */
static void put(struct hp_buf *b, const void *s, size_t n)
{
	if (b->len + n >= b->cap)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* Append s so that it cannot end a line, forge one or drive a terminal:
 * \n \r \t, \xNN for other C0 controls, DEL, C1 controls (U+0080-U+009F)
 * and bytes that are not valid UTF-8; with `backslash`, \ as \\ too (so the
 * text can be told from an escape).  At most max bytes; a longer s ends in
 * "...". */
static void escape(struct hp_buf *b, const char *str, size_t max, int backslash)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t used = 0, room = b->cap > b->len + 1 ? b->cap - 1 - b->len : 0;
	if (max > room)
		max = room >= 3 ? room - 3 : 0;   /* never cut an escape or a character */
	while (*s) {
		char rep[8];
		size_t n = utf8_len(s), len;
		if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
			n = 0;          /* C1 control */
		if (n > 1) {
			memcpy(rep, s, n);
			len = n;
		} else if (*s == '\n' || *s == '\r' || *s == '\t' || (*s == '\\' && backslash)) {
			rep[0] = '\\';
			rep[1] = *s == '\n' ? 'n' : *s == '\r' ? 'r' : *s == '\t' ? 't' : '\\';
			len = 2;
		} else if (n == 0 || *s < 0x20 || *s == 0x7f) {
			static const char hex[] = "0123456789abcdef";
			rep[0] = '\\'; rep[1] = 'x'; rep[2] = hex[*s >> 4]; rep[3] = hex[*s & 15];
			len = 4;
			n = 1;
		} else {
			rep[0] = (char)*s;
			len = 1;
		}
		if (used + len > max) {
			put(b, "...", 3);
			return;
		}
		put(b, rep, len);
		used += len;
		s += n;
	}
}

void hp_buf_escaped(struct hp_buf *b, const char *s, size_t max)
{
	escape(b, s, max, 1);
}

void hp_buf_prefix(struct hp_buf *b)
{
	hp_buf_printf(b, "hugepolicy[");
	escape(b, hp_program(), 64, 1);
	hp_buf_printf(b, " %d]: ", (int)getpid());
}

void hp_say(const char *fmt, ...)
{
	char msg[512], line[512];
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	/* "hugepolicy[python3 1234]: " - children inherit the environment, so
	 * every line names its process; whatever the arguments hold, the line
	 * stays one line (values are escaped and capped by their callers too) */
	struct hp_buf b = { line, sizeof line - 1, 0 };
	hp_buf_prefix(&b);
	escape(&b, msg, sizeof line, 0);
	line[b.len++] = '\n';
	hp_log_write(line, b.len);
	errno = saved;
}

/* ---- probe ---- */

static const char *auto_choice(const struct hp_probe *p, int backend, char *why, size_t cap)
{
	struct hp_options o;
	struct hp_plan pl;
	hp_options_defaults(&o);
	o.backend = backend;
	o.pages = HP_PAGES_AUTO;
	hp_plan_make(&o, p, &pl);
	hp_strlcpy(why, pl.pages_reason, cap);
	return hp_pages_name(pl.pages);
}

/* Invalid UTF-8 bytes become U+FFFD (written \ufffd), so the output is
 * valid JSON whatever s holds. */
void hp_json_str(struct hp_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	hp_buf_printf(b, "\"");
	while (*s) {
		size_t n = utf8_len(s);
		if (n == 0) { hp_buf_printf(b, "\\ufffd"); n = 1; }
		else if (*s == '"' || *s == '\\') hp_buf_printf(b, "\\%c", *s);
		else if (*s == '\n') hp_buf_printf(b, "\\n");
		else if (*s < 0x20 || *s == 0x7f) hp_buf_printf(b, "\\u%04x", *s);
		else put(b, s, n);
		s += n;
	}
	hp_buf_printf(b, "\"");
}

void hp_probe_format(const struct hp_probe *p, int json, struct hp_buf *b)
{
	char why[256];
	if (!json) {
		hp_buf_printf(b, "kernel            %s\n", p->kernel);
		hp_buf_printf(b, "THP enabled       %s%s\n", hp_thp_name(p->thp_enabled),
			      p->thp_process_off ? " (but disabled for this process: PR_SET_THP_DISABLE)" : "");
		hp_buf_printf(b, "THP defrag        %s\n", p->thp_defrag[0] ? p->thp_defrag : "missing");
		hp_buf_printf(b, "max_ptes_none     %d\n", p->max_ptes_none);
		hp_buf_printf(b, "NUMA nodes        %d\n", p->numa_nodes);
		/* cgroup names are anybody's bytes: escaped, as every echoed value */
		hp_buf_printf(b, "cgroup            ");
		hp_buf_escaped(b, p->cgroup[0] ? p->cgroup : "(unknown)", sizeof p->cgroup);
		hp_buf_printf(b, "\n");
		hp_buf_printf(b, "hugetlb pools     page size   total    free    rsvd    surp  overcommit  available  cgroup max\n");
		for (int i = 0; i < p->npools; i++) {
			const struct hp_pool *q = &p->pools[i];
			char cg[200], where[160];
			struct hp_buf cb = { cg, sizeof cg, 0 }, wb = { where, sizeof where, 0 };
			where[0] = '\0';
			hp_buf_escaped(&wb, q->cg_where, sizeof q->cg_where);
			if (q->cg_error) hp_buf_printf(&cb, "unknown, so 0 available (%s)", where);
			else if (q->cg_max >= 0) hp_buf_printf(&cb, "%lld B, %lld B used (%s)", (long long)q->cg_max,
								(long long)q->cg_current, where);
			else hp_buf_printf(&cb, "none (%s)", where);
			hp_buf_printf(b, "                  %6llu kB %7llu %7llu %7llu %7llu %11llu %10llu  %s\n",
				      (unsigned long long)(q->page_size >> 10), (unsigned long long)q->total,
				      (unsigned long long)q->free, (unsigned long long)q->resv,
				      (unsigned long long)q->surp, (unsigned long long)q->overcommit,
				      (unsigned long long)hp_pool_available(q), cg);
		}
		for (int be = 0; be < HP_BACKEND_COUNT; be++) {
			const char *c = auto_choice(p, be, why, sizeof why);
			hp_buf_printf(b, "auto (%-8s)   %s: %s\n", hp_backend_name(be), c, why);
		}
		return;
	}
	hp_buf_printf(b, "{\"kernel\":");
	hp_json_str(b, p->kernel);
	hp_buf_printf(b, ",\"thp\":{\"enabled\":\"%s\",\"defrag\":", hp_thp_name(p->thp_enabled));
	hp_json_str(b, p->thp_defrag[0] ? p->thp_defrag : "missing");
	hp_buf_printf(b, ",\"max_ptes_none\":%d,\"process_disabled\":%s},\"numa_nodes\":%d,\"cgroup\":",
		      p->max_ptes_none, p->thp_process_off ? "true" : "false", p->numa_nodes);
	hp_json_str(b, p->cgroup);
	hp_buf_printf(b, ",\"hugetlb_pools\":[");
	for (int i = 0; i < p->npools; i++) {
		const struct hp_pool *q = &p->pools[i];
		hp_buf_printf(b, "%s{\"page_size\":%llu,\"total\":%llu,\"free\":%llu,\"reserved\":%llu,"
			      "\"surplus\":%llu,\"overcommit\":%llu,\"available\":%llu,\"cgroup_max\":%lld,\"cgroup_current\":%lld,"
			      "\"cgroup_error\":%d,\"cgroup_where\":",
			      i ? "," : "", (unsigned long long)q->page_size, (unsigned long long)q->total,
			      (unsigned long long)q->free, (unsigned long long)q->resv,
			      (unsigned long long)q->surp, (unsigned long long)q->overcommit,
			      (unsigned long long)hp_pool_available(q), (long long)q->cg_max, (long long)q->cg_current, q->cg_error);
		hp_json_str(b, q->cg_where);
		hp_buf_printf(b, "}");
	}
	hp_buf_printf(b, "],\"auto\":{");
	for (int be = 0; be < HP_BACKEND_COUNT; be++) {
		const char *c = auto_choice(p, be, why, sizeof why);
		hp_buf_printf(b, "%s\"%s\":{\"pages\":\"%s\",\"reason\":", be ? "," : "", hp_backend_name(be), c);
		hp_json_str(b, why);
		hp_buf_printf(b, "}");
	}
	hp_buf_printf(b, "}}\n");
}
