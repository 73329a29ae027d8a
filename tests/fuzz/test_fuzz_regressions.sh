#!/usr/bin/env bash
# ctest script: builds the fuzz targets with clang, replays every file in
# tests/fuzz/regressions/<target>/, then fuzzes each target briefly (FUZZ_SECONDS, default 5)
# from the seed corpus. Skips (passes) with a note when clang's libFuzzer is not installed.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
src=$(cd "${2:?source dir}" && pwd)
here="$src/tests/fuzz"
out="$build/fuzz"
secs=${FUZZ_SECONDS:-5}
if ! command -v clang >/dev/null 2>&1 ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}' |
       clang -x c - -fsanitize=fuzzer -o "$build/.fuzz_probe" >/dev/null 2>&1; then
    echo "SKIP: clang with libFuzzer is not available"
    exit 0
fi
rm -f "$build/.fuzz_probe"
bash "$here/build.sh" "$out"
status=0
for t in "$here"/fuzz_*.c; do
    name=$(basename "$t" .c)
    target=${name#fuzz_}
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
