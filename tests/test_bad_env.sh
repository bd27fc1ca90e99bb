#!/bin/sh
# test_bad_env.sh BUILD_DIR - bad HUGEPOLICY_* values: the host keeps
# running, exactly one stderr line per bad variable names the variable, the
# value and the fallback, and the fallback is what runs.
set -u
build=$1
lib="$build/libhugepolicy.so"
fail=0
err=$(mktemp)
trap 'rm -f "$err"' EXIT
check() { d=$1; shift; if "$@"; then echo "ok: $d"; else echo "FAIL: $d"; fail=$((fail + 1)); fi; }

out=$(env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=bogus HUGEPOLICY_PAGES=2 HUGEPOLICY_THRESHOLD=-5 \
	HUGEPOLICY_VERBOSE= HUGEPOLICY_STATS=loud HUGEPOLICY_RESERVE=lots /bin/echo still-running 2>"$err")
check "host keeps running" [ "$out" = "still-running" ]
cat "$err"
check "BACKEND line" [ "$(grep -c "HUGEPOLICY_BACKEND='bogus' is not valid (expected system|jemalloc|mimalloc); using the default 'system'" "$err")" -eq 1 ]
check "PAGES line" [ "$(grep -c "HUGEPOLICY_PAGES='2' is not valid .*using the default 'auto'" "$err")" -eq 1 ]
check "THRESHOLD line" [ "$(grep -c "HUGEPOLICY_THRESHOLD='-5' is not valid .*using the default '4M'" "$err")" -eq 1 ]
check "empty VERBOSE line" [ "$(grep -c "HUGEPOLICY_VERBOSE='' is not valid" "$err")" -eq 1 ]
check "STATS line" [ "$(grep -c "HUGEPOLICY_STATS='loud' is not valid" "$err")" -eq 1 ]
check "RESERVE line" [ "$(grep -c "HUGEPOLICY_RESERVE='lots' is not valid" "$err")" -eq 1 ]
check "nothing else printed" [ "$(wc -l < "$err")" -eq 6 ]

env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=bogus HUGEPOLICY_VERBOSE=1 /bin/true 2>"$err"
check "fallback backend runs and says so" grep -q "backend system (default)" "$err"

# MALLOC_CONF is the user's and wins over hugepolicy's jemalloc settings
env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_PAGES=thp HUGEPOLICY_VERBOSE=1 \
	MALLOC_CONF=thp:never /bin/true 2>"$err"
check "user MALLOC_CONF wins and is reported" grep -q "opt.thp=never .*MALLOC_CONF='thp:never' applied after hugepolicy's and wins" "$err"
check "effective pages follow MALLOC_CONF" grep -q "pages off (asked thp)" "$err"

env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=mimalloc HUGEPOLICY_PAGES=off HUGEPOLICY_VERBOSE=1 \
	MIMALLOC_LARGE_OS_PAGES=1 /bin/true 2>"$err"
check "user MIMALLOC_LARGE_OS_PAGES wins and is reported" grep -q "large_os_pages=1 .*MIMALLOC_LARGE_OS_PAGES='1' wins" "$err"

env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=mimalloc HUGEPOLICY_PAGES=thp HUGEPOLICY_VERBOSE=1 \
	MIMALLOC_LARGE_OS_PAGES=0 /bin/true 2>"$err"
check "user MIMALLOC_LARGE_OS_PAGES=0 makes the effective mode off" grep -q "pages off (asked thp): MIMALLOC_LARGE_OS_PAGES=0" "$err"

# HUGEPOLICY_RESERVE where it cannot apply is said, without VERBOSE
env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=system HUGEPOLICY_RESERVE=64M /bin/true 2>"$err"
check "RESERVE under system is said once" [ "$(grep -c "HUGEPOLICY_RESERVE is for the mimalloc backend; ignored under system" "$err")" -eq 1 ]
env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=mimalloc HUGEPOLICY_PAGES=off HUGEPOLICY_RESERVE=64M /bin/true 2>"$err"
check "RESERVE under mimalloc off is said once" [ "$(grep -c "HUGEPOLICY_RESERVE ignored: it needs pages=hugetlb, and pages=off" "$err")" -eq 1 ]

# HUGEPOLICY_HUGETLB_SIZE where no block comes from a pool is said, without VERBOSE
for m in off thp; do
	env LD_PRELOAD="$lib" HUGEPOLICY_PAGES=$m HUGEPOLICY_HUGETLB_SIZE=2M /bin/true 2>"$err"
	check "HUGETLB_SIZE under $m is said once" [ "$(grep -c "HUGEPOLICY_HUGETLB_SIZE is for pages=hugetlb; ignored under pages=$m" "$err")" -eq 1 ]
done
env LD_PRELOAD="$lib" HUGEPOLICY_PAGES=auto HUGEPOLICY_HUGETLB_SIZE=2M /bin/true 2>"$err"
check "HUGETLB_SIZE under auto is not said (auto may take a pool)" [ ! -s "$err" ]

# stderr a pipe whose reader is gone: hugepolicy's lines must not kill the host
# with SIGPIPE (it was rc -13).  Python starts the host with SIGPIPE at its
# default action, whatever this shell inherited.
rc=$(python3 - "${OLDLIB:-$lib}" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(["/bin/sleep", "0.1"], stderr=w,
                   env=dict(os.environ, LD_PRELOAD=sys.argv[1], HUGEPOLICY_VERBOSE="1"))
print(p.returncode)
PY
)
check "a broken stderr pipe does not kill the host (rc $rc)" [ "$rc" = 0 ]

echo "test_bad_env: $fail failed"
[ "$fail" -eq 0 ]
