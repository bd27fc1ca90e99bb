#!/bin/sh
# test_cli_dry_run.sh BUILD_DIR - `run --dry-run` prints NAME=value for every
# variable it would set (LD_PRELOAD included) and the command line, quoted
# so that a shell gives back the same words, exits 0 and runs nothing; its
# output replayed with env(1) reports as run does (review: it named the dry
# run's own pid, and the replay printed no report at all).
. "$(dirname "$0")/test_cli_common.sh"

"$cli" run --dry-run --backend jemalloc --pages=thp --stats json --verbose -- \
	sh -c 'touch "$1"' sh "$t/ran" "it's" "a b" "" >"$t/out" 2>"$t/err"
check "exit 0" [ $? -eq 0 ]
check "the command did not run" [ ! -e "$t/ran" ]
check "nothing on stderr" [ ! -s "$t/err" ]
cat "$t/out"
check "HUGEPOLICY_BACKEND=jemalloc" grep -qx "HUGEPOLICY_BACKEND=jemalloc" "$t/out"
check "HUGEPOLICY_PAGES=thp" grep -qx "HUGEPOLICY_PAGES=thp" "$t/out"
check "HUGEPOLICY_STATS=json" grep -qx "HUGEPOLICY_STATS=json" "$t/out"
check "HUGEPOLICY_VERBOSE=1" grep -qx "HUGEPOLICY_VERBOSE=1" "$t/out"
check "HUGEPOLICY_REPORT_PID= (empty: a replay's pid is not known, every process reports)" \
	grep -qx "HUGEPOLICY_REPORT_PID=" "$t/out"
check "LD_PRELOAD=the absolute versioned library" grep -qx "LD_PRELOAD=$lib" "$t/out"
check "every line but the last is NAME=value" \
	[ "$(head -n -1 "$t/out" | grep -Evc '^[A-Z_]+=')" -eq 0 ]
last=$(tail -n 1 "$t/out")
eval "set -- $last"
same=0
[ $# -eq 8 ] && [ "$1" = sh ] && [ "$2" = -c ] && [ "$3" = 'touch "$1"' ] && [ "$4" = sh ] &&
	[ "$5" = "$t/ran" ] && [ "$6" = "it's" ] && [ "$7" = "a b" ] && [ "$8" = "" ] && same=1
check "the command line, shell-quoted, gives back the same words" [ $same -eq 1 ]

rep=$(env $(grep '=' "$t/out" | grep -v '^HUGEPOLICY_STATS=') HUGEPOLICY_STATS=text /bin/true 2>&1)
check "the replay reports" sh -c 'echo "$1" | grep -q "hugepolicy"' sh "$rep"

LD_PRELOAD=/lib/x86_64-linux-gnu/libc.so.6:$lib "$cli" run --dry-run --inherit true >"$t/out"
check "--inherit: HUGEPOLICY_REPORT_PID= (empty)" grep -qx "HUGEPOLICY_REPORT_PID=" "$t/out"
check "LD_PRELOAD: hugepolicy first, the old entries after, itself once" \
	grep -qx "LD_PRELOAD=$lib:/lib/x86_64-linux-gnu/libc.so.6" "$t/out"
finish test_cli_dry_run
