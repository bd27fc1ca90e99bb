#!/bin/sh
# thp_enabled.sh MODE CMD... - run CMD with /sys/kernel/mm/transparent_hugepage/enabled
# set to MODE (always, madvise, never), then put back the mode that was there,
# in every exit path.  Tests using it hold the CTest RESOURCE_LOCK thp_enabled.
# Exit 77 (skip) with the reason when THP cannot be switched here.
set -u
want=$1
shift
f=/sys/kernel/mm/transparent_hugepage/enabled
[ "$(id -u)" = 0 ] || { echo "SKIP: switching THP needs root: $(id -un)"; exit 77; }
[ -w "$f" ] || { echo "SKIP: $f is missing or read-only"; exit 77; }
was=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$f")
[ -n "$was" ] || { echo "SKIP: cannot read the mode in $f"; exit 77; }
restore() { echo "$was" > "$f"; }
trap 'restore; exit 130' INT TERM HUP
echo "$want" > "$f" || { echo "SKIP: cannot write '$want' to $f"; exit 77; }
echo "THP enabled: $was -> $want for the test"
"$@"
rc=$?
restore
exit $rc
