"""Workload definitions: how to start each one and read its own timings.

A workload knows its command line, how many 2 MiB hugetlb pages it needs
when run in hugetlb mode, and how to turn its stdout into
{metric label: seconds} (plus informational values such as triangle count).
"""
import os
import re
import shutil

from .compiler import GccDuktape
from .povray import Povray
from .redis import Redis
from .render import Render
from .synthetic import CLASSES as SYNTHETIC

FRESH_RE = re.compile(r"^fresh-buffer size_mib=(\d+) iters=(\d+) seconds=([0-9.]+) "
                      r"cold_s=([0-9.]+) warm_s=([0-9.]+)$", re.M)
BLENDER_RE = re.compile(r"^HP_([A-Z_]+)=(\S+)$", re.M)


class FreshBuffer:
    """malloc + fill + free at each size: the first round is cold (every page a
    first touch), the median of the others warm (what the allocator reuses)."""
    name = "fresh-buffer"
    main_metric = "wall_s"
    SIZES = (1, 4, 16, 32, 33, 64, 256)
    ITERS = {"quick": 8, "full": 12}

    def __init__(self, build_dir, quality):
        self.exe = os.path.join(build_dir, "perf", "fresh_buffer")
        self.quality = quality

    def unavailable(self):
        if not os.access(self.exe, os.X_OK):
            return "%s not built (cmake --build <build> --target fresh_buffer)" % self.exe
        return None

    def metrics(self):
        return ["fresh-buffer %d MiB %s" % (s, k) for s in self.SIZES for k in ("cold", "warm")]

    def command(self, run_tag, out_dir):
        sizes = ",".join(str(s) for s in self.SIZES)
        return [self.exe, "--sizes", sizes, "--iters", str(self.ITERS[self.quality])]

    def hugetlb_pages(self):
        # biggest buffer, plus slack for the allocator's own rounding/metadata
        return max(self.SIZES) // 2 + 64

    def parse(self, stdout):
        metrics = {}
        for size, _, _, cold, warm in FRESH_RE.findall(stdout):
            metrics["fresh-buffer %s MiB cold" % size] = float(cold)
            metrics["fresh-buffer %s MiB warm" % size] = float(warm)
        missing = [k for k in self.metrics() if k not in metrics]
        if missing:
            raise ValueError("no timing for " + ", ".join(missing))
        return metrics, {}


class BlenderCycles:
    """Debian's Blender rendering with Cycles on the CPU, one scene built from
    a real mesh that Debian ships (perf/blender/cycles_scene.py)."""
    # scene: (mesh, package, subdivision levels per quality, live copies
    # per quality: 0 applies the subdivision at set-up, N keeps it as a live
    # modifier stack - subdivision, then an array of N - that the render
    # evaluates, a production scene's geometry generated at load)
    SCENES = {
        "bunny": ("/usr/share/glmark2/models/bunny.obj", "glmark2-data", {"quick": 1, "full": 2},
                  {"quick": 0, "full": 0}),
        "robot": ("/usr/share/cura/resources/meshes/UltimakerRobot_support.stl", "cura",
                  {"quick": 0, "full": 1}, {"quick": 0, "full": 0}),
        # 3.3 M triangles, ~1.4 GB peak RSS at full (the size where whole-heap
        # THP's gain or loss shows); quick 0.8 M
        "big": ("/usr/share/glmark2/models/bunny.obj", "glmark2-data", {"quick": 1, "full": 2},
                {"quick": 2, "full": 2}),
    }
    POOL_PAGES = {"quick": 512, "full": 1024}  # peak RSS ~0.4 / ~0.9 GiB
    BIG_POOL_PAGES = {"quick": 512, "full": 800}   # big: ~1.6 GiB at full

    def __init__(self, scene, repo_root, quality, blender=None):
        self.scene = scene
        self.name = "blender-" + scene
        self.main_metric = "%s render" % self.name
        self.mesh, self.package, self.levels, self.live = self.SCENES[scene]
        self.blender = blender or shutil.which("blender")
        self.script = os.path.join(repo_root, "perf", "blender", "cycles_scene.py")
        self.quality = quality

    def unavailable(self):
        if not self.blender:
            return "blender not found on PATH (apt-get install blender)"
        if not os.path.exists(self.mesh):
            return "%s missing (apt-get install %s)" % (self.mesh, self.package)
        return None

    def metrics(self):
        return ["%s setup" % self.name, "%s render" % self.name]

    def command(self, run_tag, out_dir):
        self.image = os.path.join(out_dir, "images", "%s-%s.png" % (self.name, run_tag))
        os.makedirs(os.path.dirname(self.image), exist_ok=True)
        if os.path.exists(self.image):
            os.unlink(self.image)  # so a stale image is never checked
        return [self.blender, "-b", "--factory-startup", "--python", self.script, "--",
                "--quality", self.quality, "--out", self.image, "--mesh", self.mesh,
                "--levels", str(self.levels[self.quality]), "--live", str(self.live[self.quality])]

    def hugetlb_pages(self):
        return (self.BIG_POOL_PAGES if self.scene == "big" else self.POOL_PAGES)[self.quality]

    def parse(self, stdout):
        values = dict(BLENDER_RE.findall(stdout))
        try:
            metrics = {"%s setup" % self.name: float(values["SETUP_SECONDS"]),
                       "%s render" % self.name: float(values["RENDER_SECONDS"])}
            info = {"triangles": int(values["TRIANGLES"])}
        except (KeyError, ValueError) as exc:
            raise ValueError("missing/bad HP_* line: %s" % exc)
        if "IMAGE_MEAN" in values:  # same scene + seed: configurations should agree
            info["image_mean"] = float(values["IMAGE_MEAN"])
        return metrics, info


# name -> factory(repo_root, build_dir, quality, blender); groups expand below
def _registry():
    reg = {FreshBuffer.name: lambda r, b, q, bl: FreshBuffer(b, q),
           Render.name: lambda r, b, q, bl: Render(b, q)}
    for cls in SYNTHETIC:
        reg[cls.name] = (lambda c: lambda r, b, q, bl: c(b, q))(cls)
    for scene in BlenderCycles.SCENES:
        reg["blender-" + scene] = (lambda s: lambda r, b, q, bl: BlenderCycles(s, r, q, bl))(scene)
    for scene in Povray.SCENES:
        reg["povray-" + scene] = (lambda s: lambda r, b, q, bl: Povray(s, q))(scene)
    reg[Redis.name] = lambda r, b, q, bl: Redis(q)
    reg[GccDuktape.name] = lambda r, b, q, bl: GccDuktape(q)
    return reg


REGISTRY = _registry()
GROUPS = {
    "blender-cycles": ["blender-" + s for s in BlenderCycles.SCENES],
    "povray": ["povray-" + s for s in Povray.SCENES],
    "synthetic": ["fresh-buffer"] + [c.name for c in SYNTHETIC],
    "hosts": [Redis.name, GccDuktape.name],
    "all": list(REGISTRY),
}
NAMES = list(REGISTRY) + list(GROUPS)


def expand(names):
    """Workload names with groups expanded, in order, without repeats."""
    out = []
    for n in names:
        for m in GROUPS.get(n, [n]):
            if m not in out:
                out.append(m)
    return out


def main_metric(wl):
    """The metric a workload's targets are judged on (wall time unless named)."""
    return getattr(wl, "main_metric", "wall_s")


def make(name, repo_root, build_dir, quality, blender=None):
    if name not in REGISTRY:
        raise ValueError("unknown workload %r (%s)" % (name, ", ".join(NAMES)))
    return REGISTRY[name](repo_root, build_dir, quality, blender)
