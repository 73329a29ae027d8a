/* Skeletons and skinned meshes on a scene: the g_skeleton scenario rebuilt in C and compared
 * with three.js's boneMatrices, vertices and matrixWorld per frame; the tutorial's 5-bone
 * cylinder against a naive forward-kinematics reference; bind modes; pose (three.js's
 * Skeleton.pose, including its root-bone behaviour); unreachable bones named; index cache
 * re-resolution; bind-time errors naming the vertex; the bone texture layout. */
#include "oroya/gltf.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"
#include "oroya/track.h"
#include "oroya_test.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

/* ---- helpers ---------------------------------------------------------------------------- */

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

static cJSON *load_json(const char *path) {
    char *text = read_text(path);
    if (!text)
        return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    return j;
}

static void json_floats(const cJSON *arr, float *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = (float)cJSON_GetArrayItem(arr, i)->valuedouble;
}

static oroya_node add(oroya_scene *s, const char *name, oroya_node parent, oroya_node_kind kind,
                      float x, float y, float z) {
    oroya_node n = {0};
    OT_EQ_INT(oroya_scene_add_node(s, name, parent, kind, &n), OROYA_OK);
    oroya_transform t = oroya_transform_identity();
    t.translation = (oroya_vec3){x, y, z};
    OT_EQ_INT(oroya_scene_set_transform(s, n, &t), OROYA_OK);
    return n;
}

static void set_rotation(oroya_scene *s, oroya_node n, oroya_quat q) {
    oroya_transform t;
    OT_EQ_INT(oroya_scene_get_transform(s, n, &t), OROYA_OK);
    t.rotation = q;
    OT_EQ_INT(oroya_scene_set_transform(s, n, &t), OROYA_OK);
}

/* ---- g_skeleton against three.js -------------------------------------------------------- */

enum { G_BONES = 5, G_TRACK_KEYS = 5 };

static void test_g_skeleton_matches_three(void) {
    cJSON *sc = load_json(OROYA_SOURCE_DIR "/tests/conformance/g_skeleton.json");
    cJSON *ex = load_json(OROYA_SOURCE_DIR "/tests/conformance/g_skeleton.expected.json");
    OT_CHECK(sc && ex);
    if (!sc || !ex)
        return;

    /* Nodes in file order, parented as listed (the oracle's setup, step 1). */
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    const cJSON *nodes = cJSON_GetObjectItem(sc, "nodes");
    int node_count = cJSON_GetArraySize(nodes);
    oroya_node handles[16];
    OT_CHECK(node_count <= 16);
    for (int i = 0; i < node_count; i++) {
        const cJSON *n = cJSON_GetArrayItem(nodes, i);
        const char *type = cJSON_GetObjectItem(n, "type")->valuestring;
        oroya_node_kind kind = strcmp(type, "bone") == 0          ? OROYA_NODE_BONE
                               : strcmp(type, "skinnedMesh") == 0 ? OROYA_NODE_SKINNED_MESH
                                                                  : OROYA_NODE_OBJECT;
        const cJSON *parent = cJSON_GetObjectItem(n, "parent");
        oroya_node p = {0};
        if (cJSON_IsString(parent)) {
            OT_EQ_INT(oroya_scene_find_node(scene, parent->valuestring, &p), OROYA_OK);
        }
        OT_EQ_INT(oroya_scene_add_node(scene, cJSON_GetObjectItem(n, "name")->valuestring, p, kind,
                                       &handles[i]),
                  OROYA_OK);
        oroya_transform t;
        json_floats(cJSON_GetObjectItem(n, "position"), &t.translation.x, 3);
        json_floats(cJSON_GetObjectItem(n, "rotation"), &t.rotation.x, 4);
        json_floats(cJSON_GetObjectItem(n, "scale"), &t.scale.x, 3);
        OT_EQ_INT(oroya_scene_set_transform(scene, handles[i], &t), OROYA_OK);
    }
    oroya_scene_update_world(scene);

    /* The skin (step 2): geometry, new Skeleton(bones), mesh.bind(skeleton). */
    const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "skins"), 0);
    const cJSON *bone_names = cJSON_GetObjectItem(s, "bones");
    OT_EQ_INT(cJSON_GetArraySize(bone_names), G_BONES);
    oroya_node bones[G_BONES];
    for (int i = 0; i < G_BONES; i++) {
        OT_EQ_INT(
            oroya_scene_find_node(scene, cJSON_GetArrayItem(bone_names, i)->valuestring, &bones[i]),
            OROYA_OK);
    }
    oroya_node mesh;
    OT_EQ_INT(oroya_scene_find_node(scene, cJSON_GetObjectItem(s, "mesh")->valuestring, &mesh),
              OROYA_OK);
    int nv = cJSON_GetArraySize(cJSON_GetObjectItem(s, "vertices")) / 3;
    float *pos = malloc(sizeof(float) * 3 * (size_t)nv);
    float *w = malloc(sizeof(float) * 4 * (size_t)nv);
    float *jf = malloc(sizeof(float) * 4 * (size_t)nv);
    uint16_t *j = malloc(sizeof(uint16_t) * 4 * (size_t)nv);
    json_floats(cJSON_GetObjectItem(s, "vertices"), pos, 3 * nv);
    json_floats(cJSON_GetObjectItem(s, "skinWeight"), w, 4 * nv);
    json_floats(cJSON_GetObjectItem(s, "skinIndex"), jf, 4 * nv);
    for (int i = 0; i < 4 * nv; i++)
        j[i] = (uint16_t)jf[i];

    oroya_error err = {0};
    oroya_skeleton *sk = NULL;
    OT_EQ_INT(oroya_skeleton_create(
                  scene, &(oroya_skeleton_desc){.bones = bones, .bone_count = G_BONES}, &sk, &err),
              OROYA_OK);
    oroya_skin *skin = NULL;
    OT_EQ_INT(oroya_skin_create(&(oroya_skin_desc){.mesh = mesh,
                                                   .vertex_count = (uint32_t)nv,
                                                   .positions = pos,
                                                   .joints = j,
                                                   .weights = w},
                                &skin, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, NULL, &err), OROYA_OK);
    OT_NEAR(skin->bind_matrix.m[12], 2.0, 0);
    OT_NEAR(skin->bind_matrix_inverse.m[12], -2.0, 0);

    /* The clip: one linear rotation track per bone. */
    const cJSON *tracks =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "clips"), 0), "tracks");
    float times[G_BONES][G_TRACK_KEYS], values[G_BONES][G_TRACK_KEYS * 4];
    oroya_node targets[G_BONES];
    oroya_track track[G_BONES];
    uint32_t cursor[G_BONES] = {0};
    for (int i = 0; i < G_BONES; i++) {
        const cJSON *t = cJSON_GetArrayItem(tracks, i);
        OT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(t, "times")), G_TRACK_KEYS);
        json_floats(cJSON_GetObjectItem(t, "times"), times[i], G_TRACK_KEYS);
        json_floats(cJSON_GetObjectItem(t, "values"), values[i], 4 * G_TRACK_KEYS);
        OT_EQ_INT(
            oroya_scene_find_node(scene, cJSON_GetObjectItem(t, "node")->valuestring, &targets[i]),
            OROYA_OK);
        track[i] = (oroya_track){.target = "",
                                 .property = OROYA_PROPERTY_ROTATION,
                                 .interpolation = OROYA_INTERP_LINEAR,
                                 .components = 4,
                                 .key_count = G_TRACK_KEYS,
                                 .times = times[i],
                                 .values = values[i]};
        OT_EQ_INT(oroya_track_validate(&track[i], (uint32_t)i, NULL), OROYA_OK);
    }
    oroya_node b4;
    OT_EQ_INT(oroya_scene_find_node(scene, "b4", &b4), OROYA_OK);

    /* Stepping as in docs/scenario.md: 60 steps of 1/30; one repeating action of duration 2
     * at weight 1, so each bone's rotation is its track's sample (three.js's slerpFlat,
     * oroya_track_sample). */
    const cJSON *frames = cJSON_GetObjectItem(ex, "frames");
    OT_EQ_INT(cJSON_GetArraySize(frames), 60);
    float *out = malloc(sizeof(float) * 3 * (size_t)nv);
    double action_time = 0, worst_bm = 0, worst_v = 0, worst_w = 0;
    const double dt = 1.0 / 30.0, duration = 2.0;
    for (int f = 0; f < 60; f++) {
        action_time += dt;
        if (action_time >= duration)
            action_time -= duration;
        for (int i = 0; i < G_BONES; i++) {
            oroya_quat q;
            oroya_track_sample(&track[i], action_time, &cursor[i], NULL, &q.x);
            set_rotation(scene, targets[i], q);
        }
        oroya_scene_update_world(scene);
        OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
        OT_EQ_INT(oroya_skin_update(skin, scene, &err), OROYA_OK);
        OT_EQ_INT(oroya_skin_compute(skin, out, NULL, NULL, &err), OROYA_OK);

        const cJSON *vals = cJSON_GetObjectItem(cJSON_GetArrayItem(frames, f), "values");
        const cJSON *bm = cJSON_GetObjectItem(vals, "skin:cyl.boneMatrices");
        const cJSON *vx = cJSON_GetObjectItem(vals, "skin:cyl.vertices");
        const cJSON *mw = cJSON_GetObjectItem(vals, "b4.matrixWorld");
        OT_EQ_INT(cJSON_GetArraySize(bm), 16 * G_BONES);
        OT_EQ_INT(cJSON_GetArraySize(vx), 3 * nv);
        for (int i = 0; i < 16 * G_BONES; i++) {
            double d = fabs(sk->bone_matrices[i] - cJSON_GetArrayItem(bm, i)->valuedouble);
            worst_bm = fmax(worst_bm, d);
            OT_CHECK_MSG(d <= 1e-5, "frame %d boneMatrices[%d]: %.9g vs %.9g", f, i,
                         (double)sk->bone_matrices[i], cJSON_GetArrayItem(bm, i)->valuedouble);
        }
        for (int i = 0; i < 3 * nv; i++) {
            double d = fabs(out[i] - cJSON_GetArrayItem(vx, i)->valuedouble);
            worst_v = fmax(worst_v, d);
            OT_CHECK_MSG(d <= 1e-5, "frame %d vertices[%d]: %.9g vs %.9g", f, i, (double)out[i],
                         cJSON_GetArrayItem(vx, i)->valuedouble);
        }
        oroya_mat4 world;
        OT_EQ_INT(oroya_scene_get_world(scene, b4, &world), OROYA_OK);
        for (int i = 0; i < 16; i++) {
            worst_w = fmax(worst_w, fabs(world.m[i] - cJSON_GetArrayItem(mw, i)->valuedouble));
        }
    }
    OT_CHECK(worst_w <= 1e-5);
    printf("g_skeleton through scene + skeleton + skin: worst |diff| boneMatrices %.3g, "
           "vertices %.3g, b4.matrixWorld %.3g\n",
           worst_bm, worst_v, worst_w);

    /* The skeleton's bone_matrices is the bone texture: 8 x 8 texels for 5 bones, zero past
     * the last matrix, identical to oroya_bone_texture_fill's output. */
    OT_EQ_INT(sk->texture_side, 8);
    float tex[8 * 8 * 4];
    OT_EQ_INT(oroya_bone_texture_fill(sk->bone_matrices, G_BONES, tex), 256);
    OT_CHECK(memcmp(tex, sk->bone_matrices, sizeof tex) == 0);

    oroya_skin_destroy(skin);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(scene);
    free(out);
    free(pos);
    free(w);
    free(jf);
    free(j);
    cJSON_Delete(sc);
    cJSON_Delete(ex);
}

/* ---- bind options against three.js ----------------------------------------------------- */

/* Expected values from the three.js oracle (oracle.mjs, three 0.187) on this scenario, which
 * the test rebuilds below: a detached skin with given boneInverses, a given bindMatrix and
 * normalizeSkinWeights (one vertex all-zero, so it becomes (1, 0, 0, 0)); and an attached skin
 * bound without a bind matrix on a rotated, scaled mesh with weights that do NOT sum to 1
 * (0.6, 1.2, 0.9, 0.75), which checks three.js's CPU handling of the bind inverse's
 * translation. At step 3 both mesh nodes are moved (setNode position), which only the
 * attached skin follows. Clip: linear r1 and q1 rotations, q0 position, over 1 s; steps of
 * 1/10 s; recorded skin:<name>.vertices at frames 2 and 5. */
static const double det_frame2[12] = {1.2417387937852147, 0.5765097554511494, -0.31277303670171885,
                                      0.6878117910438006, 0.9435098166152085, -0.10843318811612397,
                                      0.9699154094888822, 1.6422726266882188, 0.017369346430053584,
                                      0.6934710353965603, 2.148702584597213,  -0.34264066548372574};
static const double att_frame2[12] = {
    0.6099999862909318,  -0.15858745064003438, -0.7269936853865597, -0.3800000691413885,
    0.7866830974604881,  0.253705141777987,    0.2350000202655792,  0.8344711414712709,
    0.04078258833450432, 0.43750000111758713,  1.0636658296290582,  -0.500864106765792};
static const double det_frame5[12] = {3.289217997913107,  0.22734346628360047, -0.3401851679858667,
                                      2.696750074087891,  0.46632569872602314, -0.11359370823772241,
                                      2.84805539422625,   1.246146873665405,   0.0877252590453863,
                                      2.4385998409930747, 1.7094338961309419,  -0.1954907127861918};
static const double att_frame5[12] = {
    0.30000001370906837, -0.06154372061501051, 0.0779349185807266, -1.4305115261237231e-08,
    0.8878974971080726,  -0.2763356060958512,  0.2699999928474427, 0.8324470164615827,
    0.23202883052710593, 0.3000000011175871,   1.1177796000799267, 0.1410446114538217};

static void test_bind_options_match_three(void) {
    const float s15 = 0.25881904510252074f, c15 = 0.9659258262890683f;
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_transform t = oroya_transform_identity();
    oroya_node m = add(scene, "m", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, 1, 0.5f, 0);
    set_rotation(scene, m, (oroya_quat){0, s15, 0, c15});
    oroya_node r[2];
    r[0] = add(scene, "r0", m, OROYA_NODE_BONE, 0, 0, 0);
    r[1] = add(scene, "r1", r[0], OROYA_NODE_BONE, 0, 1, 0);
    oroya_node n = add(scene, "n", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, -1, 0, 2);
    OT_EQ_INT(oroya_scene_get_transform(scene, n, &t), OROYA_OK);
    t.rotation = (oroya_quat){s15, 0, 0, c15};
    t.scale = (oroya_vec3){1, 2, 1};
    OT_EQ_INT(oroya_scene_set_transform(scene, n, &t), OROYA_OK);
    oroya_node q[2];
    q[0] = add(scene, "q0", n, OROYA_NODE_BONE, 0, 0, 0);
    q[1] = add(scene, "q1", q[0], OROYA_NODE_BONE, 0, 1, 0);
    oroya_scene_update_world(scene);

    const float verts[12] = {0.2f, 0, 0.1f, -0.3f, 0.5f, 0, 0, 1, 0.25f, 0.1f, 1.5f, -0.2f};
    const uint16_t joints[16] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float det_w[16] = {2, 2, 0, 0, 0.3f, 0.1f, 0, 0, 0, 0, 0, 0, 0.5f, 0, 0, 0};
    const float att_w[16] = {0.3f, 0.3f, 0, 0, 0.6f, 0.6f, 0, 0, 0.9f, 0, 0, 0, 0.5f, 0.25f, 0, 0};
    oroya_mat4 inverses[2] = {oroya_mat4_identity(), oroya_mat4_identity()};
    inverses[0].m[13] = -0.1f;
    inverses[1].m[13] = -1.0f;
    oroya_mat4 bind = oroya_mat4_identity();
    bind.m[12] = 0.5f;
    bind.m[13] = 0.25f;

    oroya_error err = {0};
    oroya_skeleton *det_sk = NULL, *att_sk = NULL;
    oroya_skin *det = NULL, *att = NULL;
    OT_EQ_INT(oroya_skin_create(&(oroya_skin_desc){.mesh = m,
                                                   .vertex_count = 4,
                                                   .positions = verts,
                                                   .joints = joints,
                                                   .weights = det_w},
                                &det, &err),
              OROYA_OK);
    oroya_skin_normalize_weights(det);
    OT_EQ_INT(oroya_skeleton_create(
                  scene,
                  &(oroya_skeleton_desc){.bones = r, .bone_count = 2, .bone_inverses = inverses},
                  &det_sk, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(det, scene, det_sk, &bind, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_set_bind_mode(det, OROYA_BIND_DETACHED), OROYA_OK);
    OT_EQ_INT(oroya_skin_create(&(oroya_skin_desc){.mesh = n,
                                                   .vertex_count = 4,
                                                   .positions = verts,
                                                   .joints = joints,
                                                   .weights = att_w},
                                &att, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = q, .bone_count = 2},
                                    &att_sk, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(att, scene, att_sk, NULL, &err), OROYA_OK);

    const float times[2] = {0, 1};
    const float r1_rot[8] = {0, 0, 0, 1, 0, 0, 0.5f, 0.8660254037844386f};
    const float q1_rot[8] = {0, 0, 0, 1, 0.5f, 0, 0, 0.8660254037844386f};
    const float q0_pos[6] = {0, 0, 0, 0.5f, 0.2f, 0};
    const oroya_track tracks[3] = {
        {.target = "r1",
         .property = OROYA_PROPERTY_ROTATION,
         .interpolation = OROYA_INTERP_LINEAR,
         .components = 4,
         .key_count = 2,
         .times = times,
         .values = r1_rot},
        {.target = "q1",
         .property = OROYA_PROPERTY_ROTATION,
         .interpolation = OROYA_INTERP_LINEAR,
         .components = 4,
         .key_count = 2,
         .times = times,
         .values = q1_rot},
        {.target = "q0",
         .property = OROYA_PROPERTY_TRANSLATION,
         .interpolation = OROYA_INTERP_LINEAR,
         .components = 3,
         .key_count = 2,
         .times = times,
         .values = q0_pos},
    };
    double clock = 0;
    float out[12];
    for (int step = 0; step < 6; step++) {
        if (step == 3) {
            oroya_transform mt;
            OT_EQ_INT(oroya_scene_get_transform(scene, m, &mt), OROYA_OK);
            mt.translation = (oroya_vec3){3, 0, 0};
            OT_EQ_INT(oroya_scene_set_transform(scene, m, &mt), OROYA_OK);
            OT_EQ_INT(oroya_scene_get_transform(scene, n, &mt), OROYA_OK);
            mt.translation = (oroya_vec3){0, 1, 0};
            OT_EQ_INT(oroya_scene_set_transform(scene, n, &mt), OROYA_OK);
        }
        clock += 1.0 / 10.0;
        oroya_quat rot;
        oroya_transform bt;
        oroya_track_sample(&tracks[0], clock, NULL, NULL, &rot.x);
        set_rotation(scene, r[1], rot);
        oroya_track_sample(&tracks[1], clock, NULL, NULL, &rot.x);
        set_rotation(scene, q[1], rot);
        OT_EQ_INT(oroya_scene_get_transform(scene, q[0], &bt), OROYA_OK);
        oroya_track_sample(&tracks[2], clock, NULL, NULL, &bt.translation.x);
        OT_EQ_INT(oroya_scene_set_transform(scene, q[0], &bt), OROYA_OK);
        oroya_scene_update_world(scene);
        OT_EQ_INT(oroya_skeleton_update(det_sk, scene, &err), OROYA_OK);
        OT_EQ_INT(oroya_skeleton_update(att_sk, scene, &err), OROYA_OK);
        OT_EQ_INT(oroya_skin_update(det, scene, &err), OROYA_OK);
        OT_EQ_INT(oroya_skin_update(att, scene, &err), OROYA_OK);
        if (step != 2 && step != 5)
            continue;
        const double *e_det = step == 2 ? det_frame2 : det_frame5;
        const double *e_att = step == 2 ? att_frame2 : att_frame5;
        OT_EQ_INT(oroya_skin_compute(det, out, NULL, NULL, &err), OROYA_OK);
        for (int i = 0; i < 12; i++)
            OT_NEAR(out[i], e_det[i], 1e-5);
        OT_EQ_INT(oroya_skin_compute(att, out, NULL, NULL, &err), OROYA_OK);
        for (int i = 0; i < 12; i++)
            OT_NEAR(out[i], e_att[i], 1e-5);
    }
    oroya_skin_destroy(det);
    oroya_skin_destroy(att);
    oroya_skeleton_destroy(det_sk);
    oroya_skeleton_destroy(att_sk);
    oroya_scene_destroy(scene);
}

/* ---- the tutorial's cylinder ------------------------------------------------------------ */

enum { CYL_RADIAL = 16, CYL_HEIGHT_SEGS = 24, CYL_BONES = 5 };
#define CYL_VERTS ((CYL_RADIAL + 1) * (CYL_HEIGHT_SEGS + 1))

/* The tutorial's weights: t = y / step, lower = min(floor(t), bones - 2), w = t - lower. */
static void cylinder_weights(const float *pos, float step, uint16_t *j, float *w) {
    for (int i = 0; i < CYL_VERTS; i++) {
        float t = pos[i * 3 + 1] / step;
        float lower = fminf(floorf(t), CYL_BONES - 2);
        float f = t - lower;
        j[i * 4 + 0] = (uint16_t)lower;
        j[i * 4 + 1] = (uint16_t)(lower + 1);
        j[i * 4 + 2] = j[i * 4 + 3] = 0;
        w[i * 4 + 0] = 1 - f;
        w[i * 4 + 1] = f;
        w[i * 4 + 2] = w[i * 4 + 3] = 0;
    }
}

/* Forward kinematics by hand: bone i sits at its parent's frame moved 1 up y and turned by
 * angle[i] about z. Returns world rotation angle and origin per bone (2D, z is untouched).
 * The mesh (and bone 0's parent) is at the origin here. */
static void naive_fk(const double *angle, double *world_angle, double *ox, double *oy) {
    double a = 0, x = 0, y = 0;
    for (int i = 0; i < CYL_BONES; i++) {
        double ly = i == 0 ? 0.0 : 1.0;
        x += -sin(a) * ly;
        y += cos(a) * ly;
        a += angle[i];
        world_angle[i] = a;
        ox[i] = x;
        oy[i] = y;
    }
}

static void test_tutorial_cylinder(void) {
    const float height = 4, step = height / (CYL_BONES - 1);
    static float w[CYL_VERTS * 4], out[CYL_VERTS * 3];
    static uint16_t j[CYL_VERTS * 4];
    /* three.js CylinderGeometry(0.35, 0.35, 4, 16, 24, true), translated to stand on y = 0. */
    oroya_geometry *geo = NULL;
    OT_EQ_INT(oroya_geometry_cylinder(&(oroya_cylinder_desc){.radius_top = 0.35f,
                                                             .radius_bottom = 0.35f,
                                                             .height = height,
                                                             .radial_segments = CYL_RADIAL,
                                                             .height_segments = CYL_HEIGHT_SEGS,
                                                             .open_ended = true},
                                      &geo, NULL),
              OROYA_OK);
    if (!geo)
        return;
    OT_EQ_INT(oroya_geometry_translate(geo, 0, height / 2, 0), OROYA_OK);
    OT_EQ_INT(geo->vertex_count, CYL_VERTS);
    const float *pos = geo->positions;
    OT_NEAR(geo->bounds_min.y, 0.0, 1e-6);
    OT_NEAR(geo->bounds_max.y, 4.0, 1e-6);
    cylinder_weights(pos, step, j, w);

    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_node mesh = add(scene, "cylinder", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, 0, 0, 0);
    oroya_node bones[CYL_BONES];
    for (int i = 0; i < CYL_BONES; i++) {
        bones[i] = add(scene, NULL, i == 0 ? mesh : bones[i - 1], OROYA_NODE_BONE, 0,
                       i == 0 ? 0.0f : step, 0);
    }
    oroya_error err = {0};
    oroya_skeleton *sk = NULL;
    oroya_scene_update_world(scene);
    OT_EQ_INT(oroya_skeleton_create(scene,
                                    &(oroya_skeleton_desc){.bones = bones, .bone_count = CYL_BONES},
                                    &sk, &err),
              OROYA_OK);
    oroya_skin *skin = NULL;
    OT_EQ_INT(oroya_skin_create(&(oroya_skin_desc){.mesh = mesh,
                                                   .vertex_count = CYL_VERTS,
                                                   .positions = pos,
                                                   .joints = j,
                                                   .weights = w},
                                &skin, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, NULL, &err), OROYA_OK);

    double worst = 0;
    for (int frame = 0; frame < 40; frame++) {
        double t = frame * 0.1;
        double angle[CYL_BONES] = {0};
        /* The tutorial's loop starts at bone 1: the root stays put. */
        for (int i = 1; i < CYL_BONES; i++) {
            angle[i] = (double)(float)(sin(t * 1.5 + i * 0.6) * 0.35);
            float half = (float)angle[i] * 0.5f;
            set_rotation(scene, bones[i], (oroya_quat){0, 0, sinf(half), cosf(half)});
        }
        oroya_scene_update_world(scene);
        OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
        OT_EQ_INT(oroya_skin_update(skin, scene, &err), OROYA_OK);
        float bounds[6];
        OT_EQ_INT(oroya_skin_compute(skin, out, NULL, bounds, &err), OROYA_OK);
        double wa[CYL_BONES], ox[CYL_BONES], oy[CYL_BONES];
        naive_fk(angle, wa, ox, oy);
        float lo[3] = {1e9f, 1e9f, 1e9f}, hi[3] = {-1e9f, -1e9f, -1e9f};
        for (int v = 0; v < CYL_VERTS; v++) {
            /* Rest bone i is at (0, i) unrotated, so bone_matrix * p = rotate(p - (0, i)) +
             * origin. */
            double ex = 0, ey = 0;
            for (int k = 0; k < 2; k++) {
                int b = j[v * 4 + k];
                double px = pos[v * 3], py = pos[v * 3 + 1] - b * (double)step;
                ex += w[v * 4 + k] * (cos(wa[b]) * px - sin(wa[b]) * py + ox[b]);
                ey += w[v * 4 + k] * (sin(wa[b]) * px + cos(wa[b]) * py + oy[b]);
            }
            worst = fmax(worst, fmax(fabs(out[v * 3] - ex), fabs(out[v * 3 + 1] - ey)));
            worst = fmax(worst, fabs(out[v * 3 + 2] - pos[v * 3 + 2]));
            for (int c = 0; c < 3; c++) {
                lo[c] = fminf(lo[c], out[v * 3 + c]);
                hi[c] = fmaxf(hi[c], out[v * 3 + c]);
            }
        }
        for (int c = 0; c < 3; c++) {
            OT_CHECK(bounds[c] == lo[c]);
            OT_CHECK(bounds[3 + c] == hi[c]);
        }
        if (frame == 0) {
            /* At t = 0 the chain is bent already: the skinned box is not the rest box. */
            OT_CHECK(hi[0] - lo[0] > 0.75f);
        }
    }
    OT_CHECK_MSG(worst < 1e-5, "cylinder vs naive FK: worst %g", worst);
    printf("tutorial cylinder: %d vertices, worst |diff| vs naive FK %.3g\n", CYL_VERTS, worst);
    oroya_skin_destroy(skin);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(scene);
    oroya_geometry_destroy(geo);
}

/* ---- bind modes ------------------------------------------------------------------------- */

/* Bones under the mesh; after bind the mesh moves by (0, 0, 5). Attached: the mesh space moves
 * with it, so skinned mesh-space vertices stay at rest. Detached: bind_matrix_inverse stays at
 * the bind-time mesh, so the vertices shift by the mesh's move. */
static void test_bind_modes(void) {
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_node mesh = add(scene, "m", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, 1, 0, 0);
    oroya_node b0 = add(scene, "b0", mesh, OROYA_NODE_BONE, 0, 0, 0);
    oroya_scene_update_world(scene);
    oroya_skeleton *sk = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = &b0, .bone_count = 1},
                                    &sk, &err),
              OROYA_OK);
    float p[3] = {0.5f, 1, 0}, o[3];
    uint16_t j[4] = {0};
    float w[4] = {1, 0, 0, 0};
    oroya_skin *skin = NULL;
    OT_EQ_INT(oroya_skin_create(
                  &(oroya_skin_desc){
                      .mesh = mesh, .vertex_count = 1, .positions = p, .joints = j, .weights = w},
                  &skin, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, NULL, &err), OROYA_OK);
    OT_EQ_INT(skin->bind_mode, OROYA_BIND_ATTACHED);
    oroya_transform t = oroya_transform_identity();
    t.translation = (oroya_vec3){1, 0, 5};
    OT_EQ_INT(oroya_scene_set_transform(scene, mesh, &t), OROYA_OK);
    oroya_scene_update_world(scene);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);

    OT_EQ_INT(oroya_skin_update(skin, scene, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_compute(skin, o, NULL, NULL, &err), OROYA_OK);
    OT_NEAR(o[0], 0.5, 1e-6);
    OT_NEAR(o[1], 1.0, 1e-6);
    OT_NEAR(o[2], 0.0, 1e-6);

    OT_EQ_INT(oroya_skin_set_bind_mode(skin, OROYA_BIND_DETACHED), OROYA_OK);
    OT_EQ_INT(oroya_skin_update(skin, scene, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_compute(skin, o, NULL, NULL, &err), OROYA_OK);
    OT_NEAR(o[0], 0.5, 1e-6);
    OT_NEAR(o[1], 1.0, 1e-6);
    OT_NEAR(o[2], 5.0, 1e-6);
    OT_EQ_INT(oroya_skin_set_bind_mode(skin, (oroya_bind_mode)7), OROYA_ERR_INVALID_ARGUMENT);

    /* An explicit bind matrix is used as given, and the inverses are left alone. */
    oroya_mat4 inv_before = sk->bone_inverses[0];
    oroya_mat4 bind = oroya_mat4_identity();
    bind.m[13] = 3;
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, &bind, &err), OROYA_OK);
    OT_NEAR(skin->bind_matrix_inverse.m[13], -3.0, 0);
    OT_CHECK(memcmp(&inv_before, &sk->bone_inverses[0], sizeof inv_before) == 0);
    oroya_mat4 singular = {{0}};
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, &singular, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_NEAR(skin->bind_matrix.m[13], 3.0, 0); /* unchanged by the failed bind */

    oroya_skin_destroy(skin);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(scene);
}

/* ---- bind-time errors ------------------------------------------------------------------- */

static void test_bind_errors_name_the_vertex(void) {
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_node mesh = add(scene, "m", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, 0, 0, 0);
    oroya_node b[2];
    b[0] = add(scene, "b0", mesh, OROYA_NODE_BONE, 0, 0, 0);
    b[1] = add(scene, "b1", b[0], OROYA_NODE_BONE, 0, 1, 0);
    oroya_scene_update_world(scene);
    oroya_skeleton *sk = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = b, .bone_count = 2}, &sk,
                                    &err),
              OROYA_OK);
    float p[9] = {0};
    uint16_t j[12] = {0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0};
    float w[12] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    oroya_skin *skin = NULL;
    OT_EQ_INT(oroya_skin_create(
                  &(oroya_skin_desc){
                      .mesh = mesh, .vertex_count = 3, .positions = p, .joints = j, .weights = w},
                  &skin, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, NULL, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK_MSG(strstr(err.message, "vertex 2") != NULL, "%s", err.message);
    OT_CHECK(skin->skeleton == NULL);
    float out[9];
    OT_EQ_INT(oroya_skin_compute(skin, out, NULL, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_skin_destroy(skin);

    float wz[12] = {0.5f, 0.5f, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    uint16_t jok[12] = {0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0};
    OT_EQ_INT(
        oroya_skin_create(
            &(oroya_skin_desc){
                .mesh = mesh, .vertex_count = 3, .positions = p, .joints = jok, .weights = wz},
            &skin, &err),
        OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, NULL, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "vertex 1: all weights are zero") != NULL, "%s", err.message);
    /* three.js's normalizeSkinWeights turns an all-zero vertex into (1, 0, 0, 0). */
    oroya_skin_normalize_weights(skin);
    OT_EQ_INT(skin->weights[4], 1);
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, NULL, &err), OROYA_OK);
    oroya_skin_destroy(skin);

    float wneg[12] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1.5f, -0.5f, 0, 0};
    OT_EQ_INT(
        oroya_skin_create(
            &(oroya_skin_desc){
                .mesh = mesh, .vertex_count = 3, .positions = p, .joints = jok, .weights = wneg},
            &skin, &err),
        OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, NULL, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "vertex 2: weight 1 is negative") != NULL, "%s", err.message);
    oroya_skin_destroy(skin);

    float wnan[12] = {0.5f, 0.5f, 0, 0, NAN, 0, 0, 0, 1, 0, 0, 0};
    OT_EQ_INT(
        oroya_skin_create(
            &(oroya_skin_desc){
                .mesh = mesh, .vertex_count = 3, .positions = p, .joints = jok, .weights = wnan},
            &skin, &err),
        OROYA_OK);
    OT_EQ_INT(oroya_skin_bind(skin, scene, sk, NULL, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "vertex 1: weight 0 is NaN") != NULL, "%s", err.message);
    oroya_skin_destroy(skin);

    /* Create-time structure checks. */
    OT_EQ_INT(oroya_skin_create(NULL, &skin, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(
        oroya_skin_create(
            &(oroya_skin_desc){.mesh = mesh, .vertex_count = 3, .positions = p, .joints = jok},
            &skin, &err),
        OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(skin == NULL);
    float pnan[9] = {0, 0, 0, 0, INFINITY, 0, 0, 0, 0};
    OT_EQ_INT(
        oroya_skin_create(
            &(oroya_skin_desc){
                .mesh = mesh, .vertex_count = 3, .positions = pnan, .joints = jok, .weights = w},
            &skin, &err),
        OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "vertex 1") != NULL, "%s", err.message);
    OT_EQ_INT(oroya_skin_bind(NULL, scene, sk, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(scene);
}

/* ---- unreachable bones ------------------------------------------------------------------ */

static void test_unreachable_bones_are_named(void) {
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_node mesh = add(scene, "m", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, 0, 0, 0);
    oroya_node b[4];
    const char *names[4] = {"hips", "spine", "neck", "head"};
    for (int i = 0; i < 4; i++) {
        b[i] = add(scene, names[i], i == 0 ? mesh : b[i - 1], OROYA_NODE_BONE, 0, 1, 0);
    }
    oroya_scene_update_world(scene);
    oroya_skeleton *sk = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = b, .bone_count = 4}, &sk,
                                    &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skeleton_validate(sk, scene, &err), OROYA_OK);
    OT_EQ_INT(oroya_skeleton_unreachable_bones(sk, scene, NULL, 0), 0);
    /* Turn the neck: the matrices before the removal are not the identity. */
    set_rotation(scene, b[2], (oroya_quat){0, 0, 0.6f, 0.8f});
    oroya_scene_update_world(scene);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
    OT_CHECK(fabsf(sk->bone_matrices[3 * 16 + 0] - 1.0f) > 0.1f);

    /* Removing the neck takes the head with it. */
    OT_EQ_INT(oroya_scene_remove_node(scene, b[2]), OROYA_OK);
    oroya_scene_update_world(scene);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_ERR_STALE_HANDLE);
    OT_CHECK_MSG(strstr(err.message, "bones[2] 'neck'") != NULL, "%s", err.message);
    /* Unreachable bones get the identity: their vertices stay in the rest pose. */
    for (int e = 0; e < 16; e++) {
        OT_EQ_INT(sk->bone_matrices[3 * 16 + e], (e % 5 == 0) ? 1 : 0);
    }
    uint32_t idx[4] = {99, 99, 99, 99};
    OT_EQ_INT(oroya_skeleton_unreachable_bones(sk, scene, NULL, 0), 2);
    OT_EQ_INT(oroya_skeleton_unreachable_bones(sk, scene, idx, 1), 2);
    OT_EQ_INT(idx[0], 2);
    OT_EQ_INT(idx[1], 99);
    OT_EQ_INT(oroya_skeleton_unreachable_bones(sk, scene, idx, 4), 2);
    OT_EQ_INT(idx[1], 3);
    OT_EQ_INT(oroya_skeleton_validate(sk, scene, &err), OROYA_ERR_STALE_HANDLE);
    OT_CHECK_MSG(strstr(err.message, "2 unreachable bones: neck, head") != NULL, "%s", err.message);
    OT_EQ_INT(oroya_skeleton_calculate_inverses(sk, scene, &err), OROYA_ERR_STALE_HANDLE);
    OT_EQ_INT(oroya_skeleton_pose(sk, scene, &err), OROYA_ERR_STALE_HANDLE);
    /* Creating a skeleton from a stale handle fails up front. */
    oroya_skeleton *sk2 = NULL;
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = b, .bone_count = 4},
                                    &sk2, &err),
              OROYA_ERR_STALE_HANDLE);
    OT_CHECK_MSG(strstr(err.message, "bones[2]") != NULL, "%s", err.message);
    OT_CHECK(sk2 == NULL);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(scene);
}

/* ---- index cache ------------------------------------------------------------------------ */

/* Reference: world x inverse in double from the scene's get_world. */
static void check_against_scene(const oroya_skeleton *sk, const oroya_scene *scene) {
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        oroya_mat4 w;
        OT_EQ_INT(oroya_scene_get_world(scene, sk->bones[i], &w), OROYA_OK);
        const float *inv = sk->bone_inverses[i].m;
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 4; r++) {
                double e = 0;
                for (int k = 0; k < 4; k++)
                    e += (double)w.m[k * 4 + r] * inv[c * 4 + k];
                OT_NEAR(sk->bone_matrices[i * 16 + (uint32_t)(c * 4 + r)], e, 1e-6);
            }
        }
    }
}

/* Re-parenting under a later node moves the subtree to the end of the dense arrays and
 * removing an earlier node shifts every index down; update must follow both. */
static void test_update_follows_layout_changes(void) {
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_node gone = add(scene, "gone", (oroya_node){0}, OROYA_NODE_OBJECT, 0, 0, 0);
    oroya_node a = add(scene, "a", (oroya_node){0}, OROYA_NODE_OBJECT, 0, 0, 0);
    oroya_node b0 = add(scene, "b0", a, OROYA_NODE_BONE, 1, 0, 0);
    oroya_node b1 = add(scene, "b1", b0, OROYA_NODE_BONE, 0, 2, 0);
    oroya_node other = add(scene, "other", (oroya_node){0}, OROYA_NODE_OBJECT, 0, 0, 7);
    oroya_scene_update_world(scene);
    oroya_node bones[2] = {b1, b0}; /* any order */
    oroya_skeleton *sk = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = bones, .bone_count = 2},
                                    &sk, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
    OT_NEAR(sk->bone_matrices[0], 1.0, 1e-7);
    OT_NEAR(sk->bone_matrices[13], 0.0, 1e-7);
    uint32_t before = oroya_scene_node_index(scene, b0);

    OT_EQ_INT(oroya_scene_set_parent(scene, b0, other), OROYA_OK);
    OT_CHECK(oroya_scene_node_index(scene, b0) != before);
    set_rotation(scene, b0, (oroya_quat){0, 0.6f, 0, 0.8f});
    oroya_scene_update_world(scene);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
    check_against_scene(sk, scene);
    /* By hand: bone = W_new * W_old^-1 with W_old = T(1,0,0) and W_new = T(0,0,7) T(1,0,0) R,
     * R a turn about y with cos 0.28, sin 0.96; its translation is W_new (-1, 0, 0) =
     * (0,0,7) + (1,0,0) + (-0.28, 0, 0.96) = (0.72, 0, 7.96). */
    OT_NEAR(sk->bone_matrices[16 + 12], 0.72, 1e-5);
    OT_NEAR(sk->bone_matrices[16 + 14], 7.96, 1e-5);

    OT_EQ_INT(oroya_scene_remove_node(scene, gone), OROYA_OK);
    oroya_scene_update_world(scene);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
    check_against_scene(sk, scene);

    /* The same skeleton updated against another scene re-resolves rather than trusting the
     * cache (and finds the handles stale there). */
    oroya_scene *empty = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &empty), OROYA_OK);
    OT_EQ_INT(oroya_skeleton_update(sk, empty, &err), OROYA_ERR_STALE_HANDLE);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
    check_against_scene(sk, scene);
    oroya_scene_destroy(empty);

    OT_EQ_INT(oroya_skeleton_update(NULL, scene, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_skeleton_update(sk, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(scene);
}

/* Given inverses are used as given; a zero-bone skeleton works. */
static void test_given_inverses(void) {
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_node b = add(scene, "b", (oroya_node){0}, OROYA_NODE_BONE, 0, 3, 0);
    oroya_scene_update_world(scene);
    oroya_mat4 inv = oroya_mat4_identity();
    inv.m[12] = 5;
    oroya_skeleton *sk = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_skeleton_create(
                  scene,
                  &(oroya_skeleton_desc){.bones = &b, .bone_count = 1, .bone_inverses = &inv}, &sk,
                  &err),
              OROYA_OK);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
    OT_NEAR(sk->bone_matrices[12], 5.0, 0); /* world (0,3,0) x inverse (5,0,0) */
    OT_NEAR(sk->bone_matrices[13], 3.0, 0);
    OT_EQ_INT(oroya_skeleton_calculate_inverses(sk, scene, &err), OROYA_OK);
    OT_NEAR(sk->bone_inverses[0].m[13], -3.0, 0);
    OT_NEAR(sk->bone_inverses[0].m[12], 0.0, 0);
    oroya_skeleton_destroy(sk);

    inv.m[0] = NAN;
    OT_EQ_INT(oroya_skeleton_create(
                  scene,
                  &(oroya_skeleton_desc){.bones = &b, .bone_count = 1, .bone_inverses = &inv}, &sk,
                  &err),
              OROYA_ERR_NON_FINITE);
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bone_count = 1}, &sk, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_skeleton_create(NULL, &(oroya_skeleton_desc){0}, &sk, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){0}, &sk, &err), OROYA_OK);
    OT_EQ_INT(sk->bone_count, 0);
    OT_EQ_INT(sk->texture_side, 4);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
    OT_EQ_INT(oroya_skeleton_validate(sk, scene, &err), OROYA_OK);
    oroya_skeleton_destroy(sk);
    oroya_skeleton_destroy(NULL);
    oroya_scene_destroy(scene);
}

/* ---- pose ------------------------------------------------------------------------------- */

/* Expected values from three.js 0.187 itself (Skeleton.pose on this rig, run with node from
 * the oracle's three.js): after moving the bones, pose gives b0 position (2, 0, 0) (the root
 * bone's parent is the mesh, not a bone, so its local matrix becomes its bind WORLD matrix),
 * b1 position (0, 1, 0) with rotation (0, 0, 0.6, 0.8), b2 position (0, 1, 0), identity. */
static void test_pose_as_three(void) {
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_node mesh = add(scene, "m", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, 2, 0, 0);
    oroya_node b[3];
    b[0] = add(scene, "b0", mesh, OROYA_NODE_BONE, 0, 0, 0);
    b[1] = add(scene, "b1", b[0], OROYA_NODE_BONE, 0, 1, 0);
    b[2] = add(scene, "b2", b[1], OROYA_NODE_BONE, 0, 1, 0);
    set_rotation(scene, b[1], (oroya_quat){0, 0, 0.6f, 0.8f});
    oroya_scene_update_world(scene);
    oroya_skeleton *sk = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = b, .bone_count = 3}, &sk,
                                    &err),
              OROYA_OK);
    set_rotation(scene, b[1], (oroya_quat){0.1f, 0.2f, 0.3f, 0.92736185f});
    oroya_transform t;
    OT_EQ_INT(oroya_scene_get_transform(scene, b[2], &t), OROYA_OK);
    t.translation = (oroya_vec3){1, 2, 3};
    OT_EQ_INT(oroya_scene_set_transform(scene, b[2], &t), OROYA_OK);
    OT_EQ_INT(oroya_scene_get_transform(scene, b[0], &t), OROYA_OK);
    t.translation = (oroya_vec3){0, 5, 0};
    OT_EQ_INT(oroya_scene_set_transform(scene, b[0], &t), OROYA_OK);
    oroya_scene_update_world(scene);

    OT_EQ_INT(oroya_skeleton_pose(sk, scene, &err), OROYA_OK);
    const float expect[3][10] = {
        {2, 0, 0, 0, 0, 0, 1, 1, 1, 1},
        {0, 1, 0, 0, 0, 0.6f, 0.8f, 1, 1, 1},
        {0, 1, 0, 0, 0, 0, 1, 1, 1, 1},
    };
    for (int i = 0; i < 3; i++) {
        OT_EQ_INT(oroya_scene_get_transform(scene, b[i], &t), OROYA_OK);
        const float *e = expect[i];
        OT_NEAR(t.translation.x, e[0], 1e-6);
        OT_NEAR(t.translation.y, e[1], 1e-6);
        OT_NEAR(t.translation.z, e[2], 1e-6);
        OT_NEAR(t.rotation.x, e[3], 1e-6);
        OT_NEAR(t.rotation.y, e[4], 1e-6);
        OT_NEAR(t.rotation.z, e[5], 1e-6);
        OT_NEAR(t.rotation.w, e[6], 1e-6);
        OT_NEAR(t.scale.x, e[7], 1e-6);
        OT_NEAR(t.scale.y, e[8], 1e-6);
        OT_NEAR(t.scale.z, e[9], 1e-6);
    }
    OT_EQ_INT(oroya_skeleton_pose(NULL, scene, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(scene);
}

/* ---- bone texture ----------------------------------------------------------------------- */

/* Sides from three.js's formula worked by hand: sqrt(4n), up to a multiple of 4, at least 4. */
static void test_bone_texture_side(void) {
    const uint32_t n[] = {0, 1, 4, 5, 16, 17, 36, 37, 64, 65, 256, 257, 1024};
    const uint32_t side[] = {4, 4, 4, 8, 8, 12, 12, 16, 16, 20, 32, 36, 64};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        OT_CHECK_MSG(oroya_bone_texture_side(n[i]) == side[i], "%u bones: side %u, expected %u",
                     n[i], oroya_bone_texture_side(n[i]), side[i]);
    }
}

static void test_bone_texture_fill(void) {
    enum { BONES = 5 };
    float m[BONES * 16];
    for (int i = 0; i < BONES * 16; i++)
        m[i] = (float)(i + 1);
    size_t need = oroya_bone_texture_fill(m, BONES, NULL);
    OT_EQ_INT(need, 8 * 8 * 4);
    float *tex = malloc(need * sizeof(float));
    for (size_t i = 0; i < need; i++)
        tex[i] = -1.0f;
    OT_EQ_INT(oroya_bone_texture_fill(m, BONES, tex), need);
    /* Texel (x, y) of the 8 x 8 texture is floats 4 * (y * 8 + x) .. + 3: bone b, column c sits
     * at texel 4b + c. Bone 2, column 3 is texel 11 = (3, 1); its G channel is m[2*16+3*4+1]. */
    OT_EQ_INT(tex[4 * (1 * 8 + 3) + 1], m[2 * 16 + 3 * 4 + 1]);
    int same = 1;
    for (int i = 0; i < BONES * 16; i++)
        same &= tex[i] == m[i];
    OT_CHECK(same);
    int zeros = 1;
    for (size_t i = BONES * 16; i < need; i++)
        zeros &= tex[i] == 0.0f;
    OT_CHECK(zeros);
    /* No bones: a 4 x 4 texture of zeros. */
    OT_EQ_INT(oroya_bone_texture_fill(NULL, 0, tex), 64);
    OT_CHECK(tex[0] == 0.0f && tex[63] == 0.0f);
    /* Missing matrices with bones to write: 0, nothing written. */
    tex[0] = 7.0f;
    OT_EQ_INT(oroya_bone_texture_fill(NULL, 3, tex), 0);
    OT_CHECK(tex[0] == 7.0f);
    free(tex);
}

/* ---- allocation failures and large skeletons -------------------------------------------- */

static int alloc_budget; /* allocations left before failing; < 0: unlimited */
static int alloc_live;

static void *test_alloc(size_t size, size_t align, void *user) {
    (void)user;
    if (alloc_budget == 0)
        return NULL;
    if (alloc_budget > 0)
        alloc_budget--;
    size_t rounded = (size + align - 1) / align * align;
    void *p = aligned_alloc(align < sizeof(void *) ? sizeof(void *) : align, rounded);
    if (p)
        alloc_live++;
    return p;
}

static void test_free(void *p, void *user) {
    (void)user;
    if (p)
        alloc_live--;
    free(p);
}

/* 300 top-level bones (over OROYA_MAX_JOINTS, so bind allocates the job's scratch), each
 * vertex on two of them. Every allocation is failed in turn: each call fails cleanly with
 * OUT_OF_MEMORY, nothing leaks, and with enough budget the skinned result matches a naive
 * per-vertex reference. */
static void test_allocation_failures_and_big_skeleton(void) {
    enum { NB = 300, NV = 600 };
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    static oroya_node bones[NB];
    for (int i = 0; i < NB; i++) {
        bones[i] = add(scene, NULL, (oroya_node){0}, OROYA_NODE_BONE, (float)i * 0.01f, 0, 0);
    }
    oroya_node mesh = add(scene, "mesh", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, 0, 0, 0);
    oroya_scene_update_world(scene);
    static float pos[NV * 3], w[NV * 4], out[NV * 3];
    static uint16_t j[NV * 4];
    for (int v = 0; v < NV; v++) {
        pos[v * 3] = (float)v * 0.001f;
        pos[v * 3 + 1] = 1;
        pos[v * 3 + 2] = -0.5f;
        j[v * 4] = (uint16_t)(v % NB);
        j[v * 4 + 1] = (uint16_t)((v * 7 + 3) % NB);
        w[v * 4] = 0.25f;
        w[v * 4 + 1] = 0.75f;
    }
    oroya_allocator a = {test_alloc, test_free, NULL};
    oroya_error err = {0};
    int succeeded_at = -1;
    for (int budget = 0; budget < 10 && succeeded_at < 0; budget++) {
        alloc_budget = budget;
        alloc_live = 0;
        oroya_skeleton *sk = NULL;
        oroya_skin *skin = NULL;
        oroya_result r = oroya_skeleton_create(
            scene, &(oroya_skeleton_desc){.bones = bones, .bone_count = NB, .allocator = a}, &sk,
            &err);
        if (r == OROYA_OK) {
            r = oroya_skin_create(&(oroya_skin_desc){.mesh = mesh,
                                                     .vertex_count = NV,
                                                     .positions = pos,
                                                     .joints = j,
                                                     .weights = w,
                                                     .allocator = a},
                                  &skin, &err);
        }
        if (r == OROYA_OK)
            r = oroya_skin_bind(skin, scene, sk, NULL, &err);
        if (r != OROYA_OK) {
            OT_EQ_INT(r, OROYA_ERR_OUT_OF_MEMORY);
            if (skin)
                OT_CHECK(skin->skeleton == NULL);
        } else {
            succeeded_at = budget;
        }
        if (r == OROYA_OK) {
            /* Move every bone: bone b goes up by b * 0.002. */
            oroya_transform *tr = oroya_scene_transforms(scene);
            for (int b = 0; b < NB; b++) {
                tr[oroya_scene_node_index(scene, bones[b])].translation.y = (float)b * 0.002f;
            }
            oroya_scene_update_world(scene);
            OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
            OT_EQ_INT(oroya_skin_update(skin, scene, &err), OROYA_OK);
            OT_EQ_INT(oroya_skin_compute(skin, out, NULL, NULL, &err), OROYA_OK);
            for (int v = 0; v < NV; v++) {
                double dy = 0.25 * j[v * 4] * 0.002 + 0.75 * j[v * 4 + 1] * 0.002;
                OT_NEAR(out[v * 3], pos[v * 3], 1e-6);
                OT_NEAR(out[v * 3 + 1], 1.0 + dy, 1e-6);
                OT_NEAR(out[v * 3 + 2], -0.5, 1e-6);
            }
            for (int b = 0; b < NB; b++) {
                tr[oroya_scene_node_index(scene, bones[b])].translation.y = 0;
            }
            oroya_scene_update_world(scene);
        }
        oroya_skin_destroy(skin);
        oroya_skeleton_destroy(sk);
        OT_EQ_INT(alloc_live, 0);
    }
    /* Three allocations: skeleton, skin, the skin's job scratch. */
    OT_EQ_INT(succeeded_at, 3);
    alloc_budget = -1;
    oroya_scene_destroy(scene);
}

/* ---- glTF skins against three.js -------------------------------------------------------- */

static void add_gltf_node(oroya_scene *scene, const oroya_gltf_data *g, uint32_t index,
                          oroya_node parent, oroya_node *handles, const bool *is_joint) {
    const oroya_gltf_node *gn = &g->nodes[index];
    oroya_node_kind kind = is_joint[index]               ? OROYA_NODE_BONE
                           : gn->skin != OROYA_GLTF_NONE ? OROYA_NODE_SKINNED_MESH
                           : gn->mesh != OROYA_GLTF_NONE ? OROYA_NODE_MESH
                                                         : OROYA_NODE_OBJECT;
    OT_EQ_INT(oroya_scene_add_node(scene, gn->name, parent, kind, &handles[index]), OROYA_OK);
    oroya_transform t;
    if (gn->has_matrix) {
        /* GLTFLoader: node.applyMatrix4(matrix), i.e. three's decompose into T, R, S. */
        oroya_mat4 m;
        memcpy(m.m, gn->matrix, sizeof m.m);
        oroya_mat4_decompose(m, &t.translation, &t.rotation, &t.scale);
    } else {
        memcpy(&t.translation.x, gn->translation, 3 * sizeof(float));
        memcpy(&t.rotation.x, gn->rotation, 4 * sizeof(float));
        memcpy(&t.scale.x, gn->scale, 3 * sizeof(float));
    }
    OT_EQ_INT(oroya_scene_set_transform(scene, handles[index], &t), OROYA_OK);
    for (uint32_t c = 0; c < gn->child_count; c++) {
        add_gltf_node(scene, g, gn->children[c], handles[index], handles, is_joint);
    }
}

static float *unpack(const oroya_gltf_data *g, uint32_t accessor, size_t *count) {
    size_t n = oroya_gltf_accessor_float_count(g, accessor);
    float *out = malloc((n > 0 ? n : 1) * sizeof(float));
    OT_EQ_INT(oroya_gltf_accessor_unpack_floats(g, accessor, out, n, NULL), OROYA_OK);
    if (count)
        *count = n;
    return out;
}

/* The glTF scenarios that record skin:0.boneMatrices: the model loaded with oroya's glTF
 * parser, its default scene built as nodes (matrix nodes decomposed as GLTFLoader does),
 * skin 0 as a skeleton with inverseBindMatrices, animation 0 sampled with
 * oroya_track_sample at the action's time (LoopRepeat over the longest track), and the bone
 * matrices compared with three.js's per frame. */
static void check_gltf_skin_scenario(const char *scenario_name) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/conformance/gltf/%s.json", OROYA_SOURCE_DIR,
             scenario_name);
    cJSON *sc = load_json(path);
    snprintf(path, sizeof path, "%s/tests/conformance/gltf/%s.expected.json", OROYA_SOURCE_DIR,
             scenario_name);
    cJSON *ex = load_json(path);
    OT_CHECK_MSG(sc && ex, "%s: scenario or expected file missing", scenario_name);
    if (!sc || !ex)
        return;
    snprintf(path, sizeof path, "%s/tests/conformance/gltf/%s", OROYA_SOURCE_DIR,
             cJSON_GetObjectItem(sc, "gltf")->valuestring);
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_gltf_parse_file(NULL, path, &g, &err), OROYA_OK);
    if (g)
        OT_EQ_INT(oroya_gltf_validate(g, &err), OROYA_OK);
    if (!g || err.result != OROYA_OK) {
        fprintf(stderr, "%s: %s\n", scenario_name, err.message);
        oroya_gltf_free(g);
        cJSON_Delete(sc);
        cJSON_Delete(ex);
        return;
    }
    const oroya_gltf_skin *gs = &g->skins[0];
    bool *is_joint = calloc(g->node_count, sizeof(bool));
    oroya_node *handles = calloc(g->node_count, sizeof(oroya_node));
    for (uint32_t i = 0; i < gs->joint_count; i++)
        is_joint[gs->joints[i]] = true;

    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    uint32_t scene_index = g->scene != OROYA_GLTF_NONE ? g->scene : 0;
    const oroya_gltf_scene *gsc = &g->scenes[scene_index];
    for (uint32_t i = 0; i < gsc->node_count; i++) {
        add_gltf_node(scene, g, gsc->nodes[i], (oroya_node){0}, handles, is_joint);
    }
    oroya_scene_update_world(scene);

    oroya_node *bones = malloc(gs->joint_count * sizeof(oroya_node));
    for (uint32_t i = 0; i < gs->joint_count; i++)
        bones[i] = handles[gs->joints[i]];
    oroya_mat4 *ibm = NULL;
    float *ibm_floats = NULL;
    if (gs->inverse_bind_matrices != OROYA_GLTF_NONE) {
        size_t n = 0;
        ibm_floats = unpack(g, gs->inverse_bind_matrices, &n);
        OT_EQ_INT(n, 16 * (size_t)gs->joint_count);
        ibm = malloc(gs->joint_count * sizeof(oroya_mat4));
        memcpy(ibm, ibm_floats, n * sizeof(float));
    }
    oroya_skeleton *sk = NULL;
    OT_EQ_INT(oroya_skeleton_create(scene,
                                    &(oroya_skeleton_desc){.bones = bones,
                                                           .bone_count = gs->joint_count,
                                                           .bone_inverses = ibm},
                                    &sk, &err),
              OROYA_OK);

    /* Animation 0 as tracks. */
    const oroya_gltf_animation *an = &g->animations[0];
    uint32_t nt = an->channel_count;
    oroya_track *tracks = calloc(nt, sizeof(oroya_track));
    oroya_node *targets = calloc(nt, sizeof(oroya_node));
    uint32_t *cursors = calloc(nt, sizeof(uint32_t));
    float **buffers = calloc(2 * (size_t)nt, sizeof(float *));
    double duration = 0;
    for (uint32_t c = 0; c < nt; c++) {
        const oroya_gltf_channel *ch = &an->channels[c];
        const oroya_gltf_sampler *sm = &an->samplers[ch->sampler];
        size_t keys = 0;
        buffers[2 * c] = unpack(g, sm->input, &keys);
        buffers[2 * c + 1] = unpack(g, sm->output, NULL);
        oroya_property prop = ch->path == OROYA_GLTF_PATH_TRANSLATION ? OROYA_PROPERTY_TRANSLATION
                              : ch->path == OROYA_GLTF_PATH_ROTATION  ? OROYA_PROPERTY_ROTATION
                                                                      : OROYA_PROPERTY_SCALE;
        OT_CHECK(ch->path != OROYA_GLTF_PATH_WEIGHTS && ch->path != OROYA_GLTF_PATH_UNKNOWN);
        tracks[c] =
            (oroya_track){.target = "",
                          .property = prop,
                          .interpolation = sm->interpolation == OROYA_GLTF_STEP ? OROYA_INTERP_STEP
                                           : sm->interpolation == OROYA_GLTF_CUBICSPLINE
                                               ? OROYA_INTERP_CUBICSPLINE
                                               : OROYA_INTERP_LINEAR,
                          .components = prop == OROYA_PROPERTY_ROTATION ? 4u : 3u,
                          .key_count = (uint32_t)keys,
                          .times = buffers[2 * c],
                          .values = buffers[2 * c + 1]};
        OT_EQ_INT(oroya_track_validate(&tracks[c], c, &err), OROYA_OK);
        targets[c] = handles[ch->node];
        duration = fmax(duration, tracks[c].times[keys - 1]);
    }

    const cJSON *frames = cJSON_GetObjectItem(ex, "frames");
    const cJSON *steps = cJSON_GetObjectItem(sc, "steps");
    double dt = 1.0 / cJSON_GetObjectItem(steps, "fps")->valuedouble;
    int count = cJSON_GetObjectItem(steps, "count")->valueint;
    OT_EQ_INT(cJSON_GetArraySize(frames), count);
    double time = 0, worst = 0;
    oroya_transform *tr = NULL;
    for (int f = 0; f < count; f++) {
        time += dt;
        if (time >= duration)
            time -= duration * floor(time / duration);
        tr = oroya_scene_transforms(scene);
        for (uint32_t c = 0; c < nt; c++) {
            oroya_transform *t = &tr[oroya_scene_node_index(scene, targets[c])];
            float *dst = tracks[c].property == OROYA_PROPERTY_TRANSLATION ? &t->translation.x
                         : tracks[c].property == OROYA_PROPERTY_ROTATION  ? &t->rotation.x
                                                                          : &t->scale.x;
            oroya_track_sample(&tracks[c], time, &cursors[c], NULL, dst);
        }
        oroya_scene_update_world(scene);
        OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
        const cJSON *bm = cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetArrayItem(frames, f), "values"), "skin:0.boneMatrices");
        OT_EQ_INT(cJSON_GetArraySize(bm), 16 * (int)gs->joint_count);
        for (int i = 0; i < 16 * (int)gs->joint_count; i++) {
            double e = cJSON_GetArrayItem(bm, i)->valuedouble;
            double d = fabs(sk->bone_matrices[i] - e);
            worst = fmax(worst, d);
            OT_CHECK_MSG(d <= 1e-5, "%s frame %d boneMatrices[%d]: %.9g vs three %.9g",
                         scenario_name, f, i, (double)sk->bone_matrices[i], e);
        }
    }
    printf("%s: %u joints, %d frames, skin:0.boneMatrices worst |diff| %.3g\n", scenario_name,
           gs->joint_count, count, worst);

    for (uint32_t c = 0; c < 2 * nt; c++)
        free(buffers[c]);
    free(buffers);
    free(cursors);
    free(targets);
    free(tracks);
    oroya_skeleton_destroy(sk);
    free(ibm);
    free(ibm_floats);
    free(bones);
    oroya_scene_destroy(scene);
    free(handles);
    free(is_joint);
    oroya_gltf_free(g);
    cJSON_Delete(sc);
    cJSON_Delete(ex);
}

static void test_gltf_skins_match_three(void) {
    check_gltf_skin_scenario("simple_skin");
    check_gltf_skin_scenario("rigged_simple");
    check_gltf_skin_scenario("rigged_figure");
    check_gltf_skin_scenario("cesium_man");
}

/* A mesh node scaled by 1e-39 (finite, accepted): the inverse of its world matrix overflows
 * float. skin_update refuses it (NON_FINITE) and keeps the last inverse; it used to write inf,
 * and skin_compute then gave NaN vertices with OK. Scale 0 inverts to zero, as three.js does. */
static void test_skin_update_tiny_scale(void) {
    const float scales[3] = {1.0f, 0.0f, 1e-39f};
    for (int c = 0; c < 3; c++) {
        oroya_scene *s = NULL;
        OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
        oroya_node mesh, bone;
        oroya_scene_add_node(s, "mesh", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, &mesh);
        oroya_scene_add_node(s, "bone", (oroya_node){0}, OROYA_NODE_BONE, &bone);
        oroya_scene_update_world(s);
        oroya_error err = {0};
        oroya_skeleton *sk = NULL;
        OT_CHECK(oroya_skeleton_create(s, &(oroya_skeleton_desc){.bones = &bone, .bone_count = 1},
                                       &sk, &err) == OROYA_OK);
        float pos[3] = {1, 2, 3}, w[4] = {1, 0, 0, 0};
        uint16_t j[4] = {0};
        oroya_skin *skin = NULL;
        OT_CHECK(
            oroya_skin_create(
                &(oroya_skin_desc){
                    .mesh = mesh, .vertex_count = 1, .positions = pos, .joints = j, .weights = w},
                &skin, &err) == OROYA_OK);
        OT_CHECK(oroya_skin_bind(skin, s, sk, NULL, &err) == OROYA_OK);
        const oroya_mat4 before = skin->bind_matrix_inverse;
        oroya_transform t = oroya_transform_identity();
        t.scale = (oroya_vec3){scales[c], scales[c], scales[c]};
        OT_CHECK(oroya_scene_set_transform(s, mesh, &t) == OROYA_OK);
        oroya_scene_update_world(s);
        oroya_skeleton_update(sk, s, &err);
        const oroya_result r = oroya_skin_update(skin, s, &err);
        float out[3] = {0, 0, 0};
        if (c == 2) {
            OT_EQ_INT(r, OROYA_ERR_NON_FINITE);
            OT_CHECK_MSG(strstr(err.message, "overflows float") != NULL, "%s", err.message);
            OT_CHECK(memcmp(&before, &skin->bind_matrix_inverse, sizeof before) == 0);
        } else {
            OT_EQ_INT(r, OROYA_OK);
            OT_CHECK(oroya_skin_compute(skin, out, NULL, NULL, &err) == OROYA_OK);
            OT_CHECK(isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]));
        }
        oroya_skin_destroy(skin);
        oroya_skeleton_destroy(sk);
        oroya_scene_destroy(s);
    }
}

/* A bone scaled by 1e-39 (a world matrix float holds, an inverse of 1e39 it does not): the
 * computed inverse was stored as inf with OK, and every later bone matrix was NaN with OK
 * (found by a stateful API fuzz). skeleton_create and calculate_inverses refuse it with
 * NON_FINITE naming the bone, and calculate_inverses changes nothing. */
static void test_inverse_overflow_refused(void) {
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    oroya_node bones[2];
    oroya_scene_add_node(s, "root", (oroya_node){0}, OROYA_NODE_BONE, &bones[0]);
    oroya_scene_add_node(s, "tiny", bones[0], OROYA_NODE_BONE, &bones[1]);
    oroya_scene_update_world(s);
    oroya_error err = {0};
    oroya_skeleton *sk = NULL;
    OT_CHECK(oroya_skeleton_create(s, &(oroya_skeleton_desc){.bones = bones, .bone_count = 2}, &sk,
                                   &err) == OROYA_OK);
    oroya_transform t = oroya_transform_identity();
    t.scale.x = 1e-39f;
    OT_CHECK(oroya_scene_set_transform(s, bones[1], &t) == OROYA_OK);
    oroya_scene_update_world(s);
    oroya_skeleton *bad = NULL;
    OT_EQ_INT(oroya_skeleton_create(s, &(oroya_skeleton_desc){.bones = bones, .bone_count = 2},
                                    &bad, &err),
              OROYA_ERR_NON_FINITE);
    OT_CHECK(bad == NULL);
    OT_CHECK_MSG(strstr(err.message, "bones[1] 'tiny'") != NULL, "%s", err.message);
    oroya_mat4 before[2];
    memcpy(before, sk->bone_inverses, sizeof before);
    OT_EQ_INT(oroya_skeleton_calculate_inverses(sk, s, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK(memcmp(before, sk->bone_inverses, sizeof before) == 0);
    OT_EQ_INT(oroya_skeleton_update(sk, s, &err), OROYA_OK);
    for (int e = 0; e < 32; e++) {
        OT_CHECK(isfinite(sk->bone_matrices[e]));
    }
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(s);
}

/* A bone bound at scale 1e-19 (its inverse, 1e19, fits in float) and posed at scale 1e20 (its
 * world fits too): the product does not. skeleton_update wrote inf with OK (skinning then
 * gave NaN positions with OK); now that bone gets the identity, the others their matrix, and
 * the call returns NON_FINITE naming it. */
static void test_bone_matrix_overflow(void) {
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    oroya_node bones[2];
    oroya_scene_add_node(s, "root", (oroya_node){0}, OROYA_NODE_BONE, &bones[0]);
    oroya_scene_add_node(s, "big", (oroya_node){0}, OROYA_NODE_BONE, &bones[1]);
    oroya_transform t = oroya_transform_identity();
    t.scale = (oroya_vec3){1e-19f, 1e-19f, 1e-19f};
    OT_CHECK(oroya_scene_set_transform(s, bones[1], &t) == OROYA_OK);
    oroya_scene_update_world(s);
    oroya_error err = {0};
    oroya_skeleton *sk = NULL;
    OT_CHECK(oroya_skeleton_create(s, &(oroya_skeleton_desc){.bones = bones, .bone_count = 2}, &sk,
                                   &err) == OROYA_OK);
    if (!sk) {
        oroya_scene_destroy(s);
        return;
    }
    t.scale = (oroya_vec3){1e20f, 1e20f, 1e20f};
    OT_CHECK(oroya_scene_set_transform(s, bones[1], &t) == OROYA_OK);
    t = oroya_transform_identity();
    t.translation.x = 2;
    OT_CHECK(oroya_scene_set_transform(s, bones[0], &t) == OROYA_OK);
    oroya_scene_update_world(s);
    OT_CHECK(oroya_scene_non_finite_count(s, NULL) == 0);
    OT_EQ_INT(oroya_skeleton_update(sk, s, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "bones[1] 'big'") && strstr(err.message, "not finite"), "%s",
                 err.message);
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    OT_CHECK(memcmp(sk->bone_matrices + 16, identity, sizeof identity) == 0);
    OT_CHECK(sk->bone_matrices[12] == 2.0f && sk->bone_matrices[0] == 1.0f);
    /* Back within float: OK again. */
    t = oroya_transform_identity();
    OT_CHECK(oroya_scene_set_transform(s, bones[1], &t) == OROYA_OK);
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_skeleton_update(sk, s, &err), OROYA_OK);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(s);
}

/* A finite bone matrix (scale 1e30) on a finite position (1e10): the skinned position passes
 * float. oroya_skin_compute returned OK with inf; now NON_FINITE naming the vertex. */
static void test_skin_compute_overflow(void) {
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    oroya_node bone, mesh;
    oroya_scene_add_node(s, "bone", (oroya_node){0}, OROYA_NODE_BONE, &bone);
    oroya_scene_add_node(s, "mesh", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, &mesh);
    oroya_scene_update_world(s);
    oroya_error err = {0};
    oroya_skeleton *sk = NULL;
    oroya_skin *skin = NULL;
    const float pos[6] = {0, 1, 0, 1e10f, 0, 0};
    const uint16_t j[8] = {0};
    const float w[8] = {1, 0, 0, 0, 1, 0, 0, 0};
    OT_CHECK(oroya_skeleton_create(s, &(oroya_skeleton_desc){.bones = &bone, .bone_count = 1}, &sk,
                                   &err) == OROYA_OK);
    OT_CHECK(oroya_skin_create(
                 &(oroya_skin_desc){
                     .mesh = mesh, .vertex_count = 2, .positions = pos, .joints = j, .weights = w},
                 &skin, &err) == OROYA_OK);
    if (!sk || !skin || oroya_skin_bind(skin, s, sk, NULL, &err) != OROYA_OK) {
        OT_CHECK_MSG(0, "set-up: %s", err.message);
    } else {
        float out[6];
        OT_EQ_INT(oroya_skeleton_update(sk, s, &err), OROYA_OK);
        OT_EQ_INT(oroya_skin_compute(skin, out, NULL, NULL, &err), OROYA_OK);
        oroya_transform t = oroya_transform_identity();
        t.scale = (oroya_vec3){1e30f, 1e30f, 1e30f};
        OT_CHECK(oroya_scene_set_transform(s, bone, &t) == OROYA_OK);
        oroya_scene_update_world(s);
        OT_EQ_INT(oroya_skeleton_update(sk, s, &err), OROYA_OK);
        OT_EQ_INT(oroya_skin_compute(skin, out, NULL, NULL, &err), OROYA_ERR_NON_FINITE);
        OT_CHECK_MSG(strstr(err.message, "vertex 1: the skinned position is not finite"), "%s",
                     err.message);
    }
    oroya_skin_destroy(skin);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(s);
}

int main(void) {
    OT_RUN(test_skin_compute_overflow);
    OT_RUN(test_bone_matrix_overflow);
    OT_RUN(test_g_skeleton_matches_three);
    OT_RUN(test_bind_options_match_three);
    OT_RUN(test_tutorial_cylinder);
    OT_RUN(test_bind_modes);
    OT_RUN(test_bind_errors_name_the_vertex);
    OT_RUN(test_unreachable_bones_are_named);
    OT_RUN(test_update_follows_layout_changes);
    OT_RUN(test_given_inverses);
    OT_RUN(test_pose_as_three);
    OT_RUN(test_bone_texture_side);
    OT_RUN(test_bone_texture_fill);
    OT_RUN(test_allocation_failures_and_big_skeleton);
    OT_RUN(test_gltf_skins_match_three);
    OT_RUN(test_skin_update_tiny_scale);
    OT_RUN(test_inverse_overflow_refused);
    return ot_finish();
}
