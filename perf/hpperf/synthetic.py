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


class BigBlocks(Program):
    """Big blocks allocated and filled one at a time (big_blocks.c): the
    total, and each block's malloc + first fill as the 99th percentile and
    the slowest (the latency a page policy must not double)."""
    exe_name = "big_blocks"
    mode = None

    def metrics(self):
        return ["%s %s" % (self.name, k) for k in ("total", "p99 block", "slowest block")]

    def parse(self, stdout):
        f = fields(stdout, "big-blocks")
        return ({"%s total" % self.name: f["seconds"], "%s p99 block" % self.name: f["p99_s"],
                 "%s slowest block" % self.name: f["max_s"]},
                {"median_block_s": f["p50_s"], "blocks": int(f["blocks"])})


class MallocLarge(BigBlocks):
    """mimalloc-bench's malloc-large pattern: about 20 live blocks of 5-25 MiB,
    one freed and a fresh one filled per op."""
    name = "malloc-large"
    main_metric = "malloc-large total"
    args = {"quick": ["--mode", "churn", "--ops", "200"], "full": ["--mode", "churn", "--ops", "1000"]}

    def hugetlb_pages(self):
        return 20 * 25 // 2 + 64


class BlockFill(BigBlocks):
    """Blocks of 64 MiB filled one after another and kept: where a THP fault
    of memory the host took back stalls a single block."""
    name = "block-fill"
    main_metric = "block-fill total"
    args = {"quick": ["--mode", "fill", "--blocks", "8"], "full": ["--mode", "fill", "--blocks", "24"]}

    def hugetlb_pages(self):
        return int(self.args[self.quality][-1]) * 32 + 32


CLASSES = (Deform, Hashtable, FirstTouch, Churn, MallocLarge, BlockFill)
