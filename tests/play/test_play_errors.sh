#!/usr/bin/env bash
# `oroya play` on malformed scenarios: each must exit with status 1 and an error message
# naming the JSON path of the problem (and print nothing on stdout). Also: usage errors
# exit 2, --help exits 0, and number formatting follows JSON.stringify.
#   bash test_play_errors.sh BUILD_DIR SOURCE_DIR
set -u
build="${1:?BUILD_DIR}"
src="${2:?SOURCE_DIR}"
oroya="$build/oroya"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

N='"nodes":[{"name":"n","parent":null}]'
C='"clips":[{"name":"c","duration":1,"tracks":[{"node":"n","property":"position","times":[0,1],"values":[0,0,0,1,0,0]}]}]'
S='"steps":{"fps":60,"count":3}'

# name | scenario | text the error must contain
cases=(
  "not json|{\"nodes\": [|invalid JSON"
  "top level|[1,2]|(top level)"
  "node name|{\"nodes\":[{\"name\":\"a b\"}],$S}|nodes[0].name"
  "duplicate node|{\"nodes\":[{\"name\":\"a\"},{\"name\":\"a\"}],$S}|nodes[1].name"
  "bad parent|{\"nodes\":[{\"name\":\"a\",\"parent\":\"zz\"}],$S}|nodes[0].parent"
  "node position|{\"nodes\":[{\"name\":\"a\",\"position\":[1,2]}],$S}|nodes[0].position"
  "node type|{\"nodes\":[{\"name\":\"a\",\"type\":\"spotLight\"}],$S}|nodes[0].type"
  "track node|{$N,\"clips\":[{\"name\":\"c\",\"tracks\":[{\"node\":\"x\",\"property\":\"position\",\"times\":[0],\"values\":[0,0,0]}]}],$S}|clips[0].tracks[0].node"
  "track property|{$N,\"clips\":[{\"name\":\"c\",\"tracks\":[{\"node\":\"n\",\"property\":\"opacity\",\"times\":[0],\"values\":[0,0,0]}]}],$S}|clips[0].tracks[0].property"
  "value count|{$N,\"clips\":[{\"name\":\"c\",\"tracks\":[{\"node\":\"n\",\"property\":\"rotation\",\"times\":[0,1],\"values\":[0,0,0,1]}]}],$S}|clips[0].tracks[0].values"
  "time order|{$N,\"clips\":[{\"name\":\"c\",\"tracks\":[{\"node\":\"n\",\"property\":\"position\",\"times\":[1,0],\"values\":[0,0,0,1,1,1]}]}],$S}|clips[0].tracks[0]"
  "value type|{$N,\"clips\":[{\"name\":\"c\",\"tracks\":[{\"node\":\"n\",\"property\":\"position\",\"times\":[0],\"values\":[0,\"x\",0]}]}],$S}|clips[0].tracks[0].values[1]"
  "interpolation|{$N,\"clips\":[{\"name\":\"c\",\"tracks\":[{\"node\":\"n\",\"property\":\"position\",\"interpolation\":\"bezier\",\"times\":[0],\"values\":[0,0,0]}]}],$S}|clips[0].tracks[0].interpolation"
  "makeAdditive ref|{$N,\"clips\":[{\"name\":\"c\",\"makeAdditive\":{\"referenceClip\":\"q\"},\"tracks\":[]}],$S}|clips[0].makeAdditive.referenceClip"
  "action clip|{$N,$C,\"actions\":[{\"name\":\"a\",\"clip\":\"zz\"}],$S}|actions[0].clip"
  "cloneClip type|{$N,$C,\"actions\":[{\"name\":\"a\",\"clip\":\"c\",\"cloneClip\":1}],$S}|actions[0].cloneClip"
  "unknown op|{$N,$C,\"script\":[{\"do\":\"jump\",\"action\":\"c\"}],$S}|script[0].do"
  "op action|{$N,$C,\"script\":[{\"do\":\"play\",\"action\":\"zz\"}],$S}|script[0].action"
  "op missing number|{$N,$C,\"script\":[{\"do\":\"play\",\"action\":\"c\"},{\"do\":\"fadeIn\",\"action\":\"c\"}],$S}|script[1].duration"
  "op at and step|{$N,$C,\"script\":[{\"do\":\"play\",\"action\":\"c\",\"at\":0,\"step\":1}],$S}|script[0]"
  "setLoop mode|{$N,$C,\"script\":[{\"do\":\"setLoop\",\"action\":\"c\",\"mode\":\"bounce\"}],$S}|script[0].mode"
  "halt on time scale 0|{$N,$C,\"script\":[{\"do\":\"setEffectiveTimeScale\",\"action\":\"c\",\"timeScale\":0},{\"do\":\"halt\",\"action\":\"c\",\"duration\":1}],$S}|script[1]: halt refused: oroya_action_halt: the action's time_scale is 0"
  "set field|{$N,$C,\"script\":[{\"do\":\"set\",\"action\":\"c\",\"field\":\"speed\",\"value\":1}],$S}|script[0].field"
  "set value|{$N,$C,\"script\":[{\"do\":\"set\",\"action\":\"c\",\"field\":\"enabled\",\"value\":1}],$S}|script[0].value"
  "setNode vector|{$N,$C,\"script\":[{\"do\":\"setNode\",\"node\":\"n\",\"position\":[1]}],$S}|script[0].position"
  "steps missing|{$N,$C}|steps"
  "steps count|{$N,$C,\"steps\":{\"fps\":60,\"count\":1.5}}|steps.count"
  "steps list|{$N,$C,\"steps\":[0.1,\"x\"]}|steps[1]"
  "negative dt|{$N,$C,\"steps\":[0.1,-0.1]}|steps[1]"
  "negative setTime|{$N,$C,\"script\":[{\"do\":\"setTime\",\"time\":-1}],$S}|script[0]"
  "record node|{$N,$C,$S,\"record\":[\"zz.position\"]}|record[0]"
  "record field|{$N,$C,$S,\"record\":[\"n.velocity\"]}|record[0]"
  "record action|{$N,$C,$S,\"record\":[\"action:zz.time\"]}|record[0]"
  "record action field|{$N,$C,$S,\"record\":[\"action:c.speed\"]}|record[0]"
  "record no dot|{$N,$C,$S,\"record\":[\"mixer\"]}|record[0]"
  "skin mesh|{\"nodes\":[{\"name\":\"m\"},{\"name\":\"b\"}],\"skins\":[{\"name\":\"s\",\"mesh\":\"m\",\"bones\":[\"b\"],\"vertices\":[0,0,0],\"skinIndex\":[0,0,0,0],\"skinWeight\":[1,0,0,0]}],$S}|skins[0].mesh"
  "oroya rootMotion key|{$N,$C,$S,\"oroya\":{\"rootMotion\":{\"node\":\"n\",\"extract\":\"xz\",\"smooth\":true}}}|oroya.rootMotion.smooth: unknown field"
  "oroya mask key|{$N,$C,$S,\"oroya\":{\"masks\":{\"m\":{\"includes\":[\"n\"]}}}}|oroya.masks.m.includes: unknown field"
  "oroya marker key|{$N,$C,$S,\"oroya\":{\"markers\":{\"c\":[{\"time\":0.5,\"name\":\"x\",\"tag\":1}]}}}|oroya.markers.c[0].tag: unknown field"
  "oroya curve key|{$N,$C,$S,\"oroya\":{\"curves\":{\"c\":[{\"name\":\"k\",\"times\":[0],\"values\":[1],\"interp\":\"step\"}]}}}|oroya.curves.c[0].interp: unknown field"
)

GLTF_BOX="$src/tests/assets/BoxAnimated/glTF-Binary/BoxAnimated.glb"
GLTF_SKIN="$src/tests/assets/SimpleSkin/glTF/SimpleSkin.gltf"
gltf_cases=(
  "gltf missing|{\"gltf\":\"$tmp/none.glb\",$S}|gltf: "
  "gltf not a string|{\"gltf\":3,$S}|gltf: expected a path"
  "gltf node name taken|{\"gltf\":\"$GLTF_BOX\",\"nodes\":[{\"name\":\"node_0\"}],$S}|nodes[0].name"
  "gltf weights without morph targets|{\"gltf\":\"$GLTF_BOX\",$S,\"record\":[\"node_0.weights\"]}|record[0]"
  "gltf skin field|{\"gltf\":\"$GLTF_SKIN\",$S,\"record\":[\"skin:0.vertices\"]}|boneMatrices only"
  "gltf unknown node|{\"gltf\":\"$GLTF_BOX\",$S,\"record\":[\"node_99.position\"]}|record[0]"
)
cases+=("${gltf_cases[@]}")

for c in "${cases[@]}"; do
  IFS='|' read -r name json want <<<"$c"
  printf '%s' "$json" >"$tmp/sc.json"
  # The glTF cases name models of tests/assets from a scenario in $tmp: allowed explicitly.
  "$oroya" play --allow-gltf-dir "$src/tests/assets" "$tmp/sc.json" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc -eq 1 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: exit $rc, stderr: $(head -c 300 "$tmp/err"), wanted '$want'"
    fail=$((fail + 1))
  fi
done

check() { # name, condition result
  if [ "$2" = 0 ]; then pass=$((pass + 1)); else echo "FAIL $1"; fail=$((fail + 1)); fi
}
"$oroya" play >/dev/null 2>&1; check "no argument exits 2" $([ $? -eq 2 ]; echo $?)
"$oroya" play --help >/dev/null 2>&1; check "--help exits 0" $([ $? -eq 0 ]; echo $?)
# A bad argument is named, as the other commands name theirs (play printed the usage alone).
for case in "--bogus|--bogus s.json" "t.json|s.json t.json" "--base|--base"; do
  bad=${case%%|*} args=${case#*|}
  "$oroya" play $args >/dev/null 2>"$tmp/usage.err"
  rc=$?
  first=$(head -1 "$tmp/usage.err")
  [ $rc -eq 2 ] && [ "$first" = "oroya play: bad or incomplete argument '$bad'" ]
  check "play $args: exit 2 naming '$bad' (got $rc: $first)" $?
done
# --help names the format's documentation, which is in the checkout.
"$oroya" play --help 2>&1 | grep -q 'docs/scenario.md' && [ -f "$src/docs/scenario.md" ]
check "--help points at docs/scenario.md" $?
"$oroya" play "$tmp/missing.json" >/dev/null 2>&1; check "missing file exits 1" $([ $? -eq 1 ]; echo $?)

# Numbers as JSON.stringify prints them (expected strings written by hand from the JS rules:
# shortest round-trip digits, no ".0", exponent below 1e-6, -0 as 0).
printf '%s' "{$N,\"clips\":[{\"name\":\"c\",\"duration\":1,\"tracks\":[{\"node\":\"n\",\"property\":\"position\",\"interpolation\":\"step\",\"times\":[0],\"values\":[0.1,-0,1e-7]}]}],\"script\":[{\"do\":\"play\",\"action\":\"c\"}],\"steps\":[0.5],\"record\":[\"n.position\",\"mixer.time\",\"action:c.repetitions\"]}" >"$tmp/num.json"
"$oroya" play "$tmp/num.json" >"$tmp/num.out" 2>"$tmp/err"
grep -qF '"n.position":[0.10000000149011612,0,1.0000000116860974e-7],"mixer.time":0.5,"action:c.repetitions":null' "$tmp/num.out"
check "JSON.stringify number format (got: $(grep -o '"values":{[^}]*}' "$tmp/num.out"))" $?
grep -qF '{"step":0,"t":0.5,"mixerTime":0.5,' "$tmp/num.out"
check "frame header" $?

# stdin with --base resolves "gltf" like the file's own folder does.
g="$src/tests/conformance/gltf"
a="$src/tests/assets"
"$oroya" play --allow-gltf-dir "$a" "$g/box_animated.json" >"$tmp/file.out" 2>"$tmp/err"
"$oroya" play --allow-gltf-dir "$a" --base "$g" - <"$g/box_animated.json" >"$tmp/stdin.out" 2>>"$tmp/err"
cmp -s "$tmp/file.out" "$tmp/stdin.out" && [ -s "$tmp/file.out" ]
check "stdin with --base (stderr: $(head -c 200 "$tmp/err"))" $?

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
