/* test_jemalloc_hugetlb_hooks.c - white box, hugepolicy linked statically:
 * the extent hooks jemalloc_hugetlb.c gives every arena, called directly
 * the way jemalloc calls them, on a hugetlb extent and on ordinary memory.
 * Run under HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_PAGES=hugetlb with pages
 * in the pool.  Asserts what each hook answers (true = refused) and what
 * the kernel then says about the pages (smaps). */
#define _GNU_SOURCE
#include "check.h"
#include "smaps_vma.h"

#include <hugepolicy.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

/* jemalloc 5.3 extent_hooks_t (jemalloc(3)) */
struct hooks {
	void *(*alloc)(struct hooks *, void *, size_t, size_t, bool *, bool *, unsigned);
	bool (*dalloc)(struct hooks *, void *, size_t, bool, unsigned);
	void (*destroy)(struct hooks *, void *, size_t, bool, unsigned);
	bool (*commit)(struct hooks *, void *, size_t, size_t, size_t, unsigned);
	bool (*decommit)(struct hooks *, void *, size_t, size_t, size_t, unsigned);
	bool (*purge_lazy)(struct hooks *, void *, size_t, size_t, size_t, unsigned);
	bool (*purge_forced)(struct hooks *, void *, size_t, size_t, size_t, unsigned);
	bool (*split)(struct hooks *, void *, size_t, size_t, size_t, bool, unsigned);
	bool (*merge)(struct hooks *, void *, size_t, void *, size_t, bool, unsigned);
};
int hpje_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

enum { MB2 = 2 << 20 };

static int kps_kb(const void *p)
{
	return (int)smaps_vma_page_kb(p);
}

static unsigned long long hugetlb_now(void)
{
	struct hugepolicy_stats st = { .size = sizeof st };
	CHECK(hugepolicy_stats(&st) == 0);
	return (unsigned long long)st.hugetlb;
}

int main(void)
{
	free(malloc(1));
	if (strcmp(hugepolicy_backend(), "jemalloc") != 0) {
		printf("backend %s: expected jemalloc\n", hugepolicy_backend());
		return 1;
	}
	if (strcmp(hugepolicy_pages(), "hugetlb") != 0)
		SKIP("pages %s: the pool had no room at start-up (another process took it?)", hugepolicy_pages());
	struct hooks *h = NULL;
	size_t len = sizeof h;
	CHECK(hpje_mallctl("arena.0.extent_hooks", &h, &len, NULL, 0) == 0 && h != NULL);
	if (!h)
		return check_result("jemalloc_hugetlb hooks");
	/* what jemalloc's growth asks for: 2 MiB, page-aligned */
	bool zero = false, commit = false;
	unsigned char *tlb = h->alloc(h, NULL, MB2, 4096, &zero, &commit, 0);
	CHECK(tlb != NULL);
	if (!tlb)
		return check_result("jemalloc_hugetlb hooks");
	printf("alloc 2 MiB: %p KernelPageSize %d kB zero %d commit %d\n", (void *)tlb, kps_kb(tlb), zero, commit);
	struct hugepolicy_stats st = { .size = sizeof st };
	if (kps_kb(tlb) != 2048 && hugepolicy_stats(&st) == 0 && st.hugetlb_fallbacks > 0)
		SKIP("the pool refused a 2 MiB page: another process took its pages");
	CHECK(kps_kb(tlb) == 2048 && zero && commit);
	memset(tlb, 0x5a, MB2);
	/* below 2 MiB: ordinary pages */
	zero = commit = false;
	unsigned char *ord = h->alloc(h, NULL, 64 << 10, 4096, &zero, &commit, 0);
	CHECK(ord != NULL);
	printf("alloc 64 KiB: %p KernelPageSize %d kB\n", (void *)ord, ord ? kps_kb(ord) : -1);
	CHECK(ord && kps_kb(ord) == 4);
	if (!ord)
		return check_result("jemalloc_hugetlb hooks");
	memset(ord, 0x33, 64 << 10);
	unsigned long long before = hugetlb_now();
	/* hugetlb: every release refused, the pages stay (smaps Hugetlb) */
	CHECK(h->purge_forced(h, tlb, MB2, 0, MB2, 0));
	CHECK(h->purge_lazy(h, tlb, MB2, 0, MB2, 0));
	CHECK(h->decommit(h, tlb, MB2, 0, MB2, 0));
	CHECK(h->dalloc(h, tlb, MB2, true, 0));
	CHECK(!h->commit(h, tlb, MB2, 0, MB2, 0));
	unsigned long long after = hugetlb_now();
	printf("Hugetlb %llu kB before, %llu kB after the refused releases; first byte 0x%02x\n", before >> 10,
	       after >> 10, tlb[0]);
	CHECK(after == before && tlb[0] == 0x5a && tlb[MB2 - 1] == 0x5a);
	/* merge: never a hugetlb extent with an ordinary one, either order */
	CHECK(h->merge(h, tlb, MB2, ord, 64 << 10, true, 0));
	CHECK(h->merge(h, ord, 64 << 10, tlb, MB2, true, 0));
	CHECK(!h->merge(h, tlb, MB2 / 2, tlb + MB2 / 2, MB2 / 2, true, 0));
	CHECK(!h->merge(h, ord, 32 << 10, ord + (32 << 10), 32 << 10, true, 0));
	CHECK(!h->split(h, tlb, MB2, MB2 / 2, MB2 / 2, true, 0));
	/* ordinary: jemalloc's default, MADV_DONTNEED drops the page */
	CHECK(!h->purge_forced(h, ord, 64 << 10, 0, 64 << 10, 0));
	printf("ordinary byte after MADV_DONTNEED: 0x%02x\n", ord[0]);
	CHECK(ord[0] == 0);
	return check_result("jemalloc_hugetlb hooks");
}
