#!/bin/sh
# perf/fuzz/run.sh BUILD [RUNS] [TARGET...] - the long fuzz job: each libFuzzer
# target of tests/fuzz/ (built in BUILD/tests/fuzz by the normal build) for
# at least RUNS executions (default 10000000), one after the other, niced.
# A crash is kept (results/<target>/crash-*), counted, and fuzzing goes on
# from where it was until RUNS executions are reached (at most 20 crashes
# per target).  Results in BUILD/fuzz-results/ (FUZZ_RESULTS=DIR to move
# them): <target>/log*, the corpus it grew (<target>/corpus, not the seeds),
# and summary.txt: executions, seconds, executions/s, crashes, corpus size.  Copy a crash
# input into tests/fuzz/corpus/<target>/ as a regression seed once fixed.
#   JOBS=2 perf/fuzz/run.sh build      two targets at a time (slowest first:
#                                      probe, cgroup, options, ...)
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:?usage: run.sh BUILD [RUNS] [TARGET...]}
runs=${2:-10000000}
shift $(( $# >= 2 ? 2 : 1 ))
targets=${*:-probe cgroup options escape readlines smaps}
out=${FUZZ_RESULTS:-$build/fuzz-results}
jobs=${JOBS:-1}
mkdir -p "$out"

one() {
	t=$1
	bin=$build/tests/fuzz/fuzz_$t
	w=$out/$t
	mkdir -p "$w/corpus"
	[ -x "$bin" ] || { echo "$t: $bin not built (needs clang + libclang-rt-14-dev)"; return 1; }
	dict= len=16384         # cgroup: lines over cgroup.c's 4096 bytes need room
	case $t in probe|cgroup) dict=-dict=$src/tests/fuzz/vfs.dict ;; esac
	case $t in probe|options|escape) len=8192 ;; esac
	done_runs=0 crashes=0 round=0 start=$(date +%s)
	while [ "$done_runs" -lt "$runs" ] && [ "$crashes" -lt 20 ]; do
		round=$((round + 1))
		# shellcheck disable=SC2086
		nice -n 19 "$bin" -runs=$((runs - done_runs)) -timeout=20 -rss_limit_mb=2048 -max_len=$len \
			-print_final_stats=1 -artifact_prefix="$w/" $dict \
			"$w/corpus" "$src/tests/fuzz/corpus/$t" >"$w/log.$round" 2>&1
		rc=$?
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log.$round")
		[ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$w/log.$round" | tail -1 | tr -d '#')
		done_runs=$((done_runs + ${n:-0}))
		if [ "$rc" != 0 ]; then
			crashes=$((crashes + 1))
			grep -E 'ERROR|runtime error|property failed|SUMMARY' "$w/log.$round" | head -3 | sed "s/^/$t: /"
		fi
	done
	secs=$(( $(date +%s) - start ))
	[ "$secs" -gt 0 ] || secs=1
	printf '%-10s %12d executions %7d s %8d exec/s %3d crashes %5d corpus\n' "$t" "$done_runs" "$secs" \
		$((done_runs / secs)) "$crashes" "$(ls "$w/corpus" | wc -l)" | tee -a "$out/summary.txt"
}

# JOBS workers take the targets in turn from a queue (a mkdir lock)
next_target() {
	while ! mkdir "$out/.lock" 2>/dev/null; do sleep 1; done
	t=$(head -n 1 "$out/.queue")
	sed -i 1d "$out/.queue"
	rmdir "$out/.lock"
	echo "$t"
}
worker() {
	while t=$(next_target) && [ -n "$t" ]; do
		one "$t"
	done
}
echo "fuzz: $runs executions per target: $targets ($(date))" | tee -a "$out/summary.txt"
rm -rf "$out/.lock"
printf '%s\n' $targets >"$out/.queue"
i=0
while [ "$i" -lt "$jobs" ]; do
	worker &
	i=$((i + 1))
done
wait
rm -f "$out/.queue"
echo "fuzz: done ($(date))" | tee -a "$out/summary.txt"
