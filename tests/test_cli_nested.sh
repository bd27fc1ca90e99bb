#!/bin/sh
# test_cli_nested.sh BUILD_DIR - a nested `hugepolicy run`: the outer run
# preloads the library into the inner CLI, which stays quiet there (no
# decision line, no warning, no report of its own, no THP switch for the
# command to inherit); the command prints everything once.
. "$(dirname "$0")/test_cli_common.sh"
for b in system jemalloc mimalloc; do
	HUGEPOLICY_BACKEND=$b "$cli" run --verbose --stats=json -- "$cli" run -- /bin/true 2>"$t/err"
	check "$b: the nested run works (exit 0)" [ $? -eq 0 ]
	cut -c 1-100 "$t/err"
	check "$b: no line from the inner CLI" [ "$(count "$t/err" '^hugepolicy\[hugepolicy ')" -eq 0 ]
	check "$b: one backend line, the command's" [ "$(count "$t/err" "^hugepolicy\\[true [0-9]*\\]: backend $b ")" -eq 1 ]
	check "$b: one exit report, the command's" [ "$(count "$t/err" '^hugepolicy-stats: \{"pid":[0-9]*,"program":"true"')" -eq 1 ] &&
		check "... and no other" [ "$(count "$t/err" '^hugepolicy-stats: ')" -eq 1 ]
	HUGEPOLICY_BACKEND=$b HUGEPOLICY_THRESHOLD=4X "$cli" run -- "$cli" run -- /bin/true 2>"$t/err"
	check "$b: a bad value is said once, by the command" \
		[ "$(count "$t/err" "HUGEPOLICY_THRESHOLD='4X' is not valid")" -eq 1 ] &&
		check "... by true" [ "$(count "$t/err" '^hugepolicy\[true ')" -eq 1 ]
done
# nor does `hugepolicy probe` with the library preloaded
LD_PRELOAD="$lib" HUGEPOLICY_VERBOSE=1 "$cli" probe --json >/dev/null 2>"$t/err"
check "probe under LD_PRELOAD prints nothing on stderr" [ ! -s "$t/err" ]
finish test_cli_nested
