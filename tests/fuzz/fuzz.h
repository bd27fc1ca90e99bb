/* fuzz.h - shared by the libFuzzer targets in tests/fuzz/. */
#ifndef FUZZ_H
#define FUZZ_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../policy/hp_policy.h"

/* A property that must hold for every input: a failure is a crash, and
 * libFuzzer keeps the input. */
#define FZ_CHECK(c) do { \
	if (!(c)) { \
		fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #c); \
		abort(); \
	} \
} while (0)

/* hp_say formats every line but drops it: log.c writes to fd 2 only while it
 * is the file it was at start-up, which was /dev/null. */
static inline void fz_quiet_say(void)
{
	int keep = dup(2), null = open("/dev/null", O_WRONLY);
	dup2(null, 2);
	hp_log_start();
	dup2(keep, 2);
	close(keep);
	close(null);
}

#endif
