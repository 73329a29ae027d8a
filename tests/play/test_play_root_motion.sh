#!/usr/bin/env bash
# `oroya play` with "oroya": {"rootMotion"}: a walk whose hips move 1.2 m per 1.2 s cycle,
# at mixer time scale 1.3 for 120 steps of 1/13 s (12 s of clip time, 10 cycles): the record
# rootMotion.total reaches 12 m in z (1e-4), each rootMotion.delta is 0.1 m (and
# rootMotion.deltaLocal the same: nothing turns under xz), and the hips stay in place in x and z. Errors name the node and the extract mode.
#   bash test_play_root_motion.sh BUILD_DIR
set -u
build="${1:?BUILD_DIR}"
oroya="$build/oroya"
command -v node >/dev/null || { echo "test_play_root_motion.sh: node is required" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0

scenario() { # $1: the rootMotion member
	cat <<JSON
{"name": "root", "mixerTimeScale": 1.3, "oroya": {"rootMotion": $1},
 "nodes": [{"name": "hips", "parent": null, "type": "bone"}],
 "clips": [{"name": "walk", "duration": 1.2, "tracks": [{"node": "hips", "property": "position",
             "times": [0, 0.6, 1.2], "values": [0, 1, 0, 0.1, 1.05, 0.6, 0, 1, 1.2]}]}],
 "script": [{"at": 0, "do": "play", "action": "walk"}],
 "steps": {"dt": 0.07692307692307693, "count": 120},
 "record": ["hips.position", "rootMotion.delta", "rootMotion.total", "rootMotion.deltaLocal"]}
JSON
}

scenario '{"node": "hips", "extract": "xz"}' > "$tmp/ok.json"
if ! "$oroya" play "$tmp/ok.json" > "$tmp/ok.out" 2> "$tmp/ok.err"; then
	echo "FAIL: play: $(cat "$tmp/ok.err")"; fail=1
else
	got="$(node -e '
		const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
		let bad = [];
		for (const f of r.frames) {
			const p = f.values["hips.position"], d = f.values["rootMotion.delta"];
			if (p[0] !== 0 || p[2] !== 0) bad.push(`step ${f.step}: hips moved ${p}`);
			if (Math.abs(d[2] - 0.1) > 1e-5) bad.push(`step ${f.step}: delta ${d}`);
			if (d.length !== 7 || d[6] !== 1) bad.push(`step ${f.step}: rotation ${d}`);
			/* under xz nothing turns: the local delta is the delta */
			const l = f.values["rootMotion.deltaLocal"];
			if (JSON.stringify(l) !== JSON.stringify(d)) bad.push(`step ${f.step}: local ${l}`);
		}
		const t = r.frames[r.frames.length - 1].values["rootMotion.total"];
		if (Math.abs(t[2] - 12) > 1e-4 || Math.abs(t[0]) > 1e-4) bad.push(`total ${t}`);
		console.log(bad.length ? bad.slice(0, 3).join("; ") : "ok");
	' < "$tmp/ok.out")"
	[ "$got" = ok ] || { echo "FAIL: $got"; fail=1; }
fi

. "$(dirname "$0")/play_refused.bash"
expect_error() { # $1: rootMotion member, $2: text
	scenario "$1" > "$tmp/bad.json"
	expect_refused "$tmp/bad.json" "$2"
}
expect_error '{"node": "hips", "extract": "xyz"}' "oroya.rootMotion.extract: unknown extract mode 'xyz'"
expect_error '{"node": "hips", "extract": 1}' "oroya.rootMotion.extract: expected a string"
expect_error '{"node": "hips"}' "oroya.rootMotion.extract: missing"
expect_error '{"node": "pelvis", "extract": "xz"}' "oroya.rootMotion.node: unknown node 'pelvis'"
expect_error '[]' 'oroya.rootMotion: expected'

[ "$fail" = 0 ] && echo "test_play_root_motion: ok"
exit "$fail"
