/* Tests of the benchmark's procedural characters (bench/bench_character.h): the default
 * 67-joint humanoid's structure, other joint and vertex counts, the pose layer and glTF export
 * of what it builds. Opt-in: with OROYA_EXTRA_ASSETS=DIR[:DIR...] naming a folder that holds
 * humanoid67.glb / crowd_skin100k.glb (the benchmark data set as files), the built character
 * must equal the file's skeleton, clips and mesh bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_character.h"
#include "oroya/gltf.h"
#include "oroya/pose.h"
#include "oroya_test.h"

#define OUT OROYA_BINARY_DIR "/test_bench_character_out"

static uint32_t find_joint(const bench_character *c, const char *name) {
    for (uint32_t j = 0; j < c->joint_count; j++) {
        if (!strcmp(c->names[j], name)) {
            return j;
        }
    }
    return UINT32_MAX;
}

static double quat_angle_from_identity(oroya_quat q) {
    return 2.0 * acos(fmin(1.0, fabs((double)q.w)));
}

/* World rest matrices from the local rest TRS, for checking the inverse binds. */
static void world_rest(const bench_character *c, oroya_mat4 *world) {
    for (uint32_t j = 0; j < c->joint_count; j++) {
        oroya_mat4 local =
            oroya_mat4_compose(c->rest[j].translation, c->rest[j].rotation, c->rest[j].scale);
        world[j] =
            c->parents[j] == UINT32_MAX ? local : oroya_mat4_mul(world[c->parents[j]], local);
    }
}

static void test_default_structure(void) {
    bench_character c;
    oroya_error err = {0};
    OT_CHECK_MSG(bench_character_create(&(bench_character_desc){.vertex_count = 10000}, &c, &err) ==
                     OROYA_OK,
                 "%s", err.message);
    if (!c.scene) {
        return;
    }
    OT_EQ_INT(c.joint_count, 67);
    /* Names and hierarchy of the data set (docs/performance.md). */
    static const char *const chain[][2] = {{"spine", "hips"},
                                           {"spine3", "spine2"},
                                           {"neck", "spine3"},
                                           {"head", "neck1"},
                                           {"head_end", "head"},
                                           {"jaw", "head"},
                                           {"eye_L", "head"},
                                           {"shoulder_R", "spine3"},
                                           {"upper_arm_twist_R", "upper_arm_R"},
                                           {"lower_arm_R", "upper_arm_R"},
                                           {"lower_arm_twist_L", "lower_arm_L"},
                                           {"hand_L", "lower_arm_L"},
                                           {"thumb1_L", "hand_L"},
                                           {"pinky3_R", "pinky2_R"},
                                           {"prop_R", "hand_R"},
                                           {"upper_leg_L", "hips"},
                                           {"upper_leg_twist_R", "upper_leg_R"},
                                           {"lower_leg_R", "upper_leg_R"},
                                           {"foot_L", "lower_leg_L"},
                                           {"toe_end_R", "toe_R"}};
    for (size_t i = 0; i < sizeof chain / sizeof chain[0]; i++) {
        uint32_t j = find_joint(&c, chain[i][0]), p = find_joint(&c, chain[i][1]);
        OT_CHECK_MSG(j != UINT32_MAX && p != UINT32_MAX && c.parents[j] == p, "%s -> %s",
                     chain[i][0], chain[i][1]);
    }
    OT_EQ_INT(find_joint(&c, "hips"), 0);
    OT_EQ_INT(c.parents[0], UINT32_MAX);
    OT_EQ_INT(find_joint(&c, "prop_L"), UINT32_MAX);
    for (uint32_t j = 1; j < c.joint_count; j++) {
        OT_CHECK(c.parents[j] < j);
    }
    /* T-pose rest with real rotations: every joint's +Y points along its bone, so most local
     * rest rotations are far from the identity, and inverse_bind * world_rest = identity. */
    int rotated = 0;
    for (uint32_t j = 0; j < c.joint_count; j++) {
        rotated += quat_angle_from_identity(c.rest[j].rotation) > 0.1;
    }
    OT_CHECK_MSG(rotated >= 10, "%d joints with a rest rotation above 0.1 rad", rotated);
    OT_NEAR(c.rest[0].translation.y, 0.95, 1e-6); /* hips height */
    oroya_mat4 *world = malloc(c.joint_count * sizeof *world);
    double worst = 0;
    if (world) {
        world_rest(&c, world);
    }
    for (uint32_t j = 0; world && j < c.joint_count; j++) {
        oroya_mat4 id = oroya_mat4_mul(c.inverse_bind[j], world[j]);
        for (int k = 0; k < 16; k++) {
            double e = fabs((double)id.m[k] - (k % 5 == 0 ? 1.0 : 0.0));
            worst = e > worst ? e : worst;
        }
    }
    OT_CHECK_MSG(worst < 1e-5, "inverse bind * world rest is off identity by %g", worst);
    /* The left hand is at +X in the T-pose, the right at -X. */
    uint32_t hl = find_joint(&c, "hand_L"), hr = find_joint(&c, "hand_R");
    if (world && hl != UINT32_MAX && hr != UINT32_MAX) {
        OT_NEAR(world[hl].m[12], 0.72, 1e-5);
        OT_NEAR(world[hr].m[12], -0.72, 1e-5);
        OT_NEAR(world[hl].m[13], 1.447, 1e-5);
    }
    free(world);

    /* Clips: name, duration, keys at k/30 s, track layout. */
    static const struct {
        const char *name;
        float duration;
        uint32_t keys, tracks;
        oroya_interpolation rot;
    } clips[4] = {{"walk", 1.2f, 37, 68, OROYA_INTERP_LINEAR},
                  {"run", 0.7f, 22, 68, OROYA_INTERP_LINEAR},
                  {"wave", 2.0f, 61, 6, OROYA_INTERP_LINEAR},
                  {"walk_cubic", 1.2f, 37, 68, OROYA_INTERP_CUBICSPLINE}};
    for (int i = 0; i < 4; i++) {
        const oroya_clip *clip = bench_character_clip(&c, clips[i].name);
        OT_CHECK_MSG(clip != NULL, "clip %s", clips[i].name);
        if (!clip) {
            continue;
        }
        OT_CHECK(clip->duration == clips[i].duration);
        OT_EQ_INT(clip->track_count, clips[i].tracks);
        for (uint32_t t = 0; t < clip->track_count; t++) {
            const oroya_track *tr = &clip->tracks[t];
            OT_EQ_INT(tr->key_count, clips[i].keys);
            for (uint32_t k = 0; k < tr->key_count; k++) {
                OT_CHECK(tr->times[k] == (float)(k / 30.0));
            }
            const uint32_t stride =
                tr->components * (tr->interpolation == OROYA_INTERP_CUBICSPLINE ? 3 : 1);
            /* Looping: the last key is the first, bit for bit. */
            OT_CHECK(!memcmp(tr->values, tr->values + (tr->key_count - 1) * stride,
                             stride * sizeof(float)));
            if (tr->property == OROYA_PROPERTY_ROTATION) {
                OT_EQ_INT(tr->interpolation, clips[i].rot);
            } else {
                OT_EQ_INT(tr->property, OROYA_PROPERTY_TRANSLATION);
                OT_CHECK(!strcmp(tr->target, "hips"));
            }
        }
    }
    const oroya_clip *wave = bench_character_clip(&c, "wave");
    static const char *const arm[6] = {"shoulder_R",  "upper_arm_R",       "upper_arm_twist_R",
                                       "lower_arm_R", "lower_arm_twist_R", "hand_R"};
    for (int i = 0; wave && i < 6; i++) {
        OT_CHECK_MSG(!strcmp(wave->tracks[i].target, arm[i]), "wave track %d: %s", i,
                     wave->tracks[i].target);
    }

    /* Body: about 10,000 vertices, 4 non-zero weights that sum to exactly 1. */
    OT_CHECK_MSG(c.vertex_count > 9500 && c.vertex_count < 10500, "%u vertices", c.vertex_count);
    OT_CHECK(c.geometry && c.skin && c.skin->skeleton == c.skeleton);
    int bad = 0;
    for (uint32_t v = 0; v < c.vertex_count; v++) {
        const float *w = c.weights + v * 4;
        bad += !(w[0] > 0 && w[1] > 0 && w[2] > 0 && w[3] > 0) || w[0] + w[1] + w[2] + w[3] != 1;
        for (uint32_t k = 0; k < 4; k++) {
            bad += c.joints[v * 4 + k] >= c.joint_count;
        }
    }
    OT_EQ_INT(bad, 0);
    /* The scene is the glTF importer's kind: bones and a skinned body. */
    oroya_node_kind kind;
    OT_CHECK(oroya_scene_node_kind(c.scene, c.nodes[0], &kind) == OROYA_OK &&
             kind == OROYA_NODE_BONE);
    OT_CHECK(oroya_scene_node_kind(c.scene, c.nodes[67], &kind) == OROYA_OK &&
             kind == OROYA_NODE_SKINNED_MESH);
    OT_CHECK(oroya_scene_get_skin(c.scene, c.nodes[67]) == c.skin);
    bench_character_free(&c);
}

/* The walk at t = 0.3 s through the pose layer, against three.js's model-space positions of
 * the same character (hand-copied, 5 significant digits). */
static void test_walk_matches_three(void) {
    bench_character c;
    oroya_error err = {0};
    OT_CHECK_MSG(bench_character_create(NULL, &c, &err) == OROYA_OK, "%s", err.message);
    if (!c.pose_skeleton) {
        return;
    }
    oroya_pose_clip *pc = NULL;
    oroya_pose_character *ch = NULL;
    OT_CHECK(
        oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = c.pose_skeleton,
                                                       .clip = bench_character_clip(&c, "walk")},
                               &pc, &err) == OROYA_OK);
    OT_CHECK(oroya_pose_character_create(&(oroya_pose_character_desc){.skeleton = c.pose_skeleton},
                                         &ch, &err) == OROYA_OK);
    if (pc && ch) {
        OT_EQ_INT(oroya_pose_clip_ignored_tracks(pc), 0);
        oroya_pose_layer l = {pc, 9.0f / 30.0f, 1};
        OT_CHECK(oroya_pose_character_update(ch, &l, 1, &err) == OROYA_OK);
        const struct {
            const char *name;
            float x, y, z;
        } expect[] = {{"hips", 0.025f, 0.93f, -0.00479f},
                      {"foot_L", 0.17929f, 0.13136f, 0.17561f},
                      {"foot_R", -0.09431f, 0.14905f, -0.34865f}};
        const oroya_mat4 *m = oroya_pose_character_models(ch);
        for (int i = 0; i < 3; i++) {
            uint32_t j = find_joint(&c, expect[i].name);
            OT_CHECK(j != UINT32_MAX);
            if (j != UINT32_MAX) {
                OT_NEAR(m[j].m[12], expect[i].x, 1e-5);
                OT_NEAR(m[j].m[13], expect[i].y, 1e-5);
                OT_NEAR(m[j].m[14], expect[i].z, 1e-5);
            }
        }
    }
    oroya_pose_character_destroy(ch);
    oroya_pose_clip_destroy(pc);
    bench_character_free(&c);
}

/* Any joint count: a valid skeleton whose clips bind every track, and a body near the
 * asked vertex count whose influences are in range. */
static void test_joint_and_vertex_counts(void) {
    static const uint32_t joints[] = {1, 2, 16, 40, 66, 68, 100, 256, 1024, 4096};
    for (size_t i = 0; i < sizeof joints / sizeof joints[0]; i++) {
        bench_character c;
        oroya_error err = {0};
        /* Each capsule has at least 20 vertices; 4096 joints go without a body. */
        const uint32_t target = joints[i] >= 4096 ? 0 : joints[i] >= 100 ? 40 * joints[i] : 3000;
        OT_CHECK_MSG(bench_character_create(
                         &(bench_character_desc){.joint_count = joints[i], .vertex_count = target},
                         &c, &err) == OROYA_OK,
                     "%u joints: %s", joints[i], err.message);
        if (!c.scene) {
            continue;
        }
        OT_EQ_INT(c.joint_count, joints[i]);
        OT_EQ_INT(oroya_pose_skeleton_joint_count(c.pose_skeleton), joints[i]);
        int order = 0, twice = 0;
        for (uint32_t j = 1; j < c.joint_count; j++) {
            order += c.parents[j] >= j;
            for (uint32_t k = 0; k < j; k++) {
                twice += strcmp(c.names[j], c.names[k]) == 0;
            }
        }
        OT_CHECK_MSG(order == 0 && twice == 0,
                     "%u joints: %d parents after children, %d names twice", joints[i], order,
                     twice);
        for (int k = 0; k < BENCH_CHARACTER_CLIPS; k++) {
            oroya_pose_clip *pc = NULL;
            OT_CHECK_MSG(oroya_pose_clip_create(&(oroya_pose_clip_desc){.skeleton = c.pose_skeleton,
                                                                        .clip = c.clips[k],
                                                                        .additive = k == 2},
                                                &pc, &err) == OROYA_OK,
                         "%u joints, clip %d: %s", joints[i], k, err.message);
            OT_CHECK(c.clips[k]->track_count > 0);
            if (pc) {
                OT_EQ_INT(oroya_pose_clip_ignored_tracks(pc), 0);
            }
            oroya_pose_clip_destroy(pc);
        }
        /* Walk animates every joint (plus the hips translation). */
        OT_EQ_INT(c.clips[0]->track_count, joints[i] + 1);
        OT_CHECK_MSG(fabs((double)c.vertex_count - target) <= 0.1 * target,
                     "%u joints: %u vertices", joints[i], c.vertex_count);
        OT_CHECK(target ? c.skin != NULL : c.skin == NULL && c.geometry == NULL);
        int bad = 0;
        for (uint32_t v = 0; v < c.vertex_count; v++) {
            float sum = 0;
            for (uint32_t k = 0; k < 4; k++) {
                bad += c.joints[v * 4 + k] >= c.joint_count;
                sum += c.weights[v * 4 + k];
            }
            bad += sum != 1;
        }
        OT_CHECK_MSG(bad == 0, "%u joints: %d bad influences", joints[i], bad);
        bench_character_free(&c);
    }
    /* Bad counts are refused with a message. */
    bench_character c;
    oroya_error err = {0};
    OT_EQ_INT(bench_character_create(&(bench_character_desc){.joint_count = 4097}, &c, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "joint_count") != NULL);
    OT_EQ_INT(bench_character_create(&(bench_character_desc){.vertex_count = 9000000}, &c, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(bench_character_create(NULL, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    /* Deterministic. */
    bench_character a, b;
    OT_CHECK(
        bench_character_create(&(bench_character_desc){.joint_count = 100, .vertex_count = 2000},
                               &a, &err) == OROYA_OK);
    OT_CHECK(
        bench_character_create(&(bench_character_desc){.joint_count = 100, .vertex_count = 2000},
                               &b, &err) == OROYA_OK);
    if (a.scene && b.scene) {
        OT_EQ_INT(a.vertex_count, b.vertex_count);
        OT_CHECK(!memcmp(a.positions, b.positions, a.vertex_count * 3 * sizeof(float)));
        OT_CHECK(!memcmp(a.weights, b.weights, a.vertex_count * 4 * sizeof(float)));
        OT_CHECK(!memcmp(a.rest, b.rest, a.joint_count * sizeof *a.rest));
    }
    bench_character_free(&a);
    bench_character_free(&b);
}

/* A glTF model loaded from a file must equal the character bit for bit. */
static void compare_with_model(const bench_character *c, const oroya_gltf_model *m,
                               const char *path) {
    OT_CHECK_MSG(m->skin_count == 1 && m->skins[0].joint_count == c->joint_count, "%s: skin joints",
                 path);
    if (m->skin_count != 1 || m->skins[0].joint_count != c->joint_count) {
        return;
    }
    const oroya_gltf_model_skin *sk = &m->skins[0];
    int bad = 0;
    for (uint32_t j = 0; j < c->joint_count; j++) {
        oroya_transform t;
        oroya_node parent = {0};
        oroya_scene_get_transform(m->scene, sk->joints[j], &t);
        oroya_scene_get_parent(m->scene, sk->joints[j], &parent);
        const uint32_t want = c->parents[j];
        bad += strcmp(m->node_names[sk->joint_gltf_nodes[j]], c->names[j]) != 0;
        bad += want == UINT32_MAX ? parent.id != 0 : parent.id != sk->joints[want].id;
        bad += memcmp(&t, &c->rest[j], sizeof t) != 0;
        bad += memcmp(&sk->inverse_bind_matrices[j], &c->inverse_bind[j], sizeof(oroya_mat4));
    }
    OT_CHECK_MSG(bad == 0, "%s: %d joint differences", path, bad);
    for (int i = 0; i < BENCH_CHARACTER_CLIPS; i++) {
        const oroya_clip *a = c->clips[i];
        const oroya_clip *b = oroya_gltf_model_find_clip(m, a->name);
        OT_CHECK_MSG(b && b->track_count == a->track_count, "%s: clip %s", path, a->name);
        if (!b || b->track_count != a->track_count) {
            continue;
        }
        int diff = 0;
        for (uint32_t t = 0; t < a->track_count; t++) {
            const oroya_track *x = &a->tracks[t], *y = &b->tracks[t];
            const uint32_t n = x->key_count * x->components *
                               (x->interpolation == OROYA_INTERP_CUBICSPLINE ? 3 : 1);
            if (strcmp(x->target, y->target) || x->property != y->property ||
                x->interpolation != y->interpolation || x->key_count != y->key_count ||
                memcmp(x->times, y->times, x->key_count * sizeof(float)) ||
                memcmp(x->values, y->values, n * sizeof(float))) {
                diff++;
            }
        }
        OT_CHECK_MSG(diff == 0, "%s: clip %s: %d tracks differ", path, a->name, diff);
    }
    OT_CHECK_MSG(m->skinned_mesh_count == 1, "%s: skinned meshes", path);
    if (m->skinned_mesh_count == 1) {
        const oroya_skin *s = m->skinned_meshes[0];
        OT_EQ_INT(s->vertex_count, c->vertex_count);
        if (s->vertex_count == c->vertex_count) {
            const size_t n = c->vertex_count;
            OT_CHECK_MSG(!memcmp(s->positions, c->positions, n * 3 * sizeof(float)),
                         "%s: positions", path);
            OT_CHECK_MSG(!memcmp(s->normals, c->normals, n * 3 * sizeof(float)), "%s: normals",
                         path);
            OT_CHECK_MSG(!memcmp(s->joints, c->joints, n * 4 * sizeof(uint16_t)), "%s: joints",
                         path);
            OT_CHECK_MSG(!memcmp(s->weights, c->weights, n * 4 * sizeof(float)), "%s: weights",
                         path);
        }
    }
}

/* oroya_gltf_write writes the character; loading the file gives it back. */
static void test_export_round_trip(void) {
    bench_character c;
    oroya_error err = {0};
    OT_CHECK(bench_character_create(&(bench_character_desc){.vertex_count = 3000}, &c, &err) ==
             OROYA_OK);
    if (!c.scene) {
        return;
    }
    mkdir(OUT, 0755);
    const oroya_clip *clips[BENCH_CHARACTER_CLIPS];
    for (int i = 0; i < BENCH_CHARACTER_CLIPS; i++) {
        clips[i] = c.clips[i];
    }
    const char *path = OUT "/humanoid67_3k.glb";
    OT_CHECK_MSG(oroya_gltf_write(c.scene,
                                  &(oroya_gltf_write_desc){.binary = true,
                                                           .clips = clips,
                                                           .clip_count = BENCH_CHARACTER_CLIPS},
                                  path, &err) == OROYA_OK,
                 "%s", err.message);
    oroya_gltf_model *m = NULL;
    OT_CHECK_MSG(oroya_gltf_load(path, NULL, &m, &err) == OROYA_OK, "%s", err.message);
    if (m) {
        compare_with_model(&c, m, path);
    }
    oroya_gltf_model_free(m);
    bench_character_free(&c);
}

typedef struct counter {
    long allocs, frees, fail_at;
} counter;
static void *count_alloc(size_t size, size_t align, void *user) {
    counter *c = user;
    if (++c->allocs == c->fail_at) {
        return NULL;
    }
    size_t rounded = (size + align - 1) & ~(align - 1);
    return aligned_alloc(align, rounded ? rounded : align);
}
static void count_free(void *p, void *user) {
    ((counter *)user)->frees += p != NULL;
    free(p);
}

/* Every allocation failure is reported as OUT_OF_MEMORY, and nothing leaks. */
static void test_allocation_failures(void) {
    long n = 1;
    for (; n < 400; n++) {
        counter cnt = {0, 0, n};
        bench_character c;
        oroya_error err = {0};
        oroya_result r = bench_character_create(
            &(bench_character_desc){.joint_count = 20,
                                    .vertex_count = 500,
                                    .allocator = {count_alloc, count_free, &cnt}},
            &c, &err);
        if (r == OROYA_OK) {
            OT_CHECK(cnt.allocs < n);
            bench_character_free(&c);
            OT_EQ_INT(cnt.allocs, cnt.frees);
            break;
        }
        OT_CHECK_MSG(r == OROYA_ERR_OUT_OF_MEMORY && err.result == r, "failure %ld: %d %s", n,
                     (int)r, err.message);
        OT_EQ_INT(cnt.allocs - 1, cnt.frees);
        OT_CHECK(c.scene == NULL && c.pose_skeleton == NULL);
    }
    OT_CHECK_MSG(n > 20 && n < 400, "%ld allocations", n);
}

/* Opt-in: the benchmark data set as files. */
static void test_extra_assets(void) {
    const char *extra = getenv("OROYA_EXTRA_ASSETS");
    int found = 0;
    while (extra && *extra) {
        const char *end = strchr(extra, ':');
        const int len = end ? (int)(end - extra) : (int)strlen(extra);
        static const struct {
            const char *file;
            uint32_t vertices;
        } sets[2] = {{"humanoid67.glb", 10000}, {"crowd_skin100k.glb", 100000}};
        for (int i = 0; i < 2; i++) {
            char path[1024];
            snprintf(path, sizeof path, "%.*s/%s", len, extra, sets[i].file);
            struct stat st;
            if (stat(path, &st) != 0) {
                continue;
            }
            found++;
            bench_character c;
            oroya_error err = {0};
            oroya_gltf_model *m = NULL;
            OT_CHECK(
                bench_character_create(&(bench_character_desc){.vertex_count = sets[i].vertices},
                                       &c, &err) == OROYA_OK);
            OT_CHECK_MSG(oroya_gltf_load(path, &(oroya_gltf_import_desc){.skip_images = true}, &m,
                                         &err) == OROYA_OK,
                         "%s", err.message);
            if (m && c.scene) {
                compare_with_model(&c, m, path);
            }
            oroya_gltf_model_free(m);
            bench_character_free(&c);
        }
        extra = end ? end + 1 : extra + len;
    }
    if (found) {
        printf("OROYA_EXTRA_ASSETS: compared %d benchmark files\n", found);
    }
}

int main(void) {
    OT_RUN(test_default_structure);
    OT_RUN(test_walk_matches_three);
    OT_RUN(test_joint_and_vertex_counts);
    OT_RUN(test_export_round_trip);
    OT_RUN(test_allocation_failures);
    OT_RUN(test_extra_assets);
    return ot_finish();
}
