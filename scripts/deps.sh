#!/usr/bin/env bash
# Installs what oroya needs to build and test on Debian 12, when it is missing.
# apt-get as root, sudo otherwise. Safe to run again: it installs nothing that is there.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libcjson-dev libcglm-dev libstb-dev libgif-dev libglfw3-dev libcairo2-dev libfontconfig-dev fonts-dejavu-core
  libegl-dev libgles-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  clang libclang-rt-14-dev valgrind xvfb xauth python3 nodejs npm
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A machine may have Node.js from elsewhere; the tests need only a node binary.
if command -v node >/dev/null 2>&1; then
  keep=()
  for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || keep+=("$p"); done
  missing=("${keep[@]+"${keep[@]}"}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Node tools for the tests (the Khronos glTF validator), pinned by tests/tools/package-lock.json.
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -d "$here/tests/tools/node_modules/gltf-validator" ]; then
  echo "deps: npm ci in tests/tools (gltf-validator)"
  (cd "$here/tests/tools" && npm ci --no-audit --no-fund --loglevel=error)
fi
