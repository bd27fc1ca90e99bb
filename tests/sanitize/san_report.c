/* san_report.c - report.c's text under the sanitizers: hp_buf_escaped and
 * hp_json_str on every byte pair and random strings into exactly-sized heap
 * buffers of every small cap, hp_buf_printf/hp_strlcpy truncation, and
 * hp_say's lines read back from a pipe (a FIFO named by hp_log_set). */
#define _GNU_SOURCE
#include "../../policy/hp_policy.h"
#include "../check.h"
#include "san.h"
#include "textcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void escaped(const char *s, size_t max, size_t cap)
{
	char *out = malloc(cap);
	struct hp_buf b = { out, cap, 0 };
	out[0] = '\0';
	hp_buf_escaped(&b, s, max);
	CHECK(b.len < cap && out[b.len] == '\0' && strlen(out) == b.len);
	CHECK_MSG(tc_printable(out, b.len), "escaped '%s'", out);
	/* at most max bytes of escapes, then "..." */
	CHECK(b.len <= max + 3);
	free(out);
}

static void json(const char *s, size_t cap)
{
	char *out = malloc(cap);
	struct hp_buf b = { out, cap, 0 };
	out[0] = '\0';
	hp_json_str(&b, s);
	CHECK(b.len < cap && out[b.len] == '\0');
	/* a JSON string that fits whole is valid JSON (6 bytes per input byte at most) */
	if (cap > 6 * strlen(s) + 3)
		CHECK_MSG(tc_json_string(out, b.len), "json %s", out);
	free(out);
}

static void escaping(void)
{
	char s[4] = { 0 };
	for (int a = 1; a < 256; a++)
		for (int c = 0; c < 256; c++) {
			s[0] = (char)a, s[1] = (char)c;
			escaped(s, 64, 80);
			escaped(s, (size_t)(c % 9), 6 + (size_t)(a % 5));
			json(s, 32);
		}
	unsigned seed = 777;
	static const unsigned char pick[] = { 'a', '\n', '\\', '"', 0x1b, 0x7f, 0xc2, 0x9b, 0xa0, 0xe2, 0x82,
					      0xac, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0xf4, 0x90, 0xff, 0x01 };
	for (int round = 0; round < 30000; round++) {
		char str[48];
		seed = seed * 1103515245u + 12345u;
		size_t len = (seed >> 16) % (sizeof str - 1);
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			str[i] = (char)pick[(seed >> 16) % sizeof pick];
		}
		str[len] = '\0';
		escaped(str, (seed >> 8) % 80, 1 + (seed >> 4) % 90);
		json(str, 1 + (seed >> 12) % 300);
	}
	for (size_t cap = 1; cap < 12; cap++) {
		char *out = malloc(cap);
		struct hp_buf b = { out, cap, 0 };
		out[0] = '\0';
		hp_buf_printf(&b, "%s %d %llu", "truncated", -12345, 18446744073709551615ull);
		hp_buf_printf(&b, "%s", "more");
		CHECK(b.len < cap && out[b.len] == '\0' && strlen(out) == b.len);
		hp_strlcpy(out, "0123456789abcdef", cap);
		CHECK(strlen(out) == cap - 1);
		free(out);
	}
	hp_strlcpy(NULL, "never written", 0);
}

/* hp_say through a FIFO: every message is one line, prefixed, whatever it holds */
static void say_lines(void)
{
	char dir[] = "/tmp/san_say.XXXXXX", fifo[64];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof fifo, "%s/pipe", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);    /* a reader, so the writer's open does not block */
	CHECK(rd >= 0);
	CHECK(hp_log_set(fifo) == 0);
	char huge[2000];
	memset(huge, 'x', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';
	huge[700] = '\n';
	const char *msgs[] = { "plain", "two\nlines\r\n", "\x1b]0;title\x07", "caf\xc3\xa9 \xff\xfe",
			       "%s %n", huge, "", "\xc2\x9b" "2J", NULL };
	for (int i = 0; msgs[i]; i++) {
		char line[4096];
		hp_say("message %d: %s", i, msgs[i]);
		ssize_t n = read(rd, line, sizeof line);
		CHECK_MSG(n > 0, "message %d: nothing read (%s)", i, strerror(errno));
		if (n <= 0)
			continue;
		CHECK(memchr(line, '\n', (size_t)n) == line + n - 1);
		CHECK(n <= HP_SAY_MAX);
		CHECK(strncmp(line, "hugepolicy[", 11) == 0);
		CHECK_MSG(tc_printable(line, (size_t)n - 1), "line %.*s", (int)n, line);
	}
	char rest[16];      /* nothing else: EOF (no writer now) or EAGAIN */
	CHECK(read(rd, rest, sizeof rest) <= 0);
	/* a log path longer than the template buffer is refused, and stderr used */
	char longp[HP_LOG_PATH_MAX + 10];
	memset(longp, 'l', sizeof longp - 1);
	longp[sizeof longp - 1] = '\0';
	CHECK(hp_log_set(longp) == ENAMETOOLONG);
	CHECK(hp_log_set("") == 0);
	close(rd);
	unlink(fifo);
	rmdir(dir);
}

void san_report(void)
{
	escaping();
	say_lines();
	san_failed += check_failures;
}
