#!/bin/sh
# test_cli_reports.sh BUILD_DIR command|inherit - the verbose lines and the
# exit report come from the command `hugepolicy run` execs (its pid), not
# from the children it spawns (command), or from every one (inherit).
# Children: a shell's forked+exec'ed /bin/true, python3's subprocess child
# (exec'ed) and os.fork() child that exits through exit() (its destructors).
. "$(dirname "$0")/test_cli_common.sh"
mode=$2
py=$(real_python3)
inherit=
[ "$mode" = inherit ] && inherit=--inherit

# a shell + two /bin/true children (echo $$ last: no exec of the last one).
# dash ends with _exit(2), so sh itself has no exit report; bash exit()s.
shell_case() { # shell_case SHELL REPORTS_OF_THE_SHELL
	pid=$("$cli" run $inherit --verbose --stats=json -- "$1" -c '/bin/true; /bin/true; echo $$' 2>"$t/err")
	cut -c1-100 "$t/err"
	reports=$(count "$t/err" '^hugepolicy-stats: ')
	pids=$(sed -n 's/^hugepolicy\[[^ ]* \([0-9]*\)\]: backend .*/\1/p' "$t/err" | sort -u | wc -l)
	if [ "$mode" = inherit ]; then
		check "$1 + 2 children, --inherit: backend lines from 3 processes" [ "$pids" -eq 3 ]
		check "... $(($2 + 2)) exit reports" [ "$reports" -eq $(($2 + 2)) ]
	else
		check "$1 + 2 children: one backend line" [ "$(count "$t/err" '\]: backend ')" -eq 1 ]
		check "... every hugepolicy line is from $1 (pid $pid)" \
			[ "$(grep '^hugepolicy\[' "$t/err" | grep -vc "^hugepolicy\[$1 $pid\]")" -eq 0 ]
		check "... $2 exit report(s)" [ "$reports" -eq "$2" ]
		[ "$2" -eq 0 ] || check "... and it is $1's (pid $pid)" \
			grep -q "^hugepolicy-stats: {\"pid\":$pid," "$t/err"
	fi
}
shell_case sh 0
shell_case bash 1

# python3 (the interpreter, not a pyenv shim): a subprocess and a fork
script='
import os, subprocess, sys
subprocess.run([sys.executable, "-c", "pass"], check=True)
child = os.fork()
if child == 0:
    sys.exit(0)             # exit(): the child runs the library destructors
os.waitpid(child, 0)
print(os.getpid())
'
pid=$("$cli" run $inherit --verbose --stats=json -- "$py" -c "$script" 2>"$t/err")
check "python3 ran" [ -n "$pid" ]
reports=$(count "$t/err" '^hugepolicy-stats: ')
if [ "$mode" = inherit ]; then
	check "python3 + subprocess + fork, --inherit: 3 exit reports" [ "$reports" -eq 3 ]
else
	check "python3 + subprocess + fork: one exit report" [ "$reports" -eq 1 ]
	check "... and it is python3's (pid $pid)" grep -q "^hugepolicy-stats: {\"pid\":$pid," "$t/err"
	check "every hugepolicy line is python3's (pid $pid)" \
		[ "$(grep '^hugepolicy\[' "$t/err" | grep -vc "^hugepolicy\[[^ ]* $pid\]")" -eq 0 ]
	check "one backend line" [ "$(count "$t/err" '\]: backend ')" -eq 1 ]
fi

# python3 as found in PATH: a pyenv shim is a bash script that forks helpers
# (readlink, pyenv ...) and execs env, bash, ... python3 in the same pid;
# only the exit() of the last one - python3 - gives a report
inpath=$(command -v python3)
if [ "$mode" = command ] && [ -n "$inpath" ]; then
	kind=interpreter
	head -c 2 "$inpath" | grep -q '#!' && kind="script, e.g. a pyenv shim"
	pid=$("$cli" run --stats=json -- python3 -c 'import os; print(os.getpid())' 2>"$t/err")
	check "python3 from PATH ($inpath: $kind): one exit report" [ "$(count "$t/err" '^hugepolicy-stats: ')" -eq 1 ]
	check "... python3's (pid $pid)" grep -q "^hugepolicy-stats: {\"pid\":$pid,\"program\":\"python3\"" "$t/err"
fi
finish "test_cli_reports $mode"
