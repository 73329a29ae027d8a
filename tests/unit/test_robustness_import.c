/* Robustness of the glTF importer: every allocation of oroya_gltf_import (and of
 * oroya_gltf_load, which parses, validates and imports) failed in turn on several models:
 * a clean OUT_OF_MEMORY, *out NULL, nothing leaked. Also what a file that declares an
 * unbacked accessor can make the importer allocate. See docs/robustness.md. */
#include "oroya/gltf.h"
#include "internal/base.h"
#include "test_robustness_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ASSETS OROYA_SOURCE_DIR "/tests/assets/"

/* Import from data parsed with the plain allocator (parsing is covered by test_robustness),
 * everything the model owns from `a`; then touch the model and free it. */
static oroya_result path_import(const oroya_allocator *a, void *ctx, oroya_error *err) {
    const oroya_gltf_data *g = (const oroya_gltf_data *)ctx;
    oroya_gltf_model *m = (oroya_gltf_model *)(uintptr_t)1;
    oroya_result r = oroya_gltf_import(g, &(oroya_gltf_import_desc){.allocator = *a}, &m, err);
    if (r != OROYA_OK) {
        if (m != NULL)
            r = oroya__fail(err, OROYA_ERR_INVALID_DATA, "*out not NULL on error");
        return r;
    }
    oroya_scene_update_world(m->scene);
    float bones[64 * 16];
    for (uint32_t s = 0; s < m->skin_count; s++) {
        if (m->skins[s].joint_count <= 64)
            oroya_gltf_model_bone_matrices(m, s, bones);
    }
    oroya_gltf_model_free(m);
    return r;
}

static oroya_result path_load(const oroya_allocator *a, void *ctx, oroya_error *err) {
    oroya_gltf_model *m = NULL;
    oroya_result r =
        oroya_gltf_load((const char *)ctx, &(oroya_gltf_import_desc){.allocator = *a}, &m, err);
    oroya_gltf_model_free(m);
    return r;
}

static const char *const k_models[] = {
    ASSETS "RiggedSimple/glTF-Binary/RiggedSimple.glb",
    ASSETS "SimpleSkin/glTF-Embedded/SimpleSkin.gltf",
    ASSETS "BoxAnimated/glTF-Embedded/BoxAnimated.gltf",
    ASSETS "InterpolationTest/glTF-Binary/InterpolationTest.glb",
    ASSETS "SimpleMorph/glTF-Embedded/SimpleMorph.gltf",
    ASSETS "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
    ASSETS "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
    ASSETS "RiggedFigure/glTF/RiggedFigure.gltf",
};

static void test_fault_import(void) {
    for (size_t i = 0; i < sizeof k_models / sizeof k_models[0]; i++) {
        const char *name = strrchr(k_models[i], '/') + 1;
        oroya_gltf_data *g = NULL;
        oroya_error err = {0};
        if (oroya_gltf_parse_file(NULL, k_models[i], &g, &err) || oroya_gltf_validate(g, &err)) {
            OT_CHECK_MSG(0, "%s: %s", name, err.message);
            oroya_gltf_free(g);
            continue;
        }
        long n = rb_fail_each(name, path_import, g, true);
        OT_CHECK(n > 3);
        printf("  import %s: %ld allocations, each failed in turn\n", name, n);
        oroya_gltf_free(g);
    }
    const char *load = ASSETS "SimpleSkin/glTF/SimpleSkin.gltf";
    long n = rb_fail_each("oroya_gltf_load SimpleSkin", path_load, (void *)(uintptr_t)load, true);
    OT_CHECK(n > 3);
    printf("  load SimpleSkin.gltf: %ld allocations, each failed in turn\n", n);
}

/* An accessor without a bufferView is zeros backed by no bytes; validation caps it at
 * OROYA_GLTF_MAX_UNBACKED_BYTES (test_robustness checks the cap). Below the cap the importer
 * allocates for it what it would for real data: the decoded floats, the geometry's copy and
 * the computed normals, so at most 3x the accessor's bytes plus a little, here for 1 MiB of
 * POSITION (at the cap, 64 MiB, that is up to ~192 MiB for a file of 240 bytes). */
static void test_unbacked_accessor(void) {
    char json[1024];
    const unsigned vertices = 87381; /* 12 bytes each: 1 MiB minus 4 bytes */
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":"
             "{\"POSITION\":0}}]}],\"accessors\":[{\"componentType\":5126,\"count\":%u,"
             "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[0,0,0]}]}",
             vertices);
    rb_heap h;
    rb_reset(&h, 0);
    oroya_allocator a = rb_allocator(&h);
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    oroya_result r =
        oroya_gltf_parse(&(oroya_gltf_desc){.allocator = a}, json, strlen(json), &g, &err);
    if (r == OROYA_OK)
        r = oroya_gltf_load_buffers(g, &err);
    if (r == OROYA_OK)
        r = oroya_gltf_validate(g, &err);
    OT_CHECK_MSG(r == OROYA_OK, "%s", err.message);
    oroya_gltf_model *m = NULL;
    if (r == OROYA_OK) {
        r = oroya_gltf_import(g, &(oroya_gltf_import_desc){.allocator = a, .skip_images = true}, &m,
                              &err);
        printf("  unbacked POSITION accessor of %u bytes: import %s, peak %zu bytes for %zu "
               "bytes of JSON\n",
               vertices * 12u, oroya_result_string(r), h.peak_bytes, strlen(json));
        OT_CHECK(h.peak_bytes <= 3u * vertices * 12u + 64u * 1024u);
    }
    oroya_gltf_model_free(m);
    oroya_gltf_free(g);
    OT_EQ_INT(h.live, 0);
}

/* A one-node glTF whose rotation animation has two keys, values given as floats, in a
 * base64 data: URI. */
static void b64(const unsigned char *in, size_t n, char *out) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = a[v >> 18 & 63];
        out[o++] = a[v >> 12 & 63];
        out[o++] = i + 1 < n ? a[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? a[v & 63] : '=';
    }
    out[o] = '\0';
}

static oroya_result import_rotation_keys(const float q[8], oroya_gltf_model **out,
                                         oroya_error *err) {
    float bytes[10] = {0.0f, 1.0f};
    memcpy(bytes + 2, q, 8 * sizeof(float));
    char enc[64], json[1024];
    b64((const unsigned char *)bytes, sizeof bytes, enc);
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"name\":\"n\"}],\"buffers\":[{\"byteLength\":40,\"uri\":"
             "\"data:application/octet-stream;base64,%s\"}],\"bufferViews\":[{\"buffer\":0,"
             "\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":32}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":"
             "\"SCALAR\",\"min\":[0],\"max\":[1]},{\"bufferView\":1,\"componentType\":5126,"
             "\"count\":2,\"type\":\"VEC4\"}],\"animations\":[{\"samplers\":[{\"input\":0,"
             "\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
             "\"rotation\"}}]}]}",
             enc);
    oroya_gltf_data *g = NULL;
    *out = NULL;
    oroya_result r = oroya_gltf_parse(NULL, json, strlen(json), &g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_load_buffers(g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_validate(g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_import(g, NULL, out, err);
    oroya_gltf_free(g);
    return r;
}

/* NaN key values in a file are refused at import, naming the animation; non-unit
 * quaternion keys are normalized and counted on the clip (issue 11); a zero quaternion is
 * refused naming the animation, track and key. */
static void test_bad_rotation_keys(void) {
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    const float with_nan[8] = {0, 0, 0, 1, 0, NAN, 0, 1};
    OT_EQ_INT(import_rotation_keys(with_nan, &m, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK(m == NULL);
    OT_CHECK_MSG(strstr(err.message, "animations[0]") != NULL, "%s", err.message);

    const float zero[8] = {0, 0, 0, 2, 0, 0, 0, 0}; /* length 2, then the zero quaternion */
    memset(&err, 0, sizeof err);
    OT_EQ_INT(import_rotation_keys(zero, &m, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK(m == NULL);
    OT_CHECK_MSG(strstr(err.message, "animations[0].channels[0] (samplers[0])") &&
                     strstr(err.message, "key 1: the zero quaternion"),
                 "%s", err.message);

    const float odd[8] = {0, 0, 0, 2, 0, 3, 0, 4}; /* lengths 2 and 5 */
    memset(&err, 0, sizeof err);
    OT_EQ_INT(import_rotation_keys(odd, &m, &err), OROYA_OK);
    if (!m)
        return;
    OT_EQ_INT(m->clip_count, 1);
    OT_EQ_INT(m->clips[0]->normalized_key_count, 2);
    OT_EQ_INT(m->clips[0]->first_normalized_track, 0);
    OT_EQ_INT(m->clips[0]->first_normalized_key, 0);
    const oroya_track *t = &m->clips[0]->tracks[0];
    OT_CHECK(t->values[3] == 1.0f && t->values[5] == 0.6f && t->values[7] == 0.8f);
    for (int i = 0; i <= 20; i++) {
        float q[4];
        oroya_track_sample(t, i * 0.05, NULL, NULL, q);
        OT_CHECK_MSG(isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3]),
                     "t=%g: %g %g %g %g", i * 0.05, (double)q[0], (double)q[1], (double)q[2],
                     (double)q[3]);
    }
    oroya_gltf_model_free(m);
}

int main(void) {
    RB_RUN(test_fault_import);
    RB_RUN(test_unbacked_accessor);
    RB_RUN(test_bad_rotation_keys);
    return ot_finish();
}
