/* Skeletons: bone inverses, bone matrices, bind pose, diagnostics and the bone texture. */
#include "oroya/skeleton.h"

#include "internal/base.h"
#include "internal/pose_simd.h"
#include "internal/skin_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- bone texture ----------------------------------------------------------------------- */

uint32_t oroya_bone_texture_side(uint32_t bone_count) {
    /* The same double expression as three.js, so the sizes agree bit for bit. */
    double size = sqrt((double)bone_count * 4.0);
    size = ceil(size / 4.0) * 4.0;
    if (size < 4.0)
        size = 4.0;
    return (uint32_t)size;
}

size_t oroya_bone_texture_fill(const float *bone_matrices, uint32_t bone_count, float *out) {
    size_t side = oroya_bone_texture_side(bone_count);
    size_t total = side * side * 4;
    if (!out)
        return total;
    size_t used = (size_t)bone_count * 16;
    if (used > 0 && !bone_matrices)
        return 0;
    if (used > 0)
        memcpy(out, bone_matrices, used * sizeof(float));
    memset(out + used, 0, (total - used) * sizeof(float));
    return total;
}

/* ---- skeletons -------------------------------------------------------------------------- */

static size_t align_up(size_t n, size_t a) {
    return n > SIZE_MAX - (a - 1) ? SIZE_MAX : (n + a - 1) & ~(a - 1);
}

/* Adds `size` bytes at alignment 16 to a running layout; SIZE_MAX sticks. */
static size_t layout_add(size_t *total, size_t size) {
    size_t at = align_up(*total, 16);
    if (at == SIZE_MAX || size == SIZE_MAX || size > SIZE_MAX - at) {
        *total = SIZE_MAX;
        return 0;
    }
    *total = at + size;
    return at;
}

/* The same at alignment 64: the bone matrices, so the skinning kernel's 512-bit palette
 * loads never straddle cache lines. */
static size_t layout_add64(size_t *total, size_t size) {
    size_t at = align_up(*total, 64);
    if (at == SIZE_MAX || size == SIZE_MAX || size > SIZE_MAX - at) {
        *total = SIZE_MAX;
        return 0;
    }
    *total = at + size;
    return at;
}

static void write_identity(float *m) {
    memset(m, 0, 16 * sizeof(float));
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

/* Re-resolves the cached dense indices when the scene or its layout moved. */
static void resolve(oroya_skeleton *sk, const oroya_scene *scene) {
    uint32_t version = oroya_scene_layout_version(scene);
    if (sk->scene_ == scene && sk->layout_version_ == version && version != 0)
        return;
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        sk->dense_[i] = oroya_scene_node_index(scene, sk->bones[i]);
    }
    sk->scene_ = scene;
    sk->layout_version_ = version;
}

static oroya_result stale_bone(const oroya_skeleton *sk, uint32_t i, oroya_error *err,
                               const char *what) {
    return oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                       "%s: bones[%u] '%s' is not a live node of the scene (removed?)", what, i,
                       sk->bone_names[i]);
}

/* Whether the 16 floats are finite: one sum, NaN exactly when an element is not. */
static bool floats16_finite(const float *f) {
    float sum = 0;
    for (int e = 0; e < 16; e++) {
        sum += f[e] * 0.0f;
    }
    return sum == 0;
}

static oroya__dmat4 inverse_of_world(const oroya_mat4 *world) {
    oroya__dmat4 w = oroya__dmat4_from_floats(world->m), inv;
    oroya__dmat4_invert(&w, &inv); /* singular: zeros, as three.js */
    return inv;
}

oroya_result oroya_skeleton_create(const oroya_scene *scene, const oroya_skeleton_desc *desc,
                                   oroya_skeleton **out, oroya_error *err) {
    if (out)
        *out = NULL;
    if (!scene || !desc || !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skeleton: scene, desc and out are required");
    }
    uint32_t n = desc->bone_count;
    if (n > 0 && !desc->bones) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skeleton: bones is NULL but bone_count is %u", n);
    }
    size_t name_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!oroya_scene_node_valid(scene, desc->bones[i])) {
            return oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                               "skeleton: bones[%u] (handle %u) is not a live node of the scene", i,
                               desc->bones[i].id);
        }
        name_bytes += strlen(oroya_scene_node_name(scene, desc->bones[i])) + 1;
        if (desc->bone_inverses) {
            for (int e = 0; e < 16; e++) {
                if (!isfinite(desc->bone_inverses[i].m[e])) {
                    return oroya__fail(err, OROYA_ERR_NON_FINITE,
                                       "skeleton: bone_inverses[%u][%d] is not finite", i, e);
                }
            }
        }
    }
    uint32_t side = oroya_bone_texture_side(n);
    size_t total = 0;
    layout_add(&total, sizeof(oroya_skeleton));
    size_t off_bones = layout_add(&total, oroya__mul_size(n, sizeof(oroya_node)));
    size_t off_names = layout_add(&total, oroya__mul_size(n, sizeof(char *)));
    size_t off_inv = layout_add(&total, oroya__mul_size(n, sizeof(oroya_mat4)));
    size_t off_mat = layout_add64(&total, oroya__mul_size((size_t)side * side * 4, sizeof(float)));
    size_t off_dense = layout_add(&total, oroya__mul_size(n, sizeof(uint32_t)));
    size_t off_chars = layout_add(&total, name_bytes);
    unsigned char *mem = oroya__calloc(&desc->allocator, 1, total, 64);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "skeleton: cannot allocate %u bones", n);
    }
    oroya_skeleton *sk = (oroya_skeleton *)mem;
    oroya_node *bones = (oroya_node *)(mem + off_bones);
    const char **names = (const char **)(mem + off_names);
    char *chars = (char *)(mem + off_chars);
    sk->bone_count = n;
    sk->bones = bones;
    sk->bone_names = names;
    sk->inverses_ = (oroya_mat4 *)(mem + off_inv);
    sk->bone_inverses = sk->inverses_;
    sk->matrices_ = (float *)(mem + off_mat);
    sk->bone_matrices = sk->matrices_;
    sk->texture_side = side;
    sk->dense_ = (uint32_t *)(mem + off_dense);
    sk->allocator_ = desc->allocator;
    for (uint32_t i = 0; i < n; i++) {
        bones[i] = desc->bones[i];
        const char *name = oroya_scene_node_name(scene, bones[i]);
        size_t len = strlen(name) + 1;
        memcpy(chars, name, len);
        names[i] = chars;
        chars += len;
        write_identity(sk->matrices_ + (size_t)i * 16);
    }
    resolve(sk, scene);
    if (desc->bone_inverses) {
        memcpy(sk->inverses_, desc->bone_inverses, (size_t)n * sizeof(oroya_mat4));
    } else {
        oroya_result r = oroya_skeleton_calculate_inverses(sk, scene, err);
        if (r != OROYA_OK) { /* not reachable: every bone was checked above */
            oroya_skeleton_destroy(sk);
            return r;
        }
    }
    *out = sk;
    return OROYA_OK;
}

void oroya_skeleton_destroy(oroya_skeleton *skeleton) {
    if (!skeleton)
        return;
    oroya_allocator a = skeleton->allocator_;
    oroya__free(&a, skeleton);
}

oroya_result oroya_skeleton_calculate_inverses(oroya_skeleton *skeleton, const oroya_scene *scene,
                                               oroya_error *err) {
    if (!skeleton || !scene) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skeleton calculate_inverses: skeleton and scene are required");
    }
    for (uint32_t i = 0; i < skeleton->bone_count; i++) {
        if (!oroya_scene_node_valid(scene, skeleton->bones[i])) {
            return stale_bone(skeleton, i, err, "skeleton calculate_inverses");
        }
    }
    const oroya_mat4 *world = oroya_scene_world_matrices(scene);
    /* First every inverse is checked: one that float cannot hold (a bone scaled by 1e-39 has
     * a world matrix float holds and an inverse of 1e39) is refused, naming the bone, and
     * nothing changes; stored as inf it made every later bone matrix NaN. */
    for (uint32_t i = 0; i < skeleton->bone_count; i++) {
        uint32_t d = oroya_scene_node_index(scene, skeleton->bones[i]);
        oroya__dmat4 inv = inverse_of_world(&world[d]);
        float f[16];
        oroya__dmat4_to_floats(&inv, f);
        if (!floats16_finite(f)) {
            return oroya__fail(err, OROYA_ERR_NON_FINITE,
                               "skeleton calculate_inverses: bones[%u] '%s': the inverse of its "
                               "world matrix is not finite in float (a scale near 0, such as "
                               "1e-39?); nothing changed",
                               i, skeleton->bone_names[i]);
        }
    }
    for (uint32_t i = 0; i < skeleton->bone_count; i++) {
        uint32_t d = oroya_scene_node_index(scene, skeleton->bones[i]);
        oroya__dmat4 inv = inverse_of_world(&world[d]);
        oroya__dmat4_to_floats(&inv, skeleton->inverses_[i].m);
    }
    return OROYA_OK;
}

oroya_result oroya_skeleton_update(oroya_skeleton *skeleton, const oroya_scene *scene,
                                   oroya_error *err) {
    if (!skeleton || !scene) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skeleton update: skeleton and scene are required");
    }
    resolve(skeleton, scene);
    const oroya_mat4 *world = oroya_scene_world_matrices(scene);
    uint32_t first_stale = UINT32_MAX, first_bad = UINT32_MAX;
    for (uint32_t i = 0; i < skeleton->bone_count; i++) {
        float *out = skeleton->matrices_ + (size_t)i * 16;
        uint32_t d = skeleton->dense_[i];
        /* The cache is keyed on (scene pointer, layout version); a scene destroyed and another
         * allocated at the same address could match it. One handle compare per bone makes a
         * wrong index impossible rather than unlikely. */
        if (d != OROYA_SCENE_NO_INDEX &&
            oroya_scene_node_at(scene, d).id != skeleton->bones[i].id) {
            d = oroya_scene_node_index(scene, skeleton->bones[i]);
            skeleton->dense_[i] = d;
        }
        if (d == OROYA_SCENE_NO_INDEX) {
            write_identity(out);
            if (first_stale == UINT32_MAX)
                first_stale = i;
            continue;
        }
        oroya__bone_matrix(world[d].m, skeleton->inverses_[i].m, out);
        /* A finite world times a finite inverse can pass float (a bone scaled by 1e20 over an
         * inverse of 1e19): three.js's matrix is then inf and skinning NaN. Such a bone gets
         * the identity too (its vertices stay in the rest pose), and the call says so. */
        if (!floats16_finite(out)) {
            write_identity(out);
            if (first_bad == UINT32_MAX)
                first_bad = i;
        }
    }
    if (first_stale != UINT32_MAX)
        return stale_bone(skeleton, first_stale, err, "skeleton update");
    if (first_bad != UINT32_MAX)
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "skeleton update: bones[%u] '%s': the bone matrix (world x inverse) "
                           "is not finite in float; it was given the identity",
                           first_bad, skeleton->bone_names[first_bad]);
    return OROYA_OK;
}

oroya_result oroya_skeleton_pose(const oroya_skeleton *skeleton, oroya_scene *scene,
                                 oroya_error *err) {
    if (!skeleton || !scene) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skeleton pose: skeleton and scene are required");
    }
    const oroya_mat4 *world = oroya_scene_world_matrices(scene);
    uint32_t first_stale = UINT32_MAX;
    for (uint32_t i = 0; i < skeleton->bone_count; i++) {
        oroya_node bone = skeleton->bones[i];
        if (!oroya_scene_node_valid(scene, bone)) {
            if (first_stale == UINT32_MAX)
                first_stale = i;
            continue;
        }
        oroya__dmat4 bind_inv = oroya__dmat4_from_floats(skeleton->inverses_[i].m), bind_world;
        oroya__dmat4_invert(&bind_inv, &bind_world);
        oroya__dmat4 local = bind_world;
        oroya_node parent = {0};
        oroya_node_kind kind = OROYA_NODE_OBJECT;
        if (oroya_scene_get_parent(scene, bone, &parent) == OROYA_OK && parent.id != 0 &&
            oroya_scene_node_kind(scene, parent, &kind) == OROYA_OK && kind == OROYA_NODE_BONE) {
            /* three.js reads parent.matrixWorld after its first loop set every skeleton
             * bone's matrixWorld to the bind pose: the last skeleton entry for that node wins,
             * and a parent outside the skeleton keeps its current world matrix. */
            oroya__dmat4 parent_world;
            uint32_t slot = UINT32_MAX;
            for (uint32_t j = 0; j < skeleton->bone_count; j++) {
                if (skeleton->bones[j].id == parent.id)
                    slot = j;
            }
            if (slot != UINT32_MAX) {
                oroya__dmat4 pinv = oroya__dmat4_from_floats(skeleton->inverses_[slot].m);
                oroya__dmat4_invert(&pinv, &parent_world);
            } else {
                parent_world =
                    oroya__dmat4_from_floats(world[oroya_scene_node_index(scene, parent)].m);
            }
            oroya__dmat4 parent_inv;
            oroya__dmat4_invert(&parent_world, &parent_inv);
            local = oroya__dmat4_mul(&parent_inv, &bind_world);
        }
        oroya_mat4 m;
        oroya__dmat4_to_floats(&local, m.m);
        oroya_transform t;
        oroya_mat4_decompose(m, &t.translation, &t.rotation, &t.scale);
        oroya_result r = oroya_scene_set_transform(scene, bone, &t);
        if (r != OROYA_OK) {
            return oroya__fail(err, r,
                               "skeleton pose: bones[%u] '%s': the bind pose is not "
                               "a finite transform",
                               i, skeleton->bone_names[i]);
        }
    }
    if (first_stale != UINT32_MAX)
        return stale_bone(skeleton, first_stale, err, "skeleton pose");
    return OROYA_OK;
}

uint32_t oroya_skeleton_unreachable_bones(const oroya_skeleton *skeleton, const oroya_scene *scene,
                                          uint32_t *out, uint32_t capacity) {
    if (!skeleton)
        return 0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < skeleton->bone_count; i++) {
        if (scene && oroya_scene_node_valid(scene, skeleton->bones[i]))
            continue;
        if (out && count < capacity)
            out[count] = i;
        count++;
    }
    return count;
}

oroya_result oroya_skeleton_validate(const oroya_skeleton *skeleton, const oroya_scene *scene,
                                     oroya_error *err) {
    if (!skeleton || !scene) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skeleton validate: skeleton and scene are required");
    }
    uint32_t first = UINT32_MAX, count = 0;
    char names[OROYA_ERROR_MESSAGE_MAX / 2] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < skeleton->bone_count; i++) {
        if (oroya_scene_node_valid(scene, skeleton->bones[i]))
            continue;
        if (first == UINT32_MAX)
            first = i;
        count++;
        const char *name = skeleton->bone_names[i][0] ? skeleton->bone_names[i] : "(unnamed)";
        int w = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
        if (w > 0)
            used = (size_t)w + used < sizeof names ? used + (size_t)w : sizeof names - 1;
    }
    if (count == 0)
        return OROYA_OK;
    return oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                       "skeleton: bones[%u] '%s' is not in the scene (removed?); %u unreachable "
                       "bone%s: %s",
                       first, skeleton->bone_names[first], count, count == 1 ? "" : "s", names);
}
