/* archive_member.h - read one member of an archive (CGAL's demo data ships
 * its meshes only inside data.tar.gz), through libarchive. */
#ifndef RENDER_ARCHIVE_MEMBER_H
#define RENDER_ARCHIVE_MEMBER_H

#include <stddef.h>

/* Read the regular file `member` of `archive` (any format and compression
 * libarchive reads) into a malloc'd buffer *data of *len bytes.  Returns 0;
 * ENOENT if the archive or the member is missing; EIO on a read or format
 * error; ENOMEM. */
int archive_read_member(const char *archive, const char *member, char **data, size_t *len);

#endif
