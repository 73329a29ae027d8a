/* The offscreen renderer: EGL context, mesh handles, the one shader program, frames and
 * readback. See include/oroya/render.h for the contracts. */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "internal/base.h"
#include "internal/render_shaders.h"
#include "oroya/render.h"
#include "oroya/skeleton.h"

/* Morph deltas are stored in a texture this many texels wide (2 texels per vertex and target:
 * position delta, normal delta). 2048 is the GLES 3.0 spec's minimum GL_MAX_TEXTURE_SIZE, so
 * every implementation takes a row this wide; the row count is checked against
 * GL_MAX_TEXTURE_SIZE at upload. */
#define MORPH_TEXTURE_WIDTH 2048u

typedef struct mesh_slot {
    GLuint vao, buffers[8], morph_texture;
    uint32_t vertex_count, index_count, morph_target_count;
    uint32_t max_skin_index, max_skin_index_vertex; /* over influences with non-zero weight */
    uint16_t generation;
    bool live, skinned, skinned8, morph_normals;
    /* The largest |coordinate| of the positions and of each target's position deltas: a
     * draw's morph weights are refused when the morphed positions could overflow float. */
    float position_reach, morph_reach[OROYA_RENDER_MAX_MORPH_TARGETS];
} mesh_slot;

enum {
    U_MODEL,
    U_VIEW_PROJ,
    U_NORMAL_MATRIX,
    U_SKINNED,
    U_BONES,
    U_BIND,
    U_BIND_INV,
    U_MORPH_COUNT,
    U_MORPH_WEIGHTS,
    U_MORPHS,
    U_VERTEX_COUNT,
    U_MORPH_NORMALS,
    U_BASE_COLOR,
    U_METALLIC,
    U_ROUGHNESS,
    U_GRID,
    U_UNLIT,
    U_CAMERA_POS,
    U_LIGHT_COUNT,
    U_LIGHT_VEC,
    U_LIGHT_COLOR,
    U_AMBIENT,
    U_SKIN8,
    U_BASE_TEX,
    U_HAS_TEX,
    U_COUNT_
};
static const char *const uniform_names[U_COUNT_] = {
    "u_model",        "u_view_proj",     "u_normal_matrix", "u_skinned",       "u_bones",
    "u_bind",         "u_bind_inv",      "u_morph_count",   "u_morph_weights", "u_morphs",
    "u_vertex_count", "u_morph_normals", "u_base_color",    "u_metallic",      "u_roughness",
    "u_grid",         "u_unlit",         "u_camera_pos",    "u_light_count",   "u_light_vec",
    "u_light_color",  "u_ambient",       "u_skin8",         "u_base_tex",      "u_has_tex",
};

typedef struct texture_slot {
    GLuint texture;
    uint16_t generation;
    bool live;
} texture_slot;

struct oroya_renderer {
    oroya_allocator allocator;
    EGLDisplay display;
    EGLContext context;
    bool own_context, in_frame, has_frame;
    uint32_t width, height, samples, max_meshes;
    GLint max_texture_size;
    GLuint fbo, color_rb, depth_rb; /* the render target, multisampled when samples > 1 */
    GLuint resolve_fbo, resolve_rb; /* single-sampled copy when samples > 1 */
    GLuint program, empty_texture, bone_texture;
    uint32_t bone_texture_side;
    GLint uniforms[U_COUNT_];
    mesh_slot *meshes;
    texture_slot *textures;
    uint32_t max_textures;
    char backend[256];
};

/* EGL keeps one display per platform and process, and eglTerminate ends it for everyone:
 * count the renderers that use it so the last one out terminates it. This is the only
 * process-wide state in oroya and it mirrors EGL's own. */
static atomic_int egl_users;

/* ---- small helpers --------------------------------------------------------------------- */

static bool finite_array(const float *v, size_t n, size_t *bad) {
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            *bad = i;
            return false;
        }
    }
    return true;
}

static bool mat_is_zero(const oroya_mat4 *m) {
    for (int i = 0; i < 16; i++) {
        if (m->m[i] != 0.0f)
            return false;
    }
    return true;
}

static oroya_mat4 mat_or_identity(const oroya_mat4 *m) {
    return mat_is_zero(m) ? oroya_mat4_identity() : *m;
}

static const char *gl_error_name(GLenum e) {
    switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    default: return "unknown GL error";
    }
}

static oroya_result check_gl(oroya_error *err, const char *where) {
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        while (glGetError() != GL_NO_ERROR) {}
        return oroya_error_set(err, OROYA_ERR_BACKEND, "%s: %s (0x%04x)", where, gl_error_name(e),
                               e);
    }
    return OROYA_OK;
}

static bool make_current(oroya_renderer *r) {
    if (!r->own_context || eglGetCurrentContext() == r->context)
        return true;
    return eglMakeCurrent(r->display, EGL_NO_SURFACE, EGL_NO_SURFACE, r->context) == EGL_TRUE;
}

/* ---- context --------------------------------------------------------------------------- */

static EGLDisplay open_display(void) {
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    const char *ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    EGLint major, minor;
    if (get_platform_display && ext && strstr(ext, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay d =
            get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor))
            return d;
    }
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    if (get_platform_display && query_devices && ext && strstr(ext, "EGL_EXT_platform_device")) {
        EGLDeviceEXT devices[4];
        EGLint count = 0;
        if (query_devices(4, devices, &count) && count > 0) {
            EGLDisplay d = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[0], NULL);
            if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor))
                return d;
        }
    }
    EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor))
        return d;
    return EGL_NO_DISPLAY;
}

static oroya_result create_context(oroya_renderer *r, oroya_error *err) {
    r->display = open_display();
    if (r->display == EGL_NO_DISPLAY) {
        return oroya_error_set(
            err, OROYA_ERR_BACKEND,
            "EGL: no display (tried the surfaceless, device and default platforms)");
    }
    atomic_fetch_add(&egl_users, 1);
    if (!eglBindAPI(EGL_OPENGL_ES_API)) {
        return oroya_error_set(err, OROYA_ERR_BACKEND, "EGL: eglBindAPI(GLES) failed (0x%x)",
                               eglGetError());
    }
    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE};
    EGLConfig config = NULL;
    EGLint count = 0;
    if (!eglChooseConfig(r->display, config_attribs, &config, 1, &count))
        count = 0;
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0,
                                      EGL_NONE};
    /* Without a config, EGL_KHR_no_config_context lets the context exist anyway: we only
     * ever draw into framebuffer objects. */
    r->context = eglCreateContext(r->display, count > 0 ? config : (EGLConfig)0, EGL_NO_CONTEXT,
                                  context_attribs);
    if (r->context == EGL_NO_CONTEXT) {
        return oroya_error_set(err, OROYA_ERR_BACKEND,
                               "EGL: cannot create a GLES 3.0 context (0x%x)", eglGetError());
    }
    if (!eglMakeCurrent(r->display, EGL_NO_SURFACE, EGL_NO_SURFACE, r->context)) {
        return oroya_error_set(err, OROYA_ERR_BACKEND,
                               "EGL: eglMakeCurrent without a surface failed (0x%x)",
                               eglGetError());
    }
    return OROYA_OK;
}

static GLuint compile(GLenum type, const char *source, oroya_error *err, oroya_result *res) {
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &source, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[400] = {0};
        glGetShaderInfoLog(s, (GLsizei)sizeof log - 1, NULL, log);
        *res = oroya_error_set(err, OROYA_ERR_BACKEND, "GL: %s shader does not compile: %s",
                               type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

static oroya_result create_program(oroya_renderer *r, oroya_error *err) {
    oroya_result res = OROYA_OK;
    GLuint vs = compile(GL_VERTEX_SHADER, oroya__render_vertex_shader, err, &res);
    if (!vs)
        return res;
    GLuint fs = compile(GL_FRAGMENT_SHADER, oroya__render_fragment_shader, err, &res);
    if (!fs) {
        glDeleteShader(vs);
        return res;
    }
    r->program = glCreateProgram();
    glAttachShader(r->program, vs);
    glAttachShader(r->program, fs);
    glLinkProgram(r->program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(r->program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[400] = {0};
        glGetProgramInfoLog(r->program, (GLsizei)sizeof log - 1, NULL, log);
        return oroya_error_set(err, OROYA_ERR_BACKEND, "GL: shader program does not link: %s", log);
    }
    for (int i = 0; i < U_COUNT_; i++) {
        r->uniforms[i] = glGetUniformLocation(r->program, uniform_names[i]);
    }
    glUseProgram(r->program);
    glUniform1i(r->uniforms[U_BONES], 0);
    glUniform1i(r->uniforms[U_MORPHS], 1);
    glUniform1i(r->uniforms[U_BASE_TEX], 2);
    return check_gl(err, "GL: shader setup");
}

static void delete_targets(oroya_renderer *r) {
    GLuint fbos[2] = {r->fbo, r->resolve_fbo};
    GLuint rbs[3] = {r->color_rb, r->depth_rb, r->resolve_rb};
    glDeleteFramebuffers(2, fbos);
    glDeleteRenderbuffers(3, rbs);
    r->fbo = r->resolve_fbo = r->color_rb = r->depth_rb = r->resolve_rb = 0;
    r->has_frame = false;
}

static oroya_result create_targets(oroya_renderer *r, oroya_error *err) {
    GLsizei w = (GLsizei)r->width, h = (GLsizei)r->height, s = (GLsizei)r->samples;
    glGenFramebuffers(1, &r->fbo);
    glGenRenderbuffers(1, &r->color_rb);
    glGenRenderbuffers(1, &r->depth_rb);
    glBindRenderbuffer(GL_RENDERBUFFER, r->color_rb);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, s > 1 ? s : 0, GL_RGBA8, w, h);
    glBindRenderbuffer(GL_RENDERBUFFER, r->depth_rb);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, s > 1 ? s : 0, GL_DEPTH_COMPONENT24, w, h);
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->color_rb);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, r->depth_rb);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        return oroya_error_set(err, OROYA_ERR_BACKEND,
                               "GL: framebuffer %ux%u (%u samples) incomplete (0x%x)", r->width,
                               r->height, r->samples, status);
    }
    if (s > 1) {
        glGenFramebuffers(1, &r->resolve_fbo);
        glGenRenderbuffers(1, &r->resolve_rb);
        glBindRenderbuffer(GL_RENDERBUFFER, r->resolve_rb);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
        glBindFramebuffer(GL_FRAMEBUFFER, r->resolve_fbo);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                  r->resolve_rb);
        status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        if (status != GL_FRAMEBUFFER_COMPLETE) {
            return oroya_error_set(err, OROYA_ERR_BACKEND,
                                   "GL: resolve framebuffer incomplete (0x%x)", status);
        }
    }
    return check_gl(err, "GL: framebuffer setup");
}

static GLuint make_float_texture(GLsizei w, GLsizei h, const float *data) {
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    /* Float textures are not filterable in GLES 3.0; with the default mipmap filter the
     * texture would be incomplete and texelFetch would return zeros. */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, w, h, 0, GL_RGBA, GL_FLOAT, data);
    return t;
}

oroya_result oroya_renderer_create(const oroya_renderer_desc *desc, oroya_renderer **out,
                                   oroya_error *err) {
    if (!out)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_renderer_create: out is NULL");
    *out = NULL;
    oroya_renderer_desc d = desc ? *desc : (oroya_renderer_desc){0};
    if (!d.width)
        d.width = 256;
    if (!d.height)
        d.height = 256;
    if (!d.max_meshes)
        d.max_meshes = 256;
    if (!d.max_textures)
        d.max_textures = 64;
    if (d.width > OROYA_RENDER_MAX_SIZE || d.height > OROYA_RENDER_MAX_SIZE) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_renderer_create: size %ux%u over the limit %u", d.width,
                               d.height, OROYA_RENDER_MAX_SIZE);
    }
    if (d.max_meshes > 65535 || d.max_textures > 65535) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_renderer_create: max_meshes %u or max_textures %u over 65535",
                               d.max_meshes, d.max_textures);
    }
    oroya_renderer *r = oroya_allocator_calloc(&d.allocator, 1, sizeof *r, 16);
    if (!r)
        return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                               "oroya_renderer_create: out of memory");
    r->allocator = d.allocator;
    r->width = d.width;
    r->height = d.height;
    r->max_meshes = d.max_meshes;
    r->display = EGL_NO_DISPLAY;
    r->context = EGL_NO_CONTEXT;
    r->max_textures = d.max_textures;
    r->meshes = oroya_allocator_calloc(&d.allocator, d.max_meshes, sizeof *r->meshes, 16);
    r->textures = oroya_allocator_calloc(&d.allocator, d.max_textures, sizeof *r->textures, 16);
    if (!r->meshes || !r->textures) {
        oroya_allocator_free(&d.allocator, r->meshes);
        oroya_allocator_free(&d.allocator, r->textures);
        oroya_allocator_free(&d.allocator, r);
        return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                               "oroya_renderer_create: out of memory");
    }
    oroya_result res = OROYA_OK;
    if (!d.use_current_context) {
        r->own_context = true;
        res = create_context(r, err);
    } else if (!glGetString(GL_VERSION)) {
        res = oroya_error_set(
            err, OROYA_ERR_BACKEND,
            "oroya_renderer_create: use_current_context but no GL context is current");
    }
    if (res == OROYA_OK) {
        while (glGetError() != GL_NO_ERROR) {}
        snprintf(r->backend, sizeof r->backend, "%s | %s", (const char *)glGetString(GL_VERSION),
                 (const char *)glGetString(GL_RENDERER));
        GLint max_samples = 0;
        glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
        glGetIntegerv(GL_MAX_TEXTURE_SIZE, &r->max_texture_size);
        r->samples = d.msaa_samples > 1 ? d.msaa_samples : 1;
        if (r->samples > (uint32_t)max_samples)
            r->samples = max_samples > 1 ? (uint32_t)max_samples : 1;
        res = create_program(r, err);
    }
    if (res == OROYA_OK)
        res = create_targets(r, err);
    if (res == OROYA_OK) {
        static const float zero[4] = {0, 0, 0, 0};
        r->empty_texture = make_float_texture(1, 1, zero);
        res = check_gl(err, "GL: texture setup");
    }
    if (res != OROYA_OK) {
        oroya_renderer_destroy(r);
        return res;
    }
    *out = r;
    return OROYA_OK;
}

static void free_mesh_gl(mesh_slot *m) {
    glDeleteVertexArrays(1, &m->vao);
    glDeleteBuffers(8, m->buffers);
    if (m->morph_texture)
        glDeleteTextures(1, &m->morph_texture);
}

void oroya_renderer_destroy(oroya_renderer *r) {
    if (!r)
        return;
    bool have_gl = r->own_context ? r->context != EGL_NO_CONTEXT && make_current(r) : true;
    if (have_gl && (r->program || r->fbo)) {
        for (uint32_t i = 0; i < r->max_meshes; i++) {
            if (r->meshes[i].live)
                free_mesh_gl(&r->meshes[i]);
        }
        for (uint32_t i = 0; i < r->max_textures; i++) {
            if (r->textures[i].live)
                glDeleteTextures(1, &r->textures[i].texture);
        }
        delete_targets(r);
        if (r->empty_texture)
            glDeleteTextures(1, &r->empty_texture);
        if (r->bone_texture)
            glDeleteTextures(1, &r->bone_texture);
        if (r->program)
            glDeleteProgram(r->program);
    }
    if (r->own_context && r->display != EGL_NO_DISPLAY) {
        eglMakeCurrent(r->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (r->context != EGL_NO_CONTEXT)
            eglDestroyContext(r->display, r->context);
        if (atomic_fetch_sub(&egl_users, 1) == 1) {
            eglTerminate(r->display);
            eglReleaseThread();
        }
    }
    oroya_allocator a = r->allocator;
    oroya_allocator_free(&a, r->meshes);
    oroya_allocator_free(&a, r->textures);
    oroya_allocator_free(&a, r);
}

oroya_result oroya_renderer_resize(oroya_renderer *r, uint32_t width, uint32_t height,
                                   oroya_error *err) {
    if (!r)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_renderer_resize: renderer is NULL");
    if (!width || !height || width > OROYA_RENDER_MAX_SIZE || height > OROYA_RENDER_MAX_SIZE) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_renderer_resize: size %ux%u outside 1..%u", width, height,
                               OROYA_RENDER_MAX_SIZE);
    }
    if (r->in_frame)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_renderer_resize: inside a frame");
    if (width == r->width && height == r->height)
        return OROYA_OK;
    if (!make_current(r))
        return oroya_error_set(err, OROYA_ERR_BACKEND, "EGL: eglMakeCurrent failed");
    delete_targets(r);
    r->width = width;
    r->height = height;
    return create_targets(r, err);
}

void oroya_renderer_size(const oroya_renderer *r, uint32_t *width, uint32_t *height) {
    if (width)
        *width = r ? r->width : 0;
    if (height)
        *height = r ? r->height : 0;
}

const char *oroya_renderer_backend_string(const oroya_renderer *r) { return r ? r->backend : ""; }

/* ---- meshes ---------------------------------------------------------------------------- */

/* The slot index (from 1) of a handle id, or 0 when it is out of range; its generation. */
static uint32_t handle_slot(uint32_t id, uint32_t max, uint32_t *gen) {
    const uint32_t slot = id & 0xffffu;
    *gen = id >> 16;
    return slot <= max ? slot : 0;
}

static mesh_slot *lookup(const oroya_renderer *r, oroya_render_mesh mesh) {
    uint32_t gen, slot = r ? handle_slot(mesh.id, r->max_meshes, &gen) : 0;
    mesh_slot *m = slot ? &r->meshes[slot - 1] : NULL;
    return m && m->live && m->generation == gen ? m : NULL;
}

bool oroya_render_mesh_valid(const oroya_renderer *r, oroya_render_mesh mesh) {
    return lookup(r, mesh) != NULL;
}

/* Area-weighted vertex normals: the cross product of two edges is twice the face area times
 * the face normal, so summing it weights faces by area, as most DCC tools do. */
static void smooth_normals(const float *p, uint32_t vertex_count, const uint32_t *idx,
                           uint32_t index_count, float *out) {
    memset(out, 0, (size_t)vertex_count * 3 * sizeof(float));
    for (uint32_t t = 0; t + 2 < index_count; t += 3) {
        uint32_t i0 = idx ? idx[t] : t, i1 = idx ? idx[t + 1] : t + 1,
                 i2 = idx ? idx[t + 2] : t + 2;
        oroya_vec3 a = {p[i0 * 3], p[i0 * 3 + 1], p[i0 * 3 + 2]};
        oroya_vec3 b = {p[i1 * 3], p[i1 * 3 + 1], p[i1 * 3 + 2]};
        oroya_vec3 c = {p[i2 * 3], p[i2 * 3 + 1], p[i2 * 3 + 2]};
        oroya_vec3 n = oroya_vec3_cross(oroya_vec3_sub(b, a), oroya_vec3_sub(c, a));
        uint32_t corners[3] = {i0, i1, i2};
        for (int k = 0; k < 3; k++) {
            out[corners[k] * 3] += n.x;
            out[corners[k] * 3 + 1] += n.y;
            out[corners[k] * 3 + 2] += n.z;
        }
    }
    for (uint32_t v = 0; v < vertex_count; v++) {
        oroya_vec3 n =
            oroya_vec3_normalize((oroya_vec3){out[v * 3], out[v * 3 + 1], out[v * 3 + 2]});
        out[v * 3] = n.x;
        out[v * 3 + 1] = n.y;
        out[v * 3 + 2] = n.z;
    }
}

static oroya_result validate_mesh(const oroya_renderer *r, const oroya_render_mesh_desc *d,
                                  uint32_t index_count, oroya_error *err) {
    const char *f = "oroya_render_mesh_create";
    if (!d->positions || d->vertex_count == 0) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "%s: positions missing or vertex_count 0", f);
    }
    if (d->vertex_count > (1u << 24)) {
        return oroya_error_set(err, OROYA_ERR_LIMIT, "%s: vertex_count %u over 2^24", f,
                               d->vertex_count);
    }
    if (index_count == 0 || index_count % 3 != 0) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "%s: index_count %u is not a positive multiple of 3", f,
                               index_count);
    }
    if (!d->indices && index_count > d->vertex_count) {
        return oroya_error_set(err, OROYA_ERR_OUT_OF_RANGE,
                               "%s: index_count %u without indices exceeds vertex_count %u", f,
                               index_count, d->vertex_count);
    }
    size_t bad = 0, n3 = (size_t)d->vertex_count * 3;
    if (!finite_array(d->positions, n3, &bad)) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                               "%s: positions[%zu] (vertex %zu) is not finite", f, bad, bad / 3);
    }
    if (d->uvs && !finite_array(d->uvs, (size_t)d->vertex_count * 2, &bad)) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE, "%s: uvs[%zu] (vertex %zu) is not finite",
                               f, bad, bad / 2);
    }
    if (d->normals && !finite_array(d->normals, n3, &bad)) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                               "%s: normals[%zu] (vertex %zu) is not finite", f, bad, bad / 3);
    }
    if (d->indices) {
        for (uint32_t i = 0; i < index_count; i++) {
            if (d->indices[i] >= d->vertex_count) {
                return oroya_error_set(err, OROYA_ERR_OUT_OF_RANGE,
                                       "%s: indices[%u] = %u, but vertex_count is %u", f, i,
                                       d->indices[i], d->vertex_count);
            }
        }
    }
    if (d->skin_indices && !d->skin_weights) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "%s: skin_indices without skin_weights", f);
    }
    if (d->skin_weights) {
        if (!d->skin_indices) {
            return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                                   "%s: skin_weights without skin_indices", f);
        }
        for (size_t i = 0; i < (size_t)d->vertex_count * 4; i++) {
            if (!isfinite(d->skin_weights[i]) || d->skin_weights[i] < 0.0f) {
                return oroya_error_set(
                    err, OROYA_ERR_INVALID_DATA,
                    "%s: skin_weights[%zu] (vertex %zu) = %g is negative or not finite", f, i,
                    i / 4, (double)d->skin_weights[i]);
            }
        }
    }
    if ((d->skin_indices2 != NULL) != (d->skin_weights2 != NULL) ||
        (d->skin_indices2 && !d->skin_indices)) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "%s: skin_indices2 and skin_weights2 go together, with skin_indices",
                               f);
    }
    if (d->skin_weights2) {
        for (size_t i = 0; i < (size_t)d->vertex_count * 4; i++) {
            if (!isfinite(d->skin_weights2[i]) || d->skin_weights2[i] < 0.0f) {
                return oroya_error_set(
                    err, OROYA_ERR_INVALID_DATA,
                    "%s: skin_weights2[%zu] (vertex %zu) = %g is negative or not finite", f, i,
                    i / 4, (double)d->skin_weights2[i]);
            }
        }
    }
    if (d->morph_target_count > OROYA_RENDER_MAX_MORPH_TARGETS) {
        return oroya_error_set(err, OROYA_ERR_LIMIT, "%s: %u morph targets, at most %u", f,
                               d->morph_target_count, OROYA_RENDER_MAX_MORPH_TARGETS);
    }
    if (d->morph_target_count) {
        if (!d->morph_positions) {
            return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                                   "%s: morph_target_count %u without morph_positions", f,
                                   d->morph_target_count);
        }
        size_t n = n3 * d->morph_target_count;
        if (!finite_array(d->morph_positions, n, &bad)) {
            return oroya_error_set(
                err, OROYA_ERR_NON_FINITE,
                "%s: morph_positions[%zu] (target %zu, vertex %zu) is not finite", f, bad, bad / n3,
                (bad % n3) / 3);
        }
        if (d->morph_normals && !finite_array(d->morph_normals, n, &bad)) {
            return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                                   "%s: morph_normals[%zu] (target %zu, vertex %zu) is not finite",
                                   f, bad, bad / n3, (bad % n3) / 3);
        }
        uint64_t texels = (uint64_t)d->vertex_count * d->morph_target_count * 2;
        uint64_t rows = (texels + MORPH_TEXTURE_WIDTH - 1) / MORPH_TEXTURE_WIDTH;
        if (rows > (uint64_t)r->max_texture_size) {
            return oroya_error_set(err, OROYA_ERR_LIMIT,
                                   "%s: %u morph targets x %u vertices do not fit a %d-row texture",
                                   f, d->morph_target_count, d->vertex_count, r->max_texture_size);
        }
    }
    return OROYA_OK;
}

static GLuint upload_buffer(GLenum target, const void *data, size_t size) {
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(target, b);
    glBufferData(target, (GLsizeiptr)size, data, GL_STATIC_DRAW);
    return b;
}

/* One vertex attribute in its own buffer: `components` per vertex of GL_FLOAT or
 * GL_UNSIGNED_SHORT (joint indices, which the shaders read as integers) at `location`. */
static GLuint upload_attribute(GLuint location, const void *data, uint32_t vertex_count,
                               GLint components, GLenum type) {
    const size_t component_size = type == GL_FLOAT ? sizeof(float) : sizeof(uint16_t);
    GLuint b = upload_buffer(GL_ARRAY_BUFFER, data,
                             (size_t)vertex_count * (size_t)components * component_size);
    if (type == GL_FLOAT) {
        glVertexAttribPointer(location, components, GL_FLOAT, GL_FALSE, 0, 0);
    } else {
        glVertexAttribIPointer(location, components, type, 0, 0);
    }
    glEnableVertexAttribArray(location);
    return b;
}

oroya_result oroya_render_mesh_create(oroya_renderer *r, const oroya_render_mesh_desc *d,
                                      oroya_render_mesh *out, oroya_error *err) {
    if (out)
        out->id = 0;
    if (!r || !d || !out) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_mesh_create: renderer, desc or out is NULL");
    }
    uint32_t index_count = d->index_count;
    if (!d->indices && index_count == 0)
        index_count = d->vertex_count;
    oroya_result res = validate_mesh(r, d, index_count, err);
    if (res != OROYA_OK)
        return res;
    uint32_t slot = 0;
    while (slot < r->max_meshes && r->meshes[slot].live)
        slot++;
    if (slot == r->max_meshes) {
        return oroya_error_set(err, OROYA_ERR_LIMIT,
                               "oroya_render_mesh_create: all %u mesh slots in use", r->max_meshes);
    }
    if (!make_current(r))
        return oroya_error_set(err, OROYA_ERR_BACKEND, "EGL: eglMakeCurrent failed");

    size_t n3 = (size_t)d->vertex_count * 3;
    float *normals = NULL;
    uint32_t *indices = NULL;
    float *morph = NULL;
    if (!d->normals) {
        normals = oroya_allocator_alloc(&r->allocator, n3 * sizeof(float), 16);
        if (!normals)
            return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                                   "oroya_render_mesh_create: out of memory");
        smooth_normals(d->positions, d->vertex_count, d->indices, index_count, normals);
    }
    if (!d->indices) {
        indices = oroya_allocator_alloc(&r->allocator, (size_t)index_count * sizeof(uint32_t), 16);
        if (!indices) {
            oroya_allocator_free(&r->allocator, normals);
            return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                                   "oroya_render_mesh_create: out of memory");
        }
        for (uint32_t i = 0; i < index_count; i++)
            indices[i] = i;
    }
    uint32_t morph_rows = 0;
    if (d->morph_target_count) {
        size_t texels = (size_t)d->vertex_count * d->morph_target_count * 2;
        morph_rows = (uint32_t)((texels + MORPH_TEXTURE_WIDTH - 1) / MORPH_TEXTURE_WIDTH);
        morph = oroya_allocator_calloc(&r->allocator, (size_t)morph_rows * MORPH_TEXTURE_WIDTH * 4,
                                       sizeof(float), 16);
        if (!morph) {
            oroya_allocator_free(&r->allocator, normals);
            oroya_allocator_free(&r->allocator, indices);
            return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                                   "oroya_render_mesh_create: out of memory");
        }
        /* Texel (t * vertex_count + v) * 2 is target t's position delta of vertex v, the next
         * one its normal delta; the vertex shader indexes them with gl_VertexID. */
        for (size_t t = 0; t < d->morph_target_count; t++) {
            for (size_t v = 0; v < d->vertex_count; v++) {
                size_t k = (t * d->vertex_count + v) * 2, src = t * n3 + v * 3;
                memcpy(&morph[k * 4], &d->morph_positions[src], 3 * sizeof(float));
                if (d->morph_normals)
                    memcpy(&morph[(k + 1) * 4], &d->morph_normals[src], 3 * sizeof(float));
            }
        }
    }

    mesh_slot *m = &r->meshes[slot];
    uint16_t generation = m->generation ? m->generation : 1;
    memset(m, 0, sizeof *m);
    m->generation = generation;
    m->vertex_count = d->vertex_count;
    m->index_count = index_count;
    m->morph_target_count = d->morph_target_count;
    m->morph_normals = d->morph_normals != NULL;
    m->skinned = d->skin_indices != NULL;
    if (m->skinned) {
        /* Draw-time check against the bone count: only influences with weight count, as a
         * zero weight contributes nothing (glTF pads unused influences with index 0). */
        for (uint32_t v = 0; v < d->vertex_count; v++) {
            for (uint32_t k = 0; k < 4; k++) {
                uint32_t j = d->skin_indices[v * 4 + k];
                if (d->skin_weights[v * 4 + k] != 0.0f && j > m->max_skin_index) {
                    m->max_skin_index = j;
                    m->max_skin_index_vertex = v;
                }
                if (d->skin_weights2 && d->skin_weights2[v * 4 + k] != 0.0f &&
                    d->skin_indices2[v * 4 + k] > m->max_skin_index) {
                    m->max_skin_index = d->skin_indices2[v * 4 + k];
                    m->max_skin_index_vertex = v;
                }
            }
        }
    }
    m->position_reach = 0;
    for (size_t i = 0; i < n3; i++) {
        m->position_reach = fmaxf(m->position_reach, fabsf(d->positions[i]));
    }
    for (uint32_t t = 0; t < d->morph_target_count; t++) {
        m->morph_reach[t] = 0;
        for (size_t i = 0; d->morph_positions && i < n3; i++) {
            m->morph_reach[t] = fmaxf(m->morph_reach[t], fabsf(d->morph_positions[t * n3 + i]));
        }
    }
    glGenVertexArrays(1, &m->vao);
    glBindVertexArray(m->vao);
    const uint32_t nv = d->vertex_count;
    m->buffers[0] = upload_attribute(0, d->positions, nv, 3, GL_FLOAT);
    m->buffers[1] = upload_attribute(1, d->normals ? d->normals : normals, nv, 3, GL_FLOAT);
    if (m->skinned) {
        m->buffers[2] = upload_attribute(2, d->skin_indices, nv, 4, GL_UNSIGNED_SHORT);
        m->buffers[3] = upload_attribute(3, d->skin_weights, nv, 4, GL_FLOAT);
        if (d->skin_indices2) {
            m->skinned8 = true;
            m->buffers[5] = upload_attribute(4, d->skin_indices2, nv, 4, GL_UNSIGNED_SHORT);
            m->buffers[6] = upload_attribute(5, d->skin_weights2, nv, 4, GL_FLOAT);
        }
    }
    if (d->uvs) {
        m->buffers[7] = upload_attribute(6, d->uvs, nv, 2, GL_FLOAT);
    }
    m->buffers[4] = upload_buffer(GL_ELEMENT_ARRAY_BUFFER, d->indices ? d->indices : indices,
                                  (size_t)index_count * sizeof(uint32_t));
    glBindVertexArray(0);
    if (morph) {
        m->morph_texture =
            make_float_texture((GLsizei)MORPH_TEXTURE_WIDTH, (GLsizei)morph_rows, morph);
    }
    oroya_allocator_free(&r->allocator, normals);
    oroya_allocator_free(&r->allocator, indices);
    oroya_allocator_free(&r->allocator, morph);
    m->live = true;
    res = check_gl(err, "oroya_render_mesh_create: GL upload");
    if (res != OROYA_OK) {
        free_mesh_gl(m);
        m->live = false;
        return res;
    }
    out->id = ((uint32_t)m->generation << 16) | (slot + 1);
    return OROYA_OK;
}

oroya_result oroya_render_mesh_update(oroya_renderer *r, oroya_render_mesh mesh,
                                      const float *positions, const float *normals,
                                      uint32_t vertex_count, oroya_error *err) {
    if (!r || !positions) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_mesh_update: renderer or positions is NULL");
    }
    mesh_slot *m = lookup(r, mesh);
    if (!m) {
        return oroya_error_set(err, mesh.id ? OROYA_ERR_STALE_HANDLE : OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_mesh_update: mesh handle 0x%08x is %s", mesh.id,
                               mesh.id ? "stale" : "zero");
    }
    if (vertex_count != m->vertex_count) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_mesh_update: vertex_count %u, the mesh has %u",
                               vertex_count, m->vertex_count);
    }
    size_t bad = 0, n3 = (size_t)vertex_count * 3;
    if (!finite_array(positions, n3, &bad) || (normals && !finite_array(normals, n3, &bad))) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                               "oroya_render_mesh_update: %s[%zu] (vertex %zu) is not finite",
                               finite_array(positions, n3, &bad) ? "normals" : "positions", bad,
                               bad / 3);
    }
    if (!make_current(r))
        return oroya_error_set(err, OROYA_ERR_BACKEND, "EGL: eglMakeCurrent failed");
    glBindBuffer(GL_ARRAY_BUFFER, m->buffers[0]);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n3 * sizeof(float)), positions);
    if (normals) {
        glBindBuffer(GL_ARRAY_BUFFER, m->buffers[1]);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(n3 * sizeof(float)), normals);
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return check_gl(err, "oroya_render_mesh_update");
}

void oroya_render_mesh_destroy(oroya_renderer *r, oroya_render_mesh mesh) {
    mesh_slot *m = lookup(r, mesh);
    if (!m || !make_current(r))
        return;
    free_mesh_gl(m);
    uint16_t next = (uint16_t)(m->generation + 1);
    memset(m, 0, sizeof *m);
    m->generation = next ? next : 1;
}

/* ---- textures -------------------------------------------------------------------------- */

static texture_slot *texture_lookup(const oroya_renderer *r, oroya_render_texture t) {
    uint32_t gen, slot = r ? handle_slot(t.id, r->max_textures, &gen) : 0;
    texture_slot *s = slot ? &r->textures[slot - 1] : NULL;
    return s && s->live && s->generation == gen ? s : NULL;
}

oroya_result oroya_render_texture_create(oroya_renderer *r, uint32_t width, uint32_t height,
                                         const uint8_t *rgba, oroya_render_texture *out,
                                         oroya_error *err) {
    if (out)
        out->id = 0;
    if (!r || !rgba || !out) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_texture_create: NULL argument");
    }
    if (!width || !height || width > (uint32_t)r->max_texture_size ||
        height > (uint32_t)r->max_texture_size) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_texture_create: size %ux%u outside 1..%d", width,
                               height, r->max_texture_size);
    }
    uint32_t slot = 0;
    while (slot < r->max_textures && r->textures[slot].live)
        slot++;
    if (slot == r->max_textures) {
        return oroya_error_set(err, OROYA_ERR_LIMIT,
                               "oroya_render_texture_create: all %u texture slots in use",
                               r->max_textures);
    }
    if (!make_current(r))
        return oroya_error_set(err, OROYA_ERR_BACKEND, "EGL: eglMakeCurrent failed");
    texture_slot *s = &r->textures[slot];
    glGenTextures(1, &s->texture);
    glBindTexture(GL_TEXTURE_2D, s->texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    /* Rows go up top row first, so texture row 0 is the image's top: glTF's uv (0, 0). */
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, (GLsizei)width, (GLsizei)height, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, rgba);
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    oroya_result res = check_gl(err, "oroya_render_texture_create");
    if (res != OROYA_OK) {
        glDeleteTextures(1, &s->texture);
        s->texture = 0;
        return res;
    }
    if (!s->generation)
        s->generation = 1;
    s->live = true;
    out->id = ((uint32_t)s->generation << 16) | (slot + 1);
    return OROYA_OK;
}

oroya_result oroya_render_texture_set_sampler(oroya_renderer *r, oroya_render_texture t,
                                              const oroya_render_sampler *sampler,
                                              oroya_error *err) {
    if (!r || !sampler)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_texture_set_sampler: NULL argument");
    /* glTF's values are OpenGL's enums (glTF 2.0 section 5.26). */
    GLint mag = sampler->mag_filter ? (GLint)sampler->mag_filter : GL_LINEAR;
    GLint min = sampler->min_filter ? (GLint)sampler->min_filter : GL_LINEAR_MIPMAP_LINEAR;
    GLint wrap[2] = {sampler->wrap_s ? (GLint)sampler->wrap_s : GL_REPEAT,
                     sampler->wrap_t ? (GLint)sampler->wrap_t : GL_REPEAT};
    if (mag != GL_NEAREST && mag != GL_LINEAR)
        return oroya_error_set(
            err, OROYA_ERR_INVALID_ARGUMENT,
            "oroya_render_texture_set_sampler: mag_filter %u is not 9728 or 9729",
            sampler->mag_filter);
    if (min != GL_NEAREST && min != GL_LINEAR &&
        (min < GL_NEAREST_MIPMAP_NEAREST || min > GL_LINEAR_MIPMAP_LINEAR))
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_texture_set_sampler: min_filter %u is not 9728, "
                               "9729 or 9984..9987",
                               sampler->min_filter);
    for (int i = 0; i < 2; i++) {
        if (wrap[i] != GL_REPEAT && wrap[i] != GL_CLAMP_TO_EDGE && wrap[i] != GL_MIRRORED_REPEAT)
            return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                                   "oroya_render_texture_set_sampler: %s %u is not 10497, 33071 "
                                   "or 33648",
                                   i ? "wrap_t" : "wrap_s", i ? sampler->wrap_t : sampler->wrap_s);
    }
    texture_slot *s = texture_lookup(r, t);
    if (!s)
        return oroya_error_set(err, OROYA_ERR_STALE_HANDLE,
                               "oroya_render_texture_set_sampler: texture %u is not live", t.id);
    if (!make_current(r))
        return oroya_error_set(err, OROYA_ERR_BACKEND, "EGL: eglMakeCurrent failed");
    glBindTexture(GL_TEXTURE_2D, s->texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, wrap[0]);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, wrap[1]);
    return check_gl(err, "oroya_render_texture_set_sampler");
}

void oroya_render_texture_destroy(oroya_renderer *r, oroya_render_texture t) {
    texture_slot *s = texture_lookup(r, t);
    if (!s || !make_current(r))
        return;
    glDeleteTextures(1, &s->texture);
    uint16_t next = (uint16_t)(s->generation + 1);
    memset(s, 0, sizeof *s);
    s->generation = next ? next : 1;
}

/* ---- frames ---------------------------------------------------------------------------- */

oroya_render_material oroya_render_material_default(void) {
    return (oroya_render_material){.base_color = {1, 1, 1, 1}, .metallic = 0.0f, .roughness = 0.5f};
}

oroya_result oroya_render_begin(oroya_renderer *r, const oroya_render_view *view,
                                oroya_error *err) {
    if (!r || !view)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_begin: renderer or view is NULL");
    if (view->light_count && !view->lights) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_begin: light_count %u but lights is NULL",
                               view->light_count);
    }
    size_t bad = 0;
    if (!finite_array(view->view.m, 16, &bad) || !finite_array(view->projection.m, 16, &bad)) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                               "oroya_render_begin: a camera matrix is not finite");
    }
    if (!finite_array(view->background, 4, &bad)) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                               "oroya_render_begin: background[%zu] is not finite", bad);
    }
    oroya_mat4 inv_view;
    if (!oroya_mat4_invert(view->view, &inv_view)) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_begin: view matrix is singular");
    }
    float vec[OROYA_RENDER_MAX_LIGHTS * 4] = {0}, col[OROYA_RENDER_MAX_LIGHTS * 4] = {0};
    float ambient[3] = {0, 0, 0};
    int count = 0;
    for (uint32_t i = 0; i < view->light_count; i++) {
        const oroya_render_light *l = &view->lights[i];
        float c[3] = {l->color[0] * l->intensity, l->color[1] * l->intensity,
                      l->color[2] * l->intensity};
        if (!isfinite(c[0]) || !isfinite(c[1]) || !isfinite(c[2])) {
            return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                                   "oroya_render_begin: lights[%u] color is not finite", i);
        }
        if (l->type == OROYA_RENDER_LIGHT_AMBIENT) {
            for (int k = 0; k < 3; k++)
                ambient[k] += c[k];
            continue;
        }
        if (l->type != OROYA_RENDER_LIGHT_DIRECTIONAL && l->type != OROYA_RENDER_LIGHT_POINT) {
            return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                                   "oroya_render_begin: lights[%u] has type %d", i, (int)l->type);
        }
        if (count == OROYA_RENDER_MAX_LIGHTS) {
            return oroya_error_set(err, OROYA_ERR_LIMIT,
                                   "oroya_render_begin: more than %d non-ambient lights",
                                   OROYA_RENDER_MAX_LIGHTS);
        }
        oroya_vec3 p = l->type == OROYA_RENDER_LIGHT_DIRECTIONAL ? l->direction : l->position;
        if (l->type == OROYA_RENDER_LIGHT_DIRECTIONAL && oroya_vec3_length(p) == 0.0f) {
            return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                                   "oroya_render_begin: lights[%u] direction is zero", i);
        }
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z) || !isfinite(l->range)) {
            return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                                   "oroya_render_begin: lights[%u] is not finite", i);
        }
        vec[count * 4] = p.x;
        vec[count * 4 + 1] = p.y;
        vec[count * 4 + 2] = p.z;
        vec[count * 4 + 3] = l->type == OROYA_RENDER_LIGHT_POINT ? 1.0f : 0.0f;
        memcpy(&col[count * 4], c, sizeof c);
        col[count * 4 + 3] = l->type == OROYA_RENDER_LIGHT_POINT ? l->range : 0.0f;
        count++;
    }
    if (!make_current(r))
        return oroya_error_set(err, OROYA_ERR_BACKEND, "EGL: eglMakeCurrent failed");
    oroya_mat4 vp = oroya_mat4_mul(view->projection, view->view);
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
    glViewport(0, 0, (GLsizei)r->width, (GLsizei)r->height);
    glClearColor(powf(fmaxf(view->background[0], 0.0f), 1.0f / 2.2f),
                 powf(fmaxf(view->background[1], 0.0f), 1.0f / 2.2f),
                 powf(fmaxf(view->background[2], 0.0f), 1.0f / 2.2f), view->background[3]);
    glClearDepthf(1.0f);
    glDepthMask(GL_TRUE);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glUseProgram(r->program);
    glUniformMatrix4fv(r->uniforms[U_VIEW_PROJ], 1, GL_FALSE, vp.m);
    glUniform3f(r->uniforms[U_CAMERA_POS], inv_view.m[12], inv_view.m[13], inv_view.m[14]);
    glUniform1i(r->uniforms[U_LIGHT_COUNT], count);
    glUniform4fv(r->uniforms[U_LIGHT_VEC], OROYA_RENDER_MAX_LIGHTS, vec);
    glUniform4fv(r->uniforms[U_LIGHT_COLOR], OROYA_RENDER_MAX_LIGHTS, col);
    glUniform3fv(r->uniforms[U_AMBIENT], 1, ambient);
    r->in_frame = true;
    return check_gl(err, "oroya_render_begin");
}

/* Grows the bone texture to the three.js side for bone_count and uploads the matrices row by
 * row. Growing allocates once (zero padding); steady-state frames only call glTexSubImage2D. */
static oroya_result upload_bones(oroya_renderer *r, const float *bones, uint32_t bone_count,
                                 oroya_error *err) {
    uint32_t side = oroya_bone_texture_side(bone_count);
    if (side > (uint32_t)r->max_texture_size) {
        return oroya_error_set(err, OROYA_ERR_LIMIT,
                               "oroya_render_draw: %u bones need a %ux%u texture, GPU max %d",
                               bone_count, side, side, r->max_texture_size);
    }
    if (side != r->bone_texture_side) {
        float *zero =
            oroya_allocator_calloc(&r->allocator, (size_t)side * side * 4, sizeof(float), 16);
        if (!zero)
            return oroya_error_set(err, OROYA_ERR_OUT_OF_MEMORY,
                                   "oroya_render_draw: out of memory");
        if (r->bone_texture)
            glDeleteTextures(1, &r->bone_texture);
        r->bone_texture = make_float_texture((GLsizei)side, (GLsizei)side, zero);
        r->bone_texture_side = side;
        oroya_allocator_free(&r->allocator, zero);
    }
    glBindTexture(GL_TEXTURE_2D, r->bone_texture);
    uint32_t texels = bone_count * 4, full_rows = texels / side, rest = texels % side;
    if (full_rows) {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)side, (GLsizei)full_rows, GL_RGBA,
                        GL_FLOAT, bones);
    }
    if (rest) {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, (GLint)full_rows, (GLsizei)rest, 1, GL_RGBA, GL_FLOAT,
                        bones + (size_t)full_rows * side * 4);
    }
    return OROYA_OK;
}

oroya_result oroya_render_draw(oroya_renderer *r, const oroya_render_draw_desc *d,
                               oroya_error *err) {
    if (!r || !d)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_draw: renderer or draw is NULL");
    if (!r->in_frame)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_draw: called outside begin/end");
    mesh_slot *m = lookup(r, d->mesh);
    if (!m) {
        return oroya_error_set(err,
                               d->mesh.id ? OROYA_ERR_STALE_HANDLE : OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_draw: mesh handle 0x%08x is %s", d->mesh.id,
                               d->mesh.id ? "stale" : "zero");
    }
    oroya_mat4 model = mat_or_identity(&d->model);
    oroya_mat4 bind = mat_or_identity(&d->bind_matrix);
    oroya_mat4 bind_inv = mat_or_identity(&d->bind_matrix_inverse);
    size_t bad = 0;
    if (!finite_array(model.m, 16, &bad) || !finite_array(bind.m, 16, &bad) ||
        !finite_array(bind_inv.m, 16, &bad)) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                               "oroya_render_draw: model or bind matrix is not finite");
    }
    const oroya_render_material *mat = &d->material;
    if (!finite_array(mat->base_color, 4, &bad) || !isfinite(mat->metallic) ||
        !isfinite(mat->roughness) || !isfinite(mat->grid_spacing)) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                               "oroya_render_draw: material is not finite");
    }
    if (d->morph_weight_count > m->morph_target_count) {
        return oroya_error_set(err, OROYA_ERR_OUT_OF_RANGE,
                               "oroya_render_draw: %u morph weights for a mesh with %u targets",
                               d->morph_weight_count, m->morph_target_count);
    }
    if (d->morph_weight_count && !d->morph_weights) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_draw: morph_weights is NULL");
    }
    if (d->morph_weights && !finite_array(d->morph_weights, d->morph_weight_count, &bad)) {
        return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                               "oroya_render_draw: morph_weights[%zu] is not finite", bad);
    }
    if (d->morph_weights) {
        /* Finite weights can still take position + sum(w * delta) past float (3e38 on two
         * targets): the mesh vanished from the image with no error. */
        double reach = m->position_reach;
        for (uint32_t k = 0; k < d->morph_weight_count; k++) {
            reach += fabs((double)d->morph_weights[k]) * (double)m->morph_reach[k];
        }
        if (!(reach <= FLT_MAX)) {
            return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                                   "oroya_render_draw: morph_weights: the morphed positions "
                                   "would not be finite (a coordinate could reach %g)",
                                   reach);
        }
    }
    if (m->skinned) {
        if (!d->bone_matrices || d->bone_count == 0) {
            return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                                   "oroya_render_draw: skinned mesh drawn without bone matrices");
        }
        if (m->max_skin_index >= d->bone_count) {
            return oroya_error_set(
                err, OROYA_ERR_OUT_OF_RANGE,
                "oroya_render_draw: vertex %u uses bone %u, but %u bone matrices were given",
                m->max_skin_index_vertex, m->max_skin_index, d->bone_count);
        }
        if (!finite_array(d->bone_matrices, (size_t)d->bone_count * 16, &bad)) {
            return oroya_error_set(err, OROYA_ERR_NON_FINITE,
                                   "oroya_render_draw: bone_matrices[%zu] (bone %zu) is not finite",
                                   bad, bad / 16);
        }
    }
    const texture_slot *tex = NULL;
    if (mat->base_color_texture.id) {
        tex = texture_lookup(r, mat->base_color_texture);
        if (!tex) {
            return oroya_error_set(err, OROYA_ERR_STALE_HANDLE,
                                   "oroya_render_draw: texture handle 0x%08x is stale",
                                   mat->base_color_texture.id);
        }
    }
    oroya_mat4 model_inv;
    if (!oroya_mat4_invert(model, &model_inv)) {
        /* A zero scale (a collapsed node) draws nothing visible; its normals do not matter. */
        model_inv = oroya_mat4_identity();
    }
    float normal_matrix[9];
    for (int c = 0; c < 3; c++) {
        for (int rr = 0; rr < 3; rr++)
            normal_matrix[c * 3 + rr] = model_inv.m[rr * 4 + c];
    }
    glActiveTexture(GL_TEXTURE0);
    if (m->skinned) {
        oroya_result res = upload_bones(r, d->bone_matrices, d->bone_count, err);
        if (res != OROYA_OK)
            return res;
    } else {
        glBindTexture(GL_TEXTURE_2D, r->empty_texture);
    }
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, m->morph_texture ? m->morph_texture : r->empty_texture);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, tex ? tex->texture : r->empty_texture);
    glUniform1i(r->uniforms[U_HAS_TEX], tex ? 1 : 0);
    glActiveTexture(GL_TEXTURE0);
    glUniformMatrix4fv(r->uniforms[U_MODEL], 1, GL_FALSE, model.m);
    glUniformMatrix3fv(r->uniforms[U_NORMAL_MATRIX], 1, GL_FALSE, normal_matrix);
    glUniform1i(r->uniforms[U_SKINNED], m->skinned ? 1 : 0);
    glUniform1i(r->uniforms[U_SKIN8], m->skinned8 ? 1 : 0);
    glUniformMatrix4fv(r->uniforms[U_BIND], 1, GL_FALSE, bind.m);
    glUniformMatrix4fv(r->uniforms[U_BIND_INV], 1, GL_FALSE, bind_inv.m);
    glUniform1i(r->uniforms[U_MORPH_COUNT], (GLint)d->morph_weight_count);
    if (d->morph_weight_count) {
        glUniform1fv(r->uniforms[U_MORPH_WEIGHTS], (GLsizei)d->morph_weight_count,
                     d->morph_weights);
    }
    glUniform1i(r->uniforms[U_VERTEX_COUNT], (GLint)m->vertex_count);
    glUniform1i(r->uniforms[U_MORPH_NORMALS], m->morph_normals ? 1 : 0);
    glUniform4fv(r->uniforms[U_BASE_COLOR], 1, mat->base_color);
    glUniform1f(r->uniforms[U_METALLIC], mat->metallic);
    glUniform1f(r->uniforms[U_ROUGHNESS], mat->roughness);
    glUniform1f(r->uniforms[U_GRID], mat->grid_spacing);
    glUniform1i(r->uniforms[U_UNLIT], mat->unlit || d->lines ? 1 : 0);
    if (d->lines || d->on_top)
        glDisable(GL_DEPTH_TEST);
    if (!mat->double_sided && !d->lines) {
        glEnable(GL_CULL_FACE);
        glCullFace(GL_BACK);
    }
    if (mat->base_color[3] < 1.0f) {
        glEnable(GL_BLEND);
        /* Alpha accumulates as "over" too, so an opaque background stays opaque in the
         * read-back image. */
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    }
    glBindVertexArray(m->vao);
    GLsizei n = (GLsizei)(d->lines ? m->index_count / 2 * 2 : m->index_count);
    glDrawElements(d->lines ? GL_LINES : GL_TRIANGLES, n, GL_UNSIGNED_INT, 0);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glDisable(GL_CULL_FACE);
    glEnable(GL_DEPTH_TEST);
    return check_gl(err, "oroya_render_draw");
}

oroya_result oroya_render_end(oroya_renderer *r, oroya_error *err) {
    if (!r)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_end: renderer is NULL");
    if (!r->in_frame)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT, "oroya_render_end: no frame begun");
    r->in_frame = false;
    if (r->resolve_fbo) {
        GLint w = (GLint)r->width, h = (GLint)r->height;
        glBindFramebuffer(GL_READ_FRAMEBUFFER, r->fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->resolve_fbo);
        glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    }
    r->has_frame = true;
    return check_gl(err, "oroya_render_end");
}

oroya_result oroya_render_read_pixels(oroya_renderer *r, uint8_t *out, size_t out_size,
                                      oroya_error *err) {
    if (!r || !out)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_read_pixels: renderer or out is NULL");
    size_t row = (size_t)r->width * 4, need = row * r->height;
    if (out_size < need) {
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_read_pixels: out_size %zu, need %zu (%ux%u RGBA8)",
                               out_size, need, r->width, r->height);
    }
    if (!r->has_frame)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_read_pixels: no finished frame");
    if (!make_current(r))
        return oroya_error_set(err, OROYA_ERR_BACKEND, "EGL: eglMakeCurrent failed");
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->resolve_fbo ? r->resolve_fbo : r->fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)r->width, (GLsizei)r->height, GL_RGBA, GL_UNSIGNED_BYTE, out);
    oroya_result res = check_gl(err, "oroya_render_read_pixels");
    if (res != OROYA_OK)
        return res;
    /* GL's origin is the bottom-left corner; images store the top row first. */
    for (uint32_t y = 0; y < r->height / 2; y++) {
        uint8_t *a = out + (size_t)y * row, *b = out + (size_t)(r->height - 1 - y) * row;
        for (size_t i = 0; i < row; i++) {
            uint8_t t = a[i];
            a[i] = b[i];
            b[i] = t;
        }
    }
    return OROYA_OK;
}

oroya_result oroya_render_present(oroya_renderer *r, uint32_t dst_width, uint32_t dst_height,
                                  oroya_error *err) {
    if (!r)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_present: renderer is NULL");
    if (!r->has_frame)
        return oroya_error_set(err, OROYA_ERR_INVALID_ARGUMENT,
                               "oroya_render_present: no finished frame");
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->resolve_fbo ? r->resolve_fbo : r->fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    glBlitFramebuffer(0, 0, (GLint)r->width, (GLint)r->height, 0, 0, (GLint)dst_width,
                      (GLint)dst_height, GL_COLOR_BUFFER_BIT, GL_LINEAR);
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
    return check_gl(err, "oroya_render_present");
}

/* ---- camera helpers -------------------------------------------------------------------- */

oroya_mat4 oroya_render_perspective(float fov_y_degrees, float aspect, float near, float far) {
    /* three.js PerspectiveCamera.updateProjectionMatrix with zoom 1 and no view offset. */
    float f = 1.0f / tanf(fov_y_degrees * 0.5f * 3.14159265358979f / 180.0f);
    oroya_mat4 m = {{0}};
    m.m[0] = f / aspect;
    m.m[5] = f;
    m.m[10] = (far + near) / (near - far);
    m.m[11] = -1.0f;
    m.m[14] = 2.0f * far * near / (near - far);
    return m;
}

oroya_mat4 oroya_render_orthographic(float left, float right, float bottom, float top, float near,
                                     float far) {
    oroya_mat4 m = oroya_mat4_identity();
    m.m[0] = 2.0f / (right - left);
    m.m[5] = 2.0f / (top - bottom);
    m.m[10] = -2.0f / (far - near);
    m.m[12] = -(right + left) / (right - left);
    m.m[13] = -(top + bottom) / (top - bottom);
    m.m[14] = -(far + near) / (far - near);
    return m;
}

oroya_mat4 oroya_render_look_at(oroya_vec3 eye, oroya_vec3 target, oroya_vec3 up) {
    oroya_vec3 z = oroya_vec3_normalize(oroya_vec3_sub(eye, target));
    if (oroya_vec3_length(z) == 0.0f)
        z = (oroya_vec3){0, 0, 1};
    oroya_vec3 x = oroya_vec3_normalize(oroya_vec3_cross(up, z));
    if (oroya_vec3_length(x) == 0.0f) {
        /* up parallel to the view direction: pick another up, as three.js lookAt does. */
        x = oroya_vec3_normalize(oroya_vec3_cross((oroya_vec3){0, 0, 1}, z));
        if (oroya_vec3_length(x) == 0.0f)
            x = (oroya_vec3){1, 0, 0};
    }
    oroya_vec3 y = oroya_vec3_cross(z, x);
    oroya_mat4 m = oroya_mat4_identity();
    m.m[0] = x.x;
    m.m[4] = x.y;
    m.m[8] = x.z;
    m.m[1] = y.x;
    m.m[5] = y.y;
    m.m[9] = y.z;
    m.m[2] = z.x;
    m.m[6] = z.y;
    m.m[10] = z.z;
    m.m[12] = -oroya_vec3_dot(x, eye);
    m.m[13] = -oroya_vec3_dot(y, eye);
    m.m[14] = -oroya_vec3_dot(z, eye);
    return m;
}
