/*
 * malloc.c - the C malloc family that hosts bind to.  Each entry point is
 * one indirect call to the selected backend's plain entry point; malloc
 * is a size test and a jump through a pointer, free a not-taken test and
 * one (hp_dispatch.h: where a second jump follows; instructions per pair
 * against the native allocators: perf/callgrind_pairs.sh).  Argument checks the C standard and
 * POSIX ask for are done here once, for every backend, so that every
 * backend gives the same answers:
 * - a NULL result for anything but realloc(p, 0) leaves errno == ENOMEM
 *   (EINVAL for an alignment that is not a power of two): jemalloc's realloc
 *   and aligned paths and mimalloc's aligned path return NULL with errno
 *   untouched, so the NULL path (and only it) sets ENOMEM after the call;
 *   malloc stays a bare tail call (the hot path): every backend's malloc
 *   sets ENOMEM itself (tests/cstd.cmake checks it for each);
 * - realloc(p, 0) frees p and returns NULL, errno unchanged (glibc's answer;
 *   mimalloc would hand back a block); realloc(NULL, 0) is malloc(0);
 * - a block and its alignment padding never exceed PTRDIFF_MAX bytes.
 * Also defines glibc's __libc_* names so that no host can reach an allocator
 * other than the selected one.
 *
 * All functions are thread-safe, as the C standard requires.
 */
#define _GNU_SOURCE
#include "hp_dispatch.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static size_t page_size(void)
{
	return (size_t)getpagesize();
}

static int is_pow2(size_t a)
{
	return a != 0 && (a & (a - 1)) == 0;
}

/* No object may exceed PTRDIFF_MAX bytes.  Refusing such sizes here gives
 * every backend glibc's answer (NULL, errno ENOMEM): jemalloc leaves errno
 * alone in realloc, mimalloc reports EOVERFLOW on its own channel. */
static inline int impossible(size_t size)
{
	return __builtin_expect(size > (size_t)PTRDIFF_MAX, 0);
}

static void *enomem(void)
{
	errno = ENOMEM;
	return NULL;
}

/* After the backend: a NULL is an allocation failure, and the C library's
 * answer for one is ENOMEM, whatever the backend left in errno. */
static inline void *or_enomem(void *p)
{
	if (__builtin_expect(p == NULL, 0))
		errno = ENOMEM;
	return p;
}

/* The hot path: a jump to the backend (hp_dispatch.h), through the table
 * for a small size.  Sizes above PTRDIFF_MAX are the backend's to
 * refuse with ENOMEM, and each does: jemalloc itself, mimalloc through the
 * error handler hugepolicy gives it (mimalloc.c), glibc's entry in
 * system.c (so that a malloc standing in for glibc's, valgrind's, never
 * sees them), the THP wrappers' big path, the bootstrap arena for want of
 * room.  Also the body of every other malloc here (not a call through the
 * PLT, which another library's malloc could take). */
static inline void *dispatch_malloc(size_t size)
{
	if (__builtin_expect(size <= HP_SMALL_MAX, 1))
		return hp_hot(hp_malloc_by_size[size])(size);
	return hp_hot(hp_malloc_fn)(size);
}

HP_EXPORT void *malloc(size_t size)
{
	return dispatch_malloc(size);
}

/* NULL, a bootstrap block, or (hp_dispatch.h: not on x86-64's and
 * aarch64's defaults) another block below HP_LOW_END */
__attribute__((noinline, cold)) static void free_low(void *p)
{
	if (p == NULL || hp_boot_owns(p))
		return;                 /* bootstrap blocks live forever */
	hp_hot(hp_free_fn)(p);
}

static inline void dispatch_free(void *p)
{
	if (__builtin_expect((uintptr_t)p < HP_LOW_END, 0)) {
		free_low(p);
		return;
	}
	hp_hot(hp_free_fn)(p);
}

HP_EXPORT void free(void *p)
{
	dispatch_free(p);
}

HP_EXPORT void *calloc(size_t n, size_t size)
{
	if (size && n > (size_t)PTRDIFF_MAX / size)
		return enomem();        /* C11 7.22.3.2: overflow -> null */
	return or_enomem(hp_ops()->calloc(n, size));
}

HP_EXPORT void *realloc(void *p, size_t size)
{
	if (impossible(size))
		return enomem();        /* p stays valid */
	if (size == 0 && p != NULL) {
		int saved = errno;      /* glibc: free p, return NULL, errno as it was */
		dispatch_free(p);
		errno = saved;
		return NULL;
	}
	if (hp_boot_owns(p)) {
		size_t old = hp_boot_size(p);
		void *q = dispatch_malloc(size);
		if (q)
			memcpy(q, p, old < size ? old : size);
		return q;
	}
	return or_enomem(hp_ops()->realloc(p, size));
}

HP_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return enomem();
	return realloc(p, n * size);
}

/* Alignment a power of two; small ones are what malloc gives anyway. */
static void *aligned(size_t align, size_t size)
{
	/* the block plus the padding its alignment may cost fits in PTRDIFF_MAX
	 * (jemalloc's memalign(1 << 63, 16) was NULL with errno 0) */
	if (impossible(size) || align - 1 > (size_t)PTRDIFF_MAX - size)
		return enomem();
	/* malloc's blocks are 16-aligned on every backend (hp_backend.h):
	 * anything above 8 asks for the alignment all the same */
	if (align <= 8)
		return or_enomem(dispatch_malloc(size));
	/* jemalloc's memalign(16, 0) returned an 8-aligned block: size 0 is
	 * asked as 1 (C11 7.22.3: either null or a unique pointer) */
	return or_enomem(hp_ops()->memalign(align, size ? size : 1));
}

HP_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	if (!is_pow2(align) || align % sizeof(void *) != 0)
		return EINVAL;          /* POSIX: *out untouched */
	/* failure: ENOMEM returned and left in errno, as glibc does (programs,
	 * and glibc's own tst-malloc-thread-fail, read errno); success leaves
	 * errno alone */
	int saved = errno;
	void *p = aligned(align, size);
	if (!p) {
		errno = ENOMEM;
		return ENOMEM;
	}
	*out = p;
	errno = saved;
	return 0;
}

HP_EXPORT void *aligned_alloc(size_t align, size_t size)
{
	if (!is_pow2(align)) {
		errno = EINVAL;         /* C17 DR 460: unsupported alignment -> null */
		return NULL;
	}
	return aligned(align, size);
}

HP_EXPORT void *memalign(size_t align, size_t size)
{
	if (!is_pow2(align)) {
		/* glibc rounds a non-power-of-two alignment up; so do we */
		if (align > SIZE_MAX / 2 + 1) {
			errno = EINVAL;
			return NULL;
		}
		size_t a = 1;
		while (a < align)
			a <<= 1;
		align = a;
	}
	return aligned(align, size);
}

HP_EXPORT void *valloc(size_t size)
{
	return aligned(page_size(), size);
}

HP_EXPORT void *pvalloc(size_t size)
{
	size_t ps = page_size();
	if (size > SIZE_MAX - ps)
		return enomem();
	size_t rounded = size ? (size + ps - 1) & ~(ps - 1) : ps;
	return aligned(ps, rounded);
}

HP_EXPORT size_t malloc_usable_size(void *p)
{
	if (p == NULL)
		return 0;
	if (hp_boot_owns(p))
		return hp_boot_size(p);
	return hp_ops()->usable_size(p);
}

/* glibc's internal names, which some programs and libraries call directly. */
HP_EXPORT void *__libc_malloc(size_t size) { return dispatch_malloc(size); }
HP_EXPORT void __libc_free(void *p) { dispatch_free(p); }
HP_EXPORT void *__libc_calloc(size_t n, size_t size) { return calloc(n, size); }
HP_EXPORT void *__libc_realloc(void *p, size_t size) { return realloc(p, size); }
HP_EXPORT void *__libc_memalign(size_t align, size_t size) { return memalign(align, size); }
HP_EXPORT void *__libc_valloc(size_t size) { return valloc(size); }
HP_EXPORT void *__libc_pvalloc(size_t size) { return pvalloc(size); }
