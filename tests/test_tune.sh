#!/bin/sh
# test_tune.sh BUILD_DIR FAKE CASE - `hugepolicy tune` end to end, on
# perf's fill64 and on tests/tune_fake.c, whose cost depends on the
# configuration it runs under, so the right recommendation is known.
#   nopool     with no free pool page, */hugetlb is skipped with the probe's reason
#   fill64     --rounds 2 -- fill64: exit 0, a table with intervals, a recommendation line
#   sleep      wall: 5 ms under jemalloc/auto, 60 ms elsewhere -> jemalloc/auto, with its run line
#   metric     --metric: cost 40 under system/auto, 100 elsewhere -> system/auto (JSON too)
#   stderr     --metric finds the number on standard error when standard output has none
#   none       --metric, the same cost everywhere -> no configuration is resolvably better
#   peer       wall: fast under native-glibc/thp -> that peer, with GLIBC_TUNABLES
#   same       --check-output, the same output everywhere: identical, exit 0
#   differs    --check-output, each configuration prints its name: DIFFERS, exit 1
#   failed     one configuration exits 3: FAIL in the table, the run named, exit 1
#   baseline   system/off fails: nothing to compare, exit 1
#   options    valued options as --opt VALUE and --opt=VALUE, lists, options end at CMD
#   usage      usage errors exit 2 with one line
#   files      --csv and --svg write every run and the chart
#   peaks      a command holding 64 MiB of MADV_HUGEPAGE memory: peak memory >= 64 MiB, THP >= 32 MiB
#   pool       (under hugetlb_pool.sh) system/hugetlb runs, and its peak memory counts the pool
#              pages that ru_maxrss does not
#   progress   a progress line on a terminal (script(1) gives one), none elsewhere
#   settle     as root, memory is settled before each run, and the table says so
#   interrupt  SIGTERM during a run: the command is ended, the complete rounds reported, exit 1
. "$(dirname "$0")/test_cli_common.sh"
fake=$2
fill64=$build/perf/fill64
quick="--no-settle --backends system,jemalloc --modes off,auto"
tune() { "$cli" tune "$@" >"$t/out" 2>"$t/err"; rc=$?; cat "$t/out"; cat "$t/err" >&2; }
thp_or_skip() { # the peers need THP
	grep -q 'skipping.*native-glibc/thp' "$t/err" && { echo "SKIP: THP is not available here"; exit 77; }
	return 0
}

case $3 in
nopool)
	free=$(awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 } END { print f - r }' /proc/meminfo)
	[ "$free" -eq 0 ] || { echo "SKIP: the 2 MiB pool has $free free pages"; exit 77; }
	tune --rounds 1 --no-settle --backends system --modes off,hugetlb -- "$fake" same
	check "exit 0" [ $rc -eq 0 ]
	check "system/hugetlb skipped with the probe's reason" \
		grep -q '^hugepolicy tune: skipping system/hugetlb: .*pool has 0 pages available' "$t/err"
	check "only system/off ran" grep -q '^hugepolicy tune: 1 round x 1 configurations' "$t/out" ;;
fill64)
	tune --rounds 2 --no-settle -- "$fill64"
	check "exit 0" [ $rc -eq 0 ]
	check "a row with intervals" grep -Eq '^[a-z-]+/[a-z]+ .* [0-9.]+ \[[0-9.]+, [0-9.]+\]' "$t/out"
	check "system/off is the baseline row" grep -Eq '^system/off +[0-9.]+ +1 ' "$t/out"
	check "2 rounds said" grep -q '^hugepolicy tune: 2 rounds x' "$t/out"
	check "a recommendation line" grep -Eq '^recommendation: ' "$t/out" ;;
sleep)
	tune --rounds 3 $quick -- "$fake" sleep jemalloc/auto
	check "exit 0" [ $rc -eq 0 ]
	check "jemalloc/auto recommended" grep -q '^recommendation: jemalloc/auto - wall 0\.' "$t/out"
	check "its environment line" grep -q "^  environment: LD_PRELOAD=$lib HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_PAGES=auto\$" "$t/out"
	check "its run line" grep -q "^  run: *hugepolicy run --backend jemalloc --pages auto -- $fake sleep jemalloc/auto\$" "$t/out" ;;
metric)
	tune --rounds 2 $quick --metric 'cost: ([0-9]+)' --json -- "$fake" print system/auto
	check "exit 0" [ $rc -eq 0 ]
	check "JSON: by metric, system/auto recommended at 0.4 of system/off" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in d["configurations"]}
assert d["by"] == "metric" and d["rounds"] == 2, d
assert d["recommendation"]["name"] == "system/auto", d["recommendation"]
assert d["recommendation"]["run"].startswith("hugepolicy run --backend system --pages auto -- "), d["recommendation"]
assert c["system/auto"]["ratios"]["metric"]["median"] == 0.4, c["system/auto"]["ratios"]
assert all(r["metric"] == 100 for r in c["jemalloc/off"]["runs"])
' "$t/out" ;;
stderr)
	tune --rounds 2 $quick --metric 'cost: ([0-9]+)' -- "$fake" printerr jemalloc/off
	check "exit 0" [ $rc -eq 0 ]
	check "jemalloc/off recommended at 0.40 of system/off" \
		grep -q '^recommendation: jemalloc/off - metric 0.400 \[0.400, 0.400\] of system/off' "$t/out" ;;
none)
	tune --rounds 2 $quick --metric 'cost: ([0-9]+)' -- "$fake" print nothing
	check "exit 0" [ $rc -eq 0 ]
	check "no configuration is resolvably better" \
		grep -q '^recommendation: none - no configuration is resolvably better than system/off on metric' "$t/out" ;;
peer)
	tune --rounds 3 --no-settle --backends system,native-glibc -- "$fake" sleep native-glibc/thp
	thp_or_skip
	check "exit 0" [ $rc -eq 0 ]
	check "native-glibc/thp recommended" grep -q '^recommendation: native-glibc/thp - wall 0\.' "$t/out"
	check "its environment: the glibc tunable, no library" \
		grep -q '^  environment: GLIBC_TUNABLES=glibc.malloc.hugetlb=1$' "$t/out" ;;
same)
	tune --rounds 2 $quick --check-output -- "$fake" same
	check "exit 0" [ $rc -eq 0 ]
	check "output identical, 16 bytes" grep -q '^output: identical in every run (16 bytes' "$t/out" ;;
differs)
	tune --rounds 2 $quick --check-output -- "$fake" name
	check "exit 1" [ $rc -eq 1 ]
	check "output DIFFERS, configurations named" grep -q '^output: DIFFERS .*jemalloc/off' "$t/out" ;;
failed)
	tune --rounds 2 $quick -- "$fake" fail jemalloc/off
	check "exit 1" [ $rc -eq 1 ]
	check "FAIL 2 in its row" grep -Eq '^jemalloc/off +- FAIL 2' "$t/out"
	check "each failed run named with its status" [ "$(count "$t/out" '^failed: jemalloc/off round [12]: exit status 3$')" -eq 2 ]
	check "never recommended" sh -c "! grep -q '^recommendation: jemalloc/off' '$t/out'" ;;
baseline)
	tune --rounds 2 $quick -- "$fake" fail system/off
	check "exit 1" [ $rc -eq 1 ]
	check "nothing to compare" grep -q 'the baseline system/off failed (exit status 3): nothing to compare' "$t/err"
	check "no table" [ ! -s "$t/out" ] ;;
options)
	tune --rounds=2 --no-settle --backends=system --modes off,auto --by cpu --json -- "$fake" same
	check "exit 0" [ $rc -eq 0 ]
	check "JSON: 2 rounds, by cpu, system/off and system/auto only" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rounds"] == 2 and d["by"] == "cpu", d
assert [c["name"] for c in d["configurations"]] == ["system/off", "system/auto"], d["configurations"]
assert all(len(c["runs"]) == 2 and all(r["ok"] for r in c["runs"]) for c in d["configurations"])
' "$t/out"
	tune --rounds 1 --no-settle --backends system --modes off "$fake" name --json
	check "options end at CMD: --json is the command's" grep -q '^hugepolicy tune: 1 round x 1 configurations' "$t/out" ;;
usage)
	for args in "" "--rounds 2" "--rounds 0 true" "--rounds x true" "--bogus true" "--by metric true" \
		"--by speed true" "--higher-better true" "--ci-width 2 true" "--backends system,tcmalloc true" \
		"--modes off,huge true" "--metric ( true" "--rounds"; do
		# shellcheck disable=SC2086
		"$cli" tune $args >"$t/out" 2>"$t/err"
		rc=$?
		check "tune $args: exit 2, one line" [ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && [ ! -s "$t/out" ]
		cat "$t/err"
	done
	"$cli" tune --help >"$t/out"
	check "--help exits 0 and lists --check-output" grep -q -- '--check-output' "$t/out" ;;
files)
	tune --rounds 2 $quick --csv "$t/runs.csv" --svg "$t/chart.svg" -- "$fake" same
	check "exit 0" [ $rc -eq 0 ]
	check "CSV: a header and 2 rounds x 4 configurations" [ "$(wc -l <"$t/runs.csv")" -eq 9 ]
	check "CSV rows are ok runs" [ "$(count "$t/runs.csv" '^(system|jemalloc)/(off|auto),[12],[1-4],1,0,')" -eq 8 ]
	check "SVG: a chart with a bar per configuration but the baseline" \
		[ "$(count "$t/chart.svg" '^<rect x=')" -eq 3 ] && head -c 4 "$t/chart.svg" | grep -q '<svg' ;;
peaks)
	grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
		{ echo "SKIP: THP is never here"; exit 77; }
	tune --rounds 1 --no-settle --backends system --modes off --json -- "$fake" hold
	check "exit 0" [ $rc -eq 0 ]
	check "JSON: peak memory >= 64 MiB, peak THP + hugetlb >= 32 MiB (smaps_rollup sampled)" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["configurations"][0]["runs"][0]
assert r["peak_mem_mib"] >= 64 and r["peak_huge_mib"] >= 32, r
' "$t/out" ;;
pool)
	tune --rounds 1 --no-settle --backends system --modes off,hugetlb --json -- "$fake" mhold
	check "exit 0" [ $rc -eq 0 ]
	check "JSON: system/hugetlb ran; its peak memory counts 64 MiB of pool pages, ru_maxrss does not" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in d["configurations"]}
assert list(c) == ["system/off", "system/hugetlb"], list(c)
r = c["system/hugetlb"]["runs"][0]
assert r["peak_huge_mib"] >= 64 and r["peak_mem_mib"] >= 64 and r["maxrss_mib"] < 32, r
' "$t/out" ;;
progress)
	command -v script >/dev/null || { echo "SKIP: no script(1) to give tune a terminal"; exit 77; }
	script -qec "$cli tune --rounds 1 --no-settle --backends system --modes off,auto -- $fake same" \
		/dev/null >"$t/tty" </dev/null
	check "exit 0" [ $? -eq 0 ]
	check "on a terminal: the round, the run and the configuration" \
		grep -Eq 'hugepolicy tune: round 1/1, run 2/2: system/(off|auto)' "$t/tty"
	tune --rounds 1 --no-settle --backends system --modes off,auto -- "$fake" same
	check "not on a terminal: no progress line" sh -c "! grep -q 'round 1/1' '$t/err'" ;;
settle)
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: settling memory needs root"; exit 77; }
	drops() { sed -n 's/^drop_pagecache //p' /proc/vmstat; }
	before=$(drops)
	tune --rounds 1 --backends system --modes off -- "$fake" same
	after=$(drops)
	check "exit 0" [ $rc -eq 0 ]
	# the kernel's count of drop_caches writes (others may add to it)
	check "drop_caches written before its one run ($before -> $after)" [ $((after - before)) -ge 1 ]
	check "the method line says memory was settled" \
		grep -q '^method: 1 runs, .*; memory settled before each run (sync, drop_caches=1, compact_memory);' "$t/out"
	tune --rounds 1 --no-settle --backends system --modes off -- "$fake" same
	check "--no-settle: not settled, and why" grep -q '; memory not settled (--no-settle);' "$t/out" ;;
interrupt)
	start=$(date +%s)
	"$cli" tune --rounds 2 $quick -- sleep 59.7 >"$t/out" 2>"$t/err" &
	pid=$!
	sleep 2
	kill -TERM $pid
	wait $pid
	rc=$?
	cat "$t/out" "$t/err"
	check "exit 1" [ $rc -eq 1 ]
	check "the running command was ended (under 20 s, not 60)" [ $(($(date +%s) - start)) -lt 20 ]
	check "interrupted, no complete round" grep -q '^interrupted: the table has the 0 complete rounds' "$t/out"
	left=0  # /proc, not pgrep: procps may not be installed
	for f in /proc/[0-9]*/cmdline; do
		[ "$(tr '\0' ' ' <"$f" 2>/dev/null)" = "sleep 59.7 " ] && left=1
	done
	check "no sleep left behind" [ $left -eq 0 ] ;;
*) echo "unknown case $3"; exit 2 ;;
esac
finish "tune $3"
