/* Math: vectors, quaternions and matrices against cglm as an independent oracle, property
 * tests over random inputs, slerp edge cases, and the Hermite values the tutorial gets
 * wrong (cubicSpline(0.5, 0, 5, 10, -2) is 5.875, not ~6.875; hermite(0.5, ...) is
 * (2.5, 1.875, 0), not (2.5, 3.125, 0)). */
#include "oroya/math.h"
#include "oroya_test.h"

#include <cglm/cglm.h>

#define N_RANDOM 10000

static oroya_quat random_unit_quat(void) {
    oroya_quat q = {ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
    return oroya_quat_normalize(q);
}

static oroya_vec3 random_vec3(float lo, float hi) {
    return (oroya_vec3){ot_randf(lo, hi), ot_randf(lo, hi), ot_randf(lo, hi)};
}

/* Rotation angle between two unit quaternions, well conditioned near 0 (atan2 of the vector
 * and scalar parts of conj(a) * b, in double). */
static float quat_angle_between(oroya_quat a, oroya_quat b) {
    oroya_quat d = oroya_quat_mul(oroya_quat_conjugate(a), b);
    double v = sqrt((double)d.x * d.x + (double)d.y * d.y + (double)d.z * d.z);
    return (float)(2.0 * atan2(v, fabs((double)d.w)));
}

static void test_hermite_true_values(void) {
    OT_NEAR(oroya_float_hermite(0.5f, 0, 5, 10, -2), 5.875, 1e-6);
    oroya_vec3 h = oroya_vec3_hermite(0.5f, (oroya_vec3){0, 0, 0}, (oroya_vec3){0, 10, 0},
                                      (oroya_vec3){5, 0, 0}, (oroya_vec3){0, -5, 0});
    OT_NEAR(h.x, 2.5, 1e-6);
    OT_NEAR(h.y, 1.875, 1e-6);
    OT_NEAR(h.z, 0.0, 1e-6);
    /* Endpoints give the endpoint values whatever the tangents. */
    OT_NEAR(oroya_float_hermite(0.0f, 3, 100, 7, -100), 3.0, 0);
    OT_NEAR(oroya_float_hermite(1.0f, 3, 100, 7, -100), 7.0, 1e-5);
}

static void test_vec3_against_cglm(void) {
    for (int i = 0; i < 1000; i++) {
        oroya_vec3 a = random_vec3(-10, 10), b = random_vec3(-10, 10);
        vec3 ca = {a.x, a.y, a.z}, cb = {b.x, b.y, b.z}, cr;
        glm_vec3_cross(ca, cb, cr);
        oroya_vec3 r = oroya_vec3_cross(a, b);
        OT_NEAR(r.x, cr[0], 1e-4);
        OT_NEAR(r.y, cr[1], 1e-4);
        OT_NEAR(r.z, cr[2], 1e-4);
        OT_NEAR(oroya_vec3_dot(a, b), glm_vec3_dot(ca, cb), 1e-4);
        glm_vec3_normalize(ca);
        oroya_vec3 n = oroya_vec3_normalize(a);
        OT_NEAR(n.x, ca[0], 1e-6);
        OT_NEAR(n.y, ca[1], 1e-6);
        OT_NEAR(n.z, ca[2], 1e-6);
    }
    oroya_vec3 z = oroya_vec3_normalize((oroya_vec3){0, 0, 0});
    OT_CHECK(z.x == 0 && z.y == 0 && z.z == 0);
}

static void test_quat_against_cglm(void) {
    for (int i = 0; i < 1000; i++) {
        oroya_quat a = random_unit_quat(), b = random_unit_quat();
        versor ca = {a.x, a.y, a.z, a.w}, cb = {b.x, b.y, b.z, b.w}, cr;
        glm_quat_mul(ca, cb, cr);
        oroya_quat r = oroya_quat_mul(a, b);
        OT_NEAR(r.x, cr[0], 1e-6);
        OT_NEAR(r.y, cr[1], 1e-6);
        OT_NEAR(r.z, cr[2], 1e-6);
        OT_NEAR(r.w, cr[3], 1e-6);

        oroya_vec3 v = random_vec3(-5, 5);
        vec3 cv = {v.x, v.y, v.z}, crv;
        glm_quat_rotatev(ca, cv, crv);
        oroya_vec3 rv = oroya_quat_rotate(a, v);
        OT_NEAR(rv.x, crv[0], 1e-5);
        OT_NEAR(rv.y, crv[1], 1e-5);
        OT_NEAR(rv.z, crv[2], 1e-5);

        oroya_vec3 axis = oroya_vec3_normalize(random_vec3(-1, 1));
        float angle = ot_randf(-3.0f, 3.0f);
        versor cq;
        glm_quatv(cq, angle, (vec3){axis.x, axis.y, axis.z});
        oroya_quat q = oroya_quat_from_axis_angle(axis, angle);
        OT_NEAR(q.x, cq[0], 1e-6);
        OT_NEAR(q.y, cq[1], 1e-6);
        OT_NEAR(q.z, cq[2], 1e-6);
        OT_NEAR(q.w, cq[3], 1e-6);

        oroya_quat c = oroya_quat_conjugate(a);
        oroya_quat id = oroya_quat_mul(a, c);
        OT_NEAR(id.w, 1.0, 1e-6);
    }
}

static void test_slerp_against_cglm_well_conditioned(void) {
    /* cglm's slerp does not take the shortest arc, so compare only where dot > 0.1. */
    int compared = 0;
    for (int i = 0; i < 2000; i++) {
        oroya_quat a = random_unit_quat(), b = random_unit_quat();
        if (oroya_quat_dot(a, b) < 0.1f)
            continue;
        float t = ot_randf(0, 1);
        versor ca = {a.x, a.y, a.z, a.w}, cb = {b.x, b.y, b.z, b.w}, cr;
        glm_quat_slerp(ca, cb, t, cr);
        oroya_quat r = oroya_quat_slerp(a, b, t);
        OT_NEAR(r.x, cr[0], 1e-5);
        OT_NEAR(r.y, cr[1], 1e-5);
        OT_NEAR(r.z, cr[2], 1e-5);
        OT_NEAR(r.w, cr[3], 1e-5);
        compared++;
    }
    OT_CHECK(compared > 200);
}

static void test_slerp_edge_cases(void) {
    /* t = 0 and t = 1. */
    for (int i = 0; i < 1000; i++) {
        oroya_quat a = random_unit_quat(), b = random_unit_quat();
        OT_CHECK(quat_angle_between(oroya_quat_slerp(a, b, 0), a) < 1e-3f);
        OT_CHECK(quat_angle_between(oroya_quat_slerp(a, b, 1), b) < 1e-3f);
    }
    /* Nearly equal: unit length, between the two. */
    oroya_quat a = oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, 0.3f);
    oroya_quat b = oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, 0.3f + 1e-6f);
    oroya_quat r = oroya_quat_slerp(a, b, 0.5f);
    OT_NEAR(oroya_quat_length(r), 1.0, 1e-6);
    OT_CHECK(quat_angle_between(r, a) < 1e-5f);
    /* Nearly opposite inputs: b ~ -a. The shortest arc between them is tiny, so the result
     * stays next to a, unit length. */
    oroya_quat nb = {-b.x, -b.y, -b.z, -b.w};
    for (int k = 0; k <= 10; k++) {
        float t = (float)k / 10.0f;
        oroya_quat s = oroya_quat_slerp(a, nb, t);
        OT_NEAR(oroya_quat_length(s), 1.0, 1e-6);
        OT_CHECK(quat_angle_between(s, a) < 1e-5f);
        OT_CHECK(isfinite(s.x) && isfinite(s.w));
    }
    /* Shortest arc: 0 -> 350 degrees about z through -10 degrees, not +170. */
    oroya_quat q0 = oroya_quat_identity();
    oroya_quat q1 =
        oroya_quat_from_axis_angle((oroya_vec3){0, 0, 1}, 350.0f * 3.14159265f / 180.0f);
    oroya_quat half = oroya_quat_slerp(q0, q1, 0.5f);
    OT_NEAR(quat_angle_between(half, oroya_quat_from_axis_angle((oroya_vec3){0, 0, 1},
                                                                -5.0f * 3.14159265f / 180.0f)),
            0.0, 1e-3);
    /* Random antipodal-ish pairs: always unit and on the shortest arc (angle to each end
     * adds up to the shortest angle between them). */
    for (int i = 0; i < N_RANDOM; i++) {
        oroya_quat p = random_unit_quat();
        oroya_quat q = oroya_quat_normalize(
            (oroya_quat){-p.x + ot_randf(-1e-3f, 1e-3f), -p.y + ot_randf(-1e-3f, 1e-3f),
                         -p.z + ot_randf(-1e-3f, 1e-3f), -p.w + ot_randf(-1e-3f, 1e-3f)});
        float t = ot_randf(0, 1);
        oroya_quat s = oroya_quat_slerp(p, q, t);
        OT_NEAR(oroya_quat_length(s), 1.0, 1e-5);
        float total = quat_angle_between(p, q);
        OT_NEAR(quat_angle_between(p, s) + quat_angle_between(s, q), total, 2e-3);
    }
    /* nlerp: unit and shortest arc too. */
    oroya_quat n = oroya_quat_nlerp(q0, q1, 0.5f);
    OT_NEAR(oroya_quat_length(n), 1.0, 1e-6);
    OT_CHECK(quat_angle_between(n, half) < 1e-3f);
}

static oroya_mat4 from_cglm(mat4 c) {
    oroya_mat4 r;
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++)
            r.m[col * 4 + row] = c[col][row];
    return r;
}

static void to_cglm(oroya_mat4 m, mat4 c) {
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++)
            c[col][row] = m.m[col * 4 + row];
}

static void test_mat4_against_cglm(void) {
    for (int i = 0; i < 1000; i++) {
        oroya_vec3 t = random_vec3(-10, 10), s = random_vec3(0.2f, 3);
        oroya_quat q = random_unit_quat();
        oroya_mat4 m = oroya_mat4_compose(t, q, s);
        mat4 ct, cr, cs, cm;
        glm_translate_make(ct, (vec3){t.x, t.y, t.z});
        glm_quat_mat4((versor){q.x, q.y, q.z, q.w}, cr);
        glm_scale_make(cs, (vec3){s.x, s.y, s.z});
        glm_mat4_mulN((mat4 *[]){&ct, &cr, &cs}, 3, cm);
        oroya_mat4 expect = from_cglm(cm);
        for (int k = 0; k < 16; k++)
            OT_NEAR(m.m[k], expect.m[k], 1e-5);

        oroya_mat4 b =
            oroya_mat4_compose(random_vec3(-3, 3), random_unit_quat(), random_vec3(0.5f, 2));
        mat4 ca, cb, cab;
        to_cglm(m, ca);
        to_cglm(b, cb);
        glm_mat4_mul(ca, cb, cab);
        oroya_mat4 ab = oroya_mat4_mul(m, b);
        oroya_mat4 eab = from_cglm(cab);
        for (int k = 0; k < 16; k++)
            OT_NEAR(ab.m[k], eab.m[k], 1e-4);

        mat4 cinv;
        glm_mat4_inv_precise(ca, cinv);
        oroya_mat4 inv;
        OT_CHECK(oroya_mat4_invert(m, &inv));
        oroya_mat4 einv = from_cglm(cinv);
        for (int k = 0; k < 16; k++)
            OT_NEAR(inv.m[k], einv.m[k], 1e-4 * (1.0 + fabs(einv.m[k])));
        OT_NEAR(oroya_mat4_determinant(m), glm_mat4_det(ca), 1e-3 * (1.0 + fabs(glm_mat4_det(ca))));

        oroya_vec3 p = random_vec3(-5, 5);
        vec4 cp = {p.x, p.y, p.z, 1}, cpr;
        glm_mat4_mulv(ca, cp, cpr);
        oroya_vec3 pr = oroya_mat4_transform_point(m, p);
        OT_NEAR(pr.x, cpr[0], 1e-4);
        OT_NEAR(pr.y, cpr[1], 1e-4);
        OT_NEAR(pr.z, cpr[2], 1e-4);
        vec4 cd = {p.x, p.y, p.z, 0}, cdr;
        glm_mat4_mulv(ca, cd, cdr);
        oroya_vec3 dr = oroya_mat4_transform_direction(m, p);
        OT_NEAR(dr.x, cdr[0], 1e-4);
        OT_NEAR(dr.y, cdr[1], 1e-4);
        OT_NEAR(dr.z, cdr[2], 1e-4);

        mat4 ctr;
        glm_mat4_transpose_to(ca, ctr);
        oroya_mat4 tr = oroya_mat4_transpose(m), etr = from_cglm(ctr);
        for (int k = 0; k < 16; k++)
            OT_CHECK(tr.m[k] == etr.m[k]);
    }
}

static void test_property_decompose_compose(void) {
    int bad = 0;
    for (int i = 0; i < N_RANDOM; i++) {
        oroya_vec3 t = random_vec3(-100, 100);
        oroya_quat q = random_unit_quat();
        oroya_vec3 s = random_vec3(0.05f, 5);
        if (i % 4 == 0)
            s.x = -s.x; /* a mirrored matrix: decompose puts the sign on x */
        oroya_mat4 m = oroya_mat4_compose(t, q, s);
        oroya_vec3 t2, s2;
        oroya_quat q2;
        oroya_mat4_decompose(m, &t2, &q2, &s2);
        /* A negative x scale decomposes into the same matrix, not necessarily the same
         * (q, s): compare the recomposed matrix, and (t, s, q) when the scale is positive. */
        oroya_mat4 m2 = oroya_mat4_compose(t2, q2, s2);
        for (int k = 0; k < 16; k++) {
            if (fabs(m2.m[k] - m.m[k]) > 1e-4 * (1.0 + fabs(m.m[k])))
                bad++;
        }
        if (t2.x != t.x || t2.y != t.y || t2.z != t.z)
            bad++;
        if (fabsf(s2.x - s.x) > 1e-4f || fabsf(s2.y - s.y) > 1e-4f || fabsf(s2.z - s.z) > 1e-4f)
            bad++;
        if (quat_angle_between(q, q2) > 1e-3f)
            bad++;
        if (fabsf(oroya_quat_length(q2) - 1.0f) > 1e-5f)
            bad++;
    }
    OT_EQ_INT(bad, 0);
}

static void test_property_inverse(void) {
    int bad = 0, bad_affine = 0;
    for (int i = 0; i < N_RANDOM; i++) {
        oroya_mat4 m =
            oroya_mat4_compose(random_vec3(-10, 10), random_unit_quat(), random_vec3(0.25f, 4));
        oroya_mat4 inv, inva;
        if (!oroya_mat4_invert(m, &inv) || !oroya_mat4_invert_affine(m, &inva)) {
            bad++;
            continue;
        }
        /* The product is formed in double so that only the inverse's error is measured. */
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 4; r++) {
                double s = 0, sa = 0;
                for (int k = 0; k < 4; k++) {
                    s += (double)inv.m[k * 4 + r] * m.m[c * 4 + k];
                    sa += (double)inva.m[k * 4 + r] * m.m[c * 4 + k];
                }
                double e = (c == r) ? 1.0 : 0.0;
                if (fabs(s - e) > 1e-5)
                    bad++;
                if (fabs(sa - e) > 1e-5)
                    bad_affine++;
            }
        }
    }
    OT_EQ_INT(bad, 0);
    OT_EQ_INT(bad_affine, 0);
    /* A general (projective) matrix inverts too. */
    oroya_mat4 g = {{2, 0.5f, 0, 0.1f, 0, 3, 1, 0, 0.3f, 0, 1, 0.2f, 1, 2, 3, 1}};
    oroya_mat4 gi;
    OT_CHECK(oroya_mat4_invert(g, &gi));
    oroya_mat4 gp = oroya_mat4_mul(g, gi);
    for (int k = 0; k < 16; k++)
        OT_NEAR(gp.m[k], (k % 5 == 0) ? 1.0 : 0.0, 1e-5);
    /* Singular matrices are reported, never NaN. */
    oroya_mat4 z = {{0}};
    oroya_mat4 zi;
    OT_CHECK(!oroya_mat4_invert(z, &zi));
    OT_CHECK(zi.m[0] == 0.0f);
    OT_CHECK(!oroya_mat4_invert_affine(
        oroya_mat4_compose((oroya_vec3){1, 2, 3}, oroya_quat_identity(), (oroya_vec3){1, 0, 1}),
        &zi));
}

/* A finite determinant does not make a finite float inverse: diag(1e-39, 1e20, 1e20, 1) has
 * det 10 and an inverse element of 1e39, and a translation of 3e38 under a scale of 0.5 one
 * of -6e38. Both inverses gave inf with true (oroya_scene_camera_view passed it on with OK);
 * now false and the zero matrix, as for a singular matrix. */
static void test_inverse_past_float(void) {
    oroya_mat4 m = oroya_mat4_identity();
    m.m[0] = 1e-39f;
    m.m[5] = m.m[10] = 1e20f;
    oroya_mat4 out;
    OT_CHECK(!oroya_mat4_invert(m, &out));
    OT_CHECK(out.m[0] == 0.0f && out.m[15] == 0.0f);
    OT_CHECK(!oroya_mat4_invert_affine(m, &out));
    OT_CHECK(out.m[0] == 0.0f && out.m[15] == 0.0f);
    m = oroya_mat4_identity();
    m.m[0] = 0.5f;
    m.m[12] = 3e38f;
    OT_CHECK(!oroya_mat4_invert(m, &out));
    OT_CHECK(ot_all_finite(out.m, 16));
    OT_CHECK(!oroya_mat4_invert_affine(m, &out));
    OT_CHECK(ot_all_finite(out.m, 16));
    /* Just inside float: inverted. */
    m.m[12] = 1e38f;
    OT_CHECK(oroya_mat4_invert(m, &out) && fabsf(out.m[12] + 2e38f) <= 1e32f);
    OT_CHECK(oroya_mat4_invert_affine(m, &out) && fabsf(out.m[12] + 2e38f) <= 1e32f);
}

static void test_degenerate_inputs(void) {
    oroya_quat q = oroya_quat_normalize((oroya_quat){0, 0, 0, 0});
    OT_CHECK(q.w == 1.0f && q.x == 0.0f);
    oroya_quat a = oroya_quat_from_axis_angle((oroya_vec3){0, 0, 0}, 1.0f);
    OT_CHECK(a.w == 1.0f);
    oroya_quat r;
    oroya_vec3 s;
    oroya_mat4_decompose(
        oroya_mat4_compose((oroya_vec3){0, 0, 0}, oroya_quat_identity(), (oroya_vec3){0, 1, 1}),
        NULL, &r, &s);
    OT_CHECK(isfinite(r.x) && isfinite(r.w));
    OT_CHECK(s.x == 0.0f);
}

int main(void) {
    OT_RUN(test_hermite_true_values);
    OT_RUN(test_vec3_against_cglm);
    OT_RUN(test_quat_against_cglm);
    OT_RUN(test_slerp_against_cglm_well_conditioned);
    OT_RUN(test_slerp_edge_cases);
    OT_RUN(test_mat4_against_cglm);
    OT_RUN(test_property_decompose_compose);
    OT_RUN(test_property_inverse);
    OT_RUN(test_degenerate_inputs);
    OT_RUN(test_inverse_past_float);
    return ot_finish();
}
