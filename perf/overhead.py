#!/usr/bin/env python3
"""What hugepolicy itself costs, against what a user would otherwise run.

start-up: `true` plain, with libhugepolicy.so preloaded per backend, and
          under `hugepolicy run --backend B` (one more exec), in ms.
fast path: malloc(32)+free pairs (perf/workloads/malloc_loop.c) and churn
          (perf/workloads/churn.c, one thread: a free and a malloc of a
          mixed size per op) through hugepolicy per backend and page mode
          vs the native baseline - glibc without preload, Debian's
          libjemalloc.so.2 / libmimalloc.so.2 preloaded directly, as
          perf/run.py's native-* "off" - in ns per pair or op.
Start-up configurations are interleaved within every round (medians); the
fast path runs native and hugepolicy as a pair, order alternating, and
prints the median of the per-pair ratios with a bootstrap 95 % interval.
Instruction counts per pair, which a shared machine cannot blur:
perf/callgrind_pairs.sh.
usage: python3 perf/overhead.py [--build build] [--rounds 200] [--loop-rounds 7]
       [--loops malloc_loop,churn] [--backends system,jemalloc,mimalloc]
       [--modes off,auto] [--no-startup]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

LIBDIR = "/usr/lib/x86_64-linux-gnu"


def spawn_ms(argv, env):
    t0 = time.perf_counter_ns()
    subprocess.run(argv, env=env, check=True, stdin=subprocess.DEVNULL)
    return (time.perf_counter_ns() - t0) / 1e6


def env_with(**kv):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HUGEPOLICY_") and k != "LD_PRELOAD"}
    env.update(kv)
    return env


def startup(build, rounds):
    lib = os.path.join(build, "libhugepolicy.so")
    cli = os.path.join(build, "hugepolicy")
    true = "/bin/true"
    configs = [("plain", [true], env_with())]
    for b in ("system", "jemalloc", "mimalloc"):
        configs.append(("preload %s" % b, [true], env_with(LD_PRELOAD=lib, HUGEPOLICY_BACKEND=b)))
    for b in ("system", "jemalloc", "mimalloc"):
        configs.append(("hugepolicy run %s" % b, [cli, "run", "--backend", b, "--", true], env_with()))
    times = {name: [] for name, _, _ in configs}
    for _ in range(rounds):
        for name, argv, env in configs:
            times[name].append(spawn_ms(argv, env))
    base = statistics.median(times["plain"])
    print("\n| start-up of `true` | median ms | + vs plain |\n|---|---:|---:|")
    for name, _, _ in configs:
        m = statistics.median(times[name])
        print("| %s | %.2f | %+.2f ms |" % (name, m, m - base))


# the hot path's workloads: argv after the binary, and how to read ns per
# malloc+free pair (churn: one free + one malloc per op, one thread)
LOOPS = {
    "malloc_loop": (["--size", "32", "--iters", "20000000"],
                    lambda out: float(out.split("ns_per_pair=")[1].split()[0])),
    "churn": (["--threads", "1", "--ops-per-thread", "3000000"],
              lambda out: float(out.split("seconds=")[1].split()[0]) * 1e9 / 3000000),
}
# the native baseline per backend and page mode, as perf/run.py's native-*
# configurations (auto has no native equivalent: against "off")
NATIVE_ENV = {
    ("system", "off"): {},
    ("system", "thp"): {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"},
    ("jemalloc", "off"): {"LD_PRELOAD": os.path.join(LIBDIR, "libjemalloc.so.2"),
                          "MALLOC_CONF": "thp:never,metadata_thp:disabled"},
    ("jemalloc", "thp"): {"LD_PRELOAD": os.path.join(LIBDIR, "libjemalloc.so.2"),
                          "MALLOC_CONF": "thp:always,metadata_thp:auto"},
    ("mimalloc", "off"): {"LD_PRELOAD": os.path.join(LIBDIR, "libmimalloc.so.2"), "MIMALLOC_LARGE_OS_PAGES": "0"},
    ("mimalloc", "thp"): {"LD_PRELOAD": os.path.join(LIBDIR, "libmimalloc.so.2"), "MIMALLOC_LARGE_OS_PAGES": "1"},
}


def native_env(backend, mode):
    return NATIVE_ENV.get((backend, mode), NATIVE_ENV[(backend, "off")])


def median_ci(values, reps=2000, seed=1):
    """median and a bootstrap 95 % interval of it"""
    import random
    rnd = random.Random(seed)
    meds = sorted(statistics.median(rnd.choices(values, k=len(values))) for _ in range(reps))
    return statistics.median(values), meds[int(0.025 * reps)], meds[int(0.975 * reps) - 1]


def fast_path(build, rounds, loops, backends, modes):
    """hugepolicy BACKEND/MODE against the native allocator, run in pairs
    (native, hugepolicy; order alternating per round), ratio per pair"""
    lib = os.path.join(build, "libhugepolicy.so")
    rows = [(b, m) for b in backends for m in modes]
    ns, ratios = {}, {}
    for r in range(rounds):
        for loop in loops:
            args, parse = LOOPS[loop]
            argv = [os.path.join(build, "perf", loop)] + args
            for b, m in rows:
                pair = [("native", env_with(**native_env(b, m))),
                        ("hugepolicy", env_with(LD_PRELOAD=lib, HUGEPOLICY_BACKEND=b, HUGEPOLICY_PAGES=m))]
                if r % 2:
                    pair.reverse()
                got = {}
                for kind, env in pair:
                    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout
                    got[kind] = parse(out)
                    ns.setdefault((loop, b, m, kind), []).append(got[kind])
                ratios.setdefault((loop, b, m), []).append(got["hugepolicy"] / got["native"])
    print("\n| workload | backend/pages | native ns/pair | hugepolicy ns/pair | hugepolicy/native, paired "
          "(median, 95 %% CI, %d rounds) |\n|---|---|---:|---:|---:|" % rounds)
    for loop in loops:
        for b, m in rows:
            n = statistics.median(ns[(loop, b, m, "native")])
            h = statistics.median(ns[(loop, b, m, "hugepolicy")])
            med, lo, hi = median_ci(ratios[(loop, b, m)])
            print("| %s | %s/%s | %.2f | %.2f | %.3f× [%.3f, %.3f] |" % (loop, b, m, n, h, med, lo, hi))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--build", default=os.path.join(here, "..", "build"))
    ap.add_argument("--rounds", type=int, default=200, help="start-up rounds")
    ap.add_argument("--loop-rounds", type=int, default=7, help="fast-path rounds")
    ap.add_argument("--loops", default="malloc_loop,churn", help="fast-path workloads: malloc_loop,churn")
    ap.add_argument("--backends", default="system,jemalloc,mimalloc")
    ap.add_argument("--modes", default="off", help="hugepolicy page modes against the native one (off,auto)")
    ap.add_argument("--no-startup", action="store_true", help="the fast path only")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if not os.path.exists(os.path.join(build, "libhugepolicy.so")):
        sys.exit("overhead.py: %s/libhugepolicy.so not built" % build)
    loops = [x for x in a.loops.split(",") if x]
    if any(x not in LOOPS for x in loops):
        sys.exit("overhead.py: --loops takes %s" % ",".join(LOOPS))
    if not a.no_startup:
        startup(build, a.rounds)
    fast_path(build, a.loop_rounds, loops, a.backends.split(","), a.modes.split(","))


if __name__ == "__main__":
    main()
