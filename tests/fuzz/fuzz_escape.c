/* fuzz_escape.c - everything hugepolicy prints from outside text
 * (policy/report.c): hp_buf_escaped, hp_json_str and hp_say, on fuzzed
 * bytes.  Input: byte 0 = max, byte 1 = buffer room, then the text.
 * Properties: escaped text is valid UTF-8 without control bytes, at most
 * max bytes plus "...", NUL-terminated inside its room; a JSON string with
 * room for it is one valid JSON string literal; hp_say survives anything. */
#include "fuzz.h"
#include "../sanitize/textcheck.h"

#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fz_quiet_say();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t max = data[0], room = (size_t)data[1] + 1;
	char *s = malloc(size - 1);
	memcpy(s, data + 2, size - 2);
	s[size - 2] = '\0';

	char *out = malloc(room);
	struct hp_buf b = { out, room, 0 };
	out[0] = '\0';
	hp_buf_escaped(&b, s, max);
	FZ_CHECK(b.len < room && out[b.len] == '\0' && strlen(out) == b.len);
	FZ_CHECK(b.len <= max + 3 && tc_printable(out, b.len));
	free(out);

	size_t big = 6 * strlen(s) + 3;
	out = malloc(big);
	b = (struct hp_buf){ out, big, 0 };
	out[0] = '\0';
	hp_json_str(&b, s);
	FZ_CHECK(b.len < big && tc_json_string(out, b.len));
	free(out);

	out = malloc(room);
	b = (struct hp_buf){ out, room, 0 };
	out[0] = '\0';
	hp_json_str(&b, s);
	FZ_CHECK(b.len < room && out[b.len] == '\0');
	free(out);

	hp_say("fuzz %s", s);
	free(s);
	return 0;
}
