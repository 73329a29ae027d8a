/* Private structures of the pose layer (src/pose*.c), shared with its tests. */
#ifndef OROYA_INTERNAL_POSE_H
#define OROYA_INTERNAL_POSE_H

#include <string.h>

#include "oroya/pose.h"

/* Channels of a joint, in this order in every block. */
enum { OROYA__CH_T = 0, OROYA__CH_R = 1, OROYA__CH_S = 2, OROYA__CH_COUNT = 3 };

/* How a channel's keys interpolate in the runtime format. */
enum { OROYA__KIND_LINEAR = 0, OROYA__KIND_STEP = 1, OROYA__KIND_CUBIC = 2 };

struct oroya_pose_skeleton {
    oroya_allocator allocator;
    uint32_t joint_count;
    uint32_t block_count;      /* (joint_count + 3) / 4 */
    uint32_t *parents;         /* joint_count, UINT32_MAX = root */
    oroya_soa_transform *rest; /* block_count, padding lanes identity */
    oroya_mat4 *inverse_bind;  /* joint_count */
    char **names;              /* joint_count, or NULL */
    uint32_t *bone_slots;      /* joint_count: where each joint's bone matrix goes */
    bool bone_slots_identity;  /* bone_slots[j] == j for every joint */
};

/* One joint channel of a runtime clip. In a uniform (block, channel) (see
 * oroya__pose_lanes) only group and kind are used. Otherwise: records of `stride` floats at
 * keys + offset, each [time, value] (LINEAR, STEP) or [time, in, value, out] (CUBIC), whose
 * times are those of its time group. */
typedef struct oroya__pose_channel {
    uint32_t offset;
    uint16_t group;
    uint8_t kind;
    uint8_t stride;
} oroya__pose_channel;

/* Channels with the same key times (glTF samplers usually share one input accessor) form a
 * time group: a frame finds the interval and its interpolation factor once per group, not
 * once per channel. */
typedef struct oroya__pose_group {
    uint32_t offset; /* count key times at keys + offset */
    uint32_t count;  /* >= 2 */
} oroya__pose_group;

/* A group's interval at the current frame: records k and k + 1, the LINEAR/CUBIC factor a,
 * the STEP factor, and the interval length. */
typedef struct oroya__pose_interval {
    uint32_t k;
    float a, a_step, dt;
} oroya__pose_interval;

/* Lane masks of one (block, channel): all-ones words for the lanes that are animated, that
 * step, that are cubic. `any` says whether the channel is animated in any lane. */
typedef struct oroya__pose_lanes {
    uint32_t animated[4];
    uint32_t step[4];
    uint32_t cubic[4];
    uint32_t any, any_cubic;
    /* uniform: the 4 lanes share a time group (the common case). Key k is then stored SoA,
     * `stride` floats at keys + offset[0] + k * stride: one 16-byte aligned row of 4 lanes
     * per component (comps rows), or, when any_cubic, in-tangent, value and out-tangent rows
     * (3 * comps rows; zero tangents on the other lanes). */
    uint32_t uniform, group, stride, pad_[3];
    uint32_t offset[4];
} oroya__pose_lanes;

struct oroya_pose_clip {
    oroya_allocator allocator;
    const oroya_pose_skeleton *skeleton;
    float duration;
    bool additive;
    uint32_t ignored_tracks;
    uint32_t channel_count; /* block_count * 12: index (block * 3 + ch) * 4 + lane */
    oroya__pose_channel *channels;
    uint32_t group_count; /* <= channel_count + 1; group 0 = the constants */
    oroya__pose_group *groups;
    oroya__pose_lanes *lanes; /* block_count * 3; NULL in a compressed clip */
    float *keys;              /* compressed clips: the group times only */
    bool step_rotations;      /* some rotation lane is STEP (lanes[].step; the mixer's raw_keys) */
    /* Compressed clips (src/anim/pose_compress.c): qblocks != NULL, channels and lanes NULL. */
    const struct oroya__pose_qblock *qblocks; /* the stored (block, channel)s; entry 0 is NONE */
    const uint8_t *qindex;                    /* block_count * 3: entry in qblocks of
                                                 (block * 3 + channel); 0 when nothing is stored
                                                 (at most OROYA__Q_MAX_ENTRIES entries) */
    const float *qdata;                       /* key data of the qblocks, 16-byte aligned rows */
    uint32_t qserial;         /* compressed clips: unique per clip (never 0), tags the key cache */
    uint32_t state_intervals; /* compressed clips: intervals a layer's state needs (the groups,
                                 then the decoded-key cache: oroya__pose_clip_state_intervals) */
    uint32_t qcached_count;   /* compressed clips: the (block, channel)s in the key cache, the
                                 entries 1 .. qcached_count of qblocks, rotations first */
    uint32_t qcached_rot;     /* how many of them are rotations */
    size_t bytes;             /* the clip's allocation */
    float tolerance;          /* asked for at create; 0 for float storage */
    float max_error, max_joint_error; /* measured at create (oroya_pose_clip_info) */
    uint32_t qcache_at; /* compressed clips: bytes from a layer's intervals to the slack entry
                           before its key cache rows (oroya__pose_cache_header - 1 entries) */
};

/* ---- compressed clips (src/anim/pose_compress.c, sampled in internal/pose_kernel_q.h) ---------- */

/* How one (block, channel) of a compressed clip stores its keys, all of them SoA rows of 4
 * lanes sharing the block's time group:
 *   NONE   no lane animated: nothing stored, never sampled;
 *   CONST  one key, comps rows of 4 floats (rotations x, y, z, w);
 *   F32    count keys of comps rows of 4 floats;
 *   Q16/Q8 a range header (oroya__pose_qkeys), then count keys of 3 rows of 4 unsigned 16-
 *          or 8-bit integers: value = min + q * step. Translations and scales: 3 rows of lane
 *          minima, 3 rows of lane steps (floats). Rotations: 3 rows of 4 16-bit minima m
 *          (min = m / 32768 - 1, exact in float: the components are in [-1, 1]), then 3 rows
 *          of 4 steps as the high 16 bits of a float (bfloat16, the encoder rounds up). Rotations keep three
 *          components c0, c1, c2 (x, y, z unless `drop` says otherwise: the other three in
 *          order) and rebuild c3 = sqrt(max(0, 1 - (c0^2 + c1^2 + c2^2))) >= 0;
 *   P32/P24/P16 the same header, then count keys of one 32-, 24- or 16-bit word per lane
 *          (oroya__pose_qword) holding x, y and z in bits[0], bits[1], bits[2] bits from the
 *          low end (per block; a component whose lanes never vary may take 0 bits);
 *   P40/P48 the same with a 40- or 48-bit word per lane: a row of 4 low 32-bit words, then
 *          a row of 4 high bytes (P40) or 16-bit halves (P48); a component may straddle the
 *          two;
 *   L32    one lane animated: its 3 minima and 3 steps (floats), then count keys of one
 *          32-bit word (as P32, the lane's) that every lane decodes alike (the others are not
 *          animated, weight 0).
 * Blocks are stored in qdata at 16-byte aligned offsets, except the quantized rotation ones
 * and L32 (all loads unaligned), packed at 4 bytes after all the others. */
enum {
    OROYA__Q_NONE = 0,
    OROYA__Q_CONST = 1,
    OROYA__Q_F32 = 2,
    OROYA__Q_16 = 3,
    OROYA__Q_8 = 4,
    OROYA__Q_P32 = 5,
    OROYA__Q_P16 = 6,
    OROYA__Q_P24 = 7,
    OROYA__Q_P40 = 8,
    OROYA__Q_P48 = 9,
    OROYA__Q_L32 = 10
};

/* The bytes of one key of a quantized block (4 lanes), by its kind. */
static inline size_t oroya__pose_key_bytes(uint8_t kind) {
    return kind == OROYA__Q_16    ? 24
           : kind == OROYA__Q_8   ? 12
           : kind == OROYA__Q_P32 ? 16
           : kind == OROYA__Q_P24 ? 12
           : kind == OROYA__Q_P40 ? 20
           : kind == OROYA__Q_P48 ? 24
           : kind == OROYA__Q_L32 ? 4
                                  : 8;
}

/* Floats of the range header before the keys of a quantized block (see above). */
static inline uint32_t oroya__pose_qkeys(uint8_t kind, int ch) {
    return kind == OROYA__Q_L32 ? 6u : ch == OROYA__CH_R ? 12u : 24u;
}

/* A rotation block's minimum and step (see above), as the kernel decodes them. */
static inline float oroya__pose_qmin(uint16_t m) { return (float)m * (1.0f / 32768.0f) - 1.0f; }
static inline float oroya__pose_bf16(uint16_t h) {
    const uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The packed word of lane l of a packed key (P24: a row of 4 low 16-bit halves, then a row
 * of 4 high bytes; P40/P48: a row of 4 low 32-bit words, then the high parts). Load-time and
 * reference code; the kernel loads whole rows. */
static inline uint64_t oroya__pose_qword(uint8_t kind, const uint8_t *key, uint32_t l) {
    if (kind == OROYA__Q_L32) {
        uint32_t w;
        memcpy(&w, key, 4);
        return w;
    }
    if (kind == OROYA__Q_P32 || kind == OROYA__Q_P40 || kind == OROYA__Q_P48) {
        uint32_t w;
        memcpy(&w, key + l * 4, 4);
        uint64_t v = w;
        if (kind == OROYA__Q_P40) {
            v |= (uint64_t)key[16 + l] << 32;
        } else if (kind == OROYA__Q_P48) {
            uint16_t h;
            memcpy(&h, key + 16 + l * 2, 2);
            v |= (uint64_t)h << 32;
        }
        return v;
    }
    uint16_t h;
    memcpy(&h, key + l * 2, 2);
    uint64_t w = h;
    if (kind == OROYA__Q_P24) {
        w |= (uint64_t)key[8 + l] << 16;
    }
    return w;
}
/* Entries of a compressed clip's qblocks, NONE included, so that an 8-bit qindex finds them:
 * a clip that binds more (block, channel)s stays in float storage. */
#define OROYA__Q_MAX_ENTRIES 256u
typedef struct oroya__pose_qblock {
    uint32_t offset;   /* floats into qdata */
    uint16_t group;    /* time group (CONST, NONE: 0) */
    uint8_t kind;      /* OROYA__Q_* */
    uint8_t animated;  /* lane bits */
    uint8_t bits[3];   /* quantized kinds: bits of the three stored components */
    uint8_t key_bytes; /* quantized kinds: bytes of one key (4 lanes) */
    uint16_t drop;     /* quantized rotations: nibble k (bits 4k..4k+3) holds the lanes that
                          rebuild component k (0-3 = x-w) from the other three; 0xF000: w
                          everywhere */
    uint16_t cache;    /* quantized kinds: first row of its five decoded keys in the layer's
                          key cache (OROYA__Q_NO_CACHE: decoded at every sample) */
} oroya__pose_qblock;

/* The storage of (block, channel) bc = block * 3 + channel of a compressed clip. */
static inline const oroya__pose_qblock *oroya__pose_qb(const oroya_pose_clip *c, uint32_t bc) {
    return &c->qblocks[c->qindex[bc]];
}

/* The decoded-key cache of a compressed clip lives in the layer's interval array (the state a
 * character slot or a mixer action keeps per clip), after the clip's group_count intervals:
 * one header entry (the clip's qserial), one tag per group (packed 4 per entry: w + 1 for the
 * window of keys w .. w + 4 the group's cached keys hold, 0 = none), one entry of slack to
 * align, then rows of 4 floats (one interval each): first each group's offset (packed 4 per
 * row: the floats from its entries' first row to key k's, 0 to 3 * OROYA__Q_KEY_FLOATS), then
 * per cached (block, channel) key w's 4 rows (a vector: 3 and one unused), then key w + 1's,
 * and so on to key w + 4's. A group's interval k is w .. w + 3, so the kernel refreshes the
 * cache (pkq_refresh) every fourth key interval, four keys at a time (key w + 4 becomes key
 * w), and sampling a cached block only loads decoded rows (keys k and k + 1), as a float clip
 * does. */
#define OROYA__Q_NO_CACHE UINT16_MAX
#define OROYA__Q_CACHE_KEYS 5u
#define OROYA__Q_KEY_FLOATS 16u
static inline uint32_t oroya__pose_cache_header(uint32_t groups) {
    return groups + 1 + (groups + 3) / 4 + 1;
}

/* The oroya__pose_interval entries a character slot has for a skeleton of `channels`
 * channels: a clip's groups (at most channels + 1), or a compressed clip's groups and
 * decoded-key cache (chosen to fit: five keys of every rotation take 5 / 3 * `channels`
 * rows, and channels / 8 more hold the header and some translations). */
static inline uint32_t oroya__pose_slot_intervals(uint32_t channels) {
    return channels / 3 * OROYA__Q_CACHE_KEYS + 1 + channels / 8;
}

/* The oroya__pose_interval entries a layer's state needs for clip c: its groups, and for a
 * compressed clip its decoded-key cache (at most oroya__pose_slot_intervals, what a character
 * slot has). */
static inline uint32_t oroya__pose_clip_state_intervals(const oroya_pose_clip *c) {
    return c->state_intervals > c->group_count ? c->state_intervals : c->group_count;
}

/* Builds a compressed clip (desc->compress is set; see oroya_pose_clip_create). */
oroya_result oroya__pose_clip_create_compressed(const oroya_pose_clip_desc *desc,
                                                oroya_pose_clip **out, oroya_error *err);

/* Tests: the compressed-clip error measure's work since the process started (time samples,
 * each posing every joint, summed over calls; and the calls). */
void oroya__pose_compress_measure_counts(uint64_t *samples, uint64_t *calls);
/* Tests: the measure's work budget (joint poses) per compressed clip, once a candidate meets
 * the bound; 0 restores the default (PC_WORK_BUDGET in pose_compress.c). */
void oroya__pose_compress_set_work_budget(double joint_poses);

/* The channel (OROYA__CH_T/R/S) of a track property, -1 for WEIGHTS. */
int oroya__pose_channel_of(oroya_property p);

/* normalize(r)^-1 * q in double (an additive clip's rotation delta against the rest value r). */
void oroya__pose_quat_delta(const float r[4], float *q);

/* The run-time fallbacks of one run of a list of IKs (oroya_pose_character_ik_fallbacks,
 * oroya_mixer_ik_fallbacks): how many IKs that were on (weight not <= 0) left their chain as
 * blended, and the lowest list index among them (UINT32_MAX: none). */
typedef struct oroya__ik_report {
    uint32_t count, first;
} oroya__ik_report;

/* The public *_ik_fallbacks on a report of a list of ik_count IKs. */
static inline uint32_t oroya__ik_report_get(const oroya__ik_report *r, uint32_t ik_count,
                                            uint32_t *first) {
    const bool any = r && ik_count && r->count;
    if (first) {
        *first = any ? r->first : UINT32_MAX;
    }
    return any ? r->count : 0;
}

/* The joints a pass's guard (oroya__pose_guard) held: how many, and the lowest joint among
 * them (UINT32_MAX: none). */
typedef struct oroya__pose_guard_report {
    uint32_t count, first;
} oroya__pose_guard_report;

struct oroya_pose_character {
    oroya_allocator allocator;
    const oroya_pose_skeleton *skeleton;
    uint32_t max_layers;
    uint32_t channel_count;
    uint32_t slot_intervals;            /* oroya__pose_slot_intervals(channel_count) */
    const oroya_pose_clip **slot_clips; /* max_layers: the clip each slot's cursors follow */
    uint16_t *cursors;                  /* max_layers * (channel_count + 1), one per group */
    oroya__pose_interval *intervals;    /* max_layers * oroya__pose_slot_intervals(channel_count) */
    oroya_soa_transform *locals;        /* block_count */
    oroya_mat4 *models;                 /* joint_count */
    oroya_mat4 *bones;                  /* joint_count */
    const struct oroya_ik *ik;          /* oroya_pose_character_set_ik: borrowed, or NULL */
    uint32_t ik_count;
    struct oroya__ik_plan *ik_plan; /* owned: the IKs run inside local-to-model, or NULL */
    oroya__ik_report ik_report;     /* the last update's fallbacks */
    oroya__pose_guard_report guard; /* the last update's held joints (oroya__pose_guard) */
    uint64_t batch_mark;  /* oroya_pose_update_batch: the serial of the last batch checking it */
    uint32_t batch_index; /* and its index there */
};

/* OROYA__POSE_CUBIC_REACH: how far a CUBICSPLINE rotation curve may reach, per component, for
 * the kernel's float sampling (tangents times the key gap, then the sum of four squares) to
 * normalize it: 4 * 1e36 is below FLT_MAX. The first key k whose interval [k - 1, k] may reach
 * past it (with *reach, the bound), or 0 when none does or the track is not a CUBICSPLINE
 * rotation. Load time only: O(keys). */
#define OROYA__POSE_CUBIC_REACH 1e18
uint32_t oroya__pose_cubic_rotation_past_float(const oroya_track *t, double *reach);
/* Whether a CUBICSPLINE rotation curve may come within OROYA__POSE_CUBIC_MIN_LENGTH of zero
 * (keys nearly opposite, such as q then -q, with small tangents: the curve passes through 0
 * midway, where the kernel's float normalization gives NaN and oroya_track_sample, as three.js,
 * the identity). A conservative test by the Hermite bound; false for other tracks. Load time
 * only: O(keys). */
#define OROYA__POSE_CUBIC_MIN_LENGTH 1e-3
bool oroya__pose_cubic_rotation_near_zero(const oroya_track *t);

/* oroya_pose_clip_create with the keys as they are, whatever desc.additive and the clip's
 * blend mode say (the clip is not additive; the mixer's additive clips already hold deltas). */
oroya_result oroya__pose_clip_create_raw(const oroya_pose_clip_desc *desc, oroya_pose_clip **out,
                                         oroya_error *err);

/* Per block of a layer: values the mixer sampled itself (tracks the kernel has no sampler for:
 * STERP rotations, SMOOTH translations and scales, more keys than a runtime clip holds,
 * CUBICSPLINE rotations past OROYA__POSE_CUBIC_REACH; their
 * runtime clip holds a stand-in with the same lane animated) and the lanes they replace, per
 * channel (all-ones words). The kernel takes them in place of its own sample on those lanes. */
typedef struct oroya__pose_ext {
    uint32_t mask[3][4];            /* [channel][lane] */
    _Alignas(16) float rows[10][4]; /* tx ty tz qx qy qz qw sx sy sz, SoA as a block */
} oroya__pose_ext;

/* One layer of oroya__pose_mix: the mixer keeps the cursors and intervals per action (the
 * clip's group_count of each), so any number of layers can blend and a layer keeps its
 * cursors whatever its position. */
typedef struct oroya__pose_mix_layer {
    const oroya_pose_clip *clip;
    uint16_t *cursors;
    oroya__pose_interval *intervals;
    float time, weight; /* time: the largest float <= time_exact; weight > 0 */
    double time_exact;  /* the interpolation factors come from this one */
    bool additive;      /* blended as an additive layer (the clip's keys are the deltas) */
    const float *mask;  /* joint mask: a weight factor per joint (block_count * 4 floats, 0 on
                            the padding), or NULL for 1 everywhere */
    const float *twist; /* STERP blending (normal layers): per block the x, y and z rows of each
                            joint's twist axis (block_count * 12 floats, zero = no axis: slerp),
                            or NULL for slerp blending */
    const oroya__pose_ext *ext; /* block_count entries, or NULL: no lane sampled outside */
} oroya__pose_mix_layer;

/* The mixer's blend: seeks the layers, blends the normal ones in order, fills the remainder
 * from `rest` (per lane: the original values), adds the additive ones, and stores `locals`.
 * `scratch` holds `count` entries. Then oroya__pose_ltm for model and bone matrices. Same
 * kernels as oroya_pose_character_update (the best the CPU has). */
void oroya__pose_mix(const oroya_pose_skeleton *skel, const oroya__pose_mix_layer *layers,
                     uint32_t count, const oroya_soa_transform *rest, oroya_soa_transform *locals,
                     void *scratch);
/* The mixer's lazy write-back: or's into `changed` the lanes of `blocks` blocks whose value in
 * `cur` differs from `snap` (per block, bit ch * 4 + lane; the comparison three.js's
 * PropertyMixer.apply makes: NaN counts as changed, 0 and -0 as equal), then copies cur into
 * snap. */
void oroya__pose_diff_copy(const oroya_soa_transform *cur, oroya_soa_transform *snap,
                           uint32_t blocks, uint16_t *changed);
void oroya__pose_ltm(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                     const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones);
/* After local-to-model (and IK): whether every bone matrix is finite, one pass over them (a
 * model matrix that is not finite makes its bone matrix not finite: every column of the bone
 * sums a product with that column). When one is not (a chain of scales, or an additive blend,
 * that multiplies past float), the rare path holds each joint whose model matrix is not
 * finite at its parent's (the identity local matrix, as oroya_scene_update_world does; a
 * skeleton root at `root`, NULL: the identity),
 * recomputes its descendants from there, and sets a bone matrix that is still not finite
 * (model times inverse bind past float) to the identity; report counts those joints. */
bool oroya__pose_mats_sum_finite(const oroya_mat4 *m, uint32_t n);
void oroya__pose_guard(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                       const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones,
                       oroya__pose_guard_report *report);
/* Bytes of scratch oroya__pose_mix needs per layer. */
size_t oroya__pose_mix_scratch_size(void);
/* IK in the per-frame pipeline (src/anim/ik.c). What a list that runs inside local-to-model
 * needs of its joints, prepared when it is set up (oroya__ik_plan_create), so that a frame does
 * no searching: the IKs' distinct first joints ("roots") in ascending order, each with its
 * IKs in list order, and each IK's path from its first joint down to its end. */
typedef struct oroya__ik_plan_entry {
    uint32_t ik;                 /* index in the list */
    uint32_t path_off, path_len; /* paths[path_off ..): the first joint first, the end last */
} oroya__ik_plan_entry;
typedef struct oroya__ik_plan_root {
    uint32_t joint;        /* a first joint */
    uint32_t parent;       /* its parent (UINT32_MAX: a skeleton root) */
    uint32_t first, count; /* its IKs: entries[first .. first + count) */
} oroya__ik_plan_root;
typedef struct oroya__ik_plan {
    uint32_t root_count;
    const oroya__ik_plan_root *roots;
    const oroya__ik_plan_entry *entries;
    const uint32_t *paths;
} oroya__ik_plan;

/* The pose a list of IKs works on, the character's or the rig-backed mixer's. Joints are
 * skeleton joints, "world" is model space. */
typedef struct oroya__ik_pose {
    const oroya_pose_skeleton *skeleton;
    oroya_soa_transform *locals; /* block_count */
    oroya_mat4 *models, *bones;  /* joint_count */
    const struct oroya_ik *ik;   /* count IKs, checked by oroya__ik_pose_validate */
    uint32_t count;
    const oroya__ik_plan *plan; /* the list's plan: run inside local-to-model; NULL: after */
    uint16_t *changed;          /* NULL, or per block: or'ed with the rotation bits
                                         * (bit 4 + lane) of the joints IK wrote */
    oroya__ik_report *report;   /* NULL, or where the run's fallbacks are counted (reset by
                                   the caller) */
} oroya__ik_pose;

/* The number of joints of an IK's chain (joint_count, or its type's default when 0: 3 for a
 * two-bone IK, 1 for an aim); only joints[0 .. that) are read. */
uint32_t oroya__ik_chain_count(const struct oroya_ik *ik);

/* The set-up checks of a list of IKs against a skeleton's pose (joint indices, parent chains,
 * oroya_ik_solve_validate on the models, messages naming the joints). Never allocates. */
oroya_result oroya__ik_pose_validate(const oroya_pose_skeleton *skeleton,
                                     const oroya_soa_transform *locals, const oroya_mat4 *models,
                                     const struct oroya_ik *iks, uint32_t count, oroya_error *err);
/* The plan of a (validated) list, in one block from allocator (free it with oroya__free), or
 * *out NULL when the list may not run inside local-to-model, which takes the IKs in the order
 * of their first joints (the same result as list order only when no IK comes after one whose
 * first joint is below its own), or count is 0. OROYA_ERR_OUT_OF_MEMORY (*out NULL) when the
 * block cannot be had. */
oroya_result oroya__ik_plan_create(const oroya_pose_skeleton *skeleton, const struct oroya_ik *iks,
                                   uint32_t count, const oroya_allocator *allocator,
                                   oroya__ik_plan **out);

/* Runs the IKs after local-to-model: rewrites the chains' local rotations, then the model and
 * bone matrices of their subtrees. Used when there is no plan. */
void oroya__ik_run_after(const oroya__ik_pose *p);

/* With a plan, local-to-model runs the roots' IKs (oroya__ik_run_roots, a root's IKs in list
 * order: they solve on the chain's matrices from the blended locals and write its local
 * rotations) once the root's parent is computed, and goes on with the new rotations, so the
 * chain and everything below it are computed once, already corrected: at the points of the
 * pass pk_ltm_ik describes (src/internal/pose_kernel.h). */
/* The world rotation of the last first joint's parent an IK decomposed in one local-to-model
 * pass (two legs share the hips; joint UINT32_MAX: a skeleton root), set false before the
 * pass. A model matrix is final once the pass has computed it, so the entry stays true for
 * the whole pass. */
typedef struct oroya__ik_parent_cache {
    bool set, ok;
    uint32_t joint;
    double q[4];
} oroya__ik_parent_cache;
/* The IKs of the roots roots[0..count), in order, where every root's parent is computed and
 * no root is below another (their chains are apart: none reads what another writes, so the
 * order does not change the result): each root's IKs in list order, with two two-bone IKs on the
 * float path solved side by side. */
void oroya__ik_run_roots(const oroya__ik_pose *p, const oroya__ik_plan_root *roots, uint32_t count,
                         oroya__ik_parent_cache *cache);
/* The first root from r on (before rend) with an IK that is on this frame (a weight not <= 0:
 * a NaN weight runs, to be reported as a fallback), or rend: a root whose IKs are all off
 * (weight 0) does not split the pass. */
const oroya__ik_plan_root *oroya__ik_next_live(const oroya__ik_pose *p,
                                               const oroya__ik_plan_root *r,
                                               const oroya__ik_plan_root *rend);

/* Local-to-model (root NULL) with the IKs of p, the best kernel the CPU has: inside the pass
 * when p->in_pass, else after it. */
void oroya__pose_ltm_ik(const oroya__ik_pose *p);

/* Tests only: true sends every kernel call above and below (oroya__pose_mix, _ltm, _ltm_ik,
 * and oroya__pose_run_update with kernel 0) to the SSE2 baseline even where the CPU has AVX2,
 * so the mixer's scripts run through both kernels (test_runtime_random's test_kernel_widths).
 * Set it only while no update runs. */
extern bool oroya__pose_force_baseline;

/* One character update (checked by the caller) with a chosen kernel: 0 = the best available,
 * 1 = the SSE2 baseline (portable C without SSE2). Both give bit-identical results. */
void oroya__pose_run_update(oroya_pose_character *c, const oroya_pose_layer *layers,
                            uint32_t layer_count, int kernel);

/* The AVX2 kernel (src/anim/pose_avx2.c): two SoA blocks per step in 256-bit registers, for CPUs
 * that have AVX2 (the caller checks). Bit-identical to the baseline kernel. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && defined(__SSE2__) &&       \
    !defined(OROYA_POSE_NO_SIMD)
#define OROYA__POSE_AVX2 1
void oroya__pose_run_update_avx2(oroya_pose_character *c, const oroya_pose_layer *layers,
                                 uint32_t layer_count);
void oroya__pose_mix_avx2(const oroya_pose_skeleton *skel, const oroya__pose_mix_layer *layers,
                          uint32_t count, const oroya_soa_transform *rest,
                          oroya_soa_transform *locals, void *scratch);
void oroya__pose_ltm_avx2(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                          const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones);
void oroya__pose_ltm_ik_avx2(const oroya__ik_pose *p);
bool oroya__pose_mats_sum_finite_avx2(const oroya_mat4 *m, uint32_t n);
#else
#define OROYA__POSE_AVX2 0
#endif

/* The one CPU skinning kernel (src/anim/pose_skin.c), which oroya_skin_job_run and
 * oroya_pose_skin_run both run on. Linear blend skinning of `count` vertices:
 *   p' = sum_i w_i * palette[j_i] * p + offset,  n' = normalize(sum_i w_i * linear(...) * n),
 * over 4 influences, or 8 with joints2/weights2. Palette: float[16] per matrix, column-major,
 * bottom row taken as 0 0 0 1. */
typedef struct oroya__skin_kernel_job {
    uint32_t count;
    const float *positions;  /* 3 * count */
    const float *normals;    /* 3 * count or NULL (then out_normals NULL) */
    const uint16_t *joints;  /* 4 * count */
    const float *weights;    /* 4 * count */
    const uint16_t *joints2; /* 4 * count or NULL */
    const float *weights2;   /* with joints2 */
    uint32_t palette_count;
    const float *palette; /* 16 * palette_count floats */
    float *out_positions; /* 3 * count; may equal positions (general mode only) */
    float *out_normals;   /* 3 * count; may equal normals (general mode only) */
    float offset[3];      /* added to every position */
} oroya__skin_kernel_job;

/* True when every one of the n joint indices is below palette_count (an SSE2 pass). */
bool oroya__skin_joints_in_range(const uint16_t *joints, size_t n, uint32_t palette_count);

/* Runs the kernel on job->count > 0 vertices. fast: the caller guarantees 4 influences
 * (joints2 NULL), every joint index < palette_count, outputs that do not overlap the inputs
 * and a finite palette; the SSE2 / AVX2+FMA / AVX-512F loops run (kernel as in
 * oroya__pose_skin_run_with: 0 best, 1 SSE2, 3 AVX2, 4 AVX-512) and the result is
 * UINT32_MAX. Otherwise the general loop runs: influences of weight exactly 0 are skipped
 * (their joint is never read), an influence whose joint is >= palette_count is skipped and
 * the first vertex that has one is returned (UINT32_MAX when none), and outputs may equal
 * their inputs. Never allocates; up to OROYA_MAX_JOINTS matrices of stack. */
uint32_t oroya__skin_kernel_run(const oroya__skin_kernel_job *job, int kernel, bool fast);

/* Skinning with a chosen kernel: 0 = the best available (what oroya_pose_skin_run does),
 * 1 = SSE2 (or portable C without SSE2), 2 = the double reference, 3 = AVX2+FMA, 4 = AVX-512F
 * (3 and 4 fall back to the best the CPU has). For tests and the bench. */
oroya_result oroya__pose_skin_run_with(const oroya_pose_skin_job *job, int kernel,
                                       oroya_error *err);

#endif
