/* The built-in demo scene of `oroya render` (no file) and `oroya view` (no file): the
 * tutorials' examples side by side over a ground plane, built from oroya's own modules
 * (scene, geometry, clips, skeleton, skin).
 *   - clip "bounce": the bouncing ball with squash and stretch (000, steps 5 and 6),
 *     cubic-spline position and scale keys;
 *   - clip "comparison": the step, linear and cubic-spline balls (000, step 7), same keys;
 *   - clip "rods": slerp vs sterp on a rod (002), see build_rods;
 *   - clip "bend": the 5-bone skinned cylinder (003), bones[i].rotation.z =
 *     sin(1.5 t + 0.6 i) * 0.35 for i = 1..4 as in the tutorial's tick(), baked into linear
 *     rotation keys 1/60 s apart over one period (worst error ~3e-5 rad).
 * Deviations, each for the picture: the comparison tracks animate the whole position, which
 * would pull the three balls to x = 0, so each ball hangs from a group node that places it;
 * the bouncing ball's sphere is lifted by its radius so its origin is its lowest point and the
 * squash keys flatten it onto the ground (the tutorial's centered sphere floats 0.15 above
 * the ground when squashed to 0.7); the tube's material is double-sided so its inside shows
 * through the open end; blob shadows (translucent discs) show the heights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_scene.h"

#define GROUND_Y -0.5f
#define BEND_BONES 5
#define BEND_RATE 60 /* keys per second of the baked bend clip */
#define BALLS 4

static const float bounce_times[5] = {0, 0.5f, 1.0f, 1.5f, 2.0f};
static const float bounce_position[45] = {
    0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 4, 0,  0, 0, 0, 0, -8, 0, 0, 0,
    0, 0, 5, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, -3, 0, 0, 0, 0, 0,  0, 0,
};
static const float bounce_scale[45] = {
    0,    0,     0,    1.2f, 0.8f, 1.2f, 0,    0,    0,    0, 0, 0, 0.85f, 1.3f, 0.85f,
    0,    0,     0,    0,    0,    0,    1.3f, 0.7f, 1.3f, 0, 0, 0, 0,     0,    0,
    0.9f, 1.15f, 0.9f, 0,    0,    0,    0,    0,    0,    1, 1, 1, 0,     0,    0,
};
static const float compare_times[3] = {0, 1, 2};
static const float compare_cubic[27] = {
    0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, -5, 0, 0, 0, 0, 0, 0, 0,
};
static const float compare_linear[9] = {0, 0, 0, 0, 3, 0, 0, 0, 0};

typedef struct demo_state {
    oroya_node balls[BALLS];
    float ball_radius[BALLS];
    float ball_base[BALLS]; /* height of the ball's origin above its lowest point */
    oroya_node shadows[BALLS * 2];
} demo_state;

/* Blob shadows: two stacked translucent discs under each ball (a soft-edged look without a
 * shadow map), growing and fading with the ball's height. */
static void place_shadows(world *w) {
    const demo_state *st = w->user;
    oroya_transform *tr = oroya_scene_transforms(w->scene);
    const oroya_mat4 *worlds = oroya_scene_world_matrices(w->scene);
    for (int b = 0; b < BALLS; b++) {
        uint32_t bi = oroya_scene_node_index(w->scene, st->balls[b]);
        if (bi == OROYA_SCENE_NO_INDEX)
            continue;
        const float *m = worlds[bi].m;
        float h = m[13] - st->ball_base[b] - GROUND_Y;
        if (h < 0)
            h = 0;
        for (int k = 0; k < 2; k++) {
            uint32_t si = oroya_scene_node_index(w->scene, st->shadows[b * 2 + k]);
            if (si == OROYA_SCENE_NO_INDEX)
                continue;
            float size = st->ball_radius[b] * (k ? 0.75f : 1.15f) * (1.0f + 0.12f * h);
            tr[si].translation = (oroya_vec3){m[12], GROUND_Y + 0.004f + 0.002f * (float)k, m[14]};
            tr[si].scale = (oroya_vec3){size, 1, size};
            float rgba[4] = {0, 0, 0, 0.28f / (1.0f + 0.45f * h)};
            oroya_scene_set_mesh_color(w->scene, st->shadows[b * 2 + k], rgba);
        }
    }
    oroya_scene_update_world(w->scene);
}

static void free_demo_state(world *w) { free(w->user); }

/* Rotation taking the node's -Z axis (where glTF and three.js lights shine) onto dir. */
static oroya_quat aim_minus_z(oroya_vec3 dir) {
    oroya_vec3 from = {0, 0, -1}, to = oroya_vec3_normalize(dir);
    oroya_vec3 axis = oroya_vec3_cross(from, to);
    float d = oroya_vec3_dot(from, to);
    if (oroya_vec3_length(axis) < 1e-6f) {
        return d > 0 ? oroya_quat_identity()
                     : oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, 3.14159265f);
    }
    return oroya_quat_from_axis_angle(axis, acosf(d < -1 ? -1 : d > 1 ? 1 : d));
}

typedef struct builder {
    world *w;
    oroya_error err;
    int failed;
    const char *step;
} builder;

static bool ok(builder *b, oroya_result r, const char *step) {
    if (r != OROYA_OK && !b->failed) {
        b->failed = 1;
        fprintf(stderr, "oroya: building the demo scene (%s): %s\n", step,
                b->err.message[0] ? b->err.message : oroya_result_string(r));
    }
    return r == OROYA_OK;
}

static oroya_node node(builder *b, const char *name, oroya_node parent, oroya_node_kind kind,
                       oroya_vec3 at) {
    oroya_node n = {0};
    if (b->failed)
        return n;
    if (!ok(b, oroya_scene_add_node(b->w->scene, name, parent, kind, &n), name))
        return n;
    oroya_transform t = oroya_transform_identity();
    t.translation = at;
    ok(b, oroya_scene_set_transform(b->w->scene, n, &t), name);
    return n;
}

/* Takes ownership of *g (the caller passes the create call's result and its out pointer). */
static oroya_geometry *keep(builder *b, oroya_result r, oroya_geometry **g, const char *what) {
    if (!ok(b, r, what))
        return NULL;
    b->w->geometries[b->w->geometry_count++] = *g;
    return *g;
}

static oroya_material *material(builder *b, float r, float g, float bl, float metallic,
                                float roughness) {
    oroya_material *m = &b->w->materials[b->w->material_count++];
    *m = oroya_material_default();
    m->base_color[0] = r;
    m->base_color[1] = g;
    m->base_color[2] = bl;
    m->metallic = metallic;
    m->roughness = roughness;
    return m;
}

static void mesh(builder *b, oroya_node n, const oroya_geometry *g, const oroya_material *m) {
    if (!b->failed && g)
        ok(b, oroya_scene_set_mesh(b->w->scene, n, g, m), "mesh");
}

static void clip(builder *b, const char *name, const oroya_track *tracks, uint32_t count) {
    if (b->failed)
        return;
    oroya_clip *c = NULL;
    if (ok(b,
           oroya_clip_create(
               &(oroya_clip_desc){.name = name, .tracks = tracks, .track_count = count}, &c,
               &b->err),
           name)) {
        b->w->clips[b->w->clip_count++] = c;
    }
}

static void light(builder *b, const char *name, oroya_light_type type, float intensity,
                  const float color[3], oroya_vec3 dir) {
    oroya_node n = node(b, name, (oroya_node){0}, OROYA_NODE_LIGHT, (oroya_vec3){0, 0, 0});
    if (b->failed)
        return;
    oroya_transform t = oroya_transform_identity();
    t.rotation = aim_minus_z(dir);
    oroya_light l = oroya_light_make(type);
    l.intensity = intensity;
    memcpy(l.color, color, sizeof l.color);
    ok(b, oroya_scene_set_transform(b->w->scene, n, &t), name);
    ok(b, oroya_scene_set_light(b->w->scene, n, &l), name);
}

static void build_cylinder(builder *b, demo_state *st) {
    (void)st;
    world *w = b->w;
    oroya_geometry *g = NULL;
    g = keep(b,
             oroya_geometry_cylinder(&(oroya_cylinder_desc){.radius_top = 0.35f,
                                                            .radius_bottom = 0.35f,
                                                            .height = 4.0f,
                                                            .radial_segments = 16,
                                                            .height_segments = 24,
                                                            .open_ended = true},
                                     &g, &b->err),
             &g, "cylinder");
    if (!g)
        return;
    ok(b, oroya_geometry_translate(g, 0, 2.0f, 0), "cylinder"); /* base at y = 0, as the bones */
    /* Weights: each vertex between the two bones around it (the tutorial's loop). */
    uint16_t *joints = calloc((size_t)g->vertex_count * 4, sizeof *joints);
    float *weights = calloc((size_t)g->vertex_count * 4, sizeof *weights);
    if (!joints || !weights) {
        free(joints);
        free(weights);
        fprintf(stderr, "oroya: out of memory\n");
        b->failed = 1;
        return;
    }
    const float step = 4.0f / (BEND_BONES - 1);
    for (uint32_t v = 0; v < g->vertex_count; v++) {
        float t = g->positions[v * 3 + 1] / step;
        int lower = (int)floorf(t);
        if (lower > BEND_BONES - 2)
            lower = BEND_BONES - 2;
        float wt = t - (float)lower;
        joints[v * 4] = (uint16_t)lower;
        joints[v * 4 + 1] = (uint16_t)(lower + 1);
        weights[v * 4] = 1 - wt;
        weights[v * 4 + 1] = wt;
    }
    oroya_material *mat = material(b, 1.0f, 1.0f, 1.0f, 0.1f, 0.6f);
    mat->double_sided = true;
    oroya_node tube = node(b, "cylinder", (oroya_node){0}, OROYA_NODE_SKINNED_MESH,
                           (oroya_vec3){5.0f, GROUND_Y, 0});
    mesh(b, tube, g, mat);
    /* 1. The bone chain, each a child of the one before; the root hangs from the mesh. */
    oroya_node bones[BEND_BONES], parent = tube;
    for (int i = 0; i < BEND_BONES; i++) {
        char name[16];
        snprintf(name, sizeof name, "bone%d", i);
        bones[i] = node(b, name, parent, OROYA_NODE_BONE, (oroya_vec3){0, i == 0 ? 0.0f : step, 0});
        parent = bones[i];
    }
    /* 2.-3. Skeleton, skin and bind, in this order (bind with no matrix takes the current pose
     * as the bind pose and the mesh's world matrix as the bind matrix). */
    oroya_skeleton *sk = NULL;
    oroya_skin *skin = NULL;
    if (!b->failed) {
        oroya_scene_update_world(w->scene);
        if (ok(b,
               oroya_skeleton_create(
                   w->scene, &(oroya_skeleton_desc){.bones = bones, .bone_count = BEND_BONES}, &sk,
                   &b->err),
               "skeleton")) {
            w->skeletons[w->skeleton_count++] = sk;
        }
    }
    if (!b->failed && ok(b,
                         oroya_skin_create(&(oroya_skin_desc){.mesh = tube,
                                                              .vertex_count = g->vertex_count,
                                                              .positions = g->positions,
                                                              .normals = g->normals,
                                                              .joints = joints,
                                                              .weights = weights},
                                           &skin, &b->err),
                         "skin")) {
        w->skins[w->skin_count++] = skin;
        if (ok(b, oroya_skin_bind(skin, w->scene, sk, NULL, &b->err), "bind")) {
            ok(b, oroya_scene_set_skin(w->scene, tube, skin), "skin slot");
        }
    }
    free(joints);
    free(weights);
    /* 4. Animating is moving bones: the tutorial's tick(), baked into rotation keys. */
    enum { KEYS = BEND_RATE * 4189 / 1000 + 2 }; /* one period, 2 pi / 1.5 = 4.18879 s */
    static float times[KEYS], values[BEND_BONES - 1][KEYS * 4];
    const double period = 2.0 * 3.14159265358979323846 / 1.5;
    oroya_track tracks[BEND_BONES - 1];
    char names[BEND_BONES - 1][16];
    for (int k = 0; k < KEYS; k++)
        times[k] = (float)(period * k / (KEYS - 1));
    for (int i = 1; i < BEND_BONES; i++) {
        for (int k = 0; k < KEYS; k++) {
            double angle = sin(1.5 * (double)times[k] + 0.6 * i) * 0.35;
            values[i - 1][k * 4 + 2] = (float)sin(angle / 2);
            values[i - 1][k * 4 + 3] = (float)cos(angle / 2);
        }
        snprintf(names[i - 1], sizeof names[i - 1], "bone%d", i);
        tracks[i - 1] = (oroya_track){.target = names[i - 1],
                                      .property = OROYA_PROPERTY_ROTATION,
                                      .interpolation = OROYA_INTERP_LINEAR,
                                      .components = 4,
                                      .key_count = KEYS,
                                      .times = times,
                                      .values = values[i - 1]};
    }
    clip(b, "bend", tracks, BEND_BONES - 1);
}

/* The swing-twist example (002, examples/sterp_rod.c): two rods turn from pointing left to
 * pointing right over the top (a 160 degree swing) while twisting 120 degrees about their own
 * length, and back; one with slerp (LINEAR), one with sterp (STERP, twist axis = the rod's
 * length). A fin on each rod shows the twist; slerp's tip leaves the shortest arc. */
static void build_rods(builder *b) {
    static float times[3] = {0, 1, 2}, keys[12];
    const float pi = 3.14159265f;
    oroya_quat a = oroya_quat_from_axis_angle((oroya_vec3){0, 0, 1}, pi);
    oroya_quat swing = oroya_quat_from_axis_angle((oroya_vec3){0, 0, -1}, 160.0f * pi / 180.0f);
    oroya_quat twist = oroya_quat_from_axis_angle((oroya_vec3){1, 0, 0}, 120.0f * pi / 180.0f);
    oroya_quat q = oroya_quat_mul(swing, oroya_quat_mul(a, twist));
    const oroya_quat seq[3] = {a, q, a};
    for (int k = 0; k < 3; k++) {
        keys[k * 4] = seq[k].x;
        keys[k * 4 + 1] = seq[k].y;
        keys[k * 4 + 2] = seq[k].z;
        keys[k * 4 + 3] = seq[k].w;
    }
    oroya_geometry *rod = NULL, *fin = NULL;
    rod = keep(b,
               oroya_geometry_box(&(oroya_box_desc){.width = 2.2f, .height = 0.16f, .depth = 0.16f},
                                  &rod, &b->err),
               &rod, "rod");
    fin = keep(b,
               oroya_geometry_box(&(oroya_box_desc){.width = 0.7f, .height = 0.3f, .depth = 0.05f},
                                  &fin, &b->err),
               &fin, "fin");
    if (!rod || !fin)
        return;
    ok(b, oroya_geometry_translate(rod, 1.1f, 0, 0), "rod"); /* pivot at one end, along +x */
    ok(b, oroya_geometry_translate(fin, 1.7f, 0.23f, 0), "fin");
    static const char *names[2] = {"slerp-rod", "sterp-rod"};
    static const float colors[2][3] = {{0.9f, 0.55f, 0.1f}, {0.1f, 0.75f, 0.8f}};
    oroya_track tracks[2];
    for (int i = 0; i < 2; i++) {
        oroya_node r = node(b, names[i], (oroya_node){0}, OROYA_NODE_MESH,
                            (oroya_vec3){i ? 2.4f : -2.4f, 3.4f, -3.0f});
        mesh(b, r, rod, material(b, colors[i][0], colors[i][1], colors[i][2], 0.3f, 0.35f));
        oroya_node f = node(b, "fin", r, OROYA_NODE_MESH, (oroya_vec3){0, 0, 0});
        mesh(b, f, fin, material(b, 0.9f, 0.9f, 0.9f, 0, 0.5f));
        tracks[i] = (oroya_track){.target = names[i],
                                  .property = OROYA_PROPERTY_ROTATION,
                                  .interpolation = i ? OROYA_INTERP_STERP : OROYA_INTERP_LINEAR,
                                  .components = 4,
                                  .key_count = 3,
                                  .times = times,
                                  .values = keys,
                                  .twist_axis = {1, 0, 0}};
    }
    clip(b, "rods", tracks, 2);
}

int demo_world_create(world *w) {
    memset(w, 0, sizeof *w);
    w->fade_to = -1;
    demo_state *st = calloc(1, sizeof *st);
    if (!st) {
        fprintf(stderr, "oroya: out of memory\n");
        return 1;
    }
    w->user = st;
    w->free_user = free_demo_state;
    w->owns_objects = true;
    w->name = "oroya demo";
    builder b = {.w = w};
    if (!ok(&b, oroya_scene_create(NULL, &w->scene), "scene")) {
        world_free(w);
        return 1;
    }
    oroya_geometry *ground = NULL, *big = NULL, *small = NULL, *disc = NULL;
    ground = keep(&b,
                  oroya_geometry_box(&(oroya_box_desc){.width = 30, .height = 0.05f, .depth = 16},
                                     &ground, &b.err),
                  &ground, "ground");
    big = keep(&b,
               oroya_geometry_sphere(&(oroya_sphere_desc){.radius = 0.5f, .height_segments = 32},
                                     &big, &b.err),
               &big, "ball");
    small = keep(&b,
                 oroya_geometry_sphere(&(oroya_sphere_desc){.radius = 0.3f, .width_segments = 16},
                                       &small, &b.err),
                 &small, "small ball");
    /* A flat closed cylinder: its top cap is the shadow disc. */
    disc =
        keep(&b, oroya_geometry_cylinder(&(oroya_cylinder_desc){.height = 0.001f}, &disc, &b.err),
             &disc, "disc");
    if (big)
        ok(&b, oroya_geometry_translate(big, 0, 0.5f, 0), "ball");

    oroya_node g =
        node(&b, "ground", (oroya_node){0}, OROYA_NODE_MESH, (oroya_vec3){0, GROUND_Y - 0.025f, 0});
    mesh(&b, g, ground, material(&b, 0.09f, 0.09f, 0.11f, 0, 0.9f));
    w->hints[w->hint_count++] = (world_hint){.node = g, .grid_spacing = 1.0f, .backdrop = true};

    /* The bouncing ball (000 steps 4-6). */
    oroya_node group = node(&b, "bounce-group", (oroya_node){0}, OROYA_NODE_OBJECT,
                            (oroya_vec3){-5.0f, GROUND_Y, 0});
    st->balls[0] = node(&b, "ball", group, OROYA_NODE_MESH, (oroya_vec3){0, 0, 0});
    mesh(&b, st->balls[0], big, material(&b, 1.0f, 0.4f, 0.2f, 0, 0.4f));
    st->ball_radius[0] = 0.5f;
    st->ball_base[0] = 0.0f;
    oroya_track bounce[2] = {
        {.target = "ball",
         .property = OROYA_PROPERTY_TRANSLATION,
         .interpolation = OROYA_INTERP_CUBICSPLINE,
         .components = 3,
         .key_count = 5,
         .times = bounce_times,
         .values = bounce_position},
        {.target = "ball",
         .property = OROYA_PROPERTY_SCALE,
         .interpolation = OROYA_INTERP_CUBICSPLINE,
         .components = 3,
         .key_count = 5,
         .times = bounce_times,
         .values = bounce_scale},
    };
    clip(&b, "bounce", bounce, 2);

    /* The step / linear / cubic comparison (000 step 7). */
    static const char *names[3] = {"step-ball", "linear-ball", "cubic-ball"};
    static const char *groups[3] = {"step-group", "linear-group", "cubic-group"};
    static const float colors[3][3] = {{0.8f, 0.3f, 0.3f}, {0.3f, 0.8f, 0.3f}, {0.3f, 0.5f, 1.0f}};
    oroya_track comparison[3];
    for (int i = 0; i < 3; i++) {
        oroya_node gr = node(&b, groups[i], (oroya_node){0}, OROYA_NODE_OBJECT,
                             (oroya_vec3){-2.2f + 2.2f * (float)i, GROUND_Y + 0.3f, 0});
        st->balls[1 + i] = node(&b, names[i], gr, OROYA_NODE_MESH, (oroya_vec3){0, 0, 0});
        mesh(&b, st->balls[1 + i], small,
             material(&b, colors[i][0], colors[i][1], colors[i][2], 0, 0.4f));
        st->ball_radius[1 + i] = 0.3f;
        st->ball_base[1 + i] = 0.3f;
        comparison[i] = (oroya_track){.target = names[i],
                                      .property = OROYA_PROPERTY_TRANSLATION,
                                      .interpolation = i == 0   ? OROYA_INTERP_STEP
                                                       : i == 1 ? OROYA_INTERP_LINEAR
                                                                : OROYA_INTERP_CUBICSPLINE,
                                      .components = 3,
                                      .key_count = 3,
                                      .times = compare_times,
                                      .values = i == 2 ? compare_cubic : compare_linear};
    }
    clip(&b, "comparison", comparison, 3);

    build_cylinder(&b, st);
    build_rods(&b);

    for (int i = 0; i < BALLS * 2; i++) {
        st->shadows[i] =
            node(&b, "shadow", (oroya_node){0}, OROYA_NODE_MESH, (oroya_vec3){0, GROUND_Y, 0});
        mesh(&b, st->shadows[i], disc, NULL);
        w->hints[w->hint_count++] =
            (world_hint){.node = st->shadows[i], .backdrop = true, .unlit = true};
    }
    w->after_pose = place_shadows;

    /* The tutorial's camera: (0, 3, 10), fov 60, looking down -z. */
    oroya_node cam = node(&b, "camera", (oroya_node){0}, OROYA_NODE_CAMERA, (oroya_vec3){0, 3, 10});
    if (!b.failed) {
        oroya_camera c = oroya_camera_perspective(60, 16.0f / 9.0f, 0.1f, 100);
        ok(&b, oroya_scene_set_camera(w->scene, cam, &c), "camera");
    }
    static const float warm[3] = {1, 0.96f, 0.9f}, cool[3] = {0.6f, 0.7f, 1.0f},
                       white[3] = {1, 1, 1};
    light(&b, "sun", OROYA_LIGHT_DIRECTIONAL, 3.5f, warm, (oroya_vec3){-0.45f, -1.0f, -0.55f});
    light(&b, "fill", OROYA_LIGHT_DIRECTIONAL, 1.1f, cool, (oroya_vec3){0.8f, -0.2f, 0.4f});
    light(&b, "ambient", OROYA_LIGHT_AMBIENT, 0.7f, white, (oroya_vec3){0, 0, -1});

    w->background[0] = 0.010f;
    w->background[1] = 0.012f;
    w->background[2] = 0.020f;
    w->background[3] = 1.0f;
    /* Two loops of the 2 s ball clips (seamless); the tube's 4.19 s period is cut at 4 s. */
    w->duration = 4.0;
    w->clip_enabled = 15;
    /* Ball stretched high in the air, the comparison balls rising apart, the rods apart, the tube bent. */
    w->poster_time = 0.45;
    if (b.failed || world_prepare(w)) {
        world_free(w);
        return 1;
    }
    world_pose(w, 0.0);
    return 0;
}
