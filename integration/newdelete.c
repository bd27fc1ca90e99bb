/*
 * newdelete.c - every C++ operator new/delete variant (C++17: plain, array,
 * nothrow, sized, aligned), defined in C under their Itanium-ABI names so
 * that libhugepolicy needs no libstdc++ (which costs every process 5-7 ms
 * and ~3 MB here).  A C host that loads C++ code gets these, whatever other
 * library also defines them (DESIGN.md: a backend's delete reaching another
 * backend's free crashes).
 *
 * Out of memory in a throwing new: call std::get_new_handler()'s handler and
 * retry, then throw std::bad_alloc through libstdc++'s own
 * std::__throw_bad_alloc(), both looked up at that moment (any code calling
 * operator new has a C++ runtime loaded).  Thread-safe.
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <malloc.h>

typedef void (*new_handler_fn)(void);

static void *try_alloc(size_t size, size_t align)
{
	if (size == 0)
		size = 1;               /* new(0) returns a unique pointer */
	if (align <= 8)                 /* see aligned() in malloc.c */
		return malloc(size);
	return hp_ops()->memalign(align, size);
}

static void *out_of_memory(size_t size, size_t align, int nothrow)
{
	for (;;) {
		new_handler_fn (*get)(void) = (new_handler_fn (*)(void))dlsym(RTLD_DEFAULT, "_ZSt15get_new_handlerv");
		new_handler_fn h = get ? get() : NULL;
		if (!h)
			break;
		h();
		void *p = try_alloc(size, align);
		if (p)
			return p;
	}
	if (nothrow)
		return NULL;
	void (*throw_bad_alloc)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "_ZSt17__throw_bad_allocv");
	if (throw_bad_alloc)
		throw_bad_alloc();      /* does not return */
	hp_say("operator new: no memory for %zu bytes and no C++ runtime to throw std::bad_alloc", size);
	abort();
}

static void *op_new(size_t size, size_t align, int nothrow)
{
	void *p = try_alloc(size, align);
	return p ? p : out_of_memory(size, align, nothrow);
}

#define NEW(sym, args, call) HP_EXPORT void *sym args __asm__(#sym); void *sym args { return call; }
#define DEL(sym, args) HP_EXPORT void sym args __asm__(#sym); void sym args { free(p); }

/* new(size_t), new[](size_t), nothrow, aligned, aligned nothrow */
NEW(_Znwm, (size_t n), op_new(n, 0, 0))
NEW(_Znam, (size_t n), op_new(n, 0, 0))
NEW(_ZnwmRKSt9nothrow_t, (size_t n, const void *nt), ((void)nt, op_new(n, 0, 1)))
NEW(_ZnamRKSt9nothrow_t, (size_t n, const void *nt), ((void)nt, op_new(n, 0, 1)))
NEW(_ZnwmSt11align_val_t, (size_t n, size_t a), op_new(n, a, 0))
NEW(_ZnamSt11align_val_t, (size_t n, size_t a), op_new(n, a, 0))
NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, (size_t n, size_t a, const void *nt), ((void)nt, op_new(n, a, 1)))
NEW(_ZnamSt11align_val_tRKSt9nothrow_t, (size_t n, size_t a, const void *nt), ((void)nt, op_new(n, a, 1)))

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
