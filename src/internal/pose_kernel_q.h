/* Sampling of compressed runtime clips (built by src/anim/pose_compress.c; the formats are
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
#define PKQ_ROW(n)                                                                                 \
    { PKQ_M((n)&1), PKQ_M((n)&2), PKQ_M((n)&4), PKQ_M((n)&8) }
static _Alignas(16) const uint32_t pkq_lane_masks[16][4] = {
    PKQ_ROW(0),  PKQ_ROW(1),  PKQ_ROW(2),  PKQ_ROW(3), PKQ_ROW(4),  PKQ_ROW(5),
    PKQ_ROW(6),  PKQ_ROW(7),  PKQ_ROW(8),  PKQ_ROW(9), PKQ_ROW(10), PKQ_ROW(11),
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

#if defined(OROYA__V4_SSE2)
/* The 4 packed words of a P32/P24/P16/L32 key. */
static OROYA__INLINE __m128i pkq_words(uint8_t kind, const uint8_t *key) {
    if (kind == OROYA__Q_L32) { /* one lane's word, the same in every lane */
        int32_t w;
        memcpy(&w, key, sizeof w);
        return _mm_set1_epi32(w);
    }
    if (kind == OROYA__Q_P32) {
        return _mm_loadu_si128((const __m128i *)(const void *)key);
    }
    const __m128i z = _mm_setzero_si128();
    const __m128i lo = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)key), z);
    if (kind == OROYA__Q_P16) {
        return lo;
    }
    int32_t h;
    memcpy(&h, key + 8, sizeof h);
    const __m128i hi = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(h), z), z);
    return _mm_or_si128(lo, _mm_slli_epi32(hi, 16));
}

/* The 4 high parts of a P40/P48 key (bits 32 and up of each lane's word). */
static OROYA__INLINE __m128i pkq_words_hi(uint8_t kind, const uint8_t *key) {
    const __m128i z = _mm_setzero_si128();
    if (kind == OROYA__Q_P48) {
        return _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(key + 16)), z);
    }
    int32_t h;
    memcpy(&h, key + 16, sizeof h);
    return _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(h), z), z);
}

/* The component at bits [shift, shift + bits) of 4 words of up to 64 bits given as their low
 * and high 32-bit halves (a shift count of 32 or more gives 0 in SSE2). */
static OROYA__INLINE __m128i pkq_wide_comp(__m128i lo, __m128i hi, uint32_t shift, uint32_t bits) {
    const __m128i part = shift <= 32 ? _mm_sll_epi32(hi, _mm_cvtsi32_si128((int)(32 - shift)))
                                     : _mm_srl_epi32(hi, _mm_cvtsi32_si128((int)(shift - 32)));
    const __m128i v = _mm_or_si128(_mm_srl_epi32(lo, _mm_cvtsi32_si128((int)shift)), part);
    return _mm_and_si128(v, _mm_set1_epi32((int)((1u << bits) - 1u)));
}
#endif

/* Component e of one key of a quantized block, 4 lanes, as floats (the integers). */
static OROYA__INLINE v4 pkq_comp(const oroya__pose_qblock *qb, const uint8_t *key, uint32_t e) {
    switch (qb->kind) {
    case OROYA__Q_16: return pkq_u16(key + e * 8);
    case OROYA__Q_8: return pkq_u8(key + e * 4);
    default: { /* P16 to P48, L32: a word per lane */
        const uint32_t shift = e == 0   ? 0u
                               : e == 1 ? qb->bits[0]
                                        : (uint32_t)qb->bits[0] + qb->bits[1];
        const uint32_t mask = (1u << qb->bits[e]) - 1u;
#if defined(OROYA__V4_SSE2)
        if (qb->kind == OROYA__Q_P40 || qb->kind == OROYA__Q_P48) {
            const __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)key);
            return _mm_cvtepi32_ps(
                pkq_wide_comp(lo, pkq_words_hi(qb->kind, key), shift, qb->bits[e]));
        }
        __m128i w = pkq_words(qb->kind, key);
        w = _mm_and_si128(_mm_srl_epi32(w, _mm_cvtsi32_si128((int)shift)),
                          _mm_set1_epi32((int)mask));
        return _mm_cvtepi32_ps(w);
#else
        v4 r;
        for (uint32_t l = 0; l < 4; l++) {
            r.f[l] = mask ? (float)(uint32_t)((oroya__pose_qword(qb->kind, key, l) >> shift) & mask)
                          : 0.0f;
        }
        return r;
#endif
    }
    }
}

#if defined(OROYA__V4_SSE2)
/* (1 << b) - 1 for the bits b of a component (a load instead of a computed constant). */
static const int32_t pkq_bit_masks[33] = {
    0,         0x1,        0x3,        0x7,        0xF,        0x1F,      0x3F,
    0x7F,      0xFF,       0x1FF,      0x3FF,      0x7FF,      0xFFF,     0x1FFF,
    0x3FFF,    0x7FFF,     0xFFFF,     0x1FFFF,    0x3FFFF,    0x7FFFF,   0xFFFFF,
    0x1FFFFF,  0x3FFFFF,   0x7FFFFF,   0xFFFFFF,   0x1FFFFFF,  0x3FFFFFF, 0x7FFFFFF,
    0xFFFFFFF, 0x1FFFFFFF, 0x3FFFFFFF, 0x7FFFFFFF, (int32_t)-1};
/* How to unpack the keys of one quantized block: its kind, and for the packed kinds the
 * component masks and shift counts (set up once for the keys a refresh decodes). */
typedef struct pkq_unpack {
    uint8_t kind;
    bool top_right; /* P40/P48: component 2's high part shifts right */
    __m128i m0, m1, m2, s1, s2, h1, h2;
} pkq_unpack;

static OROYA__INLINE pkq_unpack pkq_unpack_of(const oroya__pose_qblock *qb) {
    pkq_unpack u;
    u.kind = qb->kind;
    const uint32_t b0 = qb->bits[0], b1 = qb->bits[1], b2 = qb->bits[2];
    u.m0 = _mm_set1_epi32(pkq_bit_masks[b0]);
    u.m1 = _mm_set1_epi32(pkq_bit_masks[b1]);
    u.m2 = _mm_set1_epi32(pkq_bit_masks[b2]);
    u.s1 = _mm_cvtsi32_si128((int)b0), u.s2 = _mm_cvtsi32_si128((int)(b0 + b1));
    /* Component e of a 64-bit word at shift s: (lo >> s | hi << (32 - s)), or hi >> (s - 32)
     * past the low word (SSE2 shifts by 32 or more give 0). */
    u.h1 = _mm_cvtsi32_si128((int)(b0 <= 32 ? 32 - b0 : 0));
    u.top_right = b0 + b1 > 32;
    u.h2 = b0 + b1 <= 32 ? _mm_cvtsi32_si128((int)(32 - b0 - b1))
                         : _mm_cvtsi32_si128((int)(b0 + b1 - 32));
    return u;
}

/* pkq_unpack_of for the cache refresh: only the fields the kind reads are set (fewer
 * instructions per refresh; the sampling path keeps pkq_unpack_of, whose code the float
 * path's register allocation shares). */
static OROYA__INLINE pkq_unpack pkq_unpack_setup(const oroya__pose_qblock *qb) {
    pkq_unpack u;
    u.kind = qb->kind;
    u.top_right = false;
    if (u.kind == OROYA__Q_16 || u.kind == OROYA__Q_8) {
        return u; /* whole integers */
    }
    const uint32_t b0 = qb->bits[0], b1 = qb->bits[1], b2 = qb->bits[2];
    u.m0 = _mm_set1_epi32(pkq_bit_masks[b0]);
    u.m1 = _mm_set1_epi32(pkq_bit_masks[b1]);
    u.m2 = _mm_set1_epi32(pkq_bit_masks[b2]);
    u.s1 = _mm_cvtsi32_si128((int)b0), u.s2 = _mm_cvtsi32_si128((int)(b0 + b1));
    if (u.kind != OROYA__Q_P40 && u.kind != OROYA__Q_P48) {
        return u; /* words of 32 bits or fewer */
    }
    u.h1 = _mm_cvtsi32_si128((int)(b0 <= 32 ? 32 - b0 : 0));
    u.top_right = b0 + b1 > 32;
    u.h2 = b0 + b1 <= 32 ? _mm_cvtsi32_si128((int)(32 - b0 - b1))
                         : _mm_cvtsi32_si128((int)(b0 + b1 - 32));
    return u;
}

/* The three components of one key of a quantized block, 4 lanes of 32-bit integers each. */
static OROYA__INLINE void pkq_unpack_key(const pkq_unpack *u, const uint8_t *key, __m128i o[3]) {
    const __m128i z = _mm_setzero_si128();
    if (u->kind == OROYA__Q_16) {
        for (uint32_t e = 0; e < 3; e++) {
            o[e] = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(key + e * 8)),
                                      z);
        }
        return;
    }
    if (u->kind == OROYA__Q_8) {
        for (uint32_t e = 0; e < 3; e++) {
            int32_t w;
            memcpy(&w, key + e * 4, sizeof w);
            o[e] = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(w), z), z);
        }
        return;
    }
    if (u->kind == OROYA__Q_P40 || u->kind == OROYA__Q_P48) {
        const __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)key);
        const __m128i hi = pkq_words_hi(u->kind, key);
        o[0] = _mm_and_si128(lo, u->m0);
        o[1] =
            _mm_and_si128(_mm_or_si128(_mm_srl_epi32(lo, u->s1), _mm_sll_epi32(hi, u->h1)), u->m1);
        const __m128i top = u->top_right ? _mm_srl_epi32(hi, u->h2) : _mm_sll_epi32(hi, u->h2);
        o[2] = _mm_and_si128(_mm_or_si128(_mm_srl_epi32(lo, u->s2), top), u->m2);
        return;
    }
    const __m128i w = pkq_words(u->kind, key);
    o[0] = _mm_and_si128(w, u->m0);
    o[1] = _mm_and_si128(_mm_srl_epi32(w, u->s1), u->m1);
    o[2] = _mm_and_si128(_mm_srl_epi32(w, u->s2), u->m2);
}

static OROYA__INLINE void pkq_ints3(const oroya__pose_qblock *qb, const uint8_t *key,
                                    __m128i o[3]) {
    const pkq_unpack u = pkq_unpack_of(qb);
    pkq_unpack_key(&u, key, o);
}

/* Keys k (o0) and k + 1 (o1, key_bytes further). */
static OROYA__INLINE void pkq_ints3x2(const oroya__pose_qblock *qb, const uint8_t *key,
                                      size_t key_bytes, __m128i o0[3], __m128i o1[3]) {
    pkq_ints3(qb, key, o0);
    pkq_ints3(qb, key + key_bytes, o1);
}
#endif

static OROYA__INLINE bool pkq_quantized(uint8_t kind) { return kind >= OROYA__Q_16; }

/* w of a unit quaternion with w >= 0 from x, y and z. */
static OROYA__INLINE v4 pkq_w(v4 x, v4 y, v4 z) {
    const v4 n = v4_add(v4_mul(x, x), v4_add(v4_mul(y, y), v4_mul(z, z)));
    return v4_sqrt(v4_max(v4_sub(v4_set1(1.0f), n), v4_zero()));
}

/* Puts a rotation decoded as (c0, c1, c2, c3) back in x, y, z, w order where a lane dropped
 * another component than w (masks m[k]: the lanes that dropped component k). */
#define PKQ_UNSWIZZLE(name, T, sel)                                                                \
    static OROYA__INLINE void name(T v[4], const T m[4]) {                                         \
        const T c0 = v[0], c1 = v[1], c2 = v[2], c3 = v[3];                                        \
        v[0] = sel(m[0], c3, c0);                                                                  \
        v[1] = sel(m[0], c0, sel(m[1], c3, c1));                                                   \
        v[2] = sel(m[2], c3, sel(m[3], c2, c1));                                                   \
        v[3] = sel(m[3], c3, c2);                                                                  \
    }
PKQ_UNSWIZZLE(pkq_unswizzle4, v4, v4_select)
#if OROYA__PK_WIDTH == 8
PKQ_UNSWIZZLE(pkq_unswizzle8, vf, vf_select)
#endif
#undef PKQ_UNSWIZZLE

/* Lane bits of the lanes of `drop` that dropped component k. */
static OROYA__INLINE uint32_t pkq_drop_lanes(uint16_t drop, uint32_t k) {
    return (uint32_t)drop >> (4 * k) & 15u;
}

/* The minima and steps of component e of a quantized (block, channel) at d (its qdata), 4
 * lanes (the header formats at oroya__pose_qblock in internal/pose.h). */
static OROYA__INLINE void pkq_range(const oroya__pose_qblock *qb, const float *d, int ch,
                                    uint32_t e, v4 *mn, v4 *st) {
    if (qb->kind == OROYA__Q_L32) {
        *mn = v4_set1(d[e]);
        *st = v4_set1(d[3 + e]);
        return;
    }
    if (ch != OROYA__CH_R) {
        *mn = v4_load(d + e * 4);
        *st = v4_load(d + 12 + e * 4);
        return;
    }
    const uint8_t *h = (const uint8_t *)d;
#if defined(OROYA__V4_SSE2)
    const __m128i z = _mm_setzero_si128();
    const __m128i m = _mm_loadl_epi64((const __m128i *)(const void *)(h + e * 8));
    const __m128i s = _mm_loadl_epi64((const __m128i *)(const void *)(h + 24 + e * 8));
    *mn = v4_sub(v4_mul(_mm_cvtepi32_ps(_mm_unpacklo_epi16(m, z)), v4_set1(1.0f / 32768.0f)),
                 v4_set1(1.0f));
    *st = _mm_castsi128_ps(_mm_unpacklo_epi16(z, s));
#else
    for (uint32_t l = 0; l < 4; l++) {
        uint16_t m, s;
        memcpy(&m, h + e * 8 + l * 2, 2);
        memcpy(&s, h + 24 + e * 8 + l * 2, 2);
        mn->f[l] = oroya__pose_qmin(m);
        st->f[l] = oroya__pose_bf16(s);
    }
#endif
}

/* The first key of a quantized (block, channel) at d (its qdata). */
static OROYA__INLINE const uint8_t *pkq_keys(const oroya__pose_qblock *qb, const float *d, int ch) {
    return (const uint8_t *)(d + oroya__pose_qkeys(qb->kind, ch));
}

/* One key of a quantized (block, channel) as SoA rows (rotations as x, y, z, w; vectors with a
 * zero fourth row): value = min + q * step, then w rebuilt and the dropped component put back. */
static OROYA__INLINE void pkq_key(const oroya__pose_qblock *qb, const float *d, const uint8_t *key,
                                  int ch, v4 v[4]) {
#if defined(OROYA__V4_SSE2)
    __m128i q[3];
    pkq_ints3(qb, key, q);
    for (uint32_t e = 0; e < 3; e++) {
        v4 mn, st;
        pkq_range(qb, d, ch, e, &mn, &st);
        v[e] = v4_add(mn, v4_mul(_mm_cvtepi32_ps(q[e]), st));
    }
#else
    for (uint32_t e = 0; e < 3; e++) {
        v4 mn, st;
        pkq_range(qb, d, ch, e, &mn, &st);
        v[e] = v4_add(mn, v4_mul(pkq_comp(qb, key, e), st));
    }
#endif
    v[3] = v4_zero();
    if (ch == OROYA__CH_R) {
        v[3] = pkq_w(v[0], v[1], v[2]);
        if (qb->drop != 0xF000) {
            v4 m[4];
            for (uint32_t k = 0; k < 4; k++) {
                m[k] = v4_loadu((const float *)pkq_lane_masks[pkq_drop_lanes(qb->drop, k)]);
            }
            pkq_unswizzle4(v, m);
        }
    }
}

/* Keys k and k + 1 of one (block, channel) at the current intervals, as SoA (rotations as
 * x, y, z, w; vectors with a zero fourth row); returns the interpolation factor. */
static OROYA__INLINE float pkq_block(const oroya_pose_clip *clip, uint32_t block, int ch,
                                     const oroya__pose_interval *iv, v4 v0[4], v4 v1[4]) {
    const oroya__pose_qblock *qb = oroya__pose_qb(clip, block * 3 + (uint32_t)ch);
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
    case OROYA__Q_8:
    case OROYA__Q_P32:
    case OROYA__Q_P24:
    case OROYA__Q_P16:
    case OROYA__Q_P40:
    case OROYA__Q_P48:
    case OROYA__Q_L32: {
        const oroya__pose_interval *g = &iv[qb->group];
        const uint8_t *r = pkq_keys(qb, d, ch) + (size_t)g->k * qb->key_bytes;
        pkq_key(qb, d, r, ch, v0);
        pkq_key(qb, d, r + qb->key_bytes, ch, v1);
        return g->a;
    }
    default: /* NONE: no lane animated (weight 0); finite values */
        for (uint32_t e = 0; e < 3; e++) {
            v0[e] = v1[e] = v4_zero();
        }
        return 0.0f;
    }
}

/* ---- the decoded-key cache (see OROYA__Q_NO_CACHE in internal/pose.h) ---- */

/* The first row of a layer's key cache (16-byte aligned, in the slack entry). */
static OROYA__INLINE float *pkq_cache_rows(const oroya_pose_clip *clip,
                                           const oroya__pose_interval *iv) {
    const uintptr_t p = (uintptr_t)iv + clip->qcache_at;
    return (float *)(uintptr_t)((p + 15) & ~(uintptr_t)15);
}

static OROYA__INLINE void pkq_store_key(const oroya__pose_qblock *qb, const float *d,
                                        const uint8_t *key, int ch, float *rows) {
    v4 v[4];
    pkq_key(qb, d, key, ch, v);
    v4_store(rows, v[0]), v4_store(rows + 4, v[1]), v4_store(rows + 8, v[2]);
    if (ch == OROYA__CH_R) {
        v4_store(rows + 12, v[3]);
    }
}

/* The window of cached keys w .. w + OROYA__Q_CACHE_KEYS - 1 for interval k of a group of
 * `count` keys: k is w .. w + OROYA__Q_CACHE_KEYS - 2 (a group of fewer keys: w = 0, and only
 * its keys). */
#define PKQ_MOVE (OROYA__Q_CACHE_KEYS - 1u) /* keys a window moves on */
static OROYA__INLINE uint32_t pkq_window(uint32_t k, uint32_t count) {
    return k + PKQ_MOVE < count           ? k
           : count >= OROYA__Q_CACHE_KEYS ? count - OROYA__Q_CACHE_KEYS
                                          : 0u;
}

/* Whether a group's cached window (tag t = w + 1, 0 = none) holds interval k. */
static OROYA__INLINE bool pkq_fresh(uint32_t t, uint32_t k) {
    return t != 0 && k + 1 - t <= PKQ_MOVE - 1u;
}

/* The cached keys w + from .. w + keys - 1 of one block at r0 (from = 1: the window moved
 * PKQ_MOVE keys on, and the rows of its last key before become key w's). */
static OROYA__INLINE void pkq_refresh_block(const oroya_pose_clip *clip,
                                            const oroya__pose_qblock *qblock, uint32_t w,
                                            uint32_t from, uint32_t keys, int ch, float *r0) {
    const uint32_t n = OROYA__Q_KEY_FLOATS;
    const oroya__pose_qblock copy = *qblock, *qb = &copy; /* not reloaded past the stores */
    const float *d = clip->qdata + qb->offset;
    const uint8_t *kp = pkq_keys(qb, d, ch);
    if (from) { /* PKQ_MOVE keys on */
        const float *r2 = r0 + PKQ_MOVE * n;
        v4_store(r0, v4_load(r2)), v4_store(r0 + 4, v4_load(r2 + 4));
        v4_store(r0 + 8, v4_load(r2 + 8));
        if (ch == OROYA__CH_R) {
            v4_store(r0 + 12, v4_load(r2 + 12));
        }
    }
#if defined(OROYA__V4_SSE2)
    /* The unpacking, the ranges and the unswizzle masks once for the keys (pkq_key's
     * operations on every lane, so the same bits). */
    const pkq_unpack u = pkq_unpack_setup(qb);
    v4 mn[3], st[3], m[4];
#pragma GCC unroll 3
    for (uint32_t e = 0; e < 3; e++) {
        pkq_range(qb, d, ch, e, &mn[e], &st[e]);
    }
    const bool unswizzle = ch == OROYA__CH_R && qb->drop != 0xF000;
    if (unswizzle) {
#pragma GCC unroll 4
        for (uint32_t k = 0; k < 4; k++) {
            m[k] = v4_loadu((const float *)pkq_lane_masks[pkq_drop_lanes(qb->drop, k)]);
        }
    }
    for (uint32_t j = from; j < keys; j++) {
        __m128i q[3];
        pkq_unpack_key(&u, kp + (size_t)(w + j) * qb->key_bytes, q);
        v4 v[4];
#pragma GCC unroll 3
        for (uint32_t e = 0; e < 3; e++) {
            v[e] = v4_add(mn[e], v4_mul(_mm_cvtepi32_ps(q[e]), st[e]));
        }
        float *r = r0 + j * n;
        if (ch == OROYA__CH_R) {
            v[3] = pkq_w(v[0], v[1], v[2]);
            if (unswizzle) {
                pkq_unswizzle4(v, m);
            }
            v4_store(r + 12, v[3]);
        }
        v4_store(r, v[0]), v4_store(r + 4, v[1]), v4_store(r + 8, v[2]);
    }
#else
    for (uint32_t j = from; j < keys; j++) {
        pkq_store_key(qb, d, kp + (size_t)(w + j) * qb->key_bytes, ch, r0 + j * n);
    }
#endif
}

#if OROYA__PK_WIDTH == 8
/* Bit 4c + l of a drop field in lane l (and l - 4) of row c. */
#define PKQ_DB(c)                                                                                  \
    {                                                                                              \
        1 << (4 * (c)), 2 << (4 * (c)), 4 << (4 * (c)), 8 << (4 * (c)), 1 << (4 * (c)),            \
            2 << (4 * (c)), 4 << (4 * (c)), 8 << (4 * (c))                                         \
    }
static _Alignas(32) const int32_t pkq_drop_bits[4][8] = {PKQ_DB(0), PKQ_DB(1), PKQ_DB(2),
                                                         PKQ_DB(3)};
#undef PKQ_DB

/* Two cached rotation blocks of one group at once (qa in lanes 0-3, qb in 4-7; neither L32):
 * the 16-bit range headers decoded once for both keys, the scaling, w and the unswizzle at
 * width 8. The same IEEE operations per lane as pkq_store_key, so the same bits. */
static OROYA__INLINE void pkq_store_rot2(const pkq_unpack *qa, const uint8_t *ka,
                                         const pkq_unpack *qb, const uint8_t *kb, const vf mn[3],
                                         const vf st[3], const vf *m, float *ra, float *rb) {
    __m128i ia[3], ib[3];
    pkq_unpack_key(qa, ka, ia);
    pkq_unpack_key(qb, kb, ib);
    vf v[4];
#pragma GCC unroll 3
    for (uint32_t e = 0; e < 3; e++) {
        const vf q =
            _mm256_cvtepi32_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(ia[e]), ib[e], 1));
        v[e] = vf_add(mn[e], vf_mul(q, st[e]));
    }
    const vf n = vf_add(vf_mul(v[0], v[0]), vf_add(vf_mul(v[1], v[1]), vf_mul(v[2], v[2])));
    v[3] = vf_sqrt(vf_max(vf_sub(vf_row(pk_one), n), vf_zero()));
    if (m) {
        pkq_unswizzle8(v, m);
    }
#pragma GCC unroll 4
    for (uint32_t e = 0; e < 4; e++) {
        _mm_store_ps(ra + e * 4, _mm256_castps256_ps128(v[e]));
        _mm_store_ps(rb + e * 4, _mm256_extractf128_ps(v[e], 1));
    }
}

static OROYA__INLINE void pkq_refresh_rot2(const oroya_pose_clip *clip,
                                           const oroya__pose_qblock *qa,
                                           const oroya__pose_qblock *qb, uint32_t w, uint32_t from,
                                           uint32_t keys, float *rows) {
    /* The unpacking set up once for the keys (not reloaded past each key's stores). */
    const pkq_unpack ua = pkq_unpack_setup(qa), ub = pkq_unpack_setup(qb);
    const float *da = clip->qdata + qa->offset, *db = clip->qdata + qb->offset;
    const uint8_t *ha = (const uint8_t *)da, *hb = (const uint8_t *)db;
    vf mn[3], st[3], m[4];
    /* pkq_range's rotation headers, 8 lanes: each block's 48 bytes (3 rows of 4 16-bit
     * minima, then 3 of steps) in three 16-byte loads, rows (e of a, e of b) by unpacking. */
    __m128i hr[6];
#pragma GCC unroll 3
    for (uint32_t r = 0; r < 3; r++) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(ha + 16 * r));
        const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(hb + 16 * r));
        hr[2 * r] = _mm_unpacklo_epi64(a, b);
        hr[2 * r + 1] = _mm_unpackhi_epi64(a, b);
    }
#pragma GCC unroll 3
    for (uint32_t e = 0; e < 3; e++) {
        const __m128i mi = hr[e], si = hr[3 + e];
        mn[e] = vf_sub(
            vf_mul(_mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(mi)), _mm256_set1_ps(1.0f / 32768.0f)),
            vf_row(pk_one));
        st[e] = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(si), 16));
    }
    const bool unswizzle = qa->drop != 0xF000 || qb->drop != 0xF000;
    if (unswizzle) { /* pkq_lane_masks' words, by a compare: lane l of m[c] is bit 4c + l */
        const __m256i d =
            _mm256_inserti128_si256(_mm256_set1_epi32(qa->drop), _mm_set1_epi32(qb->drop), 1);
#pragma GCC unroll 4
        for (uint32_t c = 0; c < 4; c++) {
            const __m256i bit = _mm256_load_si256((const __m256i *)(const void *)pkq_drop_bits[c]);
            m[c] = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(d, bit), bit));
        }
    }
    const uint8_t *keys_a = ha + oroya__pose_qkeys(qa->kind, OROYA__CH_R) * 4;
    const uint8_t *keys_b = hb + oroya__pose_qkeys(qb->kind, OROYA__CH_R) * 4;
    const size_t kba = qa->key_bytes, kbb = qb->key_bytes;
    float *a0 = rows + (size_t)qa->cache * 4, *b0 = rows + (size_t)qb->cache * 4;
    if (from) { /* PKQ_MOVE keys on: the last key's rows become key w's */
        const uint32_t last = PKQ_MOVE * OROYA__Q_KEY_FLOATS;
        for (uint32_t r = 0; r < 16; r += 8) {
            _mm256_storeu_ps(a0 + r, _mm256_loadu_ps(a0 + last + r));
            _mm256_storeu_ps(b0 + r, _mm256_loadu_ps(b0 + last + r));
        }
    }
    for (uint32_t j = from; j < keys; j++) {
        pkq_store_rot2(&ua, keys_a + (size_t)(w + j) * kba, &ub, keys_b + (size_t)(w + j) * kbb, mn,
                       st, unswizzle ? m : NULL, a0 + 16 * j, b0 + 16 * j);
    }
}
#endif

/* A group's refresh plan (pkq_refresh_stale, once per group): 0 when its window holds its
 * interval, else 1 | first << 1 | keys << 2 | w << 8 (w < OROYA_POSE_MAX_KEYS). */
static OROYA__INLINE uint32_t pkq_plan(const oroya_pose_clip *clip, const oroya__pose_interval *iv,
                                       const uint32_t *tags, uint32_t g) {
    const uint32_t k = iv[g].k, t = tags[g];
    if (pkq_fresh(t, k)) {
        return 0;
    }
    const uint32_t count = clip->groups[g].count, w = pkq_window(k, count);
    const uint32_t first = t != 0 && w == t - 1 + PKQ_MOVE ? 1u : 0u; /* moved on */
    const uint32_t keys = count < OROYA__Q_CACHE_KEYS ? count : OROYA__Q_CACHE_KEYS;
    return 1u | first << 1 | keys << 2 | w << 8;
}

/* Refreshes the cached entries [from, to) of qblocks, all of channel ch (T stands for S),
 * by their groups' plans. */
static OROYA__INLINE void pkq_refresh_range(const oroya_pose_clip *clip, const uint32_t *plans,
                                            float *rows, uint32_t from, uint32_t to, int ch) {
    for (uint32_t i = from; i < to; i++) {
        const oroya__pose_qblock *qb = &clip->qblocks[i];
        const uint32_t g = qb->group, p = plans[g];
        if (!p) {
            continue;
        }
        const uint32_t first = p >> 1 & 1u, keys = p >> 2 & 63u, w = p >> 8;
#if OROYA__PK_WIDTH == 8
        /* Rotations: two entries of one group at a time (the next one moved with this one). */
        if (ch == OROYA__CH_R && i + 1 < to && clip->qblocks[i + 1].group == g &&
            qb->kind != OROYA__Q_L32 && clip->qblocks[i + 1].kind != OROYA__Q_L32) {
            pkq_refresh_rot2(clip, qb, &clip->qblocks[i + 1], w, first, keys, rows);
            i++;
            continue;
        }
#endif
        pkq_refresh_block(clip, qb, w, first, keys, ch, rows + (size_t)qb->cache * 4);
    }
}

/* After the groups are sought: decodes the keys of the cached blocks whose group left its
 * window (its last key becomes key w when the window moved PKQ_MOVE keys on, so playback
 * decodes PKQ_MOVE keys per block every PKQ_MOVE key intervals). Tags and header: see
 * internal/pose.h. */
static void pkq_refresh_stale(const oroya_pose_clip *clip, oroya__pose_interval *iv) {
    const uint32_t groups = clip->group_count;
    uint32_t *head = (uint32_t *)(void *)(iv + groups);
    uint32_t *tags = (uint32_t *)(void *)(iv + groups + 1);
    if (head[0] != clip->qserial) {
        head[0] = clip->qserial;
        memset(tags, 0, groups * sizeof *tags);
    }
    float *rows = pkq_cache_rows(clip, iv);
    uint32_t *offsets = (uint32_t *)(void *)rows;
    /* Each group's plan first, in its offset's place (written below, after the decoding). */
    for (uint32_t g = 0; g < groups; g++) {
        offsets[g] = pkq_plan(clip, iv, tags, g);
    }
    /* The cached entries follow entry 0, rotations first: a constant channel in each loop,
     * for the inliner. */
    pkq_refresh_range(clip, offsets, rows, 1, 1 + clip->qcached_rot, OROYA__CH_R);
    pkq_refresh_range(clip, offsets, rows, 1 + clip->qcached_rot, 1 + clip->qcached_count,
                      OROYA__CH_T);
    for (uint32_t g = 0; g < groups; g++) {
        const uint32_t p = offsets[g];
        if (p) {
            tags[g] = (p >> 8) + 1;
        }
        offsets[g] = (iv[g].k + 1 - tags[g]) * OROYA__Q_KEY_FLOATS;
    }
}

/* The test, inline (a float clip, a frame inside every group's window: a few instructions,
 * no call): each group's key offset, and pkq_refresh_stale where a window must move. */
static OROYA__INLINE void pkq_refresh(const oroya_pose_clip *clip, oroya__pose_interval *iv) {
    if (!clip->qblocks || !clip->state_intervals) {
        return;
    }
    const uint32_t groups = clip->group_count;
    const uint32_t *head = (const uint32_t *)(const void *)(iv + groups);
    const uint32_t *tags = (const uint32_t *)(const void *)(iv + groups + 1);
    bool stale = head[0] != clip->qserial;
    uint32_t *offsets = (uint32_t *)(void *)pkq_cache_rows(clip, iv);
    for (uint32_t g = 1; g < groups && !stale; g++) {
        const uint32_t t = tags[g], k = iv[g].k;
        stale = !pkq_fresh(t, k);
        offsets[g] = (k + 1 - t) * OROYA__Q_KEY_FLOATS;
    }
    if (stale) {
        pkq_refresh_stale(clip, iv);
    }
}

/* A layer's state that starts following clip c (a new clip in a character slot): no cached
 * key is taken for c's. */
static OROYA__INLINE void pkq_reset(const oroya_pose_clip *c, oroya__pose_interval *iv) {
    if (c && c->qblocks && c->state_intervals) {
        memset(iv + c->group_count, 0, sizeof *iv);
    }
}

static _Alignas(16) const float pkq_identity[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};

/* The rows of keys k (*r0) and k + 1 (*r1) of one (block, channel) where they are stored
 * decoded (a constant, float keys, the layer's cache: key k is key w or w + 1 of the group's
 * window, at the group's offset in the cache's first rows) and the factor; false for a quantized block without a cache. The same
 * values pkq_block gives. */
static OROYA__INLINE bool pkq_rows(const oroya_pose_clip *clip, const oroya__pose_qblock *qb,
                                   int ch, const oroya__pose_interval *iv, const float *cache,
                                   const float **r0, const float **r1, float *a) {
    const uint32_t n = ch == OROYA__CH_R ? 16 : 12;
    if (qb->cache != OROYA__Q_NO_CACHE) { /* quantized, cached: the usual case */
        const uint32_t g = qb->group;
        *r0 = cache + (size_t)qb->cache * 4 + ((const uint32_t *)(const void *)cache)[g];
        *r1 = *r0 + OROYA__Q_KEY_FLOATS;
        *a = iv[g].a;
        return true;
    }
    switch (qb->kind) {
    case OROYA__Q_NONE:
        *r0 = *r1 = pkq_identity;
        *a = 0.0f;
        return true;
    case OROYA__Q_CONST:
        *r0 = *r1 = clip->qdata + qb->offset;
        *a = 0.0f;
        return true;
    case OROYA__Q_F32:
        *r0 = clip->qdata + qb->offset + (size_t)iv[qb->group].k * n;
        *r1 = *r0 + n;
        *a = iv[qb->group].a;
        return true;
    default: return false;
    }
}

/* Entry 0 (NONE) is exactly the (block, channel)s with no animated lane, so the index alone
 * tells (one load per block, not two). */
static OROYA__INLINE bool pkq_channel_any(const oroya_pose_clip *clip, uint32_t b, uint32_t b2,
                                          int ch) {
    return (clip->qindex[b * 3 + (uint32_t)ch] |
            (PK_BLOCKS == 2 ? clip->qindex[b2 * 3 + (uint32_t)ch] : 0)) != 0;
}

/* Between two decoded keys: slerp for rotations, lerp otherwise. */
static OROYA__INLINE void pkq_interpolate(int ch, const vf v0[4], const vf v1[4], vf a, vf out[4],
                                          bool exact) {
    if (ch == OROYA__CH_R) {
        q4 q0 = {v0[0], v0[1], v0[2], v0[3]}, q1 = {v1[0], v1[1], v1[2], v1[3]};
        q4 q = q4_slerp(&q0, &q1, a, exact);
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        return;
    }
    const vf w0 = vf_sub(vf_row(pk_one), a);
    for (int e = 0; e < 3; e++) {
        out[e] = madd(w0, v0[e], vf_mul(a, v1[e]));
    }
}

/* The ranges of component e of blocks qa and qb (width 8; width 4: qa alone). */
static OROYA__INLINE void pkq_range2(const oroya__pose_qblock *qa, const float *da,
                                     const oroya__pose_qblock *qb, const float *db, int ch,
                                     uint32_t e, vf *mn, vf *st) {
    v4 ma, sa;
    pkq_range(qa, da, ch, e, &ma, &sa);
#if OROYA__PK_WIDTH == 8
    v4 mb, sb;
    pkq_range(qb, db, ch, e, &mb, &sb);
    *mn = vf_halves(ma, mb);
    *st = vf_halves(sa, sb);
#else
    (void)qb, (void)db;
    *mn = ma;
    *st = sa;
#endif
}

/* Both blocks quantized (the usual case): the scaling and w at full width. The same
 * operations per lane as pkq_block, so either path gives the same bits. */
static OROYA__INLINE void pkq_sample_quantized(const oroya_pose_clip *clip,
                                               const oroya__pose_qblock *qa,
                                               const oroya__pose_qblock *qb, int ch,
                                               const oroya__pose_interval *iv, vf out[4],
                                               bool exact) {
    const float *da = clip->qdata + qa->offset, *db = clip->qdata + qb->offset;
    const oroya__pose_interval *ga = &iv[qa->group], *gb = &iv[qb->group];
    const size_t ka = qa->key_bytes, kb = qb->key_bytes;
    const uint8_t *ra = pkq_keys(qa, da, ch) + (size_t)ga->k * ka;
    const uint8_t *rb = pkq_keys(qb, db, ch) + (size_t)gb->k * kb;
    vf v0[4], v1[4];
#if defined(OROYA__V4_SSE2)
    /* The integers of both keys of each block, one kind switch per key. */
    __m128i ia0[3], ia1[3];
    pkq_ints3x2(qa, ra, ka, ia0, ia1);
#if OROYA__PK_WIDTH == 8
    __m128i ib0[3], ib1[3];
    pkq_ints3x2(qb, rb, kb, ib0, ib1);
#else
    (void)kb, (void)rb;
#endif
    for (uint32_t e = 0; e < 3; e++) {
        vf mn, st;
        pkq_range2(qa, da, qb, db, ch, e, &mn, &st);
#if OROYA__PK_WIDTH == 8
        const vf q0 =
            _mm256_cvtepi32_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(ia0[e]), ib0[e], 1));
        const vf q1 =
            _mm256_cvtepi32_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(ia1[e]), ib1[e], 1));
#else
        const vf q0 = _mm_cvtepi32_ps(ia0[e]), q1 = _mm_cvtepi32_ps(ia1[e]);
#endif
        v0[e] = vf_add(mn, vf_mul(q0, st));
        v1[e] = vf_add(mn, vf_mul(q1, st));
    }
#else
    for (uint32_t e = 0; e < 3; e++) {
        vf mn, st;
        pkq_range2(qa, da, qb, db, ch, e, &mn, &st);
        (void)kb, (void)rb;
        const vf q0 = pkq_comp(qa, ra, e), q1 = pkq_comp(qa, ra + ka, e);
        v0[e] = vf_add(mn, vf_mul(q0, st));
        v1[e] = vf_add(mn, vf_mul(q1, st));
    }
#endif
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
        if (qa->drop != 0xF000 || (PK_BLOCKS == 2 && qb->drop != 0xF000)) {
            vf m[4];
            for (uint32_t k = 0; k < 4; k++) {
                m[k] = vf_masks(pkq_lane_masks[pkq_drop_lanes(qa->drop, k)],
                                pkq_lane_masks[pkq_drop_lanes(qb->drop, k)]);
            }
#if OROYA__PK_WIDTH == 8
            pkq_unswizzle8(v0, m);
            pkq_unswizzle8(v1, m);
#else
            pkq_unswizzle4(v0, m);
            pkq_unswizzle4(v1, m);
#endif
        }
    }
    pkq_interpolate(ch, v0, v1, a, out, exact);
}

/* sample_channel for a compressed clip: every block is linear (slerp for rotations). Returns
 * the animated lanes (from the entries the sample looks up anyway). */
static OROYA__INLINE vf pkq_sample_channel(const oroya_pose_clip *clip, uint32_t b, uint32_t b2,
                                           int ch, const oroya__pose_interval *iv, vf out[4],
                                           bool exact) {
    const oroya__pose_qblock *ka = oroya__pose_qb(clip, b * 3 + (uint32_t)ch);
    const oroya__pose_qblock *kb = oroya__pose_qb(clip, b2 * 3 + (uint32_t)ch);
    const vf animated =
        vf_masks(pkq_lane_masks[ka->animated & 15], pkq_lane_masks[kb->animated & 15]);
    const float *cache = pkq_cache_rows(clip, iv);
    const float *a0, *a1, *b0, *b1;
    float fa, fb = 0.0f;
    if (pkq_rows(clip, ka, ch, iv, cache, &a0, &a1, &fa) &&
        (PK_BLOCKS == 1 || pkq_rows(clip, kb, ch, iv, cache, &b0, &b1, &fb))) {
        /* Decoded keys (the usual case once the cache holds them): rows loaded as they are,
         * as in a float clip. */
        if (PK_BLOCKS == 1) {
            b0 = a0, b1 = a1;
        }
        vf r0[4], r1[4];
        r0[0] = vf_load2(a0, b0), r0[1] = vf_load2(a0 + 4, b0 + 4);
        r0[2] = vf_load2(a0 + 8, b0 + 8);
        r1[0] = vf_load2(a1, b1), r1[1] = vf_load2(a1 + 4, b1 + 4);
        r1[2] = vf_load2(a1 + 8, b1 + 8);
        if (ch == OROYA__CH_R) {
            r0[3] = vf_load2(a0 + 12, b0 + 12);
            r1[3] = vf_load2(a1 + 12, b1 + 12);
        }
#if OROYA__PK_WIDTH == 8
        const vf f = vf_halves(v4_set1(fa), v4_set1(fb));
#else
        (void)fb;
        const vf f = v4_set1(fa);
#endif
        pkq_interpolate(ch, r0, r1, f, out, exact);
        return animated;
    }
    if (pkq_quantized(ka->kind) && (PK_BLOCKS == 1 || pkq_quantized(kb->kind))) {
        pkq_sample_quantized(clip, ka, kb, ch, iv, out, exact);
        return animated;
    }
    v4 p0[4], p1[4];
    fa = pkq_block(clip, b, ch, iv, p0, p1);
    vf v0[4], v1[4], a;
#if OROYA__PK_WIDTH == 8
    v4 n0[4], n1[4];
    fb = pkq_block(clip, b2, ch, iv, n0, n1);
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
    pkq_interpolate(ch, v0, v1, a, out, exact);
    return animated;
}

#endif
