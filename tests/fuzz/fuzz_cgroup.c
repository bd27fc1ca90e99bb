/* fuzz_cgroup.c - hp_cgroup_hugetlb_room (policy/cgroup.c) on fuzzed
 * /proc/self/cgroup, /proc/self/mountinfo and cgroupfs files (vfs.h's
 * format), for the 2 MiB, 1 GiB and 64 KiB page sizes.
 * Properties: a result is 0 with limit >= 0 and usage >= 0, or 0 with no
 * limit (-1, -1), or an errno with both -1; `where` is NUL-terminated in
 * any room, even none; and the same tree seen under a root directory
 * (VFS_ROOT, with or without trailing slashes) gives the same answer. */
#include "fuzz.h"
#include "vfs.h"

#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fz_quiet_say();
	return 0;
}

struct answer { int rc; int64_t limit, usage; char where[128]; };

static struct answer ask(const char *root, uint64_t ps, size_t cap)
{
	struct answer a;
	memset(&a, 0x5a, sizeof a);
	vfs_under_root(root && *root);
	a.rc = hp_cgroup_hugetlb_room(root, ps, &a.limit, &a.usage, cap ? a.where : NULL, cap);
	vfs_under_root(0);
	FZ_CHECK(cap == 0 || memchr(a.where, 0, cap));
	FZ_CHECK(a.rc >= 0);
	if (a.rc == 0)
		FZ_CHECK((a.limit >= 0 && a.usage >= 0) || (a.limit == -1 && a.usage == -1));
	else
		FZ_CHECK(a.limit == -1 && a.usage == -1);
	return a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t sizes[] = { 2u << 20, 1u << 30, 64u << 10 };
	vfs_load(data, size);
	for (int s = 0; s < 3; s++) {
		struct answer a = ask("", sizes[s], sizeof a.where);
		if (s > 0 && a.rc == 0 && a.limit < 0)
			continue;       /* no limit for this size: the others add nothing */
		struct answer b = ask(VFS_ROOT, sizes[s], sizeof b.where);
		struct answer c = ask(VFS_ROOT "//", sizes[s], 5);
		FZ_CHECK(a.rc == b.rc && a.limit == b.limit && a.usage == b.usage);
		FZ_CHECK(strcmp(a.where, b.where) == 0);
		FZ_CHECK(a.rc == c.rc && a.limit == c.limit && a.usage == c.usage);
		ask(NULL, sizes[s], 0);
	}
	return 0;
}
