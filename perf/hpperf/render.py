"""The `render` workload: perf/workloads/render, a small Embree path tracer.

One process renders every scene whose mesh is installed (quick or full
sizes), one after another, and prints per scene
  render scene=NAME ... load_s=… bvh_s=… render_s=… total_s=… ...
(see perf/workloads/render/main.c).  The scene table lives in the C
program; this class reads it from `render --list`.
"""
import os
import re
import subprocess
import sys

LINE_RE = re.compile(r"^render scene=(\S+) (.*)$", re.M)
LIST_RE = re.compile(r"^scene (\S+) package=(\S+) path=(\S+).* present=(yes|no)$", re.M)
DEVICE_RE = re.compile(r"^render-device embree_config=hugepages=([01])", re.M)
METRICS = (("load", "load_s"), ("bvh", "bvh_s"), ("render", "render_s"), ("total", "total_s"))


class Render:
    name = "render"
    # 2 MiB pages for hugetlb mode: peak RSS ~0.33 GiB quick, ~1.2 GiB full
    # (largest scene: engine, 7.8 M triangles in the BVH), plus slack.
    POOL_PAGES = {"quick": 320, "full": 1024}

    def __init__(self, build_dir, quality):
        self.exe = os.path.join(build_dir, "perf", "render")
        self.quality = quality
        self._scenes = None  # [(name, package, present)] from `render --list`

    def _list(self):
        if self._scenes is None:
            out = subprocess.run([self.exe, "--list"], capture_output=True, text=True,
                                 timeout=60, check=True).stdout
            self._scenes = [(m[0], m[1], m[3] == "yes") for m in LIST_RE.findall(out)]
        return self._scenes

    def scenes(self):
        """Names of the scenes whose mesh is installed here, in table order."""
        return [n for n, _, present in self._list() if present]

    def unavailable(self):
        if not os.access(self.exe, os.X_OK):
            return ("%s not built (needs libembree-dev libassimp-dev libpng-dev; "
                    "cmake --build <build> --target render)" % self.exe)
        try:
            scenes = self._list()
        except (OSError, subprocess.SubprocessError) as exc:
            return "%s --list failed: %s" % (self.exe, exc)
        missing = sorted({pkg for _, pkg, present in scenes if not present})
        if not self.scenes():
            return "no scene mesh installed (apt-get install %s)" % " ".join(missing)
        if missing:
            print("render: skipping scenes %s (apt-get install %s)" % (
                ",".join(n for n, _, p in scenes if not p), " ".join(missing)),
                file=sys.stderr, flush=True)
        return None

    def metrics(self):
        return ["render %s %s" % (s, m) for s in self.scenes() for m, _ in METRICS]

    def command(self, run_tag, out_dir):
        images = os.path.join(out_dir, "images")
        os.makedirs(images, exist_ok=True)
        for s in self.scenes():  # so a stale image is never checked
            stale = os.path.join(images, "render-%s-%s-%s.png" % (s, self.quality, run_tag))
            if os.path.exists(stale):
                os.unlink(stale)
        cmd = [self.exe, "--quality", self.quality, "--scene", ",".join(self.scenes()),
               "--out", images, "--tag", run_tag]
        # Through hugepolicy the host asks hugepolicy_pages(); a native
        # baseline has no hugepolicy to ask, so its mode is passed on
        # (run tag BACKEND-MODE): off = no huge pages for Embree either.
        backend, mode = run_tag.rsplit("-", 1)
        if backend.startswith("native-"):
            cmd += ["--embree-hugepages", "0" if mode == "off" else "1"]
        return cmd

    def hugetlb_pages(self):
        return self.POOL_PAGES[self.quality]

    def parse(self, stdout):
        metrics, info = {}, {}
        for scene, rest in LINE_RE.findall(stdout):
            fields = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
            try:
                for label, key in METRICS:
                    metrics["render %s %s" % (scene, label)] = float(fields[key])
                info["render %s triangles" % scene] = int(fields["triangles"])
                info["render %s scene_triangles" % scene] = int(fields["scene_triangles"])
                info["render %s mean" % scene] = float(fields["mean"])
            except (KeyError, ValueError) as exc:
                raise ValueError("bad render line for %s: %s" % (scene, exc))
        missing = [k for k in self.metrics() if k not in metrics]
        if missing:
            raise ValueError("no timing for " + ", ".join(missing))
        dev = DEVICE_RE.search(stdout)
        if dev:
            info["embree_hugepages"] = int(dev.group(1))
        return metrics, info
