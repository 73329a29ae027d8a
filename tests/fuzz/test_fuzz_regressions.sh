#!/usr/bin/env bash
# ctest script: builds the fuzz targets with clang, replays every file in
# tests/fuzz/regressions/<target>/, then fuzzes each target briefly (FUZZ_SECONDS, default 10)
# from the seed corpus. Reports a skip to ctest (exit 77) when clang's libFuzzer is missing.
#   bash test_fuzz_regressions.sh BUILD_DIR SOURCE_DIR          build, then every target
#   bash test_fuzz_regressions.sh BUILD_DIR SOURCE_DIR build    only build the targets
#   bash test_fuzz_regressions.sh BUILD_DIR SOURCE_DIR TARGET   replay + short run of one
#                                                               target (gltf_json, glb, ...)
# ctest runs the build step as the fixture test test_fuzz_regressions_build and each target
# as test_fuzz_regressions_<target>, so the targets run side by side with ctest -j.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
what=${3:-all}
here="$src/tests/fuzz"
out="$build/fuzz"
secs=${FUZZ_SECONDS:-10}
mkdir -p "$out"
probe=$(mktemp "$out/.fuzz_probe.XXXXXX")
if ! command -v clang >/dev/null 2>&1 ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}' |
       clang -x c - -fsanitize=fuzzer -o "$probe" >/dev/null 2>&1; then
    rm -f "$probe"
    echo "SKIP: clang with libFuzzer is not available"
    exit 77
fi
rm -f "$probe"
if [ "$what" = all ] || [ "$what" = build ]; then
    bash "$here/build.sh" "$out"
    echo "ok: built $(ls "$here"/fuzz_*.c | wc -l) fuzz targets into $out"
fi
[ "$what" = build ] && exit 0
targets=()
if [ "$what" = all ]; then
    for t in "$here"/fuzz_*.c; do
        name=$(basename "$t" .c)
        targets+=("${name#fuzz_}")
    done
else
    [ -f "$here/fuzz_$what.c" ] || { echo "FAIL: no fuzz target $what ($here/fuzz_$what.c)"; exit 1; }
    targets=("$what")
fi
status=0
for target in "${targets[@]}"; do
    name=fuzz_$target
    if [ ! -x "$out/$name" ]; then
        echo "FAIL: $out/$name is not built (ctest's test_fuzz_regressions_build builds it)"
        status=1
        continue
    fi
    reg="$here/regressions/$target"
    if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
        if ! "$out/$name" -runs=1 "$reg"/* >"$out/$target.replay.log" 2>&1; then
            echo "FAIL: $name on a regression input"; tail -30 "$out/$target.replay.log"; status=1
        else
            echo "ok: $name replayed $(ls "$reg" | wc -l) regression inputs"
        fi
    fi
    work=$(mktemp -d "$out/corpus-$target.XXXXXX")
    dict=()
    [ -f "$here/$target.dict" ] && dict=(-dict="$here/$target.dict")
    if ! "$out/$name" "${dict[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$out/$target-" "$work" "$here/corpus/$target" \
        >"$out/$target.short.log" 2>&1; then
        echo "FAIL: $name found a crash in a ${secs}s run"; tail -40 "$out/$target.short.log"; status=1
    else
        echo "ok: $name ran ${secs}s: $(grep -o 'cov: [0-9]*' "$out/$target.short.log" | tail -1)"
    fi
    rm -rf "$work"
done
exit $status
