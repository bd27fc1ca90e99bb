#!/bin/sh
# callgrind_pairs.sh - instructions per malloc+free pair through hugepolicy's
# dispatch against the native allocators, counted by callgrind (exact and
# repeatable, unlike timings on a shared machine).
#
# Every loop runs at two counts N1 < N2 and the figure is
# (Ir(N2) - Ir(N1)) / (N2 - N1): start-up, exit and the loop's set-up cancel.
#   pair    perf/malloc_loop --size 32: malloc(32)+free
#   churn   perf/churn --threads 1 (fixed seed): one free + one malloc of a
#           mixed size per op, workload code included (same for every column)
#   bigpair malloc(32)+free with one 8 MiB block live (auto/thp: the block is
#           advised, so free goes through the advised-block lookup)
#   new     C++ ::operator new(32) + sized ::operator delete(p, 32)
# Columns: hugepolicy BACKEND/PAGES (LD_PRELOAD=libhugepolicy.so) and the
# native baselines: glibc, Debian's libjemalloc.so.2 and libmimalloc.so.2
# preloaded (perf/run.py's native-* "off" configurations).
# usage: perf/callgrind_pairs.sh [build-dir] [loops...]   (default: all loops)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
[ $# -gt 0 ] && shift
loops=${*:-pair churn bigpair new}
lib=$build/libhugepolicy.so
libdir=/usr/lib/x86_64-linux-gnu
[ -f "$lib" ] || { echo "callgrind_pairs.sh: $lib not built" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind_pairs.sh: needs valgrind" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cat >"$tmp/bigpair.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	char *big = malloc(8u << 20);           /* >= every threshold: advised */
	memset(big, 1, 4096);
	void *volatile sink;
	for (long i = 0; i < n; i++) {
		void *p = malloc(32);
		sink = p;
		free(p);
	}
	(void)sink;
	free(big);
	return 0;
}
EOF
cat >"$tmp/newloop.cc" <<'EOF'
#include <cstdlib>
#include <new>
int main(int, char **argv)
{
	long n = std::atol(argv[1]);
	void *volatile sink;
	for (long i = 0; i < n; i++) {
		void *p = ::operator new(32);
		sink = p;
		::operator delete(p, 32);       /* what `delete obj` emits (sized) */
	}
	(void)sink;
	return 0;
}
EOF
cc -O2 -o "$tmp/bigpair" "$tmp/bigpair.c"
c++ -O2 -o "$tmp/newloop" "$tmp/newloop.cc"

# ir LOOP N ENV...: callgrind's instruction count of one run
ir() {
	loop=$1 n=$2
	shift 2
	case $loop in
	pair) cmd="$build/perf/malloc_loop --size 32 --iters $n" ;;
	churn) cmd="$build/perf/churn --threads 1 --slots 4096 --ops-per-thread $n" ;;
	bigpair) cmd="$tmp/bigpair $n" ;;
	new) cmd="$tmp/newloop $n" ;;
	esac
	# shellcheck disable=SC2086
	env -u LD_PRELOAD -u MALLOC_CONF -u MIMALLOC_LARGE_OS_PAGES "$@" \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null $cmd 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

# per_pair LOOP ENV...: (Ir(N2) - Ir(N1)) / (N2 - N1), one decimal
per_pair() {
	loop=$1
	shift
	case $loop in
	churn) n1=100000 n2=400000 ;;
	*) n1=100000 n2=600000 ;;
	esac
	a=$(ir "$loop" $n1 "$@") b=$(ir "$loop" $n2 "$@")
	[ -n "$a" ] && [ -n "$b" ] || { echo "?"; return; }
	awk -v a="$a" -v b="$b" -v n1=$n1 -v n2=$n2 'BEGIN { printf "%.1f", (b - a) / (n2 - n1) }'
}

printf '| instructions per pair |'
for l in $loops; do printf ' %s |' "$l"; done
printf '\n|---|'
for l in $loops; do printf -- '---:|'; done
printf '\n'
row() {
	name=$1
	shift
	printf '| %s |' "$name"
	for l in $loops; do printf ' %s |' "$(per_pair "$l" "$@")"; done
	printf '\n'
}
for b in system jemalloc mimalloc; do
	for m in off thp auto; do
		row "hugepolicy $b/$m" LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=$b HUGEPOLICY_PAGES=$m
	done
done
row "native glibc"
row "native jemalloc" LD_PRELOAD=$libdir/libjemalloc.so.2 MALLOC_CONF=thp:never,metadata_thp:disabled
row "native mimalloc" LD_PRELOAD=$libdir/libmimalloc.so.2 MIMALLOC_LARGE_OS_PAGES=0
