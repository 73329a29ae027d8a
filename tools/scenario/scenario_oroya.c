/* oroya's own scenario key, "oroya" (docs/scenario.md; three's reference runner ignores it, so
 * the same file runs there as plain three.js): the rotation blend, twist axes and joint limits
 * of the mixer, inverse kinematics, keyframe markers, joint masks and root motion, and the
 * script ops setIk and setMask. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenario_internal.h"

/* The top-level key "oroya" (docs/scenario.md: unknown top-level keys are ignored, so three's
 * reference runner runs the same file without it) switches on the mixer's own options:
 *   "oroya": {"rotationBlend": "slerp" | "sterp",
 *             "twistAxes":   {"<node>": [x, y, z] | null, ...},
 *             "jointLimits": {"<node>": {"twistAxis": [x, y, z], "reference": [x, y, z, w],
 *                             "cone": angle | "ellipse": [a, b], "swingAxis": [x, y, z],
 *                             "twist": [min, max]}, ...}}
 * Angles in radians. Absent keys leave the defaults (three.js behaviour). */
static int setup_joint_limit(play *p, const cJSON *l, const char *path, oroya_joint_limit *out) {
    if (!cJSON_IsObject(l))
        return sc_fail(p, "%s: expected an object", path);
    if (SC_KNOWN_KEYS(p, l, path, "twistAxis", "reference", "swingAxis", "cone", "ellipse",
                      "twist"))
        return -1;
    double v[4];
    char sub[400];
    *out = (oroya_joint_limit){0};
    const cJSON *x;
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "twistAxis"))) {
        snprintf(sub, sizeof sub, "%s.twistAxis", path);
        if (sc_get_vec(p, x, 3, sub, v))
            return -1;
        out->twist_axis = (oroya_vec3){(float)v[0], (float)v[1], (float)v[2]};
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "reference"))) {
        snprintf(sub, sizeof sub, "%s.reference", path);
        if (sc_get_vec(p, x, 4, sub, v))
            return -1;
        out->reference = (oroya_quat){(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "swingAxis"))) {
        snprintf(sub, sizeof sub, "%s.swingAxis", path);
        if (sc_get_vec(p, x, 3, sub, v))
            return -1;
        out->swing_axis = (oroya_vec3){(float)v[0], (float)v[1], (float)v[2]};
    }
    if (cJSON_GetObjectItemCaseSensitive(l, "cone")) {
        if (sc_get_number(p, l, "cone", path, v))
            return -1;
        out->swing = OROYA_SWING_CONE;
        out->swing_max[0] = (float)v[0];
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "ellipse"))) {
        if (out->swing != OROYA_SWING_FREE)
            return sc_fail(p, "%s: \"cone\" and \"ellipse\" exclude each other", path);
        snprintf(sub, sizeof sub, "%s.ellipse", path);
        if (sc_get_vec(p, x, 2, sub, v))
            return -1;
        out->swing = OROYA_SWING_ELLIPSE;
        out->swing_max[0] = (float)v[0];
        out->swing_max[1] = (float)v[1];
    }
    if ((x = cJSON_GetObjectItemCaseSensitive(l, "twist"))) {
        snprintf(sub, sizeof sub, "%s.twist", path);
        if (sc_get_vec(p, x, 2, sub, v))
            return -1;
        out->has_twist_limit = true;
        out->twist_min = (float)v[0];
        out->twist_max = (float)v[1];
    }
    return 0;
}

/* ---- oroya's scenario extension: inverse kinematics ------------------------------------------
 *   "oroya": {"ik": [{"name": "footL", "type": "twoBone", "joints": [hip, knee, ankle],
 *                     "target": [x, y, z], "pole": [x, y, z], "weight": 1, "soft": 0.1,
 *                     "targetRotation": [x, y, z, w], "midAxis": [x, y, z]},
 *                    {"name": "head", "type": "aim", "joints": ["neck", "head"],
 *                     "weights": [0.4, 0.6], "forward": [0, 0, 1], "up": [0, 1, 0],
 *                     "upAxis": [0, 1, 0], "offset": [x, y, z], "target": [x, y, z]}]}
 * plus "limits": [a jointLimits object or null per joint]. Targets, poles and up are world
 * coordinates; the IKs run in order after each update (oroya_ik_scene_apply). The op
 * {"do": "setIk", "name": ..., <any of target, pole, weight, soft, targetRotation, midAxis,
 * forward, up, upAxis, offset>} changes them. */
/* A finite double can still be inf as a float (1e39): refused with its place. */
static int fits_float(play *p, const double *v, int n, const char *path) {
    for (int k = 0; k < n; k++)
        if (!isfinite((float)v[k]))
            return sc_fail(p, "%s[%d]: %g does not fit a float", path, k, v[k]);
    return 0;
}

static int ik_vec3(play *p, const cJSON *o, const char *key, const char *path, oroya_vec3 *out) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!x)
        return 0;
    char sub[400];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    double v[3];
    if (sc_get_vec(p, x, 3, sub, v) || fits_float(p, v, 3, sub))
        return -1;
    *out = (oroya_vec3){(float)v[0], (float)v[1], (float)v[2]};
    return 0;
}

/* The fields setIk may change, on setup and in the op (already checked at parse time). */
static int ik_fields(play *p, const cJSON *o, const char *path, oroya_ik *ik) {
    if (ik_vec3(p, o, "target", path, &ik->target) || ik_vec3(p, o, "pole", path, &ik->pole) ||
        ik_vec3(p, o, "midAxis", path, &ik->mid_axis) ||
        ik_vec3(p, o, "forward", path, &ik->forward) || ik_vec3(p, o, "up", path, &ik->up) ||
        ik_vec3(p, o, "upAxis", path, &ik->up_axis) || ik_vec3(p, o, "offset", path, &ik->offset))
        return -1;
    double w = ik->weight, soft = ik->soft;
    if (sc_get_number_opt(p, o, "weight", path, &w) || sc_get_number_opt(p, o, "soft", path, &soft))
        return -1;
    if (w < 0 || w > 1)
        return sc_fail(p, "%s.weight: expected a number in [0, 1]", path);
    if (soft < 0 || soft >= 1)
        return sc_fail(p, "%s.soft: expected a number in [0, 1)", path);
    ik->weight = (float)w;
    ik->soft = (float)soft;
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "targetRotation");
    if (x && !cJSON_IsNull(x)) {
        char sub[400];
        snprintf(sub, sizeof sub, "%s.targetRotation", path);
        double q[4];
        if (sc_get_vec(p, x, 4, sub, q) || fits_float(p, q, 4, sub))
            return -1;
        ik->has_target_rotation = true;
        ik->target_rotation = (oroya_quat){(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    } else if (x) {
        ik->has_target_rotation = false;
    }
    return 0;
}

static int setup_one_ik(play *p, const cJSON *o, const char *path, int index) {
    if (!cJSON_IsObject(o))
        return sc_fail(p, "%s: expected an object", path);
    if (SC_KNOWN_KEYS(p, o, path, "name", "type", "joints", "weights", "limits", "target", "pole",
                      "weight", "soft", "targetRotation", "midAxis", "forward", "up", "upAxis",
                      "offset"))
        return -1;
    oroya_ik *ik = &p->iks[index];
    oroya_joint_limit *limits = &p->ik_limits[index * OROYA_IK_MAX_CHAIN];
    const cJSON *name_item = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (name_item && !cJSON_IsString(name_item))
        return sc_fail(p, "%s.name: expected a string", path);
    const char *name = sc_get_string(o, "name");
    if (!name || !name[0])
        return sc_fail(p, "%s.name: required", path);
    for (int i = 0; i < index; i++)
        if (!strcmp(p->iks[i].name, name))
            return sc_fail(p, "%s.name: '%s' is used twice", path, name);
    const char *type = sc_get_string(o, "type");
    *ik = (oroya_ik){.name = name, .weight = 1};
    if (type && !strcmp(type, "twoBone"))
        ik->type = OROYA_IK_TWO_BONE;
    else if (type && !strcmp(type, "aim"))
        ik->type = OROYA_IK_AIM;
    else
        return sc_fail(p, "%s.type: expected \"twoBone\" or \"aim\"", path);
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(o, "joints");
    int n = cJSON_IsArray(joints) ? cJSON_GetArraySize(joints) : -1;
    if (ik->type == OROYA_IK_TWO_BONE ? n != 3 : (n < 1 || n > OROYA_IK_MAX_CHAIN))
        return sc_fail(p, "%s.joints: expected %s node names", path,
                       ik->type == OROYA_IK_TWO_BONE ? "3" : "1 to 8");
    ik->joint_count = (uint32_t)n;
    for (int k = 0; k < n; k++) {
        const cJSON *j = cJSON_GetArrayItem(joints, k);
        int node = cJSON_IsString(j) ? sc_find_node(p, j->valuestring) : -1;
        uint32_t dense = node >= 0 ? oroya_scene_node_index(p->scene, p->nodes[node].node)
                                   : OROYA_SCENE_NO_INDEX;
        if (dense == OROYA_SCENE_NO_INDEX)
            return sc_fail(p, "%s.joints[%d]: unknown node", path, k);
        ik->joints[k] = dense;
    }
    if (ik->type == OROYA_IK_AIM) {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "weights");
        if (w || n > 1) {
            char sub[400];
            snprintf(sub, sizeof sub, "%s.weights", path);
            double v[OROYA_IK_MAX_CHAIN];
            if (sc_get_vec(p, w, n, sub, v))
                return -1;
            for (int k = 0; k < n; k++)
                ik->shares[k] = (float)v[k];
        }
    }
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(o, "limits");
    if (lim) {
        if (!cJSON_IsArray(lim) || cJSON_GetArraySize(lim) != n)
            return sc_fail(p, "%s.limits: expected one limit (or null) per joint", path);
        for (int k = 0; k < n; k++) {
            const cJSON *l = cJSON_GetArrayItem(lim, k);
            char sub[400];
            snprintf(sub, sizeof sub, "%s.limits[%d]", path, k);
            if (!cJSON_IsNull(l) && setup_joint_limit(p, l, sub, &limits[k]))
                return -1;
        }
        ik->limits = limits;
    }
    return ik_fields(p, o, path, ik);
}

/* The IKs' current fields (setIk changes them) on the kernel joints of the mixer's rig. */
void sc_sync_mixer_ik(play *p) {
    for (int i = 0; i < p->ik_count; i++) {
        uint32_t joints[OROYA_IK_MAX_CHAIN];
        memcpy(joints, p->kiks[i].joints, sizeof joints);
        p->kiks[i] = p->iks[i];
        memcpy(p->kiks[i].joints, joints, sizeof joints);
    }
}

/* With a rig (the whole scene), the IKs run inside the mixer's kernel pass, so its bone
 * matrices and the joints it writes back carry them. */
static int setup_mixer_ik(play *p) {
    const oroya_rig *rig = oroya_mixer_rig(p->mixer);
    if (!rig || !p->ik_count) {
        return 0;
    }
    p->kiks = sc_calloc(p, (size_t)p->ik_count, sizeof *p->kiks);
    if (!p->kiks) {
        return sc_fail(p, "out of memory");
    }
    const uint32_t kernel = oroya_rig_kernel_joint_count(rig);
    for (int i = 0; i < p->ik_count; i++) {
        p->kiks[i] = p->iks[i];
        const uint32_t n = p->iks[i].joint_count ? p->iks[i].joint_count : 3;
        for (uint32_t k = 0; k < n && k < OROYA_IK_MAX_CHAIN; k++) {
            uint32_t found = UINT32_MAX;
            for (uint32_t j = 0; j < kernel && found == UINT32_MAX; j++) {
                if (oroya_scene_node_index(p->scene, oroya_rig_kernel_node(rig, j)) ==
                    p->iks[i].joints[k]) {
                    found = j;
                }
            }
            if (found == UINT32_MAX) {
                return sc_fail(p, "oroya.ik[%d].joints[%u]: not a joint of the rig", i, k);
            }
            p->kiks[i].joints[k] = found;
        }
    }
    oroya_error err = {0};
    if (oroya_mixer_set_ik(p->mixer, p->kiks, (uint32_t)p->ik_count, &err) != OROYA_OK) {
        return sc_fail(p, "oroya.ik: %s", err.message);
    }
    return 0;
}

static int setup_ik(play *p, const cJSON *list) {
    if (!list)
        return 0;
    if (!cJSON_IsArray(list))
        return sc_fail(p, "oroya.ik: expected an array");
    int n = cJSON_GetArraySize(list);
    p->iks = sc_calloc(p, (size_t)n + 1, sizeof *p->iks);
    p->ik_limits = sc_calloc(p, ((size_t)n + 1) * OROYA_IK_MAX_CHAIN, sizeof *p->ik_limits);
    if (!p->iks || !p->ik_limits)
        return sc_fail(p, "out of memory");
    for (int i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "oroya.ik[%d]", i);
        if (setup_one_ik(p, cJSON_GetArrayItem(list, i), path, i))
            return -1;
    }
    /* Checked against the pose before the first update (the scenario's initial nodes). */
    oroya_scene_update_world(p->scene);
    oroya_error err = {0};
    if (oroya_ik_scene_validate(p->scene, p->iks, (uint32_t)n, &err) != OROYA_OK)
        return sc_fail(p, "oroya.ik: %s", err.message);
    /* The chains' pose at set-up, for the field checks of the setIk ops. */
    p->ik_world = sc_calloc(p, (size_t)n * OROYA_IK_MAX_CHAIN + 1, sizeof *p->ik_world);
    p->ik_rot = sc_calloc(p, (size_t)n * OROYA_IK_MAX_CHAIN + 1, sizeof *p->ik_rot);
    if (!p->ik_world || !p->ik_rot)
        return sc_fail(p, "out of memory");
    const oroya_mat4 *world = oroya_scene_world_matrices(p->scene);
    const oroya_transform *tr = oroya_scene_transforms(p->scene);
    for (int i = 0; i < n; i++) {
        const uint32_t count = p->iks[i].joint_count;
        for (uint32_t k = 0; k < count && k < OROYA_IK_MAX_CHAIN; k++) {
            p->ik_world[(size_t)i * OROYA_IK_MAX_CHAIN + k] = world[p->iks[i].joints[k]];
            p->ik_rot[(size_t)i * OROYA_IK_MAX_CHAIN + k] = tr[p->iks[i].joints[k]].rotation;
        }
    }
    p->ik_count = n;
    return setup_mixer_ik(p);
}

/* The set-up's field checks (oroya_ik_solve_validate: finite, non-zero pole, forward and
 * targetRotation, up_axis not parallel to forward, ...) on IK `index` as a setIk op leaves it,
 * against the chain's pose at set-up. A degenerate pose (OROYA_ERR_INVALID_DATA: the target
 * at the first joint, a pole parallel to the line to it) depends on the pose when the op runs,
 * so it is not refused here: it is a run-time fallback of the solver (docs/ik.md). */
static int ik_check_fields(play *p, const oroya_ik *ik, int index, const char *path) {
    oroya_quat out[OROYA_IK_MAX_CHAIN];
    const size_t at = (size_t)index * OROYA_IK_MAX_CHAIN;
    const oroya_ik_solve_job job = {ik, &p->ik_world[at], &p->ik_rot[at], out, NULL};
    oroya_error err = {0};
    oroya_result r = oroya_ik_solve_validate(&job, (uint32_t)index, &err);
    if (r == OROYA_OK || r == OROYA_ERR_INVALID_DATA)
        return 0;
    /* "iks[0] (footL).target_rotation: zero or not finite" -> "script[3].targetRotation: ..." */
    char label[96];
    snprintf(label, sizeof label, "iks[%d] (%s)", index, ik->name);
    const char *rest = err.message;
    if (!strncmp(rest, label, strlen(label)))
        rest += strlen(label);
    static const char *const names[][2] = {{".target_rotation", ".targetRotation"},
                                           {".mid_axis", ".midAxis"},
                                           {".up_axis", ".upAxis"},
                                           {".shares", ".weights"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const size_t len = strlen(names[k][0]);
        if (!strncmp(rest, names[k][0], len))
            return sc_fail(p, "%s%s%s", path, names[k][1], rest + len);
    }
    return sc_fail(p, "%s%s", path, rest);
}

/* setIk changes the values of an IK, not its chain: these keys are fixed at set-up. */
static int set_ik_keys(play *p, const cJSON *o, const char *path) {
    static const char *const fixed[] = {"type", "joints", "weights", "limits"};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        if (cJSON_GetObjectItemCaseSensitive(o, fixed[k]))
            return sc_fail(p,
                           "%s.%s: fixed at set-up (\"oroya\": {\"ik\"}); setIk changes "
                           "target, pole, weight, soft, targetRotation, midAxis, forward, up, "
                           "upAxis, offset",
                           path, fixed[k]);
    return SC_KNOWN_KEYS(p, o, path, "do", "at", "step", "name", "target", "pole", "weight", "soft",
                         "midAxis", "forward", "targetRotation", "up", "upAxis", "offset");
}

int sc_parse_set_ik(play *p, const cJSON *o, const char *path, int *out) {
    const char *name = sc_get_string(o, "name");
    *out = -1;
    for (int i = 0; name && i < p->ik_count; i++)
        if (!strcmp(p->iks[i].name, name))
            *out = i;
    const cJSON *name_item = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (name_item && !cJSON_IsString(name_item))
        return sc_fail(p, "%s.name: expected a string", path);
    if (*out < 0)
        return sc_fail(p, "%s.name: no IK named '%s' in \"oroya\": {\"ik\"}", path,
                       name ? name : "(missing)");
    if (set_ik_keys(p, o, path))
        return -1;
    /* The set-up's IK with this op's values: each op checked on its own before the run. */
    oroya_ik copy = p->iks[*out];
    return ik_fields(p, o, path, &copy) || ik_check_fields(p, &copy, *out, path) ? -1 : 0;
}

/* Checked again on the IK as the earlier ops left it (values that are fine one by one, such
 * as an upAxis and a forward set by two ops, may clash); the IK keeps its values on error. */
int sc_run_set_ik(play *p, const op_call *c) {
    oroya_ik copy = p->iks[c->op->node];
    if (ik_fields(p, c->op->json, c->path, &copy) ||
        ik_check_fields(p, &copy, c->op->node, c->path))
        return -1;
    p->iks[c->op->node] = copy;
    return 0;
}

int sc_setup_oroya_extension(play *p) {
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p->root, "oroya");
    if (!ext)
        return 0;
    if (!cJSON_IsObject(ext))
        return sc_fail(p, "oroya: expected an object");
    if (SC_KNOWN_KEYS(p, ext, "oroya", "rotationBlend", "twistAxes", "jointLimits", "ik", "markers",
                      "masks", "rootMotion", "curves"))
        return -1;
    const cJSON *blend = cJSON_GetObjectItemCaseSensitive(ext, "rotationBlend");
    if (blend) {
        const char *b = cJSON_IsString(blend) ? blend->valuestring : "";
        oroya_rotation_blend mode;
        if (!strcmp(b, "slerp"))
            mode = OROYA_ROTATION_BLEND_SLERP;
        else if (!strcmp(b, "sterp"))
            mode = OROYA_ROTATION_BLEND_STERP;
        else
            return sc_fail(p, "oroya.rotationBlend: expected \"slerp\" or \"sterp\"");
        oroya_mixer_set_rotation_blend(p->mixer, mode);
    }
    const cJSON *axes = cJSON_GetObjectItemCaseSensitive(ext, "twistAxes");
    if (axes && !cJSON_IsObject(axes))
        return sc_fail(p, "oroya.twistAxes: expected an object");
    const cJSON *item;
    char path[320];
    cJSON_ArrayForEach(item, axes) {
        snprintf(path, sizeof path, "oroya.twistAxes.%s", item->string);
        int n = sc_find_node(p, item->string);
        if (n < 0)
            return sc_fail(p, "%s: unknown node", path);
        double v[3] = {0, 0, 0};
        if (!cJSON_IsNull(item) && sc_get_vec(p, item, 3, path, v))
            return -1;
        oroya_vec3 axis = {(float)v[0], (float)v[1], (float)v[2]};
        if (oroya_mixer_set_twist_axis(p->mixer, p->nodes[n].node,
                                       cJSON_IsNull(item) ? NULL : &axis) != OROYA_OK)
            return sc_fail(p, "%s: rejected by the mixer", path);
    }
    if (setup_ik(p, cJSON_GetObjectItemCaseSensitive(ext, "ik")))
        return -1;
    const cJSON *limits = cJSON_GetObjectItemCaseSensitive(ext, "jointLimits");
    if (limits && !cJSON_IsObject(limits))
        return sc_fail(p, "oroya.jointLimits: expected an object");
    cJSON_ArrayForEach(item, limits) {
        snprintf(path, sizeof path, "oroya.jointLimits.%s", item->string);
        int n = sc_find_node(p, item->string);
        if (n < 0)
            return sc_fail(p, "%s: unknown node", path);
        oroya_joint_limit limit;
        if (setup_joint_limit(p, item, path, &limit))
            return -1;
        oroya_error err = {0};
        if (oroya_mixer_set_joint_limit(p->mixer, p->nodes[n].node, &limit, &err) != OROYA_OK)
            return sc_fail(p, "%s: %s", path, err.message);
    }
    return 0;
}

/* "oroya": {"markers": {"<clip>": [{"time": seconds, "name": string}, ...], ...}}: the
 * clip's markers (oroya_clip_set_markers), set before actions clone their clips. */
int sc_setup_oroya_markers(play *p) {
    const cJSON *all = sc_oroya_member(p, "markers");
    if (!all)
        return 0;
    if (!cJSON_IsObject(all))
        return sc_fail(p, "oroya.markers: expected an object of clip names");
    const cJSON *list;
    cJSON_ArrayForEach(list, all) {
        char path[320];
        snprintf(path, sizeof path, "oroya.markers.%s", list->string);
        int c = sc_find_clip(p, list->string);
        if (c < 0)
            return sc_fail(p, "%s: unknown clip", path);
        if (!cJSON_IsArray(list))
            return sc_fail(p, "%s: expected an array of {\"time\", \"name\"}", path);
        int n = cJSON_GetArraySize(list);
        oroya_marker *marks = n ? sc_malloc(p, (size_t)n * sizeof *marks) : NULL;
        if (n && !marks)
            return sc_fail(p, "out of memory");
        int i = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, list) {
            char sub[400];
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
            const char *name = cJSON_IsObject(m) ? sc_get_string(m, "name") : NULL;
            double t = 0;
            if (cJSON_IsObject(m) && SC_KNOWN_KEYS(p, m, sub, "time", "name")) {
                sc_free(p, marks);
                return -1;
            }
            if (!name) {
                sc_free(p, marks);
                return sc_fail(p, "%s.name: expected a string", sub);
            }
            if (sc_get_number(p, m, "time", sub, &t)) {
                sc_free(p, marks);
                return -1;
            }
            marks[i++] = (oroya_marker){t, name};
        }
        oroya_error err = {0};
        oroya_result r = oroya_clip_set_markers(p->clips[c].clip, marks, (uint32_t)n, &err);
        sc_free(p, marks);
        if (r == OROYA_ERR_OUT_OF_MEMORY)
            return sc_fail(p, "out of memory");
        if (r != OROYA_OK)
            return sc_fail(p, "%s: %s", path, err.message);
    }
    return 0;
}

/* A name list of a mask: an array of node names. */
static int mask_names_of(play *p, const cJSON *mask, const char *key, const char *path,
                         const char ***out, uint32_t *count) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(mask, key);
    *out = NULL;
    *count = 0;
    if (!v)
        return 0;
    if (!cJSON_IsArray(v))
        return sc_fail(p, "%s.%s: expected an array of joint names", path, key);
    int n = cJSON_GetArraySize(v);
    if (!n)
        return 0;
    *out = sc_malloc(p, (size_t)n * sizeof **out);
    if (!*out)
        return sc_fail(p, "out of memory");
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v) {
        if (!cJSON_IsString(it)) {
            sc_free(p, (void *)*out);
            *out = NULL;
            return sc_fail(p, "%s.%s[%d]: expected a joint name", path, key, i);
        }
        (*out)[i++] = it->valuestring;
    }
    *count = (uint32_t)n;
    return 0;
}

/* "oroya": {"masks": {"<name>": {"include": [...], "descendants": bool, "exclude": [...],
 * "weights": {"<joint>": w}}}}: oroya_mask_create for each, in order. */
int sc_setup_oroya_masks(play *p) {
    const cJSON *all = sc_oroya_member(p, "masks");
    if (!all)
        return 0;
    if (!cJSON_IsObject(all))
        return sc_fail(p, "oroya.masks: expected an object of masks");
    int n = cJSON_GetArraySize(all);
    if (!n)
        return 0;
    p->masks = sc_malloc(p, (size_t)n * sizeof *p->masks);
    p->mask_names = sc_malloc(p, (size_t)n * sizeof *p->mask_names);
    if (!p->masks || !p->mask_names)
        return sc_fail(p, "out of memory");
    const cJSON *m;
    cJSON_ArrayForEach(m, all) {
        char path[320];
        snprintf(path, sizeof path, "oroya.masks.%s", m->string);
        if (!cJSON_IsObject(m))
            return sc_fail(p, "%s: expected an object", path);
        if (SC_KNOWN_KEYS(p, m, path, "include", "descendants", "exclude", "weights"))
            return -1;
        oroya_mask_desc d = {.name = m->string};
        const cJSON *desc = cJSON_GetObjectItemCaseSensitive(m, "descendants");
        if (desc && !cJSON_IsBool(desc))
            return sc_fail(p, "%s.descendants: expected true or false", path);
        d.descendants = cJSON_IsTrue(desc);
        const char **inc = NULL, **exc = NULL;
        oroya_mask_entry *w = NULL;
        int rc = mask_names_of(p, m, "include", path, &inc, &d.include_count);
        if (!rc)
            rc = mask_names_of(p, m, "exclude", path, &exc, &d.exclude_count);
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(m, "weights");
        if (!rc && ws && !cJSON_IsObject(ws))
            rc = sc_fail(p, "%s.weights: expected an object of joint weights", path);
        int wn = ws ? cJSON_GetArraySize(ws) : 0;
        if (!rc && wn && !(w = sc_malloc(p, (size_t)wn * sizeof *w)))
            rc = sc_fail(p, "out of memory");
        const cJSON *it;
        if (!rc && wn) {
            cJSON_ArrayForEach(it, ws) {
                if (!cJSON_IsNumber(it)) {
                    rc = sc_fail(p, "%s.weights.%s: expected a number", path, it->string);
                    break;
                }
                w[d.weight_count++] = (oroya_mask_entry){it->string, it->valuedouble};
            }
        }
        d.include = inc;
        d.exclude = exc;
        d.weights = w;
        oroya_error err = {0};
        oroya_result r = OROYA_OK;
        if (!rc)
            r = oroya_mask_create(p->mixer, &d, &p->masks[p->mask_count], &err);
        sc_free(p, (void *)inc);
        sc_free(p, (void *)exc);
        sc_free(p, w);
        if (rc)
            return rc;
        if (r == OROYA_ERR_OUT_OF_MEMORY)
            return sc_fail(p, "out of memory");
        if (r != OROYA_OK)
            return sc_fail(p, "%s: %s", path, err.message);
        p->mask_names[p->mask_count++] = m->string;
    }
    return 0;
}

/* {"do": "setMask", "action": A, "mask": "<name in oroya.masks>" | null} (oroya's extension). */
int sc_parse_set_mask(play *p, const cJSON *o, const char *path, play_op *op) {
    if (sc_op_action(p, o, "action", path, &op->action))
        return -1;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "mask");
    if (cJSON_IsNull(m)) {
        op->field = -1;
        return 0;
    }
    if (!cJSON_IsString(m))
        return sc_fail(p, "%s.mask: expected a mask name or null", path);
    for (int i = 0; i < p->mask_count; i++)
        if (!strcmp(p->mask_names[i], m->valuestring)) {
            op->field = i;
            return 0;
        }
    return sc_fail(p, "%s.mask: unknown mask \"%s\" (not in oroya.masks)", path, m->valuestring);
}

int sc_run_set_mask(play *p, const op_call *c) {
    int m = c->op->field;
    return sc_mixer_call(p, oroya_action_set_mask(c->a, m < 0 ? NULL : p->masks[m]), c->path,
                         c->what);
}

/* "oroya": {"rootMotion": {"node": "<name>", "extract": "xz" | "xz_yaw" | "y" | "full"}}. */
int sc_setup_oroya_root_motion(play *p) {
    const cJSON *rm = sc_oroya_member(p, "rootMotion");
    if (!rm)
        return 0;
    if (!cJSON_IsObject(rm))
        return sc_fail(p, "oroya.rootMotion: expected {\"node\", \"extract\"}");
    if (SC_KNOWN_KEYS(p, rm, "oroya.rootMotion", "node", "extract"))
        return -1;
    const char *node = sc_get_string(rm, "node");
    int n = sc_find_node(p, node);
    if (n < 0)
        return sc_fail(p, "oroya.rootMotion.node: unknown node '%s'", node ? node : "(missing)");
    const char *e = sc_get_string(rm, "extract");
    static const char *const modes[] = {"xz", "xz_yaw", "y", "full"};
    int mode = -1;
    for (int i = 0; e && i < 4; i++)
        if (!strcmp(e, modes[i]))
            mode = i;
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(rm, "extract");
    if (!ev)
        return sc_fail(p, "oroya.rootMotion.extract: missing (xz, xz_yaw, y or full)");
    if (!e)
        return sc_fail(p, "oroya.rootMotion.extract: expected a string (xz, xz_yaw, y or full)");
    if (mode < 0)
        return sc_fail(
            p, "oroya.rootMotion.extract: unknown extract mode '%.64s' (xz, xz_yaw, y or full)", e);
    oroya_error err = {0};
    if (oroya_mixer_set_root_motion(p->mixer, p->nodes[n].node, (oroya_root_extract)(mode + 1),
                                    &err) != OROYA_OK)
        return sc_fail(p, "oroya.rootMotion: %s", err.message);
    p->root_motion = true;
    return 0;
}
