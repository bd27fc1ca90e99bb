#!/usr/bin/env python3
"""The `stress` perf job: tests/stress.c for minutes per backend x page mode.

  python3 perf/stress/run.py                       # 60 s per configuration, 4 threads
  python3 perf/stress/run.py --seconds 300 --modes off,thp,hugetlb,auto --fork
  python3 perf/stress/run.py --backends system --modes thp --seconds 10
  python3 perf/stress/run.py --rounds 3 --seconds 120   # interleaved rounds, median ops/s

Each configuration runs <build>/perf/stress/stress (or <build>/tests/stress)
as its own process under HUGEPOLICY_BACKEND/HUGEPOLICY_PAGES: random
malloc/calloc/realloc/memalign/aligned_alloc/posix_memalign/free at 1 B ..
16 MiB from N threads, cross-thread frees, every block's pattern checked.
Prints a Markdown table of ops/s, total ops and failures per backend x mode
(plus peak RSS, the largest AnonHugePages and Hugetlb seen, minor faults) and
writes it as CSV and JSON under --out.  With --rounds N every configuration
runs once per round, configurations interleaved, and the table gives the
median ops/s (min-max) and the sums of ops and failures; machine load from
other processes moves ops/s a lot, so compare columns of one table only.  hugetlb runs (root) add
--hugetlb-pages pages to the 2 MiB pool and give them back as a delta.
Exit 1 if any run had a failure or did not finish.  Stdlib only.
"""
import argparse
import csv
import statistics
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from hpperf import hugetlb  # noqa: E402

BACKENDS = ("system", "jemalloc", "mimalloc")
MODES = ("off", "thp", "hugetlb", "auto")
KV = re.compile(r"(\w+)=(\S+)")


def csv_list(allowed):
    def parse(text):
        items = [x.strip() for x in text.split(",") if x.strip()]
        if not items or any(x not in allowed for x in items):
            raise argparse.ArgumentTypeError("expected a comma list of %s" % ",".join(allowed))
        return items
    return parse


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backends", type=csv_list(BACKENDS), default=list(BACKENDS))
    p.add_argument("--modes", type=csv_list(MODES), default=list(MODES),
                   help="default off,thp,hugetlb,auto (hugetlb needs root, else it is skipped)")
    p.add_argument("--seconds", type=float, default=60.0, help="per configuration (default 60)")
    p.add_argument("--rounds", type=int, default=1, help="interleaved rounds (default 1)")
    p.add_argument("--threads", type=int, default=4, help="default 4")
    p.add_argument("--mem", type=int, default=192, help="MiB of live blocks at most (default 192)")
    p.add_argument("--fork", action="store_true", help="fork twice in each run, children check blocks")
    p.add_argument("--hugetlb-pages", type=int, default=128, help="pool pages added for hugetlb runs (default 128)")
    p.add_argument("--build", default=os.path.join(REPO, "build"), help="build directory (default build)")
    p.add_argument("--out", default=None, help="directory for stress.csv/stress.json "
                   "(default perf/results/stress-<time>)")
    a = p.parse_args(argv)
    if a.seconds <= 0 or a.threads < 1 or a.mem < 1 or a.hugetlb_pages < 1 or a.rounds < 1:
        p.error("--seconds, --rounds, --threads, --mem and --hugetlb-pages must be positive")
    return a


def find_binary(build):
    for rel in ("perf/stress/stress", "tests/stress"):
        path = os.path.join(build, rel)
        if os.access(path, os.X_OK):
            return path
    sys.exit("stress: no stress binary under %s (build the perf_stress target: cmake --build %s)" % (build, build))


def parse_output(text):
    """The key=value pairs of the `stress:` lines, later lines adding keys."""
    out = {}
    for line in text.splitlines():
        if line.startswith("stress: "):
            tag = "end_" if line.startswith("stress: end ") else ""
            for k, v in KV.findall(line):
                out[tag + k] = v
    return out


def run_one(binary, backend, mode, a):
    env = dict(os.environ, HUGEPOLICY_BACKEND=backend, HUGEPOLICY_PAGES=mode)
    cmd = [binary, "-t", str(a.threads), "-s", str(a.seconds), "--mem", str(a.mem),
           "--expect-backend", backend] + (["--fork"] if a.fork else [])
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.seconds + 300)
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or "", e.stderr or ""
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    kv = parse_output(out)
    row = {
        "backend": backend, "mode": mode, "effective": kv.get("end_pages", "?"),
        "rc": rc, "seconds": round(time.monotonic() - t0, 2),
        "ops": int(kv.get("ops", 0)), "ops_per_s": float(kv.get("ops_per_s", 0)),
        "failures": int(kv.get("failures", -1)), "nulls": int(kv.get("nulls", -1)),
        "forks": int(kv.get("forks", 0)), "fork_failures": int(kv.get("fork_failures", 0)),
        "peak_rss_mib": int(kv.get("end_peak_rss", 0)) / 2**20,
        "max_anon_huge_mib": int(kv.get("max_anon_huge", 0)) / 2**20,
        "max_hugetlb_mib": int(kv.get("max_hugetlb", 0)) / 2**20,
        "minor_faults": int(kv.get("end_minor_faults", 0)),
        "ok": rc == 0 and kv.get("failures") == "0",
    }
    if not row["ok"]:
        row["stderr_tail"] = err.splitlines()[-10:]
    return row


def summarise(runs):
    """One row per backend x mode from its runs (one per round)."""
    out = []
    for key in dict.fromkeys((r["backend"], r["mode"]) for r in runs):
        rs = [r for r in runs if (r["backend"], r["mode"]) == key]
        if rs[0].get("skipped"):
            out.append(rs[0])
            continue
        rates = [r["ops_per_s"] for r in rs]
        out.append({
            "backend": key[0], "mode": key[1], "effective": "/".join(sorted({r["effective"] for r in rs})),
            "rounds": len(rs), "ops_per_s": statistics.median(rates), "ops_per_s_min": min(rates),
            "ops_per_s_max": max(rates), "ops": sum(r["ops"] for r in rs),
            "failures": sum(max(r["failures"], 0) for r in rs) + sum(1 for r in rs if r["failures"] < 0),
            "nulls": sum(max(r["nulls"], 0) for r in rs), "forks": sum(r["forks"] for r in rs),
            "fork_failures": sum(r["fork_failures"] for r in rs),
            "peak_rss_mib": max(r["peak_rss_mib"] for r in rs),
            "max_anon_huge_mib": max(r["max_anon_huge_mib"] for r in rs),
            "max_hugetlb_mib": max(r["max_hugetlb_mib"] for r in rs),
            "minor_faults": statistics.median(r["minor_faults"] for r in rs),
            "seconds": sum(r["seconds"] for r in rs), "rc": ",".join(str(r["rc"]) for r in rs),
            "ok": all(r["ok"] for r in rs)})
    return out


def table(rows, a):
    lines = ["stress: %d threads, %g s per configuration and round, %d round%s, <= %d MiB live%s" %
             (a.threads, a.seconds, a.rounds, "s" if a.rounds > 1 else "", a.mem,
              ", 2 forks per run" if a.fork else ""), "",
             "| backend | mode (effective) | ops/s | total ops | failures | peak RSS MiB | "
             "max AnonHuge MiB | max Hugetlb MiB | minor faults |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r.get("skipped"):
            lines.append("| %s | %s | skipped: %s | | | | | | |" % (r["backend"], r["mode"], r["skipped"]))
            continue
        fails = str(r["failures"]) if r["ok"] else "**%s (rc %s)**" % (r["failures"], r["rc"])
        rate = "%.0f" % r["ops_per_s"]
        if r["rounds"] > 1:
            rate += " (%.0f-%.0f)" % (r["ops_per_s_min"], r["ops_per_s_max"])
        lines.append("| %s | %s (%s) | %s | %d | %s | %.0f | %.0f | %.0f | %d |" % (
            r["backend"], r["mode"], r["effective"], rate, r["ops"], fails,
            r["peak_rss_mib"], r["max_anon_huge_mib"], r["max_hugetlb_mib"], r["minor_faults"]))
    return "\n".join(lines)


def main(argv):
    a = parse_args(argv)
    binary = find_binary(a.build)
    out_dir = a.out or os.path.join(REPO, "perf", "results", time.strftime("stress-%Y%m%d-%H%M%S"))
    runs = []
    configs = [(b, m) for b in a.backends for m in a.modes]
    total = len(configs) * a.rounds
    for rnd in range(a.rounds):
        order = configs if rnd % 2 == 0 else configs[::-1]   # interleaved: A B C, C B A, ...
        for b, m in order:
            print("[%d/%d] round %d %s/%s, %g s ..." % (len(runs) + 1, total, rnd + 1, b, m, a.seconds),
                  file=sys.stderr, flush=True)
            if m == "hugetlb":
                why = hugetlb.can_reserve()
                if why:
                    runs.append({"backend": b, "mode": m, "skipped": why, "ok": True})
                    continue
                with hugetlb.pool(a.hugetlb_pages) as granted:
                    if granted < a.hugetlb_pages:
                        print("  the kernel granted %d of %d pool pages" % (granted, a.hugetlb_pages),
                              file=sys.stderr)
                    runs.append(run_one(binary, b, m, a))
            else:
                runs.append(run_one(binary, b, m, a))
            r = runs[-1]
            if not r.get("skipped"):
                print("  %s: %.0f ops/s, %d ops, %d failures" % ("ok" if r["ok"] else "FAIL", r["ops_per_s"],
                                                                 r["ops"], r["failures"]), file=sys.stderr)
                for line in r.get("stderr_tail", []):
                    print("  | " + line, file=sys.stderr)
    rows = summarise(runs)
    text = table(rows, a)
    print(text)
    os.makedirs(out_dir, exist_ok=True)
    fields = ["backend", "mode", "effective", "rounds", "ops_per_s", "ops_per_s_min", "ops_per_s_max", "ops", "failures", "nulls", "forks",
              "fork_failures", "peak_rss_mib", "max_anon_huge_mib", "max_hugetlb_mib", "minor_faults",
              "seconds", "rc", "ok", "skipped"]
    with open(os.path.join(out_dir, "stress.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out_dir, "stress.json"), "w") as f:
        json.dump({"threads": a.threads, "seconds": a.seconds, "rounds": a.rounds, "mem_mib": a.mem,
                   "fork": a.fork, "table": rows, "runs": runs}, f, indent=1)
    with open(os.path.join(out_dir, "stress.md"), "w") as f:
        f.write(text + "\n")
    print("\nwritten: %s/stress.{md,csv,json}" % out_dir, file=sys.stderr)
    bad = [r for r in rows if not r["ok"]]
    ran = sum(r.get("ops", 0) for r in rows)
    print("stress: %d configurations x %d rounds, %d operations, %d failed" % (len(rows), a.rounds, ran, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
