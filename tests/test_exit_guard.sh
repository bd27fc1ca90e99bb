#!/bin/sh
# test_exit_guard.sh BIN MODE EXPECT - run `BIN MODE` (tests/test_exit_guard.c)
# with HUGEPOLICY_STATS=json; it passes when the process exits 7 (the
# status given to _exit) and its stderr holds what EXPECT names:
#   report      exactly one whole JSON report, no "no exit report" line
#   line:TEXT   exactly one line containing TEXT, no JSON report
# A process that hangs instead of ending fails by the test's TIMEOUT.
set -u
bin=$1 mode=$2 expect=$3
err=$(mktemp)
trap 'rm -f "$err"' EXIT
HUGEPOLICY_STATS=json "$bin" "$mode" 2>"$err"
rc=$?
cut -c1-200 "$err"
echo "status $rc"
[ "$rc" -eq 7 ] || exit 1
case $expect in
report)
	[ "$(grep -c '^hugepolicy-stats: {.*}$' "$err")" -eq 1 ] && ! grep -q 'no exit report' "$err" ;;
line:*)
	[ "$(grep -cF "${expect#line:}" "$err")" -eq 1 ] && ! grep -q 'hugepolicy-stats' "$err" ;;
*)
	echo "unknown expectation $expect"; exit 2 ;;
esac
