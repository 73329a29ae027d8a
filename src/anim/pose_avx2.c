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

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int oroya__pose_avx2_unused; /* ISO C wants a declaration in every file */
#endif
