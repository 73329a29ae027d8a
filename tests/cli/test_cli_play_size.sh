#!/usr/bin/env bash
# oroya play's size cap, OROYA_SCENARIO_MAX_SIZE (2 GiB, a model file's limit), and its cap
# on JSON values, OROYA_SCENARIO_MAX_JSON_VALUES. A scenario on
# stdin was read without end (the buffer doubled past 4 GiB; 2 GiB + 1 bytes of zeros ended
# as "invalid JSON near byte 0"); now the read stops one byte past the limit and says so. A
# file says its size and is refused before a byte is read. Reading 2 GiB (a file at the limit,
# stdin past it) takes seconds and 2 GiB of RSS each (13 s for the test), hence a test of its
# own.
# Run as: bash test_cli_play_size.sh BUILD_DIR SOURCE_DIR
set -u
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
OROYA="$BUILD/oroya"
. "$SRC/tests/cli/lib.sh"

want="over 2147483648 bytes (OROYA_SCENARIO_MAX_SIZE, 2 GiB)"
# A sparse file: no disk, no read.
truncate -s $(((1 << 31) + 1)) big.json
"$OROYA" play big.json >out.txt 2>err.txt
got=$?
[ "$got" -eq 1 ] && [ "$(cat err.txt)" = "oroya play: big.json: $want" ] ||
    fail "play big.json (2 GiB + 1 bytes): exit $got: $(head -c 300 err.txt)"
rm -f big.json
# More than OROYA_SCENARIO_MAX_JSON_VALUES (16 777 216) values: refused before cJSON parses
# them (its tree is about 80 bytes a value). The root, an array, 16 777 215 zeros (50 MB).
{ printf '{"x":['; yes '0,' | head -n 16777214; printf '0]}'; } >many.json
"$OROYA" play many.json >out.txt 2>err.txt
got=$?
want_values="oroya play: many.json: (scenario): 16777217 JSON values, the limit is 16777216 (OROYA_SCENARIO_MAX_JSON_VALUES)"
[ "$got" -eq 1 ] && [ "$(cat err.txt)" = "$want_values" ] ||
    fail "play many.json (16777217 values): exit $got: $(head -c 300 err.txt)"
[ -s out.txt ] && fail "play many.json printed: $(head -c 300 out.txt)"
rm -f many.json
# --help names both limits.
"$OROYA" play --help >out.txt 2>&1
grep -q "more than 2147483648 bytes (2 GiB, OROYA_SCENARIO_MAX_SIZE" out.txt &&
    grep -q "more than 16777216 JSON values" out.txt ||
    fail "play --help lacks the limits: $(cat out.txt)"
# Under ASan the two 2 GiB reads take a minute and 4.5 GB (its realloc copies); the sanitized
# build keeps the check above and leaves them to the normal build.
if grep -q '^OROYA_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "the 2 GiB reads are skipped in a sanitized build"
    finish "play size limit"
fi
# At the limit exactly: read through the same loop as stdin, and played (NUL padding after
# the text is allowed).
printf '{"nodes":[{"name":"n"}],"steps":[0.5],"record":["n.position"]}' >edge.json
truncate -s $((1 << 31)) edge.json
"$OROYA" play edge.json >out.txt 2>err.txt
got=$?
[ "$got" -eq 0 ] && grep -qF '"values":{"n.position":[0,0,0]}' out.txt ||
    fail "play edge.json (2 GiB exactly): exit $got: $(head -c 300 err.txt)"
rm -f edge.json
head -c $(((1 << 31) + 1)) /dev/zero | "$OROYA" play - >out.txt 2>err.txt
got=$?
[ "$got" -eq 1 ] && [ "$(cat err.txt)" = "oroya play: -: $want" ] ||
    fail "play - of 2 GiB + 1 bytes: exit $got: $(head -c 300 err.txt)"
[ -s out.txt ] && fail "play - of 2 GiB + 1 bytes printed: $(head -c 300 out.txt)"

finish "play size limit"
