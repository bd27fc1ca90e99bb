"""POV-Ray on Debian's povray-examples scenes, as a real host under
hugepolicy.  It allocates little, so it shows what the policy costs a host
that does not need huge pages.  Metrics: POV-Ray's own parse and trace
seconds ("Parse Time", "Trace Time" in its statistics)."""
import os
import re
import shutil

EXAMPLES = "/usr/share/doc/povray/examples"
TIME_RE = re.compile(r"^\s*(Parse|Trace) Time:.*\(([0-9.]+) seconds\)", re.M)
SIZE = {"quick": (320, 240), "full": (640, 480)}


class Povray:
    """One scene of povray-examples; `name` is povray-SCENE."""

    SCENES = {"landscape": "advanced/landscape.pov", "biscuit": "advanced/biscuit.pov"}

    def __init__(self, scene, quality):
        self.scene = scene
        self.name = "povray-" + scene
        self.main_metric = "%s trace" % self.name
        self.pov = os.path.join(EXAMPLES, self.SCENES[scene])
        self.quality = quality
        self.povray = shutil.which("povray")

    def unavailable(self):
        if not self.povray:
            return "povray not installed (apt-get install povray povray-examples)"
        if not os.path.exists(self.pov):
            return "%s missing (apt-get install povray-examples)" % self.pov
        return None

    def metrics(self):
        return ["%s parse" % self.name, "%s trace" % self.name]

    def command(self, run_tag, out_dir):
        # POV-Ray refuses an output path with '=' in it ("Problem with option
        # setting"), and a variant's tag has one (jemalloc-auto+promote=off)
        tag = re.sub(r"[^A-Za-z0-9._-]", "_", run_tag)
        img = os.path.join(out_dir, "images", "%s-%s.png" % (self.name, tag))
        os.makedirs(os.path.dirname(img), exist_ok=True)
        w, h = SIZE[self.quality]
        # -D: no display; +FN: PNG; +WT2: two render threads; +L: the scene's folder
        return [self.povray, "+I" + self.pov, "+L" + os.path.dirname(self.pov), "+O" + img,
                "+W%d" % w, "+H%d" % h, "-D", "+FN", "+WT%d" % (os.cpu_count() or 1)]

    parse_stderr = True         # POV-Ray prints its statistics on stderr

    def hugetlb_pages(self):
        return 64

    def parse(self, stdout):
        times = dict(TIME_RE.findall(stdout))
        if "Trace" not in times or "Parse" not in times:
            raise ValueError("no Parse/Trace Time in POV-Ray's output")
        return ({"%s parse" % self.name: float(times["Parse"]),
                 "%s trace" % self.name: float(times["Trace"])}, {})
