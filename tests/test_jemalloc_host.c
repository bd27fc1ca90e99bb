/* test_jemalloc_host.c - a host that itself links Debian's libjemalloc.so.2,
 * as Debian's Blender does, run with libhugepolicy.so preloaded: malloc,
 * free and operator new still bind to hugepolicy, and the host's own
 * jemalloc API keeps working on its own memory. */
#define _GNU_SOURCE
#include "check.h"

#include <dlfcn.h>
#include <jemalloc/jemalloc.h>
#include <string.h>

static const char *owner(const char *sym)
{
	Dl_info info;
	void *p = dlsym(RTLD_DEFAULT, sym);
	return p && dladdr(p, &info) && info.dli_fname ? info.dli_fname : "nowhere";
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	const char *(*backend)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "hugepolicy_backend");
	CHECK_MSG(backend != NULL, "libhugepolicy.so is not preloaded");
	CHECK(strstr(owner("malloc"), "libhugepolicy") != NULL);
	CHECK(strstr(owner("free"), "libhugepolicy") != NULL);
	CHECK(strstr(owner("_Znwm"), "libhugepolicy") != NULL);
	CHECK(strstr(owner("mallocx"), "libjemalloc") != NULL);
	if (backend)
		CHECK_MSG(strcmp(backend(), want) == 0, "backend %s", backend());
	for (int i = 0; i < 1000; i++) {
		char *p = malloc((size_t)(i * 37 + 1));
		memset(p, i, (size_t)(i * 37 + 1));
		void *x = mallocx((size_t)(i + 1), 0);      /* the host's jemalloc, its own memory */
		CHECK(x != NULL);
		dallocx(x, 0);
		free(p);
	}
	char *big = malloc(40u << 20);
	CHECK(big != NULL);
	if (big)
		big[(40u << 20) - 1] = 1;
	free(big);
	return check_result("test_jemalloc_host");
}
