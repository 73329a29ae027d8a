/* Indexed triangle meshes and three.js's primitive generators. See include/oroya/geometry.h.
 *
 * The generators follow three.js 0.187 line by line: they compute in double, as JavaScript
 * does, and round to float where three.js's Float32BufferAttribute does, so that vertices
 * match three.js's bit for bit (up to the last-ulp differences between V8's and the C
 * library's sin and cos, which the float rounding almost always hides). */
#include "oroya/geometry.h"

#include "internal/base.h"

#include <math.h>
#include <string.h>

/* ---- allocation --------------------------------------------------------------------------- */

typedef struct layout {
    uint32_t vertex_count, index_count, morph_target_count;
    bool normals, uvs, skin, morph_positions, morph_normals;
} layout;

static size_t align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

/* One block: the struct, then each present array, each 16-byte aligned. The caller has
 * checked the counts against OROYA_GEOMETRY_MAX_VERTICES, so the sizes cannot overflow. */
static oroya_geometry *geometry_alloc(const oroya_allocator *allocator, const layout *l) {
    size_t v = l->vertex_count, t = l->morph_target_count;
    size_t sizes[8] = {
        v * 3 * sizeof(float),
        l->normals ? v * 3 * sizeof(float) : 0,
        l->uvs ? v * 2 * sizeof(float) : 0,
        (size_t)l->index_count * sizeof(uint32_t),
        l->skin ? v * 4 * sizeof(uint16_t) : 0,
        l->skin ? v * 4 * sizeof(float) : 0,
        l->morph_positions ? t * v * 3 * sizeof(float) : 0,
        l->morph_normals ? t * v * 3 * sizeof(float) : 0,
    };
    size_t total = align16(sizeof(oroya_geometry));
    for (int k = 0; k < 8; k++) {
        total += align16(sizes[k]);
    }
    oroya_allocator a = allocator ? *allocator : (oroya_allocator){0};
    unsigned char *block = (unsigned char *)oroya__alloc(&a, total, 16);
    if (!block) {
        return NULL;
    }
    oroya_geometry *g = (oroya_geometry *)block;
    memset(g, 0, sizeof *g);
    g->allocator = a;
    g->vertex_count = l->vertex_count;
    g->index_count = l->index_count;
    g->morph_target_count = l->morph_target_count;
    unsigned char *p = block + align16(sizeof(oroya_geometry));
    void *arrays[8];
    for (int k = 0; k < 8; k++) {
        arrays[k] = sizes[k] ? p : NULL;
        p += align16(sizes[k]);
    }
    g->positions = (float *)arrays[0];
    g->normals = (float *)arrays[1];
    g->uvs = (float *)arrays[2];
    g->indices = (uint32_t *)arrays[3];
    g->joints = (uint16_t *)arrays[4];
    g->weights = (float *)arrays[5];
    g->morph_positions = (float *)arrays[6];
    g->morph_normals = (float *)arrays[7];
    return g;
}

void oroya_geometry_destroy(oroya_geometry *geometry) {
    if (geometry) {
        oroya_allocator a = geometry->allocator;
        oroya__free(&a, geometry);
    }
}

/* ---- bounds ------------------------------------------------------------------------------- */

/* out = m v for a 3x3 m (column-major, m[c * 3 + r]), in double. */
static void mul3(const double *m, const float *v, double out[3]) {
    const double x = v[0], y = v[1], z = v[2];
    out[0] = m[0] * x + m[3] * y + m[6] * z;
    out[1] = m[1] * x + m[4] * y + m[7] * z;
    out[2] = m[2] * x + m[5] * y + m[8] * z;
}

/* The xyz triple at p, or m p (+ t when t is not NULL) rounded to float as
 * oroya_geometry_apply_matrix stores it (m NULL: as it is). */
static void read3(const float *p, const double *m, const float *t, float out[3]) {
    if (!m) {
        out[0] = p[0], out[1] = p[1], out[2] = p[2];
        return;
    }
    double r[3];
    mul3(m, p, r);
    for (int c = 0; c < 3; c++) {
        out[c] = (float)(t ? r[c] + t[c] : r[c]);
    }
}

typedef struct bounds {
    oroya_vec3 lo, hi, center;
    float radius;
} bounds;

/* three.js computeBoundingBox and computeBoundingSphere (relative morph targets, as glTF's):
 * the box grows by the per-target delta box added to the base box; the sphere is centred on
 * the box centre, radius the largest distance to a vertex or a morphed vertex. Of the
 * geometry's positions and morph deltas as they are (m NULL) or as apply_matrix will leave
 * them (positions m p + t, deltas m d). False when a bound does not fit float (inf). */
static bool bounds_of(const oroya_geometry *g, const double *m, const float *t, bounds *b) {
    const uint32_t n = g->vertex_count;
    if (n == 0) {
        *b = (bounds){{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0};
        return true;
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++) {
        float x[3];
        read3(g->positions + (size_t)i * 3, m, t, x);
        for (uint32_t c = 0; c < 3; c++) {
            lo[c] = x[c] < lo[c] ? x[c] : lo[c];
            hi[c] = x[c] > hi[c] ? x[c] : hi[c];
        }
    }
    float base_lo[3] = {lo[0], lo[1], lo[2]}, base_hi[3] = {hi[0], hi[1], hi[2]};
    for (uint32_t k = 0; g->morph_positions && k < g->morph_target_count; k++) {
        const float *d = g->morph_positions + (size_t)k * n * 3;
        float dlo[3] = {INFINITY, INFINITY, INFINITY}, dhi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t i = 0; i < n; i++) {
            float x[3];
            read3(d + (size_t)i * 3, m, NULL, x);
            for (uint32_t c = 0; c < 3; c++) {
                dlo[c] = x[c] < dlo[c] ? x[c] : dlo[c];
                dhi[c] = x[c] > dhi[c] ? x[c] : dhi[c];
            }
        }
        for (int c = 0; c < 3; c++) {
            float a = base_lo[c] + dlo[c], e = base_hi[c] + dhi[c];
            lo[c] = a < lo[c] ? a : lo[c];
            hi[c] = a > hi[c] ? a : hi[c];
            lo[c] = e < lo[c] ? e : lo[c];
            hi[c] = e > hi[c] ? e : hi[c];
        }
    }
    double center[3];
    for (int c = 0; c < 3; c++) {
        center[c] = ((double)lo[c] + (double)hi[c]) * 0.5;
    }
    double max_sq = 0;
    for (uint32_t i = 0; i < n; i++) {
        float x[3];
        read3(g->positions + (size_t)i * 3, m, t, x);
        double dx = x[0] - center[0], dy = x[1] - center[1], dz = x[2] - center[2];
        double sq = dx * dx + dy * dy + dz * dz;
        max_sq = sq > max_sq ? sq : max_sq;
    }
    for (uint32_t k = 0; g->morph_positions && k < g->morph_target_count; k++) {
        const float *d = g->morph_positions + (size_t)k * n * 3;
        for (uint32_t i = 0; i < n; i++) {
            float x[3], dx[3];
            read3(g->positions + (size_t)i * 3, m, t, x);
            read3(d + (size_t)i * 3, m, NULL, dx);
            double q[3];
            for (uint32_t c = 0; c < 3; c++) {
                /* three.js reads the floats into a double Vector3 and adds there. */
                q[c] = (double)dx[c] + (double)x[c] - center[c];
            }
            double sq = q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
            max_sq = sq > max_sq ? sq : max_sq;
        }
    }
    *b = (bounds){{lo[0], lo[1], lo[2]},
                  {hi[0], hi[1], hi[2]},
                  {(float)center[0], (float)center[1], (float)center[2]},
                  (float)sqrt(max_sq)};
    bool finite = isfinite(b->radius);
    for (int c = 0; c < 3; c++) {
        finite = finite && isfinite(lo[c]) && isfinite(hi[c]);
    }
    return finite;
}

static void store_bounds(oroya_geometry *g, const bounds *b) {
    g->bounds_min = b->lo;
    g->bounds_max = b->hi;
    g->sphere_center = b->center;
    g->sphere_radius = b->radius;
}

void oroya_geometry_compute_bounds(oroya_geometry *g) {
    if (g) {
        bounds b;
        bounds_of(g, NULL, NULL, &b);
        store_bounds(g, &b);
    }
}

/* ---- create from arrays ------------------------------------------------------------------- */

static bool all_finite(const float *v, size_t n, size_t *bad) {
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            *bad = i;
            return false;
        }
    }
    return true;
}

oroya_result oroya_geometry_create(const oroya_geometry_desc *desc, oroya_geometry **out,
                                   oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!desc || !out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "geometry: %s is NULL",
                           desc ? "out" : "desc");
    }
    const oroya_geometry_desc *d = desc;
    if (!d->positions || d->vertex_count == 0) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "geometry: positions are required (vertex_count %u)", d->vertex_count);
    }
    if (d->vertex_count > OROYA_GEOMETRY_MAX_VERTICES) {
        return oroya__fail(err, OROYA_ERR_LIMIT, "geometry: %u vertices, the limit is %u",
                           d->vertex_count, OROYA_GEOMETRY_MAX_VERTICES);
    }
    if ((d->allocator.alloc == NULL) != (d->allocator.free == NULL)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "geometry: allocator needs both alloc and free");
    }
    uint32_t index_count = d->index_count;
    if (!d->indices) {
        if (index_count != 0) {
            return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                               "geometry: index_count %u without indices", index_count);
        }
        index_count = d->vertex_count;
    }
    if (index_count % 3 != 0) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "geometry: %u indices is not a whole number of triangles", index_count);
    }
    if (index_count > OROYA_GEOMETRY_MAX_VERTICES * 6u) {
        return oroya__fail(err, OROYA_ERR_LIMIT, "geometry: %u indices, the limit is %u",
                           index_count, OROYA_GEOMETRY_MAX_VERTICES * 6u);
    }
    if (d->joints && !d->weights) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "geometry: joints without weights");
    }
    if (!d->joints && d->weights) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "geometry: weights without joints");
    }
    if (d->morph_target_count == 0 && (d->morph_positions || d->morph_normals)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "geometry: morph arrays with morph_target_count 0");
    }
    if (d->morph_target_count && !d->morph_positions && !d->morph_normals) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "geometry: morph_target_count %u without morph arrays",
                           d->morph_target_count);
    }
    /* Morph data is target_count * vertex_count * 3 floats; keep it within the same bound as
     * the vertices so the sizes cannot overflow. */
    if ((uint64_t)d->morph_target_count * d->vertex_count > OROYA_GEOMETRY_MAX_VERTICES) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "geometry: %u morph targets x %u vertices exceeds %u",
                           d->morph_target_count, d->vertex_count, OROYA_GEOMETRY_MAX_VERTICES);
    }
    const size_t nv = d->vertex_count;
    size_t bad;
    if (!all_finite(d->positions, nv * 3, &bad)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "geometry: position of vertex %zu is not finite", bad / 3);
    }
    if (d->normals && !all_finite(d->normals, nv * 3, &bad)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "geometry: normal of vertex %zu is not finite", bad / 3);
    }
    if (d->uvs && !all_finite(d->uvs, nv * 2, &bad)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE, "geometry: uv of vertex %zu is not finite",
                           bad / 2);
    }
    if (d->weights && !all_finite(d->weights, nv * 4, &bad)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "geometry: weights of vertex %zu are not finite", bad / 4);
    }
    const size_t nm = (size_t)d->morph_target_count * nv * 3;
    if (d->morph_positions && !all_finite(d->morph_positions, nm, &bad)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "geometry: morph target %zu position of vertex %zu is not finite",
                           bad / (nv * 3), bad % (nv * 3) / 3);
    }
    if (d->morph_normals && !all_finite(d->morph_normals, nm, &bad)) {
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "geometry: morph target %zu normal of vertex %zu is not finite",
                           bad / (nv * 3), bad % (nv * 3) / 3);
    }
    for (uint32_t i = 0; d->indices && i < index_count; i++) {
        if (d->indices[i] >= d->vertex_count) {
            return oroya__fail(err, OROYA_ERR_OUT_OF_RANGE,
                               "geometry: index %u is %u, but there are %u vertices", i,
                               d->indices[i], d->vertex_count);
        }
    }

    layout l = {
        d->vertex_count, index_count,       d->morph_target_count,      d->normals != NULL,
        d->uvs != NULL,  d->joints != NULL, d->morph_positions != NULL, d->morph_normals != NULL};
    oroya_geometry *g = geometry_alloc(&d->allocator, &l);
    if (!g) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "geometry: out of memory (%u vertices)",
                           d->vertex_count);
    }
    memcpy(g->positions, d->positions, nv * 3 * sizeof(float));
    if (d->normals) {
        memcpy(g->normals, d->normals, nv * 3 * sizeof(float));
    }
    if (d->uvs) {
        memcpy(g->uvs, d->uvs, nv * 2 * sizeof(float));
    }
    if (d->indices) {
        memcpy(g->indices, d->indices, (size_t)index_count * sizeof(uint32_t));
    } else {
        for (uint32_t i = 0; i < index_count; i++) {
            g->indices[i] = i;
        }
    }
    if (d->joints) {
        memcpy(g->joints, d->joints, nv * 4 * sizeof(uint16_t));
        memcpy(g->weights, d->weights, nv * 4 * sizeof(float));
    }
    if (d->morph_positions) {
        memcpy(g->morph_positions, d->morph_positions, nm * sizeof(float));
    }
    if (d->morph_normals) {
        memcpy(g->morph_normals, d->morph_normals, nm * sizeof(float));
    }
    bounds b;
    if (!bounds_of(g, NULL, NULL, &b)) {
        oroya_geometry_destroy(g);
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "geometry: the bounds of the positions%s do not fit float (a "
                           "coordinate, a morphed one or the bounding sphere's radius overflows)",
                           d->morph_positions ? " and morph targets" : "");
    }
    store_bounds(g, &b);
    *out = g;
    return OROYA_OK;
}

oroya_geometry_desc oroya_geometry_to_desc(const oroya_geometry *geometry) {
    oroya_geometry_desc d;
    memset(&d, 0, sizeof d);
    if (!geometry) {
        return d;
    }
    d.vertex_count = geometry->vertex_count;
    d.positions = geometry->positions;
    d.normals = geometry->normals;
    d.uvs = geometry->uvs;
    d.indices = geometry->indices;
    d.index_count = geometry->index_count;
    d.joints = geometry->joints;
    d.weights = geometry->weights;
    d.morph_target_count = geometry->morph_target_count;
    d.morph_positions = geometry->morph_positions;
    d.morph_normals = geometry->morph_normals;
    d.allocator = geometry->allocator;
    return d;
}

/* ---- generators ----------------------------------------------------------------------------- */

/* Output cursor for a generator: appends float-rounded vertices as three.js's
 * Float32BufferAttribute stores them. */
typedef struct builder {
    oroya_geometry *g;
    uint32_t v, i;
} builder;

static void put_vertex(builder *b, double px, double py, double pz, double nx, double ny, double nz,
                       double u, double v) {
    float *p = b->g->positions + (size_t)b->v * 3, *n = b->g->normals + (size_t)b->v * 3,
          *t = b->g->uvs + (size_t)b->v * 2;
    p[0] = (float)px, p[1] = (float)py, p[2] = (float)pz;
    n[0] = (float)nx, n[1] = (float)ny, n[2] = (float)nz;
    t[0] = (float)u, t[1] = (float)v;
    b->v++;
}

static void put_triangle(builder *b, uint32_t x, uint32_t y, uint32_t z) {
    uint32_t *i = b->g->indices + b->i;
    i[0] = x, i[1] = y, i[2] = z;
    b->i += 3;
}

static oroya_result begin(const oroya_allocator *allocator, uint64_t vertices, uint64_t indices,
                          const char *what, builder *b, oroya_error *err) {
    if (vertices > OROYA_GEOMETRY_MAX_VERTICES ||
        indices > (uint64_t)OROYA_GEOMETRY_MAX_VERTICES * 6u) {
        return oroya__fail(err, OROYA_ERR_LIMIT,
                           "%s: %llu vertices and %llu indices exceed the limit of %u vertices",
                           what, (unsigned long long)vertices, (unsigned long long)indices,
                           OROYA_GEOMETRY_MAX_VERTICES);
    }
    if (allocator && (allocator->alloc == NULL) != (allocator->free == NULL)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "%s: allocator needs both alloc and free", what);
    }
    layout l = {(uint32_t)vertices, (uint32_t)indices, 0, true, true, false, false, false};
    b->g = geometry_alloc(allocator, &l);
    b->v = b->i = 0;
    if (!b->g) {
        return oroya__fail(err, OROYA_ERR_OUT_OF_MEMORY, "%s: out of memory (%llu vertices)", what,
                           (unsigned long long)vertices);
    }
    return OROYA_OK;
}

/* The bounds, then the geometry to *out; NON_FINITE (the geometry freed) when a bound does
 * not fit float (a cylinder of radius 3.4e38 and height 3.4e38 has finite vertices, but its
 * bounding sphere's radius is 3.8e38). */
static oroya_result finish(builder *b, oroya_geometry **out, const char *what, oroya_error *err) {
    bounds bd;
    if (!bounds_of(b->g, NULL, NULL, &bd)) {
        oroya_geometry_destroy(b->g);
        return oroya__fail(err, OROYA_ERR_NON_FINITE,
                           "%s: the bounds do not fit float (the bounding sphere's radius "
                           "overflows)",
                           what);
    }
    store_bounds(b->g, &bd);
    *out = b->g;
    return OROYA_OK;
}

static bool finite3(float a, float b, float c) { return isfinite(a) && isfinite(b) && isfinite(c); }

/* three.js BoxGeometry's buildPlane, which PlaneGeometry repeats with u = x, v = -y, w = 0
 * and the normal +z. u, v, w are the axes (0 x, 1 y, 2 z) the grid's columns, rows and
 * normal map to; the grid lies at w = w_value with normal_sign along w. */
static void grid_plane(builder *b, int u, int v, int w, double udir, double vdir, double width,
                       double height, double w_value, double normal_sign, uint32_t grid_x,
                       uint32_t grid_y) {
    const double segment_width = width / grid_x, segment_height = height / grid_y;
    const double width_half = width / 2, height_half = height / 2;
    const uint32_t grid_x1 = grid_x + 1, grid_y1 = grid_y + 1, first = b->v;
    for (uint32_t iy = 0; iy < grid_y1; iy++) {
        const double y = iy * segment_height - height_half;
        for (uint32_t ix = 0; ix < grid_x1; ix++) {
            const double x = ix * segment_width - width_half;
            double p[3], n[3] = {0, 0, 0};
            p[u] = x * udir;
            p[v] = y * vdir;
            p[w] = w_value;
            n[w] = normal_sign;
            put_vertex(b, p[0], p[1], p[2], n[0], n[1], n[2], (double)ix / grid_x,
                       1 - ((double)iy / grid_y));
        }
    }
    for (uint32_t iy = 0; iy < grid_y; iy++) {
        for (uint32_t ix = 0; ix < grid_x; ix++) {
            const uint32_t a = first + ix + grid_x1 * iy;
            const uint32_t bb = first + ix + grid_x1 * (iy + 1);
            const uint32_t c = first + (ix + 1) + grid_x1 * (iy + 1);
            const uint32_t d = first + (ix + 1) + grid_x1 * iy;
            put_triangle(b, a, bb, d);
            put_triangle(b, bb, c, d);
        }
    }
}

static oroya_result build_box(float width, float height, float depth, uint32_t width_segments,
                              uint32_t height_segments, uint32_t depth_segments,
                              const oroya_allocator *allocator, oroya_geometry **out,
                              oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "box: out is NULL");
    }
    if (!finite3(width, height, depth)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "box: size (%g, %g, %g) is not finite",
                           (double)width, (double)height, (double)depth);
    }
    if (!width_segments || !height_segments || !depth_segments) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "box: segments (%u, %u, %u) must be at least 1", width_segments,
                           height_segments, depth_segments);
    }
    const uint64_t ws = width_segments, hs = height_segments, ds = depth_segments;
    const uint64_t nv = 2 * ((ds + 1) * (hs + 1) + (ws + 1) * (ds + 1) + (ws + 1) * (hs + 1));
    const uint64_t ni = 12 * (ds * hs + ws * ds + ws * hs);
    builder b;
    oroya_result r = begin(allocator, nv, ni, "box", &b, err);
    if (r != OROYA_OK) {
        return r;
    }
    const double w = width, h = height, d = depth;
    /* buildPlane's depth argument gives the grid's w (depth / 2) and its normal's sign. */
    const double faces[6][8] = {
        {2, 1, 0, -1, -1, d, h, w},  /* px */
        {2, 1, 0, 1, -1, d, h, -w},  /* nx */
        {0, 2, 1, 1, 1, w, d, h},    /* py */
        {0, 2, 1, 1, -1, w, d, -h},  /* ny */
        {0, 1, 2, 1, -1, w, h, d},   /* pz */
        {0, 1, 2, -1, -1, w, h, -d}, /* nz */
    };
    const uint32_t grids[6][2] = {
        {depth_segments, height_segments}, {depth_segments, height_segments},
        {width_segments, depth_segments},  {width_segments, depth_segments},
        {width_segments, height_segments}, {width_segments, height_segments}};
    for (int f = 0; f < 6; f++) {
        const double *q = faces[f];
        grid_plane(&b, (int)q[0], (int)q[1], (int)q[2], q[3], q[4], q[5], q[6], q[7] / 2,
                   q[7] > 0 ? 1 : -1, grids[f][0], grids[f][1]);
    }
    return finish(&b, out, "box", err);
}

static oroya_result build_sphere(float radius, uint32_t width_segments, uint32_t height_segments,
                                 const oroya_allocator *allocator, oroya_geometry **out,
                                 oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "sphere: out is NULL");
    }
    if (!isfinite(radius)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "sphere: radius %g is not finite",
                           (double)radius);
    }
    /* three.js: Math.max(3, ...) and Math.max(2, ...). */
    const uint32_t ws = width_segments < 3 ? 3 : width_segments;
    const uint32_t hs = height_segments < 2 ? 2 : height_segments;
    const uint64_t nv = ((uint64_t)ws + 1) * ((uint64_t)hs + 1);
    const uint64_t ni = 6 * (uint64_t)ws * ((uint64_t)hs - 1);
    builder b;
    oroya_result r = begin(allocator, nv, ni, "sphere", &b, err);
    if (r != OROYA_OK) {
        return r;
    }
    /* The full ranges: phiStart 0, phiLength 2 pi, thetaStart 0, thetaLength pi, so
     * thetaEnd is pi and both poles are closed. */
    const double pi = 3.141592653589793, phi_length = pi * 2, theta_length = pi;
    const double rad = radius;
    for (uint32_t iy = 0; iy <= hs; iy++) {
        const double v = (double)iy / hs;
        const double theta = v * theta_length;
        const double y = rad * cos(theta);
        const double ring = sqrt(rad * rad - y * y);
        double u_offset = 0;
        if (iy == 0) {
            u_offset = 0.5 / ws;
        } else if (iy == hs) {
            u_offset = -0.5 / ws;
        }
        for (uint32_t ix = 0; ix <= ws; ix++) {
            const double u = (double)ix / ws;
            const double phi = u * phi_length;
            const double x = -ring * cos(phi), z = ring * sin(phi);
            /* three.js Vector3.normalize: multiply by 1 / (length || 1). */
            double len = sqrt(x * x + y * y + z * z);
            const double inv = 1 / (len != 0 ? len : 1);
            put_vertex(&b, x, y, z, x * inv, y * inv, z * inv, u + u_offset, 1 - v);
        }
    }
    const uint32_t row = ws + 1;
    for (uint32_t iy = 0; iy < hs; iy++) {
        for (uint32_t ix = 0; ix < ws; ix++) {
            const uint32_t a = iy * row + ix + 1, bb = iy * row + ix;
            const uint32_t c = (iy + 1) * row + ix, d = (iy + 1) * row + ix + 1;
            if (iy != 0) {
                put_triangle(&b, a, bb, d);
            }
            if (iy != hs - 1) {
                put_triangle(&b, bb, c, d);
            }
        }
    }
    return finish(&b, out, "sphere", err);
}

static oroya_result build_cylinder(float radius_top, float radius_bottom, float height,
                                   uint32_t radial_segments, uint32_t height_segments,
                                   bool open_ended, const oroya_allocator *allocator,
                                   oroya_geometry **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "cylinder: out is NULL");
    }
    if (!finite3(radius_top, radius_bottom, height)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "cylinder: radii (%g, %g) or height %g not finite", (double)radius_top,
                           (double)radius_bottom, (double)height);
    }
    /* three.js divides by the height for the side normals' slope: 0 gives NaN normals. */
    if (height == 0) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "cylinder: height 0 gives undefined side normals");
    }
    if (!radial_segments || !height_segments) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "cylinder: segments (%u, %u) must be at least 1", radial_segments,
                           height_segments);
    }
    const uint64_t rs = radial_segments, hs = height_segments;
    const bool top_cap = !open_ended && radius_top > 0;
    const bool bottom_cap = !open_ended && radius_bottom > 0;
    uint64_t nv = (rs + 1) * (hs + 1);
    /* Torso: two triangles per quad, except the degenerate ones at a zero-radius end. */
    uint64_t ni = 0;
    for (uint64_t y = 0; y < hs; y++) {
        const uint64_t first = radius_top > 0 || y != 0, second = radius_bottom > 0 || y != hs - 1;
        ni += 3 * rs * (first + second);
    }
    nv += (uint64_t)(top_cap + bottom_cap) * (2 * rs + 1);
    ni += (uint64_t)(top_cap + bottom_cap) * 3 * rs;
    builder b;
    oroya_result r = begin(allocator, nv, ni, "cylinder", &b, err);
    if (r != OROYA_OK) {
        return r;
    }
    const double pi = 3.141592653589793, theta_length = pi * 2;
    const double rt = radius_top, rb = radius_bottom, h = height, half = h / 2;
    const double slope = (rb - rt) / h;
    for (uint32_t y = 0; y <= height_segments; y++) {
        const double v = (double)y / height_segments;
        const double radius = v * (rb - rt) + rt;
        for (uint32_t x = 0; x <= radial_segments; x++) {
            const double u = (double)x / radial_segments;
            const double theta = u * theta_length;
            const double s = sin(theta), c = cos(theta);
            const double len = sqrt(s * s + slope * slope + c * c);
            const double inv = 1 / (len != 0 ? len : 1);
            put_vertex(&b, radius * s, -v * h + half, radius * c, s * inv, slope * inv, c * inv, u,
                       1 - v);
        }
    }
    const uint32_t row = radial_segments + 1;
    for (uint32_t x = 0; x < radial_segments; x++) {
        for (uint32_t y = 0; y < height_segments; y++) {
            const uint32_t a = y * row + x, bb = (y + 1) * row + x;
            const uint32_t c = (y + 1) * row + x + 1, d = y * row + x + 1;
            if (radius_top > 0 || y != 0) {
                put_triangle(&b, a, bb, d);
            }
            if (radius_bottom > 0 || y != height_segments - 1) {
                put_triangle(&b, bb, c, d);
            }
        }
    }
    for (int cap = 0; cap < 2; cap++) {
        const bool top = cap == 0;
        if (!(top ? top_cap : bottom_cap)) {
            continue;
        }
        const double radius = top ? rt : rb, sign = top ? 1 : -1;
        const uint32_t center_start = b.v;
        for (uint32_t x = 1; x <= radial_segments; x++) {
            put_vertex(&b, 0, half * sign, 0, 0, sign, 0, 0.5, 0.5);
        }
        const uint32_t center_end = b.v;
        for (uint32_t x = 0; x <= radial_segments; x++) {
            const double u = (double)x / radial_segments;
            const double theta = u * theta_length;
            const double c = cos(theta), s = sin(theta);
            put_vertex(&b, radius * s, half * sign, radius * c, 0, sign, 0, (c * 0.5) + 0.5,
                       (s * 0.5 * sign) + 0.5);
        }
        for (uint32_t x = 0; x < radial_segments; x++) {
            const uint32_t c = center_start + x, i = center_end + x;
            if (top) {
                put_triangle(&b, i, i + 1, c);
            } else {
                put_triangle(&b, i + 1, i, c);
            }
        }
    }
    return finish(&b, out, "cylinder", err);
}

static oroya_result build_plane(float width, float height, uint32_t width_segments,
                                uint32_t height_segments, const oroya_allocator *allocator,
                                oroya_geometry **out, oroya_error *err) {
    if (out) {
        *out = NULL;
    }
    if (!out) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "plane: out is NULL");
    }
    if (!isfinite(width) || !isfinite(height)) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT, "plane: size (%g, %g) is not finite",
                           (double)width, (double)height);
    }
    if (!width_segments || !height_segments) {
        return oroya__fail(err, OROYA_ERR_INVALID_ARGUMENT,
                           "plane: segments (%u, %u) must be at least 1", width_segments,
                           height_segments);
    }
    const uint64_t gx = width_segments, gy = height_segments;
    builder b;
    oroya_result r = begin(allocator, (gx + 1) * (gy + 1), 6 * gx * gy, "plane", &b, err);
    if (r != OROYA_OK) {
        return r;
    }
    grid_plane(&b, 0, 1, 2, 1, -1, width, height, 0, 1, width_segments, height_segments);
    return finish(&b, out, "plane", err);
}

/* ---- the desc forms and the positional ones --------------------------------------------- */

/* A desc's zero means three.js's default. */
static float size_or(float v, float fallback) { return v == 0 ? fallback : v; }
static uint32_t count_or(uint32_t v, uint32_t fallback) { return v == 0 ? fallback : v; }

oroya_result oroya_geometry_box(const oroya_box_desc *desc, oroya_geometry **out,
                                oroya_error *err) {
    const oroya_box_desc d = desc ? *desc : (oroya_box_desc){0};
    return build_box(size_or(d.width, 1), size_or(d.height, 1), size_or(d.depth, 1),
                     count_or(d.width_segments, 1), count_or(d.height_segments, 1),
                     count_or(d.depth_segments, 1), &d.allocator, out, err);
}

oroya_result oroya_geometry_sphere(const oroya_sphere_desc *desc, oroya_geometry **out,
                                   oroya_error *err) {
    const oroya_sphere_desc d = desc ? *desc : (oroya_sphere_desc){0};
    return build_sphere(size_or(d.radius, 1), count_or(d.width_segments, 32),
                        count_or(d.height_segments, 16), &d.allocator, out, err);
}

oroya_result oroya_geometry_cylinder(const oroya_cylinder_desc *desc, oroya_geometry **out,
                                     oroya_error *err) {
    const oroya_cylinder_desc d = desc ? *desc : (oroya_cylinder_desc){0};
    return build_cylinder(d.pointed_top ? 0 : size_or(d.radius_top, 1),
                          d.pointed_bottom ? 0 : size_or(d.radius_bottom, 1), size_or(d.height, 1),
                          count_or(d.radial_segments, 32), count_or(d.height_segments, 1),
                          d.open_ended, &d.allocator, out, err);
}

oroya_result oroya_geometry_cone(const oroya_cone_desc *desc, oroya_geometry **out,
                                 oroya_error *err) {
    const oroya_cone_desc d = desc ? *desc : (oroya_cone_desc){0};
    return build_cylinder(0, size_or(d.radius, 1), size_or(d.height, 1),
                          count_or(d.radial_segments, 32), count_or(d.height_segments, 1),
                          d.open_ended, &d.allocator, out, err);
}

oroya_result oroya_geometry_plane(const oroya_plane_desc *desc, oroya_geometry **out,
                                  oroya_error *err) {
    const oroya_plane_desc d = desc ? *desc : (oroya_plane_desc){0};
    return build_plane(size_or(d.width, 1), size_or(d.height, 1), count_or(d.width_segments, 1),
                       count_or(d.height_segments, 1), &d.allocator, out, err);
}

oroya_result oroya_geometry_create_box(float width, float height, float depth,
                                       uint32_t width_segments, uint32_t height_segments,
                                       uint32_t depth_segments, const oroya_allocator *allocator,
                                       oroya_geometry **out, oroya_error *err) {
    return build_box(width, height, depth, width_segments, height_segments, depth_segments,
                     allocator, out, err);
}

oroya_result oroya_geometry_create_sphere(float radius, uint32_t width_segments,
                                          uint32_t height_segments,
                                          const oroya_allocator *allocator, oroya_geometry **out,
                                          oroya_error *err) {
    return build_sphere(radius, width_segments, height_segments, allocator, out, err);
}

oroya_result oroya_geometry_create_cylinder(float radius_top, float radius_bottom, float height,
                                            uint32_t radial_segments, uint32_t height_segments,
                                            bool open_ended, const oroya_allocator *allocator,
                                            oroya_geometry **out, oroya_error *err) {
    return build_cylinder(radius_top, radius_bottom, height, radial_segments, height_segments,
                          open_ended, allocator, out, err);
}

oroya_result oroya_geometry_create_plane(float width, float height, uint32_t width_segments,
                                         uint32_t height_segments, const oroya_allocator *allocator,
                                         oroya_geometry **out, oroya_error *err) {
    return build_plane(width, height, width_segments, height_segments, allocator, out, err);
}

/* ---- transforms ------------------------------------------------------------------------------ */

oroya_result oroya_geometry_translate(oroya_geometry *geometry, float x, float y, float z) {
    if (!geometry) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    if (!finite3(x, y, z)) {
        return OROYA_ERR_NON_FINITE;
    }
    oroya_mat4 m = oroya_mat4_identity();
    m.m[12] = x, m.m[13] = y, m.m[14] = z;
    return oroya_geometry_apply_matrix(geometry, &m);
}

/* Replaces each of the `count` xyz triples at p with m p (+ t when t is not NULL). */
static void transform3(float *p, size_t count, const double *m, const float *t) {
    for (size_t i = 0; i < count; i++, p += 3) {
        double r[3];
        mul3(m, p, r);
        for (int c = 0; c < 3; c++) {
            p[c] = (float)(t ? r[c] + t[c] : r[c]);
        }
    }
}

oroya_result oroya_geometry_apply_matrix(oroya_geometry *geometry, const oroya_mat4 *matrix) {
    if (!geometry || !matrix) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    const float *e = matrix->m;
    for (int k = 0; k < 16; k++) {
        if (!isfinite(e[k])) {
            return OROYA_ERR_NON_FINITE;
        }
    }
    /* Only affine matrices: a projective one would need the divide by w, which can be zero. */
    if (e[3] != 0 || e[7] != 0 || e[11] != 0 || e[15] != 1) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    /* The normal matrix, as three.js's Matrix3.getNormalMatrix: the inverse transpose of the
     * 3x3 part, in double. Column-major a[c*3+r]. */
    double a[9] = {e[0], e[1], e[2], e[4], e[5], e[6], e[8], e[9], e[10]};
    double cof[9]; /* cof[c*3+r] = cofactor of element (r, c) */
    cof[0] = a[4] * a[8] - a[7] * a[5];
    cof[1] = -(a[3] * a[8] - a[6] * a[5]);
    cof[2] = a[3] * a[7] - a[6] * a[4];
    cof[3] = -(a[1] * a[8] - a[7] * a[2]);
    cof[4] = a[0] * a[8] - a[6] * a[2];
    cof[5] = -(a[0] * a[7] - a[6] * a[1]);
    cof[6] = a[1] * a[5] - a[4] * a[2];
    cof[7] = -(a[0] * a[5] - a[3] * a[2]);
    cof[8] = a[0] * a[4] - a[3] * a[1];
    /* det expanded along the first column: sum of M(r, 0) * C(r, 0). */
    double det = a[0] * cof[0] + a[1] * cof[1] + a[2] * cof[2];
    if (!(fabs(det) > 1e-30) || !isfinite(det)) {
        return OROYA_ERR_INVALID_ARGUMENT;
    }
    /* (M^-1)^T = cofactor matrix / det; element (r, c) = C(r, c) / det. */
    double nm[9];
    for (int k = 0; k < 9; k++) {
        nm[k] = cof[k] / det;
    }
    /* Nothing is changed unless every result fits float: the transformed positions and
     * deltas (and the bounds) are checked first, then the morph normal deltas. */
    const uint32_t n = geometry->vertex_count;
    const size_t nm_count = (size_t)geometry->morph_target_count * n;
    bounds b;
    if (!bounds_of(geometry, a, e + 12, &b)) {
        return OROYA_ERR_NON_FINITE;
    }
    for (size_t i = 0; geometry->morph_normals && i < nm_count; i++) {
        float x[3];
        read3(geometry->morph_normals + i * 3, nm, NULL, x);
        if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2])) {
            return OROYA_ERR_NON_FINITE;
        }
    }
    transform3(geometry->positions, n, a, e + 12);
    for (uint32_t i = 0; geometry->normals && i < n; i++) {
        float *q = geometry->normals + (size_t)i * 3;
        double r[3];
        mul3(nm, q, r);
        const double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        const double inv = 1 / (len != 0 ? len : 1);
        q[0] = (float)(r[0] * inv), q[1] = (float)(r[1] * inv), q[2] = (float)(r[2] * inv);
    }
    if (geometry->morph_positions) {
        transform3(geometry->morph_positions, nm_count, a, NULL);
    }
    if (geometry->morph_normals) {
        transform3(geometry->morph_normals, nm_count, nm, NULL);
    }
    store_bounds(geometry, &b);
    return OROYA_OK;
}
