/* glTF export: a scene with its meshes, skins, cameras and clips as .gltf + .bin or .glb.
 * One buffer; one buffer view per accessor (4-byte aligned), accessors with the min/max the
 * spec requires (POSITION, animation input). */
#define _XOPEN_SOURCE 700
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/gltf.h"
#include "internal/io_file.h"

/* Open addressing over keys of up to three pointers (a geometry, a material and a skin for
 * a shared mesh; one pointer for the rest), so interning stays linear in the scene size. */
typedef struct key_map {
    const void **keys; /* 3 per slot */
    uint32_t *values;  /* OROYA_GLTF_NONE: empty slot */
    uint32_t mask;     /* capacity - 1 */
} key_map;

/* A mesh of several primitives written for the run of primitive nodes that starts at a dense
 * index: its glTF index and the run's length. */
typedef struct prim_run {
    uint32_t mesh, count;
} prim_run;

typedef struct scene_tables {
    key_map meshes;         /* (geometry, material, skin) of single-primitive meshes */
    key_map skinned;        /* geometry -> dense index of the first node showing it with a skin */
    uint32_t *next_skinned; /* per dense index: the next node showing the same geometry with
                               other influences (OROYA_GLTF_NONE: none) */
    key_map runs;           /* the same of the first primitive of a run -> the run's dense start */
    prim_run *run_at;       /* per dense index, for the runs in `runs` */
    uint32_t mesh_count;    /* meshes written so far (all kinds) */
    key_map materials;
    uint32_t material_count;
    key_map skeletons;
    uint32_t skeleton_count;
    key_map cameras; /* model cameras written as the file had them */
    uint32_t camera_count;
    cJSON *mesh_array, *material_array, *skin_array, *camera_array;
} scene_tables;

typedef struct writer {
    const oroya_scene *scene;
    const oroya_gltf_write_desc *desc;
    const oroya_gltf_model *model; /* desc->model, or NULL */
    oroya_allocator a;
    oroya_error *err;
    uint8_t *bin;
    size_t bin_size, bin_cap;
    cJSON *root, *views, *accessors, *nodes;
    bool oom;
    uint32_t view_count, accessor_count, gltf_node_count;
    uint32_t node_count;
    uint32_t *gidx;          /* glTF node index per dense index, NONE when folded */
    uint32_t *prim_parent;   /* dense parent of a folded primitive node, else NONE */
    cJSON **node_json;       /* per dense index */
    uint32_t *src;           /* per dense index: the model's glTF node, or NONE */
    uint32_t *geometry_mesh; /* per model geometry: its glTF mesh */
    uint32_t *extra_gidx;    /* per model node outside the scene: its written node */
    uint32_t *extra_stack;   /* per model node: a stack of nodes whose children to write */
    cJSON **extra_json;      /* beside extra_stack: their JSON objects */
    uint32_t *model_mesh;    /* per dense index: a model mesh with a primitive that
                                         has no geometry (lines...), written from the model */
    key_map geometries;      /* model geometry -> index in model->geometries */
    scene_tables t;          /* what is written so far (also for nodes outside the scene) */
    uint32_t *extra_mesh;    /* per model mesh: its index when written for a node outside
                                         the scene, else NONE */
    uint32_t *skin_index;    /* per model skin: its written index, or NONE */
    cJSON **skin_json;       /* per model skin: its JSON object (joints and skeleton of a
                                         skin on nodes outside the scene are set last) */
} writer;

static oroya_result oom(writer *w) {
    return oroya__fail(w->err, OROYA_ERR_OUT_OF_MEMORY, "oroya_gltf_write: out of memory");
}

/* Whether s is ext (lowercase ASCII) in any case. */
static bool ext_is(const char *s, const char *ext) {
    for (; *ext; s++, ext++) {
        if ((*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s) != *ext) {
            return false;
        }
    }
    return *s == '\0';
}

/* Appends bytes at a 4-byte aligned offset; returns the offset or SIZE_MAX. */
static size_t blob_append(writer *w, const void *data, size_t size) {
    size_t start = (w->bin_size + 3u) & ~(size_t)3u;
    if (size > SIZE_MAX - start - 4) {
        w->oom = true;
        return SIZE_MAX;
    }
    size_t need = start + size;
    if (need > w->bin_cap) {
        size_t cap = w->bin_cap ? w->bin_cap : 4096;
        while (cap < need) {
            cap = cap > SIZE_MAX / 2 ? need : cap * 2;
        }
        uint8_t *grown = (uint8_t *)oroya__alloc(&w->a, cap, 16);
        if (!grown) {
            w->oom = true;
            return SIZE_MAX;
        }
        if (w->bin_size) {
            memcpy(grown, w->bin, w->bin_size);
        }
        oroya__free(&w->a, w->bin);
        w->bin = grown;
        w->bin_cap = cap;
    }
    memset(w->bin + w->bin_size, 0, start - w->bin_size);
    memcpy(w->bin + start, data, size);
    w->bin_size = need;
    return start;
}

static cJSON *add_array(writer *w, cJSON *obj, const char *key) {
    cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!a) {
        a = cJSON_AddArrayToObject(obj, key);
        w->oom |= a == NULL;
    }
    return a;
}

static void add_number(writer *w, cJSON *obj, const char *key, double v) {
    w->oom |= cJSON_AddNumberToObject(obj, key, v) == NULL;
}

static cJSON *float_array(writer *w, const float *v, uint32_t n);

/* oroya's convention (docs/gltf.md): a clip's CURVE tracks go to the animation's
 * extras.curves = [{name, interpolation, times, values}]. */
static oroya_result write_curves(writer *w, cJSON *anim, const oroya_clip *clip) {
    cJSON *list = NULL;
    for (uint32_t t = 0; t < clip->track_count; t++) {
        const oroya_track *tr = &clip->tracks[t];
        if (tr->property != OROYA_PROPERTY_CURVE) {
            continue;
        }
        if (!list) {
            cJSON *extras = cJSON_GetObjectItemCaseSensitive(anim, "extras");
            extras = extras ? extras : cJSON_AddObjectToObject(anim, "extras");
            list = extras ? cJSON_AddArrayToObject(extras, "curves") : NULL;
        }
        cJSON *c = list ? cJSON_CreateObject() : NULL;
        if (!c) {
            w->oom = true;
            return OROYA_OK;
        }
        cJSON_AddItemToArray(list, c);
        w->oom |= cJSON_AddStringToObject(c, "name", tr->target) == NULL;
        w->oom |= cJSON_AddStringToObject(c, "interpolation",
                                          oroya_interpolation_name(tr->interpolation)) == NULL;
        cJSON *times = float_array(w, tr->times, tr->key_count);
        cJSON *values = float_array(w, tr->values, oroya_track_value_count(tr));
        w->oom |= !times || !values;
        if (times) {
            cJSON_AddItemToObject(c, "times", times);
        }
        if (values) {
            cJSON_AddItemToObject(c, "values", values);
        }
    }
    return OROYA_OK;
}

static cJSON *float_array(writer *w, const float *v, uint32_t n) {
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; a && i < n; i++) {
        /* cJSON prints -0.0 as "0" (an integer-valued number goes through "%d"): "-0" keeps
         * the bits (JSON allows it; strtod reads it back as -0.0). */
        cJSON *x =
            v[i] == 0 && signbit(v[i]) ? cJSON_CreateRaw("-0") : cJSON_CreateNumber((double)v[i]);
        if (!x) {
            w->oom = true;
            break;
        }
        cJSON_AddItemToArray(a, x);
    }
    w->oom |= a == NULL;
    return a;
}

/* A map with room for `n` keys (at most half full). */
static bool map_init(writer *w, key_map *m, uint32_t n) {
    uint32_t cap = 16;
    while (cap < 2u * (uint64_t)n + 2u && cap < (1u << 31)) {
        cap *= 2;
    }
    m->keys = (const void **)oroya__calloc(&w->a, (size_t)cap * 3, sizeof(void *), 16);
    m->values = (uint32_t *)oroya__alloc(&w->a, (size_t)cap * sizeof(uint32_t), 16);
    m->mask = cap - 1;
    if (!m->keys || !m->values) {
        w->oom = true;
        return false;
    }
    memset(m->values, 0xFF, (size_t)cap * sizeof(uint32_t)); /* all OROYA_GLTF_NONE */
    return true;
}

static void map_free(writer *w, key_map *m) {
    oroya__free(&w->a, m->keys);
    oroya__free(&w->a, m->values);
    m->keys = NULL;
    m->values = NULL;
}

static uint32_t map_slot(const key_map *m, const void *a, const void *b, const void *c) {
    uint64_t h = (uint64_t)(uintptr_t)a * 0x9E3779B97F4A7C15u ^
                 (uint64_t)(uintptr_t)b * 0xC2B2AE3D27D4EB4Fu ^
                 (uint64_t)(uintptr_t)c * 0x165667B19E3779F9u;
    h ^= h >> 31;
    uint32_t i = (uint32_t)h & m->mask;
    while (m->values[i] != OROYA_GLTF_NONE &&
           (m->keys[i * 3] != a || m->keys[i * 3 + 1] != b || m->keys[i * 3 + 2] != c)) {
        i = (i + 1) & m->mask;
    }
    return i;
}

static uint32_t map_get(const key_map *m, const void *a, const void *b, const void *c) {
    return m->values ? m->values[map_slot(m, a, b, c)] : OROYA_GLTF_NONE;
}

/* The value of the key; a new key gets `value` and the call returns OROYA_GLTF_NONE. */
static uint32_t map_put(key_map *m, const void *a, const void *b, const void *c, uint32_t value) {
    uint32_t i = map_slot(m, a, b, c);
    if (m->values[i] != OROYA_GLTF_NONE) {
        return m->values[i];
    }
    m->keys[i * 3] = a;
    m->keys[i * 3 + 1] = b;
    m->keys[i * 3 + 2] = c;
    m->values[i] = value;
    return OROYA_GLTF_NONE;
}

/* An accessor over `count` elements of `components` values, with its own buffer view.
 * min_max: write per-component min and max (required for POSITION and animation input). */
/* Buffer view targets (glTF 3.6.1): vertex attributes and indices say what they hold. */
#define TARGET_ARRAY_BUFFER 34962
#define TARGET_ELEMENT_ARRAY_BUFFER 34963

static uint32_t write_accessor(writer *w, const void *data, uint32_t count, uint32_t comp_size,
                               oroya_gltf_component_type ct, const char *type, uint32_t components,
                               bool min_max, int target) {
    size_t bytes = (size_t)count * components * comp_size;
    size_t off = blob_append(w, data, bytes);
    cJSON *view = cJSON_CreateObject();
    cJSON *acc = cJSON_CreateObject();
    if (off == SIZE_MAX || !view || !acc) {
        cJSON_Delete(view);
        cJSON_Delete(acc);
        w->oom = true;
        return 0;
    }
    add_number(w, view, "buffer", 0);
    add_number(w, view, "byteOffset", (double)off);
    add_number(w, view, "byteLength", (double)bytes);
    if (target) {
        add_number(w, view, "target", target);
    }
    cJSON_AddItemToArray(w->views, view);
    add_number(w, acc, "bufferView", w->view_count++);
    add_number(w, acc, "componentType", (double)ct);
    add_number(w, acc, "count", count);
    w->oom |= cJSON_AddStringToObject(acc, "type", type) == NULL;
    if (min_max && ct == OROYA_GLTF_FLOAT && count) {
        const float *f = (const float *)data;
        float mn[16], mx[16];
        for (uint32_t c = 0; c < components; c++) {
            mn[c] = mx[c] = f[c];
        }
        for (uint32_t i = 1; i < count; i++) {
            for (uint32_t c = 0; c < components; c++) {
                float v = f[(size_t)i * components + c];
                mn[c] = v < mn[c] ? v : mn[c];
                mx[c] = v > mx[c] ? v : mx[c];
            }
        }
        cJSON_AddItemToObject(acc, "min", float_array(w, mn, components));
        cJSON_AddItemToObject(acc, "max", float_array(w, mx, components));
    }
    cJSON_AddItemToArray(w->accessors, acc);
    return w->accessor_count++;
}

static uint32_t floats_accessor(writer *w, const float *v, uint32_t count, uint32_t comps,
                                bool min_max) {
    static const char *const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
    const char *type = comps <= 4 ? types[comps] : "MAT4";
    return write_accessor(w, v, count, 4, OROYA_GLTF_FLOAT, type, comps, min_max, 0);
}

/* Rotation outputs as normalized signed shorts (VEC4): round(v * 32767), clamped. */
static uint32_t snorm16_accessor(writer *w, const float *v, uint32_t count) {
    const size_t n = (size_t)count * 4;
    int16_t *q = (int16_t *)oroya__alloc(&w->a, n * sizeof(int16_t) + 2, 16);
    if (!q) {
        w->oom = true;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const double x = (double)v[i] * 32767.0;
        const double r = x < -32767.0 ? -32767.0 : x > 32767.0 ? 32767.0 : x;
        q[i] = (int16_t)(r < 0 ? -floor(-r + 0.5) : floor(r + 0.5));
    }
    const uint32_t acc = write_accessor(w, q, count, 2, OROYA_GLTF_SHORT, "VEC4", 4, false, 0);
    oroya__free(&w->a, q);
    cJSON *a = w->oom ? NULL : cJSON_GetArrayItem(w->accessors, (int)acc);
    w->oom |= !a || !cJSON_AddBoolToObject(a, "normalized", true);
    return acc;
}

/* Indices as UNSIGNED_SHORT when every one is below 65535 (a file's 16-bit indices stay 16-bit;
 * 65535 is the restart value glTF forbids as an index), else UNSIGNED_INT. */
static uint32_t index_accessor(writer *w, const uint32_t *idx, uint32_t count) {
    uint32_t max = 0;
    for (uint32_t i = 0; i < count; i++) {
        max = idx[i] > max ? idx[i] : max;
    }
    if (max >= 65535u) {
        return write_accessor(w, idx, count, 4, OROYA_GLTF_UNSIGNED_INT, "SCALAR", 1, false,
                              TARGET_ELEMENT_ARRAY_BUFFER);
    }
    uint16_t *h = (uint16_t *)oroya__alloc(&w->a, (size_t)count * sizeof(uint16_t) + 2, 16);
    if (!h) {
        w->oom = true;
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        h[i] = (uint16_t)idx[i];
    }
    const uint32_t acc = write_accessor(w, h, count, 2, OROYA_GLTF_UNSIGNED_SHORT, "SCALAR", 1,
                                        false, TARGET_ELEMENT_ARRAY_BUFFER);
    oroya__free(&w->a, h);
    return acc;
}

static uint32_t vertex_accessor(writer *w, const float *v, uint32_t count, uint32_t comps,
                                bool min_max) {
    static const char *const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
    return write_accessor(w, v, count, 4, OROYA_GLTF_FLOAT, types[comps], comps, min_max,
                          TARGET_ARRAY_BUFFER);
}

static uint32_t model_geometry(const writer *w, const oroya_geometry *g);

/* With a model: TEXCOORD_1, TANGENT and COLOR_0 of a geometry it made, as the file had them
 * (COLOR_0 in its component type: normalized integers are round(v * max), which gives back
 * the file's integers as import scaled them by 1 / max). */
static void write_extra_attributes(writer *w, cJSON *attrs, const oroya_geometry *g) {
    uint32_t k = model_geometry(w, g);
    const oroya_gltf_model_primitive *kp = k != OROYA_GLTF_NONE ? &w->model->primitives[k] : NULL;
    uint32_t n = g->vertex_count;
    if (!kp) {
        return;
    }
    if (kp->texcoords1) {
        add_number(w, attrs, "TEXCOORD_1", vertex_accessor(w, kp->texcoords1, n, 2, false));
    }
    if (kp->tangents) {
        add_number(w, attrs, "TANGENT", vertex_accessor(w, kp->tangents, n, 4, false));
    }
    if (!kp->colors) {
        return;
    }
    uint32_t c = kp->color_components;
    const char *type = c == 3 ? "VEC3" : "VEC4";
    oroya_gltf_component_type ct = kp->color_component_type;
    if (ct != OROYA_GLTF_UNSIGNED_BYTE && ct != OROYA_GLTF_UNSIGNED_SHORT) {
        add_number(w, attrs, "COLOR_0", vertex_accessor(w, kp->colors, n, c, false));
        return;
    }
    size_t count = (size_t)n * c, size = ct == OROYA_GLTF_UNSIGNED_BYTE ? 1 : 2;
    /* Each element padded to 4 bytes, as glTF requires of vertex attributes (3.6.2.4). */
    size_t elem = (c * size + 3) & ~(size_t)3;
    uint8_t *q = (uint8_t *)oroya__calloc(&w->a, (size_t)n ? (size_t)n : 1, elem, 16);
    if (!q) {
        w->oom = true;
        return;
    }
    double max = ct == OROYA_GLTF_UNSIGNED_BYTE ? 255.0 : 65535.0;
    for (size_t i = 0; i < count; i++) {
        double v = (double)kp->colors[i];
        v = v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
        uint32_t u = (uint32_t)lround(v * max);
        uint8_t *at = q + (i / c) * elem + (i % c) * size;
        if (size == 1) {
            at[0] = (uint8_t)u;
        } else {
            memcpy(at, &(uint16_t){(uint16_t)u}, 2);
        }
    }
    uint32_t acc = write_accessor(w, q, n, (uint32_t)elem, ct, type, 1, false, TARGET_ARRAY_BUFFER);
    oroya__free(&w->a, q);
    /* The accessor and view just written are the arrays' last items (cJSON keeps the last
     * one at child->prev), so this stays O(1) per primitive. */
    if (!w->oom && w->accessors->child && w->views->child) {
        w->oom |= cJSON_AddTrueToObject(w->accessors->child->prev, "normalized") == NULL;
        if (elem != c * size) {
            add_number(w, w->views->child->prev, "byteStride", (double)elem);
        }
    }
    add_number(w, attrs, "COLOR_0", acc);
}

/* A new primitive object with its "attributes" object (*attrs), or NULL when out of memory
 * (w->oom set). */
static cJSON *new_primitive(writer *w, cJSON **attrs) {
    cJSON *prim = cJSON_CreateObject();
    *attrs = prim ? cJSON_AddObjectToObject(prim, "attributes") : NULL;
    if (!*attrs) {
        cJSON_Delete(prim);
        w->oom = true;
        return NULL;
    }
    return prim;
}

/* The first set of influences write_primitive writes for geometry g under skin s: the
 * geometry's own (what the file had) unless the skin uses other joints. */
static void written_influences(const oroya_geometry *g, const oroya_skin *s,
                               const uint16_t **joints, const float **weights) {
    *joints = g->joints;
    *weights = g->weights;
    if (!(g->joints && g->weights &&
          memcmp(g->joints, s->joints, (size_t)g->vertex_count * 4 * sizeof *g->joints) == 0)) {
        *joints = s->joints;
        *weights = s->weights;
    }
}

static bool same_span(const void *a, const void *b, size_t bytes) {
    return a == b || (a && b && !memcmp(a, b, bytes));
}

/* Whether two skins of geometry g make write_primitive write the same primitive (it writes
 * nothing else of a skin; the second set is compared as the skins hold it). */
static bool same_influences(const oroya_geometry *g, const oroya_skin *a, const oroya_skin *b) {
    const size_t n = (size_t)g->vertex_count * 4;
    if (a->vertex_count != g->vertex_count || b->vertex_count != g->vertex_count) {
        return false;
    }
    const uint16_t *ja, *jb;
    const float *wa, *wb;
    written_influences(g, a, &ja, &wa);
    written_influences(g, b, &jb, &wb);
    return same_span(ja, jb, n * sizeof *ja) && same_span(wa, wb, n * sizeof *wa) &&
           same_span(a->joints2, b->joints2, n * sizeof *a->joints2) &&
           same_span(a->weights2, b->weights2, n * sizeof *a->weights2);
}

static void write_primitive(writer *w, cJSON *prims, const oroya_geometry *g,
                            const oroya_skin *skin, int32_t material) {
    cJSON *attrs;
    cJSON *prim = new_primitive(w, &attrs);
    if (!prim) {
        return;
    }
    uint32_t n = g->vertex_count;
    add_number(w, attrs, "POSITION", vertex_accessor(w, g->positions, n, 3, true));
    if (g->normals) {
        add_number(w, attrs, "NORMAL", vertex_accessor(w, g->normals, n, 3, false));
    }
    if (g->uvs) {
        add_number(w, attrs, "TEXCOORD_0", vertex_accessor(w, g->uvs, n, 2, false));
    }
    /* The first set of influences as the geometry holds them (what the file had, before the
     * skin normalized its copy), unless the skin uses other joints; then the skin's. */
    const uint16_t *joints = g->joints;
    const float *weights = g->weights;
    if (skin) {
        written_influences(g, skin, &joints, &weights);
    }
    if (joints && weights) {
        add_number(w, attrs, "JOINTS_0",
                   write_accessor(w, joints, n, 2, OROYA_GLTF_UNSIGNED_SHORT, "VEC4", 4, false,
                                  TARGET_ARRAY_BUFFER));
        add_number(w, attrs, "WEIGHTS_0", vertex_accessor(w, weights, n, 4, false));
    }
    if (skin && skin->joints2 && skin->weights2) {
        /* The second set as the file had it when the model kept it and the joints match. */
        uint32_t k = model_geometry(w, g);
        const oroya_gltf_model_primitive *kp =
            k != OROYA_GLTF_NONE ? &w->model->primitives[k] : NULL;
        const float *weights2 =
            kp && kp->weights2 &&
                    !memcmp(kp->joints2, skin->joints2, (size_t)n * 4 * sizeof *kp->joints2)
                ? kp->weights2
                : skin->weights2;
        add_number(w, attrs, "JOINTS_1",
                   write_accessor(w, skin->joints2, n, 2, OROYA_GLTF_UNSIGNED_SHORT, "VEC4", 4,
                                  false, TARGET_ARRAY_BUFFER));
        add_number(w, attrs, "WEIGHTS_1", vertex_accessor(w, weights2, n, 4, false));
    } else if (!skin && joints && weights) {
        /* No bound skin (a node outside the loaded scene, or a skin with a joint outside
         * it): the second set as the model kept it from the file. */
        uint32_t k = model_geometry(w, g);
        const oroya_gltf_model_primitive *kp =
            k != OROYA_GLTF_NONE ? &w->model->primitives[k] : NULL;
        if (kp && kp->joints2 && kp->weights2) {
            add_number(w, attrs, "JOINTS_1",
                       write_accessor(w, kp->joints2, n, 2, OROYA_GLTF_UNSIGNED_SHORT, "VEC4", 4,
                                      false, TARGET_ARRAY_BUFFER));
            add_number(w, attrs, "WEIGHTS_1", vertex_accessor(w, kp->weights2, n, 4, false));
        }
    }
    write_extra_attributes(w, attrs, g);
    if (g->indices && g->index_count) {
        add_number(w, prim, "indices", index_accessor(w, g->indices, g->index_count));
    }
    if (material >= 0) {
        add_number(w, prim, "material", material);
    }
    if (g->morph_target_count && g->morph_positions) {
        cJSON *targets = cJSON_AddArrayToObject(prim, "targets");
        for (uint32_t t = 0; targets && t < g->morph_target_count; t++) {
            cJSON *tg = cJSON_CreateObject();
            if (!tg) {
                w->oom = true;
                break;
            }
            size_t o = (size_t)t * n * 3;
            add_number(w, tg, "POSITION", vertex_accessor(w, g->morph_positions + o, n, 3, true));
            if (g->morph_normals && g->normals) {
                add_number(w, tg, "NORMAL", vertex_accessor(w, g->morph_normals + o, n, 3, false));
            }
            cJSON_AddItemToArray(targets, tg);
        }
    }
    cJSON_AddItemToArray(prims, prim);
}

static void add_name(writer *w, cJSON *obj, const char *name) {
    if (name && name[0]) {
        w->oom |= cJSON_AddStringToObject(obj, "name", name) == NULL;
    }
}

/* s for a message: its first 40 bytes, those outside printable ASCII as \xNN. */
static const char *printable(const char *s, char out[168]) {
    size_t o = 0;
    for (size_t i = 0; s[i] && i < 40; i++) {
        const unsigned char c = (unsigned char)s[i];
        o +=
            (size_t)(c >= 0x20 && c < 0x7f && c != '\\' ? snprintf(out + o, 168 - o, "%c", c)
                                                        : snprintf(out + o, 168 - o, "\\x%02x", c));
    }
    out[o] = 0;
    return out;
}

/* Whether a number under key must lie in [0, 1] (glTF 2.0's material factors). */
static bool unit_range_key(const char *key) {
    return key && (!strcmp(key, "baseColorFactor") || !strcmp(key, "metallicFactor") ||
                   !strcmp(key, "roughnessFactor"));
}

/* The first value of the tree at item (reached by path; key: its member name, or for an
 * array element the array's) that glTF cannot hold: a string that is not UTF-8 (a name, marker
 * or copyright from the caller; JSON, and so glTF 2.0 section 3.2, is UTF-8), a number that
 * is not finite (JSON has none: cJSON would print null), a material factor outside [0, 1]. A
 * reader refuses such a file (oroya's own the first two, the Khronos validator all three), so
 * the write is refused naming the value, before anything is written. */
static oroya_result check_tree(writer *w, const cJSON *item, const char *key, char *path,
                               size_t len, size_t cap) {
    if (cJSON_IsString(item) && item->valuestring) {
        const unsigned char *s = (const unsigned char *)item->valuestring;
        const size_t n = strlen(item->valuestring);
        for (size_t i = 0; i < n;) {
            const size_t k = s[i] < 0x80 ? 1 : oroya__utf8_sequence(s + i, n - i);
            if (k == 0) {
                char shown[168];
                return oroya__fail(w->err, OROYA_ERR_INVALID_ARGUMENT,
                                   "%s: \"%s\" is not UTF-8 (byte %zu); glTF is UTF-8, nothing "
                                   "written",
                                   path, printable(item->valuestring, shown), i);
            }
            i += k;
        }
        return OROYA_OK;
    }
    if (cJSON_IsNumber(item)) {
        const double v = item->valuedouble;
        if (!isfinite(v)) {
            return oroya__fail(w->err, OROYA_ERR_NON_FINITE,
                               "%s: %g is not finite (JSON has no such number), nothing written",
                               path, v);
        }
        if (unit_range_key(key) && !(v >= 0 && v <= 1)) {
            return oroya__fail(w->err, OROYA_ERR_INVALID_ARGUMENT,
                               "%s: %.9g is outside [0, 1] (glTF 2.0), nothing written", path, v);
        }
        return OROYA_OK;
    }
    uint32_t index = 0;
    const bool array = cJSON_IsArray(item);
    for (const cJSON *c = item ? item->child : NULL; c; c = c->next, index++) {
        int m = array ? snprintf(path + len, cap - len, "[%u]", index)
                      : snprintf(path + len, cap - len, "%s%s", len ? "." : "",
                                 c->string ? c->string : "?");
        const size_t sub = m < 0 ? len : len + (size_t)m < cap ? len + (size_t)m : cap - 1;
        oroya_result r = check_tree(w, c, array ? key : c->string, path, sub, cap);
        path[len] = 0;
        if (r != OROYA_OK) {
            return r;
        }
    }
    return OROYA_OK;
}

/* ---- track targets: names to nodes in O(log n) ------------------------------------------ */

/* Names sorted with their indices (oroya__name_index): a lookup gives the lowest index with
 * that name, the first in dense order, as oroya_scene_find_node does. */
typedef oroya__name_index name_entry;

/* translation, rotation, scale, each only when it is not the default. */
static void write_trs(writer *w, cJSON *node, const oroya_transform *tr) {
    if (tr->translation.x != 0 || tr->translation.y != 0 || tr->translation.z != 0) {
        cJSON_AddItemToObject(node, "translation", float_array(w, &tr->translation.x, 3));
    }
    if (tr->rotation.x != 0 || tr->rotation.y != 0 || tr->rotation.z != 0 || tr->rotation.w != 1) {
        float q[4] = {tr->rotation.x, tr->rotation.y, tr->rotation.z, tr->rotation.w};
        /* glTF's node rotation is a unit quaternion with components in [-1, 1] (the validator
         * allows the length 0.00769 off): one off by more than OROYA_CLIP_UNIT_TOLERANCE (a
         * file's [0, 0, 0, 2], which import keeps as three.js does, or a scene's) or with a
         * component past 1 is written normalized, the others bit for bit. A zero or
         * non-finite one stays as it is (the identity is no better a guess). */
        const double l = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                              (double)q[3] * q[3]);
        const bool past_one =
            fabsf(q[0]) > 1 || fabsf(q[1]) > 1 || fabsf(q[2]) > 1 || fabsf(q[3]) > 1;
        if (l > 0 && isfinite(l) && (fabs(l - 1) > OROYA_CLIP_UNIT_TOLERANCE || past_one)) {
            for (int k = 0; k < 4; k++) {
                q[k] = (float)(q[k] / l);
            }
        }
        cJSON_AddItemToObject(node, "rotation", float_array(w, q, 4));
    }
    if (tr->scale.x != 1 || tr->scale.y != 1 || tr->scale.z != 1) {
        cJSON_AddItemToObject(node, "scale", float_array(w, &tr->scale.x, 3));
    }
}

/* The tables for nodes of the model outside the loaded scene, made once. */
static bool extra_init(writer *w) {
    uint32_t m = w->model ? w->model->node_count : 0;
    if (w->extra_gidx) {
        return true;
    }
    w->extra_gidx = (uint32_t *)oroya__alloc(&w->a, ((size_t)m + 1) * sizeof(uint32_t), 16);
    w->extra_stack = (uint32_t *)oroya__alloc(&w->a, ((size_t)m + 1) * sizeof(uint32_t), 16);
    w->extra_json = (cJSON **)oroya__alloc(&w->a, ((size_t)m + 1) * sizeof(cJSON *), 16);
    uint32_t meshes = w->model ? w->model->mesh_count : 0;
    w->extra_mesh = (uint32_t *)oroya__alloc(&w->a, ((size_t)meshes + 1) * sizeof(uint32_t), 16);
    for (uint32_t i = 0; w->extra_gidx && i < m; i++) {
        w->extra_gidx[i] = OROYA_GLTF_NONE;
    }
    for (uint32_t i = 0; w->extra_mesh && i < meshes; i++) {
        w->extra_mesh[i] = OROYA_GLTF_NONE;
    }
    return w->extra_gidx && w->extra_stack && w->extra_json && w->extra_mesh;
}

static void extra_parts(writer *w, uint32_t gltf, cJSON *node);

/* A node of the model outside the loaded scene, written once with its file name, transform,
 * and its mesh, morph weights, skin and camera from the model (extra_parts). */
static uint32_t extra_node(writer *w, uint32_t gltf, cJSON **out) {
    *out = NULL;
    if (!w->nodes) {
        w->nodes = add_array(w, w->root, "nodes");
    }
    cJSON *node = cJSON_CreateObject();
    if (!w->nodes || !node) {
        cJSON_Delete(node);
        w->oom = true;
        return 0;
    }
    add_name(w, node, w->model->node_file_names[gltf]);
    write_trs(w, node, &w->model->node_transforms[gltf]);
    extra_parts(w, gltf, node);
    cJSON_AddItemToArray(w->nodes, node);
    *out = node;
    w->extra_gidx[gltf] = w->gltf_node_count++;
    return w->extra_gidx[gltf];
}

/* A node of the model outside the loaded scene (one a clip animates, or a root of another
 * scene) with its subtree, children in file order; written once. Returns its glTF index.
 * An explicit stack: a deep chain of nodes would overflow the C stack. A child that is in
 * the loaded scene (only a malformed file has one) is left to that scene. */
static uint32_t extra_tree(writer *w, uint32_t root) {
    const oroya_gltf_model *m = w->model;
    if (w->extra_gidx[root] != OROYA_GLTF_NONE) {
        return w->extra_gidx[root];
    }
    uint32_t top = 0, index = extra_node(w, root, &w->extra_json[0]);
    w->extra_stack[top++] = root;
    while (top && !w->oom) {
        top--;
        uint32_t g = w->extra_stack[top];
        cJSON *children =
            m->node_child_counts[g] ? add_array(w, w->extra_json[top], "children") : NULL;
        for (uint32_t k = 0; children && k < m->node_child_counts[g]; k++) {
            uint32_t c = m->node_children[g][k];
            if (m->nodes[c].id != 0) {
                continue;
            }
            uint32_t ci = w->extra_gidx[c];
            if (ci == OROYA_GLTF_NONE) {
                ci = extra_node(w, c, &w->extra_json[top]);
                w->extra_stack[top++] = c;
            }
            w->oom |= !cJSON_AddItemToArray(children, cJSON_CreateNumber(ci));
        }
    }
    return index;
}

typedef struct target_index {
    name_entry *scene; /* scene nodes with a name */
    uint32_t scene_count;
    name_entry *outside; /* model nodes outside the scene (their scene names) */
    uint32_t outside_count;
} target_index;

static oroya_result build_targets(writer *w, target_index *ti) {
    uint32_t n = w->node_count, m = w->model ? w->model->node_count : 0;
    ti->scene = (name_entry *)oroya__alloc(&w->a, ((size_t)n + 1) * sizeof(name_entry), 16);
    ti->outside = (name_entry *)oroya__alloc(&w->a, ((size_t)m + 1) * sizeof(name_entry), 16);
    if (!ti->scene || !ti->outside || !extra_init(w)) {
        return oom(w);
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *name = oroya_scene_node_name(w->scene, oroya_scene_node_at(w->scene, i));
        if (name[0]) {
            ti->scene[ti->scene_count++] = (name_entry){name, i};
        }
    }
    for (uint32_t i = 0; i < m; i++) {
        if (w->model->nodes[i].id == 0) {
            ti->outside[ti->outside_count++] = (name_entry){w->model->node_names[i], i};
        }
    }
    qsort(ti->scene, ti->scene_count, sizeof(name_entry), oroya__name_index_compare);
    qsort(ti->outside, ti->outside_count, sizeof(name_entry), oroya__name_index_compare);
    return OROYA_OK;
}

/* glTF 3.11: "Within one animation, each target (a combination of node and path) MUST NOT be
 * used more than once", and oroya_gltf_validate refuses such a file. A clip may hold two
 * tracks on one node and property (three.js plays them, the later one wins), so they are
 * refused here, naming both, before anything of the clip is written. first[4 * key + path]
 * (key: the scene node's dense index, or n + the model node's index) is 1 + the first track
 * on it, all 0 on entry and on return. */
static oroya_result check_clip_targets(writer *w, const target_index *ti, uint32_t c,
                                       const oroya_clip *clip, uint32_t *first) {
    static const char *const paths[] = {"translation", "rotation", "scale", "weights"};
    oroya_result r = OROYA_OK;
    uint32_t t = 0;
    for (; t < clip->track_count; t++) {
        const oroya_track *tr = &clip->tracks[t];
        if ((unsigned)tr->property > (unsigned)OROYA_PROPERTY_WEIGHTS) {
            continue; /* curves, typed tracks: refused or written elsewhere */
        }
        uint32_t key = oroya__name_index_find(ti->scene, ti->scene_count, tr->target);
        if (key == OROYA_GLTF_NONE) {
            key = oroya__name_index_find(ti->outside, ti->outside_count, tr->target);
            if (key == OROYA_GLTF_NONE) {
                continue; /* not a node: the track loop says so */
            }
            key += w->node_count;
        }
        uint32_t *slot = &first[(size_t)key * 4 + (unsigned)tr->property];
        if (*slot) {
            r = oroya__fail(w->err, OROYA_ERR_UNSUPPORTED,
                            "clips[%u].tracks[%u]: target '%s' %s is also tracks[%u]'s (glTF "
                            "allows one channel per node and path in an animation)",
                            c, t, tr->target, paths[tr->property], *slot - 1u);
            break;
        }
        *slot = t + 1u;
    }
    for (uint32_t k = 0; k < t; k++) {
        const oroya_track *tr = &clip->tracks[k];
        if ((unsigned)tr->property > (unsigned)OROYA_PROPERTY_WEIGHTS) {
            continue;
        }
        uint32_t key = oroya__name_index_find(ti->scene, ti->scene_count, tr->target);
        if (key == OROYA_GLTF_NONE) {
            key = oroya__name_index_find(ti->outside, ti->outside_count, tr->target);
            if (key == OROYA_GLTF_NONE) {
                continue;
            }
            key += w->node_count;
        }
        first[(size_t)key * 4 + (unsigned)tr->property] = 0;
    }
    return r;
}

/* The name a clip is written with: a clip of the model gets its file name back (a repeated
 * name, as several exporters give every animation, or none), as nodes do. */
static const char *clip_name(const writer *w, const oroya_clip *clip) {
    for (uint32_t k = 0; w->model && w->model->clip_file_names && k < w->model->clip_count; k++) {
        if (w->model->clips[k] == clip) {
            return w->model->clip_file_names[k];
        }
    }
    return clip->name;
}

/* The morph targets of written node `node`'s mesh (its first primitive's), 0 with no mesh:
 * read back from the JSON written so far (the scene is written before the clips). */
static uint32_t written_morph_targets(const writer *w, uint32_t node) {
    const cJSON *n =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w->root, "nodes"), (int)node);
    const cJSON *mesh = n ? cJSON_GetObjectItemCaseSensitive(n, "mesh") : NULL;
    if (!cJSON_IsNumber(mesh)) {
        return 0;
    }
    const cJSON *mj =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w->root, "meshes"), mesh->valueint);
    const cJSON *prims = mj ? cJSON_GetObjectItemCaseSensitive(mj, "primitives") : NULL;
    const cJSON *targets =
        prims && prims->child ? cJSON_GetObjectItemCaseSensitive(prims->child, "targets") : NULL;
    return cJSON_IsArray(targets) ? (uint32_t)cJSON_GetArraySize(targets) : 0;
}

/* Key time accessors written so far, so that tracks with the same times share one input (a
 * file's channels usually do: CesiumMan's 57 share 19): FNV-1a of the times' bytes and the
 * key count, then the bytes compared. */
typedef struct time_inputs {
    const float **times;
    uint32_t *count, *accessor;
    uint64_t *hash;
    uint32_t n, cap;
} time_inputs;

static uint64_t times_hash(const float *t, uint32_t count) {
    const unsigned char *b = (const unsigned char *)t;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < (size_t)count * sizeof(float); i++) {
        h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}

static uint32_t time_input(writer *w, time_inputs *ti, const float *times, uint32_t count) {
    if (!count || !times) {
        return floats_accessor(w, times, count, 1, true);
    }
    const uint64_t h = times_hash(times, count);
    for (uint32_t i = 0; i < ti->n; i++) {
        if (ti->hash[i] == h && ti->count[i] == count &&
            !memcmp(ti->times[i], times, (size_t)count * sizeof(float))) {
            return ti->accessor[i];
        }
    }
    const uint32_t acc = floats_accessor(w, times, count, 1, true);
    if (ti->n < ti->cap) { /* cap: every track of every clip */
        ti->times[ti->n] = times, ti->count[ti->n] = count, ti->accessor[ti->n] = acc;
        ti->hash[ti->n++] = h;
    }
    return acc;
}

static oroya_result write_clips(writer *w) {
    const oroya_gltf_write_desc *d = w->desc;
    if (!d->clip_count) {
        return OROYA_OK;
    }
    size_t tracks = 0;
    for (uint32_t c = 0; c < d->clip_count; c++) {
        tracks += d->clips[c] ? d->clips[c]->track_count : 0;
    }
    time_inputs inputs = {0};
    unsigned char *inputs_mem =
        tracks
            ? (unsigned char *)oroya__alloc(
                  &w->a, tracks * (sizeof(float *) + 2 * sizeof(uint32_t) + sizeof(uint64_t)), 16)
            : NULL;
    if (inputs_mem && tracks <= UINT32_MAX) {
        inputs.hash = (uint64_t *)(void *)inputs_mem;
        inputs.times = (const float **)(void *)(inputs_mem + tracks * sizeof(uint64_t));
        inputs.count =
            (uint32_t *)(void *)(inputs_mem + tracks * (sizeof(uint64_t) + sizeof(float *)));
        inputs.accessor = inputs.count + tracks;
        inputs.cap = (uint32_t)tracks;
    }
    target_index ti = {0};
    oroya_result r = build_targets(w, &ti);
    const size_t keys = (size_t)w->node_count + (w->model ? w->model->node_count : 0);
    uint32_t *first = (uint32_t *)oroya__alloc(&w->a, (keys * 4 + 1) * sizeof(uint32_t), 16);
    if (r == OROYA_OK && !first) {
        r = oom(w);
    }
    if (first) {
        memset(first, 0, (keys * 4 + 1) * sizeof(uint32_t));
    }
    cJSON *anims = NULL;
    for (uint32_t c = 0; r == OROYA_OK && c < d->clip_count; c++) {
        const oroya_clip *clip = d->clips[c];
        if (!clip) {
            r = oroya__fail(w->err, OROYA_ERR_INVALID_ARGUMENT, "clips[%u]: NULL", c);
            break;
        }
        uint32_t channel_tracks = 0;
        for (uint32_t t = 0; t < clip->track_count; t++) {
            channel_tracks += clip->tracks[t].property != OROYA_PROPERTY_CURVE;
        }
        if (channel_tracks == 0) {
            continue; /* glTF animations need at least one channel: nothing to write */
        }
        r = check_clip_targets(w, &ti, c, clip, first);
        if (r != OROYA_OK) {
            break;
        }
        anims = anims ? anims : add_array(w, w->root, "animations");
        cJSON *anim = cJSON_CreateObject();
        if (!anims || !anim) {
            cJSON_Delete(anim);
            r = oom(w);
            break;
        }
        cJSON_AddItemToArray(anims, anim);
        add_name(w, anim, clip_name(w, clip));
        cJSON *samplers = cJSON_AddArrayToObject(anim, "samplers");
        cJSON *channels = cJSON_AddArrayToObject(anim, "channels");
        if (!samplers || !channels) {
            r = oom(w);
            break;
        }
        if (clip->marker_count) {
            /* oroya's convention (docs/gltf.md): extras.markers = [{time, name}]. */
            cJSON *extras = cJSON_AddObjectToObject(anim, "extras");
            cJSON *marks = extras ? cJSON_AddArrayToObject(extras, "markers") : NULL;
            for (uint32_t k = 0; k < clip->marker_count && r == OROYA_OK; k++) {
                cJSON *mk = marks ? cJSON_CreateObject() : NULL;
                if (!mk) {
                    r = oom(w);
                    break;
                }
                cJSON_AddItemToArray(marks, mk);
                add_number(w, mk, "time", clip->markers[k].time);
                w->oom |= cJSON_AddStringToObject(mk, "name", clip->markers[k].name) == NULL;
            }
        }
        if (r == OROYA_OK) {
            r = write_curves(w, anim, clip);
        }
        uint32_t sampler_count = 0;
        for (uint32_t t = 0; r == OROYA_OK && t < clip->track_count; t++) {
            const oroya_track *tr = &clip->tracks[t];
            if (tr->property == OROYA_PROPERTY_CURVE) {
                continue; /* in extras.curves */
            }
            if ((unsigned)tr->property > (unsigned)OROYA_PROPERTY_WEIGHTS) {
                /* Typed tracks and curves would need KHR_animation_pointer. */
                r = oroya__fail(w->err, OROYA_ERR_UNSUPPORTED,
                                "clips[%u].tracks[%u] (target \"%s\"): %s tracks have no glTF "
                                "form",
                                c, t, tr->target, oroya_property_name(tr->property));
                break;
            }
            uint32_t dense = oroya__name_index_find(ti.scene, ti.scene_count, tr->target);
            uint32_t outside =
                dense == OROYA_GLTF_NONE
                    ? oroya__name_index_find(ti.outside, ti.outside_count, tr->target)
                    : OROYA_GLTF_NONE;
            if (dense == OROYA_GLTF_NONE && outside == OROYA_GLTF_NONE) {
                r = oroya__fail(w->err, OROYA_ERR_NOT_FOUND,
                                "clips[%u].tracks[%u]: target '%s' is not a node of the scene", c,
                                t, tr->target);
                break;
            }
            const char *interp = tr->interpolation == OROYA_INTERP_STEP          ? "STEP"
                                 : tr->interpolation == OROYA_INTERP_LINEAR      ? "LINEAR"
                                 : tr->interpolation == OROYA_INTERP_CUBICSPLINE ? "CUBICSPLINE"
                                                                                 : NULL;
            if (!interp) {
                r = oroya__fail(w->err, OROYA_ERR_UNSUPPORTED,
                                "clips[%u].tracks[%u]: %s interpolation has no glTF form", c, t,
                                oroya_interpolation_name(tr->interpolation));
                break;
            }
            static const char *const paths[] = {"translation", "rotation", "scale", "weights"};
            if ((unsigned)tr->property > 3u) {
                r = oroya__fail(w->err, OROYA_ERR_UNKNOWN_PROPERTY,
                                "clips[%u].tracks[%u]: unknown property", c, t);
                break;
            }
            if (dense != OROYA_GLTF_NONE && w->gidx[dense] == OROYA_GLTF_NONE) {
                r = oroya__fail(w->err, OROYA_ERR_UNSUPPORTED,
                                "clips[%u].tracks[%u]: target is a primitive node folded into "
                                "its parent's mesh",
                                c, t);
                break;
            }
            uint32_t node = dense != OROYA_GLTF_NONE ? w->gidx[dense] : extra_tree(w, outside);
            /* What glTF asks of a sampler and a channel that an oroya clip need not hold (the
             * reader refuses such files): key times from 0 on, morph weights on a node whose
             * mesh has that many targets. */
            if (tr->key_count && !(tr->times[0] >= 0)) {
                r = oroya__fail(w->err, OROYA_ERR_BAD_TIMES,
                                "clips[%u].tracks[%u] (target \"%s\"): key 0 time %.9g is "
                                "negative (glTF key times start at 0)",
                                c, t, tr->target, (double)tr->times[0]);
                break;
            }
            if (tr->property == OROYA_PROPERTY_WEIGHTS) {
                const uint32_t targets = written_morph_targets(w, node);
                if (targets != tr->components) {
                    r = oroya__fail(w->err, OROYA_ERR_VALUE_COUNT,
                                    "clips[%u].tracks[%u] (target \"%s\"): %u morph weights, "
                                    "and the node's mesh has %u morph targets",
                                    c, t, tr->target, tr->components, targets);
                    break;
                }
            }
            /* A cubic spline of one key is that key's value at every time, and glTF's
             * CUBICSPLINE needs two keys: written as one LINEAR key. */
            const bool one_cubic =
                tr->interpolation == OROYA_INTERP_CUBICSPLINE && tr->key_count == 1;
            if (one_cubic) {
                interp = "LINEAR";
            }
            const float *values = one_cubic ? tr->values + tr->components : tr->values;
            uint32_t stride = one_cubic ? tr->components : oroya_track_key_stride(tr);
            uint32_t in = time_input(w, &inputs, tr->times, tr->key_count);
            /* Weights outputs are SCALAR: key_count * targets (* 3) elements. */
            const bool shorts = d->snorm16_rotations && tr->property == OROYA_PROPERTY_ROTATION &&
                                tr->interpolation != OROYA_INTERP_CUBICSPLINE;
            uint32_t out =
                shorts ? snorm16_accessor(w, values, tr->key_count)
                : tr->property == OROYA_PROPERTY_WEIGHTS
                    ? floats_accessor(w, values, tr->key_count * stride, 1, false)
                    : floats_accessor(w, values, tr->key_count * (stride / tr->components),
                                      tr->components, false);
            cJSON *s = cJSON_CreateObject();
            cJSON *ch = cJSON_CreateObject();
            cJSON *target = ch ? cJSON_AddObjectToObject(ch, "target") : NULL;
            if (!s || !ch || !target) {
                cJSON_Delete(s);
                cJSON_Delete(ch);
                r = oom(w);
                break;
            }
            add_number(w, s, "input", in);
            add_number(w, s, "output", out);
            w->oom |= cJSON_AddStringToObject(s, "interpolation", interp) == NULL;
            cJSON_AddItemToArray(samplers, s);
            add_number(w, ch, "sampler", sampler_count++);
            add_number(w, target, "node", node);
            w->oom |= cJSON_AddStringToObject(target, "path", paths[tr->property]) == NULL;
            cJSON_AddItemToArray(channels, ch);
        }
    }
    oroya__free(&w->a, first);
    oroya__free(&w->a, inputs_mem);
    oroya__free(&w->a, ti.scene);
    oroya__free(&w->a, ti.outside);
    if (r == OROYA_OK && w->oom) {
        r = oom(w);
    }
    return r;
}

/* Whether the model's texture i is written: it had no source in the file (written as it
 * was), or its image is written (import kept its bytes: not with skip_images). A texture
 * whose image is left out would have lost its source, and three.js's loader refuses a file
 * whose material names such a texture, so it and the material slots that name it are left
 * out. */
/* Whether an image is written: import kept its bytes and they are PNG or JPEG, the two
 * formats core glTF holds (a WebP or KTX2 image needs an extension oroya does not write:
 * written without it, the file was invalid). */
static bool image_written(const oroya_gltf_image_data *im) {
    return im->encoded && im->mime_type &&
           (!strcmp(im->mime_type, "image/png") || !strcmp(im->mime_type, "image/jpeg"));
}

static bool texture_written(const oroya_gltf_model *m, uint32_t i) {
    if (!m || i >= m->texture_count) {
        return false;
    }
    const uint32_t im = m->textures[i].image;
    return im == OROYA_GLTF_NONE || (im < m->image_count && image_written(&m->images[im]));
}

/* The written index of the model's texture i (textures are written in the model's order,
 * those texture_written refuses left out), or NONE. */
static uint32_t texture_index(const oroya_gltf_model *m, uint32_t i) {
    if (!texture_written(m, i)) {
        return OROYA_GLTF_NONE;
    }
    uint32_t k = 0;
    for (uint32_t j = 0; j < i; j++) {
        k += texture_written(m, j);
    }
    return k;
}

static int32_t write_material(writer *w, scene_tables *t, const oroya_material *mat,
                              const char *name, const oroya_gltf_model_material *mm) {
    uint32_t mi = map_put(&t->materials, mat, NULL, NULL, t->material_count);
    if (mi != OROYA_GLTF_NONE) {
        return (int32_t)mi;
    }
    t->material_array = t->material_array ? t->material_array : add_array(w, w->root, "materials");
    cJSON *m = cJSON_CreateObject();
    cJSON *pbr = m ? cJSON_AddObjectToObject(m, "pbrMetallicRoughness") : NULL;
    if (!m || !pbr || !t->material_array) {
        cJSON_Delete(m);
        w->oom = true;
        return -1;
    }
    add_name(w, m, name);
    cJSON_AddItemToObject(pbr, "baseColorFactor", float_array(w, mat->base_color, 4));
    add_number(w, pbr, "metallicFactor", (double)mat->metallic);
    add_number(w, pbr, "roughnessFactor", (double)mat->roughness);
    const uint32_t base_tex = mm && mm->base_color_texture != OROYA_GLTF_NONE
                                  ? texture_index(w->model, mm->base_color_texture)
                                  : OROYA_GLTF_NONE;
    if (base_tex != OROYA_GLTF_NONE) {
        cJSON *tex = cJSON_AddObjectToObject(pbr, "baseColorTexture");
        w->oom |= tex == NULL;
        if (tex) {
            add_number(w, tex, "index", base_tex);
            if (mm->base_color_texcoord) {
                add_number(w, tex, "texCoord", mm->base_color_texcoord);
            }
        }
    }
    if (mat->double_sided) {
        w->oom |= cJSON_AddTrueToObject(m, "doubleSided") == NULL;
    }
    cJSON_AddItemToArray(t->material_array, m);
    return (int32_t)t->material_count++;
}

/* The index in model->geometries of a geometry the model made, or NONE. */
static uint32_t model_geometry(const writer *w, const oroya_geometry *g) {
    return w->model ? map_get(&w->geometries, g, NULL, NULL) : OROYA_GLTF_NONE;
}

static int32_t material_index(writer *w, scene_tables *t, const oroya_geometry *g,
                              const oroya_material *mat) {
    if (!mat) {
        return -1;
    }
    uint32_t k = model_geometry(w, g);
    if (k != OROYA_GLTF_NONE && w->model->geometry_material[k] == OROYA_GLTF_NONE &&
        map_get(&t->materials, mat, NULL, NULL) == OROYA_GLTF_NONE) {
        return -1; /* the file's primitive had no material: import's default stays implicit */
    }
    return write_material(w, t, mat, NULL, NULL);
}

static const oroya_skin *node_skin(const oroya_scene *scene, oroya_node h) {
    const oroya_skin *skin = (const oroya_skin *)oroya_scene_get_skin(scene, h);
    return skin && skin->skeleton ? skin : NULL;
}

/* Import turns a glTF mesh with several primitives into unnamed child nodes, one per
 * primitive, of kind MESH or SKINNED_MESH, identity transform, no children, ahead of the
 * node's other children. Export folds such a run (two or more) back into one mesh. */
static bool is_primitive_node(const oroya_scene *scene, uint32_t dense) {
    oroya_node h = oroya_scene_node_at(scene, dense);
    oroya_node_kind kind;
    oroya_transform t;
    const oroya_geometry *g = NULL;
    if (oroya_scene_node_name(scene, h)[0] || oroya_scene_child_count(scene, h) != 0 ||
        oroya_scene_node_kind(scene, h, &kind) != OROYA_OK ||
        (kind != OROYA_NODE_MESH && kind != OROYA_NODE_SKINNED_MESH) ||
        oroya_scene_get_mesh(scene, h, &g, NULL) != OROYA_OK || !g) {
        return false;
    }
    oroya_scene_get_transform(scene, h, &t);
    return t.translation.x == 0 && t.translation.y == 0 && t.translation.z == 0 &&
           t.rotation.x == 0 && t.rotation.y == 0 && t.rotation.z == 0 && t.rotation.w == 1 &&
           t.scale.x == 1 && t.scale.y == 1 && t.scale.z == 1;
}

/* The skin of skeleton `sk`, written once. name and root (a dense index or NONE) come from
 * the model when the skeleton is one of its skins'. `where` names the place for errors. */
static oroya_result write_skin(writer *w, scene_tables *t, const oroya_skeleton *sk,
                               const char *name, uint32_t root, const char *where, uint32_t *out) {
    *out = map_put(&t->skeletons, sk, NULL, NULL, t->skeleton_count);
    if (*out != OROYA_GLTF_NONE) {
        return OROYA_OK;
    }
    *out = t->skeleton_count++;
    t->skin_array = t->skin_array ? t->skin_array : add_array(w, w->root, "skins");
    cJSON *s = cJSON_CreateObject();
    cJSON *joints = s ? cJSON_AddArrayToObject(s, "joints") : NULL;
    if (!t->skin_array || !s || !joints) {
        cJSON_Delete(s);
        return oom(w);
    }
    add_name(w, s, name);
    for (uint32_t b = 0; b < sk->bone_count; b++) {
        uint32_t bi = oroya_scene_node_index(w->scene, sk->bones[b]);
        uint32_t gi = bi == OROYA_SCENE_NO_INDEX ? OROYA_GLTF_NONE : w->gidx[bi];
        if (gi == OROYA_GLTF_NONE) {
            cJSON_Delete(s);
            return oroya__fail(w->err, OROYA_ERR_STALE_HANDLE,
                               "%s: skin bone %u is not a node of the written scene", where, b);
        }
        cJSON_AddItemToArray(joints, cJSON_CreateNumber(gi));
    }
    add_number(w, s, "inverseBindMatrices",
               floats_accessor(w, sk->bone_inverses[0].m, sk->bone_count, 16, false));
    if (root != OROYA_GLTF_NONE && w->gidx[root] != OROYA_GLTF_NONE) {
        add_number(w, s, "skeleton", w->gidx[root]);
    }
    cJSON_AddItemToArray(t->skin_array, s);
    return OROYA_OK;
}

/* The name a node is written with: with a model, a node that still has the scene name import
 * gave it gets its file name back (duplicates and unnamed nodes included). */
static const char *node_name(const writer *w, uint32_t dense, oroya_node h) {
    const char *name = oroya_scene_node_name(w->scene, h);
    uint32_t g = w->src ? w->src[dense] : OROYA_GLTF_NONE;
    if (g != OROYA_GLTF_NONE && !strcmp(name, w->model->node_names[g])) {
        return w->model->node_file_names[g];
    }
    return name;
}

/* A new entry of "meshes" (index t->mesh_count - 1 once made); returns its primitives
 * array, NULL when out of memory. */
static cJSON *add_mesh(writer *w, scene_tables *t, const char *name) {
    t->mesh_array = t->mesh_array ? t->mesh_array : add_array(w, w->root, "meshes");
    cJSON *mesh = cJSON_CreateObject();
    cJSON *prims = mesh ? cJSON_AddArrayToObject(mesh, "primitives") : NULL;
    if (!t->mesh_array || !mesh || !prims) {
        cJSON_Delete(mesh);
        return NULL;
    }
    add_name(w, mesh, name);
    cJSON_AddItemToArray(t->mesh_array, mesh);
    t->mesh_count++;
    return prims;
}

/* What follows "mesh" on node i: its morph weights (when they match the first primitive's
 * targets) and its skin. */
static oroya_result mesh_node_tail(writer *w, scene_tables *t, uint32_t i, cJSON *node,
                                   const oroya_geometry *g0, const oroya_skin *skin) {
    uint32_t wc = 0;
    const float *wts =
        oroya_scene_weights((oroya_scene *)w->scene, oroya_scene_node_at(w->scene, i), &wc);
    if (wts && wc && g0 && wc == g0->morph_target_count) {
        cJSON_AddItemToObject(node, "weights", float_array(w, wts, wc));
    }
    if (skin) {
        uint32_t si;
        char where[48];
        snprintf(where, sizeof where, "nodes[%u]", w->gidx[i]);
        TRY(write_skin(w, t, skin->skeleton, NULL, OROYA_GLTF_NONE, where, &si));
        add_number(w, node, "skin", si);
    } else if (w->src && w->src[i] != OROYA_GLTF_NONE && g0 &&
               model_geometry(w, g0) != OROYA_GLTF_NONE) {
        /* The file's skin that import bound nothing for (a joint outside the loaded scene):
         * written from the model (model_tables), so the node keeps it. */
        uint32_t s = w->model->node_skins[w->src[i]];
        if (s != OROYA_GLTF_NONE && !w->model->skeletons[s] && w->skin_index &&
            w->skin_index[s] != OROYA_GLTF_NONE) {
            add_number(w, node, "skin", w->skin_index[s]);
        }
    }
    return w->oom ? oom(w) : OROYA_OK;
}

/* A primitive import kept without geometry (points, lines, strips, fans): its mode,
 * POSITION and indices as the file had them. */
static void write_kept_primitive(writer *w, cJSON *prims, const oroya_gltf_model_primitive *kp,
                                 uint32_t material) {
    cJSON *attrs;
    cJSON *prim = new_primitive(w, &attrs);
    if (!prim) {
        return;
    }
    add_number(w, attrs, "POSITION", vertex_accessor(w, kp->positions, kp->vertex_count, 3, true));
    if (kp->indices) {
        add_number(w, prim, "indices", index_accessor(w, kp->indices, kp->index_count));
    }
    add_number(w, prim, "mode", kp->mode);
    if (material != OROYA_GLTF_NONE) {
        add_number(w, prim, "material", material); /* model materials keep their indices */
    }
    cJSON_AddItemToArray(prims, prim);
}

static uint32_t mesh_end(const oroya_gltf_model *m, uint32_t mesh) {
    return mesh + 1 < m->mesh_count ? m->mesh_first_geometry[mesh + 1] : m->geometry_count;
}

/* A mesh of the model that has a primitive without geometry, on dense node i (its
 * primitive children folded): written primitive by primitive from the model and the scene. */
static oroya_result write_model_mesh(writer *w, scene_tables *t, uint32_t i, uint32_t mesh,
                                     cJSON *node) {
    const oroya_gltf_model *m = w->model;
    uint32_t first = m->mesh_first_geometry[mesh], count = mesh_end(m, mesh) - first;
    cJSON *prims = add_mesh(w, t, m->mesh_names[mesh]);
    if (!prims) {
        return oom(w);
    }
    add_number(w, node, "mesh", t->mesh_count - 1);
    const oroya_skin *skin = NULL;
    const oroya_geometry *g0 = NULL;
    for (uint32_t p = 0; p < count; p++) {
        uint32_t k = first + p, dense = count == 1 ? i : i + 1 + p;
        oroya_node ph = oroya_scene_node_at(w->scene, dense);
        const oroya_geometry *pg = NULL;
        const oroya_material *pm = NULL;
        if (m->primitives[k].positions) {
            write_kept_primitive(w, prims, &m->primitives[k], m->geometry_material[k]);
        } else if (oroya_scene_get_mesh(w->scene, ph, &pg, &pm) == OROYA_OK && pg) {
            const oroya_skin *ps = node_skin(w->scene, ph);
            skin = skin ? skin : ps;
            g0 = g0 ? g0 : pg;
            write_primitive(w, prims, pg, ps, material_index(w, t, pg, pm));
        }
    }
    return mesh_node_tail(w, t, i, node, g0, skin);
}

/* With a model: a node whose mesh has a primitive import made no geometry for gets that
 * mesh written from the model, its primitive children (unnamed, childless, identity, with
 * the model's geometries or none) folded. Sets model_mesh and prim_parent. */
static void fold_model_meshes(writer *w) {
    const oroya_gltf_model *m = w->model;
    const oroya_scene *scene = w->scene;
    const uint32_t *parents = oroya_scene_parent_indices(scene);
    for (uint32_t i = 0; i < w->node_count; i++) {
        uint32_t g = w->src[i];
        uint32_t mesh = g != OROYA_GLTF_NONE ? m->node_meshes[g] : OROYA_GLTF_NONE;
        if (mesh == OROYA_GLTF_NONE) {
            continue;
        }
        uint32_t first = m->mesh_first_geometry[mesh], count = mesh_end(m, mesh) - first;
        bool kept = false;
        for (uint32_t p = 0; p < count; p++) {
            kept |= m->primitives[first + p].positions != NULL;
        }
        if (!kept) {
            continue;
        }
        bool ok = true;
        for (uint32_t p = 0; ok && count > 1 && p < count; p++) {
            uint32_t c = i + 1 + p;
            oroya_node ch = oroya_scene_node_at(scene, c);
            const oroya_geometry *cg = NULL;
            oroya_transform tr;
            oroya_scene_get_mesh(scene, ch, &cg, NULL);
            oroya_scene_get_transform(scene, ch, &tr);
            oroya_transform id = oroya_transform_identity();
            ok = c < w->node_count && parents[c] == i && !oroya_scene_node_name(scene, ch)[0] &&
                 oroya_scene_child_count(scene, ch) == 0 && !memcmp(&tr, &id, sizeof tr) &&
                 cg == m->geometries[first + p];
        }
        if (!ok) {
            continue; /* the scene was changed: it is written as it is */
        }
        w->model_mesh[i] = mesh;
        for (uint32_t p = 0; count > 1 && p < count; p++) {
            w->prim_parent[i + 1 + p] = i;
        }
    }
}

/* The primitive nodes [a, a + count) and [b, b + count) show the same geometries with the
 * same materials and skins, in order. */
static bool same_primitives(const oroya_scene *scene, uint32_t a, uint32_t b, uint32_t count) {
    for (uint32_t p = 0; p < count; p++) {
        oroya_node ha = oroya_scene_node_at(scene, a + p), hb = oroya_scene_node_at(scene, b + p);
        const oroya_geometry *ga = NULL, *gb = NULL;
        const oroya_material *ma = NULL, *mb = NULL;
        oroya_scene_get_mesh(scene, ha, &ga, &ma);
        oroya_scene_get_mesh(scene, hb, &gb, &mb);
        const oroya_skin *sa = node_skin(scene, ha), *sb = node_skin(scene, hb);
        if (ga != gb || ma != mb || (sa != sb && !(sa && sb && same_influences(ga, sa, sb)))) {
            return false;
        }
    }
    return true;
}

/* The skin a mesh of geometry g shown by dense node `dense` (with skin) is keyed by: a skin
 * written on g earlier with the same influences (instances of one skinned mesh: import gives
 * each node its own skin copy, and the node, not the mesh, names the skin; with skins A, B, B
 * the two B nodes share a mesh), else its own. NULL for none. */
static const oroya_skin *skin_key(scene_tables *t, const oroya_scene *scene,
                                  const oroya_geometry *g, const oroya_skin *skin, uint32_t dense) {
    if (!skin) {
        return NULL;
    }
    /* The skins of other influences written on g so far, each compared (up to SKIN_KEYS of
     * them: a geometry shown with more distinct influences writes the rest a mesh each). */
    enum { SKIN_KEYS = 8 };
    uint32_t at = map_put(&t->skinned, g, NULL, NULL, dense), last = OROYA_GLTF_NONE;
    for (int k = 0; at != OROYA_GLTF_NONE && at != dense && k < SKIN_KEYS; k++) {
        const oroya_skin *earlier = node_skin(scene, oroya_scene_node_at(scene, at));
        if (earlier && same_influences(g, earlier, skin)) {
            return earlier;
        }
        last = at;
        at = t->next_skinned[at];
    }
    if (last != OROYA_GLTF_NONE && at == OROYA_GLTF_NONE) {
        t->next_skinned[last] = dense;
    }
    return skin;
}

static oroya_result write_node(writer *w, scene_tables *t, uint32_t i, cJSON *node) {
    const oroya_scene *scene = w->scene;
    oroya_node h = oroya_scene_node_at(scene, i);
    add_name(w, node, node_name(w, i, h));
    oroya_transform tr;
    oroya_scene_get_transform(scene, h, &tr);
    write_trs(w, node, &tr);
    if (w->model_mesh && w->model_mesh[i] != OROYA_GLTF_NONE) {
        return write_model_mesh(w, t, i, w->model_mesh[i], node);
    }
    /* The node's primitives: its own mesh, or the run of primitive children after it. */
    const oroya_geometry *g = NULL;
    const oroya_material *mat = NULL;
    uint32_t first = i, count = 0;
    if (oroya_scene_get_mesh(scene, h, &g, &mat) == OROYA_OK && g) {
        count = 1;
    } else {
        while (first + 1 + count < w->node_count && w->gidx[first + 1 + count] == OROYA_GLTF_NONE &&
               w->prim_parent[first + 1 + count] == i) {
            count++;
        }
        first = i + 1;
    }
    if (count == 0) {
        return OROYA_OK;
    }
    const oroya_skin *skin = node_skin(scene, oroya_scene_node_at(scene, first));
    uint32_t mesh_index = t->mesh_count;
    bool new_mesh = true;
    if (first == i) {
        /* Single primitive: share the mesh among nodes with the same geometry, material and
         * skin influences (skin_key). */
        uint32_t known = map_put(&t->meshes, g, mat, skin_key(t, scene, g, skin, i), mesh_index);
        if (known != OROYA_GLTF_NONE) {
            mesh_index = known;
            new_mesh = false;
        }
    } else {
        /* Several primitives (a glTF mesh import split into primitive children, one run per
         * node that shows it): share the mesh with an earlier run of as many primitives with
         * the same geometry, material and skin influences each, as the file did. */
        const oroya_geometry *pg = NULL;
        const oroya_material *pm = NULL;
        oroya_scene_get_mesh(scene, oroya_scene_node_at(scene, first), &pg, &pm);
        uint32_t known = map_put(&t->runs, pg, pm, skin_key(t, scene, pg, skin, first), first);
        if (known == OROYA_GLTF_NONE) {
            t->run_at[first] = (prim_run){mesh_index, count};
        } else if (t->run_at[known].count == count && same_primitives(scene, known, first, count)) {
            mesh_index = t->run_at[known].mesh;
            new_mesh = false;
        }
    }
    if (new_mesh) {
        const oroya_geometry *g0 = NULL;
        oroya_scene_get_mesh(scene, oroya_scene_node_at(scene, first), &g0, NULL);
        uint32_t k = model_geometry(w, g0);
        cJSON *prims =
            add_mesh(w, t, k != OROYA_GLTF_NONE ? w->model->mesh_names[w->geometry_mesh[k]] : NULL);
        if (!prims) {
            return oom(w);
        }
        for (uint32_t p = 0; p < count; p++) {
            oroya_node ph = oroya_scene_node_at(scene, first + p);
            const oroya_geometry *pg = NULL;
            const oroya_material *pm = NULL;
            oroya_scene_get_mesh(scene, ph, &pg, &pm);
            write_primitive(w, prims, pg, node_skin(scene, ph), material_index(w, t, pg, pm));
        }
    }
    add_number(w, node, "mesh", mesh_index);
    g = NULL;
    oroya_scene_get_mesh(scene, oroya_scene_node_at(scene, first), &g, NULL);
    return mesh_node_tail(w, t, i, node, g, skin);
}

/* A camera of the model as the file had it (its name, an unset aspect ratio, an infinite
 * zfar, the field of view in radians), written once; its index, NONE when out of memory. */
static uint32_t model_camera(writer *w, scene_tables *t, const oroya_gltf_model_camera *mc) {
    uint32_t known = map_put(&t->cameras, mc, NULL, NULL, t->camera_count);
    if (known != OROYA_GLTF_NONE) {
        return known;
    }
    t->camera_array = t->camera_array ? t->camera_array : add_array(w, w->root, "cameras");
    cJSON *cj = cJSON_CreateObject();
    cJSON *o =
        cj ? cJSON_AddObjectToObject(cj, mc->orthographic ? "orthographic" : "perspective") : NULL;
    if (!t->camera_array || !cj || !o ||
        !cJSON_AddStringToObject(cj, "type", mc->orthographic ? "orthographic" : "perspective")) {
        cJSON_Delete(cj);
        w->oom = true;
        return OROYA_GLTF_NONE;
    }
    add_name(w, cj, mc->name);
    if (mc->orthographic) {
        add_number(w, o, "xmag", (double)mc->xmag);
        add_number(w, o, "ymag", (double)mc->ymag);
    } else {
        add_number(w, o, "yfov", (double)mc->yfov);
        if (mc->aspect_ratio != 0.0f) {
            add_number(w, o, "aspectRatio", (double)mc->aspect_ratio);
        }
    }
    add_number(w, o, "znear", (double)mc->znear);
    if (mc->orthographic || mc->zfar != 0.0f) {
        add_number(w, o, "zfar", (double)mc->zfar);
    }
    cJSON_AddItemToArray(t->camera_array, cj);
    return t->camera_count++;
}

static oroya_result write_camera(writer *w, scene_tables *t, uint32_t dense, cJSON *node) {
    oroya_camera cam;
    if (oroya_scene_get_camera(w->scene, oroya_scene_node_at(w->scene, dense), &cam) != OROYA_OK) {
        return OROYA_OK;
    }
    /* A camera import made and nobody changed is written as the file had it: its name,
     * an unset aspect ratio, an infinite zfar, the field of view in radians. */
    uint32_t g = w->src ? w->src[dense] : OROYA_GLTF_NONE;
    uint32_t c = g != OROYA_GLTF_NONE ? w->model->node_cameras[g] : OROYA_GLTF_NONE;
    const oroya_gltf_model_camera *mc =
        c != OROYA_GLTF_NONE && !memcmp(&cam, &w->model->cameras[c].camera, sizeof cam)
            ? &w->model->cameras[c]
            : NULL;
    if (mc) {
        uint32_t index = model_camera(w, t, mc);
        if (index != OROYA_GLTF_NONE) {
            add_number(w, node, "camera", index);
        }
        return w->oom ? oom(w) : OROYA_OK;
    }
    t->camera_array = t->camera_array ? t->camera_array : add_array(w, w->root, "cameras");
    cJSON *o = NULL, *cj = cJSON_CreateObject();
    if (!t->camera_array || !cj) {
        cJSON_Delete(cj);
        return oom(w);
    }
    bool ortho = cam.type == OROYA_CAMERA_ORTHOGRAPHIC;
    o = cJSON_AddObjectToObject(cj, ortho ? "orthographic" : "perspective");
    w->oom |= !o || !cJSON_AddStringToObject(cj, "type", ortho ? "orthographic" : "perspective");
    if (o && ortho) {
        add_number(w, o, "xmag", (double)cam.right);
        add_number(w, o, "ymag", (double)cam.top);
    } else if (o) {
        add_number(w, o, "yfov", (double)cam.fov_y * (3.141592653589793 / 180.0));
        add_number(w, o, "aspectRatio", (double)cam.aspect);
    }
    if (o) {
        add_number(w, o, "znear", (double)cam.znear);
        add_number(w, o, "zfar", (double)cam.zfar);
    }
    cJSON_AddItemToArray(t->camera_array, cj);
    add_number(w, node, "camera", t->camera_count++);
    return w->oom ? oom(w) : OROYA_OK;
}

/* What a node of the model outside the loaded scene shows, from the model: its glTF mesh
 * (written once for all such nodes: every primitive from the model's geometry, or as import
 * kept it, with the model's material index), its own morph weights, its skin (model_tables
 * wrote every skin) and its camera as the file had it. */
static void extra_parts(writer *w, uint32_t gltf, cJSON *node) {
    const oroya_gltf_model *m = w->model;
    scene_tables *t = &w->t;
    uint32_t mesh = m->node_meshes[gltf];
    if (mesh != OROYA_GLTF_NONE && mesh < m->mesh_count) {
        if (w->extra_mesh[mesh] == OROYA_GLTF_NONE) {
            cJSON *prims = add_mesh(w, t, m->mesh_names[mesh]);
            if (!prims) {
                w->oom = true;
                return;
            }
            for (uint32_t k = m->mesh_first_geometry[mesh]; k < mesh_end(m, mesh); k++) {
                uint32_t mat = m->geometry_material[k];
                if (m->primitives[k].positions) {
                    write_kept_primitive(w, prims, &m->primitives[k], mat);
                } else if (m->geometries[k]) {
                    write_primitive(w, prims, m->geometries[k], NULL,
                                    mat == OROYA_GLTF_NONE ? -1 : (int32_t)mat);
                }
            }
            w->extra_mesh[mesh] = t->mesh_count - 1;
        }
        add_number(w, node, "mesh", w->extra_mesh[mesh]);
        /* Its own weights: a bisection of the model's list, sorted by node. */
        uint32_t lo = 0, hi = m->outside_weight_count;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (m->outside_weights[mid].node < gltf) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo < m->outside_weight_count && m->outside_weights[lo].node == gltf) {
            cJSON_AddItemToObject(
                node, "weights",
                float_array(w, m->outside_weights[lo].weights, m->outside_weights[lo].count));
        }
        uint32_t s = m->node_skins[gltf];
        if (s != OROYA_GLTF_NONE && w->skin_index && w->skin_index[s] != OROYA_GLTF_NONE) {
            add_number(w, node, "skin", w->skin_index[s]);
        }
    }
    uint32_t c = m->node_cameras[gltf];
    if (c != OROYA_GLTF_NONE && c < m->camera_count) {
        uint32_t index = model_camera(w, t, &m->cameras[c]);
        if (index != OROYA_GLTF_NONE) {
            add_number(w, node, "camera", index);
        }
    }
}

/* With a model: which glTF node each dense index came from, which mesh each geometry
 * belongs to. */
static oroya_result model_sources(writer *w) {
    const oroya_gltf_model *m = w->model;
    uint32_t n = w->node_count;
    w->src = (uint32_t *)oroya__alloc(&w->a, ((size_t)n + 1) * sizeof(uint32_t), 16);
    w->model_mesh = (uint32_t *)oroya__alloc(&w->a, ((size_t)n + 1) * sizeof(uint32_t), 16);
    w->geometry_mesh =
        (uint32_t *)oroya__alloc(&w->a, ((size_t)m->geometry_count + 1) * sizeof(uint32_t), 16);
    if (!w->src || !w->model_mesh || !w->geometry_mesh ||
        !map_init(w, &w->geometries, m->geometry_count)) {
        return oom(w);
    }
    for (uint32_t i = 0; i < n; i++) {
        w->src[i] = w->model_mesh[i] = OROYA_GLTF_NONE;
    }
    for (uint32_t i = 0; i < m->node_count; i++) {
        uint32_t dense = oroya_scene_node_index(w->scene, m->nodes[i]);
        if (dense != OROYA_SCENE_NO_INDEX && dense < n) {
            w->src[dense] = i;
        }
    }
    for (uint32_t mesh = 0; mesh < m->mesh_count; mesh++) {
        uint32_t end =
            mesh + 1 < m->mesh_count ? m->mesh_first_geometry[mesh + 1] : m->geometry_count;
        for (uint32_t k = m->mesh_first_geometry[mesh]; k < end; k++) {
            w->geometry_mesh[k] = mesh;
            if (m->geometries[k]) {
                map_put(&w->geometries, m->geometries[k], NULL, NULL, k);
            }
        }
    }
    fold_model_meshes(w);
    return OROYA_OK;
}

/* With a model: its materials and skins, written first and in file order so that indices
 * and unused ones survive. */
static oroya_result model_tables(writer *w, scene_tables *t) {
    const oroya_gltf_model *m = w->model;
    for (uint32_t i = 0; i < m->material_count; i++) {
        write_material(w, t, &m->materials[i].material, m->materials[i].name, &m->materials[i]);
    }
    w->skin_index = (uint32_t *)oroya__alloc(&w->a, ((size_t)m->skin_count + 1) * 4, 16);
    w->skin_json = (cJSON **)oroya__calloc(&w->a, (size_t)m->skin_count + 1, sizeof(cJSON *), 16);
    if (!w->skin_index || !w->skin_json) {
        return oom(w);
    }
    for (uint32_t s = 0; s < m->skin_count; s++) {
        w->skin_index[s] = OROYA_GLTF_NONE;
        if (!m->skeletons[s]) {
            /* A joint outside the loaded scene: no skeleton; written from the model, its
             * joints and skeleton set once every node is written (finish_model_skins). */
            t->skin_array = t->skin_array ? t->skin_array : add_array(w, w->root, "skins");
            cJSON *o = cJSON_CreateObject();
            if (!t->skin_array || !o) {
                cJSON_Delete(o);
                return oom(w);
            }
            add_name(w, o, m->skins[s].name);
            if (m->skins[s].joint_count) {
                add_number(w, o, "inverseBindMatrices",
                           floats_accessor(w, m->skins[s].inverse_bind_matrices[0].m,
                                           m->skins[s].joint_count, 16, false));
            }
            cJSON_AddItemToArray(t->skin_array, o);
            w->skin_json[s] = o;
            w->skin_index[s] = t->skeleton_count++;
            continue;
        }
        uint32_t root = m->skins[s].skeleton.id
                            ? oroya_scene_node_index(w->scene, m->skins[s].skeleton)
                            : OROYA_GLTF_NONE;
        char where[32];
        snprintf(where, sizeof where, "skins[%u]", s);
        TRY(write_skin(w, t, m->skeletons[s], m->skins[s].name,
                       root == OROYA_SCENE_NO_INDEX ? OROYA_GLTF_NONE : root, where,
                       &w->skin_index[s]));
        /* write_skin appended it (each model skin has its own skeleton): the last item. */
        w->skin_json[s] = t->skin_array && t->skin_array->child ? t->skin_array->child->prev : NULL;
    }
    return w->oom ? oom(w) : OROYA_OK;
}

/* With a model: its images (as buffer views of the one buffer, in .gltf and .glb alike,
 * with their mimeType), samplers and textures, in file order. An image import did not keep
 * (skip_images) is left out, and so are its textures (texture_written). */
static oroya_result write_textures(writer *w) {
    const oroya_gltf_model *m = w->model;
    bool any = false;
    for (uint32_t i = 0; m && i < m->texture_count; i++) {
        any = any || texture_written(m, i);
    }
    if (!any) {
        return OROYA_OK;
    }
    uint32_t *written = (uint32_t *)oroya__alloc(&w->a, ((size_t)m->image_count + 1) * 4, 16);
    if (!written) {
        return oom(w);
    }
    cJSON *images = NULL, *samplers = NULL;
    uint32_t image_count = 0, sampler_count = 0;
    for (uint32_t i = 0; i < m->image_count && !w->oom; i++) {
        const oroya_gltf_image_data *im = &m->images[i];
        written[i] = OROYA_GLTF_NONE;
        if (!image_written(im)) {
            continue;
        }
        size_t off = blob_append(w, im->encoded, (size_t)im->encoded_size);
        images = images ? images : add_array(w, w->root, "images");
        cJSON *view = cJSON_CreateObject(), *img = cJSON_CreateObject();
        if (off == SIZE_MAX || !images || !view || !img) {
            cJSON_Delete(view);
            cJSON_Delete(img);
            w->oom = true;
            break;
        }
        add_number(w, view, "buffer", 0);
        add_number(w, view, "byteOffset", (double)off);
        add_number(w, view, "byteLength", (double)im->encoded_size);
        cJSON_AddItemToArray(w->views, view);
        add_name(w, img, im->name);
        add_number(w, img, "bufferView", w->view_count++);
        w->oom |= cJSON_AddStringToObject(img, "mimeType", im->mime_type) == NULL;
        cJSON_AddItemToArray(images, img);
        written[i] = image_count++;
    }
    cJSON *textures = add_array(w, w->root, "textures");
    for (uint32_t i = 0; i < m->texture_count && !w->oom; i++) {
        const oroya_gltf_model_texture *t = &m->textures[i];
        if (!texture_written(m, i)) {
            continue;
        }
        cJSON *tex = cJSON_CreateObject();
        if (!tex || !textures) {
            cJSON_Delete(tex);
            w->oom = true;
            break;
        }
        add_name(w, tex, t->name);
        if (t->image != OROYA_GLTF_NONE && t->image < m->image_count &&
            written[t->image] != OROYA_GLTF_NONE) {
            add_number(w, tex, "source", written[t->image]);
        }
        if (t->sampler) {
            samplers = samplers ? samplers : add_array(w, w->root, "samplers");
            cJSON *s = cJSON_CreateObject();
            if (!s || !samplers) {
                cJSON_Delete(s);
                w->oom = true;
            } else {
                add_name(w, s, t->sampler_name);
                if (t->mag_filter)
                    add_number(w, s, "magFilter", t->mag_filter);
                if (t->min_filter)
                    add_number(w, s, "minFilter", t->min_filter);
                if (t->wrap_s != 10497)
                    add_number(w, s, "wrapS", t->wrap_s);
                if (t->wrap_t != 10497)
                    add_number(w, s, "wrapT", t->wrap_t);
                cJSON_AddItemToArray(samplers, s);
                add_number(w, tex, "sampler", sampler_count++);
            }
        }
        cJSON_AddItemToArray(textures, tex);
    }
    oroya__free(&w->a, written);
    return w->oom ? oom(w) : OROYA_OK;
}

/* The roots of the model's scenes other than the loaded one: a node of the loaded scene by
 * its written index, any other with its subtree (extra_tree). */
static void write_other_scenes(writer *w, cJSON *scenes, uint32_t loaded) {
    const oroya_gltf_model *m = w->model;
    cJSON *o = scenes->child;
    for (uint32_t s = 0; o && s < m->scene_count && !w->oom; s++, o = o->next) {
        const oroya_gltf_model_scene *ms = &m->scenes[s];
        cJSON *roots = NULL;
        for (uint32_t r = 0; s != loaded && r < ms->node_count && !w->oom; r++) {
            uint32_t g = ms->nodes[r], index = OROYA_GLTF_NONE;
            if (m->nodes[g].id == 0) {
                index = extra_tree(w, g);
            } else {
                uint32_t dense = oroya_scene_node_index(w->scene, m->nodes[g]);
                index = dense < w->node_count ? w->gidx[dense] : OROYA_GLTF_NONE;
            }
            if (index == OROYA_GLTF_NONE) {
                continue; /* removed from the scene since import: left out */
            }
            roots = roots ? roots : add_array(w, o, "nodes"); /* never an empty array */
            if (roots) {
                w->oom |= !cJSON_AddItemToArray(roots, cJSON_CreateNumber(index));
            }
        }
    }
}

/* The written index of the model's glTF node g: its scene node's, or (outside the loaded
 * scene) written now with its subtree. NONE when it was removed from the scene. */
static uint32_t model_node_index(writer *w, uint32_t g) {
    if (w->model->nodes[g].id == 0) {
        return extra_tree(w, g);
    }
    uint32_t dense = oroya_scene_node_index(w->scene, w->model->nodes[g]);
    return dense < w->node_count ? w->gidx[dense] : OROYA_GLTF_NONE;
}

/* With a model: the trees of nodes no scene holds (roots in the file that are in no
 * scene), after the scenes' nodes, so that they keep their mesh, camera and skin. */
static oroya_result write_sceneless_nodes(writer *w) {
    const oroya_gltf_model *m = w->model;
    bool *child = (bool *)oroya__calloc(&w->a, (size_t)m->node_count + 1, sizeof(bool), 16);
    if (!child) {
        return oom(w);
    }
    for (uint32_t g = 0; g < m->node_count; g++) {
        for (uint32_t k = 0; k < m->node_child_counts[g]; k++) {
            child[m->node_children[g][k]] = true;
        }
    }
    for (uint32_t g = 0; g < m->node_count && !w->oom; g++) {
        if (!child[g] && m->nodes[g].id == 0 && w->extra_gidx[g] == OROYA_GLTF_NONE) {
            extra_tree(w, g);
        }
    }
    oroya__free(&w->a, child);
    return w->oom ? oom(w) : OROYA_OK;
}

/* With a model, once every node is written: the joints of the skins model_tables wrote
 * without a skeleton, and each skin's `skeleton` that lies outside the loaded scene. */
static oroya_result finish_model_skins(writer *w) {
    const oroya_gltf_model *m = w->model;
    for (uint32_t s = 0; s < m->skin_count && !w->oom; s++) {
        const oroya_gltf_model_skin *ms = &m->skins[s];
        cJSON *o = w->skin_json[s];
        if (!o) {
            continue;
        }
        if (!m->skeletons[s]) {
            cJSON *joints = cJSON_AddArrayToObject(o, "joints");
            if (!joints) {
                return oom(w);
            }
            for (uint32_t k = 0; k < ms->joint_count && !w->oom; k++) {
                uint32_t gi = model_node_index(w, ms->joint_gltf_nodes[k]);
                if (gi == OROYA_GLTF_NONE) {
                    return oroya__fail(w->err, OROYA_ERR_STALE_HANDLE,
                                       "skins[%u]: joint %u is not a node of the written scene", s,
                                       k);
                }
                w->oom |= !cJSON_AddItemToArray(joints, cJSON_CreateNumber(gi));
            }
        }
        if (ms->skeleton_gltf_node != OROYA_GLTF_NONE && !cJSON_HasObjectItem(o, "skeleton")) {
            uint32_t gi = model_node_index(w, ms->skeleton_gltf_node);
            if (gi != OROYA_GLTF_NONE) {
                add_number(w, o, "skeleton", gi);
            }
        }
    }
    return w->oom ? oom(w) : OROYA_OK;
}

static oroya_result write_scene(writer *w) {
    const oroya_scene *scene = w->scene;
    uint32_t n = oroya_scene_node_count(scene);
    const uint32_t *parents = oroya_scene_parent_indices(scene);
    uint32_t scene_count = w->model && w->model->scene_count ? w->model->scene_count : 1;
    uint32_t loaded = w->model && w->model->scene_count ? w->model->scene_index : 0;
    w->node_count = n;
    if (n == 0 && scene_count == 1 && (!w->model || w->model->node_count == 0)) {
        return OROYA_OK; /* glTF forbids empty arrays: an empty scene is just the asset */
    }
    w->nodes = n ? add_array(w, w->root, "nodes") : NULL;
    cJSON *scenes = add_array(w, w->root, "scenes");
    cJSON *scene0 = NULL, *roots = NULL;
    /* Every scene of the model in file order, the loaded one written from the scene. */
    for (uint32_t s = 0; scenes && s < scene_count; s++) {
        cJSON *o = cJSON_CreateObject();
        if (!o) {
            return oom(w);
        }
        cJSON_AddItemToArray(scenes, o);
        if (w->model && w->model->scene_count) {
            add_name(w, o, w->model->scenes[s].name);
        } else if (w->model) {
            add_name(w, o, w->model->scene_name);
        }
        if (s == loaded) {
            scene0 = o;
            roots = n ? cJSON_AddArrayToObject(o, "nodes") : NULL;
        }
    }
    if ((n && !w->nodes) || !scenes || !scene0 || (n && !roots) || (w->model && !extra_init(w))) {
        return oom(w);
    }
    add_number(w, w->root, "scene", loaded);
    scene_tables *t = &w->t;
    w->gidx = (uint32_t *)oroya__calloc(&w->a, (size_t)n + 1, sizeof(uint32_t), 16);
    w->prim_parent = (uint32_t *)oroya__calloc(&w->a, (size_t)n + 1, sizeof(uint32_t), 16);
    w->node_json = (cJSON **)oroya__calloc(&w->a, (size_t)n + 1, sizeof(cJSON *), 16);
    uint32_t things = n + (w->model ? w->model->material_count + w->model->skin_count : 0);
    oroya_result r = OROYA_OK;
    uint32_t cameras = n + (w->model ? w->model->camera_count : 0);
    t->run_at = (prim_run *)oroya__calloc(&w->a, (size_t)n + 1, sizeof(prim_run), 16);
    t->next_skinned = (uint32_t *)oroya__calloc(&w->a, (size_t)n + 1, sizeof(uint32_t), 16);
    if (!w->gidx || !w->prim_parent || !w->node_json || !t->run_at || !t->next_skinned ||
        !map_init(w, &t->meshes, n) || !map_init(w, &t->runs, n) || !map_init(w, &t->skinned, n) ||
        !map_init(w, &t->materials, things) || !map_init(w, &t->skeletons, things) ||
        !map_init(w, &t->cameras, cameras)) {
        r = oom(w);
    }
    for (uint32_t i = 0; r == OROYA_OK && i < n; i++) {
        w->prim_parent[i] = OROYA_GLTF_NONE;
        t->next_skinned[i] = OROYA_GLTF_NONE;
    }
    if (r == OROYA_OK && w->model) {
        r = model_sources(w);
    }
    /* glTF indices: dense order, without the primitive nodes folded into their parent. */
    for (uint32_t i = 0, next = 0; r == OROYA_OK && i < n; i++) {
        if (w->prim_parent[i] != OROYA_GLTF_NONE) {
            w->gidx[i] = OROYA_GLTF_NONE; /* folded into a mesh written from the model */
            continue;
        }
        w->gidx[i] = next++;
        w->gltf_node_count = next;
        uint32_t p = parents[i];
        const oroya_geometry *pg = NULL;
        if (p == OROYA_SCENE_NO_INDEX || !is_primitive_node(scene, i) ||
            (w->model_mesh && w->model_mesh[p] != OROYA_GLTF_NONE) ||
            (oroya_scene_get_mesh(scene, oroya_scene_node_at(scene, p), &pg, NULL) == OROYA_OK &&
             pg)) {
            continue;
        }
        /* Fold only a run of at least two leading primitive children. */
        bool run =
            (i > 0 && w->prim_parent[i - 1] == p) ||
            (i == p + 1 && i + 1 < n && parents[i + 1] == p && is_primitive_node(scene, i + 1));
        if (run) {
            w->prim_parent[i] = p;
            w->gidx[i] = OROYA_GLTF_NONE;
            next--;
            w->gltf_node_count = next;
        }
    }
    if (r == OROYA_OK && w->model) {
        r = model_tables(w, t);
    }
    for (uint32_t i = 0; r == OROYA_OK && i < n && !w->oom; i++) {
        if (w->gidx[i] == OROYA_GLTF_NONE) {
            continue;
        }
        cJSON *node = cJSON_CreateObject();
        if (!node) {
            r = oom(w);
            break;
        }
        cJSON_AddItemToArray(w->nodes, node);
        w->node_json[i] = node;
        if (parents[i] == OROYA_SCENE_NO_INDEX) {
            cJSON_AddItemToArray(roots, cJSON_CreateNumber(w->gidx[i]));
        } else {
            cJSON *ch = add_array(w, w->node_json[parents[i]], "children");
            if (ch) {
                cJSON_AddItemToArray(ch, cJSON_CreateNumber(w->gidx[i]));
            }
        }
        r = write_node(w, t, i, node);
        if (r == OROYA_OK) {
            r = write_camera(w, t, i, node);
        }
    }
    if (r == OROYA_OK && w->model) {
        write_other_scenes(w, scenes, loaded);
        r = write_sceneless_nodes(w);
    }
    if (r == OROYA_OK && w->model) {
        r = finish_model_skins(w);
    }
    if (r == OROYA_OK && w->oom) {
        r = oom(w);
    }
    return r;
}

/* Files are written whole or not at all: the bytes go to a new file in the target's folder
 * (".oroya-tmp-<pid>-<n>", created exclusively; a short name, so any target name that fits
 * the folder fits it too), which then replaces the target by rename(). A write that fails
 * (a full disk, a size limit) removes the new file and leaves the target as it was: an
 * in-place export that fails keeps its input. A target that exists keeps its permission
 * bits (a new one gets 0666 less the umask); a target that is a symbolic link has the file
 * it points to replaced, the link kept. */
typedef struct pending_file {
    char tmp[4200];
    char path[4200];
    bool open;
} pending_file;

static oroya_result write_temp(pending_file *pf, const char *path, const void *a, size_t na,
                               oroya_error *err) {
    static _Atomic unsigned counter;
    pf->open = false;
    /* Through a link to the file it names (rename would replace the link itself). */
    struct stat st;
    const bool exists = stat(path, &st) == 0;
    char *real = NULL;
    if (exists && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        real = realpath(path, NULL);
    }
    const int pl = snprintf(pf->path, sizeof pf->path, "%s", real ? real : path);
    free(real);
    if (pl < 0 || (size_t)pl >= sizeof pf->path) {
        return oroya__fail(err, OROYA_ERR_LIMIT, "%s: path too long", path);
    }
    if (exists && stat(pf->path, &st) == 0 && S_ISDIR(st.st_mode)) {
        return oroya__fail(err, OROYA_ERR_IO, "%s: is a directory", path);
    }
    const char *slash = strrchr(pf->path, '/');
    const int dir = slash ? (int)(slash - pf->path) + 1 : 0;
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
        const int n = snprintf(pf->tmp, sizeof pf->tmp, "%.*s.oroya-tmp-%ld-%u", dir, pf->path,
                               (long)getpid(), counter++);
        if (n < 0 || (size_t)n >= sizeof pf->tmp) {
            return oroya__fail(err, OROYA_ERR_LIMIT, "%s: path too long", path);
        }
        errno = 0;
        fd = open(pf->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) {
            return oroya__fail(err, OROYA_ERR_IO, "%s: cannot open for writing: %s", path,
                               strerror(errno ? errno : EIO));
        }
    }
    if (fd < 0) {
        return oroya__fail(err, OROYA_ERR_IO, "%s: cannot create a file in its folder", path);
    }
    pf->open = true;
    if (exists && stat(pf->path, &st) == 0) {
        (void)fchmod(fd, st.st_mode & 07777); /* the target's permissions, as rewriting it kept */
    }
    const char *p = a;
    size_t left = na;
    int saved = 0;
    while (left > 0 && !saved) {
        const ssize_t k = write(fd, p, left > ((size_t)1 << 30) ? ((size_t)1 << 30) : left);
        if (k > 0) {
            p += k, left -= (size_t)k;
        } else if (!(k < 0 && errno == EINTR)) {
            saved = k < 0 && errno ? errno : EIO;
        }
    }
    if (close(fd) != 0 && !saved) {
        saved = errno ? errno : EIO;
    }
    if (saved) {
        unlink(pf->tmp);
        pf->open = false;
        return oroya__fail(err, OROYA_ERR_IO, "%s: write failed: %s (the file is unchanged)", path,
                           strerror(saved));
    }
    return OROYA_OK;
}

/* The new file takes the target's name (or, on an earlier error, goes away). */
static oroya_result commit_temp(pending_file *pf, oroya_result r, oroya_error *err) {
    if (!pf->open) {
        return r;
    }
    pf->open = false;
    if (r != OROYA_OK) {
        unlink(pf->tmp);
        return r;
    }
    errno = 0;
    if (rename(pf->tmp, pf->path) != 0) {
        const int saved = errno ? errno : EIO;
        unlink(pf->tmp);
        return oroya__fail(err, OROYA_ERR_IO, "%s: cannot replace it: %s", pf->path,
                           strerror(saved));
    }
    return OROYA_OK;
}

/* A relative URI for a file name (RFC 3986): everything but the unreserved characters
 * percent-encoded, so '#', '?', '%', ':' and spaces survive. out holds 3 * strlen(in) + 1. */
static void percent_encode(const char *in, char *out) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *c = (const unsigned char *)in; *c; c++) {
        bool keep = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                    (*c >= '0' && *c <= '9') || *c == '-' || *c == '.' || *c == '_' || *c == '~';
        if (keep) {
            *out++ = (char)*c;
        } else {
            *out++ = '%';
            *out++ = hex[*c >> 4];
            *out++ = hex[*c & 15];
        }
    }
    *out = '\0';
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

oroya_result oroya_gltf_write(const oroya_scene *scene, const oroya_gltf_write_desc *desc,
                              const char *path, oroya_error *err) {
    if (!scene || !path) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_write: NULL argument");
    }
    static const oroya_gltf_write_desc defaults = {0};
    if (!desc) {
        desc = &defaults;
    }
    if (desc->clip_count && !desc->clips) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_write: clips is NULL");
    }
    if (desc->model && desc->model->scene != scene) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_gltf_write: desc.model is not the model of this scene");
    }
    writer w = {0};
    w.scene = scene;
    w.desc = desc;
    w.model = desc->model;
    w.a = desc->allocator;
    w.err = err;
    w.root = cJSON_CreateObject();
    cJSON *asset = w.root ? cJSON_AddObjectToObject(w.root, "asset") : NULL;
    w.views = w.root ? cJSON_CreateArray() : NULL;
    w.accessors = w.root ? cJSON_CreateArray() : NULL;
    oroya_result r = OROYA_OK;
    if (!asset || !w.views || !w.accessors || !cJSON_AddStringToObject(asset, "version", "2.0") ||
        !cJSON_AddStringToObject(asset, "generator", "oroya " OROYA_VERSION_STRING)) {
        r = oom(&w);
    }
    const char *copyright = desc->copyright ? desc->copyright
                            : desc->model   ? desc->model->copyright
                                            : NULL;
    if (r == OROYA_OK && copyright && copyright[0] &&
        !cJSON_AddStringToObject(asset, "copyright", copyright)) {
        r = oom(&w);
    }
    if (r == OROYA_OK)
        r = write_scene(&w);
    if (r == OROYA_OK)
        r = write_clips(&w);
    if (r == OROYA_OK)
        r = write_textures(&w);
    if (r == OROYA_OK) {
        char where[256] = "";
        r = check_tree(&w, w.root, NULL, where, 0, sizeof where);
    }
    char *json = NULL;
    char bin_name[512] = "", bin_uri[512 * 3] = "";
    if (r == OROYA_OK) {
        if (w.view_count) {
            if (w.accessor_count) {
                cJSON_AddItemToObject(w.root, "accessors", w.accessors);
                w.accessors = NULL;
            }
            cJSON_AddItemToObject(w.root, "bufferViews", w.views);
            w.views = NULL;
            cJSON *buffers = cJSON_AddArrayToObject(w.root, "buffers");
            cJSON *buf = cJSON_CreateObject();
            if (!buffers || !buf) {
                cJSON_Delete(buf);
                r = oom(&w);
            } else {
                cJSON_AddItemToArray(buffers, buf);
                add_number(&w, buf, "byteLength", (double)w.bin_size);
                if (!desc->binary) {
                    /* FILE.gltf -> FILE.bin, beside it, referenced by its base name. */
                    const char *base = strrchr(path, '/');
                    base = base ? base + 1 : path;
                    size_t len = strlen(base);
                    if (len > 5 && ext_is(base + len - 5, ".gltf")) { /* .GLTF too */
                        len -= 5;
                    }
                    if (len * 3 + 5 > sizeof bin_name) {
                        r = oroya__fail(err, OROYA_ERR_LIMIT, "%s: name too long", path);
                    } else {
                        memcpy(bin_name, base, len);
                        memcpy(bin_name + len, ".bin", 5);
                        percent_encode(bin_name, bin_uri);
                        w.oom |= cJSON_AddStringToObject(buf, "uri", bin_uri) == NULL;
                    }
                }
            }
        }
        if (r == OROYA_OK && !w.oom) {
            json = cJSON_PrintUnformatted(w.root);
        }
        if (r == OROYA_OK && !json) {
            r = oom(&w);
        }
    }
    if (r == OROYA_OK && desc->binary) {
        size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3;
        size_t bp = (w.bin_size + 3) & ~(size_t)3;
        size_t total = 12 + 8 + jp + (w.bin_size ? 8 + bp : 0);
        uint8_t *glb = (uint8_t *)oroya__alloc(&w.a, total, 16);
        if (!glb || total > UINT32_MAX) {
            oroya__free(&w.a, glb);
            r = total > UINT32_MAX ? oroya__fail(err, OROYA_ERR_LIMIT, "%s: over 4 GiB", path)
                                   : oom(&w);
        } else {
            memcpy(glb, "glTF", 4);
            put32(glb + 4, 2);
            put32(glb + 8, (uint32_t)total);
            put32(glb + 12, (uint32_t)jp);
            memcpy(glb + 16, "JSON", 4);
            memcpy(glb + 20, json, jl);
            memset(glb + 20 + jl, ' ', jp - jl);
            if (w.bin_size) {
                uint8_t *c = glb + 20 + jp;
                put32(c, (uint32_t)bp);
                memcpy(c + 4, "BIN\0", 4);
                memcpy(c + 8, w.bin, w.bin_size);
                memset(c + 8 + w.bin_size, 0, bp - w.bin_size);
            }
            pending_file pf;
            r = write_temp(&pf, path, glb, total, err);
            r = commit_temp(&pf, r, err);
            oroya__free(&w.a, glb);
        }
    } else if (r == OROYA_OK) {
        /* Both files written in full before either replaces its target, the .bin first. */
        pending_file pj = {.open = false}, pb = {.open = false};
        char bin_path[4096];
        r = write_temp(&pj, path, json, strlen(json), err);
        if (r == OROYA_OK && w.bin_size) {
            /* Beside `path` as given (a loader resolves the URI from the folder of the name
             * it opens, a link's included), as a plain write through a link did. */
            const char *slash = strrchr(path, '/');
            size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
            if (dir + strlen(bin_name) + 1 > sizeof bin_path) {
                r = oroya__fail(err, OROYA_ERR_LIMIT, "%s: path too long", path);
            } else {
                memcpy(bin_path, path, dir);
                memcpy(bin_path + dir, bin_name, strlen(bin_name) + 1);
                r = write_temp(&pb, bin_path, w.bin, w.bin_size, err);
            }
        }
        r = commit_temp(&pb, r, err);
        r = commit_temp(&pj, r, err);
    }
    cJSON_free(json);
    cJSON_Delete(w.root);
    cJSON_Delete(w.views);
    cJSON_Delete(w.accessors);
    oroya__free(&w.a, w.bin);
    oroya__free(&w.a, w.gidx);
    oroya__free(&w.a, w.prim_parent);
    oroya__free(&w.a, w.node_json);
    oroya__free(&w.a, w.src);
    oroya__free(&w.a, w.model_mesh);
    oroya__free(&w.a, w.geometry_mesh);
    oroya__free(&w.a, w.extra_gidx);
    oroya__free(&w.a, w.extra_stack);
    oroya__free(&w.a, w.extra_json);
    map_free(&w, &w.geometries);
    map_free(&w, &w.t.meshes);
    map_free(&w, &w.t.skinned);
    map_free(&w, &w.t.runs);
    oroya__free(&w.a, w.t.run_at);
    oroya__free(&w.a, w.t.next_skinned);
    map_free(&w, &w.t.materials);
    map_free(&w, &w.t.skeletons);
    map_free(&w, &w.t.cameras);
    oroya__free(&w.a, w.extra_mesh);
    oroya__free(&w.a, w.skin_index);
    oroya__free(&w.a, w.skin_json);
    return r;
}
