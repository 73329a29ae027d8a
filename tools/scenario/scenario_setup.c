/* Building a scenario's world (docs/scenario.md) in the oracle's order: the nodes, the skins,
 * the clips with their makeAdditive, the declared actions; and the steps. Each value that does
 * not fit is reported with its JSON path. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenario_internal.h"

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
        if (!cJSON_IsBool(vis)) {
            return sc_fail(p, "%s.visible: expected true or false", path);
        }
        oroya_scene_set_visible(p->scene, node, cJSON_IsTrue(vis));
    }
    const bool light = type && !strcmp(type, "light"), camera = type && !strcmp(type, "camera");
    const bool mesh = type && !strcmp(type, "mesh");
    static const char *const fields[3] = {"intensity", "fov", "color"};
    const bool allowed[3] = {light, camera, mesh};
    for (int f = 0; f < 3; f++) {
        if (!allowed[f] && cJSON_GetObjectItemCaseSensitive(nd, fields[f])) {
            return sc_fail(p, "%s.%s: only a node of type \"%s\" has it", path, fields[f],
                           f == 0   ? "light"
                           : f == 1 ? "camera"
                                    : "mesh");
        }
    }
    if (light) {
        oroya_light l = oroya_light_make(OROYA_LIGHT_POINT);
        double v = 1;
        snprintf(sub, sizeof sub, "%s.intensity", path);
        if (sc_get_number_opt(p, nd, "intensity", path, &v)) {
            return -1;
        }
        l.intensity = (float)v;
        if (oroya_scene_set_light(p->scene, node, &l) != OROYA_OK) {
            return sc_fail(p, "%s: expected a finite intensity of 0 or more", sub);
        }
    } else if (camera) {
        double v = 50; /* three's PerspectiveCamera default */
        snprintf(sub, sizeof sub, "%s.fov", path);
        if (sc_get_number_opt(p, nd, "fov", path, &v)) {
            return -1;
        }
        oroya_camera c = oroya_camera_perspective((float)v, 1, 0.1f, 2000);
        if (oroya_scene_set_camera(p->scene, node, &c) != OROYA_OK) {
            return sc_fail(p, "%s: expected a field of view in (0, 180) degrees", sub);
        }
    } else if (mesh) {
        if (!p->mesh_geometry &&
            oroya_geometry_box(
                &(oroya_box_desc){.allocator = p->alloc ? *p->alloc : (oroya_allocator){0}},
                &p->mesh_geometry, NULL) != OROYA_OK) {
            return sc_fail(p, "out of memory");
        }
        oroya_material *mat = &p->materials[index];
        *mat = oroya_material_default();
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(nd, "color");
        if (c) {
            double v[3];
            snprintf(sub, sizeof sub, "%s.color", path);
            if (sc_get_vec(p, c, 3, sub, v)) {
                return -1;
            }
            mat->base_color[0] = (float)v[0];
            mat->base_color[1] = (float)v[1];
            mat->base_color[2] = (float)v[2];
        }
        if (oroya_scene_set_mesh(p->scene, node, p->mesh_geometry, mat) != OROYA_OK) {
            return sc_fail(p, "%s: the scene refused the mesh", path);
        }
    }
    return 0;
}

int sc_setup_nodes(play *p) {
    int n = 0;
    const cJSON *nodes = sc_top_array(p, "nodes", "an array", &n);
    if (!nodes)
        return n;
    p->nodes = sc_calloc(p, (size_t)n + 1, sizeof *p->nodes);
    p->materials = sc_calloc(p, (size_t)n + 1, sizeof *p->materials);
    if (!p->nodes || !p->materials)
        return sc_fail(p, "out of memory");
    p->node_cap = n + 1;
    char path[64];
    const cJSON *nd = nodes->child; /* walked, not indexed: cJSON_GetArrayItem is O(i) */
    for (int i = 0; i < n; i++, nd = nd->next) {
        snprintf(path, sizeof path, "nodes[%d]", i);
        const char *name = sc_entry_name(p, nd, path);
        if (!name)
            return -1;
        if (sc_find_scenario_node(p, name) >= 0)
            return sc_fail(p, "%s.name: duplicate node '%s'", path, name);
        if (!strcmp(name, "oroya_curves")) {
            return sc_fail(p,
                           "%s.name: 'oroya_curves' is reserved (the curves' holder, "
                           "docs/scenario.md \"Curves\")",
                           path);
        }
        oroya_node taken;
        if (p->model && oroya_gltf_model_find_node(p->model, name, &taken, NULL) == OROYA_OK)
            return sc_fail(p, "%s.name: '%s' is taken by a glTF node", path, name);
        const char *type = sc_get_string(nd, "type");
        const cJSON *tv = cJSON_GetObjectItemCaseSensitive(nd, "type");
        oroya_node_kind kind = OROYA_NODE_OBJECT;
        if (tv && !cJSON_IsNull(tv)) {
            if (!type)
                return sc_fail(p, "%s.type: expected a string", path);
            if (!strcmp(type, "object"))
                kind = OROYA_NODE_OBJECT;
            else if (!strcmp(type, "bone"))
                kind = OROYA_NODE_BONE;
            else if (!strcmp(type, "skinnedMesh"))
                kind = OROYA_NODE_SKINNED_MESH;
            else if (strcmp(type, "light") && strcmp(type, "camera") && strcmp(type, "mesh"))
                return sc_fail(p, "%s.type: unknown type '%s'", path, type);
        }
        double pos[3] = {0, 0, 0}, rot[4] = {0, 0, 0, 1}, scale[3] = {1, 1, 1};
        bool has_pos, has_rot, has_scale;
        if (sc_get_trs(p, nd, path, pos, rot, scale, &has_pos, &has_rot, &has_scale))
            return -1;
        oroya_transform t = {{(float)pos[0], (float)pos[1], (float)pos[2]},
                             {(float)rot[0], (float)rot[1], (float)rot[2], (float)rot[3]},
                             {(float)scale[0], (float)scale[1], (float)scale[2]}};
        oroya_node node;
        if (oroya_scene_add_node(p->scene, name, (oroya_node){0}, kind, &node) != OROYA_OK ||
            oroya_scene_set_transform(p->scene, node, &t) != OROYA_OK)
            return sc_fail(p,
                           "%s: the scene refused the node (a component, or the matrix they "
                           "make, is not finite)",
                           path);
        p->nodes[p->node_count++] = (play_node){name, node, kind, false};
        if (!sc_node_hash_add(p, p->node_count - 1))
            return sc_fail(p, "out of memory");
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
            return sc_fail(p, "nodes[%d].parent: expected a node name or null", i);
        int parent = sc_find_scenario_node(p, pv->valuestring);
        if (parent < 0)
            return sc_fail(p, "nodes[%d].parent: unknown node '%s'", i, pv->valuestring);
        oroya_result r = oroya_scene_set_parent(p->scene, p->nodes[i].node, p->nodes[parent].node);
        if (r != OROYA_OK)
            return sc_fail(p, "nodes[%d].parent: cannot parent to '%s' (%s)", i, pv->valuestring,
                           oroya_result_string(r));
    }
    oroya_scene_update_world(p->scene);
    return sc_check_world(p, "nodes");
}

int sc_find_skin(const play *p, const char *name) {
    for (int i = 0; name && i < p->skin_count; i++)
        if (!strcmp(p->skins[i].name, name))
            return i;
    return -1;
}

static int number_list(play *p, const cJSON *arr, const char *path, double **out, int *count) {
    if (!cJSON_IsArray(arr))
        return sc_fail(p, "%s: expected an array of numbers", path);
    int n = cJSON_GetArraySize(arr);
    double *v = sc_malloc(p, ((size_t)n + 1) * sizeof *v);
    if (!v)
        return sc_fail(p, "out of memory");
    int i = 0;
    for (const cJSON *x = arr->child; x; x = x->next, i++) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) {
            sc_free(p, v);
            return sc_fail(p, "%s[%d]: expected a finite number", path, i);
        }
        v[i] = x->valuedouble;
    }
    *out = v;
    *count = n;
    return 0;
}

static int matrix_of(play *p, const cJSON *v, const char *path, oroya_mat4 *out) {
    double m[16];
    if (sc_get_vec(p, v, 16, path, m))
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
    const char *name = sc_entry_name(p, s, path);
    if (!name)
        return -1;
    if (sc_find_skin(p, name) >= 0)
        return sc_fail(p, "%s.name: duplicate skin '%s'", path, name);
    ps->name = name;
    int mesh = sc_find_scenario_node(p, sc_get_string(s, "mesh"));
    if (mesh < 0 || p->nodes[mesh].kind != OROYA_NODE_SKINNED_MESH)
        return sc_fail(p, "%s.mesh: must name a node of type skinnedMesh", path);
    const cJSON *bones = cJSON_GetObjectItemCaseSensitive(s, "bones");
    if (!cJSON_IsArray(bones))
        return sc_fail(p, "%s.bones: expected an array of node names", path);
    int nb = cJSON_GetArraySize(bones);
    oroya_node *bn = sc_calloc(p, (size_t)nb + 1, sizeof *bn);
    oroya_mat4 *inv = sc_calloc(p, (size_t)nb + 1, sizeof *inv);
    double *verts = NULL, *idx = NULL, *wts = NULL;
    uint16_t *joints = NULL;
    float *pos = NULL, *w = NULL;
    int rc = 0, nv3 = 0, ni = 0, nw = 0;
    if (!bn || !inv) {
        rc = sc_fail(p, "out of memory");
        goto done;
    }
    for (int i = 0; i < nb; i++) {
        const cJSON *b = cJSON_GetArrayItem(bones, i);
        int node = cJSON_IsString(b) ? sc_find_scenario_node(p, b->valuestring) : -1;
        if (node < 0) {
            rc = sc_fail(p, "%s.bones[%d]: unknown node", path, i);
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
        rc = sc_fail(p, "%s: vertices/skinIndex/skinWeight sizes disagree (%d, %d, %d numbers)",
                     path, nv3, ni, nw);
        goto done;
    }
    pos = sc_malloc(p, (size_t)nv3 * sizeof *pos);
    w = sc_malloc(p, (size_t)nw * sizeof *w);
    joints = sc_malloc(p, (size_t)ni * sizeof *joints);
    ps->vertices = sc_calloc(p, (size_t)nv3, sizeof *ps->vertices);
    if (!pos || !w || !joints || !ps->vertices) {
        rc = sc_fail(p, "out of memory");
        goto done;
    }
    for (int i = 0; i < nv3; i++)
        pos[i] = (float)verts[i];
    for (int i = 0; i < nw; i++)
        w[i] = (float)wts[i];
    for (int i = 0; i < ni; i++) {
        if (idx[i] < 0 || idx[i] > 65535 || idx[i] != floor(idx[i])) {
            rc = sc_fail(p, "%s.skinIndex[%d]: expected a bone index", path, i);
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
        rc = sc_fail(p, "%s: %s", path, err.message);
        goto done;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "normalizeSkinWeights")))
        oroya_skin_normalize_weights(ps->skin);
    const cJSON *bi = cJSON_GetObjectItemCaseSensitive(s, "boneInverses");
    bool has_inv = bi && !cJSON_IsNull(bi);
    if (has_inv) {
        if (!cJSON_IsArray(bi) || cJSON_GetArraySize(bi) != nb) {
            rc = sc_fail(p, "%s.boneInverses: expected %d matrices (one per bone)", path, nb);
            goto done;
        }
        for (int i = 0; i < nb; i++) {
            snprintf(sub, sizeof sub, "%s.boneInverses[%d]", path, i);
            if ((rc = matrix_of(p, cJSON_GetArrayItem(bi, i), sub, &inv[i])))
                goto done;
        }
    }
    oroya_scene_update_world(p->scene);
    oroya_skeleton_desc kd = {.bones = bn,
                              .bone_count = (uint32_t)nb,
                              .bone_inverses = has_inv ? inv : NULL,
                              .allocator = *p->alloc};
    if (oroya_skeleton_create(p->scene, &kd, &ps->skeleton, &err) != OROYA_OK) {
        rc = sc_fail(p, "%s: %s", path, err.message);
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
        rc = sc_fail(p, "%s: %s", path, err.message);
        goto done;
    }
    const char *mode = sc_get_string(s, "bindMode");
    if (mode && !strcmp(mode, "detached"))
        oroya_skin_set_bind_mode(ps->skin, OROYA_BIND_DETACHED);
    else if (mode && strcmp(mode, "attached")) {
        rc = sc_fail(p, "%s.bindMode: expected \"attached\" or \"detached\"", path);
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

int sc_setup_skins(play *p) {
    int n = 0;
    const cJSON *skins = sc_top_array(p, "skins", "an array", &n);
    if (!skins)
        return n;
    p->skins = sc_calloc(p, (size_t)n + 1, sizeof *p->skins);
    if (!p->skins)
        return sc_fail(p, "out of memory");
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

int sc_update_skins(play *p) {
    for (int i = 0; i < p->skin_count; i++) {
        oroya_error err = {0};
        if (oroya_skeleton_update(p->skins[i].skeleton, p->scene, &err) != OROYA_OK ||
            oroya_skin_update(p->skins[i].skin, p->scene, &err) != OROYA_OK)
            return sc_fail(p, "skins[%d]: %s", i, err.message);
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
    const int i = sc_find_scenario_node(p, node);
    const oroya_node n = p->nodes[i].node;
    oroya_light l;
    oroya_camera c;
    if (prop == OROYA_PROPERTY_INTENSITY && oroya_scene_get_light(p->scene, n, &l) != OROYA_OK)
        return sc_fail(p, "%s.property: intensity needs a node of type \"light\" ('%s' is not)",
                       path, node);
    if (prop == OROYA_PROPERTY_FOV && oroya_scene_get_camera(p->scene, n, &c) != OROYA_OK)
        return sc_fail(p, "%s.property: fov needs a node of type \"camera\" ('%s' is not)", path,
                       node);
    if (prop == OROYA_PROPERTY_COLOR && oroya_scene_get_mesh(p->scene, n, NULL, NULL) != OROYA_OK)
        return sc_fail(p, "%s.property: color needs a node of type \"mesh\" ('%s' is not)", path,
                       node);
    return 0;
}

static float *float_array_of(play *p, const cJSON *arr, const char *path, int *count,
                             bool booleans) {
    if (!cJSON_IsArray(arr)) {
        sc_fail(p, "%s: expected an array of numbers", path);
        return NULL;
    }
    int n = cJSON_GetArraySize(arr);
    float *f = sc_malloc(p, ((size_t)n + 1) * sizeof *f);
    if (!f) {
        sc_fail(p, "out of memory");
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
            sc_fail(p, "%s[%d]: expected a finite number%s", path, i,
                    booleans ? " or a boolean" : "");
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
int sc_check_scenario_curves(play *p) {
    const cJSON *all = oroya_curves_key(p);
    if (!all)
        return 0;
    if (!cJSON_IsObject(all))
        return sc_fail(p, "oroya.curves: expected an object of clip names");
    const cJSON *list;
    cJSON_ArrayForEach(list, all) {
        if (sc_find_scenario_clip(p, list->string) < 0)
            return sc_fail(p, "oroya.curves.%s: %s", list->string,
                           sc_find_clip(p, list->string) >= 0
                               ? "curves go on scenario clips, not glTF "
                                 "animations"
                               : "unknown clip");
        if (!cJSON_IsArray(list))
            return sc_fail(p,
                           "oroya.curves.%s: expected an array of {\"name\", \"interpolation\", "
                           "\"times\", \"values\"}",
                           list->string);
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
            return sc_fail(p, "%s: expected an object", path);
        if (SC_KNOWN_KEYS(p, c, path, "name", "interpolation", "times", "values"))
            return -1;
        const char *name = sc_get_string(c, "name");
        if (!sc_is_name(name))
            return sc_fail(p, "%s.name: expected a curve name of [A-Za-z0-9_-]+", path);
        for (int k = 0; k < i; k++)
            if (!strcmp(tr[k].target, name))
                return sc_fail(p, "%s.name: curve '%s' is already on clip '%s'", path, name, clip);
        oroya_interpolation in = OROYA_INTERP_LINEAR;
        const cJSON *iv = cJSON_GetObjectItemCaseSensitive(c, "interpolation");
        if (iv && !cJSON_IsNull(iv) &&
            !interpolation_named(cJSON_IsString(iv) ? iv->valuestring : "", &in)) {
            return sc_fail(p, "%s.interpolation: expected step, linear, smooth or cubicspline",
                           path);
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
        if (nt == 0)
            return sc_fail(p, "%s.times: a curve needs at least one key (the array is empty)",
                           path);
        if (nv != nt * per_key)
            return sc_fail(p, "%s.values: expected %d number%s per key (%d keys), got %d", path,
                           per_key, per_key == 1 ? "" : "s", nt, nv);
        oroya_error err = {0};
        if (oroya_track_validate(&tr[i], (uint32_t)i, &err) != OROYA_OK)
            return sc_fail(p, "%s: curve '%s': %s", path, name, err.message);
        if (times[nt - 1] > *max_time)
            *max_time = times[nt - 1];
        size_t len = strlen(CURVE_HOLDER) + strlen(name) + 2;
        char *track_name = sc_malloc(p, len);
        if (!track_name)
            return sc_fail(p, "out of memory");
        snprintf(track_name, len, "%s.%s", CURVE_HOLDER, name);
        names[i] = track_name;
        i++;
    }
    return 0;
}

int sc_make_additive(play *p, int clip, const cJSON *obj, const char *path) {
    double frame = 0, fps = 30;
    if (sc_get_number_opt(p, obj, "referenceFrame", path, &frame))
        return -1;
    if (sc_get_number_opt(p, obj, "fps", path, &fps))
        return -1;
    int ref = clip;
    const cJSON *rc = cJSON_GetObjectItemCaseSensitive(obj, "referenceClip");
    if (rc && !cJSON_IsNull(rc)) {
        if (!cJSON_IsString(rc))
            return sc_fail(p, "%s.referenceClip: expected a clip name", path);
        if (rc->valuestring[0]) {
            ref = sc_find_clip(p, rc->valuestring);
            if (ref < 0)
                return sc_fail(p, "%s.referenceClip: unknown clip '%s'", path, rc->valuestring);
        }
    }
    oroya_result r = oroya_clip_make_additive(p->clips[clip].clip, frame, p->clips[ref].clip, fps);
    if (r != OROYA_OK)
        return sc_fail(p, "%s: makeClipAdditive failed (%s)", path, oroya_result_string(r));
    return 0;
}

int sc_setup_clips(play *p) {
    int n = 0;
    const cJSON *clips = sc_top_array(p, "clips", "an array", &n);
    if (!clips)
        return n;
    p->clips = sc_calloc(p, (size_t)n + 1, sizeof *p->clips);
    if (!p->clips)
        return sc_fail(p, "out of memory");
    p->clip_cap = n + 1;
    char path[96], sub[160];
    for (int ci = 0; ci < n; ci++) {
        const cJSON *c = cJSON_GetArrayItem(clips, ci);
        snprintf(path, sizeof path, "clips[%d]", ci);
        const char *name = sc_entry_name(p, c, path);
        if (!name)
            return -1;
        if (sc_find_scenario_clip(p, name) >= 0)
            return sc_fail(p, "%s.name: duplicate clip '%s'", path, name);
        if (p->model && oroya_gltf_model_find_clip(p->model, name))
            return sc_fail(p, "%s.name: '%s' is taken by a glTF animation", path, name);
        double duration = -1;
        if (sc_get_number_opt(p, c, "duration", path, &duration))
            return -1;
        oroya_blend_mode mode = OROYA_BLEND_NORMAL;
        const cJSON *bm = cJSON_GetObjectItemCaseSensitive(c, "blendMode");
        if (bm && !cJSON_IsNull(bm)) {
            int m = sc_blend_mode_of(bm);
            if (m < 0)
                return sc_fail(p, "%s.blendMode: expected \"normal\" or \"additive\"", path);
            mode = (oroya_blend_mode)m;
        }
        const cJSON *tracks = cJSON_GetObjectItemCaseSensitive(c, "tracks");
        if (tracks && !cJSON_IsNull(tracks) && !cJSON_IsArray(tracks))
            return sc_fail(p, "%s.tracks: expected an array", path);
        int tn = tracks ? cJSON_GetArraySize(tracks) : 0;
        const cJSON *curves = scenario_curves_of(p, name);
        const int cn = curves ? cJSON_GetArraySize(curves) : 0;
        oroya_track *tr = sc_calloc(p, (size_t)tn + (size_t)cn + 1, sizeof *tr);
        const char **names = sc_calloc(p, (size_t)tn + (size_t)cn + 1, sizeof *names);
        p->clips[p->clip_count] = (play_clip){name, NULL, 0, names, false};
        p->clip_count++;
        if (!tr || !names) {
            sc_free(p, tr);
            return sc_fail(p, "out of memory");
        }
        int rc = 0;
        float max_time = 0;
        for (int ti = 0; ti < tn && !rc; ti++) {
            const cJSON *t = cJSON_GetArrayItem(tracks, ti);
            snprintf(sub, sizeof sub, "%s.tracks[%d]", path, ti);
            if (!cJSON_IsObject(t)) {
                rc = sc_fail(p, "%s: expected an object", sub);
                break;
            }
            const char *node = sc_get_string(t, "node");
            if (sc_find_scenario_node(p, node) < 0) {
                rc = sc_fail(p, "%s.node: unknown node '%s'", sub, node ? node : "(missing)");
                break;
            }
            const char *prop_name = NULL;
            oroya_property prop;
            if (property_of(sc_get_string(t, "property"), &prop, &prop_name)) {
                rc = sc_fail(p,
                             "%s.property: expected position, translation, rotation, quaternion, "
                             "scale, intensity, fov, color (material.color) or visible",
                             sub);
                break;
            }
            if (typed_track_target_check(p, sub, node, prop)) {
                rc = -1;
                break;
            }
            const char *interp = sc_get_string(t, "interpolation");
            const cJSON *iv = cJSON_GetObjectItemCaseSensitive(t, "interpolation");
            /* Booleans step (three's BooleanKeyframeTrack default and only mode). */
            oroya_interpolation in =
                prop == OROYA_PROPERTY_VISIBLE ? OROYA_INTERP_STEP : OROYA_INTERP_LINEAR;
            if (iv && !cJSON_IsNull(iv)) {
                if (!interp) {
                    rc = sc_fail(p, "%s.interpolation: expected a string", sub);
                    break;
                }
                if (interpolation_named(interp, &in)) {
                    /* three has no smooth quaternion interpolant and falls back to linear. */
                    if (in == OROYA_INTERP_SMOOTH && prop == OROYA_PROPERTY_ROTATION) {
                        in = OROYA_INTERP_LINEAR;
                    }
                } else {
                    rc = sc_fail(p, "%s.interpolation: unknown interpolation '%s'", sub, interp);
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
                rc = sc_fail(p, "%s.values: expected %ld numbers per key (%d keys), got %d", sub,
                             per_key, nt, nv);
                break;
            }
            oroya_error err = {0};
            if (oroya_track_validate(&tr[ti], (uint32_t)ti, &err) != OROYA_OK) {
                rc = sc_fail(p, "%s: %s", sub, err.message);
                break;
            }
            if (times[nt - 1] > max_time)
                max_time = times[nt - 1];
            size_t len = strlen(node) + strlen(prop_name) + 2;
            char *tn2 = sc_malloc(p, len);
            if (!tn2) {
                rc = sc_fail(p, "out of memory");
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
                rc = sc_fail(p, "%s: %s", path, err.message);
            else
                sc_warn_normalized(p, path, clip);
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
            return sc_fail(p, "%s: expected an object", path);
        if (sc_make_additive(p, ci, ma, path))
            return -1;
    }
    return 0;
}

int sc_setup_actions(play *p) {
    const cJSON *acts = cJSON_GetObjectItemCaseSensitive(p->root, "actions");
    if (acts && !cJSON_IsNull(acts) && !cJSON_IsArray(acts))
        return sc_fail(p, "actions: expected an array");
    int n = acts && cJSON_IsArray(acts) ? cJSON_GetArraySize(acts) : 0;
    p->actions = sc_calloc(p, (size_t)(n + p->clip_count) + 1, sizeof *p->actions);
    if (!p->actions)
        return sc_fail(p, "out of memory");
    p->action_cap = n + p->clip_count + 1;
    char path[64];
    for (int i = 0; i < n; i++) {
        const cJSON *a = cJSON_GetArrayItem(acts, i);
        snprintf(path, sizeof path, "actions[%d]", i);
        const char *name = sc_entry_name(p, a, path);
        if (!name)
            return -1;
        if (sc_find_declared_action(p, name) >= 0)
            return sc_fail(p, "%s.name: duplicate action '%s'", path, name);
        int clip = sc_find_clip(p, sc_get_string(a, "clip"));
        if (clip < 0)
            return sc_fail(p, "%s.clip: unknown clip", path);
        play_action pa = {.name = name, .clip = clip};
        const cJSON *bm = cJSON_GetObjectItemCaseSensitive(a, "blendMode");
        if (bm && !cJSON_IsNull(bm)) {
            int m = sc_blend_mode_of(bm);
            if (m < 0)
                return sc_fail(p, "%s.blendMode: expected \"normal\" or \"additive\"", path);
            pa.has_blend_mode = true;
            pa.blend_mode = (oroya_blend_mode)m;
        }
        const cJSON *cc = cJSON_GetObjectItemCaseSensitive(a, "cloneClip");
        if (cc) {
            if (!cJSON_IsBool(cc))
                return sc_fail(p, "%s.cloneClip: expected a boolean", path);
            pa.clone = cJSON_IsTrue(cc);
        }
        p->actions[p->action_count++] = pa;
    }
    /* Every clip also names its own action, unless a declared action has that name
     * (find_action adds glTF clips' slots when first named). */
    for (int c = 0; c < p->clip_count; c++) {
        if (p->clips[c].gltf || sc_find_declared_action(p, p->clips[c].name) >= 0)
            continue;
        p->actions[p->action_count++] = (play_action){.name = p->clips[c].name, .clip = c};
    }
    return 0;
}

/* mixer.clipAction at the first mention, as the oracle does. */
int sc_action_of(play *p, int slot, const char *path) {
    play_action *pa = &p->actions[slot];
    if (pa->action)
        return 0;
    play_clip *pc = &p->clips[pa->clip];
    const oroya_clip *clip = pc->clip;
    if (pa->clone) {
        /* clip.clone(): a copy of the clip as it is now; later edits do not reach it. */
        oroya_error err = {0};
        if (oroya_clip_clone(pc->clip, &pa->copy, &err) != OROYA_OK)
            return sc_fail(p, "%s: cannot clone clip '%s': %s", path, pc->name, err.message);
        clip = pa->copy;
    }
    oroya_action_desc desc = {.has_blend_mode = pa->has_blend_mode,
                              .blend_mode = pa->blend_mode,
                              .duration = pc->duration};
    oroya_action *a = NULL;
    oroya_result r = oroya_action_create(p->mixer, clip, &desc, &a);
    if (r != OROYA_OK)
        return sc_fail(p, "%s: cannot create action '%s' (%s)", path, pa->name,
                       oroya_result_string(r));
    for (int i = 0; i < p->action_count; i++)
        if (i != slot && p->actions[i].action == a)
            return sc_fail(p, "%s: actions %s and %s resolve to the same action", path,
                           p->actions[i].name, pa->name);
    pa->action = a;
    return 0;
}

const char *sc_action_name(const play *p, const oroya_action *a) {
    for (int i = 0; i < p->action_count; i++)
        if (p->actions[i].action == a)
            return p->actions[i].name;
    return NULL;
}

int sc_setup_steps(play *p) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(p->root, "steps");
    if (cJSON_IsArray(s)) {
        int n = cJSON_GetArraySize(s);
        p->dts = sc_calloc(p, (size_t)n + 1, sizeof *p->dts);
        if (!p->dts)
            return sc_fail(p, "out of memory");
        int i = 0;
        for (const cJSON *x = s->child; x; x = x->next, i++) {
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
                return sc_fail(p, "steps[%d]: expected a finite number", i);
            p->dts[i] = x->valuedouble;
        }
        p->dt_count = (size_t)n;
        return 0;
    }
    if (!cJSON_IsObject(s))
        return sc_fail(
            p, "steps: required ({\"fps\", \"count\"}, {\"dt\", \"count\"} or a list of dt)");
    double dt = 0, count = 0;
    if (cJSON_GetObjectItemCaseSensitive(s, "fps")) {
        double fps = 0;
        if (sc_get_number(p, s, "fps", "steps", &fps))
            return -1;
        dt = 1 / fps;
    } else if (sc_get_number(p, s, "dt", "steps", &dt)) {
        return -1;
    }
    if (sc_get_number(p, s, "count", "steps", &count))
        return -1;
    if (count < 0 || count != floor(count) || count > OROYA_SCENARIO_MAX_STEPS)
        return sc_fail(p, "steps.count: expected a whole number of steps, at most %.0f",
                       OROYA_SCENARIO_MAX_STEPS);
    p->dt_count = (size_t)count;
    p->fixed_dt = dt; /* computed per step: a 40-byte file may ask for 1e6 steps */
    return 0;
}
