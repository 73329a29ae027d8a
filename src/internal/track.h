/* Internals of the track module shared with the clip module (optimize, subclip). */
#ifndef OROYA_INTERNAL_TRACK_H
#define OROYA_INTERNAL_TRACK_H

#include "oroya/track.h"

/* Where Interpolant.evaluate's search ended: before the first key, at or after the last,
 * inside the interval the index already named, or inside a new one (*io_index = i1, the key
 * after t, with times[i1 - 1] <= t < times[i1]). */
typedef enum oroya__seek {
    OROYA__SEEK_BEFORE = 0,
    OROYA__SEEK_AFTER,
    OROYA__SEEK_SAME,
    OROYA__SEEK_CHANGED
} oroya__seek;

/* three.js 0.187 Interpolant.evaluate's interval search over n (>= 1) float times. *io_index
 * is the cached index (0..n; larger values are clamped) and receives the new one. */
oroya__seek oroya__track_seek(const float *times, uint32_t n, double t, uint32_t *io_index);

/* A key_generation no clip has had (clip.c): at create and at each in-place key rewrite. */
uint32_t oroya__clip_generation_next(void);

/* three.js Quaternion.slerpFlat in double. */
void oroya__slerp_flat(const float *a, const float *b, double t, double out[4]);
void oroya__slerp_flat_d(const double *a, const double *b, double t, double out[4]);

#endif
