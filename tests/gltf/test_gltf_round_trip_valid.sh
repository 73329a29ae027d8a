#!/usr/bin/env bash
# ctest script: the files test_gltf_round_trip exports (every model of tests/assets and
# tests/gltf/odd written with its model, and the odd cases it makes) must pass the Khronos
# glTF validator (npm gltf-validator) with 0 errors and no warning their source lacks (see
# tests/tools/validate_round_trip.js). GLTF_VALIDATOR_NODE_PATH may point at another
# node_modules holding the validator. Reports a skip to ctest (exit 77) when node or the
# validator is missing.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
node_path=${GLTF_VALIDATOR_NODE_PATH:-$src/tests/tools/node_modules}
if ! command -v node >/dev/null 2>&1 ||
   ! NODE_PATH="$node_path" node -e "require('gltf-validator')" >/dev/null 2>&1; then
    echo "SKIP: node with gltf-validator not found (NODE_PATH=$node_path; run make deps)"
    exit 77
fi
out="$build/test_gltf_round_trip_out"
rm -rf "$out"
"$build/tests/test_gltf_round_trip" >/dev/null
[ -s "$out/manifest.txt" ] || { echo "FAIL: nothing was exported"; exit 1; }
NODE_PATH="$node_path" node "$src/tests/tools/validate_round_trip.js" "$out/manifest.txt" |
    tee "$build/test_gltf_round_trip.log" | tail -1
# Some files were validated (a manifest rewritten under it once gave "0 files, 0 failing").
! grep -q ': 0 files' "$build/test_gltf_round_trip.log" || { echo "FAIL: no file validated"; exit 1; }
grep -q ' 0 failing' "$build/test_gltf_round_trip.log"
