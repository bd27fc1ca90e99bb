#!/bin/sh
# test_exports.sh LIB - libhugepolicy.so exports exactly its API, the malloc
# family, glibc's API beside it (mallinfo2, malloc_trim ...), fork, _exit
# and _Exit (not quick_exit: glibc's two versions differ), glibc's
# __libc_* allocator names and C++ new/delete: nothing of
# the embedded jemalloc, nothing versioned (versioned references such as
# malloc@GLIBC_2.2.5 must be able to bind to them).
set -u
lib=$1
fail=0
syms=$(nm -D --defined-only "$lib" | awk '{ print $3 }')
for s in $syms; do
	case "$s" in
	hugepolicy_*|malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|malloc_usable_size) ;;
	__libc_malloc|__libc_free|__libc_calloc|__libc_realloc|__libc_memalign|__libc_valloc|__libc_pvalloc) ;;
	mallinfo|mallinfo2|malloc_trim|mallopt|malloc_stats|malloc_info) ;;
	fork|_exit|_Exit) ;;
	_Znwm*|_Znam*|_ZdlPv*|_ZdaPv*) ;;
	*) echo "FAIL: unexpected export $s"; fail=$((fail + 1)) ;;
	esac
done
for s in malloc free _Znwm _ZdaPvmSt11align_val_t hugepolicy_stats __libc_malloc \
	mallinfo mallinfo2 malloc_trim mallopt malloc_stats malloc_info fork _exit _Exit; do
	echo "$syms" | grep -qx "$s" || { echo "FAIL: missing export $s"; fail=$((fail + 1)); }
done
if nm -D --defined-only "$lib" | grep -q '@'; then
	echo "FAIL: versioned exports"; fail=$((fail + 1))
fi
if readelf -d "$lib" | grep -q 'libstdc++'; then
	echo "FAIL: depends on libstdc++"; fail=$((fail + 1))
fi
echo "test_exports: $(echo "$syms" | wc -l) exports, $fail failed"
[ "$fail" -eq 0 ]
