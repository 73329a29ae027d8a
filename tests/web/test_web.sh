#!/usr/bin/env bash
# The browser test (tests/web/test_web.mjs): builds the wasm when its sources changed, then
# drives headless Chromium through puppeteer-core over the viewer and the race page.
# Everything it needs comes from scripts/deps.sh (make deps; make test runs it first). A
# missing tool is a failure, never a skip.
set -u
build=$1
source=$2
fail() { echo "test_web: $*" >&2; exit 1; }
for tool in emcc chromium node python3; do
  command -v "$tool" >/dev/null || fail "$tool not found (run make deps)"
done
[ -x "$build/oroya" ] || fail "$build/oroya not built"
[ -d "$source/tests/web/node_modules/puppeteer-core" ] || fail "puppeteer-core missing (run make deps)"
[ -d "$source/web/node_modules/three" ] || fail "three missing in web/node_modules (run make deps)"
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
