/* The tutorial's additive "look up" gesture over a run cycle.
 *
 * The run cycle (normal blending) nods the head a little about x. A separate "look_up" pose
 * clip tilts the head up by 30 degrees; oroya_clip_make_additive turns it into a difference
 * from its frame 0 (the neutral head), so it can be layered on top of any base animation:
 * result = base * slerp(identity, delta, weight). The weight is raised 0 -> 1 -> 1.5
 * (above 1 extrapolates) while the run keeps playing.
 *
 *   ./additive_lookup         # prints the head pitch of the run alone and with the layer
 */
#include <math.h>
#include <stdio.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"

#define PI 3.14159265358979

static void xrot(double angle, float *q) {
    q[0] = (float)sin(angle / 2);
    q[1] = 0;
    q[2] = 0;
    q[3] = (float)cos(angle / 2);
}

static double pitch_deg(oroya_scene *scene, oroya_node head) {
    oroya_transform t;
    oroya_scene_get_transform(scene, head, &t);
    return 2 * atan2((double)t.rotation.x, (double)t.rotation.w) * 180 / PI;
}

int main(void) {
    oroya_scene *scene = NULL;
    oroya_node spine, head;
    if (oroya_scene_create(NULL, &scene) != OROYA_OK ||
        oroya_scene_add_node(scene, "spine", (oroya_node){0}, OROYA_NODE_BONE, &spine) !=
            OROYA_OK ||
        oroya_scene_add_node(scene, "head", spine, OROYA_NODE_BONE, &head) != OROYA_OK)
        return 1;

    /* Run: the head nods +-5 degrees twice per 0.7 s cycle. */
    float run_times[5], run_rot[20];
    for (int k = 0; k < 5; k++) {
        run_times[k] = 0.7f * (float)k / 4;
        xrot((k % 2 ? 5.0 : -5.0) * PI / 180, run_rot + 4 * k);
    }
    oroya_track run_track = {.target = "head",
                             .property = OROYA_PROPERTY_ROTATION,
                             .interpolation = OROYA_INTERP_LINEAR,
                             .components = 4,
                             .key_count = 5,
                             .times = run_times,
                             .values = run_rot};
    /* Look up: frame 0 is the neutral head, then 30 degrees up (negative x) held. */
    float look_times[2] = {0, 0.5f}, look_rot[8];
    xrot(0, look_rot);
    xrot(-30 * PI / 180, look_rot + 4);
    oroya_track look_track = {.target = "head",
                              .property = OROYA_PROPERTY_ROTATION,
                              .interpolation = OROYA_INTERP_LINEAR,
                              .components = 4,
                              .key_count = 2,
                              .times = look_times,
                              .values = look_rot};
    oroya_error err = {0};
    oroya_clip *run = NULL, *look = NULL;
    if (oroya_clip_create(&(oroya_clip_desc){.name = "run", .tracks = &run_track, .track_count = 1},
                          &run, &err) != OROYA_OK ||
        oroya_clip_create(
            &(oroya_clip_desc){.name = "look_up", .tracks = &look_track, .track_count = 1}, &look,
            &err) != OROYA_OK) {
        fprintf(stderr, "clip: %s\n", err.message);
        return 1;
    }
    /* Differences from frame 0 of the clip itself; the clip becomes ADDITIVE. */
    if (oroya_clip_make_additive(look, 0, NULL, 30) != OROYA_OK)
        return 1;

    /* Every node a joint of the pose kernel (after makeClipAdditive: the rig reads the clips). */
    oroya_rig *rig = NULL;
    oroya_mixer *mixer = NULL;
    oroya_action *run_action = NULL, *look_action = NULL;
    if (oroya_rig_create(&(oroya_rig_desc){.scene = scene}, &rig, &err) != OROYA_OK ||
        oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = rig}, &mixer) != OROYA_OK ||
        oroya_mixer_play(mixer, run, &run_action) != OROYA_OK ||
        oroya_mixer_clip_action(mixer, look, &look_action) != OROYA_OK)
        return 1;
    oroya_action_set_loop(look_action, OROYA_LOOP_ONCE, 1);
    oroya_action_set_clamp_when_finished(look_action, true); /* hold the raised head */
    oroya_action_play(look_action);

    const double dt = 1.0 / 30.0;
    printf("%5s %7s %9s\n", "t", "weight", "pitch");
    for (int i = 1; i <= 90; i++) {
        double t = i * dt;
        /* The layer's weight: 0 for the first second, ramps to 1, then 1.5 at the end. */
        double w = t < 1.0 ? 0.0 : t < 2.0 ? t - 1.0 : 1.5;
        oroya_action_set_effective_weight(look_action, w);
        if (oroya_mixer_update(mixer, dt) != OROYA_OK)
            return 1;
        if (i % 6 == 0)
            printf("%5.2f %7.2f %8.2f deg\n", t, w, pitch_deg(scene, head));
    }
    oroya_mixer_destroy(mixer);
    oroya_rig_destroy(rig);
    oroya_clip_destroy(run);
    oroya_clip_destroy(look);
    oroya_scene_destroy(scene);
    return 0;
}
