"""Temporarily grow the system's default (2 MiB) hugetlb pool.

The pool is system-wide and others (tests, other runs) may grow or shrink it
meanwhile, so the pages added are given back as a delta rather than by
writing the old value, and what the kernel granted is read back rather than
assumed.
"""
import contextlib
import os

NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages"


def can_reserve():
    """None if this process can resize the pool, else the reason it can't."""
    if os.geteuid() != 0:
        return "not root: cannot write %s" % NR_HUGEPAGES
    if not os.path.exists(NR_HUGEPAGES):
        return "%s missing (kernel without hugetlbfs)" % NR_HUGEPAGES
    return None


def _read():
    with open(NR_HUGEPAGES) as f:
        return int(f.read().split()[0])


def _write(n):
    with open(NR_HUGEPAGES, "w") as f:
        f.write("%d\n" % n)


@contextlib.contextmanager
def pool(extra_pages):
    """Add extra_pages to nr_hugepages for the duration; yield pages granted."""
    old = _read()
    granted = 0
    try:
        _write(old + extra_pages)
        granted = max(0, _read() - old)
        yield granted
    finally:
        if granted:
            _write(max(0, _read() - granted))
