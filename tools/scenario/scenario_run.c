/* The scenario runner behind `oroya play` (see oroya_scenario.h): reads a scenario of the
 * three.js reference format (docs/scenario.md), runs it through oroya's mixer and writes the
 * result format. The setup follows the oracle's order (nodes, skins, clips, makeAdditive,
 * lazily created actions) and the stepping is docs/scenario.md's, with the clock accumulated in
 * double. A malformed scenario is reported with the JSON path of the offending value.
 * scenario_internal.h lists the files and what each holds. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oroya/json.h"
#include "scenario_internal.h"

/* Everything the runner allocates goes through the desc's allocator (cJSON excepted: its
 * hooks are global, see scenario.h). */
static void *watch_alloc(size_t size, size_t align, void *user) {
    play *p = user;
    void *m = oroya_allocator_alloc(&p->user_alloc, size, align);
    if (!m)
        p->out_of_memory = true;
    return m;
}

static void watch_free(void *m, void *user) {
    play *p = user;
    oroya_allocator_free(&p->user_alloc, m);
}

/* The IKs' run-time fallbacks at step i (the chains left as blended: docs/ik.md, "Errors and
 * fallbacks") as a warning, when they differ from the last ones warned of (their number or
 * the first of them), and their end: a target held in a degenerate place is said once, not
 * every step. */
static void warn_ik_fallbacks(play *p, size_t i, oroya_result scene_result,
                              const char *scene_message) {
    char now[sizeof p->ik_fallback] = "";
    if (p->kiks) {
        uint32_t first = 0;
        const uint32_t n = oroya_mixer_ik_fallbacks(p->mixer, &first);
        if (n == 1 && first < (uint32_t)p->ik_count)
            snprintf(now, sizeof now,
                     "oroya.ik[%u] \"%s\" fell back: its chain is left as blended (a target or "
                     "pole not finite, or degenerate in this pose)",
                     first, p->iks[first].name);
        else if (n > 1 && first < (uint32_t)p->ik_count)
            snprintf(now, sizeof now,
                     "%u IKs fell back: their chains are left as blended (first: oroya.ik[%u] "
                     "\"%s\"; a target or pole not finite, or degenerate in this pose)",
                     n, first, p->iks[first].name);
    } else if (scene_result != OROYA_OK) {
        snprintf(now, sizeof now, "%s", scene_message);
    }
    if (!strcmp(now, p->ik_fallback))
        return;
    memcpy(p->ik_fallback, now, sizeof now);
    if (p->desc->on_warning) {
        char msg[sizeof now + 64];
        snprintf(msg, sizeof msg, "steps[%zu]: ik: %s", i,
                 now[0] ? now : "no IK falls back any more (every chain solved again)");
        p->desc->on_warning(msg, p->desc->user);
    }
}

/* Step i of docs/scenario.md's stepping: the ops due, the mixer update by the step's dt, the
 * world matrices, the IKs and the skins. */
static int run_step(play *p, op_queue *q, size_t i, double *clock) {
    double dt = p->dts ? p->dts[i] : p->fixed_dt;
    p->event_count = 0;
    if (sc_run_due_ops(p, q, i, *clock))
        return -1;
    if (p->kiks) {
        sc_sync_mixer_ik(p);
    }
    if (oroya_mixer_update(p->mixer, dt) != OROYA_OK) {
        /* The mixer's reason (it said "a NaN, infinite or negative dt" for every refusal,
         * also of a finite dt that a time scale or a clip's duration makes overflow). */
        const char *why = oroya_mixer_last_error(p->mixer);
        return sc_fail(p, "steps[%zu]: %s%s", i, why[0] ? why : "the mixer refused the update",
                       isfinite(dt) && dt >= 0
                           ? ""
                           : " (a NaN, infinite or negative dt is an error in oroya: deviation 1 "
                             "from three.js)");
    }
    p->stats.updates++;
    p->stats.kernel_updates += oroya_mixer_kernel_active(p->mixer);
    *clock += dt;
    if (!isfinite(*clock)) /* a mixer time scale of 0 lets every dt through */
        return sc_fail(p, "steps[%zu]: dt %g takes the clock past the double range", i, dt);
    oroya_scene_update_world(p->scene);
    if (p->ik_count) {
        oroya_error ik_err = {0};
        const oroya_result ik_r =
            p->kiks ? OROYA_OK
                    : oroya_ik_scene_apply(p->scene, p->iks, (uint32_t)p->ik_count, &ik_err);
        warn_ik_fallbacks(p, i, ik_r, ik_err.message);
    }
    char where[48];
    snprintf(where, sizeof where, "steps[%zu]", i);
    if (sc_check_world(p, where) || sc_update_skins(p))
        return -1;
    if (p->events_failed)
        return sc_fail(p, "out of memory");
    return 0;
}

/* p->gltf_shared_anim / _accessor from the parsed file (see scenario_internal.h). */
static oroya_result note_shared_outputs(play *p, const oroya_gltf_data *d, oroya_error *err) {
    const uint32_t n = d->animation_count, na = d->accessor_count, none = UINT32_MAX;
    if (!n)
        return OROYA_OK;
    uint32_t *anim = sc_malloc(p, 2 * (size_t)n * sizeof *anim);
    /* per accessor: the first animation that reads it, another one, and how many channels */
    uint32_t *acc = na ? sc_malloc(p, 3 * (size_t)na * sizeof *acc) : NULL;
    if (!anim || (na && !acc)) {
        sc_free(p, anim);
        sc_free(p, acc);
        return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (uint32_t i = 0; i < 2 * n; i++)
        anim[i] = none;
    for (uint32_t i = 0; i < 3 * na; i++)
        acc[i] = i < 2 * na ? none : 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t a = 0; a < n; a++) {
            const oroya_gltf_animation *an = &d->animations[a];
            for (uint32_t c = 0; c < an->channel_count; c++) {
                const oroya_gltf_channel *ch = &an->channels[c];
                if (ch->node == OROYA_GLTF_NONE || ch->sampler >= an->sampler_count)
                    continue;
                const uint32_t o = an->samplers[ch->sampler].output;
                if (o >= na || d->accessors[o].normalized)
                    continue; /* GLTFLoader scales a normalized output into a new array */
                if (pass == 0) {
                    if (acc[o] == none)
                        acc[o] = a;
                    else if (acc[o] != a && acc[na + o] == none)
                        acc[na + o] = a;
                    acc[2 * na + o]++;
                } else if (acc[2 * na + o] > 1 && anim[a] == none) {
                    anim[a] = acc[o] != a ? acc[o] : acc[na + o] != none ? acc[na + o] : a;
                    anim[n + a] = o;
                }
            }
        }
    }
    sc_free(p, acc);
    p->gltf_shared_anim = anim;
    p->gltf_shared_accessor = anim + n;
    return OROYA_OK;
}

/* The "gltf" model through the desc's reader: the file, then its URIs from its folder. */
static oroya_result load_through_reader(play *p, const char *rel, const char *path,
                                        const char *base, oroya_error *err) {
    const oroya_scenario_desc *d = p->desc;
    void *bytes = NULL;
    uint64_t size = 0;
    oroya_result r = d->read_file(d->read_user, rel, path, base, OROYA_GLTF_MAX_FILE_SIZE, p->alloc,
                                  &bytes, &size, err);
    if (r != OROYA_OK) {
        return r; /* the reader freed what it allocated */
    }
    char *dir = sc_malloc(p, strlen(path) + 2);
    if (size > OROYA_GLTF_MAX_FILE_SIZE) {
        r = oroya_error_set(err, OROYA_ERR_LIMIT, "\"%s\": the reader gave %llu bytes, over %llu",
                            rel, (unsigned long long)size,
                            (unsigned long long)OROYA_GLTF_MAX_FILE_SIZE);
    } else if (!dir) {
        r = oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY, "out of memory");
    }
    oroya_gltf_data *data = NULL;
    if (r == OROYA_OK) {
        const char *slash = strrchr(path, '/');
        size_t n = slash ? (size_t)(slash - path) + 1 : 0;
        memcpy(dir, path, n);
        dir[n] = '\0';
        oroya_gltf_desc gd = {.allocator = *p->alloc,
                              .base_dir = dir,
                              .allow_outside_base_dir = d->allow_outside_base_dir,
                              .read_file = d->read_file,
                              .read_user = d->read_user};
        r = oroya_gltf_parse(&gd, bytes, (size_t)size, &data, err);
    }
    r = r ? r : oroya_gltf_load_buffers(data, err);
    r = r ? r : oroya_gltf_validate(data, err);
    r = r ? r
          : oroya_gltf_import(
                data, &(oroya_gltf_import_desc){.allocator = *p->alloc, .skip_images = true},
                &p->model, err);
    r = r ? r : note_shared_outputs(p, data, err);
    oroya_gltf_free(data);
    sc_free(p, dir);
    sc_free(p, bytes);
    return r;
}

/* oroya_gltf_load, keeping what note_shared_outputs needs from the parsed file. */
static oroya_result load_path(play *p, const char *path, oroya_error *err) {
    oroya_gltf_desc gd = {.allocator = *p->alloc,
                          .allow_outside_base_dir = p->desc->allow_outside_base_dir};
    oroya_gltf_data *data = NULL;
    oroya_result r = oroya_gltf_parse_file(&gd, path, &data, err);
    r = r ? r : oroya_gltf_validate(data, err);
    r = r ? r
          : oroya_gltf_import(data,
                              &(oroya_gltf_import_desc){.allocator = *p->alloc,
                                                        .skip_images = true,
                                                        .allow_outside_base_dir =
                                                            p->desc->allow_outside_base_dir},
                              &p->model, err);
    r = r ? r : note_shared_outputs(p, data, err);
    oroya_gltf_free(data);
    return r;
}

/* Whether `real` (a resolved path) lies under folder `dir` once `dir` is resolved too. */
static bool under_folder(const char *real, const char *dir) {
    if (!dir)
        return false;
    char *base = realpath(dir[0] ? dir : ".", NULL);
    if (!base)
        return false;
    size_t n = strlen(base);
    bool in = strncmp(real, base, n) == 0 && (real[n] == '/' || (n == 1 && base[0] == '/'));
    free(base);
    return in;
}

/* A scenario from a stranger names its model: it must stay in the scenario's folder
 * (base_dir, subfolders included) or desc->allow_gltf_dir once "..", and symbolic links are
 * resolved, else OROYA_ERR_ACCESS naming "gltf" and the scenario's string. On success *real
 * is the resolved path (malloc'd: free()), which is what gets opened, so no link on the way
 * can be swapped after the check. A path that does not resolve (missing, unreadable) or
 * resolves to a folder ("." is the scenario's own folder, which is not under itself: it was
 * called outside) is -1 with errno set (*real NULL). */
int oroya_scenario_gltf_inside(const char *base_dir, const char *allow_dir, const char *path,
                               char **real) {
    *real = path ? realpath(path, NULL) : NULL;
    if (!*real)
        return -1;
    struct stat st;
    if (stat(*real, &st) == 0 && S_ISDIR(st.st_mode)) {
        free(*real);
        *real = NULL;
        errno = EISDIR;
        return -1;
    }
    return under_folder(*real, base_dir ? base_dir : ".") || under_folder(*real, allow_dir);
}

static int confine_gltf(play *p, const char *rel, const char *path, char **real) {
    const char *base = p->desc->base_dir ? p->desc->base_dir : ".";
    const int inside = oroya_scenario_gltf_inside(base, p->desc->allow_gltf_dir, path, real);
    if (inside < 0) {
        /* Nothing is opened that the check could not place (it was opened unconfined: a file
         * made between the check and the open was read). */
        const int e = errno;
        if (e == ENOMEM)
            return sc_fail(p, "out of memory");
        p->fail_code = e == ENOENT || e == ENOTDIR ? OROYA_ERR_NOT_FOUND : OROYA_ERR_IO;
        if (e == EISDIR)
            return sc_fail(p, "gltf: \"%.300s\" is not a regular file (a directory)", rel);
        return sc_fail(p, "gltf: \"%.300s\": cannot open: %s", rel, strerror(e ? e : EIO));
    }
    if (inside)
        return 0;
    p->fail_code = OROYA_ERR_ACCESS;
    int rc = sc_fail(p,
                     "gltf: \"%.300s\" leads outside the scenario's folder \"%.300s\" (resolves "
                     "to \"%.300s\"); allow_gltf_dir (oroya play --allow-gltf-dir DIR) permits "
                     "a folder",
                     rel, base, *real);
    free(*real);
    *real = NULL;
    return rc;
}

static int run(play *p, play_buf *out) {
    const cJSON *gltf = cJSON_GetObjectItemCaseSensitive(p->root, "gltf");
    if (gltf && !cJSON_IsNull(gltf)) {
        /* The model's scene becomes the scenario's scene; scenario nodes join it. */
        if (!cJSON_IsString(gltf) || !gltf->valuestring[0])
            return sc_fail(p, "gltf: expected a path");
        const char *rel = gltf->valuestring;
        const char *base = p->desc->base_dir ? p->desc->base_dir : ".";
        size_t len = strlen(base) + strlen(rel) + 2;
        char *path = sc_malloc(p, len);
        if (!path)
            return sc_fail(p, "out of memory");
        if (rel[0] == '/')
            snprintf(path, len, "%s", rel);
        else
            snprintf(path, len, "%s/%s", base, rel);
        char *real = NULL;
        if (!p->desc->read_file && confine_gltf(p, rel, path, &real)) {
            sc_free(p, path);
            return -1;
        }
        oroya_error err = {0};
        oroya_result r = p->desc->read_file ? load_through_reader(p, rel, path, base, &err)
                                            : load_path(p, real ? real : path, &err);
        free(real);
        sc_free(p, path);
        if (r != OROYA_OK)
            return sc_fail(p, "gltf: %s", err.message[0] ? err.message : oroya_result_string(r));
        p->scene = p->model->scene;
        sc_warn_ignored_channels(p, p->model);
        sc_warn_ignored_extras(p, p->model);
    } else if (oroya_scene_create(&(oroya_scene_desc){.allocator = *p->alloc}, &p->scene) !=
               OROYA_OK) {
        return sc_fail(p, "cannot create the scene");
    }
    if (sc_setup_nodes(p))
        return -1;
    if (sc_setup_skins(p))
        return -1;
    if (sc_setup_clips(p) || sc_check_scenario_curves(p) || sc_setup_oroya_markers(p) ||
        sc_setup_actions(p))
        return -1;
    oroya_mixer_desc md = {.max_actions = 4096,
                           .max_bindings = 16384,
                           .on_event = sc_on_event,
                           .user = p,
                           .allocator = *p->alloc};
    /* The whole scene as the rig (runtime clips are built per action, after the setup's
     * makeClipAdditive). A scene the kernel cannot hold (more than OROYA_POSE_MAX_JOINTS
     * nodes) plays through the property path alone, with the same results.
     * OROYA_PLAY_NO_RIG=1 in the environment does the same for any scene (a testing aid:
     * tests/conformance/tools/random_scenarios.mjs runs both paths against three.js). */
    const char *no_rig = getenv("OROYA_PLAY_NO_RIG");
    if (oroya_scene_node_count(p->scene) > 0 && !(no_rig && !strcmp(no_rig, "1"))) {
        oroya_error rerr = {0};
        oroya_result rr = oroya_rig_create(
            &(oroya_rig_desc){.scene = p->scene, .name = "the scene", .allocator = *p->alloc},
            &p->rig, &rerr);
        if (rr == OROYA_ERR_OUT_OF_MEMORY)
            return sc_fail(p, "out of memory");
        if (rr != OROYA_ERR_LIMIT && rr != OROYA_OK)
            return sc_fail(p, "rig: %s", rerr.message);
        md.rig = p->rig;
    }
    if (oroya_mixer_create(p->scene, &md, &p->mixer) != OROYA_OK)
        return sc_fail(p, "cannot create the mixer");
    const cJSON *mts = cJSON_GetObjectItemCaseSensitive(p->root, "mixerTimeScale");
    if (mts) {
        double s = 1;
        if (sc_get_number(p, p->root, "mixerTimeScale", "(scenario)", &s))
            return -1;
        oroya_mixer_set_time_scale(p->mixer, s);
    }
    if (sc_setup_oroya_extension(p) || sc_setup_oroya_masks(p) || sc_setup_oroya_root_motion(p))
        return -1;
    if (sc_setup_script(p) || sc_setup_steps(p) || sc_setup_records(p))
        return -1;

    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p->root, "name");
    play_buf_put(out, "{\"format\":1,\"threeVersion\":\"0.187.0\",\"cubicSplineSource\":"
                      "\"GLTFLoader\",\"scenario\":");
    if (cJSON_IsString(name))
        play_buf_string(out, name->valuestring);
    else
        play_buf_put(out, "null");
    op_queue q = {0};
    if (sc_op_queue_init(p, &q))
        return -1;
    play_buf frames = {.alloc = p->alloc};
    double clock = 0;
    int rc = 0;
    for (size_t i = 0; i < p->dt_count && !rc; i++) {
        rc = run_step(p, &q, i, &clock);
        if (!rc)
            rc = sc_write_frame(p, &frames, i, clock);
    }
    sc_op_queue_free(p, &q);
    if (rc) {
        play_buf_free(&frames);
        return -1;
    }
    int pending = 0;
    for (int k = 0; k < p->op_count; k++)
        pending += !p->ops[k].done;
    char tmp[64];
    snprintf(tmp, sizeof tmp, ",\"unexecutedOps\":%d", pending);
    play_buf_put(out, tmp);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p->root, "dumpClips")))
        sc_put_clips(p, out);
    play_buf_put(out, ",\"frames\":[\n");
    if (frames.data)
        play_buf_put(out, frames.data);
    play_buf_put(out, "\n]}\n");
    bool failed = frames.failed;
    play_buf_free(&frames);
    if (failed || out->failed)
        return sc_fail(p, "out of memory");
    return 0;
}

static void cleanup(play *p) {
    oroya_mixer_destroy(p->mixer);
    oroya_rig_destroy(p->rig);
    for (int i = 0; i < p->skin_count; i++) {
        oroya_skin_destroy(p->skins[i].skin);
        oroya_skeleton_destroy(p->skins[i].skeleton);
        sc_free(p, p->skins[i].vertices);
    }
    sc_free(p, p->skins);
    for (int i = 0; i < p->action_count; i++)
        oroya_clip_destroy(p->actions[i].copy);
    for (int c = 0; c < p->clip_count; c++) {
        if (p->clips[c].gltf) {
            sc_free(p, (void *)p->clips[c].name);
            continue;
        }
        oroya_clip_destroy(p->clips[c].clip);
        for (uint32_t i = 0; p->clips[c].track_names && p->clips[c].track_names[i]; i++)
            sc_free(p, (void *)p->clips[c].track_names[i]);
        sc_free(p, p->clips[c].track_names);
    }
    if (p->model)
        oroya_gltf_model_free(p->model);
    else
        oroya_scene_destroy(p->scene);
    sc_free(p, p->gltf_shared_anim);
    oroya_geometry_destroy(p->mesh_geometry); /* after the scene that borrowed it */
    sc_free(p, p->materials);
    for (int i = 0; i < p->node_count; i++)
        if (p->nodes[i].gltf)
            sc_free(p, (void *)p->nodes[i].name);
    for (int i = 0; i < p->record_count; i++)
        sc_free(p, p->records[i].scratch);
    sc_free(p, p->nodes);
    sc_free(p, p->node_hash);
    sc_free(p, p->clips);
    sc_free(p, p->actions);
    sc_free(p, p->ops);
    sc_free(p, p->records);
    sc_free(p, p->dts);
    sc_free(p, p->events);
    sc_free(p, p->iks);
    sc_free(p, p->kiks);
    sc_free(p, p->ik_limits);
    sc_free(p, p->ik_world);
    sc_free(p, p->ik_rot);
    sc_free(p, p->masks);
    sc_free(p, (void *)p->mask_names);
    cJSON_Delete(p->root);
}

oroya_result oroya_scenario_run(const char *json, size_t len, const oroya_scenario_desc *desc,
                                char **out, size_t *out_len, oroya_error *err) {
    if (out)
        *out = NULL;
    if (out_len)
        *out_len = 0;
    if (!json || !desc || !out || !out_len)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_scenario_run: %s is NULL",
                               !json   ? "json"
                               : !desc ? "desc"
                               : !out  ? "out"
                                       : "out_len");
    if ((uint64_t)len > OROYA_SCENARIO_MAX_SIZE)
        return oroya_error_set(err, OROYA_ERR_LIMIT,
                               "(scenario): %llu bytes, over the limit of %llu "
                               "(OROYA_SCENARIO_MAX_SIZE)",
                               (unsigned long long)len,
                               (unsigned long long)OROYA_SCENARIO_MAX_SIZE);
    play p = {.desc = desc, .user_alloc = desc->allocator};
    p.watch = (oroya_allocator){watch_alloc, watch_free, &p};
    p.alloc = &p.watch;
    /* Raw NUL bytes (cJSON takes them for whitespace, or cuts a string at one) and text
     * that is not UTF-8 are not JSON (RFC 8259). */
    oroya_result r = oroya_json_text_check(json, len, &len, err);
    if (r != OROYA_OK)
        return r;
    /* cJSON's tree costs about 80 bytes a value: counted first, refused past the limit
     * before cJSON allocates one. */
    size_t values = 0;
    if (oroya_json_values_check(json, len, (size_t)OROYA_SCENARIO_MAX_JSON_VALUES, &values, NULL) !=
        OROYA_OK)
        return oroya_error_set(err, OROYA_ERR_LIMIT,
                               "(scenario): %zu JSON values, the limit is %llu "
                               "(OROYA_SCENARIO_MAX_JSON_VALUES)",
                               values, (unsigned long long)OROYA_SCENARIO_MAX_JSON_VALUES);
    const char *end = NULL;
    p.root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!p.root) {
        /* cJSON reports a failed allocation as a parse error too. */
        size_t at = end ? (size_t)(end - json) : 0;
        return oroya_json_failure_describe(json, len, at, CJSON_NESTING_LIMIT, err);
    }
    play_buf text = {.alloc = p.alloc};
    int rc = 0;
    if (!cJSON_IsObject(p.root))
        rc = sc_fail(&p, "(top level): expected an object");
    else
        rc = run(&p, &text);
    if (rc) {
        r = p.out_of_memory ? OROYA_ERR_OUT_OF_MEMORY
            : p.fail_code   ? p.fail_code
                            : OROYA_ERR_INVALID_DATA;
        oroya_error_set(err, r, "%s", p.error);
        play_buf_free(&text);
    } else {
        *out = text.data;
        *out_len = text.len;
        if (desc->stats)
            *desc->stats = p.stats;
    }
    cleanup(&p);
    return r;
}

void oroya_scenario_free_output(const oroya_scenario_desc *desc, char *out) {
    if (out && desc)
        oroya_allocator_free(&desc->allocator, out);
}
