"""A run that spans sessions: a checkpoint after every round, and --resume.

Every round of a workload runs each configuration once, interleaved, so a
round is a self-contained paired sample: a run stopped between rounds and
resumed later (same build, same options) gives the same kind of result as
one that never stopped.  After each round the runs so far go to
OUT/partial.json; `--resume DIR` keeps the complete rounds found there (or in
DIR/results.json), runs the rest, and refuses when the build or the options
that decide what is measured differ.  An incomplete round is run again
whole, so no round mixes two sittings.
"""
import hashlib
import json
import os

# options that change what a run measures; the rest (--out, --timeout...) may differ
SAME = ("workloads", "backends", "modes", "repeat", "max_repeat", "ci_width", "quality",
        "settle", "drop_caches", "order", "plain", "hugetlb_pages", "interval", "pool", "auto_variant")


def build_id(args):
    """sha256 of the CLI and the library the runs use."""
    h = hashlib.sha256()
    lib = os.path.join(args.build, "libhugepolicy.so")
    for path in (args.hugepolicy, lib):
        try:
            with open(os.path.realpath(path), "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"missing:" + path.encode())
    return h.hexdigest()


def identity(args):
    ident = {k: getattr(args, k, None) for k in SAME}
    ident["build_sha256"] = build_id(args)
    return ident


def checkpoint(out_dir, ident, facts, runs, started):
    path = os.path.join(out_dir, "partial.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"identity": ident, "machine": facts, "runs": runs, "started": started}, f)
    os.replace(tmp, path)


def load(src, ident, wanted):
    """(runs of complete rounds, {(workload, round)}, first start time) from a
    stopped run in src - a round is complete when every configuration in
    wanted[workload] ran ok in it - or ValueError saying why it cannot be
    resumed."""
    for name in ("partial.json", "results.json"):
        path = os.path.join(src, name)
        if os.path.isfile(path):
            break
    else:
        raise ValueError("%s has no partial.json or results.json" % src)
    with open(path) as f:
        doc = json.load(f)
    was = doc.get("identity") or (doc.get("config") or {}).get("identity")
    if not isinstance(was, dict):
        raise ValueError("%s was not written by a run that can be resumed" % path)
    diff = [k for k in ident if was.get(k) != ident[k]]
    if diff:
        raise ValueError("%s differs from this run in %s" % (path, ", ".join(
            "%s (%r, now %r)" % (k, was.get(k), ident[k]) if k != "build_sha256" else
            "the build (hugepolicy CLI or library changed)" for k in diff)))
    runs = doc.get("runs") or []
    groups = {}
    for r in runs:
        groups.setdefault((r["workload"], r["round"]), []).append(r)
    complete = {}
    for key, rs in groups.items():
        done = {r["config"] for r in rs if r.get("ok")}
        want = wanted.get(key[0], set())
        if want and done == want and len(rs) == len(want):
            complete[key] = rs
    kept = [r for key in sorted(complete) for r in complete[key]]
    return kept, set(complete), doc.get("started") or (doc.get("config") or {}).get("started")
