/* The pose layer's per-frame kernel for CPUs with AVX2: src/internal/pose_kernel.h at width 8,
 * two SoA blocks (8 joints) per step. The AVX2 target is set here, for this file alone, so
 * the library builds with the compiler's defaults and no per-file flags; src/anim/pose.c calls in
 * only when the CPU reports AVX2 (oroya__pose_run_update). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "internal/pose.h"

#if OROYA__POSE_AVX2

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#include <immintrin.h>

#include "internal/pose_simd.h"
#define OROYA__PK_WIDTH 8
#include "internal/pose_kernel.h"

void oroya__pose_run_update_avx2(oroya_pose_character *c, const oroya_pose_layer *layers,
                                 uint32_t layer_count) {
    pk_run_update(c, layers, layer_count);
}

void oroya__pose_mix_avx2(const oroya_pose_skeleton *skel, const oroya__pose_mix_layer *layers,
                          uint32_t count, const oroya_soa_transform *rest,
                          oroya_soa_transform *locals, void *scratch) {
    pk_mix(skel, layers, count, rest, locals, scratch);
}

void oroya__pose_ltm_avx2(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                          const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones) {
    pk_ltm(skel, locals, root, models, bones);
}

void oroya__pose_ltm_ik_avx2(const oroya__ik_pose *p) { pk_ltm_ik(p); }

/* oroya__pose_mats_sum_finite, two columns per add: the same test (whether the element sums
 * are finite; the sums are added in another order, which can only matter near 1e38). */
bool oroya__pose_mats_sum_finite_avx2(const oroya_mat4 *m, uint32_t n) {
    const __m256 z = _mm256_setzero_ps();
    __m256 a0 = z, a1 = z, a2 = z, a3 = z, a4 = z, a5 = z, a6 = z, a7 = z;
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float *p = m[i].m;
        a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p));
        a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + 8));
        a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + 16));
        a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + 24));
        a4 = _mm256_add_ps(a4, _mm256_loadu_ps(p + 32));
        a5 = _mm256_add_ps(a5, _mm256_loadu_ps(p + 40));
        a6 = _mm256_add_ps(a6, _mm256_loadu_ps(p + 48));
        a7 = _mm256_add_ps(a7, _mm256_loadu_ps(p + 56));
    }
    for (; i < n; i++) {
        a0 = _mm256_add_ps(a0, _mm256_loadu_ps(m[i].m));
        a1 = _mm256_add_ps(a1, _mm256_loadu_ps(m[i].m + 8));
    }
    const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                   _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    const __m256 t = _mm256_mul_ps(s, z);
    return _mm256_movemask_ps(_mm256_cmp_ps(t, t, _CMP_EQ_OQ)) == 0xFF;
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int oroya__pose_avx2_unused; /* ISO C wants a declaration in every file */
#endif
