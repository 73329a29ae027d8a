/* Shared by the glTF fuzz targets: run the whole pipeline on parsed data, then free it.
 * "Use" means what a loader does after validation: decode every accessor. */
#ifndef OROYA_FUZZ_COMMON_H
#define OROYA_FUZZ_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "oroya/gltf.h"

static void fuzz_use(oroya_gltf_data *g) {
    oroya_error err;
    for (uint32_t a = 0; a < g->accessor_count; a++) {
        size_t n = oroya_gltf_accessor_float_count(g, a);
        float *f = (float *)malloc(n ? n * sizeof *f : 1);
        uint32_t *u = (uint32_t *)malloc(n ? n * sizeof *u : 1);
        if (f && u) {
            if (oroya_gltf_accessor_unpack_floats(g, a, f, n, &err) != OROYA_OK) {
                abort(); /* validated data must always decode */
            }
            (void)oroya_gltf_accessor_unpack_uints(g, a, u, n, &err);
            /* Reading every value makes MSan/ASan see any uninitialised or stray byte. */
            volatile float sink = 0.0f;
            for (size_t i = 0; i < n; i++) {
                sink += f[i];
            }
            (void)sink;
        }
        free(f);
        free(u);
    }
}

/* parse -> load buffers (data: URIs and GLB BIN only: no base directory) -> validate -> use. */
static void fuzz_pipeline(const uint8_t *data, size_t size) {
    oroya_gltf_data *g = NULL;
    oroya_error err;
    memset(&err, 0, sizeof err);
    if (oroya_gltf_parse(NULL, data, size, &g, &err) != OROYA_OK) {
        if (g || err.message[0] == '\0') {
            abort(); /* a failure must leave no data and say why */
        }
        return;
    }
    if (oroya_gltf_load_buffers(g, &err) == OROYA_OK && oroya_gltf_validate(g, &err) == OROYA_OK) {
        fuzz_use(g);
    }
    oroya_gltf_free(g);
}

#endif
