/* oroya/render.h - an offscreen OpenGL ES 3.0 renderer (EGL, no window system) and image output.
 *
 * What it does: draws indexed triangle meshes with a base-color material (Lambert diffuse plus
 * a Blinn-Phong specular lobe whose sharpness follows the roughness), directional, point and
 * ambient lights, a perspective or orthographic projection, depth testing, a background color
 * and optional MSAA, into an offscreen framebuffer, then reads the pixels back as RGBA8.
 * Skinned meshes are skinned on the GPU: the vertex shader reads the bone palette from an
 * RGBA32F texture with texelFetch, 4 texels (the 4 columns) per matrix, in three.js's layout
 * (side = oroya_bone_texture_side(n) = max(4, ceil(sqrt(4n) / 4) * 4), row by row, zero
 * padding; see oroya/skeleton.h and docs/skinning.md), 4 or 8 influences per vertex.
 * Colors are linear (glTF, three.js); the output is sRGB-encoded (gamma 2.2).
 * Morph targets are applied on the GPU from a float texture of per-vertex deltas.
 * Image output: PNG (libpng), looping animated GIF (giflib, one median-cut palette
 * over all frames) and MP4 (frames piped to an `ffmpeg` found on PATH).
 *
 * What it does not do: scene management, animation, textures other than the base color,
 * shadows. The scene-level
 * drawing in the CLI (tools/oroya) is built on this plain draw API.
 *
 * Context: oroya_renderer_create makes its own EGL display (Mesa's surfaceless platform, then
 * the EGL device platform, then the default display) and a GLES 3.0 context, and makes it
 * current on the calling thread. With `use_current_context` it uses the caller's current
 * GLES 3 context instead (a GLFW window, for instance) and creates no EGL objects.
 * Threading: a renderer is used from the thread that created it; two renderers in two threads
 * are independent.
 *
 * Ownership: meshes are GPU resources named by 32-bit handles with a generation counter
 * (low 16 bits: slot + 1, high 16 bits: generation); a destroyed mesh's handle is refused as
 * stale, never dereferenced. Destroying the renderer frees every mesh.
 *
 * Pitfall, LeakSanitizer: Mesa leaks a few blocks inside eglTerminate. Test programs that
 * create a renderer under ASan turn leak detection off for that program (see docs/render.md).
 *
 * Example (given: const float *p, const float *n, const uint32_t *idx, oroya_render_view view, oroya_mat4 model, uint8_t *pixels):
 *   oroya_renderer *r = NULL;
 *   oroya_error err = {0};
 *   oroya_renderer_create(&(oroya_renderer_desc){.width = 128, .height = 128}, &r, &err);
 *   oroya_render_mesh mesh;
 *   oroya_render_mesh_create(r, &(oroya_render_mesh_desc){.positions = p, .normals = n,
 *       .vertex_count = 24, .indices = idx, .index_count = 36}, &mesh, &err);
 *   oroya_render_begin(r, &view, &err);        // camera, lights, background
 *   oroya_render_draw(r, &(oroya_render_draw_desc){.mesh = mesh, .model = model,
 *       .material = oroya_render_material_default()}, &err);
 *   oroya_render_end(r, &err);
 *   oroya_render_read_pixels(r, pixels, 128 * 128 * 4, &err);
 *   oroya_image_write_png("out.png", 128, 128, pixels, &err);
 *   oroya_renderer_destroy(r);
 */
#ifndef OROYA_RENDER_H
#define OROYA_RENDER_H

#include "oroya/base.h"
#include "oroya/math.h"

#ifdef __cplusplus
extern "C" {
#endif
OROYA_API_BEGIN

#define OROYA_RENDER_MAX_LIGHTS 8         /* directional + point lights per frame */
#define OROYA_RENDER_MAX_MORPH_TARGETS 64 /* morph targets per mesh */
#define OROYA_RENDER_MAX_SIZE 8192        /* width and height limit */

typedef struct oroya_renderer oroya_renderer; /* opaque */
typedef struct oroya_render_mesh {
    uint32_t id;
} oroya_render_mesh; /* id 0 = none */
typedef struct oroya_render_texture {
    uint32_t id;
} oroya_render_texture; /* id 0 = none */

typedef struct oroya_renderer_desc {
    uint32_t width;        /* framebuffer width in pixels; 0 = 256; at most OROYA_RENDER_MAX_SIZE */
    uint32_t height;       /* framebuffer height in pixels; 0 = 256 */
    uint32_t msaa_samples; /* 0 or 1 = no multisampling; else clamped to what the GPU offers */
    uint32_t max_meshes;   /* mesh slots; 0 = 256; at most 65535 */
    uint32_t max_textures; /* texture slots; 0 = 64; at most 65535 */
    bool use_current_context;  /* draw with the caller's current GLES 3 context, no EGL setup */
    oroya_allocator allocator; /* zero = malloc/free */
} oroya_renderer_desc;

/* Creates the renderer: EGL display and GLES 3.0 context (unless use_current_context), the
 * shaders and an offscreen framebuffer of width x height with a depth buffer. Fails with
 * OROYA_ERR_BACKEND (message says which EGL or GL step) when no context can be made, with
 * OROYA_ERR_INVALID_ARGUMENT for a NULL `out` or a size over the limit. Allocates; free with
 * oroya_renderer_destroy. */
oroya_result oroya_renderer_create(const oroya_renderer_desc *desc /* may be NULL */,
                                   oroya_renderer **out, oroya_error *err);
/* Frees every mesh and GL object, then the context and display it created. NULL is fine. */
void oroya_renderer_destroy(oroya_renderer *renderer);
/* Reallocates the framebuffer to width x height (1..OROYA_RENDER_MAX_SIZE). */
oroya_result oroya_renderer_resize(oroya_renderer *renderer, uint32_t width, uint32_t height,
                                   oroya_error *err);
/* Current framebuffer size; either output may be NULL. */
void oroya_renderer_size(const oroya_renderer *renderer, uint32_t *width, uint32_t *height);
/* "OpenGL ES 3.2 Mesa ... | llvmpipe ..."; "" for NULL. Valid until destroy. */
const char *oroya_renderer_backend_string(const oroya_renderer *renderer);

/* ---- meshes ---------------------------------------------------------------------------- */
typedef struct oroya_render_mesh_desc {
    const float *positions;        /* vertex_count * 3, required */
    const float *normals;          /* vertex_count * 3; NULL = smooth normals computed from faces */
    const float *uvs;              /* vertex_count * 2 texture coordinates, glTF convention ((0, 0)
                                      is the image's top-left corner); NULL = none */
    uint32_t vertex_count;         /* 1 .. 2^24 */
    const uint32_t *indices;       /* index_count triangle corners; NULL = 0, 1, 2, ... */
    uint32_t index_count;          /* multiple of 3; with indices NULL, 0 = vertex_count */
    const uint16_t *skin_indices;  /* vertex_count * 4 bone indices; NULL = not skinned */
    const float *skin_weights;     /* vertex_count * 4 weights, required with skin_indices */
    const uint16_t *skin_indices2; /* vertex_count * 4, influences 5-8; NULL = 4 influences */
    const float *skin_weights2;    /* vertex_count * 4, required with skin_indices2 */
    uint32_t morph_target_count;   /* 0 .. OROYA_RENDER_MAX_MORPH_TARGETS */
    const float *morph_positions;  /* morph_target_count * vertex_count * 3 position deltas */
    const float *morph_normals;    /* same shape, normal deltas; NULL = none */
} oroya_render_mesh_desc;

/* Uploads a mesh. Checks every index against vertex_count (the message names the first bad
 * index position) and every position, normal, weight and morph delta for finiteness; skin
 * index ranges are checked at draw time against the bone count. Allocates GPU buffers. */
oroya_result oroya_render_mesh_create(oroya_renderer *renderer, const oroya_render_mesh_desc *desc,
                                      oroya_render_mesh *out, oroya_error *err);
/* Replaces a mesh's vertex positions (vertex_count * 3 floats) and, when `normals` is not
 * NULL, its normals, keeping the vertex count and indices: for meshes skinned or deformed on
 * the CPU, and overlays. Checks finiteness. Never allocates. */
oroya_result oroya_render_mesh_update(oroya_renderer *renderer, oroya_render_mesh mesh,
                                      const float *positions, const float *normals,
                                      uint32_t vertex_count, oroya_error *err);
/* Frees the mesh; its handle becomes stale. A stale or zero handle is ignored. */
void oroya_render_mesh_destroy(oroya_renderer *renderer, oroya_render_mesh mesh);
/* True while `mesh` names a live mesh of this renderer. */
bool oroya_render_mesh_valid(const oroya_renderer *renderer, oroya_render_mesh mesh);

/* ---- textures -------------------------------------------------------------------------- */
/* Uploads a base color image: width x height RGBA8, top row first, sRGB-encoded color (as
 * PNG and JPEG images and glTF baseColorTexture are) with linear alpha; sampled as sRGB so
 * lighting sees linear values, with mipmaps, trilinear filtering and repeat wrapping (glTF's
 * defaults; oroya_render_texture_set_sampler changes them). Errors: INVALID_ARGUMENT (NULL,
 * size 0 or over the GPU's limit), LIMIT (all texture slots used), BACKEND. */
oroya_result oroya_render_texture_create(oroya_renderer *renderer, uint32_t width, uint32_t height,
                                         const uint8_t *rgba, oroya_render_texture *out,
                                         oroya_error *err);
/* Frees the texture; its handle becomes stale. Stale or zero handles are ignored. Drawing with
 * a stale texture handle is an error (OROYA_ERR_STALE_HANDLE). */
void oroya_render_texture_destroy(oroya_renderer *renderer, oroya_render_texture texture);

/* How a texture is sampled, with glTF's sampler values (which are OpenGL's enums); 0 = glTF's
 * default. A new texture samples with the defaults. */
typedef struct oroya_render_sampler {
    uint32_t mag_filter;     /* 9728 NEAREST, 9729 LINEAR; 0 = LINEAR */
    uint32_t min_filter;     /* 9728, 9729, 9984..9987 (NEAREST/LINEAR_MIPMAP_NEAREST/LINEAR);
                            0 = LINEAR_MIPMAP_LINEAR */
    uint32_t wrap_s, wrap_t; /* 10497 REPEAT, 33071 CLAMP_TO_EDGE, 33648 MIRRORED_REPEAT;
                                0 = REPEAT */
} oroya_render_sampler;

/* Sets the texture's filters and wrap modes (glTF 2.0 section 5.26). Errors: INVALID_ARGUMENT
 * (NULL renderer or sampler, a value glTF does not allow, naming the field), STALE_HANDLE (a
 * texture that is not live), BACKEND. The texture is unchanged on error. */
oroya_result oroya_render_texture_set_sampler(oroya_renderer *renderer,
                                              oroya_render_texture texture,
                                              const oroya_render_sampler *sampler,
                                              oroya_error *err);

/* ---- frames ---------------------------------------------------------------------------- */
typedef enum oroya_render_light_type {
    OROYA_RENDER_LIGHT_DIRECTIONAL = 0,
    OROYA_RENDER_LIGHT_POINT,
    OROYA_RENDER_LIGHT_AMBIENT
} oroya_render_light_type;

typedef struct oroya_render_light {
    oroya_render_light_type type;
    float color[3];       /* linear RGB */
    float intensity;      /* multiplies color */
    oroya_vec3 direction; /* DIRECTIONAL: the direction the light travels (world space) */
    oroya_vec3 position;  /* POINT: world position */
    float range;          /* POINT: 0 = no falloff limit; else light fades to 0 at range */
} oroya_render_light;

typedef struct oroya_render_view {
    oroya_mat4 view;       /* world -> camera (the camera's inverse world matrix) */
    oroya_mat4 projection; /* camera -> clip, OpenGL convention (z in -1..1) */
    float background[4]; /* linear RGB + alpha clear color, 0..1 (sRGB-encoded like the shading) */
    const oroya_render_light *lights; /* light_count entries; ambient lights add up */
    uint32_t light_count;             /* at most OROYA_RENDER_MAX_LIGHTS non-ambient ones */
} oroya_render_view;

typedef struct oroya_render_material {
    float base_color[4]; /* linear RGB + alpha, 0..1, as glTF's baseColorFactor and three.js
                                  colors; alpha < 1 blends */
    float metallic;      /* 0..1 */
    float roughness;     /* 0..1; 0 = sharp highlight */
    float grid_spacing;  /* > 0: darker grid lines every grid_spacing world units on x and z */
    bool unlit;          /* base color as is, no lighting (overlays, lines) */
    bool double_sided;   /* false: back faces are culled (three.js FrontSide); true: both
                                  sides drawn, back faces lit with the flipped normal */
    oroya_render_texture base_color_texture; /* {0}: none; else multiplies base_color, sampled
                                  at the mesh's uvs (meshes without uvs sample (0, 0)) */
} oroya_render_material;

/* White, metallic 0, roughness 0.5, no grid, lit, single-sided. */
oroya_render_material oroya_render_material_default(void);

typedef struct oroya_render_draw_desc {
    oroya_render_mesh mesh;
    oroya_render_material material;
    oroya_mat4 model; /* mesh -> world; a zeroed matrix counts as identity */
    /* Skinning (mesh created with skin_indices): bone_count matrices, column-major, each
     * bone.world * bone_inverse (the skeleton's bone_matrices, i.e. the bone texture data in
     * its first 16 * bone_count floats). v' = bind_matrix_inverse * sum(w * bone) * bind_matrix * v,
     * then `model` (the skinned mesh's world matrix), as three.js does. */
    const float *bone_matrices;
    uint32_t bone_count;
    oroya_mat4 bind_matrix;         /* zeroed = identity */
    oroya_mat4 bind_matrix_inverse; /* zeroed = identity */
    const float *morph_weights;     /* morph_weight_count weights; NULL = all 0 */
    uint32_t morph_weight_count;    /* at most the mesh's morph_target_count */
    bool lines;                     /* draw the index list as GL_LINES (pairs), no depth test */
    bool on_top;                    /* triangles drawn without the depth test, over everything
                                      drawn before (overlays such as a skeleton) */
} oroya_render_draw_desc;

/* Binds the framebuffer, clears it to the background, sets the camera and the lights. Errors:
 * INVALID_ARGUMENT (NULL, a singular view matrix, a bad light type or a zero light direction),
 * NON_FINITE (a camera matrix, the background or a light that is not finite), LIMIT (more than
 * OROYA_RENDER_MAX_LIGHTS non-ambient lights). */
oroya_result oroya_render_begin(oroya_renderer *renderer, const oroya_render_view *view,
                                oroya_error *err);
/* Draws one mesh between begin and end. Rejects a stale mesh, a skinned mesh without bone
 * matrices, more bones than the GPU's texture size allows, non-finite matrices, non-finite
 * morph weights and finite ones whose morphed positions could overflow float (NON_FINITE:
 * |position| + sum |weight| x |delta| past FLT_MAX, by each target's largest delta). */
oroya_result oroya_render_draw(oroya_renderer *renderer, const oroya_render_draw_desc *draw,
                               oroya_error *err);
/* Finishes the frame (resolves MSAA). */
oroya_result oroya_render_end(oroya_renderer *renderer, oroya_error *err);
/* Copies the last finished frame as RGBA8, top row first, into out (at least
 * width * height * 4 bytes, given as out_size). */
oroya_result oroya_render_read_pixels(oroya_renderer *renderer, uint8_t *out, size_t out_size,
                                      oroya_error *err);
/* Copies the last finished frame to the current context's default framebuffer (a window),
 * scaled to dst_width x dst_height. Only meaningful with use_current_context. */
oroya_result oroya_render_present(oroya_renderer *renderer, uint32_t dst_width, uint32_t dst_height,
                                  oroya_error *err);

/* Perspective projection, fov_y in degrees (as three.js cameras), OpenGL clip space. */
oroya_mat4 oroya_render_perspective(float fov_y_degrees, float aspect, float near, float far);
/* Orthographic projection of the box left..right, bottom..top, -near..-far. */
oroya_mat4 oroya_render_orthographic(float left, float right, float bottom, float top, float near,
                                     float far);
/* View matrix of a camera at eye looking at target with the given up vector. */
oroya_mat4 oroya_render_look_at(oroya_vec3 eye, oroya_vec3 target, oroya_vec3 up);

/* ---- images ---------------------------------------------------------------------------- */
/* What to write: the pixels and their size, GIF options, and the allocator. Zero fields take
 * the defaults given on each line. */
typedef struct oroya_image_desc {
    uint32_t width;            /* 1..65535 */
    uint32_t height;           /* 1..65535 */
    const uint8_t *pixels;     /* RGBA8, top row first; for a GIF frame_count frames in a row,
                                  each width * height * 4 bytes; required */
    uint32_t frame_count;      /* GIF: number of frames; 0 means 1. PNG: ignored */
    uint32_t delay_cs;         /* GIF: hundredths of a second per frame; 0 means 4 (25 fps) */
    bool dither;               /* GIF: 4x4 ordered dithering; false: nearest color only */
    oroya_allocator allocator; /* zero: malloc/free */
} oroya_image_desc;

/* Writes desc's pixels (frame_count ignored) as an RGBA8 PNG at path. All memory, libpng's
 * included, comes from desc->allocator and is freed before it returns. Errors:
 * INVALID_ARGUMENT (NULL path, desc or pixels; a size outside 1..65535; an allocator with
 * only one of alloc and free), OUT_OF_MEMORY, IO (names the path). On error no file is left
 * at path. */
oroya_result oroya_image_save_png(const char *path, const oroya_image_desc *desc, oroya_error *err);

/* Writes desc's frames as a GIF that loops forever, delay_cs per frame. One 256-color
 * palette is built by median cut over all frames, so colors do not flicker between frames;
 * pixels map to the nearest palette color, with 4x4 ordered dithering when desc->dither is
 * set. Its working memory (about 1.6 MiB plus one index frame) comes from desc->allocator;
 * giflib itself takes no allocator, so its own small blocks (the file state, the color map,
 * the LZW coder) come from the C library's malloc. Errors as oroya_image_save_png. */
oroya_result oroya_image_save_gif(const char *path, const oroya_image_desc *desc, oroya_error *err);

/* oroya_image_save_png with the pixels given directly and malloc/free. */
oroya_result oroya_image_write_png(const char *path, uint32_t width, uint32_t height,
                                   const uint8_t *rgba, oroya_error *err);

/* oroya_image_save_gif with the fields given directly and malloc/free; frame_count 0 is
 * INVALID_ARGUMENT here. */
oroya_result oroya_image_write_gif(const char *path, uint32_t width, uint32_t height,
                                   uint32_t frame_count, const uint8_t *frames, uint32_t delay_cs,
                                   bool dither, oroya_error *err);

/* MP4 through ffmpeg (libx264, yuv420p): begin opens a pipe to an `ffmpeg` found on PATH and
 * fails with OROYA_ERR_UNSUPPORTED and a message saying ffmpeg is missing when there is none.
 * Each frame is width * height * 4 bytes RGBA8, top row first. Width and height must be even
 * (yuv420p). finish closes the pipe and reports ffmpeg's exit status as OROYA_ERR_IO. The
 * writer's small state comes from malloc (it takes no allocator); the encoding runs in the
 * ffmpeg process. */
typedef struct oroya_video_writer oroya_video_writer;
oroya_result oroya_video_begin(const char *path, uint32_t width, uint32_t height, float fps,
                               oroya_video_writer **out, oroya_error *err);
oroya_result oroya_video_add_frame(oroya_video_writer *writer, const uint8_t *rgba,
                                   oroya_error *err);
oroya_result oroya_video_finish(oroya_video_writer *writer, oroya_error *err); /* frees writer */
/* True when an executable `ffmpeg` is on PATH. */
bool oroya_video_available(void);

/* ---- shader sources ------------------------------------------------------------------ */

/* The GLSL ES 3.00 program this renderer compiles, for a front end that draws with its own
 * GLES 3 / WebGL2 context (oroya's web viewer, web/oroya_web.c) and wants the same pictures:
 * the same skinning (bone texture, 4 or 8 influences), morphs and lighting, and the same
 * uniforms (u_model, u_view_proj, u_bones...: read them from the source). Static strings,
 * never NULL; an unknown stage gives "". Needs no renderer and no EGL: the function lives in
 * src/render/render_shaders.c, which builds without a GL library. */
typedef enum oroya_render_shader_stage {
    OROYA_RENDER_SHADER_VERTEX = 0,
    OROYA_RENDER_SHADER_FRAGMENT
} oroya_render_shader_stage;
const char *oroya_render_shader_source(oroya_render_shader_stage stage);

OROYA_API_END
#ifdef __cplusplus
}
#endif

#endif /* OROYA_RENDER_H */
