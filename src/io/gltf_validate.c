/* glTF validation: everything a reader relies on before it touches a byte. The rules are
 * the glTF 2.0 spec's MUSTs that matter for safety and meaning (section numbers below);
 * the Khronos validator checks many more (hints, unused objects) that do not. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal/gltf.h"

#define PATH_MAX_ 160

typedef struct checker {
    const oroya_gltf_data *d;
    oroya_error *err;
} checker;

static oroya_result range(checker *c, const char *path, const char *what, uint32_t index,
                          uint32_t count, const char *plural) {
    if (index < count) {
        return OROYA_OK;
    }
    return oroya__fail(c->err, OROYA_ERR_OUT_OF_RANGE, "%s%s: index %u is out of range (%u %s)",
                       path, what, index, count, plural);
}

/* ---- component type rules (3.7.2.1 attributes, 3.11 animations, KHR_mesh_quantization) --- */

enum {
    F = 1 << 0,
    B = 1 << 1,
    BN = 1 << 2,
    UB = 1 << 3,
    UBN = 1 << 4,
    S = 1 << 5,
    SN = 1 << 6,
    US = 1 << 7,
    USN = 1 << 8,
    UI = 1 << 9
};

static unsigned combo(const oroya_gltf_accessor *a) {
    switch (a->component_type) {
    case OROYA_GLTF_FLOAT: return F;
    case OROYA_GLTF_BYTE: return a->normalized ? BN : B;
    case OROYA_GLTF_UNSIGNED_BYTE: return a->normalized ? UBN : UB;
    case OROYA_GLTF_SHORT: return a->normalized ? SN : S;
    case OROYA_GLTF_UNSIGNED_SHORT: return a->normalized ? USN : US;
    case OROYA_GLTF_UNSIGNED_INT: return UI;
    default: return 0;
    }
}

static const char *combo_name(const oroya_gltf_accessor *a) {
    switch (combo(a)) {
    case F: return "FLOAT";
    case B: return "BYTE";
    case BN: return "normalized BYTE";
    case UB: return "UNSIGNED_BYTE";
    case UBN: return "normalized UNSIGNED_BYTE";
    case S: return "SHORT";
    case SN: return "normalized SHORT";
    case US: return "UNSIGNED_SHORT";
    case USN: return "normalized UNSIGNED_SHORT";
    case UI: return "UNSIGNED_INT";
    default: return "?";
    }
}

static const char *type_name(oroya_gltf_type t) {
    static const char *const n[] = {"?", "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    return (unsigned)t < 8u ? n[t] : "?";
}

typedef struct rule {
    const char *what;            /* "POSITION", "rotation output" */
    unsigned allowed;            /* combos */
    unsigned quantized;          /* extra combos with KHR_mesh_quantization */
    oroya_gltf_type type, type2; /* type2: an alternative (COLOR VEC3/VEC4), or NONE */
} rule;

static oroya_result check_rule(checker *c, const char *path, uint32_t accessor, const rule *r) {
    const oroya_gltf_accessor *a = &c->d->accessors[accessor];
    unsigned allowed = r->allowed | (c->d->uses_mesh_quantization ? r->quantized : 0u);
    if (!(combo(a) & allowed)) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                           "%s: accessor %u has component type %s, which %s does not allow", path,
                           accessor, combo_name(a), r->what);
    }
    if (a->type != r->type && a->type != r->type2) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                           "%s: accessor %u has type %s, %s needs %s%s%s", path, accessor,
                           type_name(a->type), r->what, type_name(r->type), r->type2 ? " or " : "",
                           r->type2 ? type_name(r->type2) : "");
    }
    return OROYA_OK;
}

static const unsigned ALL_INT8_16 = B | BN | UB | UBN | S | SN | US | USN;

static const rule *attribute_rule(oroya_gltf_attribute_kind kind, bool target) {
    static const rule position = {"POSITION", F, B | BN | UB | UBN | S | SN | US | USN,
                                  OROYA_GLTF_VEC3, OROYA_GLTF_TYPE_NONE};
    static const rule normal = {"NORMAL", F, BN | SN, OROYA_GLTF_VEC3, OROYA_GLTF_TYPE_NONE};
    static const rule tangent = {"TANGENT", F, BN | SN, OROYA_GLTF_VEC4, OROYA_GLTF_TYPE_NONE};
    static const rule texcoord = {"TEXCOORD_n", F | UBN | USN, B | BN | UB | S | SN | US,
                                  OROYA_GLTF_VEC2, OROYA_GLTF_TYPE_NONE};
    static const rule color = {"COLOR_n", F | UBN | USN, 0, OROYA_GLTF_VEC3, OROYA_GLTF_VEC4};
    static const rule joints = {"JOINTS_n", UB | US, 0, OROYA_GLTF_VEC4, OROYA_GLTF_TYPE_NONE};
    static const rule weights = {"WEIGHTS_n", F | UBN | USN, 0, OROYA_GLTF_VEC4,
                                 OROYA_GLTF_TYPE_NONE};
    /* Morph targets hold displacements (3.7.2.2): TANGENT loses its w there. */
    static const rule t_position = {"a morph target POSITION", F, B | BN | S | SN, OROYA_GLTF_VEC3,
                                    OROYA_GLTF_TYPE_NONE};
    static const rule t_normal = {"a morph target NORMAL", F, B | BN | S | SN, OROYA_GLTF_VEC3,
                                  OROYA_GLTF_TYPE_NONE};
    static const rule t_tangent = {"a morph target TANGENT", F, B | BN | S | SN, OROYA_GLTF_VEC3,
                                   OROYA_GLTF_TYPE_NONE};
    switch (kind) {
    case OROYA_GLTF_ATTR_POSITION: return target ? &t_position : &position;
    case OROYA_GLTF_ATTR_NORMAL: return target ? &t_normal : &normal;
    case OROYA_GLTF_ATTR_TANGENT: return target ? &t_tangent : &tangent;
    case OROYA_GLTF_ATTR_TEXCOORD: return target ? NULL : &texcoord;
    case OROYA_GLTF_ATTR_COLOR: return target ? NULL : &color;
    case OROYA_GLTF_ATTR_JOINTS: return target ? NULL : &joints;
    case OROYA_GLTF_ATTR_WEIGHTS: return target ? NULL : &weights;
    default: return NULL;
    }
}

/* ---- buffers, views, accessors (3.6) -------------------------------------------------- */

static oroya_result check_view(checker *c, uint32_t i) {
    const oroya_gltf_buffer_view *v = &c->d->buffer_views[i];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "bufferViews[%u]", i);
    TRY(range(c, path, ".buffer", v->buffer, c->d->buffer_count, "buffers"));
    const oroya_gltf_buffer *b = &c->d->buffers[v->buffer];
    if (v->byte_length == 0) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA, "%s.byteLength: must be at least 1",
                           path);
    }
    /* Offsets were capped at parse time, so the sum cannot overflow 64 bits. */
    if (v->byte_offset + v->byte_length > b->byte_length) {
        return oroya__fail(c->err, OROYA_ERR_OUT_OF_RANGE,
                           "%s: bytes [%llu, %llu) reach past buffer %u (%llu bytes)", path,
                           (unsigned long long)v->byte_offset,
                           (unsigned long long)(v->byte_offset + v->byte_length), v->buffer,
                           (unsigned long long)b->byte_length);
    }
    if (v->byte_stride && (v->byte_stride < 4 || v->byte_stride % 4)) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                           "%s.byteStride: %u is not a multiple of 4 in [4, 252]", path,
                           v->byte_stride);
    }
    return OROYA_OK;
}

/* bytes [offset, offset + size) must lie inside view `view`. */
static oroya_result check_span(checker *c, const char *path, uint32_t accessor, uint32_t view,
                               uint64_t offset, uint64_t size) {
    const oroya_gltf_buffer_view *v = &c->d->buffer_views[view];
    if (offset > v->byte_length || size > v->byte_length - offset) {
        return oroya__fail(c->err, OROYA_ERR_OUT_OF_RANGE,
                           "%s: accessor %u needs bytes [%llu, %llu) of bufferView %u, which has "
                           "%llu",
                           path, accessor, (unsigned long long)offset,
                           (unsigned long long)(offset + size), view,
                           (unsigned long long)v->byte_length);
    }
    return OROYA_OK;
}

static oroya_result check_accessor(checker *c, uint32_t i) {
    const oroya_gltf_accessor *a = &c->d->accessors[i];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "accessors[%u]", i);
    uint32_t cs = oroya__gltf_component_size(a->component_type);
    uint64_t es = oroya__gltf_element_size(a->component_type, a->type);
    if (a->normalized &&
        (a->component_type == OROYA_GLTF_FLOAT || a->component_type == OROYA_GLTF_UNSIGNED_INT)) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                           "%s.normalized: not allowed for FLOAT or UNSIGNED_INT", path);
    }
    if (a->count == 0) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA, "%s.count: must be at least 1", path);
    }
    if (a->buffer_view != OROYA_GLTF_NONE) {
        TRY(range(c, path, ".bufferView", a->buffer_view, c->d->buffer_view_count, "bufferViews"));
        const oroya_gltf_buffer_view *v = &c->d->buffer_views[a->buffer_view];
        uint64_t stride = v->byte_stride ? v->byte_stride : es;
        if (v->byte_stride && v->byte_stride < es) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "%s: bufferView %u byteStride %u is smaller than the %llu-byte "
                               "element",
                               path, a->buffer_view, v->byte_stride, (unsigned long long)es);
        }
        /* 3.6.2.4: offsets and strides keep components aligned. */
        if ((a->byte_offset + v->byte_offset) % cs) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "%s.byteOffset: %llu (+ bufferView offset %llu) is not a multiple "
                               "of the component size %u",
                               path, (unsigned long long)a->byte_offset,
                               (unsigned long long)v->byte_offset, cs);
        }
        /* count < 2^32 and stride <= 252, so the product fits easily in 64 bits. */
        uint64_t need = stride * (uint64_t)(a->count - 1u) + es;
        TRY(check_span(c, path, i, a->buffer_view, a->byte_offset, need));
    } else if ((uint64_t)a->count * es > OROYA_GLTF_MAX_UNBACKED_BYTES) {
        return oroya__fail(c->err, OROYA_ERR_LIMIT,
                           "%s.count: %u elements without a bufferView exceed the %llu-byte limit",
                           path, a->count, (unsigned long long)OROYA_GLTF_MAX_UNBACKED_BYTES);
    }
    const oroya_gltf_sparse *s = &a->sparse;
    if (!s->count) {
        return OROYA_OK;
    }
    char sp[PATH_MAX_];
    oroya__gltf_path(sp, sizeof sp, "%s.sparse", path);
    if (s->count > a->count) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                           "%s.count: %u is more than the accessor's %u elements", sp, s->count,
                           a->count);
    }
    char sub[PATH_MAX_];
    oroya__gltf_path(sub, sizeof sub, "%s.indices", sp);
    TRY(range(c, sub, ".bufferView", s->indices_buffer_view, c->d->buffer_view_count,
              "bufferViews"));
    uint32_t is = oroya__gltf_component_size(s->indices_component_type);
    TRY(check_span(c, sub, i, s->indices_buffer_view, s->indices_byte_offset,
                   (uint64_t)s->count * is));
    oroya__gltf_path(sub, sizeof sub, "%s.values", sp);
    TRY(range(c, sub, ".bufferView", s->values_buffer_view, c->d->buffer_view_count,
              "bufferViews"));
    TRY(check_span(c, sub, i, s->values_buffer_view, s->values_byte_offset,
                   (uint64_t)s->count * es));
    /* 3.6.2.3: indices strictly increase and address existing elements. */
    uint32_t prev = 0;
    for (uint32_t k = 0; k < s->count; k++) {
        uint32_t idx = oroya__gltf_sparse_index(c->d, s, k);
        if (idx >= a->count || (k > 0 && idx <= prev)) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "%s.indices: index %u is %u, which is %s", sp, k, idx,
                               idx >= a->count ? "past the accessor's count"
                                               : "not greater than the previous one");
        }
        prev = idx;
    }
    return OROYA_OK;
}

/* ---- meshes (3.7) ----------------------------------------------------------------------- */

static oroya_result check_attributes(checker *c, const char *path,
                                     const oroya_gltf_attribute *attrs, uint32_t n, bool target,
                                     uint32_t *vertex_count) {
    for (uint32_t k = 0; k < n; k++) {
        const oroya_gltf_attribute *at = &attrs[k];
        char sub[PATH_MAX_];
        oroya__gltf_path(sub, sizeof sub, "%s.%s", path, at->name);
        TRY(range(c, sub, "", at->accessor, c->d->accessor_count, "accessors"));
        const rule *r = attribute_rule(at->kind, target);
        if (r) {
            TRY(check_rule(c, sub, at->accessor, r));
        }
        uint32_t count = c->d->accessors[at->accessor].count;
        if (*vertex_count == UINT32_MAX) {
            *vertex_count = count;
        } else if (count != *vertex_count) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "%s: accessor %u has %u elements, expected %u (the other "
                               "attributes' count)",
                               sub, at->accessor, count, *vertex_count);
        }
    }
    return OROYA_OK;
}

static oroya_result check_mesh(checker *c, uint32_t i) {
    const oroya_gltf_mesh *m = &c->d->meshes[i];
    char path[PATH_MAX_];
    uint32_t targets = 0;
    for (uint32_t p = 0; p < m->primitive_count; p++) {
        const oroya_gltf_primitive *pr = &m->primitives[p];
        oroya__gltf_path(path, sizeof path, "meshes[%u].primitives[%u]", i, p);
        char sub[PATH_MAX_];
        oroya__gltf_path(sub, sizeof sub, "%s.attributes", path);
        uint32_t vertices = UINT32_MAX;
        TRY(check_attributes(c, sub, pr->attributes, pr->attribute_count, false, &vertices));
        if (pr->indices != OROYA_GLTF_NONE) {
            static const rule indices = {"indices", UB | US | UI, 0, OROYA_GLTF_SCALAR,
                                         OROYA_GLTF_TYPE_NONE};
            TRY(range(c, path, ".indices", pr->indices, c->d->accessor_count, "accessors"));
            oroya__gltf_path(sub, sizeof sub, "%s.indices", path);
            TRY(check_rule(c, sub, pr->indices, &indices));
        }
        if (pr->material != OROYA_GLTF_NONE) {
            TRY(range(c, path, ".material", pr->material, c->d->material_count, "materials"));
        }
        if (p > 0 && pr->target_count != targets) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "%s.targets: %u morph targets, primitive 0 has %u", path,
                               pr->target_count, targets);
        }
        targets = pr->target_count;
        for (uint32_t t = 0; t < pr->target_count; t++) {
            oroya__gltf_path(sub, sizeof sub, "%s.targets[%u]", path, t);
            TRY(check_attributes(c, sub, pr->targets[t].attributes, pr->targets[t].attribute_count,
                                 true, &vertices));
        }
    }
    if (m->weight_count && m->weight_count != targets) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                           "meshes[%u].weights: %u weights for %u morph targets", i,
                           m->weight_count, targets);
    }
    return OROYA_OK;
}

static uint32_t mesh_targets(const oroya_gltf_data *d, uint32_t mesh) {
    return d->meshes[mesh].primitives[0].target_count;
}

/* ---- nodes and scenes (3.5) --------------------------------------------------------------- */

/* glTF's schema gives scene.nodes, node.children and skin.joints "uniqueItems": a node
 * listed twice is refused, naming both places. list[0..n) holds node indices already checked
 * against the node count; mark (one slot per node) is all 0 on entry and on a successful
 * return, and holds 1 + the first place of each node in between, so the check is linear and
 * needs no memory of its own. */
static oroya_result unique_nodes(checker *c, const char *path, const char *what,
                                 const uint32_t *list, uint32_t n, uint32_t *mark) {
    oroya_result r = OROYA_OK;
    uint32_t k = 0;
    for (; k < n; k++) {
        if (mark[list[k]] != 0) {
            r = oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                            "%s[%u]: %s %u is listed twice (first at [%u])", path, k, what, list[k],
                            mark[list[k]] - 1u);
            break;
        }
        mark[list[k]] = k + 1u;
    }
    for (uint32_t j = 0; j < k; j++) {
        mark[list[j]] = 0;
    }
    return r;
}

static oroya_result check_nodes(checker *c, uint32_t *parent, uint32_t *mark) {
    const oroya_gltf_data *d = c->d;
    for (uint32_t i = 0; i < d->node_count; i++) {
        parent[i] = OROYA_GLTF_NONE;
        mark[i] = 0;
    }
    for (uint32_t i = 0; i < d->node_count; i++) {
        const oroya_gltf_node *n = &d->nodes[i];
        char path[PATH_MAX_];
        oroya__gltf_path(path, sizeof path, "nodes[%u]", i);
        for (uint32_t k = 0; k < n->child_count; k++) {
            char sub[PATH_MAX_];
            oroya__gltf_path(sub, sizeof sub, "%s.children[%u]", path, k);
            uint32_t ch = n->children[k];
            TRY(range(c, sub, "", ch, d->node_count, "nodes"));
            if (ch == i) {
                return oroya__fail(c->err, OROYA_ERR_CYCLE, "%s: node %u is its own child", sub, i);
            }
            if (parent[ch] == i) {
                /* Only on the way out: the scan for the first place is linear once. */
                uint32_t first = 0;
                while (n->children[first] != ch) {
                    first++;
                }
                return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                                   "%s: node %u is listed twice (first at [%u])", sub, ch, first);
            }
            if (parent[ch] != OROYA_GLTF_NONE) {
                return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                                   "%s: node %u already has parent node %u", sub, ch, parent[ch]);
            }
            parent[ch] = i;
        }
        if (n->mesh != OROYA_GLTF_NONE) {
            TRY(range(c, path, ".mesh", n->mesh, d->mesh_count, "meshes"));
            uint32_t targets = mesh_targets(d, n->mesh);
            if (n->weight_count && n->weight_count != targets) {
                return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                                   "%s.weights: %u weights for %u morph targets of mesh %u", path,
                                   n->weight_count, targets, n->mesh);
            }
        }
        if (n->skin != OROYA_GLTF_NONE) {
            TRY(range(c, path, ".skin", n->skin, d->skin_count, "skins"));
            if (n->mesh == OROYA_GLTF_NONE) {
                return oroya__fail(c->err, OROYA_ERR_INVALID_DATA, "%s.skin: node has no mesh",
                                   path);
            }
        }
        if (n->camera != OROYA_GLTF_NONE) {
            TRY(range(c, path, ".camera", n->camera, d->camera_count, "cameras"));
        }
    }
    /* With one parent per node, a cycle is a parent chain that comes back to itself. Each
     * walk stamps the nodes it visits and stops at any node stamped before, so the whole
     * check is linear. */
    for (uint32_t i = 0; i < d->node_count; i++) {
        uint32_t x = i;
        while (x != OROYA_GLTF_NONE && mark[x] == 0) {
            mark[x] = i + 1u;
            x = parent[x];
        }
        if (x != OROYA_GLTF_NONE && mark[x] == i + 1u) {
            return oroya__fail(c->err, OROYA_ERR_CYCLE,
                               "nodes[%u].children: the node graph has a cycle through node %u",
                               parent[x], x);
        }
    }
    for (uint32_t i = 0; i < d->node_count; i++) {
        mark[i] = 0; /* from here on: first places in a list, see unique_nodes */
    }
    for (uint32_t s = 0; s < d->scene_count; s++) {
        const oroya_gltf_scene *sc = &d->scenes[s];
        char path[PATH_MAX_];
        oroya__gltf_path(path, sizeof path, "scenes[%u].nodes", s);
        for (uint32_t k = 0; k < sc->node_count; k++) {
            char sub[PATH_MAX_];
            oroya__gltf_path(sub, sizeof sub, "%s[%u]", path, k);
            TRY(range(c, sub, "", sc->nodes[k], d->node_count, "nodes"));
            if (parent[sc->nodes[k]] != OROYA_GLTF_NONE) {
                return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                                   "%s: node %u is not a root (its parent is node %u)", sub,
                                   sc->nodes[k], parent[sc->nodes[k]]);
            }
        }
        TRY(unique_nodes(c, path, "node", sc->nodes, sc->node_count, mark));
    }
    return OROYA_OK;
}

static oroya_result check_skin(checker *c, uint32_t i, uint32_t *mark) {
    const oroya_gltf_skin *s = &c->d->skins[i];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "skins[%u]", i);
    for (uint32_t k = 0; k < s->joint_count; k++) {
        char sub[PATH_MAX_];
        oroya__gltf_path(sub, sizeof sub, "%s.joints[%u]", path, k);
        TRY(range(c, sub, "", s->joints[k], c->d->node_count, "nodes"));
    }
    char sub[PATH_MAX_];
    oroya__gltf_path(sub, sizeof sub, "%s.joints", path);
    TRY(unique_nodes(c, sub, "joint", s->joints, s->joint_count, mark));
    if (s->skeleton != OROYA_GLTF_NONE) {
        TRY(range(c, path, ".skeleton", s->skeleton, c->d->node_count, "nodes"));
    }
    if (s->inverse_bind_matrices != OROYA_GLTF_NONE) {
        static const rule ibm = {"inverseBindMatrices", F, 0, OROYA_GLTF_MAT4,
                                 OROYA_GLTF_TYPE_NONE};
        oroya__gltf_path(sub, sizeof sub, "%s.inverseBindMatrices", path);
        TRY(range(c, sub, "", s->inverse_bind_matrices, c->d->accessor_count, "accessors"));
        TRY(check_rule(c, sub, s->inverse_bind_matrices, &ibm));
        uint32_t n = c->d->accessors[s->inverse_bind_matrices].count;
        if (n < s->joint_count) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "%s: accessor %u has %u elements, expected at least %u (joints)",
                               sub, s->inverse_bind_matrices, n, s->joint_count);
        }
    }
    return OROYA_OK;
}

/* ---- animations (3.11) ------------------------------------------------------------------- */

static oroya_result check_sampler(checker *c, uint32_t a, uint32_t s) {
    const oroya_gltf_sampler *sm = &c->d->animations[a].samplers[s];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "animations[%u].samplers[%u].input", a, s);
    static const rule input = {"a sampler input", F, 0, OROYA_GLTF_SCALAR, OROYA_GLTF_TYPE_NONE};
    TRY(range(c, path, "", sm->input, c->d->accessor_count, "accessors"));
    TRY(check_rule(c, path, sm->input, &input));
    uint32_t keys = c->d->accessors[sm->input].count;
    if (sm->interpolation == OROYA_GLTF_CUBICSPLINE && keys < 2) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                           "%s: CUBICSPLINE needs at least 2 keys, accessor %u has %u", path,
                           sm->input, keys);
    }
    float prev = 0.0f;
    for (uint32_t k = 0; k < keys; k++) {
        float t;
        oroya__gltf_read_floats_at(c->d, sm->input, k, &t);
        if (!isfinite(t)) {
            return oroya__fail(c->err, OROYA_ERR_BAD_TIMES, "%s: key %u time is not finite", path,
                               k);
        }
        if (k == 0 && t < 0) {
            /* glTF 2.0 section 3.11: times are in seconds, >= 0. */
            return oroya__fail(c->err, OROYA_ERR_BAD_TIMES,
                               "%s: key 0 time %.9g is negative (glTF requires times >= 0)", path,
                               (double)t);
        }
        if (k > 0 && !(t > prev)) {
            return oroya__fail(c->err, OROYA_ERR_BAD_TIMES,
                               "%s: key %u time %.9g is not after key %u time %.9g", path, k,
                               (double)t, k - 1, (double)prev);
        }
        prev = t;
    }
    oroya__gltf_path(path, sizeof path, "animations[%u].samplers[%u].output", a, s);
    return range(c, path, "", sm->output, c->d->accessor_count, "accessors");
}

static oroya_result check_channel(checker *c, uint32_t a, uint32_t k) {
    const oroya_gltf_animation *an = &c->d->animations[a];
    const oroya_gltf_channel *ch = &an->channels[k];
    char path[PATH_MAX_];
    oroya__gltf_path(path, sizeof path, "animations[%u].channels[%u]", a, k);
    TRY(range(c, path, ".sampler", ch->sampler, an->sampler_count, "samplers"));
    char sub[PATH_MAX_];
    oroya__gltf_path(sub, sizeof sub, "%s.target", path);
    /* The node index is checked whatever the path: readers of the data (oroya info, the
     * importer) name the node of every channel, the ignored ones too. */
    if (ch->node != OROYA_GLTF_NONE) {
        TRY(range(c, sub, ".node", ch->node, c->d->node_count, "nodes"));
    }
    if (ch->node == OROYA_GLTF_NONE || ch->path == OROYA_GLTF_PATH_UNKNOWN) {
        return OROYA_OK; /* 3.11: such channels are ignored */
    }
    const oroya_gltf_node *node = &c->d->nodes[ch->node];
    if (node->has_matrix) {
        return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                           "%s.node: node %u is animated but given by a matrix", sub, ch->node);
    }
    uint32_t per_key = 1;
    static const rule tr = {"a translation output", F, ALL_INT8_16, OROYA_GLTF_VEC3,
                            OROYA_GLTF_TYPE_NONE};
    static const rule sc = {"a scale output", F, ALL_INT8_16, OROYA_GLTF_VEC3,
                            OROYA_GLTF_TYPE_NONE};
    static const rule rot = {"a rotation output", F | BN | UBN | SN | USN, 0, OROYA_GLTF_VEC4,
                             OROYA_GLTF_TYPE_NONE};
    static const rule wt = {"a weights output", F | BN | UBN | SN | USN, B | UB | S | US,
                            OROYA_GLTF_SCALAR, OROYA_GLTF_TYPE_NONE};
    const rule *r = ch->path == OROYA_GLTF_PATH_TRANSLATION ? &tr
                    : ch->path == OROYA_GLTF_PATH_ROTATION  ? &rot
                    : ch->path == OROYA_GLTF_PATH_SCALE     ? &sc
                                                            : &wt;
    if (ch->path == OROYA_GLTF_PATH_WEIGHTS) {
        per_key = node->mesh == OROYA_GLTF_NONE ? 0 : mesh_targets(c->d, node->mesh);
        if (per_key == 0) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "%s.path: weights on node %u, which has no morph targets", sub,
                               ch->node);
        }
    }
    const oroya_gltf_sampler *sm = &an->samplers[ch->sampler];
    oroya__gltf_path(sub, sizeof sub, "animations[%u].samplers[%u].output", a, ch->sampler);
    TRY(check_rule(c, sub, sm->output, r));
    uint64_t keys = c->d->accessors[sm->input].count;
    uint64_t expected = keys * per_key * (sm->interpolation == OROYA_GLTF_CUBICSPLINE ? 3u : 1u);
    uint32_t have = c->d->accessors[sm->output].count;
    if (have != expected) {
        return oroya__fail(c->err, OROYA_ERR_VALUE_COUNT,
                           "%s: accessor %u has %u elements, expected %llu", sub, sm->output, have,
                           (unsigned long long)expected);
    }
    return OROYA_OK;
}

/* 3.11: "Within one animation, each target (a combination of node and path) MUST NOT be
 * used more than once." One pass over the channels per path, with mark as in unique_nodes
 * (channel + 1 per node); ignored channels (no node, an unknown path) take no part. */
static oroya_result check_targets(checker *c, uint32_t a, uint32_t *mark) {
    static const char *const names[] = {"translation", "rotation", "scale", "weights"};
    static const oroya_gltf_path paths[] = {OROYA_GLTF_PATH_TRANSLATION, OROYA_GLTF_PATH_ROTATION,
                                            OROYA_GLTF_PATH_SCALE, OROYA_GLTF_PATH_WEIGHTS};
    const oroya_gltf_animation *an = &c->d->animations[a];
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        oroya_result r = OROYA_OK;
        uint32_t k = 0;
        for (; k < an->channel_count; k++) {
            const oroya_gltf_channel *ch = &an->channels[k];
            if (ch->node == OROYA_GLTF_NONE || ch->path != paths[p]) {
                continue;
            }
            if (mark[ch->node] != 0) {
                r = oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                                "animations[%u].channels[%u].target: node %u %s is already the "
                                "target of channels[%u] (each node and path once per animation)",
                                a, k, ch->node, names[p], mark[ch->node] - 1u);
                break;
            }
            mark[ch->node] = k + 1u;
        }
        for (uint32_t j = 0; j < k; j++) {
            const oroya_gltf_channel *ch = &an->channels[j];
            if (ch->node != OROYA_GLTF_NONE && ch->path == paths[p]) {
                mark[ch->node] = 0;
            }
        }
        TRY(r);
    }
    return OROYA_OK;
}

/* ---- top level ---------------------------------------------------------------------------- */

static oroya_result check_all(checker *c, uint32_t *scratch) {
    const oroya_gltf_data *d = c->d;
    for (uint32_t i = 0; i < d->extension_required_count; i++) {
        if (strcmp(d->extensions_required[i], "KHR_mesh_quantization") != 0) {
            return oroya__fail(c->err, OROYA_ERR_UNSUPPORTED,
                               "extensionsRequired[%u]: \"%.100s\" is not supported", i,
                               d->extensions_required[i]);
        }
    }
    if (d->scene != OROYA_GLTF_NONE) {
        TRY(range(c, "scene", "", d->scene, d->scene_count, "scenes"));
    }
    for (uint32_t i = 0; i < d->buffer_view_count; i++) {
        TRY(check_view(c, i));
    }
    for (uint32_t i = 0; i < d->accessor_count; i++) {
        TRY(check_accessor(c, i));
    }
    for (uint32_t i = 0; i < d->mesh_count; i++) {
        TRY(check_mesh(c, i));
    }
    uint32_t *mark = scratch ? scratch + d->node_count : NULL;
    TRY(check_nodes(c, scratch, mark));
    for (uint32_t i = 0; i < d->skin_count; i++) {
        TRY(check_skin(c, i, mark));
    }
    for (uint32_t a = 0; a < d->animation_count; a++) {
        for (uint32_t s = 0; s < d->animations[a].sampler_count; s++) {
            TRY(check_sampler(c, a, s));
        }
        for (uint32_t k = 0; k < d->animations[a].channel_count; k++) {
            TRY(check_channel(c, a, k));
        }
        TRY(check_targets(c, a, mark));
    }
    for (uint32_t i = 0; i < d->material_count; i++) {
        if (d->materials[i].base_color_texture != OROYA_GLTF_NONE) {
            char path[PATH_MAX_];
            snprintf(path, sizeof path, "materials[%u].pbrMetallicRoughness.baseColorTexture.index",
                     i);
            TRY(range(c, path, "", d->materials[i].base_color_texture, d->texture_count,
                      "textures"));
        }
    }
    for (uint32_t i = 0; i < d->texture_count; i++) {
        if (d->textures[i].source != OROYA_GLTF_NONE) {
            char path[PATH_MAX_];
            oroya__gltf_path(path, sizeof path, "textures[%u]", i);
            TRY(range(c, path, ".source", d->textures[i].source, d->image_count, "images"));
        }
        if (d->textures[i].sampler != OROYA_GLTF_NONE) {
            char path[PATH_MAX_];
            oroya__gltf_path(path, sizeof path, "textures[%u]", i);
            TRY(range(c, path, ".sampler", d->textures[i].sampler, d->texture_sampler_count,
                      "samplers"));
        }
    }
    for (uint32_t i = 0; i < d->texture_sampler_count; i++) {
        const oroya_gltf_texture_sampler *s = &d->texture_samplers[i];
        const char *bad = s->mag_filter && s->mag_filter != 9728 && s->mag_filter != 9729
                              ? "magFilter"
                          : s->min_filter && (s->min_filter < 9728 || s->min_filter > 9987 ||
                                              (s->min_filter > 9729 && s->min_filter < 9984))
                              ? "minFilter"
                          : s->wrap_s != 10497 && s->wrap_s != 33071 && s->wrap_s != 33648 ? "wrapS"
                          : s->wrap_t != 10497 && s->wrap_t != 33071 && s->wrap_t != 33648 ? "wrapT"
                                                                                           : NULL;
        if (bad) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "samplers[%u].%s: not a value glTF allows", i, bad);
        }
    }
    for (uint32_t i = 0; i < d->image_count; i++) {
        const oroya_gltf_image *im = &d->images[i];
        char path[PATH_MAX_];
        oroya__gltf_path(path, sizeof path, "images[%u]", i);
        if ((im->uri != NULL) == (im->buffer_view != OROYA_GLTF_NONE)) {
            return oroya__fail(c->err, OROYA_ERR_INVALID_DATA,
                               "%s: needs exactly one of uri and bufferView", path);
        }
        if (im->buffer_view != OROYA_GLTF_NONE) {
            TRY(range(c, path, ".bufferView", im->buffer_view, d->buffer_view_count,
                      "bufferViews"));
        }
    }
    return OROYA_OK;
}

oroya_result oroya_gltf_validate(const oroya_gltf_data *data, oroya_error *err) {
    if (!data) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_gltf_validate: data is NULL");
    }
    oroya__gltf *g = (oroya__gltf *)data;
    if (!g->buffers_loaded) {
        return oroya__fail(err, OROYA_ERR_NOT_FOUND,
                           "buffers: not loaded (call oroya_gltf_load_buffers first)");
    }
    /* Scratch for the node graph check: parents and walk stamps, 8 bytes per node. */
    uint32_t *scratch = NULL;
    if (data->node_count) {
        scratch = (uint32_t *)oroya__alloc(
            &g->allocator, oroya__mul_size(data->node_count, 2 * sizeof(uint32_t)), 16);
        if (!scratch) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "nodes: out of memory");
        }
    }
    checker c = {data, err};
    oroya_result r = check_all(&c, scratch);
    oroya__free(&g->allocator, scratch);
    /* The flag lives in the private part: a validated file lets the decoders skip checks. */
    g->validated = r == OROYA_OK;
    return r;
}
