/* bench_load.h - builds the pose layer's inputs from a glTF file through the gltf.h parse API:
 * the first skin's skeleton (rest pose, parents, inverse binds, names), every animation as an
 * oroya_clip, and the first skinned primitive's vertex streams. Shared by `oroya bench`,
 * bench/oroya_bench.c and the pose tests until the glTF importer lands. Header-only, static
 * functions; load-time code, so it allocates freely (through `alloc` when given). */
#ifndef OROYA_BENCH_LOAD_H
#define OROYA_BENCH_LOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/gltf.h"
#include "oroya/pose.h"

#define BENCH_MAX_CLIPS 16

typedef struct bench_asset {
    oroya_gltf_data *gltf;
    oroya_pose_skeleton *skeleton;
    uint32_t clip_count;
    oroya_clip *clips[BENCH_MAX_CLIPS];
    /* First skinned primitive (NULL when none). */
    uint32_t vertex_count;
    float *positions, *normals, *weights;
    uint16_t *joints;
} bench_asset;

static void *bench__alloc(const oroya_allocator *a, size_t n) {
    return a && a->alloc ? a->alloc(n, 16, a->user) : malloc(n);
}
static void bench__free(const oroya_allocator *a, void *p) {
    if (a && a->free) {
        a->free(p, a->user);
    } else {
        free(p);
    }
}

static float *bench__floats(const oroya_gltf_data *g, uint32_t acc, const oroya_allocator *a,
                            size_t *count, oroya_error *err) {
    size_t n = oroya_gltf_accessor_float_count(g, acc);
    float *v = bench__alloc(a, n * sizeof(float) + 16);
    if (!v) {
        return NULL;
    }
    if (oroya_gltf_accessor_unpack_floats(g, acc, v, n, err) != OROYA_OK) {
        bench__free(a, v);
        return NULL;
    }
    if (count) {
        *count = n;
    }
    return v;
}

static void bench_asset_free(bench_asset *as, const oroya_allocator *a) {
    for (uint32_t i = 0; i < as->clip_count; i++) {
        oroya_clip_destroy(as->clips[i]);
    }
    oroya_pose_skeleton_destroy(as->skeleton);
    bench__free(a, as->positions);
    bench__free(a, as->normals);
    bench__free(a, as->weights);
    bench__free(a, as->joints);
    oroya_gltf_free(as->gltf);
    memset(as, 0, sizeof *as);
}

/* Loads `path`; with_mesh = false skips the vertex streams. */
static oroya_result bench_asset_load(const char *path, const oroya_allocator *a, bool with_mesh,
                                     bench_asset *as, oroya_error *err) {
    memset(as, 0, sizeof *as);
    oroya_gltf_desc gd = {0};
    if (a) {
        gd.allocator = *a;
    }
    oroya_result res = oroya_gltf_parse_file(&gd, path, &as->gltf, err);
    if (res == OROYA_OK) {
        res = oroya_gltf_validate(as->gltf, err);
    }
    if (res != OROYA_OK) {
        return res;
    }
    const oroya_gltf_data *g = as->gltf;
    if (g->skin_count == 0) {
        snprintf(err->message, sizeof err->message, "%s: no skin", path);
        return err->result = OROYA_ERR_INVALID_DATA;
    }
    const oroya_gltf_skin *skin = &g->skins[0];
    const uint32_t n = skin->joint_count;
    uint32_t *parents = bench__alloc(a, n * sizeof(uint32_t));
    uint32_t *node_joint = bench__alloc(a, g->node_count * sizeof(uint32_t));
    oroya_transform *rest = bench__alloc(a, n * sizeof(oroya_transform));
    const char **names = bench__alloc(a, n * sizeof(char *));
    float *ibm = NULL;
    if (!parents || !node_joint || !rest || !names) {
        res = OROYA_ERR_OUT_OF_MEMORY;
        goto done;
    }
    for (uint32_t i = 0; i < g->node_count; i++) {
        node_joint[i] = UINT32_MAX;
    }
    for (uint32_t j = 0; j < n; j++) {
        node_joint[skin->joints[j]] = j;
        parents[j] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < g->node_count; i++) {
        const oroya_gltf_node *nd = &g->nodes[i];
        for (uint32_t c = 0; c < nd->child_count; c++) {
            if (node_joint[i] != UINT32_MAX && node_joint[nd->children[c]] != UINT32_MAX) {
                parents[node_joint[nd->children[c]]] = node_joint[i];
            }
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        const oroya_gltf_node *nd = &g->nodes[skin->joints[j]];
        rest[j].translation = (oroya_vec3){nd->translation[0], nd->translation[1],
                                           nd->translation[2]};
        rest[j].rotation = (oroya_quat){nd->rotation[0], nd->rotation[1], nd->rotation[2],
                                        nd->rotation[3]};
        rest[j].scale = (oroya_vec3){nd->scale[0], nd->scale[1], nd->scale[2]};
        names[j] = nd->name ? nd->name : "";
    }
    if (skin->inverse_bind_matrices != OROYA_GLTF_NONE) {
        ibm = bench__floats(g, skin->inverse_bind_matrices, a, NULL, err);
        if (!ibm) {
            res = err->result ? err->result : OROYA_ERR_OUT_OF_MEMORY;
            goto done;
        }
    }
    oroya_pose_skeleton_desc sd = {.joint_count = n, .parents = parents, .rest = rest,
                                   .inverse_bind = (const oroya_mat4 *)ibm, .names = names};
    if (a) {
        sd.allocator = *a;
    }
    res = oroya_pose_skeleton_create(&sd, &as->skeleton, err);
    if (res != OROYA_OK) {
        goto done;
    }

    for (uint32_t ai = 0; ai < g->animation_count && as->clip_count < BENCH_MAX_CLIPS; ai++) {
        const oroya_gltf_animation *an = &g->animations[ai];
        oroya_track tracks[256];
        float *owned[512];
        uint32_t tc = 0, oc = 0;
        for (uint32_t ci = 0; ci < an->channel_count && tc < 256; ci++) {
            const oroya_gltf_channel *ch = &an->channels[ci];
            const oroya_gltf_sampler *sm = &an->samplers[ch->sampler];
            if (ch->node == OROYA_GLTF_NONE || ch->path == OROYA_GLTF_PATH_UNKNOWN ||
                ch->path == OROYA_GLTF_PATH_WEIGHTS) {
                continue;
            }
            size_t kc = 0, vc = 0;
            float *times = bench__floats(g, sm->input, a, &kc, err);
            float *values = bench__floats(g, sm->output, a, &vc, err);
            if (times) {
                owned[oc++] = times;
            }
            if (values) {
                owned[oc++] = values;
            }
            if (!times || !values) {
                res = err->result ? err->result : OROYA_ERR_OUT_OF_MEMORY;
                break;
            }
            oroya_track *tr = &tracks[tc++];
            memset(tr, 0, sizeof *tr);
            tr->target = g->nodes[ch->node].name ? g->nodes[ch->node].name : "";
            tr->property = ch->path == OROYA_GLTF_PATH_TRANSLATION ? OROYA_PROPERTY_TRANSLATION
                           : ch->path == OROYA_GLTF_PATH_ROTATION  ? OROYA_PROPERTY_ROTATION
                                                                   : OROYA_PROPERTY_SCALE;
            tr->interpolation = sm->interpolation == OROYA_GLTF_STEP     ? OROYA_INTERP_STEP
                                : sm->interpolation == OROYA_GLTF_LINEAR ? OROYA_INTERP_LINEAR
                                                                         : OROYA_INTERP_CUBICSPLINE;
            tr->components = tr->property == OROYA_PROPERTY_ROTATION ? 4 : 3;
            tr->key_count = (uint32_t)kc;
            tr->times = times;
            tr->values = values;
        }
        if (res == OROYA_OK) {
            oroya_clip_desc cd = {.name = an->name, .tracks = tracks, .track_count = tc};
            if (a) {
                cd.allocator = *a;
            }
            res = oroya_clip_create(&cd, &as->clips[as->clip_count], err);
            if (res == OROYA_OK) {
                as->clip_count++;
            }
        }
        for (uint32_t i = 0; i < oc; i++) {
            bench__free(a, owned[i]);
        }
        if (res != OROYA_OK) {
            goto done;
        }
    }

    for (uint32_t mi = 0; with_mesh && mi < g->mesh_count && !as->positions; mi++) {
        const oroya_gltf_mesh *m = &g->meshes[mi];
        for (uint32_t pi = 0; pi < m->primitive_count && !as->positions; pi++) {
            const oroya_gltf_primitive *p = &m->primitives[pi];
            uint32_t pos = OROYA_GLTF_NONE, nor = OROYA_GLTF_NONE, jnt = OROYA_GLTF_NONE,
                     wgt = OROYA_GLTF_NONE;
            for (uint32_t k = 0; k < p->attribute_count; k++) {
                const oroya_gltf_attribute *at = &p->attributes[k];
                if (at->set != 0) {
                    continue;
                }
                if (at->kind == OROYA_GLTF_ATTR_POSITION) pos = at->accessor;
                if (at->kind == OROYA_GLTF_ATTR_NORMAL) nor = at->accessor;
                if (at->kind == OROYA_GLTF_ATTR_JOINTS) jnt = at->accessor;
                if (at->kind == OROYA_GLTF_ATTR_WEIGHTS) wgt = at->accessor;
            }
            if (pos == OROYA_GLTF_NONE || nor == OROYA_GLTF_NONE || jnt == OROYA_GLTF_NONE ||
                wgt == OROYA_GLTF_NONE) {
                continue;
            }
            const uint32_t vc = g->accessors[pos].count;
            as->positions = bench__floats(g, pos, a, NULL, err);
            as->normals = bench__floats(g, nor, a, NULL, err);
            as->weights = bench__floats(g, wgt, a, NULL, err);
            uint32_t *j32 = bench__alloc(a, (size_t)vc * 4 * sizeof(uint32_t));
            as->joints = bench__alloc(a, (size_t)vc * 4 * sizeof(uint16_t));
            if (!as->positions || !as->normals || !as->weights || !j32 || !as->joints ||
                oroya_gltf_accessor_unpack_uints(g, jnt, j32, (size_t)vc * 4, err) != OROYA_OK) {
                bench__free(a, j32);
                res = err->result ? err->result : OROYA_ERR_OUT_OF_MEMORY;
                goto done;
            }
            for (size_t k = 0; k < (size_t)vc * 4; k++) {
                as->joints[k] = (uint16_t)(j32[k] < 65535u ? j32[k] : 65535u);
            }
            bench__free(a, j32);
            as->vertex_count = vc;
        }
    }
done:
    bench__free(a, parents);
    bench__free(a, node_joint);
    bench__free(a, rest);
    bench__free(a, (void *)names);
    bench__free(a, ibm);
    if (res != OROYA_OK) {
        if (err->result == OROYA_OK) {
            err->result = res;
            snprintf(err->message, sizeof err->message, "%s: %s", path, oroya_result_string(res));
        }
        bench_asset_free(as, a);
    }
    return res;
}

/* The clip named `name`, or NULL. */
static const oroya_clip *bench_asset_clip(const bench_asset *as, const char *name) {
    for (uint32_t i = 0; i < as->clip_count; i++) {
        if (!strcmp(as->clips[i]->name, name)) {
            return as->clips[i];
        }
    }
    return NULL;
}

#endif
