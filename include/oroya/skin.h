/* oroya/skin.h - skinned meshes: skin weights, binding and CPU skinning.
 *
 * A skinned mesh is a mesh whose vertices follow a skeleton (oroya/skeleton.h). Each vertex
 * names up to four bones (`joints`, u16, indices into the skeleton's bone array) with four
 * weights, plus an optional second set of four for eight influences. Skinning moves a
 * mesh-space rest vertex v to
 *
 *     v' = bind_matrix_inverse * sum_i w_i * bone_matrix_i * bind_matrix * v
 *
 * where bone_matrix_i = bone_world_i * bone_inverse_i is the skeleton's palette. This is
 * three.js's SkinnedMesh.getVertexPosition, and oroya matches it within 1e-5.
 *
 * This header has two layers:
 *   - span functions that need nothing but arrays: oroya_skin_job (CPU skinning of a range
 *     of vertices, the per-frame work), oroya_skin_check_influences (the bind-time
 *     diagnostics) and oroya_skin_normalize_weight_arrays (three.js's normalizeSkinWeights);
 *   - oroya_skin, a skinned mesh bound to a scene node and a skeleton (three.js's
 *     SkinnedMesh.bind, bind modes, bind_matrix_inverse), built on the span layer.
 *
 * What it does not do: it does not load anything (oroya/gltf.h does), does not upload to a
 * GPU (the renderer uploads the skeleton's bone texture and skins in its vertex shader), and
 * does not morph.
 *
 * The scene's skin slot (oroya_scene_set_skin / oroya_scene_get_skin) holds an oroya_skin *.
 *
 * Ownership and threading: span functions read their inputs and write only their outputs; a
 * job may run on any thread, and disjoint vertex ranges of one mesh may run on several
 * threads at once. Nothing here allocates except oroya_skin_create. An oroya_skin is not
 * thread-safe; use one thread per skin at a time.
 *
 * Example (given: uint32_t vertex_count, const float *rest, const uint16_t *joints, const float *weights, const oroya_skeleton *skeleton, float *skinned):
 *   oroya_skin_job job = {
 *       .count = vertex_count, .positions = rest, .joints = joints, .weights = weights,
 *       .palette_count = skeleton->bone_count, .palette = skeleton->bone_matrices,
 *       .out_positions = skinned,
 *   };
 *   oroya_error err = {0};
 *   if (oroya_skin_job_run(&job, &err) != OROYA_OK) fprintf(stderr, "%s\n", err.message);
 */
#ifndef OROYA_SKIN_H
#define OROYA_SKIN_H

#include "oroya/base.h"
#include "oroya/math.h"
#include "oroya/scene.h"
#include "oroya/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

/* The joint limits of CPU skinning, the same for every entry point (oroya_skin_job_run,
 * oroya_skin_compute and the deprecated oroya_pose_skin_run):
 *   - a palette holds at most OROYA_SKIN_MAX_PALETTE matrices (joint indices are u16);
 *   - up to OROYA_MAX_JOINTS matrices are handled on the stack (16 floats each, 16 KiB at
 *     256): the bind-matrix precombination, and the copy of a palette that is not 64-byte
 *     aligned into an aligned buffer. A job with a bind matrix and more matrices than that
 *     needs job.scratch (oroya_skin_bind allocates it for a skin). */
#define OROYA_SKIN_MAX_PALETTE 32767
#define OROYA_MAX_JOINTS 256

/* CPU skinning of `count` vertices. Every span holds `count` vertices; to split a mesh across
 * threads, offset every per-vertex pointer by the same first vertex and share the rest.
 * Matrices are column-major float[16]; their bottom row is taken to be (0, 0, 0, 1). */
typedef struct oroya_skin_job {
    uint32_t count;                   /* vertices in every per-vertex span */
    const float *positions;           /* 3 * count, mesh-space rest positions; required */
    const float *normals;             /* 3 * count rest normals; optional, with out_normals */
    const uint16_t *joints;           /* 4 * count palette indices; required */
    const float *weights;             /* 4 * count; required; a weight of exactly 0 is skipped */
    const uint16_t *joints2;          /* 4 * count, influences 5-8; optional, with weights2 */
    const float *weights2;            /* 4 * count; optional, with joints2 */
    uint32_t palette_count;           /* matrices in palette, 0 .. OROYA_SKIN_MAX_PALETTE */
    const float *palette;             /* 16 * palette_count: bone_world x bone_inverse per bone,
                                        e.g. oroya_mixer_bone_matrices(...)[0].m or a
                                        skeleton's bone_matrices; 64-byte aligned is fastest */
    const float *bind_matrix;         /* 16; NULL = identity */
    const float *bind_matrix_inverse; /* 16; NULL = identity */
    float *scratch;                   /* 16 * palette_count floats, or NULL: see OROYA_MAX_JOINTS */
    float *out_positions;             /* 3 * count; required; may be `positions` (in place) */
    float *out_normals;               /* 3 * count, unit (zero stays zero; so does a blended
                                         normal shorter than about 1e-19 or longer than about
                                         1e19, whose square float cannot hold: see
                                         docs/skinning.md); may be `normals` */
    float *out_bounds;                /* 6 floats: min xyz, max xyz of out_positions; optional
                                         (count 0: +inf then -inf, three.js's empty Box3) */
} oroya_skin_job;

/* Checks a job completely, O(count + palette_count). Errors (the message names the vertex
 * where there is one):
 *   OROYA_ERR_INVALID_ARGUMENT  NULL job; a required span missing (with count > 0);
 *                               normals/out_normals or joints2/weights2 not paired; palette
 *                               NULL with palette_count > 0;
 *   OROYA_ERR_LIMIT             palette_count > OROYA_SKIN_MAX_PALETTE; a bind matrix, no
 *                               scratch and palette_count > OROYA_MAX_JOINTS;
 *   OROYA_ERR_NON_FINITE        a palette or bind matrix entry, a position, a normal or a
 *                               weight;
 *   OROYA_ERR_OUT_OF_RANGE      a non-zero weight on a joint >= palette_count.
 * Finite inputs whose products pass float (a palette entry of 1e30 on a position of 1e10)
 * are not found here: the outputs are then inf (oroya_skin_compute checks its outputs).
 * oroya_skin_job_run repeats only the O(1) checks. Never allocates. */
oroya_result oroya_skin_job_validate(const oroya_skin_job *job, oroya_error *err);

/* Skins job->count vertices into the output spans: oroya's one CPU skinning job. Matches
 * three.js's getVertexPosition: influences with weight 0 are skipped (their joint is never
 * read), the weights are used as given (not renormalized), and when they do not sum to 1 the
 * result is what three.js computes on the CPU (the bind matrix inverse's translation counted
 * once, not sum(w) times as three's vertex shader does). Normals go through the linear part
 * of the same matrices, then are renormalized. With bind matrices, each palette entry is
 * first combined into bind_matrix_inverse * bone * bind_matrix (in double) in job->scratch
 * or a bounded stack buffer.
 * The vertex loop is SIMD (SSE2, or AVX2+FMA or AVX-512F when the CPU has them, picked at
 * run time) for the common case: 4 influences, every joint index < palette_count, a finite
 * palette and outputs that are not the inputs. 8 influences, in-place jobs, joints out of
 * range and non-finite palettes go through a general loop (4-wide SSE2 too) that skips zero
 * weights one by one.
 * Checks: the O(1) ones of oroya_skin_job_validate before starting, and out-of-range
 * joints during the loop (reported after it, naming the first vertex; that influence is
 * skipped). Non-finite inputs are not checked here and give non-finite outputs: validate
 * untrusted data once. On error the outputs are unspecified. Never allocates. */
oroya_result oroya_skin_job_run(const oroya_skin_job *job, oroya_error *err);

/* The bind-time diagnostics over influence spans (joints2/weights2 may be NULL). For each
 * vertex, in order, the first problem found is an error naming the vertex and influence:
 *   - a weight that is NaN or infinite: OROYA_ERR_NON_FINITE;
 *   - a negative weight: OROYA_ERR_INVALID_DATA;
 *   - a joint index >= bone_count with a non-zero weight: OROYA_ERR_OUT_OF_RANGE (with a zero
 *     weight the index is never read, as in three.js, so it is allowed);
 *   - all weights zero (the vertex would collapse to the origin): OROYA_ERR_INVALID_DATA.
 * The message also counts the further bad vertices. Returns OROYA_OK for count 0. */
oroya_result oroya_skin_check_influences(const uint16_t *joints, const float *weights,
                                         const uint16_t *joints2, const float *weights2,
                                         uint32_t count, uint32_t bone_count, oroya_error *err);

/* three.js's SkinnedMesh.normalizeSkinWeights, in place, over 4 (or 8 with weights2) weights
 * per vertex: each weight is divided by the sum of their absolute values (computed in double);
 * a vertex whose sum is 0 becomes (1, 0, 0, 0 ...). Negative weights stay negative and NaN
 * stays NaN, so oroya_skin_check_influences still reports them afterwards. NULL weights is a
 * no-op. Never allocates. */
void oroya_skin_normalize_weight_arrays(float *weights, float *weights2, uint32_t count);
/* Deprecated: the old name of oroya_skin_normalize_weight_arrays. */
OROYA_DEPRECATED("use oroya_skin_normalize_weight_arrays")
void oroya_skin_weights_normalize(float *weights, float *weights2, uint32_t count);

/* ---- skinned meshes ---------------------------------------------------------------------- */

/* three.js AttachedBindMode / DetachedBindMode. Attached: the mesh and the skeleton share a
 * world space, so bind_matrix_inverse follows the mesh node's world matrix every update.
 * Detached: bind_matrix_inverse stays inverse(bind_matrix) (a skeleton shared by several
 * meshes, or a mesh that moves independently of its bones). */
typedef enum oroya_bind_mode { OROYA_BIND_ATTACHED = 0, OROYA_BIND_DETACHED } oroya_bind_mode;

/* The mesh data a skin deforms. Every array is copied at create. The fields match
 * oroya_geometry's (positions, normals, joints, weights), so a geometry's arrays can be
 * passed as they are. */
typedef struct oroya_skin_desc {
    oroya_node mesh;           /* the skinned mesh node; required */
    uint32_t vertex_count;     /* > 0 */
    const float *positions;    /* 3 * vertex_count mesh-space rest positions; required */
    const float *normals;      /* 3 * vertex_count; optional */
    const uint16_t *joints;    /* 4 * vertex_count skeleton bone indices; required */
    const float *weights;      /* 4 * vertex_count; required */
    const uint16_t *joints2;   /* 4 * vertex_count, influences 5-8; optional */
    const float *weights2;     /* with joints2 */
    oroya_allocator allocator; /* zero: malloc/free */
} oroya_skin_desc;

/* A skinned mesh (three.js SkinnedMesh without the rendering part). Transparent and
 * read-only; fields ending in `_` are private. */
typedef struct oroya_skin {
    oroya_node mesh;
    uint32_t vertex_count;
    const float *positions;         /* 3 * vertex_count */
    const float *normals;           /* 3 * vertex_count or NULL */
    const uint16_t *joints;         /* 4 * vertex_count */
    const float *weights;           /* 4 * vertex_count (oroya_skin_normalize_weights edits) */
    const uint16_t *joints2;        /* or NULL */
    const float *weights2;          /* or NULL */
    const oroya_skeleton *skeleton; /* NULL until bound; not owned */
    oroya_bind_mode bind_mode;      /* OROYA_BIND_ATTACHED by default */
    oroya_mat4 bind_matrix;         /* the mesh's world matrix at bind (or the one given) */
    oroya_mat4 bind_matrix_inverse; /* see oroya_bind_mode */
    /* private */
    float *weights_;
    float *weights2_;
    float *scratch_; /* 16 * scratch_count_ floats for the skinning job */
    uint32_t scratch_count_;
    oroya_allocator allocator_;
} oroya_skin;

/* Copies desc's arrays into one new skin (not yet bound). Structure only: the influences are
 * checked against the skeleton at bind. Errors: INVALID_ARGUMENT (NULL desc or out, missing
 * arrays, vertex_count 0, joints2 without weights2), NON_FINITE (a position or normal),
 * OUT_OF_MEMORY. *out is NULL on error. */
oroya_result oroya_skin_create(const oroya_skin_desc *desc, oroya_skin **out, oroya_error *err);

/* Frees the skin (not its skeleton). NULL is accepted. */
void oroya_skin_destroy(oroya_skin *skin);

/* three.js SkinnedMesh.normalizeSkinWeights on the skin's copy of the weights (see
 * oroya_skin_normalize_weight_arrays). Call before bind. NULL is a no-op. Never allocates. */
void oroya_skin_normalize_weights(oroya_skin *skin);

/* three.js SkinnedMesh.bind(skeleton, bindMatrix). First the influences are checked against
 * the skeleton (oroya_skin_check_influences: a bone index out of range, all-zero weights, a
 * negative or non-finite weight are errors naming the vertex). Then:
 *   - bind_matrix NULL: oroya_scene_update_world(scene), oroya_skeleton_calculate_inverses
 *     (the bones' current pose becomes the bind pose), and bind_matrix = the mesh node's
 *     world matrix. So pose the bones and parent them BEFORE binding.
 *   - bind_matrix given: used as is; the skeleton's inverses are left alone.
 * bind_matrix_inverse = inverse(bind_matrix), in double. The skeleton is borrowed and must
 * outlive the binding; the bind mode is unchanged. May allocate (job scratch for skeletons
 * over OROYA_MAX_JOINTS bones). Errors: INVALID_ARGUMENT (NULL skin, scene or skeleton;
 * singular bind matrix), STALE_HANDLE (mesh node or a bone), OUT_OF_RANGE, INVALID_DATA,
 * NON_FINITE, OUT_OF_MEMORY. On error the skin is unchanged. */
oroya_result oroya_skin_bind(oroya_skin *skin, oroya_scene *scene, oroya_skeleton *skeleton,
                             const oroya_mat4 *bind_matrix, oroya_error *err);

/* Sets the bind mode (three.js's bindMode field); takes effect at the next oroya_skin_update.
 * Errors: INVALID_ARGUMENT (NULL skin, unknown mode). */
oroya_result oroya_skin_set_bind_mode(oroya_skin *skin, oroya_bind_mode mode);

/* The per-frame part of three.js's SkinnedMesh.updateMatrixWorld, after
 * oroya_scene_update_world: attached, bind_matrix_inverse = inverse(world of the mesh node);
 * detached, inverse(bind_matrix); a singular matrix gives zero, as in three.js. Errors:
 * INVALID_ARGUMENT (NULL), STALE_HANDLE (mesh node removed), NON_FINITE (the inverse
 * overflows float: a scale near 0 such as 1e-39); the skin is then unchanged. Never
 * allocates. */
oroya_result oroya_skin_update(oroya_skin *skin, const oroya_scene *scene, oroya_error *err);

/* CPU-skins every vertex to mesh space (three.js getVertexPosition for every vertex, with
 * the normals alongside): an oroya_skin_job over the skin's arrays with the skeleton's
 * bone_matrices as palette and the skin's bind matrices. Reads the skeleton's bone_matrices
 * as of its last oroya_skeleton_update; for three.js's numbers run, per frame:
 * oroya_scene_update_world, oroya_skeleton_update, oroya_skin_update, then this.
 * out_positions: 3 * vertex_count floats (required); out_normals: 3 * vertex_count or NULL
 * (ignored when the skin has no normals); out_bounds: 6 floats (min xyz, max xyz), the
 * skinned bounding box for culling, or NULL. Errors: INVALID_ARGUMENT (NULL skin or
 * out_positions, not bound), NON_FINITE (a skinned position or normal that float cannot hold,
 * naming the vertex: finite bone matrices and positions whose products overflow; the outputs
 * are then unspecified). Never allocates. Not thread-safe per skin (shared scratch). */
oroya_result oroya_skin_compute(oroya_skin *skin, float *out_positions, float *out_normals,
                                float *out_bounds, oroya_error *err);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_SKIN_H */
