/* png_out.h - tone-map a linear RGB framebuffer to 8-bit sRGB and write it
 * as a PNG with libpng, measuring what a sanity check needs. */
#ifndef RENDER_PNG_OUT_H
#define RENDER_PNG_OUT_H

struct image_stats {
    double mean;       /* mean 8-bit channel value / 255, in [0, 1] */
    double nonblack;   /* fraction of pixels with some channel >= 8/255 */
};

/* Write rgb (width x height x 3 linear floats, rows top to bottom) to path
 * as an 8-bit RGB PNG (clamp, sRGB transfer curve).  Returns 0, or an
 * errno value (EIO for a libpng error) with the reason printed. */
int png_write(const char *path, const float *rgb, int width, int height, struct image_stats *st);

#endif
