/* Rotation: swing-twist decomposition, sterp and joint limits.
 *
 * Expected values come from independent computations in double, never from the code under
 * test: the swing is rebuilt as the shortest-arc rotation taking the twist axis to q(axis)
 * (acos/atan2 of the rotated vector), twist angles are measured with atan2, and the rod's tip
 * path is measured on a fine polyline and compared with the great-circle arc and with the
 * analytic length of slerp's small-circle arc (reference README item 5, issue 9). */
#include "oroya/rotation.h"
#include "oroya_test.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define N_RANDOM 10000
#define PI 3.14159265358979323846

typedef struct {
    double x, y, z;
} rv3;

typedef struct {
    double x, y, z, w;
} rq;

/* ---- independent double-precision helpers ----------------------------------------------- */

static rq rq_of(oroya_quat q) { return (rq){q.x, q.y, q.z, q.w}; }

static rv3 rv_of(oroya_vec3 v) { return (rv3){v.x, v.y, v.z}; }

static double rv_dot(rv3 a, rv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static rv3 rv_cross(rv3 a, rv3 b) {
    return (rv3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

static double rv_len(rv3 a) { return sqrt(rv_dot(a, a)); }

static rv3 rv_scale(rv3 a, double s) { return (rv3){a.x * s, a.y * s, a.z * s}; }

static rv3 rv_sub(rv3 a, rv3 b) { return (rv3){a.x - b.x, a.y - b.y, a.z - b.z}; }

static rv3 rv_unit(rv3 a) { return rv_scale(a, 1.0 / rv_len(a)); }

static rq rq_mul(rq a, rq b) {
    return (rq){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static rq rq_conj(rq q) { return (rq){-q.x, -q.y, -q.z, q.w}; }

static double rq_len(rq q) { return sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w); }

static rq rq_axis_angle(rv3 axis, double angle) {
    rv3 n = rv_unit(axis);
    double s = sin(0.5 * angle);
    return (rq){n.x * s, n.y * s, n.z * s, cos(0.5 * angle)};
}

static oroya_quat to_q(rq q) {
    return (oroya_quat){(float)q.x, (float)q.y, (float)q.z, (float)q.w};
}

/* Rotates v by unit q through the rotation matrix, a formula independent of the product. */
static rv3 rq_rotate(rq q, rv3 v) {
    double x = q.x, y = q.y, z = q.z, w = q.w;
    double m00 = 1 - 2 * (y * y + z * z), m01 = 2 * (x * y - w * z), m02 = 2 * (x * z + w * y);
    double m10 = 2 * (x * y + w * z), m11 = 1 - 2 * (x * x + z * z), m12 = 2 * (y * z - w * x);
    double m20 = 2 * (x * z - w * y), m21 = 2 * (y * z + w * x), m22 = 1 - 2 * (x * x + y * y);
    return (rv3){m00 * v.x + m01 * v.y + m02 * v.z, m10 * v.x + m11 * v.y + m12 * v.z,
                 m20 * v.x + m21 * v.y + m22 * v.z};
}

/* Angle between two directions, well conditioned everywhere. */
static double angle_between(rv3 a, rv3 b) { return atan2(rv_len(rv_cross(a, b)), rv_dot(a, b)); }

/* Largest component difference between a and b or -b (q and -q are one rotation). */
static double quat_diff_up_to_sign(rq a, rq b) {
    double dp =
        fmax(fmax(fabs(a.x - b.x), fabs(a.y - b.y)), fmax(fabs(a.z - b.z), fabs(a.w - b.w)));
    double dm =
        fmax(fmax(fabs(a.x + b.x), fabs(a.y + b.y)), fmax(fabs(a.z + b.z), fabs(a.w + b.w)));
    return fmin(dp, dm);
}

/* Wraps an angle difference to [-pi, pi]. */
static double wrap(double a) {
    while (a > PI)
        a -= 2 * PI;
    while (a < -PI)
        a += 2 * PI;
    return a;
}

/* Reference split of a unit q about unit n: the swing is the shortest-arc rotation taking n
 * to q(n) (twist leaves n fixed and swing's axis is perpendicular to n, so this is the only
 * candidate), the twist is what is left, and its angle is read with atan2. */
static void reference_split(rq q, rv3 n, rq *swing, double *twist_angle) {
    rv3 m = rq_rotate(q, n);
    rv3 c = rv_cross(n, m);
    double angle = atan2(rv_len(c), rv_dot(n, m));
    *swing = rv_len(c) > 1e-12 ? rq_axis_angle(c, angle) : (rq){0, 0, 0, 1};
    rq t = rq_mul(rq_conj(*swing), q);
    *twist_angle = wrap(2.0 * atan2(rv_dot((rv3){t.x, t.y, t.z}, n), t.w));
}

static oroya_quat random_unit_quat(void) {
    rq q = {ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
    double len = rq_len(q);
    if (len < 1e-3)
        return (oroya_quat){0, 0, 0, 1};
    return to_q((rq){q.x / len, q.y / len, q.z / len, q.w / len});
}

static oroya_vec3 random_axis(void) {
    for (;;) {
        oroya_vec3 v = {ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
        double len = rv_len(rv_of(v));
        if (len > 0.05 && len <= 1.0)
            return v; /* not unit on purpose: normalized inside */
    }
}

static bool quat_finite(oroya_quat q) {
    return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}

/* ---- decomposition ---------------------------------------------------------------------- */

static void test_swing_twist_random(void) {
    double worst_product = 0, worst_parallel = 0, worst_perp = 0, worst_unit = 0;
    double worst_swing_ref = 0, worst_angle = 0;
    int negative_w = 0, non_finite = 0, compared = 0, out_of_range = 0;
    for (int i = 0; i < N_RANDOM; i++) {
        oroya_quat q = random_unit_quat();
        oroya_vec3 axis = random_axis();
        rv3 n = rv_unit(rv_of(axis));
        oroya_quat s, t;
        oroya_quat_swing_twist(q, axis, &s, &t);
        if (!quat_finite(s) || !quat_finite(t))
            non_finite++;
        rq rs = rq_of(s), rt = rq_of(t);
        worst_product = fmax(worst_product, quat_diff_up_to_sign(rq_mul(rs, rt), rq_of(q)));
        rv3 tv = {rt.x, rt.y, rt.z}, sv = {rs.x, rs.y, rs.z};
        worst_parallel = fmax(worst_parallel, rv_len(rv_cross(tv, n)));
        worst_perp = fmax(worst_perp, fabs(rv_dot(sv, n)));
        worst_unit = fmax(worst_unit, fmax(fabs(rq_len(rs) - 1), fabs(rq_len(rt) - 1)));
        if (rt.w < 0)
            negative_w++;

        /* Against the independent split, away from the 180-degree swing where it is
         * ill-conditioned (the twist there is arbitrary by definition). */
        rq ref_swing;
        double ref_angle;
        reference_split(rq_of(q), n, &ref_swing, &ref_angle);
        if (rv_dot(n, rq_rotate(rq_of(q), n)) > -0.99) {
            compared++;
            worst_swing_ref = fmax(worst_swing_ref, quat_diff_up_to_sign(rs, ref_swing));
            double got = oroya_quat_twist_angle(q, axis);
            worst_angle = fmax(worst_angle, fabs(wrap(got - ref_angle)));
        }
    }
    printf("  swing_twist over %d: |s*t - q| %.2e, twist off-axis %.2e, swing along axis %.2e, "
           "unit %.2e, swing vs reference %.2e, twist angle vs reference %.2e (%d compared)\n",
           N_RANDOM, worst_product, worst_parallel, worst_perp, worst_unit, worst_swing_ref,
           worst_angle, compared);
    OT_EQ_INT(non_finite, 0);
    OT_EQ_INT(negative_w, 0);
    OT_EQ_INT(out_of_range, 0);
    OT_CHECK(worst_product < 1e-6);
    OT_CHECK(worst_parallel < 1e-6);
    OT_CHECK(worst_perp < 1e-6);
    OT_CHECK(worst_unit < 1e-6);
    OT_CHECK(worst_swing_ref < 1e-5);
    OT_CHECK(worst_angle < 1e-4);
    OT_CHECK(compared > N_RANDOM * 9 / 10);
}

static void test_swing_twist_axis_parallel_and_opposite(void) {
    for (int i = 0; i < 1000; i++) {
        oroya_vec3 axis = random_axis();
        rv3 n = rv_unit(rv_of(axis));
        double angle = ot_randf(-3.1f, 3.1f);
        oroya_quat q = to_q(rq_axis_angle(n, angle));
        oroya_quat s, t;
        /* Parallel: all twist, no swing. */
        oroya_quat_swing_twist(q, axis, &s, &t);
        OT_CHECK(quat_diff_up_to_sign(rq_of(s), (rq){0, 0, 0, 1}) < 1e-6);
        OT_CHECK(quat_diff_up_to_sign(rq_of(t), rq_of(q)) < 1e-6);
        OT_NEAR(oroya_quat_twist_angle(q, axis), angle, 1e-5);
        /* Opposite: the same rotation read about -axis has the opposite angle. */
        oroya_vec3 neg = {-axis.x, -axis.y, -axis.z};
        oroya_quat_swing_twist(q, neg, &s, &t);
        OT_CHECK(quat_diff_up_to_sign(rq_of(s), (rq){0, 0, 0, 1}) < 1e-6);
        OT_CHECK(quat_diff_up_to_sign(rq_of(t), rq_of(q)) < 1e-6);
        OT_CHECK(t.w >= 0);
        OT_NEAR(oroya_quat_twist_angle(q, neg), -angle, 1e-5);
        /* -q is the same rotation: same canonical twist. */
        oroya_quat mq = {-q.x, -q.y, -q.z, -q.w};
        OT_NEAR(oroya_quat_twist_angle(mq, axis), angle, 1e-5);
    }
    /* Exactly 180 degrees of twist: +pi for q and for -q (the range is (-pi, pi]). */
    oroya_quat half = {0, 0, 1, 0};
    OT_NEAR(oroya_quat_twist_angle(half, (oroya_vec3){0, 0, 1}), PI, 1e-6);
    OT_NEAR(oroya_quat_twist_angle((oroya_quat){0, 0, -1, 0}, (oroya_vec3){0, 0, 1}), PI, 1e-6);
    oroya_quat s, t;
    oroya_quat_swing_twist((oroya_quat){0, 0, -1, 0}, (oroya_vec3){0, 0, 1}, &s, &t);
    OT_CHECK(t.z == 1.0f && t.w == 0.0f);
    OT_CHECK(quat_diff_up_to_sign(rq_mul(rq_of(s), rq_of(t)), (rq){0, 0, -1, 0}) < 1e-7);
}

static void test_swing_twist_singular(void) {
    /* A 180-degree swing: the twist is undefined, and the rule says identity twist, swing = q. */
    oroya_quat s, t;
    oroya_quat q = {0, 1, 0, 0}; /* 180 degrees about y, split about x */
    oroya_quat_swing_twist(q, (oroya_vec3){1, 0, 0}, &s, &t);
    OT_CHECK(t.x == 0 && t.y == 0 && t.z == 0 && t.w == 1);
    OT_CHECK(s.x == q.x && s.y == q.y && s.z == q.z && s.w == q.w);
    OT_NEAR(oroya_quat_twist_angle(q, (oroya_vec3){1, 0, 0}), 0, 0);

    /* The same through float trigonometry (w and v.axis come out near 1e-8, not 0), for many
     * perpendicular axes. */
    for (int i = 0; i < 1000; i++) {
        rv3 n = rv_unit(rv_of(random_axis()));
        rv3 p = rv_unit(rv_cross(n, rv_of(random_axis())));
        oroya_quat q180 =
            oroya_quat_from_axis_angle((oroya_vec3){(float)p.x, (float)p.y, (float)p.z}, (float)PI);
        oroya_quat_swing_twist(q180, (oroya_vec3){(float)n.x, (float)n.y, (float)n.z}, &s, &t);
        OT_CHECK(t.x == 0 && t.y == 0 && t.z == 0 && t.w == 1);
        OT_CHECK(s.x == q180.x && s.y == q180.y && s.z == q180.z && s.w == q180.w);
    }

    /* Just outside the threshold: a swing of 180 - 0.01 degrees with a 90-degree twist. The
     * split is ill-conditioned but must stay finite, unit and exact in product. */
    for (int k = 1; k <= 6; k++) {
        double eps = pow(10.0, -k);
        rq sw = rq_axis_angle((rv3){0, 0, 1}, PI - eps);
        rq tw = rq_axis_angle((rv3){1, 0, 0}, PI / 2);
        oroya_quat qq = to_q(rq_mul(sw, tw));
        oroya_quat_swing_twist(qq, (oroya_vec3){1, 0, 0}, &s, &t);
        OT_CHECK(quat_finite(s) && quat_finite(t));
        OT_CHECK(quat_diff_up_to_sign(rq_mul(rq_of(s), rq_of(t)), rq_of(qq)) < 1e-6);
        OT_NEAR(rq_len(rq_of(s)), 1, 1e-6);
        OT_NEAR(rq_len(rq_of(t)), 1, 1e-6);
        OT_CHECK(fabs(s.x) < 1e-6);
    }

    /* Zero quaternion: singular too; never NaN. */
    oroya_quat_swing_twist((oroya_quat){0, 0, 0, 0}, (oroya_vec3){0, 1, 0}, &s, &t);
    OT_CHECK(t.w == 1 && s.x == 0 && s.y == 0 && s.z == 0 && s.w == 0);
    OT_NEAR(oroya_quat_twist_angle((oroya_quat){0, 0, 0, 0}, (oroya_vec3){0, 1, 0}), 0, 0);
}

static void test_swing_twist_bad_axis(void) {
    oroya_quat q = to_q(rq_axis_angle((rv3){1, 2, 3}, 0.7));
    oroya_quat s = {9, 9, 9, 9}, t = {9, 9, 9, 9};
    /* Unchecked: identity twist and swing = q, as documented. */
    oroya_quat_swing_twist(q, (oroya_vec3){0, 0, 0}, &s, &t);
    OT_CHECK(t.x == 0 && t.y == 0 && t.z == 0 && t.w == 1);
    OT_CHECK(s.x == q.x && s.y == q.y && s.z == q.z && s.w == q.w);
    OT_NEAR(oroya_quat_twist_angle(q, (oroya_vec3){0, 0, 0}), 0, 0);
    /* Checked: the caller can tell. */
    OT_EQ_INT(oroya_quat_swing_twist_checked(q, (oroya_vec3){0, 0, 0}, &s, &t),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(t.w == 1 && s.x == q.x);
    OT_EQ_INT(oroya_quat_swing_twist_checked(q, (oroya_vec3){1e-7f, 0, 0}, &s, &t),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_quat_swing_twist_checked(q, (oroya_vec3){NAN, 0, 1}, &s, &t),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_quat_swing_twist_checked(q, (oroya_vec3){INFINITY, 0, 1}, NULL, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(
        oroya_quat_swing_twist_checked((oroya_quat){NAN, 0, 0, 1}, (oroya_vec3){0, 0, 1}, &s, &t),
        OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(t.x == 0 && t.y == 0 && t.z == 0 && t.w == 1);
    /* Valid: OK, and the same as the unchecked call; a scaled axis gives the same split. */
    oroya_quat s2, t2;
    OT_EQ_INT(oroya_quat_swing_twist_checked(q, (oroya_vec3){0, 0, 5}, &s, &t), OROYA_OK);
    oroya_quat_swing_twist(q, (oroya_vec3){0, 0, 1}, &s2, &t2);
    OT_CHECK(quat_diff_up_to_sign(rq_of(s), rq_of(s2)) < 1e-7);
    OT_CHECK(quat_diff_up_to_sign(rq_of(t), rq_of(t2)) < 1e-7);
    /* NULL outputs are allowed. */
    oroya_quat_swing_twist(q, (oroya_vec3){0, 0, 1}, NULL, &t2);
    oroya_quat_swing_twist(q, (oroya_vec3){0, 0, 1}, &s2, NULL);
    OT_CHECK(quat_diff_up_to_sign(rq_of(s), rq_of(s2)) < 1e-7);
    /* A finite q longer than FLT_MAX: its swing (which carries the length) does not fit. The
     * checked call said OK with an infinite swing; now NON_FINITE, swing = q, identity twist. */
    const oroya_quat huge = {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX};
    OT_EQ_INT(oroya_quat_swing_twist_checked(huge, (oroya_vec3){0, 1, 0}, &s, &t),
              OROYA_ERR_NON_FINITE);
    OT_CHECK(s.x == FLT_MAX && s.w == FLT_MAX && t.x == 0 && t.w == 1);
    OT_EQ_INT(oroya_quat_swing_twist_checked(huge, (oroya_vec3){0, 1, 0}, NULL, NULL),
              OROYA_ERR_NON_FINITE);
}

static void test_swing_twist_non_unit(void) {
    /* The relation holds for any q; swing carries q's length, twist stays unit. */
    for (int i = 0; i < 1000; i++) {
        oroya_quat u = random_unit_quat();
        float k = ot_randf(0.1f, 3.0f);
        oroya_quat q = {u.x * k, u.y * k, u.z * k, u.w * k};
        oroya_quat s, t;
        oroya_quat_swing_twist(q, random_axis(), &s, &t);
        OT_CHECK(quat_diff_up_to_sign(rq_mul(rq_of(s), rq_of(t)), rq_of(q)) < 1e-5 * k);
        OT_NEAR(rq_len(rq_of(t)), 1, 1e-6);
        OT_NEAR(rq_len(rq_of(s)), rq_len(rq_of(q)), 1e-5 * k);
    }
}

typedef struct {
    rv3 n, e1, e2;
} frame3;

/* An orthonormal frame with n along `axis` and e1 along the part of `hint` perpendicular to it. */
static frame3 make_frame(rv3 axis, rv3 hint) {
    frame3 f;
    f.n = rv_unit(axis);
    f.e1 = rv_unit(rv_sub(hint, rv_scale(f.n, rv_dot(hint, f.n))));
    f.e2 = rv_cross(f.n, f.e1);
    return f;
}

/* reference * swing * twist from parameters: swing of `theta` about cos(psi) e1 + sin(psi) e2,
 * twist of `phi` about n. */
/* ---- sterp ------------------------------------------------------------------------------ */

static void test_sterp_endpoints_and_unit(void) {
    double worst_a = 0, worst_b = 0, worst_unit = 0, worst_sign = 0;
    for (int i = 0; i < N_RANDOM; i++) {
        oroya_quat a = random_unit_quat(), b = random_unit_quat();
        oroya_vec3 axis = random_axis();
        worst_a =
            fmax(worst_a, quat_diff_up_to_sign(rq_of(oroya_quat_sterp(a, b, axis, 0)), rq_of(a)));
        worst_b =
            fmax(worst_b, quat_diff_up_to_sign(rq_of(oroya_quat_sterp(a, b, axis, 1)), rq_of(b)));
        float t = ot_randf(-0.5f, 1.5f);
        oroya_quat r = oroya_quat_sterp(a, b, axis, t);
        worst_unit = fmax(worst_unit, fabs(rq_len(rq_of(r)) - 1));
        oroya_quat mb = {-b.x, -b.y, -b.z, -b.w};
        worst_sign = fmax(worst_sign,
                          quat_diff_up_to_sign(rq_of(oroya_quat_sterp(a, mb, axis, t)), rq_of(r)));
    }
    printf("  sterp over %d: |r(0) - a| %.2e, |r(1) - b| %.2e, unit %.2e, sign of b %.2e\n",
           N_RANDOM, worst_a, worst_b, worst_unit, worst_sign);
    OT_CHECK(worst_a < 1e-6);
    OT_CHECK(worst_b < 1e-5);
    OT_CHECK(worst_unit < 1e-6);
    OT_CHECK(worst_sign < 1e-5);
}

/* The tip direction a(n) moves on the great circle toward b(n): at parameter t_swing it makes
 * the angle t_swing * theta with a(n) and (1 - t_swing) * theta with b(n), and its twist
 * relative to a changes by t_twist times the total. Checked against the reference split. */
static void test_sterp_split_separate_parameters(void) {
    double worst_dir = 0, worst_twist = 0;
    int compared = 0;
    for (int i = 0; i < 2000; i++) {
        oroya_quat a = random_unit_quat(), b = random_unit_quat();
        oroya_vec3 axis = random_axis();
        rv3 n = rv_unit(rv_of(axis));
        rv3 da = rq_rotate(rq_of(a), n), db = rq_rotate(rq_of(b), n);
        double theta = angle_between(da, db);
        if (theta > PI - 0.05)
            continue; /* near the singular swing the great circle is not unique */
        compared++;
        float ts = ot_randf(0, 1), tt = ot_randf(0, 1);
        oroya_quat r = oroya_quat_sterp_split(a, b, axis, ts, tt);
        rv3 dr = rq_rotate(rq_of(r), n);
        worst_dir = fmax(worst_dir, fabs(angle_between(da, dr) - ts * theta));
        worst_dir = fmax(worst_dir, fabs(angle_between(dr, db) - (1 - ts) * theta));
        /* Twist: with t_swing = 0 the result is a * twist^t_twist. */
        rq d = rq_mul(rq_conj(rq_of(a)), rq_of(b));
        rq ref_swing;
        double ref_angle;
        reference_split(d, n, &ref_swing, &ref_angle);
        oroya_quat r0 = oroya_quat_sterp_split(a, b, axis, 0, tt);
        rq rel = rq_mul(rq_conj(rq_of(a)), rq_of(r0));
        rq rel_swing;
        double rel_angle;
        reference_split(rel, n, &rel_swing, &rel_angle);
        worst_twist = fmax(worst_twist, fabs(wrap(rel_angle - tt * ref_angle)));
        worst_twist = fmax(worst_twist, quat_diff_up_to_sign(rel_swing, (rq){0, 0, 0, 1}));
        /* sterp_split(t, t) is sterp(t). */
        oroya_quat r1 = oroya_quat_sterp_split(a, b, axis, ts, ts);
        oroya_quat r2 = oroya_quat_sterp(a, b, axis, ts);
        OT_CHECK(r1.x == r2.x && r1.y == r2.y && r1.z == r2.z && r1.w == r2.w);
    }
    printf("  sterp_split over %d: tip angle error %.2e rad, twist error %.2e\n", compared,
           worst_dir, worst_twist);
    OT_CHECK(compared > 1500);
    OT_CHECK(worst_dir < 1e-4);
    OT_CHECK(worst_twist < 1e-4);
}

static void test_sterp_degenerate(void) {
    /* Zero axis: no twist, so sterp is slerp on the shorter arc. */
    for (int i = 0; i < 1000; i++) {
        oroya_quat a = random_unit_quat(), b = random_unit_quat();
        float t = ot_randf(0, 1);
        oroya_quat r = oroya_quat_sterp(a, b, (oroya_vec3){0, 0, 0}, t);
        oroya_quat s = oroya_quat_slerp(a, b, t);
        OT_CHECK(quat_diff_up_to_sign(rq_of(r), rq_of(s)) < 2e-5);
    }
    /* a == b: stays put. */
    oroya_quat a = to_q(rq_axis_angle((rv3){1, 1, 0}, 1.0));
    oroya_quat r = oroya_quat_sterp(a, a, (oroya_vec3){0, 1, 0}, 0.3f);
    OT_CHECK(quat_diff_up_to_sign(rq_of(r), rq_of(a)) < 1e-7);
    /* Zero quaternions count as the identity; the result is unit, not NaN. */
    r = oroya_quat_sterp((oroya_quat){0, 0, 0, 0}, a, (oroya_vec3){0, 1, 0}, 1.0f);
    OT_CHECK(quat_diff_up_to_sign(rq_of(r), rq_of(a)) < 1e-6);
    /* Swings approaching 180 degrees, with a twist: ill-conditioned but finite and unit, and
     * the endpoints still hold. */
    for (int i = 0; i < 1000; i++) {
        oroya_quat qa = random_unit_quat();
        oroya_vec3 axis = random_axis();
        frame3 f = make_frame(rv_of(axis), rv_of(random_axis()));
        double gap = pow(10.0, -ot_randf(1.0f, 9.0f));
        rq d = rq_mul(rq_axis_angle(f.e1, PI - gap), rq_axis_angle(f.n, ot_randf(-3, 3)));
        oroya_quat qb = to_q(rq_mul(rq_of(qa), d));
        float t = ot_randf(0, 1);
        oroya_quat rs = oroya_quat_sterp(qa, qb, axis, t);
        OT_CHECK(quat_finite(rs));
        OT_NEAR(rq_len(rq_of(rs)), 1, 1e-6);
        OT_CHECK(quat_diff_up_to_sign(rq_of(oroya_quat_sterp(qa, qb, axis, 1)), rq_of(qb)) < 1e-5);
    }
    /* 180-degree swing (singular): twist is identity, so the path is the pure swing. */
    oroya_quat b = {0, 0, 1, 0};
    r = oroya_quat_sterp((oroya_quat){0, 0, 0, 1}, b, (oroya_vec3){1, 0, 0}, 0.5f);
    OT_CHECK(quat_finite(r));
    OT_CHECK(quat_diff_up_to_sign(rq_of(r), rq_axis_angle((rv3){0, 0, 1}, PI / 2)) < 1e-6);
}

/* ---- the rod ---------------------------------------------------------------------------- */

/* Polyline length of the rod tip (length L along local +x) under interp(t), n segments. */
static double tip_path_length(oroya_quat a, oroya_quat b, bool use_sterp, double L, int n,
                              double *max_off_plane, rv3 plane_normal) {
    rv3 tip = {L, 0, 0};
    rv3 prev = rq_rotate(rq_of(a), tip);
    double len = 0;
    *max_off_plane = 0;
    for (int i = 1; i <= n; i++) {
        float t = (float)((double)i / n);
        oroya_quat q = use_sterp ? oroya_quat_sterp(a, b, (oroya_vec3){1, 0, 0}, t)
                                 : oroya_quat_slerp(a, b, t);
        rv3 p = rq_rotate(rq_of(q), tip);
        len += rv_len(rv_sub(p, prev));
        *max_off_plane = fmax(*max_off_plane, fabs(rv_dot(p, plane_normal)));
        prev = p;
    }
    return len;
}

/* The text's rod: a long rod pointing left (-x) swings to point right and up (160 degrees
 * away; exactly opposite would be the singular case, where slerp and sterp coincide) while
 * twisting 120 degrees about its own length. Sterp's tip follows the great circle, slerp's a
 * longer small circle. */
static void test_rod(void) {
    const double L = 10.0;
    const double swing_angle = 160.0 * PI / 180.0, twist_angle = 120.0 * PI / 180.0;
    rq a = rq_axis_angle((rv3){0, 0, 1}, PI);                     /* local +x -> world -x */
    rq world_swing = rq_axis_angle((rv3){0, 0, -1}, swing_angle); /* -x over the top */
    rq b = rq_mul(world_swing, rq_mul(a, rq_axis_angle((rv3){1, 0, 0}, twist_angle)));
    oroya_quat qa = to_q(a), qb = to_q(b);

    rv3 da = rq_rotate(a, (rv3){1, 0, 0}), db = rq_rotate(b, (rv3){1, 0, 0});
    double arc = L * angle_between(da, db);
    rv3 plane = rv_unit(rv_cross(da, db));

    /* Slerp's exact path: the tip turns about the axis of d = conj(a) * b by its angle, on a
     * circle of radius L sin(beta), beta the angle between that axis and the rod. */
    rq d = rq_mul(rq_conj(a), b);
    if (d.w < 0)
        d = (rq){-d.x, -d.y, -d.z, -d.w};
    rv3 dv = {d.x, d.y, d.z};
    double d_angle = 2.0 * atan2(rv_len(dv), d.w);
    double beta = angle_between(dv, (rv3){1, 0, 0});
    double slerp_exact = L * sin(beta) * d_angle;

    double off_sterp, off_slerp;
    double sterp_len = tip_path_length(qa, qb, true, L, 20000, &off_sterp, plane);
    double slerp_len = tip_path_length(qa, qb, false, L, 20000, &off_slerp, plane);
    printf("  rod (L = %.0f, swing 160 deg, twist 120 deg): great-circle arc %.6f\n", L, arc);
    printf(
        "  rod tip path: sterp %.6f, slerp %.6f (slerp analytic %.6f); off the arc's plane: sterp "
        "%.2e, slerp %.3f\n",
        sterp_len, slerp_len, slerp_exact, off_sterp, off_slerp);
    OT_NEAR(sterp_len, arc, 1e-5 * arc);
    OT_CHECK(off_sterp < 1e-5 * L);
    OT_NEAR(slerp_len, slerp_exact, 1e-4 * slerp_exact);
    OT_CHECK(slerp_len > arc * 1.02);
    OT_CHECK(off_slerp > 0.1 * L);
    /* Both end where b points. */
    rv3 end = rq_rotate(rq_of(oroya_quat_sterp(qa, qb, (oroya_vec3){1, 0, 0}, 1)), (rv3){1, 0, 0});
    OT_CHECK(rv_len(rv_sub(end, db)) < 1e-6);
}

/* ---- joint limits ----------------------------------------------------------------------- */

static rq compose_limit_pose(rq ref, frame3 f, double psi, double theta, double phi) {
    rv3 u = {cos(psi) * f.e1.x + sin(psi) * f.e2.x, cos(psi) * f.e1.y + sin(psi) * f.e2.y,
             cos(psi) * f.e1.z + sin(psi) * f.e2.z};
    rq sw = theta > 0 ? rq_axis_angle(u, theta) : (rq){0, 0, 0, 1};
    return rq_mul(ref, rq_mul(sw, rq_axis_angle(f.n, phi)));
}

static double circ(double a, double b) { return fabs(wrap(a - b)); }

static bool same_bits(oroya_quat a, oroya_quat b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Cone + twist range: the expected result is built from clamped parameters, and the output
 * is measured again with the reference split. */
static void test_limit_cone_and_twist(void) {
    int inside = 0, clamped = 0;
    double worst = 0, worst_measured = 0;
    for (int i = 0; i < N_RANDOM; i++) {
        rq ref = rq_of(random_unit_quat());
        oroya_vec3 axis = random_axis();
        frame3 f = make_frame(rv_of(axis), rv_of(random_axis()));
        double cone = ot_randf(0.05f, 3.0f);
        double lo = ot_randf(-3.0f, 0.5f), hi = lo + ot_randf(0.0f, 2.5f);
        if (hi > 3.1)
            hi = 3.1;
        float lo_f = (float)lo, hi_f = (float)hi;
        lo = lo_f, hi = hi_f;
        float cone_f = (float)cone;
        cone = cone_f;
        double psi = ot_randf(-3.14f, 3.14f), theta = ot_randf(0.0f, 3.0f);
        double phi = ot_randf(-3.13f, 3.13f);
        /* Stay away from the boundaries (slack), from ties between the two twist ends, and
         * from zero swing, where the swing's direction does not exist. */
        if (fabs(theta - cone) < 1e-3 || fabs(phi - lo) < 1e-3 || fabs(phi - hi) < 1e-3 ||
            fabs(circ(phi, lo) - circ(phi, hi)) < 1e-3 || theta < 1e-3) {
            continue;
        }
        oroya_quat q = to_q(compose_limit_pose(ref, f, psi, theta, phi));
        oroya_joint_limit limit = {.reference = to_q(ref),
                                   .twist_axis = axis,
                                   .swing = OROYA_SWING_CONE,
                                   .swing_max = {cone_f},
                                   .has_twist_limit = true,
                                   .twist_min = lo_f,
                                   .twist_max = hi_f};
        oroya_quat out;
        OT_EQ_INT(oroya_joint_limit_clamp(&limit, q, &out), OROYA_OK);
        bool in = theta <= cone && phi >= lo && phi <= hi;
        if (in) {
            inside++;
            OT_CHECK(same_bits(out, q));
            continue;
        }
        clamped++;
        double theta_c = fmin(theta, cone);
        double phi_c = (phi >= lo && phi <= hi) ? phi : (circ(phi, lo) < circ(phi, hi) ? lo : hi);
        rq expect = compose_limit_pose(ref, f, psi, theta_c, phi_c);
        worst = fmax(worst, quat_diff_up_to_sign(rq_of(out), expect));
        OT_CHECK(
            rq_of(out).x * q.x + rq_of(out).y * q.y + rq_of(out).z * q.z + rq_of(out).w * q.w >= 0);
        /* Measure the output: swing angle and twist angle relative to the reference. */
        rq rel = rq_mul(rq_conj(ref), rq_of(out));
        rq sw;
        double tw;
        reference_split(rel, f.n, &sw, &tw);
        double sw_angle = 2.0 * atan2(sqrt(sw.x * sw.x + sw.y * sw.y + sw.z * sw.z), fabs(sw.w));
        worst_measured = fmax(worst_measured, fmax(sw_angle - cone, 0.0));
        worst_measured = fmax(worst_measured, fmax(lo - tw, tw - hi));
        /* Clamping again changes nothing. */
        oroya_quat again;
        oroya_joint_limit_clamp(&limit, out, &again);
        OT_CHECK(same_bits(again, out));
    }
    printf("  cone + twist: %d inside (untouched), %d clamped, worst vs expected %.2e, worst "
           "excess measured %.2e rad\n",
           inside, clamped, worst, worst_measured);
    OT_CHECK(inside > 300 && clamped > 3000);
    OT_CHECK(worst < 2e-5);
    OT_CHECK(worst_measured < 2e-5);
}

/* Nearest point of the ellipse (x/a)^2 + (y/b)^2 = 1 to p by dense sampling of the boundary
 * and a local ternary refinement: slow, simple and independent of the bisection under test. */
static void brute_nearest(double a, double b, double px, double py, double *qx, double *qy) {
    const int N = 20000;
    double best = INFINITY, best_t = 0;
    for (int i = 0; i < N; i++) {
        double t = 2 * PI * i / N;
        double dx = a * cos(t) - px, dy = b * sin(t) - py;
        double d = dx * dx + dy * dy;
        if (d < best)
            best = d, best_t = t;
    }
    double l = best_t - 2 * PI / N, r = best_t + 2 * PI / N;
    for (int k = 0; k < 200; k++) {
        double m1 = l + (r - l) / 3, m2 = r - (r - l) / 3;
        double d1 = pow(a * cos(m1) - px, 2) + pow(b * sin(m1) - py, 2);
        double d2 = pow(a * cos(m2) - px, 2) + pow(b * sin(m2) - py, 2);
        if (d1 < d2)
            r = m2;
        else
            l = m1;
    }
    *qx = a * cos(0.5 * (l + r));
    *qy = b * sin(0.5 * (l + r));
}

static void test_limit_ellipse(void) {
    int inside = 0, clamped = 0;
    double worst = 0;
    for (int i = 0; i < 3000; i++) {
        rq ref = rq_of(random_unit_quat());
        oroya_vec3 axis = random_axis(), hint = random_axis();
        frame3 f = make_frame(rv_of(axis), rv_of(hint));
        if (rv_len(rv_cross(rv_unit(rv_of(axis)), rv_unit(rv_of(hint)))) < 0.1)
            continue;
        float a = ot_randf(0.1f, 2.5f), b = ot_randf(0.1f, 2.5f);
        if (i % 10 == 0)
            b = 0; /* hinges */
        double psi = ot_randf(-3.14f, 3.14f), theta = ot_randf(0.001f, 3.0f);
        double phi = ot_randf(-3.0f, 3.0f);
        double y1 = theta * cos(psi), y2 = theta * sin(psi);
        double g =
            b > 0 ? pow(y1 / a, 2) + pow(y2 / b, 2) : (fabs(y2) < 1e-9 && fabs(y1) <= a ? 0 : 2);
        if (fabs(g - 1) < 1e-3)
            continue;
        oroya_quat q = to_q(compose_limit_pose(ref, f, psi, theta, phi));
        oroya_joint_limit limit = {.reference = to_q(ref),
                                   .twist_axis = axis,
                                   .swing_axis = hint,
                                   .swing = OROYA_SWING_ELLIPSE,
                                   .swing_max = {a, b}};
        oroya_quat out;
        OT_EQ_INT(oroya_joint_limit_clamp(&limit, q, &out), OROYA_OK);
        if (g < 1) {
            inside++;
            OT_CHECK(same_bits(out, q));
            continue;
        }
        clamped++;
        double x1, x2;
        if (b > 0) {
            brute_nearest(a, b, y1, y2, &x1, &x2);
        } else {
            x1 = fmax(-(double)a, fmin((double)a, y1)), x2 = 0;
        }
        double theta_c = sqrt(x1 * x1 + x2 * x2), psi_c = atan2(x2, x1);
        rq expect = compose_limit_pose(ref, f, psi_c, theta_c, phi);
        worst = fmax(worst, quat_diff_up_to_sign(rq_of(out), expect));
        oroya_quat again;
        oroya_joint_limit_clamp(&limit, out, &again);
        OT_CHECK(same_bits(again, out));
    }
    printf("  ellipse: %d inside (untouched), %d clamped, worst vs brute force %.2e\n", inside,
           clamped, worst);
    OT_CHECK(inside > 200 && clamped > 1000);
    OT_CHECK(worst < 2e-5);
}

/* Hand-computed cases. */
static void test_limit_by_hand(void) {
    const double deg = PI / 180;
    oroya_joint_limit lim = {.twist_axis = {0, 1, 0},
                             .has_twist_limit = true,
                             .twist_min = (float)(-30 * deg),
                             .twist_max = (float)(30 * deg)};
    oroya_quat out;
    /* 170 degrees of twist about y against [-30, 30]: nearer to +30 (140 vs 160 away). */
    oroya_joint_limit_clamp(&lim, to_q(rq_axis_angle((rv3){0, 1, 0}, 170 * deg)), &out);
    OT_CHECK(quat_diff_up_to_sign(rq_of(out), rq_axis_angle((rv3){0, 1, 0}, 30 * deg)) < 1e-6);
    oroya_joint_limit_clamp(&lim, to_q(rq_axis_angle((rv3){0, 1, 0}, -170 * deg)), &out);
    OT_CHECK(quat_diff_up_to_sign(rq_of(out), rq_axis_angle((rv3){0, 1, 0}, -30 * deg)) < 1e-6);
    /* Around the circle: 179 degrees against [-170, 10] is 11 from -170 and 169 from 10. */
    lim.twist_min = (float)(-170 * deg), lim.twist_max = (float)(10 * deg);
    oroya_joint_limit_clamp(&lim, to_q(rq_axis_angle((rv3){0, 1, 0}, 179 * deg)), &out);
    OT_CHECK(quat_diff_up_to_sign(rq_of(out), rq_axis_angle((rv3){0, 1, 0}, -170 * deg)) < 1e-6);

    /* A shoulder whose rest pose is 90 degrees about z; a 60-degree cone about the bone (+y in
     * the rest frame). Swinging 100 degrees about x from rest ends at 60 about x. */
    rq rest = rq_axis_angle((rv3){0, 0, 1}, 90 * deg);
    oroya_joint_limit sh = {.reference = to_q(rest),
                            .twist_axis = {0, 2, 0},
                            .swing = OROYA_SWING_CONE,
                            .swing_max = {(float)(60 * deg)}};
    oroya_quat q = to_q(rq_mul(rest, rq_axis_angle((rv3){1, 0, 0}, 100 * deg)));
    oroya_joint_limit_clamp(&sh, q, &out);
    OT_CHECK(quat_diff_up_to_sign(rq_of(out),
                                  rq_mul(rest, rq_axis_angle((rv3){1, 0, 0}, 60 * deg))) < 1e-6);
    /* The bone direction ends 60 degrees from its rest direction (acos of the dot). */
    rv3 rest_dir = rq_rotate(rest, (rv3){0, 1, 0}), dir = rq_rotate(rq_of(out), (rv3){0, 1, 0});
    OT_NEAR(acos(rv_dot(rest_dir, dir)), 60 * deg, 1e-5);
    /* Inside: 59 degrees is left alone, bit for bit. */
    q = to_q(rq_mul(rest, rq_axis_angle((rv3){1, 0, 0}, 59 * deg)));
    oroya_joint_limit_clamp(&sh, q, &out);
    OT_CHECK(same_bits(out, q));

    /* Elliptical: 40 degrees about x, 10 about z (twist y). A swing of 30 about x is inside; 30
     * about z goes to 10 about z (on an ellipse axis the nearest point is the vertex). */
    oroya_joint_limit el = {.twist_axis = {0, 1, 0},
                            .swing_axis = {1, 0, 0},
                            .swing = OROYA_SWING_ELLIPSE,
                            .swing_max = {(float)(40 * deg), (float)(10 * deg)}};
    q = to_q(rq_axis_angle((rv3){1, 0, 0}, 30 * deg));
    oroya_joint_limit_clamp(&el, q, &out);
    OT_CHECK(same_bits(out, q));
    /* e2 = n x e1 = y x x = -z, so a swing about +z has a negative e2 coordinate. */
    oroya_joint_limit_clamp(&el, to_q(rq_axis_angle((rv3){0, 0, 1}, 30 * deg)), &out);
    OT_CHECK(quat_diff_up_to_sign(rq_of(out), rq_axis_angle((rv3){0, 0, 1}, 10 * deg)) < 1e-6);
    /* A hinge (0 about z): a swing about (x + z) keeps only its x part, clamped to 40. */
    el.swing_max[1] = 0;
    oroya_joint_limit_clamp(&el, to_q(rq_axis_angle((rv3){1, 0, 1}, 80 * deg)), &out);
    OT_CHECK(quat_diff_up_to_sign(rq_of(out), rq_axis_angle((rv3){1, 0, 0}, 40 * deg)) < 1e-6);
    oroya_joint_limit_clamp(&el, to_q(rq_axis_angle((rv3){1, 0, 1}, 20 * deg)), &out);
    OT_CHECK(quat_diff_up_to_sign(rq_of(out), rq_axis_angle((rv3){1, 0, 0}, 20 * deg / sqrt(2))) <
             1e-6);

    /* FREE with no twist limit: nothing to do, any axis, bit for bit. */
    oroya_joint_limit none = {0};
    q = random_unit_quat();
    OT_EQ_INT(oroya_joint_limit_clamp(&none, q, &out), OROYA_OK);
    OT_CHECK(same_bits(out, q));
    /* A non-unit q inside the limit is left as it is; outside, the result is unit. */
    oroya_quat big = {0, 0, 0, 3};
    OT_EQ_INT(oroya_joint_limit_clamp(&sh, big, &out), OROYA_OK);
    OT_CHECK(same_bits(out, (oroya_quat){0, 0, 0, 3}) == false); /* identity is 90 deg off rest */
    OT_NEAR(rq_len(rq_of(out)), 1, 1e-6);
}

static void test_limit_validation(void) {
    const float pi = (float)PI;
    struct {
        oroya_joint_limit limit;
        const char *field;
    } bad[] = {
        {{.swing = OROYA_SWING_CONE, .swing_max = {1}}, "twist_axis"},
        {{.has_twist_limit = true, .twist_axis = {NAN, 0, 1}}, "twist_axis"},
        {{.has_twist_limit = true, .twist_axis = {1e-7f, 0, 0}}, "twist_axis"},
        {{.twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {-0.1f}},
         "swing_max[0]"},
        {{.twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {4}}, "swing_max[0]"},
        {{.twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {NAN}}, "swing_max[0]"},
        {{.twist_axis = {0, 1, 0},
          .swing_axis = {1, 0, 0},
          .swing = OROYA_SWING_ELLIPSE,
          .swing_max = {1, INFINITY}},
         "swing_max[1]"},
        {{.twist_axis = {0, 1, 0},
          .swing_axis = {0, 3, 0},
          .swing = OROYA_SWING_ELLIPSE,
          .swing_max = {1, 1}},
         "swing_axis"},
        {{.twist_axis = {0, 1, 0}, .swing = OROYA_SWING_ELLIPSE, .swing_max = {1, 1}},
         "swing_axis"},
        {{.twist_axis = {0, 1, 0}, .swing = (oroya_swing_limit)7}, "swing"},
        {{.twist_axis = {0, 1, 0}, .has_twist_limit = true, .twist_min = 1, .twist_max = 0.5f},
         "twist_min 1"},
        {{.twist_axis = {0, 1, 0}, .has_twist_limit = true, .twist_min = -4, .twist_max = 0},
         "twist_min"},
        {{.twist_axis = {0, 1, 0}, .has_twist_limit = true, .twist_min = 0, .twist_max = NAN},
         "twist_max"},
        {{.reference = {NAN, 0, 0, 1}}, "reference"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        oroya_error err = {0};
        oroya_result r = oroya_joint_limit_validate(&bad[i].limit, 6, &err);
        OT_CHECK_MSG(r == OROYA_ERR_INVALID_ARGUMENT, "case %zu", i);
        OT_CHECK_MSG(strstr(err.message, "limits[6]") && strstr(err.message, bad[i].field),
                     "case %zu: message '%s'", i, err.message);
        oroya_quat q = {0.1f, 0.2f, 0.3f, 0.9f}, out = {0, 0, 0, 0};
        OT_EQ_INT(oroya_joint_limit_clamp(&bad[i].limit, q, &out), OROYA_ERR_INVALID_ARGUMENT);
        OT_CHECK(same_bits(out, q));
    }
    /* Valid edge values: pi as a float, a zero cone, a point range. */
    oroya_joint_limit ok = {.twist_axis = {0, 0, 1},
                            .swing = OROYA_SWING_CONE,
                            .swing_max = {pi},
                            .has_twist_limit = true,
                            .twist_min = -pi,
                            .twist_max = pi};
    OT_EQ_INT(oroya_joint_limit_validate(&ok, 0, NULL), OROYA_OK);
    ok.swing_max[0] = 0, ok.twist_min = ok.twist_max = 0.5f;
    OT_EQ_INT(oroya_joint_limit_validate(&ok, 0, NULL), OROYA_OK);
    OT_EQ_INT(oroya_joint_limit_validate(NULL, 0, NULL), OROYA_ERR_INVALID_ARGUMENT);
    /* A locked joint (zero cone, point twist range) goes to reference * twist(0.5). */
    oroya_quat out;
    OT_EQ_INT(oroya_joint_limit_clamp(&ok, random_unit_quat(), &out), OROYA_OK);
    OT_CHECK(quat_diff_up_to_sign(rq_of(out), rq_axis_angle((rv3){0, 0, 1}, 0.5)) < 1e-6);
    /* Bad rotations and pointers. */
    OT_EQ_INT(oroya_joint_limit_clamp(&ok, (oroya_quat){NAN, 0, 0, 1}, &out), OROYA_ERR_NON_FINITE);
    OT_EQ_INT(oroya_joint_limit_clamp(&ok, (oroya_quat){0, 0, 0, 0}, &out),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_joint_limit_clamp(&ok, (oroya_quat){0, 0, 0, 1}, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_joint_limit_clamp(NULL, (oroya_quat){0, 0, 0, 1}, &out),
              OROYA_ERR_INVALID_ARGUMENT);
}

/* A transform-like record, to run the pass with a stride. */
typedef struct {
    oroya_vec3 translation;
    oroya_quat rotation;
    oroya_vec3 scale;
} pose_record;

static void test_limit_job(void) {
    const double deg = PI / 180;
    oroya_joint_limit limits[2] = {
        {.twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {(float)(20 * deg)}},
        {.twist_axis = {1, 0, 0},
         .has_twist_limit = true,
         .twist_min = 0,
         .twist_max = (float)(45 * deg)},
    };
    uint32_t joints[2] = {3, 1};
    pose_record pose[5];
    for (int i = 0; i < 5; i++) {
        pose[i].translation = (oroya_vec3){(float)i, 1, 2};
        pose[i].rotation = to_q(rq_axis_angle((rv3){1, 0, 1}, 1.0 + 0.1 * i));
        pose[i].scale = (oroya_vec3){1, 1, 1};
    }
    pose_record before[5];
    memcpy(before, pose, sizeof pose);
    oroya_joint_limit_job job = {.limits = limits,
                                 .joints = joints,
                                 .limit_count = 2,
                                 .rotations = &pose[0].rotation,
                                 .rotation_count = 5,
                                 .rotation_stride = sizeof(pose_record)};
    oroya_error err = {0};
    OT_EQ_INT(oroya_joint_limit_job_run(&job, &err), OROYA_OK);
    oroya_quat e3, e1;
    oroya_joint_limit_clamp(&limits[0], before[3].rotation, &e3);
    oroya_joint_limit_clamp(&limits[1], before[1].rotation, &e1);
    OT_CHECK(same_bits(pose[3].rotation, e3) && !same_bits(e3, before[3].rotation));
    OT_CHECK(same_bits(pose[1].rotation, e1) && !same_bits(e1, before[1].rotation));
    for (int i = 0; i < 5; i++) {
        OT_CHECK(memcmp(&pose[i].translation, &before[i].translation, sizeof(oroya_vec3)) == 0);
        OT_CHECK(memcmp(&pose[i].scale, &before[i].scale, sizeof(oroya_vec3)) == 0);
        if (i != 1 && i != 3)
            OT_CHECK(same_bits(pose[i].rotation, before[i].rotation));
    }

    /* Dense, joints NULL: limits[i] clamps rotations[i]. */
    oroya_quat dense[3] = {before[0].rotation, before[1].rotation, before[2].rotation};
    oroya_joint_limit_job dj = {
        .limits = limits, .limit_count = 2, .rotations = dense, .rotation_count = 3};
    OT_EQ_INT(oroya_joint_limit_job_run(&dj, NULL), OROYA_OK);
    oroya_quat e0;
    oroya_joint_limit_clamp(&limits[0], before[0].rotation, &e0);
    OT_CHECK(same_bits(dense[0], e0) && same_bits(dense[1], e1));
    OT_CHECK(same_bits(dense[2], before[2].rotation));

    /* Validation errors write nothing. */
    memcpy(pose, before, sizeof pose);
    uint32_t bad_joints[2] = {3, 5};
    job.joints = bad_joints;
    OT_EQ_INT(oroya_joint_limit_job_run(&job, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK(strstr(err.message, "limits[1]") && strstr(err.message, "joint 5"));
    OT_CHECK(memcmp(pose, before, sizeof pose) == 0);
    job.joints = joints;
    dj.rotation_count = 1;
    OT_EQ_INT(oroya_joint_limit_job_run(&dj, &err), OROYA_ERR_OUT_OF_RANGE);
    dj.rotation_count = 3;
    job.rotation_stride = 18;
    OT_EQ_INT(oroya_joint_limit_job_run(&job, &err), OROYA_ERR_INVALID_ARGUMENT);
    job.rotation_stride = 8;
    OT_EQ_INT(oroya_joint_limit_job_validate(&job, &err), OROYA_ERR_INVALID_ARGUMENT);
    job.rotation_stride = sizeof(pose_record);
    /* Rotations not aligned to a float: refused (UBSan reported misaligned loads). */
    oroya_quat *const rotations = job.rotations;
    job.rotations = (oroya_quat *)(void *)((char *)rotations + 2);
    OT_EQ_INT(oroya_joint_limit_job_run(&job, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "aligned") != NULL);
    job.rotations = rotations;
    OT_CHECK(memcmp(pose, before, sizeof pose) == 0);
    oroya_joint_limit broken[2] = {limits[0], limits[1]};
    broken[1].twist_max = -1;
    job.limits = broken;
    OT_EQ_INT(oroya_joint_limit_job_run(&job, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "limits[1]") != NULL);
    OT_CHECK(memcmp(pose, before, sizeof pose) == 0);
    job.limits = limits;
    OT_EQ_INT(oroya_joint_limit_job_run(NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_joint_limit_job nulls = {.limit_count = 1, .rotations = dense, .rotation_count = 3};
    OT_EQ_INT(oroya_joint_limit_job_run(&nulls, &err), OROYA_ERR_INVALID_ARGUMENT);
    nulls = (oroya_joint_limit_job){.limits = limits, .limit_count = 1, .rotation_count = 3};
    OT_EQ_INT(oroya_joint_limit_job_run(&nulls, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_joint_limit_job empty = {0};
    OT_EQ_INT(oroya_joint_limit_job_run(&empty, &err), OROYA_OK);

    /* A NaN rotation is reported and left; the other joint is still clamped. */
    pose[3].rotation = (oroya_quat){NAN, 0, 0, 1};
    OT_EQ_INT(oroya_joint_limit_job_run(&job, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK(strstr(err.message, "rotations[3]") && strstr(err.message, "limits[0]"));
    OT_CHECK(isnan(pose[3].rotation.x));
    OT_CHECK(same_bits(pose[1].rotation, e1));
    pose[3].rotation = (oroya_quat){0, 0, 0, 0};
    pose[1].rotation = before[1].rotation;
    OT_EQ_INT(oroya_joint_limit_job_run(&job, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK(strstr(err.message, "rotations[3]") != NULL);
    OT_CHECK(same_bits(pose[1].rotation, e1));
}

static bool quat_bits_equal(oroya_quat a, oroya_quat b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The rotation angle between two rotations (q and -q alike), in double. */
static double angle_between_rotations(oroya_quat a, oroya_quat b) {
    /* r = conj(a) b in double; its angle by atan2, which keeps small angles (acos near 1
     * does not). */
    const double ax = -a.x, ay = -a.y, az = -a.z, aw = a.w, bx = b.x, by = b.y, bz = b.z, bw = b.w;
    const double rx = aw * bx + ax * bw + ay * bz - az * by;
    const double ry = aw * by - ax * bz + ay * bw + az * bx;
    const double rz = aw * bz + ax * by - ay * bx + az * bw;
    const double rw = aw * bw - ax * bx - ay * by - az * bz;
    return 2 * atan2(sqrt(rx * rx + ry * ry + rz * rz), fabs(rw));
}

/* Found by a property fuzz of the rotation tools against a long-double reference; each case
 * failed before its fix:
 * - a 180-degree swing has every twist, so it is inside any twist range: with a range that
 *   excludes 0 the clamp took its twist as 0, clamped that, and turned the rotation by 0.5 rad
 *   at every call, never converging;
 * - a twist within the slack of -pi is inside a range ending at +pi (the seam): it was changed;
 * - an axis of length 2^64 (or 2^-75) lost its length in float squares: the identity, or a
 *   rotation 1.42 long;
 * - sterp through exactly a half turn went one way for b and the other for -b. */
static void test_fuzz_findings(void) {
    /* The singular twist, alone and with a cone. */
    oroya_joint_limit lim = {
        .twist_axis = {0, 1, 0}, .has_twist_limit = true, .twist_min = 0.5f, .twist_max = 1.0f};
    const oroya_quat half_x = {1, 0, 0, 0};
    oroya_quat c1, c2;
    OT_EQ_INT(oroya_joint_limit_clamp(&lim, half_x, &c1), OROYA_OK);
    OT_CHECK_MSG(quat_bits_equal(c1, half_x), "(%g %g %g %g)", (double)c1.x, (double)c1.y,
                 (double)c1.z, (double)c1.w);
    lim.swing = OROYA_SWING_CONE;
    lim.swing_max[0] = 1.0f;
    OT_EQ_INT(oroya_joint_limit_clamp(&lim, half_x, &c1), OROYA_OK);
    OT_EQ_INT(oroya_joint_limit_clamp(&lim, c1, &c2), OROYA_OK);
    OT_CHECK_MSG(angle_between_rotations(c1, c2) < 2e-6, "second clamp moved %g rad",
                 angle_between_rotations(c1, c2));
    const float tw = oroya_quat_twist_angle(c1, (oroya_vec3){0, 1, 0});
    OT_CHECK_MSG(tw >= 0.5f - 1e-6f && tw <= 1.0f + 1e-6f, "twist %g", (double)tw);
    /* A twist kept within the slack while the swing is clamped: it goes to its limit too, so
     * a second clamp finds the result inside (it moved it by 1e-6 rad). */
    const oroya_joint_limit band = {.twist_axis = {0, 1, 0},
                                    .swing = OROYA_SWING_CONE,
                                    .swing_max = {1},
                                    .has_twist_limit = true,
                                    .twist_min = -0.5f,
                                    .twist_max = 0.5f};
    const oroya_quat in_band = {-0x1.552926p-1f, 0x1.3cbe14p-3f, 0x1.a03a5ep-2f, 0x1.361d8ap-1f};
    OT_EQ_INT(oroya_joint_limit_clamp(&band, in_band, &c1), OROYA_OK);
    OT_EQ_INT(oroya_joint_limit_clamp(&band, c1, &c2), OROYA_OK);
    OT_CHECK(quat_bits_equal(c1, c2));
    /* A half-turn swing with float noise (within the singular case's 1e-6): the swing's part
     * along the twist axis came back as twist after the cone clamp, 6.4e-6 rad past the
     * range, and a second clamp moved the result. Then a sweep of such inputs (10-14 of
     * 400,000 random ones were out, up to 1.07e-5 rad): the twist within the slack once the
     * swing is clear of the half turn, and a second clamp within 1e-6 rad. */
    const oroya_joint_limit cone_tw = {.twist_axis = {0, 1, 0},
                                       .swing = OROYA_SWING_CONE,
                                       .swing_max = {2.8f},
                                       .has_twist_limit = true,
                                       .twist_min = 1.2f,
                                       .twist_max = 1.5f};
    OT_EQ_INT(oroya_joint_limit_clamp(&cone_tw, (oroya_quat){1, 0, 0, -9.9e-7f}, &c1), OROYA_OK);
    const float tw1 = oroya_quat_twist_angle(c1, (oroya_vec3){0, 1, 0});
    OT_CHECK_MSG(tw1 >= 1.2f - 1e-6f && tw1 <= 1.5f + 1e-6f, "twist %.9g", (double)tw1);
    uint32_t seed = 12345u, out_of_range = 0, moved_again = 0;
    double worst_tw = 0, worst_move = 0;
    for (int i = 0; i < 20000; i++) {
        float r[8];
        for (int k = 0; k < 8; k++) {
            seed = seed * 1664525u + 1013904223u;
            r[k] = (float)(seed >> 8) / 16777216.0f;
        }
        const float ax = 6.2831853f * r[0];
        const float noise_w = (r[1] - 0.5f) * 1.9e-6f, noise_n = (r[2] - 0.5f) * 1.9e-6f;
        const oroya_quat q =
            oroya_quat_normalize((oroya_quat){cosf(ax), noise_n, sinf(ax), noise_w});
        const float lo = -3.0f + 5.5f * r[3], hi = lo + 0.05f + 0.5f * r[4];
        oroya_joint_limit L = {.twist_axis = {0, 1, 0},
                               .swing = r[5] < 0.5f ? OROYA_SWING_CONE : OROYA_SWING_ELLIPSE,
                               .swing_max = {0.5f + 2.3f * r[6], 0.5f + 2.3f * r[7]},
                               .swing_axis = {1, 0, 0},
                               .has_twist_limit = true,
                               .twist_min = lo,
                               .twist_max = hi < 3.14159f ? hi : 3.14159f};
        if (oroya_joint_limit_clamp(&L, q, &c1) != OROYA_OK ||
            oroya_joint_limit_clamp(&L, c1, &c2) != OROYA_OK) {
            out_of_range++;
            continue;
        }
        oroya_quat sw, twp;
        oroya_quat_swing_twist(c1, L.twist_axis, &sw, &twp);
        const double swing =
            2 * atan2(sqrt((double)sw.x * sw.x + (double)sw.y * sw.y + (double)sw.z * sw.z),
                      fabs((double)sw.w));
        if (swing > 2.9) {
            continue; /* the twist is ill-conditioned there (rotation.h) */
        }
        const double t = oroya_quat_twist_angle(c1, L.twist_axis);
        const double past = fmax(L.twist_min - t, t - L.twist_max);
        worst_tw = fmax(worst_tw, past);
        out_of_range += past > 1.2e-6;
        const double mv = angle_between_rotations(c1, c2);
        worst_move = fmax(worst_move, mv);
        moved_again += mv > 1e-6;
    }
    OT_CHECK_MSG(out_of_range == 0 && moved_again == 0,
                 "near half turns: %u twists out (worst %.3g past), %u moved again (worst %.3g)",
                 out_of_range, worst_tw, moved_again, worst_move);
    /* The seam. */
    const oroya_joint_limit seam = {.twist_axis = {0, 0, 1},
                                    .has_twist_limit = true,
                                    .twist_min = 0,
                                    .twist_max = 0x1.921fb6p+1f};
    const oroya_quat near_minus_pi = {0, 0, 1, -0x1p-22f};
    OT_EQ_INT(oroya_joint_limit_clamp(&seam, near_minus_pi, &c1), OROYA_OK);
    OT_CHECK(quat_bits_equal(c1, near_minus_pi));
    /* Axes whose float squares leave the range. */
    const oroya_quat big = oroya_quat_from_axis_angle((oroya_vec3){0x1p+64f, 0, 0}, 1.5707964f);
    OT_CHECK_MSG(fabsf(big.x - 0.70710677f) < 1e-6f && fabsf(big.w - 0.70710677f) < 1e-6f,
                 "(%g %g %g %g)", (double)big.x, (double)big.y, (double)big.z, (double)big.w);
    const oroya_vec3 tiny = {-0x1.b96354p-75f, 0x1.ef1b7ep-76f, -0x1.fc74f4p-76f};
    const oroya_quat small = oroya_quat_from_axis_angle(tiny, 2);
    const double n2 = (double)small.x * small.x + (double)small.y * small.y +
                      (double)small.z * small.z + (double)small.w * small.w;
    OT_CHECK_MSG(fabs(n2 - 1) < 1e-6, "|q|^2 %g", n2);
    const double tl =
        sqrt((double)tiny.x * tiny.x + (double)tiny.y * tiny.y + (double)tiny.z * tiny.z);
    OT_CHECK(fabs(small.x - sin(1.0) * tiny.x / tl) < 1e-6);
    const oroya_vec3 nt = oroya_vec3_normalize(tiny);
    OT_CHECK(fabs((double)oroya_vec3_length(nt) - 1) < 1e-6);
    /* sterp through exactly a half turn, b and -b. */
    const oroya_quat id = {0, 0, 0, 1}, neg = {-1, 0, 0, 0};
    const oroya_quat s1 = oroya_quat_sterp(id, half_x, (oroya_vec3){0, 1, 0}, 0.5f);
    const oroya_quat s2 = oroya_quat_sterp(id, neg, (oroya_vec3){0, 1, 0}, 0.5f);
    OT_CHECK_MSG(angle_between_rotations(s1, s2) < 1e-6, "(%g %g %g %g) vs (%g %g %g %g)",
                 (double)s1.x, (double)s1.y, (double)s1.z, (double)s1.w, (double)s2.x, (double)s2.y,
                 (double)s2.z, (double)s2.w);
}

int main(void) {
    OT_RUN(test_swing_twist_random);
    OT_RUN(test_swing_twist_axis_parallel_and_opposite);
    OT_RUN(test_swing_twist_singular);
    OT_RUN(test_swing_twist_bad_axis);
    OT_RUN(test_swing_twist_non_unit);
    OT_RUN(test_sterp_endpoints_and_unit);
    OT_RUN(test_sterp_split_separate_parameters);
    OT_RUN(test_sterp_degenerate);
    OT_RUN(test_rod);
    OT_RUN(test_limit_cone_and_twist);
    OT_RUN(test_limit_ellipse);
    OT_RUN(test_limit_by_hand);
    OT_RUN(test_limit_validation);
    OT_RUN(test_limit_job);
    OT_RUN(test_fuzz_findings);
    return ot_finish();
}
