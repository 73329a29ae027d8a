/* oroya/skeleton.h - skeletons: bone order, inverse bind matrices, bone matrices, the bone
 * texture.
 *
 * BONE TEXTURE PART ONLY (the scene-bound skeleton arrives with the scene module).
 */
#ifndef OROYA_SKELETON_H
#define OROYA_SKELETON_H

#include "oroya/base.h"
#include "oroya/math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Side in texels of the square bone texture for bone_count bones, exactly as three.js's
 * Skeleton.computeBoneTexture: max(4, ceil(sqrt(4 * bone_count) / 4) * 4). 4 for 0 to 4
 * bones, 8 up to 16, 12 up to 36, 16 up to 64. */
uint32_t oroya_bone_texture_side(uint32_t bone_count);

/* Fills the RGBA32F bone texture from bone_matrices (16 floats per bone, column-major): texel
 * 4b + c holds column c of bone b, texels run row by row (x fastest) over a side x side
 * texture, and everything after the last matrix is zero. This is three.js's layout: the
 * matrices, flat, followed by zero padding. Returns the number of floats written,
 * side * side * 4; with out == NULL writes nothing and returns that count (a size query).
 * Returns 0 and writes nothing when bone_matrices is NULL with bone_count > 0 and out set.
 * Never allocates. */
size_t oroya_bone_texture_fill(const float *bone_matrices, uint32_t bone_count, float *out);

#ifdef __cplusplus
}
#endif

#endif /* OROYA_SKELETON_H */
