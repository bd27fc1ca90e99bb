#!/bin/sh
# test_cgroup_real.sh BUILD_DIR [parent|cgns] - `hugepolicy probe
# --json` run in a cgroup C under a parent P, with 8 more free pages in the
# 2 MiB pool:
#   parent: P has hugetlb.2MB.max = 6291456 (3 pages), C none: cgroup_max is
#           P's limit, available at most 3, cgroup_where names P's file;
#   cgns:   C has 4194304 (2 pages), P 6291456, and the probe runs in a new
#           cgroup namespace rooted at C with its own cgroup2 mount (the
#           inherited mount's root shows as "/../..", which holds nothing):
#           cgroup_max is C's limit, seen as "cgroup / hugetlb.2MB.max";
#   inspect: as parent, but a process sleeps in C and `hugepolicy inspect
#           --json` of it runs here, outside: the limits are C's, not ours.
# Needs root and cgroup v2 with the hugetlb controller (found from
# /proc/self/mountinfo: /sys/fs/cgroup/unified on a hybrid host); else exit 77.
# Gives back every change on every exit: the cgroups, +hugetlb in the mount
# root's subtree_control if it was added, and the 8 pool pages (as a delta).
set -u
cli=$1/hugepolicy
mode=${2:-parent}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make cgroups and set the pool: $(id -un)"; exit 77; }
[ -x "$cli" ] || { echo "FAIL: no CLI at $cli"; exit 1; }
# the cgroup2 mount that shows the hierarchy's root (field 4 is "/");
# mountinfo writes a space in the mount point as \040
mnt=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") break;
	     if ($(i + 1) == "cgroup2" && $4 == "/") { gsub(/\\040/, " ", $5); print $5; exit } }' /proc/self/mountinfo)
[ -n "$mnt" ] || { echo "SKIP: no cgroup2 mount of the hierarchy's root in /proc/self/mountinfo"; exit 77; }
grep -qw hugetlb "$mnt/cgroup.controllers" 2>/dev/null ||
	{ echo "SKIP: $mnt/cgroup.controllers has no hugetlb: $(cat "$mnt/cgroup.controllers" 2>&1)"; exit 77; }

name=hp_cgtest_$$
P=$mnt/$name
C=$P/C
f=/proc/sys/vm/nr_hugepages
pages=8
added_root=0
added_pages=0
cleanup() {
	# C is empty once the probe's shell has exited; wait for the kernel to see it
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -d "$C" ] || break
		rmdir "$C" 2>/dev/null && break
		sleep 0.1
	done
	[ -d "$P" ] && rmdir "$P"
	[ -n "${nsmnt:-}" ] && rmdir "$nsmnt"
	if [ "$added_root" = 1 ]; then
		echo -hugetlb > "$mnt/cgroup.subtree_control" 2>/dev/null ||
			echo "NOTE: could not take +hugetlb back from $mnt/cgroup.subtree_control (another cgroup uses it)"
	fi
	if [ "$added_pages" = 1 ]; then
		back=$(( $(cat $f) - pages ))
		[ "$back" -lt 0 ] && back=0
		echo "$back" > $f
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

if ! grep -qw hugetlb "$mnt/cgroup.subtree_control"; then
	echo +hugetlb > "$mnt/cgroup.subtree_control" ||
		{ echo "SKIP: cannot enable hugetlb in $mnt/cgroup.subtree_control"; exit 77; }
	added_root=1
fi
mkdir "$P" || { echo "FAIL: mkdir $P"; exit 1; }
echo +hugetlb > "$P/cgroup.subtree_control" || { echo "FAIL: +hugetlb in $P/cgroup.subtree_control"; exit 1; }
echo 6291456 > "$P/hugetlb.2MB.max" || { echo "FAIL: cannot set $P/hugetlb.2MB.max"; exit 1; }
mkdir "$C" || { echo "FAIL: mkdir $C"; exit 1; }
[ -f "$C/hugetlb.2MB.max" ] || { echo "FAIL: $C has no hugetlb.2MB.max"; exit 1; }
if [ "$mode" = cgns ]; then
	echo 4194304 > "$C/hugetlb.2MB.max" || { echo "FAIL: cannot set $C/hugetlb.2MB.max"; exit 1; }
	command -v unshare >/dev/null || { echo "SKIP: no unshare(1) for a cgroup namespace"; exit 77; }
	nsmnt=$(mktemp -d) || exit 1
	limit=4194304 pages_room=2 want_where="cgroup / hugetlb.2MB.max"
else
	limit=6291456 pages_room=3 want_where="cgroup /$name hugetlb.2MB.max"
fi
echo "P: $(cat "$P/hugetlb.2MB.max") C: $(cat "$C/hugetlb.2MB.max") (9223372036854771712 = no limit)"

old=$(cat $f) || { echo "SKIP: $f unreadable"; exit 77; }
echo $((old + pages)) > $f 2>/dev/null || { echo "SKIP: cannot write $f"; exit 77; }
added_pages=1
[ "$(cat $f)" -ge $((old + pages)) ] || { echo "SKIP: the kernel gave $(cat $f) of $((old + pages)) pages"; exit 77; }

# the probe runs in C: a shell moves itself there, then becomes the CLI (in
# cgns mode: in a new cgroup and mount namespace, with cgroup2 mounted there)
if [ "$mode" = cgns ]; then
	out=$(sh -c 'echo $$ > "$1/cgroup.procs" && exec unshare -Cm sh -c "mount -t cgroup2 none \"\$0\" &&
		grep cgroup2 /proc/self/mountinfo >&2 && exec \"\$1\" probe --json" "$3" "$2"' sh "$C" "$cli" "$nsmnt") ||
		{ echo "FAIL: probe in a cgroup namespace at $C failed: $out"; exit 1; }
elif [ "$mode" = inspect ]; then
	sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 60' sh "$C" &
	spid=$!
	for i in $(seq 50); do grep -q sleep "/proc/$spid/comm" 2>/dev/null && break; sleep 0.1; done
	out=$("$cli" inspect --json "$spid")
	rc=$?
	kill "$spid"
	wait "$spid"
	[ "$rc" = 0 ] || { echo "FAIL: inspect of $spid in $C failed ($rc): $out"; exit 1; }
else
	out=$(sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" probe --json' sh "$C" "$cli") ||
		{ echo "FAIL: probe in $C failed: $out"; exit 1; }
fi
pool=$(printf '%s\n' "$out" | grep -o '{"page_size":2097152,[^}]*}')
echo "2 MiB pool as probed in C ($mode): $pool"
num() { printf '%s\n' "$pool" | sed -n "s/.*\"$1\":\(-\{0,1\}[0-9][0-9]*\).*/\1/p"; }
str() { printf '%s\n' "$pool" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
cgmax=$(num cgroup_max)
avail=$(num available)
free=$(num free)
resv=$(num reserved)
where=$(str cgroup_where)
fail=0
[ "$cgmax" = $limit ] || { echo "FAIL: cgroup_max is '$cgmax', want $limit"; fail=1; }
[ "$where" = "$want_where" ] || { echo "FAIL: cgroup_where is '$where', want '$want_where'"; fail=1; }
if [ -z "$avail" ] || [ -z "$free" ] || [ -z "$resv" ]; then
	echo "FAIL: no available/free/reserved in the probe's 2 MiB pool"; fail=1
else
	# available = min(Free - Rsvd, the room under the limit), from the same probe
	want=$((free - resv)); [ "$want" -gt $pages_room ] && want=$pages_room
	[ "$avail" -le $pages_room ] && [ "$avail" -eq "$want" ] ||
		{ echo "FAIL: available is $avail, want $want (free $free, reserved $resv, room $pages_room pages)"; fail=1; }
	[ $((free - resv)) -gt $pages_room ] ||
		echo "NOTE: someone else holds the pool (free $free, reserved $resv): the limit did not bound available this time"
fi
[ "$fail" = 0 ] && echo "ok: cgroup_max $cgmax, available $avail of $((free - resv)) free-rsvd, where '$where'"
exit $fail
