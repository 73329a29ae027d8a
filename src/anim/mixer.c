/* The animation mixer: a port of three.js 0.187's AnimationMixer, AnimationAction and
 * PropertyMixer to C. The structure follows three's closely on purpose: the order of
 * operations (active-action order, when endings change, when a fade ends) is observable in
 * the blended values, so each function here mirrors the three.js function named in its
 * comment. Times are doubles (three accumulates JS numbers); control interpolants (fades,
 * warps) keep float times and values, as three's Float32Array LinearInterpolant does.
 *
 * Memory: the action and binding tables are allocated once in oroya_mixer_create. An
 * action's per-track arrays and a binding's buffers are allocated when the action is
 * created (clip_action), never in update. */
#include "oroya/mixer.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal/base.h"
#include "internal/mixer.h"
#include "internal/pose.h"
#include "internal/rig.h"
#include "oroya/ik.h"
#include "internal/scene.h"
#include "internal/track.h"

#define NO_INDEX UINT32_MAX
#define KPF_MAX 48 /* oroya_mixer.kpf entries (lines) */

/* three's PropertyMixer buffer regions, each `size` doubles:
 * [ incoming | accu0 | accu1 | orig | add | work ] (work is used by quaternions only). */
enum {
    REGION_INCOMING = 0,
    REGION_ACCU0 = 1,
    REGION_ORIG = 3,
    REGION_ADD = 4,
    REGION_WORK = 5,
    REGION_COUNT = 6
};

typedef struct binding {
    oroya_node node; /* {0}: the target name is not in the scene (yet) */
    uint32_t dense;  /* node's dense index, refreshed when the layout version moves */
    oroya_property property;
    uint32_t size;  /* components */
    char *target;   /* the track's target name (a copy: clips may go first) */
    double *buffer; /* REGION_COUNT * size; tracks sample into the first region */
    double cumulative_weight;
    double cumulative_weight_additive;
    uint32_t use_count;       /* scheduled actions' tracks using it */
    uint32_t reference_count; /* known actions' tracks referencing it */
    uint32_t cache_index;     /* position in mixer->bindings */
    oroya_vec3 twist_axis;    /* rotations: unit, or zero (none); see resolve_twist_axis */
    bool has_twist_axis;
    bool sterp_remainder; /* an action accumulated with STERP this update */
    uint32_t joint;       /* the rig's kernel joint (translation/rotation/scale), or NO_INDEX */
    uint32_t channel;     /* with joint: 0 translation, 1 rotation, 2 scale */
    uint32_t curve;       /* CURVE: the mixer's curve index; else NO_INDEX */
} binding;

typedef struct twist_override {
    oroya_node node;
    oroya_vec3 axis; /* unit or zero */
} twist_override;

typedef struct limit_entry {
    oroya_node node;
    uint32_t dense; /* refreshed with the bindings' */
    oroya_joint_limit limit;
    uint32_t joint; /* the rig's kernel joint of the node, or NO_INDEX */
} limit_entry;

struct oroya_action {
    /* Hot: what an update reads of an action in the steady state (check, times, weights, the
     * kernel layer), first and together in two lines (ACTION_HOT_BYTES), so that a crowd's
     * update touches the action's first two lines only (the action is allocated on a line;
     * kpf_build lists up to `cold`). The check's fields (time, time scales) are on the first
     * line. What a steady update does not read (the mixer pointer, which the update passes,
     * repetitions, root motion's tracks, the mask and the outside samples behind their flag
     * and count, the endings that only a loop boundary writes) is in the cold part. */
    double time;
    double time_scale, effective_time_scale;
    double weight, effective_weight;
    double duration;
    double rm_wraps; /* this update: signed repeat wraps (see update_time) */
    int64_t loop_count;
    const oroya_clip *clip;
    /* The pose kernel path (a mixer with a rig): the runtime clip of the tracks on joints
     * (the rig's shared one, or pose_owned), its cursors and intervals, and whether the
     * kernel can play this clip at all (kernel_ok; else the mixer uses the property path
     * while the action is scheduled). */
    const oroya_pose_clip *pose;
    uint16_t *pose_cursors;
    oroya__pose_interval *pose_intervals;
    uint32_t property_track_count;
    uint32_t ext_track_count; /* ext is non-NULL exactly when this is not 0 */
    oroya_loop_mode loop;
    oroya_blend_mode blend_mode;
    oroya_rotation_blend rotation_blend;
    bool enabled, paused, fading, warping, has_start_time;
    bool clamp_when_finished, marker_start; /* marker_start: played and not moved yet: the next
                                               moving update covers its start */
    bool kernel_ok;
    bool masked; /* mask != NULL */

    /* Cold: fades and warps in progress, start times, the property path's tables. */
    char cold[1];
    oroya_mixer *mixer;
    double repetitions;
    int32_t rm_translation, rm_rotation; /* root-motion tracks of this clip, or -1 */
    uint32_t cache_index;                /* position in mixer->actions */
    oroya__pose_ext *ext;                /* kblocks, or NULL when there are none */
    const oroya_mask *mask;              /* joint mask, or NULL */
    uint32_t *property_tracks;           /* the tracks not on a joint, for the kernel path */
    oroya_sample_options endings;
    bool independent;
    bool lookup; /* the action clip_action returns for its clip (three's actionByRoot) */
    bool zero_slope_at_start, zero_slope_at_end;
    bool has_restore_time_scale;
    float fade_times[2], fade_values[2];
    float warp_times[2], warp_values[2];
    double restore_time_scale;
    double start_time;
    uint32_t track_count;
    binding **bindings;
    uint32_t *cursors;
    oroya_pose_clip *pose_owned;
    /* Tracks on joints that the kernel has no sampler for (oroya__rig_track_outside): sampled
     * here with the property path's sampler, handed to the kernel per lane in `ext`. */
    uint32_t *ext_tracks;
    float *mask_weights; /* track_count: the mask's weight of each track's node */
};

/* The hot part's two lines (see above). */
enum { ACTION_HOT_BYTES = 128 };
_Static_assert(offsetof(oroya_action, cold) <= ACTION_HOT_BYTES,
               "an action's hot part fits in two lines");
_Static_assert(offsetof(oroya_action, effective_time_scale) + sizeof(double) <= 64,
               "the check's fields of an action are on its first line");

typedef struct curve_slot {
    char *name;
    double value;
} curve_slot;

struct oroya_mask {
    oroya_mixer *mixer;
    oroya_mask *next; /* the mixer's list */
    const char *name;
    uint32_t node_count;
    oroya_node *nodes; /* the scene's nodes when the mask was made, dense order */
    float *weights;    /* node_count */
    float *kweights;   /* kblocks * 4: per kernel joint, 0 on the padding; NULL without rig */
};

struct oroya_mixer {
    /* The first line: all that a batch's check pass reads of a mixer in the steady state
     * (check_batch_one). chk_rate and chk_time bound the scheduled actions' time scales and
     * times (max of |time_scale| and |effective_time_scale| and a warp's ends, max of |time|)
     * and chk_inv_d the largest 1 / clip duration among them (action_time_ok) as of the end of
     * the last update; chk_valid is cleared by every call that can raise one of them or
     * schedule an action or a warp (chk_dirty), and then the check reads the actions. */
    oroya_scene *scene;
    const oroya_rig *rig;
    double time, time_scale;
    double chk_rate, chk_time;
    /* Set while on_event runs (see dispatch): calls that would free an action the update is
     * still using, or start a second update, are refused, and destroy waits for the update
     * to return. */
    uint32_t in_callback;
    bool chk_valid;
    bool destroy_pending;
    bool batch_refused;   /* oroya_mixer_update_batch: refused after a callback changed it */
    uint64_t batch_mark;  /* oroya_mixer_update_batch: the serial of the last batch checking it */
    uint32_t batch_index; /* and its index there */
    double chk_inv_d;
    /* Then what a steady update reads and writes, together (the lines up to `allocator`; a
     * batch prefetches them, see prefetch_mixer); what it does not read comes after. */
    oroya_action **actions; /* [ active | inactive ], as three's mixer._actions */
    uint32_t action_count, active_action_count, max_actions;
    uint32_t active_binding_count;
    uint32_t accu_index;
    bool jumping; /* inside oroya_mixer_set_time: no markers */
    bool layout_valid;
    bool reference;      /* the property path only (a test oracle) */
    bool kernel_mode;    /* the path the last update took */
    bool kernel_pending; /* kernel results not yet written to the scene */
    bool korig_moved;    /* korig written since krest was chosen */
    bool kany_held;
    bool kinuse_moved; /* kinuse changed since kepoch */
    uint32_t layout_version;
    uint32_t event_count, events_dropped;
    oroya_rotation_blend rotation_blend; /* SLERP or STERP */
    uint32_t limit_count;
    uint32_t kblocks;
    uint32_t ik_count;
    uint32_t klayer_count;
    uint32_t kepoch;                           /* the scene's epoch when korig was last refreshed */
    uint32_t active_property_bindings;         /* scheduled bindings the property path writes */
    oroya_root_extract rm_mode;                /* root motion (oroya_mixer_set_root_motion) */
    double rm_t[3], rm_yaw, rm_rv[3], rm_wsum; /* this update's weighted sums */
    double rm_at[3], rm_ayaw, rm_arv[3];       /* the additive actions' (not normalized) */
    double rm_lt[3], rm_alt[3]; /* the same for the translations in the root's own frame */
    /* The pose kernel path: see "pose kernel path" below. */
    const oroya_soa_transform *krest; /* what the kernel blends from: the skeleton's rest pose
                                         (shared by every mixer on the rig, so a crowd reads
                                         one copy) while korig equals it bit for bit, else
                                         korig */
    oroya_soa_transform *klocals;     /* kblocks: the blended pose (also last frame's, compared) */
    oroya_mat4 *kmodels, *kbones;     /* kjoints; bones in palette order, then the ancestors */
    uint16_t *kchanged;               /* kblocks: lanes to write at the next write-back whatever
                                     their value (held, limited, IK, root motion) */
    oroya__pose_mix_layer *klayers;   /* max_actions */
    void *kscratch;                   /* max_actions layers for oroya__pose_mix */
    float *ktwist;                    /* kblocks * 12: twist axis rows x, y, z (STERP blending) */
    /* Batches: the memory one update reads besides the mixer itself, as line ranges (see
     * "batches: prefetching ahead"), so that a batch prefetches it without chasing pointers.
     * Rebuilt at the end of an update when the scheduled actions changed (kpf_valid false). */
    uint32_t kpf_count; /* entries: the first kpf_logic are what the action logic reads and
                           writes */
    uint32_t kpf_logic;
    bool kpf_valid;
    int32_t kpf[KPF_MAX]; /* lines, as line offsets from the mixer's first line */

    /* Not read by a steady update from here on: prefetch_mixer stops at allocator. */
    oroya_allocator allocator;
    binding **bindings; /* [ active | inactive ], as three's mixer._bindings */
    uint32_t binding_count, max_bindings;
    uint32_t control_count; /* fades and warps in progress */

    oroya_event *events;
    uint32_t max_events;
    oroya_event_fn on_event;
    void *user;

    twist_override *overrides;
    uint32_t override_count, override_capacity;
    limit_entry *limits;
    uint32_t limit_capacity;

    void *kmem;             /* the one block of the k* buffers (kernel_create) */
    oroya_scene *own_scene; /* a mixer created with a rig and no scene */
    uint32_t kjoints, kpalette;
    oroya_soa_transform *korig;     /* kblocks: the original value of every joint channel */
    oroya_soa_transform *ksnap;     /* kblocks: klocals at the last write-back (compared then) */
    uint16_t *kinuse;               /* kblocks: lanes with a scheduled binding */
    uint16_t *klimited;             /* kblocks: rotation lanes with a joint limit */
    oroya_soa_transform *kheld;     /* kblocks: values written from outside on animated lanes */
    oroya_soa_transform *kpose;     /* kblocks: klocals with the held lanes (bone matrices) */
    uint16_t *kheldbits;            /* kblocks: the lanes kheld holds */
    uint16_t *kik;                  /* kblocks: rotation lanes an IK has written (kept) */
    const oroya_ik *iks;            /* oroya_mixer_set_ik: borrowed, or NULL */
    oroya__ik_plan *ik_plan;        /* owned: the IKs run inside local-to-model, or NULL */
    oroya__ik_report ik_report;     /* the last update's IK fallbacks (oroya_mixer_ik_fallbacks) */
    oroya__pose_guard_report guard; /* the last kernel pass's held joints (oroya__pose_guard) */
    uint32_t *kdense;               /* kjoints: the joint's dense index in the scene */
    oroya__scene_hook hook;
    oroya_mask *masks; /* oroya_mask_create, freed with the mixer */
    /* Root motion (oroya_mixer_set_root_motion; rm_mode and the sums are above). */
    oroya_node rm_node;
    char *rm_name;           /* the root's name at set_root_motion (scene mixers): its tracks in the
                      clips, and the node looked up again when the root is removed */
    oroya_transform rm_home; /* the extracted components' in-place values */
    bool rm_animated;        /* property path: an active binding drives the root this update */
    oroya_node rm_rewrite;   /* property path: the root whose hold set_root_motion changed: its
                                bindings write at their next apply even when unchanged */
    oroya_root_motion rm_delta, rm_total;
    oroya_root_motion rm_local; /* rm_delta in the character's frame (root_delta_local) */
    uint32_t rm_joint;          /* the root's kernel joint (set_root_motion), or NO_INDEX */
    /* Curves (oroya_mixer_curve_index): names and the values CURVE bindings write. */
    curve_slot *curves;
    uint32_t curve_count, curve_capacity;
    /* The rig's hierarchy against the scene's (rig_hierarchy_broken), re-checked when the
     * scene's layout version moves: the first kernel joint whose node was removed or whose
     * parent is no longer its rig parent's node, or NO_INDEX. */
    bool khier_valid;
    uint32_t khier_version, khier_bad;
    char last_error[OROYA_ERROR_MESSAGE_MAX]; /* the last refused call's (oroya_mixer_last_error) */
};

/* ---- quaternion helpers on flat double arrays (three's Quaternion.slerpFlat is
 * oroya__slerp_flat_d in track.c; multiplyQuaternionsFlat here), operation for operation, so
 * results agree to the last bit ---- */

static void multiply_flat(double *dst, const double *a, const double *b) {
    double x0 = a[0], y0 = a[1], z0 = a[2], w0 = a[3];
    double x1 = b[0], y1 = b[1], z1 = b[2], w1 = b[3];
    dst[0] = x0 * w1 + w0 * x1 + y0 * z1 - z0 * y1;
    dst[1] = y0 * w1 + w0 * y1 + z0 * x1 - x0 * z1;
    dst[2] = z0 * w1 + w0 * z1 + x0 * y1 - y0 * x1;
    dst[3] = w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1;
}

/* ---- PropertyMixer ----------------------------------------------------------------------- */

static double *region(binding *b, uint32_t r) { return b->buffer + (size_t)r * b->size; }

/* _select, three's mix function for booleans (and strings), additive too: src wins at
 * t >= 0.5. */
static void select_region(const binding *b, double *dst, const double *src, double t) {
    if (t >= 0.5) {
        for (uint32_t i = 0; i != b->size; ++i)
            dst[i] = src[i];
    }
}

/* _mixBufferRegion: lerp, or successive slerp for rotations, or select for booleans. */
static void mix_region(binding *b, double *dst, const double *src, double t) {
    if (b->property == OROYA_PROPERTY_ROTATION) {
        oroya__slerp_flat_d(dst, src, t, dst);
        return;
    }
    if (b->property == OROYA_PROPERTY_VISIBLE) {
        select_region(b, dst, src, t);
        return;
    }
    double s = 1 - t;
    for (uint32_t i = 0; i != b->size; ++i)
        dst[i] = dst[i] * s + src[i] * t;
}

/* _mixBufferRegionAdditive: add + v * w, or add = slerp(add, add * q, w). */
static void mix_region_additive(binding *b, double *dst, const double *src, double t) {
    if (b->property == OROYA_PROPERTY_ROTATION) {
        double *work = region(b, REGION_WORK);
        multiply_flat(work, dst, src);
        oroya__slerp_flat_d(dst, work, t, dst);
        return;
    }
    if (b->property == OROYA_PROPERTY_VISIBLE) {
        select_region(b, dst, src, t);
        return;
    }
    for (uint32_t i = 0; i != b->size; ++i)
        dst[i] = dst[i] + src[i] * t;
}

static void set_additive_identity(binding *b) {
    double *add = region(b, REGION_ADD);
    if (b->property == OROYA_PROPERTY_VISIBLE) {
        /* _setAdditiveIdentityOther: the original value. */
        memcpy(add, region(b, REGION_ORIG), b->size * sizeof(double));
        return;
    }
    for (uint32_t i = 0; i < b->size; i++)
        add[i] = 0;
    if (b->property == OROYA_PROPERTY_ROTATION)
        add[3] = 1;
}

/* The STERP variant of mix_region for rotations (an oroya option, not three.js): through
 * float, as oroya_quat_sterp works in float. Without a twist axis it is mix_region itself, so
 * a node without children blends exactly as with slerp. */
static void mix_region_rotation(binding *b, double *dst, const double *src, double t, bool sterp) {
    if (!sterp || !b->has_twist_axis) {
        mix_region(b, dst, src, t);
        return;
    }
    oroya_quat a = {(float)dst[0], (float)dst[1], (float)dst[2], (float)dst[3]};
    oroya_quat q = {(float)src[0], (float)src[1], (float)src[2], (float)src[3]};
    oroya_quat r = oroya_quat_sterp(a, q, b->twist_axis, (float)t);
    dst[0] = r.x, dst[1] = r.y, dst[2] = r.z, dst[3] = r.w;
}

static void binding_accumulate(binding *b, uint32_t accu_index, double weight, bool sterp) {
    double *incoming = region(b, REGION_INCOMING);
    double *accu = region(b, REGION_ACCU0 + accu_index);
    double current = b->cumulative_weight;
    if (current == 0) {
        for (uint32_t i = 0; i != b->size; ++i)
            accu[i] = incoming[i];
        current = weight;
    } else {
        current += weight;
        mix_region_rotation(b, accu, incoming, weight / current, sterp);
    }
    b->cumulative_weight = current;
    if (sterp)
        b->sterp_remainder = true;
}

static void binding_accumulate_additive(binding *b, double weight) {
    if (b->cumulative_weight_additive == 0)
        set_additive_identity(b);
    mix_region_additive(b, region(b, REGION_ADD), region(b, REGION_INCOMING), weight);
    b->cumulative_weight_additive += weight;
}

/* ---- pose kernel path: lanes ----------------------------------------------------------------- */

/* Component e of channel ch (0 translation, 1 rotation, 2 scale) of kernel joint j in SoA
 * blocks: the fields of oroya_soa_transform are rows of 4 floats in this order. */
static float *lane(oroya_soa_transform *blocks, uint32_t j, uint32_t ch, uint32_t e) {
    static const uint32_t first_row[3] = {0, 3, 7};
    return (float *)&blocks[j / 4] + (first_row[ch] + e) * 4 + j % 4;
}

static uint16_t lane_bit(uint32_t j, uint32_t ch) { return (uint16_t)(1u << (ch * 4 + j % 4)); }

/* The typed properties (a node's light, camera, mesh colour, visibility) and curves. A node
 * without the component reads as 0 (three's binding would find no property) and takes no
 * writes; a curve's original value is 0. */
static void component_get_value(oroya_mixer *m, binding *b, double *dst) {
    if (b->property == OROYA_PROPERTY_CURVE || !b->node.id)
        return;
    switch (b->property) {
    case OROYA_PROPERTY_INTENSITY: {
        const float *v = oroya__scene_light_intensity(m->scene, b->node);
        dst[0] = v ? *v : 0;
        break;
    }
    case OROYA_PROPERTY_FOV: {
        const float *v = oroya__scene_camera_fov(m->scene, b->node);
        dst[0] = v ? *v : 0;
        break;
    }
    case OROYA_PROPERTY_COLOR: {
        float rgba[4];
        if (oroya_scene_get_mesh_color(m->scene, b->node, rgba) == OROYA_OK)
            dst[0] = rgba[0], dst[1] = rgba[1], dst[2] = rgba[2];
        break;
    }
    case OROYA_PROPERTY_VISIBLE: {
        bool visible = false;
        if (oroya_scene_get_visible(m->scene, b->node, &visible) == OROYA_OK)
            dst[0] = visible ? 1 : 0;
        break;
    }
    default: break;
    }
}

static void component_set_value(oroya_mixer *m, binding *b, const double *src) {
    if (b->property == OROYA_PROPERTY_CURVE) {
        if (b->curve < m->curve_count)
            m->curves[b->curve].value = src[0];
        return;
    }
    if (!b->node.id)
        return;
    switch (b->property) {
    case OROYA_PROPERTY_INTENSITY: {
        float *v = oroya__scene_light_intensity(m->scene, b->node);
        if (v)
            *v = (float)src[0];
        break;
    }
    case OROYA_PROPERTY_FOV: {
        float *v = oroya__scene_camera_fov(m->scene, b->node);
        if (v)
            *v = (float)src[0];
        break;
    }
    case OROYA_PROPERTY_COLOR: {
        float rgba[4];
        if (oroya_scene_get_mesh_color(m->scene, b->node, rgba) == OROYA_OK) {
            rgba[0] = (float)src[0], rgba[1] = (float)src[1], rgba[2] = (float)src[2];
            oroya_scene_set_mesh_color(m->scene, b->node, rgba);
        }
        break;
    }
    case OROYA_PROPERTY_VISIBLE:
        /* A boolean: JavaScript's truthiness of the selected value. */
        oroya_scene_set_visible(m->scene, b->node, src[0] != 0);
        break;
    default: break;
    }
}

/* PropertyBinding.getValue / setValue on the scene's dense arrays. A joint binding with no
 * node in the scene (a mixer without a scene) reads the rig's rest pose and writes the
 * kernel's pose. */
static void binding_get_value(oroya_mixer *m, binding *b, double *dst) {
    for (uint32_t i = 0; i < b->size; i++)
        dst[i] = 0;
    if (b->dense == NO_INDEX && b->joint != NO_INDEX) {
        oroya_soa_transform *rest =
            (oroya_soa_transform *)oroya_pose_skeleton_rest(m->rig->skeleton);
        for (uint32_t i = 0; i < b->size; i++)
            dst[i] = *lane(rest, b->joint, b->channel, i);
        return;
    }
    if (b->property >= OROYA_PROPERTY_INTENSITY) {
        component_get_value(m, b, dst);
        return;
    }
    if (b->dense == NO_INDEX) {
        if (b->property == OROYA_PROPERTY_ROTATION)
            dst[3] = 1;
        else if (b->property == OROYA_PROPERTY_SCALE)
            dst[0] = dst[1] = dst[2] = 1;
        return;
    }
    if (b->property == OROYA_PROPERTY_WEIGHTS) {
        uint32_t count = 0;
        const float *w = oroya_scene_weights(m->scene, b->node, &count);
        for (uint32_t i = 0; w && i < b->size && i < count; i++)
            dst[i] = w[i];
        return;
    }
    const oroya_transform *t = &oroya_scene_transforms(m->scene)[b->dense];
    switch (b->property) {
    case OROYA_PROPERTY_TRANSLATION:
        dst[0] = t->translation.x, dst[1] = t->translation.y, dst[2] = t->translation.z;
        break;
    case OROYA_PROPERTY_ROTATION:
        dst[0] = t->rotation.x, dst[1] = t->rotation.y, dst[2] = t->rotation.z;
        dst[3] = t->rotation.w;
        break;
    case OROYA_PROPERTY_SCALE: dst[0] = t->scale.x, dst[1] = t->scale.y, dst[2] = t->scale.z; break;
    default: break;
    }
}

static void binding_set_value(oroya_mixer *m, binding *b, const double *src) {
    if (b->dense == NO_INDEX && b->joint != NO_INDEX) {
        for (uint32_t i = 0; i < b->size; i++)
            *lane(m->klocals, b->joint, b->channel, i) = (float)src[i];
        return;
    }
    if (b->property >= OROYA_PROPERTY_INTENSITY) {
        component_set_value(m, b, src);
        return;
    }
    if (b->dense == NO_INDEX)
        return;
    if (b->property == OROYA_PROPERTY_WEIGHTS) {
        uint32_t count = 0;
        float *w = oroya_scene_weights(m->scene, b->node, &count);
        for (uint32_t i = 0; w && i < b->size && i < count; i++)
            w[i] = (float)src[i];
        return;
    }
    oroya_transform *t = &oroya__scene_transforms_raw(m->scene)[b->dense];
    switch (b->property) {
    case OROYA_PROPERTY_TRANSLATION:
        t->translation = (oroya_vec3){(float)src[0], (float)src[1], (float)src[2]};
        break;
    case OROYA_PROPERTY_ROTATION:
        t->rotation = (oroya_quat){(float)src[0], (float)src[1], (float)src[2], (float)src[3]};
        break;
    case OROYA_PROPERTY_SCALE:
        t->scale = (oroya_vec3){(float)src[0], (float)src[1], (float)src[2]};
        break;
    default: break;
    }
}

static bool sceneless(const oroya_mixer *m);

/* Whether b writes `node`: its node, or on a mixer with no scene (whose bindings have no
 * node) the rig's node of its kernel joint. */
static bool binding_on_node(const oroya_mixer *m, const binding *b, oroya_node node) {
    if (!node.id)
        return false;
    if (b->node.id)
        return b->node.id == node.id;
    return b->joint != NO_INDEX && sceneless(m) && m->rig->nodes[b->joint].id == node.id;
}

/* apply: fill the remainder with the original, add the additive part, and write only when
 * the result differs from the other accumulator (last frame's result). */
static void binding_apply(oroya_mixer *m, binding *b, uint32_t accu_index) {
    double *accu = region(b, REGION_ACCU0 + accu_index);
    double weight = b->cumulative_weight;
    double weight_additive = b->cumulative_weight_additive;
    bool sterp = b->sterp_remainder;
    b->cumulative_weight = 0;
    b->cumulative_weight_additive = 0;
    b->sterp_remainder = false;
    if (weight < 1)
        mix_region_rotation(b, accu, region(b, REGION_ORIG), 1 - weight, sterp);
    if (weight_additive > 0)
        mix_region_additive(b, accu, region(b, REGION_ADD), 1);
    const double *a0 = region(b, REGION_ACCU0), *a1 = region(b, REGION_ACCU0 + 1);
    bool write = binding_on_node(m, b, m->rm_rewrite);
    for (uint32_t i = 0; i != b->size && !write; ++i)
        write = a0[i] != a1[i];
    if (write)
        binding_set_value(m, b, accu);
    /* As the kernel, which holds the root's lanes while an action uses them, written or not. */
    m->rm_animated |= m->rm_mode != OROYA_ROOT_NONE && binding_on_node(m, b, m->rm_node);
}

static void binding_save_original(oroya_mixer *m, binding *b) {
    double *orig = region(b, REGION_ORIG);
    binding_get_value(m, b, orig);
    /* Both accumulators start as the original, so the first frame detects changes
     * against it. */
    memcpy(region(b, REGION_ACCU0), orig, b->size * sizeof(double));
    memcpy(region(b, REGION_ACCU0 + 1), orig, b->size * sizeof(double));
    set_additive_identity(b);
    b->cumulative_weight = 0;
    b->cumulative_weight_additive = 0;
    /* The kernel's original value of the lane, and its "last result", as both accumulators. */
    if (b->joint != NO_INDEX) {
        for (uint32_t i = 0; i < b->size; i++) {
            *lane(m->korig, b->joint, b->channel, i) = (float)orig[i];
            m->korig_moved = true;
            *lane(m->klocals, b->joint, b->channel, i) = (float)orig[i];
            if (m->ksnap)
                *lane(m->ksnap, b->joint, b->channel, i) = (float)orig[i];
        }
    }
}

static void binding_restore_original(oroya_mixer *m, binding *b) {
    binding_set_value(m, b, region(b, REGION_ORIG));
    /* The scene now holds the original: the next write-back compares with it. */
    if (b->joint != NO_INDEX && m->ksnap) {
        for (uint32_t i = 0; i < b->size; i++)
            *lane(m->ksnap, b->joint, b->channel, i) = (float)region(b, REGION_ORIG)[i];
    }
}

/* ---- twist axes --------------------------------------------------------------------------- */

/* Unit, or zero when the vector is too short or not finite to have a direction. */
static oroya_vec3 unit_or_zero(oroya_vec3 v) {
    double x = v.x, y = v.y, z = v.z;
    double len = sqrt(x * x + y * y + z * z);
    if (!(len >= 1e-6) || !isfinite(len))
        return (oroya_vec3){0, 0, 0};
    return (oroya_vec3){(float)(x / len), (float)(y / len), (float)(z / len)};
}

static const twist_override *find_override(const oroya_mixer *m, oroya_node node) {
    for (uint32_t i = 0; i < m->override_count; i++)
        if (m->overrides[i].node.id == node.id)
            return &m->overrides[i];
    return NULL;
}

/* The override, else the bone's long axis: the direction to its first child, whose
 * translation is written in this node's local frame (the frame its rotation acts in). */
static uint32_t joint_of_node(const oroya_mixer *m, oroya_node node);

/* Without a scene: the override of the rig's node, else the rest translation of the first
 * kernel joint whose parent it is (the rig keeps the scene's order of siblings). */
static oroya_vec3 resolve_twist_axis_joint(const oroya_mixer *m, uint32_t j) {
    oroya_vec3 zero = {0, 0, 0};
    if (j >= m->kjoints)
        return zero;
    const twist_override *o = find_override(m, m->rig->nodes[j]);
    if (o)
        return o->axis;
    const oroya_pose_skeleton *skel = m->rig->skeleton;
    for (uint32_t c = j + 1; c < m->kjoints; c++) {
        if (skel->parents[c] == j) {
            const oroya_soa_transform *r = &skel->rest[c / 4];
            const uint32_t l = c % 4;
            return unit_or_zero((oroya_vec3){r->tx[l], r->ty[l], r->tz[l]});
        }
    }
    return zero;
}

static oroya_vec3 resolve_twist_axis(const oroya_mixer *m, oroya_node node) {
    oroya_vec3 zero = {0, 0, 0};
    if (node.id && sceneless(m))
        return resolve_twist_axis_joint(m, joint_of_node(m, node));
    if (!node.id || !oroya_scene_node_valid(m->scene, node))
        return zero;
    const twist_override *o = find_override(m, node);
    if (o)
        return o->axis;
    oroya_node child;
    oroya_transform t;
    if (oroya_scene_child_count(m->scene, node) == 0 ||
        oroya_scene_get_child(m->scene, node, 0, &child) != OROYA_OK ||
        oroya_scene_get_transform(m->scene, child, &t) != OROYA_OK)
        return zero;
    return unit_or_zero(t.translation);
}

static void set_binding_twist_axis(const oroya_mixer *m, binding *b) {
    if (b->property != OROYA_PROPERTY_ROTATION)
        return;
    b->twist_axis =
        sceneless(m) ? resolve_twist_axis_joint(m, b->joint) : resolve_twist_axis(m, b->node);
    b->has_twist_axis = b->twist_axis.x != 0 || b->twist_axis.y != 0 || b->twist_axis.z != 0;
    /* The kernel's copy, for STERP blending on its lanes. */
    if (b->joint != NO_INDEX && m->ktwist) {
        float *row = m->ktwist + (size_t)(b->joint / 4) * 12 + b->joint % 4;
        row[0] = b->twist_axis.x, row[4] = b->twist_axis.y, row[8] = b->twist_axis.z;
    }
}

/* ---- pose kernel path ------------------------------------------------------------------------
 *
 * A mixer with a rig hands every track on one of the rig's joints (translation, rotation,
 * scale) to the pose kernel: action_update skips those tracks and lists the action as a layer
 * (its runtime clip, clip time and effective weight, in active-action order, so normal layers
 * accumulate in three's order); the kernel then seeks, samples and blends every layer per
 * joint lane with three's rules (a layer that does not animate a lane adds no weight there;
 * the remainder below weight 1 is the lane's original value, saved when its binding became
 * active; additive layers after), applies joint limits, and computes model and bone
 * matrices. The blended pose is written to the joint nodes lazily: the scene calls
 * kernel_write_back before anything reads or writes its transforms, and only lanes whose
 * value changed since the last write (three's apply compares with the previous result) and
 * that a scheduled action animates are written. Other tracks (other nodes, morph weights)
 * keep the property path. STERP blending runs in the kernel (a layer carries the joints'
 * twist axes, ktwist). When the kernel cannot play a scheduled action (see
 * oroya_rig_clip_status), the whole update takes the property path and the bone matrices are
 * computed from the scene's joints (kernel_mode false). */

static void kernel_write_back(void *ctx) {
    oroya_mixer *m = ctx;
    if (!m->kernel_pending)
        return;
    m->kernel_pending = false;
    /* The lanes whose value moved since the last write-back. Between two write-backs nothing
     * else writes the scene (a write goes through this first), so the scene still holds the
     * last written value of every lane that is not held: three's per-update "write when the
     * result differs" comes to the same scene, and the comparison runs once per write-back
     * instead of once per update. Held lanes are compared per update (kernel_run). */
    oroya__pose_diff_copy(m->klocals, m->ksnap, m->kblocks, m->kchanged);
    oroya_transform *tr = oroya__scene_transforms_raw(m->scene);
    for (uint32_t b = 0; b < m->kblocks; b++) {
        uint32_t bits = m->kchanged[b] & (m->kinuse[b] | m->klimited[b] | m->kik[b]);
        m->kchanged[b] = 0;
        while (bits) {
            const uint32_t bit = (uint32_t)__builtin_ctz((unsigned)bits);
            bits &= bits - 1;
            const uint32_t ch = bit / 4, j = b * 4 + bit % 4, d = m->kdense[j];
            if (d == NO_INDEX)
                continue;
            float *dst = ch == 0   ? &tr[d].translation.x
                         : ch == 1 ? &tr[d].rotation.x
                                   : &tr[d].scale.x;
            for (uint32_t e = 0; e < (ch == 1 ? 4u : 3u); e++)
                dst[e] = *lane(m->klocals, j, ch, e);
        }
    }
}

/* The joints' dense indices: by the rig's node handles on the rig's scene (by name when a
 * node is gone), by name on another scene. Layout changes only. */
/* Kernel joint k's node in the mixer's scene ({0}: none, always so without a scene). */
static oroya_node kernel_joint_node(const oroya_mixer *m, uint32_t k) {
    oroya_node node = {0};
    const oroya_pose_skeleton *skel = m->rig->skeleton;
    if (m->scene == m->rig->scene && oroya_scene_node_valid(m->scene, m->rig->nodes[k]))
        node = m->rig->nodes[k];
    else if (skel->names && skel->names[k][0])
        oroya_scene_find_node(m->scene, skel->names[k], &node);
    return node;
}

static void refresh_kdense(oroya_mixer *m) {
    if (!m->rig)
        return;
    for (uint32_t k = 0; k < m->kjoints; k++) {
        oroya_node node = kernel_joint_node(m, k);
        m->kdense[k] = node.id ? oroya_scene_node_index(m->scene, node) : NO_INDEX;
    }
}

/* A mixer made with a rig and no scene: its nodes are the rig's (the handles of the scene the
 * rig was built from, oroya_rig_kernel_node) and its names the rig's joint names. */
static bool sceneless(const oroya_mixer *m) { return m->own_scene != NULL; }

static uint32_t joint_of_node(const oroya_mixer *m, oroya_node node) {
    if (!m->rig || !node.id)
        return NO_INDEX;
    if (sceneless(m))
        return oroya__rig_joint_of(m->rig, m->rig->scene, node, NULL);
    return oroya__rig_joint_of(m->rig, m->scene, node, oroya_scene_node_name(m->scene, node));
}

/* A node of the mixer's scene; without a scene, one of the rig's joints. */
static bool mixer_has_node(const oroya_mixer *m, oroya_node node) {
    return node.id && (sceneless(m) ? joint_of_node(m, node) != NO_INDEX
                                    : oroya_scene_node_valid(m->scene, node));
}

/* The name of kernel joint j ("" when the rig has none). */
static const char *joint_name(const oroya_mixer *m, uint32_t j) {
    const oroya_pose_skeleton *skel = m->rig->skeleton;
    return j < m->kjoints && skel->names && skel->names[j] ? skel->names[j] : "";
}

static void refresh_klimited(oroya_mixer *m) {
    if (!m->rig)
        return;
    memset(m->klimited, 0, m->kblocks * sizeof *m->klimited);
    for (uint32_t i = 0; i < m->limit_count; i++)
        if (m->limits[i].joint != NO_INDEX)
            m->klimited[m->limits[i].joint / 4] |= lane_bit(m->limits[i].joint, 1);
}

/* Whether this update can go through the kernel. */
static bool kernel_wanted(const oroya_mixer *m) {
    if (!m->rig || m->reference)
        return false;
    for (uint32_t i = 0; i < m->active_action_count; i++)
        if (!m->actions[i]->kernel_ok)
            return false;
    return true;
}

/* Between paths: the path taken next starts from the last results of the other, so three's
 * "write when changed" comparison goes on as if one path had run all along. */
static void switch_path(oroya_mixer *m, bool kernel) {
    if (kernel == m->kernel_mode)
        return;
    if (!kernel) {
        kernel_write_back(m);
        for (uint32_t i = 0; i < m->active_binding_count; i++) {
            binding *b = m->bindings[i];
            if (b->joint == NO_INDEX)
                continue;
            for (uint32_t e = 0; e < b->size; e++) {
                const double v = *lane(m->klocals, b->joint, b->channel, e);
                region(b, REGION_ACCU0)[e] = v;
                region(b, REGION_ACCU0 + 1)[e] = v;
            }
        }
    } else {
        /* The property path's last pose (property_bones) is what the kernel's results are
         * compared with. */
        memset(m->kchanged, 0, m->kblocks * sizeof *m->kchanged);
        memcpy(m->ksnap, m->klocals, m->kblocks * sizeof *m->ksnap);
    }
    m->kernel_mode = kernel;
}

/* Before the kernel runs: lanes no scheduled action animates keep the scene's current value
 * (nothing else writes them), as three leaves such properties alone. */
static void kernel_prepare(oroya_mixer *m) {
    /* Only when the scene may have been written from outside since the last look (the
     * mixer's own writes do not count), or the set of animated lanes changed. */
    const uint32_t epoch = oroya__scene_epoch(m->scene);
    if (epoch == m->kepoch && !m->kinuse_moved)
        return;
    m->kepoch = epoch;
    m->kinuse_moved = false;
    kernel_write_back(m); /* the scene holds the last update's pose before it is compared */
    const oroya_transform *tr = oroya__scene_transforms_raw(m->scene);
    for (uint32_t k = 0; k < m->kjoints; k++) {
        const uint32_t d = m->kdense[k];
        const uint32_t used = (uint32_t)m->kinuse[k / 4] >> (k % 4);
        if (d == NO_INDEX)
            continue;
        const float *src[3] = {&tr[d].translation.x, &tr[d].rotation.x, &tr[d].scale.x};
        for (uint32_t ch = 0; ch < 3; ch++) {
            const uint32_t comps = ch == 1 ? 4u : 3u;
            if (!(used & (1u << (ch * 4)))) {
                /* The scene's value is also what the next write-back compares with. */
                for (uint32_t e = 0; e < comps; e++)
                    *lane(m->korig, k, ch, e) = *lane(m->ksnap, k, ch, e) = src[ch][e];
                m->korig_moved = true;
                continue;
            }
            /* An animated lane written from outside: three keeps such a value in the scene
             * until the mixer writes the property again, and its skeleton's bones show it
             * meanwhile. The kernel's bones take it too (kernel_pose), from kheld. */
            bool same = true;
            for (uint32_t e = 0; e < comps; e++)
                same = same && *lane(m->klocals, k, ch, e) == src[ch][e];
            if (same)
                continue;
            for (uint32_t e = 0; e < comps; e++)
                *lane(m->kheld, k, ch, e) = src[ch][e];
            m->kheldbits[k / 4] |= lane_bit(k, ch);
            m->kany_held = true;
        }
    }
}

/* The pose the bones are computed from: the blend, except where an outside write still
 * holds (lanes the mixer did not write this update). */
static oroya_soa_transform *kernel_pose(oroya_mixer *m) {
    if (!m->kany_held)
        return m->klocals;
    bool any = false;
    for (uint32_t b = 0; b < m->kblocks; b++) {
        m->kheldbits[b] &= (uint16_t)(~m->kchanged[b] & m->kinuse[b]);
        any = any || m->kheldbits[b];
    }
    m->kany_held = any;
    if (!any)
        return m->klocals;
    memcpy(m->kpose, m->klocals, m->kblocks * sizeof *m->kpose);
    for (uint32_t b = 0; b < m->kblocks; b++) {
        for (uint32_t bits = m->kheldbits[b]; bits; bits &= bits - 1) {
            const uint32_t bit = (uint32_t)__builtin_ctz(bits);
            const uint32_t ch = bit / 4, j = b * 4 + bit % 4;
            for (uint32_t e = 0; e < (ch == 1 ? 4u : 3u); e++)
                *lane(m->kpose, j, ch, e) = *lane(m->kheld, j, ch, e);
        }
    }
    return m->kpose;
}

/* Joint limits on the blended pose (before model matrices), as apply_joint_limits does on the
 * scene. */
static void kernel_limits(oroya_mixer *m) {
    for (uint32_t i = 0; i < m->limit_count; i++) {
        const uint32_t j = m->limits[i].joint;
        if (j == NO_INDEX)
            continue;
        float *q[4] = {lane(m->klocals, j, 1, 0), lane(m->klocals, j, 1, 1),
                       lane(m->klocals, j, 1, 2), lane(m->klocals, j, 1, 3)};
        oroya_quat in = {*q[0], *q[1], *q[2], *q[3]}, out;
        if (oroya_joint_limit_clamp(&m->limits[i].limit, in, &out) == OROYA_OK) {
            *q[0] = out.x, *q[1] = out.y, *q[2] = out.z, *q[3] = out.w;
            m->kchanged[j / 4] |= lane_bit(j, 1);
        }
    }
}

/* The kernel's share of an update: blend, limits, model and bone matrices. Touches only this
 * mixer's buffers (no scene), so many mixers may run it on different threads. */
static void root_motion_hold(const oroya_mixer *m, oroya_vec3 *t, oroya_quat *q);

/* Root motion in place on the kernel's root lanes. */
static void kernel_root_hold(oroya_mixer *m) {
    const uint32_t j = m->rm_joint;
    if (j == NO_INDEX)
        return;
    oroya_vec3 t = {*lane(m->klocals, j, 0, 0), *lane(m->klocals, j, 0, 1),
                    *lane(m->klocals, j, 0, 2)};
    oroya_quat q = {*lane(m->klocals, j, 1, 0), *lane(m->klocals, j, 1, 1),
                    *lane(m->klocals, j, 1, 2), *lane(m->klocals, j, 1, 3)};
    root_motion_hold(m, &t, &q);
    *lane(m->klocals, j, 0, 0) = t.x, *lane(m->klocals, j, 0, 1) = t.y;
    *lane(m->klocals, j, 0, 2) = t.z;
    *lane(m->klocals, j, 1, 0) = q.x, *lane(m->klocals, j, 1, 1) = q.y;
    *lane(m->klocals, j, 1, 2) = q.z, *lane(m->klocals, j, 1, 3) = q.w;
    m->kchanged[j / 4] |= (uint16_t)(lane_bit(j, 0) | lane_bit(j, 1));
}

/* Model and bone matrices from `pose` (the kernel's locals, or kernel_pose's copy with the
 * held lanes), with the IKs (oroya_mixer_set_ik) inside local-to-model; the rotation lanes IK
 * wrote are or'ed into `changed`. IK rotations written into the copy go back to the locals,
 * so the scene write-back sees them. */
static void kernel_ltm(oroya_mixer *m, oroya_soa_transform *pose, uint16_t *changed) {
    m->ik_report = (oroya__ik_report){0, UINT32_MAX};
    const oroya__ik_pose p = {m->rig->skeleton, pose,       m->kmodels, m->kbones,    m->iks,
                              m->ik_count,      m->ik_plan, changed,    &m->ik_report};
    if (m->ik_count)
        oroya__pose_ltm_ik(&p);
    else
        oroya__pose_ltm(m->rig->skeleton, pose, NULL, m->kmodels, m->kbones);
    oroya__pose_guard(m->rig->skeleton, pose, NULL, m->kmodels, m->kbones, &m->guard);
    if (!m->ik_count || pose == m->klocals)
        return;
    for (uint32_t b = 0; b < m->kblocks; b++) {
        for (uint32_t bits = m->kik[b] & changed[b]; bits; bits &= bits - 1) {
            const uint32_t bit = (uint32_t)__builtin_ctz(bits);
            const uint32_t ch = bit / 4, j = b * 4 + bit % 4;
            for (uint32_t e = 0; e < 4u; e++)
                *lane(m->klocals, j, ch, e) = *lane(pose, j, ch, e);
        }
    }
}

/* A held lane is released (and written) when the mixer's value for it changes from one update
 * to the next, as three writes over an outside value then: the held lanes' last values, kept
 * in kpose before the blend, against the new ones. */
static void kernel_held_changes(oroya_mixer *m) {
    for (uint32_t b = 0; b < m->kblocks; b++) {
        for (uint32_t bits = m->kheldbits[b]; bits; bits &= bits - 1) {
            const uint32_t bit = (uint32_t)__builtin_ctz(bits);
            const uint32_t ch = bit / 4, j = b * 4 + bit % 4;
            bool same = true;
            for (uint32_t e = 0; e < (ch == 1 ? 4u : 3u); e++)
                same = same && *lane(m->kpose, j, ch, e) == *lane(m->klocals, j, ch, e);
            if (!same)
                m->kchanged[b] |= (uint16_t)(1u << bit);
        }
    }
}

static void kernel_run(oroya_mixer *m) {
    const oroya_pose_skeleton *skel = m->rig->skeleton;
    if (m->korig_moved) {
        /* Bit for bit the same values, so the same blend: the shared copy is the one that
         * stays in cache across a crowd. */
        m->korig_moved = false;
        m->krest =
            memcmp(m->korig, skel->rest, m->kblocks * sizeof *m->korig) ? m->korig : skel->rest;
    }
    const bool held = m->kany_held;
    if (held)
        memcpy(m->kpose, m->klocals, m->kblocks * sizeof *m->kpose);
    oroya__pose_mix(skel, m->klayers, m->klayer_count, m->krest, m->klocals, m->kscratch);
    if (held)
        kernel_held_changes(m);
    if (m->rm_mode != OROYA_ROOT_NONE)
        kernel_root_hold(m);
    if (m->limit_count)
        kernel_limits(m);
    kernel_ltm(m, kernel_pose(m), m->kchanged);
}

/* The property path's bone matrices: the joints' current local transforms from the scene
 * (lanes of joints outside it were written by binding_set_value). */
static void property_bones(oroya_mixer *m) {
    const oroya_transform *tr = oroya__scene_transforms_raw(m->scene);
    for (uint32_t k = 0; k < m->kjoints; k++) {
        const uint32_t d = m->kdense[k];
        if (d == NO_INDEX)
            continue;
        const float *src[3] = {&tr[d].translation.x, &tr[d].rotation.x, &tr[d].scale.x};
        for (uint32_t ch = 0; ch < 3; ch++)
            for (uint32_t e = 0; e < (ch == 1 ? 4u : 3u); e++)
                *lane(m->klocals, k, ch, e) = src[ch][e];
    }
    if (!m->ik_count) {
        kernel_ltm(m, m->klocals, NULL);
        return;
    }
    /* The rotations IK wrote go to the joints at once, as the property path writes the
     * scene. */
    uint16_t *written = m->kik + m->kblocks; /* scratch after kik */
    memset(written, 0, m->kblocks * sizeof *written);
    kernel_ltm(m, m->klocals, written);
    oroya_transform *out = oroya__scene_transforms_raw(m->scene);
    for (uint32_t b = 0; b < m->kblocks; b++) {
        for (uint32_t bits = written[b]; bits; bits &= bits - 1) {
            const uint32_t j = b * 4 + (uint32_t)__builtin_ctz(bits) % 4, d = m->kdense[j];
            if (d != NO_INDEX)
                out[d].rotation =
                    (oroya_quat){*lane(m->klocals, j, 1, 0), *lane(m->klocals, j, 1, 1),
                                 *lane(m->klocals, j, 1, 2), *lane(m->klocals, j, 1, 3)};
        }
    }
}

/* ---- scene layout ------------------------------------------------------------------------ */

/* Runs when the scene's layout version moved (nodes added, removed or re-parented): dense
 * indices are re-read from the handles, and a binding whose node is gone or was never found
 * looks its target name up again (a character rebuilt under the same names keeps
 * animating). This is the only place besides action creation that compares strings. */
static void refresh_layout(oroya_mixer *m) {
    uint32_t version = oroya_scene_layout_version(m->scene);
    if (m->layout_valid && version == m->layout_version)
        return;
    for (uint32_t i = 0; i < m->binding_count; i++) {
        binding *b = m->bindings[i];
        if (b->property == OROYA_PROPERTY_CURVE)
            continue; /* a curve's name is not a node's */
        if (!b->node.id || !oroya_scene_node_valid(m->scene, b->node)) {
            oroya_node node = {0};
            if (b->target[0] && oroya_scene_find_node(m->scene, b->target, &node) == OROYA_OK &&
                node.id != b->node.id) {
                b->node = node;
                b->dense = oroya_scene_node_index(m->scene, node);
                /* In use: what it restores on release is the new node's current value. */
                if (b->use_count > 0)
                    binding_save_original(m, b);
                continue;
            }
        }
        b->dense = b->node.id ? oroya_scene_node_index(m->scene, b->node) : NO_INDEX;
    }
    /* A removed root-motion root: the node of its name, as bindings (a character rebuilt
     * under the same names keeps its root motion); none yet, it holds nothing until one
     * comes. */
    if (m->rm_mode != OROYA_ROOT_NONE && !sceneless(m) && m->rm_name && m->rm_name[0] &&
        !oroya_scene_node_valid(m->scene, m->rm_node)) {
        oroya_node node;
        if (oroya_scene_find_node(m->scene, m->rm_name, &node) == OROYA_OK) {
            m->rm_node = node;
            m->rm_joint = m->rig ? joint_of_node(m, node) : NO_INDEX;
        }
    }
    /* Overrides and limits of removed nodes are dropped (limits keep their order). */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m->override_count; i++)
        if (mixer_has_node(m, m->overrides[i].node))
            m->overrides[kept++] = m->overrides[i];
    m->override_count = kept;
    kept = 0;
    for (uint32_t i = 0; i < m->limit_count; i++) {
        if (sceneless(m) ? m->limits[i].joint == NO_INDEX
                         : !oroya_scene_node_valid(m->scene, m->limits[i].node))
            continue;
        m->limits[kept] = m->limits[i];
        m->limits[kept++].dense = oroya_scene_node_index(m->scene, m->limits[i].node);
    }
    m->limit_count = kept;
    for (uint32_t i = 0; i < m->limit_count; i++)
        m->limits[i].joint = joint_of_node(m, m->limits[i].node);
    refresh_kdense(m);
    refresh_klimited(m);
    /* Children may have come or gone: the default twist axes are read again. */
    for (uint32_t i = 0; i < m->binding_count; i++)
        set_binding_twist_axis(m, m->bindings[i]);
    m->layout_version = version;
    m->layout_valid = true;
}

/* ---- memory manager: three's swap-based active/inactive partitions ------------------------ */

static bool is_active_action(const oroya_action *a) {
    return a->cache_index != NO_INDEX && a->cache_index < a->mixer->active_action_count;
}

/* Both tables (actions, bindings) are arrays of pointers whose elements know their own slot
 * (cache_index). SWAP_SLOT moves `item` to `slot` and the element there to item's old slot:
 * three's _lendAction / _takeBackAction / _lendBinding / _takeBackBinding are this swap with
 * the first inactive or the last active slot. One macro serves both element types. */
#define SWAP_SLOT(table, item, slot)                                                               \
    do {                                                                                           \
        const uint32_t swap_to_ = (slot), swap_from_ = (item)->cache_index;                        \
        (table)[swap_to_]->cache_index = swap_from_;                                               \
        (table)[swap_from_] = (table)[swap_to_];                                                   \
        (item)->cache_index = swap_to_;                                                            \
        (table)[swap_to_] = (item);                                                                \
    } while (0)

/* A call that may raise a scheduled action's time or time scale, or schedule an action: the
 * batch's check reads the actions again (see chk_valid). */
static void chk_dirty(oroya_mixer *m) {
    if (m)
        m->chk_valid = false;
}

static void lend_action(oroya_mixer *m, oroya_action *a) {
    SWAP_SLOT(m->actions, a, m->active_action_count++);
    m->kpf_valid = false;
    chk_dirty(m);
}
static void take_back_action(oroya_mixer *m, oroya_action *a) {
    SWAP_SLOT(m->actions, a, --m->active_action_count);
    m->kpf_valid = false;
}
static void lend_binding(oroya_mixer *m, binding *b) {
    SWAP_SLOT(m->bindings, b, m->active_binding_count++);
}
static void take_back_binding(oroya_mixer *m, binding *b) {
    SWAP_SLOT(m->bindings, b, --m->active_binding_count);
}

/* Frees each block of the list, in order (NULL entries are skipped, as oroya__free does). */
static void free_blocks(const oroya_allocator *al, void *const blocks[], size_t count) {
    for (size_t i = 0; i < count; i++)
        oroya__free(al, blocks[i]);
}
#define FREE_ALL(al, ...)                                                                          \
    free_blocks((al), (void *const[]){__VA_ARGS__},                                                \
                sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

static void free_binding(oroya_mixer *m, binding *b) {
    FREE_ALL(&m->allocator, b->target, b->buffer, b);
}

/* _removeInactiveBinding: the last binding takes its slot. */
static void remove_inactive_binding(oroya_mixer *m, binding *b) {
    SWAP_SLOT(m->bindings, b, --m->binding_count);
    free_binding(m, b);
}

static void release_bindings(oroya_mixer *m, oroya_action *a, uint32_t count) {
    for (uint32_t i = 0; i < count; i++) {
        binding *b = a->bindings[i];
        if (b && --b->reference_count == 0)
            remove_inactive_binding(m, b);
    }
}

static void activate_action(oroya_action *a) {
    oroya_mixer *m = a->mixer;
    if (is_active_action(a))
        return;
    refresh_layout(m);
    a->marker_start = true;
    for (uint32_t i = 0; i != a->track_count; ++i) {
        binding *b = a->bindings[i];
        if (b->use_count++ == 0) {
            lend_binding(m, b);
            binding_save_original(m, b);
            if (b->joint != NO_INDEX) {
                m->kinuse[b->joint / 4] |= lane_bit(b->joint, b->channel);
                m->kinuse_moved = true;
            } else {
                m->active_property_bindings++;
            }
        }
    }
    lend_action(m, a);
}

static void deactivate_action(oroya_action *a) {
    oroya_mixer *m = a->mixer;
    if (!is_active_action(a))
        return;
    refresh_layout(m);
    for (uint32_t i = 0; i != a->track_count; ++i) {
        binding *b = a->bindings[i];
        if (--b->use_count == 0) {
            binding_restore_original(m, b);
            take_back_binding(m, b);
            if (b->joint != NO_INDEX) {
                m->kinuse[b->joint / 4] &= (uint16_t)~lane_bit(b->joint, b->channel);
                m->kinuse_moved = true;
            } else {
                m->active_property_bindings--;
            }
        }
    }
    take_back_action(m, a);
}

/* ---- events ------------------------------------------------------------------------------ */

/* Event callbacks run on this thread so far: oroya_mixer_update_batch checks a mixer again
 * when a callback ran since its first check (the callback may have changed it). */
static _Thread_local uint64_t callback_runs;

static void dispatch_event(oroya_mixer *m, const oroya_event *ev) {
    /* The callback destroyed the mixer: the update stops, no event after that one. */
    if (m->destroy_pending)
        return;
    oroya_event e = *ev;
    if (m->event_count < m->max_events)
        m->events[m->event_count++] = e;
    else if (m->events_dropped != UINT32_MAX) /* saturated (the loop cap's count) stays so */
        m->events_dropped++;
    if (m->on_event) {
        m->in_callback++;
        callback_runs++;
        m->on_event(&e, m->user);
        m->in_callback--;
    }
}

static void dispatch(oroya_mixer *m, oroya_event_type type, oroya_action *a, int32_t direction,
                     int64_t loop_delta) {
    oroya_event e = {type, a, direction, loop_delta, NULL};
    dispatch_event(m, &e);
}

/* ---- markers ------------------------------------------------------------------------------- */

/* The clip's marker list as a pass over a loop found it. A callback may replace the list
 * (oroya_clip_set_markers frees the old one): that loop's pass then stops, since the list it
 * was walking is gone; the loops after it (in this update, after the next wrap, and in later
 * updates) walk the new list. */
typedef struct marker_list {
    const oroya_marker *at;
    uint32_t count, generation;
} marker_list;

static marker_list markers_of(const oroya_action *a) {
    return (marker_list){a->clip->markers, a->clip->marker_count, a->clip->marker_generation};
}

/* The generation tells a new list at the old address (the allocator may reuse it). */
static bool markers_still(const oroya_action *a, marker_list l) {
    return a->clip->markers == l.at && a->clip->marker_count == l.count &&
           a->clip->marker_generation == l.generation;
}

/* A marker's time on the action's clock: a marker at the clip's end (its float duration) is at
 * the action's end when the action's duration rounds to it (oroya_action_desc.duration, the
 * exact double three.js uses, is a little shorter than the float one). */
static double marker_time(const oroya_action *a, const oroya_marker *mk) {
    const double t = mk->time, d = a->duration;
    return t > d && (float)t <= (float)d ? d : t;
}

/* How many markers of l lie in the interval from lo to hi (each end included or not). */
static uint64_t marker_count_in(const oroya_action *a, marker_list l, double lo, bool lo_in,
                                double hi, bool hi_in) {
    uint64_t c = 0;
    for (uint32_t i = 0; i < l.count; ++i) {
        const double t = marker_time(a, &l.at[i]);
        c += (lo_in ? t >= lo : t > lo) && (hi_in ? t <= hi : t < hi);
    }
    return c;
}

/* Fires the markers of list l whose time lies in the clip-time interval from lo to hi
 * (lo <= hi; each end included or not), in increasing time when `ascending`, else
 * decreasing. False when a callback replaced the list (see marker_list). */
static bool fire_marker_range(oroya_action *a, marker_list l, double lo, bool lo_in, double hi,
                              bool hi_in, bool ascending) {
    const uint32_t n = l.count;
    for (uint32_t i = 0; i != n; ++i) {
        if (!markers_still(a, l))
            return false;
        const oroya_marker *mk = &l.at[ascending ? i : n - 1 - i];
        const double t = marker_time(a, mk);
        if ((lo_in ? t >= lo : t > lo) && (hi_in ? t <= hi : t < hi)) {
            oroya_event e = {OROYA_EVENT_MARKER, a, 0, 0, mk};
            dispatch_event(a->mixer, &e);
        }
    }
    return markers_still(a, l);
}

/* One update's pass over the loops of a repeat or ping-pong action (see "Markers" in
 * oroya/mixer.h). Times are relative to the start of segment 0, the loop the action was in
 * (raw time t0 in [0, d], loop count c0, -1 before the first backward loop); segment k is
 * the loop entered after k wraps, forwards or backwards; the update ends in segment `last`
 * at raw time `end` (inclusive). `start`: t0 itself is covered. */
typedef struct marker_pass {
    double t0, end, d;
    int64_t c0, last;
    int dir; /* +1 or -1 */
    bool start, ping_pong;
} marker_pass;

static bool fire_marker_segment(oroya_action *a, marker_list l, const marker_pass *mp, int64_t k) {
    const double d = mp->d;
    double lo, hi;
    bool lo_in, hi_in;
    if (mp->dir > 0) {
        lo = k == 0 ? mp->t0 : 0;
        lo_in = k == 0 ? mp->start : !mp->ping_pong;
        hi = k == mp->last ? mp->end : d;
        hi_in = true;
    } else {
        lo = k == mp->last ? mp->end : 0;
        lo_in = true;
        hi = k == 0 ? mp->t0 : d;
        hi_in = k == 0 ? mp->start : !mp->ping_pong;
    }
    if (lo > hi)
        return true;
    /* Loop count c0 + k (c0 >= -1, k >= 0), which may pass INT64_MAX after a saturated
     * add_loops: only its parity matters, taken in unsigned arithmetic. -1 (playing
     * backwards before the first pass through 0) is odd: ping-pong shows that round mirrored,
     * as three does (`loopCount & 1`), so its markers are the mirrored ones too. */
    const bool reversed = mp->ping_pong && (((uint64_t)mp->c0 + (uint64_t)k) & 1u) != 0;
    if (reversed)
        return fire_marker_range(a, l, d - hi, hi_in, d - lo, lo_in, mp->dir < 0);
    return fire_marker_range(a, l, lo, lo_in, hi, hi_in, mp->dir > 0);
}

/* Segments [from, to] of the pass, with the loop cap; a list replaced during a segment is
 * walked from the next one on (see marker_list). */
static void fire_marker_segments(oroya_action *a, const marker_pass *mp, int64_t from, int64_t to) {
    marker_list l = markers_of(a);
    if (l.count == 0 || to < from)
        return;
    for (int64_t k = from; k <= to && !a->mixer->destroy_pending; ++k) {
        if (k - from >= OROYA_MAX_MARKER_LOOPS && k != to) {
            /* The middle loops past the cap: counted, not dispatched. A middle loop covers
             * [0, d] on repeat; on ping-pong one end is left to the next loop, which end
             * depending on the direction and on whether the loop plays reversed (as
             * fire_marker_segment takes it). */
            uint64_t skipped = (uint64_t)(to - k) * l.count;
            if (mp->ping_pong) {
                const double d = mp->d;
                /* Not reversed: [0, d) backwards, (0, d] forwards; reversed: the mirror. */
                const uint64_t plain = mp->dir > 0 ? marker_count_in(a, l, 0, false, d, true)
                                                   : marker_count_in(a, l, 0, true, d, false);
                const uint64_t mirrored = mp->dir > 0 ? marker_count_in(a, l, 0, true, d, false)
                                                      : marker_count_in(a, l, 0, false, d, true);
                /* Loop counts mp->c0 + k .. mp->c0 + to - 1 (all >= 0 here): the odd ones play
                 * reversed. */
                /* Unsigned: c0 <= INT64_MAX and to <= 9e18, so the sums stay below 2^64
                 * where the signed ones could overflow. */
                const uint64_t c_lo = (uint64_t)mp->c0 + (uint64_t)k,
                               c_hi = (uint64_t)mp->c0 + (uint64_t)to; /* [c_lo, c_hi) */
                const int64_t odd_count = (int64_t)(c_hi / 2 - c_lo / 2);
                skipped = (uint64_t)odd_count * mirrored + (uint64_t)(to - k - odd_count) * plain;
            }
            uint64_t total = (uint64_t)a->mixer->events_dropped + skipped;
            a->mixer->events_dropped = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
            k = to;
        }
        if (!fire_marker_segment(a, l, mp, k))
            l = markers_of(a);
    }
}

/* The markers of a LOOP_ONCE update from raw time t0 to t1 (already clamped to [0, d]). */
static void fire_markers_once(oroya_action *a, double t0, double t1, bool start) {
    const marker_list l = markers_of(a);
    if (l.count == 0 || !(a->duration > 0))
        return; /* a zero-length clip fires none (docs/mixer.md, "Markers"), as on repeat */
    if (t1 >= t0)
        fire_marker_range(a, l, t0, start, t1, true, true);
    else
        fire_marker_range(a, l, t1, true, t0, start, false);
}

/* ---- control interpolants ------------------------------------------------------------------ */

/* three's LinearInterpolant over Float32Array(2) times and values with a Float32 result:
 * before the first time the first value, at or after the second time the second value. */
static float control_eval(const float times[2], const float values[2], double t) {
    double t0 = times[0], t1 = times[1];
    if (t >= t1)
        return values[1];
    if (t < t0)
        return values[0];
    double w1 = (t - t0) / (t1 - t0);
    double w0 = 1 - w1;
    return (float)((double)values[0] * w0 + (double)values[1] * w1);
}

void oroya_action_stop_fading(oroya_action *a) {
    if (!a || !a->fading)
        return;
    a->fading = false;
    a->mixer->control_count--;
}

void oroya_action_stop_warping(oroya_action *a) {
    if (!a)
        return;
    if (a->warping) {
        a->warping = false;
        a->mixer->control_count--;
    }
    a->has_restore_time_scale = false;
}

/* _scheduleFading and warp's interpolant: a ramp from `from` to `to` over [now, now + duration],
 * stored in float as three's Float32Array interpolants are. */
static void schedule_control(oroya_mixer *m, bool *active, float times[2], float values[2],
                             double duration, float from, float to) {
    double now = m->time;
    if (!*active) {
        *active = true;
        m->control_count++;
    }
    times[0] = (float)now;
    values[0] = from;
    times[1] = (float)(now + duration);
    values[1] = to;
}

/* ---- AnimationAction._update and helpers --------------------------------------------------- */

static void set_endings(oroya_action *a, bool at_start, bool at_end, bool ping_pong) {
    if (ping_pong) {
        a->endings.ending_start = OROYA_ENDING_ZERO_SLOPE;
        a->endings.ending_end = OROYA_ENDING_ZERO_SLOPE;
        return;
    }
    if (at_start)
        a->endings.ending_start =
            a->zero_slope_at_start ? OROYA_ENDING_ZERO_SLOPE : OROYA_ENDING_ZERO_CURVATURE;
    else
        a->endings.ending_start = OROYA_ENDING_WRAP_AROUND;
    if (at_end)
        a->endings.ending_end =
            a->zero_slope_at_end ? OROYA_ENDING_ZERO_SLOPE : OROYA_ENDING_ZERO_CURVATURE;
    else
        a->endings.ending_end = OROYA_ENDING_WRAP_AROUND;
}

static double update_weight(oroya_action *a, double time) {
    double weight = 0;
    if (a->enabled) {
        weight = a->weight;
        if (a->fading) {
            float value = control_eval(a->fade_times, a->fade_values, time);
            weight *= (double)value;
            if (time > (double)a->fade_times[1]) {
                oroya_action_stop_fading(a);
                /* A fade-out that reached 0 disables the action. */
                if (value == 0)
                    a->enabled = false;
            }
        }
    }
    a->effective_weight = weight;
    return weight;
}

/* update_weight's value for an action still enabled, without its side effects (a fade that
 * ends is not stopped): the weight of an action its own update just finished. */
static double finishing_weight(const oroya_action *a, double time) {
    double weight = a->weight;
    if (a->fading)
        weight *= (double)control_eval(a->fade_times, a->fade_values, time);
    return weight;
}

static double update_time_scale(oroya_action *a, double time) {
    double time_scale = 0;
    if (!a->paused) {
        time_scale = a->time_scale;
        if (a->warping) {
            float value = control_eval(a->warp_times, a->warp_values, time);
            time_scale *= (double)value;
            if (time > (double)a->warp_times[1]) {
                if (time_scale == 0) {
                    a->paused = true; /* halted */
                } else {
                    /* three 0.187 gives a cross-fade's actions back their earlier
                     * time scale when the warp ends. */
                    if (a->has_restore_time_scale)
                        time_scale = a->restore_time_scale;
                    a->time_scale = time_scale;
                }
                oroya_action_stop_warping(a);
            }
        }
    }
    a->effective_time_scale = time_scale;
    return time_scale;
}

static int64_t add_loops(int64_t count, double loop_delta) {
    double d = fabs(loop_delta);
    /* Keeps the counter defined for absurd jumps (three's double just grows). */
    if (!(d < 4.0e18))
        d = 4.0e18;
    int64_t n = (int64_t)d;
    return count > INT64_MAX - n ? INT64_MAX : count + n;
}

static bool odd(int64_t n) { return (n & 1) != 0; } /* two's complement: -1 is odd, as in JS */

static double update_time(oroya_mixer *m, oroya_action *a, double delta) {
    double duration = a->duration;
    const double t0 = a->time;
    double time = t0 + delta;
    int64_t loop_count = a->loop_count;
    bool ping_pong = a->loop == OROYA_LOOP_PINGPONG;

    if (delta == 0) {
        if (loop_count == -1)
            return time;
        return (ping_pong && odd(loop_count)) ? duration - time : time;
    }
    /* Markers: this update moves; a jump (set_time) reports none. */
    const bool markers = a->clip->marker_count != 0 && !m->jumping;
    const bool start = a->marker_start;
    a->marker_start = false;

    if (a->loop == OROYA_LOOP_ONCE) {
        if (loop_count == -1) {
            a->loop_count = 0;
            set_endings(a, true, true, false);
        }
        if (time >= duration) {
            time = duration;
        } else if (time < 0) {
            time = 0;
        } else {
            a->time = time;
            if (markers)
                fire_markers_once(a, t0, time, start);
            return time;
        }
        if (markers)
            fire_markers_once(a, t0, time, start);
        if (a->clamp_when_finished)
            a->paused = true;
        else
            a->enabled = false;
        a->time = time;
        dispatch(m, OROYA_EVENT_FINISHED, a, delta < 0 ? -1 : 1, 0);
        return time;
    }

    if (loop_count == -1) {
        if (delta >= 0) {
            loop_count = 0;
            set_endings(a, true, a->repetitions == 0, ping_pong);
        } else {
            /* Playing backwards, the first pass through 0 counts as a loop. */
            set_endings(a, a->repetitions == 0, true, ping_pong);
        }
    }

    if (duration <= 0) {
        /* three divides by the duration here and gets NaN time; a zero-length clip holds
         * its single pose at time 0 instead. */
        a->loop_count = loop_count;
        a->time = 0;
        return 0;
    }

    marker_pass mp = {.t0 = t0,
                      .end = time,
                      .d = duration,
                      .c0 = loop_count,
                      .last = 0,
                      .dir = delta > 0 ? 1 : -1,
                      .start = start,
                      .ping_pong = ping_pong};
    if (time >= duration || time < 0) {
        double loop_delta = floor(time / duration);
        time -= duration * loop_delta;
        int64_t c0 = loop_count;
        loop_count = add_loops(loop_count, loop_delta);
        double pending = a->repetitions - (double)loop_count;
        if (pending <= 0) {
            {
                double need = ceil(a->repetitions - (double)c0);
                need = need < 1 ? 1 : need;
                a->rm_wraps = ping_pong ? 0 : (delta > 0 ? need - 1 : -(need - 1));
            }
            if (markers) {
                /* The finish comes after `k` wraps: at the end of segment k - 1. */
                double need = ceil(a->repetitions - (double)c0);
                int64_t k = need < 1 ? 1 : need > 9.0e18 ? INT64_MAX : (int64_t)need;
                mp.last = k - 1;
                mp.end = delta > 0 ? duration : 0;
                fire_marker_segments(a, &mp, 0, mp.last);
            }
            if (a->clamp_when_finished)
                a->paused = true;
            else
                a->enabled = false;
            time = delta > 0 ? duration : 0;
            a->time = time;
            dispatch(m, OROYA_EVENT_FINISHED, a, delta > 0 ? 1 : -1, 0);
            /* Deviation 2: three picks the ping-pong direction from loop_count, which
             * already counts the round that will not be played (and every further round one
             * long update passes), and shows the wrong end on this frame only whenever that
             * count has the other parity. The last round played is c0 + need - 1 for the
             * need wraps that finish (loop_count - 1 when the update makes just those). */
            if (ping_pong) {
                const double need = ceil(a->repetitions - (double)c0);
                const uint64_t n = need < 1 ? 1 : need > 9.0e18 ? (uint64_t)9.0e18 : (uint64_t)need;
                if ((((uint64_t)c0 + n - 1) & 1u) != 0) /* c0 + need - 1, its parity */
                    return duration - time;
            }
            return time;
        }
        if (pending == 1) {
            bool at_start = delta < 0;
            set_endings(a, at_start, !at_start, ping_pong);
        } else {
            set_endings(a, false, false, ping_pong);
        }
        a->loop_count = loop_count;
        a->time = time;
        a->rm_wraps = ping_pong ? 0 : loop_delta;
        double ld = loop_delta;
        if (ld > 9.0e18)
            ld = 9.0e18;
        if (ld < -9.0e18)
            ld = -9.0e18;
        if (markers) {
            mp.last = ld < 0 ? -(int64_t)ld : (int64_t)ld;
            mp.end = time;
            fire_marker_segments(a, &mp, 0, 0);
        }
        dispatch(m, OROYA_EVENT_LOOP, a, 0, (int64_t)ld);
        if (markers)
            fire_marker_segments(a, &mp, 1, mp.last);
    } else {
        a->loop_count = loop_count;
        a->time = time;
        if (markers)
            fire_marker_segments(a, &mp, 0, 0);
    }
    if (ping_pong && odd(loop_count))
        return duration - time;
    return time;
}

/* ---- root motion ------------------------------------------------------------------------------ */

static void rm_sample(const oroya_action *a, int32_t track, double t, double *out) {
    uint32_t cursor = 0;
    oroya_track_sample_f64(&a->clip->tracks[track], t, &cursor, &a->endings, out);
}

/* The twist about Y of q (its yaw), in radians. */
static double rm_yaw_of(const double *q) {
    return (q[1] == 0 && q[3] == 0) ? 0 : 2 * atan2(q[1], q[3]);
}

#define RM_PI 3.14159265358979323846

static double rm_wrap_pi(double x) { return x - 2 * RM_PI * floor((x + RM_PI) / (2 * RM_PI)); }

/* The rotation vector (axis x angle) of conj(p) * q. */
static void rm_rotvec(const double *p, const double *q, double *rv) {
    /* d = conj(p) * q */
    double d[4] = {p[3] * q[0] - p[0] * q[3] - p[1] * q[2] + p[2] * q[1],
                   p[3] * q[1] + p[0] * q[2] - p[1] * q[3] - p[2] * q[0],
                   p[3] * q[2] - p[0] * q[1] + p[1] * q[0] - p[2] * q[3],
                   p[3] * q[3] + p[0] * q[0] + p[1] * q[1] + p[2] * q[2]};
    if (d[3] < 0)
        for (int i = 0; i < 4; i++)
            d[i] = -d[i];
    double s = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double k = s > 1e-12 ? 2 * atan2(s, d[3]) / s : 2;
    for (int i = 0; i < 3; i++)
        rv[i] = d[i] * k;
}

/* Rigid motions in double for the local deltas: a translation, then a unit quaternion. */
typedef struct rm_rigid {
    double t[3], q[4];
} rm_rigid;

static void rm_qmul(const double *a, const double *b, double *o) {
    const double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                         a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                         a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                         a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

/* v rotated by the unit quaternion q. */
static void rm_qrot(const double *q, const double *v, double *o) {
    const double u[3] = {q[0], q[1], q[2]}, w = q[3];
    const double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    const double cc[3] = {u[1] * c[2] - u[2] * c[1], u[2] * c[0] - u[0] * c[2],
                          u[0] * c[1] - u[1] * c[0]};
    for (int i = 0; i < 3; i++)
        o[i] = v[i] + 2 * (w * c[i] + cc[i]);
}

static void rm_qnorm(double *q) {
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0 && isfinite(n))
        for (int i = 0; i < 4; i++)
            q[i] /= n;
    else
        q[0] = q[1] = q[2] = 0, q[3] = 1;
}

/* a then b, b given in a's end frame. */
static rm_rigid rm_then(const rm_rigid *a, const rm_rigid *b) {
    rm_rigid r;
    rm_qrot(a->q, b->t, r.t);
    for (int i = 0; i < 3; i++)
        r.t[i] += a->t[i];
    rm_qmul(a->q, b->q, r.q);
    rm_qnorm(r.q);
    return r;
}

/* The root's extracted rotation at clip time t: its yaw under XZ_YAW, all of it under FULL,
 * none otherwise (or without a rotation track). */
static void rm_extracted_rotation(const oroya_action *a, double t, double *q) {
    q[0] = q[1] = q[2] = 0, q[3] = 1;
    const oroya_root_extract mode = a->mixer->rm_mode;
    if (a->rm_rotation < 0 || (mode != OROYA_ROOT_XZ_YAW && mode != OROYA_ROOT_FULL))
        return;
    rm_sample(a, a->rm_rotation, t, q);
    if (mode == OROYA_ROOT_XZ_YAW) {
        const double y = rm_yaw_of(q);
        q[0] = q[2] = 0, q[1] = sin(y / 2), q[3] = cos(y / 2);
    }
    rm_qnorm(q);
}

/* The root's motion over clip times [from, to] of one loop, in the root's own frame at
 * `from` (its extracted rotation then): conj(Q(from)) (P(to) - P(from)) and
 * conj(Q(from)) Q(to). */
static rm_rigid rm_segment(const oroya_action *a, double from, double to) {
    rm_rigid r = {{0, 0, 0}, {0, 0, 0, 1}};
    double q0[4], q1[4];
    rm_extracted_rotation(a, from, q0);
    rm_extracted_rotation(a, to, q1);
    const double c0[4] = {-q0[0], -q0[1], -q0[2], q0[3]};
    if (a->rm_translation >= 0) {
        double p0[3], p1[3], d[3];
        rm_sample(a, a->rm_translation, from, p0);
        rm_sample(a, a->rm_translation, to, p1);
        for (int i = 0; i < 3; i++)
            d[i] = p1[i] - p0[i];
        if (a->mixer->rm_mode == OROYA_ROOT_XZ_YAW)
            d[1] = 0;
        rm_qrot(c0, d, r.t);
    }
    rm_qmul(c0, q1, r.q);
    rm_qnorm(r.q);
    return r;
}

/* A segment repeated n times (by squaring: any n in a few steps). */
static rm_rigid rm_power(rm_rigid s, uint64_t n) {
    rm_rigid r = {{0, 0, 0}, {0, 0, 0, 1}};
    while (n) {
        if (n & 1u)
            r = rm_then(&r, &s);
        s = rm_then(&s, &s);
        n >>= 1;
    }
    return r;
}

/* One action's motion over the update in the root's own frame at its start: the segment to
 * the loop's end, the whole loops, the segment from the next loop's start (each loop goes on
 * from where and how the root ended the one before, as the pose does). Ping-pong has no
 * wraps here: its turns retrace the clip within one loop's frame. */
static rm_rigid rm_local_motion(const oroya_action *a, double from, double to) {
    const double d = a->duration, w = a->rm_wraps;
    if (w == 0)
        return rm_segment(a, from, to);
    const bool forward = w > 0;
    const double n = fabs(w) - 1;
    const uint64_t loops = n >= 4.0e18 ? (uint64_t)4.0e18 : (uint64_t)n;
    const rm_rigid first = rm_segment(a, from, forward ? d : 0);
    const rm_rigid loop = rm_power(rm_segment(a, forward ? 0 : d, forward ? d : 0), loops);
    const rm_rigid last = rm_segment(a, forward ? 0 : d, to);
    const rm_rigid head = rm_then(&first, &loop);
    return rm_then(&head, &last);
}

/* One action's root displacement from clip time `from` to `to` plus rm_wraps whole loops,
 * weighted, into the mixer's sums: a normal action's into the normalized blend, an additive
 * one's added on top (as its pose is). The weight is the action's effective weight times its
 * mask's weight of the root (a root masked out takes no part, as in the pose). */
static void root_motion_add(oroya_action *a, double from, double to, double weight) {
    oroya_mixer *m = a->mixer;
    const double d = a->duration, w = a->rm_wraps;
    if (a->masked && a->mask_weights) {
        weight *=
            (double)a->mask_weights[a->rm_translation >= 0 ? a->rm_translation : a->rm_rotation];
        if (!(weight > 0))
            return;
    }
    const bool additive = a->blend_mode == OROYA_BLEND_ADDITIVE;
    double *sum_t = additive ? m->rm_at : m->rm_t, *sum_rv = additive ? m->rm_arv : m->rm_rv;
    double *sum_yaw = additive ? &m->rm_ayaw : &m->rm_yaw;
    if (a->rm_translation >= 0) {
        double p0[3], p1[3], s0[3] = {0, 0, 0}, s1[3] = {0, 0, 0};
        rm_sample(a, a->rm_translation, from, p0);
        rm_sample(a, a->rm_translation, to, p1);
        if (w != 0) {
            rm_sample(a, a->rm_translation, 0, s0);
            rm_sample(a, a->rm_translation, d, s1);
        }
        for (int i = 0; i < 3; i++)
            sum_t[i] += weight * (p1[i] - p0[i] + w * (s1[i] - s0[i]));
    }
    if (a->rm_rotation >= 0 && (m->rm_mode == OROYA_ROOT_XZ_YAW || m->rm_mode == OROYA_ROOT_FULL)) {
        double q0[4], q1[4], r0[4] = {0, 0, 0, 1}, r1[4] = {0, 0, 0, 1};
        rm_sample(a, a->rm_rotation, from, q0);
        rm_sample(a, a->rm_rotation, to, q1);
        if (w != 0) {
            rm_sample(a, a->rm_rotation, 0, r0);
            rm_sample(a, a->rm_rotation, d, r1);
        }
        if (m->rm_mode == OROYA_ROOT_XZ_YAW) {
            double dy = rm_wrap_pi(rm_yaw_of(q1) - rm_yaw_of(q0)) +
                        w * rm_wrap_pi(rm_yaw_of(r1) - rm_yaw_of(r0));
            *sum_yaw += weight * dy;
        } else {
            double v[3], u[3];
            rm_rotvec(q0, q1, v);
            rm_rotvec(r0, r1, u);
            for (int i = 0; i < 3; i++)
                sum_rv[i] += weight * (v[i] + w * u[i]);
        }
    }
    if (m->rm_mode == OROYA_ROOT_XZ_YAW || m->rm_mode == OROYA_ROOT_FULL) {
        const rm_rigid l = rm_local_motion(a, from, to);
        double *sum_lt = additive ? m->rm_alt : m->rm_lt;
        for (int i = 0; i < 3; i++)
            sum_lt[i] += weight * l.t[i];
    }
    if (!additive)
        m->rm_wsum += weight;
}

static oroya_quat rm_quat_of_rotvec(const double *rv) {
    /* The length by its largest part, so that a turn of 1e300 rad (very many loops in one
     * update) does not square to inf and give a NaN rotation; past the double range the angle
     * is taken modulo 4 pi (its bits are long gone by then: the rotation is finite, not
     * meaningful). */
    double big = fabs(rv[0]) > fabs(rv[1]) ? fabs(rv[0]) : fabs(rv[1]);
    big = big > fabs(rv[2]) ? big : fabs(rv[2]);
    if (!(big > 0))
        return (oroya_quat){0, 0, 0, 1};
    const double x = rv[0] / big, y = rv[1] / big, z = rv[2] / big;
    const double norm = sqrt(x * x + y * y + z * z);
    double angle = big * norm;
    if (!isfinite(angle))
        angle = fmod(big, 4 * RM_PI) * norm;
    if (angle < 1e-15)
        return (oroya_quat){0, 0, 0, 1};
    const double s = sin(angle / 2) / norm;
    return (oroya_quat){(float)(x * s), (float)(y * s), (float)(z * s), (float)cos(angle / 2)};
}

/* x in float, saturated at +-FLT_MAX (a motion float cannot hold: a dt of 1e39 on a walk);
 * NaN (infinite motions that cancel) reads 0. */
static float rm_saturate(double x) {
    return x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : x == x ? (float)x : 0.0f;
}

/* The update's blended delta from the sums (the blend rule in oroya/mixer.h). */
static void root_motion_finish(oroya_mixer *m) {
    const double div = m->rm_wsum >= 1 ? m->rm_wsum : 1;
    double t[3] = {m->rm_t[0] / div + m->rm_at[0], m->rm_t[1] / div + m->rm_at[1],
                   m->rm_t[2] / div + m->rm_at[2]};
    double rv[3] = {0, 0, 0};
    switch (m->rm_mode) {
    case OROYA_ROOT_XZ: t[1] = 0; break;
    case OROYA_ROOT_XZ_YAW: t[1] = 0, rv[1] = m->rm_yaw / div + m->rm_ayaw; break;
    case OROYA_ROOT_Y: t[0] = t[2] = 0; break;
    default:
        for (int i = 0; i < 3; i++)
            rv[i] = m->rm_rv[i] / div + m->rm_arv[i];
        break;
    }
    for (int i = 0; i < 3; i++)
        rv[i] = isfinite(rv[i]) ? rv[i] : 0; /* an infinite or NaN turn: none */
    oroya_root_motion dm = {{rm_saturate(t[0]), rm_saturate(t[1]), rm_saturate(t[2])},
                            rm_quat_of_rotvec(rv)};
    m->rm_delta = dm;
    m->rm_local = dm; /* no rotation extracted: the root's frame is its parent's */
    if (m->rm_mode == OROYA_ROOT_XZ_YAW || m->rm_mode == OROYA_ROOT_FULL) {
        /* In the character's frame: the blended motion in the root's own frame, turned by
         * the root's home rotation (its extracted part), less the swing of the home offset
         * about the character's origin as the character turns (oroya/mixer.h). */
        double lt[3] = {m->rm_lt[0] / div + m->rm_alt[0], m->rm_lt[1] / div + m->rm_alt[1],
                        m->rm_lt[2] / div + m->rm_alt[2]};
        const oroya_transform *h = &m->rm_home;
        double qh[4] = {h->rotation.x, h->rotation.y, h->rotation.z, h->rotation.w};
        double ho[3] = {h->translation.x, h->translation.y, h->translation.z};
        if (m->rm_mode == OROYA_ROOT_XZ_YAW) {
            const double y = rm_yaw_of(qh);
            qh[0] = qh[2] = 0, qh[1] = sin(y / 2), qh[3] = cos(y / 2);
            lt[1] = 0, ho[1] = 0;
        }
        rm_qnorm(qh);
        const double dq[4] = {dm.rotation.x, dm.rotation.y, dm.rotation.z, dm.rotation.w};
        const double ch[4] = {-qh[0], -qh[1], -qh[2], qh[3]};
        double rel[4], ct[3], swung[3];
        rm_qmul(qh, dq, rel);
        rm_qmul(rel, ch, rel);
        rm_qnorm(rel);
        rm_qrot(qh, lt, ct);
        rm_qrot(rel, ho, swung);
        for (int i = 0; i < 3; i++)
            ct[i] -= swung[i] - ho[i];
        m->rm_local =
            (oroya_root_motion){{rm_saturate(ct[0]), rm_saturate(ct[1]), rm_saturate(ct[2])},
                                {(float)rel[0], (float)rel[1], (float)rel[2], (float)rel[3]}};
    }
    oroya_vec3 *tot = &m->rm_total.translation;
    tot->x = rm_saturate((double)tot->x + dm.translation.x);
    tot->y = rm_saturate((double)tot->y + dm.translation.y);
    tot->z = rm_saturate((double)tot->z + dm.translation.z);
    m->rm_total.rotation = oroya_quat_normalize(oroya_quat_mul(m->rm_total.rotation, dm.rotation));
}

/* In place: the extracted components of the root's blended value get their home values. */
static void root_motion_hold(const oroya_mixer *m, oroya_vec3 *t, oroya_quat *q) {
    const oroya_transform *h = &m->rm_home;
    switch (m->rm_mode) {
    case OROYA_ROOT_XZ: t->x = h->translation.x, t->z = h->translation.z; break;
    case OROYA_ROOT_Y: t->y = h->translation.y; break;
    case OROYA_ROOT_XZ_YAW: {
        t->x = h->translation.x, t->z = h->translation.z;
        /* q = home's yaw * (q without its yaw) */
        double qq[4] = {q->x, q->y, q->z, q->w},
               hq[4] = {h->rotation.x, h->rotation.y, h->rotation.z, h->rotation.w};
        double a = rm_yaw_of(hq) - rm_yaw_of(qq);
        oroya_quat turn = {0, (float)sin(a / 2), 0, (float)cos(a / 2)};
        *q = oroya_quat_normalize(oroya_quat_mul(turn, *q));
        break;
    }
    case OROYA_ROOT_FULL: *t = h->translation, *q = h->rotation; break;
    default: break;
    }
}

/* Track j of the action at clip time t, into doubles, as three's interpolants write into the
 * Float64Array binding buffer. */
static void sample_track(oroya_action *a, uint32_t j, const binding *b, double t, double *out) {
    const oroya_track *track = &a->clip->tracks[j];
    if (track->interpolation == OROYA_INTERP_STERP && track->twist_axis.x == 0 &&
        track->twist_axis.y == 0 && track->twist_axis.z == 0) {
        /* A STERP track without an axis takes the node's (the bone's long axis). */
        oroya_track with_axis = *track;
        with_axis.twist_axis = b->twist_axis;
        oroya_track_sample_f64(&with_axis, t, &a->cursors[j], &a->endings, out);
        return;
    }
    oroya_track_sample_f64(track, t, &a->cursors[j], &a->endings, out);
}

static void action_update(oroya_mixer *m, oroya_action *a, double time, double delta,
                          double direction, uint32_t accu_index) {
    if (!a->enabled) {
        update_weight(a, time);
        return;
    }
    if (a->has_start_time) {
        double running = (time - a->start_time) * direction;
        if (running < 0 || direction == 0) {
            delta = 0;
        } else {
            a->has_start_time = false;
            delta = direction * running;
        }
    }
    delta *= update_time_scale(a, time);
    /* Root motion: the clip time before the update as the pose showed it. Ping-pong's odd
     * rounds run mirrored; so does round -1, which playing backwards starts in (three's
     * `loopCount & 1`: raw time 0 shows the clip's end). Forwards, round -1 becomes round 0
     * before it moves. */
    const bool ping = a->loop == OROYA_LOOP_PINGPONG;
    const bool mirrored = ping && (a->loop_count >= 0 ? odd(a->loop_count) : delta < 0);
    const double rm_from = mirrored ? a->duration - a->time : a->time;
    a->rm_wraps = 0;
    const bool was_enabled = a->enabled;
    double clip_time = update_time(m, a, delta);
    /* An action that finished in this update without clamp_when_finished is disabled by it
     * (weight 0, as three); its motion up to the end still happened: counted with the weight
     * it had (before the disabling). */
    const double finish_weight = was_enabled && !a->enabled ? finishing_weight(a, time) : 0;
    double weight = update_weight(a, time);
    const double rm_weight = weight > 0 ? weight : finish_weight;
    if (m->rm_mode != OROYA_ROOT_NONE && !m->jumping && delta != 0 && rm_weight > 0 &&
        (a->rm_translation >= 0 || a->rm_rotation >= 0))
        root_motion_add(a, rm_from, clip_time, rm_weight);
    if (!(weight > 0))
        return;
    bool additive = a->blend_mode == OROYA_BLEND_ADDITIVE;
    oroya_rotation_blend blend =
        a->rotation_blend != OROYA_ROTATION_BLEND_DEFAULT ? a->rotation_blend : m->rotation_blend;
    const bool kernel = m->kernel_mode;
    if (kernel && a->pose && m->klayer_count < m->max_actions) {
        oroya__pose_mix_layer *ly = &m->klayers[m->klayer_count++];
        ly->clip = a->pose;
        ly->cursors = a->pose_cursors;
        ly->intervals = a->pose_intervals;
        ly->time = oroya__float_below(clip_time);
        ly->time_exact = clip_time;
        ly->weight = (float)weight;
        ly->additive = additive;
        ly->mask = a->masked ? a->mask->kweights : NULL;
        ly->twist = blend == OROYA_ROTATION_BLEND_STERP ? m->ktwist : NULL;
        ly->ext = a->ext_track_count ? a->ext : NULL;
        for (uint32_t i = 0; i != a->ext_track_count; ++i) {
            const uint32_t j = a->ext_tracks[i];
            const binding *b = a->bindings[j];
            double v[4];
            sample_track(a, j, b, clip_time, v);
            oroya__pose_ext *e = &a->ext[b->joint / 4];
            const uint32_t row = b->channel == 0 ? 0 : b->channel == 1 ? 3 : 7;
            for (uint32_t c = 0; c != b->size; ++c)
                e->rows[row + c][b->joint % 4] = (float)v[c];
        }
    }
    const uint32_t count = kernel ? a->property_track_count : a->track_count;
    for (uint32_t i = 0; i != count; ++i) {
        const uint32_t j = kernel ? a->property_tracks[i] : i;
        binding *b = a->bindings[j];
        double w = weight;
        if (a->mask) {
            /* weight x mask[joint]; a channel masked out takes no part (as weight 0 would). */
            w = weight * (double)a->mask_weights[j];
            if (!(w > 0))
                continue;
        }
        sample_track(a, j, b, clip_time, b->buffer);
        if (additive)
            binding_accumulate_additive(b, w);
        else
            binding_accumulate(b, accu_index, w,
                               blend == OROYA_ROTATION_BLEND_STERP &&
                                   b->property == OROYA_PROPERTY_ROTATION);
    }
}

/* ---- mixer API ------------------------------------------------------------------------------ */

/* The kernel's buffers for the rig, and the write-back hook. */
static oroya_result kernel_create(oroya_mixer *m, const oroya_rig *rig) {
    const oroya_pose_skeleton *skel = rig->skeleton;
    m->rig = rig;
    m->kjoints = skel->joint_count;
    m->kblocks = skel->block_count;
    m->kpalette = rig->palette_count;
    /* One block per mixer (a crowd's mixers do not scatter their buffers on the heap): what
     * every update reads and writes first, in the order the kernel touches it (layers, change
     * bits, locals, model and bone matrices), then what only some updates touch. */
    size_t size = 0;
    const size_t o_layers =
        oroya__take_aligned(&size, m->max_actions, sizeof(oroya__pose_mix_layer), 64);
    const size_t o_scratch =
        oroya__take_aligned(&size, m->max_actions, oroya__pose_mix_scratch_size(), 16);
    const size_t o_changed = oroya__take_aligned(&size, (size_t)m->kblocks * 5, 2, 16);
    const size_t o_locals = oroya__take_aligned(&size, m->kblocks, sizeof(oroya_soa_transform), 64);
    const size_t o_models = oroya__take_aligned(&size, m->kjoints, sizeof(oroya_mat4), 64);
    const size_t o_bones = oroya__take_aligned(&size, m->kjoints, sizeof(oroya_mat4), 64);
    const size_t o_orig = oroya__take_aligned(&size, m->kblocks, sizeof(oroya_soa_transform), 64);
    const size_t o_snap = oroya__take_aligned(&size, m->kblocks, sizeof(oroya_soa_transform), 64);
    const size_t o_held = oroya__take_aligned(&size, m->kblocks, sizeof(oroya_soa_transform), 64);
    const size_t o_pose = oroya__take_aligned(&size, m->kblocks, sizeof(oroya_soa_transform), 64);
    const size_t o_heldbits = oroya__take_aligned(&size, m->kblocks, sizeof(uint16_t), 16);
    const size_t o_twist = oroya__take_aligned(&size, (size_t)m->kblocks * 12, sizeof(float), 16);
    const size_t o_dense = oroya__take_aligned(&size, m->kjoints, sizeof(uint32_t), 16);
    uint8_t *mem = size == SIZE_MAX ? NULL : oroya__calloc(&m->allocator, 1, size, 64);
    if (!mem)
        return OROYA_ERR_OUT_OF_MEMORY;
    m->kmem = mem;
    m->klayers = (oroya__pose_mix_layer *)(void *)(mem + o_layers);
    m->kscratch = mem + o_scratch;
    m->kchanged = (uint16_t *)(void *)(mem + o_changed);
    m->klocals = (oroya_soa_transform *)(void *)(mem + o_locals);
    m->kmodels = (oroya_mat4 *)(void *)(mem + o_models);
    m->kbones = (oroya_mat4 *)(void *)(mem + o_bones);
    m->korig = (oroya_soa_transform *)(void *)(mem + o_orig);
    m->ksnap = (oroya_soa_transform *)(void *)(mem + o_snap);
    m->kheld = (oroya_soa_transform *)(void *)(mem + o_held);
    m->kpose = (oroya_soa_transform *)(void *)(mem + o_pose);
    m->kheldbits = (uint16_t *)(void *)(mem + o_heldbits);
    m->ktwist = (float *)(void *)(mem + o_twist);
    m->kdense = (uint32_t *)(void *)(mem + o_dense);
    m->kinuse = m->kchanged + m->kblocks;
    m->klimited = m->kinuse + m->kblocks;
    m->kik = m->klimited + m->kblocks;
    memcpy(m->korig, skel->rest, m->kblocks * sizeof(oroya_soa_transform));
    m->krest = skel->rest;
    memcpy(m->klocals, skel->rest, m->kblocks * sizeof(oroya_soa_transform));
    refresh_kdense(m);
    m->kernel_mode = true;
    m->kepoch = oroya__scene_epoch(m->scene) - 1u; /* the first update reads the scene */
    /* Until the first update: the scene's pose (or the rest pose without a scene). */
    property_bones(m);
    memcpy(m->ksnap, m->klocals, m->kblocks * sizeof *m->ksnap);
    m->hook = (oroya__scene_hook){kernel_write_back, m, NULL};
    oroya__scene_add_hook(m->scene, &m->hook);
    return OROYA_OK;
}

static void kernel_destroy(oroya_mixer *m) {
    if (m->rig && m->hook.flush) {
        kernel_write_back(m); /* the last update's pose reaches the joints */
        oroya__scene_remove_hook(m->scene, &m->hook);
    }
    oroya__free(&m->allocator, m->kmem);
}

/* Records a failed call's message (naming the call, the argument and why) as the mixer's
 * last error (oroya_mixer_last_error) and returns r; nothing else changes. m may be NULL. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4), cold))
#endif
static oroya_result
record(oroya_mixer *m, oroya_result r, const char *fmt, ...);
/* A refused call (OROYA_ERR_INVALID_ARGUMENT), recorded. */
#define refuse(m, ...) record((m), OROYA_ERR_INVALID_ARGUMENT, __VA_ARGS__)

oroya_result oroya_mixer_create(oroya_scene *scene, const oroya_mixer_desc *desc,
                                oroya_mixer **out) {
    if (!out)
        return OROYA_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!scene && !(desc && desc->rig))
        return OROYA_ERR_INVALID_ARGUMENT;
    oroya_mixer_desc d = desc ? *desc : (oroya_mixer_desc){0};
    if (d.max_actions == 0)
        d.max_actions = OROYA_MIXER_DEFAULT_MAX_ACTIONS;
    if (d.max_bindings == 0)
        d.max_bindings = OROYA_MIXER_DEFAULT_MAX_BINDINGS;
    if (d.max_events == 0)
        d.max_events = OROYA_MIXER_DEFAULT_MAX_EVENTS;
    if (d.max_actions > OROYA_MAX_ACTIONS || d.max_bindings > OROYA_MAX_BINDINGS ||
        d.max_events > OROYA_MAX_EVENTS ||
        (unsigned)d.rotation_blend > (unsigned)OROYA_ROTATION_BLEND_STERP)
        return OROYA_ERR_INVALID_ARGUMENT;
    /* On a cache line: a batch prefetches its hot lines (prefetch_mixer). */
    oroya_mixer *m = oroya__calloc(&d.allocator, 1, sizeof *m, 64);
    if (!m)
        return OROYA_ERR_OUT_OF_MEMORY;
    m->allocator = d.allocator;
    m->scene = scene;
    m->max_actions = d.max_actions;
    m->max_bindings = d.max_bindings;
    m->max_events = d.max_events;
    m->on_event = d.on_event;
    m->user = d.user;
    m->time_scale = 1;
    m->rotation_blend = d.rotation_blend == OROYA_ROTATION_BLEND_STERP ? OROYA_ROTATION_BLEND_STERP
                                                                       : OROYA_ROTATION_BLEND_SLERP;
    m->actions =
        oroya__calloc(&m->allocator, d.max_actions, sizeof *m->actions, _Alignof(oroya_action *));
    m->bindings =
        oroya__calloc(&m->allocator, d.max_bindings, sizeof *m->bindings, _Alignof(binding *));
    m->events =
        oroya__calloc(&m->allocator, d.max_events, sizeof *m->events, _Alignof(oroya_event));
    if (!m->actions || !m->bindings || !m->events) {
        oroya_mixer_destroy(m);
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    if (!scene) {
        /* Bone matrices only: an empty private scene, so every binding resolves to no node
         * and joint tracks bind to the rig's joints by name. */
        if (oroya_scene_create(&(oroya_scene_desc){.allocator = m->allocator}, &m->own_scene) !=
            OROYA_OK) {
            oroya_mixer_destroy(m);
            return OROYA_ERR_OUT_OF_MEMORY;
        }
        m->scene = m->own_scene;
    }
    if (d.rig && kernel_create(m, d.rig) != OROYA_OK) {
        oroya_mixer_destroy(m);
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    *out = m;
    return OROYA_OK;
}

static void free_action(oroya_mixer *m, oroya_action *a) {
    oroya_pose_clip_destroy(a->pose_owned);
    FREE_ALL(&m->allocator, a->pose_cursors, a->pose_intervals, a->property_tracks, a->ext_tracks,
             a->ext, a->mask_weights, a->bindings, a->cursors, a);
}

void oroya_mixer_destroy(oroya_mixer *m) {
    if (!m)
        return;
    if (m->in_callback) {
        /* The update that called the callback still runs on this mixer; it frees it when
         * it returns. */
        m->destroy_pending = true;
        return;
    }
    for (uint32_t i = 0; m->actions && i < m->action_count; i++)
        free_action(m, m->actions[i]);
    for (uint32_t i = 0; m->bindings && i < m->binding_count; i++)
        free_binding(m, m->bindings[i]);
    oroya__free(&m->allocator, m->actions);
    oroya__free(&m->allocator, m->bindings);
    oroya__free(&m->allocator, m->events);
    oroya__free(&m->allocator, m->overrides);
    oroya__free(&m->allocator, m->limits);
    for (uint32_t i = 0; i < m->curve_count; i++)
        oroya__free(&m->allocator, m->curves[i].name);
    oroya__free(&m->allocator, m->curves);
    oroya__free(&m->allocator, m->ik_plan);
    oroya__free(&m->allocator, m->rm_name);
    for (oroya_mask *k = m->masks, *next; k; k = next) {
        next = k->next;
        oroya__free(&m->allocator, k);
    }
    kernel_destroy(m);
    oroya_scene_destroy(m->own_scene);
    oroya_allocator a = m->allocator;
    oroya__free(&a, m);
}

static binding *find_binding(oroya_mixer *m, oroya_node node, const char *target,
                             oroya_property property) {
    for (uint32_t i = 0; i < m->binding_count; i++) {
        binding *b = m->bindings[i];
        if (b->property != property)
            continue;
        if (node.id ? b->node.id == node.id : (!b->node.id && !strcmp(b->target, target)))
            return b;
    }
    return NULL;
}

/* Forgets the curves registered from index `from` on (their names freed). */
static void drop_curves_from(oroya_mixer *m, uint32_t from) {
    for (uint32_t i = from; i < m->curve_count; i++)
        oroya__free(&m->allocator, (void *)m->curves[i].name);
    if (from < m->curve_count)
        m->curve_count = from;
}

static oroya_result bind_track(oroya_mixer *m, const oroya_track *t, binding **out) {
    oroya_node node = {0};
    if (t->property == OROYA_PROPERTY_CURVE || !t->target ||
        oroya_scene_find_node(m->scene, t->target, &node) != OROYA_OK)
        node.id = 0;
    binding *b = find_binding(m, node, t->target ? t->target : "", t->property);
    if (b) {
        if (b->size != t->components)
            return OROYA_ERR_INVALID_DATA;
        b->reference_count++;
        *out = b;
        return OROYA_OK;
    }
    if (m->binding_count >= m->max_bindings)
        return OROYA_ERR_LIMIT;
    uint32_t curve = NO_INDEX;
    if (t->property == OROYA_PROPERTY_CURVE) {
        oroya_result r = oroya_mixer_curve_index(m, t->target ? t->target : "", &curve);
        if (r != OROYA_OK)
            return r;
    }
    b = oroya__calloc(&m->allocator, 1, sizeof *b, _Alignof(binding));
    if (!b)
        return OROYA_ERR_OUT_OF_MEMORY;
    b->size = t->components;
    b->buffer = oroya__calloc(&m->allocator, (size_t)REGION_COUNT * b->size, sizeof(double),
                              _Alignof(double));
    const char *name = t->target ? t->target : "";
    size_t len = strlen(name) + 1;
    b->target = oroya__alloc(&m->allocator, len, 1);
    if (b->target)
        memcpy(b->target, name, len);
    if (!b->buffer || !b->target) {
        free_binding(m, b);
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    b->node = node;
    b->dense = node.id ? oroya_scene_node_index(m->scene, node) : NO_INDEX;
    b->property = t->property;
    b->joint = NO_INDEX;
    b->curve = curve;
    if (m->rig && t->property <= OROYA_PROPERTY_SCALE) {
        b->joint = oroya__rig_joint_of(m->rig, m->scene, node, name);
        b->channel = t->property == OROYA_PROPERTY_TRANSLATION ? 0
                     : t->property == OROYA_PROPERTY_ROTATION  ? 1
                                                               : 2;
    }
    set_binding_twist_axis(m, b);
    b->reference_count = 1;
    b->cache_index = m->binding_count;
    m->bindings[m->binding_count++] = b;
    *out = b;
    return OROYA_OK;
}

/* The action's runtime clip: the rig's, when it was built with the same joints, else one of
 * its own. A clip the kernel cannot play leaves kernel_ok false (the property path plays it
 * while the action is scheduled); only running out of memory is an error. */
static oroya_result bind_kernel(oroya_mixer *m, oroya_action *a) {
    const oroya_clip *clip = a->clip;
    const uint32_t n = a->track_count;
    uint32_t *tj = oroya__alloc(&m->allocator, (n ? n : 1) * sizeof(uint32_t), 16);
    if (!tj)
        return OROYA_ERR_OUT_OF_MEMORY;
    bool any = false;
    for (uint32_t i = 0; i < n; i++) {
        tj[i] = a->bindings[i]->joint;
        any = any || tj[i] != NO_INDEX;
    }
    oroya_result r = OROYA_OK;
    if (any) {
        const oroya_rig *rig = m->rig;
        for (uint32_t c = 0; c < rig->clip_count && !a->pose; c++)
            if (oroya__rig_clip_current(rig, c, clip) && rig->pose_clips[c] &&
                !memcmp(rig->clip_joints[c], tj, n * sizeof(uint32_t)))
                a->pose = rig->pose_clips[c];
        if (!a->pose) {
            oroya_error e = {0};
            r = oroya__rig_make_clip(rig, clip, tj, &m->allocator, &a->pose_owned, &e);
            a->pose = a->pose_owned;
            if (r != OROYA_OK && r != OROYA_ERR_OUT_OF_MEMORY) {
                a->kernel_ok = false;
                r = OROYA_OK;
            }
        }
    }
    oroya__free(&m->allocator, tj);
    a->property_tracks = oroya__calloc(&m->allocator, n ? n : 1, sizeof(uint32_t), 16);
    if (!a->property_tracks)
        return OROYA_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < n; i++)
        if (a->bindings[i]->joint == NO_INDEX)
            a->property_tracks[a->property_track_count++] = i;
    if (a->pose && a->kernel_ok) {
        for (uint32_t i = 0; i < n; i++)
            a->ext_track_count +=
                a->bindings[i]->joint != NO_INDEX && oroya__rig_track_outside(&clip->tracks[i]);
    }
    if (a->ext_track_count) {
        a->ext_tracks = oroya__calloc(&m->allocator, a->ext_track_count, sizeof(uint32_t), 16);
        a->ext = oroya__calloc(&m->allocator, m->kblocks, sizeof(oroya__pose_ext), 16);
        if (!a->ext_tracks || !a->ext)
            return OROYA_ERR_OUT_OF_MEMORY;
        uint32_t e = 0;
        for (uint32_t i = 0; i < n; i++) {
            const binding *b = a->bindings[i];
            if (b->joint == NO_INDEX || !oroya__rig_track_outside(&clip->tracks[i]))
                continue;
            a->ext_tracks[e++] = i;
            a->ext[b->joint / 4].mask[b->channel][b->joint % 4] = UINT32_MAX;
        }
    }
    if (a->pose) {
        const uint32_t g = a->pose->group_count;
        a->pose_cursors = oroya__calloc(&m->allocator, g, sizeof(uint16_t), 16);
        a->pose_intervals = oroya__calloc(&m->allocator, oroya__pose_clip_state_intervals(a->pose),
                                          sizeof(oroya__pose_interval), 16);
        if (!a->pose_cursors || !a->pose_intervals)
            r = OROYA_ERR_OUT_OF_MEMORY;
    }
    return r;
}

/* The action's tracks on the root-motion node (by name, once: at creation and when root
 * motion is set). */
static void root_motion_tracks(const oroya_mixer *m, oroya_action *a) {
    a->rm_translation = a->rm_rotation = -1;
    if (m->rm_mode == OROYA_ROOT_NONE)
        return;
    /* Its name now (it may have been renamed since the call), else the name at the call (a
     * removed root, until one of that name comes). */
    const char *name = sceneless(m) ? joint_name(m, m->rm_joint)
                       : oroya_scene_node_valid(m->scene, m->rm_node)
                           ? oroya_scene_node_name(m->scene, m->rm_node)
                           : m->rm_name;
    for (uint32_t i = 0; name && name[0] && i < a->track_count; i++) {
        const oroya_track *t = &a->clip->tracks[i];
        if (strcmp(t->target, name) != 0)
            continue;
        if (t->property == OROYA_PROPERTY_TRANSLATION && a->rm_translation < 0)
            a->rm_translation = (int32_t)i;
        if (t->property == OROYA_PROPERTY_ROTATION && a->rm_rotation < 0)
            a->rm_rotation = (int32_t)i;
    }
}

static oroya_action *lookup_action(const oroya_mixer *m, const oroya_clip *clip) {
    for (uint32_t i = 0; i < m->action_count; i++)
        if (m->actions[i]->clip == clip && m->actions[i]->lookup)
            return m->actions[i];
    return NULL;
}

static bool valid_track_shape(const oroya_track *t) {
    switch (t->property) {
    case OROYA_PROPERTY_TRANSLATION:
    case OROYA_PROPERTY_SCALE: return t->components == 3;
    case OROYA_PROPERTY_ROTATION: return t->components == 4;
    case OROYA_PROPERTY_WEIGHTS: return t->components > 0;
    case OROYA_PROPERTY_INTENSITY:
    case OROYA_PROPERTY_FOV:
    case OROYA_PROPERTY_COLOR:
    case OROYA_PROPERTY_VISIBLE:
    case OROYA_PROPERTY_CURVE: return t->components == oroya_property_components(t->property);
    default: return false;
    }
}

oroya_result oroya_action_create(oroya_mixer *m, const oroya_clip *clip,
                                 const oroya_action_desc *desc, oroya_action **out) {
    if (!out)
        return OROYA_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!m || !clip || (clip->track_count && !clip->tracks))
        return refuse(m, "oroya_action_create: %s",
                      !clip ? "clip is NULL" : "clip has tracks but no track array");
    oroya_action_desc d = desc ? *desc : (oroya_action_desc){0};
    oroya_blend_mode mode = d.has_blend_mode ? d.blend_mode : clip->blend_mode;
    if (mode != OROYA_BLEND_NORMAL && mode != OROYA_BLEND_ADDITIVE)
        return refuse(m, "oroya_action_create: blend mode %d: not a blend mode", (int)mode);
    if (!(d.duration >= 0) || !isfinite(d.duration))
        return refuse(m, "oroya_action_create: duration %g: must be a finite number >= 0",
                      d.duration);
    const char *cname = clip->name ? clip->name : "";
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *t = &clip->tracks[i];
        if (!valid_track_shape(t))
            return record(m, OROYA_ERR_INVALID_DATA,
                          "oroya_action_create: clip \"%.64s\" track %u (\"%.64s\" %s): %u "
                          "components, not a shape the property has",
                          cname, i, t->target ? t->target : "", oroya_property_name(t->property),
                          t->components);
    }

    if (!d.independent) {
        oroya_action *existing = lookup_action(m, clip);
        if (existing && existing->blend_mode == mode) {
            *out = existing;
            return OROYA_OK;
        }
    }
    if (m->action_count >= m->max_actions)
        return record(m, OROYA_ERR_LIMIT,
                      "oroya_action_create: clip \"%.64s\": the mixer has %u actions, its "
                      "max_actions",
                      cname, m->max_actions);

    oroya_action *a = oroya__calloc(&m->allocator, 1, sizeof *a, 64); /* on a line: see `cold` */
    if (!a)
        return record(m, OROYA_ERR_OUT_OF_MEMORY,
                      "oroya_action_create: clip \"%.64s\": out of memory", cname);
    uint32_t n = clip->track_count;
    a->bindings = oroya__calloc(&m->allocator, n ? n : 1, sizeof *a->bindings, _Alignof(binding *));
    a->cursors = oroya__calloc(&m->allocator, n ? n : 1, sizeof *a->cursors, _Alignof(uint32_t));
    if (!a->bindings || !a->cursors) {
        free_action(m, a);
        return record(m, OROYA_ERR_OUT_OF_MEMORY,
                      "oroya_action_create: clip \"%.64s\": out of memory", cname);
    }
    a->mixer = m;
    a->clip = clip;
    a->blend_mode = mode;
    a->independent = d.independent;
    a->duration = d.duration > 0 ? d.duration : (double)clip->duration;
    a->track_count = n;
    a->loop = OROYA_LOOP_REPEAT;
    a->loop_count = -1;
    a->time_scale = a->effective_time_scale = 1;
    chk_dirty(m);
    a->weight = a->effective_weight = 1;
    a->repetitions = INFINITY;
    a->enabled = true;
    a->zero_slope_at_start = a->zero_slope_at_end = true;
    a->endings.ending_start = OROYA_ENDING_ZERO_CURVATURE;
    a->endings.ending_end = OROYA_ENDING_ZERO_CURVATURE;
    a->cache_index = NO_INDEX;

    /* A failed call leaves the mixer as it was: the curves its CURVE tracks registered go
     * too (their bindings, this call's own, are released with it). */
    const uint32_t curves_before = m->curve_count;
    for (uint32_t i = 0; i < n; i++) {
        oroya_result r = bind_track(m, &clip->tracks[i], &a->bindings[i]);
        if (r != OROYA_OK) {
            release_bindings(m, a, i);
            free_action(m, a);
            drop_curves_from(m, curves_before);
            const oroya_track *t = &clip->tracks[i];
            return record(
                m, r, "oroya_action_create: clip \"%.64s\" track %u (\"%.64s\" %s): %s", cname, i,
                t->target ? t->target : "", oroya_property_name(t->property),
                r == OROYA_ERR_LIMIT ? "the mixer has max_bindings distinct targets"
                : r == OROYA_ERR_INVALID_DATA
                    ? "another action animates this target with another number of components"
                : r == OROYA_ERR_BUSY ? "a new curve cannot be added inside a callback"
                                      : "out of memory");
        }
    }
    a->kernel_ok = true;
    if (m->rig) {
        oroya_result r = bind_kernel(m, a);
        if (r != OROYA_OK) {
            release_bindings(m, a, n);
            free_action(m, a);
            drop_curves_from(m, curves_before);
            return record(m, r, "oroya_action_create: clip \"%.64s\": the rig's kernel: %s", cname,
                          oroya_result_string(r)); /* out of memory */
        }
    }
    if (!d.independent) {
        oroya_action *previous = lookup_action(m, clip);
        if (previous)
            previous->lookup = false;
        a->lookup = true;
    }
    a->cache_index = m->action_count;
    m->actions[m->action_count++] = a;
    root_motion_tracks(m, a);
    *out = a;
    return OROYA_OK;
}

oroya_result oroya_mixer_clip_action(oroya_mixer *m, const oroya_clip *clip, oroya_action **out) {
    return oroya_action_create(m, clip, NULL, out);
}

oroya_result oroya_mixer_clip_action_ex(oroya_mixer *m, const oroya_clip *clip,
                                        const oroya_action_desc *desc, oroya_action **out) {
    return oroya_action_create(m, clip, desc, out);
}

oroya_result oroya_mixer_play(oroya_mixer *m, const oroya_clip *clip, oroya_action **out) {
    oroya_action *a = NULL;
    oroya_result r = oroya_mixer_clip_action(m, clip, &a);
    if (out)
        *out = a;
    if (r != OROYA_OK)
        return r;
    oroya_action_play(a);
    return OROYA_OK;
}

/* The constraint pass: after blending, before the caller's world matrices. A rotation the
 * clamp rejects (not finite, zero) is left as it is, as oroya_joint_limit_clamp leaves it. */
static void apply_joint_limits(oroya_mixer *m) {
    if (m->limit_count == 0)
        return;
    if (!m->kernel_mode && sceneless(m)) {
        kernel_limits(m); /* no scene: the property path wrote the kernel's lanes */
        return;
    }
    oroya_transform *transforms = oroya__scene_transforms_raw(m->scene);
    uint32_t node_count = oroya_scene_node_count(m->scene);
    for (uint32_t i = 0; i < m->limit_count; i++) {
        const limit_entry *e = &m->limits[i];
        if (e->dense >= node_count || (m->kernel_mode && m->rig && e->joint != NO_INDEX))
            continue;
        oroya_quat *q = &transforms[e->dense].rotation;
        oroya_quat out;
        if (oroya_joint_limit_clamp(&e->limit, *q, &out) == OROYA_OK)
            *q = out;
    }
}

static bool valid_dt(double dt) { return isfinite(dt) && dt >= 0; }

static void kpf_build(oroya_mixer *m);

/* A bound on the action's effective time scale during the next update: the larger of its
 * time scale and last effective one (a NaN effective one loses), and while it warps, the
 * ramp's ends times the time scale (a warp can raise it within the update). */
static double action_rate_bound(const oroya_action *a) {
    /* fmax inline (the library call cost more than the test). */
    const double ts = fabs(a->time_scale), ets = fabs(a->effective_time_scale);
    double r = ts > ets || isnan(ets) ? ts : ets;
    if (a->warping) {
        const double w0 = fabs((double)a->warp_values[0]) * ts,
                     w1 = fabs((double)a->warp_values[1]) * ts;
        r = r > w0 ? r : w0;
        r = r > w1 ? r : w1;
    }
    return r;
}

/* The bounds of the batch's check (chk_rate, chk_time) from the scheduled actions, at the end
 * of an update, while they are in cache. A NaN or infinite bound leaves them invalid (the
 * check then reads the actions). */
static void chk_refresh(oroya_mixer *m) {
    double rate = 0, t = 0, inv_d = 0;
    bool finite = true;
    for (uint32_t i = 0; i < m->active_action_count && i < m->action_count; ++i) {
        const oroya_action *a = m->actions[i];
        const double ts = fabs(a->time_scale), ets = fabs(a->effective_time_scale);
        const double at = fabs(a->time);
        finite = finite && isfinite(ts + ets + at); /* NaN, inf (or an overflowing sum) */
        const double r = action_rate_bound(a);
        rate = r > rate ? r : rate;
        t = at > t ? at : t;
        const double id = a->duration > 0 ? 1 / a->duration : 0;
        inv_d = id > inv_d ? id : inv_d;
    }
    m->chk_rate = rate;
    m->chk_time = t;
    m->chk_inv_d = inv_d;
    m->chk_valid = finite && isfinite(rate) && isfinite(inv_d);
}

/* The action logic of an update (times, loops, fades, warps, events), the property path's
 * sampling and writes, and the kernel's layer list. dt was checked. Returns true when an
 * event callback destroyed the mixer: it is freed here when `free_now`, else left for the
 * caller (destroy_pending), and nothing more is done with it. */
static bool mixer_update_actions(oroya_mixer *m, double dt, bool free_now) {
    m->event_count = 0;
    m->events_dropped = 0;
    refresh_layout(m);
    switch_path(m, kernel_wanted(m));
    m->klayer_count = 0;
    m->rm_t[0] = m->rm_t[1] = m->rm_t[2] = m->rm_yaw = m->rm_wsum = 0;
    m->rm_rv[0] = m->rm_rv[1] = m->rm_rv[2] = 0;
    m->rm_at[0] = m->rm_at[1] = m->rm_at[2] = m->rm_ayaw = 0;
    m->rm_arv[0] = m->rm_arv[1] = m->rm_arv[2] = 0;
    m->rm_lt[0] = m->rm_lt[1] = m->rm_lt[2] = 0;
    m->rm_alt[0] = m->rm_alt[1] = m->rm_alt[2] = 0;
    double delta = dt * m->time_scale;
    double time = m->time += delta;
    double direction = delta > 0 ? 1.0 : delta < 0 ? -1.0 : 0.0;
    uint32_t accu_index = m->accu_index ^= 1u;
    uint32_t n = m->active_action_count;
    for (uint32_t i = 0; i != n && i < m->action_count && !m->destroy_pending; ++i)
        action_update(m, m->actions[i], time, delta, direction, accu_index);
    if (m->destroy_pending) {
        /* The event callback destroyed the mixer. */
        if (free_now)
            oroya_mixer_destroy(m);
        return true;
    }
    /* Only an event callback can have changed the scene's layout since the first look, and
     * every event counts in event_count or events_dropped (dispatch_event). */
    if (m->event_count != 0 || m->events_dropped != 0)
        refresh_layout(m);
    const bool kernel = m->kernel_mode;
    uint32_t nb = kernel && m->active_property_bindings == 0 ? 0 : m->active_binding_count;
    m->rm_animated = false;
    for (uint32_t i = 0; i != nb && i < m->binding_count; ++i)
        if (!kernel || m->bindings[i]->joint == NO_INDEX)
            binding_apply(m, m->bindings[i], accu_index);
    m->rm_rewrite = (oroya_node){0};
    if (m->rm_mode != OROYA_ROOT_NONE) {
        root_motion_finish(m);
        /* The scene holds the root unless the kernel does (then kernel_run holds it), and
         * only while an action animates it (as the kernel: a root no action animates, or
         * the original an action's stop restored, is left as it is; a root moved by hand
         * then stays moved). */
        uint32_t j = kernel ? m->rm_joint : NO_INDEX;
        uint32_t dn = oroya_scene_node_index(m->scene, m->rm_node);
        if (j == NO_INDEX && m->rm_animated && dn < oroya_scene_node_count(m->scene)) {
            oroya_transform *tr = &oroya__scene_transforms_raw(m->scene)[dn];
            root_motion_hold(m, &tr->translation, &tr->rotation);
        } else if (!kernel && m->rm_animated && sceneless(m)) {
            kernel_root_hold(m); /* no scene: the property path wrote the kernel's lanes */
        }
    }
    apply_joint_limits(m);
    if (kernel)
        kernel_prepare(m);
    if (!m->kpf_valid)
        kpf_build(m);
    chk_refresh(m);
    return false;
}

/* The kernel's part (nothing without a rig): blend, limits and matrices, or on the property
 * path the matrices from the scene. The kernel part touches only the mixer's own buffers. */
static void mixer_update_pose(oroya_mixer *m) {
    if (!m->rig)
        return;
    if (m->kernel_mode) {
        kernel_run(m);
        m->kernel_pending = true;
        oroya__scene_mark_pending(m->scene);
    } else {
        property_bones(m);
    }
}

/* A refused update: its message names the dt and what it breaks (cold; the hot path only
 * tests). */
static oroya_result refuse_update(oroya_mixer *m, const char *call, double dt, const char *why) {
    return refuse(m, "%s: %s %g: %s", call, call[12] == 'u' ? "dt" : "time", dt, why);
}

/* Whether an action's time may reach x in magnitude: the loop wrap's floor(t / d) and
 * d * floor(t / d) (update_time) must be finite, or the time becomes inf and then NaN for
 * good (a dt of DBL_MAX, a time of -1e308 on a 0.5 s clip). */
static bool action_time_ok(const oroya_action *a, double x) {
    return x <= DBL_MAX / 4 && (a->duration <= 0 || x / a->duration <= DBL_MAX / 4);
}

/* An update by dt, or (from_zero, oroya_mixer_set_time) one from times 0 to dt. */
static oroya_result check_step(oroya_mixer *m, double dt, bool from_zero) {
    const char *call = from_zero ? "oroya_mixer_set_time" : "oroya_mixer_update";
    if (!m)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!valid_dt(dt))
        return refuse_update(m, call, dt, "must be a finite number >= 0");
    if (m->in_callback)
        return OROYA_ERR_BUSY;
    /* A finite dt can still overflow once scaled or accumulated (dt 1e10 at time scale 1e300,
     * or two updates of 1e308), which would leave the mixer time infinite and every action
     * time NaN for good. Such an update is refused like a bad dt and changes nothing. The
     * actions' own time scales are checked too, against the largest time scale in use
     * (time scales are finite; a warp moves the effective one between finite values, so this
     * is a bound for the step, not the step). */
    {
        double scaled = dt * m->time_scale;
        if (!isfinite(scaled) || !isfinite((from_zero ? 0 : m->time) + scaled))
            return refuse_update(m, call, dt, "the mixer's time would overflow at its time scale");
        for (uint32_t i = 0; i < m->active_action_count && i < m->action_count; ++i) {
            const oroya_action *a = m->actions[i];
            const double step = fabs(scaled) * action_rate_bound(a);
            if (!action_time_ok(a, (from_zero ? 0 : fabs(a->time)) + step))
                return refuse(m,
                              "%s: %s %g: the time of the action of clip \"%s\" (duration %g) "
                              "would overflow at its time scale",
                              call, from_zero ? "time" : "dt", dt,
                              a->clip->name ? a->clip->name : "", a->duration);
        }
    }
    return OROYA_OK;
}

static oroya_result check_update(oroya_mixer *m, double dt) { return check_step(m, dt, false); }

/* A rig's hierarchy is fixed when it is built. On the scene it was built from, a joint node
 * removed or re-parented since then would make the bone matrices (and the kernel's model
 * matrices) disagree with the scene: such an update is refused (INVALID_DATA) and changes
 * nothing; a new rig (and mixer) takes the new hierarchy. The first such kernel joint, or
 * NO_INDEX. Runs its loop only when the scene's layout version moved. */
static uint32_t rig_hierarchy_broken(oroya_mixer *m) {
    if (!m->rig || m->scene != m->rig->scene)
        return NO_INDEX;
    const uint32_t version = oroya_scene_layout_version(m->scene);
    if (m->khier_valid && version == m->khier_version)
        return m->khier_bad;
    const uint32_t *scene_parents = oroya_scene_parent_indices(m->scene);
    const uint32_t *rig_parents = m->rig->skeleton->parents;
    m->khier_bad = NO_INDEX;
    for (uint32_t k = 0; k < m->kjoints && m->khier_bad == NO_INDEX; k++) {
        const oroya_node node = m->rig->nodes[k];
        if (!oroya_scene_node_valid(m->scene, node)) {
            m->khier_bad = k;
            break;
        }
        const uint32_t p = rig_parents[k];
        const uint32_t d = oroya_scene_node_index(m->scene, node);
        if (p == UINT32_MAX) {
            /* A kernel root was a scene root when the rig was built (the rig takes every
             * joint's ancestors): one moved under another node is re-parented too. */
            if (!scene_parents || scene_parents[d] != NO_INDEX)
                m->khier_bad = k;
            continue;
        }
        const uint32_t pd = oroya_scene_node_valid(m->scene, m->rig->nodes[p])
                                ? oroya_scene_node_index(m->scene, m->rig->nodes[p])
                                : NO_INDEX;
        if (!scene_parents || pd == NO_INDEX || scene_parents[d] != pd)
            m->khier_bad = k;
    }
    m->khier_version = version;
    m->khier_valid = true;
    return m->khier_bad;
}

/* The refusal of an update whose rig's hierarchy changed (k: the first such kernel joint),
 * recorded for oroya_mixer_last_error. */
static oroya_result refuse_hierarchy(oroya_mixer *m, const char *call, uint32_t k) {
    refuse(m,
           "%s: rig \"%s\", joint %u (\"%s\"): its node was removed or re-parented in the "
           "scene since the rig was built; build a new rig for the new hierarchy",
           call, m->rig->name, k, joint_name(m, k));
    return OROYA_ERR_INVALID_DATA;
}

/* One update; *destroyed: the event callback destroyed the mixer, which is freed now. */
static oroya_result mixer_update_one(oroya_mixer *m, double dt, bool *destroyed) {
    *destroyed = false;
    oroya_result r = check_update(m, dt);
    if (r != OROYA_OK)
        return r;
    const uint32_t broken = rig_hierarchy_broken(m);
    if (broken != NO_INDEX)
        return refuse_hierarchy(m, "oroya_mixer_update", broken);
    if (mixer_update_actions(m, dt, true)) {
        *destroyed = true;
        return OROYA_OK;
    }
    mixer_update_pose(m);
    return OROYA_OK;
}

oroya_result oroya_mixer_update(oroya_mixer *m, double dt) {
    bool destroyed;
    return mixer_update_one(m, dt, &destroyed);
}

/* ---- batches: prefetching ahead ----
 * A crowd's mixers, their actions and their kernel buffers are separate heap blocks, and each
 * pass of a batch over them chases pointers (mixer -> actions -> action, mixer -> layers ->
 * cursors): one cache miss after the other, each waiting for the one before, which
 * instruction counts do not show. Each pass fetches the mixers a few places ahead: first the
 * mixer's own lines, then, once they are in cache, the line ranges its update reads (kpf,
 * listed once when the scheduled actions change), with no pointer to follow in between.
 * Hints only: nothing here changes a result (a stale range is only a wasted prefetch;
 * prefetches do not fault). */

static void prefetch_bytes(const void *p, size_t bytes, bool write) {
    const uintptr_t end = (uintptr_t)p + bytes;
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < end; a += 64) {
        if (write)
            __builtin_prefetch((const void *)a, 1);
        else
            __builtin_prefetch((const void *)a, 0);
    }
}

/* The mixer's first line, which kpf's offsets count from. */
static const char *kpf_base(const oroya_mixer *m) {
    return (const char *)((uintptr_t)m & ~(uintptr_t)63);
}

/* Appends the lines of [p, p + bytes) to the list (a line too far from the mixer for an
 * int32 offset, or past KPF_MAX, is left out: hints only). */
static void kpf_add(oroya_mixer *m, const void *p, size_t bytes) {
    if (!p || !bytes)
        return;
    const intptr_t base = (intptr_t)kpf_base(m);
    const uintptr_t end = (uintptr_t)p + bytes;
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < end && m->kpf_count < KPF_MAX; a += 64) {
        const intptr_t d = ((intptr_t)a - base) / 64;
        if (d >= INT32_MIN && d <= INT32_MAX)
            m->kpf[m->kpf_count++] = (int32_t)d;
    }
}

/* The lines of an update: the action logic's (the action list, each scheduled action's hot
 * lines, the kernel's layer list), then the kernel's (the actions' cursors and intervals, the
 * change bits). */
static void kpf_build(oroya_mixer *m) {
    m->kpf_count = 0;
    const uint32_t n =
        m->active_action_count < m->action_count ? m->active_action_count : m->action_count;
    kpf_add(m, m->actions, n * sizeof *m->actions);
    for (uint32_t i = 0; i < n; i++)
        kpf_add(m, m->actions[i], offsetof(oroya_action, cold));
    if (m->rig)
        kpf_add(m, m->klayers, n * sizeof *m->klayers);
    m->kpf_logic = m->kpf_count;
    if (m->rig) {
        for (uint32_t i = 0; i < n; i++) {
            const oroya_action *a = m->actions[i];
            if (!a->pose)
                continue;
            kpf_add(m, a->pose_cursors, a->pose->group_count * sizeof *a->pose_cursors);
            kpf_add(m, a->pose_intervals,
                    oroya__pose_clip_state_intervals(a->pose) * sizeof *a->pose_intervals);
        }
        kpf_add(m, m->kchanged, m->kblocks * sizeof *m->kchanged);
    }
    m->kpf_valid = true;
}

/* Level 1: the mixer's own lines, up to its cold part (the mixer is allocated on a line). */
enum { MIXER_HOT_LINES = (offsetof(oroya_mixer, allocator) + 63) / 64 };

static void prefetch_mixer(const oroya_mixer *m) {
    if (!m)
        return;
    const char *p = kpf_base(m);
#pragma GCC unroll 16
    for (int k = 0; k < MIXER_HOT_LINES; k++)
        __builtin_prefetch(p + k * 64, 1);
}

/* Level 2 (the mixer is in cache): its scene header and the first `count` listed lines. */
static void prefetch_listed(const oroya_mixer *m, uint32_t count) {
    if (!m)
        return;
    oroya__scene_prefetch(m->scene);
    const char *base = kpf_base(m);
#pragma GCC unroll 4
    for (uint32_t k = 0; k < count; k++)
        __builtin_prefetch(base + (ptrdiff_t)m->kpf[k] * 64, 1);
}

/* The distances (in mixers) of the two levels: the second is one miss away from the first,
 * and one mixer's action logic takes a few hundred nanoseconds. `pass`: the lines that pass
 * reads (check_update's, the action logic's, or the whole update's). */
enum { AHEAD1 = 4, AHEAD2 = 2 };
typedef enum { PASS_LOGIC, PASS_ALL } batch_pass;

static void prefetch_ahead(oroya_mixer *const *mixers, uint32_t i, uint32_t end, batch_pass pass) {
    if (i + AHEAD1 < end)
        prefetch_mixer(mixers[i + AHEAD1]);
    if (i + AHEAD2 < end) {
        const oroya_mixer *m = mixers[i + AHEAD2];
        if (m)
            prefetch_listed(m, pass == PASS_LOGIC ? m->kpf_logic : m->kpf_count);
    }
}

/* Levels 2 and 3 of the kernel's pass: the layers, then their cursors and intervals, and the
 * change bits. */
static void prefetch_kernel_lists(const oroya_mixer *m) {
    prefetch_bytes(m->klayers, m->klayer_count * sizeof *m->klayers, false);
    prefetch_bytes(m->kchanged, m->kblocks * sizeof *m->kchanged, true);
}

static void prefetch_kernel_layers(const oroya_mixer *m) {
    for (uint32_t i = 0; i < m->klayer_count; i++) {
        const oroya__pose_mix_layer *ly = &m->klayers[i];
        prefetch_bytes(ly->cursors, ly->clip->group_count * sizeof *ly->cursors, true);
        prefetch_bytes(ly->intervals,
                       oroya__pose_clip_state_intervals(ly->clip) * sizeof *ly->intervals, true);
    }
}

static bool kernel_due(const oroya_mixer *m) {
    return m->rig && m->kernel_mode && !m->destroy_pending && !m->batch_refused;
}

/* check_update for a batch: from the mixer's first line alone while its bounds are valid
 * (chk_rate, chk_time). With every scheduled action's rate r <= chk_rate and |time| <=
 * chk_time, a finite |dt x time scale| x chk_rate and chk_time + that bound each action's
 * step and |time| + step (rounding is monotonic), so check_update would pass too; in every
 * other case check_update decides. */
static oroya_result check_batch_one(oroya_mixer *m, double dt) {
    if (!m || !m->chk_valid || m->in_callback || !valid_dt(dt))
        return check_update(m, dt);
    const double scaled = dt * m->time_scale;
    const double step = fabs(scaled) * m->chk_rate, x = m->chk_time + step;
    if (isfinite(scaled) && isfinite(m->time + scaled) && x <= DBL_MAX / 4 &&
        x * m->chk_inv_d <= DBL_MAX / 4)
        return OROYA_OK;
    return check_update(m, dt);
}

typedef struct batch_ctx {
    oroya_mixer *const *mixers;
} batch_ctx;

static void batch_range(void *ctx, uint32_t begin, uint32_t end) {
    const batch_ctx *b = ctx;
    /* One kernel is a few microseconds: one mixer ahead per level is enough. */
    for (uint32_t i = begin; i < end && i < begin + 3; i++)
        prefetch_mixer(b->mixers[i]);
    for (uint32_t i = begin; i < end; i++) {
        if (i + 3 < end)
            prefetch_mixer(b->mixers[i + 3]);
        if (i + 2 < end && kernel_due(b->mixers[i + 2]))
            prefetch_kernel_lists(b->mixers[i + 2]);
        if (i + 1 < end && kernel_due(b->mixers[i + 1]))
            prefetch_kernel_layers(b->mixers[i + 1]);
        if (kernel_due(b->mixers[i]))
            kernel_run(b->mixers[i]);
    }
}

/* What oroya_mixer_update would refuse of mixers[i] (err, when not NULL, names it). `late`:
 * checked again after an earlier mixer's event callback ran. */
static oroya_result batch_check(oroya_mixer *const *mixers, uint32_t i, double dt, bool late,
                                oroya_error *err) {
    const char *when = late ? " (after an event callback earlier in the batch changed it: it "
                              "was not updated, the other mixers were)"
                            : "";
    oroya_result r = check_batch_one(mixers[i], dt);
    if (r != OROYA_OK)
        return oroya__fail(err, r,
                           "mixers[%u]: NULL, or dt %g is not finite and >= 0 or overflows "
                           "its time%s",
                           i, dt, when);
    const uint32_t k = rig_hierarchy_broken(mixers[i]);
    if (k != NO_INDEX) {
        const oroya_rig *rig = mixers[i]->rig;
        const char *name =
            rig->skeleton->names && rig->skeleton->names[k][0] ? rig->skeleton->names[k] : "";
        return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                           "mixers[%u]: rig \"%s\", joint %u (\"%s\"): its node was removed "
                           "or re-parented in the scene since the rig was built; build a new "
                           "rig for the new hierarchy%s",
                           i, rig->name, k, name, when);
    }
    return OROYA_OK;
}

oroya_result oroya_mixer_update_batch(oroya_mixer *const *mixers, uint32_t count, double dt,
                                      const oroya_scheduler *scheduler, oroya_error *err) {
    if (count && !mixers)
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_mixer_update_batch: mixers is NULL");
    const uint64_t mark = oroya__batch_serial();
    for (uint32_t i = 0; i < count; i++) {
        if (i + 8 < count && mixers[i + 8])
            __builtin_prefetch(mixers[i + 8], 0);
        oroya_result r = batch_check(mixers, i, dt, false, err);
        if (r != OROYA_OK)
            return r;
        /* A mixer given twice would be updated twice (its kernel on two threads at once with
         * a scheduler, and destroyed twice when its callback destroys it). */
        if (mixers[i]->batch_mark == mark)
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "mixers[%u]: the mixer of mixers[%u] again (each mixer may "
                               "appear once in a batch); nothing was updated",
                               i, mixers[i]->batch_index);
        mixers[i]->batch_mark = mark, mixers[i]->batch_index = i;
    }
    /* An event callback may change a mixer later in the batch (its time scale, an action):
     * when one ran, each later mixer is checked again just before its update, and one now
     * refused is left as it is (as oroya_mixer_update would leave it) while the others go
     * on; the batch then returns the first such refusal. */
    const uint64_t runs = callback_runs;
    oroya_result late = OROYA_OK;
    if (!scheduler || !scheduler->parallel_for) {
        /* One thread: each mixer's whole update (action logic and events, kernel, scene
         * hand-over) in one go while its state is in cache, mixer after mixer in order, as
         * oroya_mixer_update would do them. Callbacks run in the same order as with a
         * scheduler; one of mixer i sees mixers before i already posed (with a scheduler no
         * mixer is posed yet). A mixer destroyed by its callback is freed at the end. */
        bool destroyed = false;
        for (uint32_t i = 0; i < count; i++) {
            prefetch_ahead(mixers, i, count, PASS_ALL);
            oroya_result r;
            if (callback_runs != runs &&
                (r = batch_check(mixers, i, dt, true, late ? NULL : err)) != OROYA_OK) {
                late = late ? late : r;
                continue;
            }
            if (mixer_update_actions(mixers[i], dt, false)) {
                destroyed = true;
                continue;
            }
            mixer_update_pose(mixers[i]);
        }
        for (uint32_t i = 0; destroyed && i < count; i++)
            if (mixers[i]->destroy_pending)
                oroya_mixer_destroy(mixers[i]);
        return late;
    }
    /* Action logic and events on this thread, in order; the kernels on the scheduler; the
     * scene hand-over on this thread again. */
    for (uint32_t i = 0; i < count; i++) {
        prefetch_ahead(mixers, i, count, PASS_LOGIC);
        oroya_result r;
        if (callback_runs != runs &&
            (r = batch_check(mixers, i, dt, true, late ? NULL : err)) != OROYA_OK) {
            late = late ? late : r;
            mixers[i]->batch_refused = true;
            continue;
        }
        mixer_update_actions(mixers[i], dt, false);
    }
    batch_ctx ctx = {mixers};
    if (scheduler && scheduler->parallel_for)
        scheduler->parallel_for(scheduler->user, count, batch_range, &ctx);
    else
        batch_range(&ctx, 0, count);
    for (uint32_t i = 0; i < count; i++) {
        if (i + 8 < count)
            prefetch_mixer(mixers[i + 8]);
        if (i + 4 < count && !mixers[i + 4]->destroy_pending)
            oroya__scene_prefetch(mixers[i + 4]->scene);
        oroya_mixer *m = mixers[i];
        if (m->destroy_pending) {
            /* Destroyed by its event callback during the batch. */
            oroya_mixer_destroy(m);
            continue;
        }
        if (m->batch_refused) {
            m->batch_refused = false;
            continue;
        }
        if (!m->rig)
            continue;
        if (m->kernel_mode) {
            m->kernel_pending = true;
            oroya__scene_mark_pending(m->scene);
        } else {
            property_bones(m);
        }
    }
    return late;
}

const oroya_mat4 *oroya_mixer_bone_matrices(const oroya_mixer *m, uint32_t *count) {
    if (count)
        *count = m && m->rig ? m->kpalette : 0;
    return m && m->rig ? m->kbones : NULL;
}

uint32_t oroya_mixer_non_finite_count(const oroya_mixer *m, oroya_node *first) {
    const bool any = m && m->rig && m->guard.count;
    if (first)
        *first = any ? oroya_rig_kernel_node(m->rig, m->guard.first) : (oroya_node){0};
    return any ? m->guard.count : 0;
}

const oroya_mat4 *oroya_mixer_model_matrices(const oroya_mixer *m, uint32_t *count) {
    if (count)
        *count = m && m->rig ? m->kjoints : 0;
    return m && m->rig ? m->kmodels : NULL;
}

const oroya_rig *oroya_mixer_rig(const oroya_mixer *m) { return m ? m->rig : NULL; }

bool oroya_mixer_kernel_active(const oroya_mixer *m) { return m && m->rig && m->kernel_mode; }

void oroya__mixer_set_reference(oroya_mixer *m, bool reference) {
    if (m)
        m->reference = reference;
}

static oroya_result record(oroya_mixer *m, oroya_result r, const char *fmt, ...) {
    if (m) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->last_error, sizeof m->last_error, fmt, ap);
        va_end(ap);
    }
    return r;
}

const char *oroya_mixer_last_error(const oroya_mixer *m) { return m ? m->last_error : ""; }

oroya_result oroya_mixer_set_time(oroya_mixer *m, double time) {
    oroya_result r = check_step(m, time, true); /* before anything changes */
    if (r != OROYA_OK)
        return r;
    const uint32_t broken = rig_hierarchy_broken(m); /* update's other refusal, also before */
    if (broken != NO_INDEX)
        return refuse_hierarchy(m, "oroya_mixer_set_time", broken);
    m->time = 0;
    for (uint32_t i = 0; i < m->action_count; i++)
        m->actions[i]->time = 0;
    m->jumping = true;
    bool destroyed;
    r = mixer_update_one(m, time, &destroyed);
    if (!destroyed)
        m->jumping = false;
    return r;
}

double oroya_mixer_time(const oroya_mixer *m) { return m ? m->time : 0; }
double oroya_mixer_time_scale(const oroya_mixer *m) { return m ? m->time_scale : 0; }

/* The setters of plain times and scales: a non-finite value is refused and changes nothing. */
static oroya_result store_finite(oroya_mixer *m, const char *call, const char *arg, double *field,
                                 double value) {
    if (!isfinite(value))
        return refuse(m, "%s: %s %g: must be a finite number", call, arg, value);
    *field = value;
    chk_dirty(m);
    return OROYA_OK;
}

oroya_result oroya_mixer_set_time_scale(oroya_mixer *m, double time_scale) {
    return m ? store_finite(m, "oroya_mixer_set_time_scale", "time_scale", &m->time_scale,
                            time_scale)
             : OROYA_ERR_INVALID_ARGUMENT;
}

void oroya_mixer_stop_all(oroya_mixer *m) {
    if (!m)
        return;
    for (uint32_t i = m->active_action_count; i-- > 0;)
        oroya_action_stop(m->actions[i]);
}

/* Deactivates, removes from the table (the last action takes its slot) and frees. */
static void uncache(oroya_mixer *m, oroya_action *a) {
    deactivate_action(a);
    /* From an event callback during an update: the action's layer must not outlive it. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m->klayer_count; i++)
        if (!a->pose_cursors || m->klayers[i].cursors != a->pose_cursors)
            m->klayers[kept++] = m->klayers[i];
    m->klayer_count = kept;
    SWAP_SLOT(m->actions, a, --m->action_count); /* the last action takes its slot */
    release_bindings(m, a, a->track_count);
    if (a->fading)
        m->control_count--;
    if (a->warping)
        m->control_count--;
    free_action(m, a);
}

oroya_result oroya_mixer_uncache_clip(oroya_mixer *m, const oroya_clip *clip) {
    if (!m || !clip)
        return refuse(m, "oroya_mixer_uncache_clip: clip is NULL");
    if (m->in_callback)
        return OROYA_ERR_BUSY; /* the update may still be using the actions */
    for (uint32_t i = m->action_count; i-- > 0;) {
        if (i < m->action_count && m->actions[i]->clip == clip)
            uncache(m, m->actions[i]);
    }
    return OROYA_OK;
}

oroya_result oroya_mixer_uncache_action(oroya_mixer *m, oroya_action *a) {
    if (!m || !a || a->mixer != m)
        return refuse(m, "oroya_mixer_uncache_action: %s",
                      !a ? "action is NULL" : "action belongs to another mixer");
    if (m->in_callback)
        return OROYA_ERR_BUSY;
    uncache(m, a);
    return OROYA_OK;
}

const oroya_event *oroya_mixer_events(const oroya_mixer *m, uint32_t *count, uint32_t *dropped) {
    if (count)
        *count = m ? m->event_count : 0;
    if (dropped)
        *dropped = m ? m->events_dropped : 0;
    return m ? m->events : NULL;
}

void oroya_mixer_set_event_callback(oroya_mixer *m, oroya_event_fn fn, void *user) {
    if (!m)
        return;
    m->on_event = fn;
    m->user = user;
}

uint32_t oroya_mixer_active_action_count(const oroya_mixer *m) {
    return m ? m->active_action_count : 0;
}

oroya_action *oroya_mixer_active_action(const oroya_mixer *m, uint32_t i) {
    return m && i < m->active_action_count ? m->actions[i] : NULL;
}

oroya_mixer_stats oroya_mixer_get_stats(const oroya_mixer *m) {
    if (!m)
        return (oroya_mixer_stats){0};
    return (oroya_mixer_stats){.actions = m->active_action_count,
                               .actions_total = m->action_count,
                               .bindings = m->active_binding_count,
                               .bindings_total = m->binding_count,
                               .control_interpolants = m->control_count};
}

/* ---- action API ------------------------------------------------------------------------------ */

void oroya_action_play(oroya_action *a) {
    if (a)
        activate_action(a);
}

void oroya_action_reset(oroya_action *a) {
    if (!a)
        return;
    a->paused = false;
    a->enabled = true;
    a->time = 0;
    /* Replayed from its start: the next moving update covers time 0 (its markers there), as
     * after play, also when the action is still scheduled (reset + play of a finished one). */
    a->marker_start = true;
    chk_dirty(a->mixer);
    a->loop_count = -1;
    a->has_start_time = false;
    oroya_action_stop_fading(a);
    oroya_action_stop_warping(a);
}

void oroya_action_stop(oroya_action *a) {
    if (!a)
        return;
    deactivate_action(a);
    oroya_action_reset(a);
}

bool oroya_action_is_running(const oroya_action *a) {
    return a && a->enabled && !a->paused && a->time_scale != 0 && !a->has_start_time &&
           is_active_action(a);
}

bool oroya_action_is_scheduled(const oroya_action *a) { return a && is_active_action(a); }

const oroya_clip *oroya_action_clip(const oroya_action *a) { return a ? a->clip : NULL; }
oroya_mixer *oroya_action_mixer(const oroya_action *a) { return a ? a->mixer : NULL; }

double oroya_action_time(const oroya_action *a) { return a ? a->time : 0; }

oroya_result oroya_action_set_time(oroya_action *a, double time) {
    if (a && isfinite(time) && !action_time_ok(a, fabs(time)))
        return refuse(a->mixer,
                      "oroya_action_set_time: time %g: too large for the loop arithmetic on a "
                      "%g s clip (|time| / duration and |time| at most DBL_MAX / 4)",
                      time, a->duration);
    return a ? store_finite(a->mixer, "oroya_action_set_time", "time", &a->time, time)
             : OROYA_ERR_INVALID_ARGUMENT;
}

double oroya_action_time_scale(const oroya_action *a) { return a ? a->time_scale : 0; }

oroya_result oroya_action_set_time_scale(oroya_action *a, double time_scale) {
    return a ? store_finite(a->mixer, "oroya_action_set_time_scale", "time_scale", &a->time_scale,
                            time_scale)
             : OROYA_ERR_INVALID_ARGUMENT;
}

double oroya_action_effective_time_scale(const oroya_action *a) {
    return a ? a->effective_time_scale : 0;
}

oroya_result oroya_action_set_effective_time_scale(oroya_action *a, double time_scale) {
    oroya_result r = a ? store_finite(a->mixer, "oroya_action_set_effective_time_scale",
                                      "time_scale", &a->time_scale, time_scale)
                       : OROYA_ERR_INVALID_ARGUMENT;
    if (r == OROYA_OK) {
        a->effective_time_scale = a->paused ? 0 : time_scale;
        oroya_action_stop_warping(a);
    }
    return r;
}

oroya_result oroya_action_set_duration(oroya_action *a, double duration) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!isfinite(duration) || duration == 0)
        return refuse(a->mixer,
                      "oroya_action_set_duration: duration %g: must be a finite number, not 0",
                      duration);
    const double ts = a->duration / duration;
    if (!isfinite(ts))
        return refuse(a->mixer,
                      "oroya_action_set_duration: duration %g: the time scale it gives, %g / %g, "
                      "is not finite",
                      duration, a->duration, duration);
    a->time_scale = ts;
    chk_dirty(a->mixer);
    oroya_action_stop_warping(a);
    return OROYA_OK;
}

oroya_result oroya_action_sync_with(oroya_action *a, const oroya_action *other) {
    if (!a || !other)
        return refuse(a ? a->mixer : NULL, "oroya_action_sync_with: other is NULL");
    if (!action_time_ok(a, fabs(other->time)))
        return refuse(a->mixer,
                      "oroya_action_sync_with: other's time %g is too large for the loop "
                      "arithmetic on this action's %g s clip",
                      other->time, a->duration);
    a->time = other->time;
    a->time_scale = other->time_scale;
    chk_dirty(a->mixer);
    oroya_action_stop_warping(a);
    return OROYA_OK;
}

static oroya_result action_warp(oroya_action *a, const char *call, double start_time_scale,
                                double end_time_scale, double duration) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!isfinite(start_time_scale))
        return refuse(a->mixer, "%s: start_time_scale %g: must be a finite number", call,
                      start_time_scale);
    if (!isfinite(end_time_scale))
        return refuse(a->mixer, "%s: end_time_scale %g: must be a finite number", call,
                      end_time_scale);
    if (!isfinite(duration) || duration < 0)
        return refuse(a->mixer, "%s: duration %g: must be a finite number >= 0", call, duration);
    if (a->time_scale == 0)
        return refuse(a->mixer,
                      "%s: the action's time_scale is 0 (a warp scales it: the ratio is undefined)",
                      call);
    /* The ramp is stored in float, as three does: ratios past the float range would become
     * inf, and the interpolated time scale NaN (warp(1e300, -1e300, d)). */
    const double r0 = start_time_scale / a->time_scale, r1 = end_time_scale / a->time_scale;
    if (!(fabs(r0) <= FLT_MAX) || !(fabs(r1) <= FLT_MAX))
        return refuse(a->mixer,
                      "%s: start_time_scale %g, end_time_scale %g: over the action's time_scale "
                      "%g, beyond the float range",
                      call, start_time_scale, end_time_scale, a->time_scale);
    schedule_control(a->mixer, &a->warping, a->warp_times, a->warp_values, duration, (float)r0,
                     (float)r1);
    chk_dirty(a->mixer); /* the warp's ends bound the step (check_step) */
    return OROYA_OK;
}

oroya_result oroya_action_warp(oroya_action *a, double start_time_scale, double end_time_scale,
                               double duration) {
    return action_warp(a, "oroya_action_warp", start_time_scale, end_time_scale, duration);
}

oroya_result oroya_action_halt(oroya_action *a, double duration) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    return action_warp(a, "oroya_action_halt", a->effective_time_scale, 0, duration);
}

bool oroya_action_is_warping(const oroya_action *a) { return a && a->warping; }
bool oroya_action_paused(const oroya_action *a) { return a && a->paused; }

void oroya_action_set_paused(oroya_action *a, bool paused) {
    if (a)
        a->paused = paused;
}

oroya_result oroya_action_start_at(oroya_action *a, double mixer_time) {
    oroya_result r = a ? store_finite(a->mixer, "oroya_action_start_at", "mixer_time",
                                      &a->start_time, mixer_time)
                       : OROYA_ERR_INVALID_ARGUMENT;
    if (r == OROYA_OK)
        a->has_start_time = true;
    return r;
}

oroya_result oroya_action_set_loop(oroya_action *a, oroya_loop_mode mode, double repetitions) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (mode != OROYA_LOOP_ONCE && mode != OROYA_LOOP_REPEAT && mode != OROYA_LOOP_PINGPONG)
        return refuse(a->mixer, "oroya_action_set_loop: mode %d: not a loop mode", (int)mode);
    if (isnan(repetitions) || repetitions < 0)
        return refuse(a->mixer,
                      "oroya_action_set_loop: repetitions %g: must be a number >= 0 (INFINITY "
                      "for no end)",
                      repetitions);
    a->loop = mode;
    a->repetitions = repetitions;
    return OROYA_OK;
}

oroya_loop_mode oroya_action_loop(const oroya_action *a) { return a ? a->loop : OROYA_LOOP_REPEAT; }
double oroya_action_repetitions(const oroya_action *a) { return a ? a->repetitions : 0; }
int64_t oroya_action_loop_count(const oroya_action *a) { return a ? a->loop_count : -1; }

void oroya_action_set_clamp_when_finished(oroya_action *a, bool clamp) {
    if (a)
        a->clamp_when_finished = clamp;
}

bool oroya_action_clamp_when_finished(const oroya_action *a) { return a && a->clamp_when_finished; }

void oroya_action_set_zero_slope(oroya_action *a, bool at_start, bool at_end) {
    if (!a)
        return;
    a->zero_slope_at_start = at_start;
    a->zero_slope_at_end = at_end;
}

bool oroya_action_zero_slope_at_start(const oroya_action *a) { return a && a->zero_slope_at_start; }
bool oroya_action_zero_slope_at_end(const oroya_action *a) { return a && a->zero_slope_at_end; }

double oroya_action_weight(const oroya_action *a) { return a ? a->weight : 0; }

/* Finite and within OROYA_MAX_WEIGHT: an additive action of weight 1e300 would otherwise
 * write inf into the scene. */
static bool valid_weight(double weight) { return fabs(weight) <= OROYA_MAX_WEIGHT; }
#define WEIGHT_RULE "must be a finite number within +-%g (OROYA_MAX_WEIGHT)"

oroya_result oroya_action_set_weight(oroya_action *a, double weight) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!valid_weight(weight))
        return refuse(a->mixer, "oroya_action_set_weight: weight %g: " WEIGHT_RULE, weight,
                      (double)OROYA_MAX_WEIGHT);
    a->weight = weight;
    return OROYA_OK;
}

bool oroya_action_enabled(const oroya_action *a) { return a && a->enabled; }

void oroya_action_set_enabled(oroya_action *a, bool enabled) {
    if (a)
        a->enabled = enabled;
}

double oroya_action_effective_weight(const oroya_action *a) { return a ? a->effective_weight : 0; }

oroya_result oroya_action_set_effective_weight(oroya_action *a, double weight) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!valid_weight(weight))
        return refuse(a->mixer, "oroya_action_set_effective_weight: weight %g: " WEIGHT_RULE,
                      weight, (double)OROYA_MAX_WEIGHT);
    a->weight = weight;
    a->effective_weight = a->enabled ? weight : 0;
    oroya_action_stop_fading(a);
    return OROYA_OK;
}

static oroya_result fade(oroya_action *a, const char *call, double duration, float from, float to) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!isfinite(duration) || duration < 0)
        return refuse(a->mixer, "%s: duration %g: must be a finite number >= 0", call, duration);
    schedule_control(a->mixer, &a->fading, a->fade_times, a->fade_values, duration, from, to);
    return OROYA_OK;
}

oroya_result oroya_action_fade_in(oroya_action *a, double duration) {
    return fade(a, "oroya_action_fade_in", duration, 0, 1);
}
oroya_result oroya_action_fade_out(oroya_action *a, double duration) {
    return fade(a, "oroya_action_fade_out", duration, 1, 0);
}

bool oroya_action_is_fading(const oroya_action *a) { return a && a->fading; }

/* The checks of cross_fade_from(in, out) and cross_fade_to(out, in), named as the call's own
 * arguments (in_name fades in, out_name fades out). A refusal is recorded on both mixers. */
static oroya_result cross_fade_check(const char *call, const oroya_action *in,
                                     const oroya_action *out, const char *in_name,
                                     const char *out_name, double duration, bool warp) {
    oroya_mixer *m = in ? in->mixer : out ? out->mixer : NULL;
    if (!in || !out)
        return refuse(m, "%s: %s is NULL", call, !in ? in_name : out_name);
    if (out->mixer != in->mixer) {
        refuse(out->mixer, "%s: %s and %s belong to different mixers", call, in_name, out_name);
        return refuse(in->mixer, "%s: %s and %s belong to different mixers", call, in_name,
                      out_name);
    }
    if (!isfinite(duration) || duration < 0)
        return refuse(m, "%s: duration %g: must be a finite number >= 0", call, duration);
    if (!warp)
        return OROYA_OK;
    for (int k = 0; k < 2; k++) {
        const oroya_action *x = k ? out : in;
        const char *name = k ? out_name : in_name;
        if (x->time_scale == 0)
            return refuse(m, "%s: warp: %s's time_scale is 0 (the warp scales it)", call, name);
        if (x->duration <= 0)
            return refuse(m, "%s: warp: %s's clip duration is %g (the warp divides by it)", call,
                          name, x->duration);
    }
    return OROYA_OK;
}

static oroya_result cross_fade(oroya_action *a, oroya_action *from, double duration, bool warp) {
    oroya_action_fade_out(from, duration);
    oroya_action_fade_in(a, duration);
    if (warp) {
        double fade_in_duration = a->duration, fade_out_duration = from->duration;
        double start_end_ratio = fade_out_duration / fade_in_duration;
        double end_start_ratio = fade_in_duration / fade_out_duration;
        from->has_restore_time_scale = true;
        from->restore_time_scale = from->time_scale;
        a->has_restore_time_scale = true;
        a->restore_time_scale = a->time_scale;
        oroya_action_warp(from, 1.0, start_end_ratio, duration);
        oroya_action_warp(a, end_start_ratio, 1.0, duration);
    }
    return OROYA_OK;
}

oroya_result oroya_action_cross_fade_from(oroya_action *a, oroya_action *from, double duration,
                                          bool warp) {
    oroya_result r =
        cross_fade_check("oroya_action_cross_fade_from", a, from, "action", "from", duration, warp);
    return r == OROYA_OK ? cross_fade(a, from, duration, warp) : r;
}

oroya_result oroya_action_cross_fade_to(oroya_action *a, oroya_action *to, double duration,
                                        bool warp) {
    oroya_result r =
        cross_fade_check("oroya_action_cross_fade_to", to, a, "to", "action", duration, warp);
    return r == OROYA_OK ? cross_fade(to, a, duration, warp) : r;
}

oroya_blend_mode oroya_action_blend_mode(const oroya_action *a) {
    return a ? a->blend_mode : OROYA_BLEND_NORMAL;
}

void oroya_action_set_blend_mode(oroya_action *a, oroya_blend_mode mode) {
    if (a && (mode == OROYA_BLEND_NORMAL || mode == OROYA_BLEND_ADDITIVE))
        a->blend_mode = mode;
}

oroya_result oroya_action_set_rotation_blend(oroya_action *a, oroya_rotation_blend blend) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if ((unsigned)blend > (unsigned)OROYA_ROTATION_BLEND_STERP)
        return refuse(a->mixer, "oroya_action_set_rotation_blend: blend %d: not a rotation blend",
                      (int)blend);
    a->rotation_blend = blend;
    return OROYA_OK;
}

oroya_rotation_blend oroya_action_rotation_blend(const oroya_action *a) {
    return a ? a->rotation_blend : OROYA_ROTATION_BLEND_DEFAULT;
}

/* ---- rotation blend, twist axes, joint limits ------------------------------------------------ */

oroya_result oroya_mixer_set_rotation_blend(oroya_mixer *m, oroya_rotation_blend blend) {
    if (!m || (unsigned)blend > (unsigned)OROYA_ROTATION_BLEND_STERP)
        return refuse(m, "oroya_mixer_set_rotation_blend: blend %d: not a rotation blend",
                      (int)blend);
    m->rotation_blend = blend == OROYA_ROTATION_BLEND_STERP ? OROYA_ROTATION_BLEND_STERP
                                                            : OROYA_ROTATION_BLEND_SLERP;
    return OROYA_OK;
}

oroya_rotation_blend oroya_mixer_rotation_blend(const oroya_mixer *m) {
    return m ? m->rotation_blend : OROYA_ROTATION_BLEND_SLERP;
}

/* Makes room for one more element in a table that grows by doubling (outside update only). */
static bool reserve(oroya_mixer *m, void **items, uint32_t count, uint32_t *capacity, size_t size,
                    size_t align) {
    if (count < *capacity)
        return true;
    uint32_t grown = *capacity ? *capacity * 2 : 8;
    if (grown <= *capacity)
        return false;
    void *p = oroya__calloc(&m->allocator, grown, size, align);
    if (!p)
        return false;
    if (count)
        memcpy(p, *items, (size_t)count * size);
    oroya__free(&m->allocator, *items);
    *items = p;
    *capacity = grown;
    return true;
}

static void refresh_twist_axes_of(oroya_mixer *m, oroya_node node) {
    const uint32_t j = sceneless(m) ? joint_of_node(m, node) : NO_INDEX;
    for (uint32_t i = 0; i < m->binding_count; i++)
        if (m->bindings[i]->node.id == node.id || (j != NO_INDEX && m->bindings[i]->joint == j))
            set_binding_twist_axis(m, m->bindings[i]);
}

oroya_result oroya_mixer_set_twist_axis(oroya_mixer *m, oroya_node node, const oroya_vec3 *axis) {
    if (!m || !mixer_has_node(m, node))
        return refuse(m, "oroya_mixer_set_twist_axis: node %u: not a node of the mixer's scene",
                      node.id);
    if (axis && (!isfinite(axis->x) || !isfinite(axis->y) || !isfinite(axis->z)))
        return refuse(m, "oroya_mixer_set_twist_axis: node %u: axis (%g, %g, %g) is not finite",
                      node.id, (double)axis->x, (double)axis->y, (double)axis->z);
    uint32_t at = NO_INDEX;
    for (uint32_t i = 0; i < m->override_count; i++)
        if (m->overrides[i].node.id == node.id)
            at = i;
    if (!axis) {
        if (at != NO_INDEX)
            m->overrides[at] = m->overrides[--m->override_count];
    } else {
        if (at == NO_INDEX) {
            void *items = m->overrides;
            if (!reserve(m, &items, m->override_count, &m->override_capacity,
                         sizeof(twist_override), _Alignof(twist_override)))
                return OROYA_ERR_OUT_OF_MEMORY;
            m->overrides = items;
            at = m->override_count++;
        }
        m->overrides[at].node = node;
        m->overrides[at].axis = unit_or_zero(*axis);
    }
    refresh_twist_axes_of(m, node);
    return OROYA_OK;
}

oroya_result oroya_mixer_get_twist_axis(const oroya_mixer *m, oroya_node node, oroya_vec3 *out) {
    if (!m || !out || !mixer_has_node(m, node))
        return OROYA_ERR_INVALID_ARGUMENT;
    *out = resolve_twist_axis(m, node);
    return OROYA_OK;
}

oroya_result oroya_mixer_set_joint_limit(oroya_mixer *m, oroya_node node,
                                         const oroya_joint_limit *limit, oroya_error *err) {
    if (!m)
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_mixer_set_joint_limit: mixer is NULL");
    if (!mixer_has_node(m, node))
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_mixer_set_joint_limit: node %u is not a node of the %s", node.id,
                           sceneless(m) ? "rig (the mixer has no scene)" : "scene");
    uint32_t at = NO_INDEX;
    for (uint32_t i = 0; i < m->limit_count; i++)
        if (m->limits[i].node.id == node.id)
            at = i;
    if (!limit) {
        if (at != NO_INDEX) {
            /* Shifted, not swapped: limits keep the order they were set in. */
            memmove(&m->limits[at], &m->limits[at + 1],
                    (size_t)(m->limit_count - at - 1) * sizeof *m->limits);
            m->limit_count--;
            refresh_klimited(m);
        }
        return OROYA_OK;
    }
    oroya_result r = oroya_joint_limit_validate(limit, 0, err);
    if (r != OROYA_OK) {
        if (err) {
            char message[sizeof err->message];
            memcpy(message, err->message, sizeof message);
            const char *name = sceneless(m) ? joint_name(m, joint_of_node(m, node))
                                            : oroya_scene_node_name(m->scene, node);
            oroya__fail(err, r, "joint limit of node \"%s\": %s", name ? name : "", message);
        }
        return r;
    }
    if (at == NO_INDEX) {
        void *items = m->limits;
        if (!reserve(m, &items, m->limit_count, &m->limit_capacity, sizeof(limit_entry),
                     _Alignof(limit_entry)))
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                               "oroya_mixer_set_joint_limit: cannot grow the limit table");
        m->limits = items;
        at = m->limit_count++;
    }
    m->limits[at].node = node;
    m->limits[at].dense = oroya_scene_node_index(m->scene, node);
    m->limits[at].limit = *limit;
    m->limits[at].joint = joint_of_node(m, node);
    refresh_klimited(m);
    return OROYA_OK;
}

oroya_result oroya_mixer_get_joint_limit(const oroya_mixer *m, oroya_node node,
                                         oroya_joint_limit *out) {
    if (!m || !out)
        return OROYA_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < m->limit_count; i++) {
        if (m->limits[i].node.id == node.id) {
            *out = m->limits[i].limit;
            return OROYA_OK;
        }
    }
    return OROYA_ERR_NOT_FOUND;
}

/* ---- joint masks ----------------------------------------------------------------------------- */

/* Marks `names` (and with descendants their subtrees, parents coming first in dense order)
 * in flags[]. */
static oroya_result mask_mark(oroya_mixer *m, const char *mask_name, const char *list,
                              const char *const *names, uint32_t count, bool descendants,
                              unsigned char *flags, uint32_t n, oroya_error *err) {
    for (uint32_t i = 0; i < count; i++) {
        oroya_node node;
        if (!names[i])
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "mask \"%s\": %s[%u] is NULL",
                               mask_name, list, i);
        if (oroya_scene_find_node(m->scene, names[i], &node) != OROYA_OK)
            return oroya__fail(err, OROYA_ERR_NOT_FOUND,
                               "mask \"%s\": joint \"%s\" is not in the scene", mask_name,
                               names[i]);
        uint32_t d = oroya_scene_node_index(m->scene, node);
        if (d < n)
            flags[d] = 1;
    }
    if (descendants) {
        const uint32_t *parents = oroya_scene_parent_indices(m->scene);
        for (uint32_t i = 0; i < n; i++)
            if (parents[i] < n && flags[parents[i]])
                flags[i] = 1;
    }
    return OROYA_OK;
}

/* mask_mark for a mixer with no scene: the rig's joint names, flags[] per kernel joint. */
static oroya_result mask_mark_joints(const oroya_mixer *m, const char *mask_name, const char *list,
                                     const char *const *names, uint32_t count, bool descendants,
                                     unsigned char *flags, oroya_error *err) {
    const oroya_pose_skeleton *skel = m->rig->skeleton;
    for (uint32_t i = 0; i < count; i++) {
        if (!names[i])
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "mask \"%s\": %s[%u] is NULL",
                               mask_name, list, i);
        uint32_t j = oroya_pose_skeleton_find(skel, names[i]);
        if (j >= m->kjoints)
            return oroya__fail(err, OROYA_ERR_NOT_FOUND,
                               "mask \"%s\": joint \"%s\" is not a joint of rig \"%s\" (the "
                               "mixer has no scene)",
                               mask_name, names[i], m->rig->name);
        flags[j] = 1;
    }
    if (descendants) /* parents come first in the kernel's order */
        for (uint32_t j = 0; j < m->kjoints; j++)
            if (skel->parents[j] < m->kjoints && flags[skel->parents[j]])
                flags[j] = 1;
    return OROYA_OK;
}

/* The weights of a mask on a mixer with no scene: kweights only. */
static oroya_result mask_fill_joints(oroya_mixer *m, oroya_mask *k, const oroya_mask_desc *desc,
                                     unsigned char *inc, unsigned char *exc, oroya_error *err) {
    oroya_result r = mask_mark_joints(m, k->name, "include", desc->include, desc->include_count,
                                      desc->descendants, inc, err);
    if (r == OROYA_OK)
        r = mask_mark_joints(m, k->name, "exclude", desc->exclude, desc->exclude_count,
                             desc->descendants, exc, err);
    for (uint32_t j = 0; r == OROYA_OK && j < m->kjoints; j++)
        k->kweights[j] = inc[j] && !exc[j] ? 1.0f : 0.0f;
    for (uint32_t i = 0; r == OROYA_OK && i < desc->weight_count; i++) {
        const oroya_mask_entry *w = &desc->weights[i];
        uint32_t j = w->joint ? oroya_pose_skeleton_find(m->rig->skeleton, w->joint) : 0;
        if (!w->joint)
            r = oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                            "mask \"%s\": weights[%u].joint is NULL", k->name, i);
        else if (j >= m->kjoints)
            r = oroya__fail(err, OROYA_ERR_NOT_FOUND,
                            "mask \"%s\": weights: joint \"%s\" is not a joint of rig \"%s\" "
                            "(the mixer has no scene)",
                            k->name, w->joint, m->rig->name);
        else if (!(w->weight >= 0 && w->weight <= 1))
            r = oroya__fail(err, OROYA_ERR_INVALID_DATA,
                            "mask \"%s\": joint \"%s\": weight %.17g is not in [0, 1]", k->name,
                            w->joint, w->weight);
        else
            k->kweights[j] = (float)w->weight;
    }
    return r;
}

oroya_result oroya_mask_create(oroya_mixer *m, const oroya_mask_desc *desc, oroya_mask **out,
                               oroya_error *err) {
    if (out)
        *out = NULL;
    if (!m || !desc || !out || (desc->include_count && !desc->include) ||
        (desc->exclude_count && !desc->exclude) || (desc->weight_count && !desc->weights))
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_mask_create: NULL argument");
    const char *name = desc->name ? desc->name : "";
    const uint32_t n = oroya_scene_node_count(m->scene);
    const size_t kcount = m->rig ? (size_t)m->kblocks * 4 : 0;
    /* include and exclude flags: per node, or without a scene per kernel joint */
    const size_t fcount = sceneless(m) ? kcount : n;
    size_t name_len = strlen(name) + 1;
    size_t size = sizeof(oroya_mask) + 64 + kcount * sizeof(float) + (size_t)n * sizeof(float) +
                  (size_t)n * sizeof(oroya_node) + 2 * fcount + name_len;
    unsigned char *mem = oroya__alloc(&m->allocator, size, 64);
    if (!mem)
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "mask \"%s\": cannot allocate %zu bytes",
                           name, size);
    memset(mem, 0, size);
    oroya_mask *k = (oroya_mask *)(void *)mem;
    size_t at = (sizeof(oroya_mask) + 63) & ~(size_t)63;
    k->kweights = kcount ? (float *)(void *)(mem + at) : NULL;
    at += kcount * sizeof(float);
    k->weights = (float *)(void *)(mem + at);
    at += (size_t)n * sizeof(float);
    k->nodes = (oroya_node *)(void *)(mem + at);
    at += (size_t)n * sizeof(oroya_node);
    unsigned char *inc = mem + at, *exc = inc + fcount;
    at += 2 * fcount;
    memcpy(mem + at, name, name_len);
    k->name = (const char *)(mem + at);
    k->mixer = m;
    k->node_count = n;
    if (sceneless(m)) {
        oroya_result r = mask_fill_joints(m, k, desc, inc, exc, err);
        if (r != OROYA_OK) {
            oroya__free(&m->allocator, mem);
            return r;
        }
        k->next = m->masks;
        m->masks = k;
        *out = k;
        return OROYA_OK;
    }
    oroya_result r = mask_mark(m, name, "include", desc->include, desc->include_count,
                               desc->descendants, inc, n, err);
    if (r == OROYA_OK)
        r = mask_mark(m, name, "exclude", desc->exclude, desc->exclude_count, desc->descendants,
                      exc, n, err);
    for (uint32_t i = 0; r == OROYA_OK && i < n; i++) {
        k->nodes[i] = oroya_scene_node_at(m->scene, i);
        k->weights[i] = inc[i] && !exc[i] ? 1.0f : 0.0f;
    }
    for (uint32_t i = 0; r == OROYA_OK && i < desc->weight_count; i++) {
        const oroya_mask_entry *w = &desc->weights[i];
        oroya_node node;
        if (!w->joint) {
            r = oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                            "mask \"%s\": weights[%u].joint is NULL", name, i);
        } else if (oroya_scene_find_node(m->scene, w->joint, &node) != OROYA_OK) {
            r = oroya__fail(err, OROYA_ERR_NOT_FOUND,
                            "mask \"%s\": weights: joint \"%s\" is not in the scene", name,
                            w->joint);
        } else if (!(w->weight >= 0 && w->weight <= 1)) {
            /* %.17g: 1.0000000001 is not "1" */
            r = oroya__fail(err, OROYA_ERR_INVALID_DATA,
                            "mask \"%s\": joint \"%s\": weight %.17g is not in [0, 1]", name,
                            w->joint, w->weight);
        } else {
            uint32_t d = oroya_scene_node_index(m->scene, node);
            if (d < n)
                k->weights[d] = (float)w->weight;
        }
    }
    if (r != OROYA_OK) {
        oroya__free(&m->allocator, mem);
        return r;
    }
    /* By the mixer's own node of each joint (the rig's handles on the rig's scene, names on
     * another: a rig's handle looked up in another scene would find another node). */
    for (uint32_t j = 0; j < m->kjoints && kcount; j++)
        k->kweights[j] = (float)oroya_mask_weight(k, kernel_joint_node(m, j));
    k->next = m->masks;
    m->masks = k;
    *out = k;
    return OROYA_OK;
}

oroya_result oroya_mixer_create_mask(oroya_mixer *m, const oroya_mask_desc *desc, oroya_mask **out,
                                     oroya_error *err) {
    return oroya_mask_create(m, desc, out, err);
}

double oroya_mask_weight(const oroya_mask *k, oroya_node node) {
    if (!k || !node.id)
        return 0;
    if (sceneless(k->mixer)) {
        uint32_t j = joint_of_node(k->mixer, node);
        return j < k->mixer->kjoints ? k->kweights[j] : 0;
    }
    const oroya_scene *scene = k->mixer->scene;
    uint32_t d = oroya_scene_node_index(scene, node);
    if (d < k->node_count && k->nodes[d].id == node.id)
        return k->weights[d];
    for (uint32_t i = 0; i < k->node_count; i++) /* the layout moved since */
        if (k->nodes[i].id == node.id)
            return k->weights[i];
    return 0;
}

const char *oroya_mask_name(const oroya_mask *k) { return k ? k->name : ""; }

oroya_result oroya_action_set_mask(oroya_action *a, const oroya_mask *k) {
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (k && k->mixer != a->mixer)
        return refuse(a->mixer, "oroya_action_set_mask: mask '%s' belongs to another mixer",
                      k->name);
    if (k && !a->mask_weights && a->track_count) {
        a->mask_weights = oroya__calloc(&a->mixer->allocator, a->track_count, sizeof(float), 16);
        if (!a->mask_weights)
            return OROYA_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t j = 0; k && j < a->track_count; j++) {
        const binding *b = a->bindings[j];
        /* A curve is no joint: a mask does not weight it (weight 1). */
        a->mask_weights[j] = b->property == OROYA_PROPERTY_CURVE ? 1.0f
                             : !sceneless(a->mixer) ? (float)oroya_mask_weight(k, b->node)
                             : b->joint != NO_INDEX ? k->kweights[b->joint]
                                                    : 0.0f;
    }
    a->mask = k;
    a->masked = k != NULL;
    return OROYA_OK;
}

const oroya_mask *oroya_action_mask(const oroya_action *a) { return a ? a->mask : NULL; }

/* ---- root motion API ------------------------------------------------------------------------ */

oroya_result oroya_mixer_set_root_motion(oroya_mixer *m, oroya_node root, oroya_root_extract mode,
                                         oroya_error *err) {
    if (!m || (unsigned)mode > (unsigned)OROYA_ROOT_FULL)
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_mixer_set_root_motion: %s",
                           m ? "unknown extract mode" : "mixer is NULL");
    oroya_transform home;
    if (mode != OROYA_ROOT_NONE && sceneless(m)) {
        /* No scene: the root is one of the rig's joints, its home the rig's rest pose. */
        uint32_t j = joint_of_node(m, root);
        if (j == NO_INDEX)
            return oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                               "root motion: the root node is not a joint of rig \"%s\" (the "
                               "mixer has no scene)",
                               m->rig->name);
        const oroya_soa_transform *rest = oroya_pose_skeleton_rest(m->rig->skeleton);
        const uint32_t b = j / 4, l = j % 4;
        home.translation = (oroya_vec3){rest[b].tx[l], rest[b].ty[l], rest[b].tz[l]};
        home.rotation = (oroya_quat){rest[b].qx[l], rest[b].qy[l], rest[b].qz[l], rest[b].qw[l]};
        home.scale = (oroya_vec3){rest[b].sx[l], rest[b].sy[l], rest[b].sz[l]};
    } else if (mode != OROYA_ROOT_NONE &&
               oroya_scene_get_transform(m->scene, root, &home) != OROYA_OK) {
        return oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                           "root motion: the root node is not in the scene");
    }
    /* The root's name, for its tracks in clips and to find it again if it is removed. */
    char *name = NULL;
    if (mode != OROYA_ROOT_NONE && !sceneless(m)) {
        const char *n = oroya_scene_node_name(m->scene, root);
        const size_t len = strlen(n ? n : "") + 1;
        name = oroya__alloc(&m->allocator, len, 1);
        if (!name)
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "root motion: out of memory");
        memcpy(name, n ? n : "", len);
    }
    oroya__free(&m->allocator, m->rm_name);
    m->rm_name = name;
    /* The old root's held components go back to what its blend gives at the next update,
     * even when that value does not change (a paused action), as on the kernel path. */
    if (m->rm_mode != OROYA_ROOT_NONE)
        m->rm_rewrite = m->rm_node;
    m->rm_mode = mode;
    m->rm_node = mode != OROYA_ROOT_NONE ? root : (oroya_node){0};
    if (mode != OROYA_ROOT_NONE)
        m->rm_home = home;
    m->rm_joint = mode != OROYA_ROOT_NONE && m->rig ? joint_of_node(m, root) : NO_INDEX;
    m->rm_delta = m->rm_total = m->rm_local = (oroya_root_motion){{0, 0, 0}, {0, 0, 0, 1}};
    for (uint32_t i = 0; i < m->action_count; i++)
        root_motion_tracks(m, m->actions[i]);
    return OROYA_OK;
}

oroya_root_motion oroya_mixer_root_delta(const oroya_mixer *m) {
    return m && m->rm_mode != OROYA_ROOT_NONE ? m->rm_delta
                                              : (oroya_root_motion){{0, 0, 0}, {0, 0, 0, 1}};
}

oroya_root_motion oroya_mixer_root_delta_local(const oroya_mixer *m) {
    return m && m->rm_mode != OROYA_ROOT_NONE ? m->rm_local
                                              : (oroya_root_motion){{0, 0, 0}, {0, 0, 0, 1}};
}

oroya_root_motion oroya_mixer_root_total(const oroya_mixer *m) {
    return m && m->rm_mode != OROYA_ROOT_NONE ? m->rm_total
                                              : (oroya_root_motion){{0, 0, 0}, {0, 0, 0, 1}};
}

/* ---- curves (an oroya extension) ---------------------------------------------------------- */

oroya_result oroya_mixer_find_curve(const oroya_mixer *m, const char *name, uint32_t *out) {
    if (out)
        *out = NO_INDEX;
    if (!m || !name || !out)
        return OROYA_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < m->curve_count; i++) {
        if (!strcmp(m->curves[i].name, name)) {
            *out = i;
            return OROYA_OK;
        }
    }
    return OROYA_ERR_NOT_FOUND;
}

oroya_result oroya_mixer_curve_index(oroya_mixer *m, const char *name, uint32_t *out) {
    oroya_result r = oroya_mixer_find_curve(m, name, out);
    if (r != OROYA_ERR_NOT_FOUND)
        return r;
    if (m->in_callback)
        return OROYA_ERR_BUSY;
    if (!reserve(m, (void **)&m->curves, m->curve_count, &m->curve_capacity, sizeof(curve_slot),
                 _Alignof(curve_slot)))
        return OROYA_ERR_OUT_OF_MEMORY;
    size_t len = strlen(name) + 1;
    char *copy = oroya__alloc(&m->allocator, len, 1);
    if (!copy)
        return OROYA_ERR_OUT_OF_MEMORY;
    memcpy(copy, name, len);
    m->curves[m->curve_count] = (curve_slot){copy, 0};
    *out = m->curve_count++;
    return OROYA_OK;
}

double oroya_mixer_curve_value(const oroya_mixer *m, uint32_t index) {
    return m && index < m->curve_count ? m->curves[index].value : 0;
}

uint32_t oroya_mixer_curve_count(const oroya_mixer *m) { return m ? m->curve_count : 0; }

const char *oroya_mixer_curve_name(const oroya_mixer *m, uint32_t index) {
    return m && index < m->curve_count ? m->curves[index].name : NULL;
}

/* ---- IK on the kernel path (oroya/ik.h) ---------------------------------------------------- */

oroya_result oroya_mixer_set_ik(oroya_mixer *m, const oroya_ik *iks, uint32_t count,
                                oroya_error *err) {
    if (!m || (count && !iks))
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_mixer_set_ik: mixer and iks are required");
    if (!m->rig)
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_mixer_set_ik: the mixer has no rig (oroya_mixer_desc.rig); "
                           "use oroya_ik_scene_apply");
    const oroya_pose_skeleton *skel = m->rig->skeleton;
    oroya_result r = oroya__ik_pose_validate(skel, m->klocals, m->kmodels, iks, count, err);
    if (r != OROYA_OK)
        return r;
    oroya__ik_plan *plan = NULL;
    if (oroya__ik_plan_create(skel, iks, count, &m->allocator, &plan) != OROYA_OK)
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                           "oroya_mixer_set_ik: no memory for the IKs' plan");
    /* Only the chain's joints: an aim's default chain is one joint, and joints past the
     * chain are not read (nor checked). */
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = 0; k < oroya__ik_chain_count(&iks[i]); k++)
            m->kik[iks[i].joints[k] / 4] |= lane_bit(iks[i].joints[k], 1);
    oroya__free(&m->allocator, m->ik_plan);
    m->iks = count ? iks : NULL;
    m->ik_count = count;
    m->ik_plan = plan;
    m->ik_report = (oroya__ik_report){0, UINT32_MAX};
    return OROYA_OK;
}

uint32_t oroya_mixer_ik_fallbacks(const oroya_mixer *m, uint32_t *first) {
    return oroya__ik_report_get(m ? &m->ik_report : NULL, m ? m->ik_count : 0, first);
}
