/* Private mixer entry points, for tests. */
#ifndef OROYA_INTERNAL_MIXER_H
#define OROYA_INTERNAL_MIXER_H

#include <stdint.h>
#include <string.h>

#include "oroya/mixer.h"

/* true: every update takes the property path (three.js's PropertyMixer in double), also with
 * a rig: the reference the pose kernel path is tested against. Bone matrices are then
 * computed from the scene. Takes effect at the next update. */
void oroya__mixer_set_reference(oroya_mixer *mixer, bool reference);

/* The largest float <= t: compared with float key times it gives the same answers as t
 * itself (three compares its double time with Float32Array times), so a STEP key or an
 * interval starts on exactly the frame it does in three. nextafterf(f, -INFINITY) where the
 * rounded f is above t, as a bit step (the library call cost more than the rest): a positive
 * f moves one unit toward 0, a negative one away from it. f > t excludes NaN; a zero f is -0
 * (t a tiny negative), which steps to -FLT_TRUE_MIN; +inf (t above FLT_MAX) steps to
 * FLT_MAX, -FLT_MAX to -inf, as nextafterf does (test_mixer's test_float_below). */
static inline float oroya__float_below(double t) {
    float f = (float)t;
    if ((double)f > t) {
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        u = u >> 31 ? u + 1 : u - 1;
        memcpy(&f, &u, sizeof f);
    }
    return f;
}

#endif
