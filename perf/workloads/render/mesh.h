/* mesh.h - an indexed triangle mesh, and the operations that load and scale
 * it (mesh_load.c: import with assimp; mesh_ops.c: normalise, subdivide). */
#ifndef RENDER_MESH_H
#define RENDER_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "scenes.h"

/* Vertex positions are 3 floats each, followed by one float of padding so
 * Embree may read the last vertex with a 16-byte load (it is shared with
 * Embree as its vertex buffer).  Triangles are 3 uint32 vertex indices. */
struct mesh {
    float *pos;       /* 3 * nverts + 1 floats, malloc'd */
    uint32_t *tri;    /* 3 * ntris indices, malloc'd */
    size_t nverts;
    size_t ntris;
};

/* Import the scene's mesh with assimp (triangulated, identical vertices
 * joined, node transforms applied) and merge all its meshes into *out.
 * Returns 0; ENOENT if the mesh file is missing; EINVAL if assimp failed or
 * found no triangles; ENOMEM.  err (errlen bytes) receives the reason. */
int mesh_load(const struct render_scene *sc, struct mesh *out, char *err, size_t errlen);

/* Rotate a +Z-up mesh to +Y-up (if z_up), then translate and scale it
 * uniformly so it stands on y = 0, centred on x = z = 0, its largest
 * extent 1 world unit. */
void mesh_normalize(struct mesh *m, int z_up);

/* Midpoint 1->4 split of every triangle, `levels` times; edge midpoints
 * are shared between neighbouring triangles (an edge hash per level).
 * Triangles grow by 4^levels.  Returns 0, ENOMEM, or EOVERFLOW if the
 * vertex count would pass 2^32. */
int mesh_subdivide(struct mesh *m, int levels);

/* Free the arrays and zero the struct. */
void mesh_free(struct mesh *m);

#endif
