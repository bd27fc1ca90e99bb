#!/bin/sh
# hugetlb_cgroup.sh LIMIT_BYTES CMD... - run CMD inside a new cgroup v2 leaf
# whose *parent* has hugetlb.2MB.max = LIMIT_BYTES (as container runtimes set
# limits), then move back and remove both cgroups, in every exit path.
# Exit 77 (skip) with the reason when no cgroup v2 hugetlb controller can be
# used here (not root, no cgroup2 mount, controller missing).
set -u
limit=$1
shift
[ "$(id -u)" = 0 ] || { echo "SKIP: cgroups need root: $(id -un)"; exit 77; }
mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$mnt" ] || { echo "SKIP: no cgroup2 mount in /proc/self/mountinfo"; exit 77; }
grep -qw hugetlb "$mnt/cgroup.controllers" 2>/dev/null ||
	{ echo "SKIP: cgroup2 at $mnt has no hugetlb controller"; exit 77; }
orig=$(sed -n 's/^0:://p' /proc/self/cgroup)
enabled_root=0
if ! grep -qw hugetlb "$mnt/cgroup.subtree_control"; then
	echo +hugetlb > "$mnt/cgroup.subtree_control" 2>/dev/null ||
		{ echo "SKIP: cannot enable +hugetlb in $mnt/cgroup.subtree_control"; exit 77; }
	enabled_root=1
fi
parent="$mnt/hugepolicy-test-$$"
cleanup() {
	[ -d "$parent/leaf" ] && echo $$ > "$mnt$orig/cgroup.procs" 2>/dev/null
	rmdir "$parent/leaf" "$parent" 2>/dev/null
	[ $enabled_root = 1 ] && echo -hugetlb > "$mnt/cgroup.subtree_control" 2>/dev/null
	return 0
}
trap 'cleanup; exit 130' INT TERM HUP
mkdir "$parent" && echo +hugetlb > "$parent/cgroup.subtree_control" && mkdir "$parent/leaf" &&
	echo "$limit" > "$parent/hugetlb.2MB.max" && echo $$ > "$parent/leaf/cgroup.procs" ||
	{ cleanup; echo "SKIP: cannot set up $parent with hugetlb.2MB.max=$limit"; exit 77; }
echo "cgroup $parent/leaf, parent hugetlb.2MB.max=$(cat "$parent/hugetlb.2MB.max")"
"$@"
rc=$?
echo "hugetlb.2MB.max: $(cat "$parent/hugetlb.2MB.events" 2>/dev/null | tr '\n' ' ')"
cleanup
exit $rc
