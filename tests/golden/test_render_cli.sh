#!/usr/bin/env bash
# `oroya render`: the demo command and its outputs, single frames, and clear errors with
# non-zero exits on bad arguments. Run as: bash test_render_cli.sh BUILD_DIR SOURCE_DIR
# GIF frames are counted by walking the GIF block structure (GIF89a spec) in Python, not by
# trusting the tool's own message.
set -u
# Mesa leaks a few blocks inside eglTerminate, from a driver it has already unloaded (so
# LeakSanitizer cannot even name the module to suppress): in ASan builds leak detection is
# off for this test only. Every other ASan check stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
BUILD=$(cd "$1" && pwd)
set -- "$1" "$(cd "$2" && pwd)"
OROYA="$BUILD/oroya"
# A build without the renderer (-DOROYA_BUILD_RENDER=OFF) has nothing here to test.
if "$OROYA" render /nonexistent.glb 2>&1 | grep -q 'built without the renderer'; then
    echo "SKIP: this oroya was built without the renderer"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect CODE GREP_PATTERN command...: exit code and a pattern in stderr ('' = any).
expect() {
    local code=$1 pattern=$2
    shift 2
    "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"
    local got=$?
    if [ "$got" -ne "$code" ]; then
        fail "'$*' exited $got, expected $code"
        sed 's/^/    /' "$tmp/err.txt" >&2
    elif [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/err.txt"; then
        fail "'$*': stderr lacks '$pattern'"
        sed 's/^/    /' "$tmp/err.txt" >&2
    fi
}

gif_frames() {
    python3 - "$1" <<'EOF'
import sys
d = open(sys.argv[1], 'rb').read()
assert d[:6] in (b'GIF87a', b'GIF89a'), 'not a GIF'
flags = d[10]
p = 13 + (3 * (2 << (flags & 7)) if flags & 0x80 else 0)
frames = 0
def skip_sub_blocks(p):
    while d[p]:
        p += d[p] + 1
    return p + 1
while True:
    b = d[p]
    if b == 0x3B:
        break
    if b == 0x21:
        p = skip_sub_blocks(p + 2)
    elif b == 0x2C:
        frames += 1
        f = d[p + 9]
        p += 10 + (3 * (2 << (f & 7)) if f & 0x80 else 0)
        p = skip_sub_blocks(p + 1)
    else:
        raise SystemExit('bad block 0x%02x at %d' % (b, p))
print(frames)
EOF
}

png_size() { # width x height from the IHDR chunk
    od -An -tu1 -j16 -N8 "$1" | awk '{printf "%dx%d\n", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}'
}

# 1. The demo command: out/demo.gif and the poster out/demo.png.
expect 0 "rendering \[" "$OROYA" render --size 96x54 --fps 10 --msaa 1
[ -s out/demo.gif ] || fail "out/demo.gif missing or empty"
[ -s out/demo.png ] || fail "out/demo.png missing or empty"
if command -v python3 >/dev/null; then
    n=$(gif_frames out/demo.gif)
    [ "$n" = 40 ] || fail "out/demo.gif has $n frames, expected 40 (4 s at 10 fps)"
else
    echo "note: python3 not found, GIF frame count not checked"
fi
[ "$(png_size out/demo.png)" = 96x54 ] || fail "poster size $(png_size out/demo.png), expected 96x54"

# 2. Single frames: deterministic, and the animation changes the picture.
expect 0 "" "$OROYA" render --time 0.25 --size 64x48 --msaa 1 -o a.png
expect 0 "" "$OROYA" render --time 0.25 --size 64x48 --msaa 1 -o b.png
expect 0 "" "$OROYA" render --time 1.25 --size 64x48 --msaa 1 -o c.png
cmp -s a.png b.png || fail "two renders of the same time differ"
cmp -s a.png c.png && fail "renders at 0.25 s and 1.25 s are identical"
[ "$(png_size a.png)" = 64x48 ] || fail "a.png size $(png_size a.png), expected 64x48"
# With only the bending cylinder playing, the balls stay in their rest pose.
expect 0 "" "$OROYA" render --clip bend --time 0.25 --size 64x48 --msaa 1 -o d.png
cmp -s a.png d.png && fail "--clip bend did not stop the balls"
expect 0 "" "$OROYA" render --camera camera --time 0.5 --size 64x48 -o e.png
# The inverse kinematics demo: its own scene, moving over time; it takes no file.
expect 0 "" "$OROYA" render --ik --time 0.4 --size 64x48 --msaa 1 -o ik1.png
expect 0 "" "$OROYA" render --ik --time 2.8 --size 64x48 --msaa 1 -o ik2.png
cmp -s ik1.png ik2.png && fail "the IK demo at 0.4 s and 2.8 s is identical"
cmp -s ik1.png a.png && fail "--ik rendered the tutorials' demo"
expect 2 "takes no FILE" "$OROYA" render --ik bad.gltf -o x.png
expect 0 "" "$OROYA" render --skeleton --size 64x48 -o f.gif --fps 4 --duration 1
if command -v python3 >/dev/null; then
    n=$(gif_frames f.gif)
    [ "$n" = 4 ] || fail "f.gif has $n frames, expected 4"
fi

# 3. A glTF file (CesiumMan, tests/assets): the walk moves the legs between two times half a
#    step apart, and one loop later (2 s, the clip's duration) the picture is the same.
cesium="$2/tests/assets/CesiumMan/glTF/CesiumMan.gltf"
[ -f "$cesium" ] || fail "$cesium is missing"
command -v python3 >/dev/null || fail "python3 is missing (make deps installs it)"
if true; then
    for t in 0.2 0.7 2.2; do
        expect 0 "" "$OROYA" render "$cesium" --time $t --size 128x128 --msaa 1 -o "cesium_$t.png"
    done
    python3 "$2/tests/golden/pngtool.py" legs cesium_0.2.png cesium_0.7.png || fail "CesiumMan's legs did not move"
    python3 "$2/tests/golden/pngtool.py" same cesium_0.2.png cesium_2.2.png 1 || fail "CesiumMan one loop later differs"
    expect 0 "" "$OROYA" render "$cesium" --size 64x64 --fps 5 --duration 1 --skeleton -o cesium.gif
    [ "$(gif_frames cesium.gif)" = 5 ] || fail "cesium.gif frame count"
    expect 1 "no clip named 'nope'; clips: animation_0" "$OROYA" render "$cesium" --clip nope -o x.png
fi
# 3b. What plays: clips that animate different nodes play together (InterpolationTest's nine
#     cubes: the longest clip, 1.70833 s, at 24 fps is 41 frames; its first clip alone would
#     be 40); clips on the same nodes play one after the other (CesiumMan's walk and two
#     clips cut from it: 2 + 22/24 + 23/24 s = 3.875 s, 31 frames at 8 fps).
interp="$2/tests/assets/InterpolationTest/glTF-Binary/InterpolationTest.glb"
expect 0 "" "$OROYA" render "$interp" --size 48x32 --msaa 1 --fps 24 -o together.gif
[ "$(gif_frames together.gif)" = 41 ] || fail "InterpolationTest played $(gif_frames together.gif) frames, expected 41"
expect 0 "" "$OROYA" export "$cesium" three.glb --subclip animation_0:0:24:24=first --subclip animation_0:24:48:24=second
expect 0 "" "$OROYA" render three.glb --size 48x32 --msaa 1 --fps 8 -o row.gif
[ "$(gif_frames row.gif)" = 31 ] || fail "three clips in a row: $(gif_frames row.gif) frames, expected 31"
expect 0 "" "$OROYA" render three.glb --clip second --clip first --size 48x32 --msaa 1 --fps 8 -o two.gif
[ "$(gif_frames two.gif)" = 15 ] || fail "--clip second --clip first: $(gif_frames two.gif) frames, expected 15"
# In the row, t = 2.5 s is 0.5 s into "first" (the walk at 0.54 s), not the walk looped back
# to 0.5 s.
expect 0 "" "$OROYA" render three.glb --time 2.5 --size 64x64 --msaa 1 -o row_2.5.png
expect 0 "" "$OROYA" render three.glb --time 0.5 --size 64x64 --msaa 1 -o row_0.5.png
cmp -s row_2.5.png row_0.5.png && fail "t = 2.5 s of the row shows the walk at 0.5 s, not clip 'first'"

# 3c. Camera and stage. From the side (--yaw 90) the walker fills most of the frame's height;
#     the ground reaches the bottom corners and --no-ground leaves the background there; the
#     skeleton overlay's ribbons and discs cover far more than 1-pixel lines would.
expect 0 "" "$OROYA" render "$cesium" --time 0.5 --yaw 90 --no-ground --size 320x180 --msaa 1 -o side.png
rows=$(python3 "$2/tests/golden/pngtool.py" fill side.png | cut -d' ' -f1)
python3 -c "import sys; sys.exit(0 if float('$rows') >= 75 else 1)" || fail "from the side the figure spans $rows% of the rows, expected >= 75%"
expect 0 "" "$OROYA" render "$cesium" --time 0.5 --yaw 90 --size 320x180 --msaa 1 -o side_ground.png
bg=$(python3 "$2/tests/golden/pngtool.py" pixel side.png 2 177)
ground=$(python3 "$2/tests/golden/pngtool.py" pixel side_ground.png 2 177)
[ "$bg" != "$ground" ] || fail "no ground under the figure (bottom-left pixel $ground, as without: $bg)"
expect 0 "" "$OROYA" render "$cesium" --time 0.5 --yaw 90 --no-ground --skeleton --size 320x180 --msaa 1 -o side_sk.png
n=$(python3 "$2/tests/golden/pngtool.py" same side.png side_sk.png 30 | cut -d' ' -f1)
[ "$n" -ge 600 ] || fail "the skeleton overlay changes $n pixels, expected >= 600 (wide bones and joint discs)"
expect 0 "" "$OROYA" render "$cesium" --time 0.5 --yaw 180 --pitch 40 --distance 6 --size 64x64 --msaa 1 -o back.png
cmp -s cesium_0.7.png back.png && fail "--yaw 180 --pitch 40 --distance 6 changed nothing"
expect 0 "" "$OROYA" render "$cesium" --orbit --duration 1 --fps 4 --size 48x32 --msaa 1 -o orbit.gif
[ "$(gif_frames orbit.gif)" = 4 ] || fail "orbit.gif frame count"
expect 2 "cannot go with --time" "$OROYA" render "$cesium" --orbit --time 1 -o x.png
expect 2 "cannot go with --camera NODE" "$OROYA" render --camera camera --yaw 30 -o x.png
expect 2 "in -89..89" "$OROYA" render --pitch 95 -o x.png
expect 2 "distance > 0" "$OROYA" render --distance -1 -o x.png

printf '{"asset": {"version": "2.0"}, "nodes": [{"mesh": 7}]}' > bad.gltf
expect 1 "bad.gltf" "$OROYA" render bad.gltf -o x.png
expect 1 "missing.gltf" "$OROYA" render missing.gltf -o x.png

# MP4: a stand-in `ffmpeg` on PATH records its arguments and the raw frames it is fed, so the
# pipe is checked without ffmpeg installed: 3 frames of 32x18 RGBA = 6912 bytes. The output
# name has a quote in it, which the shell command must escape, and goes behind ffmpeg's file:
# protocol (ffmpeg took "-x.mp4" for an option and "a:b.mp4" for a protocol).
mkdir -p fakebin
printf '#!/bin/sh\nfor last; do :; done\nlast=${last#file:}\necho "$@" > "$last.args"\ncat > "$last"\n' > fakebin/ffmpeg
chmod +x fakebin/ffmpeg
expect 0 "" env PATH="$tmp/fakebin:$PATH" "$OROYA" render --size 32x18 --fps 3 --duration 1 -o "it's.mp4"
[ "$(wc -c < "it's.mp4")" = 6912 ] || fail "the MP4 pipe got $(wc -c < "it's.mp4") bytes, expected 6912"
grep -q -- "-pixel_format rgba -video_size 32x18 -framerate 3 " "it's.mp4.args" || fail "ffmpeg arguments: $(cat "it's.mp4.args")"
grep -q -- " file:it's.mp4\$" "it's.mp4.args" || fail "ffmpeg output argument: $(cat "it's.mp4.args")"
expect 0 "" env PATH="$tmp/fakebin:$PATH" "$OROYA" render --size 32x18 --fps 3 --duration 1 -o "-x.mp4"
grep -q -- " file:-x.mp4\$" -- "-x.mp4.args" || fail "ffmpeg output argument: $(cat -- "-x.mp4.args")"
expect 2 "even width" "$OROYA" render --size 33x18 -o x.mp4
# An ffmpeg that exits before reading (the real one does when it cannot create the output,
# e.g. in a missing folder): exit 1 with a message. The write to the closed pipe raised SIGPIPE,
# which ended oroya without a word (exit 141).
mkdir -p deadbin
printf '#!/bin/sh\necho "stand-in ffmpeg: cannot open the output" >&2\nexit 1\n' > deadbin/ffmpeg
chmod +x deadbin/ffmpeg
expect 1 "ffmpeg stopped reading" env PATH="$tmp/deadbin:$PATH" "$OROYA" render --size 320x180 --fps 5 --duration 1 -o dead.mp4
# A FIFO as the output is refused, not waited on (open() blocked forever with no reader), and
# left as it is.
mkfifo fifo.png fifo.gif
expect 1 "not a regular file" timeout 60 "$OROYA" render --size 32x32 --time 0 -o fifo.png
expect 1 "not a regular file" timeout 60 "$OROYA" render --size 32x32 --fps 5 --duration 0.4 -o fifo.gif
[ -p fifo.png ] && [ -p fifo.gif ] || fail "the FIFOs were removed"
# A directory as the output: refused before rendering, by its type (the GIF case rendered every
# frame first, then failed with the system's "Is a directory"), with MP4 too.
mkdir -p dir.png dir.gif dir.mp4
expect 1 "'dir.png': a directory; nothing was rendered" "$OROYA" render --size 32x32 --time 0 -o dir.png
expect 1 "'dir.gif': a directory; nothing was rendered" "$OROYA" render --size 32x32 --fps 5 --duration 0.4 -o dir.gif
expect 1 "'dir.mp4': a directory; nothing was rendered" "$OROYA" render --size 32x32 --fps 5 --duration 0.4 -o dir.mp4
# Finite morph weights whose morphed positions overflow float (3e38 on two targets of delta 1):
# refused naming the node (the mesh vanished from the image, exit 0); weights 0.5 render.
morph() {
    printf '{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"name":"m","mesh":0,"weights":[%s,%s]}],"meshes":[{"primitives":[{"attributes":{"POSITION":0},"targets":[{"POSITION":1},{"POSITION":1}]}]}],"buffers":[{"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAgD8AAAA/AAAAPwAAAD8AAAA/","byteLength":96}],"bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":36}],"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3"}]}' "$1" "$1" >"$2"
}
morph 3e38 morph_big.gltf
morph 0.5 morph_ok.gltf
expect 1 "node 'm': oroya_render_draw: morph_weights: the morphed positions would not be finite" "$OROYA" render morph_big.gltf --size 32x32 --time 0 -o morph_big.png
[ -e morph_big.png ] && fail "render wrote an image of a mesh whose morphed positions overflow"
expect 0 "" "$OROYA" render morph_ok.gltf --size 32x32 --time 0 -o morph_ok.png
# A camera node that gives no view or no projection says which and why (it said "invalid
# argument" or "non-finite value" alone).
printf '{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0,1,2]}],"nodes":[{"name":"m","mesh":0},{"name":"flat","camera":0,"translation":[0,0,5],"scale":[0,0,0]},{"name":"narrow","camera":1,"translation":[0,0,5]}],"cameras":[{"type":"perspective","perspective":{"yfov":0.8,"znear":0.1}},{"type":"perspective","perspective":{"yfov":1e-40,"znear":0.1}}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"buffers":[{"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA","byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}]}' >cams.gltf
expect 1 "camera 'flat': its world matrix has no inverse in float" "$OROYA" render cams.gltf --camera flat --size 32x32 --time 0 -o cam_flat.png
expect 1 "camera 'narrow': no projection from yfov" "$OROYA" render cams.gltf --camera narrow --size 32x32 --time 0 -o cam_narrow.png

# 4. Errors: usage errors exit 2, failures exit 1, each with a clear message.
expect 2 "unknown option" "$OROYA" render --bogus
expect 2 "16 <= W" "$OROYA" render --size 8x8 -o x.png
expect 2 "not a number" "$OROYA" render --fps abc -o x.gif
expect 2 "cannot go with" "$OROYA" render --time 1 --fps 10 -o x.gif
expect 2 ".png, .gif or .mp4" "$OROYA" render -o x.bmp
expect 2 "needs a value" "$OROYA" render -o
# --clip is repeatable up to WORLD_MAX_CLIPS (16) times: the message said "at most 8" (the limit
# before it grew), and docs/cli.md "up to 8 times".
clips16=()
for i in $(seq 16); do clips16+=(--clip animation_0); done
expect 0 "" "$OROYA" render "$cesium" "${clips16[@]}" --time 0 --size 16x16 -o clips16.png
expect 2 "too many --clip options (at most 16)" "$OROYA" render "$cesium" "${clips16[@]}" --clip animation_0 -o x.png
expect 2 "one frame" "$OROYA" render --duration 2 -o x.png
expect 1 "no clip named 'nope'; clips: bounce comparison bend rods" "$OROYA" render --clip nope -o x.png
expect 1 "no camera node named 'nope'" "$OROYA" render --camera nope -o x.png
expect 1 "cannot write '/nonexistent-dir/x.png'" "$OROYA" render --size 32x32 --time 0 -o /nonexistent-dir/x.png
expect 1 "needs ffmpeg" env PATH=/nonexistent "$OROYA" render -o x.mp4
expect 0 "" "$OROYA" render --help

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "all oroya render CLI checks passed"
