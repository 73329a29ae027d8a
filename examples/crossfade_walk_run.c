/* The tutorial's walk-to-run cross-fade, with and without warp.
 *
 * A walk cycle (1.2 s) and a run cycle (0.7 s) move the hips of a tiny scene. At t = 1.0 s
 * the run action is played and walk cross-fades to it over 0.4 s. Without warp both clips
 * keep their own speed; with warp walk's time scale goes 1 -> 1.2/0.7 and run's 0.7/1.2 -> 1,
 * so the two cycles are in step during the blend. The program prints both side by side:
 *
 *   ./crossfade_walk_run            # table every 0.05 s from 0.9 to 1.5 s
 */
#include <math.h>
#include <stdio.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"

typedef struct rig {
    oroya_scene *scene;
    oroya_node hips;
    oroya_rig *kernel; /* the scene's joints for the pose kernel (oroya/rig.h) */
    oroya_mixer *mixer;
    oroya_action *walk, *run;
} rig;

/* A cycle: the hips bob (y) twice per cycle and sway about z once. */
static oroya_clip *make_cycle(const char *name, float duration, float bob, float sway) {
    enum { KEYS = 5 };
    float times[KEYS], pos[KEYS * 3], rot[KEYS * 4];
    for (int k = 0; k < KEYS; k++) {
        float t = duration * (float)k / (KEYS - 1);
        double phase = 2 * 3.14159265358979 * k / (KEYS - 1);
        times[k] = t;
        pos[k * 3 + 0] = 0;
        pos[k * 3 + 1] = 1.0f + bob * (float)(0.5 - 0.5 * cos(2 * phase));
        pos[k * 3 + 2] = 0;
        double a = sway * sin(phase);
        rot[k * 4 + 0] = 0;
        rot[k * 4 + 1] = 0;
        rot[k * 4 + 2] = (float)sin(a / 2);
        rot[k * 4 + 3] = (float)cos(a / 2);
    }
    oroya_track tracks[2] = {{.target = "hips",
                              .property = OROYA_PROPERTY_TRANSLATION,
                              .interpolation = OROYA_INTERP_LINEAR,
                              .components = 3,
                              .key_count = KEYS,
                              .times = times,
                              .values = pos},
                             {.target = "hips",
                              .property = OROYA_PROPERTY_ROTATION,
                              .interpolation = OROYA_INTERP_LINEAR,
                              .components = 4,
                              .key_count = KEYS,
                              .times = times,
                              .values = rot}};
    oroya_clip_desc desc = {.name = name, .duration = duration, .tracks = tracks, .track_count = 2};
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    if (oroya_clip_create(&desc, &clip, &err) != OROYA_OK) {
        fprintf(stderr, "clip %s: %s\n", name, err.message);
        return NULL;
    }
    return clip;
}

static int rig_init(rig *r, const oroya_clip *walk, const oroya_clip *run) {
    if (oroya_scene_create(NULL, &r->scene) != OROYA_OK)
        return -1;
    if (oroya_scene_add_node(r->scene, "hips", (oroya_node){0}, OROYA_NODE_BONE, &r->hips) !=
        OROYA_OK)
        return -1;
    if (oroya_rig_create(&(oroya_rig_desc){.scene = r->scene}, &r->kernel, NULL) != OROYA_OK ||
        oroya_mixer_create(r->scene, &(oroya_mixer_desc){.rig = r->kernel}, &r->mixer) != OROYA_OK)
        return -1;
    /* three.js keeps clip durations as doubles: give the exact ones. */
    if (oroya_action_create(r->mixer, walk, &(oroya_action_desc){.duration = 1.2}, &r->walk) !=
            OROYA_OK ||
        oroya_action_create(r->mixer, run, &(oroya_action_desc){.duration = 0.7}, &r->run) !=
            OROYA_OK)
        return -1;
    oroya_action_play(r->walk);
    return 0;
}

static void rig_free(rig *r) {
    oroya_mixer_destroy(r->mixer);
    oroya_rig_destroy(r->kernel);
    oroya_scene_destroy(r->scene);
}

static float hips_y(const rig *r) {
    oroya_transform t;
    oroya_scene_get_transform(r->scene, r->hips, &t);
    return t.translation.y;
}

int main(void) {
    oroya_clip *walk = make_cycle("walk", 1.2f, 0.05f, 0.10f);
    oroya_clip *run = make_cycle("run", 0.7f, 0.15f, 0.25f);
    if (!walk || !run)
        return 1;
    rig plain = {0}, warped = {0};
    if (rig_init(&plain, walk, run) || rig_init(&warped, walk, run)) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    const double dt = 1.0 / 60.0;
    double clock = 0;
    bool faded = false;
    printf("%5s | %-33s | %-33s\n", "t", "no warp: w_walk w_run ts_walk ts_run",
           "warp:    w_walk w_run ts_walk ts_run");
    for (int i = 0; i < 96; i++) {
        if (!faded && clock >= 1.0 - 1e-9) {
            rig *rs[2] = {&plain, &warped};
            for (int k = 0; k < 2; k++) {
                oroya_action_play(rs[k]->run);
                if (oroya_action_cross_fade_to(rs[k]->walk, rs[k]->run, 0.4, k == 1) != OROYA_OK) {
                    fprintf(stderr, "cross-fade failed\n");
                    return 1;
                }
            }
            faded = true;
        }
        if (oroya_mixer_update(plain.mixer, dt) != OROYA_OK ||
            oroya_mixer_update(warped.mixer, dt) != OROYA_OK)
            return 1;
        clock += dt;
        if (i % 3 == 2 && clock > 0.89) {
            printf("%5.2f | %5.2f %5.2f %5.2f %5.2f y=%5.3f | %5.2f %5.2f %5.2f %5.2f y=%5.3f\n",
                   clock, oroya_action_effective_weight(plain.walk),
                   oroya_action_effective_weight(plain.run),
                   oroya_action_effective_time_scale(plain.walk),
                   oroya_action_effective_time_scale(plain.run), hips_y(&plain),
                   oroya_action_effective_weight(warped.walk),
                   oroya_action_effective_weight(warped.run),
                   oroya_action_effective_time_scale(warped.walk),
                   oroya_action_effective_time_scale(warped.run), hips_y(&warped));
        }
    }
    printf("after the warp: walk enabled=%d time_scale=%.3f, run time_scale=%.3f (restored)\n",
           oroya_action_enabled(warped.walk), oroya_action_time_scale(warped.walk),
           oroya_action_time_scale(warped.run));
    rig_free(&plain);
    rig_free(&warped);
    oroya_clip_destroy(walk);
    oroya_clip_destroy(run);
    return 0;
}
