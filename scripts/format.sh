#!/usr/bin/env bash
# Formats oroya's tracked C sources with clang-format (the style is .clang-format).
#   scripts/format.sh          formats the files in place
#   scripts/format.sh --check  lists the files that are not formatted and exits 1 if any
# CLANG_FORMAT picks the binary (default: clang-format-14, else clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = "--check" ]; then
  check=1
elif [ $# -gt 0 ]; then
  echo "usage: scripts/format.sh [--check]" >&2
  exit 2
fi
cf="${CLANG_FORMAT:-}"
if [ -z "$cf" ]; then
  if command -v clang-format-14 >/dev/null 2>&1; then cf=clang-format-14; else cf=clang-format; fi
fi
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "format: $cf not found (scripts/deps.sh installs clang-format)" >&2
  exit 77
fi
mapfile -t files < <(git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'tools/*.c' 'tools/*.h' \
  'tests/*.c' 'tests/*.h' 'tests/*.cpp' 'bench/*.c' 'bench/*.h' 'examples/*.c' 'web/oroya_web.c')
bad=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if [ $check -eq 1 ]; then
    if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
      echo "$f"
      bad=1
    fi
  else
    "$cf" --style=file -i "$f"
  fi
done
exit $bad
