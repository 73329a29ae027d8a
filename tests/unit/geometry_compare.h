/* geometry_compare.h - same_geometry for the geometry tests: two meshes are the same when
 * their counts, positions, normals, uvs and indices are equal bit for bit. */
#ifndef GEOMETRY_COMPARE_H
#define GEOMETRY_COMPARE_H

#include <stdbool.h>
#include <string.h>

#include "oroya/geometry.h"

static inline bool same_geometry(const oroya_geometry *a, const oroya_geometry *b) {
    if (!a || !b || a->vertex_count != b->vertex_count || a->index_count != b->index_count) {
        return false;
    }
    const size_t v = a->vertex_count;
    return memcmp(a->positions, b->positions, v * 3 * sizeof(float)) == 0 &&
           memcmp(a->normals, b->normals, v * 3 * sizeof(float)) == 0 &&
           memcmp(a->uvs, b->uvs, v * 2 * sizeof(float)) == 0 &&
           memcmp(a->indices, b->indices, a->index_count * sizeof(uint32_t)) == 0;
}

#endif
