/* tracer.c - path tracing in tiles.  Workers take tiles from a shared
 * atomic counter; each tile's samples go into a per-tile sample buffer
 * (malloc'd per tile, freed after it is filtered into the framebuffer), as
 * a production renderer's tile buffers are.  Pixels and samples are seeded
 * by their index, so the image does not depend on the thread schedule. */
#include "tracer.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-4f                 /* ray offset from a surface, world units */
#define PI_F 3.14159265f

typedef struct { float x, y, z; } vec3;

static vec3 v3(float x, float y, float z) { return (vec3){x, y, z}; }
static vec3 add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec3 scale(vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static vec3 mul(vec3 a, vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec3 cross(vec3 a, vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static vec3 norm(vec3 a) { return scale(a, 1.0f / sqrtf(dot(a, a))); }

/* Sun: direction towards it, its irradiance (W/m^2-ish units of the image)
 * and angular radius (radians) for soft shadows. */
static const vec3 SUN_DIR = {0.48f, 0.75f, 0.45f};
static const float SUN_E = 2.2f, SUN_RADIUS = 0.03f;

/* Pinhole camera: origin, and the image plane as corner + per-pixel steps. */
struct camera { vec3 org, corner, du, dv; };

/* Per-thread state: malloc'd at worker start, freed at its end. */
struct worker {
    const struct world *w;
    const struct render_settings *rs;
    struct frame *f;
    const struct camera *cam;
    atomic_int *next_tile;
    int tiles_x, tiles_y;
    uint64_t rays, mesh_pixels;   /* added once per tile, not per ray: no false sharing */
    int tiles;
    int failed;
};

/* PCG-style hash of a 32-bit value (for per-pixel/per-sample seeds). */
static uint32_t hash32(uint32_t x)
{
    x = x * 747796405u + 2891336453u;
    x = ((x >> ((x >> 28) + 4)) ^ x) * 277803737u;
    return (x >> 22) ^ x;
}

/* Uniform float in [0, 1) from a xorshift32 state. */
static float rnd(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return (float)(*s >> 8) * (1.0f / 16777216.0f);
}

/* Cosine-weighted direction about unit normal n (pdf cos(theta) / pi). */
static vec3 cosine_dir(vec3 n, uint32_t *s)
{
    float r1 = rnd(s), r2 = rnd(s), r = sqrtf(r1), phi = 2.0f * PI_F * r2;
    vec3 t = fabsf(n.x) > 0.5f ? v3(0, 1, 0) : v3(1, 0, 0);
    vec3 u = norm(cross(t, n)), v = cross(n, u);
    return norm(add(add(scale(u, r * cosf(phi)), scale(v, r * sinf(phi))),
                    scale(n, sqrtf(1.0f - r1))));
}

/* Sky radiance seen along unit direction d: horizon to zenith gradient. */
static vec3 sky(vec3 d)
{
    float t = d.y > 0.0f ? d.y : 0.0f;
    return add(scale(v3(0.95f, 0.95f, 1.0f), 0.6f * (1.0f - t)), scale(v3(0.30f, 0.50f, 0.95f), 0.6f * t));
}

/* Closest hit along (o, d); returns distance or -1 and fills the world
 * normal facing the ray (n), albedo and whether a mesh instance was hit. */
static float trace(const struct world *w, vec3 o, vec3 d, vec3 *n, vec3 *albedo, int *mesh)
{
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    struct RTCRayHit rh = {0};
    rh.ray.org_x = o.x; rh.ray.org_y = o.y; rh.ray.org_z = o.z;
    rh.ray.dir_x = d.x; rh.ray.dir_y = d.y; rh.ray.dir_z = d.z;
    rh.ray.tnear = 0.0f;
    rh.ray.tfar = INFINITY;
    rh.ray.mask = 0xffffffffu;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(w->top, &ctx, &rh);
    if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID)
        return -1.0f;
    vec3 ng = v3(rh.hit.Ng_x, rh.hit.Ng_y, rh.hit.Ng_z);
    unsigned id = rh.hit.instID[0];
    *mesh = id != RTC_INVALID_GEOMETRY_ID;
    if (*mesh) { /* Ng is in the instance's object space */
        const float *r = w->rot[id];
        ng = v3(r[0] * ng.x + r[1] * ng.y + r[2] * ng.z, r[3] * ng.x + r[4] * ng.y + r[5] * ng.z,
                r[6] * ng.x + r[7] * ng.y + r[8] * ng.z);
    } else {
        id = 0;
    }
    float len2 = dot(ng, ng);
    ng = len2 > 0.0f ? scale(ng, 1.0f / sqrtf(len2)) : v3(0, 1, 0);
    *n = dot(ng, d) > 0.0f ? scale(ng, -1.0f) : ng;
    *albedo = v3(w->albedo[id][0], w->albedo[id][1], w->albedo[id][2]);
    return rh.ray.tfar;
}

/* 1 if nothing blocks the ray from o along unit d. */
static int unoccluded(const struct world *w, vec3 o, vec3 d)
{
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    struct RTCRay ray = {0};
    ray.org_x = o.x; ray.org_y = o.y; ray.org_z = o.z;
    ray.dir_x = d.x; ray.dir_y = d.y; ray.dir_z = d.z;
    ray.tfar = INFINITY;
    ray.mask = 0xffffffffu;
    rtcOccluded1(w->top, &ctx, &ray);
    return ray.tfar >= 0.0f;
}

/* Radiance along one camera ray: diffuse bounces, next-event estimation
 * of the sun at every hit.  *mesh_hit: the camera ray hit a mesh; *rays
 * counts the rays traced. */
static vec3 radiance(const struct worker *wk, vec3 o, vec3 d, uint32_t *s, int *mesh_hit,
                     uint64_t *rays)
{
    vec3 L = v3(0, 0, 0), T = v3(1, 1, 1), sun = norm(SUN_DIR);
    for (int depth = 0; depth <= wk->rs->max_bounces; depth++) {
        vec3 n, a;
        int mesh = 0;
        float t = trace(wk->w, o, d, &n, &a, &mesh);
        (*rays)++;
        if (depth == 0)
            *mesh_hit = mesh;
        if (t < 0.0f)
            return add(L, mul(T, sky(d)));
        vec3 p = add(add(o, scale(d, t)), scale(n, EPS));
        /* jitter within the sun's disc for soft shadows (one draw per
         * statement: argument evaluation order is unspecified in C) */
        float jx = rnd(s) - 0.5f, jy = rnd(s) - 0.5f, jz = rnd(s) - 0.5f;
        vec3 l = norm(add(sun, scale(v3(jx, jy, jz), 2.0f * SUN_RADIUS)));
        float cosl = dot(n, l);
        if (cosl > 0.0f) {
            (*rays)++;
            if (unoccluded(wk->w, p, l))
                L = add(L, scale(mul(T, a), SUN_E * cosl / PI_F));
        }
        T = mul(T, a); /* cosine sampling: brdf * cos / pdf = albedo */
        o = p;
        d = cosine_dir(n, s);
    }
    return L;
}

/* Render tile (tx, ty): samples into a per-tile buffer, then the box
 * filter (mean of the samples) into the framebuffer.  0 or ENOMEM. */
static int render_tile(struct worker *wk, int tx, int ty)
{
    const struct render_settings *rs = wk->rs;
    struct frame *f = wk->f;
    int x0 = tx * rs->tile, y0 = ty * rs->tile;
    int tw = f->width - x0 < rs->tile ? f->width - x0 : rs->tile;
    int th = f->height - y0 < rs->tile ? f->height - y0 : rs->tile;
    size_t per_px = (size_t)rs->spp * 3;
    float *samples = malloc((size_t)tw * (size_t)th * per_px * sizeof *samples);
    if (!samples)
        return ENOMEM;
    uint64_t rays = 0, mesh_pixels = 0;
    for (int y = 0; y < th; y++) {
        for (int x = 0; x < tw; x++) {
            uint32_t px = (uint32_t)((y0 + y) * f->width + (x0 + x));
            float *out = samples + ((size_t)y * (size_t)tw + (size_t)x) * per_px;
            for (int i = 0; i < rs->spp; i++) {
                uint32_t s = hash32(px * 1021u + (uint32_t)i * 7919u + 1u) | 1u;
                float u = ((float)(x0 + x) + rnd(&s)) / (float)f->width;
                float v = ((float)(y0 + y) + rnd(&s)) / (float)f->height;
                vec3 d = norm(add(wk->cam->corner, add(scale(wk->cam->du, u), scale(wk->cam->dv, v))));
                int mesh = 0;
                vec3 c = radiance(wk, wk->cam->org, d, &s, &mesh, &rays);
                if (i == 0 && mesh)
                    mesh_pixels++;
                out[3 * i] = c.x;
                out[3 * i + 1] = c.y;
                out[3 * i + 2] = c.z;
            }
        }
    }
    for (int y = 0; y < th; y++) {
        for (int x = 0; x < tw; x++) {
            const float *in = samples + ((size_t)y * (size_t)tw + (size_t)x) * per_px;
            float sum[3] = {0, 0, 0};
            for (int i = 0; i < rs->spp; i++)
                for (int k = 0; k < 3; k++)
                    sum[k] += in[3 * i + k];
            float *fb = f->rgb + 3 * ((size_t)(y0 + y) * (size_t)f->width + (size_t)(x0 + x));
            for (int k = 0; k < 3; k++)
                fb[k] = sum[k] / (float)rs->spp;
        }
    }
    free(samples);
    wk->rays += rays;
    wk->mesh_pixels += mesh_pixels;
    return 0;
}

/* Worker thread: take tiles until none are left. */
static void *worker_main(void *arg)
{
    struct worker *wk = arg;
    int ntiles = wk->tiles_x * wk->tiles_y;
    for (;;) {
        int t = atomic_fetch_add(wk->next_tile, 1);
        if (t >= ntiles)
            break;
        if (render_tile(wk, t % wk->tiles_x, t / wk->tiles_x)) {
            wk->failed = ENOMEM;
            break;
        }
        wk->tiles++;
    }
    return NULL;
}

/* Camera looking at the grid's centre from above and to the side, the
 * grid filling the frame at zoom 1; 40 degree vertical field of view. */
static struct camera camera_for(const struct world *w, int width, int height, float zoom)
{
    float r = (0.9f * w->half_width + 0.1f) / (zoom > 0.0f ? zoom : 1.0f);
    vec3 target = v3(0.0f, 0.4f * w->height, 0.0f);
    vec3 dir = norm(v3(-0.55f, -0.42f, -0.8f));
    float fov = 40.0f * PI_F / 180.0f, aspect = (float)width / (float)height;
    float dist = r / sinf(0.5f * fov * (aspect < 1.0f ? aspect : 1.0f));
    struct camera c;
    c.org = add(target, scale(dir, -dist));
    vec3 right = norm(cross(dir, v3(0, 1, 0))), up = cross(right, dir);
    float h = tanf(0.5f * fov), wdt = h * aspect;
    /* image rows go top to bottom: v = 0 is the top edge */
    c.corner = add(add(dir, scale(right, -wdt)), scale(up, h));
    c.du = scale(right, 2.0f * wdt);
    c.dv = scale(up, -2.0f * h);
    return c;
}

int tracer_render(const struct world *w, const struct render_settings *rs, int threads,
                  struct frame *f)
{
    struct camera cam = camera_for(w, f->width, f->height, f->zoom);
    atomic_int next = 0;
    int tiles_x = (f->width + rs->tile - 1) / rs->tile, tiles_y = (f->height + rs->tile - 1) / rs->tile;
    struct worker **wk = calloc((size_t)threads, sizeof *wk);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    int rc = wk && tid ? 0 : ENOMEM, started = 0;
    for (int i = 0; i < threads && !rc; i++) {
        wk[i] = malloc(sizeof **wk);
        if (!wk[i]) {
            rc = ENOMEM;
            break;
        }
        *wk[i] = (struct worker){.w = w, .rs = rs, .f = f, .cam = &cam, .next_tile = &next,
                                 .tiles_x = tiles_x, .tiles_y = tiles_y};
        if (pthread_create(&tid[i], NULL, worker_main, wk[i]) != 0)
            rc = EAGAIN;
        else
            started++;
    }
    f->rays = f->mesh_pixels = 0;
    f->tiles = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
        f->rays += wk[i]->rays;
        f->mesh_pixels += wk[i]->mesh_pixels;
        f->tiles += wk[i]->tiles;
        rc = rc ? rc : wk[i]->failed;
    }
    f->threads = started;
    for (int i = 0; wk && i < threads; i++)
        free(wk[i]);
    free(wk);
    free(tid);
    return rc;
}
