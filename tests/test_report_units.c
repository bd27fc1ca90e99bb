/* test_report_units.c - report.c's escaping and log.c's paths, white-box.
 *   test_report_units escape   hp_buf_escaped / hp_json_str on every kind of
 *                              byte: controls, valid and invalid UTF-8, caps
 *   test_report_units log      hp_log_set: %p is the pid, %% is %, a relative
 *                              path is taken from the directory at set time,
 *                              a too-long one is refused; hp_say's line there */
#define _GNU_SOURCE
#include "../policy/hp_policy.h"
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *esc(const char *s, size_t max, size_t cap)
{
	static char out[512];
	struct hp_buf b = { out, cap, 0 };
	out[0] = '\0';
	hp_buf_escaped(&b, s, max);
	return out;
}

static const char *json(const char *s)
{
	static char out[512];
	struct hp_buf b = { out, sizeof out, 0 };
	out[0] = '\0';
	hp_json_str(&b, s);
	return out;
}

#define SAME(got, want) CHECK_MSG(strcmp(got, want) == 0, "got '%s', want '%s'", got, want)

static void escaping(void)
{
	SAME(esc("a\nb\rc\td\\e\x1b\x7f\x01", 64, 512), "a\\nb\\rc\\td\\\\e\\x1b\\x7f\\x01");
	SAME(esc("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 64, 512), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	SAME(esc("\xff\xfe", 64, 512), "\\xff\\xfe");
	SAME(esc("\xc0\xaf", 64, 512), "\\xc0\\xaf");                  /* overlong '/' */
	SAME(esc("\xe0\x80\xaf", 64, 512), "\\xe0\\x80\\xaf");         /* overlong, 3 bytes */
	SAME(esc("\xed\xa0\x80", 64, 512), "\\xed\\xa0\\x80");         /* surrogate U+D800 */
	SAME(esc("\xf4\x90\x80\x80", 64, 512), "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	SAME(esc("\xe2\x82", 64, 512), "\\xe2\\x82");                  /* cut sequence */
	SAME(esc("\xc2\x9b" "2J", 64, 512), "\\xc2\\x9b2J");            /* C1 CSI */
	SAME(esc("\xc2\xa0", 64, 512), "\xc2\xa0");                    /* U+00A0 is text */
	SAME(esc("a\xe2\x80\xae" "b\xe2\x81\xa6" "c\xe2\x80\x8f", 64, 512), "a\\u202eb\\u2066c\\u200f"); /* bidi */
	SAME(esc("\xe2\x80\x94", 64, 512), "\xe2\x80\x94");                /* U+2014 is text */
	SAME(json("\xe2\x80\xae"), "\"\\u202e\"");
	char many[101];
	memset(many, 'a', 100);
	many[100] = '\0';
	const char *cut = esc(many, 64, 512);
	CHECK(strlen(cut) == 67 && strcmp(cut + 64, "...") == 0 && strspn(cut, "a") == 64);
	SAME(esc("aaa\xe2\x82\xac", 5, 512), "aaa...");                /* never half a character */
	SAME(esc("aaaa\n", 5, 512), "aaaa...");                        /* never half an escape */
	SAME(esc("aaaaa", 5, 512), "aaaaa");                           /* exactly max: no "..." */
	SAME(esc("\n\n\n\n\n\n", 64, 10), "\\n\\n\\n...");              /* a full buffer too */

	SAME(json("a\"b\\c\n\x01\x7f"), "\"a\\\"b\\\\c\\n\\u0001\\u007f\"");
	SAME(json("caf\xc3\xa9 \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
	SAME(json("x\xff\xc0\xafy\xed\xa0\x80"), "\"x\\ufffd\\ufffd\\ufffdy\\ufffd\\ufffd\\ufffd\"");
}

static int file_has(const char *path, const char *want)
{
	char got[512];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, got, sizeof got - 1);
	close(fd);
	got[n > 0 ? n : 0] = '\0';
	CHECK_MSG(strstr(got, want) != NULL, "%s has '%s', want '%s'", path, got, want);
	return strstr(got, want) != NULL;
}

static void log_paths(const char *dir)
{
	char tmpl[600], path[700], sub[600];
	snprintf(tmpl, sizeof tmpl, "%s/unit.%%p.%%%%", dir);
	snprintf(path, sizeof path, "%s/unit.%d.%%", dir, (int)getpid());
	CHECK(hp_log_set(tmpl) == 0);
	hp_say("one\ntwo");
	CHECK(file_has(path, "]: one\\ntwo\n"));

	/* relative: the directory current at set time, not at write time */
	snprintf(sub, sizeof sub, "%s/rel.log", dir);
	CHECK(chdir(dir) == 0);
	CHECK(hp_log_set("rel.log") == 0);
	CHECK(chdir("/") == 0);
	hp_say("relative");
	CHECK(file_has(sub, "]: relative\n"));

	char longp[HP_LOG_PATH_MAX + 1];
	memset(longp, 'x', sizeof longp - 1);
	longp[sizeof longp - 1] = '\0';
	CHECK(hp_log_set(longp) == ENAMETOOLONG);
	struct hp_options o;
	hp_options_defaults(&o);
	CHECK(hp_option_table[HP_OPT_LOG].parse(longp, &o) == -1);
	CHECK(hp_option_table[HP_OPT_LOG].parse("/tmp/x.%p", &o) == 0 && strcmp(o.log, "/tmp/x.%p") == 0);
	CHECK(hp_log_set("") == 0);
	unlink(path);
	unlink(sub);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "escape") == 0)
		escaping();
	else if (argc == 2 && strcmp(argv[1], "log") == 0) {
		char dir[] = "/tmp/hp_report_units.XXXXXX";
		if (!mkdtemp(dir))
			SKIP("mkdtemp: %s", strerror(errno));
		log_paths(dir);
		CHECK(rmdir(dir) == 0);
	} else
		return 2;
	return check_result("test_report_units");
}
