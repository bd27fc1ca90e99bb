#!/bin/sh
# test_region_example.sh TT - the transposition-table example prints
# Stockfish's line, and what it says agrees with the kernel: with pool room
# (8 pages added, given back) "large pages used" and hugetlb bytes; under a
# parent cgroup hugetlb limit of 0 "large pages not used" and THP instead;
# a resize keeps the stored entries.
set -u
tt=$1
here=$(dirname "$0")
fail=0
check() {       # check WHAT OUTPUT PATTERN
	if printf '%s\n' "$2" | grep -q "$3"; then echo "ok: $1: /$3/"; else echo "FAIL: $1: no /$3/"; fail=1; fi
}
out=$(sh "$here/hugetlb_pool.sh" 8 "$tt" 8 2>&1); rc=$?
printf '%s\n' "$out"
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "FAIL: tt 8 exited $rc"; fail=1; }
check "pool room" "$out" '^info string Hash table allocation: Linux large pages used\.$'
check "pool room" "$out" 'hugetlb 8 MiB, THP 0 MiB'
out=$(sh "$here/hugetlb_pool.sh" 8 sh "$here/hugetlb_cgroup.sh" 0 "$tt" 8 2>&1); rc=$?
printf '%s\n' "$out"
[ $rc = 0 ] || { echo "FAIL: tt 8 under a cgroup limit of 0 exited $rc"; fail=1; }
check "cgroup limit 0" "$out" '^info string Hash table allocation: Linux large pages not used\.$'
check "cgroup limit 0" "$out" 'pages: thp, 8 MiB mapped; kernel says hugetlb 0 MiB, THP 8 MiB'
check "cgroup limit 0" "$out" 'hugetlb: not used: the 2048 kB pool has room for 0 of 4 pages'
out=$("$tt" 4 12 2 2>&1); rc=$?
printf '%s\n' "$out"
[ $rc = 0 ] || { echo "FAIL: tt 4 12 2 exited $rc"; fail=1; }
check "resize" "$out" 'resized to 12 MiB: [1-9][0-9]* stored positions kept'
exit $fail
