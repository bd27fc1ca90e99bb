#!/bin/sh
# mthp_enabled.sh SIZE_KB MODE CMD... - run CMD with
# /sys/kernel/mm/transparent_hugepage/hugepages-SIZE_KBkB/enabled set to MODE
# (always, inherit, madvise, never), then put back the word that was there,
# on every exit path (a signal included).  MODE never also sets every other
# size below the PMD size to never for CMD (each restored).  Tests using it
# hold the CTest RESOURCE_LOCK thp_enabled.  Exit 77 (skip) with the reason
# when the size cannot be switched here; with -o first, run CMD as it is
# then (the size's keys are optional to it), saying why.
set -u
optional=0
[ "$1" = -o ] && { optional=1; shift; }
size=$1 want=$2
shift 2
dir=/sys/kernel/mm/transparent_hugepage
f=$dir/hugepages-${size}kB/enabled
why=""
if [ "$(id -u)" != 0 ]; then
	why="switching mTHP needs root: $(id -un)"
elif [ ! -w "$f" ]; then
	why="$f is missing or read-only (kernel < 6.8?)"
fi
if [ -n "$why" ]; then
	[ $optional = 1 ] && { echo "mthp_enabled.sh: $why; running the command as it is"; exec "$@"; }
	echo "SKIP: $why"
	exit 77
fi
pmd=$(cat $dir/hpage_pmd_size 2>/dev/null || echo 2097152)
saved=""                        # "file word" pairs, one a line, to put back
restore() {
	printf '%s\n' "$saved" | while read -r file word; do
		[ -n "$file" ] && echo "$word" > "$file"
	done
}
trap 'restore; exit 130' INT TERM HUP
set_mode() {   # file mode
	was=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$1")
	[ -n "$was" ] || { echo "SKIP: cannot read the mode in $1"; restore; exit 77; }
	saved="$saved
$1 $was"
	echo "$2" > "$1" || { echo "SKIP: cannot write '$2' to $1"; restore; exit 77; }
	echo "$1: $was -> $2 for the test"
}
set_mode "$f" "$want"
if [ "$want" = never ]; then
	for g in $dir/hugepages-*kB/enabled; do
		kb=${g#$dir/hugepages-}; kb=${kb%kB/enabled}
		[ "$g" != "$f" ] && [ $((kb * 1024)) -lt "$pmd" ] && set_mode "$g" never
	done
fi
"$@"
rc=$?
restore
exit $rc
