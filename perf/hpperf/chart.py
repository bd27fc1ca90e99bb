"""An SVG chart of the paired ratios, drawn by gnuplot (Debian: gnuplot-nox).

ratios.svg: one cluster of bars per timing metric, one bar per configuration;
summary.svg: one cluster per workload's main metric, a bar per backend's
auto and per peer (summary.chart_rows).  Each bar is the median per-round
ratio to the baseline, so < 1 is faster.  Returns the SVG path, or
a string saying why there is none (gnuplot missing, nothing to draw).
"""
import os
import shutil
import subprocess

from . import report

SCRIPT = """set terminal svg size {width},640 dynamic enhanced font 'sans,11' background rgb 'white'
set output '{svg}'
set title '{title}'
set datafile separator '\\t'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel 'time ratio to {baseline} (median of per-round ratios; lower is faster)'
set xtics scale 0 font ',9' nomirror
set key outside right top vertical
set grid ytics
set yrange [0:{ymax}]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 lw 1.5 front
plot for [i=2:{ncols}] '{tsv}' using i:xtic(1) title columnheader(i)
"""


def write_svg(out_dir, runs, workloads, configs, baseline, title):
    """ratios.svg: every timing metric, every configuration."""
    cols = [c for c in configs if c != baseline]
    rows = []
    for w in workloads:
        for label, key in report.time_rows(w):
            vals = [report.paired_ratio(runs, w.name, c, baseline, key) for c in cols]
            if any(v is not None for v in vals):
                rows.append((label, vals))
    return plot(out_dir, "ratios", cols, rows, baseline, title)


def plot(out_dir, name, cols, rows, baseline, title):
    """NAME.svg (and NAME.tsv, NAME.gp) from [(label, [ratio per column])]."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return "gnuplot not installed (apt-get install gnuplot-nox)"
    if not rows or not cols:
        return "nothing to draw"
    tsv = os.path.join(out_dir, name + ".tsv")
    with open(tsv, "w") as f:
        f.write("metric\t" + "\t".join(cols) + "\n")
        for label, vals in rows:
            f.write(label + "\t" + "\t".join("NaN" if v is None else "%.4f" % v for v in vals) + "\n")
    top = max(v for _, vals in rows for v in vals if v is not None)
    svg = os.path.join(out_dir, name + ".svg")
    script = SCRIPT.format(width=max(900, 60 * len(rows) * max(1, len(cols)) // 3 + 300),
                           svg=svg, tsv=tsv, title=title.replace("'", ""), baseline=baseline,
                           ymax="%.2f" % min(max(1.2, top * 1.05), 4.0), ncols=len(cols) + 1)
    gp = os.path.join(out_dir, name + ".gp")
    with open(gp, "w") as f:
        f.write(script)
    r = subprocess.run([gnuplot, gp], capture_output=True, text=True)
    if r.returncode != 0:
        return "gnuplot failed: %s" % r.stderr.strip()[-300:]
    return svg
