/* Swing-twist decomposition, sterp and joint limits. See include/oroya/rotation.h and
 * docs/rotation.md. */
#include "oroya/rotation.h"

#include <math.h>

/* Everything is computed in double and rounded to float once at the end: the decomposition
 * divides by the length of (v . axis, w), which can be small, and sterp chains three
 * products, so float intermediates would lose bits the callers can see. */
typedef struct {
    double x, y, z, w;
} dquat;

/* Below this |w|^2 + |v . axis|^2, relative to |q|^2, the twist direction is noise: float
 * inputs carry about 6e-8 of rounding per component, so an exact 180-degree swing arrives
 * with w and v . axis near 1e-7 and a sum of squares near 1e-14. 1e-12 leaves a margin of 100
 * over that while still splitting every rotation whose twist part is resolvable. */
#define SINGULAR_EPS 1e-12

/* An axis shorter than this has no usable direction (e.g. a bone's child at the bone's own
 * position). */
#define MIN_AXIS_LENGTH 1e-6

static dquat dq_from(oroya_quat q) {
    return (dquat){q.x, q.y, q.z, q.w};
}

static oroya_quat dq_to(dquat q) {
    return (oroya_quat){(float)q.x, (float)q.y, (float)q.z, (float)q.w};
}

static dquat dq_identity(void) {
    return (dquat){0.0, 0.0, 0.0, 1.0};
}

static dquat dq_mul(dquat a, dquat b) {
    return (dquat){
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}

static dquat dq_conj(dquat q) {
    return (dquat){-q.x, -q.y, -q.z, q.w};
}

static double dq_norm2(dquat q) {
    return q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
}

static dquat dq_scale(dquat q, double s) {
    return (dquat){q.x * s, q.y * s, q.z * s, q.w * s};
}

/* Unit quaternion along q; the zero quaternion gives the identity. A non-finite q comes back
 * as it is, so NaN propagates instead of turning into a plausible identity. */
static dquat dq_normalize(dquat q) {
    double len = sqrt(dq_norm2(q));
    if (!isfinite(len)) {
        return q;
    }
    if (!(len > 0.0)) {
        return dq_identity();
    }
    return dq_scale(q, 1.0 / len);
}

static bool dq_finite(dquat q) {
    return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}

/* Writes the unit direction of `axis` to n; false when it has none. */
static bool unit_axis(oroya_vec3 axis, double n[3]) {
    double x = axis.x, y = axis.y, z = axis.z;
    double len = sqrt(x * x + y * y + z * z);
    if (!isfinite(len) || !(len >= MIN_AXIS_LENGTH)) {
        return false;
    }
    n[0] = x / len;
    n[1] = y / len;
    n[2] = z / len;
    return true;
}

/* q = swing * twist about the unit axis n, as documented on oroya_quat_swing_twist. */
static void decompose(dquat q, const double n[3], dquat *swing, dquat *twist) {
    double p = q.x * n[0] + q.y * n[1] + q.z * n[2];
    double len2 = p * p + q.w * q.w;
    /* Also catches q == 0 (0 > 0 is false) and NaN. */
    if (!(len2 > SINGULAR_EPS * dq_norm2(q))) {
        *twist = dq_identity();
        *swing = q;
        return;
    }
    double inv = 1.0 / sqrt(len2);
    dquat t = {n[0] * p * inv, n[1] * p * inv, n[2] * p * inv, q.w * inv};
    /* q and -q are one rotation; pick w >= 0, and +pi rather than -pi at w == 0, so the
     * twist angle is a function of the rotation alone. */
    if (t.w < 0.0 || (t.w == 0.0 && p < 0.0)) {
        t = dq_scale(t, -1.0);
    }
    *twist = t;
    *swing = dq_mul(q, dq_conj(t));
}

/* slerp(I, q, t) on the shorter arc: q^t. atan2 keeps small angles exact, where the acos of
 * a general slerp would round them away. */
static dquat dq_pow_shortest(dquat q, double t) {
    if (q.w < 0.0) {
        q = dq_scale(q, -1.0);
    }
    double vlen = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(vlen > 0.0)) {
        return dq_identity();
    }
    double half = t * atan2(vlen, q.w);
    double s = sin(half) / vlen;
    return (dquat){q.x * s, q.y * s, q.z * s, cos(half)};
}

/* ---- decomposition ------------------------------------------------------------------- */

void oroya_quat_swing_twist(oroya_quat q, oroya_vec3 twist_axis, oroya_quat *swing,
                            oroya_quat *twist) {
    dquat s = dq_from(q), t = dq_identity();
    double n[3];
    if (unit_axis(twist_axis, n)) {
        decompose(dq_from(q), n, &s, &t);
    }
    if (swing) {
        *swing = dq_to(s);
    }
    if (twist) {
        *twist = dq_to(t);
    }
}

oroya_result oroya_quat_swing_twist_checked(oroya_quat q, oroya_vec3 twist_axis,
                                            oroya_quat *swing, oroya_quat *twist) {
    oroya_quat_swing_twist(q, twist_axis, swing, twist);
    double n[3];
    if (!unit_axis(twist_axis, n) || !dq_finite(dq_from(q))) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    return OROYA_OK;
}

float oroya_quat_twist_angle(oroya_quat q, oroya_vec3 twist_axis) {
    double n[3];
    if (!unit_axis(twist_axis, n)) {
        return 0.0f;
    }
    dquat s, t;
    decompose(dq_from(q), n, &s, &t);
    if (!dq_finite(t)) {
        return 0.0f;
    }
    /* t.w >= 0, so atan2 lies in [-pi/2, pi/2] and the angle in (-pi, pi]. */
    double along = t.x * n[0] + t.y * n[1] + t.z * n[2];
    return (float)(2.0 * atan2(along, t.w));
}

/* ---- sterp --------------------------------------------------------------------------- */

oroya_quat oroya_quat_sterp2(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t_swing,
                             float t_twist) {
    dquat qa = dq_normalize(dq_from(a));
    dquat qb = dq_normalize(dq_from(b));
    dquat d = dq_mul(dq_conj(qa), qb);
    dquat swing = d, twist = dq_identity();
    double n[3];
    if (unit_axis(twist_axis, n)) {
        decompose(d, n, &swing, &twist);
    }
    dquat r = dq_mul(qa, dq_mul(dq_pow_shortest(swing, t_swing), dq_pow_shortest(twist, t_twist)));
    /* r is unit up to rounding; renormalize so long chains of calls do not drift. */
    return dq_to(dq_normalize(r));
}

oroya_quat oroya_quat_sterp(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t) {
    return oroya_quat_sterp2(a, b, twist_axis, t, t);
}
