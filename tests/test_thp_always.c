/* test_thp_always.c - what each mode keeps off THP on a host whose THP
 * `enabled` is `always` (thp_enabled.sh switches it for the test), read
 * back from /proc/self/smaps.
 * usage: test_thp_always off|auto|thp
 *   off:  a 256 MiB buffer and 1024 blocks of 64 KiB: 0 kB AnonHugePages in
 *         the whole process;
 *   off-own: the same buffer on base pages, while 8 MiB the program maps
 *         and advises MADV_HUGEPAGE itself has huge pages - off means the
 *         same on a THP always host (kernel >= 6.18) as on a madvise one;
 *   auto: the 64 KiB blocks' mappings have 0 kB AnonHugePages, an 8 MiB
 *         block's mapping has at least one huge page;
 *   thp:  the 8 MiB block has huge pages (explicit thp clears an inherited
 *         PR_SET_THP_DISABLE);
 *   auto-glibc: (a kernel without PR_THP_DISABLE_EXCEPT_ADVISED) the 8 MiB
 *         block has huge pages and the report's plan.small_nohuge_reason
 *         says glibc's heap stays on the kernel's THP, which hugepolicy
 *         cannot advise;
 *   huge: (mimalloc's own large_os_pages) the 8 MiB block is on hugetlb
 *         pages when the pool has room, else on THP; either way the report's
 *         process.hugetlb agrees with smaps;
 *   own:  (any mode) hugepolicy's own zero-initialised static memory (the
 *         .bss of the object that defines hugepolicy_version) has 0 kB
 *         AnonHugePages. */
#define _GNU_SOURCE
#include "check.h"
#include "report_keys.h"
#include "smaps_vma.h"

#include <dlfcn.h>
#include <hugepolicy.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { NSMALL = 1024, SMALL = 64 << 10, BIG = 8 << 20, HUGE_BUF = 256 << 20 };

/* AnonHugePages (kB) of the mapping that holds p, or -1 */
static long vma_anon_huge(const void *p)
{
	char line[512];
	return smaps_vma_field(p, "AnonHugePages:", line, sizeof line) ? atol(line + 14) : -1;
}

static long process_anon_huge(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "AnonHugePages:", 14) == 0)
			kb = atol(line + 14);
	if (f)
		fclose(f);
	return kb;
}

struct bss {
	uintptr_t base, lo, hi;
};

static int find_bss(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct bss *b = arg;
	if (info->dlpi_addr != b->base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && ph->p_memsz > ph->p_filesz) {
			b->lo = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;
			b->hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		}
	}
	return 1;
}

/* AnonHugePages (kB) of the mappings over libhugepolicy's .bss, or -1 */
static long own_bss_anon_huge(void)
{
	Dl_info di;
	struct bss b = { 0, 0, 0 };
	if (!dladdr((void *)hugepolicy_version, &di))
		return -1;
	b.base = (uintptr_t)di.dli_fbase;
	dl_iterate_phdr(find_bss, &b);
	if (b.hi <= b.lo)
		return -1;
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0;
	long kb = 0;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = lo < b.hi && hi > b.lo;
		else if (in && strncmp(line, "AnonHugePages:", 14) == 0)
			kb += atol(line + 14);
	}
	if (f)
		fclose(f);
	printf("libhugepolicy .bss %#lx-%#lx: %ld kB AnonHugePages\n", (unsigned long)b.lo, (unsigned long)b.hi, kb);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *mode = argv[1];
	static char *small[NSMALL];
	for (int i = 0; i < NSMALL; i++) {
		small[i] = malloc(SMALL);
		CHECK(small[i] != NULL);
		if (small[i])
			memset(small[i], i, SMALL);
	}
	char *big = malloc(BIG);
	CHECK(big != NULL);
	if (big)
		memset(big, 7, BIG);
	int off_own = strcmp(mode, "off-own") == 0;
	char *buf = strcmp(mode, "off") == 0 || off_own ? malloc(HUGE_BUF) : NULL;
	if (buf)
		memset(buf, 9, HUGE_BUF);
	long own_huge = -1;
	if (off_own) {          /* the program's own advice: 8 MiB, 2 MiB-aligned */
		unsigned char *m = mmap(NULL, BIG + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(m != MAP_FAILED);
		if (m != MAP_FAILED) {
			unsigned char *own = (unsigned char *)(((uintptr_t)m + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
			CHECK(madvise(own, BIG, MADV_HUGEPAGE) == 0);
			memset(own, 5, BIG);
			own_huge = vma_anon_huge(own);
		}
	}
	long small_huge = 0;
	for (int i = 0; i < NSMALL; i += 64) {
		long kb = vma_anon_huge(small[i]);
		if (kb > small_huge)
			small_huge = kb;
	}
	long big_huge = big ? vma_anon_huge(big) : -1, all = process_anon_huge();
	printf("%s/%s: largest AnonHugePages of a 64 KiB block's mapping %ld kB, 8 MiB block's %ld kB, "
	       "process %ld kB\n", hugepolicy_backend(), mode, small_huge, big_huge, all);
	hugepolicy_report(1, 0);
	char report[16384];
	report_text(report, sizeof report);
	if (strcmp(mode, "own") == 0) {
		CHECK(own_bss_anon_huge() == 0);
	} else if (strcmp(mode, "auto-glibc") == 0) {
		CHECK(report_is(report, "plan.small_nohuge", "false") &&
		      report_has(report, "plan.small_nohuge_reason", "glibc's heap"));
		CHECK(big_huge >= 2048);
	} else if (strcmp(mode, "off") == 0) {
		CHECK(all == 0);
	} else if (off_own) {
		printf("off: the program's own MADV_HUGEPAGE mapping %ld kB AnonHugePages, the 256 MiB buffer's %ld kB\n",
		       own_huge, buf ? vma_anon_huge(buf) : -1);
		CHECK(own_huge >= 2048);
		CHECK(buf && vma_anon_huge(buf) == 0 && small_huge == 0 && big_huge == 0);
	} else if (strcmp(mode, "auto") == 0) {
		CHECK(small_huge == 0);
		CHECK(big_huge >= 2048);
	} else if (strcmp(mode, "huge") == 0) {
		long page_kb = big ? smaps_vma_page_kb(big) : -1;
		long long hugetlb = report_num(report, "process.hugetlb");
		printf("8 MiB block: KernelPageSize %ld kB, report's process.hugetlb %lld\n", page_kb, hugetlb);
		CHECK(big_huge >= 2048 || page_kb >= 2048);
		CHECK(page_kb >= 2048 ? hugetlb >= BIG : hugetlb == 0);
	} else {
		CHECK(big_huge >= 2048);
	}
	return check_result("test_thp_always");
}
