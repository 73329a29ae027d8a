/* The renderer's shader sources for other front ends (oroya_render_shader_source in
 * oroya/render.h). No GL calls: the web build compiles this file alone of src/render. */
#include "oroya/render.h"

#include "internal/render_shaders.h"

const char *oroya_render_shader_source(oroya_render_shader_stage stage) {
    switch (stage) {
    case OROYA_RENDER_SHADER_VERTEX: return oroya__render_vertex_shader;
    case OROYA_RENDER_SHADER_FRAGMENT: return oroya__render_fragment_shader;
    }
    return "";
}
