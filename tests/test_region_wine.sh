#!/bin/sh
# test_region_wine.sh SRC BUILD - the Windows part of the region API,
# built with mingw-w64 (region/windows/build.sh) and run under wine: wine,
# like a Windows machine whose policy grants no one "Lock pages in memory",
# refuses SeLockMemoryPrivilege, so what is asserted is the fallback, its
# reason and the data's integrity (test_region_windows.exe), and the
# example's Stockfish line.  Skips (77) without x86_64-w64-mingw32-gcc
# (Debian gcc-mingw-w64-x86-64) or wine (Debian wine64 + wine).
set -u
src=$1
build=$2
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 ||
	{ echo "SKIP: no x86_64-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64)"; exit 77; }
wine=$(command -v wine64 || command -v wine || ls /usr/lib/wine/wine64 2>/dev/null) ||
	{ echo "SKIP: no wine64/wine (Debian: wine64, wine)"; exit 77; }
out=$build/region-windows
sh "$src/region/windows/build.sh" "$src" "$out" || exit 1
# a prefix of our own (the first run creates it: ~20 s); no debug chatter
export WINEPREFIX="$build/wineprefix" WINEDEBUG=-all
cd "$out" || exit 1
t=$(timeout 300 "$wine" test_region_windows.exe | tr -d '\r'); rc=$?
printf '%s\n' "$t"
[ $rc = 0 ] || { echo "FAIL: test_region_windows.exe exited $rc"; exit 1; }
printf '%s\n' "$t" | grep -q '^  region.count  *1$' || { echo "FAIL: the report does not count the live region"; exit 1; }
printf '%s\n' "$t" | grep -q '^hugepolicy-stats: {"pid":[0-9]*,.*"plan.backend":"none",.*"region.count":1,' ||
	{ echo "FAIL: no JSON report with region.count"; exit 1; }
tt=$(timeout 120 "$wine" tt.exe 8 16 2 | tr -d '\r'); rc=$?
printf '%s\n' "$tt"
[ $rc = 0 ] || { echo "FAIL: tt.exe exited $rc (a stored entry did not read back)"; exit 1; }
line=$(printf '%s\n' "$tt" | grep -c '^info string Hash table allocation: Windows large pages \(not \)\{0,1\}used\.$')
[ "$line" = 2 ] || { echo "FAIL: tt.exe printed $line Stockfish lines, 2 expected"; exit 1; }
if printf '%s\n' "$tt" | grep -q 'large pages used\.$'; then
	echo "large pages granted: a machine with the Lock pages in memory right, not wine's default"
else
	printf '%s\n' "$tt" | grep -q 'large pages not used: SeLockMemoryPrivilege not held' ||
		{ echo "FAIL: no reason naming SeLockMemoryPrivilege"; exit 1; }
fi
echo "ok: the Windows region API falls back, says why, and keeps its data under wine"
