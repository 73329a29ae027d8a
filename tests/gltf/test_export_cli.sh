#!/usr/bin/env bash
# `oroya export IN OUT`: the files it writes (.gltf + .bin and .glb) pass the Khronos glTF
# validator with 0 errors, and read back with the same animation (sampled through `oroya
# sample`, compared number by number); --subclip and --make-additive give the clips three.js's
# AnimationUtils would. Run as: bash test_export_cli.sh BUILD_DIR SOURCE_DIR. Exit 77 (skip)
# when node or the validator is missing (make deps installs them).
. "$(dirname "${BASH_SOURCE[0]}")/validator_prologue.sh"

cesium="$SRC/tests/assets/CesiumMan/glTF/CesiumMan.gltf"
interp="$SRC/tests/assets/InterpolationTest/glTF-Binary/InterpolationTest.glb"
"$OROYA" export "$cesium" cesium.glb 2>err.txt || fail "export to .glb: $(cat err.txt)"
"$OROYA" export "$cesium" cesium.gltf 2>err.txt || fail "export to .gltf: $(cat err.txt)"
[ -s cesium.bin ] || fail "cesium.gltf has no cesium.bin beside it"
"$OROYA" export "$interp" interp.glb 2>err.txt || fail "export InterpolationTest: $(cat err.txt)"
"$OROYA" export "$cesium" cut.gltf --subclip animation_0:0:24:24=first --subclip animation_0:24:48:24 \
    --make-additive first 2>err.txt || fail "export with clip options: $(cat err.txt)"
NODE_PATH="$node_path" node "$SRC/tests/tools/validate_gltf.js" cesium.glb cesium.gltf interp.glb cut.gltf \
    > validator.txt || { fail "the validator found errors"; cat validator.txt >&2; }
grep -q ' 4 files, 0 with errors' validator.txt || fail "validator: $(tail -1 validator.txt)"

# Round trip: the same clip sampled from the original and from each export.
times=0,0.3,0.77,1.1,2
"$OROYA" sample "$cesium" --clip animation_0 --times $times > a.json
"$OROYA" sample cesium.glb --clip animation_0 --times $times > b.json
"$OROYA" sample cesium.gltf --clip animation_0 --times $times > c.json
for clip in "Step Scale" "CubicSpline Rotation" "Linear Translation"; do
    "$OROYA" sample "$interp" --clip "$clip" --times 0,0.4,0.9,1.6 >> ia.json
    "$OROYA" sample interp.glb --clip "$clip" --times 0,0.4,0.9,1.6 >> ib.json
done
# first: frames 0..23 of a 24 fps walk whose keys are 1/24 s apart from 1/24 s: the key at
# 1/24 s moves to 0, so first at t is the walk at t + 1/24. "animation_0_24_48" is the default
# name of the second subclip. --make-additive first: every track minus its value at frame 0.
"$OROYA" sample cut.gltf --clip first --times 0,0.5 > first.json
"$OROYA" sample "$cesium" --clip animation_0 --times 0.041666668,0.541666668 > walk_shift.json
"$OROYA" sample cut.gltf --clip animation_0_24_48 --times 0 > second.json
"$OROYA" sample "$cesium" --clip animation_0 --times 1 > walk_1s.json
"$OROYA" info --json cut.gltf > cut_info.json
python3 - <<'PY' || fail "round-trip comparisons (see above)"
import json, math, sys
def frames(path):
    out = []
    for line in open(path):
        line = line.strip().rstrip(',')
        if line.startswith('{"time"'):
            out.append(json.loads(line))
    return out
def close(a, b, tol, what):
    bad = 0
    for fa, fb in zip(a, b):
        for name, na in fa['nodes'].items():
            nb = fb['nodes'].get(name)
            if nb is None:
                print(what, 'node', name, 'missing'); bad += 1; continue
            for key in ('translation', 'rotation', 'scale'):
                for x, y in zip(na[key], nb[key]):
                    if abs(x - y) > tol:
                        print(what, 't', fa['time'], name, key, x, y); bad += 1; break
        for skin, ma in fa['skins'].items():
            if any(abs(x - y) > tol for x, y in zip(ma, fb['skins'][skin])):
                print(what, 'skin', skin, 'differs'); bad += 1
    if len(a) != len(b) or not a:
        print(what, 'frame counts', len(a), len(b)); bad += 1
    return bad
bad = 0
a = frames('a.json')
bad += close(a, frames('b.json'), 0, '.glb')           # keys and vertices written bit for bit
bad += close(a, frames('c.json'), 0, '.gltf')
bad += close(frames('ia.json'), frames('ib.json'), 0, 'InterpolationTest')
first = frames('first.json')
shift = frames('walk_shift.json')
# additive: first(t) = walk(t + 1/24) "minus" walk(1/24): at t = 0 the identity/zero.
animated = []
for n in first[0]['nodes']:
    v = first[0]['nodes'][n]
    if all(abs(x) < 1e-6 for x in v['translation']) and all(abs(x) < 1e-6 for x in v['scale']) and \
       all(abs(x) < 1e-6 for x in v['rotation'][:3]):
        animated.append(n)
zero = len(animated)
if zero < 19:
    print('make-additive: only %d nodes are zero at the reference frame, expected the 19 joints' % zero); bad += 1
# at t = 0.5: rotation = conj(ref) * walk(0.541667); check |w| through the angle between
# the shifted walk poses (the additive's rotation angle equals the angle from ref to q).
for n in animated:
    v = first[1]['nodes'][n]
    q, r, ref = v['rotation'], shift[1]['nodes'][n]['rotation'], shift[0]['nodes'][n]['rotation']
    dot = abs(sum(x * y for x, y in zip(r, ref)))
    if abs(abs(q[3]) - min(1.0, dot)) > 2e-5:
        print('make-additive: node', n, 'rotation', q, 'expected |w|', dot); bad += 1; break
# the second subclip, not additive: frames 24..47, so its t = 0 is the walk's key at 1 s.
bad += close(frames('second.json'), frames('walk_1s.json'), 1e-6, 'subclip')
info = json.load(open('cut_info.json'))
d = {c['name']: c['duration'] for c in info['clips']}
if set(d) != {'animation_0', 'first', 'animation_0_24_48'}:
    print('clips in cut.gltf:', sorted(d)); bad += 1
elif abs(d['first'] - 22 / 24) > 1e-5 or abs(d['animation_0_24_48'] - 23 / 24) > 1e-5:
    print('subclip durations', d); bad += 1
sys.exit(1 if bad else 0)
PY

# What the scene does not hold comes back as the file had it: the mesh, skin and material
# names and skin.skeleton (the exporter is given the imported model).
python3 - "$cesium" cesium.glb <<'PY' || fail "names and skin.skeleton after export (see above)"
import json, struct, sys
def doc(path):
    data = open(path, 'rb').read()
    if path.endswith('.glb'):
        n = struct.unpack('<I', data[12:16])[0]
        return json.loads(data[20:20 + n])
    return json.loads(data)
a, b = doc(sys.argv[1]), doc(sys.argv[2])
bad = 0
for key in ('meshes', 'skins', 'materials'):
    na, nb = [x.get('name') for x in a[key]], [x.get('name') for x in b[key]]
    if na != nb:
        print(key, 'names', na, '->', nb); bad += 1
sa = [a['nodes'][s['skeleton']].get('name') for s in a['skins'] if 'skeleton' in s]
sb = [b['nodes'][s['skeleton']].get('name') for s in b['skins'] if 'skeleton' in s]
if not sa or sa != sb:
    print('skin.skeleton', sa, '->', sb); bad += 1
sys.exit(1 if bad else 0)
PY

# The texture survives: oroya export reads the image's bytes without decoding them and writes
# them back bit for bit with the texture, its sampler and the material's baseColorTexture
# (it used to drop all four).
python3 - "$SRC/tests/assets/CesiumMan/glTF" cesium.glb cesium.gltf <<'PY' || fail "export drops or changes the texture (see above)"
import json, struct, sys, os
src = sys.argv[1]
jpg = open(os.path.join(src, 'CesiumMan_img0.jpg'), 'rb').read()
def load(path):
    raw = open(path, 'rb').read()
    if path.endswith('.glb'):
        jlen = struct.unpack_from('<I', raw, 12)[0]
        d = json.loads(raw[20:20 + jlen])
        blen = struct.unpack_from('<I', raw, 20 + jlen)[0]
        return d, raw[28 + jlen:28 + jlen + blen]
    d = json.loads(raw)
    return d, open(os.path.join(os.path.dirname(path) or '.', d['buffers'][0]['uri']), 'rb').read()
bad = 0
for path in sys.argv[2:]:
    d, blob = load(path)
    imgs, texs = d.get('images', []), d.get('textures', [])
    if len(imgs) != 1 or len(texs) != 1:
        print(path, 'images', len(imgs), 'textures', len(texs)); bad += 1; continue
    v = d['bufferViews'][imgs[0]['bufferView']]
    got = blob[v.get('byteOffset', 0):v.get('byteOffset', 0) + v['byteLength']]
    if got != jpg or imgs[0].get('mimeType') != 'image/jpeg':
        print(path, 'image bytes differ or mimeType', imgs[0].get('mimeType')); bad += 1
    smp = dict({'wrapS': 10497, 'wrapT': 10497}, **d['samplers'][texs[0]['sampler']])  # REPEAT: the default
    if smp != {'magFilter': 9729, 'minFilter': 9986, 'wrapS': 10497, 'wrapT': 10497}:
        print(path, 'sampler', d['samplers'][texs[0]['sampler']]); bad += 1
    bct = d['materials'][0]['pbrMetallicRoughness'].get('baseColorTexture')
    if not bct or bct['index'] != 0 or texs[0]['source'] != 0:
        print(path, 'baseColorTexture', bct); bad += 1
sys.exit(1 if bad else 0)
PY
grep -q "images and textures are not written" err.txt && fail "export still says images are not written"

# A write that fails midway (a file size limit, as a full disk) leaves the target as it was
# and no file beside it: an in-place export keeps its input (it was truncated to the limit).
cp "$SRC/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb" inplace.glb
cp inplace.glb inplace_before.glb
if (trap '' XFSZ; ulimit -f 100; "$OROYA" export inplace.glb inplace.glb) 2>err.txt; then
    fail "export under a 100 KB file size limit succeeded"
fi
grep -q "write failed" err.txt || fail "no write error named: $(cat err.txt)"
cmp -s inplace.glb inplace_before.glb || fail "a failed in-place export changed its input"
ls | grep -q "oroya-tmp" && fail "a failed export left a temporary file: $(ls | grep oroya-tmp)"
mkdir -p gl && cp "$SRC/tests/assets/CesiumMan/glTF/"* gl/
(trap '' XFSZ; ulimit -f 100; "$OROYA" export gl/CesiumMan.gltf gl/out.gltf) 2>/dev/null &&
    fail "export to .gltf under a 100 KB limit succeeded"
[ -e gl/out.gltf ] || [ -e gl/out.bin ] && fail "a failed .gltf export left gl/out.gltf or gl/out.bin"
"$OROYA" export inplace.glb inplace.glb 2>err.txt || fail "in-place export: $(cat err.txt)"
"$OROYA" info inplace.glb > /dev/null 2>&1 || fail "the in-place export does not read back"

# A WebP image (EXT_texture_webp, with a PNG fallback as the texture's source) is left out with
# a note, and the output passes the validator: it was written as image/webp without the
# extension, which the validator rejects.
mkdir -p webp && cp "$SRC/tests/assets/AnimatedCube/glTF/AnimatedCube.bin" \
    "$SRC/tests/assets/AnimatedCube/glTF/AnimatedCube_BaseColor.png" webp/
echo 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==' | base64 -d > webp/w.webp
python3 - "$SRC/tests/assets/AnimatedCube/glTF/AnimatedCube.gltf" webp/in.gltf <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
g['images'] = [{'uri': 'AnimatedCube_BaseColor.png'}, {'uri': 'w.webp', 'mimeType': 'image/webp'}]
g['textures'] = [{'source': 0, 'extensions': {'EXT_texture_webp': {'source': 1}}}]
g['extensionsUsed'] = ['EXT_texture_webp']
g['materials'][0]['pbrMetallicRoughness'] = {'baseColorTexture': {'index': 0}}
json.dump(g, open(sys.argv[2], 'w'))
PY
"$OROYA" export webp/in.gltf webp/out.glb 2>err.txt || fail "export with a WebP image: $(cat err.txt)"
grep -q 'images\[1\].*image/webp.*left out' err.txt || fail "no note for the WebP image: $(cat err.txt)"
# What import reads past gets a note each (here the extension), and `info` lists the same
# lines (text, and --json "notKept"): AnimatedCube's metallic-roughness texture.
grep -q 'note: extensionsUsed\[0\]: "EXT_texture_webp": the extension.s content is not kept' err.txt ||
    fail "no note for the extension: $(cat err.txt)"
cube="$SRC/tests/assets/AnimatedCube/glTF/AnimatedCube.gltf"
"$OROYA" info "$cube" > info.txt 2>&1 || fail "info AnimatedCube: $(cat info.txt)"
grep -A1 '^not kept' info.txt | grep -q '  materials\[0\].pbrMetallicRoughness.metallicRoughnessTexture: normal, occlusion and metallic-roughness textures not kept (1 in the file)' ||
    fail "info lists no loss: $(cat info.txt)"
"$OROYA" info --json "$cube" | python3 -c 'import json, sys; k = json.load(sys.stdin)["notKept"]; sys.exit(0 if len(k) == 1 and "metallicRoughnessTexture" in k[0] else 1)' ||
    fail "info --json notKept is not the one line"
"$OROYA" export "$cube" cube.glb 2>err.txt || fail "export AnimatedCube: $(cat err.txt)"
grep -q 'note: materials\[0\].pbrMetallicRoughness.metallicRoughnessTexture' err.txt ||
    fail "no note for the metallic-roughness texture: $(cat err.txt)"
"$OROYA" info --json "$cesium" | python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin)["notKept"] == [] else 1)' ||
    fail "CesiumMan has notKept lines"
NODE_PATH="$node_path" node "$SRC/tests/tools/validate_gltf.js" webp/out.glb > validator.txt ||
    { fail "the WebP case's output has validator errors"; cat validator.txt >&2; }

# A buffer outside the input's folder: refused, with the option that permits it named;
# --allow-outside (as for info, sample and render) exports it.
mkdir -p ao/in ao/out && cp "$SRC/tests/assets/RiggedSimple/glTF/RiggedSimple0.bin" ao/out/
sed 's|RiggedSimple0.bin|../out/RiggedSimple0.bin|' "$SRC/tests/assets/RiggedSimple/glTF/RiggedSimple.gltf" > ao/in/r.gltf
expect 1 "export: --allow-outside permits it" "$OROYA" export ao/in/r.gltf ao/x.glb
"$OROYA" export --allow-outside ao/in/r.gltf ao/x.glb 2>err.txt || fail "export --allow-outside: $(cat err.txt)"

# OUT.gltf's sidecar OUT.bin must not replace a file the input reads: RiggedSimple.gltf's buffer
# is RiggedSimple0.bin, so exporting it to RiggedSimple0.gltf is refused and the input still
# reads (it was overwritten: the input then failed with a bad key time).
mkdir -p rs && cp "$SRC/tests/assets/RiggedSimple/glTF/"* rs/
expect 1 "writing it would replace" "$OROYA" export rs/RiggedSimple.gltf rs/RiggedSimple0.gltf
"$OROYA" info rs/RiggedSimple.gltf > /dev/null 2>&1 || fail "the refused export broke its input"
"$OROYA" export rs/RiggedSimple.gltf rs/RiggedSimple.gltf 2>err.txt || fail "in place: $(cat err.txt)"
"$OROYA" info rs/RiggedSimple.gltf > /dev/null 2>&1 || fail "the in-place .gltf export does not read back"

# The target's permission bits are kept, and a .gltf target that is a directory fails before
# anything is replaced (its .bin was renamed over first).
cp inplace.glb mode.glb && chmod 600 mode.glb
"$OROYA" export inplace.glb mode.glb 2>/dev/null || fail "export over mode.glb"
[ "$(stat -c %a mode.glb)" = 600 ] || fail "export changed mode.glb's permissions to $(stat -c %a mode.glb)"
mkdir -p dirout/d.gltf && echo keep > dirout/d.bin
"$OROYA" export inplace.glb dirout/d.gltf 2>/dev/null && fail "export to a directory succeeded"
[ "$(cat dirout/d.bin)" = keep ] || fail "a failed export to a directory replaced its .bin"

# Errors: usage 2, failures 1, each message naming the option or the file (expect: lib.sh).
expect 2 "must end in .gltf or .glb" "$OROYA" export "$cesium" out.obj
# The extension in any case (the library writes UP.GLTF's buffer as UP.bin; the CLI refused it).
"$OROYA" export "$cesium" UP.GLTF >/dev/null 2>err.txt || fail "export to UP.GLTF: $(cat err.txt)"
[ -f UP.bin ] || fail "export to UP.GLTF wrote no UP.bin"
"$OROYA" info UP.GLTF >/dev/null 2>err.txt || fail "info UP.GLTF: $(cat err.txt)"
"$OROYA" export "$cesium" UP.GLB >/dev/null 2>err.txt || fail "export to UP.GLB: $(cat err.txt)"
head -c 4 UP.GLB | grep -q glTF || fail "UP.GLB is not a GLB"
expect 2 "is not NAME:START:END:FPS" "$OROYA" export "$cesium" o.glb --subclip animation_0:5:2:24
expect 2 "is not NAME:START:END:FPS" "$OROYA" export "$cesium" o.glb --subclip animation_0:0:10
expect 1 "no key of clip 'animation_0' lies in frames 1000..1010" "$OROYA" export "$cesium" o.glb --subclip animation_0:1000:1010:24
expect 1 "no clip named 'walk'" "$OROYA" export "$cesium" o.glb --make-additive walk
# A subclip named as another clip (its name or animation_<i>) is refused: written, the file held
# two animations of one name, both read back as animation_<i> (the other clip lost its name),
# and a later --drop NAME dropped the first of the two.
expect 1 "clip 5 is named 'Linear Rotation' already; name the subclip with =NEW" \
    "$OROYA" export "$interp" o.glb --subclip "Step Rotation:0:10:30=Linear Rotation"
[ -e o.glb ] && fail "export wrote o.glb with two clips named 'Linear Rotation'"
expect 1 "clip 0 is named 'animation_0' already" "$OROYA" export "$cesium" o.glb --subclip animation_0:0:10:24=animation_0
expect 1 "clip 1 is named 'animation_0_0_10' already" \
    "$OROYA" export "$cesium" o.glb --subclip animation_0:0:10:24 --subclip animation_0:0:10:24
rm -f o.glb
expect 2 "needs a value" "$OROYA" export "$cesium" o.glb --drop
expect 1 "oroya export: /nonexistent-dir/o.glb: cannot open" "$OROYA" export "$cesium" /nonexistent-dir/o.glb
"$OROYA" export --help | grep -q "^usage: oroya export" || fail "export --help"

finish "oroya export"
