"""The method lines above the tables and the JSON's quiet summary: how
memory was settled, how quiet the machine was, how many rounds each
workload took (perf/README.md, Method)."""
from . import quiet


def _qmax(cfg):
    return cfg.get("quiet_cpus", quiet.OTHERS_MAX)


def quiet_json(cfg, runs):
    busy = [r for r in runs if quiet.busy_reason(r, _qmax(cfg))]
    return {"quiet": not busy and not cfg.get("quiet_start"),
            "before_first_run": cfg.get("quiet_start") or "quiet",
            "others_cpus_max": _qmax(cfg), "busy_runs": len(busy), "runs": len(runs)}


def summary(cfg, runs):
    """Lines above the tables: settling, quietness, rounds per workload."""
    out = []
    settled = [r["settle_s"] for r in runs if r.get("settle_s") is not None]
    out.append("Settling: %s" % (
        "sync + drop_caches=%d + compact_memory before each of %d runs (median %.2f s)" % (
            cfg.get("drop_caches", 1), len(settled), sorted(settled)[len(settled) // 2])
        if settled else "none (%s)" % cfg.get("settle_why", "not recorded")))
    busy = [r for r in runs if quiet.busy_reason(r, _qmax(cfg))]
    others = sorted(r["others_cpus"] for r in runs if r.get("others_cpus") is not None)
    if others:
        out.append("Quiet: %s; other processes' CPUs per run: median %.2f, max %.2f%s" % (
            "NO, %d of %d runs had others above %.2f CPUs" % (
                len(busy), len(runs), _qmax(cfg)) if busy else "yes",
            others[len(others) // 2], others[-1],
            "; before the first run: %s" % cfg["quiet_start"] if cfg.get("quiet_start") else ""))
    for name, p in (cfg.get("precision") or {}).items():
        out.append("Rounds %s: %d (%.0f s)%s" % (name, p["rounds"], p["seconds"], (
            ", widest key interval ±%.1f %% (%s)" % (100 * p["half_width"], p["widest"])
            if p.get("half_width") is not None else ", %s" % p.get("widest", ""))))
    return "  \n".join(out)
