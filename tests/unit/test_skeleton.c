/* Skeletons: the bone texture layout against three.js's computeBoneTexture. */
#include "oroya/skeleton.h"
#include "oroya_test.h"

#include <stdlib.h>

/* Sides from three.js's formula worked by hand: sqrt(4n), up to a multiple of 4, at least 4. */
static void test_bone_texture_side(void) {
    const uint32_t n[] = {0, 1, 4, 5, 16, 17, 36, 37, 64, 65, 256, 257, 1024};
    const uint32_t side[] = {4, 4, 4, 8, 8, 12, 12, 16, 16, 20, 32, 36, 64};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        OT_CHECK_MSG(oroya_bone_texture_side(n[i]) == side[i], "%u bones: side %u, expected %u",
                     n[i], oroya_bone_texture_side(n[i]), side[i]);
    }
}

static void test_bone_texture_fill(void) {
    enum { BONES = 5 };
    float m[BONES * 16];
    for (int i = 0; i < BONES * 16; i++) m[i] = (float)(i + 1);
    size_t need = oroya_bone_texture_fill(m, BONES, NULL);
    OT_EQ_INT(need, 8 * 8 * 4);
    float *tex = malloc(need * sizeof(float));
    for (size_t i = 0; i < need; i++) tex[i] = -1.0f;
    OT_EQ_INT(oroya_bone_texture_fill(m, BONES, tex), need);
    /* Texel (x, y) of the 8 x 8 texture is floats 4 * (y * 8 + x) .. + 3: bone b, column c sits
     * at texel 4b + c. Bone 2, column 3 is texel 11 = (3, 1); its G channel is m[2*16+3*4+1]. */
    OT_EQ_INT(tex[4 * (1 * 8 + 3) + 1], m[2 * 16 + 3 * 4 + 1]);
    int same = 1;
    for (int i = 0; i < BONES * 16; i++) same &= tex[i] == m[i];
    OT_CHECK(same);
    int zeros = 1;
    for (size_t i = BONES * 16; i < need; i++) zeros &= tex[i] == 0.0f;
    OT_CHECK(zeros);
    /* No bones: a 4 x 4 texture of zeros. */
    OT_EQ_INT(oroya_bone_texture_fill(NULL, 0, tex), 64);
    OT_CHECK(tex[0] == 0.0f && tex[63] == 0.0f);
    /* Missing matrices with bones to write: 0, nothing written. */
    tex[0] = 7.0f;
    OT_EQ_INT(oroya_bone_texture_fill(NULL, 3, tex), 0);
    OT_CHECK(tex[0] == 7.0f);
    free(tex);
}

int main(void) {
    OT_RUN(test_bone_texture_side);
    OT_RUN(test_bone_texture_fill);
    return ot_finish();
}
