#!/bin/sh
# test_probe_measure.sh BUILD_DIR - `hugepolicy probe --measure` prints what
# a base-page and a THP fault cost here now, in the format documented, as
# positive figures, in text and JSON, and refuses a fixture root (the
# measurement is of this machine).
. "$(dirname "$0")/test_cli_common.sh"
py=$(real_python3)

"$cli" probe --measure >"$t/out" 2>"$t/err"
check "probe --measure exits 0" [ $? -eq 0 ]
grep -A3 '^fault costs' "$t/out"
num='[0-9][0-9]*\(\.[0-9]*\)\{0,1\}'
base=$(sed -n "s/^fault costs  *base page \($num\) us (\($num\) us per MiB)$/\1/p" "$t/out")
check "a base page's fault in us, and per MiB ($base)" [ -n "$base" ]
check "... above 0" awk -v v="${base:-0}" 'BEGIN { exit !(v > 0) }'
thp=$(sed -n "s/^  *THP fault as handed out now \($num\) us per 2 MiB (\($num\) us per MiB), mean of [0-9]*.*/\1/p" "$t/out")
check "a THP fault as handed out now, per 2 MiB ($thp)" [ -n "$thp" ]
check "... above 0" awk -v v="${thp:-0}" 'BEGIN { exit !(v > 0) }'
warm=$(sed -n "s/^  *THP fault of a huge page just freed (warm) \($num\) us per 2 MiB (\($num\) us per MiB)$/\1/p" "$t/out")
check "a warm THP fault, per 2 MiB ($warm)" [ -n "$warm" ]
check "... above 0" awk -v v="${warm:-0}" 'BEGIN { exit !(v > 0) }'
check "auto's verdict on them" \
	grep -Eq '^ +auto now: (a THP fault costs [0-9]+ us, 100 % of [0-9]+ base faults [0-9]+ us \([0-9.]+ us each\): (THP|base pages) cheaper|no huge page for a THP fault now .*)$' "$t/out"

"$cli" probe --measure --json >"$t/json" 2>>"$t/err"
check "probe --measure --json exits 0" [ $? -eq 0 ]
check "... one JSON object with fault_costs, every figure above 0" "$py" -c '
import json, sys
f = json.load(open(sys.argv[1]))["fault_costs"]
print(f)
assert f["base_ns"] > 0 and f["thp_ns"] > 0 and f["thp_warm_ns"] > 0 and f["base_pages_per_huge"] > 0
assert isinstance(f["got_thp"], bool) and isinstance(f["thp_pays"], bool) and f["verdict"]
' "$t/json"
check "nothing on stderr" [ ! -s "$t/err" ]

"$cli" probe --measure --root "$t" >/dev/null 2>"$t/err2"
check "--measure with --root is a usage error (exit 2)" [ $? -eq 2 ]
finish test_probe_measure
