/* Drawing a render world with the renderer, and framing a camera on its animated bounds. */
#include <math.h>
#include <string.h>

#include "demo_scene.h"

#ifdef OROYA_HAVE_RENDER

#define OVERLAY_VERTICES 64

oroya_result world_upload(const world *w, oroya_renderer *r, world_gpu *out, oroya_error *err) {
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < w->mesh_count; i++) {
        const world_mesh *m = &w->meshes[i];
        oroya_render_mesh_desc d = {.positions = m->positions, .normals = m->normals,
                                    .vertex_count = m->vertex_count, .indices = m->indices,
                                    .index_count = m->index_count, .skin_indices = m->joints,
                                    .skin_weights = m->weights};
        oroya_result res = oroya_render_mesh_create(r, &d, &out->meshes[i], err);
        if (res != OROYA_OK) {
            world_release(r, out);
            return res;
        }
    }
    if (w->bone_lines) {
        float zeros[OVERLAY_VERTICES * 3] = {0};
        uint32_t idx[OVERLAY_VERTICES];
        for (uint32_t i = 0; i < OVERLAY_VERTICES; i++) idx[i] = i;
        oroya_render_mesh_desc d = {.positions = zeros, .normals = zeros, .vertex_count = OVERLAY_VERTICES,
                                    .indices = idx, .index_count = OVERLAY_VERTICES - OVERLAY_VERTICES % 3};
        oroya_result res = oroya_render_mesh_create(r, &d, &out->lines, err);
        if (res != OROYA_OK) {
            world_release(r, out);
            return res;
        }
    }
    return OROYA_OK;
}

void world_release(oroya_renderer *r, world_gpu *g) {
    for (uint32_t i = 0; i < WORLD_MAX_ITEMS; i++) oroya_render_mesh_destroy(r, g->meshes[i]);
    oroya_render_mesh_destroy(r, g->lines);
    memset(g, 0, sizeof *g);
}

void world_animated_bounds(world *w, uint32_t samples, oroya_vec3 *lo, oroya_vec3 *hi) {
    *lo = (oroya_vec3){INFINITY, INFINITY, INFINITY};
    *hi = (oroya_vec3){-INFINITY, -INFINITY, -INFINITY};
    if (samples < 2) samples = 2;
    for (uint32_t s = 0; s < samples; s++) {
        w->evaluate(w, w->duration * (double)s / (double)(samples - 1));
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
    float tan_v = tanf(fov_y * 0.5f * 3.14159265f / 180.0f) * 0.94f, tan_h = tan_v * aspect;
    float dist = 0.0f, radius = 0.5f * oroya_vec3_length(oroya_vec3_sub(hi, lo));
    for (int k = 0; k < 8; k++) {
        oroya_vec3 p = {k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
        oroya_vec3 rel = oroya_vec3_sub(p, c);
        float px = fabsf(oroya_vec3_dot(rel, x)), py = fabsf(oroya_vec3_dot(rel, y)), pz = oroya_vec3_dot(rel, z);
        /* The corner fits when |px| <= tan_h * (dist - pz), and likewise for y. */
        float need = fmaxf(pz + px / tan_h, pz + py / tan_v);
        if (need > dist) dist = need;
    }
    if (dist < 0.1f) dist = 0.1f;
    oroya_vec3 eye = oroya_vec3_add(c, oroya_vec3_scale(z, dist));
    *view = oroya_render_look_at(eye, c, (oroya_vec3){0, 1, 0});
    float near = fmaxf(0.05f, dist - radius * 1.5f);
    *projection = oroya_render_perspective(fov_y, aspect, near, dist + radius * 4.0f + 10.0f);
}

oroya_result world_render(world *w, oroya_renderer *r, world_gpu *g, const oroya_mat4 *view,
                          const oroya_mat4 *projection, bool skeleton, oroya_error *err) {
    oroya_render_view v = {.view = *view, .projection = *projection, .lights = w->lights,
                           .light_count = w->light_count};
    memcpy(v.background, w->background, sizeof v.background);
    oroya_result res = oroya_render_begin(r, &v, err);
    if (res != OROYA_OK) return res;
    for (uint32_t i = 0; i < w->item_count && res == OROYA_OK; i++) {
        const world_item *it = &w->items[i];
        if (!it->visible) continue;
        oroya_render_draw_desc d = {.mesh = g->meshes[it->mesh], .material = it->material, .model = it->model};
        if (it->bone_count) {
            d.bone_matrices = it->bones;
            d.bone_count = it->bone_count;
            d.bind_matrix = it->bind;
            d.bind_matrix_inverse = it->bind_inverse;
        }
        res = oroya_render_draw(r, &d, err);
    }
    if (res == OROYA_OK && skeleton && w->bone_lines && g->lines.id) {
        oroya_vec3 pts[OVERLAY_VERTICES];
        uint32_t n = w->bone_lines(w, pts, OVERLAY_VERTICES - OVERLAY_VERTICES % 3);
        for (uint32_t i = n; i < OVERLAY_VERTICES; i++) pts[i] = n ? pts[n - 1] : (oroya_vec3){0, 0, 0};
        res = oroya_render_mesh_update(r, g->lines, &pts[0].x, NULL, OVERLAY_VERTICES, err);
        if (res == OROYA_OK) {
            oroya_render_draw_desc d = {.mesh = g->lines, .lines = true,
                                        .material = {.base_color = {1, 0.85f, 0.1f, 1}, .unlit = true}};
            res = oroya_render_draw(r, &d, err);
        }
    }
    oroya_result end = oroya_render_end(r, err);
    return res != OROYA_OK ? res : end;
}

#endif /* OROYA_HAVE_RENDER */
