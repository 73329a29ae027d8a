/* IK with inputs that are legal but extreme, or that changed after set-up: one regression test
 * per defect an adversarial review found (each failed before its fix):
 *   - an aim's forward or up of any length is a direction (lengths whose squares overflow or
 *     underflow float wrote no aim, a zero quaternion, or the wrong twist);
 *   - a chain under a reflection (a negative scale) is refused at set-up and falls back at run
 *     time (it was solved as if it were a rotation, and missed);
 *   - limits made invalid after set-up are a fallback, not dropped;
 *   - after-the-pass IKs whose joints stopped being a parent chain fall back;
 *   - a non-unit rotation between a chain's joints: the chain from the matrices, as the pass
 *     composes them (the kernel missed by up to 0.2);
 *   - an aim target on the aiming joint at run time is a fallback;
 *   - a two-bone pole or target whose squared length float cannot hold goes to the double
 *     solver (the float path wrote a zero quaternion);
 *   - a negative scale on a chain's path (a reflection, or a half turn kept in the scale) is
 *     refused at set-up and a fallback at run time on every path (solved wrongly before);
 *   - a review of those fixes: the float two-bone path's limits checked as the double
 *     solver's, the after-the-pass run's long paths and non-chains, an aim's non-unit end
 *     rotation taken as the scene path takes it, the scene path's non-chains. */
#include "oroya/ik.h"
#include "oroya/mixer.h"
#include "oroya/pose.h"
#include "oroya/rig.h"
#include "oroya/scene.h"

#include "oroya_test.h"

#include "ik_test_rig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A pose character at rest (rest_in, or rest_pose), updated once without IK. */
static oroya_pose_character *make_character(oroya_pose_skeleton **skel_out,
                                            const oroya_transform *rest_in) {
    oroya_transform rest[J];
    rest_pose(rest);
    if (rest_in) {
        memcpy(rest, rest_in, sizeof rest);
    }
    oroya_pose_skeleton *skel = NULL;
    oroya_pose_character *ch = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_pose_skeleton_create(
                     &(oroya_pose_skeleton_desc){
                         .joint_count = J, .parents = parents, .rest = rest, .names = names},
                     &skel, &err) == OROYA_OK,
                 "%s", err.message);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &ch,
                                         &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    *skel_out = skel;
    return ch;
}

static void destroy_character(oroya_pose_character *ch, oroya_pose_skeleton *skel) {
    oroya_pose_character_destroy(ch);
    oroya_pose_skeleton_destroy(skel);
}

static oroya_quat local_rotation(const oroya_pose_character *ch, uint32_t j) {
    const oroya_soa_transform *b = &oroya_pose_character_locals(ch)[j / 4];
    return (oroya_quat){b->qx[j % 4], b->qy[j % 4], b->qz[j % 4], b->qw[j % 4]};
}

/* The angle between unit rotations a and b (q and -q are one), from the chord |a - b|: no
 * acos, which turns a float rounding near 1 into 3e-4 rad. */
static double quat_angle(oroya_quat a, oroya_quat b) {
    const double d = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
    const double s = d < 0 ? -1 : 1;
    const double x = a.x - s * b.x, y = a.y - s * b.y, z = a.z - s * b.z, w = a.w - s * b.w;
    const double chord = sqrt(x * x + y * y + z * z + w * w) / 2;
    return 4 * asin(chord < 1 ? chord : 1);
}

static bool unit(oroya_quat q) {
    const double l =
        sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    return fabs(l - 1) < 1e-5;
}

static oroya_vec3 position(const oroya_mat4 *m) {
    return (oroya_vec3){m->m[12], m->m[13], m->m[14]};
}

static double distance(oroya_vec3 a, oroya_vec3 b) {
    const double x = (double)a.x - b.x, y = (double)a.y - b.y, z = (double)a.z - b.z;
    return sqrt(x * x + y * y + z * z);
}

static oroya_ik neck_aim(void) {
    return (oroya_ik){.type = OROYA_IK_AIM,
                      .name = "head",
                      .joints = {6, 7},
                      .joint_count = 2,
                      .shares = {0.4f, 0.6f},
                      .forward = {0, 0, 1},
                      .up = {0, 1, 0},
                      .target = {2, 2.5f, 3},
                      .weight = 1};
}

/* A two-bone IK named "leg" on joints a, b, c, pole +z, weight 1. */
static oroya_ik leg_ik(uint32_t a, uint32_t b, uint32_t c, oroya_vec3 target) {
    return (oroya_ik){.type = OROYA_IK_TWO_BONE,
                      .name = "leg",
                      .joints = {a, b, c},
                      .target = target,
                      .pole = {0, 0, 1},
                      .weight = 1};
}

/* The set-up refuses ik on a rig at rest on both the kernel and the scene path:
 * INVALID_DATA, the kernel's message containing `kernel_msg`, the scene's `scene_msg`. */
static void expect_setup_refused(const oroya_transform *rest, const oroya_ik *ik,
                                 const char *kernel_msg, const char *scene_msg) {
    oroya_error err = {0};
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, rest);
    OT_EQ_INT(oroya_pose_character_set_ik(ch, ik, 1, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, kernel_msg) != NULL, "%s", err.message);
    destroy_character(ch, skel);
    oroya_scene *scene = make_scene(rest);
    OT_EQ_INT(oroya_ik_scene_validate(scene, ik, 1, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, scene_msg) != NULL, "%s", err.message);
    oroya_scene_destroy(scene);
}

/* forward and up are directions: any length gives the unit-length result (within float
 * rounding), on the kernel (float path or double solver, by length) and the scene path. */
static void test_aim_direction_lengths(void) {
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, NULL);
    oroya_ik ik = neck_aim();
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, &ik, 1, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    const oroya_quat want[2] = {local_rotation(ch, 6), local_rotation(ch, 7)};
    /* The scene path's result at unit lengths. */
    oroya_scene *ref = make_scene(NULL);
    OT_CHECK(oroya_ik_scene_apply(ref, &ik, 1, &err) == OROYA_OK);
    const oroya_quat want_scene[2] = {oroya_scene_transforms(ref)[6].rotation,
                                      oroya_scene_transforms(ref)[7].rotation};
    static const float scales[] = {1e-15f, 1e-13f, 1e-4f, 1e13f, 1e15f, 5e18f, 1e20f, 1e30f};
    for (int which = 0; which < 2; which++) {
        for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
            const float s = scales[k];
            ik = neck_aim();
            if (which == 0) {
                if (s < 1e-5f) {
                    continue; /* a forward below 1e-6 is the documented "zero forward" */
                }
                ik.forward = (oroya_vec3){0, 0, s};
            } else {
                ik.up = (oroya_vec3){0, s, 0};
            }
            OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
            OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0);
            for (int j = 0; j < 2; j++) {
                const oroya_quat q = local_rotation(ch, 6 + (uint32_t)j);
                OT_CHECK_MSG(unit(q) && quat_angle(q, want[j]) < 1e-5,
                             "kernel, %s x %g: joint %d off by %g rad", which ? "up" : "forward",
                             (double)s, 6 + j, quat_angle(q, want[j]));
            }
            oroya_scene *scene = make_scene(NULL);
            OT_CHECK(oroya_ik_scene_apply(scene, &ik, 1, &err) == OROYA_OK);
            for (int j = 0; j < 2; j++) {
                const oroya_quat q = oroya_scene_transforms(scene)[6 + j].rotation;
                OT_CHECK_MSG(unit(q) && quat_angle(q, want_scene[j]) < 1e-5,
                             "scene, %s x %g: joint %d off by %g rad", which ? "up" : "forward",
                             (double)s, 6 + j, quat_angle(q, want_scene[j]));
            }
            oroya_scene_destroy(scene);
        }
    }
    oroya_scene_destroy(ref);
    destroy_character(ch, skel);
}

/* A chain under a mirroring parent (hips scaled by -1: every chain joint's world matrix is a
 * reflection) has no rotation to solve with: the set-up refuses it on every path, and the
 * scene path falls back when the scale turns negative after set-up. */
static void test_reflected_chain(void) {
    oroya_transform rest[J];
    rest_pose(rest);
    rest[0].scale = (oroya_vec3){-1, -1, -1};
    const oroya_ik leg = leg_ik(1, 2, 3, (oroya_vec3){0.25f, 0.45f, 0.45f});
    oroya_error err = {0};
    expect_setup_refused(rest, &leg, "joints[0] (thigh): world matrix is a reflection",
                         "reflection");
    oroya_scene *scene;
    /* Valid at set-up, mirrored before the run: the chain as it was, bit for bit. */
    scene = make_scene(NULL);
    OT_EQ_INT(oroya_ik_scene_validate(scene, &leg, 1, &err), OROYA_OK);
    oroya_scene_set_transform(scene, oroya_scene_node_at(scene, 0), &rest[0]);
    oroya_scene_update_world(scene);
    oroya_transform before[J];
    memcpy(before, oroya_scene_transforms(scene), sizeof before);
    OT_EQ_INT(oroya_ik_scene_apply(scene, &leg, 1, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "reflection") != NULL, "%s", err.message);
    OT_CHECK(memcmp(before, oroya_scene_transforms(scene), sizeof before) == 0);
    oroya_scene_destroy(scene);
}

/* Limits the clamp refuses (a NaN or negative swing, a zero twist axis, twist_min above
 * twist_max), given straight to the solver or made so after set-up, are a fallback: the
 * rotations as they came, never unlimited ones. */
static void test_invalid_limits_at_run_time(void) {
    oroya_scene *scene = make_scene(NULL);
    const oroya_mat4 *w = oroya_scene_world_matrices(scene);
    const oroya_transform *tr = oroya_scene_transforms(scene);
    oroya_joint_limit lim[2];
    oroya_ik ik = neck_aim();
    ik.limits = lim;
    oroya_mat4 chain[2] = {w[6], w[7]};
    const oroya_quat in[2] = {tr[6].rotation, tr[7].rotation};
    oroya_error err = {0};
    for (int c = 0; c < 5; c++) {
        for (int k = 0; k < 2; k++) {
            lim[k] = (oroya_joint_limit){
                .twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {0.05f}};
        }
        if (c == 1) {
            lim[0].swing_max[0] = NAN;
        } else if (c == 2) {
            lim[0].swing_max[0] = -1;
        } else if (c == 3) {
            lim[1].twist_axis = (oroya_vec3){0, 0, 0};
        } else if (c == 4) {
            lim[1] = (oroya_joint_limit){.twist_axis = {0, 1, 0},
                                         .has_twist_limit = true,
                                         .twist_min = 0.1f,
                                         .twist_max = -0.1f};
        }
        oroya_quat out[2];
        const oroya_result r =
            oroya_ik_solve_run(&(oroya_ik_solve_job){&ik, chain, in, out, NULL}, &err);
        if (c == 0) {
            OT_EQ_INT(r, OROYA_OK);
            continue;
        }
        OT_EQ_INT(r, OROYA_ERR_INVALID_DATA);
        OT_CHECK_MSG(strstr(err.message, "joint limit is not valid") != NULL, "%s", err.message);
        for (int k = 0; k < 2; k++) {
            OT_CHECK_MSG(quat_angle(out[k], in[k]) < 1e-6, "case %d joint %d moved", c, k);
        }
    }
    /* The kernel: valid at set_ik, NaN after it; the pose as without IK, bit for bit. */
    for (int k = 0; k < 2; k++) {
        lim[k] = (oroya_joint_limit){
            .twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {0.05f}};
    }
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, NULL);
    const oroya_quat blended[2] = {local_rotation(ch, 6), local_rotation(ch, 7)};
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, &ik, 1, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0);
    OT_CHECK(quat_angle(local_rotation(ch, 6), blended[0]) > 1e-3); /* the IK ran */
    lim[0].swing_max[0] = NAN;
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 1);
    for (int k = 0; k < 2; k++) {
        const oroya_quat q = local_rotation(ch, 6 + (uint32_t)k);
        OT_CHECK(memcmp(&q, &blended[k], sizeof q) == 0);
    }
    destroy_character(ch, skel);
    oroya_scene_destroy(scene);
}

/* The list order makes the IKs run after local-to-model (the second IK's first joint is an
 * ancestor of the first's). Joints changed after set_ik into a list that is no longer a
 * parent chain fall back there as they do in the pass: the head as blended, and the model
 * matrices still those of the locals. */
static void test_joints_changed_after_the_pass(void) {
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, NULL);
    const oroya_quat blended = local_rotation(ch, 7);
    const oroya_mat4 head_before = oroya_pose_character_models(ch)[7];
    oroya_ik iks[2] = {neck_aim(),
                       {.type = OROYA_IK_AIM,
                        .name = "body",
                        .joints = {5},
                        .joint_count = 1,
                        .forward = {0, 0, 1},
                        .target = {-2, 1, 3},
                        .weight = 1}};
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, iks, 2, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0);
    iks[0].joints[0] = 2; /* shin: the head is not below it */
    iks[1].weight = 0;
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    uint32_t first = 99;
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, &first), 1);
    OT_EQ_INT(first, 0);
    const oroya_quat q = local_rotation(ch, 7);
    OT_CHECK(memcmp(&q, &blended, sizeof q) == 0);
    OT_CHECK(memcmp(&oroya_pose_character_models(ch)[7], &head_before, sizeof head_before) == 0);
    destroy_character(ch, skel);
}

/* A two-bone leg {hips, shin, toe} whose in-between thigh has a rotation that is not unit
 * (the pass composes it as it is; the zero quaternion is the identity there): the kernel takes
 * the chain from the matrices and reaches the target, with unit rotations, as the scene path
 * does. */
static void test_non_unit_rotation_between_chain_joints(void) {
    static const oroya_quat bad[] = {{0, 0, 0, 0}, {0, 0, 0, 0.5f}, {0, 0, 0, 0.999f}};
    const oroya_ik leg = leg_ik(0, 2, 4, (oroya_vec3){0.3f, 0.2f, 0.5f});
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        oroya_transform rest[J];
        rest_pose(rest);
        rest[1].rotation = bad[b];
        oroya_error err = {0};
        oroya_pose_skeleton *skel;
        oroya_pose_character *ch = make_character(&skel, rest);
        OT_CHECK_MSG(oroya_pose_character_set_ik(ch, &leg, 1, &err) == OROYA_OK, "%s", err.message);
        OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
        OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0);
        const double miss = distance(position(&oroya_pose_character_models(ch)[4]), leg.target);
        OT_CHECK_MSG(miss < 1e-5, "thigh (%g %g %g %g): the toe misses by %g", (double)bad[b].x,
                     (double)bad[b].y, (double)bad[b].z, (double)bad[b].w, miss);
        OT_CHECK(unit(local_rotation(ch, 0)) && unit(local_rotation(ch, 2)));
        destroy_character(ch, skel);
    }
}

/* An aim whose target is on its aiming joint at run time falls back (INVALID_DATA, the input
 * rotations), as a two-bone target on its first joint does; the kernel counts both. */
static void test_aim_target_on_the_aiming_joint(void) {
    oroya_scene *scene = make_scene(NULL);
    const oroya_mat4 *w = oroya_scene_world_matrices(scene);
    const oroya_transform *tr = oroya_scene_transforms(scene);
    oroya_error err = {0};
    oroya_ik aim = neck_aim();
    aim.target = position(&w[7]);
    oroya_mat4 chain[2] = {w[6], w[7]};
    const oroya_quat in[2] = {tr[6].rotation, tr[7].rotation};
    oroya_quat out[2];
    OT_EQ_INT(oroya_ik_solve_run(&(oroya_ik_solve_job){&aim, chain, in, out, NULL}, &err),
              OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "target at the aiming joint") != NULL, "%s", err.message);
    for (int k = 0; k < 2; k++) {
        OT_CHECK(quat_angle(out[k], in[k]) < 1e-6);
    }
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, NULL);
    oroya_ik iks[2] = {leg_ik(1, 2, 3, (oroya_vec3){0.25f, 0.45f, 0.45f}), neck_aim()};
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, iks, 2, &err) == OROYA_OK, "%s", err.message);
    const oroya_mat4 *m = oroya_pose_character_models(ch);
    iks[0].target = position(&m[1]);
    iks[1].target = position(&m[7]);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 2);
    destroy_character(ch, skel);
    oroya_scene_destroy(scene);
}

/* Aim shares made invalid after set-up (a NaN, a negative one, a sum off 1) are a run-time
 * fallback naming them, on the solver and the kernel (float and double) paths: they turned
 * nothing and returned OK, uncounted. */
static void test_aim_shares_at_run_time(void) {
    oroya_scene *scene = make_scene(NULL);
    const oroya_mat4 *w = oroya_scene_world_matrices(scene);
    const oroya_transform *tr = oroya_scene_transforms(scene);
    oroya_error err = {0};
    oroya_mat4 chain[2] = {w[6], w[7]};
    const oroya_quat in[2] = {tr[6].rotation, tr[7].rotation};
    const float bad[3][2] = {{NAN, 0.6f}, {-0.5f, 1.5f}, {0.2f, 0.3f}};
    for (int c = 0; c < 3; c++) {
        oroya_ik aim = neck_aim();
        aim.shares[0] = bad[c][0];
        aim.shares[1] = bad[c][1];
        oroya_quat out[2];
        OT_EQ_INT(oroya_ik_solve_run(&(oroya_ik_solve_job){&aim, chain, in, out, NULL}, &err),
                  OROYA_ERR_INVALID_DATA);
        OT_CHECK_MSG(strstr(err.message, "shares") != NULL, "%s", err.message);
        for (int k = 0; k < 2; k++) {
            OT_CHECK(quat_angle(out[k], in[k]) < 1e-6);
        }
    }
    for (int fast = 0; fast < 2; fast++) {
        for (int c = 0; c < 3; c++) {
            oroya_pose_skeleton *skel;
            oroya_pose_character *ch = make_character(&skel, NULL);
            const oroya_quat blended[2] = {local_rotation(ch, 6), local_rotation(ch, 7)};
            oroya_ik aim = neck_aim();
            oroya_joint_limit lim[2] = {{.twist_axis = {0, 1, 0}}, {.twist_axis = {0, 1, 0}}};
            lim[0].swing = lim[1].swing = OROYA_SWING_CONE;
            lim[0].swing_max[0] = lim[1].swing_max[0] = 3.0f;
            aim.limits = fast ? NULL : lim; /* limits send the kernel to the double solver */
            OT_CHECK_MSG(oroya_pose_character_set_ik(ch, &aim, 1, &err) == OROYA_OK, "%s",
                         err.message);
            aim.shares[0] = bad[c][0];
            aim.shares[1] = bad[c][1];
            OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
            OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 1);
            for (int k = 0; k < 2; k++) {
                const oroya_quat q = local_rotation(ch, 6 + (uint32_t)k);
                OT_CHECK_MSG(memcmp(&q, &blended[k], sizeof q) == 0, "fast %d case %d joint %d",
                             fast, c, k);
            }
            destroy_character(ch, skel);
        }
    }
    oroya_scene_destroy(scene);
}

/* A two-bone pole or target some 1e19 away (squares just below float's largest): unit
 * rotations, and the pole's direction is all that counts. */
static void test_two_bone_huge_pole_and_target(void) {
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, NULL);
    oroya_ik leg = leg_ik(1, 2, 3, (oroya_vec3){0.25f, 0.45f, 0.45f});
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, &leg, 1, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    const oroya_quat want[2] = {local_rotation(ch, 1), local_rotation(ch, 2)};
    static const float lengths[] = {1e17f, 1.07e19f, 1.5e19f, 1.8e19f, 3e38f};
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        leg.pole = (oroya_vec3){0, 0, lengths[k]};
        leg.target = (oroya_vec3){0.25f, 0.45f, 0.45f};
        OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
        OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0);
        for (int j = 0; j < 2; j++) {
            const oroya_quat q = local_rotation(ch, 1 + (uint32_t)j);
            OT_CHECK_MSG(unit(q) && quat_angle(q, want[j]) < 1e-5, "pole %g: joint %d off by %g",
                         (double)lengths[k], 1 + j, quat_angle(q, want[j]));
        }
        /* A target that far: the leg straight toward it, unit rotations. */
        leg.pole = (oroya_vec3){0, 0, 1};
        leg.target = (oroya_vec3){0.5f * lengths[k], 0.6f * lengths[k], 0.62f * lengths[k]};
        OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
        OT_CHECK_MSG(unit(local_rotation(ch, 1)) && unit(local_rotation(ch, 2)),
                     "target at %g: a rotation not unit", (double)lengths[k]);
    }
    destroy_character(ch, skel);
}

/* Refused at set-up on the kernel and scene paths: a negative scale on a chain joint or a
 * joint between two (here a half turn, (-1, -1, 1): the world matrices are rotations, only
 * the scale says it). At run time the scene path falls back (transforms bit for bit), and so
 * does the rig-backed mixer when a clip's scale turns negative (the bones as without IK, bit
 * for bit). */
static void test_negative_scale_on_the_path(void) {
    oroya_transform rest[J];
    rest_pose(rest);
    rest[2].scale = (oroya_vec3){-1, -1, 1}; /* the shin, between hips and toe */
    const oroya_ik leg = leg_ik(0, 3, 4, (oroya_vec3){0.3f, 0.2f, 0.5f});
    oroya_error err = {0};
    expect_setup_refused(rest, &leg, "joint 2 (shin) on the chain's path: negative scale",
                         "negative scale");
    oroya_scene *scene;
    /* The end joint's too (a half turn: the world matrices are rotations). */
    rest_pose(rest);
    rest[4].scale = (oroya_vec3){1, -1, -1};
    expect_setup_refused(rest, &leg, "joint 4 (toe) on the chain's path: negative scale",
                         "joint 4 (toe) on the chain's path: negative scale");
    /* Scene path, negative after set-up. */
    scene = make_scene(NULL);
    OT_EQ_INT(oroya_ik_scene_validate(scene, &leg, 1, &err), OROYA_OK);
    rest_pose(rest);
    rest[2].scale = (oroya_vec3){-1, -1, 1};
    oroya_scene_set_transform(scene, oroya_scene_node_at(scene, 2), &rest[2]);
    oroya_scene_update_world(scene);
    oroya_transform before[J];
    memcpy(before, oroya_scene_transforms(scene), sizeof before);
    OT_EQ_INT(oroya_ik_scene_apply(scene, &leg, 1, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "negative scale on the chain's path") != NULL, "%s",
                 err.message);
    OT_CHECK(memcmp(before, oroya_scene_transforms(scene), sizeof before) == 0);
    oroya_scene_destroy(scene);
    /* The rig-backed mixer: the shin's scale steps to (-1, -1, 1) at 1 s. */
    static const float times[2] = {0, 1};
    static const float scales[6] = {1, 1, 1, -1, -1, 1};
    const oroya_track track = {.target = "shin",
                               .property = OROYA_PROPERTY_SCALE,
                               .interpolation = OROYA_INTERP_STEP,
                               .components = 3,
                               .key_count = 2,
                               .times = times,
                               .values = scales};
    oroya_clip *clip = NULL;
    OT_CHECK(
        oroya_clip_create(&(oroya_clip_desc){.name = "flip", .tracks = &track, .track_count = 1},
                          &clip, NULL) == OROYA_OK);
    rig_mixer rm[2];
    oroya_ik ik = leg;
    for (int m = 0; m < 2; m++) {
        oroya_action *a = NULL;
        rig_mixer_make(&rm[m], clip, &a);
        OT_CHECK(oroya_action_set_loop(a, OROYA_LOOP_ONCE, 1) == OROYA_OK);
        oroya_action_set_clamp_when_finished(a, true);
        OT_CHECK(oroya_mixer_update(rm[m].mixer, 0) == OROYA_OK);
    }
    /* The rig's kernel joints are the scene's nodes in order here (one root, parents first). */
    OT_EQ_INT(oroya_rig_kernel_joint_count(rm[0].rig), J);
    OT_CHECK_MSG(oroya_mixer_set_ik(rm[0].mixer, &ik, 1, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_mixer_update(rm[0].mixer, 0.5) == OROYA_OK);
    OT_EQ_INT(oroya_mixer_ik_fallbacks(rm[0].mixer, NULL), 0);
    OT_CHECK(oroya_mixer_update(rm[1].mixer, 0.5) == OROYA_OK);
    for (int m = 0; m < 2; m++) {
        OT_CHECK(oroya_mixer_update(rm[m].mixer, 0.75) == OROYA_OK); /* past 1 s: (-1, -1, 1) */
        OT_CHECK(oroya_mixer_kernel_active(rm[m].mixer));
    }
    OT_CHECK(oroya_scene_transforms(rm[0].scene)[2].scale.x < 0);
    OT_EQ_INT(oroya_mixer_ik_fallbacks(rm[0].mixer, NULL), 1);
    OT_CHECK(memcmp(oroya_mixer_bone_matrices(rm[0].mixer, NULL),
                    oroya_mixer_bone_matrices(rm[1].mixer, NULL), J * sizeof(oroya_mat4)) == 0);
    for (int m = 0; m < 2; m++) {
        rig_mixer_free(&rm[m]);
    }
    oroya_clip_destroy(clip);
}

/* The float two-bone path checks the chain's three limits as the double solver does: an
 * invalid one on the end joint (which it never clamps) is a fallback, not ignored. */
static void test_two_bone_end_limit_invalid(void) {
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, NULL);
    const oroya_quat blended = local_rotation(ch, 1);
    oroya_joint_limit lim[3];
    for (int k = 0; k < 3; k++) {
        lim[k] = (oroya_joint_limit){
            .twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {3.0f}};
    }
    const oroya_ik leg = {.type = OROYA_IK_TWO_BONE,
                          .name = "leg",
                          .joints = {1, 2, 3},
                          .target = {0.25f, 0.45f, 0.45f},
                          .pole = {0, 0, 1},
                          .weight = 1,
                          .limits = lim};
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, &leg, 1, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0);
    lim[2].swing_max[0] = NAN;
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 1);
    const oroya_quat q = local_rotation(ch, 1);
    OT_CHECK(memcmp(&q, &blended, sizeof q) == 0);
    destroy_character(ch, skel);
}

/* A chain whose path is longer than the in-pass run takes (70 joints: after the pass, on the
 * chain's matrices), under a half turn kept in a scale on the path (a layer's scale track):
 * a fallback there too (it was solved and missed). */
static void test_long_path_negative_scale(void) {
    enum { N = 70 };
    uint32_t par[N];
    const char *nm[N];
    char buf[N][8];
    oroya_transform rest[N];
    for (int i = 0; i < N; i++) {
        par[i] = i ? (uint32_t)i - 1 : UINT32_MAX;
        snprintf(buf[i], sizeof buf[i], "j%d", i);
        nm[i] = buf[i];
        rest[i] = oroya_transform_identity();
        rest[i].translation = (oroya_vec3){0, i ? -0.01f : 1.0f, 0};
        rest[i].rotation = oroya_quat_normalize((oroya_quat){i == 68 ? 0.3f : 0.0f, 0, 0, 1});
    }
    rest[68].translation = rest[69].translation = (oroya_vec3){0, -0.4f, 0};
    oroya_pose_skeleton *skel = NULL;
    oroya_pose_character *ch = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){
                     .joint_count = N, .parents = par, .rest = rest, .names = nm},
                 &skel, &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &ch,
                                         &err) == OROYA_OK);
    const oroya_ik leg = leg_ik(0, 68, 69, (oroya_vec3){0, 0, 0.3f});
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, &leg, 1, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0);
    OT_CHECK(distance(position(&oroya_pose_character_models(ch)[69]), leg.target) < 1e-5);
    static const float times[1] = {0};
    static const float scale[3] = {-1, -1, 1};
    const oroya_track track = {.target = "j30",
                               .property = OROYA_PROPERTY_SCALE,
                               .interpolation = OROYA_INTERP_LINEAR,
                               .components = 3,
                               .key_count = 1,
                               .times = times,
                               .values = scale};
    oroya_clip *clip = NULL;
    oroya_pose_clip *pc = NULL;
    OT_CHECK(
        oroya_clip_create(&(oroya_clip_desc){.name = "flip", .tracks = &track, .track_count = 1},
                          &clip, &err) == OROYA_OK);
    OT_CHECK(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel, .clip = clip}, &pc,
                                    &err) == OROYA_OK);
    const oroya_pose_layer layer = {pc, 0, 1};
    OT_CHECK(oroya_pose_character_update(ch, &layer, 1, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 1);
    const oroya_quat q0 = local_rotation(ch, 0), q68 = local_rotation(ch, 68);
    OT_CHECK(memcmp(&q0, &rest[0].rotation, sizeof q0) == 0);
    OT_CHECK(memcmp(&q68, &rest[68].rotation, sizeof q68) == 0);
    oroya_pose_clip_destroy(pc);
    oroya_clip_destroy(clip);
    destroy_character(ch, skel);
}

/* After the pass (the list's order asks for it), joints changed into a non-chain whose ends
 * still connect, with a rotation on the path that is not unit (the chain from the matrices):
 * a fallback, as with unit rotations (it was solved, rewriting the spine). */
static void test_after_the_pass_non_chain_non_unit(void) {
    oroya_transform rest[J];
    rest_pose(rest);
    rest[3].rotation = (oroya_quat){0, 0, 0, 0.5f};
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, rest);
    const oroya_quat blended[2] = {local_rotation(ch, 1), local_rotation(ch, 5)};
    oroya_ik iks[2] = {leg_ik(1, 2, 4, (oroya_vec3){0.25f, 0.45f, 0.45f}),
                       {.type = OROYA_IK_AIM,
                        .name = "body",
                        .joints = {0},
                        .joint_count = 1,
                        .forward = {0, 0, 1},
                        .target = {-2, 1, 3},
                        .weight = 1}};
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, iks, 2, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0);
    iks[0].joints[1] = 5; /* the spine: not on the path from the thigh to the toe */
    iks[1].weight = 0;
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 1);
    const oroya_quat now[2] = {local_rotation(ch, 1), local_rotation(ch, 5)};
    OT_CHECK(memcmp(now, blended, sizeof now) == 0);
    destroy_character(ch, skel);
}

/* An aim whose aiming joint's rotation is not unit (its matrix is no rotation times a scale):
 * the kernel takes the forward axis from the pass's matrix, as the scene path does, so both
 * give the same rotations (they differed by 0.4 rad). And the scene path falls back on joints
 * that are no longer a parent chain, as the kernel does (it solved them). */
static void test_non_unit_aiming_joint_and_scene_non_chain(void) {
    oroya_transform rest[J];
    rest_pose(rest);
    rest[7].rotation = (oroya_quat){0.3f, 0, 0, 0.5f};
    oroya_ik aim = neck_aim();
    aim.weight = 0.999f; /* the double solver */
    oroya_error err = {0};
    oroya_pose_skeleton *skel;
    oroya_pose_character *ch = make_character(&skel, rest);
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, &aim, 1, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    oroya_scene *scene = make_scene(rest);
    OT_CHECK(oroya_ik_scene_apply(scene, &aim, 1, &err) == OROYA_OK);
    for (uint32_t j = 6; j < 8; j++) {
        const oroya_quat a = local_rotation(ch, j), b = oroya_scene_transforms(scene)[j].rotation;
        OT_CHECK_MSG(quat_angle(a, b) < 1e-5, "joint %u: kernel and scene differ by %g rad", j,
                     quat_angle(a, b));
    }
    destroy_character(ch, skel);
    oroya_scene_destroy(scene);
    scene = make_scene(NULL);
    aim = neck_aim();
    OT_EQ_INT(oroya_ik_scene_validate(scene, &aim, 1, &err), OROYA_OK);
    aim.joints[0] = 2; /* the shin: the head is not below it */
    oroya_transform before[J];
    memcpy(before, oroya_scene_transforms(scene), sizeof before);
    OT_EQ_INT(oroya_ik_scene_apply(scene, &aim, 1, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "joints are not a parent chain") != NULL, "%s", err.message);
    OT_CHECK(memcmp(before, oroya_scene_transforms(scene), sizeof before) == 0);
    oroya_scene_destroy(scene);
}

int main(void) {
    OT_RUN(test_aim_direction_lengths);
    OT_RUN(test_reflected_chain);
    OT_RUN(test_invalid_limits_at_run_time);
    OT_RUN(test_joints_changed_after_the_pass);
    OT_RUN(test_non_unit_rotation_between_chain_joints);
    OT_RUN(test_aim_target_on_the_aiming_joint);
    OT_RUN(test_aim_shares_at_run_time);
    OT_RUN(test_two_bone_huge_pole_and_target);
    OT_RUN(test_negative_scale_on_the_path);
    OT_RUN(test_two_bone_end_limit_invalid);
    OT_RUN(test_long_path_negative_scale);
    OT_RUN(test_after_the_pass_non_chain_non_unit);
    OT_RUN(test_non_unit_aiming_joint_and_scene_non_chain);
    return ot_finish();
}
