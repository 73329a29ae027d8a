/* The mixer's figures of `oroya bench`: the tutorials' API (actions, weights, an additive
 * action) on a glTF character through the pose kernel path (oroya_mixer_desc.rig), bone
 * matrices included, to compare with the pose layer's char_frame_us / crowd1000_ms:
 *   mixer_char_frame_us           walk 0.6 + run 0.4, one mixer on the character's scene
 *   mixer_char_frame_additive_us  the same plus wave as an additive action
 *   mixer_crowd1000_ms            1000 mixers (own state, own time offset, no scene: bone
 *                                 matrices only), oroya_mixer_update_batch on one thread
 *   mixer_crowd1000_2t_ms         the same on two threads (wall-clock)
 * Times as in cmd_bench.c: thread CPU time for one thread, medians of `runs`. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_util.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"

#define MIXER_CROWD 1000
#define MIXER_MAX_RUNS 64

static double now_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The one-thread crowd's frames, apart so that callgrind can count them alone
 * (--toggle-collect=crowd_frames_mixer; cmd_bench.c has crowd_frames_pose). */
static __attribute__((noinline)) void crowd_frames_mixer(oroya_mixer **crowd, int frames,
                                                         double dt) {
    for (int f = 0; f < frames; f++) {
        oroya_mixer_update_batch(crowd, MIXER_CROWD, dt, NULL, NULL);
    }
}

/* walk 0.6 + run 0.4 (and wave, additive, when given) on a new mixer. */
static int play_walk_run(oroya_mixer *m, const oroya_clip *walk, const oroya_clip *run,
                         const oroya_clip *wave, double time) {
    oroya_action *a = NULL, *b = NULL, *c = NULL;
    if (oroya_mixer_play(m, walk, &a) != OROYA_OK || oroya_mixer_play(m, run, &b) != OROYA_OK) {
        return -1;
    }
    oroya_action_set_effective_weight(a, 0.6);
    oroya_action_set_effective_weight(b, 0.4);
    if (wave) {
        oroya_action_desc d = {.has_blend_mode = true, .blend_mode = OROYA_BLEND_ADDITIVE};
        if (oroya_action_create(m, wave, &d, &c) != OROYA_OK) {
            return -1;
        }
        oroya_action_play(c);
    }
    return oroya_mixer_set_time(m, time) == OROYA_OK ? 0 : -1;
}

int oroya_bench_mixer(const oroya_bench_mixer_character *ch, const oroya_allocator *allocator,
                      const long *alloc_count, void *pool, int runs, int char_frames,
                      int crowd_frames, long *frame_allocs, long *frames) {
    const oroya_clip *walk = ch->walk, *run = ch->run, *wave_src = ch->wave;
    if (!walk || !run || !wave_src || runs > MIXER_MAX_RUNS) {
        fprintf(stderr, "oroya bench: the mixer figures need clips walk, run and wave\n");
        return -1;
    }
    oroya_error err = {0};
    int status = -1;
    oroya_clip *wave = NULL;
    oroya_rig *rig = NULL;
    oroya_mixer *one = NULL, *one_add = NULL;
    oroya_mixer **crowd = calloc(MIXER_CROWD, sizeof *crowd);
    /* The additive wave is a copy made relative to its first frame (makeClipAdditive), before
     * the rig builds its runtime clips. */
    if (!crowd || oroya_clip_clone(wave_src, &wave, &err) != OROYA_OK ||
        oroya_clip_make_additive(wave, 0, NULL, 30) != OROYA_OK) {
        fprintf(stderr, "oroya bench: wave: %s\n", cli_esc(err.message));
        goto done;
    }
    const oroya_clip *clips[3] = {walk, run, wave};
    if (oroya_rig_create(&(oroya_rig_desc){.scene = ch->scene,
                                           .joints = ch->joints,
                                           .joint_count = ch->joint_count,
                                           .inverse_bind = ch->inverse_bind,
                                           .clips = clips,
                                           .clip_count = 3,
                                           .name = "skins[0]",
                                           .allocator = *allocator},
                         &rig, &err) != OROYA_OK) {
        fprintf(stderr, "oroya bench: rig: %s\n", cli_esc(err.message));
        goto done;
    }
    oroya_mixer_desc md = {.rig = rig, .allocator = *allocator};
    if (oroya_mixer_create(ch->scene, &md, &one) != OROYA_OK ||
        play_walk_run(one, walk, run, NULL, 0) != 0) {
        fprintf(stderr, "oroya bench: cannot set up the mixer\n");
        goto done;
    }
    for (uint32_t i = 0; i < MIXER_CROWD; i++) {
        if (oroya_mixer_create(NULL, &md, &crowd[i]) != OROYA_OK ||
            play_walk_run(crowd[i], walk, run, NULL, 0.0137 * i) != 0) {
            fprintf(stderr, "oroya bench: cannot set up the crowd\n");
            goto done;
        }
    }
    if (!oroya_mixer_kernel_active(one) || !oroya_mixer_kernel_active(crowd[0])) {
        fprintf(stderr, "oroya bench: the mixer does not take the kernel path\n");
        goto done;
    }
    const double dt = 1.0 / 60;
    double v[MIXER_MAX_RUNS];
    volatile float sink = 0;
    for (int pass = 0; pass < 2; pass++) {
        oroya_mixer *m = one;
        if (pass == 1) {
            /* A mixer of its own for the additive figure (the first one keeps its actions). */
            oroya_mixer_destroy(one);
            one = NULL;
            if (oroya_mixer_create(ch->scene, &md, &one_add) != OROYA_OK ||
                play_walk_run(one_add, walk, run, wave, 0) != 0) {
                fprintf(stderr, "oroya bench: cannot set up the additive mixer\n");
                goto done;
            }
            m = one_add;
        }
        for (int f = 0; f < char_frames / 10 + 1; f++) {
            oroya_mixer_update(m, dt);
        }
        for (int r = 0; r < runs; r++) {
            const long a0 = *alloc_count;
            const double t0 = now_s(CLOCK_THREAD_CPUTIME_ID);
            for (int f = 0; f < char_frames; f++) {
                oroya_mixer_update(m, dt);
                sink += oroya_mixer_bone_matrices(m, NULL)[5].m[12];
            }
            v[r] = (now_s(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e6 / char_frames;
            *frame_allocs += *alloc_count - a0;
            *frames += char_frames;
        }
        printf("%s %.3f us\n", pass ? "mixer_char_frame_additive_us" : "mixer_char_frame_us",
               median_of(v, runs));
    }
    oroya_scheduler sched = {oroya_thread_pool_parallel_for, pool};
    for (int threads = 1; threads <= 2; threads++) {
        const oroya_scheduler *s = threads == 2 ? &sched : NULL;
        const clockid_t clock = threads == 2 ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
        if (s) {
            oroya_mixer_update_batch(crowd, MIXER_CROWD, dt, s, NULL);
        } else {
            crowd_frames_mixer(crowd, 1, dt);
        }
        for (int r = 0; r < runs; r++) {
            const long a0 = *alloc_count;
            const double t0 = now_s(clock);
            if (s) {
                for (int f = 0; f < crowd_frames; f++) {
                    oroya_mixer_update_batch(crowd, MIXER_CROWD, dt, s, NULL);
                }
            } else {
                crowd_frames_mixer(crowd, crowd_frames, dt);
            }
            v[r] = (now_s(clock) - t0) * 1e3 / crowd_frames;
            *frame_allocs += *alloc_count - a0;
            *frames += crowd_frames;
        }
        printf("%s %.3f ms\n", threads == 2 ? "mixer_crowd1000_2t_ms" : "mixer_crowd1000_ms",
               median_of(v, runs));
    }
    (void)sink;
    fflush(stdout);
    status = 0;
done:
    for (uint32_t i = 0; crowd && i < MIXER_CROWD; i++) {
        oroya_mixer_destroy(crowd[i]);
    }
    free(crowd);
    oroya_mixer_destroy(one);
    oroya_mixer_destroy(one_add);
    oroya_rig_destroy(rig);
    oroya_clip_destroy(wave);
    return status;
}
