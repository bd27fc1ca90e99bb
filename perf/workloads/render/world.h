/* world.h - the Embree side: the device (with its huge-page option) and
 * the ray-tracing world built from a mesh: one BVH for the mesh, a grid of
 * instances of it and a ground plane in the top-level BVH. */
#ifndef RENDER_WORLD_H
#define RENDER_WORLD_H

#include <embree3/rtcore.h>

#include "mesh.h"

/* --embree-hugepages: ask hugepolicy (auto), or force Embree's option. */
enum embree_pages { EMBREE_PAGES_AUTO, EMBREE_PAGES_OFF, EMBREE_PAGES_ON };

struct world {
    RTCScene top;            /* ground + instances: the scene rays are traced in */
    RTCScene object;         /* the subdivided mesh, instanced by `top` */
    unsigned instances;      /* instance geomIDs are 1..instances in `top` */
    float (*rot)[9];         /* per geomID: object->world rotation, row-major */
    float (*albedo)[3];      /* per geomID: diffuse albedo (0 = ground) */
    float half_width;        /* half the instance grid's width, world units */
    float height;            /* the mesh's height above the ground, world units */
};

/* Create the Embree device with "hugepages=0|1".  auto reads
 * hugepolicy_stats() (found with dlsym, hugepolicy is never linked): 1 only
 * where a whole-heap mode was asked (thp, hugetlb); 0 under hugepolicy's
 * auto (its plan advises blocks itself) and without hugepolicy (Embree's
 * defaults); 0 and THP disabled for the process where the mode in effect
 * is off.  *on receives the value used and why (<= whylen bytes) why it
 * was chosen.  Returns NULL on failure. */
RTCDevice world_device(enum embree_pages want, int *on, char *why, size_t whylen);

/* Build the world around m (which must outlive it: its arrays are Embree's
 * shared vertex/index buffers): commit the mesh BVH, then grid x grid
 * instances 1.5 world units apart and a ground quad in the top BVH.
 * Returns 0, or -1 after an Embree error (printed by the device handler). */
int world_build(RTCDevice dev, const struct mesh *m, int grid, struct world *w);

/* Release the scenes and per-instance arrays. */
void world_release(struct world *w);

#endif
