/* png_out.c - framebuffer to PNG (libpng), with mean and non-black stats. */
#include "png_out.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Linear radiance to an 8-bit sRGB code value (clamped to [0, 1] first). */
static unsigned char to_srgb8(float v)
{
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    float s = v <= 0.0031308f ? 12.92f * v : 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
    return (unsigned char)(s * 255.0f + 0.5f);
}

int png_write(const char *path, const float *rgb, int width, int height, struct image_stats *st)
{
    size_t row_bytes = (size_t)width * 3;
    unsigned char *pixels = malloc(row_bytes * (size_t)height);
    png_bytep *rows = malloc((size_t)height * sizeof *rows);
    if (!pixels || !rows) {
        free(pixels);
        free(rows);
        fprintf(stderr, "render: out of memory for a %dx%d image\n", width, height);
        return ENOMEM;
    }
    double sum = 0.0;
    size_t nonblack = 0, npx = (size_t)width * (size_t)height;
    for (size_t i = 0; i < npx; i++) {
        int lit = 0;
        for (int k = 0; k < 3; k++) {
            unsigned char c = to_srgb8(rgb[3 * i + k]);
            pixels[3 * i + k] = c;
            sum += c;
            lit |= c >= 8;
        }
        nonblack += (size_t)lit;
    }
    for (int y = 0; y < height; y++)
        rows[y] = pixels + (size_t)y * row_bytes;
    st->mean = sum / (255.0 * 3.0 * (double)npx);
    st->nonblack = (double)nonblack / (double)npx;

    int rc = 0;
    FILE *fp = fopen(path, "wb");
    png_structp png = fp ? png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL) : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!fp || !png || !info) {
        rc = fp ? ENOMEM : errno;
        fprintf(stderr, "render: cannot write %s: %s\n", path, strerror(rc));
    } else if (setjmp(png_jmpbuf(png))) {
        rc = EIO; /* libpng printed its message */
        fprintf(stderr, "render: libpng failed writing %s\n", path);
    } else {
        png_init_io(png, fp);
        png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
        png_set_compression_level(png, 3); /* fast: the image is for a look, not archival */
        png_set_rows(png, info, rows);
        png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    }
    if (png)
        png_destroy_write_struct(&png, info ? &info : NULL);
    if (fp && fclose(fp) != 0 && !rc) {
        rc = errno;
        fprintf(stderr, "render: closing %s: %s\n", path, strerror(rc));
    }
    free(pixels);
    free(rows);
    return rc;
}
