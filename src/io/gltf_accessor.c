/* Accessor decoding (glTF 2.0 section 3.6.2): component types, strides, matrix column
 * padding, sparse substitution and three.js-style normalization. Callers pass validated
 * data, so ranges here were already checked once; the checks kept here are cheap guards. */
#include <string.h>

#include "internal/gltf.h"

uint32_t oroya_gltf_type_components(oroya_gltf_type type) {
    static const uint32_t n[] = {0, 1, 2, 3, 4, 4, 9, 16};
    return (unsigned)type < 8u ? n[type] : 0;
}

uint32_t oroya__gltf_component_size(oroya_gltf_component_type ct) {
    switch (ct) {
    case OROYA_GLTF_BYTE:
    case OROYA_GLTF_UNSIGNED_BYTE: return 1;
    case OROYA_GLTF_SHORT:
    case OROYA_GLTF_UNSIGNED_SHORT: return 2;
    case OROYA_GLTF_UNSIGNED_INT:
    case OROYA_GLTF_FLOAT: return 4;
    default: return 0;
    }
}

/* Matrix columns start on 4-byte boundaries (3.6.2.4), which pads MAT2 and MAT3 of bytes
 * and MAT3 of shorts. Returns rows per column (1 for vectors) and the column stride. */
static void column_layout(oroya_gltf_component_type ct, oroya_gltf_type type, uint32_t *rows,
                          uint32_t *cols, uint32_t *col_stride) {
    uint32_t cs = oroya__gltf_component_size(ct);
    uint32_t r = type == OROYA_GLTF_MAT2   ? 2
                 : type == OROYA_GLTF_MAT3 ? 3
                 : type == OROYA_GLTF_MAT4 ? 4
                                           : oroya_gltf_type_components(type);
    uint32_t c = type >= OROYA_GLTF_MAT2 ? r : 1;
    uint32_t stride = r * cs;
    if (c > 1) {
        stride = (stride + 3u) & ~3u;
    }
    *rows = r;
    *cols = c;
    *col_stride = stride;
}

uint32_t oroya__gltf_element_size(oroya_gltf_component_type ct, oroya_gltf_type type) {
    uint32_t rows, cols, col_stride;
    if (oroya__gltf_component_size(ct) == 0 || oroya_gltf_type_components(type) == 0) {
        return 0;
    }
    column_layout(ct, type, &rows, &cols, &col_stride);
    return cols * col_stride;
}

static uint32_t u16le(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t u32le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One component as float. Normalized values are multiplied by three.js's
 * getNormalizedComponentScale (1/127, 1/255, 1/32767, 1/65535) in double, then rounded. */
static float component_float(const uint8_t *p, oroya_gltf_component_type ct, bool normalized) {
    switch (ct) {
    case OROYA_GLTF_BYTE: {
        int8_t v = (int8_t)p[0];
        return normalized ? (float)((double)v * (1.0 / 127.0)) : (float)v;
    }
    case OROYA_GLTF_UNSIGNED_BYTE:
        return normalized ? (float)((double)p[0] * (1.0 / 255.0)) : (float)p[0];
    case OROYA_GLTF_SHORT: {
        int16_t v = (int16_t)(uint16_t)u16le(p);
        return normalized ? (float)((double)v * (1.0 / 32767.0)) : (float)v;
    }
    case OROYA_GLTF_UNSIGNED_SHORT: {
        uint32_t v = u16le(p);
        return normalized ? (float)((double)v * (1.0 / 65535.0)) : (float)v;
    }
    case OROYA_GLTF_UNSIGNED_INT: return (float)u32le(p);
    case OROYA_GLTF_FLOAT: {
        uint32_t bits = u32le(p);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    default: return 0.0f;
    }
}

static uint32_t component_uint(const uint8_t *p, oroya_gltf_component_type ct) {
    switch (ct) {
    case OROYA_GLTF_UNSIGNED_BYTE: return p[0];
    case OROYA_GLTF_UNSIGNED_SHORT: return u16le(p);
    case OROYA_GLTF_UNSIGNED_INT: return u32le(p);
    default: return 0;
    }
}

/* Both unpackers write 4-byte values (float or uint32_t); `floats` says which, and `out` is a
 * float * or a uint32_t * accordingly. */
_Static_assert(sizeof(float) == sizeof(uint32_t), "floats and uints share the 4-byte slots");

static void *value_slot(void *out, size_t k) { return (char *)out + k * sizeof(uint32_t); }

/* One element's components in column-major order. */
static void element_values(const uint8_t *src, const oroya_gltf_accessor *a, bool floats,
                           void *out) {
    uint32_t rows, cols, col_stride, cs = oroya__gltf_component_size(a->component_type);
    column_layout(a->component_type, a->type, &rows, &cols, &col_stride);
    for (uint32_t c = 0; c < cols; c++) {
        for (uint32_t r = 0; r < rows; r++) {
            const uint8_t *p = src + c * col_stride + r * cs;
            if (floats) {
                ((float *)out)[c * rows + r] = component_float(p, a->component_type, a->normalized);
            } else {
                ((uint32_t *)out)[c * rows + r] = component_uint(p, a->component_type);
            }
        }
    }
}

/* Fast paths for the dense part of an accessor (issue 10: element-by-element decoding was
 * two thirds of a load). They apply when an element's components are contiguous, i.e. every
 * vector and scalar type and the matrices without column padding; the padded matrices and
 * sparse values keep element_values. Each conversion is the same expression
 * as component_float / component_uint, so results are bit-identical (tested against an
 * independent per-byte decoder on every accessor of every sample model). When elements are
 * tightly packed, the whole accessor is one run of count * n components, which the compiler
 * vectorizes; a FLOAT or UNSIGNED_INT run on a little-endian host is a plain copy. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OROYA__GLTF_HOST_LE 1
#else
#define OROYA__GLTF_HOST_LE 0
#endif

static bool components_contiguous(const oroya_gltf_accessor *a) {
    return oroya__gltf_element_size(a->component_type, a->type) ==
           oroya_gltf_type_components(a->type) * oroya__gltf_component_size(a->component_type);
}

/* Shape of the dense part: `runs` runs of `len` components, `stride` bytes apart. */
static void dense_shape(const oroya_gltf_accessor *a, size_t stride, size_t *runs, size_t *len) {
    size_t n = oroya_gltf_type_components(a->type);
    if (stride == n * oroya__gltf_component_size(a->component_type)) {
        *runs = a->count ? 1 : 0;
        *len = (size_t)a->count * n;
    } else {
        *runs = a->count;
        *len = n;
    }
}

/* One run of `len` contiguous components as floats. */
static void dense_run_floats(const uint8_t *p, size_t len, const oroya_gltf_accessor *a, float *o) {
    switch (a->component_type) {
    case OROYA_GLTF_BYTE:
        if (a->normalized) {
            for (size_t k = 0; k < len; k++) {
                o[k] = (float)((double)(int8_t)p[k] * (1.0 / 127.0));
            }
        } else {
            for (size_t k = 0; k < len; k++) {
                o[k] = (float)(int8_t)p[k];
            }
        }
        break;
    case OROYA_GLTF_UNSIGNED_BYTE:
        if (a->normalized) {
            for (size_t k = 0; k < len; k++) {
                o[k] = (float)((double)p[k] * (1.0 / 255.0));
            }
        } else {
            for (size_t k = 0; k < len; k++) {
                o[k] = (float)p[k];
            }
        }
        break;
    case OROYA_GLTF_SHORT:
        if (a->normalized) {
            for (size_t k = 0; k < len; k++) {
                int16_t v = (int16_t)(uint16_t)u16le(p + 2 * k);
                o[k] = (float)((double)v * (1.0 / 32767.0));
            }
        } else {
            for (size_t k = 0; k < len; k++) {
                o[k] = (float)(int16_t)(uint16_t)u16le(p + 2 * k);
            }
        }
        break;
    case OROYA_GLTF_UNSIGNED_SHORT:
        if (a->normalized) {
            for (size_t k = 0; k < len; k++) {
                o[k] = (float)((double)u16le(p + 2 * k) * (1.0 / 65535.0));
            }
        } else {
            for (size_t k = 0; k < len; k++) {
                o[k] = (float)u16le(p + 2 * k);
            }
        }
        break;
    case OROYA_GLTF_UNSIGNED_INT:
        for (size_t k = 0; k < len; k++) {
            o[k] = (float)u32le(p + 4 * k);
        }
        break;
    case OROYA_GLTF_FLOAT:
        for (size_t k = 0; k < len; k++) {
            uint32_t bits = u32le(p + 4 * k);
            memcpy(&o[k], &bits, sizeof bits);
        }
        break;
    default: memset(o, 0, len * sizeof *o); break;
    }
}

/* One run of `len` contiguous components as uints. */
static void dense_run_uints(const uint8_t *p, size_t len, oroya_gltf_component_type ct,
                            uint32_t *o) {
    switch (ct) {
    case OROYA_GLTF_UNSIGNED_BYTE:
        for (size_t k = 0; k < len; k++) {
            o[k] = p[k];
        }
        break;
    case OROYA_GLTF_UNSIGNED_SHORT:
        for (size_t k = 0; k < len; k++) {
            o[k] = u16le(p + 2 * k);
        }
        break;
    case OROYA_GLTF_UNSIGNED_INT:
        for (size_t k = 0; k < len; k++) {
            o[k] = u32le(p + 4 * k);
        }
        break;
    default: memset(o, 0, len * sizeof *o); break;
    }
}

static void dense_values(const uint8_t *base, size_t stride, const oroya_gltf_accessor *a,
                         bool floats, void *out) {
    size_t runs, len;
    dense_shape(a, stride, &runs, &len);
    oroya_gltf_component_type plain = floats ? OROYA_GLTF_FLOAT : OROYA_GLTF_UNSIGNED_INT;
    if (a->component_type == plain && OROYA__GLTF_HOST_LE && runs == 1) {
        memcpy(out, base, len * sizeof(uint32_t));
        return;
    }
    for (size_t i = 0; i < runs; i++) {
        if (floats) {
            dense_run_floats(base + i * stride, len, a, (float *)value_slot(out, i * len));
        } else {
            dense_run_uints(base + i * stride, len, a->component_type,
                            (uint32_t *)value_slot(out, i * len));
        }
    }
}

/* Start of the accessor's first element and the distance between elements, or NULL when it
 * has no buffer view. */
static const uint8_t *accessor_base(const oroya_gltf_data *d, const oroya_gltf_accessor *a,
                                    size_t *stride) {
    *stride = oroya__gltf_element_size(a->component_type, a->type);
    if (a->buffer_view == OROYA_GLTF_NONE) {
        return NULL;
    }
    const oroya_gltf_buffer_view *v = &d->buffer_views[a->buffer_view];
    if (v->byte_stride) {
        *stride = v->byte_stride;
    }
    return d->buffers[v->buffer].data + v->byte_offset + a->byte_offset;
}

static const uint8_t *view_data(const oroya_gltf_data *d, uint32_t view, uint64_t offset) {
    const oroya_gltf_buffer_view *v = &d->buffer_views[view];
    return d->buffers[v->buffer].data + v->byte_offset + offset;
}

uint32_t oroya__gltf_sparse_index(const oroya_gltf_data *d, const oroya_gltf_sparse *s,
                                  uint32_t i) {
    uint32_t isize = oroya__gltf_component_size(s->indices_component_type);
    const uint8_t *p = view_data(d, s->indices_buffer_view, s->indices_byte_offset);
    return component_uint(p + (size_t)i * isize, s->indices_component_type);
}

void oroya__gltf_read_floats_at(const oroya_gltf_data *d, uint32_t accessor, uint32_t index,
                                float *out) {
    const oroya_gltf_accessor *a = &d->accessors[accessor];
    uint32_t n = oroya_gltf_type_components(a->type);
    const oroya_gltf_sparse *s = &a->sparse;
    if (s->count) {
        /* Sparse indices are strictly increasing (checked by validate): binary search. */
        uint32_t lo = 0, hi = s->count;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            uint32_t v = oroya__gltf_sparse_index(d, s, mid);
            if (v == index) {
                size_t es = oroya__gltf_element_size(a->component_type, a->type);
                element_values(view_data(d, s->values_buffer_view, s->values_byte_offset) +
                                   (size_t)mid * es,
                               a, true, out);
                return;
            }
            if (v < index) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
    }
    size_t stride;
    const uint8_t *base = accessor_base(d, a, &stride);
    if (!base) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    element_values(base + (size_t)index * stride, a, true, out);
}

size_t oroya_gltf_accessor_float_count(const oroya_gltf_data *data, uint32_t accessor) {
    if (!data || accessor >= data->accessor_count) {
        return 0;
    }
    const oroya_gltf_accessor *a = &data->accessors[accessor];
    return (size_t)a->count * oroya_gltf_type_components(a->type);
}

static oroya_result check_args(const oroya_gltf_data *data, uint32_t accessor, const void *out,
                               size_t out_count, oroya_error *err) {
    if (!data || (!out && out_count)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "accessor unpack: NULL argument");
    }
    if (accessor >= data->accessor_count) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "accessors[%u]: out of range (%u accessors)", accessor,
                           data->accessor_count);
    }
    if (!((const oroya__gltf *)data)->validated) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "accessors[%u]: the data has not been validated", accessor);
    }
    size_t need = oroya_gltf_accessor_float_count(data, accessor);
    if (out_count < need) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE,
                           "accessors[%u]: needs %zu values, out holds %zu", accessor, need,
                           out_count);
    }
    if (need && !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "accessor unpack: out is NULL");
    }
    return OROYA_OK;
}

/* The accessor's values into out: the dense part (zeros without a buffer view), then the
 * sparse substitutions. */
static void unpack(const oroya_gltf_data *data, const oroya_gltf_accessor *a, bool floats,
                   void *out) {
    uint32_t n = oroya_gltf_type_components(a->type);
    size_t stride;
    const uint8_t *base = accessor_base(data, a, &stride);
    if (base && components_contiguous(a)) {
        dense_values(base, stride, a, floats, out);
    } else if (base) {
        for (uint32_t i = 0; i < a->count; i++) {
            element_values(base + (size_t)i * stride, a, floats, value_slot(out, (size_t)i * n));
        }
    } else if (a->count) {
        memset(out, 0, (size_t)a->count * n * sizeof(uint32_t));
    }
    const oroya_gltf_sparse *s = &a->sparse;
    if (s->count) {
        size_t es = oroya__gltf_element_size(a->component_type, a->type);
        const uint8_t *values = view_data(data, s->values_buffer_view, s->values_byte_offset);
        for (uint32_t k = 0; k < s->count; k++) {
            uint32_t idx = oroya__gltf_sparse_index(data, s, k);
            if (idx < a->count) {
                element_values(values + (size_t)k * es, a, floats,
                               value_slot(out, (size_t)idx * n));
            }
        }
    }
}

oroya_result oroya_gltf_accessor_unpack_floats(const oroya_gltf_data *data, uint32_t accessor,
                                               float *out, size_t out_count, oroya_error *err) {
    oroya_result r = check_args(data, accessor, out, out_count, err);
    if (r) {
        return r;
    }
    unpack(data, &data->accessors[accessor], true, out);
    return OROYA_OK;
}

oroya_result oroya_gltf_accessor_unpack_uints(const oroya_gltf_data *data, uint32_t accessor,
                                              uint32_t *out, size_t out_count, oroya_error *err) {
    oroya_result r = check_args(data, accessor, out, out_count, err);
    if (r) {
        return r;
    }
    const oroya_gltf_accessor *a = &data->accessors[accessor];
    if (a->component_type != OROYA_GLTF_UNSIGNED_BYTE &&
        a->component_type != OROYA_GLTF_UNSIGNED_SHORT &&
        a->component_type != OROYA_GLTF_UNSIGNED_INT) {
        return oroya__fail(err, OROYA_ERR_INVALID_DATA,
                           "accessors[%u]: component type %u is not an unsigned integer", accessor,
                           (unsigned)a->component_type);
    }
    unpack(data, a, false, out);
    return OROYA_OK;
}
