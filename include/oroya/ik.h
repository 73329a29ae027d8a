/* oroya/ik.h - inverse kinematics: two-bone IK (hip-knee-ankle, shoulder-elbow-wrist), aim
 * and look-at for one joint or a chain of joints, with the joint limits of oroya/rotation.h
 * applied to what IK wrote.
 *
 * What it does: turns targets given in world coordinates into local joint rotations, in
 * closed form (no iterations): two-bone IK bends the middle joint to the target distance,
 * then turns the chain from its first joint so the end lands on the target and the middle
 * joint points toward the pole. Aim turns a forward axis (with an eye offset) toward a target
 * and keeps an up axis toward a world up; a chain spreads that turn over its joints by
 * shares. Each IK has a weight (0: the pose as it was, bit for bit; 1: full IK).
 * What it does not do: translation (bones keep their lengths), long chains (CCD/FABRIK), or
 * choosing targets (foot planting on ground, for example, is the caller's).
 *
 * Where it runs: after blending (the mixer's update, or the pose kernel's blend and
 * local-to-model) and before bone matrices, on local rotations, so the scene, skinning,
 * rendering and export all see the result:
 *   - scene path: oroya_mixer_update, oroya_scene_update_world, then oroya_ik_scene_apply
 *     (writes the nodes' local rotations and updates the world matrices it changed);
 *   - pose kernel path: oroya_pose_character_set_ik once; every oroya_pose_character_update
 *     and oroya_pose_update_batch then runs the IKs inside local-to-model, as the pass
 *     reaches each chain, before the bone matrices are used (model space stands for world
 *     there).
 * The solver itself (oroya_ik_solve_job) works on the matrices of one chain and needs
 * neither.
 *
 * Conventions (docs/ik.md): targets are positions and poles and `up` directions in world
 * coordinates; `forward`, `offset`, `up_axis` and `mid_axis` are in the local space of the
 * joint they belong to; aim shares add up to 1, so the last joint ends on the target; the
 * soft limit and the end rotation are off unless asked for. World matrices are taken as
 * rotation, uniform scale and translation (the rotation is read from the normalized columns).
 * Scales on a chain's path (its joints and those between them) must not be negative (a
 * reflection, or a half turn kept in the scale): the set-up refuses them and at run time they
 * are a fallback; oroya_ik_solve_run, which sees world matrices only, refuses reflections.
 *
 * Errors: the validate calls (run once, when an IK is set up) refuse a joint list that is not
 * a parent chain, a zero-length bone, a target at the chain's first joint, a non-finite
 * target, a zero pole or one parallel to the line to the target, naming the IK and the joint.
 * At run time the same degenerate cases fall back to the pose unchanged (documented per
 * call); no output is ever NaN. Nothing here allocates after setup; all of it is safe to run
 * on different poses from different threads.
 *
 * Example (given: oroya_scene *scene, oroya_mixer *mixer, double dt, uint32_t thigh, uint32_t shin, uint32_t ankle, oroya_error err):
 *   oroya_ik foot = {
 *       .type = OROYA_IK_TWO_BONE, .name = "footL",
 *       .joints = {thigh, shin, ankle},           // dense node indices (scene path)
 *       .target = {0.1f, 0.05f, 0.3f}, .pole = {0, 0, 1}, .weight = 1,
 *   };
 *   oroya_scene_update_world(scene);                             // once, at setup:
 *   oroya_ik_scene_validate(scene, &foot, 1, &err);             // reads the world matrices
 *   oroya_mixer_update(mixer, dt);                               // every frame
 *   oroya_scene_update_world(scene);
 *   oroya_ik_scene_apply(scene, &foot, 1, NULL);
 */
#ifndef OROYA_IK_H
#define OROYA_IK_H

#include "oroya/base.h"
#include "oroya/math.h"
#include "oroya/rotation.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

typedef struct oroya_scene oroya_scene;
typedef struct oroya_pose_character oroya_pose_character;
typedef struct oroya_mixer oroya_mixer;

/* Joints of one aim chain. */
#define OROYA_IK_MAX_CHAIN 8

typedef enum oroya_ik_type {
    OROYA_IK_TWO_BONE = 0, /* joints: first (hip), middle (knee), end (ankle) */
    OROYA_IK_AIM = 1       /* joints: 1..OROYA_IK_MAX_CHAIN, first (spine) to last (head) */
} oroya_ik_type;

/* One IK. Fields a type does not use are ignored. */
typedef struct oroya_ik {
    oroya_ik_type type;
    const char *name;                    /* optional; names the IK in messages */
    uint32_t joints[OROYA_IK_MAX_CHAIN]; /* joint indices (dense node indices on the scene
                                          * path); each an ancestor (not necessarily the
                                          * parent) of the next; not read by the solve job */
    uint32_t joint_count; /* TWO_BONE: 3 (0 means 3); AIM: 1..OROYA_IK_MAX_CHAIN (0 means 1) */
    oroya_vec3 target;    /* world position the end (TWO_BONE) or the aim ray (AIM) reaches */
    float weight;         /* [0, 1]; 0 leaves the pose bit for bit; values outside are clamped */
    const oroya_joint_limit *limits; /* NULL, or joint_count limits, chain order, applied to
                                      * the rotations IK wrote (FREE entries limit nothing) */

    /* ---- TWO_BONE ---- */
    oroya_vec3 pole;            /* world direction the middle joint points toward; required */
    oroya_vec3 mid_axis;        /* the middle joint's hinge, its local space: the knee bends by a
                             * positive rotation about it (right-hand rule). Zero (default): the
                             * bend of the incoming pose (normal of root, middle, end), or, when
                             * the incoming chain is straight, the normal of the pole plane */
    float soft;                 /* [0, 1): 0 = off (default). Otherwise the end starts to lag behind
                             * the target when the target is farther than (1 - soft) x the
                             * chain length and reaches full extension only at infinity, so the
                             * knee does not pop straight */
    bool has_target_rotation;   /* default false: the end joint keeps its local rotation */
    oroya_quat target_rotation; /* world rotation of the end joint (normalized here) */

    /* ---- AIM ---- */
    float shares[OROYA_IK_MAX_CHAIN]; /* joint_count shares of the turn, >= 0, adding up to 1
                                       * (within 1e-4); all zero with one joint means {1} */
    oroya_vec3 forward; /* last joint's local axis that points at the target; required */
    oroya_vec3 offset;  /* last joint's local space: where the aim ray starts (the eyes);
                             * default 0 (the joint itself) */
    oroya_vec3 up;      /* world up; zero (default): no up constraint (shortest turn) */
    oroya_vec3 up_axis; /* last joint's local axis kept toward `up`; zero: (0, 1, 0); must
                             * not be parallel to forward */
} oroya_ik;

/* ---- the solver: one IK on the matrices of its chain ----------------------------------- */

typedef struct oroya_ik_solve_job {
    const oroya_ik *ik;          /* required; ik->joints is not read */
    const oroya_mat4 *world;     /* joint_count world matrices of the chain, in chain order */
    const oroya_quat *rotations; /* joint_count local rotations of the same joints */
    oroya_quat *out;             /* joint_count local rotations out (may alias rotations):
                                    * unit length where IK moved the joint; a joint it does not
                                    * move keeps its input bit for bit */
    bool *reached;               /* optional: true when the target was reached (TWO_BONE:
                                    * within reach, soft limit not engaged, weight 1; AIM: the
                                    * last joint aimed with weight 1 and no limit in the way) */
} oroya_ik_solve_job;

/* The set-up check of one IK against the current pose of its chain: the IK's fields
 * (type, counts, finite values, weight and soft in range, non-zero pole and forward, shares
 * adding up to 1, up_axis not parallel to forward, valid limits) and the pose: no zero-length
 * bone (below 1e-6 of the chain), the target not at the chain's first joint (TWO_BONE) or the
 * last joint (AIM), the pole not parallel to the line from the first joint to the target
 * (within 1e-3 rad). `index` names the IK in the message ("iks[1] (footL): joints[2]:
 * zero-length bone"). The field checks come before the pose checks other than the matrices
 * and bone lengths. OROYA_ERR_INVALID_ARGUMENT for NULL pointers and bad fields,
 * OROYA_ERR_NON_FINITE for a non-finite target, pole or matrix, OROYA_ERR_INVALID_DATA for a
 * degenerate pose. Never allocates. */
oroya_result oroya_ik_solve_validate(const oroya_ik_solve_job *job, uint32_t index,
                                     oroya_error *err);

/* Solves and writes job->out. Checks cheaply first (NULL pointers, type, counts:
 * OROYA_ERR_INVALID_ARGUMENT, nothing written). Run-time fallbacks (out = the input rotations,
 * normalized, the identity for a zero or non-finite one; *reached false; OROYA_ERR_INVALID_DATA returned and err filled, so a caller may
 * ignore it): a non-finite target, pole or matrix, a world matrix that is a reflection (a
 * negative scale), a zero-length bone, a target at the first joint (TWO_BONE) or at the
 * aiming joint (AIM: within 1e-6 of the chain's length with no eye offset, about 1e-9 with
 * one), a pole (TWO_BONE) or forward (AIM) shorter than 1e-6 (zero, tiny or denormal; a zero
 * up is no up constraint, not a fallback), a joint limit that is not valid
 * (oroya_joint_limit_validate). forward and up are directions: their lengths do not change
 * the result. A pole that became parallel to the line to the target does not fall back (a
 * deliberate deviation from "pose unchanged", for continuity): the chain is swung onto the
 * target the shortest way, no twist about the line, OROYA_OK. A weight of 0 or below copies
 * the inputs bit for bit and skips the limits (OROYA_OK); a NaN weight does the same and
 * returns OROYA_ERR_INVALID_DATA ("weight is not a number"). Never allocates;
 * O(joint_count); never writes NaN. */
oroya_result oroya_ik_solve_run(const oroya_ik_solve_job *job, oroya_error *err);

/* ---- hooks: the scene path --------------------------------------------------------------- */

/* Checks iks[0..count) against the scene as of its last oroya_scene_update_world: joint
 * indices are dense node indices in range, each chain a parent chain, and each IK passes
 * oroya_ik_solve_validate on the current world matrices. Messages name the nodes. Re-check
 * (and re-resolve indices) when oroya_scene_layout_version changes. Never allocates. */
oroya_result oroya_ik_scene_validate(const oroya_scene *scene, const oroya_ik *iks, uint32_t count,
                                     oroya_error *err);

/* Applies iks[0..count) in order to the scene: reads the chain's world matrices (call it after
 * oroya_mixer_update and oroya_scene_update_world), writes the chain's local rotations into
 * the scene's transforms and recomputes the local and world matrices from the chain's first
 * node on, so the next IK, skinning and rendering see the result. Checks cheaply (indices in
 * range, OROYA_ERR_OUT_OF_RANGE, nothing applied); a run-time fallback of one IK (see
 * oroya_ik_solve_run) leaves its chain unchanged, the others still run, and the first such
 * error is returned. Never allocates. */
oroya_result oroya_ik_scene_apply(oroya_scene *scene, const oroya_ik *iks, uint32_t count,
                                  oroya_error *err);

/* ---- hooks: the pose kernel path ------------------------------------------------------------ */

/* Gives the character a list of IKs (joint indices of its skeleton; targets in the
 * character's model space), run by every later oroya_pose_character_update and
 * oroya_pose_update_batch inside local-to-model: once the pass has done a chain's first joint
 * the IK solves and writes the chain's local rotations into the SoA locals, so the joints
 * after it are computed already corrected. The result is that of running the IKs in list
 * order (an order the pass cannot keep, an IK listed after one whose first joint is below
 * its own, makes them run after the pass instead, the first joint's subtree recomputed). The array is borrowed, not copied: it must outlive its use, and the caller may
 * change targets, poles, weights and the other values between updates (not the joints: call
 * this again for that). Validated here against the skeleton and the character's current model
 * matrices (oroya_ik_solve_validate; messages name the joints). count 0 (iks NULL) removes
 * the list. On error the previous list is kept. Allocates the list's plan (its chains' paths
 * and first joints, a few bytes per joint: OROYA_ERR_OUT_OF_MEMORY when that fails), never
 * per update. Run-time fallbacks leave a chain as blended (the update still returns OROYA_OK);
 * oroya_pose_character_ik_fallbacks counts them. */
oroya_result oroya_pose_character_set_ik(oroya_pose_character *character, const oroya_ik *iks,
                                         uint32_t count, oroya_error *err);

/* The run-time fallbacks of the last update (oroya_pose_character_update, or this character's
 * entry of oroya_pose_update_batch): how many IKs of the list that were on (a weight not
 * <= 0: a NaN weight counts as on) left their chain as blended (a target, pole or matrix
 * that is not finite, a NaN weight, a zero pole, a target at the chain's first joint, a chain
 * the solver cannot take: docs/ik.md, "Errors and fallbacks"), and in *first (may be NULL)
 * the lowest list index among them, UINT32_MAX when there is none. 0 for NULL, no list, or
 * before the first update after set_ik. */
uint32_t oroya_pose_character_ik_fallbacks(const oroya_pose_character *character, uint32_t *first);

/* ---- hooks: the rig-backed mixer ----------------------------------------------------------- */

/* Gives a mixer created with a rig (oroya_mixer_desc.rig) a list of IKs, run by every later
 * oroya_mixer_update and oroya_mixer_update_batch after blending, root motion and joint
 * limits, inside local-to-model (as oroya_pose_character_set_ik does), so the bone and model
 * matrices (oroya_mixer_bone_matrices, oroya_mixer_model_matrices), the joints' transforms in
 * the scene (written lazily, as the blended pose is), skinning, rendering and export all see
 * the IK'd pose. Joints are the rig's kernel joints (oroya_rig_kernel_node order, the order
 * of oroya_mixer_model_matrices); targets, poles and `up` are in world (scene) coordinates
 * (the kernel's model matrices are the joints' world matrices). The array is borrowed, as for
 * the character: change targets, poles and weights in it between updates, call this again to
 * change joints. Validated here against the mixer's current model matrices (the last update's,
 * or the pose at create). count 0 (iks NULL) removes the list; on error the previous list is
 * kept. OROYA_ERR_INVALID_ARGUMENT for a mixer without a rig. Allocates the list's plan, as
 * for the character (OROYA_ERR_OUT_OF_MEMORY), never per update. While an update takes the
 * property path (oroya_mixer_kernel_active false) the IKs run on the joints' current
 * transforms and write their rotations into the scene at once. Run-time fallbacks leave a
 * chain as blended (oroya_mixer_ik_fallbacks counts them). */
oroya_result oroya_mixer_set_ik(oroya_mixer *mixer, const oroya_ik *iks, uint32_t count,
                                oroya_error *err);

/* The same as oroya_pose_character_ik_fallbacks for the mixer's last update (or its entry of
 * oroya_mixer_update_batch). */
uint32_t oroya_mixer_ik_fallbacks(const oroya_mixer *mixer, uint32_t *first);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_IK_H */
