#!/bin/sh
# ubsan_whole.sh SRC DIR [REGEX] - the whole libhugepolicy.so and the test
# programs built with -fsanitize=undefined -fno-sanitize-recover=undefined in
# a second tree DIR, then the tests matching REGEX run there.  UBSan has no
# malloc of its own, so unlike ASan/TSan it can run under hugepolicy's malloc
# (every backend, preloaded or linked).  Every report goes to DIR/ubsan-logs
# (UBSAN_OPTIONS log_path), so one that a test script swallowed still fails
# this test: it passes only if the tests pass and no report was written.
set -eu
src=$1
dir=$2
# unit tests, every backend's C/C++ hosts, start-up race, fork, big blocks,
# the system backend's hugetlb blocks (pool set and given back as a delta),
# glibc's own malloc tests, the report and log paths
regex=${3:-'^(options_table_|escaped_text_|cgroup_room_|bad_env_values_warn|hugepolicy_log_gets|(system|jemalloc|mimalloc)_((off|thp)_keeps_c_standard_errors|cxx_host_new_delete|threads_race_on_first|early_allocations|fork_while_threads|auto_realloc_calloc|report_never_writes|auto_(zero_size|small_blocks|usable_size|realloc_to_zero|too_large))|system_hugetlb_(backs_64mib|exhausted_pool|keeps_c_standard)|mimalloc_hugetlb_backs_64mib|glibc_tst-(malloc|calloc|realloc|memalign)_)'}
flags="-fsanitize=undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
logs=$dir/ubsan-logs
mkdir -p "$dir"
start=$(date +%s)
if ! cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHUGEPOLICY_WERROR=OFF \
	-DHUGEPOLICY_SANITIZE=OFF -DHUGEPOLICY_FUZZ=OFF \
	-DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
	-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=undefined -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=undefined \
	-DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=undefined >"$dir/configure.log" 2>&1; then
	tail -20 "$dir/configure.log"
	echo "ubsan_whole: configure failed (log: $dir/configure.log)"
	exit 1
fi
if ! cmake --build "$dir" -j2 >"$dir/build.log" 2>&1; then
	grep -E 'error|Error' "$dir/build.log" | head -20
	echo "ubsan_whole: build failed (log: $dir/build.log)"
	exit 1
fi
echo "ubsan_whole: configured and built in $(( $(date +%s) - start )) s"
# the library really is instrumented
if ! nm -D "$dir/libhugepolicy.so" | grep -q __ubsan_handle; then
	echo "ubsan_whole: libhugepolicy.so has no UBSan handlers: flags did not reach it"
	exit 1
fi
rm -rf "$logs"
mkdir -p "$logs"
status=0
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan" \
	ctest --test-dir "$dir" -R "$regex" -j2 --output-on-failure --timeout 120 >"$dir/ctest.log" 2>&1 || status=$?
grep -E 'tests passed|tests failed|\*\*\*Failed|\*\*\*Exception|Timeout|Not Run' "$dir/ctest.log" || true
ran=$(grep -c 'Test *#' "$dir/ctest.log" || true)
if [ "$ran" -lt 20 ]; then
	echo "ubsan_whole: only $ran tests matched '$regex'"
	status=1
fi
for f in "$logs"/ubsan*; do
	[ -e "$f" ] || continue
	echo "ubsan_whole: UBSan report $f:"
	cat "$f"
	status=1
done
[ "$status" = 0 ] && echo "ubsan_whole: $ran tests under UBSan, no report, in $(( $(date +%s) - start )) s"
exit "$status"
