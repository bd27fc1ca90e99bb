#!/bin/sh
# test_cli_first_non_option.sh BUILD_DIR - `hugepolicy run` reads options only
# up to the first word that is not one: the command's own options (ls
# --help, grep -h) reach the command, which runs with hugepolicy preloaded.
. "$(dirname "$0")/test_cli_common.sh"

ls --help >"$t/want" 2>&1
"$cli" run ls --help >"$t/got" 2>&1
check "run ls --help exits 0" [ $? -eq 0 ]
check "run ls --help prints ls's help, not hugepolicy's usage" cmp -s "$t/want" "$t/got"

grep -h root /etc/passwd >"$t/want"
"$cli" run grep -h root /etc/passwd >"$t/got" 2>"$t/err"
check "run grep -h root /etc/passwd exits 0" [ $? -eq 0 ]
check "... and prints grep's lines" cmp -s "$t/want" "$t/got"
check "... and nothing on stderr" [ ! -s "$t/err" ]

"$cli" run --backend system --verbose ls --help >"$t/got" 2>"$t/err"
check "options before the command are taken, ls still gets --help" grep -q "^Usage: ls" "$t/got"
check "... with hugepolicy preloaded into ls" grep -q "backend system (HUGEPOLICY_BACKEND)" "$t/err"

"$cli" run sh -c 'echo "$@"' sh --pages bogus -h >"$t/got" 2>&1
check "words after the command that look like run's options are the command's" \
	[ "$(cat "$t/got")" = "--pages bogus -h" ]
"$cli" run --help >"$t/got" 2>&1
check "run --help before a command prints run's usage" grep -q "^usage: hugepolicy run" "$t/got"
"$cli" run --nonsense ls 2>"$t/err"
check "an unknown option before the command is a usage error (2)" [ $? -eq 2 ]
finish test_cli_first_non_option
