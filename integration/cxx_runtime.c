/*
 * cxx_runtime.c - find the C++ runtime behind a failed operator new: its
 * std::get_new_handler(), std::__throw_bad_alloc() (libstdc++; libc++
 * exports both names too) or else the C++ ABI pieces to throw
 * std::bad_alloc with, and on request the runtime's own definition of a
 * nothrow operator new.
 *
 * dlsym(RTLD_DEFAULT) alone is not enough: a C host that dlopen()s C++ code
 * with RTLD_LOCAL (how Python loads extensions) has no libstdc++ in its
 * global scope.  So look, in this order:
 *   1. the object that called operator new, by a handle to it: dlsym on a
 *      handle searches the object and then its dependencies, so this finds
 *      the caller's own runtime (linked in statically, or a dependency,
 *      however it was loaded);
 *   2. the global scope (RTLD_DEFAULT);
 *   3. every loaded object whose name says it is a C++ runtime.
 * The caller comes first because its runtime is the one whose new_handler
 * it set (a plugin with a private static libstdc++ has its own).
 *
 * Runs only on the failure path: it may allocate (dlopen does), keeps no
 * state and takes no lock of its own, so it is thread-safe.  Every handle it
 * opens is an RTLD_NOLOAD reference to an object already loaded, dropped
 * before it returns, so nothing stays open while a new_handler runs or an
 * exception unwinds.  The functions found stay valid as long as the code
 * that called operator new is loaded: that code needs its runtime.
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <string.h>

#define MAX_RUNTIMES 4          /* C++ runtimes looked at in step 3 */

/* The link map of the loaded object containing addr, or NULL.  glibc 2.35's
 * _dl_find_object is a lock-free range lookup; dladdr also searches the
 * object's symbol table for the nearest symbol (~20 us in libstdc++). */
static struct link_map *object_of(const void *addr)
{
	if (!addr)
		return NULL;
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
	struct dl_find_object fo;
	return _dl_find_object((void *)addr, &fo) == 0 ? fo.dlfo_link_map : NULL;
#else
	Dl_info info;
	struct link_map *map = NULL;
	return dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) ? map : NULL;
#endif
}

/* Is p defined by libhugepolicy itself?  (It exports every operator new, so
 * a scope that contains it may find ours first.) */
static int ours(const void *p)
{
	struct link_map *map = object_of(p);
	return map && map == object_of((const void *)object_of);
}

/* A new reference to the loaded object containing addr, or NULL.  The main
 * program's link map has an empty name: dlopen(NULL) is its handle. */
static void *open_object(const void *addr)
{
	struct link_map *map = object_of(addr);
	if (!map)
		return NULL;
	if (!map->l_name || !map->l_name[0])
		return dlopen(NULL, RTLD_LAZY);
	return dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD);
}

/* A runtime from one scope, or 0. */
static int from_scope(void *handle, struct hp_cxx_runtime *rt)
{
	struct hp_cxx_runtime r;
	memset(&r, 0, sizeof r);
	r.get_new_handler = (hp_new_handler (*)(void))dlsym(handle, "_ZSt15get_new_handlerv");
	if (!r.get_new_handler)
		return 0;
	r.throw_bad_alloc = (void (*)(void))dlsym(handle, "_ZSt17__throw_bad_allocv");
	if (!r.throw_bad_alloc) {
		/* a static libstdc++ has only what its module used: operator new
		 * brings these in, std::__throw_bad_alloc not */
		r.allocate_exception = (void *(*)(size_t))dlsym(handle, "__cxa_allocate_exception");
		r.cxa_throw = (void (*)(void *, void *, void (*)(void *)))dlsym(handle, "__cxa_throw");
		r.bad_alloc_type = dlsym(handle, "_ZTISt9bad_alloc");
		r.bad_alloc_vtable = dlsym(handle, "_ZTVSt9bad_alloc");
		r.bad_alloc_dtor = (void (*)(void *))dlsym(handle, "_ZNSt9bad_allocD1Ev");
		if (!r.allocate_exception || !r.cxa_throw || !r.bad_alloc_type ||
		    !r.bad_alloc_vtable || !r.bad_alloc_dtor)
			return 0;
	}
	*rt = r;
	return 1;
}

static int from_object(const void *addr, struct hp_cxx_runtime *rt)
{
	void *h = open_object(addr);
	if (!h)
		return 0;
	int found = from_scope(h, rt);
	dlclose(h);             /* drops only our reference */
	return found;
}

static int from_name(const char *name, struct hp_cxx_runtime *rt)
{
	void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	int found = from_scope(h, rt);
	dlclose(h);
	return found;
}

/* Step 3: names are copied out and opened after dl_iterate_phdr returns:
 * it holds the loader's write lock, and dlopen inside it would take the
 * load lock in the opposite order to a concurrent dlopen (deadlock). */
struct runtimes {
	int n;
	char name[MAX_RUNTIMES][PATH_MAX];
};

static int is_runtime_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strncmp(base, "libstdc++", 9) == 0 || strncmp(base, "libc++", 6) == 0;
}

static int note_runtime(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct runtimes *r = arg;
	(void)size;
	if (!info->dlpi_name || !is_runtime_name(info->dlpi_name))
		return 0;
	size_t len = strlen(info->dlpi_name);
	if (len < sizeof r->name[0]) {
		memcpy(r->name[r->n], info->dlpi_name, len + 1);
		r->n++;
	}
	return r->n == MAX_RUNTIMES;    /* nonzero stops the walk */
}

static int from_loaded(struct hp_cxx_runtime *rt)
{
	struct runtimes r;
	r.n = 0;
	dl_iterate_phdr(note_runtime, &r);
	for (int i = 0; i < r.n; i++)
		if (from_name(r.name[i], rt))
			return 1;
	return 0;
}

/* sym as the runtime itself defines it (never libhugepolicy's), or NULL:
 * looked up in the object that defines the get_new_handler found. */
static void *own_symbol(const struct hp_cxx_runtime *rt, const char *sym)
{
	void *h = open_object((const void *)rt->get_new_handler);
	if (!h)
		return NULL;
	void *p = dlsym(h, sym);
	dlclose(h);
	return p && !ours(p) ? p : NULL;
}

int hp_cxx_runtime_find(const void *caller, const char *own_sym, struct hp_cxx_runtime *rt)
{
	memset(rt, 0, sizeof *rt);
	if (!from_object(caller, rt) && !from_scope(RTLD_DEFAULT, rt) && !from_loaded(rt))
		return ENOENT;
	if (own_sym)
		rt->own = own_symbol(rt, own_sym);
	return 0;
}
