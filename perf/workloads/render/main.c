/* render: a small CPU path tracer in the style of Blender's Cycles, on
 * Embree 3, as a perf workload for hugepolicy.
 *
 * For each scene: import a real mesh (assimp), scale it up (midpoint
 * subdivision, a grid of instances on a ground plane), build the BVH
 * (rtcCommitScene), path-trace the image in tiles on every core, write a
 * PNG, and print one line:
 *   render scene=NAME quality=Q mesh_triangles=N0 subdiv=K triangles=N
 *     instances=I scene_triangles=S import_s=… subdiv_s=… load_s=… bvh_s=…
 *     render_s=… png_s=… total_s=… rays=R threads=T embree_hugepages=0|1
 *     image=PATH width=W height=H spp=P mean=… nonblack=… mesh_px=…
 * triangles = mesh_triangles * 4^subdiv (in the mesh BVH); scene_triangles
 * = triangles * instances + 2 (ground).  load_s = import_s + subdiv_s;
 * total_s = load_s + bvh_s + render_s + png_s.  mesh_px is the fraction
 * of pixels whose first camera ray hit a mesh instance.
 *
 * Exit status: 0 ok, 1 a render failed, 2 usage error or a mesh missing.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mesh.h"
#include "png_out.h"
#include "scenes.h"
#include "tracer.h"
#include "world.h"

#define MAX_SCENES 16

struct options {
    const struct render_scene *scenes[MAX_SCENES];
    int nscenes;
    enum render_quality quality;
    enum embree_pages embree;
    const char *out_dir;
    const char *tag;
    int threads;
    int grid;       /* --grid override of the scene table, 0 = table */
    int subdiv;     /* --subdiv override, -1 = table */
};

/* Monotonic clock, seconds. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPUs this process may run on (its affinity mask), at least 1. */
static int cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: render [--scene NAME[,NAME...]|all] [--quality quick|full]\n"
            "              [--embree-hugepages auto|0|1] [--out DIR] [--tag TAG]\n"
            "              [--threads N] [--grid N] [--subdiv K] | --list | --help\n"
            "  --scene      scenes to render, in order (default all; see --list)\n"
            "  --quality    quick: ~1-3 s per render on 2 cores; full: tens of seconds\n"
            "  --embree-hugepages  Embree's rtcNewDevice(\"hugepages=…\"): auto asks\n"
            "               hugepolicy_stats() (1 where thp or hugetlb was asked; 0\n"
            "               under hugepolicy's auto and without hugepolicy, Embree's\n"
            "               default); 0, or hugepolicy's off, also sets\n"
            "               PR_SET_THP_DISABLE: Embree madvises its BVH memory\n"
            "               MADV_HUGEPAGE even with hugepages=0\n"
            "  --out DIR    images go to DIR/render-SCENE-QUALITY[-TAG].png (default .;\n"
            "               created with its parents if missing)\n"
            "  --threads N  render workers (default: CPUs in the affinity mask)\n"
            "  --grid N     N x N instances instead of the scene table's (1..64)\n"
            "  --subdiv K   K subdivision levels instead of the scene table's (0..6)\n"
            "  --list       print the scenes, their packages and mesh paths, and exit\n");
}

/* --list: one line per scene, "present=yes|no" for its mesh file here. */
static void list_scenes(void)
{
    int n;
    const struct render_scene *s = scenes_all(&n);
    for (int i = 0; i < n; i++)
        printf("scene %s package=%s path=%s%s%s subdiv=%d,%d grid=%d,%d present=%s\n", s[i].name,
               s[i].package, s[i].path, s[i].member ? " member=" : "", s[i].member ? s[i].member : "",
               s[i].subdiv[0], s[i].subdiv[1], s[i].grid[0], s[i].grid[1],
               scene_present(&s[i]) ? "yes" : "no");
}

/* Parse --scene's comma list (or "all") into o->scenes; 0 or -1. */
static int parse_scenes(const char *arg, struct options *o)
{
    o->nscenes = 0;
    if (strcmp(arg, "all") == 0) {
        int n;
        const struct render_scene *s = scenes_all(&n);
        for (int i = 0; i < n && i < MAX_SCENES; i++)
            o->scenes[o->nscenes++] = &s[i];
        return 0;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const struct render_scene *s = scene_find(t);
        if (!s) {
            fprintf(stderr, "render: unknown scene '%s' (see --list)\n", t);
            return -1;
        }
        if (o->nscenes == MAX_SCENES)
            return -1;
        o->scenes[o->nscenes++] = s;
    }
    return o->nscenes ? 0 : -1;
}

/* Parse argv; returns 0 to render, 1 if done (--list/--help), 2 on a usage error. */
static int parse_args(int argc, char **argv, struct options *o)
{
    *o = (struct options){.quality = QUALITY_QUICK, .embree = EMBREE_PAGES_AUTO, .out_dir = ".",
                          .tag = NULL, .threads = cpu_count(), .grid = 0, .subdiv = -1};
    if (parse_scenes("all", o))
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0) {
            list_scenes();
            return 1;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        }
        if (!v) {
            fprintf(stderr, "render: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        }
        i++;
        if (strcmp(a, "--scene") == 0) {
            if (parse_scenes(v, o))
                return 2;
        } else if (strcmp(a, "--quality") == 0 && (!strcmp(v, "quick") || !strcmp(v, "full"))) {
            o->quality = strcmp(v, "full") == 0 ? QUALITY_FULL : QUALITY_QUICK;
        } else if (strcmp(a, "--embree-hugepages") == 0 &&
                   (!strcmp(v, "auto") || !strcmp(v, "0") || !strcmp(v, "1"))) {
            o->embree = !strcmp(v, "auto") ? EMBREE_PAGES_AUTO
                        : !strcmp(v, "1")  ? EMBREE_PAGES_ON : EMBREE_PAGES_OFF;
        } else if (strcmp(a, "--out") == 0) {
            o->out_dir = v;
        } else if (strcmp(a, "--tag") == 0) {
            o->tag = v;
        } else if (strcmp(a, "--threads") == 0 && atoi(v) > 0 && atoi(v) <= 1024) {
            o->threads = atoi(v);
        } else if (strcmp(a, "--grid") == 0 && atoi(v) > 0 && atoi(v) <= 64) {
            o->grid = atoi(v);
        } else if (strcmp(a, "--subdiv") == 0 && v[0] >= '0' && v[0] <= '6' && !v[1]) {
            o->subdiv = v[0] - '0';
        } else {
            fprintf(stderr, "render: bad option %s %s\n", a, v);
            usage(stderr);
            return 2;
        }
    }
    return 0;
}

/* Load, scale, build, render and write one scene; print its line.
 * Returns 0, 2 if its mesh is missing, 1 on any other failure. */
static int render_scene(RTCDevice dev, int embree_on, const struct render_scene *sc,
                        const struct options *o)
{
    struct render_settings rs = settings_for(o->quality);
    int levels = o->subdiv >= 0 ? o->subdiv : sc->subdiv[o->quality];
    int grid = o->grid ? o->grid : sc->grid[o->quality];
    char err[512], image[4096];
    snprintf(image, sizeof image, "%s/render-%s-%s%s%s.png", o->out_dir, sc->name,
             o->quality == QUALITY_FULL ? "full" : "quick", o->tag ? "-" : "", o->tag ? o->tag : "");

    double t0 = now_s();
    struct mesh m;
    int rc = mesh_load(sc, &m, err, sizeof err);
    if (rc) {
        fprintf(stderr, "render: scene %s: %s\n", sc->name, err);
        return rc == ENOENT ? 2 : 1;
    }
    size_t mesh_tris = m.ntris;
    double t1 = now_s();
    mesh_normalize(&m, sc->z_up);
    rc = mesh_subdivide(&m, levels);
    if (rc) {
        fprintf(stderr, "render: scene %s: subdivision: %s\n", sc->name, strerror(rc));
        mesh_free(&m);
        return 1;
    }
    double t2 = now_s();
    size_t tris = m.ntris;
    struct world w;
    if (world_build(dev, &m, grid, &w)) {
        fprintf(stderr, "render: scene %s: building the BVH failed\n", sc->name);
        world_release(&w);
        mesh_free(&m);
        return 1;
    }
    double t3 = now_s();
    struct frame f = {.width = rs.width, .height = rs.height, .zoom = sc->zoom};
    f.rgb = calloc((size_t)rs.width * (size_t)rs.height * 3, sizeof *f.rgb);
    rc = f.rgb ? tracer_render(&w, &rs, o->threads, &f) : ENOMEM;
    double t4 = now_s();
    struct image_stats st = {0};
    if (!rc)
        rc = png_write(image, f.rgb, f.width, f.height, &st);
    else
        fprintf(stderr, "render: scene %s: rendering failed: %s\n", sc->name, strerror(rc));
    double t5 = now_s();
    free(f.rgb);
    world_release(&w);
    mesh_free(&m);
    if (rc)
        return 1;
    printf("render scene=%s quality=%s mesh_triangles=%zu subdiv=%d triangles=%zu instances=%u "
           "scene_triangles=%zu import_s=%.4f subdiv_s=%.4f load_s=%.4f bvh_s=%.4f render_s=%.4f "
           "png_s=%.4f total_s=%.4f rays=%llu threads=%d embree_hugepages=%d image=%s width=%d "
           "height=%d spp=%d mean=%.5f nonblack=%.5f mesh_px=%.5f\n",
           sc->name, o->quality == QUALITY_FULL ? "full" : "quick", mesh_tris, levels,
           tris, (unsigned)(grid * grid), tris * (size_t)(grid * grid) + 2, t1 - t0, t2 - t1, t2 - t0,
           t3 - t2, t4 - t3, t5 - t4, t5 - t0, (unsigned long long)f.rays, f.threads, embree_on,
           image, f.width, f.height, rs.spp, st.mean, st.nonblack,
           (double)f.mesh_pixels / ((double)f.width * (double)f.height));
    fflush(stdout);
    return 0;
}

/* mkdir -p: 0, or -1 with errno (ENOTDIR when a part is a file). */
static int make_dirs(const char *path)
{
    char buf[4096];
    struct stat st;
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = buf + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            if (stat(buf, &st) != 0)
                return -1;
            if (!S_ISDIR(st.st_mode)) {
                errno = ENOTDIR;
                return -1;
            }
            if (c == '\0')
                return 0;
            *s = c;
        }
    }
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc == 1 ? 0 : 2;
    if (make_dirs(o.out_dir) != 0) {
        fprintf(stderr, "render: --out %s: %s\n", o.out_dir, strerror(errno));
        return 2;
    }
    if (access(o.out_dir, W_OK) != 0) {
        fprintf(stderr, "render: --out %s: not a writable directory\n", o.out_dir);
        return 2;
    }
    for (int i = 0; i < o.nscenes; i++) {
        if (!scene_present(o.scenes[i])) {
            fprintf(stderr, "render: scene %s: mesh %s missing (apt-get install %s)\n",
                    o.scenes[i]->name, o.scenes[i]->path, o.scenes[i]->package);
            return 2;
        }
    }
    int embree_on = 0;
    char why[192];
    RTCDevice dev = world_device(o.embree, &embree_on, why, sizeof why);
    if (!dev)
        return 1;
    printf("render-device embree_config=hugepages=%d (%s) threads=%d\n", embree_on, why, o.threads);
    fflush(stdout);
    for (int i = 0; i < o.nscenes && !rc; i++)
        rc = render_scene(dev, embree_on, o.scenes[i], &o);
    rtcReleaseDevice(dev);
    return rc;
}
