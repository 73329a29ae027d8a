#!/usr/bin/env bash
# The tracked C sources are formatted as .clang-format says (scripts/format.sh --check).
# Arguments (as ctest passes them): build dir, source dir. Exit 77 when clang-format is
# missing.
set -uo pipefail
src="${2:-$(dirname "$0")/../..}"
out=$(bash "$src/scripts/format.sh" --check)
rc=$?
if [ $rc -eq 77 ]; then exit 77; fi
if [ $rc -ne 0 ]; then
  echo "not formatted (run scripts/format.sh):"
  echo "$out"
  exit 1
fi
echo "all files formatted"
