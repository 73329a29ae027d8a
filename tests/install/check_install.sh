#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds a 5-line program against it through
# pkg-config and through CMake's find_package(oroya); then a program that needs the static
# library's own dependencies (the thread pool: pthreads; the glTF parser: cJSON) against
# oroya::oroya_static and `pkg-config --static`.
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
    printf("%.3f\n", (double)oroya_cubic_spline(0.5f, 0.0f, 5.0f, 10.0f, -2.0f));
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
echo "4 passed, 0 failed"
