/* The small rig the IK tests share (test_ik_mixer.c, test_ik_hardening.c):
 * hips(0) -> thigh(1) -> shin(2) -> foot(3) -> toe(4); hips -> spine(5) -> neck(6) -> head(7),
 * every joint slightly turned. Include after oroya_test.h. */
#ifndef OROYA_IK_TEST_RIG_H
#define OROYA_IK_TEST_RIG_H

#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/scene.h"

#include <string.h>

#define J 8
static const uint32_t parents[J] = {UINT32_MAX, 0, 1, 2, 3, 0, 5, 6};
static const char *const names[J] = {"hips", "thigh", "shin", "foot",
                                     "toe",  "spine", "neck", "head"};
static const oroya_vec3 offsets[J] = {{0.1f, 1, 0.2f},     {0.1f, -0.05f, 0},  {0, -0.45f, 0.02f},
                                      {0, -0.42f, -0.03f}, {0, -0.05f, 0.12f}, {0, 0.2f, 0},
                                      {0, 0.35f, 0.02f},   {0, 0.12f, 0.01f}};

static inline void rest_pose(oroya_transform *t) {
    for (int i = 0; i < J; i++) {
        t[i] = oroya_transform_identity();
        t[i].translation = offsets[i];
        t[i].rotation = oroya_quat_normalize((oroya_quat){0.05f * (float)i, 0.03f, -0.02f, 1});
    }
}

/* The rig as a scene, at rest_in (NULL: rest_pose), world matrices updated. */
static inline oroya_scene *make_scene(const oroya_transform *rest_in) {
    oroya_transform rest[J];
    rest_pose(rest);
    if (rest_in) {
        memcpy(rest, rest_in, sizeof rest);
    }
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node nodes[J];
    for (int i = 0; i < J; i++) {
        oroya_node parent = parents[i] == UINT32_MAX ? (oroya_node){0} : nodes[parents[i]];
        OT_CHECK(oroya_scene_add_node(scene, names[i], parent, OROYA_NODE_BONE, &nodes[i]) ==
                 OROYA_OK);
        oroya_scene_set_transform(scene, nodes[i], &rest[i]);
    }
    oroya_scene_update_world(scene);
    return scene;
}

/* A scene at rest, its rig and a rig-backed mixer playing clip (its action in *action when not
 * NULL). */
typedef struct {
    oroya_scene *scene;
    oroya_rig *rig;
    oroya_mixer *mixer;
} rig_mixer;

static inline void rig_mixer_make(rig_mixer *w, const oroya_clip *clip, oroya_action **action) {
    w->scene = make_scene(NULL);
    w->rig = NULL, w->mixer = NULL;
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = w->scene}, &w->rig, NULL) == OROYA_OK);
    OT_CHECK(oroya_mixer_create(w->scene, &(oroya_mixer_desc){.rig = w->rig}, &w->mixer) ==
             OROYA_OK);
    OT_CHECK(oroya_mixer_play(w->mixer, clip, action) == OROYA_OK);
}

static inline void rig_mixer_free(rig_mixer *w) {
    oroya_mixer_destroy(w->mixer);
    oroya_rig_destroy(w->rig);
    oroya_scene_destroy(w->scene);
}

#endif
