/* test_cstd.c - the malloc family keeps the C standard's and POSIX's
 * promises under the backend named in argv[1] (selected by the environment):
 * overflow, bad alignment, realloc(NULL), free(NULL), alignment, contents. */
#define _GNU_SOURCE
#include "check.h"

#include <errno.h>
#include <hugepolicy.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* volatile: the compiler must not see (and warn about) the impossible sizes */
static volatile size_t max_size = SIZE_MAX;

static int aligned_to(const void *p, size_t a)
{
	return ((uintptr_t)p & (a - 1)) == 0;
}

static void calloc_overflow_is_null_enomem(void)
{
	errno = 0;
	void *p = calloc(max_size / 2, 4);
	CHECK(p == NULL && errno == ENOMEM);
	unsigned char *z = calloc(1000, 1000);
	CHECK(z != NULL);
	int zero = 1;
	for (size_t i = 0; z && i < 1000000; i += 997)
		zero &= z[i] == 0;
	CHECK(zero);
	free(z);
}

static void impossible_sizes_fail_with_enomem(void)
{
	errno = 0;
	CHECK(malloc(max_size) == NULL && errno == ENOMEM);
	errno = 0;
	CHECK(malloc(max_size - 4096) == NULL && errno == ENOMEM);
	errno = 0;
	CHECK(reallocarray(NULL, max_size / 2, 3) == NULL && errno == ENOMEM);
	char *volatile p = malloc(16);
	CHECK(p != NULL);
	errno = 0;
	CHECK(realloc(p, max_size) == NULL && errno == ENOMEM);
	p[15] = 1;              /* p is still valid after a failed realloc */
	free(p);
}

static void posix_memalign_rejects_bad_alignment(void)
{
	void *out = (void *)0x1;
	CHECK(posix_memalign(&out, 3, 64) == EINVAL);
	CHECK(posix_memalign(&out, 0, 64) == EINVAL);
	CHECK(posix_memalign(&out, 4, 64) == EINVAL);        /* not a multiple of sizeof(void *) */
	CHECK(out == (void *)0x1);
	static const size_t aligns[] = { 8, 16, 64, 4096, 65536, 2u << 20 };
	for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
		void *p = NULL;
		CHECK(posix_memalign(&p, aligns[i], 100) == 0);
		CHECK_MSG(p && aligned_to(p, aligns[i]), "align %zu got %p", aligns[i], p);
		if (p)
			memset(p, 0xab, 100);
		free(p);
	}
}

static void aligned_alloc_rejects_non_power_of_two(void)
{
	errno = 0;
	CHECK(aligned_alloc(3, 30) == NULL && errno == EINVAL);
	errno = 0;
	CHECK(aligned_alloc(0, 30) == NULL && errno == EINVAL);
	void *p = aligned_alloc(256, 512);
	CHECK(p && aligned_to(p, 256));
	free(p);
	p = memalign(48, 100);                       /* glibc rounds up: 64 */
	CHECK(p && aligned_to(p, 64));
	free(p);
	p = valloc(10);
	CHECK(p && aligned_to(p, (size_t)getpagesize()));
	free(p);
	p = pvalloc(10);
	CHECK(p && aligned_to(p, (size_t)getpagesize()) && malloc_usable_size(p) >= (size_t)getpagesize());
	free(p);
}

static void realloc_null_frees_null_and_keeps_contents(void)
{
	free(NULL);
	char *p = realloc(NULL, 10);
	CHECK(p != NULL);
	memcpy(p, "123456789", 10);
	p = realloc(p, 1u << 20);
	CHECK(p && strcmp(p, "123456789") == 0);
	p = realloc(p, 64u << 20);                   /* crosses the huge-page threshold */
	CHECK(p && strcmp(p, "123456789") == 0);
	if (p)
		p[(64u << 20) - 1] = 1;
	p = realloc(p, 5);
	CHECK(p && memcmp(p, "12345", 5) == 0);
	free(p);
	void *z = malloc(0);
	free(z);                                     /* NULL or unique: freeable either way */
}

static void usable_size_covers_the_request(void)
{
	static const size_t sizes[] = { 1, 24, 100, 4096, 100000, 5u << 20, 33u << 20 };
	CHECK(malloc_usable_size(NULL) == 0);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		unsigned char *p = malloc(sizes[i]);
		CHECK(p != NULL);
		size_t u = malloc_usable_size(p);
		CHECK_MSG(u >= sizes[i], "size %zu usable %zu", sizes[i], u);
		if (p)
			memset(p, 7, u);             /* the whole usable size is ours */
		free(p);
	}
}

static void glibc_internal_names_reach_the_backend(void)
{
	extern void *__libc_malloc(size_t);
	extern void __libc_free(void *);
	void *p = __libc_malloc(100);
	CHECK(p != NULL && malloc_usable_size(p) >= 100);
	free(p);                                     /* mixing the names is safe */
	p = malloc(100);
	__libc_free(p);
}

/* Alignment 16 at every small size: jemalloc's and mimalloc's small size
 * classes are only 8-aligned, so it must not be served by plain malloc. */
static void small_blocks_keep_the_asked_alignment(void)
{
	for (size_t n = 0; n <= 64; n++) {
		void *a = NULL, *b, *c;
		CHECK(posix_memalign(&a, 16, n) == 0);
		b = aligned_alloc(16, n);
		c = memalign(16, n);
		CHECK_MSG(((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16 == 0,
			  "size %zu: posix_memalign %p aligned_alloc %p memalign %p, want 16-aligned", n, a, b, c);
		free(a);
		free(b);
		free(c);
	}
}

/* glibc's promise under every backend: malloc, calloc and realloc blocks
 * are 16-aligned whatever their size, 0 included (jemalloc's and
 * mimalloc's 8-byte class is asked 16 bytes: hp_backend.h). */
static void every_block_is_16_aligned_as_glibcs(void)
{
	for (size_t n = 0; n <= 256; n++) {
		void *p[3][32];
		for (int i = 0; i < 32; i++) {  /* 32 live: every slot of a class */
			p[0][i] = malloc(n);
			p[1][i] = calloc(1, n);
			p[2][i] = realloc(NULL, n + 64);
			if (p[2][i])
				p[2][i] = realloc(p[2][i], n ? n : 1);
			for (int k = 0; k < 3; k++)
				CHECK_MSG(p[k][i] && aligned_to(p[k][i], 16), "%s(%zu) = %p, want 16-aligned",
					  k == 0 ? "malloc" : k == 1 ? "calloc" : "realloc", n, p[k][i]);
		}
		for (int i = 0; i < 32; i++)
			for (int k = 0; k < 3; k++)
				free(p[k][i]);
	}
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "system";
	CHECK_MSG(strcmp(hugepolicy_backend(), want) == 0, "backend %s, want %s", hugepolicy_backend(), want);
	calloc_overflow_is_null_enomem();
	impossible_sizes_fail_with_enomem();
	posix_memalign_rejects_bad_alignment();
	aligned_alloc_rejects_non_power_of_two();
	realloc_null_frees_null_and_keeps_contents();
	usable_size_covers_the_request();
	glibc_internal_names_reach_the_backend();
	small_blocks_keep_the_asked_alignment();
	every_block_is_16_aligned_as_glibcs();
	return check_result("test_cstd");
}
