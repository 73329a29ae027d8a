/* Private structures of the pose layer (src/pose*.c), shared with its tests. */
#ifndef OROYA_INTERNAL_POSE_H
#define OROYA_INTERNAL_POSE_H

#include "oroya/pose.h"

/* Channels of a joint, in this order in every block. */
enum { OROYA__CH_T = 0, OROYA__CH_R = 1, OROYA__CH_S = 2, OROYA__CH_COUNT = 3 };

/* How a channel's keys interpolate in the runtime format. */
enum { OROYA__KIND_LINEAR = 0, OROYA__KIND_STEP = 1, OROYA__KIND_CUBIC = 2 };

struct oroya_pose_skeleton {
    oroya_allocator allocator;
    uint32_t joint_count;
    uint32_t block_count;          /* (joint_count + 3) / 4 */
    uint32_t *parents;             /* joint_count, UINT32_MAX = root */
    oroya_soa_transform *rest;     /* block_count, padding lanes identity */
    oroya_mat4 *inverse_bind;      /* joint_count */
    char **names;                  /* joint_count, or NULL */
    uint32_t *bone_slots;          /* joint_count: where each joint's bone matrix goes */
    bool bone_slots_identity;      /* bone_slots[j] == j for every joint */
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
    uint32_t offset;   /* count key times at keys + offset */
    uint32_t count;    /* >= 2 */
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
    uint32_t channel_count;             /* block_count * 12: index (block * 3 + ch) * 4 + lane */
    oroya__pose_channel *channels;
    uint32_t group_count;               /* <= channel_count + 1; group 0 = the constants */
    oroya__pose_group *groups;
    oroya__pose_lanes *lanes;           /* block_count * 3 */
    float *keys;
};

struct oroya_pose_character {
    oroya_allocator allocator;
    const oroya_pose_skeleton *skeleton;
    uint32_t max_layers;
    uint32_t channel_count;
    const oroya_pose_clip **slot_clips; /* max_layers: the clip each slot's cursors follow */
    uint16_t *cursors;                  /* max_layers * (channel_count + 1), one per group */
    oroya__pose_interval *intervals;    /* max_layers * (channel_count + 1), per frame */
    oroya_soa_transform *locals;        /* block_count */
    oroya_mat4 *models;                 /* joint_count */
    oroya_mat4 *bones;                  /* joint_count */
    const struct oroya_ik *ik;          /* oroya_pose_character_set_ik: borrowed, or NULL */
    uint32_t ik_count;
    bool ik_in_pass;                    /* the IKs run inside local-to-model (below) */
};

/* oroya_pose_clip_create with the keys as they are, whatever desc.additive and the clip's
 * blend mode say (the clip is not additive; the mixer's additive clips already hold deltas). */
oroya_result oroya__pose_clip_create_raw(const oroya_pose_clip_desc *desc, oroya_pose_clip **out,
                                         oroya_error *err);

/* One layer of oroya__pose_mix: the mixer keeps the cursors and intervals per action (the
 * clip's group_count of each), so any number of layers can blend and a layer keeps its
 * cursors whatever its position. */
typedef struct oroya__pose_mix_layer {
    const oroya_pose_clip *clip;
    uint16_t *cursors;
    oroya__pose_interval *intervals;
    float time, weight;  /* time: the largest float <= time_exact; weight > 0 */
    double time_exact;   /* the interpolation factors come from this one */
    bool additive;       /* blended as an additive layer (the clip's keys are the deltas) */
} oroya__pose_mix_layer;

/* The mixer's blend: seeks the layers, blends the normal ones in order, fills the remainder
 * from `rest` (per lane: the original values), adds the additive ones, and stores `locals`,
 * or'ing the lanes that changed into `changed` (per block, bit ch * 4 + lane; NULL = no
 * detection). `scratch` holds `count` entries. Then oroya__pose_ltm for model and bone
 * matrices. Same kernels as oroya_pose_character_update (the best the CPU has). */
void oroya__pose_mix(const oroya_pose_skeleton *skel, const oroya__pose_mix_layer *layers,
                     uint32_t count, const oroya_soa_transform *rest, oroya_soa_transform *locals,
                     uint16_t *changed, void *scratch);
void oroya__pose_ltm(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                     const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones);
/* Bytes of scratch oroya__pose_mix needs per layer. */
size_t oroya__pose_mix_scratch_size(void);
/* Runs the character's IKs after an update (src/ik.c): rewrites the chains' local rotations,
 * then the model and bone matrices of their subtrees. Used when ik_in_pass is false. */
void oroya__ik_run_character(oroya_pose_character *c);

/* With ik_in_pass, local-to-model calls this once the model and bone matrices of joints
 * [first, end) are done: each IK whose first joint is in the range solves (in list order),
 * writes its chain's local rotations, and recomputes the matrices of its subtree's joints in
 * the range; the joints after the range then take the new rotations as they come. */
void oroya__ik_run_joints(oroya_pose_character *c, uint32_t first, uint32_t end);

/* One character update (checked by the caller) with a chosen kernel: 0 = the best available,
 * 1 = the SSE2 baseline (portable C without SSE2). Both give bit-identical results. */
void oroya__pose_run_update(oroya_pose_character *c, const oroya_pose_layer *layers,
                            uint32_t layer_count, int kernel);

/* The AVX2 kernel (src/pose_avx2.c): two SoA blocks per step in 256-bit registers, for CPUs
 * that have AVX2 (the caller checks). Bit-identical to the baseline kernel. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && defined(__SSE2__) && \
    !defined(OROYA_POSE_NO_SIMD)
#define OROYA__POSE_AVX2 1
void oroya__pose_run_update_avx2(oroya_pose_character *c, const oroya_pose_layer *layers,
                                 uint32_t layer_count);
void oroya__pose_mix_avx2(const oroya_pose_skeleton *skel, const oroya__pose_mix_layer *layers,
                          uint32_t count, const oroya_soa_transform *rest,
                          oroya_soa_transform *locals, uint16_t *changed, void *scratch);
void oroya__pose_ltm_avx2(const oroya_pose_skeleton *skel, const oroya_soa_transform *locals,
                          const oroya_mat4 *root, oroya_mat4 *models, oroya_mat4 *bones);
#else
#define OROYA__POSE_AVX2 0
#endif

/* Skinning with a chosen kernel: 0 = the best available (what oroya_pose_skin_run does),
 * 1 = SSE2 (or portable C without SSE2), 2 = the double reference, 3 = AVX2+FMA, 4 = AVX-512F
 * (3 and 4 fall back to the best the CPU has). For tests and the bench. */
oroya_result oroya__pose_skin_run_with(const oroya_pose_skin_job *job, int kernel,
                                       oroya_error *err);

#endif
