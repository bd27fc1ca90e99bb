#!/bin/sh
# region/windows/build.sh SRC OUT - the Windows part of hugepolicy with
# mingw-w64 (Debian: gcc-mingw-w64-x86-64): the region API and the report
# (region.c, region_table.c, region_say.c, region_windows.c,
# region_report_windows.c) as hugepolicy.dll with its import library
# libhugepolicy.dll.a, the transposition-table example tt.exe and the test
# test_region_windows.exe linked to it.  The Linux-only parts (malloc
# replacement, backends, policy/) are not built.  Exit 77 without the
# compiler.
set -eu
src=$1
out=$2
cc=${MINGW_CC:-x86_64-w64-mingw32-gcc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no $cc (Debian: gcc-mingw-w64-x86-64)"; exit 77; }
mkdir -p "$out"
version=$(sed -n 's/^project(hugepolicy VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
flags="-std=c11 -O2 -Wall -Wextra -Werror -D__USE_MINGW_ANSI_STDIO=1 -I$src/include"
"$cc" $flags -shared -o "$out/hugepolicy.dll" -Wl,--out-implib,"$out/libhugepolicy.dll.a" \
	"$src/region/region.c" "$src/region/region_table.c" "$src/region/region_say.c" "$src/region/region_windows.c" \
	"$src/region/region_report_windows.c" -DHP_VERSION="\"${version:-0.0.0}\"" -lpsapi
"$cc" $flags -o "$out/tt.exe" "$src/region/examples/tt.c" -L"$out" -lhugepolicy
"$cc" $flags -o "$out/test_region_windows.exe" "$src/tests/test_region_windows.c" -L"$out" -lhugepolicy
echo "built $out/hugepolicy.dll, tt.exe, test_region_windows.exe"
