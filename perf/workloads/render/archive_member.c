/* archive_member.c - one member of a .tar.gz into memory, with libarchive. */
#include "archive_member.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int archive_read_member(const char *path, const char *member, char **data, size_t *len)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int rc = ENOENT;
	if (!a)
		return ENOMEM;
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		archive_read_free(a);
		return ENOENT;
	}
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		if (strncmp(name, "./", 2) == 0)
			name += 2;
		if (strcmp(name, member) != 0 || archive_entry_filetype(e) != AE_IFREG)
			continue;
		size_t n = (size_t)archive_entry_size(e);
		char *buf = malloc(n + 1);
		if (!buf) {
			rc = ENOMEM;
			break;
		}
		la_ssize_t got = archive_read_data(a, buf, n);
		if (got < 0 || (size_t)got != n) {
			free(buf);
			rc = EIO;
			break;
		}
		buf[n] = '\0';
		*data = buf;
		*len = n;
		rc = 0;
		break;
	}
	archive_read_free(a);
	return rc;
}
