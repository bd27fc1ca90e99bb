/* fuzz_smaps.c - hp_pages_smaps (pages/pages.c: smaps_rollup's Rss,
 * AnonHugePages, Private_Hugetlb, Shared_Hugetlb) on a fuzzed
 * /proc/self/smaps_rollup: the whole input is the file.  The field parser
 * (kb_field) is static, so it is reached through the real function with the
 * file served by vfs.c.  Properties: it returns 0, and a field whose name
 * is not in the file's first 2047 bytes reads as 0. */
#include "fuzz.h"
#include "vfs.h"
#include "../../pages/hp_pages.h"

#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fz_quiet_say();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char seen[2048];
	size_t n = size < sizeof seen - 1 ? size : sizeof seen - 1;
	memcpy(seen, data, n);
	seen[n] = '\0';
	vfs_load_one("/proc/self/smaps_rollup", data, size);
	struct hp_rollup sm;
	memset(&sm, 0x5a, sizeof sm);
	FZ_CHECK(hp_pages_smaps(&sm) == 0);
	if (!strstr(seen, "\nRss:"))
		FZ_CHECK(sm.rss == 0);
	if (!strstr(seen, "\nAnonHugePages:"))
		FZ_CHECK(sm.anon_huge == 0);
	if (!strstr(seen, "\nPrivate_Hugetlb:") && !strstr(seen, "\nShared_Hugetlb:"))
		FZ_CHECK(sm.hugetlb == 0);
	return 0;
}
