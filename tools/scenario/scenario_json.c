/* What every part of the scenario runner uses: memory through the desc's allocator, the
 * error of a run, reading JSON values, and the scenario's nodes, clips and actions by name. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scenario_internal.h"

void *sc_malloc(const play *p, size_t n) { return oroya_allocator_alloc(p->alloc, n ? n : 1, 16); }

void *sc_calloc(const play *p, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t n = count * size;
    void *m = sc_malloc(p, n);
    if (m)
        memset(m, 0, n);
    return m;
}

void sc_free(const play *p, void *m) {
    if (m)
        oroya_allocator_free(p->alloc, m);
}

/* realloc for an allocator without one: the old block stays on failure. */
void *sc_realloc(const play *p, void *old, size_t old_size, size_t new_size) {
    void *m = sc_malloc(p, new_size);
    if (!m)
        return NULL;
    if (old)
        memcpy(m, old, old_size < new_size ? old_size : new_size);
    sc_free(p, old);
    return m;
}

int sc_fail(play *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);

    return -1;
}

/* World matrices are kept finite by update_world (a node that overflows sits at its
 * parent's origin); the scenario's result would then be wrong, so the run stops and names
 * the node. */
int sc_check_world(play *p, const char *where) {
    oroya_node bad;
    if (oroya_scene_non_finite_count(p->scene, &bad) == 0)
        return 0;
    const char *name = oroya_scene_node_name(p->scene, bad);
    return sc_fail(p,
                   "%s: the world matrix of node '%s' is not finite (a transform too large for "
                   "float, or an overflow along its parents)",
                   where, name ? name : "?");
}

/* Channels the glTF import ignored (an unknown target.path, or no target.node): said once. */
void sc_warn_ignored_channels(const play *p, const oroya_gltf_model *m) {
    if (!m || !m->ignored_channel_count || !p->desc->on_warning)
        return;
    char msg[OROYA_ERROR_MESSAGE_MAX + 1];
    snprintf(msg, sizeof msg,
             "gltf: animations[%u].channels[%u].target.%s; the channel is ignored and its keys "
             "do not count toward the clip's duration (%u channel%s ignored in all)",
             m->first_ignored_animation, m->first_ignored_channel,
             m->first_ignored_unknown_path
                 ? "path: not a path oroya animates (translation, rotation, scale, weights)"
                 : "node: absent",
             m->ignored_channel_count, m->ignored_channel_count == 1 ? "" : "s");
    p->desc->on_warning(msg, p->desc->user);
}

/* Animation extras (markers, curves) the glTF import dropped: said once. */
void sc_warn_ignored_extras(const play *p, const oroya_gltf_model *m) {
    if (!m || !m->ignored_extras_count || !m->first_ignored_extras || !p->desc->on_warning)
        return;
    char msg[2 * OROYA_ERROR_MESSAGE_MAX];
    snprintf(msg, sizeof msg, "gltf: %s; ignored (%u animation%s with extras ignored)",
             m->first_ignored_extras, m->ignored_extras_count,
             m->ignored_extras_count == 1 ? "" : "s");
    p->desc->on_warning(msg, p->desc->user);
}

/* Issue 11: non-unit rotation keys are normalized on load; say so once per clip. */
void sc_warn_normalized(const play *p, const char *where, const oroya_clip *clip) {
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

bool sc_is_name(const char *s) {
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

/* The "name" of an entry of nodes, skins, clips or actions: the entry is an object and the
 * name is of [A-Za-z0-9_-]+; NULL with the error otherwise. */
const char *sc_entry_name(play *p, const cJSON *o, const char *path) {
    if (!cJSON_IsObject(o)) {
        sc_fail(p, "%s: expected an object", path);
        return NULL;
    }
    const char *name = sc_get_string(o, "name");
    if (!sc_is_name(name)) {
        sc_fail(p, "%s.name: expected a name of [A-Za-z0-9_-]+", path);
        return NULL;
    }
    return name;
}

int sc_get_number(play *p, const cJSON *obj, const char *key, const char *path, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return sc_fail(p, "%s.%s: expected a finite number", path, key);
    *out = v->valuedouble;
    return 0;
}

/* Optional number: absent or null leaves *out. */
int sc_get_number_opt(play *p, const cJSON *obj, const char *key, const char *path, double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    return sc_get_number(p, obj, key, path, out);
}

int sc_get_vec(play *p, const cJSON *v, int n, const char *path, double *out) {
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return sc_fail(p, "%s: expected %d numbers", path, n);
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
            return sc_fail(p, "%s[%d]: expected a finite number", path, i);
        out[i] = x->valuedouble;
    }
    return 0;
}

const char *sc_get_string(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A top-level array of the scenario: NULL with *n = 0 when absent or null, NULL with *n = -1
 * (and the error "<key>: expected <expected>") when not an array, else the array and its size. */
const cJSON *sc_top_array(play *p, const char *key, const char *expected, int *n) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(p->root, key);
    *n = 0;
    if (!v || cJSON_IsNull(v))
        return NULL;
    if (!cJSON_IsArray(v)) {
        *n = sc_fail(p, "%s: expected %s", key, expected);
        return NULL;
    }
    *n = cJSON_GetArraySize(v);
    return v;
}

/* A member of the "oroya" key, NULL when either is absent (or "oroya" is not an object,
 * which sc_setup_oroya_extension reports). */
const cJSON *sc_oroya_member(const play *p, const char *key) {
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p->root, "oroya");
    return cJSON_IsObject(ext) ? cJSON_GetObjectItemCaseSensitive(ext, key) : NULL;
}

int sc_known_keys(play *p, const cJSON *o, const char *path, const char *const *keys, size_t n) {
    const cJSON *item;
    cJSON_ArrayForEach(item, o) {
        bool known = false;
        for (size_t k = 0; k < n && !known; k++)
            known = !strcmp(item->string, keys[k]);
        if (known)
            continue;
        char list[400] = "";
        for (size_t k = 0, at = 0; k < n && at < sizeof list; k++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", keys[k]);
        return sc_fail(p, "%s.%s: unknown field (%s has %s)", path, item->string, path, list);
    }
    return 0;
}

/* "normal" or "additive" (a clip's, an action's or a set op's blendMode), -1 otherwise. */
int sc_blend_mode_of(const cJSON *v) {
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "normal"))
        return OROYA_BLEND_NORMAL;
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "additive"))
        return OROYA_BLEND_ADDITIVE;
    return -1;
}

/* A vector member `key` of obj with n numbers into out: 1 when present, 0 when absent (out
 * untouched), -1 on error ("<path>.<key>: expected n numbers"). */
int sc_get_vec_member(play *p, const cJSON *obj, const char *key, int n, const char *path,
                      double *out) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!x)
        return 0;
    char sub[400];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    return sc_get_vec(p, x, n, sub, out) ? -1 : 1;
}

/* A node's or a setNode's "position", "rotation" (or three's name "quaternion") and "scale":
 * each one present is read into its array and flagged. */
int sc_get_trs(play *p, const cJSON *obj, const char *path, double pos[3], double rot[4],
               double scale[3], bool *has_pos, bool *has_rot, bool *has_scale) {
    const char *qkey =
        cJSON_GetObjectItemCaseSensitive(obj, "rotation") ? "rotation" : "quaternion";
    int a = sc_get_vec_member(p, obj, "position", 3, path, pos);
    int b = a < 0 ? -1 : sc_get_vec_member(p, obj, qkey, 4, path, rot);
    int c = b < 0 ? -1 : sc_get_vec_member(p, obj, "scale", 3, path, scale);
    if (c < 0)
        return -1;
    *has_pos = a > 0;
    *has_rot = b > 0;
    *has_scale = c > 0;
    return 0;
}

bool sc_grow(play *p, void **array, int *cap, int count, size_t size) {
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

char *sc_dup_string(play *p, const char *s) {
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
bool sc_node_hash_add(play *p, int index) {
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

int sc_find_scenario_node(const play *p, const char *name) {
    int i = node_hash_find(p, name);
    return i >= 0 && !p->nodes[i].gltf ? i : -1;
}

/* A scenario node, else a glTF node by its docs/scenario.md name ("node_<i>" or its glTF name). */
int sc_find_node(play *p, const char *name) {
    int found = node_hash_find(p, name);
    if (found >= 0)
        return found;
    oroya_node node;
    if (!name || !p->model || oroya_gltf_model_find_node(p->model, name, &node, NULL) != OROYA_OK)
        return -1;
    oroya_node_kind kind = OROYA_NODE_OBJECT;
    oroya_scene_node_kind(p->scene, node, &kind);
    char *copy = sc_dup_string(p, name);
    if (!copy || !sc_grow(p, (void **)&p->nodes, &p->node_cap, p->node_count, sizeof *p->nodes)) {
        sc_free(p, copy);
        return -1;
    }
    p->nodes[p->node_count] = (play_node){copy, node, kind, true};
    p->node_count++;
    if (!sc_node_hash_add(p, p->node_count - 1))
        return -1; /* the node stays listed, so cleanup frees its name */
    return p->node_count - 1;
}

int sc_find_scenario_clip(const play *p, const char *name) {
    for (int i = 0; name && i < p->clip_count; i++)
        if (!p->clips[i].gltf && !strcmp(p->clips[i].name, name))
            return i;
    return -1;
}

/* A scenario clip, else a glTF clip ("animation_<i>" or its glTF name). */
int sc_find_clip(play *p, const char *name) {
    for (int i = 0; name && i < p->clip_count; i++)
        if (!strcmp(p->clips[i].name, name))
            return i;
    oroya_clip *clip = name && p->model ? oroya_gltf_model_find_clip(p->model, name) : NULL;
    if (!clip)
        return -1;
    char *copy = sc_dup_string(p, name);
    if (!copy || !sc_grow(p, (void **)&p->clips, &p->clip_cap, p->clip_count, sizeof *p->clips)) {
        sc_free(p, copy);
        return -1;
    }
    p->clips[p->clip_count] = (play_clip){copy, clip, (double)clip->duration, NULL, true};
    sc_warn_normalized(p, "gltf", clip);
    return p->clip_count++;
}

int sc_find_declared_action(const play *p, const char *name) {
    for (int i = 0; name && i < p->action_count; i++)
        if (!strcmp(p->actions[i].name, name))
            return i;
    return -1;
}

/* A declared action, else the action named by a clip (created as a slot on first use). */
int sc_find_action(play *p, const char *name) {
    int slot = sc_find_declared_action(p, name);
    if (slot >= 0)
        return slot;
    int clip = sc_find_clip(p, name);
    if (clip < 0)
        return -1;
    if (!sc_grow(p, (void **)&p->actions, &p->action_cap, p->action_count, sizeof *p->actions))
        return -1;
    p->actions[p->action_count] = (play_action){.name = p->clips[clip].name, .clip = clip};
    return p->action_count++;
}
