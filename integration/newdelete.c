/*
 * newdelete.c - every C++ operator new/delete variant (C++17: plain, array,
 * nothrow, sized, aligned), defined in C under their Itanium-ABI names so
 * that libhugepolicy needs no libstdc++ (loading it costs every process
 * start-up time and memory).  A C host that loads C++ code gets these,
 * whatever other library also defines them (a backend's delete reaching
 * another backend's free crashes).
 *
 * Out of memory: the C++17 rules ([new.delete.single]), with the C++ runtime
 * of the code that called operator new (hp_cxx_runtime_find: that code's
 * own runtime even when it was loaded RTLD_LOCAL).  Throwing new calls
 * std::get_new_handler()'s handler and retries while there is one, then
 * throws std::bad_alloc through the runtime.  Nothrow new is
 * "throwing new, bad_alloc caught": with a handler installed it is handed to
 * the runtime's own nothrow new (which calls our throwing new inside its
 * try/catch, so a handler that throws ends in nullptr); without one, NULL.
 * Only a process with no C++ runtime at all gets the one-line abort from
 * throwing new.  Thread-safe: no state, the runtime is looked up per
 * failure.  The fast path is malloc(n) and a NULL test, inline in each
 * operator new, and delete is `jmp free`: both through the malloc and free
 * symbols, so that a host's own malloc in front of ours serves new too.
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"

#include <stdlib.h>
#include <malloc.h>

static void *try_alloc(size_t size, size_t align)
{
	if (size == 0)
		size = 1;               /* new(0) returns a unique pointer */
	if (align <= 8)                 /* malloc's blocks are 16-aligned (hp_backend.h) */
		return malloc(size);
	if (size > (size_t)PTRDIFF_MAX)
		return NULL;            /* as malloc.c refuses it */
	return hp_ops()->memalign(align, size);
}

/* std::bad_alloc, by the runtime's std::__throw_bad_alloc or by the C++ ABI
 * (Itanium ABI 2.4.2): the object is one vtable pointer (std::exception has
 * no data members), pointing past the offset-to-top and RTTI slots. */
static void throw_bad_alloc(const struct hp_cxx_runtime *rt)
{
	if (rt->throw_bad_alloc)
		rt->throw_bad_alloc();
	void **e = rt->allocate_exception(sizeof(void *));
	*e = (char *)rt->bad_alloc_vtable + 2 * sizeof(void *);
	rt->cxa_throw(e, rt->bad_alloc_type, rt->bad_alloc_dtor);
}

/* [new.delete.single]/4: handler, retry, until a block, no handler
 * (bad_alloc), or the handler ends the loop itself (throws, or uninstalls
 * itself and we throw next round). */
static void *throwing_oom(size_t size, size_t align, const void *caller)
{
	struct hp_cxx_runtime rt;
	if (hp_cxx_runtime_find(caller, NULL, &rt) == 0) {
		for (hp_new_handler h; (h = rt.get_new_handler()) != NULL; ) {
			h();
			void *p = try_alloc(size, align);
			if (p)
				return p;
		}
		throw_bad_alloc(&rt);   /* does not return */
	}
	hp_say("operator new: no memory for %zu bytes and no C++ runtime to throw std::bad_alloc", size);
	abort();
}

/* own: the Itanium name of this nothrow variant, to find the runtime's own */
static void *nothrow_oom(size_t size, size_t align, int aligned, const void *nt,
			 const char *own, const void *caller)
{
	struct hp_cxx_runtime rt;
	if (hp_cxx_runtime_find(caller, own, &rt) != 0 || !rt.get_new_handler() || !rt.own)
		return NULL;            /* no handler to make memory (or none we may call) */
	if (aligned)
		return ((void *(*)(size_t, size_t, const void *))rt.own)(size, align, nt);
	return ((void *(*)(size_t, const void *))rt.own)(size, nt);
}

/* The hot path is the first try, inline in every operator new: malloc(n)
 * itself where align <= 8, even for n == 0 (every backend's malloc(0) is a
 * unique block; a NULL from an interposed malloc is retried below as 1).
 * The rest - size 0 again, the handler loop, the throw - is out of line, so
 * that the fast path keeps no frame beyond n (and reads the caller only on
 * failure). */
static inline void *first_try(size_t size, size_t align)
{
	return align <= 8 ? malloc(size) : try_alloc(size, align);
}

__attribute__((noinline, cold)) static void *new_failed(size_t size, size_t align, const void *caller)
{
	void *p = size == 0 ? try_alloc(size, align) : NULL;
	return p ? p : throwing_oom(size, align, caller);
}

__attribute__((noinline, cold)) static void *nothrow_failed(size_t size, size_t align, int aligned, const void *nt,
							   const char *own, const void *caller)
{
	void *p = size == 0 ? try_alloc(size, align) : NULL;
	return p ? p : nothrow_oom(size, align, aligned, nt, own, caller);
}

#define CALLER __builtin_return_address(0)
/* an operator new: first_try(n, a), else `fail` (caller read only there) */
#define NEW(sym, args, n, a, fail) HP_EXPORT void *sym args __asm__(#sym); \
	void *sym args { void *p = first_try(n, a); return __builtin_expect(p != NULL, 1) ? p : fail; }
#define DEL(sym, args) HP_EXPORT void sym args __asm__(#sym); void sym args { free(p); }

/* new(size_t), new[](size_t), nothrow, aligned, aligned nothrow */
NEW(_Znwm, (size_t n), n, 0, new_failed(n, 0, CALLER))
NEW(_Znam, (size_t n), n, 0, new_failed(n, 0, CALLER))
NEW(_ZnwmRKSt9nothrow_t, (size_t n, const void *nt), n, 0,
    nothrow_failed(n, 0, 0, nt, "_ZnwmRKSt9nothrow_t", CALLER))
NEW(_ZnamRKSt9nothrow_t, (size_t n, const void *nt), n, 0,
    nothrow_failed(n, 0, 0, nt, "_ZnamRKSt9nothrow_t", CALLER))
NEW(_ZnwmSt11align_val_t, (size_t n, size_t a), n, a, new_failed(n, a, CALLER))
NEW(_ZnamSt11align_val_t, (size_t n, size_t a), n, a, new_failed(n, a, CALLER))
NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, (size_t n, size_t a, const void *nt), n, a,
    nothrow_failed(n, a, 1, nt, "_ZnwmSt11align_val_tRKSt9nothrow_t", CALLER))
NEW(_ZnamSt11align_val_tRKSt9nothrow_t, (size_t n, size_t a, const void *nt), n, a,
    nothrow_failed(n, a, 1, nt, "_ZnamSt11align_val_tRKSt9nothrow_t", CALLER))

/* delete, delete[]: plain, sized, nothrow, aligned, sized aligned, aligned nothrow */
DEL(_ZdlPv, (void *p))
DEL(_ZdaPv, (void *p))
DEL(_ZdlPvm, (void *p, size_t n __attribute__((unused))))
DEL(_ZdaPvm, (void *p, size_t n __attribute__((unused))))
DEL(_ZdlPvRKSt9nothrow_t, (void *p, const void *nt __attribute__((unused))))
DEL(_ZdaPvRKSt9nothrow_t, (void *p, const void *nt __attribute__((unused))))
DEL(_ZdlPvSt11align_val_t, (void *p, size_t a __attribute__((unused))))
DEL(_ZdaPvSt11align_val_t, (void *p, size_t a __attribute__((unused))))
DEL(_ZdlPvmSt11align_val_t, (void *p, size_t n __attribute__((unused)), size_t a __attribute__((unused))))
DEL(_ZdaPvmSt11align_val_t, (void *p, size_t n __attribute__((unused)), size_t a __attribute__((unused))))
DEL(_ZdlPvSt11align_val_tRKSt9nothrow_t, (void *p, size_t a __attribute__((unused)), const void *nt __attribute__((unused))))
DEL(_ZdaPvSt11align_val_tRKSt9nothrow_t, (void *p, size_t a __attribute__((unused)), const void *nt __attribute__((unused))))
