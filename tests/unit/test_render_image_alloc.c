/* The image writers honour the caller's allocator: oroya_image_save_png (libpng's memory
 * included) and oroya_image_save_gif (its histogram, palette search and index frame) take
 * their memory from oroya_image_desc.allocator, and every one of those allocations, refused
 * in turn, gives a clean OUT_OF_MEMORY with a message, nothing leaked and no file left
 * behind. The files written by the clean runs are read back (stb_image, giflib) and compared
 * with the pixels given. */
#include <gif_lib.h>
#include <stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "oroya/render.h"
#include "test_robustness_common.h"

#define W 37 /* odd sizes: rows are not a multiple of any block size */
#define H 23
#define FRAMES 3

static uint8_t pixels[FRAMES * W * H * 4];

static void fill_pixels(void) {
    for (uint32_t f = 0; f < FRAMES; f++) {
        for (uint32_t y = 0; y < H; y++) {
            for (uint32_t x = 0; x < W; x++) {
                uint8_t *p = pixels + (((size_t)f * H + y) * W + x) * 4;
                /* 8 x 8 x 3 = 192 colors, each in its own cell of the GIF writer's 5-bit
                 * histogram, so its palette holds each exactly and the GIF is lossless. */
                p[0] = (uint8_t)((x % 8) * 32 + 2);
                p[1] = (uint8_t)((y % 8) * 32 + 2);
                p[2] = (uint8_t)(f * 64 + 2);
                p[3] = (uint8_t)(255 - x);
            }
        }
    }
}

static const char *png_path = OROYA_BINARY_DIR "/test_render_image_alloc.png";
static const char *gif_path = OROYA_BINARY_DIR "/test_render_image_alloc.gif";

static bool file_exists(const char *path) { return access(path, F_OK) == 0; }

static oroya_result path_png(const oroya_allocator *a, void *ctx, oroya_error *err) {
    (void)ctx;
    remove(png_path);
    oroya_image_desc d = {.width = W, .height = H, .pixels = pixels, .allocator = *a};
    oroya_result r = oroya_image_save_png(png_path, &d, err);
    if (r != OROYA_OK && file_exists(png_path)) {
        return oroya_error_set(err, OROYA_ERR_INVALID_DATA, "a file is left after an error");
    }
    return r;
}

static oroya_result path_gif(const oroya_allocator *a, void *ctx, oroya_error *err) {
    (void)ctx;
    remove(gif_path);
    oroya_image_desc d = {.width = W,
                          .height = H,
                          .pixels = pixels,
                          .frame_count = FRAMES,
                          .delay_cs = 7,
                          .allocator = *a};
    oroya_result r = oroya_image_save_gif(gif_path, &d, err);
    if (r != OROYA_OK && file_exists(gif_path)) {
        return oroya_error_set(err, OROYA_ERR_INVALID_DATA, "a file is left after an error");
    }
    return r;
}

static void test_png_allocations(void) {
    long n = rb_fail_each("png", path_png, NULL, true);
    /* libpng makes its write struct, info struct, row buffers and zlib state: several
     * allocations, all through the desc's allocator. */
    OT_CHECK_MSG(n >= 4, "png: %ld allocations through the allocator", n);
    printf("  png: %ld allocations, each refused in turn\n", n);

    int w = 0, h = 0, comp = 0;
    unsigned char *back = stbi_load(png_path, &w, &h, &comp, 4);
    OT_CHECK(back != NULL);
    if (back) {
        OT_CHECK(w == W && h == H && comp == 4);
        OT_CHECK(memcmp(back, pixels, (size_t)W * H * 4) == 0);
        stbi_image_free(back);
    }
}

static void test_gif_allocations(void) {
    long n = rb_fail_each("gif", path_gif, NULL, true);
    OT_CHECK_MSG(n >= 1, "gif: %ld allocations through the allocator", n);
    printf("  gif: %ld allocations, each refused in turn\n", n);

    int e = 0;
    GifFileType *g = DGifOpenFileName(gif_path, &e);
    OT_CHECK(g != NULL);
    if (!g) {
        return;
    }
    OT_CHECK(DGifSlurp(g) == GIF_OK);
    OT_CHECK(g->SWidth == W && g->SHeight == H && g->ImageCount == FRAMES);
    /* With fewer than 256 colors, one per histogram cell, every pixel comes back exact. */
    long wrong = 0;
    for (int f = 0; f < g->ImageCount && f < FRAMES; f++) {
        const SavedImage *im = &g->SavedImages[f];
        const ColorMapObject *map = im->ImageDesc.ColorMap ? im->ImageDesc.ColorMap : g->SColorMap;
        for (int i = 0; i < W * H; i++) {
            const GifColorType c = map->Colors[im->RasterBits[i]];
            const uint8_t *p = pixels + ((size_t)f * W * H + (size_t)i) * 4;
            wrong += c.Red != p[0] || c.Green != p[1] || c.Blue != p[2];
        }
    }
    OT_CHECK_MSG(wrong == 0, "gif: %ld of %d pixels differ", wrong, FRAMES * W * H);
    DGifCloseFile(g, &e);
}

/* The desc is checked before anything is allocated or opened. */
static void test_desc_errors(void) {
    rb_heap h;
    rb_reset(&h, 0);
    oroya_error err = {0};
    oroya_image_desc d = {.width = W, .height = H, .pixels = pixels};
    OT_CHECK(oroya_image_save_png(NULL, &d, &err) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_image_save_png(png_path, NULL, &err) == OROYA_ERR_INVALID_ARGUMENT);
    d.width = 0;
    OT_CHECK(oroya_image_save_gif(gif_path, &d, &err) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "0x23") != NULL);
    d.width = W;
    d.allocator = rb_allocator(&h);
    d.allocator.free = NULL;
    OT_CHECK(oroya_image_save_png(png_path, &d, &err) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "allocator") != NULL);
    OT_CHECK(h.calls == 0);
    d.allocator = rb_allocator(&h);
    OT_CHECK(oroya_image_save_png("/nonexistent-dir/x.png", &d, &err) == OROYA_ERR_IO);
    OT_CHECK(strstr(err.message, "/nonexistent-dir/x.png") != NULL);
    OT_CHECK(h.live == 0);
}

int main(void) {
    fill_pixels();
    RB_RUN(test_png_allocations);
    RB_RUN(test_gif_allocations);
    RB_RUN(test_desc_errors);
    remove(png_path);
    remove(gif_path);
    return ot_finish();
}
