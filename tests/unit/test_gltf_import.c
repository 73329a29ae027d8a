/* glTF import tests: scene structure, docs/scenario.md names, transforms, morph weights, cameras,
 * materials and images, skins, clips; plus error paths and allocation failures. Expected
 * values come from the files (read with Python's struct / `file`), the glTF spec, three.js's
 * GLTFLoader source (camera defaults, default material) or hand computation. The numeric
 * agreement with three.js over whole animations is tests/gltf/test_gltf_oracle.sh. */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oroya/gltf.h"
#include "oroya_test.h"

#define ASSETS OROYA_SOURCE_DIR "/tests/assets"

static char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = (char *)malloc((size_t)n + 1);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

static char *base64(const void *data, size_t n) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = (const unsigned char *)data;
    char *s = (char *)malloc((n + 2) / 3 * 4 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0u) |
                     (i + 2 < n ? p[i + 2] : 0u);
        s[o++] = abc[v >> 18 & 63];
        s[o++] = abc[v >> 12 & 63];
        s[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        s[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    s[o] = '\0';
    return s;
}

/* parse + load buffers + validate + import of a JSON string. */
static oroya_result import_json(const char *json, oroya_gltf_model **out, oroya_error *err) {
    oroya_gltf_data *d = NULL;
    *out = NULL;
    oroya_result r = oroya_gltf_parse(NULL, json, strlen(json), &d, err);
    if (r == OROYA_OK)
        r = oroya_gltf_load_buffers(d, err);
    if (r == OROYA_OK)
        r = oroya_gltf_validate(d, err);
    if (r == OROYA_OK)
        r = oroya_gltf_import(d, NULL, out, err);
    oroya_gltf_free(d);
    return r;
}

static oroya_node_kind kind_of(const oroya_gltf_model *m, uint32_t i) {
    oroya_node_kind k = OROYA_NODE_KIND_COUNT_;
    oroya_scene_node_kind(m->scene, m->nodes[i], &k);
    return k;
}

/* Every model of a folder tree imports with its images; returns the number of files. */
static int import_tree(const char *dir) {
    int files = 0;
    DIR *d = opendir(dir);
    if (!d) {
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) {
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            files += import_tree(path);
            continue;
        }
        size_t n = strlen(path);
        if (!(n > 5 && !strcmp(path + n - 5, ".gltf")) &&
            !(n > 4 && !strcmp(path + n - 4, ".glb"))) {
            continue;
        }
        files++;
        oroya_gltf_model *m = NULL;
        oroya_error err = {0};
        OT_CHECK_MSG(oroya_gltf_load(path, NULL, &m, &err) == OROYA_OK, "%s: %s", path,
                     err.message);
        /* Every referenced base color image was decoded. */
        for (uint32_t i = 0; m && i < m->material_count; i++) {
            uint32_t img = m->materials[i].base_color_image;
            OT_CHECK_MSG(img == OROYA_GLTF_NONE || m->images[img].pixels, "%s: image %u", path,
                         img);
        }
        oroya_gltf_model_free(m);
    }
    closedir(d);
    return files;
}

static void test_import_all_models(void) {
    OT_EQ_INT(import_tree(ASSETS), 31); /* every .gltf/.glb file in tests/assets */
}

static void test_simple_skin(void) {
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(ASSETS "/SimpleSkin/glTF/SimpleSkin.gltf", NULL, &m, &err) ==
                     OROYA_OK,
                 "%s", err.message);
    if (!m) {
        return;
    }
    OT_EQ_INT(m->node_count, 3);
    OT_CHECK(!strcmp(m->node_names[0], "node_0") && !strcmp(m->node_names[2], "node_2"));
    OT_EQ_INT(kind_of(m, 0), OROYA_NODE_SKINNED_MESH);
    OT_EQ_INT(kind_of(m, 1), OROYA_NODE_BONE);
    OT_EQ_INT(kind_of(m, 2), OROYA_NODE_BONE);
    oroya_node parent;
    OT_CHECK(oroya_scene_get_parent(m->scene, m->nodes[2], &parent) == OROYA_OK);
    OT_EQ_INT(parent.id, m->nodes[1].id);
    /* Mesh: 10 vertices, 24 indices, skinned. */
    const oroya_geometry *g = NULL;
    OT_CHECK(oroya_scene_get_mesh(m->scene, m->nodes[0], &g, NULL) == OROYA_OK);
    OT_CHECK(g && g->vertex_count == 10 && g->index_count == 24 && g->joints && g->weights);
    if (g && g->joints) {
        OT_EQ_INT(g->joints[2 * 4 + 1], 1);   /* vertex 2: joints (0, 1, 0, 0) */
        OT_CHECK(g->weights[2 * 4] == 0.75f); /* weights (0.75, 0.25, 0, 0) */
    }
    /* Skin: joints nodes 1 and 2; at rest the bone matrices are the identity (joint world
     * translation (0, 1, 0) times the inverse bind translation (0, -1, 0)). */
    OT_EQ_INT(m->skin_count, 1);
    OT_EQ_INT(m->skins[0].joint_count, 2);
    OT_EQ_INT(m->skins[0].joints[0].id, m->nodes[1].id);
    OT_EQ_INT(m->skins[0].joints[1].id, m->nodes[2].id);
    OT_CHECK(m->skins[0].inverse_bind_matrices[1].m[13] == -1.0f);
    float bones[32];
    OT_CHECK(oroya_gltf_model_bone_matrices(m, 0, bones) == OROYA_OK);
    for (int k = 0; k < 32; k++) {
        OT_NEAR(bones[k], (k % 16) % 5 == 0 ? 1.0 : 0.0, 1e-7);
    }
    OT_EQ_INT(oroya_gltf_model_bone_matrices(m, 1, bones), OROYA_ERR_INVALID_ARGUMENT);
    /* The skeleton and the bound skinned mesh (identity bind matrix, as GLTFLoader). */
    OT_CHECK(m->skeletons[0] && m->skeletons[0]->bone_count == 2);
    OT_EQ_INT(m->skinned_mesh_count, 1);
    oroya_skin *skin = m->skinned_meshes[0];
    OT_CHECK(oroya_scene_get_skin(m->scene, m->nodes[0]) == skin);
    OT_CHECK(skin->skeleton == m->skeletons[0] && skin->vertex_count == 10);
    OT_CHECK(skin->bind_matrix.m[0] == 1 && skin->bind_matrix.m[12] == 0);
    /* Turn node 2 (joint 1, at y = 1) by 90 degrees about z and CPU-skin. Vertex 8
     * (-0.5, 2, 0) hangs fully on joint 1: relative to the pivot (0, 1) it is (-0.5, 1),
     * which turns to (-1, -0.5), so it lands on (-1, 0.5). */
    oroya_transform t;
    OT_CHECK(oroya_scene_get_transform(m->scene, m->nodes[2], &t) == OROYA_OK);
    t.rotation = (oroya_quat){0, 0, (float)sqrt(0.5), (float)sqrt(0.5)};
    OT_CHECK(oroya_scene_set_transform(m->scene, m->nodes[2], &t) == OROYA_OK);
    oroya_scene_update_world(m->scene);
    OT_CHECK(oroya_skeleton_update(m->skeletons[0], m->scene, &err) == OROYA_OK);
    OT_CHECK(oroya_skin_update(skin, m->scene, &err) == OROYA_OK);
    float skinned[30];
    OT_CHECK(oroya_skin_compute(skin, skinned, NULL, NULL, &err) == OROYA_OK);
    OT_CHECK(skin->positions[8 * 3] == -0.5f && skin->positions[8 * 3 + 1] == 2.0f);
    OT_NEAR(skinned[8 * 3], -1.0, 1e-6);
    OT_NEAR(skinned[8 * 3 + 1], 0.5, 1e-6);
    OT_NEAR(skinned[0], skin->positions[0], 1e-7); /* vertex 0 hangs on joint 0 */
    /* Clip: unnamed -> animation_0, one LINEAR rotation track on node_2, 12 keys, 5.5 s. */
    OT_EQ_INT(m->clip_count, 1);
    const oroya_clip *c = m->clips[0];
    OT_CHECK(!strcmp(c->name, "animation_0"));
    OT_CHECK(c->duration == 5.5f);
    OT_EQ_INT(c->track_count, 1);
    OT_CHECK(!strcmp(c->tracks[0].target, "node_2"));
    OT_EQ_INT(c->tracks[0].property, OROYA_PROPERTY_ROTATION);
    OT_EQ_INT(c->tracks[0].interpolation, OROYA_INTERP_LINEAR);
    OT_EQ_INT(c->tracks[0].key_count, 12);
    OT_CHECK(c->tracks[0].values[4 * 1 + 2] == 0.383f);
    OT_CHECK(oroya_gltf_model_find_clip(m, "animation_0") == c);
    OT_CHECK(oroya_gltf_model_find_clip(m, "animation_1") == NULL);
    oroya_gltf_model_free(m);
}

static void test_interpolation_names_and_image(void) {
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(ASSETS "/InterpolationTest/glTF-Binary/InterpolationTest.glb",
                                 NULL, &m, &err) == OROYA_OK,
                 "%s", err.message);
    if (!m) {
        return;
    }
    OT_EQ_INT(m->clip_count, 9);
    OT_CHECK(!strcmp(m->clips[0]->name, "Step Scale"));
    OT_CHECK(oroya_gltf_model_find_clip(m, "Step Scale") == m->clips[0]);
    OT_CHECK(oroya_gltf_model_find_clip(m, "animation_0") == m->clips[0]);
    OT_CHECK(oroya_gltf_model_find_clip(m, "animation_00") == NULL);
    /* Nodes keep Blender's names, dots included; "node_3" is the same node as "Cube.001". */
    oroya_node a, b;
    uint32_t idx = 99;
    OT_CHECK(oroya_gltf_model_find_node(m, "Cube.001", &a, &idx) == OROYA_OK && idx == 3);
    OT_CHECK(oroya_gltf_model_find_node(m, "node_3", &b, NULL) == OROYA_OK && a.id == b.id);
    OT_CHECK(!strcmp(oroya_scene_node_name(m->scene, a), "Cube.001"));
    OT_EQ_INT(oroya_gltf_model_find_node(m, "node_12", &b, NULL), OROYA_ERR_NOT_FOUND);
    OT_EQ_INT(oroya_gltf_model_find_node(m, "nope", &b, NULL), OROYA_ERR_NOT_FOUND);
    /* Interpolation modes per clip name. */
    for (uint32_t i = 0; i < 9; i++) {
        const oroya_clip *c = m->clips[i];
        oroya_interpolation want = !strncmp(c->name, "Step", 4)     ? OROYA_INTERP_STEP
                                   : !strncmp(c->name, "Linear", 6) ? OROYA_INTERP_LINEAR
                                                                    : OROYA_INTERP_CUBICSPLINE;
        OT_EQ_INT(c->tracks[0].interpolation, want);
    }
    /* The base color texture l.jpg (1000 x 100, per `file`) is decoded to RGBA8. */
    bool found = false;
    for (uint32_t i = 0; i < m->material_count; i++) {
        uint32_t img = m->materials[i].base_color_image;
        if (img != OROYA_GLTF_NONE) {
            found = true;
            OT_EQ_INT(m->images[img].width, 1000);
            OT_EQ_INT(m->images[img].height, 100);
            OT_CHECK(m->images[img].pixels != NULL);
        }
    }
    OT_CHECK(found);
    /* Blender's material: factor 0.8, metallic 0, roughness 0.5. */
    OT_CHECK(m->materials[0].material.base_color[0] == 0.800000011920929f);
    OT_CHECK(m->materials[0].material.metallic == 0.0f);
    OT_CHECK(m->materials[0].material.roughness == 0.5f);
    oroya_gltf_model_free(m);

    /* skip_images leaves images undecoded. */
    oroya_gltf_import_desc desc = {.skip_images = true};
    OT_CHECK(oroya_gltf_load(ASSETS "/InterpolationTest/glTF-Binary/InterpolationTest.glb", &desc,
                             &m, &err) == OROYA_OK);
    if (m) {
        OT_CHECK(m->image_count == 1 && m->images[0].pixels == NULL && m->images[0].width == 0);
        OT_CHECK(m->images[0].encoded == NULL && m->images[0].encoded_size == 0);
        oroya_gltf_model_free(m);
    }
    /* skip_image_decode keeps the file's bytes (the same as a decoding import keeps) and
     * decodes nothing. */
    oroya_gltf_model *full = NULL;
    desc = (oroya_gltf_import_desc){.skip_image_decode = true};
    m = NULL;
    OT_CHECK(oroya_gltf_load(ASSETS "/InterpolationTest/glTF-Binary/InterpolationTest.glb", NULL,
                             &full, &err) == OROYA_OK);
    OT_CHECK(oroya_gltf_load(ASSETS "/InterpolationTest/glTF-Binary/InterpolationTest.glb", &desc,
                             &m, &err) == OROYA_OK);
    if (m && full) {
        OT_CHECK(m->image_count == 1 && m->images[0].pixels == NULL && m->images[0].width == 0 &&
                 m->images[0].height == 0);
        OT_CHECK(full->images[0].pixels != NULL && full->images[0].encoded_size > 1000);
        OT_CHECK(m->images[0].encoded != NULL &&
                 m->images[0].encoded_size == full->images[0].encoded_size &&
                 !memcmp(m->images[0].encoded, full->images[0].encoded,
                         (size_t)full->images[0].encoded_size));
        OT_CHECK(!strcmp(m->images[0].mime_type, "image/jpeg"));
    }
    oroya_gltf_model_free(m);
    oroya_gltf_model_free(full);
}

static void test_quantized_clip(void) {
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(ASSETS "/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
                                 NULL, &m, &err) == OROYA_OK,
                 "%s", err.message);
    if (!m) {
        return;
    }
    /* "Square": one weights track, 2 morph targets, 127 keys, unorm8 values scaled. */
    const oroya_clip *c = oroya_gltf_model_find_clip(m, "Square");
    OT_CHECK(c && c->track_count == 1);
    if (c) {
        const oroya_track *t = &c->tracks[0];
        OT_EQ_INT(t->property, OROYA_PROPERTY_WEIGHTS);
        OT_EQ_INT(t->components, 2);
        OT_EQ_INT(t->key_count, 127);
        FILE *f = fopen(ASSETS "/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.bin", "rb");
        uint8_t raw[1700];
        OT_CHECK(f && fread(raw, 1, sizeof raw, f) == sizeof raw);
        if (f) {
            fclose(f);
        }
        for (int i = 0; i < 254; i++) {
            OT_NEAR(t->values[i], raw[1444 + i] / 255.0, 1e-7);
        }
    }
    /* The node carries the morph weights (2, from the mesh default or 0). */
    uint32_t n = 0;
    OT_CHECK(oroya_scene_weights(m->scene, m->nodes[0], &n) != NULL && n == 2);
    oroya_gltf_model_free(m);
}

/* A buffer of 3 vertices (a triangle) plus 3 float times, as a data: URI. */
static char *triangle_uri(void) {
    static const float b[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 2};
    char *b64 = base64(b, sizeof b);
    char *u = fmt("data:application/octet-stream;base64,%s", b64);
    free(b64);
    return u;
}

#define HEAD "{\"asset\":{\"version\":\"2.0\"},"
#define TRI_BUFFERS                                                                                \
    "\"buffers\":[{\"uri\":\"%s\",\"byteLength\":48}],"                                            \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"           \
    "\"byteLength\":12}],"                                                                         \
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"      \
    "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"}],"

static void test_names(void) {
    /* docs/scenario.md: duplicate, empty, node_<digits>, action: and skin: names fall back to
     * node_<i>; clip names fall back to animation_<i> when duplicate or animation_<j>. */
    const char *json =
        HEAD "\"nodes\":[{\"name\":\"A\"},{\"name\":\"A\"},{\"name\":\"\"},{\"name\":\"node_7\"},"
             "{\"name\":\"action:x\"},{\"name\":\"skin:1\"},{\"name\":\"B\"},{}],"
             "\"scenes\":[{\"nodes\":[0,1,2,3,4,5,6,7]}],"
             "\"animations\":[{\"name\":\"Walk\",\"channels\":[],\"samplers\":[]},"
             "{\"name\":\"Walk\",\"channels\":[],\"samplers\":[]},"
             "{\"name\":\"animation_5\",\"channels\":[],\"samplers\":[]},"
             "{\"name\":\"animation_3\",\"channels\":[],\"samplers\":[]},"
             "{\"name\":\"Run\",\"channels\":[],\"samplers\":[]},{}]}";
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(import_json(json, &m, &err) == OROYA_OK, "%s", err.message);
    if (!m) {
        return;
    }
    static const char *const want[] = {"node_0", "node_1", "node_2", "node_3",
                                       "node_4", "node_5", "B",      "node_7"};
    for (int i = 0; i < 8; i++) {
        OT_CHECK_MSG(!strcmp(m->node_names[i], want[i]), "node %d: %s", i, m->node_names[i]);
    }
    static const char *const clips[] = {"animation_0", "animation_1", "animation_2",
                                        "animation_3", "Run",         "animation_5"};
    for (int i = 0; i < 6; i++) {
        OT_CHECK_MSG(!strcmp(m->clips[i]->name, clips[i]), "clip %d: %s", i, m->clips[i]->name);
        OT_CHECK(m->clips[i]->track_count == 0);
    }
    oroya_node n;
    OT_EQ_INT(oroya_gltf_model_find_node(m, "A", &n, NULL), OROYA_ERR_NOT_FOUND);
    OT_EQ_INT(oroya_gltf_model_find_node(m, "node_7", &n, NULL), OROYA_OK);
    OT_EQ_INT(n.id, m->nodes[7].id); /* node_7 is node 7, not the node named "node_7" */
    OT_EQ_INT(oroya_gltf_model_find_node(m, "node_07", &n, NULL), OROYA_ERR_NOT_FOUND);
    OT_EQ_INT(oroya_gltf_model_find_node(m, "B", &n, NULL), OROYA_OK);
    OT_EQ_INT(n.id, m->nodes[6].id);
    OT_CHECK(oroya_gltf_model_find_clip(m, "Walk") == NULL);
    OT_CHECK(oroya_gltf_model_find_clip(m, "animation_5") == m->clips[5]);
    OT_CHECK(oroya_gltf_model_find_clip(m, "Run") == m->clips[4]);
    OT_EQ_INT(oroya_gltf_model_find_node(NULL, "B", &n, NULL), OROYA_ERR_INVALID_ARGUMENT);
    oroya_gltf_model_free(m);
}

static void test_structure(void) {
    /* Node 0: matrix T(1,2,3) R(90 deg about z) S(2); child node 1: mesh with two triangle
     * primitives and 1 morph target, mesh weights [0.25], node weights absent. Node 2 has a
     * camera (yfov 1 rad, no aspect, no zfar) and is only in scene 1; scene 0 is default. */
    char *uri = triangle_uri();
    char *json =
        fmt(HEAD TRI_BUFFERS
            "\"meshes\":[{\"weights\":[0.25],\"primitives\":["
            "{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":0}]},"
            "{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":0}],\"material\":0},"
            "{\"attributes\":{\"POSITION\":0},\"mode\":1,\"targets\":[{\"POSITION\":0}]}]}],"
            "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,0,0,0.5]}}],"
            "\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":1,\"znear\":0.1}}],"
            "\"nodes\":[{\"matrix\":[0,2,0,0, -2,0,0,0, 0,0,2,0, 1,2,3,1],\"children\":[1]},"
            "{\"mesh\":0,\"name\":\"M\"},{\"camera\":0}],"
            "\"scene\":0,\"scenes\":[{\"nodes\":[0]},{\"nodes\":[2]}]}",
            uri);
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(import_json(json, &m, &err) == OROYA_OK, "%s", err.message);
    free(json);
    if (!m) {
        free(uri);
        return;
    }
    oroya_transform t;
    OT_CHECK(oroya_scene_get_transform(m->scene, m->nodes[0], &t) == OROYA_OK);
    OT_NEAR(t.translation.x, 1, 1e-6);
    OT_NEAR(t.translation.z, 3, 1e-6);
    OT_NEAR(t.scale.x, 2, 1e-6);
    OT_NEAR(t.scale.y, 2, 1e-6);
    OT_NEAR(fabs(t.rotation.z), sqrt(0.5), 1e-6); /* 90 degrees about z */
    OT_NEAR(fabs(t.rotation.w), sqrt(0.5), 1e-6);
    /* Three primitives: three unnamed children of the mesh node; the line primitive has no
     * geometry. The node holds the weights. */
    OT_EQ_INT(kind_of(m, 1), OROYA_NODE_MESH);
    OT_EQ_INT(oroya_scene_child_count(m->scene, m->nodes[1]), 3);
    const oroya_geometry *g = NULL;
    const oroya_material *mat = NULL;
    oroya_node child;
    OT_CHECK(oroya_scene_get_child(m->scene, m->nodes[1], 1, &child) == OROYA_OK);
    OT_CHECK(oroya_scene_get_mesh(m->scene, child, &g, &mat) == OROYA_OK);
    OT_CHECK(g && g->vertex_count == 3 && g->morph_target_count == 1);
    OT_CHECK(mat && mat->base_color[0] == 1.0f && mat->base_color[3] == 0.5f);
    OT_CHECK(oroya_scene_get_child(m->scene, m->nodes[1], 0, &child) == OROYA_OK);
    OT_CHECK(oroya_scene_get_mesh(m->scene, child, &g, &mat) == OROYA_OK);
    /* No material: GLTFLoader's default (white, metalness 1, roughness 1). */
    OT_CHECK(mat && mat->base_color[0] == 1.0f && mat->metallic == 1.0f && mat->roughness == 1.0f);
    OT_CHECK(oroya_scene_get_child(m->scene, m->nodes[1], 2, &child) == OROYA_OK);
    OT_EQ_INT(oroya_scene_get_mesh(m->scene, child, &g, &mat), OROYA_ERR_NOT_FOUND);
    OT_CHECK(m->geometries[2] == NULL);
    uint32_t wn = 0;
    float *w = oroya_scene_weights(m->scene, m->nodes[1], &wn);
    OT_CHECK(w && wn == 1 && w[0] == 0.25f);
    /* World of M = parent's matrix: translation (1, 2, 3). */
    oroya_mat4 world;
    OT_CHECK(oroya_scene_get_world(m->scene, m->nodes[1], &world) == OROYA_OK);
    OT_NEAR(world.m[12], 1, 1e-6);
    OT_NEAR(world.m[14], 3, 1e-6);
    /* Node 2 is not in the default scene. */
    OT_EQ_INT(m->nodes[2].id, 0);
    oroya_node n;
    OT_EQ_INT(oroya_gltf_model_find_node(m, "node_2", &n, NULL), OROYA_ERR_NOT_FOUND);
    oroya_gltf_model_free(m);

    /* Scene 1 as default: the camera node, with GLTFLoader's defaults. */
    json =
        fmt(HEAD TRI_BUFFERS "\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":1,"
                             "\"znear\":0.1}}],\"nodes\":[{},{\"camera\":0}],"
                             "\"scene\":1,\"scenes\":[{\"nodes\":[0]},{\"nodes\":[1]}]}",
            uri);
    OT_CHECK_MSG(import_json(json, &m, &err) == OROYA_OK, "%s", err.message);
    free(json);
    if (m) {
        OT_EQ_INT(m->nodes[0].id, 0);
        OT_EQ_INT(kind_of(m, 1), OROYA_NODE_CAMERA);
        oroya_camera cam;
        OT_CHECK(oroya_scene_get_camera(m->scene, m->nodes[1], &cam) == OROYA_OK);
        OT_NEAR(cam.fov_y, 57.295779513082323, 1e-4);
        OT_CHECK(cam.aspect == 1.0f && cam.zfar == 2e6f && cam.znear == 0.1f);
        oroya_gltf_model_free(m);
    }
    /* No scenes at all: every root node is loaded. */
    json = fmt(HEAD TRI_BUFFERS "\"nodes\":[{\"children\":[1]},{},{}]}", uri);
    OT_CHECK_MSG(import_json(json, &m, &err) == OROYA_OK, "%s", err.message);
    free(json);
    if (m) {
        OT_CHECK(m->nodes[0].id && m->nodes[1].id && m->nodes[2].id);
        OT_EQ_INT(oroya_scene_child_count(m->scene, (oroya_node){0}), 2);
        oroya_gltf_model_free(m);
    }
    free(uri);
}

static void test_unkept(void) {
    /* What import reads past is listed (docs/gltf.md, "Export"): one line per extension, one
     * per kind with its first place and count. The expected lines are written from the JSON
     * below by hand. Material 1's OPAQUE and material 2's zero emissive are not losses;
     * node 1's matrix is a pure translation (a TRS); node 2's is sheared. The three nodes
     * are roots: skin 0's skeleton (node 2) is no ancestor of its joint. The lines
     * primitive's morph target is not kept either (import keeps POSITION of lines). */
    char *uri = triangle_uri();
    char *json = fmt(
        HEAD "\"extensionsUsed\":[\"KHR_lights_punctual\",\"KHR_mesh_quantization\"],"
             "\"extras\":{\"a\":1},"
             "\"buffers\":[{\"uri\":\"%s\",\"byteLength\":48}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
             "\"byteLength\":12}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":"
             "\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,"
             "\"count\":3,\"type\":\"SCALAR\",\"min\":[0],\"max\":[2]}],"
             "\"materials\":[{},{\"alphaMode\":\"OPAQUE\"},{\"alphaMode\":\"MASK\",\"alphaCutoff\":"
             "0.3,\"emissiveFactor\":[0,0,0]},{\"alphaCutoff\":0.5,\"emissiveFactor\":[1,0,0],"
             "\"normalTexture\":{\"index\":0}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"_TEMP\":1},"
             "\"targets\":[{\"POSITION\":0,\"TANGENT\":0}],\"extras\":{}},"
             "{\"attributes\":{\"POSITION\":0,\"NORMAL\":0},\"mode\":1,\"targets\":[{\"POSITION\":"
             "0}]}]}],"
             "\"nodes\":[{\"mesh\":0,\"extras\":{\"b\":2}},{\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,"
             "5,0,0,1],\"translation\":[1,0,0]},{\"matrix\":[1,0,0,0,0.5,1,0,0,0,0,1,0,0,0,0,1]}],"
             "\"skins\":[{\"joints\":[0],\"skeleton\":2},{\"joints\":[1],\"skeleton\":1}],"
             "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
             "\"translation\"}}],\"samplers\":[{\"input\":1,\"output\":0}],\"extras\":{\"markers\":"
             "[{\"time\":1,\"name\":\"step\"}],\"note\":\"x\"}}]}",
        uri);
    const char *want[] = {
        "extensionsUsed[0]: \"KHR_lights_punctual\": the extension's content is not kept (oroya "
        "reads no extension but KHR_mesh_quantization)",
        "materials[2].alphaMode: alpha mode and cutoff not kept (oroya keeps opaque materials: "
        "export writes OPAQUE) (2 in the file)",
        "materials[3].emissiveFactor: emissive factor and texture not kept (1 in the file)",
        "materials[3].normalTexture: normal, occlusion and metallic-roughness textures not kept "
        "(1 in the file)",
        "meshes[0].primitives[0].attributes._TEMP: vertex attribute import does not read, not "
        "kept (it reads POSITION, NORMAL, TANGENT, TEXCOORD_0 and _1, COLOR_0, JOINTS_0 and _1, "
        "WEIGHTS_0 and _1 of triangles, POSITION of points, lines, strips and fans) (2 in the "
        "file)",
        "meshes[0].primitives[0].targets[0].TANGENT: morph target attributes other than "
        "POSITION and NORMAL of triangles not kept (2 in the file)",
        "extras: extras not kept (oroya keeps an animation's extras.markers and extras.curves "
        "only) (4 in the file)",
        "nodes[1]: a matrix and translation, rotation or scale on one node (glTF allows one or "
        "the other): the matrix is used, as three.js does, and the rest not kept (1 in the "
        "file)",
        "nodes[2].matrix: not a translation, rotation and scale (a shear, or a scale along "
        "rotated axes): decomposed into one as three.js does, which does not give the matrix "
        "back (1 in the file)",
        "skins[0].skeleton: node 2 is not a common root of the skin's joints (invalid glTF: it "
        "must be an ancestor of each, or one of them): not kept (1 in the file)",
    };
    const uint32_t n = (uint32_t)(sizeof want / sizeof want[0]);
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(import_json(json, &m, &err) == OROYA_OK, "%s", err.message);
    free(json);
    if (m) {
        OT_EQ_INT(m->unkept_count, n);
        for (uint32_t i = 0; i < n && i < m->unkept_count; i++) {
            OT_CHECK_MSG(!strcmp(m->unkept[i], want[i]), "line %u: %s", i, m->unkept[i]);
        }
        /* The marker was read all the same; skin 0's skeleton (node 2 is no ancestor of
         * joint 0) is dropped, skin 1's (its own joint) kept. */
        OT_EQ_INT(m->clips[0]->marker_count, 1);
        OT_EQ_INT(m->skins[0].skeleton_gltf_node, OROYA_GLTF_NONE);
        OT_EQ_INT(m->skins[0].skeleton.id, 0);
        OT_EQ_INT(m->skins[1].skeleton_gltf_node, 1);
        OT_CHECK(m->skins[1].skeleton.id != 0);
        oroya_gltf_model_free(m);
    }
    /* JOINTS_0 without WEIGHTS_0 (invalid glTF): the primitive is not skinned, said. */
    const char *unpaired = HEAD
        "\"buffers\":[{\"byteLength\":48,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAA\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
        "\"byteLength\":12}],"
        "\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"bufferView\":0,"
        "\"min\":[0,0,0],\"max\":[1,1,0]},{\"componentType\":5121,\"count\":3,\"type\":"
        "\"VEC4\",\"bufferView\":1}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1}}]}],"
        "\"nodes\":[{\"mesh\":0,\"skin\":0},{\"name\":\"j\"}],\"skins\":[{\"joints\":[1]}]}";
    OT_CHECK_MSG(import_json(unpaired, &m, &err) == OROYA_OK, "%s", err.message);
    if (m) {
        OT_EQ_INT(m->unkept_count, 1);
        OT_CHECK_MSG(m->unkept_count == 1 &&
                         !strcmp(m->unkept[0],
                                 "meshes[0].primitives[0].attributes.JOINTS_0: JOINTS_n without "
                                 "WEIGHTS_n or the reverse (invalid glTF: they come in pairs): "
                                 "that set of influences not kept (1 in the file)"),
                     "%s", m->unkept_count ? m->unkept[0] : "");
        oroya_gltf_model_free(m);
    }
    /* A file with none of these: no lines. */
    json = fmt(HEAD TRI_BUFFERS "\"nodes\":[{\"matrix\":[0,2,0,0,-2,0,0,0,0,0,2,0,1,2,3,1]}],"
                                "\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
                                "\"materials\":[{\"alphaMode\":\"OPAQUE\"}]}",
               uri);
    OT_CHECK_MSG(import_json(json, &m, &err) == OROYA_OK, "%s", err.message);
    free(json);
    if (m) {
        OT_EQ_INT(m->unkept_count, 0);
        OT_CHECK(m->unkept == NULL);
        oroya_gltf_model_free(m);
    }
    free(uri);
}

static void test_clip_tracks(void) {
    /* Translation STEP with 3 keys (times 0, 1, 2 at byte 36); weights channel on a morph
     * mesh; a channel without a node is ignored. */
    char *uri = triangle_uri();
    char *json = fmt(
        HEAD
        "\"buffers\":[{\"uri\":\"%s\",\"byteLength\":48}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
        "\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"componentType\":5126,\"count\":9,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},"
        "\"targets\":[{\"POSITION\":0},{\"POSITION\":0},{\"POSITION\":0}]}]}],"
        "\"nodes\":[{\"name\":\"box\",\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],"
        "\"animations\":[{\"name\":\"go\",\"samplers\":[{\"input\":1,\"output\":0,"
        "\"interpolation\":\"STEP\"},{\"input\":1,\"output\":2}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
        "{\"sampler\":1,\"target\":{\"path\":\"translation\"}},"
        "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"weights\"}}]}]}",
        uri);
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(import_json(json, &m, &err) == OROYA_OK, "%s", err.message);
    free(json);
    free(uri);
    if (!m) {
        return;
    }
    const oroya_clip *c = oroya_gltf_model_find_clip(m, "go");
    OT_CHECK(c && c->track_count == 2);
    if (c && c->track_count == 2) {
        OT_CHECK(!strcmp(c->tracks[0].target, "box"));
        OT_EQ_INT(c->tracks[0].interpolation, OROYA_INTERP_STEP);
        OT_EQ_INT(c->tracks[0].key_count, 3);
        OT_CHECK(c->tracks[0].values[3] == 1.0f && c->tracks[0].times[2] == 2.0f);
        OT_EQ_INT(c->tracks[1].property, OROYA_PROPERTY_WEIGHTS);
        OT_EQ_INT(c->tracks[1].components, 3);
        OT_CHECK(c->duration == 2.0f);
    }
    oroya_gltf_model_free(m);
}

/* A LINES primitive (no geometry: kept for export) whose index names a vertex it does not
 * have: refused as a triangle primitive's is, naming the primitive (it was kept, and export
 * wrote a file the validator refuses). */
static void test_line_indices_checked(void) {
    unsigned char bin[48] = {0};
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const uint16_t idx[3] = {0, 1, 7};
    memcpy(bin, pos, sizeof pos);
    memcpy(bin + 36, idx, sizeof idx);
    char *b64 = base64(bin, sizeof bin);
    char *json =
        fmt("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":48,\"uri\":"
            "\"data:application/octet-stream;base64,%s\"}],\"bufferViews\":[{\"buffer\":0,"
            "\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
            "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":"
            "\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":"
            "5123,\"count\":3,\"type\":\"SCALAR\"}],\"meshes\":[{\"primitives\":[{"
            "\"attributes\":{\"POSITION\":0},\"indices\":1,\"mode\":%d}]}],\"nodes\":[{"
            "\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
            b64, 1);
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_EQ_INT(import_json(json, &m, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK_MSG(strstr(err.message,
                        "meshes[0].primitives[0].indices: index 2 is 7, but there are 3 vertices"),
                 "%s", err.message);
    OT_CHECK(m == NULL);
    free(json);
    /* In range, it is kept. */
    const uint16_t ok[3] = {0, 1, 2};
    memcpy(bin + 36, ok, sizeof ok);
    free(b64);
    b64 = base64(bin, sizeof bin);
    json = fmt("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":48,\"uri\":"
               "\"data:application/octet-stream;base64,%s\"}],\"bufferViews\":[{\"buffer\":0,"
               "\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}],"
               "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
               "\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,"
               "\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}],\"meshes\":[{"
               "\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,\"mode\":%d}]"
               "}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
               b64, 1);
    OT_EQ_INT(import_json(json, &m, &err), OROYA_OK);
    oroya_gltf_model_free(m);
    free(json);
    free(b64);
}

static void test_errors(void) {
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    /* A NaN key value is refused by clip creation, and the message says where. */
    float b[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 2};
    uint32_t nan_bits = 0x7FC00000u;
    memcpy(&b[4], &nan_bits, 4);
    char *b64 = base64(b, sizeof b);
    char *uri = fmt("data:application/octet-stream;base64,%s", b64);
    char *json = fmt(HEAD TRI_BUFFERS
                     "\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":1,\"output\":0}],"
                     "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}}]}]}",
                     uri);
    OT_EQ_INT(import_json(json, &m, &err), OROYA_ERR_NON_FINITE);
    /* Named by the glTF channel and its sampler (it named the clip's track index, which skips
     * ignored channels). */
    OT_CHECK_MSG(
        strstr(err.message,
               "animations[0].channels[0] (samplers[0]) (target \"node_0\", scale): key 1: "
               "value component 1 is nan") == err.message,
        "%s", err.message);
    OT_CHECK(m == NULL);
    free(json);
    /* The same behind a channel import ignores (no target node): channels[1], the clip's track 0. */
    json = fmt(HEAD TRI_BUFFERS
               "\"nodes\":[{}],\"animations\":[{\"samplers\":[{\"input\":1,\"output\":0}],"
               "\"channels\":[{\"sampler\":0,\"target\":{\"path\":\"scale\"}},"
               "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"scale\"}}]}]}",
               uri);
    OT_EQ_INT(import_json(json, &m, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(
        strstr(err.message, "animations[0].channels[1] (samplers[0]) (target \"node_0\"") ==
            err.message,
        "%s", err.message);
    OT_CHECK(m == NULL);
    free(json);
    free(uri);
    /* A vertex index past the vertex count (the float 1.0 read as UNSIGNED_INT). */
    uri = triangle_uri();
    json = fmt(
        HEAD
        "\"buffers\":[{\"uri\":\"%s\",\"byteLength\":48}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
        "\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
        "{\"bufferView\":1,\"componentType\":5125,\"count\":3,\"type\":\"SCALAR\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
        "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}",
        uri);
    OT_EQ_INT(import_json(json, &m, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK_MSG(strstr(err.message, "meshes[0].primitives[0]: ") == err.message, "%s",
                 err.message);
    free(json);
    free(uri);
    free(b64);
    /* A JPEG whose Huffman table declares 16 x 255 codes (stb_image would write past its
     * 257-entry table) is refused before decoding; a PNG that is not one fails cleanly. */
    static const uint8_t bad_jpeg[] = {0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x13, 0x00, 0xFF, 0xFF,
                                       0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                       0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xD9};
    static const uint8_t bad_png[] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0};
    const struct {
        const uint8_t *bytes;
        size_t n;
        const char *what;
    } images[] = {
        {bad_jpeg, sizeof bad_jpeg,
         "images[0]: cannot decode the image (corrupt JPEG Huffman table)"},
        {bad_png, sizeof bad_png, "images[0]: cannot decode the image ("},
    };
    for (int i = 0; i < 2; i++) {
        char *img64 = base64(images[i].bytes, images[i].n);
        json = fmt(HEAD "\"images\":[{\"uri\":\"data:image/jpeg;base64,%s\"}],"
                        "\"textures\":[{\"source\":0}],\"materials\":[{\"pbrMetallicRoughness\":"
                        "{\"baseColorTexture\":{\"index\":0}}}]}",
                   img64);
        OT_EQ_INT(import_json(json, &m, &err), OROYA_ERR_PARSE);
        OT_CHECK_MSG(strstr(err.message, images[i].what) == err.message, "%s", err.message);
        free(json);
        free(img64);
    }
    /* One unbacked accessor of 12 MB named by six primitives would decode 72 MB from a
     * file of a few hundred bytes: over the budget, refused before allocating. */
    const char *bomb =
        HEAD "\"accessors\":[{\"componentType\":5126,\"count\":999999,\"type\":\"VEC3\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}},"
             "{\"attributes\":{\"POSITION\":0}},{\"attributes\":{\"POSITION\":0}},"
             "{\"attributes\":{\"POSITION\":0}},{\"attributes\":{\"POSITION\":0}},"
             "{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}";
    OT_EQ_INT(import_json(bomb, &m, &err), OROYA_ERR_LIMIT);
    OT_CHECK_MSG(strstr(err.message, "meshes[0].primitives[5]: import would decode more than"),
                 "%s", err.message);
    /* Unvalidated data is refused. */
    oroya_gltf_data *d = NULL;
    const char *ok = HEAD "\"nodes\":[{}]}";
    OT_CHECK(oroya_gltf_parse(NULL, ok, strlen(ok), &d, &err) == OROYA_OK);
    OT_EQ_INT(oroya_gltf_import(d, NULL, &m, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_gltf_import(d, NULL, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_gltf_import(NULL, NULL, &m, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_gltf_free(d);
    OT_EQ_INT(oroya_gltf_load(ASSETS "/nope.gltf", NULL, &m, &err), OROYA_ERR_NOT_FOUND);
    OT_EQ_INT(oroya_gltf_load(NULL, NULL, &m, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_gltf_model_free(NULL);
}

typedef struct counting {
    int allocs_left;
    int live;
} counting;

static void *count_alloc(size_t size, size_t align, void *user) {
    counting *c = (counting *)user;
    if (c->allocs_left-- <= 0) {
        return NULL;
    }
    c->live++;
    /* Honour the alignment: the scene and geometry ask for 16 bytes. */
    size_t rounded = (size + align - 1) / align * align;
    return align > 16 ? aligned_alloc(align, rounded) : malloc(size);
}

static void count_free(void *p, void *user) {
    if (p) {
        ((counting *)user)->live--;
    }
    free(p);
}

/* Every allocation of load (parse, buffers, validate, import with images) fails once. */
static void fail_every_allocation(const char *file) {
    int succeeded_at = -1;
    for (int n = 0; n < 5000 && succeeded_at < 0; n++) {
        counting c = {n, 0};
        oroya_gltf_import_desc desc = {.allocator = {count_alloc, count_free, &c}};
        oroya_gltf_model *m = NULL;
        oroya_error err = {0};
        oroya_result r = oroya_gltf_load(file, &desc, &m, &err);
        if (r == OROYA_OK) {
            succeeded_at = n;
        } else {
            OT_CHECK_MSG(r == OROYA_ERR_OUT_OF_MEMORY, "%s n=%d: %s", file, n, err.message);
            OT_CHECK(m == NULL);
        }
        oroya_gltf_model_free(m);
        OT_CHECK_MSG(c.live == 0, "%s n=%d: %d allocations leaked", file, n, c.live);
    }
    OT_CHECK_MSG(succeeded_at > 20, "%s: %d", file, succeeded_at);
}

static void test_allocation_failures(void) {
    fail_every_allocation(ASSETS "/SimpleSkin/glTF/SimpleSkin.gltf");
    fail_every_allocation(ASSETS "/InterpolationTest/glTF-Binary/InterpolationTest.glb");
}

int main(void) {
    OT_RUN(test_import_all_models);
    OT_RUN(test_simple_skin);
    OT_RUN(test_interpolation_names_and_image);
    OT_RUN(test_quantized_clip);
    OT_RUN(test_names);
    OT_RUN(test_structure);
    OT_RUN(test_unkept);
    OT_RUN(test_clip_tracks);
    OT_RUN(test_errors);
    OT_RUN(test_line_indices_checked);
    OT_RUN(test_allocation_failures);
    return ot_finish();
}
