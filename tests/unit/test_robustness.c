/* Robustness of the runtime core and the glTF reader: every allocation of every create and
 * load path failed in turn (clean OUT_OF_MEMORY, nothing leaked), bad runtime input with its
 * documented behaviour, documented limits, files that declare more than they hold, and
 * determinism (the same inputs give the same bits however the work is chunked). See
 * docs/robustness.md. The mixer, importer and scenario paths live in their own
 * test_robustness_*.c programs. */
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

#define SHARED_GLTF OROYA_SHARED_DIR "/assets/gltf/"
#define LOCAL_ASSETS OROYA_SOURCE_DIR "/tests/assets/"

/* ---- fault injection: scene ------------------------------------------------------------- */

/* A scene that has to grow (capacity hint 2), named and unnamed nodes, morph weights set,
 * grown and shrunk, a rename, a re-parent that moves a subtree (temporary allocation) and a
 * subtree removal. */
static oroya_result path_scene(const oroya_allocator *a, void *ctx, oroya_error *err) {
    (void)ctx;
    (void)err;
    oroya_scene *s = NULL;
    oroya_result r = oroya_scene_create(&(oroya_scene_desc){.capacity_hint = 2, .allocator = *a},
                                        &s);
    if (r) return r;
    oroya_node nodes[40] = {{0}};
    for (uint32_t i = 0; i < 40 && r == OROYA_OK; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%u", i);
        oroya_node parent = i == 0 ? (oroya_node){0} : nodes[(i - 1) / 3];
        r = oroya_scene_add_node(s, i % 5 == 4 ? NULL : name, parent, OROYA_NODE_BONE, &nodes[i]);
    }
    if (r == OROYA_OK) r = oroya_scene_set_weight_count(s, nodes[3], 8);
    if (r == OROYA_OK) r = oroya_scene_set_weight_count(s, nodes[3], 64);
    if (r == OROYA_OK) r = oroya_scene_set_weight_count(s, nodes[3], 2);
    if (r == OROYA_OK) r = oroya_scene_set_weight_count(s, nodes[7], 4);
    if (r == OROYA_OK) r = oroya_scene_set_name(s, nodes[2], "a much longer name than before");
    /* nodes[1] moves under the last node: its subtree goes to the end of the dense arrays. */
    if (r == OROYA_OK) r = oroya_scene_set_parent(s, nodes[1], nodes[39]);
    if (r == OROYA_OK) r = oroya_scene_remove_node(s, nodes[2]);
    if (r == OROYA_OK) {
        oroya_scene_update_world(s);
        uint32_t n = 0;
        float *w = oroya_scene_weights(s, nodes[3], &n);
        if (!w || n != 2 || w[0] != 0.0f || w[1] != 0.0f) r = OROYA_ERR_INVALID_DATA;
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
        OT_EQ_INT(oroya_scene_create(&(oroya_scene_desc){.capacity_hint = 1,
                                                         .allocator = rb_allocator(&h)},
                                     &s),
                  OROYA_OK);
        if (!s) return;
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
        if (!refused) break;
    }
}

/* ---- fault injection: clips ------------------------------------------------------------- */

static const float k_times[5] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f};
static const float k_trans[15] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 3, 1, 0};
static const float k_rot[20] = {0, 0, 0, 1, 0, 0.3826834f, 0, 0.9238795f, 0, 0.7071068f, 0,
                                0.7071068f, 0, 0.9238795f, 0, 0.3826834f, 0, 1, 0, 0};
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
    if (r == OROYA_OK) r = oroya_clip_clone(clip, &clone, err);
    if (r == OROYA_OK) r = oroya_clip_subclip(clone, "part", 15, 45, 30, &sub, err);
    if (r == OROYA_OK) r = oroya_clip_optimize(clone, 0.0f, err);
    if (r == OROYA_OK) r = oroya_clip_validate(clone, err);
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
    uint32_t bones;     /* > OROYA_MAX_JOINTS makes bind allocate the job scratch */
} skin_ctx;

/* A chain of bones in a scene made with the plain allocator (the scene path is covered
 * above), a skeleton and a skin from `a`, bound, posed and computed. */
static oroya_result path_skin(const oroya_allocator *a, void *ctx, oroya_error *err) {
    const skin_ctx *c = (const skin_ctx *)ctx;
    oroya_scene *s = NULL;
    if (oroya_scene_create(NULL, &s)) return OROYA_ERR_INVALID_DATA; /* not under test */
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
        r = oroya_skin_create(&(oroya_skin_desc){.mesh = mesh, .vertex_count = NV,
                                                 .positions = pos, .normals = nrm,
                                                 .joints = joints, .weights = weights,
                                                 .allocator = *a},
                              &skin, err);
    }
    if (r == OROYA_OK) r = oroya_skin_bind(skin, s, sk, NULL, err);
    if (r == OROYA_OK) r = oroya_skeleton_update(sk, s, err);
    if (r == OROYA_OK) r = oroya_skin_update(skin, s, err);
    if (r == OROYA_OK) r = oroya_skin_compute(skin, out, nrm, bounds, err);
    /* The bind pose skins to the rest positions. */
    for (uint32_t i = 0; r == OROYA_OK && i < NV * 3; i++) {
        if (fabsf(out[i] - pos[i]) > 1e-5f) {
            r = oroya__fail(err, OROYA_ERR_INVALID_DATA, "vertex %u moved in the bind pose",
                            i / 3);
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
    if (r == OROYA_OK) r = oroya_gltf_load_buffers(g, err);
    if (r == OROYA_OK) r = oroya_gltf_validate(g, err);
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
    if (r == OROYA_OK) r = oroya_gltf_load_buffers(g, err);
    if (r == OROYA_OK) r = oroya_gltf_validate(g, err);
    oroya_gltf_free(g);
    return r;
}

static unsigned char *read_bytes(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
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
    SHARED_GLTF "CesiumMan/glTF-Binary/CesiumMan.glb",
    SHARED_GLTF "RiggedFigure/glTF/RiggedFigure.gltf",                   /* external .bin */
    SHARED_GLTF "AnimatedTriangle/glTF/AnimatedTriangle.gltf",           /* two .bin files */
    SHARED_GLTF "BoxAnimated/glTF-Embedded/BoxAnimated.gltf",            /* data: URI */
    SHARED_GLTF "InterpolationTest/glTF-Binary/InterpolationTest.glb",   /* 9 animations */
    SHARED_GLTF "MorphStressTest/glTF-Binary/MorphStressTest.glb",       /* 8 morph targets */
    SHARED_GLTF "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf", /* unorm8 output */
    SHARED_GLTF "SimpleSparseAccessor/glTF-Embedded/SimpleSparseAccessor.gltf", /* sparse */
    SHARED_GLTF "CesiumMilkTruck/glTF/CesiumMilkTruck.gltf",             /* images, textures */
};

static void test_fault_gltf(void) {
    for (size_t i = 0; i < sizeof k_models / sizeof k_models[0]; i++) {
        const char *name = strrchr(k_models[i], '/') + 1;
        long n = rb_fail_each(name, path_gltf_file, (void *)(uintptr_t)k_models[i], true);
        OT_CHECK(n > 5);
        printf("  %s: %ld allocations, each failed in turn\n", name, n);
    }
    /* base_dir with its trailing '/': see test_robustness_bugs.c for the one without. */
    mem_ctx m = {SHARED_GLTF "RiggedSimple/glTF/RiggedSimple.gltf",
                 SHARED_GLTF "RiggedSimple/glTF/", NULL, 0};
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
static oroya_result load_counted(const void *bytes, size_t size, rb_heap *heap,
                                 oroya_error *err) {
    rb_reset(heap, 0);
    oroya_gltf_data *g = NULL;
    oroya_result r = oroya_gltf_parse(
        &(oroya_gltf_desc){.allocator = rb_allocator(heap), .base_dir = SHARED_GLTF}, bytes,
        size, &g, err);
    if (r == OROYA_OK) r = oroya_gltf_load_buffers(g, err);
    if (r == OROYA_OK) r = oroya_gltf_validate(g, err);
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
         "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":2147483648,\"uri\":\""
         B64_12 "\"}]}",
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
        OT_CHECK_MSG(r == cases[i].expect, "%s: got %s (%s)", cases[i].what,
                     oroya_result_string(r), err.message);
        OT_CHECK_MSG(r == OROYA_OK || err.message[0] != '\0', "%s: no message", cases[i].what);
        OT_CHECK_MSG(h.peak_bytes <= backed_bound(size), "%s: %zu bytes allocated for a %zu-byte "
                     "file", cases[i].what, h.peak_bytes, size);
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
        OT_CHECK_MSG(r == cases[i].expect, "%s: got %s (%s)", cases[i].what,
                     oroya_result_string(r), err.message);
        OT_CHECK_MSG(h.peak_bytes <= backed_bound(size), "%s: %zu bytes for a %zu-byte file",
                     cases[i].what, h.peak_bytes, size);
        printf("  glb %-40s %-14s peak %zu bytes\n", cases[i].what, oroya_result_string(r),
               h.peak_bytes);
    }
    /* The buffer declares 2^31 bytes; the BIN chunk holds 8. */
    {
        char big[128];
        snprintf(big, sizeof big, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":"
                                  "2147483647}]}");
        size_t bl = strlen(big);
        while (bl % 4) big[bl++] = ' ';
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
    } cases[] = {{""}, {"."}, {"CesiumMan"}, {"missing.bin"}, {"a%00b.bin"}, {"%zz"},
                 {"/etc/passwd"}, {"file:///etc/passwd"}, {"http://example.com/x.bin"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json,
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
    int at = snprintf(json, 200, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                                 "\"uri\":\"");
    for (size_t i = 0; i < 5000; i++) json[at++] = i % 2 ? '/' : 'a';
    strcpy(json + at, "x.bin\"}]}");
    rb_heap h;
    oroya_error err = {0};
    OT_EQ_INT(load_counted(json, strlen(json), &h, &err), OROYA_ERR_LIMIT);
    free(json);
}

int main(void) {
    OT_RUN(test_fault_scene);
    OT_RUN(test_fault_scene_unchanged);
    OT_RUN(test_fault_clip);
    OT_RUN(test_fault_skin);
    OT_RUN(test_fault_gltf);
    OT_RUN(test_huge_declared_counts);
    OT_RUN(test_huge_glb_chunks);
    OT_RUN(test_bad_uris);
    return ot_finish();
}
