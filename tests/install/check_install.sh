#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds a 5-line program against it through
# pkg-config and through CMake's find_package(oroya); then a program that needs the static
# library's own dependencies (the thread pool: pthreads; the glTF parser: cJSON) against
# oroya::oroya_static and `pkg-config --static`; then, when the renderer was built, a program
# that draws a triangle offscreen and writes a PNG, through pkg-config oroya_render (shared,
# and static with `pkg-config --static`).
set -euo pipefail
build="$(cd "${1:-build}" && pwd)"
src="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

cat > "$tmp/app.c" <<'C'
#include <oroya/oroya.h>
#include <stdio.h>
int main(void) {
    printf("%.3f\n", (double)oroya_float_hermite(0.5f, 0.0f, 5.0f, 10.0f, -2.0f));
    return 0;
}
C
libdir=$(find "$prefix" -name oroya.pc -printf '%h\n' | head -n1)
PKG_CONFIG_PATH="$libdir" cc "$tmp/app.c" -o "$tmp/app_pc" $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs oroya) \
  -Wl,-rpath,"$(dirname "$libdir")"
out=$("$tmp/app_pc")
[ "$out" = "5.875" ] || { echo "FAIL pkg-config build printed '$out'"; exit 1; }
echo "PASS install: pkg-config --cflags --libs oroya"

mkdir -p "$tmp/cm"
cat > "$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(app C)
find_package(oroya REQUIRED)
add_executable(app ../app.c)
target_link_libraries(app oroya::oroya)
CM
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cm/build" >/dev/null
out=$("$tmp/cm/build/app")
[ "$out" = "5.875" ] || { echo "FAIL find_package build printed '$out'"; exit 1; }
echo "PASS install: find_package(oroya) + oroya::oroya"

cat > "$tmp/app_static.c" <<'C'
#include <oroya/oroya.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    oroya_thread_pool *pool = NULL;
    oroya_gltf_data *data = NULL;
    const char *json = "{\"asset\": {\"version\": \"2.0\"}}";
    if (oroya_thread_pool_create(&(oroya_thread_pool_desc){.thread_count = 2}, &pool, NULL) ||
        oroya_gltf_parse(NULL, json, strlen(json), &data, NULL)) {
        return 1;
    }
    oroya_gltf_free(data);
    oroya_thread_pool_destroy(pool);
    printf("ok\n");
    return 0;
}
C
mkdir -p "$tmp/cms"
cat > "$tmp/cms/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(app C)
find_package(oroya REQUIRED)
add_executable(app ../app_static.c)
target_link_libraries(app oroya::oroya_static)
# The render library's static target resolves its dependencies too (when it was built).
if(TARGET oroya::oroya_render_static)
  add_executable(app_render ../app_static.c)
  target_link_libraries(app_render oroya::oroya_render_static)
endif()
CM
cmake -S "$tmp/cms" -B "$tmp/cms/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cms/build" >/dev/null
out=$("$tmp/cms/build/app")
[ "$out" = "ok" ] || { echo "FAIL find_package static build printed '$out'"; exit 1; }
ldd "$tmp/cms/build/app" | grep -q liboroya && { echo "FAIL the static build links liboroya.so"; exit 1; }
echo "PASS install: find_package(oroya) + oroya::oroya_static"

PKG_CONFIG_PATH="$libdir" cc "$tmp/app_static.c" -o "$tmp/app_pcs" -static-libgcc \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags oroya) "$libdir/../liboroya.a" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --static --libs-only-l --libs-only-other oroya | sed 's/-loroya//')
out=$("$tmp/app_pcs")
[ "$out" = "ok" ] || { echo "FAIL pkg-config --static build printed '$out'"; exit 1; }
echo "PASS install: liboroya.a + pkg-config --static"
passed=4

# The renderer is optional in the build; when its library is installed, so is its .pc.
if [ -f "$libdir/../liboroya_render.a" ]; then
[ -f "$libdir/oroya_render.pc" ] || { echo "FAIL liboroya_render is installed without oroya_render.pc"; exit 1; }
cat > "$tmp/app_render.c" <<'C'
#include <oroya/render.h>
#include <stdio.h>
#include <stdlib.h>
/* One unlit red triangle covering the centre of a 16 x 16 image, on black. */
int main(int argc, char **argv) {
    if (argc < 2) {
        return 2;
    }
    oroya_renderer *r = NULL;
    oroya_error err = {0};
    if (oroya_renderer_create(&(oroya_renderer_desc){.width = 16, .height = 16}, &r, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const float p[] = {-1, -1, 0, 1, -1, 0, 0, 1, 0}, n[] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    const uint32_t idx[] = {0, 1, 2};
    oroya_render_mesh mesh;
    const oroya_mat4 id = oroya_mat4_identity();
    oroya_render_material mat = oroya_render_material_default();
    mat.base_color[0] = 1, mat.base_color[1] = 0, mat.base_color[2] = 0, mat.unlit = true;
    oroya_render_view view = {.view = id, .projection = id, .background = {0, 0, 0, 1}};
    static uint8_t px[16 * 16 * 4];
    if (oroya_render_mesh_create(r, &(oroya_render_mesh_desc){.positions = p, .normals = n,
                                     .vertex_count = 3, .indices = idx, .index_count = 3},
                                 &mesh, &err) ||
        oroya_render_begin(r, &view, &err) ||
        oroya_render_draw(r, &(oroya_render_draw_desc){.mesh = mesh, .model = id,
                                                       .material = mat}, &err) ||
        oroya_render_end(r, &err) || oroya_render_read_pixels(r, px, sizeof px, &err) ||
        oroya_image_write_png(argv[1], 16, 16, px, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const uint8_t *c = px + (8 * 16 + 8) * 4, *corner = px + (8 * 16 + 0) * 4;
    printf("%s\n", c[0] > 200 && c[1] < 50 && corner[0] < 50 ? "red" : "wrong");
    oroya_renderer_destroy(r);
    return 0;
}
C
PKG_CONFIG_PATH="$libdir" cc "$tmp/app_render.c" -o "$tmp/app_render_pc" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs oroya_render) -Wl,-rpath,"$(dirname "$libdir")"
out=$("$tmp/app_render_pc" "$tmp/render_pc.png")
[ "$out" = "red" ] && [ -s "$tmp/render_pc.png" ] || { echo "FAIL pkg-config oroya_render build printed '$out'"; exit 1; }
echo "PASS install: pkg-config --cflags --libs oroya_render"
PKG_CONFIG_PATH="$libdir" cc "$tmp/app_render.c" -o "$tmp/app_render_pcs" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags oroya_render) "$libdir/../liboroya_render.a" "$libdir/../liboroya.a" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --static --libs-only-l --libs-only-other oroya_render | sed 's/-loroya_render//; s/-loroya\b//')
out=$("$tmp/app_render_pcs" "$tmp/render_pcs.png")
[ "$out" = "red" ] || { echo "FAIL pkg-config --static oroya_render build printed '$out'"; exit 1; }
ldd "$tmp/app_render_pcs" | grep -q liboroya && { echo "FAIL the static render build links liboroya"; exit 1; }
echo "PASS install: liboroya_render.a + pkg-config --static oroya_render"
passed=6
fi
echo "$passed passed, 0 failed"
