/* The pose layer: skeletons, the runtime clip format, sampling, blending, local-to-model.
 * See include/oroya/pose.h for the contracts and docs/performance.md for the design. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal/base.h"
#include "internal/pose.h"
#include "internal/pose_simd.h"

/* ---- allocation layout ------------------------------------------------------------------ */

static size_t take_aligned(size_t *size, size_t count, size_t elem, size_t align) {
    return oroya__take_aligned(size, count, elem, align);
}

static size_t take(size_t *size, size_t count, size_t elem) {
    return take_aligned(size, count, elem, 16);
}

static bool finite3(const float *v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return false;
        }
    }
    return true;
}

/* ---- skeleton ---------------------------------------------------------------------------- */

oroya_result oroya_pose_skeleton_create(const oroya_pose_skeleton_desc *desc,
                                        oroya_pose_skeleton **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out || !desc->parents) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_skeleton_create: desc, desc->parents and out are required");
    }
    const uint32_t n = desc->joint_count;
    if (n == 0) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_skeleton_create: joint_count is 0");
    }
    if (n > OROYA_POSE_MAX_JOINTS) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "oroya_pose_skeleton_create: %u joints, at most %u", n,
                           (unsigned)OROYA_POSE_MAX_JOINTS);
    }
    size_t names_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (desc->parents[i] != UINT32_MAX && desc->parents[i] >= i) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "joints[%u]: parent %u does not come before the joint", i,
                               desc->parents[i]);
        }
        if (desc->rest) {
            const oroya_transform *r = &desc->rest[i];
            if (!finite3(&r->translation.x, 3) || !finite3(&r->rotation.x, 4) ||
                !finite3(&r->scale.x, 3)) {
                return oroya__fail(err, OROYA_ERR_NON_FINITE,
                                   "joints[%u]: rest transform not finite", i);
            }
        }
        if (desc->inverse_bind && !finite3(desc->inverse_bind[i].m, 16)) {
            return oroya__fail(err, OROYA_ERR_NON_FINITE,
                               "joints[%u]: inverse bind matrix not finite", i);
        }
        if (desc->names) {
            names_bytes += (desc->names[i] ? strlen(desc->names[i]) : 0) + 1;
        }
        if (desc->bone_slots && desc->bone_slots[i] >= n) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "joints[%u]: bone slot %u, the skeleton has %u joints", i,
                               desc->bone_slots[i], n);
        }
    }
    const uint32_t blocks = (n + 3) / 4;
    size_t size = 0;
    size_t o_self = take(&size, 1, sizeof(oroya_pose_skeleton));
    size_t o_rest = take(&size, blocks, sizeof(oroya_soa_transform));
    size_t o_ibm = take(&size, n, sizeof(oroya_mat4));
    size_t o_par = take(&size, n, sizeof(uint32_t));
    size_t o_slots = take(&size, n, sizeof(uint32_t));
    size_t o_names = take(&size, desc->names ? n : 0, sizeof(char *));
    size_t o_chars = take(&size, names_bytes, 1);
    if (size == SIZE_MAX) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_skeleton_create: too large");
    }
    uint8_t *mem = oroya__calloc(&desc->allocator, 1, size, 16);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_skeleton_create: %zu bytes",
                           size);
    }
    oroya_pose_skeleton *s = (oroya_pose_skeleton *)(mem + o_self);
    s->allocator = desc->allocator;
    s->joint_count = n;
    s->block_count = blocks;
    s->rest = (oroya_soa_transform *)(mem + o_rest);
    s->inverse_bind = (oroya_mat4 *)(mem + o_ibm);
    s->parents = (uint32_t *)(mem + o_par);
    memcpy(s->parents, desc->parents, n * sizeof(uint32_t));
    s->bone_slots = (uint32_t *)(mem + o_slots);
    for (uint32_t j = 0; j < n; j++) {
        s->bone_slots[j] = desc->bone_slots ? desc->bone_slots[j] : j;
    }
    s->bone_slots_identity = true;
    for (uint32_t j = 0; j < n; j++) {
        s->bone_slots_identity = s->bone_slots_identity && s->bone_slots[j] == j;
    }
    if (desc->bone_slots) {
        /* A permutation: every slot taken once (flags in the inverse-bind storage, filled below). */
        uint8_t *seen = (uint8_t *)s->inverse_bind; /* n * 64 bytes >= n, filled just below */
        memset(seen, 0, n);
        for (uint32_t j = 0; j < n; j++) {
            if (seen[s->bone_slots[j]]++) {
                const uint32_t slot = s->bone_slots[j];
                oroya__free(&desc->allocator, mem);
                return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                                   "joints[%u]: bone slot %u is taken twice", j, slot);
            }
        }
    }
    for (uint32_t j = 0; j < blocks * 4; j++) {
        oroya_soa_transform *b = &s->rest[j / 4];
        const uint32_t l = j % 4;
        oroya_transform r = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        if (j < n && desc->rest) {
            r = desc->rest[j];
        }
        b->tx[l] = r.translation.x;
        b->ty[l] = r.translation.y;
        b->tz[l] = r.translation.z;
        b->qx[l] = r.rotation.x;
        b->qy[l] = r.rotation.y;
        b->qz[l] = r.rotation.z;
        b->qw[l] = r.rotation.w;
        b->sx[l] = r.scale.x;
        b->sy[l] = r.scale.y;
        b->sz[l] = r.scale.z;
    }
    for (uint32_t j = 0; j < n; j++) {
        s->inverse_bind[j] = desc->inverse_bind ? desc->inverse_bind[j] : oroya_mat4_identity();
    }
    if (desc->names) {
        s->names = (char **)(mem + o_names);
        char *p = (char *)(mem + o_chars);
        for (uint32_t j = 0; j < n; j++) {
            const char *name = desc->names[j] ? desc->names[j] : "";
            size_t len = strlen(name) + 1;
            memcpy(p, name, len);
            s->names[j] = p;
            p += len;
        }
    }
    *out = s;
    return OROYA_OK;
}

void oroya_pose_skeleton_destroy(oroya_pose_skeleton *skeleton) {
    if (skeleton) {
        oroya_allocator a = skeleton->allocator;
        oroya__free(&a, skeleton);
    }
}

uint32_t oroya_pose_skeleton_joint_count(const oroya_pose_skeleton *skeleton) {
    return skeleton ? skeleton->joint_count : 0;
}

uint32_t oroya_pose_skeleton_find(const oroya_pose_skeleton *skeleton, const char *name) {
    if (!skeleton || !skeleton->names || !name) {
        return UINT32_MAX;
    }
    for (uint32_t j = 0; j < skeleton->joint_count; j++) {
        if (!strcmp(skeleton->names[j], name)) {
            return j;
        }
    }
    return UINT32_MAX;
}

const oroya_soa_transform *oroya_pose_skeleton_rest(const oroya_pose_skeleton *skeleton) {
    return skeleton ? skeleton->rest : NULL;
}

/* ---- runtime clips ----------------------------------------------------------------------- */

static void rest_value(const oroya_pose_skeleton *s, uint32_t joint, int ch, float out[4]) {
    const oroya_soa_transform *b = &s->rest[joint / 4];
    const uint32_t l = joint % 4;
    if (ch == OROYA__CH_T) {
        out[0] = b->tx[l], out[1] = b->ty[l], out[2] = b->tz[l], out[3] = 0;
    } else if (ch == OROYA__CH_R) {
        out[0] = b->qx[l], out[1] = b->qy[l], out[2] = b->qz[l], out[3] = b->qw[l];
    } else {
        out[0] = b->sx[l], out[1] = b->sy[l], out[2] = b->sz[l], out[3] = 0;
    }
}

/* normalize(r)^-1 * q, in double, as AnimationUtils.makeClipAdditive computes it
 * (referenceQuat.normalize().conjugate(), then multiplyQuaternionsFlat), also applied to
 * cubic tangents: the Hermite curve is linear in them. */
static void quat_delta(const float r[4], float *q) {
    const double len =
        sqrt((double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2] + (double)r[3] * r[3]);
    /* Quaternion.normalize: a zero quaternion becomes the identity. */
    const double f = len > 0 ? 1 / len : 0;
    const double cx = -r[0] * f, cy = -r[1] * f, cz = -r[2] * f, cw = len > 0 ? r[3] * f : 1;
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    q[0] = (float)(cx * w + cw * x + cy * z - cz * y);
    q[1] = (float)(cy * w + cw * y + cz * x - cx * z);
    q[2] = (float)(cz * w + cw * z + cx * y - cy * x);
    q[3] = (float)(cw * w - cx * x - cy * y - cz * z);
}

void oroya__pose_quat_delta(const float r[4], float *q) { quat_delta(r, q); }

static int channel_of(oroya_property p) {
    return p == OROYA_PROPERTY_TRANSLATION ? OROYA__CH_T
           : p == OROYA_PROPERTY_ROTATION  ? OROYA__CH_R
           : p == OROYA_PROPERTY_SCALE     ? OROYA__CH_S
                                           : -1;
}

int oroya__pose_channel_of(oroya_property p) { return channel_of(p); }

/* The track whose key times every tracked lane of a (block, channel) shares, when they all
 * share them and have at least 2 keys; else NULL. Four map entries. */
static const oroya_track *shared_times_track(const oroya_clip *clip, const uint32_t *map4) {
    const oroya_track *first = NULL;
    for (uint32_t l = 0; l < 4; l++) {
        if (map4[l] == UINT32_MAX) {
            continue;
        }
        const oroya_track *t = &clip->tracks[map4[l]];
        if (t->key_count < 2) {
            return NULL;
        }
        if (!first) {
            first = t;
        } else if (t->key_count != first->key_count ||
                   memcmp(t->times, first->times, t->key_count * sizeof(float))) {
            return NULL;
        }
    }
    return first;
}

/* The time group of a track's key times: an existing group with the same times, or a new
 * one whose times are written at keys + *used. A single key becomes a constant interval that
 * ends at the next float after its time, so that from the key on the factor is 1 (or 0 at
 * the key itself) and the sample is the key bit for bit, as three.js copies a track's only
 * key (Interpolant.evaluate: afterEnd_); a lerp between two equal keys, v (1 - a) + v a, is
 * off by an ulp at most factors, and the mixer's write-back took that wobble for a change
 * and overwrote a value set from outside. src/cnt hold each group's source times, for the
 * comparison. */
static uint32_t group_for(oroya_pose_clip *c, const float **src, uint32_t *cnt,
                          const oroya_track *tr, size_t *used) {
    const uint32_t n = tr->key_count;
    uint32_t g = 1;
    while (g < c->group_count &&
           !(cnt[g] == n && !memcmp(src[g], tr->times, (size_t)n * sizeof(float)))) {
        g++;
    }
    if (g == c->group_count) {
        const uint32_t count = n < 2 ? 2 : n;
        float *t = c->keys + *used;
        const float after = nextafterf(tr->times[n - 1], INFINITY);
        for (uint32_t k = 0; k < count; k++) {
            t[k] = k < n ? tr->times[k] : isfinite(after) ? after : tr->times[n - 1];
        }
        c->groups[g] = (oroya__pose_group){(uint32_t)*used, count};
        src[g] = tr->times;
        cnt[g] = n;
        c->group_count++;
        *used += count;
    }
    return g;
}

/* q4_dot of the kernel, in the same order and float roundings (w first, then z, y, x). */
static float kernel_dot(const float a[4], const float b[4]) {
    float d = a[3] * b[3];
    d = a[2] * b[2] + d;
    d = a[1] * b[1] + d;
    return a[0] * b[0] + d;
}

/* oroya_track_sample (three.js's slerpFlat) takes the shorter arc by the sign of the two keys'
 * dot product in double; the kernel decides by its float dot product, whose rounding can give
 * the other sign when the keys are about a half turn apart (|dot| below a few 1e-7): it then
 * turns the other way round, up to 180 degrees off mid-interval. `prev_src` and `v` are two
 * consecutive keys as the source holds them, `prev` the first as stored; when the kernel's
 * sign on (prev, v) differs from the source's on (prev_src, v), v moves towards prev (away from
 * it for a negative dot) by the smallest multiple of it (2^-24, 2^-23, ...) that makes them
 * agree: about 1e-7 per component. Build time only; the kernel is unchanged. */
static void agree_arc(const float prev_src[4], const float prev[4], float v[4]) {
    const double d = (double)prev_src[0] * v[0] + (double)prev_src[1] * v[1] +
                     (double)prev_src[2] * v[2] + (double)prev_src[3] * v[3];
    const bool flip = d < 0;
    if ((kernel_dot(prev, v) < 0) == flip) {
        return;
    }
    const float s = flip ? -1.0f : 1.0f;
    for (float eps = 0x1p-24f; eps <= 0x1p-14f; eps *= 2) {
        float w[4];
        for (int e = 0; e < 4; e++) {
            w[e] = v[e] + s * eps * prev[e];
        }
        if ((kernel_dot(prev, w) < 0) == flip) {
            memcpy(v, w, sizeof w);
            return;
        }
    }
}

/* Key k of a track as a runtime value: its comps values (the value part of a cubic key),
 * made relative to the rest value `ref` for additive clips. */
static void key_value(const oroya_track *tr, uint32_t k, uint32_t comps, bool additive,
                      const float ref[4], int ch, float v[4]) {
    const bool cubic = tr->interpolation == OROYA_INTERP_CUBICSPLINE;
    const uint32_t n = tr->key_count;
    const uint32_t src = k < n ? k : n - 1;
    memcpy(v, tr->values + (size_t)src * comps * (cubic ? 3 : 1) + (cubic ? comps : 0),
           comps * sizeof(float));
    if (additive) {
        if (ch == OROYA__CH_R) {
            quat_delta(ref, v);
        } else {
            for (uint32_t e = 0; e < 3; e++) {
                v[e] -= ref[e];
            }
        }
    }
}

/* Key k of a cubic track as [in-tangent, value, out-tangent]. For additive clips the value is
 * made relative to `ref`, and so are rotation tangents (r^-1 * m: the Hermite curve is linear
 * in them); vector tangents are unchanged. */
static void cubic_key(const oroya_track *tr, uint32_t k, uint32_t comps, bool additive,
                      const float ref[4], int ch, float v[3][4]) {
    const float *src = tr->values + (size_t)k * comps * 3;
    for (uint32_t part = 0; part < 3; part++) {
        memcpy(v[part], src + part * comps, comps * sizeof(float));
        if (!additive) {
            continue;
        }
        if (ch == OROYA__CH_R) {
            quat_delta(ref, v[part]);
        } else if (part == 1) {
            for (uint32_t e = 0; e < 3; e++) {
                v[part][e] -= ref[e];
            }
        }
    }
}

/* Builds the keys of one (block, channel) at keys + *used.
 * Uniform blocks (every animated lane on the same key times; the lanes that are not animated
 * repeat their constant over those times; or no animated lane at all) store each key as comps
 * rows of 4 lanes, already SoA (3 * comps rows, in-tangent, value, out-tangent, when a lane
 * is cubic): sampling reads them as aligned vectors and needs no transpose. The others store, per lane, records [time, value] (LINEAR, STEP) or
 * [time, in, value, out] (CUBIC), and the constant lanes a 2-record constant on group 0. */
static void build_block(oroya_pose_clip *c, const oroya_clip *clip, const oroya_pose_skeleton *skel,
                        const uint32_t *map, uint32_t b, int ch, bool additive,
                        const float **group_src, uint32_t *group_cnt, size_t *used) {
    oroya__pose_lanes *lanes = &c->lanes[b * 3 + (uint32_t)ch];
    const uint32_t base = (b * 3 + (uint32_t)ch) * 4;
    const uint32_t comps = ch == OROYA__CH_R ? 4 : 3;
    float *keys = c->keys;
    float ref[4][4];
    /* Constant lanes hold the rest value (normal clips) or the identity delta. Their weight
     * is 0, so this only keeps the arithmetic finite. */
    float constant[4][4];
    for (uint32_t l = 0; l < 4; l++) {
        const uint32_t joint = b * 4 + l;
        const float identity[4] = {0, 0, 0, ch == OROYA__CH_R ? 1.0f : 0.0f};
        memcpy(ref[l], identity, sizeof ref[l]);
        if (joint < skel->joint_count) {
            rest_value(skel, joint, ch, ref[l]);
        }
        memcpy(constant[l], additive ? identity : ref[l], sizeof constant[l]);
        const uint32_t ti = map[base + l];
        if (ti == UINT32_MAX) {
            continue;
        }
        const oroya_track *tr = &clip->tracks[ti];
        lanes->any = 1;
        lanes->animated[l] = UINT32_MAX;
        if (tr->interpolation == OROYA_INTERP_STEP) {
            lanes->step[l] = UINT32_MAX;
            c->step_rotations = c->step_rotations || ch == OROYA__CH_R;
        }
        /* A single key is a constant: its tangents never apply. */
        if (tr->interpolation == OROYA_INTERP_CUBICSPLINE && tr->key_count >= 2) {
            lanes->cubic[l] = UINT32_MAX;
            lanes->any_cubic = 1;
        }
    }
    const oroya_track *shared = shared_times_track(clip, map + base);
    if (!lanes->any || shared) {
        const uint32_t g = shared ? group_for(c, group_src, group_cnt, shared, used) : 0;
        const uint32_t count = c->groups[g].count;
        /* With a cubic lane every key holds in-tangent, value and out-tangent rows; the other
         * lanes' tangents are 0 (their lanes take the lerp or slerp). */
        const uint32_t parts = lanes->any_cubic ? 3 : 1, value_part = lanes->any_cubic ? 1 : 0;
        const uint32_t stride = parts * comps * 4;
        *used = (*used + 3) & ~(size_t)3; /* 16-byte aligned rows */
        lanes->uniform = 1;
        lanes->group = g;
        lanes->stride = stride;
        for (uint32_t l = 0; l < 4; l++) {
            lanes->offset[l] = (uint32_t)*used;
            const uint32_t ti = map[base + l];
            c->channels[base + l] =
                (oroya__pose_channel){(uint32_t)*used, (uint16_t)g,
                                      (uint8_t)(lanes->cubic[l]  ? OROYA__KIND_CUBIC
                                                : lanes->step[l] ? OROYA__KIND_STEP
                                                                 : OROYA__KIND_LINEAR),
                                      0};
            const bool slerped =
                ti != UINT32_MAX && ch == OROYA__CH_R && !lanes->cubic[l] && !lanes->step[l];
            float prev_src[4] = {0, 0, 0, 1}, prev[4] = {0, 0, 0, 1};
            for (uint32_t k = 0; k < count; k++) {
                float v[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
                if (ti == UINT32_MAX) {
                    memcpy(v[value_part], constant[l], sizeof v[0]);
                } else if (lanes->cubic[l]) {
                    cubic_key(&clip->tracks[ti], k, comps, additive, ref[l], ch, v);
                } else {
                    key_value(&clip->tracks[ti], k, comps, additive, ref[l], ch, v[value_part]);
                }
                if (slerped) {
                    float src[4];
                    memcpy(src, v[value_part], sizeof src);
                    if (k > 0) {
                        agree_arc(prev_src, prev, v[value_part]);
                    }
                    memcpy(prev_src, src, sizeof src);
                    memcpy(prev, v[value_part], sizeof prev);
                }
                for (uint32_t part = 0; part < parts; part++) {
                    for (uint32_t e = 0; e < comps; e++) {
                        keys[*used + (size_t)k * stride + (part * comps + e) * 4 + l] = v[part][e];
                    }
                }
            }
        }
        *used += (size_t)count * stride;
        return;
    }
    for (uint32_t l = 0; l < 4; l++) {
        oroya__pose_channel *pc = &c->channels[base + l];
        const uint32_t ti = map[base + l];
        pc->offset = (uint32_t)*used;
        if (ti == UINT32_MAX) {
            pc->group = 0;
            pc->kind = OROYA__KIND_LINEAR;
            pc->stride = (uint8_t)(1 + comps);
            for (uint32_t k = 0; k < 2; k++) {
                float *r = keys + *used;
                r[0] = (float)k;
                memcpy(r + 1, constant[l], comps * sizeof(float));
                *used += 1 + comps;
            }
            continue;
        }
        const oroya_track *tr = &clip->tracks[ti];
        const bool cubic = lanes->cubic[l] != 0;
        const uint32_t stride = 1 + (cubic ? 3 * comps : comps);
        pc->group = (uint16_t)group_for(c, group_src, group_cnt, tr, used);
        pc->offset = (uint32_t)*used;
        pc->kind = cubic                                    ? OROYA__KIND_CUBIC
                   : tr->interpolation == OROYA_INTERP_STEP ? OROYA__KIND_STEP
                                                            : OROYA__KIND_LINEAR;
        pc->stride = (uint8_t)stride;
        const float *times = keys + c->groups[pc->group].offset;
        const uint32_t count = c->groups[pc->group].count;
        float prev_src[4] = {0, 0, 0, 1}, prev[4] = {0, 0, 0, 1};
        for (uint32_t k = 0; k < count; k++) {
            float *r = keys + *used;
            r[0] = times[k];
            if (cubic) {
                float v[3][4];
                cubic_key(tr, k, comps, additive, ref[l], ch, v);
                for (uint32_t part = 0; part < 3; part++) {
                    memcpy(r + 1 + part * comps, v[part], comps * sizeof(float));
                }
            } else {
                float v[4];
                key_value(tr, k, comps, additive, ref[l], ch, v);
                if (ch == OROYA__CH_R && tr->interpolation != OROYA_INTERP_STEP) {
                    float src[4];
                    memcpy(src, v, sizeof src);
                    if (k > 0) {
                        agree_arc(prev_src, prev, v);
                    }
                    memcpy(prev_src, src, sizeof src);
                    memcpy(prev, v, sizeof prev);
                }
                memcpy(r + 1, v, comps * sizeof(float));
            }
            *used += stride;
        }
    }
}

uint32_t oroya__pose_cubic_rotation_past_float(const oroya_track *t, double *reach) {
    if (t->property != OROYA_PROPERTY_ROTATION || t->interpolation != OROYA_INTERP_CUBICSPLINE ||
        t->components != 4) {
        return 0;
    }
    /* The Hermite bound: |h| <= max(|p0|, |p1|) + 4/27 (|m0| + |m1|) gap per component. */
    for (uint32_t k = 1; k < t->key_count; k++) {
        const double gap = (double)t->times[k] - (double)t->times[k - 1];
        const float *k0 = t->values + (size_t)(k - 1) * 12, *k1 = t->values + (size_t)k * 12;
        for (uint32_t i = 0; i < 4; i++) {
            const double b = fmax(fabs((double)k0[4 + i]), fabs((double)k1[4 + i])) +
                             4.0 / 27.0 * (fabs((double)k0[8 + i]) + fabs((double)k1[i])) * gap;
            if (!(b <= OROYA__POSE_CUBIC_REACH)) {
                if (reach) {
                    *reach = b;
                }
                return k;
            }
        }
    }
    return 0;
}

bool oroya__pose_cubic_rotation_near_zero(const oroya_track *t) {
    if (t->property != OROYA_PROPERTY_ROTATION || t->interpolation != OROYA_INTERP_CUBICSPLINE ||
        t->components != 4) {
        return false;
    }
    /* |h(s)| >= (distance from 0 to the segment p0 p1) - 4/27 (|m0| + |m1|) gap: the value
     * weights sum to 1 and lie in [0, 1], the tangent weights are at most 4/27. */
    for (uint32_t k = 1; k < t->key_count; k++) {
        const double gap = (double)t->times[k] - (double)t->times[k - 1];
        const float *k0 = t->values + (size_t)(k - 1) * 12, *k1 = t->values + (size_t)k * 12;
        double pd = 0, dd = 0, m0 = 0, m1 = 0;
        for (uint32_t i = 0; i < 4; i++) {
            const double p = k0[4 + i], d = (double)k1[4 + i] - p;
            pd += p * d, dd += d * d;
            m0 += (double)k0[8 + i] * k0[8 + i], m1 += (double)k1[i] * k1[i];
        }
        const double lambda = dd > 0 ? fmin(1.0, fmax(0.0, -pd / dd)) : 0.0;
        double dist = 0;
        for (uint32_t i = 0; i < 4; i++) {
            const double c = k0[4 + i] + lambda * ((double)k1[4 + i] - k0[4 + i]);
            dist += c * c;
        }
        const double reach = 4.0 / 27.0 * (sqrt(m0) + sqrt(m1)) * gap;
        if (!(sqrt(dist) - reach > OROYA__POSE_CUBIC_MIN_LENGTH)) {
            return true;
        }
    }
    return false;
}

/* raw: the keys as they are (the mixer's additive clips hold deltas already); else an
 * additive desc or clip gets its keys made relative to the rest pose. */
static oroya_result clip_create(const oroya_pose_clip_desc *desc, bool raw, oroya_pose_clip **out,
                                oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out || !desc->skeleton || !desc->clip) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_clip_create: desc, skeleton, clip and out are required");
    }
    if (desc->compress) {
        return oroya__pose_clip_create_compressed(desc, out, err);
    }
    oroya_result res = oroya_clip_validate(desc->clip, err);
    if (res != OROYA_OK) {
        return res;
    }
    const oroya_pose_skeleton *skel = desc->skeleton;
    const oroya_clip *clip = desc->clip;
    const uint32_t joints = skel->joint_count, blocks = skel->block_count;
    const uint32_t channel_count = blocks * 12;
    const bool additive = !raw && (desc->additive || clip->blend_mode == OROYA_BLEND_ADDITIVE);

    size_t size = 0;
    size_t o_self = take(&size, 1, sizeof(oroya_pose_clip));
    size_t o_ch = take(&size, channel_count, sizeof(oroya__pose_channel));
    size_t o_lanes = take(&size, (size_t)blocks * 3, sizeof(oroya__pose_lanes));
    size_t o_groups = take(&size, (size_t)channel_count + 1, sizeof(oroya__pose_group));
    /* Build-time only: the source times of each group (times, count). */
    size_t o_gsrc = take(&size, (size_t)channel_count + 1, sizeof(const float *));
    size_t o_gcnt = take(&size, (size_t)channel_count + 1, sizeof(uint32_t));
    /* Group 0's two times, and a 4-float load of a 3-vector may read past the last record. */
    size_t floats = 2 + 16;
    uint32_t ignored = 0;

    /* Check the tracks and count their group times (an upper bound: tracks may share them); targets are resolved again for the map below (load
     * time only). */
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *tr = &clip->tracks[i];
        const int ch = channel_of(tr->property);
        uint32_t joint =
            desc->track_joints ? desc->track_joints[i] : oroya_pose_skeleton_find(skel, tr->target);
        if (desc->track_joints && joint != UINT32_MAX && joint >= joints) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "tracks[%u]: track_joints names joint %u of %u", i, joint, joints);
        }
        if (ch < 0 || joint == UINT32_MAX) {
            ignored++;
            continue;
        }
        if (tr->interpolation == OROYA_INTERP_SMOOTH && ch != OROYA__CH_R) {
            return oroya__fail(err, OROYA_ERR_UNSUPPORTED,
                               "tracks[%u] (%s %s): SMOOTH translation/scale is not supported "
                               "by the pose layer",
                               i, tr->target, oroya_property_name(tr->property));
        }
        if (tr->key_count > OROYA_POSE_MAX_KEYS) {
            return oroya__fail(err, OROYA_ERR_LIMIT, "tracks[%u] (%s): %u keys, at most %u", i,
                               tr->target, tr->key_count, (unsigned)OROYA_POSE_MAX_KEYS);
        }
        /* The kernel samples in float: such a curve came out as a zero or NaN rotation (the
         * mixer samples these tracks itself: oroya__rig_track_outside). */
        double reach = 0;
        const uint32_t past = oroya__pose_cubic_rotation_past_float(tr, &reach);
        if (past) {
            return oroya__fail(err, OROYA_ERR_LIMIT,
                               "tracks[%u] (%s rotation): CUBICSPLINE keys %u-%u: tangents times "
                               "the key gap may reach %g, past the kernel's float sampling (%g)",
                               i, tr->target, past - 1, past, reach, OROYA__POSE_CUBIC_REACH);
        }
        floats += tr->key_count < 2 ? 2 : tr->key_count;
    }
    /* Which track drives each channel (UINT32_MAX = none), in scratch memory freed below. */
    uint32_t *map = oroya__alloc(&desc->allocator, channel_count * sizeof(uint32_t), 16);
    if (!map) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: scratch");
    }
    for (uint32_t i = 0; i < channel_count; i++) {
        map[i] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *tr = &clip->tracks[i];
        const int ch = channel_of(tr->property);
        uint32_t joint =
            desc->track_joints ? desc->track_joints[i] : oroya_pose_skeleton_find(skel, tr->target);
        if (ch < 0 || joint == UINT32_MAX) {
            continue;
        }
        const uint32_t idx = ((joint / 4) * 3 + (uint32_t)ch) * 4 + joint % 4;
        if (map[idx] != UINT32_MAX) {
            const uint32_t other = map[idx];
            oroya__free(&desc->allocator, map);
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "tracks[%u] (%s %s): tracks[%u] already animates this joint "
                               "channel",
                               i, tr->target, oroya_property_name(tr->property), other);
        }
        map[idx] = i;
    }
    /* Key storage of each (block, channel): see build_block. */
    for (uint32_t bc = 0; bc < blocks * 3; bc++) {
        const size_t comps = bc % 3 == OROYA__CH_R ? 4 : 3;
        const oroya_track *shared = shared_times_track(clip, map + bc * 4);
        bool any = false, any_cubic = false;
        size_t lane_floats = 0;
        for (uint32_t l = 0; l < 4; l++) {
            const uint32_t ti = map[bc * 4 + l];
            if (ti == UINT32_MAX) {
                lane_floats += 2 * (1 + comps);
                continue;
            }
            const oroya_track *tr = &clip->tracks[ti];
            const size_t count = tr->key_count < 2 ? 2 : tr->key_count;
            /* As build_block decides: a single cubic key is a constant. */
            const bool cubic = tr->interpolation == OROYA_INTERP_CUBICSPLINE && tr->key_count >= 2;
            any = true;
            any_cubic = any_cubic || cubic;
            lane_floats += count * (1 + comps * (cubic ? 3 : 1));
        }
        /* Uniform: 3 alignment floats, then comps rows per key, three times that (in, value,
         * out) with a cubic lane. */
        floats += !any || shared ? 3 + (size_t)(shared ? shared->key_count : 2) * comps * 4 *
                                           (any_cubic ? 3 : 1)
                                 : lane_floats;
    }
    if (floats > UINT32_MAX) {
        oroya__free(&desc->allocator, map);
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "oroya_pose_clip_create: %zu key floats, offsets hold at most %u",
                           floats, (unsigned)UINT32_MAX);
    }
    size_t o_keys = take(&size, floats, sizeof(float));
    uint8_t *mem = size == SIZE_MAX ? NULL : oroya__calloc(&desc->allocator, 1, size, 16);
    if (!mem) {
        oroya__free(&desc->allocator, map);
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: %zu bytes", size);
    }
    oroya_pose_clip *c = (oroya_pose_clip *)(mem + o_self);
    c->allocator = desc->allocator;
    c->skeleton = skel;
    c->bytes = size;
    c->duration = clip->duration;
    c->additive = additive;
    c->ignored_tracks = ignored;
    c->channel_count = channel_count;
    c->channels = (oroya__pose_channel *)(mem + o_ch);
    c->lanes = (oroya__pose_lanes *)(mem + o_lanes);
    c->keys = (float *)(mem + o_keys);
    c->groups = (oroya__pose_group *)(mem + o_groups);
    const float **group_src = (const float **)(mem + o_gsrc);
    uint32_t *group_cnt = (uint32_t *)(mem + o_gcnt);
    float *keys = c->keys;
    /* Group 0: the constant channels' times, [0, 1]. */
    keys[0] = 0;
    keys[1] = 1;
    c->groups[0] = (oroya__pose_group){0, 2};
    c->group_count = 1;
    size_t used = 2;
    for (uint32_t b = 0; b < blocks; b++) {
        for (int ch = 0; ch < 3; ch++) {
            build_block(c, clip, skel, map, b, ch, additive, group_src, group_cnt, &used);
        }
    }
    oroya__free(&desc->allocator, map);
    *out = c;
    return OROYA_OK;
}

oroya_result oroya_pose_clip_create(const oroya_pose_clip_desc *desc, oroya_pose_clip **out,
                                    oroya_error *err) {
    return clip_create(desc, false, out, err);
}

oroya_result oroya__pose_clip_create_raw(const oroya_pose_clip_desc *desc, oroya_pose_clip **out,
                                         oroya_error *err) {
    return clip_create(desc, true, out, err);
}

void oroya_pose_clip_destroy(oroya_pose_clip *clip) {
    if (clip) {
        oroya_allocator a = clip->allocator;
        oroya__free(&a, clip);
    }
}

float oroya_pose_clip_duration(const oroya_pose_clip *clip) { return clip ? clip->duration : 0; }
bool oroya_pose_clip_is_additive(const oroya_pose_clip *clip) { return clip && clip->additive; }
bool oroya_pose_clip_additive(const oroya_pose_clip *clip) {
    return oroya_pose_clip_is_additive(clip);
}
uint32_t oroya_pose_clip_ignored_tracks(const oroya_pose_clip *clip) {
    return clip ? clip->ignored_tracks : 0;
}

/* ---- characters ---------------------------------------------------------------------------- */

static void local_to_model_guarded(const oroya_pose_skeleton *skeleton,
                                   const oroya_soa_transform *locals, const oroya_mat4 *root,
                                   oroya_mat4 *models, oroya_mat4 *bones,
                                   oroya__pose_guard_report *held);

oroya_result oroya_pose_character_create(const oroya_pose_character_desc *desc,
                                         oroya_pose_character **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out || !desc->skeleton) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_character_create: desc, skeleton and out are required");
    }
    const uint32_t layers = desc->max_layers ? desc->max_layers : 4;
    if (layers > OROYA_POSE_MAX_LAYERS) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "oroya_pose_character_create: max_layers %u, at most %u", layers,
                           (unsigned)OROYA_POSE_MAX_LAYERS);
    }
    const oroya_pose_skeleton *skel = desc->skeleton;
    const uint32_t channels = skel->block_count * 12;
    size_t size = 0;
    size_t o_self = take(&size, 1, sizeof(oroya_pose_character));
    /* The outputs start on cache lines: a bone matrix is then one 64-byte line, which the
     * skinning kernels load whole, and characters updated on different threads share none. */
    size_t o_locals = take_aligned(&size, skel->block_count, sizeof(oroya_soa_transform), 64);
    size_t o_models = take_aligned(&size, skel->joint_count, sizeof(oroya_mat4), 64);
    size_t o_bones = take_aligned(&size, skel->joint_count, sizeof(oroya_mat4), 64);
    size_t o_slots = take(&size, layers, sizeof(oroya_pose_clip *));
    size_t o_cur = take(&size, (size_t)layers * (channels + 1), sizeof(uint16_t));
    size_t o_iv = take(&size, (size_t)layers * oroya__pose_slot_intervals(channels),
                       sizeof(oroya__pose_interval));
    uint8_t *mem = oroya__calloc(&desc->allocator, 1, size, 64);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_character_create: %zu bytes",
                           size);
    }
    oroya_pose_character *c = (oroya_pose_character *)(mem + o_self);
    c->allocator = desc->allocator;
    c->skeleton = skel;
    c->max_layers = layers;
    c->channel_count = channels;
    c->slot_intervals = oroya__pose_slot_intervals(channels);
    c->locals = (oroya_soa_transform *)(mem + o_locals);
    c->models = (oroya_mat4 *)(mem + o_models);
    c->bones = (oroya_mat4 *)(mem + o_bones);
    c->slot_clips = (const oroya_pose_clip **)(mem + o_slots);
    c->cursors = (uint16_t *)(mem + o_cur);
    c->intervals = (oroya__pose_interval *)(mem + o_iv);
    memcpy(c->locals, skel->rest, skel->block_count * sizeof(oroya_soa_transform));
    /* The rest pose's joints held (a rest scale chain past float) count as the last
     * update's until the first update. */
    local_to_model_guarded(skel, c->locals, NULL, c->models, c->bones, &c->guard);
    *out = c;
    return OROYA_OK;
}

void oroya_pose_character_destroy(oroya_pose_character *character) {
    if (character) {
        oroya_allocator a = character->allocator;
        oroya__free(&a, character->ik_plan);
        oroya__free(&a, character);
    }
}

const oroya_soa_transform *oroya_pose_character_locals(const oroya_pose_character *c) {
    return c ? c->locals : NULL;
}
const oroya_mat4 *oroya_pose_character_models(const oroya_pose_character *c) {
    return c ? c->models : NULL;
}
const oroya_mat4 *oroya_pose_character_bones(const oroya_pose_character *c) {
    return c ? c->bones : NULL;
}
uint32_t oroya_pose_character_non_finite_count(const oroya_pose_character *c, uint32_t *first) {
    const bool any = c && c->guard.count;
    if (first) {
        *first = any ? c->guard.first : UINT32_MAX;
    }
    return any ? c->guard.count : 0;
}

/* ---- the per-frame kernel ------------------------------------------------------------------ */

#define OROYA__PK_WIDTH 4
#include "internal/pose_kernel.h"

oroya_result oroya_pose_local_to_model(const oroya_pose_skeleton *skeleton,
                                       const oroya_soa_transform *locals, const oroya_mat4 *root,
                                       oroya_mat4 *models, oroya_mat4 *bones) {
    if (!skeleton || !locals || !models) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    if (root) {
        /* The guard holds a root joint at `root`: it must be finite itself. */
        float sum = 0;
        for (int k = 0; k < 16; k++) {
            sum += root->m[k] * 0.0f;
        }
        if (sum != 0) {
            return OROYA_ERR_INVALID_ARGUMENT;
        }
    }
    oroya__pose_guard_report held;
    local_to_model_guarded(skeleton, locals, root, models, bones, &held);
    return held.count ? OROYA_ERR_NON_FINITE : OROYA_OK;
}

static void local_to_model_guarded(const oroya_pose_skeleton *skeleton,
                                   const oroya_soa_transform *locals, const oroya_mat4 *root,
                                   oroya_mat4 *models, oroya_mat4 *bones,
                                   oroya__pose_guard_report *held) {
    for (uint32_t b = 0; b < skeleton->block_count; b++) {
        ltm_pair(skeleton, b, b, &locals[b], &locals[b], root, models, bones);
    }
    oroya__pose_guard(skeleton, locals, root, models, bones, held);
}

/* ---- update ------------------------------------------------------------------------------- */

/* index: the update's place in a batch, UINT32_MAX for oroya_pose_character_update (the
 * messages then name the call, not an updates array it does not have). */
static oroya_result check_update(const oroya_pose_character *c, const oroya_pose_layer *layers,
                                 uint32_t layer_count, uint32_t index, oroya_error *err) {
    char at[48], in[48];
    if (index == UINT32_MAX) {
        snprintf(at, sizeof at, "oroya_pose_character_update");
        snprintf(in, sizeof in, "oroya_pose_character_update: ");
    } else {
        snprintf(at, sizeof at, "updates[%u]", index);
        snprintf(in, sizeof in, "updates[%u].", index);
    }
    if (!c) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s: character is NULL", at);
    }
    if (layer_count > c->max_layers) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "%s: %u layers, the character has %u slots", at, layer_count,
                           c->max_layers);
    }
    if (layer_count && !layers) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s: layers is NULL", at);
    }
    for (uint32_t i = 0; i < layer_count; i++) {
        if (!layers[i].clip) {
            continue;
        }
        if (layers[i].clip->skeleton != c->skeleton) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "%slayers[%u]: the clip was built for another skeleton", in, i);
        }
        if (!isfinite(layers[i].time)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%slayers[%u]: time is not finite",
                               in, i);
        }
        /* Bounded as the mixer's weights are: an additive layer of weight 3e38 gave inf
         * locals, and of 1e20 a rotation 0.85 long, with OROYA_OK. */
        if (layers[i].weight > 0 && !(layers[i].weight <= OROYA_POSE_MAX_WEIGHT)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "%slayers[%u]: weight %g is not finite or above "
                               "OROYA_POSE_MAX_WEIGHT (%g)",
                               in, i, (double)layers[i].weight, (double)OROYA_POSE_MAX_WEIGHT);
        }
    }
    return OROYA_OK;
}

/* The SSE2 baseline (portable C without SSE2): one block per step. */
static void run_update_sse2(oroya_pose_character *c, const oroya_pose_layer *layers,
                            uint32_t layer_count) {
    pk_run_update(c, layers, layer_count);
}

bool oroya__pose_force_baseline = false;

#if OROYA__POSE_AVX2
/* No cached flag (threads would race on it): __builtin_cpu_init returns at once after the
 * first call, and the test is a load of the flags libgcc filled in. */
static bool pose_have_avx2(void) {
    __builtin_cpu_init();
    return !oroya__pose_force_baseline && __builtin_cpu_supports("avx2");
}
#endif

void oroya__pose_run_update(oroya_pose_character *c, const oroya_pose_layer *layers,
                            uint32_t layer_count, int kernel) {
#if OROYA__POSE_AVX2
    if (kernel == 0 && pose_have_avx2()) {
        oroya__pose_run_update_avx2(c, layers, layer_count);
        return;
    }
#endif
    (void)kernel;
    run_update_sse2(c, layers, layer_count);
}

size_t oroya__pose_mix_scratch_size(void) { return sizeof(active_layer); }

void oroya__pose_mix(const oroya_pose_skeleton *skel, const oroya__pose_mix_layer *layers,
                     uint32_t count, const oroya_soa_transform *rest, oroya_soa_transform *locals,
                     void *scratch) {
#if OROYA__POSE_AVX2
    if (pose_have_avx2()) {
        oroya__pose_mix_avx2(skel, layers, count, rest, locals, scratch);
        return;
    }
#endif
    pk_mix(skel, layers, count, rest, locals, scratch);
}

void oroya__pose_diff_copy(const oroya_soa_transform *cur, oroya_soa_transform *snap,
                           uint32_t blocks, uint16_t *changed) {
    for (uint32_t b = 0; b < blocks; b++) {
        const float *c = cur[b].tx;
        float *s = snap[b].tx;
        uint32_t bits = 0;
        /* Rows tx..tz, qx..qw, sx..sz: channel ch's lanes go to bits ch * 4 .. ch * 4 + 3. */
        static const uint8_t first[3] = {0, 3, 7}, count[3] = {3, 4, 3};
        for (uint32_t ch = 0; ch < 3; ch++) {
            v4 same = v4_eq(v4_load(c + first[ch] * 4), v4_load(s + first[ch] * 4));
            for (uint32_t e = 1; e < count[ch]; e++) {
                same = v4_and(same, v4_eq(v4_load(c + (first[ch] + e) * 4),
                                          v4_load(s + (first[ch] + e) * 4)));
            }
            bits |= (uint32_t)(~v4_movemask(same) & 0xF) << (ch * 4);
        }
        changed[b] |= (uint16_t)bits;
        memcpy(s, c, sizeof(oroya_soa_transform));
    }
}

/* Whether the matrix is finite: x * 0 is 0 (or -0) for a finite x and NaN for an infinite or
 * NaN one. */
static bool mat_finite(const oroya_mat4 *m) {
    const v4 z = v4_zero();
    const v4 a = v4_add(v4_add(v4_mul(v4_loadu(m->m), z), v4_mul(v4_loadu(m->m + 4), z)),
                        v4_add(v4_mul(v4_loadu(m->m + 8), z), v4_mul(v4_loadu(m->m + 12), z)));
    return v4_movemask(v4_eq(a, a)) == 0xF;
}

/* The per-frame test: whether the sum of all n matrices, element by element, is finite. Every
 * finite set passes unless the sum itself leaves float (matrices near 1e38: the rare path
 * then finds nothing to hold); any inf or NaN fails it (inf + -inf is NaN). One add per four
 * floats, in eight independent sums so that the adds do not wait on one another. */
bool oroya__pose_mats_sum_finite(const oroya_mat4 *m, uint32_t n) {
    const v4 z = v4_zero();
    v4 a0 = z, a1 = z, a2 = z, a3 = z, a4 = z, a5 = z, a6 = z, a7 = z;
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        const float *p = m[i].m;
        a0 = v4_add(a0, v4_loadu(p));
        a1 = v4_add(a1, v4_loadu(p + 4));
        a2 = v4_add(a2, v4_loadu(p + 8));
        a3 = v4_add(a3, v4_loadu(p + 12));
        a4 = v4_add(a4, v4_loadu(p + 16));
        a5 = v4_add(a5, v4_loadu(p + 20));
        a6 = v4_add(a6, v4_loadu(p + 24));
        a7 = v4_add(a7, v4_loadu(p + 28));
    }
    for (; i < n; i++) {
        a0 = v4_add(a0, v4_loadu(m[i].m));
        a1 = v4_add(a1, v4_loadu(m[i].m + 4));
        a2 = v4_add(a2, v4_loadu(m[i].m + 8));
        a3 = v4_add(a3, v4_loadu(m[i].m + 12));
    }
    const v4 s =
        v4_add(v4_add(v4_add(a0, a1), v4_add(a2, a3)), v4_add(v4_add(a4, a5), v4_add(a6, a7)));
    const v4 t = v4_mul(s, z);
    return v4_movemask(v4_eq(t, t)) == 0xF;
}

static bool mats_sum_finite(const oroya_mat4 *m, uint32_t n) {
#if OROYA__POSE_AVX2
    if (pose_have_avx2()) {
        return oroya__pose_mats_sum_finite_avx2(m, n);
    }
#endif
    return oroya__pose_mats_sum_finite(m, n);
}

void oroya__pose_guard(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                       const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones,
                       oroya__pose_guard_report *report) {
    const uint32_t n = skel->joint_count;
    *report = (oroya__pose_guard_report){0, UINT32_MAX};
    if (mats_sum_finite(bones ? bones : models, n)) {
        return;
    }
    /* The rare path: joints in order (parents first); moved[j]: j's model was recomputed or
     * held, so its children are recomputed from it. */
    uint8_t moved[OROYA_POSE_MAX_JOINTS];
    for (uint32_t j = 0; j < n; j++) {
        const uint32_t p = skel->parents[j];
        const oroya_mat4 pm = p != UINT32_MAX ? models[p] : (root ? *root : oroya_mat4_identity());
        moved[j] = 0;
        bool held = false;
        if ((p != UINT32_MAX && moved[p]) || !mat_finite(&models[j])) {
            const oroya_soa_transform *b = &locals[j / 4];
            const uint32_t l = j % 4;
            models[j] = oroya_mat4_mul(
                pm, oroya_mat4_compose((oroya_vec3){b->tx[l], b->ty[l], b->tz[l]},
                                       (oroya_quat){b->qx[l], b->qy[l], b->qz[l], b->qw[l]},
                                       (oroya_vec3){b->sx[l], b->sy[l], b->sz[l]}));
            if (!mat_finite(&models[j])) {
                models[j] = pm;
                held = true;
            }
            moved[j] = 1;
        }
        if (bones) {
            oroya_mat4 *bo = &bones[skel->bone_slots_identity ? j : skel->bone_slots[j]];
            if (moved[j]) {
                *bo = oroya_mat4_mul(models[j], skel->inverse_bind[j]);
            }
            if (!mat_finite(bo)) {
                *bo = oroya_mat4_identity();
                held = true;
            }
        }
        if (held) {
            report->count++;
            report->first = j < report->first ? j : report->first;
        }
    }
}

void oroya__pose_ltm(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                     const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones) {
#if OROYA__POSE_AVX2
    if (pose_have_avx2()) {
        oroya__pose_ltm_avx2(skel, locals, root, models, bones);
        return;
    }
#endif
    pk_ltm(skel, locals, root, models, bones);
}

void oroya__pose_ltm_ik(const oroya__ik_pose *p) {
#if OROYA__POSE_AVX2
    if (pose_have_avx2()) {
        oroya__pose_ltm_ik_avx2(p);
        return;
    }
#endif
    pk_ltm_ik(p);
}

/* The IKs run inside (src/internal/pose_kernel.h, pk_run_update). */
static void run_update(oroya_pose_character *c, const oroya_pose_layer *layers,
                       uint32_t layer_count) {
    oroya__pose_run_update(c, layers, layer_count, 0);
}

oroya_result oroya_pose_character_update(oroya_pose_character *character,
                                         const oroya_pose_layer *layers, uint32_t layer_count,
                                         oroya_error *err) {
    oroya_result res = check_update(character, layers, layer_count, UINT32_MAX, err);
    if (res != OROYA_OK) {
        return res;
    }
    run_update(character, layers, layer_count);
    return OROYA_OK;
}

typedef struct batch_ctx {
    const oroya_pose_update *updates;
} batch_ctx;

static void batch_range(void *ctx, uint32_t begin, uint32_t end) {
    const batch_ctx *b = ctx;
    for (uint32_t i = begin; i < end; i++) {
        run_update(b->updates[i].character, b->updates[i].layers, b->updates[i].layer_count);
    }
}

oroya_result oroya_pose_update_batch(const oroya_pose_update *updates, uint32_t count,
                                     const oroya_scheduler *scheduler, oroya_error *err) {
    if (count && !updates) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_update_batch: updates is NULL");
    }
    const uint64_t mark = oroya__batch_serial();
    for (uint32_t i = 0; i < count; i++) {
        oroya_result res =
            check_update(updates[i].character, updates[i].layers, updates[i].layer_count, i, err);
        if (res != OROYA_OK) {
            return res;
        }
        /* A character given twice would be updated twice, on two threads at once with a
         * scheduler. */
        oroya_pose_character *c = updates[i].character;
        if (c->batch_mark == mark) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "updates[%u]: the character of updates[%u] again (each character "
                               "may appear once in a batch); nothing was updated",
                               i, c->batch_index);
        }
        c->batch_mark = mark, c->batch_index = i;
    }
    batch_ctx ctx = {updates};
    if (scheduler && scheduler->parallel_for) {
        scheduler->parallel_for(scheduler->user, count, batch_range, &ctx);
    } else {
        batch_range(&ctx, 0, count);
    }
    return OROYA_OK;
}
