#!/usr/bin/env bash
# Runs every unit test program, and `oroya play` on every conformance scenario, under
# valgrind memcheck: any error or leak fails the run.
#   bash tests/valgrind/run_valgrind.sh BUILD_DIR
# VALGRIND_JOBS runs (default: the number of cores) go at once, each with its own log
# (BUILD_DIR/valgrind-NAME.log); the test programs start first, the slowest one split in shards.
# The render tests are left out here: Mesa's llvmpipe JIT reports errors and leaks of its
# own under memcheck (and takes minutes). They run under ASan with leak detection turned off
# for that test only (docs/robustness.md).
set -uo pipefail
build="$(cd "${1:-build}" && pwd)"
src="$(cd "$(dirname "$0")/../.." && pwd)"
jobs=${VALGRIND_JOBS:-$(nproc 2>/dev/null || echo 2)}
command -v valgrind >/dev/null || { echo "valgrind not found"; exit 1; }
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible)
results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT
# One run: its verdict goes to $results/NAME (pass, or the exit code) for the count at the end.
run() {
  local name="$1"; shift
  (cd "$build" && "${vg[@]}" "$@" >/dev/null 2>"$build/valgrind-$name.log")
  local rc=$?
  # Exit 99 is memcheck's verdict and 128+ a signal. Other non-zero exits are the program's
  # own verdict on its input (a scenario it rejects), which ctest judges, not this script.
  if [ $rc -ne 99 ] && [ $rc -lt 128 ]; then
    echo pass >"$results/$name"
  else
    echo "$rc" >"$results/$name"
  fi
}
running=0
spawn() {
  while [ "$running" -ge "$jobs" ]; do wait -n; running=$((running - 1)); done
  run "$@" &
  running=$((running + 1))
}
runs=0
# The slowest program under memcheck (test_pose_compress: most of the serial run's time) goes
# first, in $shards processes that run every one of its tests once between them
# (OROYA_TEST_SHARD=I/N, tests/unit/oroya_test.h), so that it is not the run's long tail.
slow="test_pose_compress"
shards=4
for name in $slow; do
  [ -x "$build/tests/$name" ] || continue
  for ((i = 0; i < shards; i++)); do
    # Set for the program itself (valgrind would not follow `env`): the fork keeps it.
    export OROYA_TEST_SHARD="$i/$shards"
    spawn "$name-shard$i-of-$shards" "$build/tests/$name"
    unset OROYA_TEST_SHARD
    runs=$((runs + 1))
  done
done
# Then the next slowest (measured serially on 2 shared cores: test_pose_compress 661 s,
# test_robustness_image 193 s, test_robustness_import 42 s, the others 24 s or less), then the rest.
next="test_robustness_image test_robustness_import"
progs=()
for name in $next; do [ -x "$build/tests/$name" ] && progs+=("$build/tests/$name"); done
for t in "$build"/tests/test_*; do
  [ -x "$t" ] || continue
  name="$(basename "$t")"
  case "$name" in test_render*) continue ;; esac
  case " $slow $next " in *" $name "*) continue ;; esac
  progs+=("$t")
done
for t in "${progs[@]}"; do
  spawn "$(basename "$t")" "$t"
  runs=$((runs + 1))
done
if [ -x "$build/oroya" ] && [ -d "$src/tests/conformance" ]; then
  while IFS= read -r sc; do
    spawn "play-$(basename "$sc" .json)" "$build/oroya" play --allow-gltf-dir "$src/tests/assets" "$sc"
    runs=$((runs + 1))
  done < <(find "$src/tests/conformance" -maxdepth 2 -name '*.json' ! -name '*.expected.json' \
             ! -path '*/tools/*' ! -path '*/oracle/*' | LC_ALL=C sort)
fi
wait
pass=0 fail=0
for f in "$results"/*; do
  [ -e "$f" ] || continue
  name="$(basename "$f")"
  if [ "$(cat "$f")" = pass ]; then
    pass=$((pass + 1))
  else
    echo "FAIL valgrind $name (exit $(cat "$f")): see $build/valgrind-$name.log"
    tail -n 20 "$build/valgrind-$name.log"
    fail=$((fail + 1))
  fi
done
# Every run started must have left a verdict.
if [ $((pass + fail)) -ne "$runs" ]; then
  echo "FAIL valgrind: $runs runs started, $((pass + fail)) verdicts"
  fail=$((fail + 1))
fi
echo "valgrind: $pass passed, $fail failed ($jobs at a time)"
[ "$fail" -eq 0 ]
