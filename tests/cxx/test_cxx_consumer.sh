#!/usr/bin/env bash
# C++ consumers: every public header alone compiles as C++11 and C++17 with -Wall -Wextra
# -pedantic -Werror (g++, and clang++ when present), and tests/cxx/consumer.cpp builds against
# the built liboroya (and liboroya_render when it was built), shared and static, and plays
# CesiumMan's walk. tests/install/check_install.sh does the same through an installed copy.
#   bash test_cxx_consumer.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
command -v g++ >/dev/null || { echo "SKIP: g++ not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
compilers=(g++)
command -v clang++ >/dev/null && compilers+=(clang++)
strict=(-Wall -Wextra -pedantic -Werror)

headers=()
for h in "$src"/include/oroya/*.h; do headers+=("$(basename "$h")"); done
render=false
[ -f "$build/liboroya_render.a" ] && render=true
for cxx in "${compilers[@]}"; do
  for std in c++11 c++17; do
    for h in "${headers[@]}"; do
      printf '#include <oroya/%s>\nint main() { return 0; }\n' "$h" >"$tmp/one.cpp"
      if "$cxx" -std=$std "${strict[@]}" -fsyntax-only -I"$src/include" "$tmp/one.cpp" 2>"$tmp/err.txt"; then
        pass=$((pass + 1))
      else
        echo "FAIL: oroya/$h as $std with $cxx:"; head -5 "$tmp/err.txt"; fail=$((fail + 1))
      fi
    done
  done
done

# The program, against the build tree's libraries. A sanitized library (OROYA_SANITIZE)
# needs its runtime in the program too.
san=()
grep -q '^OROYA_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && san=(-fsanitize=address,undefined)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Mesa, see test_render_cli.sh
defs=() shared=(-L"$build" -loroya) static=("$build/liboroya.a")
deps=$(pkg-config --libs libcjson)
if $render; then
  defs=(-DOROYA_TEST_RENDER)
  shared=(-L"$build" -loroya_render -loroya)
  static=("$build/liboroya_render.a" "$build/liboroya.a")
  deps="$deps $(pkg-config --libs egl glesv2 libgif libpng)"
fi
glb="$src/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb"
# three.js 0.187: 19 joints; bone 0's y translation after 1/30 s (tests/examples).
want="19 -0.0350 1.0"
# A sanitized library links with the sanitizer runtime of the compiler that built it: only that
# one then (gcc's and clang's runtimes do not mix).
link_compilers=("${compilers[@]}")
if [ ${#san[@]} -gt 0 ]; then
  built_with=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  link_compilers=("${built_with:-g++}")
fi
for cxx in "${link_compilers[@]}"; do
  for std in c++11 c++17; do
    exe="$tmp/shared_$(basename "$cxx")_$std"
    if "$cxx" -std=$std "${strict[@]}" "${san[@]}" "${defs[@]}" -I"$src/include" \
         "$src/tests/cxx/consumer.cpp" -o "$exe" "${shared[@]}" -Wl,-rpath,"$build" 2>"$tmp/err.txt"; then
      check [ "$("$exe" "$glb")" = "$want" ]
    else
      echo "FAIL: consumer.cpp ($cxx, $std, shared):"; head -20 "$tmp/err.txt"; fail=$((fail + 1))
    fi
  done
  exe="$tmp/static_$(basename "$cxx")"
  # shellcheck disable=SC2086 # deps is a list of flags
  if "$cxx" -std=c++11 "${strict[@]}" "${san[@]}" "${defs[@]}" -I"$src/include" \
       "$src/tests/cxx/consumer.cpp" -o "$exe" "${static[@]}" $deps -pthread -lm 2>"$tmp/err.txt"; then
    check [ "$("$exe" "$glb")" = "$want" ]
    check bash -c "! ldd '$exe' | grep -q liboroya"
  else
    echo "FAIL: consumer.cpp ($cxx, static):"; head -20 "$tmp/err.txt"; fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
