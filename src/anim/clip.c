/* Animation clips and the AnimationUtils-style utilities. See include/oroya/clip.h. */
#include "oroya/clip.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "internal/base.h"
#include "internal/track.h"

/* The allocation starts with this header; users see only `pub`. */
typedef struct clip_block {
    oroya_clip pub;
    oroya_allocator allocator;
    void *marker_mem; /* oroya_clip_set_markers: the markers and their names, or NULL */
} clip_block;

#define CLIP_ALIGN 16u

static size_t align_up(size_t n, size_t a) {
    return n > SIZE_MAX - (a - 1) ? SIZE_MAX : (n + a - 1) & ~(a - 1);
}

static size_t add_size(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

static float auto_duration(const oroya_track *tracks, uint32_t count) {
    /* AnimationClip.resetDuration: starts from 0, so a clip of negative-time keys lasts 0. */
    float d = 0.0f;
    for (uint32_t i = 0; i < count; i++) {
        if (tracks[i].key_count > 0) {
            float last = tracks[i].times[tracks[i].key_count - 1];
            d = last > d ? last : d;
        }
    }
    return d;
}

/* Copies already-validated tracks into one allocation. */
static oroya_result clip_build(const char *name, float duration, oroya_blend_mode blend_mode,
                               const oroya_track *tracks, uint32_t track_count,
                               const oroya_allocator *allocator, oroya_clip **out,
                               oroya_error *err) {
    if (!name) {
        name = "";
    }
    size_t size = align_up(sizeof(clip_block), CLIP_ALIGN);
    size = add_size(size, oroya__mul_size(track_count, sizeof(oroya_track)));
    size = add_size(size, strlen(name) + 1);
    for (uint32_t i = 0; i < track_count; i++) {
        size = add_size(size, strlen(tracks[i].target) + 1);
    }
    for (uint32_t i = 0; i < track_count; i++) {
        size = align_up(size, CLIP_ALIGN);
        size = add_size(size, oroya__mul_size(tracks[i].key_count, sizeof(float)));
        size = align_up(size, CLIP_ALIGN);
        size = add_size(size, oroya__mul_size(oroya_track_value_count(&tracks[i]), sizeof(float)));
    }
    unsigned char *mem = oroya__alloc(allocator, size, CLIP_ALIGN);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                           "clip \"%s\": cannot allocate %zu bytes for %u tracks", name, size,
                           track_count);
    }
    clip_block *block = (clip_block *)(void *)mem;
    memset(block, 0, sizeof *block);
    if (allocator) {
        block->allocator = *allocator;
    }
    size_t at = align_up(sizeof(clip_block), CLIP_ALIGN);
    oroya_track *dst = track_count ? (oroya_track *)(void *)(mem + at) : NULL;
    at += (size_t)track_count * sizeof(oroya_track);
    char *s = (char *)(mem + at);
    size_t len = strlen(name) + 1;
    memcpy(s, name, len);
    block->pub.name = s;
    at += len;
    for (uint32_t i = 0; i < track_count; i++) {
        dst[i] = tracks[i];
        len = strlen(tracks[i].target) + 1;
        memcpy(mem + at, tracks[i].target, len);
        dst[i].target = (const char *)(mem + at);
        at += len;
    }
    for (uint32_t i = 0; i < track_count; i++) {
        at = align_up(at, CLIP_ALIGN);
        memcpy(mem + at, tracks[i].times, (size_t)tracks[i].key_count * sizeof(float));
        dst[i].times = (const float *)(void *)(mem + at);
        at += (size_t)tracks[i].key_count * sizeof(float);
        at = align_up(at, CLIP_ALIGN);
        size_t nv = oroya_track_value_count(&tracks[i]);
        memcpy(mem + at, tracks[i].values, nv * sizeof(float));
        dst[i].values = (const float *)(void *)(mem + at);
        dst[i].value_count = (uint32_t)nv;
        at += nv * sizeof(float);
    }
    block->pub.duration = duration > 0.0f ? duration : auto_duration(tracks, track_count);
    block->pub.blend_mode = blend_mode;
    block->pub.track_count = track_count;
    block->pub.tracks = dst;
    block->pub.first_normalized_track = UINT32_MAX;
    block->pub.first_normalized_key = UINT32_MAX;
    block->pub.key_generation = oroya__clip_generation_next();
    *out = &block->pub;
    return OROYA_OK;
}

/* A number no other clip and no earlier state of this clip has (oroya_clip.key_generation):
 * a library-wide counter, so that a copy of a clip's keys (a rig's) is not taken for another
 * clip the allocator put at the same address. It wraps after 2^32 creations and rewrites. */
uint32_t oroya__clip_generation_next(void) {
    static _Atomic uint32_t next = 1;
    return atomic_fetch_add(&next, 1u);
}

/* Rotation keys that are normalized at create: every value of a 4-component ROTATION track,
 * except CUBICSPLINE tangents. Returns the float offset of key k's quaternion. */
static bool is_rotation_track(const oroya_track *t) {
    return t->property == OROYA_PROPERTY_ROTATION && t->components == 4;
}

static size_t rotation_key_at(const oroya_track *t, uint32_t k) {
    return t->interpolation == OROYA_INTERP_CUBICSPLINE ? (size_t)k * 12u + 4u : (size_t)k * 4u;
}

static double quat_length(const float *q) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    return sqrt(x * x + y * y + z * z + w * w);
}

/* A zero quaternion has no direction to normalize to; refused before anything is copied. */
static oroya_result check_rotation_keys(const char *name, const oroya_track *tracks,
                                        uint32_t track_count, oroya_error *err) {
    for (uint32_t i = 0; i < track_count; i++) {
        const oroya_track *t = &tracks[i];
        if (!is_rotation_track(t)) {
            continue;
        }
        for (uint32_t k = 0; k < t->key_count; k++) {
            const float *q = t->values + rotation_key_at(t, k);
            double len = quat_length(q);
            if (!isfinite(len)) {
                return oroya__fail(err, OROYA_ERR_NON_FINITE,
                                   "clip \"%s\": track %u (\"%s\" rotation) key %u: quaternion "
                                   "(%g, %g, %g, %g) is not finite",
                                   name, i, t->target, k, (double)q[0], (double)q[1], (double)q[2],
                                   (double)q[3]);
            }
            if (len == 0.0) {
                return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                                   "clip \"%s\": track %u (\"%s\" rotation) key %u: the zero "
                                   "quaternion is not a rotation",
                                   name, i, t->target, k);
            }
        }
    }
    return OROYA_OK;
}

static void normalize_rotation_keys(oroya_clip *clip) {
    clip->normalized_key_count = 0;
    clip->first_normalized_track = UINT32_MAX;
    clip->first_normalized_key = UINT32_MAX;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *t = &clip->tracks[i];
        if (!is_rotation_track(t)) {
            continue;
        }
        float *values = oroya_clip_track_values(clip, i);
        for (uint32_t k = 0; k < t->key_count; k++) {
            float *q = values + rotation_key_at(t, k);
            double len = quat_length(q);
            if (fabs(len - 1.0) <= OROYA_CLIP_UNIT_TOLERANCE) {
                continue;
            }
            for (int c = 0; c < 4; c++) {
                q[c] = (float)((double)q[c] / len);
            }
            if (clip->normalized_key_count++ == 0) {
                clip->first_normalized_track = i;
                clip->first_normalized_key = k;
            }
        }
    }
}

oroya_result oroya_clip_create(const oroya_clip_desc *desc, oroya_clip **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_clip_create: %s is NULL",
                           desc ? "out" : "desc");
    }
    const char *name = desc->name ? desc->name : "";
    if (desc->track_count > 0 && !desc->tracks) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "clip \"%s\": tracks is NULL but track_count is %u", name,
                           desc->track_count);
    }
    if (!isfinite(desc->duration)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE, "clip \"%s\": duration %g is not finite",
                           name, (double)desc->duration);
    }
    if ((unsigned)desc->blend_mode > (unsigned)OROYA_BLEND_ADDITIVE) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "clip \"%s\": unknown blend mode %d",
                           name, (int)desc->blend_mode);
    }
    for (uint32_t i = 0; i < desc->track_count; i++) {
        oroya_result r = oroya_track_validate(&desc->tracks[i], i, err);
        if (r != OROYA_OK) {
            return r;
        }
    }
    oroya_result r = check_rotation_keys(name, desc->tracks, desc->track_count, err);
    if (r != OROYA_OK) {
        return r;
    }
    r = clip_build(name, desc->duration, desc->blend_mode, desc->tracks, desc->track_count,
                   &desc->allocator, out, err);
    if (r == OROYA_OK) {
        normalize_rotation_keys(*out);
    }
    return r;
}

void oroya_clip_destroy(oroya_clip *clip) {
    if (!clip) {
        return;
    }
    clip_block *block = (clip_block *)(void *)clip;
    oroya_allocator a = block->allocator;
    oroya__free(&a, block->marker_mem);
    oroya__free(&a, block);
}

oroya_result oroya_clip_set_markers(oroya_clip *clip, const oroya_marker *markers, uint32_t count,
                                    oroya_error *err) {
    if (!clip || (count && !markers)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_clip_set_markers: %s is NULL",
                           clip ? "markers" : "clip");
    }
    size_t size = oroya__mul_size(count, sizeof(oroya_marker));
    for (uint32_t i = 0; i < count; i++) {
        if (!markers[i].name) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA, "clip \"%s\": marker %u: name is NULL",
                               clip->name, i);
        }
        double t = markers[i].time;
        if (!isfinite(t) || t < 0 || t > (double)clip->duration) {
            return oroya__fail(err, isfinite(t) ? OROYA_ERR_INVALID_DATA : OROYA_ERR_NON_FINITE,
                               "clip \"%s\": marker %u \"%s\": time %.9g is outside the clip "
                               "[0, %.9g]",
                               clip->name, i, markers[i].name, t, (double)clip->duration);
        }
        size = add_size(size, strlen(markers[i].name) + 1);
    }
    clip_block *block = (clip_block *)(void *)clip;
    unsigned char *mem = NULL;
    if (count) {
        mem = oroya__alloc(&block->allocator, size, CLIP_ALIGN);
        if (!mem) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                               "clip \"%s\": cannot allocate %zu bytes for %u markers", clip->name,
                               size, count);
        }
        oroya_marker *dst = (oroya_marker *)(void *)mem;
        char *names = (char *)(mem + (size_t)count * sizeof(oroya_marker));
        for (uint32_t i = 0; i < count; i++) {
            /* Insertion sort by time, stable: marker lists are short. */
            uint32_t k = i;
            while (k > 0 && dst[k - 1].time > markers[i].time) {
                dst[k] = dst[k - 1];
                k--;
            }
            size_t len = strlen(markers[i].name) + 1;
            memcpy(names, markers[i].name, len);
            dst[k] = (oroya_marker){markers[i].time, names};
            names += len;
        }
    }
    oroya__free(&block->allocator, block->marker_mem);
    block->marker_mem = mem;
    clip->markers = (const oroya_marker *)(void *)mem;
    clip->marker_count = count;
    clip->marker_generation++;
    return OROYA_OK;
}

oroya_result oroya_clip_validate(const oroya_clip *clip, oroya_error *err) {
    if (!clip) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_clip_validate: clip is NULL");
    }
    if (!clip->name) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "clip: name is NULL");
    }
    if (!isfinite(clip->duration) || clip->duration < 0.0f) {
        return oroya__fail(
            err, isfinite(clip->duration) ? OROYA_ERR_INVALID_DATA : OROYA_ERR_NON_FINITE,
            "clip \"%s\": duration %g is not finite and >= 0", clip->name, (double)clip->duration);
    }
    if ((unsigned)clip->blend_mode > (unsigned)OROYA_BLEND_ADDITIVE) {
        return oroya__fail(err, OROYA_ERR_INVALID_DATA, "clip \"%s\": unknown blend mode %d",
                           clip->name, (int)clip->blend_mode);
    }
    if (clip->track_count > 0 && !clip->tracks) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "clip \"%s\": tracks is NULL but track_count is %u", clip->name,
                           clip->track_count);
    }
    for (uint32_t i = 0; i < clip->track_count; i++) {
        oroya_result r = oroya_track_validate(&clip->tracks[i], i, err);
        if (r != OROYA_OK) {
            return r;
        }
    }
    return OROYA_OK;
}

float *oroya_clip_track_values(oroya_clip *clip, uint32_t track) {
    if (!clip || track >= clip->track_count) {
        return NULL;
    }
    /* The clip owns the arrays (clip_build), so casting away the const of the public view is
     * writing to our own memory. */
    return (float *)(uintptr_t)clip->tracks[track].values;
}

static const oroya_allocator *clip_allocator(const oroya_clip *clip) {
    return &((const clip_block *)(const void *)clip)->allocator;
}

oroya_result oroya_clip_clone(const oroya_clip *clip, oroya_clip **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!clip || !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_clip_clone: %s is NULL",
                           clip ? "out" : "clip");
    }
    oroya_result r = clip_build(clip->name, clip->duration, clip->blend_mode, clip->tracks,
                                clip->track_count, clip_allocator(clip), out, err);
    if (r == OROYA_OK) {
        /* A zero duration is kept as is rather than recomputed. */
        (*out)->duration = clip->duration;
        (*out)->normalized_key_count = clip->normalized_key_count;
        (*out)->first_normalized_track = clip->first_normalized_track;
        (*out)->first_normalized_key = clip->first_normalized_key;
        if (clip->marker_count) {
            r = oroya_clip_set_markers(*out, clip->markers, clip->marker_count, err);
            if (r != OROYA_OK) {
                oroya_clip_destroy(*out);
                *out = NULL;
            }
        }
    }
    return r;
}

/* ---- subclip --------------------------------------------------------------------------- */

oroya_result oroya_clip_subclip(const oroya_clip *clip, const char *name, double start_frame,
                                double end_frame, double fps, oroya_clip **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!clip || !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_clip_subclip: %s is NULL",
                           clip ? "out" : "clip");
    }
    if (!name) {
        name = "";
    }
    if (fps == 0.0) {
        fps = 30.0;
    }
    if (!(fps > 0.0) || !isfinite(fps) || isnan(start_frame) || isnan(end_frame)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "subclip \"%s\" of \"%s\": fps %g must be finite and > 0, frames "
                           "%g and %g must not be NaN",
                           name, clip->name, fps, start_frame, end_frame);
    }
    const oroya_allocator *alloc = clip_allocator(clip);
    oroya_track *kept = NULL;
    if (clip->track_count > 0) {
        kept = oroya__alloc(alloc, oroya__mul_size(clip->track_count, sizeof *kept),
                            _Alignof(oroya_track));
        if (!kept) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                               "subclip \"%s\": cannot allocate %u track views", name,
                               clip->track_count);
        }
    }
    uint32_t kept_count = 0;
    double min_start = INFINITY;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *tr = &clip->tracks[i];
        /* Frames grow with time (fps > 0), so the kept keys are one run. */
        uint32_t from = 0, to = 0;
        bool found = false;
        for (uint32_t j = 0; j < tr->key_count; j++) {
            double frame = (double)tr->times[j] * fps;
            if (frame < start_frame || frame >= end_frame) {
                continue;
            }
            if (!found) {
                from = j;
                found = true;
            }
            to = j + 1;
        }
        if (!found) {
            continue;
        }
        oroya_track view = *tr;
        uint32_t stride = oroya_track_key_stride(tr);
        view.key_count = to - from;
        view.times = tr->times + from;
        view.values = tr->values + (size_t)from * stride;
        view.value_count = 0;
        kept[kept_count++] = view;
        if ((double)view.times[0] < min_start) {
            min_start = view.times[0];
        }
    }
    oroya_result r = clip_build(name, 0.0f, clip->blend_mode, kept, kept_count, alloc, out, err);
    oroya__free(alloc, kept);
    if (r != OROYA_OK) {
        return r;
    }
    oroya_clip *sub = *out;
    /* KeyframeTrack.shift(-minStartTime): a Float32Array += in double, stored as float. */
    double offset = -1.0 * min_start;
    for (uint32_t i = 0; i < sub->track_count && offset != 0.0; i++) {
        float *times = (float *)(uintptr_t)sub->tracks[i].times;
        for (uint32_t k = 0; k < sub->tracks[i].key_count; k++) {
            times[k] = (float)((double)times[k] + offset);
        }
    }
    sub->duration = auto_duration(sub->tracks, sub->track_count);
    for (uint32_t i = 0; i < sub->track_count; i++) {
        r = oroya_track_validate(&sub->tracks[i], i, err);
        if (r != OROYA_OK) {
            oroya_clip_destroy(sub);
            *out = NULL;
            return r;
        }
    }
    return OROYA_OK;
}

/* ---- optimize -------------------------------------------------------------------------- */

#define OPTIMIZE_MAX_RUN 1024u

typedef struct {
    float times[2];
    float *values;  /* 2 * stride */
    float *reduced; /* components */
    float *orig;    /* components */
} opt_scratch;

/* Compared as the float samples users get, so that with tolerance 0 a key between two equal
 * ones goes even when the double lerp is off by a rounding error. */
static bool close_enough(const oroya_track *tr, const float *a, const float *b, double tol) {
    double sign = 1.0;
    if (tr->property == OROYA_PROPERTY_ROTATION && tr->components == 4) {
        double d =
            (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
        sign = d < 0.0 ? -1.0 : 1.0;
    }
    for (uint32_t i = 0; i < tr->components; i++) {
        if (!(fabs((double)a[i] - sign * (double)b[i]) <= tol)) {
            return false;
        }
    }
    return true;
}

/* Whether the interval from key a straight to key b reproduces every key strictly between
 * them, and the original curve at 1/4, 1/2 and 3/4 of each original interval. */
static bool reproduces(const oroya_track *tr, uint32_t a, uint32_t b, double tol, opt_scratch *s) {
    const uint32_t stride = oroya_track_key_stride(tr);
    oroya_track reduced = *tr;
    reduced.key_count = 2;
    s->times[0] = tr->times[a];
    s->times[1] = tr->times[b];
    memcpy(s->values, tr->values + (size_t)a * stride, stride * sizeof(float));
    memcpy(s->values + stride, tr->values + (size_t)b * stride, stride * sizeof(float));
    reduced.times = s->times;
    reduced.values = s->values;
    oroya_track window = *tr;
    window.key_count = b - a + 1;
    window.times = tr->times + a;
    window.values = tr->values + (size_t)a * stride;
    static const double fractions[4] = {0.0, 0.25, 0.5, 0.75};
    for (uint32_t k = a; k < b; k++) {
        const double t0 = tr->times[k], t1 = tr->times[k + 1];
        for (int f = 0; f < 4; f++) {
            if (k == a && f == 0) {
                continue;
            }
            const double t = t0 + (t1 - t0) * fractions[f];
            oroya_track_sample(&window, t, NULL, NULL, s->orig);
            oroya_track_sample(&reduced, t, NULL, NULL, s->reduced);
            if (!close_enough(tr, s->orig, s->reduced, tol)) {
                return false;
            }
        }
    }
    return true;
}

static uint32_t optimize_track(oroya_track *tr, double tol, unsigned char *keep, opt_scratch *s) {
    const uint32_t n = tr->key_count;
    /* SMOOTH (not rotations): slopes from the neighbouring keys. STERP with no twist axis:
     * the mixer twists about the bound bone's long axis, which the clip does not know (alone,
     * the track samples as slerp), so no removal can be checked. */
    const bool sterp_unknown_axis = tr->interpolation == OROYA_INTERP_STERP &&
                                    tr->twist_axis.x == 0 && tr->twist_axis.y == 0 &&
                                    tr->twist_axis.z == 0;
    if (n <= 2 ||
        (tr->interpolation == OROYA_INTERP_SMOOTH && tr->property != OROYA_PROPERTY_ROTATION) ||
        sterp_unknown_axis) {
        return n;
    }
    keep[0] = 1;
    keep[n - 1] = 1;
    uint32_t last = 0;
    for (uint32_t i = 1; i + 1 < n; i++) {
        keep[i] = (i + 1 - last > OPTIMIZE_MAX_RUN) || !reproduces(tr, last, i + 1, tol, s);
        if (keep[i]) {
            last = i;
        }
    }
    const uint32_t stride = oroya_track_key_stride(tr);
    float *times = (float *)(uintptr_t)tr->times;
    float *values = (float *)(uintptr_t)tr->values;
    uint32_t w = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!keep[i]) {
            continue;
        }
        if (w != i) {
            times[w] = times[i];
            memmove(values + (size_t)w * stride, values + (size_t)i * stride,
                    stride * sizeof(float));
        }
        w++;
    }
    tr->key_count = w;
    tr->value_count = w * stride;
    return w;
}

oroya_result oroya_clip_optimize(oroya_clip *clip, float tolerance, oroya_error *err) {
    if (!clip) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_clip_optimize: clip is NULL");
    }
    if (!(tolerance >= 0.0f) || !isfinite(tolerance)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "clip \"%s\": optimize tolerance %g must be finite and >= 0", clip->name,
                           (double)tolerance);
    }
    uint32_t max_keys = 0, max_stride = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const oroya_track *tr = &clip->tracks[i];
        max_keys = tr->key_count > max_keys ? tr->key_count : max_keys;
        uint32_t stride = oroya_track_key_stride(tr);
        max_stride = stride > max_stride ? stride : max_stride;
    }
    if (max_keys <= 2) {
        return OROYA_OK;
    }
    /* One block: the keep flags, then two key values and two samples. */
    size_t flags = align_up(max_keys, 16);
    size_t vals = align_up(oroya__mul_size(2u * (size_t)max_stride, sizeof(float)), 16);
    size_t size =
        add_size(add_size(flags, vals), oroya__mul_size(2u * (size_t)max_stride, sizeof(float)));
    const oroya_allocator *alloc = clip_allocator(clip);
    unsigned char *mem = oroya__alloc(alloc, size, 16);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                           "clip \"%s\": cannot allocate %zu bytes of optimize scratch", clip->name,
                           size);
    }
    opt_scratch s;
    s.values = (float *)(void *)(mem + flags);
    s.reduced = (float *)(void *)(mem + flags + vals);
    s.orig = s.reduced + max_stride;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        optimize_track(&clip->tracks[i], tolerance, mem, &s);
    }
    oroya__free(alloc, mem);
    clip->key_generation = oroya__clip_generation_next();
    return OROYA_OK;
}
