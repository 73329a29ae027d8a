#!/usr/bin/env bash
# ctest script: the CLI on files made to break it. Buffers outside the model's folder are
# refused unless --allow-outside; FIFOs and directories (also as a scenario's "gltf") fail
# at once instead of blocking; every JSON the CLI prints parses as strict JSON.
set -uo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
oroya="$build/oroya"
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Strict JSON: Python's parser accepts NaN and Infinity unless told not to.
strict_json='import json,sys
def bad(c): raise ValueError("non-finite number " + c)
for line in open(sys.argv[1], "rb").read().decode("utf-8").splitlines() or [""]:
    if line.strip(): json.loads(line, parse_constant=bad)'

mkdir -p "$tmp/model" "$tmp/outside"
cp "$src"/tests/assets/SimpleSkin/glTF/*.bin "$tmp/outside/"
# The model refers to its buffers one folder up.
sed 's|"uri" *: *"|"uri": "../outside/|' "$src/tests/assets/SimpleSkin/glTF/SimpleSkin.gltf" \
    >"$tmp/model/m.gltf"
"$oroya" info "$tmp/model/m.gltf" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "info refuses a buffer outside the folder (exit 1, names the URI)" \
    "[ $rc = 1 ] && grep -q 'buffers\[0\].*\.\./outside/skinGeometry.bin.*access refused' $tmp/err"
"$oroya" info --allow-outside "$tmp/model/m.gltf" >"$tmp/out" 2>"$tmp/err"
check "info --allow-outside loads it" "[ $? = 0 ] && grep -q 'nodes' $tmp/out"
"$oroya" sample "$tmp/model/m.gltf" --clip animation_0 --time 1 >"$tmp/out" 2>"$tmp/err"
check "sample refuses it" "[ $? = 1 ] && grep -q 'access refused' $tmp/err"
"$oroya" sample "$tmp/model/m.gltf" --clip animation_0 --time 1 --allow-outside >"$tmp/out" 2>&1
check "sample --allow-outside loads it" "[ $? = 0 ]"
echo '{"gltf":"model/m.gltf","steps":{"fps":10,"count":1},"record":[]}' >"$tmp/s.json"
"$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play refuses it" "[ $? = 1 ] && grep -q 'outside' $tmp/err"
"$oroya" play --allow-outside "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
check "play --allow-outside loads it" "[ $? = 0 ]"

# A FIFO or a directory as the model, through info and through a scenario's "gltf".
mkfifo "$tmp/model/fifo.gltf"
mkdir "$tmp/model/dir.gltf"
for f in fifo dir; do
    timeout 10 "$oroya" info "$tmp/model/$f.gltf" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "info on a $f: exit 1 at once, 'not a regular file'" \
        "[ $rc = 1 ] && grep -q 'is not a regular file' $tmp/err"
    echo "{\"gltf\":\"model/$f.gltf\",\"steps\":{\"dt\":[0.1]},\"record\":[]}" >"$tmp/s.json"
    timeout 10 "$oroya" play "$tmp/s.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "play with a $f as gltf: exit 1 at once, no size nonsense" \
        "[ $rc = 1 ] && grep -q 'is not a regular file' $tmp/err && ! grep -q 9223372036854775807 $tmp/err"
done

exit $fail
