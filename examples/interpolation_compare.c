/* The tutorial's comparison: three balls with the same three keys (up 3 units at t = 1 s,
 * down again at 2 s), one with STEP, one with LINEAR and one with CUBICSPLINE interpolation,
 * played side by side by one mixer. STEP jumps, LINEAR moves at constant speed and turns
 * sharply at the top, the cubic spline eases out and in. */
#include <stdio.h>

#include <oroya/oroya.h>

static const float times[3] = {0, 1, 2};
static const float linear[9] = {0, 0, 0, 0, 3, 0, 0, 0, 0};
/* in, value, out per key; tangents per second: leave the ground at 5 units/s, flat at the top. */
static const float cubic[27] = {
    0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, -5, 0, 0, 0, 0, 0, 0, 0,
};

int main(void) {
    static const char *names[3] = {"step", "linear", "cubic"};
    const oroya_interpolation modes[3] = {OROYA_INTERP_STEP, OROYA_INTERP_LINEAR,
                                          OROYA_INTERP_CUBICSPLINE};
    oroya_error err = {0};
    oroya_scene *scene = NULL;
    oroya_mixer *mixer = NULL;
    oroya_clip *clips[3] = {0};
    oroya_node balls[3];
    int status = 0;
    if (oroya_scene_create(NULL, &scene) != OROYA_OK ||
        oroya_mixer_create(scene, NULL, &mixer) != OROYA_OK) {
        fprintf(stderr, "interpolation_compare: setup failed\n");
        return 1;
    }
    for (int i = 0; i < 3 && !status; i++) {
        const oroya_track track = {.target = names[i],
                                   .property = OROYA_PROPERTY_TRANSLATION,
                                   .interpolation = modes[i],
                                   .components = 3,
                                   .key_count = 3,
                                   .times = times,
                                   .values = i == 2 ? cubic : linear};
        oroya_action *action = NULL;
        if (oroya_scene_add_node(scene, names[i], (oroya_node){0}, OROYA_NODE_MESH, &balls[i]) ||
            oroya_clip_create(
                &(oroya_clip_desc){.name = names[i], .tracks = &track, .track_count = 1}, &clips[i],
                &err) ||
            oroya_mixer_play(mixer, clips[i], &action)) {
            fprintf(stderr, "interpolation_compare: %s: %s\n", names[i], err.message);
            status = 1;
        }
    }
    if (!status) {
        printf("  t (s)    step   linear   cubic\n");
        for (int frame = 0; frame <= 16; frame++) {
            oroya_mixer_update(mixer, frame > 0 ? 0.125 : 0.0);
            printf("  %5.3f", oroya_mixer_time(mixer));
            for (int i = 0; i < 3; i++) {
                oroya_transform t;
                oroya_scene_get_transform(scene, balls[i], &t);
                printf("  %6.3f", (double)t.translation.y);
            }
            printf("\n");
        }
    }
    oroya_mixer_destroy(mixer);
    oroya_scene_destroy(scene);
    for (int i = 0; i < 3; i++)
        oroya_clip_destroy(clips[i]);
    return status;
}
