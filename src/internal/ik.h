/* Private parts of the IK solver (src/anim/ik.c), for its tests. */
#ifndef OROYA_INTERNAL_IK_H
#define OROYA_INTERNAL_IK_H

#include "oroya/ik.h"

/* slerp(identity, (x, y, z, w), t) for a unit quaternion and t in [0, 1], on the shorter arc,
 * in double and without trigonometric calls (see docs/ik.md, "Cost"): writes the result to
 * out[0..3]. The angle of the result is t times the angle of the input within 1e-10 rad
 * (tests/unit/test_ik.c, test_partial_turn_error, measures the worst case over the whole
 * domain: 7e-11 rad). */
void oroya__ik_quat_pow(const double q[4], double t, double out[4]);

/* oroya_ik_solve_run through the float two-bone path the pose kernel takes (docs/ik.md, "The
 * float path"), for the property tests: the chain's frames from the job's matrices, then the
 * float solve, or oroya_ik_solve_run when the case or its conditioning needs the double
 * solver. Writes the result to *result; returns 2 when the float path took the solve, 1 when
 * its conditioning test sent it to the double solver, 0 when the case is not one it takes
 * (weight below 1, an end rotation, a given hinge, a non-unit rotation, ...). */
int oroya__ik_solve_run_fast(const oroya_ik_solve_job *job, oroya_result *result, oroya_error *err);

#endif
