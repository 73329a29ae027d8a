#!/usr/bin/env bash
# ctest script: the files test_gltf_write exports (every sample model as .gltf + .bin and as
# .glb, round-tripped there) must pass the Khronos glTF validator (npm gltf-validator) with
# 0 errors. Skips when node or the validator is not installed; point GLTF_VALIDATOR_NODE_PATH
# at a node_modules holding gltf-validator (default /tmp/gv/node_modules, see
# shared/assets/gltf/tools/README.md).
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
node_path=${GLTF_VALIDATOR_NODE_PATH:-/tmp/gv/node_modules}
if ! command -v node >/dev/null 2>&1 ||
   ! NODE_PATH="$node_path" node -e "require('gltf-validator')" >/dev/null 2>&1; then
    echo "SKIP: node with gltf-validator not found (NODE_PATH=$node_path)"
    exit 0
fi
[ -f "$src/../shared/assets/gltf/tools/validate_gltf.js" ] || { echo "SKIP: shared validator script not found"; exit 0; }
out="$build/test_gltf_write_out"
rm -rf "$out"
"$build/tests/test_gltf_write" >/dev/null
cd "$out"
files=$(ls *.gltf *.glb)
[ -n "$files" ] || { echo "FAIL: nothing was exported"; exit 1; }
# The validator script (read-only, shared) prints one line per file and exits 1 on errors.
NODE_PATH="$node_path" node "$src/../shared/assets/gltf/tools/validate_gltf.js" $files |
    tee "$build/test_gltf_export.log" | tail -1
grep -q ' 0 with errors' "$build/test_gltf_export.log"
