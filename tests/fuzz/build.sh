#!/usr/bin/env bash
# Builds the libFuzzer targets into OUT_DIR with clang directly (not through CMake):
#   bash tests/fuzz/build.sh OUT_DIR
# Library sources are compiled once with coverage instrumentation (FUZZ_JOBS at a time,
# default: the number of cores), then the targets link, also FUZZ_JOBS at a time. A source is
# compiled again only when it, or any header under src/, include/ or tools/scenario/, is
# newer than its object.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: build.sh OUT_DIR}
cc=${CC_FUZZ:-clang}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$out/obj"
# OROYA__INLINE=inline: the pose kernel's helpers are plain inline functions here instead of
# always_inline. The code is the same; clang only decides the inlining itself. With
# always_inline, ASan + UBSan + coverage instrumentation of the expanded kernels took clang
# 14 about 9 minutes for src/anim/pose.c and 7 for pose_avx2.c on 2 shared cores (8 s and
# 6 s with this).
flags=(-std=c11 -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined
       -DOROYA__INLINE=inline -I"$root/include" -I"$root/src" -I"$root/tools/scenario" -I"$here" -I/usr/include/stb
       -I/usr/include/cjson)
# At most $jobs commands at once; any failure fails the build once all started ones end.
failed=0
running=0
spawn() {
    while [ "$running" -ge "$jobs" ]; do
        wait -n || failed=1
        running=$((running - 1))
    done
    "$@" &
    running=$((running + 1))
}
drain() {
    while [ "$running" -gt 0 ]; do
        wait -n || failed=1
        running=$((running - 1))
    done
    [ "$failed" -eq 0 ] || { echo "fuzz build: a compile or link failed (see above)" >&2; exit 1; }
}
objs=()
# The library, and the scenario runner (tools/scenario: not in liboroya) for fuzz_scenario.
for src in "$root"/src/core/*.c "$root"/src/scene/*.c "$root"/src/anim/*.c "$root"/src/io/*.c \
           "$root"/tools/scenario/*.c; do
    base=$(basename "$src" .c)
    obj="$out/obj/$base.o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$root/src" "$root/include" "$root/tools/scenario" -name '*.h' -newer "$obj" -print -quit)" ]; then
        rm -f "$obj" # a failed compile leaves no object that a later run would take as built
        spawn "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "$src" -o "$obj"
    fi
    objs+=("$obj")
done
drain
for t in "$here"/fuzz_*.c; do
    name=$(basename "$t" .c)
    spawn "$cc" "${flags[@]}" -fsanitize=fuzzer,address,undefined "$t" "${objs[@]}" -lcjson -lm \
        -o "$out/$name"
done
drain
