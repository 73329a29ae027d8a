/* Oracle test for the accessor decoding fast paths (src/io/gltf_accessor.c, issue 10): every
 * accessor of every sample model, bench file and a synthetic file covering each component
 * type, element type, normalization and stride must unpack bit for bit like an independent
 * decoder written here from the glTF 2.0 spec (3.6.2: strides, column padding, sparse) and
 * three.js's normalization scales. */
#define _POSIX_C_SOURCE 200809L
#include "oroya/gltf.h"
#include "oroya_test.h"
#include "gltf_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int files_checked;
static int accessors_checked;

static uint32_t ref_comp_size(uint32_t ct) {
    return ct == 5120 || ct == 5121 ? 1 : ct == 5122 || ct == 5123 ? 2 : 4;
}

static uint32_t ref_rows(oroya_gltf_type t) {
    switch (t) {
    case OROYA_GLTF_SCALAR: return 1;
    case OROYA_GLTF_VEC2:
    case OROYA_GLTF_MAT2: return 2;
    case OROYA_GLTF_VEC3:
    case OROYA_GLTF_MAT3: return 3;
    default: return 4;
    }
}

static uint32_t ref_cols(oroya_gltf_type t) {
    return t == OROYA_GLTF_MAT2 ? 2 : t == OROYA_GLTF_MAT3 ? 3 : t == OROYA_GLTF_MAT4 ? 4 : 1;
}

static uint64_t ref_uint(const uint8_t *p, uint32_t cs) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < cs; b++) {
        v |= (uint64_t)p[b] << (8 * b);
    }
    return v;
}

static float ref_float(const uint8_t *p, uint32_t ct, bool normalized) {
    uint64_t u = ref_uint(p, ref_comp_size(ct));
    switch (ct) {
    case 5120: {
        double v = u >= 128 ? (double)u - 256.0 : (double)u;
        return normalized ? (float)(v * (1.0 / 127.0)) : (float)v;
    }
    case 5121: return normalized ? (float)((double)u * (1.0 / 255.0)) : (float)u;
    case 5122: {
        double v = u >= 32768 ? (double)u - 65536.0 : (double)u;
        return normalized ? (float)(v * (1.0 / 32767.0)) : (float)v;
    }
    case 5123: return normalized ? (float)((double)u * (1.0 / 65535.0)) : (float)u;
    case 5125: return (float)u;
    default: {
        uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    }
}

/* Component k of element i as raw bytes, or NULL when the accessor has no buffer view. */
static const uint8_t *ref_component(const oroya_gltf_data *d, const oroya_gltf_accessor *a,
                                    const uint8_t *elem, uint32_t k) {
    (void)d;
    uint32_t cs = ref_comp_size(a->component_type), rows = ref_rows(a->type);
    uint32_t col_stride = rows * cs;
    if (ref_cols(a->type) > 1 && col_stride % 4) {
        col_stride += 4 - col_stride % 4;
    }
    return elem + (k / rows) * col_stride + (k % rows) * cs;
}

static uint32_t ref_elem_size(const oroya_gltf_accessor *a) {
    uint32_t cs = ref_comp_size(a->component_type), rows = ref_rows(a->type);
    uint32_t col_stride = rows * cs;
    if (ref_cols(a->type) > 1 && col_stride % 4) {
        col_stride += 4 - col_stride % 4;
    }
    return col_stride * ref_cols(a->type);
}

/* Decodes accessor `ai` into floats (as_uint false) or uints, spec-literal. */
static void ref_decode(const oroya_gltf_data *d, uint32_t ai, bool as_uint, float *of,
                       uint32_t *ou) {
    const oroya_gltf_accessor *a = &d->accessors[ai];
    uint32_t n = ref_rows(a->type) * ref_cols(a->type);
    uint32_t es = ref_elem_size(a);
    const uint8_t *base = NULL;
    size_t stride = es;
    if (a->buffer_view != OROYA_GLTF_NONE) {
        const oroya_gltf_buffer_view *v = &d->buffer_views[a->buffer_view];
        base = d->buffers[v->buffer].data + v->byte_offset + a->byte_offset;
        if (v->byte_stride) {
            stride = v->byte_stride;
        }
    }
    for (uint32_t i = 0; i < a->count; i++) {
        for (uint32_t k = 0; k < n; k++) {
            size_t o = (size_t)i * n + k;
            const uint8_t *p = base ? ref_component(d, a, base + i * stride, k) : NULL;
            if (as_uint) {
                ou[o] = p ? (uint32_t)ref_uint(p, ref_comp_size(a->component_type)) : 0;
            } else {
                of[o] = p ? ref_float(p, a->component_type, a->normalized) : 0.0f;
            }
        }
    }
    const oroya_gltf_sparse *s = &a->sparse;
    for (uint32_t j = 0; j < s->count; j++) {
        const oroya_gltf_buffer_view *iv = &d->buffer_views[s->indices_buffer_view];
        const oroya_gltf_buffer_view *vv = &d->buffer_views[s->values_buffer_view];
        uint32_t ics = ref_comp_size(s->indices_component_type);
        uint32_t idx = (uint32_t)ref_uint(d->buffers[iv->buffer].data + iv->byte_offset +
                                              s->indices_byte_offset + (size_t)j * ics,
                                          ics);
        const uint8_t *e =
            d->buffers[vv->buffer].data + vv->byte_offset + s->values_byte_offset + (size_t)j * es;
        for (uint32_t k = 0; k < n && idx < a->count; k++) {
            const uint8_t *p = ref_component(d, a, e, k);
            if (as_uint) {
                ou[(size_t)idx * n + k] = (uint32_t)ref_uint(p, ref_comp_size(a->component_type));
            } else {
                of[(size_t)idx * n + k] = ref_float(p, a->component_type, a->normalized);
            }
        }
    }
}

static void check_data(const oroya_gltf_data *d, const char *name) {
    for (uint32_t ai = 0; ai < d->accessor_count; ai++) {
        const oroya_gltf_accessor *a = &d->accessors[ai];
        size_t nf = oroya_gltf_accessor_float_count(d, ai);
        size_t bytes = (nf ? nf : 1) * sizeof(float);
        float *got = malloc(bytes), *want = malloc(bytes);
        uint32_t *ugot = malloc(bytes), *uwant = malloc(bytes);
        OT_CHECK(got && want && ugot && uwant);
        if (!got || !want || !ugot || !uwant) {
            free(got), free(want), free(ugot), free(uwant);
            return;
        }
        oroya_error err = {0};
        oroya_result r = oroya_gltf_accessor_unpack_floats(d, ai, got, nf, &err);
        OT_CHECK_MSG(r == OROYA_OK, "%s accessors[%u]: %s", name, ai, err.message);
        ref_decode(d, ai, false, want, NULL);
        OT_CHECK_MSG(r != OROYA_OK || memcmp(got, want, nf * sizeof(float)) == 0,
                     "%s accessors[%u]: floats differ (ct %u type %u norm %d)", name, ai,
                     (unsigned)a->component_type, (unsigned)a->type, (int)a->normalized);
        bool unsigned_ct = a->component_type == OROYA_GLTF_UNSIGNED_BYTE ||
                           a->component_type == OROYA_GLTF_UNSIGNED_SHORT ||
                           a->component_type == OROYA_GLTF_UNSIGNED_INT;
        r = oroya_gltf_accessor_unpack_uints(d, ai, ugot, nf, &err);
        if (unsigned_ct) {
            OT_CHECK_MSG(r == OROYA_OK, "%s accessors[%u]: %s", name, ai, err.message);
            ref_decode(d, ai, true, NULL, uwant);
            OT_CHECK_MSG(r != OROYA_OK || memcmp(ugot, uwant, nf * sizeof(uint32_t)) == 0,
                         "%s accessors[%u]: uints differ", name, ai);
        } else {
            OT_CHECK_MSG(r == OROYA_ERR_INVALID_DATA, "%s accessors[%u]: signed as uint", name, ai);
        }
        accessors_checked++;
        free(got), free(want), free(ugot), free(uwant);
    }
}

static void check_file(const char *path) {
    oroya_gltf_data *d = NULL;
    oroya_error err = {0};
    oroya_result r = oroya_gltf_parse_file(NULL, path, &d, &err);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(d, &err);
    }
    if (r == OROYA_OK) {
        r = oroya_gltf_validate(d, &err);
    }
    /* Every model in these folders is valid glTF; a failure here is a loader regression. */
    OT_CHECK_MSG(r == OROYA_OK, "%s: %s", path, err.message);
    if (r == OROYA_OK) {
        check_data(d, path);
        files_checked++;
    }
    oroya_gltf_free(d);
}

static void check_file_cb(const char *path, void *user) {
    (void)user;
    check_file(path);
}

static void test_sample_models(void) {
    ot_each_gltf(OROYA_SOURCE_DIR "/tests/assets", check_file_cb, NULL);
    OT_EQ_INT(files_checked, 31); /* every .gltf/.glb file in tests/assets */
    /* Opt-in (docs/gltf.md): OROYA_EXTRA_ASSETS=DIR[:DIR...] adds folders of other glTF
     * files, checked the same way. */
    const char *extra = getenv("OROYA_EXTRA_ASSETS");
    while (extra && *extra) {
        const char *end = strchr(extra, ':');
        size_t n = end ? (size_t)(end - extra) : strlen(extra);
        char dir[1024];
        snprintf(dir, sizeof dir, "%.*s", (int)n, extra);
        const int before = files_checked;
        ot_each_gltf(dir, check_file_cb, NULL);
        printf("OROYA_EXTRA_ASSETS: %s: %d files\n", dir, files_checked - before);
        OT_CHECK_MSG(files_checked > before, "OROYA_EXTRA_ASSETS: no .gltf/.glb file in %s", dir);
        extra = end ? end + 1 : extra + n;
    }
}

static void b64(const uint8_t *in, size_t n, char *out) {
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18 & 63];
        out[o++] = t[v >> 12 & 63];
        out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = 0;
}

/* Every component type x element type x normalized x (packed, strided) x (offset 0, 4),
 * each accessor on its own view over random bytes, so both the fast and the padded-matrix
 * paths run on every shape. */
static void test_synthetic_shapes(void) {
    enum { BUF = 8192, COUNT = 37 };
    static uint8_t bytes[BUF];
    static char json[1 << 20];
    static char enc[BUF * 2];
    for (size_t i = 0; i < BUF; i++) {
        bytes[i] = (uint8_t)(ot_randf(0.0f, 256.0f));
    }
    b64(bytes, BUF, enc);
    static const unsigned cts[] = {5120, 5121, 5122, 5123, 5125, 5126};
    static const char *types[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    static const oroya_gltf_type tenum[] = {OROYA_GLTF_SCALAR, OROYA_GLTF_VEC2, OROYA_GLTF_VEC3,
                                            OROYA_GLTF_VEC4,   OROYA_GLTF_MAT2, OROYA_GLTF_MAT3,
                                            OROYA_GLTF_MAT4};
    char views[1 << 16], accs[1 << 17];
    size_t vl = 0, al = 0;
    unsigned n = 0;
    for (unsigned c = 0; c < 6; c++) {
        for (unsigned t = 0; t < 7; t++) {
            for (int norm = 0; norm < 2; norm++) {
                if (norm && (cts[c] == 5125 || cts[c] == 5126)) {
                    continue;
                }
                for (int strided = 0; strided < 2; strided++) {
                    for (unsigned off = 0; off <= 4; off += 4) {
                        oroya_gltf_accessor probe = {.component_type = cts[c], .type = tenum[t]};
                        uint32_t es = ref_elem_size(&probe);
                        uint32_t stride = strided ? ((es + 3u) & ~3u) + 4u : 0u;
                        uint32_t len = off + (stride ? stride : es) * (COUNT - 1) + es;
                        vl += (size_t)snprintf(views + vl, sizeof views - vl,
                                               "%s{\"buffer\":0,\"byteOffset\":%u,"
                                               "\"byteLength\":%u",
                                               n ? "," : "", 8u * (n % 64), len);
                        if (stride) {
                            vl += (size_t)snprintf(views + vl, sizeof views - vl,
                                                   ",\"byteStride\":%u", stride);
                        }
                        vl += (size_t)snprintf(views + vl, sizeof views - vl, "}");
                        al += (size_t)snprintf(accs + al, sizeof accs - al,
                                               "%s{\"bufferView\":%u,\"byteOffset\":%u,"
                                               "\"componentType\":%u,\"normalized\":%s,"
                                               "\"count\":%d,\"type\":\"%s\"}",
                                               n ? "," : "", n, off, cts[c],
                                               norm ? "true" : "false", COUNT, types[t]);
                        n++;
                    }
                }
            }
        }
    }
    int jl = snprintf(json, sizeof json,
                      "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":"
                      "\"data:application/octet-stream;base64,%s\",\"byteLength\":%d}],"
                      "\"bufferViews\":[%s],\"accessors\":[%s]}",
                      enc, BUF, views, accs);
    OT_CHECK(jl > 0 && (size_t)jl < sizeof json);
    oroya_gltf_data *d = NULL;
    oroya_error err = {0};
    oroya_result r = oroya_gltf_parse(NULL, json, (size_t)jl, &d, &err);
    if (r == OROYA_OK) {
        r = oroya_gltf_load_buffers(d, &err);
    }
    if (r == OROYA_OK) {
        r = oroya_gltf_validate(d, &err);
    }
    OT_CHECK_MSG(r == OROYA_OK, "synthetic: %s", err.message);
    if (r == OROYA_OK) {
        OT_EQ_INT(d->accessor_count, n);
        int before = accessors_checked;
        check_data(d, "synthetic");
        OT_EQ_INT(accessors_checked - before, n);
    }
    oroya_gltf_free(d);
}

int main(void) {
    OT_RUN(test_sample_models);
    OT_RUN(test_synthetic_shapes);
    printf("%d files, %d accessors\n", files_checked, accessors_checked);
    return ot_finish();
}
