/* oroya/mixer.h - the animation mixer: actions, loops, weights, fades, warps, cross-fades
 * and additive blending, with the semantics of three.js 0.187 (AnimationMixer,
 * AnimationAction, PropertyMixer), checked frame by frame against three.js itself.
 *
 * What it does: a mixer drives the nodes of one oroya_scene. clip_action() gives the action
 * (a playing instance) of a clip; actions have their own time, time scale, weight, loop
 * mode, fades and warps. mixer_update(dt) advances every scheduled action, samples its
 * tracks and blends the results per node property (translation, rotation, scale, morph
 * weights) exactly as three's PropertyMixer does, then writes the scene.
 *
 * What it does not do: it does not own clips or the scene (both must outlive the mixer),
 * compute world matrices (call oroya_scene_update_world afterwards) or skin meshes.
 *
 * Ownership and lifetime: the mixer owns its actions; an oroya_action pointer stays valid
 * until the action is uncached (oroya_mixer_uncache_clip / _action) or the mixer is
 * destroyed. Clips are borrowed: do not destroy a clip while the mixer has an action on it.
 *
 * Cost: bindings (track -> node property) are resolved once, when an action is created:
 * target name -> scene node handle -> dense index. The dense index is re-resolved from the
 * handle only when oroya_scene_layout_version() changes (then a binding whose node is gone,
 * or was never found, looks its name up again). oroya_mixer_update does no string lookups
 * in steady state and never allocates. Actions and bindings live in fixed-capacity tables sized at
 * oroya_mixer_create (see oroya_mixer_desc); exceeding one is OROYA_ERR_LIMIT.
 *
 * Threading: a mixer and its scene belong to one thread at a time. Two mixers share nothing.
 *
 * Deviations from three.js 0.187 (three, see docs/mixer.md):
 *   1. a NaN, infinite or negative dt given to oroya_mixer_update (or a negative/non-finite
 *      time to oroya_mixer_set_time) is rejected with OROYA_ERR_INVALID_ARGUMENT and changes
 *      no state (a negative time scale is legal and plays backwards); so is a finite dt whose
 *      scaled step or accumulated time would overflow;
 *   2. ping-pong with clamp_when_finished shows the correct end pose on the frame it
 *      finishes (three shows the other end on that one frame);
 *   3. oroya_clip_make_additive on cubic-spline rotation tracks also transforms the
 *      tangents (conj(ref) * m); three leaves them untouched.
 * Where three.js produces NaN, oroya keeps a defined result instead: a zero-length clip in
 * LOOP_REPEAT or LOOP_PINGPONG holds its key pose with action time 0 (three divides by the
 * duration and gets NaN time); LOOP_ONCE finishes on the first update as in three.
 *
 * Extensions, all off by default so the three.js semantics above hold bit for bit: STERP
 * rotation blending (oroya_rotation_blend), per-node twist axes (default: the bone's long
 * axis), which also serve STERP tracks whose twist_axis is zero, and joint limits applied at
 * the end of each update (oroya_mixer_set_joint_limit). See docs/mixer.md, "Sterp and limits".
 *
 * Threading: a mixer with a rig writes the pose into its scene's joint nodes lazily, the first
 * time anything reads or writes the scene after an update; that first read of a const scene
 * is a write (oroya/scene.h, "Threading"). Before sharing the scene between threads, call
 * oroya_scene_update_world once on one thread (it writes the pose back and the world
 * matrices); the bone matrices (oroya_mixer_bone_matrices) are complete when the update
 * returns.
 *
 * Minimal example. Example (given: oroya_scene *scene, const oroya_clip *walk_clip):
 *   oroya_mixer *mixer;
 *   oroya_action *walk;
 *   if (oroya_mixer_create(scene, NULL, &mixer) != OROYA_OK) return;
 *   oroya_mixer_play(mixer, walk_clip, &walk);          // clip_action + play
 *   for (;;) {
 *       oroya_mixer_update(mixer, 1.0 / 60.0);          // seconds
 *       oroya_scene_update_world(scene);
 *       ...draw...
 *   }
 *   oroya_mixer_destroy(mixer);
 */
#ifndef OROYA_MIXER_H
#define OROYA_MIXER_H

#include "oroya/base.h"
#include "oroya/clip.h"
#include "oroya/pose.h"
#include "oroya/rotation.h"
#include "oroya/scene.h"
#include "oroya/track.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

/* Hard caps on oroya_mixer_desc's tables (the defaults are smaller). */
#define OROYA_MAX_ACTIONS 65536
#define OROYA_MAX_BINDINGS 65536
#define OROYA_MAX_EVENTS 65536
/* Largest |weight| an action takes (set_weight, set_effective_weight). Weights above 1 are
 * allowed (additive exaggeration); 1e300 would write inf into the scene. */
#define OROYA_MAX_WEIGHT 1e6
/* Defaults used when a desc field is 0. */
#define OROYA_MIXER_DEFAULT_MAX_ACTIONS 64
#define OROYA_MIXER_DEFAULT_MAX_BINDINGS 256
#define OROYA_MIXER_DEFAULT_MAX_EVENTS 64

typedef struct oroya_mixer oroya_mixer;
typedef struct oroya_action oroya_action;
typedef struct oroya_rig oroya_rig; /* oroya/rig.h */

/* three's LoopOnce / LoopRepeat / LoopPingPong. A new action loops with REPEAT. */
typedef enum oroya_loop_mode {
    OROYA_LOOP_ONCE = 0,
    OROYA_LOOP_REPEAT,
    OROYA_LOOP_PINGPONG
} oroya_loop_mode;

typedef enum oroya_event_type {
    OROYA_EVENT_FINISHED = 0, /* the last loop ended: `direction` is +1 or -1 */
    OROYA_EVENT_LOOP,         /* the action wrapped around: `loop_delta` loops, signed */
    OROYA_EVENT_MARKER        /* the action's clip time crossed `marker` (see docs/mixer.md) */
} oroya_event_type;

typedef struct oroya_event {
    oroya_event_type type;
    oroya_action *action;
    int32_t direction;          /* FINISHED: +1 forwards, -1 backwards; LOOP: 0 */
    int64_t loop_delta;         /* LOOP: floor(time / duration), signed; FINISHED: 0 */
    const oroya_marker *marker; /* MARKER: the clip's marker (its time and name); else NULL */
} oroya_event;

/* Markers: an update reports, as OROYA_EVENT_MARKER events, every clip marker whose time
 * the action's clip time crossed, once each, in playback order. Moving forward an update
 * covers the clip-time interval (previous, new], backward [new, previous); the first moving
 * update after play (or stop/reset and play; reset alone on a scheduled action too) also
 * covers its start time. A repeat wrap passes the clip's end and then its start (a marker at
 * the end and one at 0 both fire); a ping-pong turn touches the end once, and ping-pong
 * played backwards from round -1 shows that round mirrored (as three: raw time 0 shows the
 * end), its markers too. After a finish nothing fires. Within an update,
 * events come in the order they happened: the markers before the first wrap, the LOOP event,
 * the markers after it; FINISHED comes last. When one update spans more than
 * OROYA_MAX_MARKER_LOOPS loops, the markers of the loops past that are counted as dropped
 * (oroya_mixer_events) instead of dispatched. oroya_mixer_set_time (a jump) fires none.
 * An event's `marker` points into the clip's list: valid until oroya_clip_set_markers
 * replaces it (or the clip is destroyed). A callback that replaces the list of the clip
 * being reported ends that loop's reports (the rest of the old list is not reported); the
 * loops after it, in the same update and later ones, report the new list. */
#define OROYA_MAX_MARKER_LOOPS 4096

/* Called during oroya_mixer_update (and oroya_mixer_set_time), in dispatch order, for every
 * event. Like a three.js listener it runs in the middle of the update: it may read the
 * mixer and actions; starting, stopping, resetting or creating actions from it (play,
 * stop, stop_all, reset, clip_action, fades, warps, setters) takes effect as in three.js.
 * Calls that would free an action the update is still using, or start a second update, are
 * refused with OROYA_ERR_BUSY and change nothing: oroya_mixer_uncache_clip,
 * oroya_mixer_uncache_action, oroya_mixer_update, oroya_mixer_set_time; and so is creating
 * an action (clip_action, action_create) whose clip drives a curve the mixer does not know
 * yet (the curve table may not grow during the update). Make them after the update returns. oroya_mixer_destroy from the callback is deferred: the update stops
 * updating actions, frees the mixer and returns OROYA_OK (the mixer pointer is then gone). */
typedef void (*oroya_event_fn)(const oroya_event *event, void *user);

/* How normal (non-additive) actions blend rotations. SLERP is three.js's PropertyMixer
 * (slerpFlat), bit for bit. STERP replaces each of those slerps, including the one toward the
 * original pose when the weights add up to less than 1, with oroya_quat_sterp about the
 * node's twist axis (oroya_mixer_set_twist_axis; by default the bone's long axis). It is an
 * oroya option that three.js does not have. */
typedef enum oroya_rotation_blend {
    OROYA_ROTATION_BLEND_DEFAULT = 0, /* mixer: SLERP; action: whatever the mixer uses */
    OROYA_ROTATION_BLEND_SLERP,
    OROYA_ROTATION_BLEND_STERP
} oroya_rotation_blend;

typedef struct oroya_mixer_desc {
    uint32_t max_actions;    /* actions alive at once; 0 = 64; at most OROYA_MAX_ACTIONS */
    uint32_t max_bindings;   /* distinct (node, property) targets; 0 = 256; <= OROYA_MAX_BINDINGS */
    uint32_t max_events;     /* events kept per update for oroya_mixer_events; 0 = 64 */
    oroya_event_fn on_event; /* optional callback, NULL = none */
    void *user;              /* passed to on_event */
    oroya_allocator allocator;
    oroya_rotation_blend rotation_blend; /* DEFAULT = SLERP (three.js) */
    /* A rig (oroya/rig.h; must outlive the mixer): tracks on its joints are sampled and
     * blended by the pose kernel, the joint nodes get the result (written when the scene is
     * next read), and oroya_mixer_bone_matrices gives the skinning palette. Same results as
     * without a rig (three.js semantics, within 1e-5: the kernel computes in float). With a
     * rig, `scene` may be NULL: the mixer then only computes bone matrices (tracks bind to
     * the rig's joints by name; other tracks are sampled and dropped). See docs/mixer.md,
     * "The pose kernel path". NULL = no kernel. */
    const oroya_rig *rig;
} oroya_mixer_desc;

/* Optional settings of oroya_action_create. A zeroed desc behaves like
 * oroya_mixer_clip_action. */
typedef struct oroya_action_desc {
    bool has_blend_mode;         /* false: take the clip's blend mode (at creation) */
    oroya_blend_mode blend_mode; /* used when has_blend_mode */
    /* true: a second, independent action on the same clip (three's clipAction(clip.clone())):
     * never returned by later clip_action lookups, blends into the same bindings. */
    bool independent;
    /* > 0: the clip duration this action loops on, in seconds, as a double. three.js keeps a
     * clip's duration as a double while oroya_clip stores a float; pass the exact value to
     * match three.js on durations such as 1.2 that a float cannot hold. 0 = clip->duration. */
    double duration;
} oroya_action_desc;

typedef struct oroya_mixer_stats {
    uint32_t actions;              /* scheduled (active) actions */
    uint32_t actions_total;        /* actions known to the mixer */
    uint32_t bindings;             /* bindings in use by active actions */
    uint32_t bindings_total;       /* bindings known to the mixer */
    uint32_t control_interpolants; /* fades and warps in progress */
} oroya_mixer_stats;

/* ---- mixer ----------------------------------------------------------------------------- */

/* Creates a mixer on `scene` (borrowed; must outlive the mixer). desc may be NULL (defaults).
 * Allocates the fixed tables once. Errors: OROYA_ERR_INVALID_ARGUMENT (NULL out, NULL scene
 * without desc->rig, a desc cap above its hard maximum), OROYA_ERR_OUT_OF_MEMORY. */
oroya_result oroya_mixer_create(oroya_scene *scene, const oroya_mixer_desc *desc,
                                oroya_mixer **out);

/* Frees the mixer and all its actions. Does not touch the scene. NULL is ignored. */
void oroya_mixer_destroy(oroya_mixer *mixer);

/* The action of `clip` on this mixer, created on first use (three's clipAction): the same
 * action every time for the same clip and blend mode. Creating binds every track to its
 * node property by the track's target name; a name not in the scene gives a binding that
 * is sampled but not written until a node of that name appears. Allocates. Errors:
 * INVALID_ARGUMENT, LIMIT (action or binding table full), INVALID_DATA (a track whose
 * component count does not fit its property, or two weights tracks of different sizes on
 * one node), BUSY (from an event callback, for a clip driving a curve the mixer does not
 * know yet), OUT_OF_MEMORY. */
oroya_result oroya_mixer_clip_action(oroya_mixer *mixer, const oroya_clip *clip,
                                     oroya_action **out);

/* As oroya_mixer_clip_action with options (blend mode, independent copy, exact duration).
 * desc may be NULL. Lookup as in three: an existing action is returned when its clip and
 * blend mode match (never for independent actions). */
oroya_result oroya_action_create(oroya_mixer *mixer, const oroya_clip *clip,
                                 const oroya_action_desc *desc, oroya_action **out);
/* Deprecated: the old name of oroya_action_create. */
OROYA_DEPRECATED("use oroya_action_create")
oroya_result oroya_mixer_clip_action_ex(oroya_mixer *mixer, const oroya_clip *clip,
                                        const oroya_action_desc *desc, oroya_action **out);

/* The tutorial's one-liner: clip_action + play. `out` may be NULL. */
oroya_result oroya_mixer_play(oroya_mixer *mixer, const oroya_clip *clip, oroya_action **out);

/* Advances mixer time by dt * time_scale seconds, updates every scheduled action (time,
 * loops, fades, warps, events) and writes the blended values to the scene: three's
 * AnimationMixer.update. The event list (oroya_mixer_events) is cleared first. Never
 * allocates. Errors: OROYA_ERR_INVALID_ARGUMENT for a NULL mixer or a NaN, infinite or
 * negative dt (deviation 1: nothing changes then); OROYA_ERR_INVALID_DATA, changing nothing,
 * when the mixer has a rig built on this scene and one of the rig's joint nodes was removed or
 * re-parented since (a rig's hierarchy is fixed when it is built: build a new rig and mixer;
 * oroya_mixer_update_batch names the joint). */
oroya_result oroya_mixer_update(oroya_mixer *mixer, double dt);

/* three's setTime: mixer time and every action's time become 0, then update(time). Same
 * errors as oroya_mixer_update (checked before anything changes). */
oroya_result oroya_mixer_set_time(oroya_mixer *mixer, double time);

double oroya_mixer_time(const oroya_mixer *mixer);       /* seconds; 0 for NULL */
double oroya_mixer_time_scale(const oroya_mixer *mixer); /* 1 by default; 0 for NULL */
/* Any finite value (0 pauses everything, negative plays backwards). INVALID_ARGUMENT else. */
oroya_result oroya_mixer_set_time_scale(oroya_mixer *mixer, double time_scale);

/* The message of the last call on this mixer or one of its actions that was refused with
 * OROYA_ERR_INVALID_ARGUMENT: it names the call, the argument and why
 * ("oroya_action_cross_fade_to: duration -1: must be a finite number >= 0",
 * "oroya_mixer_update: dt nan: must be a finite number >= 0"). Every such refusal of a call
 * given this mixer or one of its actions writes it, so right after a call returned
 * INVALID_ARGUMENT it is that call's. Kept until the next refusal (a call that succeeds does
 * not clear it); "" when none was, and for NULL. A NULL action has no mixer to record on, and
 * the getters (const mixer, NULL out) do not record: those only return the code. The
 * INVALID_DATA of an update or set_time whose rig's joints were re-parented or removed is
 * recorded too, naming the rig and the joint, and so is every failure of oroya_action_create
 * (and clip_action, play): LIMIT ("oroya_action_create: clip \"run\": the mixer has 64
 * actions, its max_actions", or a track past max_bindings), OUT_OF_MEMORY and INVALID_DATA
 * name the clip and, where one track is the cause, the track, its target and property. */
const char *oroya_mixer_last_error(const oroya_mixer *mixer);

/* Many mixers (each its own scene, or none) at once: for each, what oroya_mixer_update(dt)
 * does, with the same results. Action logic, events and callbacks run on the calling thread,
 * mixer after mixer in order; the pose kernels (blending, limits, model and bone matrices)
 * run through `scheduler` (NULL: this thread; e.g. {oroya_thread_pool_parallel_for, pool}).
 * With a scheduler, every mixer's action logic runs before any kernel, so a callback sees no
 * mixer of the batch posed yet; with none (NULL, or no parallel_for), each mixer gets its
 * whole update in turn, as oroya_mixer_update on each would, so a callback of mixer i sees
 * mixers before i already posed.
 * Each mixer must appear once (a mixer given twice is refused, INVALID_ARGUMENT naming both
 * indices), and two mixers of a batch must not share a scene (not checked: that would cost
 * more than the batch). Every mixer is checked first; on a bad one nothing is updated and err
 * names its index (INVALID_ARGUMENT: NULL, a bad or overflowing dt, a mixer given twice).
 * A callback may change other mixers of the batch (play, time scale, weights): a mixer
 * after it is then checked again just before its update, and one now refused is left as
 * oroya_mixer_update would leave it while the others are updated; the batch returns that
 * refusal, err naming the mixer ("... after an event callback earlier in the batch changed
 * it"). A callback must not destroy or update another mixer of the batch (its own mixer's
 * destruction is deferred to the end of the batch). Never allocates (a scheduler may). */
oroya_result oroya_mixer_update_batch(oroya_mixer *const *mixers, uint32_t count, double dt,
                                      const oroya_scheduler *scheduler, oroya_error *err);

/* The skinning palette of a mixer with a rig, as of the last update (before the first: the
 * pose at create): bone[i] = world(joint i) x inverse_bind[i] for the rig's joints in palette
 * order (a glTF skin's joints order, what skinIndex refers to); *count = that joint count.
 * NULL (count 0) without a rig. Stable pointer, 64-byte aligned. */
const oroya_mat4 *oroya_mixer_bone_matrices(const oroya_mixer *mixer, uint32_t *count);
/* The kernel joints' world matrices (oroya_rig_kernel_node order), as of the last update. */
const oroya_mat4 *oroya_mixer_model_matrices(const oroya_mixer *mixer, uint32_t *count);
/* Bone and model matrices are always finite. A joint whose world matrix would not be (a chain
 * of scale keys of 1e10 multiplies past float by the fourth joint; an additive blend of huge
 * keys) gets its parent's world matrix (the identity local matrix, as
 * oroya_scene_update_world does; its children follow from there), and a bone matrix that is
 * still not finite (world x inverse bind past float) the identity. This returns how many
 * joints the last update held so, 0 when none; *first (may be NULL) gets the first of them
 * in kernel order, {0} when none. The check costs one pass over the bone matrices per update;
 * only a pass that finds one does more. The scene's joint nodes get the blended transforms
 * (oroya_scene_update_world and oroya_scene_non_finite_count guard them there). Never
 * allocates. */
uint32_t oroya_mixer_non_finite_count(const oroya_mixer *mixer, oroya_node *first);
/* The rig the mixer was created with (oroya_mixer_desc.rig), NULL without one or for NULL. */
const oroya_rig *oroya_mixer_rig(const oroya_mixer *mixer);
/* Whether the last update went through the pose kernel (false without a rig, and while a
 * scheduled action's clip needs the property path: see oroya_rig_clip_status). */
bool oroya_mixer_kernel_active(const oroya_mixer *mixer);

/* Stops every scheduled action (three's stopAllAction), last to first. */
void oroya_mixer_stop_all(oroya_mixer *mixer);

/* Frees every action of `clip` (stopping them first, restoring their properties) and the
 * bindings no other action uses. Their oroya_action pointers become invalid. A clip
 * without actions is fine. INVALID_ARGUMENT for NULL; BUSY from the event callback. */
oroya_result oroya_mixer_uncache_clip(oroya_mixer *mixer, const oroya_clip *clip);
/* The same for one action. */
oroya_result oroya_mixer_uncache_action(oroya_mixer *mixer, oroya_action *action);

/* Events raised by the last update (or set_time), in dispatch order. At most max_events
 * are kept; *dropped (may be NULL) counts the rest (the callback still saw them). The
 * pointer is valid until the next update (a MARKER event's `marker` until its clip's markers
 * are replaced, see "Markers" above). */
const oroya_event *oroya_mixer_events(const oroya_mixer *mixer, uint32_t *count, uint32_t *dropped);

/* Replaces the event callback (NULL = none). */
void oroya_mixer_set_event_callback(oroya_mixer *mixer, oroya_event_fn fn, void *user);

/* Scheduled actions in blend order (three's active part of mixer._actions): normal
 * actions accumulate in this order, which matters for rotations. i < count. */
uint32_t oroya_mixer_active_action_count(const oroya_mixer *mixer);
oroya_action *oroya_mixer_active_action(const oroya_mixer *mixer, uint32_t i);

oroya_mixer_stats oroya_mixer_get_stats(const oroya_mixer *mixer);

/* ---- rotation blending, twist axes and joint limits (oroya extensions) ------------------ */

/* The mixer-wide rotation blend (see oroya_rotation_blend; DEFAULT means SLERP). Takes effect
 * from the next update. INVALID_ARGUMENT for NULL or an unknown value. */
oroya_result oroya_mixer_set_rotation_blend(oroya_mixer *mixer, oroya_rotation_blend blend);
oroya_rotation_blend oroya_mixer_rotation_blend(const oroya_mixer *mixer); /* SLERP for NULL */

/* Overrides the twist axis of `node`'s rotation (any length; normalized here), in the node's
 * local frame: the axis STERP blending and zero-axis STERP tracks use for it. A zero axis
 * means "none": that node then blends with slerp. axis NULL removes the override and re-reads
 * the default, the bone's long axis: the direction of the translation of its first child
 * (oroya_scene_get_child(node, 0)), zero for a node without children. The default is read
 * when a binding is made and again whenever oroya_scene_layout_version() moves, not when a
 * child's translation changes; call this with NULL to re-read it. The override is kept until
 * removed, also while no action animates the node; it is dropped when the node leaves the
 * scene (at the next update after the layout change). A mixer with a rig and no scene takes
 * the rig's node handles (oroya_rig_kernel_node), and its default is the rest translation of
 * the first rig joint whose parent the node is. May allocate.
 * Errors: INVALID_ARGUMENT (NULL mixer, invalid node, non-finite axis), OUT_OF_MEMORY. */
oroya_result oroya_mixer_set_twist_axis(oroya_mixer *mixer, oroya_node node,
                                        const oroya_vec3 *axis);

/* The twist axis the mixer uses for `node`: the override, else the default above; unit
 * length or zero. INVALID_ARGUMENT for NULL pointers or an invalid node. */
oroya_result oroya_mixer_get_twist_axis(const oroya_mixer *mixer, oroya_node node, oroya_vec3 *out);

/* Puts a joint limit on `node`'s local rotation, or removes it (limit NULL). At the end of
 * every oroya_mixer_update (after the blended values are written, before you compute world
 * matrices), each limited node's rotation in the scene is clamped with
 * oroya_joint_limit_clamp: a rotation inside its limit stays bit for bit, and a node keeps
 * its limit whether or not an action animates it. One limit per node: setting again replaces
 * it. The limit is copied and validated here (oroya_joint_limit_validate; err names it). A
 * rotation the clamp cannot measure (not finite, zero) is left as it is. A removed node's
 * limit is dropped at the next update. A mixer with a rig and no scene takes the rig's node
 * handles (oroya_rig_kernel_node). May allocate; the update never does. Errors:
 * INVALID_ARGUMENT (NULL mixer, invalid node, invalid limit), OUT_OF_MEMORY. Removing a limit
 * that is not there is OROYA_OK. */
oroya_result oroya_mixer_set_joint_limit(oroya_mixer *mixer, oroya_node node,
                                         const oroya_joint_limit *limit, oroya_error *err);

/* Copies `node`'s limit to *out. OROYA_ERR_NOT_FOUND when it has none, INVALID_ARGUMENT for
 * NULL pointers. */
oroya_result oroya_mixer_get_joint_limit(const oroya_mixer *mixer, oroya_node node,
                                         oroya_joint_limit *out);

/* ---- actions: playback ------------------------------------------------------------------ */

/* Schedules the action (three's play): its bindings save the current node values the first
 * time any action uses them. Does not reset time or loops. Allocation-free. */
void oroya_action_play(oroya_action *action);
/* Unschedules and resets (three's stop): a binding no longer used by any scheduled action
 * writes back the value it saved at play. */
void oroya_action_stop(oroya_action *action);
/* time 0, loops forgotten, enabled, unpaused, start_at cleared, fades and warps stopped. */
void oroya_action_reset(oroya_action *action);
/* enabled, not paused, time_scale != 0, no pending start_at, scheduled. */
bool oroya_action_is_running(const oroya_action *action);
/* play() was called and stop() not since. */
bool oroya_action_is_scheduled(const oroya_action *action);

/* The action's clip and its mixer (three's getClip, getMixer); NULL for NULL. */
const oroya_clip *oroya_action_clip(const oroya_action *action);
oroya_mixer *oroya_action_mixer(const oroya_action *action);

/* ---- actions: timing -------------------------------------------------------------------- */

double oroya_action_time(const oroya_action *action);
/* time finite, and at most DBL_MAX / 4 and DBL_MAX / 4 clip durations in magnitude (the loop
 * arithmetic's range; INVALID_ARGUMENT otherwise, nothing changed). */
oroya_result oroya_action_set_time(oroya_action *action, double time);
double oroya_action_time_scale(const oroya_action *action);
/* Sets time_scale directly (three's `action.timeScale = s`); a warp keeps running. */
oroya_result oroya_action_set_time_scale(oroya_action *action, double time_scale);
/* time_scale * warp factor, 0 while paused; as of the last update. */
double oroya_action_effective_time_scale(const oroya_action *action);
/* time_scale = s, effective = paused ? 0 : s, and stops a warp. Finite s. */
oroya_result oroya_action_set_effective_time_scale(oroya_action *action, double time_scale);
/* time_scale = clip duration / duration (one loop lasts `duration`), stops a warp.
 * duration must be finite and non-zero, and the time scale it gives finite. */
oroya_result oroya_action_set_duration(oroya_action *action, double duration);
/* Copies other's time and time_scale and stops this action's warp (INVALID_ARGUMENT when
 * other's time is past this action's range, as oroya_action_set_time). */
oroya_result oroya_action_sync_with(oroya_action *action, const oroya_action *other);
/* Warps the effective time scale to 0 over `duration` seconds (finite, >= 0), then pauses. */
oroya_result oroya_action_halt(oroya_action *action, double duration);
/* Ramps the time scale factor linearly (in mixer time) from start/time_scale to
 * end/time_scale over `duration`; at the end time_scale becomes the end value (or 0 pauses).
 * Values are stored as float, as three does. INVALID_ARGUMENT for non-finite values, a
 * ratio beyond the float range (warp(a, 1e300, -1e300, d) would make the time NaN), a
 * negative duration, or when time_scale is 0 (the ratio is undefined). */
oroya_result oroya_action_warp(oroya_action *action, double start_time_scale, double end_time_scale,
                               double duration);
void oroya_action_stop_warping(oroya_action *action);
bool oroya_action_is_warping(const oroya_action *action);
bool oroya_action_paused(const oroya_action *action);
void oroya_action_set_paused(oroya_action *action, bool paused);
/* Starts the action when mixer time reaches `mixer_time` (three's startAt). Finite. */
oroya_result oroya_action_start_at(oroya_action *action, double mixer_time);

/* ---- actions: looping ------------------------------------------------------------------- */

/* Loop mode and repetitions (INFINITY = forever, the default; ignored by ONCE). Repetitions
 * must not be NaN or negative. */
oroya_result oroya_action_set_loop(oroya_action *action, oroya_loop_mode mode, double repetitions);
oroya_loop_mode oroya_action_loop(const oroya_action *action);
double oroya_action_repetitions(const oroya_action *action);
/* three's _loopCount: -1 before the first update, then completed loops. */
int64_t oroya_action_loop_count(const oroya_action *action);
/* true: pause on the last frame when the last loop ends; false (default): disable. */
void oroya_action_set_clamp_when_finished(oroya_action *action, bool clamp);
bool oroya_action_clamp_when_finished(const oroya_action *action);
/* Endings of SMOOTH tracks at the clip ends (three's zeroSlopeAtStart/End, default true). */
void oroya_action_set_zero_slope(oroya_action *action, bool at_start, bool at_end);
bool oroya_action_zero_slope_at_start(const oroya_action *action);
bool oroya_action_zero_slope_at_end(const oroya_action *action);

/* ---- actions: weighting ----------------------------------------------------------------- */

double oroya_action_weight(const oroya_action *action);
/* Sets weight directly (three's `action.weight = w`); a fade keeps running. INVALID_ARGUMENT
 * unless |w| <= OROYA_MAX_WEIGHT (so NaN and infinities too). */
oroya_result oroya_action_set_weight(oroya_action *action, double weight);
bool oroya_action_enabled(const oroya_action *action);
void oroya_action_set_enabled(oroya_action *action, bool enabled);
/* weight * fade factor, 0 when disabled; as of the last update or set_effective_weight. */
double oroya_action_effective_weight(const oroya_action *action);
/* weight = w, effective = enabled ? w : 0, and stops a fade. |w| <= OROYA_MAX_WEIGHT. */
oroya_result oroya_action_set_effective_weight(oroya_action *action, double weight);
/* Linear ramps in mixer time that MULTIPLY weight: fade_in 0 -> 1, fade_out 1 -> 0 over
 * `duration` seconds (finite, >= 0; INVALID_ARGUMENT otherwise). A fade-out that reaches 0
 * disables the action. A fade-in on an action of weight 0, or on a disabled one, shows
 * nothing (reset() first). Never allocates. */
oroya_result oroya_action_fade_in(oroya_action *action, double duration);
oroya_result oroya_action_fade_out(oroya_action *action, double duration);
void oroya_action_stop_fading(oroya_action *action);
bool oroya_action_is_fading(const oroya_action *action);
/* this fades in, `from` fades out, over `duration`. With warp, `from`'s time scale goes
 * 1 -> from_dur/this_dur and this one's this_dur/from_dur -> 1, each restored to its
 * earlier time_scale when the warp ends. Does not play either action. INVALID_ARGUMENT for
 * NULL, actions of different mixers, a non-finite or negative duration, and with warp a
 * time_scale or clip duration of 0 on either action. */
oroya_result oroya_action_cross_fade_from(oroya_action *action, oroya_action *from, double duration,
                                          bool warp);
/* `to` fades in, this fades out: to.cross_fade_from(this). */
oroya_result oroya_action_cross_fade_to(oroya_action *action, oroya_action *to, double duration,
                                        bool warp);

oroya_blend_mode oroya_action_blend_mode(const oroya_action *action);
/* Changes how the action blends from the next update on (three's `action.blendMode = m`). */
void oroya_action_set_blend_mode(oroya_action *action, oroya_blend_mode mode);

/* This action's rotation blend: DEFAULT (the default) follows the mixer's, SLERP or STERP
 * override it for this action's tracks. When an action accumulates into a rotation with
 * STERP, the remainder toward the original pose (weights below 1) of that rotation is also
 * blended with STERP in that update. Additive actions ignore it (always slerp). */
oroya_result oroya_action_set_rotation_blend(oroya_action *action, oroya_rotation_blend blend);
oroya_rotation_blend oroya_action_rotation_blend(const oroya_action *action);

/* ---- joint masks (partial blending; an oroya extension) ---------------------------------- */

/* A weight in [0, 1] per joint (scene node), built once from names. An action with a mask
 * contributes weight x mask[joint] to each of that joint's channels, blended in three's order;
 * where the masked weights of a property add up to less than 1 the original value fills the
 * rest, as three does for any weight below 1. Additive actions take masks too. The mask is
 * owned by the mixer (freed with it). See docs/mixer.md, "Joint masks". */
typedef struct oroya_mask oroya_mask;

typedef struct oroya_mask_entry {
    const char *joint; /* a node name */
    double weight;     /* in [0, 1] */
} oroya_mask_entry;

typedef struct oroya_mask_desc {
    const char *name;           /* for messages; copied; NULL = "" */
    const char *const *include; /* node names weighted 1 */
    uint32_t include_count;
    bool descendants;           /* include and exclude also cover each node's descendants */
    const char *const *exclude; /* node names weighted 0 (after include) */
    uint32_t exclude_count;
    const oroya_mask_entry *weights; /* then these nodes (alone) get these weights */
    uint32_t weight_count;
} oroya_mask_desc;

/* Builds a mask on the mixer's scene as it is now (nodes added later are not in it: weight 0);
 * on a mixer with a rig and no scene, on the rig's joints (their names; oroya_mask_weight
 * then takes the rig's node handles, oroya_rig_kernel_node). An action takes each channel's
 * weight when the mask is set on it (oroya_action_set_mask): a node removed and added again
 * under the same name after that keeps the weight its channel had. Allocates. Errors:
 * INVALID_ARGUMENT (NULL mixer, desc or out, NULL name arrays with a count, a NULL name in
 * them: "include[2] is NULL"), NOT_FOUND (a
 * joint name not in the scene, or not in the rig: the message names the mask and the joint),
 * INVALID_DATA (a weight NaN or outside [0, 1]), OUT_OF_MEMORY. */
oroya_result oroya_mask_create(oroya_mixer *mixer, const oroya_mask_desc *desc, oroya_mask **out,
                               oroya_error *err);
/* Deprecated: the old name of oroya_mask_create. */
OROYA_DEPRECATED("use oroya_mask_create")
oroya_result oroya_mixer_create_mask(oroya_mixer *mixer, const oroya_mask_desc *desc,
                                     oroya_mask **out, oroya_error *err);
/* The mask's weight of `node` (0 for a node not in it), its name. */
double oroya_mask_weight(const oroya_mask *mask, oroya_node node);
const char *oroya_mask_name(const oroya_mask *mask);
/* Sets (NULL: clears) the action's mask, from the next update. The per-track weights are
 * resolved here, from each track's bound node, so an update does no lookups. Allocates once
 * per action (the first time). INVALID_ARGUMENT for a NULL action or a mask of another mixer;
 * OUT_OF_MEMORY. */
oroya_result oroya_action_set_mask(oroya_action *action, const oroya_mask *mask);
const oroya_mask *oroya_action_mask(const oroya_action *action);

/* ---- root motion (an oroya extension) ------------------------------------------------------ */

/* What is extracted from the root joint's tracks. */
typedef enum oroya_root_extract {
    OROYA_ROOT_NONE = 0, /* off (the default) */
    OROYA_ROOT_XZ,       /* ground-plane translation (x, z) */
    OROYA_ROOT_XZ_YAW,   /* x, z and the rotation about Y */
    OROYA_ROOT_Y,        /* vertical translation */
    OROYA_ROOT_FULL      /* translation and rotation */
} oroya_root_extract;

/* The root's motion: a translation and a rotation (unit), in the root's parent space. */
typedef struct oroya_root_motion {
    oroya_vec3 translation;
    oroya_quat rotation;
} oroya_root_motion;

/* Extracts `mode` from the tracks on `root` (a scene node) from the next update: those
 * components then play in place (they keep the node's value at this call) and each update
 * reports the root's delta (oroya_mixer_root_delta): per action, its own root displacement
 * over the update (across repeat wraps, ping-pong turns, several loops, negative time scales
 * and finishes; an unclamped finish, whose pose weight is 0, counts with the weight before
 * it), times its effective weight and its mask's weight of the root; the normal
 * actions' summed, and divided by the sum of their weights when it is 1 or more (below 1 the
 * missing weight adds no motion), the additive actions' added on top. set_time and
 * the jump of a stop/reset report no motion. Rotation deltas are blended as yaw angles
 * (XZ_YAW) or rotation vectors (FULL). See docs/mixer.md, "Root motion". OROYA_ROOT_NONE
 * turns it off. A mixer with a rig and no scene takes one of the rig's node handles
 * (oroya_rig_kernel_node) and holds the rig's rest values. Errors: INVALID_ARGUMENT (NULL
 * mixer, an unknown mode), STALE_HANDLE (root not in the scene; not a rig joint without one). */
oroya_result oroya_mixer_set_root_motion(oroya_mixer *mixer, oroya_node root,
                                         oroya_root_extract mode, oroya_error *err);
/* This update's delta, and the deltas composed since set_root_motion (translations summed,
 * rotations multiplied). Identity when off. A clip that turns gives translations in its
 * loop's starting frame: the total is not the path then; oroya_mixer_root_delta_local below
 * is what moves a character along it. Always finite: a translation float cannot hold (a dt of
 * 1e39 on a walk) saturates at +-FLT_MAX, in the delta and in the total. */
oroya_root_motion oroya_mixer_root_delta(const oroya_mixer *mixer);
oroya_root_motion oroya_mixer_root_total(const oroya_mixer *mixer);
/* This update's delta in the character's frame, for clips that turn: under XZ_YAW and FULL,
 * each action's motion is taken in the root's own (extracted) frame as it goes, through
 * every repeat wrap (each loop goes on from where and how the root ended the one before),
 * blended as the delta is, then turned into the frame of a character node whose child the
 * root is, with the root's home offset swung as the character turns. Apply it to that node
 * as p += r * delta.translation, then r = r * delta.rotation (r, p: the node's rotation and
 * position): the root then follows the clips' path, turns included. Under XZ and Y no
 * rotation is extracted and it equals oroya_mixer_root_delta. Identity when off. */
oroya_root_motion oroya_mixer_root_delta_local(const oroya_mixer *mixer);

/* ---- curves (an oroya extension) ----------------------------------------------------------- */

/* A curve is a named float channel that CURVE tracks (oroya/track.h; the track's target is
 * the curve's name) drive instead of a scene property, such as a `footstep` or `ik_weight`
 * curve. Curves blend with the action weights exactly as three.js's NumberKeyframeTrack on a
 * number property whose original value is 0: weights that add up to less than 1 blend toward
 * 0, additive actions add, and a curve no scheduled action drives is 0. Read the value after
 * an update by index; resolve the name to an index once, at load time. See docs/mixer.md,
 * "Curves".
 *
 * oroya_mixer_curve_index: the curve's index, adding the curve (value 0) when the mixer does
 * not know the name yet, so an index can be taken before any action drives it. Indices are
 * 0, 1, ... in the order names first appear (a track of a new action, or this call) and stay
 * valid for the mixer's life. Allocates when it adds (load time). Errors: INVALID_ARGUMENT
 * (NULL), BUSY (adding from an event callback), OUT_OF_MEMORY.
 * oroya_mixer_find_curve: the same without adding (NOT_FOUND when unknown). */
oroya_result oroya_mixer_curve_index(oroya_mixer *mixer, const char *name, uint32_t *out);
oroya_result oroya_mixer_find_curve(const oroya_mixer *mixer, const char *name, uint32_t *out);
/* The curve's value after the last update (0 for a NULL mixer or an unknown index). */
double oroya_mixer_curve_value(const oroya_mixer *mixer, uint32_t index);
uint32_t oroya_mixer_curve_count(const oroya_mixer *mixer);
/* The curve's name (owned by the mixer), or NULL for an unknown index. */
const char *oroya_mixer_curve_name(const oroya_mixer *mixer, uint32_t index);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_MIXER_H */
