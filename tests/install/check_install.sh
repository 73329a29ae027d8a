#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds a 5-line program against it twice:
# through pkg-config and through CMake's find_package(oroya).
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
echo "2 passed, 0 failed"
