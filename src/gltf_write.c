/* glTF export: a scene with its meshes, skins, cameras and clips as .gltf + .bin or .glb.
 * One buffer; one buffer view per accessor (4-byte aligned), accessors with the min/max the
 * spec requires (POSITION, animation input). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal/gltf.h"

typedef struct writer {
    const oroya_scene *scene;
    const oroya_gltf_write_desc *desc;
    oroya_allocator a;
    oroya_error *err;
    uint8_t *bin;
    size_t bin_size, bin_cap;
    cJSON *root, *views, *accessors;
    bool oom;
    uint32_t node_count;
    uint32_t *gidx;                   /* glTF node index per dense index, NONE when folded */
    uint32_t *prim_parent;            /* dense parent of a folded primitive node, else NONE */
} writer;

static oroya_result oom(writer *w) {
    return oroya__fail(w->err, OROYA_ERR_OUT_OF_MEMORY, "oroya_gltf_write: out of memory");
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

static cJSON *float_array(writer *w, const float *v, uint32_t n) {
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; a && i < n; i++) {
        cJSON *x = cJSON_CreateNumber((double)v[i]);
        if (!x) {
            w->oom = true;
            break;
        }
        cJSON_AddItemToArray(a, x);
    }
    w->oom |= a == NULL;
    return a;
}

static uint32_t array_size(const cJSON *a) {
    return a ? (uint32_t)cJSON_GetArraySize(a) : 0u;
}

/* An accessor over `count` elements of `components` values, with its own buffer view.
 * min_max: write per-component min and max (required for POSITION and animation input). */
/* Buffer view targets (glTF 3.6.1): vertex attributes and indices say what they hold. */
#define TARGET_ARRAY_BUFFER 34962
#define TARGET_ELEMENT_ARRAY_BUFFER 34963

static uint32_t write_accessor(writer *w, const void *data, uint32_t count, uint32_t comp_size,
                               oroya_gltf_component_type ct, const char *type,
                               uint32_t components, bool min_max, int target) {
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
    add_number(w, acc, "bufferView", array_size(w->views) - 1);
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
    return array_size(w->accessors) - 1;
}

static uint32_t floats_accessor(writer *w, const float *v, uint32_t count, uint32_t comps,
                                bool min_max) {
    static const char *const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
    const char *type = comps <= 4 ? types[comps] : "MAT4";
    return write_accessor(w, v, count, 4, OROYA_GLTF_FLOAT, type, comps, min_max, 0);
}

static uint32_t vertex_accessor(writer *w, const float *v, uint32_t count, uint32_t comps,
                                bool min_max) {
    static const char *const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
    return write_accessor(w, v, count, 4, OROYA_GLTF_FLOAT, types[comps], comps, min_max,
                          TARGET_ARRAY_BUFFER);
}

/* Index of `ptr` in `seen` (count entries), appending it when new. */
static uint32_t intern(const void **seen, uint32_t *count, const void *ptr) {
    for (uint32_t i = 0; i < *count; i++) {
        if (seen[i] == ptr) {
            return i;
        }
    }
    seen[*count] = ptr;
    return (*count)++;
}

static void write_primitive(writer *w, cJSON *prims, const oroya_geometry *g,
                            const oroya_skin *skin, int32_t material) {
    cJSON *prim = cJSON_CreateObject();
    cJSON *attrs = prim ? cJSON_AddObjectToObject(prim, "attributes") : NULL;
    if (!prim || !attrs) {
        cJSON_Delete(prim);
        w->oom = true;
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
    /* A skinned mesh writes the skin's (normalized) influences; a plain one its own. */
    const uint16_t *joints = skin ? skin->joints : g->joints;
    const float *weights = skin ? skin->weights : g->weights;
    if (joints && weights) {
        add_number(w, attrs, "JOINTS_0",
                   write_accessor(w, joints, n, 2, OROYA_GLTF_UNSIGNED_SHORT, "VEC4", 4, false,
                                  TARGET_ARRAY_BUFFER));
        add_number(w, attrs, "WEIGHTS_0", vertex_accessor(w, weights, n, 4, false));
    }
    if (skin && skin->joints2 && skin->weights2) {
        add_number(w, attrs, "JOINTS_1",
                   write_accessor(w, skin->joints2, n, 2, OROYA_GLTF_UNSIGNED_SHORT, "VEC4", 4,
                                  false, TARGET_ARRAY_BUFFER));
        add_number(w, attrs, "WEIGHTS_1", vertex_accessor(w, skin->weights2, n, 4, false));
    }
    if (g->indices && g->index_count) {
        add_number(w, prim, "indices",
                   write_accessor(w, g->indices, g->index_count, 4, OROYA_GLTF_UNSIGNED_INT,
                                  "SCALAR", 1, false, TARGET_ELEMENT_ARRAY_BUFFER));
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
                add_number(w, tg, "NORMAL",
                           vertex_accessor(w, g->morph_normals + o, n, 3, false));
            }
            cJSON_AddItemToArray(targets, tg);
        }
    }
    cJSON_AddItemToArray(prims, prim);
}

static oroya_result write_clips(writer *w) {
    const oroya_gltf_write_desc *d = w->desc;
    if (!d->clip_count) {
        return OROYA_OK;
    }
    cJSON *anims = add_array(w, w->root, "animations");
    for (uint32_t c = 0; anims && c < d->clip_count; c++) {
        const oroya_clip *clip = d->clips[c];
        if (!clip) {
            return oroya__fail(w->err, OROYA_ERR_INVALID_ARGUMENT, "clips[%u]: NULL", c);
        }
        cJSON *anim = cJSON_CreateObject();
        if (!anim) {
            return oom(w);
        }
        cJSON_AddItemToArray(anims, anim);
        if (clip->name && clip->name[0]) {
            w->oom |= cJSON_AddStringToObject(anim, "name", clip->name) == NULL;
        }
        cJSON *samplers = cJSON_AddArrayToObject(anim, "samplers");
        cJSON *channels = cJSON_AddArrayToObject(anim, "channels");
        if (!samplers || !channels) {
            return oom(w);
        }
        for (uint32_t t = 0; t < clip->track_count; t++) {
            const oroya_track *tr = &clip->tracks[t];
            oroya_node node;
            if (oroya_scene_find_node(w->scene, tr->target, &node) != OROYA_OK) {
                return oroya__fail(w->err, OROYA_ERR_NOT_FOUND,
                                   "clips[%u].tracks[%u]: target '%s' is not a node of the scene",
                                   c, t, tr->target);
            }
            const char *interp = tr->interpolation == OROYA_INTERP_STEP          ? "STEP"
                               : tr->interpolation == OROYA_INTERP_LINEAR        ? "LINEAR"
                               : tr->interpolation == OROYA_INTERP_CUBICSPLINE   ? "CUBICSPLINE"
                                                                                 : NULL;
            if (!interp) {
                return oroya__fail(w->err, OROYA_ERR_UNSUPPORTED,
                                   "clips[%u].tracks[%u]: %s interpolation has no glTF form", c,
                                   t, oroya_interpolation_name(tr->interpolation));
            }
            static const char *const paths[] = {"translation", "rotation", "scale", "weights"};
            if ((unsigned)tr->property > 3u) {
                return oroya__fail(w->err, OROYA_ERR_UNKNOWN_PROPERTY,
                                   "clips[%u].tracks[%u]: unknown property", c, t);
            }
            uint32_t stride = oroya_track_key_stride(tr);
            uint32_t in = floats_accessor(w, tr->times, tr->key_count, 1, true);
            /* Weights outputs are SCALAR: key_count * targets (* 3) elements. */
            uint32_t out = tr->property == OROYA_PROPERTY_WEIGHTS
                               ? floats_accessor(w, tr->values, tr->key_count * stride, 1, false)
                               : floats_accessor(w, tr->values,
                                                 tr->key_count * (stride / tr->components),
                                                 tr->components, false);
            cJSON *s = cJSON_CreateObject();
            cJSON *ch = cJSON_CreateObject();
            cJSON *target = ch ? cJSON_AddObjectToObject(ch, "target") : NULL;
            if (!s || !ch || !target) {
                cJSON_Delete(s);
                cJSON_Delete(ch);
                return oom(w);
            }
            add_number(w, s, "input", in);
            add_number(w, s, "output", out);
            w->oom |= cJSON_AddStringToObject(s, "interpolation", interp) == NULL;
            cJSON_AddItemToArray(samplers, s);
            add_number(w, ch, "sampler", array_size(samplers) - 1);
            uint32_t dense = oroya_scene_node_index(w->scene, node);
            if (w->gidx[dense] == OROYA_GLTF_NONE) {
                cJSON_Delete(ch); /* s already belongs to samplers */
                return oroya__fail(w->err, OROYA_ERR_UNSUPPORTED,
                                   "clips[%u].tracks[%u]: target is a primitive node folded "
                                   "into its parent's mesh", c, t);
            }
            add_number(w, target, "node", w->gidx[dense]);
            w->oom |= cJSON_AddStringToObject(target, "path", paths[tr->property]) == NULL;
            cJSON_AddItemToArray(channels, ch);
        }
    }
    return w->oom ? oom(w) : OROYA_OK;
}

typedef struct scene_tables {
    const void **meshes;              /* (geometry, material, skin) per single-primitive mesh */
    uint32_t mesh_count;              /* meshes written so far (all kinds) */
    uint32_t single_count;            /* entries in `meshes` */
    const void **materials;
    uint32_t material_count;
    const void **skeletons;
    uint32_t skeleton_count;
    cJSON *mesh_array, *material_array, *skin_array, *camera_array;
} scene_tables;

static int32_t material_index(writer *w, scene_tables *t, const oroya_material *mat) {
    if (!mat) {
        return -1;
    }
    uint32_t before = t->material_count;
    uint32_t mi = intern(t->materials, &t->material_count, mat);
    if (t->material_count != before) {
        t->material_array = t->material_array ? t->material_array
                                              : add_array(w, w->root, "materials");
        cJSON *m = cJSON_CreateObject();
        cJSON *pbr = m ? cJSON_AddObjectToObject(m, "pbrMetallicRoughness") : NULL;
        if (!m || !pbr || !t->material_array) {
            cJSON_Delete(m);
            w->oom = true;
            return -1;
        }
        cJSON_AddItemToObject(pbr, "baseColorFactor", float_array(w, mat->base_color, 4));
        add_number(w, pbr, "metallicFactor", (double)mat->metallic);
        add_number(w, pbr, "roughnessFactor", (double)mat->roughness);
        if (mat->double_sided) {
            w->oom |= cJSON_AddTrueToObject(m, "doubleSided") == NULL;
        }
        cJSON_AddItemToArray(t->material_array, m);
    }
    return (int32_t)mi;
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

static oroya_result write_skin(writer *w, scene_tables *t, const oroya_skeleton *sk,
                               uint32_t node, uint32_t *out) {
    uint32_t before = t->skeleton_count;
    *out = intern(t->skeletons, &t->skeleton_count, sk);
    if (t->skeleton_count == before) {
        return OROYA_OK;
    }
    t->skin_array = t->skin_array ? t->skin_array : add_array(w, w->root, "skins");
    cJSON *s = cJSON_CreateObject();
    cJSON *joints = s ? cJSON_AddArrayToObject(s, "joints") : NULL;
    if (!t->skin_array || !s || !joints) {
        cJSON_Delete(s);
        return oom(w);
    }
    for (uint32_t b = 0; b < sk->bone_count; b++) {
        uint32_t bi = oroya_scene_node_index(w->scene, sk->bones[b]);
        uint32_t gi = bi == OROYA_SCENE_NO_INDEX ? OROYA_GLTF_NONE : w->gidx[bi];
        if (gi == OROYA_GLTF_NONE) {
            cJSON_Delete(s);
            return oroya__fail(w->err, OROYA_ERR_STALE_HANDLE,
                               "nodes[%u]: skin bone %u is not a node of the written scene", node,
                               b);
        }
        cJSON_AddItemToArray(joints, cJSON_CreateNumber(gi));
    }
    add_number(w, s, "inverseBindMatrices",
               floats_accessor(w, sk->bone_inverses[0].m, sk->bone_count, 16, false));
    cJSON_AddItemToArray(t->skin_array, s);
    return OROYA_OK;
}

static oroya_result write_node(writer *w, scene_tables *t, uint32_t i, cJSON *node) {
    const oroya_scene *scene = w->scene;
    oroya_node h = oroya_scene_node_at(scene, i);
    const char *name = oroya_scene_node_name(scene, h);
    if (name[0]) {
        w->oom |= cJSON_AddStringToObject(node, "name", name) == NULL;
    }
    oroya_transform tr;
    oroya_scene_get_transform(scene, h, &tr);
    if (tr.translation.x != 0 || tr.translation.y != 0 || tr.translation.z != 0) {
        cJSON_AddItemToObject(node, "translation", float_array(w, &tr.translation.x, 3));
    }
    if (tr.rotation.x != 0 || tr.rotation.y != 0 || tr.rotation.z != 0 || tr.rotation.w != 1) {
        float q[4] = {tr.rotation.x, tr.rotation.y, tr.rotation.z, tr.rotation.w};
        cJSON_AddItemToObject(node, "rotation", float_array(w, q, 4));
    }
    if (tr.scale.x != 1 || tr.scale.y != 1 || tr.scale.z != 1) {
        cJSON_AddItemToObject(node, "scale", float_array(w, &tr.scale.x, 3));
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
         * skin (the skin's normalized weights are what is written). */
        for (uint32_t k = 0; k < t->single_count; k++) {
            const void **e = &t->meshes[k * 4];
            if (e[0] == g && e[1] == mat && e[2] == skin) {
                mesh_index = (uint32_t)(uintptr_t)e[3];
                new_mesh = false;
                break;
            }
        }
        if (new_mesh) {
            const void **e = &t->meshes[t->single_count++ * 4];
            e[0] = g;
            e[1] = mat;
            e[2] = skin;
            e[3] = (const void *)(uintptr_t)mesh_index;
        }
    }
    if (new_mesh) {
        t->mesh_array = t->mesh_array ? t->mesh_array : add_array(w, w->root, "meshes");
        cJSON *mesh = cJSON_CreateObject();
        cJSON *prims = mesh ? cJSON_AddArrayToObject(mesh, "primitives") : NULL;
        if (!t->mesh_array || !mesh || !prims) {
            cJSON_Delete(mesh);
            return oom(w);
        }
        cJSON_AddItemToArray(t->mesh_array, mesh);
        t->mesh_count++;
        for (uint32_t k = 0; k < count; k++) {
            oroya_node ph = oroya_scene_node_at(scene, first + k);
            const oroya_geometry *pg = NULL;
            const oroya_material *pm = NULL;
            oroya_scene_get_mesh(scene, ph, &pg, &pm);
            write_primitive(w, prims, pg, node_skin(scene, ph), material_index(w, t, pm));
        }
    }
    add_number(w, node, "mesh", mesh_index);
    uint32_t wc = 0;
    const float *wts = oroya_scene_weights((oroya_scene *)scene, h, &wc);
    g = NULL;
    oroya_scene_get_mesh(scene, oroya_scene_node_at(scene, first), &g, NULL);
    if (wts && wc && g && wc == g->morph_target_count) {
        cJSON_AddItemToObject(node, "weights", float_array(w, wts, wc));
    }
    if (skin) {
        uint32_t si;
        TRY(write_skin(w, t, skin->skeleton, w->gidx[i], &si));
        add_number(w, node, "skin", si);
    }
    return w->oom ? oom(w) : OROYA_OK;
}

static oroya_result write_camera(writer *w, scene_tables *t, oroya_node h, cJSON *node) {
    oroya_camera cam;
    if (oroya_scene_get_camera(w->scene, h, &cam) != OROYA_OK) {
        return OROYA_OK;
    }
    t->camera_array = t->camera_array ? t->camera_array : add_array(w, w->root, "cameras");
    cJSON *c = cJSON_CreateObject();
    if (!t->camera_array || !c) {
        cJSON_Delete(c);
        return oom(w);
    }
    bool ortho = cam.type == OROYA_CAMERA_ORTHOGRAPHIC;
    cJSON *o = cJSON_AddObjectToObject(c, ortho ? "orthographic" : "perspective");
    w->oom |= !o || !cJSON_AddStringToObject(c, "type", ortho ? "orthographic" : "perspective");
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
    cJSON_AddItemToArray(t->camera_array, c);
    add_number(w, node, "camera", array_size(t->camera_array) - 1);
    return w->oom ? oom(w) : OROYA_OK;
}

static oroya_result write_scene(writer *w) {
    const oroya_scene *scene = w->scene;
    uint32_t n = oroya_scene_node_count(scene);
    const uint32_t *parents = oroya_scene_parent_indices(scene);
    if (n == 0) {
        return OROYA_OK; /* glTF forbids empty arrays: an empty scene is just the asset */
    }
    cJSON *nodes = add_array(w, w->root, "nodes");
    cJSON *scenes = add_array(w, w->root, "scenes");
    cJSON *scene0 = cJSON_CreateObject();
    cJSON *roots = scene0 ? cJSON_AddArrayToObject(scene0, "nodes") : NULL;
    if (!nodes || !scenes || !scene0 || !roots) {
        cJSON_Delete(scene0);
        return oom(w);
    }
    cJSON_AddItemToArray(scenes, scene0);
    add_number(w, w->root, "scene", 0);
    scene_tables t = {0};
    t.meshes = (const void **)oroya__calloc(&w->a, (size_t)n * 4 + 1, sizeof(void *), 16);
    t.materials = (const void **)oroya__calloc(&w->a, (size_t)n + 1, sizeof(void *), 16);
    t.skeletons = (const void **)oroya__calloc(&w->a, (size_t)n + 1, sizeof(void *), 16);
    w->gidx = (uint32_t *)oroya__calloc(&w->a, (size_t)n + 1, sizeof(uint32_t), 16);
    w->prim_parent = (uint32_t *)oroya__calloc(&w->a, (size_t)n + 1, sizeof(uint32_t), 16);
    w->node_count = n;
    oroya_result r = OROYA_OK;
    if (!t.meshes || !t.materials || !t.skeletons || !w->gidx || !w->prim_parent) {
        r = oom(w);
    }
    /* glTF indices: dense order, without the primitive nodes folded into their parent. */
    for (uint32_t i = 0, next = 0; r == OROYA_OK && i < n; i++) {
        w->prim_parent[i] = OROYA_GLTF_NONE;
        w->gidx[i] = next++;
        uint32_t p = parents[i];
        const oroya_geometry *pg = NULL;
        if (p == OROYA_SCENE_NO_INDEX || !is_primitive_node(scene, i) ||
            (oroya_scene_get_mesh(scene, oroya_scene_node_at(scene, p), &pg, NULL) == OROYA_OK &&
             pg)) {
            continue;
        }
        /* Fold only a run of at least two leading primitive children. */
        bool run = (i > 0 && w->prim_parent[i - 1] == p) ||
                   (i == p + 1 && i + 1 < n && parents[i + 1] == p && is_primitive_node(scene, i + 1));
        if (run) {
            w->prim_parent[i] = p;
            w->gidx[i] = OROYA_GLTF_NONE;
            next--;
        }
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
        cJSON_AddItemToArray(nodes, node);
        if (parents[i] == OROYA_SCENE_NO_INDEX) {
            cJSON_AddItemToArray(roots, cJSON_CreateNumber(w->gidx[i]));
        } else {
            cJSON *pn = cJSON_GetArrayItem(nodes, (int)w->gidx[parents[i]]);
            cJSON *ch = add_array(w, pn, "children");
            if (ch) {
                cJSON_AddItemToArray(ch, cJSON_CreateNumber(w->gidx[i]));
            }
        }
        r = write_node(w, &t, i, node);
        if (r == OROYA_OK) {
            r = write_camera(w, &t, oroya_scene_node_at(scene, i), node);
        }
    }
    oroya__free(&w->a, t.meshes);
    oroya__free(&w->a, t.materials);
    oroya__free(&w->a, t.skeletons);
    if (r == OROYA_OK && w->oom) {
        r = oom(w);
    }
    return r;
}

static oroya_result write_bytes(const char *path, const void *a, size_t na, const void *b,
                                size_t nb, oroya_error *err) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        return oroya__fail(err, OROYA_ERR_IO, "%s: cannot open for writing", path);
    }
    bool ok = fwrite(a, 1, na, f) == na && (!nb || fwrite(b, 1, nb, f) == nb);
    ok &= fclose(f) == 0;
    return ok ? OROYA_OK : oroya__fail(err, OROYA_ERR_IO, "%s: write failed", path);
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
    static const oroya_gltf_write_desc defaults = {false, NULL, 0, {0}};
    if (!desc) {
        desc = &defaults;
    }
    if (desc->clip_count && !desc->clips) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_write: clips is NULL");
    }
    writer w = {scene, desc, desc->allocator, err, NULL, 0, 0, NULL, NULL, NULL, false, 0,
                NULL, NULL};
    w.root = cJSON_CreateObject();
    cJSON *asset = w.root ? cJSON_AddObjectToObject(w.root, "asset") : NULL;
    w.views = w.root ? cJSON_CreateArray() : NULL;
    w.accessors = w.root ? cJSON_CreateArray() : NULL;
    oroya_result r = OROYA_OK;
    if (!asset || !w.views || !w.accessors ||
        !cJSON_AddStringToObject(asset, "version", "2.0") ||
        !cJSON_AddStringToObject(asset, "generator", "oroya " OROYA_VERSION_STRING)) {
        r = oom(&w);
    }
    if (r == OROYA_OK) r = write_scene(&w);
    if (r == OROYA_OK) r = write_clips(&w);
    char *json = NULL;
    char bin_name[512] = "";
    if (r == OROYA_OK) {
        if (array_size(w.accessors)) {
            cJSON_AddItemToObject(w.root, "accessors", w.accessors);
            cJSON_AddItemToObject(w.root, "bufferViews", w.views);
            w.accessors = w.views = NULL;
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
                    if (len > 5 && !strcmp(base + len - 5, ".gltf")) {
                        len -= 5;
                    }
                    if (len + 5 > sizeof bin_name) {
                        r = oroya__fail(err, OROYA_ERR_LIMIT, "%s: name too long", path);
                    } else {
                        memcpy(bin_name, base, len);
                        memcpy(bin_name + len, ".bin", 5);
                        w.oom |= cJSON_AddStringToObject(buf, "uri", bin_name) == NULL;
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
            r = write_bytes(path, glb, total, NULL, 0, err);
            oroya__free(&w.a, glb);
        }
    } else if (r == OROYA_OK) {
        r = write_bytes(path, json, strlen(json), NULL, 0, err);
        if (r == OROYA_OK && w.bin_size) {
            char bin_path[4096];
            const char *slash = strrchr(path, '/');
            size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
            if (dir + strlen(bin_name) + 1 > sizeof bin_path) {
                r = oroya__fail(err, OROYA_ERR_LIMIT, "%s: path too long", path);
            } else {
                memcpy(bin_path, path, dir);
                memcpy(bin_path + dir, bin_name, strlen(bin_name) + 1);
                r = write_bytes(bin_path, w.bin, w.bin_size, NULL, 0, err);
            }
        }
    }
    cJSON_free(json);
    cJSON_Delete(w.root);
    cJSON_Delete(w.views);
    cJSON_Delete(w.accessors);
    oroya__free(&w.a, w.bin);
    oroya__free(&w.a, w.gidx);
    oroya__free(&w.a, w.prim_parent);
    return r;
}
