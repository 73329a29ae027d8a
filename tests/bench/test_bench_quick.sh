#!/usr/bin/env bash
# `oroya bench --quick` runs, prints every figure of issue 10 as `name value unit` (one per
# line, value a finite non-negative number) and allocs_per_frame 0. Timings are not checked:
# --quick counts are tiny and CI machines are shared.
set -u
build=$1
source=$2
data="$source/../shared/bench/data"
if [ ! -f "$data/humanoid67.glb" ] || [ ! -f "$data/crowd_skin100k.glb" ]; then
    echo "bench data not found in $data" >&2
    exit 1
fi
out=$("$build/oroya" bench --quick "$data/humanoid67.glb") || { echo "oroya bench failed" >&2; exit 1; }
echo "$out"
status=0
for name in char_frame_us char_frame_additive_us char_frame_cubic_us crowd1000_ms \
            crowd1000_2t_ms skin_mverts_s gltf_load_mb_s gltf_load_cold_mb_s allocs_per_frame \
            export_10k_nodes_ms export_100k_nodes_ms export_nodes_scaling \
            play_5k_nodes_ms play_50k_nodes_ms play_nodes_scaling; do
    line=$(printf '%s\n' "$out" | grep -E "^$name " || true)
    if [ -z "$line" ]; then
        echo "missing figure: $name" >&2
        status=1
        continue
    fi
    if ! printf '%s\n' "$line" | grep -Eq "^$name [0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)? [A-Za-z/]+$"; then
        echo "bad format: '$line'" >&2
        status=1
    fi
done
lines=$(printf '%s\n' "$out" | wc -l)
if [ "$lines" -ne 15 ]; then
    echo "expected 15 lines, got $lines" >&2
    status=1
fi
if ! printf '%s\n' "$out" | grep -Eq '^allocs_per_frame 0 '; then
    echo "allocs_per_frame is not 0" >&2
    status=1
fi
# Usage errors are reported with exit code 2.
"$build/oroya" bench --runs 0 >/dev/null 2>&1
if [ $? -ne 2 ]; then
    echo "--runs 0 should be a usage error" >&2
    status=1
fi
# A missing file is an error with exit code 1.
"$build/oroya" bench --quick "$build/no-such-file.glb" >/dev/null 2>&1
if [ $? -ne 1 ]; then
    echo "a missing file should fail with 1" >&2
    status=1
fi
exit $status
