/* The tutorial's skinned cylinder: a 4-unit open cylinder (radius 0.35, 16 radial x 24 height
 * segments, base at y = 0) bent by a chain of five bones one unit apart, each a child of the
 * one before, the root hanging from the mesh. Weights blend linearly between the two bones
 * around each vertex. The bones turn about z by sin(1.5 t + 0.6 i) * 0.35 (bones 1 to 4, as
 * in the tutorial's loop), and the program prints, every 0.25 s, the tip of the chain, the
 * skinned bounding box and the top-centre vertex, all CPU-skinned to mesh space.
 *
 * The order matters and is the tutorial's: bones parented into the scene and in their rest
 * pose BEFORE bind, because bind without a bind matrix takes the current pose as the bind
 * pose. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <oroya/oroya.h>
#include <oroya/scene.h>
#include <oroya/skeleton.h>
#include <oroya/skin.h>

#define HEIGHT 4.0f
#define BONES 5
#define SEGMENTS 24

static int fail(const char *what, const oroya_error *err) {
    fprintf(stderr, "skinned_cylinder: %s: %s\n", what, err->message);
    return 1;
}

int main(void) {
    oroya_error err = {0};
    oroya_geometry *geometry = NULL;
    if (oroya_geometry_cylinder(&(oroya_cylinder_desc){.radius_top = 0.35f,
                                                       .radius_bottom = 0.35f,
                                                       .height = HEIGHT,
                                                       .radial_segments = 16,
                                                       .height_segments = SEGMENTS,
                                                       .open_ended = true},
                                &geometry, &err) != OROYA_OK) {
        return fail("cylinder", &err);
    }
    oroya_geometry_translate(geometry, 0.0f, HEIGHT / 2.0f, 0.0f); /* base at y = 0 */
    uint32_t n = geometry->vertex_count;

    /* Weights: each vertex between the two bones around it, 0 at the lower one, 1 above. */
    const float step = HEIGHT / (BONES - 1);
    uint16_t *joints = calloc((size_t)n * 4, sizeof(uint16_t));
    float *weights = calloc((size_t)n * 4, sizeof(float));
    float *skinned = calloc((size_t)n * 3, sizeof(float));
    if (!joints || !weights || !skinned)
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        float t = geometry->positions[i * 3 + 1] / step;
        float lower = fminf(floorf(t), BONES - 2);
        joints[i * 4 + 0] = (uint16_t)lower;
        joints[i * 4 + 1] = (uint16_t)(lower + 1.0f);
        weights[i * 4 + 0] = 1.0f - (t - lower);
        weights[i * 4 + 1] = t - lower;
    }

    /* The scene: the mesh node, the bone chain hanging from it. */
    oroya_scene *scene = NULL;
    if (oroya_scene_create(NULL, &scene) != OROYA_OK)
        return 1;
    oroya_node mesh, bones[BONES];
    oroya_scene_add_node(scene, "cylinder", (oroya_node){0}, OROYA_NODE_SKINNED_MESH, &mesh);
    for (int i = 0; i < BONES; i++) {
        char name[16];
        snprintf(name, sizeof name, "bone%d", i);
        oroya_scene_add_node(scene, name, i == 0 ? mesh : bones[i - 1], OROYA_NODE_BONE, &bones[i]);
        oroya_transform t = oroya_transform_identity();
        t.translation.y = i == 0 ? 0.0f : step; /* local, relative to the parent */
        oroya_scene_set_transform(scene, bones[i], &t);
    }

    /* Skeleton, skin, bind: in this order, with the bones in their rest pose. */
    oroya_scene_update_world(scene);
    oroya_skeleton *skeleton = NULL;
    if (oroya_skeleton_create(scene, &(oroya_skeleton_desc){.bones = bones, .bone_count = BONES},
                              &skeleton, &err) != OROYA_OK) {
        return fail("skeleton", &err);
    }
    oroya_skin *skin = NULL;
    if (oroya_skin_create(&(oroya_skin_desc){.mesh = mesh,
                                             .vertex_count = n,
                                             .positions = geometry->positions,
                                             .normals = geometry->normals,
                                             .joints = joints,
                                             .weights = weights},
                          &skin, &err) != OROYA_OK) {
        return fail("skin", &err);
    }
    if (oroya_skin_bind(skin, scene, skeleton, NULL, &err) != OROYA_OK)
        return fail("bind", &err);
    if (oroya_skeleton_validate(skeleton, scene, &err) != OROYA_OK) {
        fprintf(stderr, "warning: %s\n", err.message);
    }

    /* The top-centre vertex: the torso's first row is the top ring (three.js order). */
    printf("oroya %s: the tutorial's skinned cylinder, %u vertices, %d bones, bone texture "
           "%ux%u\n\n",
           OROYA_VERSION_STRING, n, BONES, skeleton->texture_side, skeleton->texture_side);
    printf("  t (s)   tip (x, y)          box x [min, max]   box y max   vertex 0 (x, y, z)\n");
    for (int frame = 0; frame <= 16; frame++) {
        float t = (float)frame * 0.25f;
        for (int i = 1; i < BONES; i++) {
            float angle = sinf(t * 1.5f + (float)i * 0.6f) * 0.35f;
            oroya_transform tr;
            oroya_scene_get_transform(scene, bones[i], &tr);
            tr.rotation = oroya_quat_from_axis_angle((oroya_vec3){0, 0, 1}, angle);
            oroya_scene_set_transform(scene, bones[i], &tr);
        }
        oroya_scene_update_world(scene);
        if (oroya_skeleton_update(skeleton, scene, &err) != OROYA_OK) {
            fprintf(stderr, "warning: %s\n", err.message);
        }
        oroya_skin_update(skin, scene, &err);
        float box[6];
        if (oroya_skin_compute(skin, skinned, NULL, box, &err) != OROYA_OK) {
            return fail("skinning", &err);
        }
        oroya_mat4 tip;
        oroya_scene_get_world(scene, bones[BONES - 1], &tip);
        printf("  %5.2f   (%6.3f, %6.3f)   [%6.3f, %6.3f]   %8.3f   (%6.3f, %6.3f, %6.3f)\n",
               (double)t, (double)tip.m[12], (double)tip.m[13], (double)box[0], (double)box[3],
               (double)box[4], (double)skinned[0], (double)skinned[1], (double)skinned[2]);
    }

    oroya_skin_destroy(skin);
    oroya_skeleton_destroy(skeleton);
    oroya_scene_destroy(scene);
    oroya_geometry_destroy(geometry);
    free(joints);
    free(weights);
    free(skinned);
    return 0;
}
