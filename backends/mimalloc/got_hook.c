/*
 * got_hook.c - point one imported function of one loaded object at another
 * function, by rewriting that object's GOT slot (the PLT's target).
 *
 * hugepolicy uses it for one thing: to be the mmap/munmap/madvise that the
 * dlopen'ed mimalloc calls, so that every hugetlb mapping mimalloc makes goes
 * through hugepolicy's page layer (mapped and populated, or refused) - the
 * rest of the process keeps libc's.  The object's dynamic section gives
 * the relocations (DT_JMPREL for PLT slots, DT_RELA for GLOB_DAT ones under
 * -fno-plt) and the symbol names; a slot in the RELRO segment is made
 * writable for the store and read-only again.
 */
#define _GNU_SOURCE
#include "hp_mimalloc.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct dyn { ElfW(Addr) jmprel, rela, symtab, strtab; size_t pltrelsz, relasz; };

/* glibc relocates the d_ptr entries of l_ld in place on most targets; some
 * keep them as file offsets.  Either way give an address. */
static ElfW(Addr) addr_of(const struct link_map *lm, ElfW(Addr) v)
{
	return v < lm->l_addr ? v + lm->l_addr : v;
}

static void read_dyn(const struct link_map *lm, struct dyn *d)
{
	memset(d, 0, sizeof *d);
	for (const ElfW(Dyn) *e = lm->l_ld; e && e->d_tag != DT_NULL; e++) {
		switch (e->d_tag) {
		case DT_JMPREL: d->jmprel = addr_of(lm, e->d_un.d_ptr); break;
		case DT_PLTRELSZ: d->pltrelsz = e->d_un.d_val; break;
		case DT_RELA: d->rela = addr_of(lm, e->d_un.d_ptr); break;
		case DT_RELASZ: d->relasz = e->d_un.d_val; break;
		case DT_SYMTAB: d->symtab = addr_of(lm, e->d_un.d_ptr); break;
		case DT_STRTAB: d->strtab = addr_of(lm, e->d_un.d_ptr); break;
		default: break;
		}
	}
}

struct relro { ElfW(Addr) base, lo, hi; };

static int find_relro(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct relro *r = arg;
	(void)size;
	if (info->dlpi_addr != r->base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
			r->lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			r->hi = r->lo + info->dlpi_phdr[i].p_memsz;
		}
	return 1;
}

static int patch(const struct link_map *lm, void **slot, void *fn, void **old)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	void *start = (void *)((uintptr_t)slot & ~(page - 1));
	struct relro r = { lm->l_addr, 0, 0 };
	dl_iterate_phdr(find_relro, &r);
	/* the loader protects RELRO rounded down to whole pages (its last
	 * partial page shares .data and stays writable) */
	int in_relro = (ElfW(Addr))slot >= r.lo && (ElfW(Addr))slot < (r.hi & ~(ElfW(Addr))(page - 1));
	/* RELRO is read-only after a BIND_NOW load: writable for the store,
	 * then read-only again; a plain .got.plt is writable already */
	if (in_relro && mprotect(start, page, PROT_READ | PROT_WRITE) != 0)
		return errno;
	if (old)
		*old = *slot;
	__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	if (in_relro)
		mprotect(start, page, PROT_READ);
	return 0;
}

static int hook_in(const struct link_map *lm, ElfW(Addr) rel, size_t size, const char *name,
		   void *fn, void **old, int *found)
{
	struct dyn d;
	read_dyn(lm, &d);
	const ElfW(Sym) *sym = (const ElfW(Sym) *)d.symtab;
	const char *str = (const char *)d.strtab;
	if (!rel || !sym || !str)
		return 0;
	for (const ElfW(Rela) *r = (const ElfW(Rela) *)rel; (ElfW(Addr))(r + 1) <= rel + size; r++) {
		unsigned long type = ELF64_R_TYPE(r->r_info), idx = ELF64_R_SYM(r->r_info);
		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || idx == 0)
			continue;
		if (strcmp(str + sym[idx].st_name, name) != 0)
			continue;
		int rc = patch(lm, (void **)(lm->l_addr + r->r_offset), fn, old);
		if (rc != 0)
			return rc;
		*found = 1;
		old = NULL;             /* keep the first original */
	}
	return 0;
}

int hp_got_hook(void *handle, const char *name, void *fn, void **old)
{
#if defined(__x86_64__)
	struct link_map *lm = NULL;
	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
		return ENOENT;
	struct dyn d;
	read_dyn(lm, &d);
	int found = 0, rc = hook_in(lm, d.jmprel, d.pltrelsz, name, fn, old, &found);
	if (rc == 0)
		rc = hook_in(lm, d.rela, d.relasz, name, fn, found ? NULL : old, &found);
	if (rc != 0)
		return rc;
	return found ? 0 : ENOENT;
#else
	(void)handle; (void)name; (void)fn; (void)old;
	return ENOSYS;                  /* relocation types of other targets: not written yet */
#endif
}
