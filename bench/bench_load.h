/* bench_load.h - builds the pose layer's inputs from a glTF file through the glTF importer
 * (oroya_gltf_load): the first skin's skeleton (rest pose from the scene, parents, inverse
 * binds, the scene names that clip tracks target), the file's clips, and the first skinned
 * mesh's vertex streams. Shared by `oroya bench`, bench/oroya_bench.c and the pose tests.
 * Header-only, static functions; load-time code. The skin's joints must be listed parents
 * first (oroya_pose_skeleton_create checks), as in the bench files. */
#ifndef OROYA_BENCH_LOAD_H
#define OROYA_BENCH_LOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oroya/clip.h"
#include "oroya/gltf.h"
#include "oroya/pose.h"
#include "oroya/scene.h"
#include "oroya/skin.h"

typedef struct bench_asset {
    oroya_gltf_model *model;
    oroya_pose_skeleton *skeleton;
    /* First skinned mesh (vertex_count 0 when none); the arrays belong to the model. */
    uint32_t vertex_count;
    const float *positions, *normals, *weights;
    const uint16_t *joints;
} bench_asset;

static void bench_asset_free(bench_asset *as) {
    oroya_pose_skeleton_destroy(as->skeleton);
    oroya_gltf_model_free(as->model);
    memset(as, 0, sizeof *as);
}

static oroya_result bench__fail(oroya_error *err, oroya_result r, const char *path,
                                const char *what) {
    err->result = r;
    snprintf(err->message, sizeof err->message, "%s: %s", path, what);
    return r;
}

/* Loads `path` with allocator `a` (NULL: malloc). err is required. */
static oroya_result bench_asset_load(const char *path, const oroya_allocator *a, bench_asset *as,
                                     oroya_error *err) {
    memset(as, 0, sizeof *as);
    oroya_gltf_import_desc desc = {.skip_images = true};
    if (a) {
        desc.allocator = *a;
    }
    oroya_result res = oroya_gltf_load(path, &desc, &as->model, err);
    if (res != OROYA_OK) {
        return res;
    }
    const oroya_gltf_model *m = as->model;
    if (m->skin_count == 0) {
        bench_asset_free(as);
        return bench__fail(err, OROYA_ERR_INVALID_DATA, path, "no skin");
    }
    const oroya_gltf_model_skin *skin = &m->skins[0];
    const uint32_t n = skin->joint_count;
    const size_t bytes = n * (sizeof(uint32_t) + sizeof(oroya_transform) + sizeof(char *)) + 8;
    void *scratch = a && a->alloc ? a->alloc(bytes, 16, a->user) : malloc(bytes);
    if (!scratch) {
        bench_asset_free(as);
        return bench__fail(err, OROYA_ERR_OUT_OF_MEMORY, path, "out of memory");
    }
    oroya_transform *rest = scratch;
    uint32_t *parents = (uint32_t *)(rest + n);
    const char **names = (const char **)(parents + n + (n & 1));
    for (uint32_t j = 0; j < n && res == OROYA_OK; j++) {
        oroya_node parent = {0};
        res = oroya_scene_get_transform(m->scene, skin->joints[j], &rest[j]);
        if (res == OROYA_OK) {
            res = oroya_scene_get_parent(m->scene, skin->joints[j], &parent);
        }
        parents[j] = UINT32_MAX;
        for (uint32_t k = 0; k < n; k++) {
            if (parent.id != 0 && skin->joints[k].id == parent.id) {
                parents[j] = k;
            }
        }
        names[j] = m->node_names[skin->joint_gltf_nodes[j]];
    }
    if (res == OROYA_OK) {
        oroya_pose_skeleton_desc sd = {.joint_count = n, .parents = parents, .rest = rest,
                                       .inverse_bind = skin->inverse_bind_matrices,
                                       .names = names};
        if (a) {
            sd.allocator = *a;
        }
        res = oroya_pose_skeleton_create(&sd, &as->skeleton, err);
    } else {
        bench__fail(err, res, path, "skin joint not in the scene");
    }
    if (a && a->alloc) {
        if (a->free) {
            a->free(scratch, a->user);
        }
    } else {
        free(scratch);
    }
    if (res != OROYA_OK) {
        bench_asset_free(as);
        return res;
    }
    if (m->skinned_mesh_count > 0) {
        const oroya_skin *sk = m->skinned_meshes[0];
        as->vertex_count = sk->vertex_count;
        as->positions = sk->positions;
        as->normals = sk->normals;
        as->joints = sk->joints;
        as->weights = sk->weights;
    }
    return OROYA_OK;
}

/* The clip named `name`, or NULL. */
static const oroya_clip *bench_asset_clip(const bench_asset *as, const char *name) {
    for (uint32_t i = 0; i < as->model->clip_count; i++) {
        if (as->model->clips[i] && !strcmp(as->model->clips[i]->name, name)) {
            return as->model->clips[i];
        }
    }
    return NULL;
}

#endif
