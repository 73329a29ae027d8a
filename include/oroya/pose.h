/* oroya/pose.h - the data-oriented runtime layer: SoA local poses, sampling, blending,
 * additive layers, local-to-model, bone matrices, CPU skinning, and a batch API for crowds.
 *
 * What it does: the per-frame work of many characters, laid out for the CPU. At load time an
 * oroya_clip is converted into an oroya_pose_clip, a runtime format bound to one skeleton:
 * every joint has a translation, rotation and scale channel (untracked channels hold the rest
 * value), and each channel's keys are stored as [time, value] records so the pair of keys
 * needed at time t sits adjacent in memory. Each character (oroya_pose_character) keeps one
 * key cursor per channel and layer, so forward playback never searches. A frame samples every
 * layer, blends them (three.js semantics, below), writes local transforms as SoA blocks of 4
 * joints, then model matrices (parents before children, one forward pass) and bone matrices
 * (model x inverse bind) straight after.
 *
 * Blending follows three.js's PropertyMixer: normal layers are accumulated in order, the first
 * copied, each next one mixed in with weight w / (sum of weights so far + w) (slerp for
 * rotations, lerp otherwise); when the summed weight is below 1 the rest pose fills the
 * remainder. Additive layers then apply in order: q = q * slerp(identity, delta, w) and
 * t += w * delta, s += w * delta, where the deltas are the clip's keys relative to the rest
 * pose (made at clip build time, as AnimationUtils.makeClipAdditive does).
 * Sampling reproduces oroya_track_sample (STEP, LINEAR, CUBICSPLINE; SMOOTH and STERP
 * rotations sample as LINEAR, as there) within 1e-6, computed in float with SSE2 (except
 * CUBICSPLINE rotations: the kernel normalizes them also before the first and after the last
 * key, where oroya_track_sample returns the key as given, which may be up to
 * OROYA_CLIP_UNIT_TOLERANCE off unit; and a curve through zero, keys q then -q, is NaN in the
 * kernel, the identity in oroya_track_sample: see docs/pose.md); between two rotation keys
 * it takes oroya_track_sample's arc (decided in double) also where the float sign test would
 * not (keys a half turn apart: such a key is stored moved by about 1e-7, see docs/pose.md).
 *
 * What it does not do: time keeping, looping and events (pass clip-local times; see
 * oroya/mixer.h for three.js actions), scene binding, morph weights (WEIGHTS tracks are
 * ignored), SMOOTH translation/scale tracks (OROYA_ERR_UNSUPPORTED at clip build).
 *
 * Ownership: skeletons, clips and characters are one allocation each from the desc's
 * allocator, freed by their destroy call. A clip and a character keep a pointer to their
 * skeleton, which must outlive them. Nothing here allocates after create.
 *
 * Threading: skeletons and clips are read-only after create and may be shared by any number
 * of threads. A character is updated by one thread at a time; different characters may be
 * updated at once (that is what oroya_pose_update_batch does). Results are bit-identical
 * whatever the thread count, batch size or order.
 *
 * Example (given: uint32_t n, const uint32_t *p, const oroya_transform *rest, const oroya_mat4 *ibm, const char *const *names, const oroya_clip *clip, oroya_error err):
 *   oroya_pose_skeleton *skel; oroya_pose_clip *walk; oroya_pose_character *c;
 *   oroya_pose_skeleton_create(&(oroya_pose_skeleton_desc){.joint_count = n, .parents = p,
 *                              .rest = rest, .inverse_bind = ibm, .names = names}, &skel, &err);
 *   oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = skel, .clip = clip}, &walk, &err);
 *   oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = skel}, &c, &err);
 *   oroya_pose_layer layer = {.clip = walk, .time = 0.25f, .weight = 1};
 *   oroya_pose_character_update(c, &layer, 1, &err);
 *   const oroya_mat4 *bones = oroya_pose_character_bones(c);   // skinning palette
 */
#ifndef OROYA_POSE_H
#define OROYA_POSE_H

#include "oroya/base.h"
#include "oroya/clip.h"
#include "oroya/math.h"
#include "oroya/scene.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

#define OROYA_POSE_MAX_JOINTS 4096 /* joints of one skeleton */
#define OROYA_POSE_MAX_LAYERS 16   /* layers of one character */
#define OROYA_POSE_MAX_KEYS 65535  /* keys of one track in a runtime clip */
/* The largest layer weight oroya_pose_character_update takes, the mixer's OROYA_MAX_WEIGHT:
 * an additive layer scales its deltas by it, which past this leaves float (inf locals) or
 * turns its rotation into a non-unit one. */
#define OROYA_POSE_MAX_WEIGHT 1e6f

/* Local transforms of 4 joints, structure of arrays: lane i is joint 4 * block + i. Lanes past
 * the joint count hold the identity. 16-byte aligned (the type says so, so arrays of it on
 * the stack or in structs are; memory from malloc is too): the kernels load rows whole. */
#ifdef __cplusplus
#define OROYA_POSE_ALIGN16_ alignas(16)
#else
#define OROYA_POSE_ALIGN16_ _Alignas(16)
#endif
typedef struct oroya_soa_transform {
    OROYA_POSE_ALIGN16_ float tx[4];
    float ty[4], tz[4];
    float qx[4], qy[4], qz[4], qw[4];
    float sx[4], sy[4], sz[4];
} oroya_soa_transform;
#undef OROYA_POSE_ALIGN16_ /* (a name with two underscores in a row is reserved in C++) */

/* ---- skeleton -------------------------------------------------------------------------- */

typedef struct oroya_pose_skeleton oroya_pose_skeleton;

typedef struct oroya_pose_skeleton_desc {
    uint32_t joint_count;           /* 1 .. OROYA_POSE_MAX_JOINTS */
    const uint32_t *parents;        /* joint_count parent indices, UINT32_MAX for a root;
                                           parents[i] < i (parents before children); required */
    const oroya_transform *rest;    /* joint_count local rest transforms; NULL = identity */
    const oroya_mat4 *inverse_bind; /* joint_count inverse bind matrices; NULL = identity */
    const char *const *names;       /* joint_count names (copied) that clip tracks target;
                                           NULL = tracks bind by desc.track_joints only */
    const uint32_t *bone_slots;     /* joint_count: the index of each joint's bone matrix
                                           in oroya_pose_character_bones (a permutation of
                                           0 .. joint_count - 1, e.g. a skin's joint order when
                                           the joints here are sorted parents first); NULL =
                                           the joint's own index */
    oroya_allocator allocator;      /* zero = malloc/free */
} oroya_pose_skeleton_desc;

/* Validates and copies the desc into one allocation. Errors: INVALID_ARGUMENT (NULL desc,
 * out or parents, joint_count 0), LIMIT (more than OROYA_POSE_MAX_JOINTS), INVALID_DATA (a
 * parent not before its child; the message names the joint), NON_FINITE (a rest value or an
 * inverse bind matrix not finite, bone_slots not a permutation), OUT_OF_MEMORY. */
oroya_result oroya_pose_skeleton_create(const oroya_pose_skeleton_desc *desc,
                                        oroya_pose_skeleton **out, oroya_error *err);
void oroya_pose_skeleton_destroy(oroya_pose_skeleton *skeleton);               /* NULL ok */
uint32_t oroya_pose_skeleton_joint_count(const oroya_pose_skeleton *skeleton); /* 0 for NULL */
/* The joint named `name`, or UINT32_MAX (no names, NULL, not found). Not for per-frame use. */
uint32_t oroya_pose_skeleton_find(const oroya_pose_skeleton *skeleton, const char *name);
/* The rest pose as SoA blocks ((joint_count + 3) / 4 of them). */
const oroya_soa_transform *oroya_pose_skeleton_rest(const oroya_pose_skeleton *skeleton);

/* ---- runtime clips --------------------------------------------------------------------- */

typedef struct oroya_pose_clip oroya_pose_clip;

/* Key compression at load time (docs/compression.md): keys are reduced and quantized so that
 * every joint position and every virtual vertex (points at vertex_distance from each joint
 * along its local axes), in model space, stays within the tolerance of where the source clip
 * puts it. The bound is measured at create (at every key time, 0 and the duration, negative
 * key times included, and between each two consecutive ones at 120 Hz with at least 3 points
 * (the quarter points of a span 120 Hz samples fewer times) and at most 32, and, for cubic
 * sources, at the quarter points; through the kernel, against the source posed in double;
 * quantized rotation keys keep the source's arc between them); a clip that cannot meet it keeps more keys
 * and bits, down to float storage (STEP tracks always do), and so does one whose compressed
 * form would not be smaller. Cubic-spline sources are cut into the linear steps their curves
 * need (4 to 64 per key interval), and the measure also samples between those steps
 * (docs/compression.md, "Cubic-spline sources"). Errors: INVALID_ARGUMENT for a
 * tolerance, joint tolerance or vertex distance out of range, NaN or infinite, or a
 * tolerance below what float sampling reaches. */
#define OROYA_POSE_MAX_TOLERANCE 1e4f /* scene units */
typedef struct oroya_pose_compress {
    float tolerance;              /* scene units, in (0, OROYA_POSE_MAX_TOLERANCE] */
    float vertex_distance;        /* scene units, >= 0; 0 = 0.1 (10 cm in a metre scene) */
    const float *joint_tolerance; /* optional: joint_count tolerances, one per joint, each in
                                     (0, OROYA_POSE_MAX_TOLERANCE]; replaces `tolerance` */
} oroya_pose_compress;

typedef struct oroya_pose_clip_desc {
    const oroya_pose_skeleton *skeleton; /* required; must outlive the clip */
    const oroya_clip *clip;              /* required; only read during create */
    const uint32_t *track_joints;        /* clip->track_count joints, UINT32_MAX = ignore the
                                            track; NULL = bind each track's target by name */
    bool additive;                       /* store keys as deltas against the rest pose (for an
                                            additive layer); default: the clip's blend_mode */
    oroya_allocator allocator;           /* zero = malloc/free */
    const oroya_pose_compress *compress; /* NULL = keys stored as float, exactly; else
                                            compressed (docs/compression.md) */
} oroya_pose_clip_desc;

/* Builds the runtime format. Tracks whose target names no joint are ignored (counted in
 * oroya_pose_clip_ignored_tracks), as are WEIGHTS tracks; two tracks on one joint channel is
 * INVALID_DATA. Errors: INVALID_ARGUMENT (NULL, a track_joints entry out of range),
 * the clip's validation errors, UNSUPPORTED (a SMOOTH translation or scale track), LIMIT
 * (more than OROYA_POSE_MAX_KEYS keys; a CUBICSPLINE rotation track whose curve may reach past
 * 1e18 per component by the Hermite bound, max(|p0|, |p1|) + 4/27 (|m0| + |m1|) x the key gap:
 * the kernel samples in float, and gave a zero or NaN rotation; oroya_track_sample, in double,
 * and a rig's mixer sample it), OUT_OF_MEMORY. */
oroya_result oroya_pose_clip_create(const oroya_pose_clip_desc *desc, oroya_pose_clip **out,
                                    oroya_error *err);
void oroya_pose_clip_destroy(oroya_pose_clip *clip);           /* NULL ok */
float oroya_pose_clip_duration(const oroya_pose_clip *clip);   /* 0 for NULL */
bool oroya_pose_clip_is_additive(const oroya_pose_clip *clip); /* false for NULL */
OROYA_DEPRECATED("use oroya_pose_clip_is_additive")
bool oroya_pose_clip_additive(const oroya_pose_clip *clip); /* the old name */
uint32_t oroya_pose_clip_ignored_tracks(const oroya_pose_clip *clip);

/* What a runtime clip costs and how far it is from its source. */
typedef struct oroya_pose_clip_info {
    size_t bytes;          /* the clip's memory (one allocation) */
    bool compressed;       /* keys reduced and quantized (false: float storage) */
    float tolerance;       /* asked for (0 without compression, or with per-joint
                                tolerances) */
    float max_error;       /* compressed: measured largest model-space distance between
                                this clip's and the source clip's joints and virtual vertices
                                (scene units); float storage made without compression: 0;
                                float storage that compression fell back to: its own measured
                                distance (float rounding, 1e-6 on a cubic walk) */
    float max_joint_error; /* the same for joint positions alone */
    uint32_t keys;         /* compressed: keys stored, summed over SoA blocks of 4 joints
                                and channels; float storage: 0 */
} oroya_pose_clip_info;
/* Fills *out (zeros for NULL clip). */
void oroya_pose_clip_get_info(const oroya_pose_clip *clip, oroya_pose_clip_info *out);

/* The keys of desc->clip reduced under desc->compress's bound, as a new oroya_clip for
 * writing a file: LINEAR tracks (named and targeted as in the source) at the key times the
 * compressed runtime clip keeps, with its values. With snorm16_rotations, rotation values lie
 * on the grid of signed normalized 16-bit integers (k / 32767, what glTF 2.0 allows for
 * rotation outputs), so a file that stores them as normalized shorts holds them exactly;
 * when that rounding cannot meet the bound (its own error, about 1.5e-5 per component, is
 * above a tight tolerance on a long chain, even with the keys compressed at tighter
 * tolerances down to what float sampling reaches), the rotations stay float for the whole
 * clip, as without snorm16_rotations: oroya_clip_rotations_snorm16 on the result tells which.
 * The bound is measured on the result (sampled as a float clip); max_error (optional) receives
 * the measured error. Tracks the skeleton does not bind are copied unchanged. Errors: those of
 * oroya_pose_clip_create (desc->compress is required), OUT_OF_MEMORY; INVALID_ARGUMENT naming
 * the caller's tolerance when even float rotations miss it (not met so far). */
oroya_result oroya_pose_clip_reduce(const oroya_pose_clip_desc *desc, bool snorm16_rotations,
                                    oroya_clip **out, float *max_error, oroya_error *err);
/* Whether every rotation value of the clip's LINEAR and STEP tracks lies on the grid of
 * normalized signed shorts (k / 32767 as a float, what oroya_pose_clip_reduce writes with
 * snorm16_rotations), so oroya_gltf_write_desc.snorm16_rotations stores them exactly. True
 * for a clip without such tracks; false for NULL. */
bool oroya_clip_rotations_snorm16(const oroya_clip *clip);

/* ---- characters (per-instance state and outputs) ---------------------------------------- */

typedef struct oroya_pose_character oroya_pose_character;

typedef struct oroya_pose_character_desc {
    const oroya_pose_skeleton *skeleton; /* required; must outlive the character */
    uint32_t max_layers;                 /* 0 = 4; at most OROYA_POSE_MAX_LAYERS */
    oroya_allocator allocator;           /* zero = malloc/free */
} oroya_pose_character_desc;

/* One layer of a frame. A layer slot keeps its key cursors between frames while it plays the
 * same clip; a new clip in a slot starts from fresh cursors. */
typedef struct oroya_pose_layer {
    const oroya_pose_clip *clip; /* NULL: the slot is skipped */
    float time;                  /* clip-local seconds; outside the keys: the end values */
    float weight;                /* <= 0 (or NaN): skipped; at most OROYA_POSE_MAX_WEIGHT;
                                     normal layers are mixed as three.js does, additive ones
                                     scaled by it */
} oroya_pose_layer;

oroya_result oroya_pose_character_create(const oroya_pose_character_desc *desc,
                                         oroya_pose_character **out, oroya_error *err);
void oroya_pose_character_destroy(oroya_pose_character *character); /* NULL ok */

/* One frame: samples and blends `layers` (slot i = layers[i]) into the local pose, then
 * model and bone matrices. With no normal layer of positive weight the local pose is the
 * rest pose (plus the additive layers). Errors: INVALID_ARGUMENT (NULL character, NULL
 * layers with a count, more layers than max_layers, a clip of another skeleton, a time that
 * is not finite, a weight above OROYA_POSE_MAX_WEIGHT or infinite); the outputs are then
 * unchanged. Never allocates. */
oroya_result oroya_pose_character_update(oroya_pose_character *character,
                                         const oroya_pose_layer *layers, uint32_t layer_count,
                                         oroya_error *err);

/* Outputs of the last update (the rest pose before the first): (joint_count + 3) / 4 SoA
 * local blocks, joint_count model matrices (skeleton space) and joint_count bone matrices
 * (model x inverse bind: the skinning palette, in the skeleton's bone_slots order). Stable pointers, 64-byte aligned; NULL for
 * NULL. */
const oroya_soa_transform *oroya_pose_character_locals(const oroya_pose_character *character);
const oroya_mat4 *oroya_pose_character_models(const oroya_pose_character *character);
const oroya_mat4 *oroya_pose_character_bones(const oroya_pose_character *character);
/* Model and bone matrices are always finite: a joint whose model matrix would not be (scales
 * that multiply past float along a chain, an additive blend of huge keys) gets its parent's
 * (the identity local matrix; its children follow from there), and a bone matrix that is
 * still not finite the identity. The number of joints the last update (before the first:
 * create's rest pose) held so (0: none);
 * *first (may be NULL) gets the lowest, UINT32_MAX when none. Never allocates. */
uint32_t oroya_pose_character_non_finite_count(const oroya_pose_character *character,
                                               uint32_t *first);

/* ---- jobs on their own (engines that keep their own buffers) ----------------------------- */

/* Model matrices from SoA local transforms: model[i] = model[parent[i]] * local[i], roots
 * use `root` (NULL = identity). When bones is not NULL also bones[slot[i]] = model[i] *
 * inverse_bind[i] (slot: the skeleton's bone_slots). locals hold (joint_count + 3) / 4 blocks; models and bones joint_count
 * matrices. Errors: INVALID_ARGUMENT (NULL skeleton, locals or models; a root matrix with a
 * NaN or infinite element: nothing written), NON_FINITE (a model
 * or bone matrix would not be finite: every matrix is still written, such joints held as
 * oroya_pose_character_non_finite_count describes). Never allocates. */
oroya_result oroya_pose_local_to_model(const oroya_pose_skeleton *skeleton,
                                       const oroya_soa_transform *locals, const oroya_mat4 *root,
                                       oroya_mat4 *models, oroya_mat4 *bones);

/* ---- batches and threads ------------------------------------------------------------------ */

/* A range of work: items [begin, end). */
typedef void (*oroya_range_fn)(void *ctx, uint32_t begin, uint32_t end);
/* A scheduler: runs fn over [0, count) in any split, on any threads, and returns when all of
 * it is done. Engines plug their own job system in here. */
typedef void (*oroya_parallel_for_fn)(void *user, uint32_t count, oroya_range_fn fn, void *ctx);
typedef struct oroya_scheduler {
    oroya_parallel_for_fn parallel_for; /* NULL: everything on the calling thread */
    void *user;
} oroya_scheduler;

typedef struct oroya_pose_update {
    oroya_pose_character *character;
    const oroya_pose_layer *layers;
    uint32_t layer_count;
} oroya_pose_update;

/* Updates many characters, split by the scheduler (NULL = this thread). Every update is
 * checked first; on the first bad one nothing is updated and err names its index. Each
 * character must appear at most once (one given twice is such a bad update: INVALID_ARGUMENT
 * naming both indices). Results are bit-identical to updating them one by one.
 * Never allocates (a scheduler may). */
oroya_result oroya_pose_update_batch(const oroya_pose_update *updates, uint32_t count,
                                     const oroya_scheduler *scheduler, oroya_error *err);

/* A small pthread pool (src/anim/pose_pool.c) usable as a scheduler.
 * Example (given: oroya_thread_pool *pool):
 *   oroya_scheduler s = {oroya_thread_pool_parallel_for, pool}; */
typedef struct oroya_thread_pool oroya_thread_pool;
typedef struct oroya_thread_pool_desc {
    uint32_t thread_count;     /* threads working on a batch, the caller included; 0 = 2;
                                    at most 64 */
    oroya_allocator allocator; /* zero = malloc/free */
} oroya_thread_pool_desc;
/* Starts thread_count - 1 workers. Errors: INVALID_ARGUMENT, LIMIT, OUT_OF_MEMORY, BACKEND
 * (pthread_create failed). */
oroya_result oroya_thread_pool_create(const oroya_thread_pool_desc *desc, oroya_thread_pool **out,
                                      oroya_error *err);
void oroya_thread_pool_destroy(oroya_thread_pool *pool); /* joins the workers; NULL ok */
/* An oroya_parallel_for_fn: `user` is the pool. Splits [0, count) in chunks that the caller
 * and the workers take in turn; returns when all are done. One batch at a time per pool.
 * Never allocates. */
void oroya_thread_pool_parallel_for(void *user, uint32_t count, oroya_range_fn fn, void *ctx);

/* ---- CPU skinning ----------------------------------------------------------------------- */

/* DEPRECATED (kept for one release; to be removed): use oroya_skin_job / oroya_skin_job_run
 * of oroya/skin.h, oroya's one CPU skinning job, which runs on the same SIMD kernel and adds
 * 8 influences, bind matrices, bounds and in-place skinning. Its palette is float[16] per
 * matrix: pass oroya_pose_character_bones(c)[0].m (or oroya_mixer_bone_matrices(...)[0].m).
 * The palette limit is oroya/skin.h's OROYA_SKIN_MAX_PALETTE.
 *
 * Linear blend skinning of `count` vertices with 4 influences:
 *   p' = sum_i w_i * palette[j_i] * p,  n' = normalize(sum_i w_i * linear(palette[j_i]) * n).
 * Weights are used as given. Matrices are affine (bottom row taken as 0 0 0 1). To split a
 * mesh over threads, offset every per-vertex pointer by the same first vertex. */
typedef struct oroya_pose_skin_job {
    uint32_t count;            /* vertices */
    const float *positions;    /* 3 * count; required */
    const float *normals;      /* 3 * count; optional, with out_normals */
    const uint16_t *joints;    /* 4 * count palette indices; required */
    const float *weights;      /* 4 * count; required */
    uint32_t palette_count;    /* 1 .. OROYA_SKIN_MAX_PALETTE (32767) */
    const oroya_mat4 *palette; /* palette_count bone matrices; required */
    float *out_positions;      /* 3 * count; required; must not overlap the inputs */
    float *out_normals;        /* 3 * count; with normals; zero normals stay zero */
} oroya_pose_skin_job;

/* DEPRECATED: a thin wrapper over the kernel of oroya_skin_job_run (the same loops, so the
 * same results as oroya_skin_job_run on a job without bind matrices). Unlike it, every joint
 * index must be in range, even with weight 0. count 0 is OK with nothing else checked (nothing
 * to skin). Errors: INVALID_ARGUMENT (NULL spans, normals
 * without out_normals, palette count 0 or above 32767), OUT_OF_RANGE (a joint index >=
 * palette_count; all indices are checked before any vertex is skinned, so the outputs are
 * untouched, and the message names the first such vertex). Never allocates; uses up to
 * 16 KiB of stack. */
OROYA_DEPRECATED("use oroya_skin_job_run (oroya/skin.h)")
oroya_result oroya_pose_skin_run(const oroya_pose_skin_job *job, oroya_error *err);

/* DEPRECATED, with oroya_pose_skin_run: the same, plain scalar C in double (the reference the
 * fast paths are tested against). CPU skinning has one job, oroya_skin_job_run. */
OROYA_DEPRECATED("use oroya_skin_job_run (oroya/skin.h)")
oroya_result oroya_pose_skin_run_reference(const oroya_pose_skin_job *job, oroya_error *err);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_POSE_H */
