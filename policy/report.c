/*
 * report.c - everything hugepolicy prints: one-line messages, escaping,
 * JSON strings (the probe's text/JSON is probe_format.c's).  Output may happen before
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

/* U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069: the bidirectional
 * controls that reorder what a terminal shows ("Trojan Source"); the code
 * point of a valid n-byte sequence at s, or 0. */
static unsigned bidi_control(const unsigned char *s, size_t n)
{
	if (n == 2 && s[0] == 0xd8 && s[1] == 0x9c)
		return 0x61c;
	if (n != 3 || s[0] != 0xe2)
		return 0;
	unsigned cp = 0x2000u | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3fu);
	return (cp >= 0x200e && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)
		       ? cp : 0;
}

/* Append s so that it cannot end a line, forge one or drive a terminal:
 * \n \r \t, \xNN for other C0 controls, DEL, C1 controls (U+0080-U+009F)
 * and bytes that are not valid UTF-8, \uXXXX for bidirectional controls;
 * with `backslash`, \ as \\ too (so the text can be told from an escape).
 * At most max bytes; a longer s ends in "...". */
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
		unsigned bidi = bidi_control(s, n);
		if (bidi) {
			static const char hex[] = "0123456789abcdef";
			rep[0] = '\\'; rep[1] = 'u';
			for (int i = 0; i < 4; i++)
				rep[2 + i] = hex[(bidi >> (12 - 4 * i)) & 15];
			len = 6;
		} else if (n > 1) {
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

void hp_buf_prefix_of(struct hp_buf *b, const char *name, int pid)
{
	hp_buf_printf(b, "hugepolicy[");
	escape(b, name, 64, 1);
	hp_buf_printf(b, " %d]: ", pid);
}

void hp_buf_prefix(struct hp_buf *b)
{
	hp_buf_prefix_of(b, hp_program(), (int)getpid());
}

void hp_say(const char *fmt, ...)
{
	char msg[HP_SAY_MAX - 128], line[HP_SAY_MAX];   /* 128: the prefix's name (64 B) and pid */
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
		else if (bidi_control(s, n)) hp_buf_printf(b, "\\u%04x", bidi_control(s, n));
		else put(b, s, n);
		s += n;
	}
	hp_buf_printf(b, "\"");
}
