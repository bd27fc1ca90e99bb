"""The issue's targets, computed from one run's records (benchmarks, not tests).

- render: geometric mean over scenes of the paired `total` ratio to the
  baseline (system/off); speed-up = 1 / geomean.  Target: auto >= 1.10x.
- auto: never more than 1 % slower than the baseline on any workload
  (worst paired ratio per workload, over its metrics and wall time), and its
  peak memory at most 10 % above the baseline's (paired ratio of peak_mem_mib:
  RSS plus hugetlb pages; ru_maxrss for runs recorded before it).
- churn: hugepolicy against the native baseline of the same allocator and
  mode, paired per round.  Target: within 3 %.
- fresh-buffer: cold/warm <= 3 at every size for the best configuration.
- glibc's tunable: system/auto no slower than GLIBC_TUNABLES=
  glibc.malloc.hugetlb=1 (native-glibc/thp), the zero-install peer, on each
  workload's slowest metric; with a bootstrap 95 % interval and a verdict
  met / MISSED / unresolved (report.verdict).
- auto against the backend's best static mode: for every backend with an
  auto column, auto / the fastest of its off, thp, hugetlb columns (by
  median) on each workload's main metric (workloads.main_metric), with a
  bootstrap 95 % interval and a verdict (bound 1.03), and the same ratio of
  CPU time (user+sys).  These, the churn and the glibc-peer ratios are the
  key ratios: --repeat auto adds rounds until their intervals are narrow.
Lower ratios are faster.  Every ratio is a median of per-round ratios.
"""
import math
import statistics

from . import report, workloads as wlreg

SLOWER = 1.01      # auto: at most 1 % slower
HARM_TIME = 1.02   # do no harm: auto's wall and CPU time at most 2 % over its own off
HARM_LATENCY = 2.0  # ... and its slowest block (malloc + first fill) at most 2x off's
RSS_MORE = 1.10    # auto: at most 10 % more peak RSS


def mem_key(runs):
    """The peak-memory field the RSS targets compare: peak_mem_mib (RSS plus
    hugetlb pages, measure.py), or ru_maxrss for runs recorded before it."""
    return "peak_mem_mib" if any("peak_mem_mib" in r for r in runs) else "maxrss_mib"
CHURN_NATIVE = 1.03
COLD_WARM = 3.0
RENDER_SPEEDUP = 1.10
GLIBC_PEER = 1.00
AUTO_STATIC = 1.03  # auto within 3 % of the backend's best static mode
STATIC = ("off", "thp", "hugetlb")


def metric_name(workload, key):
    """A metric key as the tables name it: wall_s -> '<workload> wall'."""
    return key.replace("wall_s", workload.name + " wall").replace("cpu_s", workload.name + " cpu")


def render_geomean(runs, config, baseline):
    """Geometric mean over render scenes of the paired total-time ratio, or None."""
    scenes = sorted({k.split()[1] for r in runs if r["workload"] == "render"
                     for k in r["metrics"] if k.endswith(" total")})
    ratios = [report.paired_ratio(runs, "render", config, baseline, "render %s total" % s)
              for s in scenes]
    ratios = [x for x in ratios if x]
    if not ratios:
        return None
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios))


NOISE_FLOOR_S = 0.01  # metrics whose baseline median is below this are timer noise here


def worst_metric(runs, workload, config, baseline):
    """(ratio, metric) of the metric where config is slowest against baseline,
    over the metrics whose baseline median is at least NOISE_FLOOR_S."""
    keys = [k for _, k in report.time_rows(workload)
            if (report.cell_stats(runs, workload.name, baseline, k)[0] or 0) >= NOISE_FLOOR_S]
    pairs = [(report.paired_ratio(runs, workload.name, config, baseline, k), k) for k in keys]
    pairs = [p for p in pairs if p[0] is not None]
    return max(pairs) if pairs else None


def cold_warm(runs, config):
    """{size MiB: median cold / median warm} for fresh-buffer."""
    out = {}
    sizes = sorted({int(k.split()[1]) for r in runs if r["workload"] == "fresh-buffer"
                    for k in r["metrics"] if k.endswith(" cold")})
    for size in sizes:
        cold = report.cell_stats(runs, "fresh-buffer", config, "fresh-buffer %d MiB cold" % size)[0]
        warm = report.cell_stats(runs, "fresh-buffer", config, "fresh-buffer %d MiB warm" % size)[0]
        if cold is not None and warm:
            out[size] = cold / warm
    return out


def best_static(runs, workload, backend, configs, key):
    """The backend's static column with the lowest median on key, or None."""
    meds = {}
    for m in STATIC:
        c = "%s/%s" % (backend, m)
        if c in configs:
            med = report.cell_stats(runs, workload.name, c, key)[0]
            if med is not None:
                meds[c] = med
    return min(meds, key=meds.get) if meds else None


def key_ratios(runs, workload, configs):
    """[(label, config, reference, key, bound)]: the ratios a workload's
    verdicts rest on, the ones --repeat auto narrows."""
    out = []
    main = wlreg.main_metric(workload)
    ran = {r["config"] for r in runs if r["workload"] == workload.name}   # not_for skips some
    configs = [c for c in configs if c in ran]
    for c in configs:
        backend, mode = c.rsplit("/", 1)
        if mode != "auto" or backend.startswith("native-"):
            continue
        ref = best_static(runs, workload, backend, configs, main)
        if ref:
            out.append(("auto vs best static", c, ref, main, AUTO_STATIC))
    if workload.name == "churn":
        for c in configs:
            if "native-" + c in configs:
                out.append(("hugepolicy vs native", c, "native-" + c, "churn ops", CHURN_NATIVE))
    if "native-glibc/thp" in configs and "system/auto" in configs:
        out.append(("vs glibc tunable", "system/auto", "native-glibc/thp", main, GLIBC_PEER))
    return out


def precision(runs, workload, configs):
    """(widest half-width of the key ratios' intervals, its label) or
    (None, why) when some key ratio has no interval yet (< 2 rounds)."""
    worst = (0.0, "no key ratio")
    for label, c, ref, key, _ in key_ratios(runs, workload, configs):
        hw = report.half_width(report.paired_ci(runs, workload.name, c, ref, key))
        if hw is None:
            return None, "%s / %s: no interval yet" % (c, ref)
        if hw >= worst[0]:
            worst = (hw, "%s / %s %s" % (c, ref, key.replace("wall_s", "wall")))
    return worst


def ci_lines(runs, workloads, configs):
    """Targets table rows: each key ratio (and auto's CPU-time ratio) with
    its interval and verdict."""
    lines = []
    for w in workloads:
        for label, c, ref, key, bound in key_ratios(runs, w, configs):
            if label == "vs glibc tunable":
                continue      # its own rows above, on the slowest metric
            keys = [key] + (["cpu_s"] if label == "auto vs best static" and key != "cpu_s" else [])
            for k in keys:
                ci = report.paired_ci(runs, w.name, c, ref, k)
                if not ci:
                    continue
                hw = report.half_width(ci)
                name = metric_name(w, k)
                lines.append("| %s: %s / %s (%s), %s <= %.2f | %.3f [%.3f, %.3f]%s: %s |" % (
                    w.name, c, ref, label, name, bound, ci[0], ci[1], ci[2],
                    " ±%.1f %%" % (100 * hw) if hw is not None else "", report.verdict(ci, bound)))
    return lines


def _mark(ok):
    """a median against its bound, no interval: never a verdict (met and
    MISSED are report.verdict's, from an interval)"""
    return "within" if ok else "beyond"


def table(runs, workloads, configs, baseline):
    """Markdown: one block per target; '' when the run has nothing to say."""
    names = {w.name for w in workloads}
    lines = []
    render_best = None
    if "render" in names:
        geo = {c: render_geomean(runs, c, baseline) for c in configs}
        geo = {c: g for c, g in geo.items() if g}
        if geo:
            best = render_best = min(geo, key=geo.get)
            for c, g in sorted(geo.items(), key=lambda x: x[1]):
                lines.append("| render geomean of scene totals, %s | %.3f (%.2fx speed-up) |" % (c, g, 1 / g))
            lines.append("| render best | %s: %.2fx faster than %s |" % (best, 1 / geo[best], baseline))
            for c in configs:
                if c.endswith("/auto") and c in geo:
                    lines.append("| render %s >= %.2fx | %.2fx: %s |" % (
                        c, RENDER_SPEEDUP, 1 / geo[c], _mark(1 / geo[c] >= RENDER_SPEEDUP)))
    for c in configs:
        if not c.endswith("/auto"):
            continue
        # the allocator's own off, for reference: what auto costs beyond the
        # choice of allocator
        own = c[:-len("auto")] + "off"
        own = own if own in configs and own != baseline else None
        slow, fat, mem = [], [], mem_key(runs)
        for w in workloads:
            wm = worst_metric(runs, w, c, baseline)
            if wm and wm[0] > SLOWER:
                ref = report.paired_ratio(runs, w.name, own, baseline, wm[1]) if own else None
                slow.append("%s %.2f%s" % (metric_name(w, wm[1]), wm[0],
                                           " (%s %.2f)" % (own, ref) if ref else ""))
            rss = report.paired_ratio(runs, w.name, c, baseline, mem)
            if rss and rss > RSS_MORE:
                ref = report.paired_ratio(runs, w.name, own, baseline, mem) if own else None
                fat.append("%s %.2f%s" % (w.name, rss, " (%s %.2f)" % (own, ref) if ref else ""))
        lines.append("| %s never > %.0f %% slower (metrics >= %.0f ms) | %s: %s |" % (
            c, (SLOWER - 1) * 100, NOISE_FLOOR_S * 1000, _mark(not slow), "; ".join(slow) or "every workload within"))
        lines.append("| %s peak RSS <= %s +%.0f %% (issue 3; against its own off: the summary) | %s: %s |" % (
            c, baseline, (RSS_MORE - 1) * 100, _mark(not fat), "; ".join(fat) or "every workload within"))
    if "churn" in names:
        for c in configs:
            native = "native-" + c
            if native in configs:
                x = report.paired_ratio(runs, "churn", c, native, "churn ops")
                if x:
                    lines.append("| churn %s / %s within %.0f %% | %.3f: %s |" % (
                        c, native, (CHURN_NATIVE - 1) * 100, x, _mark(x <= CHURN_NATIVE)))
    if "fresh-buffer" in names:
        cw = {c: cold_warm(runs, c) for c in configs}
        cw = {c: v for c, v in cw.items() if v}
        if cw:
            best = min(cw, key=lambda c: max(cw[c].values()))
            for c in dict.fromkeys([baseline, render_best, best]):
                if c in cw:
                    over = [s for s, x in cw[c].items() if x > COLD_WARM]
                    lines.append("| fresh-buffer cold/warm %s | %s: %s |" % (
                        c, " ".join("%d MiB %.1f" % (s, x) for s, x in sorted(cw[c].items())),
                        _mark(not over) + (" (> %.0f at %s MiB)" % (COLD_WARM, ",".join(map(str, over)))
                                           if over else "")))
    peer, mine = "native-glibc/thp", "system/auto"
    if peer in configs and mine in configs:
        for w in workloads:
            wm = worst_metric(runs, w, mine, peer)
            ci = report.paired_ci(runs, w.name, mine, peer, wm[1]) if wm else None
            if ci:
                lines.append("| %s / %s, %s <= %.2f | %.3f [%.3f, %.3f]: %s |" % (
                    mine, peer, metric_name(w, wm[1]), GLIBC_PEER,
                    ci[0], ci[1], ci[2], report.verdict(ci, GLIBC_PEER)))
    lines += ci_lines(runs, workloads, configs)
    if not lines:
        return ""
    return "\n".join(["| target (ratio to %s unless named; issue 3's as medians, within/beyond: "
                      "verdicts with intervals are the summary's and the key ratios') | result |" % baseline,
                      "|---|---|"] + lines)
