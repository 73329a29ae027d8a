/* Skinning kernels of the pose layer (SSE2, and AVX2+FMA and AVX-512F where the CPU has them)
 * against the double reference oroya_pose_skin_run_reference and against a hand-computed case:
 * every tail length, unaligned inputs, outputs and palettes, writes outside the outputs;
 * error cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/pose.h"
#include "oroya/pose.h"
#include "oroya/skin.h"
#include "oroya_test.h"

enum { NV = 1001, NJ = 67, BIG_NJ = 300, GUARD = 8 };

static float pos[NV * 3], nor[NV * 3], wts[NV * 4];
static uint16_t jnt[NV * 4];
static oroya_mat4 pal[BIG_NJ];
/* Outputs of the kernel under test live inside canary-filled buffers, GUARD floats of room on
 * each side, so writes outside [out, out + 3 * count) are caught (ASan only sees whole
 * arrays). The extra 1 lets the output start one float in, off the vector alignment. */
static float out_ref_p[NV * 3], out_ref_n[NV * 3];
static float buf_p[NV * 3 + 2 * GUARD + 1], buf_n[NV * 3 + 2 * GUARD + 1];
static float out_p[NV * 3 + 4], out_n[NV * 3 + 4];
/* Room to place the palette at any byte offset up to 60 from a 64-byte boundary. */
static _Alignas(64) unsigned char pal_buf[(BIG_NJ + 1) * sizeof(oroya_mat4)];

static const float canary = 12345.0f;

static oroya_quat rand_quat(void) {
    oroya_quat q = {ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
    return oroya_quat_normalize(q);
}

/* Random affine palette of nj matrices, named by the vertices. Any rotations for NJ joints;
 * for more, rotations of at most about 35 degrees: blending four unrelated rotations can
 * nearly cancel a normal, and normalizing then magnifies float rounding beyond 1e-6 in any
 * float kernel (seen with 300 joints); those tests are about indexing, not conditioning. */
static void make_data_nj(int nj) {
    for (int j = 0; j < nj; j++) {
        oroya_quat q = rand_quat();
        if (nj > NJ) {
            q = oroya_quat_normalize((oroya_quat){ot_randf(-0.3f, 0.3f), ot_randf(-0.3f, 0.3f),
                                                  ot_randf(-0.3f, 0.3f), 1});
        }
        pal[j] = oroya_mat4_compose(
            (oroya_vec3){ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)}, q,
            (oroya_vec3){ot_randf(0.8f, 1.2f), ot_randf(0.8f, 1.2f), ot_randf(0.8f, 1.2f)});
    }
    for (int v = 0; v < NV; v++) {
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            wts[v * 4 + k] = ot_randf(0, 1);
            sum += wts[v * 4 + k];
            jnt[v * 4 + k] = (uint16_t)(ot_randf(0, 1) * (float)(nj - 1) + 0.5f);
        }
        for (int k = 0; k < 4; k++) {
            wts[v * 4 + k] /= sum;
        }
        for (int e = 0; e < 3; e++) {
            pos[v * 3 + e] = ot_randf(-1.5f, 1.5f);
            nor[v * 3 + e] = ot_randf(-1, 1);
        }
    }
    /* A zero normal stays zero. */
    nor[5 * 3] = nor[5 * 3 + 1] = nor[5 * 3 + 2] = 0;
}

static void make_data(void) { make_data_nj(NJ); }

/* One kernel against the reference on vertices [first, first + count), with the outputs
 * `shift` floats off their buffers' alignment, the palette `palette` (palette_count matrices)
 * and with or without normals. */
static void compare_case(int kernel, uint32_t first, uint32_t count, uint32_t shift,
                         const oroya_mat4 *palette, uint32_t palette_count, bool normals) {
    for (size_t i = 0; i < sizeof buf_p / sizeof buf_p[0]; i++) {
        buf_p[i] = buf_n[i] = canary;
    }
    float *op = buf_p + GUARD + shift, *on = buf_n + GUARD + shift;
    const float *nin = normals ? nor + first * 3 : NULL;
    oroya_pose_skin_job ref = {count,           pos + first * 3, nin,
                               jnt + first * 4, wts + first * 4, palette_count,
                               palette,         out_ref_p,       normals ? out_ref_n : NULL};
    oroya_pose_skin_job job = ref;
    job.out_positions = op;
    job.out_normals = normals ? on : NULL;
    OT_CHECK(oroya_pose_skin_run_reference(&ref, NULL) == OROYA_OK);
    OT_CHECK(oroya__pose_skin_run_with(&job, kernel, NULL) == OROYA_OK);
    double worst_p = 0, worst_n = 0;
    for (uint32_t i = 0; i < count * 3; i++) {
        /* Positions up to ~6 in size: float rounding of a 4-matrix blend, relative 1e-6. */
        worst_p = fmax(worst_p, fabs(op[i] - out_ref_p[i]) / (1 + fabs(out_ref_p[i])));
        if (normals) {
            worst_n = fmax(worst_n, fabs(on[i] - out_ref_n[i]));
        }
    }
    OT_CHECK_MSG(worst_p <= 1e-6,
                 "kernel %d first %u count %u shift %u palette %u: positions differ by %g", kernel,
                 first, count, shift, palette_count, worst_p);
    OT_CHECK_MSG(worst_n <= 1e-6,
                 "kernel %d first %u count %u shift %u palette %u: normals differ by %g", kernel,
                 first, count, shift, palette_count, worst_n);
    int outside = 0;
    for (size_t i = 0; i < sizeof buf_p / sizeof buf_p[0]; i++) {
        const bool mine = i >= GUARD + shift && i < GUARD + shift + (size_t)count * 3;
        outside += !mine && (buf_p[i] != canary || buf_n[i] != canary);
    }
    OT_CHECK_MSG(outside == 0, "kernel %d first %u count %u shift %u: %d floats written outside",
                 kernel, first, count, shift, outside);
    if (normals && first <= 5 && first + count > 5) {
        const float *z = on + (5 - first) * 3;
        OT_CHECK(z[0] == 0 && z[1] == 0 && z[2] == 0);
    }
}

static void compare_kernel(int kernel, uint32_t count) {
    compare_case(kernel, 0, count, 0, pal, NJ, true);
}

/* Kernels 0 (best), 1 (SSE2), 3 (AVX2+FMA) and 4 (AVX-512F), each where the CPU has it. */
static const int kernels[] = {0, 1, 3, 4};
enum { KERNEL_COUNT = sizeof kernels / sizeof kernels[0] };

static void test_kernels_against_reference(void) {
    make_data();
    const uint32_t counts[] = {1, 2, 3, 7, 64, NV};
    for (int k = 0; k < KERNEL_COUNT; k++) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            compare_kernel(kernels[k], counts[c]);
        }
    }
}

/* Every count from 1 to 9 (the groups of four and each tail length) and some beyond, starting
 * at vertices 0, 1 and 3 (inputs off their alignment, as when a mesh is split over threads),
 * outputs aligned and one float off, with and without normals. */
static void test_counts_offsets_tails(void) {
    make_data();
    const uint32_t counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 67, 255, 998};
    const uint32_t firsts[] = {0, 1, 3};
    for (int k = 0; k < KERNEL_COUNT; k++) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; f++) {
                for (uint32_t shift = 0; shift < 2; shift++) {
                    compare_case(kernels[k], firsts[f], counts[c], shift, pal, NJ, true);
                    compare_case(kernels[k], firsts[f], counts[c], shift, pal, NJ, false);
                }
            }
        }
    }
}

/* The palette at byte offsets 4, 16 and 32 from a 64-byte boundary (the fast kernels copy a
 * small one to an aligned buffer), a palette too big for that copy, and matrices whose bottom
 * row is not 0 0 0 1 (the contract ignores it). */
static void test_palettes(void) {
    make_data();
    const size_t offsets[] = {0, 4, 16, 32, 60};
    for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
        oroya_mat4 *p = (oroya_mat4 *)(pal_buf + offsets[o]);
        memcpy(p, pal, NJ * sizeof(oroya_mat4));
        for (int k = 0; k < KERNEL_COUNT; k++) {
            compare_case(kernels[k], 0, NV, 0, p, NJ, true);
            /* Fewer vertices than matrices: no copy. */
            compare_case(kernels[k], 1, 9, 1, p, NJ, true);
        }
    }
    make_data_nj(BIG_NJ);
    for (size_t o = 0; o < 2; o++) {
        oroya_mat4 *p = (oroya_mat4 *)(pal_buf + offsets[o] + 16 * o);
        memcpy(p, pal, BIG_NJ * sizeof(oroya_mat4));
        for (int k = 0; k < KERNEL_COUNT; k++) {
            compare_case(kernels[k], 0, NV, 0, p, BIG_NJ, true);
            compare_case(kernels[k], 3, 250, 1, p, BIG_NJ, false);
        }
    }
    make_data();
    for (int j = 0; j < NJ; j++) {
        pal[j].m[3] = ot_randf(-2, 2);
        pal[j].m[7] = ot_randf(-2, 2);
        pal[j].m[11] = ot_randf(-2, 2);
        pal[j].m[15] = ot_randf(-2, 2);
    }
    for (int k = 0; k < KERNEL_COUNT; k++) {
        compare_case(kernels[k], 0, NV, 0, pal, NJ, true);
        compare_case(kernels[k], 1, 7, 1, pal, NJ, true);
    }
}

/* The project's CPU skinning job (oroya_skin_job_run, matched to three.js within 1e-5) as a
 * second, independent oracle. */
static void test_against_skin_job(void) {
    make_data();
    static float sp[NV * 3], sn[NV * 3];
    oroya_skin_job sj = {.count = NV,
                         .positions = pos,
                         .normals = nor,
                         .joints = jnt,
                         .weights = wts,
                         .palette_count = NJ,
                         .palette = pal[0].m,
                         .out_positions = sp,
                         .out_normals = sn};
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_skin_job_run(&sj, &err) == OROYA_OK, "%s", err.message);
    oroya_pose_skin_job job = {NV, pos, nor, jnt, wts, NJ, pal, out_p, out_n};
    OT_CHECK(oroya_pose_skin_run(&job, NULL) == OROYA_OK);
    double worst_p = 0, worst_n = 0;
    for (uint32_t i = 0; i < NV * 3; i++) {
        worst_p = fmax(worst_p, fabs(out_p[i] - sp[i]) / (1 + fabs(sp[i])));
        worst_n = fmax(worst_n, fabs(out_n[i] - sn[i]));
    }
    OT_CHECK_MSG(worst_p <= 1e-6, "positions differ from oroya_skin_job_run by %g", worst_p);
    OT_CHECK_MSG(worst_n <= 1e-6, "normals differ from oroya_skin_job_run by %g", worst_n);
}

/* A weight-0 influence on a bone whose matrix has NaN and inf: oroya_skin_job_run skips it
 * (three.js does), and so do the deprecated job and its reference now (they gave NaN). */
static void test_zero_weight_on_non_finite_bone(void) {
    _Alignas(64) oroya_mat4 bones[2] = {oroya_mat4_identity(), oroya_mat4_identity()};
    bones[1].m[0] = NAN;
    bones[1].m[12] = INFINITY;
    const float p[3] = {1, 2, 3}, n[3] = {0, 0, 1};
    const uint16_t j[4] = {0, 1, 1, 1};
    const float w[4] = {1, 0, 0, 0};
    float op[3], on[3], sp[3], sn[3];
    oroya_skin_job sj = {.count = 1,
                         .positions = p,
                         .normals = n,
                         .joints = j,
                         .weights = w,
                         .palette_count = 2,
                         .palette = bones[0].m,
                         .out_positions = sp,
                         .out_normals = sn};
    OT_EQ_INT(oroya_skin_job_run(&sj, NULL), OROYA_OK);
    OT_CHECK(sp[0] == 1 && sp[1] == 2 && sp[2] == 3 && sn[2] == 1);
    for (int reference = 0; reference < 2; reference++) {
        oroya_pose_skin_job job = {1, p, n, j, w, 2, bones, op, on};
        OT_EQ_INT(reference ? oroya_pose_skin_run_reference(&job, NULL)
                            : oroya_pose_skin_run(&job, NULL),
                  OROYA_OK);
        OT_CHECK_MSG(!memcmp(op, sp, sizeof op) && !memcmp(on, sn, sizeof on),
                     "%s: (%g %g %g) (%g %g %g)", reference ? "reference" : "run", (double)op[0],
                     (double)op[1], (double)op[2], (double)on[0], (double)on[1], (double)on[2]);
    }
}

/* By hand: two bones, a translation and a 90-degree turn about z, weights 0.25 / 0.75. */
static void test_hand_case(void) {
    oroya_mat4 p[2];
    p[0] =
        oroya_mat4_compose((oroya_vec3){1, 2, 3}, (oroya_quat){0, 0, 0, 1}, (oroya_vec3){1, 1, 1});
    p[1] = oroya_mat4_compose((oroya_vec3){0, 0, 0}, (oroya_quat){0, 0, 0.70710678f, 0.70710678f},
                              (oroya_vec3){1, 1, 1});
    float vp[6] = {1, 0, 0, 1, 0, 0}, vn[6] = {1, 0, 0, 1, 0, 0};
    float w[8] = {0.25f, 0.75f, 0, 0, 0.25f, 0.75f, 0, 0};
    uint16_t j[8] = {0, 1, 0, 0, 0, 1, 0, 0};
    float op[6], on[6];
    for (int k = 0; k < 5; k++) {
        oroya_pose_skin_job job = {2, vp, vn, j, w, 2, p, op, on};
        OT_CHECK(oroya__pose_skin_run_with(&job, k, NULL) == OROYA_OK);
        /* 0.25 * (2, 2, 3) + 0.75 * (0, 1, 0) = (0.5, 1.25, 0.75). */
        OT_NEAR(op[3], 0.5, 1e-6);
        OT_NEAR(op[4], 1.25, 1e-6);
        OT_NEAR(op[5], 0.75, 1e-6);
        /* Normal: 0.25 * (1, 0, 0) + 0.75 * (0, 1, 0), normalized: (1, 3) / sqrt(10). */
        OT_NEAR(on[3], 1 / sqrt(10.0), 1e-6);
        OT_NEAR(on[4], 3 / sqrt(10.0), 1e-6);
        OT_NEAR(on[5], 0, 1e-6);
    }
}

static void test_errors(void) {
    make_data();
    oroya_error err = {0};
    oroya_pose_skin_job job = {NV, pos, nor, jnt, wts, NJ, pal, out_p, out_n};
    OT_EQ_INT(oroya_pose_skin_run(NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_pose_skin_job bad = job;
    bad.positions = NULL;
    OT_EQ_INT(oroya_pose_skin_run(&bad, &err), OROYA_ERR_INVALID_ARGUMENT);
    bad = job;
    bad.out_normals = NULL;
    OT_EQ_INT(oroya_pose_skin_run(&bad, &err), OROYA_ERR_INVALID_ARGUMENT);
    bad = job;
    bad.palette_count = 0;
    OT_EQ_INT(oroya_pose_skin_run(&bad, &err), OROYA_ERR_INVALID_ARGUMENT);
    bad = job;
    bad.palette_count = 40000;
    OT_EQ_INT(oroya_pose_skin_run(&bad, &err), OROYA_ERR_INVALID_ARGUMENT);
    /* An index out of range: reported with its vertex, nothing read out of bounds (ASan),
     * nothing written. */
    jnt[777 * 4 + 2] = NJ;
    for (int k = 0; k < 5; k++) {
        memset(&err, 0, sizeof err);
        for (int i = 0; i < NV * 3; i++) {
            out_p[i] = out_n[i] = canary;
        }
        OT_EQ_INT(oroya__pose_skin_run_with(&job, k, &err), OROYA_ERR_OUT_OF_RANGE);
        OT_CHECK(strstr(err.message, "vertex 777") != NULL);
        int written = 0;
        for (int i = 0; i < NV * 3; i++) {
            written += out_p[i] != canary || out_n[i] != canary;
        }
        OT_CHECK_MSG(written == 0, "kernel %d: %d output floats written on error", k, written);
    }
    jnt[777 * 4 + 2] = 0;
    /* The last vertex too (the scalar tail). */
    jnt[(NV - 1) * 4 + 3] = 65535;
    OT_EQ_INT(oroya_pose_skin_run(&job, &err), OROYA_ERR_OUT_OF_RANGE);
    jnt[(NV - 1) * 4 + 3] = 0;
    /* Count 0 is fine; positions without normals is fine. */
    job.count = 0;
    OT_EQ_INT(oroya_pose_skin_run(&job, &err), OROYA_OK);
    job.count = NV;
    job.normals = NULL;
    job.out_normals = NULL;
    OT_EQ_INT(oroya_pose_skin_run(&job, &err), OROYA_OK);
}

int main(void) {
    OT_RUN(test_kernels_against_reference);
    OT_RUN(test_counts_offsets_tails);
    OT_RUN(test_palettes);
    OT_RUN(test_against_skin_job);
    OT_RUN(test_hand_case);
    OT_RUN(test_zero_weight_on_non_finite_bone);
    OT_RUN(test_errors);
    return ot_finish();
}
