/* test_cstd_blocks.c - the blocks every backend hands out keep the same
 * promises: zero-size requests give unique freeable pointers aligned like
 * malloc(0); small blocks meet C23's alignment rule; the usable size covers
 * the request and realloc keeps the contents.
 * usage: test_cstd_blocks BACKEND zero-size|small-alignment|usable-size */
#define _GNU_SOURCE
#include "check.h"

#include <hugepolicy.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static volatile size_t vmax = SIZE_MAX;

/* every block, of any size, is at least this aligned on every backend
 * (glibc: 16; jemalloc and mimalloc: 8 for their 8-byte class) */
#define FLOOR_ALIGN 8

/* C23 7.24.3: suitably aligned for any object with a fundamental alignment
 * that fits in `size` bytes: the largest power of two <= size, capped at
 * alignof(max_align_t) = 16; never below the floor */
static size_t c23_align(size_t size)
{
	size_t a = 1;
	while (a * 2 <= size && a < 16)
		a *= 2;
	return a < FLOOR_ALIGN ? FLOOR_ALIGN : a;
}

static size_t alignment_of(const void *p)
{
	uintptr_t u = (uintptr_t)p;
	return u ? (size_t)(u & -u) : 0;
}

#define KEEP 64

/* KEEP live blocks from each zero-size request: all non-NULL, distinct,
 * aligned like malloc(0), freeable */
static void zero_size_requests_give_unique_aligned_blocks(void)
{
	static const char *const names[] = { "malloc(0)", "calloc(0, 0)", "calloc(0, 5)", "calloc(5, 0)",
		"calloc(SIZE_MAX, 0)", "calloc(0, SIZE_MAX)", "realloc(NULL, 0)", "reallocarray(NULL, 0, 8)",
		"aligned_alloc(8, 0)", "memalign(8, 0)" };
	enum { KINDS = sizeof names / sizeof names[0] };
	static void *blocks[KINDS * KEEP];
	size_t n = 0;
	for (int i = 0; i < KEEP; i++) {
		void *p[KINDS] = { malloc(0), calloc(0, 0), calloc(0, 5), calloc(5, 0), calloc(vmax, 0),
				   calloc(0, vmax), realloc(NULL, 0), reallocarray(NULL, 0, 8),
				   aligned_alloc(8, 0), memalign(8, 0) };
		for (int k = 0; k < KINDS; k++) {
			CHECK_MSG(p[k] != NULL, "%s = NULL", names[k]);
			CHECK_MSG(alignment_of(p[k]) >= FLOOR_ALIGN, "%s = %p: %zu-aligned, want %d like malloc(0)",
				  names[k], p[k], alignment_of(p[k]), FLOOR_ALIGN);
			blocks[n++] = p[k];
		}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (blocks[i] && blocks[i] == blocks[j]) {
				CHECK_MSG(blocks[i] != blocks[j], "%s and %s gave the same live pointer %p",
					  names[i % KINDS], names[j % KINDS], blocks[i]);
				blocks[j] = NULL;           /* free it once */
			}
	for (size_t i = 0; i < n; i++)
		free(blocks[i]);
}

/* many live blocks of every size 1..256, from every path that gives a
 * block without an alignment argument (or one <= 8) */
static void small_blocks_meet_c23_alignment(void)
{
	static void *live[KEEP * 6];
	for (size_t size = 1; size <= 256; size++) {
		size_t want = c23_align(size), k = 0;
		for (int i = 0; i < KEEP; i++) {
			void *p[6] = { malloc(size), calloc(1, size), calloc(size, 1), realloc(NULL, size),
				       aligned_alloc(8, size), realloc(malloc(size + 64), size) };
			static const char *const what[6] = { "malloc", "calloc(1, n)", "calloc(n, 1)",
				"realloc(NULL, n)", "aligned_alloc(8, n)", "realloc(shrink)" };
			for (int j = 0; j < 6; j++) {
				CHECK_MSG(p[j] && alignment_of(p[j]) >= want, "%s size %zu: %p is %zu-aligned, want %zu",
					  what[j], size, p[j], alignment_of(p[j]), want);
				live[k++] = p[j];
			}
		}
		for (size_t i = 0; i < k; i++)
			free(live[i]);
	}
}

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + 3);
}

static int same_prefix(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 7 + 3))
			return 0;
	return 1;
}

static void covers(const char *what, size_t n, void *p, size_t want)
{
	size_t u = malloc_usable_size(p);
	CHECK_MSG(p != NULL && u >= want, "%s(%zu): %p usable %zu, want >= %zu", what, n, p, u, want);
	if (p)
		memset(p, 0x5a, u);                 /* the whole usable size is ours */
	free(p);
}

/* malloc_usable_size >= request from every entry point; realloc shrinking
 * and growing across size classes and the huge-page threshold keeps the
 * prefix; free(NULL) is a no-op */
static void usable_size_covers_requests_and_realloc_keeps_contents(void)
{
	static const size_t sizes[] = { 1, 7, 8, 9, 15, 16, 17, 24, 100, 1000, 4095, 4096, 4097, 65536,
					100000, 1u << 20, (4u << 20) - 1, 4u << 20, 5u << 20, 33u << 20 };
	enum { N = sizeof sizes / sizeof sizes[0] };
	size_t ps = (size_t)getpagesize();
	free(NULL);
	CHECK(malloc_usable_size(NULL) == 0);
	for (size_t i = 0; i < N; i++) {
		size_t n = sizes[i];
		void *p = NULL;
		covers("malloc", n, malloc(n), n);
		covers("calloc", n, calloc(n, 1), n);
		covers("memalign(64)", n, memalign(64, n), n);
		covers("aligned_alloc(4096)", n, aligned_alloc(4096, n), n);
		covers("valloc", n, valloc(n), n);
		covers("pvalloc", n, pvalloc(n), (n + ps - 1) / ps * ps);
		CHECK(posix_memalign(&p, 128, n) == 0);
		covers("posix_memalign(128)", n, p, n);
		for (size_t j = 0; j < N; j++) {
			size_t m = sizes[j];
			unsigned char *volatile a = malloc(n);
			CHECK(a != NULL);
			if (!a)
				continue;
			fill(a, n);
			unsigned char *b = realloc(a, m);
			CHECK_MSG(b && same_prefix(b, n < m ? n : m), "realloc %zu -> %zu lost the contents", n, m);
			CHECK_MSG(!b || malloc_usable_size(b) >= m, "realloc %zu -> %zu: usable %zu", n, m,
				  b ? malloc_usable_size(b) : 0);
			free(b ? b : a);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_cstd_blocks BACKEND zero-size|small-alignment|usable-size\n");
		return 2;
	}
	CHECK_MSG(strcmp(hugepolicy_backend(), argv[1]) == 0, "backend %s, want %s", hugepolicy_backend(), argv[1]);
	if (strcmp(argv[2], "zero-size") == 0)
		zero_size_requests_give_unique_aligned_blocks();
	else if (strcmp(argv[2], "small-alignment") == 0)
		small_blocks_meet_c23_alignment();
	else if (strcmp(argv[2], "usable-size") == 0)
		usable_size_covers_requests_and_realloc_keeps_contents();
	else {
		fprintf(stderr, "test_cstd_blocks: unknown case %s\n", argv[2]);
		return 2;
	}
	return check_result(argv[2]);
}
