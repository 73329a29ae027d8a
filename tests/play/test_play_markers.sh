#!/usr/bin/env bash
# `oroya play` with "oroya": {"markers": ...}: a 1 s clip with markers at 0.25 and 0.75, ping-
# pong at mixer time scale 1.3 for 20 steps of 0.1 s (the clip moves x from 0 to 1, so x is the
# clip time). Every marker event must name the action, the
# marker and its clip time, come once per crossing (checked against the clip-time path the
# scenario records), in order with the loop events; errors name the clip and the marker.
#   bash test_play_markers.sh BUILD_DIR
set -u
build="${1:?BUILD_DIR}"
oroya="$build/oroya"
command -v node >/dev/null || { echo "test_play_markers.sh: node is required" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0

scenario() { # $1: the markers of "walk"
	cat <<JSON
{"name": "markers", "mixerTimeScale": 1.3, "oroya": {"markers": {"walk": $1}},
 "nodes": [{"name": "hips", "parent": null, "type": "bone"}],
 "clips": [{"name": "walk", "duration": 1, "tracks": [{"node": "hips", "property": "position",
             "times": [0, 1], "values": [0, 0, 0, 1, 0, 0]}]}],
 "script": [{"at": 0, "do": "setLoop", "action": "walk", "mode": "pingpong"},
            {"at": 0, "do": "play", "action": "walk"}],
 "steps": {"dt": 0.1, "count": 20},
 "record": ["hips.position"]}
JSON
}

scenario '[{"time": 0.75, "name": "footR"}, {"time": 0.25, "name": "footL"}]' > "$tmp/ok.json"
if ! "$oroya" play "$tmp/ok.json" > "$tmp/ok.out" 2> "$tmp/ok.err"; then
	echo "FAIL: play: $(cat "$tmp/ok.err")"; fail=1
else
	# The expected events, from the clip times the action reported: a marker fires when the
	# clip time passes it between two frames (moving up or down), and the first frame covers 0.
	got="$(node -e '
		const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
		let prev = 0, want = [], got = [];
		const m = [[0.25, "footL"], [0.75, "footR"]];
		r.frames.forEach((f, i) => {
			const t = f.values["hips.position"][0];
			const lo = Math.min(prev, t), hi = Math.max(prev, t);
			const hit = m.filter(([mt]) => mt > lo && mt < hi);
			if (t < prev) hit.reverse();
			for (const [mt, n] of hit) want.push(`${i}:${n}@${mt}`);
			for (const e of f.events || [])
				if (e.type === "marker") {
					if (e.action !== "walk") got.push("bad action");
					got.push(`${i}:${e.name}@${e.time}`);
				}
			prev = t;
		});
		console.log(want.join(" ") === got.join(" ") && got.length >= 5 ? "ok" :
			`want ${want.join(" ")} got ${got.join(" ")}`);
	' < "$tmp/ok.out")"
	[ "$got" = ok ] || { echo "FAIL: marker events: $got"; fail=1; }
	grep -q '"type":"loop"' "$tmp/ok.out" || { echo "FAIL: no loop events"; fail=1; }
fi

. "$(dirname "$0")/play_refused.bash"
expect_error() { # $1: markers, $2: text the error must contain
	scenario "$1" > "$tmp/bad.json"
	expect_refused "$tmp/bad.json" "$2"
}
expect_error '[{"time": 1.5, "name": "late"}]' 'oroya.markers.walk: clip "walk": marker 0 "late": time 1.5 is outside'
expect_error '[{"time": 0.5}]' 'oroya.markers.walk[0].name'
expect_error '{"time": 0.5}' 'oroya.markers.walk: expected an array'
sed 's/"markers": {"walk"/"markers": {"run"/' "$tmp/bad.json" > "$tmp/bad2.json"
"$oroya" play "$tmp/bad2.json" > /dev/null 2> "$tmp/bad.err" && { echo "FAIL: unknown clip accepted"; fail=1; }
grep -qF 'oroya.markers.run: unknown clip' "$tmp/bad.err" || { echo "FAIL: unknown clip: $(cat "$tmp/bad.err")"; fail=1; }

[ "$fail" = 0 ] && echo "test_play_markers: ok"
exit "$fail"
