/* Runtime hardening: mixer calls made from inside the event callback, and huge finite inputs
 * that must not turn into inf or NaN (rotations, world matrices, cubic tangents, additive
 * weights, warps). docs/robustness.md lists the rules these check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/ik.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"
#include "internal/scene.h"
#include "oroya/track.h"
#include "oroya_test.h"

static oroya_scene *one_node_scene(oroya_node *node) {
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s, "a", (oroya_node){0}, OROYA_NODE_OBJECT, node) == OROYA_OK);
    return s;
}

/* x goes from 0 to 1 over `duration` seconds on node "a". */
static oroya_clip *line_clip(const char *name, float duration) {
    float times[2] = {0, duration};
    float values[6] = {0, 0, 0, 1, 0, 0};
    oroya_track t = {.target = "a",
                     .property = OROYA_PROPERTY_TRANSLATION,
                     .interpolation = OROYA_INTERP_LINEAR,
                     .components = 3,
                     .key_count = 2,
                     .times = times,
                     .values = values};
    oroya_clip_desc d = {.name = name, .duration = duration, .tracks = &t, .track_count = 1};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(&d, &c, NULL) == OROYA_OK);
    return c;
}

/* ---- mixer calls from the event callback ---------------------------------------------------- */

typedef enum reentry_op {
    OP_UNCACHE_CLIP,
    OP_UNCACHE_ACTION,
    OP_STOP_ALL,
    OP_STOP,
    OP_UPDATE,
    OP_SET_TIME,
    OP_PLAY_OTHER,
    OP_CLIP_ACTION,
    OP_RESET,
    OP_DESTROY,
    OP_COUNT
} reentry_op;

typedef struct reentry {
    reentry_op op;
    oroya_mixer *mixer;
    oroya_clip *clip, *other;
    int calls;
    oroya_result result; /* of the call made from the callback */
} reentry;

static void reentry_event(const oroya_event *e, void *user) {
    reentry *r = user;
    r->calls++;
    oroya_action *b = NULL;
    switch (r->op) {
    case OP_UNCACHE_CLIP: r->result = oroya_mixer_uncache_clip(r->mixer, r->clip); break;
    case OP_UNCACHE_ACTION: r->result = oroya_mixer_uncache_action(r->mixer, e->action); break;
    case OP_STOP_ALL: oroya_mixer_stop_all(r->mixer); break;
    case OP_STOP: oroya_action_stop(e->action); break;
    case OP_UPDATE: r->result = oroya_mixer_update(r->mixer, 0.5); break;
    case OP_SET_TIME: r->result = oroya_mixer_set_time(r->mixer, 0.25); break;
    case OP_PLAY_OTHER: r->result = oroya_mixer_play(r->mixer, r->other, &b); break;
    case OP_CLIP_ACTION: r->result = oroya_mixer_clip_action(r->mixer, r->other, &b); break;
    case OP_RESET: oroya_action_reset(e->action); break;
    case OP_DESTROY: oroya_mixer_destroy(r->mixer); break;
    case OP_COUNT: break;
    }
}

/* Every op from inside the callback, with a looping action and a once action both raising
 * events in the same update: no use after free (ASan and valgrind watch), the refused calls
 * return OROYA_ERR_BUSY and change nothing, and the mixer keeps working after. */
static void test_callback_reentry(void) {
    for (int op = 0; op < OP_COUNT; op++) {
        oroya_node n;
        oroya_scene *s = one_node_scene(&n);
        reentry r = {.op = (reentry_op)op, .result = OROYA_OK};
        r.clip = line_clip("loop", 1);
        oroya_clip *once = line_clip("once", 1);
        r.other = line_clip("other", 1);
        OT_CHECK(oroya_mixer_create(s, &(oroya_mixer_desc){.on_event = reentry_event, .user = &r},
                                    &r.mixer) == OROYA_OK);
        oroya_action *a = NULL, *o = NULL;
        OT_CHECK(oroya_mixer_play(r.mixer, r.clip, &a) == OROYA_OK);
        OT_CHECK(oroya_mixer_play(r.mixer, once, &o) == OROYA_OK);
        oroya_action_set_loop(o, OROYA_LOOP_ONCE, 1);
        OT_CHECK(oroya_mixer_update(r.mixer, 0.5) == OROYA_OK);
        OT_EQ_INT(r.calls, 0);
        oroya_result u = oroya_mixer_update(r.mixer, 0.75); /* both actions raise an event */
        OT_CHECK_MSG(u == OROYA_OK, "op %d: update gave %s", op, oroya_result_string(u));
        OT_CHECK_MSG(r.calls >= 1, "op %d: %d calls", op, r.calls);
        if (op == OP_UNCACHE_CLIP || op == OP_UNCACHE_ACTION || op == OP_UPDATE ||
            op == OP_SET_TIME) {
            OT_CHECK_MSG(r.result == OROYA_ERR_BUSY, "op %d: got %s", op,
                         oroya_result_string(r.result));
            OT_EQ_INT(oroya_mixer_active_action_count(r.mixer), 2);
        } else {
            OT_CHECK_MSG(r.result == OROYA_OK, "op %d: got %s", op, oroya_result_string(r.result));
        }
        if (op != OP_DESTROY) {
            /* Outside the callback the same calls work. */
            r.op = OP_COUNT;
            OT_CHECK(oroya_mixer_uncache_clip(r.mixer, r.clip) == OROYA_OK);
            OT_CHECK(oroya_mixer_update(r.mixer, 0.5) == OROYA_OK);
            oroya_mixer_destroy(r.mixer);
        }
        oroya_clip_destroy(r.clip);
        oroya_clip_destroy(once);
        oroya_clip_destroy(r.other);
        oroya_scene_destroy(s);
    }
}

/* ---- huge finite inputs ------------------------------------------------------------------ */

static bool mat_finite(const oroya_mat4 *m) {
    for (int i = 0; i < 16; i++) {
        if (!isfinite(m->m[i])) {
            return false;
        }
    }
    return true;
}

/* A rotation of (1e20, 0, 0, 1e20) is finite but squares past the float range in the matrix:
 * set_transform refuses it and keeps the old transform. */
static void test_huge_rotation_refused(void) {
    oroya_node n;
    oroya_scene *s = one_node_scene(&n);
    oroya_transform t = oroya_transform_identity();
    t.rotation = (oroya_quat){1e20f, 0, 0, 1e20f};
    OT_EQ_INT(oroya_scene_set_transform(s, n, &t), OROYA_ERR_NON_FINITE);
    oroya_transform got;
    OT_CHECK(oroya_scene_get_transform(s, n, &got) == OROYA_OK);
    OT_CHECK(got.rotation.w == 1.0f && got.rotation.x == 0.0f);
    /* A large but harmless non-unit rotation is still taken as it is (three.js composes it). */
    t.rotation = (oroya_quat){0, 0, 1, 1};
    OT_EQ_INT(oroya_scene_set_transform(s, n, &t), OROYA_OK);
    oroya_scene_destroy(s);
}

/* What set_transform cannot see: the dense array written directly (as the mixer does), and
 * an overflow along the chain (parent scale 1e30, child translation 1e10). update_world keeps
 * every world matrix finite, puts the node at its parent's origin and reports it. */
static void test_world_overflow_guarded(void) {
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    oroya_node a, b, c;
    OT_CHECK(oroya_scene_add_node(s, "a", (oroya_node){0}, OROYA_NODE_OBJECT, &a) == OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s, "b", a, OROYA_NODE_OBJECT, &b) == OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s, "c", b, OROYA_NODE_OBJECT, &c) == OROYA_OK);
    oroya_transform t = oroya_transform_identity();
    t.scale = (oroya_vec3){1e30f, 1e30f, 1e30f};
    OT_EQ_INT(oroya_scene_set_transform(s, a, &t), OROYA_OK);
    t = oroya_transform_identity();
    t.translation = (oroya_vec3){1e10f, 0, 0};
    OT_EQ_INT(oroya_scene_set_transform(s, b, &t), OROYA_OK);
    t = oroya_transform_identity();
    t.translation = (oroya_vec3){1, 2, 3};
    OT_EQ_INT(oroya_scene_set_transform(s, c, &t), OROYA_OK);
    oroya_scene_update_world(s);
    oroya_mat4 wa, wb, wc;
    oroya_scene_get_world(s, a, &wa);
    oroya_scene_get_world(s, b, &wb);
    oroya_scene_get_world(s, c, &wc);
    OT_CHECK(mat_finite(&wa) && mat_finite(&wb) && mat_finite(&wc));
    OT_CHECK(memcmp(&wb, &wa, sizeof wa) == 0); /* b sits at a's origin */
    OT_NEAR(wc.m[12], 1e30, 1e24);              /* c is b's child: 1 * 1e30 */
    oroya_node first;
    OT_EQ_INT(oroya_scene_non_finite_count(s, &first), 1);
    OT_EQ_INT(first.id, b.id);
    /* The dense array, written directly. */
    oroya_transform *dense = oroya_scene_transforms(s);
    dense[oroya_scene_node_index(s, a)] = oroya_transform_identity();
    dense[oroya_scene_node_index(s, c)].rotation = (oroya_quat){1e20f, 0, 0, 1e20f};
    oroya_scene_update_world(s);
    oroya_scene_get_world(s, c, &wc);
    oroya_scene_get_world(s, b, &wb);
    OT_CHECK(mat_finite(&wc));
    OT_CHECK(memcmp(&wc, &wb, sizeof wb) == 0);
    OT_EQ_INT(oroya_scene_non_finite_count(s, &first), 1);
    OT_EQ_INT(first.id, c.id);
    /* A partial update from a later node (as IK does) keeps the report of the earlier one. */
    dense[oroya_scene_node_index(s, c)] = oroya_transform_identity();
    dense[oroya_scene_node_index(s, a)].rotation = (oroya_quat){1e20f, 0, 0, 1e20f};
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_scene_non_finite_count(s, &first), 1);
    oroya__scene_update_world_from(s, oroya_scene_node_index(s, b));
    OT_EQ_INT(oroya_scene_non_finite_count(s, &first), 1);
    OT_EQ_INT(first.id, a.id);
    dense[oroya_scene_node_index(s, a)] = oroya_transform_identity();
    /* All finite again: the count goes back to 0. */
    dense[oroya_scene_node_index(s, c)] = oroya_transform_identity();
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_scene_non_finite_count(s, &first), 0);
    OT_EQ_INT(first.id, 0);
    oroya_scene_destroy(s);
    /* The reported node removed before the next update: not mistaken for the node that took
     * its dense index (the report named "y", finite and alive). */
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    oroya_node x, y;
    oroya_scene_add_node(s, "x", (oroya_node){0}, OROYA_NODE_OBJECT, &x);
    oroya_scene_add_node(s, "y", (oroya_node){0}, OROYA_NODE_OBJECT, &y);
    oroya_scene_transforms(s)[oroya_scene_node_index(s, x)].translation.x = NAN;
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_scene_non_finite_count(s, &first), 1);
    OT_EQ_INT(first.id, x.id);
    OT_CHECK(oroya_scene_remove_node(s, x) == OROYA_OK);
    OT_EQ_INT(oroya_scene_non_finite_count(s, &first), 1);
    OT_EQ_INT(first.id, 0);
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_scene_non_finite_count(s, &first), 0);
    oroya_scene_destroy(s);
}

/* A CUBICSPLINE tangent of 3e38 over a 1000 s key gap: the Hermite reaches 1e41, past the
 * float range. clip_create refuses it naming the track and keys; a tangent the float range
 * holds is fine. */
static void test_cubic_overflow_refused(void) {
    float times[2] = {0, 1000};
    /* per key: in-tangent, value, out-tangent (1 component: a weights track) */
    float values[6] = {0, 0, 3e38f, 0, 1, 0};
    oroya_track t = {.target = "a",
                     .property = OROYA_PROPERTY_WEIGHTS,
                     .interpolation = OROYA_INTERP_CUBICSPLINE,
                     .components = 1,
                     .key_count = 2,
                     .times = times,
                     .values = values};
    oroya_clip_desc d = {.name = "c", .duration = 1000, .tracks = &t, .track_count = 1};
    oroya_clip *c = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_create(&d, &c, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "tracks[0]") && strstr(err.message, "keys 0-1") &&
                     strstr(err.message, "float range"),
                 "%s", err.message);
    OT_CHECK(c == NULL);
    /* Inside float, but past OROYA_MAX_KEY_VALUE (1e18): 1e33 over the gap, times 4/27. */
    values[2] = 1e30f;
    OT_EQ_INT(oroya_clip_create(&d, &c, &err), OROYA_ERR_LIMIT);
    OT_CHECK_MSG(strstr(err.message, "keys 0-1") && strstr(err.message, "OROYA_MAX_KEY_VALUE"),
                 "%s", err.message);
    OT_CHECK(c == NULL);
    values[2] = 1e14f; /* 1.5e16 at most: inside */
    OT_EQ_INT(oroya_clip_create(&d, &c, &err), OROYA_OK);
    float out = 0;
    for (double x = 0; x <= 1000; x += 50) {
        oroya_track_sample(&c->tracks[0], x, NULL, NULL, &out);
        OT_CHECK(isfinite(out));
    }
    oroya_clip_destroy(c);
}

/* An additive action with effective weight 1e300 wrote inf into the scene; weights are
 * now bounded by OROYA_MAX_WEIGHT, and a weight at the bound keeps the scene finite. */
static void test_additive_weight_bounded(void) {
    oroya_node n;
    oroya_scene *s = one_node_scene(&n);
    oroya_clip *c = line_clip("add", 1);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(s, NULL, &m) == OROYA_OK);
    oroya_action *a = NULL;
    oroya_action_desc ad = {.has_blend_mode = true, .blend_mode = OROYA_BLEND_ADDITIVE};
    OT_CHECK(oroya_action_create(m, c, &ad, &a) == OROYA_OK);
    oroya_action_play(a);
    OT_EQ_INT(oroya_action_set_effective_weight(a, 1e300), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_action_set_weight(a, -1e300), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_action_set_weight(a, NAN), OROYA_ERR_INVALID_ARGUMENT);
    OT_NEAR(oroya_action_weight(a), 1, 0);
    OT_EQ_INT(oroya_action_set_effective_weight(a, OROYA_MAX_WEIGHT), OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.5) == OROYA_OK);
    oroya_scene_update_world(s);
    oroya_transform t;
    oroya_scene_get_transform(s, n, &t);
    OT_CHECK(isfinite(t.translation.x));
    OT_EQ_INT(oroya_scene_non_finite_count(s, NULL), 0);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

/* warp(1e300, -1e300, 1e-300) stored inf and -inf as the float ramp and made the action's
 * time NaN. Refused now; the time stays finite. */
static void test_warp_overflow_refused(void) {
    oroya_node n;
    oroya_scene *s = one_node_scene(&n);
    oroya_clip *c = line_clip("w", 1);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(s, NULL, &m) == OROYA_OK);
    oroya_action *a = NULL;
    OT_CHECK(oroya_mixer_play(m, c, &a) == OROYA_OK);
    OT_EQ_INT(oroya_action_warp(a, 1e300, -1e300, 1e-300), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(!oroya_action_is_warping(a));
    OT_EQ_INT(oroya_action_set_time_scale(a, 1e-30), OROYA_OK);
    OT_EQ_INT(oroya_action_warp(a, 1e10, 1, 1), OROYA_ERR_INVALID_ARGUMENT); /* ratio 1e40 */
    OT_EQ_INT(oroya_action_set_time_scale(a, 1), OROYA_OK);
    OT_EQ_INT(oroya_action_warp(a, 2, 0.5, 1e-300), OROYA_OK);
    OT_CHECK(oroya_mixer_update(m, 0.25) == OROYA_OK);
    OT_CHECK(isfinite(oroya_action_time(a)));
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

/* The rig-backed mixer's bone and model matrices (the pose kernel) under a clip whose scale
 * keys of 1e10 on five nested joints multiply past float by the fourth: they gave inf and NaN
 * bone matrices with OK. Now joints 3 and 4 are held at joint 2's world matrix, as
 * oroya_scene_update_world holds the same nodes, so the kernel's model matrices equal the
 * scene's world matrices, and both counts name joint 3. The same with an IK list set (the
 * pass with IK points). */
static void test_kernel_overflow_held(void) {
    enum { N = 5 };
    for (int with_ik = 0; with_ik < 2; with_ik++) {
        oroya_scene *s = NULL;
        OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
        oroya_node n[N], parent = {0};
        static const char *const names[N] = {"j0", "j1", "j2", "j3", "j4"};
        for (int i = 0; i < N; i++) {
            OT_EQ_INT(oroya_scene_add_node(s, names[i], parent, OROYA_NODE_BONE, &n[i]), OROYA_OK);
            oroya_transform t = oroya_transform_identity();
            t.translation.y = i ? 1.0f : 0.0f;
            OT_EQ_INT(oroya_scene_set_transform(s, n[i], &t), OROYA_OK);
            parent = n[i];
        }
        static const float times[2] = {0, 1};
        static const float big[6] = {1e10f, 1e10f, 1e10f, 1e10f, 1e10f, 1e10f};
        oroya_track tr[N];
        for (int i = 0; i < N; i++)
            tr[i] = (oroya_track){.target = names[i],
                                  .property = OROYA_PROPERTY_SCALE,
                                  .interpolation = OROYA_INTERP_LINEAR,
                                  .components = 3,
                                  .key_count = 2,
                                  .times = times,
                                  .values = big};
        oroya_clip *clip = NULL;
        oroya_error err = {0};
        OT_EQ_INT(
            oroya_clip_create(&(oroya_clip_desc){.name = "big", .tracks = tr, .track_count = N},
                              &clip, &err),
            OROYA_OK);
        const oroya_clip *clips[1] = {clip};
        oroya_rig *rig = NULL;
        OT_EQ_INT(
            oroya_rig_create(
                &(oroya_rig_desc){
                    .scene = s, .joints = n, .joint_count = N, .clips = clips, .clip_count = 1},
                &rig, &err),
            OROYA_OK);
        oroya_mixer *m = NULL;
        OT_EQ_INT(oroya_mixer_create(s, &(oroya_mixer_desc){.rig = rig}, &m), OROYA_OK);
        oroya_ik ik = {.type = OROYA_IK_AIM,
                       .name = "off",
                       .joints = {0},
                       .joint_count = 1,
                       .forward = {0, 0, 1},
                       .target = {0, 0, 5},
                       .weight = 0};
        if (with_ik)
            OT_EQ_INT(oroya_mixer_set_ik(m, &ik, 1, &err), OROYA_OK);
        oroya_action *a = NULL;
        OT_EQ_INT(oroya_mixer_play(m, clip, &a), OROYA_OK);
        OT_EQ_INT(oroya_mixer_update(m, 0.25), OROYA_OK);
        OT_CHECK(oroya_mixer_kernel_active(m));
        uint32_t count = 0;
        const oroya_mat4 *bones = oroya_mixer_bone_matrices(m, &count);
        const oroya_mat4 *models = oroya_mixer_model_matrices(m, NULL);
        OT_EQ_INT(count, N);
        OT_CHECK(ot_all_finite(bones[0].m, N * 16) && ot_all_finite(models[0].m, N * 16));
        oroya_node first = {0};
        OT_EQ_INT(oroya_mixer_non_finite_count(m, &first), 2);
        OT_CHECK(first.id == n[3].id);
        oroya_scene_update_world(s);
        oroya_node scene_first = {0};
        OT_EQ_INT(oroya_scene_non_finite_count(s, &scene_first), 2);
        OT_CHECK(scene_first.id == n[3].id);
        for (uint32_t k = 0; k < N; k++) {
            oroya_mat4 w;
            OT_EQ_INT(oroya_scene_get_world(s, oroya_rig_kernel_node(rig, k), &w), OROYA_OK);
            double worst = 0;
            for (int e = 0; e < 16; e++) {
                const double scale = fmax(1.0, fabs((double)w.m[e]));
                worst = fmax(worst, fabs((double)w.m[e] - (double)models[k].m[e]) / scale);
            }
            OT_CHECK_MSG(worst < 1e-6, "joint %u: kernel and scene differ by %g", k, worst);
        }
        /* The action at weight 0: the rest pose (scale 1), nothing held any more. */
        OT_EQ_INT(oroya_action_set_effective_weight(a, 0), OROYA_OK);
        OT_EQ_INT(oroya_mixer_update(m, 0.25), OROYA_OK);
        first = n[0];
        OT_EQ_INT(oroya_mixer_non_finite_count(m, &first), 0);
        OT_CHECK(first.id == 0);
        oroya_mixer_destroy(m);
        oroya_rig_destroy(rig);
        oroya_clip_destroy(clip);
        oroya_scene_destroy(s);
    }
}

int main(void) {
    OT_RUN(test_callback_reentry);
    OT_RUN(test_huge_rotation_refused);
    OT_RUN(test_world_overflow_guarded);
    OT_RUN(test_cubic_overflow_refused);
    OT_RUN(test_additive_weight_bounded);
    OT_RUN(test_warp_overflow_refused);
    OT_RUN(test_kernel_overflow_held);
    return ot_finish();
}
