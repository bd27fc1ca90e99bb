#!/usr/bin/env python3
"""hugepolicy perf runner: workloads x (backend x page mode), interleaved.

  python3 perf/run.py                         # quick, all workloads, off,thp,auto, 5 rounds
  python3 perf/run.py --full --repeat 3 --modes off,thp,hugetlb

See perf/README.md for what the tables mean.  Stdlib only.
"""
import argparse
import contextlib
import random
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hpperf import (chart, hugetlb, machine, method, mthp, quiet, report, resume, settle, summary,  # noqa: E402
                    targets, variant, workloads)
from hpperf.measure import run_measured  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKENDS = ("system", "jemalloc", "mimalloc")
# native baselines: the backend's own Debian library preloaded directly, with
# the equivalent configuration - what a user would do without hugepolicy
LIBDIR = "/usr/lib/x86_64-linux-gnu"
NATIVES = {
    "native-jemalloc": (LIBDIR + "/libjemalloc.so.2", {
        "off": {"MALLOC_CONF": "thp:never,metadata_thp:disabled"},
        "thp": {"MALLOC_CONF": "thp:always,metadata_thp:auto"}}),
    # jemalloc 5.3's hugepage-aware allocator (Debian's libjemalloc2 has it:
    # opt.hpa reads back true); its default 10 s hugify delay would keep
    # every run shorter than that on base pages, so 0
    "native-jemalloc-hpa": (LIBDIR + "/libjemalloc.so.2", {
        "thp": {"MALLOC_CONF": "hpa:true,hpa_hugify_delay_ms:0,metadata_thp:auto"}}),
    "native-mimalloc": (LIBDIR + "/libmimalloc.so.2", {
        "off": {"MIMALLOC_LARGE_OS_PAGES": "0"},
        "thp": {"MIMALLOC_LARGE_OS_PAGES": "1"}}),
    # the zero-install peer: glibc 2.35+'s own tunable, no library at all
    # (1: MADV_HUGEPAGE on its mmap'ed chunks and heap, 2: the hugetlb pool)
    "native-glibc": (None, {
        "thp": {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"},
        "hugetlb": {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=2"}}),
}
MODES = ("off", "thp", "hugetlb", "auto")
STATS_PREFIX = "hugepolicy-stats: "


def csv_list(allowed):
    def parse(text):
        items = [x.strip() for x in text.split(",") if x.strip()]
        bad = [x for x in items if allowed and x not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError("expected a comma list of %s" % ",".join(allowed))
        return items
    return parse


def variant_arg(text):
    try:
        return variant.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workloads", type=csv_list(tuple(workloads.NAMES)), default=["all"],
                   help="names or groups: %s (default all)" % ",".join(workloads.NAMES))
    p.add_argument("--backends", type=csv_list(BACKENDS + tuple(NATIVES)),
                   default=list(BACKENDS) + list(NATIVES),
                   help="default: all, native baselines included")
    p.add_argument("--modes", type=csv_list(MODES), default=["off", "thp", "auto"],
                   help="default off,thp,auto; hugetlb needs root (the runner sets the pool)")
    p.add_argument("--repeat", default="5",
                   help="rounds (default 5), or auto: per workload, rounds until the 95 %% "
                        "intervals of its key ratios are within --ci-width, at most --max-repeat")
    p.add_argument("--max-repeat", type=int, default=15, help="--repeat auto: most rounds (15)")
    p.add_argument("--ci-width", type=float, default=0.02,
                   help="--repeat auto: largest half-width of a key ratio's interval (0.02 = 2 %%)")
    p.add_argument("--settle", action=argparse.BooleanOptionalAction, default=True,
                   help="before every run (root): sync, drop caches, compact memory (default on)")
    p.add_argument("--drop-caches", type=int, choices=(0, 1, 2, 3), default=1,
                   help="value written to drop_caches when settling (default 1: page cache)")
    p.add_argument("--require-quiet", action="store_true",
                   help="refuse to start when the machine is not quiet (default: warn)")
    p.add_argument("--quiet-cpus", type=float, default=quiet.OTHERS_MAX,
                   help="other processes' CPUs above which the machine is not quiet (%.2f)"
                        % quiet.OTHERS_MAX)
    q = p.add_mutually_exclusive_group()
    q.add_argument("--quick", dest="quality", action="store_const", const="quick")
    q.add_argument("--full", dest="quality", action="store_const", const="full")
    p.set_defaults(quality="quick")
    p.add_argument("--build", default=os.path.join(REPO, "build"), help="CMake build dir")
    p.add_argument("--hugepolicy", help="hugepolicy CLI (default BUILD/hugepolicy)")
    p.add_argument("--plain", action="store_true",
                   help="no CLI: run workloads directly with HUGEPOLICY_* env only (baseline check)")
    p.add_argument("--blender", help="blender binary (default: from PATH)")
    p.add_argument("--out", help="results dir (default perf/results/<timestamp>/)")
    p.add_argument("--report", metavar="DIR",
                   help="run nothing: print and write the tables, targets and chart again "
                        "from DIR/results.json (into --out if given, else DIR)")
    p.add_argument("--resume", metavar="DIR",
                   help="go on with a stopped run in DIR (its partial.json, written after every "
                        "round): same build and options, complete rounds kept, the rest run; "
                        "results into DIR unless --out")
    p.add_argument("--order", choices=("shuffled", "fixed"), default="shuffled",
                   help="configuration order within a round: shuffled per round (seeded; default) "
                        "or fixed")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    p.add_argument("--interval", type=float, default=0.1, help="smaps_rollup poll seconds")
    p.add_argument("--hugetlb-pages", type=int, help="2 MiB pages to add to the pool "
                   "(default: per workload)")
    p.add_argument("--pool", choices=("all", "hugetlb"), default="all",
                   help="which runs get the added hugetlb pool when hugetlb columns run: all "
                        "(default: every configuration sees the same machine; a host library "
                        "that maps the pool itself, as Embree does, does so in every column) "
                        "or hugetlb (only those columns)")
    p.add_argument("--mthp", metavar="SIZE", type=mthp.parse_kb,
                   help="run every configuration twice: with hugepages-SIZE (e.g. 64K) madvise, "
                        "named CONFIG+mthpSIZE, and with it never (root; the setting is put back "
                        "at the end)")
    p.add_argument("--auto-variant", metavar="OPTION=VALUE", action="append", default=[],
                   type=variant_arg,
                   help="also run each hugepolicy backend's auto with HUGEPOLICY_OPTION=VALUE, named "
                        "auto+option=value, in the same rounds, and table it against auto (repeatable; "
                        "e.g. PROMOTE=off)")
    p.add_argument("--lock", default="/tmp/hp-sysstate.lock",
                   help="with --mthp: the lock file held while the size is switched "
                        "(default /tmp/hp-sysstate.lock)")
    args = p.parse_args(argv)
    if args.repeat != "auto":
        try:
            args.repeat = int(args.repeat)
        except ValueError:
            p.error("--repeat must be a number of rounds or auto")
        if args.repeat < 1:
            p.error("--repeat must be >= 1")
    if args.max_repeat < 3:
        p.error("--max-repeat must be >= 3")
    if not 0 < args.ci_width < 1:
        p.error("--ci-width must be a fraction between 0 and 1")
    if not 0 < args.timeout < float("inf"):
        p.error("--timeout must be a number of seconds > 0")
    if not 0 < args.interval < float("inf"):
        p.error("--interval must be a number of seconds > 0")
    if args.hugetlb_pages is not None and args.hugetlb_pages < 1:
        p.error("--hugetlb-pages must be >= 1")
    args.build = os.path.abspath(args.build)
    args.hugepolicy = os.path.abspath(args.hugepolicy or os.path.join(args.build, "hugepolicy"))
    return args


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def configurations(args):
    modes = list(args.modes)
    if "hugetlb" in modes:
        why = hugetlb.can_reserve()
        if why:
            log("skipping hugetlb columns: %s" % why)
            modes.remove("hugetlb")
    configs = []
    for b in args.backends:
        if b in NATIVES:
            lib, conf = NATIVES[b]
            if lib and not os.path.exists(lib):
                log("skipping %s: %s missing" % (b, lib))
                continue
            configs += [(b, m) for m in modes if m in conf]   # the modes it has
        else:
            configs += [(b, m) for m in modes]
    configs = variant.configurations(configs, args.auto_variant, NATIVES)
    if args.mthp:
        configs = [(b, m + tag) for b, m in configs for tag in ("", mthp.suffix(args.mthp))]
    return configs


def child_command(args, backend, mode, cmd):
    options = variant.env_of(mode)      # "auto+promote=off": HUGEPOLICY_PROMOTE=off
    mode = mode.split("+", 1)[0]        # "auto+mthp64K": auto, the size switched around it
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HUGEPOLICY_", "MIMALLOC_"))
           and k not in ("MALLOC_CONF", "LD_PRELOAD", "GLIBC_TUNABLES")}
    if backend in NATIVES:
        lib, conf = NATIVES[backend]
        env.update(conf[mode])
        if lib:
            env["LD_PRELOAD"] = lib
        return cmd, env
    env["HUGEPOLICY_STATS"] = "json"
    env.update(options)
    if args.plain:
        env.update(HUGEPOLICY_BACKEND=backend, HUGEPOLICY_PAGES=mode)
        return cmd, env
    return [args.hugepolicy, "run", "--backend", backend, "--pages", mode, "--"] + cmd, env


def hp_stats(stderr):
    """The optional one-line JSON report hugepolicy prints at exit, or None."""
    for line in reversed(stderr.splitlines()):
        if line.startswith(STATS_PREFIX):
            try:
                return json.loads(line[len(STATS_PREFIX):])
            except ValueError:
                return None
    return None


def run_one(args, wl, backend, mode, rnd, out_dir):
    config = "%s/%s" % (backend, mode)
    cmd, env = child_command(args, backend, mode,
                             wl.command(config.replace("/", "-"), out_dir))
    pool = None
    if args.mthp:
        mthp.set_for(args.mthp, mode)
    settle_s = settle.settle(args.drop_caches) if args.settle else None
    free_2m = settle.free_2m_blocks()
    driver = getattr(wl, "driver", None)
    if mode.startswith("hugetlb") or (args.pool == "all" and
                                      any(m.startswith("hugetlb") for _, m in args.configs)):
        want = args.hugetlb_pages if args.hugetlb_pages is not None else wl.hugetlb_pages()
        with hugetlb.pool(want) as pool:
            if pool < want:
                log("  note: asked for %d hugetlb pages, kernel granted %d" % (want, pool))
            m = run_measured(cmd, env, args.timeout, args.interval, driver)
    else:
        m = run_measured(cmd, env, args.timeout, args.interval, driver)
    stats = hp_stats(m["stderr"])
    run = {k: v for k, v in m.items() if k not in ("stdout", "stderr")}
    run.update(workload=wl.name, round=rnd, config=config, backend=backend, mode=mode,
               hugetlb_pool_pages=pool, metrics={}, info={}, error="",
               settle_s=settle_s, free_2m_blocks=free_2m,
               hp_stats=stats, hp_pages=(stats or {}).get("plan.pages"),
               hp_reason=(stats or {}).get("plan.pages_reason"))
    run["ok"] = m["exit_code"] == 0 and not m["timed_out"] and not m.get("driver_error")
    if m["timed_out"]:
        run["error"] = "timed out after %g s" % args.timeout
    elif m.get("driver_error"):
        run["error"] = m["driver_error"]
    elif m["exit_code"] != 0:
        run["error"] = "exit code %d" % m["exit_code"]
    else:
        try:
            text = m["stdout"] + ("\n" + m["stderr"] if getattr(wl, "parse_stderr", False) else "")
            run["metrics"], run["info"] = wl.parse(text)
        except ValueError as exc:
            run["ok"], run["error"] = False, "bad output: %s" % exc
    if run["ok"]:
        run.pop("stderr_tail", None)
    else:
        save_logs(out_dir, wl.name, config, rnd, m)
    return run


def save_logs(out_dir, name, config, rnd, m):
    d = os.path.join(out_dir, "logs")
    os.makedirs(d, exist_ok=True)
    base = os.path.join(d, "%s-%s-r%d" % (name, config.replace("/", "-"), rnd))
    for ext in ("stdout", "stderr"):
        with open("%s.%s" % (base, ext), "w") as f:
            f.write(m[ext])


def progress(i, n, run, repeat, quiet_cpus):
    head = "[%d/%s] %s r%d/%s %-16s" % (i, n, run["workload"], run["round"], repeat, run["config"])
    if not run["ok"]:
        log("%s FAIL: %s" % (head, run["error"]))
        for line in run.get("stderr_tail", [])[-10:]:
            log("    | " + line)
        return
    got = " got=%s" % run["hp_pages"] if run["hp_pages"] and run["hp_pages"] != run["mode"] else ""
    times = " ".join("%s=%.3fs" % (k.split(" ", 1)[1].replace(" ", ""), v)
                     for k, v in run["metrics"].items())
    busy = quiet.busy_reason(run, quiet_cpus)
    log("%s ok wall=%.2fs cpu=%.2fs rss=%.0fMiB huge=%.0fMiB%s | %s%s" % (
        head, run["wall_s"], run["cpu_s"], run["maxrss_mib"], run["peak_huge_mib"], got, times,
        "  [NOT QUIET: %s]" % busy if busy else ""))


def on_sigterm(signum, frame):
    raise KeyboardInterrupt


def write_outputs(out_dir, cfg, facts, runs, wls, names):
    """Tables (stdout and tables.md), targets, SVG, CSV, JSON of one run."""
    baseline = "system/off" if "system/off" in names else names[0]
    title = "hugepolicy perf (%s, %s round(s)%s) — ratio to %s" % (
        cfg["quality"], cfg["repeat"], ", PLAIN: no hugepolicy" if cfg["plain"] else "", baseline)
    parts = ["## " + title, machine.summary(facts), method.summary(cfg, runs)]
    main = summary.main_table(runs, wls, names, baseline)
    if main:
        cols, rows = summary.chart_rows(runs, wls, names, baseline)
        parts += ["### Summary: each backend's auto, its best static mode and the peers", main,
                  "### Targets (paired ratio [bootstrap 95 % interval] verdict)",
                  summary.goals_table(runs, wls, names),
                  "### Do no harm: each backend's auto against its own off (paired ratio [95 % interval] verdict)",
                  summary.harm_table(runs, wls, names),
                  "Summary chart: %s" % chart.plot(out_dir, "summary", cols, rows, baseline, title),
                  "### Every metric"]
    parts += [report.timing_table(runs, wls, names, baseline),
             report.spread_table(runs, wls, names), report.resource_table(runs, wls, names)]
    if cfg.get("mthp"):
        parts += ["### mTHP: each configuration with hugepages-%dkB madvise against itself with never "
                  "(paired ratio [bootstrap 95 %% interval])" % cfg["mthp"],
                  mthp.table(runs, wls, names, cfg["mthp"])]
    if cfg.get("auto_variant"):
        parts += ["### auto with one option changed, against auto (paired ratio [bootstrap 95 % interval])",
                  variant.table(runs, wls, names, [tuple(v) for v in cfg["auto_variant"]])]
    if any(w.name == "fresh-buffer" for w in wls):
        parts.append(report.cold_warm_table(runs, names))
    if any(w.name == "redis" for w in wls):
        parts.append(report.info_table(runs, "redis", names, " rps", "redis requests/s (median)"))
    goals = targets.table(runs, wls, names, baseline)
    if goals:
        parts.append(goals)
    svg = chart.write_svg(out_dir, runs, wls, names, baseline, title)
    parts.append("Chart: %s" % svg)
    text = "\n\n".join(parts)
    print(text)
    with open(os.path.join(out_dir, "tables.md"), "w") as f:
        f.write(text + "\n")
    report.write_csv(os.path.join(out_dir, "runs.csv"), runs, wls)
    cfg = dict(cfg, baseline=baseline)
    extra = {"quiet": method.quiet_json(cfg, runs), "rounds": cfg.get("precision") or {}}
    report.write_json(os.path.join(out_dir, "results.json"), cfg, facts, runs, wls, names, baseline, extra)
    for wl in wls:
        means = [r["info"]["image_mean"] for r in runs
                 if r["workload"] == wl.name and "image_mean" in r.get("info", {})]
        if means and max(means) - min(means) > 1e-3:
            log("WARNING: %s images differ between runs (mean pixel %.5f..%.5f); "
                "see OUT/images/" % (wl.name, min(means), max(means)))


def report_again(src, out, build, blender):
    """--report DIR (or DIR/results.json): the tables, targets and chart again,
    written to --out if given, else to DIR."""
    path = src if os.path.isfile(src) else os.path.join(src, "results.json")
    with open(path) as f:
        doc = json.load(f)
    missing = [k for k in ("config", "machine", "runs", "configurations") if not isinstance(doc, dict) or k not in doc]
    if missing:
        raise ValueError("%s is not a perf/run.py results.json (no %s)" % (path, ", ".join(missing)))
    out_dir = os.path.abspath(out) if out else os.path.dirname(path)
    os.makedirs(out_dir, exist_ok=True)
    cfg = doc["config"]
    wls = [workloads.make(n, REPO, build or cfg["build"], cfg["quality"], blender or cfg.get("blender"))
           for n in cfg["workloads"]]
    write_outputs(out_dir, cfg, doc["machine"], doc["runs"], wls, doc["configurations"])
    return 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.report:
        try:
            return report_again(os.path.abspath(args.report), args.out, args.build, args.blender)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            why = exc.strerror + ": " + exc.filename if isinstance(exc, OSError) and exc.filename else exc
            log("error: --report %s: %s" % (args.report, why))
            return 2
    if not args.plain and not os.access(args.hugepolicy, os.X_OK):
        log("error: hugepolicy CLI not found at %s (build it, pass --hugepolicy PATH, "
            "or --plain to run without it)" % args.hugepolicy)
        return 2
    configs = args.configs = configurations(args)
    names = ["%s/%s" % c for c in configs]
    wls = []
    for name in workloads.expand(args.workloads):
        wl = workloads.make(name, REPO, args.build, args.quality, args.blender)
        why = wl.unavailable()
        if why:
            log("skipping workload %s: %s" % (name, why))
        else:
            wls.append(wl)
    if not wls or not configs:
        log("error: nothing to run")
        return 2
    start_sample, busy = quiet.check_now(1.0, args.quiet_cpus)
    if busy and args.require_quiet:
        log("error: the machine is not quiet (%s): --require-quiet, so nothing is run" % busy)
        return 2
    settle_why = settle.can_settle() if args.settle else "--no-settle"
    if args.settle and settle_why:
        log("warning: memory is not settled before runs (%s); the runs go on" % settle_why)
        args.settle = False
    if busy:
        log("warning: the machine is not quiet (%s); each run records others' CPU" % busy)
    out_dir = os.path.abspath(args.out or args.resume or os.path.join(
        REPO, "perf", "results", time.strftime("%Y%m%d-%H%M%S")))
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        log("error: --out %s: %s" % (out_dir, exc.strerror or exc))
        return 2
    signal.signal(signal.SIGTERM, on_sigterm)  # so pools get restored, children killed

    hp = None if args.plain else args.hugepolicy
    facts = machine.info(hp, getattr(wls[-1], "blender", None))
    auto = args.repeat == "auto"
    most = args.max_repeat if auto else args.repeat
    mine = {}   # workload -> its configurations (a host may rule some peers out)
    for wl in wls:
        not_for = getattr(wl, "not_for", {})
        mine[wl.name] = [c for c in configs if c[0] not in not_for]
        for b in sorted({c[0] for c in configs if c[0] in not_for}):
            log("skipping %s for %s: %s" % (b, wl.name, not_for[b]))
    total = sum(len(c) for c in mine.values()) * most
    shown = ("<=%d" % total) if auto else total
    log("%s: %s runs (%s, %s rounds%s) -> %s" % ("PLAIN (no hugepolicy)" if args.plain else
        args.hugepolicy, shown, args.quality, args.repeat,
        ", at most %d, until key intervals are within ±%.1f %%" % (most, 100 * args.ci_width)
        if auto else "", out_dir))
    ident, started = resume.identity(args), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    runs, done = [], set()
    if args.resume:
        try:
            runs, done, was = resume.load(os.path.abspath(args.resume), ident,
                                          {n: {"%s/%s" % c for c in cs} for n, cs in mine.items()})
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log("error: --resume %s: %s" % (args.resume, exc))
            return 2
        started = was or started
        log("resuming: %d complete rounds (%d runs) kept from %s" % (len(done), len(runs), args.resume))
    i, interrupted, precision = len(runs), False, {}
    stack = contextlib.ExitStack()
    try:
        if args.mthp:
            why = mthp.can_switch(args.mthp)
            if why:
                log("error: --mthp %dK: %s" % (args.mthp, why))
                return 2
            was = stack.enter_context(mthp.held(args.mthp, args.lock))
            log("--mthp: hugepages-%dkB/enabled was %s; madvise for +mthp%dK runs, never for the others, "
                "%s again at the end (holding %s)" % (args.mthp, was, args.mthp, was, args.lock))
        for wl in wls:
            t0, wl_names = time.monotonic(), ["%s/%s" % c for c in mine[wl.name]]
            for rnd in range(1, most + 1):
                if (wl.name, rnd) in done:
                    continue
                # A run leaves memory more or less fragmented for the next
                # (a hugetlb run hands 1 GiB of free 2 MiB blocks back, so
                # whatever runs next faults THP without compaction): shuffle
                # the order per round (seeded, so reruns repeat it) so that
                # this turns into noise instead of a bias for one column.
                order = list(mine[wl.name])
                if args.order == "shuffled":
                    random.Random("%s/%d" % (wl.name, rnd)).shuffle(order)
                for backend, mode in order:
                    i += 1
                    runs.append(run_one(args, wl, backend, mode, rnd, out_dir))
                    progress(i, shown, runs[-1], ("<=%d" % most) if auto else most, args.quiet_cpus)
                resume.checkpoint(out_dir, ident, facts, runs, started)
                hw, widest = targets.precision(runs, wl, wl_names)
                precision[wl.name] = {"rounds": rnd, "seconds": round(time.monotonic() - t0, 1),
                                      "half_width": hw, "widest": widest}
                if auto and rnd >= 3 and hw is not None and hw <= args.ci_width:
                    break
            if auto:
                log("%s: %d rounds, %.0f s; widest key interval %s" % (
                    wl.name, rnd, time.monotonic() - t0,
                    "±%.1f %% (%s)" % (100 * hw, widest) if hw is not None else widest))
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted: reporting the %d runs done" % len(runs))
    finally:
        stack.close()       # the mTHP size back as it was, the lock released

    if not interrupted:
        facts["fault_costs_end"] = machine.fault_costs(hp)
    cfg = {k: v for k, v in vars(args).items()}
    cfg.update(configurations=names, workloads=[w.name for w in wls], precision=precision,
               identity=ident, started=started,
               settle_why=settle_why, quiet_start=busy,
               quiet_start_sample=start_sample)
    write_outputs(out_dir, cfg, facts, runs, wls, names)
    failed = [r for r in runs if not r["ok"]]
    log("results: %s (runs.csv, results.json, tables.md)" % out_dir)
    if failed:
        log("%d run(s) failed:" % len(failed))
        for r in failed:
            log("  %s r%d %s: %s" % (r["workload"], r["round"], r["config"], r["error"]))
    return 1 if failed or interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
