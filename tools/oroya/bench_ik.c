/* The IK figures of `oroya bench` (see cmd_bench.c for the conventions):
 *   ik_two_bone_ns         one two-bone solve (oroya_ik_solve_run) on the humanoid's left leg;
 *   ik_aim_chain_ns        one aim-chain solve over neck, neck1 and head (shares 0.3/0.3/0.4);
 *   mixer_char_frame_ik_us one frame of the rig-backed mixer (walk 0.6 + run 0.4, as
 *                          mixer_char_frame_us, bone matrices included) with two foot IKs and
 *                          a head look-at (oroya_mixer_set_ik);
 *   mixer_char_frame_ik_ratio that frame over the same frame without IK (target <= 1.25);
 *   mixer_char_frame_ik_off_ratio the same frame with the three IKs set but their weights 0,
 *                          over the frame without IK (a list switched off costs nothing).
 * Times are the thread's CPU time, medians of `runs`. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya/ik.h"
#include "oroya/mixer.h"
#include "oroya/pose.h"
#include "oroya/rig.h"

static double ik_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ik_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double ik_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, ik_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The joint's local axis that points along world `dir` in the current model matrix. */
static oroya_vec3 local_axis(const oroya_mat4 *m, oroya_vec3 dir) {
    oroya_mat4 inv;
    oroya_mat4_invert_affine(*m, &inv);
    return oroya_vec3_normalize(oroya_mat4_transform_direction(inv, dir));
}

static oroya_vec3 model_pos(const oroya_mat4 *m) {
    return (oroya_vec3){m->m[12], m->m[13], m->m[14]};
}

/* The head's target: a point moving on a circle in front of the character, x over 256 frames
 * (computed ahead, so that the frames with IK do not also time the caller's sinf). */
static float ik_head_x[256];

/* Frames of the mixer's walk + run, with or without the IKs (kept apart so callgrind can
 * compare them: --toggle-collect=ik_frames_plain / ik_frames_with_ik / ik_frames_off). */
__attribute__((noinline)) static double ik_frames(oroya_mixer *m, oroya_ik *iks, int frames,
                                                  float tag) {
    volatile float sink = tag;
    double t0 = ik_cpu_s();
    for (int f = 0; f < frames; f++) {
        if (iks) {
            iks[2].target.x = ik_head_x[f & 255];
        }
        oroya_mixer_update(m, 1.0 / 60);
        sink += oroya_mixer_bone_matrices(m, NULL)[5].m[12];
    }
    (void)sink;
    return (ik_cpu_s() - t0) * 1e6 / frames;
}

/* Each caller passes its own tag, so the compiler cannot fold two of them into one function
 * (callgrind would then see one name). */
__attribute__((noinline)) static double ik_frames_plain(oroya_mixer *m, int frames) {
    return ik_frames(m, NULL, frames, 0.0f);
}

/* The IKs set, their weights 0. */
__attribute__((noinline)) static double ik_frames_off(oroya_mixer *m, int frames) {
    return ik_frames(m, NULL, frames, 1.0f);
}

__attribute__((noinline)) static double ik_frames_with_ik(oroya_mixer *m, oroya_ik *iks,
                                                          int frames) {
    return ik_frames(m, iks, frames, 2.0f);
}

/* The rig's kernel joint named `name`, or UINT32_MAX. */
static uint32_t kernel_joint(const oroya_rig *rig, const oroya_scene *scene, const char *name) {
    for (uint32_t k = 0; k < oroya_rig_kernel_joint_count(rig); k++) {
        const char *n = oroya_scene_node_name(scene, oroya_rig_kernel_node(rig, k));
        if (n && !strcmp(n, name)) {
            return k;
        }
    }
    return UINT32_MAX;
}

/* Two feet planted 5 cm in front of (2 cm above) where they are and the head looking 2 m
 * ahead, from the models m; j: the 8 joints of `need` below, neck1 or UINT32_MAX. */
static void ik_setup(oroya_ik *iks, const uint32_t *j, uint32_t neck1, const oroya_mat4 *m) {
    iks[0] = (oroya_ik){.type = OROYA_IK_TWO_BONE,
                        .name = "footL",
                        .joints = {j[0], j[1], j[2]},
                        .pole = {0, 0, 1},
                        .weight = 1,
                        .soft = 0.05f};
    iks[1] = (oroya_ik){.type = OROYA_IK_TWO_BONE,
                        .name = "footR",
                        .joints = {j[3], j[4], j[5]},
                        .pole = {0, 0, 1},
                        .weight = 1,
                        .soft = 0.05f};
    iks[2] = (oroya_ik){.type = OROYA_IK_AIM,
                        .name = "head",
                        .joints = {j[6], neck1, j[7]},
                        .joint_count = 3,
                        .shares = {0.3f, 0.3f, 0.4f},
                        .up = {0, 1, 0},
                        .weight = 1};
    for (int k = 0; k < 2; k++) {
        iks[k].target =
            oroya_vec3_add(model_pos(&m[iks[k].joints[2]]), (oroya_vec3){0, 0.02f, 0.05f});
    }
    iks[2].forward = local_axis(&m[j[7]], (oroya_vec3){0, 0, 1});
    iks[2].up_axis = local_axis(&m[j[7]], (oroya_vec3){0, 1, 0});
    iks[2].target = oroya_vec3_add(model_pos(&m[j[7]]), (oroya_vec3){0, 0, 2});
    if (neck1 == UINT32_MAX) {
        iks[2].joints[1] = j[7];
        iks[2].joint_count = 2;
        iks[2].shares[1] = 0.7f;
    }
}

static const char *const ik_need[8] = {"upper_leg_L", "lower_leg_L", "foot_L", "upper_leg_R",
                                       "lower_leg_R", "foot_R",      "neck",   "head"};

/* mixer_char_frame_ik_us and _ratio on a rig-backed mixer of the character mc. */
static int ik_mixer_frames(const oroya_bench_mixer_character *mc, const oroya_allocator *allocator,
                           int runs, int frames) {
    oroya_error err = {0};
    oroya_rig *rig = NULL;
    oroya_mixer *m = NULL;
    int status = 1;
    const oroya_clip *clips[2] = {mc->walk, mc->run};
    if (oroya_rig_create(&(oroya_rig_desc){.scene = mc->scene,
                                           .joints = mc->joints,
                                           .joint_count = mc->joint_count,
                                           .inverse_bind = mc->inverse_bind,
                                           .clips = clips,
                                           .clip_count = 2,
                                           .name = "skins[0]",
                                           .allocator = *allocator},
                         &rig, &err) != OROYA_OK ||
        oroya_mixer_create(mc->scene, &(oroya_mixer_desc){.rig = rig, .allocator = *allocator},
                           &m) != OROYA_OK) {
        fprintf(stderr, "oroya bench: ik: cannot set up the mixer: %s\n", cli_esc(err.message));
        goto done;
    }
    oroya_action *a = NULL, *b = NULL;
    if (oroya_mixer_play(m, mc->walk, &a) != OROYA_OK ||
        oroya_mixer_play(m, mc->run, &b) != OROYA_OK) {
        fprintf(stderr, "oroya bench: ik: cannot play walk and run\n");
        goto done;
    }
    oroya_action_set_effective_weight(a, 0.6);
    oroya_action_set_effective_weight(b, 0.4);
    uint32_t j[8];
    for (int i = 0; i < 8; i++) {
        j[i] = kernel_joint(rig, mc->scene, ik_need[i]);
        if (j[i] == UINT32_MAX) {
            fprintf(stderr, "oroya bench: ik: no joint named %s in the rig\n", ik_need[i]);
            goto done;
        }
    }
    for (int f = 0; f < 256; f++) {
        ik_head_x[f] = 0.5f * sinf((float)f * (6.2831853f / 256.0f));
    }
    ik_frames_plain(m, frames / 10 + 1);
    oroya_ik iks[3];
    ik_setup(iks, j, kernel_joint(rig, mc->scene, "neck1"), oroya_mixer_model_matrices(m, NULL));
    if (oroya_mixer_set_ik(m, iks, 3, &err) != OROYA_OK || !oroya_mixer_kernel_active(m)) {
        fprintf(stderr, "oroya bench: ik: %s\n",
                cli_esc(err.message[0] ? err.message : "the mixer is off the kernel"));
        goto done;
    }
    double v[64], w[64], o[64];
    for (int r = 0; r < runs && r < 64; r++) {
        oroya_mixer_set_ik(m, NULL, 0, NULL);
        v[r] = ik_frames_plain(m, frames);
        oroya_mixer_set_ik(m, iks, 3, NULL);
        w[r] = ik_frames_with_ik(m, iks, frames);
    }
    /* After those runs, so that they (and callgrind's counts of them) are as they were before
     * this figure existed. */
    for (int k = 0; k < 3; k++) {
        iks[k].weight = 0;
    }
    for (int r = 0; r < runs && r < 64; r++) {
        o[r] = ik_frames_off(m, frames);
    }
    const int n = runs < 64 ? runs : 64;
    const double base = ik_median(v, n), with = ik_median(w, n), off = ik_median(o, n);
    printf("mixer_char_frame_ik_us %.3f us\n", with);
    printf("mixer_char_frame_ik_ratio %.3f x\n", base > 0 ? with / base : 0);
    printf("mixer_char_frame_ik_off_ratio %.3f x\n", base > 0 ? off / base : 0);
    status = 0;
done:
    oroya_mixer_destroy(m);
    oroya_rig_destroy(rig);
    return status;
}

int oroya_bench_ik(const oroya_bench_mixer_character *mc, const oroya_pose_skeleton *skel,
                   const oroya_pose_clip *walk, const oroya_pose_clip *run,
                   const oroya_allocator *allocator, int runs, int frames) {
    uint32_t j[8];
    for (int i = 0; i < 8; i++) {
        j[i] = oroya_pose_skeleton_find(skel, ik_need[i]);
        if (j[i] == UINT32_MAX) {
            fprintf(stderr, "oroya bench: ik: no joint named %s\n", ik_need[i]);
            return 1;
        }
    }
    oroya_pose_character *c = NULL;
    oroya_error err = {0};
    if (oroya_pose_character_create(
            &(oroya_pose_character_desc){.skeleton = skel, .allocator = *allocator}, &c, &err)) {
        fprintf(stderr, "oroya bench: ik: %s\n", cli_esc(err.message));
        return 1;
    }
    /* The solves on the pose of the walk + run frame at t = 0. */
    oroya_pose_layer layers[2] = {{walk, 0, 0.6f}, {run, 0, 0.4f}};
    oroya_pose_character_update(c, layers, 2, NULL);
    const oroya_mat4 *m = oroya_pose_character_models(c);
    oroya_ik iks[3];
    ik_setup(iks, j, oroya_pose_skeleton_find(skel, "neck1"), m);
    if (runs > 64) {
        runs = 64;
    }
    double v[64], w[64];
    /* One solve at a time on the matrices of the current frame; the target moves a little
     * each time so nothing is hoisted. */
    oroya_mat4 leg[3] = {m[j[0]], m[j[1]], m[j[2]]};
    oroya_mat4 head[3] = {m[j[6]], m[iks[2].joints[1]], m[j[7]]};
    const oroya_soa_transform *loc = oroya_pose_character_locals(c);
    oroya_quat lq[3], hq[3], out[3];
    for (int k = 0; k < 3; k++) {
        uint32_t a = iks[0].joints[k], b = iks[2].joints[k];
        lq[k] = (oroya_quat){loc[a / 4].qx[a % 4], loc[a / 4].qy[a % 4], loc[a / 4].qz[a % 4],
                             loc[a / 4].qw[a % 4]};
        hq[k] = (oroya_quat){loc[b / 4].qx[b % 4], loc[b / 4].qy[b % 4], loc[b / 4].qz[b % 4],
                             loc[b / 4].qw[b % 4]};
    }
    const int solves = frames * 10;
    for (int r = 0; r < runs; r++) {
        oroya_ik a = iks[0], b = iks[2];
        double t0 = ik_cpu_s();
        for (int i = 0; i < solves; i++) {
            a.target.x += 1e-6f;
            oroya_ik_solve_run(&(oroya_ik_solve_job){&a, leg, lq, out, NULL}, NULL);
        }
        double t1 = ik_cpu_s();
        for (int i = 0; i < solves; i++) {
            b.target.x += 1e-6f;
            oroya_ik_solve_run(&(oroya_ik_solve_job){&b, head, hq, out, NULL}, NULL);
        }
        double t2 = ik_cpu_s();
        v[r] = (t1 - t0) * 1e9 / solves;
        w[r] = (t2 - t1) * 1e9 / solves;
    }
    printf("ik_two_bone_ns %.1f ns\n", ik_median(v, runs));
    printf("ik_aim_chain_ns %.1f ns\n", ik_median(w, runs));
    oroya_pose_character_destroy(c);
    return ik_mixer_frames(mc, allocator, runs, frames);
}
