/* Skinning kernels of the pose layer (SSE2, AVX2+FMA when the CPU has it) against the double
 * reference oroya_pose_skin_run_reference and against a hand-computed case; error cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/pose.h"
#include "oroya/pose.h"
#include "oroya/skin.h"
#include "oroya_test.h"

enum { NV = 1001, NJ = 67 };

static float pos[NV * 3], nor[NV * 3], wts[NV * 4];
static uint16_t jnt[NV * 4];
static oroya_mat4 pal[NJ];
/* One extra vertex of room after each output to catch writes past the end. */
static float out_ref_p[NV * 3 + 4], out_ref_n[NV * 3 + 4], out_p[NV * 3 + 4], out_n[NV * 3 + 4];

static oroya_quat rand_quat(void) {
    oroya_quat q = {ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
    return oroya_quat_normalize(q);
}

static void make_data(void) {
    for (int j = 0; j < NJ; j++) {
        pal[j] = oroya_mat4_compose(
            (oroya_vec3){ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)}, rand_quat(),
            (oroya_vec3){ot_randf(0.8f, 1.2f), ot_randf(0.8f, 1.2f), ot_randf(0.8f, 1.2f)});
    }
    for (int v = 0; v < NV; v++) {
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            wts[v * 4 + k] = ot_randf(0, 1);
            sum += wts[v * 4 + k];
            jnt[v * 4 + k] = (uint16_t)(ot_randf(0, 1) * (NJ - 1) + 0.5f);
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

static void compare_kernel(int kernel, uint32_t count) {
    const float canary = 12345.0f;
    out_p[count * 3] = out_n[count * 3] = canary;
    oroya_pose_skin_job ref = {count, pos, nor, jnt, wts, NJ, pal, out_ref_p, out_ref_n};
    oroya_pose_skin_job job = {count, pos, nor, jnt, wts, NJ, pal, out_p, out_n};
    OT_CHECK(oroya_pose_skin_run_reference(&ref, NULL) == OROYA_OK);
    OT_CHECK(oroya__pose_skin_run_with(&job, kernel, NULL) == OROYA_OK);
    double worst_p = 0, worst_n = 0;
    for (uint32_t i = 0; i < count * 3; i++) {
        /* Positions up to ~6 in size: float rounding of a 4-matrix blend, relative 1e-6. */
        worst_p = fmax(worst_p, fabs(out_p[i] - out_ref_p[i]) / (1 + fabs(out_ref_p[i])));
        worst_n = fmax(worst_n, fabs(out_n[i] - out_ref_n[i]));
    }
    OT_CHECK_MSG(worst_p <= 1e-6, "kernel %d count %u: positions differ by %g", kernel, count,
                 worst_p);
    OT_CHECK_MSG(worst_n <= 1e-6, "kernel %d count %u: normals differ by %g", kernel, count,
                 worst_n);
    OT_CHECK(out_p[count * 3] == canary && out_n[count * 3] == canary);
    OT_CHECK(out_n[15] == 0 || count <= 5);
}

static void test_kernels_against_reference(void) {
    make_data();
    const uint32_t counts[] = {1, 2, 3, 7, 64, NV};
    for (int k = 0; k < 2; k++) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            compare_kernel(k, counts[c]);
        }
    }
}

/* The project's CPU skinning job (oroya_skin_job_run, matched to three.js within 1e-5) as a
 * second, independent oracle. */
static void test_against_skin_job(void) {
    make_data();
    static float sp[NV * 3], sn[NV * 3];
    oroya_skin_job sj = {.count = NV, .positions = pos, .normals = nor, .joints = jnt,
                         .weights = wts, .palette_count = NJ, .palette = pal[0].m,
                         .out_positions = sp, .out_normals = sn};
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

/* By hand: two bones, a translation and a 90-degree turn about z, weights 0.25 / 0.75. */
static void test_hand_case(void) {
    oroya_mat4 p[2];
    p[0] = oroya_mat4_compose((oroya_vec3){1, 2, 3}, (oroya_quat){0, 0, 0, 1},
                              (oroya_vec3){1, 1, 1});
    p[1] = oroya_mat4_compose((oroya_vec3){0, 0, 0}, (oroya_quat){0, 0, 0.70710678f, 0.70710678f},
                              (oroya_vec3){1, 1, 1});
    float vp[6] = {1, 0, 0, 1, 0, 0}, vn[6] = {1, 0, 0, 1, 0, 0};
    float w[8] = {0.25f, 0.75f, 0, 0, 0.25f, 0.75f, 0, 0};
    uint16_t j[8] = {0, 1, 0, 0, 0, 1, 0, 0};
    float op[6], on[6];
    for (int k = 0; k < 3; k++) {
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
    /* An index out of range: reported with its vertex, nothing read out of bounds (ASan). */
    jnt[777 * 4 + 2] = NJ;
    for (int k = 0; k < 3; k++) {
        memset(&err, 0, sizeof err);
        OT_EQ_INT(oroya__pose_skin_run_with(&job, k, &err), OROYA_ERR_OUT_OF_RANGE);
        OT_CHECK(strstr(err.message, "vertex 777") != NULL);
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
    OT_RUN(test_against_skin_job);
    OT_RUN(test_hand_case);
    OT_RUN(test_errors);
    return ot_finish();
}
