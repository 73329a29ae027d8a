/* oroya's one CPU linear blend skinning kernel, which oroya_skin_job_run (oroya/skin.h) and
 * the deprecated oroya_pose_skin_run both run on: an SSE2 loop (the x86-64 baseline), an
 * AVX2+FMA loop and an AVX-512F one picked at run time by what the CPU has, and a general
 * loop (8 influences, zero weights skipped, bad joints skipped and reported, in place; portable
 * C where there is no SSE2). Skinning streams about 72 bytes per vertex (48 in, 24 out), so
 * the loops keep to one pass and blend each vertex's four matrices in registers; the palette
 * (a few KiB) stays in L1. The double-precision oroya_pose_skin_run_reference is the oracle
 * the loops are tested against. */
#include <math.h>
#include <string.h>

#include "internal/base.h"
#include "internal/pose.h"
#include "internal/pose_simd.h"
#include "oroya/skin.h"

#if defined(__SSE2__) && !defined(OROYA_POSE_NO_SIMD)
#include <emmintrin.h>
#define HAVE_SSE2 1
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define HAVE_AVX2_DISPATCH 1
#endif
#endif

#define SKIN_MAX_PALETTE ((uint32_t)OROYA_SKIN_MAX_PALETTE)
#define SKIN_COPY_PALETTE OROYA_MAX_JOINTS /* palettes up to this many may be realigned */

static oroya_result check_job(const oroya_pose_skin_job *job, oroya_error *err) {
    if (!job) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_pose_skin_run: job is NULL");
    }
    if (job->count == 0) {
        return OROYA_OK;
    }
    if (!job->positions || !job->joints || !job->weights || !job->palette || !job->out_positions) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_skin_run: positions, joints, weights, palette and "
                           "out_positions are required");
    }
    if (!job->normals != !job->out_normals) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_skin_run: normals and out_normals go together");
    }
    if (job->palette_count == 0 || job->palette_count > SKIN_MAX_PALETTE) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_skin_run: palette_count %u, expected 1..%u",
                           job->palette_count, SKIN_MAX_PALETTE);
    }
    return OROYA_OK;
}

static oroya_result bad_joint(const oroya_pose_skin_job *job, oroya_error *err) {
    for (uint32_t v = 0; v < job->count; v++) {
        for (uint32_t k = 0; k < 4; k++) {
            if (job->joints[v * 4 + k] >= job->palette_count) {
                return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE,
                                   "vertex %u: influence %u names joint %u, palette has %u", v, k,
                                   job->joints[v * 4 + k], job->palette_count);
            }
        }
    }
    return OROYA_ERR_OUT_OF_RANGE;
}

/* True when every joint index is below palette_count. A separate pass over the 8 bytes of
 * indices per vertex (about a tenth of the vertex stream) keeps the skinning loops free of
 * per-influence clamps, and leaves the outputs untouched when an index is bad. */
bool oroya__skin_joints_in_range(const uint16_t *joints, size_t n, uint32_t palette_count) {
    if (palette_count == 0) {
        return n == 0;
    }
    size_t i = 0;
    uint32_t bad = 0;
#if HAVE_SSE2
    /* Saturating j - (count - 1) is nonzero exactly when j >= count. Four loads per
     * iteration into two accumulators: one load per iteration ran at half the speed the
     * cache delivers (24 against 11 us for the 800 KB of the bench's mesh), about a tenth of
     * the whole call. */
    const __m128i limit = _mm_set1_epi16((short)(uint16_t)(palette_count - 1));
    __m128i acc = _mm_setzero_si128(), acc2 = acc;
    for (; i + 32 <= n; i += 32) {
        const __m128i *p = (const __m128i *)(joints + i);
        acc = _mm_or_si128(acc, _mm_subs_epu16(_mm_loadu_si128(p), limit));
        acc2 = _mm_or_si128(acc2, _mm_subs_epu16(_mm_loadu_si128(p + 1), limit));
        acc = _mm_or_si128(acc, _mm_subs_epu16(_mm_loadu_si128(p + 2), limit));
        acc2 = _mm_or_si128(acc2, _mm_subs_epu16(_mm_loadu_si128(p + 3), limit));
    }
    for (; i + 8 <= n; i += 8) {
        const __m128i j = _mm_loadu_si128((const __m128i *)(joints + i));
        acc = _mm_or_si128(acc, _mm_subs_epu16(j, limit));
    }
    acc = _mm_or_si128(acc, acc2);
    bad = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi16(acc, _mm_setzero_si128())) != 0xFFFFu;
#endif
    for (; i < n; i++) {
        bad |= joints[i] >= palette_count;
    }
    return !bad;
}

/* ---- reference ------------------------------------------------------------------------- */

static void skin_one_reference(const oroya_pose_skin_job *job, uint32_t v, uint32_t *bad) {
    double m[12] = {0};
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t j = job->joints[v * 4 + k];
        if (j >= job->palette_count) {
            *bad = 1;
            j = 0;
        }
        const double w = job->weights[v * 4 + k];
        if (w == 0) {
            continue; /* as the kernels: a weight-0 influence adds nothing, NaN bones too */
        }
        const float *p = job->palette[j].m;
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 3; r++) {
                m[c * 3 + r] += w * p[c * 4 + r];
            }
        }
    }
    const float *pos = job->positions + (size_t)v * 3;
    for (int r = 0; r < 3; r++) {
        job->out_positions[(size_t)v * 3 + (size_t)r] =
            (float)(m[r] * pos[0] + m[3 + r] * pos[1] + m[6 + r] * pos[2] + m[9 + r]);
    }
    if (job->normals) {
        const float *nor = job->normals + (size_t)v * 3;
        double n[3];
        for (int r = 0; r < 3; r++) {
            n[r] = m[r] * nor[0] + m[3 + r] * nor[1] + m[6 + r] * nor[2];
        }
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double f = len > 0 ? 1 / len : 0;
        for (int r = 0; r < 3; r++) {
            job->out_normals[(size_t)v * 3 + (size_t)r] = (float)(n[r] * f);
        }
    }
}

static oroya_result skin_run_reference(const oroya_pose_skin_job *job, oroya_error *err) {
    oroya_result res = check_job(job, err);
    if (res != OROYA_OK || job->count == 0) {
        return res;
    }
    /* As oroya_pose_skin_run: a bad index leaves the outputs untouched. */
    for (size_t i = 0; i < (size_t)job->count * 4; i++) {
        if (job->joints[i] >= job->palette_count) {
            return bad_joint(job, err);
        }
    }
    uint32_t bad = 0;
    for (uint32_t v = 0; v < job->count; v++) {
        skin_one_reference(job, v, &bad);
    }
    return OROYA_OK;
}

#if HAVE_AVX2_DISPATCH
/* Whether positions get an offset: the bind matrix inverse's translation of a skin job. The
 * AVX2 and AVX-512 loops are instantiated with and without the add, so jobs without one pay
 * nothing. */
static inline bool has_offset(const oroya__skin_kernel_job *job) {
    return job->offset[0] != 0.0f || job->offset[1] != 0.0f || job->offset[2] != 0.0f;
}
#endif

/* ---- the blend, shared by the SSE2 and the general loop --------------------------------------- */

/* Adds w times the palette matrix at p (four columns) to the blended matrix c0..c3. */
static inline void blend_add(const float *p, v4 w, v4 *c0, v4 *c1, v4 *c2, v4 *c3) {
    *c0 = v4_add(*c0, v4_mul(v4_loadu(p), w));
    *c1 = v4_add(*c1, v4_mul(v4_loadu(p + 4), w));
    *c2 = v4_add(*c2, v4_mul(v4_loadu(p + 8), w));
    *c3 = v4_add(*c3, v4_mul(v4_loadu(p + 12), w));
}

/* The blended matrix times the point p (p[0..2], w = 1). */
static inline v4 blend_point(v4 c0, v4 c1, v4 c2, v4 c3, const float *p) {
    return v4_add(v4_add(v4_mul(c0, v4_set1(p[0])), v4_mul(c1, v4_set1(p[1]))),
                  v4_add(v4_mul(c2, v4_set1(p[2])), c3));
}

/* The blended matrix's linear part times the direction n (n[0..2]). */
static inline v4 blend_direction(v4 c0, v4 c1, v4 c2, const float *n) {
    return v4_add(v4_add(v4_mul(c0, v4_set1(n[0])), v4_mul(c1, v4_set1(n[1]))),
                  v4_mul(c2, v4_set1(n[2])));
}

/* ---- SSE2 ----------------------------------------------------------------------------------- */

#if HAVE_SSE2
/* Stores the xyz of v at out: 4 floats at once when `wide` (the fourth lands in the next
 * vertex, which is written later), else exactly 3. */
static inline void store3_sse2(float *out, __m128 v, bool wide) {
    if (wide) {
        _mm_storeu_ps(out, v);
    } else {
        float tmp[4];
        _mm_storeu_ps(tmp, v);
        memcpy(out, tmp, 3 * sizeof(float));
    }
}

/* Skins vertices [begin, end) whose joints were checked. `wide` allows 4-float stores, which
 * write one float into the next vertex (rewritten by the next iteration), so the caller
 * passes false for the last vertex. The job's spans are copied to locals first: stores
 * through the outputs could otherwise alias the job and force reloads every vertex. */
static void skin_sse2(const oroya__skin_kernel_job *job, uint32_t begin, uint32_t end, bool wide) {
    const float *pal = job->palette;
    const float *positions = job->positions, *normals = job->normals, *weights = job->weights;
    const uint16_t *joints = job->joints;
    float *out_p = job->out_positions, *out_n = job->out_normals;
    const __m128 mask3 = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    const __m128 off = _mm_setr_ps(job->offset[0], job->offset[1], job->offset[2], 0.0f);
    for (uint32_t v = begin; v < end; v++) {
        const uint16_t *jv = joints + (size_t)v * 4;
        const float *wv = weights + (size_t)v * 4;
        __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
        for (int k = 0; k < 4; k++) {
            blend_add(pal + (size_t)jv[k] * 16, _mm_set1_ps(wv[k]), &c0, &c1, &c2, &c3);
        }
        c3 = _mm_add_ps(c3, off);
        store3_sse2(out_p + (size_t)v * 3, blend_point(c0, c1, c2, c3, positions + (size_t)v * 3),
                    wide);
        if (normals) {
            __m128 n = blend_direction(c0, c1, c2, normals + (size_t)v * 3);
            /* The w lane of n is 0 for affine palettes; mask it so any bottom row works. */
            n = _mm_and_ps(n, mask3);
            __m128 d = _mm_mul_ps(n, n);
            d = _mm_add_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(2, 3, 0, 1)));
            d = _mm_add_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(1, 0, 3, 2)));
            __m128 len = _mm_sqrt_ps(d);
            __m128 nz = _mm_cmpgt_ps(len, _mm_setzero_ps());
            n = _mm_and_ps(_mm_div_ps(n, len), nz);
            store3_sse2(out_n + (size_t)v * 3, n, wide);
        }
    }
}
#endif

/* ---- AVX2 + FMA ------------------------------------------------------------------------------ */

#if HAVE_AVX2_DISPATCH
/* Blends vertex v's four palette matrices two columns per 256-bit register: *a = (c0 | c1),
 * *b = (c2 | c3). */
__attribute__((target("avx2,fma"), always_inline)) static inline void
blend_avx2(const float *pal, const float *weights, const uint16_t *joints, size_t v, __m256 *a,
           __m256 *b) {
    uint64_t jv;
    memcpy(&jv, joints + v * 4, sizeof jv); /* the four indices in one load */
    const float *p0 = pal + (size_t)(jv & 0xFFFFu) * 16;
    const float *p1 = pal + (size_t)((jv >> 16) & 0xFFFFu) * 16;
    const float *p2 = pal + (size_t)((jv >> 32) & 0xFFFFu) * 16;
    const float *p3 = pal + (size_t)(jv >> 48) * 16;
    const float *wv = weights + v * 4;
    const __m256 w0 = _mm256_broadcast_ss(wv), w1 = _mm256_broadcast_ss(wv + 1);
    const __m256 w2 = _mm256_broadcast_ss(wv + 2), w3 = _mm256_broadcast_ss(wv + 3);
    /* Two short chains per column pair instead of one long one. */
    const __m256 a01 =
        _mm256_fmadd_ps(_mm256_loadu_ps(p1), w1, _mm256_mul_ps(_mm256_loadu_ps(p0), w0));
    const __m256 b01 =
        _mm256_fmadd_ps(_mm256_loadu_ps(p1 + 8), w1, _mm256_mul_ps(_mm256_loadu_ps(p0 + 8), w0));
    const __m256 a23 =
        _mm256_fmadd_ps(_mm256_loadu_ps(p3), w3, _mm256_mul_ps(_mm256_loadu_ps(p2), w2));
    const __m256 b23 =
        _mm256_fmadd_ps(_mm256_loadu_ps(p3 + 8), w3, _mm256_mul_ps(_mm256_loadu_ps(p2 + 8), w2));
    *a = _mm256_add_ps(a01, a23);
    *b = _mm256_add_ps(b01, b23);
}

/* Two vertices v, v + 1 (the second not the last of the job: its 4-float loads and stores
 * reach one float past it). Their blended matrices are transposed by 128-bit lanes into
 * c0..c3 of both, so one register holds a column of each vertex and the vertices' xyz are
 * spread by in-lane permutes: a position is three multiply-adds per two vertices, with no
 * horizontal sums. Writes the positions and returns the unnormalized normals (w lanes 0). */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
skin_pair_avx2(const float *pal, const float *positions, const float *normals, const float *weights,
               const uint16_t *joints, float *out_p, size_t v, bool with_normals, bool with_offset,
               __m256 off) {
    __m256 a0, b0, a1, b1;
    blend_avx2(pal, weights, joints, v, &a0, &b0);
    blend_avx2(pal, weights, joints, v + 1, &a1, &b1);
    const __m256 c0 = _mm256_permute2f128_ps(a0, a1, 0x20);
    const __m256 c1 = _mm256_permute2f128_ps(a0, a1, 0x31);
    const __m256 c2 = _mm256_permute2f128_ps(b0, b1, 0x20);
    __m256 c3 = _mm256_permute2f128_ps(b0, b1, 0x31);
    if (with_offset) {
        c3 = _mm256_add_ps(c3, off);
    }
    const size_t o = v * 3;
    const __m256 p = _mm256_set_m128(_mm_loadu_ps(positions + o + 3), _mm_loadu_ps(positions + o));
    __m256 r = _mm256_fmadd_ps(c0, _mm256_permute_ps(p, 0x00), c3);
    r = _mm256_fmadd_ps(c1, _mm256_permute_ps(p, 0x55), r);
    r = _mm256_fmadd_ps(c2, _mm256_permute_ps(p, 0xAA), r);
    _mm_storeu_ps(out_p + o, _mm256_castps256_ps128(r));
    _mm_storeu_ps(out_p + o + 3, _mm256_extractf128_ps(r, 1));
    if (!with_normals) {
        return _mm256_setzero_ps();
    }
    const __m256 q = _mm256_set_m128(_mm_loadu_ps(normals + o + 3), _mm_loadu_ps(normals + o));
    __m256 n = _mm256_mul_ps(c0, _mm256_permute_ps(q, 0x00));
    n = _mm256_fmadd_ps(c1, _mm256_permute_ps(q, 0x55), n);
    n = _mm256_fmadd_ps(c2, _mm256_permute_ps(q, 0xAA), n);
    /* The w lanes are 0 for affine palettes; zeroing them lets any bottom row work. */
    const __m256 mask3 = _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
    return _mm256_and_ps(n, mask3);
}

/* The squared length of each half's xyz, in all four of its lanes. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256 length2_avx2(__m256 n) {
    __m256 d = _mm256_mul_ps(n, n);
    d = _mm256_add_ps(d, _mm256_permute_ps(d, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm256_add_ps(d, _mm256_permute_ps(d, _MM_SHUFFLE(1, 0, 3, 2)));
}

/* Skins vertices [begin, end) four at a time, end < count, and returns where it stopped. The
 * four normals share one square root: square roots and divisions go through one slow unit
 * (about 4.5 and 2.5 cycles each on Zen 5, at any width). The division stays a division, as
 * in the other kernels, rather than a multiply by a shared reciprocal. */
__attribute__((target("avx2,fma"), always_inline)) static inline uint32_t
skin_avx2_body(const oroya__skin_kernel_job *job, uint32_t begin, uint32_t end, bool with_normals,
               bool with_offset) {
    const float *pal = job->palette;
    const float *positions = job->positions, *normals = job->normals, *weights = job->weights;
    const uint16_t *joints = job->joints;
    float *out_p = job->out_positions, *out_n = job->out_normals;
    const __m256 off = _mm256_setr_ps(job->offset[0], job->offset[1], job->offset[2], 0.0f,
                                      job->offset[0], job->offset[1], job->offset[2], 0.0f);
    uint32_t v = begin;
    for (; v + 4 <= end; v += 4) {
        const __m256 n01 = skin_pair_avx2(pal, positions, normals, weights, joints, out_p, v,
                                          with_normals, with_offset, off);
        const __m256 n23 = skin_pair_avx2(pal, positions, normals, weights, joints, out_p,
                                          (size_t)v + 2, with_normals, with_offset, off);
        if (with_normals) {
            /* (|n0| |n2| |n0| |n2| | |n1| |n3| |n1| |n3|) */
            const __m256 len =
                _mm256_sqrt_ps(_mm256_blend_ps(length2_avx2(n01), length2_avx2(n23), 0xAA));
            const __m256 l01 = _mm256_permute_ps(len, 0x00), l23 = _mm256_permute_ps(len, 0x55);
            const __m256 zero = _mm256_setzero_ps();
            const __m256 m01 =
                _mm256_and_ps(_mm256_div_ps(n01, l01), _mm256_cmp_ps(l01, zero, _CMP_GT_OQ));
            const __m256 m23 =
                _mm256_and_ps(_mm256_div_ps(n23, l23), _mm256_cmp_ps(l23, zero, _CMP_GT_OQ));
            float *on = out_n + (size_t)v * 3;
            _mm_storeu_ps(on, _mm256_castps256_ps128(m01));
            _mm_storeu_ps(on + 3, _mm256_extractf128_ps(m01, 1));
            _mm_storeu_ps(on + 6, _mm256_castps256_ps128(m23));
            _mm_storeu_ps(on + 9, _mm256_extractf128_ps(m23, 1));
        }
    }
    return v;
}

__attribute__((target("avx2,fma"))) static uint32_t skin_avx2(const oroya__skin_kernel_job *job,
                                                              uint32_t begin, uint32_t end) {
    const bool off = has_offset(job);
    if (job->normals) {
        return off ? skin_avx2_body(job, begin, end, true, true)
                   : skin_avx2_body(job, begin, end, true, false);
    }
    return off ? skin_avx2_body(job, begin, end, false, true)
               : skin_avx2_body(job, begin, end, false, false);
}

/* ---- AVX-512F -------------------------------------------------------------------------------- */

/* One 512-bit register holds a whole palette matrix (columns c0..c3 in its 128-bit lanes), so
 * a vertex's blend is two multiplies, two multiply-adds and an add, half the AVX2 count; on
 * CPUs with full-width 512-bit units (this was measured on Zen 5: a 512-bit multiply issues
 * as fast as a 256-bit one) that halves the multiply-add and palette-load work, the two
 * limits of this loop. The four weights come in with one 16-byte load and are spread by
 * in-lane permutes (four per cycle there) rather than by four broadcast loads: vector loads
 * run two per cycle and the palette already takes four per vertex. */
__attribute__((target("avx512f"), always_inline)) static inline __m512
blend_avx512(const float *pal, const float *weights, const uint16_t *joints, size_t v) {
    uint64_t jv;
    memcpy(&jv, joints + v * 4, sizeof jv); /* the four indices in one load */
    const __m512 w = _mm512_broadcast_f32x4(_mm_loadu_ps(weights + v * 4));
    const __m512 m0 = _mm512_loadu_ps(pal + (size_t)(jv & 0xFFFFu) * 16);
    const __m512 m1 = _mm512_loadu_ps(pal + (size_t)((jv >> 16) & 0xFFFFu) * 16);
    const __m512 m2 = _mm512_loadu_ps(pal + (size_t)((jv >> 32) & 0xFFFFu) * 16);
    const __m512 m3 = _mm512_loadu_ps(pal + (size_t)(jv >> 48) * 16);
    /* Two short chains instead of one of four dependent multiply-adds. */
    const __m512 a = _mm512_fmadd_ps(m1, _mm512_permute_ps(w, 0x55),
                                     _mm512_mul_ps(m0, _mm512_permute_ps(w, 0x00)));
    const __m512 b = _mm512_fmadd_ps(m3, _mm512_permute_ps(w, 0xFF),
                                     _mm512_mul_ps(m2, _mm512_permute_ps(w, 0xAA)));
    return _mm512_add_ps(a, b);
}

/* Divides four normals (w lanes 0) by their lengths (zero length: zero) and stores them. */
__attribute__((target("avx512f"), always_inline)) static inline void
finish_normals_avx512(float *out, __mmask16 mask, __m512 n, __m512 len) {
    const __m512i pack = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0, 0, 0, 0);
    const __mmask16 nz = _mm512_cmp_ps_mask(len, _mm512_setzero_ps(), _CMP_GT_OQ);
    _mm512_mask_storeu_ps(out, mask, _mm512_permutexvar_ps(pack, _mm512_maskz_div_ps(nz, n, len)));
}

/* Skins the groups of four vertices in [begin, end) and returns where it stopped. The four
 * blended matrices are transposed by 128-bit lanes into c0..c3 of the four vertices, so one
 * register of each holds all four vertices: a position is then three multiply-adds per four
 * vertices, with no horizontal sums, and the four normals share one square root and one
 * division. Loads and stores are masked to the group's 12 floats, so nothing outside the
 * arrays is touched and, unlike the AVX2 loop, this one may run up to the last vertex. */
__attribute__((target("avx512f"), always_inline)) static inline uint32_t
skin_avx512_body(const oroya__skin_kernel_job *job, uint32_t begin, uint32_t end, bool with_normals,
                 bool with_offset) {
    const float *pal = job->palette;
    const float *positions = job->positions, *normals = job->normals, *weights = job->weights;
    const uint16_t *joints = job->joints;
    float *out_p = job->out_positions, *out_n = job->out_normals;
    /* x, y and z of vertex i spread over lane i; pack drops the w lanes for the store. */
    const __m512i sx = _mm512_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3, 6, 6, 6, 6, 9, 9, 9, 9);
    const __m512i sy = _mm512_add_epi32(sx, _mm512_set1_epi32(1));
    const __m512i sz = _mm512_add_epi32(sx, _mm512_set1_epi32(2));
    const __m512i pack = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0, 0, 0, 0);
    const __mmask16 xyz4 = 0x0FFF, no_w = 0x7777;
    const __m512 off =
        _mm512_broadcast_f32x4(_mm_setr_ps(job->offset[0], job->offset[1], job->offset[2], 0.0f));
    /* The previous group's unnormalized normals and lengths; mask 0 before the first. */
    __m512 prev_n = _mm512_setzero_ps(), prev_len = _mm512_set1_ps(1);
    size_t prev_o = 0;
    __mmask16 prev_mask = 0;
    uint32_t v = begin;
    for (; v + 4 <= end; v += 4) {
        const __m512 m0 = blend_avx512(pal, weights, joints, v);
        const __m512 m1 = blend_avx512(pal, weights, joints, (size_t)v + 1);
        const __m512 m2 = blend_avx512(pal, weights, joints, (size_t)v + 2);
        const __m512 m3 = blend_avx512(pal, weights, joints, (size_t)v + 3);
        const __m512 t0 = _mm512_shuffle_f32x4(m0, m1, _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 t1 = _mm512_shuffle_f32x4(m0, m1, _MM_SHUFFLE(3, 2, 3, 2));
        const __m512 t2 = _mm512_shuffle_f32x4(m2, m3, _MM_SHUFFLE(1, 0, 1, 0));
        const __m512 t3 = _mm512_shuffle_f32x4(m2, m3, _MM_SHUFFLE(3, 2, 3, 2));
        const __m512 c0 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
        const __m512 c1 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
        const __m512 c2 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
        __m512 c3 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
        if (with_offset) {
            c3 = _mm512_add_ps(c3, off);
        }
        const size_t o = (size_t)v * 3;
        const __m512 p = _mm512_maskz_loadu_ps(xyz4, positions + o);
        __m512 r = _mm512_fmadd_ps(c0, _mm512_permutexvar_ps(sx, p), c3);
        r = _mm512_fmadd_ps(c1, _mm512_permutexvar_ps(sy, p), r);
        r = _mm512_fmadd_ps(c2, _mm512_permutexvar_ps(sz, p), r);
        _mm512_mask_storeu_ps(out_p + o, xyz4, _mm512_permutexvar_ps(pack, r));
        if (with_normals) {
            const __m512 q = _mm512_maskz_loadu_ps(xyz4, normals + o);
            __m512 n = _mm512_mul_ps(c0, _mm512_permutexvar_ps(sx, q));
            n = _mm512_fmadd_ps(c1, _mm512_permutexvar_ps(sy, q), n);
            /* The w lanes are 0 for affine palettes; zeroing them lets any bottom row work. */
            n = _mm512_maskz_fmadd_ps(no_w, c2, _mm512_permutexvar_ps(sz, q), n);
            __m512 d = _mm512_mul_ps(n, n);
            d = _mm512_add_ps(d, _mm512_permute_ps(d, _MM_SHUFFLE(2, 3, 0, 1)));
            d = _mm512_add_ps(d, _mm512_permute_ps(d, _MM_SHUFFLE(1, 0, 3, 2)));
            const __m512 len = _mm512_sqrt_ps(d);
            /* The division and store come one group later, so the instructions waiting
             * for the square root do not hold up the next group's work. */
            finish_normals_avx512(out_n + prev_o, prev_mask, prev_n, prev_len);
            prev_n = n;
            prev_len = len;
            prev_o = o;
            prev_mask = xyz4;
        }
    }
    if (with_normals) {
        finish_normals_avx512(out_n + prev_o, prev_mask, prev_n, prev_len);
    }
    return v;
}

__attribute__((target("avx512f"))) static uint32_t skin_avx512(const oroya__skin_kernel_job *job,
                                                               uint32_t begin, uint32_t end) {
    const bool off = has_offset(job);
    if (job->normals) {
        return off ? skin_avx512_body(job, begin, end, true, true)
                   : skin_avx512_body(job, begin, end, true, false);
    }
    return off ? skin_avx512_body(job, begin, end, false, true)
               : skin_avx512_body(job, begin, end, false, false);
}

/* No cached flags (threads would race on them): __builtin_cpu_init returns at once after the
 * first call, and each test is a load of the flags libgcc filled in. */
static bool have_avx512(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

static bool have_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

/* ---- the general loop ------------------------------------------------------------------- */

/* Vertices [begin, end) with everything the fast loops leave out: a second set of four
 * influences, influences of weight exactly 0 skipped (three.js's `if (weight !== 0)`: their
 * joint is never read, so a non-finite matrix or an index out of range there does not reach
 * the output), influences naming a joint >= palette_count skipped, and outputs that may be
 * the inputs (each vertex is read before it is written, with 3-float stores). Same
 * operations in the same order as skin_sse2 for the influences it keeps. Returns the first
 * vertex with an out-of-range joint of non-zero weight, UINT32_MAX when none. */
static uint32_t skin_general(const oroya__skin_kernel_job *job, uint32_t begin, uint32_t end) {
    const float *pal = job->palette;
    const uint32_t palette_count = job->palette_count;
    const uint32_t sets = job->joints2 ? 2u : 1u;
    const v4 zero = v4_zero();
    float offv[4] = {job->offset[0], job->offset[1], job->offset[2], 0.0f};
    const v4 off = v4_loadu(offv);
    uint32_t first_bad = UINT32_MAX;
    for (uint32_t v = begin; v < end; v++) {
        v4 c0 = zero, c1 = zero, c2 = zero, c3 = zero;
        for (uint32_t s = 0; s < sets; s++) {
            const uint16_t *jv = (s == 0 ? job->joints : job->joints2) + (size_t)v * 4;
            const float *wv = (s == 0 ? job->weights : job->weights2) + (size_t)v * 4;
            for (int k = 0; k < 4; k++) {
                if (wv[k] == 0.0f) {
                    continue;
                }
                if (jv[k] >= palette_count) {
                    first_bad = first_bad == UINT32_MAX ? v : first_bad;
                    continue;
                }
                blend_add(pal + (size_t)jv[k] * 16, v4_set1(wv[k]), &c0, &c1, &c2, &c3);
            }
        }
        c3 = v4_add(c3, off);
        /* The position is read whole before the output is written: they may be one array. */
        float tmp[4];
        v4_storeu(tmp, blend_point(c0, c1, c2, c3, job->positions + (size_t)v * 3));
        memcpy(job->out_positions + (size_t)v * 3, tmp, 3 * sizeof(float));
        if (job->normals) {
            v4_storeu(tmp, blend_direction(c0, c1, c2, job->normals + (size_t)v * 3));
            const float len = sqrtf(tmp[0] * tmp[0] + tmp[1] * tmp[1] + tmp[2] * tmp[2]);
            float *on = job->out_normals + (size_t)v * 3;
            for (int e = 0; e < 3; e++) {
                on[e] = len > 0.0f ? tmp[e] / len : 0.0f;
            }
        }
    }
    return first_bad;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

uint32_t oroya__skin_kernel_run(const oroya__skin_kernel_job *job, int kernel, bool fast) {
    const uint32_t n = job->count;
    if (n == 0) {
        return UINT32_MAX;
    }
    if (!fast) {
        return skin_general(job, 0, n);
    }
#if HAVE_AVX2_DISPATCH
    const bool avx512 = (kernel == 0 || kernel == 4) && have_avx512();
    if (avx512 || ((kernel == 0 || kernel == 3 || kernel == 4) && have_avx2())) {
        /* Every vertex loads four whole matrices; from a palette that is not 64-byte aligned
         * each 512-bit load (and, 16 or 48 bytes off, half the 256-bit ones) spans two cache
         * lines, which cost the AVX-512 kernel 28 % on the bench mesh (AVX2: 5 %). A small
         * palette is copied to an aligned buffer first when the mesh is big enough to repay
         * the copy. */
        _Alignas(64) float pal[SKIN_COPY_PALETTE * 16];
        oroya__skin_kernel_job aligned;
        if (((uintptr_t)job->palette & 63) != 0 && job->palette_count <= SKIN_COPY_PALETTE &&
            n >= job->palette_count) {
            memcpy(pal, job->palette, (size_t)job->palette_count * 16 * sizeof(float));
            aligned = *job;
            aligned.palette = pal;
            job = &aligned;
        }
        if (avx512) {
            /* The up to 3 vertices after the last group of four go through the SSE2 loop. */
            const uint32_t done = skin_avx512(job, 0, n);
            if (done < n) {
                skin_sse2(job, done, n - 1, true);
                skin_sse2(job, n - 1, n, false);
            }
        } else {
            /* The last vertex would read 4 floats from a 3-float position: the SSE2 loop,
             * which loads scalars and stores narrow, takes it, and the up to 3 before it. */
            const uint32_t done = skin_avx2(job, 0, n - 1);
            skin_sse2(job, done, n - 1, true);
            skin_sse2(job, n - 1, n, false);
        }
        return UINT32_MAX;
    }
#endif
#if HAVE_SSE2
    (void)kernel;
    skin_sse2(job, 0, n - 1, true);
    skin_sse2(job, n - 1, n, false);
    return UINT32_MAX;
#else
    (void)kernel;
    return skin_general(job, 0, n);
#endif
}

/* ---- the pose layer's job (deprecated) ------------------------------------------------------ */

oroya_result oroya_pose_skin_run_reference(const oroya_pose_skin_job *job, oroya_error *err) {
    return skin_run_reference(job, err);
}

/* Kernels beyond the three of internal/pose.h, for the tests: 3 = AVX2+FMA even when the CPU
 * has AVX-512F, 4 = AVX-512F; each falls back to the best the CPU has. */
oroya_result oroya__pose_skin_run_with(const oroya_pose_skin_job *job, int kernel,
                                       oroya_error *err) {
    oroya_result res = check_job(job, err);
    if (res != OROYA_OK || job->count == 0) {
        return res;
    }
    if (kernel == 2) {
        return skin_run_reference(job, err);
    }
    if (!oroya__skin_joints_in_range(job->joints, (size_t)job->count * 4, job->palette_count)) {
        return bad_joint(job, err);
    }
    const oroya__skin_kernel_job k = {
        .count = job->count,
        .positions = job->positions,
        .normals = job->normals,
        .joints = job->joints,
        .weights = job->weights,
        .palette_count = job->palette_count,
        .palette = job->palette[0].m,
        .out_positions = job->out_positions,
        .out_normals = job->out_normals,
    };
    /* As oroya_skin_job_run: a palette with a NaN or infinite element takes the general
     * loop, which skips weight-0 influences (the fast loops multiply them: 0 x NaN). */
    bool finite = true;
    for (size_t i = 0; i < (size_t)job->palette_count * 16; i++) {
        finite = finite && isfinite(job->palette[0].m[i]);
    }
    oroya__skin_kernel_run(&k, kernel, finite);
    return OROYA_OK;
}

oroya_result oroya_pose_skin_run(const oroya_pose_skin_job *job, oroya_error *err) {
    return oroya__pose_skin_run_with(job, 0, err);
}
