/* scenes.c - the scene table: which Debian package ships which mesh, and how
 * far each is scaled up (subdivision levels, instance grid) per quality. */
#include "scenes.h"

#include <stddef.h>
#include <string.h>
#include <unistd.h>

#define CGAL_DATA "/usr/share/doc/libcgal-dev/data.tar.gz"

/* Triangle counts after loading (assimp, joined vertices) are in README.md. */
static const struct render_scene SCENES[] = {
    {"robot", "cura", "/usr/share/cura/resources/meshes/UltimakerRobot_support.stl",
     NULL, 1, {1, 2}, {3, 4}, 1.0f},
    {"elephant", "libcgal-demo", CGAL_DATA, "data/meshes/refined_elephant.off",
     0, {2, 3}, {3, 4}, 1.0f},
    {"armadillo", "libcgal-demo", CGAL_DATA, "data/meshes/armadillo.off",
     0, {2, 3}, {3, 4}, 1.0f},
    {"bunny", "glmark2-data", "/usr/share/glmark2/models/bunny.obj",
     NULL, 0, {2, 3}, {3, 4}, 1.0f},
    {"sterngarten", "stellarium-data",
     "/usr/share/stellarium/scenery3d/Sterngarten/Sterngarten_Wien_innerArea.obj",
     NULL, 1, {2, 3}, {1, 1}, 2.5f},
    {"engine", "assimp-testmodels",
     "/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
     NULL, 0, {1, 3}, {3, 4}, 1.0f},
};

const struct render_scene *scenes_all(int *count)
{
    *count = (int)(sizeof SCENES / sizeof SCENES[0]);
    return SCENES;
}

const struct render_scene *scene_find(const char *name)
{
    for (size_t i = 0; i < sizeof SCENES / sizeof SCENES[0]; i++)
        if (strcmp(SCENES[i].name, name) == 0)
            return &SCENES[i];
    return NULL;
}

int scene_present(const struct render_scene *sc)
{
    return access(sc->path, R_OK) == 0;
}

struct render_settings settings_for(enum render_quality q)
{
    if (q == QUALITY_FULL)
        return (struct render_settings){1280, 720, 4, 3, 64};
    return (struct render_settings){640, 360, 8, 2, 64};
}
