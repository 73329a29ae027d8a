/* Load a glTF character, play its first clip through the mixer and print a bone matrix each
 * frame: the README's example. The rig (oroya/rig.h) hands the skin's joints to the pose
 * kernel; the mixer keeps three.js's semantics and gives the skinning palette in the skin's
 * joint order. Any valid file works: without a skin the rig is the whole scene (the first
 * node's world matrix is printed), without clips nothing moves. Usage: play_gltf [FILE.glb]
 * (default: tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb from the source tree). Bad
 * files get a message naming the place and exit code 1. */
#include <oroya/oroya.h>
#include <stdio.h>

#ifndef OROYA_SOURCE_DIR
#define OROYA_SOURCE_DIR "."
#endif

int main(int argc, char **argv) {
    const char *path =
        argc > 1 ? argv[1] : OROYA_SOURCE_DIR "/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb";
    oroya_error err = {0};
    oroya_gltf_model *model = NULL;
    oroya_rig *rig = NULL;
    oroya_mixer *mixer = NULL;
    if (oroya_gltf_load(path, NULL, &model, &err) != OROYA_OK) {
        fprintf(stderr, "play_gltf: %s: %s\n", path, err.message);
        return 1;
    }
    /* Skin 0's joints, or every node when the file has no skin (an empty scene has none). */
    uint32_t skin = model->skin_count ? 0 : OROYA_GLTF_NONE;
    oroya_result r = OROYA_OK;
    if (oroya_scene_node_count(model->scene) > 0)
        r = oroya_rig_create_gltf(model, skin, NULL, &rig, &err);
    if (r == OROYA_ERR_LIMIT) {
        /* More joints (or keys) than the pose kernel holds: the mixer plays without a rig, on
         * its property path (the same results), and the skeleton gives the bones. */
        fprintf(stderr, "play_gltf: note: %s; playing on the property path\n", err.message);
    } else if (r != OROYA_OK) {
        fprintf(stderr, "play_gltf: %s: %s\n", path, err.message);
        oroya_gltf_model_free(model);
        return 1;
    }
    oroya_skeleton *skeleton = !rig && model->skin_count ? model->skeletons[0] : NULL;
    if (oroya_mixer_create(model->scene, &(oroya_mixer_desc){.rig = rig}, &mixer) != OROYA_OK) {
        fprintf(stderr, "play_gltf: out of memory\n");
        oroya_rig_destroy(rig);
        oroya_gltf_model_free(model);
        return 1;
    }
    if (model->clip_count > 0) {
        oroya_mixer_play(mixer, model->clips[0], NULL);
    }
    for (int frame = 0; frame < 5; frame++) {
        oroya_mixer_update(mixer, 1.0 / 30.0); /* sample, blend, bone matrices: no allocation */
        uint32_t count = 0;
        const oroya_mat4 *bones = oroya_mixer_bone_matrices(mixer, &count); /* skin order */
        if (!rig && skeleton) { /* the fallback: world matrices, then the skeleton's bones */
            oroya_scene_update_world(model->scene);
            oroya_skeleton_update(skeleton, model->scene, NULL);
            bones = (const oroya_mat4 *)skeleton->bone_matrices;
            count = skeleton->bone_count;
        }
        if (count > 0) {
            printf("t=%.3f  bone 0 translation (%.4f, %.4f, %.4f) of %u\n", oroya_mixer_time(mixer),
                   (double)bones[0].m[12], (double)bones[0].m[13], (double)bones[0].m[14], count);
        } else {
            printf("t=%.3f  (no nodes)\n", oroya_mixer_time(mixer));
        }
    }
    /* The joint nodes hold the pose too (world matrices, rendering, export): */
    oroya_scene_update_world(model->scene);
    oroya_mixer_destroy(mixer);
    oroya_rig_destroy(rig);
    oroya_gltf_model_free(model);
    return 0;
}
