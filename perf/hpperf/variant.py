"""auto with one option changed, beside auto, in the same rounds.

`--auto-variant PROMOTE=off` adds, for every hugepolicy backend that runs
`auto`, a configuration BACKEND/auto+promote=off: auto with
HUGEPOLICY_PROMOTE=off in its environment.  It runs interleaved with the
others, so its paired ratio against plain auto isolates what that one option
does on this host (the question "does the promotion cost this backend here?"
needs exactly that).  The options are the library's own (the name is what
follows HUGEPOLICY_), so nothing here knows what they mean.
"""
import re

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def parse(text):
    """'PROMOTE=off' -> ('PROMOTE', 'off'); ValueError for anything else."""
    name, eq, value = text.partition("=")
    name = name.strip().upper()
    if name.startswith("HUGEPOLICY_"):
        name = name[len("HUGEPOLICY_"):]
    if not eq or not NAME.match(name) or not value or "+" in value or "," in value:
        raise ValueError("expected OPTION=VALUE (e.g. PROMOTE=off): %s" % text)
    return name, value.strip()


def suffix(variant):
    name, value = variant
    return "+%s=%s" % (name.lower(), value)


def env_of(mode):
    """The HUGEPOLICY_* settings a mode name carries: 'auto+promote=off' ->
    {'HUGEPOLICY_PROMOTE': 'off'}; other suffixes (+mthp64K) carry none."""
    env = {}
    for part in mode.split("+")[1:]:
        name, eq, value = part.partition("=")
        if eq:
            env["HUGEPOLICY_" + name.upper()] = value
    return env


def configurations(configs, variants, natives):
    """configs with BACKEND/auto+VARIANT after each hugepolicy BACKEND/auto."""
    out = []
    for b, m in configs:
        out.append((b, m))
        if m == "auto" and b not in natives:
            out += [(b, m + suffix(v)) for v in variants]
    return out


def table(runs, workloads, configs, variants):
    """Markdown: each BACKEND/auto+VARIANT against BACKEND/auto (paired ratio
    [bootstrap 95 % interval]) for the main metric, wall, CPU, peak memory and
    minor faults; '' without such pairs."""
    from . import report, workloads as wlreg   # noqa: E402
    tags = [suffix(v) for v in variants]
    pairs = [(c[:-len(t)], c) for c in configs for t in tags if c.endswith(t) and c[:-len(t)] in configs]
    if not pairs:
        return ""
    head = ["workload", "configuration", "against", "main metric", "wall", "CPU", "peak RSS+hugetlb",
            "minor faults"]
    rows = []
    for w in workloads:
        main = wlreg.main_metric(w)
        for base, var in pairs:
            rows.append([w.name, var, base] + [report.ci_text(runs, w.name, var, base, k)
                                               for k in (main, "wall_s", "cpu_s", "peak_mem_mib", "minflt")])
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(r) + " |" for r in rows])
