# test_cli_common.sh - sourced by tests/test_cli_*.sh: $build, $cli, $lib,
# a scratch directory $t (removed on exit), check, and the real python3.
set -u
build=$(cd "$1" && pwd -P)
cli="$build/hugepolicy"
lib="$build/libhugepolicy.so.0"
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	if "$@"; then echo "ok: $d"; else echo "FAIL: $d"; fail=$((fail + 1)); fi
}
# STRING matches the basic regex RE, anchored at its start (expr)
matches() { expr "$1" : "$2" >/dev/null; }
# lines of FILE matching the extended regex RE
count() { grep -Ec -- "$2" "$1"; }
# the interpreter itself, not a pyenv shim (a bash script that forks)
real_python3() { python3 -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null || echo /usr/bin/python3; }
finish() { # finish NAME
	echo "$1: $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}
