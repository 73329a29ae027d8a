#!/usr/bin/env bash
# Names from a file reach a terminal as text, never as control sequences: node, mesh, skin and
# clip names with ESC, OSC, BEL, DEL, C1 and newlines, a URI with them in an error message, a
# scenario's names in its errors. Every text output and message of the CLI shows them escaped
# ("\x1b", "\u009b"); the JSON outputs stay JSON (their escapes are JSON's).
# Run as: bash test_cli_escape.sh BUILD_DIR SOURCE_DIR
set -u
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Mesa, see test_render_cli.sh
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
OROYA="$BUILD/oroya"
. "$SRC/tests/cli/lib.sh"

# clean FILE WHAT [JSON]: FILE holds no C0 control but newline (and tab, JSON's layout, when
# JSON is given), no DEL and no C1 (UTF-8 C2 80-9F).
clean() {
    python3 - "$1" "${3:-}" <<'PY' || fail "$2: a raw control character reached the output: $(cat -v "$1" | head -c 600)"
import sys
b = open(sys.argv[1], "rb").read()
ok = b"\n\t" if sys.argv[2] else b"\n"
bad = [i for i, c in enumerate(b) if (c < 0x20 and c not in ok) or c == 0x7f]
bad += [i for i in range(len(b) - 1) if b[i] == 0xC2 and 0x80 <= b[i + 1] <= 0x9F]
sys.exit(1 if bad else 0)
PY
}
# has FILE TEXT WHAT: FILE holds TEXT literally.
has() { grep -qF -- "$2" "$1" || fail "$3: '$2' not in: $(cat -v "$1" | head -c 600)"; }

# One triangle, one node, one clip, one skin; every name carries control characters.
python3 - <<'PY'
import base64, json, struct
pos = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
times = struct.pack("<2f", 0, 1)
vals = struct.pack("<6f", 0, 0, 0, 1, 0, 0)
ibm = struct.pack("<16f", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)
b = pos + times + vals + ibm
def g(node, anim, mesh="m\u001b[5m", skin="s\u009b2J", uri=None):
    return {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0, "name": node}, {"name": "j\u007f\u0085"}],
        "meshes": [{"name": mesh, "primitives": [{"attributes": {"POSITION": 0}}]}],
        "skins": [{"name": skin, "joints": [1], "inverseBindMatrices": 3}],
        "buffers": [{"byteLength": len(b), "uri": uri or
                     "data:application/octet-stream;base64," + base64.b64encode(b).decode()}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 8},
                        {"buffer": 0, "byteOffset": 44, "byteLength": 24},
                        {"buffer": 0, "byteOffset": 68, "byteLength": 64}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]},
                      {"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR",
                       "min": [0], "max": [1]},
                      {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC3"},
                      {"bufferView": 3, "componentType": 5126, "count": 1, "type": "MAT4"}],
        "animations": [{"name": anim, "samplers": [{"input": 1, "output": 2}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]}
json.dump(g("\u001b[31mRED", "\u001b]0;pwned\u0007\u001b[2J"), open("esc.gltf", "w"))
json.dump(g("a\nb\tc\rd", "x\u0008y"), open("nl.gltf", "w"))
json.dump(g("n", "c", uri="\u001b]0;t\u0007.bin"), open("uri.gltf", "w"))
PY

"$OROYA" info esc.gltf >out.txt 2>err.txt || fail "info esc.gltf exited $?: $(cat -v err.txt)"
clean out.txt "info (text)"
has out.txt '\x1b[31mRED (mesh)' "info shows the node name escaped"
has out.txt '"\x1b]0;pwned\x07\x1b[2J" (animation_0)' "info shows the clip name escaped"
has out.txt 'mesh 0 "m\x1b[5m"' "info shows the mesh name escaped"
has out.txt 'skin:0 "s\u009b2J"' "info shows a C1 control (U+009B) escaped"
has out.txt 'j\x7f\u0085 (bone)' "info shows DEL and U+0085 escaped"
"$OROYA" info --json esc.gltf >out.json 2>err.txt || fail "info --json exited $?"
clean out.json "info --json" JSON
python3 -c 'import json; json.load(open("out.json"))' || fail "info --json is not JSON"
python3 -c 'import json,sys; d=json.load(open("out.json")); sys.exit(d["clips"][0]["name"] != "\u001b]0;pwned\u0007\u001b[2J")' \
    || fail "info --json does not give the clip name as it is (JSON-escaped)"
"$OROYA" info nl.gltf >out.txt 2>err.txt || fail "info nl.gltf exited $?"
clean out.txt "info with newline, tab and CR in a name"
has out.txt 'a\x0ab\x09c\x0dd (mesh)' "info escapes newline, tab and CR in a name"

# The resolver's error lists every clip; the unknown name from the command line is escaped too.
"$OROYA" sample esc.gltf --clip "$(printf 'q\033[2J')" --time 0 >out.txt 2>err.txt
[ $? = 1 ] || fail "sample with an unknown clip did not exit 1"
clean err.txt "sample: no clip named"
has err.txt "no clip named 'q\\x1b[2J'; clips: \\x1b]0;pwned\\x07\\x1b[2J" "sample lists the clips escaped"
"$OROYA" export esc.gltf out.gltf --drop nope >out.txt 2>err.txt
clean err.txt "export: no clip named"
has err.txt 'clips: \x1b]0;pwned' "export lists the clips escaped"

"$OROYA" sample esc.gltf --clip animation_0 --time 0 >out.json 2>err.txt || fail "sample exited $?"
clean out.json "sample (JSON)" JSON
python3 -c 'import json,sys; d=json.load(open("out.json")); sys.exit("j\u007f\u0085" not in d["frames"][0]["nodes"])' \
    || fail "sample does not give the node name as it is (JSON-escaped): $(head -c 300 out.json)"

# Backslashes and invisible format characters: the bidi override U+202E and the isolate
# U+2066 (they reorder what a terminal shows after them: "exe.txt" can show as "txt.exe"), a
# zero-width space, a BOM, a tag character. The text output escapes a backslash as \\ (so an
# escape in a name cannot pass for one oroya wrote) and these as \u202e..., the JSON outputs
# write them as JSON escapes.
# invisible FILE WHAT: FILE holds none of these characters raw.
invisible() {
    python3 - "$1" <<'PY' || fail "$2: an invisible format character reached the output: $(head -c 600 "$1")"
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
bad = [c for c in t if c in "\u00ad\u061c\u180e\ufeff" or 0x200b <= ord(c) <= 0x200f
       or 0x2028 <= ord(c) <= 0x202e or 0x2060 <= ord(c) <= 0x206f or 0xfff9 <= ord(c) <= 0xfffb
       or 0xe0000 <= ord(c) <= 0xe007f]
sys.exit(1 if bad else 0)
PY
}
python3 - <<'PY'
import json
g = json.load(open("esc.gltf"))
g["nodes"][0]["name"] = "evil\u202etxt.exe"
g["nodes"][1]["name"] = "a\\x1bb\u2066c\u2069d\u200be\ufefff\U000e0041"
g["animations"][0]["name"] = "clip\u2067\u200f\u2028"
json.dump(g, open("bidi.gltf", "w"))
PY
"$OROYA" info bidi.gltf >out.txt 2>err.txt || fail "info bidi.gltf exited $?: $(cat -v err.txt)"
clean out.txt "info (bidi)"
invisible out.txt "info (bidi)"
has out.txt 'evil\u202etxt.exe (mesh)' "info shows U+202E escaped"
has out.txt 'a\\x1bb\u2066c\u2069d\u200be\ufefff\U000e0041 (bone)' \
    "info shows a backslash as \\\\ and isolates, zero-width, BOM and tag characters escaped"
has out.txt 'clip\u2067\u200f\u2028' "info shows the clip name's isolate, mark and separator escaped"
"$OROYA" info --json bidi.gltf >out.json 2>err.txt || fail "info --json bidi.gltf exited $?"
clean out.json "info --json (bidi)" JSON
invisible out.json "info --json (bidi)"
python3 -c 'import json,sys; d=json.load(open("out.json")); sys.exit(d["clips"][0]["name"] != "clip\u2067\u200f\u2028")' \
    || fail "info --json does not give the clip name as it is (JSON-escaped)"
grep -qF 'evil\u202etxt.exe' out.json || fail "info --json: U+202E not written as \\u202e"
grep -qF '\udb40\udc41' out.json || fail "info --json: U+E0041 not written as a surrogate pair"
"$OROYA" sample bidi.gltf --clip animation_0 --time 0 >out.json 2>err.txt || fail "sample bidi.gltf exited $?"
invisible out.json "sample (bidi)"
"$OROYA" sample bidi.gltf --clip "$(printf 'x\\\342\200\256y')" --time 0 >out.txt 2>err.txt
[ $? = 1 ] || fail "sample bidi.gltf with an unknown clip did not exit 1"
invisible err.txt "sample: no clip named (bidi)"
has err.txt "no clip named 'x\\\\\\u202ey'; clips: clip\\u2067" "sample escapes the unknown name and the clips"

# A library message that quotes a URI.
"$OROYA" info uri.gltf >out.txt 2>err.txt
[ $? = 1 ] || fail "info uri.gltf did not exit 1"
clean err.txt "info: a message quoting a URI"
has err.txt '\x1b]0;t\x07.bin' "the URI in the message is escaped"
"$OROYA" sample uri.gltf --clip c --time 0 >out.txt 2>err.txt
clean err.txt "sample: a message quoting a URI"
"$OROYA" export uri.gltf out.gltf >out.txt 2>err.txt
clean err.txt "export: a message quoting a URI"
# bench printed the library's message as it was (ESC and BEL reached the terminal).
"$OROYA" bench uri.gltf --quick >out.txt 2>err.txt
[ $? = 1 ] || fail "bench uri.gltf did not exit 1"
clean err.txt "bench: a message quoting a URI"
has err.txt '\x1b]0;t\x07.bin' "bench escapes the URI in the message"

# A scenario: a track for a node name that is not there, quoted in the error.
printf '{"nodes":[{"name":"a"}],"clips":[{"name":"c","duration":1,"tracks":[{"node":"\\u001b]0;x\\u0007","property":"position","times":[0,1],"values":[0,0,0,1,0,0]}]}],"script":[{"at":0,"do":"play","action":"c"}],"steps":{"dt":0.1,"count":2},"record":["a.position"]}' >s.json
"$OROYA" play s.json >out.txt 2>err.txt
clean err.txt "play: an error or warning quoting a scenario's name"
clean out.txt "play output (JSON)" JSON
grep -q . err.txt && has err.txt '\x1b]0;x\x07' "play quotes the node name escaped"
printf '{"nodes":[{"name":"a"}],"script":[{"at":0,"do":"play","action":"\\u001b[2J\\u009b"}],"steps":{"dt":0.1,"count":2},"record":["a.position"]}' >s2.json
"$OROYA" play s2.json >out.txt 2>err.txt
[ $? = 1 ] || fail "play with an unknown action did not exit 1"
clean err.txt "play: unknown action"
has err.txt '\x1b[2J\u009b' "play quotes the action escaped"

# A file name with control characters, in a message.
cp esc.gltf "$(printf 'f\033]0;n\007.gltf')"
"$OROYA" sample "$(printf 'f\033]0;n\007.gltf')" --clip nope --time 0 >out.txt 2>err.txt
clean err.txt "sample: a file name with controls"
"$OROYA" info "$(printf 'g\033[2J.gltf')" >out.txt 2>err.txt
clean err.txt "info: a missing file whose name has controls"
has err.txt 'g\x1b[2J.gltf' "the missing file's name is escaped"

finish "escape"
