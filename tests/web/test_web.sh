#!/usr/bin/env bash
# The browser test (tests/web/test_web.mjs): builds the wasm when its sources changed, then
# drives headless Chromium through puppeteer-core over the viewer and the race page.
# Everything it needs comes from scripts/deps.sh (make deps; make test runs it first). A
# missing tool or npm package (a git worktree has no node_modules) skips the test with exit
# code 77 (ctest's SKIP_RETURN_CODE: shown as skipped, never as passed) and says what is
# missing; under CI (CI set and not "false" or "0", as CI services set CI=true) it fails
# instead: CI must never skip the browser test silently.
set -u
fail() { echo "test_web: $*" >&2; exit 1; }
[ $# -eq 2 ] || fail "usage: bash tests/web/test_web.sh BUILD_DIR SOURCE_DIR"
# Absolute paths: the test runs from tests/web, where a relative path means something else.
build="$(cd "$1" 2>/dev/null && pwd)" || fail "no build directory $1"
source="$(cd "$2" 2>/dev/null && pwd)" || fail "no source directory $2"
under_ci() { [ -n "${CI:-}" ] && [ "${CI}" != false ] && [ "${CI}" != 0 ]; }
missing() {
  if under_ci; then
    fail "$* (CI=$CI: a missing tool fails the browser test there; run make deps)"
  fi
  echo "test_web: SKIPPED: $* (run make deps; under CI=true this is a failure)" >&2
  exit 77
}
for tool in emcc chromium node python3; do
  command -v "$tool" >/dev/null || missing "$tool not found"
done
[ -x "$build/oroya" ] || fail "$build/oroya not built"
[ -d "$source/tests/web/node_modules/puppeteer-core" ] || missing "puppeteer-core missing in tests/web/node_modules"
[ -d "$source/web/node_modules/three" ] || missing "three missing in web/node_modules"
js="$source/web/build/oroya.js"
stale=0
if [ ! -f "$js" ] || [ ! -f "$source/web/build/oroya_portable.js" ]; then
  stale=1
elif [ -n "$(find "$source/src" "$source/include" "$source/web/oroya_web.c" "$source/web/build.sh" \
                 -newer "$js" \( -name '*.c' -o -name '*.h' -o -name '*.sh' \) 2>/dev/null | head -1)" ]; then
  stale=1
fi
if [ "$stale" = 1 ]; then
  # One build at a time when ctest runs the test in two trees at once.
  flock "$source/web/.build.lock" bash "$source/web/build.sh" || fail "make web failed"
fi
cd "$source/tests/web" && exec node test_web.mjs "$build" "$source"
