#!/usr/bin/env bash
# The shared libraries export the public API and nothing else: every defined dynamic symbol
# of liboroya.so and liboroya_render.so starts with `oroya_` (never the internal `oroya__`),
# and every function the public headers declare is exported by one of them.
# Usage: test_exported_symbols.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="${1:-build}"
src="${2:-$(cd "$(dirname "$0")/../.." && pwd)}"
command -v nm >/dev/null || { echo "SKIP nm (binutils) not installed"; exit 77; }
pass=0
fail=0
exported=""
for lib in liboroya.so liboroya_render.so; do
  so="$build/$lib"
  if [ ! -e "$so" ]; then
    [ "$lib" = liboroya.so ] && { echo "FAIL $so missing"; exit 1; }
    continue # the render library is optional (OROYA_BUILD_RENDER=OFF)
  fi
  syms=$(nm -D --defined-only "$so" | awk 'NF >= 3 {print $3}')
  [ -n "$syms" ] || { echo "FAIL $lib exports nothing"; exit 1; }
  bad=$(printf '%s\n' "$syms" | grep -Ev '^oroya_[a-z0-9]' || true)
  if [ -n "$bad" ]; then
    echo "FAIL $lib exports $(printf '%s\n' "$bad" | wc -l) non-public symbols:"
    printf '  %s\n' $bad
    fail=$((fail + 1))
  else
    echo "PASS $lib: $(printf '%s\n' "$syms" | wc -l) symbols, all oroya_<name>"
    pass=$((pass + 1))
  fi
  exported="$exported"$'\n'"$syms"
done

# Functions declared in the public headers (a name followed by '(' at the start of a
# declaration, after its return type); static inline helpers are not exported.
declared=$(cat "$src"/include/oroya/*.h | grep -v '^\s*\*\|^\s*/\*\|static inline' |
  grep -oE '^[A-Za-z_][A-Za-z0-9_ *]*[ *](oroya_[a-z0-9_]+)\(' | grep -oE 'oroya_[a-z0-9_]+\($' |
  tr -d '(' | sort -u)
render_built=0
[ -e "$build/liboroya_render.so" ] && render_built=1
missing=""
for f in $declared; do
  if ! grep -qx "$f" <<<"$exported"; then
    # Without the render library its header's functions are not built at all.
    if [ $render_built = 0 ] && grep -q "$f(" "$src/include/oroya/render.h"; then continue; fi
    missing="$missing $f"
  fi
done
if [ -n "$missing" ]; then
  echo "FAIL declared in include/oroya but not exported:$missing"
  fail=$((fail + 1))
else
  echo "PASS all $(printf '%s\n' $declared | wc -l) functions of include/oroya are exported"
  pass=$((pass + 1))
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
