/* oroya/rotation.h - swing-twist decomposition, swing-twist interpolation ("sterp") and
 * joint limits.
 *
 * A rotation q splits about a unit twist axis into q = swing * twist: twist turns about the
 * axis (a bone spinning about its own length), swing turns about an axis perpendicular to it
 * (the bone pointing somewhere else). Twist is applied first, in the frame the axis is given
 * in. Sterp interpolates the two pieces separately, so the tip of a bone along the twist axis
 * moves on a great circle, the shortest path, where slerp can make it wobble. Joint limits
 * restrict the two pieces separately: a swing cone (circular or elliptical) and a twist range.
 *
 * What this module does not do: inverse kinematics, limits on translation or scale, or
 * choosing a twist axis for you (a bone's long axis, the direction to its first child, is the
 * usual choice; the skeleton knows it, this module does not).
 *
 * Conventions are those of oroya/math.h: quaternions {x, y, z, w}, q * v applies v first,
 * radians. Everything here is pure, keeps no state, never allocates and is safe to call from
 * any thread. docs/rotation.md has the math, the singular case and the pitfalls.
 *
 *   oroya_quat swing, twist;
 *   oroya_quat_swing_twist(q, (oroya_vec3){0, 1, 0}, &swing, &twist);   // q == swing * twist
 *   oroya_quat mid = oroya_quat_sterp(a, b, (oroya_vec3){0, 1, 0}, 0.5f);
 */
#ifndef OROYA_ROTATION_H
#define OROYA_ROTATION_H

#include "oroya/base.h"
#include "oroya/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- swing-twist decomposition ------------------------------------------------------- */

/* Splits q into q = swing * twist about `twist_axis`. twist is a rotation about the axis,
 * swing a rotation about an axis perpendicular to it. Uses no trigonometry: the vector part
 * of q is projected onto the axis and rebuilt with q.w into the normalized twist, and
 * swing = q * conj(twist). The axis is normalized here, so any length works.
 *
 * Canonical sign: twist.w >= 0 (and when twist.w == 0, twist's vector part points along
 * +axis, a twist of +pi). swing takes whatever sign makes swing * twist == q exactly (up to
 * float rounding). For a unit q both pieces are unit; for any other q, swing carries q's
 * length.
 *
 * Singular case: when w^2 + (v . axis)^2 <= 1e-12 * |q|^2, q is a 180-degree swing and its
 * twist is undefined (every split is valid). Then twist = identity and swing = q.
 *
 * A zero axis (length below 1e-6, or not finite) has no twist either: twist = identity and
 * swing = q, the same as the singular case, so the caller cannot tell them apart from the
 * outputs. Use oroya_quat_swing_twist_checked to detect it. Either output pointer may be
 * NULL. Never NaN for a finite q; a non-finite q comes back as swing, with an identity twist. */
void oroya_quat_swing_twist(oroya_quat q, oroya_vec3 twist_axis, oroya_quat *swing,
                            oroya_quat *twist);

/* The same decomposition, but it reports a bad argument: OROYA_ERR_INVALID_ARGUMENT when the
 * axis is zero (length below 1e-6) or not finite, or when q is not finite. The outputs are
 * written in every case, with what oroya_quat_swing_twist writes (identity twist, swing = q
 * on error). Either output pointer may be NULL. */
oroya_result oroya_quat_swing_twist_checked(oroya_quat q, oroya_vec3 twist_axis,
                                            oroya_quat *swing, oroya_quat *twist);

/* The signed angle, in radians in (-pi, pi], of q's twist about `twist_axis` (normalized
 * here): positive is counter-clockwise looking down the axis toward the origin. 0 in the
 * singular case and for a zero axis (see oroya_quat_swing_twist). Because it is measured on
 * the canonical twist, q and -q give the same angle. The float result of pi is the float
 * nearest pi, a hair above the double value. */
float oroya_quat_twist_angle(oroya_quat q, oroya_vec3 twist_axis);

/* ---- sterp: swing-twist interpolation ------------------------------------------------ */

/* Swing-twist interpolation from a to b. With d = conj(a) * b, the rotation from a to b in
 * a's local frame, split as d = swing * twist about `twist_axis` (given in that local frame,
 * e.g. the bone's long axis), the result is
 *     a * slerp(I, swing, t) * slerp(I, twist, t),
 * each slerp taking the shorter way. A point on the twist axis moves on a great circle at a
 * constant angular speed. t = 0 gives a, t = 1 gives b or -b; t outside [0, 1] extrapolates.
 * The result does not depend on the sign of b.
 *
 * a and b are normalized first (a zero quaternion counts as the identity); the result is
 * unit length. With a zero axis, or when d is a 180-degree swing (the singular case of the
 * decomposition), twist is the identity and sterp is exactly slerp on the shorter arc.
 * a, b and t must be finite; NaN in gives NaN out, as with oroya_quat_slerp. */
oroya_quat oroya_quat_sterp(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t);

/* oroya_quat_sterp with separate parameters for the two pieces:
 *     a * slerp(I, swing, t_swing) * slerp(I, twist, t_twist).
 * Useful to let a bone aim first and spin later. sterp2(a, b, axis, t, t) == sterp(a, b,
 * axis, t). */
oroya_quat oroya_quat_sterp2(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t_swing,
                             float t_twist);

#ifdef __cplusplus
}
#endif

#endif /* OROYA_ROTATION_H */
