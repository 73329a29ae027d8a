#!/usr/bin/env bash
# `oroya render` samples a glTF base color texture as the file says: with its sampler's wrap
# and filter modes and from the TEXCOORD set its texCoord names. Run as:
# bash test_render_sampler_cli.sh BUILD_DIR SOURCE_DIR
# The model (written here) is a square facing the camera, textured with a 2x1 image (red,
# blue). Every vertex has TEXCOORD_0 (0.75, 0.5), in the blue texel, and TEXCOORD_1
# (-0.25, 0.5), left of the image: CLAMP_TO_EDGE takes the red edge texel there, REPEAT the
# blue one (u 0.75). Expected by hand from glTF 2.0 (section 5.26): texCoord 1 + CLAMP_TO_EDGE
# red; texCoord 1 + REPEAT blue; texCoord 0 blue.
set -u
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Mesa's leaks, as test_render_cli
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
OROYA="$BUILD/oroya"
# A build without the renderer (-DOROYA_BUILD_RENDER=OFF) has nothing here to test.
if "$OROYA" render /nonexistent.glb 2>&1 | grep -q 'built without the renderer'; then
    echo "SKIP: this oroya was built without the renderer"
    exit 77
fi
. "$SRC/tests/cli/lib.sh"

model() { # model OUT TEXCOORD WRAP_S
    python3 - "$@" <<'PY'
import base64, json, struct, sys, zlib
out, texcoord, wrap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
raw = b'\0' + bytes([255, 0, 0, 255, 0, 0, 255, 255])
png = (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2, 1, 8, 6, 0, 0, 0)) +
       chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
pos = [-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0]
nrm = [0, 0, 1] * 4
uv0 = [0.75, 0.5] * 4
uv1 = [-0.25, 0.5] * 4
idx = [0, 1, 2, 0, 2, 3]
blob = struct.pack('<12f', *pos) + struct.pack('<12f', *nrm) + struct.pack('<8f', *uv0) + \
       struct.pack('<8f', *uv1) + struct.pack('<6H', *idx)
views = [{"buffer": 0, "byteOffset": o, "byteLength": n} for o, n in
         ((0, 48), (48, 48), (96, 32), (128, 32), (160, 12))]
gltf = {
    "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
    "nodes": [{"name": "square", "mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2,
                                               "TEXCOORD_1": 3}, "indices": 4, "material": 0}]}],
    "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0,
                                                                 "texCoord": texcoord},
                                            "metallicFactor": 0}}],
    "textures": [{"source": 0, "sampler": 0}],
    "samplers": [{"magFilter": 9728, "minFilter": 9728, "wrapS": wrap, "wrapT": 33071}],
    "images": [{"uri": "data:image/png;base64," + base64.b64encode(png).decode()}],
    "accessors": [
        {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
         "min": [-1, -1, 0], "max": [1, 1, 0]},
        {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
        {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2"},
        {"bufferView": 3, "componentType": 5126, "count": 4, "type": "VEC2"},
        {"bufferView": 4, "componentType": 5123, "count": 6, "type": "SCALAR"}],
    "bufferViews": views,
    "buffers": [{"byteLength": len(blob),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
}
json.dump(gltf, open(out, 'w'))
PY
}

# check NAME TEXCOORD WRAP_S COLOR: the middle pixel is mostly COLOR (red or blue).
check() {
    model "$1.gltf" "$2" "$3" || { fail "$1: cannot write the model"; return; }
    if ! "$OROYA" render "$1.gltf" --no-ground --pitch 0 --size 64x64 --msaa 1 -o "$1.png" \
        2>"$1.err"; then
        fail "$1: oroya render failed: $(cat "$1.err")"
        return
    fi
    read -r r g b < <(python3 "$SRC/tests/golden/pngtool.py" pixel "$1.png" 32 32)
    if [ "$4" = red ]; then
        [ "$r" -gt $((2 * b + 20)) ] && [ "$r" -gt $((2 * g + 20)) ] ||
            fail "$1: middle pixel $r $g $b, expected red"
    else
        [ "$b" -gt $((2 * r + 20)) ] && [ "$b" -gt $((2 * g + 20)) ] ||
            fail "$1: middle pixel $r $g $b, expected blue"
    fi
}

check uv1_clamp 1 33071 red
check uv1_repeat 1 10497 blue
check uv0_clamp 0 33071 blue

finish "texCoord and wrap mode"
