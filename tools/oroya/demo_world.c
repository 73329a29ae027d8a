/* Posing, framing and drawing a render world (see demo_scene.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "demo_scene.h"

#ifdef OROYA_HAVE_RENDER
/* Fills err (when given) with the result and a message that names the place. */
__attribute__((format(printf, 3, 4))) static oroya_result
world_fail(oroya_error *err, oroya_result result, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->result = result;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return result;
}
#endif

#define PI_F 3.14159265358979f
#define OVERLAY_BONES 512 /* bones the skeleton overlay draws */
#define MARKER_SIDES 10   /* a joint marker is a disc of this many triangles */
#define BONE_VERTICES (OVERLAY_BONES * 6)
#define JOINT_VERTICES (OVERLAY_BONES * MARKER_SIDES * 3)
#define BONE_WIDTH_PX 3.0f
#define JOINT_RADIUS_PX 4.0f

static void place_stage_shadow(world *w);

/* Whether the rig's skin draws with the mixer's bone matrices: the last update ran on the
 * kernel and nothing after it moved joints (the stage's hook moves only its shadows). */
static bool rig_bones(const world *w) {
    return w->rig && w->mixer && oroya_mixer_kernel_active(w->mixer) &&
           (!w->after_pose || w->after_pose == place_stage_shadow);
}

int world_prepare(world *w) {
    oroya_mixer_desc md = {.max_bindings = 4096};
    const oroya_gltf_model *model = w->model;
    if (model && model->skin_count > 0 && model->skeletons[0]) {
        oroya_error err = {0};
        oroya_result r = oroya_rig_create_gltf(model, 0, NULL, &w->rig, &err);
        if (r == OROYA_ERR_OUT_OF_MEMORY) {
            fprintf(stderr, "oroya %s: out of memory (rig)\n", w->cmd ? w->cmd : "render");
            return 1;
        }
        if (r != OROYA_OK) { /* LIMIT: more joints than the kernel holds */
            fprintf(stderr, "oroya %s: note: %s; the mixer plays on its property path\n",
                    w->cmd ? w->cmd : "render", cli_esc(err.message));
            w->rig = NULL;
        } else {
            md.rig = w->rig;
            w->rig_skeleton = model->skeletons[0];
        }
    }
    if (oroya_mixer_create(w->scene, &md, &w->mixer) != OROYA_OK) {
        fprintf(stderr, "oroya %s: out of memory (mixer)\n", w->cmd ? w->cmd : "render");
        return 1;
    }
    for (uint32_t c = 0; c < w->clip_count; c++) {
        const oroya_clip *clip = w->clips[c];
        oroya_result res = oroya_mixer_clip_action(w->mixer, clip, &w->actions[c]);
        if (res != OROYA_OK) {
            fprintf(stderr, "oroya %s: clip '%s': %s\n", w->cmd ? w->cmd : "render",
                    cli_esc(clip->name), oroya_result_string(res));
            return 1;
        }
        for (uint32_t t = 0; t < clip->track_count; t++) {
            oroya_node n;
            if (oroya_scene_find_node(w->scene, clip->tracks[t].target, &n) != OROYA_OK) {
                fprintf(stderr,
                        "oroya %s: warning: clip '%s' track %u targets '%s', which is not in the "
                        "scene\n",
                        w->cmd ? w->cmd : "render", cli_esc(clip->name), t,
                        cli_esc(clip->tracks[t].target));
            }
        }
    }
    world_set_clips(w, w->clip_enabled);
    if (w->duration <= 0.0)
        w->duration = world_clip_duration(w);
    if (w->duration <= 0.0)
        w->duration = 1.0;
    for (uint32_t i = 0; i < w->skeleton_count; i++) {
        oroya_error err = {0};
        if (oroya_skeleton_validate(w->skeletons[i], w->scene, &err) != OROYA_OK) {
            fprintf(stderr, "oroya %s: warning: %s\n", w->cmd ? w->cmd : "render",
                    cli_esc(err.message));
        }
    }
    return 0;
}

double world_clip_duration(const world *w) {
    double d = 0.0;
    if (w->sequence_count) {
        for (uint32_t i = 0; i < w->sequence_count; i++)
            d += w->clips[w->sequence[i]]->duration;
        return d;
    }
    for (uint32_t c = 0; c < w->clip_count; c++) {
        if (((w->clip_enabled >> c) & 1u) && w->clips[c]->duration > d)
            d = w->clips[c]->duration;
    }
    return d;
}

void world_free(world *w) {
    if (!w)
        return;
    oroya_mixer_destroy(w->mixer);
    oroya_rig_destroy(w->rig);
    if (w->owns_objects) {
        for (uint32_t i = 0; i < w->skin_count; i++)
            oroya_skin_destroy(w->skins[i]);
        for (uint32_t i = 0; i < w->skeleton_count; i++)
            oroya_skeleton_destroy(w->skeletons[i]);
        for (uint32_t i = 0; i < w->clip_count; i++)
            oroya_clip_destroy(w->clips[i]);
        oroya_scene_destroy(w->scene);
    }
    for (uint32_t i = 0; i < w->geometry_count; i++)
        oroya_geometry_destroy(w->geometries[i]);
    if (w->free_user)
        w->free_user(w);
    memset(w, 0, sizeof *w);
}

void world_set_clips(world *w, uint32_t mask) {
    w->clip_enabled = mask;
    w->fade_to = -1;
    for (uint32_t c = 0; c < w->clip_count; c++) {
        if (!w->actions[c])
            continue;
        oroya_action_stop(w->actions[c]);
        if ((mask >> c) & 1u)
            oroya_action_play(w->actions[c]);
    }
}

int world_start_fade(world *w, uint32_t from, uint32_t to, double duration) {
    if (from >= w->clip_count || to >= w->clip_count || from == to)
        return 1;
    oroya_action *a = w->actions[from], *b = w->actions[to];
    oroya_action_reset(b);
    oroya_action_play(b);
    if (oroya_action_cross_fade_to(a, b, duration, false) != OROYA_OK)
        return 1;
    w->clip_enabled = 1u << to;
    w->fade_to = (int32_t)to;
    return 0;
}

bool world_fading(const world *w) {
    return w->fade_to >= 0 && oroya_action_is_fading(w->actions[w->fade_to]);
}

static void finish_pose(world *w) {
    oroya_scene_update_world(w->scene);
    if (w->after_pose)
        w->after_pose(w);
    /* The rig's skin has its bones from the mixer's update; the other skins read the scene. */
    const bool from_mixer = rig_bones(w);
    for (uint32_t i = 0; i < w->skeleton_count; i++) {
        if (!(from_mixer && w->skeletons[i] == w->rig_skeleton))
            oroya_skeleton_update(w->skeletons[i], w->scene, NULL);
    }
    for (uint32_t i = 0; i < w->skin_count; i++)
        oroya_skin_update(w->skins[i], w->scene, NULL);
}

void world_set_sequence(world *w, const uint32_t *order, uint32_t count) {
    w->sequence_count = 0;
    uint32_t mask = 0;
    for (uint32_t i = 0; i < count && i < WORLD_MAX_CLIPS; i++) {
        if (order[i] >= w->clip_count)
            continue;
        w->sequence[w->sequence_count++] = order[i];
        mask |= 1u << order[i];
    }
    w->sequence_playing = -1;
    world_set_clips(w, w->sequence_count ? 0u : mask);
    double d = world_clip_duration(w);
    w->duration = d > 0.0 ? d : 1.0;
}

void world_pose(world *w, double t) {
    if (w->mixer && t >= 0.0 && w->sequence_count) {
        /* The clip whose span holds t (the sequence loops); a clip of duration 0 shows its
         * first pose for no time, except when it is all there is. */
        double total = world_clip_duration(w), local = t;
        if (total > 0.0)
            local = fmod(t, total);
        uint32_t k = 0;
        while (k + 1 < w->sequence_count && local >= w->clips[w->sequence[k]]->duration) {
            local -= w->clips[w->sequence[k]]->duration;
            k++;
        }
        uint32_t c = w->sequence[k];
        if (w->sequence_playing != (int32_t)c) {
            /* Stopping the others gives their nodes back the values they had before (three.js
             * restores a binding's original state), so each frame depends on t alone. */
            for (uint32_t i = 0; i < w->clip_count; i++) {
                if (w->actions[i])
                    oroya_action_stop(w->actions[i]);
            }
            oroya_action_play(w->actions[c]);
            w->sequence_playing = (int32_t)c;
        }
        oroya_mixer_set_time(w->mixer, local);
    } else if (w->mixer && t >= 0.0) {
        oroya_mixer_set_time(w->mixer, t);
    }
    finish_pose(w);
}

void world_advance(world *w, double dt) {
    if (w->mixer && dt >= 0.0)
        oroya_mixer_update(w->mixer, dt);
    finish_pose(w);
}

static const world_hint *hint_for(const world *w, oroya_node node) {
    for (uint32_t i = 0; i < w->hint_count; i++) {
        if (w->hints[i].node.id == node.id)
            return &w->hints[i];
    }
    return NULL;
}

static void grow(oroya_vec3 *lo, oroya_vec3 *hi, oroya_vec3 p) {
    if (p.x < lo->x)
        lo->x = p.x;
    if (p.y < lo->y)
        lo->y = p.y;
    if (p.z < lo->z)
        lo->z = p.z;
    if (p.x > hi->x)
        hi->x = p.x;
    if (p.y > hi->y)
        hi->y = p.y;
    if (p.z > hi->z)
        hi->z = p.z;
}

void world_bounds(const world *w, oroya_vec3 *lo, oroya_vec3 *hi) {
    /* Framing skins on the CPU (oroya_skin_compute reads the skeleton's bones): bring the rig's
     * skeleton up to date first (framing only, not per frame). */
    for (uint32_t i = 0; rig_bones(w) && i < w->skeleton_count; i++) {
        if (w->skeletons[i] == w->rig_skeleton)
            oroya_skeleton_update(w->skeletons[i], w->scene, NULL);
    }
    uint32_t n = oroya_scene_node_count(w->scene);
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    const uint8_t *visible = oroya_scene_world_visible(w->scene);
    for (uint32_t i = 0; i < n; i++) {
        oroya_node node = oroya_scene_node_at(w->scene, i);
        const oroya_geometry *g = NULL;
        const world_hint *h = hint_for(w, node);
        if (!visible[i] || (h && h->backdrop) ||
            oroya_scene_get_mesh(w->scene, node, &g, NULL) != OROYA_OK)
            continue;
        float box[6] = {g->bounds_min.x, g->bounds_min.y, g->bounds_min.z,
                        g->bounds_max.x, g->bounds_max.y, g->bounds_max.z};
        oroya_skin *skin = oroya_scene_get_skin(w->scene, node);
        if (skin && skin->skeleton) {
            /* The skinned box, so framing follows the animated pose, not the rest pose. It is
             * in mesh space; three.js then applies the mesh's world matrix. */
            float *tmp = malloc((size_t)skin->vertex_count * 3 * sizeof(float));
            if (tmp && oroya_skin_compute(skin, tmp, NULL, box, NULL) != OROYA_OK) {
                memcpy(box,
                       (float[6]){g->bounds_min.x, g->bounds_min.y, g->bounds_min.z,
                                  g->bounds_max.x, g->bounds_max.y, g->bounds_max.z},
                       sizeof box);
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
    if (samples < 2)
        samples = 2;
    for (uint32_t s = 0; s < samples; s++) {
        world_pose(w, w->duration * (double)s / (double)(samples - 1));
        world_bounds(w, lo, hi);
    }
    if (!(lo->x <= hi->x)) {
        *lo = (oroya_vec3){-1, -1, -1};
        *hi = (oroya_vec3){1, 1, 1};
    }
}

#ifdef OROYA_HAVE_RENDER
/* Used by the render commands only (it needs the render library's camera helpers). */
float world_frame_bounds(oroya_vec3 lo, oroya_vec3 hi, oroya_vec3 from, float fov_y, float aspect,
                         float distance, oroya_mat4 *view, oroya_mat4 *projection) {
    oroya_vec3 c = oroya_vec3_scale(oroya_vec3_add(lo, hi), 0.5f);
    oroya_vec3 z = oroya_vec3_normalize(from);
    oroya_vec3 x = oroya_vec3_normalize(oroya_vec3_cross((oroya_vec3){0, 1, 0}, z));
    if (oroya_vec3_length(x) == 0.0f)
        x = (oroya_vec3){1, 0, 0};
    oroya_vec3 y = oroya_vec3_cross(z, x);
    /* A 6% margin on each side keeps silhouettes off the image border. */
    float tan_v = tanf(fov_y * 0.5f * PI_F / 180.0f) * 0.94f, tan_h = tan_v * aspect;
    float dist = 0.0f, radius = 0.5f * oroya_vec3_length(oroya_vec3_sub(hi, lo));
    for (int k = 0; k < 8; k++) {
        oroya_vec3 p = {k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z};
        oroya_vec3 rel = oroya_vec3_sub(p, c);
        float px = fabsf(oroya_vec3_dot(rel, x)), py = fabsf(oroya_vec3_dot(rel, y)),
              pz = oroya_vec3_dot(rel, z);
        /* The corner fits when |px| <= tan_h * (dist - pz), and likewise for y. */
        float need = fmaxf(pz + px / tan_h, pz + py / tan_v);
        if (need > dist)
            dist = need;
    }
    if (distance > 0.0f)
        dist = distance;
    if (dist < 1e-3f)
        dist = 1e-3f;
    oroya_vec3 eye = oroya_vec3_add(c, oroya_vec3_scale(z, dist));
    *view = oroya_render_look_at(eye, c, (oroya_vec3){0, 1, 0});
    float near = fmaxf(dist * 1e-3f, dist - radius * 1.5f);
    *projection = oroya_render_perspective(fov_y, aspect, near, dist + radius * 8.0f + 10.0f);
    return dist;
}
#endif

oroya_vec3 world_camera_direction(float yaw_degrees, float pitch_degrees) {
    float yaw = yaw_degrees * PI_F / 180.0f, pitch = pitch_degrees * PI_F / 180.0f;
    return (oroya_vec3){sinf(yaw) * cosf(pitch), sinf(pitch), cosf(yaw) * cosf(pitch)};
}

/* ---- stage: ground and contact shadow under a glTF scene -------------------------------- */

/* The horizontal middle of what moves: the bones when there are skeletons, else the mesh
 * nodes' origins. No allocation (it runs every frame). */
static bool stage_center(const world *w, float *x, float *z) {
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    float lx = INFINITY, lz = INFINITY, hx = -INFINITY, hz = -INFINITY;
    for (uint32_t s = 0; s < w->skeleton_count; s++) {
        const oroya_skeleton *sk = w->skeletons[s];
        for (uint32_t b = 0; b < sk->bone_count; b++) {
            uint32_t i = oroya_scene_node_index(w->scene, sk->bones[b]);
            if (i == OROYA_SCENE_NO_INDEX)
                continue;
            lx = fminf(lx, worlds[i].m[12]), hx = fmaxf(hx, worlds[i].m[12]);
            lz = fminf(lz, worlds[i].m[14]), hz = fmaxf(hz, worlds[i].m[14]);
        }
    }
    if (!(lx <= hx)) {
        uint32_t n = oroya_scene_node_count(w->scene);
        for (uint32_t i = 0; i < n; i++) {
            oroya_node node = oroya_scene_node_at(w->scene, i);
            const world_hint *h = hint_for(w, node);
            if ((h && h->backdrop) || oroya_scene_get_mesh(w->scene, node, NULL, NULL) != OROYA_OK)
                continue;
            lx = fminf(lx, worlds[i].m[12]), hx = fmaxf(hx, worlds[i].m[12]);
            lz = fminf(lz, worlds[i].m[14]), hz = fmaxf(hz, worlds[i].m[14]);
        }
    }
    if (!(lx <= hx))
        return false;
    *x = 0.5f * (lx + hx);
    *z = 0.5f * (lz + hz);
    return true;
}

/* The contact shadow follows the figure on the ground: two stacked translucent discs, as the
 * demo's blob shadows. */
static void place_stage_shadow(world *w) {
    float x = 0, z = 0;
    if (!stage_center(w, &x, &z))
        return;
    oroya_transform *tr = oroya_scene_transforms(w->scene);
    for (int k = 0; k < 2; k++) {
        uint32_t si = oroya_scene_node_index(w->scene, w->stage_shadow[k]);
        if (si == OROYA_SCENE_NO_INDEX)
            continue;
        float size = w->stage_radius * (k ? 0.6f : 1.0f);
        tr[si].translation =
            (oroya_vec3){x, w->stage_ground_y + w->stage_radius * (0.004f + 0.002f * (float)k), z};
        tr[si].scale = (oroya_vec3){size, 1, size};
    }
    oroya_scene_update_world(w->scene);
}

int world_add_stage(world *w, oroya_vec3 lo, oroya_vec3 hi) {
    float extent = fmaxf(fmaxf(hi.x - lo.x, hi.y - lo.y), hi.z - lo.z);
    if (!(extent > 0.0f) || !isfinite(extent))
        extent = 1.0f;
    if (w->geometry_count + 2 > WORLD_MAX_OWNED || w->material_count + 2 > WORLD_MAX_OWNED ||
        w->hint_count + 3 > WORLD_MAX_HINTS) {
        return 1;
    }
    oroya_error err = {0};
    oroya_geometry *ground = NULL, *disc = NULL;
    float thick = extent * 0.01f, size = extent * 12.0f;
    if (oroya_geometry_box(&(oroya_box_desc){.width = size, .height = thick, .depth = size},
                           &ground, &err) != OROYA_OK)
        goto fail;
    w->geometries[w->geometry_count++] = ground;
    if (oroya_geometry_cylinder(&(oroya_cylinder_desc){.height = 0.001f}, &disc, &err) != OROYA_OK)
        goto fail;
    w->geometries[w->geometry_count++] = disc;
    oroya_material *gm = &w->materials[w->material_count++];
    *gm = oroya_material_default();
    gm->base_color[0] = 0.09f, gm->base_color[1] = 0.09f, gm->base_color[2] = 0.11f;
    gm->metallic = 0.0f, gm->roughness = 0.9f;
    oroya_material *sm = &w->materials[w->material_count++];
    *sm = oroya_material_default();
    oroya_vec3 c = oroya_vec3_scale(oroya_vec3_add(lo, hi), 0.5f);
    oroya_node g, sh[2];
    if (oroya_scene_add_node(w->scene, "oroya:ground", (oroya_node){0}, OROYA_NODE_MESH, &g) !=
        OROYA_OK)
        goto fail;
    oroya_transform t = oroya_transform_identity();
    t.translation = (oroya_vec3){c.x, lo.y - thick * 0.5f, c.z};
    oroya_scene_set_transform(w->scene, g, &t);
    oroya_scene_set_mesh(w->scene, g, ground, gm);
    /* Grid lines every 1, 2 or 5 times a power of ten, about a third of the figure. */
    float spacing = powf(10.0f, floorf(log10f(extent / 3.0f)));
    if (spacing * 5.0f <= extent / 3.0f)
        spacing *= 5.0f;
    else if (spacing * 2.0f <= extent / 3.0f)
        spacing *= 2.0f;
    w->hints[w->hint_count++] = (world_hint){.node = g, .grid_spacing = spacing, .backdrop = true};
    for (int k = 0; k < 2; k++) {
        if (oroya_scene_add_node(w->scene, "oroya:shadow", (oroya_node){0}, OROYA_NODE_MESH,
                                 &sh[k]) != OROYA_OK) {
            goto fail;
        }
        oroya_scene_set_mesh(w->scene, sh[k], disc, sm);
        float rgba[4] = {0, 0, 0, 0.3f};
        oroya_scene_set_mesh_color(w->scene, sh[k], rgba);
        w->hints[w->hint_count++] = (world_hint){.node = sh[k], .backdrop = true, .unlit = true};
        w->stage_shadow[k] = sh[k];
    }
    float rx = 0.5f * (hi.x - lo.x), rz = 0.5f * (hi.z - lo.z);
    w->stage_radius = fmaxf(0.35f * sqrtf(rx * rx + rz * rz), 0.05f * extent);
    w->stage_ground_y = lo.y;
    w->after_pose = place_stage_shadow;
    return 0;
fail:
    fprintf(stderr, "oroya %s: cannot build the ground: %s\n", w->cmd ? w->cmd : "render",
            err.message[0] ? cli_esc(err.message) : "out of memory");
    return 1;
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
        if (cam.type == OROYA_CAMERA_PERSPECTIVE)
            cam.aspect = aspect;
        /* Which of the two failed, with the values (it said "invalid argument" alone). */
        oroya_result res = oroya_camera_projection(&cam, projection);
        if (res != OROYA_OK) {
            if (cam.type == OROYA_CAMERA_PERSPECTIVE)
                fprintf(stderr,
                        "oroya %s: camera '%s': no projection from yfov %g degrees, aspect %g, "
                        "znear %g, zfar %g (%s)\n",
                        w->cmd ? w->cmd : "render", cli_esc(name), (double)cam.fov_y,
                        (double)cam.aspect, (double)cam.znear, (double)cam.zfar,
                        oroya_result_string(res));
            else
                fprintf(stderr,
                        "oroya %s: camera '%s': no projection from left %g, right %g, top %g, "
                        "bottom %g, znear %g, zfar %g (%s)\n",
                        w->cmd ? w->cmd : "render", cli_esc(name), (double)cam.left,
                        (double)cam.right, (double)cam.top, (double)cam.bottom, (double)cam.znear,
                        (double)cam.zfar, oroya_result_string(res));
            return 1;
        }
        res = oroya_scene_camera_view(w->scene, node, view);
        if (res != OROYA_OK) {
            fprintf(stderr,
                    "oroya %s: camera '%s': its world matrix has no inverse in float (a zero "
                    "or tiny scale on it or a parent?), so there is no view (%s)\n",
                    w->cmd ? w->cmd : "render", cli_esc(name), oroya_result_string(res));
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "oroya %s: no camera node named '%s'; cameras: auto",
            w->cmd ? w->cmd : "render", cli_esc(name));
    for (uint32_t i = 0; i < n; i++) {
        oroya_node node = oroya_scene_node_at(w->scene, i);
        oroya_camera cam;
        if (oroya_scene_get_camera(w->scene, node, &cam) == OROYA_OK) {
            fprintf(stderr, " %s", cli_esc(oroya_scene_node_name(w->scene, node)));
        }
    }
    fputc('\n', stderr);
    return 1;
}

/* ---- GPU ------------------------------------------------------------------------------- */

#ifdef OROYA_HAVE_RENDER

static oroya_render_mesh find_gpu(const world_gpu *g, const oroya_geometry *geometry,
                                  const oroya_skin *skin) {
    for (uint32_t i = 0; i < g->mesh_count; i++) {
        if (g->meshes[i].geometry == geometry && g->meshes[i].skin == skin)
            return g->meshes[i].mesh;
    }
    return (oroya_render_mesh){0};
}

oroya_result world_upload(const world *w, oroya_renderer *r, world_gpu *out, oroya_error *err) {
    memset(out, 0, sizeof *out);
    uint32_t n = oroya_scene_node_count(w->scene);
    for (uint32_t i = 0; i < n; i++) {
        oroya_node node = oroya_scene_node_at(w->scene, i);
        const oroya_geometry *g = NULL;
        if (oroya_scene_get_mesh(w->scene, node, &g, NULL) != OROYA_OK)
            continue;
        const oroya_skin *skin = oroya_scene_get_skin(w->scene, node);
        if (skin && !skin->skeleton)
            skin = NULL;
        if (find_gpu(out, g, skin).id)
            continue;
        if (out->mesh_count == WORLD_MAX_MESHES) {
            return world_fail(err, OROYA_ERR_LIMIT, "more than %d distinct meshes",
                              WORLD_MAX_MESHES);
        }
        /* A skinned mesh skins with its skin's influences: the importer normalizes the skin's
         * copy of the weights, as three.js does at load. */
        const float *uvs = g->uvs;
        for (uint32_t u = 0; u < w->uv_count; u++) {
            if (w->uvs[u].geometry == g)
                uvs = w->uvs[u].uvs;
        }
        oroya_render_mesh_desc d = {.positions = g->positions,
                                    .normals = g->normals,
                                    .uvs = uvs,
                                    .vertex_count = g->vertex_count,
                                    .indices = g->indices,
                                    .index_count = g->index_count,
                                    .skin_indices = skin ? skin->joints : NULL,
                                    .skin_weights = skin ? skin->weights : NULL,
                                    .skin_indices2 = skin ? skin->joints2 : NULL,
                                    .skin_weights2 = skin ? skin->weights2 : NULL,
                                    .morph_target_count = g->morph_target_count,
                                    .morph_positions = g->morph_positions,
                                    .morph_normals = g->morph_normals};
        world_gpu_mesh *m = &out->meshes[out->mesh_count];
        oroya_result res = oroya_render_mesh_create(r, &d, &m->mesh, err);
        if (res != OROYA_OK) {
            char msg[OROYA_ERROR_MESSAGE_MAX];
            snprintf(msg, sizeof msg, "%s", err ? err->message : "");
            world_release(r, out);
            return world_fail(err, res, "node '%s': %s", oroya_scene_node_name(w->scene, node),
                              msg);
        }
        m->geometry = g;
        m->skin = skin;
        out->mesh_count++;
    }
    for (uint32_t i = 0; i < w->texture_count; i++) {
        const world_texture *t = &w->textures[i];
        oroya_result res =
            oroya_render_texture_create(r, t->width, t->height, t->pixels, &out->textures[i], err);
        if (res == OROYA_OK)
            res = oroya_render_texture_set_sampler(r, out->textures[i], &t->sampler, err);
        if (res != OROYA_OK) {
            world_release(r, out);
            return res;
        }
    }
    /* The skeleton overlay: bones as screen-facing ribbons and joints as discs, both a few
     * pixels wide whatever the GPU's line width limit (GLES guarantees only 1 pixel). */
    static float zeros[JOINT_VERTICES * 3];
    oroya_render_mesh_desc d = {
        .positions = zeros, .normals = zeros, .vertex_count = BONE_VERTICES};
    oroya_result res = oroya_render_mesh_create(r, &d, &out->bones, err);
    d.vertex_count = JOINT_VERTICES;
    if (res == OROYA_OK)
        res = oroya_render_mesh_create(r, &d, &out->joints, err);
    if (res == OROYA_OK)
        res = oroya_render_mesh_create(r, &d, &out->joint_rims, err);
    if (res != OROYA_OK)
        world_release(r, out);
    return res;
}

void world_release(oroya_renderer *r, world_gpu *g) {
    for (uint32_t i = 0; i < g->mesh_count; i++)
        oroya_render_mesh_destroy(r, g->meshes[i].mesh);
    for (uint32_t i = 0; i < WORLD_MAX_OWNED; i++)
        oroya_render_texture_destroy(r, g->textures[i]);
    oroya_render_mesh_destroy(r, g->bones);
    oroya_render_mesh_destroy(r, g->joints);
    oroya_render_mesh_destroy(r, g->joint_rims);
    memset(g, 0, sizeof *g);
}

static uint32_t gather_lights(const world *w, oroya_render_light *out, uint32_t max) {
    uint32_t n = oroya_scene_node_count(w->scene), count = 0;
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    for (uint32_t i = 0; i < n && count < max; i++) {
        oroya_light l;
        if (oroya_scene_get_light(w->scene, oroya_scene_node_at(w->scene, i), &l) != OROYA_OK)
            continue;
        const float *m = worlds[i].m;
        oroya_render_light *o = &out[count++];
        memset(o, 0, sizeof *o);
        memcpy(o->color, l.color, sizeof o->color);
        /* three.js's BRDF_Lambert divides by pi; the renderer's Lambert does not. */
        o->intensity = l.intensity / PI_F;
        if (l.type == OROYA_LIGHT_DIRECTIONAL) {
            o->type = OROYA_RENDER_LIGHT_DIRECTIONAL;
            o->direction = oroya_vec3_normalize((oroya_vec3){-m[8], -m[9], -m[10]});
            if (oroya_vec3_length(o->direction) == 0.0f)
                o->direction = (oroya_vec3){0, -1, 0};
        } else if (l.type == OROYA_LIGHT_POINT) {
            o->type = OROYA_RENDER_LIGHT_POINT;
            o->position = (oroya_vec3){m[12], m[13], m[14]};
            o->range = l.distance;
        } else {
            o->type = OROYA_RENDER_LIGHT_AMBIENT;
        }
    }
    if (count == 0 && max >= 2) {
        out[0] = (oroya_render_light){.type = OROYA_RENDER_LIGHT_DIRECTIONAL,
                                      .color = {1, 1, 1},
                                      .intensity = 0.9f,
                                      .direction = {-0.4f, -1.0f, -0.6f}};
        out[1] = (oroya_render_light){
            .type = OROYA_RENDER_LIGHT_AMBIENT, .color = {1, 1, 1}, .intensity = 0.25f};
        count = 2;
    }
    return count;
}

/* Bone segments (parent joint, joint) of every skeleton, in world space: 2 points each. */
static uint32_t bone_segments(const world *w, oroya_vec3 *out, uint32_t max) {
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    const uint32_t *parents = oroya_scene_parent_indices(w->scene);
    uint32_t n = 0;
    for (uint32_t s = 0; s < w->skeleton_count; s++) {
        const oroya_skeleton *sk = w->skeletons[s];
        for (uint32_t b = 0; b < sk->bone_count && n + 2 <= max; b++) {
            uint32_t i = oroya_scene_node_index(w->scene, sk->bones[b]);
            if (i == OROYA_SCENE_NO_INDEX || parents[i] == OROYA_SCENE_NO_INDEX)
                continue;
            oroya_node_kind kind;
            if (oroya_scene_node_kind(w->scene, oroya_scene_node_at(w->scene, parents[i]), &kind) !=
                    OROYA_OK ||
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

/* World units per pixel at view-space depth z (negative in front of the camera). */
static float pixel_size(const oroya_mat4 *projection, float z, float height) {
    const float *p = projection->m;
    float depth = p[11] != 0.0f ? fmaxf(-z, 1e-6f) : 1.0f; /* perspective; orthographic */
    return 2.0f * depth / (fabsf(p[5]) * height);
}

/* The overlay's triangles in view space (drawn with model = inverse(view)): a ribbon per bone
 * and a disc per joint. Counts in vertices; unused vertices collapse onto the last one. */
static void overlay_geometry(const world *w, const oroya_mat4 *view, const oroya_mat4 *projection,
                             float height, float *ribbons, uint32_t *ribbon_count, float *discs,
                             float *rims, uint32_t *disc_count) {
    static oroya_vec3 seg[OVERLAY_BONES * 2];
    uint32_t n = bone_segments(w, seg, OVERLAY_BONES * 2);
    uint32_t rv = 0, dv = 0;
    for (uint32_t i = 0; i + 1 < n; i += 2) {
        oroya_vec3 a = oroya_mat4_transform_point(*view, seg[i]);
        oroya_vec3 b = oroya_mat4_transform_point(*view, seg[i + 1]);
        float dx = b.x - a.x, dy = b.y - a.y, len = sqrtf(dx * dx + dy * dy);
        float nx = len > 0 ? -dy / len : 0, ny = len > 0 ? dx / len : 1;
        float ha = 0.5f * BONE_WIDTH_PX * pixel_size(projection, a.z, height);
        float hb = 0.5f * BONE_WIDTH_PX * pixel_size(projection, b.z, height);
        oroya_vec3 q[4] = {{a.x + nx * ha, a.y + ny * ha, a.z},
                           {a.x - nx * ha, a.y - ny * ha, a.z},
                           {b.x - nx * hb, b.y - ny * hb, b.z},
                           {b.x + nx * hb, b.y + ny * hb, b.z}};
        static const int tri[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++)
            memcpy(&ribbons[(rv++) * 3], &q[tri[k]].x, 3 * sizeof(float));
    }
    /* A disc on every bone of every skeleton. */
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    for (uint32_t s = 0; s < w->skeleton_count; s++) {
        const oroya_skeleton *sk = w->skeletons[s];
        for (uint32_t bi = 0; bi < sk->bone_count && dv + 3 * MARKER_SIDES <= JOINT_VERTICES;
             bi++) {
            uint32_t i = oroya_scene_node_index(w->scene, sk->bones[bi]);
            if (i == OROYA_SCENE_NO_INDEX)
                continue;
            oroya_vec3 c = oroya_mat4_transform_point(
                *view, (oroya_vec3){worlds[i].m[12], worlds[i].m[13], worlds[i].m[14]});
            float px = pixel_size(projection, c.z, height);
            float r = JOINT_RADIUS_PX * px, rim = (JOINT_RADIUS_PX + 1.5f) * px;
            for (int k = 0; k < MARKER_SIDES; k++) {
                float a0 = 2.0f * PI_F * (float)k / MARKER_SIDES,
                      a1 = 2.0f * PI_F * (float)(k + 1) / MARKER_SIDES;
                float p[9] = {c.x,
                              c.y,
                              c.z,
                              c.x + r * cosf(a0),
                              c.y + r * sinf(a0),
                              c.z,
                              c.x + r * cosf(a1),
                              c.y + r * sinf(a1),
                              c.z};
                float q[9] = {c.x,
                              c.y,
                              c.z,
                              c.x + rim * cosf(a0),
                              c.y + rim * sinf(a0),
                              c.z,
                              c.x + rim * cosf(a1),
                              c.y + rim * sinf(a1),
                              c.z};
                memcpy(&discs[dv * 3], p, sizeof p);
                memcpy(&rims[dv * 3], q, sizeof q);
                dv += 3;
            }
        }
    }
    for (uint32_t i = rv; i < BONE_VERTICES; i++)
        memcpy(&ribbons[i * 3], rv ? &ribbons[(rv - 1) * 3] : (float[3]){0, 0, 0},
               3 * sizeof(float));
    for (uint32_t i = dv; i < JOINT_VERTICES; i++) {
        memcpy(&discs[i * 3], dv ? &discs[(dv - 1) * 3] : (float[3]){0, 0, 0}, 3 * sizeof(float));
        memcpy(&rims[i * 3], dv ? &rims[(dv - 1) * 3] : (float[3]){0, 0, 0}, 3 * sizeof(float));
    }
    *ribbon_count = rv;
    *disc_count = dv;
}

oroya_result world_render(const world *w, oroya_renderer *r, world_gpu *g, const oroya_mat4 *view,
                          const oroya_mat4 *projection, bool skeleton, oroya_error *err) {
    oroya_render_light lights[OROYA_RENDER_MAX_LIGHTS];
    oroya_render_view v = {.view = *view,
                           .projection = *projection,
                           .lights = lights,
                           .light_count = gather_lights(w, lights, OROYA_RENDER_MAX_LIGHTS)};
    memcpy(v.background, w->background, sizeof v.background);
    oroya_result res = oroya_render_begin(r, &v, err);
    if (res != OROYA_OK)
        return res;
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
            if (!visible[i] || oroya_scene_get_mesh(w->scene, node, &geo, &mat) != OROYA_OK)
                continue;
            float color[4];
            oroya_scene_get_mesh_color(w->scene, node, color);
            if ((color[3] < 1.0f) != (pass == 1))
                continue;
            const oroya_skin *skin = oroya_scene_get_skin(w->scene, node);
            if (skin && !skin->skeleton)
                skin = NULL;
            const world_hint *h = hint_for(w, node);
            oroya_render_draw_desc d = {.mesh = find_gpu(g, geo, skin), .model = worlds[i]};
            memcpy(d.material.base_color, color, sizeof color);
            d.material.metallic = mat->metallic;
            d.material.roughness = mat->roughness;
            d.material.double_sided = mat->double_sided;
            d.material.grid_spacing = h ? h->grid_spacing : 0.0f;
            d.material.unlit = h ? h->unlit : false;
            for (uint32_t t = 0; t < w->texture_count; t++) {
                if (w->textures[t].material == mat)
                    d.material.base_color_texture = g->textures[t];
            }
            uint32_t mixer_bone_count = 0;
            const oroya_mat4 *mixer_bones =
                skin && skin->skeleton == w->rig_skeleton && rig_bones(w)
                    ? oroya_mixer_bone_matrices(w->mixer, &mixer_bone_count)
                    : NULL;
            if (skin && mixer_bones && mixer_bone_count == skin->skeleton->bone_count) {
                d.bone_matrices = mixer_bones[0].m; /* the rig's palette, skin joint order */
                d.bone_count = mixer_bone_count;
                d.bind_matrix = skin->bind_matrix;
                d.bind_matrix_inverse = skin->bind_matrix_inverse;
            } else if (skin) {
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
            if (res != OROYA_OK && err) {
                /* Which node: the draw's message names only what it was given. */
                const char *name = oroya_scene_node_name(w->scene, node);
                char was[sizeof err->message];
                memcpy(was, err->message, sizeof was);
                oroya_error_set(err, res, "node '%s': %s", name ? name : "", was);
            }
        }
    }
    if (res == OROYA_OK && skeleton && g->bones.id && g->joints.id && g->joint_rims.id) {
        static float ribbons[BONE_VERTICES * 3], discs[JOINT_VERTICES * 3],
            rims[JOINT_VERTICES * 3];
        uint32_t width = 0, height = 0, rv = 0, dv = 0;
        oroya_renderer_size(r, &width, &height);
        overlay_geometry(w, view, projection, (float)height, ribbons, &rv, discs, rims, &dv);
        oroya_mat4 back;
        if (!oroya_mat4_invert(*view, &back))
            back = oroya_mat4_identity();
        res = oroya_render_mesh_update(r, g->bones, ribbons, NULL, BONE_VERTICES, err);
        if (res == OROYA_OK)
            res = oroya_render_mesh_update(r, g->joints, discs, NULL, JOINT_VERTICES, err);
        if (res == OROYA_OK)
            res = oroya_render_mesh_update(r, g->joint_rims, rims, NULL, JOINT_VERTICES, err);
        oroya_render_draw_desc d = {
            .mesh = g->bones,
            .model = back,
            .on_top = true,
            .material = {.base_color = {1, 0.62f, 0.05f, 1}, .unlit = true, .double_sided = true}};
        if (res == OROYA_OK && rv)
            res = oroya_render_draw(r, &d, err);
        /* Joints: light discs with a dark rim, visible on light and dark surfaces alike. */
        d.mesh = g->joint_rims;
        d.material.base_color[0] = 0.03f, d.material.base_color[1] = 0.03f,
        d.material.base_color[2] = 0.05f;
        if (res == OROYA_OK && dv)
            res = oroya_render_draw(r, &d, err);
        d.mesh = g->joints;
        d.material.base_color[0] = 1.0f, d.material.base_color[1] = 0.95f,
        d.material.base_color[2] = 0.8f;
        if (res == OROYA_OK && dv)
            res = oroya_render_draw(r, &d, err);
    }
    oroya_result end = oroya_render_end(r, err);
    return res != OROYA_OK ? res : end;
}

#endif /* OROYA_HAVE_RENDER */
