/* oroya/geometry.h - indexed triangle meshes and the three.js primitive generators.
 *
 * What it does: holds positions, normals and UVs per vertex, a triangle index list, and
 * bounds (an axis-aligned box and a sphere, computed as three.js computes them). Builds box,
 * sphere, cylinder and plane meshes with three.js's parameters AND its vertex order, index
 * order and UVs, so a vertex index means the same vertex in oroya and in three.js. Translates
 * and transforms meshes in place (normals through the normal matrix).
 * What it does not do: draw (the renderer does), skin or morph (the geometry only carries the
 * optional per-vertex arrays those modules read), or load files.
 *
 * Ownership: an oroya_geometry is one allocation holding the struct and all its arrays,
 * freed by oroya_geometry_destroy. The struct is transparent: read any field; change vertex
 * values in place if you like (then call oroya_geometry_compute_bounds), but never the
 * pointers or counts. Scenes borrow geometries; destroy a geometry only after detaching it.
 *
 * Threading: no shared state; a geometry may be read from many threads at once.
 *
 * Example:
 *   oroya_geometry *cyl;
 *   if (oroya_geometry_create_cylinder(0.5f, 0.5f, 2.0f, 32, 1, false, NULL, &cyl, NULL) == OROYA_OK) {
 *       oroya_geometry_translate(cyl, 0.0f, 1.0f, 0.0f);   // base at y = 0
 *       ...
 *       oroya_geometry_destroy(cyl);
 *   }
 */
#ifndef OROYA_GEOMETRY_H
#define OROYA_GEOMETRY_H

#include "oroya/base.h"
#include "oroya/math.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

/* Generators refuse parameters that would make more vertices than this (OROYA_ERR_LIMIT). */
#define OROYA_GEOMETRY_MAX_VERTICES (1u << 26)

typedef struct oroya_geometry {
    uint32_t vertex_count;
    uint32_t index_count;  /* a multiple of 3; every index < vertex_count */
    float *positions;      /* vertex_count * 3 */
    float *normals;        /* vertex_count * 3, unit length; NULL when absent */
    float *uvs;            /* vertex_count * 2; NULL when absent. v = 0 at the bottom (three.js) */
    uint32_t *indices;     /* index_count; counter-clockwise front faces */
    /* Optional skinning data (glTF JOINTS_0 / WEIGHTS_0), NULL when absent. The geometry only
     * stores them; the skin module interprets them. */
    uint16_t *joints;      /* vertex_count * 4 */
    float *weights;        /* vertex_count * 4 */
    /* Optional morph targets (glTF targets), deltas per target, target-major:
     * morph_positions[(t * vertex_count + v) * 3 + c]. NULL when absent. */
    uint32_t morph_target_count;
    float *morph_positions; /* morph_target_count * vertex_count * 3, or NULL */
    float *morph_normals;   /* morph_target_count * vertex_count * 3, or NULL */
    /* Bounds of the positions (three.js computeBoundingBox / computeBoundingSphere: the
     * sphere is centred on the box centre with the largest distance as radius). All zero
     * for an empty geometry. */
    oroya_vec3 bounds_min;
    oroya_vec3 bounds_max;
    oroya_vec3 sphere_center;
    float sphere_radius;
    oroya_allocator allocator; /* the allocator it was made with */
} oroya_geometry;

/* Input to oroya_geometry_create. Every array is copied. Zero means "absent". */
typedef struct oroya_geometry_desc {
    uint32_t vertex_count;     /* > 0 */
    const float *positions;    /* vertex_count * 3, finite; required */
    const float *normals;      /* vertex_count * 3, or NULL */
    const float *uvs;          /* vertex_count * 2, or NULL */
    const uint32_t *indices;   /* index_count, or NULL for 0, 1, 2, ... (non-indexed glTF) */
    uint32_t index_count;      /* multiple of 3; with indices NULL must be 0 (then
                                  vertex_count must be a multiple of 3) */
    const uint16_t *joints;    /* vertex_count * 4, or NULL */
    const float *weights;      /* vertex_count * 4, or NULL; required when joints is set */
    uint32_t morph_target_count;
    const float *morph_positions; /* morph_target_count * vertex_count * 3, or NULL */
    const float *morph_normals;   /* morph_target_count * vertex_count * 3, or NULL */
    oroya_allocator allocator;    /* zero: malloc/free */
} oroya_geometry_desc;

/* Copies the desc's arrays into one new geometry and computes its bounds. Errors (err, which
 * may be NULL, names the vertex or index): INVALID_ARGUMENT (NULL desc or out, missing
 * positions, counts that do not fit), OUT_OF_RANGE (an index >= vertex_count), NON_FINITE
 * (a NaN or infinite position, normal or uv), LIMIT (more than OROYA_GEOMETRY_MAX_VERTICES),
 * OUT_OF_MEMORY. *out is NULL on error. */
oroya_result oroya_geometry_create(const oroya_geometry_desc *desc, oroya_geometry **out,
                                   oroya_error *err);

/* A desc whose arrays point into `geometry` (borrowed, valid while it lives), for making a
 * modified copy, such as a generated cylinder with skinning added.
 * Example (given: const oroya_geometry *cyl, uint16_t *joints, float *weights, oroya_error err):
 *   oroya_geometry *skinned = NULL;
 *   oroya_geometry_desc d = oroya_geometry_to_desc(cyl);
 *   d.joints = joints; d.weights = weights;
 *   oroya_geometry_create(&d, &skinned, &err);
 * A NULL geometry gives a zeroed desc. Never allocates. */
oroya_geometry_desc oroya_geometry_to_desc(const oroya_geometry *geometry);

/* Frees the geometry and all its arrays. NULL is accepted. */
void oroya_geometry_destroy(oroya_geometry *geometry);

/* The generators below follow three.js 0.187 (src/geometries/, the *Geometry.js files) exactly: same
 * parameters, same vertex, index and uv order. Segment counts are whole numbers; three.js
 * floors fractional ones, here they are integers already. allocator may be NULL; err may be
 * NULL. Errors: INVALID_ARGUMENT (NULL out, zero segments where three.js would produce NaN,
 * non-finite or negative sizes), LIMIT (too many vertices), OUT_OF_MEMORY. */

/* three.js BoxGeometry(width, height, depth, widthSegments, heightSegments, depthSegments):
 * centred on the origin, faces in the order +x, -x, +y, -y, +z, -z, each a grid with its own
 * vertices (so corners are repeated with per-face normals). Segments >= 1. */
oroya_result oroya_geometry_create_box(float width, float height, float depth,
                                       uint32_t width_segments, uint32_t height_segments,
                                       uint32_t depth_segments, const oroya_allocator *allocator,
                                       oroya_geometry **out, oroya_error *err);

/* three.js SphereGeometry(radius, widthSegments, heightSegments) with the full phi and theta
 * ranges. As in three.js, width_segments below 3 count as 3 and height_segments below 2 as 2.
 * Rows run from the north pole (+y) down; the seam column is repeated for the uvs. */
oroya_result oroya_geometry_create_sphere(float radius, uint32_t width_segments,
                                          uint32_t height_segments,
                                          const oroya_allocator *allocator,
                                          oroya_geometry **out, oroya_error *err);

/* three.js CylinderGeometry(radiusTop, radiusBottom, height, radialSegments, heightSegments,
 * openEnded) with the full theta range: centred on the origin along y, torso first, then the
 * top cap, then the bottom cap (caps skipped when open_ended, or when their radius is 0).
 * Segments >= 1. Translate by height / 2 to stand it on y = 0. */
oroya_result oroya_geometry_create_cylinder(float radius_top, float radius_bottom, float height,
                                            uint32_t radial_segments, uint32_t height_segments,
                                            bool open_ended, const oroya_allocator *allocator,
                                            oroya_geometry **out, oroya_error *err);

/* three.js PlaneGeometry(width, height, widthSegments, heightSegments): in the xy plane,
 * facing +z, rows from top (+y) to bottom. Segments >= 1. */
oroya_result oroya_geometry_create_plane(float width, float height, uint32_t width_segments,
                                         uint32_t height_segments,
                                         const oroya_allocator *allocator, oroya_geometry **out,
                                         oroya_error *err);

/* Moves every position by (x, y, z) and the bounds with them (three.js
 * BufferGeometry.translate). Morph deltas are unchanged. Errors: INVALID_ARGUMENT (NULL),
 * NON_FINITE. Never allocates. */
oroya_result oroya_geometry_translate(oroya_geometry *geometry, float x, float y, float z);

/* Transforms in place (three.js BufferGeometry.applyMatrix4): positions by m, normals by the
 * normal matrix (inverse transpose of m's 3x3) and renormalized, morph position deltas by the
 * 3x3 part, morph normal deltas by the normal matrix (not renormalized: they are deltas);
 * then recomputes the bounds. A mirroring m (negative determinant) does not flip the winding,
 * as in three.js. Errors: INVALID_ARGUMENT (NULL, or singular 3x3 part), NON_FINITE. Never
 * allocates. */
oroya_result oroya_geometry_apply_matrix(oroya_geometry *geometry, const oroya_mat4 *m);

/* Recomputes bounds_min/max and the bounding sphere from the positions (call after editing
 * positions in place). NULL is a no-op. Never allocates. */
void oroya_geometry_compute_bounds(oroya_geometry *geometry);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_GEOMETRY_H */
