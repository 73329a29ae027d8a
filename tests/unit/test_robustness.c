/* Robustness of the runtime core and the glTF reader: every allocation of every create and
 * load path failed in turn (clean OUT_OF_MEMORY, nothing leaked), bad runtime input with its
 * documented behaviour, documented limits, files that declare more than they hold, and
 * determinism (the same inputs give the same bits however the work is chunked). See
 * docs/robustness.md. The mixer, importer and scenario paths live in their own
 * test_robustness_*.c programs. */
#define _POSIX_C_SOURCE 200809L /* popen: the determinism check runs this program again */
#include "oroya/clip.h"
#include "oroya/gltf.h"
#include "oroya/scene.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"
#include "oroya/track.h"
#include "internal/base.h"
#include "test_robustness_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASSETS OROYA_SOURCE_DIR "/tests/assets/"

/* ---- fault injection: scene ------------------------------------------------------------- */

/* A scene that has to grow (capacity hint 2), named and unnamed nodes, morph weights set,
 * grown and shrunk, a rename, a re-parent that moves a subtree (temporary allocation) and a
 * subtree removal. */
static oroya_result path_scene(const oroya_allocator *a, void *ctx, oroya_error *err) {
    (void)ctx;
    (void)err;
    oroya_scene *s = NULL;
    oroya_result r =
        oroya_scene_create(&(oroya_scene_desc){.capacity_hint = 2, .allocator = *a}, &s);
    if (r)
        return r;
    oroya_node nodes[40] = {{0}};
    for (uint32_t i = 0; i < 40 && r == OROYA_OK; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        oroya_node parent = i == 0 ? (oroya_node){0} : nodes[(i - 1) / 3];
        r = oroya_scene_add_node(s, i % 5 == 4 ? NULL : name, parent, OROYA_NODE_BONE, &nodes[i]);
    }
    if (r == OROYA_OK)
        r = oroya_scene_set_weight_count(s, nodes[3], 8);
    if (r == OROYA_OK)
        r = oroya_scene_set_weight_count(s, nodes[3], 64);
    if (r == OROYA_OK)
        r = oroya_scene_set_weight_count(s, nodes[3], 2);
    if (r == OROYA_OK)
        r = oroya_scene_set_weight_count(s, nodes[7], 4);
    if (r == OROYA_OK)
        r = oroya_scene_set_name(s, nodes[2], "a much longer name than before");
    /* nodes[1] moves under the last node: its subtree goes to the end of the dense arrays. */
    if (r == OROYA_OK)
        r = oroya_scene_set_parent(s, nodes[1], nodes[39]);
    if (r == OROYA_OK)
        r = oroya_scene_remove_node(s, nodes[2]);
    if (r == OROYA_OK) {
        oroya_scene_update_world(s);
        uint32_t n = 0;
        float *w = oroya_scene_weights(s, nodes[3], &n);
        if (!w || n != 2 || w[0] != 0.0f || w[1] != 0.0f)
            r = OROYA_ERR_INVALID_DATA;
    }
    oroya_scene_destroy(s);
    return r;
}

static void test_fault_scene(void) {
    long n = rb_fail_each("scene", path_scene, NULL, false);
    OT_CHECK(n > 3);
    printf("  scene path: %ld allocations, each failed in turn\n", n);
}

/* A failed add_node must leave the scene as it was (scene.h: "On error the scene is
 * unchanged"): same count, same layout version, and the next add works. */
static void test_fault_scene_unchanged(void) {
    rb_heap h;
    for (long n = 1; n < 400; n++) {
        rb_reset(&h, 0);
        oroya_scene *s = NULL;
        OT_EQ_INT(oroya_scene_create(
                      &(oroya_scene_desc){.capacity_hint = 1, .allocator = rb_allocator(&h)}, &s),
                  OROYA_OK);
        if (!s)
            return;
        h.fail_at = h.calls + n;
        uint32_t count = 0, version = 0;
        oroya_result r = OROYA_OK;
        int added = 0;
        for (; added < 100; added++) {
            count = oroya_scene_node_count(s);
            version = oroya_scene_layout_version(s);
            oroya_node out = {0};
            r = oroya_scene_add_node(s, "bone with a long enough name", (oroya_node){0},
                                     OROYA_NODE_BONE, &out);
            if (r) {
                OT_EQ_INT(out.id, 0);
                break;
            }
        }
        bool refused = h.refused > 0;
        if (refused) {
            OT_EQ_INT(r, OROYA_ERR_OUT_OF_MEMORY);
            OT_EQ_INT(oroya_scene_node_count(s), count);
            OT_EQ_INT(oroya_scene_layout_version(s), version);
            oroya_node again = {0};
            OT_EQ_INT(oroya_scene_add_node(s, "again", (oroya_node){0}, OROYA_NODE_BONE, &again),
                      OROYA_OK);
            OT_CHECK(oroya_scene_node_valid(s, again));
            OT_EQ_INT(oroya_scene_node_count(s), count + 1);
        }
        oroya_scene_destroy(s);
        OT_EQ_INT(h.live, 0);
        if (!refused)
            break;
    }
}

/* ---- fault injection: clips ------------------------------------------------------------- */

static const float k_times[5] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f};
static const float k_trans[15] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 3, 1, 0};
static const float k_rot[20] = {0, 0,          0, 1,          0, 0.3826834f, 0, 0.9238795f,
                                0, 0.7071068f, 0, 0.7071068f, 0, 0.9238795f, 0, 0.3826834f,
                                0, 1,          0, 0};
static const float k_cubic[45] = {0};
static const float k_weights[10] = {0, 1, 0.25f, 0.75f, 0.5f, 0.5f, 0.75f, 0.25f, 1, 0};

static oroya_track make_track(const char *target, oroya_property p, oroya_interpolation in,
                              uint32_t comps, uint32_t keys, const float *times,
                              const float *values) {
    oroya_track t;
    memset(&t, 0, sizeof t);
    t.target = target;
    t.property = p;
    t.interpolation = in;
    t.components = comps;
    t.key_count = keys;
    t.times = times;
    t.values = values;
    t.twist_axis = (oroya_vec3){0, 1, 0};
    return t;
}

static oroya_result path_clip(const oroya_allocator *a, void *ctx, oroya_error *err) {
    (void)ctx;
    oroya_track tracks[5] = {
        make_track("hips", OROYA_PROPERTY_TRANSLATION, OROYA_INTERP_LINEAR, 3, 5, k_times, k_trans),
        make_track("hips", OROYA_PROPERTY_ROTATION, OROYA_INTERP_LINEAR, 4, 5, k_times, k_rot),
        make_track("spine", OROYA_PROPERTY_SCALE, OROYA_INTERP_CUBICSPLINE, 3, 5, k_times, k_cubic),
        make_track("face", OROYA_PROPERTY_WEIGHTS, OROYA_INTERP_STEP, 2, 5, k_times, k_weights),
        make_track("arm", OROYA_PROPERTY_ROTATION, OROYA_INTERP_STERP, 4, 5, k_times, k_rot),
    };
    oroya_clip *clip = NULL, *clone = NULL, *sub = NULL;
    oroya_result r = oroya_clip_create(
        &(oroya_clip_desc){.name = "walk", .tracks = tracks, .track_count = 5, .allocator = *a},
        &clip, err);
    if (r == OROYA_OK)
        r = oroya_clip_clone(clip, &clone, err);
    if (r == OROYA_OK)
        r = oroya_clip_subclip(clone, "part", 15, 45, 30, &sub, err);
    if (r == OROYA_OK)
        r = oroya_clip_optimize(clone, 0.0f, err);
    if (r == OROYA_OK)
        r = oroya_clip_validate(clone, err);
    if (r == OROYA_OK && (sub->track_count != 5 || sub->tracks[0].key_count != 2)) {
        r = oroya__fail(err, OROYA_ERR_INVALID_DATA, "subclip kept the wrong keys");
    }
    oroya_clip_destroy(sub);
    oroya_clip_destroy(clone);
    oroya_clip_destroy(clip);
    return r;
}

static void test_fault_clip(void) {
    long n = rb_fail_each("clip", path_clip, NULL, true);
    OT_CHECK(n >= 4); /* create, clone, subclip (views + clip), optimize scratch */
    printf("  clip path: %ld allocations, each failed in turn\n", n);
}

/* ---- fault injection: skeletons and skins ----------------------------------------------- */

typedef struct skin_ctx {
    uint32_t bones; /* > OROYA_MAX_JOINTS makes bind allocate the job scratch */
} skin_ctx;

/* A chain of bones in a scene made with the plain allocator (the scene path is covered
 * above), a skeleton and a skin from `a`, bound, posed and computed. */
static oroya_result path_skin(const oroya_allocator *a, void *ctx, oroya_error *err) {
    const skin_ctx *c = (const skin_ctx *)ctx;
    oroya_scene *s = NULL;
    if (oroya_scene_create(NULL, &s))
        return OROYA_ERR_INVALID_DATA; /* not under test */
    oroya_node *bones = (oroya_node *)calloc(c->bones, sizeof *bones);
    oroya_node mesh = {0};
    oroya_scene_add_node(s, "mesh", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, &mesh);
    for (uint32_t i = 0; i < c->bones; i++) {
        oroya_scene_add_node(s, NULL, i ? bones[i - 1] : (oroya_node){0}, OROYA_NODE_BONE,
                             &bones[i]);
        oroya_transform t = oroya_transform_identity();
        t.translation.y = 0.1f;
        oroya_scene_set_transform(s, bones[i], &t);
    }
    oroya_scene_update_world(s);
    enum { NV = 6 };
    float pos[NV * 3], out[NV * 3], nrm[NV * 3], bounds[6];
    uint16_t joints[NV * 4];
    float weights[NV * 4];
    for (uint32_t v = 0; v < NV; v++) {
        pos[v * 3] = 0.1f * (float)v;
        pos[v * 3 + 1] = 0.05f * (float)v;
        pos[v * 3 + 2] = 0.0f;
        nrm[v * 3] = 0.0f;
        nrm[v * 3 + 1] = 0.0f;
        nrm[v * 3 + 2] = 1.0f;
        for (int k = 0; k < 4; k++) {
            joints[v * 4 + (uint32_t)k] = (uint16_t)((v * 7u + (uint32_t)k * 3u) % c->bones);
            weights[v * 4 + (uint32_t)k] = k == 0 ? 0.5f : k == 1 ? 0.5f : 0.0f;
        }
    }
    oroya_skeleton *sk = NULL;
    oroya_skin *skin = NULL;
    oroya_result r = oroya_skeleton_create(
        s, &(oroya_skeleton_desc){.bones = bones, .bone_count = c->bones, .allocator = *a}, &sk,
        err);
    if (r == OROYA_OK) {
        r = oroya_skin_create(&(oroya_skin_desc){.mesh = mesh,
                                                 .vertex_count = NV,
                                                 .positions = pos,
                                                 .normals = nrm,
                                                 .joints = joints,
                                                 .weights = weights,
                                                 .allocator = *a},
                              &skin, err);
    }
    if (r == OROYA_OK)
        r = oroya_skin_bind(skin, s, sk, NULL, err);
    if (r == OROYA_OK)
        r = oroya_skeleton_update(sk, s, err);
    if (r == OROYA_OK)
        r = oroya_skin_update(skin, s, err);
    if (r == OROYA_OK)
        r = oroya_skin_compute(skin, out, nrm, bounds, err);
    /* The bind pose skins to the rest positions. */
    for (uint32_t i = 0; r == OROYA_OK && i < NV * 3; i++) {
        if (fabsf(out[i] - pos[i]) > 1e-5f) {
            r = oroya__fail(err, OROYA_ERR_INVALID_DATA, "vertex %u moved in the bind pose", i / 3);
        }
    }
    oroya_skin_destroy(skin);
    oroya_skeleton_destroy(sk);
    free(bones);
    oroya_scene_destroy(s);
    return r;
}

static void test_fault_skin(void) {
    skin_ctx small = {3}, big = {OROYA_MAX_JOINTS + 44};
    long n1 = rb_fail_each("skin, 3 bones", path_skin, &small, true);
    long n2 = rb_fail_each("skin, 300 bones", path_skin, &big, true);
    OT_CHECK(n1 >= 2);
    OT_CHECK(n2 > n1); /* the job scratch for a palette over OROYA_MAX_JOINTS */
    printf("  skin paths: %ld and %ld allocations, each failed in turn\n", n1, n2);
}

/* ---- fault injection: glTF ------------------------------------------------------------- */

/* parse_file (which loads the buffers) + load_buffers again (idempotent) + validate + decode
 * every accessor. Memory for the decoded floats comes from `a` too. */
static oroya_result path_gltf_file(const oroya_allocator *a, void *ctx, oroya_error *err) {
    const char *file = (const char *)ctx;
    oroya_gltf_data *g = NULL;
    oroya_result r = oroya_gltf_parse_file(&(oroya_gltf_desc){.allocator = *a}, file, &g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_load_buffers(g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_validate(g, err);
    for (uint32_t i = 0; r == OROYA_OK && i < g->accessor_count; i++) {
        size_t n = oroya_gltf_accessor_float_count(g, i);
        float *v = (float *)a->alloc(n * sizeof(float), 16, a->user);
        if (!v) {
            r = oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "accessor %u: test buffer", i);
            break;
        }
        r = oroya_gltf_accessor_unpack_floats(g, i, v, n, err);
        a->free(v, a->user);
    }
    oroya_gltf_free(g);
    return r;
}

/* Parse from memory with a base directory, then load_buffers and validate separately. */
typedef struct mem_ctx {
    const char *file;
    const char *dir;
    unsigned char *bytes;
    size_t size;
} mem_ctx;

static oroya_result path_gltf_memory(const oroya_allocator *a, void *ctx, oroya_error *err) {
    const mem_ctx *m = (const mem_ctx *)ctx;
    oroya_gltf_data *g = NULL;
    oroya_result r = oroya_gltf_parse(&(oroya_gltf_desc){.allocator = *a, .base_dir = m->dir},
                                      m->bytes, m->size, &g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_load_buffers(g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_validate(g, err);
    oroya_gltf_free(g);
    return r;
}

static unsigned char *read_bytes(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = (unsigned char *)malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static const char *const k_models[] = {
    /* Small files only: the loop parses a model once per allocation, and must stay fast
     * under valgrind. CesiumMan.glb (480 KiB) is loaded by the determinism test. */
    ASSETS "RiggedSimple/glTF-Binary/RiggedSimple.glb",
    ASSETS "RiggedFigure/glTF/RiggedFigure.gltf",                          /* external .bin */
    ASSETS "AnimatedTriangle/glTF/AnimatedTriangle.gltf",                  /* two .bin files */
    ASSETS "BoxAnimated/glTF-Embedded/BoxAnimated.gltf",                   /* data: URI */
    ASSETS "InterpolationTest/glTF-Binary/InterpolationTest.glb",          /* 9 animations */
    ASSETS "SimpleMorph/glTF-Embedded/SimpleMorph.gltf",                   /* morph targets */
    ASSETS "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",      /* unorm8 output */
    ASSETS "SimpleSparseAccessor/glTF-Embedded/SimpleSparseAccessor.gltf", /* sparse */
    ASSETS "CesiumMilkTruck/glTF/CesiumMilkTruck.gltf",                    /* images, textures */
};

static void test_fault_gltf(void) {
    for (size_t i = 0; i < sizeof k_models / sizeof k_models[0]; i++) {
        const char *name = strrchr(k_models[i], '/') + 1;
        long n = rb_fail_each(name, path_gltf_file, (void *)(uintptr_t)k_models[i], true);
        OT_CHECK(n > 5);
        printf("  %s: %ld allocations, each failed in turn\n", name, n);
    }
    /* base_dir with its trailing '/': see test_robustness_bugs.c for the one without. */
    mem_ctx m = {ASSETS "RiggedSimple/glTF/RiggedSimple.gltf", ASSETS "RiggedSimple/glTF/", NULL,
                 0};
    m.bytes = read_bytes(m.file, &m.size);
    OT_CHECK(m.bytes != NULL);
    if (m.bytes) {
        long n = rb_fail_each("RiggedSimple.gltf from memory", path_gltf_memory, &m, true);
        OT_CHECK(n > 5);
        printf("  RiggedSimple.gltf from memory: %ld allocations\n", n);
        free(m.bytes);
    }
}

/* ---- files that declare more than they hold ------------------------------------------- */

/* Parses `json` from memory with the counting heap and runs load_buffers and validate.
 * Returns the first failure; *heap holds what was allocated. */
static oroya_result load_counted(const void *bytes, size_t size, rb_heap *heap, oroya_error *err) {
    rb_reset(heap, 0);
    oroya_gltf_data *g = NULL;
    oroya_result r =
        oroya_gltf_parse(&(oroya_gltf_desc){.allocator = rb_allocator(heap), .base_dir = ASSETS},
                         bytes, size, &g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_load_buffers(g, err);
    if (r == OROYA_OK)
        r = oroya_gltf_validate(g, err);
    oroya_gltf_free(g);
    OT_EQ_INT(heap->live, 0);
    return r;
}

/* What a file may cost: proportional to its size (the parsed structs are larger than their
 * JSON text) plus a fixed amount, never its declared counts. */
static size_t backed_bound(size_t file_size) { return 64 * file_size + 64 * 1024; }

#define B64_12 "data:application/octet-stream;base64,AAAAAAAAAAAAAAAA" /* 12 zero bytes */

static void test_huge_declared_counts(void) {
    static const struct {
        const char *what;
        const char *json;
        oroya_result expect;
    } cases[] = {
        {"accessor count 2^32-2 on a 12-byte view",
         "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":\"" B64_12
         "\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],\"accessors\":[{"
         "\"bufferView\":0,\"componentType\":5126,\"count\":4294967294,\"type\":\"VEC3\"}]}",
         OROYA_ERR_OUT_OF_RANGE},
        {"accessor count 2^32-2 without a bufferView (unbacked)",
         "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,"
         "\"count\":4294967294,\"type\":\"MAT4\"}]}",
         OROYA_ERR_LIMIT},
        {"buffer byteLength 2^31 backed by 12 bytes",
         "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":2147483648,\"uri\":"
         "\"" B64_12 "\"}]}",
         OROYA_ERR_INVALID_DATA},
        {"buffer byteLength 2^53 backed by 12 bytes",
         "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":9007199254740992,"
         "\"uri\":\"" B64_12 "\"}]}",
         OROYA_ERR_PARSE}, /* over OROYA_GLTF_MAX_FILE_SIZE: refused by the parser */
        {"bufferView byteLength 2^31 in a 12-byte buffer",
         "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":\"" B64_12
         "\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":2147483648}]}",
         OROYA_ERR_OUT_OF_RANGE},
        {"sparse count 10^6 with 12 bytes of indices",
         "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":\"" B64_12
         "\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],\"accessors\":[{"
         "\"componentType\":5126,\"count\":1000000,\"type\":\"SCALAR\",\"sparse\":{\"count\":"
         "1000000,\"indices\":{\"bufferView\":0,\"componentType\":5125},\"values\":{"
         "\"bufferView\":0}}}]}",
         OROYA_ERR_OUT_OF_RANGE},
        {"animation input count 2^31 on a 12-byte view",
         "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"buffers\":[{\"byteLength\":12,"
         "\"uri\":\"" B64_12 "\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
         "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2147483648,"
         "\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]}],\"animations\":[{\"samplers\":[{"
         "\"input\":0,\"output\":0}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
         "\"path\":\"translation\"}}]}]}",
         OROYA_ERR_OUT_OF_RANGE},
        {"node index 2^32-2",
         "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[4294967294]}],"
         "\"scenes\":[{\"nodes\":[0]}]}",
         OROYA_ERR_OUT_OF_RANGE},
        {"accessor count 2^32-1 (the reserved \"none\")",
         "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,"
         "\"count\":4294967295,\"type\":\"SCALAR\"}]}",
         OROYA_ERR_PARSE},
        {"count 1e300",
         "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,"
         "\"count\":1e300,\"type\":\"SCALAR\"}]}",
         OROYA_ERR_PARSE},
        {"bufferView byteStride 2^31",
         "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":\"" B64_12
         "\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":12,\"byteStride\":2147483648}]}",
         OROYA_ERR_PARSE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rb_heap h;
        oroya_error err = {0};
        size_t size = strlen(cases[i].json);
        oroya_result r = load_counted(cases[i].json, size, &h, &err);
        /* The code is what the glTF header lists for the case; any error would be safe, but a
         * different one means the check that fires is not the one documented. */
        OT_CHECK_MSG(r == cases[i].expect, "%s: got %s (%s)", cases[i].what, oroya_result_string(r),
                     err.message);
        OT_CHECK_MSG(r == OROYA_OK || err.message[0] != '\0', "%s: no message", cases[i].what);
        OT_CHECK_MSG(h.peak_bytes <= backed_bound(size),
                     "%s: %zu bytes allocated for a %zu-byte "
                     "file",
                     cases[i].what, h.peak_bytes, size);
        printf("  %-60s %-14s peak %7zu bytes for %4zu bytes of JSON\n", cases[i].what,
               oroya_result_string(r), h.peak_bytes, size);
    }
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* GLB chunks that claim more bytes than the file has. */
static void test_huge_glb_chunks(void) {
    static const char json[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":"
                               "8}]}    ";
    const uint32_t jlen = (uint32_t)(sizeof json - 1); /* a multiple of 4 */
    OT_EQ_INT(jlen % 4, 0);
    unsigned char glb[256];
    size_t size = 12 + 8 + jlen + 8 + 8;
    /* header, JSON chunk, BIN chunk of 8 bytes */
    put32(glb, 0x46546C67u);
    put32(glb + 4, 2);
    put32(glb + 8, (uint32_t)size);
    put32(glb + 12, jlen);
    put32(glb + 16, 0x4E4F534Au);
    memcpy(glb + 20, json, jlen);
    put32(glb + 20 + jlen, 8);
    put32(glb + 24 + jlen, 0x004E4942u);
    memset(glb + 28 + jlen, 0, 8);

    rb_heap h;
    oroya_error err = {0};
    OT_EQ_INT(load_counted(glb, size, &h, &err), OROYA_OK); /* the well-formed one loads */

    static const struct {
        const char *what;
        size_t offset; /* the u32 to overwrite */
        uint32_t value;
        oroya_result expect;
    } cases[] = {
        {"header length 2^32-1", 8, 0xFFFFFFFFu, OROYA_ERR_PARSE},
        {"JSON chunk length 2^32-4", 12, 0xFFFFFFFCu, OROYA_ERR_PARSE},
        {"BIN chunk length 2^31", 0, 0x80000000u, OROYA_ERR_PARSE},
        {"BIN chunk length 16 (8 remain)", 0, 16, OROYA_ERR_PARSE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char bad[256];
        memcpy(bad, glb, size);
        put32(bad + (cases[i].offset ? cases[i].offset : 20 + jlen), cases[i].value);
        memset(&err, 0, sizeof err);
        oroya_result r = load_counted(bad, size, &h, &err);
        OT_CHECK_MSG(r == cases[i].expect, "%s: got %s (%s)", cases[i].what, oroya_result_string(r),
                     err.message);
        OT_CHECK_MSG(h.peak_bytes <= backed_bound(size), "%s: %zu bytes for a %zu-byte file",
                     cases[i].what, h.peak_bytes, size);
        printf("  glb %-40s %-14s peak %zu bytes\n", cases[i].what, oroya_result_string(r),
               h.peak_bytes);
    }
    /* The buffer declares 2^31 bytes; the BIN chunk holds 8. */
    {
        char big[128];
        snprintf(big, sizeof big,
                 "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":"
                 "2147483647}]}");
        size_t bl = strlen(big);
        while (bl % 4)
            big[bl++] = ' ';
        unsigned char g2[256];
        size_t s2 = 12 + 8 + bl + 8 + 8;
        memcpy(g2, glb, 12);
        put32(g2 + 8, (uint32_t)s2);
        put32(g2 + 12, (uint32_t)bl);
        put32(g2 + 16, 0x4E4F534Au);
        memcpy(g2 + 20, big, bl);
        put32(g2 + 20 + bl, 8);
        put32(g2 + 24 + bl, 0x004E4942u);
        memset(g2 + 28 + bl, 0, 8);
        memset(&err, 0, sizeof err);
        OT_EQ_INT(load_counted(g2, s2, &h, &err), OROYA_ERR_INVALID_DATA);
        OT_CHECK(h.peak_bytes <= backed_bound(s2));
    }
}

/* External URIs that are not regular files: the folder itself, a folder, a missing file, a
 * NUL escape, a path longer than any buffer. Each is an error, never a crash or a read of
 * whatever the OS returns for a directory. */
static void test_bad_uris(void) {
    static const struct {
        const char *uri;
    } cases[] = {{""},
                 {"."},
                 {"CesiumMan"},
                 {"missing.bin"},
                 {"a%00b.bin"},
                 {"%zz"},
                 {"/etc/passwd"},
                 {"file:///etc/passwd"},
                 {"http://example.com/x.bin"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(
            json, sizeof json,
            "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"%s\"}]}",
            cases[i].uri);
        rb_heap h;
        oroya_error err = {0};
        oroya_result r = load_counted(json, strlen(json), &h, &err);
        OT_CHECK_MSG(r != OROYA_OK && err.message[0], "uri \"%s\": %s", cases[i].uri,
                     oroya_result_string(r));
        OT_CHECK_MSG(h.peak_bytes <= backed_bound(strlen(json)) + 8192,
                     "uri \"%s\": %zu bytes allocated", cases[i].uri, h.peak_bytes);
    }
    /* 5000 characters of path. */
    size_t n = 6000;
    char *json = (char *)malloc(n + 200);
    int at = snprintf(json, 200,
                      "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                      "\"uri\":\"");
    for (size_t i = 0; i < 5000; i++)
        json[at++] = i % 2 ? '/' : 'a';
    strcpy(json + at, "x.bin\"}]}");
    rb_heap h;
    oroya_error err = {0};
    OT_EQ_INT(load_counted(json, strlen(json), &h, &err), OROYA_ERR_LIMIT);
    free(json);
}

/* ---- bad runtime input ------------------------------------------------------------------ */

static bool has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* NaN or infinite keys are refused when the clip is made, and found again by
 * oroya_clip_validate after values are edited in place; the message names the track, its
 * target and the key. */
static void test_nan_keys(void) {
    static float times[4] = {0, 1, 2, 3};
    static float vals[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    oroya_track t =
        make_track("hips", OROYA_PROPERTY_TRANSLATION, OROYA_INTERP_LINEAR, 3, 4, times, vals);
    oroya_clip *clip = (oroya_clip *)(uintptr_t)1;
    oroya_error err = {0};

    times[2] = NAN;
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, &err),
              OROYA_ERR_BAD_TIMES);
    OT_CHECK(clip == NULL);
    OT_CHECK_MSG(has(err.message, "tracks[0]") && has(err.message, "hips") &&
                     has(err.message, "key 2"),
                 "%s", err.message);
    times[2] = 2;

    vals[10] = INFINITY;
    memset(&err, 0, sizeof err);
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, &err),
              OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(has(err.message, "key 3"), "%s", err.message);
    vals[10] = 3;

    /* A NaN out-tangent of a cubic-spline key. */
    static float cubic[4 * 9];
    cubic[9 * 1 + 7] = NAN;
    oroya_track c =
        make_track("arm", OROYA_PROPERTY_SCALE, OROYA_INTERP_CUBICSPLINE, 3, 4, times, cubic);
    memset(&err, 0, sizeof err);
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &c, .track_count = 1}, &clip, &err),
              OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(has(err.message, "key 1") && has(err.message, "out-tangent"), "%s", err.message);
    cubic[9 * 1 + 7] = 0;

    /* Edited in place to NaN after creation: validate finds it. */
    oroya_track both[2] = {t, c};
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = both, .track_count = 2}, &clip, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_clip_validate(clip, &err), OROYA_OK);
    oroya_clip_track_values(clip, 1)[9 * 2 + 4] = NAN;
    memset(&err, 0, sizeof err);
    OT_EQ_INT(oroya_clip_validate(clip, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(has(err.message, "tracks[1]") && has(err.message, "arm") &&
                     has(err.message, "key 2"),
                 "%s", err.message);
    OT_CHECK(oroya_clip_track_values(clip, 2) == NULL);
    oroya_clip_destroy(clip);

    /* NaN or infinite clip duration. */
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.duration = NAN}, &clip, &err),
              OROYA_ERR_NON_FINITE);
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.duration = INFINITY}, &clip, &err),
              OROYA_ERR_NON_FINITE);
}

/* Zero-length clips: no tracks, one key, keys only at negative times, a subclip that keeps
 * nothing. Each is a valid clip of duration 0, and sampling its tracks at any time (NaN and
 * infinities included) gives the key, never NaN. */
static void test_zero_length_clips(void) {
    oroya_error err = {0};
    oroya_clip *clip = NULL;
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.name = "empty"}, &clip, &err), OROYA_OK);
    OT_CHECK(clip && clip->duration == 0.0f && clip->track_count == 0);
    OT_EQ_INT(oroya_clip_optimize(clip, 0.0f, &err), OROYA_OK);
    oroya_clip *sub = NULL;
    OT_EQ_INT(oroya_clip_subclip(clip, "s", 0, 100, 30, &sub, &err), OROYA_OK);
    OT_CHECK(sub && sub->duration == 0.0f && sub->track_count == 0);
    oroya_clip_destroy(sub);
    oroya_clip_destroy(clip);

    static const float t0[1] = {0.0f}, tneg[2] = {-2.0f, -1.0f};
    static const float q[4] = {0, 0.6f, 0, 0.8f}, q2[8] = {0, 0.6f, 0, 0.8f, 0, 0, 0, 1};
    for (int interp = 0; interp < OROYA_INTERP_COUNT_; interp++) {
        float cubic[12] = {0, 0, 0, 0, 0, 0.6f, 0, 0.8f, 0, 0, 0, 0};
        const float *vals = interp == OROYA_INTERP_CUBICSPLINE ? cubic : q;
        oroya_track one =
            make_track("n", OROYA_PROPERTY_ROTATION, (oroya_interpolation)interp, 4, 1, t0, vals);
        OT_EQ_INT(
            oroya_clip_create(&(oroya_clip_desc){.tracks = &one, .track_count = 1}, &clip, &err),
            OROYA_OK);
        if (!clip)
            continue;
        OT_CHECK(clip->duration == 0.0f);
        const double ts[] = {-1.0, 0.0, 1e-30, 5.0, NAN, INFINITY, -INFINITY, 1e300};
        for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
            uint32_t cursor = 0;
            float out[4] = {9, 9, 9, 9};
            oroya_track_sample(&clip->tracks[0], ts[k], &cursor, NULL, out);
            OT_CHECK_MSG(out[0] == q[0] && out[1] == q[1] && out[2] == q[2] && out[3] == q[3],
                         "%s at t=%g: %g %g %g %g", oroya_interpolation_name(one.interpolation),
                         ts[k], (double)out[0], (double)out[1], (double)out[2], (double)out[3]);
        }
        oroya_clip_destroy(clip);
    }
    /* Keys only before 0: three's resetDuration starts from 0, so the duration is 0. */
    oroya_track neg = make_track("n", OROYA_PROPERTY_ROTATION, OROYA_INTERP_LINEAR, 4, 2, tneg, q2);
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &neg, .track_count = 1}, &clip, &err),
              OROYA_OK);
    OT_CHECK(clip && clip->duration == 0.0f);
    oroya_clip_destroy(clip);
    /* A track with no keys is refused, never sampled from nothing. */
    oroya_track none = make_track("n", OROYA_PROPERTY_ROTATION, OROYA_INTERP_LINEAR, 4, 0, t0, q);
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &none, .track_count = 1}, &clip, &err),
              OROYA_ERR_NO_KEYS);
}

static bool all_finite(const float *v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return false;
    }
    return true;
}

/* Non-unit quaternion keys (issue 11: "normalized on load, and reported"): oroya_clip_create
 * normalizes every rotation key (cubic: the vertices) off unit length by more than
 * OROYA_CLIP_UNIT_TOLERANCE and counts them; a zero key is refused (test_clip.c
 * test_zero_quaternion_key). Checked here: the keys come out as q/|q| (computed here in
 * double), are reported, and no interpolation gives NaN between them. */
static void test_non_unit_quaternions(void) {
    static const float times[3] = {0, 1, 2};
    static const float keys[12] = {0, 0,    0,    2, 0, 0.3f,
                                   0, 0.1f, 0.5f, 0, 0, 0}; /* |q| 2, 0.32, 0.5 */
    float cubic[36] = {0};
    for (int k = 0; k < 3; k++)
        memcpy(cubic + 12 * k + 4, keys + 4 * k, 4 * sizeof(float));
    oroya_error err = {0};
    for (int interp = 0; interp < OROYA_INTERP_COUNT_; interp++) {
        const float *vals = interp == OROYA_INTERP_CUBICSPLINE ? cubic : keys;
        oroya_track t = make_track("n", OROYA_PROPERTY_ROTATION, (oroya_interpolation)interp, 4, 3,
                                   times, vals);
        oroya_clip *clip = NULL;
        OT_EQ_INT(
            oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, &err),
            OROYA_OK);
        if (!clip)
            continue;
        OT_EQ_INT(clip->normalized_key_count, 3);
        for (int k = 0; k < 3; k++) {
            const float *q = keys + 4 * k;
            const float *got =
                clip->tracks[0].values + (interp == OROYA_INTERP_CUBICSPLINE ? 12 * k + 4 : 4 * k);
            double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                            (double)q[3] * q[3]);
            for (int c = 0; c < 4; c++)
                OT_NEAR(got[c], q[c] / n, 1e-7);
        }
        uint32_t cursor = 0;
        for (int i = 0; i <= 40; i++) {
            double time = i * 0.05;
            float out[4];
            oroya_sample_options opt = {OROYA_ENDING_ZERO_SLOPE, OROYA_ENDING_WRAP_AROUND};
            oroya_track_sample(&clip->tracks[0], time, &cursor, &opt, out);
            OT_CHECK_MSG(all_finite(out, 4), "%s at t=%g: %g %g %g %g",
                         oroya_interpolation_name(t.interpolation), time, (double)out[0],
                         (double)out[1], (double)out[2], (double)out[3]);
        }
        oroya_clip_destroy(clip);
    }
}

/* Skin weights that sum to 0: found at bind time (naming the vertex); three's normalize
 * turns them into (1, 0, 0, 0); a job run on them anyway skips every influence (three's
 * getVertexPosition), so the vertex goes to the bind matrix inverse's origin, never NaN. */
static void test_zero_weight_sums(void) {
    uint16_t joints[8] = {0, 1, 0, 0, 1, 0, 0, 0};
    float weights[8] = {0.5f, 0.5f, 0, 0, 0, 0, 0, 0};
    oroya_error err = {0};
    OT_EQ_INT(oroya_skin_check_influences(joints, weights, NULL, NULL, 2, 2, &err),
              OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(has(err.message, "vertex 1"), "%s", err.message);
    /* Weights of opposite sign summing to 0 are negative weights: also refused. */
    float opposite[8] = {0.5f, 0.5f, 0, 0, 1, -1, 0, 0};
    OT_EQ_INT(oroya_skin_check_influences(joints, opposite, NULL, NULL, 2, 2, &err),
              OROYA_ERR_INVALID_DATA);

    float w[8];
    memcpy(w, weights, sizeof w);
    oroya_skin_normalize_weight_arrays(w, NULL, 2);
    OT_CHECK(w[0] == 0.5f && w[1] == 0.5f && w[4] == 1.0f && w[5] == 0.0f);

    static const float pos[6] = {1, 2, 3, 4, 5, 6};
    float palette[32];
    for (int b = 0; b < 2; b++) {
        memset(palette + 16 * b, 0, 16 * sizeof(float));
        for (int d = 0; d < 4; d++)
            palette[16 * b + 5 * d] = 1.0f;
        palette[16 * b + 12] = (float)(b + 1); /* translate x by 1 or 2 */
    }
    float bind_inv[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 8, 9, 1};
    float bind[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -7, -8, -9, 1};
    float out[6] = {0};
    oroya_skin_job job = {.count = 2,
                          .positions = pos,
                          .joints = joints,
                          .weights = weights,
                          .palette_count = 2,
                          .palette = palette,
                          .bind_matrix = bind,
                          .bind_matrix_inverse = bind_inv,
                          .out_positions = out};
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_OK);
    /* vertex 0: half of each bone: (1 + 1.5, 2, 3); vertex 1: no influence, bind inverse's
     * translation (three.js: vertex = 0, then applyMatrix4(bindMatrixInverse)). */
    OT_NEAR(out[0], 2.5, 1e-5);
    OT_NEAR(out[1], 2.0, 1e-5);
    OT_NEAR(out[2], 3.0, 1e-5);
    OT_NEAR(out[3], 7.0, 1e-5);
    OT_NEAR(out[4], 8.0, 1e-5);
    OT_NEAR(out[5], 9.0, 1e-5);
}

/* OROYA_MAX_JOINTS: a job that must precombine its palette with bind matrices and has no
 * scratch refuses more than OROYA_MAX_JOINTS joints with OROYA_ERR_LIMIT (never writes past
 * its stack buffer); with scratch, or without bind matrices, any count works and gives the
 * same numbers. A joint index past the palette is OUT_OF_RANGE, naming the vertex. */
static void test_joint_limits(void) {
    enum { NB = OROYA_MAX_JOINTS + 1, NV = 4 };
    float *palette = (float *)malloc(sizeof(float) * 16 * NB);
    float *scratch = (float *)malloc(sizeof(float) * 16 * NB);
    for (int b = 0; b < NB; b++) {
        memset(palette + 16 * b, 0, 16 * sizeof(float));
        for (int d = 0; d < 4; d++)
            palette[16 * b + 5 * d] = 1.0f;
        palette[16 * b + 13] = (float)b; /* translate y by b */
    }
    static const float pos[NV * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    uint16_t joints[NV * 4] = {NB - 1, 0, 0, 0, 0, 0, 0, 0, 200, 0, 0, 0, 7, 0, 0, 0};
    float weights[NV * 4] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const float ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    float out[NV * 3], out2[NV * 3], out3[NV * 3];
    oroya_error err = {0};
    oroya_skin_job job = {.count = NV,
                          .positions = pos,
                          .joints = joints,
                          .weights = weights,
                          .palette_count = NB,
                          .palette = palette,
                          .bind_matrix = ident,
                          .bind_matrix_inverse = ident,
                          .out_positions = out};
    OT_EQ_INT(oroya_skin_job_validate(&job, &err), OROYA_ERR_LIMIT);
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_ERR_LIMIT);
    OT_CHECK_MSG(has(err.message, "256"), "%s", err.message);
    job.palette_count = OROYA_MAX_JOINTS; /* exactly the limit: joint 256 is now out of range */
    memset(&err, 0, sizeof err);
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK_MSG(has(err.message, "vertex 0"), "%s", err.message);
    job.palette_count = NB;
    job.scratch = scratch;
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_OK);
    job.scratch = NULL;
    job.bind_matrix = job.bind_matrix_inverse = NULL;
    job.out_positions = out2;
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_OK);
    OT_CHECK(memcmp(out, out2, sizeof out) == 0);
    OT_NEAR(out[1], (double)(NB - 1), 0);
    OT_NEAR(out[3 * 2 + 1], 201.0, 0); /* (0, 1, 0) moved up by bone 200 */
    /* Joint 65535, the largest a u16 names, against a smaller palette. */
    joints[12] = 65535;
    job.out_positions = out3;
    memset(&err, 0, sizeof err);
    OT_EQ_INT(oroya_skin_job_validate(&job, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK_MSG(has(err.message, "vertex 3"), "%s", err.message);
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_ERR_OUT_OF_RANGE);
    free(palette);
    free(scratch);

    /* Track key limit: refused before any key is read. */
    static const float one[4] = {0, 0, 0, 1};
    oroya_track t = make_track("n", OROYA_PROPERTY_ROTATION, OROYA_INTERP_LINEAR, 4,
                               OROYA_TRACK_MAX_KEYS + 1, one, one);
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_LIMIT);
    t.property = OROYA_PROPERTY_WEIGHTS;
    t.components = 100;
    t.key_count = OROYA_TRACK_MAX_KEYS;
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_LIMIT); /* values over 32 bits */
}

/* Non-finite transforms are refused at the scene's checked entry point. */
static void test_scene_bad_input(void) {
    rb_heap h;
    rb_reset(&h, 0);
    h.max_request = (size_t)1 << 30;
    oroya_scene *s = NULL;
    OT_EQ_INT(oroya_scene_create(&(oroya_scene_desc){.allocator = rb_allocator(&h)}, &s), OROYA_OK);
    oroya_node n = {0};
    OT_EQ_INT(oroya_scene_add_node(s, "n", (oroya_node){0}, OROYA_NODE_BONE, &n), OROYA_OK);
    oroya_transform t = oroya_transform_identity();
    t.rotation.w = NAN;
    OT_EQ_INT(oroya_scene_set_transform(s, n, &t), OROYA_ERR_NON_FINITE);
    t = oroya_transform_identity();
    t.scale.x = INFINITY;
    OT_EQ_INT(oroya_scene_set_transform(s, n, &t), OROYA_ERR_NON_FINITE);
    oroya_transform back;
    OT_EQ_INT(oroya_scene_get_transform(s, n, &back), OROYA_OK);
    OT_CHECK(back.scale.x == 1.0f && back.rotation.w == 1.0f);
    /* 16 GiB of weights the allocator refuses: OUT_OF_MEMORY, the old weights kept. */
    OT_EQ_INT(oroya_scene_set_weight_count(s, n, 3), OROYA_OK);
    oroya_scene_weights(s, n, NULL)[2] = 0.5f;
    OT_EQ_INT(oroya_scene_set_weight_count(s, n, UINT32_MAX), OROYA_ERR_OUT_OF_MEMORY);
    uint32_t wc = 0;
    const float *w = oroya_scene_weights(s, n, &wc);
    OT_CHECK(w && wc == 3 && w[2] == 0.5f);
    OT_EQ_INT(oroya_scene_add_node(s, "x", (oroya_node){0xFFFFFFFFu}, OROYA_NODE_BONE, &n) != 0, 1);
    OT_EQ_INT(oroya_scene_add_node(s, "x", (oroya_node){0}, (oroya_node_kind)99, &n),
              OROYA_ERR_INVALID_ARGUMENT);
    oroya_scene_destroy(s);
    OT_EQ_INT(h.live, 0);
}

/* ---- determinism ------------------------------------------------------------------------- */

/* FNV-1a over bytes: a fingerprint of everything the determinism workload computes. */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static unsigned det_rng = 12345u;
static float det_rand(float lo, float hi) {
    det_rng = det_rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)((double)(det_rng >> 8) / 16777216.0);
}

/* Tracks of every interpolation, sampled at the same times through a cursor moving forward,
 * backward, at random, and with no cursor at all: every way gives the same bits. */
static uint64_t sample_workload(bool check) {
    enum { NK = 37, NT = 600 };
    static float times[NK], vals[NK * 4 * 3];
    det_rng = 777u;
    float t = 0.0f;
    for (int k = 0; k < NK; k++) {
        t += det_rand(0.01f, 0.3f);
        times[k] = t;
    }
    for (int i = 0; i < NK * 12; i++)
        vals[i] = det_rand(-1.0f, 1.0f);
    uint64_t h = 1469598103934665603ull;
    for (int interp = 0; interp < OROYA_INTERP_COUNT_; interp++) {
        for (int prop = 0; prop < OROYA_PROPERTY_COUNT_; prop++) {
            if (interp == OROYA_INTERP_STERP && prop != OROYA_PROPERTY_ROTATION)
                continue;
            if (prop == OROYA_PROPERTY_VISIBLE)
                continue; /* 0/1 values, STEP only */
            uint32_t comps = oroya_property_components((oroya_property)prop);
            comps = comps ? comps : 3; /* weights: any count */
            oroya_track tr = make_track("n", (oroya_property)prop, (oroya_interpolation)interp,
                                        comps, NK, times, vals);
            oroya_error err = {0};
            OT_EQ_INT(oroya_track_validate(&tr, 0, &err), OROYA_OK);
            static float ref[NT][4], got[4];
            oroya_sample_options opt = {OROYA_ENDING_ZERO_SLOPE, OROYA_ENDING_WRAP_AROUND};
            uint32_t cursor = 0;
            memset(ref, 0, sizeof ref); /* 3-component tracks leave the 4th float alone */
            for (int i = 0; i < NT; i++) {
                double time = -0.5 + (double)i * (double)(t + 1.0f) / NT;
                oroya_track_sample(&tr, time, &cursor, &opt, ref[i]);
            }
            h = fnv(h, ref, sizeof ref);
            if (!check)
                continue;
            int mismatches = 0;
            /* backward */
            cursor = 0;
            for (int i = NT - 1; i >= 0; i--) {
                double time = -0.5 + (double)i * (double)(t + 1.0f) / NT;
                oroya_track_sample(&tr, time, &cursor, &opt, got);
                mismatches += memcmp(got, ref[i], comps * sizeof(float)) != 0;
            }
            /* random jumps, and no cursor */
            for (int j = 0; j < NT; j++) {
                int i = (int)(det_rand(0.0f, (float)NT - 0.01f));
                double time = -0.5 + (double)i * (double)(t + 1.0f) / NT;
                oroya_track_sample(&tr, time, &cursor, &opt, got);
                mismatches += memcmp(got, ref[i], comps * sizeof(float)) != 0;
                oroya_track_sample(&tr, time, NULL, &opt, got);
                mismatches += memcmp(got, ref[i], comps * sizeof(float)) != 0;
            }
            /* Garbage cursors ("any cursor value is safe"): the same numbers, no stray read. */
            static const uint32_t junk[] = {UINT32_MAX, 0xF0000000u, 0x0FFFFFFFu, NK,
                                            NK - 1,     NK + 1,      0x80000025u, 12345u};
            for (size_t c = 0; c < sizeof junk / sizeof junk[0]; c++) {
                for (int i = 0; i < NT; i += 37) {
                    double time = -0.5 + (double)i * (double)(t + 1.0f) / NT;
                    uint32_t cur = junk[c];
                    oroya_sample_options plain = {OROYA_ENDING_ZERO_CURVATURE,
                                                  OROYA_ENDING_ZERO_CURVATURE};
                    float a[4], b[4];
                    oroya_track_sample(&tr, time, &cur, &plain, a);
                    oroya_track_sample(&tr, time, NULL, &plain, b);
                    mismatches += memcmp(a, b, comps * sizeof(float)) != 0;
                }
            }
            OT_CHECK_MSG(mismatches == 0, "%s %s: %d samples depend on the cursor path",
                         oroya_interpolation_name(tr.interpolation),
                         oroya_property_name(tr.property), mismatches);
        }
    }
    return h;
}

/* One mesh skinned whole and in chunks of 1, 7, 64 and 333 vertices (pointers offset, as
 * skin.h says to split work across threads), with and without scratch: the same bits. */
static uint64_t skin_workload(bool check) {
    enum { NV = 1000, NB = 40 };
    static float pos[NV * 3], nrm[NV * 3], w[NV * 4], w2[NV * 4], palette[NB * 16],
        scratch[NB * 16];
    static uint16_t j[NV * 4], j2[NV * 4];
    static float out[NV * 3], outn[NV * 3], o2[NV * 3], o2n[NV * 3];
    det_rng = 99u;
    for (int i = 0; i < NV * 3; i++) {
        pos[i] = det_rand(-2.0f, 2.0f);
        nrm[i] = det_rand(-1.0f, 1.0f);
    }
    for (int i = 0; i < NV * 4; i++) {
        j[i] = (uint16_t)det_rand(0.0f, (float)NB - 0.01f);
        j2[i] = (uint16_t)det_rand(0.0f, (float)NB - 0.01f);
        w[i] = det_rand(0.0f, 1.0f);
        w2[i] = i % 3 ? 0.0f : det_rand(0.0f, 0.5f);
    }
    for (int b = 0; b < NB; b++) {
        for (int e = 0; e < 16; e++)
            palette[b * 16 + e] = det_rand(-1.0f, 1.0f);
        palette[b * 16 + 3] = palette[b * 16 + 7] = palette[b * 16 + 11] = 0.0f;
        palette[b * 16 + 15] = 1.0f;
    }
    static const float bind[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0.5f, 0, 2, 1};
    static const float bind_inv[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, -0.5f, 2, 0, 1};
    oroya_skin_job whole = {.count = NV,
                            .positions = pos,
                            .normals = nrm,
                            .joints = j,
                            .weights = w,
                            .joints2 = j2,
                            .weights2 = w2,
                            .palette_count = NB,
                            .palette = palette,
                            .bind_matrix = bind,
                            .bind_matrix_inverse = bind_inv,
                            .out_positions = out,
                            .out_normals = outn};
    float bounds[6];
    whole.out_bounds = bounds;
    oroya_error err = {0};
    OT_EQ_INT(oroya_skin_job_run(&whole, &err), OROYA_OK);
    uint64_t h = fnv(1469598103934665603ull, out, sizeof out);
    h = fnv(h, outn, sizeof outn);
    h = fnv(h, bounds, sizeof bounds);
    if (!check)
        return h;
    static const uint32_t chunks[] = {1, 7, 64, 333, NV};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        memset(o2, 0xFF, sizeof o2);
        float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t first = 0; first < NV; first += chunks[c]) {
            uint32_t n = NV - first < chunks[c] ? NV - first : chunks[c];
            oroya_skin_job part = whole;
            part.count = n;
            part.positions = pos + 3 * first;
            part.normals = nrm + 3 * first;
            part.joints = j + 4 * first;
            part.weights = w + 4 * first;
            part.joints2 = j2 + 4 * first;
            part.weights2 = w2 + 4 * first;
            part.out_positions = o2 + 3 * first;
            part.out_normals = o2n + 3 * first;
            part.scratch = (c % 2) ? scratch : NULL;
            float pb[6];
            part.out_bounds = pb;
            OT_EQ_INT(oroya_skin_job_run(&part, &err), OROYA_OK);
            for (int a = 0; a < 3; a++) {
                mn[a] = pb[a] < mn[a] ? pb[a] : mn[a];
                mx[a] = pb[3 + a] > mx[a] ? pb[3 + a] : mx[a];
            }
        }
        OT_CHECK_MSG(memcmp(o2, out, sizeof out) == 0 && memcmp(o2n, outn, sizeof outn) == 0,
                     "chunks of %u: positions or normals differ from one whole run", chunks[c]);
        OT_CHECK_MSG(mn[0] == bounds[0] && mn[1] == bounds[1] && mn[2] == bounds[2] &&
                         mx[0] == bounds[3] && mx[1] == bounds[4] && mx[2] == bounds[5],
                     "chunks of %u: bounds differ", chunks[c]);
    }
    return h;
}

/* A glTF skin end to end: parse CesiumMan, build the scene from its nodes, a skeleton, pose
 * the bones from the first animation's keys at t = 0.7 s, update, skin on the CPU. */
static uint64_t gltf_workload(void) {
    uint64_t h = 1469598103934665603ull;
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    if (oroya_gltf_parse_file(NULL, ASSETS "CesiumMan/glTF-Binary/CesiumMan.glb", &g, &err) ||
        oroya_gltf_validate(g, &err)) {
        OT_CHECK_MSG(0, "CesiumMan: %s", err.message);
        oroya_gltf_free(g);
        return 0;
    }
    for (uint32_t i = 0; i < g->accessor_count; i++) {
        size_t n = oroya_gltf_accessor_float_count(g, i);
        float *v = (float *)malloc(n * sizeof(float) + 1);
        OT_EQ_INT(oroya_gltf_accessor_unpack_floats(g, i, v, n, &err), OROYA_OK);
        h = fnv(h, v, n * sizeof(float));
        free(v);
    }
    oroya_scene *s = NULL;
    oroya_scene_create(NULL, &s);
    oroya_node *handles = (oroya_node *)calloc(g->node_count, sizeof *handles);
    /* Parents before children: add a node once its parent is added (the graph validated as
     * a forest, so node_count passes are enough). */
    uint32_t *parent = (uint32_t *)malloc(g->node_count * sizeof *parent);
    for (uint32_t i = 0; i < g->node_count; i++)
        parent[i] = OROYA_GLTF_NONE;
    for (uint32_t i = 0; i < g->node_count; i++)
        for (uint32_t c = 0; c < g->nodes[i].child_count; c++)
            parent[g->nodes[i].children[c]] = i;
    for (uint32_t pass = 0; pass < g->node_count; pass++) {
        for (uint32_t i = 0; i < g->node_count; i++) {
            if (handles[i].id)
                continue;
            if (parent[i] != OROYA_GLTF_NONE && !handles[parent[i]].id)
                continue;
            oroya_scene_add_node(s, g->nodes[i].name,
                                 parent[i] == OROYA_GLTF_NONE ? (oroya_node){0}
                                                              : handles[parent[i]],
                                 OROYA_NODE_BONE, &handles[i]);
            oroya_transform t;
            memcpy(&t.translation, g->nodes[i].translation, sizeof t.translation);
            memcpy(&t.rotation, g->nodes[i].rotation, sizeof t.rotation);
            memcpy(&t.scale, g->nodes[i].scale, sizeof t.scale);
            oroya_scene_set_transform(s, handles[i], &t);
        }
    }
    oroya_scene_update_world(s);
    const oroya_gltf_skin *gs = &g->skins[0];
    oroya_node *bones = (oroya_node *)calloc(gs->joint_count, sizeof *bones);
    for (uint32_t b = 0; b < gs->joint_count; b++)
        bones[b] = handles[gs->joints[b]];
    oroya_mat4 *ibm = (oroya_mat4 *)malloc(gs->joint_count * sizeof *ibm);
    oroya_gltf_accessor_unpack_floats(g, gs->inverse_bind_matrices, (float *)ibm,
                                      (size_t)gs->joint_count * 16, &err);
    oroya_skeleton *sk = NULL;
    OT_EQ_INT(oroya_skeleton_create(s,
                                    &(oroya_skeleton_desc){.bones = bones,
                                                           .bone_count = gs->joint_count,
                                                           .bone_inverses = ibm},
                                    &sk, &err),
              OROYA_OK);
    /* Pose: every channel of animation 0 sampled at 0.7 s. */
    const oroya_gltf_animation *an = &g->animations[0];
    for (uint32_t c = 0; c < an->channel_count; c++) {
        const oroya_gltf_channel *ch = &an->channels[c];
        const oroya_gltf_sampler *sp = &an->samplers[ch->sampler];
        size_t nt = oroya_gltf_accessor_float_count(g, sp->input);
        size_t nv = oroya_gltf_accessor_float_count(g, sp->output);
        float *tt = (float *)malloc(nt * sizeof(float)), *vv = (float *)malloc(nv * sizeof(float));
        oroya_gltf_accessor_unpack_floats(g, sp->input, tt, nt, &err);
        oroya_gltf_accessor_unpack_floats(g, sp->output, vv, nv, &err);
        uint32_t comps = ch->path == OROYA_GLTF_PATH_ROTATION ? 4 : 3;
        oroya_property prop = ch->path == OROYA_GLTF_PATH_ROTATION ? OROYA_PROPERTY_ROTATION
                              : ch->path == OROYA_GLTF_PATH_SCALE  ? OROYA_PROPERTY_SCALE
                                                                   : OROYA_PROPERTY_TRANSLATION;
        oroya_track tr = make_track("", prop, OROYA_INTERP_LINEAR, comps, (uint32_t)nt, tt, vv);
        float v[4];
        oroya_track_sample(&tr, 0.7, NULL, NULL, v);
        oroya_transform t;
        oroya_scene_get_transform(s, handles[ch->node], &t);
        if (prop == OROYA_PROPERTY_ROTATION)
            memcpy(&t.rotation, v, 16);
        else if (prop == OROYA_PROPERTY_SCALE)
            memcpy(&t.scale, v, 12);
        else
            memcpy(&t.translation, v, 12);
        oroya_scene_set_transform(s, handles[ch->node], &t);
        free(tt);
        free(vv);
    }
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_skeleton_update(sk, s, &err), OROYA_OK);
    h = fnv(h, sk->bone_matrices, (size_t)sk->bone_count * 16 * sizeof(float));
    h = fnv(h, oroya_scene_world_matrices(s), oroya_scene_node_count(s) * sizeof(oroya_mat4));
    oroya_skeleton_destroy(sk);
    free(ibm);
    free(bones);
    free(parent);
    free(handles);
    oroya_scene_destroy(s);
    oroya_gltf_free(g);
    return h;
}

static uint64_t determinism_hash(void) {
    uint64_t h = sample_workload(false);
    h = fnv(h, &(uint64_t){skin_workload(false)}, 8);
    return fnv(h, &(uint64_t){gltf_workload()}, 8);
}

static const char *self_path;

/* Same inputs, same bits: within a run whatever the chunking or cursor path, twice in one
 * process with the heap in a different state, and in a fresh process (different addresses
 * under ASLR, fresh allocator). */
static void test_determinism(void) {
    sample_workload(true);
    skin_workload(true);
    uint64_t first = determinism_hash();
    /* Disturb the heap so that any read of uninitialized or freed memory sees new bytes. */
    void *junk[64];
    for (int i = 0; i < 64; i++) {
        junk[i] = malloc((size_t)(i * 97 + 13));
        memset(junk[i], i * 37 + 1, (size_t)(i * 97 + 13));
    }
    for (int i = 0; i < 64; i += 2)
        free(junk[i]);
    uint64_t second = determinism_hash();
    for (int i = 1; i < 64; i += 2)
        free(junk[i]);
    OT_CHECK_MSG(first == second, "%016llx vs %016llx", (unsigned long long)first,
                 (unsigned long long)second);
    if (!self_path)
        return;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' --determinism-hash", self_path);
    FILE *p = popen(cmd, "r");
    OT_CHECK(p != NULL);
    if (!p)
        return;
    unsigned long long other = 0;
    OT_CHECK(fscanf(p, "%llx", &other) == 1);
    pclose(p);
    OT_CHECK_MSG(other == first, "fresh process: %016llx, this one: %016llx", other,
                 (unsigned long long)first);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--determinism-hash") == 0) {
        printf("%016llx\n", (unsigned long long)determinism_hash());
        return 0;
    }
    self_path = argc > 0 && strchr(argv[0], '/') ? argv[0] : NULL;
    RB_RUN(test_fault_scene);
    RB_RUN(test_fault_scene_unchanged);
    RB_RUN(test_fault_clip);
    RB_RUN(test_fault_skin);
    RB_RUN(test_fault_gltf);
    RB_RUN(test_huge_declared_counts);
    RB_RUN(test_huge_glb_chunks);
    RB_RUN(test_bad_uris);
    RB_RUN(test_nan_keys);
    RB_RUN(test_zero_length_clips);
    RB_RUN(test_non_unit_quaternions);
    RB_RUN(test_zero_weight_sums);
    RB_RUN(test_joint_limits);
    RB_RUN(test_scene_bad_input);
    RB_RUN(test_determinism);
    return ot_finish();
}
