/* oroya/skeleton.h - skeletons: a flat, ordered array of bones, their inverse bind matrices,
 * the per-frame bone matrices, and the bone texture.
 *
 * A bone is a scene node (usually of kind OROYA_NODE_BONE; any kind works, as in three.js).
 * It has no length: it is a named coordinate frame whose world matrix the scene computes.
 * A skeleton does NOT hold the hierarchy (the scene does). It holds:
 *   - bones: node handles in the order that skin joint indices refer to (joint 7 is
 *     bones[7]); any order, fixed at creation;
 *   - bone_inverses: the inverse of each bone's world matrix at bind time, either given
 *     (glTF inverseBindMatrices) or computed by oroya_skeleton_calculate_inverses;
 *   - bone_matrices: bone_world x bone_inverse per bone, 16 floats each, column-major (three.js
 *     Skeleton.boneMatrices), written by oroya_skeleton_update every frame. A bone that has
 *     not moved since bind gets the identity.
 * bone_matrices is allocated at the bone texture's size and zero-padded, so it IS the bone
 * texture: upload texture_side x texture_side RGBA32F texels from it (see
 * oroya_bone_texture_fill for the layout), or read the first 16 * bone_count floats as a
 * palette for oroya_skin_job.
 *
 * What it does not do: skin vertices (oroya/skin.h), animate bones (the mixer writes the
 * scene's transforms), or update world matrices (oroya_scene_update_world).
 *
 * Frame order: animate -> oroya_scene_update_world -> oroya_skeleton_update -> skin or draw.
 *
 * Unreachable bones. In three.js a bone whose root is not added to the scene never gets its
 * world matrix updated, silently. In oroya every live node is in its scene and is updated by
 * oroya_scene_update_world, so the failure takes one form: a bone handle that is not a live
 * node of the scene given to the call (the bone, or one of its ancestors, was removed, so
 * the handle is stale). Such a bone is "unreachable". oroya_skeleton_update gives it the
 * identity matrix (its vertices stay in the rest pose) and returns OROYA_ERR_STALE_HANDLE;
 * oroya_skeleton_validate and oroya_skeleton_unreachable_bones report it by the name it had
 * when the skeleton was created.
 *
 * Ownership: one allocation per skeleton (struct, handles, names, matrices), freed by
 * oroya_skeleton_destroy. The struct is transparent and read-only; its fields ending in `_`
 * are private. The scene is not owned: pass it to each call; it must outlive those calls.
 * Threading: a skeleton is not synchronized; update writes bone_matrices and its index cache.
 *
 * Example (given: oroya_scene *scene, oroya_node hips, oroya_node spine, oroya_error err):
 *   oroya_node bones[2] = {hips, spine};
 *   oroya_skeleton *sk;
 *   oroya_scene_update_world(scene);            // bones in their rest pose
 *   oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = bones, .bone_count = 2},
 *                         &sk, &err);            // bone_inverses from the rest pose
 *   // each frame: animate, then
 *   oroya_scene_update_world(scene);
 *   oroya_skeleton_update(sk, scene, &err);
 *   const float *palette = sk->bone_matrices;   // the palette / bone texture
 *   oroya_skeleton_destroy(sk);
 */
#ifndef OROYA_SKELETON_H
#define OROYA_SKELETON_H

#include "oroya/base.h"
#include "oroya/math.h"
#include "oroya/scene.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

typedef struct oroya_skeleton_desc {
    const oroya_node *bones;         /* bone_count handles, joint order; required if count > 0 */
    uint32_t bone_count;             /* may be 0 */
    const oroya_mat4 *bone_inverses; /* bone_count; NULL: the inverses of the bones' current
                                         world matrices (calculate_inverses) */
    oroya_allocator allocator;       /* zero: malloc/free */
} oroya_skeleton_desc;

typedef struct oroya_skeleton {
    uint32_t bone_count;
    const oroya_node *bones;         /* bone_count */
    const char *const *bone_names;   /* bone_count, the names at creation ("" when unnamed) */
    const oroya_mat4 *bone_inverses; /* bone_count */
    const float *bone_matrices;      /* texture_side^2 * 4 floats: 16 per bone, then zeros */
    uint32_t texture_side;           /* oroya_bone_texture_side(bone_count) */
    /* private */
    oroya_mat4 *inverses_;
    float *matrices_;
    uint32_t *dense_;          /* cached dense index per bone */
    const oroya_scene *scene_; /* the scene dense_ was resolved against */
    uint32_t layout_version_;  /* ... and its layout version then; 0 = never */
    oroya_allocator allocator_;
} oroya_skeleton;

/* Creates a skeleton of desc->bone_count bones (three.js new Skeleton(bones, boneInverses)).
 * Every bone must be a live node of scene (OROYA_ERR_STALE_HANDLE naming bones[i] otherwise).
 * The names are copied so later diagnostics can name removed bones. Without bone_inverses
 * the inverses are taken from the world matrices as of the scene's last update_world, which
 * is the bind pose only if the bones were posed and updated before this call. A singular
 * world matrix gives a zero inverse, as in three.js. bone_matrices start as the identity
 * per bone. Errors: INVALID_ARGUMENT (NULL scene, desc or out; bones NULL with a count),
 * STALE_HANDLE, NON_FINITE (a given inverse, or a computed one float cannot hold), OUT_OF_MEMORY.
 * *out is NULL on error. */
oroya_result oroya_skeleton_create(const oroya_scene *scene, const oroya_skeleton_desc *desc,
                                   oroya_skeleton **out, oroya_error *err);

/* Frees the skeleton. NULL is accepted. Skins bound to it must be rebound or destroyed. */
void oroya_skeleton_destroy(oroya_skeleton *skeleton);

/* three.js Skeleton.calculateInverses: bone_inverses[i] = inverse(world of bones[i]) as of
 * the scene's last update_world (computed in double). Fails with STALE_HANDLE, naming the
 * first unreachable bone, and changes nothing if any bone is unreachable; likewise with
 * NON_FINITE when an inverse does not fit in float (a bone scaled by 1e-39: three's would be
 * inf too, and every bone matrix NaN). Never allocates. */
oroya_result oroya_skeleton_calculate_inverses(oroya_skeleton *skeleton, const oroya_scene *scene,
                                               oroya_error *err);

/* three.js Skeleton.update: bone_matrices[i] = world(bones[i]) x bone_inverses[i], formed
 * in double from the scene's world matrices (as of its last update_world) and rounded to
 * float. Dense indices are cached and re-resolved only when the scene or its layout version
 * changed. Unreachable bones get the identity and the call returns STALE_HANDLE after
 * filling every other bone (err names the first). So does a bone whose matrix is not finite
 * in float (finite world and inverse whose product overflows, such as a bone scaled by 1e20
 * over an inverse of 1e19: three.js's would be inf), with NON_FINITE (STALE_HANDLE first when
 * both happen). Never allocates. */
oroya_result oroya_skeleton_update(oroya_skeleton *skeleton, const oroya_scene *scene,
                                   oroya_error *err);

/* three.js Skeleton.pose: puts the bones back in the bind pose by writing their local
 * transforms. Each bone's bind world matrix is inverse(bone_inverses[i]); its local matrix
 * is inverse(parent world) x bind world when its parent is a node of kind BONE (the parent's
 * bind world if the parent is in this skeleton, else the parent's current world), and the
 * bind world matrix itself otherwise, then decomposed into T, R, S. Note the three.js
 * behaviour this keeps: a root bone whose parent is not a bone (e.g. it hangs from the
 * skinned mesh) gets its bind WORLD matrix as its local transform, which is right only when
 * its parent's world matrix is the identity. Call oroya_scene_update_world afterwards.
 * Errors: STALE_HANDLE (unreachable bones are skipped; err names the first), INVALID_ARGUMENT.
 * Never allocates. */
oroya_result oroya_skeleton_pose(const oroya_skeleton *skeleton, oroya_scene *scene,
                                 oroya_error *err);

/* Indices (into bones) of the unreachable bones, in order: writes at most `capacity` of them
 * to out and returns how many there are (out NULL: a size query). Never allocates. */
uint32_t oroya_skeleton_unreachable_bones(const oroya_skeleton *skeleton, const oroya_scene *scene,
                                          uint32_t *out, uint32_t capacity);

/* OROYA_OK when every bone is reachable; otherwise STALE_HANDLE with a message that names
 * the unreachable bones by their creation-time names ("bones[3] 'forearm_L' is not in the
 * scene (removed?); 2 unreachable bones: forearm_L, hand_L"). For CLI and renderer warnings. */
oroya_result oroya_skeleton_validate(const oroya_skeleton *skeleton, const oroya_scene *scene,
                                     oroya_error *err);

/* Side in texels of the square bone texture for bone_count bones, exactly as three.js's
 * Skeleton.computeBoneTexture: max(4, ceil(sqrt(4 * bone_count) / 4) * 4). 4 for 0 to 4
 * bones, 8 up to 16, 12 up to 36, 16 up to 64. */
uint32_t oroya_bone_texture_side(uint32_t bone_count);

/* Fills the RGBA32F bone texture from bone_matrices (16 floats per bone, column-major): texel
 * 4b + c holds column c of bone b, texels run row by row (x fastest) over a side x side
 * texture, and everything after the last matrix is zero. This is three.js's layout: the
 * matrices, flat, followed by zero padding. Returns the number of floats written,
 * side * side * 4; with out == NULL writes nothing and returns that count (a size query).
 * Returns 0 and writes nothing when bone_matrices is NULL with bone_count > 0 and out set.
 * A skeleton's bone_matrices already has this layout. Never allocates. */
size_t oroya_bone_texture_fill(const float *bone_matrices, uint32_t bone_count, float *out);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_SKELETON_H */
