"""Workload definitions: how to start each one and read its own timings.

A workload knows its command line, how many 2 MiB hugetlb pages it needs
when run in hugetlb mode, and how to turn its stdout into
{metric label: seconds} (plus informational values such as triangle count).
"""
import os
import re
import shutil

FRESH_RE = re.compile(r"^fresh-buffer size_mib=(\d+) iters=(\d+) seconds=([0-9.]+)$", re.M)
BLENDER_RE = re.compile(r"^HP_([A-Z_]+)=(\S+)$", re.M)


class FreshBuffer:
    name = "fresh-buffer"
    SIZES = (4, 32, 64, 256)
    ITERS = {"quick": 20, "full": 100}

    def __init__(self, build_dir, quality):
        self.exe = os.path.join(build_dir, "perf", "fresh_buffer")
        self.quality = quality

    def unavailable(self):
        if not os.access(self.exe, os.X_OK):
            return "%s not built (cmake --build <build> --target fresh_buffer)" % self.exe
        return None

    def metrics(self):
        return ["fresh-buffer %d MiB" % s for s in self.SIZES]

    def command(self, run_tag, out_dir):
        sizes = ",".join(str(s) for s in self.SIZES)
        return [self.exe, "--sizes", sizes, "--iters", str(self.ITERS[self.quality])]

    def hugetlb_pages(self):
        # biggest buffer, plus slack for the allocator's own rounding/metadata
        return max(self.SIZES) // 2 + 64

    def parse(self, stdout):
        metrics = {"fresh-buffer %s MiB" % m[0]: float(m[2]) for m in FRESH_RE.findall(stdout)}
        missing = [k for k in self.metrics() if k not in metrics]
        if missing:
            raise ValueError("no timing for " + ", ".join(missing))
        return metrics, {}


class BlenderCycles:
    name = "blender-cycles"
    MESH = "/usr/share/glmark2/models/bunny.obj"
    POOL_PAGES = {"quick": 512, "full": 1024}  # peak RSS ~0.4 / ~0.9 GiB

    def __init__(self, repo_root, quality, blender=None):
        self.blender = blender or shutil.which("blender")
        self.script = os.path.join(repo_root, "perf", "blender", "cycles_scene.py")
        self.quality = quality

    def unavailable(self):
        if not self.blender:
            return "blender not found on PATH (apt-get install blender)"
        if not os.path.exists(self.MESH):
            return "%s missing (apt-get install glmark2-data)" % self.MESH
        return None

    def metrics(self):
        return ["blender setup", "blender render"]

    def command(self, run_tag, out_dir):
        self.image = os.path.join(out_dir, "images", "blender-%s.png" % run_tag)
        os.makedirs(os.path.dirname(self.image), exist_ok=True)
        if os.path.exists(self.image):
            os.unlink(self.image)  # so a stale image is never checked
        return [self.blender, "-b", "--factory-startup", "--python", self.script, "--",
                "--quality", self.quality, "--out", self.image, "--mesh", self.MESH]

    def hugetlb_pages(self):
        return self.POOL_PAGES[self.quality]

    def parse(self, stdout):
        values = dict(BLENDER_RE.findall(stdout))
        try:
            metrics = {"blender setup": float(values["SETUP_SECONDS"]),
                       "blender render": float(values["RENDER_SECONDS"])}
            info = {"triangles": int(values["TRIANGLES"])}
        except (KeyError, ValueError) as exc:
            raise ValueError("missing/bad HP_* line: %s" % exc)
        if "IMAGE_MEAN" in values:  # same scene + seed: configurations should agree
            info["image_mean"] = float(values["IMAGE_MEAN"])
        return metrics, info


def make(name, repo_root, build_dir, quality, blender=None):
    if name == FreshBuffer.name:
        return FreshBuffer(build_dir, quality)
    if name == BlenderCycles.name:
        return BlenderCycles(repo_root, quality, blender)
    raise ValueError("unknown workload %r (fresh-buffer, blender-cycles)" % name)
