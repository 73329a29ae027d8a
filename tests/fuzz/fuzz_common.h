/* Shared by the glTF fuzz targets: run the whole pipeline on parsed data, then free it.
 * "Use" means what a loader and a player do after validation: decode every accessor, import
 * the scene, clips, skins, geometries and images, sample every clip at a few times, update
 * world matrices and compute every skin's bone matrices. */
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

/* Import, then play: each clip sampled at the start, middle and past the end. */
static void fuzz_import(const oroya_gltf_data *g) {
    oroya_gltf_model *m = NULL;
    oroya_error err;
    if (oroya_gltf_import(g, NULL, &m, &err) != OROYA_OK) {
        if (m) {
            abort();
        }
        return;
    }
    /* What a tool prints: the reason an animation's extras were dropped. */
    if ((m->ignored_extras_count == 0) != (m->first_ignored_extras == NULL) ||
        (m->first_ignored_extras && strlen(m->first_ignored_extras) == 0)) {
        abort();
    }
    uint32_t max_joints = 0;
    for (uint32_t s = 0; s < m->skin_count; s++) {
        if (m->skins[s].joint_count > max_joints) {
            max_joints = m->skins[s].joint_count;
        }
    }
    float *bones = (float *)malloc((size_t)(max_joints + 1) * 16 * sizeof(float));
    for (uint32_t c = 0; c < m->clip_count && bones; c++) {
        const oroya_clip *clip = m->clips[c];
        double times[3] = {0.0, (double)clip->duration * 0.5, (double)clip->duration + 1.0};
        for (int k = 0; k < 3; k++) {
            for (uint32_t t = 0; t < clip->track_count; t++) {
                const oroya_track *tr = &clip->tracks[t];
                oroya_node node;
                if (oroya_scene_find_node(m->scene, tr->target, &node) != OROYA_OK) {
                    continue;
                }
                float v[4];
                uint32_t cursor = 0, n = 0;
                if (tr->property == OROYA_PROPERTY_WEIGHTS) {
                    float *w = oroya_scene_weights(m->scene, node, &n);
                    if (w && n == tr->components) {
                        oroya_track_sample(tr, times[k], &cursor, NULL, w);
                    }
                    continue;
                }
                oroya_transform x;
                oroya_scene_get_transform(m->scene, node, &x);
                oroya_track_sample(tr, times[k], &cursor, NULL, v);
                if (tr->property == OROYA_PROPERTY_ROTATION) {
                    x.rotation = (oroya_quat){v[0], v[1], v[2], v[3]};
                } else if (tr->property == OROYA_PROPERTY_TRANSLATION) {
                    x.translation = (oroya_vec3){v[0], v[1], v[2]};
                } else {
                    x.scale = (oroya_vec3){v[0], v[1], v[2]};
                }
                (void)oroya_scene_set_transform(m->scene, node, &x);
            }
            oroya_scene_update_world(m->scene);
            for (uint32_t s = 0; s < m->skin_count; s++) {
                oroya_gltf_model_bone_matrices(m, s, bones);
            }
        }
    }
    free(bones);
    oroya_gltf_model_free(m);
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
        fuzz_import(g);
    }
    oroya_gltf_free(g);
}

#endif
