#!/usr/bin/env python3
"""test_perf_mthp.py REPO_DIR - perf/run.py --mthp without touching the
machine: every configuration runs twice (NAME and NAME+mthp64K), each run
gets its own word (madvise, never), and the word that was there is written
back when the suite ends, by an exception too; bad sizes are refused.  A
fake sysfs tree stands in for /sys/kernel/mm/transparent_hugepage.
Exit 0 ok, 1 failure."""
import os
import sys
import tempfile

repo = sys.argv[1]
sys.path.insert(0, os.path.join(repo, "perf"))
import run  # noqa: E402
from hpperf import mthp  # noqa: E402

failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)


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
sys.exit(1 if failures else 0)
