"""The synthetic workloads of perf/workloads/*.c, runner side.

Each class: name, metrics() (row labels, seconds), command(), parse() ->
({metric: seconds}, {info}), unavailable() (a reason or None) and
hugetlb_pages() (2 MiB pages to reserve in hugetlb mode).  Sizes per
quality: quick (README, a few seconds) and full.
"""
import os
import re

KV_RE = re.compile(r"(\w+)=([-0-9.]+)")


def fields(stdout, prefix):
    """{key: float} of the first stdout line starting with prefix."""
    for line in stdout.splitlines():
        if line.startswith(prefix + " "):
            return {k: float(v) for k, v in KV_RE.findall(line)}
    raise ValueError("no '%s' line" % prefix)


class Program:
    """A C workload binary in <build>/perf with one result line."""
    exe_name = None
    line = None

    def __init__(self, build_dir, quality):
        self.exe = os.path.join(build_dir, "perf", self.exe_name)
        self.quality = quality

    def unavailable(self):
        if not os.access(self.exe, os.X_OK):
            return "%s not built (cmake --build <build>)" % self.exe
        return None

    def command(self, run_tag, out_dir):
        return [self.exe] + self.args[self.quality]


class Deform(Program):
    """Per frame: a fresh ~50 MB positions array, copy, deform, free."""
    name = "deform"
    main_metric = "deform frames"
    exe_name = "deform"
    args = {"quick": ["--mib", "50", "--frames", "10"], "full": ["--mib", "50", "--frames", "40"]}

    def metrics(self):
        return ["deform frames"]

    def hugetlb_pages(self):
        return 2 * 26 + 32

    def parse(self, stdout):
        f = fields(stdout, "deform")
        return {"deform frames": f["seconds"]}, {"ms_per_frame": f["ms_per_frame"]}


class Hashtable(Program):
    """A chess engine's transposition table: clear, then random probe+store."""
    name = "hashtable"
    main_metric = "hashtable probes"
    exe_name = "hashtable"
    args = {"quick": ["--mib", "256", "--probes-per-thread", "2000000"],
            "full": ["--mib", "1024", "--probes-per-thread", "20000000"]}

    def metrics(self):
        return ["hashtable clear", "hashtable probes"]

    def hugetlb_pages(self):
        return int(self.args[self.quality][1]) // 2 + 32

    def parse(self, stdout):
        f = fields(stdout, "hashtable")
        return ({"hashtable clear": f["clear_s"], "hashtable probes": f["probe_s"]},
                {"mprobes_per_s": f["mprobes_per_s"], "hits": int(f["hits"])})


class FirstTouch(Program):
    """One large array first touched by all threads in interleaved chunks."""
    name = "first-touch"
    main_metric = "first-touch elapsed"
    exe_name = "first_touch"
    args = {"quick": ["--mib", "256"], "full": ["--mib", "2048"]}

    def metrics(self):
        return ["first-touch elapsed", "first-touch user", "first-touch sys"]

    def hugetlb_pages(self):
        return int(self.args[self.quality][1]) // 2 + 32

    def parse(self, stdout):
        f = fields(stdout, "first-touch")
        return {"first-touch elapsed": f["wall_s"], "first-touch user": f["user_s"],
                "first-touch sys": f["sys_s"]}, {}


class Churn(Program):
    """Allocation-heavy threads, 16 B - 64 KiB mix: the dispatch cost shows here."""
    name = "churn"
    main_metric = "churn ops"
    exe_name = "churn"
    args = {"quick": ["--ops-per-thread", "1000000"], "full": ["--ops-per-thread", "10000000"]}

    def metrics(self):
        return ["churn ops"]

    def hugetlb_pages(self):
        return 64

    def parse(self, stdout):
        f = fields(stdout, "churn")
        return {"churn ops": f["seconds"]}, {"mops_per_s": f["mops_per_s"]}


CLASSES = (Deform, Hashtable, FirstTouch, Churn)
