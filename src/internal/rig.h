/* Private parts of the rig (src/anim/rig.c), shared with the mixer. */
#ifndef OROYA_INTERNAL_RIG_H
#define OROYA_INTERNAL_RIG_H

#include "oroya/rig.h"

struct oroya_rig {
    oroya_allocator allocator;
    const oroya_scene *scene; /* compared with a mixer's scene only, never read after create */
    oroya_pose_skeleton *skeleton;
    uint32_t joint_count; /* kernel joints */
    uint32_t palette_count;
    oroya_node *nodes;       /* joint_count, kernel order */
    uint32_t *palette_joint; /* palette_count: the kernel joint of each palette entry */
    char name[96];
    uint32_t clip_count;
    const oroya_clip **clips;     /* clip_count (borrowed addresses, for lookups) */
    oroya_pose_clip **pose_clips; /* clip_count, NULL where the kernel cannot play the clip */
    uint32_t **clip_joints;       /* clip_count: the kernel joint of each track (as built) */
    uint32_t *clip_generations;   /* clip_count: each clip's key_generation when copied */
};

/* Whether the rig's runtime clip c is a copy of `clip` as it is now (the same address, and
 * no in-place key rewrite since: oroya_clip.key_generation). */
static inline bool oroya__rig_clip_current(const oroya_rig *rig, uint32_t c,
                                           const oroya_clip *clip) {
    return rig->clips[c] == clip && rig->clip_generations[c] == clip->key_generation;
}

/* The kernel joint that track target `name` / scene node `node` names on `scene` ({0}: not in
 * the scene): by node when scene is the rig's, else by name. UINT32_MAX = not a joint. */
uint32_t oroya__rig_joint_of(const oroya_rig *rig, const oroya_scene *scene, oroya_node node,
                             const char *name);

/* Whether the mixer samples this joint track itself and hands the values to the kernel
 * (oroya__pose_ext): STERP rotations, SMOOTH translations and scales, more keys than
 * OROYA_POSE_MAX_KEYS, CUBICSPLINE rotations past OROYA__POSE_CUBIC_REACH or whose curve may
 * come near zero (oroya__pose_cubic_rotation_near_zero). The runtime clip
 * holds a LINEAR stand-in for it. */
bool oroya__rig_track_outside(const oroya_track *t);

/* Checks that the kernel can play `clip` with tracks bound to kernel joints track_joints
 * (UINT32_MAX: not a joint) and, when out is not NULL, builds the runtime clip with raw keys
 * (not additive: the mixer's additive clips already hold deltas). UNSUPPORTED with the reason
 * in err (see oroya_rig_clip_status). */
oroya_result oroya__rig_make_clip(const oroya_rig *rig, const oroya_clip *clip,
                                  const uint32_t *track_joints, const oroya_allocator *allocator,
                                  oroya_pose_clip **out, oroya_error *err);

#endif
