#!/usr/bin/env bash
# `oroya bench --quick --sweep` runs from any folder (its characters are built in memory),
# prints every figure, the sweep's included, as `name value unit` (one per line, value a
# finite non-negative number) and allocs_per_frame 0 (sweep_allocs_per_frame 0 too).
# Timings are not checked: --quick counts are tiny and CI machines are shared. A HUMANOID.glb without the clips the benchmark plays is refused, naming them.
set -u
build=$1
source=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(cd "$tmp" && TMPDIR="$tmp" "$build/oroya" bench --quick --sweep) || { echo "oroya bench failed" >&2; exit 1; }
echo "$out"
if [ -n "$(ls -A "$tmp")" ]; then
    echo "oroya bench left files in TMPDIR: $(ls -A "$tmp")" >&2
    exit 1
fi
status=0
names="char_frame_us char_frame_additive_us char_frame_cubic_us ik_two_bone_ns ik_aim_chain_ns
       mixer_char_frame_ik_us mixer_char_frame_ik_ratio mixer_char_frame_ik_off_ratio crowd1000_ms crowd1000_2t_ms
       mixer_char_frame_us mixer_char_frame_additive_us mixer_crowd1000_ms mixer_crowd1000_2t_ms
       skin_mverts_s gltf_load_mb_s gltf_load_cold_mb_s allocs_per_frame
       export_10k_nodes_ms export_100k_nodes_ms export_nodes_scaling
       play_5k_nodes_ms play_50k_nodes_ms play_nodes_scaling
       clip_bytes_walk clip_bytes_run clip_bytes_wave clip_float_bytes_walk
       clip_float_bytes_run clip_float_bytes_wave clip_max_error_mm
       clip_max_vertex_error_mm char_frame_compressed_us char_frame_compressed_ratio
       mixer_char_frame_unmasked_us mixer_char_frame_masked_us mixer_char_frame_masked_ratio"
for j in 16 32 67 128 256 512 1024; do
    names="$names sweep_char_j${j}_us sweep_char_j${j}_ns_per_joint"
done
for n in 1 10 100 1000 10000; do
    names="$names sweep_crowd_n${n}_ms sweep_crowd_n${n}_us_per_char"
    names="$names sweep_crowd_n${n}_2t_ms sweep_crowd_n${n}_2t_us_per_char"
done
names="$names sweep_triad_gb_s"
for v in 10k 30k 100k 300k 1m 2m; do
    names="$names sweep_skin_v${v}_mverts_s sweep_skin_v${v}_gb_s sweep_skin_v${v}_triad_frac"
done
names="$names sweep_allocs_per_frame"
count=0
for name in $names; do
    count=$((count + 1))
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
if [ "$lines" -ne "$count" ]; then
    echo "expected $count lines, got $lines" >&2
    status=1
fi
for name in allocs_per_frame sweep_allocs_per_frame; do
    if ! printf '%s\n' "$out" | grep -Eq "^$name 0 "; then
        echo "$name is not 0" >&2
        status=1
    fi
done
# Usage errors are reported with exit code 2.
"$build/oroya" bench --runs 0 >/dev/null 2>&1
if [ $? -ne 2 ]; then
    echo "--runs 0 should be a usage error" >&2
    status=1
fi
# A value with something after the number is refused, not read as its leading digits (atoi
# took "--runs 3x" as 3 and "--char-frames 1e3" as 1; strtol took "+3"), and every bad
# argument is named.
for args in "--runs 3x|--runs '3x' is not a whole number in 1..64" \
            "--runs +3|--runs '+3' is not a whole number in 1..64" \
            "--char-frames 1e3|--char-frames '1e3' is not a whole number in 1..10000000" \
            "--bogus|bad or incomplete argument '--bogus'"; do
    first=$("$build/oroya" bench ${args%%|*} 2>&1 >/dev/null | head -n 1)
    "$build/oroya" bench ${args%%|*} >/dev/null 2>&1
    rc=$?
    if [ $rc -ne 2 ] || [ "$first" != "oroya bench: ${args#*|}" ]; then
        echo "bench ${args%%|*}: exit $rc (want 2), '$first'" >&2
        status=1
    fi
done
# --help goes to stdout, as every other command's.
if ! "$build/oroya" bench --help 2>/dev/null | grep -q '^usage: oroya bench'; then
    echo "bench --help printed its usage on stderr" >&2
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
# --write DIR writes the built-in characters as files; read back through the opt-in
# OROYA_EXTRA_ASSETS, they equal the characters (test_bench_character) and pass the accessor
# checks (test_gltf_accessor_fast).
mkdir "$tmp/files"
if ! "$build/oroya" bench --write "$tmp/files" >/dev/null ||
   [ ! -s "$tmp/files/humanoid67.glb" ] || [ ! -s "$tmp/files/crowd_skin100k.glb" ]; then
    echo "bench --write did not write humanoid67.glb and crowd_skin100k.glb" >&2
    status=1
else
    for t in test_bench_character test_gltf_accessor_fast; do
        log=$(cd "$build" && OROYA_EXTRA_ASSETS="$tmp/files" "$build/tests/$t" 2>&1)
        if [ $? -ne 0 ] || ! printf '%s\n' "$log" | grep -q 'OROYA_EXTRA_ASSETS'; then
            echo "$t with OROYA_EXTRA_ASSETS=$tmp/files failed:" >&2
            printf '%s\n' "$log" | tail -5 >&2
            status=1
        fi
    done
fi
# --help says what a HUMANOID file needs.
if ! "$build/oroya" bench --help 2>&1 | grep -q 'walk, run, wave (played additively) and walk_cubic'; then
    echo "bench --help does not name the clips a HUMANOID file needs" >&2
    status=1
fi
exit $status
