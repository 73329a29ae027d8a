#!/usr/bin/env bash
# `oroya bench --quick` runs from any folder (its characters are built in memory), prints
# every figure as `name value unit` (one per line, value a finite non-negative number) and
# allocs_per_frame 0. Timings are not checked: --quick counts are tiny and CI machines are
# shared. A HUMANOID.glb without the clips the benchmark plays is refused, naming them.
set -u
build=$1
source=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(cd "$tmp" && TMPDIR="$tmp" "$build/oroya" bench --quick) || { echo "oroya bench failed" >&2; exit 1; }
echo "$out"
if [ -n "$(ls -A "$tmp")" ]; then
    echo "oroya bench left files in TMPDIR: $(ls -A "$tmp")" >&2
    exit 1
fi
status=0
for name in char_frame_us char_frame_additive_us char_frame_cubic_us ik_two_bone_ns \
            ik_aim_chain_ns mixer_char_frame_ik_us mixer_char_frame_ik_ratio crowd1000_ms \
            crowd1000_2t_ms mixer_char_frame_us mixer_char_frame_additive_us mixer_crowd1000_ms \
            mixer_crowd1000_2t_ms skin_mverts_s gltf_load_mb_s gltf_load_cold_mb_s allocs_per_frame \
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
if [ "$lines" -ne 23 ]; then
    echo "expected 23 lines, got $lines" >&2
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
# A file without the benchmark's clips: the message names the four clips it needs.
msg=$("$build/oroya" bench --quick "$source/tests/assets/CesiumMan/glTF-Binary/CesiumMan.glb" 2>&1 >/dev/null)
if [ $? -ne 1 ] || ! printf '%s\n' "$msg" | grep -q 'walk, run, wave and walk_cubic'; then
    echo "a HUMANOID file without the clips should fail with 1 and name them: '$msg'" >&2
    status=1
fi
# --help says what a HUMANOID file needs.
if ! "$build/oroya" bench --help 2>&1 | grep -q 'walk, run, wave (played additively) and walk_cubic'; then
    echo "bench --help does not name the clips a HUMANOID file needs" >&2
    status=1
fi
exit $status
