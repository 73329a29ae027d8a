/* Private parts of the IK solver (src/anim/ik.c), for its tests. */
#ifndef OROYA_INTERNAL_IK_H
#define OROYA_INTERNAL_IK_H

/* slerp(identity, (x, y, z, w), t) for a unit quaternion and t in [0, 1], on the shorter arc,
 * in double and without trigonometric calls (see docs/ik.md, "Cost"): writes the result to
 * out[0..3]. The angle of the result is t times the angle of the input within 1e-10 rad
 * (tests/unit/test_ik.c, test_partial_turn_error, measures the worst case over the whole
 * domain: 7e-11 rad). */
void oroya__ik_quat_pow(const double q[4], double t, double out[4]);

#endif
