/*
 * version.c - hugepolicy_version(): the version CMake's project() gives.
 */
#include "hp_dispatch.h"

#ifndef HP_VERSION
#error "HP_VERSION comes from CMakeLists.txt (project VERSION)"
#endif

HP_EXPORT const char *hugepolicy_version(void)
{
	return HP_VERSION;
}
