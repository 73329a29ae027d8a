/* Skeletons: bone matrices and the bone texture. */
#include "oroya/skeleton.h"

#include "internal/base.h"
#include "internal/skin_math.h"

#include <math.h>
#include <string.h>

/* ---- bone texture ----------------------------------------------------------------------- */

uint32_t oroya_bone_texture_side(uint32_t bone_count) {
    /* The same double expression as three.js, so the sizes agree bit for bit. */
    double size = sqrt((double)bone_count * 4.0);
    size = ceil(size / 4.0) * 4.0;
    if (size < 4.0) size = 4.0;
    return (uint32_t)size;
}

size_t oroya_bone_texture_fill(const float *bone_matrices, uint32_t bone_count, float *out) {
    size_t side = oroya_bone_texture_side(bone_count);
    size_t total = side * side * 4;
    if (!out) return total;
    size_t used = (size_t)bone_count * 16;
    if (used > 0 && !bone_matrices) return 0;
    if (used > 0) memcpy(out, bone_matrices, used * sizeof(float));
    memset(out + used, 0, (total - used) * sizeof(float));
    return total;
}
