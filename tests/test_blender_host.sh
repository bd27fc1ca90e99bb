#!/bin/sh
# test_blender_host.sh BUILD_DIR BACKEND - Debian's Blender links
# libjemalloc.so.2 itself; under `hugepolicy run` malloc, free and C++
# new/delete in it must still be hugepolicy's, with BACKEND behind them.
# Skips (77) where Blender is not installed.
set -u
build=$1
backend=$2
command -v blender >/dev/null 2>&1 || { echo "SKIP: blender not installed (sh .ci/install-deps main)"; exit 77; }
py='
import ctypes
class DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]
libc = ctypes.CDLL(None)
libc.dlsym.restype = ctypes.c_void_p
libc.dlsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
for name in (b"malloc", b"free", b"calloc", b"_Znwm", b"_ZdlPv", b"_ZdaPv"):
    info = DlInfo()
    libc.dladdr(ctypes.c_void_p(libc.dlsym(None, name)), ctypes.byref(info))
    print("HP_OWNER", name.decode(), info.fname.decode())
be = ctypes.CDLL(None).hugepolicy_backend
be.restype = ctypes.c_char_p
print("HP_BACKEND", be().decode())
'
out=$("$build/hugepolicy" run --backend "$backend" -- blender -b --factory-startup --python-expr "$py" 2>&1)
rc=$?
echo "$out" | grep '^HP_'
fail=0
[ $rc -eq 0 ] || { echo "FAIL: blender exited $rc"; fail=1; }
[ "$(echo "$out" | grep -c '^HP_OWNER .*libhugepolicy')" -eq 6 ] || { echo "FAIL: an allocator entry point is not hugepolicy's"; fail=1; }
echo "$out" | grep -q "^HP_BACKEND $backend\$" || { echo "FAIL: backend is not $backend"; fail=1; }
[ $fail -eq 0 ] && echo "ok: blender under $backend"
exit $fail
