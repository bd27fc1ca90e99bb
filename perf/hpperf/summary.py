"""The short form of one run: what a user choosing a configuration reads.

- main_table: per workload, its main metric (workloads.main_metric) as the
  median of per-round ratios to the baseline for each backend's `auto`, that
  backend's best static mode (named in the cell) and the peers (native
  jemalloc, jemalloc's HPA, native mimalloc, glibc's own tunable).
- goals_table: issue 8's targets, each a paired ratio with its bootstrap
  95 % interval and a verdict (report.verdict: met / MISSED / unresolved):
  auto against its backend's best static mode (<= 1.03) and peak RSS
  against its backend's own `off` (<= 1.10) per workload and backend;
  system/auto against GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (<= 1.00) per
  workload; jemalloc/auto fresh-buffer warm against system/off (<= 1.10)
  per size; hugepolicy against the native library on churn (<= 1.03).
- harm_table: issue 19's do-no-harm targets, per workload and backend:
  auto against the same backend's off on wall and CPU time (<= 1.02),
  peak memory (<= 1.10) and, where the workload times single blocks
  (malloc-large, block-fill), the 99th-percentile and the slowest block's
  malloc + first fill (<= 2.00); each with its interval and verdict.
- chart_rows: the main-metric ratios for chart.plot (summary.svg).
Lower ratios are faster (or leaner).  Peak RSS is peak memory: RSS plus
hugetlb pages (targets.mem_key; ru_maxrss, which counts no hugetlb page, for
runs recorded before peak_mem_mib).
"""
from . import report, targets, workloads as wlreg

BACKENDS = ("system", "jemalloc", "mimalloc")   # hugepolicy's, in run.py's order
PEERS = ("native-jemalloc/thp", "native-jemalloc-hpa/thp", "native-mimalloc/thp",
         "native-glibc/thp", "native-glibc/hugetlb")
PEER_NAMES = {"native-glibc/thp": "glibc hugetlb=1", "native-glibc/hugetlb": "glibc hugetlb=2"}
WARM_BOUND = 1.10  # jemalloc/auto warm reuse against system/off


def _ran(runs, workload):
    return {r["config"] for r in runs if r["workload"] == workload.name}


def _ratio(runs, w, config, baseline, key):
    x = report.paired_ratio(runs, w.name, config, baseline, key)
    return "%.2f" % x if x else "–"


def _ci(runs, workload_name, config, ref, key, bound):
    ci = report.paired_ci(runs, workload_name, config, ref, key)
    if not ci:
        return "–"
    return "%.3f [%.3f, %.3f] %s" % (ci[0], ci[1], ci[2], report.verdict(ci, bound))


def _label(w):
    key = wlreg.main_metric(w)
    return "%s (%s)" % (w.name, "wall" if key == "wall_s" else key.replace(w.name + " ", ""))


def main_table(runs, workloads, configs, baseline):
    autos = [b for b in BACKENDS if b + "/auto" in configs]
    peers = [p for p in PEERS if p in configs]
    if not autos:
        return ""
    head = ["workload (main metric), ratio to %s" % baseline]
    for b in autos:
        head += ["%s/auto" % b, "%s best static" % b]
    head += [PEER_NAMES.get(p, p) for p in peers]
    rows = []
    for w in workloads:
        ran, key = _ran(runs, w), wlreg.main_metric(w)
        row = [_label(w)]
        for b in autos:
            best = targets.best_static(runs, w, b, [c for c in configs if c in ran], key)
            row.append(_ratio(runs, w, b + "/auto", baseline, key))
            row.append("%s (%s)" % (_ratio(runs, w, best, baseline, key), best.split("/")[1]) if best else "–")
        row += [_ratio(runs, w, p, baseline, key) if p in ran else "n/a" for p in peers]
        rows.append(row)
    return "\n".join(["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
                     + ["| " + " | ".join(r) + " |" for r in rows])


def goals_table(runs, workloads, configs):
    autos = [b for b in BACKENDS if b + "/auto" in configs]
    if not autos:
        return ""
    glibc = "system/auto" in configs and "native-glibc/thp" in configs
    head = ["workload (main metric)"] + ["%s/auto vs best static <= 1.03" % b for b in autos]
    mem_key = targets.mem_key(runs)
    mem = "peak RSS+hugetlb" if mem_key == "peak_mem_mib" else "peak RSS"
    head += ["%s/auto %s vs %s/off <= %.2f" % (b, mem, b, targets.RSS_MORE) for b in autos if b + "/off" in configs]
    if glibc:
        head.append("system/auto vs glibc hugetlb=1 <= 1.00")
    rows = []
    for w in workloads:
        ran, key = _ran(runs, w), wlreg.main_metric(w)
        have = [c for c in configs if c in ran]
        row = [_label(w)]
        for b in autos:
            best = targets.best_static(runs, w, b, have, key)
            row.append("%s: %s" % (best.split("/")[1], _ci(runs, w.name, b + "/auto", best, key, targets.AUTO_STATIC))
                       if best else "–")
        for b in autos:
            if b + "/off" in configs:
                row.append(_ci(runs, w.name, b + "/auto", b + "/off", mem_key, targets.RSS_MORE))
        if glibc:
            row.append(_ci(runs, w.name, "system/auto", "native-glibc/thp", key, targets.GLIBC_PEER)
                       if "native-glibc/thp" in ran else "n/a (%s)" % w.name)
        rows.append(row)
    out = ["| " + " | ".join(head) + " |", "|---|" + "---|" * (len(head) - 1)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    extra = []
    if any(w.name == "fresh-buffer" for w in workloads) and "jemalloc/auto" in configs and "system/off" in configs:
        sizes = sorted({int(k.split()[1]) for r in runs if r["workload"] == "fresh-buffer"
                        for k in r["metrics"] if k.endswith(" warm")})
        for s in sizes:
            extra.append("| jemalloc/auto / system/off, fresh-buffer %d MiB warm <= %.2f | %s |" % (
                s, WARM_BOUND, _ci(runs, "fresh-buffer", "jemalloc/auto", "system/off",
                                   "fresh-buffer %d MiB warm" % s, WARM_BOUND)))
    if any(w.name == "churn" for w in workloads):
        for c in ("jemalloc/off", "mimalloc/off", "jemalloc/thp", "mimalloc/thp"):
            if c in configs and "native-" + c in configs:
                extra.append("| churn ops, %s / native-%s <= %.2f | %s |" % (
                    c, c, targets.CHURN_NATIVE, _ci(runs, "churn", c, "native-" + c, "churn ops",
                                                   targets.CHURN_NATIVE)))
    if extra:
        out += ["", "| target | ratio [95 % interval] verdict |", "|---|---|"] + extra
    return "\n".join(out)


def _block_keys(w):
    """The per-block latency metrics of a workload that times blocks."""
    return [m for m in w.metrics() if m.endswith(" block")] if hasattr(w, "metrics") else []


def harm_table(runs, workloads, configs):
    """Markdown: auto / off per workload x backend, with intervals; '' when
    no backend ran both."""
    pairs = [b for b in BACKENDS if b + "/auto" in configs and b + "/off" in configs]
    if not pairs:
        return ""
    mem_key = targets.mem_key(runs)
    head = ["workload", "backend", "wall <= %.2f" % targets.HARM_TIME, "CPU <= %.2f" % targets.HARM_TIME,
            "%s <= %.2f" % ("peak RSS+hugetlb" if mem_key == "peak_mem_mib" else "peak RSS", targets.RSS_MORE),
            "p99 block <= %.2f" % targets.HARM_LATENCY, "slowest block <= %.2f" % targets.HARM_LATENCY]
    rows = []
    for w in workloads:
        ran = _ran(runs, w)
        blocks = _block_keys(w)
        for b in pairs:
            auto, off = b + "/auto", b + "/off"
            if auto not in ran or off not in ran:
                continue
            row = [w.name, b] + [_ci(runs, w.name, auto, off, k, targets.HARM_TIME) for k in ("wall_s", "cpu_s")]
            row.append(_ci(runs, w.name, auto, off, mem_key, targets.RSS_MORE))
            row += [_ci(runs, w.name, auto, off, k, targets.HARM_LATENCY) for k in blocks] or ["n/a", "n/a"]
            rows.append(row)
    return "\n".join(["| " + " | ".join(head) + " |", "|---|---|" + "---|" * (len(head) - 2)]
                     + ["| " + " | ".join(r) + " |" for r in rows])


def chart_rows(runs, workloads, configs, baseline):
    """(columns, [(label, values)]) of main-metric ratios for the summary chart."""
    cols = [b + "/auto" for b in BACKENDS if b + "/auto" in configs] + [p for p in PEERS if p in configs]
    rows = []
    for w in workloads:
        key = wlreg.main_metric(w)
        vals = [report.paired_ratio(runs, w.name, c, baseline, key) for c in cols]
        if any(v is not None for v in vals):
            rows.append((_label(w), vals))
    return [PEER_NAMES.get(c, c) for c in cols], rows
