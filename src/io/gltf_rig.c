/* The rig from a loaded glTF model (see include/oroya/rig.h): the I/O layer's side of the
 * bridge, so that the animation layer below it knows nothing of glTF. Load-time code only. */
#include <stdio.h>

#include "internal/base.h"
#include "oroya/gltf.h"
#include "oroya/rig.h"

oroya_result oroya_rig_create_gltf(const oroya_gltf_model *model, uint32_t skin,
                                   const oroya_allocator *allocator, oroya_rig **out,
                                   oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!model || !out || !model->scene) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_rig_create_gltf: model and out are required");
    }
    oroya_rig_desc d = {.scene = model->scene,
                        .clips = (const oroya_clip *const *)model->clips,
                        .clip_count = model->clip_count};
    if (allocator) {
        d.allocator = *allocator;
    }
    char name[96];
    if (skin == OROYA_GLTF_NONE) {
        snprintf(name, sizeof name, "the scene");
    } else if (skin >= model->skin_count) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE, "skins[%u]: the file has %u skin%s", skin,
                           model->skin_count, model->skin_count == 1 ? "" : "s");
    } else {
        const oroya_gltf_model_skin *s = &model->skins[skin];
        snprintf(name, sizeof name, "skins[%u] (\"%s\")", skin, s->name ? s->name : "");
        for (uint32_t j = 0; j < s->joint_count; j++) {
            if (!s->joints[j].id) {
                return oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                                   "%s: joints[%u] (node %u) is not in the loaded scene", name, j,
                                   s->joint_gltf_nodes ? s->joint_gltf_nodes[j] : j);
            }
        }
        d.joints = s->joints;
        d.joint_count = s->joint_count;
        d.inverse_bind = s->inverse_bind_matrices;
        if (d.joint_count == 0) {
            return oroya__fail(err, OROYA_ERR_INVALID_DATA, "%s: no joints", name);
        }
    }
    d.name = name;
    return oroya_rig_create(&d, out, err);
}
