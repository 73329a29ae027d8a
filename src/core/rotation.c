/* Swing-twist decomposition, sterp and joint limits. See include/oroya/rotation.h and
 * docs/rotation.md. */
#include "oroya/rotation.h"

#include <math.h>

#include "internal/base.h"

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

static dquat dq_from(oroya_quat q) { return (dquat){q.x, q.y, q.z, q.w}; }

static oroya_quat dq_to(dquat q) {
    return (oroya_quat){(float)q.x, (float)q.y, (float)q.z, (float)q.w};
}

static dquat dq_identity(void) { return (dquat){0.0, 0.0, 0.0, 1.0}; }

static dquat dq_mul(dquat a, dquat b) {
    return (dquat){
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}

static dquat dq_conj(dquat q) { return (dquat){-q.x, -q.y, -q.z, q.w}; }

static double dq_norm2(dquat q) { return q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w; }

static dquat dq_scale(dquat q, double s) { return (dquat){q.x * s, q.y * s, q.z * s, q.w * s}; }

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
    /* q and -q are one rotation: w >= 0, and at w == 0 exactly (a half turn, where neither
     * way round is shorter) the vector's first non-zero part positive, so that the result
     * does not depend on the sign q came with. */
    if (q.w < 0.0 ||
        (q.w == 0.0 && (q.x < 0.0 || (q.x == 0.0 && (q.y < 0.0 || (q.y == 0.0 && q.z < 0.0)))))) {
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

oroya_result oroya_quat_swing_twist_checked(oroya_quat q, oroya_vec3 twist_axis, oroya_quat *swing,
                                            oroya_quat *twist) {
    oroya_quat s, t;
    oroya_quat_swing_twist(q, twist_axis, &s, &t);
    double n[3];
    oroya_result r = OROYA_OK;
    if (!unit_axis(twist_axis, n) || !dq_finite(dq_from(q))) {
        r = OROYA_ERR_INVALID_ARGUMENT;
    } else if (!(isfinite(s.x) && isfinite(s.y) && isfinite(s.z) && isfinite(s.w))) {
        /* A finite q whose length passes float (parts near FLT_MAX): the swing, which carries
         * that length, does not fit; it came back infinite with OK. */
        r = OROYA_ERR_NON_FINITE;
        s = q;
        t = (oroya_quat){0, 0, 0, 1};
    }
    if (swing) {
        *swing = s;
    }
    if (twist) {
        *twist = t;
    }
    return r;
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

oroya_quat oroya_quat_sterp_split(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t_swing,
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
    return oroya_quat_sterp_split(a, b, twist_axis, t, t);
}

oroya_quat oroya_quat_sterp2(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t_swing,
                             float t_twist) {
    return oroya_quat_sterp_split(a, b, twist_axis, t_swing, t_twist);
}

/* ---- joint limits -------------------------------------------------------------------- */

/* Rounding slack for the inside test, in radians: a rotation clamped once measures a few ulps
 * outside when measured again, and must then be left alone. */
#define LIMIT_SLACK 1e-6

#define PI 3.14159265358979323846

/* Angles up to pi; the float nearest pi is a hair above it. */
#define PI_SLACK (PI + 1e-6)

/* Bisection steps for the nearest point on the swing ellipse: the bracket starts at most
 * max(a, b) * |p| < 10 wide, so 100 halvings reach far below double resolution. */
#define ELLIPSE_STEPS 100

static bool angle_ok(float a, double lo, double hi) {
    return isfinite(a) && (double)a >= lo && (double)a <= hi;
}

/* Circular distance between two angles in [-pi, pi]. */
static double circular_distance(double a, double b) {
    double d = fabs(a - b);
    return d > PI ? 2.0 * PI - d : d;
}

/* The nearest point of the ellipse (x/a)^2 + (y/b)^2 = 1 to (px, py), which lies outside it.
 * The nearest point is x = a^2 px / (a^2 + l), y = b^2 py / (b^2 + l) for the l >= 0 that puts
 * it on the ellipse (the outward normal there points at p); the residual is decreasing in l,
 * so bisection finds it. A zero semi-axis flattens the ellipse to a segment. */
static void ellipse_nearest(double a, double b, double px, double py, double *qx, double *qy) {
    if (!(a > 0.0) && !(b > 0.0)) {
        *qx = 0.0;
        *qy = 0.0;
        return;
    }
    if (!(b > 0.0)) {
        *qx = fmax(-a, fmin(a, px));
        *qy = 0.0;
        return;
    }
    if (!(a > 0.0)) {
        *qx = 0.0;
        *qy = fmax(-b, fmin(b, py));
        return;
    }
    double a2 = a * a, b2 = b * b;
    double lo = 0.0, hi = fmax(a, b) * sqrt(px * px + py * py);
    for (int i = 0; i < ELLIPSE_STEPS; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) {
            break;
        }
        double ex = a * px / (a2 + mid), ey = b * py / (b2 + mid);
        if (ex * ex + ey * ey > 1.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    /* hi keeps the point on or just inside the ellipse, so a second clamp finds it inside. */
    *qx = a2 * px / (a2 + hi);
    *qy = b2 * py / (b2 + hi);
}

oroya_result oroya_joint_limit_validate(const oroya_joint_limit *limit, uint32_t index,
                                        oroya_error *err) {
    if (!limit) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "limits[%u]: NULL", index);
    }
    const oroya_quat r = limit->reference;
    if (!dq_finite(dq_from(r))) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "limits[%u].reference: not finite",
                           index);
    }
    if ((unsigned)limit->swing > (unsigned)OROYA_SWING_ELLIPSE) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "limits[%u].swing: unknown kind %d",
                           index, (int)limit->swing);
    }
    if (limit->swing == OROYA_SWING_FREE && !limit->has_twist_limit) {
        return OROYA_OK;
    }
    double n[3];
    if (!unit_axis(limit->twist_axis, n)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "limits[%u].twist_axis: zero (length below 1e-6) or not finite", index);
    }
    int swing_angles = limit->swing == OROYA_SWING_CONE      ? 1
                       : limit->swing == OROYA_SWING_ELLIPSE ? 2
                                                             : 0;
    for (int i = 0; i < swing_angles; i++) {
        if (!angle_ok(limit->swing_max[i], 0.0, PI_SLACK)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "limits[%u].swing_max[%d]: %g is not in [0, pi]", index, i,
                               (double)limit->swing_max[i]);
        }
    }
    if (limit->swing == OROYA_SWING_ELLIPSE) {
        oroya_vec3 e = limit->swing_axis;
        double p = (double)e.x * n[0] + (double)e.y * n[1] + (double)e.z * n[2];
        oroya_vec3 perp = {(float)(e.x - p * n[0]), (float)(e.y - p * n[1]),
                           (float)(e.z - p * n[2])};
        double m[3];
        if (!isfinite(e.x) || !isfinite(e.y) || !isfinite(e.z) || !unit_axis(perp, m)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "limits[%u].swing_axis: zero, not finite or parallel to "
                               "twist_axis",
                               index);
        }
    }
    if (limit->has_twist_limit) {
        if (!angle_ok(limit->twist_min, -PI_SLACK, PI_SLACK)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "limits[%u].twist_min: %g is not in [-pi, pi]", index,
                               (double)limit->twist_min);
        }
        if (!angle_ok(limit->twist_max, -PI_SLACK, PI_SLACK)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "limits[%u].twist_max: %g is not in [-pi, pi]", index,
                               (double)limit->twist_max);
        }
        if (limit->twist_min > limit->twist_max) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "limits[%u]: twist_min %g > twist_max %g", index,
                               (double)limit->twist_min, (double)limit->twist_max);
        }
    }
    return OROYA_OK;
}

/* Clamps a finite, non-zero q against a validated limit. Returns whether it moved. */
static bool clamp_valid(const oroya_joint_limit *limit, oroya_quat q, oroya_quat *out) {
    if (limit->swing == OROYA_SWING_FREE && !limit->has_twist_limit) {
        return false;
    }
    double n[3];
    if (!unit_axis(limit->twist_axis, n)) {
        return false; /* validated before; kept so n is never read uninitialized */
    }
    dquat ref = dq_from(limit->reference);
    ref = dq_norm2(ref) > 0.0 ? dq_normalize(ref) : dq_identity();
    dquat qn = dq_normalize(dq_from(q));
    dquat swing, twist;
    const dquat rel = dq_mul(dq_conj(ref), qn);
    decompose(rel, n, &swing, &twist);
    bool moved = false;
    /* A swing of a half turn (decompose's singular case) has no twist of its own: it is the
     * same rotation with any twist, so it is inside every twist range. Its split is taken
     * with the twist of the range nearest 0 (then the swing clamp below keeps that twist, and
     * a second clamp finds the result inside): it took the twist as 0 and clamped it to the
     * range, which turned the rotation and left it a half-turn swing again, so every clamp
     * moved it once more. */
    const double rp = rel.x * n[0] + rel.y * n[1] + rel.z * n[2];
    const bool singular = !(rp * rp + rel.w * rel.w > SINGULAR_EPS * dq_norm2(rel));

    double twist_angle = 2.0 * atan2(twist.x * n[0] + twist.y * n[1] + twist.z * n[2], twist.w);
    /* A piece kept because it is within the slack of its limit but past it: if the other
     * piece moves, it goes to its limit too, or the recombined rotation can measure just past
     * the slack and a second clamp would move it again (by some 1e-6 rad). */
    double twist_snap = 0.0;
    bool twist_in_band = false;
    if (limit->has_twist_limit && singular) {
        const double lo = limit->twist_min, hi = limit->twist_max;
        const double pick = lo > 0 ? lo : hi < 0 ? hi : 0.0;
        const double h = 0.5 * pick;
        twist = (dquat){n[0] * sin(h), n[1] * sin(h), n[2] * sin(h), cos(h)};
        swing = dq_mul(rel, dq_conj(twist));
        /* The swing without its part along the axis: rel is a half-turn swing only up to
         * SINGULAR_EPS, and a swing clamp keeps the swing's direction, so that part (up to
         * some 1e-6 of rel) came back as twist past the range (6.4e-6 rad over it, and a
         * second clamp moved the result). */
        const double sp = swing.x * n[0] + swing.y * n[1] + swing.z * n[2];
        swing.x -= sp * n[0], swing.y -= sp * n[1], swing.z -= sp * n[2];
        swing = dq_normalize(swing);
    } else if (limit->has_twist_limit) {
        double lo = limit->twist_min, hi = limit->twist_max;
        /* Outside the range by more than the slack, measured around the circle: a range
         * ending at +-pi meets the other end there (a twist of -pi + 5e-7 is within the slack
         * of +pi), which a straight comparison took for outside. */
        const bool inside = (twist_angle >= lo - LIMIT_SLACK && twist_angle <= hi + LIMIT_SLACK) ||
                            circular_distance(twist_angle, lo) <= LIMIT_SLACK ||
                            circular_distance(twist_angle, hi) <= LIMIT_SLACK;
        const double nearest =
            circular_distance(twist_angle, lo) <= circular_distance(twist_angle, hi) ? lo : hi;
        if (!inside) {
            twist_angle = nearest;
            double h = 0.5 * twist_angle;
            twist = (dquat){n[0] * sin(h), n[1] * sin(h), n[2] * sin(h), cos(h)};
            moved = true;
        } else if (!(twist_angle >= lo && twist_angle <= hi)) {
            twist_in_band = true, twist_snap = nearest;
        }
    }
    const bool twist_moved = moved;

    if (limit->swing != OROYA_SWING_FREE) {
        if (swing.w < 0.0) {
            swing = dq_scale(swing, -1.0);
        }
        double vlen = sqrt(swing.x * swing.x + swing.y * swing.y + swing.z * swing.z);
        double angle = 2.0 * atan2(vlen, swing.w);
        /* The swing's unit axis; with no swing there is nothing to clamp. */
        double u[3] = {0.0, 0.0, 0.0};
        if (vlen > 0.0) {
            u[0] = swing.x / vlen, u[1] = swing.y / vlen, u[2] = swing.z / vlen;
        }
        double new_angle = angle;
        bool swing_moved = false;
        if (limit->swing == OROYA_SWING_CONE) {
            double a = limit->swing_max[0];
            if (angle > a + LIMIT_SLACK || (twist_moved && angle > a)) {
                new_angle = a;
                swing_moved = true;
            }
        } else if (vlen > 0.0) {
            /* Ellipse basis: e1 is swing_axis made perpendicular to n, e2 = n x e1. */
            oroya_vec3 sa = limit->swing_axis;
            double p = sa.x * n[0] + sa.y * n[1] + sa.z * n[2];
            double e1[3] = {sa.x - p * n[0], sa.y - p * n[1], sa.z - p * n[2]};
            double l1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
            e1[0] /= l1, e1[1] /= l1, e1[2] /= l1;
            double e2[3] = {n[1] * e1[2] - n[2] * e1[1], n[2] * e1[0] - n[0] * e1[2],
                            n[0] * e1[1] - n[1] * e1[0]};
            double a = limit->swing_max[0], b = limit->swing_max[1];
            double y1 = angle * (u[0] * e1[0] + u[1] * e1[1] + u[2] * e1[2]);
            double y2 = angle * (u[0] * e2[0] + u[1] * e2[1] + u[2] * e2[2]);
            /* Outside when farther than the slack from the ellipse (its interior is convex,
             * so the nearest point measures that distance). A test on the ellipse with
             * semi-axes grown by the slack would not do: on a flat ellipse (a hinge) it
             * accepts almost no error across the thin direction. */
            double x1 = y1, x2 = y2;
            bool outside;
            if (a > 0.0 && b > 0.0) {
                outside = (y1 / a) * (y1 / a) + (y2 / b) * (y2 / b) > 1.0;
            } else {
                outside = !(fabs(y1) <= a && fabs(y2) <= b);
            }
            if (outside) {
                ellipse_nearest(a, b, y1, y2, &x1, &x2);
                /* Within the slack it stays, unless the twist moved (see twist_in_band). */
                outside = twist_moved ||
                          (x1 - y1) * (x1 - y1) + (x2 - y2) * (x2 - y2) > LIMIT_SLACK * LIMIT_SLACK;
            }
            if (outside) {
                double r[3] = {x1 * e1[0] + x2 * e2[0], x1 * e1[1] + x2 * e2[1],
                               x1 * e1[2] + x2 * e2[2]};
                new_angle = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
                if (new_angle > 0.0) {
                    u[0] = r[0] / new_angle, u[1] = r[1] / new_angle, u[2] = r[2] / new_angle;
                }
                swing_moved = true;
            }
        }
        if (swing_moved) {
            double h = 0.5 * new_angle;
            swing = (dquat){u[0] * sin(h), u[1] * sin(h), u[2] * sin(h), cos(h)};
            moved = true;
        }
    }
    if (moved && !twist_moved && twist_in_band) {
        const double h = 0.5 * twist_snap;
        twist = (dquat){n[0] * sin(h), n[1] * sin(h), n[2] * sin(h), cos(h)};
    }

    if (!moved) {
        return false;
    }
    dquat r = dq_normalize(dq_mul(ref, dq_mul(swing, twist)));
    if (r.x * q.x + r.y * q.y + r.z * q.z + r.w * q.w < 0.0) {
        r = dq_scale(r, -1.0);
    }
    *out = dq_to(r);
    return true;
}

/* 0 for a usable rotation, else the error it gets. */
static oroya_result rotation_problem(oroya_quat q) {
    dquat d = dq_from(q);
    if (!dq_finite(d)) {
        return OROYA_ERR_NON_FINITE;
    }
    if (!(dq_norm2(d) > 0.0)) {
        return OROYA_ERR_INVALID_DATA;
    }
    return OROYA_OK;
}

oroya_result oroya_joint_limit_clamp(const oroya_joint_limit *limit, oroya_quat q,
                                     oroya_quat *out) {
    if (!out) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    *out = q;
    oroya_result res = oroya_joint_limit_validate(limit, 0, NULL);
    if (res != OROYA_OK) {
        return res;
    }
    res = rotation_problem(q);
    if (res != OROYA_OK) {
        return res == OROYA_ERR_INVALID_DATA ? OROYA_ERR_INVALID_ARGUMENT : res;
    }
    clamp_valid(limit, q, out);
    return OROYA_OK;
}

static oroya_quat *rotation_at(const oroya_joint_limit_job *job, uint32_t j) {
    size_t stride = job->rotation_stride ? job->rotation_stride : sizeof(oroya_quat);
    return (oroya_quat *)(void *)((char *)job->rotations + (size_t)j * stride);
}

oroya_result oroya_joint_limit_job_validate(const oroya_joint_limit_job *job, oroya_error *err) {
    if (!job) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "joint limit job: NULL");
    }
    if (job->limit_count > 0 && !job->limits) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "joint limit job: limits is NULL with limit_count %u", job->limit_count);
    }
    if (job->rotation_count > 0 && !job->rotations) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "joint limit job: rotations is NULL with rotation_count %u",
                           job->rotation_count);
    }
    if ((uintptr_t)job->rotations % _Alignof(float) != 0) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "joint limit job: rotations is not aligned to a float (4 bytes)");
    }
    uint32_t stride = job->rotation_stride;
    if (stride != 0 && (stride < sizeof(oroya_quat) || stride % sizeof(float) != 0)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "joint limit job: rotation_stride %u is not 0 or a multiple of 4 "
                           ">= 16",
                           stride);
    }
    for (uint32_t i = 0; i < job->limit_count; i++) {
        uint32_t j = job->joints ? job->joints[i] : i;
        if (j >= job->rotation_count) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE,
                               "limits[%u]: joint %u is out of range (rotation_count %u)", i, j,
                               job->rotation_count);
        }
        oroya_result res = oroya_joint_limit_validate(&job->limits[i], i, err);
        if (res != OROYA_OK) {
            return res;
        }
    }
    return OROYA_OK;
}

oroya_result oroya_joint_limit_job_run(const oroya_joint_limit_job *job, oroya_error *err) {
    oroya_result res = oroya_joint_limit_job_validate(job, err);
    if (res != OROYA_OK) {
        return res;
    }
    oroya_result first = OROYA_OK;
    for (uint32_t i = 0; i < job->limit_count; i++) {
        uint32_t j = job->joints ? job->joints[i] : i;
        oroya_quat *q = rotation_at(job, j);
        oroya_result problem = rotation_problem(*q);
        if (problem != OROYA_OK) {
            if (first == OROYA_OK) {
                first = oroya__fail(err, problem, "rotations[%u] (limits[%u]): %s", j, i,
                                    problem == OROYA_ERR_NON_FINITE ? "not finite" : "zero length");
            }
            continue;
        }
        clamp_valid(&job->limits[i], *q, q);
    }
    return first;
}
