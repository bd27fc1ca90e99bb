"""Switch one sub-PMD THP size (mTHP, Linux >= 6.8) for the runs that ask.

`--mthp 64K` runs every configuration twice per round: as named, with
hugepages-64kB/enabled `never`, and as NAME+mthp64K with it `madvise`.  The
setting is system-wide, so the runner holds an flock on a lock file for the
whole suite (the one the test suite's THP-changing runs take), and the word
that was there is written back at the end, on every exit path the runner
has (an exception, Ctrl-C, SIGTERM turned into KeyboardInterrupt).
"""
import contextlib
import fcntl
import os

DIR = "/sys/kernel/mm/transparent_hugepage"


def parse_kb(text):
    """'64K', '64k', '64' -> 64 (KiB); ValueError for anything else."""
    t = text.strip().upper().rstrip("B").rstrip("I")
    t = t[:-1] if t.endswith("K") else t
    kb = int(t)
    if kb < 4 or kb & (kb - 1):
        raise ValueError("not a power of two of at least 4 KiB: %s" % text)
    return kb


def enabled_path(kb):
    return os.path.join(DIR, "hugepages-%dkB" % kb, "enabled")


def suffix(kb):
    return "+mthp%dK" % kb


def can_switch(kb):
    """None if this process can switch the size, else the reason it can't."""
    f = enabled_path(kb)
    if os.geteuid() != 0:
        return "not root: cannot write %s" % f
    if not os.path.exists(f):
        return "%s missing (kernel < 6.8, or no such size)" % f
    pmd = int(open(os.path.join(DIR, "hpage_pmd_size")).read())
    if kb * 1024 >= pmd:
        return "%d KiB is not below the PMD size (%d B)" % (kb, pmd)
    return None


def read(kb):
    text = open(enabled_path(kb)).read()
    return text[text.index("[") + 1:text.index("]")]


def write(kb, word):
    with open(enabled_path(kb), "w") as f:
        f.write(word + "\n")


@contextlib.contextmanager
def held(kb, lock_path):
    """The lock held and the size's word kept for the duration; written
    back at the end.  Yields the word that was there."""
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        was = read(kb)
        try:
            yield was
        finally:
            write(kb, was)


def set_for(kb, mode):
    """madvise for a +mthp configuration, never for the one it is against."""
    want = "madvise" if mode.endswith(suffix(kb)) else "never"
    if read(kb) != want:
        write(kb, want)
    return want


def table(runs, workloads, configs, kb):
    """Markdown: each CONFIG+mthpNK against CONFIG, run in the same rounds
    (paired ratio [bootstrap 95 % interval]) for the main metric, wall,
    CPU, peak memory and minor faults, and the 64 KiB folios the process
    held at exit (process.mthp.<kb>kB, median MiB: the report's, read back
    from pagemap); '' without such pairs."""
    from . import report, workloads as wlreg   # noqa: E402 (report imports nothing of this)
    tag = suffix(kb)
    pairs = [(c[:-len(tag)], c) for c in configs if c.endswith(tag) and c[:-len(tag)] in configs]
    if not pairs:
        return ""
    folio_key = "process.mthp.%dkB" % kb

    def folios(w, c):
        vals = sorted((r.get("hp_stats") or {}).get(folio_key) for r in runs
                      if r["workload"] == w and r["config"] == c and r["ok"]
                      and isinstance((r.get("hp_stats") or {}).get(folio_key), (int, float)))
        return "%.0f" % (vals[len(vals) // 2] / 2 ** 20) if vals else "–"

    head = ["workload", "configuration", "main metric", "wall", "CPU", "peak RSS+hugetlb", "minor faults",
            "%d KiB folios MiB (off / on)" % kb]
    rows = []
    for w in workloads:
        main = wlreg.main_metric(w)
        for off, on in pairs:
            rows.append([w.name, off] + [report.ci_text(runs, w.name, on, off, k)
                                         for k in (main, "wall_s", "cpu_s", "peak_mem_mib", "minflt")]
                        + ["%s / %s" % (folios(w.name, off), folios(w.name, on))])
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(r) + " |" for r in rows])
