"""Medians, Markdown tables, CSV and JSON output from a list of run records."""
import csv
import json
import random
import statistics

RUN_FIELDS = ["workload", "round", "config", "backend", "mode", "ok", "exit_code", "error",
              "wall_s", "cpu_s", "user_s", "sys_s", "minflt", "majflt", "maxrss_mib", "peak_mem_mib", "hwm_rss_mib", "peak_huge_mib",
              "peak_anon_huge_mib", "peak_hugetlb_mib", "smaps_samples", "hugetlb_pool_pages",
              "hp_pages", "hp_reason",
              "others_cpus", "steal_cpus", "load1", "settle_s", "free_2m_blocks"]

# second-table rows: (label suffix, run field, format)
RESOURCE_ROWS = [("peak huge MiB (THP + hugetlb)", "peak_huge_mib", "%.0f"),
                 ("peak RSS MiB (no hugetlb; floor ~16: the runner's)", "maxrss_mib", "%.0f"),
                 ("peak RSS+hugetlb MiB", "peak_mem_mib", "%.0f"),
                 ("minor faults", "minflt", "%.0f"),
                 ("sys s", "sys_s", "%.2f")]


def _value(run, key):
    return run["metrics"].get(key) if key in run["metrics"] else run.get(key)


def cell_stats(runs, workload, config, key):
    """(median over ok runs or None, failed count, total count)."""
    mine = [r for r in runs if r["workload"] == workload and r["config"] == config]
    vals = [_value(r, key) for r in mine if r["ok"] and _value(r, key) is not None]
    failed = sum(1 for r in mine if not r["ok"])
    return (statistics.median(vals) if vals else None), failed, len(mine)


def per_round(runs, workload, config, key):
    """{round: value} of the ok runs of one cell."""
    return {r["round"]: _value(r, key) for r in runs
            if r["workload"] == workload and r["config"] == config and r["ok"]
            and _value(r, key) is not None}


def paired_ratio(runs, workload, config, baseline, key):
    """Median over rounds of value(config, round) / value(baseline, round):
    both ran in the same round, one after the other, so drift on a shared
    machine cancels.  None without a common round."""
    mine, base = per_round(runs, workload, config, key), per_round(runs, workload, baseline, key)
    ratios = [mine[r] / base[r] for r in mine if r in base and base[r]]
    return statistics.median(ratios) if ratios else None


def paired_ci(runs, workload, config, baseline, key, n=2000, seed=1):
    """(median, lo, hi): the paired ratio of paired_ratio and a bootstrap 95 %
    interval of that median (rounds resampled with replacement, a fixed
    seed, so a report is reproducible), or None without a common round."""
    mine, base = per_round(runs, workload, config, key), per_round(runs, workload, baseline, key)
    ratios = [mine[r] / base[r] for r in mine if r in base and base[r]]
    if not ratios:
        return None
    key = (tuple(ratios), n, seed)
    if key not in _CI_CACHE:
        _CI_CACHE[key] = _bootstrap(ratios, n, seed)
    return _CI_CACHE[key]


_CI_CACHE = {}


def ci_text(runs, workload, config, baseline, key):
    """paired_ci as 'median [lo, hi]', or '–' without a common round."""
    r = paired_ci(runs, workload, config, baseline, key)
    return "%.3f [%.3f, %.3f]" % r if r else "–"


def _bootstrap(ratios, n, seed):
    # one choices() call draws the same values, in the same order, as n
    # calls of k each (and statistics.median of a chunk is the mean of its
    # middle pair), in a fraction of the time: the tables ask for thousands
    k, rnd = len(ratios), random.Random(seed)
    draws = rnd.choices(ratios, k=k * n)
    lo, hi = (k - 1) // 2, k // 2
    meds = []
    for i in range(0, k * n, k):
        chunk = sorted(draws[i:i + k])
        meds.append(chunk[lo] if lo == hi else (chunk[lo] + chunk[hi]) / 2)
    meds.sort()
    return statistics.median(ratios), meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


def half_width(ci):
    """Half the width of a paired_ci interval, relative to its median
    (0.02 = +-2 %), or None for a single round (no interval)."""
    if not ci or ci[1] == ci[2] or not ci[0]:
        return None
    return (ci[2] - ci[1]) / 2 / ci[0]


def verdict(ci, bound):
    """'met' when the whole interval is within bound (ratio <= bound),
    'MISSED' when all of it is beyond, else 'unresolved': never a verdict
    from noise.  One round gives a zero-width interval: unresolved, and
    which side its one value falls."""
    med, lo, hi = ci
    if lo == hi:
        return "unresolved (one value, %s the bound: no interval)" % ("within" if med <= bound else "beyond")
    return "met" if hi <= bound else "MISSED" if lo > bound else "unresolved"


def spread(runs, workload, config, key):
    """(min, max) of one cell, or None."""
    vals = list(per_round(runs, workload, config, key).values())
    return (min(vals), max(vals)) if vals else None


def time_rows(workload):
    """(row label, key) pairs for the timing table of one workload: its own
    clocks, then the process's wall and CPU (user+sys) time."""
    return [(m, m) for m in workload.metrics()] + [("%s wall" % workload.name, "wall_s"),
                                                   ("%s cpu" % workload.name, "cpu_s")]


def fmt_seconds(s):
    if s >= 1:
        return "%.2f s" % s
    if s >= 0.1:
        return "%.3f s" % s
    return "%.2f ms" % (s * 1000)


def _fail_mark(failed, total):
    return " FAIL %d/%d" % (failed, total) if failed else ""


def _empty(failed, total):
    return "FAIL %d/%d" % (failed, total) if failed else "–"


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def timing_table(runs, workloads, configs, baseline):
    """Cells: median seconds (median of per-round ratios to the baseline,
    +- the half-width of its bootstrap 95 % interval when rounds allow)."""
    rows = []
    for w in workloads:
        for label, key in time_rows(w):
            row = [label]
            for c in configs:
                med, failed, total = cell_stats(runs, w.name, c, key)
                if med is None:
                    row.append(_empty(failed, total))
                    continue
                ci = paired_ci(runs, w.name, c, baseline, key) if c != baseline else None
                hw = half_width(ci)
                ratio = paired_ratio(runs, w.name, c, baseline, key)
                ratio = (" (%.2f×%s)" % (ratio, " ±%.0f%%" % (100 * hw) if hw is not None else "")
                         if ratio is not None else "")
                row.append("%s%s%s" % (fmt_seconds(med), ratio, _fail_mark(failed, total)))
            rows.append(row)
    return _table(["metric (median, ratio to %s)" % baseline] + configs, rows)


def spread_table(runs, workloads, configs):
    """Cells: min–max seconds over the rounds."""
    rows = []
    for w in workloads:
        for label, key in time_rows(w):
            row = [label]
            for c in configs:
                mm = spread(runs, w.name, c, key)
                row.append("%s–%s" % (fmt_seconds(mm[0]), fmt_seconds(mm[1])) if mm else "–")
            rows.append(row)
    return _table(["metric (min–max)"] + configs, rows)


def resource_table(runs, workloads, configs):
    rows = []
    for w in workloads:
        for suffix, key, fmt in RESOURCE_ROWS:
            row = ["%s %s" % (w.name, suffix)]
            for c in configs:
                med, failed, total = cell_stats(runs, w.name, c, key)
                row.append(_empty(failed, total) if med is None
                           else fmt % med + _fail_mark(failed, total))
            rows.append(row)
    return _table(["resource (median)"] + configs, rows)


def medians(runs, workloads, configs, baseline=None):
    """{workload: {metric: {config: {median, min, max, ratio}}}}."""
    out = {}
    for w in workloads:
        keys = [k for _, k in time_rows(w)] + [k for _, k, _ in RESOURCE_ROWS]
        out[w.name] = {}
        for k in keys:
            out[w.name][k] = {}
            for c in configs:
                mm = spread(runs, w.name, c, k)
                ci = paired_ci(runs, w.name, c, baseline, k) if baseline else None
                out[w.name][k][c] = {
                    "median": cell_stats(runs, w.name, c, k)[0],
                    "min": mm[0] if mm else None, "max": mm[1] if mm else None,
                    "ratio": paired_ratio(runs, w.name, c, baseline, k) if baseline else None,
                    "ratio_ci95": [ci[1], ci[2]] if ci else None}
    return out


def write_csv(path, runs, workloads):
    metric_cols = [m for w in workloads for m in w.metrics()]
    info_cols = sorted({k for r in runs for k in r.get("info", {})})
    with open(path, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(RUN_FIELDS + metric_cols + info_cols)
        for r in runs:
            wr.writerow([r.get(k, "") for k in RUN_FIELDS]
                        + [r["metrics"].get(m, "") for m in metric_cols]
                        + [r.get("info", {}).get(k, "") for k in info_cols])


def write_json(path, config, machine, runs, workloads, configs, baseline=None, extra=None):
    doc = {"config": config, "machine": machine, "configurations": configs,
           "baseline": baseline, "runs": runs,
           "medians": medians(runs, workloads, configs, baseline)}
    doc.update(extra or {})
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


def info_table(runs, workload, configs, suffix, title):
    """Medians of a workload's info values whose names end in suffix (e.g.
    redis' ' rps'), one row per value, '' when there are none."""
    names = sorted({k for r in runs if r["workload"] == workload and r["ok"]
                    for k in r.get("info", {}) if k.endswith(suffix)})
    rows = []
    for n in names:
        row = [n]
        for c in configs:
            vals = [r["info"][n] for r in runs if r["workload"] == workload and r["config"] == c
                    and r["ok"] and n in r.get("info", {})]
            row.append("%.0f" % statistics.median(vals) if vals else "–")
        rows.append(row)
    return _table([title] + configs, rows) if rows else ""


def cold_warm_table(runs, configs):
    """fresh-buffer: median cold / median warm seconds per size and config."""
    sizes = sorted({int(k.split()[1]) for r in runs if r["workload"] == "fresh-buffer"
                    for k in r["metrics"] if k.endswith(" cold")})
    rows = []
    for size in sizes:
        row = ["fresh-buffer %d MiB" % size]
        for c in configs:
            cold = cell_stats(runs, "fresh-buffer", c, "fresh-buffer %d MiB cold" % size)[0]
            warm = cell_stats(runs, "fresh-buffer", c, "fresh-buffer %d MiB warm" % size)[0]
            row.append("%.1f" % (cold / warm) if cold is not None and warm else "–")
        rows.append(row)
    return _table(["cold/warm (median)"] + configs, rows)
