#!/bin/sh
# test_package_man.sh WHAT BUILD SRC
#   render      each built page renders with `man -l`, no warnings at 80
#               columns, with its NAME line
#   installed   after `cmake --install --prefix`, `man hugepolicy`,
#               `man 3 hugepolicy` and `man 7 hugepolicy` find the pages,
#               and `man 3 hugepolicy_stats` (each function) hugepolicy(3)
#   options     every HUGEPOLICY_* variable of policy/options.c's option
#               table is in hugepolicy(7), as an entry of its own (a line
#               that starts with the name, its text indented below) with
#               its default; every such entry is a row of the table or a
#               variable the CLI reads (integration/cli*.c)
#   environment hugepolicy(1)'s ENVIRONMENT names every variable of the
#               option table and every variable the CLI reads, and no
#               other HUGEPOLICY_* name
#   (the report's keys against hugepolicy(7): test_report_keys.py)
#   example     the program in hugepolicy(3)'s EXAMPLES compiles against
#               the build's header and library and runs
#   cli         every option and command that `hugepolicy --help`,
#               `hugepolicy run --help`, `hugepolicy probe --help` and
#               `hugepolicy inspect --help` and `hugepolicy tune --help` print
#               (the CLI in BUILD) is in hugepolicy(1)
#   api         every function declared in include/hugepolicy.h and every
#               field of its structs is in hugepolicy(3); so is every
#               HUGEPOLICY_* macro and enum constant of the header, and
#               every function the built library exports beyond the malloc
#               family (its hugepolicy_* API, glibc's mallinfo2 ...), each
#               with an entry NAME(
. "$(dirname "$0")/test_package_lib.sh"
what=$1 build=$2 src=$3
man1=$build/man/hugepolicy.1 man3=$build/man/hugepolicy.3 man7=$build/man/hugepolicy.7

# the option table's variables, and the HUGEPOLICY_* variables the CLI reads
# that the table does not have (HUGEPOLICY_LIBRARY)
table_vars() {
	grep -oE '"HUGEPOLICY_[A-Z_]+", "' "$src/policy/options.c" | tr -d '", ' | sort -u
}
cli_vars() {
	grep -ohE '"HUGEPOLICY_[A-Z_]+"' "$src"/integration/cli*.c | tr -d '"' | sort -u |
		grep -vxF "$(table_vars)"
}

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
		# scdoc's roff: a line "\fBHUGEPOLICY_X\fR = ... (default \fBdef\fR)" or
		# "(default empty...)", then ".RS 4" and the entry's text
		entry=$(E="\\fB$var\\fR = " awk 'index($0, ENVIRON["E"]) == 1 { l = $0; next }
			l != "" { if ($0 == ".RS 4") { print l; exit } l = "" }' "$man7")
		[ -n "$entry" ] || fail "hugepolicy(7) has no entry of its own for $var (policy/options.c has it)"
		if [ -n "$def" ]; then
			printf '%s\n' "$entry" | grep -qF "(default \\fB$def\\fR" || fail "hugepolicy(7): $var's default is not '$def': $entry"
		else
			printf '%s\n' "$entry" | grep -qF "(default empty" || fail "hugepolicy(7): $var's default is not empty: $entry"
		fi
		n=$((n + 1))
	done < "$T/rows"
	known=$(table_vars; cli_vars)
	for var in $(sed -n 's/^\\fB\(HUGEPOLICY_[A-Z_]*\)\\fR = .*/\1/p' "$man7"); do
		printf '%s\n' "$known" | grep -qx "$var" ||
			fail "hugepolicy(7) has an entry for $var, which neither the option table nor the CLI has"
	done
	echo "ok: hugepolicy(7) names all $n variables of the option table with their defaults, and no others" ;;
environment)
	# the section from .SH ENVIRONMENT to the next .SH
	sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$man1" > "$T/env"
	[ -s "$T/env" ] || fail "hugepolicy(1) has no ENVIRONMENT section"
	n=0
	for var in $(table_vars) $(cli_vars); do
		grep -qF "\\fB$var\\fR" "$T/env" || fail "hugepolicy(1)'s ENVIRONMENT does not name $var"
		n=$((n + 1))
	done
	known=$(table_vars; cli_vars)
	for var in $(grep -oE 'HUGEPOLICY_[A-Z_]+' "$T/env" | sort -u); do
		printf '%s\n' "$known" | grep -qx "$var" ||
			fail "hugepolicy(1)'s ENVIRONMENT names $var, which neither the option table nor the CLI has"
	done
	echo "ok: hugepolicy(1)'s ENVIRONMENT names all $n variables:" $(table_vars) $(cli_vars) ;;
api)
	h=$src/include/hugepolicy.h
	# an entry: \fBNAME\fR( then its arguments or ")", not a section number
	entry() { grep -qE "\\\\fB$1\\\\fR\\((\\)|\\\\fI)" "$man3"; }
	grep -E '^[a-z].*[ *]hugepolicy_[a-z0-9_]+\(' "$h" | grep -oE 'hugepolicy_[a-z0-9_]+\(' | tr -d '(' > "$T/functions"
	[ -s "$T/functions" ] || fail "no functions found in $h"
	n=0
	for f in $(cat "$T/functions"); do
		grep -qE "(^|[^a-z0-9_])$f([^a-z0-9_]|\$)" "$man3" || fail "hugepolicy(3) does not describe $f()"
		entry "$f" || fail "hugepolicy(3) has no entry for $f()"
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
	# macros and enum constants (not the include guard)
	k=0
	for c in $(grep -oE 'HUGEPOLICY_[A-Z0-9_]+' "$h" | sort -u | grep -vx HUGEPOLICY_H); do
		grep -qF "$c" "$man3" || fail "hugepolicy(3) does not name $c (hugepolicy.h defines it)"
		k=$((k + 1))
	done
	# what the library exports beyond the malloc family, new/delete and __libc_*
	nm -D --defined-only "$build/libhugepolicy.so" | awk '$2 == "T" || $2 == "W" { print $3 }' |
		grep -vxE '_Z.*|__libc_.*|malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|malloc_usable_size' \
		> "$T/exported"
	[ -s "$T/exported" ] || fail "nm found no exported functions in $build/libhugepolicy.so"
	e=0
	for f in $(cat "$T/exported"); do
		entry "$f" || fail "hugepolicy(3) has no entry for $f(), which libhugepolicy.so exports"
		e=$((e + 1))
	done
	echo "ok: hugepolicy(3) describes all $n functions, $m struct fields and $k constants of hugepolicy.h and all $e functions the library exports beyond the malloc family" ;;
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
	{ "$cli" --help; "$cli" run --help; "$cli" probe --help; "$cli" inspect --help; "$cli" tune --help; } > "$T/help" ||
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
