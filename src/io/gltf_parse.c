/* glTF parsing: the GLB container and the JSON structure (glTF 2.0 sections 4 and 5).
 * Nothing here follows an index; oroya_gltf_validate does that. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal/gltf.h"
#include "internal/io_file.h"

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

/* Paths are built per object ("animations[2].samplers[0]"); 160 bytes hold any path this
 * parser makes, and snprintf truncates (never overflows) if a name were ever longer. */
#define PATH_MAX_ 160

void oroya_gltf_free(oroya_gltf_data *data) {
    if (!data) {
        return;
    }
    oroya__gltf *g = (oroya__gltf *)data;
    oroya_allocator a = g->allocator;
    oroya__arena_release(&a, &g->blocks);
    oroya__free(&a, g);
}

/* ---- JSON field readers ------------------------------------------------------------------ */

typedef struct parser {
    oroya__gltf *g;
    oroya_error *err;
} parser;

static oroya_result oom(parser *p, const char *path) {
    return oroya__fail(p->err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
}

static const cJSON *field(const cJSON *obj, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* A non-negative integer up to `max`. Absent: *out = def (or an error when required). */
static oroya_result read_u64(parser *p, const cJSON *obj, const char *key, const char *path,
                             bool required, uint64_t def, uint64_t max, uint64_t *out) {
    const cJSON *v = field(obj, key);
    if (!v) {
        if (required) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: required", path, key);
        }
        *out = def;
        return OROYA_OK;
    }
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    /* 2^53 is where doubles stop holding every integer; no real offset comes near it. */
    if (!(d >= 0.0 && d <= 9007199254740992.0 && d == floor(d)) || (uint64_t)d > max) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: expected an integer in [0, %llu]", path,
                           key, (unsigned long long)max);
    }
    *out = (uint64_t)d;
    return OROYA_OK;
}

static oroya_result read_u32(parser *p, const cJSON *obj, const char *key, const char *path,
                             bool required, uint32_t def, uint32_t *out) {
    uint64_t v;
    /* UINT32_MAX itself is OROYA_GLTF_NONE, so the largest index is one less. */
    oroya_result r = read_u64(p, obj, key, path, required, def, UINT32_MAX - 1u, &v);
    if (r == OROYA_OK) {
        *out = (uint32_t)v;
    }
    return r;
}

static oroya_result read_index(parser *p, const cJSON *obj, const char *key, const char *path,
                               uint32_t *out) {
    return read_u32(p, obj, key, path, false, OROYA_GLTF_NONE, out);
}

/* A byte length or offset (0 when absent and not required). */
static oroya_result read_bytes(parser *p, const cJSON *obj, const char *key, const char *path,
                               bool required, uint64_t *out) {
    return read_u64(p, obj, key, path, required, 0, OROYA_GLTF_MAX_FILE_SIZE, out);
}

/* A JSON number a float holds: finite and inside float range. */
static bool as_float(const cJSON *v, float *out) {
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 3.4e38) {
        return false;
    }
    *out = (float)v->valuedouble;
    return true;
}

/* A JSON number that is an index: a whole number in [0, 2^32 - 2]. */
static bool as_index(const cJSON *v, uint32_t *out) {
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    if (!(d >= 0.0 && d < 4294967295.0 && d == floor(d))) {
        return false;
    }
    *out = (uint32_t)d;
    return true;
}

static oroya_result read_float(parser *p, const cJSON *obj, const char *key, const char *path,
                               float def, float *out) {
    const cJSON *v = field(obj, key);
    if (!v) {
        *out = def;
        return OROYA_OK;
    }
    if (!as_float(v, out)) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: expected a finite number", path, key);
    }
    return OROYA_OK;
}

static oroya_result read_bool(parser *p, const cJSON *obj, const char *key, const char *path,
                              bool *out) {
    const cJSON *v = field(obj, key);
    if (!v) {
        *out = false;
        return OROYA_OK;
    }
    if (!cJSON_IsBool(v)) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: expected true or false", path, key);
    }
    *out = cJSON_IsTrue(v) != 0;
    return OROYA_OK;
}

static oroya_result read_string(parser *p, const cJSON *obj, const char *key, const char *path,
                                char **out) {
    const cJSON *v = field(obj, key);
    *out = NULL;
    if (!v) {
        return OROYA_OK;
    }
    if (!cJSON_IsString(v) || !v->valuestring) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: expected a string", path, key);
    }
    *out = oroya__gltf_strdup(p->g, v->valuestring, strlen(v->valuestring));
    return *out ? OROYA_OK : oom(p, path);
}

/* obj.key as an object (NULL when absent and not required); when it is there, sub receives
 * its path, "<path>.<key>", for the reads of its members. */
static oroya_result read_object(parser *p, const cJSON *obj, const char *key, const char *path,
                                bool required, const cJSON **out, char sub[PATH_MAX_]) {
    const cJSON *v = field(obj, key);
    *out = NULL;
    if (!v && !required) {
        return OROYA_OK;
    }
    oroya__gltf_path(sub, PATH_MAX_, "%s.%s", path, key);
    if (!v) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s: required", sub);
    }
    if (!cJSON_IsObject(v)) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s: expected an object", sub);
    }
    *out = v;
    return OROYA_OK;
}

/* An optional array: *arr NULL and *count 0 when absent. At the root, path is "". */
static oroya_result read_array(parser *p, const cJSON *obj, const char *key, const char *path,
                               const cJSON **arr, uint32_t *count) {
    const cJSON *v = field(obj, key);
    *arr = NULL;
    *count = 0;
    if (!v) {
        return OROYA_OK;
    }
    if (!cJSON_IsArray(v)) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s%s%s: expected an array", path,
                           path[0] ? "." : "", key);
    }
    uint32_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v) { n++; }
    *arr = v;
    *count = n;
    return OROYA_OK;
}

/* Arena room for n elements of `size` bytes; *out NULL when n is 0. */
static oroya_result alloc_elements(parser *p, uint32_t n, size_t size, const char *where,
                                   void **out) {
    *out = NULL;
    if (n == 0) {
        return OROYA_OK;
    }
    *out = oroya__gltf_alloc(p->g, n, size);
    return *out ? OROYA_OK : oom(p, where);
}

/* The optional array obj.key and arena room for its elements: *arr and *mem NULL when it is
 * absent or empty. */
static oroya_result read_list(parser *p, const cJSON *obj, const char *key, const char *path,
                              size_t size, const cJSON **arr, void **mem, uint32_t *count) {
    TRY(read_array(p, obj, key, path, arr, count));
    if (*count == 0) {
        *arr = NULL;
    }
    return alloc_elements(p, *count, size, path[0] ? path : key, mem);
}

/* What the elements of a plain array must be. */
typedef enum value_kind {
    VALUE_FLOAT,  /* a finite number in float range (also extras.curves keys: 1e39 is refused
                     here, naming the key, not later as an infinite value) */
    VALUE_INDEX,  /* a whole number in [0, 2^32 - 2] */
    VALUE_STRING, /* a string, copied into the arena */
} value_kind;

static size_t value_size(value_kind kind) {
    return kind == VALUE_STRING  ? sizeof(char *)
           : kind == VALUE_INDEX ? sizeof(uint32_t)
                                 : sizeof(float);
}

/* Every element of arr (obj.key) into out, an array of value_size(kind) slots. An element of
 * another kind is an error at "<path>.<key>[i]". */
static oroya_result read_values(parser *p, const cJSON *arr, const char *key, const char *path,
                                value_kind kind, void *out) {
    static const char *const expected[] = {"a finite number", "a non-negative integer index",
                                           "a string"};
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        bool ok = false;
        switch (kind) {
        case VALUE_FLOAT: ok = as_float(it, &((float *)out)[i]); break;
        case VALUE_INDEX: ok = as_index(it, &((uint32_t *)out)[i]); break;
        case VALUE_STRING:
            ok = cJSON_IsString(it) && it->valuestring;
            if (ok) {
                char *s = oroya__gltf_strdup(p->g, it->valuestring, strlen(it->valuestring));
                if (!s) {
                    return oom(p, path[0] ? path : key);
                }
                ((char **)out)[i] = s;
            }
            break;
        }
        if (!ok) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s%s%s[%u]: expected %s", path,
                               path[0] ? "." : "", key, i, expected[kind]);
        }
        i++;
    }
    return OROYA_OK;
}

/* The optional array obj.key of `kind` values, in arena memory: *out NULL when it is absent
 * or empty. */
static oroya_result read_value_list(parser *p, const cJSON *obj, const char *key, const char *path,
                                    value_kind kind, void **out, uint32_t *count) {
    const cJSON *arr;
    TRY(read_list(p, obj, key, path, value_size(kind), &arr, out, count));
    return read_values(p, arr, key, path, kind, *out);
}

/* Fixed-size float array (matrix, translation, factors). Absent: out untouched. */
static oroya_result read_floats_fixed(parser *p, const cJSON *obj, const char *key,
                                      const char *path, float *out, uint32_t n, bool *present) {
    const cJSON *arr;
    uint32_t count;
    TRY(read_array(p, obj, key, path, &arr, &count));
    if (present) {
        *present = arr != NULL;
    }
    if (arr && count != n) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: expected %u numbers, got %u", path, key,
                           n, count);
    }
    return read_values(p, arr, key, path, VALUE_FLOAT, out);
}

/* Variable-size float array (weights). */
static oroya_result read_floats(parser *p, const cJSON *obj, const char *key, const char *path,
                                float **out, uint32_t *count) {
    return read_value_list(p, obj, key, path, VALUE_FLOAT, (void **)out, count);
}

/* obj.key holds at most `max` entries (the array's path, "<path>.<key>", in the error):
 * OROYA_ERR_LIMIT when it holds more, before anything is allocated for it. */
static oroya_result check_entries(parser *p, const cJSON *obj, const char *key, const char *path,
                                  uint32_t max, const char *max_name) {
    const cJSON *arr;
    uint32_t n;
    TRY(read_array(p, obj, key, path, &arr, &n));
    if (n > max) {
        return oroya__fail(p->err, OROYA_ERR_LIMIT, "%s%s%s: %u entries, the limit is %u (%s)",
                           path, path[0] ? "." : "", key, n, max, max_name);
    }
    return OROYA_OK;
}

/* A list of node indices (a node's children, a skin's joints, a scene's nodes). Its entries
 * must be distinct nodes (validate), and a scene holds at most OROYA_SCENE_MAX_NODES. */
static oroya_result read_indices(parser *p, const cJSON *obj, const char *key, const char *path,
                                 uint32_t **out, uint32_t *count) {
    TRY(check_entries(p, obj, key, path, OROYA_SCENE_MAX_NODES, "OROYA_SCENE_MAX_NODES"));
    return read_value_list(p, obj, key, path, VALUE_INDEX, (void **)out, count);
}

/* Reads one array element (`v`, at `path`) into its arena slot `out`; `index` is its place. */
typedef oroya_result (*element_fn)(parser *p, const cJSON *v, const char *path, void *out,
                                   uint32_t index);

/* The optional array obj.key, each element read by fn into arena memory (*out NULL when the
 * array is absent or empty). Element paths are "<path>.<key>[i]" ("<key>[i]" at the root);
 * with `objects`, an element that is not a JSON object is an error. */
static oroya_result read_elements(parser *p, const cJSON *obj, const char *key, const char *path,
                                  bool objects, size_t elem_size, element_fn fn, void **out,
                                  uint32_t *count) {
    const cJSON *arr;
    TRY(read_list(p, obj, key, path, elem_size, &arr, out, count));
    char nested[PATH_MAX_];
    const char *prefix = key;
    if (arr && path[0]) {
        oroya__gltf_path(nested, sizeof nested, "%s.%s", path, key);
        prefix = nested;
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char at[PATH_MAX_];
        oroya__gltf_path(at, sizeof at, "%s[%u]", prefix, i);
        if (objects && !cJSON_IsObject(it)) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s: expected an object", at);
        }
        TRY(fn(p, it, at, (uint8_t *)*out + (size_t)i * elem_size, i));
        i++;
    }
    return OROYA_OK;
}

/* A top-level array of objects ("nodes", "meshes", ...). */
static oroya_result read_objects(parser *p, const cJSON *root, const char *key, size_t elem_size,
                                 element_fn fn, void **out, uint32_t *count) {
    return read_elements(p, root, key, "", true, elem_size, fn, out, count);
}

/* ---- glTF objects ---------------------------------------------------------------------- */

static oroya_result read_buffer(parser *p, const cJSON *o, const char *path, void *out,
                                uint32_t i) {
    (void)i;
    oroya_gltf_buffer *b = (oroya_gltf_buffer *)out;
    TRY(read_string(p, o, "name", path, &b->name));
    TRY(read_string(p, o, "uri", path, &b->uri));
    TRY(read_bytes(p, o, "byteLength", path, true, &b->byte_length));
    return OROYA_OK;
}

static oroya_result read_buffer_view(parser *p, const cJSON *o, const char *path, void *out,
                                     uint32_t i) {
    (void)i;
    oroya_gltf_buffer_view *v = (oroya_gltf_buffer_view *)out;
    uint64_t stride;
    TRY(read_string(p, o, "name", path, &v->name));
    TRY(read_u32(p, o, "buffer", path, true, 0, &v->buffer));
    TRY(read_bytes(p, o, "byteOffset", path, false, &v->byte_offset));
    TRY(read_bytes(p, o, "byteLength", path, true, &v->byte_length));
    TRY(read_u64(p, o, "byteStride", path, false, 0, 252, &stride));
    v->byte_stride = (uint32_t)stride;
    return OROYA_OK;
}

static oroya_gltf_type parse_type(const char *s) {
    static const char *const names[] = {"",     "SCALAR", "VEC2", "VEC3",
                                        "VEC4", "MAT2",   "MAT3", "MAT4"};
    for (int t = 1; t < 8; t++) {
        if (!strcmp(s, names[t])) {
            return (oroya_gltf_type)t;
        }
    }
    return OROYA_GLTF_TYPE_NONE;
}

static oroya_result read_component_type(parser *p, const cJSON *o, const char *path,
                                        bool indices_only, oroya_gltf_component_type *out) {
    uint32_t ct;
    TRY(read_u32(p, o, "componentType", path, true, 0, &ct));
    bool ok = indices_only ? (ct == 5121 || ct == 5123 || ct == 5125)
                           : (ct >= 5120 && ct <= 5126 && ct != 5124);
    if (!ok) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.componentType: %u is not %s", path, ct,
                           indices_only ? "5121, 5123 or 5125"
                                        : "a glTF component type (5120-5123, 5125, 5126)");
    }
    *out = (oroya_gltf_component_type)ct;
    return OROYA_OK;
}

static oroya_result read_accessor(parser *p, const cJSON *o, const char *path, void *out,
                                  uint32_t i) {
    (void)i;
    oroya_gltf_accessor *a = (oroya_gltf_accessor *)out;
    TRY(read_string(p, o, "name", path, &a->name));
    TRY(read_index(p, o, "bufferView", path, &a->buffer_view));
    TRY(read_bytes(p, o, "byteOffset", path, false, &a->byte_offset));
    TRY(read_component_type(p, o, path, false, &a->component_type));
    TRY(read_bool(p, o, "normalized", path, &a->normalized));
    uint64_t count;
    TRY(read_u64(p, o, "count", path, true, 0, UINT32_MAX - 1u, &count));
    a->count = (uint32_t)count;
    const cJSON *t = field(o, "type");
    if (!t) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.type: required", path);
    }
    a->type =
        cJSON_IsString(t) && t->valuestring ? parse_type(t->valuestring) : OROYA_GLTF_TYPE_NONE;
    if (a->type == OROYA_GLTF_TYPE_NONE) {
        return oroya__fail(p->err, OROYA_ERR_PARSE,
                           "%s.type: expected SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4", path);
    }
    char sub[PATH_MAX_];
    const cJSON *sp;
    TRY(read_object(p, o, "sparse", path, false, &sp, sub));
    if (sp) {
        oroya_gltf_sparse *s = &a->sparse;
        uint64_t n;
        TRY(read_u64(p, sp, "count", sub, true, 0, UINT32_MAX - 1u, &n));
        if (n == 0) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.count: must be at least 1", sub);
        }
        s->count = (uint32_t)n;
        char at_ind[PATH_MAX_], at_val[PATH_MAX_];
        const cJSON *ind, *val;
        TRY(read_object(p, sp, "indices", sub, true, &ind, at_ind));
        TRY(read_object(p, sp, "values", sub, true, &val, at_val));
        TRY(read_u32(p, ind, "bufferView", at_ind, true, 0, &s->indices_buffer_view));
        TRY(read_bytes(p, ind, "byteOffset", at_ind, false, &s->indices_byte_offset));
        TRY(read_component_type(p, ind, at_ind, true, &s->indices_component_type));
        TRY(read_u32(p, val, "bufferView", at_val, true, 0, &s->values_buffer_view));
        TRY(read_bytes(p, val, "byteOffset", at_val, false, &s->values_byte_offset));
    }
    return OROYA_OK;
}

static oroya_gltf_attribute_kind attribute_kind(const char *name, uint32_t *set) {
    static const struct {
        const char *prefix;
        oroya_gltf_attribute_kind kind;
        bool has_set;
    } kinds[] = {
        {"POSITION", OROYA_GLTF_ATTR_POSITION, false},
        {"NORMAL", OROYA_GLTF_ATTR_NORMAL, false},
        {"TANGENT", OROYA_GLTF_ATTR_TANGENT, false},
        {"TEXCOORD_", OROYA_GLTF_ATTR_TEXCOORD, true},
        {"COLOR_", OROYA_GLTF_ATTR_COLOR, true},
        {"JOINTS_", OROYA_GLTF_ATTR_JOINTS, true},
        {"WEIGHTS_", OROYA_GLTF_ATTR_WEIGHTS, true},
    };
    *set = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k].prefix);
        if (!kinds[k].has_set) {
            if (!strcmp(name, kinds[k].prefix)) {
                return kinds[k].kind;
            }
            continue;
        }
        if (strncmp(name, kinds[k].prefix, n) != 0) {
            continue;
        }
        /* The set index: decimal digits, no sign, no leading zeros beyond "0". */
        const char *d = name + n;
        uint32_t v = 0;
        size_t len = strlen(d);
        if (len == 0 || len > 6 || (len > 1 && d[0] == '0')) {
            return OROYA_GLTF_ATTR_OTHER;
        }
        for (size_t j = 0; j < len; j++) {
            if (d[j] < '0' || d[j] > '9') {
                return OROYA_GLTF_ATTR_OTHER;
            }
            v = v * 10u + (uint32_t)(d[j] - '0');
        }
        *set = v;
        return kinds[k].kind;
    }
    return OROYA_GLTF_ATTR_OTHER;
}

/* The members of an attributes object (a primitive's, or a morph target), each an accessor. */
static oroya_result read_attributes(parser *p, const cJSON *attrs, const char *path,
                                    oroya_gltf_attribute **out, uint32_t *count) {
    uint32_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, attrs) { n++; }
    *count = 0;
    TRY(alloc_elements(p, n, sizeof(oroya_gltf_attribute), path, (void **)out));
    uint32_t i = 0;
    cJSON_ArrayForEach(it, attrs) {
        oroya_gltf_attribute *a = &(*out)[i];
        const char *key = it->string ? it->string : "";
        if (!as_index(it, &a->accessor)) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "%s.%s: expected a non-negative integer index", path, key);
        }
        a->name = oroya__gltf_strdup(p->g, key, strlen(key));
        if (!a->name) {
            return oom(p, path);
        }
        a->kind = attribute_kind(key, &a->set);
        i++;
    }
    *count = n;
    return OROYA_OK;
}

static oroya_result read_target(parser *p, const cJSON *o, const char *path, void *out,
                                uint32_t i) {
    (void)i;
    oroya_gltf_morph_target *t = (oroya_gltf_morph_target *)out;
    return read_attributes(p, o, path, &t->attributes, &t->attribute_count);
}

static oroya_result read_primitive(parser *p, const cJSON *o, const char *path, void *out,
                                   uint32_t i) {
    (void)i;
    oroya_gltf_primitive *pr = (oroya_gltf_primitive *)out;
    char sub[PATH_MAX_];
    const cJSON *attrs;
    TRY(read_object(p, o, "attributes", path, true, &attrs, sub));
    TRY(read_attributes(p, attrs, sub, &pr->attributes, &pr->attribute_count));
    TRY(read_index(p, o, "indices", path, &pr->indices));
    TRY(read_index(p, o, "material", path, &pr->material));
    TRY(read_u32(p, o, "mode", path, false, 4, &pr->mode));
    if (pr->mode > 6) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.mode: %u is not in [0, 6]", path, pr->mode);
    }
    return read_elements(p, o, "targets", path, true, sizeof(oroya_gltf_morph_target), read_target,
                         (void **)&pr->targets, &pr->target_count);
}

static oroya_result read_mesh(parser *p, const cJSON *o, const char *path, void *out, uint32_t i) {
    (void)i;
    oroya_gltf_mesh *m = (oroya_gltf_mesh *)out;
    TRY(read_string(p, o, "name", path, &m->name));
    TRY(read_floats(p, o, "weights", path, &m->weights, &m->weight_count));
    TRY(read_elements(p, o, "primitives", path, true, sizeof(oroya_gltf_primitive), read_primitive,
                      (void **)&m->primitives, &m->primitive_count));
    if (m->primitive_count == 0) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.primitives: required, at least one", path);
    }
    return OROYA_OK;
}

static oroya_result read_node(parser *p, const cJSON *o, const char *path, void *out, uint32_t i) {
    (void)i;
    oroya_gltf_node *n = (oroya_gltf_node *)out;
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    memcpy(n->matrix, identity, sizeof identity);
    n->rotation[3] = 1.0f;
    n->scale[0] = n->scale[1] = n->scale[2] = 1.0f;
    TRY(read_string(p, o, "name", path, &n->name));
    TRY(read_indices(p, o, "children", path, &n->children, &n->child_count));
    TRY(read_index(p, o, "mesh", path, &n->mesh));
    TRY(read_index(p, o, "skin", path, &n->skin));
    TRY(read_index(p, o, "camera", path, &n->camera));
    TRY(read_floats_fixed(p, o, "matrix", path, n->matrix, 16, &n->has_matrix));
    TRY(read_floats_fixed(p, o, "translation", path, n->translation, 3, NULL));
    TRY(read_floats_fixed(p, o, "rotation", path, n->rotation, 4, NULL));
    TRY(read_floats_fixed(p, o, "scale", path, n->scale, 3, NULL));
    TRY(read_floats(p, o, "weights", path, &n->weights, &n->weight_count));
    return OROYA_OK;
}

static oroya_result read_skin(parser *p, const cJSON *o, const char *path, void *out, uint32_t i) {
    (void)i;
    oroya_gltf_skin *s = (oroya_gltf_skin *)out;
    TRY(read_string(p, o, "name", path, &s->name));
    TRY(read_indices(p, o, "joints", path, &s->joints, &s->joint_count));
    if (s->joint_count == 0) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.joints: required, at least one", path);
    }
    TRY(read_index(p, o, "inverseBindMatrices", path, &s->inverse_bind_matrices));
    TRY(read_index(p, o, "skeleton", path, &s->skeleton));
    return OROYA_OK;
}

static oroya_result read_sampler(parser *p, const cJSON *o, const char *path, void *out,
                                 uint32_t i) {
    (void)i;
    oroya_gltf_sampler *s = (oroya_gltf_sampler *)out;
    TRY(read_u32(p, o, "input", path, true, 0, &s->input));
    TRY(read_u32(p, o, "output", path, true, 0, &s->output));
    const cJSON *interp = field(o, "interpolation");
    s->interpolation = OROYA_GLTF_LINEAR;
    if (interp) {
        const char *v = cJSON_IsString(interp) ? interp->valuestring : NULL;
        if (v && !strcmp(v, "LINEAR")) {
            s->interpolation = OROYA_GLTF_LINEAR;
        } else if (v && !strcmp(v, "STEP")) {
            s->interpolation = OROYA_GLTF_STEP;
        } else if (v && !strcmp(v, "CUBICSPLINE")) {
            s->interpolation = OROYA_GLTF_CUBICSPLINE;
        } else {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "%s.interpolation: expected LINEAR, STEP or CUBICSPLINE", path);
        }
    }
    return OROYA_OK;
}

static oroya_result read_channel(parser *p, const cJSON *o, const char *path, void *out,
                                 uint32_t i) {
    (void)i;
    oroya_gltf_channel *c = (oroya_gltf_channel *)out;
    TRY(read_u32(p, o, "sampler", path, true, 0, &c->sampler));
    char sub[PATH_MAX_];
    const cJSON *target;
    TRY(read_object(p, o, "target", path, true, &target, sub));
    TRY(read_index(p, target, "node", sub, &c->node));
    const cJSON *path_v = field(target, "path");
    if (!path_v || !cJSON_IsString(path_v) || !path_v->valuestring) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.path: required string", sub);
    }
    const char *s = path_v->valuestring;
    c->path = !strcmp(s, "translation") ? OROYA_GLTF_PATH_TRANSLATION
              : !strcmp(s, "rotation")  ? OROYA_GLTF_PATH_ROTATION
              : !strcmp(s, "scale")     ? OROYA_GLTF_PATH_SCALE
              : !strcmp(s, "weights")   ? OROYA_GLTF_PATH_WEIGHTS
                                        : OROYA_GLTF_PATH_UNKNOWN;
    return OROYA_OK;
}

/* One of extras.markers: {"time": number, "name": string}. */
static oroya_result read_marker(parser *p, const cJSON *v, const char *path, void *out,
                                uint32_t i) {
    (void)i;
    const cJSON *t = cJSON_IsObject(v) ? field(v, "time") : NULL;
    const cJSON *n = cJSON_IsObject(v) ? field(v, "name") : NULL;
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || !cJSON_IsString(n) || !n->valuestring) {
        return oroya__fail(p->err, OROYA_ERR_PARSE,
                           "%s: expected {\"time\": number, \"name\": string}", path);
    }
    char *name = oroya__gltf_strdup(p->g, n->valuestring, strlen(n->valuestring));
    if (!name) {
        return oom(p, path);
    }
    *(oroya_marker *)out = (oroya_marker){t->valuedouble, name};
    return OROYA_OK;
}

/* extras.curves of an animation (oroya's convention, docs/gltf.md): absent, or an array of
 * {"name", "interpolation", "times", "values"}. Key counts and times are checked when the
 * importer makes the clip (oroya_track_validate). */
static oroya_result read_curve(parser *p, const cJSON *v, const char *path, void *out, uint32_t i) {
    (void)i;
    const cJSON *n = cJSON_IsObject(v) ? field(v, "name") : NULL;
    if (!cJSON_IsString(n) || !n->valuestring) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.name: expected a string", path);
    }
    oroya_track *t = (oroya_track *)out;
    *t = (oroya_track){
        .property = OROYA_PROPERTY_CURVE, .interpolation = OROYA_INTERP_LINEAR, .components = 1};
    const cJSON *in = field(v, "interpolation");
    if (in) {
        int found = -1;
        for (int k = 0; cJSON_IsString(in) && k < (int)OROYA_INTERP_COUNT_; k++) {
            if (k != OROYA_INTERP_STERP &&
                !strcmp(in->valuestring, oroya_interpolation_name((oroya_interpolation)k))) {
                found = k;
            }
        }
        if (found < 0) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "%s.interpolation: expected \"step\", \"linear\", "
                               "\"smooth\" or \"cubicspline\"",
                               path);
        }
        t->interpolation = (oroya_interpolation)found;
    }
    char *name = oroya__gltf_strdup(p->g, n->valuestring, strlen(n->valuestring));
    if (!name) {
        return oom(p, path);
    }
    t->target = name;
    float *times, *values;
    uint32_t nv;
    TRY(read_value_list(p, v, "times", path, VALUE_FLOAT, (void **)&times, &t->key_count));
    TRY(read_value_list(p, v, "values", path, VALUE_FLOAT, (void **)&values, &nv));
    t->times = times;
    t->values = values;
    t->value_count = nv ? nv : 1; /* 0 would mean "not declared" */
    return OROYA_OK;
}

/* extras.<key> of an animation (oroya's conventions, docs/gltf.md), read so that another
 * tool's extras never refuse the file: extras belong to whatever tool wrote them (glTF 3.12),
 * and another tool's "markers" or "curves" need not be oroya's. An entry in another shape is
 * dropped, the others kept; a value that is not an array drops the list. The first reason is
 * kept in *ignored (the message that names its place); running out of memory or past a limit
 * is still an error. */
static oroya_result read_extras_tolerant(parser *p, const cJSON *o, const char *path,
                                         const char *key, size_t elem_size, element_fn fn,
                                         void **out, uint32_t *count, char **ignored) {
    const cJSON *extras = field(o, "extras");
    if (!cJSON_IsObject(extras)) {
        return OROYA_OK;
    }
    char sub[PATH_MAX_], prefix[PATH_MAX_];
    oroya__gltf_path(sub, sizeof sub, "%s.extras", path);
    oroya__gltf_path(prefix, sizeof prefix, "%s.%s", sub, key);
    oroya_error *const caller = p->err;
    oroya_error local = {0};
    p->err = &local;
    const cJSON *arr = NULL;
    oroya_result r = read_list(p, extras, key, sub, elem_size, &arr, out, count);
    if (r != OROYA_OK) {
        *out = NULL;
        *count = 0;
    }
    uint32_t kept = 0, i = 0;
    const cJSON *it, *const list = r == OROYA_OK ? arr : NULL;
    cJSON_ArrayForEach(it, list) {
        char at[PATH_MAX_];
        oroya__gltf_path(at, sizeof at, "%s[%u]", prefix, i);
        oroya_error one = {0};
        p->err = &one;
        const oroya_result e = fn(p, it, at, (uint8_t *)*out + (size_t)kept * elem_size, i);
        if (e == OROYA_OK) {
            kept++;
        } else if (e == OROYA_ERR_OUT_OF_MEMORY || e == OROYA_ERR_LIMIT) {
            r = e;
            local = one;
            break;
        } else if (!local.message[0]) {
            local = one; /* the first entry dropped */
        }
        i++;
    }
    p->err = caller;
    if (r == OROYA_ERR_OUT_OF_MEMORY || r == OROYA_ERR_LIMIT) {
        return oroya__fail(caller, r, "%s", local.message);
    }
    if (r == OROYA_OK) {
        *count = kept;
    }
    if (local.message[0] && !*ignored) {
        *ignored = oroya__gltf_strdup(p->g, local.message, strlen(local.message));
        if (!*ignored) {
            return oom(p, path);
        }
    }
    return OROYA_OK;
}

static oroya_result read_animation(parser *p, const cJSON *o, const char *path, void *out,
                                   uint32_t i) {
    (void)i;
    oroya_gltf_animation *a = (oroya_gltf_animation *)out;
    TRY(read_string(p, o, "name", path, &a->name));
    TRY(read_elements(p, o, "samplers", path, true, sizeof(oroya_gltf_sampler), read_sampler,
                      (void **)&a->samplers, &a->sampler_count));
    TRY(read_elements(p, o, "channels", path, true, sizeof(oroya_gltf_channel), read_channel,
                      (void **)&a->channels, &a->channel_count));
    TRY(read_extras_tolerant(p, o, path, "markers", sizeof(oroya_marker), read_marker,
                             (void **)&a->markers, &a->marker_count, &a->ignored_extras));
    return read_extras_tolerant(p, o, path, "curves", sizeof(oroya_track), read_curve,
                                (void **)&a->curves, &a->curve_count, &a->ignored_extras);
}

static oroya_result read_scene(parser *p, const cJSON *o, const char *path, void *out, uint32_t i) {
    (void)i;
    oroya_gltf_scene *s = (oroya_gltf_scene *)out;
    TRY(read_string(p, o, "name", path, &s->name));
    TRY(read_indices(p, o, "nodes", path, &s->nodes, &s->node_count));
    return OROYA_OK;
}

/* The projection object of a camera (named by its type): two size fields, then the clip planes. */
static oroya_result read_projection(parser *p, const cJSON *o, const char *path, const char *type,
                                    const char *key0, float *v0, const char *key1, float *v1,
                                    oroya_gltf_camera *c) {
    char sub[PATH_MAX_];
    const cJSON *body;
    TRY(read_object(p, o, type, path, true, &body, sub));
    TRY(read_float(p, body, key0, sub, 0.0f, v0));
    TRY(read_float(p, body, key1, sub, 0.0f, v1));
    TRY(read_float(p, body, "znear", sub, 0.0f, &c->znear));
    return read_float(p, body, "zfar", sub, 0.0f, &c->zfar);
}

static oroya_result read_camera(parser *p, const cJSON *o, const char *path, void *out,
                                uint32_t i) {
    (void)i;
    oroya_gltf_camera *c = (oroya_gltf_camera *)out;
    TRY(read_string(p, o, "name", path, &c->name));
    const cJSON *type = field(o, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : NULL;
    if (t && !strcmp(t, "perspective")) {
        return read_projection(p, o, path, t, "yfov", &c->yfov, "aspectRatio", &c->aspect_ratio, c);
    }
    if (t && !strcmp(t, "orthographic")) {
        c->orthographic = true;
        return read_projection(p, o, path, t, "xmag", &c->xmag, "ymag", &c->ymag, c);
    }
    return oroya__fail(p->err, OROYA_ERR_PARSE,
                       "%s.type: expected \"perspective\" or \"orthographic\"", path);
}

static oroya_result read_material(parser *p, const cJSON *o, const char *path, void *out,
                                  uint32_t i) {
    (void)i;
    oroya_gltf_material *m = (oroya_gltf_material *)out;
    m->base_color_factor[0] = m->base_color_factor[1] = m->base_color_factor[2] = 1.0f;
    m->base_color_factor[3] = 1.0f;
    m->base_color_texture = OROYA_GLTF_NONE;
    m->metallic_factor = m->roughness_factor = 1.0f;
    TRY(read_string(p, o, "name", path, &m->name));
    TRY(read_bool(p, o, "doubleSided", path, &m->double_sided));
    char sub[PATH_MAX_];
    const cJSON *pbr;
    TRY(read_object(p, o, "pbrMetallicRoughness", path, false, &pbr, sub));
    if (pbr) {
        TRY(read_floats_fixed(p, pbr, "baseColorFactor", sub, m->base_color_factor, 4, NULL));
        TRY(read_float(p, pbr, "metallicFactor", sub, 1.0f, &m->metallic_factor));
        TRY(read_float(p, pbr, "roughnessFactor", sub, 1.0f, &m->roughness_factor));
        char sub2[PATH_MAX_];
        const cJSON *tex;
        TRY(read_object(p, pbr, "baseColorTexture", sub, false, &tex, sub2));
        if (tex) {
            TRY(read_u32(p, tex, "index", sub2, true, 0, &m->base_color_texture));
            TRY(read_u32(p, tex, "texCoord", sub2, false, 0, &m->base_color_texcoord));
        }
    }
    return OROYA_OK;
}

static oroya_result read_texture(parser *p, const cJSON *o, const char *path, void *out,
                                 uint32_t i) {
    (void)i;
    oroya_gltf_texture *t = (oroya_gltf_texture *)out;
    TRY(read_string(p, o, "name", path, &t->name));
    TRY(read_index(p, o, "source", path, &t->source));
    TRY(read_index(p, o, "sampler", path, &t->sampler));
    return OROYA_OK;
}

static oroya_result read_texture_sampler(parser *p, const cJSON *o, const char *path, void *out,
                                         uint32_t i) {
    (void)i;
    oroya_gltf_texture_sampler *s = (oroya_gltf_texture_sampler *)out;
    TRY(read_string(p, o, "name", path, &s->name));
    TRY(read_u32(p, o, "magFilter", path, false, 0, &s->mag_filter));
    TRY(read_u32(p, o, "minFilter", path, false, 0, &s->min_filter));
    TRY(read_u32(p, o, "wrapS", path, false, 10497, &s->wrap_s));
    TRY(read_u32(p, o, "wrapT", path, false, 10497, &s->wrap_t));
    return OROYA_OK;
}

static oroya_result read_image(parser *p, const cJSON *o, const char *path, void *out, uint32_t i) {
    (void)i;
    oroya_gltf_image *im = (oroya_gltf_image *)out;
    TRY(read_string(p, o, "name", path, &im->name));
    TRY(read_string(p, o, "uri", path, &im->uri));
    TRY(read_string(p, o, "mimeType", path, &im->mime_type));
    TRY(read_index(p, o, "bufferView", path, &im->buffer_view));
    return OROYA_OK;
}

static oroya_result read_strings(parser *p, const cJSON *root, const char *key, char ***out,
                                 uint32_t *count) {
    return read_value_list(p, root, key, "", VALUE_STRING, (void **)out, count);
}

/* ---- what the model does not keep ------------------------------------------------------- */

/* The kinds of content oroya reads past (docs/gltf.md, "Export": still lost in a round trip),
 * each reported once with its first place and how often the file has it. */
enum {
    UNKEPT_ALPHA,
    UNKEPT_EMISSIVE,
    UNKEPT_TEXTURES,
    UNKEPT_ATTRIBUTES,
    UNKEPT_TARGET_ATTRIBUTES,
    UNKEPT_EXTRAS,
    UNKEPT_MATRIX_AND_TRS,
    UNKEPT_UNPAIRED_SKIN_ATTRIBUTE,
    UNKEPT_KINDS
};
static const char *const unkept_what[UNKEPT_KINDS] = {
    "alpha mode and cutoff not kept (oroya keeps opaque materials: export writes OPAQUE)",
    "emissive factor and texture not kept",
    "normal, occlusion and metallic-roughness textures not kept",
    "vertex attribute import does not read, not kept (it reads POSITION, NORMAL, TANGENT, "
    "TEXCOORD_0 and _1, COLOR_0, JOINTS_0 and _1, WEIGHTS_0 and _1 of triangles, POSITION of "
    "points, lines, strips and fans)",
    "morph target attributes other than POSITION and NORMAL of triangles not kept",
    "extras not kept (oroya keeps an animation's extras.markers and extras.curves only)",
    "a matrix and translation, rotation or scale on one node (glTF allows one or the other): "
    "the matrix is used, as three.js does, and the rest not kept",
    "JOINTS_n without WEIGHTS_n or the reverse (invalid glTF: they come in pairs): that set "
    "of influences not kept",
};
/* At most this many extensions are named one by one (a file may list many). */
#define UNKEPT_MAX_EXTENSIONS 16

/* Cuts a UTF-8 sequence that snprintf's truncation left incomplete at the end of s (the
 * file's text is UTF-8: the lines stay so for JSON output). */
static void utf8_trim(char *s) {
    size_t n = strlen(s), k = 0;
    while (k < n && k < 4 && ((uint8_t)s[n - 1 - k] & 0xC0) == 0x80) {
        k++;
    }
    if (k < n) {
        const uint8_t lead = (uint8_t)s[n - 1 - k];
        const size_t need = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
        if (need != k) {
            s[n - 1 - k + (lead < 0x80)] = '\0';
        }
    }
}

typedef struct unkept_scan {
    char first[UNKEPT_KINDS][PATH_MAX_];
    uint32_t count[UNKEPT_KINDS];
} unkept_scan;

static void unkept_add(unkept_scan *u, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void unkept_add(unkept_scan *u, int kind, const char *fmt, ...) {
    if (u->count[kind]++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(u->first[kind], sizeof u->first[kind], fmt, ap);
        va_end(ap);
    }
}

/* Every "extras" below `v` (at `path`), not looking inside extras or extensions; an
 * animation's extras.markers and extras.curves are read (read_animation), its other members
 * are not. glTF's objects nest 6 deep at most (animations[i].channels[j].target.extras); the
 * walk stops at UNKEPT_DEPTH, so a deeply nested member costs no deep recursion. */
#define UNKEPT_DEPTH 8
static void unkept_extras(unkept_scan *u, const cJSON *v, const char *path, bool animation,
                          int depth) {
    if (depth >= UNKEPT_DEPTH) {
        return;
    }
    const cJSON *it;
    uint32_t i = 0;
    cJSON_ArrayForEach(it, v) {
        char sub[PATH_MAX_];
        if (cJSON_IsArray(v)) {
            oroya__gltf_path(sub, sizeof sub, "%s[%u]", path, i++);
        } else {
            const char *key = it->string ? it->string : "";
            oroya__gltf_path(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", key);
            if (!strcmp(key, "extensions")) {
                continue;
            }
            if (!strcmp(key, "extras")) {
                if (!animation || !cJSON_IsObject(it)) {
                    unkept_add(u, UNKEPT_EXTRAS, "%s", sub);
                    continue;
                }
                const cJSON *member;
                cJSON_ArrayForEach(member, it) {
                    const char *mk = member->string ? member->string : "";
                    if (strcmp(mk, "markers") != 0 && strcmp(mk, "curves") != 0) {
                        unkept_add(u, UNKEPT_EXTRAS, "%s.%s", sub, mk);
                    }
                }
                continue;
            }
        }
        if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
            /* An animation's own object: animations[i] (its channels and samplers are not). */
            const bool anim = cJSON_IsArray(v) && !strncmp(path, "animations", 11);
            unkept_extras(u, it, sub, anim, depth + 1);
        }
    }
}

/* The attributes of a primitive (target false) or a morph target that import reads. */
static bool attribute_kept(const char *name, bool target, bool triangles) {
    uint32_t set;
    const oroya_gltf_attribute_kind k = attribute_kind(name, &set);
    if (target) {
        return triangles && (k == OROYA_GLTF_ATTR_POSITION || k == OROYA_GLTF_ATTR_NORMAL);
    }
    if (!triangles) {
        return k == OROYA_GLTF_ATTR_POSITION;
    }
    switch (k) {
    case OROYA_GLTF_ATTR_POSITION:
    case OROYA_GLTF_ATTR_NORMAL:
    case OROYA_GLTF_ATTR_TANGENT: return true;
    case OROYA_GLTF_ATTR_TEXCOORD:
    case OROYA_GLTF_ATTR_JOINTS:
    case OROYA_GLTF_ATTR_WEIGHTS: return set <= 1;
    case OROYA_GLTF_ATTR_COLOR: return set == 0;
    default: return false;
    }
}

/* Lists in d->unkept what the file holds that import reads past (the parse itself is
 * unchanged): one line per kind, "<first place>: <what> not kept (<n> in the file)", and one
 * per extension in extensionsUsed other than KHR_mesh_quantization. */
static oroya_result note_unkept(parser *p, const cJSON *root) {
    oroya_gltf_data *d = &p->g->pub;
    unkept_scan *u = (unkept_scan *)oroya__gltf_alloc(p->g, 1, sizeof *u);
    if (!u) {
        return oom(p, "(root)");
    }
    memset(u, 0, sizeof *u);
    const cJSON *it;
    uint32_t i = 0;
    cJSON_ArrayForEach(it, field(root, "materials")) {
        const cJSON *pbr = field(it, "pbrMetallicRoughness");
        const cJSON *mode = field(it, "alphaMode");
        const bool blended =
            cJSON_IsString(mode) && mode->valuestring && strcmp(mode->valuestring, "OPAQUE");
        if (blended || field(it, "alphaCutoff")) {
            unkept_add(u, UNKEPT_ALPHA, "materials[%u].%s", i,
                       blended ? "alphaMode" : "alphaCutoff");
        }
        const cJSON *ef = field(it, "emissiveFactor");
        bool emissive = field(it, "emissiveTexture") != NULL;
        const cJSON *c;
        cJSON_ArrayForEach(c, ef) {
            emissive = emissive || !(cJSON_IsNumber(c) && c->valuedouble == 0);
        }
        if (emissive) {
            unkept_add(u, UNKEPT_EMISSIVE, "materials[%u].%s", i,
                       field(it, "emissiveTexture") ? "emissiveTexture" : "emissiveFactor");
        }
        static const char *const textures[] = {"normalTexture", "occlusionTexture"};
        for (size_t t = 0; t < 2; t++) {
            if (field(it, textures[t])) {
                unkept_add(u, UNKEPT_TEXTURES, "materials[%u].%s", i, textures[t]);
            }
        }
        if (field(pbr, "metallicRoughnessTexture")) {
            unkept_add(u, UNKEPT_TEXTURES,
                       "materials[%u].pbrMetallicRoughness.metallicRoughnessTexture", i);
        }
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(it, field(root, "meshes")) {
        const cJSON *pr;
        uint32_t j = 0;
        cJSON_ArrayForEach(pr, field(it, "primitives")) {
            const cJSON *mode = field(pr, "mode");
            const bool triangles = !mode || (cJSON_IsNumber(mode) && mode->valuedouble == 4);
            const cJSON *a, *attrs = field(pr, "attributes");
            cJSON_ArrayForEach(a, attrs) {
                if (a->string && !attribute_kept(a->string, false, triangles)) {
                    unkept_add(u, UNKEPT_ATTRIBUTES, "meshes[%u].primitives[%u].attributes.%s", i,
                               j, a->string);
                }
            }
            static const char *const pairs[2][2] = {{"JOINTS_0", "WEIGHTS_0"},
                                                    {"JOINTS_1", "WEIGHTS_1"}};
            for (int k = 0; triangles && k < 2; k++) {
                const bool jn = field(attrs, pairs[k][0]) != NULL;
                if (jn != (field(attrs, pairs[k][1]) != NULL)) {
                    unkept_add(u, UNKEPT_UNPAIRED_SKIN_ATTRIBUTE,
                               "meshes[%u].primitives[%u].attributes.%s", i, j, pairs[k][!jn]);
                }
            }
            const cJSON *t;
            uint32_t k = 0;
            cJSON_ArrayForEach(t, field(pr, "targets")) {
                cJSON_ArrayForEach(a, t) {
                    if (a->string && !attribute_kept(a->string, true, triangles)) {
                        unkept_add(u, UNKEPT_TARGET_ATTRIBUTES,
                                   "meshes[%u].primitives[%u].targets[%u].%s", i, j, k, a->string);
                    }
                }
                k++;
            }
            j++;
        }
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(it, field(root, "nodes")) {
        if (field(it, "matrix") &&
            (field(it, "translation") || field(it, "rotation") || field(it, "scale"))) {
            unkept_add(u, UNKEPT_MATRIX_AND_TRS, "nodes[%u]", i);
        }
        i++;
    }
    unkept_extras(u, root, "", false, 0);
    uint32_t ext = 0;
    for (i = 0; i < d->extension_used_count; i++) {
        ext += strcmp(d->extensions_used[i], "KHR_mesh_quantization") != 0;
    }
    uint32_t lines = (ext > UNKEPT_MAX_EXTENSIONS ? UNKEPT_MAX_EXTENSIONS + 1 : ext);
    for (int k = 0; k < UNKEPT_KINDS; k++) {
        lines += u->count[k] > 0;
    }
    if (!lines) {
        return OROYA_OK;
    }
    d->unkept = (char **)oroya__gltf_alloc(p->g, lines, sizeof(char *));
    if (!d->unkept) {
        return oom(p, "(root)");
    }
    char line[PATH_MAX_ + 320];
    uint32_t named = 0;
    for (i = 0; i < d->extension_used_count; i++) {
        const char *name = d->extensions_used[i];
        if (!strcmp(name, "KHR_mesh_quantization")) {
            continue;
        }
        if (named == UNKEPT_MAX_EXTENSIONS) {
            snprintf(line, sizeof line,
                     "extensionsUsed: %u more extensions whose content is not kept", ext - named);
        } else {
            char shown[101];
            snprintf(shown, sizeof shown, "%s", name);
            utf8_trim(shown);
            snprintf(line, sizeof line,
                     "extensionsUsed[%u]: \"%s\": the extension's content is not kept (oroya "
                     "reads no extension but KHR_mesh_quantization)",
                     i, shown);
        }
        utf8_trim(line);
        d->unkept[d->unkept_count] = oroya__gltf_strdup(p->g, line, strlen(line));
        if (!d->unkept[d->unkept_count++]) {
            return oom(p, "(root)");
        }
        if (named++ == UNKEPT_MAX_EXTENSIONS) {
            break;
        }
    }
    for (int k = 0; k < UNKEPT_KINDS; k++) {
        if (!u->count[k]) {
            continue;
        }
        utf8_trim(u->first[k]);
        snprintf(line, sizeof line, "%s: %s (%u in the file)", u->first[k], unkept_what[k],
                 u->count[k]);
        d->unkept[d->unkept_count] = oroya__gltf_strdup(p->g, line, strlen(line));
        if (!d->unkept[d->unkept_count++]) {
            return oom(p, "(root)");
        }
    }
    return OROYA_OK;
}

static oroya_result read_root(parser *p, const cJSON *root) {
    oroya_gltf_data *d = &p->g->pub;
    if (!cJSON_IsObject(root)) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "(root): expected a JSON object");
    }
    char sub[PATH_MAX_];
    const cJSON *asset;
    TRY(read_object(p, root, "asset", "(root)", true, &asset, sub));
    const cJSON *version = field(asset, "version");
    if (!cJSON_IsString(version) || !version->valuestring) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "asset.version: required string");
    }
    if (strncmp(version->valuestring, "2.", 2) != 0) {
        return oroya__fail(p->err, OROYA_ERR_UNSUPPORTED,
                           "asset.version: \"%.32s\" is not glTF 2.x", version->valuestring);
    }
    TRY(read_string(p, asset, "copyright", "asset", &d->copyright));
    /* Every node becomes a scene node at import, and a scene holds at most
     * OROYA_SCENE_MAX_NODES: more is refused before any parsed array is allocated (1 100 000
     * nodes, 3.3 MB as "{},", took 176 MB parsed and 843 MB at import to fail there). */
    TRY(check_entries(p, root, "nodes", "", OROYA_SCENE_MAX_NODES, "OROYA_SCENE_MAX_NODES"));
    TRY(read_strings(p, root, "extensionsUsed", &d->extensions_used, &d->extension_used_count));
    TRY(read_strings(p, root, "extensionsRequired", &d->extensions_required,
                     &d->extension_required_count));
    /* Declared in either list: a file that requires it but leaves it out of extensionsUsed
     * (invalid: required is a subset of used) was refused with "component type SHORT not
     * allowed", which named no extension. */
    for (uint32_t i = 0; i < d->extension_used_count; i++) {
        if (!strcmp(d->extensions_used[i], "KHR_mesh_quantization")) {
            d->uses_mesh_quantization = true;
        }
    }
    for (uint32_t i = 0; i < d->extension_required_count; i++) {
        if (!strcmp(d->extensions_required[i], "KHR_mesh_quantization")) {
            d->uses_mesh_quantization = true;
        }
    }
    TRY(read_index(p, root, "scene", "(root)", &d->scene));
#define OBJECTS(key, fn, arr, count)                                                               \
    TRY(read_objects(p, root, key, sizeof(*d->arr), fn, (void **)&d->arr, &d->count))
    OBJECTS("buffers", read_buffer, buffers, buffer_count);
    OBJECTS("bufferViews", read_buffer_view, buffer_views, buffer_view_count);
    OBJECTS("accessors", read_accessor, accessors, accessor_count);
    OBJECTS("meshes", read_mesh, meshes, mesh_count);
    OBJECTS("nodes", read_node, nodes, node_count);
    OBJECTS("skins", read_skin, skins, skin_count);
    OBJECTS("animations", read_animation, animations, animation_count);
    OBJECTS("scenes", read_scene, scenes, scene_count);
    OBJECTS("cameras", read_camera, cameras, camera_count);
    OBJECTS("materials", read_material, materials, material_count);
    OBJECTS("textures", read_texture, textures, texture_count);
    OBJECTS("images", read_image, images, image_count);
    OBJECTS("samplers", read_texture_sampler, texture_samplers, texture_sampler_count);
#undef OBJECTS
    return note_unkept(p, root);
}

/* 1-based line and column of byte `offset` in `text`, for JSON syntax errors. */
static void line_col(const char *text, size_t offset, size_t *line, size_t *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static oroya_result parse_json(parser *p, const char *json, size_t size) {
    /* The spec forbids a BOM but asks readers to skip one rather than fail. */
    if (size >= 3 && (uint8_t)json[0] == 0xEF && (uint8_t)json[1] == 0xBB &&
        (uint8_t)json[2] == 0xBF) {
        json += 3;
        size -= 3;
    }
    /* What cJSON lets through: raw NUL bytes (taken for whitespace, or cutting a string)
     * and text that is not UTF-8 (glTF 2.0 section 3.2: JSON in UTF-8). NUL padding after
     * the text stays allowed. */
    size_t bad = 0;
    const char *why = NULL;
    if (!oroya__json_text_check(json, size, &size, &bad, &why)) {
        size_t line, col;
        line_col(json, bad, &line, &col);
        return oroya__fail(p->err, OROYA_ERR_PARSE, "(json): %s at byte %zu (line %zu, column %zu)",
                           why, bad, line, col);
    }
    /* One pass before cJSON: the values its tree would hold (refused past the limit before
     * it allocates one), and where the nesting passes its depth limit (named when the parse
     * then fails there, unless a syntax error comes first). */
    oroya__json_counts counts;
    oroya__json_scan(json, size, CJSON_NESTING_LIMIT, &counts);
    if (counts.values > OROYA_GLTF_MAX_JSON_VALUES) {
        return oroya__fail(p->err, OROYA_ERR_LIMIT,
                           "(json): %zu values, the limit is %llu (OROYA_GLTF_MAX_JSON_VALUES)",
                           counts.values, (unsigned long long)OROYA_GLTF_MAX_JSON_VALUES);
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, size, &end, false);
    /* Only whitespace may follow the value (RFC 8259); cJSON stops at the value's end. */
    if (root && end) {
        while (end < json + size && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) {
            end++;
        }
        if (end != json + size) {
            cJSON_Delete(root);
            root = NULL;
        }
    }
    if (!root) {
        size_t off = end && end >= json && end <= json + size ? (size_t)(end - json) : 0;
        size_t line, col;
        line_col(json, off, &line, &col);
        if (counts.too_deep_at <= off) {
            return oroya__fail(p->err, OROYA_ERR_LIMIT,
                               "(json): arrays and objects nest deeper than %d levels at byte "
                               "%zu (line %zu, column %zu)",
                               CJSON_NESTING_LIMIT, off, line, col);
        }
        return oroya__fail(p->err, OROYA_ERR_PARSE,
                           "(json): syntax error at byte %zu (line %zu, column %zu)", off, line,
                           col);
    }
    oroya_result r = read_root(p, root);
    cJSON_Delete(root);
    return r;
}

static uint32_t le32(const uint8_t *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* GLB container (glTF 2.0 section 4.4): 12-byte header, a JSON chunk, then an optional BIN
 * chunk; chunks of other types are skipped as the spec asks. */
static oroya_result parse_glb(parser *p, const uint8_t *data, size_t size) {
    if (size < 20) {
        return oroya__fail(p->err, OROYA_ERR_PARSE,
                           "(glb): %zu bytes is too short for a header and a chunk", size);
    }
    uint32_t version = le32(data + 4), length = le32(data + 8);
    if (version != 2) {
        return oroya__fail(p->err, OROYA_ERR_UNSUPPORTED, "(glb): version %u, expected 2", version);
    }
    if (length > size || length < 20) {
        return oroya__fail(p->err, OROYA_ERR_PARSE,
                           "(glb): header length %u does not match the %zu bytes given", length,
                           size);
    }
    size_t pos = 12;
    const uint8_t *json = NULL, *bin = NULL;
    uint32_t json_len = 0, bin_len = 0;
    for (uint32_t chunk = 0; pos < length; chunk++) {
        if (length - pos < 8) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "(glb): chunk %u header at byte %zu is cut off", chunk, pos);
        }
        uint32_t clen = le32(data + pos), ctype = le32(data + pos + 4);
        pos += 8;
        if (clen > length - pos) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "(glb): chunk %u declares %u bytes, only %zu remain", chunk, clen,
                               (size_t)length - pos);
        }
        if (chunk == 0 && ctype != GLB_CHUNK_JSON) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "(glb): chunk 0 has type 0x%08x, expected JSON", ctype);
        }
        if (chunk == 0) {
            json = data + pos;
            json_len = clen;
        } else if (chunk == 1 && ctype == GLB_CHUNK_BIN) {
            bin = data + pos;
            bin_len = clen;
        } else if (ctype == GLB_CHUNK_JSON) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "(glb): chunk %u is a second JSON chunk (the JSON chunk comes "
                               "first, once)",
                               chunk);
        } else if (ctype == GLB_CHUNK_BIN) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "(glb): chunk %u is a BIN chunk; the BIN chunk must come second, "
                               "right after the JSON chunk, and only once (glTF 2.0, \"Chunks\")",
                               chunk);
        }
        pos += clen;
    }
    if (!json || json_len == 0) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "(glb): the JSON chunk is missing or empty");
    }
    if (bin) {
        uint8_t *copy = (uint8_t *)oroya__gltf_alloc(p->g, bin_len ? bin_len : 1, 1);
        if (!copy) {
            return oom(p, "(glb)");
        }
        memcpy(copy, bin, bin_len);
        p->g->bin = copy;
        p->g->bin_size = bin_len;
    }
    p->g->pub.is_glb = true;
    return parse_json(p, (const char *)json, json_len);
}

oroya_result oroya_gltf_parse(const oroya_gltf_desc *desc, const void *data, size_t size,
                              oroya_gltf_data **out, oroya_error *err) {
    if (!out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_parse: out is NULL");
    }
    *out = NULL;
    if (!data && size) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_parse: data is NULL");
    }
    if ((uint64_t)size > OROYA_GLTF_MAX_FILE_SIZE) {
        return oroya__fail(err, OROYA_ERR_LIMIT, "(file): %zu bytes is over the limit", size);
    }
    oroya_allocator a = desc ? desc->allocator : (oroya_allocator){0};
    oroya__gltf *g = (oroya__gltf *)oroya__alloc(&a, sizeof *g, 16);
    if (!g) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "(file): out of memory");
    }
    memset(g, 0, sizeof *g);
    g->allocator = a;
    g->pub.scene = OROYA_GLTF_NONE;
    parser p = {g, err};
    oroya_result r = OROYA_OK;
    g->allow_outside_base_dir = desc && desc->allow_outside_base_dir;
    g->read_file = desc ? desc->read_file : NULL;
    g->read_user = desc ? desc->read_user : NULL;
    if (desc && desc->base_dir) {
        g->base_dir = oroya__gltf_strdup(g, desc->base_dir, strlen(desc->base_dir));
        if (!g->base_dir) {
            r = oom(&p, "(file)");
        }
    }
    if (r == OROYA_OK) {
        const uint8_t *bytes = (const uint8_t *)data;
        if (size >= 4 && le32(bytes) == GLB_MAGIC) {
            r = parse_glb(&p, bytes, size);
        } else if (size >= 4 && bytes[0] == 'g' && bytes[1] == 'l') {
            r = oroya__fail(err, OROYA_ERR_PARSE, "(glb): bad magic");
        } else {
            r = parse_json(&p, (const char *)bytes, size);
        }
    }
    if (r != OROYA_OK) {
        oroya_gltf_free(&g->pub);
        return r;
    }
    *out = &g->pub;
    return OROYA_OK;
}

oroya_result oroya_gltf_parse_file(const oroya_gltf_desc *desc, const char *path,
                                   oroya_gltf_data **out, oroya_error *err) {
    if (!out || !path) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_gltf_parse_file: path or out is NULL");
    }
    *out = NULL;
    oroya__file f;
    oroya_result r =
        oroya__file_open(path, NULL, OROYA_GLTF_MAX_FILE_SIZE, &f, err, "(file)", path);
    if (r != OROYA_OK) {
        return r;
    }
    size_t size = (size_t)f.size;
    oroya_allocator a = desc ? desc->allocator : (oroya_allocator){0};
    uint8_t *bytes = (uint8_t *)oroya__alloc(&a, size + 1, 1);
    if (!bytes) {
        oroya__file_close(&f);
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    r = oroya__file_read_all(&f, bytes, err, "(file)", path);
    if (r != OROYA_OK) {
        oroya__free(&a, bytes);
        return r;
    }
    /* External URIs are relative to the file's folder (glTF 2.0 section 2.8). */
    oroya_gltf_desc d = desc ? *desc : (oroya_gltf_desc){0};
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
    if (dlen >= sizeof dir) {
        oroya__free(&a, bytes);
        return oroya__fail(err, OROYA_ERR_LIMIT, "%s: path too long", path);
    }
    memcpy(dir, path, dlen);
    dir[dlen] = '\0';
    d.base_dir = dlen ? dir : "./";
    r = oroya_gltf_parse(&d, bytes, size, out, err);
    oroya__free(&a, bytes);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(*out, err);
        if (r != OROYA_OK) {
            oroya_gltf_free(*out);
            *out = NULL;
        }
    }
    return r;
}
