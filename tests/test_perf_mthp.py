#!/usr/bin/env python3
"""test_perf_mthp.py REPO_DIR - perf/run.py --mthp without touching the
machine: every configuration runs twice (NAME and NAME+mthp64K), each run
gets its own word (madvise, never), and the word that was there is written
back when the suite ends, by an exception too; bad sizes are refused; the
paired table puts each NAME+mthp64K against NAME on fixed run records.  A
fake sysfs tree stands in for /sys/kernel/mm/transparent_hugepage.
Exit 0 ok, 1 failure."""
import os
import sys
import tempfile

repo = sys.argv[1]
sys.path.insert(0, os.path.join(repo, "perf"))
import run  # noqa: E402
from hpperf import mthp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, failures  # noqa: E402


args = run.parse_args(["--backends", "system,jemalloc", "--modes", "off,auto", "--mthp", "64K"])
names = ["%s/%s" % c for c in run.configurations(args)]
check(names == ["system/off", "system/off+mthp64K", "system/auto", "system/auto+mthp64K", "jemalloc/off",
                "jemalloc/off+mthp64K", "jemalloc/auto", "jemalloc/auto+mthp64K"], "configurations doubled: %s" % names)
cmd, env = run.child_command(args, "system", "auto+mthp64K", ["true"])
check(cmd[:6] == [args.hugepolicy, "run", "--backend", "system", "--pages", "auto"],
      "a +mthp run asks hugepolicy for the mode itself: %s" % cmd[:6])
for bad in ("3K", "0", "64M", "x"):
    try:
        mthp.parse_kb(bad)
        check(False, "--mthp %s refused" % bad)
    except ValueError:
        check(True, "--mthp %s refused" % bad)
check(mthp.parse_kb("64k") == 64 and mthp.parse_kb("16KiB") == 16, "64k and 16KiB accepted")

def sysfs_write(kb, word):
    """as the kernel shows a choice file after a write: every word, the one chosen in brackets"""
    with open(mthp.enabled_path(kb), "w") as out:
        out.write(" ".join("[%s]" % w if w == word else w for w in ("always", "inherit", "madvise", "never")) + "\n")


with tempfile.TemporaryDirectory() as d:
    mthp.DIR = d
    mthp.write = sysfs_write
    os.makedirs(os.path.join(d, "hugepages-64kB"))
    f = os.path.join(d, "hugepages-64kB", "enabled")
    with open(f, "w") as out:
        out.write("always inherit [madvise] never\n")
    lock = os.path.join(d, "lock")
    with mthp.held(64, lock) as was:
        check(was == "madvise", "the word there read: %s" % was)
        check(mthp.set_for(64, "auto") == "never", "a plain run gets never")
        check(mthp.set_for(64, "auto+mthp64K") == "madvise", "a +mthp64K run gets madvise")
        mthp.set_for(64, "off")
    check(mthp.read(64) == "madvise", "the word written back at the end")
    try:
        with mthp.held(64, lock):
            mthp.write(64, "never")
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    check(mthp.read(64) == "madvise", "... and when the suite is interrupted")


class Wl:
    name, main_metric = "fake", "wall_s"


def rec(config, rnd, wall, folios):
    stats = {"process.mthp.64kB": folios} if folios is not None else {}
    return {"workload": "fake", "config": config, "round": rnd, "ok": True, "metrics": {}, "wall_s": wall,
            "cpu_s": wall, "peak_mem_mib": 100.0, "minflt": 1000 if folios is None else 500, "hp_stats": stats}


recs = [rec("system/auto", r, 2.0, None) for r in (1, 2, 3)]
recs += [rec("system/auto+mthp64K", r, w, 8 << 20) for r, w in ((1, 1.0), (2, 1.2), (3, 1.4))]
table = mthp.table(recs, [Wl()], ["system/auto", "system/auto+mthp64K"], 64)
print(table)
row = [ln for ln in table.splitlines() if ln.startswith("| fake | system/auto |")]
check(len(row) == 1, "one row per workload and pair")
cells = row[0].split(" | ") if row else []
check(len(cells) == 8 and cells[2].startswith("0.600 [0.500, 0.700]"),
      "main metric: the median of the paired ratios 0.5, 0.6, 0.7 and its interval: %s" % cells[2:3])
check(len(cells) == 8 and cells[6].startswith("0.500") and cells[7].startswith("– / 8"),
      "minor faults halved; folios MiB without / with: %s" % cells[6:])
check(mthp.table(recs, [Wl()], ["system/auto"], 64) == "", "no pair, no table")
sys.exit(1 if failures else 0)
