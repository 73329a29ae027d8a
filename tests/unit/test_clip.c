/* Tests for oroya/clip.h: create/validate/destroy, ownership, in-place values, clone,
 * subclip (against three.js AnimationUtils.subclip), optimize, and allocation failures. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/rotation.h"
#include "oroya/track.h"
#include "oroya_test.h"

/* ---- a counting allocator that can fail the Nth allocation --------------------------------- */

typedef struct {
    int allocs, frees, fail_at; /* fail_at: 1-based allocation index to fail, 0 = never */
} counting;

static void *count_alloc(size_t size, size_t align, void *user) {
    counting *c = user;
    c->allocs++;
    if (c->fail_at && c->allocs == c->fail_at) {
        return NULL;
    }
    (void)align;
    return malloc(size);
}

static void count_free(void *ptr, void *user) {
    counting *c = user;
    if (ptr) {
        c->frees++;
    }
    free(ptr);
}

static oroya_allocator counting_allocator(counting *c) {
    return (oroya_allocator){count_alloc, count_free, c};
}

/* ---- create, validate, ownership ------------------------------------------------------------ */

static void test_create_copies_and_owns(void) {
    float *times = malloc(3 * sizeof(float));
    float *values = malloc(9 * sizeof(float));
    char *target = malloc(8);
    char *name = malloc(8);
    times[0] = 0.0f, times[1] = 0.5f, times[2] = 1.25f;
    for (int i = 0; i < 9; i++) {
        values[i] = (float)i;
    }
    strcpy(target, "hips");
    strcpy(name, "walk");
    oroya_track tr = {.target = target,
                      .property = OROYA_PROPERTY_TRANSLATION,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 3,
                      .key_count = 3,
                      .times = times,
                      .values = values};
    counting c = {0};
    oroya_clip_desc desc = {.name = name,
                            .blend_mode = OROYA_BLEND_ADDITIVE,
                            .tracks = &tr,
                            .track_count = 1,
                            .allocator = counting_allocator(&c)};
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_OK);
    /* The caller's arrays can go right away: the clip holds copies. */
    memset(times, 0xff, 3 * sizeof(float));
    memset(values, 0xff, 9 * sizeof(float));
    strcpy(target, "xxxx");
    strcpy(name, "yyyy");
    free(times);
    free(values);
    free(target);
    free(name);
    OT_CHECK(clip != NULL);
    if (!clip) {
        return;
    }
    OT_CHECK(strcmp(clip->name, "walk") == 0);
    OT_EQ_INT(clip->track_count, 1);
    OT_EQ_INT(clip->blend_mode, OROYA_BLEND_ADDITIVE);
    /* Duration 0 = the last key time of the longest track. */
    OT_CHECK(clip->duration == 1.25f);
    OT_CHECK(strcmp(clip->tracks[0].target, "hips") == 0);
    OT_CHECK(clip->tracks[0].times[1] == 0.5f);
    OT_CHECK(clip->tracks[0].values[8] == 8.0f);
    OT_EQ_INT(clip->tracks[0].value_count, 9);
    OT_EQ_INT(oroya_clip_validate(clip, &err), OROYA_OK);
    OT_EQ_INT(c.allocs, 1); /* one allocation per clip */

    /* In-place value edits go through oroya_clip_track_values and show in sampling. */
    float *v = oroya_clip_track_values(clip, 0);
    OT_CHECK(v == clip->tracks[0].values);
    v[3] = 10.0f;
    float p[3];
    oroya_track_sample(&clip->tracks[0], 0.25, NULL, NULL, p);
    OT_NEAR(p[0], 5.0, 1e-6); /* halfway from 0 to 10 */
    OT_CHECK(oroya_clip_track_values(clip, 1) == NULL);
    OT_CHECK(oroya_clip_track_values(NULL, 0) == NULL);
    /* A bad edit is caught by validate, with the key named. */
    v[7] = NAN;
    OT_EQ_INT(oroya_clip_validate(clip, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK(strstr(err.message, "tracks[0]") && strstr(err.message, "key 2") &&
             strstr(err.message, "hips"));
    v[7] = 7.0f;

    /* Clone: equal content, separate memory, same allocator. */
    oroya_clip *copy = NULL;
    OT_EQ_INT(oroya_clip_clone(clip, &copy, &err), OROYA_OK);
    if (copy) {
        OT_CHECK(copy != clip && copy->tracks[0].values != clip->tracks[0].values);
        OT_CHECK(memcmp(copy->tracks[0].values, clip->tracks[0].values, 9 * sizeof(float)) == 0);
        OT_CHECK(strcmp(copy->name, "walk") == 0 && copy->duration == clip->duration);
        OT_EQ_INT(copy->blend_mode, OROYA_BLEND_ADDITIVE);
        OT_EQ_INT(c.allocs, 2);
        oroya_clip_destroy(copy);
    }
    oroya_clip_destroy(clip);
    OT_EQ_INT(c.frees, c.allocs);
    oroya_clip_destroy(NULL);
}

static void test_create_errors(void) {
    static const float times[2] = {0, 1};
    static const float values[6] = {0, 0, 0, 1, 1, 1};
    static const float bad_times[2] = {1, 1};
    const oroya_track good = {.target = "a",
                              .property = OROYA_PROPERTY_SCALE,
                              .interpolation = OROYA_INTERP_STEP,
                              .components = 3,
                              .key_count = 2,
                              .times = times,
                              .values = values};
    oroya_track tracks[3] = {good, good, good};
    tracks[2].times = bad_times;
    tracks[2].target = "arm";
    oroya_clip *clip = (oroya_clip *)&clip;
    oroya_error err = {0};
    oroya_clip_desc desc = {.name = "c", .tracks = tracks, .track_count = 3};
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_ERR_BAD_TIMES);
    OT_CHECK(clip == NULL);
    OT_CHECK(strstr(err.message, "tracks[2]") && strstr(err.message, "arm") &&
             strstr(err.message, "key 1"));
    OT_EQ_INT(err.result, OROYA_ERR_BAD_TIMES);

    desc.track_count = 2;
    desc.duration = NAN;
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_ERR_NON_FINITE);
    desc.duration = INFINITY;
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_ERR_NON_FINITE);
    desc.duration = 0;
    desc.blend_mode = (oroya_blend_mode)7;
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_ERR_INVALID_ARGUMENT);
    desc.blend_mode = OROYA_BLEND_NORMAL;
    desc.tracks = NULL;
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_clip_create(NULL, &clip, &err), OROYA_ERR_INVALID_ARGUMENT);
    desc.tracks = tracks;
    OT_EQ_INT(oroya_clip_create(&desc, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_clip_validate(NULL, &err), OROYA_ERR_INVALID_ARGUMENT);

    /* Each of the validation errors reaches the caller through create. */
    struct {
        oroya_track track;
        oroya_result want;
    } cases[6];
    for (int i = 0; i < 6; i++) {
        cases[i].track = good;
    }
    static const float nan_values[6] = {0, 0, 0, 1, NAN, 1};
    cases[0].track.key_count = 0, cases[0].want = OROYA_ERR_NO_KEYS;
    cases[1].track.times = bad_times, cases[1].want = OROYA_ERR_BAD_TIMES;
    cases[2].track.value_count = 5, cases[2].want = OROYA_ERR_VALUE_COUNT;
    cases[3].track.property = (oroya_property)17, cases[3].want = OROYA_ERR_UNKNOWN_PROPERTY;
    cases[4].track.values = nan_values, cases[4].want = OROYA_ERR_NON_FINITE;
    cases[5].track.interpolation = OROYA_INTERP_CUBICSPLINE;
    cases[5].track.value_count = 6, cases[5].want = OROYA_ERR_VALUE_COUNT;
    for (int i = 0; i < 6; i++) {
        oroya_track two[2] = {good, cases[i].track};
        oroya_clip_desc d = {.name = "c", .tracks = two, .track_count = 2};
        memset(&err, 0, sizeof err);
        OT_EQ_INT(oroya_clip_create(&d, &clip, &err), cases[i].want);
        OT_CHECK_MSG(strstr(err.message, "tracks[1]") != NULL, "case %d: %s", i, err.message);
    }

    /* An empty clip is allowed (three allows it), with duration 0; NULL name is "". */
    oroya_clip_desc empty = {0};
    OT_EQ_INT(oroya_clip_create(&empty, &clip, &err), OROYA_OK);
    if (clip) {
        OT_CHECK(clip->duration == 0.0f && clip->track_count == 0 && strcmp(clip->name, "") == 0);
        OT_EQ_INT(oroya_clip_validate(clip, &err), OROYA_OK);
        oroya_clip_destroy(clip);
    }
    /* An explicit duration is kept, even shorter than the keys. */
    oroya_clip_desc shorter = {.tracks = tracks, .track_count = 1, .duration = 0.5f};
    OT_EQ_INT(oroya_clip_create(&shorter, &clip, &err), OROYA_OK);
    if (clip) {
        OT_CHECK(clip->duration == 0.5f);
        oroya_clip_destroy(clip);
    }
}

static void test_allocation_failures(void) {
    static const float times[3] = {0, 1, 2};
    static const float values[9] = {0, 0, 0, 1, 1, 1, 1, 1, 1};
    oroya_track tr = {.target = "a",
                      .property = OROYA_PROPERTY_TRANSLATION,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 3,
                      .key_count = 3,
                      .times = times,
                      .values = values};
    counting c = {.fail_at = 1};
    oroya_clip_desc desc = {.tracks = &tr, .track_count = 1, .allocator = counting_allocator(&c)};
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_ERR_OUT_OF_MEMORY);
    OT_CHECK(clip == NULL);
    c.fail_at = 0;
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_OK);
    if (!clip) {
        return;
    }
    /* Every later allocation (clone, subclip's two, optimize's scratch) failing is reported
     * and leaks nothing. */
    oroya_clip *other = NULL;
    c.fail_at = c.allocs + 1;
    OT_EQ_INT(oroya_clip_clone(clip, &other, &err), OROYA_ERR_OUT_OF_MEMORY);
    OT_CHECK(other == NULL);
    for (int k = 1; k <= 2; k++) {
        c.fail_at = c.allocs + k;
        OT_EQ_INT(oroya_clip_subclip(clip, "s", 0, 100, 30, &other, &err), OROYA_ERR_OUT_OF_MEMORY);
        OT_CHECK(other == NULL);
    }
    c.fail_at = c.allocs + 1;
    OT_EQ_INT(oroya_clip_optimize(clip, 0.0f, &err), OROYA_ERR_OUT_OF_MEMORY);
    OT_EQ_INT(clip->tracks[0].key_count, 3); /* untouched on failure */
    c.fail_at = 0;
    oroya_clip_destroy(clip);
    OT_EQ_INT(c.frees, c.allocs - 5); /* the five failed allocations returned nothing */
}

/* ---- subclip: expected values from three.js 0.187 ------------------------------------------ */

/* Obtained with three 0.187.0 in Node (/work/oracle-copy):
 *   A = new NumberKeyframeTrack('a.morphTargetInfluences', [0,0.5,1,1.5,2], [0,1,2,3,4]);
 *   B = new NumberKeyframeTrack('b.morphTargetInfluences', [0.2,0.9,1.7], [5,6,7], InterpolateDiscrete);
 *   C = new VectorKeyframeTrack('c.position', [0.1,1.3], [1,2,3, 4,5,6]);
 *   AnimationUtils.subclip(new AnimationClip('src', -1, [A,B,C]), 'sub', s, e, fps)
 * printing duration and each track's times and values. */
typedef struct {
    double s, e, fps;
    float duration;
    int track_count;
    struct {
        char target;
        int keys;
        float times[3];
        float values[6];
    } tracks[3];
} subclip_case;

static const subclip_case subclip_cases[] = {
    {15,
     45,
     30,
     0.7999999523162842f,
     3,
     {{'a', 2, {0, 0.5f}, {1, 2}},
      {'b', 1, {0.3999999761581421f}, {6}},
      {'c', 1, {0.7999999523162842f}, {4, 5, 6}}}},
    {3,
     39,
     30,
     1.1999999284744263f,
     3,
     {{'a', 2, {0.4000000059604645f, 0.8999999761581421f}, {1, 2}},
      {'b', 2, {0.10000000149011612f, 0.7999999523162842f}, {5, 6}},
      {'c', 2, {0, 1.1999999284744263f}, {1, 2, 3, 4, 5, 6}}}},
    {70, 80, 30, 0, 0, {{0}}},
    {0.6,
     1.3,
     1,
     0.3999999761581421f,
     3,
     {{'a', 1, {0.10000002384185791f}, {2}},
      {'b', 1, {0}, {6}},
      {'c', 1, {0.3999999761581421f}, {4, 5, 6}}}},
    {6,
     40,
     24,
     1,
     3,
     {{'a', 3, {0, 0.5f, 1}, {1, 2, 3}},
      {'b', 1, {0.3999999761581421f}, {6}},
      {'c', 1, {0.7999999523162842f}, {4, 5, 6}}}},
};

static void test_subclip(void) {
    static const float ta[5] = {0, 0.5f, 1, 1.5f, 2}, va[5] = {0, 1, 2, 3, 4};
    static const float tb[3] = {0.2f, 0.9f, 1.7f}, vb[3] = {5, 6, 7};
    static const float tc[2] = {0.1f, 1.3f}, vc[6] = {1, 2, 3, 4, 5, 6};
    const oroya_track tracks[3] = {
        {.target = "a",
         .property = OROYA_PROPERTY_WEIGHTS,
         .interpolation = OROYA_INTERP_LINEAR,
         .components = 1,
         .key_count = 5,
         .times = ta,
         .values = va},
        {.target = "b",
         .property = OROYA_PROPERTY_WEIGHTS,
         .interpolation = OROYA_INTERP_STEP,
         .components = 1,
         .key_count = 3,
         .times = tb,
         .values = vb},
        {.target = "c",
         .property = OROYA_PROPERTY_TRANSLATION,
         .interpolation = OROYA_INTERP_LINEAR,
         .components = 3,
         .key_count = 2,
         .times = tc,
         .values = vc},
    };
    oroya_clip_desc desc = {
        .name = "src", .blend_mode = OROYA_BLEND_ADDITIVE, .tracks = tracks, .track_count = 3};
    oroya_clip *src = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_create(&desc, &src, &err), OROYA_OK);
    if (!src) {
        return;
    }
    for (size_t i = 0; i < sizeof subclip_cases / sizeof subclip_cases[0]; i++) {
        const subclip_case *sc = &subclip_cases[i];
        oroya_clip *sub = NULL;
        OT_EQ_INT(oroya_clip_subclip(src, "sub", sc->s, sc->e, sc->fps, &sub, &err), OROYA_OK);
        if (!sub) {
            continue;
        }
        OT_CHECK(strcmp(sub->name, "sub") == 0);
        OT_EQ_INT(sub->blend_mode, OROYA_BLEND_ADDITIVE);
        OT_CHECK_MSG(sub->duration == sc->duration, "case %zu: duration %.9g", i,
                     (double)sub->duration);
        OT_EQ_INT(sub->track_count, sc->track_count);
        for (int t = 0; t < sc->track_count && t < (int)sub->track_count; t++) {
            const oroya_track *tr = &sub->tracks[t];
            OT_CHECK(tr->target[0] == sc->tracks[t].target && tr->target[1] == 0);
            OT_EQ_INT(tr->key_count, sc->tracks[t].keys);
            if ((int)tr->key_count != sc->tracks[t].keys) {
                continue;
            }
            OT_EQ_INT(tr->interpolation, tracks[tr->target[0] - 'a'].interpolation);
            for (int k = 0; k < sc->tracks[t].keys; k++) {
                OT_CHECK_MSG(tr->times[k] == sc->tracks[t].times[k],
                             "case %zu track %c key %d: %.9g", i, sc->tracks[t].target, k,
                             (double)tr->times[k]);
            }
            for (uint32_t v = 0; v < oroya_track_value_count(tr); v++) {
                OT_CHECK(tr->values[v] == sc->tracks[t].values[v]);
            }
        }
        OT_EQ_INT(oroya_clip_validate(sub, &err), OROYA_OK);
        oroya_clip_destroy(sub);
    }
    /* fps 0 is three's default, 30. */
    oroya_clip *sub = NULL;
    OT_EQ_INT(oroya_clip_subclip(src, "d", 15, 45, 0, &sub, &err), OROYA_OK);
    if (sub) {
        OT_CHECK(sub->duration == subclip_cases[0].duration);
        oroya_clip_destroy(sub);
    }
    /* Cubic-spline tracks keep whole (in, value, out) triples. */
    static const float t3[3] = {0, 1, 2};
    static float v3[27];
    for (int i = 0; i < 27; i++) {
        v3[i] = (float)i;
    }
    oroya_track cubic = {.target = "q",
                         .property = OROYA_PROPERTY_TRANSLATION,
                         .interpolation = OROYA_INTERP_CUBICSPLINE,
                         .components = 3,
                         .key_count = 3,
                         .times = t3,
                         .values = v3};
    oroya_clip_desc cd = {.tracks = &cubic, .track_count = 1};
    oroya_clip *cc = NULL;
    OT_EQ_INT(oroya_clip_create(&cd, &cc, &err), OROYA_OK);
    if (cc) {
        OT_EQ_INT(oroya_clip_subclip(cc, "c", 30, 61, 30, &sub, &err), OROYA_OK);
        if (sub) {
            OT_EQ_INT(sub->tracks[0].key_count, 2);
            OT_CHECK(sub->tracks[0].times[0] == 0.0f && sub->tracks[0].times[1] == 1.0f);
            OT_CHECK(sub->tracks[0].values[0] == 9.0f && sub->tracks[0].values[17] == 26.0f);
            OT_EQ_INT(sub->tracks[0].value_count, 18);
            oroya_clip_destroy(sub);
        }
        oroya_clip_destroy(cc);
    }
    /* Bad arguments. */
    OT_EQ_INT(oroya_clip_subclip(src, "x", 0, 10, -30, &sub, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_clip_subclip(src, "x", 0, 10, INFINITY, &sub, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_clip_subclip(src, "x", NAN, 10, 30, &sub, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_clip_subclip(NULL, "x", 0, 10, 30, &sub, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_clip_subclip(src, "x", 0, 10, 30, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_clip_destroy(src);
}

/* ---- optimize -------------------------------------------------------------------------------- */

static oroya_clip *one_track_clip(const oroya_track *tr) {
    oroya_clip_desc desc = {.name = "o", .tracks = tr, .track_count = 1};
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_create(&desc, &clip, &err), OROYA_OK);
    return clip;
}

/* The largest difference between two tracks sampled densely over [t0, t1]. */
static double max_diff(const oroya_track *a, const oroya_track *b, double t0, double t1) {
    double worst = 0;
    for (int i = 0; i <= 2000; i++) {
        const double t = t0 + (t1 - t0) * i / 2000.0;
        float pa[4], pb[4];
        oroya_track_sample(a, t, NULL, NULL, pa);
        oroya_track_sample(b, t, NULL, NULL, pb);
        double sign = 1;
        if (a->property == OROYA_PROPERTY_ROTATION) {
            double d = 0;
            for (int k = 0; k < 4; k++) {
                d += (double)pa[k] * pb[k];
            }
            sign = d < 0 ? -1 : 1;
        }
        for (uint32_t k = 0; k < a->components; k++) {
            double d = fabs((double)pa[k] - sign * (double)pb[k]);
            worst = d > worst ? d : worst;
        }
    }
    return worst;
}

static void test_optimize_three_example(void) {
    /* KeyframeTrack.optimize's own example: (0,0,0,0,1,1,1,0,0,0,0,0,0,0) -> (0,0,1,1,0,0).
     * With tolerance 0 a LINEAR track gives exactly three's result: the keys kept are
     * 0, 3, 4, 6, 7, 13. */
    static float times[14], values[14] = {0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 14; i++) {
        times[i] = (float)i;
    }
    oroya_track tr = {.target = "w",
                      .property = OROYA_PROPERTY_WEIGHTS,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 1,
                      .key_count = 14,
                      .times = times,
                      .values = values};
    oroya_clip *clip = one_track_clip(&tr);
    if (!clip) {
        return;
    }
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_optimize(clip, 0.0f, &err), OROYA_OK);
    const oroya_track *o = &clip->tracks[0];
    static const float want_t[6] = {0, 3, 4, 6, 7, 13}, want_v[6] = {0, 0, 1, 1, 0, 0};
    OT_EQ_INT(o->key_count, 6);
    for (uint32_t k = 0; k < 6 && k < o->key_count; k++) {
        OT_CHECK(o->times[k] == want_t[k] && o->values[k] == want_v[k]);
    }
    OT_EQ_INT(o->value_count, o->key_count);
    OT_EQ_INT(oroya_clip_validate(clip, &err), OROYA_OK);
    OT_CHECK(max_diff(&tr, o, -1, 15) == 0.0);
    OT_CHECK(clip->duration == 13.0f);
    oroya_clip_destroy(clip);

    /* STEP: a key repeating the previous value changes nothing, so it goes: 0, 4, 7, 13. */
    tr.interpolation = OROYA_INTERP_STEP;
    clip = one_track_clip(&tr);
    if (!clip) {
        return;
    }
    OT_EQ_INT(oroya_clip_optimize(clip, 0.0f, &err), OROYA_OK);
    o = &clip->tracks[0];
    OT_EQ_INT(o->key_count, 4);
    OT_CHECK(o->times[1] == 4.0f && o->times[2] == 7.0f && o->times[3] == 13.0f);
    OT_CHECK(max_diff(&tr, o, -1, 15) == 0.0);
    oroya_clip_destroy(clip);

    /* SMOOTH tracks are left whole, as three does. */
    tr.interpolation = OROYA_INTERP_SMOOTH;
    clip = one_track_clip(&tr);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 0.5f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 14);
        oroya_clip_destroy(clip);
    }
}

static void test_optimize_tolerance(void) {
    /* LINEAR, collinear keys 0..3 then a corner: keys 1 and 2 go, 3 stays. */
    static const float times[5] = {0, 1, 2, 3, 4};
    static const float values[5] = {0, 1, 2, 3, 10};
    oroya_track tr = {.target = "w",
                      .property = OROYA_PROPERTY_WEIGHTS,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 1,
                      .key_count = 5,
                      .times = times,
                      .values = values};
    oroya_clip *clip = one_track_clip(&tr);
    oroya_error err = {0};
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 1e-6f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 3);
        OT_CHECK(clip->tracks[0].times[1] == 3.0f && clip->tracks[0].values[1] == 3.0f);
        OT_CHECK(max_diff(&tr, &clip->tracks[0], -1, 5) <= 1e-6);
        oroya_clip_destroy(clip);
    }
    /* Noisy line: within tolerance 0.05 everything in between goes; the sampled result stays
     * within the tolerance everywhere (LINEAR: the error peaks at keys). */
    enum { N = 200 };
    static float nt[N], nv[N * 3];
    for (int k = 0; k < N; k++) {
        nt[k] = (float)k * 0.05f;
        nv[k * 3 + 0] = (float)k * 0.1f + ot_randf(-0.02f, 0.02f);
        nv[k * 3 + 1] = ot_randf(-0.02f, 0.02f);
        nv[k * 3 + 2] = 5.0f + (k > 120 ? 1.0f : 0.0f);
    }
    oroya_track noisy = {.target = "n",
                         .property = OROYA_PROPERTY_TRANSLATION,
                         .interpolation = OROYA_INTERP_LINEAR,
                         .components = 3,
                         .key_count = N,
                         .times = nt,
                         .values = nv};
    clip = one_track_clip(&noisy);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 0.05f, &err), OROYA_OK);
        OT_CHECK(clip->tracks[0].key_count < 20);
        OT_CHECK(clip->tracks[0].key_count >= 4); /* the step at key 120 needs its corners */
        OT_CHECK(max_diff(&noisy, &clip->tracks[0], -1, N * 0.05 + 1) <= 0.05 + 1e-6);
        OT_EQ_INT(oroya_clip_validate(clip, &err), OROYA_OK);
        oroya_clip_destroy(clip);
    }

    /* CUBICSPLINE: f(t) = t^3 with exact tangents 3t^2 is one cubic, so the middle key is
     * redundant; moving its value makes it necessary. */
    static const float ct[3] = {0, 1, 2};
    static float cv[9] = {0, 0, 0, 3, 1, 3, 12, 8, 12};
    oroya_track cubic = {.target = "c",
                         .property = OROYA_PROPERTY_WEIGHTS,
                         .interpolation = OROYA_INTERP_CUBICSPLINE,
                         .components = 1,
                         .key_count = 3,
                         .times = ct,
                         .values = cv};
    clip = one_track_clip(&cubic);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 1e-5f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 2);
        OT_CHECK(clip->tracks[0].values[3] == 12.0f && clip->tracks[0].values[4] == 8.0f);
        OT_CHECK(max_diff(&cubic, &clip->tracks[0], -1, 3) <= 1e-5);
        oroya_clip_destroy(clip);
    }
    cv[4] = 1.5f;
    clip = one_track_clip(&cubic);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 1e-5f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 3);
        oroya_clip_destroy(clip);
    }

    /* Rotations: keys at a constant angular speed about z lie on one slerp, even with one key
     * stored with the opposite sign. */
    static float qt[5], qv[20];
    for (int k = 0; k < 5; k++) {
        qt[k] = (float)k;
        const double half = 0.5 * 0.4 * k;
        const float sign = k == 2 ? -1.0f : 1.0f;
        qv[k * 4 + 2] = sign * (float)sin(half);
        qv[k * 4 + 3] = sign * (float)cos(half);
    }
    oroya_track rot = {.target = "r",
                       .property = OROYA_PROPERTY_ROTATION,
                       .interpolation = OROYA_INTERP_LINEAR,
                       .components = 4,
                       .key_count = 5,
                       .times = qt,
                       .values = qv};
    clip = one_track_clip(&rot);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 1e-5f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 2);
        OT_CHECK(max_diff(&rot, &clip->tracks[0], -1, 6) <= 1e-5);
        oroya_clip_destroy(clip);
    }

    /* STERP: keys placed on one swing-twist path (sterp is consistent under splitting) go;
     * moving the middle key off the path makes every key necessary (keys 1 and 3 are no longer
     * on a path between their kept neighbours). */
    static float st[5], sv[20];
    const oroya_quat k0 = oroya_quat_from_axis_angle((oroya_vec3){0, 0, 1}, 0.3f);
    const oroya_quat k4 = oroya_quat_mul(oroya_quat_from_axis_angle((oroya_vec3){1, 0, 0}, 1.2f),
                                         oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, 2.0f));
    for (int k = 0; k < 5; k++) {
        st[k] = (float)k * 0.5f;
        const oroya_quat q = oroya_quat_sterp(k0, k4, (oroya_vec3){0, 1, 0}, (float)k / 4.0f);
        sv[k * 4 + 0] = q.x, sv[k * 4 + 1] = q.y, sv[k * 4 + 2] = q.z, sv[k * 4 + 3] = q.w;
    }
    oroya_track sterp = {.target = "s",
                         .property = OROYA_PROPERTY_ROTATION,
                         .interpolation = OROYA_INTERP_STERP,
                         .components = 4,
                         .key_count = 5,
                         .times = st,
                         .values = sv,
                         .twist_axis = {0, 1, 0}};
    clip = one_track_clip(&sterp);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 1e-5f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 2);
        OT_CHECK(max_diff(&sterp, &clip->tracks[0], -1, 3) <= 2e-5);
        oroya_clip_destroy(clip);
    }
    sv[2 * 4 + 0] += 0.01f;
    clip = one_track_clip(&sterp);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 1e-5f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 5);
        oroya_clip_destroy(clip);
    }
    /* STERP with no twist axis: the mixer twists about the bound bone's long axis, which the
     * clip does not know, so the track stays whole, even with keys on one slerp path (alone it
     * samples as slerp, and the keys used to go: the mixer then missed the removed keys by up to
     * 18 degrees). */
    for (int k = 0; k < 5; k++) {
        const oroya_quat q = oroya_quat_slerp(k0, k4, (float)k / 4.0f);
        sv[k * 4 + 0] = q.x, sv[k * 4 + 1] = q.y, sv[k * 4 + 2] = q.z, sv[k * 4 + 3] = q.w;
    }
    sterp.twist_axis = (oroya_vec3){0, 0, 0};
    clip = one_track_clip(&sterp);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 1e-4f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 5);
        oroya_clip_destroy(clip);
    }
    /* The same keys as slerp: they go. */
    sterp.interpolation = OROYA_INTERP_LINEAR;
    clip = one_track_clip(&sterp);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, 1e-4f, &err), OROYA_OK);
        OT_EQ_INT(clip->tracks[0].key_count, 2);
        oroya_clip_destroy(clip);
    }

    OT_EQ_INT(oroya_clip_optimize(NULL, 0.0f, &err), OROYA_ERR_INVALID_ARGUMENT);
    clip = one_track_clip(&tr);
    if (clip) {
        OT_EQ_INT(oroya_clip_optimize(clip, -1.0f, &err), OROYA_ERR_INVALID_ARGUMENT);
        OT_EQ_INT(oroya_clip_optimize(clip, NAN, &err), OROYA_ERR_INVALID_ARGUMENT);
        OT_EQ_INT(clip->tracks[0].key_count, 5);
        oroya_clip_destroy(clip);
    }
}

/* ---- non-unit rotation keys (issue 11: normalized on load, and reported) ------------------- */

/* q / |q| in double, written out here rather than taken from the module. */
static void unit_reference(const float *q, float *out) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double n = sqrt(x * x + y * y + z * z + w * w);
    for (int c = 0; c < 4; c++)
        out[c] = (float)((double)q[c] / n);
}

static void test_normalize_rotation_keys(void) {
    static const float times[4] = {0, 1, 2, 3};
    static const float pos[12] = {0, 0, 5, 1, 2, 3, 9, 9, 9, 0, 0, 0};
    float lin[16] = {0, 0, 0, 1, 0, 0, 0, 2, 1, 2, 3, 4, 0, 0, 0, 1.0011f};
    /* A golden's key (12 digits) and SimpleSkin's 3-decimal key (|q| - 1 = 2.3e-4): below
     * the tolerance, kept bit for bit as three.js uses them. */
    float step[8] = {0.382683432365f, 0, 0, 0.923879532511f, 0, 0, 0.383f, 0.924f};
    /* Cubic: in-tangent, vertex, out-tangent per key; tangents far from unit stay. */
    float cub[24] = {5, 5, 5, 5, 0, 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 7, 0, 0, 7};
    float weights[8] = {0, 0, 0, 2, 0, 3, 0, 0}; /* a 4-target weights track: not rotation */
    float lin_in[16], step_in[8], cub_in[24];
    memcpy(lin_in, lin, sizeof lin);
    memcpy(step_in, step, sizeof step);
    memcpy(cub_in, cub, sizeof cub);
    oroya_track tr[5] = {
        {.target = "a",
         .property = OROYA_PROPERTY_TRANSLATION,
         .interpolation = OROYA_INTERP_LINEAR,
         .components = 3,
         .key_count = 4,
         .times = times,
         .values = pos},
        {.target = "b",
         .property = OROYA_PROPERTY_ROTATION,
         .interpolation = OROYA_INTERP_LINEAR,
         .components = 4,
         .key_count = 4,
         .times = times,
         .values = lin},
        {.target = "c",
         .property = OROYA_PROPERTY_ROTATION,
         .interpolation = OROYA_INTERP_STEP,
         .components = 4,
         .key_count = 2,
         .times = times,
         .values = step},
        {.target = "d",
         .property = OROYA_PROPERTY_ROTATION,
         .interpolation = OROYA_INTERP_CUBICSPLINE,
         .components = 4,
         .key_count = 2,
         .times = times,
         .values = cub},
        {.target = "e",
         .property = OROYA_PROPERTY_WEIGHTS,
         .interpolation = OROYA_INTERP_LINEAR,
         .components = 4,
         .key_count = 2,
         .times = times,
         .values = weights},
    };
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.name = "n", .tracks = tr, .track_count = 5},
                                &clip, &err),
              OROYA_OK);
    if (!clip)
        return;
    /* The caller's arrays are not touched. */
    OT_CHECK(memcmp(lin, lin_in, sizeof lin) == 0 && memcmp(step, step_in, sizeof step) == 0 &&
             memcmp(cub, cub_in, sizeof cub) == 0);
    OT_EQ_INT(clip->normalized_key_count, 4); /* b keys 1, 2, 3 and d key 0 */
    OT_EQ_INT(clip->first_normalized_track, 1);
    OT_EQ_INT(clip->first_normalized_key, 1);
    OT_CHECK(memcmp(clip->tracks[0].values, pos, sizeof pos) == 0);
    OT_CHECK(memcmp(clip->tracks[4].values, weights, sizeof weights) == 0);
    const float *b = clip->tracks[1].values;
    OT_CHECK(memcmp(b, lin, 4 * sizeof(float)) == 0); /* already unit: the same bits */
    for (int k = 1; k < 4; k++) {
        float want[4];
        unit_reference(lin + 4 * k, want);
        for (int c = 0; c < 4; c++)
            OT_NEAR(b[4 * k + c], want[c], 1e-7);
    }
    OT_CHECK(b[7] == 1.0f && b[15] == 1.0f); /* x / x */
    OT_NEAR(b[8], 1.0 / sqrt(30.0), 1e-7);
    OT_NEAR(b[11], 4.0 / sqrt(30.0), 1e-7);
    OT_CHECK(memcmp(clip->tracks[2].values, step, sizeof step) == 0);
    const float *d = clip->tracks[3].values;
    OT_NEAR(d[5], 0.6, 1e-7);
    OT_NEAR(d[7], 0.8, 1e-7);
    OT_CHECK(d[4] == 0.0f && d[6] == 0.0f);
    OT_CHECK(memcmp(d, cub, 4 * sizeof(float)) == 0);          /* in-tangent as given */
    OT_CHECK(memcmp(d + 8, cub + 8, 16 * sizeof(float)) == 0); /* the rest as given */

    /* A clone reports the same; a subclip's keys are already unit. */
    oroya_clip *copy = NULL, *sub = NULL;
    OT_EQ_INT(oroya_clip_clone(clip, &copy, &err), OROYA_OK);
    if (copy) {
        OT_EQ_INT(copy->normalized_key_count, 4);
        OT_EQ_INT(copy->first_normalized_track, 1);
        OT_EQ_INT(copy->first_normalized_key, 1);
        OT_CHECK(memcmp(copy->tracks[1].values, b, sizeof lin) == 0);
    }
    OT_EQ_INT(oroya_clip_subclip(clip, "s", 0, 90, 30, &sub, &err), OROYA_OK);
    if (sub) {
        OT_EQ_INT(sub->normalized_key_count, 0);
        OT_EQ_INT(sub->first_normalized_track, UINT32_MAX);
    }
    oroya_clip_destroy(sub);
    oroya_clip_destroy(copy);
    oroya_clip_destroy(clip);

    /* Unit keys only: nothing reported. */
    OT_EQ_INT(
        oroya_clip_create(&(oroya_clip_desc){.tracks = &tr[2], .track_count = 1}, &clip, &err),
        OROYA_OK);
    if (clip) {
        OT_EQ_INT(clip->normalized_key_count, 0);
        OT_EQ_INT(clip->first_normalized_track, UINT32_MAX);
        OT_EQ_INT(clip->first_normalized_key, UINT32_MAX);
        oroya_clip_destroy(clip);
    }
}

static void test_zero_quaternion_key(void) {
    static const float times[3] = {0, 1, 2};
    oroya_error err = {0};
    oroya_clip *clip = NULL;
    for (int interp = 0; interp < OROYA_INTERP_COUNT_; interp++) {
        float keys[36] = {0};
        bool cubic = interp == OROYA_INTERP_CUBICSPLINE;
        int stride = cubic ? 12 : 4, at = cubic ? 4 : 0;
        keys[at + 3] = 1.0f; /* key 0 unit, key 1 length 2, key 2 zero */
        keys[stride + at + 1] = 2.0f;
        if (cubic)
            keys[2 * stride] = 1.0f; /* a tangent is not a rotation: ignored */
        oroya_track t = {.target = "spine",
                         .property = OROYA_PROPERTY_ROTATION,
                         .interpolation = (oroya_interpolation)interp,
                         .components = 4,
                         .key_count = 3,
                         .times = times,
                         .values = keys,
                         .twist_axis = {0, 1, 0}};
        memset(&err, 0, sizeof err);
        OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.name = "z", .tracks = &t, .track_count = 1},
                                    &clip, &err),
                  OROYA_ERR_INVALID_DATA);
        OT_CHECK(clip == NULL);
        OT_CHECK_MSG(strstr(err.message, "track 0") && strstr(err.message, "\"spine\"") &&
                         strstr(err.message, "key 2"),
                     "%s", err.message);
    }
    /* A zero tangent next to a unit vertex is fine. */
    float cub[12] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    oroya_track t = {.target = "spine",
                     .property = OROYA_PROPERTY_ROTATION,
                     .interpolation = OROYA_INTERP_CUBICSPLINE,
                     .components = 4,
                     .key_count = 1,
                     .times = times,
                     .values = cub};
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, &err),
              OROYA_OK);
    if (clip)
        OT_EQ_INT(clip->normalized_key_count, 0);
    oroya_clip_destroy(clip);
}

int main(void) {
    OT_RUN(test_create_copies_and_owns);
    OT_RUN(test_create_errors);
    OT_RUN(test_allocation_failures);
    OT_RUN(test_subclip);
    OT_RUN(test_optimize_three_example);
    OT_RUN(test_optimize_tolerance);
    OT_RUN(test_normalize_rotation_keys);
    OT_RUN(test_zero_quaternion_key);
    return ot_finish();
}
