/* oroya/track.h - keyframe tracks: key layout, validation and sampling.
 *
 * A track animates one property of one node (found by name): translation, rotation
 * (quaternion x,y,z,w), scale, N morph-target weights, a light's intensity, a camera's field
 * of view, a mesh's colour or the node's visibility; or it drives a named curve, a float
 * channel the caller reads from the mixer (docs/tracks.md "Typed tracks and curves"). Keys are float times in seconds,
 * strictly increasing, with float values. Sampling reproduces three.js 0.187 number for
 * number: the interval search of Interpolant.evaluate, DiscreteInterpolant (STEP),
 * LinearInterpolant / QuaternionLinearInterpolant with Quaternion.slerpFlat (LINEAR),
 * GLTFLoader's GLTFCubicSplineInterpolant (CUBICSPLINE, glTF 2.0 Appendix C) and
 * CubicInterpolant with its three endings (SMOOTH). Arithmetic is double, as in JavaScript;
 * keys stay float, as three's Float32Arrays. STERP (oroya's own, not a three.js mode)
 * interpolates swing and twist separately with oroya_quat_sterp.
 *
 * What this module does not do: blending, looping and time keeping (the mixer), binding
 * names to nodes (the mixer and the scene), and owning memory. An oroya_track only points
 * at key arrays; a clip (oroya/clip.h) copies them and owns the copy.
 *
 * Layout of `values`:
 *   STEP, LINEAR, SMOOTH, STERP: key_count * components floats, key after key;
 *   CUBICSPLINE: key_count * 3 * components: per key the in-tangent, the value, then the
 *   out-tangent (glTF order). Tangents are per second; sampling multiplies them by the key
 *   interval. The first key's in-tangent and the last key's out-tangent are never used.
 *
 * Edges: before the first key the first value is returned, at or after the last key the
 * last value, at exactly a key's time that key's value (bit for bit; three's normalization of
 * cubic-spline rotations, and of slerp between keys less than ~3.6 degrees apart, can touch
 * the last bit of a key that is not exactly unit length). A NaN time samples as "after the
 * last key", as three.js does.
 *
 * `out` must not overlap the track's times or values (components are written while keys are
 * still read: sampling into a key array gave other values).
 *
 * Threading: sampling reads the track and writes only `out` and `*cursor`, so any number of
 * threads may sample one track at once, each with its own cursor. Nothing here allocates.
 *
 * Example:
 *   static const float times[] = {0, 1};
 *   static const float values[] = {0, 0, 0, 2, 0, 0};
 *   oroya_track track = {.target = "ball", .property = OROYA_PROPERTY_TRANSLATION,
 *                        .interpolation = OROYA_INTERP_LINEAR, .components = 3,
 *                        .key_count = 2, .times = times, .values = values};
 *   oroya_error err = {0};
 *   if (oroya_track_validate(&track, 0, &err) != OROYA_OK) puts(err.message);
 *   uint32_t cursor = 0;
 *   float p[3];
 *   oroya_track_sample(&track, 0.25, &cursor, NULL, p);   // p = {0.5, 0, 0}
 */
#ifndef OROYA_TRACK_H
#define OROYA_TRACK_H

#include "oroya/base.h"
#include "oroya/math.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

/* What a track animates. three.js calls translation "position" and rotation "quaternion". */
typedef enum oroya_property {
    OROYA_PROPERTY_TRANSLATION = 0, /* 3 components */
    OROYA_PROPERTY_ROTATION,        /* 4 components, unit quaternion x, y, z, w */
    OROYA_PROPERTY_SCALE,           /* 3 components */
    OROYA_PROPERTY_WEIGHTS,         /* N >= 1 components, one per morph target */
    /* Typed property tracks (three.js NumberKeyframeTrack, ColorKeyframeTrack,
     * BooleanKeyframeTrack) on a node's components, and curves: */
    OROYA_PROPERTY_INTENSITY, /* 1 component: the node's light intensity (three: .intensity) */
    OROYA_PROPERTY_FOV,       /* 1 component: the node's camera fov_y in degrees (.fov) */
    OROYA_PROPERTY_COLOR,     /* 3 components, linear RGB: the node's mesh colour
                                 (.material.color); the mixer writes the node's colour
                                 override (oroya_scene_set_mesh_color), alpha unchanged */
    OROYA_PROPERTY_VISIBLE,   /* 1 component, each value 0 or 1: node visibility (.visible).
                                 STEP only, and blended by select, as three's booleans */
    OROYA_PROPERTY_CURVE,     /* 1 component: a named curve; `target` is the curve's name,
                                 not a node (oroya_mixer_curve_index, oroya/mixer.h) */
    OROYA_PROPERTY_COUNT_
} oroya_property;

typedef enum oroya_interpolation {
    OROYA_INTERP_STEP = 0,    /* the value of the key at or before t (three: InterpolateDiscrete) */
    OROYA_INTERP_LINEAR,      /* lerp; rotations: slerp on the shortest arc (slerpFlat) */
    OROYA_INTERP_CUBICSPLINE, /* glTF Hermite with stored tangents; rotations normalized */
    OROYA_INTERP_SMOOTH,      /* three.js InterpolateSmooth (CubicInterpolant); rotations: LINEAR */
    OROYA_INTERP_STERP,       /* rotation only; swing-twist about twist_axis between
                                 neighbouring keys (oroya_quat_sterp, oroya/rotation.h) */
    OROYA_INTERP_COUNT_
} oroya_interpolation;

/* three.js CubicInterpolant endings, set per sample by the mixer for SMOOTH tracks. */
typedef enum oroya_ending {
    OROYA_ENDING_ZERO_CURVATURE = 0, /* natural spline: f'' = 0 at the end key */
    OROYA_ENDING_ZERO_SLOPE,         /* f' = 0 at the end key */
    OROYA_ENDING_WRAP_AROUND         /* the slope continues from the other end (looping) */
} oroya_ending;

/* The largest key count a track may have (the cursor packs the index in 28 bits). */
#define OROYA_TRACK_MAX_KEYS ((uint32_t)((1u << 28) - 1u))
/* The largest magnitude a track (other than a rotation) may reach between its keys: a key
 * value, a CUBICSPLINE curve, or a SMOOTH curve, whose overshoot grows with the ratio of
 * neighbouring key gaps. A mixer's blend of such values stays finite in float whatever the
 * weights (at most OROYA_MAX_WEIGHT, oroya/mixer.h) and the number of actions: three.js has
 * no such bound. */
#define OROYA_MAX_KEY_VALUE 1e18

typedef struct oroya_track {
    const char *target; /* node name; not NULL ("" is allowed) */
    oroya_property property;
    oroya_interpolation interpolation;
    uint32_t components;   /* 3 (translation, scale), 4 (rotation xyzw), N (weights) */
    uint32_t key_count;    /* 1 .. OROYA_TRACK_MAX_KEYS */
    const float *times;    /* key_count, seconds, finite, strictly increasing */
    const float *values;   /* key_count * components; CUBICSPLINE: * 3, glTF order in,value,out */
    oroya_vec3 twist_axis; /* STERP only: the twist axis in the node's local frame
                                          (usually the bone's long axis), finite. Zero: the
                                          mixer uses the bound node's long axis (direction to
                                          its first child); sampled alone, it is slerp. */
    uint32_t value_count;  /* optional: floats in `values` as the source declared
                                          them (e.g. a glTF accessor); 0 = not declared. When
                                          nonzero, validation checks it against the layout. */
} oroya_track;

/* SMOOTH only: the CubicInterpolant endings. NULL options = zero curvature at both ends. */
typedef struct oroya_sample_options {
    oroya_ending ending_start, ending_end;
} oroya_sample_options;

/* Samples `track` at time t (seconds, double: three.js compares accumulated double time with
 * float keys) and writes `components` floats to out. The arithmetic is three.js's, in double;
 * only the final store rounds to float.
 *
 * *cursor is the caller's key cursor: start it at 0, keep one per (track, consumer), and pass
 * it back unchanged. It is O(1) amortized while t advances (or steps back by a key or two),
 * O(log n) on a jump. The value is opaque: it holds the key index and, for SMOOTH tracks, the
 * endings in force when the current interval was entered. three.js caches those weights per
 * interval and keeps them until the interval changes, even when the action changes its
 * endings meanwhile (which shows on two-key tracks); the cursor reproduces that. Any cursor
 * value is safe (out-of-range ones are clamped). cursor may be NULL: every call then searches
 * from scratch and endings are never cached.
 *
 * The track must have passed oroya_track_validate; an unvalidated track is never read out of
 * bounds for its own key_count and components, but may give meaningless numbers. NULL track
 * or out: nothing happens. A track with no keys writes zeros. Never allocates. */
void oroya_track_sample(const oroya_track *track, double t, uint32_t *cursor,
                        const oroya_sample_options *options, float *out);

/* The same, writing doubles: three.js's PropertyMixer buffers are Float64Array, so a mixer
 * that wants to blend exactly as three does keeps the samples in double. */
void oroya_track_sample_f64(const oroya_track *track, double t, uint32_t *cursor,
                            const oroya_sample_options *options, double *out);

/* Checks a track. Returns OROYA_OK, or fills err (may be NULL) with a message naming
 * "tracks[track_index]", the target and property and, where it applies, the key index:
 *   OROYA_ERR_INVALID_ARGUMENT  track is NULL, or target is NULL, or times/values NULL;
 *   OROYA_ERR_UNKNOWN_PROPERTY  property is not an oroya_property;
 *   OROYA_ERR_INVALID_DATA      interpolation unknown, or STERP on a non-rotation track,
 *                               or a VISIBLE track that is not STEP or has a value other
 *                               than 0 or 1 (the message names the key);
 *   OROYA_ERR_NO_KEYS           key_count is 0;
 *   OROYA_ERR_LIMIT             key_count above OROYA_TRACK_MAX_KEYS, or the value count
 *                               does not fit in 32 bits, or (not a rotation) a value, or a
 *                               curve between two keys, above OROYA_MAX_KEY_VALUE in
 *                               magnitude (the message names the keys);
 *   OROYA_ERR_VALUE_COUNT       components wrong for the property (3, 4, 3, >= 1, then
 *                               1, 1, 3, 1, 1), or
 *                               value_count nonzero and not key_count * components (* 3);
 *   OROYA_ERR_BAD_TIMES         a time that is NaN or infinite, or not greater than the one
 *                               before;
 *   OROYA_ERR_NON_FINITE        a value (or tangent) that is NaN or infinite, or a STERP
 *                               twist axis that is not finite (a zero axis is allowed: the
 *                               node's twist axis is used).
 * The first problem found is reported. Never allocates. */
oroya_result oroya_track_validate(const oroya_track *track, uint32_t track_index, oroya_error *err);

/* Floats per key in `values`: components, times 3 for CUBICSPLINE. 0 for NULL. */
uint32_t oroya_track_key_stride(const oroya_track *track);

/* Floats in `values`: key_count * oroya_track_key_stride(track). 0 for NULL or when it does
 * not fit in 32 bits (validation reports that case). */
uint32_t oroya_track_value_count(const oroya_track *track);

/* Components a property needs: 3, 4, 3, 0 for WEIGHTS (any N >= 1), 1 for INTENSITY, FOV,
 * VISIBLE and CURVE, 3 for COLOR, and 0 for an unknown one. */
uint32_t oroya_property_components(oroya_property property);

/* Static names for messages and file formats: "translation", "rotation", "scale",
 * "weights", "intensity", "fov", "color", "visible", "curve"; "step", "linear", "cubicspline", "smooth", "sterp". "unknown" when out of range. */
const char *oroya_property_name(oroya_property property);
const char *oroya_interpolation_name(oroya_interpolation interpolation);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_TRACK_H */
