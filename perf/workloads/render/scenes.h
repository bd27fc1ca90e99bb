/* scenes.h - the render workload's scene table and quality presets.
 *
 * Every scene is one real mesh that a Debian package ships, scaled up to a
 * large scene by midpoint subdivision and a grid of instances on a ground
 * plane.  Sizes depend on the quality preset (quick or full).
 */
#ifndef RENDER_SCENES_H
#define RENDER_SCENES_H

enum render_quality { QUALITY_QUICK = 0, QUALITY_FULL = 1 };

struct render_scene {
    const char *name;     /* --scene NAME */
    const char *package;  /* Debian package that ships the mesh */
    const char *path;     /* the mesh file, or the .tar.gz that holds it */
    const char *member;   /* member of the .tar.gz, or NULL for a plain file */
    int z_up;             /* 1: the mesh's up axis is +Z (STL, CAD); 0: +Y */
    int subdiv[2];        /* midpoint 1->4 subdivision levels: quick, full */
    int grid[2];          /* instances per side of the square grid: quick, full */
    float zoom;           /* camera: 1 frames the whole grid, 2 half of it */
};

/* Image and sampling settings of one quality preset. */
struct render_settings {
    int width, height;    /* image size, pixels */
    int spp;              /* samples per pixel */
    int max_bounces;      /* diffuse bounces after the camera hit */
    int tile;             /* tile edge, pixels */
};

/* The scene table; *count receives its length. */
const struct render_scene *scenes_all(int *count);

/* The scene named name, or NULL. */
const struct render_scene *scene_find(const char *name);

/* 1 if the scene's mesh file (or archive) exists and is readable here. */
int scene_present(const struct render_scene *sc);

/* Image size (pixels), samples per pixel, bounces and tile size of a preset. */
struct render_settings settings_for(enum render_quality q);

#endif
