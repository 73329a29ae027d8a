#!/usr/bin/env bash
# Installs what oroya needs on Debian 12, when it is missing.
#   bash scripts/deps.sh           everything: build, render, tests, fuzzing, the web build
#                                  (make deps, make test, .ci/run)
#   bash scripts/deps.sh --build   only what building liboroya, the CLI and the renderer and
#                                  running `oroya render` need (make demo): no test, browser or
#                                  web toolchain, no npm, no change to apt's sources
# apt-get as root, sudo otherwise. Safe to run again: it installs nothing that is there.
set -euo pipefail
only_build=0
case "${1:-}" in
  --build) only_build=1 ;;
  "") ;;
  *) echo "usage: bash scripts/deps.sh [--build]" >&2; exit 2 ;;
esac
packages=(
  build-essential cmake pkg-config git
  libcjson-dev libcglm-dev libstb-dev libgif-dev libpng-dev libglfw3-dev libcairo2-dev libfontconfig-dev fonts-dejavu-core
  libegl-dev libgles-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
)
if [ $only_build = 0 ]; then
  packages+=(
    clang clang-format-14 libclang-rt-14-dev valgrind xvfb xauth python3 nodejs npm
    emscripten chromium dpkg-dev qemu-user
  )
fi
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
[ $only_build = 1 ] && exit 0
# Node tools for the tests (the Khronos glTF validator), pinned by tests/tools/package-lock.json.
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -d "$here/tests/tools/node_modules/gltf-validator" ]; then
  echo "deps: npm ci in tests/tools (gltf-validator)"
  (cd "$here/tests/tools" && npm ci --no-audit --no-fund --loglevel=error)
fi
# The browser build (make web) compiles cJSON from Debian's cjson source package (the same
# version as libcjson-dev, with Debian's patches); apt needs a deb-src entry for that.
if [ ! -f "$here/.deps/cjson/cJSON.c" ]; then
  echo "deps: Debian source of cjson into .deps/cjson"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if ! apt-get source --print-uris cjson >/dev/null 2>&1; then
    # deb-src entries for the mirrors this machine already uses for binary packages.
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
        $sudo tee /etc/apt/sources.list.d/oroya-deb-src.sources >/dev/null
    elif grep -qs '^deb ' /etc/apt/sources.list; then
      sed -n 's/^deb /deb-src /p' /etc/apt/sources.list |
        $sudo tee /etc/apt/sources.list.d/oroya-deb-src.list >/dev/null
    else
      echo "deps: no Debian package source found to add deb-src entries to" >&2; exit 1
    fi
    $sudo apt-get update -qq
  fi
  tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get source -qq cjson >/dev/null 2>&1) ||
    { echo "deps: apt-get source cjson failed" >&2; exit 1; }
  src="$(find "$tmp" -maxdepth 2 -name cJSON.c -printf '%h\n' | head -1)"
  [ -n "$src" ] || { echo "deps: apt-get source cjson gave no cJSON.c" >&2; exit 1; }
  mkdir -p "$here/.deps"
  rm -rf "$here/.deps/cjson"
  cp -r "$src" "$here/.deps/cjson"
  rm -rf "$tmp"
fi
# three.js for the race page (web/package-lock.json) and puppeteer-core for the browser test
# (tests/web/package-lock.json; it drives Debian's chromium, no browser download).
if [ ! -d "$here/web/node_modules/three" ]; then
  echo "deps: npm ci in web (three)"
  (cd "$here/web" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -d "$here/tests/web/node_modules/puppeteer-core" ]; then
  echo "deps: npm ci in tests/web (puppeteer-core)"
  (cd "$here/tests/web" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi
