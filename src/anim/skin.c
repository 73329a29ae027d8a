/* Skinned meshes: influence checks, weight normalization, the CPU skinning job. */
#include "oroya/skin.h"

#include "internal/base.h"
#include "internal/pose.h"
#include "internal/skin_math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- influences ------------------------------------------------------------------------- */

oroya_result oroya_skin_check_influences(const uint16_t *joints, const float *weights,
                                         const uint16_t *joints2, const float *weights2,
                                         uint32_t count, uint32_t bone_count, oroya_error *err) {
    if (count > 0 && (!joints || !weights)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin influences: joints and weights are required for %u vertices",
                           count);
    }
    if ((joints2 == NULL) != (weights2 == NULL)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin influences: joints2 and weights2 must be given together");
    }
    oroya_result first = OROYA_OK;
    uint32_t bad_vertices = 0;
    char message[OROYA_ERROR_MESSAGE_MAX] = "";
    uint32_t sets = joints2 ? 2u : 1u;
    for (uint32_t v = 0; v < count; v++) {
        oroya_result r = OROYA_OK;
        bool any = false;
        for (uint32_t s = 0; s < sets && r == OROYA_OK; s++) {
            const uint16_t *j = (s == 0 ? joints : joints2) + (size_t)v * 4;
            const float *w = (s == 0 ? weights : weights2) + (size_t)v * 4;
            for (uint32_t k = 0; k < 4; k++) {
                uint32_t influence = s * 4 + k;
                if (!isfinite(w[k])) {
                    r = OROYA_ERR_NON_FINITE;
                    if (first == OROYA_OK) {
                        snprintf(message, sizeof message, "vertex %u: weight %u is %s", v,
                                 influence, isnan(w[k]) ? "NaN" : "infinite");
                    }
                    break;
                }
                if (w[k] < 0.0f) {
                    r = OROYA_ERR_INVALID_DATA;
                    if (first == OROYA_OK) {
                        snprintf(message, sizeof message, "vertex %u: weight %u is negative (%g)",
                                 v, influence, (double)w[k]);
                    }
                    break;
                }
                if (w[k] != 0.0f) {
                    any = true;
                    if (j[k] >= bone_count) {
                        r = OROYA_ERR_OUT_OF_RANGE;
                        if (first == OROYA_OK) {
                            snprintf(message, sizeof message,
                                     "vertex %u: influence %u names bone %u, but the skeleton "
                                     "has %u bones",
                                     v, influence, (unsigned)j[k], bone_count);
                        }
                        break;
                    }
                }
            }
        }
        if (r == OROYA_OK && !any) {
            r = OROYA_ERR_INVALID_DATA;
            if (first == OROYA_OK) {
                snprintf(message, sizeof message, "vertex %u: all weights are zero", v);
            }
        }
        if (r != OROYA_OK) {
            if (first == OROYA_OK)
                first = r;
            bad_vertices++;
        }
    }
    if (first == OROYA_OK)
        return OROYA_OK;
    if (bad_vertices > 1) {
        return oroya__fail(err, first, "skin influences: %s (and %u more bad vertices)", message,
                           bad_vertices - 1);
    }
    return oroya__fail(err, first, "skin influences: %s", message);
}

void oroya_skin_normalize_weight_arrays(float *weights, float *weights2, uint32_t count) {
    if (!weights)
        return;
    for (uint32_t v = 0; v < count; v++) {
        float *a = weights + (size_t)v * 4;
        float *b = weights2 ? weights2 + (size_t)v * 4 : NULL;
        /* three.js works in doubles: 1 / manhattanLength, then multiplies. In float a sum of
         * denormals would give an infinite scale where three.js's does not. */
        double sum = 0.0;
        for (int k = 0; k < 4; k++)
            sum += fabs((double)a[k]);
        if (b) {
            for (int k = 0; k < 4; k++)
                sum += fabs((double)b[k]);
        }
        double scale = 1.0 / sum;
        if (isinf(scale)) {
            a[0] = 1.0f;
            a[1] = a[2] = a[3] = 0.0f;
            if (b)
                b[0] = b[1] = b[2] = b[3] = 0.0f;
            continue;
        }
        for (int k = 0; k < 4; k++)
            a[k] = (float)((double)a[k] * scale);
        if (b) {
            for (int k = 0; k < 4; k++)
                b[k] = (float)((double)b[k] * scale);
        }
    }
}

/* ---- the skinning job ------------------------------------------------------------------- */

static bool all_finite(const float *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(p[i]))
            return false;
    }
    return true;
}

/* The first vertex whose position or normal (normals may be NULL) is not finite, reported as
 * "<what>: vertex v: ... is not finite". */
static oroya_result check_vertices_finite(const float *positions, const float *normals,
                                          uint32_t count, const char *what, oroya_error *err) {
    for (uint32_t v = 0; v < count; v++) {
        if (!all_finite(positions + (size_t)v * 3, 3)) {
            return oroya__fail(err, OROYA_ERR_NON_FINITE, "%s: vertex %u: position is not finite",
                               what, v);
        }
        if (normals && !all_finite(normals + (size_t)v * 3, 3)) {
            return oroya__fail(err, OROYA_ERR_NON_FINITE, "%s: vertex %u: normal is not finite",
                               what, v);
        }
    }
    return OROYA_OK;
}

static bool needs_precombine(const oroya_skin_job *job) {
    return job->bind_matrix != NULL || job->bind_matrix_inverse != NULL;
}

/* The checks that cost O(1) (plus O(palette) for nothing): run does these every time. */
static oroya_result check_job_shape(const oroya_skin_job *job, oroya_error *err) {
    if (!job)
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "skin job: job is NULL");
    if (job->count > 0) {
        if (!job->positions) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "skin job: positions is NULL");
        }
        if (!job->joints || !job->weights) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "skin job: joints and weights are required");
        }
        if (!job->out_positions) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "skin job: out_positions is NULL");
        }
    }
    if ((job->normals == NULL) != (job->out_normals == NULL)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin job: normals and out_normals must be given together");
    }
    if ((job->joints2 == NULL) != (job->weights2 == NULL)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin job: joints2 and weights2 must be given together");
    }
    if (job->palette_count > 0 && !job->palette) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin job: palette is NULL but palette_count is %u", job->palette_count);
    }
    if (job->palette_count > OROYA_SKIN_MAX_PALETTE) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "skin job: palette_count %u is above OROYA_SKIN_MAX_PALETTE (%d)",
                           job->palette_count, OROYA_SKIN_MAX_PALETTE);
    }
    if (needs_precombine(job) && !job->scratch && job->palette_count > OROYA_MAX_JOINTS) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "skin job: %u palette entries with a bind matrix need job.scratch "
                           "(the built-in buffer holds OROYA_MAX_JOINTS = %d)",
                           job->palette_count, OROYA_MAX_JOINTS);
    }
    return OROYA_OK;
}

/* Whether influence set s (0: joints/weights, 1: joints2/weights2) of vertex v names joints
 * below palette_count wherever its weight is not zero; reports the first that does not. */
static oroya_result check_influence_set(const oroya_skin_job *job, uint32_t s, uint32_t v,
                                        oroya_error *err) {
    const uint16_t *j = (s == 0 ? job->joints : job->joints2) + (size_t)v * 4;
    const float *w = (s == 0 ? job->weights : job->weights2) + (size_t)v * 4;
    for (uint32_t k = 0; k < 4; k++) {
        if (w[k] != 0.0f && j[k] >= job->palette_count) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE,
                               "skin job: vertex %u: influence %u names joint %u, but the "
                               "palette has %u",
                               v, s * 4 + k, (unsigned)j[k], job->palette_count);
        }
    }
    return OROYA_OK;
}

oroya_result oroya_skin_job_validate(const oroya_skin_job *job, oroya_error *err) {
    oroya_result r = check_job_shape(job, err);
    if (r != OROYA_OK)
        return r;
    if (job->palette_count > 0 && !all_finite(job->palette, (size_t)job->palette_count * 16)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE, "skin job: the palette is not finite");
    }
    if (job->bind_matrix && !all_finite(job->bind_matrix, 16)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE, "skin job: bind_matrix is not finite");
    }
    if (job->bind_matrix_inverse && !all_finite(job->bind_matrix_inverse, 16)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "skin job: bind_matrix_inverse is not finite");
    }
    r = check_vertices_finite(job->positions, job->normals, job->count, "skin job", err);
    if (r != OROYA_OK)
        return r;
    for (uint32_t s = 0; s < (job->joints2 ? 2u : 1u); s++) {
        const float *w = s == 0 ? job->weights : job->weights2;
        for (uint32_t v = 0; v < job->count; v++) {
            /* A NaN or infinite weight (it passed, and the vertex came out NaN). */
            for (uint32_t k = 0; k < 4; k++) {
                if (!isfinite(w[(size_t)v * 4 + k])) {
                    return oroya__fail(err, OROYA_ERR_NON_FINITE,
                                       "skin job: vertex %u: influence %u: weight %g is not finite",
                                       v, s * 4 + k, (double)w[(size_t)v * 4 + k]);
                }
            }
            r = check_influence_set(job, s, v, err);
            if (r != OROYA_OK)
                return r;
        }
    }
    return OROYA_OK;
}

static bool palette_finite(const float *palette, uint32_t count) {
    return count == 0 || all_finite(palette, (size_t)count * 16);
}

/* The first influence of vertex v that names a joint >= palette_count with a non-zero
 * weight (the vertex is known to have one). */
static oroya_result report_bad_joint(const oroya_skin_job *job, uint32_t v, oroya_error *err) {
    for (uint32_t s = 0; s < (job->joints2 ? 2u : 1u); s++) {
        oroya_result r = check_influence_set(job, s, v, err);
        if (r != OROYA_OK)
            return r;
    }
    return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE, "skin job: vertex %u: joint out of range", v);
}

/* min xyz, max xyz of the outputs; NaN never replaces a bound (three.js's Box3). */
static void positions_bounds(const float *p, uint32_t count, float *out) {
    float lo[3] = {INFINITY, INFINITY, INFINITY};
    float hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < count; v++) {
        for (int c = 0; c < 3; c++) {
            const float x = p[(size_t)v * 3 + (size_t)c];
            lo[c] = x < lo[c] ? x : lo[c];
            hi[c] = x > hi[c] ? x : hi[c];
        }
    }
    memcpy(out, lo, sizeof lo);
    memcpy(out + 3, hi, sizeof hi);
}

oroya_result oroya_skin_job_run(const oroya_skin_job *job, oroya_error *err) {
    oroya_result r = check_job_shape(job, err);
    if (r != OROYA_OK)
        return r;

    const float *palette = job->palette;
    _Alignas(64) float stack_palette[OROYA_MAX_JOINTS * 16];
    float offset[3] = {0.0f, 0.0f, 0.0f};
    if (needs_precombine(job) && job->count > 0) {
        /* bind_matrix_inverse * bone * bind_matrix once per bone, in double, so the vertex loop
         * does one blend and one transform instead of three transforms. getVertexPosition
         * applies bind_matrix_inverse once to the weighted sum, while each precombined matrix
         * carries its translation t: taking t out of every matrix and adding it once to each
         * vertex keeps three.js's CPU result for weights that do not sum to 1. */
        float *combined = job->scratch ? job->scratch : stack_palette;
        oroya__dmat4 bind =
            job->bind_matrix ? oroya__dmat4_from_floats(job->bind_matrix) : oroya__dmat4_identity();
        oroya__dmat4 bind_inv = job->bind_matrix_inverse
                                    ? oroya__dmat4_from_floats(job->bind_matrix_inverse)
                                    : oroya__dmat4_identity();
        for (int c = 0; c < 3; c++)
            offset[c] = (float)bind_inv.m[12 + c];
        for (uint32_t b = 0; b < job->palette_count; b++) {
            oroya__dmat4 bone = oroya__dmat4_from_floats(job->palette + (size_t)b * 16);
            oroya__dmat4 tmp = oroya__dmat4_mul(&bone, &bind);
            tmp = oroya__dmat4_mul(&bind_inv, &tmp);
            for (int c = 0; c < 3; c++)
                tmp.m[12 + c] -= bind_inv.m[12 + c];
            oroya__dmat4_to_floats(&tmp, combined + (size_t)b * 16);
        }
        palette = combined;
    }

    const oroya__skin_kernel_job k = {
        .count = job->count,
        .positions = job->positions,
        .normals = job->normals,
        .joints = job->joints,
        .weights = job->weights,
        .joints2 = job->joints2,
        .weights2 = job->weights2,
        .palette_count = job->palette_count,
        .palette = palette,
        .out_positions = job->out_positions,
        .out_normals = job->out_normals,
        .offset = {offset[0], offset[1], offset[2]},
    };
    /* The SIMD loops multiply every influence, zero weights too, and store 4 floats at a
     * time: they run when that gives the same result (4 influences, every joint in range, a
     * finite palette) and the outputs are not the inputs; the general loop takes the rest. */
    bool fast =
        job->count > 0 && !job->joints2 && job->out_positions != job->positions &&
        (!job->normals || job->out_normals != job->normals) &&
        oroya__skin_joints_in_range(job->joints, (size_t)job->count * 4, job->palette_count) &&
        palette_finite(palette, job->palette_count);
    uint32_t bad = oroya__skin_kernel_run(&k, 0, fast);
    if (job->out_bounds)
        positions_bounds(job->out_positions, job->count, job->out_bounds);
    if (bad != UINT32_MAX)
        return report_bad_joint(job, bad, err);
    return OROYA_OK;
}

/* ---- skinned meshes --------------------------------------------------------------------- */

static size_t skin_align_up(size_t n) {
    return n > SIZE_MAX - 15 ? SIZE_MAX : (n + 15) & ~(size_t)15;
}

/* Adds `size` bytes at alignment 16 to a running layout; SIZE_MAX sticks. */
static size_t skin_layout_add(size_t *total, size_t size) {
    size_t at = skin_align_up(*total);
    if (at == SIZE_MAX || size == SIZE_MAX || size > SIZE_MAX - at) {
        *total = SIZE_MAX;
        return 0;
    }
    *total = at + size;
    return at;
}

/* Copies `size` bytes of src to offset `at` of the skin's block and returns where they went. */
static void *copy_to(unsigned char *mem, size_t at, const void *src, size_t size) {
    memcpy(mem + at, src, size);
    return mem + at;
}

oroya_result oroya_skin_create(const oroya_skin_desc *desc, oroya_skin **out, oroya_error *err) {
    if (out)
        *out = NULL;
    if (!desc || !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "skin: desc and out are required");
    }
    uint32_t n = desc->vertex_count;
    if (n == 0 || !desc->positions || !desc->joints || !desc->weights) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin: vertex_count > 0, positions, joints and weights are required");
    }
    if ((desc->joints2 == NULL) != (desc->weights2 == NULL)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin: joints2 and weights2 must be given together");
    }
    oroya_result r = check_vertices_finite(desc->positions, desc->normals, n, "skin", err);
    if (r != OROYA_OK)
        return r;
    size_t v3 = oroya__mul_size(n, 3 * sizeof(float));
    size_t v4f = oroya__mul_size(n, 4 * sizeof(float));
    size_t v4j = oroya__mul_size(n, 4 * sizeof(uint16_t));
    bool two = desc->joints2 != NULL;
    size_t total = 0;
    skin_layout_add(&total, sizeof(oroya_skin));
    size_t off_pos = skin_layout_add(&total, v3);
    size_t off_nrm = skin_layout_add(&total, desc->normals ? v3 : 0);
    size_t off_j = skin_layout_add(&total, v4j);
    size_t off_w = skin_layout_add(&total, v4f);
    size_t off_j2 = skin_layout_add(&total, two ? v4j : 0);
    size_t off_w2 = skin_layout_add(&total, two ? v4f : 0);
    unsigned char *mem = oroya__calloc(&desc->allocator, 1, total, 16);
    if (!mem) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "skin: cannot allocate %u vertices", n);
    }
    oroya_skin *skin = (oroya_skin *)mem;
    skin->mesh = desc->mesh;
    skin->vertex_count = n;
    skin->allocator_ = desc->allocator;
    skin->bind_mode = OROYA_BIND_ATTACHED;
    skin->bind_matrix = oroya_mat4_identity();
    skin->bind_matrix_inverse = oroya_mat4_identity();
    skin->positions = copy_to(mem, off_pos, desc->positions, v3);
    if (desc->normals) {
        skin->normals = copy_to(mem, off_nrm, desc->normals, v3);
    }
    skin->joints = copy_to(mem, off_j, desc->joints, v4j);
    skin->weights = skin->weights_ = copy_to(mem, off_w, desc->weights, v4f);
    if (two) {
        skin->joints2 = copy_to(mem, off_j2, desc->joints2, v4j);
        skin->weights2 = skin->weights2_ = copy_to(mem, off_w2, desc->weights2, v4f);
    }
    *out = skin;
    return OROYA_OK;
}

void oroya_skin_destroy(oroya_skin *skin) {
    if (!skin)
        return;
    oroya_allocator a = skin->allocator_;
    oroya__free(&a, skin->scratch_);
    oroya__free(&a, skin);
}

void oroya_skin_weights_normalize(float *weights, float *weights2, uint32_t count) {
    oroya_skin_normalize_weight_arrays(weights, weights2, count);
}

void oroya_skin_normalize_weights(oroya_skin *skin) {
    if (!skin)
        return;
    oroya_skin_normalize_weight_arrays(skin->weights_, skin->weights2_, skin->vertex_count);
}

/* Inverse in double, rounded to float; false when singular. */
static bool invert_to(const oroya_mat4 *m, oroya_mat4 *out) {
    oroya__dmat4 a = oroya__dmat4_from_floats(m->m), inv;
    bool ok = oroya__dmat4_invert(&a, &inv);
    oroya__dmat4_to_floats(&inv, out->m);
    return ok;
}

oroya_result oroya_skin_bind(oroya_skin *skin, oroya_scene *scene, oroya_skeleton *skeleton,
                             const oroya_mat4 *bind_matrix, oroya_error *err) {
    if (!skin || !scene || !skeleton) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin bind: skin, scene and skeleton are required");
    }
    oroya_result r =
        oroya_skin_check_influences(skin->joints, skin->weights, skin->joints2, skin->weights2,
                                    skin->vertex_count, skeleton->bone_count, err);
    if (r != OROYA_OK)
        return r;
    if (!bind_matrix && !oroya_scene_node_valid(scene, skin->mesh)) {
        return oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                           "skin bind: the mesh node (handle %u) is not a live node of the scene",
                           skin->mesh.id);
    }
    if (bind_matrix && !all_finite(bind_matrix->m, 16)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE, "skin bind: bind_matrix is not finite");
    }
    uint32_t unreachable = oroya_skeleton_unreachable_bones(skeleton, scene, NULL, 0);
    if (unreachable > 0)
        return oroya_skeleton_validate(skeleton, scene, err);
    /* Reserve the job's scratch before changing anything, so a failure leaves the skin as
     * it was. */
    float *scratch = skin->scratch_;
    uint32_t scratch_count = skin->scratch_count_;
    if (skeleton->bone_count > OROYA_MAX_JOINTS && skeleton->bone_count > scratch_count) {
        scratch = oroya__alloc(&skin->allocator_,
                               oroya__mul_size(skeleton->bone_count, 16 * sizeof(float)), 64);
        if (!scratch) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY,
                               "skin bind: cannot allocate scratch for %u bones",
                               skeleton->bone_count);
        }
        scratch_count = skeleton->bone_count;
    }
    oroya_mat4 bind, bind_inv;
    if (bind_matrix) {
        bind = *bind_matrix;
        if (!invert_to(&bind, &bind_inv)) {
            if (scratch != skin->scratch_)
                oroya__free(&skin->allocator_, scratch);
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "skin bind: bind_matrix is singular");
        }
    } else {
        oroya_scene_update_world(scene);
        /* calculate_inverses writes the skeleton: the one documented side effect of binding
         * without a bind matrix, as in three.js. */
        r = oroya_skeleton_calculate_inverses(skeleton, scene, err);
        if (r != OROYA_OK) {
            if (scratch != skin->scratch_)
                oroya__free(&skin->allocator_, scratch);
            return r;
        }
        oroya_scene_get_world(scene, skin->mesh, &bind);
        invert_to(&bind, &bind_inv); /* singular: zeros, as three.js */
    }
    if (scratch != skin->scratch_) {
        oroya__free(&skin->allocator_, skin->scratch_);
        skin->scratch_ = scratch;
        skin->scratch_count_ = scratch_count;
    }
    skin->skeleton = skeleton;
    skin->bind_matrix = bind;
    skin->bind_matrix_inverse = bind_inv;
    return OROYA_OK;
}

oroya_result oroya_skin_set_bind_mode(oroya_skin *skin, oroya_bind_mode mode) {
    if (!skin || (mode != OROYA_BIND_ATTACHED && mode != OROYA_BIND_DETACHED)) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    skin->bind_mode = mode;
    return OROYA_OK;
}

oroya_result oroya_skin_update(oroya_skin *skin, const oroya_scene *scene, oroya_error *err) {
    if (!skin || !scene) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin update: skin and scene are required");
    }
    oroya_mat4 world, inverse;
    const bool detached = skin->bind_mode == OROYA_BIND_DETACHED;
    if (detached) {
        world = skin->bind_matrix;
    } else if (oroya_scene_get_world(scene, skin->mesh, &world) != OROYA_OK) {
        return oroya__fail(err, OROYA_ERR_STALE_HANDLE,
                           "skin update: the mesh node (handle %u) is not a live node of the scene",
                           skin->mesh.id);
    }
    /* A singular matrix inverts to zero (three.js's Matrix4.invert); a tiny but finite scale
     * (1e-39) has an inverse float cannot hold: refused, the skin unchanged. */
    invert_to(&world, &inverse);
    if (!all_finite(inverse.m, 16)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "skin update: the inverse of the %s overflows float (a scale near 0)",
                           detached ? "bind matrix" : "mesh node's world matrix");
    }
    skin->bind_matrix_inverse = inverse;
    return OROYA_OK;
}

oroya_result oroya_skin_compute(oroya_skin *skin, float *out_positions, float *out_normals,
                                float *out_bounds, oroya_error *err) {
    if (!skin || !out_positions) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "skin compute: skin and out_positions are required");
    }
    if (!skin->skeleton) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "skin compute: the skin is not bound");
    }
    const oroya_skeleton *sk = skin->skeleton;
    oroya_skin_job job = {
        .count = skin->vertex_count,
        .positions = skin->positions,
        .normals = out_normals ? skin->normals : NULL,
        .joints = skin->joints,
        .weights = skin->weights,
        .joints2 = skin->joints2,
        .weights2 = skin->weights2,
        .palette_count = sk->bone_count,
        .palette = sk->bone_matrices,
        .bind_matrix = skin->bind_matrix.m,
        .bind_matrix_inverse = skin->bind_matrix_inverse.m,
        .scratch = skin->scratch_,
        .out_positions = out_positions,
        .out_normals = skin->normals ? out_normals : NULL,
        .out_bounds = out_bounds,
    };
    oroya_result r = oroya_skin_job_run(&job, err);
    if (r != OROYA_OK)
        return r;
    /* The skin's vertices and weights were checked at create and the bone matrices are
     * finite (oroya_skeleton_update), but finite products can still pass float (a palette of
     * 1e30 on a position of 1e10): said, not returned as OK with inf. */
    for (uint32_t v = 0; v < skin->vertex_count; v++) {
        if (!all_finite(out_positions + (size_t)v * 3, 3) ||
            (job.out_normals && !all_finite(job.out_normals + (size_t)v * 3, 3))) {
            return oroya__fail(
                err, OROYA_ERR_NON_FINITE, "skin compute: vertex %u: the skinned %s is not finite",
                v, all_finite(out_positions + (size_t)v * 3, 3) ? "normal" : "position");
        }
    }
    return OROYA_OK;
}
