/* The script of a scenario (docs/scenario.md, "script"): each entry names an op in "do". The
 * table below gives each op one parse function, run at setup so that a bad entry fails before
 * the first step with its JSON path, and one run function, called when the op is due. The
 * schedule at the end decides when that is. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_internal.h"

/* ---- what the ops read ---------------------------------------------------------------------- */

int sc_op_action(play *p, const cJSON *o, const char *key, const char *path, int *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *used = key;
    if ((!v || cJSON_IsNull(v)) && !strcmp(key, "action")) {
        v = cJSON_GetObjectItemCaseSensitive(o, "clip");
        used = "clip";
    }
    if (!v || cJSON_IsNull(v))
        return sc_fail(p, "%s: needs \"%s\"", path, key);
    if (!cJSON_IsString(v))
        return sc_fail(p, "%s.%s: expected an action or clip name", path, used);
    int slot = sc_find_action(p, v->valuestring);
    if (slot < 0)
        return sc_fail(p, "%s.%s: unknown action/clip '%s'", path, used, v->valuestring);
    *out = slot;
    return 0;
}

static int loop_mode_of(const cJSON *v) {
    if (!cJSON_IsString(v))
        return -1;
    if (!strcmp(v->valuestring, "once"))
        return OROYA_LOOP_ONCE;
    if (!strcmp(v->valuestring, "repeat"))
        return OROYA_LOOP_REPEAT;
    if (!strcmp(v->valuestring, "pingpong"))
        return OROYA_LOOP_PINGPONG;
    return -1;
}

static int repetitions_of(play *p, const cJSON *v, const char *path, double *out) {
    if (!v || cJSON_IsNull(v) ||
        (cJSON_IsString(v) &&
         (!strcmp(v->valuestring, "Infinity") || !strcmp(v->valuestring, "inf")))) {
        *out = INFINITY;
        return 0;
    }
    if (!cJSON_IsNumber(v) || isnan(v->valuedouble) || v->valuedouble < 0)
        return sc_fail(p, "%s: expected a number >= 0, null or \"Infinity\"", path);
    *out = v->valuedouble;
    return 0;
}

/* A mixer or action call: a refused argument is reported with the mixer's message, which
 * names the C call, the argument and why (oroya_mixer_last_error, set by every refusal). */
int sc_mixer_call(play *p, oroya_result r, const char *path, const char *what) {
    if (r == OROYA_OK)
        return 0;
    const char *why = r == OROYA_ERR_INVALID_ARGUMENT ? oroya_mixer_last_error(p->mixer) : "";
    if (*why)
        return sc_fail(p, "%s: %s refused: %s", path, what, why);
    return sc_fail(p, "%s: %s failed (%s)", path, what, oroya_result_string(r));
}

/* A scene call (no mixer message to add). */
static int scene_call(play *p, oroya_result r, const char *path, const char *what) {
    if (r == OROYA_OK)
        return 0;
    return sc_fail(p, "%s: %s failed (%s)", path, what, oroya_result_string(r));
}

/* A refused argument: the op, the value and the rule it breaks ("script[1]: setEffectiveWeight:
 * weight 1e+09 refused: |weight| must be at most 1e+06"), instead of "invalid argument". */
static int refused(play *p, oroya_result r, const op_call *c, const char *field, double v,
                   const char *rule) {
    if (r != OROYA_ERR_INVALID_ARGUMENT)
        return sc_mixer_call(p, r, c->path, c->what);
    return sc_fail(p, "%s: %s: %s %.9g refused: %s", c->path, c->what, field, v, rule);
}

/* A duration for fadeIn, fadeOut, halt and cross fades: finite and >= 0. */
static int duration_call(play *p, oroya_result r, const op_call *c) {
    return refused(p, r, c, "duration", c->op->n[0], "it must be finite and >= 0");
}

/* ---- the ops of three's AnimationAction and AnimationMixer ---------------------------------- */

static const op_def *op_def_of(op_kind kind);

/* {"action"} alone: play, stop, reset, stopFading, stopWarping. */
static int parse_action(play *p, const cJSON *o, const char *path, play_op *op) {
    return sc_op_action(p, o, "action", path, &op->action);
}

/* {"action", <the op's number>}: fadeIn, fadeOut, setDuration, halt ("duration"),
 * setEffectiveWeight ("weight"), setEffectiveTimeScale ("timeScale"), startAt ("time"). */
static int parse_action_number(play *p, const cJSON *o, const char *path, play_op *op) {
    if (sc_op_action(p, o, "action", path, &op->action))
        return -1;
    return sc_get_number(p, o, op_def_of(op->kind)->number, path, &op->n[0]);
}

/* {"from", "to", "duration", "warp"?}: crossFadeTo, crossFadeFrom. */
static int parse_cross_fade(play *p, const cJSON *o, const char *path, play_op *op) {
    if (sc_op_action(p, o, "from", path, &op->other) || sc_op_action(p, o, "to", path, &op->action))
        return -1;
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "warp");
    op->flag = cJSON_IsTrue(w);
    return sc_get_number(p, o, "duration", path, &op->n[0]);
}

static int parse_set_loop(play *p, const cJSON *o, const char *path, play_op *op) {
    if (sc_op_action(p, o, "action", path, &op->action))
        return -1;
    op->mode = loop_mode_of(cJSON_GetObjectItemCaseSensitive(o, "mode"));
    if (op->mode < 0)
        return sc_fail(p, "%s.mode: expected \"once\", \"repeat\" or \"pingpong\"", path);
    char sub[96];
    snprintf(sub, sizeof sub, "%s.repetitions", path);
    return repetitions_of(p, cJSON_GetObjectItemCaseSensitive(o, "repetitions"), sub, &op->n[0]);
}

static int parse_clamp_when_finished(play *p, const cJSON *o, const char *path, play_op *op) {
    if (sc_op_action(p, o, "action", path, &op->action))
        return -1;
    op->flag = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "value"));
    return 0;
}

static int parse_sync_with(play *p, const cJSON *o, const char *path, play_op *op) {
    if (sc_op_action(p, o, "action", path, &op->action))
        return -1;
    return sc_op_action(p, o, "with", path, &op->other);
}

static int parse_warp(play *p, const cJSON *o, const char *path, play_op *op) {
    if (sc_op_action(p, o, "action", path, &op->action))
        return -1;
    if (sc_get_number(p, o, "startTimeScale", path, &op->n[0]) ||
        sc_get_number(p, o, "endTimeScale", path, &op->n[1]))
        return -1;
    return sc_get_number(p, o, "duration", path, &op->n[2]);
}

/* setTime: an action's time, or the mixer's without "action" / "clip". */
static int parse_set_time(play *p, const cJSON *o, const char *path, play_op *op) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "action");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "clip");
    if ((a && !cJSON_IsNull(a)) || (c && !cJSON_IsNull(c)))
        if (sc_op_action(p, o, "action", path, &op->action))
            return -1;
    return sc_get_number(p, o, "time", path, &op->n[0]);
}

static const char *const set_field_names[F_COUNT] = {
    "weight",           "timeScale",      "time",        "enabled", "paused",   "clampWhenFinished",
    "zeroSlopeAtStart", "zeroSlopeAtEnd", "repetitions", "loop",    "blendMode"};

/* {"do": "set", "action", "field", "value"}: a property of the action. */
static int parse_set(play *p, const cJSON *o, const char *path, play_op *op) {
    if (sc_op_action(p, o, "action", path, &op->action))
        return -1;
    const char *f = sc_get_string(o, "field");
    op->field = -1;
    for (int k = 0; f && k < F_COUNT; k++)
        if (!strcmp(f, set_field_names[k]))
            op->field = k;
    if (op->field < 0)
        return sc_fail(p, "%s.field: unsupported field '%s'", path, f ? f : "(missing)");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
    char sub[96];
    snprintf(sub, sizeof sub, "%s.value", path);
    switch ((set_field)op->field) {
    case F_WEIGHT:
    case F_TIME_SCALE:
    case F_TIME: return sc_get_number(p, o, "value", path, &op->n[0]);
    case F_ENABLED:
    case F_PAUSED:
    case F_CLAMP:
    case F_ZERO_SLOPE_START:
    case F_ZERO_SLOPE_END:
        if (!cJSON_IsBool(v))
            return sc_fail(p, "%s: expected a boolean", sub);
        op->flag = cJSON_IsTrue(v);
        return 0;
    case F_REPETITIONS: return repetitions_of(p, v, sub, &op->n[0]);
    case F_LOOP:
        op->mode = loop_mode_of(v);
        if (op->mode < 0)
            return sc_fail(p, "%s: expected \"once\", \"repeat\" or \"pingpong\"", sub);
        return 0;
    case F_BLEND_MODE:
        op->mode = sc_blend_mode_of(v);
        if (op->mode < 0)
            return sc_fail(p, "%s: expected \"normal\" or \"additive\"", sub);
        return 0;
    default: return sc_fail(p, "%s.field: unsupported", path);
    }
}

static int parse_mixer_time_scale(play *p, const cJSON *o, const char *path, play_op *op) {
    return sc_get_number(p, o, "timeScale", path, &op->n[0]);
}

static int parse_nothing(play *p, const cJSON *o, const char *path, play_op *op) {
    (void)p, (void)o, (void)path, (void)op;
    return 0;
}

/* makeClipAdditive: checked now, applied when due (sc_make_additive reads the entry again). */
static int parse_make_clip_additive(play *p, const cJSON *o, const char *path, play_op *op) {
    op->clip = sc_find_clip(p, sc_get_string(o, "clip"));
    if (op->clip < 0)
        return sc_fail(p, "%s.clip: unknown clip", path);
    double tmp = 0;
    if (sc_get_number_opt(p, o, "referenceFrame", path, &tmp) ||
        sc_get_number_opt(p, o, "fps", path, &tmp))
        return -1;
    const cJSON *rc = cJSON_GetObjectItemCaseSensitive(o, "referenceClip");
    if (rc && !cJSON_IsNull(rc) &&
        (!cJSON_IsString(rc) || (rc->valuestring[0] && sc_find_clip(p, rc->valuestring) < 0)))
        return sc_fail(p, "%s.referenceClip: unknown clip", path);
    return 0;
}

/* setNode: {"node", "position"?, "rotation" | "quaternion"?, "scale"?}. */
static int parse_set_node(play *p, const cJSON *o, const char *path, play_op *op) {
    op->node = sc_find_node(p, sc_get_string(o, "node"));
    if (op->node < 0)
        return sc_fail(p, "%s.node: unknown node", path);
    return sc_get_trs(p, o, path, op->pos, op->rot, op->scale, &op->has_pos, &op->has_rot,
                      &op->has_scale);
}

static int parse_set_ik_op(play *p, const cJSON *o, const char *path, play_op *op) {
    return sc_parse_set_ik(p, o, path, &op->node);
}

static int run_play(play *p, const op_call *c) {
    (void)p;
    oroya_action_play(c->a);
    return 0;
}

static int run_stop(play *p, const op_call *c) {
    (void)p;
    oroya_action_stop(c->a);
    return 0;
}

static int run_reset(play *p, const op_call *c) {
    (void)p;
    oroya_action_reset(c->a);
    return 0;
}

static int run_fade_in(play *p, const op_call *c) {
    return duration_call(p, oroya_action_fade_in(c->a, c->op->n[0]), c);
}

static int run_fade_out(play *p, const op_call *c) {
    return duration_call(p, oroya_action_fade_out(c->a, c->op->n[0]), c);
}

static int run_cross_fade_to(play *p, const op_call *c) {
    oroya_result r = oroya_action_cross_fade_to(c->b, c->a, c->op->n[0], c->op->flag);
    return sc_mixer_call(p, r, c->path, c->what);
}

static int run_cross_fade_from(play *p, const op_call *c) {
    oroya_result r = oroya_action_cross_fade_from(c->a, c->b, c->op->n[0], c->op->flag);
    return sc_mixer_call(p, r, c->path, c->what);
}

static int run_set_effective_weight(play *p, const op_call *c) {
    char rule[96];
    snprintf(rule, sizeof rule, "|weight| must be at most %g (OROYA_MAX_WEIGHT)",
             (double)OROYA_MAX_WEIGHT);
    return refused(p, oroya_action_set_effective_weight(c->a, c->op->n[0]), c, "weight",
                   c->op->n[0], rule);
}

static int run_set_effective_time_scale(play *p, const op_call *c) {
    oroya_result r = oroya_action_set_effective_time_scale(c->a, c->op->n[0]);
    return sc_mixer_call(p, r, c->path, c->what);
}

static int run_set_duration(play *p, const op_call *c) {
    return refused(p, oroya_action_set_duration(c->a, c->op->n[0]), c, "duration", c->op->n[0],
                   "it must be finite and not 0");
}

static int run_set_loop(play *p, const op_call *c) {
    oroya_result r = oroya_action_set_loop(c->a, (oroya_loop_mode)c->op->mode, c->op->n[0]);
    return sc_mixer_call(p, r, c->path, c->what);
}

static int run_clamp_when_finished(play *p, const op_call *c) {
    (void)p;
    oroya_action_set_clamp_when_finished(c->a, c->op->flag);
    return 0;
}

static int run_start_at(play *p, const op_call *c) {
    return refused(p, oroya_action_start_at(c->a, c->op->n[0]), c, "time", c->op->n[0],
                   "it must be finite");
}

static int run_sync_with(play *p, const op_call *c) {
    return sc_mixer_call(p, oroya_action_sync_with(c->a, c->b), c->path, c->what);
}

static int run_halt(play *p, const op_call *c) {
    const double d = c->op->n[0];
    const oroya_result r = oroya_action_halt(c->a, d);
    /* A valid duration: the warp halt starts is what was refused (a time scale of 0). */
    if (r == OROYA_ERR_INVALID_ARGUMENT && isfinite(d) && d >= 0)
        return sc_mixer_call(p, r, c->path, c->what);
    return duration_call(p, r, c);
}

/* The rule of oroya_action_warp that (start, end, duration) breaks, into `out`. */
static void warp_rule(const oroya_action *a, const double *n, char *out, size_t cap) {
    const double ts = oroya_action_time_scale(a);
    if (!isfinite(n[0]) || !isfinite(n[1]) || !isfinite(n[2])) {
        snprintf(out, cap, "startTimeScale, endTimeScale and duration must be finite");
    } else if (n[2] < 0) {
        snprintf(out, cap, "duration %.9g: it must be >= 0", n[2]);
    } else if (ts == 0) {
        snprintf(out, cap, "the action's timeScale is 0, so the ramp's ratio is undefined");
    } else {
        const bool first = !(fabs(n[0] / ts) <= FLT_MAX);
        snprintf(out, cap,
                 "%s %.9g / the action's timeScale %.9g is beyond the float range (+-%g) the "
                 "ramp is stored in",
                 first ? "startTimeScale" : "endTimeScale", first ? n[0] : n[1], ts,
                 (double)FLT_MAX);
    }
}

static int run_warp(play *p, const op_call *c) {
    const double *n = c->op->n;
    oroya_result r = oroya_action_warp(c->a, n[0], n[1], n[2]);
    if (r != OROYA_ERR_INVALID_ARGUMENT)
        return sc_mixer_call(p, r, c->path, c->what);
    char rule[200];
    warp_rule(c->a, n, rule, sizeof rule);
    return sc_fail(p, "%s: %s(%.9g, %.9g, %.9g) refused: %s", c->path, c->what, n[0], n[1], n[2],
                   rule);
}

static int run_stop_fading(play *p, const op_call *c) {
    (void)p;
    oroya_action_stop_fading(c->a);
    return 0;
}

static int run_stop_warping(play *p, const op_call *c) {
    (void)p;
    oroya_action_stop_warping(c->a);
    return 0;
}

static int run_set_time(play *p, const op_call *c) {
    if (c->a)
        return sc_mixer_call(p, oroya_action_set_time(c->a, c->op->n[0]), c->path, c->what);
    return sc_mixer_call(p, oroya_mixer_set_time(p->mixer, c->op->n[0]), c->path,
                         "setTime (a negative time is rejected: oroya deviation 1)");
}

static int run_set(play *p, const op_call *c) {
    oroya_action *a = c->a;
    const play_op *op = c->op;
    switch ((set_field)op->field) {
    case F_WEIGHT: return sc_mixer_call(p, oroya_action_set_weight(a, op->n[0]), c->path, c->what);
    case F_TIME_SCALE:
        return sc_mixer_call(p, oroya_action_set_time_scale(a, op->n[0]), c->path, c->what);
    case F_TIME: return sc_mixer_call(p, oroya_action_set_time(a, op->n[0]), c->path, c->what);
    case F_ENABLED: oroya_action_set_enabled(a, op->flag); return 0;
    case F_PAUSED: oroya_action_set_paused(a, op->flag); return 0;
    case F_CLAMP: oroya_action_set_clamp_when_finished(a, op->flag); return 0;
    case F_ZERO_SLOPE_START:
        oroya_action_set_zero_slope(a, op->flag, oroya_action_zero_slope_at_end(a));
        return 0;
    case F_ZERO_SLOPE_END:
        oroya_action_set_zero_slope(a, oroya_action_zero_slope_at_start(a), op->flag);
        return 0;
    case F_REPETITIONS:
        return sc_mixer_call(p, oroya_action_set_loop(a, oroya_action_loop(a), op->n[0]), c->path,
                             c->what);
    case F_LOOP:
        return sc_mixer_call(
            p, oroya_action_set_loop(a, (oroya_loop_mode)op->mode, oroya_action_repetitions(a)),
            c->path, c->what);
    case F_BLEND_MODE: oroya_action_set_blend_mode(a, (oroya_blend_mode)op->mode); return 0;
    default: return sc_fail(p, "%s: unsupported field", c->path);
    }
}

static int run_set_mixer_time_scale(play *p, const op_call *c) {
    return sc_mixer_call(p, oroya_mixer_set_time_scale(p->mixer, c->op->n[0]), c->path, c->what);
}

static int run_stop_all_action(play *p, const op_call *c) {
    (void)c;
    oroya_mixer_stop_all(p->mixer);
    return 0;
}

/* Refused once the clip has an action (a cloneClip action aside, which has its own copy):
 * three's makeClipAdditive rewrites the clip's arrays in place and that action samples the
 * new keys at once, while oroya's action samples the runtime clip built from the keys it was
 * created with. A clear error instead of a silent difference. */
/* The glTF animation index of a glTF clip, -1 for a scenario clip. */
static int gltf_anim_of(const play *p, int clip) {
    for (uint32_t k = 0; p->clips[clip].gltf && p->model && k < p->model->clip_count; k++)
        if (p->model->clips[k] == p->clips[clip].clip)
            return (int)k;
    return -1;
}

/* The primitives of the mesh of the glTF node named `name` (0 when none). */
static uint32_t primitives_of(const play *p, const char *name) {
    const oroya_gltf_model *m = p->model;
    for (uint32_t n = 0; m && n < m->node_count; n++) {
        const uint32_t mesh = m->node_meshes[n];
        if (mesh == OROYA_GLTF_NONE || mesh >= m->mesh_count || !m->node_names[n] ||
            strcmp(m->node_names[n], name))
            continue;
        const uint32_t first = m->mesh_first_geometry[mesh];
        return (mesh + 1 < m->mesh_count ? m->mesh_first_geometry[mesh + 1] : m->geometry_count) -
               first;
    }
    return 0;
}

/* three's GLTFLoader gives tracks that read one output accessor one array, and a weights
 * channel on a mesh of several primitives a track per primitive on one array; its
 * makeClipAdditive rewrites the arrays in place, track by track. So it also rewrites the
 * other clip's keys, and subtracts another clip's reference once per primitive. oroya's
 * clips own their keys: such an op is refused, not printed differently. */
static int refuse_shared_keys(play *p, const op_call *c) {
    const int clip = c->op->clip;
    const int k = gltf_anim_of(p, clip);
    if (k < 0)
        return 0;
    if (p->gltf_shared_anim && p->gltf_shared_anim[k] != UINT32_MAX) {
        const uint32_t other = p->gltf_shared_anim[k];
        return sc_fail(p,
                       "%s: makeClipAdditive: clip '%s' (glTF animation %d) reads accessor %u, "
                       "which animation %u reads too: three.js's GLTFLoader gives their tracks "
                       "one array and makeClipAdditive rewrites it for both (unsupported: "
                       "oroya's clips own their keys)",
                       c->path, p->clips[clip].name, k, p->gltf_shared_accessor[k], other);
    }
    const cJSON *rc = cJSON_GetObjectItemCaseSensitive(c->op->json, "referenceClip");
    const int ref = cJSON_IsString(rc) ? sc_find_clip(p, rc->valuestring) : clip;
    if (ref < 0 || p->clips[ref].clip == p->clips[clip].clip)
        return 0; /* an unknown reference is sc_make_additive's error */
    const oroya_clip *cl = p->clips[clip].clip;
    for (uint32_t t = 0; t < cl->track_count; t++) {
        if (cl->tracks[t].property != OROYA_PROPERTY_WEIGHTS)
            continue;
        const uint32_t prims = primitives_of(p, cl->tracks[t].target);
        if (prims > 1)
            return sc_fail(p,
                           "%s: makeClipAdditive: clip '%s' has a weights track on '%s', a mesh "
                           "of %u primitives, and another referenceClip: three.js subtracts the "
                           "reference once per primitive from their one array (unsupported)",
                           c->path, p->clips[clip].name, cl->tracks[t].target, prims);
    }
    return 0;
}

static int run_make_clip_additive(play *p, const op_call *c) {
    if (refuse_shared_keys(p, c))
        return -1;
    for (int i = 0; i < p->action_count; i++) {
        const play_action *a = &p->actions[i];
        if (a->clip == c->op->clip && a->action && !a->clone)
            return sc_fail(
                p,
                "%s: makeClipAdditive: clip '%s' already has an action ('%s'): three.js's "
                "action would sample the new keys, oroya's keeps the keys it was "
                "created with (unsupported: make the clip additive before the script "
                "first names its action)",
                c->path, p->clips[c->op->clip].name, a->name);
    }
    return sc_make_additive(p, c->op->clip, c->op->json, c->path);
}

static int run_set_node(play *p, const op_call *c) {
    const play_op *op = c->op;
    oroya_node node = p->nodes[op->node].node;
    oroya_transform t;
    if (oroya_scene_get_transform(p->scene, node, &t) != OROYA_OK)
        return sc_fail(p, "%s.node: node not in the scene", c->path);
    if (op->has_pos)
        t.translation = (oroya_vec3){(float)op->pos[0], (float)op->pos[1], (float)op->pos[2]};
    if (op->has_rot)
        t.rotation = (oroya_quat){(float)op->rot[0], (float)op->rot[1], (float)op->rot[2],
                                  (float)op->rot[3]};
    if (op->has_scale)
        t.scale = (oroya_vec3){(float)op->scale[0], (float)op->scale[1], (float)op->scale[2]};
    return scene_call(p, oroya_scene_set_transform(p->scene, node, &t), c->path, c->what);
}

/* Every op, by op_kind. */
static const op_def op_defs[OP_COUNT] = {
    [OP_PLAY] = {"play", NULL, parse_action, run_play},
    [OP_STOP] = {"stop", NULL, parse_action, run_stop},
    [OP_RESET] = {"reset", NULL, parse_action, run_reset},
    [OP_FADE_IN] = {"fadeIn", "duration", parse_action_number, run_fade_in},
    [OP_FADE_OUT] = {"fadeOut", "duration", parse_action_number, run_fade_out},
    [OP_CROSS_FADE_TO] = {"crossFadeTo", NULL, parse_cross_fade, run_cross_fade_to},
    [OP_CROSS_FADE_FROM] = {"crossFadeFrom", NULL, parse_cross_fade, run_cross_fade_from},
    [OP_SET_EFFECTIVE_WEIGHT] = {"setEffectiveWeight", "weight", parse_action_number,
                                 run_set_effective_weight},
    [OP_SET_EFFECTIVE_TIME_SCALE] = {"setEffectiveTimeScale", "timeScale", parse_action_number,
                                     run_set_effective_time_scale},
    [OP_SET_DURATION] = {"setDuration", "duration", parse_action_number, run_set_duration},
    [OP_SET_LOOP] = {"setLoop", NULL, parse_set_loop, run_set_loop},
    [OP_CLAMP_WHEN_FINISHED] = {"clampWhenFinished", NULL, parse_clamp_when_finished,
                                run_clamp_when_finished},
    [OP_START_AT] = {"startAt", "time", parse_action_number, run_start_at},
    [OP_SYNC_WITH] = {"syncWith", NULL, parse_sync_with, run_sync_with},
    [OP_HALT] = {"halt", "duration", parse_action_number, run_halt},
    [OP_WARP] = {"warp", NULL, parse_warp, run_warp},
    [OP_STOP_FADING] = {"stopFading", NULL, parse_action, run_stop_fading},
    [OP_STOP_WARPING] = {"stopWarping", NULL, parse_action, run_stop_warping},
    [OP_SET_TIME] = {"setTime", NULL, parse_set_time, run_set_time},
    [OP_SET] = {"set", NULL, parse_set, run_set},
    [OP_SET_MIXER_TIME_SCALE] = {"setMixerTimeScale", NULL, parse_mixer_time_scale,
                                 run_set_mixer_time_scale},
    [OP_STOP_ALL_ACTION] = {"stopAllAction", NULL, parse_nothing, run_stop_all_action},
    [OP_MAKE_CLIP_ADDITIVE] = {"makeClipAdditive", NULL, parse_make_clip_additive,
                               run_make_clip_additive},
    [OP_SET_NODE] = {"setNode", NULL, parse_set_node, run_set_node},
    /* oroya's extensions (scenario_oroya.c) */
    [OP_SET_IK] = {"setIk", NULL, parse_set_ik_op, sc_run_set_ik},
    [OP_SET_MASK] = {"setMask", NULL, sc_parse_set_mask, sc_run_set_mask},
};

static const op_def *op_def_of(op_kind kind) { return &op_defs[kind]; }

/* ---- the script ----------------------------------------------------------------------------- */

static int parse_op(play *p, const cJSON *o, int index, play_op *op) {
    char path[64];
    snprintf(path, sizeof path, "script[%d]", index);
    if (!cJSON_IsObject(o))
        return sc_fail(p, "%s: expected an object", path);
    const char *d = sc_get_string(o, "do");
    int kind = -1;
    for (int k = 0; d && k < OP_COUNT; k++)
        if (!strcmp(d, op_defs[k].name))
            kind = k;
    if (kind < 0)
        return sc_fail(p, "%s.do: unknown op '%s'", path, d ? d : "(missing)");
    memset(op, 0, sizeof *op);
    op->kind = (op_kind)kind;
    op->action = op->other = op->node = op->clip = op->ref_clip = -1;
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(o, "at");
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(o, "step");
    if (at && step)
        return sc_fail(p, "%s: give \"at\" or \"step\", not both", path);
    if (step) {
        if (!cJSON_IsNumber(step) || isnan(step->valuedouble))
            return sc_fail(p, "%s.step: expected a frame index", path);
        op->by_step = true;
        op->step = step->valuedouble;
    } else if (at && !cJSON_IsNull(at)) {
        if (sc_get_number(p, o, "at", path, &op->at))
            return -1;
    }
    return op_defs[kind].parse(p, o, path, op);
}

int sc_setup_script(play *p) {
    int n = 0;
    const cJSON *s = sc_top_array(p, "script", "an array", &n);
    if (!s)
        return n;
    p->ops = sc_calloc(p, (size_t)n + 1, sizeof *p->ops);
    if (!p->ops)
        return sc_fail(p, "out of memory");
    const cJSON *o = s->child; /* walked, not indexed: cJSON_GetArrayItem is O(i) */
    for (int i = 0; i < n; i++, o = o->next) {
        if (parse_op(p, o, i, &p->ops[i]))
            return -1;
        p->ops[i].json = o;
        p->op_count++;
    }
    return 0;
}

static int run_op(play *p, int index) {
    play_op *op = &p->ops[index];
    char path[64];
    snprintf(path, sizeof path, "script[%d]", index);
    /* Actions are created in the order the oracle names them: crossFadeTo's `from` first. */
    if (op->kind == OP_CROSS_FADE_TO && sc_action_of(p, op->other, path))
        return -1;
    if (op->action >= 0 && sc_action_of(p, op->action, path))
        return -1;
    if (op->other >= 0 && sc_action_of(p, op->other, path))
        return -1;
    op_call c = {.op = op,
                 .a = op->action >= 0 ? p->actions[op->action].action : NULL,
                 .b = op->other >= 0 ? p->actions[op->other].action : NULL,
                 .path = path,
                 .what = op_defs[op->kind].name};
    return op_defs[op->kind].run(p, &c);
}

/* ---- the script's schedule -------------------------------------------------------------
 * Ops run at the first step where they are due (step >= op.step, or clock >= op.at - EPS_AT),
 * those due together in script order. The "at" ops sorted by time and the "step" ops by
 * step are two queues whose due ops are a prefix, so each step looks only at what it runs:
 * O(ops log ops) for the whole run instead of O(steps x ops). */

static int compare_op_keys(const void *a, const void *b) {
    const op_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int compare_ints(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void sc_op_queue_free(play *p, op_queue *q) {
    sc_free(p, q->by_time);
    sc_free(p, q->by_step);
    sc_free(p, q->batch);
}

int sc_op_queue_init(play *p, op_queue *q) {
    size_t n = (size_t)p->op_count + 1;
    q->by_time = sc_calloc(p, n, sizeof *q->by_time);
    q->by_step = sc_calloc(p, n, sizeof *q->by_step);
    q->batch = sc_calloc(p, n, sizeof *q->batch);
    if (!q->by_time || !q->by_step || !q->batch) {
        sc_op_queue_free(p, q);
        return sc_fail(p, "out of memory");
    }
    for (int k = 0; k < p->op_count; k++) {
        const play_op *op = &p->ops[k];
        if (op->by_step)
            q->by_step[q->step_count++] = (op_key){op->step, k};
        else
            q->by_time[q->time_count++] = (op_key){op->at - EPS_AT, k};
    }
    qsort(q->by_time, (size_t)q->time_count, sizeof *q->by_time, compare_op_keys);
    qsort(q->by_step, (size_t)q->step_count, sizeof *q->by_step, compare_op_keys);
    return 0;
}

int sc_run_due_ops(play *p, op_queue *q, size_t step, double clock) {
    int n = 0;
    while (q->time_next < q->time_count && clock >= q->by_time[q->time_next].key)
        q->batch[n++] = q->by_time[q->time_next++].index;
    while (q->step_next < q->step_count && (double)step >= q->by_step[q->step_next].key)
        q->batch[n++] = q->by_step[q->step_next++].index;
    qsort(q->batch, (size_t)n, sizeof *q->batch, compare_ints);
    for (int b = 0; b < n; b++) {
        play_op *op = &p->ops[q->batch[b]];
        op->done = true;
        if (run_op(p, q->batch[b]))
            return -1;
    }
    return 0;
}
