#!/usr/bin/env bash
# Builds every glTF fuzz target and runs each for SECONDS (default 60), one after the other:
#   bash tests/fuzz/run.sh [SECONDS]
# Work corpora, logs and crash artifacts go to $FUZZ_OUT (default build-fuzz/). The committed
# seeds in tests/fuzz/corpus/<target>/ are read, never written. Copy any crash artifact into
# tests/fuzz/regressions/<target>/ once it is fixed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-60}
out=${FUZZ_OUT:-$root/build-fuzz}
bash "$here/build.sh" "$out"
mkdir -p "$out/artifacts"
status=0
for t in "$here"/fuzz_*.c; do
    name=$(basename "$t" .c)
    target=${name#fuzz_}
    mkdir -p "$out/corpus/$target"
    dict=()
    [ -f "$here/$target.dict" ] && dict=(-dict="$here/$target.dict")
    echo "== $name: ${secs}s"
    if ! "$out/$name" "${dict[@]}" -max_total_time="$secs" -print_final_stats=1 \
        -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$out/artifacts/$target-" \
        "$out/corpus/$target" "$here/corpus/$target" >"$out/$target.log" 2>&1; then
        echo "   FAILED: see $out/$target.log and $out/artifacts/"
        status=1
    fi
    execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/$target.log" | awk '{print $2}' | tail -1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$out/$target.log" | tail -1)
    echo "   execs ${execs:-?}, ${cov:-no coverage line}, corpus $(ls "$out/corpus/$target" | wc -l) files"
done
exit $status
