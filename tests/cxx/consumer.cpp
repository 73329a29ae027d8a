// A C++ program that uses liboroya (and liboroya_render when OROYA_TEST_RENDER is defined) the
// way a C++ application would: RAII over the C handles, value-initialized descs, nullptr.
// Built by tests/cxx/test_cxx_consumer.sh and tests/install/check_install.sh as C++11 and
// C++17 with -Wall -Wextra -pedantic -Werror.
#include <oroya/oroya.h>
#ifdef OROYA_TEST_RENDER
#include <oroya/render.h>
#endif
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace {
struct model_free {
    void operator()(oroya_gltf_model *m) const { oroya_gltf_model_free(m); }
};
struct rig_free {
    void operator()(oroya_rig *r) const { oroya_rig_destroy(r); }
};
struct mixer_free {
    void operator()(oroya_mixer *m) const { oroya_mixer_destroy(m); }
};
} // namespace

// Prints the skin's joint count and bone 0's y translation after one 1/30 s update.
int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: consumer FILE.glb\n");
        return 2;
    }
    oroya_error err = {};
    oroya_gltf_model *raw_model = nullptr;
    if (oroya_gltf_load(argv[1], nullptr, &raw_model, &err) != OROYA_OK) {
        std::fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    std::unique_ptr<oroya_gltf_model, model_free> model(raw_model);
    oroya_rig *raw_rig = nullptr;
    if (model->clip_count == 0 ||
        oroya_rig_create_gltf(model.get(), 0, nullptr, &raw_rig, &err) != OROYA_OK) {
        std::fprintf(stderr, "no clip or no rig: %s\n", err.message);
        return 1;
    }
    std::unique_ptr<oroya_rig, rig_free> rig(raw_rig);
    oroya_mixer_desc desc = {};
    desc.rig = rig.get();
    oroya_mixer *raw_mixer = nullptr;
    if (oroya_mixer_create(model->scene, &desc, &raw_mixer) != OROYA_OK) {
        return 1;
    }
    std::unique_ptr<oroya_mixer, mixer_free> mixer(raw_mixer);
    oroya_action *action = nullptr;
    if (oroya_mixer_play(mixer.get(), model->clips[0], &action) != OROYA_OK ||
        oroya_mixer_update(mixer.get(), 1.0 / 30.0) != OROYA_OK) {
        return 1;
    }
    uint32_t count = 0;
    const oroya_mat4 *bones = oroya_mixer_bone_matrices(mixer.get(), &count);
    std::vector<float> bone0(bones[0].m, bones[0].m + 16);
    oroya_quat q = oroya_quat_slerp(oroya_quat_identity(), oroya_quat_identity(), 0.5f);
#ifdef OROYA_TEST_RENDER
    const char *vs = oroya_render_shader_source(OROYA_RENDER_SHADER_VERTEX);
    if (!vs || std::strlen(vs) == 0) {
        return 1;
    }
#endif
    std::printf("%u %.4f %.1f\n", count, static_cast<double>(bone0[13]), static_cast<double>(q.w));
    return 0;
}
