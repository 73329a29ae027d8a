/* oroya_web.c - the C side of oroya in the browser (built by `make web` with emscripten).
 *
 * A thin layer over oroya's public API, so the pages call a handful of flat functions with
 * numbers and pointers (the wasm ABI) instead of structs:
 *   - a viewer model: oroya_gltf_parse from memory + validate + import, a mixer on a rig of
 *     skin 0 (oroya/rig.h: its joints' tracks go through the pose kernel) with one action per
 *     clip, and per frame mixer update, world matrices, skeletons (bone matrices) and skins
 *     (bind matrix inverse); the draw list the WebGL2 renderer reads;
 *   - a crowd for the race page: N mixers on one shared rig, each character its own mixer
 *     state, updated with oroya_mixer_update_batch;
 *   - the renderer's GLES 3 shaders (oroya_render_shader_source, oroya/render.h), so the page
 *     draws with the same program as oroya's EGL renderer.
 * Every fallible call leaves its oroya_error message in ow_error() for the page to show.
 * Models and crowds are handles (numbers, never 0), not pointers: a handle that was never
 * returned, or whose object was freed, is refused with a message in ow_error() (so a call
 * before a load, after a free or a second free cannot touch freed memory).
 * Nothing here allocates per frame. */
#include <emscripten/emscripten.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/gltf.h"
#include "oroya/mixer.h"
#include "oroya/pose.h"
#include "oroya/render.h"
#include "oroya/rig.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"

#define OW_API EMSCRIPTEN_KEEPALIVE

static oroya_error ow_err;

static void ow_fail(const char *where, oroya_result r) {
    if (!ow_err.message[0]) {
        snprintf(ow_err.message, sizeof ow_err.message, "%s: %s", where, oroya_result_string(r));
    }
}

/* A failed control call: its message (the library's when it left one) and its result. */
static int ow_check(const char *where, oroya_result r) {
    if (r != OROYA_OK)
        ow_fail(where, r);
    return (int)r;
}

/* ---- handles -------------------------------------------------------------------------------
 * The page holds numbers from a counter, looked up here, so a stale or made-up handle is an
 * error instead of a read or free of memory that is no longer (or never was) the object. */
enum { OW_MODEL = 1, OW_CROWD, OW_POSE_CROWD };
static const char *const ow_kind_name[] = {"", "model", "crowd", "pose crowd"};
typedef struct ow_handle {
    uint32_t id;
    int kind;
    void *p;
} ow_handle;
static ow_handle *ow_handles;
static uint32_t ow_handle_count, ow_handle_capacity, ow_next_id = 1;

/* A new handle for p (0 when out of memory: p is then the caller's to free). */
static uint32_t handle_add(int kind, void *p) {
    if (ow_handle_count == ow_handle_capacity) {
        uint32_t cap = ow_handle_capacity ? 2 * ow_handle_capacity : 16;
        ow_handle *h = realloc(ow_handles, cap * sizeof *h);
        if (!h) {
            snprintf(ow_err.message, sizeof ow_err.message, "out of memory (handle)");
            return 0;
        }
        ow_handles = h;
        ow_handle_capacity = cap;
    }
    uint32_t id = ow_next_id++;
    if (ow_next_id == 0)
        ow_next_id = 1;
    ow_handles[ow_handle_count++] = (ow_handle){id, kind, p};
    return id;
}

/* The object of handle id, or NULL with a message naming the call. take: forget the handle. */
static void *handle_find(uint32_t id, int kind, const char *where, int take) {
    for (uint32_t i = 0; id && i < ow_handle_count; i++) {
        if (ow_handles[i].id == id && ow_handles[i].kind == kind) {
            void *p = ow_handles[i].p;
            if (take)
                ow_handles[i] = ow_handles[--ow_handle_count];
            return p;
        }
    }
    snprintf(ow_err.message, sizeof ow_err.message,
             "%s: %u is not a %s handle (never created, or already freed)", where, id,
             ow_kind_name[kind]);
    return NULL;
}
#define MODEL(h, where) ((ow_model *)handle_find(h, OW_MODEL, where, 0))
#define CROWD(h, where) ((ow_crowd *)handle_find(h, OW_CROWD, where, 0))
#define POSE_CROWD(h, where) ((ow_pose_crowd *)handle_find(h, OW_POSE_CROWD, where, 0))

/* The message of the last failed call ("" when it succeeded). */
OW_API const char *ow_error(void) { return ow_err.message; }

OW_API const char *ow_vertex_shader(void) {
    return oroya_render_shader_source(OROYA_RENDER_SHADER_VERTEX);
}
OW_API const char *ow_fragment_shader(void) {
    return oroya_render_shader_source(OROYA_RENDER_SHADER_FRAGMENT);
}

/* ---- viewer model ------------------------------------------------------------------------ */

/* One mesh node to draw, in dense scene order (see ow_draw). */
typedef struct ow_draw_item {
    uint32_t dense;
    const oroya_geometry *geometry;
    const oroya_material *material;
    uint32_t material_index; /* into model->materials, or OROYA_GLTF_NONE */
    oroya_skin *skin;        /* NULL when not skinned */
} ow_draw_item;

typedef struct ow_model {
    oroya_gltf_model *model;
    oroya_rig *rig; /* skin 0's joints (NULL without skins): the mixer's pose kernel path */
    oroya_mixer *mixer;
    oroya_action **actions; /* one per clip */
    ow_draw_item *draws;
    uint32_t draw_count;
    uint32_t info[32]; /* ow_draw's answer */
} ow_model;

static void model_free(ow_model *m) {
    if (!m) {
        return;
    }
    oroya_mixer_destroy(m->mixer);
    oroya_rig_destroy(m->rig);
    oroya_gltf_model_free(m->model);
    free(m->actions);
    free(m->draws);
    free(m);
}

static uint32_t material_index(const oroya_gltf_model *g, const oroya_material *mat) {
    for (uint32_t i = 0; i < g->material_count; i++) {
        if (&g->materials[i].material == mat) {
            return i;
        }
    }
    return OROYA_GLTF_NONE;
}

static oroya_gltf_model *import_bytes(const uint8_t *bytes, uint32_t size) {
    oroya_gltf_data *data = NULL;
    oroya_gltf_model *model = NULL;
    oroya_result r = oroya_gltf_parse(NULL, bytes, size, &data, &ow_err);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(data, &ow_err);
    }
    if (r == OROYA_OK) {
        r = oroya_gltf_validate(data, &ow_err);
    }
    if (r == OROYA_OK) {
        r = oroya_gltf_import(data, NULL, &model, &ow_err);
    }
    oroya_gltf_free(data);
    if (r != OROYA_OK) {
        ow_fail("glTF", r);
        return NULL;
    }
    return model;
}

/* Frees model h. Returns an oroya_result (INVALID_ARGUMENT for a handle that is not live). */
OW_API int ow_model_free(uint32_t h) {
    ow_err.message[0] = 0;
    ow_model *m = (ow_model *)handle_find(h, OW_MODEL, "ow_model_free", 1);
    if (!m)
        return OROYA_ERR_INVALID_ARGUMENT;
    model_free(m);
    return OROYA_OK;
}

static ow_model *model_load(const uint8_t *bytes, uint32_t size);

/* Loads a .glb (or a self-contained .gltf) held in memory: a model handle, 0 on error (see
 * ow_error). */
OW_API uint32_t ow_model_load(const uint8_t *bytes, uint32_t size) {
    memset(&ow_err, 0, sizeof ow_err);
    ow_model *m = model_load(bytes, size);
    uint32_t h = m ? handle_add(OW_MODEL, m) : 0;
    if (m && !h)
        model_free(m);
    return h;
}

static ow_model *model_load(const uint8_t *bytes, uint32_t size) {
    ow_model *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(ow_err.message, sizeof ow_err.message, "out of memory");
        return NULL;
    }
    m->model = import_bytes(bytes, size);
    if (!m->model) {
        model_free(m);
        return NULL;
    }
    oroya_gltf_model *g = m->model;
    /* Skin 0's joints go through the pose kernel; other nodes (and other skins' joints, and
     * clips the kernel cannot play) through the mixer's property path. A skin 0 the kernel
     * cannot hold (LIMIT, or a joint outside the loaded scene: no skeleton) gets no rig and
     * everything plays on the property path, as `oroya render` does (oroya/rig.h). */
    oroya_result r = OROYA_OK;
    if (g->skin_count > 0 && g->skeletons[0]) {
        oroya_error rig_err = {0};
        r = oroya_rig_create_gltf(g, 0, NULL, &m->rig, &rig_err);
        if (r == OROYA_ERR_OUT_OF_MEMORY) {
            ow_fail("oroya_rig_create_gltf", r);
            model_free(m);
            return NULL;
        }
        if (r != OROYA_OK)
            m->rig = NULL;
    }
    oroya_mixer_desc md = {.max_actions = g->clip_count + 4, .max_bindings = 4096, .rig = m->rig};
    r = oroya_mixer_create(g->scene, &md, &m->mixer);
    m->actions = calloc(g->clip_count + 1, sizeof *m->actions);
    uint32_t n = oroya_scene_node_count(g->scene);
    m->draws = calloc(n + 1, sizeof *m->draws);
    if (r != OROYA_OK || !m->actions || !m->draws) {
        ow_fail("oroya_mixer_create", r == OROYA_OK ? OROYA_ERR_OUT_OF_MEMORY : r);
        model_free(m);
        return NULL;
    }
    for (uint32_t i = 0; i < g->clip_count; i++) {
        r = oroya_mixer_clip_action(m->mixer, g->clips[i], &m->actions[i]);
        if (r != OROYA_OK) {
            snprintf(ow_err.message, sizeof ow_err.message, "clip %u '%s': %s", i,
                     g->clips[i]->name ? g->clips[i]->name : "", oroya_result_string(r));
            model_free(m);
            return NULL;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        oroya_node node = oroya_scene_node_at(g->scene, i);
        ow_draw_item d = {.dense = i};
        if (oroya_scene_get_mesh(g->scene, node, &d.geometry, &d.material) != OROYA_OK) {
            continue;
        }
        d.material_index = material_index(g, d.material);
        d.skin = oroya_scene_get_skin(g->scene, node);
        if (d.skin && !d.skin->skeleton) {
            d.skin = NULL;
        }
        m->draws[m->draw_count++] = d;
    }
    oroya_scene_update_world(g->scene);
    return m;
}

/* Getters answer 0 (or "") for a handle or index that does not exist, with ow_error() set
 * for a bad handle. */
OW_API uint32_t ow_clip_count(uint32_t h) {
    const ow_model *m = MODEL(h, "ow_clip_count");
    return m ? m->model->clip_count : 0;
}
OW_API const char *ow_clip_name(uint32_t h, uint32_t i) {
    const ow_model *m = MODEL(h, "ow_clip_name");
    const char *s = m && i < m->model->clip_count ? m->model->clips[i]->name : NULL;
    return s ? s : "";
}
OW_API double ow_clip_duration(uint32_t h, uint32_t i) {
    const ow_model *m = MODEL(h, "ow_clip_duration");
    return m && i < m->model->clip_count ? (double)m->model->clips[i]->duration : 0.0;
}

/* Clip i's action of model h; NULL with a message naming the call. */
static oroya_action *action(uint32_t h, uint32_t i, const char *where) {
    const ow_model *m = MODEL(h, where);
    if (!m)
        return NULL;
    if (i >= m->model->clip_count) {
        snprintf(ow_err.message, sizeof ow_err.message, "%s: clip %u is out of range (%u clips)",
                 where, i, m->model->clip_count);
        return NULL;
    }
    return m->actions[i];
}

/* Action controls, three.js's AnimationAction by clip index. They return an oroya_result;
 * a failed one leaves its message in ow_error() (an empty ow_error() after a success). */
OW_API int ow_play(uint32_t h, uint32_t i) {
    ow_err.message[0] = 0;
    oroya_action *a = action(h, i, "ow_play");
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    oroya_action_play(a);
    return OROYA_OK;
}
OW_API int ow_stop(uint32_t h, uint32_t i) {
    ow_err.message[0] = 0;
    oroya_action *a = action(h, i, "ow_stop");
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    oroya_action_stop(a);
    return OROYA_OK;
}
OW_API int ow_reset(uint32_t h, uint32_t i) {
    ow_err.message[0] = 0;
    oroya_action *a = action(h, i, "ow_reset");
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    oroya_action_reset(a);
    return OROYA_OK;
}
OW_API int ow_set_weight(uint32_t h, uint32_t i, double w) {
    ow_err.message[0] = 0;
    oroya_action *a = action(h, i, "ow_set_weight");
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!isfinite(w)) {
        snprintf(ow_err.message, sizeof ow_err.message, "ow_set_weight: weight %g is not finite",
                 w);
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    oroya_action_set_enabled(a, true);
    return ow_check("ow_set_weight", oroya_action_set_effective_weight(a, w));
}
OW_API double ow_weight(uint32_t h, uint32_t i) {
    oroya_action *a = action(h, i, "ow_weight");
    return a ? oroya_action_effective_weight(a) : 0.0;
}
OW_API int ow_set_action_time_scale(uint32_t h, uint32_t i, double s) {
    ow_err.message[0] = 0;
    oroya_action *a = action(h, i, "ow_set_action_time_scale");
    if (!a)
        return OROYA_ERR_INVALID_ARGUMENT;
    return ow_check("ow_set_action_time_scale", oroya_action_set_effective_time_scale(a, s));
}
OW_API double ow_action_time(uint32_t h, uint32_t i) {
    oroya_action *a = action(h, i, "ow_action_time");
    return a ? oroya_action_time(a) : 0.0;
}
OW_API int ow_action_running(uint32_t h, uint32_t i) {
    oroya_action *a = action(h, i, "ow_action_running");
    return a ? oroya_action_is_running(a) : 0;
}
/* three's skinning-blending example (executeCrossFade): `to` restarts at time 0 with weight
 * and time scale 1, then to.cross_fade_from(from, duration, warp). Arguments are checked
 * before anything changes. */
OW_API int ow_cross_fade(uint32_t h, uint32_t from, uint32_t to, double duration, int warp) {
    ow_err.message[0] = 0;
    oroya_action *a = action(h, from, "ow_cross_fade"),
                 *b = a ? action(h, to, "ow_cross_fade") : NULL;
    if (!a || !b)
        return OROYA_ERR_INVALID_ARGUMENT;
    if (!isfinite(duration) || duration < 0.0) {
        snprintf(ow_err.message, sizeof ow_err.message,
                 "ow_cross_fade: duration %g is not a finite number >= 0", duration);
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    oroya_action_set_enabled(b, true);
    oroya_action_set_effective_time_scale(b, 1.0);
    oroya_action_set_effective_weight(b, 1.0);
    oroya_action_set_time(b, 0.0);
    oroya_action_play(b);
    return ow_check("ow_cross_fade", oroya_action_cross_fade_from(b, a, duration, warp != 0));
}
OW_API int ow_set_time_scale(uint32_t h, double s) {
    ow_err.message[0] = 0;
    ow_model *m = MODEL(h, "ow_set_time_scale");
    if (!m)
        return OROYA_ERR_INVALID_ARGUMENT;
    return ow_check("ow_set_time_scale", oroya_mixer_set_time_scale(m->mixer, s));
}
OW_API double ow_mixer_time(uint32_t h) {
    const ow_model *m = MODEL(h, "ow_mixer_time");
    return m ? oroya_mixer_time(m->mixer) : 0.0;
}

/* Everything that runs per frame on the CPU after the mixer: world matrices, bone matrices,
 * bind matrix inverses. */
static oroya_result pose_model(ow_model *m) {
    oroya_gltf_model *g = m->model;
    oroya_scene_update_world(g->scene);
    oroya_result res = OROYA_OK;
    for (uint32_t s = 0; s < g->skin_count; s++) {
        if (g->skeletons[s]) {
            oroya_result r = oroya_skeleton_update(g->skeletons[s], g->scene, &ow_err);
            if (res == OROYA_OK)
                res = r;
        }
    }
    for (uint32_t s = 0; s < g->skinned_mesh_count; s++) {
        oroya_result r = oroya_skin_update(g->skinned_meshes[s], g->scene, &ow_err);
        if (res == OROYA_OK)
            res = r;
    }
    return res;
}

/* One frame: mixer update by dt seconds, then pose_model. Returns an oroya_result. */
OW_API int ow_update(uint32_t h, double dt) {
    ow_err.message[0] = 0;
    ow_model *m = MODEL(h, "ow_update");
    if (!m)
        return OROYA_ERR_INVALID_ARGUMENT;
    oroya_result r = oroya_mixer_update(m->mixer, dt);
    if (r != OROYA_OK) {
        ow_fail("oroya_mixer_update", r);
        return (int)r;
    }
    r = pose_model(m);
    if (r != OROYA_OK)
        ow_fail("skeleton", r);
    return (int)r;
}

/* three's mixer.setTime(t) (every action's time restarts from 0), then pose_model. */
OW_API int ow_set_time(uint32_t h, double t) {
    ow_err.message[0] = 0;
    ow_model *m = MODEL(h, "ow_set_time");
    if (!m)
        return OROYA_ERR_INVALID_ARGUMENT;
    oroya_result r = oroya_mixer_set_time(m->mixer, t);
    if (r != OROYA_OK) {
        ow_fail("oroya_mixer_set_time", r);
        return (int)r;
    }
    r = pose_model(m);
    if (r != OROYA_OK)
        ow_fail("skeleton", r);
    return (int)r;
}

/* ---- pose read-back (the browser test compares it with `oroya sample`) ------------------- */

OW_API uint32_t ow_node_count(uint32_t h) {
    const ow_model *m = MODEL(h, "ow_node_count");
    return m ? m->model->node_count : 0;
}
/* glTF node i's scene name (FORMAT.md), "" when not in the loaded scene. */
OW_API const char *ow_node_name(uint32_t h, uint32_t i) {
    const ow_model *m = MODEL(h, "ow_node_name");
    return m && i < m->model->node_count && m->model->nodes[i].id ? m->model->node_names[i] : "";
}
/* glTF node i's local TRS into out[10]: translation, rotation xyzw, scale. 0 if absent. */
OW_API int ow_node_trs(uint32_t h, uint32_t i, float *out) {
    const ow_model *m = MODEL(h, "ow_node_trs");
    oroya_transform x;
    if (!m || !out || i >= m->model->node_count || !m->model->nodes[i].id ||
        oroya_scene_get_transform(m->model->scene, m->model->nodes[i], &x) != OROYA_OK) {
        return 0;
    }
    const float v[10] = {x.translation.x, x.translation.y, x.translation.z, x.rotation.x,
                         x.rotation.y,    x.rotation.z,    x.rotation.w,    x.scale.x,
                         x.scale.y,       x.scale.z};
    memcpy(out, v, sizeof v);
    return 1;
}
OW_API uint32_t ow_node_weights(uint32_t h, uint32_t i, float *out, uint32_t capacity) {
    const ow_model *m = MODEL(h, "ow_node_weights");
    uint32_t n = 0;
    float *w = m && out && i < m->model->node_count && m->model->nodes[i].id
                   ? oroya_scene_weights(m->model->scene, m->model->nodes[i], &n)
                   : NULL;
    if (!w)
        return 0;
    memcpy(out, w, (n < capacity ? n : capacity) * sizeof *w);
    return n;
}
OW_API uint32_t ow_skin_count(uint32_t h) {
    const ow_model *m = MODEL(h, "ow_skin_count");
    return m ? m->model->skin_count : 0;
}
OW_API uint32_t ow_skin_joint_count(uint32_t h, uint32_t s) {
    const ow_model *m = MODEL(h, "ow_skin_joint_count");
    return m && s < m->model->skin_count ? m->model->skins[s].joint_count : 0;
}
/* three's skeleton.boneMatrices of glTF skin s (joint_count * 16 floats) into out. */
OW_API int ow_skin_bone_matrices(uint32_t h, uint32_t s, float *out) {
    ow_err.message[0] = 0;
    const ow_model *m = MODEL(h, "ow_skin_bone_matrices");
    if (!m)
        return OROYA_ERR_INVALID_ARGUMENT;
    return ow_check("ow_skin_bone_matrices", oroya_gltf_model_bone_matrices(m->model, s, out));
}

/* ---- draw list ---------------------------------------------------------------------------- */

OW_API uint32_t ow_draw_count(uint32_t h) {
    const ow_model *m = MODEL(h, "ow_draw_count");
    return m ? m->draw_count : 0;
}

/* Draw i as 32 words (wasm pointers are 32-bit), valid until the next ow_draw call:
 *  0 vertex_count  1 index_count  2 positions  3 normals  4 uvs  5 indices (u32)
 *  6 joints (u16x4) 7 weights  8 joints2  9 weights2  10 morph_target_count
 * 11 morph_positions  12 morph_normals  13 world matrix (16 floats)  14 bone matrices
 * 15 bone count  16 bind matrix  17 bind matrix inverse  18 morph weights  19 weight count
 * 20 base color (4 floats)  21 metallic (float bits)  22 roughness (float bits)
 * 23 base color image index or ~0  24 visible  25 double sided  26 dense node index
 * 27 bone texture side (bone matrices hold side * side * 4 floats) */
OW_API const uint32_t *ow_draw(uint32_t h, uint32_t i) {
    static uint32_t none[32]; /* the answer for a bad handle: all zero */
    ow_model *m = MODEL(h, "ow_draw");
    if (!m)
        return none;
    uint32_t *o = m->info;
    memset(o, 0, sizeof m->info);
    if (i >= m->draw_count)
        return o;
    const ow_draw_item *d = &m->draws[i];
    const oroya_geometry *g = d->geometry;
    oroya_scene *scene = m->model->scene;
    o[0] = g->vertex_count;
    o[1] = g->index_count;
    o[2] = (uint32_t)(uintptr_t)g->positions;
    o[3] = (uint32_t)(uintptr_t)g->normals;
    o[4] = (uint32_t)(uintptr_t)g->uvs;
    o[5] = (uint32_t)(uintptr_t)g->indices;
    o[6] = (uint32_t)(uintptr_t)g->joints;
    o[7] = (uint32_t)(uintptr_t)g->weights;
    o[10] = g->morph_target_count;
    o[11] = (uint32_t)(uintptr_t)g->morph_positions;
    o[12] = (uint32_t)(uintptr_t)g->morph_normals;
    o[13] = (uint32_t)(uintptr_t)&oroya_scene_world_matrices(scene)[d->dense];
    if (d->skin) {
        /* The skin's copies: weights normalized at import, as the GPU should see them. */
        o[6] = (uint32_t)(uintptr_t)d->skin->joints;
        o[7] = (uint32_t)(uintptr_t)d->skin->weights;
        o[8] = (uint32_t)(uintptr_t)d->skin->joints2;
        o[9] = (uint32_t)(uintptr_t)d->skin->weights2;
        o[14] = (uint32_t)(uintptr_t)d->skin->skeleton->bone_matrices;
        o[15] = d->skin->skeleton->bone_count;
        o[16] = (uint32_t)(uintptr_t)&d->skin->bind_matrix;
        o[17] = (uint32_t)(uintptr_t)&d->skin->bind_matrix_inverse;
        o[27] = d->skin->skeleton->texture_side;
    }
    uint32_t wc = 0;
    float *w = oroya_scene_weights(scene, oroya_scene_node_at(scene, d->dense), &wc);
    if (w && g->morph_target_count) {
        o[18] = (uint32_t)(uintptr_t)w;
        o[19] = wc < g->morph_target_count ? wc : g->morph_target_count;
    }
    static float color[4];
    oroya_scene_get_mesh_color(scene, oroya_scene_node_at(scene, d->dense), color);
    o[20] = (uint32_t)(uintptr_t)color;
    memcpy(&o[21], &d->material->metallic, 4);
    memcpy(&o[22], &d->material->roughness, 4);
    o[23] = d->material_index < m->model->material_count
                ? m->model->materials[d->material_index].base_color_image
                : OROYA_GLTF_NONE;
    o[24] = oroya_scene_world_visible(scene)[d->dense];
    o[25] = d->material->double_sided;
    o[26] = d->dense;
    return o;
}

/* Image i as RGBA8 (width, height, pixels); width 0 when not decoded. */
OW_API uint32_t ow_image_width(uint32_t h, uint32_t i) {
    const ow_model *m = MODEL(h, "ow_image_width");
    return m && i < m->model->image_count ? m->model->images[i].width : 0;
}
OW_API uint32_t ow_image_height(uint32_t h, uint32_t i) {
    const ow_model *m = MODEL(h, "ow_image_height");
    return m && i < m->model->image_count ? m->model->images[i].height : 0;
}
OW_API const uint8_t *ow_image_pixels(uint32_t h, uint32_t i) {
    const ow_model *m = MODEL(h, "ow_image_pixels");
    return m && i < m->model->image_count ? m->model->images[i].pixels : NULL;
}

/* ---- crowd (the race page) ---------------------------------------------------------------
 * N characters of one model, each its own mixer playing clip a and clip b, the same blend
 * three.js's N clones run. One rig (skin 0's joints, built once from the model: skeleton and
 * runtime clips) is shared read-only by every mixer; each mixer holds its own state (action
 * times, weights, the kernel character with its local, model and bone matrices). The mixers
 * have no scene (oroya_mixer_desc.rig with scene NULL): per frame and character the kernel
 * samples, blends and computes the joints' world matrices (their non-joint ancestors
 * included) and the bone matrices, the work three.js does in mixer.update,
 * scene.updateMatrixWorld and skeleton.update for a character. humanoid67's mesh is a root
 * without transform, so its bind matrix inverse is the identity and world space is model
 * space. */

typedef struct ow_crowd {
    oroya_gltf_model *model;
    oroya_rig *rig;
    uint32_t count;
    oroya_mixer **mixers;
} ow_crowd;

static void crowd_free(ow_crowd *c) {
    if (!c)
        return;
    for (uint32_t i = 0; c->mixers && i < c->count; i++)
        oroya_mixer_destroy(c->mixers[i]);
    free(c->mixers);
    oroya_rig_destroy(c->rig);
    oroya_gltf_model_free(c->model);
    free(c);
}

OW_API int ow_crowd_free(uint32_t h) {
    ow_err.message[0] = 0;
    ow_crowd *c = (ow_crowd *)handle_find(h, OW_CROWD, "ow_crowd_free", 1);
    if (!c)
        return OROYA_ERR_INVALID_ARGUMENT;
    crowd_free(c);
    return OROYA_OK;
}

/* The most characters of one crowd (far more than the 2 GB heap holds at once): larger
 * counts are refused before anything is allocated. */
#define OW_CROWD_MAX 100000u

static int crowd_args_ok(const char *where, uint32_t count, const char *clip_a, double wa,
                         const char *clip_b, double wb, double offset) {
    if (count > OW_CROWD_MAX) {
        snprintf(ow_err.message, sizeof ow_err.message, "%s: %u characters is more than %u", where,
                 count, OW_CROWD_MAX);
        return 0;
    }
    if (!clip_a || !clip_b) {
        snprintf(ow_err.message, sizeof ow_err.message, "%s: the two clip names are required",
                 where);
        return 0;
    }
    if (!isfinite(wa) || !isfinite(wb) || !isfinite(offset)) {
        snprintf(ow_err.message, sizeof ow_err.message,
                 "%s: weights %g, %g and time offset %g must be finite", where, wa, wb, offset);
        return 0;
    }
    return 1;
}

static ow_crowd *crowd_create(const uint8_t *bytes, uint32_t size, uint32_t count,
                              const char *clip_a, double wa, const char *clip_b, double wb,
                              double offset);

/* N characters of the model in bytes, each playing clip a at weight wa and clip b at weight
 * wb, character i starting at time i * offset. A crowd handle, 0 on error (see ow_error). */
OW_API uint32_t ow_crowd_create(const uint8_t *bytes, uint32_t size, uint32_t count,
                                const char *clip_a, double wa, const char *clip_b, double wb,
                                double offset) {
    memset(&ow_err, 0, sizeof ow_err);
    if (!crowd_args_ok("crowd", count, clip_a, wa, clip_b, wb, offset))
        return 0;
    ow_crowd *c = crowd_create(bytes, size, count, clip_a, wa, clip_b, wb, offset);
    uint32_t h = c ? handle_add(OW_CROWD, c) : 0;
    if (c && !h)
        crowd_free(c);
    return h;
}

static ow_crowd *crowd_create(const uint8_t *bytes, uint32_t size, uint32_t count,
                              const char *clip_a, double wa, const char *clip_b, double wb,
                              double offset) {
    ow_crowd *c = calloc(1, sizeof *c);
    if (!c || !(c->model = import_bytes(bytes, size))) {
        crowd_free(c);
        return NULL;
    }
    oroya_gltf_model *g = c->model;
    const oroya_clip *a = oroya_gltf_model_find_clip(g, clip_a);
    const oroya_clip *b = oroya_gltf_model_find_clip(g, clip_b);
    if (!a || !b || g->skin_count < 1) {
        snprintf(ow_err.message, sizeof ow_err.message,
                 "crowd: the model needs clips '%s' and '%s' and a skin", clip_a, clip_b);
        crowd_free(c);
        return NULL;
    }
    oroya_result r = oroya_rig_create_gltf(g, 0, NULL, &c->rig, &ow_err);
    /* The race measures the kernel path: a clip it cannot play is an error here. */
    if (r == OROYA_OK)
        r = oroya_rig_clip_status(c->rig, a, &ow_err);
    if (r == OROYA_OK)
        r = oroya_rig_clip_status(c->rig, b, &ow_err);
    c->mixers = calloc(count + 1, sizeof *c->mixers);
    if (r == OROYA_OK && !c->mixers)
        r = OROYA_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < count && r == OROYA_OK; i++) {
        oroya_mixer_desc md = {.max_actions = 4, .rig = c->rig};
        r = oroya_mixer_create(NULL, &md, &c->mixers[i]);
        if (r == OROYA_OK)
            c->count = i + 1;
        oroya_action *aa = NULL, *ab = NULL;
        if (r == OROYA_OK)
            r = oroya_mixer_play(c->mixers[i], a, &aa);
        if (r == OROYA_OK)
            r = oroya_mixer_play(c->mixers[i], b, &ab);
        if (r == OROYA_OK)
            r = oroya_action_set_weight(aa, wa);
        if (r == OROYA_OK)
            r = oroya_action_set_weight(ab, wb);
        if (r == OROYA_OK)
            r = oroya_action_set_time(aa, (double)i * offset);
        if (r == OROYA_OK)
            r = oroya_action_set_time(ab, (double)i * offset);
    }
    if (r != OROYA_OK) {
        ow_fail("crowd", r);
        crowd_free(c);
        return NULL;
    }
    return c;
}

/* One frame of every character (oroya_mixer_update_batch). Returns an oroya_result. */
OW_API int ow_crowd_update(uint32_t h, double dt) {
    ow_err.message[0] = 0;
    ow_crowd *c = CROWD(h, "ow_crowd_update");
    if (!c)
        return OROYA_ERR_INVALID_ARGUMENT;
    oroya_result r = oroya_mixer_update_batch(c->mixers, c->count, dt, NULL, &ow_err);
    if (r != OROYA_OK)
        ow_fail("oroya_mixer_update_batch", r);
    return (int)r;
}

OW_API uint32_t ow_crowd_count(uint32_t h) {
    const ow_crowd *c = CROWD(h, "ow_crowd_count");
    return c ? c->count : 0;
}
OW_API uint32_t ow_crowd_bone_count(uint32_t h) {
    const ow_crowd *c = CROWD(h, "ow_crowd_bone_count");
    return c ? c->model->skins[0].joint_count : 0;
}
/* Character i's bone matrices (16 floats per bone, skin 0's joint order); NULL when i or the
 * handle is out of range. */
OW_API const float *ow_crowd_bones(uint32_t h, uint32_t i) {
    const ow_crowd *c = CROWD(h, "ow_crowd_bones");
    uint32_t n = 0;
    return c && i < c->count ? oroya_mixer_bone_matrices(c->mixers[i], &n)[0].m : NULL;
}
/* Whether every character's last update went through the pose kernel (1) or not (0). */
OW_API int ow_crowd_kernel_active(uint32_t h) {
    const ow_crowd *c = CROWD(h, "ow_crowd_kernel_active");
    if (!c)
        return 0;
    for (uint32_t i = 0; i < c->count; i++) {
        if (!oroya_mixer_kernel_active(c->mixers[i]))
            return 0;
    }
    return 1;
}

/* Bytes of the heap in use (dlmalloc's mallinfo): the browser test's leak check. */
OW_API uint32_t ow_heap_used(void) { return (uint32_t)mallinfo().uordblks; }

/* Buffers for the page (malloc/free through the module). */
OW_API void *ow_alloc(uint32_t size) { return malloc(size ? size : 1); }
OW_API void ow_free(void *p) { free(p); }

/* Runs `frames` crowd frames (the same work as ow_crowd_update) and writes the milliseconds
 * to out[0] (mixer update batch: sampling, blending, world and bone matrices in one pass);
 * out[1] and out[2] (the phases of the property path: world matrices, bone matrices) are 0. */
OW_API int ow_crowd_profile(uint32_t h, uint32_t frames, double dt, double *out) {
    if (!out || !CROWD(h, "ow_crowd_profile"))
        return 1;
    out[0] = out[1] = out[2] = 0.0;
    for (uint32_t f = 0; f < frames; f++) {
        double t0 = emscripten_get_now();
        if (ow_crowd_update(h, dt) != OROYA_OK)
            return 1;
        out[0] += emscripten_get_now() - t0;
    }
    return 0;
}

/* ---- pose crowd: the same blend through the pose kernel (include/oroya/pose.h) -------------
 * The kernel alone, without the mixer's action logic: the rig's skeleton and runtime clips
 * (oroya/rig.h) and one character per copy, two layers (a at wa, b at wb) whose times loop as the mixer's
 * LOOP_REPEAT actions do. Outputs are the same model-space bone matrices (the mesh of
 * humanoid67 is a root without transform, so skeleton space is world space). */

typedef struct ow_pose_crowd {
    oroya_gltf_model *model;
    oroya_rig *rig; /* skin 0: the skeleton and the runtime clips */
    const oroya_pose_skeleton *skeleton;
    const oroya_pose_clip *clips[2];
    float weights[2];
    uint32_t count;
    oroya_pose_character **chars;
    oroya_pose_layer *layers; /* 2 per character */
    oroya_pose_update *updates;
    double *times;
} ow_pose_crowd;

static void pose_crowd_free(ow_pose_crowd *c) {
    if (!c)
        return;
    for (uint32_t i = 0; c->chars && i < c->count; i++)
        oroya_pose_character_destroy(c->chars[i]);
    oroya_rig_destroy(c->rig);
    oroya_gltf_model_free(c->model);
    free(c->chars);
    free(c->layers);
    free(c->updates);
    free(c->times);
    free(c);
}

OW_API int ow_pose_crowd_free(uint32_t h) {
    ow_err.message[0] = 0;
    ow_pose_crowd *c = (ow_pose_crowd *)handle_find(h, OW_POSE_CROWD, "ow_pose_crowd_free", 1);
    if (!c)
        return OROYA_ERR_INVALID_ARGUMENT;
    pose_crowd_free(c);
    return OROYA_OK;
}

static ow_pose_crowd *pose_crowd_create(const uint8_t *bytes, uint32_t size, uint32_t count,
                                        const char *clip_a, double wa, const char *clip_b,
                                        double wb, double offset);

/* The same arguments and answer as ow_crowd_create. */
OW_API uint32_t ow_pose_crowd_create(const uint8_t *bytes, uint32_t size, uint32_t count,
                                     const char *clip_a, double wa, const char *clip_b, double wb,
                                     double offset) {
    memset(&ow_err, 0, sizeof ow_err);
    if (!crowd_args_ok("pose crowd", count, clip_a, wa, clip_b, wb, offset))
        return 0;
    ow_pose_crowd *c = pose_crowd_create(bytes, size, count, clip_a, wa, clip_b, wb, offset);
    uint32_t h = c ? handle_add(OW_POSE_CROWD, c) : 0;
    if (c && !h)
        pose_crowd_free(c);
    return h;
}

static ow_pose_crowd *pose_crowd_create(const uint8_t *bytes, uint32_t size, uint32_t count,
                                        const char *clip_a, double wa, const char *clip_b,
                                        double wb, double offset) {
    ow_pose_crowd *c = calloc(1, sizeof *c);
    if (!c || !(c->model = import_bytes(bytes, size))) {
        pose_crowd_free(c);
        return NULL;
    }
    oroya_gltf_model *g = c->model;
    const oroya_clip *src[2] = {oroya_gltf_model_find_clip(g, clip_a),
                                oroya_gltf_model_find_clip(g, clip_b)};
    if (!src[0] || !src[1] || g->skin_count < 1) {
        snprintf(ow_err.message, sizeof ow_err.message,
                 "pose crowd: the model needs clips '%s' and '%s' and a skin", clip_a, clip_b);
        pose_crowd_free(c);
        return NULL;
    }
    c->weights[0] = (float)wa;
    c->weights[1] = (float)wb;
    oroya_result r = oroya_rig_create_gltf(g, 0, NULL, &c->rig, &ow_err);
    for (int k = 0; k < 2 && r == OROYA_OK; k++) {
        r = oroya_rig_clip_status(c->rig, src[k], &ow_err);
        c->clips[k] = oroya_rig_clip(c->rig, src[k]);
    }
    if (r == OROYA_OK)
        c->skeleton = oroya_rig_skeleton(c->rig);
    c->chars = calloc(count + 1, sizeof *c->chars);
    c->layers = calloc(2 * (size_t)count + 2, sizeof *c->layers);
    c->updates = calloc(count + 1, sizeof *c->updates);
    c->times = calloc(count + 1, sizeof *c->times);
    if (r == OROYA_OK && !(c->chars && c->layers && c->updates && c->times)) {
        r = OROYA_ERR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < count && r == OROYA_OK; i++) {
        oroya_pose_character_desc d = {.skeleton = c->skeleton, .max_layers = 2};
        r = oroya_pose_character_create(&d, &c->chars[i], &ow_err);
        c->count = i + 1;
        c->times[i] = (double)i * offset;
        c->updates[i] = (oroya_pose_update){c->chars[i], &c->layers[2 * i], 2};
    }
    if (r != OROYA_OK) {
        ow_fail("pose crowd", r);
        pose_crowd_free(c);
        return NULL;
    }
    return c;
}

/* One frame of every copy: advance the times, loop them on each clip, update the batch. */
OW_API int ow_pose_crowd_update(uint32_t h, double dt) {
    ow_err.message[0] = 0;
    ow_pose_crowd *c = POSE_CROWD(h, "ow_pose_crowd_update");
    if (!c)
        return OROYA_ERR_INVALID_ARGUMENT;
    /* Checked before the times move: a bad dt leaves every character as it was. */
    if (!isfinite(dt) || dt < 0.0) {
        snprintf(ow_err.message, sizeof ow_err.message,
                 "ow_pose_crowd_update: dt %g is not a finite number >= 0", dt);
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < c->count; i++) {
        c->times[i] += dt;
        for (int k = 0; k < 2; k++) {
            double d = (double)oroya_pose_clip_duration(c->clips[k]);
            double t = d > 0.0 ? fmod(c->times[i], d) : 0.0;
            c->layers[2 * i + (uint32_t)k] =
                (oroya_pose_layer){c->clips[k], (float)t, c->weights[k]};
        }
    }
    oroya_result r = oroya_pose_update_batch(c->updates, c->count, NULL, &ow_err);
    if (r != OROYA_OK)
        ow_fail("oroya_pose_update_batch", r);
    return (int)r;
}

OW_API const float *ow_pose_crowd_bones(uint32_t h, uint32_t i) {
    const ow_pose_crowd *c = POSE_CROWD(h, "ow_pose_crowd_bones");
    return c && i < c->count ? oroya_pose_character_bones(c->chars[i])[0].m : NULL;
}

/* CPU skinning of the model's first skinned mesh with copy 0's bone matrices, `iterations`
 * times (oroya_skin_job_run; positions and normals): milliseconds per run. For measuring the
 * SIMD128 and portable builds against each other; the pages skin on the GPU. -1 on error. */
OW_API double ow_pose_crowd_skin_bench(uint32_t h, uint32_t iterations) {
    const ow_pose_crowd *c = POSE_CROWD(h, "ow_pose_crowd_skin_bench");
    if (!c)
        return -1.0;
    const oroya_skin *s = c->model->skinned_mesh_count ? c->model->skinned_meshes[0] : NULL;
    if (!s || !c->count)
        return -1.0;
    float *p = malloc((size_t)s->vertex_count * 3 * sizeof *p);
    float *n = malloc((size_t)s->vertex_count * 3 * sizeof *n);
    double ms = -1.0;
    if (p && n) {
        oroya_skin_job job = {.count = s->vertex_count,
                              .positions = s->positions,
                              .normals = s->normals,
                              .joints = s->joints,
                              .weights = s->weights,
                              .palette_count = oroya_rig_joint_count(c->rig),
                              .palette = oroya_pose_character_bones(c->chars[0])->m,
                              .out_positions = p,
                              .out_normals = s->normals ? n : NULL};
        double t0 = emscripten_get_now();
        oroya_result r = OROYA_OK;
        for (uint32_t i = 0; i < iterations && r == OROYA_OK; i++) {
            r = oroya_skin_job_run(&job, &ow_err);
        }
        ms = r == OROYA_OK && iterations ? (emscripten_get_now() - t0) / iterations : -1.0;
    }
    free(p);
    free(n);
    return ms;
}
