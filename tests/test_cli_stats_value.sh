#!/bin/sh
# test_cli_stats_value.sh BUILD_DIR - `--stats json` and `--stats text` take
# the next word as the value; any other next word is the command; every
# valued option takes `--opt VALUE` and `--opt=VALUE`.
. "$(dirname "$0")/test_cli_common.sh"

"$cli" run --stats json -- true 2>"$t/err"
check "run --stats json -- true exits 0" [ $? -eq 0 ]
check "... with one JSON report" [ "$(count "$t/err" '^hugepolicy-stats: \{')" -eq 1 ]
"$cli" run --stats json true 2>"$t/err"
check "run --stats json true (no --): one JSON report" [ "$(count "$t/err" '^hugepolicy-stats: \{')" -eq 1 ]
"$cli" run --stats text -- true 2>"$t/err"
check "run --stats text: the text report" [ "$(count "$t/err" '^hugepolicy\[true [0-9]+\]: report$')" -eq 1 ]
"$cli" run --stats true 2>"$t/err"
check "run --stats true: true is the command (exit 0) ..." [ $? -eq 0 ]
check "... and the report is text" [ "$(count "$t/err" '^hugepolicy\[true [0-9]+\]: report$')" -eq 1 ]
"$cli" run --stats=json -- true 2>"$t/err"
check "run --stats=json: one JSON report" [ "$(count "$t/err" '^hugepolicy-stats: \{')" -eq 1 ]
"$cli" run --stats=loud -- true 2>"$t/err"
check "run --stats=loud is a usage error (2)" [ $? -eq 2 ]

for o in "backend jemalloc BACKEND" "pages thp PAGES" "threshold 8M THRESHOLD" \
	 "reserve 64M RESERVE" "verbose 1 VERBOSE" "stats json STATS"; do
	set -- $o
	a=$("$cli" run --dry-run "--$1" "$2" -- true | grep "^HUGEPOLICY_$3=")
	b=$("$cli" run --dry-run "--$1=$2" -- true | grep "^HUGEPOLICY_$3=")
	check "--$1 $2 and --$1=$2 both set HUGEPOLICY_$3=$2" [ "$a" = "HUGEPOLICY_$3=$2" -a "$b" = "$a" ]
done
"$cli" run --backend 2>"$t/err"
check "a valued option at the end is a usage error (2)" [ $? -eq 2 ]
finish test_cli_stats_value
