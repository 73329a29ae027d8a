#!/usr/bin/env bash
# `oroya plot`: golden images (tests/golden/plot_*.png, checked by eye when made) of the
# step / linear / cubic-spline comparison, of rotation angles from a glTF file and of a
# scenario's clips; SVG output; clear errors. The comparison allows for font rasterizers: at
# most 0.2% of the pixels may differ by more than 40 levels. OROYA_UPDATE_GOLDENS=1 rewrites
# the goldens instead (look at them before committing).
# Run as: bash test_plot_cli.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
OROYA="$BUILD/oroya"
command -v python3 >/dev/null || { echo "SKIP: python3 not found (make deps installs it)"; exit 77; }
. "$SRC/tests/cli/lib.sh"
if "$OROYA" plot --clip comparison -o probe.png 2>&1 | grep -q "without Cairo"; then
    echo "FAIL: this oroya was built without Cairo (make deps installs libcairo2-dev)"
    exit 1
fi
pngtool="$SRC/tests/golden/pngtool.py"

golden() { # NAME args...: plot to NAME.png and compare with tests/golden/NAME.png
    local name=$1
    shift
    "$OROYA" plot "$@" -o "$name.png" 2>err.txt || { fail "plot $*: $(cat err.txt)"; return; }
    if [ "${OROYA_UPDATE_GOLDENS:-0}" = 1 ]; then
        cp "$name.png" "$SRC/tests/golden/$name.png"
        echo "updated tests/golden/$name.png"
    elif [ ! -f "$SRC/tests/golden/$name.png" ]; then
        fail "tests/golden/$name.png is missing"
    else
        python3 "$pngtool" close "$name.png" "$SRC/tests/golden/$name.png" 40 0.2 || fail "$name.png differs from its golden"
    fi
}
# The tutorial's figure: the demo's comparison clip, the three balls' heights.
golden plot_comparison --clip comparison --channel translation.y
# Rotation angles, three interpolations from three clips of one file.
golden plot_rotation_angle "$SRC/tests/assets/InterpolationTest/glTF-Binary/InterpolationTest.glb" \
    --clip "Step Rotation" --clip "Linear Rotation" --clip "CubicSpline Rotation" --channel rotation.angle
# A scenario (oroya play's format): every clip, every changing component.
golden plot_scenario_bounce "$SRC/tests/conformance/a_bounce.json" --size 640x360

# Each golden differs from the others (the comparison cannot pass on any picture).
if [ "${OROYA_UPDATE_GOLDENS:-0}" != 1 ]; then
    python3 "$pngtool" close plot_comparison.png "$SRC/tests/golden/plot_rotation_angle.png" 40 0.5 >/dev/null &&
        fail "two different plots compare as close"
fi

# SVG: well-formed, the asked size, curves and dots as paths.
"$OROYA" plot --clip comparison --channel translation.y --size 640x320 -o c.svg 2>err.txt || fail "svg: $(cat err.txt)"
python3 - c.svg <<'PY' || fail "c.svg is not the expected SVG"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith('svg'), root.tag
assert root.get('width').startswith('640') and root.get('height').startswith('320'), (root.get('width'), root.get('height'))
paths = [e for e in root.iter() if e.tag.endswith('path')]
assert len(paths) > 12, len(paths)
PY
# A scenario with a "gltf" model brings its clips (morph weights here).
# Its model lies outside the scenario's folder (tests/assets): refused without the flag.
if "$OROYA" plot "$SRC/tests/conformance/gltf/animated_morph_cube.json" --channel weights.1 -o m.png 2>err.txt; then
    fail "a scenario's gltf outside its folder was read without --allow-gltf-dir"
fi
grep -q "leads outside the scenario's folder" err.txt || fail "outside gltf: $(cat err.txt)"
"$OROYA" plot "$SRC/tests/conformance/gltf/animated_morph_cube.json" --allow-gltf-dir "$SRC/tests/assets" \
    --channel weights.1 -o m.png 2>err.txt ||
    fail "scenario with gltf: $(cat err.txt)"
grep -q "wrote m.png (1 curve)" err.txt || fail "weights.1 of the morph cube: $(cat err.txt)"

cesium="$SRC/tests/assets/CesiumMan/glTF/CesiumMan.gltf"
expect 2 "is not translation|rotation|scale|weights" "$OROYA" plot --channel rotation.q -o x.png
expect 2 "must end in .svg or .png" "$OROYA" plot -o x.bmp
expect 2 "-o OUT.svg|.png is required" "$OROYA" plot
# The repeatable options' limits are named (the messages said "too many --node options").
nodes=() channels=()
for i in $(seq 25); do nodes+=(--node ball); done
for i in $(seq 17); do channels+=(--channel translation); done
expect 2 "too many --node options (at most 24)" "$OROYA" plot "${nodes[@]}" -o x.png
expect 2 "too many --channel options (at most 16)" "$OROYA" plot "${channels[@]}" -o x.png
expect 1 "nothing to draw" "$OROYA" plot "$cesium" --channel weights -o x.png
expect 1 "cannot write '/nonexistent-dir/x.png': No such file or directory" "$OROYA" plot --clip comparison -o /nonexistent-dir/x.png
# A write that fails midway (a file size limit, as a full disk) leaves no partial file (a
# truncated SVG or PNG stayed behind).
(trap '' XFSZ; ulimit -f 4; "$OROYA" plot --clip comparison --size 4000x4000 -o big.png) 2>/dev/null &&
    fail "plot under a 4 KB file size limit succeeded"
[ -e big.png ] && fail "a failed plot left big.png"
ls | grep -q oroya-tmp && fail "a failed plot left a temporary file"

printf '{"clips": [{"name": "c", "tracks": [{"node": "a", "property": "position", "times": [0, 1], "values": [0, 0]}]}]}' > bad.json
expect 1 "bad.json: clips\[0\]" "$OROYA" plot bad.json -o x.png
"$OROYA" plot --help | grep -q "^usage: oroya plot" || fail "plot --help"
# A scenario of more than OROYA_SCENARIO_MAX_JSON_VALUES (16 777 216) values is refused before
# cJSON parses it (its tree: about 80 bytes a value), as `oroya play` refuses it: the root, an
# array and 16 777 215 zeros. A NUL byte inside is refused too (cJSON took it for the end).
python3 -c 'import sys; sys.stdout.write("{\"x\":[" + "0," * 16777214 + "0]}")' >many.json
expect 1 "^oroya plot: many.json: 16777217 JSON values, the limit is 16777216 (OROYA_SCENARIO_MAX_JSON_VALUES)$" \
    "$OROYA" plot many.json -o x.png
rm -f many.json
printf '{"clips": []\0}' >nul.json
expect 1 "^oroya plot: nul.json: invalid JSON: a NUL byte at byte 12$" "$OROYA" plot nul.json -o x.png

# 100,000 STEP keys 1e-5 s apart (a 1.6 MB buffer): the curve keeps at most four points a
# pixel column and the keys get no dots (denser than one a pixel), so the SVG stays small
# (it was 121 MB, with 723 MB of memory, and the PNG took a minute).
python3 - <<'PY'
import json, struct
n = 100000
t = [k * 1e-5 for k in range(n)]
v = [float((k * 7) % 5) for k in range(3 * n)]
open("keys.bin", "wb").write(struct.pack("<%df" % n, *t) + struct.pack("<%df" % (3 * n), *v))
json.dump({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "n"}],
           "animations": [{"samplers": [{"input": 0, "output": 1, "interpolation": "STEP"}],
                           "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}],
           "buffers": [{"uri": "keys.bin", "byteLength": 16 * n}],
           "bufferViews": [{"buffer": 0, "byteLength": 4 * n}, {"buffer": 0, "byteOffset": 4 * n, "byteLength": 12 * n}],
           "accessors": [{"bufferView": 0, "componentType": 5126, "count": n, "type": "SCALAR", "min": [0], "max": [t[-1]]},
                         {"bufferView": 1, "componentType": 5126, "count": n, "type": "VEC3"}]}, open("keys.gltf", "w"))
PY
expect 0 "" timeout 120 "$OROYA" plot keys.gltf -o keys.svg
size=$(stat -c %s keys.svg 2>/dev/null || echo 0)
[ "$size" -gt 1000 ] && [ "$size" -lt 2000000 ] || fail "plot of 100,000 keys: keys.svg is $size bytes"
expect 0 "" timeout 120 "$OROYA" plot keys.gltf -o keys.png

finish "oroya plot"
