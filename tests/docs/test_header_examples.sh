#!/usr/bin/env bash
# The code examples in the public headers compile against those headers (see
# header_examples.py for how an example is marked). Run as: bash test_header_examples.sh
# BUILD_DIR SOURCE_DIR
set -u
src=$(cd "$2" && pwd)
command -v python3 >/dev/null || { echo "SKIP: python3 not found (make deps installs it)"; exit 77; }
exec python3 "$src/tests/docs/header_examples.py" "$src/include" "${CC:-cc}" \
    -Wall -Wextra -Werror -Wno-unused-variable -Wno-unused-parameter -Wno-unused-but-set-variable
