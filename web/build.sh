#!/usr/bin/env bash
# Builds liboroya (runtime + glTF import; no renderer, no CLI) and web/oroya_web.c to
# WebAssembly with Debian's emscripten, offline: `make web` runs this.
#   web/build/oroya.js           SIMD128 build (the x86 SSE2 kernels through emscripten's
#                                SSE2-to-SIMD128 headers: -msse2 -msimd128), used by the pages
#   web/build/oroya_portable.js  the portable C kernels (OROYA_POSE_NO_SIMD, no -msimd128)
# Each is one file (-sSINGLE_FILE: the wasm is embedded) that defines createOroya().
# cJSON's source comes from Debian's cjson source package (scripts/deps.sh puts it in .deps/).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/web/build"
cjson="$here/.deps/cjson"
command -v emcc >/dev/null || { echo "make web: emcc not found (run make deps: Debian's emscripten)" >&2; exit 1; }
[ -f "$cjson/cJSON.c" ] || { echo "make web: $cjson/cJSON.c missing (run make deps: Debian's cjson source)" >&2; exit 1; }
[ -f /usr/include/stb/stb_image.h ] || { echo "make web: stb_image.h missing (run make deps: libstb-dev)" >&2; exit 1; }
# The machine's node may not be Debian's: emscripten's JS optimizer needs Debian's node-acorn.
export NODE_PATH=/usr/share/nodejs
mkdir -p "$out/include/cjson" "$out/include/stb"
cp -p "$cjson/cJSON.h" "$out/include/cjson/"
cp -p /usr/include/stb/stb_image.h "$out/include/stb/"
# No EGL renderer (src/render): the page draws with WebGL2, with the renderer's shader
# sources (src/render/render_shaders.c, which makes no GL call).
sources=()
for f in "$here"/src/core/*.c "$here"/src/scene/*.c "$here"/src/anim/*.c "$here"/src/io/*.c \
  "$here"/src/render/render_shaders.c; do
  sources+=("$f")
done
warn=(-Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wstrict-prototypes -Werror)
common=(-std=c11 -O3 -I"$here/include" -I"$here/src" -isystem "$out/include" -DNDEBUG)
link=(-sENVIRONMENT=web -sMODULARIZE=1 -sEXPORT_NAME=createOroya -sSINGLE_FILE=1
      -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=64MB -sMAXIMUM_MEMORY=2GB
      -sEXPORTED_FUNCTIONS=_malloc,_free -sEXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8
      -sFILESYSTEM=0)
build() { # name, extra flags...
  local name=$1; shift
  local obj="$out/obj-$name"
  mkdir -p "$obj"
  local objs=()
  for f in "${sources[@]}" "$here/web/oroya_web.c"; do
    objs+=("$obj/$(basename "${f%.c}").o")
  done
  # Only what changed: a source is compiled again when it, this script (the flags) or any
  # header under include/, src/ or web/ is newer than its object.
  local stale=()
  for f in "${sources[@]}" "$here/web/oroya_web.c"; do
    local o="$obj/$(basename "${f%.c}").o"
    if [ ! "$o" -nt "$f" ] || [ ! "$o" -nt "$0" ] ||
      [ -n "$(find "$here/include" "$here/src" "$here/web" -name '*.h' -newer "$o" -print -quit)" ]; then
      stale+=("$f")
    fi
  done
  # Two compilers at a time (the machine has two cores).
  if [ ${#stale[@]} -gt 0 ]; then
    printf '%s\n' "${stale[@]}" |
      xargs -P 2 -I{} sh -c 'emcc "$@" -c "{}" -o "'"$obj"'/$(basename "{}" .c).o"' _ \
        "${common[@]}" "${warn[@]}" "$@"
  fi
  if [ ! "$obj/cJSON.o" -nt "$cjson/cJSON.c" ] || [ ! "$obj/cJSON.o" -nt "$0" ]; then
    emcc "${common[@]}" "$@" -w -c "$cjson/cJSON.c" -o "$obj/cJSON.o"
  fi
  local relink=false
  for o in "${objs[@]}" "$obj/cJSON.o"; do
    [ "$o" -nt "$out/$name.js" ] && relink=true
  done
  [ -f "$out/$name.js" ] || relink=true
  if $relink; then
    emcc "${common[@]}" "$@" "${objs[@]}" "$obj/cJSON.o" "${link[@]}" -o "$out/$name.js"
  fi
  echo "make web: web/build/$name.js ($(stat -c %s "$out/$name.js") bytes; ${#stale[@]} sources compiled)"
}
build oroya -msimd128 -msse2
build oroya_portable -DOROYA_POSE_NO_SIMD
