/* san_common.c - shared by the sanitizer drivers. */
#define _GNU_SOURCE
#include "../../policy/hp_policy.h"
#include "san.h"

#include <fcntl.h>
#include <unistd.h>

/* hp_say's lines go nowhere (formatted all the same): log.c takes fd 2 for
 * stderr only while it is the file it was at start-up, and that is
 * /dev/null here; sanitizer reports still reach the real stderr. */
void san_quiet_say(void)
{
	int keep = dup(2), null = open("/dev/null", O_WRONLY);
	dup2(null, 2);
	hp_log_start();
	dup2(keep, 2);
	close(keep);
	close(null);
}
