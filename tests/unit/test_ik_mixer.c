/* IK on the rig-backed mixer (oroya_mixer_set_ik): the mixer's bone and model matrices, the
 * joints it writes back to its scene and the batch call all give what the scene path gives
 * (a mixer without rig, then oroya_ik_scene_apply) on the same character and clip; run-time
 * fallbacks are counted; both kernel widths give the same bits. */
#include "internal/mixer.h"
#include "internal/pose.h" /* oroya__pose_force_baseline */
#include "oroya/ik.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"

#include "oroya_test.h"

#include "ik_test_rig.h"

#include <math.h>
#include <string.h>

/* Hips move and every IK joint turns, differently on every frame (so three's "write when
 * changed" writes every animated joint every frame on the property path too). */
static oroya_clip *make_clip(void) {
    static const float times[2] = {0, 2};
    static const float hips[6] = {0.1f, 1, 0.2f, 0.1f, 1.08f, 0.5f};
    static float rot[5][8];
    static const char *const targets[5] = {"thigh", "shin", "foot", "neck", "head"};
    oroya_track tr[6] = {{.target = "hips",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = 2,
                          .times = times,
                          .values = hips}};
    for (int k = 0; k < 5; k++) {
        const float a = 0.1f + 0.05f * (float)k, b = -0.2f + 0.1f * (float)k;
        const oroya_quat q0 = oroya_quat_normalize((oroya_quat){a, 0.02f, 0, 1});
        const oroya_quat q1 = oroya_quat_normalize((oroya_quat){b, -0.1f, 0.05f, 1});
        const float v[8] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
        memcpy(rot[k], v, sizeof v);
        tr[1 + k] = (oroya_track){.target = targets[k],
                                  .property = OROYA_PROPERTY_ROTATION,
                                  .interpolation = OROYA_INTERP_LINEAR,
                                  .components = 4,
                                  .key_count = 2,
                                  .times = times,
                                  .values = rot[k]};
    }
    oroya_clip *clip = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.name = "sway", .tracks = tr, .track_count = 6},
                               &clip, NULL) == OROYA_OK);
    return clip;
}

/* A two-bone leg with an end rotation and a limited aim chain at weight 0.8 (joints are dense
 * node indices here). */
static void make_iks(oroya_ik *iks) {
    static oroya_joint_limit limits[2] = {{.twist_axis = {0, 1, 0},
                                           .swing = OROYA_SWING_CONE,
                                           .swing_max = {0.3f},
                                           .has_twist_limit = true,
                                           .twist_min = -0.2f,
                                           .twist_max = 0.2f}};
    iks[0] = (oroya_ik){.type = OROYA_IK_TWO_BONE,
                        .name = "footL",
                        .joints = {1, 2, 3},
                        .target = {0.25f, 0.45f, 0.45f},
                        .pole = {0, 0, 1},
                        .weight = 1,
                        .has_target_rotation = true,
                        .target_rotation = {0, 0.2588190f, 0, 0.9659258f}};
    iks[1] = (oroya_ik){.type = OROYA_IK_AIM,
                        .name = "head",
                        .joints = {6, 7},
                        .joint_count = 2,
                        .shares = {0.4f, 0.6f},
                        .forward = {0, 0, 1},
                        .up = {0, 1, 0},
                        .offset = {0, 0.05f, 0.08f},
                        .target = {2, 2.5f, 3},
                        .weight = 0.8f,
                        .limits = limits};
}

/* The same IKs with the rig's kernel joints. */
static void to_kernel_joints(const oroya_rig *rig, const oroya_scene *scene, oroya_ik *iks,
                             uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = 0; k < oroya__ik_chain_count(&iks[i]); k++) {
            uint32_t found = UINT32_MAX;
            for (uint32_t j = 0; j < oroya_rig_kernel_joint_count(rig); j++)
                if (oroya_scene_node_index(scene, oroya_rig_kernel_node(rig, j)) ==
                    iks[i].joints[k])
                    found = j;
            OT_CHECK(found != UINT32_MAX);
            iks[i].joints[k] = found;
        }
}

static double mat_diff(const oroya_mat4 *a, const oroya_mat4 *b) {
    double worst = 0;
    for (int k = 0; k < 16; k++)
        worst = fmax(worst, fabs((double)a->m[k] - (double)b->m[k]));
    return worst;
}

static void moving_targets(oroya_ik *iks, int frame) {
    const float s = 0.02f * (float)frame;
    iks[0].target = (oroya_vec3){0.25f + s, 0.45f - 0.5f * s, 0.45f};
    iks[1].target = (oroya_vec3){2 - 4 * s, 2.5f, 3};
}

static void test_mixer_ik_matches_scene_path(void) {
    oroya_clip *clip = make_clip();
    /* The scene path: a mixer without rig, then the IKs on the scene. */
    oroya_scene *ref = make_scene(NULL);
    oroya_mixer *plain = NULL;
    OT_CHECK(oroya_mixer_create(ref, NULL, &plain) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(plain, clip, NULL) == OROYA_OK);
    /* The rig-backed mixer, one updated alone and one through the batch call. */
    oroya_scene *scene = make_scene(NULL), *scene_b = make_scene(NULL);
    oroya_rig *rig = NULL, *rig_b = NULL;
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = scene,
                                                .clips = (const oroya_clip *const[]){clip},
                                                .clip_count = 1},
                              &rig, NULL) == OROYA_OK);
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = scene_b}, &rig_b, NULL) == OROYA_OK);
    oroya_mixer *mixer = NULL, *mixer_b = NULL;
    OT_CHECK(oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = rig}, &mixer) == OROYA_OK);
    OT_CHECK(oroya_mixer_create(scene_b, &(oroya_mixer_desc){.rig = rig_b}, &mixer_b) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(mixer, clip, NULL) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(mixer_b, clip, NULL) == OROYA_OK);

    oroya_ik ref_iks[2], iks[2], iks_b[2];
    make_iks(ref_iks);
    make_iks(iks);
    make_iks(iks_b);
    to_kernel_joints(rig, scene, iks, 2);
    to_kernel_joints(rig_b, scene_b, iks_b, 2);
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_mixer_set_ik(mixer, iks, 2, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK_MSG(oroya_mixer_set_ik(mixer_b, iks_b, 2, &err) == OROYA_OK, "%s", err.message);

    double worst = 0, worst_scene = 0, worst_batch = 0;
    for (int f = 0; f < 20; f++) {
        moving_targets(ref_iks, f);
        moving_targets(iks, f);
        moving_targets(iks_b, f);
        const double dt = 1.0 / 30;
        OT_CHECK(oroya_mixer_update(plain, dt) == OROYA_OK);
        oroya_scene_update_world(ref);
        OT_CHECK(oroya_ik_scene_apply(ref, ref_iks, 2, &err) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(mixer, dt) == OROYA_OK);
        OT_CHECK(oroya_mixer_kernel_active(mixer));
        OT_CHECK(oroya_mixer_update_batch(&mixer_b, 1, dt, NULL, &err) == OROYA_OK);
        uint32_t count = 0;
        const oroya_mat4 *bones = oroya_mixer_bone_matrices(mixer, &count);
        const oroya_mat4 *models = oroya_mixer_model_matrices(mixer, NULL);
        const oroya_mat4 *bones_b = oroya_mixer_bone_matrices(mixer_b, NULL);
        OT_EQ_INT(count, J);
        /* The lazy write-back gives the scene the IK'd joints. */
        oroya_scene_update_world(scene);
        const oroya_mat4 *want = oroya_scene_world_matrices(ref);
        const oroya_mat4 *got = oroya_scene_world_matrices(scene);
        for (uint32_t k = 0; k < J; k++) {
            const uint32_t d = oroya_scene_node_index(scene, oroya_rig_kernel_node(rig, k));
            /* Identity inverse binds: bone == world. */
            worst = fmax(worst, mat_diff(&bones[k], &want[d]));
            worst = fmax(worst, mat_diff(&models[k], &want[d]));
            worst_scene = fmax(worst_scene, mat_diff(&got[d], &want[d]));
            worst_batch = fmax(worst_batch, mat_diff(&bones_b[k], &want[d]));
        }
        /* The foot is on its target. */
        const oroya_mat4 *foot = &models[iks[0].joints[2]];
        const oroya_vec3 at = {foot->m[12], foot->m[13], foot->m[14]};
        OT_NEAR(oroya_vec3_length(oroya_vec3_sub(at, iks[0].target)), 0, 1e-5);
    }
    OT_CHECK_MSG(worst < 1e-5, "mixer bones vs scene path: %g", worst);
    OT_CHECK_MSG(worst_scene < 1e-5, "mixer's scene vs scene path: %g", worst_scene);
    OT_CHECK_MSG(worst_batch < 1e-5, "batch bones vs scene path: %g", worst_batch);

    /* A run-time fallback (the foot's target turned NaN) is reported, with the IK's index,
     * on the mixer and on the batch call's mixer; the next update without it reports none. */
    uint32_t first = 0;
    OT_EQ_INT(oroya_mixer_ik_fallbacks(mixer, &first), 0);
    OT_EQ_INT(first, UINT32_MAX);
    iks[0].target.y = NAN;
    iks_b[1].target.z = NAN;
    OT_CHECK(oroya_mixer_update(mixer, 1.0 / 30) == OROYA_OK);
    OT_CHECK(oroya_mixer_update_batch(&mixer_b, 1, 1.0 / 30, NULL, &err) == OROYA_OK);
    OT_EQ_INT(oroya_mixer_ik_fallbacks(mixer, &first), 1);
    OT_EQ_INT(first, 0);
    OT_EQ_INT(oroya_mixer_ik_fallbacks(mixer_b, &first), 1);
    OT_EQ_INT(first, 1);
    moving_targets(iks, 0);
    moving_targets(iks_b, 0);
    OT_CHECK(oroya_mixer_update(mixer, 1.0 / 30) == OROYA_OK);
    OT_EQ_INT(oroya_mixer_ik_fallbacks(mixer, NULL), 0);

    /* Removing the list gives the blended pose again: the foot leaves the target. */
    OT_CHECK(oroya_mixer_set_ik(mixer, NULL, 0, &err) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(mixer, 1.0 / 30) == OROYA_OK);
    const oroya_mat4 *foot = &oroya_mixer_model_matrices(mixer, NULL)[iks[0].joints[2]];
    const oroya_vec3 at = {foot->m[12], foot->m[13], foot->m[14]};
    OT_CHECK(oroya_vec3_length(oroya_vec3_sub(at, iks[0].target)) > 0.05f);

    /* Set-up errors name the joints; a mixer without rig is refused. */
    oroya_ik broken = iks[0];
    broken.joints[1] = iks[1].joints[0]; /* neck is not below thigh */
    OT_CHECK(oroya_mixer_set_ik(mixer, &broken, 1, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "(neck) is not a descendant of joints[0] (thigh)"), "%s",
                 err.message);
    OT_CHECK(oroya_mixer_set_ik(plain, ref_iks, 2, &err) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_ik(NULL, NULL, 0, &err) == OROYA_ERR_INVALID_ARGUMENT);

    oroya_mixer_destroy(mixer_b);
    oroya_mixer_destroy(mixer);
    oroya_mixer_destroy(plain);
    oroya_rig_destroy(rig_b);
    oroya_rig_destroy(rig);
    oroya_scene_destroy(scene_b);
    oroya_scene_destroy(scene);
    oroya_scene_destroy(ref);
    oroya_clip_destroy(clip);
}

/* On the property path (a clip the kernel cannot play) the IKs run on the joints' transforms and write them
 * to the scene at once: the bones and the scene agree with the kernel path's IK. */
static void test_mixer_ik_property_path(void) {
    oroya_clip *clip = make_clip();
    oroya_scene *ref = make_scene(NULL), *scene = make_scene(NULL);
    oroya_rig *rig = NULL, *rig_ref = NULL;
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = scene}, &rig, NULL) == OROYA_OK);
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = ref}, &rig_ref, NULL) == OROYA_OK);
    oroya_mixer *mixer = NULL, *kernel = NULL;
    OT_CHECK(oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = rig}, &mixer) == OROYA_OK);
    OT_CHECK(oroya_mixer_create(ref, &(oroya_mixer_desc){.rig = rig_ref}, &kernel) == OROYA_OK);
    oroya__mixer_set_reference(mixer, true); /* the property path, as a clip the kernel
                                                 cannot play takes it */
    OT_CHECK(oroya_mixer_play(mixer, clip, NULL) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(kernel, clip, NULL) == OROYA_OK);
    oroya_ik iks[2], iks_ref[2];
    make_iks(iks);
    make_iks(iks_ref);
    iks[1].weight = iks_ref[1].weight = 1; /* no compounding from frame to frame */
    to_kernel_joints(rig, scene, iks, 2);
    to_kernel_joints(rig_ref, ref, iks_ref, 2);
    oroya_error err = {0};
    OT_CHECK(oroya_mixer_set_ik(mixer, iks, 2, &err) == OROYA_OK);
    OT_CHECK(oroya_mixer_set_ik(kernel, iks_ref, 2, &err) == OROYA_OK);
    double worst = 0;
    for (int f = 0; f < 5; f++) {
        OT_CHECK(oroya_mixer_update(mixer, 0.05) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(kernel, 0.05) == OROYA_OK);
        OT_CHECK(!oroya_mixer_kernel_active(mixer));
        oroya_scene_update_world(scene);
        const oroya_mat4 *bones = oroya_mixer_bone_matrices(mixer, NULL);
        const oroya_mat4 *want = oroya_mixer_bone_matrices(kernel, NULL);
        const oroya_mat4 *world = oroya_scene_world_matrices(scene);
        for (uint32_t k = 0; k < J; k++) {
            const uint32_t d = oroya_scene_node_index(scene, oroya_rig_kernel_node(rig, k));
            worst = fmax(worst, mat_diff(&bones[k], &want[k]));
            worst = fmax(worst, mat_diff(&world[d], &want[k]));
        }
    }
    OT_CHECK_MSG(worst < 1e-5, "property path vs kernel path with IK: %g", worst);
    oroya_mixer_destroy(kernel);
    oroya_mixer_destroy(mixer);
    oroya_rig_destroy(rig_ref);
    oroya_rig_destroy(rig);
    oroya_scene_destroy(ref);
    oroya_scene_destroy(scene);
    oroya_clip_destroy(clip);
}

/* The IKs through the mixer in both kernel widths: one mixer on the AVX2 kernel (where the CPU
 * has it), one on the SSE2 baseline (oroya__pose_force_baseline switches the pose pass; the
 * IK solves run the same clone in both), both with IKs the float paths take (no end
 * rotation, no eye offset, weight 1) and one the double solver takes, targets moving: the
 * bone and model matrices are equal bit for bit every frame. */
static void test_mixer_ik_widths(void) {
    oroya_clip *clip = make_clip();
    rig_mixer rm[2];
    oroya_ik iks[2][3];
    for (int w = 0; w < 2; w++) {
        rig_mixer_make(&rm[w], clip, NULL);
        make_iks(iks[w]);
        iks[w][0].has_target_rotation = false;    /* the two-bone float path */
        iks[w][1].offset = (oroya_vec3){0, 0, 0}; /* the aim float path */
        iks[w][1].weight = 1;
        iks[w][1].limits = NULL;
        iks[w][2] = iks[w][0]; /* the same leg again, with an end rotation: the double solver */
        iks[w][2].has_target_rotation = true;
        iks[w][2].name = "footL2";
        to_kernel_joints(rm[w].rig, rm[w].scene, iks[w], 3);
        oroya_error err = {0};
        OT_CHECK_MSG(oroya_mixer_set_ik(rm[w].mixer, iks[w], 3, &err) == OROYA_OK, "%s",
                     err.message);
    }
    int differ = 0;
    for (int f = 0; f < 20; f++) {
        for (int w = 0; w < 2; w++) {
            moving_targets(iks[w], f);
            iks[w][2].target = iks[w][0].target;
            oroya__pose_force_baseline = w == 1;
            OT_CHECK(oroya_mixer_update(rm[w].mixer, 1.0 / 30) == OROYA_OK);
            oroya__pose_force_baseline = false;
            OT_CHECK(oroya_mixer_kernel_active(rm[w].mixer));
            OT_EQ_INT(oroya_mixer_ik_fallbacks(rm[w].mixer, NULL), 0);
        }
        differ += memcmp(oroya_mixer_bone_matrices(rm[0].mixer, NULL),
                         oroya_mixer_bone_matrices(rm[1].mixer, NULL), J * sizeof(oroya_mat4)) != 0;
        differ +=
            memcmp(oroya_mixer_model_matrices(rm[0].mixer, NULL),
                   oroya_mixer_model_matrices(rm[1].mixer, NULL), J * sizeof(oroya_mat4)) != 0;
    }
    OT_CHECK_MSG(differ == 0, "the widths differ in %d of 40 matrix sets", differ);
#if defined(__x86_64__) || defined(__i386__)
    if (!__builtin_cpu_supports("avx2")) {
        printf("test_mixer_ik_widths: no AVX2 here: both mixers ran the SSE2 kernel\n");
    }
#endif
    for (int w = 0; w < 2; w++) {
        rig_mixer_free(&rm[w]);
    }
    oroya_clip_destroy(clip);
}

/* An aim IK with joint_count 0 is a chain of one joint: joints[1..] are not read. The mixer
 * marked the lanes of three joints whatever the type, so junk there read (and or'ed a bit)
 * far outside its lane marks: a crash with 4,000,000. Now junk gives what zeros give, bit for
 * bit. */
static void test_mixer_aim_default_count(void) {
    oroya_clip *clip = make_clip();
    rig_mixer rm[2];
    oroya_ik ik[2];
    for (int w = 0; w < 2; w++) {
        rig_mixer_make(&rm[w], clip, NULL);
        ik[w] = (oroya_ik){.type = OROYA_IK_AIM,
                           .name = "head",
                           .joints = {7},
                           .forward = {0, 0, 1},
                           .up = {0, 1, 0},
                           .target = {2, 2.5f, 3},
                           .weight = 1};
        to_kernel_joints(rm[w].rig, rm[w].scene, &ik[w], 1);
        if (w == 1) {
            ik[w].joints[1] = ik[w].joints[2] = 4000000; /* past the chain: never read */
        }
        oroya_error err = {0};
        OT_CHECK_MSG(oroya_mixer_set_ik(rm[w].mixer, &ik[w], 1, &err) == OROYA_OK, "%s",
                     err.message);
    }
    int differ = 0;
    for (int f = 0; f < 10; f++) {
        for (int w = 0; w < 2; w++) {
            ik[w].target.x = 2 - 0.3f * (float)f;
            OT_CHECK(oroya_mixer_update(rm[w].mixer, 1.0 / 30) == OROYA_OK);
            OT_EQ_INT(oroya_mixer_ik_fallbacks(rm[w].mixer, NULL), 0);
        }
        differ += memcmp(oroya_mixer_bone_matrices(rm[0].mixer, NULL),
                         oroya_mixer_bone_matrices(rm[1].mixer, NULL), J * sizeof(oroya_mat4)) != 0;
    }
    OT_EQ_INT(differ, 0);
    for (int w = 0; w < 2; w++) {
        rig_mixer_free(&rm[w]);
    }
    oroya_clip_destroy(clip);
}

int main(void) {
    OT_RUN(test_mixer_ik_matches_scene_path);
    OT_RUN(test_mixer_ik_property_path);
    OT_RUN(test_mixer_ik_widths);
    OT_RUN(test_mixer_aim_default_count);
    return ot_finish();
}
