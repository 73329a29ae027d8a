#!/usr/bin/env bash
# The layers of docs/architecture.md, checked on every #include of src/ and include/oroya/:
#   core (0) <- scene (1) <- anim (2) <- io (3) <- render (4)
# A file may include headers of its own layer or of a layer below it, never above. Each
# header belongs to one layer: the public headers by the table below, the private headers of
# src/internal/ by the folder of the sources that own them. A header missing from the table
# fails the test, so a new header gets a layer when it is added.
# Usage: test_layers.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
src="${2:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$src"

declare -A layer_of=(
  [core]=0 [scene]=1 [anim]=2 [io]=3 [render]=4
)
declare -A header=(
  # public headers
  [oroya/base.h]=core [oroya/math.h]=core [oroya/rotation.h]=core
  [oroya/geometry.h]=scene [oroya/scene.h]=scene
  [oroya/track.h]=anim [oroya/clip.h]=anim [oroya/mixer.h]=anim [oroya/pose.h]=anim
  [oroya/rig.h]=anim [oroya/ik.h]=anim [oroya/skeleton.h]=anim [oroya/skin.h]=anim
  [oroya/gltf.h]=io [oroya/json.h]=io
  [oroya/render.h]=render
  # private headers
  [internal/base.h]=core [internal/skin_math.h]=core
  [internal/scene.h]=scene
  [internal/track.h]=anim [internal/mixer.h]=anim [internal/pose.h]=anim
  [internal/pose_kernel.h]=anim [internal/pose_kernel_q.h]=anim [internal/pose_simd.h]=anim
  [internal/rig.h]=anim [internal/ik.h]=anim
  [internal/gltf.h]=io [internal/io_file.h]=io
  [internal/render_shaders.h]=render
)

fail=0
checked=0
check_file() { # file, its layer name
  local f=$1 own=$2 inc
  while IFS= read -r inc; do
    [ -n "$inc" ] || continue
    if [ -z "${header[$inc]+x}" ]; then
      echo "FAIL $f includes \"$inc\", which has no layer in tests/install/test_layers.sh"
      fail=$((fail + 1))
    elif [ "${layer_of[${header[$inc]}]}" -gt "${layer_of[$own]}" ]; then
      echo "FAIL $f ($own) includes \"$inc\" (${header[$inc]}): includes must point down"
      fail=$((fail + 1))
    fi
    checked=$((checked + 1))
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
}

# Every folder of src/ except internal/ is a layer, and every source is in one of them.
for f in src/*; do
  name=$(basename "$f")
  if [ -f "$f" ]; then
    echo "FAIL $f: sources live in a layer folder of src/"
    fail=$((fail + 1))
  elif [ "$name" != internal ] && [ -z "${layer_of[$name]+x}" ]; then
    echo "FAIL src/$name is not a layer of docs/architecture.md"
    fail=$((fail + 1))
  fi
done
for l in "${!layer_of[@]}"; do
  for f in src/"$l"/*.[ch]; do
    [ -e "$f" ] && check_file "$f" "$l"
  done
done
for f in src/internal/*.h include/oroya/*.h; do
  key="${f#src/}"
  key="${key#include/}"
  [ "$key" = oroya/oroya.h ] && continue # the umbrella includes everything
  if [ -z "${header[$key]+x}" ]; then
    echo "FAIL $f has no layer in tests/install/test_layers.sh"
    fail=$((fail + 1))
    continue
  fi
  check_file "$f" "${header[$key]}"
done

[ "$checked" -gt 100 ] || { echo "FAIL only $checked includes found: is SOURCE_DIR right?"; exit 1; }
if [ "$fail" -ne 0 ]; then
  echo "FAIL $fail include(s) break the layers"
  exit 1
fi
echo "PASS $checked includes point down the layers"
