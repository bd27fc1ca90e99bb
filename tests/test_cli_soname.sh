#!/bin/sh
# test_cli_soname.sh BUILD_DIR INSTALL_LIBDIR - `hugepolicy run` preloads the versioned
# soname libhugepolicy.so.0 (what a runtime package ships; the unversioned
# libhugepolicy.so is the -dev package's), by its absolute path, beside the
# CLI or in ../lib*.
. "$(dirname "$0")/test_cli_common.sh"
unset HUGEPOLICY_LIBRARY
libdir=$2

out=$("$cli" run --dry-run -- true | grep '^LD_PRELOAD=')
check "build tree: LD_PRELOAD=$lib ($out)" [ "$out" = "LD_PRELOAD=$lib" ]

# an installed layout with the runtime package only: bin/ and lib/<soname>
mkdir -p "$t/usr/bin" "$t/usr/lib"
cp "$cli" "$t/usr/bin/hugepolicy"
cp "$build/libhugepolicy.so.0" "$t/usr/lib/libhugepolicy.so.0"
out=$("$t/usr/bin/hugepolicy" run --dry-run -- true | grep '^LD_PRELOAD=')
check "../lib: LD_PRELOAD=$t/usr/lib/libhugepolicy.so.0 ($out)" [ "$out" = "LD_PRELOAD=$t/usr/lib/libhugepolicy.so.0" ]
"$t/usr/bin/hugepolicy" run --verbose -- cat /proc/self/maps >"$t/maps" 2>"$t/err"
check "... runs the command with it mapped" grep -q "$t/usr/lib/libhugepolicy.so.0" "$t/maps"
check "... and hugepolicy started there" grep -q "backend system" "$t/err"

# the -dev package's unversioned name alone is not what run preloads
rm "$t/usr/lib/libhugepolicy.so.0"
cp "$build/libhugepolicy.so.0" "$t/usr/lib/libhugepolicy.so"
if [ -e "$libdir/libhugepolicy.so.0" ]; then
	echo "skip: the unversioned-only case: $libdir/libhugepolicy.so.0 is installed and would be found"
else
	"$t/usr/bin/hugepolicy" run -- true 2>"$t/err"
	rc=$?
	cat "$t/err"
	check "only libhugepolicy.so there: exit 1 ..." [ $rc -eq 1 ]
	check "... with one line" [ "$(wc -l <"$t/err")" -eq 1 ]
	check "... saying libhugepolicy.so.0 is not found" grep -q "libhugepolicy.so.0 not found" "$t/err"
fi
finish test_cli_soname
