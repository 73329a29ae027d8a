/* Masks, root motion and joint limits on mixers whose scene is not their rig's: a mixer with a
 * rig and no scene (a crowd's, oroya_mixer_update_batch) and a mixer on a second scene built
 * like the rig's (a character loaded twice, tracks bound by name). Each is set up through the
 * public API the way its user can (names; the rig's node handles for a mixer with no scene;
 * the mixer's own scene's handles otherwise) and must give, update for update, the bone
 * matrices and root deltas of the same mixer on the rig's own scene. Before, a mixer with no
 * scene refused every mask joint name ("not in the scene"), its root ("not in the scene") and
 * its joint limits, and a mixer on a second scene got each mask's kernel weights by the rig's
 * node handles looked up in its own scene (another joint's weight, or none). */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/rotation.h"
#include "oroya/scene.h"
#include "oroya_test.h"

/* hips -> spine -> chest -> {neck -> head, armL, armR}; hips -> {legL, legR} */
static const char *const JOINTS[] = {"hips", "spine", "chest", "neck", "head",
                                     "armL", "armR",  "legL",  "legR"};
static const int PARENT[] = {-1, 0, 1, 2, 3, 2, 2, 0, 0};
#define NJ 9
enum { HIPS = 0, NECK = 3 };

/* A scene of the joints above. `order` 1 and 2 put an unrelated node ahead of them (dense
 * indices and handles that differ from the rig's scene); 1 also adds them in another order
 * (legs first; siblings reversed, so first children, the default twist axes, differ too). */
static oroya_scene *scene_make(int order, oroya_node nodes[NJ]) {
    oroya_scene *s = NULL;
    OT_CHECK(oroya_scene_create(NULL, &s) == OROYA_OK);
    if (order) {
        oroya_node extra;
        OT_CHECK(oroya_scene_add_node(s, "lamp", (oroya_node){0}, OROYA_NODE_OBJECT, &extra) ==
                 OROYA_OK);
    }
    static const int ORDER[3][NJ] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8}, {0, 8, 7, 1, 2, 6, 5, 3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8}};
    for (int k = 0; k < NJ; k++) {
        const int i = ORDER[order][k];
        oroya_node parent = PARENT[i] < 0 ? (oroya_node){0} : nodes[PARENT[i]];
        OT_CHECK(oroya_scene_add_node(s, JOINTS[i], parent, OROYA_NODE_BONE, &nodes[i]) ==
                 OROYA_OK);
        oroya_transform t;
        oroya_scene_get_transform(s, nodes[i], &t);
        t.translation = (oroya_vec3){0.1f * (float)i, 1.0f, 0.05f * (float)i};
        t.rotation = oroya_quat_normalize((oroya_quat){0.05f * (float)i, 0.1f, 0, 1});
        oroya_scene_set_transform(s, nodes[i], &t);
    }
    return s;
}

/* Rotation and translation keys on every joint: the hips walk forward 1.2 m a second while
 * turning, the others swing. */
static oroya_clip *make_clip(const char *name, double phase) {
    oroya_track tracks[2 * NJ];
    static float times[3] = {0, 0.5f, 1};
    static float rv[2][NJ][12], tv[2][NJ][9];
    const int slot = phase > 0 ? 0 : 1;
    for (int j = 0; j < NJ; j++) {
        for (int k = 0; k < 3; k++) {
            double ang = (phase + 0.3 * j) * (k == 1 ? 1.0 : 0.35) * (k == 2 ? -1.0 : 1.0);
            double ax[3] = {sin(j + phase), cos(2.0 * j), 0.4 + phase};
            double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
            double s = sin(ang / 2) / l;
            float *q = &rv[slot][j][k * 4];
            q[0] = (float)(ax[0] * s), q[1] = (float)(ax[1] * s), q[2] = (float)(ax[2] * s);
            q[3] = (float)cos(ang / 2);
            float *p = &tv[slot][j][k * 3];
            p[0] = (float)(0.1 * j + (j == HIPS ? 0.3 * k * phase : 0.01 * k));
            p[1] = (float)(1.0 + 0.1 * k * phase);
            p[2] = (float)(0.05 * j + (j == HIPS ? 0.6 * k : 0.02 * k));
        }
        tracks[2 * j] = (oroya_track){.target = JOINTS[j],
                                      .property = OROYA_PROPERTY_ROTATION,
                                      .interpolation = OROYA_INTERP_LINEAR,
                                      .times = times,
                                      .values = rv[slot][j],
                                      .key_count = 3,
                                      .components = 4};
        tracks[2 * j + 1] = (oroya_track){.target = JOINTS[j],
                                          .property = OROYA_PROPERTY_TRANSLATION,
                                          .interpolation = OROYA_INTERP_LINEAR,
                                          .times = times,
                                          .values = tv[slot][j],
                                          .key_count = 3,
                                          .components = 3};
    }
    oroya_clip *clip = NULL;
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){
                     .name = name, .duration = 1, .tracks = tracks, .track_count = 2 * NJ},
                 &clip, NULL) == OROYA_OK);
    return clip;
}

typedef struct {
    oroya_mixer *mixer;
    oroya_action *walk, *wave;
    oroya_mask *upper;
} player;

/* walk at 1 and wave at 0.7 masked to the upper body minus the head (neck at 0.5), root
 * motion XZ_YAW on the hips, a 0.3 rad cone on the neck. hips and neck: nodes the mixer takes
 * for the root and the limit. */
static void player_make(player *p, oroya_scene *scene, const oroya_rig *rig, oroya_node hips,
                        oroya_node neck, const oroya_clip *walk, const oroya_clip *wave,
                        oroya_rotation_blend blend) {
    memset(p, 0, sizeof *p);
    oroya_error err = {0};
    OT_CHECK(oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = rig, .rotation_blend = blend},
                                &p->mixer) == OROYA_OK);
    const char *inc[] = {"spine"}, *exc[] = {"head"};
    const oroya_mask_entry w[] = {{"neck", 0.5}};
    OT_CHECK_MSG(oroya_mask_create(p->mixer,
                                   &(oroya_mask_desc){.name = "upper",
                                                      .include = inc,
                                                      .include_count = 1,
                                                      .descendants = true,
                                                      .exclude = exc,
                                                      .exclude_count = 1,
                                                      .weights = w,
                                                      .weight_count = 1},
                                   &p->upper, &err) == OROYA_OK,
                 "scene %p: %s", (void *)scene, err.message);
    OT_CHECK_MSG(oroya_mixer_set_root_motion(p->mixer, hips, OROYA_ROOT_XZ_YAW, &err) == OROYA_OK,
                 "scene %p: %s", (void *)scene, err.message);
    const oroya_joint_limit cone = {
        .twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {0.3f}};
    OT_CHECK_MSG(oroya_mixer_set_joint_limit(p->mixer, neck, &cone, &err) == OROYA_OK,
                 "scene %p: %s", (void *)scene, err.message);
    OT_CHECK(oroya_mixer_play(p->mixer, walk, &p->walk) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(p->mixer, wave, &p->wave) == OROYA_OK);
    oroya_action_set_weight(p->wave, 0.7);
    OT_CHECK(oroya_action_set_mask(p->wave, p->upper) == OROYA_OK);
}

static double bones_diff(const oroya_mixer *a, const oroya_mixer *b) {
    uint32_t na = 0, nb = 0;
    const oroya_mat4 *ma = oroya_mixer_bone_matrices(a, &na);
    const oroya_mat4 *mb = oroya_mixer_bone_matrices(b, &nb);
    OT_EQ_INT(na, nb);
    double worst = 0;
    for (uint32_t i = 0; i < na && i < nb; i++)
        for (int e = 0; e < 16; e++)
            worst = fmax(worst, fabs((double)ma[i].m[e] - (double)mb[i].m[e]));
    return worst;
}

static double motion_diff(oroya_root_motion x, oroya_root_motion y) {
    const float a[7] = {x.translation.x, x.translation.y, x.translation.z, x.rotation.x,
                        x.rotation.y,    x.rotation.z,    x.rotation.w};
    const float b[7] = {y.translation.x, y.translation.y, y.translation.z, y.rotation.x,
                        y.rotation.y,    y.rotation.z,    y.rotation.w};
    double worst = 0;
    for (int i = 0; i < 7; i++)
        worst = fmax(worst, fabs((double)a[i] - (double)b[i]));
    return worst;
}

/* blend: the mixers' rotation blending. STERP blends about each joint's twist axis, by
 * default the direction to its first child: on the second scene, so the same siblings'
 * order (scene 2); without a scene, the rig's. */
static void run(oroya_rotation_blend blend) {
    oroya_node na[NJ], nc[NJ];
    oroya_scene *sa = scene_make(0, na),
                *sc = scene_make(blend == OROYA_ROTATION_BLEND_STERP ? 2 : 1, nc);
    oroya_rig *rig = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_rig_create(&(oroya_rig_desc){.scene = sa, .name = "test"}, &rig, &err) ==
                     OROYA_OK,
                 "%s", err.message);
    oroya_clip *walk = make_clip("walk", 0.9), *wave = make_clip("wave", -0.6);
    player a, b, c;
    player_make(&a, sa, rig, na[HIPS], na[NECK], walk, wave, blend);
    /* No scene: the rig's node handles (oroya_rig_kernel_node; here the same as na), found
     * by name with oroya_rig_find_kernel_joint. */
    const uint32_t kh = oroya_rig_find_kernel_joint(rig, (oroya_node){0}, "hips"),
                   kn = oroya_rig_find_kernel_joint(rig, (oroya_node){0}, "neck");
    OT_CHECK(kh < oroya_rig_kernel_joint_count(rig) && kn < oroya_rig_kernel_joint_count(rig));
    const oroya_node rh = oroya_rig_kernel_node(rig, kh), rn = oroya_rig_kernel_node(rig, kn);
    OT_CHECK(rh.id == na[HIPS].id && rn.id == na[NECK].id);
    /* By node, the node first; neither: UINT32_MAX. */
    OT_EQ_INT(oroya_rig_find_kernel_joint(rig, na[NECK], "hips"), kn);
    OT_EQ_INT(oroya_rig_find_kernel_joint(rig, (oroya_node){0}, "tail"), UINT32_MAX);
    OT_EQ_INT(oroya_rig_find_kernel_joint(rig, (oroya_node){0}, NULL), UINT32_MAX);
    OT_EQ_INT(oroya_rig_find_kernel_joint(NULL, na[NECK], "neck"), UINT32_MAX);
    player_make(&b, NULL, rig, rh, rn, walk, wave, blend);
    player_make(&c, sc, rig, nc[HIPS], nc[NECK], walk, wave, blend);
    OT_CHECK(oroya_mask_weight(b.upper, rn) == 0.5);
    OT_CHECK(oroya_mask_weight(b.upper, rh) == 0.0);
    OT_CHECK(oroya_mask_weight(c.upper, nc[5]) == 1.0); /* armL */
    OT_CHECK(oroya_mask_weight(c.upper, nc[4]) == 0.0); /* head, excluded */
    double worst_b = 0, worst_c = 0, motion_b = 0, motion_c = 0, moved = 0;
    for (int f = 0; f < 120; f++) {
        const double dt = 1.0 / 60 + 0.004 * (f % 3);
        OT_CHECK(oroya_mixer_update(a.mixer, dt) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(b.mixer, dt) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(c.mixer, dt) == OROYA_OK);
        OT_CHECK(oroya_mixer_kernel_active(a.mixer) && oroya_mixer_kernel_active(b.mixer) &&
                 oroya_mixer_kernel_active(c.mixer));
        worst_b = fmax(worst_b, bones_diff(a.mixer, b.mixer));
        worst_c = fmax(worst_c, bones_diff(a.mixer, c.mixer));
        motion_b = fmax(motion_b, motion_diff(oroya_mixer_root_delta(a.mixer),
                                              oroya_mixer_root_delta(b.mixer)));
        motion_c = fmax(motion_c, motion_diff(oroya_mixer_root_delta(a.mixer),
                                              oroya_mixer_root_delta(c.mixer)));
        moved = fmax(moved, fabs((double)oroya_mixer_root_total(a.mixer).translation.z));
    }
    OT_CHECK_MSG(worst_b == 0 && worst_c == 0,
                 "blend %d: bones differ by %g (no scene), %g (second scene)", (int)blend, worst_b,
                 worst_c);
    OT_CHECK_MSG(motion_b == 0 && motion_c == 0,
                 "blend %d: root deltas differ by %g (no scene), %g (second scene)", (int)blend,
                 motion_b, motion_c);
    OT_CHECK_MSG(moved > 1, "the root moved %g", moved); /* root motion was on */

    /* Each setting matters: without the mask, the limit or root motion, the bones differ. */
    OT_CHECK(oroya_action_set_mask(b.wave, NULL) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(a.mixer, 0.01) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(b.mixer, 0.01) == OROYA_OK);
    OT_CHECK(bones_diff(a.mixer, b.mixer) > 1e-3);
    OT_CHECK(oroya_mixer_set_joint_limit(c.mixer, nc[NECK], NULL, NULL) == OROYA_OK);
    OT_CHECK(oroya_mixer_set_root_motion(c.mixer, nc[HIPS], OROYA_ROOT_NONE, NULL) == OROYA_OK);
    OT_CHECK(oroya_mixer_update(c.mixer, 0.01) == OROYA_OK);
    OT_CHECK(bones_diff(a.mixer, c.mixer) > 1e-3);

    /* A node the rig does not hold is refused on a mixer with no scene, naming the call. */
    oroya_node lamp;
    OT_CHECK(oroya_scene_add_node(sa, "lamp", (oroya_node){0}, OROYA_NODE_OBJECT, &lamp) ==
             OROYA_OK);
    OT_CHECK(oroya_mixer_set_root_motion(b.mixer, lamp, OROYA_ROOT_XZ, &err) ==
             OROYA_ERR_STALE_HANDLE);
    OT_CHECK_MSG(strstr(err.message, "root motion") != NULL, "%s", err.message);
    const char *bad[] = {"lamp"};
    oroya_mask *none = NULL;
    OT_CHECK(oroya_mask_create(b.mixer, &(oroya_mask_desc){.include = bad, .include_count = 1},
                               &none, &err) == OROYA_ERR_NOT_FOUND);
    OT_CHECK_MSG(strstr(err.message, "\"lamp\"") != NULL, "%s", err.message);
    OT_CHECK(none == NULL);
    const oroya_joint_limit cone = {
        .twist_axis = {0, 1, 0}, .swing = OROYA_SWING_CONE, .swing_max = {0.3f}};
    OT_CHECK(oroya_mixer_set_joint_limit(b.mixer, lamp, &cone, &err) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(strstr(err.message, "not a node of the rig") != NULL, "%s", err.message);
    const oroya_vec3 axis = {1, 0, 0};
    OT_CHECK(oroya_mixer_set_twist_axis(b.mixer, lamp, &axis) == OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(oroya_mixer_set_twist_axis(b.mixer, rn, &axis) == OROYA_OK);

    oroya_mixer_destroy(a.mixer);
    oroya_mixer_destroy(b.mixer);
    oroya_mixer_destroy(c.mixer);
    oroya_clip_destroy(walk);
    oroya_clip_destroy(wave);
    oroya_rig_destroy(rig);
    oroya_scene_destroy(sa);
    oroya_scene_destroy(sc);
}

/* The property path (the kernel cannot play a clip with two rotation tracks on one joint, so
 * the whole update takes the path of the scene's nodes) on a mixer with no scene: its joint
 * bindings write the kernel's lanes, and root motion's hold and the joint limit must act on
 * those too (they acted on the scene's nodes only: the root walked off in the bones, the
 * neck went past its cone). */
static void test_property_path_without_a_scene(void) {
    oroya_node na[NJ];
    oroya_scene *sa = scene_make(0, na);
    oroya_rig *rig = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_rig_create(&(oroya_rig_desc){.scene = sa, .name = "test"}, &rig, &err) ==
             OROYA_OK);
    oroya_clip *walk = make_clip("walk", 0.9), *wave = make_clip("wave", -0.6);
    /* wave with a second rotation track on the spine (the later one wins in three) */
    oroya_track tracks[2 * NJ + 1];
    memcpy(tracks, wave->tracks, 2 * NJ * sizeof *tracks);
    tracks[2 * NJ] = walk->tracks[2]; /* spine's rotation */
    oroya_clip *twice = NULL;
    OT_CHECK(oroya_clip_create(
                 &(oroya_clip_desc){
                     .name = "twice", .duration = 1, .tracks = tracks, .track_count = 2 * NJ + 1},
                 &twice, NULL) == OROYA_OK);
    player a, b;
    player_make(&a, sa, rig, na[HIPS], na[NECK], walk, twice, OROYA_ROTATION_BLEND_SLERP);
    player_make(&b, NULL, rig, oroya_rig_kernel_node(rig, HIPS), oroya_rig_kernel_node(rig, NECK),
                walk, twice, OROYA_ROTATION_BLEND_SLERP);
    double worst = 0, motion = 0;
    for (int f = 0; f < 90; f++) {
        if (f == 50) { /* paused: the blend no longer changes */
            oroya_action_set_paused(a.walk, true);
            oroya_action_set_paused(a.wave, true);
            oroya_action_set_paused(b.walk, true);
            oroya_action_set_paused(b.wave, true);
        }
        if (f == 60) { /* root motion off: the root's held components go back to the blend */
            OT_CHECK(oroya_mixer_set_root_motion(a.mixer, na[HIPS], OROYA_ROOT_NONE, NULL) ==
                     OROYA_OK);
            OT_CHECK(oroya_mixer_set_root_motion(b.mixer, oroya_rig_kernel_node(rig, HIPS),
                                                 OROYA_ROOT_NONE, NULL) == OROYA_OK);
        }
        OT_CHECK(oroya_mixer_update(a.mixer, 1.0 / 60) == OROYA_OK);
        OT_CHECK(oroya_mixer_update(b.mixer, 1.0 / 60) == OROYA_OK);
        OT_CHECK(!oroya_mixer_kernel_active(a.mixer) && !oroya_mixer_kernel_active(b.mixer));
        worst = fmax(worst, bones_diff(a.mixer, b.mixer));
        motion = fmax(
            motion, motion_diff(oroya_mixer_root_delta(a.mixer), oroya_mixer_root_delta(b.mixer)));
    }
    OT_CHECK_MSG(worst == 0 && motion == 0, "property path: bones differ by %g, root deltas by %g",
                 worst, motion);
    oroya_mixer_destroy(a.mixer);
    oroya_mixer_destroy(b.mixer);
    oroya_clip_destroy(walk);
    oroya_clip_destroy(wave);
    oroya_clip_destroy(twice);
    oroya_rig_destroy(rig);
    oroya_scene_destroy(sa);
}

static void test_same_pose_without_the_rigs_scene(void) {
    run(OROYA_ROTATION_BLEND_SLERP);
    run(OROYA_ROTATION_BLEND_STERP);
}

int main(void) {
    OT_RUN(test_same_pose_without_the_rigs_scene);
    OT_RUN(test_property_path_without_a_scene);
    return ot_finish();
}
