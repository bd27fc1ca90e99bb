/* consumer.c - a C host of an installed hugepolicy: its malloc is
 * hugepolicy's; prints what the library says, and where it was loaded from:
 *   version=0.1.0 backend=jemalloc pages=thp allocated=known lib=/usr/lib/... */
#include <hugepolicy.h>

#include <stdlib.h>
#include <string.h>

#include "consumer_where.h"

int main(void)
{
	char *p = malloc(8 << 20);
	if (!p)
		return 1;
	memset(p, 1, 8 << 20);
	struct hugepolicy_stats st = { .size = sizeof st };
	int rc = hugepolicy_stats(&st);
	char lib[4096];
	printf("version=%s backend=%s pages=%s stats=%d allocated=%s lib=%s\n",
	       hugepolicy_version(), hugepolicy_backend(), hugepolicy_pages(), rc,
	       st.allocated == HUGEPOLICY_UNKNOWN ? "unknown" : st.allocated >= (8u << 20) ? "known" : "low",
	       consumer_where(lib, sizeof lib));
	free(p);
	return rc;
}
