/* Robustness of the mixer: every allocation of create / clip_action / uncache failed in
 * turn, bad runtime input (NaN, infinite, negative dt; time scale 0; weights summing to 0;
 * zero-length clips; overflowing time), the action table limit, and determinism (the same
 * bits from the same calls, in one scene or many). See docs/robustness.md. */
#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/scene.h"
#include "internal/base.h"
#include "test_robustness_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const float k_times[3] = {0.0f, 0.5f, 1.0f};
static const float k_pos[9] = {0, 0, 0, 1, 2, 3, 2, 0, 0};
static const float k_rot[12] = {0, 0, 0, 1, 0, 0.7071068f, 0, 0.7071068f, 0, 1, 0, 0};
static const float k_w[6] = {0, 1, 1, 0, 0.5f, 0.5f};

static oroya_track track(const char *target, oroya_property p, uint32_t comps, const float *values,
                         uint32_t keys) {
    oroya_track t;
    memset(&t, 0, sizeof t);
    t.target = target;
    t.property = p;
    t.interpolation = OROYA_INTERP_LINEAR;
    t.components = comps;
    t.key_count = keys;
    t.times = k_times;
    t.values = values;
    return t;
}

/* A small rig: root -> hips -> spine, and "face" with two morph weights. */
typedef struct rig {
    oroya_scene *scene;
    oroya_node hips, spine, face;
    oroya_clip *walk, *wave, *still;
} rig;

static void rig_make(rig *r) {
    memset(r, 0, sizeof *r);
    oroya_scene_create(NULL, &r->scene);
    oroya_node root = {0};
    oroya_scene_add_node(r->scene, "root", (oroya_node){0}, OROYA_NODE_OBJECT, &root);
    oroya_scene_add_node(r->scene, "hips", root, OROYA_NODE_BONE, &r->hips);
    oroya_scene_add_node(r->scene, "spine", r->hips, OROYA_NODE_BONE, &r->spine);
    oroya_scene_add_node(r->scene, "face", root, OROYA_NODE_MESH, &r->face);
    oroya_scene_set_weight_count(r->scene, r->face, 2);
    oroya_transform t = oroya_transform_identity();
    t.translation = (oroya_vec3){5, 6, 7};
    oroya_scene_set_transform(r->scene, r->hips, &t);
    oroya_track walk[3] = {track("hips", OROYA_PROPERTY_TRANSLATION, 3, k_pos, 3),
                           track("spine", OROYA_PROPERTY_ROTATION, 4, k_rot, 3),
                           track("nobody", OROYA_PROPERTY_SCALE, 3, k_pos, 3)};
    oroya_track wave[2] = {track("spine", OROYA_PROPERTY_ROTATION, 4, k_rot, 3),
                           track("face", OROYA_PROPERTY_WEIGHTS, 2, k_w, 3)};
    oroya_track still[1] = {track("hips", OROYA_PROPERTY_TRANSLATION, 3, k_pos + 3, 1)};
    oroya_error err = {0};
    oroya_clip_create(&(oroya_clip_desc){.name = "walk", .tracks = walk, .track_count = 3},
                      &r->walk, &err);
    oroya_clip_create(&(oroya_clip_desc){.name = "wave", .tracks = wave, .track_count = 2},
                      &r->wave, &err);
    oroya_clip_create(&(oroya_clip_desc){.name = "still", .tracks = still, .track_count = 1},
                      &r->still, &err);
}

static void rig_free(rig *r) {
    oroya_clip_destroy(r->walk);
    oroya_clip_destroy(r->wave);
    oroya_clip_destroy(r->still);
    oroya_scene_destroy(r->scene);
}

/* ---- fault injection ------------------------------------------------------------------- */

static oroya_result path_mixer(const oroya_allocator *a, void *ctx, oroya_error *err) {
    (void)err;
    rig *r = (rig *)ctx;
    oroya_mixer *m = NULL;
    oroya_result res =
        oroya_mixer_create(r->scene, &(oroya_mixer_desc){.max_actions = 8, .allocator = *a}, &m);
    oroya_action *walk = NULL, *wave = NULL, *add = NULL, *twin = NULL;
    if (res == OROYA_OK)
        res = oroya_mixer_clip_action(m, r->walk, &walk);
    if (res == OROYA_OK)
        res = oroya_mixer_play(m, r->wave, &wave);
    if (res == OROYA_OK) {
        res = oroya_action_create(
            m, r->wave,
            &(oroya_action_desc){.has_blend_mode = true, .blend_mode = OROYA_BLEND_ADDITIVE}, &add);
    }
    if (res == OROYA_OK) {
        res = oroya_action_create(m, r->walk, &(oroya_action_desc){.independent = true}, &twin);
    }
    if (res == OROYA_OK) {
        oroya_action_play(walk);
        oroya_action_play(twin);
        oroya_action_cross_fade_to(walk, twin, 0.3, true);
        res = oroya_mixer_update(m, 0.25);
    }
    if (res == OROYA_OK)
        res = oroya_mixer_uncache_clip(m, r->wave);
    if (res == OROYA_OK)
        res = oroya_mixer_clip_action(m, r->wave, &wave); /* again */
    if (res == OROYA_OK)
        res = oroya_mixer_update(m, 0.25);
    oroya_mixer_destroy(m);
    return res;
}

static void test_fault_mixer(void) {
    rig r;
    rig_make(&r);
    long n = rb_fail_each("mixer", path_mixer, &r, false);
    OT_CHECK(n > 5);
    printf("  mixer path: %ld allocations, each failed in turn\n", n);
    rig_free(&r);
}

/* After a failed clip_action the mixer still works: the same call succeeds next time and
 * nothing of the failed attempt remains (stats unchanged). */
static void test_fault_mixer_recovers(void) {
    rig r;
    rig_make(&r);
    for (long n = 1; n < 100; n++) {
        rb_heap h;
        rb_reset(&h, 0);
        oroya_mixer *m = NULL;
        OT_EQ_INT(
            oroya_mixer_create(r.scene, &(oroya_mixer_desc){.allocator = rb_allocator(&h)}, &m),
            OROYA_OK);
        h.fail_at = h.calls + n;
        oroya_action *a = NULL;
        oroya_mixer_stats before = oroya_mixer_get_stats(m);
        oroya_result res = oroya_mixer_clip_action(m, r.walk, &a);
        bool refused = h.refused > 0;
        if (refused) {
            OT_EQ_INT(res, OROYA_ERR_OUT_OF_MEMORY);
            oroya_mixer_stats after = oroya_mixer_get_stats(m);
            OT_CHECK(memcmp(&before, &after, sizeof before) == 0);
            OT_EQ_INT(oroya_mixer_clip_action(m, r.walk, &a), OROYA_OK);
        } else {
            OT_EQ_INT(res, OROYA_OK);
        }
        oroya_action_play(a);
        OT_EQ_INT(oroya_mixer_update(m, 0.5), OROYA_OK);
        oroya_transform t;
        oroya_scene_get_transform(r.scene, r.hips, &t);
        OT_CHECK(t.translation.x == 1.0f && t.translation.y == 2.0f && t.translation.z == 3.0f);
        oroya_mixer_destroy(m);
        OT_EQ_INT(h.live, 0);
        /* put the node back for the next round */
        t = oroya_transform_identity();
        t.translation = (oroya_vec3){5, 6, 7};
        oroya_scene_set_transform(r.scene, r.hips, &t);
        if (!refused)
            break;
    }
    rig_free(&r);
}

/* ---- bad runtime input ----------------------------------------------------------------- */

typedef struct snapshot {
    double mixer_time, action_time, weight, effective_weight, time_scale;
    int64_t loops;
    oroya_transform hips, spine;
    float w[2];
    oroya_mixer_stats stats;
} snapshot;

static snapshot snap(oroya_mixer *m, oroya_action *a, const rig *r) {
    snapshot s;
    memset(&s, 0, sizeof s);
    s.mixer_time = oroya_mixer_time(m);
    s.action_time = oroya_action_time(a);
    s.weight = oroya_action_weight(a);
    s.effective_weight = oroya_action_effective_weight(a);
    s.time_scale = oroya_action_effective_time_scale(a);
    s.loops = oroya_action_loop_count(a);
    oroya_scene_get_transform(r->scene, r->hips, &s.hips);
    oroya_scene_get_transform(r->scene, r->spine, &s.spine);
    memcpy(s.w, oroya_scene_weights(r->scene, r->face, NULL), sizeof s.w);
    s.stats = oroya_mixer_get_stats(m);
    return s;
}

/* Deviation 1 of mixer.h: NaN, infinite or negative dt (and set_time) are refused with
 * INVALID_ARGUMENT and change nothing: times, loops, weights, the scene, the events. */
static void test_bad_dt(void) {
    rig r;
    rig_make(&r);
    oroya_mixer *m = NULL;
    OT_EQ_INT(oroya_mixer_create(r.scene, NULL, &m), OROYA_OK);
    oroya_action *walk = NULL, *wave = NULL;
    oroya_mixer_play(m, r.walk, &walk);
    oroya_mixer_play(m, r.wave, &wave);
    oroya_action_fade_in(wave, 2.0);
    OT_EQ_INT(oroya_mixer_update(m, 0.8), OROYA_OK);
    OT_EQ_INT(oroya_mixer_update(m, 0.4), OROYA_OK); /* both 1 s clips wrap: two LOOP events */
    uint32_t events_before = 0;
    oroya_mixer_events(m, &events_before, NULL);
    OT_EQ_INT(events_before, 2);
    snapshot before = snap(m, walk, &r);
    const double bad[] = {NAN, -NAN, INFINITY, -INFINITY, -1e-300, -1.0, -4.9e-324};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        OT_EQ_INT(oroya_mixer_update(m, bad[i]), OROYA_ERR_INVALID_ARGUMENT);
        OT_EQ_INT(oroya_mixer_set_time(m, bad[i]), OROYA_ERR_INVALID_ARGUMENT);
        snapshot after = snap(m, walk, &r);
        OT_CHECK_MSG(memcmp(&before, &after, sizeof before) == 0, "dt %g changed state", bad[i]);
        uint32_t events = 0;
        oroya_mixer_events(m, &events, NULL);
        OT_CHECK_MSG(events == events_before, "dt %g: events cleared", bad[i]);
    }
    OT_EQ_INT(oroya_mixer_update(NULL, 0.1), OROYA_ERR_INVALID_ARGUMENT);
    /* Huge but finite dt: accepted, time stays finite. (dt x time scale overflowing to
     * infinity is a known bug: test_robustness_bugs.c.) */
    OT_EQ_INT(oroya_mixer_update(m, 1e300), OROYA_OK);
    snapshot big = snap(m, walk, &r);
    OT_CHECK(isfinite(big.mixer_time) && isfinite(big.action_time) &&
             isfinite(big.hips.translation.x));
    oroya_mixer_destroy(m);
    rig_free(&r);
}

/* Time scale 0 (mixer or action): time stands still, the pose holds, nothing is NaN.
 * Time-scale calls that would divide by 0 (set_duration 0, warp from time scale 0) are
 * refused. */
static void test_time_scale_zero(void) {
    rig r;
    rig_make(&r);
    oroya_mixer *m = NULL;
    OT_EQ_INT(oroya_mixer_create(r.scene, NULL, &m), OROYA_OK);
    oroya_action *walk = NULL;
    oroya_mixer_play(m, r.walk, &walk);
    OT_EQ_INT(oroya_mixer_update(m, 0.25), OROYA_OK);
    OT_EQ_INT(oroya_mixer_set_time_scale(m, 0.0), OROYA_OK);
    snapshot s0 = snap(m, walk, &r);
    for (int i = 0; i < 10; i++)
        OT_EQ_INT(oroya_mixer_update(m, 0.1), OROYA_OK);
    snapshot s1 = snap(m, walk, &r);
    OT_CHECK(s1.action_time == s0.action_time && s1.mixer_time == s0.mixer_time);
    OT_CHECK(memcmp(&s1.hips, &s0.hips, sizeof s0.hips) == 0);
    OT_NEAR(s1.hips.translation.x, 0.5, 1e-6); /* halfway to key 1 at t = 0.25 */
    OT_EQ_INT(oroya_mixer_set_time_scale(m, NAN), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_mixer_set_time_scale(m, INFINITY), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_time_scale(m) == 0.0);
    OT_EQ_INT(oroya_mixer_set_time_scale(m, 1.0), OROYA_OK);

    OT_EQ_INT(oroya_action_set_time_scale(walk, 0.0), OROYA_OK);
    OT_CHECK(!oroya_action_is_running(walk));
    double t0 = oroya_action_time(walk);
    for (int i = 0; i < 10; i++)
        OT_EQ_INT(oroya_mixer_update(m, 0.1), OROYA_OK);
    OT_CHECK(oroya_action_time(walk) == t0);
    oroya_transform t;
    oroya_scene_get_transform(r.scene, r.hips, &t);
    OT_CHECK(isfinite(t.translation.x) && t.translation.x == s0.hips.translation.x);
    OT_EQ_INT(oroya_action_warp(walk, 1.0, 2.0, 1.0), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_action_set_duration(walk, 0.0), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_action_set_time_scale(walk, NAN), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_action_set_effective_time_scale(walk, -INFINITY), OROYA_ERR_INVALID_ARGUMENT);
    oroya_mixer_destroy(m);
    rig_free(&r);
}

/* Weights that sum to 0: three.js's PropertyMixer then blends the node's original value in
 * with the missing weight, so the node shows its pose from before play. Non-finite weights
 * are refused. */
static void test_zero_weights(void) {
    rig r;
    rig_make(&r);
    oroya_mixer *m = NULL;
    OT_EQ_INT(oroya_mixer_create(r.scene, NULL, &m), OROYA_OK);
    oroya_action *walk = NULL, *still = NULL;
    oroya_mixer_play(m, r.walk, &walk);
    oroya_mixer_play(m, r.still, &still);
    OT_EQ_INT(oroya_action_set_effective_weight(walk, 0.0), OROYA_OK);
    OT_EQ_INT(oroya_action_set_effective_weight(still, 0.0), OROYA_OK);
    for (int i = 0; i < 5; i++)
        OT_EQ_INT(oroya_mixer_update(m, 0.1), OROYA_OK);
    oroya_transform t;
    oroya_scene_get_transform(r.scene, r.hips, &t);
    OT_CHECK_MSG(t.translation.x == 5.0f && t.translation.y == 6.0f && t.translation.z == 7.0f,
                 "hips %g %g %g, expected the saved 5 6 7", (double)t.translation.x,
                 (double)t.translation.y, (double)t.translation.z);
    /* Weights +1 and -1: a sum of 0 from nonzero weights, still finite. */
    OT_EQ_INT(oroya_action_set_effective_weight(walk, 1.0), OROYA_OK);
    OT_EQ_INT(oroya_action_set_effective_weight(still, -1.0), OROYA_OK);
    OT_EQ_INT(oroya_mixer_update(m, 0.1), OROYA_OK);
    oroya_scene_get_transform(r.scene, r.hips, &t);
    OT_CHECK(isfinite(t.translation.x) && isfinite(t.translation.y) && isfinite(t.translation.z));
    OT_EQ_INT(oroya_action_set_effective_weight(walk, NAN), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_action_set_weight(walk, INFINITY), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_action_weight(walk) == 1.0);
    oroya_mixer_destroy(m);
    rig_free(&r);
}

/* A zero-length clip (one key, duration 0) in every loop mode, forwards and backwards: time
 * stays finite and the pose is the key's (three.js divides by the duration when repeating
 * and gets NaN time; oroya holds the pose at time 0). LOOP_ONCE finishes on the first
 * update, as in three.js: clamped it holds the key, unclamped it is disabled and the node
 * returns to its saved pose. */
static void test_zero_length_clip(void) {
    rig r;
    rig_make(&r);
    OT_CHECK(r.still->duration == 0.0f);
    for (int mode = 0; mode < 3; mode++) {
        for (int dir = -1; dir <= 1; dir += 2) {
            oroya_mixer *m = NULL;
            OT_EQ_INT(oroya_mixer_create(r.scene, NULL, &m), OROYA_OK);
            oroya_action *a = NULL;
            oroya_mixer_play(m, r.still, &a);
            OT_EQ_INT(oroya_action_set_loop(a, (oroya_loop_mode)mode, 3), OROYA_OK);
            OT_EQ_INT(oroya_action_set_time_scale(a, dir), OROYA_OK);
            oroya_action_set_clamp_when_finished(a, true);
            for (int i = 0; i < 20; i++)
                OT_EQ_INT(oroya_mixer_update(m, 0.37), OROYA_OK);
            oroya_transform t;
            oroya_scene_get_transform(r.scene, r.hips, &t);
            OT_CHECK_MSG(t.translation.x == 1.0f && t.translation.y == 2.0f &&
                             t.translation.z == 3.0f,
                         "loop %d dir %d: %g %g %g", mode, dir, (double)t.translation.x,
                         (double)t.translation.y, (double)t.translation.z);
            OT_CHECK(isfinite(oroya_action_time(a)));
            oroya_mixer_destroy(m);
        }
    }
    {
        oroya_transform home = oroya_transform_identity();
        home.translation = (oroya_vec3){5, 6, 7}; /* the mixers above left the key pose */
        oroya_scene_set_transform(r.scene, r.hips, &home);
        oroya_mixer *m = NULL;
        OT_EQ_INT(oroya_mixer_create(r.scene, NULL, &m), OROYA_OK);
        oroya_action *a = NULL;
        oroya_mixer_play(m, r.still, &a);
        OT_EQ_INT(oroya_action_set_loop(a, OROYA_LOOP_ONCE, 1), OROYA_OK);
        OT_EQ_INT(oroya_mixer_update(m, 0.1), OROYA_OK);
        uint32_t n = 0;
        const oroya_event *ev = oroya_mixer_events(m, &n, NULL);
        OT_CHECK(n == 1 && ev && ev[0].type == OROYA_EVENT_FINISHED);
        OT_CHECK(!oroya_action_enabled(a));
        oroya_transform t;
        oroya_scene_get_transform(r.scene, r.hips, &t);
        OT_CHECK(t.translation.x == 5.0f && t.translation.y == 6.0f && t.translation.z == 7.0f);
        oroya_mixer_destroy(m);
    }
    /* A real clip played with an exact duration of 0 is refused at creation. */
    oroya_mixer *m = NULL;
    OT_EQ_INT(oroya_mixer_create(r.scene, NULL, &m), OROYA_OK);
    oroya_action *a = NULL;
    OT_EQ_INT(oroya_action_create(m, r.walk, &(oroya_action_desc){.duration = NAN}, &a),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_action_create(m, r.walk, &(oroya_action_desc){.duration = -1}, &a),
              OROYA_ERR_INVALID_ARGUMENT);
    oroya_mixer_destroy(m);
    rig_free(&r);
}

/* Limits: desc caps above the hard maxima are refused; a full action table is LIMIT and the
 * mixer keeps working. */
static void test_action_limit(void) {
    rig r;
    rig_make(&r);
    oroya_mixer *m = NULL;
    OT_EQ_INT(
        oroya_mixer_create(r.scene, &(oroya_mixer_desc){.max_actions = OROYA_MAX_ACTIONS + 1}, &m),
        OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(m == NULL);
    OT_EQ_INT(oroya_mixer_create(r.scene,
                                 &(oroya_mixer_desc){.max_bindings = OROYA_MAX_BINDINGS + 1}, &m),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_mixer_create(r.scene, &(oroya_mixer_desc){.max_actions = 2}, &m), OROYA_OK);
    oroya_action *a = NULL, *b = NULL, *c = NULL;
    OT_EQ_INT(oroya_mixer_clip_action(m, r.walk, &a), OROYA_OK);
    OT_EQ_INT(oroya_mixer_clip_action(m, r.wave, &b), OROYA_OK);
    OT_EQ_INT(oroya_mixer_clip_action(m, r.still, &c), OROYA_ERR_LIMIT);
    OT_CHECK(c == NULL);
    OT_EQ_INT(oroya_action_create(m, r.walk, &(oroya_action_desc){.independent = true}, &c),
              OROYA_ERR_LIMIT);
    OT_EQ_INT(oroya_mixer_clip_action(m, r.walk, &c), OROYA_OK); /* the cached one */
    OT_CHECK(c == a);
    OT_EQ_INT(oroya_mixer_uncache_clip(m, r.wave), OROYA_OK);
    OT_EQ_INT(oroya_mixer_clip_action(m, r.still, &c), OROYA_OK); /* room again */
    oroya_action_play(c);
    OT_EQ_INT(oroya_mixer_update(m, 0.1), OROYA_OK);
    oroya_mixer_destroy(m);

    /* Binding table: 1 binding, a clip needing 3. */
    OT_EQ_INT(oroya_mixer_create(r.scene, &(oroya_mixer_desc){.max_bindings = 1}, &m), OROYA_OK);
    OT_EQ_INT(oroya_mixer_clip_action(m, r.walk, &a), OROYA_ERR_LIMIT);
    OT_EQ_INT(oroya_mixer_clip_action(m, r.still, &a), OROYA_OK);
    oroya_mixer_destroy(m);
    rig_free(&r);
}

/* ---- determinism ------------------------------------------------------------------------- */

/* One scripted session; returns a fingerprint of every transform after every update. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t session(rig *r, int copies) {
    /* `copies` independent characters in one scene, each with its own mixer: character k
     * must give exactly what character 0 gives (and what a scene of one gives). */
    uint64_t h = 1469598103934665603ull;
    oroya_mixer *m[4] = {NULL};
    oroya_scene *scenes[4] = {NULL};
    rig rigs[4];
    for (int k = 0; k < copies; k++) {
        if (k == 0) {
            rigs[0] = *r;
        } else {
            rig_make(&rigs[k]);
        }
        scenes[k] = rigs[k].scene;
        oroya_mixer_create(scenes[k], NULL, &m[k]);
        oroya_action *walk = NULL, *wave = NULL;
        oroya_mixer_play(m[k], rigs[k].walk, &walk);
        oroya_mixer_play(m[k], rigs[k].wave, &wave);
        oroya_action_set_loop(walk, OROYA_LOOP_PINGPONG, INFINITY);
        oroya_action_cross_fade_from(wave, walk, 0.7, true);
    }
    uint64_t per[4] = {h, h, h, h};
    for (int step = 0; step < 200; step++) {
        for (int k = 0; k < copies; k++) {
            oroya_mixer_update(m[k], 1.0 / 60.0 + (step % 7) * 1e-3);
            oroya_scene_update_world(scenes[k]);
            per[k] = fnv(per[k], oroya_scene_world_matrices(scenes[k]),
                         oroya_scene_node_count(scenes[k]) * sizeof(oroya_mat4));
        }
    }
    for (int k = 1; k < copies; k++) {
        OT_CHECK_MSG(per[k] == per[0], "character %d of %d differs from character 0", k, copies);
        oroya_mixer_destroy(m[k]);
        rig_free(&rigs[k]);
    }
    oroya_mixer_destroy(m[0]);
    return per[0];
}

static void test_determinism(void) {
    rig a, b;
    rig_make(&a);
    uint64_t one = session(&a, 1);
    rig_free(&a);
    rig_make(&b);
    uint64_t four = session(&b, 4);
    rig_free(&b);
    OT_CHECK_MSG(one == four, "%016llx vs %016llx", (unsigned long long)one,
                 (unsigned long long)four);
}

/* oroya_mixer_clip_action refused for lack of memory leaves the mixer's curve table as it was
 * (a refusal after the curve was registered kept it: curve_count 1, find_curve found it). */
static void test_failed_clip_action_keeps_curves(void) {
    oroya_scene *s = NULL;
    oroya_node hips;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    OT_CHECK(oroya_scene_add_node(s, "hips", (oroya_node){0}, OROYA_NODE_BONE, &hips) == OROYA_OK);
    static const float t[2] = {0, 1}, cv[2] = {0, 1}, tv[6] = {0, 0, 0, 1, 0, 0};
    const oroya_track tr[2] = {{.target = "footstep",
                                .property = OROYA_PROPERTY_CURVE,
                                .interpolation = OROYA_INTERP_LINEAR,
                                .components = 1,
                                .key_count = 2,
                                .times = t,
                                .values = cv},
                               {.target = "hips",
                                .property = OROYA_PROPERTY_TRANSLATION,
                                .interpolation = OROYA_INTERP_LINEAR,
                                .components = 3,
                                .key_count = 2,
                                .times = t,
                                .values = tv}};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.name = "c", .tracks = tr, .track_count = 2}, &c,
                               NULL) == OROYA_OK);
    rb_heap h;
    rb_reset(&h, 0);
    oroya_mixer *m = NULL;
    OT_CHECK(oroya_mixer_create(s, &(oroya_mixer_desc){.allocator = rb_allocator(&h)}, &m) ==
             OROYA_OK);
    long refused = 0;
    for (long n = 1; m && c && n < 100; n++) {
        h.fail_at = h.calls + n;
        oroya_action *a = NULL;
        const oroya_result r = oroya_mixer_clip_action(m, c, &a);
        uint32_t idx;
        if (r == OROYA_OK) {
            OT_CHECK(oroya_mixer_find_curve(m, "footstep", &idx) == OROYA_OK);
            break;
        }
        refused++;
        OT_EQ_INT(r, OROYA_ERR_OUT_OF_MEMORY);
        OT_CHECK_MSG(oroya_mixer_curve_count(m) == 0 &&
                         oroya_mixer_find_curve(m, "footstep", &idx) == OROYA_ERR_NOT_FOUND,
                     "refusal %ld left %u curves", n, oroya_mixer_curve_count(m));
    }
    OT_CHECK(refused >= 3);
    h.fail_at = 0;
    oroya_mixer_destroy(m);
    OT_CHECK(h.live == 0);
    oroya_clip_destroy(c);
    oroya_scene_destroy(s);
}

int main(void) {
    RB_RUN(test_fault_mixer);
    RB_RUN(test_fault_mixer_recovers);
    RB_RUN(test_bad_dt);
    RB_RUN(test_time_scale_zero);
    RB_RUN(test_zero_weights);
    RB_RUN(test_zero_length_clip);
    RB_RUN(test_action_limit);
    RB_RUN(test_determinism);
    RB_RUN(test_failed_clip_action_keeps_curves);
    return ot_finish();
}
