/* Inverse kinematics: two-bone and aim chains in closed form. See include/oroya/ik.h for the
 * contract and docs/ik.md for the math.
 *
 * The solver is computed in double: a solve is some hundred products and a few square roots
 * (no trigonometric call at weight 1), and it keeps the aim within 1e-5 rad and the reach
 * within 1e-4 of the chain on poses far from the origin. It is the reference and the
 * fallback of the pose kernel path's float path for the common cases ("the float fast
 * path" below, docs/ik.md "The float path"), which a conditioning test sends back to it
 * where float could miss those tolerances. The hot functions are also built for AVX2
 * (IK_CLONES below).
 *
 * Frames. A joint's world rotation is Q = Qparent * l, with l its local rotation. A world
 * rotation D about the joint's pivot turns it into D * Q, which is the local rotation
 * l' = l * conj(Q) * D * Q: the parent is not needed, only the joint's own world rotation.
 * That is how every world-space turn the solvers find becomes a local rotation. */
#include "oroya/ik.h"

#include "internal/base.h"
#include "internal/ik.h"
#include "internal/pose.h"
#include "internal/scene.h"
#include "oroya/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/pose_simd.h"

/* The small vector helpers are forced inline: a solve is made of little else, and a call per
 * product costs as much as the product. */
#if defined(__GNUC__) || defined(__clang__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

/* The rare paths of the per-frame code (the double solver a float path sends back, fallbacks):
 * out of line and apart from it, so that the code a frame runs stays small (docs/ik.md,
 * "Cost": the frame's code did not fit the instruction cache). */
#if defined(__GNUC__) || defined(__clang__)
#define COLD static __attribute__((noinline, cold))
#else
#define COLD static
#endif

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && defined(__ELF__) &&        \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) &&                             \
    !defined(OROYA_IK_NO_CLONES)
/* (Not under ASan or TSan: their run-time is not set up when the ifunc resolvers run at
 * load time, and the library crashed there.) The solver and the kernel hooks again for AVX2, picked at load time: VEX's three-operand
 * form saves the register copies scalar SSE2 code is full of (about 7 % of the IK's
 * instructions). No FMA (not part of the avx2 target), and GCC does not reorder floating
 * point, so both give the same bits. */
#define IK_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define IK_CLONES
#endif

typedef struct {
    double x, y, z;
} dv3;
typedef struct {
    double x, y, z, w;
} dq;

HOT dv3 v3(double x, double y, double z) { return (dv3){x, y, z}; }
HOT dv3 of_vec3(oroya_vec3 v) { return v3(v.x, v.y, v.z); }
HOT dv3 vadd(dv3 a, dv3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
HOT dv3 vsub(dv3 a, dv3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
HOT dv3 vscale(dv3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
HOT double vdot(dv3 a, dv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
HOT dv3 vcross(dv3 a, dv3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
HOT double vlen(dv3 a) { return sqrt(vdot(a, a)); }
HOT dv3 vnorm(dv3 a) {
    double l = vlen(a);
    return l > 0 ? vscale(a, 1 / l) : v3(0, 0, 0);
}
/* The part of a perpendicular to the unit vector n. */
HOT dv3 vperp(dv3 a, dv3 n) { return vsub(a, vscale(n, vdot(a, n))); }
HOT bool vfinite(dv3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

HOT dq qid(void) { return (dq){0, 0, 0, 1}; }
HOT dq of_quat(oroya_quat q) { return (dq){q.x, q.y, q.z, q.w}; }
HOT dq qmul(dq a, dq b) {
    return (dq){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
HOT dq qconj(dq q) { return (dq){-q.x, -q.y, -q.z, q.w}; }
HOT double qdot(dq a, dq b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
/* One reciprocal, not four divisions: a division is one instruction but some 15 cycles of
 * latency in the chain of dependent steps a solve is. */
HOT dq qnorm(dq q) {
    const double l2 = qdot(q, q);
    if (!(l2 > 0)) {
        return qid();
    }
    const double k = 1 / sqrt(l2);
    return (dq){q.x * k, q.y * k, q.z * k, q.w * k};
}
HOT dv3 qrot(dq q, dv3 v) {
    dv3 u = v3(q.x, q.y, q.z);
    dv3 t = vscale(vcross(u, v), 2);
    return vadd(vadd(v, vscale(t, q.w)), vcross(u, t));
}
/* The rotation matrix of a unit quaternion (its columns), for turning several vectors by one
 * rotation: 9 products and 6 sums a vector after the matrix, against qrot's 18 and 12. */
typedef struct {
    dv3 c0, c1, c2;
} dm3;
HOT dm3 qmat(dq q) {
    const double x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    const double xx = q.x * x2, xy = q.x * y2, xz = q.x * z2, yy = q.y * y2, yz = q.y * z2;
    const double zz = q.z * z2, wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    return (dm3){v3(1 - (yy + zz), xy + wz, xz - wy), v3(xy - wz, 1 - (xx + zz), yz + wx),
                 v3(xz + wy, yz - wx, 1 - (xx + yy))};
}
HOT dv3 mrot(const dm3 *m, dv3 v) {
    return vadd(vadd(vscale(m->c0, v.x), vscale(m->c1, v.y)), vscale(m->c2, v.z));
}
/* Rotation of `angle` about the unit axis n. */
HOT dq qaxis(dv3 n, double angle) {
    double s = sin(0.5 * angle);
    return (dq){n.x * s, n.y * s, n.z * s, cos(0.5 * angle)};
}
/* normalize(c, w) for c = a x b and w = |a||b| + a.b (ab = |a||b|): |(c, w)|^2 = 2 ab w, but
 * within some 1e-4 of a half turn w has cancelled (its rounding, 1e-16 ab, is then 1e-12 of w
 * or more), and 1 / sqrt(2 ab w) would leave the rotation 1e-4 off unit length (a bone that
 * rotation turns would change length): there the length is taken from c and w themselves. */
HOT dq half_turn_unit(dv3 c, double w, double ab) {
    const double k = w > 1e-4 * ab ? 1 / sqrt(2 * ab * w) : 1 / sqrt(vdot(c, c) + w * w);
    return (dq){c.x * k, c.y * k, c.z * k, w * k};
}

/* The shortest rotation taking the direction of a to that of b; identity when either is zero,
 * a half turn about some perpendicular axis when they are opposite. */
HOT dq qfrom_to(dv3 a, dv3 b) {
    /* |a||b| from one square root; |(a x b, w)|^2 = 2 |a||b| w. */
    const double ab = sqrt(vdot(a, a) * vdot(b, b));
    if (!(ab > 0)) {
        return qid();
    }
    const double w = ab + vdot(a, b);
    if (w <= 1e-12 * ab) {
        /* Opposite: any perpendicular axis does it. */
        const double la = vlen(a);
        dv3 ax = fabs(a.x) < 0.6 * la ? vcross(a, v3(1, 0, 0)) : vcross(a, v3(0, 1, 0));
        ax = vnorm(ax);
        return (dq){ax.x, ax.y, ax.z, 0};
    }
    const dv3 c = vcross(a, b);
    return half_turn_unit(c, w, ab);
}
/* The rotation about the unit axis n taking the direction of a to that of b (both
 * perpendicular to n), without trigonometry: normalize(a x b, |a||b| + a.b), a half turn
 * about n when they are opposite. */
HOT dq qabout(dv3 a, dv3 b, dv3 n) {
    const double aa = vdot(a, a), bb = vdot(b, b), ab = sqrt(aa * bb);
    const double w = ab + vdot(a, b);
    /* A half turn when 1 + cos < 2e-12, whatever the two lengths (a bound on aa + bb made the
     * choice depend on them: an up of length 1e13 was taken as opposite). */
    if (w <= 2e-12 * ab) {
        return (dq){n.x, n.y, n.z, 0};
    }
    const dv3 c = vcross(a, b);
    return half_turn_unit(c, w, ab);
}

/* slerp(identity, q, t) for a unit q, on the shorter arc, without trigonometric calls. With
 * q = (sin(phi) n, cos(phi)), phi in [0, pi/2] on the shorter arc, the result is
 * (sin(t phi) n, cos(t phi)). phi = 4 atan(z) with z = tan(phi / 4) in [0, tan(pi / 8)], from
 * two half-angle steps (z1 = s / (1 + c) = tan(phi / 2), z = z1 / (1 + sqrt(1 + z1^2))), and
 * atan's series to z^23 (the first term left out is below 1.2e-11 there, 4.4e-11 on phi). The
 * half angle a = t phi / 2 is at most pi / 4: sin and cos of it by their series to a^13 and
 * a^14 (the terms left out are below 1e-13), then the double angle. Worst error over the whole
 * domain, 7e-11 rad on the angle: test_partial_turn_error in tests/unit/test_ik.c. */
HOT dq qpow(dq q, double t) {
    if (q.w < 0) {
        q = (dq){-q.x, -q.y, -q.z, -q.w};
    }
    const double s2 = q.x * q.x + q.y * q.y + q.z * q.z;
    if (!(s2 > 1e-30)) {
        return qid();
    }
    /* z = z1 / (1 + sqrt(1 + z1^2)) with z1 = s / (1 + c) is s / (1 + c + sqrt(2 (1 + c)))
     * for a unit q ((1 + c)^2 + s^2 = 2 (1 + c)); z and 1 / s from one division. */
    const double s = sqrt(s2), c1 = 1 + q.w;
    const double den = c1 + sqrt(2 * c1), r = 1 / (s * den);
    const double z = s2 * r, zz = z * z, inv_s = den * r;
    /* The polynomials by Estrin's scheme (pairs, then pairs of pairs with the powers zz^2,
     * zz^4, zz^8), not Horner's: the same terms, about as many instructions, but a chain of
     * four multiply-adds instead of twelve, and a solve waits on that chain. */
    /* atan(z) = z (1 - zz/3 + zz^2/5 - ... - zz^11/23). */
    const double x2 = zz * zz, x4 = x2 * x2, x8 = x4 * x4;
    const double a0 = 1 - zz * (1.0 / 3), a1 = 1.0 / 5 - zz * (1.0 / 7);
    const double a2 = 1.0 / 9 - zz * (1.0 / 11), a3 = 1.0 / 13 - zz * (1.0 / 15);
    const double a4 = 1.0 / 17 - zz * (1.0 / 19), a5 = 1.0 / 21 - zz * (1.0 / 23);
    const double p = (a0 + a1 * x2) + (a2 + a3 * x2) * x4 + (a4 + a5 * x2) * x8;
    const double a = 2 * t * z * p, aa = a * a; /* (t phi) / 2 = t 4 atan(z) / 2 */
    /* sin(a) = a (1 + aa S(aa)), S = -1/3! + aa/5! - ... + aa^5/13!;
     * cos(a) = 1 - aa C(aa), C = 1/2! - aa/4! + ... + aa^6/14!. */
    const double y2 = aa * aa, y4 = y2 * y2;
    const double sp = (-1.0 / 6 + aa * (1.0 / 120.0)) +
                      (-1.0 / 5040.0 + aa * (1.0 / 362880.0)) * y2 +
                      (-1.0 / 39916800.0 + aa * (1.0 / 6227020800.0)) * y4;
    const double sn = a * (1 + sp * aa);
    const double cp =
        (0.5 - aa * (1.0 / 24)) + (1.0 / 720.0 - aa * (1.0 / 40320.0)) * y2 +
        ((1.0 / 3628800.0 - aa * (1.0 / 479001600.0)) + y2 * (1.0 / 87178291200.0)) * y4;
    const double cs = 1 - cp * aa;
    const double k = 2 * sn * cs * inv_s; /* sin(t phi) / sin(phi) */
    return (dq){q.x * k, q.y * k, q.z * k, cs * cs - sn * sn};
}

void oroya__ik_quat_pow(const double q[4], double t, double out[4]) {
    const dq r = qpow((dq){q[0], q[1], q[2], q[3]}, t);
    out[0] = r.x, out[1] = r.y, out[2] = r.z, out[3] = r.w;
}

/* The signed angle turning the direction of a into that of b about the unit axis n (a and b
 * perpendicular to n). */
HOT double signed_angle(dv3 a, dv3 b, dv3 n) { return atan2(vdot(n, vcross(a, b)), vdot(a, b)); }

/* A world matrix as pivot and rotation: the rotation of the normalized columns (Shepperd's
 * method on the largest diagonal term). Scale is dropped, shear ignored. */
typedef struct frame {
    dv3 p;
    dq q;
} frame;

IK_CLONES static bool frame_of(const oroya_mat4 *m, frame *out) {
    const float *a = m->m;
    dv3 c0 = v3(a[0], a[1], a[2]), c1 = v3(a[4], a[5], a[6]), c2 = v3(a[8], a[9], a[10]);
    double l0 = vlen(c0), l1 = vlen(c1), l2 = vlen(c2);
    out->p = v3(a[12], a[13], a[14]);
    if (!(l0 > 1e-30 && l1 > 1e-30 && l2 > 1e-30) || !isfinite(l0 + l1 + l2) || !vfinite(out->p)) {
        return false;
    }
    c0 = vscale(c0, 1 / l0), c1 = vscale(c1, 1 / l1), c2 = vscale(c2, 1 / l2);
    /* A reflection (a negative scale: determinant below 0) has no rotation to solve with. */
    if (!(vdot(c0, vcross(c1, c2)) > 0)) {
        return false;
    }
    double m00 = c0.x, m11 = c1.y, m22 = c2.z, tr = m00 + m11 + m22;
    dq q;
    /* s = 2 sqrt(1 + ...); the three off-diagonal terms over s from one reciprocal (qnorm
     * below takes out the rounding). */
    if (tr > 0) {
        const double s = 2 * sqrt(tr + 1), r = 1 / s;
        q = (dq){(c1.z - c2.y) * r, (c2.x - c0.z) * r, (c0.y - c1.x) * r, 0.25 * s};
    } else if (m00 > m11 && m00 > m22) {
        const double s = 2 * sqrt(1 + m00 - m11 - m22), r = 1 / s;
        q = (dq){0.25 * s, (c1.x + c0.y) * r, (c2.x + c0.z) * r, (c1.z - c2.y) * r};
    } else if (m11 > m22) {
        const double s = 2 * sqrt(1 + m11 - m00 - m22), r = 1 / s;
        q = (dq){(c1.x + c0.y) * r, 0.25 * s, (c2.y + c1.z) * r, (c2.x - c0.z) * r};
    } else {
        const double s = 2 * sqrt(1 + m22 - m00 - m11), r = 1 / s;
        q = (dq){(c2.x + c0.z) * r, (c2.y + c1.z) * r, 0.25 * s, (c0.y - c1.x) * r};
    }
    out->q = qnorm(q);
    return true;
}

/* l' = l * conj(Q) * D * Q (see the top of the file). For unit Q and D = (v, w),
 * conj(Q) * D * Q is (v turned by conj(Q), w): one vector rotation and one product, and the
 * result is unit when l and D are. */
HOT dq local_after(dq l, dq world, dq d) {
    const dv3 v = qrot(qconj(world), v3(d.x, d.y, d.z));
    return qmul(l, (dq){v.x, v.y, v.z, d.w});
}

/* ---- checks --------------------------------------------------------------------------- */

static uint32_t chain_count(const oroya_ik *ik) {
    if (ik->type == OROYA_IK_TWO_BONE) {
        return ik->joint_count ? ik->joint_count : 3;
    }
    return ik->joint_count ? ik->joint_count : 1;
}

uint32_t oroya__ik_chain_count(const oroya_ik *ik) { return chain_count(ik); }

/* "iks[2] (footL)" */
static void ik_label(const oroya_ik *ik, uint32_t index, char *out, size_t cap) {
    if (ik->name && ik->name[0]) {
        snprintf(out, cap, "iks[%u] (%s)", index, ik->name);
    } else {
        snprintf(out, cap, "iks[%u]", index);
    }
}

/* The checks run does every time: NULL pointers, type, counts. */
static oroya_result check_cheap(const oroya_ik_solve_job *job, uint32_t index, oroya_error *err) {
    if (!job || !job->ik || !job->world || !job->rotations || !job->out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_ik_solve: job, ik, world, rotations and out are required");
    }
    const oroya_ik *ik = job->ik;
    const uint32_t n = chain_count(ik);
    const bool type_ok = ik->type == OROYA_IK_TWO_BONE || ik->type == OROYA_IK_AIM;
    if (type_ok && (ik->type == OROYA_IK_TWO_BONE ? n == 3 : n <= OROYA_IK_MAX_CHAIN)) {
        return OROYA_OK;
    }
    char at[96]; /* the message is built only on failure: run calls this every frame */
    ik_label(ik, index, at, sizeof at);
    if (!type_ok) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s.type: unknown IK type %d", at,
                           (int)ik->type);
    }
    if (ik->type == OROYA_IK_TWO_BONE) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "%s.joint_count: a two-bone IK has 3 joints, not %u", at, n);
    }
    return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                       "%s.joint_count: %u joints, an aim chain has at most %u", at, n,
                       (unsigned)OROYA_IK_MAX_CHAIN);
}

static bool finite3(oroya_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* The shares of an aim chain, with the default {1} for one joint, and their sum (added in
 * order; 1 for the default). Inline: the float solver's frame pays no call for it. */
HOT double aim_shares(const oroya_ik *ik, uint32_t n, double *out) {
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += ik->shares[i];
        out[i] = ik->shares[i];
    }
    if (n == 1 && sum == 0) {
        out[0] = 1, sum = 1;
    }
    return sum;
}

oroya_result oroya_ik_solve_validate(const oroya_ik_solve_job *job, uint32_t index,
                                     oroya_error *err) {
    oroya_result r = check_cheap(job, index, err);
    if (r != OROYA_OK) {
        return r;
    }
    const oroya_ik *ik = job->ik;
    const uint32_t n = chain_count(ik);
    char at[96];
    ik_label(ik, index, at, sizeof at);
    if (!finite3(ik->target)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE, "%s.target: not finite", at);
    }
    if (!isfinite(ik->weight) || ik->weight < 0 || ik->weight > 1) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s.weight: %g, expected [0, 1]", at,
                           (double)ik->weight);
    }
    frame f[OROYA_IK_MAX_CHAIN];
    for (uint32_t i = 0; i < n; i++) {
        if (!frame_of(&job->world[i], &f[i])) {
            const float *a = job->world[i].m;
            const double det = (double)a[0] * ((double)a[5] * a[10] - (double)a[6] * a[9]) -
                               (double)a[4] * ((double)a[1] * a[10] - (double)a[2] * a[9]) +
                               (double)a[8] * ((double)a[1] * a[6] - (double)a[2] * a[5]);
            if (det < 0) {
                return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                                   "%s: joints[%u]: world matrix is a reflection (a negative "
                                   "scale): not supported",
                                   at, i);
            }
            return oroya__fail(err, OROYA_ERR_NON_FINITE,
                               "%s: joints[%u]: world matrix not finite or singular", at, i);
        }
        oroya_quat q = job->rotations[i];
        if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w)) {
            return oroya__fail(err, OROYA_ERR_NON_FINITE, "%s: joints[%u]: rotation not finite", at,
                               i);
        }
    }
    if (ik->limits) {
        for (uint32_t i = 0; i < n; i++) {
            oroya_error le = {0};
            if (oroya_joint_limit_validate(&ik->limits[i], i, &le) != OROYA_OK) {
                return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s: %s", at, le.message);
            }
        }
    }
    /* Bone lengths against the whole chain: a 1e-6 relative floor is far below any real rig
     * (a toe is 1e-2 of a leg) and far above float noise on a repeated point. */
    double chain = 0;
    for (uint32_t i = 1; i < n; i++) {
        chain += vlen(vsub(f[i].p, f[i - 1].p));
    }
    for (uint32_t i = 1; i < n; i++) {
        if (vlen(vsub(f[i].p, f[i - 1].p)) <= 1e-6 * chain || chain == 0) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "%s: joints[%u]: zero-length bone from joints[%u]", at, i, i - 1);
        }
    }
    dv3 t = of_vec3(ik->target);
    if (ik->type == OROYA_IK_TWO_BONE) {
        if (!finite3(ik->pole) || !finite3(ik->mid_axis)) {
            return oroya__fail(err, OROYA_ERR_NON_FINITE, "%s.%s: not finite", at,
                               finite3(ik->pole) ? "mid_axis" : "pole");
        }
        if (!isfinite(ik->soft) || ik->soft < 0 || ik->soft >= 1) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s.soft: %g, expected [0, 1)", at,
                               (double)ik->soft);
        }
        if (ik->has_target_rotation) {
            dq q = of_quat(ik->target_rotation);
            if (!isfinite(qdot(q, q)) || qdot(q, q) < 1e-12) {
                return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                                   "%s.target_rotation: zero or not finite", at);
            }
        }
        /* The field checks before the pose checks, so a caller may tell bad fields
         * (INVALID_ARGUMENT, NON_FINITE) from a degenerate pose (INVALID_DATA). */
        dv3 pole = of_vec3(ik->pole);
        double pl = vlen(pole);
        if (pl < 1e-6) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s.pole: zero", at);
        }
        dv3 d = vsub(t, f[0].p);
        double dist = vlen(d);
        if (dist <= 1e-6 * chain) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "%s.target: at joints[0], the chain's first joint", at);
        }
        /* Within 1e-3 rad of the line to the target, the plane of the pole turns by a radian
         * when the target moves by a thousandth of its distance: refused at setup. */
        if (vlen(vcross(d, pole)) < 1e-3 * dist * pl) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "%s.pole: parallel to the line from joints[0] to the target", at);
        }
        return OROYA_OK;
    }
    /* AIM */
    if (!finite3(ik->forward) || !finite3(ik->offset) || !finite3(ik->up) ||
        !finite3(ik->up_axis)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "%s: forward, offset, up and up_axis "
                           "must be finite",
                           at);
    }
    dv3 fw = of_vec3(ik->forward);
    if (vlen(fw) < 1e-6) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s.forward: zero", at);
    }
    double shares[OROYA_IK_MAX_CHAIN], sum = 0;
    aim_shares(ik, n, shares);
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(shares[i]) || shares[i] < 0) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s.shares[%u]: %g, expected >= 0",
                               at, i, shares[i]);
        }
        sum += shares[i];
    }
    if (fabs(sum - 1) > 1e-4) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s.shares: add up to %g, expected 1",
                           at, sum);
    }
    dv3 ua = vlen(of_vec3(ik->up_axis)) > 0 ? of_vec3(ik->up_axis) : v3(0, 1, 0);
    dv3 up = of_vec3(ik->up);
    if (vlen(up) > 0 && vlen(vcross(vnorm(ua), vnorm(fw))) < 1e-3) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s.up_axis: parallel to forward", at);
    }
    dv3 d = vsub(t, f[n - 1].p);
    double dist = vlen(d);
    if (dist <= 1e-6 * (chain > 0 ? chain : 1)) {
        return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                           "%s.target: at joints[%u], the aiming joint", at, n - 1);
    }
    if (vlen(up) > 0 && vlen(vcross(d, up)) < 1e-3 * dist * vlen(up)) {
        return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                           "%s.up: parallel to the line from joints[%u] to the target", at, n - 1);
    }
    return OROYA_OK;
}

/* ---- two-bone ------------------------------------------------------------------------ */

/* Writes the full-weight rotations of the three joints to ik_out (moved[i] says which it
 * wrote). Returns NULL, or why it fell back. */
IK_CLONES static const char *solve_two_bone(const oroya_ik *ik, double w, double *twist,
                                            const frame *f, const dq *l, dq *ik_out, bool *moved,
                                            bool *reached) {
    const dv3 a = f[0].p, b = f[1].p, c = f[2].p;
    const dv3 u = vsub(b, a), v = vsub(c, b);
    const double l1 = vlen(u), l2 = vlen(v), chain = l1 + l2;
    if (!(l1 > 1e-6 * chain && l2 > 1e-6 * chain)) {
        return "zero-length bone";
    }
    const dv3 t = of_vec3(ik->target);
    const dv3 pole = of_vec3(ik->pole);
    /* One test for both: a sum of floats (as doubles) is finite exactly when each is. */
    if (!isfinite(t.x + t.y + t.z + pole.x + pole.y + pole.z)) {
        return "target or pole not finite";
    }
    /* Run-time fallback for a pole validate refuses as zero (the same 1e-6 floor): a tiny
     * pole has no reliable direction, so the pose is left unchanged (issue #17). */
    if (!(vdot(pole, pole) >= 1e-12)) { /* |pole| >= 1e-6, without a square root */
        return "zero pole";
    }
    const dv3 ta = vsub(t, a);
    const double tdist = vlen(ta);
    if (!(tdist > 1e-6 * chain)) {
        return "target at the first joint";
    }
    /* A weight below 1 solves for the point that fraction of the way from the end to the
     * target (so the end moves on a straight line toward it, monotonically) and turns that
     * fraction of the pole's twist: at weight 0+ the pose is the incoming one. */
    const dv3 d = w < 1 ? vsub(vadd(c, vscale(vsub(t, c), w)), a) : ta;
    const double dist = w < 1 ? vlen(d) : tdist;
    if (!(dist > 1e-6 * chain)) {
        return "weighted target at the first joint";
    }
    const dv3 n = vscale(d, 1 / dist);

    /* The hinge, in world space. */
    dv3 h;
    dv3 mid_axis = of_vec3(ik->mid_axis);
    /* The squared length of a float vector is finite exactly when its parts are. */
    const double mid2 = vdot(mid_axis, mid_axis);
    /* The normal of the incoming bend is perpendicular to both bones (to some 1e-12 of their
     * lengths, as its sine is above 1e-4): the test below would always pass. */
    bool perpendicular = false;
    if (isfinite(mid2) && mid2 > 0) {
        h = vnorm(qrot(f[1].q, mid_axis));
    } else {
        dv3 cr = vcross(u, v);
        const double lcr = vlen(cr);
        /* Below a sine of 1e-4 the bend plane of the incoming pose is noise. */
        if (lcr > 1e-4 * l1 * l2) {
            h = vscale(cr, 1 / lcr);
            perpendicular = true;
        } else {
            cr = vcross(u, pole);
            if (vlen(cr) <= 1e-6 * l1 * vlen(pole)) {
                cr = vcross(u, fabs(u.x) < 0.6 * l1 ? v3(1, 0, 0) : v3(0, 1, 0));
            }
            h = vnorm(cr);
        }
    }

    /* Bend: turn the second bone about h at the middle joint so the end is at the (softened,
     * clamped) target distance. With up, vp the parts of the bones perpendicular to h and psi
     * the angle between them, |end - first|^2 = base + 2 |up| |vp| cos(psi). */
    const dv3 up = vperp(u, h), vp = vperp(v, h);
    /* Only the product |up| |vp| is needed: one square root. */
    const double pab = sqrt(vdot(up, up) * vdot(vp, vp));
    const double base = l1 * l1 + l2 * l2 + 2 * (vdot(u, v) - vdot(up, vp));
    double cphi = 1, sphi = 0;
    double want = dist;
    bool within = true;
    if (pab > 1e-12 * chain * chain) {
        const double dmax2 = base + 2 * pab, dmin2 = base - 2 * pab;
        const double dmax = sqrt(dmax2 > 0 ? dmax2 : 0);
        if (ik->soft > 0 && isfinite(ik->soft)) {
            /* The soft limit: past da the end follows da + ds * (1 - e^(-(dist - da) / ds)),
             * which meets the straight line with the same slope at da and tends to dmax. */
            const double ds = ((double)ik->soft < 0.999 ? (double)ik->soft : 0.999) * dmax;
            const double da = dmax - ds;
            if (want > da && ds > 0) {
                want = da + ds * (1 - exp(-(want - da) / ds));
                within = false;
            }
        }
        if (want > dmax) {
            want = dmax, within = false;
        }
        /* want >= 0: below dmin exactly when its square is below dmin^2 (the root only then). */
        if (want * want < dmin2) {
            want = sqrt(dmin2), within = false;
        }
        const double inv = 1 / pab; /* one reciprocal for the three quotients */
        double cpsi = (want * want - base) * (0.5 * inv);
        cpsi = cpsi > 1 ? 1 : cpsi < -1 ? -1 : cpsi;
        /* The bend psi is the positive angle from the first bone to the second about h: 0 is
         * straight, pi folded. The turn phi = psi1 - psi0 is built from the cosines and sines
         * (angle difference, then the half angle), with no trigonometric call. */
        const double s1 = sqrt(1 - cpsi * cpsi);
        const double c0 = vdot(up, vp) * inv, s0 = vdot(h, vcross(up, vp)) * inv;
        cphi = cpsi * c0 + s1 * s0;
        sphi = s1 * c0 - cpsi * s0;
    } else {
        within = false;
    }
    dq bend;
    if (1 + cphi > 1e-12) {
        /* |(h sin, 1 + cos)|^2 = 2 (1 + cos) for a unit h: no dot product; but near a half
         * turn 1 + cos has cancelled (half_turn_unit), and the length is sin^2 + (1 + cos)^2. */
        const double cw = 1 + cphi;
        const double k = cw > 1e-4 ? 1 / sqrt(2 * cw) : 1 / sqrt(sphi * sphi + cw * cw);
        bend = (dq){h.x * (sphi * k), h.y * (sphi * k), h.z * (sphi * k), cw * k};
    } else {
        bend = (dq){h.x, h.y, h.z, 0};
    }
    const dv3 e1 = vadd(u, qrot(bend, v)); /* end - first after the bend */

    /* Swing the end onto the line to the target, then twist about that line so the middle
     * joint lies in the plane of the line and the pole, on the pole's side. */
    const dq swing = qfrom_to(e1, d);
    dq root = swing;
    const dv3 pp = vperp(pole, n);
    const double pp2 = vdot(pp, pp);
    if (pp2 > 1e-12 * vdot(pole, pole)) {
        const dv3 pn = vscale(pp, 1 / sqrt(pp2));
        /* The hinge decides the side when it is perpendicular to both bones (the default):
         * it is well defined even with the chain straight, where the middle joint's own
         * position says nothing. A given hinge that is not perpendicular uses the middle
         * joint's position while the chain is bent. */
        const dv3 hp = vperp(qrot(swing, h), n);
        perpendicular =
            perpendicular || (fabs(vdot(h, u)) < 1e-6 * l1 && fabs(vdot(h, v)) < 1e-6 * l2);
        dv3 from = v3(0, 0, 0), to = v3(0, 0, 0);
        /* Lengths compared squared: no root. The first bone's part (bp) only when the hinge
         * does not decide (the default hinge does: it is perpendicular). */
        const double lhp2 = vdot(hp, hp), l12 = l1 * l1;
        dv3 bp = v3(0, 0, 0);
        double lbp2 = 0;
        if (!perpendicular || lhp2 < 1e-12) {
            bp = vperp(qrot(swing, u), n);
            lbp2 = vdot(bp, bp);
        }
        bool turn = false;
        if ((!perpendicular && lbp2 > 1e-6 * l12) || lhp2 < 1e-12) {
            if (lbp2 > 1e-18 * l12) {
                from = bp, to = pn, turn = true;
            }
        } else {
            /* The middle joint sits on the side n x h of the line. */
            from = hp, to = vcross(pn, n), turn = lhp2 > 0;
        }
        if (turn) {
            /* With a weight below 1 the twist is that fraction of the full solve's (kept in
             * *twist): the angle found here would jump from pi to -pi where the knee passes
             * opposite the pole. At weight 1 the angle itself is not needed. */
            if (w < 1) {
                root = qmul(qaxis(n, w * *twist), swing);
            } else {
                if (twist) {
                    *twist = signed_angle(from, to, n);
                }
                root = qmul(qabout(from, to, n), swing);
            }
        }
    }
    ik_out[0] = local_after(l[0], f[0].q, root);
    ik_out[1] = local_after(l[1], f[1].q, bend);
    moved[0] = moved[1] = true;
    moved[2] = false;
    if (ik->has_target_rotation) {
        const dq qc = qmul(root, qmul(bend, f[2].q));
        const dq rt = qnorm(of_quat(ik->target_rotation));
        ik_out[2] = qnorm(qmul(qmul(l[2], qconj(qc)), rt));
        moved[2] = true;
    }
    *reached = within && w >= 1;
    return NULL;
}

/* ---- aim ------------------------------------------------------------------------------- */

/* The reach guard's share of the target's distance from the last pivot (docs/ik.md, "Aim and
 * aim chains"): the joints before the last may not bring the eye closer to the target than
 * this part of that distance, once aimed, unless it already was. */
#define AIM_GUARD 0.25

/* The reach guard's cut, where a joint's turn d about the pivot piv would bring the last pivot
 * p within sqrt(r2min) of the target t: the largest part of d (a turn by phi about d's axis,
 * phi from 0 up) that keeps it there. p moves on a circle about the axis, so
 * |t - p(phi)|^2 = |w|^2 + |u|^2 - 2 (alpha + beta cos phi + gamma sin phi) with u = p - piv,
 * w = t - piv, and the first phi where it falls to r2min is found in closed form. Only where
 * the guard engages, so the trigonometric calls cost nothing in the common case. */
static dq aim_guard_cut(dq d, dv3 piv, dv3 p, dv3 t, double r2min) {
    if (d.w < 0) {
        d = (dq){-d.x, -d.y, -d.z, -d.w};
    }
    const dv3 v = v3(d.x, d.y, d.z);
    const double sv = vlen(v);
    if (!(sv > 0)) {
        return qid();
    }
    const dv3 a = vscale(v, 1 / sv);
    const double full = 2 * atan2(sv, d.w); /* in [0, pi] */
    const dv3 u = vsub(p, piv), w = vsub(t, piv);
    const double au = vdot(a, u);
    const double alpha = vdot(w, a) * au, beta = vdot(w, vsub(u, vscale(a, au)));
    const double gamma = vdot(w, vcross(a, u));
    /* beta cos phi + gamma sin phi = m cos(phi - phi0) may not exceed k. */
    const double k = 0.5 * (vdot(w, w) + vdot(u, u) - r2min) - alpha;
    const double m = sqrt(beta * beta + gamma * gamma);
    double phi = full;
    if (!(beta <= k)) {
        phi = 0; /* already at the bound (rounding): no turn */
    } else if (k < m) {
        /* The crossings upward are at phi0 - acos(k / m) (mod 2 pi), one a period. */
        const double two_pi = 6.283185307179586;
        phi = atan2(gamma, beta) - acos(k / m > -1 ? k / m : -1);
        phi = fmod(phi, two_pi);
        phi = phi < 0 ? phi + two_pi : phi;
        /* The turn crosses the bound within [0, full]: a phi past full is a crossing at 0
         * (or at full) moved by rounding. */
        if (phi > full) {
            phi = two_pi - phi < phi - full ? 0 : full;
        }
    }
    return qaxis(a, phi);
}

/* Joint i's local rotation after the world turn *applied about its pivot (l its local, q its
 * world rotation), limited: then *applied becomes the turn the limited rotation makes, so the
 * joints after it make up for it (D = Q conj(l) l' conj(Q)), and *limited is set. */
HOT dq aim_joint_turn(const oroya_ik *ik, uint32_t i, dq l, dq q, dq *applied, bool *limited) {
    dq li = local_after(l, q, *applied);
    if (ik->limits && ik->limits[i].swing + ik->limits[i].has_twist_limit) {
        oroya_quat qi = {(float)li.x, (float)li.y, (float)li.z, (float)li.w}, qc;
        if (oroya_joint_limit_clamp(&ik->limits[i], qi, &qc) == OROYA_OK &&
            memcmp(&qi, &qc, sizeof qi) != 0) {
            li = qnorm(of_quat(qc));
            *limited = true;
            *applied = qnorm(qmul(qmul(q, qconj(l)), qmul(li, qconj(q))));
        }
    }
    return li;
}

/* reached may be NULL (not asked for: the ray is not followed past the last turn). */
IK_CLONES static const char *solve_aim(const oroya_ik *ik, uint32_t n, const float *m, frame *f,
                                       const dq *l, dq *ik_out, bool *moved, bool *reached) {
    const dv3 t = of_vec3(ik->target);
    const oroya_vec3 o3 = ik->offset, f3 = ik->forward, u3 = ik->up, a3 = ik->up_axis;
    /* One test: a sum of floats (as doubles) is finite exactly when each is. */
    if (!isfinite(t.x + t.y + t.z + (double)o3.x + (double)o3.y + (double)o3.z + (double)f3.x +
                  (double)f3.y + (double)f3.z + (double)u3.x + (double)u3.y + (double)u3.z +
                  (double)a3.x + (double)a3.y + (double)a3.z)) {
        return "target, offset, forward or up not finite";
    }
    /* Run-time fallback for a forward validate refuses as zero (the same 1e-6 floor). */
    if (!(vdot(of_vec3(ik->forward), of_vec3(ik->forward)) >= 1e-12)) {
        return "zero forward";
    }
    dv3 fw = vnorm(of_vec3(ik->forward));
    const dv3 ua0 = of_vec3(ik->up_axis);
    dv3 ua = vdot(ua0, ua0) > 0 ? ua0 : v3(0, 1, 0);
    ua = vnorm(vperp(ua, fw));
    const dv3 wup = of_vec3(ik->up);
    const double wup2 = vdot(wup, wup);
    const bool use_up = wup2 > 0 && vdot(ua, ua) > 0;
    double shares[OROYA_IK_MAX_CHAIN];
    double remaining = aim_shares(ik, n, shares);
    /* Shares changed since the set-up checked them (a NaN, a negative one, a sum off 1: the
     * set-up's test): a run-time fallback, not a silent "nothing to turn". */
    bool shares_ok = fabs(remaining - 1) <= 1e-4;
    for (uint32_t i = 0; i < n; i++) {
        shares_ok = shares_ok && shares[i] >= 0;
    }
    if (!shares_ok) {
        return "shares no longer valid (each >= 0, adding up to 1)";
    }
    /* The aim ray and the up axis in world space, moved along as each joint turns. */
    const frame *last = &f[n - 1];
    /* No eye offset, and the target on the aiming joint (the eye), within the set-up's 1e-6
     * of the chain's length (or of 1 for one joint): nothing to aim at, or a turn rounding
     * decides. (With an offset, a target inside the eye's blind sphere has its own answer:
     * the eye turned onto the line to it, below.) */
    if (o3.x == 0 && o3.y == 0 && o3.z == 0) {
        double chain = 0;
        for (uint32_t k = 0; k + 1 < n; k++) {
            chain += vlen(vsub(f[k + 1].p, f[k].p));
        }
        const double tol = 1e-6 * (chain > 0 ? chain : 1);
        const dv3 dl = vsub(t, last->p);
        if (!(vdot(dl, dl) > tol * tol)) {
            return "target at the aiming joint";
        }
    }
    /* The offset is in the last joint's local space, scale included: through its world
     * matrix m. */
    const dv3 off = of_vec3(ik->offset);
    /* No offset: the eye is the joint's position, and only that part of m is read (the
     * pipeline computes no more of it, see ik_run_root). */
    dv3 eye = off.x == 0 && off.y == 0 && off.z == 0
                  ? v3(m[12], m[13], m[14])
                  : v3(m[0] * off.x + m[4] * off.y + m[8] * off.z + m[12],
                       m[1] * off.x + m[5] * off.y + m[9] * off.z + m[13],
                       m[2] * off.x + m[6] * off.y + m[10] * off.z + m[14]);
    dv3 fwd = qrot(last->q, fw);
    dv3 upw = qrot(last->q, ua);
    bool limited = false;
    /* The reach guard (docs/ik.md): with o the eye from the last pivot, the last joint's ray
     * (from the eye on) can pass through the target when the target is at least the blind
     * radius from that pivot, r^2 >= perp^2 + max(o . fwd, 0)^2 (perp: the ray's distance from
     * the pivot). The joints before it turn the last pivot; each turn is cut (aim_guard_cut)
     * where it would bring the target within sqrt(r2min) of it: where the eye, once aimed,
     * would be nearer the target than min(its distance as the chain came, AIM_GUARD r0). A
     * target out of reach as the chain came: the pivot may not come nearer to it (the same
     * bound at the edge, r2min = r0^2, so the solve is continuous there). A negative r2min:
     * no guard (one joint). */
    double r2min = -1;
    if (n > 1) {
        const dv3 ol = vsub(eye, last->p), dl = vsub(t, last->p);
        const double ofl = vdot(ol, fwd), ofp = ofl > 0 ? ofl : 0;
        const double perp2 = vdot(ol, ol) - ofl * ofl, r02 = vdot(dl, dl), disc0 = r02 - perp2;
        r2min = r02;
        if (disc0 >= ofp * ofp) {
            const double q0 = sqrt(disc0) - ofp, cap = AIM_GUARD * sqrt(r02);
            if (cap < q0) {
                const double g = cap + ofp;
                r2min = perp2 + g * g;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        const double part = remaining > 0 ? shares[i] / remaining : 0;
        const double frac = part < 1 ? part : 1;
        remaining -= shares[i];
        moved[i] = frac > 0;
        if (!moved[i]) {
            continue;
        }
        const dv3 piv = f[i].p;
        const dv3 d = vsub(t, piv);
        const double dd = vdot(d, d);
        const dv3 o = vsub(eye, piv);
        const double oo = vdot(o, o);
        /* The target at the pivot: |d| <= 1e-9 (1 + |o|), compared squared with
         * (1 + |o|)^2 <= 2 (1 + |o|^2), no root. */
        if (!(dd > 2e-18 * (1 + oo))) {
            if (i + 1 == n) {
                return "target at the aiming joint"; /* the set-up refuses it too */
            }
            moved[i] = false; /* a joint before it: the ones after it still aim */
            continue;
        }
        /* The ray eye + s * fwd meets the sphere of radius |d| about the pivot at s; turning
         * the joint so that point is on the line to the target aims the ray at it. Inside the
         * cylinder of the offset (no such point), the discriminant is clamped: the closest
         * aim, continuous at the boundary. The last joint's point is never behind the eye
         * (s >= 0): with the target inside its blind sphere (the fallback, docs/ik.md) the eye
         * is turned onto the line to the target, as near it as it gets. */
        const double of = vdot(o, fwd);
        const double disc = of * of - oo + dd;
        double s = -of + sqrt(disc > 0 ? disc : 0);
        if (i + 1 == n && s < 0) {
            s = 0;
        }
        const dv3 aim = vadd(o, vscale(fwd, s));
        dq full = qfrom_to(aim, d);
        if (use_up) {
            const dv3 nd = vscale(d, 1 / sqrt(dd));
            const dv3 a1 = vperp(qrot(full, upw), nd), b1 = vperp(wup, nd);
            if (vdot(a1, a1) > 1e-18 && vdot(b1, b1) > 1e-18 * wup2) {
                full = qmul(qabout(a1, b1, nd), full);
            }
        }
        const dq turn = frac >= 1 ? full : qpow(full, frac);
        dq applied = turn;
        dq li = aim_joint_turn(ik, i, l[i], f[i].q, &applied, &limited);
        if (i + 1 == n && !reached) {
            ik_out[i] = li;
            break; /* the ray after the last turn only tells whether it reached */
        }
        /* The joints after this one, the eye, the ray and the up axis turn by one matrix. */
        dm3 r = qmat(applied);
        if (i + 1 < n && r2min >= 0) {
            const dv3 dl = vsub(t, vadd(piv, mrot(&r, vsub(f[n - 1].p, piv))));
            if (vdot(dl, dl) < r2min) {
                applied = aim_guard_cut(applied, piv, f[n - 1].p, t, r2min);
                li = aim_joint_turn(ik, i, l[i], f[i].q, &applied, &limited);
                r = qmat(applied);
            }
        }
        ik_out[i] = li;
        for (uint32_t k = i + 1; k < n; k++) {
            f[k].p = vadd(piv, mrot(&r, vsub(f[k].p, piv)));
            f[k].q = qmul(applied, f[k].q); /* unit times unit */
        }
        eye = vadd(piv, mrot(&r, vsub(eye, piv)));
        fwd = mrot(&r, fwd);
        upw = mrot(&r, upw);
    }
    if (reached) {
        const dv3 to = vsub(t, eye);
        /* Within 1e-5 rad: |fwd x to| < tan(1e-5) (fwd . to), tan(1e-5) = 1e-5 to 17 digits. */
        *reached = !limited && vlen(to) > 0 && vdot(fwd, to) > 0 &&
                   vlen(vcross(fwd, to)) < 1e-5 * vdot(fwd, to);
    }
    return NULL;
}

/* ---- the float fast path (two-bone) ------------------------------------------------------ */

/* The common two-bone case in float, with forms that stay accurate where the law of cosines
 * does not: the bend by its half angles from factored differences ((dmax - d)(dmax + d) near
 * full extension, (d - dmin)(d + dmin) near the fold), the twist by whichever half-angle form
 * has no cancellation. A cheap conditioning test sends the cases where float could still miss
 * a tolerance of the property tests to the double solver (fast_two_bone returns false): the
 * incoming bend within a sine of 1e-2 of straight or a cosine of -0.98 of folded, the target
 * within 1e-2 of the chain of the first joint, the pole within a sine of 1e-2 of the line to
 * the target, a swing of more than some 168 degrees. The case itself (weight 1, no end
 * rotation, the default hinge, unit rotations) is chosen by fast_two_bone_applies. See
 * docs/ik.md, "The float path". */
typedef struct {
    float x, y, z;
} fv3;
typedef struct {
    float x, y, z, w;
} fq;

HOT fv3 f3(float x, float y, float z) { return (fv3){x, y, z}; }
/* The same products four-wide (x, y, z, w in the lanes; a vector has w = 0): the chain walks
 * and the float path's last step, where the scalar forms spend more on moving lanes than on
 * arithmetic. */
#if OROYA__V4_SSE2
#define Q4_SHUF(a, i, j, k, l) _mm_shuffle_ps((a), (a), _MM_SHUFFLE(l, k, j, i))
HOT v4 q4_set(float x, float y, float z, float w) { return _mm_setr_ps(x, y, z, w); }
HOT float q4_lane(v4 a, int i) {
    _Alignas(16) float f[4];
    _mm_store_ps(f, a);
    return f[i];
}
#else
HOT v4 q4_shuf(v4 a, int i, int j, int k, int l) {
    v4 r = {{a.f[i], a.f[j], a.f[k], a.f[l]}};
    return r;
}
#define Q4_SHUF(a, i, j, k, l) q4_shuf((a), i, j, k, l)
HOT v4 q4_set(float x, float y, float z, float w) {
    v4 r = {{x, y, z, w}};
    return r;
}
HOT float q4_lane(v4 a, int i) { return a.f[i]; }
#endif
HOT v4 q4_mul(v4 a, v4 b) {
    const v4 b1 = v4_xor(Q4_SHUF(b, 3, 2, 1, 0), q4_set(0.0f, -0.0f, 0.0f, -0.0f));
    const v4 b2 = v4_xor(Q4_SHUF(b, 2, 3, 0, 1), q4_set(0.0f, 0.0f, -0.0f, -0.0f));
    const v4 b3 = v4_xor(Q4_SHUF(b, 1, 0, 3, 2), q4_set(-0.0f, 0.0f, 0.0f, -0.0f));
    return v4_add(v4_add(v4_mul(Q4_SHUF(a, 3, 3, 3, 3), b), v4_mul(Q4_SHUF(a, 0, 0, 0, 0), b1)),
                  v4_add(v4_mul(Q4_SHUF(a, 1, 1, 1, 1), b2), v4_mul(Q4_SHUF(a, 2, 2, 2, 2), b3)));
}
/* a x b in x, y, z; w is a.w b.w - a.w b.w (0 for finite values). */
HOT v4 q4_cross(v4 a, v4 b) {
    return v4_sub(v4_mul(Q4_SHUF(a, 1, 2, 0, 3), Q4_SHUF(b, 2, 0, 1, 3)),
                  v4_mul(Q4_SHUF(a, 2, 0, 1, 3), Q4_SHUF(b, 1, 2, 0, 3)));
}
/* The vector v (w = 0) turned by the unit quaternion q. */
HOT v4 q4_rot(v4 q, v4 v) {
    const v4 t = v4_mul(q4_cross(q, v), v4_set1(2.0f));
    return v4_add(v4_add(v, v4_mul(Q4_SHUF(q, 3, 3, 3, 3), t)), q4_cross(q, t));
}
/* The linear part of the column-major matrix c (3 columns) times the vector x. */
HOT v4 q4_mat(const v4 *c, v4 x) {
    return v4_add(
        v4_add(v4_mul(c[0], Q4_SHUF(x, 0, 0, 0, 0)), v4_mul(c[1], Q4_SHUF(x, 1, 1, 1, 1))),
        v4_mul(c[2], Q4_SHUF(x, 2, 2, 2, 2)));
}
#if OROYA__V4_SSE2
HOT float q4_first(v4 a) { return _mm_cvtss_f32(a); }
#else
HOT float q4_first(v4 a) { return a.f[0]; }
#endif
/* x, y and z only. */
HOT float q4_dot3(v4 a, v4 b) {
    const v4 m = v4_mul(a, b);
    return q4_first(v4_add(v4_add(m, Q4_SHUF(m, 1, 1, 1, 1)), Q4_SHUF(m, 2, 2, 2, 2)));
}
/* (v.x, v.y, v.z, 0) times s plus (0, 0, 0, w): a quaternion from a vector part and a
 * scalar part. */
HOT v4 q4_make(v4 v, float s, float w) {
    return v4_add(v4_mul(v, q4_set(s, s, s, 0.0f)), q4_set(0.0f, 0.0f, 0.0f, w));
}
HOT fv3 fv3_of4(v4 a) { return f3(q4_lane(a, 0), q4_lane(a, 1), q4_lane(a, 2)); }
HOT fq fq_of4(v4 a) { return (fq){q4_lane(a, 0), q4_lane(a, 1), q4_lane(a, 2), q4_lane(a, 3)}; }
HOT v4 soa_q4(const oroya_soa_transform *b, uint32_t i) {
    return q4_set(b->qx[i], b->qy[i], b->qz[i], b->qw[i]);
}
HOT v4 soa_t4(const oroya_soa_transform *b, uint32_t i) {
    return q4_set(b->tx[i], b->ty[i], b->tz[i], 0.0f);
}

/* A two-bone chain for the float path: the three joints' positions (w = 0), the first two
 * joints' world rotations and their local rotations (unit). */
typedef struct {
    v4 a, b, c;
    v4 q0, q1;
    v4 l0, l1;
} fchain2;

/* Whether the float path may take this IK this frame (fields the caller may change between
 * updates): full weight, no end rotation, the default hinge. */
static bool fast_two_bone_applies(const oroya_ik *ik) {
    return ik->type == OROYA_IK_TWO_BONE && ik->weight >= 1 && !ik->has_target_rotation &&
           ik->mid_axis.x == 0 && ik->mid_axis.y == 0 && ik->mid_axis.z == 0;
}

/* The rotation about the unit axis n taking the direction of a to that of b (both
 * perpendicular to n, |a||b| = ab): (a x b, ab + a.b) while a.b >= 0, else the same rotation
 * as (n (ab - a.b), n.(a x b)), which has no cancellation near a half turn. */
HOT v4 q4_about(v4 a, v4 b, v4 n, float ab) {
    const float dp = q4_dot3(a, b);
    const v4 c = q4_cross(a, b);
    if (dp >= 0) {
        const float k = 1.0f / sqrtf(2.0f * ab * (ab + dp));
        return q4_make(c, k, (ab + dp) * k);
    }
    const float e = ab - dp, k = 1.0f / sqrtf(2.0f * ab * e);
    return q4_make(n, e * k, q4_dot3(n, c) * k);
}

/* The solve (see above) of k chains at once (k = 1 or 2), each step for every chain before
 * the next step: the steps of one chain wait on each other (square roots, divisions), so two
 * chains side by side fill the time one leaves idle. Each chain's arithmetic is the same as
 * alone, so its bits are too. In three phases (tb_phase1..3 on a tb_state), so that an aim
 * chain's solve can run its joints between them (fast_aim's `side`): its steps wait on each
 * other too. The result: the first two joints' local rotations of chain c in out[c] and
 * whether its target is reached (not softened or clamped) when ok[c]; ok[c] false when the
 * case needs the double solver. */
typedef struct tb_state {
    int k;
    const oroya_ik *const *ik;
    const fchain2 *in;
    v4 t[2], pole[2], u[2], v[2], cr[2], h[2], ta[2], e1[2], root[2], bend[2], swing[2];
    float pole2[2], uu[2], vv[2], cc[2], uv[2], pab[2], dd[2], tdist[2], ch0[2], sh0[2];
    float want[2], dmax[2], dmin[2], ab[2];
    bool within[2], ok[2];
    oroya_quat out[2][2];
    int phase; /* the phases run so far */
} tb_state;

/* The chains' lengths, the incoming bend and the distance to be reached. */
HOT void tb_phase1(tb_state *st) {
    for (int c = 0; c < st->k; c++) {
        const oroya_ik *ik = st->ik[c];
        st->t[c] = q4_set(ik->target.x, ik->target.y, ik->target.z, 0.0f);
        st->pole[c] = q4_set(ik->pole.x, ik->pole.y, ik->pole.z, 0.0f);
        st->pole2[c] = q4_dot3(st->pole[c], st->pole[c]);
        /* A sum of finite floats can overflow: then the double solver decides. So it does for
         * a pole, a target distance or bones whose squares float holds badly (their products
         * below would overflow to a zero rotation). */
        st->ok[c] = isfinite(ik->target.x + ik->target.y + ik->target.z + st->pole2[c]) &&
                    st->pole2[c] >= 1e-10f && st->pole2[c] <= 1e20f;
        st->u[c] = v4_sub(st->in[c].b, st->in[c].a), st->v[c] = v4_sub(st->in[c].c, st->in[c].b);
        st->uu[c] = q4_dot3(st->u[c], st->u[c]), st->vv[c] = q4_dot3(st->v[c], st->v[c]);
        st->cr[c] = q4_cross(st->u[c], st->v[c]);
        st->cc[c] = q4_dot3(st->cr[c], st->cr[c]), st->uv[c] = q4_dot3(st->u[c], st->v[c]);
        st->ta[c] = v4_sub(st->t[c], st->in[c].a);
        st->dd[c] = q4_dot3(st->ta[c], st->ta[c]);
        st->ok[c] = st->ok[c] && st->dd[c] <= 1e20f && st->uu[c] <= 1e20f && st->vv[c] <= 1e20f;
    }
    for (int c = 0; c < st->k; c++) {
        const float l1 = sqrtf(st->uu[c]), l2 = sqrtf(st->vv[c]);
        st->pab[c] = l1 * l2;
        st->dmax[c] = l1 + l2, st->dmin[c] = fabsf(l1 - l2);
        st->tdist[c] = sqrtf(st->dd[c]);
        /* Bent: a sine above 1e-2 (the double solver's hinge needs 1e-4) and the half-angle
         * cosine's pab + u.v above 1e-2 pab (folded less than some 168 degrees); the target
         * off the first joint. */
        st->ok[c] = st->ok[c] && st->cc[c] > 1e-4f * st->uu[c] * st->vv[c] &&
                    st->pab[c] + st->uv[c] > 1e-2f * st->pab[c] &&
                    st->dd[c] > 1e-4f * st->dmax[c] * st->dmax[c];
    }
    for (int c = 0; c < st->k; c++) {
        const float lcr = sqrtf(st->cc[c]), pu = st->pab[c] + st->uv[c];
        st->h[c] = v4_mul(st->cr[c], v4_set1(1.0f / lcr));
        /* The incoming bend's half angle: (pab + u.v, |u x v|) normalized. */
        const float r0 = 1.0f / sqrtf(pu * pu + st->cc[c]);
        st->ch0[c] = pu * r0, st->sh0[c] = lcr * r0;
        float want = st->tdist[c];
        bool within = true;
        const float soft = st->ik[c]->soft, dmax = st->dmax[c];
        if (soft > 0 && isfinite(soft)) {
            const float ds = (soft < 0.999f ? soft : 0.999f) * dmax, da = dmax - ds;
            if (want > da && ds > 0) {
                want = da + ds * (1.0f - expf(-(want - da) / ds));
                within = false;
            }
        }
        if (want > dmax) {
            want = dmax, within = false;
        }
        if (want < st->dmin[c]) {
            want = st->dmin[c], within = false;
        }
        st->want[c] = want, st->within[c] = within;
    }
}

/* The bend and the swing of the end onto the line to the target. */
HOT void tb_phase2(tb_state *st) {
    for (int c = 0; c < st->k; c++) {
        /* The new bend psi1 from cos^2(psi1 / 2) = (d - dmin)(d + dmin) / (4 pab) and
         * sin^2(psi1 / 2) = (dmax - d)(dmax + d) / (4 pab): no cancellation at either end. */
        const float q4 = 0.25f / st->pab[c], w = st->want[c], dmin = st->dmin[c];
        const float dmax = st->dmax[c];
        const float c2 = (w - dmin) * (w + dmin) * q4, s2 = (dmax - w) * (dmax + w) * q4;
        const float ch1 = sqrtf(c2 > 0 ? c2 : 0), sh1 = sqrtf(s2 > 0 ? s2 : 0);
        /* The bend turns by psi1 - psi0 about h: its half angle's sine and cosine by the
         * difference formulas. */
        const float sb = sh1 * st->ch0[c] - ch1 * st->sh0[c];
        const float cb = ch1 * st->ch0[c] + sh1 * st->sh0[c];
        st->bend[c] = q4_make(st->h[c], sb, cb);
        st->e1[c] = v4_add(st->u[c], q4_rot(st->bend[c], st->v[c]));
    }
    for (int c = 0; c < st->k; c++) {
        /* Swing e1 onto the line to the target; a swing near a half turn has no reliable
         * axis. */
        const float ee = q4_dot3(st->e1[c], st->e1[c]);
        st->ab[c] = sqrtf(ee * st->dd[c]);
        const float w = st->ab[c] + q4_dot3(st->e1[c], st->ta[c]);
        st->ok[c] = st->ok[c] && w > 1e-2f * st->ab[c];
        /* |(e1 x ta, w)|^2 = 2 ab w, but below a quarter of ab w has lost bits to the
         * cancellation (up to 2.5e-5 of its value at 1e-2 ab, so much off unit length): the
         * length from the parts there, as half_turn_unit does. */
        const v4 cr = q4_cross(st->e1[c], st->ta[c]);
        const float ks = w > 0.5f * st->ab[c] ? 1.0f / sqrtf(2.0f * st->ab[c] * w)
                                              : 1.0f / sqrtf(q4_dot3(cr, cr) + w * w);
        st->swing[c] = q4_make(cr, ks, w * ks);
    }
}

/* The twist to the pole's side, the local rotations, the limits. */
HOT void tb_phase3(tb_state *st) {
    for (int c = 0; c < st->k; c++) {
        /* Twist about the line so the middle joint (on the side n x h of the line, the hinge
         * perpendicular to both bones) goes to the pole's side. */
        const v4 n = v4_mul(st->ta[c], v4_set1(1.0f / st->tdist[c]));
        const v4 pp = v4_sub(st->pole[c], v4_mul(n, v4_set1(q4_dot3(st->pole[c], n))));
        const float pp2 = q4_dot3(pp, pp);
        const v4 hs = q4_rot(st->swing[c], st->h[c]);
        const v4 hp = v4_sub(hs, v4_mul(n, v4_set1(q4_dot3(hs, n))));
        const float hp2 = q4_dot3(hp, hp);
        st->ok[c] = st->ok[c] && pp2 > 1e-4f * st->pole2[c] && hp2 > 0.25f;
        const v4 twist = q4_about(hp, q4_cross(pp, n), n, sqrtf(hp2 * pp2));
        st->root[c] = q4_mul(twist, st->swing[c]);
    }
    /* l' = l * conj(Q) * D * Q (the top of the file): D's vector turned by conj(Q) (q4_rot
     * keeps the w lane), then the product. */
    const v4 conj = q4_set(-0.0f, -0.0f, -0.0f, 0.0f), neg = v4_set1(-0.0f);
    for (int c = 0; c < st->k; c++) {
        const v4 d[2] = {st->root[c], st->bend[c]}, qw[2] = {st->in[c].q0, st->in[c].q1};
        const v4 ql[2] = {st->in[c].l0, st->in[c].l1};
        float sum = 0;
        for (int i = 0; i < 2; i++) {
            v4 o = q4_mul(ql[i], q4_rot(v4_xor(qw[i], conj), d[i]));
            if (q4_dot3(o, ql[i]) + q4_lane(o, 3) * q4_lane(ql[i], 3) < 0) {
                o = v4_xor(o, neg); /* stay in the input's hemisphere */
            }
            _Alignas(16) float f[4];
            v4_store(f, o);
            st->out[c][i] = (oroya_quat){f[0], f[1], f[2], f[3]};
            sum += f[0] + f[1] + f[2] + f[3];
        }
        st->ok[c] = st->ok[c] && isfinite(sum);
    }
    for (int c = 0; c < st->k; c++) {
        /* Limits made invalid since set-up (any of the chain's three, as solve_frames checks
         * them): the double solver, which reports them. */
        for (int i = 0; st->ok[c] && st->ik[c]->limits && i < 3; i++) {
            st->ok[c] =
                oroya_joint_limit_validate(&st->ik[c]->limits[i], (uint32_t)i, NULL) == OROYA_OK;
        }
        for (int i = 0; st->ok[c] && st->ik[c]->limits && i < 2; i++) {
            const oroya_joint_limit *lim = &st->ik[c]->limits[i];
            if (lim->swing != OROYA_SWING_FREE || lim->has_twist_limit) {
                oroya_quat cl;
                if (oroya_joint_limit_clamp(lim, st->out[c][i], &cl) == OROYA_OK) {
                    st->out[c][i] = cl;
                } else {
                    st->ok[c] = false; /* the double solver, which reports it */
                }
            }
        }
    }
}

/* The next phase of st (none once all three ran; st may be NULL). */
HOT void tb_step(tb_state *st) {
    if (!st || st->phase >= 3) {
        return;
    }
    if (st->phase == 0) {
        tb_phase1(st);
    } else if (st->phase == 1) {
        tb_phase2(st);
    } else {
        tb_phase3(st);
    }
    st->phase++;
}

/* One chain (see tb_state): false when the case needs the double solver. */
IK_CLONES static bool fast_two_bone(const oroya_ik *ik, const fchain2 *in, oroya_quat out[2],
                                    bool *reached) {
    tb_state st;
    st.k = 1, st.ik = &ik, st.in = in, st.phase = 0;
    tb_step(&st);
    tb_step(&st);
    tb_step(&st);
    if (st.ok[0]) {
        out[0] = st.out[0][0], out[1] = st.out[0][1];
        *reached = st.within[0];
    }
    return st.ok[0];
}

/* The phases of st not run yet (see tb_state). */
IK_CLONES static void fast_two_bone_finish(tb_state *st) {
    tb_step(st);
    tb_step(st);
    tb_step(st);
}

/* ---- the float fast path (aim) ----------------------------------------------------------- */

/* Whether the float aim path may take this IK this frame: full weight, no limits, no eye
 * offset. */
static bool fast_aim_applies(const oroya_ik *ik) {
    return ik->type == OROYA_IK_AIM && ik->weight >= 1 && !ik->limits && ik->offset.x == 0 &&
           ik->offset.y == 0 && ik->offset.z == 0;
}

HOT v4 q4_normalize(v4 q) {
    const float l2 = q4_dot3(q, q) + q4_lane(q, 3) * q4_lane(q, 3);
    return v4_mul(q, v4_set1(1.0f / sqrtf(l2)));
}

/* The vector v turned by the quaternion q of any length, times |q|^2: q v conj(q) =
 * |q|^2 v + 2 w (u x v) + 2 u x (u x v) for q = (u, w). For a direction only, a turn by an
 * unnormalized quaternion needs no square root. */
HOT v4 q4_rot_scaled(v4 q, v4 v) {
    const v4 qq = v4_mul(q, q);
    const v4 n2 = v4_add(v4_add(Q4_SHUF(qq, 0, 0, 0, 0), Q4_SHUF(qq, 1, 1, 1, 1)),
                         v4_add(Q4_SHUF(qq, 2, 2, 2, 2), Q4_SHUF(qq, 3, 3, 3, 3)));
    const v4 t = v4_mul(q4_cross(q, v), v4_set1(2.0f));
    return v4_add(v4_add(v4_mul(v, n2), v4_mul(Q4_SHUF(q, 3, 3, 3, 3), t)), q4_cross(q, t));
}

/* x . y in every lane (x, y and z only). */
HOT v4 q4_dot3v(v4 a, v4 b) {
    const v4 m = v4_mul(a, b);
    const v4 s =
        v4_add(v4_add(Q4_SHUF(m, 0, 0, 0, 0), Q4_SHUF(m, 1, 1, 1, 1)), Q4_SHUF(m, 2, 2, 2, 2));
    return s;
}

/* qpow in float: slerp(identity, q, t) for a unit q and t in (0, 1), on the shorter arc, by
 * the same steps (phi = 4 atan(z), z = tan(phi / 4) <= tan(pi / 8); the half angle
 * a = t phi / 2 <= pi / 4, its sine and cosine by their series, then the double angle). The
 * series stop where the first term left out is below 1e-8 rad (atan to z^15, sin to a^9, cos
 * to a^10), under float's own rounding. Estrin's scheme keeps the chain of dependent
 * products short. */
HOT v4 q4_pow(v4 q, float t) {
    const float c0 = q4_lane(q, 3);
    if (c0 < 0) {
        q = v4_xor(q, v4_set1(-0.0f));
    }
    const float s2 = q4_dot3(q, q);
    if (!(s2 > 1e-30f)) {
        return q; /* within 1e-15 of the identity: so is every part of it */
    }
    const float c1 = 1.0f + fabsf(c0);
    const float s = sqrtf(s2), den = c1 + sqrtf(2.0f * c1), r = 1.0f / (s * den);
    const float z = s2 * r, zz = z * z, inv_s = den * r;
    const float x2 = zz * zz, x4 = x2 * x2;
    const float a0 = 1.0f - zz * (1.0f / 3), a1 = 1.0f / 5 - zz * (1.0f / 7);
    const float a2 = 1.0f / 9 - zz * (1.0f / 11), a3 = 1.0f / 13 - zz * (1.0f / 15);
    const float pz = (a0 + a1 * x2) + (a2 + a3 * x2) * x4;
    const float a = 2.0f * t * z * pz, aa = a * a, y2 = aa * aa;
    const float sp = (-1.0f / 6 + aa * (1.0f / 120)) + (-1.0f / 5040 + aa * (1.0f / 362880)) * y2;
    const float sn = a * (1.0f + sp * aa);
    const float cp = (0.5f - aa * (1.0f / 24)) + (1.0f / 720 - aa * (1.0f / 40320)) * y2 +
                     (1.0f / 3628800) * y2 * y2;
    const float cs = 1.0f - cp * aa;
    const float k = 2.0f * sn * cs * inv_s; /* sin(t phi) / sin(phi) */
    return v4_add(v4_mul(q, q4_set(k, k, k, 0.0f)), q4_set(0.0f, 0.0f, 0.0f, cs * cs - sn * sn));
}

/* solve_aim in float for the case above, on the chain's positions p (w = 0) and world
 * rotations q (unit; both changed) and local rotations l: writes out and, when reached is not
 * NULL, whether the ray ends within 1e-5 rad of the target. The same conditioning idea as
 * the two-bone path: false (nothing written) when the target is within 1e-4 of a pivot, the
 * aim ray misses a pivot's sphere, a turn is within some 8 degrees of a half turn, or the up
 * axis or up is within a sine of 1e-2 of the line to the target.
 *
 * A solve is one chain of dependent steps (each joint waits on the turn before it), so the
 * steps are arranged for a short chain rather than few instructions: the swing onto the line
 * to the target and the twist about it are kept unnormalized (the swing over |d|^2, whose
 * length is then in [0.14, 2]: the aim point is |d| from the pivot, so |aim||d| = |d|^2 and
 * no square root is needed for it) and the product is normalized once; the up axis is turned
 * by the unnormalized swing (a direction only); 1 / |d| and 1 / |d|^2 are computed beside the
 * ray's square root; the partial turns by q4_pow in float. */
IK_CLONES static bool fast_aim(const oroya_ik *ik, uint32_t n, v4 *p, v4 *q, const v4 *l,
                               oroya_quat *out, bool *reached, tb_state *side) {
    const oroya_vec3 t3 = ik->target, f3v = ik->forward, u3 = ik->up, a3 = ik->up_axis;
    if (!isfinite(t3.x + t3.y + t3.z + f3v.x + f3v.y + f3v.z + u3.x + u3.y + u3.z + a3.x + a3.y +
                  a3.z)) {
        return false;
    }
    const v4 t = q4_set(t3.x, t3.y, t3.z, 0.0f);
    /* forward, up_axis and up are directions: lengths whose squares float holds well (1e-10
     * to 1e20) here, the double solver otherwise (a square that overflows or underflows would
     * turn a direction into zero or infinity). */
    const v4 fw0 = q4_set(f3v.x, f3v.y, f3v.z, 0.0f);
    const float fw2 = q4_dot3(fw0, fw0);
    if (!(fw2 >= 1e-10f && fw2 <= 1e20f)) {
        return false;
    }
    const v4 fw = v4_mul(fw0, v4_set1(1.0f / sqrtf(fw2)));
    const v4 ua0 = q4_set(a3.x, a3.y, a3.z, 0.0f);
    const float ua02 = q4_dot3(ua0, ua0);
    const bool axis_zero = a3.x == 0 && a3.y == 0 && a3.z == 0;
    if (!axis_zero && !(ua02 >= 1e-10f && ua02 <= 1e20f)) {
        return false;
    }
    v4 ua = axis_zero ? q4_set(0.0f, 1.0f, 0.0f, 0.0f) : v4_mul(ua0, v4_set1(1.0f / sqrtf(ua02)));
    ua = v4_sub(ua, v4_mul(fw, v4_set1(q4_dot3(ua, fw))));
    const float ua2 = q4_dot3(ua, ua);
    const v4 wup = q4_set(u3.x, u3.y, u3.z, 0.0f);
    const float wup2 = q4_dot3(wup, wup);
    const bool use_up = !(u3.x == 0 && u3.y == 0 && u3.z == 0);
    if (use_up && !(wup2 >= 1e-10f && wup2 <= 1e20f)) {
        return false;
    }
    if (use_up && !(ua2 > 1e-4f)) {
        return false;
    }
    if (use_up) {
        ua = v4_mul(ua, v4_set1(1.0f / sqrtf(ua2)));
    }
    double shares[OROYA_IK_MAX_CHAIN];
    double remaining = aim_shares(ik, n, shares);
    if (!(fabs(remaining - 1) <= 1e-4)) {
        return false; /* shares changed since the set-up: the double solver's fallback */
    }
    /* With no offset the eye is the last pivot, p[n - 1]: the loop turns it with the joints
     * after each pivot (the last joint turns it about itself, which leaves it in place). */
    v4 fwd = q4_rot(q[n - 1], fw), upw = q4_rot(q[n - 1], ua);
    /* solve_aim's reach guard, which with no offset keeps the last pivot AIM_GUARD r0 from
     * the target: a turn that brings it within 1 % of that (squared) goes to the double
     * solver, which cuts it. */
    const v4 d0 = v4_sub(t, p[n - 1]);
    const float dd0 = q4_dot3(d0, d0);
    /* The target on (or within 1e-4 of) the aiming joint: the double solver decides. */
    if (!(dd0 > 1e-8f * (1.0f + q4_dot3(p[n - 1], p[n - 1])))) {
        return false;
    }
    const float guard2 = (float)(AIM_GUARD * AIM_GUARD * 1.01) * dd0;
    const v4 conj = q4_set(-0.0f, -0.0f, -0.0f, 0.0f);
    float sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double part = remaining > 0 ? shares[i] / remaining : 0;
        if (shares[i] < 0) {
            return false; /* likewise */
        }
        const float frac = (float)(part < 1 ? part : 1);
        remaining -= shares[i];
        if (!(frac > 0)) {
            out[i] = (oroya_quat){q4_lane(l[i], 0), q4_lane(l[i], 1), q4_lane(l[i], 2),
                                  q4_lane(l[i], 3)};
            continue;
        }
        const v4 piv = p[i];
        const v4 d = v4_sub(t, piv), o = v4_sub(p[n - 1], piv);
        const float dd = q4_dot3(d, d), oo = q4_dot3(o, o);
        if (!(dd > 1e-8f * (1.0f + oo))) {
            return false;
        }
        /* Beside the chain: 1 / |d|^2, the unit line to the target, up across it. */
        const float idd = 1.0f / dd;
        const v4 nd = v4_mul(d, v4_set1(sqrtf(idd)));
        const float of = q4_dot3(o, fwd), disc = of * of - oo + dd;
        if (!(disc > 1e-4f * dd)) {
            return false;
        }
        const v4 aim = v4_add(o, v4_mul(fwd, v4_set1(-of + sqrtf(disc))));
        /* The swing (aim x d, |aim||d| + aim . d) over |d|^2, with |aim| = |d|. */
        const float w = 1.0f + q4_dot3(aim, d) * idd;
        if (!(w > 1e-2f)) {
            return false;
        }
        const v4 sw = q4_make(q4_cross(aim, d), idd, w);
        v4 full = sw;
        if (use_up) {
            /* The up axis turned by the swing (times |sw|^2), and up, across the line. */
            const v4 ur = q4_rot_scaled(sw, upw);
            const v4 a1 = v4_sub(ur, v4_mul(nd, q4_dot3v(ur, nd)));
            const v4 b1 = v4_sub(wup, v4_mul(nd, q4_dot3v(wup, nd)));
            const float aa = q4_dot3(a1, a1), bb = q4_dot3(b1, b1);
            const float sw2 = q4_dot3(sw, sw) + w * w;
            if (!(aa > 1e-4f * sw2 * sw2) || !(bb > 1e-4f * wup2)) {
                return false;
            }
            /* The twist about nd taking a1 to b1, unnormalized: (a1 x b1, |a1||b1| + a1.b1),
             * or near a half turn (nd (|a1||b1| - a1.b1), nd . (a1 x b1)). */
            const float ab = sqrtf(aa * bb), dp = q4_dot3(a1, b1);
            const v4 c = q4_cross(a1, b1);
            const v4 tw =
                dp >= 0 ? q4_make(c, 1.0f, ab + dp) : q4_make(nd, ab - dp, q4_dot3(nd, c));
            full = q4_mul(tw, sw);
        }
        /* A phase of the two-bone solves beside this one: what follows (the normalization,
         * the partial turn, the turns of the joints after this one) is a chain of waits. */
        tb_step(side);
        full = q4_normalize(full);
        const v4 turn = frac < 1 ? q4_pow(full, frac) : full;
        v4 li = q4_mul(l[i], q4_rot(v4_xor(q[i], conj), turn));
        if (q4_dot3(li, l[i]) + q4_lane(li, 3) * q4_lane(l[i], 3) < 0) {
            li = v4_xor(li, v4_set1(-0.0f)); /* stay in the input's hemisphere */
        }
        _Alignas(16) float fo[4];
        v4_store(fo, li);
        out[i] = (oroya_quat){fo[0], fo[1], fo[2], fo[3]};
        sum += fo[0] + fo[1] + fo[2] + fo[3];
        if (i + 1 == n && !reached) {
            break;
        }
        for (uint32_t k2 = i + 1; k2 < n; k2++) {
            p[k2] = v4_add(piv, q4_rot(turn, v4_sub(p[k2], piv)));
            q[k2] = q4_mul(turn, q[k2]);
        }
        if (i + 1 < n) {
            const v4 dl = v4_sub(t, p[n - 1]);
            if (!(q4_dot3(dl, dl) >= guard2)) {
                return false;
            }
        }
        fwd = q4_rot(turn, fwd);
        upw = q4_rot(turn, upw);
    }
    if (!isfinite(sum)) {
        return false;
    }
    if (reached) {
        const v4 to = v4_sub(t, p[n - 1]);
        const float ft = q4_dot3(fwd, to);
        const v4 cx = q4_cross(fwd, to);
        *reached = ft > 0 && sqrtf(q4_dot3(cx, cx)) < 1e-5f * ft;
    }
    return true;
}

/* ---- run ------------------------------------------------------------------------------ */

static oroya_quat to_quat(dq q) {
    return (oroya_quat){(float)q.x, (float)q.y, (float)q.z, (float)q.w};
}

/* q normalized (in double, which holds the square of any float quaternion's length, so a
 * tiny one such as (1e-30, 0, 0, 1e-30) normalizes too), or the identity for a zero or
 * non-finite one. */
static oroya_quat unit_or_identity(oroya_quat q) {
    dq d = of_quat(q);
    double l2 = qdot(d, d);
    if (!(l2 > 0) || !isfinite(l2)) {
        return (oroya_quat){0, 0, 0, 1};
    }
    return to_quat(qnorm(d));
}

/* The solve of one IK of n joints on its frames f (pivots and world rotations, chain order;
 * changed), the input rotations rin and the last joint's world matrix last_m (the eye
 * offset): writes out (may alias rin). why: a fallback found by the caller, or NULL. */
IK_CLONES static oroya_result solve_frames(const oroya_ik *ik, uint32_t n, const float *last_m,
                                           frame *f, const oroya_quat *rin, oroya_quat *out,
                                           bool *reached_out, const char *why, oroya_error *err) {
    const float w = ik->weight;
    bool reached = false;
    dq l[OROYA_IK_MAX_CHAIN], ik_out[OROYA_IK_MAX_CHAIN];
    bool moved[OROYA_IK_MAX_CHAIN] = {false};
    /* One test for the chain: the sum of the squared lengths is finite when each is, and
     * the smallest says whether one is zero. */
    double lsum = 0, lmin = 1;
    for (uint32_t i = 0; i < n; i++) {
        l[i] = of_quat(rin[i]);
        const double l2 = qdot(l[i], l[i]);
        lsum += l2;
        lmin = l2 < lmin ? l2 : lmin;
        /* A float rotation the blend normalized is unit to a few float roundings (|l|^2
         * within 1e-6 of 1, |l| within 5e-7): used as it is; others are normalized. */
        if (!(fabs(l2 - 1) <= 1e-6)) {
            l[i] = qnorm(l[i]);
        }
    }
    if (!why && (!isfinite(lsum) || !(lmin >= 1e-24))) {
        why = "local rotation zero or not finite";
    }
    /* Limits changed since set-up into ones the clamp refuses: not silently dropped. */
    for (uint32_t i = 0; !why && ik->limits && i < n; i++) {
        if (oroya_joint_limit_validate(&ik->limits[i], i, NULL) != OROYA_OK) {
            why = "a joint limit is not valid";
        }
    }
    if (!why) {
        if (ik->type == OROYA_IK_TWO_BONE) {
            double twist = 0;
            why = solve_two_bone(ik, 1, w < 1 ? &twist : NULL, f, l, ik_out, moved, &reached);
            if (!why && w < 1) {
                why = solve_two_bone(ik, w, &twist, f, l, ik_out, moved, &reached);
            }
        } else {
            why = solve_aim(ik, n, last_m, f, l, ik_out, moved, reached_out ? &reached : NULL);
        }
    }
    if (!why) {
        double osum = 0;
        for (uint32_t i = 0; i < n; i++) {
            osum += moved[i] ? qdot(ik_out[i], ik_out[i]) : 0;
        }
        if (!isfinite(osum)) {
            why = "no finite solution";
        }
    }
    if (why) {
        for (uint32_t i = 0; i < n; i++) {
            out[i] = unit_or_identity(rin[i]);
        }
        if (reached_out) {
            *reached_out = false;
        }
        return oroya__fail(err, OROYA_ERR_INVALID_DATA, "%s: %s; pose left unchanged",
                           ik->name && ik->name[0] ? ik->name : "ik", why);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!moved[i]) {
            out[i] = rin[i];
            continue;
        }
        dq q = ik_out[i];
        if (qdot(q, l[i]) < 0) {
            q = (dq){-q.x, -q.y, -q.z, -q.w}; /* stay in the input's hemisphere */
        }
        oroya_quat o = to_quat(q);
        /* Two-bone IK applied the weight to its first two joints itself. */
        if (w < 1 && (ik->type == OROYA_IK_AIM || i == 2)) {
            o = oroya_quat_slerp(to_quat(l[i]), o, w);
        }
        if (ik->limits &&
            (ik->limits[i].swing != OROYA_SWING_FREE || ik->limits[i].has_twist_limit)) {
            oroya_quat c;
            if (oroya_joint_limit_clamp(&ik->limits[i], o, &c) == OROYA_OK) {
                o = c;
            }
        }
        out[i] = o;
    }
    if (reached_out) {
        *reached_out = reached && w >= 1;
    }
    return OROYA_OK;
}

/* Weight 0 or below, or NaN (then reported): the pose as it was, bit for bit. */
static void copy_unchanged(const oroya_ik_solve_job *job, uint32_t n) {
    if (job->out != job->rotations) {
        memmove(job->out, job->rotations, n * sizeof *job->out);
    }
    if (job->reached) {
        *job->reached = false;
    }
}

oroya_result oroya_ik_solve_run(const oroya_ik_solve_job *job, oroya_error *err) {
    oroya_result r = check_cheap(job, 0, err);
    if (r != OROYA_OK) {
        return r;
    }
    const oroya_ik *ik = job->ik;
    const uint32_t n = chain_count(ik);
    if (!(ik->weight > 0)) {
        copy_unchanged(job, n);
        if (isnan(ik->weight)) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "%s: weight is not a number; pose left unchanged",
                               ik->name && ik->name[0] ? ik->name : "ik");
        }
        return OROYA_OK;
    }
    frame f[OROYA_IK_MAX_CHAIN];
    const char *why = NULL;
    for (uint32_t i = 0; i < n && !why; i++) {
        if (!frame_of(&job->world[i], &f[i])) {
            why = "world matrix not finite, singular or a reflection";
        }
    }
    return solve_frames(ik, n, job->world[n - 1].m, f, job->rotations, job->out, job->reached, why,
                        err);
}

int oroya__ik_solve_run_fast(const oroya_ik_solve_job *job, oroya_result *result,
                             oroya_error *err) {
    int taken = 0;
    const oroya_ik *ik = job ? job->ik : NULL;
    if (ik && check_cheap(job, 0, NULL) == OROYA_OK && ik->weight > 0 &&
        fast_two_bone_applies(ik)) {
        const oroya_quat *r = job->rotations;
        const float *m2 = job->world[2].m;
        const double u0 = qdot(of_quat(r[0]), of_quat(r[0])) - 1;
        const double u1 = qdot(of_quat(r[1]), of_quat(r[1])) - 1;
        frame f0, f1;
        if (fabs(u0) <= 1e-6 && fabs(u1) <= 1e-6 && frame_of(&job->world[0], &f0) &&
            frame_of(&job->world[1], &f1) && isfinite(m2[12] + m2[13] + m2[14])) {
            const fchain2 in = {q4_set((float)f0.p.x, (float)f0.p.y, (float)f0.p.z, 0.0f),
                                q4_set((float)f1.p.x, (float)f1.p.y, (float)f1.p.z, 0.0f),
                                q4_set(m2[12], m2[13], m2[14], 0.0f),
                                q4_set((float)f0.q.x, (float)f0.q.y, (float)f0.q.z, (float)f0.q.w),
                                q4_set((float)f1.q.x, (float)f1.q.y, (float)f1.q.z, (float)f1.q.w),
                                q4_set(r[0].x, r[0].y, r[0].z, r[0].w),
                                q4_set(r[1].x, r[1].y, r[1].z, r[1].w)};
            oroya_quat o[2];
            bool reached = false;
            taken = 1;
            if (fast_two_bone(ik, &in, o, &reached)) {
                const oroya_quat end = r[2];
                job->out[0] = o[0], job->out[1] = o[1], job->out[2] = end;
                if (job->reached) {
                    *job->reached = reached;
                }
                *result = OROYA_OK;
                return 2;
            }
        }
    }
    if (ik && check_cheap(job, 0, NULL) == OROYA_OK && ik->weight > 0 && fast_aim_applies(ik)) {
        const uint32_t n = chain_count(ik);
        v4 fp[OROYA_IK_MAX_CHAIN], fqw[OROYA_IK_MAX_CHAIN], fl[OROYA_IK_MAX_CHAIN];
        bool ok = true;
        for (uint32_t k = 0; ok && k < n; k++) {
            const oroya_quat r = job->rotations[k];
            frame f;
            ok = fabs(qdot(of_quat(r), of_quat(r)) - 1) <= 1e-6 && frame_of(&job->world[k], &f);
            fp[k] = q4_set((float)f.p.x, (float)f.p.y, (float)f.p.z, 0.0f);
            fqw[k] = q4_set((float)f.q.x, (float)f.q.y, (float)f.q.z, (float)f.q.w);
            fl[k] = q4_set(r.x, r.y, r.z, r.w);
        }
        oroya_quat o[OROYA_IK_MAX_CHAIN];
        bool reached = false;
        if (ok) {
            taken = 1;
            if (fast_aim(ik, n, fp, fqw, fl, o, job->reached ? &reached : NULL, NULL)) {
                memcpy(job->out, o, n * sizeof *o);
                if (job->reached) {
                    *job->reached = reached;
                }
                *result = OROYA_OK;
                return 2;
            }
        }
    }
    *result = oroya_ik_solve_run(job, err);
    return taken;
}

/* ---- chains and hooks ------------------------------------------------------------------- */

typedef const char *(*name_fn)(const void *ctx, uint32_t joint);

/* "joints[1] (shin_L)" */
static void joint_label(name_fn name_of, const void *ctx, uint32_t k, uint32_t joint, char *out,
                        size_t cap) {
    const char *nm = name_of ? name_of(ctx, joint) : NULL;
    if (nm && nm[0]) {
        snprintf(out, cap, "joints[%u] (%s)", k, nm);
    } else {
        snprintf(out, cap, "joints[%u] (index %u)", k, joint);
    }
}

/* Indices in range and each joint an ancestor of the next. */
static oroya_result check_chain(const oroya_ik *ik, uint32_t index, const uint32_t *parents,
                                uint32_t joint_count, name_fn name_of, const void *ctx,
                                oroya_error *err) {
    const uint32_t n = chain_count(ik);
    char at[96], a[160], b[160];
    ik_label(ik, index, at, sizeof at);
    for (uint32_t k = 0; k < n; k++) {
        if (ik->joints[k] >= joint_count) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE,
                               "%s.joints[%u]: %u, there are %u joints", at, k, ik->joints[k],
                               joint_count);
        }
    }
    for (uint32_t k = 1; k < n; k++) {
        uint32_t j = ik->joints[k];
        const uint32_t want = ik->joints[k - 1];
        /* parents[j] < j, so the walk ends. */
        while (j != want && j != UINT32_MAX && j < joint_count) {
            j = parents[j];
        }
        if (j != want || ik->joints[k] == want) {
            joint_label(name_of, ctx, k, ik->joints[k], a, sizeof a);
            joint_label(name_of, ctx, k - 1, want, b, sizeof b);
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "%s: %s is not a descendant of %s: the joints must be a parent "
                               "chain",
                               at, a, b);
        }
    }
    return OROYA_OK;
}

/* Validates one IK on a pose given by index arrays: the chain, then the solve checks, with
 * the joint names put into the message. */
/* Whether a joint's local scale has a negative component (a reflection, or a half turn kept
 * in the scale: the solver's rule for local rotations assumes neither). */
typedef bool (*negative_scale_fn)(const void *ctx, uint32_t joint);

/* The first joint on an IK's path (joints[0] down to its end, parents from `parents`) whose
 * scale is negative, or UINT32_MAX. The chain must be a parent chain. */
static uint32_t negative_scale_on_path(const oroya_ik *ik, uint32_t n, const uint32_t *parents,
                                       uint32_t joint_count, negative_scale_fn negative,
                                       const void *ctx) {
    for (uint32_t j = ik->joints[n - 1]; j < joint_count; j = parents[j]) {
        if (negative(ctx, j)) {
            return j;
        }
        if (j == ik->joints[0]) {
            break;
        }
    }
    return UINT32_MAX;
}

static oroya_result validate_on(const oroya_ik *ik, uint32_t index, const uint32_t *parents,
                                uint32_t joint_count, const oroya_mat4 *world,
                                const oroya_quat *rotations, name_fn name_of, const void *ctx,
                                negative_scale_fn negative, const void *scale_ctx,
                                oroya_error *err) {
    if (!ik) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "iks[%u]: NULL", index);
    }
    oroya_ik_solve_job job = {ik, world, rotations, (oroya_quat *)rotations, NULL};
    oroya_result r = check_cheap(&job, index, err);
    if (r == OROYA_OK) {
        r = check_chain(ik, index, parents, joint_count, name_of, ctx, err);
    }
    if (r != OROYA_OK) {
        return r;
    }
    const uint32_t n = chain_count(ik);
    const uint32_t neg = negative_scale_on_path(ik, n, parents, joint_count, negative, scale_ctx);
    if (neg != UINT32_MAX) {
        char at[96];
        ik_label(ik, index, at, sizeof at);
        const char *nm = name_of ? name_of(ctx, neg) : NULL;
        return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                           "%s: joint %u (%s) on the chain's path: negative scale: not supported",
                           at, neg, nm && nm[0] ? nm : "unnamed");
    }
    oroya_mat4 w[OROYA_IK_MAX_CHAIN];
    oroya_quat q[OROYA_IK_MAX_CHAIN];
    for (uint32_t k = 0; k < n; k++) {
        w[k] = world[ik->joints[k]];
        q[k] = rotations[k];
    }
    job.world = w;
    job.rotations = q;
    job.out = q;
    oroya_error e = {0};
    r = oroya_ik_solve_validate(&job, index, &e);
    if (r != OROYA_OK && err) {
        /* Name the joint the message points at ("joints[2]" -> "joints[2] (foot_L)"). */
        const char *p = strstr(e.message, "joints[");
        uint32_t k = p ? (uint32_t)strtoul(p + 7, NULL, 10) : n;
        if (p && k < n) {
            char label[160];
            joint_label(name_of, ctx, k, ik->joints[k], label, sizeof label);
            const char *close = strchr(p, ']');
            oroya__fail(err, r, "%.*s%s%s", (int)(p - e.message), e.message, label,
                        close ? close + 1 : "");
        } else {
            *err = e;
        }
    }
    return r;
}

static const char *scene_name(const void *ctx, uint32_t joint) {
    const oroya_scene *s = ctx;
    return oroya_scene_node_name(s, oroya_scene_node_at(s, joint));
}

static bool scene_negative_scale(const void *ctx, uint32_t joint) {
    const oroya_vec3 sc = oroya_scene_transforms((oroya_scene *)ctx)[joint].scale;
    return sc.x < 0 || sc.y < 0 || sc.z < 0;
}

/* Whether joints[0 .. n) are a parent chain (each an ancestor of the next) under `parents`
 * (count entries, UINT32_MAX at a root): the joints may have been changed since set-up. */
static bool is_parent_chain(const uint32_t *parents, uint32_t count, const oroya_ik *ik,
                            uint32_t n) {
    uint32_t k = n - 1;
    for (uint32_t j = ik->joints[k]; j < count; j = parents[j]) {
        if (j == ik->joints[k]) {
            if (k == 0) {
                return true;
            }
            k--;
        }
    }
    return false;
}

/* The scene's rotations gathered into chain order (the scene stores them inside its
 * transforms). */
static void scene_rotations(oroya_scene *scene, const oroya_ik *ik, oroya_quat *out) {
    const oroya_transform *tr = oroya_scene_transforms(scene);
    for (uint32_t k = 0; k < chain_count(ik); k++) {
        out[k] = tr[ik->joints[k]].rotation;
    }
}

oroya_result oroya_ik_scene_validate(const oroya_scene *scene, const oroya_ik *iks, uint32_t count,
                                     oroya_error *err) {
    if (!scene || (count && !iks)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_ik_scene_validate: scene and iks are required");
    }
    const uint32_t nodes = oroya_scene_node_count(scene);
    const uint32_t *parents = oroya_scene_parent_indices(scene);
    const oroya_mat4 *world = oroya_scene_world_matrices(scene);
    for (uint32_t i = 0; i < count; i++) {
        oroya_quat q[OROYA_IK_MAX_CHAIN] = {{0, 0, 0, 1}};
        bool in_range = iks[i].joint_count <= OROYA_IK_MAX_CHAIN;
        for (uint32_t k = 0; in_range && k < chain_count(&iks[i]); k++) {
            in_range = iks[i].joints[k] < nodes;
        }
        if (in_range) {
            scene_rotations((oroya_scene *)scene, &iks[i], q);
        }
        oroya_result r = validate_on(&iks[i], i, parents, nodes, world, q, scene_name, scene,
                                     scene_negative_scale, scene, err);
        if (r != OROYA_OK) {
            return r;
        }
    }
    return OROYA_OK;
}

oroya_result oroya_ik_scene_apply(oroya_scene *scene, const oroya_ik *iks, uint32_t count,
                                  oroya_error *err) {
    if (!scene || (count && !iks)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_ik_scene_apply: scene and iks are required");
    }
    const uint32_t nodes = oroya_scene_node_count(scene);
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t n = iks[i].joint_count <= OROYA_IK_MAX_CHAIN ? chain_count(&iks[i]) : 0;
        if (n == 0) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "iks[%u].joint_count: %u", i,
                               iks[i].joint_count);
        }
        for (uint32_t k = 0; k < n; k++) {
            if (iks[i].joints[k] >= nodes) {
                return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE,
                                   "iks[%u].joints[%u]: %u, the scene has %u nodes", i, k,
                                   iks[i].joints[k], nodes);
            }
        }
    }
    oroya_result first = OROYA_OK;
    for (uint32_t i = 0; i < count; i++) {
        const oroya_ik *ik = &iks[i];
        const uint32_t n = chain_count(ik);
        const oroya_mat4 *world = oroya_scene_world_matrices(scene);
        oroya_transform *tr = oroya_scene_transforms(scene);
        oroya_mat4 w[OROYA_IK_MAX_CHAIN];
        oroya_quat q[OROYA_IK_MAX_CHAIN], out[OROYA_IK_MAX_CHAIN];
        for (uint32_t k = 0; k < n; k++) {
            w[k] = world[ik->joints[k]];
        }
        scene_rotations(scene, ik, q);
        oroya_error e = {0};
        oroya_result r;
        /* Joints that are no longer a parent chain (the set-up refuses them; the kernel falls
         * back too), or a negative scale on the path (the solver would not see it in the
         * world matrices when it is a half turn). */
        const bool chain = ik->weight > 0
                               ? is_parent_chain(oroya_scene_parent_indices(scene), nodes, ik, n)
                               : true;
        if (!chain || (ik->weight > 0 &&
                       negative_scale_on_path(ik, n, oroya_scene_parent_indices(scene), nodes,
                                              scene_negative_scale, scene) != UINT32_MAX)) {
            r = OROYA_ERR_INVALID_DATA;
            snprintf(e.message, sizeof e.message, "%s: %s; pose left unchanged",
                     ik->name && ik->name[0] ? ik->name : "ik",
                     chain ? "negative scale on the chain's path"
                           : "joints are not a parent chain");
        } else {
            r = oroya_ik_solve_run(&(oroya_ik_solve_job){ik, w, q, out, NULL}, first ? NULL : &e);
        }
        if (r != OROYA_OK) {
            if (first == OROYA_OK) {
                first = r;
                if (err) {
                    oroya__fail(err, r, "iks[%u]: %s", i, e.message);
                }
            }
            continue;
        }
        if (!(ik->weight > 0)) {
            continue;
        }
        for (uint32_t k = 0; k < n; k++) {
            tr[ik->joints[k]].rotation = out[k];
        }
        oroya__scene_update_world_from(scene, ik->joints[0]);
    }
    return first;
}

/* ---- the pose kernel path ---------------------------------------------------------------- */

static const char *skeleton_name(const void *ctx, uint32_t joint) {
    const oroya_pose_skeleton *s = ctx;
    return s->names ? s->names[joint] : NULL;
}

/* ctx: the locals (SoA blocks). */
static bool soa_negative_scale(const void *ctx, uint32_t joint) {
    const oroya_soa_transform *b = &((const oroya_soa_transform *)ctx)[joint / 4];
    const uint32_t i = joint % 4;
    return b->sx[i] < 0 || b->sy[i] < 0 || b->sz[i] < 0;
}

static oroya_quat soa_rotation(const oroya_soa_transform *locals, uint32_t j) {
    const oroya_soa_transform *b = &locals[j / 4];
    const uint32_t i = j % 4;
    return (oroya_quat){b->qx[i], b->qy[i], b->qz[i], b->qw[i]};
}

/* Joints on the path from a chain's first joint to its end, at most this many: longer paths
 * run the IKs after local-to-model instead (oroya__ik_run_character). */
#define IK_PATH_MAX 64

/* The path from ik->joints[0] down to the chain's end, first joint first, in path (at most
 * IK_PATH_MAX joints); 0 when it is longer or not a parent chain. */
static uint32_t chain_path(const oroya_pose_skeleton *s, const oroya_ik *ik, uint32_t n,
                           uint32_t *path) {
    uint32_t rev[IK_PATH_MAX], len = 0;
    for (uint32_t j = ik->joints[n - 1];; j = s->parents[j]) {
        if (j >= s->joint_count || len == IK_PATH_MAX) {
            return 0;
        }
        rev[len++] = j;
        if (j == ik->joints[0]) {
            break;
        }
    }
    for (uint32_t k = 0; k < len; k++) {
        path[k] = rev[len - 1 - k];
    }
    return len;
}

/* Whether the IKs may run inside local-to-model (oroya__ik_run_roots), which takes them in
 * the order of their first joints: the same result as list order when no IK comes after one
 * whose first joint is below its own (that one would have moved it), and every chain's path
 * is short enough. */
static bool in_pass_allowed(const oroya_pose_skeleton *s, const oroya_ik *iks, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        uint32_t path[IK_PATH_MAX];
        if (!chain_path(s, &iks[i], chain_count(&iks[i]), path)) {
            return false;
        }
        for (uint32_t k = i + 1; k < count; k++) {
            /* iks[k] runs after iks[i] in the list; is its first joint a proper ancestor of
             * iks[i]'s? */
            for (uint32_t j = s->parents[iks[i].joints[0]]; j < s->joint_count; j = s->parents[j]) {
                if (j == iks[k].joints[0]) {
                    return false;
                }
            }
        }
    }
    return true;
}

oroya_result oroya__ik_pose_validate(const oroya_pose_skeleton *s,
                                     const oroya_soa_transform *locals, const oroya_mat4 *models,
                                     const oroya_ik *iks, uint32_t count, oroya_error *err) {
    for (uint32_t i = 0; i < count; i++) {
        oroya_quat q[OROYA_IK_MAX_CHAIN] = {{0, 0, 0, 1}};
        bool in_range = iks[i].joint_count <= OROYA_IK_MAX_CHAIN;
        for (uint32_t k = 0; in_range && k < chain_count(&iks[i]); k++) {
            in_range = iks[i].joints[k] < s->joint_count;
            if (in_range) {
                q[k] = soa_rotation(locals, iks[i].joints[k]);
            }
        }
        oroya_result r = validate_on(&iks[i], i, s->parents, s->joint_count, models, q,
                                     skeleton_name, s, soa_negative_scale, locals, err);
        if (r != OROYA_OK) {
            return r;
        }
    }
    return OROYA_OK;
}

oroya_result oroya__ik_plan_create(const oroya_pose_skeleton *s, const oroya_ik *iks,
                                   uint32_t count, const oroya_allocator *allocator,
                                   oroya__ik_plan **out) {
    *out = NULL;
    if (count == 0 || !in_pass_allowed(s, iks, count)) {
        return OROYA_OK;
    }
    size_t path_total = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t path[IK_PATH_MAX];
        path_total += chain_path(s, &iks[i], chain_count(&iks[i]), path);
    }
    /* One block: the plan, the roots (at most one per IK), the entries, the paths. */
    const size_t o_roots = (sizeof(oroya__ik_plan) + 7) & ~(size_t)7;
    const size_t o_entries = o_roots + (size_t)count * sizeof(oroya__ik_plan_root);
    const size_t o_paths = o_entries + (size_t)count * sizeof(oroya__ik_plan_entry);
    const size_t size = o_paths + path_total * sizeof(uint32_t);
    uint8_t *mem = oroya__alloc(allocator, size, 8);
    if (!mem) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    oroya__ik_plan *plan = (oroya__ik_plan *)mem;
    oroya__ik_plan_root *roots = (oroya__ik_plan_root *)(mem + o_roots);
    oroya__ik_plan_entry *entries = (oroya__ik_plan_entry *)(mem + o_entries);
    uint32_t *paths = (uint32_t *)(mem + o_paths);
    /* The entries in list order, then sorted by first joint, stably (insertion: the list
     * order stays within a root). */
    uint32_t off = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t len = chain_path(s, &iks[i], chain_count(&iks[i]), paths + off);
        oroya__ik_plan_entry e = {i, off, len};
        uint32_t k = i;
        for (; k > 0 && iks[entries[k - 1].ik].joints[0] > iks[i].joints[0]; k--) {
            entries[k] = entries[k - 1];
        }
        entries[k] = e;
        off += len;
    }
    uint32_t root_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t j = iks[entries[i].ik].joints[0];
        if (root_count == 0 || roots[root_count - 1].joint != j) {
            roots[root_count++] = (oroya__ik_plan_root){j, s->parents[j], i, 0};
        }
        roots[root_count - 1].count++;
    }
    *plan = (oroya__ik_plan){root_count, roots, entries, paths};
    *out = plan;
    return OROYA_OK;
}

oroya_result oroya_pose_character_set_ik(oroya_pose_character *c, const oroya_ik *iks,
                                         uint32_t count, oroya_error *err) {
    if (!c || (count && !iks)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_character_set_ik: character and iks are required");
    }
    oroya_result r = oroya__ik_pose_validate(c->skeleton, c->locals, c->models, iks, count, err);
    if (r != OROYA_OK) {
        return r;
    }
    oroya__ik_plan *plan = NULL;
    if (oroya__ik_plan_create(c->skeleton, iks, count, &c->allocator, &plan) != OROYA_OK) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                           "oroya_pose_character_set_ik: no memory for the IKs' plan");
    }
    oroya__free(&c->allocator, c->ik_plan);
    c->ik = count ? iks : NULL;
    c->ik_count = count;
    c->ik_plan = plan;
    c->ik_report = (oroya__ik_report){0, UINT32_MAX};
    return OROYA_OK;
}

uint32_t oroya_pose_character_ik_fallbacks(const oroya_pose_character *c, uint32_t *first) {
    return oroya__ik_report_get(c ? &c->ik_report : NULL, c ? c->ik_count : 0, first);
}

/* The model and bone matrices of joint j from its parent's model matrix p (NULL: the
 * identity), with the arithmetic of the kernel's local-to-model (src/internal/pose_kernel.h:
 * ltm_pair's compose, then ltm_joint's products in the same order), so a joint gives the same
 * bits whichever computes it. Writes the model to m (4 columns) and, when bone is not NULL,
 * bone = m * inverse_bind. */
HOT void ltm_one(const oroya__ik_pose *c, uint32_t j, const float *p, v4 m[4], float *bone) {
    const oroya_soa_transform *b = &c->locals[j / 4];
    const uint32_t i = j % 4;
    const float x = b->qx[i], y = b->qy[i], z = b->qz[i], w = b->qw[i];
    const float x2 = x * 2.0f, y2 = y * 2.0f, z2 = z * 2.0f;
    const float xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
    const float wx = w * x2, wy = w * y2, wz = w * z2;
    const float sx = b->sx[i], sy = b->sy[i], sz = b->sz[i];
    const float l[12] = {(1.0f - (yy + zz)) * sx, (xy + wz) * sx, (xz - wy) * sx, (xy - wz) * sy,
                         (1.0f - (xx + zz)) * sy, (yz + wx) * sy, (xz + wy) * sz, (yz - wx) * sz,
                         (1.0f - (xx + yy)) * sz, b->tx[i],       b->ty[i],       b->tz[i]};
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float *pm = p ? p : identity;
    const v4 p0 = v4_loadu(pm), p1 = v4_loadu(pm + 4), p2 = v4_loadu(pm + 8);
    const v4 p3 = v4_loadu(pm + 12);
    m[0] = v4_add(v4_mul(p0, v4_set1(l[0])),
                  v4_add(v4_mul(p1, v4_set1(l[1])), v4_mul(p2, v4_set1(l[2]))));
    m[1] = v4_add(v4_mul(p0, v4_set1(l[3])),
                  v4_add(v4_mul(p1, v4_set1(l[4])), v4_mul(p2, v4_set1(l[5]))));
    m[2] = v4_add(v4_mul(p0, v4_set1(l[6])),
                  v4_add(v4_mul(p1, v4_set1(l[7])), v4_mul(p2, v4_set1(l[8]))));
    m[3] = v4_add(v4_mul(p0, v4_set1(l[9])),
                  v4_add(v4_mul(p1, v4_set1(l[10])), v4_add(v4_mul(p2, v4_set1(l[11])), p3)));
    if (!bone) {
        return;
    }
    const float *ib = c->skeleton->inverse_bind[j].m;
    for (int k = 0; k < 4; k++) {
        const float *v = ib + k * 4;
        v4 r = v4_add(v4_mul(m[0], v4_set1(v[0])),
                      v4_add(v4_mul(m[1], v4_set1(v[1])),
                             v4_add(v4_mul(m[2], v4_set1(v[2])), v4_mul(m[3], v4_set1(v[3])))));
        v4_storeu(bone + k * 4, r);
    }
}

/* Only the translation column of joint j's model matrix (ltm_one's m[3], the same
 * arithmetic), from its parent's model matrix p (NULL: the identity): a chain's end joint,
 * whose rotation the solve takes from the local rotations, needs only its position. */
HOT void ltm_translation(const oroya__ik_pose *c, uint32_t j, const float *p, float *out) {
    const oroya_soa_transform *b = &c->locals[j / 4];
    const uint32_t i = j % 4;
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float *pm = p ? p : identity;
    const v4 p0 = v4_loadu(pm), p1 = v4_loadu(pm + 4), p2 = v4_loadu(pm + 8);
    const v4 p3 = v4_loadu(pm + 12);
    _Alignas(16) float t[4];
    v4_storeu(t, v4_add(v4_mul(p0, v4_set1(b->tx[i])),
                        v4_add(v4_mul(p1, v4_set1(b->ty[i])),
                               v4_add(v4_mul(p2, v4_set1(b->tz[i])), p3))));
    out[0] = t[0], out[1] = t[1], out[2] = t[2];
}

/* Joint j's model and bone matrices again, from its parent's model matrix. */
HOT void ltm_store(const oroya__ik_pose *c, uint32_t j) {
    const oroya_pose_skeleton *s = c->skeleton;
    const uint32_t p = s->parents[j];
    v4 m[4];
    /* The bone matrix goes to the joint's slot (a rig's palette order), as in the kernel. */
    const uint32_t slot = s->bone_slots_identity ? j : s->bone_slots[j];
    ltm_one(c, j, p == UINT32_MAX ? NULL : c->models[p].m, m, c->bones[slot].m);
    for (int k = 0; k < 4; k++) {
        v4_storeu(c->models[j].m + k * 4, m[k]);
    }
}

/* The IK's chain, checked cheaply (the joints may have been changed since set_ik), or 0. */
static uint32_t character_chain(const oroya__ik_pose *c, const oroya_ik *ik) {
    const uint32_t n = ik->joint_count <= OROYA_IK_MAX_CHAIN ? chain_count(ik) : 0;
    bool ok = n > 0 && ik->weight > 0;
    for (uint32_t k = 0; ok && k < n; k++) {
        ok = ik->joints[k] < c->skeleton->joint_count;
    }
    return ok ? n : 0;
}

/* IK `index` (list order) is on this frame (weight not <= 0: a NaN weight is on, to be
 * reported) and left its chain as blended: counted for *_ik_fallbacks. */
static void note_fallback(const oroya__ik_pose *c, uint32_t index) {
    if (c->report && !(c->ik[index].weight <= 0)) {
        c->report->count++;
        c->report->first = index < c->report->first ? index : c->report->first;
    }
}

/* Writes an IK's rotations into the SoA locals (and marks them changed). */
HOT void write_rotations(const oroya__ik_pose *c, const oroya_ik *ik, uint32_t n,
                         const oroya_quat *q) {
    for (uint32_t i = 0; i < n; i++) {
        oroya_soa_transform *b = &c->locals[ik->joints[i] / 4];
        const uint32_t lane = ik->joints[i] % 4;
        b->qx[lane] = q[i].x, b->qy[lane] = q[i].y, b->qz[lane] = q[i].z, b->qw[lane] = q[i].w;
        if (c->changed) {
            c->changed[ik->joints[i] / 4] |= (uint16_t)(1u << (4 + lane));
        }
    }
}

/* Solves one IK whose chain's joints have the model matrices w (chain order) and writes the
 * rotations into the SoA locals. The chain's world rotations come from its first joint's
 * parent (one matrix to rotation, `parent`: its model matrix, NULL for the identity) and the
 * local rotations along the path (path[0..len): the first joint down to the end), so no other
 * matrix is decomposed. False on a fallback (the pose left as it was). */
/* Whether the local rotations on the path are unit within float rounding: products of them
 * then give the pass's world rotations. A rotation that is not (a zero or scaled quaternion:
 * the pass composes it as it is, and its matrix is no rotation times a scale) makes the
 * chain's frames come from the matrices. The end's rotation counts only where the solve reads
 * it: an aim's forward axis, a two-bone IK's end rotation. */
static bool path_unit(const oroya__ik_pose *c, const oroya_ik *ik, const uint32_t *path,
                      uint32_t len) {
    const bool end_read = ik->type == OROYA_IK_AIM || ik->has_target_rotation;
    for (uint32_t e = 0; e + (end_read ? 0 : 1) < len; e++) {
        const oroya_quat l = soa_rotation(c->locals, path[e]);
        if (!(fabsf(l.x * l.x + l.y * l.y + l.z * l.z + l.w * l.w - 1.0f) <= 1e-6f)) {
            return false;
        }
    }
    return true;
}

IK_CLONES static bool character_solve(const oroya__ik_pose *c, const oroya_ik *ik, uint32_t n,
                                      const float *const *w, const dq *parent_q,
                                      const uint32_t *path, uint32_t len, bool from_matrices) {
    oroya_quat q[OROYA_IK_MAX_CHAIN] = {{0, 0, 0, 1}};
    frame f[OROYA_IK_MAX_CHAIN];
    /* A negative scale on the path (the set-up refuses it; a clip may bring it): a fallback,
     * as on the scene path. */
    for (uint32_t e = 0; e < len; e++) {
        if (soa_negative_scale(c->locals, path[e])) {
            return false;
        }
    }
    if (from_matrices) {
        /* The chain's joints on the path, in order (the joints may have changed since set_ik),
         * as the product walk below requires. */
        uint32_t on = 0;
        for (uint32_t e = 0; e < len && on < n; e++) {
            on += path[e] == ik->joints[on];
        }
        if (on != n) {
            return false;
        }
        /* Every chain joint's matrix is whole (ik_run_root computes them so): its frame. */
        for (uint32_t k = 0; k < n; k++) {
            oroya_mat4 m;
            memcpy(m.m, w[k], sizeof m.m);
            if (!frame_of(&m, &f[k])) {
                return false;
            }
            q[k] = soa_rotation(c->locals, ik->joints[k]);
        }
        if (solve_frames(ik, n, w[n - 1], f, q, q, NULL, NULL, NULL) != OROYA_OK) {
            return false;
        }
        /* As below: a two-bone IK with no end rotation leaves its end joint's bits. */
        write_rotations(c, ik,
                        ik->type == OROYA_IK_TWO_BONE && !ik->has_target_rotation ? n - 1 : n, q);
        return true;
    }
    dq qa = *parent_q;
    uint32_t k = 0;
    double sum = 0;
    /* A two-bone IK with no end rotation reads only its end joint's position: the world
     * rotations past the middle joint are not built. */
    const uint32_t rotated = ik->type == OROYA_IK_TWO_BONE && !ik->has_target_rotation ? n - 1 : n;
    for (uint32_t e = 0; e < len && k < n; e++) {
        const uint32_t j = path[e];
        const oroya_quat lq = soa_rotation(c->locals, j);
        if (k < rotated) {
            qa = qmul(qa, of_quat(lq));
        }
        if (j == ik->joints[k]) {
            /* The product of unit rotations, normalized once per chain joint (the locals are
             * float). */
            if (k < rotated) {
                qa = qnorm(qa);
            }
            const float *m = w[k];
            f[k].p = v3(m[12], m[13], m[14]);
            f[k].q = qa;
            q[k] = lq;
            /* One test for the whole chain below: a NaN or infinity anywhere makes the sum
             * not finite. */
            sum += f[k].p.x + f[k].p.y + f[k].p.z + qa.x + qa.y + qa.z + qa.w;
            k++;
        }
    }
    if (k != n || !isfinite(sum) ||
        solve_frames(ik, n, w[n - 1], f, q, q, NULL, NULL, NULL) != OROYA_OK) {
        return false;
    }
    /* The end joint of such a two-bone IK keeps its rotation bit for bit: not written back
     * (nor marked changed). */
    write_rotations(c, ik, rotated, q);
    return true;
}

/* frame_of's rotation in float, for the pass's parents: the matrix is float and the chains
 * the float paths walk from it are float, and a solve waits on this (square roots and
 * divisions in double take longer). Only for columns of length 1e-10 to 1e10 and a finite
 * matrix (false: frame_of decides). */
HOT bool frame_rotation_f(const float *a, float *out) {
    const float l0 = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    const float l1 = a[4] * a[4] + a[5] * a[5] + a[6] * a[6];
    const float l2 = a[8] * a[8] + a[9] * a[9] + a[10] * a[10];
    if (!(l0 >= 1e-20f && l0 <= 1e20f && l1 >= 1e-20f && l1 <= 1e20f && l2 >= 1e-20f &&
          l2 <= 1e20f) ||
        !isfinite(a[12] + a[13] + a[14])) {
        return false;
    }
    const float r0 = 1.0f / sqrtf(l0), r1 = 1.0f / sqrtf(l1), r2 = 1.0f / sqrtf(l2);
    const float m00 = a[0] * r0, m10 = a[1] * r0, m20 = a[2] * r0;
    const float m01 = a[4] * r1, m11 = a[5] * r1, m21 = a[6] * r1;
    const float m02 = a[8] * r2, m12 = a[9] * r2, m22 = a[10] * r2;
    /* A reflection: frame_of decides (and refuses it). */
    if (!(m00 * (m11 * m22 - m21 * m12) - m01 * (m10 * m22 - m20 * m12) +
              m02 * (m10 * m21 - m20 * m11) >
          0)) {
        return false;
    }
    const float tr = m00 + m11 + m22;
    float q[4];
    if (tr > 0) {
        const float s = 2 * sqrtf(tr + 1), r = 1 / s;
        q[0] = (m21 - m12) * r, q[1] = (m02 - m20) * r, q[2] = (m10 - m01) * r, q[3] = 0.25f * s;
    } else if (m00 > m11 && m00 > m22) {
        const float s = 2 * sqrtf(1 + m00 - m11 - m22), r = 1 / s;
        q[0] = 0.25f * s, q[1] = (m01 + m10) * r, q[2] = (m02 + m20) * r, q[3] = (m21 - m12) * r;
    } else if (m11 > m22) {
        const float s = 2 * sqrtf(1 + m11 - m00 - m22), r = 1 / s;
        q[0] = (m01 + m10) * r, q[1] = 0.25f * s, q[2] = (m12 + m21) * r, q[3] = (m02 - m20) * r;
    } else {
        const float s = 2 * sqrtf(1 + m22 - m00 - m11), r = 1 / s;
        q[0] = (m02 + m20) * r, q[1] = (m12 + m21) * r, q[2] = 0.25f * s, q[3] = (m10 - m01) * r;
    }
    const float n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(n2 > 0.25f)) {
        return false; /* not a rotation (rounding cannot make it so short) */
    }
    const float k = 1 / sqrtf(n2);
    out[0] = q[0] * k, out[1] = q[1] * k, out[2] = q[2] * k, out[3] = q[3] * k;
    return true;
}

/* The world rotation of joint par (model matrix pm, NULL at a skeleton root: the identity),
 * decomposed once per pass and parent (both legs hang from the hips); false when the matrix
 * has no rotation. */
HOT bool parent_rotation(const oroya_mat4 *pm, uint32_t par, oroya__ik_parent_cache *cache) {
    if (!cache->set || cache->joint != par) {
        frame pf = {v3(0, 0, 0), qid()};
        float pq[4];
        cache->set = true;
        cache->joint = par;
        if (pm && frame_rotation_f(pm->m, pq)) {
            cache->ok = true;
            cache->q[0] = pq[0], cache->q[1] = pq[1], cache->q[2] = pq[2], cache->q[3] = pq[3];
            return true;
        }
        cache->ok = !pm || frame_of(pm, &pf);
        cache->q[0] = pf.q.x, cache->q[1] = pf.q.y, cache->q[2] = pf.q.z, cache->q[3] = pf.q.w;
    }
    return cache->ok;
}

/* The chain of a two-bone IK for the float path in the pass (fast_two_bone): straight from the
 * SoA locals, positions and world rotations by float quaternions from the parent's model
 * matrix p (NULL: the identity) and world rotation, which needs unit scale (within 1e-6) on
 * the path's joints above the end. False when the case needs the double solver (nothing
 * written). */
HOT bool walk_two_bone(const oroya__ik_pose *c, const oroya_ik *ik, const uint32_t *path,
                       uint32_t len, const float *p, const oroya__ik_parent_cache *cache,
                       fchain2 *chain) {
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float *pm = p ? p : identity;
    const v4 cols[3] = {v4_loadu(pm), v4_loadu(pm + 4), v4_loadu(pm + 8)};
    const oroya_soa_transform *bl = &c->locals[path[0] / 4];
    uint32_t i = path[0] % 4;
    const v4 a = v4_add(q4_mat(cols, soa_t4(bl, i)), v4_loadu(pm + 12));
    const v4 l0 = soa_q4(bl, i);
    v4 rel = l0, relb = rel, l1 = rel;
    /* The path's offsets in the parent's frame: x, at the middle joint xb. */
    v4 x = v4_zero(), xb = x;
    bool mid = false;
    for (uint32_t e = 1; e < len; e++) {
        if (!(fabsf(bl->sx[i] - 1.0f) <= 1e-6f && fabsf(bl->sy[i] - 1.0f) <= 1e-6f &&
              fabsf(bl->sz[i] - 1.0f) <= 1e-6f)) {
            return false;
        }
        const uint32_t j = path[e];
        bl = &c->locals[j / 4], i = j % 4;
        x = v4_add(x, q4_rot(rel, soa_t4(bl, i)));
        if (e + 1 < len) {
            const v4 lj = soa_q4(bl, i);
            rel = q4_mul(rel, lj);
            if (!mid && j == ik->joints[1]) {
                l1 = lj, xb = x, relb = rel, mid = true;
            } else if (!(fabsf(q4_dot3(lj, lj) + q4_lane(lj, 3) * q4_lane(lj, 3) - 1.0f) <=
                         1e-6f)) {
                return false; /* a joint between the chain's: rotations as unit, or the matrices */
            }
        }
    }
    const float n0 = q4_dot3(l0, l0) + q4_lane(l0, 3) * q4_lane(l0, 3);
    const float n1 = q4_dot3(l1, l1) + q4_lane(l1, 3) * q4_lane(l1, 3);
    /* The joints above the end have unit scale; the end's may not be negative (a fallback on
     * every path, character_solve). */
    if (!mid || !(fabsf(n0 - 1.0f) <= 1e-6f) || !(fabsf(n1 - 1.0f) <= 1e-6f) || bl->sx[i] < 0 ||
        bl->sy[i] < 0 || bl->sz[i] < 0) {
        return false;
    }
    /* Positions: the parent's matrix times the first joint's translation, then its linear
     * part (scale included) times the offsets; w = 0. */
    const v4 xyz = q4_set(1.0f, 1.0f, 1.0f, 0.0f);
    const v4 pq =
        q4_set((float)cache->q[0], (float)cache->q[1], (float)cache->q[2], (float)cache->q[3]);
    const v4 a0 = v4_mul(a, xyz);
    *chain = (fchain2){a0,
                       v4_mul(v4_add(a0, q4_mat(cols, xb)), xyz),
                       v4_mul(v4_add(a0, q4_mat(cols, x)), xyz),
                       q4_mul(pq, l0),
                       q4_mul(pq, relb),
                       l0,
                       l1};
    return isfinite(q4_dot3(v4_add(v4_add(chain->a, chain->b), chain->c), xyz));
}

/* walk_two_bone, then the float solve: false when the case needs the double solver (nothing
 * written). */
HOT bool run_fast_two_bone(const oroya__ik_pose *c, const oroya_ik *ik, const uint32_t *path,
                           uint32_t len, const float *p, const oroya__ik_parent_cache *cache) {
    fchain2 in;
    oroya_quat out[2];
    bool reached;
    if (!walk_two_bone(c, ik, path, len, p, cache, &in) || !fast_two_bone(ik, &in, out, &reached)) {
        return false;
    }
    write_rotations(c, ik, 2, out);
    return true;
}

typedef enum { AIM_WALK_NO, AIM_WALK_SOLVED, AIM_WALK_FELL_BACK } aim_walk;
/* run_aim_walk's double solver (the float path did not apply or sent the chain back). */
COLD aim_walk aim_walk_double(const oroya__ik_pose *c, const oroya_ik *ik, uint32_t n, v4 a,
                              const v4 *cols, v4 pq, const v4 *xs, const v4 *rs, oroya_quat *q) {
    uint32_t k;
    for (k = 0; k < n; k++) {
        const float l2 = q[k].x * q[k].x + q[k].y * q[k].y + q[k].z * q[k].z + q[k].w * q[k].w;
        if (!(fabsf(l2 - 1.0f) <= 1e-6f)) {
            return AIM_WALK_NO; /* the matrices, as the pass (the end's: the forward axis) */
        }
    }
    frame f[OROYA_IK_MAX_CHAIN];
    double sum = 0;
    for (k = 0; k < n; k++) {
        const fv3 pk = fv3_of4(v4_add(a, q4_mat(cols, xs[k])));
        const fq wq = fq_of4(q4_mul(pq, rs[k]));
        f[k].p = v3(pk.x, pk.y, pk.z);
        f[k].q = qnorm((dq){wq.x, wq.y, wq.z, wq.w});
        sum += f[k].p.x + f[k].p.y + f[k].p.z + wq.x + wq.y + wq.z + wq.w;
    }
    /* No offset: the solve reads only the last joint's position of its matrix. */
    float last[16] = {0};
    last[12] = (float)f[n - 1].p.x, last[13] = (float)f[n - 1].p.y, last[14] = (float)f[n - 1].p.z;
    if (!isfinite(sum) || solve_frames(ik, n, last, f, q, q, NULL, NULL, NULL) != OROYA_OK) {
        return AIM_WALK_FELL_BACK; /* the chain left as blended, as character_solve does */
    }
    write_rotations(c, ik, n, q);
    return AIM_WALK_SOLVED;
}

/* The chain of an aim IK with no eye offset straight from the SoA locals, for the double
 * solver: each chain joint's position and world rotation by float quaternions from the
 * parent's model matrix p (NULL: the identity) and world rotation, as run_fast_two_bone
 * walks its chain (unit scale within 1e-6 on the path's joints above the end), so the path's
 * matrices are not computed ahead. False when the walk does not apply (nothing written). */
HOT aim_walk run_aim_walk(const oroya__ik_pose *c, const oroya_ik *ik, uint32_t n,
                          const uint32_t *path, uint32_t len, const float *p,
                          const oroya__ik_parent_cache *cache, tb_state *side) {
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float *pm = p ? p : identity;
    const v4 cols[3] = {v4_loadu(pm), v4_loadu(pm + 4), v4_loadu(pm + 8)};
    const oroya_soa_transform *bl = &c->locals[path[0] / 4];
    uint32_t i = path[0] % 4;
    const v4 a = v4_add(q4_mat(cols, soa_t4(bl, i)), v4_loadu(pm + 12));
    const v4 pq =
        q4_set((float)cache->q[0], (float)cache->q[1], (float)cache->q[2], (float)cache->q[3]);
    oroya_quat q[OROYA_IK_MAX_CHAIN];
    v4 xs[OROYA_IK_MAX_CHAIN], rs[OROYA_IK_MAX_CHAIN];
    q[0] = soa_rotation(c->locals, path[0]);
    v4 rel = soa_q4(bl, i), x = v4_zero();
    xs[0] = x, rs[0] = rel;
    uint32_t k = 1;
    /* The positions come from products of the path's rotations above the end, which match
     * the pass's matrices only for unit rotations: otherwise the matrices (AIM_WALK_NO).
     * Joints between the chain's are checked here, the chain's own below. */
    bool unit_path = true;
    for (uint32_t e = 1; e < len && k < n; e++) {
        if (!(fabsf(bl->sx[i] - 1.0f) <= 1e-6f && fabsf(bl->sy[i] - 1.0f) <= 1e-6f &&
              fabsf(bl->sz[i] - 1.0f) <= 1e-6f)) {
            return AIM_WALK_NO;
        }
        const uint32_t j = path[e];
        bl = &c->locals[j / 4], i = j % 4;
        x = v4_add(x, q4_rot(rel, soa_t4(bl, i)));
        const v4 lj = soa_q4(bl, i);
        rel = q4_mul(rel, lj);
        if (j == ik->joints[k]) {
            xs[k] = x, rs[k] = rel, q[k] = soa_rotation(c->locals, j);
            k++;
        } else {
            unit_path = unit_path &&
                        fabsf(q4_dot3(lj, lj) + q4_lane(lj, 3) * q4_lane(lj, 3) - 1.0f) <= 1e-6f;
        }
    }
    /* The end's own scale: a negative one turns the forward axis (the double path then
     * falls back, character_solve). The joints above it have unit scale here. */
    if (k != n || !unit_path || bl->sx[i] < 0 || bl->sy[i] < 0 || bl->sz[i] < 0) {
        return AIM_WALK_NO;
    }
    if (fast_aim_applies(ik)) {
        const v4 xyz = q4_set(1.0f, 1.0f, 1.0f, 0.0f);
        v4 fp[OROYA_IK_MAX_CHAIN], fqw[OROYA_IK_MAX_CHAIN], fl[OROYA_IK_MAX_CHAIN];
        bool unit = true;
        float fin = 0;
        for (k = 0; k < n; k++) {
            fp[k] = v4_mul(v4_add(a, q4_mat(cols, xs[k])), xyz);
            fqw[k] = q4_normalize(q4_mul(pq, rs[k]));
            fl[k] = q4_set(q[k].x, q[k].y, q[k].z, q[k].w);
            const float l2 = q[k].x * q[k].x + q[k].y * q[k].y + q[k].z * q[k].z + q[k].w * q[k].w;
            unit = unit && fabsf(l2 - 1.0f) <= 1e-6f;
            fin += q4_dot3(v4_add(fp[k], fqw[k]), xyz) + q4_lane(fqw[k], 3);
        }
        oroya_quat out[OROYA_IK_MAX_CHAIN];
        if (unit && isfinite(fin) && fast_aim(ik, n, fp, fqw, fl, out, NULL, side)) {
            write_rotations(c, ik, n, out);
            return AIM_WALK_SOLVED;
        }
    }
    return aim_walk_double(c, ik, n, a, cols, pq, xs, rs, q);
}

/* ik_run_root's double solver: the IKs the float paths do not take. False on a fallback. */
COLD bool run_double(const oroya__ik_pose *c, const oroya_ik *ik, uint32_t n, const uint32_t *path,
                     uint32_t len, const oroya_mat4 *pm, uint32_t par,
                     oroya__ik_parent_cache *cache) {
    /* The double solver: the path's matrices from the blended locals, as the pass will
     * compute them. A chain joint's matrix goes to its own slot, a joint between chain
     * joints to scratch: pointers, no copies. */
    oroya_mat4 mats[OROYA_IK_MAX_CHAIN], scratch;
    const float *w[OROYA_IK_MAX_CHAIN];
    v4 m[4];
    const float *prev = pm ? pm->m : NULL;
    uint32_t k = 0;
    /* The end joint's position is all the solve reads of its matrix (its rotation comes
     * from the local rotations), unless an aim's eye offset goes through it. */
    const bool unit = path_unit(c, ik, path, len);
    const bool end_position_only =
        unit && (ik->type == OROYA_IK_TWO_BONE ||
                 (ik->offset.x == 0 && ik->offset.y == 0 && ik->offset.z == 0));
    for (uint32_t e = 0; e < len; e++) {
        const uint32_t j = path[e];
        const bool chain_joint = j == ik->joints[k];
        float *dst = chain_joint ? mats[k].m : scratch.m;
        if (e + 1 == len && end_position_only) {
            ltm_translation(c, j, prev, dst + 12);
        } else {
            ltm_one(c, j, prev, m, NULL);
            for (int col = 0; col < 4; col++) {
                v4_storeu(dst + col * 4, m[col]);
            }
        }
        prev = dst;
        if (chain_joint) {
            w[k++] = prev;
        }
    }
    /* The parent's world rotation: decomposed once per pass and parent (both legs hang
     * from the hips), the identity at a skeleton root. */
    bool solved = false;
    if (k == n && parent_rotation(pm, par, cache)) {
        const dq pq = {cache->q[0], cache->q[1], cache->q[2], cache->q[3]};
        solved = character_solve(c, ik, n, w, &pq, path, len, !unit);
    }
    return solved;
}

/* A root's IKs, in list order: the float paths where they apply (the two-bone one only when
 * two_bone_float; side: a two-bone solve to run between a float aim chain's joints, or NULL),
 * else the double solver. Static, so that the clones' ifunc stays local: GCC exports a
 * target_clones resolver of a global function whatever its visibility. */
static IK_CLONES void ik_run_root(const oroya__ik_pose *c, const oroya__ik_plan_root *rt,
                                  oroya__ik_parent_cache *cache, tb_state *side,
                                  bool two_bone_float) {
    const uint32_t root = rt->joint;
    const oroya__ik_plan_entry *const entries = c->plan->entries + rt->first;
    for (uint32_t i = 0; i < rt->count; i++) {
        const oroya_ik *ik = &c->ik[entries[i].ik];
        /* The joints need no check of their own here: the plan's path was made by chain_path
         * from the end joint up to root at set-up, it is used only while the chain's first
         * and end joints are still its ends (the joints may have been changed since set_ik:
         * the path between them is then the same), and the chain is solved only when each
         * of its joints is on that path (k == n below). */
        const uint32_t n =
            ik->joint_count <= OROYA_IK_MAX_CHAIN && ik->weight > 0 ? chain_count(ik) : 0;
        const uint32_t *const path = c->plan->paths + entries[i].path_off;
        const uint32_t len = entries[i].path_len;
        if (!n || ik->joints[0] != root || ik->joints[n - 1] != path[len - 1]) {
            note_fallback(c, entries[i].ik);
            continue;
        }
        /* The parent is computed. */
        const uint32_t par = rt->parent;
        const oroya_mat4 *pm = par == UINT32_MAX ? NULL : &c->models[par];
        if (two_bone_float && fast_two_bone_applies(ik) && parent_rotation(pm, par, cache) &&
            run_fast_two_bone(c, ik, path, len, pm ? pm->m : NULL, cache)) {
            continue;
        }
        if (ik->type == OROYA_IK_AIM && ik->offset.x == 0 && ik->offset.y == 0 &&
            ik->offset.z == 0 && parent_rotation(pm, par, cache)) {
            const aim_walk r = run_aim_walk(c, ik, n, path, len, pm ? pm->m : NULL, cache, side);
            if (r == AIM_WALK_FELL_BACK) {
                note_fallback(c, entries[i].ik);
            }
            if (r != AIM_WALK_NO) {
                continue;
            }
        }
        if (!run_double(c, ik, n, path, len, pm, par, cache)) {
            note_fallback(c, entries[i].ik);
        }
    }
}

/* A two-bone IK on the float path that is its root's only IK, walked (walk_two_bone) into *in
 * after ik_run_root's checks of the chain's ends; false otherwise (nothing done). */
HOT bool two_bone_walked(const oroya__ik_pose *c, const oroya__ik_plan_root *rt,
                         oroya__ik_parent_cache *cache, fchain2 *in, const oroya_ik **out) {
    if (rt->count != 1) {
        return false;
    }
    const oroya__ik_plan_entry *e = c->plan->entries + rt->first;
    const oroya_ik *ik = &c->ik[e->ik];
    const uint32_t *path = c->plan->paths + e->path_off;
    const uint32_t len = e->path_len;
    const uint32_t n =
        ik->joint_count <= OROYA_IK_MAX_CHAIN && ik->weight > 0 ? chain_count(ik) : 0;
    const uint32_t par = rt->parent;
    const oroya_mat4 *pm = par == UINT32_MAX ? NULL : &c->models[par];
    if (!n || ik->joints[0] != rt->joint || ik->joints[n - 1] != path[len - 1] ||
        !fast_two_bone_applies(ik) || !parent_rotation(pm, par, cache) ||
        !walk_two_bone(c, ik, path, len, pm ? pm->m : NULL, cache, in)) {
        return false;
    }
    *out = ik;
    return true;
}

/* The IKs of one point of the pass (oroya__ik_run_roots; the roots are apart, so the order
 * does not matter). Two two-bone IKs on the float path are walked first and solved side by
 * side (tb_state), and the phases of that solve run between the joints of the first float
 * aim chain among the other roots (fast_aim's side), so the three chains of waits overlap.
 * Every other IK runs as ik_run_root runs it, and so does a chain the float solve sends back
 * (the double solver: neither is tried on the two-bone float path again). */
static IK_CLONES void ik_run_roots(const oroya__ik_pose *c, const oroya__ik_plan_root *roots,
                                   uint32_t count, oroya__ik_parent_cache *cache) {
    uint32_t r = 0;
    while (r < count) {
        /* The batch [r, e): up to two walked two-bone IKs, and the roots between and after
         * them up to the next two-bone IK. */
        const oroya_ik *tik[2];
        fchain2 tin[2];
        const oroya__ik_plan_root *trt[2] = {NULL, NULL};
        tb_state st;
        st.k = 0, st.phase = 0, st.ik = tik, st.in = tin;
        uint32_t e = r;
        for (; e < count; e++) {
            if (st.k == 2) {
                const oroya__ik_plan_root *rt = &roots[e];
                if (rt->count == 1 &&
                    fast_two_bone_applies(&c->ik[c->plan->entries[rt->first].ik])) {
                    break;
                }
                continue;
            }
            if (two_bone_walked(c, &roots[e], cache, &tin[st.k], &tik[st.k])) {
                trt[st.k++] = &roots[e];
            }
        }
        tb_state *side = st.k ? &st : NULL;
        for (uint32_t i = r; i < e; i++) {
            if (&roots[i] == trt[0] || &roots[i] == trt[1]) {
                continue;
            }
            /* A root of one IK was tried on the two-bone float path above (two_bone_walked). */
            ik_run_root(c, &roots[i], cache, side, roots[i].count != 1);
        }
        if (st.k) {
            fast_two_bone_finish(&st);
        }
        for (int k = 0; k < st.k; k++) {
            if (st.ok[k]) {
                write_rotations(c, tik[k], 2, st.out[k]);
            } else {
                ik_run_root(c, trt[k], cache, NULL, false);
            }
        }
        r = e;
    }
}

void oroya__ik_run_roots(const oroya__ik_pose *c, const oroya__ik_plan_root *roots, uint32_t count,
                         oroya__ik_parent_cache *cache) {
    ik_run_roots(c, roots, count, cache);
}

const oroya__ik_plan_root *oroya__ik_next_live(const oroya__ik_pose *c,
                                               const oroya__ik_plan_root *r,
                                               const oroya__ik_plan_root *rend) {
    for (; r != rend; r++) {
        for (uint32_t i = 0; i < r->count; i++) {
            if (!(c->ik[c->plan->entries[r->first + i].ik].weight <= 0)) {
                return r;
            }
        }
    }
    return rend;
}

/* After the kernel wrote locals, models and bones: each IK rewrites its chain's rotations,
 * then the model and bone matrices of its first joint's subtree are recomputed (a mark per
 * joint: parents come first, so one forward pass finds the subtree). */
void oroya__ik_run_after(const oroya__ik_pose *c) {
    const oroya_pose_skeleton *s = c->skeleton;
    const uint32_t joints = s->joint_count;
    uint8_t in[OROYA_POSE_MAX_JOINTS];
    for (uint32_t i = 0; i < c->count; i++) {
        const oroya_ik *ik = &c->ik[i];
        const uint32_t n = character_chain(c, ik);
        if (!n) {
            note_fallback(c, i);
            continue;
        }
        uint32_t path[IK_PATH_MAX];
        const uint32_t len = chain_path(s, ik, n, path);
        if (!len) {
            /* A path longer than IK_PATH_MAX: the solver on the chain's matrices; joints that
             * are no longer a parent chain: a fallback, as in the pass. */
            if (!is_parent_chain(s->parents, s->joint_count, ik, n) ||
                negative_scale_on_path(ik, n, s->parents, s->joint_count, soa_negative_scale,
                                       c->locals) != UINT32_MAX) {
                note_fallback(c, i);
                continue;
            }
            oroya_mat4 w[OROYA_IK_MAX_CHAIN];
            oroya_quat q[OROYA_IK_MAX_CHAIN];
            for (uint32_t k = 0; k < n; k++) {
                w[k] = c->models[ik->joints[k]];
                q[k] = soa_rotation(c->locals, ik->joints[k]);
            }
            if (oroya_ik_solve_run(&(oroya_ik_solve_job){ik, w, q, q, NULL}, NULL) != OROYA_OK) {
                note_fallback(c, i);
                continue;
            }
            write_rotations(c, ik, n, q);
        } else {
            const float *w[OROYA_IK_MAX_CHAIN];
            for (uint32_t k = 0; k < n; k++) {
                w[k] = c->models[ik->joints[k]].m;
            }
            const uint32_t par = s->parents[ik->joints[0]];
            frame pf = {v3(0, 0, 0), qid()};
            if ((par != UINT32_MAX && !frame_of(&c->models[par], &pf)) ||
                !character_solve(c, ik, n, w, &pf.q, path, len, !path_unit(c, ik, path, len))) {
                note_fallback(c, i);
                continue;
            }
        }
        const uint32_t root = ik->joints[0];
        in[root] = 1;
        for (uint32_t j = root; j < joints; j++) {
            const uint32_t p = s->parents[j];
            if (j != root) {
                in[j] = (uint8_t)(p != UINT32_MAX && p >= root && in[p]);
            }
            if (in[j]) {
                ltm_store(c, j);
            }
        }
    }
}
