/* temp_file.h - stand-in for glibc's <support/temp_file.h>.  Files are
 * made in $TMPDIR, which the test driver points at a directory of its own
 * and removes with everything in it when the test ends. */
#ifndef HP_GLIBC_SUPPORT_TEMP_FILE_H
#define HP_GLIBC_SUPPORT_TEMP_FILE_H

/* Create and open (O_RDWR) a new file named BASE + random suffix; store
 * its malloc'ed name in *FILENAME if FILENAME is not NULL.  -1 on error. */
int create_temp_file(const char *base, char **filename);

#endif
