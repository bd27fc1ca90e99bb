/* mesh_load.c - import a scene's mesh with assimp's C API and merge all of
 * its triangle meshes into one indexed struct mesh. */
#include "mesh.h"
#include "archive_member.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IMPORT_FLAGS (aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | \
                      aiProcess_PreTransformVertices | aiProcess_SortByPType)

/* Extension of a path without the dot ("off"), for assimp's format hint. */
static const char *extension(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? dot + 1 : "";
}

/* Import sc's mesh: the file itself, or the archive member read into memory.
 * Returns the assimp scene or NULL with err filled. */
static const struct aiScene *import(const struct render_scene *sc, char *err, size_t errlen,
                                    int *rc)
{
    const struct aiScene *s;
    if (!sc->member) {
        s = aiImportFile(sc->path, IMPORT_FLAGS);
    } else {
        char *data = NULL;
        size_t len = 0;
        *rc = archive_read_member(sc->path, sc->member, &data, &len);
        if (*rc) {
            snprintf(err, errlen, "%s: cannot read member %s: %s", sc->path, sc->member,
                     strerror(*rc));
            return NULL;
        }
        s = aiImportFileFromMemory(data, (unsigned)len, IMPORT_FLAGS, extension(sc->member));
        free(data);
    }
    if (!s) {
        snprintf(err, errlen, "assimp could not import %s%s%s: %s", sc->path,
                 sc->member ? " member " : "", sc->member ? sc->member : "", aiGetErrorString());
        *rc = EINVAL;
    }
    return s;
}

int mesh_load(const struct render_scene *sc, struct mesh *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (access(sc->path, R_OK) != 0) {
        snprintf(err, errlen, "mesh %s missing (apt-get install %s)", sc->path, sc->package);
        return ENOENT;
    }
    int rc = 0;
    const struct aiScene *s = import(sc, err, errlen, &rc);
    if (!s)
        return rc;
    size_t nv = 0, nt = 0;
    for (unsigned i = 0; i < s->mNumMeshes; i++) {
        const struct aiMesh *m = s->mMeshes[i];
        if (!(m->mPrimitiveTypes & aiPrimitiveType_TRIANGLE))
            continue;
        nv += m->mNumVertices;
        for (unsigned f = 0; f < m->mNumFaces; f++)
            nt += m->mFaces[f].mNumIndices == 3;
    }
    if (nt == 0 || nv >= UINT32_MAX) {
        snprintf(err, errlen, "%s: %s", sc->path, nt ? "too many vertices" : "no triangles");
        aiReleaseImport(s);
        return EINVAL;
    }
    out->pos = malloc((3 * nv + 1) * sizeof *out->pos);
    out->tri = malloc(3 * nt * sizeof *out->tri);
    if (!out->pos || !out->tri) {
        aiReleaseImport(s);
        mesh_free(out);
        snprintf(err, errlen, "out of memory for %zu vertices", nv);
        return ENOMEM;
    }
    size_t v = 0, t = 0;
    for (unsigned i = 0; i < s->mNumMeshes; i++) {
        const struct aiMesh *m = s->mMeshes[i];
        if (!(m->mPrimitiveTypes & aiPrimitiveType_TRIANGLE))
            continue;
        for (unsigned f = 0; f < m->mNumFaces; f++) {
            const struct aiFace *face = &m->mFaces[f];
            if (face->mNumIndices != 3)
                continue;
            for (int k = 0; k < 3; k++)
                out->tri[3 * t + k] = (uint32_t)(v + face->mIndices[k]);
            t++;
        }
        for (unsigned k = 0; k < m->mNumVertices; k++, v++) {
            out->pos[3 * v + 0] = m->mVertices[k].x;
            out->pos[3 * v + 1] = m->mVertices[k].y;
            out->pos[3 * v + 2] = m->mVertices[k].z;
        }
    }
    out->pos[3 * nv] = 0.0f;
    out->nverts = nv;
    out->ntris = nt;
    aiReleaseImport(s);
    return 0;
}

void mesh_free(struct mesh *m)
{
    free(m->pos);
    free(m->tri);
    memset(m, 0, sizeof *m);
}
