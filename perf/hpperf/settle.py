"""Bring memory to the same state before each measured process (root only).

sync, then drop the clean page cache (/proc/sys/vm/drop_caches, 1 by
default: see perf/README.md for why not 3), then compact all zones
(/proc/sys/vm/compact_memory), so each run starts with about the same free
memory and the same number of free 2 MiB blocks, whatever the previous run
(or another process) left behind.  Also reads that number of free 2 MiB
blocks from /proc/buddyinfo, recorded per run.
"""
import os
import time

DROP = "/proc/sys/vm/drop_caches"
COMPACT = "/proc/sys/vm/compact_memory"
ORDER_2M = 9          # 2 MiB = order 9 with 4 KiB pages


def can_settle():
    """None if this process can settle memory, else the reason it can't."""
    if os.geteuid() != 0:
        return "not root: cannot write %s and %s" % (DROP, COMPACT)
    for p in (DROP, COMPACT):
        if not os.path.exists(p):
            return "%s missing" % p
    return None


def _write(path, value):
    with open(path, "w") as f:
        f.write("%d\n" % value)


def settle(drop=1):
    """sync, drop caches (`drop`: 1, 2 or 3; 0 = do not drop), compact.
    Returns the seconds it took."""
    t0 = time.monotonic()
    os.sync()
    if drop:
        _write(DROP, drop)
    _write(COMPACT, 1)
    return time.monotonic() - t0


def free_2m_blocks():
    """Free 2 MiB blocks in the buddy allocator (all zones), None if unknown."""
    total = 0
    try:
        with open("/proc/buddyinfo") as f:
            for line in f:
                counts = [int(x) for x in line.split()[4:]]
                total += sum(c << (order - ORDER_2M) for order, c in enumerate(counts)
                             if order >= ORDER_2M)
    except (OSError, ValueError):
        return None
    return total
