#!/bin/sh
# test_inspect.sh BUILD HOLD CASE [ARGS] - `hugepolicy inspect` on live
# processes.  HOLD (inspect_hold.c) holds a 64 MiB MADV_HUGEPAGE buffer
# until its stdin ends; LIVE_HOLD (inspect_live_hold.c) runs hugepolicy,
# holds a block and writes its own report.  Cases:
#   thp         --json names the buffer's mapping with >= 32 MiB AnonHugePages
#   hugepolicy  a process under `hugepolicy run` shows the library, backend, mode
#   blank       ... and still its backend and mode, from its live report, when
#               it wrote over its environment
#   missing     a PID that does not exist: one line on stderr, status 1
#   unreadable  a process the caller may not read: one line, status 1
#   usage       bad arguments: status 2
#   watch       --watch 1 prints again, and ends (0) when the process ends
#   live LIVE_HOLD BACKEND  the live report of a process under BACKEND: the
#               keys and values of its own report (process.* apart: the
#               kernel's now), then a region it made since, unreported
#   self        --self: hugepolicy is not loaded in the CLI, no report
#   mem LIVE_HOLD  process_vm_readv refused (another real uid), /proc/PID/mem
#               allowed (the same fs uid): the report is read through it
#   replaced    the library file was replaced after the process loaded it:
#               the symbol comes from the file still mapped (map_files)
. "$(dirname "$0")/test_cli_common.sh"
hold=$2
case_=$3
thp=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)

# start [PREFIX...]: HOLD (under PREFIX) with its stdin on fd 3; sets $hpid $start $end
start() {
	mkfifo "$t/in"
	"$@" "$hold" ${hold_args:-} < "$t/in" > "$t/hold.out" &
	exec 3> "$t/in"
	for i in $(seq 100); do
		[ -s "$t/hold.out" ] && break
		sleep 0.1
	done
	read -r hpid start end < "$t/hold.out" || { echo "FAIL: the holder did not start"; exit 1; }
}
stop() { exec 3>&-; wait; }
# one_line_status_1 DESCRIPTION CMD...: stdout empty, one line on stderr, exit 1
one_line_status_1() {
	d=$1; shift
	"$@" > "$t/o" 2> "$t/e"
	rc=$?
	cat "$t/e"
	check "$d: exit status 1 (got $rc)" [ "$rc" = 1 ]
	check "$d: one line on stderr" [ "$(wc -l < "$t/e")" = 1 ]
	check "$d: nothing on stdout" [ ! -s "$t/o" ]
}

case $case_ in
thp)
	[ "$thp" = always ] || [ "$thp" = madvise ] || { echo "SKIP: THP enabled is '$thp'"; exit 77; }
	grep -q '^THP_enabled:[[:space:]]*0' /proc/self/status && { echo "SKIP: THP disabled for this process tree (PR_SET_THP_DISABLE)"; exit 77; }
	start
	"$cli" inspect --json "$hpid" > "$t/out.json"
	check "inspect exits 0" [ $? = 0 ]
	"$cli" inspect "$hpid" | grep -E "^(kind.anon_big|mapping.0|not_huge)"
	python3 - "$t/out.json" "$start" "$end" "$hpid" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lo, hi = int(sys.argv[2], 16), int(sys.argv[3], 16)
m = [x for x in d["mappings"] if int(x["start"], 16) <= lo and int(x["end"], 16) >= hi]
print("buffer", sys.argv[2], "mapping", m)
assert m, "the buffer's mapping is not listed"
assert m[0]["kind"] == "anon_big" and m[0]["hg"] is True, m[0]
assert m[0]["anon_huge_pages"] >= 32 << 20, m[0]["anon_huge_pages"]
assert d["kinds"]["anon_big"]["anon_huge_pages"] >= 32 << 20
assert d["total"]["anon_huge_pages"] >= m[0]["anon_huge_pages"]
assert d["pid"] == int(sys.argv[4]) and d["hugepolicy"]["loaded"] is False
PY
	check "the JSON names the buffer with >= 32 MiB AnonHugePages" [ $? = 0 ]
	stop
	;;
hugepolicy)
	start "$cli" run --backend jemalloc --pages thp --
	"$cli" inspect "$hpid" > "$t/out.txt"
	check "inspect exits 0" [ $? = 0 ]
	cat "$t/out.txt"
	check "text: loaded, the library's path" grep -q "^hugepolicy.loaded    yes, $build/libhugepolicy.so" "$t/out.txt"
	check "text: backend jemalloc" grep -q "^hugepolicy.backend   jemalloc$" "$t/out.txt"
	check "text: pages asked thp" grep -q "^hugepolicy.pages     .* (asked thp)" "$t/out.txt"
	"$cli" inspect --json "$hpid" > "$t/out.json"
	python3 - "$t/out.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hugepolicy"]
print(h)
assert h["loaded"] is True and "libhugepolicy.so" in h["library"]
assert h["plan.backend"] == "jemalloc" and h["opt.pages"] == "thp"
PY
	check "json: loaded, backend jemalloc, pages asked thp" [ $? = 0 ]
	stop
	;;
blank)
	hold_args="64 blank"
	start "$cli" run --backend jemalloc --pages thp --
	"$cli" inspect "$hpid" > "$t/out.txt"
	check "inspect exits 0" [ $? = 0 ]
	grep "^hugepolicy\\|^environ" "$t/out.txt"
	check "text: loaded" grep -q "^hugepolicy.loaded    yes, $build/libhugepolicy.so" "$t/out.txt"
	check "text: no environ lines (blank)" [ "$(grep -c "^environ" "$t/out.txt")" = 0 ]
	check "text: backend jemalloc all the same, from the live report" grep -q "^hugepolicy.backend   jemalloc$" "$t/out.txt"
	check "text: pages asked thp" grep -q "^hugepolicy.pages     .* (asked thp)" "$t/out.txt"
	"$cli" inspect --json "$hpid" > "$t/out.json"
	python3 - "$t/out.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hugepolicy"]
print(h)
assert h["loaded"] is True and h["source"] == "live", h
assert h["plan.backend"] == "jemalloc" and h["opt.pages"] == "thp", h
PY
	check "json: loaded, backend and pages from the live report" [ $? = 0 ]
	stop
	;;
missing)
	pid_max=$(cat /proc/sys/kernel/pid_max)
	one_line_status_1 "a pid above pid_max ($pid_max)" "$cli" inspect $((pid_max + 1))
	one_line_status_1 "--json too" "$cli" inspect --json $((pid_max + 1))
	;;
unreadable)
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv > /dev/null || { echo "SKIP: no setpriv to drop root"; exit 77; }
		cp "$cli" "$t/hugepolicy" && chmod 755 "$t" "$t/hugepolicy"
		start
		one_line_status_1 "root's process, read by nobody" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$t/hugepolicy" inspect "$hpid"
		grep -q "smaps: Permission denied" "$t/e"
		check "the line names smaps and the error" [ $? = 0 ]
		stop
	else
		[ -r /proc/1/smaps ] && { echo "SKIP: /proc/1/smaps is readable by $(id -un)"; exit 77; }
		one_line_status_1 "pid 1, read by $(id -un)" "$cli" inspect 1
	fi
	;;
usage)
	for args in "" "abc" "0" "-1" "1 2" "--self 1" "--watch 0 1" "--watch x 1" "--watch" "--bogus 1"; do
		# shellcheck disable=SC2086
		"$cli" inspect $args > /dev/null 2> "$t/e"
		rc=$?
		check "inspect '$args': status 2 (got $rc)" [ "$rc" = 2 ]
	done
	"$cli" inspect --help > "$t/o"
	check "--help: status 0 and the usage" grep -q "^usage: hugepolicy inspect PID|--self" "$t/o"
	;;
watch)
	start
	timeout 30 "$cli" inspect --watch 1 "$hpid" > "$t/o" 2> "$t/e" 3>&- &
	wpid=$!
	sleep 2.5
	exec 3>&-
	wait "$wpid"
	rc=$?
	check "--watch ends with status 0 when the process ends (got $rc)" [ "$rc" = 0 ]
	n=$(grep -c "^process.pid          $hpid " "$t/o")
	check "--watch printed at least twice (got $n)" [ "$n" -ge 2 ]
	check "no terminal: no escape sequences" [ "$(grep -c "$(printf '\033')" "$t/o")" = 0 ]
	wait
	;;
live)
	lhold=$4 backend=$5
	mkfifo "$t/in"
	HUGEPOLICY_BACKEND=$backend HUGEPOLICY_PAGES=hugetlb "$lhold" "$t/own.json" < "$t/in" > "$t/hold.out" &
	exec 3> "$t/in"
	for i in $(seq 100); do [ -s "$t/hold.out" ] && break; sleep 0.1; done
	read -r hpid < "$t/hold.out" || { echo "FAIL: the holder did not start"; exit 1; }
	"$cli" inspect --json "$hpid" > "$t/before.json"
	check "inspect exits 0" [ $? = 0 ]
	echo region >&3
	for i in $(seq 100); do grep -q done "$t/hold.out" && break; sleep 0.1; done
	check "the holder made its region" grep -q done "$t/hold.out"
	"$cli" inspect --json "$hpid" > "$t/after.json"
	"$cli" inspect "$hpid" > "$t/after.txt"
	grep "^hugepolicy\|^  " "$t/after.txt"
	python3 - "$t/own.json" "$t/before.json" "$t/after.json" "$backend" <<'PY'
import json, sys
own = json.loads(open(sys.argv[1]).read().split(": ", 1)[1])
before, after = (json.load(open(f))["hugepolicy"] for f in sys.argv[2:4])
backend = sys.argv[4]
print("own report:", own)
assert before["loaded"] and before["source"] == "live" and before["live"]["read"], before
assert before["plan.backend"] == backend and before["opt.pages"] == "hugetlb", before
r = before["report"]
assert set(r) == set(own), set(r) ^ set(own)
differ = {k: (own[k], r[k]) for k in own if not k.startswith("process.") and own[k] != r[k]}
assert not differ, "the live report differs from the process's own: %s" % differ
print("the same as its own report:", len(own), "keys")
assert own["hugetlb.blocks"] + own["hugetlb.fallbacks"] >= 1, own
assert before["live"]["stats_ns_ago"] is not None
for k in ("process.rss", "process.hugetlb", "process.minor_faults", "process.peak_rss"):
    assert isinstance(r[k], int), (k, r[k])
assert r["process.rss"] + r["process.hugetlb"] >= 8 << 20, r
a = after["report"]
print("after the region:", {k: a[k] for k in a if k.startswith("region.")}, "writes", before["live"]["writes"],
      "->", after["live"]["writes"])
assert a["region.count"] == 1, a
assert a["region.hugetlb_bytes"] + a["region.thp_bytes"] + a["region.base_bytes"] >= 8 << 20, a
assert after["live"]["writes"] > before["live"]["writes"]
assert all(a[k] == r[k] for k in r if k.startswith("stats.")), "stats.* are the report's, as of then"
PY
	check "json: its own report's keys and values, then the region it made since" [ $? = 0 ]
	check "text: the live line" grep -q "^hugepolicy.live      read with process_vm_readv at 0x" "$t/after.txt"
	check "text: the report's keys" grep -q "^  region.count  *1$" "$t/after.txt"
	stop
	;;
self)
	"$cli" inspect --self > "$t/out.txt"
	check "inspect --self exits 0" [ $? = 0 ]
	check "text: not loaded" grep -q "^hugepolicy.loaded    no$" "$t/out.txt"
	check "text: no live line" [ "$(grep -c "^hugepolicy.live" "$t/out.txt")" = 0 ]
	"$cli" inspect --json --self > "$t/out.json"
	python3 - "$t/out.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hugepolicy"]
print(h)
assert h["loaded"] is False and h["live"] is None and h["report"] is None, h
PY
	check "json: not loaded, no live report" [ $? = 0 ]
	;;
mem)
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to run the two processes as other users"; exit 77; }
	command -v setpriv > /dev/null || { echo "SKIP: no setpriv"; exit 77; }
	lhold=$4
	cp "$cli" "$t/hugepolicy" && chmod 755 "$t" "$t/hugepolicy"
	mkfifo "$t/in"
	HUGEPOLICY_BACKEND=system setpriv --reuid=65534 --regid=65534 --clear-groups "$lhold" - < "$t/in" > "$t/hold.out" &
	exec 3> "$t/in"
	for i in $(seq 100); do [ -s "$t/hold.out" ] && break; sleep 0.1; done
	read -r hpid < "$t/hold.out" || { echo "FAIL: the holder did not start"; exit 1; }
	# real uid 1, effective (and so fs) uid nobody's: smaps and /proc/PID/mem
	# (fs uid) are allowed, process_vm_readv (real uid) is not
	setpriv --ruid=1 --euid=65534 --rgid=1 --egid=65534 --clear-groups "$t/hugepolicy" inspect --json "$hpid" \
		> "$t/out.json"
	check "inspect exits 0" [ $? = 0 ]
	python3 - "$t/out.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hugepolicy"]
print(h["live"])
assert h["live"]["read"] is True and h["live"]["how"] == "/proc/PID/mem", h["live"]
assert h["report"]["plan.backend"] == "system", h["report"]
PY
	check "json: read through /proc/PID/mem" [ $? = 0 ]
	stop
	;;
replaced)
	[ "$(id -u)" = 0 ] || { echo "SKIP: /proc/PID/map_files needs root"; exit 77; }
	cp "$lib" "$t/libhugepolicy.so.0"
	start env LD_PRELOAD="$t/libhugepolicy.so.0" HUGEPOLICY_BACKEND=jemalloc
	rm "$t/libhugepolicy.so.0" && echo "not a library" > "$t/libhugepolicy.so.0"
	"$cli" inspect --json "$hpid" > "$t/out.json"
	check "inspect exits 0" [ $? = 0 ]
	python3 - "$t/out.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hugepolicy"]
print(h["library"], h["live"])
assert h["library"].endswith("(deleted)") and h["live"]["read"] is True, h
assert h["report"]["plan.backend"] == "jemalloc", h["report"]
PY
	check "json: the live report of the library as loaded" [ $? = 0 ]
	stop
	;;
*) echo "unknown case $case_"; exit 2 ;;
esac
finish "inspect $case_"
