#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds a 5-line program against it through
# pkg-config and through CMake's find_package(oroya); then a program that needs the static
# library's own dependencies (the thread pool: pthreads; the glTF parser: cJSON) against
# oroya::oroya_static and `pkg-config --static`; then, when the renderer was built, a program
# that draws a triangle offscreen and writes a PNG, through pkg-config oroya_render (shared,
# and static with `pkg-config --static`); then a C++ program, through find_package in a C++-only
# project (shared and static) and through pkg-config as C++11 and C++17.
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

# The renderer is optional in the build; when its library is installed, so are its .pc and
# its header, and without it neither is (render.h alone gave undefined references).
include_dir=$(find "$prefix" -path '*/include/oroya' -type d | head -n1)
if [ ! -f "$libdir/../liboroya_render.a" ]; then
  [ -e "$include_dir/render.h" ] && { echo "FAIL oroya/render.h is installed without liboroya_render"; exit 1; }
  [ -e "$libdir/oroya_render.pc" ] && { echo "FAIL oroya_render.pc is installed without liboroya_render"; exit 1; }
fi
if [ -f "$libdir/../liboroya_render.a" ]; then
[ -f "$libdir/oroya_render.pc" ] || { echo "FAIL liboroya_render is installed without oroya_render.pc"; exit 1; }
[ -f "$include_dir/render.h" ] || { echo "FAIL liboroya_render is installed without oroya/render.h"; exit 1; }
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

# C++ consumers: tests/cxx/consumer.cpp (RAII over the C handles; with the renderer's header
# and a call into it when the renderer is installed) through find_package in a project that
# enables only CXX, against the shared and the static targets, and through pkg-config with g++
# as C++11 and C++17 under -Wall -Wextra -pedantic -Werror.
cxx_defs=""
render_targets="oroya::oroya oroya::oroya_static"
if [ -f "$libdir/../liboroya_render.a" ]; then
  cxx_defs="OROYA_TEST_RENDER"
  render_targets="oroya::oroya_render oroya::oroya_render_static"
fi
set -- $render_targets
mkdir -p "$tmp/cxx"
cat > "$tmp/cxx/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(app CXX)
find_package(oroya REQUIRED)
add_executable(app_shared $src/tests/cxx/consumer.cpp)
target_link_libraries(app_shared $1)
add_executable(app_static $src/tests/cxx/consumer.cpp)
target_link_libraries(app_static $2)
foreach(t app_shared app_static)
  target_compile_definitions(\${t} PRIVATE $cxx_defs)
  target_compile_options(\${t} PRIVATE -Wall -Wextra -pedantic -Werror)
endforeach()
CM
cmake -S "$tmp/cxx" -B "$tmp/cxx/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cxx/build" >/dev/null
glb="$src/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb"
want="19 -0.0350 1.0" # tests/cxx/test_cxx_consumer.sh
for app in app_shared app_static; do
  out=$("$tmp/cxx/build/$app" "$glb")
  [ "$out" = "$want" ] || { echo "FAIL C++ find_package $app printed '$out'"; exit 1; }
done
ldd "$tmp/cxx/build/app_static" | grep -q liboroya && { echo "FAIL the C++ static build links liboroya"; exit 1; }
echo "PASS install: C++ project (CXX only), find_package(oroya) + $1 and $2"
passed=$((passed + 1))
pc=oroya
[ -n "$cxx_defs" ] && pc=oroya_render
for std in c++11 c++17; do
  PKG_CONFIG_PATH="$libdir" c++ -std=$std -Wall -Wextra -pedantic -Werror ${cxx_defs:+-D$cxx_defs} \
    "$src/tests/cxx/consumer.cpp" -o "$tmp/app_cxx" \
    $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs $pc) -Wl,-rpath,"$(dirname "$libdir")"
  out=$("$tmp/app_cxx" "$glb")
  [ "$out" = "$want" ] || { echo "FAIL C++ ($std) pkg-config $pc printed '$out'"; exit 1; }
done
echo "PASS install: C++11 and C++17, pkg-config --cflags --libs $pc"
passed=$((passed + 1))
echo "$passed passed, 0 failed"
