/* test_cstd_errno.c - hugepolicy's start-up (file probing, dlopen of a
 * backend) does not show in errno:
 *   first-allocation: the process's first malloc(0), made with errno set by
 *     a library constructor that runs before hugepolicy's (linked with
 *     test_cstd_errno_lib), leaves errno as it was (errno is unchanged by a
 *     successful malloc);
 *   main-entry: start-up in hugepolicy's own constructor leaves errno 0 for
 *     main (C11 7.5p3: errno is zero at program startup).
 * usage: test_cstd_errno BACKEND first-allocation|main-entry */
#include "check.h"

#include <errno.h>
#include <hugepolicy.h>
#include <string.h>

extern void *cstd_first_block __attribute__((weak));
extern int cstd_errno_before __attribute__((weak)), cstd_errno_after __attribute__((weak));

int main(int argc, char **argv)
{
	int at_main = errno;
	if (argc != 3) {
		fprintf(stderr, "usage: test_cstd_errno BACKEND first-allocation|main-entry\n");
		return 2;
	}
	CHECK_MSG(strcmp(hugepolicy_backend(), argv[1]) == 0, "backend %s, want %s", hugepolicy_backend(), argv[1]);
	if (strcmp(argv[2], "first-allocation") == 0) {
		if (!&cstd_errno_after) {
			fprintf(stderr, "test_cstd_errno: built without test_cstd_errno_lib\n");
			return 2;
		}
		CHECK_MSG(cstd_first_block != NULL, "first malloc(0) = NULL");
		CHECK_MSG(cstd_errno_after == cstd_errno_before, "errno %d before the first malloc(0), %d (%s) after",
			  cstd_errno_before, cstd_errno_after, strerror(cstd_errno_after));
		free(cstd_first_block);
	} else if (strcmp(argv[2], "main-entry") == 0) {
		CHECK_MSG(at_main == 0, "errno %d (%s) when main starts, want 0", at_main, strerror(at_main));
	} else {
		fprintf(stderr, "test_cstd_errno: unknown case %s\n", argv[2]);
		return 2;
	}
	return check_result(argv[2]);
}
