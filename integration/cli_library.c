/*
 * cli_library.c - which libhugepolicy `hugepolicy run` preloads, and the
 * check that it is one.
 *
 * HUGEPOLICY_LIBRARY if set, made absolute (its directory resolved with
 * realpath, so children that change directory still find it); else the
 * versioned soname (libhugepolicy.so.0: the unversioned name is the -dev
 * package's) beside this program (the build tree), in ../lib, ../lib64,
 * ../lib/<multiarch>, then in the install libdir.  The file must be an ELF
 * shared object for this machine whose dynamic symbol table defines
 * hugepolicy_version; it is read, never loaded, so nothing of it runs here.
 */
#define _GNU_SOURCE
#include "hp_cli.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HP_INSTALL_LIBDIR
#define HP_INSTALL_LIBDIR "/usr/local/lib"
#endif
#ifndef HP_SONAME
#define HP_SONAME "libhugepolicy.so.0"
#endif
/* The ELF header of this program: the class and machine a library must have. */
static int own_header(ElfW(Ehdr) *eh)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, eh, sizeof *eh);
	close(fd);
	return n == (ssize_t)sizeof *eh ? 0 : -1;
}

/* Does the mapped file define the function NAME in its .dynsym?  1 yes, 0 no,
 * -1 no section table within the file.  Every offset is checked against the
 * file's size: the file may be anything. */
static int defines(const unsigned char *f, size_t size, const char *name)
{
	const ElfW(Ehdr) *eh = (const void *)f;
	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > size ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(ElfW(Shdr)))
		return -1;
	const ElfW(Shdr) *sh = (const void *)(f + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
			continue;
		const ElfW(Shdr) *str = &sh[sh[i].sh_link];
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
		    str->sh_offset > size || str->sh_size > size - str->sh_offset)
			return -1;
		const ElfW(Sym) *sym = (const void *)(f + sh[i].sh_offset);
		const char *names = (const char *)f + str->sh_offset;
		size_t count = sh[i].sh_size / sizeof(ElfW(Sym));
		for (size_t k = 0; k < count; k++) {
			size_t at = sym[k].st_name;
			if (at >= str->sh_size || sym[k].st_shndx == SHN_UNDEF ||
			    ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC ||
			    ELF64_ST_VISIBILITY(sym[k].st_other) != STV_DEFAULT)
				continue;
			if (memchr(names + at, '\0', str->sh_size - at) && strcmp(names + at, name) == 0)
				return 1;
		}
	}
	return 0;
}

/* NULL if PATH is a libhugepolicy for this machine, else why not. */
static const char *not_hugepolicy(const char *path)
{
	static char why[128];
	ElfW(Ehdr) self;
	struct stat st;
	int found;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);     /* a FIFO must not block */
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(why, sizeof why, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return why;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return S_ISDIR(st.st_mode) ? "a directory, not a shared object" : "not an ELF file";
	}
	size_t size = (size_t)st.st_size;
	const unsigned char *f = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED) {
		snprintf(why, sizeof why, "cannot be read: %s", strerror(errno));
		return why;
	}
	const ElfW(Ehdr) *eh = (const void *)f;
	const char *r = NULL;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		r = "not an ELF file";
	else if (own_header(&self) == 0 && (eh->e_ident[EI_CLASS] != self.e_ident[EI_CLASS] ||
					    eh->e_ident[EI_DATA] != self.e_ident[EI_DATA] ||
					    eh->e_machine != self.e_machine))
		r = "an ELF file for another machine";
	else if (eh->e_type != ET_DYN)
		r = "not a shared object";
	else if ((found = defines(f, size, "hugepolicy_version")) < 0)
		r = "a damaged or truncated ELF file (its section table is not within the file)";
	else if (!found)
		r = "a shared object that is not libhugepolicy (no hugepolicy_version among its "
		    "dynamic symbols)";
	munmap((void *)f, size);
	return r;
}

/* PATH with its directory made absolute and canonical, the file name kept
 * (libhugepolicy.so.0 stays the soname, not the file it links to). */
static int absolute(const char *path, char *out, size_t cap)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (!realpath(dir, real))
		return errno;
	if (*base == '\0' || (size_t)snprintf(out, cap, "%s%s%s", real,
					      strcmp(real, "/") == 0 ? "" : "/", base) >= cap)
		return *base ? ENAMETOOLONG : EISDIR;
	return 0;
}

static int candidate(const char *dir, const char *rel, char *out, size_t cap)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof path, "%s%s/%s", dir, rel, HP_SONAME) >= sizeof path ||
	    access(path, F_OK) != 0)
		return 0;
	return absolute(path, out, cap) == 0;
}

int hp_cli_library(const char *cmd, char *out, size_t cap)
{
	const char *env = getenv("HUGEPOLICY_LIBRARY"), *why;
	if (env && *env) {
		int rc = absolute(env, out, cap);
		why = rc ? strerror(rc) : not_hugepolicy(out);
		if (why) {
			fprintf(stderr, "hugepolicy %s: HUGEPOLICY_LIBRARY=%s: %s\n", cmd, env, why);
			return 1;
		}
		return 0;
	}
	char exe[PATH_MAX];
	int ok = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			static const char *const rel[] = { "", "/../lib", "/../lib64", "/../lib/" HP_MULTIARCH };
			for (size_t i = 0; !ok && i < sizeof rel / sizeof rel[0]; i++)
				ok = candidate(exe, rel[i], out, cap);
		}
	}
	if (!ok)
		ok = candidate(HP_INSTALL_LIBDIR, "", out, cap);
	if (!ok) {
		fprintf(stderr, "hugepolicy %s: %s not found (looked beside this program, in ../lib, "
			"../lib64, ../lib/%s and %s; set HUGEPOLICY_LIBRARY)\n",
			cmd, HP_SONAME, HP_MULTIARCH, HP_INSTALL_LIBDIR);
		return 1;
	}
	if ((why = not_hugepolicy(out)) != NULL) {
		fprintf(stderr, "hugepolicy %s: %s: %s\n", cmd, out, why);
		return 1;
	}
	return 0;
}
