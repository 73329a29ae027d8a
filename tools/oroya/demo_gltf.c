/* A render world from a glTF 2.0 file, through oroya's importer (scene, clips, skeletons,
 * skins, geometries, materials and base color images, all owned by the oroya_gltf_model). */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "demo_scene.h"

static void free_model(world *w) { oroya_gltf_model_free(w->user); }

int gltf_world_create(const char *cmd, const char *path, bool allow_outside, world *w) {
    memset(w, 0, sizeof *w);
    w->fade_to = -1;
    w->sequence_playing = -1;
    w->cmd = cmd;
    oroya_gltf_model *model = NULL;
    oroya_gltf_import_desc desc = {.allow_outside_base_dir = allow_outside};
    if (cli_gltf_load(cmd, path, &desc, &model))
        return 1;
    w->name = path;
    w->user = model;
    w->model = model;
    w->free_user = free_model;
    w->scene = model->scene;
    w->clip_count = model->clip_count < WORLD_MAX_CLIPS ? model->clip_count : WORLD_MAX_CLIPS;
    if (model->clip_count > WORLD_MAX_CLIPS) {
        fprintf(stderr, "oroya %s: warning: %s has %u clips; only the first %d can be played\n",
                cmd, cli_esc(path), model->clip_count, WORLD_MAX_CLIPS);
    }
    for (uint32_t i = 0; i < w->clip_count; i++)
        w->clips[i] = model->clips[i];
    for (uint32_t i = 0; i < model->skin_count && w->skeleton_count < WORLD_MAX_OWNED; i++) {
        if (model->skeletons[i])
            w->skeletons[w->skeleton_count++] = model->skeletons[i];
    }
    for (uint32_t i = 0; i < model->skinned_mesh_count && w->skin_count < WORLD_MAX_OWNED; i++) {
        w->skins[w->skin_count++] = model->skinned_meshes[i];
    }
    if (model->skin_count > WORLD_MAX_OWNED || model->skinned_mesh_count > WORLD_MAX_OWNED) {
        fprintf(stderr,
                "oroya %s: warning: %s has more than %d skins; the rest stay in the rest pose\n",
                cmd, cli_esc(path), WORLD_MAX_OWNED);
    }
    /* Base color textures with their samplers; texCoord 1 samples TEXCOORD_1, which import
     * keeps in model->primitives (no higher set is read). */
    for (uint32_t i = 0; i < model->material_count && w->texture_count < WORLD_MAX_OWNED; i++) {
        const oroya_gltf_model_material *m = &model->materials[i];
        if (m->base_color_image == OROYA_GLTF_NONE || m->base_color_image >= model->image_count ||
            m->base_color_texcoord > 1) {
            continue;
        }
        const oroya_gltf_image_data *img = &model->images[m->base_color_image];
        if (!img->pixels || !img->width || !img->height)
            continue;
        oroya_render_sampler smp = {0};
        if (m->base_color_texture < model->texture_count) {
            const oroya_gltf_model_texture *t = &model->textures[m->base_color_texture];
            smp = (oroya_render_sampler){t->mag_filter, t->min_filter, t->wrap_s, t->wrap_t};
        }
        w->textures[w->texture_count++] = (world_texture){.material = &m->material,
                                                          .width = img->width,
                                                          .height = img->height,
                                                          .pixels = img->pixels,
                                                          .sampler = smp};
        for (uint32_t k = 0; m->base_color_texcoord == 1 && k < model->geometry_count; k++) {
            if (model->geometry_material[k] == i && model->geometries[k] &&
                model->primitives[k].texcoords1 && w->uv_count < WORLD_MAX_OWNED) {
                w->uvs[w->uv_count++] =
                    (world_uvs){model->geometries[k], model->primitives[k].texcoords1};
            }
        }
    }
    /* As three.js viewers do, the first clip plays unless the caller chooses (oroya render
     * plays every clip, one after the other: world_set_sequence). */
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
