#!/usr/bin/env bash
# ctest script: the files test_gltf_write exports (every sample model as .gltf + .bin and as
# .glb, round-tripped there) must pass the Khronos glTF validator (npm gltf-validator) with
# 0 errors. The validator comes from tests/tools (package.json, installed by `make deps` with
# npm ci); GLTF_VALIDATOR_NODE_PATH may point at another node_modules holding it. Reports a
# skip to ctest (exit 77) when node or the validator is missing.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
node_path=${GLTF_VALIDATOR_NODE_PATH:-$src/tests/tools/node_modules}
if ! command -v node >/dev/null 2>&1 ||
   ! NODE_PATH="$node_path" node -e "require('gltf-validator')" >/dev/null 2>&1; then
    echo "SKIP: node with gltf-validator not found (NODE_PATH=$node_path; run make deps)"
    exit 77
fi
out="$build/test_gltf_write_out"
rm -rf "$out"
"$build/tests/test_gltf_write" >/dev/null
cd "$out"
files=$(ls *.gltf *.glb)
[ -n "$files" ] || { echo "FAIL: nothing was exported"; exit 1; }
# The validator script prints one line per file and exits 1 on errors.
NODE_PATH="$node_path" node "$src/tests/tools/validate_gltf.js" $files |
    tee "$build/test_gltf_export.log" | tail -1
grep -q ' 0 with errors' "$build/test_gltf_export.log"
