#!/usr/bin/env bash
# ctest script: the glTF scenarios of shared/oracle/scenarios/gltf that play one clip
# (play, setLoop, clampWhenFinished only) are re-sampled with `oroya sample` at the action
# times three.js recorded, and every recorded node TRS, world matrix, morph weight and bone
# matrix must match the three.js GLTFLoader golden within 1e-5 (relative above magnitude 1:
# oroya keeps node TRS in float where three keeps the JSON doubles, and a float's spacing at
# 100 is already 7.6e-6; AnimatedMorphCube's scale-100 node shows it). This checks the importer
# (names, transforms, key data, normalization, interpolation modes, skins) without the mixer;
# blended scenarios are left to `oroya play`.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
shared="$src/../shared/oracle/scenarios/gltf"
if [ ! -d "$shared" ]; then
    echo "SKIP: $shared not found"
    exit 0
fi
exec python3 - "$build/oroya" "$shared" <<'PY'
import json, os, subprocess, sys

oroya, folder = sys.argv[1], sys.argv[2]
TOL = 1e-5
SIMPLE_OPS = {"play", "setLoop", "clampWhenFinished"}
failures, checked_values, scenarios = 0, 0, 0

for name in sorted(os.listdir(folder)):
    if not name.endswith(".json") or name.endswith(".expected.json"):
        continue
    scen = json.load(open(os.path.join(folder, name)))
    ops = scen.get("script", [])
    plays = [o for o in ops if o["do"] == "play"]
    if not scen.get("gltf") or any(o["do"] not in SIMPLE_OPS for o in ops) or len(plays) != 1 \
            or scen.get("nodes") or scen.get("clips") or scen.get("skins"):
        print(f"skip {name}: not a single-clip scenario")
        continue
    clip = plays[0].get("action") or plays[0].get("clip")
    expected = json.load(open(os.path.join(folder, name[:-5] + ".expected.json")))
    time_key = f"action:{clip}.time"
    frames = [f for f in expected["frames"] if f["values"].get(time_key) is not None]
    model = os.path.normpath(os.path.join(folder, scen["gltf"]))
    info = json.loads(subprocess.run([oroya, "info", model, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    alias = {f"node_{n['index']}": n["name"] for n in info["nodes"]}
    times = ",".join(repr(f["values"][time_key]) for f in frames)
    run = subprocess.run([oroya, "sample", model, "--clip", clip, "--times", times, "--world"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print(f"FAIL {name}: oroya sample: {run.stderr.strip()}")
        failures += 1
        continue
    got = json.loads(run.stdout)["frames"]
    scenarios += 1
    bad = 0
    for f, g in zip(frames, got):
        for key, want in f["values"].items():
            if key.startswith("action:"):
                continue
            target, _, field = key.rpartition(".")
            if target.startswith("skin:"):
                have = g["skins"].get(target)
            else:
                node = g["nodes"].get(alias.get(target, target))
                field = {"position": "translation", "quaternion": "rotation",
                         "matrixWorld": "world"}.get(field, field)
                have = node.get(field) if node else None
            if have is None or len(have) != len(want):
                print(f"FAIL {name} step {f['step']}: {key}: no comparable value")
                bad += 1
                continue
            for i, (a, b) in enumerate(zip(have, want)):
                checked_values += 1
                if abs(a - b) > TOL * max(1.0, abs(b)):
                    if bad < 10:
                        print(f"FAIL {name} step {f['step']} t={f['values'][time_key]}: "
                              f"{key}[{i}] = {a}, three.js {b}")
                    bad += 1
    print(f"{'ok  ' if not bad else 'FAIL'} {name}: {len(frames)} frames")
    failures += bad != 0
print(f"{scenarios} scenarios, {checked_values} values compared, {failures} failing")
sys.exit(1 if failures else 0)
PY
