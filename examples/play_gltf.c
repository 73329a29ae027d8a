/* Load a skinned character, play its first clip and print a bone matrix each frame: the README's
 * example. Usage: play_gltf [FILE.glb] (default: tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb
 * from the source tree). Bad files get a message naming the place and exit code 1. */
#include <oroya/oroya.h>
#include <stdio.h>

#ifndef OROYA_SOURCE_DIR
#define OROYA_SOURCE_DIR "."
#endif

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : OROYA_SOURCE_DIR "/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb";
    oroya_error err = {0};
    oroya_gltf_model *model = NULL;
    oroya_mixer *mixer = NULL;
    oroya_action *action = NULL;
    if (oroya_gltf_load(path, NULL, &model, &err) != OROYA_OK) {
        fprintf(stderr, "play_gltf: %s: %s\n", path, err.message);
        return 1;
    }
    if (model->clip_count == 0 || model->skin_count == 0 || !model->skeletons[0]) {
        fprintf(stderr, "%s: needs a clip and a skin\n", path);
        oroya_gltf_model_free(model);
        return 1;
    }
    oroya_mixer_create(model->scene, NULL, &mixer);
    oroya_mixer_play(mixer, model->clips[0], &action);
    for (int frame = 0; frame < 5; frame++) {
        oroya_mixer_update(mixer, 1.0 / 30.0);             /* sample and blend: no allocation */
        oroya_scene_update_world(model->scene);            /* one pass, parents first */
        oroya_skeleton_update(model->skeletons[0], model->scene, NULL);
        const float *m = model->skeletons[0]->bone_matrices; /* 16 floats per bone */
        printf("t=%.3f  bone 0 translation (%.4f, %.4f, %.4f)\n", oroya_mixer_time(mixer),
               (double)m[12], (double)m[13], (double)m[14]);
    }
    oroya_mixer_destroy(mixer);
    oroya_gltf_model_free(model);
    return 0;
}
