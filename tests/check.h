/* check.h - the few assertions the tests share.  A failed CHECK prints the
 * expression and carries on; main returns check_result().  Exit 77 = skip
 * (CTest SKIP_RETURN_CODE), always with the reason printed. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		check_failures++; \
	} \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		check_failures++; \
	} \
} while (0)

#define SKIP(...) do { \
	printf("SKIP: "); printf(__VA_ARGS__); printf("\n"); fflush(stdout); exit(77); \
} while (0)

static inline int check_result(const char *name)
{
	printf("%s: %s (%d failed checks)\n", name, check_failures ? "FAIL" : "ok", check_failures);
	return check_failures ? 1 : 0;
}

#endif
