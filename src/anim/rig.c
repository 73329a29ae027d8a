/* The rig: scene joints -> the pose kernel's skeleton and runtime clips. See
 * include/oroya/rig.h. Load-time code only. */
#include <stdio.h>
#include <string.h>

#include "internal/base.h"
#include "internal/pose.h"
#include "internal/rig.h"
#include "internal/scene.h"

static const char *node_label(const oroya_scene *scene, oroya_node node) {
    const char *n = oroya_scene_node_name(scene, node);
    return n && n[0] ? n : "(unnamed)";
}

void oroya_rig_destroy(oroya_rig *rig) {
    if (!rig) {
        return;
    }
    for (uint32_t i = 0; i < rig->clip_count; i++) {
        oroya_pose_clip_destroy(rig->pose_clips[i]);
    }
    oroya_pose_skeleton_destroy(rig->skeleton);
    oroya_allocator a = rig->allocator;
    oroya__free(&a, rig->nodes);
    oroya__free(&a, rig->palette_joint);
    oroya__free(&a, (void *)rig->clips);
    for (uint32_t i = 0; rig->clip_joints && i < rig->clip_count; i++) {
        oroya__free(&a, rig->clip_joints[i]);
    }
    oroya__free(&a, rig->pose_clips);
    oroya__free(&a, rig->clip_joints);
    oroya__free(&a, rig->clip_generations);
    oroya__free(&a, rig);
}

uint32_t oroya__rig_joint_of(const oroya_rig *rig, const oroya_scene *scene, oroya_node node,
                             const char *name) {
    if (!rig) {
        return UINT32_MAX;
    }
    if (scene == rig->scene && node.id) {
        for (uint32_t k = 0; k < rig->joint_count; k++) {
            if (rig->nodes[k].id == node.id) {
                return k;
            }
        }
        return UINT32_MAX;
    }
    return name && name[0] ? oroya_pose_skeleton_find(rig->skeleton, name) : UINT32_MAX;
}

static int channel_of(oroya_property p) {
    return p == OROYA_PROPERTY_TRANSLATION ? 0
           : p == OROYA_PROPERTY_ROTATION  ? 1
           : p == OROYA_PROPERTY_SCALE     ? 2
                                           : -1;
}

bool oroya__rig_track_outside(const oroya_track *t) {
    const int ch = channel_of(t->property);
    return ch >= 0 && (t->interpolation == OROYA_INTERP_STERP ||
                       (t->interpolation == OROYA_INTERP_SMOOTH && ch != 1) ||
                       t->key_count > OROYA_POSE_MAX_KEYS ||
                       oroya__pose_cubic_rotation_past_float(t, NULL) != 0 ||
                       oroya__pose_cubic_rotation_near_zero(t));
}

oroya_result oroya__rig_make_clip(const oroya_rig *rig, const oroya_clip *clip,
                                  const uint32_t *track_joints, const oroya_allocator *allocator,
                                  oroya_pose_clip **out, oroya_error *err) {
    const oroya_pose_skeleton *skel = rig->skeleton;
    uint32_t outside = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *t = &clip->tracks[i];
        const uint32_t k = track_joints[i];
        if (k == UINT32_MAX || channel_of(t->property) < 0) {
            continue;
        }
        outside += oroya__rig_track_outside(t);
        for (uint32_t j = 0; j < i; j++) {
            if (track_joints[j] == k && clip->tracks[j].property == t->property) {
                const char *joint = skel->names ? skel->names[k] : "";
                return oroya__fail(err, OROYA_ERR_UNSUPPORTED,
                                   "clip \"%s\" tracks[%u] and [%u]: two %s tracks on joint "
                                   "\"%s\" of %s (the kernel holds one per joint channel)",
                                   clip->name ? clip->name : "", j, i,
                                   oroya_property_name(t->property), joint, rig->name);
            }
        }
    }
    if (!out) {
        return OROYA_OK;
    }
    const oroya_allocator *al = allocator ? allocator : &rig->allocator;
    /* The tracks the mixer samples itself get a LINEAR stand-in on the same keys (one key past
     * the kernel's key limit), so their lanes stay animated and their blocks keep one layout. */
    oroya_clip copy = *clip;
    oroya_track *stand_in = NULL;
    if (outside) {
        stand_in = oroya__alloc(al, clip->track_count * sizeof *stand_in, 16);
        if (!stand_in) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", rig->name);
        }
        memcpy(stand_in, clip->tracks, clip->track_count * sizeof *stand_in);
        for (uint32_t i = 0; i < clip->track_count; i++) {
            if (track_joints[i] != UINT32_MAX && oroya__rig_track_outside(&stand_in[i])) {
                stand_in[i].interpolation = OROYA_INTERP_LINEAR;
                stand_in[i].twist_axis = (oroya_vec3){0, 0, 0};
                stand_in[i].value_count = 0;
                if (stand_in[i].key_count > OROYA_POSE_MAX_KEYS) {
                    stand_in[i].key_count = 1;
                }
            }
        }
        copy.tracks = stand_in;
    }
    oroya_pose_clip_desc d = {.skeleton = skel, .clip = &copy, .track_joints = track_joints};
    if (allocator) {
        d.allocator = *allocator;
    }
    oroya_result r = oroya__pose_clip_create_raw(&d, out, err);
    oroya__free(al, stand_in);
    return r;
}

/* Kernel joints of the tracks of `clip` on the rig's own scene, into a scratch array. */
static uint32_t *clip_joints(const oroya_rig *rig, const oroya_clip *clip, oroya_error *err) {
    uint32_t n = clip->track_count;
    uint32_t *tj = oroya__alloc(&rig->allocator, (n ? n : 1) * sizeof(uint32_t), 16);
    if (!tj) {
        oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", rig->name);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        const oroya_track *t = &clip->tracks[i];
        oroya_node node = {0};
        if (t->target) {
            oroya_scene_find_node(rig->scene, t->target, &node);
        }
        tj[i] = oroya__rig_joint_of(rig, rig->scene, node, t->target);
    }
    return tj;
}

oroya_result oroya_rig_clip_status(const oroya_rig *rig, const oroya_clip *clip, oroya_error *err) {
    if (!rig || !clip || (clip->track_count && !clip->tracks)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_rig_clip_status: NULL");
    }
    for (uint32_t i = 0; i < rig->clip_count; i++) {
        if (oroya__rig_clip_current(rig, i, clip) && rig->pose_clips[i]) {
            return OROYA_OK;
        }
    }
    uint32_t *tj = clip_joints(rig, clip, err);
    if (!tj) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    oroya_result r = oroya__rig_make_clip(rig, clip, tj, NULL, NULL, err);
    oroya__free(&rig->allocator, tj);
    return r;
}

oroya_result oroya_rig_create(const oroya_rig_desc *desc, oroya_rig **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out || !desc->scene || (desc->joint_count && !desc->joints) ||
        (desc->clip_count && !desc->clips)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_rig_create: desc, scene and out are required (and joints, "
                           "clips with their counts)");
    }
    const oroya_scene *scene = desc->scene;
    const char *rig_name = desc->name ? desc->name : "rig";
    const uint32_t scene_count = oroya_scene_node_count(scene);
    const bool all = desc->joint_count == 0;
    const uint32_t palette = all ? scene_count : desc->joint_count;
    if (palette == 0) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "%s: no joints (an empty scene)",
                           rig_name);
    }
    const oroya_allocator *a = &desc->allocator;
    /* Scratch, per dense index of the scene: the palette entry there (or UINT32_MAX) and
     * whether the node is in the kernel skeleton (a joint or an ancestor of one). */
    uint32_t *slot_at = oroya__alloc(a, (size_t)scene_count * 2 * sizeof(uint32_t) + 16, 16);
    if (!slot_at) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", rig_name);
    }
    uint32_t *kernel_at = slot_at + scene_count;
    for (uint32_t i = 0; i < scene_count; i++) {
        slot_at[i] = UINT32_MAX;
        kernel_at[i] = UINT32_MAX;
    }
    const uint32_t *parent_of = oroya_scene_parent_indices(scene);
    oroya_result r = OROYA_OK;
    for (uint32_t i = 0; i < palette && r == OROYA_OK; i++) {
        const oroya_node node = all ? oroya_scene_node_at(scene, i) : desc->joints[i];
        const uint32_t d = oroya_scene_node_index(scene, node);
        if (d == UINT32_MAX || !node.id) {
            r = oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                            "%s: joints[%u] is not a node of the scene", rig_name, i);
        } else if (slot_at[d] != UINT32_MAX) {
            r = oroya__fail(err, OROYA_ERR_INVALID_DATA,
                            "%s: joints[%u] and joints[%u] are the same node \"%s\"", rig_name,
                            slot_at[d], i, node_label(scene, node));
        } else {
            slot_at[d] = i;
            /* The joint and its ancestors join the kernel skeleton. */
            for (uint32_t x = d; x != UINT32_MAX && kernel_at[x] == UINT32_MAX; x = parent_of[x]) {
                kernel_at[x] = 0;
            }
        }
    }
    uint32_t n = 0;
    for (uint32_t d = 0; d < scene_count && r == OROYA_OK; d++) {
        if (kernel_at[d] != UINT32_MAX) {
            kernel_at[d] = n++;
        }
    }
    if (r == OROYA_OK && n > OROYA_POSE_MAX_JOINTS) {
        r = oroya__fail(err, OROYA_ERR_LIMIT,
                        "%s: %u joints with their ancestors, the kernel holds at most %u", rig_name,
                        n, (unsigned)OROYA_POSE_MAX_JOINTS);
    }
    oroya_rig *rig = NULL;
    if (r == OROYA_OK) {
        rig = oroya__calloc(a, 1, sizeof *rig, _Alignof(oroya_rig));
        if (rig) {
            rig->allocator = *a;
            rig->scene = scene;
            rig->joint_count = n;
            rig->palette_count = palette;
            snprintf(rig->name, sizeof rig->name, "%s", rig_name);
            rig->nodes = oroya__calloc(a, n, sizeof *rig->nodes, _Alignof(oroya_node));
            rig->palette_joint = oroya__calloc(a, palette, sizeof(uint32_t), 16);
            rig->clip_count = desc->clip_count;
            rig->clips = oroya__calloc(a, desc->clip_count + 1, sizeof *rig->clips, 16);
            rig->pose_clips = oroya__calloc(a, desc->clip_count + 1, sizeof *rig->pose_clips, 16);
            rig->clip_joints = oroya__calloc(a, desc->clip_count + 1, sizeof *rig->clip_joints, 16);
            rig->clip_generations =
                oroya__calloc(a, desc->clip_count + 1, sizeof *rig->clip_generations, 16);
        }
        if (!rig || !rig->nodes || !rig->palette_joint || !rig->clips || !rig->pose_clips ||
            !rig->clip_joints || !rig->clip_generations) {
            r = oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", rig_name);
        }
    }
    /* The skeleton desc, in kernel order (the scene's dense order: parents first). */
    uint32_t *parents = NULL, *slots = NULL;
    oroya_transform *rest = NULL;
    oroya_mat4 *ibm = NULL;
    const char **names = NULL;
    if (r == OROYA_OK) {
        parents = oroya__alloc(a, (size_t)n * 2 * sizeof(uint32_t), 16);
        rest = oroya__alloc(a, (size_t)n * sizeof(oroya_transform), 16);
        ibm = oroya__alloc(a, (size_t)n * sizeof(oroya_mat4), 16);
        names = oroya__alloc(a, (size_t)n * sizeof(char *), 16);
        if (!parents || !rest || !ibm || !names) {
            r = oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", rig_name);
        }
    }
    if (r == OROYA_OK) {
        slots = parents + n;
        /* A read: the pending pose written (as every read does), the scene's write epoch
         * left alone, so rigs may be built from one shared scene on several threads. */
        oroya__scene_flush(scene);
        const oroya_transform *tr = oroya__scene_transforms_raw((oroya_scene *)scene);
        uint32_t extra = palette;
        for (uint32_t d = 0; d < scene_count; d++) {
            const uint32_t k = kernel_at[d];
            if (k == UINT32_MAX) {
                continue;
            }
            const oroya_node node = oroya_scene_node_at(scene, d);
            rig->nodes[k] = node;
            parents[k] = parent_of[d] == UINT32_MAX ? UINT32_MAX : kernel_at[parent_of[d]];
            rest[k] = tr[d];
            const char *nm = oroya_scene_node_name(scene, node);
            names[k] = nm ? nm : "";
            if (slot_at[d] != UINT32_MAX) {
                slots[k] = slot_at[d];
                rig->palette_joint[slot_at[d]] = k;
                ibm[k] =
                    desc->inverse_bind ? desc->inverse_bind[slot_at[d]] : oroya_mat4_identity();
            } else {
                slots[k] = extra++; /* an ancestor: its bone matrix goes past the palette */
                ibm[k] = oroya_mat4_identity();
            }
        }
        oroya_pose_skeleton_desc sd = {.joint_count = n,
                                       .parents = parents,
                                       .rest = rest,
                                       .inverse_bind = ibm,
                                       .names = names,
                                       .bone_slots = slots,
                                       .allocator = *a};
        oroya_error e = {0};
        r = oroya_pose_skeleton_create(&sd, &rig->skeleton, &e);
        if (r != OROYA_OK) {
            /* "joints[k]: ..." names a kernel joint: say which node that is. */
            uint32_t k = 0;
            if (sscanf(e.message, "joints[%u]", &k) == 1 && k < n) {
                oroya__fail(err, r, "%s: joint \"%s\": %s", rig_name,
                            node_label(scene, rig->nodes[k]), e.message);
            } else {
                oroya__fail(err, r, "%s: %s", rig_name, e.message);
            }
        }
    }
    oroya__free(a, parents);
    oroya__free(a, rest);
    oroya__free(a, ibm);
    oroya__free(a, names);
    oroya__free(a, slot_at);
    /* The runtime clips. One the kernel cannot play stays NULL (the property path plays it). */
    for (uint32_t c = 0; r == OROYA_OK && c < desc->clip_count; c++) {
        const oroya_clip *clip = desc->clips[c];
        rig->clips[c] = clip;
        rig->clip_generations[c] = clip->key_generation;
        if (!clip || (clip->track_count && !clip->tracks)) {
            continue;
        }
        uint32_t *tj = clip_joints(rig, clip, err);
        if (!tj) {
            r = OROYA_ERR_OUT_OF_MEMORY;
            break;
        }
        oroya_error e = {0};
        oroya_result cr = oroya__rig_make_clip(rig, clip, tj, a, &rig->pose_clips[c], &e);
        rig->clip_joints[c] = tj;
        if (cr == OROYA_ERR_OUT_OF_MEMORY) {
            r = oroya__fail(err, cr, "%s: clip \"%s\": %s", rig_name, clip->name, e.message);
        }
        /* Other errors (an unsupported track, a clip that does not validate): NULL, and a
         * mixer's clip_action reports them or plays the clip through the property path. */
    }
    if (r != OROYA_OK) {
        oroya_rig_destroy(rig);
        return r;
    }
    *out = rig;
    return OROYA_OK;
}

const oroya_pose_skeleton *oroya_rig_skeleton(const oroya_rig *rig) {
    return rig ? rig->skeleton : NULL;
}
uint32_t oroya_rig_joint_count(const oroya_rig *rig) { return rig ? rig->palette_count : 0; }
uint32_t oroya_rig_kernel_joint_count(const oroya_rig *rig) { return rig ? rig->joint_count : 0; }
uint32_t oroya_rig_find_kernel_joint(const oroya_rig *rig, oroya_node node, const char *name) {
    if (!rig) {
        return UINT32_MAX;
    }
    uint32_t k = node.id ? oroya__rig_joint_of(rig, rig->scene, node, NULL) : UINT32_MAX;
    return k != UINT32_MAX ? k : oroya__rig_joint_of(rig, NULL, (oroya_node){0}, name);
}

oroya_node oroya_rig_kernel_node(const oroya_rig *rig, uint32_t k) {
    return rig && k < rig->joint_count ? rig->nodes[k] : (oroya_node){0};
}
uint32_t oroya_rig_kernel_joint(const oroya_rig *rig, uint32_t i) {
    return rig && i < rig->palette_count ? rig->palette_joint[i] : UINT32_MAX;
}

const oroya_pose_clip *oroya_rig_clip(const oroya_rig *rig, const oroya_clip *clip) {
    if (!rig || !clip) {
        return NULL;
    }
    for (uint32_t i = 0; i < rig->clip_count; i++) {
        if (!oroya__rig_clip_current(rig, i, clip)) {
            continue;
        }
        /* A clip with tracks that only a mixer samples (oroya__rig_track_outside) holds
         * stand-ins for them: the pose layer alone would play those as LINEAR. */
        for (uint32_t t = 0; rig->pose_clips[i] && t < clip->track_count; t++) {
            if (rig->clip_joints[i][t] != UINT32_MAX &&
                oroya__rig_track_outside(&clip->tracks[t])) {
                return NULL;
            }
        }
        return rig->pose_clips[i];
    }
    return NULL;
}
