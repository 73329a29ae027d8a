#!/usr/bin/env bash
# Installs what oroya needs to build and test on Debian 12, when it is missing.
# apt-get as root, sudo otherwise. Safe to run again: it installs nothing that is there.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libcjson-dev libcglm-dev libstb-dev libgif-dev libglfw3-dev
  libegl-dev libgles-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  clang libclang-rt-14-dev valgrind xvfb xauth nodejs npm
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
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
