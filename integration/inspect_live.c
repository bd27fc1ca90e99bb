/*
 * inspect_live.c - the live report of another process that runs
 * libhugepolicy (hp_live.h), for `hugepolicy inspect`: the
 * library's file from /proc/PID/maps, the address of its `hugepolicy_live`
 * from the file's ELF dynamic symbol table plus the load bias that maps
 * shows, then a seqlock read of the block through process_vm_readv, or
 * /proc/PID/mem where that is refused.  Only reads: the target runs
 * nothing for it, and a block of another layout is not trusted.  When both
 * reads are refused it says which rule refused them (another user, Yama).
 */
#define _GNU_SOURCE
#include "hp_inspect.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define READ_TRIES 1000

/* ---- where the library is ---- */
struct found {
	char path[4096];
	uint64_t base, end;     /* its mapping at file offset 0 */
	int n;
};

static int maps_line(void *ctx, char *line, size_t len, int whole)
{
	struct found *f = ctx;
	unsigned long long start, end, off;
	int name = 0;
	(void)len;
	if (f->n || !whole || sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &off, &name) < 3 || !name)
		return 0;
	const char *path = line + name, *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "libhugepolicy.so", 16) != 0 || off != 0)
		return 0;
	hp_strlcpy(f->path, path, sizeof f->path);
	f->base = start;
	f->end = end;
	f->n = 1;
	return 0;
}

/* ---- the symbol, from the file's section headers (.dynsym, its .dynstr) ---- */
static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r = pread(fd, buf, n, (off_t)off);
	return r == (ssize_t)n ? 0 : r < 0 ? errno : EINVAL;
}

/* 0 and the symbol's address relative to the mapping at offset 0 */
static int elf_symbol(int fd, const char *name, uint64_t *rel)
{
	Elf64_Ehdr eh;
	int err = pread_all(fd, &eh, sizeof eh, 0);
	if (err)
		return err;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_shnum > 4096 ||
	    eh.e_phnum > 256)
		return ENOEXEC;
	/* the segment at file offset 0: where the mapping maps_line found starts */
	uint64_t low = UINT64_MAX;
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if ((err = pread_all(fd, &ph, sizeof ph, eh.e_phoff + (uint64_t)i * sizeof ph)) != 0)
			return err;
		if (ph.p_type == PT_LOAD && ph.p_offset == 0)
			low = ph.p_vaddr & ~(uint64_t)4095;
	}
	if (low == UINT64_MAX)
		return ENOEXEC;
	Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
	if (!sh)
		return ENOMEM;
	err = pread_all(fd, sh, eh.e_shnum * sizeof *sh, eh.e_shoff);
	int sym = -1;
	for (int i = 0; !err && i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM && sh[i].sh_link < eh.e_shnum && sh[i].sh_entsize == sizeof(Elf64_Sym))
			sym = i;
	char *str = NULL;
	Elf64_Sym *syms = NULL;
	if (!err && sym < 0)
		err = ENOEXEC;
	if (!err && (sh[sym].sh_size > (64u << 20) || sh[sh[sym].sh_link].sh_size > (64u << 20)))
		err = EFBIG;
	if (!err) {
		const Elf64_Shdr *ss = &sh[sh[sym].sh_link];
		str = calloc(1, ss->sh_size + 1);
		syms = malloc(sh[sym].sh_size ? sh[sym].sh_size : 1);
		err = !str || !syms ? ENOMEM : pread_all(fd, str, ss->sh_size, ss->sh_offset);
		if (!err)
			err = pread_all(fd, syms, sh[sym].sh_size, sh[sym].sh_offset);
		size_t n = sh[sym].sh_size / sizeof *syms;
		if (!err)
			err = ENOENT;
		for (size_t i = 0; err == ENOENT && i < n; i++)
			if (syms[i].st_name < ss->sh_size && syms[i].st_shndx != SHN_UNDEF &&
			    ELF64_ST_TYPE(syms[i].st_info) == STT_OBJECT && strcmp(str + syms[i].st_name, name) == 0 &&
			    syms[i].st_size >= sizeof(struct hp_live) - sizeof(struct hp_report_snap)) {
				*rel = syms[i].st_value - low;
				err = 0;
			}
	}
	free(str);
	free(syms);
	free(sh);
	return err;
}

/* ---- reading its memory ---- */
struct reader {
	int pid, mem;           /* /proc/PID/mem, -1 not open */
	int vm_err, mem_err;    /* why each way was refused, 0 not */
	const char *how;
};

static int read_remote(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct reader *r = ctx;
	if (!r->vm_err) {
		struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
		ssize_t got = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);
		if (got == (ssize_t)n) {
			r->how = "process_vm_readv";
			return 0;
		}
		if (got >= 0 || errno == EFAULT || errno == ESRCH)
			return got >= 0 ? EIO : errno;
		r->vm_err = errno;      /* EPERM, ENOSYS: try the other way */
	}
	if (r->mem_err)
		return r->mem_err;
	if (r->mem < 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/mem", r->pid);
		if ((r->mem = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return r->mem_err = errno;
	}
	ssize_t got = pread(r->mem, buf, n, (off_t)addr);
	if (got == (ssize_t)n) {
		r->how = "/proc/PID/mem";
		return 0;
	}
	if (got < 0 && (errno == EPERM || errno == EACCES))
		return r->mem_err = errno;
	return got < 0 ? errno : EIO;
}

void hp_inspect_live_refused(char *buf, size_t cap, int pid, int vm_err, int mem_err, const char *yama)
{
	struct hp_buf b = { buf, cap, 0 };
	hp_buf_printf(&b, "process_vm_readv refused (%s) and /proc/%d/mem refused (%s): reading another process's "
		      "memory needs the right to ptrace it: the same user", strerror(vm_err), pid, strerror(mem_err));
	if (yama)
		hp_buf_printf(&b, ", and under Yama ptrace_scope %.4s%s", yama,
			      strcmp(yama, "0") == 0 ? "" : " being its ancestor (or its ptracer)");
	hp_buf_printf(&b, "; root or CAP_SYS_PTRACE may");
}

static void refused(struct hp_inspection *in, const struct reader *r)
{
	char yama[16] = "";
	int n = hp_read_small("/proc/sys/kernel/yama/ptrace_scope", yama, sizeof yama);
	if (n > 0 && yama[n - 1] == '\n')
		yama[n - 1] = '\0';
	hp_inspect_live_refused(in->live_why, sizeof in->live_why, in->pid, r->vm_err, r->mem_err,
				n > 0 ? yama : NULL);
}

void hp_inspect_live(struct hp_inspection *in)
{
	char path[4096 + 64], line[8192];
	struct found f = { .n = 0 };
	in->live_state = HP_LIVE_NONE;
	snprintf(path, sizeof path, "/proc/%d/maps", in->pid);
	if (hp_read_lines(path, line, sizeof line, maps_line, &f) != 0 || !f.n)
		return;
	in->live_state = HP_LIVE_UNREAD;
	/* the very file mapped (a library replaced since is still there: root
	 * only), else the file as the process sees it (its mount namespace),
	 * else by name */
	snprintf(path, sizeof path, "/proc/%d/map_files/%llx-%llx", in->pid, (unsigned long long)f.base,
		 (unsigned long long)f.end);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(path, sizeof path, "/proc/%d/root%s", in->pid, f.path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		fd = open(f.path, O_RDONLY | O_CLOEXEC);
	uint64_t rel = 0;
	int err = fd < 0 ? errno : elf_symbol(fd, HP_LIVE_SYMBOL, &rel);
	if (fd >= 0)
		close(fd);
	if (err) {
		struct hp_buf b = { in->live_why, sizeof in->live_why, 0 };
		hp_buf_printf(&b, "no %s in ", HP_LIVE_SYMBOL);
		hp_buf_escaped(&b, f.path, 256);
		hp_buf_printf(&b, ": %s%s", strerror(err), err == ENOENT ? " (a library older than the live report, "
			      "or replaced since the process started)" : "");
		return;
	}
	in->live_addr = f.base + rel;
	struct reader r = { .pid = in->pid, .mem = -1 };
	err = hp_live_read(read_remote, &r, in->live_addr, READ_TRIES, &in->live);
	if (r.mem >= 0)
		close(r.mem);
	if (!err) {
		in->live_state = HP_LIVE_READ;
		in->live_how = r.how;
		return;
	}
	if (r.vm_err && (r.mem_err == EPERM || r.mem_err == EACCES))
		refused(in, &r);
	else if (err == EPROTO)
		snprintf(in->live_why, sizeof in->live_why, "its library writes the live report in layout %u of %u "
			 "bytes; this hugepolicy reads layout %u of %zu bytes", in->live.version, in->live.size,
			 HP_LIVE_VERSION, sizeof(struct hp_live));
	else if (err == ENODATA)
		snprintf(in->live_why, sizeof in->live_why, "nothing published yet: start-up has not run");
	else if (err == EAGAIN)
		snprintf(in->live_why, sizeof in->live_why, "the report was being rewritten at each of %d reads",
			 READ_TRIES);
	else
		snprintf(in->live_why, sizeof in->live_why, "reading %s at 0x%" PRIx64 ": %s", HP_LIVE_SYMBOL,
			 in->live_addr, strerror(err));
}
