#!/bin/sh
# run_short.sh TARGET SEEDS WORK SECONDS - one libFuzzer target for a short
# while (CTest, LABELS fuzz): every seed and regression input in SEEDS runs
# first, then fuzzing for SECONDS; new inputs go to WORK (the build tree),
# never into SEEDS.  Fails on any crash, leak, timeout or sanitizer report;
# the input is left in WORK as crash-*/leak-*/timeout-*.
set -eu
target=$1
seeds=$2
work=$3
secs=$4
mkdir -p "$work/corpus"
dict=
name=$(basename "$target")
case $name in fuzz_probe|fuzz_cgroup) dict=-dict=$(dirname "$0")/vfs.dict ;; esac
# shellcheck disable=SC2086
"$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
	-print_final_stats=1 -artifact_prefix="$work/" $dict "$work/corpus" "$seeds" >"$work/log" 2>&1 || {
	tail -60 "$work/log"
	echo "$name: FAILED (inputs in $work)"
	exit 1
}
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
echo "$name: ${runs:-?} executions in ${secs} s, no crash ($(ls "$seeds" | wc -l) seeds)"
