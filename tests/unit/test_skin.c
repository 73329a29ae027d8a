/* Skinning spans: the CPU skinning job against three.js's goldens (g_skeleton) and against a
 * naive double-precision transcription of SkinnedMesh.applyBoneTransform; influence checks
 * with the vertex named; three.js's normalizeSkinWeights on hand-computed cases; the job's
 * validity table. */
#include "oroya/skin.h"
#include "oroya_test.h"

#include "internal/skin_math.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- small helpers ---------------------------------------------------------------------- */

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

static cJSON *load_json(const char *path) {
    char *text = read_text(path);
    if (!text)
        return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    return j;
}

/* Copies a JSON number array into a new float array; *n gets its length. */
static float *floats_of(const cJSON *arr, int *n) {
    *n = cJSON_GetArraySize(arr);
    float *out = malloc(sizeof(float) * (size_t)(*n > 0 ? *n : 1));
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) out[i++] = (float)e->valuedouble;
    return out;
}

static void mat_translation(float *m, float x, float y, float z) {
    memset(m, 0, 16 * sizeof(float));
    m[0] = m[5] = m[10] = m[15] = 1.0f;
    m[12] = x;
    m[13] = y;
    m[14] = z;
}

/* Random affine matrix: rotation from a random unit quaternion, scale in [0.5, 2], translation
 * in [-3, 3]. Built here from first principles, not with oroya's math. */
static void random_affine(float *m) {
    double q[4], len = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = ot_randf(-1, 1);
        len += q[i] * q[i];
    }
    len = sqrt(len);
    double x = q[0] / len, y = q[1] / len, z = q[2] / len, w = q[3] / len;
    double s[3] = {ot_randf(0.5f, 2), ot_randf(0.5f, 2), ot_randf(0.5f, 2)};
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++)
            m[c * 4 + row] = (float)(r[c * 3 + row] * s[c]);
        m[c * 4 + 3] = 0;
    }
    m[12] = ot_randf(-3, 3);
    m[13] = ot_randf(-3, 3);
    m[14] = ot_randf(-3, 3);
    m[15] = 1;
}

/* three.js SkinnedMesh.applyBoneTransform for a Vector3, transcribed in double: base = bind *
 * (v, 1) as a Vector4; target = sum over non-zero weights of w * (bone * base).xyz; then
 * Vector3.applyMatrix4(bindMatrixInverse), which divides by w. */
static void naive_skin(const float *v, const uint16_t *j, const float *w, int influences,
                       const float *palette, const float *bind, const float *bind_inv,
                       double out[3]) {
    double base[4], t[3] = {0, 0, 0};
    for (int r = 0; r < 4; r++) {
        base[r] = bind[0 * 4 + r] * (double)v[0] + bind[1 * 4 + r] * (double)v[1] +
                  bind[2 * 4 + r] * (double)v[2] + bind[3 * 4 + r];
    }
    for (int k = 0; k < influences; k++) {
        if (w[k] == 0)
            continue;
        const float *m = palette + 16 * j[k];
        for (int r = 0; r < 3; r++) {
            double e = 0;
            for (int c = 0; c < 4; c++)
                e += m[c * 4 + r] * base[c];
            t[r] += e * w[k];
        }
    }
    const float *e = bind_inv;
    double d = 1.0 / (e[3] * t[0] + e[7] * t[1] + e[11] * t[2] + e[15]);
    for (int r = 0; r < 3; r++) {
        out[r] = (e[0 * 4 + r] * t[0] + e[1 * 4 + r] * t[1] + e[2 * 4 + r] * t[2] + e[12 + r]) * d;
    }
}

/* ---- three.js goldens ------------------------------------------------------------------- */

/* g_skeleton: a 5-bone chain bending a 72-vertex cylinder whose mesh node sits at x = 2. The
 * palette of each frame is three.js's own Float32 boneMatrices, so this isolates the vertex
 * formula: bind_matrix is the mesh world matrix at bind time (translation 2, 0, 0). */
static void test_job_matches_three_g_skeleton(void) {
    cJSON *sc = load_json(OROYA_SOURCE_DIR "/tests/conformance/g_skeleton.json");
    cJSON *ex = load_json(OROYA_SOURCE_DIR "/tests/conformance/g_skeleton.expected.json");
    OT_CHECK(sc != NULL && ex != NULL);
    if (!sc || !ex)
        return;
    const cJSON *skin = cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "skins"), 0);
    const cJSON *mesh_node = cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "nodes"), 0);
    OT_CHECK(strcmp(cJSON_GetObjectItem(mesh_node, "name")->valuestring, "cyl") == 0);
    int nv3, nj, nw, np;
    float *positions = floats_of(cJSON_GetObjectItem(skin, "vertices"), &nv3);
    float *jf = floats_of(cJSON_GetObjectItem(skin, "skinIndex"), &nj);
    float *weights = floats_of(cJSON_GetObjectItem(skin, "skinWeight"), &nw);
    float *mesh_pos = floats_of(cJSON_GetObjectItem(mesh_node, "position"), &np);
    uint32_t count = (uint32_t)(nv3 / 3);
    OT_EQ_INT(count, 72);
    OT_EQ_INT(nj, 4 * (int)count);
    uint16_t *joints = malloc(sizeof(uint16_t) * (size_t)nj);
    for (int i = 0; i < nj; i++)
        joints[i] = (uint16_t)jf[i];
    float bind[16], bind_inv[16];
    mat_translation(bind, mesh_pos[0], mesh_pos[1], mesh_pos[2]);
    mat_translation(bind_inv, -mesh_pos[0], -mesh_pos[1], -mesh_pos[2]);
    float *out = malloc(sizeof(float) * (size_t)nv3);

    const cJSON *frames = cJSON_GetObjectItem(ex, "frames");
    OT_EQ_INT(cJSON_GetArraySize(frames), 60);
    double worst = 0;
    int checked = 0;
    const cJSON *frame;
    cJSON_ArrayForEach(frame, frames) {
        const cJSON *values = cJSON_GetObjectItem(frame, "values");
        int npal, nexp;
        float *palette = floats_of(cJSON_GetObjectItem(values, "skin:cyl.boneMatrices"), &npal);
        const cJSON *expv = cJSON_GetObjectItem(values, "skin:cyl.vertices");
        nexp = cJSON_GetArraySize(expv);
        OT_EQ_INT(npal, 16 * 5);
        OT_EQ_INT(nexp, nv3);
        float bounds[6];
        oroya_skin_job job = {
            .count = count,
            .positions = positions,
            .joints = joints,
            .weights = weights,
            .palette_count = 5,
            .palette = palette,
            .bind_matrix = bind,
            .bind_matrix_inverse = bind_inv,
            .out_positions = out,
            .out_bounds = bounds,
        };
        oroya_error err = {0};
        OT_EQ_INT(oroya_skin_job_validate(&job, &err), OROYA_OK);
        OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_OK);
        double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        int i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, expv) {
            double d = fabs((double)out[i] - e->valuedouble);
            if (d > worst)
                worst = d;
            OT_CHECK_MSG(d <= 1e-5, "frame %d value %d: %.9g vs three %.9g",
                         cJSON_GetObjectItem(frame, "step")->valueint, i, (double)out[i],
                         e->valuedouble);
            lo[i % 3] = fmin(lo[i % 3], e->valuedouble);
            hi[i % 3] = fmax(hi[i % 3], e->valuedouble);
            i++;
        }
        /* three.js's computeBoundingBox is the box of the getVertexPosition values. */
        for (int c = 0; c < 3; c++) {
            OT_NEAR(bounds[c], lo[c], 1e-5);
            OT_NEAR(bounds[3 + c], hi[c], 1e-5);
        }
        checked++;
        free(palette);
    }
    OT_EQ_INT(checked, 60);
    printf("g_skeleton: skin job vs three.js getVertexPosition, worst |diff| %.3g over 60 "
           "frames\n",
           worst);
    free(out);
    free(joints);
    free(jf);
    free(weights);
    free(positions);
    free(mesh_pos);
    cJSON_Delete(sc);
    cJSON_Delete(ex);
}

/* ---- against the naive reference -------------------------------------------------------- */

static void test_job_matches_naive_reference(void) {
    enum { BONES = 7, VERTS = 300 };
    float palette[BONES * 16], bind[16], bind_inv[16];
    for (int b = 0; b < BONES; b++)
        random_affine(palette + 16 * b);
    random_affine(bind);
    oroya__dmat4 db = oroya__dmat4_from_floats(bind), dbi;
    OT_CHECK(oroya__dmat4_invert(&db, &dbi));
    oroya__dmat4_to_floats(&dbi, bind_inv);
    float pos[VERTS * 3], nrm[VERTS * 3], w[VERTS * 4], w2[VERTS * 4];
    float out[VERTS * 3], out_n[VERTS * 3];
    uint16_t j[VERTS * 4], j2[VERTS * 4];
    for (int v = 0; v < VERTS; v++) {
        for (int c = 0; c < 3; c++) {
            pos[v * 3 + c] = ot_randf(-2, 2);
            nrm[v * 3 + c] = ot_randf(-1, 1);
        }
        for (int k = 0; k < 4; k++) {
            j[v * 4 + k] = (uint16_t)(ot_randf(0, BONES - 0.01f));
            j2[v * 4 + k] = (uint16_t)(ot_randf(0, BONES - 0.01f));
            /* Unnormalized on purpose, with exact zeros mixed in: the CPU path of three.js
             * applies the bind inverse's translation once whatever the weight sum. */
            w[v * 4 + k] = (k == 3 && v % 3 == 0) ? 0.0f : ot_randf(0, 0.7f);
            w2[v * 4 + k] = (k >= 2) ? 0.0f : ot_randf(0, 0.3f);
        }
    }
    /* Four influences, with the bind matrices. */
    oroya_skin_job job = {
        .count = VERTS,
        .positions = pos,
        .normals = nrm,
        .joints = j,
        .weights = w,
        .palette_count = BONES,
        .palette = palette,
        .bind_matrix = bind,
        .bind_matrix_inverse = bind_inv,
        .out_positions = out,
        .out_normals = out_n,
    };
    oroya_error err = {0};
    OT_EQ_INT(oroya_skin_job_validate(&job, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_OK);
    double worst = 0;
    for (int v = 0; v < VERTS; v++) {
        double ref[3];
        naive_skin(pos + v * 3, j + v * 4, w + v * 4, 4, palette, bind, bind_inv, ref);
        for (int c = 0; c < 3; c++) {
            double d = fabs(out[v * 3 + c] - ref[c]) / (1.0 + fabs(ref[c]));
            worst = d > worst ? d : worst;
        }
        /* The normal: the linear part of the same map (its value at the unit vectors minus
         * its value at the origin), applied to the rest normal and normalized. */
        double n[3] = {0, 0, 0};
        float zero[3] = {0, 0, 0};
        float unit[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        double o0[3], cols[3][3];
        naive_skin(zero, j + v * 4, w + v * 4, 4, palette, bind, bind_inv, o0);
        for (int a = 0; a < 3; a++) {
            naive_skin(unit[a], j + v * 4, w + v * 4, 4, palette, bind, bind_inv, cols[a]);
            for (int c = 0; c < 3; c++)
                n[c] += (cols[a][c] - o0[c]) * nrm[v * 3 + a];
        }
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int c = 0; c < 3; c++)
            OT_NEAR(out_n[v * 3 + c], n[c] / len, 1e-4);
    }
    OT_CHECK_MSG(worst < 2e-6, "worst relative error %g", worst);

    /* Eight influences: the naive reference over the concatenated sets. */
    job.joints2 = j2;
    job.weights2 = w2;
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_OK);
    worst = 0;
    for (int v = 0; v < VERTS; v++) {
        uint16_t jj[8];
        float ww[8];
        memcpy(jj, j + v * 4, 4 * sizeof(uint16_t));
        memcpy(jj + 4, j2 + v * 4, 4 * sizeof(uint16_t));
        memcpy(ww, w + v * 4, 4 * sizeof(float));
        memcpy(ww + 4, w2 + v * 4, 4 * sizeof(float));
        double ref[3];
        naive_skin(pos + v * 3, jj, ww, 8, palette, bind, bind_inv, ref);
        for (int c = 0; c < 3; c++) {
            double d = fabs(out[v * 3 + c] - ref[c]) / (1.0 + fabs(ref[c]));
            worst = d > worst ? d : worst;
        }
    }
    OT_CHECK_MSG(worst < 2e-6, "8 influences: worst relative error %g", worst);

    /* Without bind matrices the palette is used directly; also in place. */
    float ident[16];
    mat_translation(ident, 0, 0, 0);
    float inplace[VERTS * 3];
    memcpy(inplace, pos, sizeof pos);
    oroya_skin_job plain = {
        .count = VERTS,
        .positions = inplace,
        .joints = j,
        .weights = w,
        .palette_count = BONES,
        .palette = palette,
        .out_positions = inplace,
    };
    OT_EQ_INT(oroya_skin_job_run(&plain, &err), OROYA_OK);
    for (int v = 0; v < VERTS; v += 7) {
        double ref[3];
        naive_skin(pos + v * 3, j + v * 4, w + v * 4, 4, palette, ident, ident, ref);
        for (int c = 0; c < 3; c++)
            OT_NEAR(inplace[v * 3 + c], ref[c], 1e-5 * (1 + fabs(ref[c])));
    }

    /* Caller scratch gives the same result as the stack buffer. */
    float scratch[BONES * 16], out2[VERTS * 3];
    job.joints2 = NULL;
    job.weights2 = NULL;
    job.normals = NULL;
    job.out_normals = NULL;
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_OK);
    job.scratch = scratch;
    job.out_positions = out2;
    OT_EQ_INT(oroya_skin_job_run(&job, &err), OROYA_OK);
    OT_CHECK(memcmp(out, out2, sizeof out) == 0);
}

/* Two matrices a vertex splits between, by hand: bone 0 identity, bone 1 a translation by
 * (0, 2, 0); weights (0.25, 0.75) move (1, 0, 0) to (1, 1.5, 0). A 90-degree turn about z for
 * bone 1 takes the normal (1, 0, 0) halfway: n' = 0.25 (1,0,0) + 0.75 (0,1,0), normalized. */
static void test_job_hand_values(void) {
    float palette[32];
    mat_translation(palette, 0, 0, 0);
    mat_translation(palette + 16, 0, 2, 0);
    float p[3] = {1, 0, 0}, n[3] = {1, 0, 0}, o[3], on[3], bounds[6];
    uint16_t j[4] = {0, 1, 0, 0};
    float w[4] = {0.25f, 0.75f, 0, 0};
    oroya_skin_job job = {.count = 1,
                          .positions = p,
                          .normals = n,
                          .joints = j,
                          .weights = w,
                          .palette_count = 2,
                          .palette = palette,
                          .out_positions = o,
                          .out_normals = on,
                          .out_bounds = bounds};
    OT_EQ_INT(oroya_skin_job_run(&job, NULL), OROYA_OK);
    OT_NEAR(o[0], 1.0, 1e-7);
    OT_NEAR(o[1], 1.5, 1e-7);
    OT_NEAR(o[2], 0.0, 1e-7);
    OT_NEAR(on[0], 1.0, 1e-7);
    OT_NEAR(bounds[1], 1.5, 1e-7);
    OT_NEAR(bounds[4], 1.5, 1e-7);
    /* Rotate bone 1 by +90 degrees about z: (x, y) -> (-y, x). */
    palette[16 + 0] = 0;
    palette[16 + 1] = 1;
    palette[16 + 4] = -1;
    palette[16 + 5] = 0;
    OT_EQ_INT(oroya_skin_job_run(&job, NULL), OROYA_OK);
    double len = sqrt(0.25 * 0.25 + 0.75 * 0.75);
    OT_NEAR(on[0], 0.25 / len, 1e-6);
    OT_NEAR(on[1], 0.75 / len, 1e-6);
    OT_NEAR(on[2], 0.0, 1e-7);
    /* Position: 0.25 * (1,0,0) + 0.75 * ((0,1,0) + (0,2,0)) = (0.25, 2.25, 0). */
    OT_NEAR(o[0], 0.25, 1e-7);
    OT_NEAR(o[1], 2.25, 1e-6);
    /* A zero normal stays zero rather than NaN. */
    n[0] = 0;
    OT_EQ_INT(oroya_skin_job_run(&job, NULL), OROYA_OK);
    OT_CHECK(on[0] == 0 && on[1] == 0 && on[2] == 0);
    /* A zero-weight influence is skipped, not multiplied by 0: a NaN matrix it names does
     * not reach the output (three.js's `if (weight !== 0)`). */
    n[0] = 1;
    float poisoned[32];
    memcpy(poisoned, palette, sizeof poisoned);
    for (int e = 0; e < 16; e++)
        poisoned[e] = NAN;
    float w_skip[4] = {0, 1, 0, 0};
    job.palette = poisoned;
    job.weights = w_skip;
    OT_EQ_INT(oroya_skin_job_run(&job, NULL), OROYA_OK);
    OT_CHECK(isfinite(o[0]) && isfinite(o[1]) && isfinite(o[2]) && isfinite(on[0]));
    OT_NEAR(o[1], 3.0, 1e-6); /* bone 1 alone: (1,0,0) turned to (0,1,0), then up 2 */
    job.palette = palette;
    job.weights = w;
    /* No vertices: three.js's empty Box3, +inf min and -inf max. */
    job.count = 0;
    OT_EQ_INT(oroya_skin_job_run(&job, NULL), OROYA_OK);
    OT_CHECK(isinf(bounds[0]) && bounds[0] > 0 && isinf(bounds[5]) && bounds[5] < 0);
}

/* ---- validity table --------------------------------------------------------------------- */

static void test_job_validity_table(void) {
    float palette[16 * 2], p[6] = {0}, n[6] = {0}, o[6], on[6];
    mat_translation(palette, 0, 0, 0);
    mat_translation(palette + 16, 1, 0, 0);
    uint16_t j[8] = {0, 1, 0, 0, 1, 0, 0, 0};
    float w[8] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    const oroya_skin_job good = {.count = 2,
                                 .positions = p,
                                 .joints = j,
                                 .weights = w,
                                 .palette_count = 2,
                                 .palette = palette,
                                 .out_positions = o};
    oroya_error err = {0};
    OT_EQ_INT(oroya_skin_job_validate(&good, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_job_run(&good, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_job_validate(NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_skin_job_run(NULL, &err), OROYA_ERR_INVALID_ARGUMENT);

    struct {
        const char *what;
        oroya_skin_job job;
        oroya_result validate, run;
        const char *needle; /* must appear in the message */
    } rows[] = {
        {"no positions", good, OROYA_ERR_INVALID_ARGUMENT, OROYA_ERR_INVALID_ARGUMENT, "positions"},
        {"no joints", good, OROYA_ERR_INVALID_ARGUMENT, OROYA_ERR_INVALID_ARGUMENT, "joints"},
        {"no weights", good, OROYA_ERR_INVALID_ARGUMENT, OROYA_ERR_INVALID_ARGUMENT, "weights"},
        {"no output", good, OROYA_ERR_INVALID_ARGUMENT, OROYA_ERR_INVALID_ARGUMENT,
         "out_positions"},
        {"normals unpaired", good, OROYA_ERR_INVALID_ARGUMENT, OROYA_ERR_INVALID_ARGUMENT,
         "normals"},
        {"out_normals unpaired", good, OROYA_ERR_INVALID_ARGUMENT, OROYA_ERR_INVALID_ARGUMENT,
         "normals"},
        {"joints2 unpaired", good, OROYA_ERR_INVALID_ARGUMENT, OROYA_ERR_INVALID_ARGUMENT,
         "joints2"},
        {"no palette", good, OROYA_ERR_INVALID_ARGUMENT, OROYA_ERR_INVALID_ARGUMENT, "palette"},
        {"joint out of range", good, OROYA_ERR_OUT_OF_RANGE, OROYA_ERR_OUT_OF_RANGE, "vertex 1"},
        {"palette too big for the stack", good, OROYA_ERR_LIMIT, OROYA_ERR_LIMIT, "scratch"},
        {"non-finite palette", good, OROYA_ERR_NON_FINITE, OROYA_OK, "palette"},
        {"non-finite position", good, OROYA_ERR_NON_FINITE, OROYA_OK, "vertex 1"},
        /* It passed validate (run gives the NaN it always gave: validate is the check). */
        {"NaN weight", good, OROYA_ERR_NON_FINITE, OROYA_OK, "vertex 1: influence 1: weight nan"},
    };
    float nan_w[8] = {0.5f, 0.5f, 0, 0, 1, NAN, 0, 0};
    float big_palette_dummy[16] = {0};
    float bind[16], nan_palette[32], nan_pos[6] = {0, 0, 0, 0, NAN, 0};
    mat_translation(bind, 0, 0, 0);
    memcpy(nan_palette, palette, sizeof palette);
    nan_palette[20] = INFINITY;
    uint16_t bad_j[8] = {0, 1, 0, 0, 2, 0, 0, 0};
    rows[0].job.positions = NULL;
    rows[1].job.joints = NULL;
    rows[2].job.weights = NULL;
    rows[3].job.out_positions = NULL;
    rows[4].job.normals = n;
    rows[5].job.out_normals = on;
    rows[6].job.joints2 = j;
    rows[7].job.palette = NULL;
    rows[8].job.joints = bad_j;
    rows[9].job.palette = big_palette_dummy; /* never read: the limit is checked first */
    rows[9].job.palette_count = OROYA_MAX_JOINTS + 1;
    rows[9].job.bind_matrix = bind;
    rows[10].job.palette = nan_palette;
    rows[11].job.positions = nan_pos;
    rows[12].job.weights = nan_w;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        oroya_error e1 = {0}, e2 = {0};
        oroya_result rv = oroya_skin_job_validate(&rows[i].job, &e1);
        OT_CHECK_MSG(rv == rows[i].validate, "%s: validate gave %d", rows[i].what, (int)rv);
        OT_CHECK_MSG(strstr(e1.message, rows[i].needle) != NULL, "%s: message '%s'", rows[i].what,
                     e1.message);
        oroya_result rr = oroya_skin_job_run(&rows[i].job, &e2);
        OT_CHECK_MSG(rr == rows[i].run, "%s: run gave %d", rows[i].what, (int)rr);
        if (rows[i].run != OROYA_OK)
            OT_CHECK(e2.result == rows[i].run);
    }
    /* An out-of-range joint with weight 0 is never read (three.js skips zero weights). */
    uint16_t j_zero[8] = {0, 1, 0, 0, 0, 9, 0, 0};
    oroya_skin_job zero_w = good;
    zero_w.joints = j_zero;
    OT_EQ_INT(oroya_skin_job_validate(&zero_w, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_job_run(&zero_w, &err), OROYA_OK);
}

/* ---- influence checks ------------------------------------------------------------------- */

static void test_check_influences(void) {
    uint16_t j[12] = {0, 1, 0, 0, 1, 2, 0, 0, 2, 0, 0, 0};
    float w[12] = {0.5f, 0.5f, 0, 0, 0.25f, 0.75f, 0, 0, 1, 0, 0, 0};
    oroya_error err = {0};
    OT_EQ_INT(oroya_skin_check_influences(j, w, NULL, NULL, 3, 3, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_check_influences(NULL, NULL, NULL, NULL, 0, 0, &err), OROYA_OK);

    /* Joint 2 of a 2-bone skeleton, in vertex 1 influence 1 (first bad) and vertex 2. */
    OT_EQ_INT(oroya_skin_check_influences(j, w, NULL, NULL, 3, 2, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK_MSG(strstr(err.message, "vertex 1: influence 1 names bone 2") != NULL, "%s",
                 err.message);
    OT_CHECK_MSG(strstr(err.message, "1 more") != NULL, "%s", err.message);

    float wz[12] = {0.5f, 0.5f, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    OT_EQ_INT(oroya_skin_check_influences(j, wz, NULL, NULL, 3, 3, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "vertex 1: all weights are zero") != NULL, "%s", err.message);

    float wn[12] = {0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, -0.25f, 0};
    OT_EQ_INT(oroya_skin_check_influences(j, wn, NULL, NULL, 3, 3, &err), OROYA_ERR_INVALID_DATA);
    OT_CHECK_MSG(strstr(err.message, "vertex 2: weight 2 is negative") != NULL, "%s", err.message);

    float wnan[12] = {0.5f, NAN, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, INFINITY};
    OT_EQ_INT(oroya_skin_check_influences(j, wnan, NULL, NULL, 3, 3, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "vertex 0: weight 1 is NaN") != NULL, "%s", err.message);

    /* A zero weight may name any joint; the second set counts as influences 4-7. */
    uint16_t j2[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0};
    float w2[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5f, 0, 0};
    uint16_t jfar[12] = {0, 1, 400, 0, 1, 2, 0, 0, 2, 0, 0, 0};
    OT_EQ_INT(oroya_skin_check_influences(jfar, w, NULL, NULL, 3, 3, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_check_influences(j, w, j2, w2, 3, 3, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK_MSG(strstr(err.message, "vertex 2: influence 5 names bone 7") != NULL, "%s",
                 err.message);
    /* A vertex whose only weight is in the second set is not all-zero. */
    float w1z[12] = {0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 0, 0, 0, 0};
    OT_EQ_INT(oroya_skin_check_influences(j, w1z, j2, w2, 3, 8, &err), OROYA_OK);
    OT_EQ_INT(oroya_skin_check_influences(j, w, j2, NULL, 3, 3, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_skin_check_influences(NULL, w, NULL, NULL, 3, 3, &err),
              OROYA_ERR_INVALID_ARGUMENT);
}

/* ---- normalize_skin_weights ------------------------------------------------------------- */

static void test_normalize_weights(void) {
    /* Hand values from three.js's rule: divide by the sum of absolute values; zero sum ->
     * (1, 0, 0, 0). */
    float w[20] = {1, 1, 0, 0, 0, 0, 0, 0, 2, -2, 0, 0, 0.2f, 0.3f, 0.1f, 0.4f, 3, 0, 0, 1};
    oroya_skin_normalize_weight_arrays(w, NULL, 5);
    const float expect[20] = {0.5f, 0.5f, 0,    0,    1,    0,    0,     0, 0.5f, -0.5f,
                              0,    0,    0.2f, 0.3f, 0.1f, 0.4f, 0.75f, 0, 0,    0.25f};
    for (int i = 0; i < 20; i++)
        OT_NEAR(w[i], expect[i], 1e-7);
    /* NaN stays NaN, so the bind-time check still sees it. */
    float wn[4] = {NAN, 1, 0, 0};
    oroya_skin_normalize_weight_arrays(wn, NULL, 1);
    OT_CHECK(isnan(wn[0]));
    /* Denormal weights: the double sum keeps a finite scale (three.js computes in double). */
    float wd[4] = {1e-45f, 1e-45f, 0, 0};
    oroya_skin_normalize_weight_arrays(wd, NULL, 1);
    OT_NEAR(wd[0], 0.5, 1e-7);
    OT_NEAR(wd[1], 0.5, 1e-7);
    /* Eight influences are normalized together. */
    float a[4] = {1, 1, 0, 0}, b[4] = {1, 1, 0, 0};
    oroya_skin_normalize_weight_arrays(a, b, 1);
    OT_NEAR(a[0], 0.25, 0);
    OT_NEAR(b[1], 0.25, 0);
    float za[4] = {0, 0, 0, 0}, zb[4] = {0, 0, 0, 0};
    oroya_skin_normalize_weight_arrays(za, zb, 1);
    OT_CHECK(za[0] == 1 && za[1] == 0 && zb[0] == 0);
    oroya_skin_normalize_weight_arrays(NULL, NULL, 3); /* no-op, no crash */
}

/* ---- the double inverse used for bind matrices ------------------------------------------ */

static void test_double_inverse(void) {
    for (int i = 0; i < 200; i++) {
        float m[16];
        random_affine(m);
        /* A non-affine bottom row too, to exercise the full expansion. */
        if (i % 2) {
            m[3] = ot_randf(-0.3f, 0.3f);
            m[7] = ot_randf(-0.3f, 0.3f);
        }
        oroya__dmat4 a = oroya__dmat4_from_floats(m), inv;
        OT_CHECK(oroya__dmat4_invert(&a, &inv));
        oroya__dmat4 p = oroya__dmat4_mul(&a, &inv);
        for (int e = 0; e < 16; e++)
            OT_NEAR(p.m[e], (e % 5 == 0) ? 1.0 : 0.0, 1e-12);
    }
    oroya__dmat4 z = {{0}}, zi;
    OT_CHECK(!oroya__dmat4_invert(&z, &zi));
    OT_CHECK(zi.m[0] == 0 && zi.m[15] == 0);
}

int main(void) {
    OT_RUN(test_job_matches_three_g_skeleton);
    OT_RUN(test_job_matches_naive_reference);
    OT_RUN(test_job_hand_values);
    OT_RUN(test_job_validity_table);
    OT_RUN(test_check_influences);
    OT_RUN(test_normalize_weights);
    OT_RUN(test_double_inverse);
    return ot_finish();
}
