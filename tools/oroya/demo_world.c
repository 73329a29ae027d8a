/* Posing, framing and drawing a render world (see demo_scene.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_scene.h"

/* Fills err (when given) with the result and a message that names the place. */
__attribute__((format(printf, 3, 4))) static oroya_result world_fail(oroya_error *err, oroya_result result,
                                                                     const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->result = result;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return result;
}

#define PI_F 3.14159265358979f
#define OVERLAY_VERTICES 600 /* 300 bone segments; a multiple of 3 for the mesh, even for lines */

int world_prepare(world *w) {
    if (oroya_mixer_create(w->scene, &(oroya_mixer_desc){.max_bindings = 4096}, &w->mixer) != OROYA_OK) {
        fprintf(stderr, "oroya: out of memory (mixer)\n");
        return 1;
    }
    for (uint32_t c = 0; c < w->clip_count; c++) {
        const oroya_clip *clip = w->clips[c];
        oroya_result res = oroya_mixer_clip_action(w->mixer, clip, &w->actions[c]);
        if (res != OROYA_OK) {
            fprintf(stderr, "oroya: clip '%s': %s\n", clip->name, oroya_result_string(res));
            return 1;
        }
        for (uint32_t t = 0; t < clip->track_count; t++) {
            oroya_node n;
            if (oroya_scene_find_node(w->scene, clip->tracks[t].target, &n) != OROYA_OK) {
                fprintf(stderr, "oroya: warning: clip '%s' track %u targets '%s', which is not in the scene\n",
                        clip->name, t, clip->tracks[t].target);
            }
        }
    }
    world_set_clips(w, w->clip_enabled);
    if (w->duration <= 0.0) w->duration = world_clip_duration(w);
    if (w->duration <= 0.0) w->duration = 1.0;
    for (uint32_t i = 0; i < w->skeleton_count; i++) {
        oroya_error err = {0};
        if (oroya_skeleton_validate(w->skeletons[i], w->scene, &err) != OROYA_OK) {
            fprintf(stderr, "oroya: warning: %s\n", err.message);
        }
    }
    return 0;
}

double world_clip_duration(const world *w) {
    double d = 0.0;
    for (uint32_t c = 0; c < w->clip_count; c++) {
        if (((w->clip_enabled >> c) & 1u) && w->clips[c]->duration > d) d = w->clips[c]->duration;
    }
    return d;
}

void world_free(world *w) {
    if (!w) return;
    oroya_mixer_destroy(w->mixer);
    if (w->owns_objects) {
        for (uint32_t i = 0; i < w->skin_count; i++) oroya_skin_destroy(w->skins[i]);
        for (uint32_t i = 0; i < w->skeleton_count; i++) oroya_skeleton_destroy(w->skeletons[i]);
        for (uint32_t i = 0; i < w->clip_count; i++) oroya_clip_destroy(w->clips[i]);
        oroya_scene_destroy(w->scene);
    }
    for (uint32_t i = 0; i < w->geometry_count; i++) oroya_geometry_destroy(w->geometries[i]);
    if (w->free_user) w->free_user(w);
    memset(w, 0, sizeof *w);
}

void world_set_clips(world *w, uint32_t mask) {
    w->clip_enabled = mask;
    w->fade_to = -1;
    for (uint32_t c = 0; c < w->clip_count; c++) {
        if (!w->actions[c]) continue;
        oroya_action_stop(w->actions[c]);
        if ((mask >> c) & 1u) oroya_action_play(w->actions[c]);
    }
}

int world_start_fade(world *w, uint32_t from, uint32_t to, double duration) {
    if (from >= w->clip_count || to >= w->clip_count || from == to) return 1;
    oroya_action *a = w->actions[from], *b = w->actions[to];
    oroya_action_reset(b);
    oroya_action_play(b);
    if (oroya_action_cross_fade_to(a, b, duration, false) != OROYA_OK) return 1;
    w->clip_enabled = 1u << to;
    w->fade_to = (int32_t)to;
    return 0;
}

bool world_fading(const world *w) {
    return w->fade_to >= 0 && oroya_action_is_fading(w->actions[w->fade_to]);
}

static void finish_pose(world *w) {
    oroya_scene_update_world(w->scene);
    if (w->after_pose) w->after_pose(w);
    for (uint32_t i = 0; i < w->skeleton_count; i++) oroya_skeleton_update(w->skeletons[i], w->scene, NULL);
    for (uint32_t i = 0; i < w->skin_count; i++) oroya_skin_update(w->skins[i], w->scene, NULL);
}

void world_pose(world *w, double t) {
    if (w->mixer && t >= 0.0) oroya_mixer_set_time(w->mixer, t);
    finish_pose(w);
}

void world_advance(world *w, double dt) {
    if (w->mixer && dt >= 0.0) oroya_mixer_update(w->mixer, dt);
    finish_pose(w);
}

static const world_hint *hint_for(const world *w, oroya_node node) {
    for (uint32_t i = 0; i < w->hint_count; i++) {
        if (w->hints[i].node.id == node.id) return &w->hints[i];
    }
    return NULL;
}

static void grow(oroya_vec3 *lo, oroya_vec3 *hi, oroya_vec3 p) {
    if (p.x < lo->x) lo->x = p.x;
    if (p.y < lo->y) lo->y = p.y;
    if (p.z < lo->z) lo->z = p.z;
    if (p.x > hi->x) hi->x = p.x;
    if (p.y > hi->y) hi->y = p.y;
    if (p.z > hi->z) hi->z = p.z;
}

void world_bounds(const world *w, oroya_vec3 *lo, oroya_vec3 *hi) {
    uint32_t n = oroya_scene_node_count(w->scene);
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    const uint8_t *visible = oroya_scene_world_visible(w->scene);
    for (uint32_t i = 0; i < n; i++) {
        oroya_node node = oroya_scene_node_at(w->scene, i);
        const oroya_geometry *g = NULL;
        const world_hint *h = hint_for(w, node);
        if (!visible[i] || (h && h->backdrop) || oroya_scene_get_mesh(w->scene, node, &g, NULL) != OROYA_OK) continue;
        float box[6] = {g->bounds_min.x, g->bounds_min.y, g->bounds_min.z,
                        g->bounds_max.x, g->bounds_max.y, g->bounds_max.z};
        oroya_skin *skin = oroya_scene_get_skin(w->scene, node);
        if (skin && skin->skeleton) {
            /* The skinned box, so framing follows the animated pose, not the rest pose. It is
             * in mesh space; three.js then applies the mesh's world matrix. */
            float *tmp = malloc((size_t)skin->vertex_count * 3 * sizeof(float));
            if (tmp && oroya_skin_compute(skin, tmp, NULL, box, NULL) != OROYA_OK) {
                memcpy(box, (float[6]){g->bounds_min.x, g->bounds_min.y, g->bounds_min.z,
                                       g->bounds_max.x, g->bounds_max.y, g->bounds_max.z}, sizeof box);
            }
            free(tmp);
        }
        for (int k = 0; k < 8; k++) {
            oroya_vec3 p = {box[(k & 1) ? 3 : 0], box[(k & 2) ? 4 : 1], box[(k & 4) ? 5 : 2]};
            grow(lo, hi, oroya_mat4_transform_point(worlds[i], p));
        }
    }
}

void world_animated_bounds(world *w, uint32_t samples, oroya_vec3 *lo, oroya_vec3 *hi) {
    *lo = (oroya_vec3){INFINITY, INFINITY, INFINITY};
    *hi = (oroya_vec3){-INFINITY, -INFINITY, -INFINITY};
    if (samples < 2) samples = 2;
    for (uint32_t s = 0; s < samples; s++) {
        world_pose(w, w->duration * (double)s / (double)(samples - 1));
        world_bounds(w, lo, hi);
    }
    if (!(lo->x <= hi->x)) {
        *lo = (oroya_vec3){-1, -1, -1};
        *hi = (oroya_vec3){1, 1, 1};
    }
}

void world_frame_bounds(oroya_vec3 lo, oroya_vec3 hi, oroya_vec3 from, float fov_y, float aspect,
                        oroya_mat4 *view, oroya_mat4 *projection) {
    oroya_vec3 c = oroya_vec3_scale(oroya_vec3_add(lo, hi), 0.5f);
    oroya_vec3 z = oroya_vec3_normalize(from);
    oroya_vec3 x = oroya_vec3_normalize(oroya_vec3_cross((oroya_vec3){0, 1, 0}, z));
    if (oroya_vec3_length(x) == 0.0f) x = (oroya_vec3){1, 0, 0};
    oroya_vec3 y = oroya_vec3_cross(z, x);
    /* A 6% margin on each side keeps silhouettes off the image border. */
    float tan_v = tanf(fov_y * 0.5f * PI_F / 180.0f) * 0.94f, tan_h = tan_v * aspect;
    float dist = 0.0f, radius = 0.5f * oroya_vec3_length(oroya_vec3_sub(hi, lo));
    for (int k = 0; k < 8; k++) {
        oroya_vec3 p = {k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
        oroya_vec3 rel = oroya_vec3_sub(p, c);
        float px = fabsf(oroya_vec3_dot(rel, x)), py = fabsf(oroya_vec3_dot(rel, y)), pz = oroya_vec3_dot(rel, z);
        /* The corner fits when |px| <= tan_h * (dist - pz), and likewise for y. */
        float need = fmaxf(pz + px / tan_h, pz + py / tan_v);
        if (need > dist) dist = need;
    }
    if (dist < 1e-3f) dist = 1e-3f;
    oroya_vec3 eye = oroya_vec3_add(c, oroya_vec3_scale(z, dist));
    *view = oroya_render_look_at(eye, c, (oroya_vec3){0, 1, 0});
    float near = fmaxf(dist * 1e-3f, dist - radius * 1.5f);
    *projection = oroya_render_perspective(fov_y, aspect, near, dist + radius * 4.0f + 10.0f);
}

int world_node_camera(const world *w, const char *name, float aspect, oroya_mat4 *view,
                      oroya_mat4 *projection) {
    uint32_t n = oroya_scene_node_count(w->scene);
    for (uint32_t i = 0; i < n; i++) {
        oroya_node node = oroya_scene_node_at(w->scene, i);
        oroya_camera cam;
        if (strcmp(oroya_scene_node_name(w->scene, node), name) ||
            oroya_scene_get_camera(w->scene, node, &cam) != OROYA_OK) {
            continue;
        }
        if (cam.type == OROYA_CAMERA_PERSPECTIVE) cam.aspect = aspect;
        oroya_result res = oroya_camera_projection(&cam, projection);
        if (res == OROYA_OK) res = oroya_scene_camera_view(w->scene, node, view);
        if (res != OROYA_OK) {
            fprintf(stderr, "oroya: camera '%s': %s\n", name, oroya_result_string(res));
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "oroya: no camera node named '%s'; cameras: auto", name);
    for (uint32_t i = 0; i < n; i++) {
        oroya_node node = oroya_scene_node_at(w->scene, i);
        oroya_camera cam;
        if (oroya_scene_get_camera(w->scene, node, &cam) == OROYA_OK) {
            fprintf(stderr, " %s", oroya_scene_node_name(w->scene, node));
        }
    }
    fputc('\n', stderr);
    return 1;
}

/* ---- GPU ------------------------------------------------------------------------------- */

#ifdef OROYA_HAVE_RENDER

static oroya_render_mesh find_gpu(const world_gpu *g, const oroya_geometry *geometry, const oroya_skin *skin) {
    for (uint32_t i = 0; i < g->mesh_count; i++) {
        if (g->meshes[i].geometry == geometry && g->meshes[i].skin == skin) return g->meshes[i].mesh;
    }
    return (oroya_render_mesh){0};
}

oroya_result world_upload(const world *w, oroya_renderer *r, world_gpu *out, oroya_error *err) {
    memset(out, 0, sizeof *out);
    uint32_t n = oroya_scene_node_count(w->scene);
    for (uint32_t i = 0; i < n; i++) {
        oroya_node node = oroya_scene_node_at(w->scene, i);
        const oroya_geometry *g = NULL;
        if (oroya_scene_get_mesh(w->scene, node, &g, NULL) != OROYA_OK) continue;
        const oroya_skin *skin = oroya_scene_get_skin(w->scene, node);
        if (skin && !skin->skeleton) skin = NULL;
        if (find_gpu(out, g, skin).id) continue;
        if (out->mesh_count == WORLD_MAX_MESHES) {
            return world_fail(err, OROYA_ERR_LIMIT, "more than %d distinct meshes", WORLD_MAX_MESHES);
        }
        /* A skinned mesh skins with its skin's influences: the importer normalizes the skin's
         * copy of the weights, as three.js does at load. */
        oroya_render_mesh_desc d = {
            .positions = g->positions, .normals = g->normals, .uvs = g->uvs, .vertex_count = g->vertex_count,
            .indices = g->indices, .index_count = g->index_count,
            .skin_indices = skin ? skin->joints : NULL, .skin_weights = skin ? skin->weights : NULL,
            .skin_indices2 = skin ? skin->joints2 : NULL, .skin_weights2 = skin ? skin->weights2 : NULL,
            .morph_target_count = g->morph_target_count, .morph_positions = g->morph_positions,
            .morph_normals = g->morph_normals};
        world_gpu_mesh *m = &out->meshes[out->mesh_count];
        oroya_result res = oroya_render_mesh_create(r, &d, &m->mesh, err);
        if (res != OROYA_OK) {
            char msg[OROYA_ERROR_MESSAGE_MAX];
            snprintf(msg, sizeof msg, "%s", err ? err->message : "");
            world_release(r, out);
            return world_fail(err, res, "node '%s': %s", oroya_scene_node_name(w->scene, node), msg);
        }
        m->geometry = g;
        m->skin = skin;
        out->mesh_count++;
    }
    for (uint32_t i = 0; i < w->texture_count; i++) {
        const world_texture *t = &w->textures[i];
        oroya_result res = oroya_render_texture_create(r, t->width, t->height, t->pixels, &out->textures[i], err);
        if (res != OROYA_OK) {
            world_release(r, out);
            return res;
        }
    }
    static float zeros[OVERLAY_VERTICES * 3];
    static uint32_t idx[OVERLAY_VERTICES];
    for (uint32_t i = 0; i < OVERLAY_VERTICES; i++) idx[i] = i;
    oroya_render_mesh_desc d = {.positions = zeros, .normals = zeros, .vertex_count = OVERLAY_VERTICES,
                                .indices = idx, .index_count = OVERLAY_VERTICES};
    oroya_result res = oroya_render_mesh_create(r, &d, &out->lines, err);
    if (res != OROYA_OK) world_release(r, out);
    return res;
}

void world_release(oroya_renderer *r, world_gpu *g) {
    for (uint32_t i = 0; i < g->mesh_count; i++) oroya_render_mesh_destroy(r, g->meshes[i].mesh);
    for (uint32_t i = 0; i < WORLD_MAX_OWNED; i++) oroya_render_texture_destroy(r, g->textures[i]);
    oroya_render_mesh_destroy(r, g->lines);
    memset(g, 0, sizeof *g);
}

static uint32_t gather_lights(const world *w, oroya_render_light *out, uint32_t max) {
    uint32_t n = oroya_scene_node_count(w->scene), count = 0;
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    for (uint32_t i = 0; i < n && count < max; i++) {
        oroya_light l;
        if (oroya_scene_get_light(w->scene, oroya_scene_node_at(w->scene, i), &l) != OROYA_OK) continue;
        const float *m = worlds[i].m;
        oroya_render_light *o = &out[count++];
        memset(o, 0, sizeof *o);
        memcpy(o->color, l.color, sizeof o->color);
        /* three.js's BRDF_Lambert divides by pi; the renderer's Lambert does not. */
        o->intensity = l.intensity / PI_F;
        if (l.type == OROYA_LIGHT_DIRECTIONAL) {
            o->type = OROYA_RENDER_LIGHT_DIRECTIONAL;
            o->direction = oroya_vec3_normalize((oroya_vec3){-m[8], -m[9], -m[10]});
            if (oroya_vec3_length(o->direction) == 0.0f) o->direction = (oroya_vec3){0, -1, 0};
        } else if (l.type == OROYA_LIGHT_POINT) {
            o->type = OROYA_RENDER_LIGHT_POINT;
            o->position = (oroya_vec3){m[12], m[13], m[14]};
            o->range = l.distance;
        } else {
            o->type = OROYA_RENDER_LIGHT_AMBIENT;
        }
    }
    if (count == 0 && max >= 2) {
        out[0] = (oroya_render_light){.type = OROYA_RENDER_LIGHT_DIRECTIONAL, .color = {1, 1, 1},
                                      .intensity = 0.9f, .direction = {-0.4f, -1.0f, -0.6f}};
        out[1] = (oroya_render_light){.type = OROYA_RENDER_LIGHT_AMBIENT, .color = {1, 1, 1}, .intensity = 0.25f};
        count = 2;
    }
    return count;
}

static uint32_t bone_lines(const world *w, oroya_vec3 *out, uint32_t max) {
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    const uint32_t *parents = oroya_scene_parent_indices(w->scene);
    uint32_t n = 0;
    for (uint32_t s = 0; s < w->skeleton_count; s++) {
        const oroya_skeleton *sk = w->skeletons[s];
        for (uint32_t b = 0; b < sk->bone_count && n + 2 <= max; b++) {
            uint32_t i = oroya_scene_node_index(w->scene, sk->bones[b]);
            if (i == OROYA_SCENE_NO_INDEX || parents[i] == OROYA_SCENE_NO_INDEX) continue;
            oroya_node_kind kind;
            if (oroya_scene_node_kind(w->scene, oroya_scene_node_at(w->scene, parents[i]), &kind) != OROYA_OK ||
                kind != OROYA_NODE_BONE) {
                continue;
            }
            const float *a = worlds[parents[i]].m, *c = worlds[i].m;
            out[n++] = (oroya_vec3){a[12], a[13], a[14]};
            out[n++] = (oroya_vec3){c[12], c[13], c[14]};
        }
    }
    return n;
}

oroya_result world_render(const world *w, oroya_renderer *r, world_gpu *g, const oroya_mat4 *view,
                          const oroya_mat4 *projection, bool skeleton, oroya_error *err) {
    oroya_render_light lights[OROYA_RENDER_MAX_LIGHTS];
    oroya_render_view v = {.view = *view, .projection = *projection, .lights = lights,
                           .light_count = gather_lights(w, lights, OROYA_RENDER_MAX_LIGHTS)};
    memcpy(v.background, w->background, sizeof v.background);
    oroya_result res = oroya_render_begin(r, &v, err);
    if (res != OROYA_OK) return res;
    uint32_t n = oroya_scene_node_count(w->scene);
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    const uint8_t *visible = oroya_scene_world_visible(w->scene);
    /* Opaque meshes first, then translucent ones (blob shadows), so blending sees what lies
     * behind. */
    for (int pass = 0; pass < 2 && res == OROYA_OK; pass++) {
        for (uint32_t i = 0; i < n && res == OROYA_OK; i++) {
            oroya_node node = oroya_scene_node_at(w->scene, i);
            const oroya_geometry *geo = NULL;
            const oroya_material *mat = NULL;
            if (!visible[i] || oroya_scene_get_mesh(w->scene, node, &geo, &mat) != OROYA_OK) continue;
            float color[4];
            oroya_scene_get_mesh_color(w->scene, node, color);
            if ((color[3] < 1.0f) != (pass == 1)) continue;
            const oroya_skin *skin = oroya_scene_get_skin(w->scene, node);
            if (skin && !skin->skeleton) skin = NULL;
            const world_hint *h = hint_for(w, node);
            oroya_render_draw_desc d = {.mesh = find_gpu(g, geo, skin), .model = worlds[i]};
            memcpy(d.material.base_color, color, sizeof color);
            d.material.metallic = mat->metallic;
            d.material.roughness = mat->roughness;
            d.material.double_sided = mat->double_sided;
            d.material.grid_spacing = h ? h->grid_spacing : 0.0f;
            d.material.unlit = h ? h->unlit : false;
            for (uint32_t t = 0; t < w->texture_count; t++) {
                if (w->textures[t].material == mat) d.material.base_color_texture = g->textures[t];
            }
            if (skin) {
                d.bone_matrices = skin->skeleton->bone_matrices;
                d.bone_count = skin->skeleton->bone_count;
                d.bind_matrix = skin->bind_matrix;
                d.bind_matrix_inverse = skin->bind_matrix_inverse;
            }
            uint32_t wc = 0;
            float *weights = oroya_scene_weights(w->scene, node, &wc);
            if (weights && geo->morph_target_count) {
                d.morph_weights = weights;
                d.morph_weight_count = wc < geo->morph_target_count ? wc : geo->morph_target_count;
            }
            res = oroya_render_draw(r, &d, err);
        }
    }
    if (res == OROYA_OK && skeleton && g->lines.id) {
        static oroya_vec3 pts[OVERLAY_VERTICES];
        uint32_t count = bone_lines(w, pts, OVERLAY_VERTICES);
        for (uint32_t i = count; i < OVERLAY_VERTICES; i++) pts[i] = count ? pts[count - 1] : (oroya_vec3){0, 0, 0};
        res = oroya_render_mesh_update(r, g->lines, &pts[0].x, NULL, OVERLAY_VERTICES, err);
        if (res == OROYA_OK && count) {
            oroya_render_draw_desc d = {.mesh = g->lines, .lines = true,
                                        .material = {.base_color = {1, 0.7f, 0.05f, 1}, .unlit = true}};
            res = oroya_render_draw(r, &d, err);
        }
    }
    oroya_result end = oroya_render_end(r, err);
    return res != OROYA_OK ? res : end;
}

#endif /* OROYA_HAVE_RENDER */
