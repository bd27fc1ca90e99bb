/* test_cstd_errors.c - every backend fails the same way: a NULL result for a
 * non-zero request leaves errno == ENOMEM (EINVAL for a bad alignment, the
 * return value and errno for posix_memalign), an old block survives a failed realloc,
 * realloc(p, 0) frees p and returns NULL with errno unchanged, and a
 * successful call leaves errno alone.
 * usage: test_cstd_errors BACKEND too-large|address-limit|realloc-zero|success-errno */
#define _GNU_SOURCE
#include "check.h"

#include <errno.h>
#include <hugepolicy.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* volatile: the compiler must not see (and warn about) the impossible sizes */
static volatile size_t vol;

#define SENTINEL 4242

/* expr must be NULL with errno ENOMEM; n is printed with it */
#define NULL_ENOMEM(n, expr) do { \
	errno = 0; \
	void *r_ = (expr); \
	CHECK_MSG(r_ == NULL && errno == ENOMEM, "%s with n=%#zx: %p, errno %d (%s), want NULL, ENOMEM", \
		  #expr, (size_t)(n), r_, errno, strerror(errno)); \
	if (r_ != NULL) \
		free(r_); \
} while (0)

/* posix_memalign must return ENOMEM, leave *out alone, and leave ENOMEM in
 * errno as glibc does (POSIX only asks for the return value) */
static void posix_memalign_enomem(size_t align, size_t n)
{
	void *out = (void *)0x1;
	errno = SENTINEL;
	int rc = posix_memalign(&out, align, n);
	CHECK_MSG(rc == ENOMEM && errno == ENOMEM && out == (void *)0x1,
		  "posix_memalign(align %#zx, n %#zx) = %d, errno %d, out %p; want ENOMEM, errno ENOMEM, out 0x1",
		  align, n, rc, errno, out);
	if (rc == 0)
		free(out);
}

static int filled(const unsigned char *p, size_t n, unsigned char c)
{
	for (size_t i = 0; i < n; i += n / 64 + 1)
		if (p[i] != c)
			return 0;
	return p[n - 1] == c;
}

/* every allocating entry point, for a size it cannot serve; q (q_len bytes
 * of 'q') must survive the failed reallocs */
static void every_entry_point_fails(size_t n, unsigned char *q, size_t q_len)
{
	unsigned char *volatile old = q;   /* the compiler must not see q "used after realloc" */
	NULL_ENOMEM(n, malloc(n));
	NULL_ENOMEM(n, calloc(1, n));
	NULL_ENOMEM(n, calloc(n / 16, 16));
	NULL_ENOMEM(n, realloc(old, n));
	NULL_ENOMEM(n, reallocarray(old, 1, n));
	NULL_ENOMEM(n, reallocarray(old, 2, n / 2));
	CHECK_MSG(filled(q, q_len, 'q'), "block of %zu bytes changed by failed reallocs to %#zx", q_len, n);
	NULL_ENOMEM(n, memalign(16, n));
	NULL_ENOMEM(n, memalign(64, n));
	NULL_ENOMEM(n, memalign(2u << 20, n));
	NULL_ENOMEM(n, aligned_alloc(16, n));
	NULL_ENOMEM(n, aligned_alloc(4096, n));
	NULL_ENOMEM(n, valloc(n));
	NULL_ENOMEM(n, pvalloc(n));
	posix_memalign_enomem(64, n);
	posix_memalign_enomem(4096, n);
}

/* 0x7000000000000000 up to SIZE_MAX: no address space has that much, and
 * no object may exceed PTRDIFF_MAX */
static void too_large_requests_fail_with_enomem(void)
{
	static const size_t sizes[] = { 0x7000000000000000ull, 0x7fff000000000000ull,
					(size_t)PTRDIFF_MAX - 4095, (size_t)PTRDIFF_MAX, (size_t)PTRDIFF_MAX + 1,
					(size_t)PTRDIFF_MAX + 16, SIZE_MAX - 4095, SIZE_MAX };
	unsigned char *q = malloc(64);
	CHECK(q != NULL);
	memset(q, 'q', 64);
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		vol = sizes[i];
		every_entry_point_fails(vol, q, 64);
	}
	/* a power-of-two alignment that no address space can honour */
	for (int s = 62; s <= 63; s++) {
		vol = (size_t)1 << s;
		NULL_ENOMEM(vol, memalign(vol, 16));
		NULL_ENOMEM(vol, aligned_alloc(vol, 16));
		posix_memalign_enomem(vol, 16);
	}
	free(q);
}

static size_t vm_size(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t kb = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %zu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/* RLIMIT_AS = what the process maps now + `headroom`: requests above it fail */
static void limit_address_space(size_t headroom)
{
	size_t now = vm_size();
	struct rlimit rl;
	CHECK(now > 0 && getrlimit(RLIMIT_AS, &rl) == 0);
	rl.rlim_cur = now + headroom;
	if (setrlimit(RLIMIT_AS, &rl) != 0)
		SKIP("setrlimit(RLIMIT_AS, %zu): %s", now + headroom, strerror(errno));
}

/* 2 GiB with 1 GiB of address space left, in a real allocator that would
 * give it without the limit: the failure path of every backend */
static void address_space_limit_fails_with_enomem(void)
{
	unsigned char *q = malloc(100), *r = malloc(32u << 20);
	CHECK(q != NULL && r != NULL);
	memset(q, 'q', 100);
	memset(r, 'q', 32u << 20);                    /* a block of its own mapping */
	limit_address_space(1ul << 30);
	every_entry_point_fails(2ul << 30, q, 100);
	every_entry_point_fails(2ul << 30, r, 32u << 20);
	/* the backend still serves what fits */
	unsigned char *s = malloc(256u << 20);
	CHECK_MSG(s != NULL, "256 MiB after the failures: %s", strerror(errno));
	if (s)
		memset(s, 1, 256u << 20);
	free(s);
	q = realloc(q, 200);
	CHECK(q != NULL && filled(q, 100, 'q'));
	free(q);
	free(r);
}

/* glibc's answer: p freed, NULL, errno unchanged; realloc(NULL, 0) = malloc(0) */
static void realloc_to_zero_frees_and_returns_null(void)
{
	static const size_t sizes[] = { 1, 16, 100, 4096, 100000, 1u << 20, 5u << 20, 64u << 20 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char *p = malloc(sizes[i]);
		CHECK(p != NULL);
		memset(p, 1, sizes[i]);
		errno = SENTINEL;
		void *r = realloc(p, 0);
		CHECK_MSG(r == NULL && errno == SENTINEL, "realloc(%zu-byte block, 0) = %p, errno %d; want NULL, errno %d",
			  sizes[i], r, errno, SENTINEL);
		free(r);
	}
	char *p = malloc(10);
	errno = SENTINEL;
	void *r = reallocarray(p, 0, 10);
	CHECK_MSG(r == NULL && errno == SENTINEL, "reallocarray(p, 0, 10) = %p, errno %d", r, errno);
	free(r);
	void *a = realloc(NULL, 0), *b = realloc(NULL, 0);
	CHECK_MSG(a && b && a != b, "realloc(NULL, 0) twice: %p %p, want two unique pointers", a, b);
	free(a);
	free(b);
	/* p is really freed: 4 GiB of blocks given back one by one through
	 * realloc(p, 0) fit in 512 MiB of address space */
	limit_address_space(512u << 20);
	for (int i = 0; i < 4096; i++) {
		p = malloc(1u << 20);
		if (!p) {
			CHECK_MSG(p != NULL, "malloc(1 MiB) #%d failed: realloc(p, 0) does not free p", i);
			break;
		}
		p[0] = 1;
		r = realloc(p, 0);
		if (r != NULL) {
			CHECK_MSG(r == NULL, "realloc(p, 0) = %p", r);
			break;
		}
	}
}

/* POSIX: errno is unchanged by a successful call (glibc >= 2.33 too) */
#define KEEPS_ERRNO(expr) do { \
	errno = SENTINEL; \
	void *r_ = (expr); \
	CHECK_MSG(r_ != NULL && errno == SENTINEL, "%s: %p, errno %d, want a block and errno %d", \
		  #expr, r_, errno, SENTINEL); \
	errno = SENTINEL; \
	free(r_); \
	CHECK_MSG(errno == SENTINEL, "free(%s): errno %d", #expr, errno); \
} while (0)

static void successful_calls_leave_errno_alone(void)
{
	static const size_t sizes[] = { 0, 1, 24, 4096, 100000, 5u << 20, 33u << 20 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t n = sizes[i];
		KEEPS_ERRNO(malloc(n));
		KEEPS_ERRNO(calloc(1, n));
		KEEPS_ERRNO(calloc(n, 1));
		KEEPS_ERRNO(memalign(64, n));
		KEEPS_ERRNO(aligned_alloc(4096, n));
		KEEPS_ERRNO(valloc(n));
		KEEPS_ERRNO(pvalloc(n));
		KEEPS_ERRNO(realloc(NULL, n));
		KEEPS_ERRNO(realloc(malloc(10), n + 1));            /* grow */
		KEEPS_ERRNO(realloc(malloc(64u << 20), n + 1));     /* shrink */
		void *p = NULL;
		errno = SENTINEL;
		CHECK(posix_memalign(&p, 256, n) == 0 && p && errno == SENTINEL);
		errno = SENTINEL;
		CHECK(malloc_usable_size(p) >= n && errno == SENTINEL);
		free(p);
	}
	errno = SENTINEL;
	free(NULL);
	CHECK(errno == SENTINEL);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_cstd_errors BACKEND too-large|address-limit|realloc-zero|success-errno\n");
		return 2;
	}
	CHECK_MSG(strcmp(hugepolicy_backend(), argv[1]) == 0, "backend %s, want %s", hugepolicy_backend(), argv[1]);
	if (strcmp(argv[2], "too-large") == 0)
		too_large_requests_fail_with_enomem();
	else if (strcmp(argv[2], "address-limit") == 0)
		address_space_limit_fails_with_enomem();
	else if (strcmp(argv[2], "realloc-zero") == 0)
		realloc_to_zero_frees_and_returns_null();
	else if (strcmp(argv[2], "success-errno") == 0)
		successful_calls_leave_errno_alone();
	else {
		fprintf(stderr, "test_cstd_errors: unknown case %s\n", argv[2]);
		return 2;
	}
	return check_result(argv[2]);
}
