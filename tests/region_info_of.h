/* region_info_of.h - hugepolicy_region_info() into a fresh struct, checked,
 * for the region tests (Linux and the mingw build). */
#ifndef REGION_INFO_OF_H
#define REGION_INFO_OF_H

#include "check.h"
#include "hugepolicy.h"

#include <string.h>

static inline struct hugepolicy_region_info info_of(const void *p)
{
	struct hugepolicy_region_info in;
	memset(&in, 0, sizeof in);
	in.size = sizeof in;
	CHECK(hugepolicy_region_info(p, &in) == 0);
	return in;
}

#endif
