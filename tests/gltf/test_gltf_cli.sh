#!/usr/bin/env bash
# ctest script: `oroya info` and `oroya sample` on the project's test assets: the text output
# against a hand-checked golden, the JSON outputs against values from the file, and the exit
# codes of bad input (1) and bad usage (2).
set -uo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
oroya="$build/oroya"
cd "$src/tests" || exit 1
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Golden text, checked by hand against SimpleSkin.gltf: 3 nodes (0: mesh + skin; 1 -> 2 the
# joints), 10 vertices and 24 indices, 2 joints, 12 rotation keys on node 2 up to 5.5 s.
"$oroya" info assets/SimpleSkin/glTF/SimpleSkin.gltf >"$tmp/info.txt" 2>&1
check "info text matches gltf/expected/simple_skin_info.txt" \
    "diff -u gltf/expected/simple_skin_info.txt $tmp/info.txt"

"$oroya" info assets/InterpolationTest/glTF-Binary/InterpolationTest.glb --json >"$tmp/info.json"
check "info --json: 12 nodes, 9 clips, 'Step Scale' STEP with 5 keys" "python3 -c '
import json,sys; d=json.load(open(\"$tmp/info.json\"))
c=[c for c in d[\"clips\"] if c[\"name\"]==\"Step Scale\"][0]
sys.exit(not (len(d[\"nodes\"])==12 and len(d[\"clips\"])==9 and c[\"index\"]==0 and
  c[\"channels\"][0][\"interpolation\"]==\"STEP\" and c[\"channels\"][0][\"keys\"]==5 and
  c[\"channels\"][0][\"node\"]==\"Cube\" and d[\"glb\"]))'"

# MorphStressTest's asset.copyright (its licence and attribution), in both forms, and kept by
# `oroya export`.
morph=assets/MorphStressTest/glTF-Binary/MorphStressTest.glb
want='CC-BY 4.0 Copyright 2021 Analytical Graphics, Inc. Model and Textures by Ed Mackey.'
"$oroya" info "$morph" >"$tmp/morph.txt" 2>&1
check "info text gives the copyright" "grep -qxF 'copyright: $want' $tmp/morph.txt"
"$oroya" export "$morph" "$tmp/morph.gltf" >/dev/null 2>&1
"$oroya" info --json "$tmp/morph.gltf" >"$tmp/morph.json" 2>&1
check "export keeps it; info --json gives it" "python3 -c '
import json,sys; d=json.load(open(\"$tmp/morph.json\"))
a=json.load(open(\"$tmp/morph.gltf\"))[\"asset\"]
sys.exit(not (d[\"copyright\"]==\"$want\" and a[\"copyright\"]==\"$want\"))'"

# At t = 1 the SimpleSkin rotation is key 2 exactly: (0, 0, 0.707, 0.707) as floats.
"$oroya" sample assets/SimpleSkin/glTF/SimpleSkin.gltf --clip animation_0 --time 1 >"$tmp/s.json"
check "sample --time 1: node_2 rotation is key 2" "python3 -c '
import json,struct,sys; d=json.load(open(\"$tmp/s.json\"))
f=lambda x: struct.unpack(\"f\",struct.pack(\"f\",x))[0]
r=d[\"frames\"][0][\"nodes\"][\"node_2\"][\"rotation\"]
sys.exit(not ([f(x) for x in r]==[0,0,f(0.707),f(0.707)] and len(d[\"frames\"][0][\"skins\"][\"skin:0\"])==32))'"

"$oroya" sample assets/BoxAnimated/glTF-Binary/BoxAnimated.glb --clip animation_0 --fps 30 --frames 4 >"$tmp/f.json"
check "sample --fps 30 --frames 4: 4 frames at i/30" "python3 -c '
import json,sys; d=json.load(open(\"$tmp/f.json\"))
sys.exit(not [f[\"time\"] for f in d[\"frames\"]]==[0,1/30,2/30,3/30])'"

"$oroya" info assets/no_such_file.gltf >/dev/null 2>"$tmp/err.txt"; rc=$?
check "info on a missing file exits 1 naming the file" \
    "[ $rc -eq 1 ] && grep -q 'no_such_file.gltf' $tmp/err.txt"
printf '{"asset":{"version":"2.0"},"nodes":[{"mesh":4}]}' >"$tmp/bad.gltf"
"$oroya" info "$tmp/bad.gltf" >/dev/null 2>"$tmp/err.txt"; rc=$?
check "info on an invalid file exits 1 with the JSON path" \
    "[ $rc -eq 1 ] && grep -q 'nodes\[0\].mesh: index 4 is out of range' $tmp/err.txt"
"$oroya" sample assets/SimpleSkin/glTF/SimpleSkin.gltf --clip nope --time 0 >/dev/null 2>&1; rc=$?
check "sample with an unknown clip exits 1" "[ $rc -eq 1 ]"
"$oroya" sample assets/SimpleSkin/glTF/SimpleSkin.gltf --clip animation_0 >/dev/null 2>&1; rc=$?
check "sample without a time exits 2" "[ $rc -eq 2 ]"
"$oroya" sample assets/SimpleSkin/glTF/SimpleSkin.gltf --clip animation_0 --time nan >/dev/null 2>&1; rc=$?
check "sample --time nan exits 2" "[ $rc -eq 2 ]"
"$oroya" info >/dev/null 2>&1; rc=$?
check "info without a file exits 2" "[ $rc -eq 2 ]"
exit $fail
