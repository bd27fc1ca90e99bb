#!/bin/sh
# test_report.sh CASE BUILD_DIR [ARG] - where hugepolicy's lines and report
# go, and that they stay one line each whatever the environment holds.
#   fd2 BUILD BACKEND   a host that closed fd 2 and opened a data file there
#                       gets only its own data in it (stats text/json, verbose)
#   log BUILD           HUGEPOLICY_LOG=path gets every line and the report,
#                       stderr none, the host no extra fd; %p is the pid
#   env BUILD           bad values with \n, \r, ESC or 2000 bytes: one line
#                       per variable, ending intact, no raw control byte
#   name BUILD PYTHON   a program named with \n, ESC and invalid UTF-8: lines
#                       stay whole and the JSON report parses
#   setuid BUILD        a set-user-ID root copy run by user 65534 ignores
#                       HUGEPOLICY_LOG (skip 77 without root)
#   tree BUILD BACKEND  a host that opens a data file on fds 0-2 (closed at
#                       start, or closed in main) and calls system(): the
#                       child's warning, verbose lines and exit report never
#                       land in the file (under run and plain LD_PRELOAD);
#                       a stderr a parent sets up for its child (bash's
#                       2>file, a pipe) still gets the child's lines
#   tree-fallback BUILD BACKEND PYTHON  the same for a child's hugetlb
#                       fallback line
#                       (run inside hugetlb_pool.sh 8: 8 pool pages)
#   exit-closed BUILD PYTHON  programs that close stderr before exit (sort,
#                       ls, cat, head, cp) still print the one report asked
#                       for; a forked child that does not report holds no
#                       copy of stderr (a pipe reader is not kept waiting)
#   exit-skips BUILD    a process that ends by _exit, _Exit or quick_exit
#                       (dash does, for every script) prints the one report
#                       asked for, with its exit status kept; its fork()ed
#                       and vfork()ed children that _exit print none; a
#                       crash handler on an 8 KiB sigaltstack that _exits
#                       still ends with its status; the report comes after
#                       quick_exit's handlers (as exit's after atexit's), and
#                       quick_exit@GLIBC_2.10 still runs thread_local
#                       destructors; a process that asked for no report
#                       makes no system call in _exit but exit_group
#   long-values BUILD   a long MIMALLOC_LARGE_OS_PAGES or MALLOC_CONF is cut
#                       in hugepolicy's line, and the sentence ends whole
set -u
case=$1
build=$2
host="$build/tests/test_report_host"
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
err="$dir/err"
check() { d=$1; shift; if "$@"; then printf "ok: %s\n" "$d"; else printf "FAIL: %s\n" "$d"; fail=$((fail + 1)); fi; }
# only printable ASCII and newlines in FILE
printable() { [ "$(LC_ALL=C tr -d '\n\040-\176' < "$1" | wc -c)" -eq 0 ]; }
# FILE is exactly the host's data
host_data_only() { [ "$(cat "$1")" = "host-data" ] && [ "$(wc -c < "$1")" -eq 10 ]; }
show() { echo "--- $1:"; LC_ALL=C od -c "$1" | head -20; }

case $case in
fd2)
	export HUGEPOLICY_BACKEND=$3
	for setting in HUGEPOLICY_STATS=1 HUGEPOLICY_STATS=json HUGEPOLICY_VERBOSE=1; do
		# control: with stderr intact the setting does print at exit
		env "$setting" "$host" 2>"$err"
		check "$setting prints on an intact stderr" [ -s "$err" ]
		rm -f "$dir/data"
		env "$setting" "$host" reuse-fd2 "$dir/data" 2>"$err"
		check "$setting: host ran" [ $? -eq 0 ]
		check "$setting: fd 2 reopened as a data file holds only the host's data" host_data_only "$dir/data"
		host_data_only "$dir/data" || show "$dir/data"
		rm -f "$dir/data"
		env "$setting" "$host" reuse-fd2 "$dir/data" 2>&-
		check "$setting, started with fd 2 closed: host ran" [ $? -eq 0 ]
		check "$setting, started with fd 2 closed: the data file holds only the host's data" host_data_only "$dir/data"
		host_data_only "$dir/data" || show "$dir/data"
	done
	;;
log)
	# fds this test's caller left open, as the host sees them (without a
	# log, a reporting host keeps a copy of stderr: not counted here)
	base=$("$host" fds 2>/dev/null)
	out=$(HUGEPOLICY_LOG="$dir/log.%p" HUGEPOLICY_VERBOSE=1 HUGEPOLICY_STATS=1 "$host" fds 2>"$err")
	pid=${out#pid }; pid=${pid%% *}
	log="$dir/log.$pid"
	fds() { n=${1#* fds }; echo "${n%% *}"; }
	check "stderr gets nothing" [ ! -s "$err" ]
	check "%p in HUGEPOLICY_LOG is the pid ($out)" [ -f "$log" ]
	check "the host sees no fd of hugepolicy's ($(fds "$out") open, $(fds "$base") without a log)" \
		[ "$(fds "$out")" = "$(fds "$base")" ]
	cat "$log"
	prefix="hugepolicy\[test_report_host $pid\]: "
	check "the verbose lines are there, one per line" [ "$(grep -c "^${prefix}backend system (default)$" "$log")" -eq 1 ]
	check "the page decision is there" [ "$(grep -c "^${prefix}pages " "$log")" -eq 1 ]
	check "the report is there, whole" [ "$(grep -c "^${prefix}report$" "$log")" -eq 1 ] &&
		check "... and ends the file with a whole line" [ "$(tail -c 1 "$log" | od -An -c | tr -d ' ')" = '\n' ] &&
		check "... that is a report number" [ "$(tail -n 1 "$log" | grep -Ec '^  [a-zA-Z0-9_.]+ +([0-9]+|unknown)$')" -eq 1 ]
	check "every line is a hugepolicy line or a report line (a key, its value if not empty)" \
		[ "$(grep -v "^$prefix" "$log" | grep -Evc '^  [a-z][a-zA-Z0-9_.]*( +[^ ].*)?$')" -eq 0 ]
	check "the log is printable" printable "$log"

	HUGEPOLICY_LOG="$dir/json.log" HUGEPOLICY_STATS=json "$host" 2>"$err"
	HUGEPOLICY_LOG="$dir/json.log" HUGEPOLICY_STATS=json "$host" 2>>"$err"
	check "two processes append one JSON line each" [ "$(grep -c '^hugepolicy-stats: {.*}$' "$dir/json.log")" -eq 2 ] &&
		check "... and nothing else" [ "$(wc -l < "$dir/json.log")" -eq 2 ]
	check "stderr gets no JSON" [ ! -s "$err" ]

	HUGEPOLICY_LOG="$dir/fd2.log" HUGEPOLICY_STATS=1 "$host" reuse-fd2 "$dir/data" 2>&-
	check "with fd 2 reused, the report still reaches the log" [ "$(grep -c ': report$' "$dir/fd2.log")" -eq 1 ]
	check "... and the host's file holds only its data" host_data_only "$dir/data"

	HUGEPOLICY_LOG="$dir/closed.log" HUGEPOLICY_VERBOSE=1 HUGEPOLICY_STATS=1 "$host" 2>&-
	check "with fd 2 closed, every line and the report reach the log" \
		[ "$(grep -c -e ': backend system (default)$' -e ': report$' "$dir/closed.log")" -eq 2 ]

	HUGEPOLICY_LOG="$dir/no/such/dir/log" HUGEPOLICY_VERBOSE=1 "$host" 2>"$err"
	cat "$err"
	check "an unopenable log says so once on stderr" \
		[ "$(grep -c "HUGEPOLICY_LOG '$dir/no/such/dir/log' cannot be opened (ENOENT); writing to stderr" "$err")" -eq 1 ]
	check "... and the lines still reach stderr" [ "$(grep -c 'backend system (default)' "$err")" -eq 1 ]

	HUGEPOLICY_LOG=/dev/full HUGEPOLICY_VERBOSE=1 HUGEPOLICY_STATS=1 "$host" 2>"$err"
	cat "$err"
	check "a log that refuses writes (/dev/full) says so once on stderr" \
		[ "$(grep -c "HUGEPOLICY_LOG '/dev/full' cannot be written (ENOSPC); writing to stderr" "$err")" -eq 1 ]
	check "... and the lines and the report still reach stderr" \
		[ "$(grep -c -e 'backend system (default)' -e ': report$' "$err")" -eq 2 ]
	;;
env)
	nl=$(printf 'thp\nhugepolicy[forged 1]: backend jemalloc')
	cr=$(printf 'sys\rtem')
	esc=$(printf '\033[2J\033[31mred\177')
	long=$(head -c 2000 /dev/zero | tr '\0' 7)
	HUGEPOLICY_PAGES="$nl" HUGEPOLICY_BACKEND="$cr" HUGEPOLICY_STATS="$esc" HUGEPOLICY_THRESHOLD="$long" \
		"$host" 2>"$err"
	check "host keeps running" [ $? -eq 0 ]
	cat "$err"
	check "exactly one line per bad variable" [ "$(wc -l < "$err")" -eq 4 ]
	check "every line is a hugepolicy line" [ "$(grep -c '^hugepolicy\[test_report_host [0-9]*\]: HUGEPOLICY_' "$err")" -eq 4 ]
	check "every line ends with the default used" [ "$(grep -c "; using the default '[^']*'$" "$err")" -eq 4 ]
	check "no raw control byte" printable "$err"
	check "the newline is shown as \\n" grep -q "HUGEPOLICY_PAGES='thp\\\\nhugepolicy\[forged 1\]: backend jemalloc' is not valid" "$err"
	check "CR is shown as \\r" grep -q "HUGEPOLICY_BACKEND='sys\\\\rtem' is not valid" "$err"
	check "ESC and DEL are shown as \\x1b, \\x7f" grep -q "HUGEPOLICY_STATS='\\\\x1b\[2J\\\\x1b\[31mred\\\\x7f' is not valid" "$err"
	check "the long value is cut at 64 bytes" grep -q "HUGEPOLICY_THRESHOLD='7\{64\}\.\.\.' is not valid (expected .*); using the default '4M'$" "$err"
	check "no line longer than 300 bytes" [ "$(awk 'length($0) > 300' "$err" | wc -l)" -eq 0 ]
	;;
name)
	py=$3
	bad="$dir/$(printf 'rep\nhugepolicy[forged 1]: x\033[31m\377\376')"
	ln -s "$host" "$bad"
	HUGEPOLICY_VERBOSE=1 HUGEPOLICY_PAGES=nope "$bad" 2>"$err"
	check "host ran" [ $? -eq 0 ]
	cat "$err"
	check "every line starts with one hugepolicy prefix" \
		[ "$(grep -c '^hugepolicy\[rep\\nhugepolicy\[forged 1\]: x\\x1b\[31m\\xff\\xfe [0-9]*\]: ' "$err")" -eq "$(wc -l < "$err")" ]
	check "the bad value line ends intact" grep -q "HUGEPOLICY_PAGES='nope' is not valid .*; using the default 'auto'$" "$err"
	check "no raw control or invalid byte" printable "$err"
	HUGEPOLICY_STATS=1 "$bad" 2>"$err"
	check "the text report's first line names the program escaped" \
		grep -q '^hugepolicy\[rep\\nhugepolicy\[forged 1\]: x\\x1b\[31m\\xff\\xfe [0-9]*\]: report$' "$err"
	check "the text report is printable" printable "$err"
	HUGEPOLICY_STATS=json "$bad" 2>"$err"
	check "the JSON report parses, invalid bytes as U+FFFD" "$py" -c '
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
js = [l for l in lines if l.startswith(b"hugepolicy-stats: ")]
assert len(js) == 1, lines
d = json.loads(js[0][len(b"hugepolicy-stats: "):])
assert d["program"] == "rep\nhugepolicy[forged 1]: x\x1b[31m\ufffd\ufffd", repr(d["program"])
' "$err"
	;;
setuid)
	# a set-user-ID program must not create files a user names
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make a set-user-ID root copy"; exit 77; }
	command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) missing"; exit 77; }
	chmod 755 "$dir"
	cp "$host" "$dir/suid_host" && chown 0:0 "$dir/suid_host" && chmod 4755 "$dir/suid_host"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	as_nobody "$dir/suid_host" fds >/dev/null 2>&1 ||
		{ echo "SKIP: user 65534 cannot run $dir/suid_host (libhugepolicy.so not reachable?)"; exit 77; }
	HUGEPOLICY_LOG="$dir/made-by-root" HUGEPOLICY_VERBOSE=1 as_nobody "$dir/suid_host" fds 2>"$err"
	cat "$err"
	check "the log file is not created" [ ! -e "$dir/made-by-root" ]
	check "the refusal is said in one line" [ "$(grep -c "HUGEPOLICY_LOG='$dir/made-by-root' is not valid .*not in set-user-ID programs.*; using the default ''$" "$err")" -eq 1 ]
	check "the lines go to stderr instead" [ "$(grep -c 'backend system (default)' "$err")" -eq 1 ]
	;;
tree|tree-fallback)
	export HUGEPOLICY_BACKEND=$3
	lib="$build/libhugepolicy.so.0"
	data_only() { [ "$(cat "$dir/data")" = "DATA" ] && [ "$(wc -c < "$dir/data")" -eq 5 ]; }
	if [ "$case" = tree ]; then
		# the child is system()'s sh and /bin/true, preloaded (dash's own
		# exit is _exit: no report; /bin/true's is exit())
		child=/bin/true
		settings="HUGEPOLICY_THRESHOLD=4X HUGEPOLICY_VERBOSE=1 HUGEPOLICY_STATS=json"
	else
		# the child allocates under pages=hugetlb more than the pool has
		# room for (its 8 pages, or what else it holds: never assume it is
		# otherwise empty), and says so without VERBOSE
		room=$(awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 } END { print f - r }' /proc/meminfo)
		over=$(cat /proc/sys/vm/nr_overcommit_hugepages 2>/dev/null || echo 0)
		surp=$(awk '/^HugePages_Surp:/ { print $2 }' /proc/meminfo)
		room=$((room + over - surp))
		[ "$room" -le 512 ] || { echo "SKIP: the pool has room for $room pages: too many to exhaust here"; exit 77; }
		child="$4 -c 'b = bytearray(($room + 32) << 21)'"
		settings=HUGEPOLICY_PAGES=hugetlb
	fi
	for setting in $settings; do
		for how in run preload; do
			# every process reports (--inherit; REPORT_PID empty)
			if [ $how = run ]; then set -- "$build/hugepolicy" run --inherit --
			else set -- env LD_PRELOAD="$lib"; fi
			# control: on an intact stderr the child does print
			env "$setting" HUGEPOLICY_REPORT_PID= "$@" sh -c "$child" 2>"$err"
			check "$how $setting: the child prints on an intact stderr" grep -q 'hugepolicy' "$err"
			rm -f "$dir/data"
			env "$setting" HUGEPOLICY_REPORT_PID= "$@" "$host" system "$dir/data" "$child" 0<&- 1>&- 2>&-
			check "$how $setting, fds 0-2 closed at start: host ran" [ $? -eq 0 ]
			check "$how $setting, fds 0-2 closed at start: the file holds only DATA" data_only
			data_only || show "$dir/data"
			rm -f "$dir/data"
			env "$setting" HUGEPOLICY_REPORT_PID= "$@" "$host" system "$dir/data" "$child" 2>"$err" >/dev/null
			check "$how $setting, fds 0-2 replaced in main: host ran" [ $? -eq 0 ]
			check "$how $setting, fds 0-2 replaced in main: the file holds only DATA" data_only
			data_only || show "$dir/data"
			[ "$case" = tree ] || continue
			# a stderr the parent set up for the child is the child's (bash
			# opens it in the child; dash opens it on its own fd 2 before it
			# forks, which a child cannot tell from 1a's data file)
			env "$setting" HUGEPOLICY_REPORT_PID= "$@" bash -c "$child 2>'$dir/child.err'; :" 2>"$err"
			check "$how $setting: a child whose bash redirected its stderr prints there" \
				grep -q 'hugepolicy' "$dir/child.err"
			env "$setting" HUGEPOLICY_REPORT_PID= "$@" sh -c "$child 2>&1 | cat" 2>"$err" >"$dir/piped"
			check "$how $setting: a child whose stderr is piped to cat prints there" \
				grep -q 'hugepolicy' "$dir/piped"
		done
	done
	;;
exit-closed)
	py=$3
	cli="$build/hugepolicy"
	reports() { grep -c '^hugepolicy-stats: {' "$err"; }
	for cmd in "sort /dev/null" "ls /dev/null" "cat /dev/null" "head /dev/null" "cp /dev/null $dir/copy"; do
		# shellcheck disable=SC2086
		"$cli" run --stats json -- $cmd >/dev/null 2>"$err"
		check "run --stats json -- $cmd: one JSON report on stderr" [ "$(reports)" -eq 1 ]
		check "... and nothing else" [ "$(wc -l < "$err")" -eq 1 ]
	done
	HUGEPOLICY_STATS=json LD_PRELOAD="$build/libhugepolicy.so.0" sort /dev/null 2>"$err"
	check "LD_PRELOAD, HUGEPOLICY_STATS=json sort: one JSON report" [ "$(reports)" -eq 1 ]
	"$cli" run --stats -- sort /dev/null 2>"$err"
	check "run --stats -- sort: the text report, whole" [ "$(grep -c ': report$' "$err")" -eq 1 ] &&
		check "... ending with a report number" [ "$(tail -n 1 "$err" | grep -Ec '^  [a-zA-Z0-9_.]+ +([0-9]+|unknown)$')" -eq 1 ]
	"$cli" run --verbose -- sort /dev/null 2>"$err"
	check "run --verbose -- sort: the 'at exit' line" [ "$(grep -c ': at exit: ' "$err")" -eq 1 ]
	# the reporting python3 forks a child that puts /dev/null on fds 0-2 and
	# sleeps 30 s: the capture must end with python3, not with the child
	start=$(date +%s)
	out=$("$cli" run --stats json -- "$py" -c '
import os, time
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_RDWR)
    for i in (0, 1, 2):
        os.dup2(fd, i)
    time.sleep(30)
    os._exit(0)
print(pid)' 2>&1)
	took=$(($(date +%s) - start))
	child=$(echo "$out" | sed -n 's/^\([0-9][0-9]*\)$/\1/p')
	[ -n "$child" ] && kill "$child" 2>/dev/null
	check "the capture ended in ${took} s, before the forked child (it holds no copy of stderr)" [ "$took" -lt 10 ]
	check "... and python3's report came" [ "$(echo "$out" | grep -c '^hugepolicy-stats: {')" -eq 1 ]
	;;
exit-skips)
	cli="$build/hugepolicy"
	reports() { grep -c '^hugepolicy-stats: {' "$err"; }
	for how in _exit:5 _Exit:6 quick_exit:7 fork:8 vfork:9 altstack:10; do
		"$cli" run --stats json -- "$host" end "${how%:*}" >"$dir/out" 2>"$err"
		rc=$?
		check "end by ${how%:*}: exit status ${how#*:} (got $rc)" [ "$rc" -eq "${how#*:}" ]
		check "... one JSON report (got $(reports))" [ "$(reports)" -eq 1 ]
		check "... the host's" grep -q '"program":"test_report_host"' "$err"
		[ "${how%:*}" = quick_exit ] && check "quick_exit's handler still runs" grep -qx quick-exit-handler "$dir/out"
	done
	"$cli" run --stats json -- "$host" end quick_exit >"$dir/both" 2>&1
	check "the report comes after quick_exit's handler" \
		[ "$(grep -n -e '^quick-exit-handler$' -e '^hugepolicy-stats: {' "$dir/both" | cut -d: -f2 | tr '\n' ' ')" = "quick-exit-handler hugepolicy-stats " ]
	if [ "$(uname -m)" = x86_64 ]; then
		for stats in "--stats json" ""; do
			"$cli" run $stats -- "$host" end quick_exit_2.10 >"$dir/out" 2>"$err"
			rc=$?
			check "run $stats quick_exit@GLIBC_2.10: status 12 (got $rc)" [ "$rc" -eq 12 ]
			check "... its thread_local destructor ran" grep -qx thread-local-dtor "$dir/out"
			check "... reports: $(reports)" [ "$(reports)" -eq "$([ -n "$stats" ] && echo 1 || echo 0)" ]
		done
	fi
	for setting in "HUGEPOLICY_STATS=0" "HUGEPOLICY_VERBOSE=0" "HUGEPOLICY_STATS=json HUGEPOLICY_REPORT_PID=1"; do
		env $setting "$host" end seccomp 2>"$err"
		rc=$?
		check "$setting: _exit makes no system call but exit_group: status 11 (got $rc)" [ "$rc" -eq 11 ]
	done
	HUGEPOLICY_STATS=json LD_PRELOAD="$build/libhugepolicy.so.0" "$host" end fork 2>"$err"
	check "LD_PRELOAD, no reporting pid: the child that _exits prints none (got $(reports))" [ "$(reports)" -eq 1 ]
	# a shell that ends by _exit: /bin/sh (dash on Debian), dash and busybox where installed
	for sh in /bin/sh $(command -v dash) $(command -v busybox | sed 's/$/ sh/'); do
		"$cli" run --stats json -- $sh -c : 2>"$err"
		check "run --stats json -- $sh -c : one report (got $(reports))" [ "$(reports)" -eq 1 ]
		"$cli" run --stats json -- $sh -c "'$host' >/dev/null; true" 2>"$err"
		check "run --stats json -- $sh -c 'host; true': one report, the shell's (got $(reports))" \
			[ "$(reports)" -eq 1 ] && check "... the shell's" grep -q '"program":"[a-z]*sh' "$err"
		"$cli" run --verbose -- $sh -c : 2>"$err"
		check "run --verbose -- $sh -c : the 'at exit' line" [ "$(grep -c ': at exit: ' "$err")" -eq 1 ]
		HUGEPOLICY_STATS=json LD_PRELOAD="$build/libhugepolicy.so.0" $sh -c 'exit 4' 2>"$err"
		rc=$?
		check "LD_PRELOAD, $sh -c 'exit 4': status 4 (got $rc), one report (got $(reports))" \
			[ "$rc" -eq 4 -a "$(reports)" -eq 1 ]
	done
	printf '#!/bin/sh\n"%s" >/dev/null\nexit 3\n' "$host" >"$dir/script.sh"
	chmod +x "$dir/script.sh"
	"$cli" run --stats -- "$dir/script.sh" 2>"$err"
	rc=$?
	check "a #!/bin/sh script: status 3 (got $rc), the text report, whole" \
		[ "$rc" -eq 3 -a "$(grep -c ': report$' "$err")" -eq 1 ]
	;;
long-values)
	long=$(head -c 2000 /dev/zero | tr '\0' x)
	MIMALLOC_LARGE_OS_PAGES=$long HUGEPOLICY_BACKEND=mimalloc "$host" 2>"$err"
	cut -c 1-200 "$err"
	check "MIMALLOC_LARGE_OS_PAGES: the value cut at 64 bytes, the sentence whole" \
		grep -q "MIMALLOC_LARGE_OS_PAGES='x\{64\}\.\.\.' is not a value mimalloc knows (.*); mimalloc reads it as large_os_pages=[0-9]*$" "$err"
	conf=$(for i in $(seq 100); do printf 'narenas:4,'; done)narenas:4
	MALLOC_CONF=$conf HUGEPOLICY_VERBOSE=1 HUGEPOLICY_BACKEND=jemalloc "$host" 2>"$err"
	check "MALLOC_CONF: the config line cuts the value, the sentence whole" \
		grep -q "config jemalloc .* (MALLOC_CONF='\(narenas:4,\)*nare\.\.\.' applied after hugepolicy's)$" "$err"
	;;
*)
	echo "unknown case $case"; exit 2 ;;
esac
echo "test_report $case: $fail failed"
[ "$fail" -eq 0 ]
