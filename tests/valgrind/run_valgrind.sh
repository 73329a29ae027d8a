#!/usr/bin/env bash
# Runs every unit test program, and `oroya play` on every conformance scenario, under
# valgrind memcheck: any error or leak fails the run.
#   bash tests/valgrind/run_valgrind.sh BUILD_DIR
# The render tests are left out here: Mesa's llvmpipe JIT reports errors and leaks of its
# own under memcheck (and takes minutes). They run under ASan with leak detection turned off
# for that test only (docs/robustness.md).
set -uo pipefail
build="$(cd "${1:-build}" && pwd)"
src="$(cd "$(dirname "$0")/../.." && pwd)"
command -v valgrind >/dev/null || { echo "valgrind not found"; exit 1; }
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible)
pass=0 fail=0
run() {
  local name="$1"; shift
  (cd "$build" && "${vg[@]}" "$@" >/dev/null 2>"$build/valgrind-$name.log")
  rc=$?
  # Exit 99 is memcheck's verdict and 128+ a signal. Other non-zero exits are the program's
  # own verdict on its input (a scenario it rejects), which ctest judges, not this script.
  if [ $rc -ne 99 ] && [ $rc -lt 128 ]; then
    pass=$((pass + 1))
  else
    echo "FAIL valgrind $name (exit $rc): see $build/valgrind-$name.log"
    tail -n 20 "$build/valgrind-$name.log"
    fail=$((fail + 1))
  fi
}
for t in "$build"/tests/test_*; do
  [ -x "$t" ] || continue
  name="$(basename "$t")"
  case "$name" in test_render*) continue ;; esac
  run "$name" "$t"
done
if [ -x "$build/oroya" ] && [ -d "$src/tests/conformance" ]; then
  while IFS= read -r sc; do
    run "play-$(basename "$sc" .json)" "$build/oroya" play --allow-gltf-dir "$src/tests/assets" "$sc"
  done < <(find "$src/tests/conformance" -maxdepth 2 -name '*.json' ! -name '*.expected.json' \
             ! -path '*/tools/*' ! -path '*/oracle/*' | LC_ALL=C sort)
fi
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
