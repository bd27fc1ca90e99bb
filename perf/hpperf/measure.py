"""Run one child process and measure it.

Wall time around spawn/reap, rusage from os.wait4 (peak RSS, minor faults,
user/sys time), and peak huge-page-backed memory by polling
/proc/<pid>/smaps_rollup (and any descendants) from a sampler thread.
"""
import os
import subprocess
import tempfile
import threading
import time

from . import quiet

HUGE_FIELDS = ("AnonHugePages", "Shared_Hugetlb", "Private_Hugetlb")
TAIL_LINES = 20


def read_rollup(pid):
    """Return {field: kB} from /proc/<pid>/smaps_rollup, {} if unreadable."""
    out = {}
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                    out[parts[0][:-1]] = int(parts[1])
    except OSError:
        pass
    return out


def read_hwm_kb(pid):
    """VmHWM (peak RSS of the current image) in kB, 0 if unreadable."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def descendants(pid):
    """pid and all its descendants, via /proc/<pid>/task/*/children."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        try:
            for tid in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, tid)) as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return seen


class HugeSampler(threading.Thread):
    """Polls the process tree every `interval` s; keeps the peak sums (kB)."""

    def __init__(self, pid, interval=0.1):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.stop = threading.Event()
        self.peak_huge_kb = self.peak_anon_huge_kb = self.peak_hugetlb_kb = 0
        self.hwm_kb = 0
        self.peak_mem_kb = 0            # Rss + hugetlb, the tree's sum
        self.samples = 0

    def sample(self):
        anon = tlb = rss = 0
        for p in descendants(self.pid):
            r = read_rollup(p)
            anon += r.get("AnonHugePages", 0)
            tlb += r.get("Shared_Hugetlb", 0) + r.get("Private_Hugetlb", 0)
            rss += r.get("Rss", 0)
        self.samples += 1
        # VmHWM only grows within one image; keep the latest reading, not the
        # max, so a sample taken before exec (the runner's copy) is dropped.
        self.hwm_kb = read_hwm_kb(self.pid) or self.hwm_kb
        self.peak_anon_huge_kb = max(self.peak_anon_huge_kb, anon)
        self.peak_hugetlb_kb = max(self.peak_hugetlb_kb, tlb)
        self.peak_huge_kb = max(self.peak_huge_kb, anon + tlb)
        self.peak_mem_kb = max(self.peak_mem_kb, rss + tlb)

    def run(self):
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(self.interval)


def _read_all(f):
    f.seek(0)
    return f.read().decode("utf-8", "replace")


def run_measured(cmd, env=None, timeout=None, interval=0.1, driver=None):
    """Run cmd; return a dict of measurements plus captured stdout/stderr.

    driver: for a server host, called as driver(pid) once the process is
    started; it drives the server (a benchmark client, not measured: only
    the server's tree is) and makes it exit, and returns its own output,
    which is appended to stdout for the workload's parser.  If it raises,
    the server is killed and the error is in stderr."""
    driven, driver_error = "", ""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        snap = quiet.snapshot()
        start = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        except OSError as exc:
            return {"exit_code": 127, "wall_s": 0.0, "stdout": "", "stderr": str(exc),
                    "stderr_tail": [str(exc)], "timed_out": False}
        sampler = HugeSampler(proc.pid, interval)
        sampler.start()
        timer = None
        timed_out = []
        if timeout:
            def kill():
                timed_out.append(True)
                proc.kill()
            timer = threading.Timer(timeout, kill)
            timer.start()
        try:
            if driver:
                try:
                    driven = driver(proc.pid)
                except Exception as exc:  # the run fails, the suite goes on
                    driver_error = "driver: %s" % exc
                    proc.kill()
            _, status, ru = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise
        finally:
            wall = time.monotonic() - start
            sampler.stop.set()
            if timer:
                timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        sampler.join()
        stdout, stderr = _read_all(out) + driven, _read_all(err)
        if driver_error:
            stderr += "\n" + driver_error
    busy = quiet.others(snap, quiet.snapshot())
    return {
        "exit_code": proc.returncode,
        "timed_out": bool(timed_out),
        "driver_error": driver_error,
        "wall_s": wall,
        "user_s": ru.ru_utime,
        "sys_s": ru.ru_stime,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "others_cpus": busy["others_cpus"],
        "steal_cpus": busy["steal_cpus"],
        "load1": busy["load1"],
        "minflt": ru.ru_minflt,
        "majflt": ru.ru_majflt,
        "maxrss_mib": ru.ru_maxrss / 1024.0,
        # peak memory: ru_maxrss counts no hugetlb page, so a run whose
        # memory is (partly) on the pool reads lean; the sampled peak of
        # Rss + Hugetlb counts it (never below ru_maxrss: sampling misses
        # short peaks, wait4 does not)
        "peak_mem_mib": max(ru.ru_maxrss, sampler.peak_mem_kb) / 1024.0,
        "hwm_rss_mib": sampler.hwm_kb / 1024.0,
        "peak_huge_mib": sampler.peak_huge_kb / 1024.0,
        "peak_anon_huge_mib": sampler.peak_anon_huge_kb / 1024.0,
        "peak_hugetlb_mib": sampler.peak_hugetlb_kb / 1024.0,
        "smaps_samples": sampler.samples,
        "stdout": stdout,
        "stderr": stderr,
        "stderr_tail": stderr.splitlines()[-TAIL_LINES:],
    }
