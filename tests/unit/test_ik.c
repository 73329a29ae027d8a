/* Inverse kinematics (oroya/ik.h): property tests on random chains, proportions and targets,
 * the validity table, run-time fallbacks, and the scene and pose-kernel hooks against each
 * other. */
#include "oroya/ik.h"
#include "oroya/pose.h"
#include "oroya/scene.h"

#include "internal/ik.h"   /* oroya__ik_quat_pow: the aim chain's partial turn */
#include "internal/pose.h" /* oroya__pose_run_update: the kernel of one width */
#include "oroya_test.h"

#include <stdlib.h>

/* ---- a small chain: joint i's parent is i - 1, joint 0's parent world is `base` ---------- */

#define MAXJ 8

typedef struct chain {
    uint32_t n;
    oroya_mat4 base;
    oroya_vec3 t[MAXJ];
    oroya_quat r[MAXJ];
    oroya_mat4 world[MAXJ];
} chain;

static oroya_vec3 rand_dir(void) {
    for (;;) {
        oroya_vec3 v = {ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
        float l = oroya_vec3_length(v);
        if (l > 0.1f && l <= 1)
            return oroya_vec3_scale(v, 1 / l);
    }
}

static oroya_quat rand_quat(float max_angle) {
    return oroya_quat_from_axis_angle(rand_dir(), ot_randf(-max_angle, max_angle));
}

static void chain_update(chain *c) {
    for (uint32_t i = 0; i < c->n; i++) {
        oroya_mat4 local = oroya_mat4_compose(c->t[i], c->r[i], (oroya_vec3){1, 1, 1});
        c->world[i] = oroya_mat4_mul(i ? c->world[i - 1] : c->base, local);
    }
}

static oroya_vec3 pos(const chain *c, uint32_t i) {
    return (oroya_vec3){c->world[i].m[12], c->world[i].m[13], c->world[i].m[14]};
}

/* A random chain of n joints: bone lengths in [0.2, 2] (proportions up to 1:10), random
 * local rotations, a random base placement. */
static void chain_random(chain *c, uint32_t n) {
    memset(c, 0, sizeof *c);
    c->n = n;
    c->base = oroya_mat4_compose((oroya_vec3){ot_randf(-5, 5), ot_randf(-5, 5), ot_randf(-5, 5)},
                                 rand_quat(3.1f), (oroya_vec3){1, 1, 1});
    for (uint32_t i = 0; i < n; i++) {
        c->t[i] = i ? oroya_vec3_scale(rand_dir(), ot_randf(0.2f, 2.0f)) : rand_dir();
        c->r[i] = rand_quat(1.5f);
    }
    chain_update(c);
}

static float chain_length(const chain *c) {
    float l = 0;
    for (uint32_t i = 1; i < c->n; i++)
        l += oroya_vec3_length(oroya_vec3_sub(pos(c, i), pos(c, i - 1)));
    return l;
}

/* Which solver the property tests run: the double solver (oroya_ik_solve_run), or the float
 * two-bone path the pose kernel takes, with its fallback to the double one
 * (oroya__ik_solve_run_fast); with the latter, how often the float path took a solve, how
 * often its conditioning test sent one to the double solver, and how often the case was not
 * one it takes (a weight below 1, an end rotation, a given hinge). */
static bool use_fast;
static unsigned fast_taken, fast_declined, fast_other;

/* Runs the IK on the chain and writes the result back into it. */
static oroya_result solve(chain *c, const oroya_ik *ik, bool *reached) {
    oroya_quat out[MAXJ];
    oroya_error err = {0};
    const oroya_ik_solve_job job = {ik, c->world, c->r, out, reached};
    oroya_result r;
    if (use_fast) {
        const int path = oroya__ik_solve_run_fast(&job, &r, &err);
        fast_taken += (unsigned)(path == 2);
        fast_declined += (unsigned)(path == 1);
        fast_other += (unsigned)(path == 0);
    } else {
        r = oroya_ik_solve_run(&job, &err);
    }
    for (uint32_t i = 0; i < c->n; i++)
        c->r[i] = out[i];
    chain_update(c);
    return r;
}

static float angle_between(oroya_vec3 a, oroya_vec3 b) {
    return atan2f(oroya_vec3_length(oroya_vec3_cross(a, b)), oroya_vec3_dot(a, b));
}

static double dangle(oroya_vec3 a, oroya_vec3 b) {
    double ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z;
    double cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), ax * bx + ay * by + az * bz);
}

/* A two-bone IK toward a target at `dist` x the chain from the first joint, with a pole well
 * away from the line to the target. */
static oroya_ik two_bone_toward(const chain *c, float dist_ratio, oroya_vec3 *dir_out) {
    oroya_vec3 a = pos(c, 0);
    oroya_vec3 dir = rand_dir();
    oroya_vec3 pole;
    do {
        pole = rand_dir();
    } while (angle_between(pole, dir) < 0.2f || angle_between(pole, dir) > 2.94f);
    if (dir_out)
        *dir_out = dir;
    return (oroya_ik){.type = OROYA_IK_TWO_BONE,
                      .target =
                          oroya_vec3_add(a, oroya_vec3_scale(dir, dist_ratio * chain_length(c))),
                      .pole = pole,
                      .weight = 1};
}

static uint32_t chain_count_for_test(const oroya_ik *ik) {
    if (ik->type == OROYA_IK_AIM)
        return ik->joint_count ? ik->joint_count : 1;
    return 3;
}

static float bone(const chain *c, uint32_t i) {
    return oroya_vec3_length(oroya_vec3_sub(pos(c, i), pos(c, i - 1)));
}

/* ---- two-bone properties ----------------------------------------------------------------- */

static void test_reachable_target_is_reached(void) {
    int bad = 0;
    for (int it = 0; it < 2000; it++) {
        chain c;
        chain_random(&c, 3);
        float l1 = bone(&c, 1), l2 = bone(&c, 2), len = l1 + l2;
        float lo = fabsf(l1 - l2) / len, ratio = ot_randf(lo + 0.01f, 0.99f);
        oroya_ik ik = two_bone_toward(&c, ratio, NULL);
        bool reached = false;
        OT_CHECK(solve(&c, &ik, &reached) == OROYA_OK);
        float miss = oroya_vec3_length(oroya_vec3_sub(pos(&c, 2), ik.target));
        if (miss > 1e-4f * len || !reached) {
            if (bad++ < 5)
                OT_CHECK_MSG(0, "it %d: miss %g of chain %g, reached %d", it, (double)miss,
                             (double)len, reached);
        }
        /* Bones keep their lengths. */
        OT_NEAR(bone(&c, 1), l1, 1e-5 * len);
        OT_NEAR(bone(&c, 2), l2, 1e-5 * len);
    }
    OT_EQ_INT(bad, 0);
}

static void test_unreachable_target_straightens_the_chain(void) {
    int bad = 0;
    for (int it = 0; it < 2000; it++) {
        chain c;
        chain_random(&c, 3);
        oroya_ik ik = two_bone_toward(&c, ot_randf(1.0001f, 4.0f), NULL);
        bool reached = true;
        OT_CHECK(solve(&c, &ik, &reached) == OROYA_OK);
        oroya_vec3 a = pos(&c, 0), b = pos(&c, 1), e = pos(&c, 2);
        float bend = angle_between(oroya_vec3_sub(b, a), oroya_vec3_sub(e, b));
        float off = angle_between(oroya_vec3_sub(e, a), oroya_vec3_sub(ik.target, a));
        if (bend > 1e-3f || off > 1e-4f || reached) {
            if (bad++ < 5)
                OT_CHECK_MSG(0, "it %d: bend %g rad, off the target line %g rad, reached %d", it,
                             (double)bend, (double)off, reached);
        }
    }
    OT_EQ_INT(bad, 0);
}

/* The middle joint in the plane of first joint, target and pole, on the pole's side. */
static bool pole_respected(const chain *c, const oroya_ik *ik, double tol) {
    oroya_vec3 a = pos(c, 0), b = pos(c, 1);
    oroya_vec3 n = oroya_vec3_normalize(oroya_vec3_sub(ik->target, a));
    oroya_vec3 normal = oroya_vec3_normalize(oroya_vec3_cross(n, ik->pole));
    oroya_vec3 ab = oroya_vec3_sub(b, a);
    oroya_vec3 side = oroya_vec3_sub(ik->pole, oroya_vec3_scale(n, oroya_vec3_dot(ik->pole, n)));
    oroya_vec3 bside = oroya_vec3_sub(ab, oroya_vec3_scale(n, oroya_vec3_dot(ab, n)));
    return fabs(oroya_vec3_dot(ab, normal)) <= tol && oroya_vec3_dot(bside, side) > 0;
}

static void test_pole_is_respected(void) {
    int bad = 0;
    for (int it = 0; it < 2000; it++) {
        chain c;
        chain_random(&c, 3);
        float l1 = bone(&c, 1), l2 = bone(&c, 2), len = l1 + l2;
        float lo = fabsf(l1 - l2) / len;
        oroya_ik ik = two_bone_toward(&c, ot_randf(lo + 0.02f, 0.98f), NULL);
        OT_CHECK(solve(&c, &ik, NULL) == OROYA_OK);
        if (!pole_respected(&c, &ik, 1e-4 * len) && bad++ < 5)
            OT_CHECK_MSG(0, "it %d: middle joint off the pole plane or on the far side", it);
    }
    OT_EQ_INT(bad, 0);
}

/* A run-time fallback writes the input rotations normalized: a tiny one too (its squared
 * length, 2e-60, is far below float's but double holds it; it came out as the identity), and
 * the identity for a zero one. */
static void test_fallback_normalizes_tiny_rotations(void) {
    chain c;
    chain_random(&c, 3);
    oroya_ik ik = two_bone_toward(&c, 0.7f, NULL);
    oroya_quat in[3] = {{1e-30f, 0, 0, 1e-30f}, {0, 0, 0, 0}, c.r[2]};
    oroya_quat out[3];
    oroya_error err = {0};
    OT_EQ_INT(oroya_ik_solve_run(&(oroya_ik_solve_job){&ik, c.world, in, out, NULL}, &err),
              OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "local rotation zero or not finite"), "%s", err.message);
    OT_NEAR(out[0].x, 0.70710678f, 1e-6);
    OT_NEAR(out[0].w, 0.70710678f, 1e-6);
    OT_CHECK(out[1].x == 0 && out[1].y == 0 && out[1].z == 0 && out[1].w == 1);
    OT_NEAR(oroya_quat_length(out[2]), 1, 1e-6);
}

static void test_weight(void) {
    int bad = 0;
    for (int it = 0; it < 500; it++) {
        chain c;
        chain_random(&c, 3);
        float l1 = bone(&c, 1), l2 = bone(&c, 2), len = l1 + l2;
        oroya_ik ik = two_bone_toward(&c, ot_randf(fabsf(l1 - l2) / len + 0.01f, 1.5f), NULL);
        ik.has_target_rotation = (it & 1) != 0;
        ik.target_rotation = rand_quat(3);
        /* 0: bit for bit. */
        ik.weight = 0;
        oroya_quat out[3];
        bool reached = true;
        OT_CHECK(oroya_ik_solve_run(&(oroya_ik_solve_job){&ik, c.world, c.r, out, &reached},
                                    NULL) == OROYA_OK);
        OT_CHECK(memcmp(out, c.r, sizeof out) == 0);
        OT_CHECK(!reached);
        /* 1 is the full solve; in between the end moves monotonically toward the target. */
        chain full = c;
        ik.weight = 1;
        solve(&full, &ik, NULL);
        float last = oroya_vec3_length(oroya_vec3_sub(pos(&c, 2), ik.target));
        chain prev = c;
        for (int k = 1; k <= 20; k++) {
            chain w = c;
            ik.weight = (float)k / 20;
            solve(&w, &ik, NULL);
            /* Continuous from weight 0: no joint jumps from 0 to 0.05 (unless the
             * weighted target, on the line from the end to the target, is close to the first joint, where the chain must swing round fast). */
            oroya_vec3 aim0 = oroya_vec3_lerp(pos(&c, 2), ik.target, ik.weight - 0.05f);
            oroya_vec3 aim1 = oroya_vec3_lerp(pos(&c, 2), ik.target, ik.weight);
            float near_root = fminf(oroya_vec3_length(oroya_vec3_sub(aim0, pos(&c, 0))),
                                    oroya_vec3_length(oroya_vec3_sub(aim1, pos(&c, 0)))) /
                              len;
            for (uint32_t j = 1; k == 1 && near_root > 0.3f && j < 3; j++) {
                float jump = oroya_vec3_length(oroya_vec3_sub(pos(&w, j), pos(&prev, j)));
                if (jump > 0.25f * len && bad++ < 5)
                    OT_CHECK_MSG(0, "it %d: weight %g: joint %u jumps %g of %g", it,
                                 (double)ik.weight, j, (double)jump, (double)len);
            }
            prev = w;
            float d = oroya_vec3_length(oroya_vec3_sub(pos(&w, 2), ik.target));
            if (d > last + 1e-5f * len && bad++ < 5)
                OT_CHECK_MSG(0, "it %d: weight %g moves the end away: %g after %g", it,
                             (double)ik.weight, (double)d, (double)last);
            last = d;
            if (k == 20)
                OT_CHECK(memcmp(w.r, full.r, sizeof w.r) == 0);
        }
    }
    OT_EQ_INT(bad, 0);
}

static oroya_joint_limit rand_limit(void) {
    oroya_joint_limit l = {.reference = rand_quat(0.5f), .twist_axis = rand_dir()};
    int kind = (int)ot_randf(0, 3);
    l.swing = kind == 0 ? OROYA_SWING_FREE : kind == 1 ? OROYA_SWING_CONE : OROYA_SWING_ELLIPSE;
    l.swing_axis = rand_dir();
    l.swing_max[0] = ot_randf(0, 1.5f);
    l.swing_max[1] = ot_randf(0, 1.5f);
    l.has_twist_limit = true;
    l.twist_min = ot_randf(-1.5f, 0);
    l.twist_max = ot_randf(0, 1.5f);
    return l;
}

static void test_limits_never_violated(void) {
    int bad = 0;
    for (int it = 0; it < 1000; it++) {
        chain c;
        chain_random(&c, 3);
        oroya_joint_limit limits[3] = {rand_limit(), rand_limit(), rand_limit()};
        oroya_ik ik = two_bone_toward(&c, ot_randf(0.1f, 1.5f), NULL);
        ik.limits = limits;
        ik.has_target_rotation = (it & 1) != 0;
        ik.target_rotation = rand_quat(3);
        ik.weight = (it % 3) ? 1 : ot_randf(0.05f, 1);
        OT_CHECK(solve(&c, &ik, NULL) == OROYA_OK);
        for (int j = 0; j < 3; j++) {
            if (j == 2 && !ik.has_target_rotation)
                continue; /* IK did not write it */
            oroya_quat q;
            OT_CHECK(oroya_joint_limit_clamp(&limits[j], c.r[j], &q) == OROYA_OK);
            if (memcmp(&q, &c.r[j], sizeof q) != 0 && bad++ < 5)
                OT_CHECK_MSG(0, "it %d: joint %d outside its limit", it, j);
        }
    }
    OT_EQ_INT(bad, 0);
}

/* The target moves in small steps along a path; no joint may jump. */
static int walk_path(const chain *start, oroya_ik ik, oroya_vec3 from, oroya_vec3 to, int steps,
                     float max_ratio, bool check_pole) {
    float len = chain_length(start);
    float step = oroya_vec3_length(oroya_vec3_sub(to, from)) / (float)steps;
    chain prev = *start;
    int bad = 0;
    for (int s = 0; s <= steps; s++) {
        chain c = *start; /* the incoming (animated) pose is the same every frame */
        ik.target = oroya_vec3_lerp(from, to, (float)s / (float)steps);
        solve(&c, &ik, NULL);
        if (s > 0) {
            /* Positions are Lipschitz away from full extension and go like the square root of
             * the target's move there (the knee angle does); a flip moves a joint by a bone
             * or turns a frame by up to pi. */
            double limit = max_ratio * step + 2 * sqrt(step * len) + 1e-5 * len;
            for (uint32_t j = 1; j < 3; j++) {
                float jump = oroya_vec3_length(oroya_vec3_sub(pos(&c, j), pos(&prev, j)));
                if (jump > limit && bad++ < 3)
                    OT_CHECK_MSG(0, "step %d: joint %u jumps %g for a target step of %g", s, j,
                                 (double)jump, (double)step);
            }
            for (uint32_t j = 0; j < 3; j++) {
                oroya_quat q0, q1;
                oroya_mat4_decompose(prev.world[j], NULL, &q0, NULL);
                oroya_mat4_decompose(c.world[j], NULL, &q1, NULL);
                double turn = 2 * acos(fmin(1, fabs((double)oroya_quat_dot(q0, q1))));
                if (turn > limit / len * 4 && bad++ < 3)
                    OT_CHECK_MSG(0, "step %d: joint %u turns %g rad for a target step of %g", s, j,
                                 turn, (double)step);
            }
        }
        if (check_pole) {
            /* The knee stays on the pole's side (its plane is checked elsewhere). */
            oroya_vec3 a = pos(&c, 0);
            oroya_vec3 d = oroya_vec3_sub(ik.target, a);
            if (oroya_vec3_length(d) > 1e-3f * len) {
                oroya_vec3 n = oroya_vec3_normalize(d);
                oroya_vec3 ab = oroya_vec3_sub(pos(&c, 1), a);
                oroya_vec3 bs = oroya_vec3_sub(ab, oroya_vec3_scale(n, oroya_vec3_dot(ab, n)));
                oroya_vec3 ps =
                    oroya_vec3_sub(ik.pole, oroya_vec3_scale(n, oroya_vec3_dot(ik.pole, n)));
                if (oroya_vec3_length(bs) > 1e-3f * len && oroya_vec3_dot(bs, ps) <= 0 && bad++ < 3)
                    OT_CHECK_MSG(0, "step %d: the middle joint flipped away from the pole", s);
            }
        }
        prev = c;
    }
    return bad;
}

static void test_continuity(void) {
    int bad = 0;
    for (int it = 0; it < 60; it++) {
        chain c;
        chain_random(&c, 3);
        float len = chain_length(&c);
        oroya_vec3 a = pos(&c, 0);
        oroya_vec3 dir;
        oroya_ik ik = two_bone_toward(&c, 0.5f, &dir);
        ik.soft = (it % 3 == 0) ? 0.1f : 0;
        /* Through full extension, out and back. */
        bad += walk_path(&c, ik, oroya_vec3_add(a, oroya_vec3_scale(dir, 0.6f * len)),
                         oroya_vec3_add(a, oroya_vec3_scale(dir, 1.6f * len)), 2000, 30, true);
        /* Past the first joint: a line that misses it by 0.15 of the chain, in a plane
         * perpendicular to the pole (so the pole never lines up with the target). */
        oroya_vec3 side = oroya_vec3_normalize(oroya_vec3_cross(dir, ik.pole));
        oroya_vec3 miss = oroya_vec3_normalize(oroya_vec3_cross(side, ik.pole));
        oroya_vec3 mid = oroya_vec3_add(a, oroya_vec3_scale(miss, 0.15f * len));
        bad += walk_path(&c, ik, oroya_vec3_add(mid, oroya_vec3_scale(side, -1.2f * len)),
                         oroya_vec3_add(mid, oroya_vec3_scale(side, 1.2f * len)), 4000, 60, true);
    }
    OT_EQ_INT(bad, 0);
}

static void test_soft_limit(void) {
    chain c;
    chain_random(&c, 3);
    float len = chain_length(&c);
    oroya_vec3 dir;
    oroya_ik ik = two_bone_toward(&c, 0.5f, &dir);
    ik.soft = 0.2f;
    oroya_vec3 a = pos(&c, 0);
    /* Well inside: exact. */
    chain w = c;
    bool reached = false;
    ik.target = oroya_vec3_add(a, oroya_vec3_scale(dir, 0.5f * len));
    solve(&w, &ik, &reached);
    OT_CHECK(reached);
    /* Near full extension the end lags behind, and the chain is still bent. */
    w = c;
    ik.target = oroya_vec3_add(a, oroya_vec3_scale(dir, 0.98f * len));
    solve(&w, &ik, &reached);
    OT_CHECK(!reached);
    float d = oroya_vec3_length(oroya_vec3_sub(pos(&w, 2), a));
    OT_CHECK(d < 0.98f * len && d > 0.85f * len);
    OT_CHECK(angle_between(oroya_vec3_sub(pos(&w, 1), a), oroya_vec3_sub(pos(&w, 2), pos(&w, 1))) >
             0.05f);
    /* The same without the soft limit reaches. */
    ik.soft = 0;
    w = c;
    solve(&w, &ik, &reached);
    OT_CHECK(reached);
}

static void test_target_rotation(void) {
    int bad = 0;
    for (int it = 0; it < 500; it++) {
        chain c;
        chain_random(&c, 3);
        oroya_ik ik = two_bone_toward(&c, 0.7f, NULL);
        ik.has_target_rotation = true;
        ik.target_rotation = rand_quat(3);
        solve(&c, &ik, NULL);
        oroya_quat q;
        oroya_mat4_decompose(c.world[2], NULL, &q, NULL);
        float dot = fabsf(oroya_quat_dot(q, ik.target_rotation));
        if (dot < 1 - 1e-6f && bad++ < 5)
            OT_CHECK_MSG(0, "it %d: end rotation off by |dot| %g", it, (double)dot);
    }
    OT_EQ_INT(bad, 0);
}

static void test_mid_axis(void) {
    /* A leg along -y, knee hinge about local x: the knee bends only about x. */
    chain c = {.n = 3, .base = oroya_mat4_identity()};
    c.t[0] = (oroya_vec3){0, 1, 0};
    c.t[1] = (oroya_vec3){0, -0.5f, 0};
    c.t[2] = (oroya_vec3){0, -0.5f, 0};
    for (int i = 0; i < 3; i++)
        c.r[i] = oroya_quat_identity();
    chain_update(&c);
    oroya_ik ik = {.type = OROYA_IK_TWO_BONE,
                   .target = {0.1f, 0.3f, 0.2f},
                   .pole = {0, 0, 1},
                   .mid_axis = {1, 0, 0},
                   .weight = 1};
    bool reached = false;
    OT_CHECK(solve(&c, &ik, &reached) == OROYA_OK);
    OT_CHECK(reached);
    OT_NEAR(oroya_vec3_length(oroya_vec3_sub(pos(&c, 2), ik.target)), 0, 1e-5);
    /* The knee's local rotation is about x only. */
    OT_NEAR(c.r[1].y, 0, 1e-6);
    OT_NEAR(c.r[1].z, 0, 1e-6);
    OT_CHECK(pole_respected(&c, &ik, 1e-5));
}

/* ---- aim ------------------------------------------------------------------------------- */

static oroya_vec3 world_dir(const chain *c, uint32_t j, oroya_vec3 local) {
    return oroya_vec3_normalize(oroya_mat4_transform_direction(c->world[j], local));
}

static void test_aim(void) {
    int bad_aim = 0, bad_up = 0, bad_offset = 0;
    for (int it = 0; it < 3000; it++) {
        uint32_t n = 1 + (uint32_t)(it % 4);
        chain c;
        chain_random(&c, n);
        oroya_ik ik = {.type = OROYA_IK_AIM, .joint_count = n, .weight = 1};
        float sum = 0;
        for (uint32_t i = 0; i < n; i++)
            sum += ik.shares[i] = ot_randf(0.05f, 1);
        for (uint32_t i = 0; i < n; i++)
            ik.shares[i] /= sum;
        ik.forward = rand_dir();
        do {
            ik.up_axis = rand_dir();
        } while (angle_between(ik.up_axis, ik.forward) < 0.3f ||
                 angle_between(ik.up_axis, ik.forward) > 2.8f);
        bool with_offset = it % 3 == 0;
        if (it % 3 == 1) /* along forward only: the up check stays exact */
            ik.offset = oroya_vec3_scale(ik.forward, ot_randf(-0.2f, 0.2f));
        if (with_offset)
            ik.offset = oroya_vec3_scale(rand_dir(), ot_randf(0, 0.3f));
        ik.up = rand_dir();
        oroya_vec3 last = pos(&c, n - 1);
        oroya_vec3 dir;
        do {
            dir = rand_dir();
        } while (angle_between(dir, ik.up) < 0.2f || angle_between(dir, ik.up) > 2.94f);
        ik.target = oroya_vec3_add(last, oroya_vec3_scale(dir, ot_randf(1, 10)));
        bool reached = false;
        OT_CHECK(solve(&c, &ik, &reached) == OROYA_OK);
        oroya_vec3 eye = oroya_mat4_transform_point(c.world[n - 1], ik.offset);
        oroya_vec3 fw = world_dir(&c, n - 1, ik.forward);
        double err = dangle(fw, oroya_vec3_sub(ik.target, eye));
        if ((err > 1e-5 || !reached) && bad_aim++ < 5)
            OT_CHECK_MSG(0,
                         "it %d (%u joints, offset %d): forward off the target by %g rad, "
                         "reached %d",
                         it, n, with_offset, err, reached);
        if (!with_offset) {
            oroya_vec3 up_w = world_dir(&c, n - 1, ik.up_axis);
            oroya_vec3 normal = oroya_vec3_normalize(oroya_vec3_cross(fw, ik.up));
            oroya_vec3 upp = oroya_vec3_sub(ik.up, oroya_vec3_scale(fw, oroya_vec3_dot(ik.up, fw)));
            if ((fabsf(oroya_vec3_dot(up_w, normal)) > 1e-5f || oroya_vec3_dot(up_w, upp) <= 0) &&
                bad_up++ < 5)
                OT_CHECK_MSG(0, "it %d: up axis %g out of the plane of forward and up", it,
                             (double)oroya_vec3_dot(up_w, normal));
        }
        (void)bad_offset;
    }
    OT_EQ_INT(bad_aim, 0);
    OT_EQ_INT(bad_up, 0);
}

static void test_aim_shares(void) {
    /* A straight spine of three joints along +y, forward +z, target to the side: the turn is
     * split 0.2 / 0.3 / 0.5 (the pivots move a little, so the split is near, not exact). */
    chain c = {.n = 3, .base = oroya_mat4_identity()};
    for (int i = 0; i < 3; i++) {
        c.t[i] = (oroya_vec3){0, i ? 0.01f : 0, 0};
        c.r[i] = oroya_quat_identity();
    }
    chain_update(&c);
    oroya_ik ik = {.type = OROYA_IK_AIM,
                   .joint_count = 3,
                   .shares = {0.2f, 0.3f, 0.5f},
                   .forward = {0, 0, 1},
                   .up = {0, 1, 0},
                   .target = {100, 0.02f, 0},
                   .weight = 1};
    OT_CHECK(solve(&c, &ik, NULL) == OROYA_OK);
    /* A quarter turn about y in all. */
    float total = 0;
    for (int i = 0; i < 3; i++) {
        float angle = 2 * atan2f(c.r[i].y, c.r[i].w);
        OT_NEAR(angle, ik.shares[i] * 1.5707963f, 2e-3);
        total += angle;
    }
    OT_NEAR(total, 1.5707963f, 1e-4);
}

static void test_aim_limits(void) {
    /* A neck limited to a 0.3 rad cone: the head takes the rest; a head limited too stops
     * short, inside its limit, not reached. */
    int bad = 0;
    for (int it = 0; it < 500; it++) {
        chain c;
        chain_random(&c, 2);
        oroya_joint_limit limits[2] = {rand_limit(), rand_limit()};
        limits[1] = (oroya_joint_limit){0};
        if (it & 1)
            limits[1] = rand_limit();
        oroya_ik ik = {.type = OROYA_IK_AIM,
                       .joint_count = 2,
                       .shares = {0.5f, 0.5f},
                       .forward = {0, 0, 1},
                       .weight = 1,
                       .limits = limits};
        ik.target = oroya_vec3_add(pos(&c, 1), oroya_vec3_scale(rand_dir(), 3));
        bool reached = false;
        OT_CHECK(solve(&c, &ik, &reached) == OROYA_OK);
        for (int j = 0; j < 2; j++) {
            oroya_quat q;
            oroya_joint_limit_clamp(&limits[j], c.r[j], &q);
            if (memcmp(&q, &c.r[j], sizeof q) != 0 && bad++ < 5)
                OT_CHECK_MSG(0, "it %d: joint %d outside its limit", it, j);
        }
        if (!(it & 1)) {
            /* The free head makes up for the neck. */
            double err =
                dangle(world_dir(&c, 1, ik.forward), oroya_vec3_sub(ik.target, pos(&c, 1)));
            if (err > 1e-5 && bad++ < 5)
                OT_CHECK_MSG(0, "it %d: free head off by %g rad", it, err);
        }
    }
    OT_EQ_INT(bad, 0);
}

/* ---- aim: targets near the last pivot (the reach guard and the fallback) ---------------- */

/* One random aim case of the sweep below, drawn from the generator's state `seed`: 2-4 joints
 * (n = 2 + it % 3), random shares adding up to 1, an eye offset by kind (it / 3) % 3 (none,
 * along forward within 0.3, any within 0.3), a target 1-10 from the last joint (even it) or
 * 0-1 (odd it, where some are inside the eye's blind sphere). */
static void aim_case(unsigned seed, int it, chain *c, oroya_ik *ik, int *kind) {
    ot_rng_state_ = seed;
    const uint32_t n = 2 + (uint32_t)(it % 3);
    chain_random(c, n);
    *ik = (oroya_ik){.type = OROYA_IK_AIM, .joint_count = n, .weight = 1};
    float sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += ik->shares[i] = ot_randf(0.05f, 1);
    for (uint32_t i = 0; i < n; i++)
        ik->shares[i] /= sum;
    ik->forward = rand_dir();
    do {
        ik->up_axis = rand_dir();
    } while (angle_between(ik->up_axis, ik->forward) < 0.3f ||
             angle_between(ik->up_axis, ik->forward) > 2.8f);
    *kind = (it / 3) % 3;
    if (*kind == 1)
        ik->offset = oroya_vec3_scale(ik->forward, ot_randf(-0.3f, 0.3f));
    if (*kind == 2)
        ik->offset = oroya_vec3_scale(rand_dir(), ot_randf(0, 0.3f));
    ik->up = rand_dir();
    oroya_vec3 dir;
    do {
        dir = rand_dir();
    } while (angle_between(dir, ik->up) < 0.2f || angle_between(dir, ik->up) > 2.94f);
    const float dist = it & 1 ? ot_randf(0, 1) : ot_randf(1, 10);
    ik->target = oroya_vec3_add(pos(c, n - 1), oroya_vec3_scale(dir, dist));
}

/* The last joint's reach, in double from the chain's float matrices: r, the target's distance
 * from its pivot; rho, the blind radius (the ray from the eye on can pass through a point at
 * r from the pivot exactly when r >= rho: rho^2 = perp^2 + max(of, 0)^2, with o the eye from
 * the pivot, of = o . forward and perp the ray's distance from the pivot); q, the margin
 * sqrt(r^2 - perp^2) - max(of, 0) (negative: out of reach); s, how far ahead of the eye the
 * target is once aimed; eye and fwd (unit). Written out here from the definitions, not taken
 * from the solver. */
typedef struct {
    double r, rho, q, s;
    double eye[3], fwd[3];
} aim_reach;

static aim_reach reach_of(const chain *c, const oroya_ik *ik) {
    const uint32_t n = c->n;
    const oroya_vec3 p = pos(c, n - 1);
    const oroya_vec3 e = oroya_mat4_transform_point(c->world[n - 1], ik->offset);
    const oroya_vec3 f = oroya_mat4_transform_direction(c->world[n - 1], ik->forward);
    aim_reach a;
    const double fl = sqrt((double)f.x * f.x + (double)f.y * f.y + (double)f.z * f.z);
    const double o[3] = {(double)e.x - p.x, (double)e.y - p.y, (double)e.z - p.z};
    const double d[3] = {(double)ik->target.x - p.x, (double)ik->target.y - p.y,
                         (double)ik->target.z - p.z};
    a.eye[0] = e.x, a.eye[1] = e.y, a.eye[2] = e.z;
    a.fwd[0] = f.x / fl, a.fwd[1] = f.y / fl, a.fwd[2] = f.z / fl;
    const double oo = o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
    const double of = o[0] * a.fwd[0] + o[1] * a.fwd[1] + o[2] * a.fwd[2];
    double perp2 = oo - of * of;
    perp2 = perp2 > 0 ? perp2 : 0;
    const double ofp = of > 0 ? of : 0;
    a.r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    a.rho = sqrt(perp2 + ofp * ofp);
    const double disc = a.r * a.r - perp2;
    a.q = disc >= 0 ? sqrt(disc) - ofp : -ofp - sqrt(-disc);
    a.s = disc >= 0 ? sqrt(disc) - of : -of;
    return a;
}

/* The distance from the target to the forward ray from the eye on. */
static double ray_distance(const aim_reach *a, oroya_vec3 t) {
    const double v[3] = {t.x - a->eye[0], t.y - a->eye[1], t.z - a->eye[2]};
    double along = v[0] * a->fwd[0] + v[1] * a->fwd[1] + v[2] * a->fwd[2];
    along = along > 0 ? along : 0;
    const double w[3] = {v[0] - along * a->fwd[0], v[1] - along * a->fwd[1],
                         v[2] - along * a->fwd[2]};
    return sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
}

/* The aim error the float output allows: 1e-5 rad, plus what the float matrices' placement of
 * the eye (about one float step of the coordinates, 8e-7 at 13) turns the line to a target s
 * ahead by. Measured on the sweep (it prints it): err * s below 2.1e-6 where s < 1. */
static double aim_tolerance(double s) { return 1e-5 + 2e-6 / s; }

typedef struct {
    int reachable, unreachable, fallback, worst_it;
    double worst, worst_es;
} aim_tally;

/* Solves one case and checks it (returns whether it passed): the guard's promise (a target in
 * reach of the last joint as the chain came stays so: q after >= min(q before, 0.25 r before);
 * one out of reach does not come nearer the last pivot),
 * then in reach the aim within aim_tolerance (and `reached`), the up axis in the plane of
 * forward and up (offsets along forward), out of reach the fallback (the ray passes the
 * target at rho - r, as near as a ray from the eye can; not reached). A margin within 1e-4 of
 * 0 (on the edge of reach, either is right) is left out. */
static bool aim_check(chain *c, const oroya_ik *ik, int kind, int it, aim_tally *tally) {
    const aim_reach a0 = reach_of(c, ik);
    bool reached = true;
    bool ok = solve(c, ik, &reached) == OROYA_OK;
    for (uint32_t i = 0; i < c->n; i++)
        ok = ok && isfinite(c->r[i].x + c->r[i].y + c->r[i].z + c->r[i].w);
    const aim_reach a = reach_of(c, ik);
    if (a0.q >= 0) {
        const double promise = a0.q < 0.25 * a0.r ? a0.q : 0.25 * a0.r;
        if (!(a.q >= promise * (1 - 1e-4) - 1e-6)) {
            ok = false;
            OT_CHECK_MSG(0, "it %d: reach margin %g -> %g (promised %g)", it, a0.q, a.q, promise);
        }
    } else if (!(a.r >= a0.r * (1 - 1e-4) - 1e-6)) {
        /* Out of reach as the chain came: the pivot does not come nearer the target. */
        ok = false;
        OT_CHECK_MSG(0, "it %d: out of reach, the pivot came nearer: %g -> %g", it, a0.r, a.r);
    }
    if (a.q > 1e-4) {
        tally->reachable++;
        const oroya_vec3 fw = world_dir(c, c->n - 1, ik->forward);
        const oroya_vec3 eye = oroya_mat4_transform_point(c->world[c->n - 1], ik->offset);
        const double err = dangle(fw, oroya_vec3_sub(ik->target, eye));
        if (a.s >= 1 && err > tally->worst)
            tally->worst = err, tally->worst_it = it;
        if (a.s < 1 && err * a.s > tally->worst_es)
            tally->worst_es = err * a.s;
        if (!(err <= aim_tolerance(a.s)) || !reached) {
            ok = false;
            OT_CHECK_MSG(0, "it %d (%u joints, offset kind %d): off by %g rad (s %g), reached %d",
                         it, c->n, kind, err, a.s, reached);
        }
        if (kind != 2) {
            /* The plane of forward and up turns with forward by 1 / sin(forward, up): the
             * forward is good to aim_tolerance's placement allowance (the float path aims along
             * the line to the target from float positions), and, for an offset along forward,
             * the part perpendicular to forward the float matrix gives it (some 1e-7 of its
             * length) turns it off the line from the pivot (about which the up is exact) by
             * that over r. */
            const oroya_vec3 up_w = world_dir(c, c->n - 1, ik->up_axis);
            const oroya_vec3 cr = oroya_vec3_cross(fw, ik->up);
            const double sn = oroya_vec3_length(cr) / oroya_vec3_length(ik->up);
            const oroya_vec3 normal = oroya_vec3_normalize(cr);
            const oroya_vec3 upp =
                oroya_vec3_sub(ik->up, oroya_vec3_scale(fw, oroya_vec3_dot(ik->up, fw)));
            const double off = fabs((double)oroya_vec3_dot(up_w, normal));
            const double tol =
                1e-5 +
                (aim_tolerance(a.s) - 1e-5 + 1e-6 * oroya_vec3_length(ik->offset) / a.r) / sn;
            if (!(off <= tol) || oroya_vec3_dot(up_w, upp) <= 0) {
                ok = false;
                OT_CHECK_MSG(0, "it %d: up axis %g out of the plane of forward and up (tol %g)", it,
                             off, tol);
            }
        }
    } else if (a.q < -1e-4) {
        tally->fallback++;
        const double want = a.rho - a.r, got = ray_distance(&a, ik->target);
        if (!(fabs(got - want) <= 1e-5) || reached) {
            ok = false;
            OT_CHECK_MSG(
                0, "it %d: out of reach, the ray passes at %g, want rho - r = %g (reached %d)", it,
                got, want, reached);
        }
    }
    tally->unreachable += a0.q < 0;
    return ok;
}

/* The worst cases of the sweep before the reach guard (test_aim_sweep's seeds): the joints
 * before the last turned the last pivot so near the target that the eye ray could not reach it
 * any more (target inside the blind sphere of the moved pivot), and the forward axis missed
 * by 1.9-3.1 rad (of the sweep's 19,331 cases in reach from the start, 157 missed before the
 * guard, 141 by more than 0.5 rad). Each is in reach from the start with a wide margin: they
 * fail before the fix and pass after. */
static void test_aim_pivot_near_target(void) {
    const unsigned saved = ot_rng_state_;
    static const struct {
        unsigned seed;
        int it;
    } cases[] = {/* 4 joints: off by 3.01, 3.14 and 3.14 rad before */
                 {0x60510fa5u, 1709},
                 {0xcbf50aebu, 14783},
                 {0xbce49f43u, 4901},
                 /* 3 joints: 3.14, 3.06, 3.08 */
                 {0xcb3809a8u, 11911},
                 {0x5a5e16f1u, 19789},
                 {0x578fc5e5u, 16891},
                 /* 2 joints: 2.03, 3.14, 2.25 */
                 {0x141edaf0u, 5415},
                 {0xb648975au, 5853},
                 {0x799b43dcu, 16935},
                 /* 4 joints: 1.91 */
                 {0x4864b09du, 845}};
    aim_tally tally = {0};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        chain c;
        oroya_ik ik;
        int kind;
        aim_case(cases[k].seed, cases[k].it, &c, &ik, &kind);
        const aim_reach a0 = reach_of(&c, &ik);
        OT_CHECK_MSG(a0.q > 0.05, "case %zu: not clearly in reach (margin %g)", k, a0.q);
        OT_CHECK(aim_check(&c, &ik, kind, cases[k].it, &tally));
        /* The forward axis on the target, whatever the reach says. */
        const aim_reach a = reach_of(&c, &ik);
        const double err = dangle(
            world_dir(&c, c.n - 1, ik.forward),
            oroya_vec3_sub(ik.target, oroya_mat4_transform_point(c.world[c.n - 1], ik.offset)));
        OT_CHECK_MSG(a.s > 0 && err <= aim_tolerance(a.s), "it %d: off the target by %g rad",
                     cases[k].it, err);
    }
    ot_rng_state_ = saved;
}

/* 20,000 seeded random aim chains and targets (aim_case), through the solver the property
 * tests run (the double one, or the float aim path with its fallback): every case passes
 * aim_check. Prints how many were in reach, out of reach from the start, and ended out of reach
 * (the fallback), the worst aim error where the eye ends 1 or more from the target, and the
 * worst aim error times that distance where it is nearer (aim_tolerance's placement part). */
static void test_aim_sweep(void) {
    const unsigned saved = ot_rng_state_;
    unsigned seed = 0x17a1f00du;
    aim_tally tally = {0};
    int bad = 0;
    for (int it = 0; it < 20000; it++) {
        chain c;
        oroya_ik ik;
        int kind;
        aim_case(seed, it, &c, &ik, &kind);
        const unsigned this_seed = seed;
        seed = ot_rng_state_;
        if (!aim_check(&c, &ik, kind, it, &tally) && bad++ < 5)
            printf("  sweep case: seed %#x, it %d\n", this_seed, it);
    }
    printf("aim sweep (%s): %d in reach at the end, %d out of reach from the start, %d ended "
           "out of reach (the fallback); worst aim error %.3g rad with the eye 1 or more from "
           "the target (it %d), worst error x distance %.3g with it nearer\n",
           use_fast ? "float aim path" : "double solver", tally.reachable, tally.unreachable,
           tally.fallback, tally.worst, tally.worst_it, tally.worst_es);
    OT_EQ_INT(bad, 0);
    ot_rng_state_ = saved;
}

/* ---- the aim chain's partial turn (slerp from the identity, without trigonometry) ------- */

/* Its worst error over the whole domain: every rotation angle in [0, 2 pi] (both hemispheres
 * of the quaternion), shares t in [0, 1], random axes; the reference is libm's atan2, sin and
 * cos in long double. Measured: about 5e-11 rad on the angle, 1e-15 off unit length. */
static void test_partial_turn_error(void) {
    double worst_angle = 0, worst_axis = 0, worst_unit = 0;
    for (int i = 0; i <= 4000; i++) {
        /* Denser near 0 and near the half turn, where the series and the hemisphere flip work
         * hardest. */
        const double u = (double)i / 4000;
        const double theta = 2 * 3.14159265358979323846 * (i % 2 ? u : u * u * u);
        const oroya_vec3 f = rand_dir();
        const double fl = sqrt((double)f.x * f.x + (double)f.y * f.y + (double)f.z * f.z);
        const double n[3] = {f.x / fl, f.y / fl, f.z / fl}; /* unit in double */
        const double q[4] = {n[0] * sin(theta / 2), n[1] * sin(theta / 2), n[2] * sin(theta / 2),
                             cos(theta / 2)};
        /* The shorter arc: the angle is at most pi, about n or -n. */
        const long double shorter =
            theta <= 3.14159265358979323846 ? theta : 2 * 3.14159265358979323846 - theta;
        for (int k = 0; k <= 50; k++) {
            const double t = k / 50.0;
            double r[4];
            oroya__ik_quat_pow(q, t, r);
            const long double vl = sqrtl((long double)r[0] * r[0] + (long double)r[1] * r[1] +
                                         (long double)r[2] * r[2]);
            const long double angle = 2 * atan2l(vl, r[3]);
            const long double want = t * shorter;
            double e = (double)fabsl(angle - want);
            worst_angle = e > worst_angle ? e : worst_angle;
            const long double unit = fabsl(vl * vl + (long double)r[3] * r[3] - 1);
            worst_unit = (double)unit > worst_unit ? (double)unit : worst_unit;
            if (vl > 1e-6) {
                /* The axis is n on the shorter arc through w >= 0, -n past the half turn. */
                const double sign = theta <= 3.14159265358979323846 ? 1 : -1;
                const double d = (double)((r[0] * n[0] + r[1] * n[1] + r[2] * n[2]) / vl) * sign;
                worst_axis = 1 - d > worst_axis ? 1 - d : worst_axis;
            }
        }
    }
    printf("partial turn: worst angle error %.3g rad, axis 1-cos %.3g, unit %.3g\n", worst_angle,
           worst_axis, worst_unit);
    OT_CHECK_MSG(worst_angle < 1e-10, "angle off by %g rad", worst_angle);
    OT_CHECK_MSG(worst_axis < 1e-12, "axis off by 1 - cos = %g", worst_axis);
    OT_CHECK_MSG(worst_unit < 1e-12, "length off 1 by %g", worst_unit);
}

/* ---- bad input ------------------------------------------------------------------------- */

static void test_validation_table(void) {
    chain c = {.n = 3, .base = oroya_mat4_identity()};
    c.t[0] = (oroya_vec3){0, 1, 0};
    c.t[1] = (oroya_vec3){0, -0.5f, 0.05f};
    c.t[2] = (oroya_vec3){0, -0.5f, -0.05f};
    for (int i = 0; i < 3; i++)
        c.r[i] = oroya_quat_identity();
    chain_update(&c);
    const oroya_ik good = {.type = OROYA_IK_TWO_BONE,
                           .name = "footL",
                           .target = {0, 0.3f, 0.2f},
                           .pole = {0, 0, 1},
                           .weight = 1};
    oroya_quat out[3];
    oroya_error err = {0};
    oroya_ik_solve_job job = {&good, c.world, c.r, out, NULL};
    OT_CHECK(oroya_ik_solve_validate(&job, 0, &err) == OROYA_OK);

    struct {
        const char *what;
        oroya_ik ik;
        int zero_bone; /* make bone 2 zero-length */
        oroya_result want;
        const char *message;
    } cases[] = {
        {"NaN target", good, 0, OROYA_ERR_NON_FINITE, "iks[0] (footL).target: not finite"},
        {"zero pole", good, 0, OROYA_ERR_INVALID_ARGUMENT, "pole: zero"},
        {"parallel pole", good, 0, OROYA_ERR_INVALID_DATA, "pole: parallel"},
        {"target at the root", good, 0, OROYA_ERR_INVALID_DATA, "target: at joints[0]"},
        {"zero-length bone", good, 1, OROYA_ERR_INVALID_DATA, "joints[2]: zero-length bone"},
        {"weight above 1", good, 0, OROYA_ERR_INVALID_ARGUMENT, "weight"},
        {"soft 1", good, 0, OROYA_ERR_INVALID_ARGUMENT, "soft"},
        {"bad type", good, 0, OROYA_ERR_INVALID_ARGUMENT, "type"},
        {"aim: zero forward",
         {.type = OROYA_IK_AIM, .target = {0, 0, 5}, .weight = 1},
         0,
         OROYA_ERR_INVALID_ARGUMENT,
         "forward: zero"},
        {"aim: shares",
         {.type = OROYA_IK_AIM,
          .joint_count = 2,
          .shares = {0.5f, 0.4f},
          .forward = {0, 0, 1},
          .target = {0, 0, 5},
          .weight = 1},
         0,
         OROYA_ERR_INVALID_ARGUMENT,
         "shares: add up to"},
        {"aim: up parallel",
         {.type = OROYA_IK_AIM,
          .forward = {0, 0, 1},
          .up = {0, 1, 0},
          .target = {0, 9, 0},
          .weight = 1},
         0,
         OROYA_ERR_INVALID_DATA,
         "up: parallel"},
        {"aim: up_axis parallel to forward",
         {.type = OROYA_IK_AIM,
          .forward = {0, 0, 1},
          .up = {0, 1, 0},
          .up_axis = {0, 0, 2},
          .target = {0, 0, 5},
          .weight = 1},
         0,
         OROYA_ERR_INVALID_ARGUMENT,
         "up_axis: parallel"},
    };
    cases[0].ik.target.x = NAN;
    cases[1].ik.pole = (oroya_vec3){0, 0, 0};
    cases[2].ik.pole = (oroya_vec3){0, -0.7f, 0.2f}; /* the target is at (0, 0.3, 0.2) */
    cases[2].ik.target = (oroya_vec3){0, 1 - 0.7f * 0.5f, 0.2f * 0.5f};
    cases[3].ik.target = pos(&c, 0);
    cases[5].ik.weight = 1.5f;
    cases[6].ik.soft = 1;
    cases[7].ik.type = (oroya_ik_type)7;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        chain w = c;
        if (cases[i].zero_bone) {
            w.t[2] = (oroya_vec3){0, 0, 0};
            chain_update(&w);
        }
        memset(&err, 0, sizeof err);
        job = (oroya_ik_solve_job){&cases[i].ik, w.world, w.r, out, NULL};
        oroya_result r = oroya_ik_solve_validate(&job, 0, &err);
        OT_CHECK_MSG(r == cases[i].want, "%s: got %d (%s)", cases[i].what, (int)r, err.message);
        OT_CHECK_MSG(strstr(err.message, cases[i].message) != NULL, "%s: message '%s'",
                     cases[i].what, err.message);
        /* At run time: OK, or the pose unchanged, never NaN. */
        for (int k = 0; k < 3; k++)
            out[k] = (oroya_quat){NAN, NAN, NAN, NAN};
        r = oroya_ik_solve_run(&job, NULL);
        if (r == OROYA_ERR_INVALID_ARGUMENT && cases[i].ik.type != OROYA_IK_TWO_BONE &&
            cases[i].ik.type != OROYA_IK_AIM)
            continue; /* refused before anything is written */
        for (uint32_t k = 0; k < chain_count_for_test(&cases[i].ik); k++) {
            OT_CHECK(isfinite(out[k].x) && isfinite(out[k].y) && isfinite(out[k].z) &&
                     isfinite(out[k].w));
            if (r != OROYA_OK && r != OROYA_ERR_INVALID_ARGUMENT)
                OT_CHECK(memcmp(&out[k], &w.r[k], sizeof out[k]) == 0);
        }
    }
}

/* A zero, NaN or infinite local rotation at run time (set_ik or validate never saw it): the
 * documented fallback, an error naming it and finite rotations out, for each joint of a
 * two-bone chain and of an aim chain (one test per chain in solve_frames). */
static void test_run_time_bad_local_rotation(void) {
    const oroya_quat bad[3] = {{0, 0, 0, 0}, {NAN, 0, 0, 1}, {0, INFINITY, 0, 1}};
    int fell_back = 0, finite_out = 0, cases = 0;
    for (int type = 0; type < 2; type++) {
        for (uint32_t j = 0; j < 3; j++) {
            for (int b = 0; b < 3; b++) {
                chain c;
                chain_random(&c, 3);
                oroya_ik ik = {.type = type ? OROYA_IK_AIM : OROYA_IK_TWO_BONE,
                               .joint_count = 3,
                               .pole = {0, 0, 1},
                               .shares = {0.3f, 0.3f, 0.4f},
                               .forward = {0, 0, 1},
                               .weight = 1};
                ik.target = oroya_vec3_add(pos(&c, 2), (oroya_vec3){0.05f, 0.05f, 3});
                c.r[j] = bad[b];
                oroya_quat out[MAXJ];
                oroya_error err = {0};
                oroya_result r =
                    oroya_ik_solve_run(&(oroya_ik_solve_job){&ik, c.world, c.r, out, NULL}, &err);
                cases++;
                fell_back += r == OROYA_ERR_INVALID_DATA && strstr(err.message, "local rotation");
                bool fin = true;
                for (int k = 0; k < 3; k++)
                    fin = fin && isfinite(out[k].x) && isfinite(out[k].y) && isfinite(out[k].z) &&
                          isfinite(out[k].w);
                finite_out += fin;
            }
        }
    }
    OT_EQ_INT(fell_back, cases);
    OT_EQ_INT(finite_out, cases);
}

/* ---- the two hooks ------------------------------------------------------------------------ */

/* hips(0) -> thigh(1) -> shin(2) -> foot(3) -> toe(4); hips -> spine(5) -> neck(6) -> head(7). */
#define RIG_JOINTS 8
static const uint32_t rig_parents[RIG_JOINTS] = {UINT32_MAX, 0, 1, 2, 3, 0, 5, 6};
static const char *const rig_names[RIG_JOINTS] = {"hips", "thigh", "shin", "foot",
                                                  "toe",  "spine", "neck", "head"};

static void rig_rest(oroya_transform *rest) {
    const oroya_vec3 t[RIG_JOINTS] = {{0.1f, 1, 0.2f},     {0.1f, -0.05f, 0},  {0, -0.45f, 0.02f},
                                      {0, -0.42f, -0.03f}, {0, -0.05f, 0.12f}, {0, 0.2f, 0},
                                      {0, 0.35f, 0.02f},   {0, 0.12f, 0.01f}};
    for (int i = 0; i < RIG_JOINTS; i++) {
        rest[i] = oroya_transform_identity();
        rest[i].translation = t[i];
        rest[i].rotation = rand_quat(0.3f);
    }
    rest[0].scale = (oroya_vec3){1.5f, 1.5f, 1.5f};
}

static void rig_iks(oroya_ik *iks, const oroya_joint_limit *neck_limit) {
    iks[0] = (oroya_ik){.type = OROYA_IK_TWO_BONE,
                        .name = "footL",
                        .joints = {1, 2, 3},
                        .target = {0.25f, 0.45f, 0.45f},
                        .pole = {0, 0, 1},
                        .weight = 1,
                        .has_target_rotation = true,
                        .target_rotation = {0, 0.2588190f, 0, 0.9659258f}};
    static oroya_joint_limit limits[2];
    limits[0] = *neck_limit;
    limits[1] = (oroya_joint_limit){0};
    iks[1] = (oroya_ik){.type = OROYA_IK_AIM,
                        .name = "head",
                        .joints = {6, 7},
                        .joint_count = 2,
                        .shares = {0.4f, 0.6f},
                        .forward = {0, 0, 1},
                        .up = {0, 1, 0},
                        .offset = {0, 0.05f, 0.08f},
                        .target = {2, 2.5f, 3},
                        .weight = 0.8f,
                        .limits = limits};
}

static void test_scene_and_kernel_agree(void) {
    oroya_transform rest[RIG_JOINTS];
    rig_rest(rest);
    oroya_joint_limit neck = {.twist_axis = {0, 1, 0},
                              .swing = OROYA_SWING_CONE,
                              .swing_max = {0.3f},
                              .has_twist_limit = true,
                              .twist_min = -0.2f,
                              .twist_max = 0.2f};
    oroya_ik iks[2];
    rig_iks(iks, &neck);
    oroya_error err = {0};

    /* The scene path. */
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node nodes[RIG_JOINTS];
    for (int i = 0; i < RIG_JOINTS; i++) {
        oroya_node parent = rig_parents[i] == UINT32_MAX ? (oroya_node){0} : nodes[rig_parents[i]];
        OT_CHECK(oroya_scene_add_node(scene, rig_names[i], parent, OROYA_NODE_BONE, &nodes[i]) ==
                 OROYA_OK);
        oroya_scene_set_transform(scene, nodes[i], &rest[i]);
        OT_EQ_INT(oroya_scene_node_index(scene, nodes[i]), i);
    }
    oroya_scene_update_world(scene);
    OT_CHECK_MSG(oroya_ik_scene_validate(scene, iks, 2, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK_MSG(oroya_ik_scene_apply(scene, iks, 2, &err) == OROYA_OK, "%s", err.message);
    const oroya_mat4 *sw = oroya_scene_world_matrices(scene);
    /* The result is what a full update of the written transforms gives. */
    oroya_mat4 after[RIG_JOINTS];
    memcpy(after, sw, sizeof after);
    oroya_scene_update_world(scene);
    OT_CHECK(memcmp(after, oroya_scene_world_matrices(scene), sizeof after) == 0);
    /* The foot reached its target. */
    oroya_vec3 foot = {sw[3].m[12], sw[3].m[13], sw[3].m[14]};
    OT_NEAR(oroya_vec3_length(oroya_vec3_sub(foot, iks[0].target)), 0, 1e-5);

    /* The kernel path: the same rig as a pose skeleton at rest. */
    oroya_pose_skeleton *skel = NULL;
    oroya_pose_character *ch = NULL;
    OT_CHECK(oroya_pose_skeleton_create(&(oroya_pose_skeleton_desc){.joint_count = RIG_JOINTS,
                                                                    .parents = rig_parents,
                                                                    .rest = rest,
                                                                    .names = rig_names},
                                        &skel, &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &ch,
                                         &err) == OROYA_OK);
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, iks, 2, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    const oroya_mat4 *models = oroya_pose_character_models(ch);
    const oroya_mat4 *bones = oroya_pose_character_bones(ch);
    double worst = 0;
    for (int j = 0; j < RIG_JOINTS; j++)
        for (int k = 0; k < 16; k++) {
            worst = fmax(worst, fabs((double)models[j].m[k] - (double)sw[j].m[k]));
            worst = fmax(worst, fabs((double)bones[j].m[k] - (double)sw[j].m[k]));
        }
    OT_CHECK_MSG(worst < 1e-5, "scene and kernel differ by %g", worst);
    /* The batch call runs the IKs too, with the same result. */
    oroya_mat4 single[RIG_JOINTS];
    memcpy(single, models, sizeof single);
    OT_CHECK(oroya_pose_update_batch(&(oroya_pose_update){ch, NULL, 0}, 1, NULL, &err) == OROYA_OK);
    OT_CHECK(memcmp(single, models, sizeof single) == 0);
    /* Without IKs the kernel gives the rest pose again. */
    OT_CHECK(oroya_pose_character_set_ik(ch, NULL, 0, &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    oroya_vec3 rest_foot = {models[3].m[12], models[3].m[13], models[3].m[14]};
    OT_CHECK(oroya_vec3_length(oroya_vec3_sub(rest_foot, iks[0].target)) > 0.1f);

    /* Setup errors name the joints. */
    oroya_ik broken = iks[0];
    broken.joints[1] = 6; /* neck is not below thigh */
    OT_CHECK(oroya_pose_character_set_ik(ch, &broken, 1, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "joints[1] (neck) is not a descendant of joints[0] (thigh)"),
                 "%s", err.message);
    OT_CHECK(oroya_ik_scene_validate(scene, &broken, 1, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "(neck) is not a descendant"), "%s", err.message);
    broken = iks[0];
    broken.target = (oroya_vec3){after[1].m[12], after[1].m[13], after[1].m[14]};
    OT_CHECK(oroya_ik_scene_validate(scene, &broken, 1, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "iks[0] (footL).target: at joints[0] (thigh)"), "%s",
                 err.message);
    broken = iks[0];
    broken.joints[2] = 40;
    OT_CHECK(oroya_ik_scene_apply(scene, &broken, 1, &err) == OROYA_ERR_OUT_OF_RANGE);

    /* A run-time fallback leaves that chain alone and the others run. */
    oroya_ik two[2];
    rig_iks(two, &neck);
    two[0].target.y = NAN;
    for (int i = 0; i < RIG_JOINTS; i++)
        oroya_scene_set_transform(scene, nodes[i], &rest[i]);
    oroya_scene_update_world(scene);
    OT_CHECK(oroya_ik_scene_apply(scene, two, 2, &err) == OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "footL") != NULL, "%s", err.message);
    const oroya_transform *tr = oroya_scene_transforms(scene);
    OT_CHECK(memcmp(&tr[1], &rest[1], sizeof rest[1]) == 0);
    OT_CHECK(memcmp(&tr[2], &rest[2], sizeof rest[2]) == 0);
    OT_CHECK(memcmp(&tr[7].rotation, &rest[7].rotation, sizeof rest[7].rotation) != 0);
    for (int j = 0; j < RIG_JOINTS; j++)
        for (int k = 0; k < 16; k++)
            OT_CHECK(isfinite(oroya_scene_world_matrices(scene)[j].m[k]));

    oroya_pose_character_destroy(ch);
    oroya_pose_skeleton_destroy(skel);
    oroya_scene_destroy(scene);
}

/* Run-time fallbacks for values the set-up refuses (issue #17: "at run time, a documented
 * fallback (the pose unchanged)"): a pole or forward that is zero, tiny or a float denormal
 * leaves the chain bit for bit as it was, with OROYA_ERR_INVALID_DATA, on the scene path and
 * on the kernel path (which goes on silently). A pole parallel to the line to the target is
 * the documented deviation: the chain keeps its plane and still reaches the target. */
static void test_run_time_degenerate_pole_and_forward(void) {
    oroya_transform rest[RIG_JOINTS];
    rig_rest(rest);
    oroya_joint_limit free_limit = {0};
    oroya_error err = {0};
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node nodes[RIG_JOINTS];
    for (int i = 0; i < RIG_JOINTS; i++) {
        oroya_node parent = rig_parents[i] == UINT32_MAX ? (oroya_node){0} : nodes[rig_parents[i]];
        OT_CHECK(oroya_scene_add_node(scene, rig_names[i], parent, OROYA_NODE_BONE, &nodes[i]) ==
                 OROYA_OK);
        oroya_scene_set_transform(scene, nodes[i], &rest[i]);
    }
    oroya_scene_update_world(scene);
    oroya_transform tr0[RIG_JOINTS];
    oroya_mat4 world0[RIG_JOINTS];
    memcpy(tr0, oroya_scene_transforms(scene), sizeof tr0);
    memcpy(world0, oroya_scene_world_matrices(scene), sizeof world0);

    oroya_pose_skeleton *skel = NULL;
    oroya_pose_character *ch = NULL;
    OT_CHECK(oroya_pose_skeleton_create(&(oroya_pose_skeleton_desc){.joint_count = RIG_JOINTS,
                                                                    .parents = rig_parents,
                                                                    .rest = rest,
                                                                    .names = rig_names},
                                        &skel, &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &ch,
                                         &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    oroya_mat4 plain[RIG_JOINTS];
    memcpy(plain, oroya_pose_character_models(ch), sizeof plain);

    const float tiny[] = {0, 1e-30f, 1e-40f /* a float denormal */, 9e-7f, -5e-7f};
    for (int which = 0; which < 2; which++) {
        for (size_t t = 0; t < sizeof tiny / sizeof tiny[0]; t++) {
            oroya_ik iks[2];
            rig_iks(iks, &free_limit);
            oroya_ik *ik = &iks[which];
            /* Valid at set-up (the kernel validates there), degenerate afterwards. */
            OT_CHECK_MSG(oroya_pose_character_set_ik(ch, ik, 1, &err) == OROYA_OK, "%s",
                         err.message);
            if (which == 0)
                ik->pole = (oroya_vec3){0, 0, tiny[t]};
            else
                ik->forward = (oroya_vec3){tiny[t], 0, 0};
            const char *want = which == 0 ? "zero pole" : "zero forward";

            /* The scene path: the error, and every transform and matrix unchanged. */
            memset(&err, 0, sizeof err);
            OT_CHECK_MSG(oroya_ik_scene_apply(scene, ik, 1, &err) == OROYA_ERR_INVALID_DATA,
                         "%s %g: %s", want, (double)tiny[t], err.message);
            OT_CHECK_MSG(strstr(err.message, want) && strstr(err.message, "pose left unchanged"),
                         "%s", err.message);
            OT_CHECK_MSG(memcmp(tr0, oroya_scene_transforms(scene), sizeof tr0) == 0,
                         "%s %g: scene transforms changed", want, (double)tiny[t]);
            OT_CHECK_MSG(memcmp(world0, oroya_scene_world_matrices(scene), sizeof world0) == 0,
                         "%s %g: scene world matrices changed", want, (double)tiny[t]);
            /* The solver alone: the input rotations, the same error. */
            oroya_mat4 w[3];
            oroya_quat q[3], out[3];
            const uint32_t n = which == 0 ? 3 : 2;
            for (uint32_t k = 0; k < n; k++) {
                w[k] = world0[ik->joints[k]];
                q[k] = tr0[ik->joints[k]].rotation;
            }
            OT_CHECK(oroya_ik_solve_run(&(oroya_ik_solve_job){ik, w, q, out, NULL}, NULL) ==
                     OROYA_ERR_INVALID_DATA);
            /* The kernel path: the same models as without the IK, bit for bit. */
            OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
            OT_CHECK_MSG(memcmp(plain, oroya_pose_character_models(ch), sizeof plain) == 0,
                         "%s %g: the kernel changed the pose", want, (double)tiny[t]);
        }
    }

    /* A weight that became NaN at run time: the same fallback on every path ("weight is not a
     * number"), counted by the kernel path. */
    {
        oroya_ik nan_iks[2];
        rig_iks(nan_iks, &free_limit);
        oroya_ik *ik = &nan_iks[0];
        OT_CHECK(oroya_pose_character_set_ik(ch, ik, 1, &err) == OROYA_OK);
        ik->weight = NAN;
        memset(&err, 0, sizeof err);
        OT_CHECK(oroya_ik_scene_apply(scene, ik, 1, &err) == OROYA_ERR_INVALID_DATA);
        OT_CHECK_MSG(strstr(err.message, "weight is not a number; pose left unchanged"), "%s",
                     err.message);
        OT_CHECK(memcmp(tr0, oroya_scene_transforms(scene), sizeof tr0) == 0);
        OT_CHECK(memcmp(world0, oroya_scene_world_matrices(scene), sizeof world0) == 0);
        oroya_mat4 w[3];
        oroya_quat q[3], out[3];
        for (uint32_t k = 0; k < 3; k++) {
            w[k] = world0[ik->joints[k]];
            q[k] = tr0[ik->joints[k]].rotation;
        }
        OT_CHECK(oroya_ik_solve_run(&(oroya_ik_solve_job){ik, w, q, out, NULL}, NULL) ==
                 OROYA_ERR_INVALID_DATA);
        OT_CHECK(memcmp(out, q, sizeof q) == 0);
        OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
        OT_CHECK(memcmp(plain, oroya_pose_character_models(ch), sizeof plain) == 0);
        OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 1);
        OT_CHECK(oroya_pose_character_set_ik(ch, NULL, 0, &err) == OROYA_OK);
    }

    /* A pole parallel to the line to the target at run time (validate refuses it within
     * 1e-3 rad): no error, the chain is swung onto the target without a twist about the
     * line (its bend plane turned the shortest way), so the foot still reaches the target and
     * the pose does change. */
    oroya_ik iks[2];
    rig_iks(iks, &free_limit);
    oroya_ik *foot = &iks[0];
    foot->has_target_rotation = false;
    const oroya_vec3 hip = {world0[1].m[12], world0[1].m[13], world0[1].m[14]};
    foot->pole = oroya_vec3_sub(foot->target, hip);
    oroya_quat wq[3], outq[3];
    oroya_mat4 ww[3];
    for (uint32_t k = 0; k < 3; k++) {
        ww[k] = world0[foot->joints[k]];
        wq[k] = tr0[foot->joints[k]].rotation;
    }
    OT_CHECK(oroya_ik_solve_validate(&(oroya_ik_solve_job){foot, ww, wq, outq, NULL}, 0, &err) ==
             OROYA_ERR_INVALID_DATA);
    OT_CHECK(oroya_ik_scene_apply(scene, foot, 1, &err) == OROYA_OK);
    const oroya_mat4 *sw = oroya_scene_world_matrices(scene);
    const oroya_vec3 end = {sw[3].m[12], sw[3].m[13], sw[3].m[14]};
    OT_NEAR(oroya_vec3_length(oroya_vec3_sub(end, foot->target)), 0, 1e-5);
    OT_CHECK(memcmp(tr0, oroya_scene_transforms(scene), sizeof tr0) != 0);

    oroya_pose_character_destroy(ch);
    oroya_pose_skeleton_destroy(skel);
    oroya_scene_destroy(scene);
}

/* The largest difference between the scene path and the kernel path for one rig and IK list:
 * both start from the rest pose. */
static double paths_differ(const uint32_t *parents, const oroya_transform *rest, uint32_t n,
                           const oroya_ik *iks, uint32_t count) {
    oroya_error err = {0};
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node nodes[64];
    char names[64][16];
    const char *name_of[64];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "j%u", i);
        name_of[i] = names[i];
        oroya_node parent = parents[i] == UINT32_MAX ? (oroya_node){0} : nodes[parents[i]];
        OT_CHECK(oroya_scene_add_node(scene, names[i], parent, OROYA_NODE_BONE, &nodes[i]) ==
                 OROYA_OK);
        oroya_scene_set_transform(scene, nodes[i], &rest[i]);
    }
    oroya_scene_update_world(scene);
    OT_CHECK_MSG(oroya_ik_scene_apply(scene, iks, count, &err) == OROYA_OK, "%s", err.message);
    const oroya_mat4 *sw = oroya_scene_world_matrices(scene);
    oroya_pose_skeleton *skel = NULL;
    oroya_pose_character *ch = NULL;
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){
                     .joint_count = n, .parents = parents, .rest = rest, .names = name_of},
                 &skel, &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &ch,
                                         &err) == OROYA_OK);
    OT_CHECK_MSG(oroya_pose_character_set_ik(ch, iks, count, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    const oroya_mat4 *models = oroya_pose_character_models(ch);
    const oroya_mat4 *bones = oroya_pose_character_bones(ch);
    /* The 4-wide kernel gives the same bits as the best one (8-wide with AVX2). */
    oroya_pose_character *twin = NULL;
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &twin,
                                         &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_set_ik(twin, iks, count, &err) == OROYA_OK);
    oroya__pose_run_update(twin, NULL, 0, 1);
    OT_CHECK(memcmp(twin->models, models, n * sizeof *models) == 0);
    OT_CHECK(memcmp(twin->bones, bones, n * sizeof *bones) == 0);
    oroya_pose_character_destroy(twin);
    double worst = 0;
    for (uint32_t j = 0; j < n; j++)
        for (int k = 0; k < 16; k++) {
            worst = fmax(worst, fabs((double)models[j].m[k] - (double)sw[j].m[k]));
            worst = fmax(worst, fabs((double)bones[j].m[k] - (double)sw[j].m[k]));
        }
    oroya_pose_character_destroy(ch);
    oroya_pose_skeleton_destroy(skel);
    oroya_scene_destroy(scene);
    return worst;
}

/* The kernel runs IKs inside local-to-model, 4 or 8 joints at a time: chains that span
 * several of those steps, with joints between the IK's joints and children after them, and
 * a list whose order the kernel must keep (an IK after one below it in the skeleton). */
static void test_kernel_chains_across_blocks(void) {
    /* A long leg 0..13 (joint i's parent i - 1) and a side branch 14..19 off joint 3. */
    enum { N = 20 };
    uint32_t parents[N];
    oroya_transform rest[N];
    for (uint32_t i = 0; i < N; i++) {
        parents[i] = i == 0 ? UINT32_MAX : i == 14 ? 3 : i - 1;
        rest[i] = oroya_transform_identity();
        rest[i].translation = i ? (oroya_vec3){0.02f, -0.2f, 0.01f} : (oroya_vec3){0, 3, 0};
        rest[i].rotation = rand_quat(0.2f);
    }
    oroya_ik leg = {.type = OROYA_IK_TWO_BONE,
                    .name = "leg",
                    .joints = {5, 9, 12},
                    .target = {0.3f, 1.8f, 0.4f},
                    .pole = {0, 0, 1},
                    .weight = 1};
    oroya_ik aim = {.type = OROYA_IK_AIM,
                    .name = "branch",
                    .joints = {15, 17, 19},
                    .joint_count = 3,
                    .shares = {0.3f, 0.3f, 0.4f},
                    .forward = {1, 0, 0},
                    .up = {0, 1, 0},
                    .target = {2, 1, 1},
                    .weight = 1};
    /* The whole leg from the top: listed after the leg, it moves the leg's chain. */
    oroya_ik top = {.type = OROYA_IK_AIM,
                    .name = "top",
                    .joints = {2, 4},
                    .joint_count = 2,
                    .shares = {0.5f, 0.5f},
                    .forward = {0, -1, 0},
                    .target = {-1, 1, 0},
                    .weight = 0.7f};
    oroya_ik list1[2] = {leg, aim};
    double d = paths_differ(parents, rest, N, list1, 2);
    OT_CHECK_MSG(d < 1e-5, "leg and branch: scene and kernel differ by %g", d);
    oroya_ik list2[3] = {leg, aim, top};
    d = paths_differ(parents, rest, N, list2, 3);
    OT_CHECK_MSG(d < 1e-5, "an IK above an earlier one: scene and kernel differ by %g", d);
    oroya_ik list3[3] = {top, leg, aim};
    d = paths_differ(parents, rest, N, list3, 3);
    OT_CHECK_MSG(d < 1e-5, "top first: scene and kernel differ by %g", d);
}

/* A step of the pass (4 or 8 joints) that holds a first joint whose parent is in the step
 * and, after it, one whose parent is in an earlier step (4-wide: that one's IKs run before
 * the step, ahead of the other), and a first joint whose parent is in an earlier step at
 * both widths: the result is still that of list order, at both widths alike. */
static void test_kernel_roots_before_their_step(void) {
    enum { N = 16 };
    static const uint32_t parents[N] = {UINT32_MAX, 0, 1, 2,  3, 4,  1,  6,
                                        7,          5, 9, 10, 3, 12, 13, 14};
    oroya_transform rest[N];
    for (uint32_t i = 0; i < N; i++) {
        rest[i] = oroya_transform_identity();
        rest[i].translation = i ? (oroya_vec3){0.03f, -0.2f, 0.02f} : (oroya_vec3){0, 3, 0};
        rest[i].rotation = rand_quat(0.2f);
    }
    oroya_ik a = {.type = OROYA_IK_TWO_BONE,
                  .name = "a",
                  .joints = {5, 9, 11},
                  .target = {0.5f, 1.2f, 0.3f},
                  .pole = {0, 0, 1},
                  .weight = 1};
    oroya_ik b = {.type = OROYA_IK_AIM,
                  .name = "b",
                  .joints = {6, 7, 8},
                  .joint_count = 3,
                  .shares = {0.3f, 0.3f, 0.4f},
                  .forward = {1, 0, 0},
                  .up = {0, 1, 0},
                  .target = {2, 2, 1},
                  .weight = 1};
    oroya_ik c = {.type = OROYA_IK_TWO_BONE,
                  .name = "c",
                  .joints = {12, 13, 15},
                  .target = {-0.3f, 2.0f, 0.4f},
                  .pole = {0, 0, 1},
                  .weight = 0.8f};
    oroya_ik list1[3] = {a, b, c};
    double d = paths_differ(parents, rest, N, list1, 3);
    OT_CHECK_MSG(d < 1e-5, "a, b, c: scene and kernel differ by %g", d);
    oroya_ik list2[3] = {c, b, a};
    d = paths_differ(parents, rest, N, list2, 3);
    OT_CHECK_MSG(d < 1e-5, "c, b, a: scene and kernel differ by %g", d);
}

/* A two-bone leg at weight 1 on joints first, first + 1, first + 2 (the float path's case). */
static oroya_ik leg_ik(const char *name, uint32_t first, oroya_vec3 target) {
    return (oroya_ik){.type = OROYA_IK_TWO_BONE,
                      .name = name,
                      .joints = {first, first + 1, first + 2},
                      .target = target,
                      .pole = {0, 0, 1},
                      .weight = 1};
}

/* The IKs of one point of the pass run together: a humanoid of 56 joints with a neck aim chain
 * whose first joint's parent is in its step (the point is the neck itself) and two legs from
 * the hips that run at the same point, their two-bone solves side by side and between the
 * aim chain's joints (the IKs set up for the float paths: weight 1, no limits, no eye offset).
 * The result is the scene path's (1e-5) and the same bits at both widths (paths_differ); a
 * leg's run-time fallback leaves that leg as blended and the rest solved. */
static void test_kernel_legs_with_neck(void) {
    enum { N = 56 };
    uint32_t parents[N];
    oroya_transform rest[N];
    for (uint32_t i = 0; i < N; i++) {
        uint32_t p = i - 1; /* the spine 1..4, the neck 5..7 */
        if (i == 0) {
            p = UINT32_MAX;
        } else if (i >= 8 && i < 12) {
            p = 7; /* head_end, jaw, eyes */
        } else if (i == 12 || i == 28) {
            p = 4; /* the shoulders */
        } else if (i > 12 && i < 44 && i != 28) {
            p = i % 5 == 0 ? i - 3 : i - 1; /* arms and fingers */
        } else if (i == 44 || i == 50) {
            p = 0; /* the legs */
        }
        parents[i] = p;
        rest[i] = oroya_transform_identity();
        rest[i].translation =
            i ? (oroya_vec3){0.03f * (float)(i % 3) - 0.03f, 0.12f, 0.02f} : (oroya_vec3){0, 1, 0};
        if (i >= 44) {
            rest[i].translation = (oroya_vec3){i == 44   ? 0.1f
                                               : i == 50 ? -0.1f
                                                         : 0.01f,
                                               -0.4f, 0.03f};
        }
        rest[i].rotation = rand_quat(0.15f);
    }
    oroya_ik iks[3] = {
        leg_ik("footL", 44, (oroya_vec3){0.15f, 0.3f, 0.25f}),
        {.type = OROYA_IK_AIM,
         .name = "head",
         .joints = {5, 6, 7},
         .joint_count = 3,
         .shares = {0.3f, 0.3f, 0.4f},
         .forward = {0, 0, 1},
         .up = {0, 1, 0},
         .target = {0.6f, 1.9f, 2},
         .weight = 1},
        leg_ik("footR", 50, (oroya_vec3){-0.2f, 0.35f, 0.2f}),
    };
    double d = paths_differ(parents, rest, N, iks, 3);
    OT_CHECK_MSG(d < 1e-5, "legs with the neck: scene and kernel differ by %g", d);
    /* At run time a leg whose pole became zero or whose target is not finite falls back (its
     * chain as blended, bit for bit) while the other leg and the neck, solved beside it,
     * still are: the pose without IK, then the IKs, then each leg broken in turn. */
    oroya_pose_skeleton *skel = NULL;
    oroya_pose_character *ch = NULL;
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){.joint_count = N, .parents = parents, .rest = rest},
                 &skel, NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &ch,
                                         NULL) == OROYA_OK);
    static oroya_mat4 plain[N], solved[N], now[N];
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    memcpy(plain, oroya_pose_character_models(ch), sizeof plain);
    OT_CHECK(oroya_pose_character_set_ik(ch, iks, 3, NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    memcpy(solved, oroya_pose_character_models(ch), sizeof solved);
    OT_CHECK(memcmp(plain + 44, solved + 44, 6 * sizeof *plain) != 0);
    OT_CHECK(memcmp(plain + 50, solved + 50, 6 * sizeof *plain) != 0);
    for (int bad = 0; bad < 4; bad++) {
        oroya_ik *leg = &iks[bad & 1 ? 2 : 0];
        const oroya_ik keep = *leg;
        if (bad < 2) {
            leg->pole = (oroya_vec3){0, 0, 0};
        } else {
            leg->target.y = NAN;
        }
        OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
        memcpy(now, oroya_pose_character_models(ch), sizeof now);
        const uint32_t broken = bad & 1 ? 50 : 44, other = bad & 1 ? 44 : 50;
        OT_CHECK_MSG(memcmp(now + broken, plain + broken, 6 * sizeof *now) == 0,
                     "case %d: the broken leg is not as blended", bad);
        OT_CHECK_MSG(memcmp(now + other, solved + other, 6 * sizeof *now) == 0,
                     "case %d: the other leg is not solved", bad);
        OT_CHECK_MSG(memcmp(now, solved, 44 * sizeof *now) == 0, "case %d: the neck changed", bad);
        /* The fallback is reported: one IK, the broken leg's index in the list. */
        uint32_t first = 0;
        OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, &first), 1);
        OT_EQ_INT(first, bad & 1 ? 2 : 0);
        *leg = keep;
    }
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    uint32_t none = 0;
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, &none), 0);
    OT_EQ_INT(none, UINT32_MAX);
    /* A weight that became NaN is not "off": the chain stays as blended and it is reported
     * (with the neck's bad target: two fallbacks, the lowest index first). */
    iks[2].weight = NAN;
    iks[1].target.x = INFINITY;
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
    memcpy(now, oroya_pose_character_models(ch), sizeof now);
    OT_CHECK(memcmp(now + 50, plain + 50, 6 * sizeof *now) == 0);
    OT_CHECK(memcmp(now + 5, plain + 5, 3 * sizeof *now) == 0);
    OT_CHECK(memcmp(now + 44, solved + 44, 6 * sizeof *now) == 0);
    OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, &none), 2);
    OT_EQ_INT(none, 1);
    iks[2].weight = 1;
    iks[1].target.x = 0.6f;
    /* Weights switched to 0 at run time (a root whose IKs are all off is passed over by the
     * pass): all three off gives the pose without IK bit for bit; the neck off (the first
     * root) leaves joints 0-43 as blended and the legs solved; the legs off leave them as
     * blended and the neck solved. */
    for (int off = 0; off < 3; off++) {
        iks[0].weight = iks[2].weight = off == 1 ? 1.0f : 0.0f;
        iks[1].weight = off == 2 ? 1.0f : 0.0f;
        OT_CHECK(oroya_pose_character_update(ch, NULL, 0, NULL) == OROYA_OK);
        memcpy(now, oroya_pose_character_models(ch), sizeof now);
        const oroya_mat4 *upper = off == 2 ? solved : plain, *legs = off == 1 ? solved : plain;
        OT_CHECK_MSG(memcmp(now, upper, 44 * sizeof *now) == 0, "weights off %d: joints 0-43", off);
        OT_CHECK_MSG(memcmp(now + 44, legs + 44, 12 * sizeof *now) == 0, "weights off %d: the legs",
                     off);
        OT_EQ_INT(oroya_pose_character_ik_fallbacks(ch, NULL), 0); /* off is not a fallback */
    }
    oroya_pose_character_destroy(ch);
    oroya_pose_skeleton_destroy(skel);
}

/* An allocator that fails once `left` allocations have been made. */
typedef struct {
    int left;
} failing_alloc;
static void *failing_alloc_fn(size_t size, size_t align, void *user) {
    failing_alloc *f = user;
    if (f->left <= 0) {
        return NULL;
    }
    f->left--;
    const size_t a = align < sizeof(void *) ? sizeof(void *) : align;
    return aligned_alloc(a, (size + a - 1) / a * a);
}
static void failing_free_fn(void *p, void *user) {
    (void)user;
    free(p);
}

/* set_ik allocates the list's plan: out of memory, it says so and keeps the previous list. */
static void test_set_ik_out_of_memory(void) {
    enum { N = 4 };
    static const uint32_t parents[N] = {UINT32_MAX, 0, 1, 2};
    oroya_transform rest[N];
    for (uint32_t i = 0; i < N; i++) {
        rest[i] = oroya_transform_identity();
        rest[i].translation = i ? (oroya_vec3){0.02f, -0.3f, 0.01f} : (oroya_vec3){0, 1, 0};
    }
    oroya_error err = {0};
    oroya_pose_skeleton *skel = NULL;
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){.joint_count = N, .parents = parents, .rest = rest},
                 &skel, &err) == OROYA_OK);
    failing_alloc fa = {1}; /* the character itself, then nothing */
    oroya_pose_character *ch = NULL;
    OT_CHECK(oroya_pose_character_create(
                 &(oroya_pose_character_desc){
                     .skeleton = skel, .allocator = {failing_alloc_fn, failing_free_fn, &fa}},
                 &ch, &err) == OROYA_OK);
    oroya_ik leg = {.type = OROYA_IK_TWO_BONE,
                    .joints = {1, 2, 3},
                    .target = {0.3f, 0.6f, 0.2f},
                    .pole = {0, 0, 1},
                    .weight = 1};
    OT_CHECK(oroya_pose_character_set_ik(ch, &leg, 1, &err) == OROYA_ERR_OUT_OF_MEMORY);
    OT_CHECK(strstr(err.message, "oroya_pose_character_set_ik") != NULL);
    /* No list was set: the update leaves the pose as blended (the rest pose). */
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    oroya_mat4 plain[N];
    memcpy(plain, oroya_pose_character_models(ch), sizeof plain);
    fa.left = 1;
    OT_CHECK(oroya_pose_character_set_ik(ch, &leg, 1, &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    const oroya_mat4 *with = oroya_pose_character_models(ch);
    OT_CHECK(memcmp(plain, with, sizeof plain) != 0);
    oroya_mat4 solved[N];
    memcpy(solved, with, sizeof solved);
    /* A second list out of memory keeps the first. */
    oroya_ik moved = leg;
    moved.target.x = -0.3f;
    OT_CHECK(oroya_pose_character_set_ik(ch, &moved, 1, &err) == OROYA_ERR_OUT_OF_MEMORY);
    OT_CHECK(oroya_pose_character_update(ch, NULL, 0, &err) == OROYA_OK);
    OT_CHECK(memcmp(solved, oroya_pose_character_models(ch), sizeof solved) == 0);
    oroya_pose_character_destroy(ch);
    oroya_pose_skeleton_destroy(skel);
}

/* |q|^2 - 1 of the worst of the chain's local rotations. */
static double worst_unit(const chain *c) {
    double worst = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const oroya_quat q = c->r[i];
        const double n2 =
            (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w;
        worst = fabs(n2 - 1) > worst ? fabs(n2 - 1) : worst;
    }
    return worst;
}

/* The rotations a solve writes are unit to float's rounding, so the bones they turn keep their
 * lengths, also where a turn is near a half turn (a chain folded from straight, unfolded from
 * folded, or swung nearly backwards): there 1 + cos has cancelled, and a length taken as
 * 2 (1 + cos) left rotations up to 3e-4 off unit (the double solver) and 2.5e-5 (the float
 * two-bone swing), and a shin 6.4e-4 longer (the first case, found by an adversarial fuzz). */
static void test_outputs_unit(void) {
    chain c;
    memset(&c, 0, sizeof c);
    c.n = 3;
    c.base = oroya_mat4_identity();
    const float l1 = 0x1.ed4756p-2f, l2 = 0x1.87c08ep+0f;
    c.t[1] = (oroya_vec3){0, -l1, 0}, c.t[2] = (oroya_vec3){0, -l2, 0};
    c.r[0] = (oroya_quat){0x1.c4a3fap-24f, -0x1.29af08p-20f, 0x1.913282p-23f, 1};
    c.r[1] = (oroya_quat){-0x1.7bae06p-21f, -0x1.ee95b4p-22f, 0x1.f8f604p-22f, 1};
    c.r[2] = (oroya_quat){0x1.976bdep-21f, -0x1.80fcdap-21f, -0x1.c48e8cp-21f, 1};
    chain_update(&c);
    oroya_ik ik = {.type = OROYA_IK_TWO_BONE,
                   .target = {0x1.19177ap-3f, -0x1.d43ad4p-3f, 0x1.ab307cp-3f},
                   .pole = {0x1.a77ad8p-1f, -0x1.ad97dp-2f, 0x1.7efeb2p-2f},
                   .weight = 0x1.51659p-1f};
    OT_EQ_INT(solve(&c, &ik, NULL), OROYA_OK);
    OT_CHECK_MSG(worst_unit(&c) < 1e-6, "|q|^2 - 1 = %g", worst_unit(&c));
    OT_CHECK_MSG(fabs(bone(&c, 2) / l2 - 1) < 1e-6, "shin %.9g, was %.9g", (double)bone(&c, 2),
                 (double)l2);
    /* Random chains near straight, near folded and with a given hinge, targets anywhere from
     * 0.01 to 1.2 chain lengths away (so folding and straightening turns near a half turn),
     * and targets behind the chain's end (swings of 150 to 180 degrees). */
    double worst = 0;
    int cases = 0;
    for (int mode = 0; mode < 4; mode++) {
        for (int it = 0; it < 3000; it++) {
            chain_random(&c, 3);
            /* Both bones along one direction: straight but for the tiny rotations. */
            const oroya_vec3 along = rand_dir();
            c.t[1] = oroya_vec3_scale(along, ot_randf(0.2f, 2.0f));
            c.t[2] = oroya_vec3_scale(along, ot_randf(0.2f, 2.0f));
            const float tiny = powf(10, ot_randf(-7, -2));
            c.r[1] = mode == 1
                         ? oroya_quat_mul(oroya_quat_from_axis_angle(rand_dir(), 3.1415927f - tiny),
                                          rand_quat(tiny))
                         : rand_quat(mode == 3 ? 1.5f : tiny);
            c.r[2] = rand_quat(tiny);
            chain_update(&c);
            const float len = chain_length(&c);
            oroya_vec3 dir = rand_dir();
            if (mode == 3) {
                /* Behind the end: from the first joint, against the line to the end. */
                const oroya_vec3 back =
                    oroya_vec3_normalize(oroya_vec3_sub(pos(&c, 0), pos(&c, 2)));
                dir =
                    oroya_vec3_normalize(oroya_vec3_add(back, oroya_vec3_scale(rand_dir(), 0.5f)));
            }
            ik = (oroya_ik){.type = OROYA_IK_TWO_BONE,
                            .target = oroya_vec3_add(
                                pos(&c, 0), oroya_vec3_scale(dir, len * ot_randf(0.01f, 1.2f))),
                            .pole = rand_dir(),
                            .weight = it % 2 ? 1 : ot_randf(0.01f, 1)};
            if (mode == 2) {
                ik.mid_axis = rand_dir();
            }
            if (solve(&c, &ik, NULL) != OROYA_OK) {
                continue; /* a pole parallel to the line: the fallback leaves the input */
            }
            const double u = worst_unit(&c);
            worst = u > worst ? u : worst;
            cases++;
        }
    }
    /* The float path's rotations are products of float rotations, its few roundings up to
     * 1e-6 in |q|^2 (the blend's own are within 1e-6 too); the double solver's are rounded
     * once. */
    OT_CHECK_MSG(worst < (use_fast ? 2e-6 : 1e-6), "worst |q|^2 - 1 over %d solves: %g", cases,
                 worst);
    OT_CHECK(cases > 11000);
}

int main(void) {
    OT_RUN(test_fallback_normalizes_tiny_rotations);
    OT_RUN(test_reachable_target_is_reached);
    OT_RUN(test_unreachable_target_straightens_the_chain);
    OT_RUN(test_pole_is_respected);
    OT_RUN(test_weight);
    OT_RUN(test_limits_never_violated);
    OT_RUN(test_continuity);
    OT_RUN(test_soft_limit);
    OT_RUN(test_target_rotation);
    OT_RUN(test_mid_axis);
    OT_RUN(test_aim);
    OT_RUN(test_aim_shares);
    OT_RUN(test_aim_limits);
    OT_RUN(test_aim_pivot_near_target);
    OT_RUN(test_aim_sweep);
    OT_RUN(test_partial_turn_error);
    OT_RUN(test_validation_table);
    OT_RUN(test_scene_and_kernel_agree);
    OT_RUN(test_run_time_degenerate_pole_and_forward);
    OT_RUN(test_run_time_bad_local_rotation);
    OT_RUN(test_kernel_chains_across_blocks);
    /* Last, so the tests above draw the random cases they always drew. The two-bone
     * properties again through the float path, at the same tolerances. */
    use_fast = true;
    OT_RUN(test_reachable_target_is_reached);
    unsigned reach_taken = fast_taken, reach_all = fast_taken + fast_declined + fast_other;
    OT_RUN(test_unreachable_target_straightens_the_chain);
    OT_RUN(test_pole_is_respected);
    OT_RUN(test_weight);
    OT_RUN(test_limits_never_violated);
    OT_RUN(test_continuity);
    OT_RUN(test_soft_limit);
    OT_RUN(test_target_rotation);
    OT_RUN(test_mid_axis);
    const unsigned two_bone[3] = {fast_taken, fast_declined, fast_other};
    fast_taken = fast_declined = fast_other = 0;
    /* The aim properties through the float aim path. */
    OT_RUN(test_aim);
    unsigned aim_taken = fast_taken, aim_all = fast_taken + fast_declined + fast_other;
    OT_RUN(test_aim_shares);
    OT_RUN(test_aim_limits);
    const unsigned aim_counts[3] = {fast_taken, fast_declined, fast_other};
    OT_RUN(test_aim_pivot_near_target);
    OT_RUN(test_aim_sweep);
    printf("float aim path on the near-target cases and the sweep: %u taken, %u sent to the double "
           "solver, %u not its "
           "case\n",
           fast_taken - aim_counts[0], fast_declined - aim_counts[1], fast_other - aim_counts[2]);
    fast_taken = aim_counts[0], fast_declined = aim_counts[1], fast_other = aim_counts[2];
    use_fast = false;
    /* After the random draws above, so they stay what they were. */
    OT_RUN(test_kernel_roots_before_their_step);
    OT_RUN(test_kernel_legs_with_neck);
    OT_RUN(test_set_ik_out_of_memory);
    /* After every other draw; once per solver. */
    OT_RUN(test_outputs_unit);
    use_fast = true;
    OT_RUN(test_outputs_unit);
    use_fast = false;
    printf("float aim path: %u solves taken, %u sent to the double solver by the conditioning "
           "test, %u not its case (test_aim: %u of %u taken)\n",
           fast_taken, fast_declined, fast_other, aim_taken, aim_all);
    /* Two thirds of test_aim's cases have an eye offset (not the float path's case). */
    OT_CHECK(aim_taken > aim_all / 4);
    fast_taken = two_bone[0], fast_declined = two_bone[1], fast_other = two_bone[2];
    printf("float two-bone path: %u solves taken, %u sent to the double solver by the "
           "conditioning test, %u not its case (reachable targets: %u of %u taken)\n",
           fast_taken, fast_declined, fast_other, reach_taken, reach_all);
    /* Most random reachable cases are well conditioned: the float path must take them. */
    OT_CHECK(reach_taken > reach_all * 3 / 4);
    return ot_finish();
}
