/* The scene graph: handles over slots, node data in dense arrays ordered parents before
 * children. See include/oroya/scene.h for the contract and docs/scene.md for the design.
 *
 * Two indexings live side by side:
 *   - slots: stable per node for its lifetime (handles name them); hold the cold data
 *     (name, sibling links, components) and the node's current dense index;
 *   - dense: the hot arrays (transforms, matrices, parent indices, kinds, visibility),
 *     which move when the tree changes shape.
 * The dense order only has to put every parent before its children. Appending keeps that,
 * so add_node never moves anything; remove compacts in place; set_parent moves the subtree
 * to the end only when the new parent sits after the node. */
#include "oroya/scene.h"

#include "internal/base.h"
#include "internal/scene.h"

#include <math.h>
#include <string.h>

#define NONE UINT32_MAX
#define SLOT_MASK ((1u << OROYA_SCENE_SLOT_BITS) - 1u)
#define GEN_MAX ((1u << (32 - OROYA_SCENE_SLOT_BITS)) - 1u)
#define DEFAULT_CAPACITY 64u

typedef struct slot {
    uint32_t dense;      /* NONE while the slot is free or retired */
    uint32_t generation; /* 1..GEN_MAX, part of the handle */
    uint32_t parent;     /* parent slot or NONE */
    uint32_t first_child, last_child, next_sibling, prev_sibling; /* slots or NONE */
    uint32_t child_count;
    uint32_t next_free;
    char *name; /* NULL when unnamed */
    float *weights;
    uint32_t weight_count;
    const oroya_geometry *geometry; /* non-NULL: has a mesh */
    const oroya_material *material;
    void *skin;
    bool has_color, has_camera, has_light;
    float color[4];
    oroya_camera camera;
    oroya_light light;
} slot;

struct oroya_scene {
    /* What a mixer's update reads and writes of its scene, on the first line (the scene is
     * allocated on a line): a crowd of mixers with scenes of their own reads one line each. */
    uint32_t layout_version;
    uint32_t epoch; /* moves when transforms may have been written from outside */
    bool pending;   /* a hook has results to write */
    oroya_allocator allocator;

    slot *slots;
    uint32_t slot_count, slot_capacity;
    uint32_t free_head; /* first reusable slot or NONE */
    uint32_t root_first, root_last, root_count;

    uint32_t count, capacity;
    oroya_transform *transforms;
    oroya_mat4 *local;
    oroya_mat4 *world;
    uint32_t *parent;
    uint32_t *slot_of;
    uint8_t *kind;
    uint8_t *visible;
    uint8_t *world_visible;
    uint32_t *scratch;         /* index remapping for remove and set_parent; never per-frame */
    oroya__scene_hook *hooks;  /* writers with lazily written results (the mixer) */
    uint32_t non_finite_count; /* nodes update_world found non-finite, and the first */
    uint32_t first_non_finite;
    oroya_node first_non_finite_node; /* its handle: dense indices move with the layout */
};

oroya_transform *oroya__scene_transforms_raw(oroya_scene *s) { return s ? s->transforms : NULL; }
uint32_t oroya__scene_epoch(const oroya_scene *s) { return s ? s->epoch : 0; }

void oroya__scene_add_hook(oroya_scene *s, oroya__scene_hook *h) {
    h->next = s->hooks;
    s->hooks = h;
}

void oroya__scene_remove_hook(oroya_scene *s, oroya__scene_hook *h) {
    for (oroya__scene_hook **p = &s->hooks; *p; p = &(*p)->next) {
        if (*p == h) {
            *p = h->next;
            return;
        }
    }
}

void oroya__scene_mark_pending(oroya_scene *s) { s->pending = true; }

void oroya__scene_prefetch(const oroya_scene *s) {
    if (s) {
        __builtin_prefetch(&s->layout_version); /* layout_version, epoch, pending */
    }
}

/* The scene is only ever const at the API: the object itself is mutable memory. */
void oroya__scene_flush(const oroya_scene *cs) {
    if (!cs || !cs->pending) {
        return;
    }
    oroya_scene *s = (oroya_scene *)(uintptr_t)cs;
    s->pending = false;
    for (oroya__scene_hook *h = s->hooks; h; h = h->next) {
        h->flush(h->ctx);
    }
}

static const oroya_material default_material = {{1.0f, 1.0f, 1.0f, 1.0f}, 0.0f, 1.0f, false};

oroya_transform oroya_transform_identity(void) {
    oroya_transform t = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}, {1.0f, 1.0f, 1.0f}};
    return t;
}

oroya_material oroya_material_default(void) { return default_material; }

/* ---- storage ---------------------------------------------------------------------------- */

/* The dense arrays, listed once so growth, compaction and moves cannot forget one. */
#define DENSE_FIELDS(X)                                                                            \
    X(transforms, oroya_transform, 16)                                                             \
    X(local, oroya_mat4, 16)                                                                       \
    X(world, oroya_mat4, 16)                                                                       \
    X(parent, uint32_t, 4)                                                                         \
    X(slot_of, uint32_t, 4)                                                                        \
    X(kind, uint8_t, 1)                                                                            \
    X(visible, uint8_t, 1)                                                                         \
    X(world_visible, uint8_t, 1)                                                                   \
    X(scratch, uint32_t, 4)

static oroya_result grow_dense(oroya_scene *s, uint32_t needed) {
    if (needed <= s->capacity) {
        return OROYA_OK;
    }
    uint32_t cap = s->capacity ? s->capacity : DEFAULT_CAPACITY;
    while (cap < needed) {
        cap = cap > OROYA_SCENE_MAX_NODES / 2 ? OROYA_SCENE_MAX_NODES : cap * 2;
    }
    struct {
#define X(name, type, align) type *name;
        DENSE_FIELDS(X)
#undef X
    } n;
    memset(&n, 0, sizeof n);
    bool ok = true;
#define X(name, type, align)                                                                       \
    n.name = (type *)oroya__alloc(&s->allocator, oroya__mul_size(cap, sizeof(type)), align);       \
    ok = ok && n.name != NULL;
    DENSE_FIELDS(X)
#undef X
    if (!ok) {
#define X(name, type, align) oroya__free(&s->allocator, n.name);
        DENSE_FIELDS(X)
#undef X
        return OROYA_ERR_OUT_OF_MEMORY;
    }
#define X(name, type, align)                                                                       \
    if (s->count) {                                                                                \
        memcpy(n.name, s->name, (size_t)s->count * sizeof(type));                                  \
    }                                                                                              \
    oroya__free(&s->allocator, s->name);                                                           \
    s->name = n.name;
    DENSE_FIELDS(X)
#undef X
    s->capacity = cap;
    return OROYA_OK;
}

/* Copies dense entry `from` to `to` (from != to) in every hot array except parent and scratch,
 * which the callers remap themselves. */
static void move_dense(oroya_scene *s, uint32_t to, uint32_t from) {
    s->transforms[to] = s->transforms[from];
    s->local[to] = s->local[from];
    s->world[to] = s->world[from];
    s->slot_of[to] = s->slot_of[from];
    s->kind[to] = s->kind[from];
    s->visible[to] = s->visible[from];
    s->world_visible[to] = s->world_visible[from];
    s->slots[s->slot_of[to]].dense = to;
}

static oroya_result grow_slots(oroya_scene *s) {
    if (s->slot_count < s->slot_capacity) {
        return OROYA_OK;
    }
    uint32_t cap = s->slot_capacity ? s->slot_capacity * 2 : DEFAULT_CAPACITY;
    if (cap > OROYA_SCENE_MAX_NODES + 1u) {
        cap = OROYA_SCENE_MAX_NODES + 1u;
    }
    slot *n = (slot *)oroya__alloc(&s->allocator, oroya__mul_size(cap, sizeof(slot)), 16);
    if (!n) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    if (s->slot_count) {
        memcpy(n, s->slots, (size_t)s->slot_count * sizeof(slot));
    }
    oroya__free(&s->allocator, s->slots);
    s->slots = n;
    s->slot_capacity = cap;
    return OROYA_OK;
}

/* A handle's slot, or the reason it names none. id 0 is "none" and is no node. */
static oroya_result resolve(const oroya_scene *s, oroya_node node, uint32_t *out) {
    uint32_t index = node.id & SLOT_MASK, gen = node.id >> OROYA_SCENE_SLOT_BITS;
    if (!s || gen == 0 || index >= s->slot_count) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    const slot *sl = &s->slots[index];
    if (sl->generation != gen || sl->dense == NONE) {
        return OROYA_ERR_STALE_HANDLE;
    }
    *out = index;
    return OROYA_OK;
}

/* Like resolve, but {0} is accepted and gives NONE (the top level). */
static oroya_result resolve_parent(const oroya_scene *s, oroya_node node, uint32_t *out) {
    if (node.id == 0) {
        *out = NONE;
        return s ? OROYA_OK : OROYA_ERR_INVALID_ARGUMENT;
    }
    return resolve(s, node, out);
}

/* Like resolve, but gives the node's dense index, and a NULL `required` (the call's pointer
 * argument, such as a getter's out) is an invalid argument, checked first. */
static oroya_result resolve_dense(const oroya_scene *s, oroya_node node, const void *required,
                                  uint32_t *dense) {
    uint32_t si;
    oroya_result r = required ? resolve(s, node, &si) : OROYA_ERR_INVALID_ARGUMENT;
    if (r == OROYA_OK) {
        *dense = s->slots[si].dense;
    }
    return r;
}

/* The start of every call that may write transforms or change the tree: pending results (the
 * mixer's) land first, and the epoch moves so cached readers know to look again. */
static void begin_write(oroya_scene *s) {
    oroya__scene_flush(s);
    if (s) {
        s->epoch++;
    }
}

static oroya_node handle_of(const oroya_scene *s, uint32_t slot_index) {
    oroya_node n = {(s->slots[slot_index].generation << OROYA_SCENE_SLOT_BITS) | slot_index};
    return n;
}

static void unlink_child(oroya_scene *s, uint32_t c) {
    slot *sl = &s->slots[c];
    uint32_t *first, *last, *n;
    if (sl->parent == NONE) {
        first = &s->root_first, last = &s->root_last, n = &s->root_count;
    } else {
        slot *p = &s->slots[sl->parent];
        first = &p->first_child, last = &p->last_child, n = &p->child_count;
    }
    if (sl->prev_sibling != NONE) {
        s->slots[sl->prev_sibling].next_sibling = sl->next_sibling;
    } else {
        *first = sl->next_sibling;
    }
    if (sl->next_sibling != NONE) {
        s->slots[sl->next_sibling].prev_sibling = sl->prev_sibling;
    } else {
        *last = sl->prev_sibling;
    }
    (*n)--;
    sl->prev_sibling = sl->next_sibling = NONE;
    sl->parent = NONE;
}

static void link_child(oroya_scene *s, uint32_t c, uint32_t parent) {
    slot *sl = &s->slots[c];
    uint32_t *first, *last, *n;
    if (parent == NONE) {
        first = &s->root_first, last = &s->root_last, n = &s->root_count;
    } else {
        slot *p = &s->slots[parent];
        first = &p->first_child, last = &p->last_child, n = &p->child_count;
    }
    sl->parent = parent;
    sl->prev_sibling = *last;
    sl->next_sibling = NONE;
    if (*last != NONE) {
        s->slots[*last].next_sibling = c;
    } else {
        *first = c;
    }
    *last = c;
    (*n)++;
}

static char *copy_name(const oroya_allocator *a, const char *name, bool *ok) {
    *ok = true;
    if (!name || !name[0]) {
        return NULL;
    }
    size_t len = strlen(name);
    char *copy = (char *)oroya__alloc(a, len + 1, 1);
    if (!copy) {
        *ok = false;
        return NULL;
    }
    memcpy(copy, name, len + 1);
    return copy;
}

/* ---- scene ---------------------------------------------------------------------------- */

oroya_result oroya_scene_create(const oroya_scene_desc *desc, oroya_scene **out) {
    if (!out) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    oroya_scene_desc d = desc ? *desc : (oroya_scene_desc){0};
    if ((d.allocator.alloc == NULL) != (d.allocator.free == NULL)) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    uint32_t hint = d.capacity_hint ? d.capacity_hint : DEFAULT_CAPACITY;
    if (hint > OROYA_SCENE_MAX_NODES) {
        hint = OROYA_SCENE_MAX_NODES;
    }
    oroya_scene *s = (oroya_scene *)oroya__calloc(&d.allocator, 1, sizeof *s, 64);
    if (!s) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    s->allocator = d.allocator;
    s->layout_version = 1;
    s->free_head = NONE;
    s->root_first = s->root_last = NONE;
    if (grow_dense(s, hint) != OROYA_OK) {
        oroya_scene_destroy(s);
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    *out = s;
    return OROYA_OK;
}

static void free_slot_data(oroya_scene *s, slot *sl) {
    oroya__free(&s->allocator, sl->name);
    oroya__free(&s->allocator, sl->weights);
    sl->name = NULL;
    sl->weights = NULL;
    sl->weight_count = 0;
}

void oroya_scene_destroy(oroya_scene *scene) {
    if (!scene) {
        return;
    }
    for (uint32_t i = 0; i < scene->slot_count; i++) {
        free_slot_data(scene, &scene->slots[i]);
    }
    oroya__free(&scene->allocator, scene->slots);
#define X(name, type, align) oroya__free(&scene->allocator, scene->name);
    DENSE_FIELDS(X)
#undef X
    oroya_allocator a = scene->allocator;
    oroya__free(&a, scene);
}

oroya_result oroya_scene_add_node(oroya_scene *scene, const char *name, oroya_node parent,
                                  oroya_node_kind kind, oroya_node *out) {
    begin_write(scene);
    if (out) {
        out->id = 0;
    }
    if (!scene || !out || (unsigned)kind >= (unsigned)OROYA_NODE_KIND_COUNT_) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    uint32_t ps;
    oroya_result r = resolve_parent(scene, parent, &ps);
    if (r != OROYA_OK) {
        return r;
    }
    if (scene->count >= OROYA_SCENE_MAX_NODES ||
        (scene->free_head == NONE && scene->slot_count > OROYA_SCENE_MAX_NODES)) {
        return OROYA_ERR_LIMIT;
    }
    if (grow_dense(scene, scene->count + 1) != OROYA_OK ||
        (scene->free_head == NONE && grow_slots(scene) != OROYA_OK)) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    bool ok;
    char *copy = copy_name(&scene->allocator, name, &ok);
    if (!ok) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }

    uint32_t si, gen = 1;
    if (scene->free_head != NONE) {
        si = scene->free_head;
        scene->free_head = scene->slots[si].next_free;
        gen = scene->slots[si].generation;
    } else {
        si = scene->slot_count++;
    }
    slot *sl = &scene->slots[si];
    memset(sl, 0, sizeof *sl);
    sl->generation = gen;
    sl->parent = sl->first_child = sl->last_child = NONE;
    sl->next_sibling = sl->prev_sibling = sl->next_free = NONE;
    sl->name = copy;
    link_child(scene, si, ps);

    uint32_t i = scene->count++;
    sl->dense = i;
    scene->transforms[i] = oroya_transform_identity();
    scene->local[i] = oroya_mat4_identity();
    uint32_t pi = ps == NONE ? NONE : scene->slots[ps].dense;
    scene->world[i] = pi == NONE ? oroya_mat4_identity() : scene->world[pi];
    scene->parent[i] = pi;
    scene->slot_of[i] = si;
    scene->kind[i] = (uint8_t)kind;
    scene->visible[i] = 1;
    scene->world_visible[i] = pi == NONE ? 1 : scene->world_visible[pi];
    scene->layout_version++;
    *out = handle_of(scene, si);
    return OROYA_OK;
}

/* Marks the subtree of dense index i in scratch[i..count): NONE for members, 0 for others.
 * Parents come before children, so one forward pass sees every parent's mark first. Returns
 * the subtree size. */
static uint32_t mark_subtree(oroya_scene *s, uint32_t i) {
    uint32_t m = 1;
    s->scratch[i] = NONE;
    for (uint32_t j = i + 1; j < s->count; j++) {
        uint32_t p = s->parent[j];
        bool member = p != NONE && p >= i && s->scratch[p] == NONE;
        s->scratch[j] = member ? NONE : 0;
        m += member;
    }
    return m;
}

oroya_result oroya_scene_remove_node(oroya_scene *scene, oroya_node node) {
    begin_write(scene);
    uint32_t si;
    oroya_result r = resolve(scene, node, &si);
    if (r != OROYA_OK) {
        return r;
    }
    uint32_t i = scene->slots[si].dense;
    unlink_child(scene, si);
    mark_subtree(scene, i);
    uint32_t w = i;
    for (uint32_t j = i; j < scene->count; j++) {
        if (scene->scratch[j] == NONE) {
            slot *sl = &scene->slots[scene->slot_of[j]];
            free_slot_data(scene, sl);
            sl->dense = NONE;
            /* A slot whose generation is exhausted is retired rather than reused, so an old
             * handle can never alias a new node. */
            if (sl->generation < GEN_MAX) {
                sl->generation++;
                sl->next_free = scene->free_head;
                scene->free_head = scene->slot_of[j];
            }
        } else {
            uint32_t p = scene->parent[j];
            /* A surviving node's parent survives too; remap it when it moved. */
            scene->scratch[j] = w;
            scene->parent[w] = (p == NONE || p < i) ? p : scene->scratch[p];
            if (w != j) {
                move_dense(scene, w, j);
            }
            w++;
        }
    }
    scene->count = w;
    scene->layout_version++;
    return OROYA_OK;
}

/* The start shared by set_parent and attach: begin_write, then the checks: both handles
 * resolve (the parent may be {0}, the top level), and the new parent is not the node itself
 * or one of its descendants. */
static oroya_result begin_reparent(oroya_scene *scene, oroya_node node, oroya_node parent,
                                   uint32_t *si, uint32_t *ps) {
    begin_write(scene);
    oroya_result r = resolve(scene, node, si);
    if (r != OROYA_OK) {
        return r;
    }
    r = resolve_parent(scene, parent, ps);
    if (r != OROYA_OK) {
        return r;
    }
    /* Descendants come after a node in dense order, so a parent before it cannot be one (and
     * a deep chain linked in order costs O(1) a link, not its depth). */
    if (*ps == NONE || scene->slots[*ps].dense < scene->slots[*si].dense) {
        return OROYA_OK;
    }
    for (uint32_t a = *ps; a != NONE; a = scene->slots[a].parent) {
        if (a == *si) {
            return OROYA_ERR_CYCLE;
        }
    }
    return OROYA_OK;
}

oroya_result oroya_scene_set_parent(oroya_scene *scene, oroya_node node, oroya_node parent) {
    uint32_t si, ps;
    oroya_result r = begin_reparent(scene, node, parent, &si, &ps);
    if (r != OROYA_OK) {
        return r;
    }
    uint32_t i = scene->slots[si].dense;
    uint32_t pi = ps == NONE ? NONE : scene->slots[ps].dense;
    if (pi == NONE || pi < i) {
        unlink_child(scene, si);
        link_child(scene, si, ps);
        scene->parent[i] = pi;
        scene->layout_version++;
        return OROYA_OK;
    }

    /* The new parent comes after the node: move the node's subtree to the end, keeping the
     * relative order inside both parts, so parents stay before children. */
    uint32_t m = mark_subtree(scene, i);
    size_t entry = sizeof(oroya_transform) + 2 * sizeof(oroya_mat4) + 2 * sizeof(uint32_t) + 3;
    unsigned char *tmp =
        (unsigned char *)oroya__alloc(&scene->allocator, oroya__mul_size(m, entry), 16);
    if (!tmp) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    unlink_child(scene, si);
    link_child(scene, si, ps);

    uint32_t base = scene->count - m, w = i, k = 0;
    for (uint32_t j = i; j < scene->count; j++) {
        scene->scratch[j] = scene->scratch[j] == NONE ? base + k++ : w++;
    }
    oroya_transform *t_tr = (oroya_transform *)tmp;
    oroya_mat4 *t_local = (oroya_mat4 *)(t_tr + m);
    oroya_mat4 *t_world = t_local + m;
    uint32_t *t_parent = (uint32_t *)(t_world + m);
    uint32_t *t_slot = t_parent + m;
    uint8_t *t_kind = (uint8_t *)(t_slot + m);
    uint8_t *t_vis = t_kind + m;
    uint8_t *t_wvis = t_vis + m;
    k = 0;
    w = i;
    for (uint32_t j = i; j < scene->count; j++) {
        uint32_t p = scene->parent[j];
        uint32_t np = (p == NONE || p < i) ? p : scene->scratch[p];
        if (scene->scratch[j] >= base) {
            t_tr[k] = scene->transforms[j];
            t_local[k] = scene->local[j];
            t_world[k] = scene->world[j];
            t_parent[k] = j == i ? scene->scratch[pi] : np;
            t_slot[k] = scene->slot_of[j];
            t_kind[k] = scene->kind[j];
            t_vis[k] = scene->visible[j];
            t_wvis[k] = scene->world_visible[j];
            k++;
        } else {
            scene->parent[w] = np;
            if (w != j) {
                move_dense(scene, w, j);
            }
            w++;
        }
    }
    for (k = 0; k < m; k++) {
        uint32_t d = base + k;
        scene->transforms[d] = t_tr[k];
        scene->local[d] = t_local[k];
        scene->world[d] = t_world[k];
        scene->parent[d] = t_parent[k];
        scene->slot_of[d] = t_slot[k];
        scene->kind[d] = t_kind[k];
        scene->visible[d] = t_vis[k];
        scene->world_visible[d] = t_wvis[k];
        scene->slots[t_slot[k]].dense = d;
    }
    oroya__free(&scene->allocator, tmp);
    scene->layout_version++;
    return OROYA_OK;
}

static void compose_into(const oroya_transform *t, float *r);

/* Whether the 12 meaningful elements of an affine matrix are finite. The sum is taken in
 * double, where 12 floats cannot overflow, so it is NaN exactly when one element is NaN or
 * infinite: one branch per matrix instead of twelve. */
static inline bool matrix_finite(const float *m) {
    double sum = 0;
    for (int c = 0; c < 4; c++) {
        sum += (double)m[c * 4 + 0] + (double)m[c * 4 + 1] + (double)m[c * 4 + 2];
    }
    return sum - sum == 0;
}

static bool all_finite(const float *v, int n) {
    for (int k = 0; k < n; k++) {
        if (!isfinite(v[k])) {
            return false;
        }
    }
    return true;
}

static bool transform_finite(const oroya_transform *t) {
    const float v[10] = {t->translation.x, t->translation.y, t->translation.z, t->rotation.x,
                         t->rotation.y,    t->rotation.z,    t->rotation.w,    t->scale.x,
                         t->scale.y,       t->scale.z};
    return all_finite(v, 10);
}

oroya_result oroya_scene_attach(oroya_scene *scene, oroya_node node, oroya_node parent) {
    uint32_t si, ps;
    oroya_result r = begin_reparent(scene, node, parent, &si, &ps);
    if (r != OROYA_OK) {
        return r;
    }
    oroya_mat4 local = scene->world[scene->slots[si].dense];
    if (ps != NONE) {
        oroya_mat4 inv;
        if (!oroya_mat4_invert_affine(scene->world[scene->slots[ps].dense], &inv)) {
            return OROYA_ERR_INVALID_ARGUMENT;
        }
        local = oroya_mat4_mul(inv, local);
    }
    oroya_transform t;
    oroya_mat4_decompose(local, &t.translation, &t.rotation, &t.scale);
    if (!transform_finite(&t)) {
        return OROYA_ERR_NON_FINITE;
    }
    r = oroya_scene_set_parent(scene, node, parent);
    if (r == OROYA_OK) {
        scene->transforms[scene->slots[si].dense] = t;
    }
    return r;
}

oroya_result oroya_scene_find_node(const oroya_scene *scene, const char *name, oroya_node *out) {
    if (out) {
        out->id = 0;
    }
    if (!scene || !name || !name[0] || !out) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t j = 0; j < scene->count; j++) {
        const char *n = scene->slots[scene->slot_of[j]].name;
        if (n && strcmp(n, name) == 0) {
            *out = handle_of(scene, scene->slot_of[j]);
            return OROYA_OK;
        }
    }
    return OROYA_ERR_NOT_FOUND;
}

bool oroya_scene_node_valid(const oroya_scene *scene, oroya_node node) {
    uint32_t si;
    return resolve(scene, node, &si) == OROYA_OK;
}

const char *oroya_scene_node_name(const oroya_scene *scene, oroya_node node) {
    uint32_t si;
    if (resolve(scene, node, &si) != OROYA_OK || !scene->slots[si].name) {
        return "";
    }
    return scene->slots[si].name;
}

oroya_result oroya_scene_set_name(oroya_scene *scene, oroya_node node, const char *name) {
    uint32_t si;
    oroya_result r = resolve(scene, node, &si);
    if (r != OROYA_OK) {
        return r;
    }
    bool ok;
    char *copy = copy_name(&scene->allocator, name, &ok);
    if (!ok) {
        return OROYA_ERR_OUT_OF_MEMORY;
    }
    oroya__free(&scene->allocator, scene->slots[si].name);
    scene->slots[si].name = copy;
    return OROYA_OK;
}

oroya_result oroya_scene_node_kind(const oroya_scene *scene, oroya_node node,
                                   oroya_node_kind *out) {
    uint32_t i;
    oroya_result r = resolve_dense(scene, node, out, &i);
    if (r == OROYA_OK) {
        *out = (oroya_node_kind)scene->kind[i];
    }
    return r;
}

oroya_result oroya_scene_get_parent(const oroya_scene *scene, oroya_node node, oroya_node *out) {
    uint32_t si;
    if (!out) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    out->id = 0;
    oroya_result r = resolve(scene, node, &si);
    if (r == OROYA_OK && scene->slots[si].parent != NONE) {
        *out = handle_of(scene, scene->slots[si].parent);
    }
    return r;
}

uint32_t oroya_scene_child_count(const oroya_scene *scene, oroya_node node) {
    uint32_t si;
    if (resolve_parent(scene, node, &si) != OROYA_OK) {
        return 0;
    }
    return si == NONE ? scene->root_count : scene->slots[si].child_count;
}

oroya_result oroya_scene_get_child(const oroya_scene *scene, oroya_node node, uint32_t i,
                                   oroya_node *out) {
    uint32_t si;
    if (!out) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    out->id = 0;
    oroya_result r = resolve_parent(scene, node, &si);
    if (r != OROYA_OK) {
        return r;
    }
    uint32_t n = si == NONE ? scene->root_count : scene->slots[si].child_count;
    if (i >= n) {
        return OROYA_ERR_OUT_OF_RANGE;
    }
    uint32_t c = si == NONE ? scene->root_first : scene->slots[si].first_child;
    while (i--) {
        c = scene->slots[c].next_sibling;
    }
    *out = handle_of(scene, c);
    return OROYA_OK;
}

oroya_result oroya_scene_get_transform(const oroya_scene *scene, oroya_node node,
                                       oroya_transform *out) {
    oroya__scene_flush(scene);
    uint32_t i;
    oroya_result r = resolve_dense(scene, node, out, &i);
    if (r == OROYA_OK) {
        *out = scene->transforms[i];
    }
    return r;
}

oroya_result oroya_scene_set_transform(oroya_scene *scene, oroya_node node,
                                       const oroya_transform *t) {
    begin_write(scene);
    uint32_t i;
    oroya_result r = resolve_dense(scene, node, t, &i);
    if (r != OROYA_OK) {
        return r;
    }
    if (!transform_finite(t)) {
        return OROYA_ERR_NON_FINITE;
    }
    /* Finite components can still overflow in the matrix: a rotation of (1e20, 0, 0, 1e20)
     * squares past the float range. */
    float m[16];
    compose_into(t, m);
    if (!matrix_finite(m)) {
        return OROYA_ERR_NON_FINITE;
    }
    scene->transforms[i] = *t;
    return OROYA_OK;
}

oroya_result oroya_scene_set_visible(oroya_scene *scene, oroya_node node, bool visible) {
    uint32_t si;
    oroya_result r = resolve(scene, node, &si);
    if (r == OROYA_OK) {
        scene->visible[scene->slots[si].dense] = visible ? 1 : 0;
    }
    return r;
}

oroya_result oroya_scene_get_visible(const oroya_scene *scene, oroya_node node, bool *out) {
    uint32_t i;
    oroya_result r = resolve_dense(scene, node, out, &i);
    if (r == OROYA_OK) {
        *out = scene->visible[i] != 0;
    }
    return r;
}

/* a * b for affine matrices (last row 0 0 0 1), which every local and world matrix here is.
 * Written column by column over all four rows so the compiler can use 4-wide vector
 * arithmetic: the last row then comes out as exactly 0 0 0 1 by itself. */
static void mul_affine(const float *restrict a, const float *restrict b, float *restrict r) {
    for (int c = 0; c < 4; c++) {
        const float b0 = b[c * 4 + 0], b1 = b[c * 4 + 1], b2 = b[c * 4 + 2];
        const float b3 = c == 3 ? 1.0f : 0.0f;
        for (int row = 0; row < 4; row++) {
            r[c * 4 + row] = a[row] * b0 + a[4 + row] * b1 + a[8 + row] * b2 + a[12 + row] * b3;
        }
    }
}

/* T * R * S written straight into the destination; the same formula as oroya_mat4_compose,
 * kept here so the per-frame loop inlines it instead of returning 64-byte structs. */
static void compose_into(const oroya_transform *t, float *r) {
    const float x = t->rotation.x, y = t->rotation.y, z = t->rotation.z, w = t->rotation.w;
    const float x2 = x + x, y2 = y + y, z2 = z + z;
    const float xx = x * x2, xy = x * y2, xz = x * z2;
    const float yy = y * y2, yz = y * z2, zz = z * z2;
    const float wx = w * x2, wy = w * y2, wz = w * z2;
    const float sx = t->scale.x, sy = t->scale.y, sz = t->scale.z;
    r[0] = (1.0f - (yy + zz)) * sx;
    r[1] = (xy + wz) * sx;
    r[2] = (xz - wy) * sx;
    r[3] = 0.0f;
    r[4] = (xy - wz) * sy;
    r[5] = (1.0f - (xx + zz)) * sy;
    r[6] = (yz + wx) * sy;
    r[7] = 0.0f;
    r[8] = (xz + wy) * sz;
    r[9] = (yz - wx) * sz;
    r[10] = (1.0f - (xx + yy)) * sz;
    r[11] = 0.0f;
    r[12] = t->translation.x;
    r[13] = t->translation.y;
    r[14] = t->translation.z;
    r[15] = 1.0f;
}

void oroya_scene_update_world(oroya_scene *scene) { oroya__scene_update_world_from(scene, 0); }

void oroya__scene_update_world_from(oroya_scene *scene, uint32_t first) {
    oroya__scene_flush(scene);
    if (!scene) {
        return;
    }
    const uint32_t n = scene->count;
    const oroya_transform *tr = scene->transforms;
    const uint32_t *parent = scene->parent;
    const uint8_t *visible = scene->visible;
    oroya_mat4 *local = scene->local;
    oroya_mat4 *world = scene->world;
    uint8_t *world_visible = scene->world_visible;
    uint32_t bad = 0, first_bad = NONE;
    if (first > 0 && scene->non_finite_count && scene->first_non_finite < first) {
        /* A partial update (from IK) leaves the nodes before `first` as they were: one of
         * them was replaced, so the report keeps it. */
        bad = 1;
        first_bad = scene->first_non_finite;
    }
    for (uint32_t i = first; i < n; i++) {
        compose_into(&tr[i], local[i].m);
        const uint32_t p = parent[i];
        if (p == NONE) {
            world[i] = local[i];
            world_visible[i] = visible[i];
        } else {
            mul_affine(world[p].m, local[i].m, world[i].m);
            world_visible[i] = (uint8_t)(visible[i] & world_visible[p]);
        }
        if (!matrix_finite(world[i].m)) {
            /* A huge transform (written by the mixer, which set_transform's check does not
             * see) or an overflow along the chain (parent scale 1e30, child translation
             * 1e10). The node then sits at its parent's origin: local identity, world the
             * parent's, so its children stay finite; update_world reports it. */
            static const oroya_mat4 identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
            local[i] = identity;
            world[i] = p == NONE ? identity : world[p];
            if (bad++ == 0) {
                first_bad = i;
            }
        }
    }
    scene->non_finite_count = bad;
    scene->first_non_finite = first_bad;
    scene->first_non_finite_node =
        first_bad < n ? oroya_scene_node_at(scene, first_bad) : (oroya_node){0};
}

uint32_t oroya_scene_non_finite_count(const oroya_scene *scene, oroya_node *first) {
    if (first) {
        *first = (oroya_node){0};
    }
    if (!scene || scene->non_finite_count == 0) {
        return 0;
    }
    /* By handle: a node removed (or moved in dense order) since the update is not mistaken
     * for another; a removed one gives {0}. */
    if (first && oroya_scene_node_valid(scene, scene->first_non_finite_node)) {
        *first = scene->first_non_finite_node;
    }
    return scene->non_finite_count;
}

/* A node's world or local matrix, as update_world last wrote it. */
static oroya_result get_matrix(const oroya_scene *scene, oroya_node node, bool world,
                               oroya_mat4 *out) {
    oroya__scene_flush(scene);
    uint32_t i;
    oroya_result r = resolve_dense(scene, node, out, &i);
    if (r == OROYA_OK) {
        *out = world ? scene->world[i] : scene->local[i];
    }
    return r;
}

oroya_result oroya_scene_get_world(const oroya_scene *scene, oroya_node node, oroya_mat4 *out) {
    return get_matrix(scene, node, true, out);
}

oroya_result oroya_scene_get_local(const oroya_scene *scene, oroya_node node, oroya_mat4 *out) {
    return get_matrix(scene, node, false, out);
}

oroya_result oroya_scene_set_weight_count(oroya_scene *scene, oroya_node node, uint32_t count) {
    uint32_t si;
    oroya_result r = resolve(scene, node, &si);
    if (r != OROYA_OK) {
        return r;
    }
    slot *sl = &scene->slots[si];
    if (count == sl->weight_count) {
        return OROYA_OK;
    }
    float *w = NULL;
    if (count) {
        w = (float *)oroya__calloc(&scene->allocator, count, sizeof(float), 16);
        if (!w) {
            return OROYA_ERR_OUT_OF_MEMORY;
        }
        uint32_t keep = count < sl->weight_count ? count : sl->weight_count;
        if (keep) {
            memcpy(w, sl->weights, (size_t)keep * sizeof(float));
        }
    }
    oroya__free(&scene->allocator, sl->weights);
    sl->weights = w;
    sl->weight_count = count;
    return OROYA_OK;
}

float *oroya_scene_weights(oroya_scene *scene, oroya_node node, uint32_t *count) {
    uint32_t si;
    if (count) {
        *count = 0;
    }
    if (resolve(scene, node, &si) != OROYA_OK) {
        return NULL;
    }
    if (count) {
        *count = scene->slots[si].weight_count;
    }
    return scene->slots[si].weights;
}

/* ---- dense access ----------------------------------------------------------------------- */

uint32_t oroya_scene_node_count(const oroya_scene *scene) { return scene ? scene->count : 0; }

uint32_t oroya_scene_node_index(const oroya_scene *scene, oroya_node node) {
    uint32_t si;
    return resolve(scene, node, &si) == OROYA_OK ? scene->slots[si].dense : NONE;
}

uint32_t oroya_scene_layout_version(const oroya_scene *scene) {
    return scene ? scene->layout_version : 0;
}

oroya_transform *oroya_scene_transforms(oroya_scene *scene) {
    begin_write(scene);
    return scene ? scene->transforms : NULL;
}

const oroya_mat4 *oroya_scene_world_matrices(const oroya_scene *scene) {
    oroya__scene_flush(scene);
    return scene ? scene->world : NULL;
}

const oroya_mat4 *oroya_scene_local_matrices(const oroya_scene *scene) {
    oroya__scene_flush(scene);
    return scene ? scene->local : NULL;
}

const uint32_t *oroya_scene_parent_indices(const oroya_scene *scene) {
    return scene ? scene->parent : NULL;
}

const uint8_t *oroya_scene_kinds(const oroya_scene *scene) { return scene ? scene->kind : NULL; }

const uint8_t *oroya_scene_world_visible(const oroya_scene *scene) {
    return scene ? scene->world_visible : NULL;
}

oroya_node oroya_scene_node_at(const oroya_scene *scene, uint32_t index) {
    if (!scene || index >= scene->count) {
        oroya_node none = {0};
        return none;
    }
    return handle_of(scene, scene->slot_of[index]);
}

/* ---- components ------------------------------------------------------------------------- */

/* Like resolve, then `check` (the verdict on the call's other arguments): a bad handle is
 * reported before bad values. */
static oroya_result resolve_then(const oroya_scene *s, oroya_node node, oroya_result check,
                                 uint32_t *si) {
    oroya_result r = resolve(s, node, si);
    return r != OROYA_OK ? r : check;
}

/* The components a node may carry. */
typedef enum component { COMPONENT_MESH, COMPONENT_CAMERA, COMPONENT_LIGHT } component;

/* Like resolve, for a node that must carry component `c`: NOT_FOUND when it does not. */
static oroya_result resolve_with(const oroya_scene *s, oroya_node node, component c, uint32_t *si) {
    oroya_result r = resolve(s, node, si);
    if (r != OROYA_OK) {
        return r;
    }
    const slot *sl = &s->slots[*si];
    const bool has = c == COMPONENT_MESH     ? sl->geometry != NULL
                     : c == COMPONENT_CAMERA ? sl->has_camera
                                             : sl->has_light;
    return has ? OROYA_OK : OROYA_ERR_NOT_FOUND;
}

oroya_result oroya_scene_set_mesh(oroya_scene *scene, oroya_node node,
                                  const oroya_geometry *geometry, const oroya_material *material) {
    uint32_t si;
    oroya_result r = resolve(scene, node, &si);
    if (r != OROYA_OK) {
        return r;
    }
    slot *sl = &scene->slots[si];
    sl->geometry = geometry;
    sl->material = geometry ? (material ? material : &default_material) : NULL;
    sl->has_color = false;
    return OROYA_OK;
}

oroya_result oroya_scene_get_mesh(const oroya_scene *scene, oroya_node node,
                                  const oroya_geometry **geometry,
                                  const oroya_material **material) {
    uint32_t si;
    if (geometry) {
        *geometry = NULL;
    }
    if (material) {
        *material = NULL;
    }
    oroya_result r = resolve(scene, node, &si);
    if (r != OROYA_OK) {
        return r;
    }
    const slot *sl = &scene->slots[si];
    if (!sl->geometry) {
        return OROYA_ERR_NOT_FOUND;
    }
    if (geometry) {
        *geometry = sl->geometry;
    }
    if (material) {
        *material = sl->material;
    }
    return OROYA_OK;
}

oroya_result oroya_scene_set_mesh_color(oroya_scene *scene, oroya_node node, const float *rgba) {
    uint32_t si;
    oroya_result r = resolve_with(scene, node, COMPONENT_MESH, &si);
    if (r != OROYA_OK) {
        return r;
    }
    slot *sl = &scene->slots[si];
    if (rgba && !all_finite(rgba, 4)) {
        return OROYA_ERR_NON_FINITE;
    }
    sl->has_color = rgba != NULL;
    if (rgba) {
        memcpy(sl->color, rgba, sizeof sl->color);
    }
    return OROYA_OK;
}

oroya_result oroya_scene_get_mesh_color(const oroya_scene *scene, oroya_node node, float out[4]) {
    uint32_t si;
    oroya_result r =
        out ? resolve_with(scene, node, COMPONENT_MESH, &si) : OROYA_ERR_INVALID_ARGUMENT;
    if (r == OROYA_OK) {
        const slot *sl = &scene->slots[si];
        memcpy(out, sl->has_color ? sl->color : sl->material->base_color, 4 * sizeof(float));
    }
    return r;
}

oroya_result oroya_scene_set_skin(oroya_scene *scene, oroya_node node, void *skin) {
    uint32_t si;
    oroya_result r = resolve(scene, node, &si);
    if (r == OROYA_OK) {
        scene->slots[si].skin = skin;
    }
    return r;
}

void *oroya_scene_get_skin(const oroya_scene *scene, oroya_node node) {
    uint32_t si;
    return resolve(scene, node, &si) == OROYA_OK ? scene->slots[si].skin : NULL;
}

/* A camera of either type with its clip planes, zoom 1 and every other field zero. */
static oroya_camera camera_make(oroya_camera_type type, float znear, float zfar) {
    oroya_camera c;
    memset(&c, 0, sizeof c);
    c.type = type;
    c.znear = znear;
    c.zfar = zfar;
    c.zoom = 1.0f;
    return c;
}

oroya_camera oroya_camera_perspective(float fov_y_degrees, float aspect, float znear, float zfar) {
    oroya_camera c = camera_make(OROYA_CAMERA_PERSPECTIVE, znear, zfar);
    c.fov_y = fov_y_degrees;
    c.aspect = aspect;
    return c;
}

oroya_camera oroya_camera_orthographic(float left, float right, float top, float bottom,
                                       float znear, float zfar) {
    oroya_camera c = camera_make(OROYA_CAMERA_ORTHOGRAPHIC, znear, zfar);
    c.left = left;
    c.right = right;
    c.top = top;
    c.bottom = bottom;
    return c;
}

static oroya_result camera_check(const oroya_camera *c) {
    const float v[9] = {c->fov_y,  c->aspect, c->left, c->right, c->top,
                        c->bottom, c->znear,  c->zfar, c->zoom};
    if (!all_finite(v, 9)) {
        return OROYA_ERR_NON_FINITE;
    }
    if (!(c->zoom > 0) || c->znear == c->zfar) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    if (c->type == OROYA_CAMERA_PERSPECTIVE) {
        if (!(c->fov_y > 0 && c->fov_y < 180) || !(c->aspect > 0) || !(c->znear > 0) ||
            !(c->zfar > c->znear)) {
            return OROYA_ERR_INVALID_ARGUMENT;
        }
        return OROYA_OK;
    }
    if (c->type == OROYA_CAMERA_ORTHOGRAPHIC) {
        return c->left != c->right && c->top != c->bottom ? OROYA_OK : OROYA_ERR_INVALID_ARGUMENT;
    }
    return OROYA_ERR_INVALID_ARGUMENT;
}

/* PerspectiveCamera / OrthographicCamera.updateProjectionMatrix and Matrix4.makePerspective /
 * makeOrthographic (WebGL coordinate system), in double as in JavaScript, rounded once.
 * zn/zf rather than near/far: some platforms define those two as macros. */
oroya_result oroya_camera_projection(const oroya_camera *camera, oroya_mat4 *out) {
    if (!camera || !out) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    oroya_result r = camera_check(camera);
    if (r != OROYA_OK) {
        return r;
    }
    const double zn = camera->znear, zf = camera->zfar, zoom = camera->zoom;
    double left, right, top, bottom;
    double m[16] = {0};
    if (camera->type == OROYA_CAMERA_PERSPECTIVE) {
        const double deg2rad = 3.141592653589793 / 180;
        top = zn * tan(deg2rad * 0.5 * camera->fov_y) / zoom;
        const double height = 2 * top, width = camera->aspect * height;
        left = -0.5 * width;
        right = left + width;
        bottom = top - height;
        m[0] = 2 * zn / (right - left);
        m[5] = 2 * zn / (top - bottom);
        m[8] = (right + left) / (right - left);
        m[9] = (top + bottom) / (top - bottom);
        m[10] = -(zf + zn) / (zf - zn);
        m[14] = (-2 * zf * zn) / (zf - zn);
        m[11] = -1;
    } else {
        const double dx = ((double)camera->right - camera->left) / (2 * zoom);
        const double dy = ((double)camera->top - camera->bottom) / (2 * zoom);
        const double cx = ((double)camera->right + camera->left) / 2;
        const double cy = ((double)camera->top + camera->bottom) / 2;
        left = cx - dx, right = cx + dx, top = cy + dy, bottom = cy - dy;
        m[0] = 2 / (right - left);
        m[5] = 2 / (top - bottom);
        m[12] = -(right + left) / (right - left);
        m[13] = -(top + bottom) / (top - bottom);
        m[10] = -2 / (zf - zn);
        m[14] = -(zf + zn) / (zf - zn);
        m[15] = 1;
    }
    for (int k = 0; k < 16; k++) {
        out->m[k] = (float)m[k];
    }
    if (!all_finite(out->m, 16)) {
        return OROYA_ERR_NON_FINITE; /* float overflow of a finite but extreme frustum */
    }
    return OROYA_OK;
}

oroya_result oroya_scene_set_camera(oroya_scene *scene, oroya_node node,
                                    const oroya_camera *camera) {
    uint32_t si;
    oroya_result r = resolve_then(scene, node, camera ? camera_check(camera) : OROYA_OK, &si);
    if (r == OROYA_OK) {
        slot *sl = &scene->slots[si];
        sl->has_camera = camera != NULL;
        sl->camera = camera ? *camera : sl->camera;
    }
    return r;
}

oroya_result oroya_scene_get_camera(const oroya_scene *scene, oroya_node node, oroya_camera *out) {
    uint32_t si;
    oroya_result r =
        out ? resolve_with(scene, node, COMPONENT_CAMERA, &si) : OROYA_ERR_INVALID_ARGUMENT;
    if (r == OROYA_OK) {
        *out = scene->slots[si].camera;
    }
    return r;
}

oroya_result oroya_scene_camera_view(const oroya_scene *scene, oroya_node node, oroya_mat4 *out) {
    uint32_t i;
    oroya_result r = resolve_dense(scene, node, out, &i);
    if (r != OROYA_OK) {
        return r;
    }
    /* The world matrix is affine by construction; a zero scale makes it singular. */
    return oroya_mat4_invert_affine(scene->world[i], out) ? OROYA_OK : OROYA_ERR_INVALID_ARGUMENT;
}

oroya_light oroya_light_make(oroya_light_type type) {
    oroya_light l;
    memset(&l, 0, sizeof l);
    l.type = type;
    l.color[0] = l.color[1] = l.color[2] = 1.0f;
    l.intensity = 1.0f;
    l.decay = type == OROYA_LIGHT_POINT ? 2.0f : 0.0f;
    return l;
}

static oroya_result light_check(const oroya_light *light) {
    const float v[6] = {light->color[0],  light->color[1], light->color[2],
                        light->intensity, light->distance, light->decay};
    if (!all_finite(v, 6)) {
        return OROYA_ERR_NON_FINITE;
    }
    if ((unsigned)light->type > (unsigned)OROYA_LIGHT_AMBIENT || light->intensity < 0 ||
        light->distance < 0 || light->decay < 0) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    return OROYA_OK;
}

oroya_result oroya_scene_set_light(oroya_scene *scene, oroya_node node, const oroya_light *light) {
    uint32_t si;
    oroya_result r = resolve_then(scene, node, light ? light_check(light) : OROYA_OK, &si);
    if (r == OROYA_OK) {
        slot *sl = &scene->slots[si];
        sl->has_light = light != NULL;
        sl->light = light ? *light : sl->light;
    }
    return r;
}

oroya_result oroya_scene_get_light(const oroya_scene *scene, oroya_node node, oroya_light *out) {
    uint32_t si;
    oroya_result r =
        out ? resolve_with(scene, node, COMPONENT_LIGHT, &si) : OROYA_ERR_INVALID_ARGUMENT;
    if (r == OROYA_OK) {
        *out = scene->slots[si].light;
    }
    return r;
}

float *oroya__scene_light_intensity(oroya_scene *scene, oroya_node node) {
    uint32_t si;
    return resolve_with(scene, node, COMPONENT_LIGHT, &si) == OROYA_OK
               ? &scene->slots[si].light.intensity
               : NULL;
}

float *oroya__scene_camera_fov(oroya_scene *scene, oroya_node node) {
    uint32_t si;
    return resolve_with(scene, node, COMPONENT_CAMERA, &si) == OROYA_OK
               ? &scene->slots[si].camera.fov_y
               : NULL;
}
