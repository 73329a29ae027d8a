/* oroya/scene.h - the scene graph: nodes with names, parents, TRS transforms, local and world
 * matrices, visibility, morph weights, and the components the renderer draws (cameras,
 * lights, meshes).
 *
 * What it does: keeps every node's data in dense arrays ordered parents before children, so
 * oroya_scene_update_world() is one forward loop that never allocates. Nodes are named by
 * 32-bit handles (a slot index plus a generation); a handle to a removed node is detected
 * and refused with OROYA_ERR_STALE_HANDLE, never dereferenced.
 * What it does not do: it does not animate (the mixer writes the dense transforms), skin (the
 * skin module reads world matrices), render, or load files. It keeps no dirty flags: every
 * update_world recomputes every node, which for animated characters is the common case.
 *
 * Hot path for the mixer and skeletons: resolve names to handles once (find_node), handles
 * to dense indices once (node_index), then read and write the dense arrays every frame
 * (oroya_scene_transforms, oroya_scene_world_matrices). Re-resolve indices only when
 * oroya_scene_layout_version() changed: it moves on every add, remove and re-parent.
 *
 * Ownership: the scene owns its nodes, their names (copied) and their morph weights. It does
 * NOT own geometries, materials or skins attached to nodes: those are the caller's and must
 * outlive the nodes that reference them (or be detached first).
 *
 * Threading: a scene is not synchronized. Reads from several threads are fine while no
 * thread writes; any write (including update_world) needs exclusive access. A rig-backed
 * mixer (oroya/mixer.h) writes its pose into the joint nodes lazily, on the first read or
 * write of the scene after its update: that first read, even through a const scene
 * (oroya_scene_get_transform, _get_world, _transforms, _world_matrices...), is a write. Call
 * oroya_scene_update_world on one thread after the mixer update and before several threads
 * read the scene; their reads are then reads.
 *
 * Example:
 *   oroya_scene *scene;
 *   oroya_scene_create(NULL, &scene);
 *   oroya_node hips, spine;
 *   oroya_scene_add_node(scene, "hips", (oroya_node){0}, OROYA_NODE_BONE, &hips);
 *   oroya_scene_add_node(scene, "spine", hips, OROYA_NODE_BONE, &spine);
 *   oroya_transform t = oroya_transform_identity();
 *   t.translation.y = 1.0f;
 *   oroya_scene_set_transform(scene, spine, &t);
 *   oroya_scene_update_world(scene);
 *   oroya_mat4 world;
 *   oroya_scene_get_world(scene, spine, &world);   // translation (0, 1, 0)
 *   oroya_scene_destroy(scene);
 */
#ifndef OROYA_SCENE_H
#define OROYA_SCENE_H

#include "oroya/base.h"
#include "oroya/geometry.h"
#include "oroya/math.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

typedef struct oroya_scene oroya_scene; /* opaque */

/* A node handle. id 0 means "none", which as a parent means the top level (the implicit
 * root). Handles are values: copy them freely. The low OROYA_SCENE_SLOT_BITS bits hold the
 * slot, the high bits a generation that changes when the slot is reused. */
typedef struct oroya_node {
    uint32_t id;
} oroya_node;

#define OROYA_SCENE_SLOT_BITS 20
/* The most nodes a scene holds at once; adding more returns OROYA_ERR_LIMIT. */
#define OROYA_SCENE_MAX_NODES ((1u << OROYA_SCENE_SLOT_BITS) - 1u)
/* Dense index of "no node" (parent of a top-level node, index of an invalid handle). */
#define OROYA_SCENE_NO_INDEX UINT32_MAX

typedef struct oroya_transform {
    oroya_vec3 translation;
    oroya_quat rotation; /* {x, y, z, w}; used as given (not normalized), as three.js does */
    oroya_vec3 scale;
} oroya_transform;

/* The primary role of a node. Components (camera, light, mesh) may be attached to a node of
 * any kind, as glTF allows a node to carry a mesh and a camera at once; the kind is what
 * the node was created as, for loaders, tools and the renderer to filter on. */
typedef enum oroya_node_kind {
    OROYA_NODE_OBJECT = 0,
    OROYA_NODE_BONE,
    OROYA_NODE_MESH,
    OROYA_NODE_SKINNED_MESH,
    OROYA_NODE_CAMERA,
    OROYA_NODE_LIGHT,
    OROYA_NODE_KIND_COUNT_
} oroya_node_kind;

typedef struct oroya_scene_desc {
    uint32_t capacity_hint;    /* nodes to reserve room for; 0: 64 */
    oroya_allocator allocator; /* zero: malloc/free */
} oroya_scene_desc;

/* translation 0, rotation identity, scale 1. */
oroya_transform oroya_transform_identity(void);

/* ---- scene and nodes ------------------------------------------------------------------
 * Unless a function says otherwise, a call that takes a node returns INVALID_ARGUMENT for a
 * NULL scene, a NULL out pointer or a malformed handle ({0} where a node is needed, a slot
 * never allocated), STALE_HANDLE for a removed node, and leaves the scene unchanged on any
 * error. None of them allocates unless it says so. */

/* Creates an empty scene. desc may be NULL (all defaults). Fails with INVALID_ARGUMENT when
 * out is NULL, OUT_OF_MEMORY when the allocator fails. Free with oroya_scene_destroy. */
oroya_result oroya_scene_create(const oroya_scene_desc *desc, oroya_scene **out);

/* Frees the scene, its nodes, names and weights. Attached geometries, materials and skins
 * are not freed (the caller owns them). NULL is accepted. */
void oroya_scene_destroy(oroya_scene *scene);

/* Adds a node as the last child of `parent` ({0}: top level), with the identity transform,
 * visible. name may be NULL or "" (unnamed); names need not be unique; the name is copied.
 * The new node goes at the end of the dense arrays, so existing dense indices do not move,
 * but the layout version still increments. World matrix of the new node: its parent's last
 * computed world matrix (identity at the top level) until the next update_world.
 * Errors: INVALID_ARGUMENT (NULL scene or out, bad kind, malformed parent handle),
 * STALE_HANDLE (parent was removed), LIMIT (OROYA_SCENE_MAX_NODES), OUT_OF_MEMORY. On error
 * the scene is unchanged and *out is {0}. */
oroya_result oroya_scene_add_node(oroya_scene *scene, const char *name, oroya_node parent,
                                  oroya_node_kind kind, oroya_node *out);

/* Removes the node and its whole subtree. Every handle into the subtree becomes stale. The
 * remaining nodes keep their relative dense order (so indices after the removed ones move
 * down) and the layout version increments. Never allocates. Errors: INVALID_ARGUMENT (NULL
 * scene, handle {0} or malformed), STALE_HANDLE. */
oroya_result oroya_scene_remove_node(oroya_scene *scene, oroya_node node);

/* Makes `node` the last child of `parent` ({0}: top level), as three.js's Object3D.add does:
 * the local transform is kept, so the world transform changes. Re-parenting to the current
 * parent moves the node to the end of its siblings. When the new parent comes after the node
 * in dense order, the node's subtree is moved to the end of the dense arrays (this allocates
 * a temporary the size of the subtree). The layout version increments.
 * Errors: INVALID_ARGUMENT, STALE_HANDLE, CYCLE (parent is the node or one of its
 * descendants), OUT_OF_MEMORY. On error the scene is unchanged. */
oroya_result oroya_scene_set_parent(oroya_scene *scene, oroya_node node, oroya_node parent);

/* Like set_parent, but keeps the node's world transform, as three.js's Object3D.attach does:
 * the new local transform is decompose(inverse(parent world) * node world), using the world
 * matrices of the last update_world. Shear that TRS cannot hold (non-uniform scale under a
 * rotated parent) is lost, as in three.js; so is the orientation of a node with a zero scale
 * axis (decompose gives it the identity rotation). Errors: those of set_parent,
 * INVALID_ARGUMENT when the new parent's world matrix is singular or its inverse does not fit
 * in float (oroya_mat4_invert_affine), and NON_FINITE when the new local transform overflows
 * float (a tiny parent scale under a far node); nothing changes then. */
oroya_result oroya_scene_attach(oroya_scene *scene, oroya_node node, oroya_node parent);

/* The first node in dense order whose name equals `name` (byte comparison). A linear scan:
 * resolve names once, not per frame. Errors: INVALID_ARGUMENT (NULL scene, out or name, or
 * name ""), NOT_FOUND. *out is {0} on error. */
oroya_result oroya_scene_find_node(const oroya_scene *scene, const char *name, oroya_node *out);

/* true when node refers to a live node of this scene. Never fails; {0} gives false. */
bool oroya_scene_node_valid(const oroya_scene *scene, oroya_node node);

/* The node's name, owned by the scene, valid until the node is removed or renamed
 * (oroya_scene_set_name frees the old string: copy the name to keep it across a rename); ""
 * when unnamed or when the handle is invalid. Never NULL. */
const char *oroya_scene_node_name(const oroya_scene *scene, oroya_node node);

/* Renames a node (the name is copied; NULL or "" clears it). Errors: INVALID_ARGUMENT,
 * STALE_HANDLE, OUT_OF_MEMORY (the old name is then kept). */
oroya_result oroya_scene_set_name(oroya_scene *scene, oroya_node node, const char *name);

/* The kind the node was created with. */
oroya_result oroya_scene_node_kind(const oroya_scene *scene, oroya_node node, oroya_node_kind *out);

/* The parent handle, {0} for a top-level node. */
oroya_result oroya_scene_get_parent(const oroya_scene *scene, oroya_node node, oroya_node *out);

/* Number of children of node; node {0} gives the number of top-level nodes. 0 for an invalid
 * handle. */
uint32_t oroya_scene_child_count(const oroya_scene *scene, oroya_node node);

/* The i-th child in insertion order (three.js's children[i]); node {0}: the i-th top-level
 * node. O(i): iterate children with a loop over i only for small counts, or walk the dense
 * parent indices. Errors: INVALID_ARGUMENT, STALE_HANDLE, OUT_OF_RANGE (i >= child count). */
oroya_result oroya_scene_get_child(const oroya_scene *scene, oroya_node node, uint32_t i,
                                   oroya_node *out);

/* The local transform (what set_transform or the mixer last wrote). */
oroya_result oroya_scene_get_transform(const oroya_scene *scene, oroya_node node,
                                       oroya_transform *out);

/* Sets the local transform. Non-finite components are refused with NON_FINITE, and so are
 * finite ones whose local matrix would not be finite (a rotation of (1e20, 0, 0, 1e20)
 * squares past the float range). The dense array written directly by the mixer is not
 * checked here; update_world guards it. */
oroya_result oroya_scene_set_transform(oroya_scene *scene, oroya_node node,
                                       const oroya_transform *t);

/* The node's own visible flag (three.js Object3D.visible). A node is drawn only when it
 * and all its ancestors are visible: see oroya_scene_world_visible(). */
oroya_result oroya_scene_set_visible(oroya_scene *scene, oroya_node node, bool visible);
oroya_result oroya_scene_get_visible(const oroya_scene *scene, oroya_node node, bool *out);

/* For every node in dense order: local = compose(T, R, S) and world = parent.world * local
 * (world = local at the top level); also the effective visibility (own flag AND parent's).
 * One forward pass over the dense arrays; never allocates. NULL scene is a no-op.
 * World matrices are always finite: a node whose world matrix would not be (a huge
 * transform in the dense array, or an overflow along the chain such as a parent scale of
 * 1e30 times a child translation of 1e10) gets the identity local matrix and its parent's
 * world matrix (identity at the top), so it sits at its parent's origin, and is counted by
 * oroya_scene_non_finite_count. */
void oroya_scene_update_world(oroya_scene *scene);

/* The number of nodes the last update_world had to replace (see there), 0 when all were
 * finite; *first (may be NULL) gets the first of them in dense order, {0} when none or when
 * that node has been removed since. Callers
 * that print or render world matrices check it and report the node. Never allocates. */
uint32_t oroya_scene_non_finite_count(const oroya_scene *scene, oroya_node *first);

/* The world / local matrix of a node as of the last update_world. */
oroya_result oroya_scene_get_world(const oroya_scene *scene, oroya_node node, oroya_mat4 *out);
oroya_result oroya_scene_get_local(const oroya_scene *scene, oroya_node node, oroya_mat4 *out);

/* Morph-target weights on a node (glTF `weights`). set_weight_count allocates `count` floats
 * (values below the old count are kept, new ones are 0; count 0 frees them); the pointer from
 * oroya_scene_weights then stays valid until the node is removed or the count changes.
 * Errors: INVALID_ARGUMENT, STALE_HANDLE, OUT_OF_MEMORY (old weights kept). */
oroya_result oroya_scene_set_weight_count(oroya_scene *scene, oroya_node node, uint32_t count);
/* The node's weights, *count set to their number (count may be NULL); NULL and *count 0 when
 * the node has none or the handle is invalid. */
float *oroya_scene_weights(oroya_scene *scene, oroya_node node, uint32_t *count);

/* ---- dense access (hot path) -----------------------------------------------------------
 * All arrays have oroya_scene_node_count() entries, in dense order (parents before
 * children). Pointers stay valid until the next add, remove or re-parent (a growing scene
 * may reallocate). None of these allocate; NULL scene gives 0 / NULL / {0}. */

uint32_t oroya_scene_node_count(const oroya_scene *scene);
/* Dense index of a node, OROYA_SCENE_NO_INDEX when the handle is invalid or stale. */
uint32_t oroya_scene_node_index(const oroya_scene *scene, oroya_node node);
/* Increments on every add, remove and re-parent. Starts at 1. */
uint32_t oroya_scene_layout_version(const oroya_scene *scene);
/* Writable local transforms: the mixer writes here every frame. */
oroya_transform *oroya_scene_transforms(oroya_scene *scene);
/* World and local matrices, valid after update_world. */
const oroya_mat4 *oroya_scene_world_matrices(const oroya_scene *scene);
const oroya_mat4 *oroya_scene_local_matrices(const oroya_scene *scene);
/* Parent dense index per node, OROYA_SCENE_NO_INDEX for top-level nodes; always less than
 * the node's own index. */
const uint32_t *oroya_scene_parent_indices(const oroya_scene *scene);
/* Kind per node (an oroya_node_kind value stored in a byte), e.g. for the renderer to pick
 * meshes or a skeleton to pick bones without a call per node. */
const uint8_t *oroya_scene_kinds(const oroya_scene *scene);
/* Effective visibility per node (1 or 0), valid after update_world. */
const uint8_t *oroya_scene_world_visible(const oroya_scene *scene);
/* The handle of the node at a dense index; {0} when index >= node_count. */
oroya_node oroya_scene_node_at(const oroya_scene *scene, uint32_t index);

/* ---- materials -------------------------------------------------------------------------- */

/* A metallic-roughness material (glTF pbrMetallicRoughness, three.js MeshStandardMaterial).
 * Plain data owned by the caller; meshes point to it, so several meshes share one. */
typedef struct oroya_material {
    float base_color[4]; /* linear RGBA, each 0..1 */
    float metallic;      /* 0..1 */
    float roughness;     /* 0..1 */
    bool double_sided;   /* draw back faces too */
} oroya_material;

/* White, metallic 0, roughness 1, single-sided: three.js MeshStandardMaterial's defaults
 * (glTF's own default metallic is 1; the glTF loader sets its values explicitly). */
oroya_material oroya_material_default(void);

/* ---- components: mesh, camera, light, skin ---------------------------------------------- */

/* Attaches a geometry and a material to a node (any kind). geometry NULL detaches the mesh;
 * material NULL uses the built-in oroya_material_default(). Both are borrowed: they must
 * outlive the attachment. Clears any color override. Errors: INVALID_ARGUMENT,
 * STALE_HANDLE. */
oroya_result oroya_scene_set_mesh(oroya_scene *scene, oroya_node node,
                                  const oroya_geometry *geometry, const oroya_material *material);
/* The attached geometry and material (either out may be NULL). NOT_FOUND when the node has
 * no mesh; the material is never NULL when a mesh is attached. */
oroya_result oroya_scene_get_mesh(const oroya_scene *scene, oroya_node node,
                                  const oroya_geometry **geometry, const oroya_material **material);
/* Per-mesh color override: this node draws with `rgba` instead of the material's base
 * color, leaving the shared material alone. rgba NULL clears the override. Errors:
 * INVALID_ARGUMENT, STALE_HANDLE, NOT_FOUND (no mesh), NON_FINITE. */
oroya_result oroya_scene_set_mesh_color(oroya_scene *scene, oroya_node node, const float *rgba);
/* The color the node draws with: the override when set, else the material's base color. */
oroya_result oroya_scene_get_mesh_color(const oroya_scene *scene, oroya_node node, float out[4]);

/* Skinning slot, filled by the skin module: an opaque pointer the scene stores for the node
 * and never dereferences or frees. NULL detaches. The skin module documents its type. */
oroya_result oroya_scene_set_skin(oroya_scene *scene, oroya_node node, void *skin);
void *oroya_scene_get_skin(const oroya_scene *scene, oroya_node node); /* NULL if none */

typedef enum oroya_camera_type {
    OROYA_CAMERA_PERSPECTIVE = 0,
    OROYA_CAMERA_ORTHOGRAPHIC
} oroya_camera_type;

/* A camera looking down its node's -Z axis with +Y up (three.js and glTF). Fields named as
 * in glTF (znear/zfar) to stay clear of the `near`/`far` macros some platforms define. */
typedef struct oroya_camera {
    oroya_camera_type type;
    float fov_y;  /* perspective: vertical field of view in DEGREES, as three.js; (0, 180) */
    float aspect; /* perspective: width / height, > 0 */
    float left, right, top, bottom; /* orthographic: frustum planes at the near plane */
    float znear;                    /* > 0 for perspective; != zfar */
    float zfar;
    float zoom; /* three.js zoom; > 0. 1 for no zoom */
} oroya_camera;

/* three.js PerspectiveCamera(fov_y, aspect, znear, zfar) with zoom 1. */
oroya_camera oroya_camera_perspective(float fov_y_degrees, float aspect, float znear, float zfar);
/* three.js OrthographicCamera(left, right, top, bottom, znear, zfar) with zoom 1. */
oroya_camera oroya_camera_orthographic(float left, float right, float top, float bottom,
                                       float znear, float zfar);
/* The projection matrix exactly as three.js's updateProjectionMatrix builds it (WebGL clip
 * space, z in [-1, 1]; no view offset or film offset). Errors: INVALID_ARGUMENT (NULL, bad
 * type, degenerate frustum: zero width/height/depth, fov outside (0, 180), znear <= 0 in
 * perspective, zoom <= 0), NON_FINITE. */
oroya_result oroya_camera_projection(const oroya_camera *camera, oroya_mat4 *out);

oroya_result oroya_scene_set_camera(oroya_scene *scene, oroya_node node,
                                    const oroya_camera *camera); /* NULL detaches */
oroya_result oroya_scene_get_camera(const oroya_scene *scene, oroya_node node,
                                    oroya_camera *out); /* NOT_FOUND when none */
/* The view matrix of a camera node: the inverse of its world matrix (as of the last
 * update_world). Errors: INVALID_ARGUMENT (also: a singular world matrix, or one whose inverse
 * does not fit in float, such as a scale of 1e-39), STALE_HANDLE. */
oroya_result oroya_scene_camera_view(const oroya_scene *scene, oroya_node node, oroya_mat4 *out);

typedef enum oroya_light_type {
    OROYA_LIGHT_DIRECTIONAL = 0, /* shines along its node's -Z axis (glTF) */
    OROYA_LIGHT_POINT,           /* at its node's origin */
    OROYA_LIGHT_AMBIENT          /* everywhere, no direction */
} oroya_light_type;

typedef struct oroya_light {
    oroya_light_type type;
    float color[3];  /* linear RGB, 0..1 */
    float intensity; /* >= 0 */
    float distance;  /* point: range; 0 = unlimited (three.js) */
    float decay;     /* point: falloff exponent; three.js default 2 */
} oroya_light;

/* White light of intensity 1 of the given type; point lights get distance 0, decay 2 (the
 * three.js defaults). */
oroya_light oroya_light_make(oroya_light_type type);

/* Errors: INVALID_ARGUMENT (bad type, negative intensity/distance/decay), NON_FINITE,
 * STALE_HANDLE. NULL detaches. */
oroya_result oroya_scene_set_light(oroya_scene *scene, oroya_node node, const oroya_light *light);
oroya_result oroya_scene_get_light(const oroya_scene *scene, oroya_node node,
                                   oroya_light *out); /* NOT_FOUND when none */

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_SCENE_H */
