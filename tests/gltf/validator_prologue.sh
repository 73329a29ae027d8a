# Sourced first by the glTF test scripts that run the Khronos validator (called as
# SCRIPT BUILD_DIR SOURCE_DIR): sets BUILD, SRC, OROYA and node_path, exits 77 (skip) when
# node with gltf-validator, or python3, is missing (make deps installs them), then sources
# tests/cli/lib.sh (scratch folder, fail, expect, finish).
set -u
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
OROYA="$BUILD/oroya"
node_path=${GLTF_VALIDATOR_NODE_PATH:-$SRC/tests/tools/node_modules}
if ! command -v node >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1 ||
   ! NODE_PATH="$node_path" node -e "require('gltf-validator')" >/dev/null 2>&1; then
    echo "SKIP: node with gltf-validator, or python3, not found (NODE_PATH=$node_path; run make deps)"
    exit 77
fi
. "$SRC/tests/cli/lib.sh"
