#!/bin/sh
# test_cli_library.sh BUILD_DIR - HUGEPOLICY_LIBRARY must name a libhugepolicy
# (an ELF shared object exporting hugepolicy_version): anything else is one
# line on stderr and exit 1, without running the command; a valid relative
# path is made absolute, so a child that changes directory still gets it.
. "$(dirname "$0")/test_cli_common.sh"

refused() { # refused DESCRIPTION PATH
	HUGEPOLICY_LIBRARY=$2 "$cli" run -- touch "$t/ran" 2>"$t/err"
	rc=$?
	cat "$t/err"
	check "$1: exit 1" [ $rc -eq 1 ]
	check "$1: one line on stderr" [ "$(wc -l <"$t/err")" -eq 1 ]
	check "$1: it names the variable and the path" grep -qF "HUGEPOLICY_LIBRARY=$2: " "$t/err"
	check "$1: the command did not run" [ ! -e "$t/ran" ]
	rm -f "$t/ran"
}
refused "/etc/passwd (not ELF)" /etc/passwd
mi=$(/sbin/ldconfig -p | awk '$1 == "libmimalloc.so.2" { print $NF; exit }')
if [ -n "$mi" ]; then
	refused "libmimalloc.so.2 (another allocator)" "$mi"
else
	echo "FAIL: libmimalloc.so.2 not found (ldconfig -p)"; fail=$((fail + 1))
fi
refused "a file that is not there" "$t/nothing/libhugepolicy.so.0"
refused "a directory" "$build"
refused "a program (/usr/bin/true, a PIE: ET_DYN too)" "$(realpath /usr/bin/true)"
# truncated copies of the real library: read within bounds, refused
size=$(stat -L -c %s "$lib")
for n in 63 64 4096 $((size / 2)) $((size - 1)); do
	head -c "$n" "$lib" >"$t/libhugepolicy.so.0"
	refused "the library cut at $n bytes" "$t/libhugepolicy.so.0"
done

# valid and relative: absolute in LD_PRELOAD, and a child in / still has it
cd "$build" || exit 1
out=$(HUGEPOLICY_LIBRARY=./libhugepolicy.so.0 "$cli" run --dry-run -- true | grep '^LD_PRELOAD=')
check "relative HUGEPOLICY_LIBRARY is made absolute: $out" [ "$out" = "LD_PRELOAD=$build/libhugepolicy.so.0" ]
HUGEPOLICY_LIBRARY=libhugepolicy.so.0 "$cli" run -- sh -c 'cd / && exec cat /proc/self/maps' >"$t/maps" 2>"$t/err"
check "a child that changed directory has libhugepolicy mapped" grep -q "$build/libhugepolicy.so" "$t/maps"
check "... and the loader said nothing" [ ! -s "$t/err" ]
finish test_cli_library
