/* The per-frame kernel of the pose layer, written once for two vector widths and included by
 * two translation units:
 *   src/anim/pose.c        OROYA__PK_WIDTH 4: one SoA block (4 joints) per step, SSE2 (the x86-64
 *                     baseline) or portable C;
 *   src/anim/pose_avx2.c   OROYA__PK_WIDTH 8: two blocks per step in 256-bit AVX2 registers,
 *                     picked at run time.
 * Before including, define OROYA__PK_WIDTH and include internal/pose_simd.h (and, for width
 * 8, <immintrin.h> under an AVX2 target). Everything here is static.
 *
 * Both widths give bit-identical results, which keeps crowds deterministic across machines:
 * every lane does the same IEEE operations in the same order whatever its neighbours do.
 * Branches on a whole vector (movemask) only skip work whose lanes would be discarded by a
 * select anyway, never choose between two formulas for a lane. No FMA (ISO C mode keeps
 * a * b + c as two roundings, and the baseline has none). Key records are gathered one block
 * (4 lanes) at a time, so which records a lane reads does not depend on the width either. */
#ifndef OROYA_INTERNAL_POSE_KERNEL_H
#define OROYA_INTERNAL_POSE_KERNEL_H

#include <string.h>

#include "internal/pose.h"
#include "internal/track.h"
#include "oroya/rotation.h"

#ifndef OROYA__INLINE
#if defined(__GNUC__) || defined(__clang__)
#define OROYA__INLINE inline __attribute__((always_inline))
#else
#define OROYA__INLINE inline
#endif
#endif

/* ---- the vector type of this width --------------------------------------------------------- */

#if OROYA__PK_WIDTH == 8
typedef __m256 vf;
enum { VF_ALL = 0xFF, PK_BLOCKS = 2 };
static OROYA__INLINE vf vf_set1(float a) { return _mm256_set1_ps(a); }
static OROYA__INLINE vf vf_zero(void) { return _mm256_setzero_ps(); }
static OROYA__INLINE vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static OROYA__INLINE vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
static OROYA__INLINE vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static OROYA__INLINE vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
static OROYA__INLINE vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }
static OROYA__INLINE vf vf_min(vf a, vf b) { return _mm256_min_ps(a, b); }
static OROYA__INLINE vf vf_max(vf a, vf b) { return _mm256_max_ps(a, b); }
/* The ordered, quiet predicates: the same results as SSE2's cmplt/cmpge/cmpgt/cmpeq. */
static OROYA__INLINE vf vf_lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static OROYA__INLINE vf vf_ge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
static OROYA__INLINE vf vf_gt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static OROYA__INLINE vf vf_eq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static OROYA__INLINE vf vf_and(vf a, vf b) { return _mm256_and_ps(a, b); }
static OROYA__INLINE vf vf_xor(vf a, vf b) { return _mm256_xor_ps(a, b); }
static OROYA__INLINE vf vf_or(vf a, vf b) { return _mm256_or_ps(a, b); }
/* mask ? a : b; masks are all-ones or all-zeros per lane, so blendv's sign test agrees. */
static OROYA__INLINE vf vf_select(vf mask, vf a, vf b) { return _mm256_blendv_ps(b, a, mask); }
static OROYA__INLINE int vf_movemask(vf mask) { return _mm256_movemask_ps(mask); }
static OROYA__INLINE vf vf_sign_bit(void) {
    return _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN));
}
/* Lanes 0-3 from block b (lo), 4-7 from block b2 (hi). */
static OROYA__INLINE vf vf_halves(v4 lo, v4 hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}
static OROYA__INLINE vf vf_load2(const float *lo, const float *hi) {
    return vf_halves(_mm_load_ps(lo), _mm_load_ps(hi));
}
static OROYA__INLINE vf vf_masks(const uint32_t *lo, const uint32_t *hi) {
    return vf_halves(_mm_loadu_ps((const float *)lo), _mm_loadu_ps((const float *)hi));
}
static OROYA__INLINE void vf_store2(float *lo, float *hi, vf a) {
    _mm_store_ps(lo, _mm256_castps256_ps128(a));
    if (hi) {
        _mm_store_ps(hi, _mm256_extractf128_ps(a, 1));
    }
}
/* A constant from a row of 4 equal floats: one broadcast. */
static OROYA__INLINE vf vf_row(const float *row4) { return _mm256_broadcast_ss(row4); }
#else
typedef v4 vf;
enum { VF_ALL = 0xF, PK_BLOCKS = 1 };
#define vf_set1 v4_set1
#define vf_zero v4_zero
#define vf_add v4_add
#define vf_sub v4_sub
#define vf_mul v4_mul
#define vf_div v4_div
#define vf_sqrt v4_sqrt
#define vf_min v4_min
#define vf_max v4_max
#define vf_lt v4_lt
#define vf_ge v4_ge
#define vf_gt v4_gt
#define vf_eq v4_eq
#define vf_and v4_and
#define vf_xor v4_xor
#define vf_or v4_or
#define vf_select v4_select
#define vf_movemask v4_movemask
#define vf_sign_bit v4_sign_bit
static OROYA__INLINE vf vf_load2(const float *lo, const float *hi) {
    (void)hi;
    return v4_load(lo);
}
static OROYA__INLINE vf vf_masks(const uint32_t *lo, const uint32_t *hi) {
    (void)hi;
    return v4_loadu((const float *)lo);
}
static OROYA__INLINE void vf_store2(float *lo, float *hi, vf a) {
    (void)hi;
    v4_store(lo, a);
}
static OROYA__INLINE vf vf_row(const float *row4) { return v4_load(row4); }
#endif

/* ---- quaternion and vector helpers ----------------------------------------------------------- */

typedef struct q4 {
    vf x, y, z, w;
} q4;
typedef struct t4 {
    vf x, y, z;
} t4;

static _Alignas(16) const float pk_one[4] = {1, 1, 1, 1};

static OROYA__INLINE vf madd(vf a, vf b, vf c) { return vf_add(vf_mul(a, b), c); }
static OROYA__INLINE vf q4_dot(q4 a, q4 b) {
    return madd(a.x, b.x, madd(a.y, b.y, madd(a.z, b.z, vf_mul(a.w, b.w))));
}
static OROYA__INLINE q4 q4_scale2(q4 a, vf s, q4 b, vf t) {
    q4 r = {madd(a.x, s, vf_mul(b.x, t)), madd(a.y, s, vf_mul(b.y, t)),
            madd(a.z, s, vf_mul(b.z, t)), madd(a.w, s, vf_mul(b.w, t))};
    return r;
}
static OROYA__INLINE q4 q4_select(vf m, q4 a, q4 b) {
    q4 r = {vf_select(m, a.x, b.x), vf_select(m, a.y, b.y), vf_select(m, a.z, b.z),
            vf_select(m, a.w, b.w)};
    return r;
}
static OROYA__INLINE q4 q4_scale(q4 a, vf k) {
    q4 r = {vf_mul(a.x, k), vf_mul(a.y, k), vf_mul(a.z, k), vf_mul(a.w, k)};
    return r;
}
/* One division and four products: within an ulp of dividing each component. */
static OROYA__INLINE q4 q4_normalize(q4 a) {
    return q4_scale(a, vf_div(vf_set1(1.0f), vf_sqrt(q4_dot(a, a))));
}
static OROYA__INLINE q4 q4_mul(q4 a, q4 b) {
    q4 r;
    r.x = vf_sub(madd(a.w, b.x, madd(a.x, b.w, vf_mul(a.y, b.z))), vf_mul(a.z, b.y));
    r.y = vf_sub(madd(a.w, b.y, madd(a.y, b.w, vf_mul(a.z, b.x))), vf_mul(a.x, b.z));
    r.z = vf_sub(madd(a.w, b.z, madd(a.z, b.w, vf_mul(a.x, b.y))), vf_mul(a.y, b.x));
    r.w = vf_sub(vf_sub(vf_sub(vf_mul(a.w, b.w), vf_mul(a.x, b.x)), vf_mul(a.y, b.y)),
                 vf_mul(a.z, b.z));
    return r;
}

/* sin(u * theta) / sin(theta) as a series in z = cos(theta) - 1: the terms are
 * b_0 = u, b_i = b_(i-1) (u^2 - i^2) z / (i (2i + 1)), evaluated here in Horner form with
 * `terms` terms. Checked in double: for u in [0, 1] and cos(theta) >= 0.9, 4 terms leave
 * 4e-8; for u in [0, 2] and cos(theta) >= cos(pi/4) (the half angle below), 7 terms leave
 * 2e-8. Both are below float's resolution of the weights. Rows of 4 equal floats, so each
 * constant is one load (SSE2) or one broadcast (AVX2). */
#define SERIES_ROW(c)                                                                              \
    { (c), (c), (c), (c) }
static _Alignas(16) const float series_c[8][4] = {
    SERIES_ROW(0.0f),      SERIES_ROW(1.0f / 3),  SERIES_ROW(1.0f / 10), SERIES_ROW(1.0f / 21),
    SERIES_ROW(1.0f / 36), SERIES_ROW(1.0f / 55), SERIES_ROW(1.0f / 78), SERIES_ROW(1.0f / 105)};
static _Alignas(16) const float series_i2[8][4] = {
    SERIES_ROW(0.0f),  SERIES_ROW(1.0f),  SERIES_ROW(4.0f),  SERIES_ROW(9.0f),
    SERIES_ROW(16.0f), SERIES_ROW(25.0f), SERIES_ROW(36.0f), SERIES_ROW(49.0f)};
#undef SERIES_ROW
static OROYA__INLINE void sin_ratio2(vf us, vf ut, vf z, int terms, vf *out_s, vf *out_t) {
    const vf one = vf_row(pk_one);
    vf s2 = vf_mul(us, us), t2 = vf_mul(ut, ut);
    vf rs = one, rt = one;
    for (int i = terms; i >= 1; i--) {
        vf zc = vf_mul(z, vf_row(series_c[i]));
        vf ii = vf_row(series_i2[i]);
        rs = madd(vf_mul(vf_sub(s2, ii), zc), rs, one);
        rt = madd(vf_mul(vf_sub(t2, ii), zc), rt, one);
    }
    *out_s = vf_mul(us, rs);
    *out_t = vf_mul(ut, rt);
}

/* Quaternion.slerpFlat of three.js 0.187 (the same arithmetic as oroya_track_sample's, in
 * float): shortest arc, lerp + normalize from dot 0.9995 up. The true slerp weights come from
 * the series above, so no lane calls sin or acos. Per lane: with dot >= 0.9 directly (keys of
 * a clip, most blends), else through the half angle,
 * sin(t theta) / sin(theta) = f(2t, theta / 2) / (2 cos(theta / 2)). */
static OROYA__INLINE q4 q4_slerp(const q4 *pa, const q4 *pb, vf t, bool exact) {
    const q4 a = *pa;
    q4 b = *pb;
    vf d = q4_dot(a, b);
    vf flip = vf_and(vf_lt(d, vf_zero()), vf_sign_bit());
    b.x = vf_xor(b.x, flip);
    b.y = vf_xor(b.y, flip);
    b.z = vf_xor(b.z, flip);
    b.w = vf_xor(b.w, flip);
    d = vf_xor(d, flip);
    const vf one = vf_row(pk_one);
    vf s = vf_sub(one, t);
    vf near = vf_ge(d, vf_set1(0.9995f));
    const int near_bits = vf_movemask(near);
    vf cs = s, ct = t;
    if (near_bits != VF_ALL) {
        const vf close = vf_ge(d, vf_set1(0.9f));
        const int close_bits = vf_movemask(close);
        vf fs, ft;
        if (close_bits == VF_ALL) {
            sin_ratio2(s, t, vf_sub(d, one), 4, &fs, &ft);
        } else {
            vf y = vf_sqrt(vf_mul(vf_add(one, vf_min(d, one)), vf_set1(0.5f)));
            vf inv = vf_div(vf_set1(0.5f), y);
            sin_ratio2(vf_add(s, s), vf_add(t, t), vf_sub(y, one), 7, &fs, &ft);
            fs = vf_mul(fs, inv);
            ft = vf_mul(ft, inv);
            if (close_bits & ~near_bits) {
                /* Lanes at dot in [0.9, 0.9995) take the direct series, whatever their
                 * neighbours need. */
                vf gs, gt;
                sin_ratio2(s, t, vf_sub(d, one), 4, &gs, &gt);
                fs = vf_select(close, gs, fs);
                ft = vf_select(close, gt, ft);
            }
        }
        cs = vf_select(near, cs, fs);
        ct = vf_select(near, ct, ft);
    }
    q4 r = q4_scale2(a, cs, b, ct);
    if (near_bits) {
        /* slerpFlat's "lerp then normalize" for small angles (it renormalizes keys that are
         * not quite unit too). */
        const vf one_over = vf_div(one, vf_sqrt(q4_dot(r, r)));
        r = q4_scale(r, vf_select(near, one_over, one));
    }
    /* slerpFlat returns equal inputs untouched (not renormalized); in `exact` mode (the
     * mixer) so does this. Copies of a key as it is (before the first key, after the last,
     * STEP) are the sampler's (raw_keys). */
    if (exact) {
        const q4 b0 = *pb;
        const vf same = vf_and(vf_and(vf_eq(a.x, b0.x), vf_eq(a.y, b0.y)),
                               vf_and(vf_eq(a.z, b0.z), vf_eq(a.w, b0.w)));
        if (vf_movemask(same)) {
            r = q4_select(same, a, r);
        }
    }
    return r;
}

/* Hermite weights (glTF 2.0 Appendix C) for a in [0, 1] and interval dt. */
typedef struct hermite4 {
    vf p0, m0, p1, m1;
} hermite4;
static OROYA__INLINE hermite4 hermite_weights(vf a, vf dt) {
    vf a2 = vf_mul(a, a), a3 = vf_mul(a2, a);
    hermite4 h;
    h.p1 = vf_sub(vf_mul(vf_set1(3.0f), a2), vf_add(a3, a3));
    h.p0 = vf_sub(vf_set1(1.0f), h.p1);
    vf s3 = vf_sub(a3, a2);
    h.m0 = vf_mul(vf_add(vf_sub(s3, a2), a), dt);
    h.m1 = vf_mul(s3, dt);
    return h;
}

/* ---- key cursors ------------------------------------------------------------------------------ */

/* The last lo in [lo, hi) with times[lo] <= t, by bisection (times[lo] <= t < times[hi]). */
static OROYA__INLINE uint32_t pk_bisect(const float *times, uint32_t lo, uint32_t hi, float t) {
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (times[mid] <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Places a group's cursor on the interval holding t and returns the interval: keys k and
 * k + 1 (clamped to the ends, where the factor clamps to 0 or 1). Forward playback advances a
 * key at a time; going back, or more than one key ahead, bisects. */
static OROYA__INLINE oroya__pose_interval seek(const oroya__pose_group *g, const float *keys,
                                               uint16_t *cursor, float t) {
    const uint32_t n = g->count;
    const float *times = keys + g->offset;
    uint32_t k = *cursor;
    if (k > n - 2) {
        k = n - 2;
    }
    if (t < times[k] && k > 0) {
        k = pk_bisect(times, 0, k, t); /* t < time[k] */
    } else if (k + 2 < n && t >= times[k + 1]) {
        k++; /* forward playback: the next interval */
        if (k + 2 < n && t >= times[k + 1]) {
            /* A jump ahead (a first frame deep into the clip, a skip): the last lo in
             * [k + 1, n - 2] with time[lo] <= t, by bisection. */
            k = pk_bisect(times, k + 1, n - 1, t);
        }
    }
    *cursor = (uint16_t)k;
    oroya__pose_interval iv;
    const float t0 = times[k], t1 = times[k + 1];
    iv.k = k;
    iv.dt = t1 - t0;
    float a = (t - t0) / iv.dt;
    iv.a = a > 0 ? (a < 1 ? a : 1) : 0; /* NaN (a zero interval) becomes 0 */
    iv.a_step = t >= t1 ? 1.0f : 0.0f;
    return iv;
}

/* Compressed clips. */
#include "internal/pose_kernel_q.h"

/* The intervals of every time group of a clip at t, once per layer and frame (and a compressed
 * clip's decoded keys where they moved). */
static void seek_groups(const oroya_pose_clip *clip, uint16_t *cursors, float t,
                        oroya__pose_interval *out) {
    for (uint32_t g = 0; g < clip->group_count; g++) {
        out[g] = seek(&clip->groups[g], clip->keys, &cursors[g], t);
    }
    pkq_refresh(clip, out);
}

/* ---- sampling ------------------------------------------------------------------------------------ */

static const float zero_keys[16];

/* The keys of one (block, channel) at the current intervals, as SoA: v0/v1 the two keys'
 * values, a the factor (the step factor on STEP lanes), dt the interval; when the block has a
 * cubic lane also g0 (out-tangent of k) and g1 (in-tangent of k + 1), zero on other lanes. */
typedef struct gather4 {
    v4 v0[4], v1[4], a;
    v4 g0[4], g1[4], dt;
} gather4;

static OROYA__INLINE void gather_block(const oroya_pose_clip *clip, uint32_t block, int ch,
                                       const oroya__pose_interval *iv, gather4 *o) {
    const uint32_t base = (block * 3 + (uint32_t)ch) * 4;
    const oroya__pose_lanes *lanes = &clip->lanes[block * 3 + (uint32_t)ch];
    const uint32_t comps = ch == OROYA__CH_R ? 4 : 3;
    const v4 step = v4_loadu((const float *)lanes->step);
    if (lanes->uniform) {
        /* One interval for the 4 lanes, and keys stored SoA: rows load as they are. */
        const oroya__pose_interval *g = &iv[lanes->group];
        const float *rec = clip->keys + lanes->offset[0] + (size_t)g->k * lanes->stride;
        const float *next = rec + lanes->stride;
        o->a = v4_select(step, v4_set1(g->a_step), v4_set1(g->a));
        o->dt = v4_set1(g->dt);
        o->v0[3] = o->v1[3] = o->g0[3] = o->g1[3] = v4_zero();
        if (lanes->any_cubic) {
            /* [in, value, out] rows: value and out-tangent of k, in-tangent and value of k + 1. */
            for (uint32_t e = 0; e < comps; e++) {
                o->v0[e] = v4_load(rec + (comps + e) * 4);
                o->g0[e] = v4_load(rec + (2 * comps + e) * 4);
                o->g1[e] = v4_load(next + e * 4);
                o->v1[e] = v4_load(next + (comps + e) * 4);
            }
            return;
        }
        for (uint32_t e = 0; e < comps; e++) {
            o->v0[e] = v4_load(rec + e * 4);
            o->v1[e] = v4_load(next + e * 4);
        }
        return;
    }
    const float *p0[4], *p1[4], *m0[4], *m1[4];
    _Alignas(16) float av[4], sv[4], dv[4];
    for (uint32_t l = 0; l < 4; l++) {
        const oroya__pose_channel *pc = &clip->channels[base + l];
        const oroya__pose_interval *g = &iv[pc->group];
        const float *r = clip->keys + pc->offset + (size_t)g->k * pc->stride;
        av[l] = g->a;
        sv[l] = g->a_step;
        dv[l] = g->dt;
        if (pc->kind == OROYA__KIND_CUBIC) {
            p0[l] = r + 1 + comps;
            m0[l] = r + 1 + 2 * comps;
            m1[l] = r + pc->stride + 1;
            p1[l] = r + pc->stride + 1 + comps;
        } else {
            p0[l] = r + 1;
            p1[l] = r + pc->stride + 1;
            m0[l] = m1[l] = zero_keys;
        }
    }
    o->dt = v4_load(dv);
    o->a = v4_select(step, v4_load(sv), v4_load(av));
    for (int l = 0; l < 4; l++) {
        o->v0[l] = v4_loadu(p0[l]);
        o->v1[l] = v4_loadu(p1[l]);
    }
    v4_transpose(&o->v0[0], &o->v0[1], &o->v0[2], &o->v0[3]);
    v4_transpose(&o->v1[0], &o->v1[1], &o->v1[2], &o->v1[3]);
    if (lanes->any_cubic) {
        for (int l = 0; l < 4; l++) {
            o->g0[l] = v4_loadu(m0[l]);
            o->g1[l] = v4_loadu(m1[l]);
        }
        v4_transpose(&o->g0[0], &o->g0[1], &o->g0[2], &o->g0[3]);
        v4_transpose(&o->g1[0], &o->g1[1], &o->g1[2], &o->g1[3]);
    }
}

/* Where three's interpolants copy a rotation key as it is rather than interpolate: a STEP lane
 * (DiscreteInterpolant), before the first key (the factor is -0, see refine_factors) and after
 * the last (the factor is 1: copySampleValue_). Keys that are not quite unit stay so there,
 * where an interpolation at the same factor would renormalize them. The mixer only (exact). */
static OROYA__INLINE q4 raw_keys(q4 r, const q4 *qa, const q4 *qb, vf a, vf step) {
    const vf one = vf_row(pk_one), zero = vf_zero();
    const vf before = vf_lt(vf_xor(vf_and(a, vf_sign_bit()), one), zero); /* a is -0 */
    const vf at0 = vf_and(vf_eq(a, zero), vf_or(before, step));
    const vf at1 = vf_eq(a, one);
    if (!vf_movemask(at0) && !vf_movemask(at1)) {
        return r;
    }
    return q4_select(at1, *qb, q4_select(at0, *qa, r));
}

/* Samples one channel of blocks b and b2 (width 8; width 4 samples b alone) into comps
 * vectors (SoA), given the clip's intervals. Cubic lanes take the Hermite curve (rotations
 * normalized), the others the lerp or slerp, chosen per lane. */
static OROYA__INLINE void sample_channel_f(const oroya_pose_clip *clip, uint32_t b, uint32_t b2,
                                           int ch, const oroya__pose_interval *iv, vf out[4],
                                           bool exact, bool raw) {
    const oroya__pose_lanes *lb = &clip->lanes[b * 3 + (uint32_t)ch];
    const oroya__pose_lanes *lb2 = &clip->lanes[b2 * 3 + (uint32_t)ch];
    vf v0[4], v1[4], a;
    if (lb->uniform && !lb->any_cubic && (PK_BLOCKS == 1 || (lb2->uniform && !lb2->any_cubic))) {
        /* The common case: SoA rows loaded as they are, into registers. */
        const oroya__pose_interval *g = &iv[lb->group], *g2 = &iv[lb2->group];
        const float *r = clip->keys + lb->offset[0] + (size_t)g->k * lb->stride;
        const float *r2 = clip->keys + lb2->offset[0] + (size_t)g2->k * lb2->stride;
        const float *n = r + lb->stride, *n2 = r2 + lb2->stride;
        v0[0] = vf_load2(r, r2), v0[1] = vf_load2(r + 4, r2 + 4), v0[2] = vf_load2(r + 8, r2 + 8);
        v1[0] = vf_load2(n, n2), v1[1] = vf_load2(n + 4, n2 + 4), v1[2] = vf_load2(n + 8, n2 + 8);
        if (ch == OROYA__CH_R) {
            v0[3] = vf_load2(r + 12, r2 + 12);
            v1[3] = vf_load2(n + 12, n2 + 12);
        }
#if OROYA__PK_WIDTH == 8
        a = vf_select(vf_masks(lb->step, lb2->step),
                      vf_halves(v4_set1(g->a_step), v4_set1(g2->a_step)),
                      vf_halves(v4_set1(g->a), v4_set1(g2->a)));
#else
        a = v4_select(v4_loadu((const float *)lb->step), v4_set1(g->a_step), v4_set1(g->a));
#endif
        if (ch == OROYA__CH_R) {
            q4 qa = {v0[0], v0[1], v0[2], v0[3]}, qb = {v1[0], v1[1], v1[2], v1[3]};
            q4 q = q4_slerp(&qa, &qb, a, exact);
            if (exact && raw) {
                q = raw_keys(q, &qa, &qb, a, vf_masks(lb->step, lb2->step));
            }
            out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        } else {
            const vf w0 = vf_sub(vf_row(pk_one), a);
            for (int e = 0; e < 3; e++) {
                out[e] = madd(w0, v0[e], vf_mul(a, v1[e]));
            }
        }
        return;
    }
    gather4 g;
    gather_block(clip, b, ch, iv, &g);
#if OROYA__PK_WIDTH == 8
    gather4 h;
    gather_block(clip, b2, ch, iv, &h);
    const bool any_cubic = lb->any_cubic || lb2->any_cubic;
    for (int e = 0; e < 4; e++) {
        v0[e] = vf_halves(g.v0[e], h.v0[e]);
        v1[e] = vf_halves(g.v1[e], h.v1[e]);
    }
    a = vf_halves(g.a, h.a);
#else
    const bool any_cubic = lb->any_cubic;
    for (int e = 0; e < 4; e++) {
        v0[e] = g.v0[e];
        v1[e] = g.v1[e];
    }
    a = g.a;
#endif
    hermite4 hw;
    vf g0[4], g1[4], cubic = vf_zero();
    if (any_cubic) {
#if OROYA__PK_WIDTH == 8
        /* A block with no cubic lane left its tangents unset: zeros, masked off below. */
        for (int e = 0; e < 4; e++) {
            g0[e] = vf_halves(lb->any_cubic ? g.g0[e] : v4_zero(),
                              lb2->any_cubic ? h.g0[e] : v4_zero());
            g1[e] = vf_halves(lb->any_cubic ? g.g1[e] : v4_zero(),
                              lb2->any_cubic ? h.g1[e] : v4_zero());
        }
        const vf dt = vf_halves(g.dt, h.dt);
#else
        for (int e = 0; e < 4; e++) {
            g0[e] = g.g0[e];
            g1[e] = g.g1[e];
        }
        const vf dt = g.dt;
#endif
        hw = hermite_weights(a, dt);
        cubic = vf_masks(lb->cubic, lb2->cubic);
    }
    if (ch == OROYA__CH_R) {
        q4 qa = {v0[0], v0[1], v0[2], v0[3]}, qb = {v1[0], v1[1], v1[2], v1[3]};
        q4 r = q4_slerp(&qa, &qb, a, exact);
        if (any_cubic) {
            q4 c;
            c.x = madd(hw.p0, v0[0], madd(hw.m0, g0[0], madd(hw.p1, v1[0], vf_mul(hw.m1, g1[0]))));
            c.y = madd(hw.p0, v0[1], madd(hw.m0, g0[1], madd(hw.p1, v1[1], vf_mul(hw.m1, g1[1]))));
            c.z = madd(hw.p0, v0[2], madd(hw.m0, g0[2], madd(hw.p1, v1[2], vf_mul(hw.m1, g1[2]))));
            c.w = madd(hw.p0, v0[3], madd(hw.m0, g0[3], madd(hw.p1, v1[3], vf_mul(hw.m1, g1[3]))));
            c = q4_normalize(c);
            r = q4_select(cubic, c, r);
        }
        if (exact && raw) {
            r = raw_keys(r, &qa, &qb, a, vf_masks(lb->step, lb2->step));
        }
        out[0] = r.x, out[1] = r.y, out[2] = r.z, out[3] = r.w;
        return;
    }
    const vf w0 = vf_sub(vf_row(pk_one), a);
    for (int e = 0; e < 3; e++) {
        out[e] = madd(w0, v0[e], vf_mul(a, v1[e]));
    }
    if (any_cubic) {
        for (int e = 0; e < 3; e++) {
            vf c = madd(hw.p0, v0[e], madd(hw.p1, v1[e], madd(hw.m0, g0[e], vf_mul(hw.m1, g1[e]))));
            out[e] = vf_select(cubic, c, out[e]);
        }
    }
}

/* The same, returning the channel's animated lanes (all-ones words), found with the same
 * table lookups as the sample (one per block and channel in a compressed clip). `q` (a
 * constant: blend_normal and blend_additive test clip->qblocks once and inline a copy for
 * each storage) says the clip is compressed, so neither storage pays for the other. */
static OROYA__INLINE vf sample_channel(const oroya_pose_clip *clip, uint32_t b, uint32_t b2, int ch,
                                       const oroya__pose_interval *iv, vf out[4], bool exact,
                                       bool raw, bool q) {
    if (q) {
        return pkq_sample_channel(clip, b, b2, ch, iv, out, exact); /* a compressed clip */
    }
    sample_channel_f(clip, b, b2, ch, iv, out, exact, raw);
    return vf_masks(clip->lanes[b * 3 + (uint32_t)ch].animated,
                    clip->lanes[b2 * 3 + (uint32_t)ch].animated);
}

/* The lanes of one channel of blocks b and b2 whose values the mixer sampled itself
 * (oroya__pose_ext) replace the kernel's sample there. */
static OROYA__INLINE void take_ext(const oroya__pose_ext *ext, uint32_t b, uint32_t b2, int ch,
                                   vf out[4]) {
    if (!ext) {
        return;
    }
    const vf m = vf_masks(ext[b].mask[ch], ext[b2].mask[ch]);
    if (!vf_movemask(m)) {
        return;
    }
    const int row = ch == OROYA__CH_T ? 0 : ch == OROYA__CH_R ? 3 : 7;
    for (int e = 0; e < (ch == OROYA__CH_R ? 4 : 3); e++) {
        out[e] = vf_select(m, vf_load2(ext[b].rows[row + e], ext[b2].rows[row + e]), out[e]);
    }
}

/* ---- blending ---------------------------------------------------------------------------------- */

/* The blend state of a step: the accumulated pose and, per channel, the summed weight. */
typedef struct blend4 {
    t4 t;
    q4 q;
    t4 s;
    vf wt, wq, ws;
    vf sterp; /* rotation lanes a STERP layer contributed to (their remainder is a STERP too) */
    q4 qadd;  /* exact mode: the additive layers' rotation, as three's PropertyMixer sums it */
    vf adds;  /* exact mode: rotation lanes an additive layer contributed to */
} blend4;

static OROYA__INLINE t4 t4_mix(t4 a, t4 b, vf f) {
    vf g = vf_sub(vf_row(pk_one), f);
    t4 r = {madd(a.x, g, vf_mul(b.x, f)), madd(a.y, g, vf_mul(b.y, f)),
            madd(a.z, g, vf_mul(b.z, f))};
    return r;
}
static OROYA__INLINE t4 t4_select(vf m, t4 a, t4 b) {
    t4 r = {vf_select(m, a.x, b.x), vf_select(m, a.y, b.y), vf_select(m, a.z, b.z)};
    return r;
}

/* PropertyMixer.accumulate per lane: the first contribution is copied, later ones mixed in
 * with weight w / (accumulated + w). Lanes the clip does not animate carry weight 0. */
static OROYA__INLINE vf accumulate_weight(vf *acc, vf lane_w, vf *first) {
    vf total = vf_add(*acc, lane_w);
    *first = vf_and(vf_eq(*acc, vf_zero()), vf_gt(lane_w, vf_zero()));
    vf f = vf_div(lane_w, vf_max(total, vf_set1(1e-30f)));
    *acc = total;
    return f;
}

static OROYA__INLINE bool channel_any(const oroya_pose_clip *clip, uint32_t b, uint32_t b2, int ch,
                                      bool q) {
    if (q) {
        return pkq_channel_any(clip, b, b2, ch);
    }
    return clip->lanes[b * 3 + (uint32_t)ch].any ||
           (PK_BLOCKS == 2 && clip->lanes[b2 * 3 + (uint32_t)ch].any);
}

/* Translation or scale of a normal layer: the lerp accumulation. */
static OROYA__INLINE void blend_vec(t4 *acc, vf *wsum, const oroya_pose_clip *clip, uint32_t b,
                                    uint32_t b2, int ch, const oroya__pose_interval *iv, vf wv,
                                    const oroya__pose_ext *ext, bool q) {
    vf s[4], first;
    const vf anim = sample_channel(clip, b, b2, ch, iv, s, false, false, q);
    take_ext(ext, b, b2, ch, s);
    vf f = accumulate_weight(wsum, vf_and(anim, wv), &first);
    t4 x = {s[0], s[1], s[2]};
    *acc = t4_select(first, x, t4_select(anim, t4_mix(*acc, x, f), *acc));
}

/* STERP blending (an oroya option; the mixer's mix_region_rotation): on the lanes of `use`
 * whose joint has a twist axis, r = oroya_quat_sterp(a, b, axis, f), in scalar code as the
 * property path computes it (float in, float out); the other lanes keep r. STERP is an
 * opt-in for a few joints' quality, not the common path, so no vector version. */
static void sterp_lanes(q4 *r, const q4 *a, const q4 *b, vf f, vf use, const float *twist,
                        uint32_t blk, uint32_t blk2) {
    const int use_bits = vf_movemask(use);
    if (!use_bits) {
        return;
    }
    _Alignas(32) float ff[OROYA__PK_WIDTH];
    vf_store2(ff, ff + 4, f);
    _Alignas(32) float v[3][4][OROYA__PK_WIDTH];
    const q4 *src[3] = {r, a, b};
    for (int i = 0; i < 3; i++) {
        vf_store2(v[i][0], v[i][0] + 4, src[i]->x);
        vf_store2(v[i][1], v[i][1] + 4, src[i]->y);
        vf_store2(v[i][2], v[i][2] + 4, src[i]->z);
        vf_store2(v[i][3], v[i][3] + 4, src[i]->w);
    }
    bool wrote = false;
    for (int l = 0; l < OROYA__PK_WIDTH; l++) {
        if (!(use_bits >> l & 1)) {
            continue;
        }
        const float *ax = twist + (size_t)(l < 4 ? blk : blk2) * 12 + l % 4;
        const oroya_vec3 axis = {ax[0], ax[4], ax[8]};
        if (axis.x == 0 && axis.y == 0 && axis.z == 0) {
            continue; /* no axis: the slerp already in r */
        }
        const oroya_quat qa = {v[1][0][l], v[1][1][l], v[1][2][l], v[1][3][l]};
        const oroya_quat qb = {v[2][0][l], v[2][1][l], v[2][2][l], v[2][3][l]};
        const oroya_quat q = oroya_quat_sterp(qa, qb, axis, ff[l]);
        v[0][0][l] = q.x, v[0][1][l] = q.y, v[0][2][l] = q.z, v[0][3][l] = q.w;
        wrote = true;
    }
    if (wrote) {
        r->x = vf_load2(v[0][0], v[0][0] + 4);
        r->y = vf_load2(v[0][1], v[0][1] + 4);
        r->z = vf_load2(v[0][2], v[0][2] + 4);
        r->w = vf_load2(v[0][3], v[0][3] + 4);
    }
}

/* pad_bits: the padding lanes (past the last joint, or the copy of an odd last block), whose
 * rotation the rest pose replaces in blend_finish (they never carry weight): whatever they
 * hold here does not matter, so they do not force the general mix. */
static OROYA__INLINE void blend_normal_q(blend4 *st, const oroya_pose_clip *clip, uint32_t b,
                                         uint32_t b2, const oroya__pose_interval *iv, float w,
                                         const float *mask, const float *twist,
                                         const oroya__pose_ext *ext, int pad_bits, bool exact,
                                         bool raw, bool q) {
    /* A joint mask scales the weight per lane (weight x mask[joint]); lanes at 0 take no part,
     * as three's accumulate with weight 0. */
    const vf wv = mask ? vf_mul(vf_set1(w), vf_load2(mask + b * 4, mask + b2 * 4)) : vf_set1(w);
    if (channel_any(clip, b, b2, OROYA__CH_T, q)) {
        blend_vec(&st->t, &st->wt, clip, b, b2, OROYA__CH_T, iv, wv, ext, q);
    }
    if (channel_any(clip, b, b2, OROYA__CH_R, q)) {
        vf s[4], first;
        const vf anim = sample_channel(clip, b, b2, OROYA__CH_R, iv, s, exact, raw, q);
        take_ext(ext, b, b2, OROYA__CH_R, s);
        vf lw = vf_and(anim, wv);
        vf f = accumulate_weight(&st->wq, lw, &first);
        q4 x = {s[0], s[1], s[2], s[3]};
        const int first_bits = vf_movemask(first);
        if (twist) {
            /* Every lane this layer adds to, the first one included, takes a STERP remainder
             * (the property path's sterp_remainder). */
            st->sterp = vf_select(vf_gt(lw, vf_zero()), vf_eq(lw, lw), st->sterp);
        }
        if ((first_bits | pad_bits) == VF_ALL) {
            st->q = x; /* the usual first layer: every lane animated */
        } else {
            q4 mixed = q4_slerp(&st->q, &x, f, exact);
            const vf some = vf_gt(f, vf_zero());
            if (twist) {
                const vf use = vf_and(some, vf_eq(first, vf_zero()));
                sterp_lanes(&mixed, &st->q, &x, f, use, twist, b, b2);
            }
            if ((vf_movemask(some) | pad_bits) != VF_ALL) {
                mixed = q4_select(some, mixed, st->q);
            }
            st->q = first_bits ? q4_select(first, x, mixed) : mixed;
        }
    }
    if (channel_any(clip, b, b2, OROYA__CH_S, q)) {
        blend_vec(&st->s, &st->ws, clip, b, b2, OROYA__CH_S, iv, wv, ext, q);
    }
}
static OROYA__INLINE void blend_normal(blend4 *st, const oroya_pose_clip *clip, uint32_t b,
                                       uint32_t b2, const oroya__pose_interval *iv, float w,
                                       const float *mask, const float *twist,
                                       const oroya__pose_ext *ext, int pad_bits, bool exact,
                                       bool raw) {
    if (clip->qblocks) {
        blend_normal_q(st, clip, b, b2, iv, w, mask, twist, ext, pad_bits, exact, raw, true);
    } else {
        blend_normal_q(st, clip, b, b2, iv, w, mask, twist, ext, pad_bits, exact, raw, false);
    }
}

/* The rest value where no layer contributed, a mix where the weights sum below 1. */
static OROYA__INLINE t4 finish_t4(t4 acc, vf w, t4 rest) {
    const vf one = vf_row(pk_one);
    const int none = vf_movemask(vf_eq(w, vf_zero()));
    const int part = vf_movemask(vf_lt(w, one));
    if (!part) {
        return acc;
    }
    if (none == VF_ALL) {
        return rest;
    }
    t4 mixed = t4_mix(acc, rest, vf_sub(one, w));
    t4 r = t4_select(vf_lt(w, one), mixed, acc);
    return t4_select(vf_eq(w, vf_zero()), rest, r);
}

/* The rest pose fills what the normal layers left (PropertyMixer.apply with weight < 1).
 * Padding lanes (past the last joint) never carry weight; they take the rest value without
 * forcing a slerp on the block. */
static OROYA__INLINE void blend_finish(blend4 *st, const oroya_soa_transform *r,
                                       const oroya_soa_transform *r2, const float *twist,
                                       uint32_t b, uint32_t b2, int pad_bits, bool exact) {
    const vf one = vf_row(pk_one), zero = vf_zero();
    t4 rt = {vf_load2(r->tx, r2->tx), vf_load2(r->ty, r2->ty), vf_load2(r->tz, r2->tz)};
    t4 rs = {vf_load2(r->sx, r2->sx), vf_load2(r->sy, r2->sy), vf_load2(r->sz, r2->sz)};
    st->t = finish_t4(st->t, st->wt, rt);
    st->s = finish_t4(st->s, st->ws, rs);
    const vf part = vf_lt(st->wq, one);
    const int part_bits = vf_movemask(part);
    if (part_bits) {
        q4 rq = {vf_load2(r->qx, r2->qx), vf_load2(r->qy, r2->qy), vf_load2(r->qz, r2->qz),
                 vf_load2(r->qw, r2->qw)};
        const vf none = vf_eq(st->wq, zero);
        const int none_bits = vf_movemask(none);
        if (none_bits == VF_ALL || (part_bits & ~pad_bits) == 0) {
            /* Nothing to mix: lanes with weight 0 take the rest value, the others keep
             * theirs (a lane past the last joint is always at weight 0; the copied upper half
             * of an odd last step is never stored). */
            st->q = q4_select(none, rq, st->q);
        } else {
            q4 mixed = q4_slerp(&st->q, &rq, vf_sub(one, st->wq), exact);
            if (twist) {
                const vf use = vf_and(st->sterp, vf_and(part, vf_eq(none, zero)));
                sterp_lanes(&mixed, &st->q, &rq, vf_sub(one, st->wq), use, twist, b, b2);
            }
            st->q = q4_select(none, rq, q4_select(part, mixed, st->q));
        }
    }
}

/* Translation or scale of an additive layer: acc += w * delta on the animated lanes. */
static OROYA__INLINE void add_vec(t4 *acc, const oroya_pose_clip *clip, uint32_t b, uint32_t b2,
                                  int ch, const oroya__pose_interval *iv, vf wv,
                                  const oroya__pose_ext *ext, bool q) {
    vf s[4];
    const vf anim = sample_channel(clip, b, b2, ch, iv, s, false, false, q);
    take_ext(ext, b, b2, ch, s);
    t4 r = {madd(s[0], wv, acc->x), madd(s[1], wv, acc->y), madd(s[2], wv, acc->z)};
    *acc = t4_select(anim, r, *acc);
}

/* slerp(identity, d, w) for a weight above 1, lane by lane with three.js's slerpFlat in double
 * (oroya__slerp_flat_d): the series of q4_slerp holds for factors in [0, 1] only, and an
 * additive layer may be weighted more (an exaggerated wave). Rare, so plain scalar code. */
static void slerp_exact(const q4 *from, q4 *d, const float *w) {
    _Alignas(32) float x[OROYA__PK_WIDTH], y[OROYA__PK_WIDTH], z[OROYA__PK_WIDTH],
        q[OROYA__PK_WIDTH], f[4][OROYA__PK_WIDTH];
    vf_store2(x, x + 4, d->x);
    vf_store2(y, y + 4, d->y);
    vf_store2(z, z + 4, d->z);
    vf_store2(q, q + 4, d->w);
    vf_store2(f[0], f[0] + 4, from->x);
    vf_store2(f[1], f[1] + 4, from->y);
    vf_store2(f[2], f[2] + 4, from->z);
    vf_store2(f[3], f[3] + 4, from->w);
    for (int l = 0; l < OROYA__PK_WIDTH; l++) {
        const double a[4] = {f[0][l], f[1][l], f[2][l], f[3][l]};
        const double b[4] = {x[l], y[l], z[l], q[l]};
        double r[4];
        oroya__slerp_flat_d(a, b, w[l], r);
        x[l] = (float)r[0], y[l] = (float)r[1], z[l] = (float)r[2], q[l] = (float)r[3];
    }
    d->x = vf_load2(x, x + 4);
    d->y = vf_load2(y, y + 4);
    d->z = vf_load2(z, z + 4);
    d->w = vf_load2(q, q + 4);
}

static void slerp_identity_exact(q4 *d, const float *w) {
    const q4 id = {vf_zero(), vf_zero(), vf_zero(), vf_row(pk_one)};
    slerp_exact(&id, d, w);
}

/* The mixer's additive rotations (exact mode), as PropertyMixer does them: the layers go into
 * their own sum, add = slerp(add, add * delta, w) from the identity, and the pose takes it once
 * at the end as slerp(q, q * add, 1) (pk_blend). Both slerps renormalize small steps, which
 * matters for keys that are not quite unit. */
static OROYA__INLINE void add_rotation_exact(blend4 *st, q4 d, vf animated, vf wv) {
    const vf use = vf_and(animated, vf_gt(wv, vf_zero()));
    if (!vf_movemask(use)) {
        return;
    }
    q4 to = q4_mul(st->qadd, d);
    if (vf_movemask(vf_gt(wv, vf_row(pk_one)))) {
        /* A weight above 1 (an exaggerated layer): the series holds for [0, 1] only. */
        _Alignas(32) float lw[OROYA__PK_WIDTH];
        vf_store2(lw, lw + 4, wv);
        slerp_exact(&st->qadd, &to, lw);
    } else {
        to = q4_slerp(&st->qadd, &to, wv, true);
    }
    st->qadd = q4_select(use, to, st->qadd);
    st->adds = vf_or(st->adds, use);
}

/* An additive layer: q = q * slerp(identity, delta, w), t += w * delta, s += w * delta. */
static OROYA__INLINE void blend_additive_q(blend4 *st, const oroya_pose_clip *clip, uint32_t b,
                                           uint32_t b2, const oroya__pose_interval *iv, float w,
                                           const float *mask, const oroya__pose_ext *ext,
                                           bool exact, bool raw, bool q) {
    const vf wv = mask ? vf_mul(vf_set1(w), vf_load2(mask + b * 4, mask + b2 * 4)) : vf_set1(w);
    if (channel_any(clip, b, b2, OROYA__CH_T, q)) {
        add_vec(&st->t, clip, b, b2, OROYA__CH_T, iv, wv, ext, q);
    }
    if (channel_any(clip, b, b2, OROYA__CH_R, q)) {
        vf s[4];
        const vf animated = sample_channel(clip, b, b2, OROYA__CH_R, iv, s, exact, raw, q);
        take_ext(ext, b, b2, OROYA__CH_R, s);
        q4 d = {s[0], s[1], s[2], s[3]};
        if (exact) {
            add_rotation_exact(st, d, animated, wv);
        } else if (mask) {
            /* Per-lane weights: above 1 somewhere, the exact scalar slerp on every lane;
             * else the vector slerp from the identity (factor 0 gives the identity). */
            _Alignas(32) float lw[OROYA__PK_WIDTH];
            vf_store2(lw, lw + 4, wv);
            bool above = false, all_one = true;
            for (int l = 0; l < OROYA__PK_WIDTH; l++) {
                above |= lw[l] > 1.0f;
                all_one &= lw[l] == 1.0f;
            }
            if (above) {
                slerp_identity_exact(&d, lw);
            } else if (!all_one) {
                const q4 id = {vf_zero(), vf_zero(), vf_zero(), vf_row(pk_one)};
                d = q4_slerp(&id, &d, wv, exact);
            }
        } else if (w > 1.0f) {
            _Alignas(32) float lw[OROYA__PK_WIDTH];
            for (int l = 0; l < OROYA__PK_WIDTH; l++) {
                lw[l] = w;
            }
            slerp_identity_exact(&d, lw);
        } else if (w != 1.0f) {
            const q4 id = {vf_zero(), vf_zero(), vf_zero(), vf_row(pk_one)};
            d = q4_slerp(&id, &d, wv, exact);
        }
        if (!exact) {
            st->q = q4_select(animated, q4_mul(st->q, d), st->q);
        }
    }
    if (channel_any(clip, b, b2, OROYA__CH_S, q)) {
        add_vec(&st->s, clip, b, b2, OROYA__CH_S, iv, wv, ext, q);
    }
}
static OROYA__INLINE void blend_additive(blend4 *st, const oroya_pose_clip *clip, uint32_t b,
                                         uint32_t b2, const oroya__pose_interval *iv, float w,
                                         const float *mask, const oroya__pose_ext *ext, bool exact,
                                         bool raw) {
    if (clip->qblocks) {
        blend_additive_q(st, clip, b, b2, iv, w, mask, ext, exact, raw, true);
    } else {
        blend_additive_q(st, clip, b, b2, iv, w, mask, ext, exact, raw, false);
    }
}

/* ---- local to model -------------------------------------------------------------------------- */

#if OROYA__PK_WIDTH == 8
/* bone = model * inverse_bind, two columns per 256-bit operation: (m_k | m_k) is one insert of
 * the model column still in a register, (ib_c[k] x4 | ib_c+1[k] x4) one permute of two loaded
 * columns. The same products and sums, in the same order, as the 128-bit loop below, so both
 * widths give identical bits. */
static OROYA__INLINE void bones_wide(const v4 m[4], const float *ib, float *bo) {
    const __m256 m0 = vf_halves(m[0], m[0]), m1 = vf_halves(m[1], m[1]);
    const __m256 m2 = vf_halves(m[2], m[2]), m3 = vf_halves(m[3], m[3]);
    for (int c = 0; c < 4; c += 2) {
        const __m256 v = _mm256_loadu_ps(ib + c * 4);
        __m256 r = _mm256_mul_ps(m3, _mm256_permute_ps(v, 0xFF));
        r = _mm256_add_ps(_mm256_mul_ps(m2, _mm256_permute_ps(v, 0xAA)), r);
        r = _mm256_add_ps(_mm256_mul_ps(m1, _mm256_permute_ps(v, 0x55)), r);
        r = _mm256_add_ps(_mm256_mul_ps(m0, _mm256_permute_ps(v, 0x00)), r);
        _mm256_storeu_ps(bo + c * 4, r);
    }
}
#endif

/* model = parent * local for one joint (p: the parent's columns), then bone = model *
 * inverse_bind. lc holds the local matrix's 12 meaningful elements (column-major, rows 0-2)
 * per lane; the lane's elements are broadcast from memory, which costs one instruction each
 * and no register, where shuffling 12 live vectors would spill. The model's columns are
 * returned in m, so a child that comes next starts without waiting for them to be stored
 * and loaded again. */
static OROYA__INLINE void ltm_joint(float lc[12][OROYA__PK_WIDTH], uint32_t lane, const v4 p[4],
                                    const float *ib, float *o, float *bo, v4 m[4]) {
    m[0] = v4_add(v4_mul(p[0], v4_set1(lc[0][lane])),
                  v4_add(v4_mul(p[1], v4_set1(lc[1][lane])), v4_mul(p[2], v4_set1(lc[2][lane]))));
    m[1] = v4_add(v4_mul(p[0], v4_set1(lc[3][lane])),
                  v4_add(v4_mul(p[1], v4_set1(lc[4][lane])), v4_mul(p[2], v4_set1(lc[5][lane]))));
    m[2] = v4_add(v4_mul(p[0], v4_set1(lc[6][lane])),
                  v4_add(v4_mul(p[1], v4_set1(lc[7][lane])), v4_mul(p[2], v4_set1(lc[8][lane]))));
    m[3] = v4_add(v4_mul(p[0], v4_set1(lc[9][lane])),
                  v4_add(v4_mul(p[1], v4_set1(lc[10][lane])),
                         v4_add(v4_mul(p[2], v4_set1(lc[11][lane])), p[3])));
    v4_storeu(o, m[0]);
    v4_storeu(o + 4, m[1]);
    v4_storeu(o + 8, m[2]);
    v4_storeu(o + 12, m[3]);
    if (!bo) {
        return;
    }
#if OROYA__PK_WIDTH == 8
    bones_wide(m, ib, bo);
#else
    oroya__bone_matrix_v4(m, ib, bo);
#endif
}

/* Local matrices of blocks b and b2 = b + 1 (Matrix4.compose of three.js, all lanes at once),
 * then model and bone matrices joint by joint, parents first, for the pair's joints in
 * [from, to) (the IK pass splits a step at an IK's first joint: pk_ltm_ik). Width 4 does
 * block b alone; width 8 passes b2 = b for an odd last block. */
static OROYA__INLINE void ltm_pair_range(const oroya_pose_skeleton *skel, uint32_t b, uint32_t b2,
                                         const oroya_soa_transform *B,
                                         const oroya_soa_transform *B2, const oroya_mat4 *root,
                                         oroya_mat4 *models, oroya_mat4 *bones, uint32_t from,
                                         uint32_t to) {
    static const oroya_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    const float *rootm = root ? root->m : identity.m;
    const vf one = vf_row(pk_one), two = vf_set1(2.0f);
    q4 q = {vf_load2(B->qx, B2->qx), vf_load2(B->qy, B2->qy), vf_load2(B->qz, B2->qz),
            vf_load2(B->qw, B2->qw)};
    vf x2 = vf_mul(q.x, two), y2 = vf_mul(q.y, two), z2 = vf_mul(q.z, two);
    vf xx = vf_mul(q.x, x2), xy = vf_mul(q.x, y2), xz = vf_mul(q.x, z2);
    vf yy = vf_mul(q.y, y2), yz = vf_mul(q.y, z2), zz = vf_mul(q.z, z2);
    vf wx = vf_mul(q.w, x2), wy = vf_mul(q.w, y2), wz = vf_mul(q.w, z2);
    vf sx = vf_load2(B->sx, B2->sx), sy = vf_load2(B->sy, B2->sy), sz = vf_load2(B->sz, B2->sz);
    _Alignas(32) float lc[12][OROYA__PK_WIDTH];
    const vf l[12] = {vf_mul(vf_sub(one, vf_add(yy, zz)), sx),
                      vf_mul(vf_add(xy, wz), sx),
                      vf_mul(vf_sub(xz, wy), sx),
                      vf_mul(vf_sub(xy, wz), sy),
                      vf_mul(vf_sub(one, vf_add(xx, zz)), sy),
                      vf_mul(vf_add(yz, wx), sy),
                      vf_mul(vf_add(xz, wy), sz),
                      vf_mul(vf_sub(yz, wx), sz),
                      vf_mul(vf_sub(one, vf_add(xx, yy)), sz),
                      vf_load2(B->tx, B2->tx),
                      vf_load2(B->ty, B2->ty),
                      vf_load2(B->tz, B2->tz)};
    memcpy(lc, l, sizeof lc);
    /* b2 is b + 1 or b itself, so the pair's joints are b * 4 onwards, lane = joint - b * 4. */
    const uint32_t first = b * 4, n = skel->joint_count;
    uint32_t end = first + (b2 != b ? 8u : 4u) < n ? first + (b2 != b ? 8u : 4u) : n;
    end = to < end ? to : end;
    const uint32_t lo = from > first ? from : first;
    v4 m[4] = {v4_zero(), v4_zero(), v4_zero(), v4_zero()};
    const uint32_t *slots = skel->bone_slots_identity ? NULL : skel->bone_slots;
    for (uint32_t j = lo; j < end; j++) {
        const uint32_t parent = skel->parents[j];
        v4 p[4];
        if (parent + 1 == j && j > lo) {
            memcpy(p, m, sizeof p); /* the joint just done: still in registers */
        } else {
            const float *pm = parent == UINT32_MAX ? rootm : models[parent].m;
            p[0] = v4_loadu(pm), p[1] = v4_loadu(pm + 4), p[2] = v4_loadu(pm + 8),
            p[3] = v4_loadu(pm + 12);
        }
        ltm_joint(lc, j - first, p, skel->inverse_bind[j].m, models[j].m,
                  bones ? bones[slots ? slots[j] : j].m : NULL, m);
    }
}

/* The whole pair. */
static OROYA__INLINE void ltm_pair(const oroya_pose_skeleton *skel, uint32_t b, uint32_t b2,
                                   const oroya_soa_transform *B, const oroya_soa_transform *B2,
                                   const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones) {
    ltm_pair_range(skel, b, b2, B, B2, root, models, bones, 0, UINT32_MAX);
}

/* ---- one character update -------------------------------------------------------------------- */

/* A layer that contributes this update: its clip, its intervals and its weight. */
typedef struct active_layer {
    const oroya_pose_clip *clip;
    const oroya__pose_interval *iv;
    float weight;
    const float *mask;  /* per joint (block_count * 4 floats), or NULL */
    const float *twist; /* STERP blending: twist axes (see oroya__pose_mix_layer), or NULL */
    const oroya__pose_ext *ext; /* lanes the mixer sampled (see oroya__pose_mix_layer), or NULL */
    bool raw; /* exact mode: some rotation lane may copy a key as it is (raw_keys); see
                 refine_factors */
} active_layer;

/* The lanes of block b past the last joint (bits 0-3), in closed form: a loop over the lanes
 * cost tens of instructions per step. */
static OROYA__INLINE int pad_lanes(uint32_t b, uint32_t joints) {
    const uint32_t first = b * 4;
    const uint32_t live = joints > first ? (joints - first < 4 ? joints - first : 4) : 0;
    return (int)(15u & ~((1u << live) - 1u));
}

/* The padding lanes of the step at blocks b, b2 (b2 == b: the last block of an odd count). */
static OROYA__INLINE int pad_step(uint32_t b, uint32_t b2, uint32_t joints) {
    int pad_bits = pad_lanes(b, joints);
#if OROYA__PK_WIDTH == 8
    pad_bits |= (b2 == b ? 15 : pad_lanes(b2, joints)) << 4;
#else
    (void)b2;
#endif
    return pad_bits;
}

/* Writes a step's blended transforms to locals[b] (and locals[b2] at width 8). */
static OROYA__INLINE void pk_store_block(const blend4 *st, oroya_soa_transform *locals, uint32_t b,
                                         uint32_t b2) {
    oroya_soa_transform *o = &locals[b];
    oroya_soa_transform *o2 = b2 != b ? &locals[b2] : NULL;
#define PK_STORE(field, value) vf_store2(o->field, o2 ? o2->field : NULL, value)
    PK_STORE(tx, st->t.x);
    PK_STORE(ty, st->t.y);
    PK_STORE(tz, st->t.z);
    PK_STORE(qx, st->q.x);
    PK_STORE(qy, st->q.y);
    PK_STORE(qz, st->q.z);
    PK_STORE(qw, st->q.w);
    PK_STORE(sx, st->s.x);
    PK_STORE(sy, st->s.y);
    PK_STORE(sz, st->s.z);
#undef PK_STORE
}

/* Blends the layers into `locals`, block pair by block pair: the normal layers in order (three's
 * accumulate), then `rest` where their weights sum below 1 (three's original values), then the
 * additive layers. The layers' intervals are already sought. `exact`: the mixer's blend. */
static OROYA__INLINE void pk_blend(const oroya_pose_skeleton *skel, const active_layer *normal,
                                   uint32_t normal_count, const active_layer *additive,
                                   uint32_t additive_count, const oroya_soa_transform *rest,
                                   oroya_soa_transform *locals, bool exact, bool plain) {
    /* The mixer's blend is the one that follows slerpFlat's exact cases; a constant per call
     * site, so each caller gets its own inlined copy. `plain` (a constant too): no layer has a
     * mask, twist axes or lanes sampled outside, so that copy drops their code and keeps its
     * state in registers (the mixer's usual frame). */
    const uint32_t blocks = skel->block_count, joints = skel->joint_count;
    for (uint32_t b = 0; b < blocks; b += PK_BLOCKS) {
        const uint32_t b2 = PK_BLOCKS == 2 && b + 1 < blocks ? b + 1 : b;
        /* Padding lanes: past the last joint, and the upper half of an odd last step. */
        const int pad_bits = pad_step(b, b2, joints);
        /* Field by field: a memset of the blend state compiles to `rep stosq`, which has a
         * start-up cost of tens of cycles per step. */
        const vf z = vf_zero();
        blend4 st = {{z, z, z}, {z, z, z, z}, {z, z, z}, z, z, z, z, {z, z, z, vf_row(pk_one)}, z};
        const float *twist = NULL; /* any STERP layer's axes, for the remainder */
        for (uint32_t i = 0; i < normal_count; i++) {
            /* STERP is the mixer's (exact) only: the pose layer's copy drops its code. */
            const float *tw = exact && !plain ? normal[i].twist : NULL;
            /* Layers with lanes sampled outside get their own inlined copy, so the others
             * pay nothing for them. */
            if (plain) {
                blend_normal(&st, normal[i].clip, b, b2, normal[i].iv, normal[i].weight, NULL, NULL,
                             NULL, pad_bits, exact, normal[i].raw);
            } else if (exact && normal[i].ext) {
                blend_normal(&st, normal[i].clip, b, b2, normal[i].iv, normal[i].weight,
                             normal[i].mask, tw, normal[i].ext, pad_bits, exact, normal[i].raw);
            } else {
                blend_normal(&st, normal[i].clip, b, b2, normal[i].iv, normal[i].weight,
                             normal[i].mask, tw, NULL, pad_bits, exact, normal[i].raw);
            }
            twist = tw ? tw : twist;
        }
        blend_finish(&st, &rest[b], &rest[b2], twist, b, b2, pad_bits, exact);
        for (uint32_t i = 0; i < additive_count; i++) {
            if (plain) {
                blend_additive(&st, additive[i].clip, b, b2, additive[i].iv, additive[i].weight,
                               NULL, NULL, exact, additive[i].raw);
            } else if (exact && additive[i].ext) {
                blend_additive(&st, additive[i].clip, b, b2, additive[i].iv, additive[i].weight,
                               additive[i].mask, additive[i].ext, exact, additive[i].raw);
            } else {
                blend_additive(&st, additive[i].clip, b, b2, additive[i].iv, additive[i].weight,
                               additive[i].mask, NULL, exact, additive[i].raw);
            }
        }
        if (exact && vf_movemask(st.adds)) {
            const q4 to = q4_mul(st.q, st.qadd);
            /* Where the sum is the identity (float) this keeps q as it is. three's double sum
             * may be an ulp off it there, and then its slerp renormalizes q: see docs/mixer.md
             * ("The pose kernel path") for that one rounding-dependent difference. */
            st.q = q4_select(st.adds, q4_slerp(&st.q, &to, vf_row(pk_one), true), st.q);
        }
        pk_store_block(&st, locals, b, b2);
    }
}

/* The mixer's most common frame, two normal layers with no mask, twist axes, outside-sampled
 * lanes or additive layer (a walk/run blend, a cross-fade): pk_blend's loop with the two
 * layers written out, so their clips, intervals and weights are read once per update instead
 * of once per block step, and the blend state stays in registers between them. The same
 * calls in the same order as pk_blend(..., 2, ..., 0, ..., true, true), so the same bits. */
static OROYA__INLINE void pk_blend_two(const oroya_pose_skeleton *skel, const active_layer *normal,
                                       const oroya_soa_transform *rest,
                                       oroya_soa_transform *locals) {
    const uint32_t blocks = skel->block_count, joints = skel->joint_count;
    const oroya_pose_clip *c0 = normal[0].clip, *c1 = normal[1].clip;
    const oroya__pose_interval *iv0 = normal[0].iv, *iv1 = normal[1].iv;
    const float w0 = normal[0].weight, w1 = normal[1].weight;
    const bool raw0 = normal[0].raw, raw1 = normal[1].raw;
    for (uint32_t b = 0; b < blocks; b += PK_BLOCKS) {
        const uint32_t b2 = PK_BLOCKS == 2 && b + 1 < blocks ? b + 1 : b;
        const int pad_bits = pad_step(b, b2, joints);
        const vf z = vf_zero();
        blend4 st = {{z, z, z}, {z, z, z, z}, {z, z, z}, z, z, z, z, {z, z, z, vf_row(pk_one)}, z};
        blend_normal(&st, c0, b, b2, iv0, w0, NULL, NULL, NULL, pad_bits, true, raw0);
        blend_normal(&st, c1, b, b2, iv1, w1, NULL, NULL, NULL, pad_bits, true, raw1);
        blend_finish(&st, &rest[b], &rest[b2], NULL, b, b2, pad_bits, true);
        pk_store_block(&st, locals, b, b2);
    }
}

/* Model and bone matrices of every joint from `locals`, parents first. */
static OROYA__INLINE void pk_ltm(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                                 const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones) {
    const uint32_t blocks = skel->block_count;
    for (uint32_t b = 0; b < blocks; b += PK_BLOCKS) {
        const uint32_t b2 = PK_BLOCKS == 2 && b + 1 < blocks ? b + 1 : b;
        ltm_pair(skel, b, b2, &locals[b], &locals[b2], root, models, bones);
    }
}

/* Model and bone matrices (root NULL) of joints [from, to), step by step through one inlined
 * ltm_pair_range, whole steps and parts of a step (an IK point inside it) alike: one copy of
 * the step's code keeps the IK frame's code small (docs/performance.md, "A character frame
 * with IK"). A step computed in parts gives the same bits as in one piece. */
static OROYA__INLINE void pk_ltm_span(const oroya__ik_pose *p, uint32_t from, uint32_t to) {
    const oroya_pose_skeleton *skel = p->skeleton;
    const uint32_t blocks = skel->block_count, joints = skel->joint_count;
    const uint32_t per = 4u * PK_BLOCKS;
    to = to < joints ? to : joints;
    while (from < to) {
        const uint32_t sb = from / per * PK_BLOCKS;
        const uint32_t send = (sb + PK_BLOCKS) * 4 < joints ? (sb + PK_BLOCKS) * 4 : joints;
        const uint32_t b2 = PK_BLOCKS == 2 && sb + 1 < blocks ? sb + 1 : sb;
        const uint32_t e = to < send ? to : send;
        ltm_pair_range(skel, sb, b2, &p->locals[sb], &p->locals[b2], NULL, p->models, p->bones,
                       from, e);
        from = e;
    }
}

/* Where the pass runs the IKs of the roots from r on (rend: the end of the roots), with
 * joints [0, done) computed and steps of `per` joints: at the start of r's step when r's
 * parent is before it (or r is a skeleton root), else at r itself (the step is computed in
 * two parts), never before `done`. Every root after r whose parent is computed by then runs
 * at the same point; *end is the first that does not. */
static OROYA__INLINE uint32_t pk_ik_point(const oroya__ik_plan_root *r,
                                          const oroya__ik_plan_root *rend, uint32_t done,
                                          uint32_t per, const oroya__ik_plan_root **end) {
    const uint32_t first = r->joint / per * per;
    uint32_t at = r->parent + 1 <= first ? first : r->joint;
    at = at > done ? at : done;
    const oroya__ik_plan_root *q = r;
    while (q != rend && q->parent + 1 <= at) {
        q++;
    }
    *end = q;
    return at;
}

/* Local-to-model with IKs (see oroya__pose_ltm_ik): after the pass, or inside it, each root's
 * IKs run once its parent is computed (they write the chains' local rotations), and the pass
 * goes on from the new rotations, so every joint is computed once, already corrected.
 *
 * The IKs run at points of the pass. The next root r runs at the start of its step when its
 * parent is before the step (or it is a skeleton root), so the step's local matrices are
 * composed once, else at r itself (the step is computed in two parts). Every root after r
 * whose parent is computed by then runs at the same point (the two legs with the neck, all
 * three from the hips and the spine): such roots are not below one another (a root's parent
 * is not computed before the root has run), so their IKs read nothing another writes and the
 * result is that of running them one by one, and oroya__ik_run_roots can solve them side by
 * side. The roots are taken in order; a root whose parent is not computed yet ends the group.
 * A root whose IKs are all off this frame (weight 0) is passed over (oroya__ik_next_live):
 * it does not split the pass, so a list switched off by its weights costs what no list does. */
static void pk_ltm_ik(const oroya__ik_pose *p) {
    const oroya_pose_skeleton *skel = p->skeleton;
    const oroya__ik_plan *plan = p->plan;
    if (!plan) {
        pk_ltm(skel, p->locals, NULL, p->models, p->bones);
        oroya__ik_run_after(p);
        return;
    }
    const uint32_t per = 4u * PK_BLOCKS;
    /* The roots ascend: the next one is at r, and every root before it is done; joints
     * [0, done) are computed. */
    const oroya__ik_plan_root *r = plan->roots, *const rend = r + plan->root_count;
    oroya__ik_parent_cache parent = {.set = false};
    uint32_t done = 0;
    while ((r = oroya__ik_next_live(p, r, rend)) != rend) {
        const oroya__ik_plan_root *q;
        const uint32_t at = pk_ik_point(r, rend, done, per, &q);
        pk_ltm_span(p, done, at);
        oroya__ik_run_roots(p, r, (uint32_t)(q - r), &parent);
        r = q;
        done = at;
    }
    pk_ltm_span(p, done, skel->joint_count);
}

/* The mixer's time is a double (three's is a JS number): the interval comes from the float
 * time just below it (the same interval, see the mixer), the factor from the double itself,
 * (t - t0) / (t1 - t0) as three's interpolants compute it, so a long clip or a short interval
 * loses nothing to float time. Returns whether raw_keys can change a rotation of this layer:
 * the clip has STEP rotation lanes, or a group other than 0 has its factor at -0 (before its
 * first key) or 1 (at or after its last); strictly inside (0, 1) no lane copies a key. Group
 * 0 (the constants, times [0, 1]) does not count: only lanes with no keys of their own read
 * it, and they carry weight 0, so their samples never reach the blend. */
static bool refine_factors(const oroya_pose_clip *clip, double t, oroya__pose_interval *iv) {
    bool raw = clip->step_rotations;
    for (uint32_t g = 0; g < clip->group_count; g++) {
        const float *times = clip->keys + clip->groups[g].offset;
        const double t0 = times[iv[g].k], t1 = times[iv[g].k + 1];
        const double a = (t - t0) / (t1 - t0);
        /* Before the first key the factor is -0 (the same arithmetic as 0), so that the
         * sampler copies the key as three does there, and interpolates at exactly 0 (t on the
         * first key). 1 means at or after the last key (a copy too): a factor a hair below 1
         * that rounds to 1 in float stays below it. */
        float af;
        if (a > 0 && a < 1) {
            af = (float)a;
            if (af == 1.0f) {
                af = 0x1.fffffep-1f;
            }
        } else {
            af = a >= 1 ? 1.0f : (a < 0 ? -0.0f : 0.0f); /* NaN: 0 */
            raw = raw || g != 0;
        }
        iv[g].a = af;
    }
    return raw;
}

/* Seeks every layer (in place) and blends them: the mixer's entry (see oroya__pose_mix). */
static OROYA__INLINE void pk_mix(const oroya_pose_skeleton *skel,
                                 const oroya__pose_mix_layer *layers, uint32_t count,
                                 const oroya_soa_transform *rest, oroya_soa_transform *locals,
                                 active_layer *scratch) {
    uint32_t normal_count = 0, additive_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!layers[i].additive) {
            normal_count++;
        }
    }
    active_layer *normal = scratch, *additive = scratch + normal_count;
    normal_count = 0;
    bool plain = true;
    for (uint32_t i = 0; i < count; i++) {
        const oroya__pose_mix_layer *ly = &layers[i];
        seek_groups(ly->clip, ly->cursors, ly->time, ly->intervals);
        const bool raw = refine_factors(ly->clip, ly->time_exact, ly->intervals);
        active_layer *a = ly->additive ? &additive[additive_count++] : &normal[normal_count++];
        a->raw = raw;
        a->clip = ly->clip;
        a->iv = ly->intervals;
        a->weight = ly->weight;
        a->mask = ly->mask;
        a->twist = ly->additive ? NULL : ly->twist;
        a->ext = ly->ext;
        plain = plain && !a->mask && !a->twist && !a->ext;
    }
    if (plain && additive_count == 0 && normal_count == 2) {
        pk_blend_two(skel, normal, rest, locals); /* the commonest: two actions */
    } else if (plain && additive_count == 0) {
        /* The usual frame (normal layers only): with no additive layer the blend state's
         * additive rotation is dead, so this copy keeps the rest of it in registers. */
        pk_blend(skel, normal, normal_count, additive, 0, rest, locals, true, true);
    } else if (plain) {
        pk_blend(skel, normal, normal_count, additive, additive_count, rest, locals, true, true);
    } else {
        pk_blend(skel, normal, normal_count, additive, additive_count, rest, locals, true, false);
    }
}

/* Samples and blends the layers into the locals, then model and bone matrices (parents come
 * first). The caller checked the arguments. */
static OROYA__INLINE void pk_run_update(oroya_pose_character *c, const oroya_pose_layer *layers,
                                        uint32_t layer_count) {
    const oroya_pose_skeleton *skel = c->skeleton;
    const size_t per_slot = (size_t)c->channel_count + 1; /* cursors */
    const size_t iv_slot = c->slot_intervals;
    /* The contributing layers, split once per update rather than tested again in every
     * block (layer_count <= max_layers <= OROYA_POSE_MAX_LAYERS, checked by the caller). */
    active_layer normal[OROYA_POSE_MAX_LAYERS], additive[OROYA_POSE_MAX_LAYERS];
    uint32_t normal_count = 0, additive_count = 0;
    for (uint32_t i = 0; i < layer_count && i < OROYA_POSE_MAX_LAYERS; i++) {
        const oroya_pose_layer *ly = &layers[i];
        if (c->slot_clips[i] != ly->clip) {
            c->slot_clips[i] = ly->clip;
            memset(c->cursors + i * per_slot, 0, per_slot * sizeof(uint16_t));
            pkq_reset(ly->clip, c->intervals + i * iv_slot);
        }
        if (ly->clip && ly->weight > 0) {
            oroya__pose_interval *iv = c->intervals + i * iv_slot;
            seek_groups(ly->clip, c->cursors + i * per_slot, ly->time, iv);
            active_layer *a =
                ly->clip->additive ? &additive[additive_count++] : &normal[normal_count++];
            a->clip = ly->clip;
            a->iv = iv;
            a->weight = ly->weight;
            a->mask = NULL;
            a->twist = NULL;
            a->ext = NULL;
            a->raw = false; /* not exact: raw_keys does not run */
        }
    }
    pk_blend(skel, normal, normal_count, additive, additive_count, skel->rest, c->locals, false,
             false);
    c->ik_report = (oroya__ik_report){0, UINT32_MAX};
    if (!c->ik_count) {
        pk_ltm(skel, c->locals, NULL, c->models, c->bones);
    } else {
        const oroya__ik_pose p = {skel,        c->locals,  c->models, c->bones,     c->ik,
                                  c->ik_count, c->ik_plan, NULL,      &c->ik_report};
        pk_ltm_ik(&p);
    }
    oroya__pose_guard(skel, c->locals, NULL, c->models, c->bones, &c->guard);
}

#endif
