/* glTF import: validated glTF data -> oroya scene, clips, skins, geometries, materials and
 * decoded images, built the way three.js's GLTFLoader builds them (see oroya/gltf.h). */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/gltf.h"
#include "internal/pose_simd.h"

/* stb_image is compiled here with static linkage, so it cannot clash with another copy
 * elsewhere (the render layer). glTF core images are PNG or JPEG; the dimension cap keeps a
 * hostile header from asking for gigabytes. Its own warnings are not ours to fix. */
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS 16384
/* stb_image allocates through the importer's allocator (the desc's, zero = malloc). Its
 * macros take no context, so the allocator of the decode running on this thread is a
 * thread-local, set by decode_image before each stbi_ call. stb's realloc is the sized one:
 * a caller's allocator has no realloc, so it is a fresh block, a copy and a free. A refused
 * allocation is noted here: stb's failure reason does not say it (it tries the next format
 * and reports "unknown image type"). */
static _Thread_local const oroya_allocator *stbi_allocator_;
static _Thread_local bool stbi_out_of_memory_;
static void *stbi_alloc_(size_t size) {
    void *p = oroya__alloc(stbi_allocator_, size, 16);
    if (!p) {
        stbi_out_of_memory_ = true;
    }
    return p;
}
static void stbi_free_(void *p) { oroya__free(stbi_allocator_, p); }
static void *stbi_realloc_(void *p, size_t old_size, size_t new_size) {
    void *q = stbi_alloc_(new_size);
    if (q && p) {
        memcpy(q, p, old_size < new_size ? old_size : new_size);
    }
    if (q) {
        oroya__free(stbi_allocator_, p);
    }
    return q;
}
#define STBI_MALLOC(size) stbi_alloc_(size)
#define STBI_FREE(p) stbi_free_(p)
#define STBI_REALLOC_SIZED(p, old_size, new_size) stbi_realloc_(p, old_size, new_size)
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
/* GCC reports static prototypes stb never defines (GIF, thread-local flags) at the end of
 * the file, after the pop, so that one warning stays off for this file. */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

#define PATH_MAX_ 160

typedef struct model_impl {
    oroya_gltf_model pub; /* first: the public pointer is this struct */
    oroya_allocator allocator;
    oroya__gltf_block *blocks;       /* arrays and names the model owns */
    oroya_material default_material; /* GLTFLoader's default: white, metallic 1, rough 1 */
    oroya__name_index *by_name;      /* node_names sorted, for find_node in O(log n) */
} model_impl;

typedef struct importer {
    const oroya_gltf_data *d;
    const oroya_gltf_import_desc *desc;
    model_impl *m;
    oroya_error *err;
    oroya__gltf_block *temp;  /* scratch released after each step */
    uint64_t budget, decoded; /* bytes import may decode, and decoded so far */
} importer;

/* A small file can name one accessor from thousands of primitives or channels, or hold a
 * tiny PNG of 16384 x 16384 pixels, so the decoded total is bounded by what the file backs:
 * the unbacked-accessor allowance plus 32 bytes per byte of buffer and image data. Real
 * models decode to a few times their size (vertex arrays, RGBA8 textures). */
#define IMPORT_BYTES_PER_FILE_BYTE 32u
/* What a scene node costs, counted for the nodes the file does not write itself (one per
 * primitive of a multi-primitive mesh, per node showing it). */
#define IMPORT_SCENE_NODE_BYTES 1024u

static oroya_result spend(importer *im, uint64_t bytes, const char *path) {
    im->decoded += bytes;
    if (im->decoded > im->budget) {
        return oroya__fail(im->err, OROYA_ERR_LIMIT,
                           "%s: import would decode more than %llu bytes, the limit for a file "
                           "of this size",
                           path, (unsigned long long)im->budget);
    }
    return OROYA_OK;
}

static void *model_alloc(importer *im, size_t count, size_t size) {
    return oroya__arena_alloc(&im->m->allocator, &im->m->blocks, count ? count : 1, size);
}

static void *temp_alloc(importer *im, size_t count, size_t size) {
    return oroya__arena_alloc(&im->m->allocator, &im->temp, count ? count : 1, size);
}

static void temp_release(importer *im) { oroya__arena_release(&im->m->allocator, &im->temp); }

static oroya_result oom(importer *im, const char *path) {
    return oroya__fail(im->err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
}

/* Puts "path: " in front of the message a callee left in err. */
static oroya_result prefixed(importer *im, oroya_result r, const char *path) {
    if (im->err) {
        char msg[OROYA_ERROR_MESSAGE_MAX];
        memcpy(msg, im->err->message, sizeof msg);
        msg[sizeof msg - 1] = '\0';
        oroya__fail(im->err, r, "%s: %s", path, msg);
    }
    return r;
}

/* A decoded accessor in scratch memory: floats, or (uints) unsigned integers; both are 4
 * bytes a value. */
static oroya_result temp_decode(importer *im, uint32_t accessor, const char *path, bool uints,
                                void **out, size_t *count) {
    size_t n = oroya_gltf_accessor_float_count(im->d, accessor);
    TRY(spend(im, (uint64_t)n * 4u, path));
    void *v = temp_alloc(im, n, 4);
    if (!v) {
        return oom(im, path);
    }
    TRY(uints ? oroya_gltf_accessor_unpack_uints(im->d, accessor, (uint32_t *)v, n, im->err)
              : oroya_gltf_accessor_unpack_floats(im->d, accessor, (float *)v, n, im->err));
    *out = v;
    if (count) {
        *count = n;
    }
    return OROYA_OK;
}

static oroya_result temp_floats(importer *im, uint32_t accessor, const char *path, float **out,
                                size_t *count) {
    void *v = NULL;
    TRY(temp_decode(im, accessor, path, false, &v, count));
    *out = (float *)v;
    return OROYA_OK;
}

static oroya_result temp_uints(importer *im, uint32_t accessor, const char *path, uint32_t **out,
                               size_t *count) {
    void *v = NULL;
    TRY(temp_decode(im, accessor, path, true, &v, count));
    *out = (uint32_t *)v;
    return OROYA_OK;
}

/* ---- names (docs/scenario.md, "glTF scenarios") --------------------------------------------- */

/* "<prefix><digits>", decimal digits only. */
static bool is_prefixed_number(const char *s, const char *prefix, uint32_t *value) {
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0 || s[n] == '\0') {
        return false;
    }
    uint64_t v = 0;
    for (const char *c = s + n; *c; c++) {
        if (*c < '0' || *c > '9') {
            return false;
        }
        v = v * 10u + (uint64_t)(*c - '0');
        if (v > UINT32_MAX) {
            v = UINT32_MAX; /* saturate: no real index is that large */
        }
    }
    if (value) {
        *value = (uint32_t)v;
    }
    return true;
}

int oroya__name_index_compare(const void *a, const void *b) {
    const oroya__name_index *x = (const oroya__name_index *)a, *y = (const oroya__name_index *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

uint32_t oroya__name_index_find(const oroya__name_index *e, uint32_t n, const char *name) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(e[mid].name, name) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n && !strcmp(e[lo].name, name) ? e[lo].index : OROYA_GLTF_NONE;
}

/* unique[i] = names[i] is non-empty and appears once. Sorting keeps this O(n log n). */
static oroya_result mark_unique(importer *im, const char *const *names, uint32_t n, bool *unique) {
    oroya__name_index *refs = (oroya__name_index *)temp_alloc(im, n, sizeof(oroya__name_index));
    if (!refs) {
        return oom(im, "names");
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        unique[i] = false;
        if (names[i] && names[i][0]) {
            refs[k].name = names[i];
            refs[k].index = i;
            k++;
        }
    }
    qsort(refs, k, sizeof *refs, oroya__name_index_compare);
    for (uint32_t i = 0; i < k; i++) {
        bool dup = (i > 0 && !strcmp(refs[i].name, refs[i - 1].name)) ||
                   (i + 1 < k && !strcmp(refs[i].name, refs[i + 1].name));
        unique[refs[i].index] = !dup;
    }
    return OROYA_OK;
}

static char *model_strdup(importer *im, const char *s) {
    size_t n = strlen(s);
    char *c = (char *)model_alloc(im, n + 1, 1);
    if (c) {
        memcpy(c, s, n + 1);
    }
    return c;
}

static oroya_transform node_transform(const oroya_gltf_node *n);

static oroya_result make_node_names(importer *im) {
    const oroya_gltf_data *d = im->d;
    uint32_t n = d->node_count;
    const char **names = (const char **)temp_alloc(im, n, sizeof(char *));
    bool *unique = (bool *)temp_alloc(im, n, sizeof(bool));
    if (!names || !unique) {
        return oom(im, "nodes");
    }
    for (uint32_t i = 0; i < n; i++) {
        names[i] = d->nodes[i].name;
    }
    TRY(mark_unique(im, names, n, unique));
    for (uint32_t i = 0; i < n; i++) {
        const char *g = d->nodes[i].name;
        bool ok = unique[i] && !is_prefixed_number(g, "node_", NULL) &&
                  strncmp(g, "action:", 7) != 0 && strncmp(g, "skin:", 5) != 0;
        char fallback[24];
        snprintf(fallback, sizeof fallback, "node_%u", i);
        im->m->pub.node_names[i] = model_strdup(im, ok ? g : fallback);
        im->m->pub.node_file_names[i] = model_strdup(im, g ? g : "");
        /* Every node's camera and mesh, whatever scene holds it (or none): export
         * writes them back for nodes outside the loaded scene too. */
        im->m->pub.node_cameras[i] = d->nodes[i].camera;
        im->m->pub.node_meshes[i] = d->nodes[i].mesh;
        im->m->pub.node_transforms[i] = node_transform(&d->nodes[i]);
        if (!im->m->pub.node_names[i] || !im->m->pub.node_file_names[i]) {
            return oom(im, "nodes");
        }
    }
    oroya__name_index *sorted = (oroya__name_index *)model_alloc(im, n, sizeof(oroya__name_index));
    if (!sorted) {
        return oom(im, "nodes");
    }
    for (uint32_t i = 0; i < n; i++) {
        sorted[i] = (oroya__name_index){im->m->pub.node_names[i], i};
    }
    qsort(sorted, n, sizeof *sorted, oroya__name_index_compare);
    im->m->by_name = sorted;
    return OROYA_OK;
}

/* The clip name for animation i, in model memory (a glTF name of any length is kept). */
static oroya_result clip_names(importer *im, const char **out) {
    const oroya_gltf_data *d = im->d;
    uint32_t n = d->animation_count;
    const char **names = (const char **)temp_alloc(im, n, sizeof(char *));
    bool *unique = (bool *)temp_alloc(im, n, sizeof(bool));
    if (!names || !unique) {
        return oom(im, "animations");
    }
    for (uint32_t i = 0; i < n; i++) {
        names[i] = d->animations[i].name;
    }
    TRY(mark_unique(im, names, n, unique));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t other;
        const char *g = d->animations[i].name;
        bool ok = unique[i] && !(is_prefixed_number(g, "animation_", &other) && other != i);
        char fallback[32];
        snprintf(fallback, sizeof fallback, "animation_%u", i);
        out[i] = model_strdup(im, ok ? g : fallback);
        if (!out[i]) {
            return oom(im, "animations");
        }
    }
    return OROYA_OK;
}

/* ---- geometry, materials, images ---------------------------------------------------------- */

static const oroya_gltf_attribute *find_attr(const oroya_gltf_attribute *attrs, uint32_t n,
                                             oroya_gltf_attribute_kind kind, uint32_t set) {
    for (uint32_t i = 0; i < n; i++) {
        if (attrs[i].kind == kind && attrs[i].set == set) {
            return &attrs[i];
        }
    }
    return NULL;
}

/* Points, lines, strips and fans get no geometry; their positions and indices are kept in
 * model->primitives so that export can write them back. */
static oroya_result keep_primitive(importer *im, uint32_t mesh, uint32_t prim, uint32_t pos,
                                   const char *path) {
    const oroya_gltf_model *m = &im->m->pub;
    const oroya_gltf_primitive *p = &im->d->meshes[mesh].primitives[prim];
    oroya_gltf_model_primitive *o = &m->primitives[m->mesh_first_geometry[mesh] + prim];
    size_t n = oroya_gltf_accessor_float_count(im->d, pos);
    TRY(spend(im, (uint64_t)n * sizeof(float), path));
    o->positions = (float *)model_alloc(im, n, sizeof(float));
    if (!o->positions) {
        return oom(im, path);
    }
    TRY(oroya_gltf_accessor_unpack_floats(im->d, pos, o->positions, n, im->err));
    o->mode = p->mode;
    o->vertex_count = im->d->accessors[pos].count;
    if (p->indices != OROYA_GLTF_NONE) {
        size_t k = oroya_gltf_accessor_float_count(im->d, p->indices);
        TRY(spend(im, (uint64_t)k * sizeof(uint32_t), path));
        o->indices = (uint32_t *)model_alloc(im, k, sizeof(uint32_t));
        if (!o->indices) {
            return oom(im, path);
        }
        TRY(oroya_gltf_accessor_unpack_uints(im->d, p->indices, o->indices, k, im->err));
        o->index_count = (uint32_t)k;
        /* As a triangle primitive's indices are checked (geometry create): every index names a
         * vertex (export writes them back; a reader would read past the positions). */
        for (size_t i = 0; i < k; i++) {
            if (o->indices[i] >= o->vertex_count) {
                return oroya__fail(im->err, OROYA_ERR_OUT_OF_RANGE,
                                   "%s.indices: index %zu is %u, but there are %u vertices", path,
                                   i, o->indices[i], o->vertex_count);
            }
        }
    }
    return OROYA_OK;
}

/* An accessor decoded to floats into model memory (counted against the budget). */
static oroya_result keep_floats(importer *im, uint32_t accessor, const char *path, float **out) {
    size_t n = oroya_gltf_accessor_float_count(im->d, accessor);
    TRY(spend(im, (uint64_t)n * sizeof(float), path));
    *out = (float *)model_alloc(im, n, sizeof(float));
    if (!*out) {
        return oom(im, path);
    }
    return oroya_gltf_accessor_unpack_floats(im->d, accessor, *out, n, im->err);
}

/* TEXCOORD_1, TANGENT and COLOR_0 of a triangle primitive, kept for export. */
static oroya_result keep_extra_attributes(importer *im, uint32_t mesh, uint32_t prim,
                                          const char *path) {
    const oroya_gltf_model *m = &im->m->pub;
    const oroya_gltf_primitive *p = &im->d->meshes[mesh].primitives[prim];
    oroya_gltf_model_primitive *o = &m->primitives[m->mesh_first_geometry[mesh] + prim];
    const oroya_gltf_attribute *a;
    if ((a = find_attr(p->attributes, p->attribute_count, OROYA_GLTF_ATTR_TEXCOORD, 1))) {
        TRY(keep_floats(im, a->accessor, path, &o->texcoords1));
    }
    if ((a = find_attr(p->attributes, p->attribute_count, OROYA_GLTF_ATTR_TANGENT, 0))) {
        TRY(keep_floats(im, a->accessor, path, &o->tangents));
    }
    if ((a = find_attr(p->attributes, p->attribute_count, OROYA_GLTF_ATTR_COLOR, 0))) {
        const oroya_gltf_accessor *acc = &im->d->accessors[a->accessor];
        TRY(keep_floats(im, a->accessor, path, &o->colors));
        o->color_components = acc->type == OROYA_GLTF_VEC3 ? 3u : 4u;
        o->color_component_type = acc->component_type;
    }
    return OROYA_OK;
}

static oroya_result build_geometry(importer *im, uint32_t mesh, uint32_t prim,
                                   oroya_geometry **out) {
    const oroya_gltf_primitive *p = &im->d->meshes[mesh].primitives[prim];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "meshes[%u].primitives[%u]", mesh, prim);
    *out = NULL;
    const oroya_gltf_attribute *pos =
        find_attr(p->attributes, p->attribute_count, OROYA_GLTF_ATTR_POSITION, 0);
    if (p->mode != 4 && pos) {
        return keep_primitive(im, mesh, prim, pos->accessor, path);
    }
    if (p->mode != 4 || !pos) {
        return OROYA_OK; /* nothing to draw */
    }
    TRY(keep_extra_attributes(im, mesh, prim, path));
    oroya_geometry_desc g = {0};
    g.allocator = im->m->allocator;
    g.vertex_count = im->d->accessors[pos->accessor].count;
    float *f;
    TRY(temp_floats(im, pos->accessor, path, &f, NULL));
    g.positions = f;
    const oroya_gltf_attribute *a;
    if ((a = find_attr(p->attributes, p->attribute_count, OROYA_GLTF_ATTR_NORMAL, 0))) {
        TRY(temp_floats(im, a->accessor, path, &f, NULL));
        g.normals = f;
    }
    if ((a = find_attr(p->attributes, p->attribute_count, OROYA_GLTF_ATTR_TEXCOORD, 0))) {
        TRY(temp_floats(im, a->accessor, path, &f, NULL));
        g.uvs = f;
    }
    const oroya_gltf_attribute *j =
        find_attr(p->attributes, p->attribute_count, OROYA_GLTF_ATTR_JOINTS, 0);
    const oroya_gltf_attribute *w =
        find_attr(p->attributes, p->attribute_count, OROYA_GLTF_ATTR_WEIGHTS, 0);
    if (j && w) {
        uint32_t *u;
        size_t n;
        TRY(temp_uints(im, j->accessor, path, &u, &n));
        uint16_t *joints = (uint16_t *)temp_alloc(im, n, sizeof(uint16_t));
        if (!joints) {
            return oom(im, path);
        }
        for (size_t i = 0; i < n; i++) {
            joints[i] = (uint16_t)u[i]; /* JOINTS_n is u8 or u16 (validated) */
        }
        g.joints = joints;
        TRY(temp_floats(im, w->accessor, path, &f, NULL));
        g.weights = f;
    }
    if (p->indices != OROYA_GLTF_NONE) {
        uint32_t *u;
        size_t n;
        TRY(temp_uints(im, p->indices, path, &u, &n));
        g.indices = u;
        g.index_count = (uint32_t)n;
    }
    if (p->target_count) {
        size_t per = (size_t)g.vertex_count * 3;
        bool any_normal = false;
        TRY(spend(im, (uint64_t)per * p->target_count * 2 * sizeof(float), path));
        float *mp = (float *)temp_alloc(im, per * p->target_count, sizeof(float));
        if (!mp) {
            return oom(im, path);
        }
        for (uint32_t t = 0; t < p->target_count; t++) {
            const oroya_gltf_morph_target *mt = &p->targets[t];
            any_normal |=
                find_attr(mt->attributes, mt->attribute_count, OROYA_GLTF_ATTR_NORMAL, 0) != NULL;
            const oroya_gltf_attribute *tp =
                find_attr(mt->attributes, mt->attribute_count, OROYA_GLTF_ATTR_POSITION, 0);
            if (tp) {
                oroya_result r = oroya_gltf_accessor_unpack_floats(im->d, tp->accessor,
                                                                   mp + per * t, per, im->err);
                TRY(r ? prefixed(im, r, path) : OROYA_OK);
            }
        }
        g.morph_target_count = p->target_count;
        g.morph_positions = mp;
        if (any_normal && g.normals) {
            float *mn = (float *)temp_alloc(im, per * p->target_count, sizeof(float));
            if (!mn) {
                return oom(im, path);
            }
            for (uint32_t t = 0; t < p->target_count; t++) {
                const oroya_gltf_morph_target *mt = &p->targets[t];
                const oroya_gltf_attribute *tn =
                    find_attr(mt->attributes, mt->attribute_count, OROYA_GLTF_ATTR_NORMAL, 0);
                if (tn) {
                    oroya_result r = oroya_gltf_accessor_unpack_floats(im->d, tn->accessor,
                                                                       mn + per * t, per, im->err);
                    TRY(r ? prefixed(im, r, path) : OROYA_OK);
                }
            }
            g.morph_normals = mn;
        }
    }
    oroya_result r = oroya_geometry_create(&g, out, im->err);
    temp_release(im);
    return r ? prefixed(im, r, path) : OROYA_OK;
}

static oroya_result build_geometries(importer *im) {
    oroya_gltf_model *m = &im->m->pub;
    const oroya_gltf_data *d = im->d;
    uint32_t total = 0;
    for (uint32_t i = 0; i < d->mesh_count; i++) {
        total += d->meshes[i].primitive_count;
    }
    m->mesh_count = d->mesh_count;
    m->mesh_first_geometry = (uint32_t *)model_alloc(im, d->mesh_count, sizeof(uint32_t));
    m->geometries = (oroya_geometry **)model_alloc(im, total, sizeof(oroya_geometry *));
    m->geometry_material = (uint32_t *)model_alloc(im, total, sizeof(uint32_t));
    m->mesh_names = (const char **)model_alloc(im, d->mesh_count, sizeof(char *));
    m->primitives =
        (oroya_gltf_model_primitive *)model_alloc(im, total, sizeof(oroya_gltf_model_primitive));
    if (!m->mesh_first_geometry || !m->geometries || !m->geometry_material || !m->mesh_names ||
        !m->primitives) {
        return oom(im, "meshes");
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->mesh_count; i++) {
        m->mesh_first_geometry[i] = k;
        m->mesh_names[i] = model_strdup(im, d->meshes[i].name ? d->meshes[i].name : "");
        if (!m->mesh_names[i]) {
            return oom(im, "meshes");
        }
        for (uint32_t p = 0; p < d->meshes[i].primitive_count; p++, k++) {
            m->geometry_material[k] = d->meshes[i].primitives[p].material;
            TRY(build_geometry(im, i, p, &m->geometries[k]));
            m->geometry_count = k + 1; /* so a failure frees what was made */
        }
    }
    return OROYA_OK;
}

/* stb_image (Debian's 2022-09 snapshot) writes past its Huffman size table when a JPEG DHT
 * segment declares more than 256 codes; later upstream versions reject that. This walks the
 * JPEG markers the way stb reads them (segments by their length, entropy-coded data skipped
 * byte by byte, stuffed 0xFF00 and restart markers passed over) and refuses such a table
 * before stb sees it. Bytes past the end count as 0, as stb's reader returns them. */
static bool jpeg_huffman_tables_ok(const uint8_t *p, uint64_t n) {
    if (n < 2 || p[0] != 0xFF || p[1] != 0xD8) {
        return true; /* not a JPEG */
    }
    uint64_t i = 2;
    while (i + 1 < n) {
        if (p[i] != 0xFF) {
            i++;
            continue;
        }
        uint8_t m = p[i + 1];
        if (m == 0xFF) {
            i++;
            continue;
        }
        if (m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD8)) {
            i += 2;
            continue;
        }
        if (m == 0xD9) {
            break;
        }
        uint64_t len = i + 3 < n ? (uint64_t)p[i + 2] << 8 | p[i + 3] : 0;
        if (len < 2) {
            return false;
        }
        if (m == 0xC4) {
            uint64_t seg = i + 4, end = i + 2 + len, pos = seg;
            while (pos < end) {
                uint64_t codes = 0;
                for (uint64_t k = 1; k <= 16; k++) {
                    codes += pos + k < n ? p[pos + k] : 0;
                }
                if (codes > 256) {
                    return false;
                }
                pos += 17 + codes;
            }
        }
        i += 2 + len;
    }
    return true;
}

/* The media type of an image file from its first bytes ("" when neither PNG nor JPEG). */
static const char *sniff_mime(const uint8_t *b, uint64_t n) {
    if (n >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8)) {
        return "image/png";
    }
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) {
        return "image/jpeg";
    }
    return "";
}

/* Image i's name, media type and (unless skip_images) its file bytes as the file holds
 * them, copied into the model for export; the bytes count against the budget. */
static oroya_result keep_image(importer *im, uint32_t i) {
    const oroya_gltf_image *img = &im->d->images[i];
    oroya_gltf_image_data *out = &im->m->pub.images[i];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "images[%u]", i);
    out->name = model_strdup(im, img->name ? img->name : "");
    if (!out->name) {
        return oom(im, path);
    }
    out->mime_type = img->mime_type ? model_strdup(im, img->mime_type) : "";
    if (!out->mime_type || im->desc->skip_images) {
        return out->mime_type ? OROYA_OK : oom(im, path);
    }
    const uint8_t *bytes;
    uint64_t size;
    if (img->buffer_view != OROYA_GLTF_NONE) {
        const oroya_gltf_buffer_view *v = &im->d->buffer_views[img->buffer_view];
        bytes = im->d->buffers[v->buffer].data + v->byte_offset;
        size = v->byte_length;
    } else {
        TRY(oroya__gltf_load_uri((const oroya__gltf *)im->d, &im->m->allocator, &im->temp, img->uri,
                                 &bytes, &size, im->err, path));
        im->budget += (uint64_t)size * IMPORT_BYTES_PER_FILE_BYTE;
    }
    oroya_result r = size > SIZE_MAX / 2
                         ? oroya__fail(im->err, OROYA_ERR_LIMIT, "%s: image too large", path)
                         : spend(im, size, path);
    uint8_t *copy = r == OROYA_OK ? (uint8_t *)model_alloc(im, (size_t)size, 1) : NULL;
    if (r == OROYA_OK && !copy) {
        r = oom(im, path);
    }
    if (r == OROYA_OK) {
        memcpy(copy, bytes, (size_t)size);
        out->encoded = copy;
        out->encoded_size = size;
        if (!out->mime_type[0]) {
            out->mime_type = sniff_mime(copy, size);
        }
    }
    temp_release(im);
    return r;
}

static oroya_result decode_image(importer *im, uint32_t i) {
    oroya_gltf_image_data *out = &im->m->pub.images[i];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "images[%u]", i);
    const uint8_t *bytes = out->encoded;
    uint64_t size = out->encoded_size;
    if (size > INT_MAX) {
        temp_release(im);
        return oroya__fail(im->err, OROYA_ERR_LIMIT, "%s: image too large", path);
    }
    if (!jpeg_huffman_tables_ok(bytes, size)) {
        temp_release(im);
        return oroya__fail(im->err, OROYA_ERR_PARSE,
                           "%s: cannot decode the image (corrupt JPEG Huffman table)", path);
    }
    int w = 0, h = 0, comp = 0;
    /* A refused allocation is out of memory even when stb went on with another format
     * (it probes JPEG, with a malloc, before PNG). */
    stbi_allocator_ = &im->m->allocator;
    stbi_out_of_memory_ = false;
    int known = stbi_info_from_memory(bytes, (int)size, &w, &h, &comp);
    if (stbi_out_of_memory_) {
        temp_release(im);
        return oom(im, path);
    }
    if (known) {
        oroya_result r = spend(im, (uint64_t)w * (uint64_t)h * 4u, path);
        if (r) {
            temp_release(im);
            return r;
        }
    }
    stbi_uc *px = stbi_load_from_memory(bytes, (int)size, &w, &h, &comp, 4);
    if (stbi_out_of_memory_) {
        stbi_image_free(px);
        temp_release(im);
        return oom(im, path);
    }
    if (!px) {
        const char *why = stbi_failure_reason();
        temp_release(im);
        return oroya__fail(im->err, OROYA_ERR_PARSE, "%s: cannot decode the image (%s)", path,
                           why ? why : "unknown");
    }
    size_t n = (size_t)w * (size_t)h * 4;
    out->pixels = (uint8_t *)model_alloc(im, n, 1);
    if (out->pixels) {
        memcpy(out->pixels, px, n);
        out->width = (uint32_t)w;
        out->height = (uint32_t)h;
    }
    stbi_image_free(px);
    temp_release(im);
    return out->pixels ? OROYA_OK : oom(im, path);
}

static oroya_result build_materials(importer *im) {
    oroya_gltf_model *m = &im->m->pub;
    const oroya_gltf_data *d = im->d;
    m->material_count = d->material_count;
    m->materials = (oroya_gltf_model_material *)model_alloc(im, d->material_count,
                                                            sizeof(oroya_gltf_model_material));
    m->image_count = d->image_count;
    m->images =
        (oroya_gltf_image_data *)model_alloc(im, d->image_count, sizeof(oroya_gltf_image_data));
    m->texture_count = d->texture_count;
    m->textures = (oroya_gltf_model_texture *)model_alloc(im, d->texture_count,
                                                          sizeof(oroya_gltf_model_texture));
    if (!m->materials || !m->images || !m->textures) {
        return oom(im, "materials");
    }
    for (uint32_t i = 0; i < d->image_count; i++) {
        TRY(keep_image(im, i));
    }
    for (uint32_t i = 0; i < d->texture_count; i++) {
        const oroya_gltf_texture *t = &d->textures[i];
        oroya_gltf_model_texture *o = &m->textures[i];
        o->name = model_strdup(im, t->name ? t->name : "");
        o->image = t->source;
        o->sampler = t->sampler != OROYA_GLTF_NONE;
        o->wrap_s = o->wrap_t = 10497;
        o->sampler_name = "";
        if (o->sampler) {
            const oroya_gltf_texture_sampler *s = &d->texture_samplers[t->sampler];
            o->sampler_name = model_strdup(im, s->name ? s->name : "");
            o->mag_filter = s->mag_filter;
            o->min_filter = s->min_filter;
            o->wrap_s = s->wrap_s;
            o->wrap_t = s->wrap_t;
        }
        if (!o->name || !o->sampler_name) {
            return oom(im, "textures");
        }
    }
    for (uint32_t i = 0; i < d->material_count; i++) {
        const oroya_gltf_material *g = &d->materials[i];
        oroya_gltf_model_material *o = &m->materials[i];
        o->name = model_strdup(im, g->name ? g->name : "");
        if (!o->name) {
            return oom(im, "materials");
        }
        memcpy(o->material.base_color, g->base_color_factor, sizeof o->material.base_color);
        o->material.metallic = g->metallic_factor;
        o->material.roughness = g->roughness_factor;
        o->material.double_sided = g->double_sided;
        o->base_color_texcoord = g->base_color_texcoord;
        o->base_color_texture = g->base_color_texture;
        o->base_color_image = g->base_color_texture == OROYA_GLTF_NONE
                                  ? OROYA_GLTF_NONE
                                  : d->textures[g->base_color_texture].source;
        uint32_t img = o->base_color_image;
        if (img != OROYA_GLTF_NONE && !im->desc->skip_images && !im->desc->skip_image_decode &&
            !m->images[img].pixels) {
            TRY(decode_image(im, img));
        }
    }
    return OROYA_OK;
}

/* ---- cameras and nodes ------------------------------------------------------------------- */

static oroya_result build_cameras(importer *im) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    m->cameras = (oroya_gltf_model_camera *)model_alloc(im, d->camera_count,
                                                        sizeof(oroya_gltf_model_camera));
    if (!m->cameras) {
        return oom(im, "cameras");
    }
    for (uint32_t i = 0; i < d->camera_count; i++) {
        const oroya_gltf_camera *c = &d->cameras[i];
        oroya_gltf_model_camera *o = &m->cameras[i];
        o->name = model_strdup(im, c->name ? c->name : "");
        if (!o->name) {
            return oom(im, "cameras");
        }
        o->orthographic = c->orthographic;
        o->yfov = c->yfov;
        o->aspect_ratio = c->aspect_ratio;
        o->xmag = c->xmag;
        o->ymag = c->ymag;
        o->znear = c->znear;
        o->zfar = c->zfar;
        /* As GLTFLoader: PerspectiveCamera(deg(yfov), aspectRatio || 1, znear || 1,
         * zfar || 2e6); OrthographicCamera(-xmag, xmag, ymag, -ymag, znear, zfar). */
        o->camera =
            c->orthographic
                ? oroya_camera_orthographic(-c->xmag, c->xmag, c->ymag, -c->ymag, c->znear, c->zfar)
                : oroya_camera_perspective((float)((double)c->yfov * (180.0 / 3.141592653589793)),
                                           c->aspect_ratio != 0.0f ? c->aspect_ratio : 1.0f,
                                           c->znear != 0.0f ? c->znear : 1.0f,
                                           c->zfar != 0.0f ? c->zfar : 2e6f);
        m->camera_count = i + 1;
    }
    return OROYA_OK;
}

static oroya_transform node_transform(const oroya_gltf_node *n) {
    oroya_transform t;
    if (n->has_matrix) {
        oroya_mat4 mat;
        memcpy(mat.m, n->matrix, sizeof mat.m);
        oroya_mat4_decompose(mat, &t.translation, &t.rotation, &t.scale);
        return t;
    }
    t.translation = (oroya_vec3){n->translation[0], n->translation[1], n->translation[2]};
    t.rotation = (oroya_quat){n->rotation[0], n->rotation[1], n->rotation[2], n->rotation[3]};
    t.scale = (oroya_vec3){n->scale[0], n->scale[1], n->scale[2]};
    return t;
}

/* Whether a node's matrix is the TRS import decomposed it into (three.js's decompose): a
 * shear, or a scale along axes the rotation does not keep, is not, and does not come back. */
static bool matrix_is_trs(const oroya_gltf_node *n, oroya_transform t) {
    const oroya_mat4 c = oroya_mat4_compose(t.translation, t.rotation, t.scale);
    float big = 0;
    for (int k = 0; k < 16; k++) {
        big = fmaxf(big, fabsf(n->matrix[k]));
    }
    for (int k = 0; k < 16; k++) {
        if (!(fabsf(c.m[k] - n->matrix[k]) <= 1e-4f * big)) {
            return false;
        }
    }
    return true;
}

/* Skins whose `skeleton` is not an ancestor (or itself) of every joint (glTF 3.7.3: "the
 * closest common root" of the joints' hierarchy, invalid otherwise): the model drops it, so
 * export writes a valid file. Ancestry from one depth-first numbering of the node forest
 * (entry and exit counts, an explicit stack): O(nodes + joints) for any number of skins.
 * Returns how many were dropped (the first in *first), or UINT32_MAX out of memory. */
static uint32_t drop_bad_skeletons(importer *im, uint32_t *first) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    uint32_t bad = 0;
    bool any = false;
    for (uint32_t s = 0; s < d->skin_count; s++) {
        any = any || d->skins[s].skeleton != OROYA_GLTF_NONE;
    }
    if (!any) {
        return 0;
    }
    const uint32_t n = d->node_count;
    uint32_t *tin = (uint32_t *)temp_alloc(im, n, sizeof(uint32_t));
    uint32_t *tout = (uint32_t *)temp_alloc(im, n, sizeof(uint32_t));
    uint32_t *stack = (uint32_t *)temp_alloc(im, n, sizeof(uint32_t));
    uint32_t *next = (uint32_t *)temp_alloc(im, n, sizeof(uint32_t)); /* child to visit */
    bool *child = (bool *)temp_alloc(im, n, sizeof(bool));
    if (!tin || !tout || !stack || !next || !child) {
        return UINT32_MAX;
    }
    memset(child, 0, n * sizeof(bool));
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < d->nodes[i].child_count; k++) {
            child[d->nodes[i].children[k]] = true; /* validated: in range, one parent each */
        }
    }
    uint32_t clock = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (child[r]) {
            continue;
        }
        uint32_t top = 0;
        stack[top++] = r;
        next[r] = 0;
        tin[r] = clock++;
        while (top) {
            const uint32_t v = stack[top - 1];
            if (next[v] < d->nodes[v].child_count) {
                const uint32_t c = d->nodes[v].children[next[v]++];
                next[c] = 0;
                tin[c] = clock++;
                stack[top++] = c;
            } else {
                tout[v] = clock++;
                top--;
            }
        }
    }
    for (uint32_t s = 0; s < d->skin_count && s < m->skin_count; s++) {
        const uint32_t r = d->skins[s].skeleton;
        bool ok = true;
        for (uint32_t k = 0; ok && r != OROYA_GLTF_NONE && k < d->skins[s].joint_count; k++) {
            const uint32_t j = d->skins[s].joints[k];
            ok = tin[r] <= tin[j] && tout[j] <= tout[r];
        }
        if (!ok) {
            *first = bad++ ? *first : s;
            m->skins[s].skeleton = (oroya_node){0};
            m->skins[s].skeleton_gltf_node = OROYA_GLTF_NONE;
        }
    }
    return bad;
}

/* model->unkept: the data's lines, then the first node whose matrix is no TRS and the first
 * skin whose skeleton is no common root of its joints (dropped). */
static oroya_result keep_unkept(importer *im) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    uint32_t shear = 0, first = 0, first_skin = 0;
    for (uint32_t i = 0; i < d->node_count; i++) {
        if (d->nodes[i].has_matrix && !matrix_is_trs(&d->nodes[i], m->node_transforms[i])) {
            first = shear++ ? first : i;
        }
    }
    const uint32_t skeletons = drop_bad_skeletons(im, &first_skin);
    if (skeletons == UINT32_MAX) {
        return oom(im, "skins");
    }
    char extra[2][256];
    uint32_t extras = 0;
    if (shear) {
        snprintf(extra[extras++], sizeof extra[0],
                 "nodes[%u].matrix: not a translation, rotation and scale (a shear, or a scale "
                 "along rotated axes): decomposed into one as three.js does, which does not give "
                 "the matrix back (%u in the file)",
                 first, shear);
    }
    if (skeletons) {
        snprintf(extra[extras++], sizeof extra[0],
                 "skins[%u].skeleton: node %u is not a common root of the skin's joints "
                 "(invalid glTF: it must be an ancestor of each, or one of them): not kept "
                 "(%u in the file)",
                 first_skin, d->skins[first_skin].skeleton, skeletons);
    }
    const uint32_t n = d->unkept_count + extras;
    if (!n) {
        return OROYA_OK;
    }
    const char **lines = (const char **)model_alloc(im, n, sizeof(char *));
    if (!lines) {
        return oom(im, "(root)");
    }
    for (uint32_t i = 0; i < n; i++) {
        lines[i] =
            model_strdup(im, i < d->unkept_count ? d->unkept[i] : extra[i - d->unkept_count]);
        if (!lines[i]) {
            return oom(im, "(root)");
        }
    }
    m->unkept = lines;
    m->unkept_count = n;
    return OROYA_OK;
}

static oroya_result attach_node(importer *im, uint32_t i, const bool *is_joint,
                                const bool *is_skinned_mesh) {
    (void)is_skinned_mesh;
    const oroya_gltf_data *d = im->d;
    const oroya_gltf_node *n = &d->nodes[i];
    oroya_gltf_model *m = &im->m->pub;
    oroya_node h = m->nodes[i];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "nodes[%u]", i);
    oroya_transform t = node_transform(n);
    oroya_result r = oroya_scene_set_transform(m->scene, h, &t);
    if (r) {
        return oroya__fail(im->err, r,
                           "%s: transform rejected by the scene (%s: a component, or the "
                           "matrix they make, is not finite)",
                           path, oroya_result_string(r));
    }
    if (n->camera != OROYA_GLTF_NONE) {
        const oroya_gltf_model_camera *c = &m->cameras[n->camera];
        r = oroya_scene_set_camera(m->scene, h, &c->camera);
        if (r && c->orthographic) {
            return oroya__fail(im->err, r,
                               "%s.camera: cameras[%u] rejected by the scene (orthographic: xmag "
                               "%g, ymag %g, znear %g, zfar %g)",
                               path, n->camera, (double)c->xmag, (double)c->ymag, (double)c->znear,
                               (double)c->zfar);
        }
        if (r) {
            return oroya__fail(im->err, r,
                               "%s.camera: cameras[%u] rejected by the scene (perspective: yfov "
                               "%g, aspectRatio %g, znear %g, zfar %g; 0 means unset)",
                               path, n->camera, (double)c->yfov, (double)c->aspect_ratio,
                               (double)c->znear, (double)c->zfar);
        }
    }
    if (n->mesh == OROYA_GLTF_NONE) {
        return OROYA_OK;
    }
    const oroya_gltf_mesh *mesh = &d->meshes[n->mesh];
    uint32_t first = m->mesh_first_geometry[n->mesh];
    oroya_node_kind kind = n->skin != OROYA_GLTF_NONE ? OROYA_NODE_SKINNED_MESH : OROYA_NODE_MESH;
    for (uint32_t p = 0; p < mesh->primitive_count; p++) {
        oroya_node target = h;
        if (mesh->primitive_count > 1) {
            /* A child node per primitive, per node that shows the mesh: nodes x primitives
             * scene nodes, which the file does not back (measured: about 900 bytes a
             * scene node at the peak, while the scene's arrays grow). */
            TRY(spend(im, IMPORT_SCENE_NODE_BYTES, path));
            r = oroya_scene_add_node(m->scene, NULL, h, kind, &target);
            if (r) {
                return oroya__fail(im->err, r, "%s: cannot add primitive %u (%s)", path, p,
                                   oroya_result_string(r));
            }
        }
        const oroya_geometry *geo = m->geometries[first + p];
        if (!geo) {
            continue;
        }
        uint32_t mat = m->geometry_material[first + p];
        const oroya_material *material =
            mat == OROYA_GLTF_NONE ? &im->m->default_material : &m->materials[mat].material;
        TRY(oroya_scene_set_mesh(m->scene, target, geo, material));
    }
    uint32_t targets = mesh->primitives[0].target_count;
    if (targets) {
        /* Each node that shows the mesh keeps its own weights: a mesh with many targets
         * shown by many nodes costs nodes x targets floats, which the file does not back. */
        TRY(spend(im, (uint64_t)targets * sizeof(float), path));
        r = oroya_scene_set_weight_count(m->scene, h, targets);
        if (r) {
            return oroya__fail(im->err, r, "%s.weights: %s", path, oroya_result_string(r));
        }
        float *w = oroya_scene_weights(m->scene, h, NULL);
        const float *src = n->weight_count ? n->weights : mesh->weights;
        for (uint32_t k = 0; k < targets; k++) {
            w[k] = src ? src[k] : 0.0f;
        }
    }
    (void)is_joint;
    return OROYA_OK;
}

/* For export: every node's skin, and the own weights of nodes outside the loaded scene (a
 * copy of the parsed ones, which the file's JSON numbers back; the scene holds the others').
 * Made after the nodes, so that it never raises the peak of an import the budget stops. */
static oroya_result keep_export_tables(importer *im) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    m->node_skins = (uint32_t *)model_alloc(im, d->node_count, sizeof(uint32_t));
    if (!m->node_skins) {
        return oom(im, "nodes");
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < d->node_count; i++) {
        m->node_skins[i] = d->nodes[i].skin;
        count += m->nodes[i].id == 0 && d->nodes[i].weight_count != 0;
    }
    if (count == 0) {
        return OROYA_OK;
    }
    oroya_gltf_model_node_weights *o = (oroya_gltf_model_node_weights *)model_alloc(
        im, count, sizeof(oroya_gltf_model_node_weights));
    if (!o) {
        return oom(im, "nodes");
    }
    m->outside_weights = o;
    for (uint32_t i = 0; i < d->node_count; i++) {
        uint32_t n = d->nodes[i].weight_count;
        if (m->nodes[i].id != 0 || n == 0) {
            continue;
        }
        char path[PATH_MAX_];
        oroya__gltf_path(path, sizeof path, "nodes[%u].weights", i);
        TRY(spend(im, (uint64_t)n * sizeof(float), path));
        float *w = (float *)model_alloc(im, n, sizeof(float));
        if (!w) {
            return oom(im, path);
        }
        memcpy(w, d->nodes[i].weights, n * sizeof(float));
        o[m->outside_weight_count++] = (oroya_gltf_model_node_weights){i, n, w};
    }
    return OROYA_OK;
}

/* The file's scene list and node children, kept for export (nodes only another scene
 * holds have no scene node). One block for all children: at most one parent per node. */
static oroya_result build_scene_list(importer *im) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    uint32_t n = d->node_count, total = 0;
    m->scene_count = d->scene_count;
    m->scene_index =
        d->scene_count ? (d->scene != OROYA_GLTF_NONE ? d->scene : 0) : OROYA_GLTF_NONE;
    m->scenes =
        (oroya_gltf_model_scene *)model_alloc(im, d->scene_count, sizeof(oroya_gltf_model_scene));
    m->node_child_counts = (uint32_t *)model_alloc(im, n, sizeof(uint32_t));
    m->node_children = (const uint32_t **)model_alloc(im, n, sizeof(uint32_t *));
    for (uint32_t i = 0; i < n; i++) {
        total += d->nodes[i].child_count;
    }
    uint32_t *children = (uint32_t *)model_alloc(im, total, sizeof(uint32_t));
    if (!m->scenes || !m->node_child_counts || !m->node_children || !children) {
        return oom(im, "nodes");
    }
    for (uint32_t i = 0; i < n; i++) {
        const oroya_gltf_node *node = &d->nodes[i];
        if (node->child_count) {
            memcpy(children, node->children, node->child_count * sizeof(uint32_t));
        }
        m->node_child_counts[i] = node->child_count;
        m->node_children[i] = children;
        children += node->child_count;
    }
    for (uint32_t s = 0; s < d->scene_count; s++) {
        const oroya_gltf_scene *gs = &d->scenes[s];
        uint32_t *roots = (uint32_t *)model_alloc(im, gs->node_count, sizeof(uint32_t));
        const char *name = model_strdup(im, gs->name ? gs->name : "");
        if (!roots || !name) {
            return oom(im, "scenes");
        }
        if (gs->node_count) {
            memcpy(roots, gs->nodes, gs->node_count * sizeof(uint32_t));
        }
        m->scenes[s] = (oroya_gltf_model_scene){name, gs->node_count, roots};
    }
    m->scene_name = m->scene_index != OROYA_GLTF_NONE ? m->scenes[m->scene_index].name : "";
    return OROYA_OK;
}

static oroya_result build_nodes(importer *im) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    uint32_t n = d->node_count;
    uint32_t *parent = (uint32_t *)temp_alloc(im, n, sizeof(uint32_t));
    uint32_t *stack = (uint32_t *)temp_alloc(im, n, sizeof(uint32_t));
    bool *is_joint = (bool *)temp_alloc(im, n, sizeof(bool));
    bool *skinned = (bool *)temp_alloc(im, n, sizeof(bool));
    if (!parent || !stack || !is_joint || !skinned) {
        return oom(im, "nodes");
    }
    for (uint32_t i = 0; i < n; i++) {
        parent[i] = OROYA_GLTF_NONE;
    }
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t k = 0; k < d->nodes[i].child_count; k++) {
            parent[d->nodes[i].children[k]] = i;
        }
        skinned[i] = d->nodes[i].skin != OROYA_GLTF_NONE;
    }
    for (uint32_t s = 0; s < d->skin_count; s++) {
        for (uint32_t k = 0; k < d->skins[s].joint_count; k++) {
            is_joint[d->skins[s].joints[k]] = true;
        }
    }
    /* Roots: the default scene's, or every parentless node when the file has no scene. */
    uint32_t scene = d->scene != OROYA_GLTF_NONE ? d->scene : 0;
    const uint32_t *roots = NULL;
    uint32_t root_count = 0;
    uint32_t *all_roots = NULL;
    if (scene < d->scene_count) {
        roots = d->scenes[scene].nodes;
        root_count = d->scenes[scene].node_count;
    } else {
        all_roots = (uint32_t *)temp_alloc(im, n, sizeof(uint32_t));
        if (!all_roots) {
            return oom(im, "nodes");
        }
        for (uint32_t i = 0; i < n; i++) {
            if (parent[i] == OROYA_GLTF_NONE) {
                all_roots[root_count++] = i;
            }
        }
        roots = all_roots;
    }
    /* Depth first, children in file order, parents before children: an explicit stack, as
     * a deep chain of nodes would overflow the C stack. Every node enters at most once
     * (the graph is a validated forest; a root listed twice is skipped). */
    for (uint32_t r = 0; r < root_count; r++) {
        uint32_t top = 0;
        if (m->nodes[roots[r]].id != 0) {
            continue;
        }
        stack[top++] = roots[r];
        while (top) {
            uint32_t i = stack[--top];
            const oroya_gltf_node *node = &d->nodes[i];
            oroya_node_kind kind = skinned[i]                        ? OROYA_NODE_SKINNED_MESH
                                   : is_joint[i]                     ? OROYA_NODE_BONE
                                   : node->mesh != OROYA_GLTF_NONE   ? OROYA_NODE_MESH
                                   : node->camera != OROYA_GLTF_NONE ? OROYA_NODE_CAMERA
                                                                     : OROYA_NODE_OBJECT;
            oroya_node p = parent[i] == OROYA_GLTF_NONE || i == roots[r] ? (oroya_node){0}
                                                                         : m->nodes[parent[i]];
            oroya_result res =
                oroya_scene_add_node(m->scene, m->node_names[i], p, kind, &m->nodes[i]);
            if (res) {
                return oroya__fail(im->err, res, "nodes[%u]: cannot add to the scene (%s)", i,
                                   oroya_result_string(res));
            }
            TRY(attach_node(im, i, is_joint, skinned));
            for (uint32_t k = node->child_count; k-- > 0;) {
                stack[top++] = node->children[k];
            }
        }
    }
    temp_release(im);
    return OROYA_OK;
}

/* ---- skins and clips ---------------------------------------------------------------------- */

static oroya_result build_skins(importer *im) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    m->skin_count = d->skin_count;
    m->skins =
        (oroya_gltf_model_skin *)model_alloc(im, d->skin_count, sizeof(oroya_gltf_model_skin));
    if (!m->skins) {
        return oom(im, "skins");
    }
    for (uint32_t s = 0; s < d->skin_count; s++) {
        const oroya_gltf_skin *g = &d->skins[s];
        oroya_gltf_model_skin *o = &m->skins[s];
        char path[PATH_MAX_];
        oroya__gltf_path(path, sizeof path, "skins[%u]", s);
        o->name = model_strdup(im, g->name ? g->name : "");
        o->joint_count = g->joint_count;
        o->joints = (oroya_node *)model_alloc(im, g->joint_count, sizeof(oroya_node));
        o->joint_gltf_nodes = (uint32_t *)model_alloc(im, g->joint_count, sizeof(uint32_t));
        o->inverse_bind_matrices =
            (oroya_mat4 *)model_alloc(im, g->joint_count, sizeof(oroya_mat4));
        if (!o->name || !o->joints || !o->joint_gltf_nodes || !o->inverse_bind_matrices) {
            return oom(im, path);
        }
        float *ibm = NULL;
        if (g->inverse_bind_matrices != OROYA_GLTF_NONE) {
            TRY(temp_floats(im, g->inverse_bind_matrices, path, &ibm, NULL));
        }
        for (uint32_t k = 0; k < g->joint_count; k++) {
            o->joints[k] = m->nodes[g->joints[k]];
            o->joint_gltf_nodes[k] = g->joints[k];
            if (ibm) {
                memcpy(o->inverse_bind_matrices[k].m, ibm + (size_t)k * 16, sizeof(float) * 16);
            } else {
                o->inverse_bind_matrices[k] = oroya_mat4_identity();
            }
        }
        o->skeleton = g->skeleton == OROYA_GLTF_NONE ? (oroya_node){0} : m->nodes[g->skeleton];
        o->skeleton_gltf_node = g->skeleton;
        temp_release(im);
    }
    return OROYA_OK;
}

/* A channel's keys checked on their own, so that a refusal names the glTF channel and its
 * sampler (clip creation would name its own track index, which skips ignored channels):
 * what oroya_track_validate checks, and a zero rotation key, which clip creation refuses. */
static oroya_result check_channel_keys(importer *im, uint32_t a, uint32_t c, uint32_t s,
                                       const oroya_track *t) {
    char msg[OROYA_ERROR_MESSAGE_MAX] = "";
    oroya_error e = {0};
    oroya_result r = oroya_track_validate(t, 0, &e);
    if (r != OROYA_OK) {
        /* The track's own label ("tracks[0] ") gives way to the channel's. */
        const char *rest = strncmp(e.message, "tracks[0] ", 10) ? e.message : e.message + 10;
        snprintf(msg, sizeof msg, "%s", rest);
    } else if (t->property == OROYA_PROPERTY_ROTATION) {
        const uint32_t stride = t->interpolation == OROYA_INTERP_CUBICSPLINE ? 12u : 4u;
        const uint32_t at = t->interpolation == OROYA_INTERP_CUBICSPLINE ? 4u : 0u;
        for (uint32_t k = 0; k < t->key_count; k++) {
            const float *q = t->values + (size_t)k * stride + at;
            if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
                r = OROYA_ERR_INVALID_DATA;
                snprintf(msg, sizeof msg,
                         "(target \"%s\", rotation): key %u: the zero quaternion is not a "
                         "rotation",
                         t->target, k);
                break;
            }
        }
    }
    if (r == OROYA_OK) {
        return OROYA_OK;
    }
    return oroya__fail(im->err, r, "animations[%u].channels[%u] (samplers[%u]) %s", a, c, s, msg);
}

/* An animation's extras.markers or extras.curves dropped (docs/gltf.md): the animations
 * counted, the first reason kept for tools to warn with. */
static oroya_result ignore_extras(importer *im, const char *reason) {
    oroya_gltf_model *m = &im->m->pub;
    if (m->ignored_extras_count++ == 0) {
        m->first_ignored_extras = model_strdup(im, reason);
        if (!m->first_ignored_extras) {
            return oom(im, "animations");
        }
    }
    return OROYA_OK;
}

static oroya_result build_clip(importer *im, uint32_t a, const char *name) {
    const oroya_gltf_data *d = im->d;
    const oroya_gltf_animation *an = &d->animations[a];
    oroya_gltf_model *m = &im->m->pub;
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "animations[%u]", a);
    oroya_track *tracks = (oroya_track *)temp_alloc(im, (size_t)an->channel_count + an->curve_count,
                                                    sizeof(oroya_track));
    if (!tracks) {
        return oom(im, path);
    }
    uint32_t n = 0;
    for (uint32_t c = 0; c < an->channel_count; c++) {
        const oroya_gltf_channel *ch = &an->channels[c];
        if (ch->node == OROYA_GLTF_NONE || ch->path == OROYA_GLTF_PATH_UNKNOWN) {
            /* glTF 3.11: channels without a target node are ignored; so are paths oroya does
             * not animate. Counted, so that tools can say so. */
            if (m->ignored_channel_count++ == 0) {
                m->first_ignored_animation = a;
                m->first_ignored_channel = c;
                m->first_ignored_unknown_path = ch->path == OROYA_GLTF_PATH_UNKNOWN;
            }
            continue;
        }
        const oroya_gltf_sampler *s = &an->samplers[ch->sampler];
        oroya_track *t = &tracks[n++];
        t->target = m->node_names[ch->node];
        switch (ch->path) {
        case OROYA_GLTF_PATH_TRANSLATION: t->property = OROYA_PROPERTY_TRANSLATION; break;
        case OROYA_GLTF_PATH_ROTATION: t->property = OROYA_PROPERTY_ROTATION; break;
        case OROYA_GLTF_PATH_SCALE: t->property = OROYA_PROPERTY_SCALE; break;
        default: t->property = OROYA_PROPERTY_WEIGHTS; break;
        }
        t->interpolation = s->interpolation == OROYA_GLTF_STEP     ? OROYA_INTERP_STEP
                           : s->interpolation == OROYA_GLTF_LINEAR ? OROYA_INTERP_LINEAR
                                                                   : OROYA_INTERP_CUBICSPLINE;
        t->components = ch->path == OROYA_GLTF_PATH_WEIGHTS
                            ? d->meshes[d->nodes[ch->node].mesh].primitives[0].target_count
                            : oroya_property_components(t->property);
        t->key_count = d->accessors[s->input].count;
        float *times, *values;
        size_t value_count;
        TRY(temp_floats(im, s->input, path, &times, NULL));
        TRY(temp_floats(im, s->output, path, &values, &value_count));
        t->times = times;
        t->values = values;
        t->value_count = (uint32_t)value_count;
        TRY(check_channel_keys(im, a, c, ch->sampler, t));
    }
    /* Why the first of this animation's extras lists was dropped: at parsing (another
     * shape), or below. */
    char dropped[2 * OROYA_ERROR_MESSAGE_MAX] = "";
    if (an->ignored_extras) {
        snprintf(dropped, sizeof dropped, "%s", an->ignored_extras);
    }
    /* extras.curves (docs/gltf.md), after the channels. A curve with bad keys is dropped, as
     * an entry in another shape is at parsing (extras are any tool's); it is named by its place
     * in the file, not by its index among the clip's tracks. */
    for (uint32_t c = 0; c < an->curve_count; c++) {
        oroya_error e = {0};
        if (oroya_track_validate(&an->curves[c], 0, &e) != OROYA_OK) {
            const char *rest = strncmp(e.message, "tracks[0] ", 10) ? e.message : e.message + 10;
            if (!dropped[0]) {
                snprintf(dropped, sizeof dropped, "animations[%u].extras.curves[%u] %s", a, c,
                         rest);
            }
            continue;
        }
        tracks[n++] = an->curves[c];
    }
    oroya_clip_desc desc = {0};
    desc.name = name;
    desc.tracks = tracks;
    desc.track_count = n;
    desc.allocator = im->m->allocator;
    oroya_result r = oroya_clip_create(&desc, &m->clips[a], im->err);
    temp_release(im);
    if (r == OROYA_OK && an->marker_count) {
        /* A marker outside the clip is dropped likewise, the others kept. */
        const double duration = (double)m->clips[a]->duration;
        oroya_marker *kept = (oroya_marker *)temp_alloc(im, an->marker_count, sizeof *kept);
        uint32_t k = 0;
        for (uint32_t i = 0; kept && i < an->marker_count; i++) {
            const oroya_marker *mk = &an->markers[i];
            if (mk->time >= 0 && mk->time <= duration) {
                kept[k++] = *mk;
            } else if (!dropped[0]) {
                snprintf(dropped, sizeof dropped,
                         "animations[%u].extras.markers[%u] \"%s\": time %.9g is outside the "
                         "clip [0, %.9g]",
                         a, i, mk->name, mk->time, duration);
            }
        }
        oroya_error e = {0};
        const oroya_result rm = !kept ? OROYA_ERR_OUT_OF_MEMORY
                                : k   ? oroya_clip_set_markers(m->clips[a], kept, k, &e)
                                      : OROYA_OK;
        temp_release(im);
        if (rm != OROYA_OK) {
            r = kept ? oroya__fail(im->err, rm, "%s", e.message) : oom(im, path);
        }
    }
    if (r == OROYA_OK && dropped[0]) {
        r = ignore_extras(im, dropped);
    }
    if (r != OROYA_OK && m->clips[a]) {
        oroya_clip_destroy(m->clips[a]);
        m->clips[a] = NULL;
    }
    return r ? prefixed(im, r, path) : OROYA_OK;
}

static oroya_result build_clips(importer *im) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    m->clips = (oroya_clip **)model_alloc(im, d->animation_count, sizeof(oroya_clip *));
    const char **names = (const char **)model_alloc(im, d->animation_count, sizeof(char *));
    m->clip_file_names = (const char **)model_alloc(im, d->animation_count, sizeof(char *));
    if (!m->clips || !names || !m->clip_file_names) {
        return oom(im, "animations");
    }
    for (uint32_t a = 0; a < d->animation_count; a++) {
        const char *g = d->animations[a].name;
        m->clip_file_names[a] = model_strdup(im, g ? g : "");
        if (!m->clip_file_names[a]) {
            return oom(im, "animations");
        }
    }
    TRY(clip_names(im, names));
    temp_release(im);
    for (uint32_t a = 0; a < d->animation_count; a++) {
        TRY(build_clip(im, a, names[a]));
        m->clip_count = a + 1;
    }
    return OROYA_OK;
}

/* The file's second set of influences of a skinned primitive, once per primitive, for
 * export (the skin normalizes its copy). */
static oroya_result keep_influences(importer *im, uint32_t mesh, uint32_t prim,
                                    const uint16_t *joints, const float *weights,
                                    const char *path) {
    const oroya_gltf_model *m = &im->m->pub;
    oroya_gltf_model_primitive *o = &m->primitives[m->mesh_first_geometry[mesh] + prim];
    size_t n = (size_t)m->geometries[m->mesh_first_geometry[mesh] + prim]->vertex_count * 4;
    if (o->weights2) {
        return OROYA_OK;
    }
    TRY(spend(im, (uint64_t)n * (sizeof *joints + sizeof *weights), path));
    o->joints2 = (uint16_t *)model_alloc(im, n, sizeof *joints);
    o->weights2 = (float *)model_alloc(im, n, sizeof *weights);
    if (!o->joints2 || !o->weights2) {
        return oom(im, path);
    }
    memcpy(o->joints2, joints, n * sizeof *joints);
    memcpy(o->weights2, weights, n * sizeof *weights);
    return OROYA_OK;
}

/* Primitive p of mesh `mesh`: its JOINTS_1 / WEIGHTS_1, when both are there for every vertex
 * of g, decoded into temporary memory (*joints2, *weights2; NULL when absent) and kept for
 * export (keep_influences). The caller releases the temporary memory. */
static oroya_result second_influences(importer *im, uint32_t mesh, uint32_t p,
                                      const oroya_geometry *g, const char *path,
                                      const uint16_t **joints2, const float **weights2) {
    *joints2 = NULL;
    *weights2 = NULL;
    const oroya_gltf_data *d = im->d;
    const oroya_gltf_primitive *pr = &d->meshes[mesh].primitives[p];
    const oroya_gltf_attribute *j1 =
        find_attr(pr->attributes, pr->attribute_count, OROYA_GLTF_ATTR_JOINTS, 1);
    const oroya_gltf_attribute *w1 =
        find_attr(pr->attributes, pr->attribute_count, OROYA_GLTF_ATTR_WEIGHTS, 1);
    if (!j1 || !w1 || d->accessors[j1->accessor].count != g->vertex_count ||
        d->accessors[w1->accessor].count != g->vertex_count) {
        return OROYA_OK;
    }
    uint32_t *u;
    size_t cnt;
    float *w;
    TRY(temp_uints(im, j1->accessor, path, &u, &cnt));
    uint16_t *j16 = (uint16_t *)temp_alloc(im, cnt, sizeof(uint16_t));
    if (!j16) {
        return oom(im, path);
    }
    for (size_t k = 0; k < cnt; k++) {
        j16[k] = (uint16_t)u[k];
    }
    TRY(temp_floats(im, w1->accessor, path, &w, NULL));
    TRY(keep_influences(im, mesh, p, j16, w, path));
    *joints2 = j16;
    *weights2 = w;
    return OROYA_OK;
}

/* The second set of influences of the primitives of a skinned node import binds no
 * oroya_skin for (outside the loaded scene, or a joint outside it), kept for export as the
 * file has them. */
static oroya_result keep_unbound_influences(importer *im, uint32_t i) {
    const oroya_gltf_data *d = im->d;
    const oroya_gltf_model *m = &im->m->pub;
    const oroya_gltf_node *n = &d->nodes[i];
    const oroya_gltf_mesh *mesh = &d->meshes[n->mesh];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "nodes[%u]", i);
    for (uint32_t p = 0; p < mesh->primitive_count; p++) {
        const oroya_geometry *g = m->geometries[m->mesh_first_geometry[n->mesh] + p];
        if (!g || !g->joints) {
            continue;
        }
        const uint16_t *j16;
        const float *w;
        TRY(second_influences(im, n->mesh, p, g, path, &j16, &w));
        temp_release(im);
    }
    return OROYA_OK;
}

/* Skeletons per glTF skin, then one bound oroya_skin per skinned primitive (GLTFLoader:
 * normalizeSkinWeights, then bind(skeleton, identity)). */
static oroya_result build_skinned_meshes(importer *im) {
    const oroya_gltf_data *d = im->d;
    oroya_gltf_model *m = &im->m->pub;
    m->skeletons = (oroya_skeleton **)model_alloc(im, d->skin_count, sizeof(oroya_skeleton *));
    uint32_t total = 0;
    for (uint32_t i = 0; i < d->node_count; i++) {
        if (d->nodes[i].skin != OROYA_GLTF_NONE && m->nodes[i].id) {
            total += d->meshes[d->nodes[i].mesh].primitive_count;
        }
    }
    m->skinned_meshes = (oroya_skin **)model_alloc(im, total, sizeof(oroya_skin *));
    if (!m->skeletons || !m->skinned_meshes) {
        return oom(im, "skins");
    }
    for (uint32_t s = 0; s < d->skin_count; s++) {
        const oroya_gltf_model_skin *sk = &m->skins[s];
        bool complete = true;
        for (uint32_t k = 0; k < sk->joint_count; k++) {
            complete &= sk->joints[k].id != 0;
        }
        if (!complete) {
            continue;
        }
        oroya_skeleton_desc sd = {0};
        sd.bones = sk->joints;
        sd.bone_count = sk->joint_count;
        sd.bone_inverses = sk->inverse_bind_matrices;
        sd.allocator = im->m->allocator;
        oroya_result r = oroya_skeleton_create(m->scene, &sd, &m->skeletons[s], im->err);
        if (r) {
            char path[PATH_MAX_];
            oroya__gltf_path(path, sizeof path, "skins[%u]", s);
            return prefixed(im, r, path);
        }
    }
    static const oroya_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    for (uint32_t i = 0; i < d->node_count; i++) {
        const oroya_gltf_node *n = &d->nodes[i];
        if (n->skin != OROYA_GLTF_NONE && (!m->nodes[i].id || !m->skeletons[n->skin])) {
            TRY(keep_unbound_influences(im, i));
            continue;
        }
        if (n->skin == OROYA_GLTF_NONE) {
            continue;
        }
        const oroya_gltf_mesh *mesh = &d->meshes[n->mesh];
        char path[PATH_MAX_];
        oroya__gltf_path(path, sizeof path, "nodes[%u]", i);
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const oroya_geometry *g = m->geometries[m->mesh_first_geometry[n->mesh] + p];
            if (!g || !g->joints) {
                continue;
            }
            oroya_node target = m->nodes[i];
            if (mesh->primitive_count > 1 &&
                oroya_scene_get_child(m->scene, m->nodes[i], p, &target) != OROYA_OK) {
                continue;
            }
            oroya_skin_desc sd = {0};
            /* Every node that shows a skinned mesh gets its own oroya_skin with a copy of
             * the vertex data (positions, normals, two sets of joints and weights), so many
             * nodes sharing one mesh multiply it: it counts against the budget. */
            uint64_t skin_bytes = (uint64_t)g->vertex_count * (g->normals ? 2u * 12u : 12u) +
                                  (uint64_t)g->vertex_count * 2u * (8u + 16u) + 1024u;
            TRY(spend(im, skin_bytes, path));
            sd.mesh = target;
            sd.vertex_count = g->vertex_count;
            sd.positions = g->positions;
            sd.normals = g->normals;
            sd.joints = g->joints;
            sd.weights = g->weights;
            sd.allocator = im->m->allocator;
            TRY(second_influences(im, n->mesh, p, g, path, &sd.joints2, &sd.weights2));
            oroya_skin **slot = &m->skinned_meshes[m->skinned_mesh_count];
            oroya_result r = oroya_skin_create(&sd, slot, im->err);
            temp_release(im);
            if (r) {
                return prefixed(im, r, path);
            }
            m->skinned_mesh_count++;
            oroya_skin_normalize_weights(*slot);
            r = oroya_skin_bind(*slot, m->scene, m->skeletons[n->skin], &identity, im->err);
            if (r) {
                return prefixed(im, r, path);
            }
            TRY(oroya_scene_set_skin(m->scene, target, *slot));
        }
    }
    return OROYA_OK;
}

/* ---- public ----------------------------------------------------------------------------- */

void oroya_gltf_model_free(oroya_gltf_model *model) {
    if (!model) {
        return;
    }
    model_impl *mi = (model_impl *)model;
    /* The scene borrows geometries, materials and skins: destroy it first; skins borrow
     * their skeletons. */
    oroya_scene_destroy(model->scene);
    for (uint32_t i = 0; i < model->skinned_mesh_count; i++) {
        oroya_skin_destroy(model->skinned_meshes[i]);
    }
    for (uint32_t i = 0; model->skeletons && i < model->skin_count; i++) {
        oroya_skeleton_destroy(model->skeletons[i]);
    }
    for (uint32_t i = 0; i < model->clip_count; i++) {
        oroya_clip_destroy(model->clips[i]);
    }
    for (uint32_t i = 0; i < model->geometry_count; i++) {
        oroya_geometry_destroy(model->geometries[i]);
    }
    oroya_allocator a = mi->allocator;
    oroya__arena_release(&a, &mi->blocks);
    oroya__free(&a, mi);
}

oroya_result oroya_gltf_import(const oroya_gltf_data *data, const oroya_gltf_import_desc *desc,
                               oroya_gltf_model **out, oroya_error *err) {
    if (!out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_import: out is NULL");
    }
    *out = NULL;
    if (!data) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_import: data is NULL");
    }
    if (!((const oroya__gltf *)data)->validated) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "oroya_gltf_import: the data has not been validated");
    }
    static const oroya_gltf_import_desc defaults = {0};
    if (!desc) {
        desc = &defaults;
    }
    model_impl *mi = (model_impl *)oroya__alloc(&desc->allocator, sizeof *mi, 16);
    if (!mi) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "oroya_gltf_import: out of memory");
    }
    memset(mi, 0, sizeof *mi);
    mi->allocator = desc->allocator;
    mi->default_material = oroya_material_default();
    mi->default_material.metallic = 1.0f;
    importer im = {data, desc, mi, err, NULL, OROYA_GLTF_MAX_UNBACKED_BYTES, 0};
    for (uint32_t i = 0; i < data->buffer_count; i++) {
        im.budget += data->buffers[i].byte_length * IMPORT_BYTES_PER_FILE_BYTE;
    }
    oroya_gltf_model *m = &mi->pub;
    oroya_result r = OROYA_OK;
    m->node_count = data->node_count;
    m->nodes = (oroya_node *)model_alloc(&im, data->node_count, sizeof(oroya_node));
    m->node_names = (const char **)model_alloc(&im, data->node_count, sizeof(char *));
    m->node_file_names = (const char **)model_alloc(&im, data->node_count, sizeof(char *));
    m->node_cameras = (uint32_t *)model_alloc(&im, data->node_count, sizeof(uint32_t));
    m->node_meshes = (uint32_t *)model_alloc(&im, data->node_count, sizeof(uint32_t));
    m->node_transforms =
        (oroya_transform *)model_alloc(&im, data->node_count, sizeof(oroya_transform));
    if (!m->nodes || !m->node_names || !m->node_file_names || !m->node_cameras || !m->node_meshes ||
        !m->node_transforms) {
        r = oom(&im, "nodes");
    }
    if (r == OROYA_OK) {
        oroya_scene_desc sd = {0};
        sd.capacity_hint = data->node_count + 1;
        sd.allocator = desc->allocator;
        r = oroya_scene_create(&sd, &m->scene);
        if (r) {
            r = oroya__fail(err, r, "scene: cannot create (%s)", oroya_result_string(r));
        }
    }
    if (r == OROYA_OK)
        r = make_node_names(&im);
    if (r == OROYA_OK)
        temp_release(&im);
    if (r == OROYA_OK)
        r = build_materials(&im);
    if (r == OROYA_OK)
        r = build_cameras(&im);
    if (r == OROYA_OK)
        r = build_geometries(&im);
    if (r == OROYA_OK)
        r = build_nodes(&im);
    if (r == OROYA_OK)
        r = keep_export_tables(&im);
    if (r == OROYA_OK)
        r = build_scene_list(&im);
    if (r == OROYA_OK)
        r = build_skins(&im);
    if (r == OROYA_OK)
        r = build_skinned_meshes(&im);
    if (r == OROYA_OK)
        r = build_clips(&im);
    if (r == OROYA_OK && data->copyright) {
        m->copyright = model_strdup(&im, data->copyright);
        if (!m->copyright) {
            r = oom(&im, "asset.copyright");
        }
    }
    if (r == OROYA_OK)
        r = keep_unkept(&im);
    temp_release(&im);
    if (r != OROYA_OK) {
        oroya_gltf_model_free(m);
        return r;
    }
    oroya_scene_update_world(m->scene);
    *out = m;
    return OROYA_OK;
}

oroya_result oroya_gltf_load(const char *path, const oroya_gltf_import_desc *desc,
                             oroya_gltf_model **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!path || !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_load: NULL argument");
    }
    oroya_gltf_desc gd = {0};
    if (desc) {
        gd.allocator = desc->allocator;
        gd.allow_outside_base_dir = desc->allow_outside_base_dir;
        gd.read_file = desc->read_file;
        gd.read_user = desc->read_user;
    }
    oroya_gltf_data *data = NULL;
    oroya_result r = oroya_gltf_parse_file(&gd, path, &data, err);
    if (r == OROYA_OK) {
        r = oroya_gltf_validate(data, err);
    }
    if (r == OROYA_OK) {
        r = oroya_gltf_import(data, desc, out, err);
    }
    oroya_gltf_free(data);
    return r;
}

oroya_result oroya_gltf_model_find_node(const oroya_gltf_model *model, const char *name,
                                        oroya_node *out, uint32_t *gltf_index) {
    if (out) {
        *out = (oroya_node){0};
    }
    if (!model || !name || !out) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    uint32_t idx = OROYA_GLTF_NONE, v;
    /* "node_<i>" names any node; decimal without leading zeros, as docs/scenario.md spells it. */
    if (is_prefixed_number(name, "node_", &v) && (name[5] != '0' || name[6] == '\0') &&
        v < model->node_count) {
        idx = v;
    } else if (!is_prefixed_number(name, "node_", NULL)) {
        /* A glTF name: binary search of the sorted scene names (qualifying ones are unique). */
        const oroya__name_index *sorted = ((const model_impl *)model)->by_name;
        idx = sorted ? oroya__name_index_find(sorted, model->node_count, name) : OROYA_GLTF_NONE;
    }
    if (idx == OROYA_GLTF_NONE || model->nodes[idx].id == 0) {
        return OROYA_ERR_NOT_FOUND;
    }
    *out = model->nodes[idx];
    if (gltf_index) {
        *gltf_index = idx;
    }
    return OROYA_OK;
}

oroya_clip *oroya_gltf_model_find_clip(const oroya_gltf_model *model, const char *name) {
    if (!model || !name) {
        return NULL;
    }
    uint32_t v;
    if (is_prefixed_number(name, "animation_", &v) && (name[10] != '0' || name[11] == '\0') &&
        v < model->clip_count) {
        return model->clips[v];
    }
    for (uint32_t i = 0; i < model->clip_count; i++) {
        if (!strcmp(model->clips[i]->name, name) && !is_prefixed_number(name, "animation_", NULL)) {
            return model->clips[i];
        }
    }
    return NULL;
}

oroya_result oroya_gltf_model_bone_matrices(const oroya_gltf_model *model, uint32_t skin,
                                            float *out) {
    if (!model || !out || skin >= model->skin_count) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    const oroya_gltf_model_skin *s = &model->skins[skin];
    bool finite = true;
    for (uint32_t k = 0; k < s->joint_count; k++) {
        oroya_mat4 world = oroya_mat4_identity();
        if (s->joints[k].id) {
            oroya_scene_get_world(model->scene, s->joints[k], &world);
        }
        float *b = out + (size_t)k * 16;
        oroya__bone_matrix(world.m, s->inverse_bind_matrices[k].m, b);
        /* World matrices are kept finite, but a finite product can still overflow the float
         * range (a joint scale of 1e20 times an inverse bind scale of 1e30). */
        for (int e = 0; e < 16; e++) {
            finite &= isfinite(b[e]) != 0;
        }
    }
    return finite ? OROYA_OK : OROYA_ERR_NON_FINITE;
}
