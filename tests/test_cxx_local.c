/* test_cxx_local.c - a C host (no libstdc++ linked) that links hugepolicy
 * and loads C++ code with dlopen(RTLD_LOCAL), as Python loads extensions:
 * the C++ runtime is then not in the global scope, and operator new's out
 * of memory path must still find it.
 *
 *   test_cxx_local BACKEND MODULE.so CASE [static]   run the module's case
 *        CASE; `static`: the module has libstdc++ linked in statically, no
 *        C++ runtime library is loaded at all
 *   test_cxx_local BACKEND MODULE.so c_nothrow_finds_local_runtime
 *        nothrow new called from C finds the module's runtime by its name
 *        and calls the new_handler the module installed
 *   test_cxx_local BACKEND - no_runtime_nothrow    no C++ runtime at all:
 *        nothrow new returns NULL
 *   test_cxx_local BACKEND - no_runtime_abort      no C++ runtime at all:
 *        throwing new aborts with one line (in a child)
 */
#define _GNU_SOURCE
#include "check.h"

#include <dlfcn.h>
#include <hugepolicy.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* hugepolicy's operators, by their Itanium-ABI names */
void *new_plain(size_t n) __asm__("_Znwm");
void *new_nothrow(size_t n, const void *nt) __asm__("_ZnwmRKSt9nothrow_t");
void *new_array_nothrow(size_t n, const void *nt) __asm__("_ZnamRKSt9nothrow_t");
void *new_aligned_nothrow(size_t n, size_t a, const void *nt) __asm__("_ZnwmSt11align_val_tRKSt9nothrow_t");
void *new_array_aligned_nothrow(size_t n, size_t a, const void *nt) __asm__("_ZnamSt11align_val_tRKSt9nothrow_t");

static const char nothrow_tag;                  /* std::nothrow_t is empty */
static volatile size_t over_ptrdiff = (size_t)PTRDIFF_MAX + 1;

static int cxx_loaded_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (info->dlpi_name && (strstr(info->dlpi_name, "libstdc++") || strstr(info->dlpi_name, "libc++")))
		*(int *)arg = 1;
	return 0;
}

static int cxx_runtime_loaded(void)
{
	int found = 0;
	dl_iterate_phdr(cxx_loaded_cb, &found);
	return found;
}

static int no_runtime_nothrow(void)
{
	CHECK(new_nothrow(over_ptrdiff, &nothrow_tag) == NULL);
	CHECK(new_array_nothrow(over_ptrdiff, &nothrow_tag) == NULL);
	CHECK(new_aligned_nothrow(over_ptrdiff, 64, &nothrow_tag) == NULL);
	CHECK(new_array_aligned_nothrow(over_ptrdiff, 4096, &nothrow_tag) == NULL);
	void *p = new_nothrow(100, &nothrow_tag);      /* and it still allocates */
	CHECK(p != NULL);
	free(p);
	return check_result("no_runtime_nothrow");
}

/* The child is this program again with fd 2 a pipe from its start (the
 * library writes to fd 2 only if it is the file it was at start-up). */
static int no_runtime_abort(const char *backend)
{
	int fds[2];
	CHECK(pipe(fds) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		execl("/proc/self/exe", "test_cxx_local", backend, "-", "no_runtime_abort_child", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char msg[512] = "";
	size_t len = 0;
	ssize_t r;
	while (len < sizeof msg - 1 && (r = read(fds[0], msg + len, sizeof msg - 1 - len)) > 0)
		len += (size_t)r;
	msg[len] = '\0';
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "status 0x%x", status);
	CHECK_MSG(strstr(msg, "no C++ runtime to throw std::bad_alloc") != NULL, "stderr: %s", msg);
	char *nl = strchr(msg, '\n');
	CHECK_MSG(nl && nl[1] == '\0', "one line expected: %s", msg);
	return check_result("no_runtime_abort");
}

int main(int argc, char **argv)
{
	if (argc != 4 && !(argc == 5 && strcmp(argv[4], "static") == 0)) {
		fprintf(stderr, "usage: test_cxx_local BACKEND MODULE.so|- CASE [static]\n");
		return 2;
	}
	const char *cas = argv[3];
	int is_static = argc == 5;
	CHECK(strcmp(hugepolicy_backend(), argv[1]) == 0);
	CHECK_MSG(!cxx_runtime_loaded(), "this C host must not load a C++ runtime itself");
	if (strcmp(cas, "no_runtime_nothrow") == 0)
		return no_runtime_nothrow();
	if (strcmp(cas, "no_runtime_abort") == 0)
		return no_runtime_abort(argv[1]);
	if (strcmp(cas, "no_runtime_abort_child") == 0) {
		new_plain(over_ptrdiff);
		return 0;               /* not reached if it aborts */
	}

	void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	CHECK_MSG(h != NULL, "%s", dlerror());
	if (!h)
		return check_result(cas);
	/* the situation under test: a C++ runtime is loaded, but not globally
	 * (static: inside the module, found only through the caller) */
	CHECK(cxx_runtime_loaded() == !is_static);
	CHECK(dlsym(h, "_ZSt15get_new_handlerv") != NULL);
	CHECK(dlsym(RTLD_DEFAULT, "_ZSt15get_new_handlerv") == NULL);
	CHECK(dlsym(RTLD_DEFAULT, "_ZSt17__throw_bad_allocv") == NULL);

	if (strcmp(cas, "c_nothrow_finds_local_runtime") == 0) {
		void (*install)(void) = (void (*)(void))dlsym(h, "cxx_local_install_throwing_handler");
		int (*calls)(void) = (int (*)(void))dlsym(h, "cxx_local_handler_calls");
		CHECK(install && calls);
		if (install && calls) {
			install();
			CHECK(new_nothrow(over_ptrdiff, &nothrow_tag) == NULL);
			CHECK_MSG(calls() == 1, "handler called %d times", calls());
			CHECK(new_array_aligned_nothrow(over_ptrdiff, 64, &nothrow_tag) == NULL);
			CHECK_MSG(calls() == 2, "handler called %d times", calls());
		}
	} else {
		int (*run)(const char *) = (int (*)(const char *))dlsym(h, "cxx_local_run");
		CHECK(run != NULL);
		if (run)
			CHECK(run(cas) == 0);
	}
	CHECK(dlclose(h) == 0);
	return check_result(cas);
}
