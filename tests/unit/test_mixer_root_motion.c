/* Root motion: a walk whose root moves 1.2 m per 1.2 s cycle, looped 10 times at time scale
 * 1.3 with irregular dts, accumulates 12 m (1e-4) while the root stays in place; backwards,
 * clamped, ping-pong (out and back), several loops in one dt, set_time (no motion), and a
 * walk -> run cross-fade with warp whose every delta is the blend rule computed here from the
 * actions' public state (times, loop counts, effective weights) and the clips' keys. On the
 * property path and the pose kernel path. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"
#include "oroya_test.h"

#define PI 3.14159265358979323846

typedef struct {
    oroya_scene *scene;
    oroya_node hips, leg;
    oroya_rig *rig;
    oroya_mixer *mixer;
    oroya_clip *walk, *run;
} world;

/* A clip moving `root` by `stride` in z (and bobbing in y) over `dur`, leg swinging. */
static oroya_clip *stride_clip_on(const char *name, const char *root, float dur, float stride) {
    float times[3] = {0, dur / 2, dur};
    float pos[9] = {0, 1, 0, 0.1f, 1.05f, stride / 2, 0, 1, stride};
    float lq[12] = {0, 0, 0, 1, 0.2588190f, 0, 0, 0.9659258f, 0, 0, 0, 1};
    oroya_track tr[2] = {{.target = root,
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .times = times,
                          .values = pos,
                          .key_count = 3,
                          .components = 3},
                         {.target = "leg",
                          .property = OROYA_PROPERTY_ROTATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .times = times,
                          .values = lq,
                          .key_count = 3,
                          .components = 4}};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){.name = name, .duration = dur, .tracks = tr, .track_count = 2},
                 &c, NULL) == OROYA_OK);
    return c;
}

static oroya_clip *stride_clip(const char *name, float dur, float stride) {
    return stride_clip_on(name, "hips", dur, stride);
}

static void make(world *w, bool rig) {
    memset(w, 0, sizeof *w);
    OT_CHECK(oroya_scene_create(NULL, &w->scene) == OROYA_OK);
    oroya_scene_add_node(w->scene, "hips", (oroya_node){0}, OROYA_NODE_BONE, &w->hips);
    oroya_scene_add_node(w->scene, "leg", w->hips, OROYA_NODE_BONE, &w->leg);
    w->walk = stride_clip("walk", 1.2f, 1.2f);
    w->run = stride_clip("run", 0.8f, 1.6f);
    oroya_mixer_desc md = {0};
    if (rig) {
        OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = w->scene}, &w->rig, NULL) == OROYA_OK);
        md.rig = w->rig;
    }
    OT_CHECK(oroya_mixer_create(w->scene, &md, &w->mixer) == OROYA_OK);
    OT_CHECK(oroya_mixer_set_root_motion(w->mixer, w->hips, OROYA_ROOT_XZ, NULL) == OROYA_OK);
}

static void destroy(world *w) {
    oroya_mixer_destroy(w->mixer);
    oroya_rig_destroy(w->rig);
    oroya_clip_destroy(w->walk);
    oroya_clip_destroy(w->run);
    oroya_scene_destroy(w->scene);
}

static oroya_action *play_exact(world *w, oroya_clip *c, double duration) {
    oroya_action *a = NULL;
    oroya_action_desc d = {.duration = duration};
    OT_CHECK(oroya_action_create(w->mixer, c, &d, &a) == OROYA_OK);
    oroya_action_play(a);
    return a;
}

static uint32_t rng = 777;
static double irregular_dt(void) {
    rng = rng * 1664525u + 1013904223u;
    return 0.004 + (double)(rng >> 8) / (double)(1u << 24) * 0.05;
}

/* Runs until the mixer has advanced `total` seconds (the last dt trimmed); checks that the
 * root stays in place (x, z at 0). */
static void run_for(world *w, double total) {
    double t = 0;
    while (t < total) {
        double dt = irregular_dt();
        if (t + dt > total)
            dt = total - t;
        OT_CHECK(oroya_mixer_update(w->mixer, dt) == OROYA_OK);
        t += dt;
        oroya_transform tr;
        oroya_scene_get_transform(w->scene, w->hips, &tr);
        if (tr.translation.x != 0 || tr.translation.z != 0) {
            OT_CHECK_MSG(false, "root moved: %g %g", (double)tr.translation.x,
                         (double)tr.translation.z);
            break;
        }
    }
}

static void test_ten_loops(void) {
    for (int rig = 0; rig < 2; rig++) {
        world w;
        make(&w, rig != 0);
        oroya_action *a = play_exact(&w, w.walk, 1.2);
        oroya_action_set_time_scale(a, 1.3);
        run_for(&w, 12.0 / 1.3);
        oroya_root_motion tot = oroya_mixer_root_total(w.mixer);
        OT_NEAR(tot.translation.z, 12.0, 1e-4);
        OT_NEAR(tot.translation.x, 0.0, 1e-4); /* the sway comes back each cycle */
        OT_NEAR(tot.translation.y, 0.0, 0);    /* xz only */
        /* Backwards at -1.3 for the same time: back to the start. */
        oroya_action_set_time_scale(a, -1.3);
        run_for(&w, 12.0 / 1.3);
        tot = oroya_mixer_root_total(w.mixer);
        OT_NEAR(tot.translation.z, 0.0, 1e-4);
        /* Several loops in one dt. */
        oroya_action_set_time_scale(a, 1.0);
        OT_CHECK(oroya_mixer_update(w.mixer, 3.6) == OROYA_OK);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, 3.6, 1e-5);
        /* set_time is a jump: no motion. */
        OT_CHECK(oroya_mixer_set_time(w.mixer, 0.9) == OROYA_OK);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, 0.0, 0);
        /* stop + play: the jump back to 0 is not motion either. */
        oroya_action_stop(a);
        oroya_action_play(a);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.3) == OROYA_OK);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, 0.3, 1e-5);
        destroy(&w);
    }
}

static void test_clamped_and_ping_pong(void) {
    for (int rig = 0; rig < 2; rig++) {
        world w;
        make(&w, rig != 0);
        oroya_action *a = play_exact(&w, w.walk, 1.2);
        oroya_action_set_loop(a, OROYA_LOOP_REPEAT, 2);
        oroya_action_set_clamp_when_finished(a, true);
        run_for(&w, 5.0); /* 2 loops, then clamped */
        OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 2.4, 1e-4);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, 0.0, 0);
        destroy(&w);

        make(&w, rig != 0);
        a = play_exact(&w, w.walk, 1.2);
        oroya_action_set_loop(a, OROYA_LOOP_PINGPONG, INFINITY);
        run_for(&w, 1.2);
        OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 1.2, 1e-4); /* out */
        run_for(&w, 1.2);
        OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 0.0, 1e-4); /* and back */
        OT_CHECK(oroya_mixer_update(w.mixer, 0.6 + 2.4) == OROYA_OK);      /* a turn within */
        OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 0.6, 1e-4);
        destroy(&w);
    }
}

/* Ping-pong played backwards starts in round -1, which three shows mirrored (raw time 0
 * shows the clip's end, `loopCount & 1`); the deltas follow the pose there. And an action
 * that finishes without clamp_when_finished counts its last update's motion (its weight is 0
 * in that update's pose, as three's). The walk's hips z is the clip time (1.2 m over 1.2 s),
 * so each expected delta is the shown clip time's change, worked out by hand. */
static void test_ping_pong_backward_and_unclamped_finish(void) {
    for (int rig = 0; rig < 2; rig++) {
        world w;
        make(&w, rig != 0);
        oroya_action *a = play_exact(&w, w.walk, 1.2);
        oroya_action_set_loop(a, OROYA_LOOP_PINGPONG, INFINITY);
        oroya_action_set_time_scale(a, -1);
        OT_CHECK(oroya_action_set_time(a, 0.6) == OROYA_OK);
        /* raw 0.6 -> 0.4 -> 0.2 -> 0 in round -1 (shown 0.6 -> 0.8 -> 1.0 -> 1.2), then the
         * pass through 0 turns it: raw 1.0 in round 0, shown 1.0. */
        const double want[4] = {0.2, 0.2, 0.2, -0.2};
        for (int i = 0; i < 4; i++) {
            OT_CHECK(oroya_mixer_update(w.mixer, 0.2) == OROYA_OK);
            OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, want[i], 1e-5);
        }
        OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 0.4, 1e-5);
        destroy(&w);

        /* From time 0 backwards: raw 0 shows 1.2, and 0.1 s later 1.1 (it lurched to +1.1). */
        make(&w, rig != 0);
        a = play_exact(&w, w.walk, 1.2);
        oroya_action_set_loop(a, OROYA_LOOP_PINGPONG, INFINITY);
        oroya_action_set_time_scale(a, -1);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.1) == OROYA_OK);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, -0.1, 1e-5);
        destroy(&w);

        /* LOOP_ONCE, unclamped: 0.6 then 0.9 s: the second update reaches the end (0.6 m more,
         * not 0) and disables the action. */
        make(&w, rig != 0);
        a = play_exact(&w, w.walk, 1.2);
        oroya_action_set_loop(a, OROYA_LOOP_ONCE, 1);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.6) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.9) == OROYA_OK);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, 0.6, 1e-5);
        OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 1.2, 1e-5);
        OT_CHECK(!oroya_action_is_running(a));
        OT_CHECK(oroya_mixer_update(w.mixer, 0.5) == OROYA_OK); /* finished: no more */
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, 0.0, 0);
        destroy(&w);

        /* Ping-pong of 3 rounds, unclamped, in one 10 s update: out, back, out: 1.2 m. */
        make(&w, rig != 0);
        a = play_exact(&w, w.walk, 1.2);
        oroya_action_set_loop(a, OROYA_LOOP_PINGPONG, 3);
        OT_CHECK(oroya_mixer_update(w.mixer, 10.0) == OROYA_OK);
        OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 1.2, 1e-5);
        destroy(&w);
    }
}

/* A clip whose root walks a quarter circle of radius 2 and turns with it (yaw = the arc's
 * angle, facing along the path), 33 keys: four loops close the square of arcs. Under XZ_YAW
 * (and FULL, which extracts the same turn here)
 * the parent-space deltas sum to (8, 0, 8), not a closed path; the local deltas, applied
 * to a character node as oroya/mixer.h says, bring the root back: after one loop it stands at
 * the arc's end, (2, 0, 2) facing +x (yaw pi/2), after four where it started. The root's home
 * (its rest when set_root_motion is called) is the identity, then off-centre and turned. */
static oroya_clip *arc_clip(void) {
    enum { K = 33 };
    static float times[K], pos[K * 3], rot[K * 4];
    for (int k = 0; k < K; k++) {
        const double th = (double)k / (K - 1) * (PI / 2);
        times[k] = (float)k / (K - 1);
        pos[k * 3] = (float)(2 * (1 - cos(th))), pos[k * 3 + 1] = 0;
        pos[k * 3 + 2] = (float)(2 * sin(th));
        rot[k * 4] = 0, rot[k * 4 + 1] = (float)sin(th / 2), rot[k * 4 + 2] = 0;
        rot[k * 4 + 3] = (float)cos(th / 2);
    }
    oroya_track tr[2] = {{.target = "hips",
                          .property = OROYA_PROPERTY_TRANSLATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .times = times,
                          .values = pos,
                          .key_count = K,
                          .components = 3},
                         {.target = "hips",
                          .property = OROYA_PROPERTY_ROTATION,
                          .interpolation = OROYA_INTERP_LINEAR,
                          .times = times,
                          .values = rot,
                          .key_count = K,
                          .components = 4}};
    oroya_clip *c = NULL;
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){.name = "arc", .duration = 1, .tracks = tr, .track_count = 2},
                 &c, NULL) == OROYA_OK);
    return c;
}

/* The character node (position p in xz, yaw c) moved by one local delta. */
static void apply_local(double *p, double *c, oroya_root_motion d) {
    const double x = d.translation.x, z = d.translation.z;
    p[0] += cos(*c) * x + sin(*c) * z;
    p[1] += -sin(*c) * x + cos(*c) * z;
    *c += 2 * atan2((double)d.rotation.y, (double)d.rotation.w);
}

/* Where the root stands: the character's transform times the root's home (xz, yaw). */
static void root_place(const double *p, double c, const double *home, double *out) {
    out[0] = p[0] + cos(c) * home[0] + sin(c) * home[1];
    out[1] = p[1] - sin(c) * home[0] + cos(c) * home[1];
    out[2] = c + home[2];
}

static void test_local_deltas_follow_turns(void) {
    /* home: x, z, yaw */
    const double homes[2][3] = {{0, 0, 0}, {0.3, -0.2, PI / 6}};
    for (int rig = 0; rig < 4; rig++) { /* bit 0: a rig; bit 1: FULL instead of XZ_YAW */
        for (int hc = 0; hc < 2; hc++) {
            for (int one_dt = 0; one_dt < 2; one_dt++) {
                world w;
                make(&w, (rig & 1) != 0);
                const double *home = homes[hc];
                oroya_transform ht = oroya_transform_identity();
                ht.translation = (oroya_vec3){(float)home[0], 1, (float)home[1]};
                ht.rotation = (oroya_quat){0, (float)sin(home[2] / 2), 0, (float)cos(home[2] / 2)};
                OT_CHECK(oroya_scene_set_transform(w.scene, w.hips, &ht) == OROYA_OK);
                OT_CHECK(oroya_mixer_set_root_motion(w.mixer, w.hips,
                                                     rig & 2 ? OROYA_ROOT_FULL : OROYA_ROOT_XZ_YAW,
                                                     NULL) == OROYA_OK);
                oroya_clip *arc = arc_clip();
                play_exact(&w, arc, 1.0);
                /* The character so that the root starts at the clip's start (0, 0, yaw 0). */
                double c = -home[2], p[2];
                p[0] = -(cos(c) * home[0] + sin(c) * home[1]);
                p[1] = -(-sin(c) * home[0] + cos(c) * home[1]);
                double at[3], t = 0;
                for (int loop = 1; loop <= 4; loop += one_dt ? 3 : 1) {
                    const double until = one_dt ? 4.0 : (double)loop;
                    while (t < until - 1e-12) {
                        double dt = one_dt ? until - t : irregular_dt();
                        dt = t + dt > until ? until - t : dt;
                        OT_CHECK(oroya_mixer_update(w.mixer, dt) == OROYA_OK);
                        t += dt;
                        apply_local(p, &c, oroya_mixer_root_delta_local(w.mixer));
                    }
                    root_place(p, c, home, at);
                    if (loop == 1 && !one_dt) {
                        OT_NEAR(at[0], 2, 1e-4);
                        OT_NEAR(at[1], 2, 1e-4);
                        OT_NEAR(at[2], PI / 2, 1e-5);
                    }
                }
                OT_NEAR(at[0], 0, 1e-4);
                OT_NEAR(at[1], 0, 1e-4);
                OT_NEAR(remainder(at[2], 2 * PI), 0, 1e-5);
                /* The parent-space deltas do not close the path: each loop adds its keys'
                 * (2, 0, 2) as it is, so the total is (8, 0, 8). */
                OT_NEAR(oroya_mixer_root_total(w.mixer).translation.x, 8, 1e-4);
                OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 8, 1e-4);
                destroy(&w);
                oroya_clip_destroy(arc);
            }
        }
    }
}

/* z of the clip's hips track at clip time t (the clip's own keys, linear). */
static double key_z(const oroya_clip *c, double t) {
    const oroya_track *tr = &c->tracks[0];
    for (uint32_t k = 0; k + 1 < tr->key_count; k++) {
        double t0 = tr->times[k], t1 = tr->times[k + 1];
        if (t <= t1 || k + 2 == tr->key_count) {
            double f = (t - t0) / (t1 - t0);
            f = f < 0 ? 0 : f > 1 ? 1 : f;
            return tr->values[k * 3 + 2] +
                   (tr->values[(k + 1) * 3 + 2] - tr->values[k * 3 + 2]) * f;
        }
    }
    return 0;
}

static void test_cross_fade_rule(void) {
    for (int rig = 0; rig < 2; rig++) {
        world w;
        make(&w, rig != 0);
        oroya_action *walk = play_exact(&w, w.walk, 1.2), *run = NULL;
        OT_CHECK(oroya_action_create(w.mixer, w.run, &(oroya_action_desc){.duration = 0.8}, &run) ==
                 OROYA_OK);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.5) == OROYA_OK);
        oroya_action_play(run);
        OT_CHECK(oroya_action_cross_fade_to(walk, run, 1.5, true) == OROYA_OK);
        oroya_action *acts[2] = {walk, run};
        const oroya_clip *clips[2] = {w.walk, w.run};
        const double durs[2] = {1.2, 0.8};
        double sum_expected = 0, sum_got = 0, worst = 0;
        for (int f = 0; f < 150; f++) {
            double t0[2], l0[2];
            for (int i = 0; i < 2; i++) {
                t0[i] = oroya_action_time(acts[i]);
                l0[i] = (double)oroya_action_loop_count(acts[i]);
            }
            OT_CHECK(oroya_mixer_update(w.mixer, irregular_dt()) == OROYA_OK);
            double num = 0, wsum = 0;
            for (int i = 0; i < 2; i++) {
                double wt = oroya_action_effective_weight(acts[i]);
                if (!(wt > 0))
                    continue;
                double t1 = oroya_action_time(acts[i]);
                double l1 = (double)oroya_action_loop_count(acts[i]);
                double loops = l1 - (l0[i] < 0 ? 0 : l0[i]);
                double dz = key_z(clips[i], t1) - key_z(clips[i], t0[i]) +
                            loops * (key_z(clips[i], durs[i]) - key_z(clips[i], 0));
                num += wt * dz;
                wsum += wt;
            }
            double expected = wsum >= 1 ? num / wsum : num;
            double got = oroya_mixer_root_delta(w.mixer).translation.z;
            worst = fmax(worst, fabs(got - expected));
            sum_expected += expected;
            sum_got += got;
        }
        OT_CHECK_MSG(worst < 1e-6, "worst per-update difference %g", worst);
        OT_NEAR(sum_got, sum_expected, 1e-5);
        OT_CHECK_MSG(sum_expected > 4, "moved %g", sum_expected); /* it moved */
        destroy(&w);
    }
}

/* Weights adding up to less than 1: the missing weight adds no motion (no division); above 1
 * the weighted sum is divided by the weight sum. */
static void test_partial_weights(void) {
    for (int rig = 0; rig < 2; rig++) {
        world w;
        make(&w, rig != 0);
        oroya_action *walk = play_exact(&w, w.walk, 1.2), *run = play_exact(&w, w.run, 0.8);
        oroya_action_set_effective_weight(walk, 0.3);
        oroya_action_set_effective_weight(run, 0.4);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.2) == OROYA_OK); /* no wrap in either */
        double dw = key_z(w.walk, 0.2) - key_z(w.walk, 0), dr = key_z(w.run, 0.2) - key_z(w.run, 0);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, 0.3 * dw + 0.4 * dr, 1e-6);
        oroya_action_set_effective_weight(walk, 1.5);
        oroya_action_set_effective_weight(run, 0.5);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.2) == OROYA_OK);
        dw = key_z(w.walk, 0.4) - key_z(w.walk, 0.2), dr = key_z(w.run, 0.4) - key_z(w.run, 0.2);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, (1.5 * dw + 0.5 * dr) / 2.0, 1e-6);
        destroy(&w);
    }
}

/* A mask weights the root's part in the blend as it weights the pose: run masked to the leg
 * (the hips at mask weight 0) takes no part, at weight 0.25 a quarter. An additive action's
 * displacement is added on top, outside the normalization (as its pose is): walk alone at
 * weight 1 plus an additive run at 0.5 moves walk + 0.5 run, not their average. */
static void test_masks_and_additive(void) {
    for (int rig = 0; rig < 2; rig++) {
        world w;
        make(&w, rig != 0);
        oroya_action *walk = play_exact(&w, w.walk, 1.2), *run = play_exact(&w, w.run, 0.8);
        const char *leg[] = {"leg"};
        oroya_mask_entry quarter[] = {{"hips", 0.25f}, {"leg", 1}};
        oroya_mask *legs_only = NULL, *hips_quarter = NULL;
        oroya_error err = {0};
        OT_CHECK_MSG(
            oroya_mask_create(w.mixer,
                              &(oroya_mask_desc){.name = "leg", .include = leg, .include_count = 1},
                              &legs_only, &err) == OROYA_OK,
            "%s", err.message);
        OT_CHECK_MSG(
            oroya_mask_create(
                w.mixer,
                &(oroya_mask_desc){.name = "quarter", .weights = quarter, .weight_count = 2},
                &hips_quarter, &err) == OROYA_OK,
            "%s", err.message);
        OT_CHECK(oroya_action_set_mask(run, legs_only) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.2) == OROYA_OK);
        double dw = key_z(w.walk, 0.2) - key_z(w.walk, 0), dr = key_z(w.run, 0.2) - key_z(w.run, 0);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, dw, 1e-6);
        OT_CHECK(oroya_action_set_mask(run, hips_quarter) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.2) == OROYA_OK);
        dw = key_z(w.walk, 0.4) - key_z(w.walk, 0.2), dr = key_z(w.run, 0.4) - key_z(w.run, 0.2);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, (dw + 0.25 * dr) / 1.25, 1e-6);
        OT_CHECK(oroya_action_set_mask(run, NULL) == OROYA_OK);
        oroya_action_set_blend_mode(run, OROYA_BLEND_ADDITIVE);
        oroya_action_set_effective_weight(run, 0.5);
        OT_CHECK(oroya_mixer_update(w.mixer, 0.2) == OROYA_OK);
        dw = key_z(w.walk, 0.6) - key_z(w.walk, 0.4), dr = key_z(w.run, 0.6) - key_z(w.run, 0.4);
        OT_NEAR(oroya_mixer_root_delta(w.mixer).translation.z, dw + 0.5 * dr, 1e-6);
        (void)walk;
        destroy(&w);
    }
}

/* A character rebuilt under the same names keeps its root motion, as its bindings keep
 * animating (docs/mixer.md): the root removed and added again is held in place from the next
 * update, the deltas go on, and an action created after the change finds the root's tracks.
 * The mixer held the removed node's handle: the new hips walked off while the deltas were
 * still reported (twice the motion), and a new action had no root tracks. Property path (on
 * a rig's scene, removing a joint refuses the update). */
static void test_root_rebuilt(void) {
    world w;
    make(&w, false);
    oroya_action *walk = play_exact(&w, w.walk, 1.2);
    run_for(&w, 0.6);
    OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 0.6, 1e-5);
    OT_CHECK(oroya_scene_remove_node(w.scene, w.hips) == OROYA_OK); /* and leg with it */
    OT_CHECK(oroya_scene_add_node(w.scene, "hips", (oroya_node){0}, OROYA_NODE_BONE, &w.hips) ==
             OROYA_OK);
    OT_CHECK(oroya_scene_add_node(w.scene, "leg", w.hips, OROYA_NODE_BONE, &w.leg) == OROYA_OK);
    run_for(&w, 0.3);
    OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 0.9, 1e-5);
    oroya_transform tr;
    oroya_scene_get_transform(w.scene, w.hips, &tr);
    OT_CHECK(tr.translation.y > 0.9f); /* the bob is the clip's: the new node is animated */
    /* A new action, created after the change, cross-faded in: its root tracks count. */
    oroya_action *run = play_exact(&w, w.run, 0.8);
    oroya_action_cross_fade_from(run, walk, 0.2, false);
    run_for(&w, 1.0);
    OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 0.9 + 1.9, 0.05);
    OT_CHECK(oroya_mixer_root_total(w.mixer).translation.z > 0.9 + 1.8);
    destroy(&w);
}

/* A root renamed after set_root_motion is still the root: an action created afterwards on
 * clips that name it by its new name has its root tracks (the mixer looked them up by the
 * name at the call, so the renamed root walked off). */
static void test_root_renamed(void) {
    world w;
    make(&w, false);
    OT_CHECK(oroya_scene_set_name(w.scene, w.hips, "pelvis") == OROYA_OK);
    oroya_clip *walk = stride_clip_on("walk_pelvis", "pelvis", 1.2f, 1.2f);
    play_exact(&w, walk, 1.2);
    run_for(&w, 0.6); /* checks the root stays in place */
    OT_NEAR(oroya_mixer_root_total(w.mixer).translation.z, 0.6, 1e-5);
    destroy(&w);
    oroya_clip_destroy(walk);
}

static void test_errors(void) {
    world w;
    make(&w, false);
    oroya_error err = {0};
    OT_EQ_INT(oroya_mixer_set_root_motion(w.mixer, w.hips, (oroya_root_extract)9, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "extract mode") != NULL);
    OT_EQ_INT(oroya_mixer_set_root_motion(w.mixer, (oroya_node){0}, OROYA_ROOT_XZ, &err),
              OROYA_ERR_STALE_HANDLE);
    destroy(&w);
}

/* A dt whose motion leaves float: the walk moves 1 m a second, so a dt of 1e39 is 1e39 m,
 * which a float delta cannot hold (it was inf, and the total inf from then on, with OK). The
 * delta and the total saturate at +-FLT_MAX (documented in mixer.h); a NaN (two actions whose
 * infinite motions cancel) reads 0. */
static void test_huge_dt_saturates(void) {
    for (int rig = 0; rig < 2; rig++) {
        world w;
        make(&w, rig != 0);
        play_exact(&w, w.walk, 1.2);
        OT_CHECK(oroya_mixer_update(w.mixer, 1e39) == OROYA_OK);
        oroya_root_motion d = oroya_mixer_root_delta(w.mixer);
        oroya_root_motion tot = oroya_mixer_root_total(w.mixer);
        OT_CHECK_MSG(d.translation.z == FLT_MAX && tot.translation.z == FLT_MAX, "%g %g",
                     (double)d.translation.z, (double)tot.translation.z);
        OT_CHECK(isfinite(d.translation.x) && isfinite(tot.translation.x));
        OT_CHECK(oroya_mixer_update(w.mixer, 1e39) == OROYA_OK);
        tot = oroya_mixer_root_total(w.mixer);
        OT_CHECK(tot.translation.z == FLT_MAX);
        /* With the yaw extracted too, over a dt of 1e300 (the yaw sum is finite in double
         * here; the rotation stays a unit quaternion). */
        OT_CHECK(oroya_mixer_set_root_motion(w.mixer, w.hips, OROYA_ROOT_XZ_YAW, NULL) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(w.mixer, 1e300) == OROYA_OK);
        d = oroya_mixer_root_delta(w.mixer);
        OT_CHECK(isfinite(d.rotation.x + d.rotation.y + d.rotation.z + d.rotation.w) &&
                 d.translation.z == FLT_MAX);
        destroy(&w);
    }
}

/* The whole rotation over very many loops: a root turning 0.9 rad a loop, 1e300 s of 1.5 s
 * loops in one update; the rotation vector (some 6e299 rad) squared to inf and gave a NaN
 * delta and total with OK (found by a stateful API fuzz). mixer.h: always finite. */
static void test_huge_turn_finite(void) {
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    oroya_node root;
    OT_CHECK(oroya_scene_add_node(s, "root", (oroya_node){0}, OROYA_NODE_BONE, &root) == OROYA_OK);
    static const float times[2] = {0.5f, 1.5f};
    static const float values[8] = {0, 0, 0, 1, 0, 0.43496553f, 0, 0.90044710f}; /* 0.9 rad */
    const oroya_track t = {.target = "root",
                           .property = OROYA_PROPERTY_ROTATION,
                           .interpolation = OROYA_INTERP_STEP,
                           .components = 4,
                           .key_count = 2,
                           .times = times,
                           .values = values};
    oroya_clip *clip = NULL;
    OT_CHECK(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, NULL) ==
             OROYA_OK);
    for (int mode = 0; mode < 2; mode++) {
        oroya_mixer *m = NULL;
        OT_CHECK(oroya_mixer_create(s, NULL, &m) == OROYA_OK);
        OT_CHECK(oroya_mixer_set_root_motion(m, root, mode ? OROYA_ROOT_FULL : OROYA_ROOT_XZ_YAW,
                                             NULL) == OROYA_OK);
        OT_CHECK(oroya_mixer_play(m, clip, NULL) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(m, 0.1) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(m, 1e300) == OROYA_OK);
        const oroya_root_motion d = oroya_mixer_root_delta(m), tot = oroya_mixer_root_total(m);
        const float n2 = d.rotation.x * d.rotation.x + d.rotation.y * d.rotation.y +
                         d.rotation.z * d.rotation.z + d.rotation.w * d.rotation.w;
        OT_CHECK_MSG(isfinite(n2) && fabsf(n2 - 1) < 1e-5f, "mode %d: delta (%g %g %g %g)", mode,
                     (double)d.rotation.x, (double)d.rotation.y, (double)d.rotation.z,
                     (double)d.rotation.w);
        OT_CHECK(isfinite(tot.rotation.x + tot.rotation.y + tot.rotation.z + tot.rotation.w));
        oroya_mixer_destroy(m);
    }
    oroya_clip_destroy(clip);
    oroya_scene_destroy(s);
}

int main(void) {
    OT_RUN(test_ten_loops);
    OT_RUN(test_clamped_and_ping_pong);
    OT_RUN(test_ping_pong_backward_and_unclamped_finish);
    OT_RUN(test_local_deltas_follow_turns);
    OT_RUN(test_cross_fade_rule);
    OT_RUN(test_partial_weights);
    OT_RUN(test_masks_and_additive);
    OT_RUN(test_root_rebuilt);
    OT_RUN(test_root_renamed);
    OT_RUN(test_errors);
    OT_RUN(test_huge_dt_saturates);
    OT_RUN(test_huge_turn_finite);
    return ot_finish();
}
