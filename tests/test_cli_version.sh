#!/bin/sh
# test_cli_version.sh BUILD_DIR VERSION - `hugepolicy --version` and
# `hugepolicy version` print hugepolicy's, the embedded jemalloc's, the
# mimalloc's the library would dlopen and glibc's versions, one per line,
# exit 0, and never load libhugepolicy (nor run mimalloc) in the CLI itself.
. "$(dirname "$0")/test_cli_common.sh"
version=$2

"$cli" --version >"$t/a" 2>"$t/err"
check "--version exits 0" [ $? -eq 0 ]
"$cli" version >"$t/b" 2>>"$t/err"
check "version exits 0" [ $? -eq 0 ]
cat "$t/a"
check "--version and version print the same" cmp -s "$t/a" "$t/b"
check "four lines, nothing on stderr" [ "$(wc -l <"$t/a")" -eq 4 -a ! -s "$t/err" ]
check "line 1: hugepolicy $version" [ "$(sed -n 1p "$t/a")" = "hugepolicy $version" ]

je=$(sed -n 2p "$t/a")
check "line 2: jemalloc <version> (embedded)" matches "$je" 'jemalloc 5\.[0-9]*\.[0-9]*-[0-9]*-g[0-9a-f]* (embedded)$'
# what the embedded jemalloc itself says at run time (its config line)
env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_VERBOSE=1 /bin/true 2>"$t/cfg"
jv=$(echo "$je" | cut -d' ' -f2 | cut -c1-12)
check "... the version the embedded jemalloc reports ($jv)" grep -q "config jemalloc $jv" "$t/cfg"

mi=$(sed -n 3p "$t/a")
mipath=$(/sbin/ldconfig -p | awk '$1 == "libmimalloc.so.2" { print $NF; exit }')
mipkg=$(dpkg-query -W -f '${Version}' libmimalloc2.0 2>/dev/null | sed 's/[-+~].*//')
if [ -n "$mipkg" ]; then
	check "line 3: mimalloc $mipkg ($mipath) [Debian's package]" [ "$mi" = "mimalloc $mipkg ($mipath)" ]
else
	check "line 3: mimalloc X.Y.Z ($mipath)" matches "$mi" "mimalloc [0-9]*\.[0-9]*\.[0-9]* ($mipath)\$"
fi
check "line 4: glibc (getconf GNU_LIBC_VERSION)" [ "$(sed -n 4p "$t/a")" = "$(getconf GNU_LIBC_VERSION)" ]

# a libmimalloc.so.2 without mi_version (LD_LIBRARY_PATH reaches dlopen)
mkdir "$t/fake"
ln -s "$(realpath "$(/sbin/ldconfig -p | awk '$1 == "libutil.so.1" { print $NF; exit }')")" "$t/fake/libmimalloc.so.2"
LD_LIBRARY_PATH="$t/fake" "$cli" version >"$t/c"
check "without mi_version: 'mimalloc not found (<why>)'" \
	grep -qx "mimalloc not found (.*libmimalloc.so.2 has no mi_version)" "$t/c"

# nothing of libhugepolicy in the CLI's process; mimalloc's init only in a child
readelf -d "$cli" | grep NEEDED >"$t/needed"
check "the CLI does not link libhugepolicy" [ "$(grep -c hugepolicy "$t/needed")" -eq 0 ]
# (LD_DEBUG_OUTPUT: the loader's lines, each starting with its process's pid;
# a forked child writes to its parent's file)
LD_DEBUG=files LD_DEBUG_OUTPUT="$t/ld" "$cli" --version >/dev/null &
self=$!
wait $self
check "the loader never opens libhugepolicy for --version" [ "$(cat "$t"/ld.* | grep -c libhugepolicy)" -eq 0 ]
mipid=$(cat "$t"/ld.* | awk '/calling init: .*libmimalloc/ { sub(":", "", $1); print $1 }')
check "mimalloc's constructor runs once, in a child ($mipid), not in the CLI ($self)" \
	[ -n "$mipid" -a "$mipid" != "$self" -a "$(echo "$mipid" | wc -l)" -eq 1 ]
finish test_cli_version
