/* vfs.h - the files hugepolicy's /proc, /sys and cgroupfs parsers open,
 * served from the fuzz input instead of the machine.
 *
 * The fuzz targets are linked with -Wl,--wrap=open,--wrap=read,--wrap=close,--wrap=fstat,
 * --wrap=syscall: every read-only open(2) of an absolute path that policy/
 * and pages/pages.c make (under VFS_ROOT, stripped, in root mode) is
 * answered from the loaded files, never the machine's, with a descriptor
 * no real file has, on which read(2) returns
 * the file's bytes (whole, or for some inputs in odd-sized pieces, as a pipe
 * or seq_file may), then end of file; ENOENT when the input has no such
 * file.  A directory is any prefix of a loaded path, and getdents64(2) on it
 * lists its children.  Anything opened for writing (HUGEPOLICY_LOG files)
 * goes to /dev/null; relative paths pass through.  So the parsers run
 * unchanged, on any bytes, without a file system tree or a system call per
 * file.
 *
 * Input format (vfs_load): files separated by NUL bytes, each "PATH\n" then
 * its exact content (a content without a trailing newline is kept as is):
 *   /proc/self/cgroup\n0::/a\n\0/proc/self/mountinfo\n...\n\0...
 */
#ifndef VFS_H
#define VFS_H

#include <stddef.h>
#include <stdint.h>

#define VFS_ROOT "/fuzzroot"
#define VFS_MAX_FILES 96
#define VFS_MAX_BYTES 65536     /* per file */

/* Replace the loaded files by those in data (copied). */
void vfs_load(const uint8_t *data, size_t size);
/* Replace the loaded files by one file. */
void vfs_load_one(const char *path, const uint8_t *data, size_t size);
/* Files loaded now. */
int vfs_count(void);
/* A loaded file's bytes, or NULL. */
const uint8_t *vfs_find(const char *path, size_t *len);
/* 1: opens must name VFS_ROOT/PATH for PATH (a caller given a root
 * directory); 0: PATH itself.  Anything else is ENOENT. */
void vfs_under_root(int on);

#endif
