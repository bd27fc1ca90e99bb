#!/usr/bin/env python3
"""test_perf_variant.py REPO_DIR - perf/run.py --auto-variant OPTION=VALUE
without running anything: each hugepolicy backend's auto gets a twin
auto+option=value in the same rounds (natives none), the twin's run gets
HUGEPOLICY_OPTION=VALUE and asks hugepolicy for plain auto, the other runs
none; bad variants are refused; the twin's tag makes a POV-Ray output path
POV-Ray accepts (rendered where it is installed); the paired table puts each
twin against its auto on fixed run records.  Exit 0 ok, 1 failure."""
import os
import sys

repo = sys.argv[1]
sys.path.insert(0, os.path.join(repo, "perf"))
import run  # noqa: E402
from hpperf import variant  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, failures  # noqa: E402


os.environ["HUGEPOLICY_PROMOTE"] = "64M"        # the caller's own must not leak into any run
args = run.parse_args(["--backends", "system,jemalloc,native-jemalloc", "--modes", "off,auto",
                       "--auto-variant", "PROMOTE=off"])
names = ["%s/%s" % c for c in run.configurations(args)]
check(names == ["system/off", "system/auto", "system/auto+promote=off", "jemalloc/off", "jemalloc/auto",
                "jemalloc/auto+promote=off", "native-jemalloc/off"], "a twin after each auto: %s" % names)
cmd, env = run.child_command(args, "jemalloc", "auto+promote=off", ["true"])
check(cmd[:6] == [args.hugepolicy, "run", "--backend", "jemalloc", "--pages", "auto"],
      "the twin asks hugepolicy for auto itself: %s" % cmd[:6])
check(env.get("HUGEPOLICY_PROMOTE") == "off", "the twin runs with HUGEPOLICY_PROMOTE=off: %s"
      % env.get("HUGEPOLICY_PROMOTE"))
cmd, env = run.child_command(args, "jemalloc", "auto", ["true"])
check("HUGEPOLICY_PROMOTE" not in env, "plain auto runs without it (the caller's 64M dropped)")
for bad in ("PROMOTE", "=off", "PROMOTE=", "1X=2", "PROMOTE=a+b", "PROMOTE=a,b"):
    try:
        variant.parse(bad)
        check(False, "--auto-variant %s refused" % bad)
    except ValueError:
        check(True, "--auto-variant %s refused" % bad)
check(variant.parse("hugepolicy_fault_cost=off") == ("FAULT_COST", "off"), "a full variable name accepted")
check(variant.env_of("auto+mthp64K+promote=off") == {"HUGEPOLICY_PROMOTE": "off"},
      "the +mthp suffix carries no setting beside a variant's")

# a twin's tag reaches the workloads' output paths: POV-Ray refuses one with
# '=' in it ("Problem with option setting"), so every run of the twin failed
from hpperf.povray import Povray  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
pov = Povray("biscuit", "quick")
with tempfile.TemporaryDirectory() as out:
    cmd = pov.command("jemalloc-auto+promote=off", out)
    dest = [a for a in cmd if a.startswith("+O")]
    check(len(dest) == 1 and "=" not in dest[0], "the twin's POV-Ray image path has no '=': %s" % dest)
    if pov.unavailable() is None:
        small = [a for a in cmd if not a.startswith(("+W", "+H"))] + ["+W16", "+H12"]
        rc = subprocess.run(small, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        check(rc == 0 and os.path.exists(dest[0][2:]), "POV-Ray renders the twin's run (exit %d)" % rc)
    else:
        print("povray not installed: the twin's render not tried")


class Wl:
    name, main_metric = "fake", "wall_s"


def rec(config, rnd, wall):
    return {"workload": "fake", "config": config, "round": rnd, "ok": True, "metrics": {}, "wall_s": wall,
            "cpu_s": wall, "peak_mem_mib": 100.0, "minflt": 1000, "hp_stats": {}}


recs = [rec("jemalloc/auto", r, 2.0) for r in (1, 2, 3)]
recs += [rec("jemalloc/auto+promote=off", r, w) for r, w in ((1, 1.8), (2, 2.0), (3, 2.2))]
table = variant.table(recs, [Wl()], ["jemalloc/auto", "jemalloc/auto+promote=off"], [("PROMOTE", "off")])
print(table)
row = [ln for ln in table.splitlines() if ln.startswith("| fake | jemalloc/auto+promote=off | jemalloc/auto |")]
check(len(row) == 1, "one row per workload and pair")
cells = row[0].split(" | ") if row else []
check(len(cells) == 8 and cells[3].startswith("1.000 [0.900, 1.100]"),
      "main metric: the median of the paired ratios 0.9, 1.0, 1.1 and its interval: %s" % cells[3:4])
check(variant.table(recs, [Wl()], ["jemalloc/auto"], [("PROMOTE", "off")]) == "", "no pair, no table")
sys.exit(1 if failures else 0)
