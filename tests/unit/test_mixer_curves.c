/* Curves and typed property tracks through the mixer: a curve blends like three's
 * NumberKeyframeTrack on a number whose original value is 0 (partial weights toward 0,
 * additive on top, 0 when nothing drives it), read by an index resolved once; the same on the
 * pose-kernel path (a mixer with a rig); light intensity, camera fov and mesh colour
 * interpolate; visibility steps and blends by three's select (t >= 0.5); validation names the
 * curve, the track and the key; no allocation per update. Expected values are worked out by
 * hand from three's PropertyMixer rules (accumulate: accu = incoming, then
 * lerp(accu, incoming, w / cumulative); apply: lerp toward the original by 1 - weight when
 * the weights add up to less than 1, then + additive). */
#include <stdint.h>
#include <stdlib.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"
#include "oroya_test.h"

typedef struct {
    size_t allocs;
} counter;

static void *count_alloc(size_t size, size_t align, void *user) {
    ((counter *)user)->allocs++;
    (void)align;
    return malloc(size);
}

static void count_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* walk: footstep 0 -> 1 over 1 s (linear) and a translation of joint "hip";
 * pose: footstep 0.5 throughout (step); bump: footstep 0.4 (additive use). */
static const float t01[] = {0, 1};
static const float v01[] = {0, 1};
static const float t0[] = {0};
static const float v_half[] = {0.5f};
static const float v_bump[] = {0.4f};
static const float hip_v[] = {0, 0, 0, 1, 0, 0};

static oroya_clip *make_clip(const char *name, const oroya_track *tracks, uint32_t n) {
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    oroya_clip_desc d = {.name = name, .duration = 1, .tracks = tracks, .track_count = n};
    OT_CHECK_MSG(oroya_clip_create(&d, &clip, &err) == OROYA_OK, "%s", err.message);
    return clip;
}

static oroya_track curve(const char *name, oroya_interpolation in, const float *times,
                         const float *values, uint32_t keys) {
    return (oroya_track){.target = name,
                         .property = OROYA_PROPERTY_CURVE,
                         .interpolation = in,
                         .components = 1,
                         .key_count = keys,
                         .times = times,
                         .values = values};
}

/* The blend sequence of curves, with or without a rig (the kernel path). */
static void run_curve_blend(bool with_rig) {
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node hip;
    OT_CHECK(oroya_scene_add_node(scene, "hip", (oroya_node){0}, OROYA_NODE_BONE, &hip) ==
             OROYA_OK);
    /* A node named like the curve: a curve never binds to a node. */
    oroya_node decoy;
    OT_CHECK(oroya_scene_add_node(scene, "footstep", (oroya_node){0}, OROYA_NODE_OBJECT, &decoy) ==
             OROYA_OK);
    oroya_track walk_tracks[2] = {curve("footstep", OROYA_INTERP_LINEAR, t01, v01, 2),
                                  {.target = "hip",
                                   .property = OROYA_PROPERTY_TRANSLATION,
                                   .interpolation = OROYA_INTERP_LINEAR,
                                   .components = 3,
                                   .key_count = 2,
                                   .times = t01,
                                   .values = hip_v}};
    oroya_track pose_track = curve("footstep", OROYA_INTERP_STEP, t0, v_half, 1);
    oroya_track bump_track = curve("footstep", OROYA_INTERP_STEP, t0, v_bump, 1);
    oroya_clip *walk = make_clip("walk", walk_tracks, 2);
    oroya_clip *pose = make_clip("pose", &pose_track, 1);
    oroya_clip *bump = make_clip("bump", &bump_track, 1);

    oroya_rig *rig = NULL;
    oroya_error err = {0};
    if (with_rig)
        OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = scene}, &rig, &err) == OROYA_OK);
    counter c = {0};
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(
                 scene, &(oroya_mixer_desc){.rig = rig, .allocator = {count_alloc, count_free, &c}},
                 &m) == OROYA_OK);
    /* Resolved at load time, before any action names the curve. */
    uint32_t footstep = 99, other = 99;
    OT_CHECK(oroya_mixer_find_curve(m, "footstep", &footstep) == OROYA_ERR_NOT_FOUND);
    OT_CHECK(oroya_mixer_curve_index(m, "footstep", &footstep) == OROYA_OK);
    OT_CHECK(oroya_mixer_curve_index(m, "ik_weight", &other) == OROYA_OK);
    OT_EQ_INT(footstep, 0);
    OT_EQ_INT(other, 1);
    OT_EQ_INT(oroya_mixer_curve_count(m), 2);
    OT_CHECK(strcmp(oroya_mixer_curve_name(m, 1), "ik_weight") == 0);
    OT_CHECK(oroya_mixer_curve_name(m, 2) == NULL);

    oroya_action *aw = NULL, *ap = NULL, *ab = NULL;
    OT_CHECK(oroya_mixer_clip_action(m, walk, &aw) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, pose, &ap) == OROYA_OK);
    OT_CHECK(oroya_action_create(
                 m, bump,
                 &(oroya_action_desc){.has_blend_mode = true, .blend_mode = OROYA_BLEND_ADDITIVE},
                 &ab) == OROYA_OK);
    uint32_t again = 99;
    OT_CHECK(oroya_mixer_find_curve(m, "footstep", &again) == OROYA_OK);
    OT_EQ_INT(again, footstep);
    OT_EQ_INT(oroya_mixer_curve_count(m), 2); /* the tracks found the registered curve */

    OT_CHECK(oroya_mixer_update(m, 0.125) == OROYA_OK);
    OT_NEAR(oroya_mixer_curve_value(m, footstep), 0, 0); /* nothing plays yet */

    oroya_action_play(aw);
    size_t before = c.allocs;
    OT_CHECK(oroya_mixer_update(m, 0.25) == OROYA_OK); /* walk at 0.25, weight 1 */
    OT_NEAR(oroya_mixer_curve_value(m, footstep), 0.25, 1e-12);
    OT_NEAR(oroya_mixer_curve_value(m, other), 0, 0);
    if (with_rig)
        OT_CHECK(oroya_mixer_kernel_active(m));
    oroya_transform tr;
    OT_CHECK(oroya_scene_get_transform(scene, hip, &tr) == OROYA_OK);
    OT_NEAR(tr.translation.x, 0.25, 1e-6);
    OT_CHECK(oroya_scene_get_transform(scene, decoy, &tr) == OROYA_OK);
    OT_NEAR(tr.translation.x, 0, 0);

    /* Weight 0.5 alone: half way toward 0. */
    OT_CHECK(oroya_action_set_effective_weight(aw, 0.5) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.25) == OROYA_OK); /* walk at 0.5 */
    OT_NEAR(oroya_mixer_curve_value(m, footstep), 0.5 * 0.5, 1e-12);

    /* walk 0.5 then pose 0.25: accu = 0.75 (walk's sample), then lerp(accu, 0.5, 0.25 / 0.75);
     * the weights add to 0.75, so 0.25 of the original 0 fills the rest. */
    oroya_action_play(ap);
    OT_CHECK(oroya_action_set_effective_weight(ap, 0.25) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.25) == OROYA_OK); /* walk at 0.75 */
    double accu = 0.75 * (1 - 0.25 / 0.75) + 0.5 * (0.25 / 0.75);
    OT_NEAR(oroya_mixer_curve_value(m, footstep), accu * 0.75, 1e-7);

    /* Additive bump at weight 0.5 on top: + 0.4 * 0.5 (the key is a float). */
    oroya_action_play(ab);
    OT_CHECK(oroya_action_set_effective_weight(ab, 0.5) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.125) == OROYA_OK); /* walk at 0.875 */
    accu = 0.875 * (1 - 0.25 / 0.75) + 0.5 * (0.25 / 0.75);
    OT_NEAR(oroya_mixer_curve_value(m, footstep), accu * 0.75 + (double)0.4f * 0.5, 1e-7);
    OT_EQ_INT(c.allocs - before, 0); /* no allocation per update */

    /* A mask weights joints, not curves: one that takes every joint out (the hip at 0) leaves
     * the curve as it was (a mask gave curves weight 0 before); the hip goes back to rest. */
    const double value = oroya_mixer_curve_value(m, footstep);
    const char *out_joints[] = {"hip"};
    oroya_mask *none = NULL;
    OT_CHECK(oroya_mask_create(
                 m, &(oroya_mask_desc){.name = "none", .exclude = out_joints, .exclude_count = 1},
                 &none, NULL) == OROYA_OK);
    OT_CHECK(oroya_action_set_mask(aw, none) == OROYA_OK);
    OT_CHECK(oroya_action_set_mask(ap, none) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0) == OROYA_OK);
    OT_NEAR(oroya_mixer_curve_value(m, footstep), value, 1e-12);

    /* Nothing drives it any more: back to 0. */
    oroya_mixer_stop_all(m);
    OT_CHECK(oroya_mixer_update(m, 0.125) == OROYA_OK);
    OT_NEAR(oroya_mixer_curve_value(m, footstep), 0, 0);
    OT_NEAR(oroya_mixer_curve_value(m, 7), 0, 0);
    OT_NEAR(oroya_mixer_curve_value(NULL, 0), 0, 0);

    oroya_mixer_destroy(m);
    oroya_rig_destroy(rig);
    oroya_clip_destroy(walk);
    oroya_clip_destroy(pose);
    oroya_clip_destroy(bump);
    oroya_scene_destroy(scene);
}

static void test_curve_blend_property_path(void) { run_curve_blend(false); }
static void test_curve_blend_kernel_path(void) { run_curve_blend(true); }

static void test_curve_arguments(void) {
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(scene, NULL, &m) == OROYA_OK);
    uint32_t i = 0;
    OT_CHECK(oroya_mixer_curve_index(NULL, "x", &i) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_curve_index(m, NULL, &i) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_curve_index(m, "x", NULL) == OROYA_ERR_INVALID_ARGUMENT);
    /* Many names: the table grows at load time and keeps every index. */
    char name[16];
    for (uint32_t k = 0; k < 40; k++) {
        snprintf(name, sizeof name, "c%u", k);
        OT_CHECK(oroya_mixer_curve_index(m, name, &i) == OROYA_OK);
        OT_EQ_INT(i, k);
    }
    OT_CHECK(oroya_mixer_find_curve(m, "c17", &i) == OROYA_OK);
    OT_EQ_INT(i, 17);
    OT_CHECK(strcmp(oroya_mixer_curve_name(m, 39), "c39") == 0);
    oroya_mixer_destroy(m);
    oroya_scene_destroy(scene);
}

/* Validation names the track, the curve and the key. */
static void test_validation_messages(void) {
    static const float times[] = {0, 0.5f, 1};
    static const float nan_values[] = {0, 1, NAN};
    oroya_error err = {0};
    oroya_track t = curve("footstep", OROYA_INTERP_LINEAR, times, nan_values, 3);
    OT_CHECK(oroya_track_validate(&t, 4, &err) == OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "tracks[4]") && strstr(err.message, "footstep") &&
                     strstr(err.message, "curve") && strstr(err.message, "key 2"),
                 "%s", err.message);
    static const float two[] = {0, 1, 2, 3, 4, 5};
    t = curve("footstep", OROYA_INTERP_LINEAR, times, two, 3);
    t.components = 2;
    OT_CHECK(oroya_track_validate(&t, 0, &err) == OROYA_ERR_VALUE_COUNT);
    OT_CHECK_MSG(strstr(err.message, "expected 1"), "%s", err.message);

    static const float bools[] = {1, 0.5f, 0};
    oroya_track v = {.target = "flag",
                     .property = OROYA_PROPERTY_VISIBLE,
                     .interpolation = OROYA_INTERP_STEP,
                     .components = 1,
                     .key_count = 3,
                     .times = times,
                     .values = bools};
    OT_CHECK(oroya_track_validate(&v, 1, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "flag") && strstr(err.message, "key 1") &&
                     strstr(err.message, "visible"),
                 "%s", err.message);
    static const float ok_bools[] = {1, 0, 1};
    v.values = ok_bools;
    OT_CHECK(oroya_track_validate(&v, 1, &err) == OROYA_OK);
    v.interpolation = OROYA_INTERP_LINEAR;
    OT_CHECK(oroya_track_validate(&v, 1, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "step"), "%s", err.message);

    static const float rgb[] = {0, 0, 0, 1, 1, 1};
    oroya_track col = {.target = "box",
                       .property = OROYA_PROPERTY_COLOR,
                       .interpolation = OROYA_INTERP_LINEAR,
                       .components = 3,
                       .key_count = 2,
                       .times = times,
                       .values = rgb};
    OT_CHECK(oroya_track_validate(&col, 0, &err) == OROYA_OK);
    col.components = 4;
    col.key_count = 1;
    OT_CHECK(oroya_track_validate(&col, 0, &err) == OROYA_ERR_VALUE_COUNT);
    OT_CHECK(strcmp(oroya_property_name(OROYA_PROPERTY_CURVE), "curve") == 0);
    OT_CHECK(strcmp(oroya_property_name(OROYA_PROPERTY_COLOR), "color") == 0);
    OT_EQ_INT(oroya_property_components(OROYA_PROPERTY_COLOR), 3);
    OT_EQ_INT(oroya_property_components(OROYA_PROPERTY_FOV), 1);
}

typedef struct {
    oroya_scene *scene;
    oroya_node lamp, cam, box, flag;
    oroya_geometry *geometry;
    oroya_material material;
} typed_scene;

static void typed_setup(typed_scene *s) {
    memset(s, 0, sizeof *s);
    OT_CHECK(oroya_scene_create(NULL, &s->scene) == OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s->scene, "lamp", (oroya_node){0}, OROYA_NODE_OBJECT, &s->lamp) ==
             OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s->scene, "cam", (oroya_node){0}, OROYA_NODE_OBJECT, &s->cam) ==
             OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s->scene, "box", (oroya_node){0}, OROYA_NODE_OBJECT, &s->box) ==
             OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s->scene, "flag", (oroya_node){0}, OROYA_NODE_OBJECT, &s->flag) ==
             OROYA_OK);
    oroya_light l = oroya_light_make(OROYA_LIGHT_POINT);
    l.intensity = 2;
    OT_CHECK(oroya_scene_set_light(s->scene, s->lamp, &l) == OROYA_OK);
    oroya_camera c = oroya_camera_perspective(45, 1, 0.1f, 100);
    OT_CHECK(oroya_scene_set_camera(s->scene, s->cam, &c) == OROYA_OK);
    OT_CHECK(oroya_geometry_box(NULL, &s->geometry, NULL) == OROYA_OK);
    s->material = oroya_material_default();
    s->material.base_color[0] = 0.2f, s->material.base_color[1] = 0.4f;
    s->material.base_color[2] = 0.6f, s->material.base_color[3] = 0.5f;
    OT_CHECK(oroya_scene_set_mesh(s->scene, s->box, s->geometry, &s->material) == OROYA_OK);
}

static void typed_teardown(typed_scene *s) {
    oroya_scene_destroy(s->scene);
    oroya_geometry_destroy(s->geometry);
}

static void test_typed_tracks(void) {
    typed_scene s;
    typed_setup(&s);
    static const float times[] = {0, 1};
    static const float intensity[] = {0, 8};
    static const float fov[] = {30, 90};
    static const float rgb[] = {1, 0, 0, 0, 0, 1};
    static const float hidden[] = {0};
    const oroya_track tracks[] = {{.target = "lamp",
                                   .property = OROYA_PROPERTY_INTENSITY,
                                   .interpolation = OROYA_INTERP_LINEAR,
                                   .components = 1,
                                   .key_count = 2,
                                   .times = times,
                                   .values = intensity},
                                  {.target = "cam",
                                   .property = OROYA_PROPERTY_FOV,
                                   .interpolation = OROYA_INTERP_STEP,
                                   .components = 1,
                                   .key_count = 2,
                                   .times = times,
                                   .values = fov},
                                  {.target = "box",
                                   .property = OROYA_PROPERTY_COLOR,
                                   .interpolation = OROYA_INTERP_LINEAR,
                                   .components = 3,
                                   .key_count = 2,
                                   .times = times,
                                   .values = rgb},
                                  {.target = "flag",
                                   .property = OROYA_PROPERTY_VISIBLE,
                                   .interpolation = OROYA_INTERP_STEP,
                                   .components = 1,
                                   .key_count = 1,
                                   .times = times,
                                   .values = hidden}};
    oroya_clip *clip = make_clip("show", tracks, 4);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(s.scene, NULL, &m) == OROYA_OK);
    oroya_action *a = NULL;
    OT_CHECK(oroya_mixer_play(m, clip, &a) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.25) == OROYA_OK);
    oroya_light l;
    oroya_camera c;
    float rgba[4];
    bool visible = true;
    OT_CHECK(oroya_scene_get_light(s.scene, s.lamp, &l) == OROYA_OK);
    OT_NEAR(l.intensity, 2, 1e-6);
    OT_CHECK(oroya_scene_get_camera(s.scene, s.cam, &c) == OROYA_OK);
    OT_NEAR(c.fov_y, 30, 0); /* step */
    OT_CHECK(oroya_scene_get_mesh_color(s.scene, s.box, rgba) == OROYA_OK);
    OT_NEAR(rgba[0], 0.75, 1e-6);
    OT_NEAR(rgba[1], 0, 1e-6);
    OT_NEAR(rgba[2], 0.25, 1e-6);
    OT_NEAR(rgba[3], 0.5, 0); /* alpha is not animated */
    OT_CHECK(oroya_scene_get_visible(s.scene, s.flag, &visible) == OROYA_OK);
    OT_CHECK(!visible);

    /* Weight 0.5: numbers and colours half way to their originals. For a boolean the
     * remainder is select(accu, original, 1 - 0.5): 0.5 >= 0.5, so the original wins. */
    OT_CHECK(oroya_action_set_effective_weight(a, 0.5) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.25) == OROYA_OK); /* t = 0.5 */
    OT_CHECK(oroya_scene_get_light(s.scene, s.lamp, &l) == OROYA_OK);
    OT_NEAR(l.intensity, 0.5 * 4 + 0.5 * 2, 1e-6);
    OT_CHECK(oroya_scene_get_camera(s.scene, s.cam, &c) == OROYA_OK);
    OT_NEAR(c.fov_y, 0.5 * 30 + 0.5 * 45, 1e-5);
    OT_CHECK(oroya_scene_get_mesh_color(s.scene, s.box, rgba) == OROYA_OK);
    OT_NEAR(rgba[0], 0.5 * 0.5 + 0.5 * 0.2, 1e-6);
    OT_NEAR(rgba[2], 0.5 * 0.5 + 0.5 * 0.6, 1e-6);
    OT_CHECK(oroya_scene_get_visible(s.scene, s.flag, &visible) == OROYA_OK);
    OT_CHECK(visible);
    /* Weight 0.6: the remainder 0.4 < 0.5, the track's false stays. */
    OT_CHECK(oroya_action_set_effective_weight(a, 0.6) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.125) == OROYA_OK);
    OT_CHECK(oroya_scene_get_visible(s.scene, s.flag, &visible) == OROYA_OK);
    OT_CHECK(!visible);

    /* Stop: every property back to its original. */
    oroya_action_stop(a);
    OT_CHECK(oroya_mixer_update(m, 0.125) == OROYA_OK);
    OT_CHECK(oroya_scene_get_light(s.scene, s.lamp, &l) == OROYA_OK);
    OT_NEAR(l.intensity, 2, 0);
    OT_CHECK(oroya_scene_get_camera(s.scene, s.cam, &c) == OROYA_OK);
    OT_NEAR(c.fov_y, 45, 0);
    OT_CHECK(oroya_scene_get_mesh_color(s.scene, s.box, rgba) == OROYA_OK);
    OT_NEAR(rgba[0], 0.2f, 0);
    OT_NEAR(rgba[2], 0.6f, 0);
    OT_CHECK(oroya_scene_get_visible(s.scene, s.flag, &visible) == OROYA_OK);
    OT_CHECK(visible);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(clip);
    typed_teardown(&s);
}

/* Two actions on one boolean: three's select keeps the first action's value unless the
 * second's share of the accumulated weight (w / cumulative) is at least 0.5. */
static void test_visible_select_order(void) {
    typed_scene s;
    typed_setup(&s);
    static const float t0v[] = {0};
    static const float off[] = {0}, on[] = {1};
    const oroya_track hide = {.target = "flag",
                              .property = OROYA_PROPERTY_VISIBLE,
                              .interpolation = OROYA_INTERP_STEP,
                              .components = 1,
                              .key_count = 1,
                              .times = t0v,
                              .values = off};
    const oroya_track show = {.target = "flag",
                              .property = OROYA_PROPERTY_VISIBLE,
                              .interpolation = OROYA_INTERP_STEP,
                              .components = 1,
                              .key_count = 1,
                              .times = t0v,
                              .values = on};
    oroya_clip *ch = make_clip("hide", &hide, 1);
    oroya_clip *cs = make_clip("show", &show, 1);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(s.scene, NULL, &m) == OROYA_OK);
    oroya_action *ah = NULL, *as = NULL;
    OT_CHECK(oroya_mixer_play(m, ch, &ah) == OROYA_OK); /* first in the active order */
    OT_CHECK(oroya_mixer_play(m, cs, &as) == OROYA_OK);
    struct {
        double wh, ws;
        bool visible;
    } cases[] = {
        {0.4, 0.6, true},  /* 0.6 / 1.0 >= 0.5: show wins */
        {0.6, 0.4, false}, /* 0.4 / 1.0 < 0.5: hide stays */
        {0.5, 0.5, true},  /* exactly 0.5 selects the newcomer */
        {0.2, 0.1, true},  /* 0.1 / 0.3 < 0.5: hide; then remainder 0.7 >= 0.5: original */
        {0.3, 0.5, true},  /* 0.5 / 0.8 >= 0.5: show; remainder 0.2: stays show */
        {0.45, 0.4, false} /* hide (0.4 / 0.85 < 0.5), remainder 0.15 keeps it */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        OT_CHECK(oroya_action_set_effective_weight(ah, cases[k].wh) == OROYA_OK);
        OT_CHECK(oroya_action_set_effective_weight(as, cases[k].ws) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(m, 0.1) == OROYA_OK);
        bool visible = !cases[k].visible;
        OT_CHECK(oroya_scene_get_visible(s.scene, s.flag, &visible) == OROYA_OK);
        OT_CHECK_MSG(visible == cases[k].visible, "case %zu", k);
    }
    oroya_mixer_destroy(m);
    oroya_clip_destroy(ch);
    oroya_clip_destroy(cs);
    typed_teardown(&s);
}

/* Creating an action from an event callback: BUSY (and no action) when its clip drives a
 * curve the mixer does not know yet, since the curve table may not grow during the update
 * (oroya_mixer_clip_action's documented errors); after the update the same call works. A
 * clip whose curves are known is created from the callback as usual. */
static oroya_clip *busy_new, *busy_known;
static oroya_result busy_new_result = OROYA_OK, busy_known_result = OROYA_ERR_BUSY;
static oroya_action *busy_new_action;
static void busy_callback(const oroya_event *e, void *user) {
    oroya_mixer *m = user;
    if (e->type != OROYA_EVENT_LOOP) {
        return;
    }
    oroya_action *known = NULL;
    busy_new_result = oroya_mixer_clip_action(m, busy_new, &busy_new_action);
    busy_known_result = oroya_mixer_clip_action(m, busy_known, &known);
}

static void test_clip_action_busy_in_callback(void) {
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    const oroya_track a = curve("footstep", OROYA_INTERP_LINEAR, t01, v01, 2);
    const oroya_track b = curve("brand_new", OROYA_INTERP_LINEAR, t01, v01, 2);
    oroya_clip *walk = make_clip("walk", &a, 1);
    busy_known = make_clip("known", &a, 1);
    busy_new = make_clip("new", &b, 1);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(scene, NULL, &m) == OROYA_OK);
    oroya_mixer_set_event_callback(m, busy_callback, m);
    OT_CHECK(oroya_mixer_play(m, walk, NULL) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 1.5) == OROYA_OK); /* one loop: the callback runs */
    OT_EQ_INT(busy_new_result, OROYA_ERR_BUSY);
    OT_CHECK(busy_new_action == NULL);
    OT_EQ_INT(busy_known_result, OROYA_OK);
    oroya_action *later = NULL;
    OT_EQ_INT(oroya_mixer_clip_action(m, busy_new, &later), OROYA_OK);
    OT_CHECK(later != NULL);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(walk);
    oroya_clip_destroy(busy_known);
    oroya_clip_destroy(busy_new);
    oroya_scene_destroy(scene);
}

int main(void) {
    OT_RUN(test_curve_blend_property_path);
    OT_RUN(test_curve_blend_kernel_path);
    OT_RUN(test_curve_arguments);
    OT_RUN(test_validation_messages);
    OT_RUN(test_typed_tracks);
    OT_RUN(test_visible_select_order);
    OT_RUN(test_clip_action_busy_in_callback);
    return ot_finish();
}
