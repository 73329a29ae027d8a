/* glTF parsing: the GLB container and the JSON structure (glTF 2.0 sections 4 and 5).
 * Nothing here follows an index; oroya_gltf_validate does that. */
#include <cjson/cJSON.h>
#include <math.h>
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

static oroya_result read_float(parser *p, const cJSON *obj, const char *key, const char *path,
                               float def, float *out) {
    const cJSON *v = field(obj, key);
    if (!v) {
        *out = def;
        return OROYA_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 3.4e38) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: expected a finite number", path, key);
    }
    *out = (float)v->valuedouble;
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

/* An optional array: *arr NULL and *count 0 when absent. */
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

/* Fixed-size float array (matrix, translation, factors). Absent: out untouched. */
static oroya_result read_floats_fixed(parser *p, const cJSON *obj, const char *key,
                                      const char *path, float *out, uint32_t n, bool *present) {
    const cJSON *arr;
    uint32_t count;
    oroya_result r = read_array(p, obj, key, path, &arr, &count);
    if (present) {
        *present = arr != NULL;
    }
    if (r || !arr) {
        return r;
    }
    if (count != n) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: expected %u numbers, got %u", path, key,
                           n, count);
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || fabs(it->valuedouble) > 3.4e38) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s[%u]: expected a finite number", path,
                               key, i);
        }
        out[i++] = (float)it->valuedouble;
    }
    return OROYA_OK;
}

/* Variable-size float array (weights). */
static oroya_result read_floats(parser *p, const cJSON *obj, const char *key, const char *path,
                                float **out, uint32_t *count) {
    const cJSON *arr;
    oroya_result r = read_array(p, obj, key, path, &arr, count);
    *out = NULL;
    if (r || !arr || *count == 0) {
        return r;
    }
    *out = (float *)oroya__gltf_alloc(p->g, *count, sizeof(float));
    if (!*out) {
        return oom(p, path);
    }
    return read_floats_fixed(p, obj, key, path, *out, *count, NULL);
}

static oroya_result read_indices(parser *p, const cJSON *obj, const char *key, const char *path,
                                 uint32_t **out, uint32_t *count) {
    const cJSON *arr;
    oroya_result r = read_array(p, obj, key, path, &arr, count);
    *out = NULL;
    if (r || !arr || *count == 0) {
        return r;
    }
    *out = (uint32_t *)oroya__gltf_alloc(p->g, *count, sizeof(uint32_t));
    if (!*out) {
        return oom(p, path);
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        double d = cJSON_IsNumber(it) ? it->valuedouble : -1.0;
        if (!(d >= 0.0 && d < 4294967295.0 && d == floor(d))) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "%s.%s[%u]: expected a non-negative integer index", path, key, i);
        }
        (*out)[i++] = (uint32_t)d;
    }
    return OROYA_OK;
}

/* Each top-level array element must be an object; `fn` reads one. */
typedef oroya_result (*element_fn)(parser *p, const cJSON *obj, const char *path, void *out,
                                   uint32_t index);

static oroya_result read_objects(parser *p, const cJSON *root, const char *key, size_t elem_size,
                                 element_fn fn, void **out, uint32_t *count) {
    const cJSON *arr;
    oroya_result r = read_array(p, root, key, "", &arr, count);
    *out = NULL;
    if (r || !arr || *count == 0) {
        return r;
    }
    *out = oroya__gltf_alloc(p->g, *count, elem_size);
    if (!*out) {
        return oom(p, key);
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char path[PATH_MAX_];
        oroya__gltf_path(path, sizeof path, "%s[%u]", key, i);
        if (!cJSON_IsObject(it)) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s: expected an object", path);
        }
        r = fn(p, it, path, (uint8_t *)*out + (size_t)i * elem_size, i);
        if (r) {
            return r;
        }
        i++;
    }
    return OROYA_OK;
}

static oroya_result read_object(parser *p, const cJSON *obj, const char *key, const char *path,
                                bool required, const cJSON **out) {
    const cJSON *v = field(obj, key);
    *out = NULL;
    if (!v) {
        return required ? oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: required", path, key)
                        : OROYA_OK;
    }
    if (!cJSON_IsObject(v)) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s: expected an object", path, key);
    }
    *out = v;
    return OROYA_OK;
}

/* ---- glTF objects ---------------------------------------------------------------------- */

static oroya_result read_buffer(parser *p, const cJSON *o, const char *path, void *out,
                                uint32_t i) {
    (void)i;
    oroya_gltf_buffer *b = (oroya_gltf_buffer *)out;
    TRY(read_string(p, o, "name", path, &b->name));
    TRY(read_string(p, o, "uri", path, &b->uri));
    TRY(read_u64(p, o, "byteLength", path, true, 0, OROYA_GLTF_MAX_FILE_SIZE, &b->byte_length));
    return OROYA_OK;
}

static oroya_result read_buffer_view(parser *p, const cJSON *o, const char *path, void *out,
                                     uint32_t i) {
    (void)i;
    oroya_gltf_buffer_view *v = (oroya_gltf_buffer_view *)out;
    uint64_t stride;
    TRY(read_string(p, o, "name", path, &v->name));
    TRY(read_u32(p, o, "buffer", path, true, 0, &v->buffer));
    TRY(read_u64(p, o, "byteOffset", path, false, 0, OROYA_GLTF_MAX_FILE_SIZE, &v->byte_offset));
    TRY(read_u64(p, o, "byteLength", path, true, 0, OROYA_GLTF_MAX_FILE_SIZE, &v->byte_length));
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
    TRY(read_u64(p, o, "byteOffset", path, false, 0, OROYA_GLTF_MAX_FILE_SIZE, &a->byte_offset));
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
    const cJSON *sp;
    TRY(read_object(p, o, "sparse", path, false, &sp));
    if (sp) {
        char sub[PATH_MAX_];
        oroya__gltf_path(sub, sizeof sub, "%s.sparse", path);
        oroya_gltf_sparse *s = &a->sparse;
        const cJSON *ind, *val;
        uint64_t n;
        TRY(read_u64(p, sp, "count", sub, true, 0, UINT32_MAX - 1u, &n));
        if (n == 0) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.count: must be at least 1", sub);
        }
        s->count = (uint32_t)n;
        TRY(read_object(p, sp, "indices", sub, true, &ind));
        TRY(read_object(p, sp, "values", sub, true, &val));
        char sub2[PATH_MAX_];
        oroya__gltf_path(sub2, sizeof sub2, "%s.indices", sub);
        TRY(read_u32(p, ind, "bufferView", sub2, true, 0, &s->indices_buffer_view));
        TRY(read_u64(p, ind, "byteOffset", sub2, false, 0, OROYA_GLTF_MAX_FILE_SIZE,
                     &s->indices_byte_offset));
        TRY(read_component_type(p, ind, sub2, true, &s->indices_component_type));
        oroya__gltf_path(sub2, sizeof sub2, "%s.values", sub);
        TRY(read_u32(p, val, "bufferView", sub2, true, 0, &s->values_buffer_view));
        TRY(read_u64(p, val, "byteOffset", sub2, false, 0, OROYA_GLTF_MAX_FILE_SIZE,
                     &s->values_byte_offset));
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

static oroya_result read_attributes(parser *p, const cJSON *o, const char *path, bool required,
                                    oroya_gltf_attribute **out, uint32_t *count) {
    *out = NULL;
    *count = 0;
    const cJSON *attrs = o;
    if (!cJSON_IsObject(attrs)) {
        return required ? oroya__fail(p->err, OROYA_ERR_PARSE, "%s: expected an object", path)
                        : OROYA_OK;
    }
    uint32_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, attrs) { n++; }
    if (n == 0) {
        return OROYA_OK;
    }
    *out = (oroya_gltf_attribute *)oroya__gltf_alloc(p->g, n, sizeof(oroya_gltf_attribute));
    if (!*out) {
        return oom(p, path);
    }
    uint32_t i = 0;
    cJSON_ArrayForEach(it, attrs) {
        oroya_gltf_attribute *a = &(*out)[i];
        const char *key = it->string ? it->string : "";
        double d = cJSON_IsNumber(it) ? it->valuedouble : -1.0;
        if (!(d >= 0.0 && d < 4294967295.0 && d == floor(d))) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "%s.%s: expected a non-negative integer index", path, key);
        }
        a->accessor = (uint32_t)d;
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

static oroya_result read_primitive(parser *p, const cJSON *o, const char *path, void *out,
                                   uint32_t i) {
    (void)i;
    oroya_gltf_primitive *pr = (oroya_gltf_primitive *)out;
    char sub[PATH_MAX_];
    const cJSON *attrs;
    TRY(read_object(p, o, "attributes", path, true, &attrs));
    oroya__gltf_path(sub, sizeof sub, "%s.attributes", path);
    TRY(read_attributes(p, attrs, sub, true, &pr->attributes, &pr->attribute_count));
    TRY(read_index(p, o, "indices", path, &pr->indices));
    TRY(read_index(p, o, "material", path, &pr->material));
    TRY(read_u32(p, o, "mode", path, false, 4, &pr->mode));
    if (pr->mode > 6) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.mode: %u is not in [0, 6]", path, pr->mode);
    }
    const cJSON *targets;
    TRY(read_array(p, o, "targets", path, &targets, &pr->target_count));
    if (pr->target_count) {
        pr->targets = (oroya_gltf_morph_target *)oroya__gltf_alloc(p->g, pr->target_count,
                                                                   sizeof(oroya_gltf_morph_target));
        if (!pr->targets) {
            return oom(p, path);
        }
        uint32_t t = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, targets) {
            oroya__gltf_path(sub, sizeof sub, "%s.targets[%u]", path, t);
            TRY(read_attributes(p, it, sub, true, &pr->targets[t].attributes,
                                &pr->targets[t].attribute_count));
            t++;
        }
    }
    return OROYA_OK;
}

static oroya_result read_mesh(parser *p, const cJSON *o, const char *path, void *out, uint32_t i) {
    (void)i;
    oroya_gltf_mesh *m = (oroya_gltf_mesh *)out;
    TRY(read_string(p, o, "name", path, &m->name));
    TRY(read_floats(p, o, "weights", path, &m->weights, &m->weight_count));
    const cJSON *prims;
    TRY(read_array(p, o, "primitives", path, &prims, &m->primitive_count));
    if (!prims || m->primitive_count == 0) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.primitives: required, at least one", path);
    }
    m->primitives = (oroya_gltf_primitive *)oroya__gltf_alloc(p->g, m->primitive_count,
                                                              sizeof(oroya_gltf_primitive));
    if (!m->primitives) {
        return oom(p, path);
    }
    uint32_t k = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, prims) {
        char sub[PATH_MAX_];
        oroya__gltf_path(sub, sizeof sub, "%s.primitives[%u]", path, k);
        if (!cJSON_IsObject(it)) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s: expected an object", sub);
        }
        TRY(read_primitive(p, it, sub, &m->primitives[k], k));
        k++;
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
    const cJSON *target;
    TRY(read_object(p, o, "target", path, true, &target));
    char sub[PATH_MAX_];
    oroya__gltf_path(sub, sizeof sub, "%s.target", path);
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

/* Array-of-objects reader for nested arrays (animation samplers and channels). */
static oroya_result read_nested(parser *p, const cJSON *o, const char *key, const char *path,
                                size_t elem_size, element_fn fn, void **out, uint32_t *count) {
    const cJSON *arr;
    TRY(read_array(p, o, key, path, &arr, count));
    *out = NULL;
    if (!arr || *count == 0) {
        return OROYA_OK;
    }
    *out = oroya__gltf_alloc(p->g, *count, elem_size);
    if (!*out) {
        return oom(p, path);
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char sub[PATH_MAX_];
        oroya__gltf_path(sub, sizeof sub, "%s.%s[%u]", path, key, i);
        if (!cJSON_IsObject(it)) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s: expected an object", sub);
        }
        TRY(fn(p, it, sub, (uint8_t *)*out + (size_t)i * elem_size, i));
        i++;
    }
    return OROYA_OK;
}

/* The array extras.<key> of an object and arena room for its entries; *arr (and *mem) NULL
 * when extras or the key is absent or the array empty. sub receives "<path>.extras". */
static oroya_result extras_array(parser *p, const cJSON *o, const char *path, const char *key,
                                 size_t elem_size, char sub[PATH_MAX_], const cJSON **arr,
                                 void **mem) {
    *arr = NULL;
    *mem = NULL;
    const cJSON *extras = field(o, "extras");
    if (!cJSON_IsObject(extras)) {
        return OROYA_OK;
    }
    oroya__gltf_path(sub, PATH_MAX_, "%s.extras", path);
    const cJSON *found;
    uint32_t count;
    TRY(read_array(p, extras, key, sub, &found, &count));
    if (!found || count == 0) {
        return OROYA_OK;
    }
    *mem = oroya__gltf_alloc(p->g, count, elem_size);
    if (!*mem) {
        return oom(p, sub);
    }
    *arr = found;
    return OROYA_OK;
}

/* extras.markers of an animation (oroya's convention, docs/gltf.md): absent, or an array of
 * {"time": number, "name": string}. Other extras are ignored. */
static oroya_result read_markers(parser *p, const cJSON *o, const char *path,
                                 oroya_gltf_animation *a) {
    char sub[PATH_MAX_];
    const cJSON *arr;
    TRY(extras_array(p, o, path, "markers", sizeof(oroya_marker), sub, &arr, (void **)&a->markers));
    if (!arr) {
        return OROYA_OK;
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char at[PATH_MAX_];
        oroya__gltf_path(at, sizeof at, "%s.markers[%u]", sub, i);
        const cJSON *t = cJSON_IsObject(it) ? field(it, "time") : NULL;
        const cJSON *n = cJSON_IsObject(it) ? field(it, "name") : NULL;
        if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || !cJSON_IsString(n) ||
            !n->valuestring) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "%s: expected {\"time\": number, \"name\": string}", at);
        }
        char *name = oroya__gltf_strdup(p->g, n->valuestring, strlen(n->valuestring));
        if (!name) {
            return oom(p, at);
        }
        a->markers[i++] = (oroya_marker){t->valuedouble, name};
    }
    a->marker_count = i;
    return OROYA_OK;
}

/* A JSON array of finite numbers as floats (arena memory); *out NULL for an empty one. */
static oroya_result curve_floats(parser *p, const cJSON *obj, const char *key, const char *path,
                                 float **out, uint32_t *count) {
    const cJSON *arr;
    TRY(read_array(p, obj, key, path, &arr, count));
    *out = NULL;
    if (!arr || *count == 0) {
        return OROYA_OK;
    }
    *out = (float *)oroya__gltf_alloc(p->g, *count, sizeof(float));
    if (!*out) {
        return oom(p, path);
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.%s[%u]: expected a finite number", path,
                               key, i);
        }
        (*out)[i++] = (float)it->valuedouble;
    }
    return OROYA_OK;
}

/* extras.curves of an animation (oroya's convention, docs/gltf.md): absent, or an array of
 * {"name", "interpolation", "times", "values"}. Key counts and times are checked when the
 * importer makes the clip (oroya_track_validate). */
static oroya_result read_curves(parser *p, const cJSON *o, const char *path,
                                oroya_gltf_animation *a) {
    char sub[PATH_MAX_];
    const cJSON *arr;
    TRY(extras_array(p, o, path, "curves", sizeof(oroya_track), sub, &arr, (void **)&a->curves));
    if (!arr) {
        return OROYA_OK;
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char at[PATH_MAX_];
        oroya__gltf_path(at, sizeof at, "%s.curves[%u]", sub, i);
        const cJSON *n = cJSON_IsObject(it) ? field(it, "name") : NULL;
        if (!cJSON_IsString(n) || !n->valuestring) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s.name: expected a string", at);
        }
        oroya_track *t = &a->curves[i];
        *t = (oroya_track){.property = OROYA_PROPERTY_CURVE,
                           .interpolation = OROYA_INTERP_LINEAR,
                           .components = 1};
        const cJSON *in = field(it, "interpolation");
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
                                   at);
            }
            t->interpolation = (oroya_interpolation)found;
        }
        char *name = oroya__gltf_strdup(p->g, n->valuestring, strlen(n->valuestring));
        if (!name) {
            return oom(p, at);
        }
        t->target = name;
        float *times, *values;
        uint32_t nt, nv;
        TRY(curve_floats(p, it, "times", at, &times, &nt));
        TRY(curve_floats(p, it, "values", at, &values, &nv));
        t->times = times;
        t->values = values;
        t->key_count = nt;
        t->value_count = nv ? nv : 1; /* 0 would mean "not declared" */
        i++;
    }
    a->curve_count = i;
    return OROYA_OK;
}

static oroya_result read_animation(parser *p, const cJSON *o, const char *path, void *out,
                                   uint32_t i) {
    (void)i;
    oroya_gltf_animation *a = (oroya_gltf_animation *)out;
    TRY(read_string(p, o, "name", path, &a->name));
    TRY(read_nested(p, o, "samplers", path, sizeof(oroya_gltf_sampler), read_sampler,
                    (void **)&a->samplers, &a->sampler_count));
    TRY(read_nested(p, o, "channels", path, sizeof(oroya_gltf_channel), read_channel,
                    (void **)&a->channels, &a->channel_count));
    TRY(read_markers(p, o, path, a));
    TRY(read_curves(p, o, path, a));
    return OROYA_OK;
}

static oroya_result read_scene(parser *p, const cJSON *o, const char *path, void *out, uint32_t i) {
    (void)i;
    oroya_gltf_scene *s = (oroya_gltf_scene *)out;
    TRY(read_string(p, o, "name", path, &s->name));
    TRY(read_indices(p, o, "nodes", path, &s->nodes, &s->node_count));
    return OROYA_OK;
}

static oroya_result read_camera(parser *p, const cJSON *o, const char *path, void *out,
                                uint32_t i) {
    (void)i;
    oroya_gltf_camera *c = (oroya_gltf_camera *)out;
    TRY(read_string(p, o, "name", path, &c->name));
    const cJSON *type = field(o, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : NULL;
    char sub[PATH_MAX_];
    const cJSON *body;
    if (t && !strcmp(t, "perspective")) {
        TRY(read_object(p, o, "perspective", path, true, &body));
        oroya__gltf_path(sub, sizeof sub, "%s.perspective", path);
        TRY(read_float(p, body, "yfov", sub, 0.0f, &c->yfov));
        TRY(read_float(p, body, "aspectRatio", sub, 0.0f, &c->aspect_ratio));
        TRY(read_float(p, body, "znear", sub, 0.0f, &c->znear));
        TRY(read_float(p, body, "zfar", sub, 0.0f, &c->zfar));
    } else if (t && !strcmp(t, "orthographic")) {
        c->orthographic = true;
        TRY(read_object(p, o, "orthographic", path, true, &body));
        oroya__gltf_path(sub, sizeof sub, "%s.orthographic", path);
        TRY(read_float(p, body, "xmag", sub, 0.0f, &c->xmag));
        TRY(read_float(p, body, "ymag", sub, 0.0f, &c->ymag));
        TRY(read_float(p, body, "znear", sub, 0.0f, &c->znear));
        TRY(read_float(p, body, "zfar", sub, 0.0f, &c->zfar));
    } else {
        return oroya__fail(p->err, OROYA_ERR_PARSE,
                           "%s.type: expected \"perspective\" or \"orthographic\"", path);
    }
    return OROYA_OK;
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
    const cJSON *pbr;
    TRY(read_object(p, o, "pbrMetallicRoughness", path, false, &pbr));
    if (pbr) {
        char sub[PATH_MAX_];
        oroya__gltf_path(sub, sizeof sub, "%s.pbrMetallicRoughness", path);
        TRY(read_floats_fixed(p, pbr, "baseColorFactor", sub, m->base_color_factor, 4, NULL));
        TRY(read_float(p, pbr, "metallicFactor", sub, 1.0f, &m->metallic_factor));
        TRY(read_float(p, pbr, "roughnessFactor", sub, 1.0f, &m->roughness_factor));
        const cJSON *tex;
        TRY(read_object(p, pbr, "baseColorTexture", sub, false, &tex));
        if (tex) {
            char sub2[PATH_MAX_];
            oroya__gltf_path(sub2, sizeof sub2, "%s.baseColorTexture", sub);
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
    const cJSON *arr;
    TRY(read_array(p, root, key, "", &arr, count));
    *out = NULL;
    if (!arr || *count == 0) {
        return OROYA_OK;
    }
    *out = (char **)oroya__gltf_alloc(p->g, *count, sizeof(char *));
    if (!*out) {
        return oom(p, key);
    }
    uint32_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        if (!cJSON_IsString(it) || !it->valuestring) {
            return oroya__fail(p->err, OROYA_ERR_PARSE, "%s[%u]: expected a string", key, i);
        }
        (*out)[i] = oroya__gltf_strdup(p->g, it->valuestring, strlen(it->valuestring));
        if (!(*out)[i]) {
            return oom(p, key);
        }
        i++;
    }
    return OROYA_OK;
}

static oroya_result read_root(parser *p, const cJSON *root) {
    oroya_gltf_data *d = &p->g->pub;
    if (!cJSON_IsObject(root)) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "(root): expected a JSON object");
    }
    const cJSON *asset;
    TRY(read_object(p, root, "asset", "(root)", true, &asset));
    const cJSON *version = field(asset, "version");
    if (!cJSON_IsString(version) || !version->valuestring) {
        return oroya__fail(p->err, OROYA_ERR_PARSE, "asset.version: required string");
    }
    if (strncmp(version->valuestring, "2.", 2) != 0) {
        return oroya__fail(p->err, OROYA_ERR_UNSUPPORTED,
                           "asset.version: \"%.32s\" is not glTF 2.x", version->valuestring);
    }
    TRY(read_strings(p, root, "extensionsUsed", &d->extensions_used, &d->extension_used_count));
    TRY(read_strings(p, root, "extensionsRequired", &d->extensions_required,
                     &d->extension_required_count));
    for (uint32_t i = 0; i < d->extension_used_count; i++) {
        if (!strcmp(d->extensions_used[i], "KHR_mesh_quantization")) {
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
    return OROYA_OK;
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
        if (oroya__json_too_deep(json, off + 1 < size ? off + 1 : size, CJSON_NESTING_LIMIT)) {
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
        } else if (ctype == GLB_CHUNK_JSON || ctype == GLB_CHUNK_BIN) {
            return oroya__fail(p->err, OROYA_ERR_PARSE,
                               "(glb): chunk %u repeats a JSON or BIN chunk", chunk);
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
