/*
 * cli_version.c - `hugepolicy --version` / `hugepolicy version`: one line
 * each for hugepolicy, the embedded jemalloc, the mimalloc the library would
 * dlopen, and glibc.
 *
 * Nothing of libhugepolicy runs here.  jemalloc's version is the one of the
 * header its embedded archive came with (Debian's libjemalloc-dev, the same
 * package); mimalloc's is mi_version() of libmimalloc.so.2 as dlopen finds it,
 * asked in a forked child so that mimalloc's constructor (and whatever
 * MIMALLOC_* asks it to do) never runs in this process.
 */
#define _GNU_SOURCE
#include "hp_cli.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef HP_VERSION
#error "HP_VERSION comes from CMakeLists.txt (project VERSION)"
#endif
#ifndef HP_JEMALLOC_VERSION
#if defined(__has_include)
#if __has_include(<jemalloc/jemalloc.h>)
#include <jemalloc/jemalloc.h>
#define HP_JEMALLOC_VERSION JEMALLOC_VERSION
#endif
#endif
#endif
#ifndef HP_JEMALLOC_VERSION
#define HP_JEMALLOC_VERSION "unknown"
#endif
#define MIMALLOC_SONAME "libmimalloc.so.2"   /* what backends/mimalloc/mimalloc.c dlopens */

const char hp_usage_version[] =
	"usage: hugepolicy version   (or hugepolicy --version)\n"
	"Prints, one per line: hugepolicy X.Y.Z; jemalloc <version> (embedded);\n"
	"mimalloc <version> (<path>) or mimalloc not found (<why>); glibc <version>.\n";

/* In the child: "<version> (<path>)" or "not found (<why>)" into buf. */
static void ask_mimalloc(char *buf, size_t cap)
{
	void *h = dlopen(MIMALLOC_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(buf, cap, "not found (%s)", e ? e : MIMALLOC_SONAME ": cannot be loaded");
		return;
	}
	int (*version)(void) = (int (*)(void))dlsym(h, "mi_version");
	struct link_map *lm = NULL;
	const char *path = dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name[0] ? lm->l_name
											: MIMALLOC_SONAME;
	if (!version) {
		snprintf(buf, cap, "not found (%s has no mi_version)", path);
		return;
	}
	int v = version();      /* 209: 2.0.9 */
	snprintf(buf, cap, "%d.%d.%d (%s)", v / 100, v / 10 % 10, v % 10, path);
}

void hp_cli_mimalloc_line(char *buf, size_t cap)
{
	int fds[2];
	snprintf(buf, cap, "not found (the child that looked for it failed)");
	if (pipe2(fds, O_CLOEXEC) != 0)
		return;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {        /* mimalloc's own warnings are not ours to print */
			dup2(null, 1);
			dup2(null, 2);
		}
		char line[4096];
		ask_mimalloc(line, sizeof line);
		ssize_t w = write(fds[1], line, strlen(line));
		_exit(w < 0);
	}
	close(fds[1]);
	if (pid > 0) {
		size_t len = 0;
		ssize_t n;
		char tmp[4096];
		while (len < sizeof tmp - 1 && ((n = read(fds[0], tmp + len, sizeof tmp - 1 - len)) > 0 ||
						(n < 0 && errno == EINTR)))
			len += n > 0 ? (size_t)n : 0;
		tmp[len] = '\0';
		int status;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (len)
			snprintf(buf, cap, "%s", tmp);
	}
	close(fds[0]);
}

int hp_cli_version(int argc, char **argv)
{
	if (argc > 0) {
		if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
			fputs(hp_usage_version, stdout);
			return 0;
		}
		fprintf(stderr, "hugepolicy version: unexpected argument '%s'\n%s", argv[0], hp_usage_version);
		return 2;
	}
	char mi[4096];
	hp_cli_mimalloc_line(mi, sizeof mi);
	printf("hugepolicy %s\n", HP_VERSION);
	printf("jemalloc %s (embedded)\n", HP_JEMALLOC_VERSION);
	printf("mimalloc %s\n", mi);
	printf("glibc %s\n", gnu_get_libc_version());
	return fflush(stdout) == 0 ? 0 : 1;
}
