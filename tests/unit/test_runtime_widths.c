/* The runtime frame gives the same bits on every x86-64 CPU.
 *
 * Two mixers on the benchmark humanoid (bench/bench_character.h), each run for 400 frames:
 *   ik     walk + run blended, two foot IKs (the float two-bone path, soft limit switched on
 *          and off) and a three-joint head aim (the float path at weight 1, the double solver
 *          at weight 0.7), targets moving;
 *   blend  walk_cubic cross-fading to run with warp and back, the wave clip made additive on
 *          top at weight 0.8.
 * The bone and model matrices of every frame go into one FNV-1a hash per mixer.
 *
 * Run as a unit test, the program checks in one process that the AVX2 kernel and the SSE2
 * baseline (oroya__pose_force_baseline) give the same hashes, that no IK fell back, and that
 * the IKs changed the pose in every frame (against the same mixer without IK). With --print it
 * prints the CPU features the library dispatches on and the hashes every 100 frames, for
 * tests/widths/test_runtime_widths_qemu.sh, which runs it again on emulated CPUs without
 * AVX2 or FMA (qemu-user): the IK solver's clones, the kernel's dispatch and libm's own
 * variants are then those of another machine, and the hashes must not change. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_character.h"
#include "internal/pose.h" /* oroya__pose_force_baseline */
#include "oroya/ik.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya_test.h"

#define FRAMES 400

typedef struct {
    uint64_t ik[FRAMES / 100], blend[FRAMES / 100];
    int ik_changed;   /* frames whose bones differ from the same mixer without IK */
    int ik_fallbacks; /* summed over the frames */
} hashes;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ c[i]) * 1099511628211ull;
    }
    return h;
}

static uint32_t kernel_joint(const oroya_rig *rig, const oroya_scene *scene, const char *name) {
    for (uint32_t k = 0; k < oroya_rig_kernel_joint_count(rig); k++) {
        const char *n = oroya_scene_node_name(scene, oroya_rig_kernel_node(rig, k));
        if (n && !strcmp(n, name)) {
            return k;
        }
    }
    return UINT32_MAX;
}

static oroya_rig *make_rig(const bench_character *g) {
    const oroya_clip *clips[BENCH_CHARACTER_CLIPS] = {g->clips[0], g->clips[1], g->clips[2],
                                                      g->clips[3]};
    oroya_rig *rig = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_rig_create(&(oroya_rig_desc){.scene = g->scene,
                                                    .joints = g->nodes,
                                                    .joint_count = g->joint_count,
                                                    .inverse_bind = g->inverse_bind,
                                                    .clips = clips,
                                                    .clip_count = BENCH_CHARACTER_CLIPS,
                                                    .name = "skins[0]"},
                                  &rig, &err) == OROYA_OK,
                 "%s", err.message);
    return rig;
}

static uint64_t frame_hash(uint64_t h, oroya_mixer *m, uint32_t joints) {
    h = fnv(h, oroya_mixer_bone_matrices(m, NULL), joints * sizeof(oroya_mat4));
    return fnv(h, oroya_mixer_model_matrices(m, NULL), joints * sizeof(oroya_mat4));
}

/* The ik workload (see the top); plain: the same mixer with no IK, for ik_changed. */
static void run_ik(const bench_character *g, hashes *out) {
    oroya_rig *rig = make_rig(g);
    oroya_mixer *m[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        OT_CHECK(oroya_mixer_create(g->scene, &(oroya_mixer_desc){.rig = rig}, &m[k]) == OROYA_OK);
        oroya_action *a = NULL, *b = NULL;
        OT_CHECK(oroya_mixer_play(m[k], g->clips[0], &a) == OROYA_OK);
        OT_CHECK(oroya_mixer_play(m[k], g->clips[1], &b) == OROYA_OK);
        oroya_action_set_effective_weight(a, 0.6);
        oroya_action_set_effective_weight(b, 0.4);
        OT_CHECK(oroya_mixer_update(m[k], 0) == OROYA_OK);
    }
    static const char *const names[9] = {"upper_leg_L", "lower_leg_L", "foot_L",
                                         "upper_leg_R", "lower_leg_R", "foot_R",
                                         "neck",        "neck1",       "head"};
    uint32_t j[9];
    for (int i = 0; i < 9; i++) {
        j[i] = kernel_joint(rig, g->scene, names[i]);
        OT_CHECK_MSG(j[i] != UINT32_MAX, "no joint %s", names[i]);
    }
    const oroya_mat4 *models = oroya_mixer_model_matrices(m[0], NULL);
    oroya_vec3 feet[2];
    oroya_ik iks[3];
    for (int k = 0; k < 2; k++) {
        const float *fm = models[j[3 * k + 2]].m;
        feet[k] = (oroya_vec3){fm[12], fm[13] + 0.02f, fm[14] + 0.05f};
        iks[k] = (oroya_ik){.type = OROYA_IK_TWO_BONE,
                            .name = k ? "footR" : "footL",
                            .joints = {j[3 * k], j[3 * k + 1], j[3 * k + 2]},
                            .pole = {0, 0, 1},
                            .weight = 1,
                            .soft = 0.05f};
    }
    iks[2] = (oroya_ik){.type = OROYA_IK_AIM,
                        .name = "head",
                        .joints = {j[6], j[7], j[8]},
                        .joint_count = 3,
                        .shares = {0.3f, 0.3f, 0.4f},
                        .forward = {0, 0, 1},
                        .up = {0, 1, 0},
                        .weight = 1};
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_mixer_set_ik(m[0], iks, 3, &err) == OROYA_OK, "%s", err.message);
    const uint32_t joints = g->joint_count;
    uint64_t h = 1469598103934665603ull;
    for (int f = 1; f <= FRAMES; f++) {
        const float t = (float)f / 60.0f;
        for (int k = 0; k < 2; k++) {
            iks[k].target =
                (oroya_vec3){feet[k].x + 0.1f * sinf(3 * t), feet[k].y + 0.05f * sinf(5 * t),
                             feet[k].z + 0.3f * cosf(2 * t)};
        }
        iks[1].soft = f % 80 < 40 ? 0.05f : 0.0f;
        iks[2].target = (oroya_vec3){2 * sinf(t), 1.5f + 0.5f * cosf(1.3f * t), 2};
        iks[2].weight = f % 100 < 50 ? 1.0f : 0.7f; /* 0.7: the double solver */
        for (int k = 0; k < 2; k++) {
            OT_CHECK(oroya_mixer_update(m[k], 1.0 / 60) == OROYA_OK);
            OT_CHECK(oroya_mixer_kernel_active(m[k]));
        }
        out->ik_fallbacks += (int)oroya_mixer_ik_fallbacks(m[0], NULL);
        out->ik_changed +=
            memcmp(oroya_mixer_bone_matrices(m[0], NULL), oroya_mixer_bone_matrices(m[1], NULL),
                   joints * sizeof(oroya_mat4)) != 0;
        h = frame_hash(h, m[0], joints);
        if (f % 100 == 0) {
            out->ik[f / 100 - 1] = h;
        }
    }
    oroya_mixer_destroy(m[0]);
    oroya_mixer_destroy(m[1]);
    oroya_rig_destroy(rig);
}

/* The blend workload (see the top). */
static void run_blend(const bench_character *g, hashes *out) {
    oroya_rig *rig = make_rig(g);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(g->scene, &(oroya_mixer_desc){.rig = rig}, &m) == OROYA_OK);
    oroya_action *cubic = NULL, *run = NULL, *wave = NULL;
    OT_CHECK(oroya_mixer_play(m, g->clips[3], &cubic) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(m, g->clips[1], &run) == OROYA_OK);
    OT_CHECK(oroya_action_create(
                 m, g->clips[2],
                 &(oroya_action_desc){.has_blend_mode = true, .blend_mode = OROYA_BLEND_ADDITIVE},
                 &wave) == OROYA_OK);
    oroya_action_play(wave);
    oroya_action_set_effective_weight(wave, 0.8);
    oroya_action_set_effective_weight(run, 0);
    const uint32_t joints = g->joint_count;
    uint64_t h = 1469598103934665603ull;
    for (int f = 1; f <= FRAMES; f++) {
        if (f == 30) {
            OT_CHECK(oroya_action_cross_fade_to(cubic, run, 0.8, true) == OROYA_OK);
        } else if (f == 200) {
            oroya_action_set_effective_weight(cubic, 1);
            OT_CHECK(oroya_action_cross_fade_to(run, cubic, 1.1, true) == OROYA_OK);
        }
        OT_CHECK(oroya_mixer_update(m, 1.0 / 60) == OROYA_OK);
        OT_CHECK(oroya_mixer_kernel_active(m));
        h = frame_hash(h, m, joints);
        if (f % 100 == 0) {
            out->blend[f / 100 - 1] = h;
        }
    }
    oroya_mixer_destroy(m);
    oroya_rig_destroy(rig);
}

static void run_all(hashes *out, bool baseline) {
    bench_character g;
    oroya_error err = {0};
    memset(out, 0, sizeof *out);
    if (bench_character_create(NULL, &g, &err) != OROYA_OK) {
        OT_CHECK_MSG(false, "bench_character_create: %s", err.message);
        return;
    }
    /* The wave clip as an additive layer against its first frame. */
    OT_CHECK(oroya_clip_make_additive(g.clips[2], 0, NULL, 30) == OROYA_OK);
    oroya__pose_force_baseline = baseline;
    run_ik(&g, out);
    run_blend(&g, out);
    oroya__pose_force_baseline = false;
    bench_character_free(&g);
}

static int cpu_has(const char *feature) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (!strcmp(feature, "avx2")) {
        return __builtin_cpu_supports("avx2") != 0;
    }
    return __builtin_cpu_supports("fma") != 0;
#else
    (void)feature;
    return 0;
#endif
}

static void test_widths_same_bits(void) {
    hashes a, b;
    run_all(&a, false);
    run_all(&b, true);
    OT_CHECK_MSG(!memcmp(a.ik, b.ik, sizeof a.ik),
                 "ik: the AVX2 kernel and the SSE2 baseline differ");
    OT_CHECK_MSG(!memcmp(a.blend, b.blend, sizeof a.blend),
                 "blend: the AVX2 kernel and the SSE2 baseline differ");
    OT_EQ_INT(a.ik_fallbacks, 0);
    OT_EQ_INT(a.ik_changed, FRAMES);
    if (!cpu_has("avx2")) {
        printf("test_widths_same_bits: no AVX2 here: both runs took the SSE2 kernel\n");
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--print")) {
        hashes h;
        run_all(&h, false);
        printf("cpu avx2 %d fma %d\n", cpu_has("avx2"), cpu_has("fma"));
        printf("ik fallbacks %d changed %d of %d\n", h.ik_fallbacks, h.ik_changed, FRAMES);
        for (int i = 0; i < FRAMES / 100; i++) {
            printf("ik frame %d %016llx\n", (i + 1) * 100, (unsigned long long)h.ik[i]);
        }
        for (int i = 0; i < FRAMES / 100; i++) {
            printf("blend frame %d %016llx\n", (i + 1) * 100, (unsigned long long)h.blend[i]);
        }
        return ot_finish();
    }
    OT_RUN(test_widths_same_bits);
    return ot_finish();
}
