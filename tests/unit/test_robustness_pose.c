/* Robustness of the pose layer (oroya/pose.h): every allocation of skeleton, clip, character
 * and thread pool creation failed in turn; the limits (joints, layers, palette) and bad
 * runtime input (non-finite times, weights summing to 0, joints past the palette); and
 * determinism across thread counts, schedulers, batch splits and one-by-one updates. See
 * docs/robustness.md. */
#include "oroya/clip.h"
#include "oroya/pose.h"
#include "internal/base.h"
#include "test_robustness_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { NJ = 23, NK = 9 };

static uint32_t parents[NJ];
static oroya_transform rest[NJ];
static char names_buf[NJ][8];
static const char *names[NJ];
static float times[NK], rot_keys[NJ][NK * 4], pos_keys[NJ][NK * 3];
static oroya_track tracks[2 * NJ];

static unsigned rng = 4242u;
static float frand(float lo, float hi) {
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)((double)(rng >> 8) / 16777216.0);
}

static void make_data(void) {
    for (uint32_t j = 0; j < NJ; j++) {
        parents[j] = j == 0 ? UINT32_MAX : (j - 1) / 2;
        rest[j] = oroya_transform_identity();
        rest[j].translation = (oroya_vec3){frand(-1, 1), frand(0, 1), frand(-1, 1)};
        snprintf(names_buf[j], sizeof names_buf[j], "j%u", j);
        names[j] = names_buf[j];
        for (int k = 0; k < NK; k++) {
            oroya_quat q = oroya_quat_normalize(
                (oroya_quat){frand(-1, 1), frand(-1, 1), frand(-1, 1), frand(0.5f, 1)});
            memcpy(&rot_keys[j][k * 4], &q, sizeof q);
            for (int c = 0; c < 3; c++)
                pos_keys[j][k * 3 + c] = frand(-0.5f, 0.5f);
        }
    }
    for (int k = 0; k < NK; k++)
        times[k] = 0.125f * (float)k;
    for (uint32_t j = 0; j < NJ; j++) {
        oroya_track *r = &tracks[2 * j], *p = &tracks[2 * j + 1];
        memset(r, 0, sizeof *r);
        r->target = names[j];
        r->property = OROYA_PROPERTY_ROTATION;
        r->interpolation = OROYA_INTERP_LINEAR;
        r->components = 4;
        r->key_count = NK;
        r->times = times;
        r->values = rot_keys[j];
        *p = *r;
        p->property = OROYA_PROPERTY_TRANSLATION;
        p->components = 3;
        p->values = pos_keys[j];
    }
}

/* ---- fault injection ------------------------------------------------------------------- */

static oroya_result path_pose(const oroya_allocator *a, void *ctx, oroya_error *err) {
    (void)ctx;
    oroya_clip *clip = NULL;
    oroya_pose_skeleton *sk = NULL;
    oroya_pose_clip *pc = NULL, *add = NULL;
    oroya_pose_character *ch = NULL;
    oroya_thread_pool *pool = NULL;
    oroya_result r = oroya_clip_create(
        &(oroya_clip_desc){.tracks = tracks, .track_count = 2 * NJ, .allocator = *a}, &clip, err);
    if (r == OROYA_OK) {
        r = oroya_pose_skeleton_create(&(oroya_pose_skeleton_desc){.joint_count = NJ,
                                                                   .parents = parents,
                                                                   .rest = rest,
                                                                   .names = names,
                                                                   .allocator = *a},
                                       &sk, err);
    }
    if (r == OROYA_OK) {
        r = oroya_pose_clip_create(
            &(oroya_pose_clip_desc){.skeleton = sk, .clip = clip, .allocator = *a}, &pc, err);
    }
    if (r == OROYA_OK) {
        r = oroya_pose_clip_create(
            &(oroya_pose_clip_desc){
                .skeleton = sk, .clip = clip, .additive = true, .allocator = *a},
            &add, err);
    }
    if (r == OROYA_OK) {
        r = oroya_pose_character_create(
            &(oroya_pose_character_desc){.skeleton = sk, .allocator = *a}, &ch, err);
    }
    if (r == OROYA_OK) {
        r = oroya_thread_pool_create(&(oroya_thread_pool_desc){.thread_count = 2, .allocator = *a},
                                     &pool, err);
    }
    if (r == OROYA_OK) {
        oroya_pose_layer layers[2] = {{pc, 0.3f, 1.0f}, {add, 0.6f, 0.5f}};
        oroya_pose_update u = {ch, layers, 2};
        oroya_scheduler s = {oroya_thread_pool_parallel_for, pool};
        r = oroya_pose_update_batch(&u, 1, &s, err);
    }
    oroya_thread_pool_destroy(pool);
    oroya_pose_character_destroy(ch);
    oroya_pose_clip_destroy(add);
    oroya_pose_clip_destroy(pc);
    oroya_pose_skeleton_destroy(sk);
    oroya_clip_destroy(clip);
    return r;
}

static void test_fault_pose(void) {
    long n = rb_fail_each("pose", path_pose, NULL, true);
    OT_CHECK(n >= 6);
    printf("  pose path: %ld allocations, each failed in turn\n", n);
}

/* ---- limits and bad input ---------------------------------------------------------------- */

static void test_pose_limits(void) {
    oroya_error err = {0};
    oroya_pose_skeleton *sk = NULL;
    static uint32_t many[OROYA_POSE_MAX_JOINTS + 1];
    for (uint32_t j = 0; j <= OROYA_POSE_MAX_JOINTS; j++)
        many[j] = j ? j - 1 : UINT32_MAX;
    OT_EQ_INT(
        oroya_pose_skeleton_create(
            &(oroya_pose_skeleton_desc){.joint_count = OROYA_POSE_MAX_JOINTS + 1, .parents = many},
            &sk, &err),
        OROYA_ERR_LIMIT);
    OT_CHECK(sk == NULL);
    OT_EQ_INT(
        oroya_pose_skeleton_create(
            &(oroya_pose_skeleton_desc){.joint_count = OROYA_POSE_MAX_JOINTS, .parents = many}, &sk,
            &err),
        OROYA_OK);
    oroya_pose_skeleton_destroy(sk);
    /* A parent after its child. */
    uint32_t bad[3] = {UINT32_MAX, 2, 0};
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){.joint_count = 3, .parents = bad}, &sk, &err),
              OROYA_ERR_INVALID_DATA);

    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){
                      .joint_count = NJ, .parents = parents, .rest = rest, .names = names},
                  &sk, &err),
              OROYA_OK);
    oroya_pose_character *ch = NULL;
    OT_CHECK(
        oroya_pose_character_create(
            &(oroya_pose_character_desc){.skeleton = sk, .max_layers = OROYA_POSE_MAX_LAYERS + 1},
            &ch, &err) != OROYA_OK);
    OT_CHECK(ch == NULL);
    OT_EQ_INT(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = sk}, &ch, &err),
              OROYA_OK);
    oroya_clip *clip = NULL;
    oroya_pose_clip *pc = NULL;
    oroya_clip_create(&(oroya_clip_desc){.tracks = tracks, .track_count = 2 * NJ}, &clip, &err);
    OT_EQ_INT(
        oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = sk, .clip = clip}, &pc, &err),
        OROYA_OK);

    /* A good frame, then bad times: refused, outputs unchanged. */
    oroya_pose_layer good = {pc, 0.4f, 1.0f};
    OT_EQ_INT(oroya_pose_character_update(ch, &good, 1, &err), OROYA_OK);
    static oroya_mat4 before[NJ];
    memcpy(before, oroya_pose_character_bones(ch), sizeof before);
    const float bad_times[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        oroya_pose_layer l = {pc, bad_times[i], 1.0f};
        OT_EQ_INT(oroya_pose_character_update(ch, &l, 1, &err), OROYA_ERR_INVALID_ARGUMENT);
        OT_CHECK(memcmp(before, oroya_pose_character_bones(ch), sizeof before) == 0);
    }
    oroya_pose_layer five[5] = {good, good, good, good, good}; /* max_layers defaults to 4 */
    OT_EQ_INT(oroya_pose_character_update(ch, five, 5, &err), OROYA_ERR_INVALID_ARGUMENT);

    /* Weights that sum to 0 (or NaN): no normal layer counts, the rest pose shows. */
    oroya_pose_layer zero[2] = {{pc, 0.4f, 0.0f}, {pc, 0.7f, NAN}};
    OT_EQ_INT(oroya_pose_character_update(ch, zero, 2, &err), OROYA_OK);
    const oroya_soa_transform *loc = oroya_pose_character_locals(ch);
    const oroya_soa_transform *r0 = oroya_pose_skeleton_rest(sk);
    OT_CHECK(memcmp(loc, r0, sizeof(oroya_soa_transform) * ((NJ + 3) / 4)) == 0);
    const oroya_mat4 *m = oroya_pose_character_models(ch);
    bool finite = true;
    for (int j = 0; j < NJ; j++)
        for (int e = 0; e < 16; e++)
            finite = finite && isfinite(m[j].m[e]);
    OT_CHECK(finite);

    /* Skinning: palette size limit, joints past the palette leave the outputs untouched. */
    float pos[6] = {0, 0, 0, 1, 1, 1}, out[6] = {7, 7, 7, 7, 7, 7};
    uint16_t joints[8] = {0, 0, 0, 0, NJ, 0, 0, 0};
    float weights[8] = {1, 0, 0, 0, 1, 0, 0, 0};
    oroya_pose_skin_job job = {.count = 2,
                               .positions = pos,
                               .joints = joints,
                               .weights = weights,
                               .palette_count = NJ,
                               .palette = oroya_pose_character_bones(ch),
                               .out_positions = out};
    OT_EQ_INT(oroya_pose_skin_run(&job, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK_MSG(strstr(err.message, "vertex 1") != NULL, "%s", err.message);
    OT_CHECK(out[0] == 7 && out[5] == 7);
    job.palette_count = 32768;
    OT_EQ_INT(oroya_pose_skin_run(&job, &err), OROYA_ERR_INVALID_ARGUMENT);
    job.palette_count = 0;
    OT_EQ_INT(oroya_pose_skin_run(&job, &err), OROYA_ERR_INVALID_ARGUMENT);

    oroya_pose_clip_destroy(pc);
    oroya_clip_destroy(clip);
    oroya_pose_character_destroy(ch);
    oroya_pose_skeleton_destroy(sk);
}

/* ---- determinism across threads ---------------------------------------------------------- */

/* A scheduler that runs the range in chunks of 3, last chunk first. */
static void odd_parallel_for(void *user, uint32_t count, oroya_range_fn fn, void *ctx) {
    (void)user;
    if (count == 0)
        return;
    uint32_t last = (count - 1) / 3 * 3;
    for (uint32_t b = last + 3; b >= 3; b -= 3) {
        uint32_t begin = b - 3, end = begin + 3 < count ? begin + 3 : count;
        fn(ctx, begin, end);
    }
}

enum { NC = 37 };

static void run_crowd(oroya_pose_character **chars, const oroya_pose_clip *pc,
                      const oroya_pose_clip *add, const oroya_scheduler *s, int frames,
                      bool one_by_one, oroya_mat4 *out) {
    static oroya_pose_layer layers[NC][2];
    oroya_pose_update ups[NC];
    oroya_error err = {0};
    for (int f = 0; f < frames; f++) {
        for (int c = 0; c < NC; c++) {
            float t = 0.017f * (float)f + 0.031f * (float)c;
            layers[c][0] = (oroya_pose_layer){pc, fmodf(t, 1.0f), 1.0f};
            layers[c][1] = (oroya_pose_layer){add, fmodf(t * 1.7f, 1.0f), 0.3f + 0.01f * (float)c};
            ups[c] = (oroya_pose_update){chars[c], layers[c], 2};
        }
        if (one_by_one) {
            for (int c = 0; c < NC; c++)
                OT_EQ_INT(oroya_pose_character_update(chars[c], layers[c], 2, &err), OROYA_OK);
        } else {
            OT_EQ_INT(oroya_pose_update_batch(ups, NC, s, &err), OROYA_OK);
        }
    }
    for (int c = 0; c < NC; c++)
        memcpy(out + c * NJ, oroya_pose_character_bones(chars[c]), NJ * sizeof(oroya_mat4));
}

static void test_pose_determinism(void) {
    oroya_error err = {0};
    oroya_pose_skeleton *sk = NULL;
    oroya_pose_skeleton_create(
        &(oroya_pose_skeleton_desc){
            .joint_count = NJ, .parents = parents, .rest = rest, .names = names},
        &sk, &err);
    oroya_clip *clip = NULL;
    oroya_clip_create(&(oroya_clip_desc){.tracks = tracks, .track_count = 2 * NJ}, &clip, &err);
    oroya_pose_clip *pc = NULL, *add = NULL;
    oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = sk, .clip = clip}, &pc, &err);
    oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = sk, .clip = clip, .additive = true},
                           &add, &err);
    static oroya_mat4 ref[NC * NJ], got[NC * NJ];
    /* Each configuration gets fresh characters (cursors start at 0) and plays 30 frames. */
    for (int config = 0; config < 7; config++) {
        oroya_pose_character *chars[NC];
        for (int c = 0; c < NC; c++)
            oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = sk}, &chars[c],
                                        &err);
        oroya_thread_pool *pool = NULL;
        oroya_scheduler s = {NULL, NULL};
        const char *what = "one by one";
        if (config >= 2 && config <= 5) {
            uint32_t threads = (uint32_t)config - 1; /* 1, 2, 3, 4 */
            OT_EQ_INT(oroya_thread_pool_create(&(oroya_thread_pool_desc){.thread_count = threads},
                                               &pool, &err),
                      OROYA_OK);
            s = (oroya_scheduler){oroya_thread_pool_parallel_for, pool};
            what = threads == 1   ? "pool of 1"
                   : threads == 2 ? "pool of 2"
                   : threads == 3 ? "pool of 3"
                                  : "pool of 4";
        } else if (config == 1) {
            what = "batch, this thread";
        } else if (config == 6) {
            s = (oroya_scheduler){odd_parallel_for, NULL};
            what = "chunks of 3, last first";
        }
        run_crowd(chars, pc, add, config == 1 ? NULL : &s, 30, config == 0,
                  config == 0 ? ref : got);
        if (config > 0) {
            OT_CHECK_MSG(memcmp(ref, got, sizeof ref) == 0,
                         "%s: bone matrices differ from one "
                         "by one",
                         what);
        }
        oroya_thread_pool_destroy(pool);
        for (int c = 0; c < NC; c++)
            oroya_pose_character_destroy(chars[c]);
    }
    oroya_pose_clip_destroy(add);
    oroya_pose_clip_destroy(pc);
    oroya_clip_destroy(clip);
    oroya_pose_skeleton_destroy(sk);
}

int main(void) {
    make_data();
    RB_RUN(test_fault_pose);
    RB_RUN(test_pose_limits);
    RB_RUN(test_pose_determinism);
    return ot_finish();
}
