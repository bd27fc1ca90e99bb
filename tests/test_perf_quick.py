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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, failures  # noqa: E402


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

for mode, extra, n in (("churn", ["--ops", "30", "--live", "4", "--min-mib", "1", "--max-mib", "3"], 30),
                      ("fill", ["--blocks", "4", "--mib", "2"], 4)):
    rc, out = run([os.path.join(perf, "big_blocks"), "--mode", mode] + extra)
    f = fields(out, "big-blocks")
    # fill: block i holds byte 1 + i, so the middle bytes sum to 1+2+3+4
    check(rc == 0 and f and f["blocks"] == n and 0 < f["p50_s"] <= f["p99_s"] <= f["max_s"] <= f["seconds"]
          and (f["check"] == 10 if mode == "fill" else f["check"] > 0),
          "big-blocks %s: %d blocks timed, p50 <= p99 <= slowest <= total" % (mode, n))
rc, out = run([os.path.join(perf, "big_blocks"), "--mode", "spin"])
check(rc == 2, "big-blocks: an unknown mode is refused with exit 2")

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
    check(re.search(r"\| churn jemalloc/off / native-jemalloc/off within 3 % \| [0-9.]+: (within|beyond) \|",
                    r.stdout) is not None, "run.py: targets table, churn against the native baseline")
    check(re.search(r"\| jemalloc/auto peak RSS <= system/off \+10 % "
                    r"\(issue 3; against its own off: the summary\) \| (within|beyond): ", r.stdout) is not None,
          "run.py: targets table, auto's peak RSS")
    check(re.search(r"\| deform \(frames\) \| [0-9.]+ \| [0-9.]+ \((off|auto)\) \| [0-9.]+ \| [0-9.]+ \(off\) \|",
                    r.stdout) is not None, "run.py: summary table, each backend's auto and its best static mode")
    check(re.search(r"\| churn \(ops\) \| off: [0-9.]+ \[[0-9.]+, [0-9.]+\] (met|MISSED|unresolved|unresolved \(one value, "
                    r"(within|beyond) the bound: no interval\)) \|", r.stdout) is not None,
          "run.py: targets summary, auto against its best static mode with an interval and a verdict")
    check(re.search(r"\| churn ops, jemalloc/off / native-jemalloc/off <= 1.03 \| [0-9.]+ \[", r.stdout) is not None,
          "run.py: targets summary, churn against the native library")
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
        with open(os.path.join(d, "summary.svg")) as fh:
            check("<svg" in fh.read(), "run.py: summary SVG chart written")
    else:
        print("skip: gnuplot not installed: no SVG")

    check("| deform cpu |" in r.stdout and "| deform wall |" in r.stdout, "run.py: CPU time row beside wall time")
    check(all(abs(x["cpu_s"] - x["user_s"] - x["sys_s"]) < 1e-6 for x in doc["runs"]),
          "run.py: cpu_s = user + sys from wait4")
    check(all(x["others_cpus"] is not None and x["others_cpus"] >= 0 for x in doc["runs"])
          and isinstance(doc.get("quiet", {}).get("busy_runs"), int),
          "run.py: other processes' CPU recorded per run and summarised in the JSON")
    with open(os.path.join(d, "runs.csv")) as fh:
        header = fh.readline().strip().split(",")
    check({"cpu_s", "others_cpus", "settle_s", "free_2m_blocks"} <= set(header), "run.py: CSV has cpu_s and the settling/quiet columns")
    if os.geteuid() == 0:
        check(all(x["settle_s"] is not None and x["free_2m_blocks"] is not None for x in doc["runs"]),
              "run.py: memory settled (sync, drop_caches, compact_memory) before every run as root")
    else:
        check("memory is not settled" in r.stderr and all(x["settle_s"] is None for x in doc["runs"]),
              "run.py: not root: one warning, runs go on unsettled")
        print("skip: settling needs root")


def runner(args, timeout=900):
    return subprocess.run([sys.executable, os.path.join(repo, "perf", "run.py"), "--build", build] + args,
                          capture_output=True, text=True, timeout=timeout)


# --require-quiet: no machine has other processes below 0 CPUs, so it refuses
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "never")
    r = runner(["--workloads", "deform", "--backends", "system", "--modes", "off", "--repeat", "1",
                "--require-quiet", "--quiet-cpus", "0", "--out", out])
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and len(lines) == 1 and "not quiet" in lines[0] and not os.path.exists(out),
          "run.py --require-quiet: refuses to start with one line when the machine is not quiet")

# --repeat auto: rounds until the key ratios' intervals are narrow, at most --max-repeat
with tempfile.TemporaryDirectory() as d:
    r = runner(["--workloads", "deform", "--backends", "system", "--modes", "off,thp,auto",
                "--repeat", "auto", "--max-repeat", "3", "--no-settle", "--out", d])
    with open(os.path.join(d, "results.json")) as fh:
        doc = json.load(fh)
    p = doc["rounds"].get("deform", {})
    check(r.returncode == 0 and p.get("rounds") == 3 and len(doc["runs"]) == 9 and p.get("seconds", 0) > 0,
          "run.py --repeat auto: rounds and their time recorded per workload, capped by --max-repeat")
    check(re.search(r"\| deform: system/auto / system/(off|thp) \(auto vs best static\), deform frames <= 1.03 \| "
                    r"[0-9.]+ \[[0-9.]+, [0-9.]+\]", r.stdout) is not None,
          "run.py: auto against the backend's best static mode, with a 95 % interval")

# the pool is the machine's: with hugetlb columns every configuration runs with
# it (--pool all), or only the hugetlb ones (--pool hugetlb); peak memory
# counts the pool pages ru_maxrss does not
NR = "/proc/sys/vm/nr_hugepages"
if os.geteuid() == 0 and os.path.exists(NR):
    def nr_pages():
        with open(NR) as fh:
            return int(fh.read())
    before = nr_pages()
    seen = {}
    for pool in ("all", "hugetlb"):
        with tempfile.TemporaryDirectory() as d:
            r = runner(["--workloads", "fresh-buffer", "--backends", "system", "--modes", "off,hugetlb",
                        "--repeat", "1", "--no-settle", "--pool", pool, "--out", d])
            with open(os.path.join(d, "results.json")) as fh:
                seen[pool] = {x["config"]: x for x in json.load(fh)["runs"]}
            check(r.returncode == 0 and set(seen[pool]) == {"system/off", "system/hugetlb"},
                  "run.py --pool %s: both configurations ran" % pool)
    granted = seen["all"].get("system/hugetlb", {}).get("hugetlb_pool_pages")
    if granted:
        check(seen["all"]["system/off"]["hugetlb_pool_pages"] == granted
              and seen["hugetlb"]["system/off"]["hugetlb_pool_pages"] is None
              and seen["hugetlb"]["system/hugetlb"]["hugetlb_pool_pages"],
              "run.py: --pool all gives every configuration the workload's pool, --pool hugetlb the hugetlb ones")
        tlb = seen["all"]["system/hugetlb"]
        check(all(x["peak_mem_mib"] >= x["maxrss_mib"] for s in seen.values() for x in s.values())
              and (tlb["peak_hugetlb_mib"] == 0 or tlb["peak_mem_mib"] > tlb["maxrss_mib"]),
              "run.py: peak memory is at least ru_maxrss and counts the pool pages a run held")
    else:
        print("skip: the kernel granted no hugetlb pages to the runner")
    check(nr_pages() == before, "run.py: the pool is back to its size (%d)" % before)
else:
    print("skip: the runner's pool needs root")

# the new peer and hosts, where installed
jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
sys.path.insert(0, os.path.join(repo, "perf"))
sys.dont_write_bytecode = True       # no __pycache__ in the source tree
import run as perf_run  # noqa: E402
if os.path.exists(jemalloc):
    conf = perf_run.NATIVES["native-jemalloc-hpa"][1]["thp"]["MALLOC_CONF"]
    env = dict(os.environ, LD_PRELOAD=jemalloc, MALLOC_CONF=conf + ",stats_print:true")
    r = subprocess.run([os.path.join(perf, "churn"), "--ops-per-thread", "20000", "--threads", "2"],
                       capture_output=True, text=True, env=env, timeout=120)
    check(r.returncode == 0 and "opt.hpa: true" in r.stderr and "HPA shard stats" in r.stderr,
          "native-jemalloc-hpa: Debian's jemalloc takes hpa:true and reports its HPA shards")
else:
    print("skip: libjemalloc2 not installed")
hosts = []
if os.access("/usr/bin/redis-server", os.X_OK) and shutil.which("redis-benchmark"):
    hosts.append("redis")
else:
    print("skip: redis host: apt-get install redis-server redis-tools")
if shutil.which("gcc") and os.path.exists("/usr/share/duktape/duktape.c"):
    hosts.append("gcc-duktape")
else:
    print("skip: gcc-duktape host: apt-get install duktape-dev")
if hosts:
    with tempfile.TemporaryDirectory() as d:
        r = runner(["--workloads", ",".join(hosts), "--backends", "system,native-jemalloc-hpa,native-glibc",
                    "--modes", "off,thp", "--repeat", "1", "--no-settle", "--out", d])
        print(r.stdout[-1500:])
        with open(os.path.join(d, "results.json")) as fh:
            doc = json.load(fh)
        for h in hosts:
            mine = [x for x in doc["runs"] if x["workload"] == h]
            check(r.returncode == 0 and mine and all(x["ok"] and x["cpu_s"] > 0 for x in mine),
                  "%s: every configuration ran and reported" % h)
        if "redis" in hosts:
            red = [x for x in doc["runs"] if x["workload"] == "redis"]
            check(sorted(x["config"] for x in red) == ["native-jemalloc-hpa/thp", "system/off", "system/thp"]
                  and "skipping native-glibc for redis" in r.stderr,
                  "redis: the glibc tunable peer is skipped (redis links jemalloc)")
            check(all(x["metrics"]["redis SET 64B"] > 0 and 0 < x["metrics"]["redis GET 4KiB p99"] < 10
                      and x["info"]["redis SET 64B rps"] > 0 and x["maxrss_mib"] > 20 for x in red),
                  "redis: requests/s, p99 latency and the server's peak RSS per configuration")
        if "gcc-duktape" in hosts:
            cc = [x for x in doc["runs"] if x["workload"] == "gcc-duktape"]
            check(len(cc) == 4 and all(0 < x["metrics"]["gcc-duktape parse"] <= x["metrics"]["gcc-duktape total"]
                                       for x in cc),
                  "gcc-duktape: cc1's -ftime-report phases per configuration, glibc tunable included")

print("test_perf_quick: %d failed" % len(failures))
sys.exit(1 if failures else 0)
