/* world.c - Embree device, mesh BVH, instance grid and ground plane. */
#include "world.h"

#include "hugepolicy.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/prctl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPACING 1.5f    /* distance between neighbouring instances, world units */

/* Device error handler: print every Embree error; the caller checks
 * rtcGetDeviceError after each stage. */
static void on_error(void *user, enum RTCError code, const char *msg)
{
    (void)user;
    fprintf(stderr, "render: embree error %d: %s\n", (int)code, msg ? msg : "");
}

RTCDevice world_device(enum embree_pages want, int *on, char *why, size_t whylen)
{
    int policy_off = 0;     /* a policy says off: base pages for Embree's memory too */
    if (want == EMBREE_PAGES_AUTO) {
        /* hugepolicy is never linked: found with dlsym when preloaded */
        int (*stats)(struct hugepolicy_stats *) = NULL;
        *(void **)&stats = dlsym(RTLD_DEFAULT, "hugepolicy_stats");
        struct hugepolicy_stats st = { .size = sizeof st };
        if (!stats || stats(&st) != 0) {
            *on = 0;
            snprintf(why, whylen, "auto: hugepolicy not loaded: Embree's defaults");
        } else if (strcmp(st.pages_effective, "off") == 0) {
            *on = 0;
            policy_off = 1;
            snprintf(why, whylen, "auto: hugepolicy pages=off");
        } else if (strcmp(st.pages_requested, "auto") == 0) {
            /* auto advises blocks by its own rules: Embree's memory is
             * left to them (its blocks come from malloc) and to Embree's
             * defaults, not given huge pages wholesale */
            *on = 0;
            snprintf(why, whylen, "auto: hugepolicy pages=auto (in effect %s): Embree's defaults",
                     st.pages_effective);
        } else {
            *on = 1;
            snprintf(why, whylen, "auto: hugepolicy pages=%s", st.pages_effective);
        }
    } else {
        *on = want == EMBREE_PAGES_ON;
        policy_off = !*on;
        snprintf(why, whylen, "--embree-hugepages %d", *on);
    }
    if (policy_off) {
        /* Embree's os_malloc madvises every mapping MADV_HUGEPAGE even with
         * hugepages=0 (that only skips its MAP_HUGETLB attempt), so "off"
         * would still give its BVH memory THP: turn THP off for this
         * process instead (prctl(2) PR_SET_THP_DISABLE), so that off means
         * base pages for Embree's memory too. */
        size_t n = strlen(why);
        if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0)
            snprintf(why + n, whylen - n, "; THP disabled for the process (PR_SET_THP_DISABLE)");
        else
            snprintf(why + n, whylen - n, "; PR_SET_THP_DISABLE failed: %s", strerror(errno));
    }
    RTCDevice dev = rtcNewDevice(*on ? "hugepages=1" : "hugepages=0");
    if (!dev)
        fprintf(stderr, "render: rtcNewDevice failed: error %d\n", (int)rtcGetDeviceError(NULL));
    else
        rtcSetDeviceErrorFunction(dev, on_error, NULL);
    return dev;
}

/* The mesh as one triangle geometry sharing m's arrays. */
static RTCScene object_scene(RTCDevice dev, const struct mesh *m)
{
    RTCScene s = rtcNewScene(dev);
    rtcSetSceneBuildQuality(s, RTC_BUILD_QUALITY_MEDIUM);
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, m->pos, 0,
                               3 * sizeof(float), m->nverts);
    rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, m->tri, 0,
                               3 * sizeof(uint32_t), m->ntris);
    rtcCommitGeometry(g);
    rtcAttachGeometryByID(s, g, 0);
    rtcReleaseGeometry(g);
    rtcCommitScene(s);
    return s;
}

/* A square ground quad at y = 0, half_width world units from the centre. */
static void add_ground(RTCDevice dev, RTCScene top, float half_width)
{
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                       3 * sizeof(float), 4);
    unsigned *t = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                          3 * sizeof(unsigned), 2);
    if (v && t) {
        const float h = half_width;
        const float quad[12] = {-h, 0, -h, h, 0, -h, h, 0, h, -h, 0, h};
        const unsigned idx[6] = {0, 2, 1, 0, 3, 2};
        memcpy(v, quad, sizeof quad);
        memcpy(t, idx, sizeof idx);
    }
    rtcCommitGeometry(g);
    rtcAttachGeometryByID(top, g, 0);
    rtcReleaseGeometry(g);
}

/* Instance i of the grid: position, yaw (radians) and albedo, all
 * deterministic so every run renders the same image. */
static void add_instance(RTCDevice dev, struct world *w, unsigned id, int grid, int i)
{
    float x = ((float)(i % grid) - 0.5f * (float)(grid - 1)) * SPACING;
    float z = ((float)(i / grid) - 0.5f * (float)(grid - 1)) * SPACING;
    float yaw = 0.7f * (float)i + 0.3f, c = cosf(yaw), s = sinf(yaw);
    /* column-major 3x4: images of the x, y, z axes, then the translation */
    const float xfm[12] = {c, 0, -s, 0, 1, 0, s, 0, c, x, 0, z};
    const float rot[9] = {c, 0, s, 0, 1, 0, -s, 0, c};
    memcpy(w->rot[id], rot, sizeof rot);
    w->albedo[id][0] = 0.35f + 0.3f * (float)((i * 37) % 11) / 10.0f;
    w->albedo[id][1] = 0.35f + 0.3f * (float)((i * 53) % 7) / 6.0f;
    w->albedo[id][2] = 0.35f + 0.3f * (float)((i * 71) % 5) / 4.0f;
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_INSTANCE);
    rtcSetGeometryInstancedScene(g, w->object);
    rtcSetGeometryTransform(g, 0, RTC_FORMAT_FLOAT3X4_COLUMN_MAJOR, xfm);
    rtcCommitGeometry(g);
    rtcAttachGeometryByID(w->top, g, id);
    rtcReleaseGeometry(g);
}

int world_build(RTCDevice dev, const struct mesh *m, int grid, struct world *w)
{
    memset(w, 0, sizeof *w);
    w->instances = (unsigned)(grid * grid);
    w->half_width = 0.5f * (float)(grid - 1) * SPACING + 0.5f;
    w->rot = calloc(w->instances + 1, sizeof *w->rot);
    w->albedo = calloc(w->instances + 1, sizeof *w->albedo);
    if (!w->rot || !w->albedo) {
        fprintf(stderr, "render: out of memory for %u instances\n", w->instances);
        return -1;
    }
    w->albedo[0][0] = w->albedo[0][1] = w->albedo[0][2] = 0.4f;
    for (size_t v = 0; v < m->nverts; v++)
        w->height = m->pos[3 * v + 1] > w->height ? m->pos[3 * v + 1] : w->height;
    w->object = object_scene(dev, m);
    if (rtcGetDeviceError(dev) != RTC_ERROR_NONE)
        return -1;
    w->top = rtcNewScene(dev);
    add_ground(dev, w->top, w->half_width + 40.0f);
    for (unsigned i = 0; i < w->instances; i++)
        add_instance(dev, w, i + 1, grid, (int)i);
    rtcCommitScene(w->top);
    return rtcGetDeviceError(dev) == RTC_ERROR_NONE ? 0 : -1;
}

void world_release(struct world *w)
{
    if (w->top)
        rtcReleaseScene(w->top);
    if (w->object)
        rtcReleaseScene(w->object);
    free(w->rot);
    free(w->albedo);
    memset(w, 0, sizeof *w);
}
