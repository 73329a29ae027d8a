/* The tutorial's bouncing ball with squash and stretch: one clip with a cubic-spline position
 * track and a cubic-spline scale track on the same node, played by the mixer (mixer.play(clip),
 * then update(dt) each frame, as in the tutorial). Prints height and scale at 10 frames per
 * second: the ball flattens (x, z wide, y short) on each landing and stretches in the air. */
#include <stdio.h>

#include <oroya/oroya.h>

static const float times[5] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f};
/* glTF layout per key: in-tangent, value, out-tangent (x, y, z each); tangents per second. */
static const float position[45] = {
    0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 4, 0,  0, 0, 0, 0, -8, 0, 0, 0,
    0, 0, 5, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, -3, 0, 0, 0, 0, 0,  0, 0,
};
/* Squashed on the ground (wide and flat), stretched on the way up and down. */
static const float scale[45] = {
    0,    0,     0,    1.2f, 0.8f, 1.2f, 0,    0,    0,    0, 0, 0, 0.85f, 1.3f, 0.85f,
    0,    0,     0,    0,    0,    0,    1.3f, 0.7f, 1.3f, 0, 0, 0, 0,     0,    0,
    0.9f, 1.15f, 0.9f, 0,    0,    0,    0,    0,    0,    1, 1, 1, 0,     0,    0,
};

int main(void) {
    const oroya_track tracks[2] = {
        {.target = "ball",
         .property = OROYA_PROPERTY_TRANSLATION,
         .interpolation = OROYA_INTERP_CUBICSPLINE,
         .components = 3,
         .key_count = 5,
         .times = times,
         .values = position},
        {.target = "ball",
         .property = OROYA_PROPERTY_SCALE,
         .interpolation = OROYA_INTERP_CUBICSPLINE,
         .components = 3,
         .key_count = 5,
         .times = times,
         .values = scale},
    };
    oroya_error err = {0};
    oroya_clip *clip = NULL;
    oroya_scene *scene = NULL;
    oroya_mixer *mixer = NULL;
    oroya_action *action = NULL;
    oroya_node ball;
    if (oroya_clip_create(&(oroya_clip_desc){.name = "bounce", .tracks = tracks, .track_count = 2},
                          &clip, &err) != OROYA_OK) {
        fprintf(stderr, "squash_and_stretch: %s\n", err.message);
        return 1;
    }
    if (oroya_scene_create(NULL, &scene) != OROYA_OK ||
        oroya_scene_add_node(scene, "ball", (oroya_node){0}, OROYA_NODE_MESH, &ball) != OROYA_OK ||
        oroya_mixer_create(scene, NULL, &mixer) != OROYA_OK ||
        oroya_mixer_play(mixer, clip, &action) != OROYA_OK) {
        fprintf(stderr, "squash_and_stretch: setup failed\n");
        return 1;
    }
    printf("  t (s)   height   scale x    y      z\n");
    for (int frame = 0; frame <= 20; frame++) {
        oroya_mixer_update(mixer, frame > 0 ? 0.1 : 0.0);
        oroya_transform t;
        oroya_scene_get_transform(scene, ball, &t);
        printf("  %4.1f   %6.3f   %5.3f  %5.3f  %5.3f%s\n", oroya_mixer_time(mixer),
               (double)t.translation.y, (double)t.scale.x, (double)t.scale.y, (double)t.scale.z,
               t.scale.y < 0.95f   ? "  squash"
               : t.scale.y > 1.05f ? "  stretch"
                                   : "");
    }
    oroya_mixer_destroy(mixer);
    oroya_scene_destroy(scene);
    oroya_clip_destroy(clip);
    return 0;
}
