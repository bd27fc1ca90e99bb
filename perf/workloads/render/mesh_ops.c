/* mesh_ops.c - scene scaling: place a mesh in a unit box and multiply its
 * triangles by midpoint 1->4 subdivision. */
#include "mesh.h"

#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

void mesh_normalize(struct mesh *m, int z_up)
{
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (size_t v = 0; v < m->nverts; v++) {
        float *p = m->pos + 3 * v;
        if (z_up) { /* rotate -90 degrees about x: +Z becomes +Y */
            float y = p[1];
            p[1] = p[2];
            p[2] = -y;
        }
        for (int k = 0; k < 3; k++) {
            lo[k] = p[k] < lo[k] ? p[k] : lo[k];
            hi[k] = p[k] > hi[k] ? p[k] : hi[k];
        }
    }
    float ext = 0.0f;
    for (int k = 0; k < 3; k++)
        ext = hi[k] - lo[k] > ext ? hi[k] - lo[k] : ext;
    float s = ext > 0.0f ? 1.0f / ext : 1.0f;
    float c[3] = {0.5f * (lo[0] + hi[0]), lo[1], 0.5f * (lo[2] + hi[2])};
    for (size_t v = 0; v < m->nverts; v++)
        for (int k = 0; k < 3; k++)
            m->pos[3 * v + k] = (m->pos[3 * v + k] - c[k]) * s;
}

/* Open-addressing edge table: key (lo << 32 | hi) of a vertex pair -> index
 * of the midpoint vertex.  Empty slots hold EMPTY. */
struct edge_table {
    uint64_t *key;
    uint32_t *mid;
    size_t mask;     /* slots - 1, slots a power of two */
    size_t count;    /* edges inserted */
};

#define EMPTY UINT64_MAX

/* splitmix64 finaliser: a well-mixed slot hash of an edge key. */
static uint64_t hash64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Allocate a table with at least 2 * edges slots.  Returns 0 or ENOMEM. */
static int edges_init(struct edge_table *t, size_t edges)
{
    size_t slots = 1024;
    while (slots < 2 * edges)
        slots *= 2;
    t->key = malloc(slots * sizeof *t->key);
    t->mid = malloc(slots * sizeof *t->mid);
    if (!t->key || !t->mid)
        return ENOMEM;
    memset(t->key, 0xff, slots * sizeof *t->key);
    t->mask = slots - 1;
    t->count = 0;
    return 0;
}

/* Index of the midpoint of edge (a, b); a new one (first + count) is
 * assigned the first time the edge is seen. */
static uint32_t edge_mid(struct edge_table *t, uint32_t a, uint32_t b, uint32_t first)
{
    uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    size_t i = hash64(key) & t->mask;
    while (t->key[i] != EMPTY && t->key[i] != key)
        i = (i + 1) & t->mask;
    if (t->key[i] == EMPTY) {
        t->key[i] = key;
        t->mid[i] = first + (uint32_t)t->count++;
    }
    return t->mid[i];
}

/* One 1->4 level: new triangle array first (assigning midpoint indices),
 * then the vertex array grown by one vertex per unique edge. */
static int subdivide_once(struct mesh *m)
{
    size_t nt = m->ntris, nv = m->nverts;
    if (nv + 3 * nt >= UINT32_MAX || 4 * nt >= SIZE_MAX / 12)
        return EOVERFLOW;
    struct edge_table t = {0};
    uint32_t *tri = malloc(4 * 3 * nt * sizeof *tri);
    /* a closed mesh has 1.5 edges per triangle, a triangle soup 3: size the
     * table for 2 so even a soup keeps it at most 3/4 full */
    int rc = edges_init(&t, 2 * nt);
    if (rc || !tri) {
        rc = ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nt; i++) {
        const uint32_t *v = m->tri + 3 * i;
        uint32_t ab = edge_mid(&t, v[0], v[1], (uint32_t)nv);
        uint32_t bc = edge_mid(&t, v[1], v[2], (uint32_t)nv);
        uint32_t ca = edge_mid(&t, v[2], v[0], (uint32_t)nv);
        uint32_t four[12] = {v[0], ab, ca, ab, v[1], bc, ca, bc, v[2], ab, bc, ca};
        memcpy(tri + 12 * i, four, sizeof four);
    }
    float *pos = malloc((3 * (nv + t.count) + 1) * sizeof *pos);
    if (!pos) {
        rc = ENOMEM;
        goto out;
    }
    memcpy(pos, m->pos, 3 * nv * sizeof *pos);
    for (size_t s = 0; s <= t.mask; s++) {
        if (t.key[s] == EMPTY)
            continue;
        const float *a = m->pos + 3 * (t.key[s] >> 32), *b = m->pos + 3 * (t.key[s] & 0xffffffffu);
        float *p = pos + 3 * (size_t)t.mid[s];
        for (int k = 0; k < 3; k++)
            p[k] = 0.5f * (a[k] + b[k]);
    }
    pos[3 * (nv + t.count)] = 0.0f;
    free(m->pos);
    free(m->tri);
    m->pos = pos;
    m->tri = tri;
    tri = NULL;
    m->nverts = nv + t.count;
    m->ntris = 4 * nt;
out:
    free(tri);
    free(t.key);
    free(t.mid);
    return rc;
}

int mesh_subdivide(struct mesh *m, int levels)
{
    for (int l = 0; l < levels; l++) {
        int rc = subdivide_once(m);
        if (rc)
            return rc;
    }
    return 0;
}
