#!/usr/bin/env bash
# ctest script: the CLI on files made to break it. Buffers outside the model's folder are
# refused unless --allow-outside; FIFOs and directories (also as a scenario's "gltf") fail
# at once instead of blocking; every JSON the CLI prints parses as strict JSON.
set -uo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
oroya="$build/oroya"
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Strict JSON: Python's parser accepts NaN and Infinity unless told not to.
strict_json='import json,sys
def bad(c): raise ValueError("non-finite number " + c)
json.loads(open(sys.argv[1], "rb").read().decode("utf-8"), parse_constant=bad)'

mkdir -p "$tmp/model" "$tmp/outside"
cp "$src"/tests/assets/SimpleSkin/glTF/*.bin "$tmp/outside/"
# The model refers to its buffers one folder up.
sed 's|"uri" *: *"|"uri": "../outside/|' "$src/tests/assets/SimpleSkin/glTF/SimpleSkin.gltf" \
    >"$tmp/model/m.gltf"
"$oroya" info "$tmp/model/m.gltf" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "info refuses a buffer outside the folder (exit 1, names the URI)" \
    "[ $rc = 1 ] && grep -q 'buffers\[0\].*\.\./outside/skinGeometry.bin.*access refused' $tmp/err"
"$oroya" info --allow-outside "$tmp/model/m.gltf" >"$tmp/out" 2>"$tmp/err"
check "info --allow-outside loads it" "[ $? = 0 ] && grep -q 'nodes' $tmp/out"
"$oroya" sample "$tmp/model/m.gltf" --clip animation_0 --time 1 >"$tmp/out" 2>"$tmp/err"
check "sample refuses it" "[ $? = 1 ] && grep -q 'access refused' $tmp/err"
"$oroya" sample "$tmp/model/m.gltf" --clip animation_0 --time 1 --allow-outside >"$tmp/out" 2>&1
check "sample --allow-outside loads it" "[ $? = 0 ]"
echo '{"gltf":"model/m.gltf","steps":{"fps":10,"count":1},"record":[]}' >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play refuses it" "[ $? = 1 ] && grep -q 'outside' $tmp/err"
"$oroya" play --allow-outside "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play --allow-outside loads it" "[ $? = 0 ]"
# render loads the file before it opens EGL, so the refusal shows without a GPU. Mesa leaks
# small blocks LeakSanitizer cannot name (see tests/golden/test_render_cli.sh): in ASan builds
# leak detection is off for the render runs only.
render_asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
ASAN_OPTIONS="$render_asan" "$oroya" render "$tmp/model/m.gltf" --time 0 --size 16x16 -o "$tmp/r.png" >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q 'built without the renderer' "$tmp/err"; then
    echo "skip: render (built without the renderer)"
else
    check "render refuses it (exit 1, names the URI, writes nothing)" \
        "[ $rc = 1 ] && grep -q 'buffers\[0\].*\.\./outside/skinGeometry.bin.*access refused' $tmp/err && [ ! -e $tmp/r.png ]"
    ASAN_OPTIONS="$render_asan" "$oroya" render "$tmp/model/m.gltf" --allow-outside --time 0 --size 16x16 -o "$tmp/r.png" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if grep -qi 'egl\|backend\|display' "$tmp/err"; then
        echo "skip: render --allow-outside (no EGL here): $(head -c 200 $tmp/err)"
    else
        check "render --allow-outside loads it and writes the PNG" "[ $rc = 0 ] && [ -s $tmp/r.png ]"
    fi
fi

# A FIFO or a directory as the model, through info and through a scenario's "gltf".
mkfifo "$tmp/model/fifo.gltf"
mkdir "$tmp/model/dir.gltf"
for f in fifo dir; do
    timeout 10 "$oroya" info "$tmp/model/$f.gltf" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "info on a $f: exit 1 at once, 'not a regular file'" \
        "[ $rc = 1 ] && grep -q 'is not a regular file' $tmp/err"
    echo "{\"gltf\":\"model/$f.gltf\",\"steps\":{\"dt\":[0.1]},\"record\":[]}" >"$tmp/s.json"
    timeout 10 "$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "play with a $f as gltf: exit 1 at once, no size nonsense" \
        "[ $rc = 1 ] && grep -q 'is not a regular file' $tmp/err && ! grep -q 9223372036854775807 $tmp/err"
done

# A scenario's "gltf" stays in the scenario's folder (or --base) and its subfolders, unless
# --allow-gltf-dir names another: "..", absolute paths and links that lead out are refused
# (exit 1, naming "gltf" and the path), also for a FIFO out there (refused before it is opened).
mkdir -p "$tmp/sc/sub" "$tmp/far"
cp "$src"/tests/assets/SimpleSkin/glTF/* "$tmp/far/"
cp "$src"/tests/assets/SimpleSkin/glTF/* "$tmp/sc/sub/"
ln -s "$tmp/far/SimpleSkin.gltf" "$tmp/sc/link.gltf"
mkfifo "$tmp/far/fifo.gltf"
S='"steps":{"fps":10,"count":1},"record":["node_0.position"]'
for g in "../far/SimpleSkin.gltf" "$tmp/far/SimpleSkin.gltf" "link.gltf" "sub/../../far/SimpleSkin.gltf" \
    "../far/fifo.gltf"; do
    echo "{\"gltf\":\"$g\",$S}" >"$tmp/sc/s.json"
    timeout 10 "$oroya" play "$tmp/sc/s.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "play refuses gltf \"$g\" outside the scenario's folder" \
        "[ $rc = 1 ] && grep -qF 'gltf: \"$g\" leads outside the scenario' $tmp/err && [ ! -s $tmp/out ]"
    timeout 10 "$oroya" play --allow-gltf-dir "$tmp/far" "$tmp/sc/s.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$g" = ../far/fifo.gltf ]; then
        check "play --allow-gltf-dir with a FIFO there: exit 1 at once, 'not a regular file'" \
            "[ $rc = 1 ] && grep -q 'is not a regular file' $tmp/err"
    else
        check "play --allow-gltf-dir DIR loads \"$g\"" "[ $rc = 0 ] && grep -q node_0.position $tmp/out"
    fi
done
# A path the check cannot resolve (missing, outside or in) is not opened at all: it was handed
# to the loader unconfined, so a file made between the check and the open was read.
for g in "../far/missing.gltf" "/nonexistent/x.gltf" "missing.gltf"; do
    echo "{\"gltf\":\"$g\",$S}" >"$tmp/sc/s.json"
    "$oroya" play "$tmp/sc/s.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "play: gltf \"$g\" that does not resolve: refused before any open" \
        "[ $rc = 1 ] && grep -qF 'gltf: \"$g\": cannot open: No such file' $tmp/err && ! grep -q '(file)' $tmp/err"
done
# --base moves the folder: the same scenario from stdin, confined to --base.
echo "{\"gltf\":\"../far/SimpleSkin.gltf\",$S}" >"$tmp/sc/s.json"
"$oroya" play --base "$tmp/sc" - <"$tmp/sc/s.json" >"$tmp/out" 2>"$tmp/err"
check "play --base DIR - refuses a gltf outside DIR" "[ $? = 1 ] && grep -q 'leads outside' $tmp/err"
"$oroya" play --base "$tmp/far" - <"$tmp/sc/s.json" >"$tmp/out" 2>"$tmp/err"
check "play --base DIR - loads a gltf that stays in DIR" "[ $? = 0 ] && grep -q node_0.position $tmp/out"
echo "{\"gltf\":\"sub/SimpleSkin.gltf\",$S}" >"$tmp/sc/s.json"
"$oroya" play "$tmp/sc/s.json" >"$tmp/out" 2>"$tmp/err"
check "play loads a gltf in a subfolder without a flag" "[ $? = 0 ] && grep -q node_0.position $tmp/out"

# ---- no silent inf or NaN; every JSON is strict JSON --------------------------------------
# A node rotation of (1e20, 0, 0, 1e20): finite, but it overflows the node's matrix.
echo '{"asset":{"version":"2.0"},"nodes":[{"rotation":[1e20,0,0,1e20]}]}' >"$tmp/rot.gltf"
"$oroya" info "$tmp/rot.gltf" >"$tmp/out" 2>"$tmp/err"
check "info refuses a huge node rotation, naming the node" \
    "[ $? = 1 ] && grep -q 'nodes\[0\]: transform rejected' $tmp/err"
# The same through a scenario: setNode, and a node with that rotation.
echo '{"nodes":[{"name":"a","rotation":[1e20,0,0,1e20]}],"steps":{"fps":10,"count":1},"record":[]}' \
    >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play refuses a huge node rotation, naming the node" \
    "[ $? = 1 ] && grep -q 'nodes\[0\]: the scene refused the node' $tmp/err"
echo '{"nodes":[{"name":"a"}],"script":[{"at":0,"do":"setNode","node":"a","rotation":[1e20,0,0,1e20]}],"steps":{"fps":10,"count":2},"record":["a.matrixWorld"]}' \
    >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play refuses setNode with a huge rotation" \
    "[ $? = 1 ] && grep -q 'script\[0\]: setNode' $tmp/err"
# A parent scale of 1e30 times a child translation of 1e10 overflows the child's world matrix.
echo '{"nodes":[{"name":"p","scale":[1e30,1e30,1e30]},{"name":"c","parent":"p","position":[1e10,0,0]}],"steps":{"fps":10,"count":1},"record":["c.matrixWorld"]}' \
    >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play reports a world matrix overflow, naming the node" \
    "[ $? = 1 ] && grep -q \"world matrix of node 'c' is not finite\" $tmp/err"
# warp(1e300, -1e300, 1e-300) made the action time NaN; the next dt got the blame.
echo '{"nodes":[{"name":"a"}],"clips":[{"name":"x","duration":1,"tracks":[{"node":"a","property":"position","interpolation":"linear","times":[0,1],"values":[0,0,0,1,0,0]}]}],"script":[{"at":0,"do":"play","action":"x"},{"at":0,"do":"warp","action":"x","startTimeScale":1e300,"endTimeScale":-1e300,"duration":1e-300}],"steps":{"fps":10,"count":3},"record":["action:x.time"]}' \
    >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play refuses the overflowing warp, naming the op" \
    "[ $? = 1 ] && grep -q 'script\[1\]: warp' $tmp/err"
# A CUBICSPLINE tangent of 3e38 over a 1000 s gap: the Hermite overflows a float.
python3 - "$tmp/cubic.gltf" <<'PY'
import base64, json, struct, sys
times = struct.pack("<2f", 0, 1000)
# per key: in-tangent, value, out-tangent (VEC3)
vals = struct.pack("<18f", 0,0,0, 0,0,0, 3e38,0,0,  0,0,0, 1,0,0, 0,0,0)
b = times + vals
g = {"asset": {"version": "2.0"}, "nodes": [{}],
     "buffers": [{"uri": "data:application/octet-stream;base64," + base64.b64encode(b).decode(),
                  "byteLength": len(b)}],
     "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 72}],
     "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR",
                    "min": [0], "max": [1000]},
                   {"bufferView": 1, "componentType": 5126, "count": 6, "type": "VEC3"}],
     "animations": [{"samplers": [{"input": 0, "output": 1, "interpolation": "CUBICSPLINE"}],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]}
json.dump(g, open(sys.argv[1], "w"))
PY
"$oroya" sample "$tmp/cubic.gltf" --clip animation_0 --time 500 >"$tmp/out" 2>"$tmp/err"
check "sample refuses the overflowing cubic tangent, naming track and keys" \
    "[ $? = 1 ] && grep -q 'animations\[0\].*keys 0-1.*float range' $tmp/err"

# Strict JSON from info --json, sample and play, with a file name that is not UTF-8.
bad_name=$(printf 'm\377.gltf')
cp "$src/tests/assets/SimpleSkin/glTF/"*.bin "$tmp/"
cp "$src/tests/assets/SimpleSkin/glTF/SimpleSkin.gltf" "$tmp/$bad_name"
"$oroya" info --json "$tmp/$bad_name" >"$tmp/info.json" 2>"$tmp/err"
check "info --json output is strict JSON (bad file-name byte escaped)" \
    "python3 -c '$strict_json' $tmp/info.json"
"$oroya" sample "$tmp/$bad_name" --clip animation_0 --fps 4 --frames 5 --world >"$tmp/sample.json" 2>"$tmp/err"
check "sample output is strict JSON" "python3 -c '$strict_json' $tmp/sample.json"
# Names with invalid UTF-8 are refused at load (the name would reach the JSON output).
printf '{"asset":{"version":"2.0"},"nodes":[{"name":"\377"}]}' >"$tmp/name.gltf"
"$oroya" info --json "$tmp/name.gltf" >"$tmp/out" 2>"$tmp/err"
check "info refuses a name that is not UTF-8" "[ $? = 1 ] && grep -q 'invalid UTF-8 at byte' $tmp/err"
printf '{"nodes":[{"name":"\377"}],"steps":{"fps":10,"count":1},"record":[]}' >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play refuses a scenario that is not UTF-8" "[ $? = 1 ] && grep -q 'invalid UTF-8' $tmp/err"
printf '{"nodes":[{"name":"a\0b"}],"steps":{"fps":10,"count":1},"record":[]}' >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play refuses a raw NUL in a scenario string" "[ $? = 1 ] && grep -q 'a NUL byte at byte' $tmp/err"
python3 -c 'print("{\"nodes\":" + "[" * 1500 + "]" * 1500 + "}")' >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play reports deep nesting as a depth limit" "[ $? = 1 ] && grep -q 'nest deeper than 1000 levels' $tmp/err"
echo '{"nodes":[{"name":"a"}],"steps":{"fps":60,"count":100000000},"record":[]}' >"$tmp/s.json"
timeout 20 "$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play refuses steps.count 1e8 at once (the limit is 1e6)" \
    "[ $? = 1 ] && grep -q 'steps.count: expected a whole number of steps, at most 1000000' $tmp/err"

# A clip lasting 1e30 s made `oroya render -o x.gif` write a 1-frame GIF without a word.
python3 - "$tmp/long.gltf" <<'PY'
import base64, json, struct, sys
b = struct.pack("<2f", 0, 1e30) + struct.pack("<6f", 0, 0, 0, 1, 0, 0)
g = {"asset": {"version": "2.0"}, "nodes": [{}], "scenes": [{"nodes": [0]}],
     "buffers": [{"uri": "data:application/octet-stream;base64," + base64.b64encode(b).decode(),
                  "byteLength": len(b)}],
     "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 24}],
     "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR",
                    "min": [0], "max": [1e30]},
                   {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}],
     "animations": [{"samplers": [{"input": 0, "output": 1}],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]}
json.dump(g, open(sys.argv[1], "w"))
PY
"$oroya" render "$tmp/long.gltf" --clip animation_0 --size 16x16 -o "$tmp/x.gif" >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q 'built without the renderer' "$tmp/err"; then
    echo "skip: render (built without the renderer)"
elif grep -qi 'egl\|backend\|display' "$tmp/err" && ! grep -q '600 s' "$tmp/err"; then
    echo "skip: render (no EGL here): $(head -c 200 $tmp/err)"
else
    check "render refuses a 1e30 s clip for a GIF instead of writing 1 frame" \
        "[ $rc = 1 ] && grep -q 'lasts 1e+30 s, more than the 600 s' $tmp/err && [ ! -e $tmp/x.gif ]"
fi


# ---- a refused URI tells nothing about the outside -----------------------------------------
# Confinement comes before anything is opened: a path outside the folder gets the same ACCESS
# refusal whether it exists, is missing, or is a device or a FIFO (it used to say "No such file",
# "a device", "a FIFO" for those, an oracle for what lies outside).
mkdir -p "$tmp/conf/model/in" "$tmp/conf/outside"
cp "$src"/tests/assets/SimpleSkin/glTF/*.bin "$tmp/conf/outside/"
mkfifo "$tmp/conf/outside/fifo.bin"
ln -s "$tmp/conf/outside/missing.bin" "$tmp/conf/model/dangling.bin"
ln -s "$tmp/conf/outside" "$tmp/conf/model/outlink"
for u in "../outside/skinGeometry.bin" "../outside/missing.bin" "../nowhere/missing.bin" \
    "../outside/fifo.bin" "../../../../../../../../dev/zero" "%2e%2e/outside/missing.bin" \
    "in/../../outside/missing.bin" "nope/../../outside/missing.bin" "dangling.bin" \
    "outlink/missing.bin" "outlink/fifo.bin"; do
    sed "s|\"uri\" *: *\"[^\"]*\"|\"uri\": \"$u\"|" "$src/tests/assets/SimpleSkin/glTF/SimpleSkin.gltf" \
        >"$tmp/conf/model/m.gltf"
    timeout 10 "$oroya" info "$tmp/conf/model/m.gltf" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "info refuses \"$u\" as outside, whatever is there (exit 1, access refused)" \
        "[ $rc = 1 ] && grep -qF 'leads outside the model' $tmp/err && grep -q 'access refused' $tmp/err && ! grep -q 'No such file\|a device\|a FIFO\|not a regular' $tmp/err"
done
# Inside the folder, a missing file is still reported as missing.
sed 's|"uri" *: *"[^"]*"|"uri": "in/missing.bin"|' "$src/tests/assets/SimpleSkin/glTF/SimpleSkin.gltf" \
    >"$tmp/conf/model/m.gltf"
"$oroya" info "$tmp/conf/model/m.gltf" >"$tmp/out" 2>"$tmp/err"
check "info says a missing file inside the folder is missing" \
    "[ $? = 1 ] && grep -q 'No such file' $tmp/err && ! grep -q 'outside' $tmp/err"

# ---- a channel oroya cannot play is ignored with a warning -----------------------------------
# target.path "pointer" (KHR_animation_pointer), with and without a node: a warning that names
# the channel, from info, sample, play; the clip lasts 0 s (its only channel is ignored).
python3 - "$tmp/ptr.gltf" "$tmp/ptr_node.gltf" <<'PY'
import base64, json, struct, sys
b = struct.pack("<2f", 0, 1) + struct.pack("<6f", 0, 0, 0, 1, 0, 0)
def g(target):
    return {"asset": {"version": "2.0"}, "nodes": [{"name": "n"}], "scenes": [{"nodes": [0]}],
     "buffers": [{"uri": "data:application/octet-stream;base64," + base64.b64encode(b).decode(),
                  "byteLength": len(b)}],
     "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 24}],
     "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR",
                    "min": [0], "max": [1]},
                   {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}],
     "animations": [{"samplers": [{"input": 0, "output": 1}],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                                  {"sampler": 0, "target": target}]},
                    {"samplers": [{"input": 0, "output": 1}],
                     "channels": [{"sampler": 0, "target": target}]}]}
json.dump(g({"path": "pointer"}), open(sys.argv[1], "w"))
json.dump(g({"node": 0, "path": "pointer"}), open(sys.argv[2], "w"))
PY
for f in ptr ptr_node; do
    "$oroya" info "$tmp/$f.gltf" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "info warns of the ignored \"pointer\" channel ($f), naming it" \
        "[ $rc = 0 ] && grep -qF 'warning: animations[0].channels[1].target.path: not a path oroya animates' $tmp/err && grep -qF '(2 channels ignored in all)' $tmp/err"
    check "info: the clip of only a \"pointer\" channel lasts 0 s ($f)" \
        "grep -qF '(animation_1): 0 s' $tmp/out && grep -qF '(animation_0): 1 s' $tmp/out"
    "$oroya" sample "$tmp/$f.gltf" --clip animation_0 --time 0.5 >"$tmp/out" 2>"$tmp/err"
    check "sample warns of it too ($f)" \
        "[ $? = 0 ] && grep -qF 'oroya sample: $tmp/$f.gltf: warning: animations[0].channels[1].target.path' $tmp/err"
done
cp "$tmp/ptr.gltf" "$tmp/sc/ptr.gltf"
echo '{"gltf":"ptr.gltf","steps":{"fps":10,"count":1},"record":["n.position"]}' >"$tmp/sc/s.json"
"$oroya" play "$tmp/sc/s.json" >"$tmp/out" 2>"$tmp/err"
check "play warns of it too" \
    "[ $? = 0 ] && grep -qF 'warning: gltf: animations[0].channels[1].target.path' $tmp/err"
"$oroya" info "$src/tests/assets/SimpleSkin/glTF/SimpleSkin.gltf" >"$tmp/out" 2>"$tmp/err"
check "no such warning for a file without ignored channels" "[ $? = 0 ] && [ ! -s $tmp/err ]"

# ---- another tool's animation extras are ignored with a warning -----------------------------
# extras.markers as a string (another tool's timeline markers) and extras.curves in another shape:
# the file loads, the channels play, and info, sample and play warn naming the place.
python3 - "$tmp/ptr.gltf" "$tmp/xtr.gltf" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
g["animations"] = g["animations"][:1]
g["animations"][0]["channels"] = g["animations"][0]["channels"][:1]
g["animations"][0]["extras"] = {"markers": "intro,loop", "curves": [{"curve": "ease"}]}
json.dump(g, open(sys.argv[2], "w"))
PY
"$oroya" info "$tmp/xtr.gltf" >"$tmp/out" 2>"$tmp/err"
check "info loads a file with another tool's extras.markers, warning where" \
    "[ $? = 0 ] && grep -qF 'oroya info: $tmp/xtr.gltf: warning: animations[0].extras.markers: expected an array; ignored (1 animation with extras ignored)' $tmp/err && grep -qF '(animation_0): 1 s' $tmp/out"
"$oroya" sample "$tmp/xtr.gltf" --clip animation_0 --time 0.5 >"$tmp/out" 2>"$tmp/err"
check "sample plays its channel and warns too" \
    "[ $? = 0 ] && grep -qF 'warning: animations[0].extras.markers' $tmp/err && grep -qF '\"n\":{\"translation\":[0.5,0,0]' $tmp/out"
cp "$tmp/xtr.gltf" "$tmp/sc/xtr.gltf"
echo '{"gltf":"xtr.gltf","steps":{"fps":10,"count":1},"record":["n.position"]}' >"$tmp/sc/x.json"
"$oroya" play "$tmp/sc/x.json" >"$tmp/out" 2>"$tmp/err"
check "play warns of it too" \
    "[ $? = 0 ] && grep -qF 'warning: gltf: animations[0].extras.markers: expected an array; ignored' $tmp/err"

# ---- a refused action op says which rule it broke -------------------------------------------
sc() {
    echo '{"nodes":[{"name":"a"}],"clips":[{"name":"c","duration":1,"blendMode":"additive","tracks":[{"node":"a","property":"position","times":[0,1],"values":[0,0,0,1,0,0]}]}],"script":[{"at":0,"do":"play","action":"c"},'"$1"'],"steps":{"dt":0.1,"count":3},"record":["a.position"]}' >"$tmp/s.json"
    "$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
}
sc '{"at":0,"do":"setEffectiveWeight","action":"c","weight":1e9}'
check "setEffectiveWeight 1e9: names the value and the limit" \
    "[ $? = 1 ] && grep -qF 'script[1]: setEffectiveWeight: weight 1e+09 refused: |weight| must be at most 1e+06' $tmp/err"
sc '{"at":0,"do":"warp","action":"c","startTimeScale":1e300,"endTimeScale":-1e300,"duration":1e-300}'
check "warp(1e300, -1e300, 1e-300): says the ratio is beyond the float range" \
    "[ $? = 1 ] && grep -qF 'script[1]: warp(1e+300, -1e+300, 1e-300) refused: startTimeScale 1e+300 / the action' $tmp/err && grep -q 'beyond the float range' $tmp/err"
sc '{"at":0,"do":"warp","action":"c","startTimeScale":1,"endTimeScale":1,"duration":-1}'
check "warp with a negative duration: says so" \
    "[ $? = 1 ] && grep -qF 'duration -1: it must be >= 0' $tmp/err"
sc '{"at":0,"do":"fadeIn","action":"c","duration":-2}'
check "fadeIn -2: names the value and the rule" \
    "[ $? = 1 ] && grep -qF 'script[1]: fadeIn: duration -2 refused: it must be finite and >= 0' $tmp/err"
# The C call's own message, for the ops the runner has no rule text of its own for.
echo '{"nodes":[{"name":"a"}],"clips":[{"name":"c","duration":1,"tracks":[{"node":"a","property":"position","times":[0,1],"values":[0,0,0,1,0,0]}]},{"name":"d","duration":1,"tracks":[{"node":"a","property":"position","times":[0,1],"values":[0,0,0,2,0,0]}]}],"script":[{"at":0,"do":"play","action":"c"},{"at":0,"do":"crossFadeTo","from":"c","to":"d","duration":-1}],"steps":{"dt":0.1,"count":3},"record":["a.position"]}' >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "crossFadeTo -1: names the call, the duration and the rule" \
    "[ $? = 1 ] && grep -qF 'script[1]: crossFadeTo refused: oroya_action_cross_fade_to: duration -1: must be a finite number >= 0' $tmp/err"

exit $fail
