/* test_symbol_scope.c - run with libhugepolicy.so preloaded (or linked):
 * the only allocator entry points in the global scope are hugepolicy's; no
 * backend name (jemalloc's mallocx/mallctl, mimalloc's mi_*, the renamed
 * hpje_*) is visible, whichever backend runs. */
#define _GNU_SOURCE
#include "check.h"

#include <dlfcn.h>
#include <string.h>

static const char *owner(const char *sym)
{
	Dl_info info;
	void *p = dlsym(RTLD_DEFAULT, sym);
	if (!p)
		return NULL;
	return dladdr(p, &info) && info.dli_fname ? info.dli_fname : "?";
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	const char *(*backend)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "hugepolicy_backend");
	CHECK_MSG(backend != NULL, "libhugepolicy.so is not loaded");
	if (!backend)
		return check_result("test_symbol_scope");
	void *p = malloc(100);           /* make sure the backend is running */
	free(p);
	CHECK_MSG(strcmp(backend(), want) == 0, "backend %s want %s", backend(), want);
	static const char *const ours[] = { "malloc", "free", "calloc", "realloc", "posix_memalign",
		"aligned_alloc", "memalign", "valloc", "pvalloc", "malloc_usable_size", "reallocarray",
		"__libc_malloc", "__libc_free", "__libc_calloc", "__libc_realloc", "__libc_memalign",
		"_Znwm", "_ZdlPv", "_Znam", "_ZdaPv", "_ZnwmSt11align_val_t", "_ZdlPvmSt11align_val_t" };
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
		const char *o = owner(ours[i]);
		CHECK_MSG(o && strstr(o, "libhugepolicy"), "%s comes from %s", ours[i], o ? o : "nowhere");
	}
	static const char *const hidden[] = { "mallocx", "dallocx", "sdallocx", "rallocx", "mallctl",
		"malloc_stats_print", "je_malloc", "hpje_malloc", "hpje_mallctl", "malloc_conf",
		"mi_malloc", "mi_free", "mi_option_set", "mi_process_info", "mi_reserve_os_memory" };
	for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
		const char *o = owner(hidden[i]);
		CHECK_MSG(o == NULL, "%s is visible, from %s", hidden[i], o);
	}
	return check_result("test_symbol_scope");
}
