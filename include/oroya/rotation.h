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
 * Example (given: oroya_quat q, oroya_quat a, oroya_quat b, oroya_quat local_rotation):
 *   oroya_quat swing, twist;
 *   oroya_quat_swing_twist(q, (oroya_vec3){0, 1, 0}, &swing, &twist);   // q == swing * twist
 *   oroya_quat mid = oroya_quat_sterp(a, b, (oroya_vec3){0, 1, 0}, 0.5f);
 *
 *   oroya_joint_limit shoulder = {
 *       .twist_axis = {0, 1, 0},                        // the upper arm's length, rest frame
 *       .swing = OROYA_SWING_CONE, .swing_max = {1.4f},  // at most 80 degrees off rest
 *       .has_twist_limit = true, .twist_min = -1.2f, .twist_max = 1.2f,
 *   };
 *   oroya_joint_limit_clamp(&shoulder, local_rotation, &local_rotation);
 */
#ifndef OROYA_ROTATION_H
#define OROYA_ROTATION_H

#include "oroya/base.h"
#include "oroya/math.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

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
 * NULL. Never NaN for a finite q; a non-finite q comes back as swing, with an identity twist.
 * A finite q whose length passes float (parts near FLT_MAX) can give an infinite swing:
 * oroya_quat_swing_twist_checked reports that. */
void oroya_quat_swing_twist(oroya_quat q, oroya_vec3 twist_axis, oroya_quat *swing,
                            oroya_quat *twist);

/* The same decomposition, but it reports a bad argument: OROYA_ERR_INVALID_ARGUMENT when the
 * axis is zero (length below 1e-6) or not finite, or when q is not finite; OROYA_ERR_NON_FINITE
 * when the swing does not fit in float (a finite q longer than FLT_MAX). The outputs are
 * written in every case, with what oroya_quat_swing_twist writes (identity twist, swing = q
 * on error). Either output pointer may be NULL. */
oroya_result oroya_quat_swing_twist_checked(oroya_quat q, oroya_vec3 twist_axis, oroya_quat *swing,
                                            oroya_quat *twist);

/* The signed angle, in radians in (-pi, pi], of q's twist about `twist_axis` (normalized
 * here): positive is counter-clockwise seen from the axis's tip (the right-hand rule). 0 in the
 * singular case and for a zero axis (see oroya_quat_swing_twist). Because it is measured on
 * the canonical twist, q and -q give the same angle. The float result of pi is the float
 * nearest pi, a hair above the double value. */
float oroya_quat_twist_angle(oroya_quat q, oroya_vec3 twist_axis);

/* ---- sterp: swing-twist interpolation ------------------------------------------------ */

/* Swing-twist interpolation from a to b. With d = conj(a) * b, the rotation from a to b in
 * a's local frame, split as d = swing * twist about `twist_axis` (given in that local frame,
 * e.g. the bone's long axis), the result is
 *     a * slerp(I, swing, t) * slerp(I, twist, t),
 * each slerp taking the shorter way (a piece of exactly a half turn, where neither way is
 * shorter, goes the way whose axis has its first non-zero part positive). A point on the twist
 * axis moves on a great circle at a constant angular speed. t = 0 gives a, t = 1 gives b or
 * -b; t outside [0, 1] extrapolates. The result does not depend on the sign of b.
 *
 * a and b are normalized first (a zero quaternion counts as the identity); the result is
 * unit length. With a zero axis, or when d is a 180-degree swing (the singular case of the
 * decomposition), twist is the identity and sterp is exactly slerp on the shorter arc.
 * a, b and t must be finite; NaN in gives NaN out, as with oroya_quat_slerp. */
oroya_quat oroya_quat_sterp(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t);

/* oroya_quat_sterp with separate parameters for the two pieces:
 *     a * slerp(I, swing, t_swing) * slerp(I, twist, t_twist).
 * Useful to let a bone aim first and spin later. sterp_split(a, b, axis, t, t) == sterp(a, b,
 * axis, t). */
oroya_quat oroya_quat_sterp_split(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t_swing,
                                  float t_twist);
/* Deprecated: the old name of oroya_quat_sterp_split. */
OROYA_DEPRECATED("use oroya_quat_sterp_split")
oroya_quat oroya_quat_sterp2(oroya_quat a, oroya_quat b, oroya_vec3 twist_axis, float t_swing,
                             float t_twist);

/* ---- joint limits -------------------------------------------------------------------- */

/* Frames. A joint's rotation q is its local rotation (relative to its parent, the
 * `rotation` of an oroya_transform). Limits are measured on the deviation from a rest pose,
 *     r = conj(reference) * q,   so q = reference * r,
 * which lives in the joint's own rest frame: the frame in which the bone's long axis is a
 * fixed vector (the translation of its first child, in the usual rig). r is split as
 * r = swing * twist about `twist_axis`, given in that rest frame; twist spins the bone about
 * its length, swing points it elsewhere. The swing is limited as a rotation vector
 * (angle * unit axis, perpendicular to the twist axis), the twist as a signed angle. */

typedef enum oroya_swing_limit {
    OROYA_SWING_FREE = 0, /* swing is not limited */
    OROYA_SWING_CONE,     /* swing angle <= swing_max[0]: a circular cone */
    OROYA_SWING_ELLIPSE   /* elliptical cone: swing_max[0] about swing_axis, swing_max[1]
                           * about twist_axis x swing_axis */
} oroya_swing_limit;

typedef struct oroya_joint_limit {
    oroya_quat reference;    /* rest rotation the limits are measured from; normalized here;
                              * the zero quaternion means the identity (the default) */
    oroya_vec3 twist_axis;   /* rest frame; any length >= 1e-6, normalized here; required
                              * when any limit is on */
    oroya_vec3 swing_axis;   /* ELLIPSE only: first ellipse axis, rest frame; its part
                              * perpendicular to twist_axis is used and must be >= 1e-6 long */
    oroya_swing_limit swing; /* default FREE */
    float swing_max[2];      /* radians in [0, pi] (pi + 1e-6 taken: the float nearest pi is
                              * above it); CONE uses [0]; ELLIPSE both, 0 allowed (a hinge: no
                              * swing about that axis) */
    bool has_twist_limit;    /* default false: twist is not limited */
    float twist_min;         /* radians, -pi <= twist_min <= twist_max <= pi (1e-6 past +-pi
                              * taken, as above); a range through +-pi cannot be written:
                              * choose the reference so it is centred */
    float twist_max;
} oroya_joint_limit;

/* Checks one limit against the rules on its fields. `index` only names it in the message
 * ("limits[4].twist_min: ..."). Returns OROYA_ERR_INVALID_ARGUMENT (NULL limit, zero or
 * non-finite axis, angle out of range or not finite, twist_min > twist_max, bad enum) and
 * fills err when not NULL. A limit with swing FREE and no twist limit is valid whatever its
 * axes (its reference must still be finite, as every limit's). */
oroya_result oroya_joint_limit_validate(const oroya_joint_limit *limit, uint32_t index,
                                        oroya_error *err);

/* Writes q moved into `limit` to *out. A rotation already inside (with a slack of 1e-6 rad
 * for rounding, measured around the circle for the twist: a twist within the slack of -pi is
 * inside a range ending at pi) is written back bit for bit. Otherwise the two pieces are
 * clamped separately and recombined as reference * swing * twist:
 *   - the twist angle goes to the nearer end of [twist_min, twist_max], measured around the
 *     circle (a twist of 170 degrees against [-30, 30] degrees becomes 30 degrees);
 *   - CONE: the swing keeps its direction and its angle becomes swing_max[0];
 *   - ELLIPSE: the swing's rotation vector moves to the nearest point of the ellipse with
 *     semi-axes swing_max[0], swing_max[1] (a bisection of at most 100 steps, in double).
 * A clamped result is unit length and in q's hemisphere (dot(out, q) >= 0). q need not be
 * unit; it is normalized for measuring. In the singular case (a 180-degree swing) every twist
 * gives the same rotation, so the twist limit holds: the split takes the twist of the range
 * nearest 0 (then the swing is clamped with it). A piece within the slack but past its limit
 * goes to the limit when the other piece is clamped, so clamping a clamped rotation again
 * returns it unchanged, except near a 180-degree swing, where the twist measured from float
 * parts is off by about 6e-8 / cos(swing / 2) rad (1e-6 some 9 degrees from the half turn)
 * and a second clamp can move it by that much. Errors: OROYA_ERR_INVALID_ARGUMENT for NULL pointers, an invalid limit or a
 * zero q, OROYA_ERR_NON_FINITE for a non-finite q; *out then gets q unchanged (when out is
 * not NULL). Never allocates. */
oroya_result oroya_joint_limit_clamp(const oroya_joint_limit *limit, oroya_quat q, oroya_quat *out);

/* The constraint pass over a pose: limits[i] clamps rotations[joints[i]], in order (two limits
 * on one joint apply one after the other). Run it after blending (the mixer's output) and
 * before world matrices, on local rotations. */
typedef struct oroya_joint_limit_job {
    const oroya_joint_limit *limits; /* limit_count entries */
    const uint32_t *joints;          /* limit_count indices into rotations; NULL: limits[i] clamps
                                      * rotations[i] (then limit_count <= rotation_count) */
    uint32_t limit_count;
    oroya_quat *rotations; /* in/out: rotation_count local rotations, 4-byte aligned */
    uint32_t rotation_count;
    uint32_t rotation_stride; /* bytes from one rotation to the next; 0 = sizeof(oroya_quat).
                               * To run on a scene's dense transforms, pass
                               * &transforms[0].rotation and sizeof(oroya_transform). A multiple
                               * of 4, >= sizeof(oroya_quat) */
} oroya_joint_limit_job;

/* Checks the job: pointers present for non-zero counts (OROYA_ERR_INVALID_ARGUMENT), rotations
 * aligned to a float and a valid stride (OROYA_ERR_INVALID_ARGUMENT), every joint index < rotation_count
 * (OROYA_ERR_OUT_OF_RANGE, naming the limit and index) and every limit valid
 * (oroya_joint_limit_validate). Never allocates; O(limit_count). */
oroya_result oroya_joint_limit_job_validate(const oroya_joint_limit_job *job, oroya_error *err);

/* Validates, then clamps. A validation error writes nothing. A rotation that is not finite
 * (OROYA_ERR_NON_FINITE) or has zero length (OROYA_ERR_INVALID_DATA) is left as it is, the
 * others are still clamped, and the first such joint is reported ("rotations[7] (limits[2]):
 * not finite"). Never allocates; O(limit_count) with a bounded cost per limit. */
oroya_result oroya_joint_limit_job_run(const oroya_joint_limit_job *job, oroya_error *err);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_ROTATION_H */
