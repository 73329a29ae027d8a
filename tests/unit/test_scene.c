/* Scene graph: world matrices against a naive double-precision reference on random trees of
 * 1,000 nodes (also after random re-parenting and removals, checked against a model of the
 * tree kept by the test), cycles refused, stale handles refused, dense access, allocation
 * behaviour, and the components (camera projections against three.js's formulas). */
#include "oroya/scene.h"
#include "oroya_test.h"

#include <stdlib.h>

#define N_NODES 1000

/* ---- a counting allocator that can fail on demand --------------------------------------- */

typedef struct counting {
    long allocs, frees;
    long fail_at; /* fail the allocation with this number (1-based); 0: never */
    long failed;
} counting;

static void *counting_alloc(size_t size, size_t align, void *user) {
    counting *c = (counting *)user;
    c->allocs++;
    if (c->fail_at && c->allocs == c->fail_at) {
        c->failed++;
        return NULL;
    }
    /* glibc's malloc returns 16-byte aligned blocks, all the scene asks for. */
    (void)align;
    return malloc(size ? size : 1);
}

static void counting_free(void *ptr, void *user) {
    counting *c = (counting *)user;
    if (ptr) {
        c->frees++;
    }
    free(ptr);
}

static oroya_allocator counting_allocator(counting *c) {
    oroya_allocator a = {counting_alloc, counting_free, c};
    return a;
}

/* ---- the naive reference ---------------------------------------------------------------- */

/* T * R * S in double, written out from the quaternion-to-matrix formula independently of
 * oroya_mat4_compose; row-major d[r][c]. */
static void naive_local(const oroya_transform *t, double d[4][4]) {
    double x = t->rotation.x, y = t->rotation.y, z = t->rotation.z, w = t->rotation.w;
    double r[3][3] = {
        {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
        {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
        {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)},
    };
    double s[3] = {t->scale.x, t->scale.y, t->scale.z};
    double tr[3] = {t->translation.x, t->translation.y, t->translation.z};
    for (int row = 0; row < 3; row++) {
        for (int c = 0; c < 3; c++) {
            d[row][c] = r[row][c] * s[c];
        }
        d[row][3] = tr[row];
    }
    d[3][0] = d[3][1] = d[3][2] = 0;
    d[3][3] = 1;
}

static void naive_mul(double a[4][4], double b[4][4], double out[4][4]) {
    double r[4][4];
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            double acc = 0;
            for (int k = 0; k < 4; k++) {
                acc += a[i][k] * b[k][j];
            }
            r[i][j] = acc;
        }
    }
    memcpy(out, r, sizeof r);
}

/* World of a node: the product of the local matrices from the top down, following the
 * parent handles the scene reports (which the model checks separately). */
static void naive_world(const oroya_scene *s, oroya_node n, double out[4][4]) {
    oroya_node chain[N_NODES + 1];
    int depth = 0;
    while (n.id != 0 && depth <= N_NODES) {
        chain[depth++] = n;
        oroya_node p;
        if (oroya_scene_get_parent(s, n, &p) != OROYA_OK) {
            break;
        }
        n = p;
    }
    double acc[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    for (int k = depth - 1; k >= 0; k--) {
        oroya_transform t;
        double l[4][4];
        oroya_scene_get_transform(s, chain[k], &t);
        naive_local(&t, l);
        naive_mul(acc, l, acc);
    }
    memcpy(out, acc, sizeof acc);
}

static oroya_transform random_transform(void) {
    oroya_transform t;
    t.translation = (oroya_vec3){ot_randf(-2, 2), ot_randf(-2, 2), ot_randf(-2, 2)};
    oroya_quat q = {ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1), ot_randf(-1, 1)};
    t.rotation = oroya_quat_normalize(q);
    t.scale = (oroya_vec3){ot_randf(0.7f, 1.3f), ot_randf(0.7f, 1.3f), ot_randf(0.7f, 1.3f)};
    return t;
}

/* Returns the number of world matrix elements off by more than tolerance (relative to the
 * magnitude of the reference, as deep chains accumulate float error). */
static int compare_all_worlds(const oroya_scene *s) {
    int bad = 0;
    const oroya_mat4 *world = oroya_scene_world_matrices(s);
    uint32_t n = oroya_scene_node_count(s);
    for (uint32_t i = 0; i < n; i++) {
        oroya_node h = oroya_scene_node_at(s, i);
        double ref[4][4];
        naive_world(s, h, ref);
        oroya_mat4 byhandle;
        oroya_scene_get_world(s, h, &byhandle);
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 4; r++) {
                double want = ref[r][c], got = world[i].m[c * 4 + r];
                double tol = 1e-4 * (1.0 + fabs(want));
                if (!(fabs(got - want) <= tol) || byhandle.m[c * 4 + r] != world[i].m[c * 4 + r]) {
                    if (bad < 5) {
                        fprintf(stderr, "node %u m[%d][%d] = %.9g, naive %.9g\n", i, r, c, got,
                                want);
                    }
                    bad++;
                }
            }
        }
    }
    return bad;
}

/* ---- the test's own model of the tree ---------------------------------------------------- */

typedef struct model {
    oroya_node handle[N_NODES * 2];
    int parent[N_NODES * 2]; /* model index, -1 top level */
    long stamp[N_NODES * 2]; /* when it was attached to its current parent */
    bool alive[N_NODES * 2];
    int count;
    long clock;
} model;

static bool model_is_ancestor(const model *m, int a, int n) {
    for (int p = n; p >= 0; p = m->parent[p]) {
        if (p == a) {
            return true;
        }
    }
    return false;
}

static int model_find(const model *m, oroya_node h) {
    for (int k = 0; k < m->count; k++) {
        if (m->alive[k] && m->handle[k].id == h.id) {
            return k;
        }
    }
    return -1;
}

/* Checks the scene's structure against the model: validity, parents, the children of every
 * node in attach order, dense invariants and index/handle round trips. Returns the number of
 * mismatches. */
static int check_structure(const oroya_scene *s, const model *m) {
    int bad = 0, alive = 0;
    uint32_t n = oroya_scene_node_count(s);
    const uint32_t *parent = oroya_scene_parent_indices(s);
    for (uint32_t i = 0; i < n; i++) {
        bad += !(parent[i] == OROYA_SCENE_NO_INDEX || parent[i] < i);
        oroya_node h = oroya_scene_node_at(s, i);
        bad += oroya_scene_node_index(s, h) != i;
        int k = model_find(m, h);
        bad += k < 0;
        if (k >= 0) {
            uint32_t want = m->parent[k] < 0 ? OROYA_SCENE_NO_INDEX
                                             : oroya_scene_node_index(s, m->handle[m->parent[k]]);
            bad += parent[i] != want;
        }
    }
    for (int k = -1; k < m->count; k++) {
        if (k >= 0 && !m->alive[k]) {
            bad += oroya_scene_node_valid(s, m->handle[k]);
            oroya_transform t;
            bad += oroya_scene_get_transform(s, m->handle[k], &t) != OROYA_ERR_STALE_HANDLE;
            continue;
        }
        oroya_node h = k < 0 ? (oroya_node){0} : m->handle[k];
        if (k >= 0) {
            alive++;
            bad += !oroya_scene_node_valid(s, h);
            oroya_node p;
            bad += oroya_scene_get_parent(s, h, &p) != OROYA_OK;
            bad += p.id != (m->parent[k] < 0 ? 0u : m->handle[m->parent[k]].id);
        }
        /* Children of h in the model, in stamp order, must be what get_child reports. */
        uint32_t expected = 0;
        for (int c = 0; c < m->count; c++) {
            expected += m->alive[c] && m->parent[c] == k;
        }
        bad += oroya_scene_child_count(s, h) != expected;
        long last = -1;
        for (uint32_t i = 0; i < expected; i++) {
            oroya_node c;
            if (oroya_scene_get_child(s, h, i, &c) != OROYA_OK) {
                bad++;
                break;
            }
            int ck = model_find(m, c);
            bad += ck < 0 || m->parent[ck] != k || m->stamp[ck] <= last;
            last = ck < 0 ? last : m->stamp[ck];
        }
        oroya_node none;
        bad += oroya_scene_get_child(s, h, expected, &none) != OROYA_ERR_OUT_OF_RANGE;
    }
    bad += (uint32_t)alive != n;
    return bad;
}

static int model_add(model *m, oroya_scene *s, int parent) {
    int k = m->count++;
    char name[32];
    snprintf(name, sizeof name, "node%d", k);
    oroya_node p = parent < 0 ? (oroya_node){0} : m->handle[parent];
    OT_EQ_INT(oroya_scene_add_node(s, name, p, OROYA_NODE_OBJECT, &m->handle[k]), OROYA_OK);
    oroya_transform t = random_transform();
    OT_EQ_INT(oroya_scene_set_transform(s, m->handle[k], &t), OROYA_OK);
    m->parent[k] = parent;
    m->alive[k] = true;
    m->stamp[k] = m->clock++;
    return k;
}

static int random_alive(const model *m) {
    for (;;) {
        int k = (int)ot_randf(0, (float)m->count);
        if (k < m->count && m->alive[k]) {
            return k;
        }
    }
}

static model g_model;

static void test_random_tree_world(void) {
    model *m = &g_model;
    memset(m, 0, sizeof *m);
    oroya_scene *s;
    OT_EQ_INT(oroya_scene_create(&(oroya_scene_desc){.capacity_hint = 16}, &s), OROYA_OK);
    for (int k = 0; k < N_NODES; k++) {
        /* About one node in fifty starts a new top-level tree; the rest attach to a random
         * earlier node, which makes trees of depth ~20 and a few long chains. */
        int parent = k == 0 || ot_randf(0, 1) < 0.02f ? -1
                     : ot_randf(0, 1) < 0.3f          ? k - 1
                                                      : random_alive(m);
        model_add(m, s, parent);
    }
    OT_EQ_INT(oroya_scene_node_count(s), N_NODES);
    oroya_scene_update_world(s);
    OT_EQ_INT(compare_all_worlds(s), 0);
    OT_EQ_INT(check_structure(s, m), 0);

    /* Local matrices are compose(TRS). */
    const oroya_mat4 *local = oroya_scene_local_matrices(s);
    int bad = 0;
    for (uint32_t i = 0; i < N_NODES; i++) {
        oroya_transform t;
        double ref[4][4];
        oroya_scene_get_transform(s, oroya_scene_node_at(s, i), &t);
        naive_local(&t, ref);
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 4; r++) {
                bad += fabs(local[i].m[c * 4 + r] - ref[r][c]) > 1e-5;
            }
        }
    }
    OT_EQ_INT(bad, 0);

    /* Random re-parenting (some would be cycles: those must be refused and change nothing)
     * and random subtree removals, checking everything after each batch. */
    int cycles = 0, reorders = 0;
    for (int round = 0; round < 20; round++) {
        for (int op = 0; op < 40; op++) {
            int a = random_alive(m);
            int b = ot_randf(0, 1) < 0.1f ? -1 : random_alive(m);
            uint32_t ia = oroya_scene_node_index(s, m->handle[a]);
            oroya_node pb = b < 0 ? (oroya_node){0} : m->handle[b];
            uint32_t version = oroya_scene_layout_version(s);
            oroya_result r = oroya_scene_set_parent(s, m->handle[a], pb);
            if (b >= 0 && model_is_ancestor(m, a, b)) {
                OT_EQ_INT(r, OROYA_ERR_CYCLE);
                OT_EQ_INT(oroya_scene_layout_version(s), version);
                cycles++;
            } else {
                OT_EQ_INT(r, OROYA_OK);
                OT_CHECK(oroya_scene_layout_version(s) != version);
                reorders += oroya_scene_node_index(s, m->handle[a]) != ia;
                m->parent[a] = b;
                m->stamp[a] = m->clock++;
            }
        }
        for (int op = 0; op < 3; op++) {
            int a = random_alive(m);
            OT_EQ_INT(oroya_scene_remove_node(s, m->handle[a]), OROYA_OK);
            /* The model's subtree: every node with a as an ancestor. */
            bool dead[N_NODES * 2] = {false};
            for (int k = 0; k < m->count; k++) {
                dead[k] = m->alive[k] && model_is_ancestor(m, a, k);
            }
            for (int k = 0; k < m->count; k++) {
                m->alive[k] = m->alive[k] && !dead[k];
            }
        }
        for (int op = 0; op < 10; op++) {
            model_add(m, s, ot_randf(0, 1) < 0.1f ? -1 : random_alive(m));
        }
        oroya_scene_update_world(s);
        int bw = compare_all_worlds(s), bs = check_structure(s, m);
        OT_EQ_INT(bw, 0);
        OT_EQ_INT(bs, 0);
        if (bw || bs) {
            break;
        }
    }
    /* The walk must actually have exercised both refusal and subtree moves. */
    OT_CHECK(cycles > 0);
    OT_CHECK(reorders > 0);
    oroya_scene_destroy(s);
}

/* attach keeps world transforms: with uniform scales (which TRS can always hold), every world
 * matrix is the same before and after attaching random nodes to random new parents. */
static void test_attach(void) {
    oroya_scene *s;
    oroya_node n[200];
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    for (int k = 0; k < 200; k++) {
        oroya_node p =
            k == 0 || ot_randf(0, 1) < 0.05f ? (oroya_node){0} : n[(int)ot_randf(0, (float)k)];
        OT_EQ_INT(oroya_scene_add_node(s, NULL, p, OROYA_NODE_OBJECT, &n[k]), OROYA_OK);
        oroya_transform t = random_transform();
        float u = ot_randf(0.8f, 1.25f);
        t.scale = (oroya_vec3){u, u, u};
        oroya_scene_set_transform(s, n[k], &t);
    }
    int attached = 0, cycles = 0, bad = 0;
    for (int op = 0; op < 100; op++) {
        oroya_scene_update_world(s);
        oroya_mat4 before[200];
        for (int k = 0; k < 200; k++) {
            oroya_scene_get_world(s, n[k], &before[k]);
        }
        int a = (int)ot_randf(0, 200), b = (int)ot_randf(0, 200);
        oroya_node pb = ot_randf(0, 1) < 0.1f ? (oroya_node){0} : n[b % 200];
        oroya_result r = oroya_scene_attach(s, n[a % 200], pb);
        if (r == OROYA_ERR_CYCLE) {
            cycles++;
            continue;
        }
        OT_EQ_INT(r, OROYA_OK);
        oroya_node p;
        oroya_scene_get_parent(s, n[a % 200], &p);
        OT_EQ_INT(p.id, pb.id);
        attached++;
        oroya_scene_update_world(s);
        for (int k = 0; k < 200; k++) {
            oroya_mat4 after;
            oroya_scene_get_world(s, n[k], &after);
            for (int e = 0; e < 16; e++) {
                bad += fabs(after.m[e] - before[k].m[e]) > 2e-4 * (1 + fabs(before[k].m[e]));
            }
        }
    }
    OT_EQ_INT(bad, 0);
    OT_CHECK(attached > 50 && cycles > 0);
    /* A singular parent cannot take a child by attach; nothing changes. */
    oroya_node flat, child;
    oroya_scene_add_node(s, "flat", (oroya_node){0}, OROYA_NODE_OBJECT, &flat);
    oroya_scene_add_node(s, "child", (oroya_node){0}, OROYA_NODE_OBJECT, &child);
    oroya_transform t = oroya_transform_identity();
    t.scale.y = 0;
    oroya_scene_set_transform(s, flat, &t);
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_scene_attach(s, child, flat), OROYA_ERR_INVALID_ARGUMENT);
    oroya_node p;
    oroya_scene_get_parent(s, child, &p);
    OT_EQ_INT(p.id, 0);
    OT_EQ_INT(oroya_scene_attach(s, child, child), OROYA_ERR_CYCLE);
    OT_EQ_INT(oroya_scene_attach(NULL, child, flat), OROYA_ERR_INVALID_ARGUMENT);
    oroya_scene_remove_node(s, flat);
    OT_EQ_INT(oroya_scene_attach(s, child, flat), OROYA_ERR_STALE_HANDLE);
    oroya_scene_destroy(s);
}

static void test_cycles_refused(void) {
    oroya_scene *s;
    oroya_node a, b, c, d;
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    oroya_scene_add_node(s, "a", (oroya_node){0}, OROYA_NODE_OBJECT, &a);
    oroya_scene_add_node(s, "b", a, OROYA_NODE_OBJECT, &b);
    oroya_scene_add_node(s, "c", b, OROYA_NODE_OBJECT, &c);
    oroya_scene_add_node(s, "d", (oroya_node){0}, OROYA_NODE_OBJECT, &d);
    OT_EQ_INT(oroya_scene_set_parent(s, a, a), OROYA_ERR_CYCLE);
    OT_EQ_INT(oroya_scene_set_parent(s, a, b), OROYA_ERR_CYCLE);
    OT_EQ_INT(oroya_scene_set_parent(s, a, c), OROYA_ERR_CYCLE);
    OT_EQ_INT(oroya_scene_set_parent(s, b, c), OROYA_ERR_CYCLE);
    oroya_node p;
    oroya_scene_get_parent(s, a, &p);
    OT_EQ_INT(p.id, 0);
    oroya_scene_get_parent(s, c, &p);
    OT_EQ_INT(p.id, b.id);
    /* Legal moves: c to the top, a under d (d comes after a: the subtree a, b moves). */
    OT_EQ_INT(oroya_scene_set_parent(s, c, (oroya_node){0}), OROYA_OK);
    OT_EQ_INT(oroya_scene_set_parent(s, a, d), OROYA_OK);
    OT_CHECK(oroya_scene_node_index(s, a) > oroya_scene_node_index(s, d));
    OT_CHECK(oroya_scene_node_index(s, b) > oroya_scene_node_index(s, a));
    OT_EQ_INT(oroya_scene_set_parent(s, d, b), OROYA_ERR_CYCLE);
    OT_EQ_INT(oroya_scene_child_count(s, (oroya_node){0}), 2); /* d, c */
    oroya_node first;
    oroya_scene_get_child(s, (oroya_node){0}, 0, &first);
    OT_EQ_INT(first.id, d.id);
    oroya_scene_destroy(s);
}

static void test_stale_handles(void) {
    oroya_scene *s;
    oroya_node a, b, c;
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    oroya_scene_add_node(s, "a", (oroya_node){0}, OROYA_NODE_OBJECT, &a);
    oroya_scene_add_node(s, "b", a, OROYA_NODE_BONE, &b);
    OT_EQ_INT(oroya_scene_set_weight_count(s, b, 4), OROYA_OK);
    OT_EQ_INT(oroya_scene_remove_node(s, a), OROYA_OK);
    OT_EQ_INT(oroya_scene_node_count(s), 0);
    /* Every entry point refuses both handles. */
    oroya_node h[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        oroya_transform t = oroya_transform_identity();
        oroya_mat4 mtx;
        oroya_node n;
        oroya_node_kind kind;
        bool vis;
        uint32_t cnt = 7;
        OT_CHECK(!oroya_scene_node_valid(s, h[k]));
        OT_EQ_INT(oroya_scene_remove_node(s, h[k]), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_set_parent(s, h[k], (oroya_node){0}), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_get_transform(s, h[k], &t), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_set_transform(s, h[k], &t), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_set_visible(s, h[k], true), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_get_visible(s, h[k], &vis), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_get_world(s, h[k], &mtx), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_get_local(s, h[k], &mtx), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_get_parent(s, h[k], &n), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_get_child(s, h[k], 0, &n), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_node_kind(s, h[k], &kind), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_set_weight_count(s, h[k], 2), OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(oroya_scene_set_name(s, h[k], "x"), OROYA_ERR_STALE_HANDLE);
        OT_CHECK(oroya_scene_weights(s, h[k], &cnt) == NULL && cnt == 0);
        OT_EQ_INT(oroya_scene_node_index(s, h[k]), OROYA_SCENE_NO_INDEX);
        OT_EQ_INT(oroya_scene_child_count(s, h[k]), 0);
        OT_CHECK(strcmp(oroya_scene_node_name(s, h[k]), "") == 0);
        OT_EQ_INT(oroya_scene_add_node(s, "c", h[k], OROYA_NODE_OBJECT, &n),
                  OROYA_ERR_STALE_HANDLE);
        OT_EQ_INT(n.id, 0);
    }
    /* Slots are reused, but an old handle never aliases the new node, even after many
     * reuses of the same slot (slots retire when their generation runs out). */
    bool aliased = false;
    for (int k = 0; k < 10000; k++) {
        OT_EQ_INT(oroya_scene_add_node(s, "c", (oroya_node){0}, OROYA_NODE_OBJECT, &c), OROYA_OK);
        aliased = aliased || c.id == a.id || c.id == b.id || oroya_scene_node_valid(s, a);
        OT_EQ_INT(oroya_scene_remove_node(s, c), OROYA_OK);
    }
    OT_CHECK(!aliased);
    OT_CHECK(!oroya_scene_node_valid(s, c));
    /* Malformed handles: id 0, a slot never used, a generation 0. */
    oroya_transform t;
    OT_EQ_INT(oroya_scene_get_transform(s, (oroya_node){0}, &t), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_transform(s, (oroya_node){(1u << 20) | 5000u}, &t),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_transform(s, (oroya_node){1}, &t), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_remove_node(s, (oroya_node){0}), OROYA_ERR_INVALID_ARGUMENT);
    oroya_scene_destroy(s);
}

static void test_null_and_bad_arguments(void) {
    oroya_scene *s = NULL;
    oroya_node n, a;
    oroya_transform t = oroya_transform_identity();
    oroya_mat4 mtx;
    OT_EQ_INT(oroya_scene_create(NULL, NULL), OROYA_ERR_INVALID_ARGUMENT);
    oroya_scene_desc half = {0};
    half.allocator.alloc = counting_alloc;
    OT_EQ_INT(oroya_scene_create(&half, &s), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(s == NULL);
    oroya_scene_destroy(NULL);
    oroya_scene_update_world(NULL);
    OT_EQ_INT(oroya_scene_add_node(NULL, "x", (oroya_node){0}, OROYA_NODE_OBJECT, &n),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    OT_EQ_INT(oroya_scene_add_node(s, "x", (oroya_node){0}, OROYA_NODE_OBJECT, NULL),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_add_node(s, "x", (oroya_node){0}, (oroya_node_kind)99, &n),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_add_node(s, "x", (oroya_node){0}, (oroya_node_kind)-1, &n),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_node_count(s), 0);
    OT_EQ_INT(oroya_scene_add_node(s, NULL, (oroya_node){0}, OROYA_NODE_CAMERA, &a), OROYA_OK);
    OT_CHECK(strcmp(oroya_scene_node_name(s, a), "") == 0);
    OT_EQ_INT(oroya_scene_find_node(s, NULL, &n), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_find_node(s, "", &n), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_find_node(s, "x", NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_find_node(NULL, "x", &n), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_transform(s, a, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_set_transform(s, a, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_world(s, a, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_local(s, a, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_parent(s, a, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_child(s, a, 0, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_node_kind(s, a, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_visible(s, a, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_world(NULL, a, &mtx), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_set_parent(NULL, a, (oroya_node){0}), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_set_parent(s, (oroya_node){0}, a), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_remove_node(NULL, a), OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(!oroya_scene_node_valid(NULL, a));
    OT_CHECK(strcmp(oroya_scene_node_name(NULL, a), "") == 0);
    OT_EQ_INT(oroya_scene_child_count(NULL, (oroya_node){0}), 0);
    OT_EQ_INT(oroya_scene_node_count(NULL), 0);
    OT_EQ_INT(oroya_scene_node_index(NULL, a), OROYA_SCENE_NO_INDEX);
    OT_CHECK(oroya_scene_transforms(NULL) == NULL);
    OT_CHECK(oroya_scene_world_matrices(NULL) == NULL);
    OT_CHECK(oroya_scene_parent_indices(NULL) == NULL);
    OT_EQ_INT(oroya_scene_node_at(NULL, 0).id, 0);
    OT_EQ_INT(oroya_scene_node_at(s, 1).id, 0);
    /* Non-finite transforms are refused and leave the old one in place. */
    t.translation.x = NAN;
    OT_EQ_INT(oroya_scene_set_transform(s, a, &t), OROYA_ERR_NON_FINITE);
    t = oroya_transform_identity();
    t.rotation.w = INFINITY;
    OT_EQ_INT(oroya_scene_set_transform(s, a, &t), OROYA_ERR_NON_FINITE);
    oroya_scene_get_transform(s, a, &t);
    OT_CHECK(t.translation.x == 0 && t.rotation.w == 1 && t.scale.y == 1);
    oroya_node_kind kind;
    OT_EQ_INT(oroya_scene_node_kind(s, a, &kind), OROYA_OK);
    OT_EQ_INT(kind, OROYA_NODE_CAMERA);
    oroya_node bone;
    OT_EQ_INT(oroya_scene_add_node(s, "bone", a, OROYA_NODE_BONE, &bone), OROYA_OK);
    const uint8_t *kinds = oroya_scene_kinds(s);
    OT_EQ_INT(kinds[oroya_scene_node_index(s, a)], OROYA_NODE_CAMERA);
    OT_EQ_INT(kinds[oroya_scene_node_index(s, bone)], OROYA_NODE_BONE);
    OT_CHECK(oroya_scene_kinds(NULL) == NULL);
    oroya_scene_destroy(s);
}

static void test_names(void) {
    oroya_scene *s;
    oroya_node a, b, c, n;
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    char name[8] = "hips";
    oroya_scene_add_node(s, name, (oroya_node){0}, OROYA_NODE_BONE, &a);
    name[0] = 'X'; /* the scene keeps its own copy */
    oroya_scene_add_node(s, "spine", a, OROYA_NODE_BONE, &b);
    oroya_scene_add_node(s, "spine", (oroya_node){0}, OROYA_NODE_BONE, &c);
    OT_CHECK(strcmp(oroya_scene_node_name(s, a), "hips") == 0);
    OT_EQ_INT(oroya_scene_find_node(s, "hips", &n), OROYA_OK);
    OT_EQ_INT(n.id, a.id);
    OT_EQ_INT(oroya_scene_find_node(s, "spine", &n), OROYA_OK);
    OT_EQ_INT(n.id, b.id); /* first in node order */
    OT_EQ_INT(oroya_scene_find_node(s, "Xips", &n), OROYA_ERR_NOT_FOUND);
    OT_EQ_INT(n.id, 0);
    OT_EQ_INT(oroya_scene_find_node(s, "spin", &n), OROYA_ERR_NOT_FOUND);
    /* After b moves under c (c is after b: b moves to the end), c is first. */
    OT_EQ_INT(oroya_scene_set_parent(s, b, c), OROYA_OK);
    OT_EQ_INT(oroya_scene_find_node(s, "spine", &n), OROYA_OK);
    OT_EQ_INT(n.id, c.id);
    OT_EQ_INT(oroya_scene_set_name(s, c, NULL), OROYA_OK);
    OT_CHECK(strcmp(oroya_scene_node_name(s, c), "") == 0);
    OT_EQ_INT(oroya_scene_find_node(s, "spine", &n), OROYA_OK);
    OT_EQ_INT(n.id, b.id);
    OT_EQ_INT(oroya_scene_set_name(s, a, "root"), OROYA_OK);
    OT_EQ_INT(oroya_scene_find_node(s, "root", &n), OROYA_OK);
    OT_EQ_INT(n.id, a.id);
    oroya_scene_destroy(s);
}

static void test_transforms_and_visibility(void) {
    oroya_scene *s;
    oroya_node a, b;
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    oroya_scene_add_node(s, "a", (oroya_node){0}, OROYA_NODE_OBJECT, &a);
    oroya_scene_add_node(s, "b", a, OROYA_NODE_OBJECT, &b);
    /* a: rotate 90 degrees about z, move to (1, 0, 0); b: (1, 0, 0) locally. The world
     * position of b is then (1, 1, 0) (hand computation: Rz(90) maps x to y). */
    oroya_transform t = oroya_transform_identity();
    t.translation.x = 1;
    t.rotation = (oroya_quat){0, 0, 0.70710678f, 0.70710678f};
    OT_EQ_INT(oroya_scene_set_transform(s, a, &t), OROYA_OK);
    /* Writing through the dense array is the mixer's path. */
    oroya_transform *dense = oroya_scene_transforms(s);
    dense[oroya_scene_node_index(s, b)].translation = (oroya_vec3){1, 0, 0};
    dense[oroya_scene_node_index(s, b)].scale = (oroya_vec3){2, 2, 2};
    oroya_scene_update_world(s);
    oroya_mat4 w;
    OT_EQ_INT(oroya_scene_get_world(s, b, &w), OROYA_OK);
    OT_NEAR(w.m[12], 1.0, 1e-6);
    OT_NEAR(w.m[13], 1.0, 1e-6);
    OT_NEAR(w.m[14], 0.0, 1e-6);
    OT_NEAR(w.m[1], 2.0, 1e-6); /* b's x axis, scaled by 2, points along y */
    OT_NEAR(w.m[15], 1.0, 0);

    /* A node added now starts with its parent's world matrix until the next update. */
    oroya_node late;
    OT_EQ_INT(oroya_scene_add_node(s, "late", b, OROYA_NODE_OBJECT, &late), OROYA_OK);
    oroya_mat4 wl;
    OT_EQ_INT(oroya_scene_get_world(s, late, &wl), OROYA_OK);
    OT_CHECK(memcmp(&wl, &w, sizeof w) == 0);
    OT_EQ_INT(oroya_scene_remove_node(s, late), OROYA_OK);

    const uint8_t *wv = oroya_scene_world_visible(s);
    OT_CHECK(wv[0] == 1 && wv[1] == 1);
    OT_EQ_INT(oroya_scene_set_visible(s, a, false), OROYA_OK);
    oroya_scene_update_world(s);
    bool vis = true;
    oroya_scene_get_visible(s, b, &vis);
    OT_CHECK(vis); /* own flag unchanged */
    OT_CHECK(wv[oroya_scene_node_index(s, b)] == 0);
    oroya_scene_set_visible(s, a, true);
    oroya_scene_set_visible(s, b, false);
    oroya_scene_update_world(s);
    OT_CHECK(wv[oroya_scene_node_index(s, a)] == 1 && wv[oroya_scene_node_index(s, b)] == 0);
    oroya_scene_destroy(s);
}

static void test_layout_version_and_weights(void) {
    oroya_scene *s;
    oroya_node a, b;
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    uint32_t v0 = oroya_scene_layout_version(s);
    oroya_scene_add_node(s, "a", (oroya_node){0}, OROYA_NODE_MESH, &a);
    uint32_t v1 = oroya_scene_layout_version(s);
    OT_CHECK(v1 != v0);
    oroya_scene_add_node(s, "b", (oroya_node){0}, OROYA_NODE_OBJECT, &b);
    oroya_transform t = oroya_transform_identity();
    oroya_scene_set_transform(s, a, &t);
    oroya_scene_update_world(s);
    uint32_t v2 = oroya_scene_layout_version(s);
    OT_CHECK(v2 != v1);
    oroya_scene_set_parent(s, a, b);
    OT_CHECK(oroya_scene_layout_version(s) != v2);

    uint32_t count = 99;
    OT_CHECK(oroya_scene_weights(s, a, &count) == NULL && count == 0);
    OT_EQ_INT(oroya_scene_set_weight_count(s, a, 3), OROYA_OK);
    float *w = oroya_scene_weights(s, a, &count);
    OT_CHECK(w != NULL && count == 3);
    OT_CHECK(w[0] == 0 && w[1] == 0 && w[2] == 0);
    w[0] = 0.25f;
    w[2] = 0.75f;
    /* The pointer survives unrelated edits (adds that grow the dense arrays). */
    oroya_node n;
    for (int k = 0; k < 200; k++) {
        oroya_scene_add_node(s, NULL, b, OROYA_NODE_OBJECT, &n);
    }
    OT_CHECK(oroya_scene_weights(s, a, NULL) == w);
    OT_EQ_INT(oroya_scene_set_weight_count(s, a, 5), OROYA_OK);
    w = oroya_scene_weights(s, a, &count);
    OT_CHECK(count == 5 && w[0] == 0.25f && w[2] == 0.75f && w[4] == 0);
    OT_EQ_INT(oroya_scene_set_weight_count(s, a, 0), OROYA_OK);
    OT_CHECK(oroya_scene_weights(s, a, &count) == NULL && count == 0);
    oroya_scene_destroy(s);
}

/* update_world and remove never allocate; every allocation is freed; a failing allocation in
 * add_node leaves the scene as it was. */
static void test_allocation(void) {
    counting c = {0};
    oroya_scene_desc desc = {.capacity_hint = 8, .allocator = counting_allocator(&c)};
    oroya_scene *s;
    OT_EQ_INT(oroya_scene_create(&desc, &s), OROYA_OK);
    oroya_node n[100];
    for (int k = 0; k < 100; k++) {
        oroya_node p = k ? n[(int)ot_randf(0, (float)k)] : (oroya_node){0};
        OT_EQ_INT(oroya_scene_add_node(s, "n", p, OROYA_NODE_OBJECT, &n[k]), OROYA_OK);
    }
    long before = c.allocs;
    for (int frame = 0; frame < 10; frame++) {
        oroya_scene_update_world(s);
    }
    OT_EQ_INT(c.allocs, before);
    OT_EQ_INT(oroya_scene_remove_node(s, n[50]), OROYA_OK);
    OT_EQ_INT(c.allocs, before);

    /* Fail each allocation add_node could make in turn (dense growth, slot growth, name). */
    uint32_t count = oroya_scene_node_count(s);
    for (long f = 1; f <= 12; f++) {
        c.fail_at = c.allocs + f;
        oroya_node x;
        oroya_result r = oroya_scene_add_node(s, "a longer name", n[0], OROYA_NODE_OBJECT, &x);
        if (r == OROYA_OK) {
            count++;
        } else {
            OT_EQ_INT(r, OROYA_ERR_OUT_OF_MEMORY);
            OT_EQ_INT(x.id, 0);
        }
        OT_EQ_INT(oroya_scene_node_count(s), count);
        c.fail_at = 0;
    }
    /* Grow past the capacity with every first allocation failing once. */
    for (int k = 0; k < 300; k++) {
        oroya_node x;
        c.fail_at = c.allocs + 1;
        oroya_result r = oroya_scene_add_node(s, "big", n[0], OROYA_NODE_OBJECT, &x);
        c.fail_at = 0;
        if (r != OROYA_OK) {
            OT_EQ_INT(r, OROYA_ERR_OUT_OF_MEMORY);
            OT_EQ_INT(oroya_scene_add_node(s, "big", n[0], OROYA_NODE_OBJECT, &x), OROYA_OK);
        }
        count++;
    }
    OT_EQ_INT(oroya_scene_node_count(s), count);
    /* A re-parent that must move a subtree allocates a temporary; failing it changes nothing. */
    oroya_node last;
    OT_EQ_INT(oroya_scene_add_node(s, "top", (oroya_node){0}, OROYA_NODE_OBJECT, &last), OROYA_OK);
    uint32_t version = oroya_scene_layout_version(s);
    c.fail_at = c.allocs + 1;
    OT_EQ_INT(oroya_scene_set_parent(s, n[0], last), OROYA_ERR_OUT_OF_MEMORY);
    c.fail_at = 0;
    OT_EQ_INT(oroya_scene_layout_version(s), version);
    oroya_node p;
    oroya_scene_get_parent(s, n[0], &p);
    OT_EQ_INT(p.id, 0);
    /* Weights and renames that fail keep what was there. */
    OT_EQ_INT(oroya_scene_set_weight_count(s, n[1], 2), OROYA_OK);
    oroya_scene_weights(s, n[1], NULL)[1] = 0.5f;
    c.fail_at = c.allocs + 1;
    OT_EQ_INT(oroya_scene_set_weight_count(s, n[1], 8), OROYA_ERR_OUT_OF_MEMORY);
    uint32_t wc;
    float *w = oroya_scene_weights(s, n[1], &wc);
    OT_CHECK(wc == 2 && w[1] == 0.5f);
    c.fail_at = c.allocs + 1;
    OT_EQ_INT(oroya_scene_set_name(s, n[1], "renamed"), OROYA_ERR_OUT_OF_MEMORY);
    OT_CHECK(strcmp(oroya_scene_node_name(s, n[1]), "n") == 0);
    c.fail_at = 0;
    oroya_scene_destroy(s);

    /* create fails cleanly on each of its allocations (the scene, then its arrays). */
    for (long f = 1; f <= 12; f++) {
        c.fail_at = c.allocs + f;
        oroya_scene *t = (oroya_scene *)&c;
        oroya_result r = oroya_scene_create(&desc, &t);
        c.fail_at = 0;
        if (r == OROYA_OK) {
            oroya_scene_destroy(t);
        } else {
            OT_EQ_INT(r, OROYA_ERR_OUT_OF_MEMORY);
            OT_CHECK(t == NULL);
        }
    }
    OT_CHECK(c.failed > 0);
    OT_EQ_INT(c.allocs - c.failed, c.frees);
}

/* Projection matrices from three.js 0.187 (cd /work/oracle-copy; node):
 *   new THREE.PerspectiveCamera(50, 1.5, 0.1, 100).projectionMatrix.elements
 *   PerspectiveCamera(75, 16 / 9, 0.5, 2000) with zoom = 2, updateProjectionMatrix()
 *   new THREE.OrthographicCamera(-2, 3, 1.5, -0.5, 0.1, 50), then the same with zoom = 2. */
static const double persp_50_15[16] = {
    1.4296712803397058,   0, 0, 0, 0, 2.1445069205095586, 0, 0, 0, 0, -1.002002002002002, -1, 0, 0,
    -0.20020020020020018, 0};
static const double persp_75_zoom2[16] = {
    1.4661285444463563, 0, 0, 0, 0, 2.6064507456824115, 0, 0, 0, 0, -1.0005001250312577, -1, 0, 0,
    -1.000250062515629, 0};
static const double ortho[16] = {
    0.4, 0, 0, 0, 0, 1, 0, 0, 0, 0, -0.04008016032064128, 0, -0.2, -0.5, -1.0040080160320641, 1};
static const double ortho_zoom2[16] = {
    0.8, 0, 0, 0, 0, 2, 0, 0, 0, 0, -0.04008016032064128, 0, -0.4, -1, -1.0040080160320641, 1};

static void check_matrix(const oroya_mat4 *m, const double want[16], const char *what) {
    int bad = 0;
    for (int k = 0; k < 16; k++) {
        bad += fabs(m->m[k] - want[k]) > 1e-7 * (1 + fabs(want[k]));
    }
    OT_CHECK_MSG(bad == 0, "%s: %d elements differ from three.js", what, bad);
}

static void test_cameras(void) {
    oroya_mat4 m;
    oroya_camera c = oroya_camera_perspective(50, 1.5f, 0.1f, 100);
    OT_EQ_INT(oroya_camera_projection(&c, &m), OROYA_OK);
    check_matrix(&m, persp_50_15, "perspective");
    c = oroya_camera_perspective(75, 16.0f / 9.0f, 0.5f, 2000);
    c.zoom = 2;
    OT_EQ_INT(oroya_camera_projection(&c, &m), OROYA_OK);
    check_matrix(&m, persp_75_zoom2, "perspective zoom 2");
    c = oroya_camera_orthographic(-2, 3, 1.5f, -0.5f, 0.1f, 50);
    OT_EQ_INT(oroya_camera_projection(&c, &m), OROYA_OK);
    check_matrix(&m, ortho, "orthographic");
    c.zoom = 2;
    OT_EQ_INT(oroya_camera_projection(&c, &m), OROYA_OK);
    check_matrix(&m, ortho_zoom2, "orthographic zoom 2");

    /* The validity table. */
    struct {
        oroya_camera c;
        oroya_result want;
    } table[] = {
        {oroya_camera_perspective(0, 1, 0.1f, 10), OROYA_ERR_INVALID_ARGUMENT},
        {oroya_camera_perspective(180, 1, 0.1f, 10), OROYA_ERR_INVALID_ARGUMENT},
        {oroya_camera_perspective(50, 0, 0.1f, 10), OROYA_ERR_INVALID_ARGUMENT},
        {oroya_camera_perspective(50, 1, 0, 10), OROYA_ERR_INVALID_ARGUMENT},
        {oroya_camera_perspective(50, 1, 1, 1), OROYA_ERR_INVALID_ARGUMENT},
        {oroya_camera_perspective(50, 1, 2, 1), OROYA_ERR_INVALID_ARGUMENT},
        {oroya_camera_perspective(NAN, 1, 0.1f, 10), OROYA_ERR_NON_FINITE},
        {oroya_camera_perspective(50, 1, 0.1f, INFINITY), OROYA_ERR_NON_FINITE},
        {oroya_camera_orthographic(1, 1, 1, -1, 0.1f, 10), OROYA_ERR_INVALID_ARGUMENT},
        {oroya_camera_orthographic(-1, 1, 1, 1, 0.1f, 10), OROYA_ERR_INVALID_ARGUMENT},
        {oroya_camera_orthographic(-1, 1, 1, -1, 5, 5), OROYA_ERR_INVALID_ARGUMENT},
        {{.type = OROYA_CAMERA_PERSPECTIVE}, OROYA_ERR_INVALID_ARGUMENT}, /* zeroed: zoom 0 */
        {{.type = (oroya_camera_type)7,
          .left = -1,
          .right = 1,
          .top = 1,
          .bottom = -1,
          .znear = 1,
          .zfar = 2,
          .zoom = 1},
         OROYA_ERR_INVALID_ARGUMENT},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        OT_CHECK_MSG(oroya_camera_projection(&table[k].c, &m) == table[k].want, "row %zu", k);
    }
    OT_EQ_INT(oroya_camera_projection(NULL, &m), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_camera_projection(&c, NULL), OROYA_ERR_INVALID_ARGUMENT);

    /* A camera node: stored by value; its view matrix inverts its world matrix. */
    oroya_scene *s;
    oroya_node rig, cam;
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    oroya_scene_add_node(s, "rig", (oroya_node){0}, OROYA_NODE_OBJECT, &rig);
    oroya_scene_add_node(s, "camera", rig, OROYA_NODE_CAMERA, &cam);
    oroya_camera got;
    OT_EQ_INT(oroya_scene_get_camera(s, cam, &got), OROYA_ERR_NOT_FOUND);
    c = oroya_camera_perspective(45, 2, 1, 10);
    OT_EQ_INT(oroya_scene_set_camera(s, cam, &c), OROYA_OK);
    c.fov_y = 90; /* the scene kept its own copy */
    OT_EQ_INT(oroya_scene_get_camera(s, cam, &got), OROYA_OK);
    OT_CHECK(got.fov_y == 45 && got.aspect == 2 && got.type == OROYA_CAMERA_PERSPECTIVE);
    c.fov_y = 0;
    OT_EQ_INT(oroya_scene_set_camera(s, cam, &c), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_get_camera(s, cam, &got), OROYA_OK);
    OT_CHECK(got.fov_y == 45);
    oroya_transform t = oroya_transform_identity();
    t.translation = (oroya_vec3){0, 2, 0};
    oroya_scene_set_transform(s, rig, &t);
    t.translation = (oroya_vec3){0, 0, 5};
    oroya_scene_set_transform(s, cam, &t);
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_scene_camera_view(s, cam, &m), OROYA_OK);
    /* The world position (0, 2, 5) maps to the view origin. */
    oroya_vec3 o = oroya_mat4_transform_point(m, (oroya_vec3){0, 2, 5});
    OT_NEAR(o.x, 0, 1e-6);
    OT_NEAR(o.y, 0, 1e-6);
    OT_NEAR(o.z, 0, 1e-6);
    OT_NEAR(m.m[14], -5, 1e-6);
    t.scale.x = 0;
    oroya_scene_set_transform(s, cam, &t);
    oroya_scene_update_world(s);
    OT_EQ_INT(oroya_scene_camera_view(s, cam, &m), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_set_camera(s, cam, NULL), OROYA_OK);
    OT_EQ_INT(oroya_scene_get_camera(s, cam, &got), OROYA_ERR_NOT_FOUND);
    oroya_scene_destroy(s);
}

static void test_lights(void) {
    /* three.js 0.187 defaults: PointLight intensity 1, distance 0, decay 2, color 0xffffff;
     * DirectionalLight and AmbientLight intensity 1, color 0xffffff. */
    oroya_light p = oroya_light_make(OROYA_LIGHT_POINT);
    OT_CHECK(p.type == OROYA_LIGHT_POINT && p.intensity == 1 && p.distance == 0 && p.decay == 2);
    OT_CHECK(p.color[0] == 1 && p.color[1] == 1 && p.color[2] == 1);
    oroya_light d = oroya_light_make(OROYA_LIGHT_DIRECTIONAL);
    OT_CHECK(d.type == OROYA_LIGHT_DIRECTIONAL && d.intensity == 1 && d.color[2] == 1);
    oroya_light a = oroya_light_make(OROYA_LIGHT_AMBIENT);
    OT_CHECK(a.type == OROYA_LIGHT_AMBIENT && a.intensity == 1);

    oroya_scene *s;
    oroya_node n;
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    oroya_scene_add_node(s, "sun", (oroya_node){0}, OROYA_NODE_LIGHT, &n);
    oroya_light got;
    OT_EQ_INT(oroya_scene_get_light(s, n, &got), OROYA_ERR_NOT_FOUND);
    d.intensity = 3;
    d.color[1] = 0.5f;
    OT_EQ_INT(oroya_scene_set_light(s, n, &d), OROYA_OK);
    OT_EQ_INT(oroya_scene_get_light(s, n, &got), OROYA_OK);
    OT_CHECK(got.intensity == 3 && got.color[1] == 0.5f && got.type == OROYA_LIGHT_DIRECTIONAL);
    oroya_light bad = p;
    bad.intensity = -1;
    OT_EQ_INT(oroya_scene_set_light(s, n, &bad), OROYA_ERR_INVALID_ARGUMENT);
    bad = p;
    bad.decay = -0.5f;
    OT_EQ_INT(oroya_scene_set_light(s, n, &bad), OROYA_ERR_INVALID_ARGUMENT);
    bad = p;
    bad.type = (oroya_light_type)9;
    OT_EQ_INT(oroya_scene_set_light(s, n, &bad), OROYA_ERR_INVALID_ARGUMENT);
    bad = p;
    bad.color[0] = NAN;
    OT_EQ_INT(oroya_scene_set_light(s, n, &bad), OROYA_ERR_NON_FINITE);
    OT_EQ_INT(oroya_scene_get_light(s, n, &got), OROYA_OK);
    OT_CHECK(got.intensity == 3); /* refused calls changed nothing */
    OT_EQ_INT(oroya_scene_get_light(s, n, NULL), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_scene_set_light(s, n, NULL), OROYA_OK);
    OT_EQ_INT(oroya_scene_get_light(s, n, &got), OROYA_ERR_NOT_FOUND);
    oroya_scene_destroy(s);
}

static void test_meshes(void) {
    /* three.js MeshStandardMaterial defaults: color 0xffffff, metalness 0, roughness 1,
     * FrontSide, opacity 1. */
    oroya_material def = oroya_material_default();
    OT_CHECK(def.base_color[0] == 1 && def.base_color[3] == 1 && def.metallic == 0 &&
             def.roughness == 1 && !def.double_sided);

    oroya_scene *s;
    oroya_node a, b, c;
    oroya_geometry *sphere;
    OT_EQ_INT(oroya_geometry_sphere(&(oroya_sphere_desc){.width_segments = 8, .height_segments = 6},
                                    &sphere, NULL),
              OROYA_OK);
    OT_EQ_INT(oroya_scene_create(NULL, &s), OROYA_OK);
    oroya_scene_add_node(s, "a", (oroya_node){0}, OROYA_NODE_MESH, &a);
    oroya_scene_add_node(s, "b", (oroya_node){0}, OROYA_NODE_MESH, &b);
    oroya_scene_add_node(s, "c", (oroya_node){0}, OROYA_NODE_OBJECT, &c);
    oroya_material red = {{1, 0, 0, 1}, 0.5f, 0.25f, true};
    OT_EQ_INT(oroya_scene_set_mesh(s, a, sphere, &red), OROYA_OK);
    OT_EQ_INT(oroya_scene_set_mesh(s, b, sphere, NULL), OROYA_OK);
    const oroya_geometry *g;
    const oroya_material *mat;
    OT_EQ_INT(oroya_scene_get_mesh(s, a, &g, &mat), OROYA_OK);
    OT_CHECK(g == sphere && mat == &red);
    OT_EQ_INT(oroya_scene_get_mesh(s, b, &g, &mat), OROYA_OK);
    OT_CHECK(mat != NULL && mat->roughness == 1 && mat->base_color[1] == 1);
    OT_EQ_INT(oroya_scene_get_mesh(s, c, &g, &mat), OROYA_ERR_NOT_FOUND);
    OT_CHECK(g == NULL && mat == NULL);

    /* Per-mesh color: shared material untouched; the other mesh keeps the material's color. */
    float col[4];
    OT_EQ_INT(oroya_scene_get_mesh_color(s, a, col), OROYA_OK);
    OT_CHECK(col[0] == 1 && col[1] == 0);
    oroya_scene_set_mesh(s, b, sphere, &red);
    const float green[4] = {0, 1, 0, 0.5f};
    OT_EQ_INT(oroya_scene_set_mesh_color(s, a, green), OROYA_OK);
    OT_EQ_INT(oroya_scene_get_mesh_color(s, a, col), OROYA_OK);
    OT_CHECK(col[0] == 0 && col[1] == 1 && col[3] == 0.5f);
    OT_EQ_INT(oroya_scene_get_mesh_color(s, b, col), OROYA_OK);
    OT_CHECK(col[0] == 1 && col[1] == 0);
    OT_CHECK(red.base_color[0] == 1 && red.base_color[1] == 0);
    const float nan_color[4] = {NAN, 0, 0, 1};
    OT_EQ_INT(oroya_scene_set_mesh_color(s, a, nan_color), OROYA_ERR_NON_FINITE);
    OT_EQ_INT(oroya_scene_set_mesh_color(s, c, green), OROYA_ERR_NOT_FOUND);
    OT_EQ_INT(oroya_scene_set_mesh_color(s, a, NULL), OROYA_OK);
    OT_EQ_INT(oroya_scene_get_mesh_color(s, a, col), OROYA_OK);
    OT_CHECK(col[0] == 1 && col[1] == 0);
    OT_EQ_INT(oroya_scene_get_mesh_color(s, a, NULL), OROYA_ERR_INVALID_ARGUMENT);

    /* Skin slot: stored, never dereferenced. */
    int token;
    OT_CHECK(oroya_scene_get_skin(s, a) == NULL);
    OT_EQ_INT(oroya_scene_set_skin(s, a, &token), OROYA_OK);
    OT_CHECK(oroya_scene_get_skin(s, a) == &token);

    /* Detach, and components vanish with the node (a reused slot starts clean). */
    OT_EQ_INT(oroya_scene_set_mesh(s, b, NULL, &red), OROYA_OK);
    OT_EQ_INT(oroya_scene_get_mesh(s, b, &g, &mat), OROYA_ERR_NOT_FOUND);
    OT_EQ_INT(oroya_scene_remove_node(s, a), OROYA_OK);
    OT_EQ_INT(oroya_scene_set_mesh(s, a, sphere, NULL), OROYA_ERR_STALE_HANDLE);
    OT_CHECK(oroya_scene_get_skin(s, a) == NULL);
    oroya_node d;
    oroya_scene_add_node(s, "d", (oroya_node){0}, OROYA_NODE_MESH, &d);
    OT_EQ_INT(oroya_scene_get_mesh(s, d, &g, &mat), OROYA_ERR_NOT_FOUND);
    OT_CHECK(oroya_scene_get_skin(s, d) == NULL);
    oroya_scene_destroy(s);
    oroya_geometry_destroy(sphere);
}

int main(void) {
    OT_RUN(test_random_tree_world);
    OT_RUN(test_cycles_refused);
    OT_RUN(test_attach);
    OT_RUN(test_stale_handles);
    OT_RUN(test_null_and_bad_arguments);
    OT_RUN(test_names);
    OT_RUN(test_transforms_and_visibility);
    OT_RUN(test_layout_version_and_weights);
    OT_RUN(test_allocation);
    OT_RUN(test_cameras);
    OT_RUN(test_lights);
    OT_RUN(test_meshes);
    return ot_finish();
}
