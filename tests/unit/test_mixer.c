/* Mixer tests. Expected values come from hand computation (constant or linear clips whose
 * blends can be worked out on paper, rotations about one axis whose angles add), from
 * three.js 0.187's source semantics (event order, fade ends, warp ratios), or from an
 * independent naive quaternion product written here. The frame-by-frame comparison with
 * three.js itself is tests/conformance. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"
#include "oroya/track.h"
#include "internal/mixer.h"
#include "oroya_test.h"

/* ---- fixtures ---------------------------------------------------------------------------- */

static oroya_scene *make_scene(oroya_node *nodes, int n) {
    static const char *names[] = {"a", "b", "c", "d"};
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    for (int i = 0; i < n; i++)
        OT_CHECK(oroya_scene_add_node(s, names[i], (oroya_node){0}, OROYA_NODE_OBJECT, &nodes[i]) ==
                 OROYA_OK);
    return s;
}

/* A translation clip on `target`: x goes linearly from x0 at 0 to x1 at `duration`. */
static oroya_clip *line_clip(const char *target, float x0, float x1, float duration) {
    float times[2] = {0, duration};
    float values[6] = {x0, 0, 0, x1, 0, 0};
    oroya_track t = {.target = target,
                     .property = OROYA_PROPERTY_TRANSLATION,
                     .interpolation = OROYA_INTERP_LINEAR,
                     .components = 3,
                     .key_count = 2,
                     .times = times,
                     .values = values};
    oroya_clip_desc d = {.name = target, .duration = duration, .tracks = &t, .track_count = 1};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(&d, &c, NULL) == OROYA_OK);
    return c;
}

/* A rotation clip about z, constant angle `angle` (two equal keys). */
static oroya_clip *zrot_clip(const char *target, double angle, float duration) {
    float times[2] = {0, duration};
    float s = (float)sin(angle / 2), c = (float)cos(angle / 2);
    float values[8] = {0, 0, s, c, 0, 0, s, c};
    oroya_track t = {.target = target,
                     .property = OROYA_PROPERTY_ROTATION,
                     .interpolation = OROYA_INTERP_LINEAR,
                     .components = 4,
                     .key_count = 2,
                     .times = times,
                     .values = values};
    oroya_clip_desc d = {.name = "zrot", .duration = duration, .tracks = &t, .track_count = 1};
    oroya_clip *cl = NULL;
    OT_CHECK(oroya_clip_create(&d, &cl, NULL) == OROYA_OK);
    return cl;
}

static float node_x(oroya_scene *s, oroya_node n) {
    oroya_transform t;
    OT_CHECK(oroya_scene_get_transform(s, n, &t) == OROYA_OK);
    return t.translation.x;
}

static double z_angle(oroya_scene *s, oroya_node n) {
    oroya_transform t;
    OT_CHECK(oroya_scene_get_transform(s, n, &t) == OROYA_OK);
    return 2 * atan2((double)t.rotation.z, (double)t.rotation.w);
}

/* ---- actions ----------------------------------------------------------------------------- */

static void test_clip_action_identity(void) {
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_clip *c = line_clip("a", 0, 1, 1);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(s, NULL, &m) == OROYA_OK);
    oroya_action *a1 = NULL, *a2 = NULL, *add = NULL, *ind = NULL, *a3 = NULL;
    OT_CHECK(oroya_mixer_clip_action(m, c, &a1) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, c, &a2) == OROYA_OK);
    OT_CHECK(a1 && a1 == a2);
    OT_CHECK(oroya_action_clip(a1) == c && oroya_action_mixer(a1) == m);
    /* Another blend mode is another action, and (as in three) it becomes the clip's lookup. */
    oroya_action_desc d = {.has_blend_mode = true, .blend_mode = OROYA_BLEND_ADDITIVE};
    OT_CHECK(oroya_action_create(m, c, &d, &add) == OROYA_OK);
    OT_CHECK(add && add != a1 && oroya_action_blend_mode(add) == OROYA_BLEND_ADDITIVE);
    OT_CHECK(oroya_action_create(m, c, &d, &a3) == OROYA_OK && a3 == add);
    /* An independent action is always new and never returned by lookups. */
    oroya_action_desc di = {.independent = true};
    OT_CHECK(oroya_action_create(m, c, &di, &ind) == OROYA_OK);
    OT_CHECK(ind && ind != a1 && ind != add);
    OT_CHECK(oroya_mixer_get_stats(m).actions_total == 3);
    OT_CHECK(oroya_mixer_get_stats(m).bindings_total == 1); /* all share one (node, property) */
    /* mixer_play = clip_action + play. The lookup now holds the additive action, so a
     * normal-mode request creates a third action, as three's clipAction does. */
    oroya_action *p = NULL;
    OT_CHECK(oroya_mixer_play(m, c, &p) == OROYA_OK && p && p != add && p != a1 && p != ind);
    OT_CHECK(oroya_action_is_scheduled(p) && oroya_action_is_running(p));
    OT_EQ_INT(oroya_mixer_get_stats(m).actions_total, 4);
    OT_CHECK(!oroya_action_is_scheduled(a1));
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

static void test_null_and_bad_arguments(void) {
    oroya_mixer *m = (oroya_mixer *)1;
    OT_CHECK(oroya_mixer_create(NULL, NULL, &m) == OROYA_ERR_INVALID_ARGUMENT && m == NULL);
    OT_CHECK(oroya_mixer_create(NULL, NULL, NULL) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_update(NULL, 0.1) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_clip_action(NULL, NULL, NULL) == OROYA_ERR_INVALID_ARGUMENT);
    oroya_action *a = (oroya_action *)1;
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    OT_CHECK(oroya_mixer_create(s, &(oroya_mixer_desc){.max_actions = OROYA_MAX_ACTIONS + 1}, &m) ==
             OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_create(s, NULL, &m) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, NULL, &a) == OROYA_ERR_INVALID_ARGUMENT && a == NULL);
    oroya_clip *c = line_clip("a", 0, 1, 1);
    OT_CHECK(oroya_mixer_clip_action(m, c, &a) == OROYA_OK);
    OT_CHECK(oroya_action_set_weight(a, NAN) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_set_effective_weight(a, INFINITY) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_set_time(a, NAN) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_fade_in(a, -1) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_set_duration(a, 0) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_set_loop(a, OROYA_LOOP_REPEAT, -1) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_set_loop(a, (oroya_loop_mode)7, 1) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_time_scale(m, NAN) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_cross_fade_to(a, NULL, 1, false) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_clip_make_additive(NULL, 0, NULL, 30) == OROYA_ERR_INVALID_ARGUMENT);
    /* NULL actions are ignored by the void calls and read as defaults. */
    oroya_action_play(NULL);
    oroya_action_stop(NULL);
    oroya_action_reset(NULL);
    OT_CHECK(!oroya_action_is_running(NULL) && oroya_action_effective_weight(NULL) == 0);
    oroya_mixer_destroy(m);
    oroya_mixer_destroy(NULL);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

/* A refused call leaves a message naming the call, the argument and why
 * (oroya_mixer_last_error), and changes nothing. */
static void expect_refusal(oroya_mixer *m, oroya_result r, const char *call, const char *arg,
                           const char *why, int line) {
    const char *msg = oroya_mixer_last_error(m);
    OT_CHECK_MSG(r == OROYA_ERR_INVALID_ARGUMENT, "line %d: %s returned %d", line, call, (int)r);
    OT_CHECK_MSG(!strncmp(msg, call, strlen(call)) && msg[strlen(call)] == ':' &&
                     strstr(msg, arg) && strstr(msg, why),
                 "line %d: message \"%s\" does not name %s, %s and %s", line, msg, call, arg, why);
}
#define REFUSED(r, call, arg, why) expect_refusal(m, r, call, arg, why, __LINE__)

static void test_refusal_messages(void) {
    oroya_node n[2];
    oroya_scene *s = make_scene(n, 2);
    oroya_mixer *m = NULL, *other = NULL;
    OT_CHECK(oroya_mixer_create(s, NULL, &m) == OROYA_OK);
    OT_CHECK(oroya_mixer_create(s, NULL, &other) == OROYA_OK);
    OT_CHECK(!strcmp(oroya_mixer_last_error(m), "") && !strcmp(oroya_mixer_last_error(NULL), ""));
    oroya_clip *c = line_clip("a", 0, 1, 1), *d = line_clip("b", 0, 1, 2);
    oroya_action *a = NULL, *b = NULL, *x = NULL;
    OT_CHECK(oroya_mixer_clip_action(m, c, &a) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, d, &b) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(other, d, &x) == OROYA_OK);
    REFUSED(oroya_action_set_effective_time_scale(a, NAN), "oroya_action_set_effective_time_scale",
            "time_scale nan", "finite");
    OT_CHECK(oroya_action_time_scale(a) == 1);
    REFUSED(oroya_action_set_time_scale(a, INFINITY), "oroya_action_set_time_scale",
            "time_scale inf", "finite");
    REFUSED(oroya_action_cross_fade_to(a, b, -1, false), "oroya_action_cross_fade_to",
            "duration -1", ">= 0");
    OT_CHECK(!oroya_action_is_fading(a) && !oroya_action_is_fading(b));
    REFUSED(oroya_action_cross_fade_from(a, b, NAN, true), "oroya_action_cross_fade_from",
            "duration nan", "finite");
    REFUSED(oroya_action_cross_fade_to(a, NULL, 1, false), "oroya_action_cross_fade_to",
            "to is NULL", "NULL");
    REFUSED(oroya_action_cross_fade_from(a, NULL, 1, false), "oroya_action_cross_fade_from",
            "from is NULL", "NULL");
    REFUSED(oroya_action_cross_fade_to(a, x, 1, false), "oroya_action_cross_fade_to",
            "to and action", "different mixers");
    OT_CHECK(strstr(oroya_mixer_last_error(other), "different mixers") != NULL);
    REFUSED(oroya_action_cross_fade_from(a, x, 1, true), "oroya_action_cross_fade_from",
            "action and from", "different mixers");
    OT_CHECK(oroya_action_set_time_scale(b, 0) == OROYA_OK);
    REFUSED(oroya_action_cross_fade_to(a, b, 1, true), "oroya_action_cross_fade_to",
            "warp: to's time_scale is 0", "scales");
    OT_CHECK(oroya_action_cross_fade_to(a, b, 1, false) == OROYA_OK); /* no warp: fine */
    OT_CHECK(oroya_action_set_time_scale(b, 1) == OROYA_OK);
    REFUSED(oroya_action_warp(a, NAN, 1, 1), "oroya_action_warp", "start_time_scale nan", "finite");
    REFUSED(oroya_action_warp(a, 1, INFINITY, 1), "oroya_action_warp", "end_time_scale inf",
            "finite");
    REFUSED(oroya_action_warp(a, 1, 2, -0.5), "oroya_action_warp", "duration -0.5", ">= 0");
    REFUSED(oroya_action_warp(a, 1e300, -1e300, 1), "oroya_action_warp", "start_time_scale 1e+300",
            "float range");
    REFUSED(oroya_action_halt(a, -2), "oroya_action_halt", "duration -2", ">= 0");
    OT_CHECK(oroya_action_set_time_scale(a, 0) == OROYA_OK);
    REFUSED(oroya_action_warp(a, 1, 2, 1), "oroya_action_warp", "time_scale is 0", "undefined");
    OT_CHECK(!oroya_action_is_warping(a));
    REFUSED(oroya_action_fade_in(a, -1), "oroya_action_fade_in", "duration -1", ">= 0");
    REFUSED(oroya_action_fade_out(a, NAN), "oroya_action_fade_out", "duration nan", "finite");
    REFUSED(oroya_action_set_duration(a, 0), "oroya_action_set_duration", "duration 0", "not 0");
    REFUSED(oroya_action_set_weight(a, NAN), "oroya_action_set_weight", "weight nan",
            "OROYA_MAX_WEIGHT");
    REFUSED(oroya_action_set_effective_weight(a, 2e6), "oroya_action_set_effective_weight",
            "weight 2e+06", "OROYA_MAX_WEIGHT");
    REFUSED(oroya_action_set_loop(a, OROYA_LOOP_REPEAT, -1), "oroya_action_set_loop",
            "repetitions -1", ">= 0");
    REFUSED(oroya_action_set_loop(a, (oroya_loop_mode)7, 1), "oroya_action_set_loop", "mode 7",
            "not a loop mode");
    REFUSED(oroya_action_set_time(a, NAN), "oroya_action_set_time", "time nan", "finite");
    REFUSED(oroya_action_start_at(a, INFINITY), "oroya_action_start_at", "mixer_time inf",
            "finite");
    REFUSED(oroya_action_sync_with(a, NULL), "oroya_action_sync_with", "other is NULL", "NULL");
    REFUSED(oroya_mixer_set_time_scale(m, NAN), "oroya_mixer_set_time_scale", "time_scale nan",
            "finite");
    REFUSED(oroya_mixer_set_time(m, -1), "oroya_mixer_set_time", "time -1", ">= 0");
    REFUSED(oroya_mixer_update(m, NAN), "oroya_mixer_update", "dt nan", "finite");
    REFUSED(oroya_mixer_update(m, -0.5), "oroya_mixer_update", "dt -0.5", ">= 0");
    oroya_action_play(a);
    OT_CHECK(oroya_action_set_time_scale(a, 1) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.25) == OROYA_OK && oroya_mixer_time(m) == 0.25);
    OT_CHECK(oroya_mixer_set_time_scale(m, 1e300) == OROYA_OK);
    REFUSED(oroya_mixer_update(m, 1e10), "oroya_mixer_update", "dt 1e+10", "mixer's time");
    /* set_time refuses an overflow before it zeroes the times: nothing is lost. */
    REFUSED(oroya_mixer_set_time(m, 1e10), "oroya_mixer_set_time", "time 1e+10", "overflow");
    OT_CHECK(oroya_mixer_time(m) == 0.25 && oroya_action_time(a) == 0.25);
    OT_CHECK(oroya_mixer_set_time_scale(m, 1) == OROYA_OK);
    OT_CHECK(oroya_action_set_time_scale(a, 1e300) == OROYA_OK);
    /* It names the action's clip (it said "an action's time" only). */
    REFUSED(oroya_mixer_update(m, 1e10), "oroya_mixer_update", "dt 1e+10",
            "the time of the action of clip \"a\" (duration 1) would overflow");
    OT_CHECK(oroya_action_set_time_scale(a, 1) == OROYA_OK);
    oroya_action_stop(a);
    REFUSED(oroya_mixer_set_rotation_blend(m, (oroya_rotation_blend)9),
            "oroya_mixer_set_rotation_blend", "blend 9", "not a rotation blend");
    REFUSED(oroya_action_set_rotation_blend(a, (oroya_rotation_blend)9),
            "oroya_action_set_rotation_blend", "blend 9", "not a rotation blend");
    oroya_vec3 bad_axis = {NAN, 0, 1};
    REFUSED(oroya_mixer_set_twist_axis(m, n[0], &bad_axis), "oroya_mixer_set_twist_axis",
            "axis (nan", "not finite");
    REFUSED(oroya_mixer_uncache_action(m, x), "oroya_mixer_uncache_action", "action",
            "another mixer");
    REFUSED(oroya_mixer_uncache_clip(m, NULL), "oroya_mixer_uncache_clip", "clip", "NULL");
    oroya_action *y = NULL;
    REFUSED(oroya_action_create(m, c, &(oroya_action_desc){.duration = -2}, &y),
            "oroya_action_create", "duration -2", ">= 0");
    REFUSED(oroya_action_create(m, NULL, NULL, &y), "oroya_action_create", "clip", "NULL");
    /* A success does not clear the message; NULL actions only return the code. */
    OT_CHECK(oroya_action_set_weight(a, 0.5) == OROYA_OK);
    OT_CHECK(strstr(oroya_mixer_last_error(m), "oroya_action_create:") != NULL);
    OT_CHECK(oroya_action_fade_in(NULL, 1) == OROYA_ERR_INVALID_ARGUMENT);
    oroya_mixer_destroy(m);
    oroya_mixer_destroy(other);
    oroya_clip_destroy(c);
    oroya_clip_destroy(d);
    oroya_scene_destroy(s);
}
#undef REFUSED

static void test_limits(void) {
    oroya_node n[3];
    oroya_scene *s = make_scene(n, 3);
    oroya_clip *c1 = line_clip("a", 0, 1, 1), *c2 = line_clip("b", 0, 1, 1),
               *c3 = line_clip("c", 0, 1, 1);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(s, &(oroya_mixer_desc){.max_actions = 2, .max_bindings = 8}, &m) ==
             OROYA_OK);
    oroya_action *a = NULL;
    OT_CHECK(oroya_mixer_clip_action(m, c1, &a) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, c2, &a) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, c3, &a) == OROYA_ERR_LIMIT && a == NULL);
    /* The refusal names the call, the clip and the limit (oroya_mixer_last_error). */
    OT_CHECK(strstr(oroya_mixer_last_error(m), "oroya_action_create: clip \"c\"") &&
             strstr(oroya_mixer_last_error(m), "max_actions"));
    oroya_mixer_destroy(m);
    OT_CHECK(oroya_mixer_create(s, &(oroya_mixer_desc){.max_bindings = 1}, &m) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, c1, &a) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, c2, &a) == OROYA_ERR_LIMIT);
    OT_CHECK(strstr(oroya_mixer_last_error(m), "clip \"b\" track 0 (\"b\" translation)") &&
             strstr(oroya_mixer_last_error(m), "max_bindings"));
    OT_CHECK(oroya_mixer_get_stats(m).actions_total == 1 &&
             oroya_mixer_get_stats(m).bindings_total == 1);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c1);
    oroya_clip_destroy(c2);
    oroya_clip_destroy(c3);
    oroya_scene_destroy(s);
}

/* ---- weights ------------------------------------------------------------------------------ */

static void test_weights_normalized_and_remainder(void) {
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_transform t = oroya_transform_identity();
    t.translation.x = 10; /* original value, used for the remainder below total weight 1 */
    oroya_scene_set_transform(s, n[0], &t);
    oroya_clip *ca = line_clip("a", 2, 2, 1), *cb = line_clip("a", 6, 6, 1);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(s, NULL, &m) == OROYA_OK);
    oroya_action *a = NULL, *b = NULL;
    oroya_mixer_play(m, ca, &a);
    oroya_mixer_play(m, cb, &b);
    /* 1 and 1: normalized, (2 + 6) / 2. */
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[0]), 4.0, 1e-6);
    /* 0.75 / 0.25: 0.75*2 + 0.25*6 = 3. */
    oroya_action_set_effective_weight(a, 0.75);
    oroya_action_set_effective_weight(b, 0.25);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[0]), 3.0, 1e-6);
    /* 0.3 / 0.2: 0.3*2 + 0.2*6 + 0.5*10 = 6.8. */
    oroya_action_set_effective_weight(a, 0.3);
    oroya_action_set_effective_weight(b, 0.2);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[0]), 6.8, 1e-5);
    /* Both 0: the original. */
    oroya_action_set_effective_weight(a, 0);
    oroya_action_set_effective_weight(b, 0);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[0]), 10.0, 1e-6);
    /* Disabled: effective weight 0 even with weight 1. */
    oroya_action_set_effective_weight(a, 1);
    oroya_action_set_enabled(a, false);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(oroya_action_effective_weight(a), 0.0, 0);
    OT_NEAR(node_x(s, n[0]), 10.0, 1e-6);
    /* stop() of the last user restores the saved original. */
    oroya_action_set_enabled(a, true);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[0]), 2.0, 1e-6);
    oroya_mixer_stop_all(m);
    OT_NEAR(node_x(s, n[0]), 10.0, 0);
    OT_EQ_INT(oroya_mixer_get_stats(m).actions, 0);
    OT_EQ_INT(oroya_mixer_get_stats(m).bindings, 0);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(ca);
    oroya_clip_destroy(cb);
    oroya_scene_destroy(s);
}

static void test_rotation_blend_order(void) {
    /* Two rotations about z, 0.5 / 0.5: successive slerp gives the mean angle. */
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_clip *ca = zrot_clip("a", 0.2, 1), *cb = zrot_clip("a", 1.0, 1);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *a = NULL, *b = NULL;
    oroya_mixer_play(m, cb, &b);
    oroya_mixer_play(m, ca, &a);
    OT_CHECK(oroya_mixer_active_action(m, 0) == b && oroya_mixer_active_action(m, 1) == a);
    OT_CHECK(oroya_mixer_active_action_count(m) == 2 && oroya_mixer_active_action(m, 2) == NULL);
    oroya_action_set_effective_weight(a, 0.5);
    oroya_action_set_effective_weight(b, 0.5);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(z_angle(s, n[0]), 0.6, 1e-5);
    /* 0.25 / 0.25 (total 0.5): the remainder slerps half way to the identity: 0.3. */
    oroya_action_set_effective_weight(a, 0.25);
    oroya_action_set_effective_weight(b, 0.25);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(z_angle(s, n[0]), 0.3, 1e-5);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(ca);
    oroya_clip_destroy(cb);
    oroya_scene_destroy(s);
}

/* ---- fades and warps ------------------------------------------------------------------------ */

static void test_fades(void) {
    oroya_node n[2];
    oroya_scene *s = make_scene(n, 2);
    oroya_clip *c0 = line_clip("a", 1, 1, 1), *c1 = line_clip("b", 1, 1, 1);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *a = NULL, *b = NULL;
    oroya_mixer_play(m, c0, &a);
    oroya_mixer_play(m, c1, &b);
    /* The fade multiplies weight: weight 0 stays invisible. */
    oroya_action_set_effective_weight(b, 0);
    OT_CHECK(oroya_action_fade_in(a, 1.0) == OROYA_OK);
    OT_CHECK(oroya_action_fade_in(b, 1.0) == OROYA_OK);
    OT_CHECK(oroya_action_is_fading(a));
    OT_EQ_INT(oroya_mixer_get_stats(m).control_interpolants, 2);
    oroya_mixer_update(m, 0.25);
    OT_NEAR(oroya_action_effective_weight(a), 0.25, 1e-7);
    OT_NEAR(oroya_action_effective_weight(b), 0.0, 0);
    OT_NEAR(node_x(s, n[0]), 0.25, 1e-6); /* 0.25 * 1 + 0.75 * original 0 */
    oroya_mixer_update(m, 0.75);          /* time == end: still fading (ends when time > end) */
    OT_CHECK(oroya_action_is_fading(a));
    OT_NEAR(oroya_action_effective_weight(a), 1.0, 0);
    oroya_mixer_update(m, 0.1);
    OT_CHECK(!oroya_action_is_fading(a) && !oroya_action_is_fading(b));
    OT_EQ_INT(oroya_mixer_get_stats(m).control_interpolants, 0);
    /* A fade-out that reaches 0 disables; a later fade-in shows nothing until reset(). */
    oroya_action_fade_out(a, 0.5);
    oroya_mixer_update(m, 0.25);
    OT_NEAR(oroya_action_effective_weight(a), 0.5, 1e-6);
    oroya_mixer_update(m, 0.5);
    OT_CHECK(!oroya_action_enabled(a));
    double frozen = oroya_action_time(a);
    oroya_action_fade_in(a, 0.5);
    oroya_mixer_update(m, 0.25);
    OT_NEAR(oroya_action_effective_weight(a), 0.0, 0);
    OT_NEAR(oroya_action_time(a), frozen, 0);
    OT_CHECK(oroya_action_is_fading(a)); /* a disabled action keeps its fade */
    oroya_action_reset(a);
    OT_CHECK(oroya_action_enabled(a) && !oroya_action_is_fading(a));
    oroya_action_fade_in(a, 0.5);
    oroya_mixer_update(m, 0.25);
    OT_NEAR(oroya_action_effective_weight(a), 0.5, 1e-6);
    /* set_effective_weight stops a fade. */
    oroya_action_set_effective_weight(a, 0.7);
    OT_CHECK(!oroya_action_is_fading(a));
    OT_NEAR(oroya_action_effective_weight(a), 0.7, 0);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c0);
    oroya_clip_destroy(c1);
    oroya_scene_destroy(s);
}

static void test_cross_fade_warp(void) {
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_clip *walk = line_clip("a", 0, 1, 1.2f), *run = line_clip("a", 0, 1, 0.7f);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *w = NULL, *r = NULL;
    /* Exact durations, as three keeps them (doubles). */
    oroya_action_create(m, walk, &(oroya_action_desc){.duration = 1.2}, &w);
    oroya_action_create(m, run, &(oroya_action_desc){.duration = 0.7}, &r);
    oroya_action_play(w);
    oroya_action_play(r);
    oroya_action_set_time_scale(w, 2.0); /* restored at the end of the warp */
    OT_CHECK(oroya_action_cross_fade_to(w, r, 0.4, true) == OROYA_OK);
    OT_CHECK(oroya_action_is_warping(w) && oroya_action_is_warping(r));
    OT_CHECK(oroya_action_is_fading(w) && oroya_action_is_fading(r));
    oroya_mixer_update(m, 0.0);
    /* The ratios are absolute (walk's time_scale 2 is ignored during the warp): outgoing
     * walk 1 -> out/in = 1.2/0.7, incoming run in/out = 0.7/1.2 -> 1. */
    OT_NEAR(oroya_action_effective_time_scale(w), 1.0, 1e-6);
    OT_NEAR(oroya_action_effective_time_scale(r), 0.7 / 1.2, 1e-6);
    oroya_mixer_update(m, 0.2);
    OT_NEAR(oroya_action_effective_time_scale(w), (1 + 1.2 / 0.7) / 2, 1e-6);
    OT_NEAR(oroya_action_effective_time_scale(r), (0.7 / 1.2 + 1) / 2, 1e-6);
    OT_NEAR(oroya_action_effective_weight(w), 0.5, 1e-6);
    oroya_mixer_update(m, 0.3); /* past the end: warps end, time scales restored */
    OT_CHECK(!oroya_action_is_warping(w) && !oroya_action_is_warping(r));
    OT_NEAR(oroya_action_time_scale(w), 2.0, 0);
    OT_NEAR(oroya_action_time_scale(r), 1.0, 0);
    OT_CHECK(!oroya_action_enabled(w)); /* the cross-fade leaves the outgoing one disabled */
    OT_CHECK(oroya_action_enabled(r));
    oroya_mixer_destroy(m);
    oroya_clip_destroy(walk);
    oroya_clip_destroy(run);
    oroya_scene_destroy(s);
}

static void test_time_control(void) {
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_clip *c = line_clip("a", 0, 4, 4);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *a = NULL;
    oroya_mixer_play(m, c, &a);
    oroya_action_start_at(a, 0.5);
    OT_CHECK(!oroya_action_is_running(a));
    oroya_mixer_update(m, 0.25);
    OT_NEAR(oroya_action_time(a), 0.0, 0);
    oroya_mixer_update(m, 0.5); /* mixer time 0.75: started, runs the 0.25 s since 0.5 */
    OT_NEAR(oroya_action_time(a), 0.25, 1e-12);
    OT_CHECK(oroya_action_is_running(a));
    oroya_action_set_effective_time_scale(a, 2);
    oroya_mixer_update(m, 0.25);
    OT_NEAR(oroya_action_time(a), 0.75, 1e-12);
    /* halt(0.5): linear to 0, then paused. */
    oroya_action_halt(a, 0.5);
    oroya_mixer_update(m, 0.25);
    OT_NEAR(oroya_action_effective_time_scale(a), 1.0, 1e-6);
    oroya_mixer_update(m, 0.5);
    OT_CHECK(oroya_action_paused(a) && !oroya_action_is_warping(a));
    OT_NEAR(oroya_action_effective_time_scale(a), 0, 0);
    /* set_duration: one loop in 8 s -> time scale 0.5; mixer time scale multiplies. */
    oroya_action_set_paused(a, false);
    oroya_action_set_duration(a, 8);
    OT_NEAR(oroya_action_time_scale(a), 0.5, 0);
    oroya_mixer_set_time_scale(m, 2);
    double t0 = oroya_action_time(a);
    oroya_mixer_update(m, 0.25);
    OT_NEAR(oroya_action_time(a) - t0, 0.25, 1e-12);
    /* set_time: everything to 0, then update(time * mixer scale). */
    oroya_mixer_set_time_scale(m, 1);
    OT_CHECK(oroya_mixer_set_time(m, 1.0) == OROYA_OK);
    OT_NEAR(oroya_mixer_time(m), 1.0, 0);
    OT_NEAR(oroya_action_time(a), 0.5, 1e-12);
    OT_NEAR(node_x(s, n[0]), 0.5, 1e-6);
    /* sync_with copies time and time scale. */
    oroya_clip *c2 = line_clip("b", 0, 1, 4);
    oroya_action *b = NULL;
    oroya_mixer_clip_action(m, c2, &b);
    oroya_action_sync_with(b, a);
    OT_NEAR(oroya_action_time(b), oroya_action_time(a), 0);
    OT_NEAR(oroya_action_time_scale(b), 0.5, 0);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_clip_destroy(c2);
    oroya_scene_destroy(s);
}

/* ---- loops and events ------------------------------------------------------------------------ */

typedef struct event_log {
    oroya_event e[64];
    int n;
} event_log;

static void log_event(const oroya_event *e, void *user) {
    event_log *l = user;
    if (l->n < 64)
        l->e[l->n++] = *e;
}

static void test_loops_and_events(void) {
    oroya_node n[4];
    oroya_scene *s = make_scene(n, 4);
    oroya_clip *once = line_clip("a", 0, 1, 1), *rep = line_clip("b", 0, 1, 1);
    oroya_clip *back = line_clip("c", 0, 1, 1), *clamp = line_clip("d", 0, 1, 1);
    event_log log = {0};
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, &(oroya_mixer_desc){.on_event = log_event, .user = &log}, &m);
    oroya_action *ao = NULL, *ar = NULL, *ab = NULL, *ac = NULL;
    oroya_mixer_clip_action(m, once, &ao);
    oroya_mixer_clip_action(m, rep, &ar);
    oroya_mixer_clip_action(m, back, &ab);
    oroya_mixer_clip_action(m, clamp, &ac);
    oroya_action_set_loop(ao, OROYA_LOOP_ONCE, INFINITY);
    oroya_action_set_loop(ar, OROYA_LOOP_REPEAT, 3);
    oroya_action_set_loop(ab, OROYA_LOOP_REPEAT, 2);
    oroya_action_set_effective_time_scale(ab, -1);
    oroya_action_set_loop(ac, OROYA_LOOP_ONCE, 1);
    oroya_action_set_clamp_when_finished(ac, true);
    OT_EQ_INT(oroya_action_loop_count(ao), -1);
    oroya_action_play(ao);
    oroya_action_play(ar);
    oroya_action_play(ab);
    oroya_action_play(ac);

    /* First update: the backwards action wraps through 0 at once (a loop of -1). */
    oroya_mixer_update(m, 0.25);
    uint32_t count = 0, dropped = 0;
    const oroya_event *ev = oroya_mixer_events(m, &count, &dropped);
    OT_EQ_INT(count, 1);
    OT_EQ_INT(dropped, 0);
    OT_CHECK(ev[0].type == OROYA_EVENT_LOOP && ev[0].action == ab && ev[0].loop_delta == -1);
    OT_EQ_INT(log.n, 1);
    OT_NEAR(oroya_action_time(ab), 0.75, 1e-12);
    OT_EQ_INT(oroya_action_loop_count(ab), 0);
    OT_EQ_INT(oroya_action_loop_count(ao), 0);
    OT_NEAR(node_x(s, n[2]), 0.75, 1e-6);

    /* t = 1.0: once finishes (time clamps to the end, disabled: the node falls back to its
     * original x = 0); clamp pauses on the end pose; repeat loops. The backwards action
     * lands exactly on 0, which is not a wrap (time < 0 is). */
    oroya_mixer_update(m, 0.75);
    ev = oroya_mixer_events(m, &count, NULL);
    OT_EQ_INT(count, 3);
    if (count == 3) {
        /* Dispatch order = active-action order: ao, ar, ab, ac. */
        OT_CHECK(ev[0].type == OROYA_EVENT_FINISHED && ev[0].action == ao && ev[0].direction == 1);
        OT_CHECK(ev[1].type == OROYA_EVENT_LOOP && ev[1].action == ar && ev[1].loop_delta == 1);
        OT_CHECK(ev[2].type == OROYA_EVENT_FINISHED && ev[2].action == ac && ev[2].direction == 1);
    }
    OT_EQ_INT(log.n, 4);
    OT_CHECK(!oroya_action_enabled(ao) && oroya_action_time(ao) == 1.0);
    OT_NEAR(node_x(s, n[0]), 0.0, 0);
    OT_CHECK(oroya_action_paused(ac) && oroya_action_enabled(ac));
    OT_NEAR(node_x(s, n[3]), 1.0, 1e-6);
    OT_NEAR(oroya_action_time(ar), 0.0, 1e-12);
    OT_CHECK(oroya_action_enabled(ab) && oroya_action_time(ab) == 0.0);
    /* t = 2: both repeaters loop. */
    oroya_mixer_update(m, 1.0);
    ev = oroya_mixer_events(m, &count, NULL);
    OT_EQ_INT(count, 2);
    if (count == 2) {
        OT_CHECK(ev[0].type == OROYA_EVENT_LOOP && ev[0].action == ar && ev[0].loop_delta == 1);
        OT_CHECK(ev[1].type == OROYA_EVENT_LOOP && ev[1].action == ab && ev[1].loop_delta == -1);
    }
    /* t = 3: repeat x3 finishes forwards (time = end), repeat x2 backwards (time = 0). */
    oroya_mixer_update(m, 1.0);
    ev = oroya_mixer_events(m, &count, NULL);
    OT_EQ_INT(count, 2);
    if (count == 2) {
        OT_CHECK(ev[0].type == OROYA_EVENT_FINISHED && ev[0].action == ar && ev[0].direction == 1);
        OT_CHECK(ev[1].type == OROYA_EVENT_FINISHED && ev[1].action == ab && ev[1].direction == -1);
    }
    OT_EQ_INT(log.n, 8);
    OT_CHECK(!oroya_action_enabled(ar) && oroya_action_time(ar) == 1.0);
    OT_CHECK(!oroya_action_enabled(ab) && oroya_action_time(ab) == 0.0);
    OT_EQ_INT(oroya_action_loop_count(ar), 2);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(once);
    oroya_clip_destroy(rep);
    oroya_clip_destroy(back);
    oroya_clip_destroy(clamp);
    oroya_scene_destroy(s);
}

static void test_event_list_capacity(void) {
    oroya_node n[3];
    oroya_scene *s = make_scene(n, 3);
    oroya_clip *c[3] = {line_clip("a", 0, 1, 1), line_clip("b", 0, 1, 1), line_clip("c", 0, 1, 1)};
    event_log log = {0};
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, &(oroya_mixer_desc){.max_events = 2, .on_event = log_event, .user = &log},
                       &m);
    for (int i = 0; i < 3; i++)
        oroya_mixer_play(m, c[i], NULL);
    oroya_mixer_update(m, 1.5); /* three loop events */
    uint32_t count = 0, dropped = 0;
    oroya_mixer_events(m, &count, &dropped);
    OT_EQ_INT(count, 2);
    OT_EQ_INT(dropped, 1);
    OT_EQ_INT(log.n, 3); /* the callback sees them all */
    oroya_mixer_update(m, 0.1);
    oroya_mixer_events(m, &count, &dropped);
    OT_EQ_INT(count, 0);
    OT_EQ_INT(dropped, 0);
    oroya_mixer_destroy(m);
    for (int i = 0; i < 3; i++)
        oroya_clip_destroy(c[i]);
    oroya_scene_destroy(s);
}

/* Deviation 2: ping-pong x3 with clamp shows the end pose (x = 1) on the finishing frame;
 * three.js shows x = 0 on that one frame. Deviation 1: bad dt changes nothing. */
static void test_deviations_1_and_2(void) {
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_clip *c = line_clip("a", 0, 1, 1);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *a = NULL;
    oroya_mixer_clip_action(m, c, &a);
    oroya_action_set_loop(a, OROYA_LOOP_PINGPONG, 3);
    oroya_action_set_clamp_when_finished(a, true);
    oroya_action_play(a);
    oroya_mixer_update(m, 0.5);
    OT_NEAR(node_x(s, n[0]), 0.5, 1e-6);
    oroya_mixer_update(m, 1.0); /* round 1 plays backwards: 1.5 -> x = 0.5 */
    OT_NEAR(node_x(s, n[0]), 0.5, 1e-6);
    oroya_mixer_update(m, 0.75); /* 2.25: round 2 forwards, x = 0.25 */
    OT_NEAR(node_x(s, n[0]), 0.25, 1e-6);
    oroya_mixer_update(m, 1.0); /* 3.25: finished on this frame */
    uint32_t count = 0;
    const oroya_event *ev = oroya_mixer_events(m, &count, NULL);
    OT_CHECK(count == 1 && ev[0].type == OROYA_EVENT_FINISHED);
    OT_CHECK(oroya_action_paused(a));
    OT_NEAR(node_x(s, n[0]), 1.0, 1e-6); /* three.js: 0 on this frame */
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[0]), 1.0, 1e-6); /* and 1 afterwards, in both */

    double mt = oroya_mixer_time(m), at = oroya_action_time(a);
    OT_CHECK(oroya_mixer_update(m, NAN) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_update(m, INFINITY) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_update(m, -0.1) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_time(m, -1) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_time(m) == mt && oroya_action_time(a) == at);
    /* A negative time scale is legal: plays backwards. */
    oroya_action_reset(a);
    oroya_action_set_loop(a, OROYA_LOOP_REPEAT, INFINITY);
    oroya_action_set_time(a, 0.5);
    oroya_mixer_set_time_scale(m, -1);
    OT_CHECK(oroya_mixer_update(m, 0.25) == OROYA_OK);
    OT_NEAR(oroya_action_time(a), 0.25, 1e-12);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

/* ---- additive ------------------------------------------------------------------------------ */

static void qmul(const double *a, const double *b, double *out) {
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    for (int i = 0; i < 4; i++)
        out[i] = r[i];
}

static void test_make_clip_additive(void) {
    /* Linear position + rotation, reference frame 0 of itself. */
    float times[2] = {0, 1};
    float pos[6] = {1, 2, 3, 4, 6, 8};
    double qa[4] = {0.1, 0.2, 0.3, 0.9}, qb[4] = {0, 0.6, 0, 0.8};
    double la = sqrt(0.01 + 0.04 + 0.09 + 0.81);
    float rot[8] = {(float)qa[0], (float)qa[1], (float)qa[2], (float)qa[3],
                    (float)qb[0], (float)qb[1], (float)qb[2], (float)qb[3]};
    oroya_track tr[2] = {{.target = "a",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = 2,
                          .times = times,
                          .values = pos},
                         {.target = "a",
                          .property = OROYA_PROPERTY_ROTATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 4,
                          .key_count = 2,
                          .times = times,
                          .values = rot}};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = tr, .track_count = 2}, &c, NULL) ==
             OROYA_OK);
    OT_CHECK(oroya_clip_make_additive(c, 0, NULL, 30) == OROYA_OK);
    OT_CHECK(c->blend_mode == OROYA_BLEND_ADDITIVE);
    const float *p = c->tracks[0].values;
    OT_NEAR(p[0], 0, 0);
    OT_NEAR(p[3], 3, 0);
    OT_NEAR(p[4], 4, 0);
    OT_NEAR(p[5], 5, 0);
    /* conj(normalize(qa)) * q, by an independent product; clip_create normalized the key qa
     * (|qa| = 0.975, past OROYA_CLIP_UNIT_TOLERANCE), so q at key 0 is qa / |qa|. */
    double cr[4] = {-qa[0] / la, -qa[1] / la, -qa[2] / la, qa[3] / la}, e0[4], e1[4];
    double qan[4] = {qa[0] / la, qa[1] / la, qa[2] / la, qa[3] / la};
    qmul(cr, qan, e0);
    qmul(cr, qb, e1);
    const float *q = c->tracks[1].values;
    for (int i = 0; i < 4; i++) {
        OT_NEAR(q[i], e0[i], 1e-6);
        OT_NEAR(q[4 + i], e1[i], 1e-6);
    }
    oroya_clip_destroy(c);

    /* Cubic spline rotation: tangents become conj(ref) * m too (deviation 3); position
     * tangents stay (the derivative of v - ref is the derivative of v). Reference clip
     * `r` holds ref at every time. */
    double ref[4] = {0, 0, sin(0.25), cos(0.25)};
    float rtimes[1] = {0};
    float rvals[4] = {0, 0, (float)ref[2], (float)ref[3]};
    float rpos[3] = {1, 1, 1};
    oroya_track rt[2] = {{.target = "a",
                          .property = OROYA_PROPERTY_ROTATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 4,
                          .key_count = 1,
                          .times = rtimes,
                          .values = rvals},
                         {.target = "a",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = 1,
                          .times = rtimes,
                          .values = rpos}};
    oroya_clip *rc = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = rt, .track_count = 2}, &rc, NULL) ==
             OROYA_OK);
    float ctimes[2] = {0, 1};
    float cvals[24] = {0,
                       0,
                       0.2f,
                       0,
                       0,
                       0,
                       0,
                       1,
                       0,
                       0.1f,
                       0,
                       0,
                       0.3f,
                       0,
                       0,
                       0,
                       0,
                       0,
                       (float)sin(0.5),
                       (float)cos(0.5),
                       0,
                       0,
                       0,
                       0.1f};
    float cpos[18] = {0.5f, 0, 0, 2, 2, 2, 0, 0.5f, 0, 0, 0, 1, 3, 3, 3, 0, 0, 0};
    oroya_track ct[2] = {{.target = "a",
                          .property = OROYA_PROPERTY_ROTATION,
                          .interpolation = OROYA_INTERP_CUBICSPLINE,
                          .components = 4,
                          .key_count = 2,
                          .times = ctimes,
                          .values = cvals},
                         {.target = "a",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_CUBICSPLINE,
                          .components = 3,
                          .key_count = 2,
                          .times = ctimes,
                          .values = cpos}};
    oroya_clip *cc = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = ct, .track_count = 2}, &cc, NULL) ==
             OROYA_OK);
    OT_CHECK(oroya_clip_make_additive(cc, 0, rc, 30) == OROYA_OK);
    double cref[4] = {0, 0, -ref[2], ref[3]};
    const float *v = cc->tracks[0].values;
    for (int k = 0; k < 6; k++) { /* in, value, out of two keys: all left-multiplied */
        double m[4] = {cvals[k * 4], cvals[k * 4 + 1], cvals[k * 4 + 2], cvals[k * 4 + 3]}, e[4];
        qmul(cref, m, e);
        for (int i = 0; i < 4; i++)
            OT_NEAR(v[k * 4 + i], e[i], 1e-6);
    }
    const float *pv = cc->tracks[1].values;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
            OT_NEAR(pv[k * 9 + i], cpos[k * 9 + i], 0);                /* in-tangent kept */
            OT_NEAR(pv[k * 9 + 3 + i], cpos[k * 9 + 3 + i] - 1, 1e-7); /* value - ref */
            OT_NEAR(pv[k * 9 + 6 + i], cpos[k * 9 + 6 + i], 0);        /* out-tangent kept */
        }
    oroya_clip_destroy(cc);
    oroya_clip_destroy(rc);
}

static void test_additive_runtime(void) {
    /* base: z 0.4 rad, x = 1; additive: z +0.3 rad, x +2. base * slerp(I, add, w), base + w*add. */
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    float times[2] = {0, 1};
    float bpos[6] = {1, 0, 0, 1, 0, 0};
    float apos[6] = {2, 0, 0, 2, 0, 0};
    float brot[8] = {0, 0, (float)sin(0.2), (float)cos(0.2),
                     0, 0, (float)sin(0.2), (float)cos(0.2)};
    float arot[8] = {0, 0, (float)sin(0.15), (float)cos(0.15),
                     0, 0, (float)sin(0.15), (float)cos(0.15)};
    oroya_track bt[2] = {{.target = "a",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = 2,
                          .times = times,
                          .values = bpos},
                         {.target = "a",
                          .property = OROYA_PROPERTY_ROTATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 4,
                          .key_count = 2,
                          .times = times,
                          .values = brot}};
    oroya_track at[2] = {bt[0], bt[1]};
    at[0].values = apos;
    at[1].values = arot;
    oroya_clip *base = NULL, *add = NULL;
    oroya_clip_create(&(oroya_clip_desc){.tracks = bt, .track_count = 2}, &base, NULL);
    oroya_clip_create(
        &(oroya_clip_desc){.tracks = at, .track_count = 2, .blend_mode = OROYA_BLEND_ADDITIVE},
        &add, NULL);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *ab = NULL, *aa = NULL;
    oroya_mixer_play(m, base, &ab);
    oroya_mixer_play(m, add, &aa);
    OT_CHECK(oroya_action_blend_mode(aa) == OROYA_BLEND_ADDITIVE);
    const double ws[3] = {1.0, 0.8, 1.5}; /* 1.5 extrapolates */
    for (int i = 0; i < 3; i++) {
        oroya_action_set_effective_weight(aa, ws[i]);
        oroya_mixer_update(m, 0.1);
        OT_NEAR(node_x(s, n[0]), 1 + 2 * ws[i], 1e-6);
        OT_NEAR(z_angle(s, n[0]), 0.4 + 0.3 * ws[i], 1e-5);
    }
    oroya_mixer_destroy(m);
    oroya_clip_destroy(base);
    oroya_clip_destroy(add);
    oroya_scene_destroy(s);
}

/* ---- bindings -------------------------------------------------------------------------------- */

static void test_write_only_when_changed(void) {
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_clip *c = line_clip("a", 0, 1, 0.5f);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *a = NULL;
    oroya_mixer_clip_action(m, c, &a);
    oroya_action_set_loop(a, OROYA_LOOP_ONCE, 1);
    oroya_action_set_clamp_when_finished(a, true);
    oroya_action_play(a);
    oroya_mixer_update(m, 0.6);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[0]), 1.0, 0);
    oroya_transform t;
    oroya_scene_get_transform(s, n[0], &t);
    t.translation.x = 9;
    oroya_scene_set_transform(s, n[0], &t);
    oroya_mixer_update(m, 0.1); /* same blended value as last frame: nothing written */
    OT_NEAR(node_x(s, n[0]), 9.0, 0);
    oroya_action_set_effective_weight(a, 0.5); /* changes: written (blend with original 0) */
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[0]), 0.5, 1e-6);
    oroya_action_stop(a); /* restores the value saved at play */
    OT_NEAR(node_x(s, n[0]), 0.0, 0);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

static void test_layout_change_and_uncache(void) {
    oroya_node n[2];
    oroya_scene *s = make_scene(n, 2);
    oroya_clip *c = line_clip("b", 5, 5, 1);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *a = NULL;
    oroya_mixer_play(m, c, &a);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[1]), 5, 0);
    /* Re-parent b under a new node and remove a: dense indices move. */
    oroya_node p;
    OT_CHECK(oroya_scene_add_node(s, "p", (oroya_node){0}, OROYA_NODE_OBJECT, &p) == OROYA_OK);
    OT_CHECK(oroya_scene_set_parent(s, n[1], p) == OROYA_OK);
    OT_CHECK(oroya_scene_remove_node(s, n[0]) == OROYA_OK);
    oroya_transform t;
    oroya_scene_get_transform(s, n[1], &t);
    t.translation.x = 0;
    oroya_scene_set_transform(s, n[1], &t);
    oroya_action_set_effective_weight(a, 0.5); /* makes the mixer write again */
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, n[1]), 2.5, 1e-6); /* 0.5 * 5 + 0.5 * original 0... saved at play: 0 */
    oroya_node other;
    OT_CHECK(oroya_scene_find_node(s, "p", &other) == OROYA_OK);
    OT_NEAR(node_x(s, other), 0, 0);
    /* uncache frees the action and its binding. */
    oroya_action_stop(a);
    OT_CHECK(oroya_mixer_uncache_clip(m, c) == OROYA_OK);
    oroya_mixer_stats st = oroya_mixer_get_stats(m);
    OT_EQ_INT(st.actions_total, 0);
    OT_EQ_INT(st.bindings_total, 0);
    oroya_action *a2 = NULL;
    OT_CHECK(oroya_mixer_clip_action(m, c, &a2) == OROYA_OK && a2 != NULL);
    OT_CHECK(oroya_mixer_uncache_action(m, a2) == OROYA_OK);
    OT_EQ_INT(oroya_mixer_get_stats(m).actions_total, 0);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

static void test_late_and_rebuilt_targets(void) {
    /* A track whose target is not in the scene samples but writes nothing; once a node of
     * that name appears (layout change), the binding finds it. */
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_clip *c = line_clip("late", 3, 3, 1);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_action *a = NULL;
    OT_CHECK(oroya_mixer_play(m, c, &a) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.1) == OROYA_OK);
    OT_NEAR(node_x(s, n[0]), 0, 0);
    oroya_node late;
    OT_CHECK(oroya_scene_add_node(s, "late", (oroya_node){0}, OROYA_NODE_OBJECT, &late) ==
             OROYA_OK);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, late), 3, 0);
    /* Removed and rebuilt under the same name: found again. */
    OT_CHECK(oroya_scene_remove_node(s, late) == OROYA_OK);
    oroya_mixer_update(m, 0.1);
    oroya_node again;
    OT_CHECK(oroya_scene_add_node(s, "late", (oroya_node){0}, OROYA_NODE_OBJECT, &again) ==
             OROYA_OK);
    oroya_transform t = oroya_transform_identity();
    t.translation.x = -2;
    oroya_scene_set_transform(s, again, &t);
    oroya_action_set_effective_weight(a, 0.5);
    oroya_mixer_update(m, 0.1);
    OT_NEAR(node_x(s, again), 0.5, 1e-6); /* 0.5 * 3 + 0.5 * (-2): the new node's original */
    oroya_action_stop(a);
    OT_NEAR(node_x(s, again), -2, 0);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

static void test_morph_weights(void) {
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    OT_CHECK(oroya_scene_set_weight_count(s, n[0], 2) == OROYA_OK);
    float times[2] = {0, 1};
    float w[4] = {0, 1, 1, 0};
    oroya_track t = {.target = "a",
                     .property = OROYA_PROPERTY_WEIGHTS,
                     .interpolation = OROYA_INTERP_LINEAR,
                     .components = 2,
                     .key_count = 2,
                     .times = times,
                     .values = w};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &c, NULL) ==
             OROYA_OK);
    oroya_mixer *m = NULL;
    oroya_mixer_create(s, NULL, &m);
    oroya_mixer_play(m, c, NULL);
    oroya_mixer_update(m, 0.25);
    uint32_t count = 0;
    const float *ws = oroya_scene_weights(s, n[0], &count);
    OT_EQ_INT(count, 2);
    OT_CHECK(ws != NULL);
    if (ws) {
        OT_NEAR(ws[0], 0.25, 1e-6);
        OT_NEAR(ws[1], 0.75, 1e-6);
    }
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

/* ---- no allocation in update ------------------------------------------------------------------
 */

static int alloc_count;
static void *counting_alloc(size_t size, size_t align, void *user) {
    (void)align;
    (void)user;
    alloc_count++;
    return malloc(size);
}
static void counting_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* An allocator that fails once `left` allocations have been made. */
static void *limited_alloc(size_t size, size_t align, void *user) {
    int *left = user;
    if (*left <= 0) {
        return NULL;
    }
    (*left)--;
    align = align < sizeof(void *) ? sizeof(void *) : align;
    return aligned_alloc(align, (size + align - 1) / align * align);
}

/* Action creation that fails for want of memory, or because two actions animate one target
 * with different component counts, says so in oroya_mixer_last_error (it recorded only
 * INVALID_ARGUMENT refusals). */
static void test_action_create_failure_messages(void) {
    oroya_node n[1];
    oroya_scene *s = make_scene(n, 1);
    oroya_clip *c1 = line_clip("a", 0, 1, 1);
    int left = 1 << 30;
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(
                 s, &(oroya_mixer_desc){.allocator = {limited_alloc, counting_free, &left}}, &m) ==
             OROYA_OK);
    oroya_action *a = NULL;
    int failed = 0;
    for (int budget = 0; budget < 64 && !a; budget++) {
        left = budget;
        const oroya_result r = oroya_mixer_clip_action(m, c1, &a);
        if (r == OROYA_ERR_OUT_OF_MEMORY) {
            failed++;
            OT_CHECK(strstr(oroya_mixer_last_error(m), "oroya_action_create: clip \"a\"") &&
                     strstr(oroya_mixer_last_error(m), "out of memory"));
        } else {
            OT_CHECK(r == OROYA_OK && a);
        }
    }
    OT_CHECK(failed > 0 && a);
    left = 1 << 30;
    oroya_mixer_destroy(m);
    /* weights with 2 and with 3 components on one node */
    float times[2] = {0, 1}, v2[4] = {0, 0, 1, 1}, v3[6] = {0, 0, 0, 1, 1, 1};
    oroya_track t2 = {.target = "a",
                      .property = OROYA_PROPERTY_WEIGHTS,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 2,
                      .key_count = 2,
                      .times = times,
                      .values = v2};
    oroya_track t3 = t2;
    t3.components = 3, t3.values = v3;
    oroya_clip *w2 = NULL, *w3 = NULL;
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){.name = "w2", .duration = 1, .tracks = &t2, .track_count = 1},
                 &w2, NULL) == OROYA_OK);
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){.name = "w3", .duration = 1, .tracks = &t3, .track_count = 1},
                 &w3, NULL) == OROYA_OK);
    OT_CHECK(oroya_mixer_create(s, NULL, &m) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, w2, &a) == OROYA_OK);
    OT_CHECK(oroya_mixer_clip_action(m, w3, &a) == OROYA_ERR_INVALID_DATA);
    OT_CHECK(strstr(oroya_mixer_last_error(m), "clip \"w3\" track 0 (\"a\" weights)") &&
             strstr(oroya_mixer_last_error(m), "another number of components"));
    oroya_mixer_destroy(m);
    oroya_clip_destroy(w2);
    oroya_clip_destroy(w3);
    oroya_clip_destroy(c1);
    oroya_scene_destroy(s);
}

static void test_update_does_not_allocate(void) {
    oroya_node n[2];
    oroya_scene *s = make_scene(n, 2);
    oroya_clip *c1 = line_clip("a", 0, 1, 1), *c2 = zrot_clip("b", 1, 1);
    oroya_mixer *m = NULL;
    oroya_mixer_desc d = {.allocator = {counting_alloc, counting_free, NULL}};
    OT_CHECK(oroya_mixer_create(s, &d, &m) == OROYA_OK);
    oroya_action *a = NULL, *b = NULL;
    oroya_mixer_play(m, c1, &a);
    oroya_mixer_play(m, c2, &b);
    int before = alloc_count;
    OT_CHECK(before > 0);
    oroya_action_cross_fade_to(a, b, 0.5, true);
    for (int i = 0; i < 200; i++)
        oroya_mixer_update(m, 1.0 / 60);
    oroya_mixer_set_time(m, 0.5);
    oroya_mixer_stop_all(m);
    OT_EQ_INT(alloc_count, before);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c1);
    oroya_clip_destroy(c2);
    oroya_scene_destroy(s);
}

/* ---- the mixer's float time ---------------------------------------------------------------- */

/* The reference: the largest float <= t with the C library's nextafterf. */
static float float_below_ref(double t) {
    float f = (float)t;
    if ((double)f > t)
        f = nextafterf(f, -INFINITY);
    return f;
}

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void check_float_below(double t) {
    const float got = oroya__float_below(t), want = float_below_ref(t);
    OT_CHECK_MSG(float_bits(got) == float_bits(want), "t = %a: got %a (0x%08x), nextafterf %a", t,
                 (double)got, (unsigned)float_bits(got), (double)want);
}

/* oroya__float_below (a bit step) against nextafterf: zeros, tiny negatives that round to -0,
 * denormals, the ends of the float range, infinities, NaN, the neighbours of floats, and
 * random doubles around the clip times a mixer sees. */
static void test_float_below(void) {
    const double edges[] = {0.0,
                            -0.0,
                            -1e-300,
                            1e-300,
                            -DBL_MIN,
                            (double)FLT_TRUE_MIN,
                            -(double)FLT_TRUE_MIN,
                            (double)FLT_TRUE_MIN / 2,
                            -(double)FLT_TRUE_MIN / 2,
                            (double)FLT_TRUE_MIN * 0.75,
                            -(double)FLT_TRUE_MIN * 0.75,
                            (double)FLT_TRUE_MIN * 1.5,
                            -(double)FLT_TRUE_MIN * 1.5,
                            (double)FLT_MIN,
                            -(double)FLT_MIN,
                            (double)FLT_MIN * (1 - 1e-9),
                            -(double)FLT_MIN * (1 - 1e-9),
                            (double)FLT_MAX,
                            -(double)FLT_MAX,
                            (double)FLT_MAX * (1 + 1e-9),
                            -(double)FLT_MAX * (1 + 1e-9),
                            (double)FLT_MAX * (1 - 1e-9),
                            -(double)FLT_MAX * (1 - 1e-9),
                            1e39,
                            -1e39,
                            DBL_MAX,
                            -DBL_MAX,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            1.0,
                            -1.0,
                            1.0 / 60,
                            -1.0 / 60,
                            0.1,
                            -0.1,
                            2.0 / 3,
                            16777217.0,
                            -16777217.0};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_float_below(edges[i]);
    /* Each float's neighbourhood: itself, a hair above and below. */
    const float floats[] = {FLT_TRUE_MIN, FLT_MIN, 0.5f, 1.0f, 1.5f, 3.0f, 1e-3f, 1e7f, FLT_MAX};
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
        for (int sign = -1; sign <= 1; sign += 2) {
            const double f = sign * (double)floats[i];
            check_float_below(f);
            check_float_below(nextafter(f, INFINITY));
            check_float_below(nextafter(f, -INFINITY));
        }
    }
    /* Random doubles: mixer-like times (sums of frame steps, negative too) and raw bits. */
    uint64_t x = 0x9e3779b97f4a7c15u;
    double acc = 0;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        acc += ((double)(x % 2001) - 1000) / 60000.0;
        check_float_below(acc);
        double d;
        memcpy(&d, &x, sizeof d);
        check_float_below(d);
    }
}

/* oroya_clip_make_additive after a rig was built from the clip, before its action exists:
 * the rig's copy holds the old keys, and the action took it (the kernel path gave the old
 * pose, [3, 4, 5] at 0.5 s, where a mixer without a rig gave the new one, [2, 2, 2], as
 * three does). The clip's key_generation tells the copy is stale: both paths give [2, 2, 2],
 * and oroya_rig_clip no longer offers the stale copy. Optimize (here it drops the middle of
 * three collinear keys) moves the generation too. */
static void test_additive_after_rig(void) {
    for (int with_rig = 0; with_rig < 2; with_rig++) {
        oroya_scene *s = NULL;
        OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
        oroya_node n;
        OT_EQ_INT(oroya_scene_add_node(s, "n", (oroya_node){0}, OROYA_NODE_BONE, &n), OROYA_OK);
        static const float times[3] = {0, 0.5f, 1}, v[9] = {1, 2, 3, 3, 4, 5, 5, 6, 7};
        const oroya_track tr = {.target = "n",
                                .property = OROYA_PROPERTY_TRANSLATION,
                                .interpolation = OROYA_INTERP_LINEAR,
                                .components = 3,
                                .key_count = 3,
                                .times = times,
                                .values = v};
        oroya_clip *c = NULL;
        OT_EQ_INT(oroya_clip_create(
                      &(oroya_clip_desc){.name = "c", .tracks = &tr, .track_count = 1}, &c, NULL),
                  OROYA_OK);
        oroya_rig *rig = NULL;
        const oroya_clip *clips[1] = {c};
        if (with_rig) {
            OT_EQ_INT(
                oroya_rig_create(&(oroya_rig_desc){.scene = s, .clips = clips, .clip_count = 1},
                                 &rig, NULL),
                OROYA_OK);
            OT_CHECK(oroya_rig_clip(rig, c) != NULL);
        }
        const uint32_t g0 = c->key_generation;
        OT_EQ_INT(oroya_clip_make_additive(c, 0, NULL, 30), OROYA_OK);
        OT_CHECK(c->key_generation != g0);
        if (with_rig)
            OT_CHECK(oroya_rig_clip(rig, c) == NULL);
        oroya_mixer *m = NULL;
        OT_EQ_INT(oroya_mixer_create(s, &(oroya_mixer_desc){.rig = rig}, &m), OROYA_OK);
        oroya_action *a = NULL;
        OT_EQ_INT(oroya_mixer_play(m, c, &a), OROYA_OK);
        OT_EQ_INT(oroya_mixer_update(m, 0.5), OROYA_OK);
        OT_CHECK(oroya_mixer_kernel_active(m) == (with_rig != 0));
        oroya_transform t;
        OT_EQ_INT(oroya_scene_get_transform(s, n, &t), OROYA_OK);
        OT_CHECK_MSG(t.translation.x == 2 && t.translation.y == 2 && t.translation.z == 2,
                     "rig %d: %g %g %g", with_rig, (double)t.translation.x, (double)t.translation.y,
                     (double)t.translation.z);
        const uint32_t g1 = c->key_generation;
        OT_EQ_INT(oroya_clip_optimize(c, 0, NULL), OROYA_OK);
        OT_CHECK(c->key_generation != g1);
        oroya_mixer_destroy(m);
        oroya_rig_destroy(rig);
        oroya_clip_destroy(c);
        oroya_scene_destroy(s);
    }
}

/* One block, handed out again as soon as it is freed: the next clip lands at the address of
 * the one destroyed before it, as a real allocator often does. */
static _Alignas(64) unsigned char one_block[4096];
static bool one_block_used;
static void *one_block_alloc(size_t size, size_t align, void *user) {
    (void)user;
    if (one_block_used || size > sizeof one_block || align > 64)
        return NULL;
    one_block_used = true;
    return one_block;
}
static void one_block_free(void *p, void *user) {
    (void)user;
    if (p == one_block)
        one_block_used = false;
}

/* A rig keeps its own copy of each clip's keys and takes it for a clip by its address and
 * key_generation. A clip destroyed after the rig was built, and a new one created at the same
 * address, played the old clip's keys on the kernel path (x = 5 instead of -7; found by a
 * stateful API fuzz): key_generation now differs between clips, so the new clip is sampled
 * from its own keys (the property path), as a mixer without a rig does. */
static void test_rig_clip_address_reused(void) {
    oroya_scene *s = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    oroya_node n;
    OT_EQ_INT(oroya_scene_add_node(s, "n", (oroya_node){0}, OROYA_NODE_BONE, &n), OROYA_OK);
    static const float times[2] = {0, 1}, va[6] = {5, 0, 0, 5, 0, 0}, vb[6] = {-7, 0, 0, -7, 0, 0};
    oroya_track tr = {.target = "n",
                      .property = OROYA_PROPERTY_TRANSLATION,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 3,
                      .key_count = 2,
                      .times = times,
                      .values = va};
    const oroya_allocator one = {one_block_alloc, one_block_free, NULL};
    oroya_clip *a = NULL, *b = NULL;
    OT_EQ_INT(
        oroya_clip_create(
            &(oroya_clip_desc){.name = "a", .tracks = &tr, .track_count = 1, .allocator = one}, &a,
            NULL),
        OROYA_OK);
    oroya_rig *rig = NULL;
    const oroya_clip *clips[1] = {a};
    OT_EQ_INT(oroya_rig_create(&(oroya_rig_desc){.scene = s, .clips = clips, .clip_count = 1}, &rig,
                               NULL),
              OROYA_OK);
    oroya_clip_destroy(a);
    tr.values = vb;
    OT_EQ_INT(
        oroya_clip_create(
            &(oroya_clip_desc){.name = "b", .tracks = &tr, .track_count = 1, .allocator = one}, &b,
            NULL),
        OROYA_OK);
    OT_CHECK((void *)b == (void *)a); /* the same address: what the test is about */
    OT_CHECK(oroya_rig_clip(rig, b) == NULL);
    oroya_mixer *m = NULL;
    OT_EQ_INT(oroya_mixer_create(s, &(oroya_mixer_desc){.rig = rig}, &m), OROYA_OK);
    OT_EQ_INT(oroya_mixer_play(m, b, NULL), OROYA_OK);
    OT_EQ_INT(oroya_mixer_update(m, 0.5), OROYA_OK);
    oroya_transform t;
    OT_EQ_INT(oroya_scene_get_transform(s, n, &t), OROYA_OK);
    OT_CHECK_MSG(t.translation.x == -7, "x %g, clip b's key is -7", (double)t.translation.x);
    oroya_mixer_destroy(m);
    oroya_rig_destroy(rig);
    oroya_clip_destroy(b);
    oroya_scene_destroy(s);
}

/* A scene of bones "a" (the root) and "b" under it, world matrices up to date. */
static oroya_scene *cubic_scene(oroya_node *a) {
    oroya_scene *scene = NULL;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    oroya_node b = {0};
    OT_EQ_INT(oroya_scene_add_node(scene, "a", (oroya_node){0}, OROYA_NODE_BONE, a), OROYA_OK);
    OT_EQ_INT(oroya_scene_add_node(scene, "b", *a, OROYA_NODE_BONE, &b), OROYA_OK);
    oroya_scene_update_world(scene);
    return scene;
}

/* A rig over the scene and its mixer playing one clip: a CUBICSPLINE rotation of "a" with two
 * keys at times[0..1] (values: in-tangent, value, out-tangent per key). */
typedef struct {
    oroya_clip *clip;
    oroya_rig *rig;
    oroya_mixer *mixer;
} cubic_play;

static cubic_play cubic_play_start(oroya_scene *scene, const float *times, const float *values) {
    const oroya_track t = {.target = "a",
                           .property = OROYA_PROPERTY_ROTATION,
                           .interpolation = OROYA_INTERP_CUBICSPLINE,
                           .components = 4,
                           .key_count = 2,
                           .times = times,
                           .values = values};
    cubic_play p = {0};
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &p.clip, &err),
              OROYA_OK);
    const oroya_clip *clips[1] = {p.clip};
    OT_EQ_INT(oroya_rig_create(&(oroya_rig_desc){.scene = scene, .clips = clips, .clip_count = 1},
                               &p.rig, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = p.rig}, &p.mixer), OROYA_OK);
    oroya_action *action = NULL;
    OT_EQ_INT(oroya_mixer_clip_action(p.mixer, p.clip, &action), OROYA_OK);
    oroya_action_play(action);
    return p;
}

/* After an update to clip time `time`: node a's rotation is unit and oroya_track_sample's. */
static void cubic_play_check(const oroya_scene *scene, oroya_node a, const cubic_play *p,
                             double time) {
    oroya_transform got;
    OT_EQ_INT(oroya_scene_get_transform(scene, a, &got), OROYA_OK);
    float want[4];
    oroya_track_sample(&p->clip->tracks[0], time, NULL, NULL, want);
    OT_NEAR(oroya_quat_length(got.rotation), 1.0, 1e-6);
    OT_NEAR(got.rotation.x, want[0], 1e-6);
    OT_NEAR(got.rotation.y, want[1], 1e-6);
    OT_NEAR(got.rotation.z, want[2], 1e-6);
    OT_NEAR(got.rotation.w, want[3], 1e-6);
}

static void cubic_play_end(cubic_play *p) {
    oroya_mixer_destroy(p->mixer);
    oroya_rig_destroy(p->rig);
    oroya_clip_destroy(p->clip);
}

/* A mixer on a rig plays a CUBICSPLINE rotation whose tangents times the key gap reach past
 * float (tangents of 1 over a gap of 1e30) with its own double sampler, as it plays STERP
 * tracks: the kernel wrote a zero or NaN rotation into the scene with OROYA_OK, where the
 * same mixer without a rig wrote oroya_track_sample's unit rotation. */
static void test_rig_cubic_rotation_past_float(void) {
    oroya_node a = {0};
    oroya_scene *scene = cubic_scene(&a);
    const float gaps[2] = {1e30f, 1e10f}, tangents[2] = {1, 1e20f};
    for (int c = 0; c < 2; c++) {
        const float times[2] = {0, gaps[c]}, m = tangents[c];
        const float values[24] = {0, 0, 0, 0, 0, 0,    0, 1,    m, 0, 0, 0,
                                  0, m, 0, 0, 0, 0.6f, 0, 0.8f, 0, 0, 0, 0};
        cubic_play p = cubic_play_start(scene, times, values);
        const double time = 0.3 * gaps[c];
        OT_EQ_INT(oroya_mixer_update(p.mixer, time), OROYA_OK);
        cubic_play_check(scene, a, &p, time);
        cubic_play_end(&p);
        const oroya_transform id = oroya_transform_identity();
        OT_EQ_INT(oroya_scene_set_transform(scene, a, &id), OROYA_OK);
    }
    oroya_scene_destroy(scene);
}

/* The same for a CUBICSPLINE rotation whose curve passes through zero: keys q then -q (one
 * rotation) with zero tangents are 0 midway, which oroya_track_sample, as three.js's normalize,
 * takes as the identity. The kernel's float normalization gave NaN there, and a mixer on a rig
 * wrote that NaN rotation into the scene with OROYA_OK (without a rig: the identity). */
static void test_rig_cubic_rotation_through_zero(void) {
    oroya_node a = {0};
    oroya_scene *scene = cubic_scene(&a);
    const float times[2] = {0, 1};
    const float values[24] = {0, 0, 0, 0, 0, 0.6f,  0, 0.8f,  0, 0, 0, 0,
                              0, 0, 0, 0, 0, -0.6f, 0, -0.8f, 0, 0, 0, 0};
    cubic_play p = cubic_play_start(scene, times, values);
    const double steps[3] = {0.25, 0.25, 0.25}; /* clip times 0.25, 0.5 (the zero), 0.75 */
    double time = 0;
    for (int i = 0; i < 3; i++) {
        time += steps[i];
        OT_EQ_INT(oroya_mixer_update(p.mixer, steps[i]), OROYA_OK);
        cubic_play_check(scene, a, &p, time);
    }
    cubic_play_end(&p);
    oroya_scene_destroy(scene);
}

int main(void) {
    OT_RUN(test_float_below);
    OT_RUN(test_clip_action_identity);
    OT_RUN(test_null_and_bad_arguments);
    OT_RUN(test_refusal_messages);
    OT_RUN(test_limits);
    OT_RUN(test_action_create_failure_messages);
    OT_RUN(test_weights_normalized_and_remainder);
    OT_RUN(test_rotation_blend_order);
    OT_RUN(test_fades);
    OT_RUN(test_cross_fade_warp);
    OT_RUN(test_time_control);
    OT_RUN(test_loops_and_events);
    OT_RUN(test_event_list_capacity);
    OT_RUN(test_deviations_1_and_2);
    OT_RUN(test_make_clip_additive);
    OT_RUN(test_additive_runtime);
    OT_RUN(test_additive_after_rig);
    OT_RUN(test_rig_clip_address_reused);
    OT_RUN(test_write_only_when_changed);
    OT_RUN(test_layout_change_and_uncache);
    OT_RUN(test_late_and_rebuilt_targets);
    OT_RUN(test_morph_weights);
    OT_RUN(test_update_does_not_allocate);
    OT_RUN(test_rig_cubic_rotation_past_float);
    OT_RUN(test_rig_cubic_rotation_through_zero);
    return ot_finish();
}
