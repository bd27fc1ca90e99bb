#!/usr/bin/env python3
"""numpy_region.py - a numpy array backed by a hugepolicy region (ctypes).

numpy gives its own big arrays MADV_HUGEPAGE (blocks >= 4 MiB); a region
goes further: the hugetlb pool if it has room, else THP, populated by N
threads, and the kernel's own account of what the array got.

libhugepolicy cannot be dlopen'ed late (its embedded jemalloc uses
initial-exec TLS), so run Python under it; ctypes then finds the loaded copy:

    hugepolicy run -- python3 numpy_region.py [MiB [THREADS]]
    LD_PRELOAD=/path/libhugepolicy.so.0 python3 numpy_region.py

HUGEPOLICY_LIBRARY names the library if its soname is not on the path.
"""
import ctypes
import os
import sys

import numpy as np

REGION_AUTO, REGION_HUGETLB, REGION_THP, REGION_BASE = range(4)
REGION_POPULATE = 1


class Options(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("pages", ctypes.c_int32), ("numa", ctypes.c_int32),
                ("node", ctypes.c_int32), ("fork", ctypes.c_int32),
                ("threads", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("hugetlb_page_size", ctypes.c_uint64)]


class Info(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("kind", ctypes.c_int32),
                ("requested", ctypes.c_uint64), ("length", ctypes.c_uint64),
                ("hugetlb_page_size", ctypes.c_uint64),
                ("hugetlb_bytes", ctypes.c_uint64), ("thp_bytes", ctypes.c_uint64),
                ("base_bytes", ctypes.c_uint64), ("rss", ctypes.c_uint64),
                ("prefaulted", ctypes.c_int32), ("numa", ctypes.c_int32),
                ("numa_noop", ctypes.c_int32), ("fork", ctypes.c_int32),
                ("vmas", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("reason", ctypes.c_char * 640)]


def library():
    lib = ctypes.CDLL(os.environ.get("HUGEPOLICY_LIBRARY") or "libhugepolicy.so.0",
                      use_errno=True)
    lib.hugepolicy_region_alloc.restype = ctypes.c_void_p
    lib.hugepolicy_region_alloc.argtypes = [ctypes.c_size_t, ctypes.POINTER(Options)]
    lib.hugepolicy_region_free.argtypes = [ctypes.c_void_p]
    lib.hugepolicy_region_info.argtypes = [ctypes.c_void_p, ctypes.POINTER(Info)]
    lib.hugepolicy_region_kind_name.restype = ctypes.c_char_p
    return lib


def main():
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    lib = library()
    nbytes = mib << 20
    opt = Options(size=ctypes.sizeof(Options), flags=REGION_POPULATE,
                  pages=REGION_HUGETLB, threads=threads)
    addr = lib.hugepolicy_region_alloc(nbytes, ctypes.byref(opt))
    if not addr:
        print("region: %s" % os.strerror(ctypes.get_errno()))
        return 1
    # a float64 array over the region: no copy, the region's pages
    buf = (ctypes.c_char * nbytes).from_address(addr)
    a = np.frombuffer(buf, dtype=np.float64)
    a[:] = np.arange(a.size, dtype=np.float64)
    ok = a.sum() == a.size * (a.size - 1) / 2
    info = Info(size=ctypes.sizeof(Info))
    lib.hugepolicy_region_info(ctypes.c_void_p(addr), ctypes.byref(info))
    kind = lib.hugepolicy_region_kind_name(info.kind).decode()
    print("numpy array of %d float64 on a %s region: hugetlb %d MiB, THP %d MiB, "
          "base %d MiB (smaps); sum %s" % (a.size, kind, info.hugetlb_bytes >> 20,
                                           info.thp_bytes >> 20, info.base_bytes >> 20,
                                           "ok" if ok else "WRONG"))
    for line in info.reason.decode().splitlines():
        print("  " + line)
    del a, buf                  # no view may outlive the region
    lib.hugepolicy_region_free(ctypes.c_void_p(addr))
    return 0 if ok and info.rss == info.length else 1


if __name__ == "__main__":
    sys.exit(main())
