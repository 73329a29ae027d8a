#!/usr/bin/env bash
# Every subcommand that opens files reports a missing one the same way, "oroya CMD: PATH:
# <errno text>" (the subcommand, the path once, the system's reason), and every subcommand
# takes clip names the same way (a clip's name or animation_<index>, one resolver).
# Run as: bash test_cli_errors.sh BUILD_DIR SOURCE_DIR
set -u
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Mesa, see test_render_cli.sh
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
OROYA="$BUILD/oroya"
. "$SRC/tests/cli/lib.sh"

# expect CODE EXACT_FIRST_STDERR_LINE command...
expect_line() {
    local code=$1 line=$2
    shift 2
    "$@" >out.txt 2>err.txt
    local got=$?
    [ "$got" -eq "$code" ] || fail "'$*' exited $got, expected $code"
    [ "$(head -1 err.txt)" = "$line" ] || { fail "'$*': stderr is"; sed 's/^/    /' err.txt >&2; echo "  expected: $line" >&2; }
}

missing=/nonexistent-dir/x.glb
enoent="No such file or directory"
# A build without the renderer (-DOROYA_BUILD_RENDER=OFF) or GLFW refuses render and view
# before it opens anything: their cases are skipped there (said below), the rest still run.
render=true view=true
"$OROYA" render $missing 2>&1 | grep -q 'built without' && render=false
"$OROYA" view $missing 2>&1 | grep -q 'built without' && view=false
$render || echo "skip: render cases (built without the renderer)"
$view || echo "skip: view cases (built without GLFW or the renderer)"
# The commands of a list that this build has.
have() {
    local c
    for c in "$@"; do
        case "$c" in render*) $render || continue ;; view*) $view || continue ;; esac
        printf '%s\n' "$c"
    done
}
expect_line 1 "oroya info: $missing: $enoent" "$OROYA" info $missing
expect_line 1 "oroya sample: $missing: $enoent" "$OROYA" sample $missing --clip animation_0 --time 0
! $render || expect_line 1 "oroya render: $missing: $enoent" "$OROYA" render $missing -o x.png
! $view || expect_line 1 "oroya view: $missing: $enoent" "$OROYA" view $missing --frames 1
expect_line 1 "oroya export: $missing: $enoent" "$OROYA" export $missing out.glb
expect_line 1 "oroya plot: $missing: $enoent" "$OROYA" plot $missing -o x.png
expect_line 1 "oroya plot: /nonexistent-dir/s.json: $enoent" "$OROYA" plot /nonexistent-dir/s.json -o x.png
expect_line 1 "oroya play: /nonexistent-dir/s.json: $enoent" "$OROYA" play /nonexistent-dir/s.json
# A folder is not a file: the reason is the system's, still one path.
mkdir adir
"$OROYA" info adir 2>err.txt
grep -c "adir" err.txt | grep -qx 1 || fail "info adir names the path other than once: $(cat err.txt)"
# A FIFO is refused, by name, without blocking on it (nobody writes to it).
mkfifo fifo.gltf fifo.json
while IFS= read -r cmd; do
    set -- $cmd
    timeout 20 "$OROYA" "$1" fifo.gltf "${@:2}" >out.txt 2>err.txt
    code=$?
    [ "$code" = 1 ] || fail "$1 on a FIFO exited $code (124: it blocked)"
    [ "$(grep -o 'fifo.gltf' err.txt | wc -l)" = 1 ] || fail "$1 on a FIFO: $(cat err.txt)"
done < <(have info "sample --clip a --time 0" "render -o x.png" "export out.glb" "plot -o x.png")
for cmd in play "plot -o x.png"; do
    set -- $cmd
    timeout 20 "$OROYA" "$1" fifo.json "${@:2}" >out.txt 2>err.txt
    code=$?
    [ "$code" = 1 ] || fail "$1 on a FIFO scenario exited $code (124: it blocked)"
    grep -q "^oroya $1: fifo.json: not a regular file" err.txt || fail "$1 on a FIFO scenario: $(cat err.txt)"
done
# A library error names the path once too (the importer's message starts with it).
printf '{"asset": {"version": "2.0"}, "nodes": [{"mesh": 7}]}' > bad.gltf
while IFS= read -r cmd; do
    set -- $cmd
    "$OROYA" "$1" bad.gltf "${@:2}" >out.txt 2>err.txt && fail "$cmd accepted bad.gltf"
    head -1 err.txt | grep -q "^oroya $1: bad.gltf: " || fail "$cmd bad.gltf: $(head -1 err.txt)"
    [ "$(head -1 err.txt | grep -o 'bad.gltf' | wc -l)" = 1 ] || fail "$cmd names bad.gltf twice: $(head -1 err.txt)"
done < <(have info "sample --clip a --time 0" "render -o x.png" "export out.glb" "plot -o x.png")

# One resolver: animation_<i> and glTF names wherever a clip is named.
it="$SRC/tests/assets/InterpolationTest/glTF-Binary/InterpolationTest.glb"
"$OROYA" sample "$it" --clip "Linear Rotation" --time 0.5 > by_name.json || fail "sample by glTF name"
"$OROYA" sample "$it" --clip animation_5 --time 0.5 > by_index.json || fail "sample by animation_5"
cmp -s by_name.json by_index.json || fail "sample: 'Linear Rotation' and animation_5 differ"
if $render; then
    "$OROYA" render "$it" --clip animation_5 --time 0.5 --size 64x36 --msaa 1 -o r5.png 2>err.txt || fail "render --clip animation_5: $(cat err.txt)"
    "$OROYA" render "$it" --clip "Linear Rotation" --time 0.5 --size 64x36 --msaa 1 -o rn.png 2>err.txt || fail "render --clip by name"
    cmp -s r5.png rn.png || fail "render: 'Linear Rotation' and animation_5 differ"
fi
"$OROYA" plot "$it" --clip animation_5 -o p5.svg 2>err.txt || fail "plot --clip animation_5: $(cat err.txt)"
"$OROYA" export "$it" e.glb --drop animation_0 2>err.txt || fail "export --drop animation_0: $(cat err.txt)"
"$OROYA" info e.glb | grep -q '"Step Scale"' && fail "export --drop animation_0 kept 'Step Scale'"
if $render; then
    "$OROYA" render --clip animation_1 --time 0.5 --size 64x36 --msaa 1 -o d1.png 2>err.txt || fail "render (demo) --clip animation_1: $(cat err.txt)"
    "$OROYA" render --clip comparison --time 0.5 --size 64x36 --msaa 1 -o dn.png 2>err.txt || fail "render (demo) --clip comparison"
    cmp -s d1.png dn.png || fail "the demo's animation_1 is not its clip 'comparison'"
fi
# The same refusal everywhere, naming the file and listing the clips there are.
want="no clip named 'animation_9'; clips: Step Scale Linear Scale"
while IFS= read -r cmd; do
    set -- $cmd
    "$OROYA" "$1" "$it" --clip animation_9 "${@:2}" >out.txt 2>err.txt && fail "$1 accepted animation_9"
    grep -qF "oroya $1: $it: $want" err.txt || fail "$1 --clip animation_9: $(cat err.txt)"
done < <(have "sample --time 0" "render -o x.png" "plot -o x.png" "view --frames 1")
"$OROYA" export "$it" e.glb --drop animation_9 2>err.txt && fail "export --drop animation_9 accepted"
grep -qF "oroya export: $it: $want" err.txt || fail "export --drop animation_9: $(cat err.txt)"
# Nodes: the scene name or node_<index>.
"$OROYA" plot "$it" --node node_4 -o n4.svg 2>err.txt || fail "plot --node node_4: $(cat err.txt)"
"$OROYA" plot "$it" --node nope -o n.svg 2>err.txt && fail "plot --node nope accepted"
grep -qF "oroya plot: $it: no node named 'nope'" err.txt || fail "plot --node nope: $(cat err.txt)"
# --size is WxH in plain digits: sscanf's %u took signs and read "-4294967232x64" as 64x64.
for size in "+64x+64" "-4294967232x64" "64x64x" " 64x64" "64 x64" "0064000x64"; do
    for cmd in "plot --clip comparison -o s.svg" "render --time 0 -o s.png" "view --frames 1"; do
        set -- $cmd
        [ "$1" = render ] && ! $render && continue
        [ "$1" = view ] && ! $view && continue
        "$OROYA" "$@" --size "$size" >out.txt 2>err.txt
        code=$?
        [ $code -eq 2 ] || fail "$1 --size '$size' exited $code, expected 2 (usage)"
        grep -q -- "--size '$size' is not WxH" err.txt || fail "$1 --size '$size': $(cat err.txt)"
    done
done

# oroya info prints both names of a node whose scene name is not its glTF name (a duplicate,
# a node_<digits> lookalike): it printed only node_<index>.
printf '{"asset":{"version":"2.0"},"scenes":[{"nodes":[0,1,2]}],"nodes":[{"name":"arm"},{"name":"arm"},{"name":"node_0"}]}' >dup.gltf
"$OROYA" info dup.gltf >out.txt 2>err.txt || fail "info dup.gltf: $(cat err.txt)"
for line in '  node_0 "arm" (object)' '  node_1 "arm" (object)' '  node_2 "node_0" (object)'; do
    grep -qxF "$line" out.txt || { fail "info dup.gltf lacks '$line':"; sed 's/^/    /' out.txt >&2; }
done

# An output that cannot be written says why (it said "cannot open for writing" alone).
expect 1 "x.glb: cannot open for writing: $enoent" "$OROYA" export "$it" /nonexistent-dir/x.glb

# A bad entry of sample's --times is a usage error found before anything is read or printed
# (it printed the frames before it, a JSON document cut short, and then exited 2).
expect 2 "oroya sample: bad time in --times at ',1'" "$OROYA" sample "$it" --clip animation_0 --times 0,,1
[ -s out.txt ] && fail "sample printed frames before a bad --times entry: $(head -c 200 out.txt)"
expect 2 "oroya sample: bad time in --times at 'x'" "$OROYA" sample $missing --clip animation_0 --times 0,x
# An fps so small that a frame's time f / fps is inf: a usage error, nothing printed (it
# printed "time":inf, which is not JSON, and exited 0).
expect 2 "the last frame's time (frames - 1) / fps is not finite" "$OROYA" sample "$it" --clip animation_0 --fps 1e-308 --frames 3
[ -s out.txt ] && fail "sample printed frames at an infinite time: $(head -c 200 out.txt)"
"$OROYA" sample "$it" --clip animation_0 --fps 1e-308 --frames 1 >out.txt || fail "sample --fps 1e-308 --frames 1 (one frame at 0)"

# A camera the scene refuses names the camera and its values (it said "rejected by the scene
# (invalid argument) (invalid argument)").
printf '{"asset":{"version":"2.0"},"nodes":[{"camera":0}],"cameras":[{"type":"perspective","perspective":{"yfov":0,"znear":0.1}}]}' >cam.gltf
expect 1 "nodes\[0\].camera: cameras\[0\] rejected by the scene (perspective: yfov 0, aspectRatio 0, znear 0.1, zfar 0; 0 means unset) (invalid argument)" \
    "$OROYA" info cam.gltf

# A joint scale of 1e20 times an inverse bind scale of 1e30: every world matrix is finite, the
# bone matrix is not. sample printed it as null and exited 0; now it stops naming the joint.
python3 - <<'PY'
import base64, json, struct
def du(b): return "data:application/octet-stream;base64," + base64.b64encode(b).decode()
ibm = struct.pack("<16f", 1e30, 0, 0, 0, 0, 1e30, 0, 0, 0, 0, 1e30, 0, 0, 0, 0, 1)
geo = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0) + bytes(12) + struct.pack("<12f", *([1, 0, 0, 0] * 3))
key = struct.pack("<2f", 0, 1) + struct.pack("<6f", 0, 0, 0, 0, 1, 0)
json.dump({"asset": {"version": "2.0"},
    "nodes": [{"skin": 0, "mesh": 0}, {"scale": [1e20, 1e20, 1e20]}],
    "skins": [{"joints": [1], "inverseBindMatrices": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 1, "JOINTS_0": 2, "WEIGHTS_0": 3}}]}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "MAT4"},
                  {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
                  {"bufferView": 2, "componentType": 5121, "count": 3, "type": "VEC4"},
                  {"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC4"},
                  {"bufferView": 4, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                  {"bufferView": 5, "componentType": 5126, "count": 2, "type": "VEC3"}],
    "bufferViews": [{"buffer": 0, "byteLength": 64}, {"buffer": 1, "byteLength": 36},
                    {"buffer": 1, "byteOffset": 36, "byteLength": 12}, {"buffer": 1, "byteOffset": 48, "byteLength": 48},
                    {"buffer": 2, "byteLength": 8}, {"buffer": 2, "byteOffset": 8, "byteLength": 24}],
    "buffers": [{"byteLength": 64, "uri": du(ibm)}, {"byteLength": 96, "uri": du(geo)},
                {"byteLength": 32, "uri": du(key)}],
    "animations": [{"samplers": [{"input": 4, "output": 5}],
                    "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}]}]},
    open("bone_overflow.gltf", "w"))
PY
expect 1 "clip 'animation_0' at time 0.5: skin 0 joint 0: the bone matrix (joint world x inverse bind matrix) is not finite" \
    "$OROYA" sample bone_overflow.gltf --clip animation_0 --time 0.5
grep -q null out.txt && fail "sample printed a non-finite bone matrix: $(cat out.txt)"
# A frame that is not finite after good ones: nothing on stdout (it printed the frames before
# it, then "]}" after a trailing comma, a JSON document cut short, and exited 1). Node 1 moves
# from 0 to 1e18 under a parent scaled 1e30: its world matrix leaves the float range at t = 1.
python3 - <<'PY'
import base64, json, struct
key = struct.pack("<2f", 0, 1) + struct.pack("<6f", 0, 0, 0, 1e18, 0, 0)
json.dump({"asset": {"version": "2.0"},
    "nodes": [{"scale": [1e30, 1e30, 1e30], "children": [1]}, {}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
                  {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}],
    "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 24}],
    "buffers": [{"byteLength": 32, "uri": "data:application/octet-stream;base64," + base64.b64encode(key).decode()}],
    "animations": [{"samplers": [{"input": 0, "output": 1}],
                    "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}]}]},
    open("world_overflow.gltf", "w"))
PY
"$OROYA" sample world_overflow.gltf --clip animation_0 --times 0 --world >out.txt || fail "sample world_overflow.gltf at 0"
expect 1 "clip 'animation_0' at time 1: the world matrix of node 'node_1' is not finite" \
    "$OROYA" sample world_overflow.gltf --clip animation_0 --times 0,1 --world
[ -s out.txt ] && fail "sample printed frames before the one that is not finite: $(head -c 200 out.txt)"
# oroya play's record of the same glTF skin wrote null for the whole array and exited 0.
printf '{"gltf":"bone_overflow.gltf","steps":[0.5],"record":["skin:0.boneMatrices"]}' >bones.json
expect_line 1 "oroya play: bones.json: steps[0]: record[0] 'skin:0.boneMatrices': joint 0: the bone matrix (joint world x inverse bind matrix) is not finite" \
    "$OROYA" play bones.json
[ -s out.txt ] && fail "play printed a result with a non-finite bone matrix: $(head -c 300 out.txt)"
# A mixer time scale of 0 lets any finite dt through, and the clock (a double) overflowed to
# "t": null.
printf '{"nodes":[{"name":"n"}],"mixerTimeScale":0,"steps":[1e308,1e308],"record":["n.position"]}' >clock.json
expect_line 1 "oroya play: clock.json: steps[1]: dt 1e+308 takes the clock past the double range" \
    "$OROYA" play clock.json
[ -s out.txt ] && fail "play printed a result with an infinite clock: $(head -c 300 out.txt)"
# A refused update gives the mixer's reason, naming the clip whose duration makes the time
# overflow (it blamed "a NaN, infinite or negative dt" for a dt of 0.05); a bad dt still says
# it is deviation 1.
printf '{"nodes":[{"name":"n"}],"clips":[{"name":"tiny","duration":5e-324,"tracks":[{"node":"n","property":"position","times":[0,1],"values":[0,0,0,1,0,0]}]}],"script":[{"at":0,"do":"play","action":"tiny"}],"steps":{"dt":0.05,"count":2},"record":["n.position"]}' >tiny.json
expect_line 1 "oroya play: tiny.json: steps[0]: oroya_mixer_update: dt 0.05: the time of the action of clip \"tiny\" (duration 4.94066e-324) would overflow at its time scale" \
    "$OROYA" play tiny.json
# A long record key is quoted up to 200 bytes, so the reason still fits the message (a key of
# 1000 bytes filled it and cut the reason off); a target past 255 bytes says so.
long=$(printf 'a%.0s' $(seq 1000))
printf '{"nodes":[{"name":"n"}],"steps":[0.5],"record":["%s.position"]}' "$long" >long_key.json
expect 1 "a target of 1000 bytes, more than 255" "$OROYA" play long_key.json
printf '{"nodes":[{"name":"n"}],"steps":[0.5],"record":["%s.position"]}' "${long:0:250}" >long_node.json
expect 1 "unknown node '" "$OROYA" play long_node.json
printf '{"nodes":[{"name":"n"}],"steps":[0.5,-1],"record":["n.position"]}' >neg.json
expect_line 1 "oroya play: neg.json: steps[1]: oroya_mixer_update: dt -1: must be a finite number >= 0 (a NaN, infinite or negative dt is an error in oroya: deviation 1 from three.js)" \
    "$OROYA" play neg.json

# More nodes than a scene holds (OROYA_SCENE_MAX_NODES): refused at parse, naming the array
# (it was parsed and imported until the scene refused node 1048575, 818 MB of RSS).
{ printf '{"asset":{"version":"2.0"},"nodes":[{}'; yes ',{}' | head -n 1048575; printf ']}'; } >many_nodes.gltf
expect_line 1 "oroya info: many_nodes.gltf: nodes: 1048576 entries, the limit is 1048575 (OROYA_SCENE_MAX_NODES) (limit exceeded)" \
    "$OROYA" info many_nodes.gltf
rm -f many_nodes.gltf

finish "CLI error and name"
