/* The result of a scenario (docs/scenario.md, "record" and the result format): the record
 * keys, read at setup, and each frame's values and mixer events; "dumpClips". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

static const char *const action_field_names[A_COUNT] = {
    "effectiveWeight", "weight", "time",    "effectiveTimeScale", "timeScale",
    "enabled",         "paused", "running", "scheduled",          "loopCount",
    "repetitions",     "fading", "warping"};

/* A record key's name and what it reads. */
typedef struct key_kind {
    const char *name;
    rec_kind kind;
} key_kind;

static const key_kind mixer_keys[] = {{"mixer.time", R_MIXER_TIME},
                                      {"mixer.timeScale", R_MIXER_TIME_SCALE},
                                      {"mixer.activeActions", R_ACTIVE_ACTIONS},
                                      {"mixer.stats", R_STATS}};

static const key_kind node_fields[] = {
    {"position", R_POSITION},       {"translation", R_POSITION}, {"quaternion", R_QUATERNION},
    {"rotation", R_QUATERNION},     {"scale", R_SCALE},          {"matrix", R_MATRIX},
    {"matrixWorld", R_MATRIX_WORLD}};

/* The kind of `name` in table[0..n), -1 when it is not there. */
static int kind_of(const key_kind *table, size_t n, const char *name) {
    for (size_t k = 0; k < n; k++)
        if (!strcmp(name, table[k].name))
            return (int)table[k].kind;
    return -1;
}

/* Whether a scheduled action's clip has a weights track on `target`. */
static bool weights_scheduled(const play *p, const char *target) {
    const uint32_t n = oroya_mixer_active_action_count(p->mixer);
    for (uint32_t i = 0; i < n; i++) {
        const oroya_clip *clip = oroya_action_clip(oroya_mixer_active_action(p->mixer, i));
        for (uint32_t t = 0; clip && t < clip->track_count; t++)
            if (clip->tracks[t].property == OROYA_PROPERTY_WEIGHTS &&
                !strcmp(clip->tracks[t].target, target))
                return true;
    }
    return false;
}

/* three's GLTFLoader makes a weights channel on a mesh of several primitives one track per
 * primitive mesh, each with its own binding; oroya makes one track on the glTF node
 * (docs/gltf.md). So that mixer.stats counts bindings as three does, every glTF node whose
 * weights a scheduled action animates adds its mesh's primitives beyond the first. */
static uint32_t three_extra_weight_bindings(const play *p) {
    const oroya_gltf_model *m = p->model;
    uint32_t extra = 0;
    for (uint32_t n = 0; m && n < m->node_count; n++) {
        const uint32_t mesh = m->node_meshes[n];
        if (mesh == OROYA_GLTF_NONE || mesh >= m->mesh_count || !m->node_names[n])
            continue;
        const uint32_t first = m->mesh_first_geometry[mesh];
        const uint32_t end =
            mesh + 1 < m->mesh_count ? m->mesh_first_geometry[mesh + 1] : m->geometry_count;
        if (end > first + 1 && weights_scheduled(p, m->node_names[n]))
            extra += end - first - 1;
    }
    return extra;
}

/* "action:<action or clip>.<field>". */
static int action_record(play *p, int i, const char *key, const char *target, const char *field,
                         play_record *rec) {
    rec->kind = R_ACTION;
    rec->slot = sc_find_action(p, target);
    if (rec->slot < 0)
        return sc_fail(p, "record[%d]: key '%.200s': unknown action/clip '%.200s'", i, key, target);
    int f = -1;
    for (int k = 0; k < A_COUNT; k++)
        if (!strcmp(field, action_field_names[k]))
            f = k;
    if (f < 0)
        return sc_fail(p, "record[%d]: key '%.200s': unknown action field '%.100s'", i, key, field);
    rec->field = (action_field)f;
    return 0;
}

/* "skin:<scenario skin>.boneMatrices | .vertices", or "skin:<glTF skin index>.boneMatrices". */
static int skin_record(play *p, int i, const char *key, const char *target, const char *field,
                       play_record *rec) {
    rec->skin = sc_find_skin(p, target);
    const char *digits = target;
    bool all_digits = *digits != '\0';
    for (const char *d = digits; *d; d++)
        all_digits = all_digits && *d >= '0' && *d <= '9';
    if (rec->skin < 0 && p->model && all_digits && strlen(digits) < 10 &&
        (uint32_t)atol(digits) < p->model->skin_count) {
        /* glTF skin by index: its joints' bone matrices. */
        if (strcmp(field, "boneMatrices"))
            return sc_fail(p, "record[%d]: key '%.200s': glTF skins record boneMatrices only", i,
                           key);
        rec->kind = R_GLTF_BONES;
        rec->skin = (int)atol(digits);
        rec->scratch =
            sc_calloc(p, (size_t)p->model->skins[rec->skin].joint_count * 16 + 1, sizeof(float));
        if (!rec->scratch)
            return sc_fail(p, "out of memory");
        return 0;
    }
    if (rec->skin < 0)
        return sc_fail(p, "record[%d]: key '%.200s': unknown skin '%.200s'", i, key, target);
    if (!strcmp(field, "boneMatrices"))
        rec->kind = R_SKIN_BONES;
    else if (!strcmp(field, "vertices"))
        rec->kind = R_SKIN_VERTICES;
    else
        return sc_fail(p, "record[%d]: key '%.200s': unknown skin field '%.100s'", i, key, field);
    return 0;
}

/* The record keys of typed properties: <node>.intensity (a light), .fov (a camera), .color (a
 * mesh's colour, three's .material.color), .visible. Returns 0 and sets *kind for one of them,
 * -1 after failing for a node without the component, 1 for any other field. */
static int typed_record_kind(play *p, int i, const char *key, const char *field, oroya_node node,
                             rec_kind *kind) {
    oroya_light l;
    oroya_camera c;
    if (!strcmp(field, "visible")) {
        *kind = R_VISIBLE;
        return 0;
    }
    if (!strcmp(field, "intensity")) {
        if (oroya_scene_get_light(p->scene, node, &l) != OROYA_OK)
            return sc_fail(p, "record[%d]: key '%.200s': the node has no light", i, key);
        *kind = R_INTENSITY;
        return 0;
    }
    if (!strcmp(field, "fov")) {
        if (oroya_scene_get_camera(p->scene, node, &c) != OROYA_OK)
            return sc_fail(p, "record[%d]: key '%.200s': the node has no camera", i, key);
        *kind = R_FOV;
        return 0;
    }
    if (!strcmp(field, "color")) {
        if (oroya_scene_get_mesh(p->scene, node, NULL, NULL) != OROYA_OK)
            return sc_fail(p, "record[%d]: key '%.200s': the node has no mesh", i, key);
        *kind = R_COLOR;
        return 0;
    }
    return 1;
}

/* "<node>.<field>": a scenario node or a glTF node; "weights" of a glTF node with morph
 * targets. */
static int node_record(play *p, int i, const char *key, const char *target, const char *field,
                       play_record *rec) {
    rec->node = sc_find_node(p, target);
    if (rec->node < 0)
        return sc_fail(p, "record[%d]: key '%.200s': unknown node '%.200s'", i, key, target);
    int kind = kind_of(node_fields, sizeof node_fields / sizeof *node_fields, field);
    if (kind >= 0) {
        rec->kind = (rec_kind)kind;
        return 0;
    }
    if (strcmp(field, "weights")) {
        int typed = typed_record_kind(p, i, key, field, p->nodes[rec->node].node, &rec->kind);
        if (typed <= 0) {
            return typed;
        }
        return sc_fail(p, "record[%d]: key '%.200s': unknown node field '%.100s'", i, key, field);
    }
    uint32_t count = 0;
    if (!p->nodes[rec->node].gltf ||
        !oroya_scene_weights(p->scene, p->nodes[rec->node].node, &count) || count == 0)
        return sc_fail(p, "record[%d]: key '%.200s': not a glTF node with morph targets", i, key);
    rec->kind = R_WEIGHTS;
    return 0;
}

/* Record key i: a mixer key, a root motion key, or <target>.<field>. */
static int record_of(play *p, int i, const char *key, play_record *rec) {
    if (!strncmp(key, "curve:", 6)) {
        /* The index is resolved once here; 0 until an action drives the curve. */
        uint32_t index = 0;
        if (!sc_is_name(key + 6)) {
            return sc_fail(p,
                           "record[%d]: key '%.200s': expected curve:<name> with a name of "
                           "[A-Za-z0-9_-]+",
                           i, key);
        }
        if (oroya_mixer_curve_index(p->mixer, key + 6, &index) != OROYA_OK) {
            return sc_fail(p, "out of memory");
        }
        rec->kind = R_CURVE;
        rec->slot = (int)index;
        return 0;
    }
    if (!strcmp(key, "rootMotion.delta") || !strcmp(key, "rootMotion.total") ||
        !strcmp(key, "rootMotion.deltaLocal")) {
        if (!p->root_motion)
            return sc_fail(p, "record[%d]: key '%.200s' needs \"oroya\": {\"rootMotion\"}", i, key);
        rec->kind = !strcmp(key + 11, "delta")   ? R_ROOT_DELTA
                    : !strcmp(key + 11, "total") ? R_ROOT_TOTAL
                                                 : R_ROOT_LOCAL;
        return 0;
    }
    int kind = kind_of(mixer_keys, sizeof mixer_keys / sizeof *mixer_keys, key);
    if (kind >= 0) {
        rec->kind = (rec_kind)kind;
        return 0;
    }
    const char *dot = strrchr(key, '.');
    if (!dot)
        return sc_fail(p, "record[%d]: key '%.200s': expected <target>.<field>", i, key);
    size_t tlen = (size_t)(dot - key);
    const char *field = dot + 1;
    char target[256];
    if (tlen >= sizeof target)
        return sc_fail(p, "record[%d]: key '%.200s': a target of %zu bytes, more than %zu", i, key,
                       tlen, sizeof target - 1);
    memcpy(target, key, tlen);
    target[tlen] = '\0';
    if (!strncmp(target, "action:", 7))
        return action_record(p, i, key, target + 7, field, rec);
    if (!strncmp(target, "skin:", 5))
        return skin_record(p, i, key, target + 5, field, rec);
    return node_record(p, i, key, target, field, rec);
}

int sc_setup_records(play *p) {
    int n = 0;
    const cJSON *r = sc_top_array(p, "record", "an array of keys", &n);
    if (!r)
        return n;
    p->records = sc_calloc(p, (size_t)n + 1, sizeof *p->records);
    if (!p->records)
        return sc_fail(p, "out of memory");
    int i = 0;
    for (const cJSON *x = r->child; x; x = x->next, i++) {
        if (!cJSON_IsString(x))
            return sc_fail(p, "record[%d]: expected a key string", i);
        play_record rec = {.key = x->valuestring, .slot = -1, .node = -1, .skin = -1};
        if (record_of(p, i, x->valuestring, &rec))
            return -1;
        p->records[p->record_count++] = rec;
    }
    return 0;
}

static void put_floats(play_buf *b, const float *v, int n) {
    play_buf_put(b, "[");
    for (int i = 0; i < n; i++) {
        if (i)
            play_buf_put(b, ",");
        play_buf_number(b, (double)v[i]);
    }
    play_buf_put(b, "]");
}

static void put_bool(play_buf *b, bool v) { play_buf_put(b, v ? "true" : "false"); }

/* Where a record's value is written: step `step`, record `index`. */
typedef struct rec_at {
    play *p;
    const play_record *r;
    size_t step;
    int index;
} rec_at;

/* The result format has no inf or NaN (JSON.stringify writes null, and a null bone matrix
 * reads as a result), so a record value past the float range stops the run: it names the
 * step, the record and the element (element < 0: the value itself). */
static int value_fail(const rec_at *at, int element) {
    char what[96];
    switch (at->r->kind) {
    case R_GLTF_BONES:
    case R_SKIN_BONES:
        snprintf(what, sizeof what,
                 "joint %d: the bone matrix (joint world x inverse bind matrix) is", element / 16);
        break;
    case R_SKIN_VERTICES:
        snprintf(what, sizeof what, "vertex %d: the skinned position is", element / 3);
        break;
    default:
        if (element < 0)
            snprintf(what, sizeof what, "the value is");
        else
            snprintf(what, sizeof what, "element %d is", element);
        break;
    }
    return sc_fail(at->p, "steps[%zu]: record[%d] '%.200s': %s not finite", at->step, at->index,
                   at->r->key, what);
}

/* v[0..n) as a JSON array, or the failure for its first value that is not finite. */
static int put_values(const rec_at *at, play_buf *b, const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return value_fail(at, i);
    put_floats(b, v, n);
    return 0;
}

static int put_value(const rec_at *at, play_buf *b, double v) {
    if (!isfinite(v))
        return value_fail(at, -1);
    play_buf_number(b, v);
    return 0;
}

/* A typed property's value: a number, [r, g, b] or a boolean. */
static int record_typed(const rec_at *at, oroya_node node, play_buf *b) {
    const play *p = at->p;
    oroya_light l = {0};
    oroya_camera c = {0};
    float rgba[4] = {0, 0, 0, 0};
    bool visible = false;
    switch (at->r->kind) {
    case R_INTENSITY:
        oroya_scene_get_light(p->scene, node, &l);
        return put_value(at, b, (double)l.intensity);
    case R_FOV:
        oroya_scene_get_camera(p->scene, node, &c);
        return put_value(at, b, (double)c.fov_y);
    case R_COLOR:
        oroya_scene_get_mesh_color(p->scene, node, rgba);
        return put_values(at, b, rgba, 3);
    default:
        oroya_scene_get_visible(p->scene, node, &visible);
        put_bool(b, visible);
        return 0;
    }
}

/* An action field; null until the script first names the action. */
static int record_action(const rec_at *at, play_buf *b) {
    const oroya_action *a = at->p->actions[at->r->slot].action;
    if (!a) {
        play_buf_put(b, "null");
        return 0;
    }
    switch (at->r->field) {
    case A_EFFECTIVE_WEIGHT: return put_value(at, b, oroya_action_effective_weight(a));
    case A_WEIGHT: return put_value(at, b, oroya_action_weight(a));
    case A_TIME: return put_value(at, b, oroya_action_time(a));
    case A_EFFECTIVE_TIME_SCALE: return put_value(at, b, oroya_action_effective_time_scale(a));
    case A_TIME_SCALE: return put_value(at, b, oroya_action_time_scale(a));
    case A_ENABLED: put_bool(b, oroya_action_enabled(a)); return 0;
    case A_PAUSED: put_bool(b, oroya_action_paused(a)); return 0;
    case A_RUNNING: put_bool(b, oroya_action_is_running(a)); return 0;
    case A_SCHEDULED: put_bool(b, oroya_action_is_scheduled(a)); return 0;
    case A_LOOP_COUNT: return put_value(at, b, (double)oroya_action_loop_count(a));
    case A_REPETITIONS: {
        /* Infinity (the default) is JSON.stringify's null, as three writes it. */
        const double n = oroya_action_repetitions(a);
        if (isinf(n) && n > 0) {
            play_buf_put(b, "null");
            return 0;
        }
        return put_value(at, b, n);
    }
    case A_FADING: put_bool(b, oroya_action_is_fading(a)); return 0;
    case A_WARPING: put_bool(b, oroya_action_is_warping(a)); return 0;
    default: play_buf_put(b, "null"); return 0;
    }
}

/* The value of record at->r after step at->step; -1 with the run's error when a value is
 * not finite or cannot be computed. */
static int record_value(const rec_at *at, play_buf *b) {
    play *p = at->p;
    const play_record *r = at->r;
    switch (r->kind) {
    case R_ROOT_DELTA:
    case R_ROOT_TOTAL:
    case R_ROOT_LOCAL: {
        oroya_root_motion rm = r->kind == R_ROOT_DELTA   ? oroya_mixer_root_delta(p->mixer)
                               : r->kind == R_ROOT_TOTAL ? oroya_mixer_root_total(p->mixer)
                                                         : oroya_mixer_root_delta_local(p->mixer);
        const float v[7] = {rm.translation.x, rm.translation.y, rm.translation.z, rm.rotation.x,
                            rm.rotation.y,    rm.rotation.z,    rm.rotation.w};
        return put_values(at, b, v, 7);
    }
    case R_CURVE: return put_value(at, b, oroya_mixer_curve_value(p->mixer, (uint32_t)r->slot));
    case R_MIXER_TIME: return put_value(at, b, oroya_mixer_time(p->mixer));
    case R_MIXER_TIME_SCALE: return put_value(at, b, oroya_mixer_time_scale(p->mixer));
    case R_ACTIVE_ACTIONS: {
        play_buf_put(b, "[");
        uint32_t n = oroya_mixer_active_action_count(p->mixer);
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                play_buf_put(b, ",");
            const char *name = sc_action_name(p, oroya_mixer_active_action(p->mixer, i));
            if (name)
                play_buf_string(b, name);
            else
                play_buf_put(b, "null");
        }
        play_buf_put(b, "]");
        return 0;
    }
    case R_STATS: {
        oroya_mixer_stats s = oroya_mixer_get_stats(p->mixer);
        char tmp[128];
        snprintf(tmp, sizeof tmp, "{\"actions\":%u,\"bindings\":%u,\"controlInterpolants\":%u}",
                 s.actions, s.bindings + three_extra_weight_bindings(p), s.control_interpolants);
        play_buf_put(b, tmp);
        return 0;
    }
    case R_ACTION: return record_action(at, b);
    case R_GLTF_BONES: {
        /* NON_FINITE still writes every matrix: put_values names the joint. */
        uint32_t n = p->model->skins[r->skin].joint_count;
        oroya_result res = oroya_gltf_model_bone_matrices(p->model, (uint32_t)r->skin, r->scratch);
        if (res != OROYA_OK && res != OROYA_ERR_NON_FINITE)
            return sc_fail(p, "steps[%zu]: record[%d] '%.200s': %s", at->step, at->index, r->key,
                           oroya_result_string(res));
        return put_values(at, b, r->scratch, (int)(16 * n));
    }
    case R_WEIGHTS: {
        uint32_t count = 0;
        const float *w = oroya_scene_weights(p->scene, p->nodes[r->node].node, &count);
        if (w)
            return put_values(at, b, w, (int)count);
        play_buf_put(b, "null");
        return 0;
    }
    case R_SKIN_BONES: {
        const oroya_skeleton *sk = p->skins[r->skin].skeleton;
        return put_values(at, b, sk->bone_matrices, (int)(16 * sk->bone_count));
    }
    case R_SKIN_VERTICES: {
        play_skin *ps = &p->skins[r->skin];
        oroya_error err = {0};
        oroya_result res = oroya_skin_compute(ps->skin, ps->vertices, NULL, NULL, &err);
        if (res != OROYA_OK) {
            /* The skin's reason without its call's name ("vertex 0: the skinned position is
             * not finite"). */
            const char *why = err.message[0] ? err.message : oroya_result_string(res);
            if (!strncmp(why, "skin compute: ", 14))
                why += 14;
            return sc_fail(p, "steps[%zu]: record[%d] '%.200s': %s", at->step, at->index, r->key,
                           why);
        }
        return put_values(at, b, ps->vertices, (int)(3 * ps->skin->vertex_count));
    }
    default: break;
    }
    oroya_node node = p->nodes[r->node].node;
    oroya_transform t = {0};
    oroya_mat4 m = {0};
    switch (r->kind) {
    case R_POSITION:
        oroya_scene_get_transform(p->scene, node, &t);
        return put_values(at, b, &t.translation.x, 3);
    case R_QUATERNION:
        oroya_scene_get_transform(p->scene, node, &t);
        return put_values(at, b, &t.rotation.x, 4);
    case R_SCALE:
        oroya_scene_get_transform(p->scene, node, &t);
        return put_values(at, b, &t.scale.x, 3);
    case R_MATRIX: oroya_scene_get_local(p->scene, node, &m); return put_values(at, b, m.m, 16);
    case R_MATRIX_WORLD:
        oroya_scene_get_world(p->scene, node, &m);
        return put_values(at, b, m.m, 16);
    case R_INTENSITY:
    case R_FOV:
    case R_COLOR:
    case R_VISIBLE: return record_typed(at, node, b);
    default: play_buf_put(b, "null"); return 0;
    }
}

void sc_on_event(const oroya_event *e, void *user) {
    play *p = user;
    if (p->event_count == p->event_cap) {
        size_t cap = p->event_cap ? p->event_cap * 2 : 16;
        play_event *ev = sc_realloc(p, p->events, p->event_cap * sizeof *ev, cap * sizeof *ev);
        if (!ev) {
            p->events_failed = true;
            return;
        }
        p->events = ev;
        p->event_cap = cap;
    }
    p->events[p->event_count++] =
        (play_event){e->type, e->action, e->direction, e->loop_delta, e->marker};
}

void sc_put_clips(play *p, play_buf *b) {
    play_buf_put(b, ",\"clips\":{");
    bool first = true;
    for (int c = 0; c < p->clip_count; c++) {
        const play_clip *pc = &p->clips[c];
        const oroya_clip *clip = pc->clip;
        if (pc->gltf)
            continue;
        if (!first)
            play_buf_put(b, ",");
        first = false;
        play_buf_string(b, pc->name);
        play_buf_put(b, ":{\"duration\":");
        play_buf_number(b, pc->duration);
        play_buf_put(b, clip->blend_mode == OROYA_BLEND_ADDITIVE ? ",\"blendMode\":\"additive\""
                                                                 : ",\"blendMode\":\"normal\"");
        play_buf_put(b, ",\"tracks\":[");
        for (uint32_t i = 0; i < clip->track_count; i++) {
            const oroya_track *t = &clip->tracks[i];
            if (i)
                play_buf_put(b, ",");
            play_buf_put(b, "{\"name\":");
            play_buf_string(b, pc->track_names[i] ? pc->track_names[i] : "");
            play_buf_put(b, ",\"times\":");
            put_floats(b, t->times, (int)t->key_count);
            play_buf_put(b, ",\"values\":");
            if (t->property == OROYA_PROPERTY_VISIBLE) {
                /* three's BooleanKeyframeTrack holds booleans: true / false, not 1 / 0 */
                play_buf_put(b, "[");
                for (uint32_t k = 0; k < t->key_count; k++) {
                    if (k)
                        play_buf_put(b, ",");
                    put_bool(b, t->values[k] != 0);
                }
                play_buf_put(b, "]");
            } else {
                put_floats(b, t->values, (int)oroya_track_value_count(t));
            }
            play_buf_put(b, "}");
        }
        play_buf_put(b, "]}");
    }
    play_buf_put(b, "}");
}

/* One frame of the result: {"step", "t", "mixerTime", "values": the record keys, "events"?}
 * (docs/scenario.md, the result format), after the step's update. */
int sc_write_frame(play *p, play_buf *b, size_t step, double clock) {
    if (step)
        play_buf_put(b, ",\n");
    char tmp[64];
    snprintf(tmp, sizeof tmp, "{\"step\":%zu,\"t\":", step);
    play_buf_put(b, tmp);
    play_buf_number(b, clock);
    play_buf_put(b, ",\"mixerTime\":");
    play_buf_number(b, oroya_mixer_time(p->mixer));
    play_buf_put(b, ",\"values\":{");
    for (int k = 0; k < p->record_count; k++) {
        if (k)
            play_buf_put(b, ",");
        play_buf_string(b, p->records[k].key);
        play_buf_put(b, ":");
        const rec_at at = {p, &p->records[k], step, k};
        if (record_value(&at, b))
            return -1;
    }
    play_buf_put(b, "}");
    if (p->event_count) {
        play_buf_put(b, ",\"events\":[");
        for (size_t e = 0; e < p->event_count; e++) {
            const play_event *ev = &p->events[e];
            const char *an = sc_action_name(p, ev->action);
            if (e)
                play_buf_put(b, ",");
            play_buf_put(b, ev->type == OROYA_EVENT_FINISHED ? "{\"type\":\"finished\",\"action\":"
                            : ev->type == OROYA_EVENT_LOOP   ? "{\"type\":\"loop\",\"action\":"
                                                             : "{\"type\":\"marker\",\"action\":");
            if (an)
                play_buf_string(b, an);
            else
                play_buf_put(b, "null");
            if (ev->type == OROYA_EVENT_MARKER) {
                play_buf_put(b, ",\"name\":");
                play_buf_string(b, ev->marker->name);
                play_buf_put(b, ",\"time\":");
                play_buf_number(b, ev->marker->time);
                snprintf(tmp, sizeof tmp, "}");
            } else if (ev->type == OROYA_EVENT_FINISHED) {
                snprintf(tmp, sizeof tmp, ",\"direction\":%d}", ev->direction);
            } else {
                snprintf(tmp, sizeof tmp, ",\"loopDelta\":%lld}", (long long)ev->loop_delta);
            }
            play_buf_put(b, tmp);
        }
        play_buf_put(b, "]");
    }
    play_buf_put(b, "}");
    return 0;
}
