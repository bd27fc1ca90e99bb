#!/bin/sh
# test_faults.sh STRESS SHIM LIB [--backends L] [--modes L] [--kinds L]
#                [--nths L] [--from-nths L] [--fi-modes L] [--errno E] [-v]
# Runs `STRESS --faults` (tests/stress.c: 8 x 4 MiB + 2000 small blocks per
# cycle, patterns checked, one fork, leak check) with SHIM
# (tests/faultinject.c) preloaded before LIB (libhugepolicy.so), for every
# backend x page mode x fault kind x N x once/from (comma lists; defaults:
# every backend and mode, kinds mmap,hugetlb,madvise,populate,open,read,
# once: the Nth call fails for N 1,2,3,5,10,50; from: every call from the
# Nth on for N 1,3,10 (the rest behave alike); errno ENOMEM), with
# HUGEPOLICY_VERBOSE=1.  Kind munmap (a leak on purpose) shows that the leak
# check can fail.
# Each case must: exit 0 (no crash, abort, SIGBUS, hang), report its data
# intact and no leak ("faults-workload: ok"), get no NULL from malloc unless
# the fault is a failed mmap, keep the backend asked for unless hugepolicy
# said why not, and print each distinct hugepolicy message at most once per
# process (numbers aside) and at most 15 lines per process.  Prints every
# failure with a command line that reproduces it, then the count of cases.
# hugetlb modes need pool pages: run this under tests/hugetlb_pool.sh.
set -u
if [ $# -lt 3 ]; then
	echo "usage: test_faults.sh STRESS SHIM LIB [--backends L] [--modes L] [--kinds L] [--nths L] [--from-nths L] [--fi-modes L] [--errno E] [-v]" >&2
	exit 2
fi
stress=$1 shim=$2 lib=$3
shift 3
backends=system,jemalloc,mimalloc
modes=off,thp,hugetlb,auto
kinds=mmap,hugetlb,madvise,populate,open,read
nths=1,2,3,5,10,50
from_nths=1,3,10
fimodes=once,from
err=ENOMEM
verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	--backends) backends=$2; shift ;;
	--modes) modes=$2; shift ;;
	--kinds) kinds=$2; shift ;;
	--nths) nths=$2; shift ;;
	--from-nths) from_nths=$2; shift ;;
	--fi-modes) fimodes=$2; shift ;;
	--errno) err=$2; shift ;;
	-v) verbose=1 ;;
	*) echo "test_faults.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
for f in "$stress" "$shim" "$lib"; do
	[ -e "$f" ] || { echo "test_faults.sh: $f missing" >&2; exit 2; }
done
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
stress=$(abs "$stress") shim=$(abs "$shim") lib=$(abs "$lib")
list() { echo "$1" | tr ',' ' '; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cases=0 failed=0 fired=0 nullcases=0 fellback=0 known=0

# Failures of jemalloc 5.3 itself, reproduced with Debian's libjemalloc.so.2
# preloaded alone (no hugepolicy): print them, count them, do not fail on
# them; any other failure of the same case still fails.  Args: backend kind
# nth fimode why; prints the reason when the failure is this known one.
known_failure() {
	[ "$1" = jemalloc ] && [ "$2" = mmap ] || return 1
	if { [ "$4" = once ] && [ "$3" -eq 1 ]; } || { [ "$4" = from ] && [ "$3" -le 5 ]; }; then
		case $5 in "killed by signal 11; workload did not report ok")
			echo "jemalloc 5.3 start-up writes to MAP_FAILED when its first mmaps fail (pages_boot's MADV_DONTNEED check, then tsd/arena boot): SIGSEGV with native libjemalloc.so.2 too"
			return 0 ;;
		esac
	fi
	if [ "$4" = from ] && [ "$3" -ge 10 ] && grep -q 'FAIL leak: after cycle' "$tmp/err"; then
		case $5 in "exit status 1; workload did not report ok")
			echo "jemalloc falls back to sbrk (opt.dss=secondary) when mmap fails and never reuses that space: VmSize grows every cycle; MALLOC_CONF=dss:disabled stops it"
			return 0 ;;
		esac
	fi
	return 1
}
start=$(date +%s)

run_case() {  # backend mode kind nth fimode
	b=$1 p=$2 k=$3 n=$4 m=$5
	cases=$((cases + 1))
	repro="FI_CALL=$k FI_NTH=$n FI_MODE=$m FI_ERRNO=$err HUGEPOLICY_BACKEND=$b HUGEPOLICY_PAGES=$p HUGEPOLICY_VERBOSE=1 LD_PRELOAD='$shim $lib' $stress --faults"
	[ "$p" = hugetlb ] && repro="sh $(dirname "$0")/hugetlb_pool.sh 64 env $repro"
	extra=""
	[ "$k" = madvise ] && extra=--no-rss-check   # a failed MADV_DONTNEED keeps pages resident
	# jemalloc's pool-backed arena extents grow over the first 3 cycles
	# (Hugetlb 2, 6, 8, 10 MiB, then flat); one injected refusal of a pool
	# mmap sends a block to the arena and moves that growth a cycle or two
	# later (16 MiB from cycle 4 or 5, then flat over 10 cycles), which on 4
	# cycles looked like a leak in the last one: 8 cycles, so growth that
	# stops is told from growth that does not
	[ "$p" = hugetlb ] && extra="$extra${extra:+ }--cycles 8"
	repro="$repro${extra:+ $extra}"
	timeout 60 env FI_CALL=$k FI_NTH=$n FI_MODE=$m FI_ERRNO=$err HUGEPOLICY_BACKEND=$b \
		HUGEPOLICY_PAGES=$p HUGEPOLICY_VERBOSE=1 LD_PRELOAD="$shim $lib" \
		"$stress" --faults $extra >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	why=""
	if [ $rc -eq 124 ]; then
		why="hung (killed after 60 s)"
	elif [ $rc -gt 128 ]; then
		why="killed by signal $((rc - 128))"
	elif [ $rc -ne 0 ]; then
		why="exit status $rc"
	fi
	grep -q '^faults-workload: ok$' "$tmp/out" || why="$why; workload did not report ok"
	nulls=$(sed -n 's/^faults-workload: .* nulls=\([0-9]*\) .*/\1/p' "$tmp/out")
	if [ -n "$nulls" ] && [ "$nulls" -gt 0 ]; then
		nullcases=$((nullcases + 1))
		[ "$k" = mmap ] || why="$why; $nulls allocations returned NULL (only a failed mmap may cause that)"
	fi
	got=$(sed -n 's/^faults-workload: backend=\([a-z]*\) .*/\1/p' "$tmp/out")
	if [ -n "$got" ] && [ "$got" != "$b" ]; then
		if grep -q "backend $b cannot run here" "$tmp/err"; then
			fellback=$((fellback + 1))
		else
			why="$why; backend is $got, asked $b, and hugepolicy did not say why"
		fi
	fi
	flood=$(awk '/^hugepolicy\[/ {
			i = index($0, "]: "); who = substr($0, 1, i); msg = substr($0, i + 3)
			gsub(/[0-9]+/, "#", msg)
			if (++seen[who SUBSEP msg] == 2) print "repeated: " msg
			if (++lines[who] == 16) print "more than 15 lines from " who
		}' "$tmp/err")
	[ -n "$flood" ] && why="$why; message flood: $(echo "$flood" | head -3 | tr '\n' ' ')"
	inj=$(sed -n 's/^faultinject: .* injected=\([0-9]*\)$/\1/p' "$tmp/err" | head -1)
	[ -n "$inj" ] && [ "$inj" -gt 0 ] && fired=$((fired + 1))
	why=${why#; }
	if [ -n "$why" ] && reason=$(known_failure "$b" "$k" "$n" "$m" "$why"); then
		known=$((known + 1))
		echo "KNOWN $b/$p $k nth=$n $m: $why: $reason"
		echo "  reproduce: $repro"
	elif [ -n "$why" ]; then
		failed=$((failed + 1))
		echo "FAIL $b/$p $k nth=$n $m: $why"
		echo "  reproduce: $repro"
		tail -n 12 "$tmp/err" | sed 's/^/  err| /'
		tail -n 3 "$tmp/out" | sed 's/^/  out| /'
	elif [ $verbose -eq 1 ]; then
		echo "ok   $b/$p $k nth=$n $m: $(grep '^faultinject:' "$tmp/err" | head -1)"
	fi
}

for b in $(list "$backends"); do
	for p in $(list "$modes"); do
		for k in $(list "$kinds"); do
			for m in $(list "$fimodes"); do
				ns=$nths
				[ "$m" = from ] && ns=$from_nths
				for n in $(list "$ns"); do
					run_case "$b" "$p" "$k" "$n" "$m"
				done
			done
		done
	done
done
echo "test_faults: $cases cases ($backends x $modes x $kinds x ($fimodes) N once $nths, from $from_nths), $fired with a fault injected, $nullcases with NULL results, $fellback with a backend fallback; $known known jemalloc failures; $failed failed; $(($(date +%s) - start)) s"
[ $failed -eq 0 ]
