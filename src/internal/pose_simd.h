/* 4-wide float vectors for the pose layer: SSE2 on x86-64 (its baseline), plain C elsewhere.
 * Masks are vectors whose lanes are all-ones or all-zeros bit patterns, as SSE compares make. */
#ifndef OROYA_INTERNAL_POSE_SIMD_H
#define OROYA_INTERNAL_POSE_SIMD_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(OROYA_POSE_NO_SIMD)
#include <emmintrin.h>
#define OROYA__V4_SSE2 1

typedef __m128 v4;

static inline v4 v4_set1(float a) { return _mm_set1_ps(a); }
static inline v4 v4_zero(void) { return _mm_setzero_ps(); }
static inline v4 v4_load(const float *p) { return _mm_load_ps(p); }
static inline v4 v4_loadu(const float *p) { return _mm_loadu_ps(p); }
static inline void v4_store(float *p, v4 a) { _mm_store_ps(p, a); }
static inline void v4_storeu(float *p, v4 a) { _mm_storeu_ps(p, a); }
static inline v4 v4_add(v4 a, v4 b) { return _mm_add_ps(a, b); }
static inline v4 v4_sub(v4 a, v4 b) { return _mm_sub_ps(a, b); }
static inline v4 v4_mul(v4 a, v4 b) { return _mm_mul_ps(a, b); }
static inline v4 v4_div(v4 a, v4 b) { return _mm_div_ps(a, b); }
static inline v4 v4_sqrt(v4 a) { return _mm_sqrt_ps(a); }
static inline v4 v4_min(v4 a, v4 b) { return _mm_min_ps(a, b); }
static inline v4 v4_max(v4 a, v4 b) { return _mm_max_ps(a, b); }
static inline v4 v4_lt(v4 a, v4 b) { return _mm_cmplt_ps(a, b); }
static inline v4 v4_ge(v4 a, v4 b) { return _mm_cmpge_ps(a, b); }
static inline v4 v4_gt(v4 a, v4 b) { return _mm_cmpgt_ps(a, b); }
static inline v4 v4_eq(v4 a, v4 b) { return _mm_cmpeq_ps(a, b); }
static inline v4 v4_and(v4 a, v4 b) { return _mm_and_ps(a, b); }
static inline v4 v4_or(v4 a, v4 b) { return _mm_or_ps(a, b); }
static inline v4 v4_xor(v4 a, v4 b) { return _mm_xor_ps(a, b); }
/* mask ? a : b */
static inline v4 v4_select(v4 mask, v4 a, v4 b) {
    return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
}
static inline int v4_movemask(v4 mask) { return _mm_movemask_ps(mask); }
static inline v4 v4_sign_bit(void) { return _mm_castsi128_ps(_mm_set1_epi32(INT32_MIN)); }
static inline v4 v4_abs(v4 a) { return _mm_andnot_ps(v4_sign_bit(), a); }
#define v4_lane(a, i) _mm_shuffle_ps((a), (a), _MM_SHUFFLE((i), (i), (i), (i)))
static inline void v4_transpose(v4 *a, v4 *b, v4 *c, v4 *d) { _MM_TRANSPOSE4_PS(*a, *b, *c, *d); }

#else
#include <math.h>

typedef struct v4 {
    float f[4];
} v4;

static inline v4 v4_set1(float a) {
    v4 r = {{a, a, a, a}};
    return r;
}
static inline v4 v4_zero(void) { return v4_set1(0.0f); }
static inline v4 v4_load(const float *p) {
    v4 r;
    memcpy(r.f, p, sizeof r.f);
    return r;
}
static inline v4 v4_loadu(const float *p) { return v4_load(p); }
static inline void v4_store(float *p, v4 a) { memcpy(p, a.f, sizeof a.f); }
static inline void v4_storeu(float *p, v4 a) { v4_store(p, a); }
#define OROYA__V4_OP(name, expr)                                                                   \
    static inline v4 name(v4 a, v4 b) {                                                            \
        v4 r;                                                                                      \
        for (int i = 0; i < 4; i++) {                                                              \
            float x = a.f[i], y = b.f[i];                                                          \
            r.f[i] = (expr);                                                                       \
        }                                                                                          \
        return r;                                                                                  \
    }
OROYA__V4_OP(v4_add, x + y)
OROYA__V4_OP(v4_sub, x - y)
OROYA__V4_OP(v4_mul, x *y)
OROYA__V4_OP(v4_div, x / y)
OROYA__V4_OP(v4_min, x < y ? x : y)
OROYA__V4_OP(v4_max, x > y ? x : y)
#undef OROYA__V4_OP
static inline float v4__bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint32_t v4__ubits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
#define OROYA__V4_CMP(name, expr)                                                                  \
    static inline v4 name(v4 a, v4 b) {                                                            \
        v4 r;                                                                                      \
        for (int i = 0; i < 4; i++) {                                                              \
            float x = a.f[i], y = b.f[i];                                                          \
            r.f[i] = v4__bits((expr) ? 0xffffffffu : 0u);                                          \
        }                                                                                          \
        return r;                                                                                  \
    }
OROYA__V4_CMP(v4_lt, x < y)
OROYA__V4_CMP(v4_ge, x >= y)
OROYA__V4_CMP(v4_gt, x > y)
OROYA__V4_CMP(v4_eq, x == y)
#undef OROYA__V4_CMP
#define OROYA__V4_BIT(name, expr)                                                                  \
    static inline v4 name(v4 a, v4 b) {                                                            \
        v4 r;                                                                                      \
        for (int i = 0; i < 4; i++) {                                                              \
            uint32_t x = v4__ubits(a.f[i]), y = v4__ubits(b.f[i]);                                 \
            r.f[i] = v4__bits(expr);                                                               \
        }                                                                                          \
        return r;                                                                                  \
    }
OROYA__V4_BIT(v4_and, x &y)
OROYA__V4_BIT(v4_or, x | y)
OROYA__V4_BIT(v4_xor, x ^ y)
#undef OROYA__V4_BIT
static inline v4 v4_sqrt(v4 a) {
    for (int i = 0; i < 4; i++) {
        a.f[i] = sqrtf(a.f[i]);
    }
    return a;
}
static inline v4 v4_select(v4 mask, v4 a, v4 b) {
    v4 r;
    for (int i = 0; i < 4; i++) {
        r.f[i] = v4__ubits(mask.f[i]) ? a.f[i] : b.f[i];
    }
    return r;
}
static inline int v4_movemask(v4 mask) {
    int m = 0;
    for (int i = 0; i < 4; i++) {
        m |= (int)(v4__ubits(mask.f[i]) >> 31) << i;
    }
    return m;
}
static inline v4 v4_sign_bit(void) { return v4_set1(v4__bits(0x80000000u)); }
static inline v4 v4_lane_(v4 a, int i) { return v4_set1(a.f[i]); }
#define v4_lane(a, i) v4_lane_((a), (i))
static inline v4 v4_abs(v4 a) {
    for (int i = 0; i < 4; i++) {
        a.f[i] = fabsf(a.f[i]);
    }
    return a;
}
static inline void v4_transpose(v4 *a, v4 *b, v4 *c, v4 *d) {
    v4 *r[4] = {a, b, c, d};
    v4 t[4] = {*a, *b, *c, *d};
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            r[i]->f[j] = t[j].f[i];
        }
    }
}

#endif

static inline v4 v4_neg(v4 a) { return v4_xor(a, v4_sign_bit()); }

/* oroya's one bone-matrix formula: bone = model (or joint world) x inverse_bind, in float,
 * column-major, column c = m0 * ib[c][0] + (m1 * ib[c][1] + (m2 * ib[c][2] + m3 * ib[c][3]))
 * with m the model's columns. The pose kernel (mixer and pose layer, fused into its local-to-
 * model pass; its 8-wide form does the same operations in the same order),
 * oroya_skeleton_update and oroya_gltf_model_bone_matrices all compute bone matrices with it,
 * so they agree bit for bit on the same inputs. */
static inline void oroya__bone_matrix_v4(const v4 m[4], const float *ib, float *bo) {
    for (int c = 0; c < 4; c++) {
        const float *v = ib + c * 4;
        v4 r = v4_add(v4_mul(m[0], v4_set1(v[0])),
                      v4_add(v4_mul(m[1], v4_set1(v[1])),
                             v4_add(v4_mul(m[2], v4_set1(v[2])), v4_mul(m[3], v4_set1(v[3])))));
        v4_storeu(bo + c * 4, r);
    }
}

static inline void oroya__bone_matrix(const float *model, const float *ib, float *bo) {
    const v4 m[4] = {v4_loadu(model), v4_loadu(model + 4), v4_loadu(model + 8),
                     v4_loadu(model + 12)};
    oroya__bone_matrix_v4(m, ib, bo);
}

#endif
