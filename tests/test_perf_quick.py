#!/usr/bin/env python3
"""test_perf_quick.py BUILD_DIR REPO_DIR - every perf workload runs in a small
quick mode under hugepolicy and prints sane, consistent output (not its
speed); the runner writes its table, CSV, JSON and SVG.  Workloads whose
program or input is not installed here are skipped with the reason printed.
Exit 0 ok, 1 failure."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

build, repo = sys.argv[1], sys.argv[2]
cli = os.path.join(build, "hugepolicy")
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args, pages="thp"):
    r = subprocess.run([cli, "run", "--backend", "system", "--pages", pages, "--"] + args,
                       capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def fields(out, prefix):
    for line in out.splitlines():
        if line.startswith(prefix + " "):
            return dict((k, float(v)) for k, v in re.findall(r"(\w+)=([-0-9.]+)", line))
    return None


perf = os.path.join(build, "perf")
rc, out = run([os.path.join(perf, "fresh_buffer"), "--sizes", "1,4,33", "--iters", "3"])
lines = re.findall(r"^fresh-buffer size_mib=(\d+) iters=3 seconds=([0-9.]+) cold_s=([0-9.]+) warm_s=([0-9.]+)$",
                   out, re.M)
check(rc == 0 and [l[0] for l in lines] == ["1", "4", "33"], "fresh-buffer: one line per size")
check(all(float(c) > 0 and float(w) > 0 and float(c) + float(w) <= float(s) + 1e-6 for _, s, c, w in lines),
      "fresh-buffer: cold + warm <= total, all > 0")

rc, out = run([os.path.join(perf, "deform"), "--mib", "8", "--frames", "3"])
f = fields(out, "deform")
check(rc == 0 and f and f["frames"] == 3 and f["seconds"] > 0, "deform: frames and time")

rc, out = run([os.path.join(perf, "hashtable"), "--mib", "16", "--probes-per-thread", "200000", "--threads", "2"])
f = fields(out, "hashtable")
check(rc == 0 and f and f["threads"] == 2 and 0 < f["hits"] <= 400000 and f["mprobes_per_s"] > 0,
      "hashtable: hits within probes, rate > 0")

rc, out = run([os.path.join(perf, "first_touch"), "--mib", "16", "--threads", "2"])
f = fields(out, "first-touch")
# chunk i belongs to thread i % 2: of 256 chunks half carry 1
check(rc == 0 and f and f["check"] == 128 and f["wall_s"] > 0, "first-touch: every chunk touched by its thread")

rc, out = run([os.path.join(perf, "churn"), "--ops-per-thread", "100000", "--threads", "2"])
f = fields(out, "churn")
check(rc == 0 and f and f["ops"] == 200000 and f["mops_per_s"] > 0, "churn: ops = threads x ops per thread")

render = os.path.join(perf, "render")
check_render = os.path.join(repo, "perf", "workloads", "render", "check_quick.sh")
if os.access(render, os.X_OK) and os.path.exists(check_render):
    r = subprocess.run(["sh", check_render, build], capture_output=True, text=True, timeout=900)
    print(r.stdout[-2000:])
    if r.returncode == 77:    # some mesh packages missing: the installed scenes were checked
        print("skip: render: some scenes: " + (r.stdout.strip().splitlines() or ["?"])[-1])
        checked = re.findall(r"^ok\s+\w+:", r.stdout, re.M)
        if checked:
            check("FAIL" not in r.stdout, "render: the %d installed scenes render non-blank PNGs" % len(checked))
    else:
        check(r.returncode == 0, "render: every installed scene renders a non-blank PNG")
else:
    print("skip: render not built (needs libembree-dev libassimp-dev libpng-dev)")

pov = "/usr/share/doc/povray/examples/advanced/biscuit.pov"
if shutil.which("povray") and os.path.exists(pov):
    with tempfile.TemporaryDirectory() as d:
        img = os.path.join(d, "biscuit.png")
        rc, out = run(["povray", "+I" + pov, "+O" + img, "+W64", "+H48", "-D", "+FN"])
        check(rc == 0 and re.search(r"Trace Time:.*\(([0-9.]+) seconds\)", out) is not None,
              "povray: renders and reports its trace time")
        with open(img, "rb") as fh:
            check(fh.read(8) == b"\x89PNG\r\n\x1a\n", "povray: wrote a PNG")
else:
    print("skip: povray or povray-examples not installed")

# the runner end to end, one configuration, one round, the fast workloads
with tempfile.TemporaryDirectory() as d:
    r = subprocess.run([sys.executable, os.path.join(repo, "perf", "run.py"), "--repeat", "1",
                        "--workloads", "deform,churn", "--backends", "system,jemalloc,native-jemalloc",
                        "--modes", "off,auto", "--build", build, "--out", d],
                       capture_output=True, text=True, timeout=900)
    print(r.stdout[-1500:])
    check(r.returncode == 0, "run.py: exit 0")
    check("| deform frames |" in r.stdout and "native-jemalloc/off" in r.stdout, "run.py: table rows and columns")
    with open(os.path.join(d, "results.json")) as fh:
        doc = json.load(fh)
    check(len(doc["runs"]) == 10 and all(x["ok"] for x in doc["runs"]), "run.py: 10 runs recorded, all ok")
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as fh:
            thp_on = "[never]" not in fh.read()
    except OSError:
        thp_on = False
    want = ("thp",) if thp_on else ("off", "hugetlb")   # without THP: the pool if it has room
    check(all(x["hp_pages"] in want for x in doc["runs"] if x["mode"] == "auto"),
          "run.py: auto runs report the mode the library chose (%s here)" % "/".join(want))
    check(re.search(r"\| churn jemalloc/off / native-jemalloc/off within 3 % \| [0-9.]+: (met|MISSED) \|",
                    r.stdout) is not None, "run.py: targets table, churn against the native baseline")
    check(re.search(r"\| jemalloc/auto peak RSS <= \+10 % \| (met|MISSED): ", r.stdout) is not None,
          "run.py: targets table, auto's peak RSS")
    with open(os.path.join(d, "tables.md")) as fh:
        first = fh.read()
    again = subprocess.run([sys.executable, os.path.join(repo, "perf", "run.py"), "--report", d,
                            "--build", build], capture_output=True, text=True, timeout=300)
    with open(os.path.join(d, "tables.md")) as fh:
        check(again.returncode == 0 and fh.read() == first, "run.py --report: the same tables from results.json")
    check(doc["medians"]["deform"]["deform frames"]["system/off"]["ratio"] == 1.0, "run.py: baseline ratio is 1")
    check(os.path.exists(os.path.join(d, "runs.csv")), "run.py: CSV written")
    if shutil.which("gnuplot"):
        with open(os.path.join(d, "ratios.svg")) as fh:
            check("<svg" in fh.read(), "run.py: SVG chart written")
    else:
        print("skip: gnuplot not installed: no SVG")

print("test_perf_quick: %d failed" % len(failures))
sys.exit(1 if failures else 0)
