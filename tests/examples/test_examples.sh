#!/usr/bin/env bash
# ctest script: every program in examples/ runs headless and exits 0, and the one that reads a
# file refuses bad input with a message naming the file and exit code 1.
#   bash test_examples.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
for c in "$src"/examples/*.c; do
  name=$(basename "$c" .c)
  exe="$build/examples/$name"
  if [ ! -x "$exe" ]; then echo "FAIL: $name was not built"; fail=$((fail + 1)); continue; fi
  out=$(timeout 60 "$exe" 2>&1); rc=$?
  check [ "$rc" -eq 0 ]
  check [ -n "$out" ]
done
# The tutorial's bouncing ball: y at t = 0.25 s is 2.5 (glTF tangent scaling), not 3.0.
check grep -q '0.25   2.500' <(timeout 20 "$build/examples/bouncing_ball")
# Squash and stretch: the third key (t = 1 s) is on the ground, squashed to (1.3, 0.7, 1.3).
check grep -q '1.0    0.000   1.300  0.700  1.300  squash' <(timeout 20 "$build/examples/squash_and_stretch")
# The comparison at t = 0.5 s: STEP still holds the first key, LINEAR is halfway (1.5).
check grep -q '0.500   0.000   1.500' <(timeout 20 "$build/examples/interpolation_compare")
# Bad input for the file reader: a missing file and a file that is not glTF.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'not a gltf' > "$tmp/bad.glb"
for f in "$tmp/missing.glb" "$tmp/bad.glb"; do
  err=$(timeout 20 "$build/examples/play_gltf" "$f" 2>&1 >/dev/null); rc=$?
  check [ "$rc" -eq 1 ]
  check grep -q "$(basename "$f")" <<<"$err"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
