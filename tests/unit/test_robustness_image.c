/* Robustness of image decoding in the glTF importer: stb_image allocates through the
 * import desc's allocator, so its memory is counted and every one of its allocations,
 * failed in turn, gives a clean OUT_OF_MEMORY with nothing leaked. Models: CesiumMan.glb
 * (a JPEG in the BIN chunk) and AnimatedCube.gltf (a PNG file next to it). */
#include "oroya/gltf.h"
#include "test_robustness_common.h"

#include <stdio.h>
#include <string.h>

#define ASSETS OROYA_SOURCE_DIR "/tests/assets/"

typedef struct image_case {
    const char *path;
    oroya_gltf_data *data;
} image_case;

static oroya_result import_with(const oroya_gltf_data *g, const oroya_allocator *a,
                                bool skip_images, size_t *pixel_bytes, oroya_error *err) {
    oroya_gltf_model *m = (oroya_gltf_model *)(uintptr_t)1;
    oroya_result r = oroya_gltf_import(
        g, &(oroya_gltf_import_desc){.allocator = *a, .skip_images = skip_images}, &m, err);
    if (r != OROYA_OK) {
        if (m != NULL) {
            err->result = OROYA_ERR_INVALID_DATA;
            snprintf(err->message, sizeof err->message, "*out not NULL on error");
            return OROYA_ERR_INVALID_DATA;
        }
        return r;
    }
    size_t bytes = 0;
    for (uint32_t i = 0; i < m->image_count; i++) {
        bytes += (size_t)m->images[i].width * m->images[i].height * 4u;
    }
    if (pixel_bytes)
        *pixel_bytes = bytes;
    oroya_gltf_model_free(m);
    return r;
}

static oroya_result path_import_images(const oroya_allocator *a, void *ctx, oroya_error *err) {
    return import_with(((const image_case *)ctx)->data, a, false, NULL, err);
}

static void test_image_allocations(void) {
    image_case cases[] = {{ASSETS "CesiumMan/glTF-Binary/CesiumMan.glb", NULL},
                          {ASSETS "AnimatedCube/glTF/AnimatedCube.gltf", NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        image_case *c = &cases[i];
        const char *name = strrchr(c->path, '/') + 1;
        oroya_error err = {0};
        if (oroya_gltf_parse_file(NULL, c->path, &c->data, &err) ||
            oroya_gltf_validate(c->data, &err)) {
            OT_CHECK_MSG(0, "%s: %s", name, err.message);
            oroya_gltf_free(c->data);
            continue;
        }
        /* The decoder's own memory comes from the allocator: with images, the allocator
         * hands out the model's copy of the pixels and stb_image's decoded buffer (plus
         * its working memory) on top of what an import without images takes. */
        rb_heap with, without;
        rb_reset(&with, 0);
        rb_reset(&without, 0);
        oroya_allocator aw = rb_allocator(&with), ao = rb_allocator(&without);
        size_t pixels = 0;
        OT_CHECK_MSG(import_with(c->data, &aw, false, &pixels, &err) == OROYA_OK, "%s: %s", name,
                     err.message);
        OT_CHECK_MSG(import_with(c->data, &ao, true, NULL, &err) == OROYA_OK, "%s: %s", name,
                     err.message);
        OT_CHECK(pixels > 0);
        OT_CHECK_MSG(with.total_bytes - without.total_bytes >= 2 * pixels,
                     "%s: images add %zu bytes through the allocator for %zu decoded bytes", name,
                     with.total_bytes - without.total_bytes, pixels);
        printf("  %s: %zu pixel bytes; the import with images takes %zu more bytes, %ld more "
               "allocations\n",
               name, pixels, with.total_bytes - without.total_bytes, with.calls - without.calls);

        long n = rb_fail_each(name, path_import_images, c, true);
        OT_CHECK(n > with.calls - without.calls);
        printf("  import %s with images: %ld allocations, each failed in turn\n", name, n);
        oroya_gltf_free(c->data);
    }
}

int main(void) {
    RB_RUN(test_image_allocations);
    return ot_finish();
}
