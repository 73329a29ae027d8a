#!/usr/bin/env bash
# Builds the libFuzzer targets into OUT_DIR with clang directly (not through CMake):
#   bash tests/fuzz/build.sh OUT_DIR
# Library sources are compiled once with coverage instrumentation, then each target links.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: build.sh OUT_DIR}
cc=${CC_FUZZ:-clang}
mkdir -p "$out/obj"
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined
       -I"$root/include" -I"$root/src" -I"$root/tools/scenario" -I"$here" -I/usr/include/stb
       -I/usr/include/cjson)
objs=()
# The library, and the scenario runner (tools/scenario: not in liboroya) for fuzz_scenario.
for src in "$root"/src/core/*.c "$root"/src/scene/*.c "$root"/src/anim/*.c "$root"/src/io/*.c \
           "$root"/tools/scenario/*.c; do
    base=$(basename "$src" .c)
    obj="$out/obj/$base.o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$root/src" "$root/include" "$root/tools/scenario" -name '*.h' -newer "$obj" -print -quit)" ]; then
        "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "$src" -o "$obj"
    fi
    objs+=("$obj")
done
for t in "$here"/fuzz_*.c; do
    name=$(basename "$t" .c)
    "$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined "$t" "${objs[@]}" -lcjson -lm \
        -o "$out/$name"
done
