"""Machine facts recorded next to the results."""
import glob
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


def fault_costs(hugepolicy):
    """`hugepolicy probe --measure --json`'s fault_costs: what a 4 KiB fault,
    a THP fault of memory as the kernel hands it out and of a huge page just
    freed cost on this host now (they move with the host's state, so run.py
    measures at the start and again at the end), or a string saying why not."""
    if not hugepolicy:
        return "not measured (plain mode)"
    try:
        r = subprocess.run([hugepolicy, "probe", "--json", "--measure"], capture_output=True,
                           text=True, timeout=60)
        costs = json.loads(r.stdout).get("fault_costs") if r.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError, AttributeError) as exc:
        return "not measured: %s" % exc
    return costs if isinstance(costs, dict) else "not measured: exit %d: %s" % (
        r.returncode, r.stderr.strip()[-200:])


def costs_text(costs):
    """'4 KiB fault 2.3 us, THP fault 1702 us (warm 108 us): base pages cheaper'"""
    if not isinstance(costs, dict):
        return str(costs)
    verdict = "THP cheaper" if costs.get("thp_pays") else "base pages cheaper"
    return "4 KiB fault %.1f us, 2 MiB THP fault %.0f us (warm %.0f us): %s" % (
        costs["base_ns"] / 1e3, costs["thp_ns"] / 1e3, costs["thp_warm_ns"] / 1e3, verdict)


def _balloon_reports():
    """True if a virtio balloon bound here offers free page reporting
    (feature bit 5, VIRTIO_BALLOON_F_REPORTING), False if none does."""
    for f in glob.glob("/sys/bus/virtio/drivers/virtio_balloon/virtio*/features"):
        bits = _read(f) or ""
        if len(bits) > 5 and bits[5] == "1":
            return True
    return False


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
        "fault_costs": fault_costs(hugepolicy),
        # a guest whose balloon reports free pages to the host (virtio
        # free page reporting, Firecracker, QEMU free-page-reporting=on,
        # WSL2) gets them discarded there: memory freed to the kernel and
        # faulted again costs a host fault too, not only zeroing
        "page_reporting_order": _read("/sys/module/page_reporting/parameters/page_reporting_order"),
        "balloon_reports_free_pages": _balloon_reports(),
    }
    if blender:
        try:
            out = subprocess.run([blender, "--version"], capture_output=True, text=True,
                                 timeout=60).stdout
            facts["blender"] = out.splitlines()[0] if out else None
        except (OSError, subprocess.TimeoutExpired):
            facts["blender"] = None
    return facts


def summary(facts):
    """One line for the top of the tables."""
    probe = facts.get("hugepolicy_probe")
    pools = ""
    if isinstance(probe, dict):
        pools = ", hugetlb pools " + ", ".join(
            "%d kB: %d free" % (p["page_size"] // 1024, p["free"]) for p in probe.get("hugetlb_pools", []))
    order = facts.get("page_reporting_order")
    reporting = ""
    if order and order.isdigit() and facts.get("balloon_reports_free_pages"):
        reporting = ", free pages reported to the host from %d KiB blocks (page_reporting)" % (4 << int(order))
    costs = ""
    if "fault_costs" in facts:
        costs = "\n\nFault costs at the start: %s" % costs_text(facts["fault_costs"])
        if "fault_costs_end" in facts:
            costs += "; at the end: %s" % costs_text(facts["fault_costs_end"])
    return "Machine: %s, %s CPUs (%s), %s, kernel %s, THP %s, defrag %s%s%s%s" % (
        facts.get("cpu_model"), facts.get("nproc"), facts.get("cpus_usable"), facts.get("mem_total"),
        facts.get("kernel"), facts.get("thp_enabled"), facts.get("thp_defrag"), pools, reporting, costs)
