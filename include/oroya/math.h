/* oroya/math.h - vectors, quaternions, 4x4 matrices and Hermite interpolation.
 *
 * Conventions (stated once, here and in docs/math.md):
 *   - quaternions are {x, y, z, w}, as in glTF; the identity is {0, 0, 0, 1};
 *   - matrices are column-major, as in glTF and OpenGL: m[col * 4 + row], the
 *     translation sits in m[12], m[13], m[14];
 *   - vectors are column vectors, so `a * b` applies b first, then a;
 *   - angles are radians; time is seconds.
 * Every function is pure and takes and returns values. Functions that normalize say so.
 * Nothing here allocates or keeps state; all of it is safe to call from any thread.
 *
 * Example:
 *   oroya_quat q = oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, 1.5707964f);
 *   oroya_mat4 m = oroya_mat4_compose((oroya_vec3){1, 2, 3}, q, (oroya_vec3){1, 1, 1});
 *   oroya_vec3 p = oroya_mat4_transform_point(m, (oroya_vec3){1, 0, 0});  // (1, 2, 2)
 */
#ifndef OROYA_MATH_H
#define OROYA_MATH_H

#include "oroya/base.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

typedef struct {
    float x, y, z;
} oroya_vec3;
typedef struct {
    float x, y, z, w;
} oroya_quat;
typedef struct {
    float m[16];
} oroya_mat4;

/* ---- vec3 ---------------------------------------------------------------------------- */
oroya_vec3 oroya_vec3_add(oroya_vec3 a, oroya_vec3 b);
oroya_vec3 oroya_vec3_sub(oroya_vec3 a, oroya_vec3 b);
oroya_vec3 oroya_vec3_scale(oroya_vec3 a, float s);
oroya_vec3 oroya_vec3_mul(oroya_vec3 a, oroya_vec3 b); /* component-wise */
float oroya_vec3_dot(oroya_vec3 a, oroya_vec3 b);
oroya_vec3 oroya_vec3_cross(oroya_vec3 a, oroya_vec3 b);
float oroya_vec3_length(oroya_vec3 a);
/* Unit vector along a; the zero vector stays zero (never NaN). */
oroya_vec3 oroya_vec3_normalize(oroya_vec3 a);
/* a + (b - a) * t. */
oroya_vec3 oroya_vec3_lerp(oroya_vec3 a, oroya_vec3 b, float t);

/* ---- quat ---------------------------------------------------------------------------- */
oroya_quat oroya_quat_identity(void);
/* Hamilton product: rotating by the result is rotating by b, then by a. */
oroya_quat oroya_quat_mul(oroya_quat a, oroya_quat b);
oroya_quat oroya_quat_conjugate(oroya_quat q);
float oroya_quat_dot(oroya_quat a, oroya_quat b);
float oroya_quat_length(oroya_quat q);
/* Unit quaternion along q; a zero quaternion gives the identity (never NaN). */
oroya_quat oroya_quat_normalize(oroya_quat q);
/* Rotation of `angle` radians about `axis`. The axis is normalized here; a zero axis
 * gives the identity. */
oroya_quat oroya_quat_from_axis_angle(oroya_vec3 axis, float angle);
/* q * v * conj(q) for a unit quaternion q. */
oroya_vec3 oroya_quat_rotate(oroya_quat q, oroya_vec3 v);
/* Spherical interpolation on the shortest arc (b is negated when dot(a, b) < 0). Returns
 * a unit quaternion for any unit inputs, including nearly equal ones (it switches to
 * normalized lerp when the angle is tiny) and nearly opposite ones. t = 0 gives a,
 * t = 1 gives b or -b. Inputs should be unit length; the result is normalized. */
oroya_quat oroya_quat_slerp(oroya_quat a, oroya_quat b, float t);
/* Normalized linear interpolation on the shortest arc. */
oroya_quat oroya_quat_nlerp(oroya_quat a, oroya_quat b, float t);

/* ---- mat4 ---------------------------------------------------------------------------- */
oroya_mat4 oroya_mat4_identity(void);
/* a * b (b applied first). */
oroya_mat4 oroya_mat4_mul(oroya_mat4 a, oroya_mat4 b);
oroya_mat4 oroya_mat4_transpose(oroya_mat4 m);
/* T * R * S, the glTF node transform. The rotation should be unit length. */
oroya_mat4 oroya_mat4_compose(oroya_vec3 translation, oroya_quat rotation, oroya_vec3 scale);
/* The inverse of compose, as three.js's Matrix4.decompose does it: scale is the length of
 * each basis column, the x scale is negated when the determinant is negative, and the
 * rotation comes from the scale-free 3x3 part. Any out pointer may be NULL. A zero scale
 * axis gives the identity rotation for that part rather than NaN. */
void oroya_mat4_decompose(oroya_mat4 m, oroya_vec3 *translation, oroya_quat *rotation,
                          oroya_vec3 *scale);
float oroya_mat4_determinant(oroya_mat4 m);
/* General inverse. Returns false and writes the zero matrix to *out when m is singular
 * (|det| below 1e-30 or not finite) or its inverse does not fit in float (an element past
 * FLT_MAX: a scale of 1e-39, say). */
bool oroya_mat4_invert(oroya_mat4 m, oroya_mat4 *out);
/* Inverse of an affine matrix (last row 0 0 0 1): cheaper than the general one. Returns
 * false and writes the zero matrix when the 3x3 part is singular or the inverse does not fit
 * in float, as oroya_mat4_invert. */
bool oroya_mat4_invert_affine(oroya_mat4 m, oroya_mat4 *out);
/* m * (p, 1), without the projective divide. */
oroya_vec3 oroya_mat4_transform_point(oroya_mat4 m, oroya_vec3 p);
/* m * (d, 0): rotation and scale only. */
oroya_vec3 oroya_mat4_transform_direction(oroya_mat4 m, oroya_vec3 d);

/* ---- Hermite interpolation ------------------------------------------------------------ */
/* The cubic Hermite spline at t in [0, 1]:
 *   h(t) = (2t^3 - 3t^2 + 1) p0 + (t^3 - 2t^2 + t) m0 + (-2t^3 + 3t^2) p1 + (t^3 - t^2) m1.
 * The tangents m0 and m1 are already scaled to the interval (glTF tracks store tangents per
 * second and multiply them by the key interval first; oroya's tracks do that for you).
 * oroya_float_hermite(0.5, 0, 5, 10, -2) == 5.875. */
float oroya_float_hermite(float t, float p0, float m0, float p1, float m1);
/* The same per component. oroya_vec3_hermite(0.5, {0,0,0}, {0,10,0}, {5,0,0}, {0,-5,0}) is
 * (2.5, 1.875, 0). */
oroya_vec3 oroya_vec3_hermite(float t, oroya_vec3 p0, oroya_vec3 m0, oroya_vec3 p1, oroya_vec3 m1);
/* Deprecated: the old names of oroya_float_hermite and oroya_vec3_hermite. */
OROYA_DEPRECATED("use oroya_float_hermite")
float oroya_cubic_spline(float t, float p0, float m0, float p1, float m1);
OROYA_DEPRECATED("use oroya_vec3_hermite")
oroya_vec3 oroya_hermite(float t, oroya_vec3 p0, oroya_vec3 m0, oroya_vec3 p1, oroya_vec3 m1);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_MATH_H */
