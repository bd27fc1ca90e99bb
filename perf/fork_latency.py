#!/usr/bin/env python3
"""Fork latency against the size of a hugetlb heap: the table of issue 19.

For each heap size, a two-thread process (perf/workloads/fork_latency.c)
writes the heap and forks --forks times; the median and slowest fork() are
printed per configuration:
- each backend under HUGEPOLICY_PAGES=hugetlb with room in the pool for a
  copy of every page (the pool raised by twice the heap), and with the pool
  raised by the heap only (no room: hugepolicy copies at the fork);
- native: the same program without hugepolicy (glibc malloc, base pages).
The pool is raised by a delta and given back (root only).  The host's fault
costs (hugepolicy probe --measure) are printed beside the table.
usage: perf/fork_latency.py [--build DIR] [--sizes 64,256,1024] [--forks 10]
"""
import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hpperf import hugetlb, machine  # noqa: E402

BACKENDS = ("system", "jemalloc", "mimalloc")


def run(cmd, env, timeout=600):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    for line in r.stdout.splitlines():
        if line.startswith("fork-latency "):
            f = dict(kv.split("=") for kv in line.split()[1:])
            return float(f["median_s"]), float(f["max_s"])
    raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()[-300:]))


def cell(x):
    return "%.1f / %.1f" % (x[0] * 1e3, x[1] * 1e3) if x else "–"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--sizes", default="64,256,1024", help="heap sizes, MiB")
    ap.add_argument("--forks", type=int, default=10)
    args = ap.parse_args(argv)
    build = os.path.abspath(args.build)
    exe = os.path.join(build, "perf", "fork_latency")
    cli = os.path.join(build, "hugepolicy")
    why = hugetlb.can_reserve()
    if why:
        print("fork_latency.py: %s: the pool cannot be raised" % why, file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    cols = ["native (glibc, base pages)"] + ["%s %s" % (b, r) for b in BACKENDS for r in ("room", "no room")]
    rows = []
    for mib in sizes:
        cmd = [exe, "--mib", str(mib), "--forks", str(args.forks)]
        row = {"native (glibc, base pages)": run(cmd, dict(os.environ))}
        pages = mib // 2 + 8          # the heap and slack for the allocator's own
        for b in BACKENDS:
            env = dict(os.environ, HUGEPOLICY_BACKEND=b, HUGEPOLICY_PAGES="hugetlb", HUGEPOLICY_THRESHOLD="2M")
            for room, extra in (("room", 2 * pages), ("no room", pages)):
                with hugetlb.pool(extra) as granted:
                    row["%s %s" % (b, room)] = run([cli, "run", "--"] + cmd, env) if granted >= extra else None
        rows.append((mib, row))
        print("%d MiB done" % mib, file=sys.stderr)
    print("Fork latency, ms (median / slowest of %d forks), two-thread parent, heap written in 4 MiB blocks"
          % args.forks)
    print()
    print("Fault costs: %s" % machine.costs_text(machine.fault_costs(cli)))
    print()
    print("| heap | " + " | ".join(cols) + " |")
    print("|---:|" + "---:|" * len(cols))
    for mib, row in rows:
        print("| %d MiB | " % mib + " | ".join(cell(row.get(c)) for c in cols) + " |")
    ratios = [row["system room"][0] / row["native (glibc, base pages)"][0]
              for _, row in rows if row.get("system room") and row["native (glibc, base pages)"][0]]
    if ratios:
        print()
        print("system/hugetlb with room against native, median of the medians' ratios: %.2f"
              % statistics.median(ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
