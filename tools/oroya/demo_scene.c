/* The built-in demo scene of `oroya render` (no file) and `oroya view` (no file): the
 * tutorials' examples side by side over a ground plane.
 *   - "bounce": the bouncing ball with squash and stretch (000, steps 5 and 6), cubic-spline
 *     position and scale keys;
 *   - "comparison": the step, linear and cubic-spline balls (000, step 7), same keys;
 *   - "bend": the 5-bone skinned cylinder (003), bones[i].rotation.z = sin(1.5 t + 0.6 i) * 0.35
 *     for i = 1..4 as in the tutorial's tick().
 * The tutorial's comparison tracks animate the whole position, which would pull the three
 * balls to x = 0; here each ball hangs from a group node that places it, as one does in
 * three.js. The bouncing ball's sphere is lifted by its radius so that its origin is its
 * lowest point and the squash keys flatten it onto the ground instead of lifting it off (the
 * tutorial's centered sphere floats 0.15 above the ground when squashed to 0.7). Keys are
 * sampled with glTF 2.0 semantics (cubic tangents times the key interval,
 * ../shared/reference/README.md point 3). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "demo_scene.h"

enum { INTERP_STEP, INTERP_LINEAR, INTERP_CUBIC };

typedef struct key_track {
    const float *times;
    const float *values; /* count * 3, cubic: count * 9 (in-tangent, value, out-tangent) */
    uint32_t count;
    int interp;
} key_track;

static const float bounce_times[5] = {0, 0.5f, 1.0f, 1.5f, 2.0f};
static const float bounce_position[45] = {
    0, 0, 0, 0, 0, 0, 0, 8, 0,  0, 0, 0, 0, 4, 0, 0, 0, 0,  0, -8, 0, 0, 0, 0, 0, 5, 0,
    0, 0, 0, 0, 2, 0, 0, 0, 0,  0, -3, 0, 0, 0, 0, 0, 0, 0,
};
static const float bounce_scale[45] = {
    0, 0, 0, 1.2f, 0.8f, 1.2f, 0, 0, 0,     0, 0, 0, 0.85f, 1.3f, 0.85f, 0, 0, 0,
    0, 0, 0, 1.3f, 0.7f, 1.3f, 0, 0, 0,     0, 0, 0, 0.9f, 1.15f, 0.9f, 0, 0, 0,
    0, 0, 0, 1, 1, 1, 0, 0, 0,
};
static const float compare_times[3] = {0, 1, 2};
static const float compare_cubic[27] = {
    0, 0, 0, 0, 0, 0, 0, 5, 0,  0, 0, 0, 0, 3, 0, 0, 0, 0,  0, -5, 0, 0, 0, 0, 0, 0, 0,
};
static const float compare_linear[9] = {0, 0, 0, 0, 3, 0, 0, 0, 0};

#define CLIP_DURATION 2.0
#define BEND_BONES 5
#define GROUND_Y -0.5f

enum { ITEM_GROUND, ITEM_BOUNCE, ITEM_STEP, ITEM_LINEAR, ITEM_CUBIC, ITEM_CYLINDER, ITEM_COUNT };
/* Blob shadows: two stacked translucent discs under each ball (a soft-edged look without a
 * shadow map), drawn after the ground. */
enum { MESH_DISC = ITEM_COUNT, MESH_COUNT, ITEM_SHADOWS = ITEM_COUNT, ITEM_ALL = ITEM_COUNT + 8 };
static const float ball_radius[ITEM_COUNT] = {0, 0.5f, 0.3f, 0.3f, 0.3f, 0};
/* Height of each ball's origin above its lowest point: the bouncing ball's mesh is lifted so
 * its origin sits at its base, so squash and stretch keep it on the ground. */
static const float ball_base[ITEM_COUNT] = {0, 0, 0.3f, 0.3f, 0.3f, 0};
enum { CLIP_BOUNCE, CLIP_COMPARISON, CLIP_BEND };

static const oroya_vec3 group_offset[ITEM_COUNT] = {
    {0, GROUND_Y - 0.025f, 0}, {-5.0f, GROUND_Y, 0}, {-2.2f, -0.2f, 0}, {0, -0.2f, 0}, {2.2f, -0.2f, 0},
    {5.0f, GROUND_Y, 0},
};

typedef struct demo_state {
    oroya_mat4 bone_inverse[BEND_BONES];
    oroya_mat4 bone_world[BEND_BONES];
} demo_state;

/* glTF 2.0 Appendix C sampling of a 3-component track. */
static void sample3(const key_track *k, double t, float out[3]) {
    const uint32_t stride = k->interp == INTERP_CUBIC ? 9 : 3, off = k->interp == INTERP_CUBIC ? 3 : 0;
    if (t <= k->times[0] || k->count == 1) {
        memcpy(out, k->values + off, 3 * sizeof(float));
        return;
    }
    if (t >= k->times[k->count - 1]) {
        memcpy(out, k->values + (k->count - 1) * stride + off, 3 * sizeof(float));
        return;
    }
    uint32_t i = 0;
    while (i + 2 < k->count && t >= k->times[i + 1]) i++;
    float td = k->times[i + 1] - k->times[i];
    float s = (float)((t - k->times[i]) / td);
    const float *a = k->values + i * stride, *b = k->values + (i + 1) * stride;
    for (int c = 0; c < 3; c++) {
        if (k->interp == INTERP_STEP) {
            out[c] = a[off + (uint32_t)c];
        } else if (k->interp == INTERP_LINEAR) {
            out[c] = a[c] + (b[c] - a[c]) * s;
        } else {
            float s2 = s * s, s3 = s2 * s;
            out[c] = (2 * s3 - 3 * s2 + 1) * a[3 + c] + (s3 - 2 * s2 + s) * td * a[6 + c] +
                     (-2 * s3 + 3 * s2) * b[3 + c] + (s3 - s2) * td * b[c];
        }
    }
}

static oroya_mat4 translate(oroya_vec3 t) {
    return oroya_mat4_compose(t, oroya_quat_identity(), (oroya_vec3){1, 1, 1});
}

static void demo_evaluate(world *w, double t) {
    demo_state *st = w->user;
    double clip_t[3];
    for (int c = 0; c < 3; c++) {
        clip_t[c] = (w->clip_enabled >> c) & 1u ? t : 0.0;
    }
    double tb = fmod(clip_t[CLIP_BOUNCE], CLIP_DURATION), tc = fmod(clip_t[CLIP_COMPARISON], CLIP_DURATION);
    float p[3], s[3];
    key_track bounce_pos = {bounce_times, bounce_position, 5, INTERP_CUBIC};
    key_track bounce_scl = {bounce_times, bounce_scale, 5, INTERP_CUBIC};
    sample3(&bounce_pos, tb, p);
    sample3(&bounce_scl, tb, s);
    w->items[ITEM_BOUNCE].model = oroya_mat4_mul(
        translate(group_offset[ITEM_BOUNCE]),
        oroya_mat4_compose((oroya_vec3){p[0], p[1], p[2]}, oroya_quat_identity(), (oroya_vec3){s[0], s[1], s[2]}));
    const key_track comparison[3] = {{compare_times, compare_linear, 3, INTERP_STEP},
                                     {compare_times, compare_linear, 3, INTERP_LINEAR},
                                     {compare_times, compare_cubic, 3, INTERP_CUBIC}};
    for (int i = 0; i < 3; i++) {
        sample3(&comparison[i], tc, p);
        w->items[ITEM_STEP + i].model = oroya_mat4_mul(translate(group_offset[ITEM_STEP + i]),
                                                       translate((oroya_vec3){p[0], p[1], p[2]}));
    }
    for (int b = 0; b < 4; b++) {
        const float *m = w->items[ITEM_BOUNCE + b].model.m;
        float h = m[13] - ball_base[ITEM_BOUNCE + b] - GROUND_Y, r = ball_radius[ITEM_BOUNCE + b];
        if (h < 0) h = 0;
        for (int k = 0; k < 2; k++) {
            world_item *sh = &w->items[ITEM_SHADOWS + b * 2 + k];
            float size = r * (k ? 0.75f : 1.15f) * (1.0f + 0.12f * h);
            sh->model = oroya_mat4_compose((oroya_vec3){m[12], GROUND_Y + 0.004f + 0.002f * (float)k, m[14]},
                                           oroya_quat_identity(), (oroya_vec3){size, 1, size});
            sh->material.base_color[3] = 0.28f / (1.0f + 0.45f * h);
        }
    }
    /* The skinned cylinder: bones hang from the mesh, so their world matrices include it. */
    world_item *cyl = &w->items[ITEM_CYLINDER];
    oroya_mat4 parent = cyl->model;
    for (int i = 0; i < BEND_BONES; i++) {
        float angle = i == 0 ? 0.0f : (float)(sin(clip_t[CLIP_BEND] * 1.5 + i * 0.6) * 0.35);
        oroya_mat4 local = oroya_mat4_compose((oroya_vec3){0, i == 0 ? 0.0f : 1.0f, 0},
                                              oroya_quat_from_axis_angle((oroya_vec3){0, 0, 1}, angle),
                                              (oroya_vec3){1, 1, 1});
        st->bone_world[i] = oroya_mat4_mul(parent, local);
        parent = st->bone_world[i];
        oroya_mat4 m = oroya_mat4_mul(st->bone_world[i], st->bone_inverse[i]);
        memcpy(cyl->bones + i * 16, m.m, sizeof m.m);
    }
}

static uint32_t demo_bone_lines(const world *w, oroya_vec3 *out, uint32_t max) {
    const demo_state *st = w->user;
    uint32_t n = 0;
    for (int i = 0; i + 1 < BEND_BONES && n + 2 <= max; i++) {
        const float *a = st->bone_world[i].m, *b = st->bone_world[i + 1].m;
        out[n++] = (oroya_vec3){a[12], a[13], a[14]};
        out[n++] = (oroya_vec3){b[12], b[13], b[14]};
    }
    /* The last bone has no child: draw its 1-unit axis like a DCC tool does. */
    if (n + 2 <= max) {
        oroya_mat4 tip = oroya_mat4_mul(st->bone_world[BEND_BONES - 1], translate((oroya_vec3){0, 0.6f, 0}));
        const float *a = st->bone_world[BEND_BONES - 1].m;
        out[n++] = (oroya_vec3){a[12], a[13], a[14]};
        out[n++] = (oroya_vec3){tip.m[12], tip.m[13], tip.m[14]};
    }
    return n;
}

static oroya_render_material material(float r, float g, float b, float metallic, float roughness) {
    return (oroya_render_material){.base_color = {r, g, b, 1}, .metallic = metallic, .roughness = roughness};
}

int demo_world_create(world *w) {
    memset(w, 0, sizeof *w);
    demo_state *st = calloc(1, sizeof *st);
    if (!st) return 1;
    w->user = st;
    w->name = "oroya demo";
    int fail = 0;
    fail |= demo_make_box(30, 0.05f, 16, &w->meshes[ITEM_GROUND]);
    fail |= demo_make_sphere(0.5f, 32, 32, &w->meshes[ITEM_BOUNCE]);
    fail |= demo_make_sphere(0.3f, 16, 16, &w->meshes[ITEM_STEP]);
    fail |= demo_make_sphere(0.3f, 16, 16, &w->meshes[ITEM_LINEAR]);
    fail |= demo_make_sphere(0.3f, 16, 16, &w->meshes[ITEM_CUBIC]);
    fail |= demo_make_cylinder(0.35f, 0.35f, 4, 16, 24, true, &w->meshes[ITEM_CYLINDER]);
    fail |= demo_make_disc(1.0f, 32, &w->meshes[MESH_DISC]);
    w->mesh_count = MESH_COUNT;
    if (fail) {
        world_free(w);
        return 1;
    }
    world_mesh *bm = &w->meshes[ITEM_BOUNCE];
    for (uint32_t v = 0; v < bm->vertex_count; v++) bm->positions[v * 3 + 1] += 0.5f;
    /* The tutorial's cylinder: base at y = 0, weights linear between consecutive bones. */
    world_mesh *cm = &w->meshes[ITEM_CYLINDER];
    cm->joints = calloc((size_t)cm->vertex_count * 4, sizeof(uint16_t));
    cm->weights = calloc((size_t)cm->vertex_count * 4, sizeof(float));
    if (!cm->joints || !cm->weights) {
        world_free(w);
        return 1;
    }
    const float step = 4.0f / (BEND_BONES - 1);
    for (uint32_t v = 0; v < cm->vertex_count; v++) {
        cm->positions[v * 3 + 1] += 2.0f;
        float t = cm->positions[v * 3 + 1] / step;
        int lower = (int)floorf(t);
        if (lower > BEND_BONES - 2) lower = BEND_BONES - 2;
        float wt = t - (float)lower;
        cm->joints[v * 4] = (uint16_t)lower;
        cm->joints[v * 4 + 1] = (uint16_t)(lower + 1);
        cm->weights[v * 4] = 1 - wt;
        cm->weights[v * 4 + 1] = wt;
    }

    w->items[ITEM_GROUND].material = material(0.25f, 0.25f, 0.3f, 0, 0.9f);
    w->items[ITEM_GROUND].material.grid_spacing = 1.0f;
    w->items[ITEM_GROUND].backdrop = true;
    w->items[ITEM_BOUNCE].material = material(1.0f, 0.4f, 0.2f, 0, 0.4f);
    w->items[ITEM_STEP].material = material(0.8f, 0.3f, 0.3f, 0, 0.4f);
    w->items[ITEM_LINEAR].material = material(0.3f, 0.8f, 0.3f, 0, 0.4f);
    w->items[ITEM_CUBIC].material = material(0.3f, 0.5f, 1.0f, 0, 0.4f);
    w->items[ITEM_CYLINDER].material = material(0.85f, 0.85f, 0.8f, 0.1f, 0.6f);
    for (uint32_t i = 0; i < ITEM_COUNT; i++) {
        w->items[i].mesh = i;
        w->items[i].visible = true;
        w->items[i].model = translate(group_offset[i]);
        w->items[i].bind = oroya_mat4_identity();
        w->items[i].bind_inverse = oroya_mat4_identity();
    }
    for (uint32_t i = ITEM_SHADOWS; i < ITEM_ALL; i++) {
        w->items[i] = (world_item){.mesh = MESH_DISC, .visible = true, .backdrop = true,
                                   .material = {.base_color = {0, 0, 0, 0.3f}, .unlit = true},
                                   .model = oroya_mat4_identity(), .bind = oroya_mat4_identity(),
                                   .bind_inverse = oroya_mat4_identity()};
    }
    w->item_count = ITEM_ALL;

    /* bind() without a matrix, as in the tutorial: the bind matrix is the mesh's world
     * matrix and each bone's inverse is the inverse of its world matrix in the rest pose. */
    world_item *cyl = &w->items[ITEM_CYLINDER];
    cyl->bone_count = BEND_BONES;
    cyl->bind = cyl->model;
    oroya_mat4_invert(cyl->model, &cyl->bind_inverse);
    oroya_mat4 rest = cyl->model;
    for (int i = 0; i < BEND_BONES; i++) {
        rest = oroya_mat4_mul(rest, translate((oroya_vec3){0, i == 0 ? 0.0f : step, 0}));
        oroya_mat4_invert(rest, &st->bone_inverse[i]);
    }

    w->lights[0] = (oroya_render_light){.type = OROYA_RENDER_LIGHT_DIRECTIONAL, .color = {1, 0.96f, 0.9f},
                                        .intensity = 1.1f, .direction = {-0.45f, -1.0f, -0.55f}};
    w->lights[1] = (oroya_render_light){.type = OROYA_RENDER_LIGHT_DIRECTIONAL, .color = {0.6f, 0.7f, 1.0f},
                                        .intensity = 0.35f, .direction = {0.8f, -0.2f, 0.4f}};
    w->lights[2] = (oroya_render_light){.type = OROYA_RENDER_LIGHT_AMBIENT, .color = {1, 1, 1}, .intensity = 0.22f};
    w->light_count = 3;
    w->background[0] = 0.11f;
    w->background[1] = 0.12f;
    w->background[2] = 0.15f;
    w->background[3] = 1.0f;
    /* The tutorial's camera: (0, 3, 10), fov 60, looking down -z. */
    w->cameras[0] = (world_camera){.name = "camera", .position = {0, 3, 10}, .target = {0, 3, 0},
                                   .fov_y_degrees = 60, .near = 0.1f, .far = 100};
    w->camera_count = 1;
    w->clips[CLIP_BOUNCE] = "bounce";
    w->clips[CLIP_COMPARISON] = "comparison";
    w->clips[CLIP_BEND] = "bend";
    w->clip_count = 3;
    w->clip_enabled = 7;
    w->duration = 2.0 * CLIP_DURATION;
    /* Ball stretched high in the air, the comparison balls rising apart, the tube bent. */
    w->poster_time = 0.6;
    w->evaluate = demo_evaluate;
    w->bone_lines = demo_bone_lines;
    demo_evaluate(w, 0.0);
    return 0;
}

void world_free(world *w) {
    if (!w) return;
    for (uint32_t i = 0; i < w->mesh_count; i++) demo_mesh_free(&w->meshes[i]);
    free(w->user);
    memset(w, 0, sizeof *w);
}

void world_bounds(const world *w, oroya_vec3 *lo, oroya_vec3 *hi) {
    for (uint32_t i = 0; i < w->item_count; i++) {
        const world_item *it = &w->items[i];
        const world_mesh *m = &w->meshes[it->mesh];
        if (!it->visible || it->backdrop) continue;
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            oroya_vec3 p = {m->positions[v * 3], m->positions[v * 3 + 1], m->positions[v * 3 + 2]};
            if (it->bone_count && m->joints) {
                /* v' = bind_inverse * sum(w * bone) * bind * v, then the model matrix. */
                oroya_vec3 b = oroya_mat4_transform_point(it->bind, p), acc = {0, 0, 0};
                for (int k = 0; k < 4; k++) {
                    float wt = m->weights[v * 4 + (uint32_t)k];
                    uint16_t j = m->joints[v * 4 + (uint32_t)k];
                    if (wt == 0.0f || j >= it->bone_count) continue;
                    oroya_mat4 bm;
                    memcpy(bm.m, it->bones + (size_t)j * 16, sizeof bm.m);
                    acc = oroya_vec3_add(acc, oroya_vec3_scale(oroya_mat4_transform_point(bm, b), wt));
                }
                p = oroya_mat4_transform_point(it->bind_inverse, acc);
            }
            p = oroya_mat4_transform_point(it->model, p);
            if (p.x < lo->x) lo->x = p.x;
            if (p.y < lo->y) lo->y = p.y;
            if (p.z < lo->z) lo->z = p.z;
            if (p.x > hi->x) hi->x = p.x;
            if (p.y > hi->y) hi->y = p.y;
            if (p.z > hi->z) hi->z = p.z;
        }
    }
}
