/* The pose layer: skeletons, the runtime clip format, sampling, blending, local-to-model.
 * See include/oroya/pose.h for the contracts and docs/performance.md for the design. */
#include <math.h>
#include <string.h>

#include "internal/base.h"
#include "internal/pose.h"
#include "internal/pose_simd.h"

#if defined(__GNUC__) || defined(__clang__)
#define OROYA__INLINE inline __attribute__((always_inline))
#else
#define OROYA__INLINE inline
#endif

/* ---- allocation layout ------------------------------------------------------------------ */

/* Reserves `bytes` at a 16-byte aligned offset of a single block being sized. */
static size_t take(size_t *size, size_t count, size_t elem) {
    size_t off = (*size + 15u) & ~(size_t)15u;
    size_t bytes = oroya__mul_size(count, elem);
    if (bytes == SIZE_MAX || off > SIZE_MAX - bytes) {
        *size = SIZE_MAX;
        return 0;
    }
    *size = off + bytes;
    return off;
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
    }
    const uint32_t blocks = (n + 3) / 4;
    size_t size = 0;
    size_t o_self = take(&size, 1, sizeof(oroya_pose_skeleton));
    size_t o_rest = take(&size, blocks, sizeof(oroya_soa_transform));
    size_t o_ibm = take(&size, n, sizeof(oroya_mat4));
    size_t o_par = take(&size, n, sizeof(uint32_t));
    size_t o_names = take(&size, desc->names ? n : 0, sizeof(char *));
    size_t o_chars = take(&size, names_bytes, 1);
    if (size == SIZE_MAX) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_skeleton_create: too large");
    }
    uint8_t *mem = oroya__calloc(&desc->allocator, 1, size, 16);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                           "oroya_pose_skeleton_create: %zu bytes", size);
    }
    oroya_pose_skeleton *s = (oroya_pose_skeleton *)(mem + o_self);
    s->allocator = desc->allocator;
    s->joint_count = n;
    s->block_count = blocks;
    s->rest = (oroya_soa_transform *)(mem + o_rest);
    s->inverse_bind = (oroya_mat4 *)(mem + o_ibm);
    s->parents = (uint32_t *)(mem + o_par);
    memcpy(s->parents, desc->parents, n * sizeof(uint32_t));
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

/* r^-1 * q for a unit reference r (AnimationUtils.makeClipAdditive), also applied to
 * cubic tangents: the Hermite curve is linear in them. */
static void quat_delta(const float r[4], float *q) {
    const float cx = -r[0], cy = -r[1], cz = -r[2], cw = r[3];
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    q[0] = cw * x + cx * w + cy * z - cz * y;
    q[1] = cw * y - cx * z + cy * w + cz * x;
    q[2] = cw * z + cx * y - cy * x + cz * w;
    q[3] = cw * w - cx * x - cy * y - cz * z;
}

static int channel_of(oroya_property p) {
    return p == OROYA_PROPERTY_TRANSLATION ? OROYA__CH_T
           : p == OROYA_PROPERTY_ROTATION  ? OROYA__CH_R
           : p == OROYA_PROPERTY_SCALE     ? OROYA__CH_S
                                           : -1;
}

/* The track whose key times every tracked lane of a (block, channel) shares, when they all
 * share them, have at least 2 keys and are not cubic splines; else NULL. Four map entries. */
static const oroya_track *shared_times_track(const oroya_clip *clip, const uint32_t *map4) {
    const oroya_track *first = NULL;
    for (uint32_t l = 0; l < 4; l++) {
        if (map4[l] == UINT32_MAX) {
            continue;
        }
        const oroya_track *t = &clip->tracks[map4[l]];
        if (t->interpolation == OROYA_INTERP_CUBICSPLINE || t->key_count < 2) {
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

oroya_result oroya_pose_clip_create(const oroya_pose_clip_desc *desc, oroya_pose_clip **out,
                                    oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out || !desc->skeleton || !desc->clip) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_pose_clip_create: desc, skeleton, clip and out are required");
    }
    oroya_result res = oroya_clip_validate(desc->clip, err);
    if (res != OROYA_OK) {
        return res;
    }
    const oroya_pose_skeleton *skel = desc->skeleton;
    const oroya_clip *clip = desc->clip;
    const uint32_t joints = skel->joint_count, blocks = skel->block_count;
    const uint32_t channel_count = blocks * 12;
    const bool additive = desc->additive || clip->blend_mode == OROYA_BLEND_ADDITIVE;

    size_t size = 0;
    size_t o_self = take(&size, 1, sizeof(oroya_pose_clip));
    size_t o_ch = take(&size, channel_count, sizeof(oroya__pose_channel));
    size_t o_lanes = take(&size, (size_t)blocks * 3, sizeof(oroya__pose_lanes));
    size_t o_groups = take(&size, (size_t)channel_count + 1, sizeof(oroya__pose_group));
    /* Build-time only: the source times of each group (times, count). */
    size_t o_gsrc = take(&size, (size_t)channel_count + 1, sizeof(const float *));
    size_t o_gcnt = take(&size, (size_t)channel_count + 1, sizeof(uint32_t));
    size_t floats = 10; /* group 0's two constant records */
    uint32_t ignored = 0;

    /* Count floats and check the tracks; targets are resolved again for the map below (load
     * time only). */
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *tr = &clip->tracks[i];
        const int ch = channel_of(tr->property);
        uint32_t joint = desc->track_joints ? desc->track_joints[i]
                                            : oroya_pose_skeleton_find(skel, tr->target);
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
        const size_t comps = ch == OROYA__CH_R ? 4 : 3;
        const size_t stride = 1 + comps * (tr->interpolation == OROYA_INTERP_CUBICSPLINE ? 3 : 1);
        const size_t count = tr->key_count < 2 ? 2 : tr->key_count;
        floats += count * stride;
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
        uint32_t joint = desc->track_joints ? desc->track_joints[i]
                                            : oroya_pose_skeleton_find(skel, tr->target);
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
    /* Untracked lanes of a partly animated (block, channel): when the tracked lanes share
     * their key times (and are not cubic), the constant lanes repeat their value over the same
     * times so the block samples on the uniform path; otherwise a 2-record constant. */
    for (uint32_t bc = 0; bc < blocks * 3; bc++) {
        const uint32_t comps = bc % 3 == OROYA__CH_R ? 4 : 3;
        const oroya_track *shared = shared_times_track(clip, map + bc * 4);
        for (uint32_t l = 0; l < 4; l++) {
            if (map[bc * 4 + l] == UINT32_MAX) {
                floats += (size_t)(shared ? shared->key_count : 2) * (1 + comps);
            }
        }
    }
    floats += 16; /* a 4-float load of a 3-vector may read past the last record */
    size_t o_keys = take(&size, floats, sizeof(float));
    uint8_t *mem = size == SIZE_MAX ? NULL : oroya__calloc(&desc->allocator, 1, size, 16);
    if (!mem) {
        oroya__free(&desc->allocator, map);
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_pose_clip_create: %zu bytes",
                           size);
    }
    oroya_pose_clip *c = (oroya_pose_clip *)(mem + o_self);
    c->allocator = desc->allocator;
    c->skeleton = skel;
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
    keys[5] = 1;
    c->groups[0] = (oroya__pose_group){0, 2, 5, 0};
    c->group_count = 1;
    size_t used = 10;
    for (uint32_t b = 0; b < blocks; b++) {
        for (int ch = 0; ch < 3; ch++) {
            oroya__pose_lanes *lanes = &c->lanes[b * 3 + (uint32_t)ch];
            const uint32_t base = (b * 3 + (uint32_t)ch) * 4;
            for (uint32_t l = 0; l < 4; l++) {
                if (map[base + l] != UINT32_MAX) {
                    lanes->any = 1;
                }
            }
            const oroya_track *shared = shared_times_track(clip, map + base);
            uint32_t shared_group = 0;
            /* Tracked lanes first: the constant lanes may join their time group. */
            for (uint32_t pass = 0; pass < 8; pass++) {
                const uint32_t l = pass % 4;
                if ((map[base + l] == UINT32_MAX) != (pass >= 4)) {
                    continue;
                }
                oroya__pose_channel *pc = &c->channels[base + l];
                const uint32_t joint = b * 4 + l;
                const uint32_t comps = ch == OROYA__CH_R ? 4 : 3;
                float ref[4] = {0, 0, 0, 1};
                if (joint < joints) {
                    rest_value(skel, joint, ch, ref);
                }
                const uint32_t ti = map[base + l];
                if (ti == UINT32_MAX) {
                    /* Constant: the rest value (normal clips) or the identity delta. The lane's
                     * weight is 0, so this only keeps the arithmetic finite. */
                    float v[4] = {0, 0, 0, ch == OROYA__CH_R ? 1.0f : 0.0f};
                    if (!additive) {
                        memcpy(v, ref, sizeof v);
                    }
                    pc->offset = (uint32_t)used;
                    pc->group = (uint16_t)(shared ? shared_group : 0);
                    pc->kind = OROYA__KIND_LINEAR;
                    pc->stride = (uint8_t)(1 + comps);
                    const uint32_t count = shared ? shared->key_count : 2;
                    for (uint32_t k = 0; k < count; k++) {
                        float *r = keys + used;
                        r[0] = shared ? shared->times[k] : (float)k;
                        memcpy(r + 1, v, comps * sizeof(float));
                        used += 1 + comps;
                    }
                    continue;
                }
                const oroya_track *tr = &clip->tracks[ti];
                /* A single key is a constant: its tangents never apply. */
                const bool src_cubic = tr->interpolation == OROYA_INTERP_CUBICSPLINE;
                const bool cubic = src_cubic && tr->key_count >= 2;
                const uint32_t src_skip = src_cubic && !cubic ? comps : 0;
                const uint32_t per = cubic ? 3 * comps : comps;
                const uint32_t stride = 1 + per;
                const uint32_t n = tr->key_count;
                lanes->animated[l] = UINT32_MAX;
                if (tr->interpolation == OROYA_INTERP_STEP) {
                    lanes->step[l] = UINT32_MAX;
                }
                if (cubic) {
                    lanes->cubic[l] = UINT32_MAX;
                    lanes->any_cubic = 1;
                }
                pc->offset = (uint32_t)used;
                const uint32_t count = n < 2 ? 2 : n;
                uint32_t g = 1;
                while (g < c->group_count &&
                       !(group_cnt[g] == n &&
                         !memcmp(group_src[g], tr->times, (size_t)n * sizeof(float)))) {
                    g++;
                }
                if (g == c->group_count) {
                    c->groups[g] = (oroya__pose_group){pc->offset, count, stride, 0};
                    group_src[g] = tr->times;
                    group_cnt[g] = n;
                    c->group_count++;
                }
                pc->group = (uint16_t)g;
                shared_group = g;
                pc->kind = cubic ? OROYA__KIND_CUBIC
                           : tr->interpolation == OROYA_INTERP_STEP ? OROYA__KIND_STEP
                                                                    : OROYA__KIND_LINEAR;
                pc->stride = (uint8_t)stride;
                for (uint32_t k = 0; k < count; k++) {
                    const uint32_t src = k < n ? k : n - 1;
                    float *r = keys + used;
                    /* A single key becomes a constant interval one second long. */
                    r[0] = k < n ? tr->times[k] : tr->times[n - 1] + 1.0f;
                    memcpy(r + 1, tr->values + (size_t)src * per + src_skip, per * sizeof(float));
                    if (additive) {
                        for (uint32_t part = 0; part < per / comps; part++) {
                            float *v = r + 1 + part * comps;
                            const bool is_value = !cubic || part == 1;
                            if (ch == OROYA__CH_R) {
                                quat_delta(ref, v);
                            } else if (is_value) {
                                for (uint32_t e = 0; e < 3; e++) {
                                    v[e] -= ref[e];
                                }
                            }
                        }
                    }
                    used += stride;
                }
            }
            const oroya__pose_channel *pcs = &c->channels[base];
            lanes->uniform = 1;
            for (uint32_t l = 0; l < 4; l++) {
                lanes->offset[l] = pcs[l].offset;
                if (pcs[l].group != pcs[0].group || pcs[l].stride != pcs[0].stride ||
                    pcs[l].kind == OROYA__KIND_CUBIC) {
                    lanes->uniform = 0;
                }
            }
            lanes->group = pcs[0].group;
            lanes->stride = pcs[0].stride;
        }
    }
    oroya__free(&desc->allocator, map);
    *out = c;
    return OROYA_OK;
}

void oroya_pose_clip_destroy(oroya_pose_clip *clip) {
    if (clip) {
        oroya_allocator a = clip->allocator;
        oroya__free(&a, clip);
    }
}

float oroya_pose_clip_duration(const oroya_pose_clip *clip) { return clip ? clip->duration : 0; }
bool oroya_pose_clip_additive(const oroya_pose_clip *clip) { return clip && clip->additive; }
uint32_t oroya_pose_clip_ignored_tracks(const oroya_pose_clip *clip) {
    return clip ? clip->ignored_tracks : 0;
}

/* ---- characters ---------------------------------------------------------------------------- */

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
    size_t o_locals = take(&size, skel->block_count, sizeof(oroya_soa_transform));
    size_t o_models = take(&size, skel->joint_count, sizeof(oroya_mat4));
    size_t o_bones = take(&size, skel->joint_count, sizeof(oroya_mat4));
    size_t o_slots = take(&size, layers, sizeof(oroya_pose_clip *));
    size_t o_cur = take(&size, (size_t)layers * (channels + 1), sizeof(uint16_t));
    size_t o_iv = take(&size, (size_t)layers * (channels + 1), sizeof(oroya__pose_interval));
    uint8_t *mem = oroya__calloc(&desc->allocator, 1, size, 16);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                           "oroya_pose_character_create: %zu bytes", size);
    }
    oroya_pose_character *c = (oroya_pose_character *)(mem + o_self);
    c->allocator = desc->allocator;
    c->skeleton = skel;
    c->max_layers = layers;
    c->channel_count = channels;
    c->locals = (oroya_soa_transform *)(mem + o_locals);
    c->models = (oroya_mat4 *)(mem + o_models);
    c->bones = (oroya_mat4 *)(mem + o_bones);
    c->slot_clips = (const oroya_pose_clip **)(mem + o_slots);
    c->cursors = (uint16_t *)(mem + o_cur);
    c->intervals = (oroya__pose_interval *)(mem + o_iv);
    memcpy(c->locals, skel->rest, skel->block_count * sizeof(oroya_soa_transform));
    oroya_pose_local_to_model(skel, c->locals, NULL, c->models, c->bones);
    *out = c;
    return OROYA_OK;
}

void oroya_pose_character_destroy(oroya_pose_character *character) {
    if (character) {
        oroya_allocator a = character->allocator;
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

/* ---- SIMD kernels --------------------------------------------------------------------------- */

typedef struct q4 {
    v4 x, y, z, w;
} q4;
typedef struct t4 {
    v4 x, y, z;
} t4;

static OROYA__INLINE v4 madd(v4 a, v4 b, v4 c) { return v4_add(v4_mul(a, b), c); }
static OROYA__INLINE v4 q4_dot(q4 a, q4 b) {
    return madd(a.x, b.x, madd(a.y, b.y, madd(a.z, b.z, v4_mul(a.w, b.w))));
}
static OROYA__INLINE q4 q4_scale2(q4 a, v4 s, q4 b, v4 t) {
    q4 r = {madd(a.x, s, v4_mul(b.x, t)), madd(a.y, s, v4_mul(b.y, t)),
            madd(a.z, s, v4_mul(b.z, t)), madd(a.w, s, v4_mul(b.w, t))};
    return r;
}
static OROYA__INLINE q4 q4_select(v4 m, q4 a, q4 b) {
    q4 r = {v4_select(m, a.x, b.x), v4_select(m, a.y, b.y), v4_select(m, a.z, b.z),
            v4_select(m, a.w, b.w)};
    return r;
}
static OROYA__INLINE q4 q4_scale(q4 a, v4 k) {
    q4 r = {v4_mul(a.x, k), v4_mul(a.y, k), v4_mul(a.z, k), v4_mul(a.w, k)};
    return r;
}
/* One division and four products: within an ulp of dividing each component. */
static OROYA__INLINE q4 q4_normalize(q4 a) {
    return q4_scale(a, v4_div(v4_set1(1.0f), v4_sqrt(q4_dot(a, a))));
}
static OROYA__INLINE q4 q4_mul(q4 a, q4 b) {
    q4 r;
    r.x = v4_sub(madd(a.w, b.x, madd(a.x, b.w, v4_mul(a.y, b.z))), v4_mul(a.z, b.y));
    r.y = v4_sub(madd(a.w, b.y, madd(a.y, b.w, v4_mul(a.z, b.x))), v4_mul(a.x, b.z));
    r.z = v4_sub(madd(a.w, b.z, madd(a.z, b.w, v4_mul(a.x, b.y))), v4_mul(a.y, b.x));
    r.w = v4_sub(v4_sub(v4_sub(v4_mul(a.w, b.w), v4_mul(a.x, b.x)), v4_mul(a.y, b.y)),
                 v4_mul(a.z, b.z));
    return r;
}

/* sin(u * theta) / sin(theta) as a series in z = cos(theta) - 1: the terms are
 * b_0 = u, b_i = b_(i-1) (u^2 - i^2) z / (i (2i + 1)), evaluated here in Horner form with
 * `terms` terms. Checked in double: for u in [0, 1] and cos(theta) >= 0.9, 4 terms leave
 * 4e-8; for u in [0, 2] and cos(theta) >= cos(pi/4) (the half angle below), 7 terms leave
 * 2e-8. Both are below float's resolution of the weights. */
#define SERIES_ROW(c) {(c), (c), (c), (c)}
static _Alignas(16) const float series_c[8][4] = {
    SERIES_ROW(0.0f), SERIES_ROW(1.0f / 3), SERIES_ROW(1.0f / 10), SERIES_ROW(1.0f / 21),
    SERIES_ROW(1.0f / 36), SERIES_ROW(1.0f / 55), SERIES_ROW(1.0f / 78), SERIES_ROW(1.0f / 105)};
static _Alignas(16) const float series_i2[8][4] = {
    SERIES_ROW(0.0f), SERIES_ROW(1.0f), SERIES_ROW(4.0f), SERIES_ROW(9.0f),
    SERIES_ROW(16.0f), SERIES_ROW(25.0f), SERIES_ROW(36.0f), SERIES_ROW(49.0f)};
#undef SERIES_ROW
static OROYA__INLINE void sin_ratio2(v4 us, v4 ut, v4 z, int terms, v4 *out_s, v4 *out_t) {
    const v4 one = v4_set1(1.0f);
    v4 s2 = v4_mul(us, us), t2 = v4_mul(ut, ut);
    v4 rs = one, rt = one;
    for (int i = terms; i >= 1; i--) {
        v4 zc = v4_mul(z, v4_load(series_c[i]));
        v4 ii = v4_load(series_i2[i]);
        rs = madd(v4_mul(v4_sub(s2, ii), zc), rs, one);
        rt = madd(v4_mul(v4_sub(t2, ii), zc), rt, one);
    }
    *out_s = v4_mul(us, rs);
    *out_t = v4_mul(ut, rt);
}

/* Quaternion.slerpFlat of three.js 0.187 (the same arithmetic as oroya_track_sample's, in
 * float): shortest arc, lerp + normalize from dot 0.9995 up. The true slerp weights come from the series above, so no lane calls sin or acos:
 * directly when every lane has dot >= 0.9 (keys of a clip, most blends), else through the
 * half angle, sin(t theta) / sin(theta) = f(2t, theta / 2) / (2 cos(theta / 2)). */
static OROYA__INLINE q4 q4_slerp(const q4 *pa, const q4 *pb, v4 t) {
    const q4 a = *pa;
    q4 b = *pb;
    v4 d = q4_dot(a, b);
    v4 flip = v4_and(v4_lt(d, v4_zero()), v4_sign_bit());
    b.x = v4_xor(b.x, flip);
    b.y = v4_xor(b.y, flip);
    b.z = v4_xor(b.z, flip);
    b.w = v4_xor(b.w, flip);
    d = v4_xor(d, flip);
    const v4 one = v4_set1(1.0f);
    v4 s = v4_sub(one, t);
    v4 near = v4_ge(d, v4_set1(0.9995f));
    const int near_bits = v4_movemask(near);
    v4 cs = s, ct = t;
    if (near_bits != 15) {
        v4 fs, ft;
        if (v4_movemask(v4_ge(d, v4_set1(0.9f))) == 15) {
            sin_ratio2(s, t, v4_sub(d, one), 4, &fs, &ft);
        } else {
            v4 y = v4_sqrt(v4_mul(v4_add(one, v4_min(d, one)), v4_set1(0.5f)));
            v4 inv = v4_div(v4_set1(0.5f), y);
            sin_ratio2(v4_add(s, s), v4_add(t, t), v4_sub(y, one), 7, &fs, &ft);
            fs = v4_mul(fs, inv);
            ft = v4_mul(ft, inv);
        }
        cs = v4_select(near, s, fs);
        ct = v4_select(near, t, ft);
    }
    q4 r = q4_scale2(a, cs, b, ct);
    if (near_bits) {
        const v4 one_over = v4_div(one, v4_sqrt(q4_dot(r, r)));
        r = q4_scale(r, v4_select(near, one_over, one));
    }
    /* slerpFlat returns equal inputs untouched; here they come out normalized, which for
     * unit keys is the same within an ulp, so the check is not worth its 19 operations. */
    return r;
}

/* Hermite weights (glTF 2.0 Appendix C) for a in [0, 1] and interval dt. */
typedef struct hermite4 {
    v4 p0, m0, p1, m1;
} hermite4;
static OROYA__INLINE hermite4 hermite_weights(v4 a, v4 dt) {
    v4 a2 = v4_mul(a, a), a3 = v4_mul(a2, a);
    hermite4 h;
    h.p1 = v4_sub(v4_mul(v4_set1(3.0f), a2), v4_add(a3, a3));
    h.p0 = v4_sub(v4_set1(1.0f), h.p1);
    v4 s3 = v4_sub(a3, a2);
    h.m0 = v4_mul(v4_add(v4_sub(s3, a2), a), dt);
    h.m1 = v4_mul(s3, dt);
    return h;
}

static const float zero_keys[16];

/* Places a group's cursor on the interval holding t and returns the interval: records k and
 * k + 1 (clamped to the ends, where the factor clamps to 0 or 1). Forward playback advances a
 * record at a time; going back searches. */
static OROYA__INLINE oroya__pose_interval seek(const oroya__pose_group *g, const float *keys,
                                               uint16_t *cursor, float t) {
    const uint32_t s = g->stride, n = g->count;
    const float *base = keys + g->offset;
    uint32_t k = *cursor;
    if (k > n - 2) {
        k = n - 2;
    }
    const float *r = base + (size_t)k * s;
    if (t < r[0] && k > 0) {
        uint32_t lo = 0, hi = k; /* t < time[hi]; find the last lo with time[lo] <= t */
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2;
            if (base[(size_t)mid * s] <= t) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        k = lo;
        r = base + (size_t)k * s;
    } else {
        while (k + 2 < n && t >= r[s]) {
            k++;
            r += s;
        }
    }
    *cursor = (uint16_t)k;
    oroya__pose_interval iv;
    const float t0 = r[0], t1 = r[s];
    iv.k = k;
    iv.dt = t1 - t0;
    float a = (t - t0) / iv.dt;
    iv.a = a > 0 ? (a < 1 ? a : 1) : 0; /* NaN (a zero interval) becomes 0 */
    iv.a_step = t >= t1 ? 1.0f : 0.0f;
    return iv;
}

/* The intervals of every time group of a clip at t, once per layer and frame. */
static void seek_groups(const oroya_pose_clip *clip, uint16_t *cursors, float t,
                        oroya__pose_interval *out) {
    for (uint32_t g = 0; g < clip->group_count; g++) {
        out[g] = seek(&clip->groups[g], clip->keys, &cursors[g], t);
    }
}

/* Samples one (block, channel) of a clip into comps vectors (SoA), given its groups'
 * intervals. */
static OROYA__INLINE void sample_channel(const oroya_pose_clip *clip, uint32_t block, int ch,
                                         const oroya__pose_interval *iv, v4 out[4]) {
    const uint32_t base = (block * 3 + (uint32_t)ch) * 4;
    const oroya__pose_lanes *lanes = &clip->lanes[block * 3 + (uint32_t)ch];
    const uint32_t comps = ch == OROYA__CH_R ? 4 : 3;
    const float *p0[4], *p1[4], *m0[4], *m1[4];
    if (lanes->uniform) {
        const oroya__pose_interval *g = &iv[lanes->group];
        const float *rec = clip->keys + (size_t)g->k * lanes->stride + 1;
        const v4 a = v4_select(v4_loadu((const float *)lanes->step), v4_set1(g->a_step),
                               v4_set1(g->a));
        v4 v0[4] = {v4_loadu(rec + lanes->offset[0]), v4_loadu(rec + lanes->offset[1]),
                    v4_loadu(rec + lanes->offset[2]), v4_loadu(rec + lanes->offset[3])};
        rec += lanes->stride;
        v4 v1[4] = {v4_loadu(rec + lanes->offset[0]), v4_loadu(rec + lanes->offset[1]),
                    v4_loadu(rec + lanes->offset[2]), v4_loadu(rec + lanes->offset[3])};
        v4_transpose(&v0[0], &v0[1], &v0[2], &v0[3]);
        v4_transpose(&v1[0], &v1[1], &v1[2], &v1[3]);
        if (ch == OROYA__CH_R) {
            q4 qa = {v0[0], v0[1], v0[2], v0[3]}, qb = {v1[0], v1[1], v1[2], v1[3]};
            q4 r = q4_slerp(&qa, &qb, a);
            out[0] = r.x, out[1] = r.y, out[2] = r.z, out[3] = r.w;
        } else {
            v4 w0 = v4_sub(v4_set1(1.0f), a);
            for (int e = 0; e < 3; e++) {
                out[e] = madd(w0, v0[e], v4_mul(a, v1[e]));
            }
        }
        return;
    }
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
    const v4 dt = v4_load(dv);
    const v4 a = v4_select(v4_loadu((const float *)lanes->step), v4_load(sv), v4_load(av));
    v4 v0[4] = {v4_loadu(p0[0]), v4_loadu(p0[1]), v4_loadu(p0[2]), v4_loadu(p0[3])};
    v4 v1[4] = {v4_loadu(p1[0]), v4_loadu(p1[1]), v4_loadu(p1[2]), v4_loadu(p1[3])};
    v4_transpose(&v0[0], &v0[1], &v0[2], &v0[3]);
    v4_transpose(&v1[0], &v1[1], &v1[2], &v1[3]);
    if (ch == OROYA__CH_R) {
        q4 qa = {v0[0], v0[1], v0[2], v0[3]}, qb = {v1[0], v1[1], v1[2], v1[3]};
        q4 r = q4_slerp(&qa, &qb, a);
        if (lanes->any_cubic) {
            v4 g0[4] = {v4_loadu(m0[0]), v4_loadu(m0[1]), v4_loadu(m0[2]), v4_loadu(m0[3])};
            v4 g1[4] = {v4_loadu(m1[0]), v4_loadu(m1[1]), v4_loadu(m1[2]), v4_loadu(m1[3])};
            v4_transpose(&g0[0], &g0[1], &g0[2], &g0[3]);
            v4_transpose(&g1[0], &g1[1], &g1[2], &g1[3]);
            hermite4 h = hermite_weights(a, dt);
            q4 c;
            c.x = madd(h.p0, v0[0], madd(h.m0, g0[0], madd(h.p1, v1[0], v4_mul(h.m1, g1[0]))));
            c.y = madd(h.p0, v0[1], madd(h.m0, g0[1], madd(h.p1, v1[1], v4_mul(h.m1, g1[1]))));
            c.z = madd(h.p0, v0[2], madd(h.m0, g0[2], madd(h.p1, v1[2], v4_mul(h.m1, g1[2]))));
            c.w = madd(h.p0, v0[3], madd(h.m0, g0[3], madd(h.p1, v1[3], v4_mul(h.m1, g1[3]))));
            c = q4_normalize(c);
            r = q4_select(v4_loadu((const float *)lanes->cubic), c, r);
        }
        out[0] = r.x, out[1] = r.y, out[2] = r.z, out[3] = r.w;
        return;
    }
    v4 w0 = v4_sub(v4_set1(1.0f), a), w1 = a;
    if (lanes->any_cubic) {
        v4 g0[4] = {v4_loadu(m0[0]), v4_loadu(m0[1]), v4_loadu(m0[2]), v4_loadu(m0[3])};
        v4 g1[4] = {v4_loadu(m1[0]), v4_loadu(m1[1]), v4_loadu(m1[2]), v4_loadu(m1[3])};
        v4_transpose(&g0[0], &g0[1], &g0[2], &g0[3]);
        v4_transpose(&g1[0], &g1[1], &g1[2], &g1[3]);
        hermite4 h = hermite_weights(a, dt);
        const v4 cubic = v4_loadu((const float *)lanes->cubic);
        w0 = v4_select(cubic, h.p0, w0);
        w1 = v4_select(cubic, h.p1, w1);
        for (int e = 0; e < 3; e++) {
            out[e] = madd(w0, v0[e], madd(w1, v1[e], madd(h.m0, g0[e], v4_mul(h.m1, g1[e]))));
        }
        return;
    }
    for (int e = 0; e < 3; e++) {
        out[e] = madd(w0, v0[e], v4_mul(w1, v1[e]));
    }
}

/* The blend state of one block: the accumulated pose and, per channel, the summed weight. */
typedef struct blend4 {
    t4 t;
    q4 q;
    t4 s;
    v4 wt, wq, ws;
} blend4;

static OROYA__INLINE t4 t4_mix(t4 a, t4 b, v4 f) {
    v4 g = v4_sub(v4_set1(1.0f), f);
    t4 r = {madd(a.x, g, v4_mul(b.x, f)), madd(a.y, g, v4_mul(b.y, f)),
            madd(a.z, g, v4_mul(b.z, f))};
    return r;
}
static OROYA__INLINE t4 t4_select(v4 m, t4 a, t4 b) {
    t4 r = {v4_select(m, a.x, b.x), v4_select(m, a.y, b.y), v4_select(m, a.z, b.z)};
    return r;
}

/* PropertyMixer.accumulate per lane: the first contribution is copied, later ones mixed in
 * with weight w / (accumulated + w). Lanes the clip does not animate carry weight 0. */
static OROYA__INLINE v4 accumulate_weight(v4 *acc, v4 lane_w, v4 *first) {
    v4 total = v4_add(*acc, lane_w);
    *first = v4_and(v4_eq(*acc, v4_zero()), v4_gt(lane_w, v4_zero()));
    v4 f = v4_div(lane_w, v4_max(total, v4_set1(1e-30f)));
    *acc = total;
    return f;
}

static OROYA__INLINE void blend_normal(blend4 *st, const oroya_pose_clip *clip, uint32_t block,
                                       const oroya__pose_interval *iv, float w) {
    const v4 wv = v4_set1(w);
    v4 s[4], first;
    const oroya__pose_lanes *lanes = &clip->lanes[block * 3];
    if (lanes[OROYA__CH_T].any) {
        sample_channel(clip, block, OROYA__CH_T, iv, s);
        v4 lw = v4_and(v4_loadu((const float *)lanes[OROYA__CH_T].animated), wv);
        v4 f = accumulate_weight(&st->wt, lw, &first);
        t4 x = {s[0], s[1], s[2]};
        st->t = t4_select(first, x, t4_mix(st->t, x, f));
    }
    if (lanes[OROYA__CH_R].any) {
        sample_channel(clip, block, OROYA__CH_R, iv, s);
        v4 lw = v4_and(v4_loadu((const float *)lanes[OROYA__CH_R].animated), wv);
        v4 f = accumulate_weight(&st->wq, lw, &first);
        q4 x = {s[0], s[1], s[2], s[3]};
        const int first_bits = v4_movemask(first);
        if (first_bits == 15) {
            st->q = x; /* the usual first layer: every lane animated */
        } else {
            q4 mixed = q4_slerp(&st->q, &x, f);
            const v4 some = v4_gt(f, v4_zero());
            if (v4_movemask(some) != 15) {
                mixed = q4_select(some, mixed, st->q);
            }
            st->q = first_bits ? q4_select(first, x, mixed) : mixed;
        }
    }
    if (lanes[OROYA__CH_S].any) {
        sample_channel(clip, block, OROYA__CH_S, iv, s);
        v4 lw = v4_and(v4_loadu((const float *)lanes[OROYA__CH_S].animated), wv);
        v4 f = accumulate_weight(&st->ws, lw, &first);
        t4 x = {s[0], s[1], s[2]};
        st->s = t4_select(first, x, t4_mix(st->s, x, f));
    }
}

/* The rest value where no layer contributed, a mix where the weights sum below 1. */
static OROYA__INLINE t4 finish_t4(t4 acc, v4 w, const float *rx, const float *ry,
                                  const float *rz) {
    const v4 one = v4_set1(1.0f);
    const int none = v4_movemask(v4_eq(w, v4_zero()));
    const int part = v4_movemask(v4_lt(w, one));
    if (!part) {
        return acc;
    }
    t4 rest = {v4_load(rx), v4_load(ry), v4_load(rz)};
    if (none == 15) {
        return rest;
    }
    t4 mixed = t4_mix(acc, rest, v4_sub(one, w));
    t4 r = t4_select(v4_lt(w, one), mixed, acc);
    return t4_select(v4_eq(w, v4_zero()), rest, r);
}

/* The rest pose fills what the normal layers left (PropertyMixer.apply with weight < 1). */
static OROYA__INLINE void blend_finish(blend4 *st, const oroya_soa_transform *rest) {
    const v4 one = v4_set1(1.0f), zero = v4_zero();
    st->t = finish_t4(st->t, st->wt, rest->tx, rest->ty, rest->tz);
    st->s = finish_t4(st->s, st->ws, rest->sx, rest->sy, rest->sz);
    const v4 part = v4_lt(st->wq, one);
    if (v4_movemask(part)) {
        q4 rq = {v4_load(rest->qx), v4_load(rest->qy), v4_load(rest->qz), v4_load(rest->qw)};
        const v4 none = v4_eq(st->wq, zero);
        if (v4_movemask(none) == 15) {
            st->q = rq;
        } else {
            q4 mixed = q4_slerp(&st->q, &rq, v4_sub(one, st->wq));
            st->q = q4_select(none, rq, q4_select(part, mixed, st->q));
        }
    }
}

/* An additive layer: q = q * slerp(identity, delta, w), t += w * delta, s += w * delta. */
static OROYA__INLINE void blend_additive(blend4 *st, const oroya_pose_clip *clip,
                                         uint32_t block, const oroya__pose_interval *iv,
                                         float w) {
    const v4 wv = v4_set1(w);
    v4 s[4];
    const oroya__pose_lanes *lanes = &clip->lanes[block * 3];
    if (lanes[OROYA__CH_T].any) {
        sample_channel(clip, block, OROYA__CH_T, iv, s);
        v4 lw = v4_and(v4_loadu((const float *)lanes[OROYA__CH_T].animated), wv);
        st->t.x = madd(s[0], lw, st->t.x);
        st->t.y = madd(s[1], lw, st->t.y);
        st->t.z = madd(s[2], lw, st->t.z);
    }
    if (lanes[OROYA__CH_R].any) {
        sample_channel(clip, block, OROYA__CH_R, iv, s);
        v4 animated = v4_loadu((const float *)lanes[OROYA__CH_R].animated);
        q4 d = {s[0], s[1], s[2], s[3]};
        if (w != 1.0f) {
            const q4 id = {v4_zero(), v4_zero(), v4_zero(), v4_set1(1.0f)};
            d = q4_slerp(&id, &d, wv);
        }
        st->q = q4_select(animated, q4_mul(st->q, d), st->q);
    }
    if (lanes[OROYA__CH_S].any) {
        sample_channel(clip, block, OROYA__CH_S, iv, s);
        v4 lw = v4_and(v4_loadu((const float *)lanes[OROYA__CH_S].animated), wv);
        st->s.x = madd(s[0], lw, st->s.x);
        st->s.y = madd(s[1], lw, st->s.y);
        st->s.z = madd(s[2], lw, st->s.z);
    }
}

/* ---- local to model ---------------------------------------------------------------------- */

#if defined(OROYA__V4_SSE2) && (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define OROYA__POSE_AVX2 1
#include <immintrin.h>
/* bone = model * inverse_bind, two columns per 256-bit operation: (m_k | m_k) comes from one
 * broadcast of the model column just stored, (ib_c[k] x4 | ib_c+1[k] x4) from one permute of
 * two loaded columns. The same products and sums, in the same order, as the 128-bit loop in
 * ltm_joint, so both paths give identical bits. */
__attribute__((target("avx2"))) static inline void bones_avx2(const float *m, const float *ib,
                                                              float *bo) {
    const __m256 m0 = _mm256_broadcast_ps((const __m128 *)m);
    const __m256 m1 = _mm256_broadcast_ps((const __m128 *)(m + 4));
    const __m256 m2 = _mm256_broadcast_ps((const __m128 *)(m + 8));
    const __m256 m3 = _mm256_broadcast_ps((const __m128 *)(m + 12));
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

/* model = parent * local for one joint, then bone = model * inverse_bind. lc holds the local
 * matrix's 12 meaningful elements (column-major, rows 0-2) for the 4 lanes of a block; the
 * lane's elements are broadcast from memory, which costs one instruction each and no
 * register, where shuffling 12 live vectors would spill. */
static OROYA__INLINE void ltm_joint(float lc[12][4], uint32_t lane, const float *pm,
                                    const float *ib, float *o, float *bo, int wide) {
    const v4 p0 = v4_loadu(pm), p1 = v4_loadu(pm + 4), p2 = v4_loadu(pm + 8),
             p3 = v4_loadu(pm + 12);
    const v4 m0 = madd(p0, v4_set1(lc[0][lane]),
                       madd(p1, v4_set1(lc[1][lane]), v4_mul(p2, v4_set1(lc[2][lane]))));
    const v4 m1 = madd(p0, v4_set1(lc[3][lane]),
                       madd(p1, v4_set1(lc[4][lane]), v4_mul(p2, v4_set1(lc[5][lane]))));
    const v4 m2 = madd(p0, v4_set1(lc[6][lane]),
                       madd(p1, v4_set1(lc[7][lane]), v4_mul(p2, v4_set1(lc[8][lane]))));
    const v4 m3 = madd(p0, v4_set1(lc[9][lane]),
                       madd(p1, v4_set1(lc[10][lane]), madd(p2, v4_set1(lc[11][lane]), p3)));
    v4_storeu(o, m0);
    v4_storeu(o + 4, m1);
    v4_storeu(o + 8, m2);
    v4_storeu(o + 12, m3);
#ifdef OROYA__POSE_AVX2
    if (bo && wide) {
        bones_avx2(o, ib, bo);
        return;
    }
#endif
    (void)wide;
    if (bo) {
        for (int c = 0; c < 4; c++) {
            const float *v = ib + c * 4;
            v4 r = madd(m0, v4_set1(v[0]),
                        madd(m1, v4_set1(v[1]), madd(m2, v4_set1(v[2]), v4_mul(m3, v4_set1(v[3])))));
            v4_storeu(bo + c * 4, r);
        }
    }
}

static OROYA__INLINE void ltm_block(const oroya_pose_skeleton *skel, uint32_t b,
                                    const oroya_soa_transform *B, const oroya_mat4 *root,
                                    oroya_mat4 *models, oroya_mat4 *bones, int wide) {
    static const oroya_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    const float *rootm = root ? root->m : identity.m;
    const v4 one = v4_set1(1.0f), two = v4_set1(2.0f);
    q4 q = {v4_load(B->qx), v4_load(B->qy), v4_load(B->qz), v4_load(B->qw)};
    /* Matrix4.compose of three.js, four joints at once. */
    v4 x2 = v4_mul(q.x, two), y2 = v4_mul(q.y, two), z2 = v4_mul(q.z, two);
    v4 xx = v4_mul(q.x, x2), xy = v4_mul(q.x, y2), xz = v4_mul(q.x, z2);
    v4 yy = v4_mul(q.y, y2), yz = v4_mul(q.y, z2), zz = v4_mul(q.z, z2);
    v4 wx = v4_mul(q.w, x2), wy = v4_mul(q.w, y2), wz = v4_mul(q.w, z2);
    v4 sx = v4_load(B->sx), sy = v4_load(B->sy), sz = v4_load(B->sz);
    _Alignas(16) float lc[12][4];
    v4_store(lc[0], v4_mul(v4_sub(one, v4_add(yy, zz)), sx));
    v4_store(lc[1], v4_mul(v4_add(xy, wz), sx));
    v4_store(lc[2], v4_mul(v4_sub(xz, wy), sx));
    v4_store(lc[3], v4_mul(v4_sub(xy, wz), sy));
    v4_store(lc[4], v4_mul(v4_sub(one, v4_add(xx, zz)), sy));
    v4_store(lc[5], v4_mul(v4_add(yz, wx), sy));
    v4_store(lc[6], v4_mul(v4_add(xz, wy), sz));
    v4_store(lc[7], v4_mul(v4_sub(yz, wx), sz));
    v4_store(lc[8], v4_mul(v4_sub(one, v4_add(xx, yy)), sz));
    memcpy(lc[9], B->tx, sizeof lc[9]);
    memcpy(lc[10], B->ty, sizeof lc[10]);
    memcpy(lc[11], B->tz, sizeof lc[11]);
    const uint32_t n = skel->joint_count;
    const uint32_t end = n - b * 4 < 4 ? n - b * 4 : 4;
    for (uint32_t l = 0; l < end; l++) {
        const uint32_t j = b * 4 + l;
        const uint32_t parent = skel->parents[j];
        ltm_joint(lc, l, parent == UINT32_MAX ? rootm : models[parent].m,
                  skel->inverse_bind[j].m, models[j].m, bones ? bones[j].m : NULL, wide);
    }
}

oroya_result oroya_pose_local_to_model(const oroya_pose_skeleton *skeleton,
                                       const oroya_soa_transform *locals,
                                       const oroya_mat4 *root, oroya_mat4 *models,
                                       oroya_mat4 *bones) {
    if (!skeleton || !locals || !models) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t b = 0; b < skeleton->block_count; b++) {
        ltm_block(skeleton, b, &locals[b], root, models, bones, 0);
    }
    return OROYA_OK;
}

/* ---- update ------------------------------------------------------------------------------- */

static oroya_result check_update(const oroya_pose_character *c, const oroya_pose_layer *layers,
                                 uint32_t layer_count, uint32_t index, oroya_error *err) {
    if (!c) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "updates[%u]: character is NULL",
                           index);
    }
    if (layer_count > c->max_layers) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "updates[%u]: %u layers, the character has %u slots", index,
                           layer_count, c->max_layers);
    }
    if (layer_count && !layers) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "updates[%u]: layers is NULL", index);
    }
    for (uint32_t i = 0; i < layer_count; i++) {
        if (!layers[i].clip) {
            continue;
        }
        if (layers[i].clip->skeleton != c->skeleton) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "updates[%u].layers[%u]: the clip was built for another skeleton",
                               index, i);
        }
        if (!isfinite(layers[i].time)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "updates[%u].layers[%u]: time is not finite", index, i);
        }
        if (layers[i].weight > 0 && !isfinite(layers[i].weight)) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "updates[%u].layers[%u]: weight is not finite", index, i);
        }
    }
    return OROYA_OK;
}

/* A layer that contributes this update: its clip, its intervals and its weight. */
typedef struct active_layer {
    const oroya_pose_clip *clip;
    const oroya__pose_interval *iv;
    float weight;
} active_layer;

static OROYA__INLINE void run_update_body(oroya_pose_character *c, const oroya_pose_layer *layers,
                                          uint32_t layer_count, int wide) {
    const oroya_pose_skeleton *skel = c->skeleton;
    const size_t per_slot = (size_t)c->channel_count + 1;
    /* The contributing layers, split once per update rather than tested again in every
     * block (layer_count <= max_layers <= OROYA_POSE_MAX_LAYERS, checked by check_update). */
    active_layer normal[OROYA_POSE_MAX_LAYERS], additive[OROYA_POSE_MAX_LAYERS];
    uint32_t normal_count = 0, additive_count = 0;
    for (uint32_t i = 0; i < layer_count && i < OROYA_POSE_MAX_LAYERS; i++) {
        const oroya_pose_layer *ly = &layers[i];
        if (c->slot_clips[i] != ly->clip) {
            c->slot_clips[i] = ly->clip;
            memset(c->cursors + i * per_slot, 0, per_slot * sizeof(uint16_t));
        }
        if (ly->clip && ly->weight > 0) {
            oroya__pose_interval *iv = c->intervals + i * per_slot;
            seek_groups(ly->clip, c->cursors + i * per_slot, ly->time, iv);
            active_layer *a = ly->clip->additive ? &additive[additive_count++]
                                                 : &normal[normal_count++];
            a->clip = ly->clip;
            a->iv = iv;
            a->weight = ly->weight;
        }
    }
    for (uint32_t b = 0; b < skel->block_count; b++) {
        /* Field by field: a memset of the 208 bytes compiles to `rep stosq`, which has a
         * start-up cost of tens of cycles per block (callgrind counts it as 26 instructions). */
        const v4 z = v4_zero();
        blend4 st = {{z, z, z}, {z, z, z, z}, {z, z, z}, z, z, z};
        for (uint32_t i = 0; i < normal_count; i++) {
            blend_normal(&st, normal[i].clip, b, normal[i].iv, normal[i].weight);
        }
        blend_finish(&st, &skel->rest[b]);
        for (uint32_t i = 0; i < additive_count; i++) {
            blend_additive(&st, additive[i].clip, b, additive[i].iv, additive[i].weight);
        }
        oroya_soa_transform *o = &c->locals[b];
        v4_store(o->tx, st.t.x);
        v4_store(o->ty, st.t.y);
        v4_store(o->tz, st.t.z);
        v4_store(o->qx, st.q.x);
        v4_store(o->qy, st.q.y);
        v4_store(o->qz, st.q.z);
        v4_store(o->qw, st.q.w);
        v4_store(o->sx, st.s.x);
        v4_store(o->sy, st.s.y);
        v4_store(o->sz, st.s.z);
        /* Parents come first, so this block's joints only need blocks already done. */
        ltm_block(skel, b, o, NULL, c->models, c->bones, wide);
    }
}

/* The same code twice: for the SSE2 baseline, and with AVX2 enabled so the compiler can use
 * the three-operand VEX forms and broadcasts from memory (about a third fewer instructions:
 * no register copies). Neither uses FMA (ISO C mode keeps a * b + c as two roundings), so
 * both give bit-identical results and a crowd is deterministic across machines. */
static void run_update_sse2(oroya_pose_character *c, const oroya_pose_layer *layers,
                            uint32_t layer_count) {
    run_update_body(c, layers, layer_count, 0);
}

#ifdef OROYA__POSE_AVX2
__attribute__((target("avx2"))) static void run_update_avx2(oroya_pose_character *c,
                                                            const oroya_pose_layer *layers,
                                                            uint32_t layer_count) {
    run_update_body(c, layers, layer_count, 1);
}

static int avx2_state; /* 0 unknown, 1 yes, 2 no; a benign race: all threads find the same */
static bool pose_have_avx2(void) {
    if (avx2_state == 0) {
        __builtin_cpu_init();
        avx2_state = __builtin_cpu_supports("avx2") ? 1 : 2;
    }
    return avx2_state == 1;
}
#endif

void oroya__pose_run_update(oroya_pose_character *c, const oroya_pose_layer *layers,
                            uint32_t layer_count, int kernel) {
#ifdef OROYA__POSE_AVX2
    if (kernel == 0 && pose_have_avx2()) {
        run_update_avx2(c, layers, layer_count);
        return;
    }
#endif
    (void)kernel;
    run_update_sse2(c, layers, layer_count);
}

static void run_update(oroya_pose_character *c, const oroya_pose_layer *layers,
                       uint32_t layer_count) {
    oroya__pose_run_update(c, layers, layer_count, 0);
}

oroya_result oroya_pose_character_update(oroya_pose_character *character,
                                         const oroya_pose_layer *layers, uint32_t layer_count,
                                         oroya_error *err) {
    oroya_result res = check_update(character, layers, layer_count, 0, err);
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
    for (uint32_t i = 0; i < count; i++) {
        oroya_result res =
            check_update(updates[i].character, updates[i].layers, updates[i].layer_count, i, err);
        if (res != OROYA_OK) {
            return res;
        }
    }
    batch_ctx ctx = {updates};
    if (scheduler && scheduler->parallel_for) {
        scheduler->parallel_for(scheduler->user, count, batch_range, &ctx);
    } else {
        batch_range(&ctx, 0, count);
    }
    return OROYA_OK;
}
