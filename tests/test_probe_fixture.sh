#!/bin/sh
# test_probe_fixture.sh CLI FIXTURE text|json|plan [BACKEND MODE]
# `hugepolicy probe --root FIXTURE` against the expectations written by hand
# next to the fixture (tests/fixtures/README):
#   text  every line of FIXTURE/expected.txt is a whole line of the text output
#   json  the output is one valid JSON document and contains every line of
#         FIXTURE/expected.json as a substring
#   plan  the `plan BACKEND MODE:` line of --plans has exactly the fields of
#         FIXTURE/plans.txt's "BACKEND MODE fields... ~reason ~reason" line,
#         and every ~reason fragment
set -u
cli=$1 dir=$2 kind=$3
fail=0
case $kind in
text)
	out=$("$cli" probe --root "$dir") || { echo "FAIL: probe --root $dir exited $?"; exit 1; }
	while IFS= read -r want; do
		printf '%s\n' "$out" | grep -Fxq -- "$want" || { echo "FAIL: no line '$want'"; fail=1; }
	done < "$dir/expected.txt"
	[ $fail = 0 ] || printf 'output was:\n%s\n' "$out"
	;;
json)
	out=$("$cli" probe --root "$dir" --json) || { echo "FAIL: probe --root $dir --json exited $?"; exit 1; }
	py=$(command -v python3)
	printf '%s' "$out" | "$py" -c 'import json, sys; json.load(sys.stdin)' ||
		{ echo "FAIL: not valid JSON"; fail=1; }
	while IFS= read -r want; do
		case $out in *"$want"*) ;; *) echo "FAIL: no '$want'"; fail=1 ;; esac
	done < "$dir/expected.json"
	[ $fail = 0 ] || printf 'output was:\n%s\n' "$out"
	;;
plan)
	be=$4 mode=$5
	want=$(grep "^$be $mode " "$dir/plans.txt") || { echo "FAIL: no '$be $mode' line in $dir/plans.txt"; exit 1; }
	[ "$(printf '%s\n' "$want" | wc -l)" = 1 ] || { echo "FAIL: several '$be $mode' lines in plans.txt"; exit 1; }
	out=$("$cli" probe --root "$dir" --plans) || { echo "FAIL: probe --root $dir --plans exited $?"; exit 1; }
	got=$(printf '%s\n' "$out" | grep "^plan $be $mode: ")
	want_fields=$(printf '%s\n' "$want" | sed "s/^$be $mode //; s/ ~.*//")
	got_fields=$(printf '%s\n' "$got" | sed "s/^plan $be $mode: //; s/ | .*//")
	[ "$got_fields" = "$want_fields" ] ||
		{ echo "FAIL: fields '$got_fields', want '$want_fields'"; fail=1; }
	rest=$(printf '%s\n' "$want" | sed 's/^[^~]*//')
	while [ -n "$rest" ]; do
		rest=${rest#\~}
		frag=${rest%% ~*}
		case $rest in *" ~"*) rest="~${rest#* ~}" ;; *) rest= ;; esac
		case $got in *"$frag"*) ;; *) echo "FAIL: reason lacks '$frag'"; fail=1 ;; esac
	done
	[ $fail = 0 ] || printf 'plan line was:\n%s\n' "$got"
	;;
*)
	echo "usage: $0 CLI FIXTURE text|json|plan [BACKEND MODE]"; exit 2 ;;
esac
[ $fail = 0 ] && echo "ok: $(basename "$dir") $kind ${4:-} ${5:-}"
exit $fail
