/* fuzz_readlines.c - policy/readfile.c's readers on a fuzzed file: byte 0
 * picks the buffer size (2..257), the rest is the file.
 * Properties (hp_read_lines): the lines handed over are, in order, the
 * file's lines without their newline, a line longer than the buffer is
 * handed over once, cut to cap-1 bytes, with whole = 0; the result is EINVAL
 * exactly when the file does not end in a newline.  hp_read_small returns
 * the file's first cap-1 bytes; hp_read_line accepts a file of one line that
 * fits, and nothing else. */
#include "fuzz.h"
#include "vfs.h"

#include <errno.h>
#include <string.h>

static const uint8_t *file;
static size_t file_len, at;

static int next_line(void *ctx, char *line, size_t len, int whole)
{
	size_t cap = *(size_t *)ctx;
	const uint8_t *nl = memchr(file + at, '\n', file_len - at);
	size_t real = nl ? (size_t)(nl - (file + at)) : file_len - at;
	FZ_CHECK(at < file_len && line[len] == '\0');
	FZ_CHECK(whole ? len == real && real < cap - 1 : len == cap - 1 && real >= cap - 1);
	FZ_CHECK(memcmp(line, file + at, len) == 0);
	at += real + (nl != NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t cap = (size_t)data[0] + 2;
	file = data + 1, file_len = size - 1;
	if (file_len > VFS_MAX_BYTES)
		return 0;
	vfs_load_one("/proc/fuzz/lines", file, file_len);
	char *buf = malloc(cap);
	at = 0;
	int rc = hp_read_lines("/proc/fuzz/lines", buf, cap, next_line, &cap);
	int ends_nl = file_len > 0 && file[file_len - 1] == '\n';
	FZ_CHECK(rc == (file_len == 0 || ends_nl ? 0 : EINVAL));
	FZ_CHECK(rc != 0 || at == file_len);

	int n = hp_read_small("/proc/fuzz/lines", buf, cap);
	size_t want = file_len < cap - 1 ? file_len : cap - 1;
	FZ_CHECK(n == (int)want && buf[n] == '\0' && memcmp(buf, file, want) == 0);
	const char *why = NULL;
	n = hp_read_line("/proc/fuzz/lines", buf, cap, &why);
	const uint8_t *nl = memchr(file, '\n', file_len);
	int one_line = ends_nl && nl == file + file_len - 1 && file_len < cap - 1;
	if (one_line)
		FZ_CHECK(n == (int)file_len - 1 && memcmp(buf, file, (size_t)n) == 0);
	else
		FZ_CHECK(n < 0 || (ends_nl && file_len < cap - 1));
	free(buf);
	return 0;
}
