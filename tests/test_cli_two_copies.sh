#!/bin/sh
# test_cli_two_copies.sh BUILD_DIR - two different copies of libhugepolicy in
# LD_PRELOAD: the dynamic linker binds malloc to the first, and the second
# stays inert - one start-up, one set of verbose lines, one exit report.
. "$(dirname "$0")/test_cli_common.sh"
mkdir "$t/copy"
cp "$lib" "$t/copy/libhugepolicy.so.0"
copy="$t/copy/libhugepolicy.so.0"

for order in "$lib:$copy" "$copy:$lib"; do
	LD_PRELOAD=$order cat /proc/self/maps >"$t/maps"
	check "both copies are loaded ($order)" \
		[ "$(grep -c "$lib" "$t/maps")" -gt 0 -a "$(grep -c "$copy" "$t/maps")" -gt 0 ]
	for b in system jemalloc mimalloc; do
		# (true, not echo: coreutils' echo closes stderr before the report)
		LD_PRELOAD=$order HUGEPOLICY_BACKEND=$b HUGEPOLICY_VERBOSE=1 HUGEPOLICY_STATS=json \
			/bin/true 2>"$t/err"
		check "$b: the program runs (exit 0)" [ $? -eq 0 ]
		check "$b: one backend line" [ "$(count "$t/err" "\\]: backend $b ")" -eq 1 ]
		check "$b: one exit report" [ "$(count "$t/err" '^hugepolicy-stats: ')" -eq 1 ]
	done
done
finish test_cli_two_copies
