/* The deprecated names still link and behave as their replacements, for one release (the
 * list is in docs/api.md, "Naming"). This program alone is compiled with
 * -Wno-deprecated-declarations (tests/CMakeLists.txt). Each alias is called and its result
 * compared with the new function's on the same input. */
#include <math.h>
#include <string.h>

#include "oroya/oroya.h"
#include "geometry_compare.h"
#include "oroya_test.h"

static void check_same(oroya_result ra, oroya_geometry *a, oroya_result rb, oroya_geometry *b,
                       const char *what) {
    OT_CHECK_MSG(ra == OROYA_OK && rb == OROYA_OK && same_geometry(a, b), "%s differs", what);
    oroya_geometry_destroy(a);
    oroya_geometry_destroy(b);
}

static void test_geometry_positional(void) {
    oroya_geometry *a = NULL, *b = NULL;
    oroya_result ra, rb;
    ra = oroya_geometry_create_box(2, 3, 4, 2, 3, 4, NULL, &a, NULL);
    rb = oroya_geometry_box(&(oroya_box_desc){.width = 2,
                                              .height = 3,
                                              .depth = 4,
                                              .width_segments = 2,
                                              .height_segments = 3,
                                              .depth_segments = 4},
                            &b, NULL);
    check_same(ra, a, rb, b, "box");
    ra = oroya_geometry_create_sphere(0.5f, 7, 5, NULL, &a, NULL);
    rb = oroya_geometry_sphere(
        &(oroya_sphere_desc){.radius = 0.5f, .width_segments = 7, .height_segments = 5}, &b, NULL);
    check_same(ra, a, rb, b, "sphere");
    ra = oroya_geometry_create_cylinder(1, 0.25f, 1.5f, 5, 2, true, NULL, &a, NULL);
    rb = oroya_geometry_cylinder(&(oroya_cylinder_desc){.radius_top = 1,
                                                        .radius_bottom = 0.25f,
                                                        .height = 1.5f,
                                                        .radial_segments = 5,
                                                        .height_segments = 2,
                                                        .open_ended = true},
                                 &b, NULL);
    check_same(ra, a, rb, b, "cylinder");
    /* A zero radius in the positional form is a pointed end. */
    ra = oroya_geometry_create_cylinder(0, 1, 2, 8, 3, false, NULL, &a, NULL);
    rb = oroya_geometry_cone(
        &(oroya_cone_desc){.radius = 1, .height = 2, .radial_segments = 8, .height_segments = 3},
        &b, NULL);
    check_same(ra, a, rb, b, "cylinder as cone");
    ra = oroya_geometry_create_cylinder(1, 0, 1, 16, 4, false, NULL, &a, NULL);
    rb = oroya_geometry_cylinder(
        &(oroya_cylinder_desc){.radial_segments = 16, .height_segments = 4, .pointed_bottom = true},
        &b, NULL);
    check_same(ra, a, rb, b, "cylinder pointed bottom");
    ra = oroya_geometry_create_plane(4, 2, 3, 5, NULL, &a, NULL);
    rb = oroya_geometry_plane(
        &(oroya_plane_desc){.width = 4, .height = 2, .width_segments = 3, .height_segments = 5}, &b,
        NULL);
    check_same(ra, a, rb, b, "plane");

    /* In the positional form zero is a value, not a default: zero segments and a zero
     * cylinder height are refused, a zero sphere segment count is clamped as in three.js. */
    oroya_geometry *g = (oroya_geometry *)&g;
    OT_EQ_INT(oroya_geometry_create_box(1, 1, 1, 0, 1, 1, NULL, &g, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(g == NULL);
    OT_EQ_INT(oroya_geometry_create_cylinder(1, 1, 0, 8, 1, false, NULL, &g, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_geometry_create_cylinder(1, 1, 1, 0, 1, false, NULL, &g, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_geometry_create_cylinder(1, 1, 1, 8, 0, false, NULL, &g, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_geometry_create_plane(1, 1, 1, 0, NULL, &g, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_geometry_create_sphere(1, 0, 0, NULL, &g, NULL), OROYA_OK);
    OT_EQ_INT(g->vertex_count, 12);
    oroya_geometry_destroy(g);
    /* A flat box (zero depth) is a value here. */
    OT_EQ_INT(oroya_geometry_create_box(1, 1, 0, 1, 1, 1, NULL, &g, NULL), OROYA_OK);
    OT_CHECK(g->bounds_min.z == 0 && g->bounds_max.z == 0);
    oroya_geometry_destroy(g);
}

static oroya_clip *two_track_clip(void) {
    static const float times[3] = {0, 0.5f, 1};
    static const float pos[9] = {1, 2, 3, 4, 5, 6, -1, 0, 2};
    static const float rot[12] = {0, 0, 0, 1, 0, 0.6f, 0, 0.8f, 0.6f, 0, 0, 0.8f};
    oroya_track tr[2] = {{.target = "a",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = 3,
                          .times = times,
                          .values = pos},
                         {.target = "a",
                          .property = OROYA_PROPERTY_ROTATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 4,
                          .key_count = 3,
                          .times = times,
                          .values = rot}};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = tr, .track_count = 2}, &c, NULL) ==
             OROYA_OK);
    return c;
}

static void test_make_clip_additive(void) {
    oroya_clip *a = two_track_clip(), *b = two_track_clip();
    if (!a || !b) {
        oroya_clip_destroy(a), oroya_clip_destroy(b);
        return;
    }
    OT_EQ_INT(oroya_make_clip_additive(a, 15, NULL, 30), OROYA_OK);
    OT_EQ_INT(oroya_clip_make_additive(b, 15, NULL, 30), OROYA_OK);
    OT_CHECK(a->blend_mode == OROYA_BLEND_ADDITIVE && b->blend_mode == OROYA_BLEND_ADDITIVE);
    /* Relative to the keys at 0.5 s: that key is the identity afterwards in both. */
    OT_NEAR(a->tracks[0].values[3], 0, 0);
    for (uint32_t t = 0; t < 2; t++) {
        const uint32_t n = a->tracks[t].key_count * a->tracks[t].components;
        OT_CHECK(memcmp(a->tracks[t].values, b->tracks[t].values, n * sizeof(float)) == 0);
    }
    OT_EQ_INT(oroya_make_clip_additive(NULL, 0, NULL, 30), OROYA_ERR_INVALID_ARGUMENT);
    oroya_clip_destroy(a);
    oroya_clip_destroy(b);
}

static void test_skin_weights_normalize(void) {
    float a[8] = {1, 1, 2, 0, 0, 0, 0, 0}, b[8];
    memcpy(b, a, sizeof a);
    oroya_skin_weights_normalize(a, NULL, 2);
    oroya_skin_normalize_weight_arrays(b, NULL, 2);
    OT_CHECK(memcmp(a, b, sizeof a) == 0);
    OT_NEAR(a[0], 0.25, 1e-7);
    OT_NEAR(a[4], 1, 0); /* a zero sum becomes (1, 0, 0, 0) */
}

/* Three vertices on two bones: the deprecated double reference gives oroya_skin_job_run's
 * result (float rounding apart) and the hand-computed one. */
static void test_pose_skin_run_reference(void) {
    const float pos[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3}, nrm[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const uint16_t joints[12] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    const float weights[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    oroya_mat4 bones[2] = {oroya_mat4_identity(), oroya_mat4_identity()};
    bones[1].m[12] = 10; /* bone 1 moves by +10 in x */
    float a[9], an[9], b[9], bn[9];
    const oroya_pose_skin_job old = {.count = 3,
                                     .positions = pos,
                                     .normals = nrm,
                                     .joints = joints,
                                     .weights = weights,
                                     .palette_count = 2,
                                     .palette = bones,
                                     .out_positions = a,
                                     .out_normals = an};
    OT_CHECK(oroya_pose_skin_run_reference(&old, NULL) == OROYA_OK);
    const oroya_skin_job job = {.count = 3,
                                .positions = pos,
                                .normals = nrm,
                                .joints = joints,
                                .weights = weights,
                                .palette_count = 2,
                                .palette = bones[0].m,
                                .out_positions = b,
                                .out_normals = bn};
    OT_CHECK(oroya_skin_job_run(&job, NULL) == OROYA_OK);
    for (int i = 0; i < 9; i++) {
        OT_NEAR(a[i], b[i], 1e-6);
        OT_NEAR(an[i], bn[i], 1e-6);
    }
    OT_NEAR(a[0], 1, 0);
    OT_NEAR(a[3], 10, 0);
    OT_NEAR(a[6], 5, 0);
}

static void test_hermite_names(void) {
    OT_CHECK(oroya_cubic_spline(0.5f, 0, 5, 10, -2) == 5.875f);
    const oroya_vec3 h = oroya_hermite(0.5f, (oroya_vec3){0, 0, 0}, (oroya_vec3){0, 10, 0},
                                       (oroya_vec3){5, 0, 0}, (oroya_vec3){0, -5, 0});
    OT_CHECK(h.x == 2.5f && h.y == 1.875f && h.z == 0);
    const float ts[] = {-0.5f, 0, 0.25f, 0.7f, 1, 2};
    for (int i = 0; i < 6; i++) {
        const float t = ts[i];
        OT_CHECK(oroya_cubic_spline(t, 1, -3, 4, 7) == oroya_float_hermite(t, 1, -3, 4, 7));
        const oroya_vec3 p0 = {1, 2, 3}, m0 = {-1, 0.5f, 4}, p1 = {0, -2, 8}, m1 = {3, 3, -6};
        const oroya_vec3 a = oroya_hermite(t, p0, m0, p1, m1),
                         b = oroya_vec3_hermite(t, p0, m0, p1, m1);
        OT_CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
}

static void test_quat_sterp2(void) {
    const oroya_vec3 y = {0, 1, 0};
    const oroya_quat a = oroya_quat_from_axis_angle(y, 0.3f);
    const oroya_quat b =
        oroya_quat_from_axis_angle(oroya_vec3_normalize((oroya_vec3){1, 1, 0}), 2.0f);
    const float ts[] = {-0.25f, 0, 0.3f, 1, 1.5f};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            const oroya_quat p = oroya_quat_sterp2(a, b, y, ts[i], ts[j]);
            const oroya_quat q = oroya_quat_sterp_split(a, b, y, ts[i], ts[j]);
            OT_CHECK(memcmp(&p, &q, sizeof p) == 0);
        }
    /* Both pieces at t: plain sterp; swing and twist apart differ from it. */
    const oroya_quat s = oroya_quat_sterp(a, b, y, 0.3f),
                     s2 = oroya_quat_sterp2(a, b, y, 0.3f, 0.3f);
    OT_NEAR(fabsf(oroya_quat_dot(s, s2)), 1, 1e-6);
    OT_CHECK(fabsf(oroya_quat_dot(s, oroya_quat_sterp2(a, b, y, 1, 0))) < 0.999f);
}

static void test_pose_clip_additive(void) {
    oroya_clip *c = two_track_clip();
    const uint32_t parents[1] = {UINT32_MAX};
    const char *names[1] = {"a"};
    oroya_pose_skeleton *sk = NULL;
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){.joint_count = 1, .parents = parents, .names = names},
                  &sk, NULL),
              OROYA_OK);
    for (int additive = 0; additive < 2 && c && sk; additive++) {
        oroya_pose_clip *pc = NULL;
        OT_EQ_INT(oroya_pose_clip_create(
                      &(oroya_pose_clip_desc){.skeleton = sk, .clip = c, .additive = additive != 0},
                      &pc, NULL),
                  OROYA_OK);
        OT_CHECK(oroya_pose_clip_additive(pc) == (additive != 0));
        OT_CHECK(oroya_pose_clip_is_additive(pc) == (additive != 0));
        oroya_pose_clip_destroy(pc);
    }
    OT_CHECK(!oroya_pose_clip_additive(NULL) && !oroya_pose_clip_is_additive(NULL));
    oroya_pose_skeleton_destroy(sk);
    oroya_clip_destroy(c);
}

/* A scene with nodes "a" and its child "b", a mixer on it and the two-track clip. */
typedef struct mixer_world {
    oroya_scene *scene;
    oroya_node a, b;
    oroya_mixer *mixer;
    oroya_clip *clip;
} mixer_world;

static void mixer_world_free(mixer_world *w) {
    oroya_mixer_destroy(w->mixer);
    oroya_scene_destroy(w->scene);
    oroya_clip_destroy(w->clip);
}

/* false (a failed check, everything freed) when a step fails. */
static bool mixer_world_make(mixer_world *w) {
    memset(w, 0, sizeof *w);
    w->clip = two_track_clip();
    const bool ok =
        w->clip && oroya_scene_create(NULL, &w->scene) == OROYA_OK &&
        oroya_scene_add_node(w->scene, "a", (oroya_node){0}, OROYA_NODE_BONE, &w->a) == OROYA_OK &&
        oroya_scene_add_node(w->scene, "b", w->a, OROYA_NODE_BONE, &w->b) == OROYA_OK &&
        oroya_mixer_create(w->scene, NULL, &w->mixer) == OROYA_OK;
    OT_CHECK_MSG(ok, "%s", "the scene, mixer and clip of the test");
    if (!ok)
        mixer_world_free(w);
    return ok;
}

static void test_mixer_clip_action_ex(void) {
    mixer_world w;
    if (!mixer_world_make(&w))
        return;
    const oroya_action_desc add = {.has_blend_mode = true, .blend_mode = OROYA_BLEND_ADDITIVE};
    oroya_action *x = NULL, *y = NULL, *plain = NULL;
    OT_EQ_INT(oroya_mixer_clip_action_ex(w.mixer, w.clip, &add, &x), OROYA_OK);
    OT_EQ_INT(oroya_action_create(w.mixer, w.clip, &add, &y), OROYA_OK);
    OT_EQ_INT(oroya_mixer_clip_action(w.mixer, w.clip, &plain), OROYA_OK);
    /* The same lookup: one additive action, and a separate normal one. */
    OT_CHECK(x && x == y && x != plain);
    OT_CHECK(oroya_action_blend_mode(x) == OROYA_BLEND_ADDITIVE);
    OT_EQ_INT(oroya_mixer_get_stats(w.mixer).actions_total, 2);
    OT_EQ_INT(oroya_mixer_clip_action_ex(w.mixer, NULL, &add, &x), OROYA_ERR_INVALID_ARGUMENT);
    mixer_world_free(&w);
}

static void test_mixer_create_mask(void) {
    mixer_world w;
    if (!mixer_world_make(&w))
        return;
    const char *include[] = {"a"};
    const oroya_mask_entry weights[] = {{"b", 0.25}};
    const oroya_mask_desc d = {
        .name = "m", .include = include, .include_count = 1, .weights = weights, .weight_count = 1};
    oroya_mask *old = NULL, *now = NULL;
    OT_EQ_INT(oroya_mixer_create_mask(w.mixer, &d, &old, NULL), OROYA_OK);
    OT_EQ_INT(oroya_mask_create(w.mixer, &d, &now, NULL), OROYA_OK);
    OT_CHECK(old && now && old != now);
    OT_NEAR(oroya_mask_weight(old, w.a), 1, 0);
    OT_NEAR(oroya_mask_weight(old, w.b), 0.25, 0);
    OT_NEAR(oroya_mask_weight(now, w.a), 1, 0);
    OT_NEAR(oroya_mask_weight(now, w.b), 0.25, 0);
    OT_CHECK(!strcmp(oroya_mask_name(old), "m") && !strcmp(oroya_mask_name(now), "m"));
    const char *ghost[] = {"tail"};
    oroya_error err = {0};
    OT_EQ_INT(oroya_mixer_create_mask(
                  w.mixer, &(oroya_mask_desc){.include = ghost, .include_count = 1}, &old, &err),
              OROYA_ERR_NOT_FOUND);
    OT_CHECK(old == NULL && strstr(err.message, "tail") != NULL);
    mixer_world_free(&w);
}

int main(void) {
    OT_RUN(test_pose_skin_run_reference);
    OT_RUN(test_geometry_positional);
    OT_RUN(test_make_clip_additive);
    OT_RUN(test_skin_weights_normalize);
    OT_RUN(test_hermite_names);
    OT_RUN(test_quat_sterp2);
    OT_RUN(test_pose_clip_additive);
    OT_RUN(test_mixer_clip_action_ex);
    OT_RUN(test_mixer_create_mask);
    return ot_finish();
}
