#!/usr/bin/env python3
"""test_perf_resume.py BUILD_DIR REPO_DIR - perf/run.py --resume: a run
stopped after its first round (its partial.json cut back to round 1, with
a half-done round 2) goes on with round 2 only, run whole, and ends with both
rounds in results.json; a resume with other options is refused (exit 2).
Exit 0 ok, 1 failure."""
import json
import os
import subprocess
import sys
import tempfile

build, repo = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, failures  # noqa: E402


def runner(*extra):
    cmd = [sys.executable, os.path.join(repo, "perf", "run.py"), "--build", build, "--workloads", "churn",
           "--backends", "system", "--modes", "off,auto", "--repeat", "2", "--no-settle"] + list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    return r.returncode, r.stdout + r.stderr


with tempfile.TemporaryDirectory() as out:
    rc, text = runner("--out", out)
    check(rc == 0, "a 2-round run ends (rc %d)" % rc)
    part = os.path.join(out, "partial.json")
    check(os.path.isfile(part), "it leaves partial.json")
    with open(part) as f:
        doc = json.load(f)
    rounds = sorted({r["round"] for r in doc["runs"]})
    check(rounds == [1, 2], "partial.json holds both rounds (%s)" % rounds)
    # as if stopped during round 2: round 1 whole, one run of round 2
    r2 = [r for r in doc["runs"] if r["round"] == 2]
    doc["runs"] = [r for r in doc["runs"] if r["round"] == 1] + r2[:1]
    kept = {(r["config"], r["wall_s"]) for r in doc["runs"] if r["round"] == 1}
    with open(part, "w") as f:
        json.dump(doc, f)
    os.unlink(os.path.join(out, "results.json"))
    rc, text = runner("--resume", out)
    print(text[-2000:])
    check(rc == 0, "the resumed run ends (rc %d)" % rc)
    check("resuming: 1 complete rounds" in text, "it keeps the one complete round")
    ran = [l for l in text.splitlines() if l.startswith("[") and " churn r" in l]
    check(len(ran) == 2 and all(" r2/2 " in l for l in ran), "it runs round 2 whole, nothing else: %s" % ran)
    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    got = sorted((r["round"], r["config"]) for r in res["runs"])
    check(got == [(1, "system/auto"), (1, "system/off"), (2, "system/auto"), (2, "system/off")],
          "results.json has each configuration once per round: %s" % got)
    check(kept <= {(r["config"], r["wall_s"]) for r in res["runs"]}, "round 1's runs are the ones kept")
    rc, text = runner("--resume", out, "--modes", "off")
    check(rc == 2 and "differs from this run in modes" in text, "other options are refused: %s" % text.strip()[-300:])

print("test_perf_resume: %s" % ("FAIL (%d)" % len(failures) if failures else "ok"))
sys.exit(1 if failures else 0)
