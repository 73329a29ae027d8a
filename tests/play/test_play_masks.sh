#!/usr/bin/env bash
# `oroya play` with "oroya": {"masks"} and the setMask op: a wave (weight 0.7) over a walk,
# the wave masked to the arm and its descendants except the tip, gives the same frames, number
# for number, as the scenario whose wave clip holds only the arm and hand tracks; after a
# setMask null it gives the unmasked scenario's frames. Errors name the mask, the joint and
# the op.
#   bash test_play_masks.sh BUILD_DIR
set -u
build="${1:?BUILD_DIR}"
oroya="$build/oroya"
command -v node >/dev/null || { echo "test_play_masks.sh: node is required" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0

# $1: the "oroya" member, $2: the wave's tracks, $3: extra script ops
scenario() {
	cat <<JSON
{"name": "masks", "oroya": $1,
 "nodes": [{"name": "hips", "parent": null, "type": "bone"},
           {"name": "leg", "parent": "hips", "type": "bone", "position": [0, -1, 0]},
           {"name": "arm", "parent": "hips", "type": "bone", "position": [1, 1, 0]},
           {"name": "hand", "parent": "arm", "type": "bone", "position": [1, 0, 0]},
           {"name": "tip", "parent": "hand", "type": "bone", "position": [0.2, 0, 0]}],
 "clips": [{"name": "walk", "duration": 1, "tracks": [
             {"node": "leg", "property": "quaternion", "times": [0, 0.5, 1],
              "values": [0, 0, 0, 1, 0.3826834, 0, 0, 0.9238795, 0, 0, 0, 1]},
             {"node": "arm", "property": "quaternion", "times": [0, 1],
              "values": [0, 0, 0.2588190, 0.9659258, 0, 0, -0.2588190, 0.9659258]},
             {"node": "hips", "property": "position", "times": [0, 1], "values": [0, 1, 0, 0, 1.1, 0]}]},
           {"name": "wave", "duration": 1, "tracks": [$2]}],
 "script": [{"at": 0, "do": "play", "action": "walk"}, {"at": 0, "do": "play", "action": "wave"},
            {"at": 0, "do": "setEffectiveWeight", "action": "wave", "weight": 0.7}$3],
 "steps": {"dt": 0.05, "count": 30},
 "record": ["hips.position", "leg.quaternion", "arm.quaternion", "hand.quaternion", "tip.quaternion"]}
JSON
}
LEG='{"node": "leg", "property": "quaternion", "times": [0, 1], "values": [0, 0.5, 0, 0.8660254, 0, -0.5, 0, 0.8660254]}'
HIPS='{"node": "hips", "property": "position", "times": [0, 1], "values": [0.5, 0, 0, -0.5, 0, 0]}'
ARM='{"node": "arm", "property": "quaternion", "times": [0, 0.5, 1], "values": [0.7071068, 0, 0, 0.7071068, 0, 0.7071068, 0, 0.7071068, 0.7071068, 0, 0, 0.7071068]}'
HAND='{"node": "hand", "property": "quaternion", "times": [0, 1], "values": [0, 0, 0.5, 0.8660254, 0, 0, -0.5, 0.8660254]}'
TIP='{"node": "tip", "property": "quaternion", "times": [0, 1], "values": [0.5, 0, 0, 0.8660254, -0.5, 0, 0, 0.8660254]}'
MASK='{"masks": {"upper": {"include": ["arm"], "descendants": true, "exclude": ["tip"]}}}'

run() { # $1 name, rest: scenario args
	local name="$1"; shift
	scenario "$@" > "$tmp/$name.json"
	"$oroya" play "$tmp/$name.json" > "$tmp/$name.out" 2> "$tmp/$name.err" ||
		{ echo "FAIL: $name: $(cat "$tmp/$name.err")"; fail=1; }
}
run masked "$MASK" "$LEG, $HIPS, $ARM, $HAND, $TIP" ', {"at": 0, "do": "setMask", "action": "wave", "mask": "upper"}'
run reduced '{}' "$ARM, $HAND" ""
run unmask "$MASK" "$LEG, $HIPS, $ARM, $HAND, $TIP" ', {"at": 0, "do": "setMask", "action": "wave", "mask": "upper"}, {"at": 0.749, "do": "setMask", "action": "wave", "mask": null}'
run full '{}' "$LEG, $HIPS, $ARM, $HAND, $TIP" ""

# Max difference of the frames of $1 and $2 over steps [$3, $4).
diff_frames() {
	node -e '
		const fs = require("fs");
		const [a, b, from, to] = process.argv.slice(1);
		const fa = JSON.parse(fs.readFileSync(a)).frames, fb = JSON.parse(fs.readFileSync(b)).frames;
		let worst = 0;
		for (let i = +from; i < +to; i++)
			for (const k of Object.keys(fa[i].values))
				fa[i].values[k].forEach((v, c) => { worst = Math.max(worst, Math.abs(v - fb[i].values[k][c])); });
		console.log(worst);
	' "$1" "$2" "$3" "$4"
}
if [ "$fail" = 0 ]; then
	d="$(diff_frames "$tmp/masked.out" "$tmp/reduced.out" 0 30)"
	[ "$d" = 0 ] || { echo "FAIL: masked vs reduced clip: max difference $d"; fail=1; }
	d="$(diff_frames "$tmp/masked.out" "$tmp/full.out" 0 30)"
	node -e "process.exit(+process.argv[1] > 1e-3 ? 0 : 1)" "$d" || { echo "FAIL: the mask changes nothing ($d)"; fail=1; }
	d="$(diff_frames "$tmp/unmask.out" "$tmp/reduced.out" 0 15)"
	[ "$d" = 0 ] || { echo "FAIL: before setMask null: $d"; fail=1; }
	d="$(diff_frames "$tmp/unmask.out" "$tmp/full.out" 15 30)"
	[ "$d" = 0 ] || { echo "FAIL: after setMask null vs unmasked: $d"; fail=1; }
fi

. "$(dirname "$0")/play_refused.bash"
expect_error() { # $1: oroya member, $2: extra ops, $3: text the error must contain
	scenario "$1" "$ARM" "$2" > "$tmp/bad.json"
	expect_refused "$tmp/bad.json" "$3"
}
expect_error '{"masks": {"upper": {"include": ["wing"]}}}' '' 'oroya.masks.upper: mask "upper": joint "wing" is not in the scene'
expect_error '{"masks": {"upper": {"exclude": ["fin"]}}}' '' 'joint "fin" is not in the scene'
expect_error '{"masks": {"upper": {"weights": {"arm": 2}}}}' '' 'mask "upper": joint "arm": weight 2 is not in [0, 1]'
expect_error '{"masks": {"upper": {"include": "arm"}}}' '' 'oroya.masks.upper.include: expected an array'
expect_error "$MASK" ', {"at": 0, "do": "setMask", "action": "wave", "mask": "lower"}' 'script[3].mask: unknown mask "lower"'
expect_error "$MASK" ', {"at": 0, "do": "setMask", "action": "wave", "mask": 3}' 'script[3].mask: expected a mask name or null'

[ "$fail" = 0 ] && echo "test_play_masks: ok"
exit "$fail"
