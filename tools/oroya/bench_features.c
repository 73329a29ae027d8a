/* The figures of `oroya bench` for the mixer's partial blending, on the bench humanoid
 * through the pose kernel path:
 *   mixer_char_frame_unmasked_us  walk 1 + run 0.5 + wave 0.5, no masks
 *   mixer_char_frame_masked_us    the same with run masked to the legs (upper_leg_L/R and
 *                                 below) and wave to the arms (shoulder_L/R and below)
 *   mixer_char_frame_masked_ratio masked / unmasked (the target is at most 1.1)
 * On the character of the other mixer figures (HUMANOID.glb or the built-in humanoid, whose
 * joint names these masks use). Times: thread CPU time per frame, medians of `runs`, as the other mixer figures. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"

#define FEATURES_MAX_RUNS 64

static double features_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int features_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* walk 1 + run 0.5 + wave 0.5, with masks on run and wave when given. */
static int features_play(oroya_mixer *m, const oroya_clip *const clips[3], const oroya_mask *legs,
                         const oroya_mask *arms) {
    oroya_action *a[3];
    static const double weights[3] = {1, 0.5, 0.5};
    for (int i = 0; i < 3; i++) {
        if (oroya_mixer_play(m, clips[i], &a[i]) != OROYA_OK ||
            oroya_action_set_effective_weight(a[i], weights[i]) != OROYA_OK)
            return -1;
    }
    if (legs && (oroya_action_set_mask(a[1], legs) != OROYA_OK ||
                 oroya_action_set_mask(a[2], arms) != OROYA_OK))
        return -1;
    return oroya_mixer_set_time(m, 0) == OROYA_OK ? 0 : -1;
}

static double features_time(oroya_mixer *m, int runs, int frames, const long *alloc_count,
                            long *frame_allocs, long *frame_total) {
    double v[FEATURES_MAX_RUNS];
    volatile float sink = 0;
    for (int f = 0; f < frames / 10 + 1; f++)
        oroya_mixer_update(m, 1.0 / 60);
    for (int r = 0; r < runs; r++) {
        const long a0 = *alloc_count;
        const double t0 = features_now();
        for (int f = 0; f < frames; f++) {
            oroya_mixer_update(m, 1.0 / 60);
            sink += oroya_mixer_bone_matrices(m, NULL)[5].m[12];
        }
        v[r] = (features_now() - t0) * 1e6 / frames;
        *frame_allocs += *alloc_count - a0;
        *frame_total += frames;
    }
    (void)sink;
    qsort(v, (size_t)runs, sizeof *v, features_cmp);
    return runs % 2 ? v[runs / 2] : 0.5 * (v[runs / 2 - 1] + v[runs / 2]);
}

int oroya_bench_features(const oroya_bench_mixer_character *c, const oroya_allocator *allocator,
                         const long *alloc_count, int runs, int char_frames, long *frame_allocs,
                         long *frames) {
    const oroya_clip *clips[3] = {c->walk, c->run, c->wave};
    if (!clips[0] || !clips[1] || !clips[2] || runs > FEATURES_MAX_RUNS) {
        fprintf(stderr, "oroya bench: the mask figures need clips walk, run and wave\n");
        return -1;
    }
    oroya_error err = {0};
    oroya_rig *rig = NULL;
    oroya_mixer *plain = NULL, *masked = NULL;
    int status = -1;
    if (oroya_rig_create(&(oroya_rig_desc){.scene = c->scene,
                                           .joints = c->joints,
                                           .joint_count = c->joint_count,
                                           .inverse_bind = c->inverse_bind,
                                           .clips = clips,
                                           .clip_count = 3,
                                           .name = "skins[0]",
                                           .allocator = *allocator},
                         &rig, &err) != OROYA_OK) {
        fprintf(stderr, "oroya bench: rig: %s\n", cli_esc(err.message));
        goto done;
    }
    oroya_mixer_desc md = {.rig = rig, .allocator = *allocator};
    static const char *const legs_names[] = {"upper_leg_L", "upper_leg_R"};
    static const char *const arms_names[] = {"shoulder_L", "shoulder_R"};
    oroya_mask *legs = NULL, *arms = NULL;
    if (oroya_mixer_create(c->scene, &md, &plain) != OROYA_OK ||
        oroya_mixer_create(c->scene, &md, &masked) != OROYA_OK ||
        oroya_mask_create(
            masked,
            &(oroya_mask_desc){
                .name = "legs", .include = legs_names, .include_count = 2, .descendants = true},
            &legs, &err) != OROYA_OK ||
        oroya_mask_create(
            masked,
            &(oroya_mask_desc){
                .name = "arms", .include = arms_names, .include_count = 2, .descendants = true},
            &arms, &err) != OROYA_OK ||
        features_play(plain, clips, NULL, NULL) != 0 ||
        features_play(masked, clips, legs, arms) != 0 || !oroya_mixer_kernel_active(plain) ||
        !oroya_mixer_kernel_active(masked)) {
        fprintf(stderr, "oroya bench: cannot set up the mask figures: %s\n", cli_esc(err.message));
        goto done;
    }
    /* One mixer at a time on the shared scene: each update rewrites the joints. */
    double t_plain = features_time(plain, runs, char_frames, alloc_count, frame_allocs, frames);
    double t_masked = features_time(masked, runs, char_frames, alloc_count, frame_allocs, frames);
    printf("mixer_char_frame_unmasked_us %.3f us\n", t_plain);
    printf("mixer_char_frame_masked_us %.3f us\n", t_masked);
    printf("mixer_char_frame_masked_ratio %.3f x\n", t_plain > 0 ? t_masked / t_plain : 0.0);
    fflush(stdout);
    status = 0;
done:
    oroya_mixer_destroy(plain);
    oroya_mixer_destroy(masked);
    oroya_rig_destroy(rig);
    return status;
}
