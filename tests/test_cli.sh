#!/bin/sh
# test_cli.sh BUILD_DIR BACKEND - `hugepolicy run` on a real program
# (python3) with BACKEND: the program runs under that backend, its exit
# status comes back, --verbose prints each decision line once, --stats=json
# prints one report at exit, and the kernel shows huge pages under --pages thp
# and none under --pages off.
set -u
build=$1
backend=$2
cli="$build/hugepolicy"
py=/usr/bin/python3
fail=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT

check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then echo "ok: $d"; else echo "FAIL: $d"; fail=$((fail + 1)); fi
}

# exit status is the program's
"$cli" run --backend "$backend" -- "$py" -c 'import sys; sys.exit(3)' 2>"$err"
check "exit status 3 comes back" [ $? -eq 3 ]

# one line per decision, once, naming the backend
"$cli" run --backend "$backend" --pages off --verbose -- "$py" -c 'x = [bytearray(1000) for i in range(1000)]' 2>"$err"
check "verbose names the backend once" [ "$(grep -c "backend $backend (HUGEPOLICY_BACKEND)" "$err")" -eq 1 ]
check "verbose gives the page decision once" [ "$(grep -c "pages off (asked off)" "$err")" -eq 1 ]
check "verbose gives the config read back" [ "$(grep -c "config " "$err")" -eq 1 ]

# JSON report at exit
"$cli" run --backend "$backend" --stats=json -- "$py" -c 'pass' 2>"$err"
check "one JSON report at exit" [ "$(grep -c "^hugepolicy-stats: {\"pid\":[0-9]*,.*\"plan.backend\":\"$backend\"" "$err")" -eq 1 ]
check "the JSON report parses" "$py" -c '
import json, sys
line = [l for l in open(sys.argv[1]) if l.startswith("hugepolicy-stats: ")][0]
d = json.loads(line.split(": ", 1)[1])
assert d["plan.backend"] == sys.argv[2] and d["opt.backend"] == sys.argv[2], d
assert d["process.rss"] > 0, d
' "$err" "$backend"

# what the kernel says while a 256 MiB buffer lives
probe='
import sys
b = bytearray(256 << 20)
f = dict((l.split(":")[0], int(l.split()[1])) for l in open("/proc/self/smaps_rollup") if "kB" in l)
huge = f.get("AnonHugePages", 0) + f.get("Private_Hugetlb", 0) + f.get("Shared_Hugetlb", 0)
print("huge kB", huge)
sys.exit(0 if (huge >= 128 * 1024) == (sys.argv[1] == "yes") else 1)
'
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
case "$thp" in
*"[never]"*|"") echo "skip: THP is never/missing here: $thp" ;;
*) "$cli" run --backend "$backend" --pages thp -- "$py" -c "$probe" yes 2>"$err"
   check "--pages thp: >= 128 MiB huge-page-backed" [ $? -eq 0 ] ;;
esac
"$cli" run --backend "$backend" --pages off -- "$py" -c "$probe" no 2>"$err"
check "--pages off: no huge pages" [ $? -eq 0 ]

# usage errors
"$cli" run --backend bogus -- true 2>"$err"
check "bad --backend is a usage error (2)" [ $? -eq 2 ]
"$cli" run --pages 2 -- true 2>"$err"
check "bad --pages is a usage error (2)" [ $? -eq 2 ]
"$cli" run 2>"$err"
check "missing command is a usage error (2)" [ $? -eq 2 ]
"$cli" run -- /nonexistent/program 2>"$err"
check "a command that cannot run gives 127" [ $? -eq 127 ]
"$cli" run --help >/dev/null
check "run --help exits 0" [ $? -eq 0 ]
"$cli" probe --help >/dev/null
check "probe --help exits 0" [ $? -eq 0 ]

echo "test_cli $backend: $fail failed"
[ "$fail" -eq 0 ]
