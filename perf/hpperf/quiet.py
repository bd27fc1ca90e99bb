"""Is the machine quiet?  Other processes' CPU and the load average.

Around each run the runner takes a snapshot of /proc/stat (all CPUs' busy
time) and of its own process tree's CPU time (os.times(): the runner itself
plus every child it reaped, so the measured process and a benchmark client
are both in it).  Busy time that is not ours was another process's:

  others_cpus = (busy_after - busy_before) / HZ - (tree_after - tree_before)
                -------------------------------------------------------
                                      wall seconds

in CPUs (1.0 = one core busy all the time).  Steal time (the hypervisor's)
is counted apart.  The load average is read at the start of a run; it also
counts our own previous runs (a 1-minute decay), so it is recorded, and only
checked before the first run.
"""
import os
import time

HZ = os.sysconf("SC_CLK_TCK")
OTHERS_MAX = 0.10      # CPUs other processes may use during a run
LOAD_MAX = 0.5         # load1 before the first run


def _stat():
    """(busy, steal) jiffies of all CPUs from the first /proc/stat line."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal [guest guest_nice]:
    # guest time is already inside user
    v += [0] * (8 - len(v))
    return v[0] + v[1] + v[2] + v[5] + v[6], v[7]


def load1():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def snapshot():
    t = os.times()
    return {"stat": _stat(), "tree_s": t.user + t.system + t.children_user + t.children_system,
            "t": time.monotonic(), "load1": load1()}


def others(before, after):
    """{others_cpus, steal_cpus, load1} between two snapshots (None parts
    when /proc/stat is unreadable)."""
    wall = after["t"] - before["t"]
    out = {"others_cpus": None, "steal_cpus": None, "load1": before["load1"]}
    if before["stat"] and after["stat"] and wall > 0:
        busy = (after["stat"][0] - before["stat"][0]) / HZ
        mine = after["tree_s"] - before["tree_s"]
        out["others_cpus"] = round(max(0.0, busy - mine) / wall, 3)
        out["steal_cpus"] = round((after["stat"][1] - before["stat"][1]) / HZ / wall, 3)
    return out


def busy_reason(sample, others_max=OTHERS_MAX, load_max=None):
    """Why a sample is not quiet ('' when it is)."""
    why = []
    if sample.get("others_cpus") is not None and sample["others_cpus"] >= others_max:
        why.append("other processes used %.2f CPUs" % sample["others_cpus"])
    if load_max is not None and sample.get("load1") is not None and sample["load1"] >= load_max:
        why.append("load average %.2f" % sample["load1"])
    return ", ".join(why)


def check_now(seconds=1.0, others_max=OTHERS_MAX, load_max=LOAD_MAX):
    """Sample the machine for `seconds` before the first run: (sample, reason)."""
    before = snapshot()
    time.sleep(seconds)
    s = others(before, snapshot())
    return s, busy_reason(s, others_max, load_max)
