#!/usr/bin/env python3
"""perf/region_bench.py BUILD [--rounds 5] [--mib 1024] [--probes N] [--populate]

The Stockfish shape on regions: perf/workloads/hashtable.c gets its table
from hugepolicy_region_alloc with the kind forced to hugetlb, THP or base
pages (under LD_PRELOAD=libhugepolicy.so.0, backend system, pages off, so
only the table differs), ROUNDS interleaved rounds in a shuffled order per
round.  Prints probes/s and clear seconds per kind, and each kind's paired
ratio against base pages (per round, the same round's base run) with a
bootstrap 95 % confidence interval of the median ratio.  As root it adds
the pool pages the table needs and gives back exactly that delta; without
them the hugetlb runs fall back and the table says which kind they got.
With --populate: instead, the time hugepolicy_region_alloc takes to
populate the table with 1 and with 2 threads, per kind (alloc_s).
Results: BUILD/perf-results/region_bench.csv (or region_populate.csv).
"""
import argparse
import contextlib
import csv
import os
import random
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hpperf import hugetlb  # noqa: E402

KINDS = ["hugetlb", "thp", "base"]
KV = re.compile(r"(\w+)=([-\w.]+)")


def run_one(build, kind, mib, probes, populate=0):
    env = dict(os.environ, LD_PRELOAD=os.path.join(build, "libhugepolicy.so.0"),
               HUGEPOLICY_BACKEND="system", HUGEPOLICY_PAGES="off")
    for k in ("HUGEPOLICY_VERBOSE", "HUGEPOLICY_STATS"):
        env.pop(k, None)
    out = subprocess.run([os.path.join(build, "perf", "hashtable"), "--mib", str(mib),
                          "--probes-per-thread", str(probes), "--region", kind] +
                         (["--populate", str(populate)] if populate else []),
                         env=env, capture_output=True, text=True, timeout=600)
    for line in out.stdout.splitlines():
        if line.startswith("hashtable "):
            return dict(KV.findall(line))
    raise RuntimeError("hashtable --region %s: rc %d: %s" % (kind, out.returncode, out.stderr.strip()))


def table_pool(mib):
    """The pool pages a MIB table needs, added for the with-block and given
    back as a delta (hpperf.hugetlb); without root, nothing (hugetlb runs
    fall back and say so).  Yields (pages granted, why not or None)."""
    why = hugetlb.can_reserve()
    return hugetlb.pool(mib // 2 + 8) if why is None else contextlib.nullcontext(0), why


def write_csv(build, name, rows):
    out_dir = os.path.join(build, "perf-results")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=sorted({k for x in rows for k in x}))
        w.writeheader()
        w.writerows(rows)


def bootstrap_ci(values, n=2000, seed=1):
    rnd = random.Random(seed)
    meds = sorted(statistics.median(rnd.choices(values, k=len(values))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--probes", type=int, default=20000000)
    ap.add_argument("--populate", action="store_true")
    a = ap.parse_args()
    if a.populate:
        return populate(a)
    rows = []
    pool, why = table_pool(a.mib)
    with pool as granted:
        print("pool: +%d pages of 2 MiB%s" % (granted, "" if why is None else " (%s)" % why))
        for r in range(a.rounds):
            order = KINDS[:]
            random.Random(r).shuffle(order)
            for kind in order:
                f = run_one(a.build, kind, a.mib, a.probes)
                f.update(round=r, asked=kind)
                rows.append(f)
                print("round %d %-7s got %-7s %8s Mprobes/s clear %s s" %
                      (r, kind, f["region"], f["mprobes_per_s"], f["clear_s"]), flush=True)
    base = {x["round"]: float(x["mprobes_per_s"]) for x in rows if x["asked"] == "base"}
    print("\n%-8s %-8s %14s %10s %24s" % ("asked", "got", "Mprobes/s med", "clear med", "ratio vs base [95% CI]"))
    for kind in KINDS:
        mine = [x for x in rows if x["asked"] == kind]
        got = ",".join(sorted({x["region"] for x in mine}))
        mp = statistics.median(float(x["mprobes_per_s"]) for x in mine)
        cl = statistics.median(float(x["clear_s"]) for x in mine)
        ratios = [float(x["mprobes_per_s"]) / base[x["round"]] for x in mine]
        lo, hi = bootstrap_ci(ratios)
        print("%-8s %-8s %14.2f %9.3fs %10.3fx [%.3f, %.3f]" % (kind, got, mp, cl, statistics.median(ratios), lo, hi))
    write_csv(a.build, "region_bench.csv", rows)
    return 0


def populate(a):
    """alloc_s of a populated region, 1 vs 2 threads, per kind, interleaved."""
    rows = []
    pool, _ = table_pool(a.mib)
    with pool:
        for r in range(a.rounds):
            cells = [(k, t) for k in KINDS for t in (1, 2)]
            random.Random(r).shuffle(cells)
            for kind, threads in cells:
                f = run_one(a.build, kind, a.mib, 1000, populate=threads)
                f.update(round=r, asked=kind, threads=threads)
                rows.append(f)
    print("%-8s %-8s %12s %12s %22s" % ("asked", "got", "1 thread", "2 threads", "2 vs 1 [95% CI]"))
    for kind in KINDS:
        one = {x["round"]: float(x["alloc_s"]) for x in rows if x["asked"] == kind and x["threads"] == 1}
        two = {x["round"]: float(x["alloc_s"]) for x in rows if x["asked"] == kind and x["threads"] == 2}
        got = ",".join(sorted({x["region"] for x in rows if x["asked"] == kind}))
        ratios = [two[r] / one[r] for r in one]
        lo, hi = bootstrap_ci(ratios)
        print("%-8s %-8s %11.3fs %11.3fs %10.3fx [%.3f, %.3f]" % (kind, got, statistics.median(one.values()),
              statistics.median(two.values()), statistics.median(ratios), lo, hi))
    write_csv(a.build, "region_populate.csv", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
