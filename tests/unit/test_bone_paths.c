/* One bone-matrix path and one skinning job: the public entry points must agree.
 *   - oroya_skeleton_update and oroya_gltf_model_bone_matrices give the same bits from the
 *     same scene, and the mixer's bone matrices (pose kernel) agree with them within 1e-6,
 *     on CesiumMan and RiggedFigure (tests/assets) played through a rig-backed mixer;
 *   - on a pose whose world matrices both sides form exactly (translations only), the
 *     mixer's bone matrices equal the skeleton's bit for bit: one formula, not two;
 *   - oroya_skin_job_run (skin.h) and the deprecated oroya_pose_skin_run give the same bits
 *     on CesiumMan's mesh, and the skin job with bind matrices matches a double-precision
 *     transcription of three.js's getVertexPosition. */
#include "oroya/gltf.h"
#include "oroya/mixer.h"
#include "oroya/pose.h"
#include "oroya/rig.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"
#include "oroya_test.h"

#include <stdint.h>
#include <stdlib.h>

static double rel_diff(float a, float b) {
    return fabs((double)a - (double)b) / (1.0 + fabs((double)b));
}

/* Plays clip 0 through a rig-backed mixer for a few frames; at each, compares the three
 * bone-matrix entry points. */
static void check_model(const char *path) {
    oroya_gltf_model *model = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(path, NULL, &model, &err) == OROYA_OK, "%s: %s", path,
                 err.message);
    if (!model)
        return;
    OT_CHECK(model->skin_count > 0 && model->clip_count > 0 && model->skeletons[0]);
    oroya_rig *rig = NULL;
    OT_CHECK_MSG(oroya_rig_create_gltf(model, 0, NULL, &rig, &err) == OROYA_OK, "%s", err.message);
    oroya_mixer *mixer = NULL;
    OT_CHECK(oroya_mixer_create(model->scene, &(oroya_mixer_desc){.rig = rig}, &mixer) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(mixer, model->clips[0], NULL) == OROYA_OK);
    const uint32_t n = model->skins[0].joint_count;
    float *gl = malloc(sizeof(float) * 16 * n);
    oroya_skeleton *sk = model->skeletons[0];
    double worst = 0;
    for (int frame = 0; frame < 40; frame++) {
        OT_EQ_INT(oroya_mixer_update(mixer, 1.0 / 30.0), OROYA_OK);
        uint32_t count = 0;
        const oroya_mat4 *mb = oroya_mixer_bone_matrices(mixer, &count);
        OT_EQ_INT(count, n);
        oroya_scene_update_world(model->scene); /* sees the mixer's pose */
        OT_EQ_INT(oroya_gltf_model_bone_matrices(model, 0, gl), OROYA_OK);
        OT_EQ_INT(oroya_skeleton_update(sk, model->scene, &err), OROYA_OK);
        OT_CHECK_MSG(memcmp(gl, sk->bone_matrices, sizeof(float) * 16 * n) == 0,
                     "%s frame %d: gltf_model_bone_matrices and skeleton_update differ", path,
                     frame);
        for (uint32_t b = 0; b < n; b++) {
            for (int e = 0; e < 16; e++) {
                double d = rel_diff(mb[b].m[e], sk->bone_matrices[b * 16 + (uint32_t)e]);
                worst = d > worst ? d : worst;
            }
        }
    }
    OT_CHECK_MSG(worst <= 1e-6, "%s: mixer bone matrices differ from skeleton_update by %g", path,
                 worst);
    printf("%s: mixer vs skeleton_update, worst relative difference %.3g\n", path, worst);
    free(gl);
    oroya_mixer_destroy(mixer);
    oroya_rig_destroy(rig);
    oroya_gltf_model_free(model);
}

static void test_assets_agree(void) {
    check_model(OROYA_SOURCE_DIR "/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb");
    check_model(OROYA_SOURCE_DIR "/tests/assets/RiggedFigure/glTF-Binary/RiggedFigure.glb");
}

/* 24 top-level bones, each turned, scaled and moved, with rotated and scaled inverse bind
 * matrices. A top-level joint's world matrix is its composed local matrix; where the kernel
 * and the scene hold the same bits for it (most bones; checked), any difference in the bone
 * matrices would come from two different bone-matrix formulas (as when skeleton_update
 * formed them in double: this test then fails). */
static void test_exact_pose_same_bits(void) {
    enum { N = 24 };
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node bones[N], parent = {0}; /* every bone top-level */
    const float steps[5][3] = {
        {0.5f, 1, 0}, {0, 0.25f, 0.125f}, {0.75f, 0.5f, 0}, {0, 1.5f, -0.25f}, {0.125f, 0, 2}};
    char name[8];
    for (int b = 0; b < N; b++) {
        snprintf(name, sizeof name, "b%d", b);
        OT_CHECK(oroya_scene_add_node(scene, name, parent, OROYA_NODE_BONE, &bones[b]) == OROYA_OK);
        oroya_transform t = oroya_transform_identity();
        t.translation = (oroya_vec3){steps[b % 5][0], steps[b % 5][1], steps[b % 5][2]};
        const float f = (float)b;
        t.rotation = oroya_quat_normalize((oroya_quat){0.3f + 0.05f * f, -0.5f, cosf(f), 0.8f});
        t.scale = (oroya_vec3){1.25f, 0.75f + 0.02f * f, 1.5f};
        OT_CHECK(oroya_scene_set_transform(scene, bones[b], &t) == OROYA_OK);
    }
    oroya_mat4 ibm[N];
    for (int b = 0; b < N; b++) {
        const float f = (float)b;
        oroya_quat q = oroya_quat_normalize(
            (oroya_quat){0.3f * f - 0.5f, 0.7f - 0.11f * f, sinf(f) * 0.9f, 1});
        ibm[b] = oroya_mat4_compose((oroya_vec3){0.37f * f - 3.1f, -1.3f * cosf(f), 0.91f + f}, q,
                                    (oroya_vec3){1.1f, 0.9f + 0.01f * f, 1.3f});
    }
    oroya_error err = {0};
    oroya_skeleton *sk = NULL;
    OT_CHECK(oroya_skeleton_create(
                 scene,
                 &(oroya_skeleton_desc){.bones = bones, .bone_count = N, .bone_inverses = ibm}, &sk,
                 &err) == OROYA_OK);
    oroya_rig *rig = NULL;
    OT_CHECK_MSG(oroya_rig_create(
                     &(oroya_rig_desc){
                         .scene = scene, .joints = bones, .joint_count = N, .inverse_bind = ibm},
                     &rig, &err) == OROYA_OK,
                 "%s", err.message);
    oroya_mixer *mixer = NULL;
    OT_CHECK(oroya_mixer_create(scene, &(oroya_mixer_desc){.rig = rig}, &mixer) == OROYA_OK);
    OT_EQ_INT(oroya_mixer_update(mixer, 0.0), OROYA_OK);
    uint32_t count = 0;
    const oroya_mat4 *mb = oroya_mixer_bone_matrices(mixer, &count);
    const oroya_mat4 *mm = oroya_mixer_model_matrices(mixer, NULL);
    OT_EQ_INT(count, N);
    oroya_scene_update_world(scene);
    OT_EQ_INT(oroya_skeleton_update(sk, scene, &err), OROYA_OK);
    const oroya_mat4 *world = oroya_scene_world_matrices(scene);
    uint32_t same_world = 0;
    for (uint32_t b = 0; b < N; b++) {
        /* Only where both sides hold the same world matrix (the scene's compose and the
         * kernel's may round a turned joint's matrix differently). */
        uint32_t d = oroya_scene_node_index(scene, bones[b]);
        uint32_t k = oroya_rig_kernel_joint(rig, b);
        if (memcmp(world[d].m, mm[k].m, sizeof(float) * 16) != 0)
            continue;
        same_world++;
        OT_CHECK_MSG(memcmp(mb[b].m, sk->bone_matrices + b * 16, sizeof(float) * 16) == 0,
                     "bone %u: mixer and skeleton_update bone matrices differ", b);
    }
    OT_CHECK_MSG(same_world >= 8, "only %u of %d bones have the same world matrix", same_world, N);
    oroya_mixer_destroy(mixer);
    oroya_rig_destroy(rig);
    oroya_skeleton_destroy(sk);
    oroya_scene_destroy(scene);
}

/* three.js getVertexPosition in double: bind * v, the weighted bone transforms, then the
 * bind matrix inverse (affine, so no division). */
static void naive_vertex(const float *v, const uint16_t *j, const float *w, const float *pal,
                         const float *bind, const float *bind_inv, double out[3]) {
    double base[4], t[3] = {0, 0, 0};
    for (int r = 0; r < 4; r++) {
        base[r] = bind[r] * (double)v[0] + bind[4 + r] * (double)v[1] + bind[8 + r] * (double)v[2] +
                  bind[12 + r];
    }
    for (int k = 0; k < 4; k++) {
        if (w[k] == 0)
            continue;
        const float *m = pal + 16 * j[k];
        for (int r = 0; r < 3; r++) {
            double e = 0;
            for (int c = 0; c < 4; c++)
                e += m[c * 4 + r] * base[c];
            t[r] += e * w[k];
        }
    }
    for (int r = 0; r < 3; r++) {
        out[r] =
            bind_inv[r] * t[0] + bind_inv[4 + r] * t[1] + bind_inv[8 + r] * t[2] + bind_inv[12 + r];
    }
}

static void test_skin_jobs_agree(void) {
    oroya_gltf_model *model = NULL;
    oroya_error err = {0};
    OT_CHECK(oroya_gltf_load(OROYA_SOURCE_DIR "/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb",
                             NULL, &model, &err) == OROYA_OK);
    if (!model)
        return;
    OT_CHECK(model->skinned_mesh_count > 0);
    oroya_rig *rig = NULL;
    OT_CHECK(oroya_rig_create_gltf(model, 0, NULL, &rig, &err) == OROYA_OK);
    oroya_mixer *mixer = NULL;
    OT_CHECK(oroya_mixer_create(model->scene, &(oroya_mixer_desc){.rig = rig}, &mixer) == OROYA_OK);
    OT_CHECK(oroya_mixer_play(mixer, model->clips[0], NULL) == OROYA_OK);
    OT_EQ_INT(oroya_mixer_update(mixer, 0.7), OROYA_OK);
    uint32_t count = 0;
    const oroya_mat4 *pal = oroya_mixer_bone_matrices(mixer, &count);
    oroya_skin *s = model->skinned_meshes[0];
    const uint32_t nv = s->vertex_count;
    float *a = malloc(sizeof(float) * 3 * nv), *an = malloc(sizeof(float) * 3 * nv);
    float *b = malloc(sizeof(float) * 3 * nv), *bn = malloc(sizeof(float) * 3 * nv);
    oroya_skin_job job = {.count = nv,
                          .positions = s->positions,
                          .normals = s->normals,
                          .joints = s->joints,
                          .weights = s->weights,
                          .palette_count = count,
                          .palette = pal[0].m,
                          .out_positions = a,
                          .out_normals = an};
    if (!s->normals)
        job.out_normals = NULL;
    OT_CHECK_MSG(oroya_skin_job_run(&job, &err) == OROYA_OK, "%s", err.message);
    oroya_pose_skin_job pj = {
        nv, s->positions, s->normals, s->joints, s->weights, count, pal, b, s->normals ? bn : NULL};
    OT_CHECK_MSG(oroya_pose_skin_run(&pj, &err) == OROYA_OK, "%s", err.message);
    OT_CHECK_MSG(memcmp(a, b, sizeof(float) * 3 * nv) == 0,
                 "skin job and pose skin job positions differ");
    if (s->normals) {
        OT_CHECK_MSG(memcmp(an, bn, sizeof(float) * 3 * nv) == 0,
                     "skin job and pose skin job normals differ");
    }
    /* With the skin's bind matrices (oroya_skin_compute's job) against three.js's formula. */
    const float *bind = s->bind_matrix.m, *bind_inv = s->bind_matrix_inverse.m;
    job.bind_matrix = bind;
    job.bind_matrix_inverse = bind_inv;
    OT_CHECK_MSG(oroya_skin_job_run(&job, &err) == OROYA_OK, "%s", err.message);
    double worst = 0;
    for (uint32_t v = 0; v < nv; v++) {
        double ref[3];
        naive_vertex(s->positions + v * 3, s->joints + v * 4, s->weights + v * 4, pal[0].m, bind,
                     bind_inv, ref);
        for (int c = 0; c < 3; c++) {
            double d = fabs(a[v * 3 + (uint32_t)c] - ref[c]) / (1 + fabs(ref[c]));
            worst = d > worst ? d : worst;
        }
    }
    OT_CHECK_MSG(worst <= 2e-6, "skin job with bind matrices vs three.js formula: %g", worst);
    free(a);
    free(an);
    free(b);
    free(bn);
    oroya_mixer_destroy(mixer);
    oroya_rig_destroy(rig);
    oroya_gltf_model_free(model);
}

int main(void) {
    OT_RUN(test_assets_agree);
    OT_RUN(test_exact_pose_same_bits);
    OT_RUN(test_skin_jobs_agree);
    return ot_finish();
}
