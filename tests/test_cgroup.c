/* test_cgroup.c FIXTURES CASE - hp_cgroup_hugetlb_room on a fixture tree
 * (tests/fixtures/cgroup/<dir>/proc/self/{cgroup,mountinfo}, sys/fs/cgroup/...):
 * asserts the errno, the limit, the usage (so the room) and where, exactly. */
#include "../policy/hp_policy.h"
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define M2 (2ull << 20)
#define G1 (1ull << 30)

struct row {
	const char *name, *dir;
	uint64_t page_size;
	int rc;
	int64_t limit, usage;
	const char *where;
};

static const struct row rows[] = {
	{ "v2_leaf_limit", "v2_leaf_limit", M2, 0, 8388608, 2097152, "cgroup /user.slice/app.scope hugetlb.2MB.max" },
	{ "v2_other_size_no_limit", "v2_leaf_limit", G1, 0, -1, -1, "cgroup /user.slice/app.scope: no hugetlb.1GB limit" },
	{ "v2_hybrid_parent_limit", "v2_hybrid_parent_limit", M2, 0, 6291456, 0, "cgroup /hp/P hugetlb.2MB.max" },
	{ "v2_parent_smaller_than_leaf", "v2_parent_smaller_than_leaf", M2, 0, 8388608, 4194304,
	  "cgroup /kubepods/pod1 hugetlb.2MB.max" },
	{ "v2_parent_usage_counts", "v2_parent_usage_counts", M2, 0, 33554432, 31457280, "cgroup /a hugetlb.2MB.max" },
	{ "v2_rsvd_tighter", "v2_rsvd_tighter", M2, 0, 4194304, 2097152, "cgroup /a hugetlb.2MB.rsvd.max" },
	{ "v1_hugetlb", "v1_hugetlb", M2, 0, 4194304, 2097152, "cgroup /docker/abc hugetlb.2MB.limit_in_bytes" },
	{ "v1_no_limit_is_huge_number", "v1_hugetlb", G1, 0, -1, -1, "cgroup /docker/abc: no hugetlb.1GB limit" },
	{ "v1_parent_limit", "v1_parent_limit", M2, 0, 10485760, 2097152, "cgroup /batch hugetlb.2MB.limit_in_bytes" },
	{ "v2_no_hugetlb_controller", "v2_no_hugetlb_controller", M2, 0, -1, -1,
	  "no hugetlb controller in cgroup v2 (/sys/fs/cgroup/cgroup.controllers)" },
	{ "v1_no_hugetlb", "v1_no_hugetlb", M2, 0, -1, -1, "no hugetlb cgroup: /proc/self/cgroup has no hugetlb or v2 line" },
	{ "no_cgroup_mounted", "no_cgroup_mounted", M2, ENOENT, -1, -1, "no cgroup2 mount at all shows cgroup /" },
	{ "cgns_root", "cgns_root", M2, 0, 4194304, 0, "cgroup / hugetlb.2MB.max" },
	{ "mount_root_not_slash", "mount_root_not_slash", M2, 0, 6291456, 0, "cgroup /docker/abc hugetlb.2MB.max" },
	{ "outside_namespace", "outside_namespace", M2, ENOENT, -1, -1, "no cgroup2 mount shows cgroup /../sibling" },
	{ "escaped_mount_point", "escaped_mount_point", M2, 0, 2097152, 0, "cgroup /svc a hugetlb.2MB.max" },
	{ "size_64KB", "size_names", 64ull << 10, 0, 65536, 0, "cgroup /a hugetlb.64KB.max" },
	{ "size_32MB", "size_names", 32ull << 20, 0, 33554432, 0, "cgroup /a hugetlb.32MB.max" },
	{ "size_512MB", "size_names", 512ull << 20, 0, 536870912, 0, "cgroup /a hugetlb.512MB.max" },
	{ "size_16GB", "size_names", 16ull << 30, 0, 17179869184, 0, "cgroup /a hugetlb.16GB.max" },
	{ "bad_page_size", "v2_leaf_limit", 3000, EINVAL, -1, -1, "page size 3000 is not a huge page size" },
	{ "bad_value_garbage", "bad_value_garbage", M2, EINVAL, -1, -1, "cgroup /a hugetlb.2MB.max not a number" },
	{ "bad_value_no_newline", "bad_value_no_newline", M2, EINVAL, -1, -1,
	  "cgroup /a hugetlb.2MB.max truncated (no newline)" },
	{ "bad_value_overflow", "bad_value_overflow", M2, EINVAL, -1, -1, "cgroup /a hugetlb.2MB.max not a number" },
	{ "bad_value_negative", "bad_value_negative", M2, EINVAL, -1, -1, "cgroup /a hugetlb.2MB.max not a number" },
	{ "bad_value_empty", "bad_value_empty", M2, EINVAL, -1, -1, "cgroup /a hugetlb.2MB.current truncated (no newline)" },
	{ "bad_value_long", "bad_value_long", M2, EINVAL, -1, -1, "cgroup /a hugetlb.2MB.current too long" },
	{ "bad_usage_missing", "bad_usage_missing", M2, ENOENT, -1, -1, "cgroup /a hugetlb.2MB.current ENOENT" },
	{ "bad_mountinfo_no_newline", "bad_mountinfo_no_newline", M2, EINVAL, -1, -1,
	  "/proc/self/mountinfo truncated (no newline at the end)" },
	{ "bad_mountinfo_missing_fields", "bad_mountinfo_missing_fields", M2, EINVAL, -1, -1,
	  "/proc/self/mountinfo line 2: missing fields" },
	{ "bad_mountinfo_escape", "bad_mountinfo_escape", M2, EINVAL, -1, -1,
	  "/proc/self/mountinfo line 1: bad escape in root or mount point" },
	{ "bad_cgroup_garbage", "bad_cgroup_garbage", M2, EINVAL, -1, -1, "/proc/self/cgroup line 1: not ID:controllers:path" },
	{ "bad_cgroup_relative_path", "bad_cgroup_relative_path", M2, EINVAL, -1, -1,
	  "/proc/self/cgroup line 1: cgroup path 'a/b' is not absolute" },
	{ "bad_cgroup_no_newline", "bad_cgroup_no_newline", M2, EINVAL, -1, -1,
	  "/proc/self/cgroup truncated (no newline at the end)" },
	{ "bad_controllers_no_newline", "bad_controllers_no_newline", M2, EINVAL, -1, -1,
	  "/sys/fs/cgroup/cgroup.controllers truncated (no newline)" },
	{ "missing_mountinfo", "missing_mountinfo", M2, ENOENT, -1, -1, "/proc/self/mountinfo ENOENT" },
	{ "missing_tree", "no_such_fixture", M2, ENOENT, -1, -1, "/proc/self/cgroup ENOENT" },
	{ "huge_overlay_line_skipped", "huge_overlay_line_skipped", M2, 0, 4194304, 0, "cgroup /a hugetlb.2MB.max" },
	{ "huge_cgroup_mount_line", "huge_cgroup_mount_line", M2, E2BIG, -1, -1,
	  "/proc/self/mountinfo line 1 longer than 4095 bytes" },
	{ "huge_cgroup_path", "huge_cgroup_path", M2, E2BIG, -1, -1, "/proc/self/cgroup line 2 longer than 4095 bytes" },
	{ "long_cgroup_path", "long_cgroup_path", M2, ENAMETOOLONG, -1, -1,
	  "/proc/self/cgroup line 1: cgroup path longer than 511 bytes" },
	{ "long_mountinfo_limit_used_up", "long_mountinfo", M2, 0, 2097152, 2097152, "cgroup /a hugetlb.2MB.max" },
	{ "huge_unrelated_cgroup_line", "huge_unrelated_cgroup_line", M2, 0, 4194304, 0, "cgroup /a hugetlb.2MB.max" },
};

static void run(const char *fixtures, const struct row *r)
{
	char root[1024], where[160];
	int64_t limit = 12345, usage = 12345;
	snprintf(root, sizeof root, "%s/%s", fixtures, r->dir);
	memset(where, 'x', sizeof where);
	int rc = hp_cgroup_hugetlb_room(root, r->page_size, &limit, &usage, where, sizeof where);
	printf("%-28s rc=%d limit=%lld usage=%lld room=%lld where=\"%s\"\n", r->name, rc, (long long)limit,
	       (long long)usage, limit >= 0 ? (long long)(limit - usage) : -1LL, where);
	CHECK_MSG(rc == r->rc, "%s: rc %d, want %d", r->name, rc, r->rc);
	CHECK_MSG(limit == r->limit, "%s: limit %lld, want %lld", r->name, (long long)limit, (long long)r->limit);
	CHECK_MSG(usage == r->usage, "%s: usage %lld, want %lld", r->name, (long long)usage, (long long)r->usage);
	CHECK_MSG(strcmp(where, r->where) == 0, "%s: where \"%s\", want \"%s\"", r->name, where, r->where);
	if (rc == 0 && r->limit >= 0) {
		/* the same answer through "DIR/" and with a where too small to hold it */
		char root2[1100], tiny[8];
		snprintf(root2, sizeof root2, "%s/", root);
		int64_t l2, u2;
		CHECK(hp_cgroup_hugetlb_room(root2, r->page_size, &l2, &u2, tiny, sizeof tiny) == 0);
		CHECK(l2 == limit && u2 == usage && strlen(tiny) == sizeof tiny - 1);
		CHECK(memcmp(tiny, r->where, sizeof tiny - 1) == 0);
		CHECK(hp_cgroup_hugetlb_room(root, r->page_size, &l2, &u2, NULL, 0) == 0 && l2 == limit);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_cgroup FIXTURES CASE|all\n");
		return 2;
	}
	int found = 0;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (strcmp(argv[2], "all") == 0 || strcmp(argv[2], rows[i].name) == 0) {
			run(argv[1], &rows[i]);
			found++;
		}
	CHECK_MSG(found > 0, "no case named %s", argv[2]);
	return check_result(argv[2]);
}
