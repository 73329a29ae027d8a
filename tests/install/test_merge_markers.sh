#!/usr/bin/env bash
# No tracked file keeps a merge's conflict markers (a line that starts with seven '<', or
# seven '>' followed by a space, or is exactly seven '='). They hide in comments and in
# Markdown, where the compiler cannot see them.
# Usage: test_merge_markers.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
src="${2:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$src"
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "SKIP not a git checkout"; exit 77; }
m7='<<<<<<<'; e7='======='; g7='>>>>>>>'
hits=$(git grep -nI -E "^(${m7}( |$)|${e7}$|${g7}( |$))" -- . ':!*.min.js' || true)
if [ -n "$hits" ]; then
  printf 'FAIL conflict markers:\n%s\n' "$hits"
  exit 1
fi
echo "PASS no conflict markers in $(git ls-files | wc -l) tracked files"
