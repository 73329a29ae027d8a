/* Keyframe track validation and sampling. See include/oroya/track.h and docs/tracks.md.
 *
 * Sampling is a port of three.js 0.187: Interpolant.evaluate for the interval search, then
 * the interpolant that three would build for the track. The search is ported branch for
 * branch rather than replaced by a plain binary search because the cursor that results
 * decides, for SMOOTH tracks, when three recomputes its cached weights. */
#include "oroya/track.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "internal/base.h"
#include "internal/track.h"
#include "oroya/rotation.h"

/* ---- names ----------------------------------------------------------------------------- */

const char *oroya_property_name(oroya_property property) {
    switch (property) {
    case OROYA_PROPERTY_TRANSLATION: return "translation";
    case OROYA_PROPERTY_ROTATION: return "rotation";
    case OROYA_PROPERTY_SCALE: return "scale";
    case OROYA_PROPERTY_WEIGHTS: return "weights";
    case OROYA_PROPERTY_INTENSITY: return "intensity";
    case OROYA_PROPERTY_FOV: return "fov";
    case OROYA_PROPERTY_COLOR: return "color";
    case OROYA_PROPERTY_VISIBLE: return "visible";
    case OROYA_PROPERTY_CURVE: return "curve";
    default: return "unknown";
    }
}

const char *oroya_interpolation_name(oroya_interpolation interpolation) {
    switch (interpolation) {
    case OROYA_INTERP_STEP: return "step";
    case OROYA_INTERP_LINEAR: return "linear";
    case OROYA_INTERP_CUBICSPLINE: return "cubicspline";
    case OROYA_INTERP_SMOOTH: return "smooth";
    case OROYA_INTERP_STERP: return "sterp";
    default: return "unknown";
    }
}

uint32_t oroya_property_components(oroya_property property) {
    switch (property) {
    case OROYA_PROPERTY_TRANSLATION: return 3;
    case OROYA_PROPERTY_ROTATION: return 4;
    case OROYA_PROPERTY_SCALE: return 3;
    case OROYA_PROPERTY_INTENSITY: return 1;
    case OROYA_PROPERTY_FOV: return 1;
    case OROYA_PROPERTY_COLOR: return 3;
    case OROYA_PROPERTY_VISIBLE: return 1;
    case OROYA_PROPERTY_CURVE: return 1;
    default: return 0;
    }
}

static uint64_t key_stride64(const oroya_track *track) {
    uint64_t c = track->components;
    return track->interpolation == OROYA_INTERP_CUBICSPLINE ? 3u * c : c;
}

uint32_t oroya_track_key_stride(const oroya_track *track) {
    if (!track) {
        return 0;
    }
    uint64_t s = key_stride64(track);
    return s > UINT32_MAX ? 0 : (uint32_t)s;
}

uint32_t oroya_track_value_count(const oroya_track *track) {
    if (!track) {
        return 0;
    }
    uint64_t n = key_stride64(track) * (uint64_t)track->key_count;
    return n > UINT32_MAX ? 0 : (uint32_t)n;
}

/* ---- validation ------------------------------------------------------------------------ */

/* The largest |value| among the keys `keys[0..count)` (indices into the track), component i. */
static double key_max(const oroya_track *track, const int64_t *keys, int count, uint32_t i) {
    double m = 0;
    for (int k = 0; k < count; k++) {
        m = fmax(m, fabs((double)track->values[(size_t)keys[k] * track->components + i]));
    }
    return m;
}

/* OROYA_MAX_KEY_VALUE on a track that is not a rotation (finite values, increasing times):
 * every key value; a CUBICSPLINE curve by the Hermite bound (see oroya_track_validate); a
 * SMOOTH curve by three's CubicInterpolant weights, whose magnitudes sum to at most
 * 1 + 8/27 (|wp| + |wn|) on [0, 1] (wp, wn: half the gap over the gap before and after,
 * which an ending may take from the track's other end), times the largest key it reads. */
static oroya_result check_magnitudes(const oroya_track *track, uint32_t track_index,
                                     const char *target, const char *prop, oroya_error *err) {
    const uint32_t c = track->components, n = track->key_count;
    const bool cubic = track->interpolation == OROYA_INTERP_CUBICSPLINE;
    const uint32_t stride = cubic ? c * 3 : c, at = cubic ? c : 0;
    for (uint32_t k = 0; k < n; k++) {
        for (uint32_t i = 0; i < c; i++) {
            const float v = track->values[(size_t)k * stride + at + i];
            if (!(fabs((double)v) <= OROYA_MAX_KEY_VALUE)) {
                return oroya__fail(err, OROYA_ERR_LIMIT,
                                   "tracks[%u] (target \"%s\", %s): key %u: value component %u "
                                   "is %g, beyond OROYA_MAX_KEY_VALUE (%g)",
                                   track_index, target, prop, k, i, (double)v, OROYA_MAX_KEY_VALUE);
            }
        }
    }
    for (uint32_t k = 1; k < n && (cubic || track->interpolation == OROYA_INTERP_SMOOTH); k++) {
        const double gap = (double)track->times[k] - (double)track->times[k - 1];
        for (uint32_t i = 0; i < c; i++) {
            double bound;
            if (cubic) {
                const float *k0 = track->values + (size_t)(k - 1) * stride;
                const float *k1 = track->values + (size_t)k * stride;
                bound =
                    fmax(fabs((double)k0[c + i]), fabs((double)k1[c + i])) +
                    4.0 / 27.0 * (fabs((double)k0[2 * c + i] * gap) + fabs((double)k1[i] * gap));
            } else {
                /* The gaps before and after: the track's own, or any an ending may use (zero
                 * slope and zero curvature: this gap; wrap around: the other end's). */
                const float *t = track->times;
                const double before = k >= 2 ? (double)t[k - 1] - (double)t[k - 2]
                                             : fmin(gap, (double)t[n - 1] - (double)t[n - 2]);
                const double after =
                    k + 1 < n ? (double)t[k + 1] - (double)t[k] : fmin(gap, (double)t[1] - t[0]);
                const double w = 0.5 * gap / before + 0.5 * gap / after;
                const int64_t keys[6] = {
                    k >= 2 ? (int64_t)k - 2 : (int64_t)n - 2, (int64_t)k - 1, k,
                    k + 1 < n ? (int64_t)k + 1 : 1,           (int64_t)n - 2, 1};
                bound = (1.0 + 0.3 * w) * key_max(track, keys, 6, i);
            }
            if (!(bound <= OROYA_MAX_KEY_VALUE)) {
                return oroya__fail(err, OROYA_ERR_LIMIT,
                                   "tracks[%u] (target \"%s\", %s): keys %u-%u: component %u: "
                                   "the %s curve between them may reach %g, beyond "
                                   "OROYA_MAX_KEY_VALUE (%g)",
                                   track_index, target, prop, k - 1, k, i,
                                   cubic ? "CUBICSPLINE" : "SMOOTH", bound, OROYA_MAX_KEY_VALUE);
            }
        }
    }
    return OROYA_OK;
}

oroya_result oroya_track_validate(const oroya_track *track, uint32_t track_index,
                                  oroya_error *err) {
    if (!track) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "tracks[%u]: track is NULL",
                           track_index);
    }
    const char *target = track->target ? track->target : "(null)";
    const char *prop = oroya_property_name(track->property);
    if (!track->target) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "tracks[%u] (%s): target is NULL",
                           track_index, prop);
    }
    if ((unsigned)track->property >= (unsigned)OROYA_PROPERTY_COUNT_) {
        return oroya__fail(err, OROYA_ERR_UNKNOWN_PROPERTY,
                           "tracks[%u] (target \"%s\"): unknown property %d", track_index, target,
                           (int)track->property);
    }
    if ((unsigned)track->interpolation >= (unsigned)OROYA_INTERP_COUNT_) {
        return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                           "tracks[%u] (target \"%s\", %s): unknown interpolation %d", track_index,
                           target, prop, (int)track->interpolation);
    }
    if (track->interpolation == OROYA_INTERP_STERP && track->property != OROYA_PROPERTY_ROTATION) {
        return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                           "tracks[%u] (target \"%s\", %s): sterp applies to rotation tracks only",
                           track_index, target, prop);
    }
    if (track->property == OROYA_PROPERTY_VISIBLE && track->interpolation != OROYA_INTERP_STEP) {
        /* three.js's BooleanKeyframeTrack has InterpolateDiscrete only. */
        return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                           "tracks[%u] (target \"%s\", %s): a visibility track steps: its "
                           "interpolation must be step, not %s",
                           track_index, target, prop,
                           oroya_interpolation_name(track->interpolation));
    }
    if (track->key_count == 0) {
        return oroya__fail(err, OROYA_ERR_NO_KEYS, "tracks[%u] (target \"%s\", %s): no keys",
                           track_index, target, prop);
    }
    if (track->key_count > OROYA_TRACK_MAX_KEYS) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "tracks[%u] (target \"%s\", %s): %u keys, the maximum is %u",
                           track_index, target, prop, track->key_count, OROYA_TRACK_MAX_KEYS);
    }
    uint32_t need = oroya_property_components(track->property);
    if (need ? track->components != need : track->components == 0) {
        return oroya__fail(err, OROYA_ERR_VALUE_COUNT,
                           "tracks[%u] (target \"%s\", %s): %u components per key, expected %s",
                           track_index, target, prop, track->components,
                           need == 4   ? "4"
                           : need == 3 ? "3"
                           : need == 1 ? "1"
                                       : "at least 1");
    }
    uint64_t expected = key_stride64(track) * (uint64_t)track->key_count;
    if (expected > UINT32_MAX) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "tracks[%u] (target \"%s\", %s): %u keys x %u floats per key do not "
                           "fit in 32 bits",
                           track_index, target, prop, track->key_count,
                           (unsigned)key_stride64(track));
    }
    if (track->value_count != 0 && track->value_count != expected) {
        return oroya__fail(
            err, OROYA_ERR_VALUE_COUNT,
            "tracks[%u] (target \"%s\", %s): %u values, expected %u keys x %u "
            "components%s = %u",
            track_index, target, prop, track->value_count, track->key_count, track->components,
            track->interpolation == OROYA_INTERP_CUBICSPLINE ? " x 3" : "", (unsigned)expected);
    }
    if (!track->times || !track->values) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "tracks[%u] (target \"%s\", %s): %s is NULL", track_index, target, prop,
                           track->times ? "values" : "times");
    }
    for (uint32_t k = 0; k < track->key_count; k++) {
        float tk = track->times[k];
        if (!isfinite(tk)) {
            return oroya__fail(err, OROYA_ERR_BAD_TIMES,
                               "tracks[%u] (target \"%s\", %s): key %u: time %g is not finite",
                               track_index, target, prop, k, (double)tk);
        }
        if (k > 0 && !(tk > track->times[k - 1])) {
            return oroya__fail(err, OROYA_ERR_BAD_TIMES,
                               "tracks[%u] (target \"%s\", %s): key %u: time %.9g is not "
                               "greater than key %u's %.9g",
                               track_index, target, prop, k, (double)tk, k - 1,
                               (double)track->times[k - 1]);
        }
    }
    uint32_t stride = (uint32_t)key_stride64(track);
    for (uint64_t i = 0; i < expected; i++) {
        float v = track->values[i];
        if (!isfinite(v)) {
            uint32_t k = (uint32_t)(i / stride), within = (uint32_t)(i % stride);
            const char *part = "value";
            if (track->interpolation == OROYA_INTERP_CUBICSPLINE) {
                uint32_t which = within / track->components;
                part = which == 0 ? "in-tangent" : which == 1 ? "value" : "out-tangent";
                within %= track->components;
            }
            return oroya__fail(err, OROYA_ERR_NON_FINITE,
                               "tracks[%u] (target \"%s\", %s): key %u: %s component %u is %g",
                               track_index, target, prop, k, part, within, (double)v);
        }
        if (track->property == OROYA_PROPERTY_VISIBLE && v != 0 && v != 1) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                               "tracks[%u] (target \"%s\", %s): key %u: value %g is not a "
                               "boolean (0 or 1)",
                               track_index, target, prop, (uint32_t)(i / stride), (double)v);
        }
    }
    if (track->interpolation == OROYA_INTERP_CUBICSPLINE &&
        !(track->property == OROYA_PROPERTY_ROTATION && track->components == 4)) {
        /* The Hermite curve between two keys is h00 p0 + h10 m0 + h01 p1 + h11 m1 with the
         * tangents scaled by the key gap (m = tangent * gap). h00 + h01 = 1 and |h10|, |h11|
         * peak at 4/27, so the curve stays within max(|p0|, |p1|) + 4/27 (|m0| + |m1|).
         * Past the float range, sampling would write inf: a tangent of 3e38 over a 1000 s
         * gap. (Rotations are normalized in double after the sum, so they stay finite.) */
        const uint32_t c = track->components;
        for (uint32_t k = 1; k < track->key_count; k++) {
            const double gap = (double)track->times[k] - (double)track->times[k - 1];
            const float *k0 = track->values + (size_t)(k - 1) * stride;
            const float *k1 = track->values + (size_t)k * stride;
            for (uint32_t i = 0; i < c; i++) {
                double bound =
                    fmax(fabs((double)k0[c + i]), fabs((double)k1[c + i])) +
                    4.0 / 27.0 * (fabs((double)k0[2 * c + i] * gap) + fabs((double)k1[i] * gap));
                if (!(bound <= (double)FLT_MAX)) {
                    return oroya__fail(err, OROYA_ERR_NON_FINITE,
                                       "tracks[%u] (target \"%s\", %s): keys %u-%u: component %u: "
                                       "the tangents times the key gap (%g s) take the curve past "
                                       "the float range (up to %g)",
                                       track_index, target, prop, k - 1, k, i, gap, bound);
                }
            }
        }
    }
    if (track->property != OROYA_PROPERTY_ROTATION) {
        const oroya_result r = check_magnitudes(track, track_index, target, prop, err);
        if (r != OROYA_OK) {
            return r;
        }
    }
    if (track->interpolation == OROYA_INTERP_STERP) {
        oroya_vec3 a = track->twist_axis;
        /* A zero axis is allowed: the mixer then uses the bound node's long axis (the
         * direction to its first child), and sampled alone the track interpolates like
         * slerp. Only a non-finite axis is an error. */
        if (!isfinite(a.x) || !isfinite(a.y) || !isfinite(a.z)) {
            return oroya__fail(err, OROYA_ERR_NON_FINITE,
                               "tracks[%u] (target \"%s\", %s): sterp twist axis (%g, %g, %g) "
                               "is not finite",
                               track_index, target, prop, (double)a.x, (double)a.y, (double)a.z);
        }
    }
    return OROYA_OK;
}

/* ---- interval search ------------------------------------------------------------------- */

/* The cursor word: the key index (three's Interpolant._cachedIndex, 0..n) in the low 28 bits,
 * then, for SMOOTH tracks, ending_start + 1 and ending_end + 1 in two bits each (0 = none
 * cached). Packing keeps the public cursor a plain uint32_t. */
#define CURSOR_INDEX_MASK 0x0FFFFFFFu
#define CURSOR_START_SHIFT 28
#define CURSOR_END_SHIFT 30

oroya__seek oroya__track_seek(const float *pp, uint32_t n, double t, uint32_t *io_index) {
    /* A literal port of Interpolant.evaluate (three.js 0.187). JavaScript reads past either
     * end of the array as undefined, and every comparison with undefined is false; has_t0
     * and has_t1 stand for "is defined". Indices are signed, as in JS. */
    int64_t i1 = *io_index > n ? (int64_t)n : (int64_t)*io_index;
    int64_t nn = (int64_t)n;
    bool has_t1 = i1<nn, has_t0 = i1> 0;
    double t1 = has_t1 ? (double)pp[i1] : 0.0;
    double t0 = has_t0 ? (double)pp[i1 - 1] : 0.0;
    int64_t right;

    if (!(has_t1 && t < t1)) {
        /* forward scan: crossing at most two keys before falling back to bisection */
        bool reverse = false;
        for (int64_t give_up = i1 + 2;;) {
            if (!has_t1) {
                if (has_t0 && t < t0) {
                    reverse = true;
                    break;
                }
                *io_index = n;
                return OROYA__SEEK_AFTER;
            }
            if (i1 == give_up) {
                break;
            }
            t0 = t1;
            has_t0 = true;
            ++i1;
            has_t1 = i1 < nn;
            t1 = has_t1 ? (double)pp[i1] : 0.0;
            if (has_t1 && t < t1) {
                *io_index = (uint32_t)i1;
                return OROYA__SEEK_CHANGED;
            }
        }
        if (!reverse) {
            right = nn;
            goto bisect;
        }
    }
    if (!(has_t0 && t >= t0)) {
        /* "looping?": a jump back before the second key restarts the scan from key 2 */
        if (nn > 1 && t < (double)pp[1]) {
            i1 = 2;
            t0 = (double)pp[1];
            has_t0 = true;
        }
        for (int64_t give_up = i1 - 2;;) {
            if (!has_t0) {
                *io_index = 0;
                return OROYA__SEEK_BEFORE;
            }
            if (i1 == give_up) {
                break;
            }
            t1 = t0;
            --i1;
            has_t0 = i1 - 1 >= 0;
            t0 = has_t0 ? (double)pp[i1 - 1] : 0.0;
            if (has_t0 && t >= t0) {
                *io_index = (uint32_t)i1;
                return OROYA__SEEK_CHANGED;
            }
        }
        right = i1;
        i1 = 0;
        goto bisect;
    }
    *io_index = (uint32_t)i1;
    return OROYA__SEEK_SAME;

bisect:
    while (i1 < right) {
        int64_t mid = (i1 + right) >> 1;
        if (t < (double)pp[mid]) {
            right = mid;
        } else {
            i1 = mid + 1;
        }
    }
    if (i1 == 0) {
        *io_index = 0;
        return OROYA__SEEK_BEFORE;
    }
    if (i1 >= nn) {
        *io_index = n;
        return OROYA__SEEK_AFTER;
    }
    *io_index = (uint32_t)i1;
    return OROYA__SEEK_CHANGED;
}

/* ---- interpolation --------------------------------------------------------------------- */

/* One output, float or double; exactly one pointer is non-NULL. */
typedef struct {
    float *f32;
    double *f64;
} sink;

static inline void put(sink s, uint32_t i, double v) {
    if (s.f32) {
        s.f32[i] = (float)v;
    } else {
        s.f64[i] = v;
    }
}

/* Quaternion.slerpFlat of three.js, in double, operation for operation so that results agree
 * to the last bit: shortest arc (the second key is negated when the dot product is negative),
 * and lerp + normalize from dot >= 0.9995, where sin(theta) gets too small to divide by.
 * Equal keys are copied untouched. out may alias a or b: every input is read first. */
void oroya__slerp_flat_d(const double *a, const double *b, double t, double out[4]) {
    double x0 = a[0], y0 = a[1], z0 = a[2], w0 = a[3];
    double x1 = b[0], y1 = b[1], z1 = b[2], w1 = b[3];
    if (w0 != w1 || x0 != x1 || y0 != y1 || z0 != z1) {
        double dot = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
        if (dot < 0) {
            x1 = -x1;
            y1 = -y1;
            z1 = -z1;
            w1 = -w1;
            dot = -dot;
        }
        double s = 1 - t;
        if (dot < 0.9995) {
            double theta = acos(dot);
            double sn = sin(theta);
            s = sin(s * theta) / sn;
            t = sin(t * theta) / sn;
            x0 = x0 * s + x1 * t;
            y0 = y0 * s + y1 * t;
            z0 = z0 * s + z1 * t;
            w0 = w0 * s + w1 * t;
        } else {
            x0 = x0 * s + x1 * t;
            y0 = y0 * s + y1 * t;
            z0 = z0 * s + z1 * t;
            w0 = w0 * s + w1 * t;
            double f = 1 / sqrt(x0 * x0 + y0 * y0 + z0 * z0 + w0 * w0);
            x0 *= f;
            y0 *= f;
            z0 *= f;
            w0 *= f;
        }
    }
    out[0] = x0;
    out[1] = y0;
    out[2] = z0;
    out[3] = w0;
}

/* The same on float keys (converting a float to double is exact). */
void oroya__slerp_flat(const float *a, const float *b, double t, double out[4]) {
    const double da[4] = {a[0], a[1], a[2], a[3]}, db[4] = {b[0], b[1], b[2], b[3]};
    oroya__slerp_flat_d(da, db, t, out);
}

/* The effective interpolation: three has no smooth quaternion interpolant and falls back to
 * linear (KeyframeTrack.setInterpolation). STERP is meaningful for 4-component rotations only;
 * anything else (an unvalidated track) is treated as LINEAR. */
static oroya_interpolation effective_interp(const oroya_track *track) {
    oroya_interpolation m = track->interpolation;
    if (m == OROYA_INTERP_SMOOTH && track->property == OROYA_PROPERTY_ROTATION) {
        return OROYA_INTERP_LINEAR;
    }
    if (m == OROYA_INTERP_STERP &&
        (track->property != OROYA_PROPERTY_ROTATION || track->components != 4)) {
        return OROYA_INTERP_LINEAR;
    }
    return m;
}

/* Swing-twist interpolation between neighbouring keys (oroya/rotation.h). It is not a three.js
 * mode, so there is no double arithmetic to mirror; oroya_quat_sterp works in float. At a key
 * time the key is copied, so "at a key, that key's value" holds bit for bit as for the other
 * modes (sterp would renormalize it). */
static void sample_sterp(const oroya_track *track, uint32_t i1, double t, sink out) {
    const double t0 = track->times[i1 - 1], t1 = track->times[i1];
    const double alpha = (t - t0) / (t1 - t0);
    const float *v1 = track->values + (size_t)i1 * 4;
    const float *v0 = v1 - 4;
    if (alpha == 0.0) {
        for (uint32_t i = 0; i < 4; i++) {
            put(out, i, v0[i]);
        }
        return;
    }
    const oroya_quat a = {v0[0], v0[1], v0[2], v0[3]};
    const oroya_quat b = {v1[0], v1[1], v1[2], v1[3]};
    const oroya_quat q = oroya_quat_sterp(a, b, track->twist_axis, (float)alpha);
    put(out, 0, q.x);
    put(out, 1, q.y);
    put(out, 2, q.z);
    put(out, 3, q.w);
}

/* The key a cubic's tangent uses beyond one end of the track's interval [i1 - 1, i1], at its
 * start or its end, and that key's time (CubicInterpolant.intervalChanged_): the ending
 * decides. Returns the key's index. */
static int64_t ending_key(const oroya_track *track, uint32_t i1, bool start, oroya_ending ending,
                          double *time) {
    const float *pp = track->times;
    const int64_t n = track->key_count;
    const double edge = pp[start ? i1 - 1 : i1], other = pp[start ? i1 : i1 - 1];
    switch (ending) {
    case OROYA_ENDING_ZERO_SLOPE: *time = 2 * edge - other; return i1;
    case OROYA_ENDING_WRAP_AROUND: {
        /* The spacing of the two keys at the track's other end. */
        const int64_t key = start ? n - 2 : 1, neighbour = start ? n - 1 : 0;
        *time = edge + (double)pp[key] - (double)pp[neighbour];
        return key;
    }
    default: *time = other; return start ? i1 : (int64_t)i1 - 1;
    }
}

/* CubicInterpolant.intervalChanged_ + interpolate_ (three.js 0.187). */
static void sample_smooth(const oroya_track *track, uint32_t i1, double t, oroya_ending es,
                          oroya_ending ee, sink out) {
    const float *pp = track->times;
    const float *values = track->values;
    const uint32_t stride = track->components;
    const double t0 = pp[i1 - 1], t1 = pp[i1];
    int64_t i_prev = (int64_t)i1 - 2, i_next = (int64_t)i1 + 1;
    double t_prev = 0.0, t_next = 0.0;
    if (i_prev < 0) {
        i_prev = ending_key(track, i1, true, es, &t_prev);
    } else {
        t_prev = pp[i_prev];
    }
    if (i_next >= (int64_t)track->key_count) {
        i_next = ending_key(track, i1, false, ee, &t_next);
    } else {
        t_next = pp[i_next];
    }
    const double half_dt = (t1 - t0) * 0.5;
    const double wp = half_dt / (t0 - t_prev);
    const double wn = half_dt / (t_next - t1);
    const float *vp = values + (size_t)i_prev * stride;
    const float *vn = values + (size_t)i_next * stride;
    const float *v1 = values + (size_t)i1 * stride;
    const float *v0 = v1 - stride;

    const double p = (t - t0) / (t1 - t0), pp2 = p * p, ppp = pp2 * p;
    const double sp = -wp * ppp + 2 * wp * pp2 - wp * p;
    const double s0 = (1 + wp) * ppp + (-1.5 - 2 * wp) * pp2 + (-0.5 + wp) * p + 1;
    const double s1 = (-1 - wn) * ppp + (1.5 + wn) * pp2 + 0.5 * p;
    const double sn = wn * ppp - wn * pp2;
    for (uint32_t i = 0; i < stride; i++) {
        put(out, i, sp * vp[i] + s0 * v0[i] + s1 * v1[i] + sn * vn[i]);
    }
}

/* GLTFLoader's GLTFCubicSplineInterpolant (three.js 0.187); glTF 2.0 Appendix C. */
static void sample_cubicspline(const oroya_track *track, uint32_t i1, double t, sink out) {
    const uint32_t stride = track->components, stride3 = stride * 3;
    const double t0 = track->times[i1 - 1], t1 = track->times[i1];
    const double td = t1 - t0;
    const double p = (t - t0) / td, pp = p * p, ppp = pp * p;
    const double s2 = -2 * ppp + 3 * pp;
    const double s3 = ppp - pp;
    const double s0 = 1 - s2;
    const double s1 = s3 - pp + p;
    const float *k1 = track->values + (size_t)i1 * stride3;
    const float *k0 = k1 - stride3;
    if (track->property == OROYA_PROPERTY_ROTATION && stride == 4) {
        /* GLTFCubicSplineQuaternionInterpolant: componentwise, then Quaternion.normalize (no
         * hemisphere check: the keys' signs are taken as authored). */
        double q[4];
        for (uint32_t i = 0; i < 4; i++) {
            q[i] = s0 * k0[stride + i] + s1 * (k0[2 * stride + i] * td) + s2 * k1[stride + i] +
                   s3 * (k1[i] * td);
        }
        double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (l == 0) {
            q[0] = q[1] = q[2] = 0;
            q[3] = 1;
        } else {
            l = 1 / l;
            for (int i = 0; i < 4; i++) {
                q[i] *= l;
            }
        }
        for (uint32_t i = 0; i < 4; i++) {
            put(out, i, q[i]);
        }
        return;
    }
    for (uint32_t i = 0; i < stride; i++) {
        const double p0 = k0[stride + i];
        const double m0 = k0[2 * stride + i] * td;
        const double p1 = k1[stride + i];
        const double m1 = k1[i] * td;
        put(out, i, s0 * p0 + s1 * m0 + s2 * p1 + s3 * m1);
    }
}

static void sample_any(const oroya_track *track, double t, uint32_t *cursor,
                       const oroya_sample_options *options, sink out) {
    const uint32_t c = track->components;
    const uint32_t n =
        track->key_count > OROYA_TRACK_MAX_KEYS ? OROYA_TRACK_MAX_KEYS : track->key_count;
    if (n == 0 || !track->times || !track->values) {
        for (uint32_t i = 0; i < c; i++) {
            put(out, i, 0.0);
        }
        return;
    }
    const uint32_t word = cursor ? *cursor : 0;
    uint32_t index = word & CURSOR_INDEX_MASK;
    const oroya__seek where = oroya__track_seek(track->times, n, t, &index);
    const oroya_interpolation interp = effective_interp(track);
    uint32_t cached = 0;

    if (where == OROYA__SEEK_BEFORE || where == OROYA__SEEK_AFTER) {
        /* copySampleValue_: the stored value, untouched (cubic-spline rotations included). */
        const uint32_t k = where == OROYA__SEEK_BEFORE ? 0 : n - 1;
        const float *v = track->values +
                         (size_t)k * c * (interp == OROYA_INTERP_CUBICSPLINE ? 3u : 1u) +
                         (interp == OROYA_INTERP_CUBICSPLINE ? c : 0u);
        for (uint32_t i = 0; i < c; i++) {
            put(out, i, v[i]);
        }
    } else {
        const uint32_t i1 = index;
        switch (interp) {
        case OROYA_INTERP_STEP: {
            const float *v = track->values + (size_t)(i1 - 1) * c;
            for (uint32_t i = 0; i < c; i++) {
                put(out, i, v[i]);
            }
            break;
        }
        case OROYA_INTERP_CUBICSPLINE: sample_cubicspline(track, i1, t, out); break;
        case OROYA_INTERP_STERP: sample_sterp(track, i1, t, out); break;
        case OROYA_INTERP_SMOOTH: {
            oroya_ending es = options ? options->ending_start : OROYA_ENDING_ZERO_CURVATURE;
            oroya_ending ee = options ? options->ending_end : OROYA_ENDING_ZERO_CURVATURE;
            if ((unsigned)es > 2u) {
                es = OROYA_ENDING_ZERO_CURVATURE;
            }
            if ((unsigned)ee > 2u) {
                ee = OROYA_ENDING_ZERO_CURVATURE;
            }
            /* three computes the ending weights only when the interval changes. */
            const uint32_t ces = (word >> CURSOR_START_SHIFT) & 3u;
            const uint32_t cee = (word >> CURSOR_END_SHIFT) & 3u;
            if (where == OROYA__SEEK_SAME && ces != 0 && cee != 0) {
                es = (oroya_ending)(ces - 1);
                ee = (oroya_ending)(cee - 1);
            }
            cached = (((uint32_t)es + 1u) << CURSOR_START_SHIFT) |
                     (((uint32_t)ee + 1u) << CURSOR_END_SHIFT);
            sample_smooth(track, i1, t, es, ee, out);
            break;
        }
        default: {
            const double t0 = track->times[i1 - 1], t1 = track->times[i1];
            const double w1 = (t - t0) / (t1 - t0);
            const float *v1 = track->values + (size_t)i1 * c;
            const float *v0 = v1 - c;
            if (track->property == OROYA_PROPERTY_ROTATION && c == 4) {
                double q[4];
                oroya__slerp_flat(v0, v1, w1, q);
                for (uint32_t i = 0; i < 4; i++) {
                    put(out, i, q[i]);
                }
            } else {
                const double w0 = 1 - w1;
                for (uint32_t i = 0; i < c; i++) {
                    put(out, i, (double)v0[i] * w0 + (double)v1[i] * w1);
                }
            }
            break;
        }
        }
    }
    if (cursor) {
        *cursor = index | cached;
    }
}

void oroya_track_sample(const oroya_track *track, double t, uint32_t *cursor,
                        const oroya_sample_options *options, float *out) {
    if (!track || !out) {
        return;
    }
    sample_any(track, t, cursor, options, (sink){out, NULL});
}

void oroya_track_sample_f64(const oroya_track *track, double t, uint32_t *cursor,
                            const oroya_sample_options *options, double *out) {
    if (!track || !out) {
        return;
    }
    sample_any(track, t, cursor, options, (sink){NULL, out});
}
