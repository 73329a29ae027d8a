#!/usr/bin/env bash
# `oroya play` with oroya's "oroya" scenario key (ignored by three's oracle): the text's rod
# (length 10, pointing left) cross-faded to a 160-degree swing over the top plus a 120-degree
# twist. With "rotationBlend": "sterp" the hand's world position stays on the great circle
# between its end positions (the plane z = 0, radius 10) at every frame; without the key the
# scenario is plain three.js (slerp) and the hand leaves that plane. With a joint limit (a
# cone of 1.4 rad about the rod) the hand never gets more than 1.4 rad from its rest direction.
# Malformed extension values are errors naming their JSON path.
#   bash test_play_sterp.sh BUILD_DIR SOURCE_DIR
set -u
build="${1:?BUILD_DIR}"
oroya="$build/oroya"
command -v node >/dev/null || { echo "test_play_sterp.sh: node is required" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0

scenario() { # $1: the "oroya" member or ""
	cat <<JSON
{"name": "rod", $1
 "nodes": [{"name": "arm", "parent": null, "type": "bone"},
           {"name": "hand", "parent": "arm", "type": "bone", "position": [-10, 0, 0]}],
 "clips": [{"name": "rest", "duration": 1, "tracks": [{"node": "arm", "property": "rotation",
             "times": [0], "values": [0, 0, 0, 1]}]},
           {"name": "bent", "duration": 1, "tracks": [{"node": "arm", "property": "rotation",
             "times": [0], "values": [-0.15038373318, 0.852868531952, -0.492403876506, 0.0868240888335]}]}],
 "script": [{"at": 0, "do": "play", "action": "rest"}, {"at": 0, "do": "play", "action": "bent"},
            {"at": 0, "do": "crossFadeTo", "from": "rest", "to": "bent", "duration": 1}],
 "steps": {"dt": 0.1, "count": 12},
 "record": ["hand.matrixWorld"]}
JSON
}

# Prints "max|z| max|r-10| max-angle-from-rest" over all frames.
measure() {
	node -e '
		const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
		let z = 0, dr = 0, ang = 0;
		for (const f of r.frames) {
			const m = f.values["hand.matrixWorld"], p = [m[12], m[13], m[14]];
			const len = Math.hypot(...p);
			z = Math.max(z, Math.abs(p[2])); dr = Math.max(dr, Math.abs(len - 10));
			ang = Math.max(ang, Math.acos(Math.min(1, -p[0] / len)));
		}
		console.log(z, dr, ang);'
}

check() { # name, condition (node expression on z, dr, ang), output
	if node -e "const [z, dr, ang] = process.argv[1].split(' ').map(Number); process.exit(($2) ? 0 : 1)" "$3"; then
		echo "ok   $1 ($3)"
	else
		echo "FAIL $1: $2 with z dr ang = $3"; fail=$((fail + 1))
	fi
}

run() { # name, oroya member
	scenario "$2" > "$tmp/$1.json"
	if ! "$oroya" play "$tmp/$1.json" > "$tmp/$1.out" 2> "$tmp/$1.err"; then
		echo "FAIL $1: oroya play failed: $(cat "$tmp/$1.err")"; fail=$((fail + 1)); echo "0 0 0"; return
	fi
	measure < "$tmp/$1.out"
}

m="$(run slerp '')"
check "slerp leaves the great circle" "z > 1 && dr < 1e-4" "$m"
m="$(run sterp '"oroya": {"rotationBlend": "sterp"},')"
check "sterp stays on the great circle" "z < 1e-4 && dr < 1e-4" "$m"
m="$(run limited '"oroya": {"rotationBlend": "sterp", "jointLimits": {"arm": {"twistAxis": [-1, 0, 0], "cone": 1.4}}},')"
check "the cone limits the swing" "ang < 1.4 + 1e-5 && ang > 1.4 - 1e-3 && z < 1e-4" "$m"
m="$(run leafaxis '"oroya": {"rotationBlend": "sterp", "twistAxes": {"arm": [0, 0, 0]}},')"
check "a zero twist axis is slerp" "z > 1" "$m"

# name | oroya member | text the error must contain
cases=(
	'blend|"oroya": {"rotationBlend": "nlerp"},|oroya.rotationBlend'
	'not object|"oroya": 3,|oroya: expected an object'
	'axis node|"oroya": {"twistAxes": {"foot": [0, 1, 0]}},|oroya.twistAxes.foot'
	'axis value|"oroya": {"twistAxes": {"arm": [0, 1]}},|oroya.twistAxes.arm'
	'limit node|"oroya": {"jointLimits": {"foot": {}}},|oroya.jointLimits.foot'
	'limit twist|"oroya": {"jointLimits": {"arm": {"twistAxis": [1, 0, 0], "twist": [1, -1]}}},|oroya.jointLimits.arm'
	'limit shape|"oroya": {"jointLimits": {"arm": {"twistAxis": [1, 0, 0], "cone": 1, "ellipse": [1, 1]}}},|oroya.jointLimits.arm'
)
for c in "${cases[@]}"; do
	IFS='|' read -r name member want <<< "$c"
	scenario "$member" > "$tmp/bad.json"
	"$oroya" play "$tmp/bad.json" > "$tmp/bad.out" 2> "$tmp/bad.err"
	rc=$?
	if [ "$rc" = 1 ] && grep -qF -- "$want" "$tmp/bad.err" && [ ! -s "$tmp/bad.out" ]; then
		echo "ok   error: $name"
	else
		echo "FAIL error: $name: status $rc, stderr: $(cat "$tmp/bad.err")"; fail=$((fail + 1))
	fi
done

[ "$fail" = 0 ] || { echo "$fail failed"; exit 1; }
echo "all passed"
