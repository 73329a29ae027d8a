/* Tests for oroya/track.h: sampling (glTF Appendix C and three.js 0.187 semantics), the
 * cursor, validation, and conformance with the oracle's goldens for tracks driven directly. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "oroya/clip.h"
#include "oroya/gltf.h"
#include "oroya/track.h"
#include "oroya_test.h"

/* ---- the tutorial's bouncing ball (issue 3) ----------------------------------------------- */

static const float ball_times[5] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f};
static float ball_values[5 * 3 * 3];

/* (in, value, out) per key for y; x and z stay 0. */
static oroya_track ball_track(void) {
    static const float y[5][3] = {{0, 0, 8}, {0, 4, 0}, {-8, 0, 5}, {0, 2, 0}, {-3, 0, 0}};
    memset(ball_values, 0, sizeof ball_values);
    for (int k = 0; k < 5; k++) {
        for (int part = 0; part < 3; part++) {
            ball_values[k * 9 + part * 3 + 1] = y[k][part];
        }
    }
    return (oroya_track){.target = "ball",
                         .property = OROYA_PROPERTY_TRANSLATION,
                         .interpolation = OROYA_INTERP_CUBICSPLINE,
                         .components = 3,
                         .key_count = 5,
                         .times = ball_times,
                         .values = ball_values};
}

static float ball_y(double t) {
    oroya_track tr = ball_track();
    float p[3] = {-1, -1, -1};
    oroya_track_sample(&tr, t, NULL, NULL, p);
    return p[1];
}

static void test_bouncing_ball(void) {
    oroya_track tr = ball_track();
    OT_EQ_INT(oroya_track_validate(&tr, 0, NULL), OROYA_OK);
    /* The numbers (glTF 2.0 Appendix C, tangents scaled by td = 0.5). */
    OT_NEAR(ball_y(0.1), 0.928, 1e-6);
    OT_NEAR(ball_y(0.25), 2.5, 1e-6);
    OT_NEAR(ball_y(0.75), 2.5, 1e-6);
    OT_NEAR(ball_y(1.2), 1.064, 1e-6);
    OT_NEAR(ball_y(1.75), 1.1875, 1e-6);
    /* Without the td scaling the value at 0.25 would be 3.0: it must not be. */
    OT_CHECK(fabs(ball_y(0.25) - 3.0) > 0.4);
    /* x and z stay zero. */
    float p[3];
    oroya_track_sample(&tr, 0.3, NULL, NULL, p);
    OT_CHECK(p[0] == 0.0f && p[2] == 0.0f);
}

/* ---- edges: before, after, at keys, single keys -------------------------------------------- */

static const float lin_times[3] = {1.0f, 2.0f, 4.0f};
static const float lin_values[9] = {1, 2, 3, 5, 6, 7, -1, 0, 1};

static oroya_track vec_track(oroya_interpolation interp) {
    return (oroya_track){.target = "n",
                         .property = OROYA_PROPERTY_SCALE,
                         .interpolation = interp,
                         .components = 3,
                         .key_count = 3,
                         .times = lin_times,
                         .values = lin_values};
}

static void test_edges_and_keys(void) {
    const oroya_interpolation modes[3] = {OROYA_INTERP_STEP, OROYA_INTERP_LINEAR,
                                          OROYA_INTERP_SMOOTH};
    for (int m = 0; m < 3; m++) {
        oroya_track tr = vec_track(modes[m]);
        float p[3];
        uint32_t cursor = 0;
        /* Before the first key: the first value; far before too. */
        oroya_track_sample(&tr, 0.5, &cursor, NULL, p);
        OT_CHECK(p[0] == 1 && p[1] == 2 && p[2] == 3);
        oroya_track_sample(&tr, -1e9, &cursor, NULL, p);
        OT_CHECK(p[0] == 1 && p[1] == 2 && p[2] == 3);
        /* At each key, exactly that key's value. */
        for (uint32_t k = 0; k < 3; k++) {
            oroya_track_sample(&tr, lin_times[k], &cursor, NULL, p);
            OT_CHECK(p[0] == lin_values[k * 3] && p[1] == lin_values[k * 3 + 1] &&
                     p[2] == lin_values[k * 3 + 2]);
        }
        /* After the last key, and far after. */
        oroya_track_sample(&tr, 4.5, &cursor, NULL, p);
        OT_CHECK(p[0] == -1 && p[1] == 0 && p[2] == 1);
        oroya_track_sample(&tr, 1e12, &cursor, NULL, p);
        OT_CHECK(p[0] == -1 && p[1] == 0 && p[2] == 1);
        /* NaN time samples as after the end, as three's evaluate does (no NaN out). */
        oroya_track_sample(&tr, NAN, &cursor, NULL, p);
        OT_CHECK(p[0] == -1 && p[1] == 0 && p[2] == 1);
    }
    /* Between keys: STEP holds the key at or before, LINEAR interpolates (hand values). */
    oroya_track step = vec_track(OROYA_INTERP_STEP), lin = vec_track(OROYA_INTERP_LINEAR);
    float p[3];
    oroya_track_sample(&step, 1.999, NULL, NULL, p);
    OT_CHECK(p[0] == 1 && p[1] == 2 && p[2] == 3);
    oroya_track_sample(&step, 3.0, NULL, NULL, p);
    OT_CHECK(p[0] == 5 && p[1] == 6 && p[2] == 7);
    oroya_track_sample(&lin, 1.25, NULL, NULL, p);
    OT_NEAR(p[0], 2.0, 1e-6);
    OT_NEAR(p[1], 3.0, 1e-6);
    oroya_track_sample(&lin, 3.0, NULL, NULL, p); /* halfway from (5,6,7) to (-1,0,1) */
    OT_NEAR(p[0], 2.0, 1e-6);
    OT_NEAR(p[2], 4.0, 1e-6);
    /* Cubic spline at keys returns the spline vertex, not a tangent. */
    oroya_track ball = ball_track();
    for (uint32_t k = 0; k < 5; k++) {
        oroya_track_sample(&ball, ball_times[k], NULL, NULL, p);
        OT_CHECK(p[1] == ball_values[k * 9 + 4]);
    }
    oroya_track_sample(&ball, -3.0, NULL, NULL, p);
    OT_CHECK(p[1] == 0.0f);
    oroya_track_sample(&ball, 7.0, NULL, NULL, p);
    OT_CHECK(p[1] == 0.0f);
}

static void test_single_key(void) {
    static const float t1[1] = {0.5f};
    static const float v3[3] = {4, 5, 6};
    static const float v9[9] = {100, 100, 100, 4, 5, 6, -100, -100, -100};
    static const float q[4] = {0, 0.6f, 0, 0.8f};
    const oroya_interpolation modes[4] = {OROYA_INTERP_STEP, OROYA_INTERP_LINEAR,
                                          OROYA_INTERP_CUBICSPLINE, OROYA_INTERP_SMOOTH};
    const double times[5] = {-1.0, 0.0, 0.5, 0.5000001, 10.0};
    for (int m = 0; m < 4; m++) {
        oroya_track tr = {.target = "a",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = modes[m],
                          .components = 3,
                          .key_count = 1,
                          .times = t1,
                          .values = modes[m] == OROYA_INTERP_CUBICSPLINE ? v9 : v3};
        OT_EQ_INT(oroya_track_validate(&tr, 0, NULL), OROYA_OK);
        oroya_track rot = {
            .target = "a",
            .property = OROYA_PROPERTY_ROTATION,
            .interpolation = modes[m] == OROYA_INTERP_CUBICSPLINE ? OROYA_INTERP_LINEAR : modes[m],
            .components = 4,
            .key_count = 1,
            .times = t1,
            .values = q};
        uint32_t cursor = 0;
        for (int i = 0; i < 5; i++) {
            float p[4] = {0};
            oroya_track_sample(&tr, times[i], &cursor, NULL, p);
            OT_CHECK(p[0] == 4 && p[1] == 5 && p[2] == 6);
            oroya_track_sample(&rot, times[i], NULL, NULL, p);
            OT_CHECK(p[0] == 0 && p[1] == 0.6f && p[2] == 0 && p[3] == 0.8f);
        }
    }
}

/* ---- accumulated 60 Hz time at key boundaries ---------------------------------------------- */

static void test_step_at_accumulated_time(void) {
    static const float times[3] = {0.0f, 0.5f, 1.0f};
    static const float values[3] = {0, 4, 8};
    oroya_track step = {.target = "w",
                        .property = OROYA_PROPERTY_WEIGHTS,
                        .interpolation = OROYA_INTERP_STEP,
                        .components = 1,
                        .key_count = 3,
                        .times = times,
                        .values = values};
    double t = 0.0;
    for (int i = 0; i < 30; i++) {
        t += 1.0 / 60.0;
    }
    /* docs/scenario.md, "Stepping": 30 steps of 1/60 give 0.49999999999999994, just before
     * the key. */
    OT_CHECK(t == 0.49999999999999994);
    OT_CHECK(t < 0.5);
    float v = -1;
    uint32_t cursor = 0;
    oroya_track_sample(&step, t, &cursor, NULL, &v);
    OT_CHECK(v == 0.0f);
    oroya_track_sample(&step, 0.5, &cursor, NULL, &v);
    OT_CHECK(v == 4.0f);
    /* The key time is float: 0.1f is above 0.1 as a double, so 0.1 is still before it. */
    static const float times2[2] = {0.0f, 0.1f};
    static const float values2[2] = {1, 2};
    oroya_track step2 = {.target = "w",
                         .property = OROYA_PROPERTY_WEIGHTS,
                         .interpolation = OROYA_INTERP_STEP,
                         .components = 1,
                         .key_count = 2,
                         .times = times2,
                         .values = values2};
    OT_CHECK((double)0.1f > 0.1);
    oroya_track_sample(&step2, 0.1, NULL, NULL, &v);
    OT_CHECK(v == 1.0f);
    oroya_track_sample(&step2, (double)0.1f, NULL, NULL, &v);
    OT_CHECK(v == 2.0f);
    /* Linear just before the key is just below 4, not 4. */
    oroya_track lin = step;
    lin.interpolation = OROYA_INTERP_LINEAR;
    double d = -1;
    oroya_track_sample_f64(&lin, t, NULL, NULL, &d);
    OT_CHECK(d < 4.0);
    OT_NEAR(d, 4.0, 1e-12);
}

/* ---- quaternions ------------------------------------------------------------------------- */

static void test_slerp_shortest_arc(void) {
    const double h = 0.5 * 1.5707963267948966; /* half of 90 degrees */
    /* Key 1 is 90 degrees about z, stored with the negative sign (w < 0). */
    const float keys[8] = {0, 0, 0, 1, 0, 0, (float)-sin(h), (float)-cos(h)};
    static const float times[2] = {0, 1};
    oroya_track tr = {.target = "q",
                      .property = OROYA_PROPERTY_ROTATION,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 4,
                      .key_count = 2,
                      .times = times,
                      .values = keys};
    float q[4];
    oroya_track_sample(&tr, 0.5, NULL, NULL, q);
    /* The short way: 45 degrees about +z, in key 0's hemisphere; the long way would be
     * 45 degrees about -z... (sin(-135/2) etc). */
    OT_NEAR(q[0], 0.0, 1e-7);
    OT_NEAR(q[1], 0.0, 1e-7);
    OT_NEAR(q[2], sin(h / 2), 1e-6);
    OT_NEAR(q[3], cos(h / 2), 1e-6);
    /* SMOOTH behaves as LINEAR on rotations (three has no smooth quaternion interpolant). */
    float q2[4];
    tr.interpolation = OROYA_INTERP_SMOOTH;
    oroya_track_sample(&tr, 0.5, NULL, NULL, q2);
    OT_CHECK(memcmp(q, q2, sizeof q) == 0);
    /* Nearly equal keys (dot >= 0.9995): normalized lerp, still unit length. */
    const float close[8] = {0, 0, 0, 1, 0, 0, (float)sin(0.01), (float)cos(0.01)};
    tr.values = close;
    tr.interpolation = OROYA_INTERP_LINEAR;
    oroya_track_sample(&tr, 0.3, NULL, NULL, q);
    OT_NEAR(sqrt((double)q[2] * q[2] + (double)q[3] * q[3]), 1.0, 1e-7);
    OT_NEAR(q[2], sin(0.003), 1e-6);
    /* Nearly opposite stored keys (same rotation): the result stays unit, no NaN. */
    const float opposite[8] = {0, 0, 0, 1, 0, 0, 1e-4f, -1};
    tr.values = opposite;
    oroya_track_sample(&tr, 0.5, NULL, NULL, q);
    OT_CHECK(isfinite(q[3]));
    OT_NEAR(
        sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]),
        1.0, 1e-6);
}

static void test_cubicspline_rotation_normalized(void) {
    static const float times[3] = {0, 1, 2};
    /* Arbitrary tangents that take the Hermite curve well off the unit sphere. */
    static const float v[36] = {9,  9, 9, 9, 0,          0, 0, 1,          1, 2, 0, 0,
                                0,  3, 1, 0, 0.7071068f, 0, 0, 0.7071068f, 1, 0, 2, 1,
                                -2, 0, 1, 0, 0,          0, 1, 0,          9, 9, 9, 9};
    oroya_track tr = {.target = "q",
                      .property = OROYA_PROPERTY_ROTATION,
                      .interpolation = OROYA_INTERP_CUBICSPLINE,
                      .components = 4,
                      .key_count = 3,
                      .times = times,
                      .values = v};
    OT_EQ_INT(oroya_track_validate(&tr, 0, NULL), OROYA_OK);
    uint32_t cursor = 0;
    for (int i = 1; i < 40; i++) {
        if (i == 20) {
            continue;
        }
        float q[4];
        oroya_track_sample(&tr, i * 0.05, &cursor, NULL, q);
        double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                          (double)q[3] * q[3]);
        OT_NEAR(len, 1.0, 1e-6);
    }
    /* Independent naive reference at t = 0.5: Hermite per component with tangents * td, then
     * divide by the length. */
    const double u = 0.5;
    const double h00 = 2 * u * u * u - 3 * u * u + 1, h10 = u * u * u - 2 * u * u + u;
    const double h01 = -2 * u * u * u + 3 * u * u, h11 = u * u * u - u * u;
    double ref[4], len = 0;
    for (int i = 0; i < 4; i++) {
        ref[i] = h00 * v[4 + i] + h10 * v[8 + i] * 1.0 + h01 * v[16 + i] + h11 * v[12 + i] * 1.0;
        len += ref[i] * ref[i];
    }
    len = sqrt(len);
    float q[4];
    oroya_track_sample(&tr, 0.5, NULL, NULL, q);
    for (int i = 0; i < 4; i++) {
        OT_NEAR(q[i], ref[i] / len, 1e-6);
    }
}

/* ---- SMOOTH (three.js CubicInterpolant) ---------------------------------------------------- */

/* A naive CubicInterpolant for one interval: the Hermite form with Catmull-Rom-like slopes
 * three uses, written from the polynomial definitions in its source comments. */
static double smooth_ref(double tp, double vp, double t0, double v0, double t1, double v1,
                         double tn, double vn, double t) {
    const double wp = (t1 - t0) * 0.5 / (t0 - tp), wn = (t1 - t0) * 0.5 / (tn - t1);
    const double p = (t - t0) / (t1 - t0);
    const double sp = -wp * p * p * p + 2 * wp * p * p - wp * p;
    const double s0 = (1 + wp) * p * p * p + (-1.5 - 2 * wp) * p * p + (-0.5 + wp) * p + 1;
    const double s1 = (-1 - wn) * p * p * p + (1.5 + wn) * p * p + 0.5 * p;
    const double sn = wn * p * p * p - wn * p * p;
    return sp * vp + s0 * v0 + s1 * v1 + sn * vn;
}

static void test_smooth_endings(void) {
    static const float times[4] = {0.0f, 0.4f, 0.7f, 1.5f};
    static const float values[4] = {0, 2, 3, 4};
    oroya_track tr = {.target = "s",
                      .property = OROYA_PROPERTY_WEIGHTS,
                      .interpolation = OROYA_INTERP_SMOOTH,
                      .components = 1,
                      .key_count = 4,
                      .times = times,
                      .values = values};
    const double T[4] = {times[0], times[1], times[2], times[3]};
    double v;
    /* Interior interval: neighbours are real keys whatever the endings. */
    oroya_track_sample_f64(&tr, 0.5, NULL, NULL, &v);
    OT_NEAR(v, smooth_ref(T[0], 0, T[1], 2, T[2], 3, T[3], 4, 0.5), 1e-12);
    /* First interval, zero curvature: the previous key mirrors key 1 (tPrev = t1). */
    oroya_track_sample_f64(&tr, 0.1, NULL, NULL, &v);
    OT_NEAR(v, smooth_ref(T[1], 2, T[0], 0, T[1], 2, T[2], 3, 0.1), 1e-12);
    /* Zero slope: tPrev = 2 t0 - t1 carrying v1, so the slope at t0 is (v1 - v1) = 0. */
    oroya_sample_options zs = {OROYA_ENDING_ZERO_SLOPE, OROYA_ENDING_ZERO_SLOPE};
    oroya_track_sample_f64(&tr, 0.1, NULL, &zs, &v);
    OT_NEAR(v, smooth_ref(2 * T[0] - T[1], 2, T[0], 0, T[1], 2, T[2], 3, 0.1), 1e-12);
    double eps = 1e-7, v_eps;
    oroya_track_sample_f64(&tr, eps, NULL, &zs, &v_eps);
    OT_NEAR((v_eps - 0.0) / eps, 0.0, 1e-5);
    /* Wrap around: the key before the last, shifted by the track length. */
    oroya_sample_options wa = {OROYA_ENDING_WRAP_AROUND, OROYA_ENDING_WRAP_AROUND};
    oroya_track_sample_f64(&tr, 0.1, NULL, &wa, &v);
    OT_NEAR(v, smooth_ref(T[0] + T[2] - T[3], 3, T[0], 0, T[1], 2, T[2], 3, 0.1), 1e-12);
    /* Last interval with each ending. */
    oroya_track_sample_f64(&tr, 1.2, NULL, NULL, &v);
    OT_NEAR(v, smooth_ref(T[1], 2, T[2], 3, T[3], 4, T[2], 3, 1.2), 1e-12);
    /* three's end "zero slope" takes the value of key i1 itself (iNext = i1), which leaves
     * a slope of (v1 - v0) / 2 per interval rather than 0; oroya copies that. */
    oroya_track_sample_f64(&tr, 1.2, NULL, &zs, &v);
    OT_NEAR(v, smooth_ref(T[1], 2, T[2], 3, T[3], 4, 2 * T[3] - T[2], 4, 1.2), 1e-12);
    oroya_track_sample_f64(&tr, 1.2, NULL, &wa, &v);
    OT_NEAR(v, smooth_ref(T[1], 2, T[2], 3, T[3], 4, T[3] + T[1] - T[0], 2, 1.2), 1e-12);

    /* three caches the ending weights per interval: with a cursor, changing the endings
     * inside the same interval keeps the old ones until the interval changes. */
    static const float t2[2] = {0.0f, 1.0f};
    static const float v2[2] = {0.0f, 1.0f};
    oroya_track two = {.target = "s",
                       .property = OROYA_PROPERTY_WEIGHTS,
                       .interpolation = OROYA_INTERP_SMOOTH,
                       .components = 1,
                       .key_count = 2,
                       .times = t2,
                       .values = v2};
    double a, b, c;
    uint32_t cursor = 0;
    oroya_track_sample_f64(&two, 0.25, &cursor, &zs, &a);
    oroya_track_sample_f64(&two, 0.3, &cursor, &wa, &b); /* same interval: still zero slope */
    oroya_track_sample_f64(&two, 0.3, NULL, &zs, &c);
    OT_CHECK(b == c);
    oroya_track_sample_f64(&two, 0.3, NULL, &wa, &c);
    OT_CHECK(b != c);
    oroya_track_sample_f64(&two, 2.0, &cursor, &wa, &a); /* leaves the interval */
    oroya_track_sample_f64(&two, 0.3, &cursor, &wa, &b); /* re-enters: wrap around now */
    OT_CHECK(b == c);
}

/* ---- the cursor ---------------------------------------------------------------------------- */

static void test_cursor_matches_scratch(void) {
    enum { N = 300 };
    static float times[N], values[N * 3 * 4];
    float t = -0.3f;
    for (int k = 0; k < N; k++) {
        t += ot_randf(0.001f, 0.1f);
        times[k] = t;
    }
    for (int i = 0; i < N * 12; i++) {
        values[i] = ot_randf(-2.0f, 2.0f);
    }
    struct {
        oroya_property prop;
        oroya_interpolation interp;
        uint32_t comps;
    } cases[] = {
        {OROYA_PROPERTY_TRANSLATION, OROYA_INTERP_STEP, 3},
        {OROYA_PROPERTY_TRANSLATION, OROYA_INTERP_LINEAR, 3},
        {OROYA_PROPERTY_TRANSLATION, OROYA_INTERP_CUBICSPLINE, 3},
        {OROYA_PROPERTY_WEIGHTS, OROYA_INTERP_SMOOTH, 4},
        {OROYA_PROPERTY_ROTATION, OROYA_INTERP_LINEAR, 4},
        {OROYA_PROPERTY_ROTATION, OROYA_INTERP_CUBICSPLINE, 4},
    };
    const float end = times[N - 1];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        oroya_track tr = {.target = "x",
                          .property = cases[c].prop,
                          .interpolation = cases[c].interp,
                          .components = cases[c].comps,
                          .key_count = N,
                          .times = times,
                          .values = values};
        OT_EQ_INT(oroya_track_validate(&tr, (uint32_t)c, NULL), OROYA_OK);
        const oroya_sample_options opt = {OROYA_ENDING_ZERO_SLOPE, OROYA_ENDING_WRAP_AROUND};
        uint32_t cursor = 0;
        int mismatches = 0;
        /* Forward at 60 Hz through and past the track, then random seeks, then backwards. */
        double tt = -0.5;
        for (int i = 0; i < 2400; i++) {
            float a[4], b[4];
            if (i < 1200) {
                tt += 1.0 / 60.0;
            } else if (i < 1800) {
                tt = ot_randf(-1.0f, end + 1.0f);
            } else if (i < 1900) {
                tt = times[ot_randf(0.0f, 1.0f) < 0.5f ? 0 : (int)ot_randf(0.0f, N - 1.0f)];
            } else {
                tt -= 1.0 / 90.0;
            }
            oroya_track_sample(&tr, tt, &cursor, &opt, a);
            oroya_track_sample(&tr, tt, NULL, &opt, b);
            if (memcmp(a, b, cases[c].comps * sizeof(float)) != 0) {
                mismatches++;
            }
        }
        OT_EQ_INT(mismatches, 0);
    }
    /* Any cursor value is safe. */
    oroya_track tr = {.target = "x",
                      .property = OROYA_PROPERTY_TRANSLATION,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 3,
                      .key_count = N,
                      .times = times,
                      .values = values};
    float a[3], b[3];
    uint32_t wild = 0xFFFFFFFFu;
    oroya_track_sample(&tr, 1.0, &wild, NULL, a);
    oroya_track_sample(&tr, 1.0, NULL, NULL, b);
    OT_CHECK(memcmp(a, b, sizeof a) == 0);
}

/* ---- validation ---------------------------------------------------------------------------- */

static void test_validate(void) {
    static const float times[3] = {0, 1, 2};
    static const float values[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    const oroya_track good = {.target = "hips",
                              .property = OROYA_PROPERTY_TRANSLATION,
                              .interpolation = OROYA_INTERP_LINEAR,
                              .components = 3,
                              .key_count = 3,
                              .times = times,
                              .values = values};
    oroya_error err = {0};
    OT_EQ_INT(oroya_track_validate(&good, 0, &err), OROYA_OK);
    OT_EQ_INT(oroya_track_validate(NULL, 0, &err), OROYA_ERR_INVALID_ARGUMENT);

    oroya_track t = good;
    t.key_count = 0;
    OT_EQ_INT(oroya_track_validate(&t, 7, &err), OROYA_ERR_NO_KEYS);
    OT_CHECK(strstr(err.message, "tracks[7]") && strstr(err.message, "hips"));

    static const float nan_times[3] = {0, NAN, 2};
    t = good;
    t.times = nan_times;
    OT_EQ_INT(oroya_track_validate(&t, 2, &err), OROYA_ERR_BAD_TIMES);
    OT_CHECK(strstr(err.message, "tracks[2]") && strstr(err.message, "key 1"));
    static const float inf_times[3] = {0, 1, INFINITY};
    t.times = inf_times;
    OT_EQ_INT(oroya_track_validate(&t, 2, &err), OROYA_ERR_BAD_TIMES);
    OT_CHECK(strstr(err.message, "key 2") != NULL);
    static const float equal_times[3] = {0, 1, 1};
    t.times = equal_times;
    OT_EQ_INT(oroya_track_validate(&t, 4, &err), OROYA_ERR_BAD_TIMES);
    OT_CHECK(strstr(err.message, "tracks[4]") && strstr(err.message, "key 2") &&
             strstr(err.message, "hips"));
    static const float down_times[3] = {0, 2, 1};
    t.times = down_times;
    OT_EQ_INT(oroya_track_validate(&t, 4, &err), OROYA_ERR_BAD_TIMES);

    t = good;
    t.value_count = 8;
    OT_EQ_INT(oroya_track_validate(&t, 3, &err), OROYA_ERR_VALUE_COUNT);
    OT_CHECK(strstr(err.message, "tracks[3]") && strstr(err.message, "8"));
    t.value_count = 9;
    OT_EQ_INT(oroya_track_validate(&t, 3, &err), OROYA_OK);
    t.interpolation = OROYA_INTERP_CUBICSPLINE; /* needs 27 */
    OT_EQ_INT(oroya_track_validate(&t, 3, &err), OROYA_ERR_VALUE_COUNT);
    OT_CHECK(strstr(err.message, "x 3") != NULL);
    t = good;
    t.components = 4; /* translation is 3 */
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_VALUE_COUNT);
    t = good;
    t.property = OROYA_PROPERTY_ROTATION; /* rotation is 4 */
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_VALUE_COUNT);
    t = good;
    t.property = OROYA_PROPERTY_WEIGHTS;
    t.components = 0;
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_VALUE_COUNT);

    t = good;
    t.property = (oroya_property)9;
    OT_EQ_INT(oroya_track_validate(&t, 5, &err), OROYA_ERR_UNKNOWN_PROPERTY);
    OT_CHECK(strstr(err.message, "tracks[5]") && strstr(err.message, "hips"));

    static const float bad_values[9] = {0, 0, 0, 1, INFINITY, 1, 2, 2, 2};
    t = good;
    t.values = bad_values;
    OT_EQ_INT(oroya_track_validate(&t, 1, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK(strstr(err.message, "tracks[1]") && strstr(err.message, "key 1") &&
             strstr(err.message, "component 1"));
    static const float nan_values[9] = {0, 0, 0, 1, 1, 1, 2, 2, NAN};
    t.values = nan_values;
    OT_EQ_INT(oroya_track_validate(&t, 1, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK(strstr(err.message, "key 2") != NULL);
    /* A NaN in an (unused) cubic-spline tangent is still rejected, named as a tangent. */
    static float cubic[27];
    cubic[26] = NAN; /* key 2 out-tangent z */
    t = good;
    t.interpolation = OROYA_INTERP_CUBICSPLINE;
    t.values = cubic;
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK(strstr(err.message, "key 2") && strstr(err.message, "out-tangent"));

    t = good;
    t.target = NULL;
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_INVALID_ARGUMENT);
    t = good;
    t.times = NULL;
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_INVALID_ARGUMENT);
    t = good;
    t.interpolation = (oroya_interpolation)42;
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_INVALID_DATA);
    t = good;
    t.interpolation = OROYA_INTERP_STERP; /* rotation only */
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_INVALID_DATA);
    static const float quats[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    t.property = OROYA_PROPERTY_ROTATION;
    t.components = 4;
    t.values = quats;
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_OK); /* zero axis: the mixer's node axis */
    t.twist_axis = (oroya_vec3){0, NAN, 0};
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_NON_FINITE);
    t.twist_axis = (oroya_vec3){0, 1, 0};
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_OK);
    t.key_count = OROYA_TRACK_MAX_KEYS + 1;
    OT_EQ_INT(oroya_track_validate(&t, 0, &err), OROYA_ERR_LIMIT);

    /* Sampling bad or empty input never crashes and never reads out of bounds. */
    float out[3] = {7, 7, 7};
    t = good;
    t.key_count = 0;
    oroya_track_sample(&t, 0.5, NULL, NULL, out);
    OT_CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0);
    oroya_track_sample(NULL, 0.5, NULL, NULL, out);
    oroya_track_sample(&good, 0.5, NULL, NULL, NULL);

    OT_EQ_INT(oroya_track_value_count(&good), 9);
    t = good;
    t.interpolation = OROYA_INTERP_CUBICSPLINE;
    OT_EQ_INT(oroya_track_value_count(&t), 27);
    OT_EQ_INT(oroya_track_key_stride(&t), 9);
    OT_CHECK(strcmp(oroya_property_name(OROYA_PROPERTY_ROTATION), "rotation") == 0);
    OT_CHECK(strcmp(oroya_interpolation_name(OROYA_INTERP_CUBICSPLINE), "cubicspline") == 0);
    OT_CHECK(strcmp(oroya_property_name((oroya_property)99), "unknown") == 0);
}

/* ---- conformance with the three.js oracle's goldens ---------------------------------------- */

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[n] = 0;
    }
    fclose(f);
    return buf;
}

static cJSON *load_json(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/conformance/%s", OROYA_SOURCE_DIR, name);
    char *text = read_text(path);
    OT_CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text) {
        return NULL;
    }
    cJSON *j = cJSON_Parse(text);
    free(text);
    OT_CHECK_MSG(j != NULL, "cannot parse %s", path);
    return j;
}

static float *json_floats(const cJSON *arr, uint32_t *count) {
    int n = cJSON_GetArraySize(arr);
    float *f = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        f[i] = (float)cJSON_GetArrayItem(arr, i)->valuedouble;
    }
    *count = (uint32_t)n;
    return f;
}

/* Builds one clip per scenario clip (tracks as three stores them: Float32 keys), then steps
 * time as docs/scenario.md says and as AnimationAction._updateTime does for LoopRepeat, samples
 * each track at the action time and compares with the recorded node values. */
static void run_scenario(const char *name) {
    char file[256];
    snprintf(file, sizeof file, "%s.json", name);
    cJSON *sc = load_json(file);
    snprintf(file, sizeof file, "%s.expected.json", name);
    cJSON *ex = load_json(file);
    if (!sc || !ex) {
        cJSON_Delete(sc);
        cJSON_Delete(ex);
        return;
    }
    enum { MAX_CLIPS = 8 };
    oroya_clip *clips[MAX_CLIPS] = {0};
    char keys[MAX_CLIPS][128];
    uint32_t cursors[MAX_CLIPS] = {0};
    int clip_count = 0;
    const cJSON *jc;
    cJSON_ArrayForEach(jc, cJSON_GetObjectItem(sc, "clips")) {
        const cJSON *jt = cJSON_GetArrayItem(cJSON_GetObjectItem(jc, "tracks"), 0);
        const char *prop = cJSON_GetObjectItem(jt, "property")->valuestring;
        const char *interp = cJSON_GetObjectItem(jt, "interpolation")->valuestring;
        uint32_t nt, nv;
        float *times = json_floats(cJSON_GetObjectItem(jt, "times"), &nt);
        float *values = json_floats(cJSON_GetObjectItem(jt, "values"), &nv);
        bool rot = strcmp(prop, "rotation") == 0 || strcmp(prop, "quaternion") == 0;
        oroya_track tr = {.target = cJSON_GetObjectItem(jt, "node")->valuestring,
                          .property = rot ? OROYA_PROPERTY_ROTATION : OROYA_PROPERTY_TRANSLATION,
                          .interpolation = strcmp(interp, "step") == 0     ? OROYA_INTERP_STEP
                                           : strcmp(interp, "linear") == 0 ? OROYA_INTERP_LINEAR
                                           : strcmp(interp, "smooth") == 0
                                               ? OROYA_INTERP_SMOOTH
                                               : OROYA_INTERP_CUBICSPLINE,
                          .components = rot ? 4 : 3,
                          .key_count = nt,
                          .times = times,
                          .values = values,
                          .value_count = nv};
        const cJSON *dur = cJSON_GetObjectItem(jc, "duration");
        oroya_clip_desc desc = {.name = cJSON_GetObjectItem(jc, "name")->valuestring,
                                .duration = cJSON_IsNumber(dur) ? (float)dur->valuedouble : 0.0f,
                                .tracks = &tr,
                                .track_count = 1};
        oroya_error err = {0};
        OT_EQ_INT(oroya_clip_create(&desc, &clips[clip_count], &err), OROYA_OK);
        snprintf(keys[clip_count], sizeof keys[0], "%s.%s", tr.target,
                 rot ? "quaternion" : "position");
        free(times);
        free(values);
        if (clips[clip_count]) {
            clip_count++;
        }
    }
    const cJSON *steps = cJSON_GetObjectItem(sc, "steps");
    const cJSON *fps = cJSON_GetObjectItem(steps, "fps");
    const double dt = fps ? 1.0 / fps->valuedouble : cJSON_GetObjectItem(steps, "dt")->valuedouble;
    /* Every clip in these scenarios lasts 2 s and loops (LoopRepeat, infinite). */
    double action_time = 0.0;
    int compared = 0, bad = 0, time_bad = 0;
    const cJSON *frame;
    cJSON_ArrayForEach(frame, cJSON_GetObjectItem(ex, "frames")) {
        const double duration = clips[0]->duration;
        action_time += dt;
        if (action_time >= duration) {
            action_time -= duration * floor(action_time / duration);
        }
        const cJSON *vals = cJSON_GetObjectItem(frame, "values");
        for (int c = 0; c < clip_count; c++) {
            const cJSON *rec_time = cJSON_GetObjectItem(vals, "action:bounce_cubic.time");
            if (rec_time && action_time != rec_time->valuedouble) {
                time_bad++;
            }
            const cJSON *want = cJSON_GetObjectItem(vals, keys[c]);
            if (!want) {
                continue;
            }
            double got[4];
            const oroya_track *tr = &clips[c]->tracks[0];
            oroya_track_sample_f64(tr, action_time, &cursors[c], NULL, got);
            double sign = 1.0;
            if (tr->components == 4) {
                double d = 0;
                for (uint32_t i = 0; i < 4; i++) {
                    d += got[i] * cJSON_GetArrayItem(want, (int)i)->valuedouble;
                }
                sign = d < 0 ? -1.0 : 1.0;
            }
            for (uint32_t i = 0; i < tr->components; i++) {
                double w = cJSON_GetArrayItem(want, (int)i)->valuedouble;
                if (!(fabs(sign * got[i] - w) <= 1e-5)) {
                    bad++;
                    if (bad < 5) {
                        fprintf(stderr, "%s: step %d %s[%u] = %.9g, three %.9g\n", name,
                                cJSON_GetObjectItem(frame, "step")->valueint, keys[c], i,
                                sign * got[i], w);
                    }
                }
                compared++;
            }
            /* The float sampler agrees with the double one to float precision. */
            float gf[4];
            oroya_track_sample(tr, action_time, NULL, NULL, gf);
            for (uint32_t i = 0; i < tr->components; i++) {
                if (gf[i] != (float)got[i]) {
                    bad++;
                }
            }
        }
    }
    printf("%s: %d values compared\n", name, compared);
    OT_CHECK(compared > 300);
    OT_EQ_INT(bad, 0);
    OT_EQ_INT(time_bad, 0);
    for (int c = 0; c < clip_count; c++) {
        oroya_clip_destroy(clips[c]);
    }
    cJSON_Delete(sc);
    cJSON_Delete(ex);
}

static void test_conformance_a_bounce(void) { run_scenario("a_bounce"); }
static void test_conformance_a_bounce_exact_dt(void) { run_scenario("a_bounce_exact_dt"); }
static void test_conformance_h_quaternion(void) { run_scenario("h_quaternion"); }

/* ---- SMOOTH under the loop modes: f_loops_smooth ------------------------------------------ */

/* A test-only mirror of three's AnimationAction._updateTime and _setEndings (0.187), enough to
 * drive the four actions of f_loops_smooth: the endings the mixer sets, and the clip time. */
enum { LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG };
typedef struct {
    int loop;
    double repetitions;
    bool clamp;
    double time;
    int loop_count;
    bool paused;
    oroya_sample_options settings;
    uint32_t cursor;
} mirror_action;

static void mirror_set_endings(mirror_action *a, bool at_start, bool at_end, bool ping_pong) {
    if (ping_pong) {
        a->settings.ending_start = OROYA_ENDING_ZERO_SLOPE;
        a->settings.ending_end = OROYA_ENDING_ZERO_SLOPE;
    } else {
        /* zeroSlopeAtStart / zeroSlopeAtEnd default to true */
        a->settings.ending_start = at_start ? OROYA_ENDING_ZERO_SLOPE : OROYA_ENDING_WRAP_AROUND;
        a->settings.ending_end = at_end ? OROYA_ENDING_ZERO_SLOPE : OROYA_ENDING_WRAP_AROUND;
    }
}

static double mirror_update_time(mirror_action *a, double dt, double duration) {
    if (a->paused) {
        dt = 0; /* _updateTimeScale gives 0 while paused */
    }
    double time = a->time + dt;
    int loop_count = a->loop_count;
    const bool ping_pong = a->loop == LOOP_PINGPONG;
    if (dt == 0) {
        if (loop_count == -1) {
            return time;
        }
        return ping_pong && (loop_count & 1) == 1 ? duration - time : time;
    }
    if (a->loop == LOOP_ONCE) {
        if (loop_count == -1) {
            a->loop_count = 0;
            mirror_set_endings(a, true, true, false);
        }
        if (time >= duration || time < 0) {
            time = time >= duration ? duration : 0;
            a->paused = a->clamp;
        }
        a->time = time;
        return time;
    }
    if (loop_count == -1) {
        loop_count = 0;
        mirror_set_endings(a, true, a->repetitions == 0, ping_pong);
    }
    if (time >= duration || time < 0) {
        const double loop_delta = floor(time / duration);
        time -= duration * loop_delta;
        loop_count += (int)fabs(loop_delta);
        const double pending = a->repetitions - loop_count;
        if (pending <= 0) {
            a->paused = a->clamp;
            time = dt > 0 ? duration : 0;
            a->time = time;
        } else {
            if (pending == 1) {
                mirror_set_endings(a, dt < 0, !(dt < 0), ping_pong);
            } else {
                mirror_set_endings(a, false, false, ping_pong);
            }
            a->loop_count = loop_count;
            a->time = time;
        }
    } else {
        a->loop_count = loop_count;
        a->time = time;
    }
    if (ping_pong && (loop_count & 1) == 1) {
        return duration - time;
    }
    return time;
}

static void test_conformance_f_loops_smooth(void) {
    cJSON *sc = load_json("f_loops_smooth.json");
    cJSON *ex = load_json("f_loops_smooth.expected.json");
    if (!sc || !ex) {
        cJSON_Delete(sc);
        cJSON_Delete(ex);
        return;
    }
    /* All four clips share one smooth position track, duration 1.5. */
    const cJSON *jt = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "clips"), 0), "tracks"), 0);
    uint32_t nt, nv;
    float *times = json_floats(cJSON_GetObjectItem(jt, "times"), &nt);
    float *values = json_floats(cJSON_GetObjectItem(jt, "values"), &nv);
    const oroya_track tr = {.target = "s",
                            .property = OROYA_PROPERTY_TRANSLATION,
                            .interpolation = OROYA_INTERP_SMOOTH,
                            .components = 3,
                            .key_count = nt,
                            .times = times,
                            .values = values,
                            .value_count = nv};
    OT_EQ_INT(oroya_track_validate(&tr, 0, NULL), OROYA_OK);
    const double duration = 1.5;
    mirror_action acts[4] = {
        {.loop = LOOP_ONCE, .clamp = true, .loop_count = -1},
        {.loop = LOOP_REPEAT, .repetitions = INFINITY, .loop_count = -1},
        {.loop = LOOP_REPEAT, .repetitions = 2, .clamp = true, .loop_count = -1},
        {.loop = LOOP_PINGPONG, .repetitions = INFINITY, .loop_count = -1},
    };
    const char *keys[4] = {"s_once.position", "s_repeat.position", "s_repeat2.position",
                           "s_pingpong.position"};
    int compared = 0, bad = 0;
    const cJSON *frame;
    cJSON_ArrayForEach(frame, cJSON_GetObjectItem(ex, "frames")) {
        const cJSON *vals = cJSON_GetObjectItem(frame, "values");
        for (int a = 0; a < 4; a++) {
            const double t = mirror_update_time(&acts[a], 1.0 / 60.0, duration);
            double got[3];
            oroya_track_sample_f64(&tr, t, &acts[a].cursor, &acts[a].settings, got);
            const cJSON *want = cJSON_GetObjectItem(vals, keys[a]);
            for (int i = 0; i < 3; i++) {
                const double w = cJSON_GetArrayItem(want, i)->valuedouble;
                if (!(fabs(got[i] - w) <= 1e-5)) {
                    if (bad++ < 5) {
                        fprintf(stderr, "f_loops_smooth: step %d %s[%d] = %.9g, three %.9g\n",
                                cJSON_GetObjectItem(frame, "step")->valueint, keys[a], i, got[i],
                                w);
                    }
                }
                compared++;
            }
        }
    }
    printf("f_loops_smooth: %d values compared\n", compared);
    OT_EQ_INT(compared, 240 * 4 * 3);
    OT_EQ_INT(bad, 0);
    free(times);
    free(values);
    cJSON_Delete(sc);
    cJSON_Delete(ex);
}

/* three keeps CubicInterpolant's ending weights until the interval changes. A two-key track
 * never changes interval while it loops, so after the first wrap three still uses the ending
 * of the first round (zero slope at the start) although the action switched to wrap-around.
 * Expected x values from the oracle (three 0.187) on this scenario:
 *   node s2; clip c2, duration 1, one smooth position track, times [0, 1], values
 *   [0,0,0, 1,2,3]; play c2 (LoopRepeat); 60 Hz, 150 steps; record s2.position. */
static void test_two_key_smooth_oracle(void) {
    static const float times[2] = {0, 1};
    static const float values[6] = {0, 0, 0, 1, 2, 3};
    const oroya_track tr = {.target = "s2",
                            .property = OROYA_PROPERTY_TRANSLATION,
                            .interpolation = OROYA_INTERP_SMOOTH,
                            .components = 3,
                            .key_count = 2,
                            .times = times,
                            .values = values};
    static const struct {
        int step;
        double x;
    } want[] = {{0, 0.0006875000000000002}, {29, 0.4374999999999999},  {60, 0.0006875000000001087},
                {61, 0.002722222222222438}, {89, 0.43750000000000183}, {120, 0.0006875000000002378},
                {149, 0.437500000000004}};
    mirror_action act = {.loop = LOOP_REPEAT, .repetitions = INFINITY, .loop_count = -1};
    size_t w = 0;
    for (int step = 0; step < 150; step++) {
        const double t = mirror_update_time(&act, 1.0 / 60.0, 1.0);
        double got[3];
        oroya_track_sample_f64(&tr, t, &act.cursor, &act.settings, got);
        if (w < sizeof want / sizeof want[0] && want[w].step == step) {
            OT_NEAR(got[0], want[w].x, 1e-9);
            OT_NEAR(got[2], 3 * want[w].x, 1e-9);
            if (step == 60) {
                /* Without the cached endings the wrap-around start would show. */
                double fresh[3];
                OT_EQ_INT(act.settings.ending_start, OROYA_ENDING_WRAP_AROUND);
                oroya_track_sample_f64(&tr, t, NULL, &act.settings, fresh);
                OT_CHECK(fabs(fresh[0] - want[w].x) > 1e-4);
            }
            w++;
        }
    }
    OT_EQ_INT(w, sizeof want / sizeof want[0]);
}

/* ---- STERP ---------------------------------------------------------------------------------- */

static void test_sterp(void) {
    /* Key 1 = swing 80 degrees about x, after a twist of 120 degrees about y (the twist axis):
     * q1 = (sin40 cos60, cos40 sin60, sin40 sin60, cos40 cos60). Halfway, sterp is a swing of
     * 40 degrees after a twist of 60: the y axis lands on (0, cos40, sin40), a great circle
     * path, and the twist about y is 60 degrees. */
    const double d40 = 40.0 * 3.14159265358979323846 / 180.0, d60 = d40 * 1.5;
    const float keys[8] = {0,
                           0,
                           0,
                           1,
                           (float)(sin(d40) * cos(d60)),
                           (float)(cos(d40) * sin(d60)),
                           (float)(sin(d40) * sin(d60)),
                           (float)(cos(d40) * cos(d60))};
    static const float times[2] = {0, 2};
    oroya_track tr = {.target = "arm",
                      .property = OROYA_PROPERTY_ROTATION,
                      .interpolation = OROYA_INTERP_STERP,
                      .components = 4,
                      .key_count = 2,
                      .times = times,
                      .values = keys,
                      .twist_axis = {0, 1, 0}};
    OT_EQ_INT(oroya_track_validate(&tr, 0, NULL), OROYA_OK);
    float q[4];
    uint32_t cursor = 0;
    oroya_track_sample(&tr, 1.0, &cursor, NULL, q);
    const oroya_vec3 y =
        oroya_quat_rotate((oroya_quat){q[0], q[1], q[2], q[3]}, (oroya_vec3){0, 1, 0});
    OT_NEAR(y.x, 0.0, 1e-6);
    OT_NEAR(y.y, cos(d40), 1e-6);
    OT_NEAR(y.z, sin(d40), 1e-6);
    OT_NEAR(2.0 * atan2((double)q[1], (double)q[3]), d60, 1e-5);
    OT_NEAR(
        sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]),
        1.0, 1e-6);
    /* Slerp takes another path: its y axis is off that great circle point. */
    oroya_track lin = tr;
    lin.interpolation = OROYA_INTERP_LINEAR;
    float s[4];
    oroya_track_sample(&lin, 1.0, NULL, NULL, s);
    const oroya_vec3 ys =
        oroya_quat_rotate((oroya_quat){s[0], s[1], s[2], s[3]}, (oroya_vec3){0, 1, 0});
    OT_CHECK(fabs(ys.x) > 1e-2);
    /* The same at a quarter: 20 degrees of swing, 30 of twist. */
    oroya_track_sample(&tr, 0.5, &cursor, NULL, q);
    OT_NEAR(2.0 * atan2((double)q[1], (double)q[3]), d60 / 2, 1e-5);
    /* At the keys, the keys; before and after, the end keys; the sign of key 1 is irrelevant. */
    oroya_track_sample(&tr, 0.0, &cursor, NULL, q);
    OT_CHECK(memcmp(q, keys, sizeof q) == 0);
    oroya_track_sample(&tr, 2.0, &cursor, NULL, q);
    OT_CHECK(memcmp(q, keys + 4, sizeof q) == 0);
    oroya_track_sample(&tr, -1.0, &cursor, NULL, q);
    OT_CHECK(memcmp(q, keys, sizeof q) == 0);
    oroya_track_sample(&tr, 9.0, &cursor, NULL, q);
    OT_CHECK(memcmp(q, keys + 4, sizeof q) == 0);
    float flipped[8];
    memcpy(flipped, keys, sizeof flipped);
    for (int i = 4; i < 8; i++) {
        flipped[i] = -flipped[i];
    }
    oroya_track neg = tr;
    neg.values = flipped;
    float a[4], b[4];
    oroya_track_sample(&tr, 1.3, NULL, NULL, a);
    oroya_track_sample(&neg, 1.3, NULL, NULL, b);
    for (int i = 0; i < 4; i++) {
        OT_NEAR(a[i], b[i], 1e-6);
    }
    /* The cursor agrees with a search from scratch here too. */
    cursor = 0;
    int mismatches = 0;
    for (int i = 0; i < 200; i++) {
        const double t = i < 150 ? i * 0.02 - 0.5 : ot_randf(-1.0f, 3.0f);
        oroya_track_sample(&tr, t, &cursor, NULL, a);
        oroya_track_sample(&tr, t, NULL, NULL, b);
        mismatches += memcmp(a, b, sizeof a) != 0;
    }
    OT_EQ_INT(mismatches, 0);
}

/* ---- robustness: random, often invalid tracks ---------------------------------------------- */

static void test_random_tracks_are_safe(void) {
    /* Validation accepts a track only when sampling it gives finite numbers; invalid tracks
     * are still sampled without reading out of bounds (ASan checks that). */
    enum { MAXK = 8, MAXC = 5 };
    int accepted = 0, rejected = 0, non_finite = 0;
    for (int iter = 0; iter < 4000; iter++) {
        const uint32_t keys = (uint32_t)ot_randf(0.0f, MAXK + 0.99f);
        const uint32_t comps = (uint32_t)ot_randf(0.0f, MAXC + 0.99f);
        const oroya_interpolation interp = (oroya_interpolation)(int)ot_randf(0.0f, 5.99f);
        const oroya_property prop = (oroya_property)(int)ot_randf(0.0f, 4.99f);
        float *times = malloc(sizeof(float) * (keys ? keys : 1));
        const size_t nv = (size_t)keys * comps * (interp == OROYA_INTERP_CUBICSPLINE ? 3 : 1);
        float *values = malloc(sizeof(float) * (nv ? nv : 1));
        float t = ot_randf(-1.0f, 1.0f);
        for (uint32_t k = 0; k < keys; k++) {
            const float r = ot_randf(0.0f, 1.0f);
            t += r < 0.05f ? 0.0f : r < 0.08f ? -0.5f : ot_randf(0.001f, 0.5f);
            times[k] = r > 0.995f ? NAN : t;
        }
        for (size_t i = 0; i < nv; i++) {
            const float r = ot_randf(0.0f, 1.0f);
            values[i] = r > 0.998f ? INFINITY : ot_randf(-3.0f, 3.0f);
        }
        oroya_track tr = {.target = "r",
                          .property = prop,
                          .interpolation = interp,
                          .components = comps,
                          .key_count = keys,
                          .times = times,
                          .values = values,
                          .twist_axis = {0, 1, 0}};
        const bool ok = oroya_track_validate(&tr, (uint32_t)iter, NULL) == OROYA_OK;
        ok ? accepted++ : rejected++;
        uint32_t cursor = (uint32_t)iter * 2654435761u;
        for (int s = 0; s < 12; s++) {
            double out[MAXC + 1];
            const double ts = s == 11 ? NAN : ot_randf(-2.0f, 6.0f);
            oroya_track_sample_f64(&tr, ts, &cursor, NULL, out);
            for (uint32_t i = 0; ok && i < comps; i++) {
                non_finite += !isfinite(out[i]);
            }
        }
        free(times);
        free(values);
    }
    OT_CHECK(accepted > 200);
    OT_CHECK(rejected > 200);
    OT_EQ_INT(non_finite, 0);
}

/* ---- conformance: Khronos InterpolationTest through three's GLTFLoader ---------------------- */

/* The nine InterpolationTest scenarios (oracle/scenarios/gltf): each plays one clip with one
 * channel. Tracks are built from the file's accessors (oroya/gltf.h) and sampled at the
 * action time three recorded, then compared with the node property three recorded. */
static void run_interpolation_test(const char *scenario) {
    char path[1024];
    snprintf(path, sizeof path, "gltf/%s.json", scenario);
    cJSON *sc = load_json(path);
    snprintf(path, sizeof path, "gltf/%s.expected.json", scenario);
    cJSON *ex = load_json(path);
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    float *in = NULL, *outv = NULL;
    if (!sc || !ex) {
        goto done;
    }
    snprintf(path, sizeof path, "%s/tests/conformance/gltf/%s", OROYA_SOURCE_DIR,
             cJSON_GetObjectItem(sc, "gltf")->valuestring);
    OT_EQ_INT(oroya_gltf_parse_file(NULL, path, &g, &err), OROYA_OK);
    if (!g || oroya_gltf_validate(g, &err) != OROYA_OK) {
        OT_CHECK_MSG(0, "%s: %s", path, err.message);
        goto done;
    }
    const char *clip_name = NULL;
    const cJSON *op;
    cJSON_ArrayForEach(op, cJSON_GetObjectItem(sc, "script")) {
        if (strcmp(cJSON_GetObjectItem(op, "do")->valuestring, "play") == 0) {
            clip_name = cJSON_GetObjectItem(op, "action")->valuestring;
        }
    }
    const oroya_gltf_animation *anim = NULL;
    for (uint32_t a = 0; a < g->animation_count; a++) {
        if (clip_name && g->animations[a].name && strcmp(g->animations[a].name, clip_name) == 0) {
            anim = &g->animations[a];
        }
    }
    OT_CHECK(anim != NULL && anim->channel_count == 1);
    if (!anim || anim->channel_count != 1) {
        goto done;
    }
    const oroya_gltf_channel *ch = &anim->channels[0];
    const oroya_gltf_sampler *smp = &anim->samplers[ch->sampler];
    const size_t nin = oroya_gltf_accessor_float_count(g, smp->input);
    const size_t nout = oroya_gltf_accessor_float_count(g, smp->output);
    in = malloc(nin * sizeof *in);
    outv = malloc(nout * sizeof *outv);
    OT_EQ_INT(oroya_gltf_accessor_unpack_floats(g, smp->input, in, nin, &err), OROYA_OK);
    OT_EQ_INT(oroya_gltf_accessor_unpack_floats(g, smp->output, outv, nout, &err), OROYA_OK);
    const bool rot = ch->path == OROYA_GLTF_PATH_ROTATION;
    oroya_track tr = {.target = g->nodes[ch->node].name,
                      .property = rot                                 ? OROYA_PROPERTY_ROTATION
                                  : ch->path == OROYA_GLTF_PATH_SCALE ? OROYA_PROPERTY_SCALE
                                                                      : OROYA_PROPERTY_TRANSLATION,
                      .interpolation = smp->interpolation == OROYA_GLTF_STEP ? OROYA_INTERP_STEP
                                       : smp->interpolation == OROYA_GLTF_LINEAR
                                           ? OROYA_INTERP_LINEAR
                                           : OROYA_INTERP_CUBICSPLINE,
                      .components = rot ? 4 : 3,
                      .key_count = (uint32_t)nin,
                      .times = in,
                      .values = outv,
                      .value_count = (uint32_t)nout};
    OT_EQ_INT(oroya_track_validate(&tr, 0, &err), OROYA_OK);
    char key[256], time_key[256];
    snprintf(key, sizeof key, "%s.%s", tr.target,
             rot                                   ? "quaternion"
             : tr.property == OROYA_PROPERTY_SCALE ? "scale"
                                                   : "position");
    snprintf(time_key, sizeof time_key, "action:%s.time", clip_name);
    uint32_t cursor = 0;
    int compared = 0, bad = 0;
    const cJSON *frame;
    cJSON_ArrayForEach(frame, cJSON_GetObjectItem(ex, "frames")) {
        const cJSON *vals = cJSON_GetObjectItem(frame, "values");
        const cJSON *want = cJSON_GetObjectItem(vals, key);
        const cJSON *at = cJSON_GetObjectItem(vals, time_key);
        if (!want || !cJSON_IsNumber(at)) {
            continue;
        }
        double got[4];
        oroya_track_sample_f64(&tr, at->valuedouble, &cursor, NULL, got);
        double dot = 0;
        for (uint32_t i = 0; i < tr.components; i++) {
            dot += got[i] * cJSON_GetArrayItem(want, (int)i)->valuedouble;
        }
        const double sign = rot && dot < 0 ? -1.0 : 1.0;
        for (uint32_t i = 0; i < tr.components; i++) {
            const double w = cJSON_GetArrayItem(want, (int)i)->valuedouble;
            if (!(fabs(sign * got[i] - w) <= 1e-5)) {
                if (bad++ < 3) {
                    fprintf(stderr, "%s: step %d %s[%u] = %.9g, three %.9g\n", scenario,
                            cJSON_GetObjectItem(frame, "step")->valueint, key, i, sign * got[i], w);
                }
            }
            compared++;
        }
    }
    OT_CHECK_MSG(compared >= 100 * 3, "%s: %d values compared", scenario, compared);
    OT_EQ_INT(bad, 0);
done:
    free(in);
    free(outv);
    oroya_gltf_free(g);
    cJSON_Delete(sc);
    cJSON_Delete(ex);
}

static void test_conformance_interpolation_test(void) {
    static const char *const names[9] = {"interpolation_step_translation",
                                         "interpolation_step_rotation",
                                         "interpolation_step_scale",
                                         "interpolation_linear_translation",
                                         "interpolation_linear_rotation",
                                         "interpolation_linear_scale",
                                         "interpolation_cubicspline_translation",
                                         "interpolation_cubicspline_rotation",
                                         "interpolation_cubicspline_scale"};
    for (int i = 0; i < 9; i++) {
        run_interpolation_test(names[i]);
    }
}

/* OROYA_MAX_KEY_VALUE (1e18): the largest magnitude a track other than a rotation may reach,
 * so that a blend of it stays finite whatever the weights. A key value past it, and a SMOOTH
 * curve that overshoots past it (a gap of 1000 s after one of 1e-3 s: three's CubicInterpolant
 * weights reach 5e5, and keys of 1e30 sampled to inf), are refused naming the keys; keys
 * within it and rotations (normalized) are accepted. */
static void test_key_magnitude_bound(void) {
    const float times[3] = {0, 1e-3f, 1000};
    float values[3] = {0, 2e18f, 0};
    oroya_track t = {.target = "a",
                     .property = OROYA_PROPERTY_WEIGHTS,
                     .interpolation = OROYA_INTERP_LINEAR,
                     .components = 1,
                     .key_count = 3,
                     .times = times,
                     .values = values};
    oroya_error err = {0};
    OT_EQ_INT(oroya_track_validate(&t, 4, &err), OROYA_ERR_LIMIT);
    OT_CHECK_MSG(strstr(err.message, "tracks[4]") && strstr(err.message, "key 1") &&
                     strstr(err.message, "OROYA_MAX_KEY_VALUE"),
                 "%s", err.message);
    values[1] = 1e18f * 0.999f;
    OT_EQ_INT(oroya_track_validate(&t, 4, &err), OROYA_OK);
    /* SMOOTH: the same keys overshoot. 1e13 x (1 + 0.3 x 1e6) passes 1e18; 1 does not. */
    t.interpolation = OROYA_INTERP_SMOOTH;
    values[1] = 1e13f;
    OT_EQ_INT(oroya_track_validate(&t, 4, &err), OROYA_ERR_LIMIT);
    OT_CHECK_MSG(strstr(err.message, "keys 1-2") && strstr(err.message, "SMOOTH"), "%s",
                 err.message);
    values[1] = 1;
    OT_EQ_INT(oroya_track_validate(&t, 4, &err), OROYA_OK);
    /* The overshoot is real: sampled in the long gap, the value passes 1e4 (keys of 1). */
    float v = 0, worst = 0;
    for (double x = 1e-3; x < 1000; x += 7.3) {
        oroya_track_sample(&t, x, NULL, NULL, &v);
        worst = fmaxf(worst, fabsf(v));
    }
    OT_CHECK_MSG(worst > 1e4f, "%g", (double)worst);
    /* Rotations are normalized: any finite magnitude. */
    const float rt[2] = {0, 1};
    const float rv[8] = {0, 0, 0, 1e30f, 0, 0, 1e30f, 1e30f};
    const oroya_track r = {.target = "a",
                           .property = OROYA_PROPERTY_ROTATION,
                           .interpolation = OROYA_INTERP_LINEAR,
                           .components = 4,
                           .key_count = 2,
                           .times = rt,
                           .values = rv};
    OT_EQ_INT(oroya_track_validate(&r, 0, &err), OROYA_OK);
}

int main(void) {
    OT_RUN(test_bouncing_ball);
    OT_RUN(test_key_magnitude_bound);
    OT_RUN(test_edges_and_keys);
    OT_RUN(test_single_key);
    OT_RUN(test_step_at_accumulated_time);
    OT_RUN(test_slerp_shortest_arc);
    OT_RUN(test_cubicspline_rotation_normalized);
    OT_RUN(test_sterp);
    OT_RUN(test_smooth_endings);
    OT_RUN(test_cursor_matches_scratch);
    OT_RUN(test_validate);
    OT_RUN(test_random_tracks_are_safe);
    OT_RUN(test_conformance_a_bounce);
    OT_RUN(test_conformance_a_bounce_exact_dt);
    OT_RUN(test_conformance_h_quaternion);
    OT_RUN(test_conformance_f_loops_smooth);
    OT_RUN(test_two_key_smooth_oracle);
    OT_RUN(test_conformance_interpolation_test);
    return ot_finish();
}
