"""Machine facts recorded next to the results."""
import json
import os
import platform
import subprocess


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _cpu_model():
    for line in (_read("/proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return None


def _probe(hugepolicy):
    """`hugepolicy probe --json` parsed, or a string saying why not."""
    if not hugepolicy:
        return "not run (plain mode)"
    try:
        r = subprocess.run([hugepolicy, "probe", "--json"], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "failed: %s" % exc
    if r.returncode != 0:
        return "failed: exit %d: %s" % (r.returncode, r.stderr.strip()[-300:])
    try:
        return json.loads(r.stdout)
    except ValueError:
        return r.stdout.strip()


def info(hugepolicy=None, blender=None):
    thp = "/sys/kernel/mm/transparent_hugepage/"
    facts = {
        "kernel": platform.release(),
        "nproc": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)),
        "cpu_model": _cpu_model(),
        "thp_enabled": _read(thp + "enabled"),
        "thp_defrag": _read(thp + "defrag"),
        "nr_hugepages": _read("/proc/sys/vm/nr_hugepages"),
        "mem_total": next((l.split(":", 1)[1].strip() for l in
                           (_read("/proc/meminfo") or "").splitlines()
                           if l.startswith("MemTotal")), None),
        "hugepolicy_probe": _probe(hugepolicy),
    }
    if blender:
        try:
            out = subprocess.run([blender, "--version"], capture_output=True, text=True,
                                 timeout=60).stdout
            facts["blender"] = out.splitlines()[0] if out else None
        except (OSError, subprocess.TimeoutExpired):
            facts["blender"] = None
    return facts
