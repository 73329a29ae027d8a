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
 *   oroya_cylinder_desc d = {.radius_top = 0.5f, .radius_bottom = 0.5f, .height = 2.0f};
 *   if (oroya_geometry_cylinder(&d, &cyl, NULL) == OROYA_OK) {
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
    uint32_t index_count; /* a multiple of 3; every index < vertex_count */
    float *positions;     /* vertex_count * 3 */
    float *normals;       /* vertex_count * 3, unit length; NULL when absent */
    float *uvs;           /* vertex_count * 2; NULL when absent. v = 0 at the bottom (three.js) */
    uint32_t *indices;    /* index_count; counter-clockwise front faces */
    /* Optional skinning data (glTF JOINTS_0 / WEIGHTS_0), NULL when absent. The geometry only
     * stores them; the skin module interprets them. */
    uint16_t *joints; /* vertex_count * 4 */
    float *weights;   /* vertex_count * 4 */
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
    uint32_t vertex_count;   /* > 0 */
    const float *positions;  /* vertex_count * 3, finite; required */
    const float *normals;    /* vertex_count * 3, or NULL */
    const float *uvs;        /* vertex_count * 2, or NULL */
    const uint32_t *indices; /* index_count, or NULL for 0, 1, 2, ... (non-indexed glTF) */
    uint32_t index_count;    /* multiple of 3; with indices NULL must be 0 (then
                                  vertex_count must be a multiple of 3) */
    const uint16_t *joints;  /* vertex_count * 4, or NULL */
    const float *weights;    /* vertex_count * 4, or NULL; required when joints is set */
    uint32_t morph_target_count;
    const float *morph_positions; /* morph_target_count * vertex_count * 3, or NULL */
    const float *morph_normals;   /* morph_target_count * vertex_count * 3, or NULL */
    oroya_allocator allocator;    /* zero: malloc/free */
} oroya_geometry_desc;

/* Copies the desc's arrays into one new geometry and computes its bounds. Errors (err, which
 * may be NULL, names the vertex or index): INVALID_ARGUMENT (NULL desc or out, missing
 * positions, counts that do not fit), OUT_OF_RANGE (an index >= vertex_count), NON_FINITE
 * (a NaN or infinite position, normal or uv, or bounds that do not fit float: positions of
 * 3.3e38 whose bounding sphere's radius overflows, a morph delta that takes a position past
 * float), LIMIT (more than OROYA_GEOMETRY_MAX_VERTICES), OUT_OF_MEMORY. *out is NULL on
 * error. */
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

/* The generators below follow three.js 0.187 (src/geometries/, the *Geometry.js files) exactly:
 * same parameters and defaults, same vertex, index and uv order. Each takes a desc whose zero
 * fields mean three.js's default (written on each field's line), so a zeroed desc (or a NULL
 * one) gives `new THREE.BoxGeometry()` and so on. Segment counts are whole numbers (three.js
 * floors fractional ones). The full angle ranges only (no phiStart/thetaLength slices).
 * err may be NULL. Errors: INVALID_ARGUMENT (NULL out, non-finite sizes, an allocator with
 * only one of alloc and free), LIMIT (more than OROYA_GEOMETRY_MAX_VERTICES), NON_FINITE
 * (bounds that do not fit float: a cylinder of radius and height 3.4e38), OUT_OF_MEMORY;
 * *out is NULL on error. Sizes may be negative, as in three.js (the mesh turns inside out). */

/* three.js BoxGeometry: centred on the origin, faces in the order +x, -x, +y, -y, +z, -z,
 * each a grid with its own vertices (so corners are repeated with per-face normals). */
typedef struct oroya_box_desc {
    float width;               /* along x; 0 means 1 */
    float height;              /* along y; 0 means 1 */
    float depth;               /* along z; 0 means 1 */
    uint32_t width_segments;   /* 0 means 1 */
    uint32_t height_segments;  /* 0 means 1 */
    uint32_t depth_segments;   /* 0 means 1 */
    oroya_allocator allocator; /* zero: malloc/free */
} oroya_box_desc;
oroya_result oroya_geometry_box(const oroya_box_desc *desc, oroya_geometry **out, oroya_error *err);

/* three.js SphereGeometry: centred on the origin; rows run from the north pole (+y) down; the
 * seam column is repeated for the uvs. */
typedef struct oroya_sphere_desc {
    float radius;              /* 0 means 1 */
    uint32_t width_segments;   /* around y; 0 means 32; below 3 counts as 3 (three.js) */
    uint32_t height_segments;  /* pole to pole; 0 means 16; 1 counts as 2 (three.js) */
    oroya_allocator allocator; /* zero: malloc/free */
} oroya_sphere_desc;
oroya_result oroya_geometry_sphere(const oroya_sphere_desc *desc, oroya_geometry **out,
                                   oroya_error *err);

/* three.js CylinderGeometry: centred on the origin along y, torso first, then the top cap,
 * then the bottom cap (caps skipped when open_ended, or at a pointed end). Translate by
 * height / 2 to stand it on y = 0. A zero radius means 1, so a pointed end (three.js's radius
 * 0) is asked for with pointed_top / pointed_bottom. */
typedef struct oroya_cylinder_desc {
    float radius_top;          /* 0 means 1 */
    float radius_bottom;       /* 0 means 1 */
    float height;              /* 0 means 1 */
    uint32_t radial_segments;  /* around y; 0 means 32 */
    uint32_t height_segments;  /* along y; 0 means 1 */
    bool open_ended;           /* no caps; false: both caps */
    bool pointed_top;          /* radius 0 at the top (radius_top ignored); false: radius_top */
    bool pointed_bottom;       /* radius 0 at the bottom (radius_bottom ignored) */
    oroya_allocator allocator; /* zero: malloc/free */
} oroya_cylinder_desc;
oroya_result oroya_geometry_cylinder(const oroya_cylinder_desc *desc, oroya_geometry **out,
                                     oroya_error *err);

/* three.js ConeGeometry: a cylinder with a pointed top (its tip at +height / 2). */
typedef struct oroya_cone_desc {
    float radius;              /* of the base; 0 means 1 */
    float height;              /* 0 means 1 */
    uint32_t radial_segments;  /* 0 means 32 */
    uint32_t height_segments;  /* 0 means 1 */
    bool open_ended;           /* no base cap; false: capped */
    oroya_allocator allocator; /* zero: malloc/free */
} oroya_cone_desc;
oroya_result oroya_geometry_cone(const oroya_cone_desc *desc, oroya_geometry **out,
                                 oroya_error *err);

/* three.js PlaneGeometry: in the xy plane, facing +z, rows from top (+y) to bottom. */
typedef struct oroya_plane_desc {
    float width;               /* along x; 0 means 1 */
    float height;              /* along y; 0 means 1 */
    uint32_t width_segments;   /* 0 means 1 */
    uint32_t height_segments;  /* 0 means 1 */
    oroya_allocator allocator; /* zero: malloc/free */
} oroya_plane_desc;
oroya_result oroya_geometry_plane(const oroya_plane_desc *desc, oroya_geometry **out,
                                  oroya_error *err);

/* Deprecated: the positional forms of the generators above, kept for one release. Unlike
 * the descs, zero here is a value: a zero size is a flat mesh, a zero cylinder radius a
 * pointed end, zero segments INVALID_ARGUMENT (and a zero cylinder height, whose side
 * normals would be NaN). allocator may be NULL. */
OROYA_DEPRECATED("use oroya_geometry_box")
oroya_result oroya_geometry_create_box(float width, float height, float depth,
                                       uint32_t width_segments, uint32_t height_segments,
                                       uint32_t depth_segments, const oroya_allocator *allocator,
                                       oroya_geometry **out, oroya_error *err);
OROYA_DEPRECATED("use oroya_geometry_sphere")
oroya_result oroya_geometry_create_sphere(float radius, uint32_t width_segments,
                                          uint32_t height_segments,
                                          const oroya_allocator *allocator, oroya_geometry **out,
                                          oroya_error *err);
OROYA_DEPRECATED("use oroya_geometry_cylinder or oroya_geometry_cone")
oroya_result oroya_geometry_create_cylinder(float radius_top, float radius_bottom, float height,
                                            uint32_t radial_segments, uint32_t height_segments,
                                            bool open_ended, const oroya_allocator *allocator,
                                            oroya_geometry **out, oroya_error *err);
OROYA_DEPRECATED("use oroya_geometry_plane")
oroya_result oroya_geometry_create_plane(float width, float height, uint32_t width_segments,
                                         uint32_t height_segments, const oroya_allocator *allocator,
                                         oroya_geometry **out, oroya_error *err);

/* Moves every position by (x, y, z) and the bounds with them (three.js
 * BufferGeometry.translate). Morph deltas are unchanged. Errors: INVALID_ARGUMENT (NULL),
 * NON_FINITE (a NaN or infinite offset, or a position or bound it would take past float:
 * nothing is moved). Never allocates. */
oroya_result oroya_geometry_translate(oroya_geometry *geometry, float x, float y, float z);

/* Transforms in place (three.js BufferGeometry.applyMatrix4): positions by m, normals by the
 * normal matrix (inverse transpose of m's 3x3) and renormalized, morph position deltas by the
 * 3x3 part, morph normal deltas by the normal matrix (not renormalized: they are deltas);
 * then recomputes the bounds. A mirroring m (negative determinant) does not flip the winding,
 * as in three.js. Errors: INVALID_ARGUMENT (NULL, or singular 3x3 part), NON_FINITE (a NaN or
 * infinite element, or a position, morph delta or bound it would take past float: nothing is
 * changed). Never allocates. */
oroya_result oroya_geometry_apply_matrix(oroya_geometry *geometry, const oroya_mat4 *m);

/* Recomputes bounds_min/max and the bounding sphere from the positions (call after editing
 * positions in place). NULL is a no-op. Never allocates. */
void oroya_geometry_compute_bounds(oroya_geometry *geometry);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_GEOMETRY_H */
