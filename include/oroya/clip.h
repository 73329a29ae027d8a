/* oroya/clip.h - animation clips: named sets of keyframe tracks, and the clip utilities
 * three.js users know from AnimationClip and AnimationUtils (subclip, optimize, validate).
 *
 * A clip is one allocation: the oroya_clip header, its track array, the name and target
 * strings and every key array are copied into it at create time, so the caller's arrays may
 * be freed right after oroya_clip_create returns. oroya_clip_destroy frees all of it. The
 * struct is transparent and read-only for users; the one sanctioned write is to key values
 * through oroya_clip_track_values (oroya_clip_make_additive rewrites them in place).
 *
 * What this module does not do: play, loop or blend clips (oroya/mixer.h), or bind track
 * targets to nodes. Sampling a clip's track is oroya_track_sample(&clip->tracks[i], ...).
 *
 * Threading: a clip may be sampled from any number of threads at once. Functions that change
 * it (optimize, writes through oroya_clip_track_values) need exclusive access.
 *
 * Example (given: oroya_track track):
 *   oroya_clip_desc desc = {.name = "bounce", .tracks = &track, .track_count = 1};
 *   oroya_clip *clip = NULL;
 *   oroya_error err = {0};
 *   if (oroya_clip_create(&desc, &clip, &err) != OROYA_OK) { puts(err.message); return; }
 *   uint32_t cursor = 0;
 *   float p[3];
 *   oroya_track_sample(&clip->tracks[0], 0.5, &cursor, NULL, p);
 *   oroya_clip_destroy(clip);
 */
#ifndef OROYA_CLIP_H
#define OROYA_CLIP_H

#include "oroya/base.h"
#include "oroya/track.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

typedef enum oroya_blend_mode {
    OROYA_BLEND_NORMAL = 0, /* three.js NormalAnimationBlendMode */
    OROYA_BLEND_ADDITIVE    /* three.js AdditiveAnimationBlendMode */
} oroya_blend_mode;

/* A keyframe event: `name` at clip time `time` (seconds, 0 <= time <= duration). The mixer
 * reports it each time a playing action's clip time crosses it (OROYA_EVENT_MARKER). */
typedef struct oroya_marker {
    double time;
    const char *name;
} oroya_marker;

typedef struct oroya_clip {
    const char *name; /* never NULL ("" when unnamed) */
    float duration;   /* seconds, finite, >= 0 */
    oroya_blend_mode blend_mode;
    uint32_t track_count;
    /* Counts the oroya_clip_set_markers calls that replaced the markers (so the mixer notices
     * a list replaced while it reports it, even at the old address); read only. */
    uint32_t marker_generation;
    oroya_track *tracks; /* track_count tracks; targets and key arrays owned by the clip */
    /* Rotation keys oroya_clip_create normalized (see OROYA_CLIP_UNIT_TOLERANCE), and where
     * the first one is (UINT32_MAX, UINT32_MAX when none). A clone keeps these; a subclip
     * starts at 0 (its keys are already unit); optimize leaves them as they were. */
    uint32_t normalized_key_count;
    uint32_t first_normalized_track;
    uint32_t first_normalized_key;
    /* Markers sorted by time (equal times keep their given order); names owned by the clip.
     * Set with oroya_clip_set_markers; a clone keeps them, a subclip has none. */
    uint32_t marker_count;
    const oroya_marker *markers;
    /* Changes at every call that rewrites the keys in place (oroya_clip_make_additive,
     * oroya_clip_optimize) and differs between clips (a library-wide counter, taken at create
     * and at each rewrite), so that a copy made before (a rig's runtime clip) is not taken for
     * the current keys, nor for another clip created later at the same address; read only. */
    uint32_t key_generation;
} oroya_clip;

/* A rotation key whose length differs from 1 by more than this is divided by its length at
 * oroya_clip_create. Below it the key stays bit for bit as given, as three.js uses it, so
 * files and goldens keep matching three.js: keys rounded to 3 decimals (Khronos SimpleSkin's
 * (0, 0, 0.383, 0.924) is 2.3e-4 off) and 16-bit quantized keys are kept; a length-2 key, an
 * exporter's unnormalized sum or 8-bit quantization (up to ~4e-3 off) is normalized. */
#define OROYA_CLIP_UNIT_TOLERANCE 1e-3

typedef struct oroya_clip_desc {
    const char *name;            /* copied; NULL = "" */
    float duration;              /* seconds; <= 0: the last key time of the longest track
                                    (three.js resetDuration); NaN or infinity is an error */
    oroya_blend_mode blend_mode; /* default NORMAL */
    const oroya_track *tracks;   /* track_count tracks, copied with their targets and keys */
    uint32_t track_count;        /* 0 is allowed (an empty clip, as in three.js) */
    oroya_allocator allocator;   /* zero = malloc/free; kept by the clip and by clips derived
                                    from it (clone, subclip) */
} oroya_clip_desc;

/* Validates every track (oroya_track_validate with its index) and the desc, then copies all
 * of it into one allocation. On success *out owns the copy; free it with oroya_clip_destroy.
 * Rotation keys (ROTATION tracks: every STEP, LINEAR, SMOOTH and STERP value; CUBICSPLINE:
 * the spline vertices, never the tangents) whose length is off 1 by more than
 * OROYA_CLIP_UNIT_TOLERANCE are normalized in the copy (q / |q| computed in double) and
 * counted in normalized_key_count; the caller's arrays are untouched. Loaders report the
 * count (`oroya info`, `oroya play` print it): a non-unit key in a file is usually a bug
 * in the exporter, and three.js would use it as given at the key times.
 * On failure *out is NULL and err (may be NULL) says why:
 *   OROYA_ERR_INVALID_ARGUMENT  desc or out NULL, tracks NULL with track_count > 0, an
 *                               unknown blend mode;
 *   OROYA_ERR_NON_FINITE        duration NaN or infinite;
 *   OROYA_ERR_INVALID_DATA      a rotation key (vertex) of length 0, which has no direction
 *                               (the message names the track, its target and the key);
 *   any oroya_track_validate error, for the first bad track;
 *   OROYA_ERR_OUT_OF_MEMORY     the allocator failed. */
oroya_result oroya_clip_create(const oroya_clip_desc *desc, oroya_clip **out, oroya_error *err);

/* Frees a clip and everything in it. NULL is ignored. Pointers into the clip (tracks,
 * values, name) dangle afterwards. */
void oroya_clip_destroy(oroya_clip *clip);

/* Checks a clip, e.g. after editing values in place: name not NULL, duration finite and
 * >= 0, known blend mode, and every track as oroya_track_validate (the message names the
 * track index, target and key). Never allocates. */
oroya_result oroya_clip_validate(const oroya_clip *clip, oroya_error *err);

/* The writable key values of track `track` (oroya_track_value_count(&clip->tracks[track])
 * floats, CUBICSPLINE tangents included), or NULL when clip is NULL or track is out of range.
 * Values written must stay finite (oroya_clip_validate checks). Times are not writable:
 * changing them could break their order under a running cursor. */
float *oroya_clip_track_values(oroya_clip *clip, uint32_t track);

/* Replaces the clip's markers with a copy of markers[0..count) (names copied, sorted by time,
 * stable). count 0 removes them. Allocates once from the clip's allocator (not in any
 * per-frame path; call it at load time, before actions on the clip are updated). Errors:
 * INVALID_ARGUMENT (clip NULL, markers NULL with count > 0), INVALID_DATA (a NULL name, or a
 * time outside [0, duration]), NON_FINITE (a time that is NaN or infinite) (the message names
 * the marker and the clip), OUT_OF_MEMORY (the clip keeps its old markers). */
oroya_result oroya_clip_set_markers(oroya_clip *clip, const oroya_marker *markers, uint32_t count,
                                    oroya_error *err);

/* A deep copy of clip (same name, duration, blend mode, tracks), in a new allocation from the
 * clip's allocator. Errors: INVALID_ARGUMENT (NULL), OUT_OF_MEMORY. */
oroya_result oroya_clip_clone(const oroya_clip *clip, oroya_clip **out, oroya_error *err);

/* three.js AnimationUtils.subclip(clip, name, startFrame, endFrame, fps): a new clip named
 * `name` (NULL = "") holding, per track, the keys whose frame = time * fps satisfies
 * start_frame <= frame < end_frame (the end is exclusive). Tracks left without keys are
 * dropped; the rest are shifted so the earliest kept key is at time 0 (in float, as three's
 * Float32Array does) and the duration becomes the last key time of the longest track (0 when
 * no track is left). Interpolation, twist axis and blend mode are kept; CUBICSPLINE keys
 * keep their tangents. fps 0 means three's default of 30. The clip's allocator is used.
 * Errors: INVALID_ARGUMENT (clip or out NULL, fps negative or not finite, a frame NaN),
 * OUT_OF_MEMORY, or a track error when the shift in float merged two key times (only
 * possible with times far larger than the subclip's start). */
oroya_result oroya_clip_subclip(const oroya_clip *clip, const char *name, double start_frame,
                                double end_frame, double fps, oroya_clip **out, oroya_error *err);

/* Removes, in place, the keys that the remaining keys reproduce within `tolerance` (absolute,
 * per component; rotations compared up to sign). Like three.js KeyframeTrack.optimize, the
 * first and last keys always stay and SMOOTH tracks (CubicInterpolant, whose slopes depend
 * on the neighbouring keys) are left whole, and so are STERP tracks with no twist axis (the
 * mixer twists them about the bound bone's long axis, which the clip does not know, so a
 * removal cannot be checked); with tolerance 0 a key survives unless dropping
 * it changes nothing. Where three only drops keys equal to both neighbours, this also drops
 * keys on a straight line (LINEAR), repeats of the previous value (STEP), and keys of a
 * CUBICSPLINE or STERP/slerp track whose removal keeps the curve within tolerance at the
 * removed keys and at 1/4, 1/2 and 3/4 of every original interval in between (between those
 * points a cubic may stray a little further). At most 1024 consecutive keys are merged into
 * one interval, which bounds the work to O(keys x 1024). The duration does not change. Key
 * arrays shrink in place (no reallocation); cursors into the clip's tracks should be reset
 * to 0. Allocates scratch space from the clip's allocator and frees it before returning.
 * Errors: INVALID_ARGUMENT (clip NULL, tolerance negative or not finite), OUT_OF_MEMORY. */
oroya_result oroya_clip_optimize(oroya_clip *clip, float tolerance, oroya_error *err);

/* Largest weights track oroya_clip_make_additive handles (it works on the stack). */
#define OROYA_MAX_ADDITIVE_COMPONENTS 256

/* ---- additive clips --------------------------------------------------------------------- */

/* three's AnimationUtils.makeClipAdditive, in place: every track of `target` that has a
 * track with the same target node and property in `reference` becomes relative to the
 * reference value at time reference_frame / fps (the first/last key outside the keys):
 * translation, scale and weights v - ref; rotation conj(normalize(ref)) * q. Cubic-spline
 * tracks change their spline vertices; rotation tangents become conj(ref) * m as well
 * (a deviation from three, see docs/mixer.md). Sets target->blend_mode to ADDITIVE; existing actions keep their mode.
 * The keys change in place: a mixer without a rig samples the new keys at once, as three's
 * actions do. The pose kernel samples copies made when an action is created (or, for a rig's
 * clips, when the rig was built, while key_generation has not moved): an action created
 * before the call goes on with the old keys on a rig-backed mixer. Make clips additive before
 * creating their actions.
 * reference may be NULL or target itself; fps <= 0 means 30. Values are rounded to float as
 * three's Float32Arrays do. Errors: INVALID_ARGUMENT (NULL target, non-finite frame or fps),
 * OROYA_ERR_LIMIT (a weights track of more than OROYA_MAX_ADDITIVE_COMPONENTS). Never
 * allocates. */
oroya_result oroya_clip_make_additive(oroya_clip *target, double reference_frame,
                                      const oroya_clip *reference, double fps);

/* Deprecated: the old name of oroya_clip_make_additive (declared in oroya/mixer.h until this
 * release). */
OROYA_DEPRECATED("use oroya_clip_make_additive")
oroya_result oroya_make_clip_additive(oroya_clip *target, double reference_frame,
                                      const oroya_clip *reference, double fps);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_CLIP_H */
