/* Key compression of runtime clips: error-bounded key reduction and quantized keys, chosen
 * at load time under a model-space tolerance. See docs/compression.md for the design and
 * include/oroya/pose.h (oroya_pose_compress) for the contract; the kernel side is
 * internal/pose_kernel_q.h.
 *
 * Outline. Every bound channel is sampled on one time grid (the union of the key times; when
 * a track is a cubic spline, each interval cut into the linear steps its curve needs,
 * pc_steps). Each (SoA block of 4 joints, channel)
 * then gets a storage kind (constant, 8- or 16-bit quantized with per-lane ranges, or float)
 * and a subset of the grid as its keys, by top-down Ramer-Douglas-Peucker insertion, so that
 * every lane stays within a per-joint channel budget. Budgets come from the tolerance: a
 * joint's share is the smallest tolerance of the points it moves (itself, its descendants,
 * their virtual vertices) divided by their depth, an angle budget divides it by the joint's
 * reach (the longest rest chain below it plus the virtual vertex distance). That split is
 * safe to first order; the clip is then measured for real, in model space, at every grid
 * time (and 0 and the duration) and inside each span between them at 120 Hz (at least 3 and
 * at most 32 points, see pc_measure) and, for a cubic source, at the grid spans' quarter
 * points, through the kernel, against the source sampled in double. The budgets are
 * scaled by a factor f searched geometrically: the largest f whose measured error meets the
 * tolerance wins; when none does the clip stays in float storage. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal/base.h"
#include "internal/pose.h"
#include "internal/track.h"

#define PC_DEFAULT_VERTEX_DISTANCE 0.1
#define PC_MEASURE_RATE 120.0
#define PC_REFINE_TRIALS 160 /* builds spent on per-block budget factors */
/* The measure's work (joint poses: time samples times joints) the search may spend once a
 * candidate meets the bound: the factor search's later steps and the per-block refinement
 * stop there, keeping the best candidate so far (it meets the bound; it may be larger than
 * an unbounded search would make). The benchmark character's clips stay under it (its
 * costliest, walk_cubic, is over half of it: at 5e6 it came out 272 bytes larger); a 62 KB
 * glTF of 400 chained joints with 300 keys each kept `oroya info` busy for 166 s (12 s with
 * the budget). */
#define PC_WORK_BUDGET 10000000.0

/* ---- double transforms (3x4, column-major: columns 0-2 linear, 3 translation) ----------- */

static void pc_compose(const double t[3], const double q[4], const double s[3], double m[12]) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double x2 = x + x, y2 = y + y, z2 = z + z;
    const double xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
    const double wx = w * x2, wy = w * y2, wz = w * z2;
    m[0] = (1 - (yy + zz)) * s[0], m[1] = (xy + wz) * s[0], m[2] = (xz - wy) * s[0];
    m[3] = (xy - wz) * s[1], m[4] = (1 - (xx + zz)) * s[1], m[5] = (yz + wx) * s[1];
    m[6] = (xz + wy) * s[2], m[7] = (yz - wx) * s[2], m[8] = (1 - (xx + yy)) * s[2];
    m[9] = t[0], m[10] = t[1], m[11] = t[2];
}

static void pc_mul(const double a[12], const double b[12], double o[12]) {
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 3; r++) {
            o[c * 3 + r] = a[r] * b[c * 3] + a[3 + r] * b[c * 3 + 1] + a[6 + r] * b[c * 3 + 2] +
                           (c == 3 ? a[9 + r] : 0);
        }
    }
}

/* ---- the compression context ------------------------------------------------------------- */

typedef struct pc_ctx {
    const oroya_allocator *alloc;
    const oroya_pose_skeleton *skel;
    const oroya_clip *clip;
    bool additive;
    uint32_t joints, blocks;
    uint32_t *map;  /* blocks * 12, index (block * 3 + ch) * 4 + lane: track or UINT32_MAX */
    uint32_t *slot; /* the same index: row of vals, or UINT32_MAX */
    uint8_t *drop;  /* per row of vals: the rotation component rebuilt (pc_swizzle) */
    uint32_t n;     /* grid times */
    float *times;   /* n */
    float *vals;    /* slots * n * 4: runtime values (deltas for additive clips), unit
                           rotations with w >= 0 */
    double *reach;  /* joints */
    double *budget; /* joints: a channel's model-space distance budget at f = 1 */
    double *jtol;   /* joints: the tolerance of the joint's points */
    double vd;      /* virtual vertex distance */
    bool cubic;     /* a bound track is a cubic spline: the grid is resampled (pc_steps) */
} pc_ctx;

static uint32_t comps_of(int ch) { return ch == OROYA__CH_R ? 4 : 3; }

static void rest_of(const oroya_pose_skeleton *s, uint32_t joint, int ch, float v[4]) {
    const oroya_soa_transform *b = &s->rest[joint / 4];
    const uint32_t l = joint % 4;
    if (ch == OROYA__CH_T) {
        v[0] = b->tx[l], v[1] = b->ty[l], v[2] = b->tz[l], v[3] = 0;
    } else if (ch == OROYA__CH_R) {
        v[0] = b->qx[l], v[1] = b->qy[l], v[2] = b->qz[l], v[3] = b->qw[l];
    } else {
        v[0] = b->sx[l], v[1] = b->sy[l], v[2] = b->sz[l], v[3] = 0;
    }
}

/* The value a lane that no track animates holds (its weight is 0; it only has to be finite). */
static void constant_of(const pc_ctx *x, uint32_t joint, int ch, float v[4]) {
    if (x->additive || joint >= x->joints) {
        v[0] = v[1] = v[2] = 0;
        v[3] = ch == OROYA__CH_R ? 1.0f : 0.0f;
        return;
    }
    rest_of(x->skel, joint, ch, v);
}

static int cmp_float(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static void pc_free(pc_ctx *x) {
    void *p[] = {x->map, x->slot, x->drop, x->times, x->vals, x->reach, x->budget, x->jtol};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        oroya__free(x->alloc, p[i]);
    }
}

/* Rotations are stored as three components, the fourth rebuilt as sqrt(1 - the others^2)
 * with its sign made positive. That fourth is w unless w comes near 0 on the track (a leg
 * turned half a turn), where it is rebuilt badly: each track drops the component whose
 * smallest magnitude over the track is largest, and its samples are stored in the order
 * (the other three in x, y, z order, the dropped one), signed so the dropped one is >= 0.
 * Distances and slerps do not change under the same permutation of both operands, so the
 * encoder works on the permuted values; the kernel puts them back. Returns the dropped
 * component (3 = w). */
static uint8_t pc_swizzle(float *row, size_t n) {
    float best = -1;
    uint8_t k = 3;
    for (uint8_t c = 4; c-- > 0;) {
        float m = INFINITY;
        for (size_t i = 0; i < n; i++) {
            m = fminf(m, fabsf(row[i * 4 + c]));
        }
        if (m > best + 1e-3f) { /* w unless another is clearly better */
            best = m;
            k = c;
        }
    }
    for (size_t i = 0; i < n; i++) {
        float *v = row + i * 4, o[4];
        for (int e = 0, j = 0; e < 4; e++) {
            if (e != k) {
                o[j++] = v[e];
            }
        }
        o[3] = v[k];
        const float sg = o[3] < 0 ? -1.0f : 1.0f;
        for (int e = 0; e < 4; e++) {
            v[e] = o[e] * sg;
        }
    }
    return k;
}

/* x, y, z, w from a value stored with component k dropped (see pc_swizzle). */
static void pc_unswizzle(uint8_t k, const float *in, float *out) {
    for (int e = 0, j = 0; e < 4; e++) {
        out[e] = e == k ? in[3] : in[j++];
    }
}

/* Binds tracks, builds the grid and samples every bound channel on it. *usable is false when
 * the clip cannot be compressed (a STEP track, more grid times than a runtime track holds,
 * or more bound (block, channel)s than OROYA__Q_MAX_ENTRIES - 1): it then stays in float
 * storage. */
static oroya_result pc_budgets(pc_ctx *x, const oroya_pose_compress *cp, oroya_error *err);

/* The linear steps a key interval [t0, t1] of the grid is cut into when a bound track is a
 * cubic spline: the fewest (4, 8, ... PC_MAX_STEPS) whose linear interpolation between
 * consecutive steps stays, at the quarter points of every step and for every cubic track,
 * within the channel's budget at factor 1 (pc_budgets; the factor search then leaves the
 * reduction what the measure allows). The compressed clip is linear between grid times; the
 * measure (pc_measure) checks between them too. A tenth of the budget made the benchmark's
 * walk_cubic 5 % smaller at 0.1 mm for six times the time. */
#define PC_MIN_STEPS 4
#define PC_MAX_STEPS 64
#define PC_RESAMPLE_SHARE 1.0
static float pc_step_time(float t0, float t1, uint32_t k, uint32_t steps) {
    return t0 + (t1 - t0) * ((float)k / (float)steps);
}

static void pc_sample_unit(const oroya_track *tr, int ch, float t, uint32_t *cursor, double v[4]) {
    v[0] = v[1] = v[2] = v[3] = 0;
    oroya_track_sample_f64(tr, t, cursor, NULL, v);
    if (ch == OROYA__CH_R) {
        const double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
        for (int e = 0; e < 4; e++) {
            v[e] = len > 0 ? v[e] / len : e == 3;
        }
    }
}

static double pc_dist(int ch, const double *a, const float *b);

static uint32_t pc_steps(const pc_ctx *x, float t0, float t1) {
    uint32_t steps = PC_MIN_STEPS;
    for (uint32_t i = 0; i < x->blocks * 12u && steps < PC_MAX_STEPS; i++) {
        if (x->map[i] == UINT32_MAX) {
            continue;
        }
        const oroya_track *tr = &x->clip->tracks[x->map[i]];
        if (tr->interpolation != OROYA_INTERP_CUBICSPLINE || tr->key_count < 2) {
            continue;
        }
        const int ch = (int)((i / 4) % 3);
        const uint32_t j = (uint32_t)(i / 12 * 4 + i % 4);
        const double tol =
            PC_RESAMPLE_SHARE * x->budget[j] / (ch == OROYA__CH_T ? 1.0 : x->reach[j]);
        uint32_t cursor = 0;
        bool within = false;
        while (!within && steps < PC_MAX_STEPS) {
            within = true;
            double a[4], b[4];
            pc_sample_unit(tr, ch, t0, &cursor, a);
            for (uint32_t k = 0; k < steps && within; k++) {
                const float ta = pc_step_time(t0, t1, k, steps);
                const float tb = k + 1 < steps ? pc_step_time(t0, t1, k + 1, steps) : t1;
                pc_sample_unit(tr, ch, tb, &cursor, b);
                for (int q = 1; q < 4 && within; q++) {
                    const double f = q * 0.25;
                    double m[4], v[4];
                    pc_sample_unit(tr, ch, (float)(ta + (tb - (double)ta) * f), &cursor, m);
                    if (ch == OROYA__CH_R) {
                        oroya__slerp_flat_d(a, b, f, v);
                    } else {
                        for (int e = 0; e < 3; e++) {
                            v[e] = a[e] + (b[e] - a[e]) * f;
                        }
                    }
                    const float mf[4] = {(float)m[0], (float)m[1], (float)m[2], (float)m[3]};
                    /* Not finite (a spline that overflows): the measure decides. */
                    within = !(pc_dist(ch, v, mf) > tol);
                }
                memcpy(a, b, sizeof a);
            }
            if (!within) {
                steps *= 2;
            }
        }
    }
    return steps;
}

static oroya_result pc_init(pc_ctx *x, const oroya_pose_clip_desc *desc, bool *usable,
                            oroya_error *err) {
    const oroya_pose_skeleton *skel = desc->skeleton;
    const oroya_clip *clip = desc->clip;
    memset(x, 0, sizeof *x);
    x->alloc = &desc->allocator;
    x->skel = skel;
    x->clip = clip;
    x->additive = desc->additive || clip->blend_mode == OROYA_BLEND_ADDITIVE;
    x->joints = skel->joint_count;
    x->blocks = skel->block_count;
    x->vd = desc->compress->vertex_distance > 0 ? desc->compress->vertex_distance
                                                : PC_DEFAULT_VERTEX_DISTANCE;
    *usable = true;
    const size_t channels = (size_t)x->blocks * 12;
    x->map = oroya__alloc(x->alloc, channels * sizeof(uint32_t), 16);
    x->slot = oroya__alloc(x->alloc, channels * sizeof(uint32_t), 16);
    x->reach = oroya__alloc(x->alloc, x->joints * sizeof(double), 16);
    x->budget = oroya__alloc(x->alloc, x->joints * sizeof(double), 16);
    x->jtol = oroya__alloc(x->alloc, x->joints * sizeof(double), 16);
    if (!x->map || !x->slot || !x->reach || !x->budget || !x->jtol) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
    }
    for (size_t i = 0; i < channels; i++) {
        x->map[i] = x->slot[i] = UINT32_MAX;
    }
    /* The float clip was built first, so the tracks are valid and bind at most once each. */
    size_t total_times = 0;
    bool cubic = false;
    uint32_t slots = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *tr = &clip->tracks[i];
        const int ch = oroya__pose_channel_of(tr->property);
        const uint32_t joint =
            desc->track_joints ? desc->track_joints[i] : oroya_pose_skeleton_find(skel, tr->target);
        if (ch < 0 || joint == UINT32_MAX) {
            continue;
        }
        if (tr->interpolation == OROYA_INTERP_STEP && tr->key_count > 1) {
            *usable = false;
        }
        cubic = cubic || (tr->interpolation == OROYA_INTERP_CUBICSPLINE && tr->key_count > 1);
        const uint32_t idx = ((joint / 4) * 3 + (uint32_t)ch) * 4 + joint % 4;
        x->map[idx] = i;
        x->slot[idx] = slots++;
        total_times += tr->key_count;
    }
    /* More bound (block, channel)s than an 8-bit table index reaches: float storage. */
    uint32_t bound = 0;
    for (size_t bc = 0; bc < channels / 4; bc++) {
        bool any = false;
        for (size_t l = 0; l < 4; l++) {
            any = any || x->map[bc * 4 + l] != UINT32_MAX;
        }
        bound += any;
    }
    if (bound + 1 > OROYA__Q_MAX_ENTRIES) {
        *usable = false;
    }
    x->cubic = cubic;
    /* The budgets: the measure needs them, and so does a cubic source's resampling. */
    oroya_result res = pc_budgets(x, desc->compress, err);
    if (res != OROYA_OK || !*usable) {
        return res;
    }
    x->times = oroya__alloc(x->alloc, (total_times + 1) * sizeof(float), 16);
    x->drop = oroya__calloc(x->alloc, slots + 1, 1, 16);
    if (!x->times || !x->drop) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
    }
    size_t n = 0;
    for (size_t i = 0; i < channels; i++) {
        if (x->map[i] != UINT32_MAX) {
            const oroya_track *tr = &clip->tracks[x->map[i]];
            memcpy(x->times + n, tr->times, tr->key_count * sizeof(float));
            n += tr->key_count;
        }
    }
    if (n == 0) {
        x->times[n++] = 0;
    }
    qsort(x->times, n, sizeof(float), cmp_float);
    size_t u = 1;
    for (size_t i = 1; i < n; i++) {
        if (x->times[i] != x->times[u - 1]) {
            x->times[u++] = x->times[i];
        }
    }
    n = u;
    if (cubic && n > 1) {
        /* Each key interval in linear steps that follow the spline (pc_steps); the measure
         * checks between them. More grid times than a clip holds: float storage. */
        uint32_t *steps = oroya__alloc(x->alloc, n * sizeof(uint32_t), 16);
        if (!steps) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
        }
        size_t dense = 1;
        for (size_t i = 0; i + 1 < n && dense <= OROYA_POSE_MAX_KEYS; i++) {
            steps[i] = pc_steps(x, x->times[i], x->times[i + 1]);
            dense += steps[i]; /* past the limit: stop, float storage below */
        }
        float *t =
            dense <= OROYA_POSE_MAX_KEYS ? oroya__alloc(x->alloc, dense * sizeof(float), 16) : NULL;
        if (!t) {
            oroya__free(x->alloc, steps);
            if (dense <= OROYA_POSE_MAX_KEYS) {
                return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
            }
            *usable = false;
            return OROYA_OK;
        }
        size_t o = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            for (uint32_t k = 0; k < steps[i]; k++) {
                t[o++] = pc_step_time(x->times[i], x->times[i + 1], k, steps[i]);
            }
        }
        t[o++] = x->times[n - 1];
        oroya__free(x->alloc, steps);
        oroya__free(x->alloc, x->times);
        x->times = t;
        n = o;
    }
    if (n > OROYA_POSE_MAX_KEYS) {
        *usable = false;
        return OROYA_OK;
    }
    x->n = (uint32_t)n;
    const size_t vbytes = oroya__mul_size(oroya__mul_size(slots ? slots : 1, n), 4 * sizeof(float));
    x->vals = vbytes == SIZE_MAX ? NULL : oroya__alloc(x->alloc, vbytes, 16);
    if (!x->vals) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                           "oroya_pose_clip_create: %zu bytes of "
                           "samples",
                           vbytes);
    }
    for (size_t i = 0; i < channels; i++) {
        if (x->map[i] == UINT32_MAX) {
            continue;
        }
        const oroya_track *tr = &clip->tracks[x->map[i]];
        const int ch = (int)((i / 4) % 3);
        const uint32_t joint = (uint32_t)(i / 12 * 4 + i % 4);
        float ref[4];
        rest_of(skel, joint, ch, ref);
        float *row = x->vals + (size_t)x->slot[i] * n * 4;
        uint32_t cursor = 0;
        for (size_t k = 0; k < n; k++) {
            double d[4] = {0, 0, 0, 0};
            oroya_track_sample_f64(tr, x->times[k], &cursor, NULL, d);
            float *v = row + k * 4;
            if (ch == OROYA__CH_R) {
                const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
                for (int e = 0; e < 4; e++) {
                    v[e] = len > 0 ? (float)(d[e] / len) : (e == 3 ? 1.0f : 0.0f);
                }
                if (x->additive) {
                    oroya__pose_quat_delta(ref, v);
                }
            } else {
                for (int e = 0; e < 3; e++) {
                    v[e] = (float)d[e] - (x->additive ? ref[e] : 0.0f);
                }
                v[3] = 0;
            }
        }
        if (ch == OROYA__CH_R) {
            x->drop[x->slot[i]] = pc_swizzle(row, n);
        }
    }
    return OROYA_OK;
}

/* Reach, depth and the per-joint budgets (at f = 1). */
static oroya_result pc_budgets(pc_ctx *x, const oroya_pose_compress *cp, oroya_error *err) {
    const uint32_t nj = x->joints;
    double *models = oroya__alloc(x->alloc, (size_t)nj * 12 * sizeof(double), 16);
    uint32_t *depth = oroya__alloc(x->alloc, (size_t)nj * sizeof(uint32_t), 16);
    if (!models || !depth) {
        oroya__free(x->alloc, models);
        oroya__free(x->alloc, depth);
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
    }
    for (uint32_t j = 0; j < nj; j++) {
        float t[4], q[4], s[4];
        rest_of(x->skel, j, OROYA__CH_T, t);
        rest_of(x->skel, j, OROYA__CH_R, q);
        rest_of(x->skel, j, OROYA__CH_S, s);
        const double td[3] = {t[0], t[1], t[2]}, qd[4] = {q[0], q[1], q[2], q[3]},
                     sd[3] = {s[0], s[1], s[2]};
        double local[12];
        pc_compose(td, qd, sd, local);
        const uint32_t p = x->skel->parents[j];
        if (p == UINT32_MAX) {
            memcpy(models + j * 12, local, sizeof local);
            depth[j] = 1;
        } else {
            pc_mul(models + p * 12, local, models + (size_t)j * 12);
            depth[j] = depth[p] + 1;
        }
        x->reach[j] = x->vd;
        x->jtol[j] = cp->joint_tolerance ? cp->joint_tolerance[j] : cp->tolerance;
        x->budget[j] = x->jtol[j] / depth[j];
    }
    for (uint32_t j = nj; j-- > 0;) {
        const uint32_t p = x->skel->parents[j];
        if (p == UINT32_MAX) {
            continue;
        }
        const double *a = models + (size_t)p * 12 + 9, *b = models + (size_t)j * 12 + 9;
        const double seg = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                                (a[2] - b[2]) * (a[2] - b[2]));
        x->reach[p] = fmax(x->reach[p], seg + x->reach[j]);
        x->budget[p] = fmin(x->budget[p], x->budget[j]);
    }
    for (uint32_t j = 0; j < nj; j++) {
        uint32_t channels = 0;
        for (int ch = 0; ch < 3; ch++) {
            channels += x->map[((j / 4) * 3 + (uint32_t)ch) * 4 + j % 4] != UINT32_MAX;
        }
        x->budget[j] /= channels ? channels : 1;
    }
    oroya__free(x->alloc, models);
    oroya__free(x->alloc, depth);
    return OROYA_OK;
}

/* ---- one (block, channel) ------------------------------------------------------------------- */

/* What the encoder chose for one (block, channel). */
typedef struct pc_block {
    uint8_t kind, animated;
    uint32_t count;              /* keys (grid indices in keep) */
    uint32_t *keep;              /* n entries of scratch */
    uint8_t bits[3];             /* quantized kinds: bits of x, y and z */
    float mn[3][4], st[3][4];    /* as the kernel decodes them */
    uint16_t mq[3][4], sq[3][4]; /* quantized rotations: their stored codes */
    float cst[4][4];             /* CONST: the value per lane, [lane][comp] */
    size_t floats;               /* qdata size, a multiple of 4 */
    uint32_t group;
    double gain; /* this block's budget factor, times the clip's */
    bool cached; /* pc_build: in the layer's decoded-key cache */
} pc_block;

/* Scratch of the encoder: per lane, n decoded values and the keep flags. */
typedef struct pc_scratch {
    float *dec;      /* 4 lanes * n * 4 */
    uint8_t *flag;   /* n */
    uint32_t *stack; /* 2 * n */
} pc_scratch;

/* Error of value a against the source value b, in channel units (an angle for rotations). */
static double pc_dist(int ch, const double *a, const float *b) {
    if (ch == OROYA__CH_R) {
        const double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
        const double s = dot < 0 ? -1 : 1;
        double d2 = 0;
        for (int e = 0; e < 4; e++) {
            const double d = a[e] * s - b[e];
            d2 += d * d;
        }
        const double h = sqrt(d2) * 0.5;
        return 4 * asin(h < 1 ? h : 1);
    }
    double d2 = 0;
    for (int e = 0; e < 3; e++) {
        const double d = a[e] - b[e];
        d2 += d * d;
    }
    return sqrt(d2);
}

static const float *pc_row(const pc_ctx *x, uint32_t b, int ch, uint32_t lane) {
    const uint32_t s = x->slot[(b * 3 + (uint32_t)ch) * 4 + lane];
    return s == UINT32_MAX ? NULL : x->vals + (size_t)s * x->n * 4;
}

/* A sample of an animated lane as x, y, z(, w): rotations undo pc_swizzle. */
static void pc_value(const pc_ctx *x, uint32_t b, int ch, uint32_t lane, const float *in,
                     float *out) {
    if (ch != OROYA__CH_R) {
        memcpy(out, in, 4 * sizeof(float));
        return;
    }
    pc_unswizzle(x->drop[x->slot[(b * 3 + (uint32_t)ch) * 4 + lane]], in, out);
}

/* Decodes the quantized value of v (kind Q16/Q8 of lane l) as the kernel does. */
static void pc_quantize(const pc_block *pb, int ch, uint32_t l, const float *v, float *out,
                        uint32_t *q) {
    for (int e = 0; e < 3; e++) {
        const float maxq = (float)((1u << pb->bits[e]) - 1u);
        const float mn = pb->mn[e][l], st = pb->st[e][l];
        float k = st > 0 ? floorf((v[e] - mn) / st + 0.5f) : 0.0f;
        k = k < 0 ? 0 : k > maxq ? maxq : k;
        if (q) {
            q[e] = (uint32_t)k;
        }
        out[e] = mn + k * st;
    }
    if (ch == OROYA__CH_R) {
        const float n = out[0] * out[0] + (out[1] * out[1] + out[2] * out[2]);
        out[3] = sqrtf(1.0f - n > 0 ? 1.0f - n : 0.0f);
    } else {
        out[3] = 0;
    }
}

static double pc_dot4(const float *a, const float *b) {
    return (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
}

/* The kernel takes the shorter arc between two decoded rotation keys (the sign of their dot
 * product, in float); the source the shorter arc between its own samples. Two quantized keys
 * must keep the source's choice, with this margin on the dot product (float's rounding of it
 * is a few 1e-7). */
#define PC_ARC_MARGIN 1e-6

/* Top-down key insertion over the decoded values: keeps the first and last key, then splits
 * every span at its worst sample until each sample is within its lane's tolerance. With
 * `arcs` (quantized rotations), also until the decoded keys of each span take the source's
 * arc: the sign of their dot product must be the one of the source path's chord (the
 * samples signed so consecutive ones have positive dot products), by PC_ARC_MARGIN. Returns
 * false when a kept key itself is off (the quantization alone breaks the bound), or, with
 * `arcs`, when two consecutive samples are too near a half turn apart for their sign to be
 * kept (|dot| below the margin) or quantized onto the other arc. */
static bool pc_reduce(const pc_ctx *x, pc_block *pb, int ch, uint32_t b, const double tol[4],
                      bool arcs, pc_scratch *s) {
    const uint32_t n = x->n;
    const float *src[4];
    for (uint32_t l = 0; l < 4; l++) {
        src[l] = pb->animated >> l & 1 ? pc_row(x, b, ch, l) : NULL;
    }
    arcs = arcs && ch == OROYA__CH_R;
    for (uint32_t l = 0; arcs && l < 4; l++) {
        for (uint32_t i = 0; src[l] && i + 1 < n; i++) {
            if (!(fabs(pc_dot4(src[l] + (size_t)i * 4, src[l] + (size_t)(i + 1) * 4)) >=
                  PC_ARC_MARGIN)) {
                return false;
            }
        }
    }
    /* Quantization error of every sample (a kept key carries its own). */
    for (uint32_t l = 0; l < 4; l++) {
        if (!src[l]) {
            continue;
        }
        for (uint32_t i = 0; i < n; i++) {
            const float *d = s->dec + ((size_t)l * n + i) * 4;
            const double dd[4] = {d[0], d[1], d[2], d[3]};
            if (pc_dist(ch, dd, src[l] + (size_t)i * 4) > tol[l]) {
                return false;
            }
        }
    }
    memset(s->flag, 0, n);
    s->flag[0] = s->flag[n - 1] = 1;
    uint32_t top = 0;
    s->stack[top++] = 0;
    s->stack[top++] = n - 1;
    while (top) {
        const uint32_t k1 = s->stack[--top], k0 = s->stack[--top];
        if (k1 <= k0 || (k1 == k0 + 1 && !arcs)) {
            continue;
        }
        double worst = 1.0;
        uint32_t at = UINT32_MAX;
        const double t0 = x->times[k0], span = (double)x->times[k1] - t0;
        for (uint32_t i = k0 + 1; i < k1; i++) {
            const double a = ((double)x->times[i] - t0) / span;
            for (uint32_t l = 0; l < 4; l++) {
                if (!src[l]) {
                    continue;
                }
                const float *p = s->dec + ((size_t)l * n + k0) * 4;
                const float *q = s->dec + ((size_t)l * n + k1) * 4;
                double v[4];
                if (ch == OROYA__CH_R) {
                    const double pa[4] = {p[0], p[1], p[2], p[3]}, qa[4] = {q[0], q[1], q[2], q[3]};
                    oroya__slerp_flat_d(pa, qa, a, v);
                } else {
                    for (int e = 0; e < 3; e++) {
                        v[e] = p[e] + (q[e] - (double)p[e]) * a;
                    }
                    v[3] = 0;
                }
                const double r = pc_dist(ch, v, src[l] + (size_t)i * 4) / tol[l];
                if (r > worst) {
                    worst = r;
                    at = i;
                }
            }
        }
        for (uint32_t l = 0; arcs && at == UINT32_MAX && l < 4; l++) {
            if (!src[l]) {
                continue;
            }
            /* The source path's sign from k0 to k1, and the decoded keys' arc against it. */
            double sg = 1;
            for (uint32_t i = k0; i < k1; i++) {
                sg = pc_dot4(src[l] + (size_t)i * 4, src[l] + (size_t)(i + 1) * 4) < 0 ? -sg : sg;
            }
            const float *p = s->dec + ((size_t)l * n + k0) * 4;
            const float *q = s->dec + ((size_t)l * n + k1) * 4;
            if (!(sg * pc_dot4(p, q) >= PC_ARC_MARGIN) ||
                !(sg * pc_dot4(src[l] + (size_t)k0 * 4, src[l] + (size_t)k1 * 4) >=
                  PC_ARC_MARGIN)) {
                if (k1 == k0 + 1) {
                    return false;
                }
                at = k0 + (k1 - k0) / 2;
            }
        }
        if (at != UINT32_MAX) {
            s->flag[at] = 1;
            s->stack[top++] = k0;
            s->stack[top++] = at;
            s->stack[top++] = at;
            s->stack[top++] = k1;
        }
    }
    pb->count = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (s->flag[i]) {
            pb->keep[pb->count++] = i;
        }
    }
    return true;
}

/* Blocks whose qdata is read with unaligned loads only: packed at 4 bytes, after the others
 * (which start at 16-byte aligned offsets). */
static bool pc_packed_at_4(uint8_t kind, int ch) {
    return kind == OROYA__Q_L32 || (ch == OROYA__CH_R && kind >= OROYA__Q_16);
}

static size_t pc_kind_floats(uint8_t kind, int ch, uint32_t count) {
    const size_t comps = comps_of(ch);
    if (kind == OROYA__Q_NONE) {
        return 0;
    }
    if (kind == OROYA__Q_CONST || kind == OROYA__Q_F32) {
        return (kind == OROYA__Q_CONST ? 1 : (size_t)count) * comps * 4;
    }
    const size_t f =
        oroya__pose_qkeys(kind, ch) + ((size_t)count * oroya__pose_key_bytes(kind) + 3) / 4;
    return pc_packed_at_4(kind, ch) ? f : (f + 3) & ~(size_t)3;
}

/* The smallest bfloat16 (a float's high 16 bits) at or above v >= 0 (finite). */
static uint16_t pc_bf16_up(float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    const uint32_t hi = u >> 16;
    return (uint16_t)((u & 0xFFFFu) ? hi + 1 : hi);
}

/* The range of component e of lane l of a quantized block pb of kind `kind` covering
 * [lo, hi] with bits[e] bits: min and step as the kernel decodes them (rotations: a 16-bit
 * minimum in [-1, 1) rounded down and a bfloat16 step rounded up, so the decoded grid still
 * reaches hi). */
static void pc_range(pc_block *pb, uint8_t kind, int ch, uint32_t e, uint32_t l, float lo,
                     float hi) {
    const float maxq = (float)((1u << pb->bits[e]) - 1u);
    if (ch != OROYA__CH_R || kind == OROYA__Q_L32 || kind == OROYA__Q_F32) {
        pb->mn[e][l] = lo;
        pb->st[e][l] = maxq > 0 ? (hi - lo) / maxq : 0.0f;
        return;
    }
    double m = floor(((double)lo + 1.0) * 32768.0);
    m = m < 0 ? 0 : m > 65535 ? 65535 : m;
    uint16_t mq = (uint16_t)m;
    while (mq > 0 && oroya__pose_qmin(mq) > lo) {
        mq--;
    }
    const float mn = oroya__pose_qmin(mq);
    uint16_t sq = 0;
    if (maxq > 0 && hi > mn) {
        sq = pc_bf16_up((hi - mn) / maxq);
        while (mn + maxq * oroya__pose_bf16(sq) < hi && sq < 0x7F7F) {
            sq++;
        }
    }
    pb->mq[e][l] = mq;
    pb->sq[e][l] = sq;
    pb->mn[e][l] = mn;
    pb->st[e][l] = oroya__pose_bf16(sq);
}

/* Bits per component of a quantized kind. Q8 and Q16 are fixed; the packed kinds share a
 * 16- or 32-bit word per lane among x, y and z: each component first gets what its widest
 * lane needs for the tolerance to first order (a component error d moves a rotation by about
 * 2 sqrt(3) d at most, a vector by sqrt(3) d), the word's remaining bits then go round-robin
 * to the components that vary. False when the word is too small. F32: zeros. */
static bool pc_bits(uint8_t kind, int ch, float lo[4][3], float hi[4][3], uint8_t animated,
                    const double tol[4], uint8_t bits[3]) {
    if (kind == OROYA__Q_F32 || kind == OROYA__Q_8 || kind == OROYA__Q_16) {
        const uint8_t b = kind == OROYA__Q_8 ? 8 : kind == OROYA__Q_16 ? 16 : 0;
        bits[0] = bits[1] = bits[2] = b;
        return true;
    }
    const uint32_t word = kind == OROYA__Q_P16   ? 16
                          : kind == OROYA__Q_P24 ? 24
                          : kind == OROYA__Q_P32 ? 32
                          : kind == OROYA__Q_P40 ? 40
                                                 : 48;
    const uint32_t cap = kind == OROYA__Q_P16 ? 12 : kind == OROYA__Q_P24 ? 16 : 24;
    uint32_t need[3] = {0, 0, 0}, sum = 0;
    bool varies[3] = {false, false, false};
    for (int e = 0; e < 3; e++) {
        for (uint32_t l = 0; l < 4; l++) {
            const double r = (double)hi[l][e] - lo[l][e];
            if (!(animated >> l & 1) || r <= 0) {
                continue;
            }
            varies[e] = true;
            const double levels = sqrt(3.0) * r / (ch == OROYA__CH_R ? tol[l] : 2 * tol[l]);
            uint32_t b = 1;
            while (b < cap && (double)((1u << b) - 1u) < levels) {
                b++;
            }
            need[e] = need[e] > b ? need[e] : b;
        }
        sum += need[e];
    }
    if (sum > word) {
        return false;
    }
    for (uint32_t spare = word - sum, e = 0; spare > 0; e = (e + 1) % 3) {
        if (!varies[0] && !varies[1] && !varies[2]) {
            break;
        }
        if (varies[e] && need[e] < cap) {
            need[e]++;
            spare--;
        } else if ((varies[0] ? need[0] >= cap : true) && (varies[1] ? need[1] >= cap : true) &&
                   (varies[2] ? need[2] >= cap : true)) {
            break;
        }
    }
    for (int e = 0; e < 3; e++) {
        bits[e] = (uint8_t)need[e];
    }
    return true;
}

/* Chooses the storage of (block b, channel ch) at budget factor f. */
static void pc_encode(const pc_ctx *x, uint32_t b, int ch, double f, pc_block *pb, pc_scratch *s) {
    const uint32_t n = x->n, comps = comps_of(ch);
    pb->animated = 0;
    double tol[4] = {0, 0, 0, 0};
    for (uint32_t l = 0; l < 4; l++) {
        const uint32_t j = b * 4 + l;
        if (pc_row(x, b, ch, l)) {
            pb->animated |= (uint8_t)(1u << l);
            tol[l] = f * x->budget[j] / (ch == OROYA__CH_T ? 1.0 : x->reach[j]);
        }
    }
    pb->kind = OROYA__Q_NONE;
    pb->count = 0;
    pb->floats = 0;
    if (!pb->animated) {
        return;
    }
    /* Constant: every sample within tolerance of the first. */
    bool constant = true;
    for (uint32_t l = 0; l < 4; l++) {
        const float *src = pc_row(x, b, ch, l);
        if (!src) {
            constant_of(x, b * 4 + l, ch, pb->cst[l]);
            continue;
        }
        memcpy(pb->cst[l], src, sizeof pb->cst[l]);
        const double v0[4] = {src[0], src[1], src[2], src[3]};
        for (uint32_t i = 1; i < n && constant; i++) {
            constant = pc_dist(ch, v0, src + (size_t)i * 4) <= tol[l];
        }
    }
    if (constant) {
        pb->kind = OROYA__Q_CONST;
        pb->count = 1;
        pb->floats = pc_kind_floats(OROYA__Q_CONST, ch, 1);
        return;
    }
    /* Each kind, kept when its quantization leaves room; the fewest bytes win. */
    float lo[4][3], hi[4][3];
    for (uint32_t l = 0; l < 4; l++) {
        const float *src = pc_row(x, b, ch, l);
        for (int e = 0; e < 3; e++) {
            lo[l][e] = hi[l][e] = src ? src[e] : pb->cst[l][e];
        }
        for (uint32_t i = 1; src && i < n; i++) {
            for (int e = 0; e < 3; e++) {
                lo[l][e] = fminf(lo[l][e], src[(size_t)i * 4 + (size_t)e]);
                hi[l][e] = fmaxf(hi[l][e], src[(size_t)i * 4 + (size_t)e]);
            }
        }
    }
    static const uint8_t kinds[9] = {OROYA__Q_L32, OROYA__Q_P16, OROYA__Q_8,
                                     OROYA__Q_P24, OROYA__Q_P32, OROYA__Q_P40,
                                     OROYA__Q_P48, OROYA__Q_16,  OROYA__Q_F32};
    /* L32: a single animated lane, whose range every lane takes. */
    uint32_t single = 4;
    for (uint32_t l = 0; l < 4; l++) {
        if (pb->animated == 1u << l) {
            single = l;
        }
    }
    size_t best = SIZE_MAX;
    uint8_t best_kind = OROYA__Q_F32, best_bits[3] = {0, 0, 0};
    uint32_t *best_keep = pb->keep + n; /* the second half of keep holds the best so far */
    uint32_t best_count = 0;
    float best_mn[3][4], best_st[3][4];
    uint16_t best_mq[3][4], best_sq[3][4];
    for (int k = 0; k < 9; k++) {
        const uint8_t kind = kinds[k];
        if (kind == OROYA__Q_L32 && single == 4) {
            continue;
        }
        if (!pc_bits(kind == OROYA__Q_L32 ? OROYA__Q_P32 : kind, ch, lo, hi, pb->animated, tol,
                     pb->bits)) {
            continue;
        }
        for (uint32_t l = 0; l < 4; l++) {
            const uint32_t rl = kind == OROYA__Q_L32 ? single : l;
            for (uint32_t e = 0; e < 3; e++) {
                pc_range(pb, kind, ch, e, l, lo[rl][e], hi[rl][e]);
            }
            const float *src = pc_row(x, b, ch, l);
            if (!src) {
                continue;
            }
            for (uint32_t i = 0; i < n; i++) {
                float *d = s->dec + ((size_t)l * n + i) * 4;
                if (kind == OROYA__Q_F32) {
                    memcpy(d, src + (size_t)i * 4, comps * sizeof(float));
                    if (comps == 3) {
                        d[3] = 0;
                    }
                } else {
                    pc_quantize(pb, ch, l, src + (size_t)i * 4, d, NULL);
                }
            }
        }
        if (!pc_reduce(x, pb, ch, b, tol, kind != OROYA__Q_F32, s)) {
            continue;
        }
        /* A reduced key list needs a time group of its own (its times, 8 bytes, and a seek
         * per frame, counted as 32 bytes); the whole grid is one group every block shares. */
        size_t cost = pc_kind_floats(kind, ch, pb->count) * 4 + (size_t)pb->count * 4 + 40;
        const size_t whole = pc_kind_floats(kind, ch, n) * 4;
        if (pb->count == n || whole <= cost) {
            cost = whole;
            pb->count = n;
            for (uint32_t i = 0; i < n; i++) {
                pb->keep[i] = i;
            }
        }
        if (cost < best) {
            best = cost;
            best_kind = kind;
            best_count = pb->count;
            memcpy(best_bits, pb->bits, sizeof best_bits);
            memcpy(best_keep, pb->keep, pb->count * sizeof(uint32_t));
            memcpy(best_mn, pb->mn, sizeof best_mn);
            memcpy(best_st, pb->st, sizeof best_st);
            memcpy(best_mq, pb->mq, sizeof best_mq);
            memcpy(best_sq, pb->sq, sizeof best_sq);
        }
    }
    /* F32 has no quantization error, so some kind always succeeded. */
    pb->kind = best_kind;
    pb->count = best_count;
    memcpy(pb->bits, best_bits, sizeof best_bits);
    memcpy(pb->keep, best_keep, best_count * sizeof(uint32_t));
    memcpy(pb->mn, best_mn, sizeof best_mn);
    memcpy(pb->st, best_st, sizeof best_st);
    memcpy(pb->mq, best_mq, sizeof best_mq);
    memcpy(pb->sq, best_sq, sizeof best_sq);
    pb->floats = pc_kind_floats(best_kind, ch, best_count);
}

/* ---- building a compressed clip ------------------------------------------------------------- */

static size_t take16(size_t *size, size_t bytes) {
    const size_t off = (*size + 15) & ~(size_t)15;
    *size = off + bytes;
    return off;
}

/* Chooses the quantized (block, channel)s of the layer's decoded-key cache (pb->cached), in
 * order, as many as fit in the intervals a character slot has (oroya__pose_slot_intervals);
 * the others decode at every sample. Returns how many, and the rotations among them. */
static uint32_t pc_choose_cache(pc_block *pbs, uint32_t nbc, uint32_t groups, uint32_t channels,
                                uint32_t *rot) {
    /* The header and the groups' offsets, then 4 rows per key (a vector's fourth unused). */
    const uint32_t head = oroya__pose_cache_header(groups) + (groups + 3) / 4;
    uint32_t rows = 0, count = 0;
    *rot = 0;
    for (uint32_t bc = 0; bc < nbc; bc++) {
        const uint32_t n = OROYA__Q_CACHE_KEYS * OROYA__Q_KEY_FLOATS / 4;
        pbs[bc].cached =
            pbs[bc].kind >= OROYA__Q_16 && head + rows + n <= oroya__pose_slot_intervals(channels);
        if (pbs[bc].cached) {
            rows += n;
            count++;
            *rot += bc % 3 == OROYA__CH_R;
        }
    }
    return count;
}

/* Numbers the stored (block, channel)s of c (qindex): entry 0 is the shared NONE, then the
 * cached rotations, the other cached ones, the rest; and gives the cached ones their rows. */
static void pc_number_entries(const pc_block *pbs, uint32_t nbc, oroya_pose_clip *c,
                              uint8_t *qindex, uint32_t cached, uint32_t rot) {
    static atomic_uint serials;
    uint32_t entry = 1;
    for (int pass = 0; pass < 3; pass++) {
        for (uint32_t bc = 0; bc < nbc; bc++) {
            const pc_block *pb = &pbs[bc];
            const int want = !pb->cached ? 2 : bc % 3 == OROYA__CH_R ? 0 : 1;
            if (pb->kind != OROYA__Q_NONE && want == pass) {
                qindex[bc] = (uint8_t)entry++;
            }
        }
    }
    /* The top bit set: never a key index, which a float clip may have left there. */
    c->qserial = (atomic_fetch_add(&serials, 1u) & 0x7FFFFFFFu) | 0x80000000u;
    c->qcached_count = cached;
    c->qcached_rot = rot;
    c->state_intervals = 0;
}

/* The cache rows of the cached entries, in entry order (after the qblocks are written). */
static void pc_cache_rows(oroya_pose_clip *c, oroya__pose_qblock *qb) {
    uint32_t rows = c->qcached_count ? (c->group_count + 3) / 4 : 0; /* the groups' offsets */
    for (uint32_t i = 1; i <= c->qcached_count; i++) {
        qb[i].cache = (uint16_t)rows;
        rows += OROYA__Q_CACHE_KEYS * OROYA__Q_KEY_FLOATS / 4;
    }
    c->state_intervals = rows ? oroya__pose_cache_header(c->group_count) + rows : 0;
    c->qcache_at =
        (uint32_t)((oroya__pose_cache_header(c->group_count) - 1) * sizeof(oroya__pose_interval));
}

/* Writes the quantized keys (and the range header) of pb at d. */
static void pc_write_quantized(const pc_ctx *x, const pc_block *pb, uint32_t b, int ch, float *d) {
    if (pb->kind == OROYA__Q_L32) {
        uint32_t l0 = 0;
        while (!(pb->animated >> l0 & 1)) {
            l0++;
        }
        for (uint32_t e = 0; e < 3; e++) {
            d[e] = pb->mn[e][l0];
            d[3 + e] = pb->st[e][l0];
        }
    } else if (ch == OROYA__CH_R) {
        uint8_t *h = (uint8_t *)d;
        for (uint32_t e = 0; e < 3; e++) {
            for (uint32_t l = 0; l < 4; l++) {
                memcpy(h + e * 8 + l * 2, &pb->mq[e][l], 2);
                memcpy(h + 24 + e * 8 + l * 2, &pb->sq[e][l], 2);
            }
        }
    } else {
        for (uint32_t e = 0; e < 3; e++) {
            for (uint32_t l = 0; l < 4; l++) {
                d[e * 4 + l] = pb->mn[e][l];
                d[12 + e * 4 + l] = pb->st[e][l];
            }
        }
    }
    uint8_t *keys = (uint8_t *)(d + oroya__pose_qkeys(pb->kind, ch));
    const size_t key_bytes = oroya__pose_key_bytes(pb->kind);
    for (uint32_t k = 0; k < pb->count; k++) {
        uint8_t *key = keys + k * key_bytes;
        for (uint32_t l = 0; l < 4; l++) {
            const float *src = pc_row(x, b, ch, l);
            if (pb->kind == OROYA__Q_L32 && !src) {
                continue; /* the animated lane's word only */
            }
            const float *v = src ? src + (size_t)pb->keep[k] * 4 : pb->cst[l];
            float dec[4];
            uint32_t q[3];
            pc_quantize(pb, ch, l, v, dec, q);
            const uint64_t packed = (uint64_t)q[0] | (uint64_t)q[1] << pb->bits[0] |
                                    (uint64_t)q[2] << (pb->bits[0] + pb->bits[1]);
            const uint32_t word = (uint32_t)packed;
            const uint16_t high = (uint16_t)(packed >> 32);
            for (uint32_t e = 0; e < 3; e++) {
                if (pb->kind == OROYA__Q_16) {
                    const uint16_t w = (uint16_t)q[e];
                    memcpy(key + e * 8 + l * 2, &w, 2);
                } else if (pb->kind == OROYA__Q_8) {
                    key[e * 4 + l] = (uint8_t)q[e];
                }
            }
            if (pb->kind == OROYA__Q_L32) {
                memcpy(key, &word, 4);
            } else if (pb->kind == OROYA__Q_P32 || pb->kind == OROYA__Q_P40 ||
                       pb->kind == OROYA__Q_P48) {
                memcpy(key + l * 4, &word, 4);
                if (pb->kind == OROYA__Q_P40) {
                    key[16 + l] = (uint8_t)high;
                } else if (pb->kind == OROYA__Q_P48) {
                    memcpy(key + 16 + l * 2, &high, 2);
                }
            } else if (pb->kind == OROYA__Q_P16 || pb->kind == OROYA__Q_P24) {
                const uint16_t w = (uint16_t)word;
                memcpy(key + l * 2, &w, 2);
                if (pb->kind == OROYA__Q_P24) {
                    key[8 + l] = (uint8_t)(word >> 16);
                }
            }
        }
    }
}

/* Builds the clip at budget factor f. */
static oroya_result pc_build(const pc_ctx *x, const oroya_pose_clip_desc *desc, double f,
                             pc_block *pbs, pc_scratch *s, oroya_pose_clip **out,
                             oroya_error *err) {
    const uint32_t nbc = x->blocks * 3;
    for (uint32_t bc = 0; bc < nbc; bc++) {
        pc_encode(x, bc / 3, (int)(bc % 3), f * pbs[bc].gain, &pbs[bc], s);
    }
    /* Time groups: group 0 is [0, 1] (constants); equal key lists share a group. Only the
     * (block, channel)s that store something get an entry (entry 0: the shared NONE). */
    uint32_t groups = 1, entries = 1;
    size_t times = 2, data = 0;
    for (uint32_t bc = 0; bc < nbc; bc++) {
        pc_block *pb = &pbs[bc];
        data += pb->floats;
        pb->group = 0;
        entries += pb->kind != OROYA__Q_NONE;
        if (pb->kind == OROYA__Q_NONE || pb->kind == OROYA__Q_CONST) {
            continue;
        }
        uint32_t g = 0;
        for (uint32_t o = 0; o < bc && !g; o++) {
            const pc_block *q = &pbs[o];
            if (q->group && q->count == pb->count &&
                !memcmp(q->keep, pb->keep, pb->count * sizeof(uint32_t))) {
                g = q->group;
            }
        }
        if (!g) {
            g = groups++;
            times += pb->count;
        }
        pb->group = g;
    }
    size_t size = 0;
    uint32_t rot = 0;
    const uint32_t cached = pc_choose_cache(pbs, nbc, groups, x->blocks * 12, &rot);
    /* The 16-byte aligned parts first, then those of 4-byte items, packed. */
    const size_t o_self = take16(&size, sizeof(oroya_pose_clip));
    const size_t o_qb = take16(&size, entries * sizeof(oroya__pose_qblock));
    const size_t o_data = take16(&size, data * sizeof(float));
    const size_t o_groups = size;
    size += groups * sizeof(oroya__pose_group);
    const size_t o_times = size;
    size += times * sizeof(float);
    const size_t o_qi = size;
    size += nbc * sizeof(uint8_t);
    if (times > UINT32_MAX || data > UINT32_MAX || entries > OROYA__Q_MAX_ENTRIES) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "oroya_pose_clip_create: compressed clip too "
                           "large");
    }
    uint8_t *mem = oroya__calloc(&desc->allocator, 1, size, 16);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: %zu bytes", size);
    }
    oroya_pose_clip *c = (oroya_pose_clip *)(mem + o_self);
    c->allocator = desc->allocator;
    c->skeleton = x->skel;
    c->bytes = size;
    c->duration = x->clip->duration;
    c->additive = x->additive;
    c->channel_count = x->blocks * 12;
    oroya__pose_qblock *qb = (oroya__pose_qblock *)(mem + o_qb);
    uint8_t *qindex = mem + o_qi;
    c->qblocks = qb;
    c->qindex = qindex;
    c->groups = (oroya__pose_group *)(mem + o_groups);
    c->keys = (float *)(mem + o_times);
    float *qdata = (float *)(mem + o_data);
    c->qdata = qdata;
    c->group_count = groups;
    pc_number_entries(pbs, nbc, c, qindex, cached, rot);
    c->keys[0] = 0;
    c->keys[1] = 1;
    c->groups[0] = (oroya__pose_group){0, 2};
    c->group_count = groups;
    qb[0] = (oroya__pose_qblock){0, 0, OROYA__Q_NONE, 0, {0, 0, 0}, 0, 0xF000, OROYA__Q_NO_CACHE};
    size_t tused = 2, dused = 0;
    /* Two passes over the blocks: those read with aligned loads first (their sizes are
     * multiples of 16 bytes), then those packed at 4 bytes. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t bc = 0; bc < nbc; bc++) {
            const pc_block *pb = &pbs[bc];
            const uint32_t b = bc / 3;
            const int ch = (int)(bc % 3);
            const uint32_t comps = comps_of(ch);
            if (pb->kind == OROYA__Q_NONE || pc_packed_at_4(pb->kind, ch) != (pass == 1)) {
                continue;
            }
            uint16_t drop = 0;
            for (uint32_t l = 0; l < 4; l++) {
                const uint32_t sl = x->slot[bc * 4 + l];
                const uint32_t k = ch == OROYA__CH_R && sl != UINT32_MAX ? x->drop[sl] : 3u;
                drop = (uint16_t)(drop | 1u << (4 * k + l));
            }
            qb[qindex[bc]] = (oroya__pose_qblock){
                (uint32_t)dused,
                (uint16_t)pb->group,
                pb->kind,
                pb->animated,
                {pb->bits[0], pb->bits[1], pb->bits[2]},
                (uint8_t)(pb->kind == OROYA__Q_CONST || pb->kind == OROYA__Q_F32
                              ? 0
                              : oroya__pose_key_bytes(pb->kind)),
                drop,
                OROYA__Q_NO_CACHE};
            if (pb->group && c->groups[pb->group].count == 0) {
                c->groups[pb->group] = (oroya__pose_group){(uint32_t)tused, pb->count};
                for (uint32_t k = 0; k < pb->count; k++) {
                    c->keys[tused++] = x->times[pb->keep[k]];
                }
            }
            float *d = qdata + dused;
            dused += pb->floats;
            if (pb->kind == OROYA__Q_CONST || pb->kind == OROYA__Q_F32) {
                /* Whole values, x, y, z(, w). */
                const uint32_t count = pb->kind == OROYA__Q_CONST ? 1 : pb->count;
                for (uint32_t k = 0; k < count; k++) {
                    for (uint32_t l = 0; l < 4; l++) {
                        const float *src = pc_row(x, b, ch, l);
                        float v[4];
                        if (!src) {
                            memcpy(v, pb->cst[l], sizeof v);
                        } else if (pb->kind == OROYA__Q_CONST) {
                            pc_value(x, b, ch, l, pb->cst[l], v);
                        } else {
                            pc_value(x, b, ch, l, src + (size_t)pb->keep[k] * 4, v);
                        }
                        for (uint32_t e = 0; e < comps; e++) {
                            d[(k * comps + e) * 4 + l] = v[e];
                        }
                    }
                }
            } else {
                pc_write_quantized(x, pb, b, ch, d);
            }
        }
    }
    pc_cache_rows(c, qb);
    *out = c;
    return OROYA_OK;
}

/* ---- the model-space measure ------------------------------------------------------------------ */

typedef struct pc_error {
    double ratio;      /* the largest error / joint tolerance */
    uint32_t worst;    /* the joint of that ratio (the first to reach it) */
    double max, joint; /* largest error of any point, of joint positions alone */
    double work;       /* the measure's joint poses (time samples times joints) */
} pc_error;

/* The measure's work, for tests: time samples and calls (internal/pose.h). */
static atomic_ullong pc_samples, pc_measures;
void oroya__pose_compress_measure_counts(uint64_t *samples, uint64_t *calls) {
    *samples = (uint64_t)atomic_load(&pc_samples);
    *calls = (uint64_t)atomic_load(&pc_measures);
}

/* PC_WORK_BUDGET, or the one a test set (0: the default). */
static _Atomic double pc_work_budget_set;
void oroya__pose_compress_set_work_budget(double joint_poses) {
    atomic_store(&pc_work_budget_set, joint_poses);
}
static double pc_work_budget(void) {
    const double b = atomic_load(&pc_work_budget_set);
    return b > 0 ? b : PC_WORK_BUDGET;
}

/* The larger of a and b, NaN when either is (fmax drops a NaN: a candidate whose decoding
 * overflows, a range of keys near float's largest, must fail the bound, not pass it). */
static double pc_max_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : a > b ? a : b; }

/* Poses `c` at t through the kernel and the source clip in double, and folds each joint's
 * position and virtual vertices, compared in model space, into *out. */
static void pc_measure_at(const pc_ctx *x, oroya_pose_character *chr, const oroya_pose_clip *c,
                          float t, double *models, uint32_t *cursors, pc_error *out) {
    const uint32_t nj = x->joints;
    const oroya_pose_layer layer = {c, t, 1.0f};
    oroya__pose_run_update(chr, &layer, 1, 0);
    for (uint32_t j = 0; j < nj; j++) {
        double v[3][4];
        for (int ch = 0; ch < 3; ch++) {
            const uint32_t ti = x->map[((j / 4) * 3 + (uint32_t)ch) * 4 + j % 4];
            if (ti == UINT32_MAX) {
                float r[4];
                rest_of(x->skel, j, ch, r);
                for (int e = 0; e < 4; e++) {
                    v[ch][e] = r[e];
                }
            } else {
                oroya_track_sample_f64(&x->clip->tracks[ti], t, &cursors[ti], NULL, v[ch]);
            }
        }
        const double len =
            sqrt(v[1][0] * v[1][0] + v[1][1] * v[1][1] + v[1][2] * v[1][2] + v[1][3] * v[1][3]);
        for (int e = 0; e < 4; e++) {
            v[1][e] = len > 0 ? v[1][e] / len : e == 3;
        }
        double local[12];
        pc_compose(v[0], v[1], v[2], local);
        const uint32_t p = x->skel->parents[j];
        double *m = models + (size_t)j * 12;
        if (p == UINT32_MAX) {
            memcpy(m, local, sizeof local);
        } else {
            pc_mul(models + (size_t)p * 12, local, m);
        }
        const float *g = chr->models[j].m;
        double worst = 0;
        for (int k = 0; k < 4; k++) {
            /* The joint (k = 0) and its virtual vertices along x, y and z. */
            const double off = k ? x->vd : 0;
            double d2 = 0;
            for (int r = 0; r < 3; r++) {
                double ref = m[9 + r], got = (double)g[12 + r];
                if (k) {
                    ref += m[(k - 1) * 3 + r] * off;
                    got += (double)g[(k - 1) * 4 + r] * off;
                }
                d2 += (ref - got) * (ref - got);
            }
            const double e = sqrt(d2);
            worst = pc_max_nan(worst, e);
            if (k == 0) {
                out->joint = pc_max_nan(out->joint, e);
            }
        }
        out->max = pc_max_nan(out->max, worst);
        const double ratio = worst / x->jtol[j];
        if (ratio > out->ratio) {
            out->worst = j;
        }
        out->ratio = pc_max_nan(out->ratio, ratio);
    }
}

/* Samples `c` through the kernel and the source clip in double and compares each joint's
 * position and virtual vertices in model space, at every measure time and inside each span
 * between two consecutive ones. The measure times are the grid times, 0, the duration and,
 * when `keys` is not NULL, the key times of that clip (the one `c` was built from, whose keys
 * need not be grid times); so the key time range is covered whole, negative times included.
 * Inside a span: at 120 Hz, or, in a span longer than PC_MEASURE_SPAN samples at 120 Hz, at
 * PC_MEASURE_SPAN evenly spaced points, or, in one that 120 Hz samples fewer than
 * PC_MEASURE_MIN times (keys closer than 1/40 s), at its quarter points; with a cubic source
 * and `quarters`, also at the quarter points. Inside one span every reduced key sequence is a
 * single linear segment (the reduced keys are grid times) and so is every linear source
 * track, so the error depends on the position within the span, not on its length: a long
 * span needs no more points than a short one, and a short one is sampled inside too (a
 * rotation key that takes the other arc is 180 degrees off mid-span, however short the
 * span). The work is bounded by the grid (the file's keys), not by the duration. */
#define PC_MEASURE_SPAN 32
#define PC_MEASURE_MIN 3
static oroya_result pc_measure(const pc_ctx *x, const oroya_pose_clip *c, const oroya_clip *keys,
                               bool quarters, pc_error *out, oroya_error *err) {
    memset(out, 0, sizeof *out);
    oroya_pose_character *chr = NULL;
    oroya_result res = oroya_pose_character_create(
        &(oroya_pose_character_desc){.skeleton = x->skel, .max_layers = 1, .allocator = *x->alloc},
        &chr, err);
    if (res != OROYA_OK) {
        return res;
    }
    const uint32_t nj = x->joints;
    size_t nt = (size_t)x->n + 2;
    for (uint32_t i = 0; keys && i < keys->track_count; i++) {
        nt += keys->tracks[i].key_count;
    }
    double *models = oroya__alloc(x->alloc, (size_t)nj * 12 * sizeof(double), 16);
    uint32_t *cursors = oroya__calloc(x->alloc, x->clip->track_count + 1, sizeof(uint32_t), 16);
    float *at = oroya__alloc(x->alloc, nt * sizeof(float), 16);
    if (!models || !cursors || !at) {
        oroya__free(x->alloc, models);
        oroya__free(x->alloc, cursors);
        oroya__free(x->alloc, at);
        oroya_pose_character_destroy(chr);
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
    }
    /* The measure times, sorted, each once. */
    size_t m = 0;
    if (x->n) {
        memcpy(at, x->times, (size_t)x->n * sizeof(float)); /* times may be NULL with none */
    }
    m = x->n;
    at[m++] = 0;
    at[m++] = x->clip->duration;
    for (uint32_t i = 0; keys && i < keys->track_count; i++) {
        if (keys->tracks[i].key_count) {
            memcpy(at + m, keys->tracks[i].times, keys->tracks[i].key_count * sizeof(float));
        }
        m += keys->tracks[i].key_count;
    }
    qsort(at, m, sizeof(float), cmp_float);
    size_t u = 1;
    for (size_t i = 1; i < m; i++) {
        if (at[i] != at[u - 1]) {
            at[u++] = at[i];
        }
    }
    m = u;
    uint64_t samples = 0;
    for (size_t s = 0; s < m; s++) {
        pc_measure_at(x, chr, c, at[s], models, cursors, out);
        samples++;
        if (s + 1 == m) {
            break;
        }
        /* Inside the span (a, b). */
        const double a = at[s], b = at[s + 1];
        const double lo = floor(a * PC_MEASURE_RATE) + 1, hi = ceil(b * PC_MEASURE_RATE) - 1;
        const double grid = hi >= lo ? hi - lo + 1 : 0;
        bool quartered = false;
        if (grid > PC_MEASURE_SPAN) {
            for (int k = 1; k <= PC_MEASURE_SPAN; k++) {
                const float t = (float)(a + (b - a) * k / (PC_MEASURE_SPAN + 1));
                pc_measure_at(x, chr, c, t, models, cursors, out);
                samples++;
            }
        } else if (grid >= PC_MEASURE_MIN) {
            for (int k = 0; k < (int)grid; k++) {
                const float t = (float)((lo + k) / PC_MEASURE_RATE);
                pc_measure_at(x, chr, c, t, models, cursors, out);
                samples++;
            }
        } else {
            quartered = true;
        }
        /* A cubic source is no single linear segment between two grid times: its quarter
         * points too, where 120 Hz falls on the grid (pc_steps cuts the spline's key
         * intervals in linear steps). */
        for (int k = 1; (quartered || (quarters && x->cubic)) && k < 4; k++) {
            pc_measure_at(x, chr, c, (float)(a + (b - a) * k * 0.25), models, cursors, out);
            samples++;
        }
    }
    oroya__free(x->alloc, at);
    atomic_fetch_add(&pc_samples, (unsigned long long)samples);
    atomic_fetch_add(&pc_measures, 1ull);
    out->work = (double)samples * (double)nj;
    oroya__free(x->alloc, models);
    oroya__free(x->alloc, cursors);
    oroya_pose_character_destroy(chr);
    return OROYA_OK;
}

/* Builds and measures the clip at factor f (*met: it meets the bound); when it does with
 * fewer bytes than *best, it replaces it (*kept). */
static oroya_result pc_try(const pc_ctx *x, const oroya_pose_clip_desc *desc, double f,
                           pc_block *pbs, pc_scratch *s, oroya_pose_clip **best, pc_error *best_e,
                           bool *met, bool *kept, double *work, oroya_error *err) {
    oroya_pose_clip *c = NULL;
    pc_error e;
    *met = *kept = false;
    oroya_result res = pc_build(x, desc, f, pbs, s, &c, err);
    if (res == OROYA_OK) {
        res = pc_measure(x, c, NULL, false, &e, err);
        *work += e.work;
    }
    *met = res == OROYA_OK && e.ratio <= 1.0;
    /* With a cubic source, a candidate that would be kept is measured again between the grid
     * times too (the slower measure, only for the few that would win). */
    if (*met && x->cubic && (!*best || c->bytes < (*best)->bytes)) {
        res = pc_measure(x, c, NULL, true, &e, err);
        *work += e.work;
        *met = res == OROYA_OK && e.ratio <= 1.0;
    }
    if (*met && (!*best || c->bytes < (*best)->bytes)) {
        oroya_pose_clip_destroy(*best);
        *best = c;
        *best_e = e;
        *kept = true;
        return OROYA_OK;
    }
    oroya_pose_clip_destroy(c);
    return res;
}

/* ---- create ----------------------------------------------------------------------------------- */

static oroya_result check_compress(const oroya_pose_compress *cp, uint32_t joints,
                                   oroya_error *err) {
    const float max = OROYA_POSE_MAX_TOLERANCE;
    if (!cp->joint_tolerance && !(cp->tolerance > 0 && cp->tolerance <= max)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "compress.tolerance: %g is not in (0, %g] scene units",
                           (double)cp->tolerance, (double)max);
    }
    for (uint32_t j = 0; cp->joint_tolerance && j < joints; j++) {
        const float t = cp->joint_tolerance[j];
        if (!(t > 0 && t <= max)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "compress.joint_tolerance[%u]: %g is not in (0, %g] scene units", j,
                               (double)t, (double)max);
        }
    }
    if (!(cp->vertex_distance >= 0 && cp->vertex_distance <= max)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "compress.vertex_distance: %g is not in [0, %g] scene units",
                           (double)cp->vertex_distance, (double)max);
    }
    return OROYA_OK;
}

static void set_measured(oroya_pose_clip *c, const oroya_pose_compress *cp, const pc_error *e) {
    c->tolerance = cp->joint_tolerance ? 0 : cp->tolerance;
    c->max_error = (float)e->max;
    c->max_joint_error = (float)e->joint;
}

oroya_result oroya__pose_clip_create_compressed(const oroya_pose_clip_desc *desc,
                                                oroya_pose_clip **out, oroya_error *err) {
    const oroya_pose_compress *cp = desc->compress;
    oroya_result res = check_compress(cp, desc->skeleton->joint_count, err);
    if (res != OROYA_OK) {
        return res;
    }
    /* The float clip first: it validates the clip and is the fallback. */
    oroya_pose_clip_desc fd = *desc;
    fd.compress = NULL;
    oroya_pose_clip *flt = NULL;
    res = oroya_pose_clip_create(&fd, &flt, err);
    if (res != OROYA_OK) {
        return res;
    }
    pc_ctx x;
    bool usable = true;
    res = pc_init(&x, desc, &usable, err);
    pc_block *pbs = NULL;
    pc_scratch s = {0};
    oroya_pose_clip *best = NULL;
    pc_error best_e = {0};
    if (res == OROYA_OK && usable) {
        const size_t nbc = (size_t)x.blocks * 3, n = x.n;
        pbs = oroya__calloc(&desc->allocator, nbc, sizeof(pc_block), 16);
        uint32_t *keep =
            oroya__alloc(&desc->allocator, oroya__mul_size(nbc + 1, n * sizeof(uint32_t)), 16);
        s.dec = oroya__alloc(&desc->allocator, 16 * n * sizeof(float), 16);
        s.flag = oroya__alloc(&desc->allocator, n, 16);
        s.stack = oroya__alloc(&desc->allocator, 4 * n * sizeof(uint32_t) + 16, 16);
        if (!pbs || !keep || !s.dec || !s.flag || !s.stack) {
            res = oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
        } else {
            /* Block bc keeps its list at keep + bc * n; the last n entries (past the final
             * block's) hold pc_encode's best-so-far copy. */
            for (size_t bc = 0; bc < nbc; bc++) {
                pbs[bc].keep = keep + bc * n;
                pbs[bc].gain = 1;
            }
        }
        /* The budget factor of the clip: the largest (on a geometric search) whose measure
         * passes. Then each block's own factor, doubled while that passes and saves bytes:
         * the even split by depth is safe but rarely where the bytes are best spent. */
        double lo = 0, hi = 0, f = 1, work = 0;
        const double budget = pc_work_budget();
        for (int trial = 0; res == OROYA_OK && trial < 24 && !(best && work >= budget); trial++) {
            bool met = false, kept = false;
            res = pc_try(&x, desc, f, pbs, &s, &best, &best_e, &met, &kept, &work, err);
            if (met) {
                lo = f;
            } else {
                hi = f;
            }
            if (hi == 0) {
                if (f >= 256) {
                    break;
                }
                f *= 2;
            } else if (lo == 0) {
                if (f < 1.0 / 4096) {
                    break;
                }
                f *= 0.25;
            } else {
                if (hi / lo < 1.1) {
                    break;
                }
                f = sqrt(lo * hi);
            }
        }
        /* Then each block on its own: the smallest raise of its factor (doubling, up to
         * 256 times) that moves it to a cheaper storage, kept when the clip still measures
         * within the bound. The even split leaves most blocks with margin, and a block's
         * bytes only change when its bits cross a word size. The blocks that save the most
         * go first, while the margin lasts. */
        double *cand = oroya__alloc(&desc->allocator, (nbc + 1) * sizeof(double), 16);
        size_t *saves = oroya__alloc(&desc->allocator, (nbc + 1) * sizeof(size_t), 16);
        if (res == OROYA_OK && (!cand || !saves)) {
            res = oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
        }
        int trials = 0;
        for (int round = 0; res == OROYA_OK && best && round < 3; round++) {
            for (size_t bc = 0; bc < nbc; bc++) {
                saves[bc] = 0;
                if (!pbs[bc].animated || pbs[bc].kind == OROYA__Q_CONST) {
                    continue;
                }
                const uint32_t b = (uint32_t)(bc / 3);
                const int ch = (int)(bc % 3);
                pc_encode(&x, b, ch, lo * pbs[bc].gain, &pbs[bc], &s);
                const size_t now = pbs[bc].floats;
                double g = pbs[bc].gain;
                for (int step = 0; step < 8 && !saves[bc]; step++) {
                    g *= 2;
                    pc_encode(&x, b, ch, lo * g, &pbs[bc], &s);
                    saves[bc] = pbs[bc].floats < now ? now - pbs[bc].floats : 0;
                }
                cand[bc] = g;
            }
            bool any = false;
            while (res == OROYA_OK && trials < PC_REFINE_TRIALS && work < budget) {
                size_t at = SIZE_MAX;
                for (size_t bc = 0; bc < nbc; bc++) {
                    if (saves[bc] && (at == SIZE_MAX || saves[bc] > saves[at])) {
                        at = bc;
                    }
                }
                if (at == SIZE_MAX) {
                    break;
                }
                saves[at] = 0;
                const double old = pbs[at].gain;
                pbs[at].gain = cand[at];
                bool met = false, kept = false;
                trials++;
                res = pc_try(&x, desc, lo, pbs, &s, &best, &best_e, &met, &kept, &work, err);
                if (!kept) {
                    pbs[at].gain = old;
                }
                any = any || kept;
            }
            if (!any) {
                break;
            }
        }
        oroya__free(&desc->allocator, cand);
        oroya__free(&desc->allocator, saves);
        oroya__free(&desc->allocator, keep);
    }
    oroya__free(&desc->allocator, pbs);
    oroya__free(&desc->allocator, s.dec);
    oroya__free(&desc->allocator, s.flag);
    oroya__free(&desc->allocator, s.stack);
    if (res == OROYA_OK && !best) {
        /* Float storage: measured too, and refused if even that misses the bound. */
        pc_error e = {0};
        res = pc_measure(&x, flt, NULL, true, &e, err);
        if (res == OROYA_OK && !(e.ratio <= 1.0)) {
            if (cp->joint_tolerance) {
                /* The caller's per-joint tolerances: name the joint that float storage itself
                 * cannot meet (compress.tolerance was not used). */
                res = oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                                  "compress.joint_tolerance[%u]: %g is tighter than float storage "
                                  "reaches: even float storage is off by %g times it there",
                                  e.worst, (double)cp->joint_tolerance[e.worst], e.ratio);
            } else {
                res = oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                                  "compress.tolerance: even float storage is off by %g scene "
                                  "units (%g times a joint's tolerance)",
                                  e.max, e.ratio);
            }
        }
        if (res == OROYA_OK) {
            set_measured(flt, cp, &e);
            best = flt;
            flt = NULL;
        }
    } else if (best) {
        set_measured(best, cp, &best_e);
    }
    /* A compressed clip no smaller than float storage (a cubic source at a tight tolerance
     * needs many linear keys): float storage, exact, measured as above. */
    if (res == OROYA_OK && best && flt && best->bytes >= flt->bytes) {
        pc_error e = {0};
        res = pc_measure(&x, flt, NULL, true, &e, err);
        if (res == OROYA_OK && e.ratio <= 1.0) {
            set_measured(flt, cp, &e);
            oroya_pose_clip_destroy(best);
            best = flt;
            flt = NULL;
        }
    }
    pc_free(&x);
    oroya_pose_clip_destroy(flt);
    if (res != OROYA_OK) {
        oroya_pose_clip_destroy(best);
        return res;
    }
    *out = best;
    return OROYA_OK;
}

/* ---- info ----------------------------------------------------------------------------------- */

void oroya_pose_clip_get_info(const oroya_pose_clip *clip, oroya_pose_clip_info *out) {
    if (!out) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (!clip) {
        return;
    }
    out->bytes = clip->bytes;
    out->compressed = clip->qblocks != NULL;
    out->tolerance = clip->tolerance;
    out->max_error = clip->max_error;
    out->max_joint_error = clip->max_joint_error;
    if (clip->qblocks) {
        for (uint32_t bc = 0; bc < clip->skeleton->block_count * 3; bc++) {
            const oroya__pose_qblock *q = oroya__pose_qb(clip, bc);
            out->keys += q->kind == OROYA__Q_CONST  ? 1
                         : q->kind == OROYA__Q_NONE ? 0
                                                    : clip->groups[q->group].count;
        }
    }
}

/* ---- reduced keys for export ------------------------------------------------------------------ */

/* Key k of lane `lane` of (block, channel) bc of a compressed clip, decoded as the kernel
 * does (x, y, z, w for rotations). */
static void pc_decode_key(const oroya_pose_clip *c, uint32_t bc, uint32_t lane, uint32_t k,
                          float out[4]) {
    const oroya__pose_qblock *q = oroya__pose_qb(c, bc);
    const float *d = c->qdata + q->offset;
    const int ch = (int)(bc % 3);
    const uint32_t comps = comps_of(ch);
    out[3] = 0;
    if (q->kind == OROYA__Q_CONST || q->kind == OROYA__Q_F32) {
        const float *r = d + (q->kind == OROYA__Q_F32 ? (size_t)k * comps * 4 : 0);
        for (uint32_t e = 0; e < comps; e++) {
            out[e] = r[e * 4 + lane];
        }
        return;
    }
    const uint8_t *key =
        (const uint8_t *)(d + oroya__pose_qkeys(q->kind, ch)) + (size_t)k * q->key_bytes;
    float v[4];
    for (uint32_t e = 0; e < 3; e++) {
        uint32_t i;
        if (q->kind == OROYA__Q_16) {
            uint16_t h;
            memcpy(&h, key + e * 8 + lane * 2, 2);
            i = h;
        } else if (q->kind == OROYA__Q_8) {
            i = key[e * 4 + lane];
        } else {
            const uint64_t w = oroya__pose_qword(q->kind, key, lane);
            const uint32_t shift = e == 0   ? 0u
                                   : e == 1 ? q->bits[0]
                                            : (uint32_t)q->bits[0] + q->bits[1];
            i = q->bits[e] ? (uint32_t)(w >> shift) & ((1u << q->bits[e]) - 1u) : 0u;
        }
        float mn, st;
        if (q->kind == OROYA__Q_L32) {
            mn = d[e], st = d[3 + e];
        } else if (ch == OROYA__CH_R) {
            uint16_t m, h;
            memcpy(&m, (const uint8_t *)d + e * 8 + lane * 2, 2);
            memcpy(&h, (const uint8_t *)d + 24 + e * 8 + lane * 2, 2);
            mn = oroya__pose_qmin(m), st = oroya__pose_bf16(h);
        } else {
            mn = d[e * 4 + lane], st = d[12 + e * 4 + lane];
        }
        v[e] = mn + (float)i * st;
    }
    if (comps == 3) {
        memcpy(out, v, 3 * sizeof(float));
        return;
    }
    const float n = v[0] * v[0] + (v[1] * v[1] + v[2] * v[2]);
    v[3] = sqrtf(1.0f - n > 0 ? 1.0f - n : 0.0f);
    uint8_t drop = 3;
    for (uint8_t kk = 0; kk < 4; kk++) {
        if (q->drop >> (4 * kk + lane) & 1u) {
            drop = kk;
        }
    }
    pc_unswizzle(drop, v, out);
}

/* The source-space value of a runtime value: additive clips store deltas against the rest
 * pose (rest * d for rotations, rest + d otherwise). */
static void pc_absolute(const oroya_pose_skeleton *s, bool additive, uint32_t joint, int ch,
                        float v[4]) {
    if (!additive) {
        return;
    }
    float r[4];
    rest_of(s, joint, ch, r);
    if (ch != OROYA__CH_R) {
        for (int e = 0; e < 3; e++) {
            v[e] += r[e];
        }
        return;
    }
    const double ax = r[0], ay = r[1], az = r[2], aw = r[3];
    const double bx = v[0], by = v[1], bz = v[2], bw = v[3];
    v[0] = (float)(aw * bx + ax * bw + ay * bz - az * by);
    v[1] = (float)(aw * by + ay * bw + az * bx - ax * bz);
    v[2] = (float)(aw * bz + az * bw + ax * by - ay * bx);
    v[3] = (float)(aw * bw - ax * bx - ay * by - az * bz);
}

/* A rotation on the grid of normalized signed shorts, as a glTF reader decodes it. */
static void pc_snorm16(float v[4]) {
    double len = 0;
    for (int e = 0; e < 4; e++) {
        len += (double)v[e] * v[e];
    }
    len = len > 0 ? sqrt(len) : 1;
    for (int e = 0; e < 4; e++) {
        const double x = v[e] / len * 32767.0;
        const double k = x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
        v[e] = (float)(k * (1.0 / 32767.0));
    }
}

/* The tracks of `src` with the keys of the runtime clip c (see oroya_pose_clip_reduce). */
static oroya_result pc_reduced_clip(const pc_ctx *x, const oroya_pose_clip *c, bool snorm16,
                                    const oroya_allocator *a, oroya_clip **out, oroya_error *err) {
    const oroya_clip *src = x->clip;
    /* The keys of a group of c: c was compressed at its own (tighter) tolerance, whose grid
     * may be finer than x's (pc_steps). */
    size_t most = x->n;
    for (uint32_t g = 0; c->qblocks && g < c->group_count; g++) {
        most = c->groups[g].count > most ? c->groups[g].count : most;
    }
    size_t floats = 0;
    for (uint32_t i = 0; i < src->track_count; i++) {
        const oroya_track *t = &src->tracks[i];
        floats += ((size_t)t->key_count + most + 1) * (1 + oroya_track_key_stride(t));
    }
    oroya_track *tracks = oroya__calloc(a, src->track_count + 1, sizeof(oroya_track), 16);
    float *buf = oroya__alloc(a, (floats + 1) * sizeof(float), 16);
    if (!tracks || !buf) {
        oroya__free(a, tracks);
        oroya__free(a, buf);
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_reduce: scratch");
    }
    float *p = buf;
    for (uint32_t i = 0; i < src->track_count; i++) {
        tracks[i] = src->tracks[i];
    }
    const size_t channels = (size_t)x->blocks * 12;
    for (size_t ci = 0; ci < channels; ci++) {
        if (x->map[ci] == UINT32_MAX) {
            continue;
        }
        const uint32_t bc = (uint32_t)(ci / 4), lane = (uint32_t)(ci % 4);
        const int ch = (int)(bc % 3);
        const uint32_t joint = bc / 3 * 4 + lane, comps = comps_of(ch);
        oroya_track *t = &tracks[x->map[ci]];
        const oroya_track *st = &src->tracks[x->map[ci]];
        float *times = p, *values;
        uint32_t count;
        if (c->qblocks) {
            const oroya__pose_qblock *q = oroya__pose_qb(c, bc);
            count = q->kind == OROYA__Q_CONST ? 1 : c->groups[q->group].count;
            values = p + count;
            for (uint32_t k = 0; k < count; k++) {
                times[k] = q->kind == OROYA__Q_CONST ? st->times[0]
                                                     : c->keys[c->groups[q->group].offset + k];
                float v[4];
                pc_decode_key(c, bc, lane, q->kind == OROYA__Q_CONST ? 0 : k, v);
                pc_absolute(x->skel, x->additive, joint, ch, v);
                memcpy(values + (size_t)k * comps, v, comps * sizeof(float));
            }
        } else {
            count = 0; /* float storage: the source keys */
        }
        if (count == 0) {
            count = st->key_count;
            values = p + count;
            memcpy(times, st->times, count * sizeof(float));
            memcpy(values, st->values, (size_t)count * oroya_track_key_stride(st) * sizeof(float));
        } else {
            t->interpolation = OROYA_INTERP_LINEAR;
        }
        if (snorm16 && ch == OROYA__CH_R && t->interpolation != OROYA_INTERP_CUBICSPLINE) {
            for (uint32_t k = 0; k < count; k++) {
                pc_snorm16(values + (size_t)k * 4);
            }
        }
        t->key_count = count;
        t->times = times;
        t->values = values;
        t->value_count = 0;
        p = values + (size_t)count * oroya_track_key_stride(t);
    }
    oroya_clip_desc cd = {.name = src->name,
                          .duration = src->duration,
                          .blend_mode = src->blend_mode,
                          .tracks = tracks,
                          .track_count = src->track_count,
                          .allocator = *a};
    oroya_result res = oroya_clip_create(&cd, out, err);
    oroya__free(a, tracks);
    oroya__free(a, buf);
    return res;
}

/* One rotation component on the grid of normalized signed shorts (as pc_snorm16 leaves it). */
static bool pc_on_snorm16(float v) {
    const double x = (double)v * 32767.0;
    const double k = x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
    return k >= -32767.0 && k <= 32767.0 && (float)(k * (1.0 / 32767.0)) == v;
}

bool oroya_clip_rotations_snorm16(const oroya_clip *clip) {
    if (!clip) {
        return false;
    }
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *t = &clip->tracks[i];
        if (t->property != OROYA_PROPERTY_ROTATION ||
            t->interpolation == OROYA_INTERP_CUBICSPLINE) {
            continue;
        }
        for (size_t k = 0; k < (size_t)t->key_count * 4; k++) {
            if (!pc_on_snorm16(t->values[k])) {
                return false;
            }
        }
    }
    return true;
}

/* One attempt of oroya_pose_clip_reduce: compresses at *cp, writes the reduced keys (rotations
 * on the snorm16 grid with `snorm16`) and measures them as a float clip against the source at
 * the caller's tolerances (x0's budgets). *result gets the clip when it meets them. */
static oroya_result pc_reduce_attempt(const oroya_pose_clip_desc *desc, const pc_ctx *x0,
                                      const oroya_pose_compress *cp, bool snorm16,
                                      oroya_clip **result, float *max_error, oroya_error *err) {
    oroya_pose_clip_desc d = *desc;
    d.compress = cp;
    oroya_pose_clip *pc = NULL;
    oroya_result res = oroya_pose_clip_create(&d, &pc, err);
    oroya_clip *reduced = NULL;
    if (res == OROYA_OK) {
        res = pc_reduced_clip(x0, pc, snorm16, &desc->allocator, &reduced, err);
    }
    oroya_pose_clip *check = NULL;
    if (res == OROYA_OK) {
        oroya_pose_clip_desc cd = *desc;
        cd.clip = reduced;
        cd.compress = NULL;
        res = oroya_pose_clip_create(&cd, &check, err);
    }
    pc_error e = {0};
    if (res == OROYA_OK) {
        res = pc_measure(x0, check, reduced, true, &e, err); /* against the source */
    }
    if (res == OROYA_OK && e.ratio <= 1.0) {
        *result = reduced;
        reduced = NULL;
        if (max_error) {
            *max_error = (float)e.max;
        }
    }
    oroya_clip_destroy(reduced);
    oroya_pose_clip_destroy(check);
    oroya_pose_clip_destroy(pc);
    return res;
}

oroya_result oroya_pose_clip_reduce(const oroya_pose_clip_desc *desc, bool snorm16_rotations,
                                    oroya_clip **out, float *max_error, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out || !desc->skeleton || !desc->clip || !desc->compress) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_clip_reduce: desc, skeleton, clip, compress and out are "
                           "required");
    }
    /* The rounding of the reduced keys (to shorts, or the float clip's own sampling) comes on
     * top of the compression's error: when the result misses the bound, compress again at a
     * tighter tolerance (0.7 times, up to 7 times). With snorm16_rotations, when that cannot
     * meet the bound (the shorts' own rounding is above it on a long chain, or the tighter
     * tolerance falls below what float sampling reaches), the rotations stay float, at the
     * caller's tolerance again (oroya_clip_rotations_snorm16 tells). */
    oroya_pose_compress cp = *desc->compress;
    float *jt = NULL;
    const uint32_t joints = desc->skeleton->joint_count;
    if (cp.joint_tolerance) {
        jt = oroya__alloc(&desc->allocator, joints * sizeof(float), 16);
        if (!jt) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_reduce: scratch");
        }
    }
    oroya_result res = check_compress(&cp, joints, err);
    pc_ctx x;
    memset(&x, 0, sizeof x);
    x.alloc = &desc->allocator;
    bool usable = true;
    if (res == OROYA_OK) {
        /* Validates the clip (the float clip is built first) and gives the caller's bound. */
        oroya_pose_clip *flt = NULL;
        oroya_pose_clip_desc fd = *desc;
        fd.compress = NULL;
        res = oroya_pose_clip_create(&fd, &flt, err);
        oroya_pose_clip_destroy(flt);
    }
    if (res == OROYA_OK) {
        res = pc_init(&x, desc, &usable, err);
    }
    oroya_clip *result = NULL;
    for (int phase = snorm16_rotations ? 0 : 1; res == OROYA_OK && !result && phase < 2; phase++) {
        cp.tolerance = desc->compress->tolerance;
        if (jt) {
            memcpy(jt, desc->compress->joint_tolerance, joints * sizeof(float));
            cp.joint_tolerance = jt;
        }
        for (int attempt = 0; res == OROYA_OK && attempt < 8 && !result; attempt++) {
            res = pc_reduce_attempt(desc, &x, &cp, phase == 0, &result, max_error, err);
            if (res == OROYA_ERR_INVALID_ARGUMENT && attempt > 0) {
                /* A tighter tolerance than float sampling reaches: this phase is over. */
                res = OROYA_OK;
                break;
            }
            cp.tolerance *= 0.7f;
            for (uint32_t j = 0; jt && j < joints; j++) {
                jt[j] *= 0.7f;
            }
        }
    }
    pc_free(&x);
    oroya__free(&desc->allocator, jt);
    if (res == OROYA_OK && !result) {
        res = cp.joint_tolerance
                  ? oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                                "compress.joint_tolerance: the reduced keys miss the bound even "
                                "at tighter tolerances and with float rotations")
                  : oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                                "compress.tolerance: the reduced keys miss the bound of %g scene "
                                "units even at tighter tolerances and with float rotations",
                                (double)desc->compress->tolerance);
    }
    *out = result;
    return res;
}
