/* oroya/rig.h - the bridge from a scene (or a loaded glTF model) to the pose kernel: one call
 * builds the runtime skeleton and the runtime clips that oroya_mixer plays through the kernel.
 *
 * What it does: a rig is a set of joints of a scene, given in palette order (a glTF skin's
 * `joints` order, the order skinIndex attributes use). At create it
 *   - adds every ancestor of those joints that is not a joint itself (a skin whose joints are
 *     not one tree, an "Armature" node above the root bone), so the kernel's model matrices
 *     are the joints' world matrices and bone = world x inverse bind, as three.js's
 *     Skeleton.update computes it;
 *   - sorts them parents first (the scene's own order), whatever the order in the file: the
 *     bone matrices still come out in palette order;
 *   - takes the current local transforms as the rest pose;
 *   - resolves the names of the given clips' tracks once and builds their runtime clips
 *     (oroya_pose_clip), shared read-only by every mixer and character on the rig.
 * A mixer created with a rig (oroya_mixer_desc.rig) samples and blends every track that
 * targets one of its joints in the kernel and gives the bone matrices
 * (oroya_mixer_bone_matrices); see docs/mixer.md, "The pose kernel path".
 *
 * Example (given: oroya_error err, uint32_t count):
 *   oroya_gltf_model *model;  oroya_rig *rig;  oroya_mixer *mixer;
 *   oroya_gltf_load("character.glb", NULL, &model, &err);
 *   oroya_rig_create_gltf(model, 0, NULL, &rig, &err);             // skin 0, every clip
 *   oroya_mixer_create(model->scene, &(oroya_mixer_desc){.rig = rig}, &mixer);
 *   oroya_mixer_play(mixer, model->clips[0], NULL);
 *   oroya_mixer_update(mixer, 1.0 / 60);
 *   const oroya_mat4 *bones = oroya_mixer_bone_matrices(mixer, &count);  // skin order
 *
 * Ownership: a rig is one object from its allocator; it borrows the scene only during
 * create (afterwards it keeps node handles, compared with a mixer's scene) and copies what it
 * needs of the clips, which may be freed after create except that oroya_rig_clip looks them
 * up by address (and key_generation: a clip created later at a freed one's address is not
 * taken for it). A rig must outlive the mixers created on it.
 *
 * Threading: read-only after create; any number of threads and mixers may share it. Create
 * only reads the scene (a read that writes a mixer's pending pose first, as every scene read
 * does, scene.h): once nothing is pending (after oroya_scene_update_world), rigs may be built
 * from one shared scene on several threads at once. */
#ifndef OROYA_RIG_H
#define OROYA_RIG_H

#include "oroya/base.h"
#include "oroya/clip.h"
#include "oroya/pose.h"
#include "oroya/scene.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

typedef struct oroya_rig oroya_rig;

typedef struct oroya_rig_desc {
    const oroya_scene *scene; /* required */
    const oroya_node *joints; /* joint_count nodes in palette order; NULL with
                                         joint_count 0: every node of the scene */
    uint32_t joint_count;
    const oroya_mat4 *inverse_bind; /* joint_count, palette order; NULL = identity */
    const oroya_clip *const *clips; /* clip_count clips to build runtime clips for */
    uint32_t clip_count;
    const char *name;          /* names the rig in messages ("skin 0 (Armature)");
                                         NULL = "rig" */
    oroya_allocator allocator; /* zero = malloc/free */
} oroya_rig_desc;

/* Builds the rig. A clip the kernel cannot play (see oroya_rig_clip_status) is not an error:
 * mixers play it through their property path. Errors (the message names the joint and the
 * rig): INVALID_ARGUMENT (NULL desc, scene or out, joints NULL with a count), STALE_HANDLE (a
 * joint that is not a node of the scene), INVALID_DATA (a node listed twice), LIMIT (more
 * than OROYA_POSE_MAX_JOINTS joints with their ancestors), NON_FINITE (a rest transform or
 * inverse bind matrix), OUT_OF_MEMORY. Allocates.
 * On LIMIT, create the mixer without a rig: it plays the same clips on its property path,
 * with the same results (slower), and the bones come from the skin's oroya_skeleton
 * (oroya_scene_update_world, then oroya_skeleton_update); examples/play_gltf.c does it. */
oroya_result oroya_rig_create(const oroya_rig_desc *desc, oroya_rig **out, oroya_error *err);

/* oroya_rig_create_gltf (declared in oroya/gltf.h, the I/O layer) builds the rig of a loaded
 * model's skin. */

void oroya_rig_destroy(oroya_rig *rig); /* NULL ok */

/* The kernel skeleton: joints sorted parents first, ancestors included, bone slots in palette
 * order. For oroya_pose_character and oroya_pose_clip_create. */
const oroya_pose_skeleton *oroya_rig_skeleton(const oroya_rig *rig);
/* Joints given at create (the palette size); 0 for NULL. */
uint32_t oroya_rig_joint_count(const oroya_rig *rig);
/* Joints in the kernel (the palette plus added ancestors); 0 for NULL. */
uint32_t oroya_rig_kernel_joint_count(const oroya_rig *rig);
/* The scene node of kernel joint k ({0} out of range). */
oroya_node oroya_rig_kernel_node(const oroya_rig *rig, uint32_t k);
/* The kernel joint of palette entry i (UINT32_MAX out of range). */
uint32_t oroya_rig_kernel_joint(const oroya_rig *rig, uint32_t palette_index);
/* The kernel joint of `node` (a node of the scene the rig was built from), else of the joint
 * named `name` (may be NULL); UINT32_MAX when neither is one of the rig's joints. The joints
 * oroya_ik and oroya_mixer_set_ik take. Not for per-frame use (a linear search). */
uint32_t oroya_rig_find_kernel_joint(const oroya_rig *rig, oroya_node node, const char *name);

/* The runtime clip built at create for `clip` (by address), or NULL: not one of desc.clips,
 * one whose keys were rewritten since (oroya_clip_make_additive, oroya_clip_optimize: its
 * key_generation moved), one the kernel cannot play, or one with a track on a joint that only
 * a mixer plays in the kernel (see oroya_rig_clip_status). Not for per-frame use (a linear
 * search). */
const oroya_pose_clip *oroya_rig_clip(const oroya_rig *rig, const oroya_clip *clip);

/* Whether a mixer with this rig can play `clip` through the kernel: OROYA_OK, or
 * OROYA_ERR_UNSUPPORTED with the reason in err (the track, its joint and the rig): two tracks
 * on one joint channel. Tracks on other nodes, names missing from the rig and morph weights
 * are fine (the property path plays them). Tracks on joints that the kernel has no sampler
 * for (STERP rotations, SMOOTH translations and scales, more than OROYA_POSE_MAX_KEYS keys,
 * CUBICSPLINE rotations whose tangents times the key gap reach past 1e18 or whose curve may
 * pass near zero, such as keys q then -q) are fine too: the mixer samples them with the property path's sampler and the kernel blends
 * them with the rest. Load-time only. */
oroya_result oroya_rig_clip_status(const oroya_rig *rig, const oroya_clip *clip, oroya_error *err);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_RIG_H */
