/* Tests of the pose layer against an independent naive reference: per joint, AoS, in double,
 * sampling through oroya_track_sample (the plain reference sampler), blending with
 * three.js's PropertyMixer/slerpFlat formulas written out here, and world matrices as plain
 * parent * local products. Also, on the benchmark's 67-joint character (bench/bench_character.h,
 * whose walk test_bench_character checks against three.js): zero allocations per frame with a
 * counting allocator,
 * bit-identical results across thread counts and batch sizes, and the validity tables. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/pose.h"
#include "oroya/track.h"
#include "oroya_test.h"
#include "internal/pose.h"

#include "bench_character.h"

/* ---- counting allocator ------------------------------------------------------------------ */

typedef struct counter {
    long allocs, frees;
    long fail_at; /* fail the Nth allocation (1-based), 0 = never */
} counter;

static void *count_alloc(size_t size, size_t align, void *user) {
    counter *c = user;
    c->allocs++;
    if (c->fail_at && c->allocs == c->fail_at) {
        return NULL;
    }
    if (align < 16) {
        align = 16;
    }
    size_t rounded = (size + align - 1) & ~(align - 1);
    return aligned_alloc(align, rounded ? rounded : align);
}
static void count_free(void *p, void *user) {
    counter *c = user;
    if (p) {
        c->frees++;
    }
    free(p);
}

/* ---- the naive reference ------------------------------------------------------------------- */

typedef struct dq {
    double x, y, z, w;
} dq;

/* three.js Quaternion.slerpFlat (0.187), double. */
static dq ref_slerp(dq a, dq b, double t) {
    if (a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w) {
        return a;
    }
    double d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    if (d < 0) {
        b.x = -b.x, b.y = -b.y, b.z = -b.z, b.w = -b.w, d = -d;
    }
    double s = 1 - t;
    dq r;
    if (d < 0.9995) {
        double th = acos(d), sn = sin(th);
        double cs = sin(s * th) / sn, ct = sin(t * th) / sn;
        r = (dq){a.x * cs + b.x * ct, a.y * cs + b.y * ct, a.z * cs + b.z * ct,
                 a.w * cs + b.w * ct};
    } else {
        r = (dq){a.x * s + b.x * t, a.y * s + b.y * t, a.z * s + b.z * t, a.w * s + b.w * t};
        double l = sqrt(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w);
        r.x /= l, r.y /= l, r.z /= l, r.w /= l;
    }
    return r;
}

static dq ref_mul(dq a, dq b) {
    return (dq){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z,
                a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

typedef struct ref_layer {
    const oroya_clip *clip;
    const uint32_t *track_of; /* joint * 3 + channel -> track or UINT32_MAX */
    uint32_t *cursors;        /* per track */
    double time, weight;
    bool additive;
} ref_layer;

typedef struct ref_pose {
    double t[3], s[3];
    dq q;
} ref_pose;

/* One joint of one frame, three.js PropertyMixer order: normal layers, rest fill, additive. */
static ref_pose ref_joint(const oroya_transform *rest, uint32_t joint, ref_layer *layers,
                          uint32_t layer_count) {
    ref_pose out;
    const double rv[3][4] = {
        {rest->translation.x, rest->translation.y, rest->translation.z, 0},
        {rest->rotation.x, rest->rotation.y, rest->rotation.z, rest->rotation.w},
        {rest->scale.x, rest->scale.y, rest->scale.z, 0}};
    for (int ch = 0; ch < 3; ch++) {
        double acc[4] = {0, 0, 0, 0}, wsum = 0;
        for (uint32_t i = 0; i < layer_count; i++) {
            ref_layer *ly = &layers[i];
            uint32_t tr = ly->track_of[joint * 3 + (uint32_t)ch];
            if (ly->additive || !(ly->weight > 0) || tr == UINT32_MAX) {
                continue;
            }
            float v[4] = {0, 0, 0, 0};
            oroya_track_sample(&ly->clip->tracks[tr], ly->time, &ly->cursors[tr], NULL, v);
            if (wsum == 0) {
                for (int e = 0; e < 4; e++) {
                    acc[e] = v[e];
                }
                wsum = ly->weight;
                continue;
            }
            wsum += ly->weight;
            double f = ly->weight / wsum;
            if (ch == 1) {
                dq r = ref_slerp((dq){acc[0], acc[1], acc[2], acc[3]}, (dq){v[0], v[1], v[2], v[3]},
                                 f);
                acc[0] = r.x, acc[1] = r.y, acc[2] = r.z, acc[3] = r.w;
            } else {
                for (int e = 0; e < 3; e++) {
                    acc[e] = acc[e] * (1 - f) + v[e] * f;
                }
            }
        }
        if (wsum == 0) {
            memcpy(acc, rv[ch], sizeof acc);
        } else if (wsum < 1) {
            if (ch == 1) {
                dq r = ref_slerp((dq){acc[0], acc[1], acc[2], acc[3]},
                                 (dq){rv[1][0], rv[1][1], rv[1][2], rv[1][3]}, 1 - wsum);
                acc[0] = r.x, acc[1] = r.y, acc[2] = r.z, acc[3] = r.w;
            } else {
                for (int e = 0; e < 3; e++) {
                    acc[e] = acc[e] * wsum + rv[ch][e] * (1 - wsum);
                }
            }
        }
        for (uint32_t i = 0; i < layer_count; i++) {
            ref_layer *ly = &layers[i];
            uint32_t tr = ly->track_of[joint * 3 + (uint32_t)ch];
            if (!ly->additive || !(ly->weight > 0) || tr == UINT32_MAX) {
                continue;
            }
            float v[4] = {0, 0, 0, 0};
            oroya_track_sample(&ly->clip->tracks[tr], ly->time, &ly->cursors[tr], NULL, v);
            if (ch == 1) {
                /* makeClipAdditive against the rest pose: delta = rest^-1 * key. */
                dq inv = {-rv[1][0], -rv[1][1], -rv[1][2], rv[1][3]};
                dq d = ref_mul(inv, (dq){v[0], v[1], v[2], v[3]});
                d = ref_slerp((dq){0, 0, 0, 1}, d, ly->weight);
                dq r = ref_mul((dq){acc[0], acc[1], acc[2], acc[3]}, d);
                acc[0] = r.x, acc[1] = r.y, acc[2] = r.z, acc[3] = r.w;
            } else {
                for (int e = 0; e < 3; e++) {
                    acc[e] += (v[e] - rv[ch][e]) * ly->weight;
                }
            }
        }
        if (ch == 0) {
            memcpy(out.t, acc, sizeof out.t);
        } else if (ch == 1) {
            out.q = (dq){acc[0], acc[1], acc[2], acc[3]};
        } else {
            memcpy(out.s, acc, sizeof out.s);
        }
    }
    return out;
}

/* Column-major compose of T * R * S, double. */
static void ref_compose(const ref_pose *p, double m[16]) {
    const dq q = p->q;
    double x2 = q.x + q.x, y2 = q.y + q.y, z2 = q.z + q.z;
    double xx = q.x * x2, xy = q.x * y2, xz = q.x * z2, yy = q.y * y2, yz = q.y * z2;
    double zz = q.z * z2, wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
    double r[16] = {(1 - (yy + zz)) * p->s[0],
                    (xy + wz) * p->s[0],
                    (xz - wy) * p->s[0],
                    0,
                    (xy - wz) * p->s[1],
                    (1 - (xx + zz)) * p->s[1],
                    (yz + wx) * p->s[1],
                    0,
                    (xz + wy) * p->s[2],
                    (yz - wx) * p->s[2],
                    (1 - (xx + yy)) * p->s[2],
                    0,
                    p->t[0],
                    p->t[1],
                    p->t[2],
                    1};
    memcpy(m, r, sizeof r);
}

static void ref_matmul(const double a[16], const double b[16], double out[16]) {
    double r[16];
    for (int c = 0; c < 4; c++) {
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) {
                s += a[k * 4 + row] * b[c * 4 + k];
            }
            r[c * 4 + row] = s;
        }
    }
    memcpy(out, r, sizeof r);
}

/* ---- a random skeleton and clips --------------------------------------------------------- */

/* Not a multiple of 4, so padding lanes get exercised, and 5 blocks: an odd count, so the
 * AVX2 kernel's last step has a lone block. */
enum { RJ = 19 };

static oroya_quat rand_quat(void) {
    oroya_quat q = {ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
    float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return (oroya_quat){q.x / l, q.y / l, q.z / l, q.w / l};
}

typedef struct rig {
    uint32_t parents[RJ];
    oroya_transform rest[RJ];
    oroya_mat4 ibm[RJ];
    char names[RJ][8];
    const char *name_ptrs[RJ];
} rig;

static void make_rig(rig *r) {
    for (uint32_t j = 0; j < RJ; j++) {
        r->parents[j] = j == 0 || j == 7 ? UINT32_MAX : (uint32_t)(ot_randf(0, 1) * (float)j);
        if (r->parents[j] != UINT32_MAX && r->parents[j] >= j) {
            r->parents[j] = j - 1;
        }
        r->rest[j].translation = (oroya_vec3){ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
        r->rest[j].rotation = rand_quat();
        r->rest[j].scale =
            (oroya_vec3){ot_randf(0.8f, 1.2f), ot_randf(0.8f, 1.2f), ot_randf(0.8f, 1.2f)};
        r->ibm[j] =
            oroya_mat4_compose((oroya_vec3){ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)},
                               rand_quat(), (oroya_vec3){1, 1, 1});
        snprintf(r->names[j], sizeof r->names[j], "j%u", j);
        r->name_ptrs[j] = r->names[j];
    }
}

/* Storage for a random clip's tracks. */
typedef struct rclip {
    oroya_track tracks[RJ * 3];
    float times[RJ * 3][40];
    float values[RJ * 3][40 * 12];
    uint32_t count;
} rclip;

/* Random tracks on ~2/3 of the joint channels: all interpolations, 1..30 keys, rotations
 * whose neighbours may be far apart (so the whole slerp range is used). */
/* shared: every track has the same 12 key times and is LINEAR or STEP, as glTF exporters
 * write clips (one input accessor); the pose layer then samples whole blocks at once. */
static oroya_clip *make_clip(rclip *rc, const rig *r, bool smooth_rot, bool shared,
                             bool shared_cubic) {
    rc->count = 0;
    float shared_times[12];
    for (int k = 0; k < 12; k++) {
        shared_times[k] = (float)k / 7.0f - 0.1f;
    }
    for (uint32_t j = 0; j < RJ; j++) {
        for (int ch = 0; ch < 3; ch++) {
            if (ot_randf(0, 1) < 0.33f) {
                continue;
            }
            uint32_t i = rc->count++;
            oroya_track *t = &rc->tracks[i];
            memset(t, 0, sizeof *t);
            t->target = r->name_ptrs[j];
            t->property = ch == 0   ? OROYA_PROPERTY_TRANSLATION
                          : ch == 1 ? OROYA_PROPERTY_ROTATION
                                    : OROYA_PROPERTY_SCALE;
            t->components = ch == 1 ? 4 : 3;
            float pick = ot_randf(0, 1);
            t->interpolation = pick < 0.2f   ? OROYA_INTERP_STEP
                               : pick < 0.6f ? OROYA_INTERP_LINEAR
                                             : OROYA_INTERP_CUBICSPLINE;
            if (smooth_rot && ch == 1 && pick > 0.9f) {
                t->interpolation = OROYA_INTERP_SMOOTH;
            }
            t->key_count = ot_randf(0, 1) < 0.1f ? 1 : 2 + (uint32_t)ot_randf(0, 28);
            if (shared) {
                t->key_count = 12;
                /* With shared_cubic, cubic tracks stay: uniform blocks with cubic lanes. */
                if (t->interpolation != OROYA_INTERP_STEP &&
                    !(shared_cubic && t->interpolation == OROYA_INTERP_CUBICSPLINE)) {
                    t->interpolation = OROYA_INTERP_LINEAR;
                }
            }
            float time = ot_randf(-0.2f, 0.3f);
            const uint32_t per =
                t->components * (t->interpolation == OROYA_INTERP_CUBICSPLINE ? 3 : 1);
            oroya_quat prev = rand_quat();
            for (uint32_t k = 0; k < t->key_count; k++) {
                rc->times[i][k] = shared ? shared_times[k] : time;
                time += ot_randf(0.01f, 0.2f);
                float *v = &rc->values[i][k * per];
                for (uint32_t part = 0; part < per / t->components; part++) {
                    float *p = v + part * t->components;
                    const bool is_value = per == t->components || part == 1;
                    if (ch == 1 && is_value) {
                        /* Mostly close to the previous key, sometimes anywhere. */
                        oroya_quat q = rand_quat();
                        if (ot_randf(0, 1) < 0.7f) {
                            q = oroya_quat_normalize(
                                (oroya_quat){prev.x + 0.1f * q.x, prev.y + 0.1f * q.y,
                                             prev.z + 0.1f * q.z, prev.w + 0.1f * q.w});
                        }
                        prev = q;
                        p[0] = q.x, p[1] = q.y, p[2] = q.z, p[3] = q.w;
                    } else {
                        float scale = is_value ? 1.0f : 0.3f;
                        for (uint32_t e = 0; e < t->components; e++) {
                            p[e] = ot_randf(-1, 1) * scale + (ch == 2 && is_value ? 1.5f : 0);
                        }
                    }
                }
            }
            t->times = rc->times[i];
            t->values = rc->values[i];
        }
    }
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    oroya_clip_desc d = {.name = "random", .tracks = rc->tracks, .track_count = rc->count};
    if (oroya_clip_create(&d, &clip, &err) != OROYA_OK) {
        fprintf(stderr, "make_clip: %s\n", err.message);
    }
    return clip;
}

static void track_map(const oroya_clip *clip, uint32_t *track_of) {
    for (uint32_t i = 0; i < RJ * 3; i++) {
        track_of[i] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *t = &clip->tracks[i];
        uint32_t j = (uint32_t)atoi(t->target + 1);
        uint32_t ch = t->property == OROYA_PROPERTY_TRANSLATION ? 0
                      : t->property == OROYA_PROPERTY_ROTATION  ? 1
                                                                : 2;
        track_of[j * 3 + ch] = i;
    }
}

static double local_diff(const oroya_soa_transform *blocks, uint32_t j, const ref_pose *p) {
    const oroya_soa_transform *b = &blocks[j / 4];
    const uint32_t l = j % 4;
    double d = 0;
    d = fmax(d, fabs(b->tx[l] - p->t[0]));
    d = fmax(d, fabs(b->ty[l] - p->t[1]));
    d = fmax(d, fabs(b->tz[l] - p->t[2]));
    d = fmax(d, fabs(b->sx[l] - p->s[0]));
    d = fmax(d, fabs(b->sy[l] - p->s[1]));
    d = fmax(d, fabs(b->sz[l] - p->s[2]));
    /* q and -q are the same rotation; slerpFlat's hemisphere pick can differ on a tie. */
    double dp = fmax(fmax(fabs(b->qx[l] - p->q.x), fabs(b->qy[l] - p->q.y)),
                     fmax(fabs(b->qz[l] - p->q.z), fabs(b->qw[l] - p->q.w)));
    double dn = fmax(fmax(fabs(b->qx[l] + p->q.x), fabs(b->qy[l] + p->q.y)),
                     fmax(fabs(b->qz[l] + p->q.z), fabs(b->qw[l] + p->q.w)));
    return fmax(d, fmin(dp, dn));
}

/* Runs frames on the pose layer and on the reference, and compares locals, models, bones. */
static void compare_frames(const rig *r, oroya_pose_skeleton *skel, const oroya_clip **clips,
                           oroya_pose_clip **pclips, const bool *additive, uint32_t layer_count,
                           const float *times, uint32_t frame_count, const float *weights) {
    oroya_pose_character *c = NULL;
    oroya_error err = {0};
    OT_CHECK(
        oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel, .max_layers = 4},
                                    &c, &err) == OROYA_OK);
    uint32_t maps[4][RJ * 3];
    uint32_t cursors[4][RJ * 3];
    memset(cursors, 0, sizeof cursors);
    ref_layer rl[4];
    for (uint32_t i = 0; i < layer_count; i++) {
        track_map(clips[i], maps[i]);
        rl[i] = (ref_layer){clips[i], maps[i], cursors[i], 0, weights[i], additive[i]};
    }
    /* A twin on the baseline kernel: it must give the same bits as the best one. */
    oroya_pose_character *twin = NULL;
    OT_CHECK(
        oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel, .max_layers = 4},
                                    &twin, &err) == OROYA_OK);
    uint32_t kernel_mismatches = 0;
    double worst_local = 0, worst_model = 0, worst_bone = 0;
    for (uint32_t f = 0; f < frame_count; f++) {
        oroya_pose_layer layers[4];
        for (uint32_t i = 0; i < layer_count; i++) {
            /* Each layer at its own time offset. */
            float t = times[f] * (1.0f + 0.25f * (float)i) + 0.05f * (float)i;
            layers[i] = (oroya_pose_layer){pclips[i], t, weights[i]};
            rl[i].time = t;
        }
        OT_CHECK(oroya_pose_character_update(c, layers, layer_count, &err) == OROYA_OK);
        oroya__pose_run_update(twin, layers, layer_count, 1);
        const size_t blocks = (RJ + 3) / 4;
        if (memcmp(oroya_pose_character_locals(c), oroya_pose_character_locals(twin),
                   blocks * sizeof(oroya_soa_transform)) ||
            memcmp(oroya_pose_character_models(c), oroya_pose_character_models(twin),
                   RJ * sizeof(oroya_mat4)) ||
            memcmp(oroya_pose_character_bones(c), oroya_pose_character_bones(twin),
                   RJ * sizeof(oroya_mat4))) {
            kernel_mismatches++;
        }
        const oroya_soa_transform *loc = oroya_pose_character_locals(c);
        const oroya_mat4 *models = oroya_pose_character_models(c);
        const oroya_mat4 *bones = oroya_pose_character_bones(c);
        double world[RJ][16];
        for (uint32_t j = 0; j < RJ; j++) {
            ref_pose p = ref_joint(&r->rest[j], j, rl, layer_count);
            double d = local_diff(loc, j, &p);
            if (d > worst_local) {
                worst_local = d;
            }
            double m[16];
            ref_compose(&p, m);
            if (r->parents[j] == UINT32_MAX) {
                memcpy(world[j], m, sizeof m);
            } else {
                ref_matmul(world[r->parents[j]], m, world[j]);
            }
            double ib[16], bone[16];
            for (int e = 0; e < 16; e++) {
                ib[e] = r->ibm[j].m[e];
            }
            ref_matmul(world[j], ib, bone);
            /* Relative to the matrix's size: random scales compound down the chains. */
            double mag_m = 1, mag_b = 1;
            for (int e = 0; e < 16; e++) {
                mag_m = fmax(mag_m, fabs(world[j][e]));
                mag_b = fmax(mag_b, fabs(bone[e]));
            }
            for (int e = 0; e < 16; e++) {
                worst_model = fmax(worst_model, fabs(models[j].m[e] - world[j][e]) / mag_m);
                worst_bone = fmax(worst_bone, fabs(bones[j].m[e] - bone[e]) / mag_b);
            }
        }
    }
    OT_CHECK_MSG(kernel_mismatches == 0, "%u of %u frames differ between kernels",
                 kernel_mismatches, frame_count);
    OT_CHECK_MSG(worst_local <= 1e-6, "locals differ by %g", worst_local);
    /* Matrices, relative to their largest element: float products down chains of up to 23
     * joints, each adding a few float roundings of the locals' 1e-6-level differences. */
    OT_CHECK_MSG(worst_model <= 1e-5, "models differ by %g (relative)", worst_model);
    OT_CHECK_MSG(worst_bone <= 1e-5, "bones differ by %g (relative)", worst_bone);
    if (getenv("POSE_DEBUG")) {
        fprintf(stderr, "layers %u: local %g model %g bone %g\n", layer_count, worst_local,
                worst_model, worst_bone);
    }
    oroya_pose_character_destroy(c);
    oroya_pose_character_destroy(twin);
}

static void times_sequence(float *times, uint32_t n) {
    /* Forward playback, then jumps back and far beyond both ends, then keys hit exactly. */
    for (uint32_t f = 0; f < n; f++) {
        if (f < n / 2) {
            times[f] = -0.4f + 0.013f * (float)f;
        } else if (f % 3 == 0) {
            times[f] = ot_randf(-1, 8);
        } else if (f % 3 == 1) {
            times[f] = ot_randf(-0.3f, 3);
        } else {
            times[f] = 1e6f;
        }
    }
}

static void test_random_against_reference(void) {
    for (int round = 0; round < 6; round++) {
        rig r;
        make_rig(&r);
        oroya_error err = {0};
        oroya_pose_skeleton *skel = NULL;
        OT_CHECK(oroya_pose_skeleton_create(&(oroya_pose_skeleton_desc){.joint_count = RJ,
                                                                        .parents = r.parents,
                                                                        .rest = r.rest,
                                                                        .inverse_bind = r.ibm,
                                                                        .names = r.name_ptrs},
                                            &skel, &err) == OROYA_OK);
        static rclip rc[3];
        const oroya_clip *clips[3];
        oroya_pose_clip *pclips[3] = {NULL, NULL, NULL};
        const bool additive[3] = {false, false, round % 2 == 1};
        for (int i = 0; i < 3; i++) {
            /* Rounds 2 and 3: clips with shared key times (uniform blocks). */
            clips[i] = make_clip(&rc[i], &r, true, round == 2 || round == 3, round == 3);
            OT_CHECK(clips[i] != NULL);
            OT_CHECK(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel,
                                                                    .clip = clips[i],
                                                                    .additive = additive[i]},
                                            &pclips[i], &err) == OROYA_OK);
            /* Coverage: shared key times put animated blocks on the uniform path; random ones
             * leave most on the general path. */
            uint32_t uniform = 0, uniform_cubic = 0, general = 0;
            for (uint32_t k = 0; pclips[i] && k < (RJ + 3) / 4 * 3; k++) {
                const oroya__pose_lanes *ln = &pclips[i]->lanes[k];
                uniform += ln->any && ln->uniform;
                uniform_cubic += ln->any && ln->uniform && ln->any_cubic;
                general += ln->any && !ln->uniform;
            }
            OT_CHECK(round == 2 || round == 3 ? uniform > 0 : general > 0);
            if (round == 2 || round == 3) {
                /* Round 3 keeps cubic tracks: uniform blocks with cubic lanes. */
                OT_CHECK(round == 3 ? uniform_cubic > 0 : uniform_cubic == 0);
            }
        }
        float times[200];
        times_sequence(times, 200);
        /* Weights: one layer; two summing to 1; two summing below 1 (rest fills); with an
         * additive layer at full, partial and exaggerated weight. */
        const float w1[3] = {1, 0, 0}, w2[3] = {0.6f, 0.4f, 0}, w3[3] = {0.3f, 0.25f, 0},
                    w4[3] = {0.6f, 0.4f, 1}, w5[3] = {0.7f, 0.7f, 0.35f};
        compare_frames(&r, skel, clips, pclips, additive, 1, times, 200, w1);
        compare_frames(&r, skel, clips, pclips, additive, 2, times, 200, w2);
        compare_frames(&r, skel, clips, pclips, additive, 2, times, 200, w3);
        compare_frames(&r, skel, clips, pclips, additive, 3, times, 200, w4);
        compare_frames(&r, skel, clips, pclips, additive, 3, times, 200, w5);
        /* An exaggerated additive layer (weight above 1: slerp extrapolates; larger weights
         * amplify float sampling errors past this test's tolerance, see
         * test_additive_weight_above_one). */
        const float w6[3] = {0.6f, 0.4f, 1.5f};
        compare_frames(&r, skel, clips, pclips, additive, 3, times, 200, w6);
        for (int i = 0; i < 3; i++) {
            oroya_pose_clip_destroy(pclips[i]);
            oroya_clip_destroy((oroya_clip *)clips[i]);
        }
        oroya_pose_skeleton_destroy(skel);
    }
}

/* No layer: the rest pose; its model matrices are plain rest products. */
static void test_rest_pose(void) {
    rig r;
    make_rig(&r);
    oroya_pose_skeleton *skel = NULL;
    oroya_pose_character *c = NULL;
    OT_CHECK(
        oroya_pose_skeleton_create(
            &(oroya_pose_skeleton_desc){.joint_count = RJ, .parents = r.parents, .rest = r.rest},
            &skel, NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c,
                                         NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_character_update(c, NULL, 0, NULL) == OROYA_OK);
    const oroya_mat4 *m = oroya_pose_character_models(c);
    const oroya_mat4 *b = oroya_pose_character_bones(c);
    /* The header promises cache-line aligned outputs (the skinning kernels rely on it). */
    OT_CHECK(((uintptr_t)m & 63) == 0 && ((uintptr_t)b & 63) == 0 &&
             ((uintptr_t)oroya_pose_character_locals(c) & 63) == 0);
    oroya_mat4 world[RJ];
    double worst = 0;
    for (uint32_t j = 0; j < RJ; j++) {
        oroya_mat4 l =
            oroya_mat4_compose(r.rest[j].translation, r.rest[j].rotation, r.rest[j].scale);
        world[j] = r.parents[j] == UINT32_MAX ? l : oroya_mat4_mul(world[r.parents[j]], l);
        for (int e = 0; e < 16; e++) {
            worst = fmax(worst, fabs(m[j].m[e] - world[j].m[e]));
            /* No inverse binds given: bones are the model matrices. */
            worst = fmax(worst, fabs(b[j].m[e] - world[j].m[e]));
        }
    }
    OT_CHECK_MSG(worst <= 2e-5, "rest world differs by %g", worst);
    /* The padding lanes of the last block hold the identity. */
    const oroya_soa_transform *rest = oroya_pose_skeleton_rest(skel);
    OT_CHECK(rest[RJ / 4].qw[3] == 1.0f && rest[RJ / 4].sx[3] == 1.0f && rest[RJ / 4].tx[3] == 0);
    /* The job on its own, with the caller's buffers on the stack (the SoA type carries its
     * alignment) and a root matrix: root * the rest world matrices. */
    _Static_assert(_Alignof(oroya_soa_transform) == 16, "oroya_soa_transform is 16-aligned");
    oroya_soa_transform locals[(RJ + 3) / 4];
    oroya_mat4 models[RJ];
    memcpy(locals, rest, sizeof locals);
    const oroya_mat4 root = oroya_mat4_compose(
        (oroya_vec3){1, -2, 3}, oroya_quat_normalize((oroya_quat){0.1f, 0.7f, 0, 0.7f}),
        (oroya_vec3){2, 2, 2});
    OT_EQ_INT(oroya_pose_local_to_model(skel, locals, &root, models, NULL), OROYA_OK);
    double worst_root = 0;
    for (uint32_t j = 0; j < RJ; j++) {
        const oroya_mat4 want = oroya_mat4_mul(root, world[j]);
        for (int e = 0; e < 16; e++) {
            worst_root = fmax(worst_root, fabs(models[j].m[e] - want.m[e]));
        }
    }
    OT_CHECK_MSG(worst_root <= 1e-4, "rooted world differs by %g", worst_root);
    /* A root with a NaN or infinite element is refused and nothing is written (the guard
     * held the roots at it: every model matrix came out with NaN or inf, with NON_FINITE). */
    for (int e = 0; e < 16; e += 5) {
        for (int v = 0; v < 2; v++) {
            oroya_mat4 bad = root;
            bad.m[e] = v ? INFINITY : NAN;
            oroya_mat4 kept[RJ];
            memcpy(kept, models, sizeof kept);
            OT_EQ_INT(oroya_pose_local_to_model(skel, locals, &bad, models, NULL),
                      OROYA_ERR_INVALID_ARGUMENT);
            OT_CHECK(!memcmp(kept, models, sizeof kept));
        }
    }
    oroya_pose_character_destroy(c);
    oroya_pose_skeleton_destroy(skel);
}

/* Exact key values at key times (bit for bit for LINEAR/STEP, as oroya_track_sample). */
static void test_key_times_exact(void) {
    static const float times[] = {0, 0.5f, 1};
    static const float rot[] = {0, 0,           0, 1,           0, 0.38268343f,
                                0, 0.92387953f, 0, 0.70710677f, 0, 0.70710677f};
    static const float tr[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    uint32_t parents[1] = {UINT32_MAX};
    const char *names[1] = {"a"};
    oroya_track tracks[2] = {{.target = "a",
                              .property = OROYA_PROPERTY_ROTATION,
                              .interpolation = OROYA_INTERP_LINEAR,
                              .components = 4,
                              .key_count = 3,
                              .times = times,
                              .values = rot},
                             {.target = "a",
                              .property = OROYA_PROPERTY_TRANSLATION,
                              .interpolation = OROYA_INTERP_STEP,
                              .components = 3,
                              .key_count = 3,
                              .times = times,
                              .values = tr}};
    oroya_clip *clip = NULL;
    oroya_pose_skeleton *skel = NULL;
    oroya_pose_clip *pc = NULL;
    oroya_pose_character *c = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = tracks, .track_count = 2}, &clip,
                               NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){.joint_count = 1, .parents = parents, .names = names},
                 &skel, NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel, .clip = clip}, &pc,
                                    NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c,
                                         NULL) == OROYA_OK);
    const float at[] = {0, 0.5f, 1, 0.5f, 0, 2};
    const int key[] = {0, 1, 2, 1, 0, 2};
    for (int i = 0; i < 6; i++) {
        oroya_pose_layer l = {pc, at[i], 1};
        OT_CHECK(oroya_pose_character_update(c, &l, 1, NULL) == OROYA_OK);
        const oroya_soa_transform *b = oroya_pose_character_locals(c);
        OT_CHECK(b->qy[0] == rot[key[i] * 4 + 1] && b->qw[0] == rot[key[i] * 4 + 3]);
        OT_CHECK(b->tx[0] == tr[key[i] * 3] && b->tz[0] == tr[key[i] * 3 + 2]);
    }
    /* STEP between keys holds the earlier key. */
    oroya_pose_layer l = {pc, 0.75f, 1};
    OT_CHECK(oroya_pose_character_update(c, &l, 1, NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_character_locals(c)->tx[0] == 4.0f);
    /* Halfway between 0 and 45 degrees about y: 22.5 degrees (hand value). */
    l.time = 0.25f;
    OT_CHECK(oroya_pose_character_update(c, &l, 1, NULL) == OROYA_OK);
    OT_NEAR(oroya_pose_character_locals(c)->qy[0], sin(3.14159265358979323846 / 16), 1e-7);
    OT_NEAR(oroya_pose_character_locals(c)->qw[0], cos(3.14159265358979323846 / 16), 1e-7);
    oroya_pose_character_destroy(c);
    oroya_pose_clip_destroy(pc);
    oroya_pose_skeleton_destroy(skel);
    oroya_clip_destroy(clip);
}

/* Two rotation keys about a half turn apart (dot product ~1e-8): oroya_track_sample decides
 * the arc by the sign of the dot product in double (three.js's slerpFlat), the kernel in float,
 * whose rounding gave the other sign for about a third of such pairs, and the kernel then
 * turned the other way round (180 degrees off mid-interval). Pairs of float keys with a dot
 * product of either sign at that scale, three keys a track, on a uniform block (shared key
 * times) and a per-lane block (different times), on both kernels: every sample within 2e-6
 * of oroya_track_sample, as rotations. */
static void test_half_turn_arc_matches_track_sample(void) {
    enum { J = 8, K = 3, TRIALS = 40 };
    uint32_t parents[J];
    const char *names[J] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    for (uint32_t j = 0; j < J; j++) {
        parents[j] = j ? j - 1 : UINT32_MAX;
    }
    oroya_pose_skeleton *skel = NULL;
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){.joint_count = J, .parents = parents, .names = names},
                 &skel, NULL) == OROYA_OK);
    static const float t_shared[K] = {0, 1, 2}, t_other[K] = {0, 1, 2.5f};
    double worst = 0;
    int near_zero = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        float values[J][K * 4];
        oroya_track tracks[J];
        for (uint32_t j = 0; j < J; j++) {
            /* Key k + 1 is key k's random companion made orthogonal to it in double. */
            oroya_quat q0 = rand_quat();
            double prev[4] = {q0.x, q0.y, q0.z, q0.w};
            for (int k = 0; k < K; k++) {
                if (k > 0) {
                    oroya_quat r = rand_quat();
                    double c[4] = {r.x, r.y, r.z, r.w}, d = 0, len = 0;
                    for (int e = 0; e < 4; e++) {
                        d += c[e] * prev[e];
                    }
                    for (int e = 0; e < 4; e++) {
                        c[e] -= d * prev[e];
                        len += c[e] * c[e];
                    }
                    for (int e = 0; e < 4; e++) {
                        prev[e] = c[e] / sqrt(len);
                    }
                }
                for (int e = 0; e < 4; e++) {
                    values[j][k * 4 + e] = (float)prev[e];
                    prev[e] = values[j][k * 4 + e];
                }
                if (k > 0) {
                    const float *a = &values[j][(k - 1) * 4], *b = &values[j][k * 4];
                    const double dd = (double)a[0] * b[0] + (double)a[1] * b[1] +
                                      (double)a[2] * b[2] + (double)a[3] * b[3];
                    near_zero += fabs(dd) < 1e-6;
                }
            }
            tracks[j] = (oroya_track){.target = names[j],
                                      .property = OROYA_PROPERTY_ROTATION,
                                      .interpolation = OROYA_INTERP_LINEAR,
                                      .components = 4,
                                      .key_count = K,
                                      .times = j < 4 || j % 2 ? t_shared : t_other,
                                      .values = values[j]};
        }
        oroya_clip *clip = NULL;
        oroya_pose_clip *pc = NULL;
        oroya_pose_character *c = NULL;
        OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = tracks, .track_count = J}, &clip,
                                   NULL) == OROYA_OK);
        OT_CHECK(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel, .clip = clip},
                                        &pc, NULL) == OROYA_OK);
        OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c,
                                             NULL) == OROYA_OK);
        for (int kernel = 0; kernel < 2; kernel++) { /* the best, SSE2 */
            for (int i = 0; i <= 20; i++) {
                const float t = 2.5f * (float)i / 20.0f;
                oroya_pose_layer l = {pc, t, 1};
                oroya__pose_run_update(c, &l, 1, kernel);
                const oroya_soa_transform *lo = oroya_pose_character_locals(c);
                for (uint32_t j = 0; j < J; j++) {
                    float ref[4];
                    oroya_track_sample(&clip->tracks[j], t, NULL, NULL, ref);
                    const uint32_t b = j / 4, ln = j % 4;
                    const float got[4] = {lo[b].qx[ln], lo[b].qy[ln], lo[b].qz[ln], lo[b].qw[ln]};
                    double plus = 0, minus = 0;
                    for (int e = 0; e < 4; e++) {
                        plus = fmax(plus, fabs((double)got[e] - ref[e]));
                        minus = fmax(minus, fabs((double)got[e] + ref[e]));
                    }
                    worst = fmax(worst, fmin(plus, minus));
                }
            }
        }
        oroya_pose_character_destroy(c);
        oroya_pose_clip_destroy(pc);
        oroya_clip_destroy(clip);
    }
    OT_CHECK(near_zero == TRIALS * J * (K - 1));
    OT_NEAR(worst, 0, 2e-6);
    oroya_pose_skeleton_destroy(skel);
}

/* ---- allocations and determinism ------------------------------------------------------------ */

typedef struct crowd {
    oroya_allocator allocator;
    bench_character as;
    oroya_pose_clip *walk, *run, *wave;
    oroya_pose_character *chars[37];
    oroya_pose_layer layers[37][3];
    oroya_pose_update updates[37];
} crowd;

/* strict: every step must succeed (checked); otherwise failures are expected (fault
 * injection) and only reported through the return value. */
static bool crowd_make(crowd *cw, const oroya_allocator *a, bool strict) {
    oroya_error err = {0};
    memset(cw, 0, sizeof *cw);
    cw->allocator = *a;
    /* The character comes from malloc, so that allocation failures hit the pose layer's
     * create calls (test_bench_character injects them into the character's build). */
    if (bench_character_create(NULL, &cw->as, &err) != OROYA_OK) {
        OT_CHECK_MSG(0, "%s", err.message);
        return false;
    }
    bool ok = true;
    oroya_pose_clip_desc d = {.skeleton = cw->as.pose_skeleton, .allocator = *a};
    d.clip = bench_character_clip(&cw->as, "walk");
    ok = ok && oroya_pose_clip_create(&d, &cw->walk, &err) == OROYA_OK;
    d.clip = bench_character_clip(&cw->as, "run");
    ok = ok && oroya_pose_clip_create(&d, &cw->run, &err) == OROYA_OK;
    d.clip = bench_character_clip(&cw->as, "wave");
    d.additive = true;
    ok = ok && oroya_pose_clip_create(&d, &cw->wave, &err) == OROYA_OK;
    for (int i = 0; i < 37 && ok; i++) {
        ok = oroya_pose_character_create(
                 &(oroya_pose_character_desc){.skeleton = cw->as.pose_skeleton, .allocator = *a},
                 &cw->chars[i], &err) == OROYA_OK;
        cw->updates[i] = (oroya_pose_update){cw->chars[i], cw->layers[i], 3};
    }
    if (strict) {
        OT_CHECK_MSG(ok, "%s", err.message);
    } else if (!ok) {
        OT_CHECK(err.result == OROYA_ERR_OUT_OF_MEMORY);
    }
    return ok;
}

static void crowd_frame(crowd *cw, int frame) {
    for (int i = 0; i < 37; i++) {
        float t = (float)frame / 60.0f + 0.031f * (float)i;
        cw->layers[i][0] = (oroya_pose_layer){cw->walk, fmodf(t, 1.2f), 0.6f};
        cw->layers[i][1] = (oroya_pose_layer){cw->run, fmodf(t, 0.7f), 0.4f};
        cw->layers[i][2] = (oroya_pose_layer){cw->wave, fmodf(t, 2.0f), i % 2 ? 1.0f : 0.5f};
    }
}

static void crowd_free(crowd *cw) {
    for (int i = 0; i < 37; i++) {
        oroya_pose_character_destroy(cw->chars[i]);
    }
    oroya_pose_clip_destroy(cw->walk);
    oroya_pose_clip_destroy(cw->run);
    oroya_pose_clip_destroy(cw->wave);
    bench_character_free(&cw->as);
}

static void test_zero_allocations_per_frame(void) {
    counter cnt = {0};
    oroya_allocator a = {count_alloc, count_free, &cnt};
    crowd cw;
    if (!crowd_make(&cw, &a, true)) {
        crowd_free(&cw);
        return;
    }
    oroya_thread_pool *pool = NULL;
    OT_CHECK(oroya_thread_pool_create(&(oroya_thread_pool_desc){.thread_count = 2, .allocator = a},
                                      &pool, NULL) == OROYA_OK);
    const long before = cnt.allocs;
    OT_CHECK(before > 0); /* everything above went through the counting allocator */
    oroya_scheduler s = {oroya_thread_pool_parallel_for, pool};
    for (int f = 0; f < 300; f++) {
        crowd_frame(&cw, f);
        OT_CHECK(oroya_pose_update_batch(cw.updates, 37, f % 2 ? &s : NULL, NULL) == OROYA_OK);
        oroya_pose_character_update(cw.chars[0], cw.layers[0], 3, NULL);
    }
    /* Skinning too. */
    static float pos[3 * 64], nor[3 * 64], w[4 * 64], op[3 * 64], on[3 * 64];
    static uint16_t jn[4 * 64];
    for (int i = 0; i < 64 * 4; i++) {
        w[i] = 0.25f;
        jn[i] = (uint16_t)(i % 67);
    }
    for (int i = 0; i < 64 * 3; i++) {
        pos[i] = nor[i] = 1;
    }
    oroya_pose_skin_job job = {64, pos, nor, jn, w, 67, oroya_pose_character_bones(cw.chars[0]),
                               op, on};
    OT_CHECK(oroya_pose_skin_run(&job, NULL) == OROYA_OK);
    OT_EQ_INT(cnt.allocs - before, 0);
    oroya_thread_pool_destroy(pool);
    crowd_free(&cw);
    OT_EQ_INT(cnt.allocs, cnt.frees);
}

static void test_deterministic_across_threads(void) {
    oroya_allocator a = {0};
    crowd ref, other;
    if (!crowd_make(&ref, &a, true) || !crowd_make(&other, &a, true)) {
        return;
    }
    oroya_thread_pool *pools[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        OT_CHECK(
            oroya_thread_pool_create(&(oroya_thread_pool_desc){.thread_count = (uint32_t)(i + 1)},
                                     &pools[i], NULL) == OROYA_OK);
    }
    bool same = true;
    for (int f = 0; f < 120; f++) {
        crowd_frame(&ref, f);
        crowd_frame(&other, f);
        /* Reference: one character at a time on this thread. */
        for (int i = 0; i < 37; i++) {
            oroya_pose_character_update(ref.chars[i], ref.layers[i], 3, NULL);
        }
        /* Other: batches of varying size on 1, 2 or 3 threads. */
        oroya_scheduler s = {oroya_thread_pool_parallel_for, pools[f % 3]};
        uint32_t split = (uint32_t)(f * 7) % 37;
        OT_CHECK(oroya_pose_update_batch(other.updates, split, &s, NULL) == OROYA_OK);
        OT_CHECK(oroya_pose_update_batch(other.updates + split, 37 - split, &s, NULL) == OROYA_OK);
        for (int i = 0; i < 37; i++) {
            if (memcmp(oroya_pose_character_bones(ref.chars[i]),
                       oroya_pose_character_bones(other.chars[i]), 67 * sizeof(oroya_mat4)) ||
                memcmp(oroya_pose_character_locals(ref.chars[i]),
                       oroya_pose_character_locals(other.chars[i]),
                       17 * sizeof(oroya_soa_transform))) {
                same = false;
            }
        }
    }
    OT_CHECK(same);
    for (int i = 0; i < 3; i++) {
        oroya_thread_pool_destroy(pools[i]);
    }
    crowd_free(&ref);
    crowd_free(&other);
}

/* oroya_thread_pool_parallel_for hands out [0, count) exactly once, for counts up to
 * UINT32_MAX: its shared counter counted items before and wrapped past 2^32, so a count of
 * 4.2e9 ran 12.4e9 items and UINT32_MAX practically never returned. The ranges are only
 * counted (no work per item), so the largest count costs a few dozen calls. */
typedef struct pool_tally {
    _Atomic unsigned long long items, calls, out_of_order;
    uint32_t count;
} pool_tally;

static void tally_range(void *ctx, uint32_t begin, uint32_t end) {
    pool_tally *t = ctx;
    if (!(begin < end && end <= t->count)) {
        t->out_of_order++;
    }
    t->items += end - begin;
    if (++t->calls > 100000) {
        t->out_of_order++; /* counted, not aborted: the check below reports it */
    }
}

static void test_pool_counts_up_to_max(void) {
    oroya_thread_pool *pool = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_thread_pool_create(&(oroya_thread_pool_desc){.thread_count = 2}, &pool, &err) ==
             OROYA_OK);
    const uint32_t counts[] = {1, 7, 100000, 3800000000u, 4200000000u, 4294967294u, UINT32_MAX};
    for (size_t i = 0; pool && i < sizeof counts / sizeof counts[0]; i++) {
        pool_tally t = {.count = counts[i]};
        oroya_thread_pool_parallel_for(pool, counts[i], tally_range, &t);
        OT_CHECK_MSG(t.items == counts[i] && t.out_of_order == 0,
                     "count %u: %llu items in %llu ranges, %llu out of range", counts[i], t.items,
                     t.calls, t.out_of_order);
    }
    oroya_thread_pool_destroy(pool);
}

/* The SSE2 kernel and the AVX2-encoded one (when the CPU has AVX2; otherwise both calls run
 * SSE2) give bit-identical poses, which keeps crowds deterministic across machines. */
static void test_kernels_bit_identical(void) {
    oroya_allocator a = {0};
    crowd x, y;
    if (!crowd_make(&x, &a, true) || !crowd_make(&y, &a, true)) {
        return;
    }
    bool same = true;
    for (int f = 0; f < 90; f++) {
        crowd_frame(&x, f);
        crowd_frame(&y, f);
        for (int i = 0; i < 37; i++) {
            oroya__pose_run_update(x.chars[i], x.layers[i], 3, 0);
            oroya__pose_run_update(y.chars[i], y.layers[i], 3, 1);
            same = same && !memcmp(oroya_pose_character_bones(x.chars[i]),
                                   oroya_pose_character_bones(y.chars[i]), 67 * sizeof(oroya_mat4));
            same = same && !memcmp(oroya_pose_character_locals(x.chars[i]),
                                   oroya_pose_character_locals(y.chars[i]),
                                   17 * sizeof(oroya_soa_transform));
        }
    }
    OT_CHECK(same);
    crowd_free(&x);
    crowd_free(&y);
}

/* A -0 translation stays -0 through a second layer that animates only the neighbouring block
 * (the AVX2 kernel takes both blocks in one step; lanes a layer does not animate must not be
 * touched, or -0 + 0 turns into +0 on one kernel only). Normal and additive second layers;
 * joint 0 is expected at -0 on both kernels, as the single-layer sample says. */
static void test_kernels_signed_zero(void) {
    uint32_t parents[8] = {UINT32_MAX, 0, 1, 2, 3, 4, 5, 6};
    const char *names[8] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    oroya_pose_skeleton *skel = NULL;
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){.joint_count = 8, .parents = parents, .names = names},
                 &skel, NULL) == OROYA_OK);
    static const float times[2] = {0, 1};
    static const float negz[6] = {-0.0f, 0, 0, -0.0f, 0, 0};
    static const float one[6] = {1, 0, 0, 1, 0, 0};
    oroya_track t1 = {.target = "a",
                      .property = OROYA_PROPERTY_TRANSLATION,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 3,
                      .key_count = 2,
                      .times = times,
                      .values = negz};
    oroya_track t2 = {.target = "e",
                      .property = OROYA_PROPERTY_TRANSLATION,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 3,
                      .key_count = 2,
                      .times = times,
                      .values = one};
    oroya_clip *c1 = NULL, *c2 = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = &t1, .track_count = 1}, &c1, NULL) ==
             OROYA_OK);
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = &t2, .track_count = 1}, &c2, NULL) ==
             OROYA_OK);
    for (int additive = 0; additive < 2 && c1 && c2; additive++) {
        oroya_pose_clip *p1 = NULL, *p2 = NULL;
        oroya_pose_character *x = NULL, *y = NULL;
        OT_CHECK(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel, .clip = c1}, &p1,
                                        NULL) == OROYA_OK);
        OT_CHECK(
            oroya_pose_clip_create(
                &(oroya_pose_clip_desc){.skeleton = skel, .clip = c2, .additive = additive != 0},
                &p2, NULL) == OROYA_OK);
        OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &x,
                                             NULL) == OROYA_OK);
        OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &y,
                                             NULL) == OROYA_OK);
        if (p1 && p2 && x && y) {
            oroya_pose_layer layers[2] = {{p1, 0.5f, 1}, {p2, 0.5f, 1}};
            oroya__pose_run_update(x, layers, 2, 0);
            oroya__pose_run_update(y, layers, 2, 1);
            const float a = oroya_pose_character_locals(x)[0].tx[0];
            const float b = oroya_pose_character_locals(y)[0].tx[0];
            OT_CHECK_MSG(a == 0 && signbit(a) && b == 0 && signbit(b),
                         "%s: joint 0 tx %g (sign %d) / %g (sign %d), expected -0",
                         additive ? "additive" : "normal", (double)a, signbit(a) != 0, (double)b,
                         signbit(b) != 0);
            OT_CHECK(!memcmp(oroya_pose_character_locals(x), oroya_pose_character_locals(y),
                             2 * sizeof(oroya_soa_transform)));
        }
        oroya_pose_character_destroy(x);
        oroya_pose_character_destroy(y);
        oroya_pose_clip_destroy(p1);
        oroya_pose_clip_destroy(p2);
    }
    oroya_clip_destroy(c1);
    oroya_clip_destroy(c2);
    oroya_pose_skeleton_destroy(skel);
}

/* A skeleton of one joint "a" at the identity rest. */
static oroya_pose_skeleton *one_joint_skeleton(void) {
    uint32_t parents[1] = {UINT32_MAX};
    const char *names[1] = {"a"};
    oroya_pose_skeleton *skel = NULL;
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){.joint_count = 1, .parents = parents, .names = names},
                  &skel, NULL),
              OROYA_OK);
    return skel;
}

/* An additive rotation weighted above 1 extrapolates along the great circle, as three.js's
 * slerpFlat(identity, delta, w) does (this file's ref_slerp, in double, on the float key);
 * with the key's half angle h that is about a rotation by 2 w h. Both kernels, deltas up to
 * 170 degrees, weights up to 16. Extrapolation amplifies the float rounding of its input
 * (the sampled key comes out of the float slerp renormalized, within an ulp) by about
 * w / sin(h), so the bound is 2e-7 * w / sin(h) + 1e-7: 5e-7 at w = 2 and 170 degrees,
 * 2e-5 at w = 16 and 20 degrees. */
static void test_additive_weight_above_one(void) {
    oroya_pose_skeleton *skel = one_joint_skeleton();
    double worst = 0; /* error / bound */
    for (int deg = 20; deg <= 170; deg += 30) {
        const double half = deg * 3.14159265358979323846 / 360;
        const float times[1] = {0};
        const float key[4] = {(float)sin(half), 0, 0, (float)cos(half)};
        oroya_track t = {.target = "a",
                         .property = OROYA_PROPERTY_ROTATION,
                         .interpolation = OROYA_INTERP_LINEAR,
                         .components = 4,
                         .key_count = 1,
                         .times = times,
                         .values = key};
        oroya_clip *clip = NULL;
        oroya_pose_clip *pc = NULL;
        oroya_pose_character *c = NULL;
        OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip,
                                   NULL) == OROYA_OK);
        OT_CHECK(oroya_pose_clip_create(
                     &(oroya_pose_clip_desc){.skeleton = skel, .clip = clip, .additive = true}, &pc,
                     NULL) == OROYA_OK);
        OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c,
                                             NULL) == OROYA_OK);
        for (float w = 2; w <= 16 && pc && c; w *= 2) {
            const dq want = ref_slerp((dq){0, 0, 0, 1}, (dq){key[0], key[1], key[2], key[3]}, w);
            /* Sanity of the reference itself: close to the rotation by 2 w h. */
            const double h = atan2((double)key[0], (double)key[3]);
            OT_CHECK(fabs(want.x - sin(w * h)) < 1e-4 && fabs(want.w - cos(w * h)) < 1e-4);
            for (int kernel = 0; kernel < 2; kernel++) {
                oroya_pose_layer layer = {pc, 0, w};
                oroya__pose_run_update(c, &layer, 1, kernel);
                const oroya_soa_transform *l = oroya_pose_character_locals(c);
                const double d = fmax(fmax(fabs(l->qx[0] - want.x), fabs(l->qw[0] - want.w)),
                                      fmax(fabs(l->qy[0] - want.y), fabs(l->qz[0] - want.z)));
                worst = fmax(worst, d / (2e-7 * w / sin(h) + 1e-7));
            }
        }
        oroya_pose_character_destroy(c);
        oroya_pose_clip_destroy(pc);
        oroya_clip_destroy(clip);
    }
    OT_CHECK_MSG(worst <= 1, "additive rotation at weight > 1 off by %g of the bound", worst);
    oroya_pose_skeleton_destroy(skel);
}

/* An unnormalized rest rotation: deltas are taken against the normalized rest (as
 * makeClipAdditive's referenceQuat.normalize().conjugate(); sampling renormalizes rotation
 * keys as well), so with a rest of 2 q0 and a key q1 the delta is q0^-1 q1 and at weight 1
 * the pose is the rest as given times it: 2 q1, not 4 q1 or q1. */
static void test_additive_unnormalized_rest(void) {
    uint32_t parents[1] = {UINT32_MAX};
    const char *names[1] = {"a"};
    const oroya_quat q0 = oroya_quat_normalize((oroya_quat){0.3f, -0.2f, 0.5f, 0.8f});
    const oroya_quat q1 = oroya_quat_normalize((oroya_quat){-0.1f, 0.6f, 0.2f, 0.7f});
    const oroya_transform rest = {{0, 0, 0}, {2 * q0.x, 2 * q0.y, 2 * q0.z, 2 * q0.w}, {1, 1, 1}};
    oroya_pose_skeleton *skel = NULL;
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){
                     .joint_count = 1, .parents = parents, .rest = &rest, .names = names},
                 &skel, NULL) == OROYA_OK);
    const float times[1] = {0};
    const float key[4] = {q1.x, q1.y, q1.z, q1.w};
    oroya_track t = {.target = "a",
                     .property = OROYA_PROPERTY_ROTATION,
                     .interpolation = OROYA_INTERP_LINEAR,
                     .components = 4,
                     .key_count = 1,
                     .times = times,
                     .values = key};
    oroya_clip *clip = NULL;
    oroya_pose_clip *pc = NULL;
    oroya_pose_character *c = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, NULL) ==
             OROYA_OK);
    OT_CHECK(oroya_pose_clip_create(
                 &(oroya_pose_clip_desc){.skeleton = skel, .clip = clip, .additive = true}, &pc,
                 NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c,
                                         NULL) == OROYA_OK);
    if (pc && c) {
        oroya_pose_layer layer = {pc, 0, 1};
        OT_CHECK(oroya_pose_character_update(c, &layer, 1, NULL) == OROYA_OK);
        const oroya_soa_transform *l = oroya_pose_character_locals(c);
        const double d = fmax(fmax(fabs(l->qx[0] - 2.0 * q1.x), fabs(l->qy[0] - 2.0 * q1.y)),
                              fmax(fabs(l->qz[0] - 2.0 * q1.z), fabs(l->qw[0] - 2.0 * q1.w)));
        OT_CHECK_MSG(d <= 2e-6, "rest 2 q0, key q1: pose off 2 q1 by %g", d);
    }
    oroya_pose_character_destroy(c);
    oroya_pose_clip_destroy(pc);
    oroya_clip_destroy(clip);
    oroya_pose_skeleton_destroy(skel);
}

/* Every allocation failure of every create call is reported, and nothing leaks. */
static void test_allocation_failures(void) {
    for (long n = 1; n < 64; n++) {
        counter cnt = {0, 0, n};
        oroya_allocator a = {count_alloc, count_free, &cnt};
        crowd cw;
        bool ok = crowd_make(&cw, &a, false);
        (void)ok;
        crowd_free(&cw);
        OT_EQ_INT(cnt.allocs - (cnt.fail_at <= cnt.allocs ? 1 : 0), cnt.frees);
        if (cnt.allocs < n) {
            break;
        }
    }
}

/* ---- validity tables --------------------------------------------------------------------------- */

static void test_validity(void) {
    oroya_error err = {0};
    oroya_pose_skeleton *skel = NULL;
    uint32_t parents[3] = {UINT32_MAX, 0, 1};
    uint32_t bad_parents[3] = {UINT32_MAX, 2, 1};
    const char *names[3] = {"a", "b", "c"};
    OT_EQ_INT(oroya_pose_skeleton_create(NULL, &skel, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(
        oroya_pose_skeleton_create(&(oroya_pose_skeleton_desc){.joint_count = 3}, &skel, &err),
        OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(
        oroya_pose_skeleton_create(&(oroya_pose_skeleton_desc){.parents = parents}, &skel, &err),
        OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){.joint_count = OROYA_POSE_MAX_JOINTS + 1,
                                              .parents = parents},
                  &skel, &err),
              OROYA_ERR_LIMIT);
    OT_EQ_INT(
        oroya_pose_skeleton_create(
            &(oroya_pose_skeleton_desc){.joint_count = 3, .parents = bad_parents}, &skel, &err),
        OROYA_ERR_INVALID_DATA);
    OT_CHECK(strstr(err.message, "joints[1]") != NULL);
    oroya_transform rest[3] = {{{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}},
                               {{NAN, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}},
                               {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}}};
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){.joint_count = 3, .parents = parents, .rest = rest},
                  &skel, &err),
              OROYA_ERR_NON_FINITE);
    OT_CHECK(skel == NULL);
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){.joint_count = 3, .parents = parents, .names = names},
                  &skel, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_pose_skeleton_find(skel, "c"), 2);
    OT_EQ_INT(oroya_pose_skeleton_find(skel, "zz"), UINT32_MAX);

    /* Clips. */
    static const float times[] = {0, 1};
    static const float v3[] = {0, 0, 0, 1, 1, 1};
    oroya_track tr[3] = {{.target = "b",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = 2,
                          .times = times,
                          .values = v3},
                         {.target = "b",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_STEP,
                          .components = 3,
                          .key_count = 2,
                          .times = times,
                          .values = v3},
                         {.target = "nobody",
                          .property = OROYA_PROPERTY_SCALE,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .components = 3,
                          .key_count = 2,
                          .times = times,
                          .values = v3}};
    oroya_clip *dup = NULL, *smooth = NULL, *ok = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = tr, .track_count = 2}, &dup, NULL) ==
             OROYA_OK);
    oroya_track st = tr[0];
    st.interpolation = OROYA_INTERP_SMOOTH;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = &st, .track_count = 1}, &smooth,
                               NULL) == OROYA_OK);
    oroya_track okt[2] = {tr[0], tr[2]};
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = okt, .track_count = 2}, &ok, NULL) ==
             OROYA_OK);
    oroya_pose_clip *pc = NULL;
    OT_EQ_INT(oroya_pose_clip_create(NULL, &pc, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel}, &pc, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(
        oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel, .clip = dup}, &pc, &err),
        OROYA_ERR_INVALID_DATA);
    OT_CHECK(strstr(err.message, "tracks[1]") != NULL);
    OT_EQ_INT(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel, .clip = smooth}, &pc,
                                     &err),
              OROYA_ERR_UNSUPPORTED);
    const uint32_t tj_bad[2] = {1, 5};
    OT_EQ_INT(oroya_pose_clip_create(
                  &(oroya_pose_clip_desc){.skeleton = skel, .clip = ok, .track_joints = tj_bad},
                  &pc, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(
        oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel, .clip = ok}, &pc, &err),
        OROYA_OK);
    OT_EQ_INT(oroya_pose_clip_ignored_tracks(pc), 1);

    /* Characters and updates. */
    oroya_pose_character *c = NULL;
    OT_EQ_INT(oroya_pose_character_create(NULL, &c, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_pose_character_create(
                  &(oroya_pose_character_desc){.skeleton = skel, .max_layers = 99}, &c, &err),
              OROYA_ERR_LIMIT);
    OT_EQ_INT(oroya_pose_character_create(
                  &(oroya_pose_character_desc){.skeleton = skel, .max_layers = 2}, &c, &err),
              OROYA_OK);
    oroya_pose_layer l3[3] = {{pc, 0, 1}, {pc, 0, 1}, {pc, 0, 1}};
    OT_EQ_INT(oroya_pose_character_update(NULL, l3, 1, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_pose_character_update(c, NULL, 1, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_pose_character_update(c, l3, 3, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_pose_layer nan_time = {pc, NAN, 1};
    OT_EQ_INT(oroya_pose_character_update(c, &nan_time, 1, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_pose_layer inf_w = {pc, 0, INFINITY};
    OT_EQ_INT(oroya_pose_character_update(c, &inf_w, 1, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_pose_layer nan_w = {pc, 0.5f, NAN}; /* skipped: the rest pose */
    OT_EQ_INT(oroya_pose_character_update(c, &nan_w, 1, &err), OROYA_OK);
    OT_CHECK(oroya_pose_character_locals(c)->tx[1] == 0.0f);
    oroya_pose_layer half = {pc, 0.5f, 1};
    OT_EQ_INT(oroya_pose_character_update(c, &half, 1, &err), OROYA_OK);
    OT_CHECK(oroya_pose_character_locals(c)->tx[1] == 0.5f);

    /* A clip of another skeleton. */
    oroya_pose_skeleton *skel2 = NULL;
    oroya_pose_clip *pc2 = NULL;
    OT_CHECK(oroya_pose_skeleton_create(
                 &(oroya_pose_skeleton_desc){.joint_count = 3, .parents = parents, .names = names},
                 &skel2, NULL) == OROYA_OK);
    OT_CHECK(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel2, .clip = ok}, &pc2,
                                    NULL) == OROYA_OK);
    oroya_pose_layer other = {pc2, 0, 1};
    OT_EQ_INT(oroya_pose_character_update(c, &other, 1, &err), OROYA_ERR_INVALID_ARGUMENT);
    /* A single update names the call, not an updates array it does not have. */
    OT_CHECK_MSG(!strcmp(err.message, "oroya_pose_character_update: layers[0]: the clip was built "
                                      "for another skeleton"),
                 "%s", err.message);
    oroya_pose_update ups[2] = {{c, &half, 1}, {c, &other, 1}};
    OT_EQ_INT(oroya_pose_update_batch(ups, 2, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(!strcmp(err.message, "updates[1].layers[0]: the clip was built for another "
                                      "skeleton"),
                 "%s", err.message);
    OT_EQ_INT(oroya_pose_update_batch(NULL, 2, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    /* A character given twice (each update valid): refused before anything is updated (it
     * was updated twice, on two threads at once with a scheduler); the next batch with it
     * once goes through. */
    OT_EQ_INT(oroya_pose_character_update(c, &nan_w, 1, &err), OROYA_OK);
    OT_CHECK(oroya_pose_character_locals(c)->tx[1] == 0.0f);
    oroya_pose_update twice[3] = {{c, &half, 1}, {c, &half, 1}, {c, &half, 1}};
    OT_EQ_INT(oroya_pose_update_batch(twice, 3, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(!strcmp(err.message, "updates[1]: the character of updates[0] again (each "
                                      "character may appear once in a batch); nothing was "
                                      "updated"),
                 "%s", err.message);
    OT_CHECK(oroya_pose_character_locals(c)->tx[1] == 0.0f);
    OT_EQ_INT(oroya_pose_update_batch(twice, 1, NULL, &err), OROYA_OK);
    OT_CHECK(oroya_pose_character_locals(c)->tx[1] == 0.5f);
    OT_EQ_INT(oroya_pose_local_to_model(NULL, NULL, NULL, NULL, NULL), OROYA_ERR_INVALID_ARGUMENT);
    oroya_thread_pool *pool = NULL;
    OT_EQ_INT(oroya_thread_pool_create(NULL, &pool, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_thread_pool_create(&(oroya_thread_pool_desc){.thread_count = 65}, &pool, &err),
              OROYA_ERR_LIMIT);

    oroya_pose_clip_destroy(pc2);
    oroya_pose_skeleton_destroy(skel2);
    oroya_pose_character_destroy(c);
    oroya_pose_clip_destroy(pc);
    oroya_clip_destroy(dup);
    oroya_clip_destroy(smooth);
    oroya_clip_destroy(ok);
    oroya_pose_skeleton_destroy(skel);
    oroya_pose_skeleton_destroy(NULL);
    oroya_pose_clip_destroy(NULL);
    oroya_pose_character_destroy(NULL);
    oroya_thread_pool_destroy(NULL);
}

/* Matrices float cannot hold: a chain of five joints each scaled by 1e10 (finite, valid rest
 * transforms) has model scales 1e10, 1e20, 1e30, then 1e40. Joints 3 and 4 are held at joint
 * 2's model matrix (the identity local matrix, as oroya_scene_update_world holds nodes), so
 * every model and bone matrix is finite and the count names them. A bone matrix whose model
 * is finite but whose product with the inverse bind matrix is not (1e30 x 1e10) becomes the
 * identity. Before, the character and oroya_pose_local_to_model gave inf and NaN with OK. */
static void test_non_finite_held(void) {
    enum { N = 5 };
    const uint32_t parents[N] = {UINT32_MAX, 0, 1, 2, 3};
    oroya_transform rest[N];
    for (int i = 0; i < N; i++) {
        rest[i] = oroya_transform_identity();
        rest[i].scale = (oroya_vec3){1e10f, 1e10f, 1e10f};
        rest[i].translation = (oroya_vec3){0, i ? 1.0f : 0.0f, 0};
    }
    oroya_pose_skeleton *skel = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){.joint_count = N, .parents = parents, .rest = rest},
                  &skel, &err),
              OROYA_OK);
    oroya_pose_character *c = NULL;
    OT_EQ_INT(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c, &err),
              OROYA_OK);
    /* Before the first update the matrices are the rest pose's, held the same way, and the
     * count says so (it read 0). */
    uint32_t first = 0;
    OT_EQ_INT(oroya_pose_character_non_finite_count(c, &first), 2);
    OT_EQ_INT(first, 3);
    OT_EQ_INT(oroya_pose_character_update(c, NULL, 0, &err), OROYA_OK);
    const oroya_mat4 *models = oroya_pose_character_models(c);
    const oroya_mat4 *bones = oroya_pose_character_bones(c);
    OT_CHECK(ot_all_finite(models[0].m, N * 16) && ot_all_finite(bones[0].m, N * 16));
    first = 0;
    OT_EQ_INT(oroya_pose_character_non_finite_count(c, &first), 2);
    OT_EQ_INT(first, 3);
    OT_CHECK(models[2].m[0] == 1e30f);
    OT_CHECK(!memcmp(&models[3], &models[2], sizeof models[2]));
    OT_CHECK(!memcmp(&models[4], &models[2], sizeof models[2]));
    OT_CHECK(!memcmp(&bones[4], &models[4], sizeof bones[4])); /* identity inverse binds */
    /* The job on its own: the same matrices, and NON_FINITE. */
    oroya_mat4 jm[N], jb[N];
    OT_EQ_INT(oroya_pose_local_to_model(skel, oroya_pose_character_locals(c), NULL, jm, jb),
              OROYA_ERR_NON_FINITE);
    OT_CHECK(!memcmp(jm, models, sizeof jm) && !memcmp(jb, bones, sizeof jb));
    oroya_pose_character_destroy(c);
    oroya_pose_skeleton_destroy(skel);

    /* Three joints (models finite up to 1e30), joint 2's inverse bind scaled by 1e10: its
     * bone matrix is the identity, its model matrix kept. */
    oroya_mat4 ibm[3] = {oroya_mat4_identity(), oroya_mat4_identity(), oroya_mat4_identity()};
    ibm[2].m[0] = ibm[2].m[5] = ibm[2].m[10] = 1e10f;
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){
                      .joint_count = 3, .parents = parents, .rest = rest, .inverse_bind = ibm},
                  &skel, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_pose_character_update(c, NULL, 0, &err), OROYA_OK);
    models = oroya_pose_character_models(c);
    bones = oroya_pose_character_bones(c);
    OT_EQ_INT(oroya_pose_character_non_finite_count(c, &first), 1);
    OT_EQ_INT(first, 2);
    OT_CHECK(models[2].m[0] == 1e30f);
    const oroya_mat4 id = oroya_mat4_identity();
    OT_CHECK(!memcmp(&bones[2], &id, sizeof id));
    OT_CHECK(bones[1].m[0] == 1e20f);
    oroya_pose_character_destroy(c);
    oroya_pose_skeleton_destroy(skel);

    /* A normal pose: nothing held. */
    OT_EQ_INT(oroya_pose_skeleton_create(
                  &(oroya_pose_skeleton_desc){.joint_count = N, .parents = parents}, &skel, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_pose_character_update(c, NULL, 0, &err), OROYA_OK);
    first = 0;
    OT_EQ_INT(oroya_pose_character_non_finite_count(c, &first), 0);
    OT_EQ_INT(first, UINT32_MAX);
    oroya_pose_character_destroy(c);
    oroya_pose_skeleton_destroy(skel);
}

/* Layer weights are bounded (OROYA_POSE_MAX_WEIGHT, the mixer's OROYA_MAX_WEIGHT): an additive
 * layer of weight 3e38 gave inf local translations and scales, and of weight 1e20 a local
 * rotation 0.85 long, with OROYA_OK (the model matrices were held, the locals were not). Now
 * INVALID_ARGUMENT naming the layer, the outputs unchanged; the bound itself is taken. */
static void test_layer_weight_bounded(void) {
    oroya_pose_skeleton *skel = one_joint_skeleton();
    oroya_error err = {0};
    const float times[1] = {0};
    const float tv[3] = {2, 0, 0}, rv[4] = {0, 0.14943813f, 0, 0.98877108f}, sv[3] = {3, 1, 1};
    oroya_track tracks[3] = {
        {.target = "a", .property = OROYA_PROPERTY_TRANSLATION, .components = 3},
        {.target = "a", .property = OROYA_PROPERTY_ROTATION, .components = 4},
        {.target = "a", .property = OROYA_PROPERTY_SCALE, .components = 3},
    };
    const float *values[3] = {tv, rv, sv};
    for (int i = 0; i < 3; i++) {
        tracks[i].interpolation = OROYA_INTERP_LINEAR;
        tracks[i].key_count = 1;
        tracks[i].times = times;
        tracks[i].values = values[i];
    }
    oroya_clip *clip = NULL;
    OT_EQ_INT(
        oroya_clip_create(&(oroya_clip_desc){.tracks = tracks, .track_count = 3}, &clip, &err),
        OROYA_OK);
    oroya_pose_clip *pc = NULL;
    OT_EQ_INT(
        oroya_pose_clip_create(
            &(oroya_pose_clip_desc){.skeleton = skel, .clip = clip, .additive = true}, &pc, &err),
        OROYA_OK);
    oroya_pose_character *c = NULL;
    OT_EQ_INT(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c, &err),
              OROYA_OK);
    oroya_soa_transform before;
    memcpy(&before, oroya_pose_character_locals(c), sizeof before);
    const float bad[3] = {3e38f, 1e20f, 2e6f};
    for (int i = 0; i < 3; i++) {
        oroya_pose_layer layers[2] = {{NULL, 0, 0}, {pc, 0, bad[i]}};
        memset(&err, 0, sizeof err);
        OT_EQ_INT(oroya_pose_character_update(c, layers, 2, &err), OROYA_ERR_INVALID_ARGUMENT);
        OT_CHECK_MSG(strstr(err.message, "layers[1]") &&
                         strstr(err.message, "OROYA_POSE_MAX_WEIGHT"),
                     "%s", err.message);
        OT_CHECK(!memcmp(&before, oroya_pose_character_locals(c), sizeof before));
        oroya_pose_update up = {c, layers, 2};
        memset(&err, 0, sizeof err);
        OT_EQ_INT(oroya_pose_update_batch(&up, 1, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
        OT_CHECK_MSG(strstr(err.message, "updates[0].layers[1]") != NULL, "%s", err.message);
    }
    /* At the bound: accepted, and every local finite with a unit rotation. */
    oroya_pose_layer layer = {pc, 0, OROYA_POSE_MAX_WEIGHT};
    OT_EQ_INT(oroya_pose_character_update(c, &layer, 1, &err), OROYA_OK);
    const oroya_soa_transform *l = oroya_pose_character_locals(c);
    OT_CHECK(ot_all_finite(l->tx, sizeof *l / sizeof(float)));
    const double len = sqrt((double)l->qx[0] * l->qx[0] + (double)l->qy[0] * l->qy[0] +
                            (double)l->qz[0] * l->qz[0] + (double)l->qw[0] * l->qw[0]);
    OT_NEAR(len, 1.0, 1e-6);
    oroya_pose_character_destroy(c);
    oroya_pose_clip_destroy(pc);
    oroya_clip_destroy(clip);
    oroya_pose_skeleton_destroy(skel);
}

/* A CUBICSPLINE rotation whose tangents times the key gap reach past float (tangents of 1 over
 * a gap of 1e30, or 1e20 over 1e10: valid tracks, which oroya_track_sample samples in double):
 * the kernel's float Hermite and normalization gave a zero rotation (not counted as held) or a
 * NaN one, with OROYA_OK. oroya_pose_clip_create now refuses such a track with LIMIT naming it
 * and its keys (the compressed path too, which builds the float clip first); a curve within
 * the bound still samples as oroya_track_sample does. */
static void test_cubic_rotation_past_float(void) {
    oroya_pose_skeleton *skel = one_joint_skeleton();
    oroya_error err = {0};
    const struct {
        float gap, tangent;
        bool ok;
    } cases[] = {{1e30f, 1, false}, {1e10f, 1e20f, false}, {1, 1e30f, false}, {1e10f, 1, true}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const float times[2] = {0, cases[c].gap}, m = cases[c].tangent;
        const float values[24] = {0, 0, 0, 0, 0, 0,    0, 1,    m, 0, 0, 0,
                                  0, m, 0, 0, 0, 0.6f, 0, 0.8f, 0, 0, 0, 0};
        const oroya_track t = {.target = "a",
                               .property = OROYA_PROPERTY_ROTATION,
                               .interpolation = OROYA_INTERP_CUBICSPLINE,
                               .components = 4,
                               .key_count = 2,
                               .times = times,
                               .values = values};
        oroya_clip *clip = NULL;
        OT_EQ_INT(
            oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, &err),
            OROYA_OK);
        oroya_pose_clip *pc = NULL;
        memset(&err, 0, sizeof err);
        const oroya_result r = oroya_pose_clip_create(
            &(oroya_pose_clip_desc){.skeleton = skel, .clip = clip}, &pc, &err);
        if (!cases[c].ok) {
            OT_EQ_INT(r, OROYA_ERR_LIMIT);
            OT_CHECK(pc == NULL);
            OT_CHECK_MSG(strstr(err.message, "tracks[0]") && strstr(err.message, "keys 0-1"), "%s",
                         err.message);
            const oroya_pose_compress cmp = {.tolerance = 1e-2f};
            OT_EQ_INT(oroya_pose_clip_create(
                          &(oroya_pose_clip_desc){.skeleton = skel, .clip = clip, .compress = &cmp},
                          &pc, &err),
                      OROYA_ERR_LIMIT);
            oroya_clip_destroy(clip);
            continue;
        }
        OT_EQ_INT(r, OROYA_OK);
        oroya_pose_character *ch = NULL;
        OT_EQ_INT(
            oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &ch, &err),
            OROYA_OK);
        const oroya_pose_layer layer = {pc, 0.3f * cases[c].gap, 1};
        OT_EQ_INT(oroya_pose_character_update(ch, &layer, 1, &err), OROYA_OK);
        const oroya_soa_transform *l = oroya_pose_character_locals(ch);
        float want[4];
        oroya_track_sample(&clip->tracks[0], layer.time, NULL, NULL, want);
        OT_NEAR(l->qx[0], want[0], 1e-6);
        OT_NEAR(l->qy[0], want[1], 1e-6);
        OT_NEAR(l->qz[0], want[2], 1e-6);
        OT_NEAR(l->qw[0], want[3], 1e-6);
        oroya_pose_character_destroy(ch);
        oroya_pose_clip_destroy(pc);
        oroya_clip_destroy(clip);
    }
    oroya_pose_skeleton_destroy(skel);
}

int main(void) {
    OT_RUN(test_key_times_exact);
    OT_RUN(test_half_turn_arc_matches_track_sample);
    OT_RUN(test_rest_pose);
    OT_RUN(test_random_against_reference);
    OT_RUN(test_zero_allocations_per_frame);
    OT_RUN(test_deterministic_across_threads);
    OT_RUN(test_pool_counts_up_to_max);
    OT_RUN(test_kernels_bit_identical);
    OT_RUN(test_kernels_signed_zero);
    OT_RUN(test_additive_weight_above_one);
    OT_RUN(test_additive_unnormalized_rest);
    OT_RUN(test_allocation_failures);
    OT_RUN(test_validity);
    OT_RUN(test_non_finite_held);
    OT_RUN(test_layer_weight_bounded);
    OT_RUN(test_cubic_rotation_past_float);
    return ot_finish();
}
