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
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# play_gltf on CesiumMan: bone 0's translation on the first five frames, against three.js
# 0.187's skeleton.boneMatrices for the same clip and times (skin:0.boneMatrices[12..14] of
# frames 0-4 in tests/conformance/gltf/cesium_man.expected.json, the oracle's output); the
# program prints 4 decimals.
near_rows() { # FILE "t x y z;...": each row against the output's "t=T bone 0 ... (X, Y, Z)" rows
  awk -F'[=(), ]+' -v want="$2" 'BEGIN { n = split(want, w, ";") }
    /bone 0 translation/ { k++; split(w[k], e, " ");
      for (i = 1; i <= 4; i++) { d = $(i == 1 ? 2 : i + 4) - e[i]; if (d < 0) d = -d; if (d > 1.5e-4) bad++ } }
    END { exit !(k == n && !bad) }' "$1"
}
timeout 20 "$build/examples/play_gltf" >"$tmp/play.txt" 2>&1
check near_rows "$tmp/play.txt" "0.033 -0.0249282 -0.0350015 0.0015668;0.067 -0.0244833 -0.0289937 0.0022513;0.100 -0.0237340 -0.0197591 0.0033971;0.133 -0.0227675 -0.0092794 0.0048638;0.167 -0.0216179 0.0012628 0.0065933"
# The README's C example, as printed there: it compiles warning-free against the built library
# and prints bone 0's y translation on CesiumMan (three.js: the same values as above).
sed -n '/^```c$/,/^```$/p' "$src/README.md" | sed '1d;$d' >"$tmp/readme.c"
check grep -q 'oroya_mixer_bone_matrices' "$tmp/readme.c"
# A sanitized library (OROYA_SANITIZE) needs its runtime in the program too.
san=()
if grep -q '^OROYA_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  san=(-fsanitize=address,undefined)
fi
if cc -std=c11 -Wall -Wextra -Wconversion -Werror "${san[@]}" -I"$src/include" "$tmp/readme.c" \
     -o "$tmp/readme" -L"$build" -loroya -Wl,-rpath,"$build" -lm 2>"$tmp/readme.err"; then
  pass=$((pass + 1))
  cp "$src/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb" "$tmp/"
  (cd "$tmp" && timeout 20 ./readme) >"$tmp/readme.txt" 2>&1
  check awk 'BEGIN { split("-0.0350015 -0.0289937 -0.0197591 -0.0092794 0.0012628", e, " ") }
    { k++; d = $2 - e[k]; if (d < 0) d = -d; if (d > 1e-5) bad++ }
    END { exit !(k == 5 && !bad) }' "$tmp/readme.txt"
else
  echo "FAIL: the README example does not compile:"; cat "$tmp/readme.err"; fail=$((fail + 1))
fi
# Bad input for the file reader: a missing file and a file that is not glTF.
printf 'not a gltf' > "$tmp/bad.glb"
for f in "$tmp/missing.glb" "$tmp/bad.glb"; do
  err=$(timeout 20 "$build/examples/play_gltf" "$f" 2>&1 >/dev/null); rc=$?
  check [ "$rc" -eq 1 ]
  check grep -q "$(basename "$f")" <<<"$err"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
