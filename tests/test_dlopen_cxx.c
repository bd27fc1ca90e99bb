/* test_dlopen_cxx.c - a C host that loads C++ code with dlopen: new[] in the
 * plugin, delete[] in the plugin, and memory crossing the boundary, under
 * the backend named in argv[1]. */
#include "check.h"

#include <dlfcn.h>
#include <hugepolicy.h>
#include <malloc.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *want = argc > 2 ? argv[2] : "system";
	if (argc < 2) {
		fprintf(stderr, "usage: test_dlopen_cxx PLUGIN.so BACKEND\n");
		return 2;
	}
	CHECK(strcmp(hugepolicy_backend(), want) == 0);
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	CHECK_MSG(h != NULL, "%s", dlerror());
	if (!h)
		return check_result("test_dlopen_cxx");
	char *(*make)(size_t) = (char *(*)(size_t))dlsym(h, "plugin_make");
	void (*drop)(char *) = (void (*)(char *))dlsym(h, "plugin_drop");
	long (*work)(int) = (long (*)(int))dlsym(h, "plugin_work");
	CHECK(make && drop && work);
	char *p = make(100);
	CHECK(p && p[99] == 'p' && malloc_usable_size(p) >= 100);
	drop(p);
	CHECK(work(20) == 20 * 1000 + 190);        /* sum of 1000 + r for r < 20 */
	char *q = make(5u << 20);                    /* new[] of a huge-page-sized block */
	CHECK(q && q[(5u << 20) - 1] == 'p');
	drop(q);
	char *r = malloc(64);                        /* C memory, C++ delete[]: same allocator */
	free(r);
	CHECK(dlclose(h) == 0);
	return check_result("test_dlopen_cxx");
}
