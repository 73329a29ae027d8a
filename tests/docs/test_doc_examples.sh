#!/usr/bin/env bash
# The C blocks (```c) of README.md and docs/*.md compile against the public headers (see
# doc_examples.py for how a block says what it takes from the surrounding program). The
# README's program is also built and run by tests/examples/test_examples.sh.
# Run as: bash test_doc_examples.sh BUILD_DIR SOURCE_DIR
set -u
src=$(cd "$2" && pwd)
command -v python3 >/dev/null || { echo "SKIP: python3 not found (make deps installs it)"; exit 77; }
exec python3 "$src/tests/docs/doc_examples.py" "$src" "${CC:-cc}" \
    -Wall -Wextra -Werror -Wno-unused-variable -Wno-unused-parameter -Wno-unused-but-set-variable
