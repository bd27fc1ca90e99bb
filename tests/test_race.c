/* test_race.c - threads race on the first allocation of the process
 * (started by libracer.so's constructor, before hugepolicy's own) and every
 * one of them gets working memory from the one backend chosen. */
#include "check.h"

#include <hugepolicy.h>
#include <string.h>

extern int racer_ok, racer_threads;

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	CHECK_MSG(racer_ok == racer_threads, "%d of %d threads ok", racer_ok, racer_threads);
	CHECK(strcmp(hugepolicy_backend(), want) == 0);
	return check_result("test_race");
}
