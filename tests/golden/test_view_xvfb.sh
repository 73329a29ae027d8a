#!/usr/bin/env bash
# `oroya view` under Xvfb: the window shows the scene (the screenshot, read back from the
# window's framebuffer, is not blank), and keys change the viewer's state. Scripted key
# presses (--press KEY@FRAME) go through the same handler as GLFW's key callback.
# Run as: bash test_view_xvfb.sh BUILD_DIR SOURCE_DIR. Reports a skip to ctest (exit 77) when
# xvfb-run or python3 is missing or the CLI was built without GLFW.
set -u
BUILD=$(cd "$1" && pwd)
OROYA="$BUILD/oroya"
# Mesa and the X client libraries leak at exit (see test_render_cli.sh): leak detection is off
# for this test only in ASan builds.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
command -v xvfb-run >/dev/null || { echo "skipped: xvfb-run not found"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: python3 not found"; exit 77; }
if "$OROYA" view --help 2>&1 | grep -q "built without GLFW"; then
    echo "skipped: oroya built without GLFW"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

run_view() { timeout 300 xvfb-run -a -s "-screen 0 640x480x24" "$OROYA" view "$@"; }

run_view --frames 20 --size 160x90 --press k@3 --press space@5 --press n@8 --press x@10 \
    --press plus@12 --press right@14 --screenshot "$tmp/a.png" >"$tmp/state.txt" 2>"$tmp/err.txt"
rc=$?
[ $rc -eq 0 ] || { fail "oroya view exited $rc"; cat "$tmp/err.txt" >&2; }
expect_state() { grep -q "^state: frame=$1 .*$2" "$tmp/state.txt" || fail "no state line 'frame=$1 ... $2'"; }
expect_state 3 "clip=all playing=1 speed=1 skeleton=1 fading=0"
expect_state 5 "playing=0"
expect_state 8 "clip=bounce"
expect_state 10 "clip=comparison .*fading=1"
expect_state 12 "speed=2"
expect_state 14 "yaw=0.150"

# Zoom stays within 1/100 and 100 times the framing distance: 64 PageDown presses (1.1^64 =
# 445) stop at 100, 64 PageUp presses (0.9^64 = 0.0012) at 0.01. Unbounded, zooming out long
# enough overflowed the camera matrices and stopped the viewer.
args=()
for i in $(seq 1 64); do args+=(--press "pagedown@$i"); done
run_view --frames 66 --size 160x90 "${args[@]}" >"$tmp/zoom.txt" 2>"$tmp/err.txt" || fail "zoom out: $(cat "$tmp/err.txt")"
grep -q "^state: frame=64 .*zoom=100$" "$tmp/zoom.txt" || fail "zoom out: $(tail -1 "$tmp/zoom.txt")"
args=()
for i in $(seq 1 64); do args+=(--press "pageup@$i"); done
run_view --frames 66 --size 160x90 "${args[@]}" >"$tmp/zoom.txt" 2>"$tmp/err.txt" || fail "zoom in: $(cat "$tmp/err.txt")"
grep -q "^state: frame=64 .*zoom=0.01$" "$tmp/zoom.txt" || fail "zoom in: $(tail -1 "$tmp/zoom.txt")"

# Not blank: many distinct colors, and the background is not everywhere.
python3 - "$tmp/a.png" <<'EOF' || fail "screenshot check failed"
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n'
p, idat, w = 8, b'', 0
while p < len(d):
    n, t = struct.unpack('>I4s', d[p:p + 8])
    body = d[p + 8:p + 8 + n]
    if t == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and ctype == 6, 'expected RGBA8'
    elif t == b'IDAT':
        idat += body
    p += 12 + n
raw, bpp, stride = zlib.decompress(idat), 4, w * 4
rows, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
colors = {}
for line in rows:
    for i in range(0, stride, 4):
        k = bytes(line[i:i + 3])
        colors[k] = colors.get(k, 0) + 1
top = max(colors.values())
print('screenshot %dx%d: %d colors, most common covers %.0f%%' % (w, h, len(colors), 100.0 * top / (w * h)))
assert len(colors) > 50, 'too few colors: blank?'
assert top < 0.9 * w * h, 'one color covers 90% of the window'
EOF

# --screenshot without --frames: the frame drawn after the quit key is written (it was
# silently left out, exit 0 and no file).
run_view --size 64x48 --press q@4 --screenshot "$tmp/q.png" >"$tmp/state_q.txt" 2>"$tmp/err_q.txt"
rc=$?
[ $rc -eq 0 ] || { fail "oroya view --press q@4 exited $rc"; cat "$tmp/err_q.txt" >&2; }
grep -q "^state: frame=4 " "$tmp/state_q.txt" || fail "no state line at the quit key"
head -c 8 "$tmp/q.png" 2>/dev/null | od -An -c | grep -q "P   N   G" ||
    fail "--screenshot with a quit key wrote no PNG"

# Bad arguments are usage errors.
"$OROYA" view --press bogus@1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--press bogus@1 should exit 2"
"$OROYA" view --frames 0 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--frames 0 should exit 2"
# Found before any window opens (so without a display too): a FRAME with more than digits
# (%u took "-1" as 4294967295 and "5x" as 5), and a screenshot name that is not .png (PNG
# bytes went into shot.bmp, exit 0).
for args in "--press n@-1" "--press n@5x" "--press n@" "--frames 2 --screenshot $tmp/shot.bmp"; do
    timeout 60 env -u DISPLAY -u WAYLAND_DISPLAY "$OROYA" view $args >/dev/null 2>"$tmp/usage.txt"
    rc=$?
    [ $rc -eq 2 ] || fail "view $args: exit $rc, expected 2: $(head -1 "$tmp/usage.txt")"
done
[ -e "$tmp/shot.bmp" ] && fail "view --screenshot shot.bmp wrote a file"
# Without a display, a clear message and exit 1.
env -u DISPLAY -u WAYLAND_DISPLAY "$OROYA" view --frames 1 >/dev/null 2>"$tmp/nodisp.txt"
rc=$?
[ $rc -eq 1 ] && grep -q "needs a display" "$tmp/nodisp.txt" || { fail "no-display run: exit $rc"; cat "$tmp/nodisp.txt" >&2; }

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "all oroya view checks passed"
