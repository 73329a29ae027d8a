/* The mixer's oroya extensions: STERP rotation blending, per-node twist axes (default: the
 * bone's long axis), zero-axis STERP tracks, joint limits after blending.
 *
 * Expected values come from geometry computed here in double (axis-angle rotations of the
 * bone's tip), from three.js's PropertyMixer formula with a transcription of three's
 * Quaternion.slerpFlat, or from a second mixer whose behaviour is the baseline (three.js
 * semantics, checked against the oracle by the conformance suite). */
#include <stdint.h>
#include <stdlib.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rotation.h"
#include "oroya/scene.h"
#include "oroya_test.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* ---- independent double-precision geometry ---------------------------------------------- */

typedef struct {
    double x, y, z, w;
} dquat;
typedef struct {
    double x, y, z;
} dvec;

static dquat axis_angle(dvec axis, double angle) {
    double len = sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    double s = sin(angle / 2) / len;
    return (dquat){axis.x * s, axis.y * s, axis.z * s, cos(angle / 2)};
}

static dquat dmul(dquat a, dquat b) {
    return (dquat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                   a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static dvec drotate(dquat q, dvec v) {
    dquat p = {v.x, v.y, v.z, 0};
    dquat c = {-q.x, -q.y, -q.z, q.w};
    dquat r = dmul(dmul(q, p), c);
    return (dvec){r.x, r.y, r.z};
}

static double dot3(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double len3(dvec a) { return sqrt(dot3(a, a)); }
static double angle_between(dvec a, dvec b) {
    double c = dot3(a, b) / (len3(a) * len3(b));
    return acos(c > 1 ? 1 : c < -1 ? -1 : c);
}

static oroya_quat to_f(dquat q) {
    return (oroya_quat){(float)q.x, (float)q.y, (float)q.z, (float)q.w};
}

/* |q - r| or |q + r|, whichever is smaller (one rotation, two signs). */
static double quat_distance(oroya_quat q, dquat r) {
    double dp = 0, dm = 0;
    double a[4] = {q.x, q.y, q.z, q.w}, b[4] = {r.x, r.y, r.z, r.w};
    for (int i = 0; i < 4; i++) {
        dp += (a[i] - b[i]) * (a[i] - b[i]);
        dm += (a[i] + b[i]) * (a[i] + b[i]);
    }
    return sqrt(dp < dm ? dp : dm);
}

static bool same_bits(oroya_quat a, oroya_quat b) { return memcmp(&a, &b, sizeof a) == 0; }

/* three.js 0.187 Quaternion.slerpFlat, transcribed from src/math/Quaternion.js (the spec the
 * default mixer must match bit for bit). */
static void three_slerp_flat(double dst[4], const double s0[4], const double s1[4], double t) {
    double x0 = s0[0], y0 = s0[1], z0 = s0[2], w0 = s0[3];
    double x1 = s1[0], y1 = s1[1], z1 = s1[2], w1 = s1[3];
    if (w0 != w1 || x0 != x1 || y0 != y1 || z0 != z1) {
        double dot = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
        if (dot < 0) {
            x1 = -x1, y1 = -y1, z1 = -z1, w1 = -w1, dot = -dot;
        }
        double s = 1 - t;
        if (dot < 0.9995) {
            double theta = acos(dot), sn = sin(theta);
            s = sin(s * theta) / sn;
            t = sin(t * theta) / sn;
            x0 = x0 * s + x1 * t, y0 = y0 * s + y1 * t, z0 = z0 * s + z1 * t, w0 = w0 * s + w1 * t;
        } else {
            x0 = x0 * s + x1 * t, y0 = y0 * s + y1 * t, z0 = z0 * s + z1 * t, w0 = w0 * s + w1 * t;
            double f = 1 / sqrt(x0 * x0 + y0 * y0 + z0 * z0 + w0 * w0);
            x0 *= f, y0 *= f, z0 *= f, w0 *= f;
        }
    }
    dst[0] = x0, dst[1] = y0, dst[2] = z0, dst[3] = w0;
}

/* ---- scene and clip helpers ----------------------------------------------------------------- */

/* "arm" at the origin with a child "hand" at `tip` (the arm's long axis), plus a leaf bone
 * "leaf" at the top level. */
typedef struct {
    oroya_scene *scene;
    oroya_node arm, hand, leaf;
} rig;

static rig make_rig(dvec tip) {
    rig r = {0};
    OT_CHECK(oroya_scene_create(NULL, &r.scene) == OROYA_OK);
    oroya_scene_add_node(r.scene, "arm", (oroya_node){0}, OROYA_NODE_BONE, &r.arm);
    oroya_scene_add_node(r.scene, "hand", r.arm, OROYA_NODE_BONE, &r.hand);
    oroya_scene_add_node(r.scene, "leaf", (oroya_node){0}, OROYA_NODE_BONE, &r.leaf);
    oroya_transform t = oroya_transform_identity();
    t.translation = (oroya_vec3){(float)tip.x, (float)tip.y, (float)tip.z};
    oroya_scene_set_transform(r.scene, r.hand, &t);
    return r;
}

static oroya_clip *pose_clip(const char *target, oroya_quat q) {
    const float times[1] = {0};
    const float values[4] = {q.x, q.y, q.z, q.w};
    oroya_track track = {.target = target,
                         .property = OROYA_PROPERTY_ROTATION,
                         .interpolation = OROYA_INTERP_LINEAR,
                         .components = 4,
                         .key_count = 1,
                         .times = times,
                         .values = values};
    oroya_clip_desc d = {.name = "pose", .duration = 1, .tracks = &track, .track_count = 1};
    oroya_clip *clip = NULL;
    OT_CHECK(oroya_clip_create(&d, &clip, NULL) == OROYA_OK);
    return clip;
}

static dvec world_position(const rig *r, oroya_node node) {
    oroya_scene_update_world(r->scene);
    oroya_mat4 w;
    oroya_scene_get_world(r->scene, node, &w);
    return (dvec){w.m[12], w.m[13], w.m[14]};
}

static oroya_quat local_rotation(const oroya_scene *s, oroya_node node) {
    oroya_transform t;
    oroya_scene_get_transform(s, node, &t);
    return t.rotation;
}

/* The text's rod: length 10 pointing left, swung 160 degrees over the top (about -z) and
 * twisted 120 degrees about its own length. 160, not 180: a 180-degree swing is the singular
 * case where sterp and slerp coincide. */
static const dvec rod_tip = {-10, 0, 0};
static dquat rod_end(void) {
    return dmul(axis_angle((dvec){0, 0, 1}, -160 * DEG), axis_angle(rod_tip, 120 * DEG));
}

/* ---- option off: bit for bit three.js -------------------------------------------------------- */

static void run_crossfade(oroya_mixer *m, oroya_clip *ca, oroya_clip *cb, oroya_quat *poses,
                          int frames, oroya_node arm, const oroya_scene *s) {
    oroya_action *a = NULL, *b = NULL;
    oroya_mixer_play(m, ca, &a);
    oroya_mixer_play(m, cb, &b);
    oroya_action_cross_fade_to(a, b, 0.8, false);
    for (int i = 0; i < frames; i++) {
        oroya_mixer_update(m, 0.05);
        poses[i] = local_rotation(s, arm);
    }
}

static void test_off_is_bit_identical(void) {
    dquat qa = axis_angle((dvec){0, 1, 0}, 30 * DEG), qb = rod_end();
    enum { FRAMES = 20 };
    oroya_quat base[FRAMES], other[FRAMES];

    rig r0 = make_rig(rod_tip);
    oroya_clip *ca = pose_clip("arm", to_f(qa)), *cb = pose_clip("arm", to_f(qb));
    oroya_mixer *m0 = NULL;
    OT_CHECK(oroya_mixer_create(r0.scene, NULL, &m0) == OROYA_OK);
    OT_CHECK(oroya_mixer_rotation_blend(m0) == OROYA_ROTATION_BLEND_SLERP);
    run_crossfade(m0, ca, cb, base, FRAMES, r0.arm, r0.scene);

    /* Explicit SLERP, a twist-axis override, a mixer-wide STERP overridden per action to
     * SLERP: each must blend exactly as the default mixer. */
    for (int variant = 0; variant < 3; variant++) {
        rig r = make_rig(rod_tip);
        oroya_mixer *m = NULL;
        oroya_mixer_desc d = {.rotation_blend = variant == 2 ? OROYA_ROTATION_BLEND_STERP
                                                             : OROYA_ROTATION_BLEND_SLERP};
        OT_CHECK(oroya_mixer_create(r.scene, &d, &m) == OROYA_OK);
        if (variant == 1)
            OT_CHECK(oroya_mixer_set_twist_axis(m, r.arm, &(oroya_vec3){0, 0, 1}) == OROYA_OK);
        if (variant == 2) {
            oroya_action *a = NULL, *b = NULL;
            oroya_mixer_clip_action(m, ca, &a);
            oroya_mixer_clip_action(m, cb, &b);
            OT_CHECK(oroya_action_set_rotation_blend(a, OROYA_ROTATION_BLEND_SLERP) == OROYA_OK);
            OT_CHECK(oroya_action_set_rotation_blend(b, OROYA_ROTATION_BLEND_SLERP) == OROYA_OK);
        }
        run_crossfade(m, ca, cb, other, FRAMES, r.arm, r.scene);
        for (int i = 0; i < FRAMES; i++)
            OT_CHECK_MSG(same_bits(base[i], other[i]), "variant %d frame %d", variant, i);
        oroya_mixer_destroy(m);
        oroya_scene_destroy(r.scene);
    }

    /* The default mixer against three's PropertyMixer formula with fixed weights 0.7 and 0.2
     * (sum below 1: the rest comes from the original, the arm's rotation at play). */
    rig r1 = make_rig(rod_tip);
    dquat orig = axis_angle((dvec){1, 2, 3}, 40 * DEG);
    oroya_transform t = oroya_transform_identity();
    t.rotation = to_f(orig);
    oroya_scene_set_transform(r1.scene, r1.arm, &t);
    oroya_mixer *m1 = NULL;
    oroya_mixer_create(r1.scene, NULL, &m1);
    oroya_action *a = NULL, *b = NULL;
    oroya_mixer_play(m1, ca, &a);
    oroya_mixer_play(m1, cb, &b);
    oroya_action_set_effective_weight(a, 0.7);
    oroya_action_set_effective_weight(b, 0.2);
    oroya_mixer_update(m1, 0.1);
    oroya_quat fa = to_f(qa), fb = to_f(qb), fo = to_f(orig);
    double accu[4] = {fa.x, fa.y, fa.z, fa.w}, in_b[4] = {fb.x, fb.y, fb.z, fb.w};
    double in_o[4] = {fo.x, fo.y, fo.z, fo.w};
    double total = 0.7 + 0.2;
    three_slerp_flat(accu, accu, in_b, 0.2 / total);
    three_slerp_flat(accu, accu, in_o, 1 - total);
    oroya_quat expected = {(float)accu[0], (float)accu[1], (float)accu[2], (float)accu[3]};
    OT_CHECK(same_bits(local_rotation(r1.scene, r1.arm), expected));

    oroya_mixer_destroy(m0);
    oroya_mixer_destroy(m1);
    oroya_clip_destroy(ca);
    oroya_clip_destroy(cb);
    oroya_scene_destroy(r0.scene);
    oroya_scene_destroy(r1.scene);
}

/* ---- the rod through the mixer --------------------------------------------------------------- */

/* Cross-fades the rod from rest (identity) to rod_end over 1 s in 0.1 s steps and checks the
 * hand's world position at every frame. */
static void test_rod_crossfade(void) {
    dquat qb = rod_end();
    dvec pa = rod_tip, pb = drotate(qb, rod_tip);
    double arc = angle_between(pa, pb);
    OT_NEAR(arc, 160 * DEG, 1e-9);
    /* The great circle through pa and pb lies in the plane z = 0 (both tips do). */
    OT_NEAR(pb.z, 0, 1e-12);

    for (int sterp = 0; sterp < 2; sterp++) {
        rig r = make_rig(rod_tip);
        oroya_clip *ca = pose_clip("arm", (oroya_quat){0, 0, 0, 1}),
                   *cb = pose_clip("arm", to_f(qb));
        oroya_mixer *m = NULL;
        oroya_mixer_desc d = {.rotation_blend = sterp ? OROYA_ROTATION_BLEND_STERP
                                                      : OROYA_ROTATION_BLEND_DEFAULT};
        OT_CHECK(oroya_mixer_create(r.scene, &d, &m) == OROYA_OK);
        oroya_action *a = NULL, *b = NULL;
        oroya_mixer_play(m, ca, &a);
        oroya_mixer_play(m, cb, &b);
        OT_CHECK(oroya_action_cross_fade_to(a, b, 1.0, false) == OROYA_OK);
        double max_off_plane = 0;
        for (int i = 1; i <= 12; i++) {
            oroya_mixer_update(m, 0.1);
            double s = i * 0.1 < 1 ? i * 0.1 : 1; /* the fade's fraction at mixer time 0.1 i */
            dvec p = world_position(&r, r.hand);
            OT_NEAR(len3(p), 10, 1e-4);
            if (fabs(p.z) > max_off_plane)
                max_off_plane = fabs(p.z);
            if (sterp) {
                /* On the great circle, at a constant angular speed. */
                OT_NEAR(p.z, 0, 1e-4);
                OT_NEAR(angle_between(pa, p), s * arc, 1e-4);
                OT_NEAR(angle_between(pa, p) + angle_between(p, pb), arc, 1e-4);
            } else {
                /* Slerp from the identity turns about qb's own axis: a small circle. */
                double half = acos(qb.w), sh = sin(half);
                dquat qs = axis_angle((dvec){qb.x / sh, qb.y / sh, qb.z / sh}, 2 * half * s);
                dvec e = drotate(qs, rod_tip);
                OT_NEAR(p.x, e.x, 1e-4);
                OT_NEAR(p.y, e.y, 1e-4);
                OT_NEAR(p.z, e.z, 1e-4);
            }
        }
        if (sterp)
            OT_CHECK(max_off_plane < 1e-4);
        else
            OT_CHECK_MSG(max_off_plane > 1.0, "slerp stays within %g of the plane", max_off_plane);
        oroya_mixer_destroy(m);
        oroya_clip_destroy(ca);
        oroya_clip_destroy(cb);
        oroya_scene_destroy(r.scene);
    }
}

/* The remainder toward the original (one action fading in, weights below 1) also sterps when
 * the action asks for it, while the mixer stays on slerp. */
static void test_rod_fade_in_remainder(void) {
    dquat qb = rod_end();
    dvec pa = rod_tip, pb = drotate(qb, rod_tip);
    double arc = angle_between(pa, pb);
    rig r = make_rig(rod_tip);
    oroya_clip *cb = pose_clip("arm", to_f(qb));
    oroya_mixer *m = NULL;
    oroya_mixer_create(r.scene, NULL, &m);
    oroya_action *b = NULL;
    oroya_mixer_clip_action(m, cb, &b);
    OT_CHECK(oroya_action_set_rotation_blend(b, OROYA_ROTATION_BLEND_STERP) == OROYA_OK);
    OT_CHECK(oroya_action_rotation_blend(b) == OROYA_ROTATION_BLEND_STERP);
    oroya_action_play(b);
    oroya_action_fade_in(b, 1.0);
    for (int i = 1; i <= 9; i++) {
        oroya_mixer_update(m, 0.1);
        dvec p = world_position(&r, r.hand);
        OT_NEAR(p.z, 0, 1e-4);
        OT_NEAR(angle_between(pa, p), i * 0.1 * arc, 1e-4);
    }
    oroya_mixer_destroy(m);
    oroya_clip_destroy(cb);
    oroya_scene_destroy(r.scene);
}

/* ---- twist axes ------------------------------------------------------------------------------ */

static bool vec_near(oroya_vec3 v, double x, double y, double z, double tol) {
    return fabs(v.x - x) <= tol && fabs(v.y - y) <= tol && fabs(v.z - z) <= tol;
}

static void test_default_axis_resolution(void) {
    rig r = make_rig((dvec){0, 3, 4});
    oroya_mixer *m = NULL;
    oroya_mixer_create(r.scene, NULL, &m);
    oroya_vec3 axis;
    /* First child at (0, 3, 4): the unit direction (0, 0.6, 0.8). */
    OT_CHECK(oroya_mixer_get_twist_axis(m, r.arm, &axis) == OROYA_OK);
    OT_CHECK(vec_near(axis, 0, 0.6, 0.8, 1e-7));
    /* No children: zero. */
    OT_CHECK(oroya_mixer_get_twist_axis(m, r.leaf, &axis) == OROYA_OK);
    OT_CHECK(vec_near(axis, 0, 0, 0, 0));
    /* A second child does not change the first child's direction. */
    oroya_node second;
    oroya_scene_add_node(r.scene, "second", r.arm, OROYA_NODE_BONE, &second);
    oroya_transform t = oroya_transform_identity();
    t.translation = (oroya_vec3){-2, 0, 0};
    oroya_scene_set_transform(r.scene, second, &t);
    oroya_mixer_get_twist_axis(m, r.arm, &axis);
    OT_CHECK(vec_near(axis, 0, 0.6, 0.8, 1e-7));
    /* Override, any length; then back to the default. */
    OT_CHECK(oroya_mixer_set_twist_axis(m, r.arm, &(oroya_vec3){0, 0, 5}) == OROYA_OK);
    oroya_mixer_get_twist_axis(m, r.arm, &axis);
    OT_CHECK(vec_near(axis, 0, 0, 1, 0));
    OT_CHECK(oroya_mixer_set_twist_axis(m, r.arm, &(oroya_vec3){0, 0, 0}) == OROYA_OK);
    oroya_mixer_get_twist_axis(m, r.arm, &axis);
    OT_CHECK(vec_near(axis, 0, 0, 0, 0));
    OT_CHECK(oroya_mixer_set_twist_axis(m, r.arm, NULL) == OROYA_OK);
    oroya_mixer_get_twist_axis(m, r.arm, &axis);
    OT_CHECK(vec_near(axis, 0, 0.6, 0.8, 1e-7));
    /* The first child removed: the next one, (-2, 0, 0), is first now. */
    oroya_scene_remove_node(r.scene, r.hand);
    oroya_mixer_get_twist_axis(m, r.arm, &axis);
    OT_CHECK(vec_near(axis, -1, 0, 0, 1e-7));
    /* Bad arguments. */
    OT_CHECK(oroya_mixer_get_twist_axis(m, r.hand, &axis) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_get_twist_axis(m, (oroya_node){0}, &axis) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_get_twist_axis(NULL, r.arm, &axis) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_get_twist_axis(m, r.arm, NULL) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_twist_axis(m, r.hand, NULL) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_twist_axis(m, r.arm, &(oroya_vec3){NAN, 0, 1}) ==
             OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_rotation_blend(m, (oroya_rotation_blend)7) ==
             OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_rotation_blend(NULL, OROYA_ROTATION_BLEND_STERP) ==
             OROYA_ERR_INVALID_ARGUMENT);
    oroya_mixer *bad = NULL;
    OT_CHECK(oroya_mixer_create(r.scene, &(oroya_mixer_desc){.rotation_blend = 9}, &bad) ==
             OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(bad == NULL);
    oroya_mixer_destroy(m);
    oroya_scene_destroy(r.scene);
}

/* A leaf bone blends with slerp under STERP (no axis) until it gets a child: the bound axis
 * is re-read on the layout change, and the rod then follows the great circle. */
static void test_axis_rebound_on_layout_change(void) {
    dquat qb = rod_end();
    rig r = make_rig(rod_tip);
    rig base = make_rig(rod_tip);
    oroya_clip *ca = pose_clip("leaf", (oroya_quat){0, 0, 0, 1}), *cb = pose_clip("leaf", to_f(qb));
    oroya_mixer *m = NULL, *m0 = NULL;
    oroya_mixer_create(r.scene, &(oroya_mixer_desc){.rotation_blend = OROYA_ROTATION_BLEND_STERP},
                       &m);
    oroya_mixer_create(base.scene, NULL, &m0);
    oroya_action *a = NULL, *b = NULL, *a0 = NULL, *b0 = NULL;
    oroya_mixer_play(m, ca, &a);
    oroya_mixer_play(m, cb, &b);
    oroya_mixer_play(m0, ca, &a0);
    oroya_mixer_play(m0, cb, &b0);
    oroya_action_set_effective_weight(a, 0.5);
    oroya_action_set_effective_weight(b, 0.5);
    oroya_action_set_effective_weight(a0, 0.5);
    oroya_action_set_effective_weight(b0, 0.5);
    oroya_mixer_update(m, 0.1);
    oroya_mixer_update(m0, 0.1);
    /* No children: STERP is slerp, to the bit. */
    OT_CHECK(same_bits(local_rotation(r.scene, r.leaf), local_rotation(base.scene, base.leaf)));

    oroya_node tip;
    oroya_scene_add_node(r.scene, "leaf_tip", r.leaf, OROYA_NODE_BONE, &tip);
    oroya_transform t = oroya_transform_identity();
    t.translation = (oroya_vec3){-10, 0, 0};
    oroya_scene_set_transform(r.scene, tip, &t);
    oroya_action_set_effective_weight(b, 0.25); /* the blend changes, so it is written */
    oroya_mixer_update(m, 0.1);
    dvec p = world_position(&r, tip);
    OT_NEAR(p.z, 0, 1e-4);
    /* b mixes in with 0.25 / 0.75 of the arc; the total 0.75 leaves 0.25 to the original
     * (the rest pose), which takes a quarter of that back along the same circle. */
    OT_NEAR(angle_between(rod_tip, p), (0.25 / 0.75) * (1 - 0.25) * 160 * DEG, 1e-4);

    oroya_mixer_destroy(m);
    oroya_mixer_destroy(m0);
    oroya_clip_destroy(ca);
    oroya_clip_destroy(cb);
    oroya_scene_destroy(r.scene);
    oroya_scene_destroy(base.scene);
}

/* A STERP track with a zero twist axis samples with the node's axis (the bone's long axis).
 * The clip goes through oroya_clip_create, which accepts a zero axis for that reason. */
static void test_sterp_track_default_axis(void) {
    dquat qb = rod_end();
    oroya_quat fb = to_f(qb);
    static float times[2] = {0, 1};
    float values[8] = {0, 0, 0, 1, fb.x, fb.y, fb.z, fb.w};
    oroya_track track = {.target = "arm",
                         .property = OROYA_PROPERTY_ROTATION,
                         .interpolation = OROYA_INTERP_STERP,
                         .components = 4,
                         .key_count = 2,
                         .times = times,
                         .values = values};
    oroya_clip *clip = NULL;
    oroya_error cerr = {0};
    OT_EQ_INT(
        oroya_clip_create(
            &(oroya_clip_desc){.name = "sterp", .duration = 1, .tracks = &track, .track_count = 1},
            &clip, &cerr),
        OROYA_OK);
    if (!clip)
        return;
    rig r = make_rig(rod_tip);
    oroya_mixer *m = NULL;
    oroya_mixer_create(r.scene, NULL, &m); /* the mixer's blend stays slerp */
    oroya_action *a = NULL;
    OT_CHECK(oroya_mixer_play(m, clip, &a) == OROYA_OK);
    dvec pa = rod_tip, pb = drotate(qb, rod_tip);
    double arc = angle_between(pa, pb);
    for (int i = 1; i <= 9; i++) {
        oroya_mixer_update(m, 0.1);
        dvec p = world_position(&r, r.hand);
        OT_NEAR(p.z, 0, 1e-4);
        OT_NEAR(angle_between(pa, p), i * 0.1 * arc, 1e-4);
    }
    oroya_mixer_destroy(m);
    oroya_scene_destroy(r.scene);
    oroya_clip_destroy(clip);
}

/* ---- joint limits ---------------------------------------------------------------------------- */

/* The text's shoulder: the arm swings through a wide cone but twists only a little about its
 * length. Long axis +y (the elbow at (0, 3, 0)), cone 1.4 rad (80 degrees), twist +-1.2. */
static const oroya_joint_limit shoulder = {
    .twist_axis = {0, 1, 0},
    .swing = OROYA_SWING_CONE,
    .swing_max = {1.4f},
    .has_twist_limit = true,
    .twist_min = -1.2f,
    .twist_max = 1.2f,
};

/* Blends q1 and q2 half and half on "arm" (elbow at (0, 3, 0)), with or without the limit,
 * and returns the arm's local rotation (and the elbow's world position). */
static oroya_quat blend_half(dquat q1, dquat q2, bool limited, dvec *elbow) {
    rig r = make_rig((dvec){0, 3, 0});
    oroya_clip *c1 = pose_clip("arm", to_f(q1)), *c2 = pose_clip("arm", to_f(q2));
    oroya_mixer *m = NULL;
    oroya_mixer_create(r.scene, NULL, &m);
    if (limited) {
        oroya_error err = {0};
        OT_CHECK(oroya_mixer_set_joint_limit(m, r.arm, &shoulder, &err) == OROYA_OK);
    }
    oroya_action *a = NULL, *b = NULL;
    oroya_mixer_play(m, c1, &a);
    oroya_mixer_play(m, c2, &b);
    oroya_mixer_update(m, 0.1);
    oroya_quat q = local_rotation(r.scene, r.arm);
    if (elbow)
        *elbow = world_position(&r, r.hand);
    oroya_mixer_destroy(m);
    oroya_clip_destroy(c1);
    oroya_clip_destroy(c2);
    oroya_scene_destroy(r.scene);
    return q;
}

static void test_joint_limits_clamp_blend(void) {
    dvec x = {1, 0, 0}, y = {0, 1, 0};
    /* Swing 100 degrees about x with twists of 90 and 150 degrees; slerp is left-invariant,
     * so the half blend is swing 100 with twist 120: both outside. */
    dquat q1 = dmul(axis_angle(x, 100 * DEG), axis_angle(y, 90 * DEG));
    dquat q2 = dmul(axis_angle(x, 100 * DEG), axis_angle(y, 150 * DEG));
    dvec elbow;
    oroya_quat got = blend_half(q1, q2, true, &elbow);
    dquat expected = dmul(axis_angle(x, 1.4), axis_angle(y, 1.2));
    OT_NEAR(quat_distance(got, expected), 0, 2e-6);
    /* Before world matrices: the elbow sits 1.4 rad off its rest direction, still 3 away. */
    OT_NEAR(angle_between((dvec){0, 3, 0}, elbow), 1.4, 1e-5);
    OT_NEAR(len3(elbow), 3, 1e-5);
    /* Unlimited, the same blend is where the geometry says. */
    oroya_quat free_q = blend_half(q1, q2, false, NULL);
    OT_NEAR(quat_distance(free_q, dmul(axis_angle(x, 100 * DEG), axis_angle(y, 120 * DEG))), 0,
            2e-6);

    /* Twist only, 170 degrees: the nearer end around the circle is +1.2. */
    dquat t170 = axis_angle(y, 170 * DEG);
    got = blend_half(t170, t170, true, NULL);
    OT_NEAR(quat_distance(got, axis_angle(y, 1.2)), 0, 2e-6);

    /* Inside (swing 30, twist 20 as a blend of 20/10 and 40/30): untouched, bit for bit. */
    dquat in1 = dmul(axis_angle(x, 20 * DEG), axis_angle(y, 10 * DEG));
    dquat in2 = dmul(axis_angle(x, 40 * DEG), axis_angle(y, 30 * DEG));
    OT_CHECK(same_bits(blend_half(in1, in2, true, NULL), blend_half(in1, in2, false, NULL)));
}

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

static void test_joint_limit_table(void) {
    rig r = make_rig((dvec){0, 3, 0});
    oroya_mixer *m = NULL;
    oroya_mixer_desc d = {.allocator = {counting_alloc, counting_free, NULL},
                          .rotation_blend = OROYA_ROTATION_BLEND_STERP};
    OT_CHECK(oroya_mixer_create(r.scene, &d, &m) == OROYA_OK);
    oroya_error err = {0};
    oroya_joint_limit bad = shoulder;
    bad.twist_min = 2.0f; /* above twist_max */
    OT_CHECK(oroya_mixer_set_joint_limit(m, r.arm, &bad, &err) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "arm") != NULL);
    OT_CHECK(strstr(err.message, "twist_min") != NULL);
    OT_CHECK(oroya_mixer_set_joint_limit(NULL, r.arm, &shoulder, &err) ==
             OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_joint_limit(m, (oroya_node){0}, &shoulder, &err) ==
             OROYA_ERR_INVALID_ARGUMENT);
    oroya_joint_limit got;
    OT_CHECK(oroya_mixer_get_joint_limit(m, r.arm, &got) == OROYA_ERR_NOT_FOUND);
    OT_CHECK(oroya_mixer_set_joint_limit(m, r.arm, NULL, &err) == OROYA_OK); /* nothing there */
    OT_CHECK(oroya_mixer_set_joint_limit(m, r.arm, &shoulder, &err) == OROYA_OK);
    OT_CHECK(oroya_mixer_set_joint_limit(m, r.leaf, &shoulder, &err) == OROYA_OK);
    OT_CHECK(oroya_mixer_get_joint_limit(m, r.arm, &got) == OROYA_OK);
    OT_CHECK(got.twist_max == shoulder.twist_max && got.swing == OROYA_SWING_CONE);

    /* A pose the limit clamps; update does not allocate (STERP and limits included). */
    dquat far = axis_angle((dvec){0, 1, 0}, 170 * DEG);
    oroya_clip *c = pose_clip("arm", to_f(far));
    oroya_action *a = NULL;
    oroya_mixer_play(m, c, &a);
    int before = alloc_count;
    for (int i = 0; i < 30; i++)
        oroya_mixer_update(m, 1.0 / 30);
    OT_EQ_INT(alloc_count, before);
    OT_NEAR(quat_distance(local_rotation(r.scene, r.arm), axis_angle((dvec){0, 1, 0}, 1.2)), 0,
            2e-6);
    /* The leaf is not animated but limited: its identity rotation is inside and stays. */
    OT_CHECK(same_bits(local_rotation(r.scene, r.leaf), (oroya_quat){0, 0, 0, 1}));

    /* Removed: the next changing blend is written unclamped. */
    OT_CHECK(oroya_mixer_set_joint_limit(m, r.arm, NULL, &err) == OROYA_OK);
    OT_CHECK(oroya_mixer_get_joint_limit(m, r.arm, &got) == OROYA_ERR_NOT_FOUND);
    oroya_action_set_effective_weight(a, 0.999);
    oroya_mixer_update(m, 0.1);
    OT_CHECK(fabs(oroya_quat_twist_angle(local_rotation(r.scene, r.arm), (oroya_vec3){0, 1, 0})) >
             2.9);

    /* A limited node removed from the scene: its limit is dropped at the next update. */
    OT_CHECK(oroya_mixer_get_joint_limit(m, r.leaf, &got) == OROYA_OK);
    oroya_node leaf = r.leaf;
    oroya_scene_remove_node(r.scene, r.leaf);
    OT_CHECK(oroya_mixer_update(m, 0.1) == OROYA_OK);
    OT_CHECK(oroya_mixer_get_joint_limit(m, leaf, &got) == OROYA_ERR_NOT_FOUND);

    oroya_mixer_destroy(m);
    oroya_clip_destroy(c);
    oroya_scene_destroy(r.scene);
}

int main(void) {
    OT_RUN(test_off_is_bit_identical);
    OT_RUN(test_rod_crossfade);
    OT_RUN(test_rod_fade_in_remainder);
    OT_RUN(test_default_axis_resolution);
    OT_RUN(test_axis_rebound_on_layout_change);
    OT_RUN(test_sterp_track_default_axis);
    OT_RUN(test_joint_limits_clamp_blend);
    OT_RUN(test_joint_limit_table);
    return ot_finish();
}
