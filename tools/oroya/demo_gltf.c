/* A render world from a glTF 2.0 file, through oroya's importer (scene, clips, skeletons,
 * skins, geometries and materials, all owned by the oroya_gltf_model). */
#include <stdio.h>
#include <string.h>

#include "demo_scene.h"

static void free_model(world *w) { oroya_gltf_model_free(w->user); }

int gltf_world_create(const char *path, world *w) {
    memset(w, 0, sizeof *w);
    w->fade_to = -1;
    oroya_gltf_model *model = NULL;
    oroya_error err = {0};
    /* Base color textures are not drawn (the renderer has no textures yet): skip decoding. */
    if (oroya_gltf_load(path, &(oroya_gltf_import_desc){.skip_images = true}, &model, &err) != OROYA_OK) {
        fprintf(stderr, "oroya: %s: %s\n", path, err.message[0] ? err.message : oroya_result_string(err.result));
        return 1;
    }
    w->name = path;
    w->user = model;
    w->free_user = free_model;
    w->scene = model->scene;
    w->clip_count = model->clip_count < WORLD_MAX_CLIPS ? model->clip_count : WORLD_MAX_CLIPS;
    if (model->clip_count > WORLD_MAX_CLIPS) {
        fprintf(stderr, "oroya: warning: %s has %u clips; only the first %d can be played\n", path,
                model->clip_count, WORLD_MAX_CLIPS);
    }
    for (uint32_t i = 0; i < w->clip_count; i++) w->clips[i] = model->clips[i];
    for (uint32_t i = 0; i < model->skin_count && w->skeleton_count < WORLD_MAX_OWNED; i++) {
        if (model->skeletons[i]) w->skeletons[w->skeleton_count++] = model->skeletons[i];
    }
    for (uint32_t i = 0; i < model->skinned_mesh_count && w->skin_count < WORLD_MAX_OWNED; i++) {
        w->skins[w->skin_count++] = model->skinned_meshes[i];
    }
    if (model->skin_count > WORLD_MAX_OWNED || model->skinned_mesh_count > WORLD_MAX_OWNED) {
        fprintf(stderr, "oroya: warning: %s has more than %d skins; the rest stay in the rest pose\n",
                path, WORLD_MAX_OWNED);
    }
    /* As three.js viewers do, the first clip plays unless --clip chooses. */
    w->clip_enabled = w->clip_count ? 1u : 0u;
    w->background[0] = 0.012f;
    w->background[1] = 0.014f;
    w->background[2] = 0.02f;
    w->background[3] = 1.0f;
    if (world_prepare(w)) {
        world_free(w);
        return 1;
    }
    world_pose(w, 0.0);
    return 0;
}
