#!/usr/bin/env bash
# oroya added to an application with add_subdirectory (as FetchContent does): the libraries'
# targets are there (oroya::oroya, oroya::oroya_static, oroya::oroya_render...), and by default
# none of the tests, the CLI or the examples (they were all configured and built, since the
# options defaulted to ON in a subproject too); each can still be asked for. Configures only:
# tests/install/check_install.sh builds against an installed copy.
#   bash test_subproject.sh BUILD_DIR SOURCE_DIR
set -u
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
mkdir "$tmp/app"
cat >"$tmp/app/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(app C CXX)
add_subdirectory("$src" oroya)
add_executable(app_c "$src/examples/bouncing_ball.c")
target_link_libraries(app_c oroya::oroya_static)
add_executable(app_cxx "$src/tests/cxx/consumer.cpp")
target_link_libraries(app_cxx oroya::oroya)
# The renderer's targets by the installed package's names (they were missing here: only
# find_package made them).
if(TARGET oroya_render_shared)
  add_executable(app_r "$src/examples/bouncing_ball.c")
  target_link_libraries(app_r oroya::oroya_render)
  add_executable(app_rs "$src/examples/bouncing_ball.c")
  target_link_libraries(app_rs oroya::oroya_render_static)
endif()
CM
targets() { cmake --build "$1" --target help >"$1/targets.txt" 2>/dev/null; }
if cmake -S "$tmp/app" -B "$tmp/b1" >"$tmp/log1.txt" 2>&1; then
  pass=$((pass + 1))
  targets "$tmp/b1"
  check grep -q 'oroya_static' "$tmp/b1/targets.txt"
  check grep -q 'app_cxx' "$tmp/b1/targets.txt"
  check grep -q 'app_rs' "$tmp/b1/targets.txt"
  # None of the project's own programs by default.
  check bash -c "! grep -Eq '(oroya_cli|oroya_bench|example_|test_)' '$tmp/b1/targets.txt'"
  check [ ! -e "$tmp/b1/oroya/tests" ]
else
  echo "FAIL: configuring an application that adds oroya with add_subdirectory:"; tail -20 "$tmp/log1.txt"
  fail=$((fail + 1))
fi
# Asked for, the CLI is there.
if cmake -S "$tmp/app" -B "$tmp/b2" -DOROYA_BUILD_TOOLS=ON >"$tmp/log2.txt" 2>&1; then
  targets "$tmp/b2"
  check grep -q 'oroya_cli' "$tmp/b2/targets.txt"
else
  echo "FAIL: configuring with -DOROYA_BUILD_TOOLS=ON:"; tail -20 "$tmp/log2.txt"; fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
