#!/usr/bin/env python3
"""What hugepolicy itself costs, against what a user would otherwise run.

start-up: `true` plain, with libhugepolicy.so preloaded per backend, and
          under `hugepolicy run --backend B` (one more exec), in ms.
fast path: malloc(32)+free pairs (perf/workloads/malloc_loop.c) through
          hugepolicy per backend vs the native baseline - glibc without
          preload, Debian's libjemalloc.so.2 / libmimalloc.so.2 preloaded
          directly - in ns per pair.
Configurations are interleaved within every round; medians are printed with
the ratio to the baseline measured in the same run.
usage: python3 perf/overhead.py [--build build] [--rounds 200] [--loop-rounds 7]
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


def fast_path(build, rounds):
    lib = os.path.join(build, "libhugepolicy.so")
    loop = [os.path.join(build, "perf", "malloc_loop"), "--size", "32", "--iters", "20000000"]
    pairs = [
        ("system", env_with(), env_with(LD_PRELOAD=lib, HUGEPOLICY_BACKEND="system", HUGEPOLICY_PAGES="off")),
        ("jemalloc", env_with(LD_PRELOAD=os.path.join(LIBDIR, "libjemalloc.so.2")),
         env_with(LD_PRELOAD=lib, HUGEPOLICY_BACKEND="jemalloc", HUGEPOLICY_PAGES="off")),
        ("mimalloc", env_with(LD_PRELOAD=os.path.join(LIBDIR, "libmimalloc.so.2")),
         env_with(LD_PRELOAD=lib, HUGEPOLICY_BACKEND="mimalloc", HUGEPOLICY_PAGES="off")),
    ]
    ns = {}
    for _ in range(rounds):
        for b, native, ours in pairs:
            for kind, env in (("native", native), ("hugepolicy", ours)):
                out = subprocess.run(loop, env=env, check=True, capture_output=True, text=True).stdout
                ns.setdefault((b, kind), []).append(float(out.split("ns_per_pair=")[1]))
    print("\n| malloc(32)+free | native ns/pair | hugepolicy ns/pair | ratio |\n|---|---:|---:|---:|")
    for b, _, _ in pairs:
        n = statistics.median(ns[(b, "native")])
        h = statistics.median(ns[(b, "hugepolicy")])
        print("| %s | %.2f | %.2f | %.3f× |" % (b, n, h, h / n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--build", default=os.path.join(here, "..", "build"))
    ap.add_argument("--rounds", type=int, default=200, help="start-up rounds")
    ap.add_argument("--loop-rounds", type=int, default=7, help="fast-path rounds")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if not os.path.exists(os.path.join(build, "libhugepolicy.so")):
        sys.exit("overhead.py: %s/libhugepolicy.so not built" % build)
    startup(build, a.rounds)
    fast_path(build, a.loop_rounds)


if __name__ == "__main__":
    main()
