/* The scenario runner behind `oroya play` (see include/oroya/scenario.h): reads a scenario of
 * the three.js reference format (docs/scenario.md), runs it through oroya's mixer and
 * writes the result format. The setup follows the oracle's order (nodes, skins, clips,
 * makeAdditive, lazily created actions) and the stepping is docs/scenario.md's, with the clock
 * accumulated in double. A malformed scenario is reported with the JSON path of the
 * offending value. */
#include "oroya/scenario.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/geometry.h"
#include "oroya/gltf.h"
#include "oroya/ik.h"
#include "oroya/mixer.h"
#include "oroya/rig.h"
#include "oroya/rotation.h"
#include "oroya/scene.h"
#include "oroya/skeleton.h"
#include "oroya/skin.h"
#include "oroya/track.h"
#include "internal/io_file.h"
#include "internal/base.h"


/* The output text: a growable buffer, and numbers printed exactly as JavaScript's
 * JSON.stringify prints them, so results diff cleanly against three.js's. */
typedef struct play_buf {
    const oroya_allocator *alloc;
    char *data;
    size_t len, cap;
    bool failed; /* an allocation failed; the content is truncated */
} play_buf;

static void play_buf_free(play_buf *b) {
    if (b->data)
        oroya__free(b->alloc, b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static void play_buf_putn(play_buf *b, const char *s, size_t n) {
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = oroya__alloc(b->alloc, cap, 16);
        if (!p) {
            b->failed = true;
            return;
        }
        if (b->data) {
            memcpy(p, b->data, b->len + 1);
            oroya__free(b->alloc, b->data);
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void play_buf_put(play_buf *b, const char *s) {
    play_buf_putn(b, s, strlen(s));
}

static void play_buf_string(play_buf *b, const char *s) {
    play_buf_put(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"':
            play_buf_put(b, "\\\"");
            break;
        case '\\':
            play_buf_put(b, "\\\\");
            break;
        case '\b':
            play_buf_put(b, "\\b");
            break;
        case '\f':
            play_buf_put(b, "\\f");
            break;
        case '\n':
            play_buf_put(b, "\\n");
            break;
        case '\r':
            play_buf_put(b, "\\r");
            break;
        case '\t':
            play_buf_put(b, "\\t");
            break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                play_buf_put(b, esc);
            } else {
                play_buf_putn(b, (const char *)p, 1);
            }
        }
    }
    play_buf_put(b, "\"");
}

/* ECMAScript Number::toString: find the fewest significant digits that read back as v
 * (printf rounds correctly, so trying 1..17 digits finds them), then lay the digits out
 * as JS does: plain notation for exponents -7 < e < 21, otherwise d.ddde+x. */
static char *play_format_number(double v, char *out) {
    if (!isfinite(v)) {
        strcpy(out, "null");
        return out;
    }
    if (v == 0) {
        strcpy(out, "0");
        return out;
    }
    char tmp[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    const char *s = tmp;
    bool neg = *s == '-';
    if (neg)
        s++;
    char digits[24];
    int k = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9' && k < 20)
            digits[k++] = *s;
    int e = *s == 'e' ? atoi(s + 1) : 0;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    int n = e + 1; /* the decimal point sits after n digits */
    char *o = out;
    if (neg)
        *o++ = '-';
    if (k <= n && n <= 21) {
        memcpy(o, digits, (size_t)k);
        o += k;
        for (int i = k; i < n; i++)
            *o++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(o, digits, (size_t)n);
        o += n;
        *o++ = '.';
        memcpy(o, digits + n, (size_t)(k - n));
        o += k - n;
    } else if (-6 < n && n <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -n; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)k);
        o += k;
    } else {
        *o++ = digits[0];
        if (k > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(k - 1));
            o += k - 1;
        }
        o += sprintf(o, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
    }
    *o = '\0';
    return out;
}

static void play_buf_number(play_buf *b, double v) {
    char tmp[40];
    play_buf_put(b, play_format_number(v, tmp));
}

#define EPS_AT 1e-9 /* an "at" op runs before the first update whose clock >= at - EPS_AT */

typedef struct play_node {
    const char *name;
    oroya_node node;
    oroya_node_kind kind;
    bool gltf; /* a glTF node found by its docs/scenario.md name; the name is owned */
} play_node;

typedef struct play_skin {
    const char *name;
    oroya_skeleton *skeleton;
    oroya_skin *skin;
    float *vertices; /* 3 * vertex_count, skinned positions of the current frame */
} play_skin;

typedef struct play_clip {
    const char *name;
    oroya_clip *clip;
    double duration; /* three's clip.duration (a double): the JSON value, or the last key */
    const char **track_names; /* "node.position" etc., for dumpClips */
    bool gltf;                /* a clip of the glTF model (owned by it); the name is owned */
} play_clip;

typedef struct play_action {
    const char *name;
    int clip;
    bool has_blend_mode;
    oroya_blend_mode blend_mode;
    bool clone;
    oroya_action *action; /* NULL until the script first names it */
    oroya_clip *copy;     /* cloneClip: the clip copy taken at creation */
} play_action;

typedef enum op_kind {
    OP_PLAY,
    OP_STOP,
    OP_RESET,
    OP_FADE_IN,
    OP_FADE_OUT,
    OP_CROSS_FADE_TO,
    OP_CROSS_FADE_FROM,
    OP_SET_EFFECTIVE_WEIGHT,
    OP_SET_EFFECTIVE_TIME_SCALE,
    OP_SET_DURATION,
    OP_SET_LOOP,
    OP_CLAMP_WHEN_FINISHED,
    OP_START_AT,
    OP_SYNC_WITH,
    OP_HALT,
    OP_WARP,
    OP_STOP_FADING,
    OP_STOP_WARPING,
    OP_SET_TIME,
    OP_SET,
    OP_SET_MIXER_TIME_SCALE,
    OP_STOP_ALL_ACTION,
    OP_MAKE_CLIP_ADDITIVE,
    OP_SET_NODE,
    OP_SET_IK,
    OP_SET_MASK, /* oroya's extension: parse_set_mask */
    OP_COUNT
} op_kind;

static const char *const op_names[OP_COUNT] = {"play",
                                               "stop",
                                               "reset",
                                               "fadeIn",
                                               "fadeOut",
                                               "crossFadeTo",
                                               "crossFadeFrom",
                                               "setEffectiveWeight",
                                               "setEffectiveTimeScale",
                                               "setDuration",
                                               "setLoop",
                                               "clampWhenFinished",
                                               "startAt",
                                               "syncWith",
                                               "halt",
                                               "warp",
                                               "stopFading",
                                               "stopWarping",
                                               "setTime",
                                               "set",
                                               "setMixerTimeScale",
                                               "stopAllAction",
                                               "makeClipAdditive",
                                               "setNode",
                                               "setIk",
                                               "setMask"};

typedef enum set_field {
    F_WEIGHT,
    F_TIME_SCALE,
    F_TIME,
    F_ENABLED,
    F_PAUSED,
    F_CLAMP,
    F_ZERO_SLOPE_START,
    F_ZERO_SLOPE_END,
    F_REPETITIONS,
    F_LOOP,
    F_BLEND_MODE,
    F_COUNT
} set_field;

static const char *const set_field_names[F_COUNT] = {
    "weight",           "timeScale",      "time",        "enabled", "paused",   "clampWhenFinished",
    "zeroSlopeAtStart", "zeroSlopeAtEnd", "repetitions", "loop",    "blendMode"};

typedef struct play_op {
    const cJSON *json; /* the script entry (run_op reads it again) */
    op_kind kind;
    bool by_step;
    double at;
    double step;
    bool done;
    int action, other; /* action slots (-1 = none) */
    double n[3];
    bool flag;
    int mode; /* loop mode / blend mode / set field */
    int field;
    int node, clip, ref_clip;
    bool has_pos, has_rot, has_scale;
    double pos[3], rot[4], scale[3];
} play_op;

typedef enum rec_kind {
    R_MIXER_TIME,
    R_MIXER_TIME_SCALE,
    R_ACTIVE_ACTIONS,
    R_STATS,
    R_ACTION,
    R_POSITION,
    R_QUATERNION,
    R_SCALE,
    R_MATRIX,
    R_MATRIX_WORLD,
    R_WEIGHTS,
    R_SKIN_BONES,
    R_SKIN_VERTICES,
    R_GLTF_BONES,
    R_ROOT_DELTA, /* oroya's extension: rootMotion.delta / rootMotion.total */
    R_ROOT_TOTAL,
    R_CURVE,      /* curve:<name> (slot: the mixer's curve index) */
    R_INTENSITY,  /* typed properties: <node>.intensity / .fov / .color / .visible */
    R_FOV,
    R_COLOR,
    R_VISIBLE
} rec_kind;

typedef enum action_field {
    A_EFFECTIVE_WEIGHT,
    A_WEIGHT,
    A_TIME,
    A_EFFECTIVE_TIME_SCALE,
    A_TIME_SCALE,
    A_ENABLED,
    A_PAUSED,
    A_RUNNING,
    A_SCHEDULED,
    A_LOOP_COUNT,
    A_REPETITIONS,
    A_FADING,
    A_WARPING,
    A_COUNT
} action_field;

static const char *const action_field_names[A_COUNT] = {
    "effectiveWeight", "weight", "time",    "effectiveTimeScale", "timeScale",
    "enabled",         "paused", "running", "scheduled",          "loopCount",
    "repetitions",     "fading", "warping"};

typedef struct play_record {
    const char *key;
    rec_kind kind;
    int slot;
    action_field field;
    int node;
    int skin;       /* scenario skin, or glTF skin index for R_GLTF_BONES */
    float *scratch; /* R_GLTF_BONES: 16 floats per joint */
} play_record;

typedef struct play_event {
    oroya_event_type type;
    oroya_action *action;
    int32_t direction;
    int64_t loop_delta;
    const oroya_marker *marker; /* OROYA_EVENT_MARKER */
} play_event;

typedef struct play {
    const oroya_allocator *alloc;
    const oroya_scenario_desc *desc;
    oroya_gltf_model *model;
    char error[1024];
    cJSON *root;
    oroya_scene *scene;
    oroya_mixer *mixer;
    oroya_rig *rig; /* every node of the scene: joint tracks play through the pose kernel */
    play_node *nodes;
    int node_count, node_cap;
    int *node_hash;  /* open addressing over nodes by name: index + 1, 0 = empty */
    int node_hash_cap;
    play_skin *skins;
    int skin_count;
    play_clip *clips;
    int clip_count, clip_cap;
    play_action *actions;
    int action_count, action_cap;
    play_op *ops;
    int op_count;
    play_record *records;
    int record_count;
    double *dts;     /* an explicit list of dt, or NULL: every step is fixed_dt */
    double fixed_dt;
    size_t dt_count;
    play_event *events;
    /* "oroya": {"masks": {...}}: the masks in the object's order, named by its keys */
    oroya_mask **masks;
    const char **mask_names;
    int mask_count;
    bool root_motion; /* "oroya": {"rootMotion"} */
    size_t event_count, event_cap;
    bool events_failed;
    bool out_of_memory; /* an allocation failed (the error is then OUT_OF_MEMORY) */
    oroya_allocator user_alloc; /* the desc's */
    oroya_allocator watch;      /* forwards to user_alloc and notes failures; p->alloc */
    oroya_ik *iks;              /* "oroya": {"ik": [...]}, applied after each update */
    oroya_ik *kiks;             /* the same on the rig's kernel joints (oroya_mixer_set_ik),
                                 * or NULL: the IKs run on the scene (oroya_ik_scene_apply) */
    oroya_joint_limit *ik_limits; /* OROYA_IK_MAX_CHAIN per IK */
    int ik_count;
    oroya_geometry *mesh_geometry; /* shared by the "mesh" nodes */
    oroya_material *materials;     /* one per scenario node (used by "mesh" nodes) */
} play;

/* Everything the runner allocates goes through the desc's allocator (cJSON excepted: its
 * hooks are global, see scenario.h). */
static void *watch_alloc(size_t size, size_t align, void *user) {
    play *p = user;
    void *m = oroya__alloc(&p->user_alloc, size, align);
    if (!m)
        p->out_of_memory = true;
    return m;
}

static void watch_free(void *m, void *user) {
    play *p = user;
    oroya__free(&p->user_alloc, m);
}

static void *sc_malloc(const play *p, size_t n) {
    return oroya__alloc(p->alloc, n ? n : 1, 16);
}

static void *sc_calloc(const play *p, size_t count, size_t size) {
    size_t n = oroya__mul_size(count, size);
    void *m = n == SIZE_MAX ? NULL : sc_malloc(p, n);
    if (m)
        memset(m, 0, n);
    return m;
}

static void sc_free(const play *p, void *m) {
    if (m)
        oroya__free(p->alloc, m);
}

/* realloc for an allocator without one: the old block stays on failure. */
static void *sc_realloc(const play *p, void *old, size_t old_size, size_t new_size) {
    void *m = sc_malloc(p, new_size);
    if (!m)
        return NULL;
    if (old)
        memcpy(m, old, old_size < new_size ? old_size : new_size);
    sc_free(p, old);
    return m;
}

static int fail(play *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);

    return -1;
}

/* World matrices are kept finite by update_world (a node that overflows sits at its
 * parent's origin); the scenario's result would then be wrong, so the run stops and names
 * the node. */
static int check_world(play *p, const char *where) {
    oroya_node bad;
    if (oroya_scene_non_finite_count(p->scene, &bad) == 0)
        return 0;
    const char *name = oroya_scene_node_name(p->scene, bad);
    return fail(p,
                "%s: the world matrix of node '%s' is not finite (a transform too large for "
                "float, or an overflow along its parents)",
                where, name ? name : "?");
}


/* Issue 11: non-unit rotation keys are normalized on load; say so once per clip. */
static void warn_normalized(const play *p, const char *where, const oroya_clip *clip) {
    if (!clip || !clip->normalized_key_count)
        return;
    if (!p->desc->on_warning)
        return;
    char msg[OROYA_ERROR_MESSAGE_MAX + 1];
    snprintf(msg, sizeof msg,
             "%s: clip \"%s\": %u non-unit rotation key%s normalized (first: track %u \"%s\" "
             "key %u)",
             where, clip->name, clip->normalized_key_count,
            clip->normalized_key_count == 1 ? "" : "s", clip->first_normalized_track,
            clip->tracks[clip->first_normalized_track].target, clip->first_normalized_key);
    p->desc->on_warning(msg, p->desc->user);
}

/* ---- JSON access ------------------------------------------------------------------------ */

static bool is_name(const char *s) {
    if (!s || !*s)
        return false;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

static int get_number(play *p, const cJSON *obj, const char *key, const char *path, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return fail(p, "%s.%s: expected a finite number", path, key);
    *out = v->valuedouble;
    return 0;
}

/* Optional number: absent or null leaves *out. */
static int get_number_opt(play *p, const cJSON *obj, const char *key, const char *path,
                          double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    return get_number(p, obj, key, path, out);
}

static int get_vec(play *p, const cJSON *v, int n, const char *path, double *out) {
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return fail(p, "%s: expected %d numbers", path, n);
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return fail(p, "%s[%d]: expected a finite number", path, i);
        out[i] = x->valuedouble;
    }
    return 0;
}

static const char *get_string(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool grow(play *p, void **array, int *cap, int count, size_t size) {
    if (count < *cap)
        return true;
    int n = *cap ? *cap * 2 : 16;
    void *a = sc_realloc(p, *array, (size_t)*cap * size, (size_t)n * size);
    if (!a)
        return false;
    *array = a;
    *cap = n;
    return true;
}

static char *dup_string(play *p, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = sc_malloc(p, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---- nodes by name: a hash table, so a scenario of n nodes and ops resolves in O(n) ---- */

static uint32_t name_hash(const char *s) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static int node_hash_slot(const play *p, const char *name) {
    int mask = p->node_hash_cap - 1;
    int i = (int)(name_hash(name) & (uint32_t)mask);
    while (p->node_hash[i] && strcmp(p->nodes[p->node_hash[i] - 1].name, name))
        i = (i + 1) & mask;
    return i;
}

/* The node index with that name (names are unique among p->nodes), -1 when none. */
static int node_hash_find(const play *p, const char *name) {
    if (!name || !p->node_hash)
        return -1;
    return p->node_hash[node_hash_slot(p, name)] - 1;
}

/* Adds p->nodes[index] (a name not in the table yet); the table stays at most half full. */
static bool node_hash_add(play *p, int index) {
    if (2 * (index + 1) >= p->node_hash_cap) {
        int cap = p->node_hash_cap ? p->node_hash_cap : 64;
        while (2 * (index + 1) >= cap)
            cap *= 2;
        int *table = sc_calloc(p, (size_t)cap, sizeof *table);
        if (!table)
            return false;
        sc_free(p, p->node_hash);
        p->node_hash = table;
        p->node_hash_cap = cap;
        for (int i = 0; i < index; i++)
            p->node_hash[node_hash_slot(p, p->nodes[i].name)] = i + 1;
    }
    p->node_hash[node_hash_slot(p, p->nodes[index].name)] = index + 1;
    return true;
}

static int find_scenario_node(const play *p, const char *name) {
    int i = node_hash_find(p, name);
    return i >= 0 && !p->nodes[i].gltf ? i : -1;
}

/* A scenario node, else a glTF node by its docs/scenario.md name ("node_<i>" or its glTF name). */
static int find_node(play *p, const char *name) {
    int found = node_hash_find(p, name);
    if (found >= 0)
        return found;
    oroya_node node;
    if (!name || !p->model || oroya_gltf_model_find_node(p->model, name, &node, NULL) != OROYA_OK)
        return -1;
    oroya_node_kind kind = OROYA_NODE_OBJECT;
    oroya_scene_node_kind(p->scene, node, &kind);
    char *copy = dup_string(p, name);
    if (!copy || !grow(p, (void **)&p->nodes, &p->node_cap, p->node_count, sizeof *p->nodes)) {
        sc_free(p, copy);
        return -1;
    }
    p->nodes[p->node_count] = (play_node){copy, node, kind, true};
    p->node_count++;
    if (!node_hash_add(p, p->node_count - 1))
        return -1; /* the node stays listed, so cleanup frees its name */
    return p->node_count - 1;
}

static int find_scenario_clip(const play *p, const char *name) {
    for (int i = 0; name && i < p->clip_count; i++)
        if (!p->clips[i].gltf && !strcmp(p->clips[i].name, name))
            return i;
    return -1;
}

/* A scenario clip, else a glTF clip ("animation_<i>" or its glTF name). */
static int find_clip(play *p, const char *name) {
    for (int i = 0; name && i < p->clip_count; i++)
        if (!strcmp(p->clips[i].name, name))
            return i;
    oroya_clip *clip = name && p->model ? oroya_gltf_model_find_clip(p->model, name) : NULL;
    if (!clip)
        return -1;
    char *copy = dup_string(p, name);
    if (!copy || !grow(p, (void **)&p->clips, &p->clip_cap, p->clip_count, sizeof *p->clips)) {
        sc_free(p, copy);
        return -1;
    }
    p->clips[p->clip_count] = (play_clip){copy, clip, (double)clip->duration, NULL, true};
    warn_normalized(p, "gltf", clip);
    return p->clip_count++;
}

static int find_declared_action(const play *p, const char *name) {
    for (int i = 0; name && i < p->action_count; i++)
        if (!strcmp(p->actions[i].name, name))
            return i;
    return -1;
}

/* A declared action, else the action named by a clip (created as a slot on first use). */
static int find_action(play *p, const char *name) {
    int slot = find_declared_action(p, name);
    if (slot >= 0)
        return slot;
    int clip = find_clip(p, name);
    if (clip < 0)
        return -1;
    if (!grow(p, (void **)&p->actions, &p->action_cap, p->action_count, sizeof *p->actions))
        return -1;
    p->actions[p->action_count] = (play_action){.name = p->clips[clip].name, .clip = clip};
    return p->action_count++;
}

/* ---- setup ------------------------------------------------------------------------------ */

/* A node's animatable components (the targets of typed tracks): "type": "light" (a point
 * light, "intensity", default 1), "camera" (a perspective camera, "fov" in degrees, default
 * 50), "mesh" (a mesh whose material has "color" [r, g, b], linear, default white); and
 * "visible" (default true) on any node. */
static int setup_node_components(play *p, const cJSON *nd, const char *path, int index,
                                 const char *type) {
    oroya_node node = p->nodes[index].node;
    char sub[96];
    const cJSON *vis = cJSON_GetObjectItemCaseSensitive(nd, "visible");
    if (vis) {
        if (!cJSON_IsBool(vis))
            return fail(p, "%s.visible: expected true or false", path);
        oroya_scene_set_visible(p->scene, node, cJSON_IsTrue(vis));
    }
    const bool light = type && !strcmp(type, "light"), camera = type && !strcmp(type, "camera");
    const bool mesh = type && !strcmp(type, "mesh");
    static const char *const fields[3] = {"intensity", "fov", "color"};
    const bool allowed[3] = {light, camera, mesh};
    for (int f = 0; f < 3; f++)
        if (!allowed[f] && cJSON_GetObjectItemCaseSensitive(nd, fields[f]))
            return fail(p, "%s.%s: only a node of type \"%s\" has it", path, fields[f],
                        f == 0 ? "light" : f == 1 ? "camera" : "mesh");
    if (light) {
        oroya_light l = oroya_light_make(OROYA_LIGHT_POINT);
        double v = 1;
        snprintf(sub, sizeof sub, "%s.intensity", path);
        if (get_number_opt(p, nd, "intensity", path, &v))
            return -1;
        l.intensity = (float)v;
        if (oroya_scene_set_light(p->scene, node, &l) != OROYA_OK)
            return fail(p, "%s: expected a finite intensity of 0 or more", sub);
    } else if (camera) {
        double v = 50; /* three's PerspectiveCamera default */
        snprintf(sub, sizeof sub, "%s.fov", path);
        if (get_number_opt(p, nd, "fov", path, &v))
            return -1;
        oroya_camera c = oroya_camera_perspective((float)v, 1, 0.1f, 2000);
        if (oroya_scene_set_camera(p->scene, node, &c) != OROYA_OK)
            return fail(p, "%s: expected a field of view in (0, 180) degrees", sub);
    } else if (mesh) {
        if (!p->mesh_geometry &&
            oroya_geometry_box(&(oroya_box_desc){.allocator = p->alloc ? *p->alloc
                                                                        : (oroya_allocator){0}},
                               &p->mesh_geometry, NULL) != OROYA_OK)
            return fail(p, "out of memory");
        oroya_material *mat = &p->materials[index];
        *mat = oroya_material_default();
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(nd, "color");
        if (c) {
            double v[3];
            snprintf(sub, sizeof sub, "%s.color", path);
            if (get_vec(p, c, 3, sub, v))
                return -1;
            mat->base_color[0] = (float)v[0];
            mat->base_color[1] = (float)v[1];
            mat->base_color[2] = (float)v[2];
        }
        if (oroya_scene_set_mesh(p->scene, node, p->mesh_geometry, mat) != OROYA_OK)
            return fail(p, "%s: the scene refused the mesh", path);
    }
    return 0;
}

static int setup_nodes(play *p) {
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(p->root, "nodes");
    if (!nodes || cJSON_IsNull(nodes))
        return 0;
    if (!cJSON_IsArray(nodes))
        return fail(p, "nodes: expected an array");
    int n = cJSON_GetArraySize(nodes);
    p->nodes = sc_calloc(p, (size_t)n + 1, sizeof *p->nodes);
    p->materials = sc_calloc(p, (size_t)n + 1, sizeof *p->materials);
    if (!p->nodes || !p->materials)
        return fail(p, "out of memory");
    p->node_cap = n + 1;
    char path[64];
    const cJSON *nd = nodes->child; /* walked, not indexed: cJSON_GetArrayItem is O(i) */
    for (int i = 0; i < n; i++, nd = nd->next) {
        snprintf(path, sizeof path, "nodes[%d]", i);
        if (!cJSON_IsObject(nd))
            return fail(p, "%s: expected an object", path);
        const char *name = get_string(nd, "name");
        if (!is_name(name))
            return fail(p, "%s.name: expected a name of [A-Za-z0-9_-]+", path);
        if (find_scenario_node(p, name) >= 0)
            return fail(p, "%s.name: duplicate node '%s'", path, name);
        if (!strcmp(name, "oroya_curves"))
            return fail(p, "%s.name: 'oroya_curves' is reserved (the curves' holder, "
                        "docs/scenario.md \"Curves\")", path);
        oroya_node taken;
        if (p->model && oroya_gltf_model_find_node(p->model, name, &taken, NULL) == OROYA_OK)
            return fail(p, "%s.name: '%s' is taken by a glTF node", path, name);
        const char *type = get_string(nd, "type");
        const cJSON *tv = cJSON_GetObjectItemCaseSensitive(nd, "type");
        oroya_node_kind kind = OROYA_NODE_OBJECT;
        if (tv && !cJSON_IsNull(tv)) {
            if (!type)
                return fail(p, "%s.type: expected a string", path);
            if (!strcmp(type, "object"))
                kind = OROYA_NODE_OBJECT;
            else if (!strcmp(type, "bone"))
                kind = OROYA_NODE_BONE;
            else if (!strcmp(type, "skinnedMesh"))
                kind = OROYA_NODE_SKINNED_MESH;
            else if (strcmp(type, "light") && strcmp(type, "camera") && strcmp(type, "mesh"))
                return fail(p, "%s.type: unknown type '%s'", path, type);
        }
        oroya_transform t = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        double v[4];
        char sub[96];
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(nd, "position");
        if (x) {
            snprintf(sub, sizeof sub, "%s.position", path);
            if (get_vec(p, x, 3, sub, v))
                return -1;
            t.translation = (oroya_vec3){(float)v[0], (float)v[1], (float)v[2]};
        }
        const char *qkey =
            cJSON_GetObjectItemCaseSensitive(nd, "rotation") ? "rotation" : "quaternion";
        x = cJSON_GetObjectItemCaseSensitive(nd, qkey);
        if (x) {
            snprintf(sub, sizeof sub, "%s.%s", path, qkey);
            if (get_vec(p, x, 4, sub, v))
                return -1;
            t.rotation = (oroya_quat){(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
        }
        x = cJSON_GetObjectItemCaseSensitive(nd, "scale");
        if (x) {
            snprintf(sub, sizeof sub, "%s.scale", path);
            if (get_vec(p, x, 3, sub, v))
                return -1;
            t.scale = (oroya_vec3){(float)v[0], (float)v[1], (float)v[2]};
        }
        oroya_node node;
        if (oroya_scene_add_node(p->scene, name, (oroya_node){0}, kind, &node) != OROYA_OK ||
            oroya_scene_set_transform(p->scene, node, &t) != OROYA_OK)
            return fail(p, "%s: the scene refused the node (a component, or the matrix they "
                        "make, is not finite)", path);
        p->nodes[p->node_count++] = (play_node){name, node, kind, false};
        if (!node_hash_add(p, p->node_count - 1))
            return fail(p, "out of memory");
        if (setup_node_components(p, nd, path, p->node_count - 1, type))
            return -1;
    }
    /* Parents are linked after every node exists, in file order, as the oracle does. */
    nd = nodes->child;
    for (int i = 0; i < n; i++, nd = nd->next) {
        const cJSON *pv = cJSON_GetObjectItemCaseSensitive(nd, "parent");
        if (!pv || cJSON_IsNull(pv))
            continue;
        if (!cJSON_IsString(pv))
            return fail(p, "nodes[%d].parent: expected a node name or null", i);
        int parent = find_scenario_node(p, pv->valuestring);
        if (parent < 0)
            return fail(p, "nodes[%d].parent: unknown node '%s'", i, pv->valuestring);
        oroya_result r = oroya_scene_set_parent(p->scene, p->nodes[i].node, p->nodes[parent].node);
        if (r != OROYA_OK)
            return fail(p, "nodes[%d].parent: cannot parent to '%s' (%s)", i, pv->valuestring,
                        oroya_result_string(r));
    }
    oroya_scene_update_world(p->scene);
    return check_world(p, "nodes");
}

static int find_skin(const play *p, const char *name) {
    for (int i = 0; name && i < p->skin_count; i++)
        if (!strcmp(p->skins[i].name, name))
            return i;
    return -1;
}

static int number_list(play *p, const cJSON *arr, const char *path, double **out, int *count) {
    if (!cJSON_IsArray(arr))
        return fail(p, "%s: expected an array of numbers", path);
    int n = cJSON_GetArraySize(arr);
    double *v = sc_malloc(p, ((size_t)n + 1) * sizeof *v);
    if (!v)
        return fail(p, "out of memory");
    int i = 0;
    for (const cJSON *x = arr->child; x; x = x->next, i++) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) {
            sc_free(p, v);
            return fail(p, "%s[%d]: expected a finite number", path, i);
        }
        v[i] = x->valuedouble;
    }
    *out = v;
    *count = n;
    return 0;
}

static int matrix_of(play *p, const cJSON *v, const char *path, oroya_mat4 *out) {
    double m[16];
    if (get_vec(p, v, 16, path, m))
        return -1;
    for (int i = 0; i < 16; i++)
        out->m[i] = (float)m[i];
    return 0;
}

/* Skins, after the nodes and before the clips, as the oracle builds them: geometry,
 * optional normalizeSkinWeights, Skeleton(bones, boneInverses?), mesh.bind(skeleton,
 * bindMatrix?), bindMode. */
static int setup_skin(play *p, const cJSON *s, const char *path, play_skin *ps) {
    char sub[128];
    if (!cJSON_IsObject(s))
        return fail(p, "%s: expected an object", path);
    const char *name = get_string(s, "name");
    if (!is_name(name))
        return fail(p, "%s.name: expected a name of [A-Za-z0-9_-]+", path);
    if (find_skin(p, name) >= 0)
        return fail(p, "%s.name: duplicate skin '%s'", path, name);
    ps->name = name;
    int mesh = find_scenario_node(p, get_string(s, "mesh"));
    if (mesh < 0 || p->nodes[mesh].kind != OROYA_NODE_SKINNED_MESH)
        return fail(p, "%s.mesh: must name a node of type skinnedMesh", path);
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(s, "bones");
    if (!cJSON_IsArray(bones))
        return fail(p, "%s.bones: expected an array of node names", path);
    int nb = cJSON_GetArraySize(bones);
    oroya_node *bn = sc_calloc(p, (size_t)nb + 1, sizeof *bn);
    oroya_mat4 *inv = sc_calloc(p, (size_t)nb + 1, sizeof *inv);
    double *verts = NULL, *idx = NULL, *wts = NULL;
    uint16_t *joints = NULL;
    float *pos = NULL, *w = NULL;
    int rc = 0, nv3 = 0, ni = 0, nw = 0;
    if (!bn || !inv) {
        rc = fail(p, "out of memory");
        goto done;
    }
    for (int i = 0; i < nb; i++) {
        const cJSON *b = cJSON_GetArrayItem(bones, i);
        int node = cJSON_IsString(b) ? find_scenario_node(p, b->valuestring) : -1;
        if (node < 0) {
            rc = fail(p, "%s.bones[%d]: unknown node", path, i);
            goto done;
        }
        bn[i] = p->nodes[node].node;
    }
    snprintf(sub, sizeof sub, "%s.vertices", path);
    if ((rc = number_list(p, cJSON_GetObjectItemCaseSensitive(s, "vertices"), sub, &verts, &nv3)))
        goto done;
    snprintf(sub, sizeof sub, "%s.skinIndex", path);
    if ((rc = number_list(p, cJSON_GetObjectItemCaseSensitive(s, "skinIndex"), sub, &idx, &ni)))
        goto done;
    snprintf(sub, sizeof sub, "%s.skinWeight", path);
    if ((rc = number_list(p, cJSON_GetObjectItemCaseSensitive(s, "skinWeight"), sub, &wts, &nw)))
        goto done;
    int nv = nv3 / 3;
    if (nv3 % 3 || nv == 0 || ni != nv * 4 || nw != nv * 4) {
        rc = fail(p, "%s: vertices/skinIndex/skinWeight sizes disagree (%d, %d, %d numbers)", path,
                  nv3, ni, nw);
        goto done;
    }
    pos = sc_malloc(p, (size_t)nv3 * sizeof *pos);
    w = sc_malloc(p, (size_t)nw * sizeof *w);
    joints = sc_malloc(p, (size_t)ni * sizeof *joints);
    ps->vertices = sc_calloc(p, (size_t)nv3, sizeof *ps->vertices);
    if (!pos || !w || !joints || !ps->vertices) {
        rc = fail(p, "out of memory");
        goto done;
    }
    for (int i = 0; i < nv3; i++)
        pos[i] = (float)verts[i];
    for (int i = 0; i < nw; i++)
        w[i] = (float)wts[i];
    for (int i = 0; i < ni; i++) {
        if (idx[i] < 0 || idx[i] > 65535 || idx[i] != floor(idx[i])) {
            rc = fail(p, "%s.skinIndex[%d]: expected a bone index", path, i);
            goto done;
        }
        joints[i] = (uint16_t)idx[i];
    }
    oroya_error err = {0};
    oroya_skin_desc sd = {.mesh = p->nodes[mesh].node,
                          .vertex_count = (uint32_t)nv,
                          .positions = pos,
                          .joints = joints,
                          .weights = w,
                          .allocator = *p->alloc};
    if (oroya_skin_create(&sd, &ps->skin, &err) != OROYA_OK) {
        rc = fail(p, "%s: %s", path, err.message);
        goto done;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "normalizeSkinWeights")))
        oroya_skin_normalize_weights(ps->skin);
    const cJSON *bi = cJSON_GetObjectItemCaseSensitive(s, "boneInverses");
    bool has_inv = bi && !cJSON_IsNull(bi);
    if (has_inv) {
        if (!cJSON_IsArray(bi) || cJSON_GetArraySize(bi) != nb) {
            rc = fail(p, "%s.boneInverses: expected %d matrices (one per bone)", path, nb);
            goto done;
        }
        for (int i = 0; i < nb; i++) {
            snprintf(sub, sizeof sub, "%s.boneInverses[%d]", path, i);
            if ((rc = matrix_of(p, cJSON_GetArrayItem(bi, i), sub, &inv[i])))
                goto done;
        }
    }
    oroya_scene_update_world(p->scene);
    oroya_skeleton_desc kd = {
        .bones = bn,
        .bone_count = (uint32_t)nb,
        .bone_inverses = has_inv ? inv : NULL,
        .allocator = *p->alloc};
    if (oroya_skeleton_create(p->scene, &kd, &ps->skeleton, &err) != OROYA_OK) {
        rc = fail(p, "%s: %s", path, err.message);
        goto done;
    }
    const cJSON *bm = cJSON_GetObjectItemCaseSensitive(s, "bindMatrix");
    oroya_mat4 bind;
    if (bm && !cJSON_IsNull(bm)) {
        snprintf(sub, sizeof sub, "%s.bindMatrix", path);
        if ((rc = matrix_of(p, bm, sub, &bind)))
            goto done;
    }
    if (oroya_skin_bind(ps->skin, p->scene, ps->skeleton, bm && !cJSON_IsNull(bm) ? &bind : NULL,
                        &err) != OROYA_OK) {
        rc = fail(p, "%s: %s", path, err.message);
        goto done;
    }
    const char *mode = get_string(s, "bindMode");
    if (mode && !strcmp(mode, "detached"))
        oroya_skin_set_bind_mode(ps->skin, OROYA_BIND_DETACHED);
    else if (mode && strcmp(mode, "attached")) {
        rc = fail(p, "%s.bindMode: expected \"attached\" or \"detached\"", path);
        goto done;
    }
done:
    sc_free(p, bn);
    sc_free(p, inv);
    sc_free(p, verts);
    sc_free(p, idx);
    sc_free(p, wts);
    sc_free(p, pos);
    sc_free(p, w);
    sc_free(p, joints);
    return rc;
}

static int setup_skins(play *p) {
    const cJSON *skins = cJSON_GetObjectItemCaseSensitive(p->root, "skins");
    if (!skins || cJSON_IsNull(skins))
        return 0;
    if (!cJSON_IsArray(skins))
        return fail(p, "skins: expected an array");
    int n = cJSON_GetArraySize(skins);
    p->skins = sc_calloc(p, (size_t)n + 1, sizeof *p->skins);
    if (!p->skins)
        return fail(p, "out of memory");
    char path[64];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "skins[%d]", i);
        int rc = setup_skin(p, cJSON_GetArrayItem(skins, i), path, &p->skins[p->skin_count]);
        p->skin_count++;
        if (rc)
            return rc;
    }
    return 0;
}

static int update_skins(play *p) {
    for (int i = 0; i < p->skin_count; i++) {
        oroya_error err = {0};
        if (oroya_skeleton_update(p->skins[i].skeleton, p->scene, &err) != OROYA_OK ||
            oroya_skin_update(p->skins[i].skin, p->scene, &err) != OROYA_OK)
            return fail(p, "skins[%d]: %s", i, err.message);
    }
    return 0;
}

static int property_of(const char *s, oroya_property *out, const char **path_name) {
    if (!s)
        return -1;
    if (!strcmp(s, "position") || !strcmp(s, "translation")) {
        *out = OROYA_PROPERTY_TRANSLATION;
        *path_name = "position";
    } else if (!strcmp(s, "rotation") || !strcmp(s, "quaternion")) {
        *out = OROYA_PROPERTY_ROTATION;
        *path_name = "quaternion";
    } else if (!strcmp(s, "scale")) {
        *out = OROYA_PROPERTY_SCALE;
        *path_name = "scale";
    } else if (!strcmp(s, "intensity")) {
        *out = OROYA_PROPERTY_INTENSITY;
        *path_name = "intensity";
    } else if (!strcmp(s, "fov")) {
        *out = OROYA_PROPERTY_FOV;
        *path_name = "fov";
    } else if (!strcmp(s, "color") || !strcmp(s, "material.color")) {
        *out = OROYA_PROPERTY_COLOR;
        *path_name = "material.color";
    } else if (!strcmp(s, "visible")) {
        *out = OROYA_PROPERTY_VISIBLE;
        *path_name = "visible";
    } else {
        return -1;
    }
    return 0;
}

/* The scenario's interpolation names: step (= discrete), linear, cubicspline, smooth. */
static bool interpolation_named(const char *s, oroya_interpolation *out) {
    if (!strcmp(s, "step") || !strcmp(s, "discrete"))
        *out = OROYA_INTERP_STEP;
    else if (!strcmp(s, "linear"))
        *out = OROYA_INTERP_LINEAR;
    else if (!strcmp(s, "cubicspline"))
        *out = OROYA_INTERP_CUBICSPLINE;
    else if (!strcmp(s, "smooth"))
        *out = OROYA_INTERP_SMOOTH;
    else
        return false;
    return true;
}

/* A typed track needs its component on the node: a light, a camera or a mesh. */
static int typed_track_target_check(play *p, const char *path, const char *node,
                                    oroya_property prop) {
    const int i = find_scenario_node(p, node);
    const oroya_node n = p->nodes[i].node;
    oroya_light l;
    oroya_camera c;
    if (prop == OROYA_PROPERTY_INTENSITY && oroya_scene_get_light(p->scene, n, &l) != OROYA_OK)
        return fail(p, "%s.property: intensity needs a node of type \"light\" ('%s' is not)",
                    path, node);
    if (prop == OROYA_PROPERTY_FOV && oroya_scene_get_camera(p->scene, n, &c) != OROYA_OK)
        return fail(p, "%s.property: fov needs a node of type \"camera\" ('%s' is not)", path,
                    node);
    if (prop == OROYA_PROPERTY_COLOR && oroya_scene_get_mesh(p->scene, n, NULL, NULL) != OROYA_OK)
        return fail(p, "%s.property: color needs a node of type \"mesh\" ('%s' is not)", path,
                    node);
    return 0;
}

static float *float_array_of(play *p, const cJSON *arr, const char *path, int *count,
                             bool booleans) {
    if (!cJSON_IsArray(arr)) {
        fail(p, "%s: expected an array of numbers", path);
        return NULL;
    }
    int n = cJSON_GetArraySize(arr);
    float *f = sc_malloc(p, ((size_t)n + 1) * sizeof *f);
    if (!f) {
        fail(p, "out of memory");
        return NULL;
    }
    int i = 0;
    for (const cJSON *x = arr->child; x; x = x->next, i++) {
        if (booleans && cJSON_IsBool(x)) {
            f[i] = cJSON_IsTrue(x) ? 1.0f : 0.0f;
            continue;
        }
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) {
            sc_free(p, f);
            fail(p, "%s[%d]: expected a finite number%s", path, i, booleans ? " or a boolean" : "");
            return NULL;
        }
        f[i] = (float)x->valuedouble; /* three stores keys in Float32Arrays */
    }
    *count = n;
    return f;
}

static float *float_array(play *p, const cJSON *arr, const char *path, int *count) {
    return float_array_of(p, arr, path, count, false);
}

/* ---- "oroya": {"curves": {...}} ------------------------------------------------------------ */

/* The track name the reference runner gives a curve (a number property of a holder object
 * with original value 0, docs/scenario.md "Curves"): `oroya_curves.<name>`. */
#define CURVE_HOLDER "oroya_curves"

/* oroya.curves.<clip>, or NULL. Errors (the shape of the key, unknown or glTF clips) are
 * reported by check_scenario_curves once the clips exist. */
static const cJSON *oroya_curves_key(const play *p) {
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p->root, "oroya");
    return cJSON_IsObject(ext) ? cJSON_GetObjectItemCaseSensitive(ext, "curves") : NULL;
}

static const cJSON *scenario_curves_of(const play *p, const char *clip) {
    const cJSON *all = oroya_curves_key(p);
    const cJSON *list = cJSON_IsObject(all) ? cJSON_GetObjectItemCaseSensitive(all, clip) : NULL;
    return cJSON_IsArray(list) ? list : NULL;
}

/* Every clip named in oroya.curves is a scenario clip, and every entry a list. */
static int check_scenario_curves(play *p) {
    const cJSON *all = oroya_curves_key(p);
    if (!all)
        return 0;
    if (!cJSON_IsObject(all))
        return fail(p, "oroya.curves: expected an object of clip names");
    const cJSON *list;
    cJSON_ArrayForEach(list, all) {
        if (find_scenario_clip(p, list->string) < 0)
            return fail(p, "oroya.curves.%s: %s", list->string,
                        find_clip(p, list->string) >= 0 ? "curves go on scenario clips, not glTF "
                                                          "animations"
                                                        : "unknown clip");
        if (!cJSON_IsArray(list))
            return fail(p, "oroya.curves.%s: expected an array of {\"name\", \"interpolation\", "
                        "\"times\", \"values\"}", list->string);
    }
    return 0;
}

/* Builds clip `clip`'s CURVE tracks from `list` into tr[0..n) (times and values allocated,
 * freed by the caller with the other tracks) and their track names. */
static int scenario_curve_tracks(play *p, const char *clip, const cJSON *list, oroya_track *tr,
                                 const char **names, float *max_time) {
    int i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, list) {
        char path[400], sub[440];
        snprintf(path, sizeof path, "oroya.curves.%s[%d]", clip, i);
        if (!cJSON_IsObject(c))
            return fail(p, "%s: expected an object", path);
        const char *name = get_string(c, "name");
        if (!is_name(name))
            return fail(p, "%s.name: expected a curve name of [A-Za-z0-9_-]+", path);
        for (int k = 0; k < i; k++)
            if (!strcmp(tr[k].target, name))
                return fail(p, "%s.name: curve '%s' is already on clip '%s'", path, name, clip);
        oroya_interpolation in = OROYA_INTERP_LINEAR;
        const cJSON *iv = cJSON_GetObjectItemCaseSensitive(c, "interpolation");
        if (iv && !cJSON_IsNull(iv) &&
            !interpolation_named(cJSON_IsString(iv) ? iv->valuestring : "", &in)) {
            return fail(p, "%s.interpolation: expected step, linear, smooth or cubicspline", path);
        }
        int nt = 0, nv = 0;
        snprintf(sub, sizeof sub, "%s.times", path);
        float *times = float_array(p, cJSON_GetObjectItemCaseSensitive(c, "times"), sub, &nt);
        if (!times)
            return -1;
        snprintf(sub, sizeof sub, "%s.values", path);
        float *values = float_array(p, cJSON_GetObjectItemCaseSensitive(c, "values"), sub, &nv);
        tr[i] = (oroya_track){.target = name,
                              .property = OROYA_PROPERTY_CURVE,
                              .interpolation = in,
                              .components = 1,
                              .key_count = (uint32_t)nt,
                              .times = times,
                              .values = values};
        if (!values)
            return -1;
        int per_key = in == OROYA_INTERP_CUBICSPLINE ? 3 : 1;
        if (nt == 0 || nv != nt * per_key)
            return fail(p, "%s.values: expected %d number%s per key (%d keys), got %d", path,
                        per_key, per_key == 1 ? "" : "s", nt, nv);
        oroya_error err = {0};
        if (oroya_track_validate(&tr[i], (uint32_t)i, &err) != OROYA_OK)
            return fail(p, "%s: curve '%s': %s", path, name, err.message);
        if (times[nt - 1] > *max_time)
            *max_time = times[nt - 1];
        size_t len = strlen(CURVE_HOLDER) + strlen(name) + 2;
        char *track_name = sc_malloc(p, len);
        if (!track_name)
            return fail(p, "out of memory");
        snprintf(track_name, len, "%s.%s", CURVE_HOLDER, name);
        names[i] = track_name;
        i++;
    }
    return 0;
}

static int make_additive(play *p, int clip, const cJSON *obj, const char *path) {
    double frame = 0, fps = 30;
    if (get_number_opt(p, obj, "referenceFrame", path, &frame))
        return -1;
    if (get_number_opt(p, obj, "fps", path, &fps))
        return -1;
    int ref = clip;
    const cJSON *rc = cJSON_GetObjectItemCaseSensitive(obj, "referenceClip");
    if (rc && !cJSON_IsNull(rc)) {
        if (!cJSON_IsString(rc))
            return fail(p, "%s.referenceClip: expected a clip name", path);
        if (rc->valuestring[0]) {
            ref = find_clip(p, rc->valuestring);
            if (ref < 0)
                return fail(p, "%s.referenceClip: unknown clip '%s'", path, rc->valuestring);
        }
    }
    oroya_result r = oroya_clip_make_additive(p->clips[clip].clip, frame, p->clips[ref].clip, fps);
    if (r != OROYA_OK)
        return fail(p, "%s: makeClipAdditive failed (%s)", path, oroya_result_string(r));
    return 0;
}

static int setup_clips(play *p) {
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(p->root, "clips");
    if (!clips || cJSON_IsNull(clips))
        return 0;
    if (!cJSON_IsArray(clips))
        return fail(p, "clips: expected an array");
    int n = cJSON_GetArraySize(clips);
    p->clips = sc_calloc(p, (size_t)n + 1, sizeof *p->clips);
    if (!p->clips)
        return fail(p, "out of memory");
    p->clip_cap = n + 1;
    char path[96], sub[160];
    for (int ci = 0; ci < n; ci++) {
        const cJSON *c = cJSON_GetArrayItem(clips, ci);
        snprintf(path, sizeof path, "clips[%d]", ci);
        if (!cJSON_IsObject(c))
            return fail(p, "%s: expected an object", path);
        const char *name = get_string(c, "name");
        if (!is_name(name))
            return fail(p, "%s.name: expected a name of [A-Za-z0-9_-]+", path);
        if (find_scenario_clip(p, name) >= 0)
            return fail(p, "%s.name: duplicate clip '%s'", path, name);
        if (p->model && oroya_gltf_model_find_clip(p->model, name))
            return fail(p, "%s.name: '%s' is taken by a glTF animation", path, name);
        double duration = -1;
        if (get_number_opt(p, c, "duration", path, &duration))
            return -1;
        oroya_blend_mode mode = OROYA_BLEND_NORMAL;
        const cJSON *bm = cJSON_GetObjectItemCaseSensitive(c, "blendMode");
        if (bm && !cJSON_IsNull(bm)) {
            if (cJSON_IsString(bm) && !strcmp(bm->valuestring, "normal"))
                mode = OROYA_BLEND_NORMAL;
            else if (cJSON_IsString(bm) && !strcmp(bm->valuestring, "additive"))
                mode = OROYA_BLEND_ADDITIVE;
            else
                return fail(p, "%s.blendMode: expected \"normal\" or \"additive\"", path);
        }
        const cJSON *tracks = cJSON_GetObjectItemCaseSensitive(c, "tracks");
        if (tracks && !cJSON_IsNull(tracks) && !cJSON_IsArray(tracks))
            return fail(p, "%s.tracks: expected an array", path);
        int tn = tracks ? cJSON_GetArraySize(tracks) : 0;
        const cJSON *curves = scenario_curves_of(p, name);
        const int cn = curves ? cJSON_GetArraySize(curves) : 0;
        oroya_track *tr = sc_calloc(p, (size_t)tn + (size_t)cn + 1, sizeof *tr);
        const char **names = sc_calloc(p, (size_t)tn + (size_t)cn + 1, sizeof *names);
        p->clips[p->clip_count] = (play_clip){name, NULL, 0, names, false};
        p->clip_count++;
        if (!tr || !names) {
            sc_free(p, tr);
            return fail(p, "out of memory");
        }
        int rc = 0;
        float max_time = 0;
        for (int ti = 0; ti < tn && !rc; ti++) {
            const cJSON *t = cJSON_GetArrayItem(tracks, ti);
            snprintf(sub, sizeof sub, "%s.tracks[%d]", path, ti);
            if (!cJSON_IsObject(t)) {
                rc = fail(p, "%s: expected an object", sub);
                break;
            }
            const char *node = get_string(t, "node");
            if (find_scenario_node(p, node) < 0) {
                rc = fail(p, "%s.node: unknown node '%s'", sub, node ? node : "(missing)");
                break;
            }
            const char *prop_name = NULL;
            oroya_property prop;
            if (property_of(get_string(t, "property"), &prop, &prop_name)) {
                rc = fail(p,
                          "%s.property: expected position, translation, rotation, quaternion, "
                          "scale, intensity, fov, color (material.color) or visible",
                          sub);
                break;
            }
            if (typed_track_target_check(p, sub, node, prop)) {
                rc = -1;
                break;
            }
            const char *interp = get_string(t, "interpolation");
            const cJSON *iv = cJSON_GetObjectItemCaseSensitive(t, "interpolation");
            /* Booleans step (three's BooleanKeyframeTrack default and only mode). */
            oroya_interpolation in =
                prop == OROYA_PROPERTY_VISIBLE ? OROYA_INTERP_STEP : OROYA_INTERP_LINEAR;
            if (iv && !cJSON_IsNull(iv)) {
                if (!interp) {
                    rc = fail(p, "%s.interpolation: expected a string", sub);
                    break;
                }
                if (interpolation_named(interp, &in)) {
                    /* three has no smooth quaternion interpolant and falls back to linear. */
                    if (in == OROYA_INTERP_SMOOTH && prop == OROYA_PROPERTY_ROTATION)
                        in = OROYA_INTERP_LINEAR;
                } else {
                    rc = fail(p, "%s.interpolation: unknown interpolation '%s'", sub, interp);
                    break;
                }
            }
            uint32_t comps = oroya_property_components(prop);
            char sub2[200];
            snprintf(sub2, sizeof sub2, "%s.times", sub);
            int nt = 0, nv = 0;
            float *times = float_array(p, cJSON_GetObjectItemCaseSensitive(t, "times"), sub2, &nt);
            if (!times) {
                rc = -1;
                break;
            }
            snprintf(sub2, sizeof sub2, "%s.values", sub);
            float *values = float_array_of(p, cJSON_GetObjectItemCaseSensitive(t, "values"), sub2,
                                           &nv, prop == OROYA_PROPERTY_VISIBLE);
            if (!values) {
                sc_free(p, times);
                rc = -1;
                break;
            }
            tr[ti] = (oroya_track){.target = node,
                                   .property = prop,
                                   .interpolation = in,
                                   .components = comps,
                                   .key_count = (uint32_t)nt,
                                   .times = times,
                                   .values = values};
            long per_key = (long)comps * (in == OROYA_INTERP_CUBICSPLINE ? 3 : 1);
            if (nt == 0 || (long)nv != (long)nt * per_key) {
                rc = fail(p, "%s.values: expected %ld numbers per key (%d keys), got %d", sub,
                          per_key, nt, nv);
                break;
            }
            oroya_error err = {0};
            if (oroya_track_validate(&tr[ti], (uint32_t)ti, &err) != OROYA_OK) {
                rc = fail(p, "%s: %s", sub, err.message);
                break;
            }
            if (times[nt - 1] > max_time)
                max_time = times[nt - 1];
            size_t len = strlen(node) + strlen(prop_name) + 2;
            char *tn2 = sc_malloc(p, len);
            if (!tn2) {
                rc = fail(p, "out of memory");
                break;
            }
            snprintf(tn2, len, "%s.%s", node, prop_name);
            names[ti] = tn2;
        }
        if (!rc && cn) {
            rc = scenario_curve_tracks(p, name, curves, tr + tn, names + tn, &max_time);
            tn += cn;
        }
        if (!rc) {
            /* three keeps the JSON duration as a double; without one (or negative) it takes
             * the last key time of the longest track (a float). */
            double exact = duration >= 0 ? duration : (double)max_time;
            oroya_clip_desc desc = {.name = name,
                                    .duration = (float)exact,
                                    .blend_mode = mode,
                                    .tracks = tr,
                                    .track_count = (uint32_t)tn,
                                    .allocator = *p->alloc};
            oroya_error err = {0};
            oroya_clip *clip = NULL;
            if (oroya_clip_create(&desc, &clip, &err) != OROYA_OK)
                rc = fail(p, "%s: %s", path, err.message);
            else
                warn_normalized(p, path, clip);
            p->clips[p->clip_count - 1].clip = clip;
            p->clips[p->clip_count - 1].duration = exact;
        }
        for (int ti = 0; ti < tn; ti++) {
            sc_free(p, (void *)tr[ti].times);
            sc_free(p, (void *)tr[ti].values);
        }
        sc_free(p, tr);
        if (rc)
            return rc;
    }
    for (int ci = 0; ci < n; ci++) {
        const cJSON *c = cJSON_GetArrayItem(clips, ci);
        const cJSON *ma = cJSON_GetObjectItemCaseSensitive(c, "makeAdditive");
        if (!ma || cJSON_IsNull(ma))
            continue;
        snprintf(path, sizeof path, "clips[%d].makeAdditive", ci);
        if (!cJSON_IsObject(ma))
            return fail(p, "%s: expected an object", path);
        if (make_additive(p, ci, ma, path))
            return -1;
    }
    return 0;
}

static int setup_actions(play *p) {
    const cJSON *acts = cJSON_GetObjectItemCaseSensitive(p->root, "actions");
    if (acts && !cJSON_IsNull(acts) && !cJSON_IsArray(acts))
        return fail(p, "actions: expected an array");
    int n = acts && cJSON_IsArray(acts) ? cJSON_GetArraySize(acts) : 0;
    p->actions = sc_calloc(p, (size_t)(n + p->clip_count) + 1, sizeof *p->actions);
    if (!p->actions)
        return fail(p, "out of memory");
    p->action_cap = n + p->clip_count + 1;
    char path[64];
    for (int i = 0; i < n; i++) {
        const cJSON *a = cJSON_GetArrayItem(acts, i);
        snprintf(path, sizeof path, "actions[%d]", i);
        if (!cJSON_IsObject(a))
            return fail(p, "%s: expected an object", path);
        const char *name = get_string(a, "name");
        if (!is_name(name))
            return fail(p, "%s.name: expected a name of [A-Za-z0-9_-]+", path);
        if (find_declared_action(p, name) >= 0)
            return fail(p, "%s.name: duplicate action '%s'", path, name);
        int clip = find_clip(p, get_string(a, "clip"));
        if (clip < 0)
            return fail(p, "%s.clip: unknown clip", path);
        play_action pa = {.name = name, .clip = clip};
        const cJSON *bm = cJSON_GetObjectItemCaseSensitive(a, "blendMode");
        if (bm && !cJSON_IsNull(bm)) {
            pa.has_blend_mode = true;
            if (cJSON_IsString(bm) && !strcmp(bm->valuestring, "normal"))
                pa.blend_mode = OROYA_BLEND_NORMAL;
            else if (cJSON_IsString(bm) && !strcmp(bm->valuestring, "additive"))
                pa.blend_mode = OROYA_BLEND_ADDITIVE;
            else
                return fail(p, "%s.blendMode: expected \"normal\" or \"additive\"", path);
        }
        const cJSON *cc = cJSON_GetObjectItemCaseSensitive(a, "cloneClip");
        if (cc) {
            if (!cJSON_IsBool(cc))
                return fail(p, "%s.cloneClip: expected a boolean", path);
            pa.clone = cJSON_IsTrue(cc);
        }
        p->actions[p->action_count++] = pa;
    }
    /* Every clip also names its own action, unless a declared action has that name
     * (find_action adds glTF clips' slots when first named). */
    for (int c = 0; c < p->clip_count; c++) {
        if (p->clips[c].gltf || find_declared_action(p, p->clips[c].name) >= 0)
            continue;
        p->actions[p->action_count++] = (play_action){.name = p->clips[c].name, .clip = c};
    }
    return 0;
}

/* mixer.clipAction at the first mention, as the oracle does. */
static int action_of(play *p, int slot, const char *path) {
    play_action *pa = &p->actions[slot];
    if (pa->action)
        return 0;
    play_clip *pc = &p->clips[pa->clip];
    const oroya_clip *clip = pc->clip;
    if (pa->clone) {
        /* clip.clone(): a copy of the clip as it is now; later edits do not reach it. */
        oroya_error err = {0};
        if (oroya_clip_clone(pc->clip, &pa->copy, &err) != OROYA_OK)
            return fail(p, "%s: cannot clone clip '%s': %s", path, pc->name, err.message);
        clip = pa->copy;
    }
    oroya_action_desc desc = {.has_blend_mode = pa->has_blend_mode,
                              .blend_mode = pa->blend_mode,
                              .duration = pc->duration};
    oroya_action *a = NULL;
    oroya_result r = oroya_mixer_clip_action_ex(p->mixer, clip, &desc, &a);
    if (r != OROYA_OK)
        return fail(p, "%s: cannot create action '%s' (%s)", path, pa->name,
                    oroya_result_string(r));
    for (int i = 0; i < p->action_count; i++)
        if (i != slot && p->actions[i].action == a)
            return fail(p, "%s: actions %s and %s resolve to the same action", path,
                        p->actions[i].name, pa->name);
    pa->action = a;
    return 0;
}

static const char *action_name(const play *p, const oroya_action *a) {
    for (int i = 0; i < p->action_count; i++)
        if (p->actions[i].action == a)
            return p->actions[i].name;
    return NULL;
}

/* ---- script ----------------------------------------------------------------------------- */

static int op_action(play *p, const cJSON *o, const char *key, const char *path, int *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *used = key;
    if ((!v || cJSON_IsNull(v)) && !strcmp(key, "action")) {
        v = cJSON_GetObjectItemCaseSensitive(o, "clip");
        used = "clip";
    }
    if (!v || cJSON_IsNull(v))
        return fail(p, "%s: needs \"%s\"", path, key);
    if (!cJSON_IsString(v))
        return fail(p, "%s.%s: expected an action or clip name", path, used);
    int slot = find_action(p, v->valuestring);
    if (slot < 0)
        return fail(p, "%s.%s: unknown action/clip '%s'", path, used, v->valuestring);
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
        return fail(p, "%s: expected a number >= 0, null or \"Infinity\"", path);
    *out = v->valuedouble;
    return 0;
}

static int parse_set_ik(play *p, const cJSON *o, const char *path, int *out);
static int ik_fields(play *p, const cJSON *o, const char *path, oroya_ik *ik);
/* {"do": "setMask", "action": A, "mask": "<name in oroya.masks>" | null} (oroya's extension). */
static int parse_set_mask(play *p, const cJSON *o, const char *path, play_op *op) {
    if (op_action(p, o, "action", path, &op->action))
        return -1;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "mask");
    if (cJSON_IsNull(m)) {
        op->field = -1;
        return 0;
    }
    if (!cJSON_IsString(m))
        return fail(p, "%s.mask: expected a mask name or null", path);
    for (int i = 0; i < p->mask_count; i++)
        if (!strcmp(p->mask_names[i], m->valuestring)) {
            op->field = i;
            return 0;
        }
    return fail(p, "%s.mask: unknown mask \"%s\" (not in oroya.masks)", path, m->valuestring);
}

static int parse_op(play *p, const cJSON *o, int index, play_op *op) {
    char path[64];
    snprintf(path, sizeof path, "script[%d]", index);
    if (!cJSON_IsObject(o))
        return fail(p, "%s: expected an object", path);
    const char *d = get_string(o, "do");
    int kind = -1;
    for (int k = 0; d && k < OP_COUNT; k++)
        if (!strcmp(d, op_names[k]))
            kind = k;
    if (kind < 0)
        return fail(p, "%s.do: unknown op '%s'", path, d ? d : "(missing)");
    memset(op, 0, sizeof *op);
    op->kind = (op_kind)kind;
    op->action = op->other = op->node = op->clip = op->ref_clip = -1;
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(o, "at");
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(o, "step");
    if (at && step)
        return fail(p, "%s: give \"at\" or \"step\", not both", path);
    if (step) {
        if (!cJSON_IsNumber(step) || isnan(step->valuedouble))
            return fail(p, "%s.step: expected a frame index", path);
        op->by_step = true;
        op->step = step->valuedouble;
    } else if (at && !cJSON_IsNull(at)) {
        if (get_number(p, o, "at", path, &op->at))
            return -1;
    }
    switch (op->kind) {
    case OP_PLAY:
    case OP_STOP:
    case OP_RESET:
    case OP_STOP_FADING:
    case OP_STOP_WARPING:
        return op_action(p, o, "action", path, &op->action);
    case OP_FADE_IN:
    case OP_FADE_OUT:
    case OP_SET_DURATION:
    case OP_HALT:
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        return get_number(p, o, "duration", path, &op->n[0]);
    case OP_CROSS_FADE_TO:
    case OP_CROSS_FADE_FROM: {
        if (op_action(p, o, "from", path, &op->other) || op_action(p, o, "to", path, &op->action))
            return -1;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "warp");
        op->flag = cJSON_IsTrue(w);
        return get_number(p, o, "duration", path, &op->n[0]);
    }
    case OP_SET_EFFECTIVE_WEIGHT:
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        return get_number(p, o, "weight", path, &op->n[0]);
    case OP_SET_EFFECTIVE_TIME_SCALE:
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        return get_number(p, o, "timeScale", path, &op->n[0]);
    case OP_SET_LOOP: {
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        op->mode = loop_mode_of(cJSON_GetObjectItemCaseSensitive(o, "mode"));
        if (op->mode < 0)
            return fail(p, "%s.mode: expected \"once\", \"repeat\" or \"pingpong\"", path);
        char sub[96];
        snprintf(sub, sizeof sub, "%s.repetitions", path);
        return repetitions_of(p, cJSON_GetObjectItemCaseSensitive(o, "repetitions"), sub,
                              &op->n[0]);
    }
    case OP_CLAMP_WHEN_FINISHED:
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        op->flag = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "value"));
        return 0;
    case OP_START_AT:
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        return get_number(p, o, "time", path, &op->n[0]);
    case OP_SYNC_WITH:
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        return op_action(p, o, "with", path, &op->other);
    case OP_WARP:
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        if (get_number(p, o, "startTimeScale", path, &op->n[0]) ||
            get_number(p, o, "endTimeScale", path, &op->n[1]))
            return -1;
        return get_number(p, o, "duration", path, &op->n[2]);
    case OP_SET_TIME: {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "action");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "clip");
        if ((a && !cJSON_IsNull(a)) || (c && !cJSON_IsNull(c)))
            if (op_action(p, o, "action", path, &op->action))
                return -1;
        return get_number(p, o, "time", path, &op->n[0]);
    }
    case OP_SET: {
        if (op_action(p, o, "action", path, &op->action))
            return -1;
        const char *f = get_string(o, "field");
        op->field = -1;
        for (int k = 0; f && k < F_COUNT; k++)
            if (!strcmp(f, set_field_names[k]))
                op->field = k;
        if (op->field < 0)
            return fail(p, "%s.field: unsupported field '%s'", path, f ? f : "(missing)");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
        char sub[96];
        snprintf(sub, sizeof sub, "%s.value", path);
        switch ((set_field)op->field) {
        case F_WEIGHT:
        case F_TIME_SCALE:
        case F_TIME:
            return get_number(p, o, "value", path, &op->n[0]);
        case F_ENABLED:
        case F_PAUSED:
        case F_CLAMP:
        case F_ZERO_SLOPE_START:
        case F_ZERO_SLOPE_END:
            if (!cJSON_IsBool(v))
                return fail(p, "%s: expected a boolean", sub);
            op->flag = cJSON_IsTrue(v);
            return 0;
        case F_REPETITIONS:
            return repetitions_of(p, v, sub, &op->n[0]);
        case F_LOOP:
            op->mode = loop_mode_of(v);
            if (op->mode < 0)
                return fail(p, "%s: expected \"once\", \"repeat\" or \"pingpong\"", sub);
            return 0;
        case F_BLEND_MODE:
            if (cJSON_IsString(v) && !strcmp(v->valuestring, "normal"))
                op->mode = OROYA_BLEND_NORMAL;
            else if (cJSON_IsString(v) && !strcmp(v->valuestring, "additive"))
                op->mode = OROYA_BLEND_ADDITIVE;
            else
                return fail(p, "%s: expected \"normal\" or \"additive\"", sub);
            return 0;
        default:
            return fail(p, "%s.field: unsupported", path);
        }
    }
    case OP_SET_MIXER_TIME_SCALE:
        return get_number(p, o, "timeScale", path, &op->n[0]);
    case OP_STOP_ALL_ACTION:
        return 0;
    case OP_MAKE_CLIP_ADDITIVE: {
        op->clip = find_clip(p, get_string(o, "clip"));
        if (op->clip < 0)
            return fail(p, "%s.clip: unknown clip", path);
        double tmp = 0;
        if (get_number_opt(p, o, "referenceFrame", path, &tmp) ||
            get_number_opt(p, o, "fps", path, &tmp))
            return -1;
        const cJSON *rc = cJSON_GetObjectItemCaseSensitive(o, "referenceClip");
        if (rc && !cJSON_IsNull(rc) &&
            (!cJSON_IsString(rc) || (rc->valuestring[0] && find_clip(p, rc->valuestring) < 0)))
            return fail(p, "%s.referenceClip: unknown clip", path);
        return 0;
    }
    case OP_SET_MASK:
        return parse_set_mask(p, o, path, op);
    case OP_SET_NODE: {
        op->node = find_node(p, get_string(o, "node"));
        if (op->node < 0)
            return fail(p, "%s.node: unknown node", path);
        char sub[96];
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "position");
        if (v) {
            snprintf(sub, sizeof sub, "%s.position", path);
            if (get_vec(p, v, 3, sub, op->pos))
                return -1;
            op->has_pos = true;
        }
        const char *qk =
            cJSON_GetObjectItemCaseSensitive(o, "rotation") ? "rotation" : "quaternion";
        v = cJSON_GetObjectItemCaseSensitive(o, qk);
        if (v) {
            snprintf(sub, sizeof sub, "%s.%s", path, qk);
            if (get_vec(p, v, 4, sub, op->rot))
                return -1;
            op->has_rot = true;
        }
        v = cJSON_GetObjectItemCaseSensitive(o, "scale");
        if (v) {
            snprintf(sub, sizeof sub, "%s.scale", path);
            if (get_vec(p, v, 3, sub, op->scale))
                return -1;
            op->has_scale = true;
        }
        return 0;
    }
    case OP_SET_IK:
        return parse_set_ik(p, o, path, &op->node);
    default:
        return fail(p, "%s.do: unsupported op", path);
    }
}

static int setup_script(play *p) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(p->root, "script");
    if (!s || cJSON_IsNull(s))
        return 0;
    if (!cJSON_IsArray(s))
        return fail(p, "script: expected an array");
    int n = cJSON_GetArraySize(s);
    p->ops = sc_calloc(p, (size_t)n + 1, sizeof *p->ops);
    if (!p->ops)
        return fail(p, "out of memory");
    const cJSON *o = s->child; /* walked, not indexed: cJSON_GetArrayItem is O(i) */
    for (int i = 0; i < n; i++, o = o->next) {
        if (parse_op(p, o, i, &p->ops[i]))
            return -1;
        p->ops[i].json = o;
        p->op_count++;
    }
    return 0;
}

static int mixer_call(play *p, oroya_result r, const char *path, const char *what) {
    if (r == OROYA_OK)
        return 0;
    return fail(p, "%s: %s failed (%s)", path, what, oroya_result_string(r));
}

static int run_op(play *p, int index) {
    play_op *op = &p->ops[index];
    const cJSON *json = op->json;
    char path[64];
    snprintf(path, sizeof path, "script[%d]", index);
    /* Actions are created in the order the oracle names them: crossFadeTo's `from` first. */
    if (op->kind == OP_CROSS_FADE_TO && action_of(p, op->other, path))
        return -1;
    if (op->action >= 0 && action_of(p, op->action, path))
        return -1;
    if (op->other >= 0 && action_of(p, op->other, path))
        return -1;
    oroya_action *a = op->action >= 0 ? p->actions[op->action].action : NULL;
    oroya_action *b = op->other >= 0 ? p->actions[op->other].action : NULL;
    const char *what = op_names[op->kind];
    switch (op->kind) {
    case OP_PLAY:
        oroya_action_play(a);
        return 0;
    case OP_STOP:
        oroya_action_stop(a);
        return 0;
    case OP_RESET:
        oroya_action_reset(a);
        return 0;
    case OP_FADE_IN:
        return mixer_call(p, oroya_action_fade_in(a, op->n[0]), path, what);
    case OP_FADE_OUT:
        return mixer_call(p, oroya_action_fade_out(a, op->n[0]), path, what);
    case OP_CROSS_FADE_TO:
        return mixer_call(p, oroya_action_cross_fade_to(b, a, op->n[0], op->flag), path, what);
    case OP_CROSS_FADE_FROM:
        return mixer_call(p, oroya_action_cross_fade_from(a, b, op->n[0], op->flag), path, what);
    case OP_SET_EFFECTIVE_WEIGHT:
        return mixer_call(p, oroya_action_set_effective_weight(a, op->n[0]), path, what);
    case OP_SET_EFFECTIVE_TIME_SCALE:
        return mixer_call(p, oroya_action_set_effective_time_scale(a, op->n[0]), path, what);
    case OP_SET_DURATION:
        return mixer_call(p, oroya_action_set_duration(a, op->n[0]), path, what);
    case OP_SET_LOOP:
        return mixer_call(p, oroya_action_set_loop(a, (oroya_loop_mode)op->mode, op->n[0]), path,
                          what);
    case OP_CLAMP_WHEN_FINISHED:
        oroya_action_set_clamp_when_finished(a, op->flag);
        return 0;
    case OP_START_AT:
        return mixer_call(p, oroya_action_start_at(a, op->n[0]), path, what);
    case OP_SYNC_WITH:
        return mixer_call(p, oroya_action_sync_with(a, b), path, what);
    case OP_HALT:
        return mixer_call(p, oroya_action_halt(a, op->n[0]), path, what);
    case OP_WARP:
        return mixer_call(p, oroya_action_warp(a, op->n[0], op->n[1], op->n[2]), path, what);
    case OP_STOP_FADING:
        oroya_action_stop_fading(a);
        return 0;
    case OP_STOP_WARPING:
        oroya_action_stop_warping(a);
        return 0;
    case OP_SET_TIME:
        if (a)
            return mixer_call(p, oroya_action_set_time(a, op->n[0]), path, what);
        return mixer_call(p, oroya_mixer_set_time(p->mixer, op->n[0]), path,
                          "setTime (a negative time is rejected: oroya deviation 1)");
    case OP_SET:
        switch ((set_field)op->field) {
        case F_WEIGHT:
            return mixer_call(p, oroya_action_set_weight(a, op->n[0]), path, what);
        case F_TIME_SCALE:
            return mixer_call(p, oroya_action_set_time_scale(a, op->n[0]), path, what);
        case F_TIME:
            return mixer_call(p, oroya_action_set_time(a, op->n[0]), path, what);
        case F_ENABLED:
            oroya_action_set_enabled(a, op->flag);
            return 0;
        case F_PAUSED:
            oroya_action_set_paused(a, op->flag);
            return 0;
        case F_CLAMP:
            oroya_action_set_clamp_when_finished(a, op->flag);
            return 0;
        case F_ZERO_SLOPE_START:
            oroya_action_set_zero_slope(a, op->flag, oroya_action_zero_slope_at_end(a));
            return 0;
        case F_ZERO_SLOPE_END:
            oroya_action_set_zero_slope(a, oroya_action_zero_slope_at_start(a), op->flag);
            return 0;
        case F_REPETITIONS:
            return mixer_call(p, oroya_action_set_loop(a, oroya_action_loop(a), op->n[0]), path,
                              what);
        case F_LOOP:
            return mixer_call(
                p, oroya_action_set_loop(a, (oroya_loop_mode)op->mode, oroya_action_repetitions(a)),
                path, what);
        case F_BLEND_MODE:
            oroya_action_set_blend_mode(a, (oroya_blend_mode)op->mode);
            return 0;
        default:
            return fail(p, "%s: unsupported field", path);
        }
    case OP_SET_MIXER_TIME_SCALE:
        return mixer_call(p, oroya_mixer_set_time_scale(p->mixer, op->n[0]), path, what);
    case OP_STOP_ALL_ACTION:
        oroya_mixer_stop_all(p->mixer);
        return 0;
    case OP_MAKE_CLIP_ADDITIVE:
        return make_additive(p, op->clip, json, path);
    case OP_SET_MASK:
        return mixer_call(p, oroya_action_set_mask(a, op->field < 0 ? NULL : p->masks[op->field]),
                          path, what);
    case OP_SET_NODE: {
        oroya_node node = p->nodes[op->node].node;
        oroya_transform t;
        if (oroya_scene_get_transform(p->scene, node, &t) != OROYA_OK)
            return fail(p, "%s.node: node not in the scene", path);
        if (op->has_pos)
            t.translation = (oroya_vec3){(float)op->pos[0], (float)op->pos[1], (float)op->pos[2]};
        if (op->has_rot)
            t.rotation = (oroya_quat){(float)op->rot[0], (float)op->rot[1], (float)op->rot[2],
                                      (float)op->rot[3]};
        if (op->has_scale)
            t.scale = (oroya_vec3){(float)op->scale[0], (float)op->scale[1], (float)op->scale[2]};
        return mixer_call(p, oroya_scene_set_transform(p->scene, node, &t), path, what);
    }
    case OP_SET_IK:
        return ik_fields(p, json, path, &p->iks[op->node]);
    default:
        return fail(p, "%s: unsupported op", path);
    }
}

/* ---- steps and records ------------------------------------------------------------------ */

static int setup_steps(play *p) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(p->root, "steps");
    if (cJSON_IsArray(s)) {
        int n = cJSON_GetArraySize(s);
        p->dts = sc_calloc(p, (size_t)n + 1, sizeof *p->dts);
        if (!p->dts)
            return fail(p, "out of memory");
        int i = 0;
        for (const cJSON *x = s->child; x; x = x->next, i++) {
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
                return fail(p, "steps[%d]: expected a finite number", i);
            p->dts[i] = x->valuedouble;
        }
        p->dt_count = (size_t)n;
        return 0;
    }
    if (!cJSON_IsObject(s))
        return fail(p,
                    "steps: required ({\"fps\", \"count\"}, {\"dt\", \"count\"} or a list of dt)");
    double dt = 0, count = 0;
    if (cJSON_GetObjectItemCaseSensitive(s, "fps")) {
        double fps = 0;
        if (get_number(p, s, "fps", "steps", &fps))
            return -1;
        dt = 1 / fps;
    } else if (get_number(p, s, "dt", "steps", &dt)) {
        return -1;
    }
    if (get_number(p, s, "count", "steps", &count))
        return -1;
    if (count < 0 || count != floor(count) || count > OROYA_SCENARIO_MAX_STEPS)
        return fail(p, "steps.count: expected a whole number of steps, at most %.0f",
                    OROYA_SCENARIO_MAX_STEPS);
    p->dt_count = (size_t)count;
    p->fixed_dt = dt; /* computed per step: a 40-byte file may ask for 1e6 steps */
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
            return fail(p, "record[%d]: key '%s': the node has no light", i, key);
        *kind = R_INTENSITY;
        return 0;
    }
    if (!strcmp(field, "fov")) {
        if (oroya_scene_get_camera(p->scene, node, &c) != OROYA_OK)
            return fail(p, "record[%d]: key '%s': the node has no camera", i, key);
        *kind = R_FOV;
        return 0;
    }
    if (!strcmp(field, "color")) {
        if (oroya_scene_get_mesh(p->scene, node, NULL, NULL) != OROYA_OK)
            return fail(p, "record[%d]: key '%s': the node has no mesh", i, key);
        *kind = R_COLOR;
        return 0;
    }
    return 1;
}

static int setup_records(play *p) {
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(p->root, "record");
    if (!r || cJSON_IsNull(r))
        return 0;
    if (!cJSON_IsArray(r))
        return fail(p, "record: expected an array of keys");
    int n = cJSON_GetArraySize(r);
    p->records = sc_calloc(p, (size_t)n + 1, sizeof *p->records);
    if (!p->records)
        return fail(p, "out of memory");
    int i = 0;
    for (const cJSON *x = r->child; x; x = x->next, i++) {
        if (!cJSON_IsString(x))
            return fail(p, "record[%d]: expected a key string", i);
        const char *key = x->valuestring;
        play_record rec = {.key = key, .slot = -1, .node = -1, .skin = -1};
        if (!strncmp(key, "curve:", 6)) {
            /* The index is resolved once here; 0 until an action drives the curve. */
            uint32_t index = 0;
            if (!is_name(key + 6))
                return fail(p, "record[%d]: key '%s': expected curve:<name> with a name of "
                            "[A-Za-z0-9_-]+", i, key);
            if (oroya_mixer_curve_index(p->mixer, key + 6, &index) != OROYA_OK)
                return fail(p, "out of memory");
            rec.kind = R_CURVE;
            rec.slot = (int)index;
        } else if (!strcmp(key, "rootMotion.delta") || !strcmp(key, "rootMotion.total")) {
            if (!p->root_motion)
                return fail(p, "record[%d]: key '%s' needs \"oroya\": {\"rootMotion\"}", i, key);
            rec.kind = key[11] == 'd' ? R_ROOT_DELTA : R_ROOT_TOTAL;
        } else if (!strcmp(key, "mixer.time"))
            rec.kind = R_MIXER_TIME;
        else if (!strcmp(key, "mixer.timeScale"))
            rec.kind = R_MIXER_TIME_SCALE;
        else if (!strcmp(key, "mixer.activeActions"))
            rec.kind = R_ACTIVE_ACTIONS;
        else if (!strcmp(key, "mixer.stats"))
            rec.kind = R_STATS;
        else {
            const char *dot = strrchr(key, '.');
            if (!dot)
                return fail(p, "record[%d]: key '%s': expected <target>.<field>", i, key);
            size_t tlen = (size_t)(dot - key);
            const char *field = dot + 1;
            char target[256];
            if (tlen >= sizeof target)
                return fail(p, "record[%d]: key '%s': target too long", i, key);
            memcpy(target, key, tlen);
            target[tlen] = '\0';
            if (!strncmp(target, "action:", 7)) {
                rec.kind = R_ACTION;
                rec.slot = find_action(p, target + 7);
                if (rec.slot < 0)
                    return fail(p, "record[%d]: key '%s': unknown action/clip '%s'", i, key,
                                target + 7);
                int f = -1;
                for (int k = 0; k < A_COUNT; k++)
                    if (!strcmp(field, action_field_names[k]))
                        f = k;
                if (f < 0)
                    return fail(p, "record[%d]: key '%s': unknown action field '%s'", i, key,
                                field);
                rec.field = (action_field)f;
            } else if (!strncmp(target, "skin:", 5)) {
                rec.skin = find_skin(p, target + 5);
                const char *digits = target + 5;
                bool all_digits = *digits != '\0';
                for (const char *d = digits; *d; d++)
                    all_digits = all_digits && *d >= '0' && *d <= '9';
                if (rec.skin < 0 && p->model && all_digits && strlen(digits) < 10 &&
                    (uint32_t)atol(digits) < p->model->skin_count) {
                    /* glTF skin by index: its joints' bone matrices. */
                    if (strcmp(field, "boneMatrices"))
                        return fail(p, "record[%d]: key '%s': glTF skins record boneMatrices only",
                                    i, key);
                    rec.kind = R_GLTF_BONES;
                    rec.skin = (int)atol(digits);
                    rec.scratch = sc_calloc(p, (size_t)p->model->skins[rec.skin].joint_count * 16 + 1,
                                         sizeof(float));
                    if (!rec.scratch)
                        return fail(p, "out of memory");
                    p->records[p->record_count++] = rec;
                    continue;
                }
                if (rec.skin < 0)
                    return fail(p, "record[%d]: key '%s': unknown skin '%s'", i, key, target + 5);
                if (!strcmp(field, "boneMatrices"))
                    rec.kind = R_SKIN_BONES;
                else if (!strcmp(field, "vertices"))
                    rec.kind = R_SKIN_VERTICES;
                else
                    return fail(p, "record[%d]: key '%s': unknown skin field '%s'", i, key, field);
            } else {
                rec.node = find_node(p, target);
                if (rec.node < 0)
                    return fail(p, "record[%d]: key '%s': unknown node '%s'", i, key, target);
                if (!strcmp(field, "position") || !strcmp(field, "translation"))
                    rec.kind = R_POSITION;
                else if (!strcmp(field, "quaternion") || !strcmp(field, "rotation"))
                    rec.kind = R_QUATERNION;
                else if (!strcmp(field, "scale"))
                    rec.kind = R_SCALE;
                else if (!strcmp(field, "matrix"))
                    rec.kind = R_MATRIX;
                else if (!strcmp(field, "matrixWorld"))
                    rec.kind = R_MATRIX_WORLD;
                else if (!strcmp(field, "weights")) {
                    uint32_t count = 0;
                    if (!p->nodes[rec.node].gltf ||
                        !oroya_scene_weights(p->scene, p->nodes[rec.node].node, &count) ||
                        count == 0)
                        return fail(p, "record[%d]: key '%s': not a glTF node with morph targets",
                                    i, key);
                    rec.kind = R_WEIGHTS;
                } else {
                    int typed = typed_record_kind(p, i, key, field, p->nodes[rec.node].node,
                                                  &rec.kind);
                    if (typed < 0)
                        return -1;
                    if (typed > 0)
                        return fail(p, "record[%d]: key '%s': unknown node field '%s'", i, key,
                                    field);
                }
            }
        }
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

static void put_bool(play_buf *b, bool v) {
    play_buf_put(b, v ? "true" : "false");
}

/* A typed property's value: a number, [r, g, b] or a boolean. */
static void record_typed(play *p, rec_kind kind, oroya_node node, play_buf *b) {
    oroya_light l = {0};
    oroya_camera c = {0};
    float rgba[4] = {0, 0, 0, 0};
    bool visible = false;
    switch (kind) {
    case R_INTENSITY:
        oroya_scene_get_light(p->scene, node, &l);
        play_buf_number(b, (double)l.intensity);
        return;
    case R_FOV:
        oroya_scene_get_camera(p->scene, node, &c);
        play_buf_number(b, (double)c.fov_y);
        return;
    case R_COLOR:
        oroya_scene_get_mesh_color(p->scene, node, rgba);
        put_floats(b, rgba, 3);
        return;
    default:
        oroya_scene_get_visible(p->scene, node, &visible);
        put_bool(b, visible);
        return;
    }
}

static void record_value(play *p, const play_record *r, play_buf *b) {
    switch (r->kind) {
    case R_ROOT_DELTA:
    case R_ROOT_TOTAL: {
        oroya_root_motion rm = r->kind == R_ROOT_DELTA ? oroya_mixer_root_delta(p->mixer)
                                                       : oroya_mixer_root_total(p->mixer);
        const float v[7] = {rm.translation.x, rm.translation.y, rm.translation.z, rm.rotation.x,
                            rm.rotation.y,    rm.rotation.z,    rm.rotation.w};
        put_floats(b, v, 7);
        return;
    }
    case R_CURVE:
        play_buf_number(b, oroya_mixer_curve_value(p->mixer, (uint32_t)r->slot));
        return;
    case R_MIXER_TIME:
        play_buf_number(b, oroya_mixer_time(p->mixer));
        return;
    case R_MIXER_TIME_SCALE:
        play_buf_number(b, oroya_mixer_time_scale(p->mixer));
        return;
    case R_ACTIVE_ACTIONS: {
        play_buf_put(b, "[");
        uint32_t n = oroya_mixer_active_action_count(p->mixer);
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                play_buf_put(b, ",");
            const char *name = action_name(p, oroya_mixer_active_action(p->mixer, i));
            if (name)
                play_buf_string(b, name);
            else
                play_buf_put(b, "null");
        }
        play_buf_put(b, "]");
        return;
    }
    case R_STATS: {
        oroya_mixer_stats s = oroya_mixer_get_stats(p->mixer);
        char tmp[128];
        snprintf(tmp, sizeof tmp, "{\"actions\":%u,\"bindings\":%u,\"controlInterpolants\":%u}",
                 s.actions, s.bindings, s.control_interpolants);
        play_buf_put(b, tmp);
        return;
    }
    case R_ACTION: {
        const oroya_action *a = p->actions[r->slot].action;
        if (!a) {
            play_buf_put(b, "null");
            return;
        }
        switch (r->field) {
        case A_EFFECTIVE_WEIGHT:
            play_buf_number(b, oroya_action_effective_weight(a));
            return;
        case A_WEIGHT:
            play_buf_number(b, oroya_action_weight(a));
            return;
        case A_TIME:
            play_buf_number(b, oroya_action_time(a));
            return;
        case A_EFFECTIVE_TIME_SCALE:
            play_buf_number(b, oroya_action_effective_time_scale(a));
            return;
        case A_TIME_SCALE:
            play_buf_number(b, oroya_action_time_scale(a));
            return;
        case A_ENABLED:
            put_bool(b, oroya_action_enabled(a));
            return;
        case A_PAUSED:
            put_bool(b, oroya_action_paused(a));
            return;
        case A_RUNNING:
            put_bool(b, oroya_action_is_running(a));
            return;
        case A_SCHEDULED:
            put_bool(b, oroya_action_is_scheduled(a));
            return;
        case A_LOOP_COUNT:
            play_buf_number(b, (double)oroya_action_loop_count(a));
            return;
        case A_REPETITIONS:
            play_buf_number(b, oroya_action_repetitions(a));
            return;
        case A_FADING:
            put_bool(b, oroya_action_is_fading(a));
            return;
        case A_WARPING:
            put_bool(b, oroya_action_is_warping(a));
            return;
        default:
            play_buf_put(b, "null");
            return;
        }
    }
    case R_GLTF_BONES: {
        uint32_t n = p->model->skins[r->skin].joint_count;
        if (oroya_gltf_model_bone_matrices(p->model, (uint32_t)r->skin, r->scratch) != OROYA_OK) {
            play_buf_put(b, "null");
            return;
        }
        put_floats(b, r->scratch, (int)(16 * n));
        return;
    }
    case R_WEIGHTS: {
        uint32_t count = 0;
        const float *w = oroya_scene_weights(p->scene, p->nodes[r->node].node, &count);
        if (w)
            put_floats(b, w, (int)count);
        else
            play_buf_put(b, "null");
        return;
    }
    case R_SKIN_BONES: {
        const oroya_skeleton *sk = p->skins[r->skin].skeleton;
        put_floats(b, sk->bone_matrices, (int)(16 * sk->bone_count));
        return;
    }
    case R_SKIN_VERTICES: {
        play_skin *ps = &p->skins[r->skin];
        if (oroya_skin_compute(ps->skin, ps->vertices, NULL, NULL, NULL) != OROYA_OK) {
            play_buf_put(b, "null");
            return;
        }
        put_floats(b, ps->vertices, (int)(3 * ps->skin->vertex_count));
        return;
    }
    default:
        break;
    }
    oroya_node node = p->nodes[r->node].node;
    oroya_transform t = {0};
    oroya_mat4 m = {0};
    switch (r->kind) {
    case R_POSITION:
        oroya_scene_get_transform(p->scene, node, &t);
        put_floats(b, &t.translation.x, 3);
        return;
    case R_QUATERNION:
        oroya_scene_get_transform(p->scene, node, &t);
        put_floats(b, &t.rotation.x, 4);
        return;
    case R_SCALE:
        oroya_scene_get_transform(p->scene, node, &t);
        put_floats(b, &t.scale.x, 3);
        return;
    case R_MATRIX:
        oroya_scene_get_local(p->scene, node, &m);
        put_floats(b, m.m, 16);
        return;
    case R_MATRIX_WORLD:
        oroya_scene_get_world(p->scene, node, &m);
        put_floats(b, m.m, 16);
        return;
    case R_INTENSITY:
    case R_FOV:
    case R_COLOR:
    case R_VISIBLE:
        record_typed(p, r->kind, node, b);
        return;
    default:
        play_buf_put(b, "null");
        return;
    }
}

static void on_event(const oroya_event *e, void *user) {
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
    p->events[p->event_count++] = (play_event){e->type, e->action, e->direction, e->loop_delta,
                                                e->marker};
}

static void put_clips(play *p, play_buf *b) {
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
            put_floats(b, t->values, (int)oroya_track_value_count(t));
            play_buf_put(b, "}");
        }
        play_buf_put(b, "]}");
    }
    play_buf_put(b, "}");
}

/* ---- run -------------------------------------------------------------------------------- */

/* ---- oroya's scenario extension ------------------------------------------------------------ */

/* The top-level key "oroya" (docs/scenario.md: unknown top-level keys are ignored, so three's
 * reference runner runs the same file without it) switches on the mixer's own options:
 *   "oroya": {"rotationBlend": "slerp" | "sterp",
 *             "twistAxes":   {"<node>": [x, y, z] | null, ...},
 *             "jointLimits": {"<node>": {"twistAxis": [x, y, z], "reference": [x, y, z, w],
 *                             "cone": angle | "ellipse": [a, b], "swingAxis": [x, y, z],
 *                             "twist": [min, max]}, ...}}
 * Angles in radians. Absent keys leave the defaults (three.js behaviour). */
static int setup_joint_limit(play *p, const cJSON *l, const char *path, oroya_joint_limit *out) {
    if (!cJSON_IsObject(l))
        return fail(p, "%s: expected an object", path);
    double v[4];
    char sub[400];
    *out = (oroya_joint_limit){0};
    const cJSON *x;
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "twistAxis"))) {
        snprintf(sub, sizeof sub, "%s.twistAxis", path);
        if (get_vec(p, x, 3, sub, v))
            return -1;
        out->twist_axis = (oroya_vec3){(float)v[0], (float)v[1], (float)v[2]};
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "reference"))) {
        snprintf(sub, sizeof sub, "%s.reference", path);
        if (get_vec(p, x, 4, sub, v))
            return -1;
        out->reference = (oroya_quat){(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "swingAxis"))) {
        snprintf(sub, sizeof sub, "%s.swingAxis", path);
        if (get_vec(p, x, 3, sub, v))
            return -1;
        out->swing_axis = (oroya_vec3){(float)v[0], (float)v[1], (float)v[2]};
    }
    if (cJSON_GetObjectItemCaseSensitive(l, "cone")) {
        if (get_number(p, l, "cone", path, v))
            return -1;
        out->swing = OROYA_SWING_CONE;
        out->swing_max[0] = (float)v[0];
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "ellipse"))) {
        if (out->swing != OROYA_SWING_FREE)
            return fail(p, "%s: \"cone\" and \"ellipse\" exclude each other", path);
        snprintf(sub, sizeof sub, "%s.ellipse", path);
        if (get_vec(p, x, 2, sub, v))
            return -1;
        out->swing = OROYA_SWING_ELLIPSE;
        out->swing_max[0] = (float)v[0];
        out->swing_max[1] = (float)v[1];
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "twist"))) {
        snprintf(sub, sizeof sub, "%s.twist", path);
        if (get_vec(p, x, 2, sub, v))
            return -1;
        out->has_twist_limit = true;
        out->twist_min = (float)v[0];
        out->twist_max = (float)v[1];
    }
    return 0;
}

/* ---- oroya's scenario extension: inverse kinematics ------------------------------------------
 *   "oroya": {"ik": [{"name": "footL", "type": "twoBone", "joints": [hip, knee, ankle],
 *                     "target": [x, y, z], "pole": [x, y, z], "weight": 1, "soft": 0.1,
 *                     "targetRotation": [x, y, z, w], "midAxis": [x, y, z]},
 *                    {"name": "head", "type": "aim", "joints": ["neck", "head"],
 *                     "weights": [0.4, 0.6], "forward": [0, 0, 1], "up": [0, 1, 0],
 *                     "upAxis": [0, 1, 0], "offset": [x, y, z], "target": [x, y, z]}]}
 * plus "limits": [a jointLimits object or null per joint]. Targets, poles and up are world
 * coordinates; the IKs run in order after each update (oroya_ik_scene_apply). The op
 * {"do": "setIk", "name": ..., <any of target, pole, weight, soft, targetRotation, midAxis,
 * forward, up, upAxis, offset>} changes them. */
static int ik_vec3(play *p, const cJSON *o, const char *key, const char *path, oroya_vec3 *out) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!x)
        return 0;
    char sub[400];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    double v[3];
    if (get_vec(p, x, 3, sub, v))
        return -1;
    *out = (oroya_vec3){(float)v[0], (float)v[1], (float)v[2]};
    return 0;
}

/* The fields setIk may change, on setup and in the op (already checked at parse time). */
static int ik_fields(play *p, const cJSON *o, const char *path, oroya_ik *ik) {
    if (ik_vec3(p, o, "target", path, &ik->target) || ik_vec3(p, o, "pole", path, &ik->pole) ||
        ik_vec3(p, o, "midAxis", path, &ik->mid_axis) ||
        ik_vec3(p, o, "forward", path, &ik->forward) || ik_vec3(p, o, "up", path, &ik->up) ||
        ik_vec3(p, o, "upAxis", path, &ik->up_axis) || ik_vec3(p, o, "offset", path, &ik->offset))
        return -1;
    double w = ik->weight, soft = ik->soft;
    if (get_number_opt(p, o, "weight", path, &w) || get_number_opt(p, o, "soft", path, &soft))
        return -1;
    if (w < 0 || w > 1)
        return fail(p, "%s.weight: expected a number in [0, 1]", path);
    if (soft < 0 || soft >= 1)
        return fail(p, "%s.soft: expected a number in [0, 1)", path);
    ik->weight = (float)w;
    ik->soft = (float)soft;
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "targetRotation");
    if (x && !cJSON_IsNull(x)) {
        char sub[400];
        snprintf(sub, sizeof sub, "%s.targetRotation", path);
        double q[4];
        if (get_vec(p, x, 4, sub, q))
            return -1;
        ik->has_target_rotation = true;
        ik->target_rotation = (oroya_quat){(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    } else if (x) {
        ik->has_target_rotation = false;
    }
    return 0;
}

static int setup_one_ik(play *p, const cJSON *o, const char *path, int index) {
    if (!cJSON_IsObject(o))
        return fail(p, "%s: expected an object", path);
    oroya_ik *ik = &p->iks[index];
    oroya_joint_limit *limits = &p->ik_limits[index * OROYA_IK_MAX_CHAIN];
    const char *name = get_string(o, "name");
    if (!name || !name[0])
        return fail(p, "%s.name: required", path);
    for (int i = 0; i < index; i++)
        if (!strcmp(p->iks[i].name, name))
            return fail(p, "%s.name: '%s' is used twice", path, name);
    const char *type = get_string(o, "type");
    *ik = (oroya_ik){.name = name, .weight = 1};
    if (type && !strcmp(type, "twoBone"))
        ik->type = OROYA_IK_TWO_BONE;
    else if (type && !strcmp(type, "aim"))
        ik->type = OROYA_IK_AIM;
    else
        return fail(p, "%s.type: expected \"twoBone\" or \"aim\"", path);
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(o, "joints");
    int n = cJSON_IsArray(joints) ? cJSON_GetArraySize(joints) : -1;
    if (ik->type == OROYA_IK_TWO_BONE ? n != 3 : (n < 1 || n > OROYA_IK_MAX_CHAIN))
        return fail(p, "%s.joints: expected %s node names", path,
                    ik->type == OROYA_IK_TWO_BONE ? "3" : "1 to 8");
    ik->joint_count = (uint32_t)n;
    for (int k = 0; k < n; k++) {
        const cJSON *j = cJSON_GetArrayItem(joints, k);
        int node = cJSON_IsString(j) ? find_node(p, j->valuestring) : -1;
        uint32_t dense = node >= 0 ? oroya_scene_node_index(p->scene, p->nodes[node].node)
                                   : OROYA_SCENE_NO_INDEX;
        if (dense == OROYA_SCENE_NO_INDEX)
            return fail(p, "%s.joints[%d]: unknown node", path, k);
        ik->joints[k] = dense;
    }
    if (ik->type == OROYA_IK_AIM) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "weights");
        if (w || n > 1) {
            char sub[400];
            snprintf(sub, sizeof sub, "%s.weights", path);
            double v[OROYA_IK_MAX_CHAIN];
            if (get_vec(p, w, n, sub, v))
                return -1;
            for (int k = 0; k < n; k++)
                ik->shares[k] = (float)v[k];
        }
    }
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(o, "limits");
    if (lim) {
        if (!cJSON_IsArray(lim) || cJSON_GetArraySize(lim) != n)
            return fail(p, "%s.limits: expected one limit (or null) per joint", path);
        for (int k = 0; k < n; k++) {
            const cJSON *l = cJSON_GetArrayItem(lim, k);
            char sub[400];
            snprintf(sub, sizeof sub, "%s.limits[%d]", path, k);
            if (!cJSON_IsNull(l) && setup_joint_limit(p, l, sub, &limits[k]))
                return -1;
        }
        ik->limits = limits;
    }
    return ik_fields(p, o, path, ik);
}

/* The IKs' current fields (setIk changes them) on the kernel joints of the mixer's rig. */
static void sync_mixer_ik(play *p) {
    for (int i = 0; i < p->ik_count; i++) {
        uint32_t joints[OROYA_IK_MAX_CHAIN];
        memcpy(joints, p->kiks[i].joints, sizeof joints);
        p->kiks[i] = p->iks[i];
        memcpy(p->kiks[i].joints, joints, sizeof joints);
    }
}

/* With a rig (the whole scene), the IKs run inside the mixer's kernel pass, so its bone
 * matrices and the joints it writes back carry them. */
static int setup_mixer_ik(play *p) {
    const oroya_rig *rig = oroya_mixer_rig(p->mixer);
    if (!rig || !p->ik_count)
        return 0;
    p->kiks = sc_calloc(p, (size_t)p->ik_count, sizeof *p->kiks);
    if (!p->kiks)
        return fail(p, "out of memory");
    const uint32_t kernel = oroya_rig_kernel_joint_count(rig);
    for (int i = 0; i < p->ik_count; i++) {
        p->kiks[i] = p->iks[i];
        const uint32_t n = p->iks[i].joint_count ? p->iks[i].joint_count : 3;
        for (uint32_t k = 0; k < n && k < OROYA_IK_MAX_CHAIN; k++) {
            uint32_t found = UINT32_MAX;
            for (uint32_t j = 0; j < kernel && found == UINT32_MAX; j++)
                if (oroya_scene_node_index(p->scene, oroya_rig_kernel_node(rig, j)) ==
                    p->iks[i].joints[k])
                    found = j;
            if (found == UINT32_MAX)
                return fail(p, "oroya.ik[%d].joints[%u]: not a joint of the rig", i, k);
            p->kiks[i].joints[k] = found;
        }
    }
    oroya_error err = {0};
    if (oroya_mixer_set_ik(p->mixer, p->kiks, (uint32_t)p->ik_count, &err) != OROYA_OK)
        return fail(p, "oroya.ik: %s", err.message);
    return 0;
}

static int setup_ik(play *p, const cJSON *list) {
    if (!list)
        return 0;
    if (!cJSON_IsArray(list))
        return fail(p, "oroya.ik: expected an array");
    int n = cJSON_GetArraySize(list);
    p->iks = sc_calloc(p, (size_t)n + 1, sizeof *p->iks);
    p->ik_limits = sc_calloc(p, ((size_t)n + 1) * OROYA_IK_MAX_CHAIN, sizeof *p->ik_limits);
    if (!p->iks || !p->ik_limits)
        return fail(p, "out of memory");
    for (int i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "oroya.ik[%d]", i);
        if (setup_one_ik(p, cJSON_GetArrayItem(list, i), path, i))
            return -1;
    }
    /* Checked against the pose before the first update (the scenario's initial nodes). */
    oroya_scene_update_world(p->scene);
    oroya_error err = {0};
    if (oroya_ik_scene_validate(p->scene, p->iks, (uint32_t)n, &err) != OROYA_OK)
        return fail(p, "oroya.ik: %s", err.message);
    p->ik_count = n;
    return setup_mixer_ik(p);
}

static int parse_set_ik(play *p, const cJSON *o, const char *path, int *out) {
    const char *name = get_string(o, "name");
    *out = -1;
    for (int i = 0; name && i < p->ik_count; i++)
        if (!strcmp(p->iks[i].name, name))
            *out = i;
    if (*out < 0)
        return fail(p, "%s.name: no IK named '%s' in \"oroya\": {\"ik\"}", path,
                    name ? name : "(missing)");
    oroya_ik copy = p->iks[*out];
    return ik_fields(p, o, path, &copy);
}

static int setup_oroya_extension(play *p) {
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p->root, "oroya");
    if (!ext)
        return 0;
    if (!cJSON_IsObject(ext))
        return fail(p, "oroya: expected an object");
    const cJSON *blend = cJSON_GetObjectItemCaseSensitive(ext, "rotationBlend");
    if (blend) {
        const char *b = cJSON_IsString(blend) ? blend->valuestring : "";
        oroya_rotation_blend mode;
        if (!strcmp(b, "slerp"))
            mode = OROYA_ROTATION_BLEND_SLERP;
        else if (!strcmp(b, "sterp"))
            mode = OROYA_ROTATION_BLEND_STERP;
        else
            return fail(p, "oroya.rotationBlend: expected \"slerp\" or \"sterp\"");
        oroya_mixer_set_rotation_blend(p->mixer, mode);
    }
    const cJSON *axes = cJSON_GetObjectItemCaseSensitive(ext, "twistAxes");
    if (axes && !cJSON_IsObject(axes))
        return fail(p, "oroya.twistAxes: expected an object");
    const cJSON *item;
    char path[320];
    cJSON_ArrayForEach(item, axes) {
        snprintf(path, sizeof path, "oroya.twistAxes.%s", item->string);
        int n = find_node(p, item->string);
        if (n < 0)
            return fail(p, "%s: unknown node", path);
        double v[3] = {0, 0, 0};
        if (!cJSON_IsNull(item) && get_vec(p, item, 3, path, v))
            return -1;
        oroya_vec3 axis = {(float)v[0], (float)v[1], (float)v[2]};
        if (oroya_mixer_set_twist_axis(p->mixer, p->nodes[n].node,
                                       cJSON_IsNull(item) ? NULL : &axis) != OROYA_OK)
            return fail(p, "%s: rejected by the mixer", path);
    }
    if (setup_ik(p, cJSON_GetObjectItemCaseSensitive(ext, "ik")))
        return -1;
    const cJSON *limits = cJSON_GetObjectItemCaseSensitive(ext, "jointLimits");
    if (limits && !cJSON_IsObject(limits))
        return fail(p, "oroya.jointLimits: expected an object");
    cJSON_ArrayForEach(item, limits) {
        snprintf(path, sizeof path, "oroya.jointLimits.%s", item->string);
        int n = find_node(p, item->string);
        if (n < 0)
            return fail(p, "%s: unknown node", path);
        oroya_joint_limit limit;
        if (setup_joint_limit(p, item, path, &limit))
            return -1;
        oroya_error err = {0};
        if (oroya_mixer_set_joint_limit(p->mixer, p->nodes[n].node, &limit, &err) != OROYA_OK)
            return fail(p, "%s: %s", path, err.message);
    }
    return 0;
}


/* "oroya": {"markers": {"<clip>": [{"time": seconds, "name": string}, ...], ...}}: the
 * clip's markers (oroya_clip_set_markers), set before actions clone their clips. */
static int setup_oroya_markers(play *p) {
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p->root, "oroya");
    const cJSON *all = cJSON_IsObject(ext) ? cJSON_GetObjectItemCaseSensitive(ext, "markers") : NULL;
    if (!all)
        return 0;
    if (!cJSON_IsObject(all))
        return fail(p, "oroya.markers: expected an object of clip names");
    const cJSON *list;
    cJSON_ArrayForEach(list, all) {
        char path[320];
        snprintf(path, sizeof path, "oroya.markers.%s", list->string);
        int c = find_clip(p, list->string);
        if (c < 0)
            return fail(p, "%s: unknown clip", path);
        if (!cJSON_IsArray(list))
            return fail(p, "%s: expected an array of {\"time\", \"name\"}", path);
        int n = cJSON_GetArraySize(list);
        oroya_marker *marks = n ? sc_malloc(p, (size_t)n * sizeof *marks) : NULL;
        if (n && !marks)
            return fail(p, "out of memory");
        int i = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, list) {
            char sub[400];
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
            const char *name = cJSON_IsObject(m) ? get_string(m, "name") : NULL;
            double t = 0;
            if (!name) {
                sc_free(p, marks);
                return fail(p, "%s.name: expected a string", sub);
            }
            if (get_number(p, m, "time", sub, &t)) {
                sc_free(p, marks);
                return -1;
            }
            marks[i++] = (oroya_marker){t, name};
        }
        oroya_error err = {0};
        oroya_result r = oroya_clip_set_markers(p->clips[c].clip, marks, (uint32_t)n, &err);
        sc_free(p, marks);
        if (r == OROYA_ERR_OUT_OF_MEMORY)
            return fail(p, "out of memory");
        if (r != OROYA_OK)
            return fail(p, "%s: %s", path, err.message);
    }
    return 0;
}

/* A name list of a mask: an array of node names. */
static int mask_names_of(play *p, const cJSON *mask, const char *key, const char *path,
                         const char ***out, uint32_t *count) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(mask, key);
    *out = NULL;
    *count = 0;
    if (!v)
        return 0;
    if (!cJSON_IsArray(v))
        return fail(p, "%s.%s: expected an array of joint names", path, key);
    int n = cJSON_GetArraySize(v);
    if (!n)
        return 0;
    *out = sc_malloc(p, (size_t)n * sizeof **out);
    if (!*out)
        return fail(p, "out of memory");
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v) {
        if (!cJSON_IsString(it)) {
            sc_free(p, (void *)*out);
            *out = NULL;
            return fail(p, "%s.%s[%d]: expected a joint name", path, key, i);
        }
        (*out)[i++] = it->valuestring;
    }
    *count = (uint32_t)n;
    return 0;
}

/* "oroya": {"masks": {"<name>": {"include": [...], "descendants": bool, "exclude": [...],
 * "weights": {"<joint>": w}}}}: oroya_mixer_create_mask for each, in order. */
static int setup_oroya_masks(play *p) {
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p->root, "oroya");
    const cJSON *all = cJSON_IsObject(ext) ? cJSON_GetObjectItemCaseSensitive(ext, "masks") : NULL;
    if (!all)
        return 0;
    if (!cJSON_IsObject(all))
        return fail(p, "oroya.masks: expected an object of masks");
    int n = cJSON_GetArraySize(all);
    if (!n)
        return 0;
    p->masks = sc_malloc(p, (size_t)n * sizeof *p->masks);
    p->mask_names = sc_malloc(p, (size_t)n * sizeof *p->mask_names);
    if (!p->masks || !p->mask_names)
        return fail(p, "out of memory");
    const cJSON *m;
    cJSON_ArrayForEach(m, all) {
        char path[320];
        snprintf(path, sizeof path, "oroya.masks.%s", m->string);
        if (!cJSON_IsObject(m))
            return fail(p, "%s: expected an object", path);
        oroya_mask_desc d = {.name = m->string};
        const cJSON *desc = cJSON_GetObjectItemCaseSensitive(m, "descendants");
        if (desc && !cJSON_IsBool(desc))
            return fail(p, "%s.descendants: expected true or false", path);
        d.descendants = cJSON_IsTrue(desc);
        const char **inc = NULL, **exc = NULL;
        oroya_mask_entry *w = NULL;
        int rc = mask_names_of(p, m, "include", path, &inc, &d.include_count);
        if (!rc)
            rc = mask_names_of(p, m, "exclude", path, &exc, &d.exclude_count);
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(m, "weights");
        if (!rc && ws && !cJSON_IsObject(ws))
            rc = fail(p, "%s.weights: expected an object of joint weights", path);
        int wn = ws ? cJSON_GetArraySize(ws) : 0;
        if (!rc && wn && !(w = sc_malloc(p, (size_t)wn * sizeof *w)))
            rc = fail(p, "out of memory");
        const cJSON *it;
        if (!rc && wn) {
            cJSON_ArrayForEach(it, ws) {
                if (!cJSON_IsNumber(it)) {
                    rc = fail(p, "%s.weights.%s: expected a number", path, it->string);
                    break;
                }
                w[d.weight_count++] = (oroya_mask_entry){it->string, it->valuedouble};
            }
        }
        d.include = inc;
        d.exclude = exc;
        d.weights = w;
        oroya_error err = {0};
        oroya_result r = OROYA_OK;
        if (!rc)
            r = oroya_mixer_create_mask(p->mixer, &d, &p->masks[p->mask_count], &err);
        sc_free(p, (void *)inc);
        sc_free(p, (void *)exc);
        sc_free(p, w);
        if (rc)
            return rc;
        if (r == OROYA_ERR_OUT_OF_MEMORY)
            return fail(p, "out of memory");
        if (r != OROYA_OK)
            return fail(p, "%s: %s", path, err.message);
        p->mask_names[p->mask_count++] = m->string;
    }
    return 0;
}

/* ---- the script's schedule -------------------------------------------------------------
 * Ops run at the first step where they are due (step >= op.step, or clock >= op.at - EPS_AT),
 * those due together in script order. The "at" ops sorted by time and the "step" ops by
 * step are two queues whose due ops are a prefix, so each step looks only at what it runs:
 * O(ops log ops) for the whole run instead of O(steps x ops). */

typedef struct op_key {
    double key;
    int index;
} op_key;

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

typedef struct op_queue {
    op_key *by_time, *by_step;
    int time_count, step_count, time_next, step_next;
    int *batch;
} op_queue;

static void op_queue_free(play *p, op_queue *q) {
    sc_free(p, q->by_time);
    sc_free(p, q->by_step);
    sc_free(p, q->batch);
}

static int op_queue_init(play *p, op_queue *q) {
    size_t n = (size_t)p->op_count + 1;
    q->by_time = sc_calloc(p, n, sizeof *q->by_time);
    q->by_step = sc_calloc(p, n, sizeof *q->by_step);
    q->batch = sc_calloc(p, n, sizeof *q->batch);
    if (!q->by_time || !q->by_step || !q->batch) {
        op_queue_free(p, q);
        return fail(p, "out of memory");
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

static int run_due_ops(play *p, op_queue *q, size_t step, double clock) {
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

/* "oroya": {"rootMotion": {"node": "<name>", "extract": "xz" | "xz_yaw" | "y" | "full"}}. */
static int setup_oroya_root_motion(play *p) {
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p->root, "oroya");
    const cJSON *rm = cJSON_IsObject(ext) ? cJSON_GetObjectItemCaseSensitive(ext, "rootMotion") : NULL;
    if (!rm)
        return 0;
    if (!cJSON_IsObject(rm))
        return fail(p, "oroya.rootMotion: expected {\"node\", \"extract\"}");
    const char *node = get_string(rm, "node");
    int n = find_node(p, node);
    if (n < 0)
        return fail(p, "oroya.rootMotion.node: unknown node '%s'", node ? node : "(missing)");
    const char *e = get_string(rm, "extract");
    static const char *const modes[] = {"xz", "xz_yaw", "y", "full"};
    int mode = -1;
    for (int i = 0; e && i < 4; i++)
        if (!strcmp(e, modes[i]))
            mode = i;
    if (mode < 0)
        return fail(p, "oroya.rootMotion.extract: unknown extract mode '%s' (xz, xz_yaw, y or full)",
                    e ? e : "(missing)");
    oroya_error err = {0};
    if (oroya_mixer_set_root_motion(p->mixer, p->nodes[n].node, (oroya_root_extract)(mode + 1),
                                    &err) != OROYA_OK)
        return fail(p, "oroya.rootMotion: %s", err.message);
    p->root_motion = true;
    return 0;
}

static int run(play *p, play_buf *out) {
    const cJSON *gltf = cJSON_GetObjectItemCaseSensitive(p->root, "gltf");
    if (gltf && !cJSON_IsNull(gltf)) {
        /* The model's scene becomes the scenario's scene; scenario nodes join it. */
        if (!cJSON_IsString(gltf) || !gltf->valuestring[0])
            return fail(p, "gltf: expected a path");
        const char *rel = gltf->valuestring;
        const char *base = p->desc->base_dir ? p->desc->base_dir : ".";
        size_t len = strlen(base) + strlen(rel) + 2;
        char *path = sc_malloc(p, len);
        if (!path)
            return fail(p, "out of memory");
        if (rel[0] == '/')
            snprintf(path, len, "%s", rel);
        else
            snprintf(path, len, "%s/%s", base, rel);
        oroya_error err = {0};
        oroya_result r =
            oroya_gltf_load(path,
                            &(oroya_gltf_import_desc){.allocator = *p->alloc,
                                                      .skip_images = true,
                                                      .allow_outside_base_dir =
                                                          p->desc->allow_outside_base_dir},
                            &p->model, &err);
        sc_free(p, path);
        if (r != OROYA_OK)
            return fail(p, "gltf: %s", err.message[0] ? err.message : oroya_result_string(r));
        p->scene = p->model->scene;
    } else if (oroya_scene_create(&(oroya_scene_desc){.allocator = *p->alloc}, &p->scene) != OROYA_OK) {
        return fail(p, "cannot create the scene");
    }
    if (setup_nodes(p))
        return -1;
    if (setup_skins(p))
        return -1;
    if (setup_clips(p) || check_scenario_curves(p) || setup_oroya_markers(p) || setup_actions(p))
        return -1;
    oroya_mixer_desc md = {
        .max_actions = 4096,
        .max_bindings = 16384,
        .on_event = on_event,
        .user = p,
        .allocator = *p->alloc};
    /* The whole scene as the rig (runtime clips are built per action, after the setup's
     * makeClipAdditive). A scene the kernel cannot hold (more than OROYA_POSE_MAX_JOINTS
     * nodes) plays through the property path alone, with the same results. */
    if (oroya_scene_node_count(p->scene) > 0) {
        oroya_error rerr = {0};
        oroya_result rr = oroya_rig_create(
            &(oroya_rig_desc){.scene = p->scene, .name = "the scene", .allocator = *p->alloc},
            &p->rig, &rerr);
        if (rr == OROYA_ERR_OUT_OF_MEMORY)
            return fail(p, "out of memory");
        if (rr != OROYA_ERR_LIMIT && rr != OROYA_OK)
            return fail(p, "rig: %s", rerr.message);
        md.rig = p->rig;
    }
    if (oroya_mixer_create(p->scene, &md, &p->mixer) != OROYA_OK)
        return fail(p, "cannot create the mixer");
    const cJSON *mts = cJSON_GetObjectItemCaseSensitive(p->root, "mixerTimeScale");
    if (mts) {
        double s = 1;
        if (get_number(p, p->root, "mixerTimeScale", "(scenario)", &s))
            return -1;
        oroya_mixer_set_time_scale(p->mixer, s);
    }
    if (setup_oroya_extension(p) || setup_oroya_masks(p) || setup_oroya_root_motion(p))
        return -1;
    if (setup_script(p) || setup_steps(p) || setup_records(p))
        return -1;

    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p->root, "name");
    play_buf_put(out, "{\"format\":1,\"threeVersion\":\"0.187.0\",\"cubicSplineSource\":"
                      "\"GLTFLoader\",\"scenario\":");
    if (cJSON_IsString(name))
        play_buf_string(out, name->valuestring);
    else
        play_buf_put(out, "null");
    op_queue q = {0};
    if (op_queue_init(p, &q))
        return -1;
    play_buf frames = {.alloc = p->alloc};
    double clock = 0;
    for (size_t i = 0; i < p->dt_count; i++) {
        double dt = p->dts ? p->dts[i] : p->fixed_dt;
        p->event_count = 0;
        if (run_due_ops(p, &q, i, clock)) {
            op_queue_free(p, &q);
            play_buf_free(&frames);
            return -1;
        }
        if (p->kiks)
            sync_mixer_ik(p);
        oroya_result r = oroya_mixer_update(p->mixer, dt);
        if (r != OROYA_OK) {
            op_queue_free(p, &q);
            play_buf_free(&frames);
            return fail(p,
                        "steps[%zu]: dt %g rejected: a NaN, infinite or negative dt is an error in "
                        "oroya (deviation 1 from three.js)",
                        i, dt);
        }
        clock += dt;
        oroya_scene_update_world(p->scene);
        if (p->ik_count && !p->kiks)
            oroya_ik_scene_apply(p->scene, p->iks, (uint32_t)p->ik_count, NULL);
        char where[48];
        snprintf(where, sizeof where, "steps[%zu]", i);
        if (check_world(p, where)) {
            play_buf_free(&frames);
            return -1;
        }
        if (update_skins(p)) {
            op_queue_free(p, &q);
            play_buf_free(&frames);
            return -1;
        }
        if (p->events_failed) {
            op_queue_free(p, &q);
            play_buf_free(&frames);
            return fail(p, "out of memory");
        }
        if (i)
            play_buf_put(&frames, ",\n");
        char tmp[64];
        snprintf(tmp, sizeof tmp, "{\"step\":%zu,\"t\":", i);
        play_buf_put(&frames, tmp);
        play_buf_number(&frames, clock);
        play_buf_put(&frames, ",\"mixerTime\":");
        play_buf_number(&frames, oroya_mixer_time(p->mixer));
        play_buf_put(&frames, ",\"values\":{");
        for (int k = 0; k < p->record_count; k++) {
            if (k)
                play_buf_put(&frames, ",");
            play_buf_string(&frames, p->records[k].key);
            play_buf_put(&frames, ":");
            record_value(p, &p->records[k], &frames);
        }
        play_buf_put(&frames, "}");
        if (p->event_count) {
            play_buf_put(&frames, ",\"events\":[");
            for (size_t e = 0; e < p->event_count; e++) {
                const play_event *ev = &p->events[e];
                const char *an = action_name(p, ev->action);
                if (e)
                    play_buf_put(&frames, ",");
                play_buf_put(&frames, ev->type == OROYA_EVENT_FINISHED ? "{\"type\":\"finished\",\"action\":"
                                      : ev->type == OROYA_EVENT_LOOP   ? "{\"type\":\"loop\",\"action\":"
                                                                       : "{\"type\":\"marker\",\"action\":");
                if (an)
                    play_buf_string(&frames, an);
                else
                    play_buf_put(&frames, "null");
                if (ev->type == OROYA_EVENT_MARKER) {
                    play_buf_put(&frames, ",\"name\":");
                    play_buf_string(&frames, ev->marker->name);
                    play_buf_put(&frames, ",\"time\":");
                    play_buf_number(&frames, ev->marker->time);
                    snprintf(tmp, sizeof tmp, "}");
                } else if (ev->type == OROYA_EVENT_FINISHED) {
                    snprintf(tmp, sizeof tmp, ",\"direction\":%d}", ev->direction);
                } else {
                    snprintf(tmp, sizeof tmp, ",\"loopDelta\":%lld}", (long long)ev->loop_delta);
                }
                play_buf_put(&frames, tmp);
            }
            play_buf_put(&frames, "]");
        }
        play_buf_put(&frames, "}");
    }
    op_queue_free(p, &q);
    int pending = 0;
    for (int k = 0; k < p->op_count; k++)
        pending += !p->ops[k].done;
    char tmp[64];
    snprintf(tmp, sizeof tmp, ",\"unexecutedOps\":%d", pending);
    play_buf_put(out, tmp);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p->root, "dumpClips")))
        put_clips(p, out);
    play_buf_put(out, ",\"frames\":[\n");
    if (frames.data)
        play_buf_put(out, frames.data);
    play_buf_put(out, "\n]}\n");
    bool failed = frames.failed;
    play_buf_free(&frames);
    if (failed || out->failed)
        return fail(p, "out of memory");
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
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_scenario_run: %s is NULL",
                           !json ? "json" : !desc ? "desc" : !out ? "out" : "out_len");
    play p = {.desc = desc, .user_alloc = desc->allocator};
    p.watch = (oroya_allocator){watch_alloc, watch_free, &p};
    p.alloc = &p.watch;
    /* Raw NUL bytes (cJSON takes them for whitespace, or cuts a string at one) and text
     * that is not UTF-8 are not JSON (RFC 8259). */
    size_t bad = 0;
    const char *why = NULL;
    if (!oroya__json_text_check(json, len, &len, &bad, &why))
        return oroya__fail(err, OROYA_ERR_PARSE, "invalid JSON: %s at byte %zu", why, bad);
    const char *end = NULL;
    p.root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!p.root) {
        /* cJSON reports a failed allocation as a parse error too. */
        size_t at = end ? (size_t)(end - json) : 0;
        if (oroya__json_too_deep(json, at + 1 < len ? at + 1 : len, CJSON_NESTING_LIMIT))
            return oroya__fail(err, OROYA_ERR_LIMIT,
                               "invalid JSON: arrays and objects nest deeper than %d levels at "
                               "byte %zu",
                               CJSON_NESTING_LIMIT, at);
        return oroya__fail(err, OROYA_ERR_PARSE, "invalid JSON near byte %zu", at);
    }
    play_buf text = {.alloc = p.alloc};
    int rc = 0;
    if (!cJSON_IsObject(p.root))
        rc = fail(&p, "(top level): expected an object");
    else
        rc = run(&p, &text);
    oroya_result r = OROYA_OK;
    if (rc) {
        r = p.out_of_memory ? OROYA_ERR_OUT_OF_MEMORY : OROYA_ERR_INVALID_DATA;
        oroya__fail(err, r, "%s", p.error);
        play_buf_free(&text);
    } else {
        *out = text.data;
        *out_len = text.len;
    }
    cleanup(&p);
    return r;
}

void oroya_scenario_free_output(const oroya_scenario_desc *desc, char *out) {
    if (out && desc)
        oroya__free(&desc->allocator, out);
}
