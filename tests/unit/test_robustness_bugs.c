/* Bugs the robustness work found in other modules, one test each (docs/robustness.md,
 * "Bugs found"). Each test failed before its fix landed and stays as a regression test. */
#include "oroya/clip.h"
#include "oroya/gltf.h"
#include "oroya/json.h"
#include "oroya/mixer.h"
#include "oroya/scene.h"
#include "oroya_test.h"
#include "test_robustness_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASSETS OROYA_SOURCE_DIR "/tests/assets/"

/* BUG (src/io/gltf_buffers.c, resolve_path): oroya_gltf_desc.base_dir is documented as "the
 * directory that external URIs are relative to", but resolve_path concatenates base_dir and
 * the URI with no separator, so base_dir "dir" and uri "a.bin" open "dira.bin". Only a
 * base_dir ending in '/' works; oroya_gltf_parse_file always passes one, so only
 * oroya_gltf_parse callers see it. */
static void test_bug_base_dir_without_trailing_slash(void) {
    static const char json[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                               "\"uri\":\"RiggedSimple0.bin\"}]}";
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    oroya_result r = oroya_gltf_parse(&(oroya_gltf_desc){.base_dir = ASSETS "RiggedSimple/glTF"},
                                      json, strlen(json), &g, &err);
    OT_EQ_INT(r, OROYA_OK);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(g, &err);
        OT_CHECK_MSG(r == OROYA_OK, "KNOWN BUG base_dir without '/': %s", err.message);
    }
    oroya_gltf_free(g);
}

/* Node "n" moving from 0 to x = 1 over a second (the keys are static: a track borrows them). */
static oroya_track one_second_track(void) {
    static const float times[2] = {0, 1}, values[6] = {0, 0, 0, 1, 0, 0};
    oroya_track t;
    memset(&t, 0, sizeof t);
    t.target = "n";
    t.property = OROYA_PROPERTY_TRANSLATION;
    t.interpolation = OROYA_INTERP_LINEAR;
    t.components = 3;
    t.key_count = 2;
    t.times = times;
    t.values = values;
    return t;
}

/* BUG (src/anim/mixer.c, oroya_mixer_update and update_time): the dt check (valid_dt) looks at dt
 * alone, so a finite dt whose product with the mixer's time scale overflows (or a sum of
 * finite dts that overflows the accumulated time) is accepted: mixer time becomes +inf, and
 * the action's time inf - duration * floor(inf / duration) = NaN, silently and for good
 * (every later update keeps the NaN; the pose shows the clip's last key). mixer.h promises
 * deviation 1 (a non-finite dt is rejected and changes nothing) and the project rule is "no
 * silent NaN". Expected: INVALID_ARGUMENT (nothing changed), or a clamped finite time. */
static void test_bug_mixer_time_overflow(void) {
    const oroya_track t = one_second_track();
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    oroya_scene *scene = NULL;
    oroya_node n = {0};
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    OT_EQ_INT(oroya_scene_add_node(scene, "n", (oroya_node){0}, OROYA_NODE_OBJECT, &n), OROYA_OK);
    for (int how = 0; how < 2; how++) {
        oroya_mixer *m = NULL;
        oroya_action *a = NULL;
        OT_EQ_INT(oroya_mixer_create(scene, NULL, &m), OROYA_OK);
        OT_EQ_INT(oroya_mixer_play(m, clip, &a), OROYA_OK);
        oroya_result r1 = OROYA_OK, r2 = OROYA_OK;
        if (how == 0) {
            OT_EQ_INT(oroya_mixer_set_time_scale(m, 1e300), OROYA_OK);
            r1 = oroya_mixer_update(m, 1e10); /* 1e310: +inf */
        } else {
            r1 = oroya_mixer_update(m, 1e308);
            r2 = oroya_mixer_update(m, 1e308); /* 2e308: +inf */
        }
        double mt = oroya_mixer_time(m), at = oroya_action_time(a);
        OT_CHECK_MSG((r1 != OROYA_OK || r2 != OROYA_OK) || (isfinite(mt) && isfinite(at)),
                     "KNOWN BUG mixer time overflow (%s): accepted, mixer time %g, action time "
                     "%g",
                     how == 0 ? "dt 1e10 x time scale 1e300" : "1e308 + 1e308", mt, at);
        oroya_mixer_destroy(m);
    }
    oroya_scene_destroy(scene);
    oroya_clip_destroy(clip);
}

/* BUG (src/anim/mixer.c, check_step and update_time; found by a stateful API fuzz): the
 * overflow check above let through steps whose loop wrap, t - d * floor(t / d), overflows
 * (a dt of DBL_MAX on a 7.8 s clip gave the action time -inf), times set far out (an action
 * time of -1e308 on a 0.5 s clip became +inf at the next update), a duration whose time scale
 * is inf (set_duration(4.9e-324) took it), and a warp that raises the time scale within the
 * update (the check used the last frame's). Each left the action time non-finite with OK and
 * refused every later update. Expected: each refused, nothing changed, the mixer still
 * usable. */
static void test_bug_action_time_loop_overflow(void) {
    const oroya_track t = one_second_track();
    oroya_clip *clip = NULL;
    oroya_scene *scene = NULL;
    oroya_node n = {0};
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.tracks = &t, .track_count = 1}, &clip, NULL),
              OROYA_OK);
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    OT_EQ_INT(oroya_scene_add_node(scene, "n", (oroya_node){0}, OROYA_NODE_OBJECT, &n), OROYA_OK);
    for (int how = 0; how < 4; how++) {
        oroya_mixer *m = NULL;
        oroya_action *a = NULL;
        OT_EQ_INT(oroya_mixer_create(scene, NULL, &m), OROYA_OK);
        OT_EQ_INT(oroya_mixer_play(m, clip, &a), OROYA_OK);
        OT_EQ_INT(oroya_mixer_update(m, 0.25), OROYA_OK);
        oroya_result r = OROYA_OK;
        if (how == 0) {
            r = oroya_mixer_update(m, DBL_MAX);
        } else if (how == 1) {
            r = oroya_action_set_time(a, -1e308);
            if (r == OROYA_OK)
                r = oroya_mixer_update(m, 0.25);
        } else if (how == 2) {
            r = oroya_action_set_duration(a, 4.9e-324);
            if (r == OROYA_OK)
                r = oroya_mixer_update(m, 0.25);
        } else {
            /* Near the largest time the loop arithmetic takes, a warp to 3e38 over 1 s and
             * one update past its end: 4.6e269 x 3e38 = 1.4e308 more. */
            OT_EQ_INT(oroya_action_set_time(a, 4.4e307), OROYA_OK);
            OT_EQ_INT(oroya_action_warp(a, 1, 3e38, 1), OROYA_OK);
            r = oroya_mixer_update(m, 4.6e269);
        }
        OT_CHECK_MSG(r == OROYA_ERR_INVALID_ARGUMENT,
                     "KNOWN BUG loop overflow (case %d): %s, "
                     "action time %g",
                     how, oroya_result_string(r), oroya_action_time(a));
        OT_CHECK(isfinite(oroya_action_time(a)) && isfinite(oroya_action_time_scale(a)));
        if (how == 3) {
            OT_EQ_INT(oroya_action_warp(a, 1, 1, 0), OROYA_OK);
            OT_EQ_INT(oroya_action_set_time(a, 0.25), OROYA_OK);
        }
        OT_EQ_INT(oroya_mixer_update(m, 0.25), OROYA_OK); /* still usable */
        OT_CHECK(isfinite(oroya_action_time(a)));
        oroya_mixer_destroy(m);
    }
    oroya_scene_destroy(scene);
    oroya_clip_destroy(clip);
}

/* BUG (src/io/io_file.c, oroya__json_text_check): a raw NUL byte was refused, but the JSON
 * escape \u0000 was not: cJSON writes a NUL into the string and every C string use cuts it
 * there, so a buffer URI "inside.bin\u0000../../x" named "inside.bin" and a node "a\u0000b"
 * became "a", silently. Expected: OROYA_ERR_PARSE naming the escape and its byte; an escaped
 * backslash followed by the text u0000 ("a\\u0000") is an ordinary name. */
static void test_bug_escaped_nul_cuts_strings(void) {
    static const char *const bad[] = {
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
        "\"RiggedSimple0.bin\\u0000../x\"}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\\u0000b\"}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\\\\\\u0000\"}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        oroya_gltf_data *g = NULL;
        oroya_error err = {0};
        oroya_result r =
            oroya_gltf_parse(&(oroya_gltf_desc){.base_dir = ASSETS "RiggedSimple/glTF/"}, bad[i],
                             strlen(bad[i]), &g, &err);
        OT_CHECK_MSG(r == OROYA_ERR_PARSE && strstr(err.message, "escaped NUL"),
                     "KNOWN BUG \\u0000 accepted (file %zu): %s, %s", i, oroya_result_string(r),
                     err.message);
        oroya_gltf_free(g);
        size_t n = 0;
        OT_EQ_INT(oroya_json_text_check(bad[i], strlen(bad[i]), &n, &err), OROYA_ERR_PARSE);
    }
    static const char ok[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"a\\\\u0000\"}]}";
    oroya_gltf_data *g = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_gltf_parse(NULL, ok, strlen(ok), &g, &err), OROYA_OK);
    if (g) {
        OT_CHECK_MSG(g->node_count == 1 && !strcmp(g->nodes[0].name, "a\\u0000"), "%s",
                     g->node_count ? g->nodes[0].name : "(no node)");
    }
    oroya_gltf_free(g);
}

/* BUG (src/io/gltf_import.c, oroya_gltf_model_bone_matrices): world matrices are kept finite,
 * but jointWorld x inverseBindMatrix can still leave the float range (a joint scale of 1e20
 * times an inverse bind scale of 1e30): the call returned OK with inf in the output, and
 * `oroya sample` printed it as null, exit 0. Expected: NON_FINITE (the matrices still
 * written, so the caller can name the joint). */
static void test_bug_bone_matrix_overflow(void) {
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"skin\":0,\"mesh\":0},{\"scale\":[1e+20,"
        "1e+20,1e+20]}],\"skins\":[{\"joints\":[1],\"inverseBindMatrices\":0}],\"meshes\":[{\"p"
        "rimitives\":[{\"attributes\":{\"POSITION\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3}}]}],\"acc"
        "essors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"MAT4\"},{\"b"
        "ufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"m"
        "ax\":[1,1,0]},{\"bufferView\":2,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],\"bufferViews"
        "\":[{\"buffer\":0,\"byteLength\":64},{\"buffer\":1,\"byteLength\":36},{\"buffer\":1,\""
        "byteOffset\":36,\"byteLength\":12},{\"buffer\":1,\"byteOffset\":48,\"byteLength\":48}]"
        ",\"buffers\":[{\"byteLength\":64,\"uri\":\"data:application/octet-stream;base64,yvJJcQ"
        "AAAAAAAAAAAAAAAAAAAADK8klxAAAAAAAAAAAAAAAAAAAAAMrySXEAAAAAAAAAAAAAAAAAAAAAAACAPw==\"},"
        "{\"byteLength\":96,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACA"
        "PwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAA"
        "AAAIA/AAAAAAAAAAAAAAAA\"}]}";
    oroya_gltf_data *g = NULL;
    oroya_gltf_model *m = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_gltf_parse(NULL, json, strlen(json), &g, &err), OROYA_OK);
    OT_EQ_INT(oroya_gltf_load_buffers(g, &err), OROYA_OK);
    OT_EQ_INT(oroya_gltf_validate(g, &err), OROYA_OK);
    OT_EQ_INT(oroya_gltf_import(g, NULL, &m, &err), OROYA_OK);
    if (m) {
        float bones[16];
        oroya_scene_update_world(m->scene);
        oroya_result r = oroya_gltf_model_bone_matrices(m, 0, bones);
        OT_CHECK_MSG(r == OROYA_ERR_NON_FINITE, "KNOWN BUG bone matrix overflow: %s, [0] = %g",
                     oroya_result_string(r), (double)bones[0]);
        OT_CHECK(isinf(bones[0]) && bones[12] == 0.0f && bones[15] == 1.0f);
    }
    oroya_gltf_model_free(m);
    oroya_gltf_free(g);
}

/* Validates `json` (its buffers data URIs) with `heap` counting the allocations; returns the
 * result and leaves the message in *err. */
static oroya_result validate_counted(const char *json, size_t len, rb_heap *heap,
                                     size_t *validate_bytes, oroya_error *err) {
    oroya_gltf_data *g = NULL;
    oroya_result r =
        oroya_gltf_parse(&(oroya_gltf_desc){.allocator = rb_allocator(heap)}, json, len, &g, err);
    r = r ? r : oroya_gltf_load_buffers(g, err);
    const size_t before = heap->total_bytes;
    r = r ? r : oroya_gltf_validate(g, err);
    *validate_bytes = heap->total_bytes - before;
    oroya_gltf_free(g);
    return r;
}

/* BUG (src/io/gltf_validate.c): glTF's schema gives skins[].joints, scenes[].nodes and
 * nodes[].children "uniqueItems", and section 3.11 says each animation target (node and path)
 * MUST NOT be used more than once. A skin listing joint 1 a million times (2 MB) was accepted
 * (235 MB and 5 s in `oroya info`), a scene listing a root twice too, and two channels on one
 * target; a child listed twice was refused as "node 1 already has parent node 0". Expected:
 * OROYA_ERR_INVALID_DATA naming both places, in one pass with no memory beyond validate's 8
 * bytes per node. The same node on other paths, in other lists or other animations is fine. */
static void test_bug_duplicate_list_entries(void) {
#define HEAD "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{},{},{}]"
#define ANIM(channels)                                                                             \
    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{},{}],\"buffers\":[{\"byteLength\":32,\"uri\":"  \
    "\"data:application/octet-stream;base64,AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAA=\"}],"     \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,"             \
    "\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,"     \
    "\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},{\"bufferView\":1,\"componentType\":5126,"       \
    "\"count\":2,\"type\":\"VEC3\"}],\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],"  \
    "\"channels\":[" channels "]}]}"
#define CH(node, path) "{\"sampler\":0,\"target\":{\"node\":" #node ",\"path\":\"" path "\"}}"
    static const struct {
        const char *json, *message;
    } bad[] = {
        {HEAD ",\"skins\":[{\"joints\":[2,1,0,1]}]}",
         "skins[0].joints[3]: joint 1 is listed twice (first at [1])"},
        {HEAD ",\"scenes\":[{\"nodes\":[0]},{\"nodes\":[1,2,1]}]}",
         "scenes[1].nodes[2]: node 1 is listed twice (first at [0])"},
        {"{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[2,1,1]},{},{}]}",
         "nodes[0].children[2]: node 1 is listed twice (first at [1])"},
        {ANIM(CH(0, "translation") "," CH(1, "translation") "," CH(0, "scale") "," CH(
             1, "translation")),
         "animations[0].channels[3].target: node 1 translation is already the target of "
         "channels[1] (each node and path once per animation)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rb_heap h;
        rb_reset(&h, 0);
        oroya_error err = {0};
        size_t bytes = 0;
        oroya_result r = validate_counted(bad[i].json, strlen(bad[i].json), &h, &bytes, &err);
        OT_CHECK_MSG(r == OROYA_ERR_INVALID_DATA && !strcmp(err.message, bad[i].message),
                     "KNOWN BUG duplicate accepted (case %zu): %s, \"%s\"", i,
                     oroya_result_string(r), err.message);
        OT_EQ_INT(h.live, 0);
    }
    static const char *const good[] = {
        HEAD ",\"skins\":[{\"joints\":[2,1,0]},{\"joints\":[1,0]}],\"scenes\":[{\"nodes\":[0,1,2]},"
             "{\"nodes\":[2,1]}]}",
        ANIM(CH(0, "translation") "," CH(1, "translation") "," CH(0, "scale") "," CH(1, "scale")),
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        rb_heap h;
        rb_reset(&h, 0);
        oroya_error err = {0};
        size_t bytes = 0;
        OT_CHECK_MSG(validate_counted(good[i], strlen(good[i]), &h, &bytes, &err) == OROYA_OK,
                     "case %zu: %s", i, err.message);
    }
    /* The brief's file, scaled to 200 000 joints: refused at the second entry, and validate
     * allocates its 8 bytes per node (3 nodes), not anything per joint. */
    const size_t n = 200000;
    char *big = malloc(256 + 2 * n);
    OT_CHECK(big != NULL);
    if (!big) {
        return;
    }
    size_t len = (size_t)sprintf(big, HEAD ",\"skins\":[{\"joints\":[1");
    for (size_t k = 1; k < n; k++) {
        memcpy(big + len, ",1", 2);
        len += 2;
    }
    memcpy(big + len, "]}]}", 4);
    len += 4;
    rb_heap h;
    rb_reset(&h, 0);
    oroya_error err = {0};
    size_t bytes = 0;
    oroya_result r = validate_counted(big, len, &h, &bytes, &err);
    OT_CHECK_MSG(r == OROYA_ERR_INVALID_DATA &&
                     !strcmp(err.message, "skins[0].joints[1]: joint 1 is listed twice (first "
                                          "at [0])"),
                 "%s, \"%s\"", oroya_result_string(r), err.message);
    OT_CHECK_MSG(bytes <= 3 * 8, "validate allocated %zu bytes for 3 nodes", bytes);
    free(big);
#undef CH
#undef ANIM
#undef HEAD
}

/* BUG (src/io/gltf_write.c, write_clips): a clip may hold two tracks on one node and
 * property (three.js plays both, the later wins), and oroya_gltf_write wrote a channel for
 * each: a file glTF 3.11 forbids, which oroya_gltf_validate now refuses, so oroya could not
 * read its own export. Expected: OROYA_ERR_UNSUPPORTED naming both tracks, nothing written;
 * the same node on other paths and the same path on another node are written and read back. */
static void test_bug_export_duplicate_target(void) {
    oroya_scene *scene = NULL;
    oroya_node a, b;
    OT_EQ_INT(oroya_scene_create(NULL, &scene), OROYA_OK);
    if (!scene) {
        return;
    }
    OT_EQ_INT(oroya_scene_add_node(scene, "a", (oroya_node){0}, OROYA_NODE_OBJECT, &a), OROYA_OK);
    OT_EQ_INT(oroya_scene_add_node(scene, "b", a, OROYA_NODE_OBJECT, &b), OROYA_OK);
    static const float t[2] = {0, 1}, v[6] = {0, 0, 0, 1, 0, 0}, q[8] = {0, 0, 0, 1, 0, 0, 0, 1};
    const oroya_track tr[4] = {
        {"a", OROYA_PROPERTY_TRANSLATION, OROYA_INTERP_LINEAR, 3, 2, t, v, {0, 0, 0}, 0},
        {"b", OROYA_PROPERTY_TRANSLATION, OROYA_INTERP_LINEAR, 3, 2, t, v, {0, 0, 0}, 0},
        {"a", OROYA_PROPERTY_ROTATION, OROYA_INTERP_LINEAR, 4, 2, t, q, {0, 0, 0}, 0},
        {"a", OROYA_PROPERTY_TRANSLATION, OROYA_INTERP_STEP, 3, 2, t, v, {0, 0, 0}, 0},
    };
    oroya_clip *twice = NULL, *once = NULL;
    oroya_error err = {0};
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.name = "twice", .tracks = tr, .track_count = 4},
                                &twice, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_clip_create(&(oroya_clip_desc){.name = "once", .tracks = tr, .track_count = 3},
                                &once, &err),
              OROYA_OK);
    const char *path = OROYA_BINARY_DIR "/test_robustness_bugs_export.gltf";
    const oroya_clip *clips[2] = {once, twice};
    remove(path);
    oroya_result r = oroya_gltf_write(
        scene, &(oroya_gltf_write_desc){.clips = clips, .clip_count = 2}, path, &err);
    OT_CHECK_MSG(r == OROYA_ERR_UNSUPPORTED &&
                     !strcmp(err.message, "clips[1].tracks[3]: target 'a' translation is also "
                                          "tracks[0]'s (glTF allows one channel per node and "
                                          "path in an animation)"),
                 "KNOWN BUG duplicate target exported: %s, \"%s\"", oroya_result_string(r),
                 err.message);
    FILE *f = fopen(path, "rb");
    OT_CHECK_MSG(f == NULL, "%s written after the refusal", path);
    if (f) {
        fclose(f);
    }
    OT_EQ_INT(oroya_gltf_write(scene, &(oroya_gltf_write_desc){.clips = clips, .clip_count = 1},
                               path, &err),
              OROYA_OK);
    oroya_gltf_data *g = NULL;
    r = oroya_gltf_parse_file(NULL, path, &g, &err);
    r = r ? r : oroya_gltf_load_buffers(g, &err);
    r = r ? r : oroya_gltf_validate(g, &err);
    OT_CHECK_MSG(r == OROYA_OK && g->animation_count == 1 && g->animations[0].channel_count == 3,
                 "%s: %s", oroya_result_string(r), err.message);
    oroya_gltf_free(g);
    remove(path);
    oroya_clip_destroy(twice);
    oroya_clip_destroy(once);
    oroya_scene_destroy(scene);
}

int main(void) {
    OT_RUN(test_bug_base_dir_without_trailing_slash);
    OT_RUN(test_bug_mixer_time_overflow);
    OT_RUN(test_bug_action_time_loop_overflow);
    OT_RUN(test_bug_escaped_nul_cuts_strings);
    OT_RUN(test_bug_bone_matrix_overflow);
    OT_RUN(test_bug_duplicate_list_entries);
    OT_RUN(test_bug_export_duplicate_target);
    return ot_finish();
}
