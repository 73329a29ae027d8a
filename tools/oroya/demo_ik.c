/* The inverse kinematics demo of `oroya render --ik`: a hip swaying over the ground (clip
 * "sway"), a leg whose foot stays planted on a marker that slides over the ground (two-bone
 * IK, knee pointing forward) and a head that follows a ball circling in front of it (aim IK
 * over neck and head, 0.4 / 0.6 of the turn); the foot is kept flat (end rotation). The IKs run after every pose
 * (oroya_ik_scene_apply in the world's after_pose hook), from the rest rotations of their
 * joints, so the picture at a time does not depend on the frames drawn before it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_scene.h"
#include "oroya/ik.h"

#define IK_GROUND 0.0f
#define FACING ((oroya_vec3){0.9396926f, 0, 0.3420201f}) /* +z turned 70 degrees about +y */

typedef struct ik_demo {
    oroya_node joints[5]; /* thigh, shin, foot, neck, head */
    oroya_node marker, ball;
    oroya_ik iks[2];
} ik_demo;

static void free_ik_demo(world *w) { free(w->user); }

static void apply_ik(world *w) {
    ik_demo *d = w->user;
    const float t = (float)oroya_mixer_time(w->mixer);
    oroya_transform *tr = oroya_scene_transforms(w->scene);
    /* The character faces FACING (turned 70 degrees so the knee's bend shows from the front
     * camera). The foot's marker slides back and forth under the hip; the ball swings from
     * side to side in front of the face. */
    const oroya_vec3 f = FACING, side = {f.z, 0, -f.x};
    oroya_vec3 foot =
        oroya_vec3_add((oroya_vec3){0.06f, IK_GROUND + 0.06f, -0.17f},
                       oroya_vec3_add(oroya_vec3_scale(f, 0.12f + 0.28f * sinf(1.3f * t)),
                                      oroya_vec3_scale(side, 0.08f * cosf(0.9f * t))));
    oroya_vec3 ball = oroya_vec3_add(
        (oroya_vec3){0, 1.45f + 0.35f * sinf(2.3f * t), 0},
        oroya_vec3_add(oroya_vec3_scale(f, 0.9f), oroya_vec3_scale(side, 0.9f * sinf(1.1f * t))));
    tr[oroya_scene_node_index(w->scene, d->marker)].translation =
        (oroya_vec3){foot.x, IK_GROUND + 0.005f, foot.z};
    tr[oroya_scene_node_index(w->scene, d->ball)].translation = ball;
    for (int i = 0; i < 5; i++) {
        tr[oroya_scene_node_index(w->scene, d->joints[i])].rotation = oroya_quat_identity();
    }
    oroya_scene_update_world(w->scene);
    d->iks[0].target = foot;
    d->iks[1].target = ball;
    for (int i = 0; i < 2; i++) {
        for (uint32_t k = 0; k < d->iks[i].joint_count; k++) {
            d->iks[i].joints[k] = oroya_scene_node_index(w->scene, d->joints[i ? 3 + k : k]);
        }
    }
    oroya_error err = {0};
    if (oroya_ik_scene_apply(w->scene, d->iks, 2, &err) != OROYA_OK) {
        fprintf(stderr, "oroya: ik demo: %s\n", err.message);
    }
}

static oroya_node add(world *w, const char *name, oroya_node parent, oroya_node_kind kind,
                      oroya_vec3 at, int *failed) {
    oroya_node n = {0};
    if (*failed || oroya_scene_add_node(w->scene, name, parent, kind, &n) != OROYA_OK) {
        *failed = 1;
        return n;
    }
    oroya_transform t = oroya_transform_identity();
    t.translation = at;
    oroya_scene_set_transform(w->scene, n, &t);
    return n;
}

static oroya_geometry *box(world *w, float x, float y, float z, float dy, int *failed) {
    oroya_geometry *g = NULL;
    if (*failed || oroya_geometry_box(&(oroya_box_desc){.width = x, .height = y, .depth = z}, &g,
                                      NULL) != OROYA_OK) {
        *failed = 1;
        return NULL;
    }
    oroya_geometry_translate(g, 0, dy, 0);
    w->geometries[w->geometry_count++] = g;
    return g;
}

static oroya_material *paint(world *w, float r, float g, float b) {
    oroya_material *m = &w->materials[w->material_count++];
    *m = oroya_material_default();
    m->base_color[0] = r, m->base_color[1] = g, m->base_color[2] = b;
    m->roughness = 0.5f;
    return m;
}

int ik_world_create(world *w) {
    memset(w, 0, sizeof *w);
    w->fade_to = -1;
    ik_demo *d = calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "oroya: out of memory\n");
        return 1;
    }
    w->user = d;
    w->free_user = free_ik_demo;
    w->owns_objects = true;
    w->name = "oroya ik demo";
    int failed = oroya_scene_create(NULL, &w->scene) != OROYA_OK;
    const oroya_node top = {0};
    oroya_node ground =
        add(w, "ground", top, OROYA_NODE_MESH, (oroya_vec3){0, IK_GROUND - 0.025f, 0}, &failed);
    oroya_node hip = add(w, "hip", top, OROYA_NODE_BONE, (oroya_vec3){0, 0.85f, 0}, &failed);
    if (!failed) {
        oroya_transform t = oroya_transform_identity();
        t.translation = (oroya_vec3){0, 0.85f, 0};
        t.rotation = oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, 1.2217305f);
        oroya_scene_set_transform(w->scene, hip, &t);
    }
    d->joints[0] = add(w, "thigh", hip, OROYA_NODE_BONE, (oroya_vec3){0.18f, 0, 0}, &failed);
    d->joints[1] =
        add(w, "shin", d->joints[0], OROYA_NODE_BONE, (oroya_vec3){0, -0.45f, 0.03f}, &failed);
    d->joints[2] =
        add(w, "foot", d->joints[1], OROYA_NODE_BONE, (oroya_vec3){0, -0.45f, -0.03f}, &failed);
    d->joints[3] = add(w, "neck", hip, OROYA_NODE_BONE, (oroya_vec3){0, 0.55f, 0}, &failed);
    d->joints[4] =
        add(w, "head", d->joints[3], OROYA_NODE_BONE, (oroya_vec3){0, 0.15f, 0}, &failed);
    oroya_node body = add(w, "body", hip, OROYA_NODE_MESH, (oroya_vec3){0, 0, 0}, &failed);
    oroya_node thigh_m =
        add(w, "thigh-mesh", d->joints[0], OROYA_NODE_MESH, (oroya_vec3){0, 0, 0}, &failed);
    oroya_node shin_m =
        add(w, "shin-mesh", d->joints[1], OROYA_NODE_MESH, (oroya_vec3){0, 0, 0}, &failed);
    oroya_node foot_m =
        add(w, "foot-mesh", d->joints[2], OROYA_NODE_MESH, (oroya_vec3){0, 0, 0.06f}, &failed);
    oroya_node neck_m =
        add(w, "neck-mesh", d->joints[3], OROYA_NODE_MESH, (oroya_vec3){0, 0, 0}, &failed);
    oroya_node head_m =
        add(w, "head-mesh", d->joints[4], OROYA_NODE_MESH, (oroya_vec3){0, 0.12f, 0}, &failed);
    oroya_node nose =
        add(w, "nose", d->joints[4], OROYA_NODE_MESH, (oroya_vec3){0, 0.12f, 0.15f}, &failed);
    d->marker = add(w, "marker", top, OROYA_NODE_MESH, (oroya_vec3){0, 0, 0}, &failed);
    d->ball = add(w, "ball", top, OROYA_NODE_MESH, (oroya_vec3){0, 1.5f, 1}, &failed);
    oroya_geometry *g_ground = box(w, 6, 0.05f, 4, 0, &failed);
    oroya_geometry *g_body = box(w, 0.5f, 0.6f, 0.25f, 0.27f, &failed);
    oroya_geometry *g_bone = box(w, 0.1f, 0.45f, 0.1f, -0.225f, &failed);
    oroya_geometry *g_foot = box(w, 0.1f, 0.06f, 0.24f, -0.03f, &failed);
    oroya_geometry *g_neck = box(w, 0.08f, 0.15f, 0.08f, 0.075f, &failed);
    oroya_geometry *g_nose = box(w, 0.06f, 0.06f, 0.12f, 0, &failed);
    oroya_geometry *g_head = NULL, *g_ball = NULL, *g_marker = NULL;
    if (!failed &&
        (oroya_geometry_sphere(&(oroya_sphere_desc){.radius = 0.14f, .width_segments = 24}, &g_head,
                               NULL) ||
         oroya_geometry_sphere(
             &(oroya_sphere_desc){.radius = 0.08f, .width_segments = 16, .height_segments = 12},
             &g_ball, NULL) ||
         oroya_geometry_cylinder(&(oroya_cylinder_desc){.radius_top = 0.12f,
                                                        .radius_bottom = 0.12f,
                                                        .height = 0.01f,
                                                        .radial_segments = 24},
                                 &g_marker, NULL))) {
        failed = 1;
    }
    w->geometries[w->geometry_count++] = g_head;
    w->geometries[w->geometry_count++] = g_ball;
    w->geometries[w->geometry_count++] = g_marker;
    if (!failed) {
        oroya_scene_set_mesh(w->scene, ground, g_ground, paint(w, 0.12f, 0.12f, 0.14f));
        oroya_material *skin = paint(w, 0.85f, 0.65f, 0.45f), *cloth = paint(w, 0.25f, 0.4f, 0.8f);
        oroya_scene_set_mesh(w->scene, body, g_body, cloth);
        oroya_scene_set_mesh(w->scene, thigh_m, g_bone, cloth);
        oroya_scene_set_mesh(w->scene, shin_m, g_bone, cloth);
        oroya_scene_set_mesh(w->scene, foot_m, g_foot, paint(w, 0.2f, 0.2f, 0.2f));
        oroya_scene_set_mesh(w->scene, neck_m, g_neck, skin);
        oroya_scene_set_mesh(w->scene, head_m, g_head, skin);
        oroya_scene_set_mesh(w->scene, nose, g_nose, paint(w, 0.9f, 0.3f, 0.2f));
        oroya_scene_set_mesh(w->scene, d->marker, g_marker, paint(w, 1.0f, 0.8f, 0.1f));
        oroya_scene_set_mesh(w->scene, d->ball, g_ball, paint(w, 1.0f, 0.3f, 0.6f));
        w->hints[w->hint_count++] =
            (world_hint){.node = ground, .grid_spacing = 0.5f, .backdrop = true};
    }
    /* The hip sways and bobs, so the leg has to bend and stretch to keep the foot down. */
    static const float times[5] = {0, 1, 2, 3, 4};
    static const float hip_keys[15] = {0,    0.85f,  0,     0.08f, 0.72f, 0.05f, 0, 0.86f,
                                       0.1f, -0.08f, 0.75f, 0.05f, 0,     0.85f, 0};
    oroya_track sway = {.target = "hip",
                        .property = OROYA_PROPERTY_TRANSLATION,
                        .interpolation = OROYA_INTERP_LINEAR,
                        .components = 3,
                        .key_count = 5,
                        .times = times,
                        .values = hip_keys};
    oroya_clip *c = NULL;
    if (!failed &&
        oroya_clip_create(&(oroya_clip_desc){.name = "sway", .tracks = &sway, .track_count = 1}, &c,
                          NULL) == OROYA_OK) {
        w->clips[w->clip_count++] = c;
    } else {
        failed = 1;
    }
    d->iks[0] = (oroya_ik){.type = OROYA_IK_TWO_BONE,
                           .name = "foot",
                           .joint_count = 3,
                           .pole = FACING,
                           .weight = 1,
                           .soft = 0.03f,
                           .has_target_rotation = true, /* the foot flat, facing forward */
                           .target_rotation = {0, 0.5735764f, 0, 0.8191520f}};
    d->iks[1] = (oroya_ik){.type = OROYA_IK_AIM,
                           .name = "look",
                           .joint_count = 2,
                           .shares = {0.4f, 0.6f},
                           .forward = {0, 0, 1},
                           .offset = {0, 0.12f, 0},
                           .up = {0, 1, 0},
                           .weight = 1};
    w->after_pose = apply_ik;
    static const float warm[3] = {1, 0.96f, 0.9f};
    oroya_node sun = add(w, "sun", top, OROYA_NODE_LIGHT, (oroya_vec3){0, 0, 0}, &failed);
    oroya_node amb = add(w, "ambient", top, OROYA_NODE_LIGHT, (oroya_vec3){0, 0, 0}, &failed);
    if (!failed) {
        oroya_transform t = oroya_transform_identity();
        t.rotation =
            oroya_quat_from_axis_angle(oroya_vec3_normalize((oroya_vec3){-1, 0.4f, 0}), 1.0f);
        oroya_scene_set_transform(w->scene, sun, &t);
        oroya_light l = oroya_light_make(OROYA_LIGHT_DIRECTIONAL);
        l.intensity = 3.0f;
        memcpy(l.color, warm, sizeof l.color);
        oroya_scene_set_light(w->scene, sun, &l);
        oroya_light a = oroya_light_make(OROYA_LIGHT_AMBIENT);
        a.intensity = 0.8f;
        oroya_scene_set_light(w->scene, amb, &a);
    }
    w->background[0] = 0.010f, w->background[1] = 0.012f, w->background[2] = 0.020f;
    w->background[3] = 1.0f;
    w->duration = 4.0;
    w->clip_enabled = 1;
    w->poster_time = 1.0;
    if (failed || world_prepare(w)) {
        fprintf(stderr, "oroya: building the ik demo failed\n");
        world_free(w);
        return 1;
    }
    world_pose(w, 0.0);
    return 0;
}
