/* Double-precision 4x4 helpers for the skinning modules.
 *
 * three.js keeps every Matrix4 in doubles and only rounds to Float32 when it flattens
 * boneMatrices. oroya's scene stores float matrices, but the products and inverses that
 * feed bone matrices are formed here in double from those floats, so that the only
 * rounding left is the one three.js also does: the final store to float. Column-major,
 * m[col * 4 + row], like oroya_mat4. */
#ifndef OROYA_INTERNAL_SKIN_MATH_H
#define OROYA_INTERNAL_SKIN_MATH_H

#include "oroya/math.h"

#include <math.h>
#include <stdbool.h>

typedef struct {
    double m[16];
} oroya__dmat4;

static inline oroya__dmat4 oroya__dmat4_from_floats(const float *m) {
    oroya__dmat4 r;
    for (int i = 0; i < 16; i++)
        r.m[i] = (double)m[i];
    return r;
}

static inline oroya__dmat4 oroya__dmat4_identity(void) {
    oroya__dmat4 r = {{0}};
    r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1.0;
    return r;
}

/* a * b, b applied first. */
static inline oroya__dmat4 oroya__dmat4_mul(const oroya__dmat4 *a, const oroya__dmat4 *b) {
    oroya__dmat4 r;
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            r.m[c * 4 + row] =
                a->m[0 * 4 + row] * b->m[c * 4 + 0] + a->m[1 * 4 + row] * b->m[c * 4 + 1] +
                a->m[2 * 4 + row] * b->m[c * 4 + 2] + a->m[3 * 4 + row] * b->m[c * 4 + 3];
        }
    }
    return r;
}

static inline void oroya__dmat4_to_floats(const oroya__dmat4 *a, float *out) {
    for (int i = 0; i < 16; i++)
        out[i] = (float)a->m[i];
}

/* General inverse by the Laplace expansion over 2x2 minors of the column pairs. A zero or
 * non-finite determinant gives the zero matrix and false (three.js also writes zeros for a
 * zero determinant). */
static inline bool oroya__dmat4_invert(const oroya__dmat4 *a, oroya__dmat4 *out) {
    const double *m = a->m;
    /* m[c * 4 + r]: column c, row r. */
    double a00 = m[0], a10 = m[1], a20 = m[2], a30 = m[3];
    double a01 = m[4], a11 = m[5], a21 = m[6], a31 = m[7];
    double a02 = m[8], a12 = m[9], a22 = m[10], a32 = m[11];
    double a03 = m[12], a13 = m[13], a23 = m[14], a33 = m[15];
    /* Minors of the first two columns (s) and of the last two (c). */
    double s0 = a00 * a11 - a10 * a01, s1 = a00 * a21 - a20 * a01, s2 = a00 * a31 - a30 * a01;
    double s3 = a10 * a21 - a20 * a11, s4 = a10 * a31 - a30 * a11, s5 = a20 * a31 - a30 * a21;
    double c5 = a22 * a33 - a32 * a23, c4 = a12 * a33 - a32 * a13, c3 = a12 * a23 - a22 * a13;
    double c2 = a02 * a33 - a32 * a03, c1 = a02 * a23 - a22 * a03, c0 = a02 * a13 - a12 * a03;
    double det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
    if (det == 0.0 || !isfinite(det)) {
        *out = (oroya__dmat4){{0}};
        return false;
    }
    double d = 1.0 / det;
    double *o = out->m;
    o[0] = (a11 * c5 - a21 * c4 + a31 * c3) * d;
    o[1] = (-a10 * c5 + a20 * c4 - a30 * c3) * d;
    o[2] = (a13 * s5 - a23 * s4 + a33 * s3) * d;
    o[3] = (-a12 * s5 + a22 * s4 - a32 * s3) * d;
    o[4] = (-a01 * c5 + a21 * c2 - a31 * c1) * d;
    o[5] = (a00 * c5 - a20 * c2 + a30 * c1) * d;
    o[6] = (-a03 * s5 + a23 * s2 - a33 * s1) * d;
    o[7] = (a02 * s5 - a22 * s2 + a32 * s1) * d;
    o[8] = (a01 * c4 - a11 * c2 + a31 * c0) * d;
    o[9] = (-a00 * c4 + a10 * c2 - a30 * c0) * d;
    o[10] = (a03 * s4 - a13 * s2 + a33 * s0) * d;
    o[11] = (-a02 * s4 + a12 * s2 - a32 * s0) * d;
    o[12] = (-a01 * c3 + a11 * c1 - a21 * c0) * d;
    o[13] = (a00 * c3 - a10 * c1 + a20 * c0) * d;
    o[14] = (-a03 * s3 + a13 * s1 - a23 * s0) * d;
    o[15] = (a02 * s3 - a12 * s1 + a22 * s0) * d;
    return true;
}

#endif
