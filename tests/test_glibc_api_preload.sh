#!/bin/sh
# test_glibc_api_preload.sh LIB BACKEND - a host that does not link
# libhugepolicy (python3, preloaded as `hugepolicy run` does) reaches the
# backend's mallinfo2 and malloc_trim through the global scope (ctypes,
# as Python code calls them): with 100 MiB live in 1 KiB blocks mallinfo2
# counts it, and once they are freed malloc_trim(0) is 1.
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
LD_PRELOAD=$1 HUGEPOLICY_BACKEND=$2 python3 - <<'PY'
import ctypes, sys
class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
scope = ctypes.CDLL(None)
scope.mallinfo2.restype = MallInfo2
scope.hugepolicy_backend.restype = ctypes.c_char_p
live = 100 << 20
blocks = [bytearray(1024) for _ in range(live // 1024)]   # > 512 B: malloc, not pymalloc
m = scope.mallinfo2()
del blocks
rc = scope.malloc_trim(0)
print("%s: mallinfo2 uordblks %d hblkhd %d; malloc_trim(0) = %d"
      % (scope.hugepolicy_backend().decode(), m.uordblks, m.hblkhd, rc))
sys.exit(0 if m.uordblks + m.hblkhd >= live and rc == 1 else 1)
PY
