/* oroya_clip_make_additive: three.js 0.187's AnimationUtils.makeClipAdditive, in place.
 *
 * Precision follows three exactly: key values are Float32Arrays there, the reference value
 * is a Float32 copy (slice or a fresh interpolant's Float32 result), the conjugated
 * reference quaternion is written back into that Float32 copy, and every product or
 * difference is computed in double and stored as float. */
#include <math.h>
#include <string.h>

#include "internal/base.h"
#include "internal/track.h"
#include "oroya/mixer.h"

static uint32_t stride_of(const oroya_track *t) {
    return t->interpolation == OROYA_INTERP_CUBICSPLINE ? t->components * 3 : t->components;
}

static void multiply_into(float *dst, const float *ref, const float *q) {
    double x0 = ref[0], y0 = ref[1], z0 = ref[2], w0 = ref[3];
    double x1 = q[0], y1 = q[1], z1 = q[2], w1 = q[3];
    dst[0] = (float)(x0 * w1 + w0 * x1 + y0 * z1 - z0 * y1);
    dst[1] = (float)(y0 * w1 + w0 * y1 + z0 * x1 - x0 * z1);
    dst[2] = (float)(z0 * w1 + w0 * z1 + x0 * y1 - y0 * x1);
    dst[3] = (float)(w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1);
}

oroya_result oroya_clip_make_additive(oroya_clip *target, double reference_frame,
                                      const oroya_clip *reference, double fps) {
    if (!target || !isfinite(reference_frame) || isnan(fps) ||
        (target->track_count && !target->tracks))
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!reference)
        reference = target;
    if (reference->track_count && !reference->tracks)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!(fps > 0) || isinf(fps))
        fps = 30;
    for (uint32_t i = 0; i < reference->track_count; i++)
        if (reference->tracks[i].components > OROYA_MAX_ADDITIVE_COMPONENTS)
            return OROYA_ERR_LIMIT;
    double reference_time = reference_frame / fps;

    for (uint32_t i = 0; i < reference->track_count; i++) {
        const oroya_track *rt = &reference->tracks[i];
        if (!rt->target || rt->key_count == 0 || !rt->times || !rt->values)
            continue;
        if (rt->property == OROYA_PROPERTY_VISIBLE)
            continue; /* three skips boolean (and string) tracks */
        uint32_t ti = 0;
        for (; ti < target->track_count; ti++) {
            const oroya_track *t = &target->tracks[ti];
            if (t->property == rt->property && t->target && !strcmp(t->target, rt->target))
                break;
        }
        if (ti == target->track_count)
            continue;
        oroya_track *tt = &target->tracks[ti];
        if (tt->components != rt->components || tt->key_count == 0 || !tt->values)
            continue;

        uint32_t n = rt->components;
        float ref[OROYA_MAX_ADDITIVE_COMPONENTS];
        uint32_t ref_stride = stride_of(rt);
        uint32_t ref_offset = rt->interpolation == OROYA_INTERP_CUBICSPLINE ? n : 0;
        uint32_t last = rt->key_count - 1;
        if (reference_time <= (double)rt->times[0]) {
            memcpy(ref, rt->values + ref_offset, n * sizeof(float));
        } else if (reference_time >= (double)rt->times[last]) {
            memcpy(ref, rt->values + (size_t)last * ref_stride + ref_offset, n * sizeof(float));
        } else {
            uint32_t cursor = 0;
            oroya_track_sample(rt, reference_time, &cursor, NULL, ref);
        }

        bool rotation = rt->property == OROYA_PROPERTY_ROTATION;
        if (rotation) {
            /* Quaternion.normalize().conjugate(), stored back as float. */
            double x = ref[0], y = ref[1], z = ref[2], w = ref[3];
            double l = sqrt(x * x + y * y + z * z + w * w);
            if (l == 0) {
                x = y = z = 0;
                w = 1;
            } else {
                l = 1 / l;
                x *= l, y *= l, z *= l, w *= l;
            }
            ref[0] = (float)-x, ref[1] = (float)-y, ref[2] = (float)-z, ref[3] = (float)w;
        }

        float *values = oroya_clip_track_values(target, ti);
        if (!values)
            continue;
        bool cubic = tt->interpolation == OROYA_INTERP_CUBICSPLINE;
        uint32_t stride = stride_of(tt);
        uint32_t offset = cubic ? n : 0;
        for (uint32_t k = 0; k < tt->key_count; k++) {
            float *v = values + (size_t)k * stride + offset;
            if (rotation) {
                multiply_into(v, ref, v);
                if (cubic) {
                    /* Deviation 3: the tangents are derivatives of q, so the left
                     * multiplication by conj(ref) applies to them too; three leaves them. */
                    multiply_into(v - n, ref, v - n);
                    multiply_into(v + n, ref, v + n);
                }
            } else {
                for (uint32_t c = 0; c < n; c++)
                    v[c] = (float)((double)v[c] - (double)ref[c]);
            }
        }
    }
    target->blend_mode = OROYA_BLEND_ADDITIVE;
    target->key_generation = oroya__clip_generation_next();
    return OROYA_OK;
}

oroya_result oroya_make_clip_additive(oroya_clip *target, double reference_frame,
                                      const oroya_clip *reference, double fps) {
    return oroya_clip_make_additive(target, reference_frame, reference, fps);
}
