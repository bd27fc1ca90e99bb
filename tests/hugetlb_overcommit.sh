#!/bin/sh
# hugetlb_overcommit.sh PAGES CMD... - run CMD with PAGES more 2 MiB surplus
# pages allowed (/proc/sys/vm/nr_overcommit_hugepages), then give exactly
# that delta back, in every exit path.  Exit 77 (skip) when it cannot be set.
set -u
pages=$1
shift
f=/proc/sys/vm/nr_overcommit_hugepages
old=$(cat "$f" 2>/dev/null) || { echo "SKIP: $f unreadable"; exit 77; }
(echo $((old + pages)) > "$f") 2>/dev/null || { echo "SKIP: cannot write $f (need root): $(id -un)"; exit 77; }
give_back() {
	now=$(cat "$f")
	back=$((now - pages))
	[ "$back" -lt 0 ] && back=0
	echo "$back" > "$f"
}
trap 'give_back; exit 130' INT TERM HUP
"$@"
rc=$?
trap - INT TERM HUP
give_back
exit $rc
