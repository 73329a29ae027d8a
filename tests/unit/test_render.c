/* Tests of the offscreen renderer and the image writers.
 *
 * Expected values come from hand computation (the lit-quad pixel, coverage of an orthographic
 * quad, the bone texture side), from independent plain-loop references written here (CPU
 * skinning and CPU morphing, rendered as plain meshes and compared with the GPU paths), from
 * reading files back with independent decoders (stb_image, giflib's DGifSlurp), and from a
 * golden PNG (tests/golden/render_cube_128.png, a regression reference checked by eye and by
 * the analytic test; regenerate with OROYA_UPDATE_GOLDEN=1).
 *
 * LeakSanitizer: Mesa leaks a few blocks inside eglTerminate, allocated by a driver module it
 * has already unloaded (LeakSanitizer reports "<unknown module>", so no suppression can name
 * it) and no application can free. Leak detection is therefore off for this program only;
 * ASan's other checks stay on. */
#include <gif_lib.h>
#include <stb_image.h>
#include <stdlib.h>

#include "oroya/render.h"
#include "oroya_test.h"

const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
/* `make test-asan` sets ASAN_OPTIONS=detect_leaks=1, which overrides the default above. So
 * main() runs LeakSanitizer itself while the EGL display is still alive (Mesa's blocks are
 * then reachable and not reported, our own leaks are), and leaves with _Exit after
 * eglTerminate so the exit-time check does not run. The symbols are weak: they exist only in
 * sanitized builds. */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

#define W 128
#define H 128
#define PI_F 3.14159265358979f

static oroya_renderer *renderer;

/* ---- helpers --------------------------------------------------------------------------- */

static float linear_to_srgb(float c) { return powf(c < 0 ? 0 : c > 1 ? 1 : c, 1.0f / 2.2f); }

typedef struct diff_stats {
    double mean;   /* mean absolute channel difference */
    uint32_t over; /* pixels with a channel difference > threshold */
    int max;
} diff_stats;

static diff_stats compare(const uint8_t *a, const uint8_t *b, size_t pixels, int threshold) {
    diff_stats s = {0, 0, 0};
    double total = 0;
    for (size_t i = 0; i < pixels; i++) {
        int worst = 0;
        for (int c = 0; c < 4; c++) {
            int d = abs((int)a[i * 4 + (size_t)c] - (int)b[i * 4 + (size_t)c]);
            total += d;
            if (d > worst)
                worst = d;
        }
        if (worst > threshold)
            s.over++;
        if (worst > s.max)
            s.max = worst;
    }
    s.mean = total / (double)(pixels * 4);
    return s;
}

static const uint8_t *pixel(const uint8_t *img, int x, int y) {
    return img + ((size_t)y * W + (size_t)x) * 4;
}

/* A unit cube centered at the origin, 24 vertices with face normals. Each face has tangents
 * u, v with u x v = n, and its corners go counter-clockwise seen from outside. */
static void make_cube(float *pos, float *nrm, uint32_t *idx) {
    static const float faces[6][3][3] = {
        {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
        {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
        {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},  {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
    };
    static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int f = 0; f < 6; f++) {
        const float *n = faces[f][0], *u = faces[f][1], *v = faces[f][2];
        for (int c = 0; c < 4; c++) {
            int k = f * 4 + c;
            for (int a = 0; a < 3; a++) {
                pos[k * 3 + a] = 0.5f * (n[a] + corners[c][0] * u[a] + corners[c][1] * v[a]);
                nrm[k * 3 + a] = n[a];
            }
        }
        uint32_t b0 = (uint32_t)f * 4;
        uint32_t tri[6] = {b0, b0 + 1, b0 + 2, b0, b0 + 2, b0 + 3};
        memcpy(&idx[f * 6], tri, sizeof tri);
    }
}

static oroya_render_view default_view(oroya_vec3 eye, oroya_vec3 target,
                                      const oroya_render_light *lights, uint32_t light_count) {
    oroya_render_view v = {0};
    v.view = oroya_render_look_at(eye, target, (oroya_vec3){0, 1, 0});
    v.projection = oroya_render_perspective(45.0f, 1.0f, 0.1f, 100.0f);
    v.background[0] = 0.1f;
    v.background[1] = 0.12f;
    v.background[2] = 0.15f;
    v.background[3] = 1.0f;
    v.lights = lights;
    v.light_count = light_count;
    return v;
}

static bool render_one(const oroya_render_view *view, const oroya_render_draw_desc *draws, int n,
                       uint8_t *out) {
    oroya_error err = {0};
    bool ok = oroya_render_begin(renderer, view, &err) == OROYA_OK;
    for (int i = 0; ok && i < n; i++)
        ok = oroya_render_draw(renderer, &draws[i], &err) == OROYA_OK;
    ok = ok && oroya_render_end(renderer, &err) == OROYA_OK;
    ok = ok && oroya_render_read_pixels(renderer, out, (size_t)W * H * 4, &err) == OROYA_OK;
    if (!ok)
        fprintf(stderr, "render failed: %s\n", err.message);
    return ok;
}

/* ---- tests ----------------------------------------------------------------------------- */

/* An orthographic camera looks down -z at a quad in the z = 0 plane covering x, y in
 * [-0.5, 0.5]; the view spans [-1, 1], so the quad covers pixels 32..95 exactly. A directional
 * light hits it at 60 degrees from the normal (n.l = 0.5). By hand: roughness 1 gives
 * shininess 0, so the specular term is (0 + 8) / (8 pi) = 1/pi times F0 = 0.04; the color is
 * light * n.l * (base + 0.04 / pi) + ambient * base (colors are linear), then encoded with
 * the 2.2 gamma. */
static void test_lit_quad_by_hand(void) {
    static const float pos[] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0.5f, 0.5f, 0, -0.5f, 0.5f, 0};
    static const float nrm[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    oroya_error err = {0};
    oroya_render_mesh quad;
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = pos,
                                                                 .normals = nrm,
                                                                 .vertex_count = 4,
                                                                 .indices = idx,
                                                                 .index_count = 6},
                                       &quad, &err),
              OROYA_OK);
    oroya_render_light lights[2] = {
        {.type = OROYA_RENDER_LIGHT_DIRECTIONAL,
         .color = {1, 1, 1},
         .intensity = 0.8f,
         .direction = {-sinf(PI_F / 3), 0, -cosf(PI_F / 3)}},
        {.type = OROYA_RENDER_LIGHT_AMBIENT, .color = {1, 1, 1}, .intensity = 0.2f},
    };
    oroya_render_view view = {0};
    view.view =
        oroya_render_look_at((oroya_vec3){0, 0, 5}, (oroya_vec3){0, 0, 0}, (oroya_vec3){0, 1, 0});
    view.projection = oroya_render_orthographic(-1, 1, -1, 1, 0.1f, 10);
    view.background[3] = 1.0f;
    view.lights = lights;
    view.light_count = 2;
    oroya_render_draw_desc draw = {
        .mesh = quad, .material = {.base_color = {0.6f, 0.4f, 0.2f, 1}, .roughness = 1.0f}};
    uint8_t *img = malloc((size_t)W * H * 4);
    OT_CHECK(render_one(&view, &draw, 1, img));
    float base[3] = {0.6f, 0.4f, 0.2f};
    for (int c = 0; c < 3; c++) {
        float lin = base[c];
        float expected = linear_to_srgb(0.8f * 0.5f * (lin + 0.04f / PI_F) + 0.2f * lin) * 255.0f;
        OT_NEAR(pixel(img, 64, 64)[c], expected, 1.5);
        OT_NEAR(pixel(img, 33, 94)[c], expected, 1.5);
    }
    OT_EQ_INT(pixel(img, 64, 64)[3], 255);
    /* Coverage: inside at 32 and 95, background (black) at 31 and 96. */
    OT_CHECK(pixel(img, 32, 64)[0] > 50 && pixel(img, 95, 64)[0] > 50);
    OT_CHECK(pixel(img, 64, 32)[0] > 50 && pixel(img, 64, 95)[0] > 50);
    OT_EQ_INT(pixel(img, 31, 64)[0], 0);
    OT_EQ_INT(pixel(img, 96, 64)[0], 0);
    OT_EQ_INT(pixel(img, 64, 31)[0], 0);
    OT_EQ_INT(pixel(img, 64, 96)[0], 0);
    /* Orientation: a quad moved up (+y) appears in the top rows of the image (top row first). */
    draw.model =
        oroya_mat4_compose((oroya_vec3){0, 0.6f, 0}, oroya_quat_identity(), (oroya_vec3){1, 1, 1});
    OT_CHECK(render_one(&view, &draw, 1, img));
    OT_CHECK(pixel(img, 64, 20)[0] > 50);
    OT_EQ_INT(pixel(img, 64, 110)[0], 0);
    /* Unlit draws the base color, only encoded. */
    draw.material.unlit = true;
    OT_CHECK(render_one(&view, &draw, 1, img));
    OT_NEAR(pixel(img, 64, 20)[0], linear_to_srgb(0.6f) * 255, 1.0);
    OT_NEAR(pixel(img, 64, 20)[1], linear_to_srgb(0.4f) * 255, 1.0);
    OT_NEAR(pixel(img, 64, 20)[2], linear_to_srgb(0.2f) * 255, 1.0);
    /* Back faces are culled unless the material is double-sided: seen from behind (the quad
     * turned half a turn about y), the single-sided quad vanishes. */
    draw.material.unlit = false;
    draw.model = oroya_mat4_compose((oroya_vec3){0, 0, 0},
                                    oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, PI_F),
                                    (oroya_vec3){1, 1, 1});
    OT_CHECK(render_one(&view, &draw, 1, img));
    OT_EQ_INT(pixel(img, 64, 64)[0], 0);
    draw.material.double_sided = true;
    OT_CHECK(render_one(&view, &draw, 1, img));
    for (int c = 0; c < 3; c++) {
        /* The back face is lit with the flipped normal, which now faces the camera, while
         * the light still comes from +z, so n.l is the same 0.5: the same color as the front. */
        float lin = base[c];
        float expected = linear_to_srgb(0.8f * 0.5f * (lin + 0.04f / PI_F) + 0.2f * lin) * 255.0f;
        OT_NEAR(pixel(img, 64, 64)[c], expected, 1.5);
    }
    /* A zero normal (opposite faces cancelling in computed normals, a file's NORMAL of zeros)
     * is lit as facing the camera, here (0, 0, 1) as above: the same color. normalize(0)
     * gave NaN in the shader. */
    static const float zero_nrm[12] = {0};
    oroya_render_mesh flat;
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = pos,
                                                                 .normals = zero_nrm,
                                                                 .vertex_count = 4,
                                                                 .indices = idx,
                                                                 .index_count = 6},
                                       &flat, &err),
              OROYA_OK);
    draw = (oroya_render_draw_desc){
        .mesh = flat, .material = {.base_color = {0.6f, 0.4f, 0.2f, 1}, .roughness = 1.0f}};
    OT_CHECK(render_one(&view, &draw, 1, img));
    for (int c = 0; c < 3; c++) {
        float lin = base[c];
        float expected = linear_to_srgb(0.8f * 0.5f * (lin + 0.04f / PI_F) + 0.2f * lin) * 255.0f;
        OT_NEAR(pixel(img, 64, 64)[c], expected, 1.5);
    }
    oroya_render_mesh_destroy(renderer, flat);
    oroya_render_mesh_destroy(renderer, quad);
    free(img);
}

static void cube_scene(oroya_render_mesh cube, oroya_render_view *view,
                       oroya_render_draw_desc *draw, oroya_render_light *lights) {
    lights[0] = (oroya_render_light){.type = OROYA_RENDER_LIGHT_DIRECTIONAL,
                                     .color = {1, 0.95f, 0.9f},
                                     .intensity = 1.0f,
                                     .direction = {-0.4f, -1.0f, -0.6f}};
    lights[1] = (oroya_render_light){.type = OROYA_RENDER_LIGHT_POINT,
                                     .color = {0.3f, 0.5f, 1.0f},
                                     .intensity = 6.0f,
                                     .position = {-2, 1, 2},
                                     .range = 10};
    lights[2] = (oroya_render_light){
        .type = OROYA_RENDER_LIGHT_AMBIENT, .color = {1, 1, 1}, .intensity = 0.15f};
    *view = default_view((oroya_vec3){2.2f, 1.8f, 3.0f}, (oroya_vec3){0, 0, 0}, lights, 3);
    *draw = (oroya_render_draw_desc){
        .mesh = cube,
        .material = {.base_color = {0.9f, 0.35f, 0.2f, 1}, .metallic = 0.0f, .roughness = 0.35f}};
    draw->model = oroya_mat4_compose((oroya_vec3){0, 0, 0},
                                     oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, 0.4f),
                                     (oroya_vec3){1, 1, 1});
}

static void test_cube_golden(void) {
    float pos[72], nrm[72];
    uint32_t idx[36];
    make_cube(pos, nrm, idx);
    oroya_error err = {0};
    oroya_render_mesh cube;
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = pos,
                                                                 .normals = nrm,
                                                                 .vertex_count = 24,
                                                                 .indices = idx,
                                                                 .index_count = 36},
                                       &cube, &err),
              OROYA_OK);
    oroya_render_view view;
    oroya_render_draw_desc draw;
    oroya_render_light lights[3];
    cube_scene(cube, &view, &draw, lights);
    uint8_t *img = malloc((size_t)W * H * 4);
    OT_CHECK(render_one(&view, &draw, 1, img));
    const char *golden = OROYA_SOURCE_DIR "/tests/golden/render_cube_128.png";
    if (getenv("OROYA_UPDATE_GOLDEN")) {
        OT_EQ_INT(oroya_image_write_png(golden, W, H, img, &err), OROYA_OK);
    }
    int gw = 0, gh = 0, gc = 0;
    uint8_t *ref = stbi_load(golden, &gw, &gh, &gc, 4);
    OT_CHECK_MSG(ref != NULL, "cannot read %s", golden);
    if (ref) {
        OT_EQ_INT(gw, W);
        OT_EQ_INT(gh, H);
        diff_stats s = compare(img, ref, (size_t)W * H, 6);
        OT_CHECK_MSG(s.over <= W * H / 200 && s.mean < 1.0,
                     "golden: %u pixels off by > 6, mean %.3f, max %d", s.over, s.mean, s.max);
        stbi_image_free(ref);
    }
    /* The cube is lit from above: its top face is brighter than the face toward +x. */
    oroya_render_mesh_destroy(renderer, cube);
    free(img);
}

/* The tutorial's cylinder (003): height 4, radius 0.35, 16 x 24 segments, open ended, base at
 * y = 0, 5 bones 1 unit apart with weights linear between consecutive bones. Vertices are
 * generated as three.js CylinderGeometry orders them (row by row from the top). */
#define CYL_RADIAL 16
#define CYL_HEIGHT 24
#define CYL_VERTS ((CYL_RADIAL + 1) * (CYL_HEIGHT + 1))
#define CYL_INDICES (CYL_RADIAL * CYL_HEIGHT * 6)
#define BONES 5

static void make_cylinder(float *pos, float *nrm, uint32_t *idx, uint16_t *joints, float *weights) {
    int v = 0;
    for (int y = 0; y <= CYL_HEIGHT; y++) {
        float vv = (float)y / CYL_HEIGHT;
        for (int x = 0; x <= CYL_RADIAL; x++) {
            float u = (float)x / CYL_RADIAL, theta = u * 2 * PI_F;
            float s = sinf(theta), c = cosf(theta);
            pos[v * 3] = 0.35f * s;
            pos[v * 3 + 1] = -vv * 4.0f + 2.0f + 2.0f; /* three.js: -v*height + height/2, then +2 */
            pos[v * 3 + 2] = 0.35f * c;
            nrm[v * 3] = s;
            nrm[v * 3 + 1] = 0;
            nrm[v * 3 + 2] = c;
            float t = pos[v * 3 + 1] / 1.0f;
            int lower = (int)floorf(t);
            if (lower > BONES - 2)
                lower = BONES - 2;
            float w = t - (float)lower;
            joints[v * 4] = (uint16_t)lower;
            joints[v * 4 + 1] = (uint16_t)(lower + 1);
            joints[v * 4 + 2] = 0;
            joints[v * 4 + 3] = 0;
            weights[v * 4] = 1 - w;
            weights[v * 4 + 1] = w;
            weights[v * 4 + 2] = 0;
            weights[v * 4 + 3] = 0;
            v++;
        }
    }
    int k = 0;
    for (int x = 0; x < CYL_RADIAL; x++) {
        for (int y = 0; y < CYL_HEIGHT; y++) {
            uint32_t a = (uint32_t)(y * (CYL_RADIAL + 1) + x),
                     b = (uint32_t)((y + 1) * (CYL_RADIAL + 1) + x);
            uint32_t c = b + 1, d = a + 1;
            uint32_t tri[6] = {a, b, d, b, c, d};
            memcpy(&idx[k], tri, sizeof tri);
            k += 6;
        }
    }
}

/* Bone matrices for the tutorial's pose at time t, with the mesh (and the bones hanging from
 * it) placed by `mesh_world`: bone_matrix = bone_world * inverse(bone_world at bind). */
static void cylinder_bones(float t, oroya_mat4 mesh_world, float *out) {
    oroya_mat4 world = mesh_world, rest = mesh_world;
    for (int i = 0; i < BONES; i++) {
        float angle = i == 0 ? 0.0f : sinf(t * 1.5f + (float)i * 0.6f) * 0.35f;
        oroya_vec3 tr = {0, i == 0 ? 0.0f : 1.0f, 0};
        oroya_mat4 local = oroya_mat4_compose(
            tr, oroya_quat_from_axis_angle((oroya_vec3){0, 0, 1}, angle), (oroya_vec3){1, 1, 1});
        oroya_mat4 local_rest =
            oroya_mat4_compose(tr, oroya_quat_identity(), (oroya_vec3){1, 1, 1});
        world = oroya_mat4_mul(world, local);
        rest = oroya_mat4_mul(rest, local_rest);
        oroya_mat4 inv;
        oroya_mat4_invert(rest, &inv);
        oroya_mat4 m = oroya_mat4_mul(world, inv);
        memcpy(out + i * 16, m.m, sizeof m.m);
    }
}

/* v' = bind_inv * sum(w_i * B_i) * bind * v, written out with plain loops. */
static void cpu_skin(const float *pos, const float *nrm, const uint16_t *joints,
                     const float *weights, const float *bones, const oroya_mat4 *bind,
                     const oroya_mat4 *bind_inv, float *out_pos, float *out_nrm) {
    for (int v = 0; v < CYL_VERTS; v++) {
        float s[16] = {0};
        for (int k = 0; k < 4; k++) {
            float w = weights[v * 4 + k];
            for (int e = 0; e < 16; e++)
                s[e] += w * bones[joints[v * 4 + k] * 16 + e];
        }
        float t1[16], t2[16];
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 4; r++) {
                float a = 0;
                for (int k = 0; k < 4; k++)
                    a += s[k * 4 + r] * bind->m[c * 4 + k];
                t1[c * 4 + r] = a;
            }
        }
        for (int c = 0; c < 4; c++) {
            for (int r = 0; r < 4; r++) {
                float a = 0;
                for (int k = 0; k < 4; k++)
                    a += bind_inv->m[k * 4 + r] * t1[c * 4 + k];
                t2[c * 4 + r] = a;
            }
        }
        float n[3] = {0, 0, 0}, len = 0;
        for (int r = 0; r < 3; r++) {
            out_pos[v * 3 + r] = t2[12 + r];
            for (int k = 0; k < 3; k++) {
                out_pos[v * 3 + r] += t2[k * 4 + r] * pos[v * 3 + k];
                n[r] += t2[k * 4 + r] * nrm[v * 3 + k];
            }
            len += n[r] * n[r];
        }
        len = sqrtf(len);
        for (int r = 0; r < 3; r++)
            out_nrm[v * 3 + r] = n[r] / len;
    }
}

static void test_gpu_skinning_matches_cpu(void) {
    static float pos[CYL_VERTS * 3], nrm[CYL_VERTS * 3], weights[CYL_VERTS * 4];
    static float skinned_pos[CYL_VERTS * 3], skinned_nrm[CYL_VERTS * 3];
    static uint32_t idx[CYL_INDICES];
    static uint16_t joints[CYL_VERTS * 4];
    make_cylinder(pos, nrm, idx, joints, weights);
    oroya_error err = {0};
    oroya_render_mesh skinned, rest, cpu;
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = pos,
                                                                 .normals = nrm,
                                                                 .vertex_count = CYL_VERTS,
                                                                 .indices = idx,
                                                                 .index_count = CYL_INDICES,
                                                                 .skin_indices = joints,
                                                                 .skin_weights = weights},
                                       &skinned, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = pos,
                                                                 .normals = nrm,
                                                                 .vertex_count = CYL_VERTS,
                                                                 .indices = idx,
                                                                 .index_count = CYL_INDICES},
                                       &rest, &err),
              OROYA_OK);
    /* A mesh placed off the origin and turned, so the bind matrices are not the identity. */
    oroya_mat4 mesh_world = oroya_mat4_compose(
        (oroya_vec3){0.4f, -0.3f, 0}, oroya_quat_from_axis_angle((oroya_vec3){0, 1, 0}, 0.3f),
        (oroya_vec3){1, 1, 1});
    oroya_mat4 bind_inv;
    oroya_mat4_invert(mesh_world, &bind_inv);
    float bones[BONES * 16];
    cylinder_bones(1.3f, mesh_world, bones);
    cpu_skin(pos, nrm, joints, weights, bones, &mesh_world, &bind_inv, skinned_pos, skinned_nrm);
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = skinned_pos,
                                                                 .normals = skinned_nrm,
                                                                 .vertex_count = CYL_VERTS,
                                                                 .indices = idx,
                                                                 .index_count = CYL_INDICES},
                                       &cpu, &err),
              OROYA_OK);
    oroya_render_light lights[2] = {
        {.type = OROYA_RENDER_LIGHT_DIRECTIONAL,
         .color = {1, 1, 1},
         .intensity = 1,
         .direction = {-0.3f, -0.5f, -1}},
        {.type = OROYA_RENDER_LIGHT_AMBIENT, .color = {1, 1, 1}, .intensity = 0.2f}};
    oroya_render_view view = default_view((oroya_vec3){0, 2, 8}, (oroya_vec3){0, 2, 0}, lights, 2);
    oroya_render_material mat = {
        .base_color = {0.3f, 0.6f, 0.9f, 1}, .roughness = 0.6f, .metallic = 0.1f};
    uint8_t *gpu_img = malloc((size_t)W * H * 4), *cpu_img = malloc((size_t)W * H * 4);
    uint8_t *rest_img = malloc((size_t)W * H * 4);
    oroya_render_draw_desc d = {.mesh = skinned,
                                .material = mat,
                                .model = mesh_world,
                                .bone_matrices = bones,
                                .bone_count = BONES,
                                .bind_matrix = mesh_world,
                                .bind_matrix_inverse = bind_inv};
    OT_CHECK(render_one(&view, &d, 1, gpu_img));
    oroya_render_draw_desc dc = {.mesh = cpu, .material = mat, .model = mesh_world};
    OT_CHECK(render_one(&view, &dc, 1, cpu_img));
    oroya_render_draw_desc dr = {.mesh = rest, .material = mat, .model = mesh_world};
    OT_CHECK(render_one(&view, &dr, 1, rest_img));
    if (getenv("OROYA_RENDER_DUMP")) {
        oroya_image_write_png(OROYA_BINARY_DIR "/skin_gpu.png", W, H, gpu_img, &err);
        oroya_image_write_png(OROYA_BINARY_DIR "/skin_cpu.png", W, H, cpu_img, &err);
        oroya_image_write_png(OROYA_BINARY_DIR "/skin_rest.png", W, H, rest_img, &err);
    }
    diff_stats s = compare(gpu_img, cpu_img, (size_t)W * H, 4);
    printf("GPU vs CPU skinning: %u pixels off by > 4, mean %.4f, max %d\n", s.over, s.mean, s.max);
    OT_CHECK_MSG(s.over <= 8 && s.mean < 0.2,
                 "GPU vs CPU skinning: %u pixels off by > 4, mean %.3f", s.over, s.mean);
    /* The pose really bends the cylinder: the rest pose looks different. */
    diff_stats r = compare(gpu_img, rest_img, (size_t)W * H, 4);
    OT_CHECK_MSG(r.over > 200, "skinned and rest renders should differ (%u pixels)", r.over);

    /* A bone index beyond the palette is refused with the vertex named. */
    d.bone_count = 3;
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_OK);
    OT_EQ_INT(oroya_render_draw(renderer, &d, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK(strstr(err.message, "uses bone 4") != NULL);
    d.bone_matrices = NULL;
    OT_EQ_INT(oroya_render_draw(renderer, &d, &err), OROYA_ERR_INVALID_ARGUMENT);
    d.bone_matrices = bones;
    d.bone_count = BONES;
    bones[3 * 16 + 5] = NAN;
    OT_EQ_INT(oroya_render_draw(renderer, &d, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK(strstr(err.message, "bone 3") != NULL);
    OT_EQ_INT(oroya_render_end(renderer, &err), OROYA_OK);

    oroya_render_mesh_destroy(renderer, skinned);
    oroya_render_mesh_destroy(renderer, rest);
    oroya_render_mesh_destroy(renderer, cpu);
    free(gpu_img);
    free(cpu_img);
    free(rest_img);
}

/* Many bones (70: a 20 x 20 texture, several rows) with every vertex bound to one bone that
 * moves it by a known offset; the GPU result must equal the CPU-moved mesh. */
static void test_gpu_skinning_many_bones(void) {
    enum { N = 70 };
    float pos[72], nrm[72], moved[72];
    uint32_t idx[36];
    make_cube(pos, nrm, idx);
    uint16_t joints[24 * 4] = {0};
    float weights[24 * 4] = {0};
    for (int v = 0; v < 24; v++) {
        joints[v * 4] = 69;
        joints[v * 4 + 1] = 3; /* weight 0: must contribute nothing */
        weights[v * 4] = 1;
    }
    static float bones[N * 16];
    for (int b = 0; b < N; b++) {
        oroya_mat4 m = oroya_mat4_compose((oroya_vec3){(float)b * 0.01f, 0, 0},
                                          oroya_quat_identity(), (oroya_vec3){1, 1, 1});
        memcpy(bones + b * 16, m.m, sizeof m.m);
    }
    for (int v = 0; v < 24; v++) {
        moved[v * 3] = pos[v * 3] + 0.69f;
        moved[v * 3 + 1] = pos[v * 3 + 1];
        moved[v * 3 + 2] = pos[v * 3 + 2];
    }
    oroya_error err = {0};
    oroya_render_mesh sk, plain;
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = pos,
                                                                 .normals = nrm,
                                                                 .vertex_count = 24,
                                                                 .indices = idx,
                                                                 .index_count = 36,
                                                                 .skin_indices = joints,
                                                                 .skin_weights = weights},
                                       &sk, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = moved,
                                                                 .normals = nrm,
                                                                 .vertex_count = 24,
                                                                 .indices = idx,
                                                                 .index_count = 36},
                                       &plain, &err),
              OROYA_OK);
    oroya_render_light lights[1] = {{.type = OROYA_RENDER_LIGHT_DIRECTIONAL,
                                     .color = {1, 1, 1},
                                     .intensity = 1,
                                     .direction = {-0.3f, -0.6f, -1}}};
    oroya_render_view view =
        default_view((oroya_vec3){0.5f, 1.5f, 4}, (oroya_vec3){0.5f, 0, 0}, lights, 1);
    uint8_t *a = malloc((size_t)W * H * 4), *b = malloc((size_t)W * H * 4);
    OT_CHECK(render_one(&view,
                        &(oroya_render_draw_desc){.mesh = sk,
                                                  .material = oroya_render_material_default(),
                                                  .bone_matrices = bones,
                                                  .bone_count = N},
                        1, a));
    OT_CHECK(render_one(
        &view,
        &(oroya_render_draw_desc){.mesh = plain, .material = oroya_render_material_default()}, 1,
        b));
    diff_stats s = compare(a, b, (size_t)W * H, 4);
    OT_CHECK_MSG(s.over <= 4, "70-bone GPU skinning vs moved cube: %u pixels off", s.over);
    /* Eight influences: half on bone 10 (+0.10 x) in the first set, half on bone 69 (+0.69 x)
     * in the second, so the cube moves by 0.395. */
    uint16_t joints2[24 * 4] = {0};
    float weights2[24 * 4] = {0};
    for (int v = 0; v < 24; v++) {
        joints[v * 4] = 10;
        weights[v * 4] = 0.5f;
        joints2[v * 4 + 2] = 69;
        weights2[v * 4 + 2] = 0.5f;
        moved[v * 3] = pos[v * 3] + 0.395f;
    }
    oroya_render_mesh sk8, plain8;
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = pos,
                                                                 .normals = nrm,
                                                                 .vertex_count = 24,
                                                                 .indices = idx,
                                                                 .index_count = 36,
                                                                 .skin_indices = joints,
                                                                 .skin_weights = weights,
                                                                 .skin_indices2 = joints2,
                                                                 .skin_weights2 = weights2},
                                       &sk8, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = moved,
                                                                 .normals = nrm,
                                                                 .vertex_count = 24,
                                                                 .indices = idx,
                                                                 .index_count = 36},
                                       &plain8, &err),
              OROYA_OK);
    OT_CHECK(render_one(&view,
                        &(oroya_render_draw_desc){.mesh = sk8,
                                                  .material = oroya_render_material_default(),
                                                  .bone_matrices = bones,
                                                  .bone_count = N},
                        1, a));
    OT_CHECK(render_one(
        &view,
        &(oroya_render_draw_desc){.mesh = plain8, .material = oroya_render_material_default()}, 1,
        b));
    s = compare(a, b, (size_t)W * H, 4);
    OT_CHECK_MSG(s.over <= 4, "8-influence GPU skinning vs moved cube: %u pixels off", s.over);
    /* The second set's indices are range-checked too (bone 69 with 11 bones). */
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_OK);
    OT_EQ_INT(
        oroya_render_draw(renderer,
                          &(oroya_render_draw_desc){.mesh = sk8,
                                                    .bone_matrices = bones,
                                                    .bone_count = 70,
                                                    .material = oroya_render_material_default()},
                          &err),
        OROYA_OK);
    OT_EQ_INT(
        oroya_render_draw(renderer,
                          &(oroya_render_draw_desc){.mesh = sk8,
                                                    .bone_matrices = bones,
                                                    .bone_count = 11,
                                                    .material = oroya_render_material_default()},
                          &err),
        OROYA_ERR_OUT_OF_RANGE);
    OT_EQ_INT(oroya_render_end(renderer, &err), OROYA_OK);
    oroya_render_mesh_destroy(renderer, sk8);
    oroya_render_mesh_destroy(renderer, plain8);
    oroya_render_mesh_destroy(renderer, sk);
    oroya_render_mesh_destroy(renderer, plain);
    free(a);
    free(b);
}

/* Two morph targets on the cube (one stretches it up, one pushes it sideways), GPU-blended,
 * against the CPU-blended positions rendered as a plain mesh. */
static void test_gpu_morph_matches_cpu(void) {
    float pos[72], nrm[72], blended[72];
    uint32_t idx[36];
    make_cube(pos, nrm, idx);
    float deltas[2 * 72] = {0};
    for (int v = 0; v < 24; v++) {
        if (pos[v * 3 + 1] > 0)
            deltas[v * 3 + 1] = 0.8f;
        deltas[72 + v * 3] = 0.5f * pos[v * 3 + 1];
    }
    float w[2] = {0.75f, -0.6f};
    for (int i = 0; i < 72; i++)
        blended[i] = pos[i] + w[0] * deltas[i] + w[1] * deltas[72 + i];
    oroya_error err = {0};
    oroya_render_mesh morph, plain;
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = pos,
                                                                 .normals = nrm,
                                                                 .vertex_count = 24,
                                                                 .indices = idx,
                                                                 .index_count = 36,
                                                                 .morph_target_count = 2,
                                                                 .morph_positions = deltas},
                                       &morph, &err),
              OROYA_OK);
    OT_EQ_INT(oroya_render_mesh_create(renderer,
                                       &(oroya_render_mesh_desc){.positions = blended,
                                                                 .normals = nrm,
                                                                 .vertex_count = 24,
                                                                 .indices = idx,
                                                                 .index_count = 36},
                                       &plain, &err),
              OROYA_OK);
    oroya_render_light lights[1] = {{.type = OROYA_RENDER_LIGHT_DIRECTIONAL,
                                     .color = {1, 1, 1},
                                     .intensity = 1,
                                     .direction = {-0.3f, -0.6f, -1}}};
    oroya_render_view view =
        default_view((oroya_vec3){1.5f, 1.5f, 4}, (oroya_vec3){0, 0.3f, 0}, lights, 1);
    uint8_t *a = malloc((size_t)W * H * 4), *b = malloc((size_t)W * H * 4),
            *c = malloc((size_t)W * H * 4);
    oroya_render_draw_desc dm = {.mesh = morph,
                                 .material = oroya_render_material_default(),
                                 .morph_weights = w,
                                 .morph_weight_count = 2};
    OT_CHECK(render_one(&view, &dm, 1, a));
    OT_CHECK(render_one(
        &view,
        &(oroya_render_draw_desc){.mesh = plain, .material = oroya_render_material_default()}, 1,
        b));
    diff_stats s = compare(a, b, (size_t)W * H, 4);
    OT_CHECK_MSG(s.over <= 4, "GPU vs CPU morph: %u pixels off", s.over);
    dm.morph_weight_count = 0;
    OT_CHECK(render_one(&view, &dm, 1, c));
    OT_CHECK(compare(a, c, (size_t)W * H, 4).over > 200);
    dm.morph_weight_count = 3;
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_OK);
    OT_EQ_INT(oroya_render_draw(renderer, &dm, &err), OROYA_ERR_OUT_OF_RANGE);
    OT_EQ_INT(oroya_render_end(renderer, &err), OROYA_OK);
    oroya_render_mesh_destroy(renderer, morph);
    oroya_render_mesh_destroy(renderer, plain);
    free(a);
    free(b);
    free(c);
}

/* With 4x MSAA a slanted edge has pixels between the two colors; without it, none. */
static void test_msaa(void) {
    oroya_error err = {0};
    oroya_renderer *ms = NULL;
    OT_EQ_INT(oroya_renderer_create(
                  &(oroya_renderer_desc){.width = W, .height = H, .msaa_samples = 4}, &ms, &err),
              OROYA_OK);
    if (!ms)
        return;
    static const float pos[] = {-0.8f, -0.7f, 0, 0.7f, -0.8f, 0, 0.1f, 0.8f, 0};
    oroya_render_view view = {0};
    view.view = oroya_mat4_identity();
    view.projection = oroya_mat4_identity();
    view.background[3] = 1;
    oroya_render_material white = {.base_color = {1, 1, 1, 1}, .unlit = true};
    int mixed[2] = {0, 0};
    oroya_renderer *rs[2] = {renderer, ms};
    uint8_t *img = malloc((size_t)W * H * 4);
    for (int k = 0; k < 2; k++) {
        oroya_render_mesh tri;
        OT_EQ_INT(
            oroya_render_mesh_create(
                rs[k], &(oroya_render_mesh_desc){.positions = pos, .vertex_count = 3}, &tri, &err),
            OROYA_OK);
        OT_EQ_INT(oroya_render_begin(rs[k], &view, &err), OROYA_OK);
        OT_EQ_INT(oroya_render_draw(
                      rs[k], &(oroya_render_draw_desc){.mesh = tri, .material = white}, &err),
                  OROYA_OK);
        OT_EQ_INT(oroya_render_end(rs[k], &err), OROYA_OK);
        OT_EQ_INT(oroya_render_read_pixels(rs[k], img, (size_t)W * H * 4, &err), OROYA_OK);
        for (size_t i = 0; i < (size_t)W * H; i++) {
            if (img[i * 4] != 0 && img[i * 4] != 255)
                mixed[k]++;
        }
        oroya_render_mesh_destroy(rs[k], tri);
    }
    OT_EQ_INT(mixed[0], 0);
    OT_CHECK_MSG(mixed[1] > 50, "MSAA edge pixels: %d", mixed[1]);
    free(img);
    oroya_renderer_destroy(ms);
}

/* A 2x2-color base color texture on a quad that fills an orthographic view, unlit: each quadrant
 * shows its texel, top row of the image at the top (glTF uv (0, 0) is the top-left corner).
 * Expected by hand: the texel is sRGB-decoded by the exact sRGB curve (GL_SRGB8_ALPHA8),
 * multiplied by the base color, then encoded with the renderer's 2.2 gamma. */
static float srgb_decode(float c) {
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* A quad that fills an orthographic identity view, with these uvs (top-left, top-right,
 * bottom-right, bottom-left); the view with a black background. */
static bool textured_quad(const float uv[8], oroya_render_mesh *out, oroya_render_view *view) {
    static const float pos[] = {-1, 1, 0, 1, 1, 0, 1, -1, 0, -1, -1, 0};
    static const float nrm[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const uint32_t idx[] = {0, 3, 2, 0, 2, 1};
    oroya_error err = {0};
    *view = (oroya_render_view){0};
    view->view = oroya_mat4_identity();
    view->projection = oroya_mat4_identity();
    view->background[3] = 1;
    return oroya_render_mesh_create(renderer,
                                    &(oroya_render_mesh_desc){.positions = pos,
                                                              .normals = nrm,
                                                              .uvs = uv,
                                                              .vertex_count = 4,
                                                              .indices = idx,
                                                              .index_count = 6},
                                    out, &err) == OROYA_OK;
}

static void test_texture(void) {
    static const float uv[] = {0, 0, 1, 0, 1, 1, 0, 1};
    static const uint8_t texels[16] = {255, 0, 0,   255, 0,  200, 0,  255,
                                       0,   0, 128, 255, 64, 64,  64, 255};
    /* 4x4 texels in 2x2 blocks, so that bilinear filtering near a quadrant's center only mixes
     * texels of one color. */
    uint8_t image[4 * 4 * 4];
    for (int y = 0; y < 4; y++) {
        for (int x = 0; x < 4; x++)
            memcpy(&image[(y * 4 + x) * 4], &texels[((y / 2) * 2 + x / 2) * 4], 4);
    }
    oroya_error err = {0};
    oroya_render_mesh quad;
    oroya_render_texture tex;
    oroya_render_view view;
    OT_CHECK(textured_quad(uv, &quad, &view));
    OT_EQ_INT(oroya_render_texture_create(renderer, 4, 4, image, &tex, &err), OROYA_OK);
    oroya_render_draw_desc d = {
        .mesh = quad,
        .material = {.base_color = {1, 1, 0.5f, 1}, .unlit = true, .base_color_texture = tex}};
    uint8_t *img = malloc((size_t)W * H * 4);
    OT_CHECK(render_one(&view, &d, 1, img));
    const int at[4][2] = {{32, 32}, {96, 32}, {32, 96}, {96, 96}}; /* x, y: texel order */
    const float tint[3] = {1, 1, 0.5f};
    for (int t = 0; t < 4; t++) {
        for (int c = 0; c < 3; c++) {
            float lin = srgb_decode((float)texels[t * 4 + c] / 255.0f) * tint[c];
            OT_NEAR(pixel(img, at[t][0], at[t][1])[c], linear_to_srgb(lin) * 255.0f, 1.5);
        }
    }
    /* A destroyed texture is refused at draw time. */
    oroya_render_texture_destroy(renderer, tex);
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_OK);
    OT_EQ_INT(oroya_render_draw(renderer, &d, &err), OROYA_ERR_STALE_HANDLE);
    OT_EQ_INT(oroya_render_end(renderer, &err), OROYA_OK);
    OT_EQ_INT(oroya_render_texture_create(renderer, 0, 2, texels, &tex, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_render_texture_create(renderer, 2, 2, NULL, &tex, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    oroya_render_mesh_destroy(renderer, quad);
    free(img);
}

/* A 2x1 texture (red, blue) on a full-view quad whose u runs from -0.5 to 2.5: the sampler's
 * wrap mode decides the color at u = -0.27 and u = 2.24, its mag filter the color at u = 0.496
 * (between the texel centers 0.25 and 0.75). Expected by hand from glTF's (OpenGL's) wrap
 * rules: REPEAT takes the fraction, CLAMP_TO_EDGE the edge texel, MIRRORED_REPEAT mirrors
 * every other period; NEAREST takes the texel under u, LINEAR mixes the two. */
static void test_texture_sampler(void) {
    static const float uv[] = {-0.5f, 0, 2.5f, 0, 2.5f, 1, -0.5f, 1};
    static const uint8_t texels[8] = {255, 0, 0, 255, 0, 0, 255, 255};
    oroya_error err = {0};
    oroya_render_mesh quad;
    oroya_render_texture tex;
    oroya_render_view view;
    OT_CHECK(textured_quad(uv, &quad, &view));
    OT_EQ_INT(oroya_render_texture_create(renderer, 2, 1, texels, &tex, &err), OROYA_OK);
    oroya_render_draw_desc d = {
        .mesh = quad,
        .material = {.base_color = {1, 1, 1, 1}, .unlit = true, .base_color_texture = tex}};
    uint8_t *img = malloc((size_t)W * H * 4);
    /* wrap_s, and whether u = -0.27 (x 10) and u = 2.24 (x 117) are blue. */
    static const struct {
        uint32_t wrap;
        bool blue_left, blue_right;
    } cases[] = {{10497, true, false}, {33071, false, true}, {33648, false, false}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        oroya_render_sampler smp = {
            .mag_filter = 9728, .min_filter = 9728, .wrap_s = cases[c].wrap};
        OT_EQ_INT(oroya_render_texture_set_sampler(renderer, tex, &smp, &err), OROYA_OK);
        OT_CHECK(render_one(&view, &d, 1, img));
        const int xs[2] = {10, 117};
        const bool blue[2] = {cases[c].blue_left, cases[c].blue_right};
        for (int k = 0; k < 2; k++) {
            const uint8_t *px = pixel(img, xs[k], 64);
            OT_CHECK_MSG(blue[k] ? px[2] > 200 && px[0] < 30 : px[0] > 200 && px[2] < 30,
                         "wrap %u, x %d: %u %u %u", cases[c].wrap, xs[k], px[0], px[1], px[2]);
        }
        /* NEAREST: u = 0.496 is the red texel's. */
        OT_CHECK_MSG(pixel(img, 42, 64)[2] < 30, "nearest: blue %u", pixel(img, 42, 64)[2]);
    }
    /* LINEAR (also the default): about half of each texel. */
    OT_EQ_INT(oroya_render_texture_set_sampler(renderer, tex, &(oroya_render_sampler){0}, &err),
              OROYA_OK);
    OT_CHECK(render_one(&view, &d, 1, img));
    OT_CHECK_MSG(pixel(img, 42, 64)[0] > 150 && pixel(img, 42, 64)[2] > 150, "linear: %u %u",
                 pixel(img, 42, 64)[0], pixel(img, 42, 64)[2]);
    /* Values glTF does not allow, naming the field; a stale texture. */
    OT_EQ_INT(
        oroya_render_texture_set_sampler(renderer, tex, &(oroya_render_sampler){.wrap_t = 1}, &err),
        OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "wrap_t 1") != NULL);
    OT_EQ_INT(oroya_render_texture_set_sampler(renderer, tex,
                                               &(oroya_render_sampler){.min_filter = 9988}, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_render_texture_set_sampler(renderer, tex,
                                               &(oroya_render_sampler){.mag_filter = 9987}, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_render_texture_set_sampler(renderer, tex, NULL, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    oroya_render_texture_destroy(renderer, tex);
    OT_EQ_INT(oroya_render_texture_set_sampler(renderer, tex, &(oroya_render_sampler){0}, &err),
              OROYA_ERR_STALE_HANDLE);
    oroya_render_mesh_destroy(renderer, quad);
    free(img);
}

static void test_errors(void) {
    oroya_error err = {0};
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t bad_idx[3] = {0, 1, 3};
    oroya_render_mesh m;
    OT_EQ_INT(oroya_renderer_create(NULL, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_renderer *r2 = NULL;
    OT_EQ_INT(oroya_renderer_create(&(oroya_renderer_desc){.width = 100000}, &r2, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(r2 == NULL);
    OT_EQ_INT(oroya_render_mesh_create(NULL, NULL, &m, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_render_mesh_create(
                  renderer,
                  &(oroya_render_mesh_desc){
                      .positions = pos, .vertex_count = 3, .indices = bad_idx, .index_count = 3},
                  &m, &err),
              OROYA_ERR_OUT_OF_RANGE);
    OT_CHECK(strstr(err.message, "indices[2] = 3") != NULL);
    OT_EQ_INT(m.id, 0);
    OT_EQ_INT(oroya_render_mesh_create(
                  renderer,
                  &(oroya_render_mesh_desc){
                      .positions = pos, .vertex_count = 3, .indices = bad_idx, .index_count = 2},
                  &m, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    pos[4] = INFINITY;
    OT_EQ_INT(
        oroya_render_mesh_create(
            renderer, &(oroya_render_mesh_desc){.positions = pos, .vertex_count = 3}, &m, &err),
        OROYA_ERR_NON_FINITE);
    OT_CHECK(strstr(err.message, "vertex 1") != NULL);
    pos[4] = 0;
    uint16_t j[12] = {0};
    float w[12] = {1, 0, 0, 0, -1, 0, 0, 0, 1, 0, 0, 0};
    OT_EQ_INT(oroya_render_mesh_create(
                  renderer,
                  &(oroya_render_mesh_desc){
                      .positions = pos, .vertex_count = 3, .skin_indices = j, .skin_weights = w},
                  &m, &err),
              OROYA_ERR_INVALID_DATA);
    OT_CHECK(strstr(err.message, "vertex 1") != NULL);
    OT_EQ_INT(oroya_render_mesh_create(
                  renderer,
                  &(oroya_render_mesh_desc){.positions = pos, .vertex_count = 3, .skin_indices = j},
                  &m, &err),
              OROYA_ERR_INVALID_ARGUMENT);

    /* Stale handles: a destroyed mesh is refused, and a new mesh in the same slot gets a new
     * generation, so the old handle stays stale. */
    OT_EQ_INT(
        oroya_render_mesh_create(
            renderer, &(oroya_render_mesh_desc){.positions = pos, .vertex_count = 3}, &m, &err),
        OROYA_OK);
    OT_CHECK(oroya_render_mesh_valid(renderer, m));
    oroya_render_mesh_destroy(renderer, m);
    OT_CHECK(!oroya_render_mesh_valid(renderer, m));
    oroya_render_mesh m2;
    OT_EQ_INT(
        oroya_render_mesh_create(
            renderer, &(oroya_render_mesh_desc){.positions = pos, .vertex_count = 3}, &m2, &err),
        OROYA_OK);
    OT_CHECK(m2.id != m.id && (m2.id & 0xffff) == (m.id & 0xffff));
    OT_CHECK(!oroya_render_mesh_valid(renderer, m));
    oroya_render_mesh_destroy(renderer, m); /* stale: ignored */
    OT_CHECK(oroya_render_mesh_valid(renderer, m2));

    oroya_render_view view = default_view((oroya_vec3){0, 0, 3}, (oroya_vec3){0, 0, 0}, NULL, 0);
    OT_EQ_INT(oroya_render_draw(renderer, &(oroya_render_draw_desc){.mesh = m2}, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_OK);
    OT_EQ_INT(oroya_render_draw(renderer, &(oroya_render_draw_desc){.mesh = m}, &err),
              OROYA_ERR_STALE_HANDLE);
    OT_EQ_INT(oroya_render_draw(renderer, &(oroya_render_draw_desc){.mesh = {0}}, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    oroya_render_draw_desc nan_model = {.mesh = m2};
    nan_model.model.m[0] = NAN;
    OT_EQ_INT(oroya_render_draw(renderer, &nan_model, &err), OROYA_ERR_NON_FINITE);
    OT_EQ_INT(oroya_renderer_resize(renderer, 64, 64, &err),
              OROYA_ERR_INVALID_ARGUMENT); /* inside a frame */
    OT_EQ_INT(oroya_render_end(renderer, &err), OROYA_OK);
    OT_EQ_INT(oroya_render_end(renderer, &err), OROYA_ERR_INVALID_ARGUMENT);
    oroya_render_light nine[9];
    for (int i = 0; i < 9; i++) {
        nine[i] = (oroya_render_light){
            .type = OROYA_RENDER_LIGHT_POINT, .color = {1, 1, 1}, .intensity = 1};
    }
    view.lights = nine;
    view.light_count = 9;
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_ERR_LIMIT);
    view.light_count = 1;
    nine[0].type = (oroya_render_light_type)42;
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_ERR_INVALID_ARGUMENT);
    /* A NaN background was cleared to whatever GL made of it, with OK. */
    nine[0].type = OROYA_RENDER_LIGHT_POINT;
    view.background[1] = NAN;
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_ERR_NON_FINITE);
    OT_CHECK_MSG(strstr(err.message, "background[1]") != NULL, "%s", err.message);
    view.background[1] = 0.0f;
    uint8_t small[16];
    OT_EQ_INT(oroya_render_read_pixels(renderer, small, sizeof small, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_CHECK(strstr(err.message, "need") != NULL);
    oroya_render_mesh_destroy(renderer, m2);

    /* Resize changes the readback size. */
    OT_EQ_INT(oroya_renderer_resize(renderer, 0, 10, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_renderer_resize(renderer, 32, 16, &err), OROYA_OK);
    uint32_t rw = 0, rh = 0;
    oroya_renderer_size(renderer, &rw, &rh);
    OT_EQ_INT(rw, 32);
    OT_EQ_INT(rh, 16);
    view.light_count = 0;
    view.background[0] = 1.0f;
    OT_EQ_INT(oroya_render_begin(renderer, &view, &err), OROYA_OK);
    OT_EQ_INT(oroya_render_end(renderer, &err), OROYA_OK);
    uint8_t px[32 * 16 * 4];
    OT_EQ_INT(oroya_render_read_pixels(renderer, px, sizeof px, &err), OROYA_OK);
    OT_EQ_INT(px[(15 * 32 + 31) * 4], 255);
    OT_EQ_INT(oroya_renderer_resize(renderer, W, H, &err), OROYA_OK);
}

static void test_png_roundtrip(void) {
    uint8_t img[6 * 4 * 4];
    for (int i = 0; i < 6 * 4 * 4; i++)
        img[i] = (uint8_t)(i * 7 + 3);
    const char *path = OROYA_BINARY_DIR "/test_render_roundtrip.png";
    oroya_error err = {0};
    OT_EQ_INT(oroya_image_write_png(path, 6, 4, img, &err), OROYA_OK);
    int w = 0, h = 0, c = 0;
    uint8_t *back = stbi_load(path, &w, &h, &c, 4);
    OT_CHECK(back != NULL);
    if (back) {
        OT_EQ_INT(w, 6);
        OT_EQ_INT(h, 4);
        OT_CHECK(memcmp(back, img, sizeof img) == 0);
        stbi_image_free(back);
    }
    OT_EQ_INT(oroya_image_write_png("/nonexistent-dir/x.png", 6, 4, img, &err), OROYA_ERR_IO);
    OT_CHECK(strstr(err.message, "/nonexistent-dir/x.png") != NULL);
    OT_EQ_INT(oroya_image_write_png(path, 0, 4, img, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_image_write_png(path, 6, 4, NULL, &err), OROYA_ERR_INVALID_ARGUMENT);
}

/* Three solid frames of three colors, plus a frame with a 300-color gradient: the file reads
 * back (giflib's decoder) with 4 images, the looping extension and exact colors for the solid
 * frames; the gradient frame's colors stay close (median cut, 256 entries). */
static void test_gif(void) {
    enum { GW = 20, GH = 15, FRAMES = 4 };
    static uint8_t frames[FRAMES * GW * GH * 4];
    static const uint8_t solid[3][3] = {{250, 20, 10}, {10, 200, 30}, {40, 60, 230}};
    for (int f = 0; f < 3; f++) {
        for (int i = 0; i < GW * GH; i++) {
            memcpy(&frames[(f * GW * GH + i) * 4], solid[f], 3);
            frames[(f * GW * GH + i) * 4 + 3] = 255;
        }
    }
    for (int i = 0; i < GW * GH; i++) {
        uint8_t *p = &frames[(3 * GW * GH + i) * 4];
        p[0] = (uint8_t)(i * 255 / (GW * GH - 1));
        p[1] = (uint8_t)(255 - p[0]);
        p[2] = (uint8_t)((i * 37) % 256);
        p[3] = 255;
    }
    const char *path = OROYA_BINARY_DIR "/test_render.gif";
    oroya_error err = {0};
    OT_EQ_INT(oroya_image_write_gif(path, GW, GH, FRAMES, frames, 5, false, &err), OROYA_OK);
    int e = 0;
    GifFileType *gif = DGifOpenFileName(path, &e);
    OT_CHECK(gif != NULL);
    if (!gif)
        return;
    OT_EQ_INT(DGifSlurp(gif), GIF_OK);
    OT_EQ_INT(gif->ImageCount, FRAMES);
    OT_EQ_INT(gif->SWidth, GW);
    OT_EQ_INT(gif->SHeight, GH);
    /* giflib attaches extensions that precede an image to that image. */
    bool loop = false;
    for (int i = 0; gif->ImageCount > 0 && i < gif->SavedImages[0].ExtensionBlockCount; i++) {
        const ExtensionBlock *b = &gif->SavedImages[0].ExtensionBlocks[i];
        if (b->Function == APPLICATION_EXT_FUNC_CODE && b->ByteCount == 11 &&
            !memcmp(b->Bytes, "NETSCAPE2.0", 11)) {
            const ExtensionBlock *next = b + 1;
            loop = i + 1 < gif->SavedImages[0].ExtensionBlockCount && next->ByteCount == 3 &&
                   next->Bytes[0] == 1 && next->Bytes[1] == 0 && next->Bytes[2] == 0;
        }
    }
    OT_CHECK(loop);
    const ColorMapObject *map = gif->SColorMap;
    OT_CHECK(map != NULL);
    for (int f = 0; map && f < gif->ImageCount; f++) {
        GraphicsControlBlock gcb;
        OT_EQ_INT(DGifSavedExtensionToGCB(gif, f, &gcb), GIF_OK);
        OT_EQ_INT(gcb.DelayTime, 5);
        const SavedImage *im = &gif->SavedImages[f];
        int worst = 0;
        for (int i = 0; i < GW * GH; i++) {
            GifColorType c = map->Colors[im->RasterBits[i]];
            const uint8_t *p = &frames[((size_t)f * GW * GH + (size_t)i) * 4];
            int d = abs(c.Red - p[0]) + abs(c.Green - p[1]) + abs(c.Blue - p[2]);
            if (d > worst)
                worst = d;
        }
        if (f < 3) {
            OT_EQ_INT(worst, 0);
        } else {
            OT_CHECK_MSG(worst <= 24, "gradient frame worst color error %d", worst);
        }
    }
    DGifCloseFile(gif, &e);
    OT_EQ_INT(oroya_image_write_gif(path, GW, GH, 0, frames, 5, false, &err),
              OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_image_write_gif("/nonexistent-dir/x.gif", GW, GH, 1, frames, 5, true, &err),
              OROYA_ERR_IO);
}

static void test_video_without_ffmpeg(void) {
    oroya_error err = {0};
    oroya_video_writer *w = NULL;
    OT_EQ_INT(oroya_video_begin("x.mp4", 31, 20, 25, &w, &err), OROYA_ERR_INVALID_ARGUMENT);
    OT_EQ_INT(oroya_video_begin("x.mp4", 32, 20, 0, &w, &err), OROYA_ERR_INVALID_ARGUMENT);
    if (oroya_video_available()) {
        printf("ffmpeg on PATH: the missing-ffmpeg message is not exercised here\n");
        return;
    }
    OT_EQ_INT(oroya_video_begin(OROYA_BINARY_DIR "/x.mp4", 32, 20, 25, &w, &err),
              OROYA_ERR_UNSUPPORTED);
    OT_CHECK(strstr(err.message, "ffmpeg") != NULL);
    OT_CHECK(w == NULL);
}

/* The shader sources for other front ends (the web viewer): the GLSL ES 3.00 program the
 * renderer compiles (it draws every picture of this file with them). */
static void test_shader_sources(void) {
    const char *vs = oroya_render_shader_source(OROYA_RENDER_SHADER_VERTEX);
    const char *fs = oroya_render_shader_source(OROYA_RENDER_SHADER_FRAGMENT);
    OT_CHECK(vs && strncmp(vs, "#version 300 es\n", 16) == 0);
    OT_CHECK(fs && strncmp(fs, "#version 300 es\n", 16) == 0);
    OT_CHECK(vs && strstr(vs, "uniform sampler2D u_bones;") && strstr(vs, "void main()"));
    OT_CHECK(fs && strstr(fs, "out vec4") && strstr(fs, "void main()") && fs != vs);
    OT_CHECK(strcmp(oroya_render_shader_source((oroya_render_shader_stage)7), "") == 0);
}

int main(void) {
    OT_RUN(test_shader_sources);
    OT_RUN(test_png_roundtrip);
    OT_RUN(test_gif);
    OT_RUN(test_video_without_ffmpeg);
    oroya_error err = {0};
    if (oroya_renderer_create(&(oroya_renderer_desc){.width = W, .height = H}, &renderer, &err) !=
        OROYA_OK) {
        fprintf(stderr, "no GL context: %s\n", err.message);
        OT_CHECK(false);
        return ot_finish();
    }
    printf("backend: %s\n", oroya_renderer_backend_string(renderer));
    OT_RUN(test_lit_quad_by_hand);
    OT_RUN(test_cube_golden);
    OT_RUN(test_gpu_skinning_matches_cpu);
    OT_RUN(test_gpu_skinning_many_bones);
    OT_RUN(test_gpu_morph_matches_cpu);
    OT_RUN(test_msaa);
    OT_RUN(test_texture);
    OT_RUN(test_texture_sampler);
    OT_RUN(test_errors);
    if (__lsan_do_recoverable_leak_check) {
        OT_CHECK_MSG(__lsan_do_recoverable_leak_check() == 0,
                     "LeakSanitizer found leaks (see above)");
    }
    oroya_renderer_destroy(renderer);
    int rc = ot_finish();
    fflush(NULL);
    _Exit(rc);
}
