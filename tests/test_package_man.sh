#!/bin/sh
# test_package_man.sh WHAT BUILD SRC
#   render      each built page renders with `man -l`, no warnings at 80
#               columns, with its NAME line
#   installed   after `cmake --install --prefix`, `man hugepolicy`,
#               `man 3 hugepolicy` and `man 7 hugepolicy` find the pages,
#               and `man 3 hugepolicy_stats` (each function) hugepolicy(3)
#   options     every HUGEPOLICY_* variable of policy/options.c's option
#               table is in hugepolicy(7), as an entry with its default
#   example     the program in hugepolicy(3)'s EXAMPLES compiles against
#               the build's header and library and runs
#   cli         every option and command that `hugepolicy --help`,
#               `hugepolicy run --help`, `hugepolicy probe --help` and
#               `hugepolicy inspect --help` print
#               (the CLI in BUILD) is in hugepolicy(1)
#   api         every function declared in include/hugepolicy.h and every
#               field of its structs is in hugepolicy(3)
. "$(dirname "$0")/test_package_lib.sh"
what=$1 build=$2 src=$3
man1=$build/man/hugepolicy.1 man3=$build/man/hugepolicy.3 man7=$build/man/hugepolicy.7

case $what in
render)
	for page in "$man1" "$man3" "$man7"; do
		[ -s "$page" ] || fail "$page not built"
		MANWIDTH=80 man --warnings -l "$page" > "$T/out" 2> "$T/err" || fail "man -l $page exited $?"
		if [ -s "$T/err" ]; then cat "$T/err"; fail "man --warnings -l $page warned"; fi
		section=${page##*.}
		head -n 1 "$T/out" | grep -q "^hugepolicy($section)" || fail "$page: header is '$(head -n 1 "$T/out")'"
		grep -q '^NAME' "$T/out" || fail "$page: no NAME section"
		w=$(LC_ALL=C.UTF-8 wc -L < "$T/out")
		[ "$w" -le 80 ] || fail "$page: lines $w columns wide at MANWIDTH=80"
		echo "ok: hugepolicy($section) renders, $(wc -l < "$T/out") lines, no warnings"
	done ;;
installed)
	stage prefix "$build"
	for section in 1 3 7; do
		where=$(MANPATH=$PREFIX/share/man man -w "$section" hugepolicy) || fail "man -w $section hugepolicy"
		[ "$where" = "$PREFIX/share/man/man$section/hugepolicy.$section.gz" ] || fail "man $section hugepolicy is $where"
		MANPATH=$PREFIX/share/man MANWIDTH=80 man -P cat "$section" hugepolicy 2>&1 | head -n 1 |
			grep -q "^hugepolicy($section)" || fail "man $section hugepolicy does not render"
		echo "ok: man $section hugepolicy -> $where"
	done
	where=$(MANPATH=$PREFIX/share/man man -w hugepolicy)
	[ "$where" = "$PREFIX/share/man/man1/hugepolicy.1.gz" ] || fail "man hugepolicy is $where, not section 1"
	echo "ok: man hugepolicy -> section 1"
	# each function of the header has a link page to hugepolicy(3)
	for f in $(grep -E '^[a-z].*[ *]hugepolicy_[a-z0-9_]+\(' "$src/include/hugepolicy.h" | grep -oE 'hugepolicy_[a-z0-9_]+\(' | tr -d '('); do
		MANPATH=$PREFIX/share/man MANWIDTH=80 man -P cat 3 "$f" 2>&1 | head -n 1 | grep -q '^hugepolicy(3)' ||
			fail "man 3 $f does not show hugepolicy(3)"
		n=$((${n:-0} + 1))
	done
	echo "ok: man 3 FUNCTION shows hugepolicy(3) for all $n functions" ;;
options)
	# rows: [HP_OPT_X] = { "name", "HUGEPOLICY_X", "default", ...
	grep -oE '"HUGEPOLICY_[A-Z_]+", "[^"]*"' "$src/policy/options.c" > "$T/rows" || fail "no option rows in options.c"
	n=0
	while IFS= read -r row; do
		var=$(echo "$row" | sed 's/^"\([A-Z_]*\)".*/\1/')
		def=$(echo "$row" | sed 's/^"[A-Z_]*", "\(.*\)"$/\1/')
		# scdoc's roff: \fBHUGEPOLICY_X\fR = ... (default \fBdef\fR) or (default empty...)
		entry=$(grep -F "\\fB$var\\fR =" "$man7" | head -n 1)
		[ -n "$entry" ] || fail "hugepolicy(7) has no entry for $var (policy/options.c has it)"
		if [ -n "$def" ]; then
			printf '%s\n' "$entry" | grep -qF "(default \\fB$def\\fR" || fail "hugepolicy(7): $var's default is not '$def': $entry"
		else
			printf '%s\n' "$entry" | grep -qF "(default empty" || fail "hugepolicy(7): $var's default is not empty: $entry"
		fi
		n=$((n + 1))
	done < "$T/rows"
	echo "ok: hugepolicy(7) names all $n variables of the option table with their defaults" ;;
api)
	h=$src/include/hugepolicy.h
	grep -E '^[a-z].*[ *]hugepolicy_[a-z0-9_]+\(' "$h" | grep -oE 'hugepolicy_[a-z0-9_]+\(' | tr -d '(' > "$T/functions"
	[ -s "$T/functions" ] || fail "no functions found in $h"
	n=0
	for f in $(cat "$T/functions"); do
		grep -qE "(^|[^a-z0-9_])$f([^a-z0-9_]|\$)" "$man3" || fail "hugepolicy(3) does not describe $f()"
		grep -qF "\\fB$f\\fR(" "$man3" || fail "hugepolicy(3) has no entry for $f()"
		n=$((n + 1))
	done
	# struct fields: "	uint64_t name;" inside struct hugepolicy_* { ... };
	awk '/^struct hugepolicy_[a-z_]+ \{/ { s = $2; next } /^\};/ { s = "" }
		s && /^[ \t]+(u?int(32|64)_t|char) / { f = $2; sub(/[\[;].*/, "", f); print s, f }' "$h" > "$T/fields"
	[ -s "$T/fields" ] || fail "no struct fields found in $h"
	m=0
	while read -r s f; do
		# a table row of its own: the field alone on a line of the roff
		grep -qx "$f" "$man3" || fail "hugepolicy(3) has no row for struct $s field $f"
		m=$((m + 1))
	done < "$T/fields"
	echo "ok: hugepolicy(3) describes all $n functions and $m struct fields of hugepolicy.h" ;;
example)
	# the first code block after "# EXAMPLES" in the scdoc source
	awk '/^# EXAMPLES/ { e = 1 } e && /^```/ { if (c) exit; c = 1; next } c' "$src/man/hugepolicy.3.scd" |
		sed 's/\\\\/\\/g' > "$T/example.c"
	grep -q 'int main' "$T/example.c" || fail "no example program in hugepolicy.3.scd"
	cc -std=c11 -Wall -Wextra -Werror -I"$src/include" -o "$T/example" "$T/example.c" \
		-L"$build" -lhugepolicy -Wl,-rpath,"$build" || fail "the example of hugepolicy(3) does not compile"
	out=$(HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_PAGES=thp "$T/example") || fail "the example exited $?"
	echo "example: $out"
	# the mode is thp, or off where THP is never
	case $out in "jemalloc "*": "*" bytes on THP") ;; *) fail "the example printed '$out'" ;; esac
	echo "ok: the example of hugepolicy(3) compiles with -Wall -Wextra -Werror and runs" ;;
cli)
	cli=$build/hugepolicy
	{ "$cli" --help; "$cli" run --help; "$cli" probe --help; "$cli" inspect --help; } > "$T/help" ||
		fail "hugepolicy --help failed"
	# "--opt VALUE" in run's help is a placeholder, not an option
	opts=$(grep -oE -- '--[a-z][a-z-]*' "$T/help" | sort -u | grep -vx -- '--opt')
	cmds=$(sed -n '/^commands:/,/^$/p' "$T/help" | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p')
	[ -n "$opts" ] && [ -n "$cmds" ] || fail "no options or commands in the --help output"
	n=0
	for o in $opts; do
		grep -qF "\\fB$o\\fR" "$man1" || fail "hugepolicy(1) does not describe $o"
		n=$((n + 1))
	done
	for c in $cmds; do
		grep -qF "\\fB$c\\fR" "$man1" || fail "hugepolicy(1) does not describe the command $c"
		n=$((n + 1))
	done
	echo "ok: hugepolicy(1) describes all $n options and commands of the CLI's --help:" $opts $cmds ;;
*) fail "unknown check $what" ;;
esac
