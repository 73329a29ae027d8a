#!/usr/bin/env bash
# `oroya play` with curves ("oroya": {"curves": ...}, record key curve:<name>) and typed tracks
# (intensity, fov, color, visible on light, camera and mesh nodes). The values themselves are
# checked against three.js by tests/conformance (j_curves, k_typed_tracks); this checks the
# error paths: each names the JSON path, the curve, the track or the key.
#   bash test_play_curves.sh BUILD_DIR
set -u
build="${1:?BUILD_DIR}"
oroya="$build/oroya"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/play_refused.bash"

scenario() { # $1: the curves of "walk", $2: extra tracks of "walk", $3: record keys
	cat <<JSON
{"name": "curves", "oroya": {"curves": {"walk": $1}},
 "nodes": [{"name": "hips", "parent": null, "type": "bone"},
           {"name": "lamp", "parent": null, "type": "light", "intensity": 2},
           {"name": "cam", "parent": null, "type": "camera"},
           {"name": "box", "parent": null, "type": "mesh", "color": [1, 0, 0]}],
 "clips": [{"name": "walk", "duration": 1, "tracks": [{"node": "hips", "property": "position",
             "times": [0, 1], "values": [0, 0, 0, 1, 0, 0]}$2]}],
 "script": [{"at": 0, "do": "play", "action": "walk"}],
 "steps": {"dt": 0.25, "count": 3},
 "record": ["hips.position"$3]}
JSON
}

# A working run: the curve's values at 0.25, 0.5, 0.75 of a 0 -> 1 linear key pair over 0.5 s
# (then held), an undriven curve at 0, and the typed values.
scenario '[{"name": "footstep", "times": [0, 0.5], "values": [0, 1]}]' \
	',{"node": "lamp", "property": "intensity", "times": [0, 1], "values": [0, 4]},
	  {"node": "box", "property": "color", "times": [0, 1], "values": [0, 0, 0, 1, 1, 1]},
	  {"node": "hips", "property": "visible", "times": [0, 0.5], "values": [true, false]}' \
	',"curve:footstep", "curve:never", "lamp.intensity", "cam.fov", "box.color", "hips.visible"' \
	> "$tmp/ok.json"
if ! "$oroya" play "$tmp/ok.json" > "$tmp/ok.out" 2> "$tmp/ok.err"; then
	echo "FAIL: play: $(cat "$tmp/ok.err")"; fail=1
else
	for want in '"curve:footstep":0.5,"curve:never":0,"lamp.intensity":1,"cam.fov":50,"box.color":[0.25,0.25,0.25],"hips.visible":true' \
		'"curve:footstep":1,"curve:never":0,"lamp.intensity":2,"cam.fov":50,"box.color":[0.5,0.5,0.5],"hips.visible":false'; do
		grep -qF -- "$want" "$tmp/ok.out" || { echo "FAIL: missing $want in $(cat "$tmp/ok.out")"; fail=1; }
	done
fi

expect() { # $1 $2 $3: as scenario, $4: text the error must contain
	scenario "$1" "$2" "$3" > "$tmp/bad.json"
	expect_refused "$tmp/bad.json" "$4"
}
c='[{"name": "footstep", "times": [0, 0.5], "values": [0, 1]}]'
expect '[{"name": "footstep", "times": [0, 0.5], "values": [0]}]' '' '' \
	'oroya.curves.walk[0].values: expected 1 number per key (2 keys), got 1'
expect '[{"name": "footstep", "times": [], "values": []}]' '' '' \
	'oroya.curves.walk[0].times: a curve needs at least one key (the array is empty)'
expect '[{"name": "foot step", "times": [0], "values": [0]}]' '' '' 'oroya.curves.walk[0].name'
expect '[{"name": "a", "times": [0], "values": [0]}, {"name": "a", "times": [0], "values": [1]}]' '' '' \
	"oroya.curves.walk[1].name: curve 'a' is already on clip 'walk'"
expect '[{"name": "footstep", "interpolation": "sterp", "times": [0], "values": [0]}]' '' '' \
	'oroya.curves.walk[0].interpolation'
expect '[{"name": "footstep", "times": [0.5, 0.5], "values": [0, 1]}]' '' '' \
	"oroya.curves.walk[0]: curve 'footstep': tracks[0] (target \"footstep\", curve): key 1: time"
expect '{"name": "footstep"}' '' '' 'oroya.curves.walk: expected an array'
expect "$c" ',{"node": "hips", "property": "visible", "interpolation": "linear", "times": [0], "values": [true]}' '' \
	'clips[0].tracks[1]: tracks[1] (target "hips", visible): a visibility track steps'
expect "$c" ',{"node": "hips", "property": "visible", "times": [0, 1], "values": [true, 0.5]}' '' \
	'clips[0].tracks[1]: tracks[1] (target "hips", visible): key 1: value 0.5 is not a boolean'
expect "$c" ',{"node": "box", "property": "color", "times": [0], "values": [1, 0]}' '' \
	'clips[0].tracks[1].values: expected 3 numbers per key (1 keys), got 2'
expect "$c" ',{"node": "hips", "property": "fov", "times": [0], "values": [30]}' '' \
	"clips[0].tracks[1].property: fov needs a node of type \"camera\" ('hips' is not)"
expect "$c" '' ',"hips.intensity"' "record[1]: key 'hips.intensity': the node has no light"
expect "$c" '' ',"lamp.fov"' "record[1]: key 'lamp.fov': the node has no camera"
expect "$c" '' ',"cam.color"' "record[1]: key 'cam.color': the node has no mesh"
expect "$c" '' ',"curve:a.b"' "record[1]: key 'curve:a.b': expected curve:<name>"
sed 's/"curves": {"walk"/"curves": {"run"/' "$tmp/bad.json" > "$tmp/bad2.json"
expect_refused "$tmp/bad2.json" 'oroya.curves.run: unknown clip'
sed 's/"type": "camera"}/"type": "camera", "intensity": 3}/' "$tmp/ok.json" > "$tmp/bad3.json"
expect_refused "$tmp/bad3.json" 'nodes[2].intensity: only a node of type "light" has it'
sed 's/"type": "camera"}/"type": "camera", "fov": 200}/' "$tmp/ok.json" > "$tmp/bad4.json"
expect_refused "$tmp/bad4.json" 'nodes[2].fov: expected a field of view in (0, 180) degrees'

sed 's/"name": "cam"/"name": "oroya_curves"/' "$tmp/ok.json" > "$tmp/bad5.json"
expect_refused "$tmp/bad5.json" "nodes[2].name: 'oroya_curves' is reserved"

[ "$fail" = 0 ] && echo "test_play_curves: ok"
exit "$fail"
