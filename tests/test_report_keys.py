#!/usr/bin/env python3
"""test_report_keys.py WHAT BUILD SRC [BACKEND] - the report's keys.

  backend B  under backend B, in every page mode and with the settings that
             bring out the keys that only appear sometimes, the text and
             the JSON report carry the same keys in the same order, no key
             twice; every key is an entry of hugepolicy(7)'s THE REPORT
             (the rendered page in BUILD/man), and every value has the type
             that row gives (number, signed, string, boolean; null/unknown
             only for numbers); every option of policy/options.c's table
             is an opt.* key
  coverage   every such entry is a key of some report of the three
             backends: the page documents no key the library lacks (run
             with 24 pages in the hugetlb pool, hugetlb_pool.sh: mimalloc
             reserves 32 MiB, held to exit, for the per-pool keys; and
             hugepages-64kB madvise, mthp_enabled.sh, for the mTHP keys,
             which a kernel without sizes below the PMD size cannot show)
"""
import json
import os
import re
import subprocess
import sys

PREFIX = "hugepolicy-stats: "
# settings that bring out the keys present only sometimes
RUNS = [
    {"HUGEPOLICY_PAGES": "auto"},
    {"HUGEPOLICY_PAGES": "off"},
    {"HUGEPOLICY_PAGES": "thp"},
    {"HUGEPOLICY_PAGES": "hugetlb", "HUGEPOLICY_RESERVE": "32M"},
    {"HUGEPOLICY_PAGES": "auto", "HUGEPOLICY_FAULT_COST": "2,200", "HUGEPOLICY_RESERVE": "2M",
     "MALLOC_CONF": "narenas:2", "MIMALLOC_LARGE_OS_PAGES": "0", "MIMALLOC_RESERVE_HUGE_OS_PAGES": "1"},
]
# jemalloc creates its arenas at start-up under an address-space limit
LIMITED = "ulimit -v 8000000 && exec /bin/true"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def man_rows(build):
    """{key: type} from the report's entries in the rendered hugepolicy(7)"""
    roff = open(os.path.join(build, "man/hugepolicy.7")).read()
    m = re.search(r'^\.SH "?THE REPORT"?\n(.*?)^\.SH ', roff, re.M | re.S)
    if not m:
        fail("hugepolicy(7) has no THE REPORT section")
    rows = {}
    # an entry: "\fBKEY\fR (TYPE)", then ".RS 4" and its text
    for key, typ in re.findall(r"^\\fB([a-z][^ ]*)\\fR \((\w+)\)\n\.RS 4$", m.group(1), re.M):
        key = key.replace("\\&", "")
        if key in rows:
            fail("hugepolicy(7) documents %s twice" % key)
        rows[key] = typ
    if len(rows) < 20:
        fail("hugepolicy(7)'s THE REPORT has %d key entries" % len(rows))
    bad = {k: t for k, t in rows.items() if t not in ("number", "signed", "string", "boolean")}
    if bad:
        fail("hugepolicy(7) gives keys a type that is none of number, signed, string, boolean: %s" % bad)
    return rows


def row_of(rows, key):
    """the documented row a key is an instance of (<size>: one word)"""
    if key in rows:
        return key
    for row in rows:
        if "<size>" in row and re.fullmatch(re.escape(row).replace(re.escape("<size>"), r"[0-9A-Za-z]+"), key):
            return row
    return None


MTHP_KEYS = ("stats.mthp.", "process.mthp.", "system.mthp.")
THP_DIR = "/sys/kernel/mm/transparent_hugepage"


def kernel_has_mthp():
    """a THP size below the PMD size exists here (Linux >= 6.8)"""
    try:
        pmd = int(open(os.path.join(THP_DIR, "hpage_pmd_size")).read())
        names = os.listdir(THP_DIR)
    except (OSError, ValueError):
        return False
    return any(re.fullmatch(r"hugepages-(\d+)kB", n) and int(n[10:-2]) * 1024 < pmd for n in names)


def report(build, backend, env, fmt):
    """(keys in order, {key: value}) of one report of /bin/true under run"""
    e = dict(os.environ)
    for k in list(e):
        if k.startswith(("HUGEPOLICY_", "MALLOC_CONF", "MIMALLOC_")):
            del e[k]
    e.update(env, HUGEPOLICY_BACKEND=backend)
    limited = e.pop("LIMITED", None)
    cmd = ["sh", "-c", LIMITED] if limited else ["/bin/true"]
    p = subprocess.run([os.path.join(build, "hugepolicy"), "run", "--stats", fmt, "--"] + cmd,
                       env=e, stderr=subprocess.PIPE, text=True, errors="replace")
    if p.returncode != 0:
        fail("%s %s %s exited %d: %s" % (backend, env, fmt, p.returncode, p.stderr))
    lines = p.stderr.splitlines()
    if fmt == "json":
        js = [l for l in lines if l.startswith(PREFIX)]
        if len(js) != 1:
            fail("%s %s: %d JSON reports: %s" % (backend, env, len(js), p.stderr))
        pairs = json.loads(js[0][len(PREFIX):], object_pairs_hook=lambda kv: kv)
        keys = [k for k, _ in pairs]
        return keys, dict(pairs)
    head = [i for i, l in enumerate(lines) if re.fullmatch(r"hugepolicy\[true \d+\]: report", l)]
    if len(head) != 1:
        fail("%s %s: %d text report headers: %s" % (backend, env, len(head), p.stderr))
    keys, values = [], {}
    for l in lines[head[0] + 1:]:
        m = re.fullmatch(r"  ([a-z][A-Za-z0-9_.]*)(?: +(.*))?", l)
        if not m:
            fail("%s %s: a text report line that is not '  key value': %r" % (backend, env, l))
        keys.append(m.group(1))
        values[m.group(1)] = m.group(2) or ""
    return keys, values


def check_types(rows, backend, env, fmt, values):
    for key, v in values.items():
        row = row_of(rows, key)
        if row is None:
            fail("%s %s: the %s report's key %s is not an entry of hugepolicy(7)'s THE REPORT" % (backend, env, fmt, key))
        t = rows[row]
        if fmt == "json":
            ok = {"number": lambda: v is None or (type(v) is int and v >= 0),
                  "signed": lambda: type(v) is int,
                  "string": lambda: type(v) is str,
                  "boolean": lambda: type(v) is bool}[t]()
        else:
            ok = {"number": lambda: re.fullmatch(r"[0-9]+|unknown", v),
                  "signed": lambda: re.fullmatch(r"-?[0-9]+", v),
                  "string": lambda: True,
                  "boolean": lambda: v in ("true", "false")}[t]()
        if not ok:
            fail("%s %s: %s report: %s is %r, not a %s as hugepolicy(7) says" % (backend, env, fmt, key, v, t))


def options(src):
    text = open(os.path.join(src, "policy/options.c")).read()
    names = re.findall(r'^\t\[HP_OPT_[A-Z_]+\] = \{ "([a-z_]+)", "HUGEPOLICY_', text, re.M)
    if len(names) < 10:
        fail("no option rows found in policy/options.c")
    return names


def runs(backend):
    out = [dict(r) for r in RUNS]
    if backend == "jemalloc":
        out.append({"LIMITED": "1"})
    return out


def check_backend(build, src, backend, rows):
    seen = set()
    for env in runs(backend):
        tk, tv = report(build, backend, env, "text")
        jk, jv = report(build, backend, env, "json")
        for fmt, keys in (("text", tk), ("json", jk)):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            if dup:
                fail("%s %s: the %s report has %s more than once" % (backend, env, fmt, dup))
        if tk != jk:
            fail("%s %s: the text and JSON reports differ in keys or order:\n  only text: %s\n  only JSON: %s"
                 "\n  text: %s\n  JSON: %s" % (backend, env, sorted(set(tk) - set(jk)), sorted(set(jk) - set(tk)),
                                                tk, jk))
        check_types(rows, backend, env, "text", tv)
        check_types(rows, backend, env, "json", jv)
        if jv["plan.backend"] != backend or tv["plan.backend"] != backend:
            fail("%s %s: plan.backend is %s / %s" % (backend, env, jv["plan.backend"], tv["plan.backend"]))
        for name in options(src):
            if "opt." + name not in jv:
                fail("%s: option %s of policy/options.c has no opt.%s key" % (backend, name, name))
        seen |= set(jk)
    return seen


def main():
    what, build, src = sys.argv[1:4]
    rows = man_rows(build)
    if what == "backend":
        backend = sys.argv[4]
        seen = check_backend(build, src, backend, rows)
        print("ok: %s: %d runs, text and JSON with the same %d keys in all, each in hugepolicy(7) with its type"
              % (backend, 2 * len(runs(backend)), len(seen)))
    elif what == "coverage":
        seen = set()
        for b in ("system", "jemalloc", "mimalloc"):
            seen |= check_backend(build, src, b, rows)
        missing = sorted(set(rows) - {row_of(rows, k) for k in seen})
        excused = [k for k in missing if k.startswith(MTHP_KEYS)] if not kernel_has_mthp() else []
        if excused:
            print("note: this kernel has no THP size below the PMD size: not shown: %s" % excused)
            missing = [k for k in missing if k not in excused]
        if missing:
            fail("hugepolicy(7) documents keys no report of any backend has: %s" % missing)
        print("ok: every one of hugepolicy(7)'s %d report keys is in some report" % len(rows))
    else:
        fail("unknown check " + what)


main()
