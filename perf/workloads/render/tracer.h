/* tracer.h - a small CPU path tracer over a world: tiles rendered by one
 * worker thread per core, diffuse surfaces, a sky and a sun. */
#ifndef RENDER_TRACER_H
#define RENDER_TRACER_H

#include <stdint.h>

#include "scenes.h"
#include "world.h"

struct frame {
    int width, height;       /* pixels */
    float zoom;              /* camera: 1 frames the whole instance grid, 2 half of it */
    float *rgb;              /* width * height * 3 linear radiance, malloc'd by the caller */
    uint64_t mesh_pixels;    /* pixels whose first camera ray hit a mesh instance */
    uint64_t rays;           /* rays traced: closest-hit + shadow */
    int threads;             /* workers used */
    int tiles;               /* tiles rendered */
};

/* Render w into f->rgb (f->width x f->height) with settings rs on
 * `threads` workers.  Returns 0, ENOMEM, or EAGAIN if a thread could not
 * be started. */
int tracer_render(const struct world *w, const struct render_settings *rs, int threads,
                  struct frame *f);

#endif
