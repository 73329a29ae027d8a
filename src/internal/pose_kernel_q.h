/* Sampling of compressed runtime clips (built by src/pose_compress.c; the formats are
 * described at oroya__pose_qblock in internal/pose.h). Part of the per-frame kernel: included
 * by internal/pose_kernel.h after its vector and quaternion helpers, so it is compiled at both
 * widths. Every (block, channel) is decoded 4 lanes at a time into 128-bit vectors (two blocks
 * are joined at width 8), so the two widths do the same operations on every lane and give
 * identical bits. Integer rows are widened and converted exactly (an unsigned 16-bit value is
 * exact in float), then scaled: value = min + q * step, two roundings, no FMA. */
#ifndef OROYA_INTERNAL_POSE_KERNEL_Q_H
#define OROYA_INTERNAL_POSE_KERNEL_Q_H

/* Lane masks of the 16 animated-lane patterns. */
#define PKQ_M(b) ((b) ? UINT32_MAX : 0u)
#define PKQ_ROW(n) {PKQ_M((n) & 1), PKQ_M((n) & 2), PKQ_M((n) & 4), PKQ_M((n) & 8)}
static _Alignas(16) const uint32_t pkq_lane_masks[16][4] = {
    PKQ_ROW(0),  PKQ_ROW(1),  PKQ_ROW(2),  PKQ_ROW(3),  PKQ_ROW(4),  PKQ_ROW(5),
    PKQ_ROW(6),  PKQ_ROW(7),  PKQ_ROW(8),  PKQ_ROW(9),  PKQ_ROW(10), PKQ_ROW(11),
    PKQ_ROW(12), PKQ_ROW(13), PKQ_ROW(14), PKQ_ROW(15)};
#undef PKQ_ROW
#undef PKQ_M

/* 4 unsigned 16-bit (or 8-bit) integers as floats. */
static OROYA__INLINE v4 pkq_u16(const uint8_t *p) {
#if defined(OROYA__V4_SSE2)
    __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return _mm_cvtepi32_ps(_mm_unpacklo_epi16(x, _mm_setzero_si128()));
#else
    uint16_t u[4];
    memcpy(u, p, sizeof u);
    v4 r;
    for (int l = 0; l < 4; l++) {
        r.f[l] = (float)u[l];
    }
    return r;
#endif
}
static OROYA__INLINE v4 pkq_u8(const uint8_t *p) {
#if defined(OROYA__V4_SSE2)
    int32_t w;
    memcpy(&w, p, sizeof w);
    const __m128i z = _mm_setzero_si128();
    __m128i x = _mm_unpacklo_epi8(_mm_cvtsi32_si128(w), z);
    return _mm_cvtepi32_ps(_mm_unpacklo_epi16(x, z));
#else
    v4 r;
    for (int l = 0; l < 4; l++) {
        r.f[l] = (float)p[l];
    }
    return r;
#endif
}

/* w of a unit quaternion with w >= 0 from x, y and z. */
static OROYA__INLINE v4 pkq_w(v4 x, v4 y, v4 z) {
    const v4 n = v4_add(v4_mul(x, x), v4_add(v4_mul(y, y), v4_mul(z, z)));
    return v4_sqrt(v4_max(v4_sub(v4_set1(1.0f), n), v4_zero()));
}

/* Keys k and k + 1 of one (block, channel) at the current intervals, as SoA (rotations as
 * x, y, z, w; vectors with a zero fourth row); returns the interpolation factor. */
static OROYA__INLINE float pkq_block(const oroya_pose_clip *clip, uint32_t block, int ch,
                                     const oroya__pose_interval *iv, v4 v0[4], v4 v1[4]) {
    const oroya__pose_qblock *qb = &clip->qblocks[block * 3 + (uint32_t)ch];
    const float *d = clip->qdata + qb->offset;
    const uint32_t comps = ch == OROYA__CH_R ? 4 : 3;
    v0[3] = v1[3] = ch == OROYA__CH_R ? v4_set1(1.0f) : v4_zero();
    switch (qb->kind) {
    case OROYA__Q_CONST:
        for (uint32_t e = 0; e < comps; e++) {
            v0[e] = v1[e] = v4_load(d + e * 4);
        }
        return 0.0f;
    case OROYA__Q_F32: {
        const oroya__pose_interval *g = &iv[qb->group];
        const float *r = d + (size_t)g->k * comps * 4, *n = r + comps * 4;
        for (uint32_t e = 0; e < comps; e++) {
            v0[e] = v4_load(r + e * 4);
            v1[e] = v4_load(n + e * 4);
        }
        return g->a;
    }
    case OROYA__Q_16:
    case OROYA__Q_8: {
        const oroya__pose_interval *g = &iv[qb->group];
        const bool wide = qb->kind == OROYA__Q_16;
        const size_t key_bytes = wide ? 24 : 12, row_bytes = wide ? 8 : 4;
        const uint8_t *r = (const uint8_t *)(d + 24) + (size_t)g->k * key_bytes;
        const uint8_t *n = r + key_bytes;
        for (uint32_t e = 0; e < 3; e++) {
            const v4 mn = v4_load(d + e * 4), st = v4_load(d + 12 + e * 4);
            const v4 q0 = wide ? pkq_u16(r + e * row_bytes) : pkq_u8(r + e * row_bytes);
            const v4 q1 = wide ? pkq_u16(n + e * row_bytes) : pkq_u8(n + e * row_bytes);
            v0[e] = v4_add(mn, v4_mul(q0, st));
            v1[e] = v4_add(mn, v4_mul(q1, st));
        }
        if (ch == OROYA__CH_R) {
            v0[3] = pkq_w(v0[0], v0[1], v0[2]);
            v1[3] = pkq_w(v1[0], v1[1], v1[2]);
        }
        return g->a;
    }
    default: /* NONE: no lane animated (weight 0); finite values */
        for (uint32_t e = 0; e < 3; e++) {
            v0[e] = v1[e] = v4_zero();
        }
        return 0.0f;
    }
}

static OROYA__INLINE bool pkq_channel_any(const oroya_pose_clip *clip, uint32_t b, uint32_t b2,
                                          int ch) {
    return clip->qblocks[b * 3 + (uint32_t)ch].animated ||
           (PK_BLOCKS == 2 && clip->qblocks[b2 * 3 + (uint32_t)ch].animated);
}
static OROYA__INLINE vf pkq_channel_animated(const oroya_pose_clip *clip, uint32_t b,
                                             uint32_t b2, int ch) {
    return vf_masks(pkq_lane_masks[clip->qblocks[b * 3 + (uint32_t)ch].animated & 15],
                    pkq_lane_masks[clip->qblocks[b2 * 3 + (uint32_t)ch].animated & 15]);
}

/* 4 (width 8: 8, 4 from each block) unsigned 16- or 8-bit integers as floats. */
static OROYA__INLINE vf pkq_ints(const uint8_t *lo, const uint8_t *hi, const bool wide) {
#if OROYA__PK_WIDTH == 8
    if (wide) {
        const __m128i ab = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)lo),
                                              _mm_loadl_epi64((const __m128i *)(const void *)hi));
        return _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(ab));
    }
    int32_t a, b;
    memcpy(&a, lo, sizeof a);
    memcpy(&b, hi, sizeof b);
    const __m128i ab = _mm_unpacklo_epi32(_mm_cvtsi32_si128(a), _mm_cvtsi32_si128(b));
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(ab));
#else
    (void)hi;
    return wide ? pkq_u16(lo) : pkq_u8(lo);
#endif
}

/* Both blocks quantized alike (the usual case): decoded at full width. The same operations
 * per lane as pkq_block, so either path gives the same bits. */
static OROYA__INLINE void pkq_sample_quantized(const oroya_pose_clip *clip,
                                               const oroya__pose_qblock *qa,
                                               const oroya__pose_qblock *qb, int ch,
                                               const oroya__pose_interval *iv, const bool wide,
                                               vf out[4]) {
    const float *da = clip->qdata + qa->offset, *db = clip->qdata + qb->offset;
    const oroya__pose_interval *ga = &iv[qa->group], *gb = &iv[qb->group];
    const size_t key_bytes = wide ? 24 : 12, row_bytes = wide ? 8 : 4;
    const uint8_t *ra = (const uint8_t *)(da + 24) + (size_t)ga->k * key_bytes;
    const uint8_t *rb = (const uint8_t *)(db + 24) + (size_t)gb->k * key_bytes;
    vf v0[4], v1[4];
    for (uint32_t e = 0; e < 3; e++) {
        const vf mn = vf_load2(da + e * 4, db + e * 4);
        const vf st = vf_load2(da + 12 + e * 4, db + 12 + e * 4);
        const uint8_t *pa = ra + e * row_bytes, *pb = rb + e * row_bytes;
        v0[e] = vf_add(mn, vf_mul(pkq_ints(pa, pb, wide), st));
        v1[e] = vf_add(mn, vf_mul(pkq_ints(pa + key_bytes, pb + key_bytes, wide), st));
    }
#if OROYA__PK_WIDTH == 8
    const vf a = vf_halves(v4_set1(ga->a), v4_set1(gb->a));
#else
    const vf a = v4_set1(ga->a);
#endif
    if (ch == OROYA__CH_R) {
        const vf one = vf_row(pk_one);
        for (int k = 0; k < 2; k++) {
            vf *v = k ? v1 : v0;
            const vf n = vf_add(vf_mul(v[0], v[0]), vf_add(vf_mul(v[1], v[1]), vf_mul(v[2], v[2])));
            v[3] = vf_sqrt(vf_max(vf_sub(one, n), vf_zero()));
        }
        q4 q0 = {v0[0], v0[1], v0[2], v0[3]}, q1 = {v1[0], v1[1], v1[2], v1[3]};
        q4 q = q4_slerp(&q0, &q1, a);
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        return;
    }
    const vf w0 = vf_sub(vf_row(pk_one), a);
    for (int e = 0; e < 3; e++) {
        out[e] = madd(w0, v0[e], vf_mul(a, v1[e]));
    }
}

/* sample_channel for a compressed clip: every block is linear (slerp for rotations). */
static OROYA__INLINE void pkq_sample_channel(const oroya_pose_clip *clip, uint32_t b,
                                             uint32_t b2, int ch,
                                             const oroya__pose_interval *iv, vf out[4]) {
    const oroya__pose_qblock *ka = &clip->qblocks[b * 3 + (uint32_t)ch];
    const oroya__pose_qblock *kb = &clip->qblocks[b2 * 3 + (uint32_t)ch];
    if (ka->kind == kb->kind || PK_BLOCKS == 1) {
        if (ka->kind == OROYA__Q_16) {
            pkq_sample_quantized(clip, ka, kb, ch, iv, true, out);
            return;
        }
        if (ka->kind == OROYA__Q_8) {
            pkq_sample_quantized(clip, ka, kb, ch, iv, false, out);
            return;
        }
    }
    v4 p0[4], p1[4];
    const float fa = pkq_block(clip, b, ch, iv, p0, p1);
    vf v0[4], v1[4], a;
#if OROYA__PK_WIDTH == 8
    v4 n0[4], n1[4];
    const float fb = pkq_block(clip, b2, ch, iv, n0, n1);
    for (int e = 0; e < 4; e++) {
        v0[e] = vf_halves(p0[e], n0[e]);
        v1[e] = vf_halves(p1[e], n1[e]);
    }
    a = vf_halves(v4_set1(fa), v4_set1(fb));
#else
    (void)b2;
    for (int e = 0; e < 4; e++) {
        v0[e] = p0[e];
        v1[e] = p1[e];
    }
    a = v4_set1(fa);
#endif
    if (ch == OROYA__CH_R) {
        q4 qa = {v0[0], v0[1], v0[2], v0[3]}, qb = {v1[0], v1[1], v1[2], v1[3]};
        q4 q = q4_slerp(&qa, &qb, a);
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        return;
    }
    const vf w0 = vf_sub(vf_row(pk_one), a);
    for (int e = 0; e < 3; e++) {
        out[e] = madd(w0, v0[e], vf_mul(a, v1[e]));
    }
}

#endif
