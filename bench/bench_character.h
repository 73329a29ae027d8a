/* bench_character.h - the benchmark's characters, built in memory: a humanoid skeleton of any
 * joint count, walk/run/wave clips keyed at 30 Hz, and a skinned capsule body of about any
 * vertex count. No file is read, so `oroya bench` runs from any folder.
 *
 * The objects are the ones the glTF importer gives (oroya/gltf.h): a scene whose joints are
 * OROYA_NODE_BONE nodes (joint i is nodes[i], parents before children) with a top-level
 * "body" OROYA_NODE_SKINNED_MESH node, an oroya_skeleton over the joints with the inverse
 * bind matrices, the body's geometry and its bound oroya_skin (identity bind matrix, attached
 * mode), and oroya_clips that target the joints by name. For the pose layer it also gives the
 * arrays an oroya_pose_skeleton_desc takes (parents, local rest transforms, inverse binds,
 * names) and an oroya_pose_skeleton built from them. oroya_gltf_write writes it as a file.
 *
 * The default (67 joints, 10,000 or 100,000 target vertices) is the benchmark data set
 * docs/performance.md describes: hips root; spine x4, neck x2, head, head_end, jaw, eyes;
 * per arm shoulder, upper arm (+ twist), lower arm (+ twist), hand, five fingers of three
 * joints (+ prop_R on the right hand); per leg upper leg (+ twist), lower leg, foot, toe,
 * toe_end. Meters, +Y up, facing +Z, left = +X, T-pose rest; every joint's local +Y points
 * along its bone, so rest rotations and inverse binds are real rotations. Clips (keys at k/30
 * s, the last key equal to the first bit for bit):
 *   walk        1.2 s, 37 keys: LINEAR rotations of every joint + LINEAR hips translation
 *   run         0.7 s, 22 keys: the same layout
 *   wave        2.0 s, 61 keys: LINEAR rotations of the 6 right-arm joints (shoulder, upper
 *               arm + twist, lower arm + twist, hand), absolute local rotations = rest * delta,
 *               meant as an additive layer against the rest pose
 *   walk_cubic  1.2 s, 37 keys: the walk rotations as CUBICSPLINE (central differences over
 *               the loop, in = out tangents) + LINEAR hips translation
 * Body: one capsule per bone with normals, 4 influences per vertex (the 4 nearest bones among
 * those within 3 hierarchy hops, weight ~ 1/d^4, multiples of 1/65536 that sum to exactly 1).
 *
 * Other joint counts: below 67 the least important joints go first (finger tips, then
 * fingers, end joints, eyes, twists, toes, hands ...; the spine, neck, head and legs stay
 * longest); above 67, chains of up to 8 joints hang from the head, spine3 and hips, each with
 * a capsule and a small sway in walk and run. The wave clip animates the right-arm joints that
 * remain (at least one track: the last joint when no arm joint is left).
 *
 * Everything is deterministic (the same joint and vertex counts give the same floats). The
 * build is load-time work: it allocates, and its cost grows with joints x vertices. Each
 * capsule has at least 20 vertices, so a skeleton of many joints has a floor on its body. */
#ifndef OROYA_BENCH_CHARACTER_H
#define OROYA_BENCH_CHARACTER_H

#include "oroya/base.h"
#include "oroya/clip.h"
#include "oroya/geometry.h"
#include "oroya/pose.h"
#include "oroya/scene.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_CHARACTER_JOINTS 67 /* the default skeleton */
#define BENCH_CHARACTER_MAX_JOINTS OROYA_POSE_MAX_JOINTS
#define BENCH_CHARACTER_MAX_VERTICES 8000000u
#define BENCH_CHARACTER_CLIPS 4 /* walk, run, wave, walk_cubic */

typedef struct bench_character_desc {
    uint32_t joint_count;      /* 1 .. BENCH_CHARACTER_MAX_JOINTS; 0 = 67 */
    uint32_t vertex_count;     /* target vertex count of the body (the result is
                                              the nearest the capsule tessellation allows);
                                              0 = no body (no geometry, no skin) */
    bool streams_only;         /* true: the body's vertex streams only, without a
                                              geometry or skin in the scene (for large
                                              skinning runs: one copy of the data) */
    oroya_allocator allocator; /* zero = malloc/free; used for everything */
} bench_character_desc;

typedef struct bench_character {
    uint32_t joint_count;
    /* Pose-layer inputs, joint_count each (oroya_pose_skeleton_desc). */
    const uint32_t *parents;     /* UINT32_MAX for the root */
    const oroya_transform *rest; /* local rest TRS (scale 1) */
    const oroya_mat4 *inverse_bind;
    const char *const *names;
    oroya_pose_skeleton *pose_skeleton; /* built from the arrays above */
    /* What the glTF importer gives. */
    oroya_scene *scene;
    const oroya_node *nodes;                  /* joint_count + 1: the joints, then "body" */
    oroya_skeleton *skeleton;                 /* bones = the joints, inverses = inverse_bind */
    oroya_clip *clips[BENCH_CHARACTER_CLIPS]; /* walk, run, wave, walk_cubic */
    oroya_geometry *geometry;                 /* NULL without a body or with streams_only */
    oroya_skin *skin;                         /* the same; bound to `skeleton` */
    /* The body's vertex streams (the skin's copies, or the character's own with
     * streams_only; NULL without a body). */
    uint32_t vertex_count;
    const float *positions, *normals, *weights; /* 3, 3 and 4 per vertex */
    const uint16_t *joints;                     /* 4 per vertex */
    uint32_t triangle_count;
    /* private */
    void *priv_;
    oroya_allocator allocator_;
} bench_character;

/* Builds a character. desc may be NULL (67 joints, no body). On error *out is zeroed.
 * Errors: INVALID_ARGUMENT (NULL out, a count out of range), OUT_OF_MEMORY, and any error of
 * the oroya calls that build the objects. */
oroya_result bench_character_create(const bench_character_desc *desc, bench_character *out,
                                    oroya_error *err);

/* Frees everything; c may be zeroed or NULL. */
void bench_character_free(bench_character *c);

/* The clip named `name` ("walk", "run", "wave", "walk_cubic"), or NULL. */
const oroya_clip *bench_character_clip(const bench_character *c, const char *name);

#ifdef __cplusplus
}
#endif

#endif
