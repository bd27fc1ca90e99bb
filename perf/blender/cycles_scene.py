"""Blender 3.4 Cycles workload for the hugepolicy perf suite.

Run:
  blender -b --factory-startup --python perf/blender/cycles_scene.py -- \
      --quality quick|full --out /tmp/x.png [--mesh PATH]

Builds a scene from a real mesh (glmark2's Stanford bunny), subdivides it
(quick ~0.4 M triangles, full ~1.7 M), adds a ground plane, a light and a
camera, renders one frame with Cycles on the CPU (denoising off, fixed
samples, all cores) and writes the image.  Prints, on their own lines:
  HP_SETUP_SECONDS=<float>   import + subdivide + scene build
  HP_RENDER_SECONDS=<float>  the render call (includes Cycles BVH build)
  HP_TRIANGLES=<int>         triangles in the scene after subdivision
  HP_IMAGE_MEAN/HP_IMAGE_STD mean and spread of the written RGB values
It exits 1 if anything fails, including a blank (flat) image.
"""
import argparse
import array
import math
import os
import sys
import time

import bpy
from mathutils import Vector

DEFAULT_MESH = "/usr/share/glmark2/models/bunny.obj"

# quality -> subdivision levels, samples, resolution (x, y)
QUALITY = {
    "quick": {"levels": 1, "samples": 16, "res": (480, 360)},
    "full": {"levels": 2, "samples": 8, "res": (640, 480)},
}


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="cycles_scene.py")
    p.add_argument("--quality", choices=sorted(QUALITY), default="quick")
    p.add_argument("--out", default="/tmp/hugepolicy_cycles.png")
    p.add_argument("--mesh", default=DEFAULT_MESH)
    p.add_argument("--levels", type=int, help="subdivision levels (default: per quality)")
    p.add_argument("--live", type=int, default=0, metavar="COPIES",
                   help="keep the geometry as a live modifier stack (subdivision, then an array of "
                        "COPIES), evaluated when the render starts, instead of applied at set-up")
    return p.parse_args(argv)


def clear_scene():
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj, do_unlink=True)
    for mesh in list(bpy.data.meshes):
        bpy.data.meshes.remove(mesh)


def import_mesh(path):
    """Import OBJ, STL or glTF with Blender's own importers; join every mesh
    object it brought in into one object, with transforms applied."""
    before = set(bpy.data.objects)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".obj":
        if hasattr(bpy.ops.wm, "obj_import"):  # C++ importer, Blender >= 3.2
            bpy.ops.wm.obj_import(filepath=path)
        else:  # legacy Python add-on importer
            bpy.ops.import_scene.obj(filepath=path)
    elif ext == ".stl":
        bpy.ops.import_mesh.stl(filepath=path)
    elif ext in (".glb", ".gltf"):
        bpy.ops.import_scene.gltf(filepath=path)
    else:
        raise RuntimeError("no importer for %s" % path)
    new = [o for o in bpy.data.objects if o not in before and o.type == "MESH"]
    if not new:
        raise RuntimeError("no mesh imported from " + path)
    bpy.ops.object.select_all(action="DESELECT")
    for o in new:
        o.select_set(True)
    bpy.context.view_layer.objects.active = new[0]
    bpy.ops.object.parent_clear(type="CLEAR_KEEP_TRANSFORM")   # glTF parents meshes to empties
    bpy.ops.object.transform_apply(location=True, rotation=True, scale=True)
    if len(new) > 1:
        bpy.ops.object.join()
    return bpy.context.view_layer.objects.active


def subdivide(obj, levels, live=0):
    if levels <= 0 and not live:
        return
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    mod = obj.modifiers.new("subsurf", "SUBSURF")
    mod.levels = levels
    mod.render_levels = levels
    # Quality 3 with limit-surface evaluation took ~30 s and 4 GB for level 1
    # here (OpenSubdiv patch evaluation); plain Catmull-Clark refinement is
    # ~1 s (level 1) / ~3 s (level 2) and gives the same topology.
    mod.quality = 1
    mod.use_limit_surface = False
    for poly in obj.data.polygons:
        poly.use_smooth = True
    if live:
        # geometry generated at load, as a production scene's: the render's
        # depsgraph evaluates the stack into fresh meshes on the heap
        arr = obj.modifiers.new("array", "ARRAY")
        arr.count = live
        arr.relative_offset_displace = (1.02, 0.0, 0.0)
        return
    bpy.ops.object.modifier_apply(modifier=mod.name)


def material(name, color, roughness):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*color, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    return mat


def world_bounds(obj):
    corners = [obj.matrix_world @ Vector(c) for c in obj.bound_box]
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    return lo, hi


def look_at(obj, target):
    direction = target - obj.location
    obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()


def build_scene(bunny):
    scene = bpy.context.scene
    bunny.data.materials.append(material("bunny", (0.8, 0.55, 0.35), 0.35))
    lo, hi = world_bounds(bunny)
    center = (lo + hi) / 2
    size = max(hi - lo)

    bpy.ops.mesh.primitive_plane_add(size=size * 20, location=(center.x, center.y, lo.z))
    bpy.context.active_object.data.materials.append(material("ground", (0.6, 0.6, 0.62), 0.8))

    light_data = bpy.data.lights.new("key", "AREA")
    light_data.energy = 120.0 * size * size
    light_data.size = size
    light = bpy.data.objects.new("key", light_data)
    light.location = center + Vector((size * 1.2, -size * 1.0, size * 1.8))
    scene.collection.objects.link(light)
    look_at(light, center)

    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    cam.location = center + Vector((size * 0.5, -size * 2.6, size * 0.8))
    scene.collection.objects.link(cam)
    look_at(cam, center)
    scene.camera = cam

    world = scene.world or bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.05, 0.06, 0.08, 1.0)


def configure_render(out, q):
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    cyc = scene.cycles
    cyc.device = "CPU"
    cyc.samples = q["samples"]
    cyc.use_adaptive_sampling = False
    cyc.use_denoising = False
    cyc.use_preview_denoising = False
    cyc.seed = 1
    scene.render.resolution_x, scene.render.resolution_y = q["res"]
    scene.render.resolution_percentage = 100
    scene.render.threads_mode = "FIXED"
    scene.render.threads = len(os.sched_getaffinity(0))
    scene.render.image_settings.file_format = "PNG"
    scene.render.filepath = out


def count_triangles(obj):
    """Triangles of the evaluated object: a live modifier stack counts."""
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    mesh.calc_loop_triangles()
    n = len(mesh.loop_triangles)
    evaluated.to_mesh_clear()
    return n


def image_stats(path):
    """Mean and standard deviation of the written image's RGB values."""
    img = bpy.data.images.load(path)
    px = array.array("f", bytes(4 * len(img.pixels)))  # Debian's Blender has no numpy
    img.pixels.foreach_get(px)
    ch = img.channels
    bpy.data.images.remove(img)
    rgb = [v for i in range(3) for v in px[i::ch]]
    mean = sum(rgb) / len(rgb)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in rgb) / len(rgb))


def main():
    args = parse_args()
    q = QUALITY[args.quality]
    t0 = time.monotonic()
    clear_scene()
    bunny = import_mesh(args.mesh)
    subdivide(bunny, q["levels"] if args.levels is None else args.levels, args.live)
    build_scene(bunny)
    configure_render(os.path.abspath(args.out), q)
    t1 = time.monotonic()
    bpy.ops.render.render(write_still=True)
    t2 = time.monotonic()
    triangles = count_triangles(bunny)     # after the render: a live stack is not evaluated twice before it
    if not os.path.exists(args.out):
        raise RuntimeError("render wrote no image at " + args.out)
    mean, std = image_stats(os.path.abspath(args.out))
    if std < 0.02:
        raise RuntimeError("rendered image looks blank (mean %.4f, std %.4f)" % (mean, std))
    print("HP_IMAGE_MEAN=%.6f" % mean, flush=True)
    print("HP_IMAGE_STD=%.6f" % std, flush=True)
    print("HP_TRIANGLES=%d" % triangles, flush=True)
    print("HP_SETUP_SECONDS=%.6f" % (t1 - t0), flush=True)
    print("HP_RENDER_SECONDS=%.6f" % (t2 - t1), flush=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # make Blender exit non-zero on any failure
        import traceback
        traceback.print_exc()
        print("HP_ERROR=%s" % exc, file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(1)
