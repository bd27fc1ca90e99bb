#!/bin/sh
# valgrind.sh leaks|noleaks PROGRAM [ARGS...] - PROGRAM (linked with
# libhugepolicy.so) under valgrind memcheck with hugepolicy's malloc left in
# place: --soname-synonyms=somalloc=nouserintercepts keeps memcheck's malloc
# replacement to glibc's own symbols, so hugepolicy's entry points, start-up
# and backends run, and the system backend's blocks (glibc malloc, reached
# through a handle to libc) are memcheck's blocks: overruns, double frees and
# uninitialised reads of them are seen.  jemalloc's and mimalloc's blocks are
# their own mmap'ed memory, which memcheck sees only as mapped and defined:
# under those backends it checks hugepolicy's code, not their heaps.
# (valgrind's default, intercepting every library's malloc, would replace
# hugepolicy's entry points and test nothing of it.)
# noleaks: for programs that fork while other threads hold blocks: the child
# has no stack of those threads, and memcheck calls their blocks lost.
# --fair-sched=try: valgrind runs one thread at a time, and its default lock
# let two threads churning malloc/free starve the one that forks (test_fork
# made no progress for 300 s on an idle host; with the ticket lock, 5 s).
set -u
mode=$1
shift
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP: valgrind is not installed (Debian package valgrind)"
	exit 77
fi
leak="--leak-check=full --errors-for-leak-kinds=definite"
[ "$mode" = noleaks ] && leak="--leak-check=no"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086
valgrind -q --fair-sched=try --soname-synonyms=somalloc=nouserintercepts --error-exitcode=99 $leak \
	"$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" = 99 ]; then
	echo "valgrind.sh: memcheck reported errors in $1 (exit $rc)"
	exit 1
fi
exit "$rc"
