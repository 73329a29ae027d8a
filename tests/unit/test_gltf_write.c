/* glTF export tests: every sample model is imported, written as .glb and as .gltf + .bin,
 * imported again, and must give back the same nodes (names, transforms), skins (joints,
 * inverse bind matrices), geometry and clips (names, targets, interpolation, key times and
 * values bit for bit). The written files are left in OROYA_BINARY_DIR/test_gltf_write_out for
 * tests/gltf/test_gltf_export.sh, which runs the Khronos validator on them. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oroya/gltf.h"
#include "gltf_files.h"
#include "oroya_test.h"

#define ASSETS OROYA_SOURCE_DIR "/tests/assets"
#define OUT OROYA_BINARY_DIR "/test_gltf_write_out"

/* "node_<digits>" names are docs/scenario.md's fallback for unnamed nodes: they follow the file's
 * node order, which export makes the scene's dense order, so they are not compared. */
static bool fallback_name(const char *s) {
    if (strncmp(s, "node_", 5) != 0 || !s[5]) {
        return false;
    }
    for (s += 5; *s; s++) {
        if (*s < '0' || *s > '9') {
            return false;
        }
    }
    return true;
}

/* The dense index in a's scene of the node a track targets, by name. */
static uint32_t target_index(const oroya_scene *scene, const char *name) {
    oroya_node n;
    return oroya_scene_find_node(scene, name, &n) == OROYA_OK ? oroya_scene_node_index(scene, n)
                                                              : UINT32_MAX;
}

/* The parsed JSON of a written .gltf (NULL when it cannot be read). */
static cJSON *read_written(const char *path) {
    FILE *f = fopen(path, "rb");
    static char text[1 << 20];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    text[len] = 0;
    return cJSON_Parse(text);
}

/* Writes text to path; false (and a failed check) when it cannot. */
static bool write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    OT_CHECK_MSG(f != NULL, "%s", path);
    if (!f) {
        return false;
    }
    fputs(text, f);
    fclose(f);
    return true;
}

static void compare_models(const char *what, const oroya_gltf_model *a, const oroya_gltf_model *b) {
    /* Nodes: a's scene and b's scene have the same dense order, since export writes nodes
     * in dense order and import builds them depth first, as they were. */
    uint32_t n = oroya_scene_node_count(a->scene);
    OT_CHECK_MSG(oroya_scene_node_count(b->scene) == n, "%s: %u vs %u nodes", what, n,
                 oroya_scene_node_count(b->scene));
    for (uint32_t i = 0; i < n && i < oroya_scene_node_count(b->scene); i++) {
        oroya_node ha = oroya_scene_node_at(a->scene, i), hb = oroya_scene_node_at(b->scene, i);
        oroya_transform ta, tb;
        oroya_scene_get_transform(a->scene, ha, &ta);
        oroya_scene_get_transform(b->scene, hb, &tb);
        OT_CHECK_MSG(memcmp(&ta, &tb, sizeof ta) == 0, "%s: node %u transform", what, i);
        const char *na = oroya_scene_node_name(a->scene, ha);
        const char *nb = oroya_scene_node_name(b->scene, hb);
        OT_CHECK_MSG(!strcmp(na, nb) || (fallback_name(na) && fallback_name(nb)),
                     "%s: node %u '%s' vs '%s'", what, i, na, nb);
        const oroya_geometry *ga = NULL, *gb = NULL;
        oroya_scene_get_mesh(a->scene, ha, &ga, NULL);
        oroya_scene_get_mesh(b->scene, hb, &gb, NULL);
        uint32_t wa = 0, wb = 0;
        const float *pa = oroya_scene_weights(a->scene, ha, &wa);
        const float *pb = oroya_scene_weights(b->scene, hb, &wb);
        OT_CHECK_MSG(wa == wb && (!wa || memcmp(pa, pb, wa * 4u) == 0), "%s: node %u weights", what,
                     i);
        OT_CHECK_MSG((ga == NULL) == (gb == NULL), "%s: node %u mesh", what, i);
        if (ga && gb) {
            OT_CHECK(ga->vertex_count == gb->vertex_count && ga->index_count == gb->index_count);
            OT_CHECK(memcmp(ga->positions, gb->positions, ga->vertex_count * 12u) == 0);
            OT_CHECK(ga->morph_target_count == gb->morph_target_count);
            OT_CHECK((ga->joints == NULL) == (gb->joints == NULL));
        }
    }
    OT_EQ_INT(b->skin_count, a->skin_count);
    for (uint32_t s = 0; s < a->skin_count && s < b->skin_count; s++) {
        OT_EQ_INT(b->skins[s].joint_count, a->skins[s].joint_count);
        for (uint32_t k = 0; k < a->skins[s].joint_count && k < b->skins[s].joint_count; k++) {
            OT_CHECK(oroya_scene_node_index(a->scene, a->skins[s].joints[k]) ==
                     oroya_scene_node_index(b->scene, b->skins[s].joints[k]));
            OT_CHECK(memcmp(&a->skins[s].inverse_bind_matrices[k],
                            &b->skins[s].inverse_bind_matrices[k], sizeof(oroya_mat4)) == 0);
        }
    }
    OT_EQ_INT(b->clip_count, a->clip_count);
    for (uint32_t c = 0; c < a->clip_count && c < b->clip_count; c++) {
        const oroya_clip *x = a->clips[c], *y = b->clips[c];
        OT_CHECK_MSG(!strcmp(x->name, y->name), "%s: clip %s vs %s", what, x->name, y->name);
        OT_CHECK(x->duration == y->duration);
        OT_EQ_INT(y->track_count, x->track_count);
        for (uint32_t t = 0; t < x->track_count && t < y->track_count; t++) {
            const oroya_track *p = &x->tracks[t], *q = &y->tracks[t];
            OT_CHECK_MSG(target_index(a->scene, p->target) == target_index(b->scene, q->target) &&
                             target_index(a->scene, p->target) != UINT32_MAX,
                         "%s: track %u target %s vs %s", what, t, p->target, q->target);
            OT_CHECK(p->property == q->property && p->interpolation == q->interpolation);
            OT_CHECK(p->key_count == q->key_count && p->components == q->components);
            if (p->key_count == q->key_count && p->components == q->components) {
                OT_CHECK(memcmp(p->times, q->times, p->key_count * 4u) == 0);
                OT_CHECK(memcmp(p->values, q->values, oroya_track_value_count(p) * 4u) == 0);
            }
        }
    }
}

/* Loads the written file `out` and compares it with the model a it was written from. */
static void reload_and_compare(const char *out, const oroya_gltf_model *a) {
    oroya_gltf_model *b = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(out, NULL, &b, &err) == OROYA_OK, "%s: %s", out, err.message);
    if (b) {
        compare_models(out, a, b);
    }
    oroya_gltf_model_free(b);
}

static void round_trip(const char *path, void *user) {
    int *counter = (int *)user;
    oroya_gltf_import_desc skip = {.skip_images = true};
    oroya_gltf_model *a = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(path, &skip, &a, &err) == OROYA_OK, "%s: %s", path, err.message);
    if (!a) {
        return;
    }
    const char *base = strrchr(path, '/') + 1;
    for (int binary = 0; binary < 2; binary++) {
        char out[1200];
        snprintf(out, sizeof out, OUT "/%03d_%.*s.%s", (*counter)++,
                 (int)(strchr(base, '.') - base), base, binary ? "glb" : "gltf");
        oroya_gltf_write_desc wd = {.binary = binary != 0,
                                    .clips = (const oroya_clip *const *)a->clips,
                                    .clip_count = a->clip_count};
        OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, out, &err) == OROYA_OK, "%s: %s", out,
                     err.message);
        oroya_gltf_model *b = NULL;
        OT_CHECK_MSG(oroya_gltf_load(out, &skip, &b, &err) == OROYA_OK, "%s: %s", out, err.message);
        if (b) {
            compare_models(out, a, b);
        }
        oroya_gltf_model_free(b);
    }
    oroya_gltf_model_free(a);
}

static void test_round_trip(void) {
    int counter = 0;
    OT_EQ_INT(ot_each_gltf(ASSETS, round_trip, &counter),
              31); /* every .gltf/.glb file in tests/assets */
}

/* Writes `clip` of `scene` to OUT/<file> and loads the file again (NULL, reported, on
 * failure). */
static oroya_gltf_model *write_and_load(const oroya_scene *scene, const oroya_clip *clip,
                                        const char *path) {
    oroya_error err = {0};
    const oroya_clip *clips[] = {clip};
    oroya_gltf_write_desc wd = {.clips = clips, .clip_count = 1};
    OT_CHECK_MSG(oroya_gltf_write(scene, &wd, path, &err) == OROYA_OK, "%s", err.message);
    oroya_gltf_model *b = NULL;
    oroya_gltf_import_desc skip = {.skip_images = true};
    OT_CHECK_MSG(oroya_gltf_load(path, &skip, &b, &err) == OROYA_OK, "%s", err.message);
    return b;
}

/* Copies the text file `from` to `to` with the first `find` after the first `after` replaced
 * by `with` (as long), and loads it: returns the result, the message in err. */
/* from with `find` (after `after`) replaced by `with` (as long), written to `to` and loaded;
 * *keep (NULL: freed) gets the model. */
static oroya_result load_edited(const char *from, const char *to, const char *after,
                                const char *find, const char *with, oroya_error *err,
                                oroya_gltf_model **keep) {
    FILE *f = fopen(from, "rb");
    static char text[16384];
    memset(text, 0, sizeof text);
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    char *at = strstr(text, after);
    at = at ? strstr(at, find) : NULL;
    OT_CHECK(at != NULL && len > 0 && strlen(find) == strlen(with));
    if (!at)
        return OROYA_OK;
    memcpy(at, with, strlen(with));
    f = fopen(to, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    oroya_gltf_model *b = NULL;
    oroya_gltf_import_desc skip = {.skip_images = true};
    oroya_result r = oroya_gltf_load(to, &skip, &b, err);
    if (keep) {
        *keep = b;
    } else {
        oroya_gltf_model_free(b);
    }
    return r;
}

/* A clip "walk" moving node "hips" from 0 to (0, 0, end) over [0, end] s. */
static oroya_clip *walk_clip(float end) {
    const float times[] = {0, end}, values[] = {0, 0, 0, 0, 0, end};
    const oroya_track track = {.target = "hips",
                               .property = OROYA_PROPERTY_TRANSLATION,
                               .interpolation = OROYA_INTERP_LINEAR,
                               .components = 3,
                               .key_count = 2,
                               .times = times,
                               .values = values};
    oroya_clip *clip = NULL;
    oroya_error err = {0};
    const oroya_clip_desc cd = {.name = "walk", .tracks = &track, .track_count = 1};
    OT_CHECK_MSG(oroya_clip_create(&cd, &clip, &err) == OROYA_OK, "%s", err.message);
    return clip;
}

/* Clip markers go to the animation's extras.markers and come back (names, times exactly,
 * order); a marker time outside the clip in a file drops the markers, and the model names
 * the animation and the marker. */
static void test_markers_round_trip(void) {
    oroya_error err = {0};
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node n;
    OT_CHECK(oroya_scene_add_node(scene, "hips", (oroya_node){0}, OROYA_NODE_OBJECT, &n) ==
             OROYA_OK);
    oroya_clip *clip = walk_clip(1.2f);
    oroya_marker marks[] = {{0.9, "footR"}, {0.3, "footL"}, {0.1, "héllo \"x\""}};
    OT_CHECK(oroya_clip_set_markers(clip, marks, 3, &err) == OROYA_OK);
    oroya_gltf_model *b = write_and_load(scene, clip, OUT "/markers.gltf");
    if (b) {
        OT_EQ_INT(b->clip_count, 1);
        const oroya_clip *c = b->clips[0];
        OT_EQ_INT(c->marker_count, 3);
        for (uint32_t i = 0; i < 3 && i < c->marker_count; i++) {
            OT_CHECK(c->markers[i].time == clip->markers[i].time);
            OT_CHECK(!strcmp(c->markers[i].name, clip->markers[i].name));
        }
    }
    oroya_gltf_model_free(b);
    /* The same file with a marker past the clip's end: the file loads (extras are any tool's,
     * docs/gltf.md) without that marker, the others kept, and the model says why, naming the
     * marker by its place in the file. */
    OT_EQ_INT(load_edited(OUT "/markers.gltf", OUT "/markers_bad.gltf", "markers", "0.9", "7.9",
                          &err, &b),
              OROYA_OK);
    if (b) {
        OT_EQ_INT(b->clip_count, 1);
        OT_EQ_INT(b->clips[0]->marker_count, 2);
        for (uint32_t i = 0; i < 2 && i < b->clips[0]->marker_count; i++) {
            OT_CHECK(b->clips[0]->markers[i].time == clip->markers[i].time &&
                     !strcmp(b->clips[0]->markers[i].name, clip->markers[i].name));
        }
        OT_EQ_INT(b->ignored_extras_count, 1);
        OT_CHECK_MSG(b->first_ignored_extras &&
                         strstr(b->first_ignored_extras,
                                "animations[0].extras.markers[2] \"footR\": time 7.9") &&
                         strstr(b->first_ignored_extras, "outside the clip"),
                     "%s", b->first_ignored_extras ? b->first_ignored_extras : "(null)");
        OT_CHECK(b->clips[0]->track_count == 1);
    }
    oroya_gltf_model_free(b);
    oroya_clip_destroy(clip);
    oroya_scene_destroy(scene);
}

/* Curves go to the animation's extras.curves and come back as CURVE tracks (names,
 * interpolation, times and values exactly), after the channels, which keep their sampler
 * numbering; typed tracks are refused by name; a bad curve in a file is dropped (the others
 * kept), and the model names the animation and the curve. */
static void test_curves_round_trip(void) {
    oroya_error err = {0};
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node n;
    OT_CHECK(oroya_scene_add_node(scene, "hips", (oroya_node){0}, OROYA_NODE_OBJECT, &n) ==
             OROYA_OK);
    static const float times[] = {0, 0.3f, 1.2f}, values[] = {0, 0, 0, 0, 1, 0, 0, 0, 1.2f};
    static const float ct[] = {0, 0.6f}, cv[] = {0.1f, 0.7f};
    static const float st[] = {0.25f}, sv[] = {1};
    static const float cubic[] = {0, 0.1f, 2, -1, 0.9f, 0};
    oroya_track tracks[] = {{.target = "footstep",
                             .property = OROYA_PROPERTY_CURVE,
                             .interpolation = OROYA_INTERP_LINEAR,
                             .components = 1,
                             .key_count = 2,
                             .times = ct,
                             .values = cv},
                            {.target = "hips",
                             .property = OROYA_PROPERTY_TRANSLATION,
                             .interpolation = OROYA_INTERP_LINEAR,
                             .components = 3,
                             .key_count = 3,
                             .times = times,
                             .values = values},
                            {.target = "ik_weight",
                             .property = OROYA_PROPERTY_CURVE,
                             .interpolation = OROYA_INTERP_STEP,
                             .components = 1,
                             .key_count = 1,
                             .times = st,
                             .values = sv},
                            {.target = "hips",
                             .property = OROYA_PROPERTY_SCALE,
                             .interpolation = OROYA_INTERP_STEP,
                             .components = 3,
                             .key_count = 3,
                             .times = times,
                             .values = values},
                            {.target = "lean",
                             .property = OROYA_PROPERTY_CURVE,
                             .interpolation = OROYA_INTERP_CUBICSPLINE,
                             .components = 1,
                             .key_count = 2,
                             .times = ct,
                             .values = cubic}};
    oroya_clip *clip = NULL;
    oroya_clip_desc cd = {.name = "walk", .tracks = tracks, .track_count = 5};
    OT_CHECK(oroya_clip_create(&cd, &clip, &err) == OROYA_OK);
    oroya_gltf_model *b = write_and_load(scene, clip, OUT "/curves.gltf");
    static const uint32_t order[] = {1, 3, 0, 2, 4}; /* channels first, then the curves */
    if (b) {
        OT_EQ_INT(b->clip_count, 1);
        const oroya_clip *c = b->clips[0];
        OT_EQ_INT(c->track_count, 5);
        for (uint32_t i = 0; i < 5 && i < c->track_count; i++) {
            const oroya_track *want = &clip->tracks[order[i]], *got = &c->tracks[i];
            OT_CHECK(!strcmp(got->target, want->target));
            OT_EQ_INT(got->property, want->property);
            OT_EQ_INT(got->interpolation, want->interpolation);
            OT_EQ_INT(got->key_count, want->key_count);
            OT_CHECK(!memcmp(got->times, want->times, want->key_count * sizeof(float)));
            OT_CHECK(
                !memcmp(got->values, want->values, oroya_track_value_count(want) * sizeof(float)));
        }
    }
    oroya_gltf_model_free(b);
    /* The same file with a curve key time past the float range: the file loads (extras are
     * any tool's, docs/gltf.md) without that curve, the channels and the other curves kept,
     * and the model names the value. */
    OT_EQ_INT(load_edited(OUT "/curves.gltf", OUT "/curves_bad.gltf", "\"ik_weight\"", "0.25",
                          "9e99", &err, &b),
              OROYA_OK);
    if (b) {
        OT_EQ_INT(b->clips[0]->track_count, 4);
        if (b->clips[0]->track_count == 4) {
            OT_CHECK(!strcmp(b->clips[0]->tracks[2].target, "footstep") &&
                     !strcmp(b->clips[0]->tracks[3].target, "lean"));
        }
        OT_EQ_INT(b->ignored_extras_count, 1);
        OT_CHECK_MSG(
            b->first_ignored_extras &&
                strstr(b->first_ignored_extras,
                       "animations[0].extras.curves[1].times[0]: expected a finite number"),
            "%s", b->first_ignored_extras ? b->first_ignored_extras : "(null)");
    }
    oroya_gltf_model_free(b);
    /* A curve whose key times do not increase is named by its place in the file, not by its
     * index among the clip's tracks (it said "animations[0]: tracks[4] ..."); that curve is
     * dropped, the channels and the other curves kept. */
    OT_EQ_INT(load_edited(OUT "/curves.gltf", OUT "/curves_bad2.gltf", "\"lean\"",
                          "0.600000023841858", "0.000000000000000", &err, &b),
              OROYA_OK);
    if (b) {
        const char *why = b->first_ignored_extras ? b->first_ignored_extras : "(null)";
        OT_EQ_INT(b->clips[0]->track_count, 4);
        if (b->clips[0]->track_count == 4) {
            OT_CHECK(!strcmp(b->clips[0]->tracks[2].target, "footstep") &&
                     !strcmp(b->clips[0]->tracks[3].target, "ik_weight"));
        }
        OT_EQ_INT(b->ignored_extras_count, 1);
        OT_CHECK_MSG(strstr(why, "animations[0].extras.curves[2] (target \"lean\"") &&
                         strstr(why, "key 1") && !strstr(why, "tracks["),
                     "%s", why);
    }
    oroya_gltf_model_free(b);
    /* A typed track has no glTF form. */
    oroya_clip_destroy(clip);
    static const float one[] = {1};
    oroya_track vis = {.target = "hips",
                       .property = OROYA_PROPERTY_VISIBLE,
                       .interpolation = OROYA_INTERP_STEP,
                       .components = 1,
                       .key_count = 1,
                       .times = st,
                       .values = one};
    cd = (oroya_clip_desc){.name = "blink", .tracks = &vis, .track_count = 1};
    OT_CHECK(oroya_clip_create(&cd, &clip, &err) == OROYA_OK);
    const oroya_clip *clips[] = {clip};
    oroya_gltf_write_desc wd = {.clips = clips, .clip_count = 1};
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/typed.gltf", &err), OROYA_ERR_UNSUPPORTED);
    OT_CHECK_MSG(strstr(err.message, "clips[0].tracks[0] (target \"hips\"): visible tracks") !=
                     NULL,
                 "%s", err.message);
    oroya_clip_destroy(clip);
    oroya_scene_destroy(scene);
}

static void test_errors(void) {
    oroya_error err = {0};
    OT_EQ_INT(oroya_gltf_write(NULL, NULL, OUT "/x.gltf", &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    OT_EQ_INT(oroya_gltf_write(scene, NULL, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    /* An empty scene is a valid file. */
    OT_EQ_INT(oroya_gltf_write(scene, NULL, OUT "/empty.gltf", &err), OROYA_OK);
    /* A clip whose target is not in the scene, and a SMOOTH track. */
    static const float times[] = {0, 1}, values[] = {0, 0, 0, 1, 1, 1};
    oroya_track track = {.target = "ghost",
                         .property = OROYA_PROPERTY_TRANSLATION,
                         .interpolation = OROYA_INTERP_LINEAR,
                         .components = 3,
                         .key_count = 2,
                         .times = times,
                         .values = values};
    oroya_clip *clip = NULL;
    oroya_clip_desc cd = {.name = "c", .tracks = &track, .track_count = 1};
    OT_CHECK(oroya_clip_create(&cd, &clip, &err) == OROYA_OK);
    const oroya_clip *clips[] = {clip};
    oroya_gltf_write_desc wd = {.clips = clips, .clip_count = 1};
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/bad.gltf", &err), OROYA_ERR_NOT_FOUND);
    OT_CHECK(strstr(err.message, "clips[0].tracks[0]: target 'ghost'") != NULL);
    oroya_clip_destroy(clip);
    oroya_node ghost;
    OT_CHECK(oroya_scene_add_node(scene, "ghost", (oroya_node){0}, OROYA_NODE_OBJECT, &ghost) ==
             OROYA_OK);
    track.interpolation = OROYA_INTERP_SMOOTH;
    OT_CHECK(oroya_clip_create(&cd, &clip, &err) == OROYA_OK);
    clips[0] = clip;
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/bad.gltf", &err), OROYA_ERR_UNSUPPORTED);
    oroya_clip_destroy(clip);
    wd.clips = NULL;
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/bad.gltf", &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_gltf_write(scene, NULL, "/nonexistent-dir/x.gltf", &err), OROYA_ERR_IO);
    oroya_scene_destroy(scene);
}

/* What glTF asks that an oroya clip need not hold: key times from 0 on (a negative time is
 * refused, naming the track), morph weights on a node whose mesh has as many targets (refused
 * too), two keys for CUBICSPLINE (a one-key spline is written as its one LINEAR key, which
 * means the same). Each used to be written, and the reader then refused the file. */
static void test_write_gltf_rules(void) {
    oroya_error err = {0};
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node n;
    OT_CHECK(oroya_scene_add_node(scene, "n", (oroya_node){0}, OROYA_NODE_OBJECT, &n) == OROYA_OK);
    static const float tneg[2] = {-1, 0}, v3[6] = {0, 0, 0, 1, 1, 1};
    oroya_track tr = {.target = "n",
                      .property = OROYA_PROPERTY_TRANSLATION,
                      .interpolation = OROYA_INTERP_LINEAR,
                      .components = 3,
                      .key_count = 2,
                      .times = tneg,
                      .values = v3};
    oroya_clip *clip = NULL;
    oroya_clip_desc cd = {.name = "c", .tracks = &tr, .track_count = 1};
    OT_CHECK(oroya_clip_create(&cd, &clip, &err) == OROYA_OK);
    const oroya_clip *clips[] = {clip};
    oroya_gltf_write_desc wd = {.clips = clips, .clip_count = 1};
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/rule_negative.gltf", &err), OROYA_ERR_BAD_TIMES);
    OT_CHECK_MSG(
        strstr(err.message, "clips[0].tracks[0] (target \"n\"): key 0 time -1 is negative"), "%s",
        err.message);
    oroya_clip_destroy(clip);

    static const float t2[2] = {0, 1}, w2[4] = {0, 1, 1, 0};
    tr = (oroya_track){.target = "n",
                       .property = OROYA_PROPERTY_WEIGHTS,
                       .interpolation = OROYA_INTERP_LINEAR,
                       .components = 2,
                       .key_count = 2,
                       .times = t2,
                       .values = w2};
    OT_CHECK(oroya_clip_create(&cd, &clip, &err) == OROYA_OK);
    clips[0] = clip;
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/rule_weights.gltf", &err), OROYA_ERR_VALUE_COUNT);
    OT_CHECK_MSG(strstr(err.message, "2 morph weights, and the node's mesh has 0 morph targets"),
                 "%s", err.message);
    oroya_clip_destroy(clip);

    static const float t1[1] = {0.5f}, c1[9] = {9, 9, 9, 1, 2, 3, 7, 7, 7}; /* in, value, out */
    tr = (oroya_track){.target = "n",
                       .property = OROYA_PROPERTY_TRANSLATION,
                       .interpolation = OROYA_INTERP_CUBICSPLINE,
                       .components = 3,
                       .key_count = 1,
                       .times = t1,
                       .values = c1};
    OT_CHECK(oroya_clip_create(&cd, &clip, &err) == OROYA_OK);
    oroya_gltf_model *b = write_and_load(scene, clip, OUT "/rule_one_cubic.gltf");
    OT_CHECK(b && b->clip_count == 1 && b->clips[0]->track_count == 1);
    if (b && b->clip_count == 1 && b->clips[0]->track_count == 1) {
        const oroya_track *bt = &b->clips[0]->tracks[0];
        OT_CHECK(bt->interpolation == OROYA_INTERP_LINEAR && bt->key_count == 1 &&
                 bt->times[0] == 0.5f && bt->values[0] == 1 && bt->values[1] == 2 &&
                 bt->values[2] == 3);
    }
    oroya_gltf_model_free(b);
    oroya_clip_destroy(clip);
    oroya_scene_destroy(scene);
}

/* The model's textures are written with their images; with skip_images (oroya export) the
 * images are not kept, and neither are the textures nor the materials' references to them:
 * a texture with no source made three.js's loader refuse the whole file. */
static void test_textures_follow_images(void) {
    for (int skip_images = 0; skip_images < 2; skip_images++) {
        oroya_gltf_import_desc desc = {.skip_images = skip_images != 0};
        oroya_gltf_model *a = NULL;
        oroya_error err = {0};
        OT_CHECK_MSG(oroya_gltf_load(ASSETS "/CesiumMan/glTF/CesiumMan.gltf", &desc, &a, &err) ==
                         OROYA_OK,
                     "%s", err.message);
        if (!a) {
            continue;
        }
        OT_CHECK(a->texture_count >= 1);
        const char *out = skip_images ? OUT "/textures_skipped.gltf" : OUT "/textures_kept.gltf";
        oroya_gltf_write_desc wd = {.model = a};
        OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, out, &err) == OROYA_OK, "%s", err.message);
        cJSON *root = read_written(out);
        OT_CHECK(root != NULL);
        const cJSON *textures = cJSON_GetObjectItemCaseSensitive(root, "textures");
        const cJSON *images = cJSON_GetObjectItemCaseSensitive(root, "images");
        const cJSON *mat =
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "materials"), 0);
        const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(mat, "pbrMetallicRoughness");
        const cJSON *base = cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture");
        if (skip_images) {
            OT_CHECK(!textures && !images && pbr && !base);
        } else {
            OT_CHECK(cJSON_GetArraySize(textures) >= 1 && cJSON_GetArraySize(images) >= 1 && base);
            for (const cJSON *t = textures ? textures->child : NULL; t; t = t->next) {
                OT_CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(t, "source")));
            }
        }
        cJSON_Delete(root);
        oroya_gltf_model_free(a);
    }
}

/* Animation names come back as the file had them: repeated ones (several exporters name every
 * animation alike) and missing ones, as node names do; they used to be written as the clips'
 * fallback names (animation_<i>). The clips' own names follow the fallback rule both times. */
static void test_clip_file_names(void) {
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"n\"}],\"scenes\":[{"
        "\"nodes\":[0]}],\"buffers\":[{\"byteLength\":32,\"uri\":\"data:application/"
        "octet-stream;base64,AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AACAPwAAgD8=\"}],\"bufferViews\":"
        "[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":"
        "24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":"
        "\"SCALAR\",\"min\":[0],\"max\":[1]},{\"bufferView\":1,\"componentType\":5126,"
        "\"count\":2,\"type\":\"VEC3\"}],\"animations\":["
        "{\"name\":\"take\",\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{"
        "\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]},"
        "{\"name\":\"take\",\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{"
        "\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]},"
        "{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,"
        "\"target\":{\"node\":0,\"path\":\"scale\"}}]}]}";
    if (!write_text(OUT "/clip_names_in.gltf", json)) {
        return;
    }
    oroya_gltf_model *a = NULL, *b = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(OUT "/clip_names_in.gltf", NULL, &a, &err) == OROYA_OK, "%s",
                 err.message);
    if (!a) {
        return;
    }
    OT_CHECK(a->clip_count == 3 && !strcmp(a->clip_file_names[0], "take") &&
             !strcmp(a->clip_file_names[1], "take") && !strcmp(a->clip_file_names[2], ""));
    OT_CHECK(!strcmp(a->clips[0]->name, "animation_0") &&
             !strcmp(a->clips[2]->name, "animation_2"));
    oroya_gltf_write_desc wd = {
        .clips = (const oroya_clip *const *)a->clips, .clip_count = a->clip_count, .model = a};
    OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, OUT "/clip_names_out.gltf", &err) == OROYA_OK,
                 "%s", err.message);
    OT_CHECK_MSG(oroya_gltf_load(OUT "/clip_names_out.gltf", NULL, &b, &err) == OROYA_OK, "%s",
                 err.message);
    if (b) {
        OT_CHECK(b->clip_count == 3);
        for (uint32_t i = 0; i < 3 && i < b->clip_count; i++) {
            OT_CHECK_MSG(!strcmp(b->clip_file_names[i], a->clip_file_names[i]) &&
                             !strcmp(b->clips[i]->name, a->clips[i]->name),
                         "animation %u: file name '%s' (was '%s'), clip '%s' (was '%s')", i,
                         b->clip_file_names[i], a->clip_file_names[i], b->clips[i]->name,
                         a->clips[i]->name);
        }
    }
    oroya_gltf_model_free(b);
    oroya_gltf_model_free(a);
}

/* Whether the file at path exists. */
static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* asset.copyright: written from desc.copyright, else from desc.model (import keeps the
 * file's), "" writes none; a copyright that is not a string is a parse error naming it. A
 * string that is not UTF-8 (a name, a marker, the copyright), a number that is not finite and a
 * material factor outside [0, 1] are refused naming their glTF path, and nothing is written:
 * readers (oroya's own, the Khronos validator) refused the files such writes used to leave. */
static void test_copyright_and_invalid_values(void) {
    oroya_error err = {0};
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    oroya_node n;
    OT_CHECK(oroya_scene_add_node(scene, "hips", (oroya_node){0}, OROYA_NODE_OBJECT, &n) ==
             OROYA_OK);
    const char *c1 = "CC-BY 4.0 \u00a9 2026 someone \"quoted\"";
    oroya_gltf_write_desc wd = {.copyright = c1};
    OT_CHECK_MSG(oroya_gltf_write(scene, &wd, OUT "/copyright.gltf", &err) == OROYA_OK, "%s",
                 err.message);
    oroya_gltf_model *a = NULL, *b = NULL;
    OT_CHECK_MSG(oroya_gltf_load(OUT "/copyright.gltf", NULL, &a, &err) == OROYA_OK, "%s",
                 err.message);
    OT_CHECK(a && a->copyright && !strcmp(a->copyright, c1));
    if (a) {
        /* From the model, when the desc names none. */
        oroya_gltf_write_desc wm = {.model = a};
        OT_CHECK(oroya_gltf_write(a->scene, &wm, OUT "/copyright2.glb", &err) == OROYA_OK);
        OT_CHECK(oroya_gltf_load(OUT "/copyright2.glb", NULL, &b, &err) == OROYA_OK);
        OT_CHECK(b && b->copyright && !strcmp(b->copyright, c1));
        oroya_gltf_model_free(b);
        b = NULL;
        /* "" drops it. */
        wm.copyright = "";
        OT_CHECK(oroya_gltf_write(a->scene, &wm, OUT "/copyright3.gltf", &err) == OROYA_OK);
        OT_CHECK(oroya_gltf_load(OUT "/copyright3.gltf", NULL, &b, &err) == OROYA_OK);
        OT_CHECK(b && b->copyright == NULL);
        oroya_gltf_model_free(b);
    }
    oroya_gltf_model_free(a);
    /* Not a string. */
    wd.copyright = "x";
    OT_CHECK(oroya_gltf_write(scene, &wd, OUT "/copyright_x.gltf", &err) == OROYA_OK);
    OT_EQ_INT(load_edited(OUT "/copyright_x.gltf", OUT "/copyright_bad.gltf", "\"copyright\"",
                          "\"x\"", "123", &err, NULL),
              OROYA_ERR_PARSE);
    OT_CHECK_MSG(strstr(err.message, "asset.copyright: expected a string"), "%s", err.message);
    remove(OUT "/copyright_bad.gltf"); /* not for test_gltf_export's validator run */

    /* Not UTF-8: a node name, a marker name, the copyright. */
    remove(OUT "/not_utf8.gltf");
    remove(OUT "/not_utf8.bin");
    wd.copyright = "caf\xe9"; /* Latin-1 */
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/not_utf8.gltf", &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(strstr(err.message, "asset.copyright: \"caf\\xe9\" is not UTF-8 (byte 3)"), "%s",
                 err.message);
    wd.copyright = NULL;
    oroya_node bad;
    OT_CHECK(oroya_scene_add_node(scene, "toe\xc3(", n, OROYA_NODE_OBJECT, &bad) == OROYA_OK);
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/not_utf8.gltf", &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(strstr(err.message, "nodes[1].name: \"toe\\xc3(\" is not UTF-8 (byte 3)"), "%s",
                 err.message);
    OT_CHECK(!exists(OUT "/not_utf8.gltf") && !exists(OUT "/not_utf8.bin"));
    OT_CHECK(oroya_scene_remove_node(scene, bad) == OROYA_OK);
    oroya_clip *clip = walk_clip(1);
    oroya_marker marks[] = {{0.5, "step\xff"}};
    OT_CHECK(oroya_clip_set_markers(clip, marks, 1, &err) == OROYA_OK);
    const oroya_clip *clips[] = {clip};
    wd.clips = clips, wd.clip_count = 1;
    OT_EQ_INT(oroya_gltf_write(scene, &wd, OUT "/not_utf8.gltf", &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(strstr(err.message, "animations[0].extras.markers[0].name: \"step\\xff\""), "%s",
                 err.message);
    OT_CHECK(!exists(OUT "/not_utf8.gltf") && !exists(OUT "/not_utf8.bin"));
    /* Numbers glTF cannot hold, from a material (borrowed: the caller may change it after
     * set_mesh): not finite (cJSON would write null), a factor outside [0, 1]. */
    oroya_node boxn;
    oroya_geometry *box = NULL;
    OT_CHECK(oroya_scene_add_node(scene, "box", (oroya_node){0}, OROYA_NODE_MESH, &boxn) ==
             OROYA_OK);
    OT_CHECK(oroya_geometry_box(&(oroya_box_desc){0}, &box, &err) == OROYA_OK);
    oroya_material mat = oroya_material_default();
    OT_CHECK(oroya_scene_set_mesh(scene, boxn, box, &mat) == OROYA_OK);
    mat.base_color[2] = NAN;
    OT_EQ_INT(oroya_gltf_write(scene, NULL, OUT "/not_utf8.gltf", &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "materials[0].pbrMetallicRoughness.baseColorFactor[2]: nan "
                                     "is not finite"),
                 "%s", err.message);
    mat.base_color[2] = 1, mat.roughness = 1.5f;
    OT_EQ_INT(oroya_gltf_write(scene, NULL, OUT "/not_utf8.gltf", &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK_MSG(strstr(err.message, "materials[0].pbrMetallicRoughness.roughnessFactor: 1.5 is "
                                     "outside [0, 1]"),
                 "%s", err.message);
    OT_CHECK(!exists(OUT "/not_utf8.gltf") && !exists(OUT "/not_utf8.bin"));
    mat.roughness = 1;
    /* The same scene and clip with valid names is written (the check refuses only bad text). */
    marks[0].name = "step \u00e9";
    OT_CHECK(oroya_clip_set_markers(clip, marks, 1, &err) == OROYA_OK);
    OT_CHECK_MSG(oroya_gltf_write(scene, &wd, OUT "/not_utf8.gltf", &err) == OROYA_OK, "%s",
                 err.message);
    oroya_clip_destroy(clip);
    oroya_scene_destroy(scene);
    oroya_geometry_destroy(box);
}

/* A mesh of several primitives shown by several nodes is written once, as the file had it:
 * import splits it into primitive children per node, and export used to write one glTF mesh
 * (and a copy of every vertex array) per node, so an instanced multi-material mesh grew with
 * the number of its instances. With and without the model. */
static void test_shared_multi_primitive_mesh(void) {
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":72,\"uri\":\"data:"
        "application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAA"
        "AAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAEAAAAAA\"}],\"bufferViews\":[{\"buffer\":0,"
        "\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":36}],\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],"
        "\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":"
        "\"VEC3\",\"min\":[0,0,0],\"max\":[2,2,0]}],\"materials\":[{\"name\":\"red\"}],"
        "\"meshes\":[{\"name\":\"two\",\"primitives\":[{\"attributes\":{\"POSITION\":0},"
        "\"material\":0},{\"attributes\":{\"POSITION\":1}}]},{\"primitives\":[{\"attributes\":"
        "{\"POSITION\":0}}]}],\"nodes\":[{\"name\":\"a\",\"mesh\":0},{\"name\":\"b\",\"mesh\":0,"
        "\"translation\":[3,0,0]},{\"name\":\"c\",\"mesh\":1},{\"name\":\"d\",\"mesh\":0},"
        "{\"name\":\"e\",\"mesh\":1}],\"scenes\":[{\"nodes\":[0,1,2,3,4]}]}";
    if (!write_text(OUT "/shared_mesh_in.gltf", json)) {
        return;
    }
    oroya_gltf_model *a = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(OUT "/shared_mesh_in.gltf", NULL, &a, &err) == OROYA_OK, "%s",
                 err.message);
    if (!a) {
        return;
    }
    for (int with_model = 0; with_model < 2; with_model++) {
        const char *out = with_model ? OUT "/shared_mesh_model.gltf" : OUT "/shared_mesh.gltf";
        oroya_gltf_write_desc wd = {.model = with_model ? a : NULL};
        OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, out, &err) == OROYA_OK, "%s", err.message);
        cJSON *root = read_written(out);
        OT_CHECK(root != NULL);
        const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
        OT_CHECK_MSG(cJSON_GetArraySize(meshes) == 2, "with_model %d: %d meshes, expected 2",
                     with_model, cJSON_GetArraySize(meshes));
        OT_CHECK(cJSON_GetArraySize(nodes) == 5);
        /* Nodes a, b, d show mesh "two" (2 primitives), c and e the other one. */
        static const int expect[5] = {0, 0, 1, 0, 1};
        for (int i = 0; i < 5 && i < cJSON_GetArraySize(nodes); i++) {
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, i), "mesh");
            const cJSON *mesh = cJSON_GetArrayItem(meshes, cJSON_IsNumber(m) ? m->valueint : -1);
            int prims = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(mesh, "primitives"));
            OT_CHECK_MSG(cJSON_IsNumber(m) && prims == (expect[i] ? 1 : 2) &&
                             m->valueint ==
                                 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
                                     cJSON_GetArrayItem(nodes, expect[i] ? 2 : 0), "mesh")),
                         "with_model %d: node %d", with_model, i);
        }
        cJSON_Delete(root);
        reload_and_compare(out, a);
    }
    oroya_gltf_model_free(a);
}

/* Count of the written file's meshes, and every node's mesh index (-1: none) in mesh_of. */
static int written_meshes(const char *path, int *mesh_of, int max_nodes) {
    cJSON *root = read_written(path);
    OT_CHECK(root != NULL);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    for (int i = 0; i < max_nodes; i++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, i), "mesh");
        mesh_of[i] = cJSON_IsNumber(m) ? m->valueint : -1;
    }
    const int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "meshes"));
    cJSON_Delete(root);
    return n;
}

/* Instances of one skinned mesh (nodes showing glTF mesh 0 with skin 0, skin 0 again, or
 * skin 1 over the same joints) share one written mesh: import gives each node its own skin
 * copy, and export wrote one mesh, with a copy of every vertex array, per node. Nodes whose
 * skins have other influences get a mesh of their own, shared by those with the same. With and without the model; a mesh of
 * one primitive, and of two (import splits it into primitive children, export folds them). */
static void shared_skinned_mesh(int prims) {
    cJSON *root = read_written(ASSETS "/SimpleSkin/glTF/SimpleSkin.gltf");
    OT_CHECK(root != NULL);
    if (!root) {
        return;
    }
    cJSON *buffers = cJSON_GetObjectItemCaseSensitive(root, "buffers"), *b;
    cJSON_ArrayForEach(b, buffers) {
        char uri[1024];
        snprintf(uri, sizeof uri, "%s/SimpleSkin/glTF/%s", ASSETS,
                 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "uri")));
        cJSON_ReplaceItemInObjectCaseSensitive(b, "uri", cJSON_CreateString(uri));
    }
    if (prims == 2) {
        cJSON *p = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "meshes"), 0), "primitives");
        cJSON_AddItemToArray(p, cJSON_Duplicate(cJSON_GetArrayItem(p, 0), true));
    }
    cJSON *skins = cJSON_GetObjectItemCaseSensitive(root, "skins");
    cJSON_AddItemToArray(skins, cJSON_Duplicate(cJSON_GetArrayItem(skins, 0), true));
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    const int first = cJSON_GetArraySize(nodes);
    cJSON_AddItemToArray(nodes, cJSON_Parse("{\"name\":\"copy\",\"mesh\":0,\"skin\":0}"));
    cJSON_AddItemToArray(nodes, cJSON_Parse("{\"name\":\"other\",\"mesh\":0,\"skin\":1}"));
    cJSON_AddItemToArray(nodes, cJSON_Parse("{\"name\":\"other2\",\"mesh\":0,\"skin\":1}"));
    cJSON *scene_nodes = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "scenes"), 0), "nodes");
    cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(first));
    cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(first + 1));
    cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(first + 2));
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    const bool written = text && write_text(OUT "/skin_instances.gltf", text);
    free(text);
    if (!written) {
        return;
    }
    oroya_gltf_model *a = NULL;
    oroya_error err = {0};
    oroya_gltf_import_desc desc = {.allow_outside_base_dir = true};
    OT_CHECK_MSG(oroya_gltf_load(OUT "/skin_instances.gltf", &desc, &a, &err) == OROYA_OK, "%s",
                 err.message);
    if (!a) {
        return;
    }
    int mesh_of[8];
    for (int with_model = 0; with_model < 2; with_model++) {
        const char *out =
            with_model ? OUT "/skin_instances_model.gltf" : OUT "/skin_instances_out.gltf";
        oroya_gltf_write_desc wd = {.model = with_model ? a : NULL,
                                    .clips = (const oroya_clip *const *)a->clips,
                                    .clip_count = a->clip_count};
        OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, out, &err) == OROYA_OK, "%s", err.message);
        OT_EQ_INT(written_meshes(out, mesh_of, first + 3), 1);
        OT_CHECK_MSG(mesh_of[0] == 0 && mesh_of[first] == 0 && mesh_of[first + 1] == 0 &&
                         mesh_of[first + 2] == 0,
                     "with_model %d: meshes %d %d %d %d", with_model, mesh_of[0], mesh_of[first],
                     mesh_of[first + 1], mesh_of[first + 2]);
        reload_and_compare(out, a);
    }
    /* "other"'s and "other2"'s skins (of their first primitive) with their first influence on
     * the other joint: one mesh of their own, shared (skins A, B, B: each B was compared only
     * with A and got a mesh of its own). */
    oroya_skin *sk[2] = {NULL, NULL};
    const char *const names[2] = {"other", "other2"};
    for (int k = 0; k < 2; k++) {
        oroya_node other;
        OT_CHECK(oroya_gltf_model_find_node(a, names[k], &other, NULL) == OROYA_OK);
        if (prims == 2) {
            OT_EQ_INT(oroya_scene_child_count(a->scene, other), 2);
            OT_CHECK(oroya_scene_get_child(a->scene, other, 0, &other) == OROYA_OK);
        }
        sk[k] = (oroya_skin *)oroya_scene_get_skin(a->scene, other);
        OT_CHECK(sk[k] != NULL && sk[k]->joints != NULL);
    }
    if (sk[0] && sk[0]->joints && sk[1] && sk[1]->joints && sk[0] != sk[1]) {
        for (int k = 0; k < 2; k++) {
            uint16_t *j = (uint16_t *)(uintptr_t)sk[k]->joints; /* the skin's own copy */
            j[0] = j[0] == 0 ? 1 : 0; /* SimpleSkin's skin has two joints */
        }
        oroya_gltf_write_desc wd = {0};
        OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, OUT "/skin_instances_other.gltf", &err) ==
                         OROYA_OK,
                     "%s", err.message);
        OT_EQ_INT(written_meshes(OUT "/skin_instances_other.gltf", mesh_of, first + 3), 2);
        OT_CHECK_MSG(mesh_of[0] == mesh_of[first] && mesh_of[first + 1] >= 0 &&
                         mesh_of[first + 1] != mesh_of[0] &&
                         mesh_of[first + 2] == mesh_of[first + 1],
                     "meshes %d %d %d %d", mesh_of[0], mesh_of[first], mesh_of[first + 1],
                     mesh_of[first + 2]);
    }
    oroya_gltf_model_free(a);
}

static void test_shared_skinned_mesh(void) {
    shared_skinned_mesh(1);
    shared_skinned_mesh(2);
}

static int accessor_type(const cJSON *root, const cJSON *index) {
    const cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "accessors"),
                                          cJSON_IsNumber(index) ? index->valueint : -1);
    return (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(acc, "componentType"));
}

/* The export is no bigger than it must be: 16-bit indices stay 16-bit (they were all written
 * as UNSIGNED_INT), indices of 65535 and above are 32-bit, and tracks with the same key times
 * share one input accessor (each had its own: CesiumMan's 57 channels on 19 inputs came out
 * with 57 inputs, and its export was larger than the file even after compression). */
static void test_compact_indices_and_inputs(void) {
    oroya_gltf_model *a = NULL;
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_load(ASSETS "/CesiumMan/glTF/CesiumMan.gltf", NULL, &a, &err) ==
                     OROYA_OK,
                 "%s", err.message);
    if (!a) {
        return;
    }
    const char *out = OUT "/compact.gltf";
    oroya_gltf_write_desc wd = {
        .model = a, .clips = (const oroya_clip *const *)a->clips, .clip_count = a->clip_count};
    OT_CHECK_MSG(oroya_gltf_write(a->scene, &wd, out, &err) == OROYA_OK, "%s", err.message);
    cJSON *root = read_written(out);
    OT_CHECK(root != NULL);
    const cJSON *prim = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "meshes"), 0), "primitives"),
        0);
    OT_EQ_INT(accessor_type(root, cJSON_GetObjectItemCaseSensitive(prim, "indices")), 5123);
    const cJSON *anim = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "animations"), 0);
    const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(anim, "samplers");
    int inputs[64], distinct = 0;
    for (const cJSON *sm = samplers ? samplers->child : NULL; sm; sm = sm->next) {
        const int in = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(sm, "input"));
        int k = 0;
        while (k < distinct && inputs[k] != in) {
            k++;
        }
        if (k == distinct && distinct < 64) {
            inputs[distinct++] = in;
        }
    }
    /* The clip's distinct key-time arrays, by content (CesiumMan's 19 inputs hold the same
     * 48 times). */
    const oroya_clip *clip = a->clips[0];
    int different = 0;
    for (uint32_t t = 0; t < clip->track_count; t++) {
        uint32_t u = 0;
        while (u < t && !(clip->tracks[u].key_count == clip->tracks[t].key_count &&
                          !memcmp(clip->tracks[u].times, clip->tracks[t].times,
                                  clip->tracks[t].key_count * sizeof(float)))) {
            u++;
        }
        different += u == t;
    }
    OT_EQ_INT(cJSON_GetArraySize(samplers), 57);
    OT_CHECK(different >= 1 && different <= 19);
    OT_EQ_INT(distinct, different);
    cJSON_Delete(root);
    reload_and_compare(out, a);
    oroya_gltf_model_free(a);

    /* 300 x 300 segments: 90,601 vertices, indices past 65535 stay 32-bit. */
    oroya_scene *scene = NULL;
    oroya_geometry *sphere = NULL;
    oroya_node node;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    OT_CHECK(
        oroya_geometry_sphere(&(oroya_sphere_desc){.width_segments = 300, .height_segments = 300},
                              &sphere, NULL) == OROYA_OK);
    if (!scene || !sphere) {
        return;
    }
    OT_CHECK(sphere->vertex_count > 65536);
    OT_CHECK(oroya_scene_add_node(scene, "ball", (oroya_node){0}, OROYA_NODE_MESH, &node) ==
             OROYA_OK);
    OT_CHECK(oroya_scene_set_mesh(scene, node, sphere, NULL) == OROYA_OK);
    OT_CHECK_MSG(oroya_gltf_write(scene, &(oroya_gltf_write_desc){0}, OUT "/big_indices.gltf",
                                  &err) == OROYA_OK,
                 "%s", err.message);
    root = read_written(OUT "/big_indices.gltf");
    prim = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "meshes"), 0), "primitives"),
        0);
    OT_EQ_INT(accessor_type(root, cJSON_GetObjectItemCaseSensitive(prim, "indices")), 5125);
    cJSON_Delete(root);
    oroya_gltf_model *b = NULL;
    OT_CHECK_MSG(oroya_gltf_load(OUT "/big_indices.gltf", NULL, &b, &err) == OROYA_OK, "%s",
                 err.message);
    oroya_gltf_model_free(b);
    oroya_scene_destroy(scene);
    oroya_geometry_destroy(sphere);
}

/* FILE.GLTF gets FILE.bin as FILE.gltf does (it got FILE.GLTF.bin, against the header). */
static void test_node_rotation_unit(void) {
    /* glTF's node rotation is a unit quaternion with components in [-1, 1]: a scene
     * rotation off unit by more than OROYA_CLIP_UNIT_TOLERANCE (the 1e-3 of the keys) is
     * written normalized ([0, 0, 0, 2] -> [0, 0, 0, 1]; [0, 0.6, 0, 1.6] has length
     * sqrt(2.92): each over it), and so is one within it but with a component past 1
     * ([0, 0, 0, 1.0005] -> [0, 0, 0, 1]); one within it and in range is written bit for
     * bit ([0, 0, 0.6, 0.8003], length 1.00024). A -0.0 is written "-0" (cJSON alone
     * prints "0"). */
    const float in[4][4] = {
        {0, 0, 0, 2}, {0, 0.6f, 0, 1.6f}, {0, 0, 0, 1.0005f}, {0, 0, 0.6f, 0.8003f}};
    oroya_scene *scene = NULL;
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    for (int i = 0; i < 4; i++) {
        oroya_node n;
        char name[8];
        snprintf(name, sizeof name, "n%d", i);
        OT_CHECK(oroya_scene_add_node(scene, name, (oroya_node){0}, OROYA_NODE_OBJECT, &n) ==
                 OROYA_OK);
        oroya_transform t = oroya_transform_identity();
        t.rotation = (oroya_quat){in[i][0], in[i][1], in[i][2], in[i][3]};
        t.translation = (oroya_vec3){-0.0f, 1, 0}; /* -0.0 is written as -0, not 0 */
        OT_CHECK(oroya_scene_set_transform(scene, n, &t) == OROYA_OK);
    }
    oroya_error err = {0};
    OT_CHECK_MSG(oroya_gltf_write(scene, &(oroya_gltf_write_desc){0}, OUT "/rotation_unit.gltf",
                                  &err) == OROYA_OK,
                 "%s", err.message);
    cJSON *root = read_written(OUT "/rotation_unit.gltf");
    const cJSON *nodes = cJSON_GetObjectItem(root, "nodes");
    const double l1 = sqrt(0.36 + 1.6 * 1.6);
    const double want[4][4] = {
        {0, 0, 0, 1}, {0, 0.6 / l1, 0, 1.6 / l1}, {0, 0, 0, 1}, {0, 0, 0.6f, 0.8003f}};
    for (int i = 0; i < 4; i++) {
        const cJSON *r = cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, i), "rotation");
        OT_EQ_INT(cJSON_GetArraySize(r), 4);
        for (int k = 0; k < 4 && r; k++) {
            const double got = cJSON_GetArrayItem(r, k)->valuedouble;
            if (i == 3) {
                /* the float's bits (the text may be a shorter decimal of it) */
                OT_CHECK_MSG((float)got == (float)want[i][k], "node %d [%d]: %.17g", i, k, got);
            } else {
                OT_NEAR(got, want[i][k], 1e-7);
            }
        }
        const cJSON *tr = cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, i), "translation");
        OT_CHECK(tr && cJSON_GetArrayItem(tr, 0)->valuedouble == 0 &&
                 signbit(cJSON_GetArrayItem(tr, 0)->valuedouble));
    }
    cJSON_Delete(root);
    oroya_scene_destroy(scene);
}

static void test_upper_case_extension(void) {
    oroya_scene *scene = NULL;
    oroya_geometry *box = NULL;
    oroya_node node;
    oroya_error err = {0};
    OT_CHECK(oroya_scene_create(NULL, &scene) == OROYA_OK);
    OT_CHECK(oroya_geometry_box(&(oroya_box_desc){0}, &box, NULL) == OROYA_OK);
    if (!scene || !box) {
        return;
    }
    OT_CHECK(oroya_scene_add_node(scene, "box", (oroya_node){0}, OROYA_NODE_MESH, &node) ==
             OROYA_OK);
    OT_CHECK(oroya_scene_set_mesh(scene, node, box, NULL) == OROYA_OK);
    remove(OUT "/UPPER.bin");
    remove(OUT "/UPPER.GLTF.bin");
    OT_CHECK_MSG(oroya_gltf_write(scene, NULL, OUT "/UPPER.GLTF", &err) == OROYA_OK, "%s",
                 err.message);
    cJSON *root = read_written(OUT "/UPPER.GLTF");
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "buffers"), 0), "uri");
    OT_CHECK_MSG(cJSON_IsString(uri) && !strcmp(uri->valuestring, "UPPER.bin"), "uri %s",
                 cJSON_IsString(uri) ? uri->valuestring : "(none)");
    cJSON_Delete(root);
    OT_CHECK(access(OUT "/UPPER.bin", F_OK) == 0);
    oroya_gltf_model *b = NULL;
    OT_CHECK_MSG(oroya_gltf_load(OUT "/UPPER.GLTF", NULL, &b, &err) == OROYA_OK, "%s", err.message);
    oroya_gltf_model_free(b);
    oroya_scene_destroy(scene);
    oroya_geometry_destroy(box);
}

int main(void) {
    if (mkdir(OUT, 0755) != 0 && errno != EEXIST) {
        perror(OUT);
    }
    OT_RUN(test_round_trip);
    OT_RUN(test_errors);
    OT_RUN(test_markers_round_trip);
    OT_RUN(test_curves_round_trip);
    OT_RUN(test_write_gltf_rules);
    OT_RUN(test_textures_follow_images);
    OT_RUN(test_clip_file_names);
    OT_RUN(test_copyright_and_invalid_values);
    OT_RUN(test_shared_multi_primitive_mesh);
    OT_RUN(test_shared_skinned_mesh);
    OT_RUN(test_compact_indices_and_inputs);
    OT_RUN(test_upper_case_extension);
    OT_RUN(test_node_rotation_unit);
    return ot_finish();
}
