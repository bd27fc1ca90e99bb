"""A compiler as a host, the many-small-blocks case: Debian's gcc compiling
duktape.c (3.7 MB, one file: the Duktape JavaScript engine as Debian ships
it in duktape-dev) with -c -ftime-report.  gcc's driver runs cc1 and as;
the configuration reaches both through the environment (LD_PRELOAD), and
wall, CPU and peak RSS cover the whole tree.  Metrics: cc1's own clocks
from -ftime-report (phase parsing, phase opt and generate, TOTAL; wall
seconds).  Quick compiles at -O0 (the front end and RTL expansion,
4 s here), full at -O2 (16 s)."""
import os
import re
import shutil

SOURCE = "/usr/share/duktape/duktape.c"
OPT = {"quick": "-O0", "full": "-O2"}
PHASE_RE = re.compile(r"^\s*(phase parsing|phase opt and generate|TOTAL)\s*:"
                      r"\s*[0-9.]+\s*(?:\(\s*\d+%\))?\s*[0-9.]+\s*(?:\(\s*\d+%\))?\s*([0-9.]+)", re.M)
LABELS = {"phase parsing": "parse", "phase opt and generate": "opt+gen", "TOTAL": "total"}


class GccDuktape:
    name = "gcc-duktape"
    main_metric = "gcc-duktape total"
    parse_stderr = True          # -ftime-report prints on stderr

    def __init__(self, quality):
        self.quality = quality
        self.gcc = shutil.which("gcc")

    def unavailable(self):
        if not self.gcc:
            return "gcc not installed"
        if not os.path.exists(SOURCE):
            return "%s missing (apt-get install duktape-dev)" % SOURCE
        return None

    def metrics(self):
        return ["%s %s" % (self.name, LABELS[k]) for k in LABELS]

    def command(self, run_tag, out_dir):
        d = os.path.join(out_dir, "objs")
        os.makedirs(d, exist_ok=True)
        return [self.gcc, OPT[self.quality], "-c", "-ftime-report", "-I" + os.path.dirname(SOURCE),
                SOURCE, "-o", os.path.join(d, "duktape-%s.o" % run_tag)]

    def hugetlb_pages(self):
        return {"quick": 128, "full": 192}[self.quality]

    def parse(self, stdout):
        metrics = {"%s %s" % (self.name, LABELS[k]): float(v) for k, v in PHASE_RE.findall(stdout)}
        missing = [k for k in self.metrics() if k not in metrics]
        if missing:
            raise ValueError("no -ftime-report line for " + ", ".join(missing))
        return metrics, {}
