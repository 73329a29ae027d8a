/* Vectors, quaternions, matrices and Hermite interpolation. See include/oroya/math.h. */
#include "oroya/math.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- vec3 ---------------------------------------------------------------------------- */

oroya_vec3 oroya_vec3_add(oroya_vec3 a, oroya_vec3 b) {
    return (oroya_vec3){a.x + b.x, a.y + b.y, a.z + b.z};
}

oroya_vec3 oroya_vec3_sub(oroya_vec3 a, oroya_vec3 b) {
    return (oroya_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

oroya_vec3 oroya_vec3_scale(oroya_vec3 a, float s) {
    return (oroya_vec3){a.x * s, a.y * s, a.z * s};
}

oroya_vec3 oroya_vec3_mul(oroya_vec3 a, oroya_vec3 b) {
    return (oroya_vec3){a.x * b.x, a.y * b.y, a.z * b.z};
}

float oroya_vec3_dot(oroya_vec3 a, oroya_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

oroya_vec3 oroya_vec3_cross(oroya_vec3 a, oroya_vec3 b) {
    return (oroya_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

float oroya_vec3_length(oroya_vec3 a) { return sqrtf(oroya_vec3_dot(a, a)); }

oroya_vec3 oroya_vec3_normalize(oroya_vec3 a) {
    float len = oroya_vec3_length(a);
    if (!(len > 1e-18f) || !(len < 1e18f)) {
        /* Where the float squares lose bits (below 1e-19 they are denormal or 0, past 1.8e19
         * inf): the length in double. {2^64, 0, 0} gave 0 and a tiny axis a vector 1.4 long. */
        const double x = a.x, y = a.y, z = a.z, l = sqrt(x * x + y * y + z * z);
        if (!(l > 0.0) || !isfinite(l)) {
            return (oroya_vec3){0.0f, 0.0f, 0.0f};
        }
        return (oroya_vec3){(float)(x / l), (float)(y / l), (float)(z / l)};
    }
    return oroya_vec3_scale(a, 1.0f / len);
}

oroya_vec3 oroya_vec3_lerp(oroya_vec3 a, oroya_vec3 b, float t) {
    return (oroya_vec3){a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
}

/* ---- quat ---------------------------------------------------------------------------- */

oroya_quat oroya_quat_identity(void) { return (oroya_quat){0.0f, 0.0f, 0.0f, 1.0f}; }

oroya_quat oroya_quat_mul(oroya_quat a, oroya_quat b) {
    return (oroya_quat){
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}

oroya_quat oroya_quat_conjugate(oroya_quat q) { return (oroya_quat){-q.x, -q.y, -q.z, q.w}; }

float oroya_quat_dot(oroya_quat a, oroya_quat b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

float oroya_quat_length(oroya_quat q) { return sqrtf(oroya_quat_dot(q, q)); }

oroya_quat oroya_quat_normalize(oroya_quat q) {
    /* Accumulate in double: keys near unit length lose bits when squared in float. */
    double len =
        sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    if (!(len > 0.0) || !isfinite(len)) {
        return oroya_quat_identity();
    }
    double inv = 1.0 / len;
    return (oroya_quat){(float)(q.x * inv), (float)(q.y * inv), (float)(q.z * inv),
                        (float)(q.w * inv)};
}

oroya_quat oroya_quat_from_axis_angle(oroya_vec3 axis, float angle) {
    oroya_vec3 n = oroya_vec3_normalize(axis);
    if (n.x == 0.0f && n.y == 0.0f && n.z == 0.0f) {
        return oroya_quat_identity();
    }
    float s = sinf(0.5f * angle);
    return (oroya_quat){n.x * s, n.y * s, n.z * s, cosf(0.5f * angle)};
}

oroya_vec3 oroya_quat_rotate(oroya_quat q, oroya_vec3 v) {
    /* v' = v + 2w (u x v) + 2 u x (u x v), with u the vector part. */
    oroya_vec3 u = {q.x, q.y, q.z};
    oroya_vec3 t = oroya_vec3_scale(oroya_vec3_cross(u, v), 2.0f);
    return oroya_vec3_add(oroya_vec3_add(v, oroya_vec3_scale(t, q.w)), oroya_vec3_cross(u, t));
}

oroya_quat oroya_quat_slerp(oroya_quat a, oroya_quat b, float t) {
    double ax = a.x, ay = a.y, az = a.z, aw = a.w;
    double bx = b.x, by = b.y, bz = b.z, bw = b.w;
    double d = ax * bx + ay * by + az * bz + aw * bw;
    /* Shortest arc: q and -q are the same rotation, so take the one within 90 degrees of a.
     * After the flip d is in [0, 1], which also makes "nearly opposite" inputs the
     * well-conditioned "nearly equal" case. */
    if (d < 0.0) {
        bx = -bx, by = -by, bz = -bz, bw = -bw;
        d = -d;
    }
    double s0, s1;
    /* Below a rotation of about 0.5 degrees (a dot above 0.99999) sin(theta) loses too many
     * bits to divide by; the normalized lerp there differs from the true slerp by less than
     * 2e-7 rad. */
    if (d > 0.99999) {
        s0 = 1.0 - t;
        s1 = t;
    } else {
        double theta = acos(d);
        double sin_theta = sin(theta);
        s0 = sin((1.0 - t) * theta) / sin_theta;
        s1 = sin(t * theta) / sin_theta;
    }
    oroya_quat r = {(float)(s0 * ax + s1 * bx), (float)(s0 * ay + s1 * by),
                    (float)(s0 * az + s1 * bz), (float)(s0 * aw + s1 * bw)};
    return oroya_quat_normalize(r);
}

oroya_quat oroya_quat_nlerp(oroya_quat a, oroya_quat b, float t) {
    float sign = oroya_quat_dot(a, b) < 0.0f ? -1.0f : 1.0f;
    float s0 = 1.0f - t, s1 = t * sign;
    return oroya_quat_normalize((oroya_quat){s0 * a.x + s1 * b.x, s0 * a.y + s1 * b.y,
                                             s0 * a.z + s1 * b.z, s0 * a.w + s1 * b.w});
}

/* ---- mat4 ---------------------------------------------------------------------------- */

oroya_mat4 oroya_mat4_identity(void) {
    oroya_mat4 r = {{0}};
    r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1.0f;
    return r;
}

oroya_mat4 oroya_mat4_mul(oroya_mat4 a, oroya_mat4 b) {
    oroya_mat4 r;
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            r.m[c * 4 + row] =
                a.m[0 * 4 + row] * b.m[c * 4 + 0] + a.m[1 * 4 + row] * b.m[c * 4 + 1] +
                a.m[2 * 4 + row] * b.m[c * 4 + 2] + a.m[3 * 4 + row] * b.m[c * 4 + 3];
        }
    }
    return r;
}

oroya_mat4 oroya_mat4_transpose(oroya_mat4 m) {
    oroya_mat4 r;
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            r.m[c * 4 + row] = m.m[row * 4 + c];
        }
    }
    return r;
}

oroya_mat4 oroya_mat4_compose(oroya_vec3 t, oroya_quat q, oroya_vec3 s) {
    float x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    float xx = q.x * x2, xy = q.x * y2, xz = q.x * z2;
    float yy = q.y * y2, yz = q.y * z2, zz = q.z * z2;
    float wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    oroya_mat4 r;
    r.m[0] = (1.0f - (yy + zz)) * s.x;
    r.m[1] = (xy + wz) * s.x;
    r.m[2] = (xz - wy) * s.x;
    r.m[3] = 0.0f;
    r.m[4] = (xy - wz) * s.y;
    r.m[5] = (1.0f - (xx + zz)) * s.y;
    r.m[6] = (yz + wx) * s.y;
    r.m[7] = 0.0f;
    r.m[8] = (xz + wy) * s.z;
    r.m[9] = (yz - wx) * s.z;
    r.m[10] = (1.0f - (xx + yy)) * s.z;
    r.m[11] = 0.0f;
    r.m[12] = t.x;
    r.m[13] = t.y;
    r.m[14] = t.z;
    r.m[15] = 1.0f;
    return r;
}

/* The determinant of a, in double, from its twelve 2x2 minors b (of rows 0-1 and of rows 2-3,
 * each pair of columns, in three.js Matrix4.invert's order), which the inverse reuses. */
static double determinant_minors(const float *a, double b[12]) {
    b[0] = (double)a[0] * a[5] - (double)a[1] * a[4];
    b[1] = (double)a[0] * a[6] - (double)a[2] * a[4];
    b[2] = (double)a[0] * a[7] - (double)a[3] * a[4];
    b[3] = (double)a[1] * a[6] - (double)a[2] * a[5];
    b[4] = (double)a[1] * a[7] - (double)a[3] * a[5];
    b[5] = (double)a[2] * a[7] - (double)a[3] * a[6];
    b[6] = (double)a[8] * a[13] - (double)a[9] * a[12];
    b[7] = (double)a[8] * a[14] - (double)a[10] * a[12];
    b[8] = (double)a[8] * a[15] - (double)a[11] * a[12];
    b[9] = (double)a[9] * a[14] - (double)a[10] * a[13];
    b[10] = (double)a[9] * a[15] - (double)a[11] * a[13];
    b[11] = (double)a[10] * a[15] - (double)a[11] * a[14];
    return b[0] * b[11] - b[1] * b[10] + b[2] * b[9] + b[3] * b[8] - b[4] * b[7] + b[5] * b[6];
}

float oroya_mat4_determinant(oroya_mat4 m) {
    double b[12];
    return (float)determinant_minors(m.m, b);
}

/* Rotation from the upper 3x3 of a matrix whose columns are unit length (Shepperd's method,
 * in the branch order three.js's Quaternion.setFromRotationMatrix uses, so that decompose
 * picks the same sign as three.js). */
static oroya_quat quat_from_rotation(const double r[9]) {
    double m11 = r[0], m12 = r[3], m13 = r[6];
    double m21 = r[1], m22 = r[4], m23 = r[7];
    double m31 = r[2], m32 = r[5], m33 = r[8];
    double trace = m11 + m22 + m33, x, y, z, w;
    if (trace > 0.0) {
        double s = 0.5 / sqrt(trace + 1.0);
        w = 0.25 / s;
        x = (m32 - m23) * s;
        y = (m13 - m31) * s;
        z = (m21 - m12) * s;
    } else if (m11 > m22 && m11 > m33) {
        double s = 2.0 * sqrt(1.0 + m11 - m22 - m33);
        w = (m32 - m23) / s;
        x = 0.25 * s;
        y = (m12 + m21) / s;
        z = (m13 + m31) / s;
    } else if (m22 > m33) {
        double s = 2.0 * sqrt(1.0 + m22 - m11 - m33);
        w = (m13 - m31) / s;
        x = (m12 + m21) / s;
        y = 0.25 * s;
        z = (m23 + m32) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + m33 - m11 - m22);
        w = (m21 - m12) / s;
        x = (m13 + m31) / s;
        y = (m23 + m32) / s;
        z = 0.25 * s;
    }
    if (!isfinite(x + y + z + w)) {
        return oroya_quat_identity();
    }
    return oroya_quat_normalize((oroya_quat){(float)x, (float)y, (float)z, (float)w});
}

void oroya_mat4_decompose(oroya_mat4 m, oroya_vec3 *translation, oroya_quat *rotation,
                          oroya_vec3 *scale) {
    const float *a = m.m;
    double sx = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    double sy = sqrt((double)a[4] * a[4] + (double)a[5] * a[5] + (double)a[6] * a[6]);
    double sz = sqrt((double)a[8] * a[8] + (double)a[9] * a[9] + (double)a[10] * a[10]);
    if (oroya_mat4_determinant(m) < 0.0f) {
        sx = -sx;
    }
    if (translation) {
        *translation = (oroya_vec3){a[12], a[13], a[14]};
    }
    if (rotation) {
        double r[9];
        double inv[3] = {sx != 0.0 ? 1.0 / sx : 0.0, sy != 0.0 ? 1.0 / sy : 0.0,
                         sz != 0.0 ? 1.0 / sz : 0.0};
        for (int c = 0; c < 3; c++) {
            for (int row = 0; row < 3; row++) {
                r[c * 3 + row] = a[c * 4 + row] * inv[c];
            }
        }
        *rotation =
            (sx == 0.0 || sy == 0.0 || sz == 0.0) ? oroya_quat_identity() : quat_from_rotation(r);
    }
    if (scale) {
        *scale = (oroya_vec3){(float)sx, (float)sy, (float)sz};
    }
}

bool oroya_mat4_invert(oroya_mat4 m, oroya_mat4 *out) {
    const float *a = m.m;
    double inv[16];
    /* Cofactor expansion in double: single-precision cofactors of a badly scaled matrix
     * lose most of their bits before the divide. */
    double a00 = a[0], a01 = a[1], a02 = a[2], a03 = a[3];
    double a10 = a[4], a11 = a[5], a12 = a[6], a13 = a[7];
    double a20 = a[8], a21 = a[9], a22 = a[10], a23 = a[11];
    double a30 = a[12], a31 = a[13], a32 = a[14], a33 = a[15];
    double b[12];
    double det = determinant_minors(a, b);
    if (!isfinite(det) || fabs(det) < 1e-30) {
        memset(out, 0, sizeof *out);
        return false;
    }
    double id = 1.0 / det;
    inv[0] = (a11 * b[11] - a12 * b[10] + a13 * b[9]) * id;
    inv[1] = (a02 * b[10] - a01 * b[11] - a03 * b[9]) * id;
    inv[2] = (a31 * b[5] - a32 * b[4] + a33 * b[3]) * id;
    inv[3] = (a22 * b[4] - a21 * b[5] - a23 * b[3]) * id;
    inv[4] = (a12 * b[8] - a10 * b[11] - a13 * b[7]) * id;
    inv[5] = (a00 * b[11] - a02 * b[8] + a03 * b[7]) * id;
    inv[6] = (a32 * b[2] - a30 * b[5] - a33 * b[1]) * id;
    inv[7] = (a20 * b[5] - a22 * b[2] + a23 * b[1]) * id;
    inv[8] = (a10 * b[10] - a11 * b[8] + a13 * b[6]) * id;
    inv[9] = (a01 * b[8] - a00 * b[10] - a03 * b[6]) * id;
    inv[10] = (a30 * b[4] - a31 * b[2] + a33 * b[0]) * id;
    inv[11] = (a21 * b[2] - a20 * b[4] - a23 * b[0]) * id;
    inv[12] = (a11 * b[7] - a10 * b[9] - a12 * b[6]) * id;
    inv[13] = (a00 * b[9] - a01 * b[7] + a02 * b[6]) * id;
    inv[14] = (a31 * b[1] - a30 * b[3] - a32 * b[0]) * id;
    inv[15] = (a20 * b[3] - a21 * b[1] + a22 * b[0]) * id;
    /* A finite det does not make a finite float inverse: diag(1e-39, 1e20, 1e20, 1) gave inf
     * with true. */
    for (int i = 0; i < 16; i++) {
        if (!(fabs(inv[i]) <= FLT_MAX)) {
            memset(out, 0, sizeof *out);
            return false;
        }
    }
    for (int i = 0; i < 16; i++) {
        out->m[i] = (float)inv[i];
    }
    return true;
}

bool oroya_mat4_invert_affine(oroya_mat4 m, oroya_mat4 *out) {
    const float *a = m.m;
    /* 3x3 inverse by cofactors, then the translation t' = -R^-1 t. */
    double c00 = (double)a[5] * a[10] - (double)a[6] * a[9];
    double c01 = (double)a[2] * a[9] - (double)a[1] * a[10];
    double c02 = (double)a[1] * a[6] - (double)a[2] * a[5];
    double det = a[0] * c00 + a[4] * c01 + a[8] * c02;
    if (!isfinite(det) || fabs(det) < 1e-30) {
        memset(out, 0, sizeof *out);
        return false;
    }
    double id = 1.0 / det;
    double r[9];
    r[0] = c00 * id;
    r[1] = c01 * id;
    r[2] = c02 * id;
    r[3] = ((double)a[6] * a[8] - (double)a[4] * a[10]) * id;
    r[4] = ((double)a[0] * a[10] - (double)a[2] * a[8]) * id;
    r[5] = ((double)a[2] * a[4] - (double)a[0] * a[6]) * id;
    r[6] = ((double)a[4] * a[9] - (double)a[5] * a[8]) * id;
    r[7] = ((double)a[1] * a[8] - (double)a[0] * a[9]) * id;
    r[8] = ((double)a[0] * a[5] - (double)a[1] * a[4]) * id;
    oroya_mat4 o;
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) {
            o.m[c * 4 + row] = (float)r[c * 3 + row];
        }
        o.m[c * 4 + 3] = 0.0f;
    }
    bool fits = true;
    for (int row = 0; row < 3; row++) {
        const double t = -(r[row] * a[12] + r[3 + row] * a[13] + r[6 + row] * a[14]);
        fits = fits && fabs(r[row]) <= FLT_MAX && fabs(r[3 + row]) <= FLT_MAX &&
               fabs(r[6 + row]) <= FLT_MAX && fabs(t) <= FLT_MAX;
        o.m[12 + row] = (float)t;
    }
    if (!fits) {
        /* As oroya_mat4_invert: a scale of 1e-39 or a translation of 3e38 under a scale of
         * 0.5 gave inf with true (a camera's view matrix, oroya_scene_camera_view). */
        memset(out, 0, sizeof *out);
        return false;
    }
    o.m[15] = 1.0f;
    *out = o;
    return true;
}

oroya_vec3 oroya_mat4_transform_point(oroya_mat4 m, oroya_vec3 p) {
    const float *a = m.m;
    return (oroya_vec3){a[0] * p.x + a[4] * p.y + a[8] * p.z + a[12],
                        a[1] * p.x + a[5] * p.y + a[9] * p.z + a[13],
                        a[2] * p.x + a[6] * p.y + a[10] * p.z + a[14]};
}

oroya_vec3 oroya_mat4_transform_direction(oroya_mat4 m, oroya_vec3 d) {
    const float *a = m.m;
    return (oroya_vec3){a[0] * d.x + a[4] * d.y + a[8] * d.z, a[1] * d.x + a[5] * d.y + a[9] * d.z,
                        a[2] * d.x + a[6] * d.y + a[10] * d.z};
}

/* ---- Hermite ------------------------------------------------------------------------- */

float oroya_float_hermite(float t, float p0, float m0, float p1, float m1) {
    float t2 = t * t, t3 = t2 * t;
    float h00 = 2.0f * t3 - 3.0f * t2 + 1.0f;
    float h10 = t3 - 2.0f * t2 + t;
    float h01 = -2.0f * t3 + 3.0f * t2;
    float h11 = t3 - t2;
    return h00 * p0 + h10 * m0 + h01 * p1 + h11 * m1;
}

oroya_vec3 oroya_vec3_hermite(float t, oroya_vec3 p0, oroya_vec3 m0, oroya_vec3 p1, oroya_vec3 m1) {
    return (oroya_vec3){oroya_float_hermite(t, p0.x, m0.x, p1.x, m1.x),
                        oroya_float_hermite(t, p0.y, m0.y, p1.y, m1.y),
                        oroya_float_hermite(t, p0.z, m0.z, p1.z, m1.z)};
}

float oroya_cubic_spline(float t, float p0, float m0, float p1, float m1) {
    return oroya_float_hermite(t, p0, m0, p1, m1);
}

oroya_vec3 oroya_hermite(float t, oroya_vec3 p0, oroya_vec3 m0, oroya_vec3 p1, oroya_vec3 m1) {
    return oroya_vec3_hermite(t, p0, m0, p1, m1);
}
